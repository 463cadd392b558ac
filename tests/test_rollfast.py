"""Rolling fast: a roll without its trace, the plain-dice `roller`, and the hand-written Chill check
the benchmark compares them with.

- A roll with `trace=False` has the dice, outcome and values of the traced roll from the same
  seed, for every check of every shipped ruleset and example under each fixed policy, and an
  empty trace; `Ruleset.sample(method="rolled")` counts what one roll after another gives.
- The hand-written function (benchmarks/handwritten.py) agrees with rulecraft roll for roll from
  the same seed, on every pair of dice, and with the exact distribution: it cannot drift.
- The work bound the compiler counts for a `roller` holds, and a budget below it still stops a
  roll, as it did before plain rolls went unmetered.
"""

from __future__ import annotations

import contextlib
import importlib.util
import random
from collections import Counter
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from _repo import REPO_ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.errors import LimitError
from engine.runtime.limits import Limits
from engine.runtime.work import Work, working


def _handwritten() -> ModuleType:
    spec = importlib.util.spec_from_file_location("handwritten", REPO_ROOT / "benchmarks" / "handwritten.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HAND = _handwritten()


def _rulesets() -> list[engine.Ruleset]:
    found = [engine.load(name) for name in ("castle", "chill", "chimera", "chthonian")]
    found += [engine.load(Path(p)) for p in sorted((REPO_ROOT / "examples").glob("*.yaml"))]
    return found


def _inputs(check: Any) -> list[dict[str, Any]]:
    """The inputs of the check's examples (names of scale values as text), or none at all."""
    found = []
    for example in check.examples:
        shown = {k: getattr(v, "name", v) for k, v in example.inputs.items()}
        if shown not in found:
            found.append(shown)
    return found[:3] or [{}]


def _same(a: engine.Result, b: engine.Result) -> None:
    assert (a.outcome, a.values, a.rolled, a.drawn, a.inputs, a.auto, a.policy) == (
        b.outcome,
        b.values,
        b.rolled,
        b.drawn,
        b.inputs,
        b.auto,
        b.policy,
    )


def test_a_roll_without_its_trace_is_the_same_roll_for_every_shipped_check() -> None:
    rolls = 0
    for rs in _rulesets():
        for name, check in rs.checks.items():
            for inputs in _inputs(check):
                for policy in ("always", "never"):
                    for seed in range(40):
                        try:
                            traced = rs.roll(name, random.Random(seed), policy=policy, **inputs)
                        except engine.RulecraftError:
                            continue  # an example's inputs that need forced dice (a limit)
                        bare = rs.roll(name, random.Random(seed), policy=policy, trace=False, **inputs)
                        _same(bare, traced)
                        assert bare.trace == () and traced.trace
                        again = rs.roll(name, random.Random(seed), policy=policy, **inputs)
                        assert again == traced and again.trace == traced.trace  # kept steps stay right
                        rolls += 1
    assert rolls > 2000


def test_optimal_rolls_without_their_trace_decide_alike() -> None:
    chimera = engine.load("chimera")
    for seed in range(30):
        traced = chimera.roll("skill", random.Random(seed), policy="optimal", dice=4)
        bare = chimera.roll("skill", random.Random(seed), policy="optimal", dice=4, trace=False)
        _same(bare, traced)


def test_forced_dice_without_the_trace() -> None:
    chill = engine.load("chill")
    bare = chill.roll("specific", forced={"tens": 7, "ones": 7}, target=70, tokens=1, trace=False)
    assert bare.outcome.name == "colossal_success" and bare.values["forced_dark"] == 2
    assert bare.trace == () and bare.forced() == {"tens": [7], "ones": [7]}


def test_the_untraced_result_is_a_result() -> None:
    chill = engine.load("chill")
    bare = chill.roll("specific", random.Random(5), target=55, trace=False)
    traced = chill.roll("specific", random.Random(5), target=55)
    assert type(bare) is engine.Result
    assert bare.as_json() == {**traced.as_json(), "trace": []}
    with pytest.raises(AttributeError):
        bare.outcome = traced.outcome  # type: ignore[misc]  # still frozen


def test_sampling_rolled_counts_one_roll_after_another() -> None:
    for ruleset, check, inputs in (
        ("chill", "specific", {"target": 55}),
        ("chimera", "skill", {"dice": 3}),
        ("castle", "task", {}),
    ):
        rs = engine.load(ruleset)
        batch = rs.sample(check, 300, random.Random(9), method="rolled", **inputs)
        rng = random.Random(9)
        counts = Counter(rs.roll(check, rng, **inputs).outcome.name for _ in range(300))
        assert {k: v for k, v in batch.outcomes.items() if v} == dict(counts)


# -- the hand-written function --------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 300),
    st.integers(0, 20),
    st.sampled_from(["player", "chill_master"]),
    st.integers(0, 2**32),
)
def test_the_hand_written_check_is_rulecraft_roll_for_roll(
    target: int, tokens: int, roller: str, seed: int
) -> None:
    chill = CHILL
    ours, theirs = random.Random(seed), random.Random(seed)
    for _ in range(20):
        for traced in (True, False):
            result = chill.roll("specific", ours, target=target, tokens=tokens, roller=roller, trace=traced)
            outcome, values = HAND.specific(theirs, target, tokens, roller)
            assert result.outcome.name == outcome
            shown = {k: getattr(v, "name", v) for k, v in result.values.items()}
            assert shown == values and list(shown) == list(values)


