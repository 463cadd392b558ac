"""A reroll chain keeps the dice no step takes by their number and sum (`Procedure.summed`).

A pool read only by its total (a die with triggers, `sum(p)`, `count(p)`) tells its settled dice
apart by nothing else, so the exact solver keeps them as two fields (`Packing`): a d20 that adds a
die on 16-20, followed to its tail, was over 200,000 chain states (hunt 13zj: 33 s and 850 MB with
the limits raised) and is now a few thousand. The same pools read whole (`max(p)` beside the sum)
keep every face, and every number must agree.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.eval.dist import Dist
from engine.eval.rerolls import RerollSolver
from engine.frozen import replace
from engine.runtime.packing import Packing
from engine.runtime.procedure import Procedure

D20 = """\
rulecraft: 1
name: ex
checks:
  c:
    roll:
      {roll}
    {let}outcomes: [lo, hi]
    outcome: "'hi' if {read} > 20 else 'lo'"
"""
EXPLODING = "{die: 20, triggers: [{name: ex, on: 'face >= 16', must: add}]}"


def test_a_d20_adding_on_16_to_20_is_solved_within_the_default_limits() -> None:
    """Over 20 only when the first die shows 16-20 and the die it adds takes the total past 20:
    (16 + 17 + 18 + 19 + 20) / 400 = 9/40. Every roll cut at the depth already stood over 20,
    so the number is exact; the cut is at most 10^-15."""
    rs = engine.load(D20.format(roll=f"d: {EXPLODING}", let="", read="d"))
    dist = rs.distribution("c")
    assert dist.probability("hi") == Fraction(9, 40)
    assert 0 < dist.truncated <= Fraction(1, 10**15)
    assert dist.states == 599  # the totals it can end with, counted as before


def test_each_die_exploding_keeps_the_highest_within_the_default_limits() -> None:
    """Two such dice each on its own, the higher total read: 1 - (31/40)^2 = 639/1600."""
    roll = "p: {pool: 2, die: 20, each_die: {triggers: [{name: ex, on: 'face >= 16', must: add}]}}"
    text = D20.format(roll=roll, let="let:\n      v: sum(highest(p, 1))\n    ", read="v")
    assert engine.load(text).distribution("c").probability("hi") == Fraction(639, 1600)


def test_an_exploding_die_the_outcome_never_reads_is_solved_too() -> None:
    """Its die is still solved (the distribution's `states` count its totals), within the
    default limits."""
    text = """\
rulecraft: 1
name: unread
checks:
  c:
    roll:
      coin: {die: 2}
      d: {die: 20, triggers: [{name: ex, on: 'face >= 16', must: add}]}
    outcomes: [t, h]
    outcome: "'h' if coin == 2 else 't'"
"""
    dist = engine.load(text).distribution("c")
    assert dist.probability("h") == Fraction(1, 2)
    assert 0 < dist.truncated <= Fraction(1, 10**15)


POOL = """\
rulecraft: 1
name: summed
checks:
  c:
    roll:
      p:
        pool: {n}
        die: {sides}
{each}        triggers:
{triggers}{cap}
    let:
      v: {read}
    outcomes: [lo, mid, hi]
    outcome: [{{when: "v >= {high}", then: hi}}, {{when: "v >= {low}", then: mid}}, {{else: lo}}]
"""


@st.composite
def pools(draw: st.DrawFn) -> dict[str, object]:
    sides = draw(st.integers(3, 6))
    n = draw(st.integers(1, 3))
    add_on = draw(st.integers(2, sides))
    triggers = [f"          - {{name: up, on: 'face >= {add_on}', must: add}}\n"]
    if draw(st.booleans()):  # a step that rerolls: the faces it takes are kept one by one
        low = draw(st.integers(1, add_on - 1))
        how = draw(st.sampled_from(["must", "may"]))
        target = draw(st.sampled_from(["", ", target: 'face == 1'"]))
        triggers.insert(
            draw(st.integers(0, 1)),
            f"          - {{name: again, on: 'face <= {low}', {how}: reroll, repeat: false{target}}}\n",
        )
    # an explosion is followed to its depth only on the top face of a die of five faces or more,
    # in a pool of two dice at most: else it can meet the work budget (3 d3 adding on a 3 beside
    # a reroll of 1-2 do, and 3 d5 adding on a 5 beside a reroll of 1-3, read either way), and
    # the examples are kept quick
    capped = draw(st.booleans()) or add_on < sides or sides < 5 or n > 2
    each = draw(st.sampled_from([None, "face - 3", "face // 2", "2 * face"]))
    return {
        "n": n,
        "sides": sides,
        "each": f'        each: "{each}"\n' if each else "",
        "triggers": "".join(triggers),
        "cap": f"        cap: {draw(st.integers(1, 4))}\n" if capped else "",
        "low": draw(st.integers(0, 8)),
        "high": draw(st.integers(9, 20)),
    }


def _pair(spec: dict[str, object]) -> tuple[engine.Ruleset, engine.Ruleset]:
    summed = engine.load(POOL.format(read="sum(p)", **spec))
    whole = engine.load(POOL.format(read="sum(p) + 0 * max(p)", **spec))  # max: every face kept
    return summed, whole


@settings(max_examples=60, deadline=None)
@given(pools(), st.sampled_from(["always", "never", "optimal"]))
def test_read_by_its_sum_a_pool_gives_what_it_gives_read_whole(spec: dict[str, object], policy: str) -> None:
    """Pools of a few dice whose high faces add a die (capped or followed to the depth), with
    or without a step that rerolls low faces or a target, read through readings shifted below
    zero, halved or doubled: the outcomes, the sum's distribution, the chance the cap ended a
    roll and the chance the depth cut one are the same read by the sum alone (its settled dice
    summed) as read whole."""
    summed, whole = _pair(spec)
    a, b = summed.distribution("c", policy=policy), whole.distribution("c", policy=policy)
    assert a.outcomes == b.outcomes
    assert a.value("v").fractions() == b.value("v").fractions()
    assert (a.capped, a.truncated) == (b.capped, b.truncated)


def test_the_pairs_differ_in_what_is_summed() -> None:
    """The differential above compares two ways only where the sum alone sums kinds: read with
    `max(p)` beside it, the same pool sums none."""
    spec = {
        "n": 2,
        "sides": 6,
        "each": "",
        "triggers": "          - {name: up, on: 'face == 6', must: add}\n",
        "cap": "",
        "low": 5,
        "high": 12,
    }
    summed, whole = _pair(spec)
    assert Procedure(summed.model.checks["c"].roll[0], {}).summed == tuple(range(6))
    assert Procedure(whole.model.checks["c"].roll[0], {}).summed == ()


def test_a_summed_state_packs_by_its_number_and_sum() -> None:
    """Two states with as many settled dice adding up alike pack to one code; reading it back
    gives a state of that number and sum, which packs to the same code."""
    rs = engine.load(D20.format(roll=f"d: {EXPLODING}", let="", read="d"))
    proc = Procedure(rs.model.checks["c"].roll[0], {}, 8)
    packing = Packing(proc, 40)
    kind = proc.kind_of
    zero = proc.zeros

    def state(*faces: int) -> tuple:  # settled dice: their step used
        counts = list(zero)
        for f in faces:
            counts[kind[f]] += 1
        return proc.start(tuple(counts))[0], tuple(zero for _ in proc.steps), 0, ()

    a, b = packing.pack(state(16, 20, 3)), packing.pack(state(18, 18, 3))
    assert a == b
    assert a != packing.pack(state(17, 18, 3))
    read = packing.unpack(a)
    assert sum(read[0]) == 3 and proc.value(read[0]) == 39
    assert packing.pack(read) == a


@pytest.mark.parametrize(
    ("each", "summed"),
    [
        ("face", True),
        ("'hi' if face > 3 else 'lo'", False),  # no numbers
        ("0 if face < 3 else 5", False),  # 0 and 5, nothing between: no range
    ],
)
def test_only_whole_readings_in_a_range_are_summed(each: str, summed: bool) -> None:
    """A reading kept by a count and a sum must be a whole number, and the readings a range
    (every number and sum is then read back as a real state)."""
    text = POOL.format(
        n=2,
        sides=6,
        each=f'        each: "{each}"\n',
        triggers="          - {name: up, on: 'face == 6', must: add}\n",
        cap="        cap: 3\n",
        read="count(p)",
        low=1,
        high=3,
    )
    pool = engine.load(text).model.checks["c"].roll[0]
    assert bool(Procedure(replace(pool, count_keys=None), {}).summed) is summed


EXPLODING_D10 = """\
rulecraft: 1
name: pool
checks:
  c:
    inputs:
      n: {type: int, min: 1, max: 20}
    roll:
      p: {pool: n, die: 10, triggers: [{name: ex, on: 'face == 10', must: add}]}
    outcomes: [lo, hi]
    outcome: "'hi' if sum(p) >= 6 * n else 'lo'"
"""


def _solver(text: str, n: int) -> RerollSolver:
    check = engine.load(text).model.checks["c"]
    proc = Procedure(check.roll[0], {"n": n}, 8)
    members = check.outcomes.members
    return RerollSolver(
        proc, "always", 200_000, lambda v: Dist.certain(members[0]), check.objective, members, 100
    )


@pytest.mark.parametrize("n", [1, 2, 5])
def test_the_first_rolls_made_one_die_at_a_time_are_the_multisets_packed(n: int) -> None:
    """`summed_starts`: each code with as many ways as the multisets by kind that pack to it."""
    solver = _solver(EXPLODING_D10, n)
    packed = Dist.of((solver.packing.start(c), w) for c, w in solver.proc.fresh(n))
    made = solver.summed_starts(n)
    assert (made.weights, made.total) == (packed.weights, packed.total)
    assert len(made.weights) < len(solver.proc.fresh(n)) or n == 1


def test_twelve_exploding_d10_read_by_their_sum_start_from_few_states() -> None:
    """12 d10 fall 293,930 ways by kind, over `max_states` (refused before any was listed); by
    their summed dice's number and sum and their unused 10s, 637. Solved at the default limits,
    the chance of 72 or more is within the cut of an independent reckoning: one exploding d10's
    totals, 40 dice deep (what is left below 10^-40), convolved twelve times."""
    assert math.comb(12 + 9, 9) == 293_930
    assert len(_solver(EXPLODING_D10, 12).summed_starts(12).weights) == 637
    dist = engine.load(EXPLODING_D10).distribution("c", n=12)
    one: dict[int, Fraction] = {}
    for tens in range(40):  # `tens` 10s, then a face 1-9
        for last in range(1, 10):
            one[10 * tens + last] = Fraction(1, 10 ** (tens + 1))
    pool = {0: Fraction(1)}
    for _ in range(12):
        nxt: dict[int, Fraction] = {}
        for a, p in pool.items():
            for b, q in one.items():
                if a + b < 200:  # 200 or more is "hi" alike: kept together
                    nxt[a + b] = nxt.get(a + b, Fraction(0)) + p * q
                else:
                    nxt[200] = nxt.get(200, Fraction(0)) + p * q
        pool = nxt
    high = sum(p for total, p in pool.items() if total >= 72)
    assert abs(dist.probability("hi") - high) <= dist.truncated + Fraction(1, 10**30)
    assert 0 < dist.truncated <= Fraction(1, 10**15)


def test_the_first_rolls_made_one_die_at_a_time_are_bounded() -> None:
    """Made one die at a time, the first rolls are held to `max_states` as they are made."""
    rs = engine.load(EXPLODING_D10, limits=engine.Limits(max_states=300))
    with pytest.raises(engine.LimitError) as raised:
        rs.distribution("c", n=12)
    assert raised.value.diagnostics[0].code == "RC503"
    assert "more than 300 states" in raised.value.diagnostics[0].message


def test_a_summed_pool_over_max_states_is_not_told_to_read_its_faces_as_classes() -> None:
    """The hint's `each:` advice merges dice read alike; a sum tells every face apart, and the
    summed dice are kept by their number and sum already (hunt 13zm). It says where the cap goes."""
    rs = engine.load(EXPLODING_D10, limits=engine.Limits(max_states=300))
    with pytest.raises(engine.LimitError) as raised:
        rs.distribution("c", n=12)
    hint = raised.value.diagnostics[0].hint or ""
    assert "each:" not in hint and "set a 'cap' on the pool" in hint, hint
