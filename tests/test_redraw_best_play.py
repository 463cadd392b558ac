"""Best play of a pool's reroll procedure when the pool may be redrawn after it (found by a
review): `optimal` had scored the procedure's ends as the pool's final value, so it played each
roll as if no redraw followed and as if none had been made — worse than `always` where `redraws(x)`
is read, and worse than keeping a low pool to redraw it. Each roll of such a pool is now played
for what follows it: the redraw rule and the policy's choice on its end, with the redraws left
and those made (`Sequential.solver`'s `made`). The answers below are worked out by enumeration,
independently of the engine."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import product

from _stats import chi_square_p

import engine

ALPHA = 1e-6
D6 = range(1, 7)

RULESET = """\
rulecraft: 1
name: redrawn_pools
checks:
  keep_low:
    roll:
      a:
        pool: 2
        die: 6
        triggers: [{name: t, on: face <= 3, may: reroll, repeat: false}]
        redraw: {may: "sum(a) < 7"}
    outcomes: [fail, pass]
    objective: {at_least: pass}
    outcome: "'pass' if sum(a) >= 9 else 'fail'"
  costly:
    roll:
      a:
        pool: 2
        die: 6
        triggers: [{name: t, on: face <= 3, may: reroll, repeat: false}]
        redraw: {must: "count(a) == 2"}
    outcomes: [fail, pass]
    objective: {at_least: pass}
    outcome: "'pass' if sum(a) - 3 * redraws(a) >= 7 else 'fail'"
