"""A long chain of redraws is solved in memory that grows with one level, not with all of them.

A die that may be redrawn `times` times is solved level by level, each level's distribution
read by the next alone. All were kept: a thousand redraws of a d6 (the language reference's luck
points with `max: 1000`, at the default limits) held a thousand ever longer distributions of ever
longer numbers, 425 MB at once where the limits' reference promises well under 256 MB (hunt
13zh). Counted by Python's allocator, not by the process's size, so the test does not depend on
the machine.
"""

from __future__ import annotations

import tracemalloc
from fractions import Fraction

import engine

LUCK = """rulecraft: 1
name: luck_points
checks:
  push:
    inputs:
      luck: {type: int, min: 0, max: 1000, default: 2}
    roll:
      d:
        die: 6
        redraw: {may: d <= 3, times: luck}
    let:
      spent: redraws(d)
      margin: d - 2 * spent
    outcomes: [fail, pass]
    objective: {at_least: pass}
    outcome: "'pass' if margin >= 3 else 'fail'"
"""


def test_a_long_chain_of_redraws_keeps_one_level_at_a_time() -> None:
    rs = engine.load(LUCK)
    tracemalloc.start()
    try:
        d = rs.distribution("push", luck=300)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # a 4, 5 or 6 stands and passes; a 1, 2 or 3 is redrawn, and then a 5 or 6 passes (less 2)
    # while a 4 fails and another 1-3 is redrawn again, past passing (less 4): 1/2 + 1/2 * 1/3
    assert d.probability("pass") == Fraction(2, 3)
    assert peak < 6 * 2**20, peak  # 14 MB when all 300 levels were kept


def test_the_chain_solved_again_after_its_levels_are_let_go_is_the_same() -> None:
    """A roll under `optimal` after the distribution reads levels the distribution let go: they
    are worked out again, to the same numbers."""
    rs = engine.load(LUCK)
    first = rs.distribution("push", luck=40, policy="optimal")
    for n in (40, 39, 12, 1):
        again = rs.distribution("push", luck=n, policy="optimal")
        assert again.probability("pass") == Fraction(7, 9)
    assert rs.distribution("push", luck=40, policy="optimal").table() == first.table()
    assert rs.roll("push", luck=40, policy="optimal", forced={"d": [1, 5]}).outcome == "pass"
