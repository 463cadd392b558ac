"""The exact evaluator's quick ways to an outcome's distribution (issue 13): the generated loop
over the randomizers, the two stages with the dice-only values worked out once and merged, the
outcome-only program, the joint made only when asked for, and the fold programme's single
statistic. Each must give exactly what running the whole check program over every combination
gives; these tests compare them with that, on every shipped check and on checks written here."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.errors import EvalError
from engine.eval import exact, foldcost, tables
from engine.eval.dist import Dist
from engine.model.ruleset import Check
from engine.runtime.cache import Caches
from engine.runtime.context import RunContext
from engine.runtime.folds import FOLDS
from engine.runtime.inputs import bind_inputs
from engine.runtime.limits import DEFAULT_LIMITS
from engine.tools.lint import lint

SHIPPED = {name: engine.load(name) for name in ("castle", "chill", "chimera", "chthonian")}


def _ways(check: Check) -> dict[str, Check]:
    """The check with each quick way taken away in turn, down to the whole program alone."""
    return {
        "as compiled": check,
        "loop": replace(check, outcome_stages=None),
        "outcome program": replace(check, outcome_stages=None, outcome_loop=None),
        "whole program": replace(check, outcome_stages=None, outcome_loop=None, outcome_program=None),
    }


def _product_cases() -> list[tuple[str, str, dict[str, Any]]]:
    """Every shipped check that multiplies its randomizers, with the inputs of each example."""
    cases = []
    for rs_name, rs in SHIPPED.items():
        for check in rs.checks.values():
            if check.sequential or not check.roll:
                continue
            seen = []
            for ex in check.examples:
                inputs = dict(ex.inputs)
                if inputs not in seen:
                    seen.append(inputs)
                    cases.append((rs_name, check.name, inputs))
    return cases


@pytest.mark.parametrize(("rs_name", "check_name", "inputs"), _product_cases())
def test_every_quick_way_gives_the_outcome_the_whole_program_gives(
    rs_name: str, check_name: str, inputs: dict[str, Any]
) -> None:
    check = SHIPPED[rs_name].check(check_name)
    bound = bind_inputs(check, inputs)
    found = {}
    for way, c in _ways(check).items():
        d = exact.distribution(c, bound, RunContext(DEFAULT_LIMITS, "always", Caches()))
        found[way] = d.outcome
        assert d.joint.map(lambda key: key[0]) == d.outcome, way
    assert len({repr(sorted(d.weights.items())) for d in found.values()}) == 1, found


def test_the_chill_check_runs_in_two_stages_and_its_groups_serve_every_target() -> None:
    """The band reads the dice only through `roll` and `doubles`, which no input changes: they
    are worked out once for the check (100 groups), then each target runs only the band."""
    rs = engine.load("chill")
    check = rs.check("specific")
    assert check.outcome_stages is not None and check.outcome_loop is not None
    whole = replace(check, outcome_stages=None, outcome_loop=None, outcome_program=None)
    for target in (1, 27, 54, 55, 99, 100, 101, 300):
        for tokens in (0, 3):
            bound = bind_inputs(check, {"target": target, "tokens": tokens})
            quick = exact.distribution(check, bound, RunContext(rs.limits, "always", rs.caches))
            slow = exact.distribution(whole, bound, RunContext(rs.limits, "always", Caches()))
            assert quick.outcome == slow.outcome
    groups = [k for k, _ in rs.caches.tables.items() if k[0] == "groups"]
    assert len(groups) == 1  # made once, for every target
    assert len(rs.caches.tables.get(groups[0])[2]) == 100


SUMS = """
rulecraft: 1
name: sums
checks:
  total:
    inputs:
      target: {type: int, min: 0, max: 20, default: 7}
    roll:
      a: {die: 6}
      b: {die: 6}
      c: {die: 4}
    let:
      s: a + b
      odd: c % 2 == 1
    outcomes: [low, high, special]
    outcome:
      - when: s >= target and odd
        then: special
      - when: s >= target
        then: high
      - else: low
    outputs:
      margin: s - target
      broken: 1 / (s - target)
  weighted:
    inputs:
      bonus: {type: int, min: -5, max: 5, default: 0}
    roll:
      a: {die: [1, 1, 2, 3]}
      b: {die: [2, 2, 2, 5]}
    let:
      x: a + bonus
    outcomes: [lo, even, hi]
    outcome: "'hi' if x > b else 'even' if x == b else 'lo'"
  pair:
    inputs:
      target: {type: int, min: 0, max: 10, default: 5}
    roll:
      a: {die: [1, 1, 2, 3]}
      b: {die: [2, 2, 2, 5]}
    let:
      s: a + b
    outcomes: [lo, hi]
    outcome: "'hi' if s >= target else 'lo'"
