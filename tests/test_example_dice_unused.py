"""An example that forces dice and expects a probability or a mean is refused at load (RC702).

Found by hunt 13h: a probability or a mean is worked out over every roll, so the forced dice went
unused and the example passed whatever they were: `dice: {first: 6, second: 6}` with
`expect: {mean: {total: 7}}` passed, where those dice total 12 (and `first: 99` passed too).
"""

from __future__ import annotations

import pytest

import engine
from engine.errors import RulecraftError
from engine.tools.examples import run_examples

RULES = """\
rulecraft: 1
name: lantern
checks:
  c:
    roll: {first: {die: 6}, second: {die: 6}}
    let: {total: first + second}
    outcomes: [low, high]
    outcome: "'high' if total >= 10 else 'low'"
    examples:
      - name: two sixes
        dice: {first: 6, second: 6}
        expect: EXPECT
"""


@pytest.mark.parametrize(
    ("expect", "kind"),
    [
        ("{mean: {total: 7}}", "mean"),
        ("{probability: {high: 1/6}}", "probability"),
        ("{outcome: high, probability: {high: 1/6}}", "probability"),
    ],
)
def test_forced_dice_with_a_whole_distribution_are_refused(expect: str, kind: str) -> None:
    with pytest.raises(RulecraftError) as raised:
        engine.load(RULES.replace("EXPECT", expect))
    [d] = raised.value.diagnostics
    assert d.code == "RC702" and f"example forces dice, but expects a {kind}" in d.message
    assert d.span is not None and (d.span.line, d.span.col) == (11, 9)  # the key `dice:`


def test_forced_dice_with_an_outcome_or_values_still_load_and_pass() -> None:
    rs = engine.load(RULES.replace("EXPECT", "{outcome: high, values: {total: 12}}"))
    assert [r.passed for r in run_examples(rs)] == [True]