def test_the_hand_written_check_on_every_pair_of_dice() -> None:
    for target in (1, 27, 54, 55, 90, 99, 100, 101, 120, 300):
        for tokens in (0, 1, 3):
            for roller in ("player", "chill_master"):
                for tens in range(10):
                    for ones in range(10):
                        forced = {"tens": tens, "ones": ones}
                        result = CHILL.roll(
                            "specific", forced=forced, target=target, tokens=tokens, roller=roller
                        )
                        faces = iter([tens, ones])
                        outcome, values = HAND.specific(_Fixed(faces), target, tokens, roller)
                        assert result.outcome.name == outcome
                        assert {k: getattr(v, "name", v) for k, v in result.values.items()} == values


def test_the_hand_written_check_has_the_exact_distribution() -> None:
    for target in (1, 55, 100, 120):
        counts: Counter[str] = Counter()
        for tens in range(10):
            for ones in range(10):
                counts[HAND.specific(_Fixed(iter([tens, ones])), target)[0]] += 1
        exact = CHILL.distribution("specific", target=target).outcome
        assert {k.name: v for k, v in exact.items() if v} == {k: Fraction(n, 100) for k, n in counts.items()}


class _Fixed(random.Random):
    """A random source that hands out the given faces (the hand-written check's forced dice)."""

    def __init__(self, faces: Any) -> None:
        super().__init__(0)
        self.faces = faces

    def randrange(self, *args: Any, **kwargs: Any) -> int:  # type: ignore[override]
        return int(next(self.faces))


CHILL = engine.load("chill")


# -- the work a plain roll may do --------------------------------------------------------------


def test_the_counted_bound_holds_for_every_plain_check() -> None:
    checked = 0
    for rs in _rulesets():
        for name, check in rs.checks.items():
            if check.roller is None:
                continue
            for inputs in _inputs(check):
                try:
                    rs.roll(name, random.Random(0), **inputs)
                except engine.RulecraftError:
                    continue
                ready = rs._bind(check, inputs)
                assert ready.before is not None
                rng = random.Random(1)
                for _ in range(200):
                    work = Work(10**9)
                    with working(work), contextlib.suppress(engine.RulecraftError):
                        check.roller(ready.before.env, rng._randbelow)  # (some inputs fail on some dice)
                    assert work.used <= check.roller_units
                checked += 1
    assert checked >= 5
    assert CHILL.check("specific").roller_units == 2  # two calls of specific_band


def test_a_budget_below_the_bound_still_stops_a_plain_roll() -> None:
    tight = engine.load("chill", limits=Limits(max_work=1))
    for _ in range(2):  # the first roll works out what the rolls share; the second starts at the dice
        with pytest.raises(LimitError) as caught:
            tight.roll("specific", random.Random(1), target=55, trace=False)
        assert caught.value.diagnostics[0].code == "RC503"
    enough = engine.load("chill", limits=Limits(max_work=2))
    for _ in range(3):
        enough.roll("specific", random.Random(1), target=55)


# -- the pre-bound roller and the rolls a binding keeps ---------------------------------------------