"""


@pytest.mark.parametrize("bonus", range(-5, 6))
def test_the_loop_weighs_a_combination_by_the_product_of_its_faces_weights(bonus: int) -> None:
    """Dice with repeated faces: each combination's weight is the product of both dice' weights."""
    check = engine.load(SUMS).check("weighted")
    assert check.outcome_stages is None and check.outcome_loop is not None  # x reads an input
    found = {}
    for way, c in _ways(check).items():
        found[way] = exact.distribution(
            c, {"bonus": bonus}, RunContext(DEFAULT_LIMITS, "always", Caches())
        ).outcome
    hand: dict[str, int] = {}
    for a in (1, 1, 2, 3):
        for b in (2, 2, 2, 5):
            k = "hi" if a + bonus > b else "even" if a + bonus == b else "lo"
            hand[k] = hand.get(k, 0) + 1
    for way, d in found.items():
        assert {str(k): Fraction(w, d.total) for k, w in d.weights.items()} == {
            k: Fraction(w, 16) for k, w in hand.items()
        }, way


def test_combinations_that_agree_on_what_the_rest_reads_are_merged() -> None:
    """36 x 4 combinations, but the rest reads only (a + b, whether c is odd): 11 x 2 groups."""
    rs = engine.load(SUMS)
    check = rs.check("total")
    assert check.outcome_stages is not None
    for target in range(0, 15):
        d = rs.distribution("total", target=target)
        high = sum(1 for a in range(1, 7) for b in range(1, 7) if a + b >= target)
        assert d.probability("special") == Fraction(high * 2, 144)
        assert d.probability("high") == Fraction(high * 2, 144)
    groups = [k for k, _ in rs.caches.tables.items() if k[0] == "groups"]
    assert len(groups) == 1 and len(rs.caches.tables.get(groups[0])[2]) == 22


def test_the_joint_is_made_only_when_asked_for_and_an_output_fails_there() -> None:
    """An outcome question runs no output: `broken` divides by zero where the sum hits the
    target, which the outcome never reads; asking for the values runs it and says so."""
    rs = engine.load(SUMS)
    d = rs.distribution("total", target=7)
    assert d.probability("low") == Fraction(15, 36)
    assert "joint" not in d.__dict__
    with pytest.raises(EvalError) as caught:
        d.value("margin")
    assert caught.value.diagnostics[0].code == "RC502"
    fine = rs.distribution("total", target=13)  # no sum reaches 13: nothing divides by zero
    assert fine.value("margin").mean == Fraction(7) - 13
    assert fine.joint.map(lambda key: key[0]) == fine.outcome


UNREAD = """
rulecraft: 1
name: unread
checks:
  c:
    inputs:
      k: {type: int, min: 0, max: 3, default: 0}
    roll:
      p: {pool: k, die: 2}
    let:
      v0: "count(p)"
      v1: "highest(p)"
    outcomes: [lo, hi]
    outcome: "'hi' if v0 > 0 else 'lo'"
"""


def test_a_value_the_outcome_does_not_read_fails_a_roll_not_the_outcome() -> None:
    """docs/language.md, "Checks": a roll works out every value, the outcome's distribution only
    what the outcome reads. With no dice `highest(p)` fails: every roll fails, asking for `v1`
    fails, the outcome's distribution is given, and the linter says RC808 (found by an audit)."""
    rs = engine.load(UNREAD)
    assert rs.distribution("c", k=0).table() == [("lo", Fraction(1)), ("hi", Fraction(0))]
    with pytest.raises(EvalError) as rolled:
        rs.roll("c", k=0)
    assert rolled.value.diagnostics[0].code == "RC504"
    with pytest.raises(EvalError) as asked:
        rs.distribution("c", k=0).value("v1")
    assert asked.value.diagnostics[0].code == "RC504"
    # with dice the two agree: every roll succeeds and the outcome is 'hi'
    assert rs.distribution("c", k=2).probability("hi") == 1 and rs.roll("c", k=2).outcome == "hi"
    found = [d for d in lint(rs) if d.code == "RC808"]
    assert len(found) == 1 and "highest() of an empty pool" in found[0].message
    assert found[0].span is not None and found[0].span.line == 12  # at v1's expression


def test_a_lazy_distribution_is_weighed_at_its_largest() -> None:
    """The cache weighs a distribution whose joint is not made yet as if every state were a
    point of it, so making the joint later never holds more than was counted."""
    rs = engine.load("chill")
    d = rs.distribution("specific", target=55)
    before = d.approx_bytes()
    assert before >= 100 * 200
    d.values  # noqa: B018 -- the joint and every marginal made now
    made = engine.runtime.cache.approx_bytes(d.joint.weights)
    assert made <= before


