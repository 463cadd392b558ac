"""A pool whose every die runs its own triggers (`each_die:`): the exploding roll-and-keep.

Each die of such a pool is a die with triggers: its value is the total of its own dice, and the
pool holds those totals. The exact answer is held to a brute force written here (the exploding
d10's totals convolved by hand, the k highest summed die by die) and to icepool where it is
installed, each to within the truncation the distribution reports; samples to the exact answer
by a chi-square test; misuse to its diagnostic."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest
from _stats import chi_square_p

import engine
from engine.runtime.limits import Limits

ALPHA = 1e-3

KEEP = """\
rulecraft: 1
name: roll_and_keep
checks:
  keep:
    inputs:
      dice: {type: int, min: 0, max: 10, default: 5}
      keep: {type: int, min: 0, max: 10, default: 3}
    roll:
      kept:
        pool: dice
        die: 10
        each_die:
          triggers:
            - {name: explode, on: face == 10, must: add}
    let:
      total: sum(highest(kept, keep))
    outcomes: [low, middle, high, huge]
    outcome: "'huge' if total >= 30 else 'high' if total >= 20 else 'middle' if total >= 12 else 'low'"
  one:
    roll:
      d:
        die: 10
        triggers:
          - {name: explode, on: face == 10, must: add}
    outcomes: [low, high]
    outcome: "'high' if d >= 15 else 'low'"
"""

DEPTH = 40
"""How deep the brute force follows the explosion: what it leaves out (10**-40) is far below
what the engine reports as truncated."""


def exploding_d10() -> dict[int, Fraction]:
    """One d10 exploding on 10, its total: j tens then a face 1..9, with chance 10**-(j+1)."""
    return {10 * j + r: Fraction(1, 10 ** (j + 1)) for j in range(DEPTH) for r in range(1, 10)}


def keep_highest(die: dict[int, Fraction], n: int, k: int) -> dict[int, Fraction]:
    """The sum of the k highest of n such dice, die by die: a state is the sorted k highest so
    far (a plain enumeration of kept tuples, no ordering trick), merged where alike."""
    states: dict[tuple[int, ...], Fraction] = {(): Fraction(1)}
    for _ in range(n):
        nxt: dict[tuple[int, ...], Fraction] = {}
        for kept, p in states.items():
            for v, q in die.items():
                key = tuple(sorted((*kept, v), reverse=True)[:k])
                nxt[key] = nxt.get(key, Fraction(0)) + p * q
        states = nxt
    out: dict[int, Fraction] = {}
    for kept, p in states.items():
        out[sum(kept)] = out.get(sum(kept), Fraction(0)) + p
    return out


def close(got: dict[int, Fraction], want: dict[int, Fraction], within: Fraction) -> None:
    """Every probability of `got` within `within` of `want`'s (plus what the brute force left out)."""
    slack = within + Fraction(1, 10**30)
    for v in set(got) | set(want):
        assert abs(got.get(v, Fraction(0)) - want.get(v, Fraction(0))) <= slack, v


@pytest.mark.parametrize("n,k", [(1, 1), (2, 1), (2, 2), (3, 2)])
def test_keep_the_highest_agrees_with_a_brute_force(n: int, k: int) -> None:
    die = exploding_d10()
    die = {v: p for v, p in die.items() if v < 80}  # the brute force kept small: 72 totals
    d = engine.load(KEEP).distribution("keep", dice=n, keep=k)
    want = keep_highest(die, n, k)
    # the totals of 80 or more left out of the brute force weigh n * 10**-8 at most
    close(d.value("total").fractions(), want, d.truncated + n * Fraction(1, 10**8))
    assert 0 < d.truncated <= n * Fraction(1, 10**15)


def test_a_mistaken_die_is_caught() -> None:
    """The comparison can fail: a d10 that explodes on 9 and 10 is far from the engine's answer."""
    wrong = {10 * j + r: Fraction(2, 10) ** j / 10 for j in range(20) for r in range(1, 9)}
    d = engine.load(KEEP).distribution("keep", dice=2, keep=1)
    with pytest.raises(AssertionError):
        close(d.value("total").fractions(), keep_highest(wrong, 2, 1), d.truncated)


