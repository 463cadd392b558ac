"""`take: all` on a `may` trigger: the player takes the whole grant or none of it.

Found by an audit that wrote other games' mechanics from the docs alone: a Year Zero push
("reroll every die that is not a 1 or a 6", once) could only be written as a step that lets the
player reroll *any* number of those dice, so `optimal` pushed some of them — which the rule
forbids — and its chance of success came out too high (at 5 dice 44483/69984 against the rule's
1197425/1889568). These tests hold both readings to a brute force over every roll.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from functools import cache
from itertools import product

import pytest

import engine
from engine.runtime.procedure import Procedure

OUTCOMES = ("failure_hurt", "failure", "success_hurt", "success")


def _push(take: str) -> str:
    """Year Zero base dice: a 6 is a success; a push rerolls the dice showing 2-5, once, and a 1
    showing after a push hurts."""
    step = (
        f"{{name: push, on: 'face in 2..5', may: reroll, repeat: false{', take: ' + take if take else ''}}}"
    )
    return f"""\
rulecraft: 1
name: push
checks:
  roll:
    inputs:
      dice: {{type: int, min: 1, max: 8, default: 3}}
    roll:
      base:
        pool: dice
        die: 6
        triggers:
          - {step}
    let:
      sixes: count(base, 6)
      pushed: count(rerolled_dice(base)) > 0
      banes: "count(base, 1) if pushed else 0"
    outcomes: [{", ".join(OUTCOMES)}]
    objective: {{at_least: success}}
    outcome:
      - when: sixes >= 1 and banes == 0
        then: success
      - when: sixes >= 1
        then: success_hurt
      - when: banes == 0
        then: failure
      - else: failure_hurt
"""


def _result(sixes: int, ones: int, pushed: bool) -> str:
    banes = ones if pushed else 0
    if sixes:
        return "success" if not banes else "success_hurt"
    return "failure" if not banes else "failure_hurt"


@cache
def _after(sixes: int, ones: int, k: int) -> tuple[tuple[str, Fraction], ...]:
    """Where rerolling k of the dice showing 2-5 ends, as (outcome, chance) pairs."""
    ends: Counter[str] = Counter()
    for faces in product(range(1, 7), repeat=k):
        ends[_result(sixes + faces.count(6), ones + faces.count(1), k > 0)] += 1  # type: ignore[operator]
    return tuple((o, Fraction(w, 6**k)) for o, w in sorted(ends.items()))


def _brute(n: int, whole: bool) -> dict[str, Fraction]:
    """Every roll of n dice; at each, the player pushes k of the m dice showing 2-5 (k = 0 or m
    when the push is whole, any k otherwise), whichever gives the most chance of success, the
    fewest dice on a tie (the engine's order)."""
    total: Counter[str] = Counter()
    for roll in product(range(1, 7), repeat=n):
        sixes, ones = roll.count(6), roll.count(1)
        m = n - sixes - ones
        ks = [0, m] if whole else list(range(m + 1))
        best = max(ks, key=lambda k: (sum(p for o, p in _after(sixes, ones, k) if o == "success"), -k))
        for o, p in _after(sixes, ones, best):
            total[o] += p / 6**n  # type: ignore[operator]
    return {o: Fraction(total[o]) for o in OUTCOMES}


def _exact(text: str, n: int, policy: str = "optimal") -> dict[str, Fraction]:
    d = engine.load(text).distribution("roll", dice=n, policy=policy)
    return {o: d.probability(o) for o in OUTCOMES}


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_a_whole_push_is_taken_whole_or_not_at_all(n: int) -> None:
    assert _exact(_push("all"), n) == _brute(n, whole=True)


@pytest.mark.parametrize("n", [3, 4])
def test_any_number_is_still_the_default(n: int) -> None:
    assert _exact(_push(""), n) == _exact(_push("any"), n) == _brute(n, whole=False)


def test_the_two_readings_differ_where_the_audit_found_it() -> None:
    whole, part = _exact(_push("all"), 5), _exact(_push(""), 5)
    assert whole["success"] == Fraction(1197425, 1889568)
    assert part["success"] == Fraction(44483, 69984)
    assert whole != part


@pytest.mark.parametrize("policy", ["always", "never"])
def test_the_fixed_policies_read_it_as_before(policy: str) -> None:
    """`always` took the whole grant already and `never` none: `take` changes neither."""
    for n in (2, 4):
        assert _exact(_push("all"), n, policy) == _exact(_push(""), n, policy)


def test_a_sampled_optimal_push_rerolls_every_die_it_may_or_none() -> None:
    rs = engine.load(_push("all"))
    taken = declined = 0
    for seed in range(60):
        result = rs.roll("roll", dice=5, policy="optimal", rng=random.Random(seed))
        for step in result.trace:
            if step.trigger is None or step.decision is None:
                continue
            if step.decision.taken:  # every die showing 2-5 goes at once
                taken += 1
                assert sorted(step.replaced) == sorted(f for f in step.trigger.showing if 2 <= f <= 5)
            else:
                declined += 1
                assert not step.replaced
    assert taken and declined  # both choices were met


def test_an_added_grant_is_taken_whole_or_not_at_all() -> None:
    """A 6 may add two dice, both or neither; the outcome is the total against 12. Both added
    dice together reach 12 only from a 6 with 6 more (6 + a + b >= 12: a + b >= 6, 26 of 36);
    adding one alone (`any`) could not help more than both, so the chances agree, but the
    options offered differ: 0 or 2 dice, against 0, 1 or 2."""
    text = """\
rulecraft: 1
name: adds
checks:
  c:
    roll:
      p:
        pool: 1
        die: 6
        triggers:
          - {on: face == 6, may: add, per_die: 2, repeat: false, take: all}
    outcomes: [low, high]
    objective: {at_least: high}
    outcome: "'high' if sum(p) >= 12 else 'low'"
"""
    high = Fraction(1, 6) * Fraction(26, 36)
    for take in ("all", "any"):
        rs = engine.load(text.replace("take: all", f"take: {take}"))
        assert rs.distribution("c", policy="optimal").probability("high") == high
        proc = Procedure(rs.checks["c"].roll[0], {})  # type: ignore[arg-type]
        state = proc.state_of([6], [1], 0)  # one die showing 6, holding the step unused
        assert [o[1] for o in proc.options(state, 0, "optimal")] == ([0, 2] if take == "all" else [0, 1, 2])


def test_take_is_checked_by_the_schema() -> None:
    with pytest.raises(engine.RulecraftError) as err:
        engine.load(_push("some"))
    d = err.value.diagnostics[0]
    assert d.code == "RC104" and "must be one of 'any', 'all', not 'some'" in d.message


def test_the_arrays_solve_a_whole_push_as_the_nodes_do() -> None:
    """Seven dice make 792 first rolls: past `ARRAYS_FROM`, so numpy's layered solve (which takes
    a step's options from the same listing) is held to the node-by-node one."""
    pytest.importorskip("numpy")
    from test_chain_arrays import BIG, both

    def ask() -> engine.Distribution:
        return engine.load(_push("all"), limits=BIG).distribution("roll", dice=7, policy="optimal")

    (nodes, by_node), (arrays, by_arrays) = both(ask)
    assert arrays == nodes and by_arrays == by_node
    assert nodes.probability("success") != engine.load(_push(""), limits=BIG).distribution(
        "roll", dice=7, policy="optimal"
    ).probability("success")
