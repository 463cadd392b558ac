"""Caches that belong to one loaded ruleset: bounded in entries and in bytes, oldest entry out
first, and safe to share between threads. Nothing in rulecraft memoises results process-wide."""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from ..frozen import FrozenDict, field, field_names, frozen
from ..model.values import Multi, Redrawn

V = TypeVar("V")

MB = 1 << 20
DEFAULT_CACHE_BYTES = 256 * MB
"""What one ruleset's caches may hold together unless the embedder says otherwise
(`Limits.max_cache_bytes`)."""


_MODEL = __name__.rsplit(".", 2)[0] + ".model"
_SOURCE = __name__.rsplit(".", 2)[0] + ".syntax.positions"
"""Where a place in the ruleset's text is (`Span`, `SourceFile`): a trace's step refers to it,
and through it to the whole text, which the ruleset holds and no cached value does."""
_MADE = frozenset({Multi, Redrawn})
"""The model's types whose values are made as requests run, each the cache's own to weigh."""


SAMPLED = 16
"""A container with more entries than this is weighed from an even sample of about this many of
them, scaled up: a distribution's hundred or thousand points cost as much to weigh as sixteen."""

GROW_SHARE = 0.75
"""The most of a cache's bytes a value that grows in place may fill (`BoundedCache.grow`): the
rest is left for new entries, so that a full cache of growing values does not push out one of
them for every new one."""

_LEAVES = frozenset({int, str, float, bool, type(None), bytes})

FLAT = 256
"""A dict of at most this many entries, each a name to a plain value or the model's own, is
weighed entry by entry at once, without the walk: a request's inputs, and a state's environment
(tens of entries), which a scene's solve keeps, and so weighs, hundreds of times."""


CODE_BYTES = 12
TEXT_BYTES = 40
"""What a compiled ruleset holds, per character of the Python its compile wrote and of its text
(`compiled_bytes`)."""


def compiled_bytes(code: int, text: int) -> int:
    """About how much memory a compiled ruleset holds, from the characters of Python its compile
    wrote (`RulesetModel.code`: its functions and their namespace) and of its text (its document,
    every value with its place). A ruleset's model is not walked (`approx_bytes` leaves it out, as
    the ruleset's own): its weight follows its code, which can grow far faster than its text (6 KB
    of values each reading the one before compile to 6 million characters). The two rates are at
    or above what each ruleset measured added to a process's resident memory: the shipped four
    (0.4-4.5 MB), 100, 700 and 2,000 small checks (0.6-50 MB), and chains of 100 to 300 such
    values (2-21 MB)."""
    return CODE_BYTES * code + TEXT_BYTES * text


def approx_bytes(value: Any, cap: int = 200_000) -> int:
    """About how much memory `value` holds: containers, dataclasses and objects walked to their
    leaves, each object counted once, a large container weighed from an even sample of its
    entries (`SAMPLED`), the walk stopped after `cap` objects (the rest estimated from what was
    seen). Cheap next to the work that made a cached value: weighing every point of every kept
    distribution once took most of the time of a sweep of distributions."""
    if (type(value) is dict or type(value) is FrozenDict) and len(value) <= FLAT:  # inputs, an env
        total = sys.getsizeof(value)
        for k, v in value.items():
            if type(k) not in _LEAVES:
                break
            total += sys.getsizeof(k)
            if type(v) in _LEAVES:
                total += sys.getsizeof(v)
            elif type(v) is Multi and v.history is None and v.faces is None and _plain(v.items):
                # a tally's pool: its tuples (its readings a scale's members or small numbers)
                total += sys.getsizeof(v) + sys.getsizeof(v.items) + sys.getsizeof(v.tally or ())
            elif not _shared(v):  # the model's own (a choice): not counted
                break
        else:
            return total
    seen: set[int] = set()
    stack: list[tuple[Any, int]] = [(value, 1)]
    total = 0
    walked = 0
    while stack and walked < cap:
        v, scale = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        walked += 1
        if type(v) in _LEAVES:  # the most common objects, counted at once
            total += sys.getsizeof(v) * scale
            continue
        if _shared(v):
            continue  # the ruleset's own immutable model (a scale's member, a check): not the cache's
        if (type(v) is Caches or type(v) is BoundedCache) and v is not value:
            continue  # a cache a value refers to (an exact evaluator's context) holds it: not its own
        total += sys.getsizeof(v, 64) * scale
        if isinstance(v, (str, bytes, int, float, bool, type(None))):
            continue
        if isinstance(v, dict):
            _push(stack, list(v.keys()), scale)
            _push(stack, list(v.values()), scale)
        elif isinstance(v, (list, tuple)):
            _push(stack, v, scale)
        elif isinstance(v, (set, frozenset)):
            _push(stack, list(v), scale)
        elif (names := field_names(v)) is not None:
            stack.extend((getattr(v, name, None), scale) for name in names)
        elif hasattr(v, "__dict__") and not callable(v):
            stack.extend((x, scale) for x in vars(v).values())
        elif hasattr(v, "__slots__"):
            stack.extend((getattr(v, s, None), scale) for s in v.__slots__ if isinstance(s, str))
    if stack:  # stopped early: scale what was seen up to what was left
        total += total // max(walked, 1) * sum(scale for _, scale in stack)
    return total