def test_a_prebound_roller_is_roll_for_every_shipped_check() -> None:
    """`rs.roller(check, policy=..., trace=..., **inputs)(rng)` is `rs.roll(check, rng, ...)`: the
    same result and trace, and the RNG left in the same state (ten rolls in a row from one RNG)."""
    rolls = 0
    for rs in _rulesets():
        for name, check in rs.checks.items():
            for inputs in _inputs(check):
                for policy in ("always", "never"):
                    for traced in (True, False):
                        try:
                            roller = rs.roller(name, policy=policy, trace=traced, **inputs)
                            rs.roll(name, random.Random(0), policy=policy, **inputs)
                        except engine.RulecraftError:
                            continue  # an example's inputs that need forced dice (a limit)
                        for seed in range(8):
                            ours, theirs = random.Random(seed), random.Random(seed)
                            for _ in range(10):
                                a = roller(ours)
                                b = rs.roll(name, theirs, policy=policy, trace=traced, **inputs)
                                _same(a, b)
                                assert a == b and a.trace == b.trace
                                assert a.as_json() == b.as_json()
                                rolls += 1
                            assert ours.getstate() == theirs.getstate()
    assert rolls > 5000


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 300),
    st.integers(0, 20),
    st.sampled_from(["player", "chill_master"]),
    st.integers(0, 2**32),
)
def test_the_prebound_roller_on_any_chill_inputs(target: int, tokens: int, roller: str, seed: int) -> None:
    for traced in (True, False):
        bound = CHILL.roller("specific", trace=traced, target=target, tokens=tokens, roller=roller)
        ours, theirs = random.Random(seed), random.Random(seed)
        for _ in range(30):
            a = bound(ours)
            b = CHILL.roll("specific", theirs, trace=traced, target=target, tokens=tokens, roller=roller)
            assert a == b and a.trace == b.trace


def test_a_kept_roll_is_the_roll_worked_out_again() -> None:
    """Every roll of a plain check, once its faces' roll is kept, equals the same faces forced
    (forced dice never use what is kept: they go through the general sampler), trace and all."""
    for rs in _rulesets():
        for name, check in rs.checks.items():
            if check.roller is None:
                continue
            for inputs in _inputs(check):
                rng = random.Random(3)
                try:
                    for _ in range(300):
                        rs.roll(name, rng, **inputs)  # keeps them
                except engine.RulecraftError:
                    continue
                for traced in (True, False):
                    for _ in range(100):
                        kept = rs.roll(name, rng, trace=traced, **inputs)
                        again = rs.roll(name, forced=kept.forced(), trace=traced, **inputs)
                        assert kept == again and kept.trace == again.trace


def test_kept_rolls_cannot_be_changed_and_are_handed_out_whole() -> None:
    """A kept roll is returned as it was kept, not copied (`kept_roller`): two rolls of the same
    faces are the same `Result`, and a caller who tries to change one is refused, so the next
    roll of those faces is as it was."""
    rng = random.Random(11)
    CHILL.roll("specific", rng, target=55)  # the binding's first roll: its rolls are kept from the next
    first = CHILL.roll("specific", rng, target=55)
    bound = CHILL.roller("specific", target=55, trace=False)
    for mapping in (first.values, first.inputs, first.rolled, first.drawn):
        with pytest.raises(TypeError, match="read-only"):
            mapping.clear()  # type: ignore[attr-defined]
    again = CHILL.roll("specific", forced=first.forced(), target=55)  # the slow way, worked out anew
    same = 0
    for _ in range(500):  # every pair of faces comes up: the first one's among them
        for result in (CHILL.roll("specific", rng, target=55), bound(rng)):
            assert len(result.values) == 8 and result.inputs == {
                "target": 55,
                "tokens": 0,
                "roller": "player",
            }
            assert list(result.rolled) == ["tens", "ones"] and list(result.drawn) == ["tens", "ones"]
            if result.rolled == first.rolled and result.trace:
                assert result is first and result == again and result.trace == again.trace
                same += 1
    assert same > 0


_WIDE = """
rulecraft: 1
name: wide
checks:
  four:
    inputs:
      bonus: {type: int, min: 0, max: 100000, default: 0}
    roll:
      a: {die: 20}
      b: {die: 20}
      c: {die: 20}
      d: {die: 20}
    let:
      total: a + b + c + d + bonus
    outcomes: [low, high]
    outcome: "'high' if total > 42 + bonus else 'low'"
"""