def test_face_readings_kept_per_value_of_what_each_reads() -> None:
    """A pool's readings are kept per value of the inputs its `each` reads, never across them."""
    rs = engine.load("chimera")
    fresh = engine.load("chimera")
    for adv in (0, 1, 2, 0, 1):
        for dice in (1, 3):
            assert rs.distribution("pool", dice=dice, advantage=adv) == fresh.distribution(
                "pool", dice=dice, advantage=adv
            )
            fresh.caches.tables.clear()
            fresh.caches.distributions.clear()


@settings(max_examples=150, deadline=None)
@given(
    weights=st.lists(st.integers(1, 5), min_size=1, max_size=5),
    n=st.integers(1, 12),  # no die: an undefined statistic, equal only to itself
    fold=st.sampled_from(["majority", "sum", "count", "highest", "lowest"]),
)
def test_one_statistic_by_the_quick_programme_is_the_general_one(
    weights: list[int], n: int, fold: str
) -> None:
    categories = tuple((v, w) for v, w in enumerate(weights))
    key = (fold,) if fold != "count" else ("count",)
    quick = tables._folded(categories, n, (key,), False)
    slow = tables._folded(categories, n, (key, ("count",)), False)  # two statistics: the general path
    assert quick.total == slow.total == sum(weights) ** n
    merged: dict[Any, int] = {}
    for summary, w in slow.weights.items():
        k = summary.results[key]
        merged[k] = merged.get(k, 0) + w
    assert {s.results[key]: w for s, w in quick.weights.items()} == merged
    assert sum(quick.weights.values()) == quick.total
    assert FOLDS[fold].name == fold


def _fold_units(categories: tuple[tuple[Any, int], ...], n: int, keys: tuple[Any, ...], draw: bool) -> int:
    """The units the fold programme charges for these statistics of `n` dice (or chits drawn)."""
    from engine.runtime.work import Work, working

    with working(Work(10**12)) as work:
        tables._folded(categories, n, keys, draw)
    return work.used


def test_a_step_of_several_statistics_is_charged_what_it_costs() -> None:
    """Review: a step of the fold programme reading several statistics at once costs 2.1-2.8 µs
    whatever they are (one statistic's, 0.6-1), and was charged a unit: highest(p) - lowest(p)
    of 10 d150 ran 4.3 s on the default budget of about 2 s. A unit a statistic (a430c42) then
    refused sum, highest and count of 60 d6 (1.0 s), whose last category, which takes every die
    left in one step, had been charged a step for each of them. Now a step of several is charged
    `SEVERAL` units however many they are, and the last category one step a state: the pair
    stops in about 2.4 s, the three are charged 6 % more (747,616 units, now 793,012)."""
    chits = tuple((v, 10) for v in range(1, 11))  # 8 of 100 chits of ten kinds: the same states
    one, two = _fold_units(chits, 8, (("sum",),), True), _fold_units(chits, 8, (("sum",),) * 2, True)
    assert two == _fold_units(chits, 8, (("sum",),) * 3, True)
    several = two // one
    assert several >= 2 and two == several * one, (one, two)
    assert several == foldcost.SEVERAL
    # two faces, 20 dice: the first face's one state takes 0-20 of them (21 steps), each of the
    # 21 states it leaves gives the rest to the last face (a step each; there were 231 in all)
    assert _fold_units(((1, 1), (2, 1)), 20, (("sum",), ("count", 2)), False) == several * 42


def test_a_step_over_fractions_is_charged_what_it_costs() -> None:
    """Review (hunt 2, item 4's kin): a step of the fold programme over readings that are
    fractions (`each: face + x`, x an input of 1/3) was charged as one over whole numbers, where
    a sum of fractions reduces by a gcd and hashes by a modular inverse, calls into Python (5-7
    µs a step; whole numbers 0.5-1): a sum of 100 d20 each showing a third ran 10.5 s of CPU to
    the default budget of about 2 s, 30 dice showing a 100-digit fraction 14 s to an answer.
    Now a step is charged as one of dice not alike (`foldcost.fraction_units`): 2.1 and 2.3 s
    to RC503. The same states over thirds as over whole numbers: each step `FRACTION_SUM`
    units for a sum, `FRACTION` for a highest, both together for a sum and a count."""
    whole = tuple((f, 1) for f in range(1, 7))
    thirds = tuple((Fraction(3 * f + 1, 3), 1) for f in range(1, 7))
    sums = _fold_units(whole, 10, (("sum",),), False)
    assert _fold_units(thirds, 10, (("sum",),), False) == foldcost.FRACTION_SUM * sums
    highest = _fold_units(whole, 10, (("highest",),), False)
    assert _fold_units(thirds, 10, (("highest",),), False) == foldcost.FRACTION * highest
    pair = _fold_units(whole, 10, (("sum",), ("count",)), False) // foldcost.SEVERAL
    both = foldcost.FRACTION_SUM + foldcost.FRACTION
    assert _fold_units(thirds, 10, (("sum",), ("count",)), False) == both * pair
    # a fraction of 1,200 bits and more: `LONG_FRACTION` and its bits too
    long = tuple((Fraction(f, 2**1200 + 1), 1) for f in range(1, 7))
    assert _fold_units(long, 10, (("sum",),), False) > (foldcost.FRACTION_SUM + foldcost.LONG_FRACTION) * sums


