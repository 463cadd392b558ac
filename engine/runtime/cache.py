"""Caches that belong to one loaded ruleset: bounded, oldest entry out first, and safe to share
between threads. Nothing in rulecraft memoises results process-wide."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, TypeVar

V = TypeVar("V")


class BoundedCache:
    """A map of at most `max_entries` entries; the oldest goes first. Reads take no lock (one
    dictionary read is atomic), writes do, so a hit stays as quick as a dict lookup."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self._data: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Any:
        """The value for `key`, or None (also for an unhashable key)."""
        try:
            return self._data.get(key)
        except TypeError:
            return None

    def put(self, key: Hashable, value: Any) -> None:
        try:
            with self._lock:
                self._data[key] = value
                while len(self._data) > self.max_entries:
                    self._data.popitem(last=False)
        except TypeError:
            return

    def get_or_make(self, key: Hashable, make: Callable[[], V]) -> V:
        """The cached value, or `make()` stored under `key` (two threads may both make it once)."""
        found = self.get(key)
        if found is None:
            found = make()
            self.put(key, found)
        return found  # type: ignore[no-any-return]

    def __len__(self) -> int:
        return len(self._data)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


@dataclass(frozen=True)
class Caches:
    """Everything one `Ruleset` remembers between requests, each part bounded."""

    tables: BoundedCache = field(default_factory=lambda: BoundedCache(1024))
    """Per-randomizer exact tables (a pool's multisets or statistics, a bag's draws)."""
    distributions: BoundedCache = field(default_factory=lambda: BoundedCache(1024))
    """Whole exact distributions, by check, policy and inputs."""
    evaluators: BoundedCache = field(default_factory=lambda: BoundedCache(64))
    """Die-by-die exact evaluators kept for the optimal policy's decisions while rolling."""
    bindings: BoundedCache = field(default_factory=lambda: BoundedCache(4096))
    """Checked inputs, by check and the inputs as given."""
    environments: BoundedCache = field(default_factory=lambda: BoundedCache(8192))
    """What expressions see in a lasting state, by the parts of the state they read (scenes)."""
