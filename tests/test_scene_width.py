"""A scene over a wide state (many items a character) is charged for its width, and its bounds
check reads one view.

A hunt found a scene whose party has 1,500 plain counters and a random walk on one more: each
new state's bounds check copied the whole view once for every counter (O(items²), about 28 ms a
state), and a node of the exact solve was charged a flat 120 units and its weights whatever the
state's width, so the solve ran past 200 s of CPU and 3.7 GB under the default budget with no
RC503 (over HTTP the worker missed its deadline and was killed). The counts of units below are
what each state is charged at least; no test here times anything.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest

import engine
import engine.runtime.state as runtime_state
from engine.runtime.cache import Caches
from engine.runtime.context import RunContext
from engine.runtime.work import Work
from engine.scenes.odds import solve
from engine.scenes.play import cast_state, play
from engine.state.memory import MemoryStore


def wide(items: int, far: int) -> str:
    """A party with `items` plain counters besides `x`, which walks ±1 from 1 until 0 or `far`."""
    counters = "\n".join(f"    i{k}: {{counter: {k}, min: 0}}" for k in range(items))
    return f"""\
rulecraft: 1
name: wide
checks:
  c:
    roll: {{d: {{die: 2}}}}
    outcomes: [dn, up]
    outcome: "'up' if d == 2 else 'dn'"
state:
  each:
    x: {{counter: 1, min: 0, max: 100000}}
{counters}
actions:
  walk:
    by: character
    roll: {{check: c}}
    effects:
      - {{add: {{x: 1}}, when: "outcome == 'up'"}}
      - {{remove: {{x: 1}}, when: "outcome == 'dn'"}}
scenes:
  s:
    parties: [p]
    round:
      - {{act: walk, by: p}}
    ends:
      - {{when: p.x == 0, then: zero}}
      - {{when: "p.x >= {far}", then: far}}
    max_rounds: 10
"""


WIDE = engine.load(wide(1_000, 4))
ITEMS = 1_001


def _metered(rs: engine.Ruleset, rng: random.Random | None = None) -> tuple[Any, Any, RunContext, Work]:
    sc = rs.scene("s")
    state, cast = cast_state(rs.model, sc, None, None)
    work = Work(10**12)
    # caches of its own: nothing this process met before is left uncharged
    return sc, (state, cast), RunContext(rs.limits, "always", Caches(), rng, work=work), work


def test_an_exact_solve_is_charged_for_the_width_of_each_state_it_lists() -> None:
    """Each state listed is charged a unit an item past `FREE_WIDTH` (64) for its look, one for
    what comes before its roll and two for each point its effects make (`APPLY_PASSES`): a walk
    of 1,001 items is charged over 2,000 units a state listed (its endings only looked at). It
    was charged 170 units a node whatever the width, so the default budget let a 1,500-counter
    solve run 200 s."""
    sc, (state, cast), ctx, work = _metered(WIDE)
    odds = solve(WIDE.model, sc, state, cast, ctx)[0]
    assert odds.probability("far") == Fraction(1, 4)  # the gambler's ruin from 1 to 0 or 4, as ever
    per_item = work.used / (odds.states * ITEMS)
    assert per_item >= 2, (work.used, odds.states)


def test_a_played_scene_is_charged_for_the_width_of_each_new_state() -> None:
    """A played scene's look at a new state, its step from a new state and each new state its
    effects make are charged a pass over the state's items past the first 64 each (two for the
    new state): over three times its 1,001 items for the first step of the walk alone. They were a
    flat 50 and 20 units."""
    sc, (state, cast), ctx, work = _metered(WIDE, random.Random(1))
    played = play(WIDE.model, sc, state, cast, ctx)
    assert played.ending in ("zero", "far", "unfinished")
    assert work.used >= 3 * ITEMS, work.used


def test_a_bounds_check_gives_every_bound_the_one_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bounds are "evaluated on the current state each time they are checked" (docs/language.md,
    Counters): the state is the same for every bound of one check, so they read one view, not a
    copy of it each (a copy a counter made a state's check O(items²))."""
    rs = engine.load(wide(3, 4))
    views: list[list[dict[str, Any]]] = []
    owner = runtime_state._check_owner

    def check(items: Any, env: dict[str, Any], effect: Any) -> None:
        views.append([])
        owner(items, env, effect)

    def seen(bound: Any) -> Any:
        def run(env: dict[str, Any]) -> Any:
            views[-1].append(env)
            return bound(env)

        return run

    monkeypatch.setattr(runtime_state, "_check_owner", check)
    rules = rs.model.state
    assert rules is not None
    bounds = [rules.each[name].minimum for name in ("i0", "i1", "i2")]
    runs = [b.run for b in bounds if b is not None]
    for b, run in zip(bounds, runs):
        object.__setattr__(b, "run", seen(run))  # an Expr is frozen
    try:
        assert rs.scene_odds("s").probability("far") == Fraction(1, 4)
    finally:
        for b, run in zip(bounds, runs):
            object.__setattr__(b, "run", run)
    checks = [v for v in views if v]  # (the table's items, none here, are checked apart)
    assert checks and all(len(v) == 3 for v in checks)
    assert all(v[0] is v[1] is v[2] for v in checks)


