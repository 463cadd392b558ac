"""What a loaded ruleset remembers between requests is bounded in entries and in bytes
(`Limits.max_cache_bytes`): many distinct requests on one `Ruleset` never make it hold more."""

from __future__ import annotations

import gc
import random
import threading
import tracemalloc
from fractions import Fraction
from typing import Any

import pytest

import engine
from engine.model.values import Multi
from engine.runtime.cache import BoundedCache, Caches, approx_bytes

BUDGET = 2 * 1024 * 1024


def test_a_cache_keeps_its_entries_and_bytes_under_their_bounds() -> None:
    cache = BoundedCache(max_entries=3, max_bytes=1000)
    for i in range(5):
        cache.put(i, "x", size=100)
    assert len(cache) == 3 and cache.get(0) is None and cache.get(4) == "x"  # the oldest went first
    cache.put("big", "y", size=700)
    assert cache.bytes <= 1000 and cache.get("big") == "y" and len(cache) == 3
    cache.put("huge", "z", size=1001)  # more than the whole cache: not kept, nothing evicted for it
    assert cache.get("huge") is None and cache.get("big") == "y"
    cache.put("big", "y2", size=50)  # kept again: weighed again, not twice
    assert cache.bytes == sum([100, 100, 50])


def test_a_value_is_weighed_by_what_it_holds_not_by_the_model_it_points_to() -> None:
    rs = engine.load("chill")
    small, large = {"a": 1}, {i: list(range(50)) for i in range(200)}
    assert approx_bytes(large) > 50 * approx_bytes(small)
    outcome = rs.roll("specific", random.Random(1), target=55).outcome  # a Symbol of the model
    assert approx_bytes([outcome]) <= approx_bytes([None])  # the Symbol and its scale: not counted


