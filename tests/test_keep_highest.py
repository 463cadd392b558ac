"""`highest(p, k)` and `lowest(p, k)`: the k highest (lowest) readings of a pool, as a pool ("keep
the highest k"). Exact answers are held to an enumeration of every ordered roll written here, the
sampler to the same rule, and a pool read both ways is never taken for a plain fold."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.eval import foldcost, tables
from engine.model.ruleset import Pool
from engine.model.values import Multi
from engine.runtime.work import Work, working

RULESET = """\
rulecraft: 1
name: keep
checks:
  keep:
    inputs:
      n: {type: int, min: 0, max: 5, default: 4}
      k: {type: int, min: 0, max: 6, default: 3}
      sides: {type: int, min: 2, max: 6, default: 6}
    roll:
      p: {pool: n, die: "1..sides"}
    let:
      top: sum(highest(p, k))
      bottom: sum(lowest(p, k))
      top1: "highest(p) if count(p) > 0 else 0"
    outcomes: [low, high]
    outcome: "'high' if top > bottom + top1 else 'low'"
"""
KEEP = engine.load(RULESET)


def by_hand(n: int, k: int, sides: int) -> dict[str, Fraction]:
    """Every ordered roll of n dice, each read by the rule as the check states it."""
    outcomes: Counter[str] = Counter()
    for roll in product(range(1, sides + 1), repeat=n):
        ranked = sorted(roll)
        top, bottom = sum(ranked[::-1][:k]), sum(ranked[:k])
        top1 = max(roll) if roll else 0
        outcomes["high" if top > bottom + top1 else "low"] += 1
    total = sides**n
    return {name: Fraction(c, total) for name, c in outcomes.items()}


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 4), st.integers(0, 6), st.integers(2, 6))
def test_exact_agrees_with_every_roll(n: int, k: int, sides: int) -> None:
    d = KEEP.distribution("keep", n=n, k=k, sides=sides)
    want = by_hand(n, k, sides)
    assert {o: d.probability(o) for o in ("low", "high")} == {
        o: want.get(o, Fraction(0)) for o in ("low", "high")
    }


def test_the_best_three_of_four_dice() -> None:
    """4d6 keep the highest 3: the mean 15869/1296 is the well-known 12.2446...; an 18 needs
    three sixes, 4 x 5 + 1 = 21 of the 1296 rolls."""
    rs = engine.load(RULESET.replace("bottom + top1", "0 * bottom + 17"))
    top = rs.distribution("keep").value("top")
    assert top.mean == Fraction(15869, 1296)
    assert rs.distribution("keep").probability("high") == Fraction(21, 1296)


@pytest.mark.parametrize(
    ("faces", "k", "top", "bottom"), [([6, 5, 1, 4], 3, 15, 10), ([2, 2], 5, 4, 4), ([3], 0, 0, 0)]
)
def test_a_roll_keeps_what_the_rule_says(faces: list[int], k: int, top: int, bottom: int) -> None:
    r = KEEP.roll("keep", forced={"p": faces}, n=len(faces), k=k)
    assert (r.values["top"], r.values["bottom"]) == (top, bottom)


def test_samples_follow_the_exact_distribution() -> None:
    rng = random.Random(5)
    rolls = Counter(KEEP.roll("keep", rng, n=3, k=2, sides=4).outcome.name for _ in range(4000))
    want = KEEP.distribution("keep", n=3, k=2, sides=4).probability("high")
    assert abs(rolls["high"] / 4000 - float(want)) < 0.03


@pytest.mark.parametrize("k", ["-1", "3 / 2"])
def test_a_count_that_is_no_whole_number_is_refused(k: str) -> None:
    rs = engine.load(RULESET.replace("sum(highest(p, k))", f"sum(highest(p, {k}))"))
    with pytest.raises(engine.EvalError) as caught:
        rs.roll("keep", random.Random(1))
    assert caught.value.diagnostics[0].code == "RC504" and "whole number" in str(caught.value)


@pytest.mark.parametrize(
    ("written", "call", "example"),
    [
        ("sum(lowest(p, k / 2))", "lowest(p, k / 2)", "lowest(p, 2)"),
        ("sum(highest(p, k-4))", "highest(p, k - 4)", "highest(p, 2)"),
        ("count(lowest([n, k], k / 2))", "lowest([n, k], k / 2)", "lowest([n, k], 2)"),
    ],
)
def test_a_refused_count_quotes_the_call_as_written_and_points_at_it(
    written: str, call: str, example: str
) -> None:
    """The refusal names the very call (not `highest(p, k)` for every call, nor `highest` in
    the example of a `lowest`), in a roll and in the exact evaluator alike."""
    rs = engine.load(RULESET.replace("sum(lowest(p, k))", written))
    for ask in (lambda: rs.roll("keep", random.Random(1), k=3), lambda: rs.distribution("keep", k=3)):
        with pytest.raises(engine.EvalError) as caught:
            ask()
        d = caught.value.diagnostics[0]
        assert d.code == "RC504" and d.message.startswith(f"{call} keeps a whole number")
        assert d.hint is not None and f"e.g. {example}" in d.hint
        assert d.span is not None
        line = RULESET.splitlines()[d.span.line - 1].replace("sum(lowest(p, k))", written)
        assert line[d.span.col - 1 : d.span.end_col - 1].replace(" ", "") == call.replace(" ", "")


def test_a_count_that_is_no_number_is_a_type_error() -> None:
    with pytest.raises(engine.RulecraftError) as caught:
        engine.load(RULESET.replace("sum(highest(p, k))", "sum(highest(p, p))"))
    assert caught.value.diagnostics[0].code == "RC304"
    assert "how many dice to keep" in caught.value.diagnostics[0].message


def test_a_pool_read_only_through_a_constant_keep_is_not_taken_for_its_extreme() -> None:
    """`sum(highest(p, 3))` with a constant count reads the three highest readings, not the one
    highest: the exact evaluator must not take it for `highest(p)`."""
    rs = engine.load(
        "rulecraft: 1\nname: stats\nchecks:\n  s:\n    roll:\n      p: {pool: 4, die: 6}\n"
        "    let:\n      score: sum(highest(p, 3))\n    outcomes: [fair, strong]\n"
        "    outcome: \"'strong' if score >= 15 else 'fair'\"\n"
    )
    assert rs.distribution("s").value("score").mean == Fraction(15869, 1296)
    assert rs.distribution("s").probability("strong") == Fraction(300, 1296)


KEPT = """\
rulecraft: 1
name: kept
checks:
  s:
    inputs:
      n: {type: int, min: 0, max: 20, default: 7}
    roll:
      p: {pool: n, die: SIDES}
    let:
      score: sum(highest(p, 3))
      low: sum(lowest(p, 2))
    outcomes: [fair, strong]
    outcome: "'strong' if score >= 16 and low <= 4 else 'fair'"
