"""A loaded `Ruleset` is shared safely: its caches are its own, bounded, and correct under threads.

Eight threads rolling (the `optimal` policy included, which consults the exact solver the ruleset
keeps in its cache) and solving on one `Ruleset` must give exactly what one thread gives.
"""

from __future__ import annotations

import random
import threading
from typing import Any

import engine
from engine.runtime.cache import BoundedCache

REQUESTS: list[tuple[str, str, str, dict[str, Any]]] = [
    ("chimera", "skill", "optimal", {"dice": 4}),
    ("chimera", "skill", "optimal", {"dice": 5}),
    ("chimera", "skill", "always", {"dice": 6}),
    ("castle", "combat", "optimal", {"skill": "advantaged", "main_gauche": True, "riposte": True}),
    ("castle", "combat", "optimal", {"main_gauche": True}),
    ("chill", "specific", "always", {"target": 55}),
]


def _work(rulesets: dict[str, engine.Ruleset], seed: int) -> list[Any]:
    """Rolls and distributions in an order that depends on `seed`, keyed so results compare."""
    out: list[Any] = []
    order = list(range(len(REQUESTS)))
    random.Random(seed).shuffle(order)
    for i in order:
        name, check, policy, inputs = REQUESTS[i]
        rs = rulesets[name]
        dist = rs.distribution(check, policy=policy, **inputs)
        rolls = [rs.roll(check, random.Random(seed * 100 + k), policy=policy, **inputs) for k in range(15)]
        out.append(
            (i, tuple(dist.table()), tuple((r.outcome, tuple(sorted(r.drawn.items()))) for r in rolls))
        )
    return sorted(out)


def test_eight_threads_share_one_ruleset_and_agree_with_one_thread() -> None:
    fresh = {name: engine.load(name) for name in ("chimera", "castle", "chill")}
    expected = {seed: _work(fresh, seed) for seed in range(8)}
    shared = {name: engine.load(name) for name in ("chimera", "castle", "chill")}
    got: dict[int, list[Any]] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def run(seed: int) -> None:
        try:
            start.wait()
            got[seed] = _work(shared, seed)
        except BaseException as exc:  # noqa: BLE001 - reported below, with the thread's seed
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(seed,)) for seed in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert got == expected


def test_a_rulesets_caches_stay_within_their_bounds() -> None:
    rs = engine.load("chill")
    bound = rs.caches.distributions.max_entries
    for target in range(1, bound + 60):
        rs.distribution("specific", target=target % 120 + 1, tokens=target // 120)
    assert len(rs.caches.distributions) <= bound
    assert len(rs.caches.bindings) <= rs.caches.bindings.max_entries
    assert len(rs.caches.tables) <= rs.caches.tables.max_entries


def test_each_ruleset_has_caches_of_its_own() -> None:
    a, b = engine.load("chill"), engine.load("chill")
    a.distribution("specific", target=40)
    assert len(a.caches.distributions) == 1 and len(b.caches.distributions) == 0


def test_bounded_cache_drops_the_oldest_entry() -> None:
    cache = BoundedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("c", 3)
    assert cache.get("a") is None and cache.get("b") == 2 and cache.get("c") == 3
    assert len(cache) == 2
    assert cache.get(["unhashable"]) is None  # never an error