@pytest.mark.parametrize("n,k", [(5, 3), (4, 2), (6, 4), (3, 1)])
def test_keep_the_highest_agrees_with_icepool(n: int, k: int) -> None:
    icepool = pytest.importorskip("icepool")
    want_die = icepool.d10.explode(depth=20)
    want = want_die.pool(n).highest(k).sum()
    d = engine.load(KEEP).distribution("keep", dice=n, keep=k)
    close(
        d.value("total").fractions(), {v: Fraction(want.probability(v)) for v in want.outcomes()}, d.truncated
    )


def test_the_pool_reports_its_dice_truncation() -> None:
    """A roll is cut when one of its dice is: exactly 1 - (1 - t)**n for a die cut with chance t,
    at most n times the single die's."""
    rs = engine.load(KEEP)
    t = rs.distribution("one").truncated
    assert 0 < t <= Fraction(1, 10**15)
    for n in (1, 2, 5):
        assert rs.distribution("keep", dice=n, keep=2).truncated == 1 - (1 - t) ** n


def test_no_dice_and_keeping_none() -> None:
    rs = engine.load(KEEP)
    assert rs.distribution("keep", dice=0, keep=3).value("total").fractions() == {0: 1}
    assert rs.distribution("keep", dice=4, keep=0).value("total").fractions() == {0: 1}


@pytest.mark.parametrize("n,k", [(4, 2), (2, 2)])
def test_samples_agree_with_the_exact_distribution(n: int, k: int) -> None:
    rs = engine.load(KEEP)
    exact = {s.name: p for s, p in rs.distribution("keep", dice=n, keep=k).table()}
    rng = random.Random(20261205)
    observed = Counter(rs.roll("keep", rng, dice=n, keep=k).outcome.name for _ in range(4000))
    assert chi_square_p(observed, exact) > ALPHA


def test_samples_of_dice_that_do_not_explode_are_rejected() -> None:
    """The chi-square test can fail: the same pool without its explosions does not fit."""
    rs = engine.load(KEEP)
    plain = engine.load(KEEP.replace("face == 10, must: add", "face == 11, must: add"))
    exact = {s.name: p for s, p in rs.distribution("keep", dice=4, keep=2).table()}
    rng = random.Random(20261205)
    observed = Counter(plain.roll("keep", rng, dice=4, keep=2).outcome.name for _ in range(4000))
    assert chi_square_p(observed, exact) <= ALPHA


def test_forced_dice_are_each_die_in_turn_with_its_own_explosions() -> None:
    rs = engine.load(KEEP)
    r = rs.roll("keep", forced={"kept": [10, 10, 4, 7, 5, 2, 10, 1]})
    assert r.values["total"] == 24 + 11 + 7
    assert sorted(r.rolled["kept"].items) == [2, 5, 7, 11, 24]
    assert r.forced() == {"kept": [10, 10, 4, 7, 5, 2, 10, 1]}
    steps = [(s.kind, s.value) for s in r.trace if s.name == "kept"]
    assert ("value", 24) in steps and ("value", 11) in steps
    with pytest.raises(engine.InputError) as caught:
        rs.roll("keep", forced={"kept": [10, 3, 7, 5, 2]})
    assert caught.value.diagnostics[0].code == "RC405"
    # review: a shortfall counts the dice still to roll, and the example it gives is enough
    for given, needed in (([10, 3], 6), ([10, 10, 10, 6], 8)):
        with pytest.raises(engine.InputError) as caught:
            rs.roll("keep", forced={"kept": given})
        [d] = caught.value.diagnostics
        assert d.code == "RC405" and f"needs at least {needed}," in d.message, d.message
        assert d.advice is not None
        assert rs.roll("keep", forced={"kept": [int(v) for v in d.advice.values]}).outcome is not None


