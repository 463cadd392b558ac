"""What a scene played many times keeps between its plays: per state, everything that does not
depend on the dice (kept in the ruleset's caches, weighed by what it holds as it grows)."""

from __future__ import annotations

import json
from collections import ChainMap
from collections.abc import Callable, Mapping, MutableMapping
from functools import partial
from typing import Any

from ..model.scene import Scene
from ..runtime.cache import approx_bytes
from ..runtime.context import RunContext
from ..runtime.state import State

After = tuple[State, str, list[dict[str, Any]], int]
"""A state after a roll's values (or a period's beginning), its key, the changes that made it, and
the characters, as JSON, of what a trace entry of that step shows that no roll changes (its
action, party, roles, inputs and effects, or its period and effects)."""


class Steps:
    """What a scene's steps give that does not depend on the dice, kept by state (as canonical
    JSON) so that a scene played many times works it out once: each state's view and ending, each
    step's action, inputs and check (or its refusal), and the state after each roll's values (or
    after a period's beginning, which rolls nothing). The dice are still rolled every time, so a
    seeded scene plays exactly as without it. A part is cleared when it grows past its share of
    `limit`: `limit` views, four times as many steps (a state takes each step of the round) and
    twice as many states after a roll or a beginning.

    Weighed by what it holds, as it grows: each part's entries count at the mean weight of those
    of its entries that were walked (`approx_bytes`: its 1st, 2nd, 4th, 8th ... kept), and every
    keep weighs the whole again in the cache that holds it (`weigh`: counts times means, no walk)
    as its newest entry, the scenes played least recently going first to make room. Steps that
    would outgrow the whole share keep what they hold (`full`), and each play of them keeps what
    it meets besides for itself alone (`overlay`). Weighed once at the most it might grow to, it
    filled the scenes' whole share, so one scene, cast and policy was kept at a time, and none
    under a budget of about 20 MB (hunt 13zzd)."""

    def __init__(self, limit: int = 1024) -> None:
        self.limit = limit
        self.looks: MutableMapping[str, tuple[dict[str, Any], str | None]] = {}
        self.calls: MutableMapping[tuple[str, int, bool], Any] = {}
        self.afters: MutableMapping[Any, After] = {}
        self.most = {"looks": limit, "calls": 4 * limit, "afters": 2 * limit}
        self.kept = dict.fromkeys(self.most, 0)
        """How many entries each part has kept, ever: its entries are walked at powers of two."""
        self.walked = dict.fromkeys(self.most, (0, 0))
        """Per part, how many of its entries were walked, and their bytes together."""
        self.base = 0
        """What the steps weigh empty."""
        self.weigh: Callable[[int], bool] | None = None
        """Weigh this at the given bytes in the cache that holds it, as its newest entry; False,
        changing nothing, when that is more than the whole cache holds."""
        self.full = False
        """Whether the cache could not hold more: no new entry is kept here."""

    def keep(self, name: str, key: Any, value: Any) -> None:
        """Keep `value` under `key` in the part called `name`, emptied first when it is full, if
        the cache that holds these steps can hold it."""
        part = getattr(self, name)
        if self.full and key not in part:
            return
        if len(part.maps[0] if type(part) is ChainMap else part) >= self.most[name]:
            part.clear()  # an overlay's own entries only: a ChainMap's len would list every key
        part[key] = value
        if self.weigh is None:
            return
        kept = self.kept[name] = self.kept[name] + 1
        was = self.walked[name]
        if kept & (kept - 1) == 0:
            self.walked[name] = (was[0] + 1, was[1] + approx_bytes((key, value)))
        if not self.weigh(self.weight()):
            part.pop(key, None)
            self.walked[name] = was  # as the cache counts it: without the entry let go
            self.full = True

    def weight(self) -> int:
        """About what these steps hold: each part's entries at the mean of those walked."""
        walked = self.walked
        total = self.base
        for name, part in (("looks", self.looks), ("calls", self.calls), ("afters", self.afters)):
            count, held = walked[name]
            if count:
                total += len(part) * held // count
        return total

    def overlay(self) -> Steps:
        """Steps for one play of these full ones: what they hold, and what the play meets besides
        kept apart, for it alone (let go with it, so no cache counts it)."""
        over = Steps(self.limit)
        over.looks = ChainMap({}, self.looks)
        over.calls = ChainMap({}, self.calls)
        over.afters = ChainMap({}, self.afters)
        over.most = self.most
        return over


STEP_BYTES = 32 * 1024
"""About what `Steps` holds at most per unit of its `limit`: a view (about 9 KB), four steps'
calls (about 2 KB each: the action, its inputs and the check's `Ready`, whose values and steps
known before the roll are worked out at its first roll) and two states after a roll (about 10 KB
each). The cache's budget over it bounds `limit`, the entries a part keeps."""


def steps_of(scene: Scene, cast: Mapping[str, str], ctx: RunContext) -> Steps:
    """The ruleset's `Steps` for this scene and cast (in the ruleset's caches, weighed by what
    it holds as it grows, so the cache's byte bound holds; the scenes played least recently go
    first)."""
    key = ("scene steps", scene.name, tuple(sorted(cast.items())), ctx.policy)
    cache = ctx.caches.scenes
    found: Steps | None = cache.get(key)
    if found is None:
        found = Steps(limit=max(64, cache.max_bytes // STEP_BYTES))
        found.base = approx_bytes(found)
        # the same scene and cast under another policy: the weights of its entries stand for
        # these (no walks to learn them again: two policies that do not both fit the share push
        # each other out at every play)
        for other, steps in cache.items():
            if isinstance(other, tuple) and other[:3] == key[:3] and isinstance(steps, Steps):
                found.kept, found.walked = dict(steps.kept), dict(steps.walked)
                break
        cache.put(key, found, size=found.base)
        found.weigh = partial(cache.hold, key, found)
    else:
        cache.touch(key)  # played now: the last to go
    return found.overlay() if found.full else found


def state_key(state: Mapping[str, Any]) -> str:
    """A state as canonical JSON: equal states, equal keys."""
    return json.dumps(state, sort_keys=True)
