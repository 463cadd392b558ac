"""Exact arithmetic is charged by the size of its numbers: a chain of redraws over a bag of
99,000 chits makes totals of hundreds of thousands of digits, and combining two of them
(`Dist.mix`: a least common multiple, a division, products) takes milliseconds where a unit of
work is a microsecond. Charged by the item alone, such a check ran 34 s and 644 MB at the
default budget (2 s, 256 MB promised) and overran a deadline of 1 s by 7 to 118 s."""

from __future__ import annotations

import random
import time
from types import SimpleNamespace

import pytest

import engine
from engine.errors import DeadlineError, LimitError
from engine.eval import dist, markov
from engine.eval.dist import Dist
from engine.runtime import work as work_module
from engine.runtime.work import Work, working

BAG = """\
rulecraft: 1
name: bag1
bags:
  big: {chits: {a: 30000, b: 30000, c: 39000}}
checks:
  c:
    roll:
      d: {draw: big, count: 100, redraw: {RULE: "count(d, 'a') > 10", times: 1000}}
    outcomes: big
    outcome: best(d)
"""


def _mix_units(total: int) -> int:
    """Units `Dist.mix` charges to weigh a two-valued child over `total` with a certain one."""
    child = Dist({0: 1, 1: total - 1}, total)
    work = Work(10**15)
    with working(work):
        Dist.mix([(child, 1, 3), (Dist.certain(2), 2, 3)])
    return work.used


def test_a_mix_is_charged_by_the_digits_of_its_totals() -> None:
    # a game's totals cost nothing more than the item loops charge
    assert _mix_units(6**20) == 0
    small, double, quadruple = (_mix_units(7**n) for n in (20_000, 40_000, 80_000))
    assert 0 < small
    assert double >= 2 * small and quadruple >= 2 * double