def test_the_rolls_a_binding_keeps_are_bounded_and_weighed() -> None:
    """A check of more face tuples than `KEEP` keeps at most `KEEP` of them; the ruleset's cache
    weighs them as they come (its bytes grow with them), so its byte bound holds them too."""
    from engine.eval.sample import KEEP
    from engine.runtime.cache import GROW_SHARE

    wide = engine.load(_WIDE)
    rng = random.Random(5)
    wide.roll("four", rng)
    check = wide.check("four")
    ready = wide._bind(check, {})
    start = wide.caches.bindings.bytes
    for _ in range(4 * KEEP):
        wide.roll("four", rng)
    assert len(ready.kept) == KEEP  # 160,000 tuples of faces: the first KEEP met are kept
    assert wide.caches.bindings.bytes > start + KEEP * 200  # each kept roll weighed, about its size
    tight = engine.load(_WIDE, limits=Limits(max_cache_bytes=4 * 2**20))
    cache = tight.caches.bindings
    for bonus in range(40):  # forty bindings of up to 1024 kept rolls each: more than 4 MB
        for _ in range(KEEP):
            tight.roll("four", rng, bonus=bonus)
        assert cache.bytes <= cache.max_bytes
    # growing pushed no binding out: the later ones stopped keeping rolls instead. A binding's
    # own weight (its environment and steps, made at its first roll) is a new entry's, which may
    # push the oldest out where growing may not (it had been counted at a seventh: hunt 13zzd)
    readies = [cache.get(("four", ("bonus", bonus), int)) for bonus in range(40)]
    held = [r for r in readies if r is not None]
    assert len(held) >= 38 and readies[-1] is not None
    assert len(held[0].kept) > len(readies[-1].kept)  # the first kept more than the last
    assert cache.bytes > cache.max_bytes * GROW_SHARE * 0.75  # the room was used


def test_a_prebound_roller_is_still_metered_where_it_must_be() -> None:
    """A roller made under a budget below the check's bound is metered like `roll`, from its
    first roll on; inside a running request (`working`) its rolls go the metered way, as `roll`'s
    do, and are the same rolls."""
    tight = engine.load("chill", limits=Limits(max_work=1))
    for traced in (True, False):
        bound = tight.roller("specific", target=55, trace=traced)
        for _ in range(3):
            with pytest.raises(LimitError) as caught:
                bound(random.Random(1))
            assert caught.value.diagnostics[0].code == "RC503"
    bound = CHILL.roller("specific", target=55)
    outside = [bound(random.Random(seed)) for seed in range(20)]
    with working(Work(10**6)):
        inside = [bound(random.Random(seed)) for seed in range(20)]
    assert inside == outside and [r.trace for r in inside] == [r.trace for r in outside]


def test_a_prebound_roller_of_a_check_that_is_not_plain() -> None:
    chimera = engine.load("chimera")
    for policy in ("always", "never", "optimal"):
        bound = chimera.roller("skill", policy=policy, dice=4)
        for seed in range(10):
            a, b = (
                bound(random.Random(seed)),
                chimera.roll("skill", random.Random(seed), policy=policy, dice=4),
            )
            assert a == b and a.trace == b.trace
    with pytest.raises(engine.RulecraftError) as caught:
        chimera.roller("skill", dice=4)(7)
    assert "random.Random" in str(caught.value)