def test_limits_hold() -> None:
    with pytest.raises(engine.LimitError) as caught:
        engine.load(KEEP, limits=Limits(max_rerolls=2)).roll("keep", forced={"kept": [10, 10, 10, 1]})
    assert "past 2 dice" in str(caught.value)
    for ask in ("roll", "distribution"):
        with pytest.raises(engine.LimitError) as caught:
            getattr(engine.load(KEEP, limits=Limits(max_pool=4)), ask)("keep")
        assert caught.value.diagnostics[0].code == "RC503"
    with pytest.raises(engine.LimitError):
        engine.load(KEEP, limits=Limits(max_work=20_000)).distribution("keep")
    # an explosion followed at most max_rerolls dice deep says how much it left out: a die is
    # cut where its sixth 10 in a row would add a sixth die
    shallow = engine.load(KEEP, limits=Limits(max_rerolls=5)).distribution("keep", dice=2, keep=1)
    assert shallow.truncated == 1 - (1 - Fraction(1, 10**6)) ** 2


MAY = "{die: 10, triggers: [{on: face <= 3, may: reroll}]}"
POOL = """\
rulecraft: 1
name: pooled
checks:
  c:
    roll:
      p: {pool: 2, die: 10, triggers: [{on: face == 10, must: add}]}
    outcomes: [low, high]
    outcome: "'high' if sum(p) > 30 else 'low'"
"""


@pytest.mark.parametrize(
    ("text", "check", "forced", "told"),
    [
        (KEEP, "keep", {"kept": [10, 10, 10, 1]}, "set each die's 'cap' under the pool's 'each_die', or"),
        (KEEP, "one", {"d": [10, 10, 10, 1]}, "set a 'cap' on the die, or"),
        (POOL, "c", {"p": [10, 10, 10, 1]}, "set a 'cap' on the pool, or"),
    ],
    ids=["each_die", "die", "pool"],
)
def test_the_reroll_limit_says_where_the_cap_goes(
    text: str, check: str, forced: dict[str, list[int]], told: str
) -> None:
    """An `each_die` pool takes no cap of its own (RC328): each die's goes under `each_die`."""
    with pytest.raises(engine.LimitError) as caught:
        engine.load(text, limits=Limits(max_rerolls=2)).roll(check, forced=forced)
    (said,) = caught.value.diagnostics
    assert said.message == "the reroll procedure went past 2 dice"
    assert said.hint is not None and said.hint.startswith(told), said.hint


@pytest.mark.parametrize(
    ("text", "told"),
    [
        (KEEP, "set each die's 'cap' under the pool's 'each_die' (the most dice"),
        (POOL.replace("{pool: 2, die: 10,", "{die: 10,").replace("sum(p)", "p"), "set a 'cap' on the die ("),
        (POOL, "set a 'cap' on the pool ("),
    ],
    ids=["each_die", "die", "pool"],
)
def test_a_trigger_that_never_ends_says_where_the_cap_goes(text: str, told: str) -> None:
    endless = text.replace("on: face == 10, must: add", "on: face >= 1, must: add")
    with pytest.raises(engine.RulecraftError) as caught:
        engine.load(endless)
    said = caught.value.diagnostics[0]
    assert said.code == "RC313" and said.hint is not None and said.hint.startswith(told), said.hint


def test_a_die_s_reroll_chain_asks_for_the_die_s_cap() -> None:
    """A die with triggers takes no `each:`, so the chain's bound asks only for its cap."""
    chain = POOL.replace("{pool: 2, die: 10, triggers: [{on: face == 10, must: add}]}", MAY).replace(
        "sum(p)", "p"
    )
    with pytest.raises(engine.LimitError) as caught:
        engine.load(chain).distribution("c", policy="optimal")
    assert caught.value.diagnostics[0].hint == "set a 'cap' on the die so the chain must end"
    with pytest.raises(engine.LimitError) as caught:
        engine.load(chain, limits=Limits(max_states=2)).distribution("c", policy="always")
    hint = caught.value.diagnostics[0].hint
    assert hint is not None and hint.startswith("set a 'cap' on the die, or raise it"), hint


