"""What a campaign store keeps, as plain data, and the interface every store offers.

A campaign is a header (its name, the ruleset it plays and that ruleset's text and content hash,
the parameters it was made with) and an append-only log of events, each with the whole state
after it. The current state is the last event's. Nothing is ever deleted: an undo is an event.
Everything here is JSON-ready, so a store needs no knowledge of rulesets.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

State = dict[str, Any]
"""{"shared": {item: value}, "characters": {name: {item: value}}}: counters are ints, tallies
{member: count}; JSON-ready."""


@dataclass(frozen=True)
class Header:
    """A campaign as made: never changed afterwards, except the ruleset by an explicit migration."""

    name: str
    ruleset: str
    """The ruleset as it was named when the campaign was made: a shipped name or a path."""
    ruleset_hash: str
    """sha256 of the ruleset's text, hex: a changed ruleset is detected before any action."""
    ruleset_text: str
    params: Mapping[str, Any] = field(default_factory=dict)
    created: str = ""
    """ISO 8601 time, UTC."""


@dataclass(frozen=True)
class Event:
    """One entry of the log: what happened and the whole state after it.

    `kind` is "new" (the first event: the starting state), "action", "period" (a period begins
    or ends and resets what it resets), "undo" (`undoes` is the seq of the event reversed; the
    state is the one before it), or "migrate" (the ruleset was replaced on purpose). `data` holds
    the rest: action, character, inputs, seed, policy, dice drawn, outcome, effects applied."""

    seq: int
    kind: str
    data: Mapping[str, Any]
    state: State
    undoes: int | None = None
    at: str = ""


class Transaction(Protocol):
    """One atomic change to one campaign: everything read inside it is current, and either every
    append is kept or none (an exception, a crash or a kill keeps none)."""

    def header(self) -> Header: ...

    def events(self) -> list[Event]: ...

    def last(self) -> Event: ...

    def append(self, kind: str, data: Mapping[str, Any], state: State, undoes: int | None = None) -> Event:
        """Add an event after the last one; its `seq` is one more than the last's."""
        ...

    def replace_ruleset(self, ruleset_hash: str, ruleset_text: str) -> None:
        """Point the campaign at a changed ruleset (a migration, recorded by the caller as an event)."""
        ...


STORE_METHODS = ("create", "names", "header", "events", "transaction", "close")
"""What a campaign store offers (`Store`): what the API checks a caller's store has."""


class Store(Protocol):
    """Where campaigns live. SQLite is the embedded default; another database implements the same
    few methods, and nothing about rules changes."""

    def create(self, header: Header, state: State) -> Event:
        """A new campaign with its first event ("new"); `CampaignError` RC902 if the name is taken."""
        ...

    def names(self) -> list[tuple[str, str, int]]:
        """Every campaign: (name, ruleset, number of events)."""
        ...

    def header(self, name: str) -> Header:
        """`CampaignError` RC901 (with the nearest name) if there is no such campaign."""
        ...

    def events(self, name: str) -> list[Event]:
        """The whole log, oldest first."""
        ...

    def transaction(self, name: str) -> AbstractContextManager[Transaction]:
        """Exclusive for writing: a second writer waits for the first to finish (up to a timeout,
        then `CampaignError` RC903 "locked")."""
        ...

    def close(self) -> None: ...