"""


def test_a_constant_keep_is_a_fold_and_agrees_with_every_roll() -> None:
    """Found by an audit against icepool: keeping the highest 3 of 12d12 or 20d10 listed every
    multiset of the pool (1,352,078 and 10,015,005) and stopped at `max_states`. With a constant
    count, the k kept are a fold (`folds.FOLDS`), whose states are the readings kept so far.
    Here 7d6 against all 279,936 ordered rolls."""
    rs = engine.load(KEPT.replace("SIDES", "6"))
    d = rs.distribution("s", n=7)
    strong = 0
    scores: Counter[int] = Counter()
    for roll in product(range(1, 7), repeat=7):
        ordered = sorted(roll)
        score, low = sum(ordered[-3:]), sum(ordered[:2])
        strong += score >= 16 and low <= 4
        scores[score] += 1
    assert d.probability("strong") == Fraction(strong, 6**7)
    assert d.value("score").fractions() == {v: Fraction(c, 6**7) for v, c in scores.items()}
    assert d.states < 2000  # the kept triples and pairs, not the 792 multisets times their reads


def test_twenty_ten_sided_dice_keeping_three() -> None:
    rs = engine.load(KEPT.replace("SIDES", "10"))
    d = rs.distribution("s", n=20)  # within the default limits
    assert d.value("score").mean == Fraction(2847464228138663433651, 10**20)  # icepool's, exactly
    icepool = pytest.importorskip("icepool")
    want = icepool.d10.pool(20).highest(3).sum()
    got = d.value("score").fractions()
    assert {v: Fraction(c, want.denominator()) for v, c in want.items()} == got


def test_an_empty_pool_keeps_nothing_as_rolled() -> None:
    rs = engine.load(KEPT.replace("SIDES", "6"))
    assert rs.distribution("s", n=0).probability("fair") == 1
    assert rs.roll("s", random.Random(1), n=0).values["score"] == 0


def test_a_long_call_is_quoted_cut() -> None:
    """Review: a call over a list of 600 items was quoted whole, message and hint each about
    10.7 KB on one line: the call and its first argument are cut as any value a message shows."""
    items = ", ".join(str(i) for i in range(600))
    rs = engine.load(RULESET.replace("sum(lowest(p, k))", f"count(lowest([{items}], k / 2))"))
    with pytest.raises(engine.EvalError) as caught:
        rs.roll("keep", random.Random(1), k=3)
    d = caught.value.diagnostics[0]
    assert d.code == "RC504" and len(d.message) < 200 and d.hint is not None and len(d.hint) < 200, d
    assert d.message.startswith("lowest([0, 1, 2,") and "characters)" in d.message


def _units(keys: tuple[tuple[object, ...], ...], list_pool: bool = False) -> int:
    """The units the fold programme charges for these statistics of 60 dice of two faces, 1 and
    2: dice alike, or dice not alike (a pool over a list, die by die)."""
    two = ((1, 1), (2, 1))
    with working(Work(10**12)) as work:
        if list_pool:
            pool = KEEP.check("keep").roll[0]
            assert isinstance(pool, Pool)
            tables._per_folded((two,) * 60, keys, 10**9, pool)
        else:
            tables._folded(two, 60, keys, False)
    return work.used


def test_a_kept_step_is_charged_for_the_readings_it_handles() -> None:
    """Hunt 2, item 3: a step of `highest(p, k)` sorts the readings kept so far with those it
    adds and keys its state by them, and each state it ends in is made a pool; charged a unit a
    step whatever k, a check reading `lowest(highest(p, k))` of 100 d20 ran 9.1 s of CPU to the
    default budget of about 2 s keeping 50 (12.2 s and 1.6 GB keeping 100; 2.8 s keeping 3).
    Now a step past `KeptRate.free` readings is charged for the others (whole numbers: a unit for
    each 20), and each pool made `KEPT_MADE` units and its readings: 2.1 s keeping 50, 2.7 s
    keeping 100 and 3, on the loaded machine.

    Two faces, 60 dice: the first face takes 0-60 of them, the second the rest, 61 states
    whatever k, and every k was charged alike (1,952 units; with a sum too, 244 at two units a
    step). Keeping 3, a step handles at most 6 readings: charged as it was, but for its 4 pools."""
    rate, made = foldcost.kept_rate([1, 2]), foldcost.KEPT_MADE
    free, per = rate.free, rate.per // rate.units  # whole numbers: a unit for each `per`
    assert _units((("highest", 3),)) == 1952 + 4 * made
    # the first face's 61 steps add 0 to 60 readings to none (1,830 in all); each of the 61
    # states it leaves gives the rest to the second face in one step, 60 readings in all
    kept = (1830 - free * 61) // per + 61 * ((60 - free) // per) + 61 * (made + 60 // per)
    assert _units((("highest", 60),)) == 1952 + kept
    assert _units((("lowest", 60), ("sum",))) == foldcost.SEVERAL * 122 + kept
    # die by die, keeping 3: after d dice, at most 4 states (how many of the 3 kept show 2),
    # each stepped by both faces, a unit each (468 in all), and the 4 pools at the end
    assert _units((("highest", 3),), list_pool=True) == 468 + 4 * made
    # keeping 60: after d dice, d + 1 states of d readings (3,660 steps in all), each step
    # handling d + 1 of them
    by_die = sum((d + 1) * 2 * ((d + 1 - free) // per) for d in range(free, 60))
    assert _units((("highest", 60),), list_pool=True) == 3660 + by_die + 61 * (made + 60 // per)


def _kept_fractions(faces: tuple[Fraction, ...], list_pool: bool) -> int:
    """The units the fold programme charges for `highest(p, 5)` of 12 dice showing `faces`."""
    readings = tuple((f, 1) for f in faces)
    with working(Work(10**12)) as work:
        if list_pool:
            pool = KEEP.check("keep").roll[0]
            assert isinstance(pool, Pool)
            tables._per_folded((readings,) * 12, (("highest", 5),), 10**9, pool)
        else:
            tables._folded(readings, 12, (("highest", 5),), False)
    return work.used


@pytest.mark.parametrize("list_pool", [False, True])
def test_kept_fractions_are_charged_for_their_length(list_pool: bool) -> None:
    """Review X, item 2: a kept state is a tuple of fractions, hashed and compared a step, whose
    cost grows with their digits; charged at one flat rate, `highest(p, 5)` of 12 dice showing
    12-13 digit fractions ran 2.2-3.1 µs a unit where thirds ran 0.8-1 (the same units either
    way). Now the rate grows with the longest reading's bits (`KEPT_BITS`): about 1 µs a unit
    for both, thirds charged as they were."""
    thirds = tuple(Fraction(f, 3) for f in range(1, 11))
    long = tuple(f + Fraction(324781055999, 1647924991397) for f in range(1, 11))
    short_units, long_units = _kept_fractions(thirds, list_pool), _kept_fractions(long, list_pool)
    assert foldcost.kept_rate(thirds) == foldcost.FRACTIONS  # thirds: as they were
    assert long_units > 2 * short_units


@pytest.mark.parametrize(
    ("keys", "list_pool"),
    [((("highest", 60),), False), ((("lowest", 60), ("sum",)), False), ((("highest", 60),), True)],
)
def test_each_pool_a_fold_ends_in_is_hashed_once(
    keys: tuple[tuple[object, ...], ...], list_pool: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review X, item 4: each final state's summary was hashed twice (`get`, then set), and a
    kept pool's `Multi` counts its readings to hash (12 µs a pool or more where `KEPT_MADE`
    assumes 7-12). The 61 pools of 60 dice of two faces are hashed once each now, by each of
    the three final loops (one statistic, several, die by die)."""
    hashed = 0
    plain = Multi.__hash__

    def counted(self: Multi) -> int:
        nonlocal hashed
        hashed += 1
        return plain(self)

    monkeypatch.setattr(Multi, "__hash__", counted)
    _units(keys, list_pool)
    assert hashed == 61