def test_the_default_budget_stops_a_redraw_chain_before_its_totals_grow_huge(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made = dist.Dist.mix
    longest = [0]

    def spied(parts: object) -> Dist:
        out = made(parts)  # type: ignore[arg-type]
        longest[0] = max(longest[0], out.total.bit_length())
        return out

    monkeypatch.setattr(dist.Dist, "mix", staticmethod(spied))
    rs = engine.load(BAG.replace("RULE", "must"), limits=engine.Limits(deadline=None))
    with pytest.raises(LimitError) as raised:
        rs.distribution("c")
    (d,) = raised.value.diagnostics
    assert d.code == "RC503" and "work budget of 2,000,000 units" in d.message
    # charged by the item alone, it went on to totals of 957,000 bits (288,000 digits)
    assert 0 < longest[0] < 500_000


@pytest.mark.parametrize("policy", ["always", "optimal"])
def test_a_deadline_stops_a_redraw_chain_near_it(policy: str) -> None:
    rs = engine.load(BAG.replace("RULE", "may"), limits=engine.Limits(deadline=1, max_work=10**12))
    start = time.monotonic()
    with pytest.raises(DeadlineError) as raised:
        rs.distribution("c", policy=policy)
    took = time.monotonic() - start
    assert raised.value.diagnostics[0].code == "RC503"
    # the clock is read every 20,000 units, tens of milliseconds now: the first look found 1 s
    # not yet passed, and the next came 7-118 s later
    assert took < 5


class _Enough(Exception):
    """Raised by the spy once the totals are long enough."""


def test_the_clock_is_read_as_the_totals_grow(monkeypatch: pytest.MonkeyPatch) -> None:
    """Deterministic: the looks at the clock a deadline makes (one per 20,000 units) while a
    redraw chain's totals grow to 300,000 bits, some 270 redraws deep. Charged by the item, the
    clock was read 3 times in all (each mix some 40 units); by size, about 90."""
    looks = [0]

    def monotonic() -> float:
        looks[0] += 1
        return time.monotonic()

    made = dist.Dist.mix

    def spied(parts: object) -> Dist:
        out = made(parts)  # type: ignore[arg-type]
        if out.total.bit_length() > 300_000:
            raise _Enough
        return out

    monkeypatch.setattr(work_module, "time", SimpleNamespace(monotonic=monotonic))
    monkeypatch.setattr(dist.Dist, "mix", staticmethod(spied))
    rs = engine.load(BAG.replace("RULE", "must"), limits=engine.Limits(deadline=3600, max_work=10**12))
    looks[0] = 0
    with pytest.raises(_Enough):
        rs.distribution("c")
    assert looks[0] > 50


SCENE = """\
rulecraft: 1
name: sc
bags:
  big: {chits: {a: 30000, b: 30000, c: 39000}}
checks:
  c:
    roll:
      d: {draw: big, count: 100}
    outcomes: [lo, hi]
    outcome: [{when: "count(d, 'a') > 30", then: hi}, {else: lo}]
state:
  character:
    start: {type: int, min: 1, max: 100000, default: 300}
  each:
    hp: {counter: start, min: 0}
actions:
  hit:
    by: character
    roll: {check: c}
    effects:
      - {remove: {hp: 1}, when: "outcome == 'hi'"}
scenes:
  s:
    parties: [p]
    round:
      - {act: hit, by: p}
    ends:
      - {when: p.hp == 0, then: done}
    max_rounds: 100000
"""


def test_a_scene_length_count_charges_its_products_by_the_weights_digits() -> None:
    """A scene whose check is over a bag of 99,000 chits moves its mass by weights of 1,100 bits,
    and its total grows by as many each round: each push is a product of the two. Charged by the
    total's length alone, the count went on to round 200 (15 s) before its RC503; by the product's
    size, round 116 (about 3 s)."""
    rs = engine.load(SCENE)
    with pytest.raises(LimitError) as raised:
        rs.scene_odds("s")
    (d,) = raised.value.diagnostics
    assert d.code == "RC503" and "round by round, at round " in d.message
    reached = int(d.message.split("at round ")[1].split()[0])
    assert reached < 150


def test_a_sampled_redraw_is_charged_by_the_chits_it_draws_again() -> None:
    """Sampled, each of the check's thousand redraws draws 100 chits again from 99,000 (some
    50 microseconds): charged 8 units each, 1,000 rolls ran 65 s before their RC503. Rolled one
    by one (under `auto` the exact try, which does not fit either, now has the budget the rolls
    would not: it has it all, and the rolls are refused before the first)."""
    rs = engine.load(BAG.replace("RULE", "must"), limits=engine.Limits(deadline=None))
    with pytest.raises(LimitError) as raised:
        rs.sample("c", 1000, random.Random(7), method="rolled")
    (d,) = raised.value.diagnostics
    assert d.code == "RC503" and "the first took " in d.message
    first = int(d.message.split("the first took ")[1].split()[0].replace(",", ""))
    assert first > 100_000


DEEP = """\
rulecraft: 1
name: deep
checks:
  c:
    inputs:
      n: {type: int, min: 1, max: 100, default: 5}
    roll:
      d:
        pool: n
        die: 1000
        each: "1 if face > 1 else 0"
        cap: 1000
        triggers:
          - {on: face <= 1, may: reroll, take: all}
    outcomes: [lo, hi]
    objective: {at_least: hi}
    outcome: "'hi' if sum(d) >= n else 'lo'"
"""


def test_a_rescale_is_charged_by_the_size_of_the_scores() -> None:
    """Best play's scale grows by 1000**8 at a time; every score kept is multiplied with it."""
    factor = 1000**markov.RESCALE
    table = {i: i for i in range(1_000)}
    # a game's scale costs nothing more
    assert markov.rescale_units(table, 6**200, factor) == 0
    small, double = (markov.rescale_units(table, 7**n, factor) for n in (4_000, 8_000))
    assert 0 < small and double >= 2 * small - 1
    assert markov.rescale_units({**table, **{-i: i for i in range(1, 1_001)}}, 7**4_000, factor) >= 2 * small
    # a score of several parts is that many numbers
    assert markov.rescale_units({i: (i, i) for i in range(1_000)}, 7**4_000, factor) >= 2 * small


def test_best_play_on_a_deep_chain_is_charged_for_its_scale() -> None:
    """Best play on 5 d1000 each rerolling a 1 up to a cap of 1,000 dice: a chance node's score
    divides by 1000 once more each die deeper, so the scale grows to 10,000 bits, 1000**8 a time:
    125 times, each multiplying every score kept (20,000 in the end). Charged for the scores alone (487,000
    units) it ran 2 s, four times as long a unit as the budget means; at 10 dice it took 5 s and
    was not refused. Now its rescales are charged too, and the budget of a million stops it."""
    rs = engine.load(DEEP, limits=engine.Limits(deadline=None, max_work=1_000_000))
    with pytest.raises(LimitError) as raised:
        rs.distribution("c", policy="optimal")
    (d,) = raised.value.diagnostics
    assert d.code == "RC503" and "work budget of 1,000,000 units" in d.message


WEAR = """\
rulecraft: 1
name: wear
checks:
  c:
    roll:
      d: {die: 1000}
    outcomes: [lo, mid, hi]
    outcome: [{when: "d > 990", then: hi}, {when: "d > 7", then: mid}, {else: lo}]
state:
  character:
    start: {type: int, min: 1, max: 100000, default: 10}
  each:
    hp: {counter: start, min: 0}
    sp: {counter: start, min: 0}
actions:
  hit:
    by: character
    roll: {check: c}
    effects:
      - {remove: {hp: 1}, when: "outcome == 'hi'"}
      - {remove: {sp: 1}, when: "outcome == 'lo'"}
scenes:
  s:
    parties: [p]
    round:
      - {act: hit, by: p}
    ends:
      - {when: p.hp == 0, then: done}
      - {when: p.sp == 0, then: other}
    max_rounds: 100000
"""


def test_a_scene_length_count_charges_its_divisors_by_their_size() -> None:
    """A scene of a d1000 whose masses share a long factor with the total (powers of 1000):
    each round's reduction takes a greatest common divisor of that length per mass. Charged by
    the total's length alone, a budget of 500,000 units counted to round 2,218 (3.7 s; the
    default budget, to round 3,960 in 13 s); each divisor charged by its size, round 1,242
    (1.1 s)."""
    rs = engine.load(WEAR, limits=engine.Limits(max_work=500_000, deadline=None))
    with pytest.raises(LimitError) as raised:
        rs.scene_odds("s")
    (d,) = raised.value.diagnostics
    assert d.code == "RC503" and "round by round, at round " in d.message
    reached = int(d.message.split("at round ")[1].split()[0].replace(",", ""))
    assert reached < 1_800
