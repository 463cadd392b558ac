"""RC103's hints lead to something that loads, found by a hunt: quoting was offered wherever text
was allowed, so `expect: {outcome: [hit]}` was told `"[hit]"`, `dice: {d20: [1.5]}` `"1.5"` and
`dice: {d20: [[1, 2]]}` `"[1, 2]"` (each then RC702), and `pool: 2.5` `"2.5"` (then RC406/RC808).
Each hint's own suggestion is written back into the file, which must then load and test clean."""

from __future__ import annotations

import re

import pytest

import engine
from engine.errors import RulecraftError
from engine.syntax.positions import SourceFile
from engine.tools.examples import run_examples

BASE = """\
rulecraft: 1
name: ex
bags:
  bag: {chits: {red: 2, blue: 2}}
checks:
  c:
    roll:
      d20: {pool: POOL, die: 20, redraw: {may: "1 in d20", times: TIMES}}
      b: {draw: bag, count: COUNT}
    let:
      kept: highest(d20)
    outcomes: [miss, hit]
    outcome: "'hit' if kept >= 11 else 'miss'"
    examples:
      - {dice: {d20: DICE, b: [red]}, expect: {outcome: OUT}}
"""
GOOD = {"POOL": "1", "TIMES": "1", "COUNT": "1", "DICE": "[12]", "OUT": "hit"}


def text(**bad: str) -> str:
    out = BASE
    for k, v in {**GOOD, **bad}.items():
        out = out.replace(k, v)
    return out


def rc103(source: str) -> engine.Diagnostic:
    with pytest.raises(RulecraftError) as info:
        engine.load_source(SourceFile("bad.yaml", source))
    [d] = info.value.diagnostics
    assert d.code == "RC103", d.render()
    return d


@pytest.mark.parametrize(
    ("slot", "bad", "key"),
    [
        ("OUT", "[hit]", "outcome"),
        ("OUT", "[hit, miss]", "outcome"),
        ("DICE", "[[12, 2]]", "d20"),
        ("DICE", "[12.5]", "d20"),
        ("DICE", "12.5", "d20"),
        ("POOL", "2.5", "pool"),
        ("COUNT", "1.5", "count"),
        ("TIMES", "1.5", "times"),
    ],
)
def test_the_hint_written_back_loads(slot: str, bad: str, key: str) -> None:
    """The hint ends in `KEY: VALUE` (or offers `KEY: A or KEY: B`): its first form replaces the bad
    value, and the file loads and its example runs (a pool of 2 or 3 forces as many faces)."""
    d = rc103(text(**{slot: bad}))
    assert d.hint is not None and '"' not in d.hint  # no quoting: that was the second error
    found = re.search(rf"\b{key}: (\[[^\]]*\]|[\w.]+)", d.hint)
    assert found is not None, d.hint
    value = found.group(1)
    fixed = text(**{slot: value})
    if slot == "POOL":  # the example forces each die the hint's pool rolls
        fixed = fixed.replace("d20: [12]", f"d20: [{', '.join(['12'] * int(value))}]")
    if slot == "DICE" and value.startswith("[") and "," in value:
        fixed = fixed.replace("pool: 1,", f"pool: {value.count(',') + 1},")
    rs = engine.load_source(SourceFile("fixed.yaml", fixed))
    assert all(r.passed for r in run_examples(rs)), fixed


def test_an_expression_is_still_told_to_be_quoted() -> None:
    d = rc103(text().replace("kept: highest(d20)", "kept: highest(d20)\n      rate: 1.5"))
    assert d.hint == 'an exact number is written as an expression, in quotes: "1.5"'