def _plain(items: tuple[Any, ...]) -> bool:
    """Whether a pool's readings, judged by its first, hold nothing of their own to weigh (a
    scale's members, whole numbers): others (fractions) are walked."""
    return not items or type(items[0]) is int or _shared(items[0])


def _shared(value: Any) -> bool:
    """Whether `value` is the ruleset's own immutable model, which every cache shares and none
    holds: a model type's instance, but for the values made at run time (a pool, a redraw), which
    a cached environment holds alone (a tally of 100,000 chits is a pool of 100,000 readings);
    or a place in the ruleset's text (a 170 KB text was counted in every kept binding whose
    trace names an outcome rule's row: hunt 13zzd)."""
    kind = type(value)
    module = kind.__module__
    return (module.startswith(_MODEL) and kind not in _MADE) or module == _SOURCE


def _push(stack: list[tuple[Any, int]], items: Any, scale: int) -> None:
    """Every entry of `items`, or an even sample of them standing for the rest."""
    n = len(items)
    if n <= SAMPLED:
        stack.extend((x, scale) for x in items)
        return
    step = n // SAMPLED
    stack.extend((items[i], scale * step) for i in range(0, step * SAMPLED, step))
    stack.extend((items[i], scale) for i in range(step * SAMPLED, n))  # the few left over


class BoundedCache:
    """A map of at most `max_entries` entries holding at most about `max_bytes` (each value
    weighed by `approx_bytes` when it is put, and again by `reweigh` if it grows); the oldest goes
    first (put longest ago, or, for a caller that `touch`es what it uses, used longest ago).
    Reads take no lock (one dictionary read is atomic), writes do, so a hit stays as quick as a
    dict lookup. A value too big for the whole cache is not kept at all."""

    def __init__(self, max_entries: int, max_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._data: OrderedDict[Hashable, Any] = OrderedDict()
        self._sizes: dict[Hashable, int] = {}
        self.bytes = 0
        self._lock = threading.Lock()
        self.lookup: Callable[[Hashable], Any] = self._data.get
        """`get` for a caller on a hot path: one dictionary read, and a `TypeError` for an
        unhashable key (which `get` turns into None)."""
        self.recent: dict[Hashable, Any] = {}
        """A hot caller's memo of values this cache holds, found by a cheaper key of its own
        (`Ruleset.roll`'s rollers by check): emptied whenever an entry leaves the cache, so it
        never keeps what the cache let go, and bounded by the caller in entries."""

    def get(self, key: Hashable) -> Any:
        """The value for `key`, or None (also for an unhashable key)."""
        try:
            return self._data.get(key)
        except TypeError:
            return None

    def put(self, key: Hashable, value: Any, size: int | None = None) -> None:
        """Keep `value` under `key`; `size` overrides the estimate (in bytes)."""
        try:
            hash(key)
        except TypeError:
            return
        weight = approx_bytes(value) if size is None else size
        if weight > self.max_bytes:  # not kept: nor what the key held (weighed again, it has grown)
            with self._lock:
                if key in self._data:
                    del self._data[key]
                    self.bytes -= self._sizes.pop(key)
                    self.recent.clear()
            return
        with self._lock:
            if key in self._data:
                self.bytes -= self._sizes.pop(key)
                del self._data[key]
                self.recent.clear()
            self._data[key] = value
            self._sizes[key] = weight
            self.bytes += weight
            if len(self._data) > self.max_entries or self.bytes > self.max_bytes:
                self._fit()  # a call only when something must go: every request puts its answer

    def reweigh(self, key: Hashable, size: int | None = None) -> None:
        """Weigh the value under `key` again (it has grown since it was put: a kept solver), and
        drop the oldest entries — itself too, if it no longer fits — until the cache fits. The
        caller must keep the value from changing while it is weighed; `size` overrides the
        estimate (a value that knows how it grew since it was last walked)."""
        value = self.get(key)
        if value is None:
            return
        weight = approx_bytes(value) if size is None else size
        with self._lock:
            if self._data.get(key) is not value:
                return  # replaced or dropped meanwhile
            self.bytes += weight - self._sizes[key]
            self._sizes[key] = weight
            if weight > self.max_bytes:
                del self._data[key]
                self.bytes -= self._sizes.pop(key)
                self.recent.clear()
            self._fit()

    def _fit(self) -> None:
        """Drop the oldest entries until the cache fits (under the lock); `recent` forgets all
        when any goes."""
        if len(self._data) > self.max_entries or self.bytes > self.max_bytes:
            self.recent.clear()
            while len(self._data) > self.max_entries or self.bytes > self.max_bytes:
                old, _ = self._data.popitem(last=False)
                self.bytes -= self._sizes.pop(old)

    def grow(self, key: Hashable, value: Any) -> bool:
        """Weigh `value`, which has grown, under `key` again — putting it back if the cache let
        it go meanwhile (it is in use) — only if the cache then holds at most `GROW_SHARE` of its
        bytes, so that growing never pushes another entry out and leaves room for new ones;
        False, changing nothing, when it does not fit so (or another value took its key). A
        bot rolling against more targets than the cache holds would otherwise push bindings
        out and make them again in turn, each push forgetting every recent roller."""
        weight = approx_bytes(value)
        with self._lock:
            held = self._data.get(key)
            if held is not value and (held is not None or len(self._data) >= self.max_entries):
                return False
            was = self._sizes[key] if held is value else 0
            if self.bytes + weight - was > self.max_bytes * GROW_SHARE:
                return False
            self._data[key] = value
            self._sizes[key] = weight
            self.bytes += weight - was
            return True

    def hold(self, key: Hashable, value: Any, size: int) -> bool:
        """Keep `value` under `key` at `size` bytes as the newest entry (put back if the cache let
        it go meanwhile: it is in use), the oldest others going to make room; False, changing
        nothing, when `size` is more than the whole cache holds. For a value that grows as it
        is used and is the one to keep (a scene's steps, played now), unlike `grow`'s."""
        if size > self.max_bytes:
            return False
        with self._lock:
            if self._data.get(key) is value:  # the common case: held, weighed again
                self._data.move_to_end(key)
                self.bytes += size - self._sizes[key]
                self._sizes[key] = size
                if self.bytes > self.max_bytes:
                    self._fit()
                return True
        self.put(key, value, size)
        return True

    def touch(self, key: Hashable) -> None:
        """Make the entry under `key`, if any, the newest: used now, it is the last to go."""
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)

    def get_or_make(self, key: Hashable, make: Callable[[], V], weigh: Callable[[V], int] | None = None) -> V:
        """The cached value, or `make()` stored under `key` (two threads may both make it once);
        `weigh` says what a value holds when its kind knows better than `approx_bytes`."""
        found = self.get(key)
        if found is None:
            found = make()
            self.put(key, found, None if weigh is None else weigh(found))
        return found  # type: ignore[no-any-return]

    def items(self) -> list[tuple[Hashable, Any]]:
        """What the cache holds now, oldest first: a copy, for a caller that looks (a test, a
        report), never a view a writer could change under it."""
        with self._lock:
            return list(self._data.items())

    def weight(self, key: Hashable) -> int | None:
        """The bytes the cache counts for `key` (as weighed when put or reweighed), or None."""
        return self._sizes.get(key)

    def __len__(self) -> int:
        return len(self._data)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._sizes.clear()
            self.recent.clear()
            self.bytes = 0


