"""A pool with triggers read only through counts, its history too (`Pool.count_keys`).

`1 in first_roll(p)` once stopped the procedure from merging faces the check cannot tell apart:
the pool was then read as multisets, so a d10 pool whose 8s, 9s and 10s add a die was solved
over ten kinds where `count(p, 8..10)` alone needs three, and two dice ran out of the default
budget (RC503; one die took about 10 s). Reading counts of the history keeps the merge, and each
part of the history keeps only the counts read of it. Every number must stay as it was: each
check is solved again with a read that defeats the merge (`sum(first_roll(p))`, read whole), and
the two must agree exactly, outcomes and every value, under every policy.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import Limits

COUNTED = """
rulecraft: 1
name: counted
checks:
  k:
    inputs:
      dice: {type: int, min: 1, max: 3, default: 2}
      top: {type: int, min: 4, max: 6, default: 5}
    roll:
      p:
        pool: dice
        die: 6
        cap: 3
        triggers:
          - {name: burst, on: face >= top, must: add}
          - {name: mulligan, on: face <= 2, may: reroll, first_roll_only: true}
    let:
      hits: count(p, top..6)
      ones: 1 in first_roll(p)
      burst: count(added_dice(p), 6)
      gone: count(rerolled_dice(p), 2)
      kept: not (2 in first_roll(p))
      many: count(first_roll(p))
      tail: TAIL
    outcomes: [botch, miss, hit, crit]
    objective: {at_least: hit}
    outcome:
      - when: ones and hits == 0
        then: botch
      - when: hits >= 3 or burst >= 2
        then: crit
      - when: hits > 0
        then: hit
      - else: miss
"""

MERGED = COUNTED.replace("TAIL", "0")
WHOLE = COUNTED.replace("TAIL", "sum(first_roll(p)) * 0")  # the history read whole: nothing merged
NAMES = ("hits", "ones", "burst", "gone", "kept", "many")
BIG = Limits(max_work=10**9, max_states=10**7)


def test_the_counts_are_kept_only_where_every_read_is_a_count() -> None:
    merged = engine.load(MERGED).model.checks["k"].roll[0]
    assert merged.history == ("first_roll", "added_dice", "rerolled_dice")
    assert merged.count_keys is not None
    assert {key[0] for key in merged.count_keys} == {"count", "first_roll", "added_dice", "rerolled_dice"}
    assert ("first_roll",) in merged.count_keys  # count(first_roll(p)): how many, whatever they show
    assert engine.load(WHOLE).model.checks["k"].roll[0].count_keys is None


@pytest.mark.parametrize("policy", ["always", "never", "optimal"])
@pytest.mark.parametrize("dice", [1, 2, 3])
@pytest.mark.parametrize("top", [4, 6])
def test_merging_by_counts_changes_no_number(policy: str, dice: int, top: int) -> None:
    merged = engine.load(MERGED, limits=BIG).distribution("k", policy=policy, dice=dice, top=top)
    whole = engine.load(WHOLE, limits=BIG).distribution("k", policy=policy, dice=dice, top=top)
    assert merged.table() == whole.table()
    for name in NAMES:
        assert dict(merged.value(name).items()) == dict(whole.value(name).items()), name
    assert merged.capped == whole.capped
    assert merged.states < whole.states  # fewer kinds, and a history kept by its counts alone


EXPLODING = """
rulecraft: 1
name: again
checks:
  roll:
    inputs:
      dice: {type: int, min: 0, max: 12, default: 2}
      again: {type: int, min: 8, max: 10, default: 8}
    roll:
      p:
        pool: "1 if dice == 0 else dice"
        die: 10
        triggers:
          - {name: again, on: face >= again, must: add}
    let:
      successes: "count(p, 10) if dice == 0 else count(p, 8..10)"
      chance_fail: dice == 0 and 1 in first_roll(p)
    outcomes: [dramatic_failure, failure, success, exceptional]
    outcome:
      - when: chance_fail
        then: dramatic_failure
      - when: successes == 0
        then: failure
      - when: successes >= 5
        then: exceptional
      - else: success