MISUSE = """\
rulecraft: 1
name: misuse
checks:
  c:
    roll:
      d:
ROLL
    outcomes: [a]
    outcome: "OUTCOME"
"""
EXPLODE = "          triggers:\n            - {on: face == 10, must: add}\n"


@pytest.mark.parametrize(
    "roll,outcome,code,words,caret",
    [
        (
            "        pool: 3\n        die: 10\n        each_die:\n          triggers:\n"
            "            - {on: face == 10, may: add}\n",
            "'a'",
            "RC328",
            "'may'",
            "may",
        ),
        (
            "        pool: 3\n        die: 10\n        each_die:\n          triggers:\n"
            "            - {on: face == 10, must: reroll, target: face < 5}\n",
            "'a'",
            "RC328",
            "'target'",
            "target",
        ),
        (
            "        pool: 3\n        die: 10\n        cap: 2\n        each_die:\n" + EXPLODE,
            "'a'",
            "RC328",
            "'cap'",
            "cap",
        ),
        (
            "        pool: 3\n        die: 10\n        triggers: [{on: face == 1, must: reroll}]\n"
            "        each_die:\n" + EXPLODE,
            "'a'",
            "RC328",
            "'triggers'",
            "triggers",
        ),
        (
            "        pool: 3\n        die: 10\n        redraw: {may: 'true'}\n        each_die:\n" + EXPLODE,
            "'a'",
            "RC328",
            "'redraw'",
            "redraw",
        ),
        (
            "        pool: 3\n        die: 10\n        each_die:\n" + EXPLODE,
            "'a' if count(added_dice(d)) > 0 else 'a'",
            "RC328",
            "no history",
            "added_dice(d)",
        ),
        (
            "        pool: 3\n        die: 10\n        each_die:\n          triggers:\n"
            "            - {on: face >= 1, must: add}\n",
            "'a'",
            "RC313",
            "never end",
            "{",
        ),
        ("        die: 10\n        each_die:\n" + EXPLODE, "'a'", "RC105", "each_die", "die"),
        ("        draw: bag\n        each_die:\n" + EXPLODE, "'a'", "RC105", "each_die", "draw"),
    ],
)
def test_misuse_is_refused_at_its_place(roll: str, outcome: str, code: str, words: str, caret: str) -> None:
    text = MISUSE.replace("ROLL\n", roll).replace("OUTCOME", outcome)
    with pytest.raises(engine.RulecraftError) as caught:
        engine.load(text)
    diag = caught.value.diagnostics[0]
    assert diag.code == code and words in diag.message
    assert diag.span is not None
    line = text.splitlines()[diag.span.line - 1]
    assert line[diag.span.col - 1 :].startswith(caret)


def test_a_pool_over_a_list_takes_no_each_die() -> None:
    text = MISUSE.replace(
        "ROLL\n", "        pool: sizes\n        die: 10\n        each_die:\n" + EXPLODE
    ).replace("  c:\n", "  c:\n    inputs:\n      sizes: {type: list, of: int, max_length: 3}\n")
    with pytest.raises(engine.RulecraftError) as caught:
        engine.load(text)
    assert caught.value.diagnostics[0].code == "RC320"


def test_the_schema_takes_it() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    import json

    from ruamel.yaml import YAML

    from engine.syntax.resources import schema_path

    schema = json.loads(schema_path().read_text())
    jsonschema.validate(YAML(typ="safe").load(KEEP), schema)


SUMMED = """\
rulecraft: 1
name: summed
checks:
  s:
    inputs:
      k: {type: int, min: 0, max: 5, default: 2}
    roll:
      p: {pool: 4, die: 6}
    let:
      top: READ
    outcomes: [a]
    outcome: "'a'"
"""


