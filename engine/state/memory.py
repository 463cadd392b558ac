"""A store that keeps campaigns in memory: for a ruleset's own state examples, for one-off
questions, and for embedders that keep nothing on disk. The same interface and guarantees as the
SQLite store within one process (a lock serialises transactions; a failed one keeps nothing)."""

from __future__ import annotations

import threading
from bisect import bisect_left, bisect_right, insort
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from ..errors import CampaignError, Diagnostic
from ..frozen import FrozenDict, frozen_json, replace
from .records import (
    HINT_SIDE,
    WHOLE,
    Event,
    Header,
    Near,
    State,
    Window,
    asked_name,
    near_hint,
    near_names,
)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class MemoryStore:
    """Campaigns in a dict; nothing outlives the object."""

    path = "memory"

    def __init__(self) -> None:
        self._headers: dict[str, Header] = {}
        self._events: dict[str, list[Event]] = {}
        self._sorted: list[str] = []
        """The names by code point: a page of them, or an unknown name's neighbours, is found by
        bisection, where sorting every name for each took 0.3 s at 100,000 campaigns."""
        self._lock = threading.RLock()

    def create(self, header: Header, state: State) -> Event:
        with self._lock:
            if header.name in self._headers:
                raise CampaignError(
                    [
                        Diagnostic(
                            "RC902",
                            f"a campaign named '{header.name}' already exists",
                            None,
                            "choose another name",
                        )
                    ]
                )
            first = Event(1, "new", FrozenDict(), frozen_json(state), None, _now())
            self._headers[header.name] = header
            self._events[header.name] = [first]
            insort(self._sorted, header.name)
            return first

    def names(self, after: str | None = None, limit: int | None = None) -> list[tuple[str, str, int]]:
        with self._lock:
            start = 0 if after is None else bisect_right(self._sorted, after)
            page = self._sorted[start:] if limit is None else self._sorted[start : start + limit]
            return [(n, self._headers[n].ruleset, len(self._events[n])) for n in page]

    def header(self, name: str) -> Header:
        self._known(name)
        return self._headers[name]

    def events(self, name: str, window: Window = WHOLE) -> list[Event]:
        self._known(name)
        return window.take(self._events[name])

    def last(self, name: str) -> Event:
        self._known(name)
        return self._events[name][-1]

    @contextmanager
    def transaction(self, name: str) -> Iterator[_Transaction]:
        with self._lock:
            self._known(name)
            tx = _Transaction(self, name)
            yield tx
            self._events[name].extend(tx.added)
            if tx.new_header is not None:
                self._headers[name] = tx.new_header

    def close(self) -> None:
        return None

    def _known(self, name: str) -> None:
        if name not in self._headers:
            raise CampaignError(
                [
                    Diagnostic(
                        "RC901", f"no campaign '{asked_name(name)}'", None, near_hint(name, self._near(name))
                    )
                ],
                missing=True,
            )

    def _near(self, name: str) -> Near:
        """The names the unknown campaign `name`'s hint weighs (`records.near_names`), found by
        bisection: a bounded number, however many campaigns there are."""

        def side(anchor: str, before: bool) -> list[str]:
            if before:
                at = bisect_left(self._sorted, anchor)
                return self._sorted[max(0, at - HINT_SIDE - 1) : at][::-1]
            at = bisect_right(self._sorted, anchor)
            return self._sorted[at : at + HINT_SIDE + 1]

        return near_names(name, side, lambda names: [n for n in names if n in self._headers])


class _Transaction:
    """Appends are kept aside and added only when the block ends without an error."""

    def __init__(self, store: MemoryStore, name: str) -> None:
        self.store = store
        self.name = name
        self.added: list[Event] = []
        self._joined: list[Event] | None = None
        self.new_header: Header | None = None

    def header(self) -> Header:
        return self.new_header or self.store._headers[self.name]

    def events(self, window: Window = WHOLE) -> list[Event]:
        kept = self.store._events[self.name]
        if not self.added:
            return window.take(kept)
        if self._joined is None:  # made once per append, not once per page an undo reads
            self._joined = [*kept, *self.added]
        return window.take(self._joined)

    def last(self) -> Event:
        return self.added[-1] if self.added else self.store._events[self.name][-1]

    def append(self, kind: str, data: Mapping[str, Any], state: State, undoes: int | None = None) -> Event:
        # kept read-only all the way down, a copy of what is given: the event kept is the one
        # every reader is handed (a deep copy kept, and handed out to be changed, before 12g)
        event = Event(self.last().seq + 1, kind, frozen_json(dict(data)), frozen_json(state), undoes, _now())
        self.added.append(event)
        self._joined = None
        return event

    def replace_ruleset(self, ruleset_hash: str, ruleset_text: str) -> None:
        self.new_header = replace(self.header(), ruleset_hash=ruleset_hash, ruleset_text=ruleset_text)
