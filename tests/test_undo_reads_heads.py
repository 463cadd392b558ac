"""An undo reads what it needs of the log: each event's number, kind and `undoes` as it looks back,
and then the one state it restores; a change and a reader of the state now read the newest
event's state, not its data. A scene's data holds its trace, megabytes of JSON for a long one:
an undo over 8 such events decoded every one of them under the store's write lock (6.6 s, and
another campaign's write waited; with 19, past the server's deadline), and each `show` decoded
the newest (1.4 s). Counted here as the JSON text a store decodes, not timed."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine.state import sql as sql_module
from engine.state.memory import MemoryStore
from engine.state.records import Store, Window
from tests.test_log_pages import COUNT  # the counting ruleset the log's pages are read on

BIG = 300_000
"""Characters of each big event's data: far more than anything else an undo reads."""


@pytest.fixture
def store(any_store: Store) -> Store:
    """Every kind of store (`conftest.any_store`)."""
    return any_store


@pytest.fixture
def decoded(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of each JSON text a SQL store decodes from a column (its one reader of them)."""
    seen: list[int] = []
    real = sql_module.json_object

    def counting(text: object) -> Any:
        seen.append(len(text) if isinstance(text, str | bytes) else 0)
        return real(text)

    monkeypatch.setattr(sql_module, "json_object", counting)
    return seen


def big_campaign(store: Store, events: int = 4) -> engine.Campaign:
    """A campaign whose log holds a tick, then `events` actions with big data each (as a scene's
    trace is), each adding one."""
    campaign = engine.new_campaign("c", COUNT, store=store)
    campaign.act("tick")
    for i in range(events):
        with store.transaction("c") as tx:
            state = tx.last().state
            shared = {**state["shared"], "n": state["shared"]["n"] + 1}
            data = {"action": "tick", "character": None, "inputs": {"note": f"{i}" * BIG}, "effects": []}
            tx.append("action", data, {**state, "shared": shared})
    return campaign


def test_an_undo_decodes_neither_the_big_events_it_passes_nor_their_states(
    store: Store, decoded: list[int]
) -> None:
    campaign = big_campaign(store)
    decoded.clear()
    event = campaign.undo()
    assert event.undoes == 6 and event.state["shared"]["n"] == 4
    assert sum(decoded) < BIG  # every big event's data before: 4 x 300,000 and more
    decoded.clear()
    again = campaign.undo()  # walks past the undo and the undone event, to event 5
    assert again.undoes == 5 and again.state["shared"]["n"] == 3
    assert sum(decoded) < BIG


def test_the_state_now_and_a_change_read_the_newest_state_alone(store: Store, decoded: list[int]) -> None:
    campaign = big_campaign(store)
    decoded.clear()
    assert campaign.show()["shared"]["n"] == 5
    assert sum(decoded) < BIG  # the newest event's data before: 300,000
    decoded.clear()
    assert campaign.act("tick").event.state["shared"]["n"] == 6  # its read under the lock
    assert sum(decoded) < BIG


def test_a_window_without_data_or_state_holds_unread_in_their_place(store: Store) -> None:
    """What is left unread is `UNREAD` itself (a store may read more: a memory store hands out
    what it keeps); what is read is as it was."""
    from engine.state.records import STATE_NOW, UNREAD

    big_campaign(store, events=1)
    newest = store.events("c", STATE_NOW)[0]
    assert newest.seq == 3 and newest.state["shared"]["n"] == 2
    assert newest.data is UNREAD or newest.data["inputs"]["note"] == "0" * BIG
    heads = store.events("c", Window(data=False, state=False))
    assert [(e.seq, e.kind) for e in heads] == [(1, "new"), (2, "action"), (3, "action")]
    if not isinstance(store, MemoryStore):
        assert all(e.data is UNREAD and e.state is UNREAD for e in heads)
    assert store.events("c")[2].data["inputs"]["note"] == "0" * BIG