@pytest.mark.parametrize(
    "read,of",
    [
        ("sum(highest(p, k))", lambda r, k: sum(sorted(r, reverse=True)[:k])),
        ("sum(lowest(p, k))", lambda r, k: sum(sorted(r)[:k])),
        (
            "sum(highest(p, k)) - sum(lowest(p, k))",
            lambda r, k: sum(sorted(r, reverse=True)[:k]) - sum(sorted(r)[:k]),
        ),
        (
            "sum(highest(p, k)) + count(highest(p, k))",
            lambda r, k: sum(sorted(r, reverse=True)[:k]) + min(k, 4),
        ),
    ],
)
def test_the_sum_of_the_kept_dice_is_one_fold(read: str, of: object) -> None:
    """`sum(highest(p, k))` is folded as the sum of the kept readings, given the readings in
    order (what makes a deep explosion's roll-and-keep quick); read with `lowest` too, or with
    `highest(p, k)` read another way, it is the same answer as every roll gives."""
    from itertools import product

    rs = engine.load(SUMMED.replace("READ", read))
    pool = next(r for r in rs.model.checks["s"].roll)
    kinds = {key[0] for key in pool.folds or ()}
    if read.count("sum(") == 1 and "count" not in read:
        assert kinds == {read[4:].split("(")[0] + "_sum"}
    for k in range(0, 6):
        counts = Counter(of(r, k) for r in product(range(1, 7), repeat=4))  # type: ignore[operator]
        want = {v: Fraction(c, 6**4) for v, c in counts.items()}
        assert rs.distribution("s", k=k).value("top").fractions() == want


def test_each_reads_a_die_total_as_face() -> None:
    text = KEEP.replace(
        "        each_die:\n", "        each: \"'big' if face >= 15 else 'small'\"\n        each_die:\n"
    ).replace("total: sum(highest(kept, keep))", "total: count(kept, 'big')")
    text = text.replace("'huge' if total >= 30 else 'high' if total >= 20 else", "'high' if total >= 1 else")
    rs = engine.load(text.replace("checks:\n", "scales:\n  size: [small, big]\nchecks:\n", 1))
    # a die reaches 15 with a 10 and then 5 or more: 6/100; one of two dice, 1 - (94/100)**2
    assert rs.distribution("keep", dice=2).probability("high") == 1 - Fraction(94, 100) ** 2
    r = rs.roll("keep", dice=2, forced={"kept": [10, 6, 9]})
    assert r.values["total"] == 1 and sorted(r.rolled["kept"].items) == ["small", "big"]


# -- the work a pool of long weights is charged ----------------------------------------------------


def _charged(scale: int, n: int, folds: tuple[tuple[object, ...], ...]) -> int:
    """The units `weighted_pool` charges for `n` dice showing 1..12, each face weighed `scale`
    times its face (one distribution whatever `scale` is: only the numbers' lengths differ)."""
    from engine.eval.tables import weighted_pool
    from engine.runtime.work import Work, working

    dice = [((face, 0), face * scale) for face in range(1, 13)]
    total = sum(w for _, w in dice)
    with working(Work(10**12)) as work:
        weighted_pool(dice, total, n, folds, 10**9, None)
    return work.used


@pytest.mark.parametrize("folds,n", [((("highest_sum", 3),), 60), ((("highest_sum", 3), ("count",)), 20)])
def test_a_fold_over_long_weights_is_charged_for_their_length(
    folds: tuple[tuple[object, ...], ...], n: int
) -> None:
    """Each die of an `each_die` pool is weighed over its own chain's total (10^16 for an
    exploding d10), so a pool of 100 such dice multiplies numbers of thousands of digits: the fold
    had charged a unit a step whatever their length, and a budget of 2 s (the default 2,000,000
    units) ran 9 s at 100 dice and 52 s at 400 before it was used up. The same pool with each
    weight times 10^60 (the same distribution) is now charged for its numbers' length, with one
    fold (`_folded_one`) or two (`_folded`); with short weights nothing changes."""
    short, long = _charged(1, n, folds), _charged(10**60, n, folds)
    # (two statistics' short steps are charged `foldcost.SEVERAL` units each: 10 times, not 19)
    assert long > 8 * short, (short, long)
    assert _charged(1, n, folds) == short  # the charge is the same from run to run


