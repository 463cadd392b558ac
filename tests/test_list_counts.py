"""`count` and `sum` read a list written in the expression as they read a pool: so "how many of
these conditions hold" is `count([a >= 4, b >= 4, c >= 4], true)`. `highest` and `lowest` read
a list too (test_builtin_kept_lists.py); `best`, `worst` and `majority` still take only a pool
or draw."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

import pytest

import engine

TEXT = """\
rulecraft: 1
name: lists
checks:
  c:
    roll:
      a: {die: 6}
      b: {die: 6}
      d: {die: 6}
    let:
      hits: count([a >= 4, b >= 4, d >= 4], true)
      total: sum([a, b, d])
      twos: count([a, b, d], [1, 2])
      many: count([a, b])
    outcomes: [low, high]
    outcome: "'high' if hits >= 2 else 'low'"
"""
RULES = engine.load(TEXT)


def test_a_roll_counts_and_sums_the_list() -> None:
    r = RULES.roll("c", forced={"a": 5, "b": 1, "d": 6})
    assert r.values == {"hits": 2, "total": 12, "twos": 1, "many": 2}


def test_the_exact_distribution_agrees_with_every_roll() -> None:
    rolls = list(product(range(1, 7), repeat=3))
    high = sum(1 for roll in rolls if sum(x >= 4 for x in roll) >= 2)
    twos = Counter(sum(x in (1, 2) for x in roll) for roll in rolls)
    d = RULES.distribution("c")
    assert d.probability("high") == Fraction(high, 216) == Fraction(1, 2)
    assert d.value("total").mean == Fraction(21, 2)
    counted = d.value("twos")
    assert {k: Fraction(w, counted.total) for k, w in counted.weights.items()} == {
        k: Fraction(n, 216) for k, n in twos.items()
    }


@pytest.mark.parametrize("call", ["best([a, b])", "worst([a, b])", "majority([a, b])"])
def test_the_other_statistics_take_a_pool(call: str) -> None:
    with pytest.raises(engine.RulecraftError) as caught:
        engine.load(TEXT.replace("sum([a, b, d])", call))
    assert (
        caught.value.diagnostics[0].code == "RC304" and "pool or draw" in caught.value.diagnostics[0].message
    )