"""


def test_an_exploding_pool_read_for_a_first_roll_one_fits_the_default_budget() -> None:
    """The hunt's 8-again pool: two dice were RC503 under the default budget; now they are
    solved, and the outcome's chances are those of the same pool without the first-roll read
    (which cannot fire unless dice is 0) — its failures (0.7^2) and 1/10 for a chance die's 1."""
    rs = engine.load(EXPLODING)
    d = rs.distribution("roll", dice=2)
    plain = engine.load(EXPLODING.replace("dice == 0 and 1 in first_roll(p)", "false")).distribution(
        "roll", dice=2
    )
    assert d.table() == plain.table()
    assert d.probability("failure") == pytest.approx(0.49, abs=d.truncated)
    chance = rs.distribution("roll", dice=0)
    assert chance.probability("dramatic_failure") == pytest.approx(0.1, abs=chance.truncated)


def _generated(
    die: int, step: str, on: int, second: str, pool_key: str, part: str, part_key: str, tail: str
) -> str:
    return f"""
rulecraft: 1
name: gen
checks:
  k:
    inputs:
      dice: {{type: int, min: 1, max: 2, default: 2}}
    roll:
      t:
        die: 3
      p:
        pool: dice
        die: {die}
        cap: 2
        triggers:
          - {{on: "face >= {on}", {step}}}{second}
    let:
      a: count(p, {pool_key})
      b: {part_key} in {part}(p)
      c: count({part}(p), {part_key})
      tail: {tail}
    outcomes: [lo, mid, hi]
    objective: {{at_least: mid}}
    outcome: "'hi' if a >= 2 and not b else 'mid' if a >= 1 or c >= 1 else 'lo'"
"""


@settings(max_examples=40, deadline=None)
@given(
    die=st.integers(3, 6),
    step=st.sampled_from(["must: add", "may: reroll", "must: reroll, first_roll_only: true", "may: add"]),
    on_at=st.integers(0, 5),
    second=st.sampled_from(
        [
            "",
            '\n          - {on: "face == 1", must: reroll}',
            '\n          - {on: "face == 1", may: reroll, target: "face <= 2"}',
        ]
    ),
    pool_key=st.sampled_from(["1", "2..3", "[1, 3]", "3..6", "t..6", "t + 1"]),
    part=st.sampled_from(["first_roll", "added_dice", "rerolled_dice"]),
    part_key=st.sampled_from(["1", "2", "3", "4", "t", "t + 1"]),
    policy=st.sampled_from(["always", "never", "optimal"]),
    dice=st.integers(1, 2),
)
def test_any_pool_read_through_counts_gives_what_it_gives_read_whole(
    die: int,
    step: str,
    on_at: int,
    second: str,
    pool_key: str,
    part: str,
    part_key: int,
    policy: str,
    dice: int,
) -> None:
    """Generated pools: a step on the high faces (and one on the 1s), the pool and one part of its
    history counted, by constants or by an earlier die's value (its procedure then made for each).
    Merged by their counts or read whole (nothing merged), the numbers are the same."""
    on = die - on_at % die
    merged = _generated(die, step, on, second, pool_key, part, part_key, "0")
    whole = _generated(die, step, on, second, pool_key, part, part_key, f"sum({part}(p)) * 0")
    a = engine.load(merged, limits=BIG)
    assert a.model.checks["k"].roll[1].count_keys is not None
    d1 = a.distribution("k", policy=policy, dice=dice)
    d2 = engine.load(whole, limits=BIG).distribution("k", policy=policy, dice=dice)
    assert d1.table() == d2.table()
    for name in ("a", "b", "c"):
        assert dict(d1.value(name).items()) == dict(d2.value(name).items()), name
    assert d1.states <= d2.states