_SHARES = {
    "tables": (1024, 0.2),
    "distributions": (1024, 0.2),
    "evaluators": (64, 0.2),
    "bindings": (4096, 0.15),
    "environments": (8192, 0.15),
    "scenes": (8, 0.1),
}
"""Each part's most entries and its share of the bytes. The bindings keep each check's rolls of
plain dice (`sample.Ready`): about 240 kB (as weighed) for the 100 rolls of a percentile check
of two d10 with eight values, traced and untraced, so their share keeps a bot's rolls of such a
check against 120 different inputs in turn."""


def _part(name: str) -> Any:
    entries, share = _SHARES[name]
    return field(default_factory=lambda: BoundedCache(entries, int(DEFAULT_CACHE_BYTES * share)))


@frozen
class Caches:
    """Everything one `Ruleset` remembers between requests, each part bounded in entries and in
    bytes; together at most `max_bytes` (`Caches.within(n)` sizes them for a budget of n)."""

    tables: BoundedCache = _part("tables")
    """Per-randomizer exact tables (a pool's multisets or statistics, a bag's draws)."""
    distributions: BoundedCache = _part("distributions")
    """Whole exact distributions, by check, policy and inputs."""
    evaluators: BoundedCache = _part("evaluators")
    """Die-by-die exact evaluators kept for the optimal policy's decisions while rolling, and a
    scene's optimal decisions."""
    bindings: BoundedCache = _part("bindings")
    """Checked inputs, by check and the inputs as given, with the rolls they keep."""
    environments: BoundedCache = _part("environments")
    """What expressions see in a lasting state, by the parts of the state they read (scenes)."""
    scenes: BoundedCache = _part("scenes")
    """What a played scene keeps per state (`scenes.play.Steps`), by scene, cast and policy."""

    @classmethod
    def within(cls, max_bytes: int) -> Caches:
        """Caches that hold about `max_bytes` together, shared out as the defaults are."""
        return cls(
            **{
                name: BoundedCache(entries, max(int(max_bytes * share), 1))
                for name, (entries, share) in _SHARES.items()
            }
        )

    def bytes(self) -> int:
        """About how much the caches hold now, as weighed when each value was put."""
        return sum(getattr(self, name).bytes for name in _SHARES)