def _value_cases() -> list[tuple[str, str, dict[str, Any], str]]:
    """Every named value with a loop of its own, on every shipped check and example's inputs."""
    return [
        (rs_name, check_name, inputs, name)
        for rs_name, check_name, inputs in _product_cases()
        for name in SHIPPED[rs_name].check(check_name).value_loops
    ]


@pytest.mark.parametrize(("rs_name", "check_name", "inputs", "name"), _value_cases())
def test_a_values_own_loop_gives_what_the_joint_gives(
    rs_name: str, check_name: str, inputs: dict[str, Any], name: str
) -> None:
    """`value(name)` asked before the joint runs only that value's loop (`Check.value_loops`),
    and gives the distribution the joint gives."""
    check = SHIPPED[rs_name].check(check_name)
    bound = bind_inputs(check, inputs)
    alone = exact.distribution(check, bound, RunContext(DEFAULT_LIMITS, "always", Caches()))
    if not isinstance(alone.source, exact._Product):
        pytest.skip("an auto rule decided the outcome: no roll")
    quick = alone.value(name)
    assert "joint" not in alone.__dict__  # the joint was not made for it
    whole = exact.distribution(check, bound, RunContext(DEFAULT_LIMITS, "always", Caches()))
    assert len(whole.joint) > 0  # made first: `value` then reads it
    assert quick == whole.value(name) and quick.total == whole.joint.total


def test_a_value_loop_weighs_repeated_faces_and_reads_only_what_it_needs() -> None:
    """Dice with repeated faces, a value that reads one die and an input: the hand count; the
    output that divides by zero is never run for it."""
    rs = engine.load(SUMS)
    check = rs.check("weighted")
    assert set(check.value_loops) == {"x"}
    for bonus in range(-5, 6):
        d = rs.distribution("weighted", bonus=bonus)
        assert d.value("x") == Dist({a + bonus: 4 * w for a, w in ((1, 2), (2, 1), (3, 1))}, 16)
    total = rs.check("total")
    assert set(total.value_loops) == {"s", "odd"}
    d = rs.distribution("total", target=7)  # `broken` divides by zero at s == 7: not for `s`
    assert d.value("s").probability(7) == Fraction(6, 36) and "joint" not in d.__dict__
    with pytest.raises(EvalError):
        d.value("broken")


def test_the_outcome_pass_charges_each_table_call_once_and_the_groups_come_second() -> None:
    """Chill's outcome calls its band table once per state: the first request charges a unit per
    state and one per call (200), before its loop runs unmetered, and leaves the groups for the
    next; the second makes them (100 more) and runs the band per group, as every later one does;
    a named value alone charges its own table calls only."""
    from engine.runtime.work import Work, working

    rs = engine.load("chill")
    check = rs.check("specific")
    assert check.outcome_units == 1
    used = []
    for target in (55, 54, 53):
        work = Work(10**9)
        ctx = RunContext(rs.limits, "always", rs.caches, None, None, work)
        d = exact.distribution(check, bind_inputs(check, {"target": target}), ctx)
        used.append(work.used)
        groups = [v for k, v in rs.caches.tables.items() if k[0] == "groups"]
        assert len(groups) == 1 and (groups[0][2] is None) == (target == 55)
    assert used == [200, 300, 200]
    work = Work(10**9)
    with working(work):
        d.value("before_tokens")
    assert work.used == 200


def test_two_dice_with_repeated_faces_weigh_alike_through_the_loop_and_the_groups() -> None:
    """The first request takes the loop, the next ones the groups (sums of two dice whose faces
    repeat: each group weighs the product of both dice' weights); both give the hand count."""
    rs = engine.load(SUMS)
    assert rs.check("pair").outcome_stages is not None
    for target in range(0, 11):
        hand = sum(1 for a in (1, 1, 2, 3) for b in (2, 2, 2, 5) if a + b >= target)
        assert rs.distribution("pair", target=target).probability("hi") == Fraction(hand, 16)
    groups = [v for k, v in rs.caches.tables.items() if k[0] == "groups"]
    assert len(groups) == 1
    assert dict(groups[0][2]) == {(3,): 6, (4,): 3, (5,): 3, (6,): 2, (7,): 1, (8,): 1}
