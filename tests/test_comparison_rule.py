"""`==`, `!=`, the orderings and `in` have one type rule, `runtime.comparing.compare_rule`: the
compiler applies it at load to the types it knows (`RC304`), and generated code applies it when a
side's type is known only as it runs (`runtime.kinds.compare`, `RC506`), with the same words.

Before, review V found the rule stated twice, its messages and `in` itself copied into
`runtime.kinds`, and the copies drifted: the load judged an ordering by its first operand, the
run by whichever side is not `any`, so `true < idv(d)` was refused at load but `idv(d) < true`
loaded and failed on every roll.
"""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import pytest

import engine
from engine.syntax.positions import SourceFile

HEAD = """\
rulecraft: 1
name: compared
scales:
  q: [lo, hi]
tables:
  idv:
    params: [u]
    value: u
checks:
  a:
    roll:
      d: {die: 2}
    let:
      v: "VALUE"
    outcomes: q
    outcome: "'hi' if d == 2 else 'lo'"
"""

CASES = [
    # (left, op, right) written with values of known types
    ("true", "<", "true"),
    ("1", "==", "true"),
    ("[1]", "<", "[1]"),
    ("'hi'", "==", "1"),
    ("[1]", "==", "1"),
    ("1..2", ">=", "1..2"),
    ("1", "in", "true"),
    ("true", "in", "[1]"),
    ("'hi'", "not in", "1..2"),
    ("1", "<", "2"),
    ("'hi'", ">", "'lo'"),
    ("2", "in", "[1, 2]"),
    ("'lo'", "not in", "['hi']"),
]


def _said(value: str) -> tuple[str, str | None, object]:
    """("load" or "run", the message (None: allowed), the value on a roll of d = 1)."""
    try:
        rs = engine.load_source(SourceFile("compared.yaml", HEAD.replace("VALUE", value)))
    except engine.RulecraftError as e:
        [d] = e.diagnostics
        assert d.code == "RC304", d
        return "load", d.message, None
    try:
        got = rs.roll("a", random.Random(1), forced={"d": 1}).values["v"]
    except engine.EvalError as e:
        [d] = e.diagnostics
        assert d.code == "RC506", d
        return "run", d.message, None
    return "run", None, got


@pytest.mark.parametrize(("left", "op", "right"), CASES)
def test_a_side_known_only_when_it_runs_is_held_to_the_rule_the_load_applies(
    left: str, op: str, right: str
) -> None:
    """Each operand in turn, and both, given through an untyped table: the same words the load
    says for the values themselves (or the same value, where they are allowed)."""
    stage, typed, value = _said(f"{left} {op} {right}")
    assert stage == "load" or typed is None, (stage, typed)
    for twin in (f"idv({left}) {op} {right}", f"{left} {op} idv({right})", f"idv({left}) {op} idv({right})"):
        _, message, got = _said(twin)
        assert (message, got) == (typed, value), twin


@pytest.mark.parametrize("value", ["idv(d) < true", "true < idv(d)", "idv(d) <= [1]", "[1] > idv(d)"])
def test_an_ordering_of_a_kind_that_has_none_is_refused_at_load_on_either_side(value: str) -> None:
    """Whatever an untyped value turns out to be, true/false and lists have no order: the side of
    a known kind says so at load, whichever side it stands on (the first operand alone did)."""
    stage, message, _ = _said(value)
    assert stage == "load" and message is not None and "orders numbers or values of a scale, not" in message


def test_the_rule_and_what_in_does_are_stated_in_one_module() -> None:
    """Neither the compiler nor `runtime.kinds` restates a message of the rule, or `in`."""
    engine_dir = Path(engine.__file__).parent
    texts = {p: p.read_text(encoding="utf-8") for p in engine_dir.rglob("*.py")}
    for said in (
        "'in' needs a list, range or pool",
        "cannot look for",
        "cannot compare",
        "orders numbers or values of a scale",
        ".items if isinstance(",
    ):
        homes = sorted(p.relative_to(engine_dir).as_posix() for p, text in texts.items() if said in text)
        assert homes == ["runtime/comparing.py"], (said, homes)


WIDE = """\
rulecraft: 1
name: wide
tables:
  band:
    params: {t: number}
    returns: int
    cases:
      1..1000000000: 1
      else: 0
checks:
  c:
    inputs:
      hi: {type: int, min: 1, max: 1000000000, default: 1000000000}
      x: {type: number, default: "1/3"}
    roll:
      p: {pool: 2, die: 6, each: face + x}
      d: {die: 6}
    outcomes: [lose, win]
    outcome: "'win' if count(p, 1..hi) + band(d + x) > 0 or d + x in 1..hi else 'lose'"
"""


def test_a_number_not_whole_is_looked_for_in_a_range_at_once() -> None:
    """A third in `1..hi` (a count's range, `in`, a `cases` key's range) is told at once to be
    none of a range's whole numbers: Python's range walked every element for it, 10^9 steps a
    test, which no budget or deadline stopped (review X). With x whole, each reads as before."""
    import resource

    rs = engine.load_source(SourceFile("wide.yaml", WIDE))
    cpu = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    assert rs.distribution("c").probability("win") == 0
    assert rs.roll("c", random.Random(1)).outcome == "lose"
    assert resource.getrusage(resource.RUSAGE_SELF).ru_utime - cpu < 5  # before: hours
    assert rs.distribution("c", x=1).probability("win") == 1
    # a 2 among the pool (count), or d of 2 or more (the band; d + x in 1..1 is d = 2 alone)
    assert rs.distribution("c", x=-1, hi=1).probability("win") == 1 - Fraction(5, 6) ** 2 / 6