def test_the_language_guide_shows_a_real_prebound_roll() -> None:
    text = (REPO_ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    roll = CHILL.roller("specific", target=55)
    rng = random.Random(7)
    shown = [roll(rng).outcome.name for _ in range(3)]
    assert f"[roll(rng).outcome.name for _ in range(3)]  # {shown}" in text


def test_a_binding_that_outgrows_its_room_keeps_what_was_weighed_and_still_rolls() -> None:
    """With room for a few kept Chill rolls only (15 % of 1 MB for all bindings, three quarters
    of it for kept rolls), a binding that outgrows it keeps the rolls it had when the cache last
    weighed it and no more; its rolls stay the same, and the cache's bound holds."""
    from engine.runtime.cache import GROW_SHARE

    small = engine.load("chill", limits=Limits(max_cache_bytes=2**20))
    ready = None
    ours, theirs = random.Random(4), random.Random(4)
    for _ in range(2000):
        for traced in (True, False):
            a = small.roll("specific", ours, target=55, trace=traced)
            b = CHILL.roll("specific", theirs, target=55, trace=traced)
            assert a == b and a.trace == b.trace
        ready = ready or small._bind(small.check("specific"), {"target": 55})
    cache = small.caches.bindings
    assert ready is not None and 8 <= ready.room == ready.weighed == len(ready.kept) < 200
    assert ready.room & (ready.room - 1) == 0  # weighed at 8, 16, 32, ... kept rolls
    assert cache.get(("specific", ("target", 55), int)) is ready
    assert cache.bytes <= cache.max_bytes * GROW_SHARE


def test_growing_never_pushes_another_binding_out() -> None:
    """A bot rolling against more targets in turn than the bindings' room keeps rolls for:
    each binding keeps rolls until the room is used and then no more, and none is pushed out by
    another's growth, so the rolls against every target find their rollers again (no binding is
    made twice) and give what a fresh ruleset gives."""
    from engine.eval.sample import KEEP
    from engine.runtime.cache import GROW_SHARE

    rs = engine.load("chill", limits=Limits(max_cache_bytes=8 * 2**20))  # bindings: about 1.2 MB
    made: list[Any] = []
    put = rs.caches.bindings.put

    def counted(key: Any, value: Any, size: int | None = None) -> None:
        made.append(key)
        put(key, value, size)

    rs.caches.bindings.put = counted  # type: ignore[method-assign]
    rng, fresh = random.Random(3), random.Random(3)
    for _ in range(60):
        for target in range(1, 31):
            a = rs.roll("specific", rng, target=target)
            b = CHILL.roll("specific", fresh, target=target)
            assert a == b and a.trace == b.trace
    assert sorted(key[1][1] for key in made) == list(range(1, 31))  # each bound once
    readies = [rs._bind(rs.check("specific"), {"target": t}) for t in range(1, 31)]
    for ready in readies:  # each kept some rolls, ran out of room, and kept what was weighed
        assert 8 <= ready.room == ready.weighed == len(ready.kept) < KEEP
    assert rs.caches.bindings.bytes <= rs.caches.bindings.max_bytes * GROW_SHARE


def test_a_prebound_rollers_binding_dropped_by_the_cache_is_put_back_as_it_grows() -> None:
    """New bindings push a roller's binding out of the cache; when its kept rolls grow, it is
    weighed into the cache again where there is room (the cache's bound still holds)."""
    rs = engine.load("chill", limits=Limits(max_cache_bytes=12 * 2**20))  # bindings: about 1.8 MB
    bound = rs.roller("specific", target=55)
    rng = random.Random(8)
    bound(rng)
    key = ("specific", ("target", 55), int)
    ready = rs.caches.bindings.get(key)
    assert ready is not None
    for target in range(1, 2400):  # bindings with one roll each, more than the room for them
        rs.roll("specific", rng, target=target % 120 + 1, tokens=target // 120)
    assert rs.caches.bindings.get(key) is None
    rs.caches.bindings.clear()  # room again
    for _ in range(3000):
        bound(rng)
    assert rs.caches.bindings.get(key) is ready and len(ready.kept) == 100
    assert rs.caches.bindings.bytes <= rs.caches.bindings.max_bytes


_MIXED = """
rulecraft: 1
name: mixed
checks:
  one:
    roll: {a: {die: 4}}
    outcomes: [low, high]
    outcome: "'high' if a > 2 else 'low'"
  two:
    roll: {a: {die: 4}, b: {die: 20}}
    let: {total: a * 100 + b}
    outcomes: [low, high]
    outcome: "'high' if a > b else 'low'"
  three:
    roll: {a: {die: 4}, b: {die: 20}, c: {die: "2..7"}}
    let: {total: a * 10000 + b * 100 + c}
    outcomes: [low, high]
    outcome: "'high' if a + c > b else 'low'"
  five:
    roll: {a: {die: 4}, b: {die: 20}, c: {die: "2..7"}, d: {die: 6}, e: {die: "0..1"}}
    let: {total: "a * 1000000 + b * 10000 + c * 1000 + d * 10 + e"}
    outcomes: [low, high]
    outcome: "'high' if a + c + d + e > b else 'low'"
"""


def test_kept_rolls_draw_what_the_compiled_roller_draws() -> None:
    """Rolls from what was kept (outside any request) against the same seeds rolled the metered
    way through the check's compiled `roller` (inside a request's budget): the same results,
    traces and RNG states, for dice of different sizes, one to five of them, and every shipped
    plain check."""
    compared = 0
    for rs in [engine.load(_MIXED), *_rulesets()]:
        for name, check in rs.checks.items():
            if check.roller is None:
                continue
            for inputs in _inputs(check):
                for traced in (True, False):
                    ours, theirs = random.Random(6), random.Random(6)
                    try:
                        kept = [rs.roll(name, ours, trace=traced, **inputs) for _ in range(200)]
                    except engine.RulecraftError:
                        continue
                    with working(Work(10**9)):
                        metered = [rs.roll(name, theirs, trace=traced, **inputs) for _ in range(200)]
                    assert kept == metered and [r.trace for r in kept] == [r.trace for r in metered]
                    assert ours.getstate() == theirs.getstate()
                    compared += 1
    assert compared >= 12