def test_the_powers_and_ways_of_a_fold_are_charged() -> None:
    """Review: the fold of one statistic (`_folded_one`) made each category's powers (w^c for
    every c to the pool's size) and ways (C(r, c)·w^c) uncharged, the first ones before it
    charged anything: with `max_pool` raised, 2,000 `each_die` dice read by their sum ran 7.7 s
    on the default budget of about 2 s, 5,000 dice 54 s and 1.09 GB. A pool of one kind of
    reading makes those lists and one state: 600 dice of a 200-bit weight make powers of 1.2
    million digits, charged now at least a unit a thousand digits (measured: about 200 digits
    a microsecond), where the state alone was 601 units."""
    from engine.eval.tables import weighted_pool
    from engine.runtime.work import Work, working

    weight, n = 10**60, 600
    with working(Work(10**12)) as work:
        weighted_pool([((1, 0), weight)], weight, n, (("sum",),), 10**9, None)
    power, bits = 1, 0
    for _ in range(n):
        power *= weight
        bits += power.bit_length()
    digits = bits // 30
    assert work.used >= digits // 1_000 > 1_000, (work.used, digits)


WHOLE = """\
rulecraft: 1
name: whole
scales:
  size: [small, big]
checks:
  whole:
    inputs:
      dice: {type: int, min: 1, max: 300, default: 300}
    roll:
      p:
        pool: dice
        die: 10
        each: "'big' if face >= 15 else 'small'"
        each_die:
          triggers:
            - {on: face == 10, must: add}
    outcomes: [low, high]
    outcome: "'high' if count(p, 'big') > count(p, 'small') and p == p else 'low'"
"""


def test_a_pool_read_whole_is_charged_for_its_long_weights() -> None:
    """Review: a pool read whole (`p == p` lists its multisets) of `each_die` dice, each reading
    weighed over its chain's total, was charged a unit a multiset however long its weight: 300
    dice of two readings took 1,442 units, 3,000 ran 27 s on the default budget. Charged for
    the numbers' length, 300 dice pass no budget of 20,000 units (3 dice still do)."""
    rs = engine.load(WHOLE, limits=Limits(max_pool=300, max_work=20_000))
    with pytest.raises(engine.LimitError) as caught:
        rs.distribution("whole")
    assert "work budget of 20,000 units" in caught.value.diagnostics[0].message
    assert rs.distribution("whole", dice=3).probability("high") > 0


ENDLESS = """\
rulecraft: 1
name: endless
checks:
  act:
    inputs:
      k: {type: int, min: 1, max: 6, default: 6}
    roll:
      d:
        die: 6
        triggers:
          - {on: face >= k, may: reroll}
    outcomes: [miss, hit]
    outcome: "'hit' if d == 6 else 'miss'"
  each:
    inputs:
      k: {type: int, min: 1, max: 6, default: 6}
    roll:
      p:
        pool: 2
        die: 6
        each_die:
          triggers:
            - {on: face >= k, must: reroll}
    outcomes: [miss, hit]
    outcome: "'hit' if sum(p) > 6 else 'miss'"
"""


def test_a_chain_that_never_ends_says_where_its_cap_goes() -> None:
    """Review: "this chain of rerolls never ends" said to give the pool a cap for a die with
    triggers and for an `each_die` pool (whose cap goes under `each_die`), and said nothing of
    the policy where a 'may' reroll taken every time is what never ends."""
    rs = engine.load(ENDLESS)
    with pytest.raises(engine.LimitError) as caught:
        rs.distribution("act", k=1)
    hint = caught.value.diagnostics[0].hint or ""
    assert hint.startswith("set a 'cap' on the die") and "the policy 'never' declines it" in hint, hint
    assert rs.distribution("act", k=1, policy="never").probability("hit") == Fraction(1, 6)
    with pytest.raises(engine.LimitError) as caught:
        rs.distribution("each", k=1)
    d = caught.value.diagnostics[0]
    assert d.hint is not None and d.hint.startswith("set each die's 'cap' under the pool's 'each_die'"), d
    assert "policy" not in d.hint and d.span is not None and d.span.line == 18
