"""`min` and `max` take any number of values, not at most 8: nothing in the compiler, the
evaluators or the linter reads their arguments one by one, so a call is bounded by what bounds
every expression (its size, `RC202`) and an evaluation by what bounds every evaluation (the
exact evaluator's states and work, `RC503`). Twelve arguments, rolled and solved, are held to
every ordered roll of the dice written out here."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import product

import pytest

import engine

COINS = [f"a{i}" for i in range(1, 7)]
THIRDS = [f"b{i}" for i in range(1, 7)]
DICE = COINS + THIRDS
"""Twelve dice: six of two faces, six of three (2^6 * 3^6 = 46,656 ordered rolls)."""

TEXT = (
    "rulecraft: 1\nname: twelve\nchecks:\n  c:\n    roll:\n"
    + "".join(f"      {n}: {{die: 2}}\n" for n in COINS)
    + "".join(f"      {n}: {{die: 3}}\n" for n in THIRDS)
    + "    let:\n"
    + f"      top: max({', '.join(DICE)})\n"
    + f"      bottom: min({', '.join(DICE)})\n"
    + "    outcomes: [flat, spread]\n"
    + "    outcome: \"'spread' if top - bottom == 2 else 'flat'\"\n"
)
TWELVE = engine.load(TEXT)


def every_roll() -> tuple[Counter[int], Counter[int], Counter[str]]:
    tops: Counter[int] = Counter()
    bottoms: Counter[int] = Counter()
    outcomes: Counter[str] = Counter()
    for roll in product(*([range(1, 3)] * 6 + [range(1, 4)] * 6)):
        tops[max(roll)] += 1
        bottoms[min(roll)] += 1
        outcomes["spread" if max(roll) - min(roll) == 2 else "flat"] += 1
    return tops, bottoms, outcomes


def test_twelve_arguments_solved_exactly_agree_with_every_roll() -> None:
    tops, bottoms, outcomes = every_roll()
    total = 2**6 * 3**6
    d = TWELVE.distribution("c")
    assert d.value("top").fractions() == {v: Fraction(n, total) for v, n in tops.items()}
    assert d.value("bottom").fractions() == {v: Fraction(n, total) for v, n in bottoms.items()}
    assert {o: d.probability(o) for o in ("flat", "spread")} == {
        o: Fraction(outcomes[o], total) for o in ("flat", "spread")
    }


def test_twelve_arguments_rolled_read_every_die() -> None:
    rng = random.Random(12)
    for _ in range(300):
        r = TWELVE.roll("c", rng)
        faces = [r.rolled[n] for n in DICE]
        assert (r.values["top"], r.values["bottom"]) == (max(faces), min(faces))
    forced = {n: 1 for n in DICE} | {"b6": 3}
    r = TWELVE.roll("c", forced=forced)
    assert (r.values["top"], r.values["bottom"], r.outcome.name) == (3, 1, "spread")


def test_the_sampler_follows_the_exact_distribution() -> None:
    batch = TWELVE.sample("c", 3000, random.Random(3), method="rolled")
    assert batch.method == "rolled"
    want = float(TWELVE.distribution("c").probability("spread"))
    assert abs(batch.share("spread") - want) < 4 * (want * (1 - want) / 3000) ** 0.5


def test_many_members_of_one_scale() -> None:
    members = ["'bad'", "'meh'"] * 6
    rs = engine.load(
        "rulecraft: 1\nname: s\nscales:\n  q: [bad, meh, good]\nchecks:\n  c:\n"
        "    inputs:\n      x: {type: choice, choices: q, default: bad}\n"
        f"    let:\n      m: max({', '.join(members)}, x)\n      l: min(x, {', '.join(members)})\n"
        "    outcomes: [no, yes]\n    outcome: \"'yes' if m == 'good' else 'no'\"\n"
    )
    r = rs.roll("c", random.Random(1), x="good")
    assert (r.values["m"].name, r.values["l"].name, r.outcome.name) == ("good", "bad", "yes")
    r = rs.roll("c", random.Random(1), x="bad")
    assert (r.values["m"].name, r.values["l"].name) == ("meh", "bad")


def test_no_argument_is_still_refused() -> None:
    with pytest.raises(engine.RulecraftError) as caught:
        engine.load(TEXT.replace(f"max({', '.join(DICE)})", "max()"))
    d = caught.value.diagnostics[0]
    assert d.code == "RC303" and d.message == "max() takes 1 or more argument(s), got 0"


def test_a_call_too_large_is_refused_by_the_expression_size() -> None:
    """What bounds a call of many arguments is what bounds every expression: its size."""
    many = ", ".join(["a1"] * 2500)
    with pytest.raises(engine.RulecraftError) as caught:
        engine.load(TEXT.replace(f"max({', '.join(DICE)})", f"max({many})"))
    assert caught.value.diagnostics[0].code == "RC202"


def test_solving_many_dice_is_bounded_by_the_states() -> None:
    """Twenty d6 read by one `max` of twenty arguments: 6^20 combinations are over
    `Limits.max_states`, told as RC503, not tried."""
    names = [f"d{i}" for i in range(20)]
    rs = engine.load(
        "rulecraft: 1\nname: many\nchecks:\n  c:\n    roll:\n"
        + "".join(f"      {n}: {{die: 6}}\n" for n in names)
        + f"    let:\n      top: max({', '.join(names)})\n"
        + "    outcomes: [low, high]\n    outcome: \"'high' if top == 6 else 'low'\"\n"
    )
    assert rs.roll("c", random.Random(1)).values["top"] in range(1, 7)
    with pytest.raises(engine.LimitError) as caught:
        rs.distribution("c")
    assert caught.value.diagnostics[0].code == "RC503"
