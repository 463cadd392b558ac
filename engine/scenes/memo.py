"""What a scene played many times keeps between its plays: per state, everything that does not
depend on the dice (kept in the ruleset's caches, weighed at the most it may grow to)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..model.scene import Scene
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
    twice as many states after a roll or a beginning."""

    def __init__(self, limit: int = 1024) -> None:
        self.limit = limit
        self.looks: dict[str, tuple[dict[str, Any], str | None]] = {}
        self.calls: dict[tuple[str, int, bool], Any] = {}
        self.afters: dict[Any, After] = {}
        self.most = {"looks": limit, "calls": 4 * limit, "afters": 2 * limit}

    def keep(self, name: str, key: Any, value: Any) -> None:
        """Keep `value` under `key` in the part called `name`, emptied first when it is full."""
        part: dict[Any, Any] = getattr(self, name)
        if len(part) >= self.most[name]:
            part.clear()
        part[key] = value


STEP_BYTES = 32 * 1024
"""About what `Steps` holds at most per unit of its `limit`: a view (about 6 KB), four steps'
calls (about 3 KB each: the action, its inputs and the check's `Ready`, whose values and steps
known before the roll are worked out at its first roll) and two states after a roll (about 7 KB
each)."""


def steps_of(scene: Scene, cast: Mapping[str, str], ctx: RunContext) -> Steps:
    """The ruleset's `Steps` for this scene and cast (in the ruleset's caches, weighed at the
    most it may grow to, so the cache's byte bound holds)."""
    key = ("scene steps", scene.name, tuple(sorted(cast.items())), ctx.policy)
    cache = ctx.caches.scenes
    found: Steps | None = cache.get(key)
    if found is None:
        found = Steps(limit=max(64, cache.max_bytes // STEP_BYTES))
        cache.put(key, found, size=found.limit * STEP_BYTES)
    return found


def state_key(state: Mapping[str, Any]) -> str:
    """A state as canonical JSON: equal states, equal keys."""
    return json.dumps(state, sort_keys=True)
