"""Issue 11, item 1: numbers a ruleset computes are capped in digits on every path that can grow
them fast. Products were capped first; a sum of fractions can double its digits too
(p/q + q/p = (p² + q²)/pq), and dividing by it is what lets it double again, so quotients are
capped like products. Forty rounds of `v + 1/v` once ran for minutes; now the first quotient over
1,000 digits is refused where it is written."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from test_hostile_budget import mini

import engine


def doubling_sums(k: int) -> str:
    lets = "    let:\n      v0: n + 1/3\n" + "".join(
        f"      v{i}: v{i - 1} + 1/v{i - 1}\n" for i in range(1, k + 1)
    )
    return mini("      d: {die: 6}\n", f"'hit' if d > v{k} else 'miss'", extra=lets)


@pytest.mark.parametrize("how", ["roll", "distribution"])
def test_a_sum_of_fractions_cannot_double_its_digits_forty_times(refused, how):
    rs = engine.load(doubling_sums(40))
    fn = rs.roll if how == "roll" else rs.distribution
    args = (random.Random(1),) if how == "roll" else ()
    error = refused("RC503", fn, "act", *args, n=1)
    assert "more than 1000 digits" in str(error) and "+ 1/v" in str(error)  # placed where it grew


def test_sums_of_fractions_below_the_cap_are_exact():
    """Eight rounds stay far below 1,000 digits; the value is the exact fraction (here checked
    through the outcome, which compares d with v8, a number a little over 4)."""
    v = engine.load(doubling_sums(8)).distribution("act", n=1)
    x = Fraction(4, 3)
    for _ in range(8):
        x = x + 1 / x
    assert v.probability("hit") == Fraction(sum(1 for d in range(1, 7) if d > x), 6)