FROM_INPUTS = """
rulecraft: 1
name: inp
checks:
  k:
    inputs:
      dice: {type: int, min: 1, max: 3, default: 2}
      t: {type: int, min: 1, max: 6, default: 5}
    roll:
      p:
        pool: dice
        die: 6
        cap: 2
        triggers:
          - {on: "face == 6", must: add}
    let:
      hits: count(p, t..6)
      low: t - 3 in first_roll(p)
      tail: TAIL
    outcomes: [lo, hi]
    outcome: "'hi' if hits >= 1 and not low else 'lo'"
"""


def test_keys_read_from_the_inputs_are_worked_out_for_each_request() -> None:
    """`count(p, t..6)` and `t - 3 in first_roll(p)`: which faces are alike depends on `t`, so a
    procedure made for one value of it serves no other (asked in turn, in one process, where the
    ruleset keeps what it made)."""
    merged = engine.load(FROM_INPUTS.replace("TAIL", "0"))
    whole = engine.load(FROM_INPUTS.replace("TAIL", "sum(first_roll(p)) * 0"))
    for t in (6, 1, 4, 5, 2, 3, 6):
        for dice in (1, 2, 3):
            a, b = merged.distribution("k", t=t, dice=dice), whole.distribution("k", t=t, dice=dice)
            assert a.table() == b.table(), (t, dice)
            assert dict(a.value("low").items()) == dict(b.value("low").items()), (t, dice)


STALE = """
rulecraft: 1
name: stale
checks:
  k:
    inputs:
      t: {type: int, min: 1, max: 6, default: 5}
    roll:
      p:
        pool: 3
        die: 6
        triggers:
          - {on: "face == 6", must: reroll, target: "face <= 2"}
    let:
      hits: count(p, t..6)
      low: t - 3 in first_roll(p)
    outcomes: [lo, hi]
    outcome: "'hi' if hits >= 2 else 'lo'"
"""


def test_a_rolled_pool_is_merged_by_the_keys_of_its_own_inputs() -> None:
    """The sampler keeps a pool's procedure per value of what it reads (`procedure_for`), the
    keys' inputs too: at t = 6 the 1s and 2s are alike (the 6 may reroll either), at t = 2 they
    are not and the 6 rerolls the 1, the least valuable, leaving 2, 5, 6 three hits; a
    procedure kept from t = 6 rerolled the 2 (the first rolled of alike dice), two hits."""
    rs = engine.load(STALE)
    forced = {"p": [2, 1, 6, 5]}
    assert rs.roll("k", forced=forced, t=6).values["hits"] == 1  # the 6 alone, whichever went
    assert rs.roll("k", forced=forced, t=2).values["hits"] == 3


FROM_A_DIE = """
rulecraft: 1
name: dk
checks:
  k:
    roll:
      t:
        die: 4
      p:
        pool: 2
        die: 6
        cap: 2
        triggers:
          - {on: "face == 6", must: add}
          - {on: "face <= 2", may: reroll, target: "face <= 3", first_roll_only: true}
    let:
      hits: count(p, t + 2..6)
      low: t in first_roll(p)
      tail: TAIL
    outcomes: [lo, hi]
    objective: {at_least: hi}
    outcome: "'hi' if hits >= 2 and not low else 'lo'"
"""


@pytest.mark.parametrize("policy", ["always", "never", "optimal"])
def test_keys_read_from_an_earlier_die_make_a_procedure_for_each_of_its_values(policy: str) -> None:
    """`count(p, t + 2..6)` and `t in first_roll(p)`, `t` a die rolled before the pool: the exact
    evaluator solved the pool's procedure once for every `t` (it asks `randomizer_expressions`
    whether a pool reads an earlier die, and the keys were not among them), giving 865/1296 for
    'lo' under `always` where the pool read whole gives 383/576."""
    merged = engine.load(FROM_A_DIE.replace("TAIL", "0")).distribution("k", policy=policy)
    whole = engine.load(FROM_A_DIE.replace("TAIL", "sum(first_roll(p)) * 0")).distribution("k", policy=policy)
    assert merged.table() == whole.table()
    assert dict(merged.value("low").items()) == dict(whole.value("low").items())
    if policy == "always":
        assert merged.probability("lo") == Fraction(383, 576)
