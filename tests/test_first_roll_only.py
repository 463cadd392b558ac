"""`first_roll_only: true` on a trigger: only the dice of the first roll set the step off, never a
die a step rerolls or adds (a rote action: each die of the first roll that failed is rerolled
once; the dice 10-again adds, and the rerolled dice, are not rerolled by it). Found missing by an
audit that wrote other games from the docs: with `repeat: false` alone, a die that another step
added was rerolled by the rote too. Exact answers are held to a count of every roll written here,
which reads the rule die by die."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import product

import pytest

import engine
from engine.model.ruleset import Trigger, chains_without_end

ROTE = """\
rulecraft: 1
name: rote
checks:
  act:
    inputs:
      dice: {type: int, min: 1, max: 10, default: 3}
    roll:
      pool:
        pool: dice
        die: 10
        triggers:
          - {name: ten_again, on: face == 10, must: add, repeat: false}
          - {name: rote, on: face < 8, must: reroll, ROTE}
    let:
      hits: count(pool, 8..10)
    outcomes: [failure, success, exceptional]
    outcome:
      - when: hits >= 3
        then: exceptional
      - when: hits >= 1
        then: success
      - else: failure
"""


def one_die() -> Counter[int]:
    """The hits one die of the first roll ends with, over every way its dice can fall: a failed
    first die is rerolled once by the rote, a 10 adds a die (which adds no further die, `repeat:
    false`, and is not rerolled, being no die of the first roll). Each die it may bring in is a
    further d10: weights over 10^3, the ways of a die not rolled on a path counted ten times."""
    ways: Counter[int] = Counter()
    for first, second, added in product(range(1, 11), repeat=3):
        face = first if first >= 8 else second
        ways[int(face >= 8) + int(face == 10 and added >= 8)] += 1
    return ways


def by_hand(dice: int) -> dict[str, Fraction]:
    per = one_die()
    total = sum(per.values())
    dist: Counter[int] = Counter({0: 1})
    for _ in range(dice):
        nxt: Counter[int] = Counter()
        for h, w in dist.items():
            for g, v in per.items():
                nxt[h + g] += w * v
        dist = nxt
    scale = total**dice
    out: Counter[str] = Counter()
    for h, w in dist.items():
        out["exceptional" if h >= 3 else "success" if h >= 1 else "failure"] += w
    return {o: Fraction(w, scale) for o, w in out.items()}


@pytest.mark.parametrize("dice", [1, 2, 3, 5])
def test_a_rote_rerolls_the_first_roll_only(dice: int) -> None:
    rs = engine.load(ROTE.replace("ROTE", "first_roll_only: true"))
    d = rs.distribution("act", dice=dice)
    assert {o: d.probability(o) for o in ("failure", "success", "exceptional")} == {
        o: by_hand(dice).get(o, Fraction(0)) for o in ("failure", "success", "exceptional")
    }
    assert not d.truncated and not d.capped


def test_without_it_an_added_die_that_fails_is_rerolled_too() -> None:
    """The same pool with `repeat: false` in its place: the rote also rerolls a die that 10-again
    added and that failed (it was rolled by another step), so more rolls reach three hits."""
    only_first = engine.load(ROTE.replace("ROTE", "first_roll_only: true")).distribution("act", dice=2)
    plain = engine.load(ROTE.replace("ROTE", "repeat: false")).distribution("act", dice=2)
    assert plain.probability("exceptional") > only_first.probability("exceptional")
    assert only_first.probability("exceptional") == by_hand(2)["exceptional"]


def test_the_sampler_follows_the_same_rule() -> None:
    rs = engine.load(ROTE.replace("ROTE", "first_roll_only: true"))
    rng = random.Random(11)
    n = 4000
    seen = Counter(rs.roll("act", rng, dice=2).values["hits"] for _ in range(n))
    exact = rs.distribution("act", dice=2).value("hits").fractions()
    for hits, p in exact.items():
        assert abs(seen[hits] / n - float(p)) < 0.025, (hits, seen[hits] / n, float(p))


EXPLODE_ONCE = """\
rulecraft: 1
name: once
checks:
  act:
    inputs:
      dice: {type: int, min: 1, max: 6, default: 3}
    roll:
      p:
        pool: dice
        die: 6
        triggers:
          - {on: face == 6, must: add, first_roll_only: true}
    let:
      extra: count(added_dice(p))
      total: sum(p)
    outcomes: [low, high]
    outcome: "'high' if total >= 12 else 'low'"
"""


def test_an_explosion_of_the_first_roll_alone_needs_no_cap_and_is_not_cut() -> None:
    """A 6 on the first roll adds a die that does not explode: the chain ends by itself, so
    reading `added_dice` needs no `cap` (`RC325` asks for one where the dice could add without
    end), and the exact answer is whole, not cut at a depth."""
    rs = engine.load(EXPLODE_ONCE)
    d = rs.distribution("act", dice=3)
    assert not d.truncated
    ways: Counter[str] = Counter()
    extras: Counter[int] = Counter()
    for first in product(range(1, 7), repeat=3):
        sixes = first.count(6)
        for added in product(range(1, 7), repeat=sixes):
            weight = 6 ** (3 - sixes)  # the dice not added, counted as ways
            ways["high" if sum(first) + sum(added) >= 12 else "low"] += weight
            extras[sixes] += weight
    assert d.probability("high") == Fraction(ways["high"], 6**6)
    assert d.value("extra").fractions() == {k: Fraction(w, 6**6) for k, w in extras.items()}
    with pytest.raises(engine.CompileError) as caught:
        engine.load(EXPLODE_ONCE.replace(", first_roll_only: true", ""))
    assert caught.value.diagnostics[0].code == "RC325"


def _trigger(repeat: bool = True, first: bool = False) -> Trigger:
    rs = engine.load(ROTE.replace("ROTE", "first_roll_only: true"))
    pool = rs.check("act").roll[0]
    base = pool.triggers[0]  # type: ignore[union-attr]
    from engine.frozen import replace

    return replace(base, repeat=repeat, first_roll_only=first)


@pytest.mark.parametrize(
    ("steps", "endless"),
    [
        ([(True, False)], True),  # a step that sets itself off
        ([(False, False)], False),  # repeat: false
        ([(True, True)], False),  # first roll only: its own dice never set it off
        ([(False, False), (False, False)], True),  # each sets the other off
        ([(False, False), (True, True)], False),  # the second is never set off again
        ([(True, True), (True, True)], False),
    ],
)
def test_which_chains_can_go_on_without_end(steps: list[tuple[bool, bool]], endless: bool) -> None:
    triggers = [_trigger(repeat, first) for repeat, first in steps]
    assert chains_without_end(triggers) is endless