"""


def _played(pool: tuple[int, int], worth) -> Fraction:
    """The best a player can do with one pass of the procedure on `pool`: each die showing 3 or
    less may be rerolled once (any of them, together), the end worth `worth(pool)`."""
    low = [i for i, f in enumerate(pool) if f <= 3]
    best = Fraction(0)
    for chosen in product([False, True], repeat=len(low)):
        rerolled = [i for i, c in zip(low, chosen) if c]
        total = Fraction(0)
        for faces in product(D6, repeat=len(rerolled)):
            end = list(pool)
            for i, f in zip(rerolled, faces):
                end[i] = f
            total += worth(tuple(end))
        best = max(best, total / 6 ** len(rerolled))
    return best


def _mean(worth) -> Fraction:
    return sum((worth(p) for p in product(D6, repeat=2)), Fraction(0)) / 36


def test_a_low_pool_is_kept_to_be_redrawn_when_that_is_better() -> None:
    """Pass on 9 or more; a pool under 7 may be redrawn once. Best play may keep a 3 and a 3
    (sum 6) to redraw the pool (worth the redrawn pool's best play, 56.0 %), where rerolling both
    is worth 51.1 %: the procedure must see the redraw after it."""
    final = _mean(lambda p: _played(p, lambda e: Fraction(int(sum(e) >= 9))))

    def first_end(e: tuple[int, int]) -> Fraction:
        if sum(e) < 7:  # the redraw is offered: take it or not, whichever is better
            return max(Fraction(int(sum(e) >= 9)), final)
        return Fraction(int(sum(e) >= 9))

    expected = _mean(lambda p: _played(p, first_end))
    assert expected == Fraction(3977, 5832)
    rs = engine.load(RULESET)
    got = rs.distribution("keep_low", policy="optimal").probability("pass")
    assert got == expected
    assert got >= rs.distribution("keep_low", policy="always").probability("pass")
    assert got >= rs.distribution("keep_low", policy="never").probability("pass")


def test_the_redrawn_roll_is_played_for_its_redraw_count() -> None:
    """Every pool is redrawn once, and each redraw costs 3: the redrawn pool passes on 10 or more,
    so its best play rerolls every low die, as `always` does (81/216). Played as if unredrawn
    (7 or more) best play had kept a 3 beside a 5 and failed: 53/216."""
    expected = _mean(lambda p: _played(p, lambda e: Fraction(int(sum(e) >= 10))))
    assert expected == Fraction(81, 216)
    rs = engine.load(RULESET)
    assert rs.distribution("costly", policy="optimal").probability("pass") == expected
    assert rs.distribution("costly", policy="always").probability("pass") == expected
    result = rs.roll("costly", forced={"a": [5, 5, 3, 5, 6]}, policy="optimal")
    assert result.outcome.name == "pass"  # 6 + 5 - 3 >= 7: the 3 of the redrawn pool was rerolled


def test_sampled_best_play_agrees_with_the_exact_distribution() -> None:
    """The sampler asks the exact evaluator for each decision, the redrawn roll's own included."""
    rs = engine.load(RULESET)
    for check in ("keep_low", "costly"):
        exact = {s.name: p for s, p in rs.distribution(check, policy="optimal").table()}
        rng = random.Random(20261204)
        observed = Counter(rs.roll(check, rng, policy="optimal").outcome.name for _ in range(4000))
        p = chi_square_p(observed, exact)
        assert p > ALPHA, f"{check}: {observed} does not fit {exact} (p = {p:.2e})"


def test_a_redrawn_pool_shows_its_new_roll_before_its_steps() -> None:
    """The trace of a redraw of a pool with triggers: the pool as it fell again, then the
    procedure's steps on it (the redraw had been shown after them, with the value they left)."""
    rs = engine.load(RULESET)
    result = rs.roll("costly", forced={"a": [5, 5, 3, 5, 6]})
    steps = [(s.kind, s.value) for s in result.trace if s.name == "a"]
    assert [k for k, _ in steps] == ["pool", "redraw", "reroll"]
    assert [list(v.items) for _, v in steps] == [[5, 5], [3, 5], [6, 5]]


DEEP = """\
rulecraft: 1
name: deep
checks:
  deep:
    inputs: {k: {type: int, min: 0, max: 1000, default: 2}}
    roll:
      a:
        pool: 1
        die: 6
        triggers: [{name: t, on: face <= 2, may: reroll, repeat: false}]
        redraw: {may: "sum(a) < 6", times: k}
    outcomes: [fail, pass]
    objective: {at_least: pass}
    outcome: "'pass' if sum(a) >= 6 else 'fail'"
"""


def test_many_redraws_of_a_pool_under_best_play_are_no_deep_recursion() -> None:
    """Each roll is asked of the one after it; solved the last first, so 300 redraws allowed are
    no chain of 300 levels of calls (from about 75 it was a RecursionError: found by a review).
    A 6 passes. Best play rerolls a 1 or 2 (a miss after it can still be redrawn) and redraws
    every miss, so a roll passes with 1/6 + 2/6 · 1/6 = 8/36 and the check fails only if all
    301 rolls miss: (28/36)^301."""
    rs = engine.load(DEEP)
    assert rs.distribution("deep", policy="optimal", k=300).probability("fail") == Fraction(7, 9) ** 301
    assert rs.distribution("deep", policy="always", k=300).probability("fail") == Fraction(7, 9) ** 301
    assert rs.roll("deep", random.Random(1), policy="optimal", k=300).outcome.name in ("fail", "pass")


def test_many_redraws_of_one_die_rolled_under_best_play_are_no_deep_recursion() -> None:
    """A roll under `optimal` asks whether to redraw with the most redraws left first, each answer
    asking the next: a die that may be redrawn 200 times was a RecursionError traceback from
    `roll`, `test`, `campaign act` (found by a hunt), where the distribution, which solved the
    fewest left first, answered. Each redraw is now solved the fewest left first wherever it is
    first asked. Best play redraws every die under 6, so the check fails only if all 1,001 rolls
    miss: (5/6)^1001."""
    text = """\
rulecraft: 1
name: longredraw
checks:
  c:
    roll:
      d: {die: 6, redraw: {may: "d < 6", times: 1000}}
    outcomes: [lo, hi]
    outcome: "'lo' if d < 6 else 'hi'"
"""
    rolled = engine.load(text).roll("c", random.Random(1), policy="optimal")  # first: nothing warmed
    assert rolled.outcome.name in ("lo", "hi")
    rs = engine.load(text)
    assert rs.distribution("c", policy="optimal").probability("lo") == Fraction(5, 6) ** 1001


SCALED = """\
rulecraft: 1
name: scaled
scales:
  mark: [botch, miss, hit]
checks:
  scaled:
    roll:
      s:
        pool: 3
        die: 6
        each: "'botch' if face == 1 else 'hit' if face >= 5 else 'miss'"
        triggers:
          - {name: six, on: face == 6, may: reroll, target: face <= 4, repeat: false}
        redraw: {may: "count(s, 'hit') < 2", times: 2}
    outcomes: [fail, pass]
    outcome: "'pass' if count(s, 'hit') >= 2 else 'fail'"
"""


def test_a_redrawn_pool_read_through_each_shows_the_faces_it_fell_on() -> None:
    rs = engine.load(SCALED)
    result = rs.roll("scaled", forced={"s": [2, 3, 5, 6, 2, 6, 4]})
    redraw = next(s for s in result.trace if s.kind == "redraw")
    assert redraw.faces == (6, 2, 6)
    assert redraw.detail.endswith("→ [hit, miss, hit] (rolled 6, 2, 6)")


COSTLY_POOL = """\
rulecraft: 1
name: p
checks:
  c:
    inputs: {n: {type: int, min: 1, max: 12, default: 4}, t: {type: int, min: 0, max: 50, default: 3}}
    roll:
      a:
        pool: n
        die: 6
        triggers: [{name: t, on: face <= 2, may: reroll, repeat: false}, {name: x, on: face == 6, may: add}]
        cap: 3
        redraw: {may: "sum(a) < 4 * n", times: t}
    outcomes: [fail, pass, crit]
    objective: mean_rank
    outcome: >-
      'crit' if sum(a) - redraws(a) >= 4 * n + 2 else 'pass' if sum(a) - redraws(a) >= 4 * n - 2 else 'fail'
"""


def test_a_redraw_is_weighed_once_however_many_ends_lead_to_it(monkeypatch) -> None:
    """Every end of a roll's solve that may be redrawn asks what the redraw is worth; it is worked
    out once per roll (found by a review: rebuilt for each end, 2.19 million outcome look-ups for
    4 dice and 3 redraws, 8 times slower than before ff9c0f2 and uncharged to the work budget)."""
    from engine.eval.exact import Sequential

    asked = [0]
    outcomes = Sequential.outcomes

    def counted(self: Sequential, i: int, dice: tuple[object, ...]) -> object:
        asked[0] += 1
        return outcomes(self, i, dice)

    monkeypatch.setattr(Sequential, "outcomes", counted)
    d = engine.load(COSTLY_POOL).distribution("c", policy="optimal", n=4, t=3)
    assert sum(p for _, p in d.table()) == 1
    assert asked[0] < 100_000, asked[0]
