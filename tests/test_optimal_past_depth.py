"""A sampled roll under `optimal` that has rolled past where the exact solver stopped following
an uncapped explosion still gets best play's choice (hunt 13zm).

The sampler asks the exact solver of the pool for each `may` choice; that solver follows the
explosion 8 dice deep first (`exact.FIRST_DEPTH`), while the sampler rolls on. A roll holding more
dice than the solver's fields count (a d10 that may add on a 10, read by its total: 114 tens, one
field counting every summed die) was an AssertionError in `Packing.pack`, an HTTP 500 from the
server; a grant larger than the depth (nine 1s that may each add a die) saw the roll cut in the
solver's chain, which offered no move: an AssertionError in `RerollSolver.choice`. The solver is
now asked deeper (`RerollSolver.depth_for`) until it holds the roll, within `max_rerolls`.
"""

from __future__ import annotations

import pytest

import engine

TENS = """\
rulecraft: 1
name: tens
checks:
  c:
    roll:
      d: {die: 10, triggers: [{name: ex, on: face == 10, may: add}]}
    outcomes: [lo, hi]
    objective: {at_least: hi}
    outcome: "'hi' if d % 10 == 1 else 'lo'"
"""

LUCK = """\
rulecraft: 1
name: luck
checks:
  c:
    roll:
      d:
        die: 6
        triggers:
          - {name: boom, on: face == 6, must: add}
          - {name: luck, on: face == 1, may: add, per_die: 9, repeat: false}
    outcomes: [lo, hi]
    objective: {at_least: hi}
    outcome: "'hi' if d >= 30 else 'lo'"
"""


def test_a_roll_holding_more_dice_than_the_solvers_fields_gets_its_choice() -> None:
    """130 tens, each of which may add a die, then a 1: best play adds at every ten (a total
    ending in 1 is only reached by rolling on), so the total is 1,301."""
    rs = engine.load(TENS)
    result = rs.roll("c", forced={"d": [10] * 130 + [1]}, policy="optimal")
    assert result.outcome == "hi"
    assert result.values == {} and result.trace[-2].value == 1301


def test_a_grant_deeper_than_the_solvers_depth_gets_its_choice() -> None:
    """A 1 may add nine dice, more than the 8 the solver first follows: it adds them all (30
    is only reached by rolling), here nine 2s, 19 in all."""
    rs = engine.load(LUCK)
    result = rs.roll("c", forced={"d": [1] + [2] * 9}, policy="optimal")
    assert result.outcome == "lo" and result.trace[-2].value == 19
    decided = [s for s in result.trace if s.kind == "reroll"]
    assert decided and decided[0].decision is not None and decided[0].decision.by == "optimal"


def test_no_deeper_than_max_rerolls() -> None:
    """Where the solver may follow no deeper (`max_rerolls`), the roll is told so, at the pool:
    two 1s that may add five dice each, a grant of 10 past 9. Not "went past 9 dice": best play
    might have taken none (hunt 13zn), and no die was added."""
    text = LUCK.replace("      d:\n        die: 6", "      d:\n        pool: 2\n        die: 6")
    text = text.replace("per_die: 9", "per_die: 5").replace("d >= 30", "sum(d) >= 30")
    rs = engine.load(text, limits=engine.Limits(max_rerolls=9))
    with pytest.raises(engine.LimitError) as raised:
        rs.roll("c", forced={"d": [1, 1] + [2] * 10}, policy="optimal")
    [d] = raised.value.diagnostics
    assert (d.code, d.message) == (
        "RC503",
        "best play cannot weigh this roll's grant of 10 dice: the exact solver follows a roll at "
        "most 9 dice deep",
    )
    assert d.span is not None and d.span.line == 6 and "max_rerolls" in (d.hint or ""), d
