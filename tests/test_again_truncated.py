"""A check with a rule `then: again` whose uncapped explosion is cut (`Distribution.truncated`):
its distribution is that of the roll that ends, P(x | not again), and each probability must still
be exact to within `truncated`, as the docs promise. The cut mass was counted only where the cut
roll ended (`truncated` = cut ∧ not again / not again): a cut roll counted as made again — its
dice as they stood — may truly end, so the conditioned chances moved by the whole cut mass while
`truncated` said 0. Now the bound is the whole cut mass over what the roll that ends weighs
(see `Sequential.distribution`). Exact arithmetic throughout, no timing."""

from __future__ import annotations

from fractions import Fraction

import engine

RULES = """\
rulecraft: 1
name: cut
checks:
  sixes:
    roll:
      p: {pool: 1, die: 6, triggers: [{on: face == 6, must: add}]}
    outcomes: [lo, hi]
    outcome:
      - when: sum(p) % 6 > 0 and sum(p) > 7
        then: hi
      - when: sum(p) % 6 > 0
        then: lo
      - else: again
"""


def test_a_cut_roll_counted_as_again_is_within_truncated() -> None:
    """An exploding d6 ends on a face under 6, so its sum is never a multiple of 6: truly the
    check is never made again, and hi (a 6 then a face of 2 or more) is exactly 5/36. Cut, its
    dice as they stood are all sixes, made again: the conditioned chances miss by the cut mass,
    which `truncated` must cover (it was 0)."""
    d = engine.load(RULES).distribution("sixes")
    truth = {"lo": Fraction(31, 36), "hi": Fraction(5, 36)}
    assert d.truncated > 0
    assert d.truncated < Fraction(1, 10**12)  # still the small share of a cut explosion
    for name, p in truth.items():
        assert abs(d.probability(name) - p) <= d.truncated, (name, d.probability(name), d.truncated)


def test_a_deeper_cap_is_within_truncated_too() -> None:
    """The same check with a `cap` far past where the uncapped explosion is cut: the capped game,
    solved exactly to its cap, is within `truncated` of the cut one."""
    rs = engine.load(RULES)
    deep = engine.load(RULES.replace("p: {pool: 1, die: 6,", "p: {pool: 1, die: 6, cap: 60,"))
    cut, capped = rs.distribution("sixes"), deep.distribution("sixes")
    assert capped.truncated == 0
    for name in ("lo", "hi"):
        assert abs(cut.probability(name) - capped.probability(name)) <= cut.truncated, name