def test_writers_on_many_threads_keep_the_count_of_bytes_right() -> None:
    cache = BoundedCache(max_entries=50, max_bytes=10_000)

    def write(k: int) -> None:
        for i in range(2000):
            cache.put((k, i % 80), i, size=97)

    threads = [threading.Thread(target=write, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert cache.bytes == 97 * len(cache) <= 10_000


def _requests() -> list[tuple[str, str, dict[str, Any]]]:
    """200 distinct requests: exact distributions, rolls and scenes, over several rulesets."""
    out: list[tuple[str, str, dict[str, Any]]] = []
    out += [("chill", "specific", {"target": t}) for t in range(1, 121)]
    out += [("chimera", "skill", {"dice": d, "policy": p}) for d in range(1, 7) for p in ("always", "never")]
    out += [
        ("castle", "combat", {"skill": s, "foe_skill": f})
        for s in ("average", "advantaged")
        for f in ("average", "disadvantaged")
    ]
    out += [("chimera", "learning", {"student": {"max_resolve": r}}) for r in range(3)]
    out += [("castle", "duel-sampled", {"you": {"wielding": w}}) for w in ("knife", "sword", "axe")]
    out += [("chthonian", "standard", {"traits": t, "difficulty": d}) for t in range(-14, 15) for d in (2, 3)]
    return out[:200]


def _run(rulesets: dict[str, engine.Ruleset], name: str, what: str, args: dict[str, Any]) -> None:
    rs = rulesets[name]
    if what == "learning":
        rs.scene_odds("learning", parties=args)
    elif what == "duel-sampled":
        rs.sample_scenes("duel", 10, random.Random(1), parties=args)
    else:
        policy = args.pop("policy", "always")
        rs.distribution(what, policy=policy, **args)
        rs.roll(what, random.Random(2), policy=policy, **args)


def test_two_hundred_distinct_requests_stay_within_the_cache_budget() -> None:
    requests = _requests()
    assert len({repr(r) for r in requests}) == 200
    limits = engine.Limits(max_cache_bytes=BUDGET)
    bounded = {n: engine.load(n, limits=limits) for n in ("chill", "chimera", "castle", "chthonian")}
    free = {"castle": engine.load("castle")}
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for name, what, args in requests:
        _run(bounded, name, what, dict(args))
        assert all(rs.caches.bytes() <= BUDGET for rs in bounded.values())
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    # what the four rulesets still hold, measured, not estimated: within their budgets, with room
    # for what the estimate leaves out (interned strings, the allocator's rounding)
    assert grown < 2 * 4 * BUDGET, grown
    free["castle"].scene_odds("duel")  # without the small budget, one duel solved keeps far more
    assert free["castle"].caches.bytes() > 2 * BUDGET


def test_caches_share_out_a_budget() -> None:
    caches = Caches.within(1_000_000)
    parts = [
        caches.tables,
        caches.distributions,
        caches.evaluators,
        caches.bindings,
        caches.environments,
        caches.scenes,
    ]
    assert sum(p.max_bytes for p in parts) <= 1_000_000


def test_a_solver_is_weighed_without_the_caches_its_context_refers_to() -> None:
    """An exact evaluator keeps its run context, and the context the ruleset's caches: weighing
    it walked into every cache of the ruleset, so a new solver of a few kilobytes counted as all of
    them (57 MB) and was not kept, and optimal rolls solved again each time (hunt 13zz). Now it
    weighs the same beside full caches as beside empty ones, and stays kept between rolls."""
    from engine.eval.exact import Sequential
    from engine.runtime.cache import Caches
    from engine.runtime.context import RunContext
    from engine.runtime.inputs import bind_inputs

    rs = engine.load("chimera")
    rng = random.Random(3)
    for dice in (4, 5, 6):  # the caches fill with other inputs' solvers and tables
        for _ in range(20):
            rs.roll("skill", rng, policy="optimal", dice=dice, resolve=2)
    assert rs.caches.evaluators.bytes > 100_000
    check = rs.model.checks["skill"]
    env = bind_inputs(check, {"dice": 3, "resolve": 1})
    beside_full = approx_bytes((check, Sequential(check, env, RunContext(rs.limits, "optimal", rs.caches))))
    beside_empty = approx_bytes((check, Sequential(check, env, RunContext(rs.limits, "optimal", Caches()))))
    assert beside_full == beside_empty < 20_000
    rs.roll("skill", rng, policy="optimal", dice=3, resolve=1)
    kept = [k for k, _ in rs.caches.evaluators.items() if ("dice", 3) in k]
    assert len(kept) == 1
    first = rs.caches.evaluators.get(kept[0])
    rs.roll("skill", rng, policy="optimal", dice=3, resolve=1)
    assert rs.caches.evaluators.get(kept[0]) is first  # the same solver, not made again


def test_a_kept_optimal_solver_is_weighed_again_as_it_grows() -> None:
    """The optimal policy's exact evaluator is kept between rolls and learns as it is asked; the
    cache weighs it again once it has grown, so what it counts follows what it holds and the
    byte bound holds for it too (before, it stayed at its weight when empty: a few hundred bytes)."""
    rs = engine.load("chimera")
    rng = random.Random(7)
    for _ in range(60):
        rs.roll("skill", rng, policy="optimal", dice=6, resolve=2)
    evaluators = rs.caches.evaluators
    ((key, _),) = evaluators.items()
    held = approx_bytes(evaluators.get(key))
    assert held > 100_000  # it did learn: many states solved
    assert evaluators.bytes >= held // 2  # counted, not left at its empty weight

    small = engine.load("chimera", limits=engine.Limits(max_cache_bytes=BUDGET))
    for _ in range(60):
        small.roll("skill", rng, policy="optimal", dice=6, resolve=2)
        assert small.caches.evaluators.bytes <= small.caches.evaluators.max_bytes
        # between two weighings a solver grows by at most about a quarter (`_Roller.consulted`)
        kept = [v for _, v in small.caches.evaluators.items()]
        assert all(approx_bytes(v) <= 1.5 * small.caches.evaluators.max_bytes for v in kept)


def test_reweighing_drops_what_no_longer_fits() -> None:
    cache = BoundedCache(max_entries=4, max_bytes=10_000)
    grows: list[int] = []
    cache.put("a", "x", size=100)
    cache.put("grows", grows)
    grows.extend(range(200))  # about 200 * 28 + the list: well over 4 KB
    cache.reweigh("grows")
    assert cache.bytes == 100 + approx_bytes(grows) and cache.get("a") == "x"
    grows.extend(range(200, 2000))
    cache.reweigh("grows")  # now bigger than the whole cache: dropped, the rest kept
    assert cache.get("grows") is None and cache.get("a") == "x" and cache.bytes == 100


def test_putting_a_key_again_heavier_than_the_whole_cache_drops_it() -> None:
    """A key put again with a weight past the cache's bytes was left out, and its old entry kept
    at its old weight: a server weighing a kept ruleset again after a request (its caches grown)
    kept one heavier than its whole bound, counted as it was when first put."""
    cache = BoundedCache(max_entries=4, max_bytes=1_000)
    cache.put("a", "x", size=100)
    cache.put("b", "y", size=200)
    cache.put("a", "x", size=5_000)
    assert cache.get("a") is None and cache.get("b") == "y" and cache.bytes == 200
    cache.put("c", "z", size=5_000)  # a new key too heavy: not kept, nothing else changed
    assert [k for k, _ in cache.items()] == ["b"] and cache.bytes == 200


def test_what_a_cache_holds_is_read_as_a_copy_oldest_first_with_its_weights() -> None:
    """`items` and `weight` are how a caller (a test, a report) looks inside: a copy, so a later
    put does not change what was read, and the weight counted, which `bytes` adds up."""
    cache = BoundedCache(max_entries=2, max_bytes=10_000)
    cache.put("a", "x", size=100)
    cache.put("b", "y", size=200)
    seen = cache.items()
    assert seen == [("a", "x"), ("b", "y")]
    cache.put("c", "z", size=300)  # the oldest goes
    assert seen == [("a", "x"), ("b", "y")] and cache.items() == [("b", "y"), ("c", "z")]
    assert [cache.weight(k) for k in ("a", "b", "c")] == [None, 200, 300]
    assert cache.bytes == sum(cache.weight(k) or 0 for k, _ in cache.items())


def test_an_environment_is_weighed_entry_by_entry() -> None:
    """A flat dict of names to plain values and the model's own (a state's environment: 71
    entries in a Castle duel) is weighed at once, every entry counted, the model's values not,
    not walked from a sample."""
    import sys

    rs = engine.load("chill")
    outcome = rs.roll("specific", random.Random(1), target=55).outcome  # a Symbol of the model
    env: dict[str, object] = {f"v{i}": (i * 1000 if i % 3 else i % 2 == 0) for i in range(70)}
    env["outcome"] = outcome
    expected = sys.getsizeof(env) + sum(sys.getsizeof(k) for k in env)
    expected += sum(sys.getsizeof(v) for v in env.values() if v is not outcome)
    assert approx_bytes(env) == expected


def test_a_large_container_is_weighed_from_a_sample() -> None:
    """Weighing samples large containers (`SAMPLED` entries) and scales them up: the estimate stays
    within a tenth of the full walk, here and for a real distribution."""
    from engine.runtime import cache

    values = [{i: (i, str(i) * (i % 7), [i] * (i % 5))} for i in range(5000)]
    rs = engine.load("chill")
    dist = rs.distribution("specific", target=55)
    sampled = (approx_bytes(values), approx_bytes(dist))
    full_sample, cache.SAMPLED = cache.SAMPLED, 10**9
    try:
        full = (approx_bytes(values), approx_bytes(dist))
    finally:
        cache.SAMPLED = full_sample
    for s, f in zip(sampled, full):
        assert abs(s - f) <= f / 10, (s, f)


FOLDED = """\
rulecraft: 1
name: folded
bags:
  sack:
    chits: {red: 4, blue: 3, green: 2}
checks:
  tens:
    inputs:
      n: {type: int, min: 1, max: 60, default: 3}
    roll:
      p: {pool: n, die: 10}
    let:
      most: majority(p)
    outcomes: [low, high]
    outcome: "'high' if most > 5 else 'low'"
  sixes:
    inputs:
      n: {type: int, min: 1, max: 60, default: 3}
    roll:
      q: {pool: n, die: 6}
    let:
      total: sum(q)
      high: highest(q)
      sixes: count(q, 6)
    outcomes: [low, high]
    outcome: "'high' if total > 3 * n or high + sixes > 7 else 'low'"
  chits:
    roll:
      s: {draw: sack, count: 3}
    let:
      reds: count(s, 'red')
      top: highest(s)
    outcomes: [low, high]
    outcome: "'high' if reds > 1 or top == 'green' else 'low'"
"""


def test_a_folded_table_is_weighed_by_count_at_least_as_heavy_as_by_walking_it() -> None:
    """A table of a pool's (or draw's) statistics is weighed by counting its points
    (`tables._weigh_folded`), not by walking it: the count is never lighter than the walk, so the
    cache's bound still holds, and within three times of it."""
    from engine.eval import tables
    from engine.syntax.positions import SourceFile

    rs = engine.load_source(SourceFile("folded.yaml", FOLDED))
    for n in (1, 2, 5, 20, 60):
        rs.distribution("tens", n=n)
        rs.distribution("sixes", n=n)
    rs.distribution("chits")
    folded = [(k, v) for k, v in rs.caches.tables.items() if k[0] == "folded"]
    assert len(folded) == 11  # a pool of each die per n, and the draw
    for key, table in folded:
        counted, walked = rs.caches.tables.weight(key), approx_bytes(table)
        assert counted == tables._weigh_folded(table, len(key[3]))
        assert walked <= counted <= 3 * walked, (key, counted, walked)


def test_a_pool_made_at_run_time_is_weighed_though_its_type_is_the_models() -> None:
    """`Multi` and `Redrawn` live in `engine.model` but are made per request: an environment
    holding a tally's pool of 100,000 readings weighs at least its tuple, flat or walked; the
    readings themselves (a scale's members) are the model's and not counted."""
    import sys

    rs = engine.load("chill")
    outcome = rs.roll("specific", random.Random(1), target=55).outcome
    pool = Multi((outcome,) * 100_000)
    assert approx_bytes({"t": pool, "n": 1}) >= sys.getsizeof(pool.items)  # the flat path
    assert approx_bytes([pool]) >= sys.getsizeof(pool.items)  # the walk
    assert approx_bytes(pool) < sys.getsizeof(pool.items) + 10_000  # the readings not counted
    # a rolled pool's faces and readings of their own (thirds) are weighed on the flat path too
    thirds = Multi(tuple(Fraction(i, 3) for i in range(1_000)), faces=tuple(range(1_000)))
    held = sys.getsizeof(thirds.items) + sys.getsizeof(thirds.faces) + 1_000 * sys.getsizeof(Fraction(1, 3))
    assert approx_bytes({"p": thirds, "n": 1}) >= 0.8 * held, (approx_bytes({"p": thirds}), held)


@pytest.mark.parametrize(
    "name, check, inputs",
    [
        ("chill", "specific", lambda i: {"target": 1 + i // 3, "tokens": i % 3}),
        ("chthonian", "standard", lambda i: {"traits": i % 10, "difficulty": 1 + i // 10}),
    ],
)
def test_kept_bindings_count_what_they_hold(name: str, check: str, inputs: Any) -> None:
    """A bot's bindings under a small budget: each was counted at four times its inputs until its
    eighth kept roll, so a bot rolling each fewer times held seven times what the cache counted
    (2 MB past a 4 MB budget), and a trace's step counted the ruleset's whole text through its
    place in it (hunt 13zzd). What clearing them frees is now about what the cache counts."""
    rs = engine.load(name, limits=engine.Limits(max_cache_bytes=4_000_000))
    rng = random.Random(1)
    gc.collect()
    tracemalloc.start()
    try:
        for i in range(300):
            for _ in range(3):
                rs.roll(check, rng, **inputs(i))
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
        counted = rs.caches.bindings.bytes
        rs.caches.bindings.clear()
        rs._recent.clear()
        gc.collect()
        freed = held - tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert counted <= rs.caches.bindings.max_bytes
    assert 0.4 * counted <= freed <= 1.6 * counted, (counted, freed)


@pytest.mark.parametrize("budget", [8_000_000, None])
def test_a_played_scene_keeps_its_steps_weighed_by_what_they_hold(budget: int | None) -> None:
    """A scene's steps were weighed at the most they might grow to, the scenes' whole share: so
    two policies played in turn pushed each other out, and under a budget of about 20 MB no
    steps were kept at all (hunt 13zzd). Now they are weighed by what they hold as they grow:
    by default both policies' steps are kept; under 8 MB the last played, which fills the
    share; and clearing them frees no more than the cache counts (entries share parts of
    states, which each entry's weight counts again)."""
    limits = engine.Limits() if budget is None else engine.Limits(max_cache_bytes=budget)
    rs = engine.load("castle", limits=limits)
    rng = random.Random(1)
    gc.collect()
    tracemalloc.start()
    try:
        for i in range(60):
            rs.play_scene("duel", rng, policy=("always", "never")[i % 2])
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
        counted = rs.caches.scenes.bytes
        kept = {k[3]: min(len(s.looks), len(s.calls), len(s.afters)) for k, s in rs.caches.scenes.items()}
        rs.caches.scenes.clear()
        gc.collect()
        freed = held - tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    if budget is None:
        assert kept.keys() == {"always", "never"} and min(kept.values()) >= 50, kept
    else:
        assert kept.keys() == {"never"} and kept["never"] >= 5, kept
    assert counted <= rs.caches.scenes.max_bytes
    assert 0.25 * counted <= freed <= counted, (counted, freed)


def test_a_scene_played_after_others_filled_the_share_is_kept_too() -> None:
    """Steps that grew never pushed others out, so the first two policies played kept the
    share, and a third played after them kept nothing and played twice as slowly (review
    13zze): the scenes played least recently now go first."""
    rs = engine.load("castle")
    for policy in ("always", "never"):
        rs.sample_scenes("duel", 300, random.Random(1), policy=policy)
    for seed in range(20):
        rs.play_scene("duel", random.Random(seed), policy="optimal")
    kept = {k[3]: s for k, s in rs.caches.scenes.items()}
    assert "optimal" in kept and not kept["optimal"].full and len(kept["optimal"].looks) >= 50
    assert rs.caches.scenes.bytes <= rs.caches.scenes.max_bytes


def test_scene_steps_keep_no_more_than_the_share_and_play_the_same() -> None:
    """Steps that would outgrow the whole share keep what they hold (each play keeps what it
    meets besides for itself alone); the plays go on the same, seeded, as with room."""
    roomy = engine.load("castle")
    tight = engine.load("castle", limits=engine.Limits(max_cache_bytes=2_000_000))
    for seed in range(6):
        assert tight.play_scene("duel", random.Random(seed)) == roomy.play_scene("duel", random.Random(seed))
    ((_, steps),) = tight.caches.scenes.items()
    assert steps.full
    assert tight.caches.scenes.bytes == steps.weight() <= tight.caches.scenes.max_bytes
    looks = dict(steps.looks)
    assert tight.play_scene("duel", random.Random(99)) == roomy.play_scene("duel", random.Random(99))
    assert steps.looks == looks


def test_a_kept_solver_is_walked_again_only_when_its_work_has_doubled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Weighing a kept exact evaluator walked it whole at every quarter more work, about 1.5 ms
    however small: a quarter of the time of a stream of optimal rolls with distinct inputs (hunt
    13zzd). Now it is walked once its work has doubled since its last walk, and in between
    weighed as that walk scaled by the work since; what the cache counts stays near a walk's."""
    from engine.eval.exact import Sequential
    from engine.eval.sample import REWEIGH_WORK
    from engine.runtime import cache as cache_module

    walks: dict[int, list[int]] = {}
    estimates: list[int] = []
    real_walk, real_reweigh = cache_module.approx_bytes, BoundedCache.reweigh

    def walk(value: Any, cap: int = 200_000) -> int:  # the real walk, counted
        if type(value) is tuple and len(value) == 2 and type(value[1]) is Sequential:
            walks.setdefault(id(value[1]), []).append(value[1].weighed)
        return real_walk(value, cap)

    def reweigh(self: BoundedCache, key: Any, size: int | None = None) -> None:
        if size is None:
            return real_reweigh(self, key)
        estimates.append(size)
        return real_reweigh(self, key, size)

    monkeypatch.setattr(cache_module, "approx_bytes", walk)
    monkeypatch.setattr(BoundedCache, "reweigh", reweigh)
    rs = engine.load("chimera")
    rng = random.Random(5)
    for dice in (5, 6, 7):
        for _ in range(100):
            rs.roll("skill", rng, policy="optimal", dice=dice, resolve=3)
    monkeypatch.undo()
    assert len(walks) == 3 and estimates  # three evaluators, weighed between walks too
    for works in walks.values():
        assert works[0] == 0 and works[1] >= REWEIGH_WORK  # put empty, then walked after its first solve
        assert all(later >= 2 * earlier for earlier, later in zip(works[1:], works[2:])), works
    assert sum(len(works) >= 3 for works in walks.values()) >= 2, walks  # the doubling seen twice
    for key, (_, solver) in rs.caches.evaluators.items():
        counted, held = rs.caches.evaluators.weight(key), approx_bytes((None, solver))
        assert counted is not None and 0.6 * held <= counted <= 2 * held, (counted, held)


def test_a_kept_solver_with_little_work_is_counted_by_what_its_work_may_hold() -> None:
    """An evaluator that had done less than `REWEIGH_WORK` was never weighed again: counted at
    its weight when made, empty, a budget of 2 MB held three times what the cache counted of
    Chimera's contest solvers (review 13zze). Now each is counted, until its first walk, by what
    its first solve and its work may hold."""
    rs = engine.load("chimera", limits=engine.Limits(max_cache_bytes=BUDGET))
    rng = random.Random(3)
    gc.collect()
    tracemalloc.start()
    try:
        for npc_dice in (1, 2):
            for resolve in range(3):
                for advantage in range(3):
                    rs.roll(
                        "contest",
                        rng,
                        policy="optimal",
                        npc_dice=npc_dice,
                        resolve=resolve,
                        advantage=advantage,
                    )
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
        counted = rs.caches.evaluators.bytes
        never_walked = [v for _, v in rs.caches.evaluators.items() if not v[1].walked]
        rs.caches.evaluators.clear()
        gc.collect()
        freed = held - tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert never_walked and counted <= rs.caches.evaluators.max_bytes
    assert freed <= 1.2 * counted, (counted, freed)