def test_the_shipped_scenes_are_not_charged_for_width() -> None:
    """The shipped scenes' states fit in `FREE_WIDTH`, so each is charged what it was."""
    width_work = runtime_state.width_work
    for name in ("castle", "chimera", "chthonian"):
        rs = engine.load(name)
        rules = rs.model.state
        assert rules is not None
        for sc in rs.scenes.values():
            state = {"characters": dict.fromkeys(sc.parties)}
            assert width_work(rules, state) == 0, (name, sc.name)


def tallied(tallies: int, counters: int, effects: int = 1) -> str:
    """A table of `tallies` tallies of four members holding six and `counters` counters, none of
    which changes, and a count of rounds that never ends the scene, `go` adding to it `effects`
    times (hunt 11b's ruleset)."""
    items = [f"    t{k}: {{tally: [a, b, c, d], start: {{a: 3, b: 2, c: 1}}}}" for k in range(tallies)]
    items += [f"    c{k}: {{counter: 0}}" for k in range(counters)]
    body = "\n".join(items)
    adds = ", ".join(["{add: {n: 1}}"] * effects)
    return f"""\
rulecraft: 1
name: tallied
checks:
  d: {{roll: {{x: {{die: 6}}}}, outcomes: [lo, hi], outcome: "'hi' if x > 3 else 'lo'"}}
state:
  shared:
    n: {{counter: 0}}
{body}
actions:
  go: {{roll: {{check: d}}, effects: [{adds}]}}
scenes:
  s: {{parties: [p], round: [{{act: go}}], ends: [{{when: n < 0, then: x}}], max_rounds: 100000}}
"""


def _rounds_within(text: str, budget: int) -> int:
    """The round a played scene reached when `budget` units were spent (told in its RC503)."""
    rs = engine.load(text, limits=engine.Limits(max_work=budget))
    with pytest.raises(engine.LimitError) as caught:
        rs.play_scene("s", random.Random(1))
    message = caught.value.diagnostics[0].message
    return int(message.split("at round ")[1].split(" ")[0].replace(",", ""))


def test_a_tally_is_charged_as_the_pool_a_view_makes_of_it() -> None:
    """Hunt 11b: a state of 20 tallies was charged as 21 items, within `FREE_WIDTH`, so as a
    table of 20 counters; played round by round it cost about 62 µs a tally a round (each view
    reads a tally as a pool of its members), eleven times a counter, and the default budget let
    the scene run 20 s of CPU (60 tallies: 50 s). A tally now weighs `TALLY_WIDTH` items: the
    budget that plays some rounds of 20 counters plays well under a third of them with 20
    tallies (the cost measured is about a fifth)."""
    counters = _rounds_within(tallied(0, 20), 100_000)
    tallies = _rounds_within(tallied(20, 0), 100_000)
    assert counters > 500 and tallies * 3 < counters, (tallies, counters)
    rules = engine.load(tallied(20, 0)).model.state
    assert rules is not None
    assert runtime_state.width_work(rules, {"characters": {}}) == 1 + 20 * runtime_state.TALLY_WIDTH - 64


def test_each_effect_that_changes_a_wide_state_is_charged_for_its_width() -> None:
    """Review AU: an action's effects each make a new state, whose bounds are checked and which
    the next effect sees, every item read again (a tally as the pool of its members); in a
    campaign those views are kept in a memo, so they were not charged one by one, and 200 effects
    over 1,000 tallies ran 2.7 s on a twentieth of the default budget. Each effect that changes
    a state past `FREE_WIDTH` is charged two passes over it (`APPLY_PASSES`)."""
    text = tallied(300, 0, effects=50)
    rs = engine.load(text, limits=engine.Limits(max_work=100_000))
    campaign = engine.new_campaign("w", rs, store=MemoryStore())
    with pytest.raises(engine.LimitError):
        campaign.act("go", seed=1)
    assert campaign.show()["shared"]["n"] == 0  # nothing written
    roomy = engine.load(text, limits=engine.Limits(max_work=2_000_000))
    assert engine.new_campaign("w", roomy, store=MemoryStore()).act("go", seed=1) is not None
