"""Fuzzing scenes, examples and campaigns (issue 11, item 6): rulesets with state, actions and a
scene built by `_stategen` (names kept apart by role, so most load), held to the laws of
`_law.py` — scenes solved exactly, played and sampled (`obey_scenes`); a ruleset's own examples
run as `rulecraft test` runs them (`obey_examples`); campaigns driven action by action on a store
in memory and on a temporary SQLite file (`obey_campaign`). Each request ends in a result or a
`RulecraftError` within its bound, never another exception, never a hang. New cases every run.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from _law import LIMITS, bounded, load_and_obey, obey_campaign, obey_examples, obey_scenes, refused, request
from _stategen import operations, rulesets_with_examples, state_rulesets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.state.memory import MemoryStore
from engine.state.sqlite import SqliteStore

SETTINGS = settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


def _load(doc: dict) -> engine.Ruleset | None:
    try:
        with request("loading"):
            return engine.load(json.dumps(doc), limits=LIMITS)
    except engine.RulecraftError as error:
        refused(error)
        return None


@SETTINGS
@given(state_rulesets(), st.integers(0, 2**16))
def test_scenes_solved_played_and_sampled(doc: dict, seed: int) -> None:
    with bounded("a generated scene"):
        rs = _load(doc)
        if rs is not None:
            obey_scenes(rs, seed)


@settings(SETTINGS, max_examples=40)
@given(state_rulesets(scenes=False), st.integers(0, 2**16))
def test_state_rulesets_checked_like_any_other(doc: dict, seed: int) -> None:
    """The same rulesets' checks linted, rolled and solved (the law of every ruleset)."""
    load_and_obey(json.dumps(doc), seed)


@settings(SETTINGS, max_examples=100)
@given(rulesets_with_examples())
def test_examples_pass_fail_or_are_refused(doc: dict) -> None:
    with bounded("generated examples"):
        rs = _load(doc)
        if rs is not None:
            obey_examples(rs)


@SETTINGS
@given(st.data())
def test_campaigns_in_memory(data: st.DataObject) -> None:
    doc = data.draw(state_rulesets())
    with bounded("a generated campaign"):
        rs = _load(doc)
        if rs is not None:
            obey_campaign(rs, data.draw(operations(doc)), MemoryStore())


@settings(SETTINGS, max_examples=50)
@given(st.data())
def test_campaigns_in_sqlite(data: st.DataObject) -> None:
    """The same on a SQLite file: a refused action writes nothing, the log replays, and the
    campaign opened again from the file is the same."""
    doc = data.draw(state_rulesets())
    with bounded("a generated campaign in SQLite"), tempfile.TemporaryDirectory() as folder:
        rs = _load(doc)
        if rs is None:
            return
        store = SqliteStore(Path(folder) / "c.db")
        try:
            obey_campaign(rs, data.draw(operations(doc)), store)
            if store.names():
                again = engine.open_campaign("c", store=store, ruleset=rs)
                assert again.state() == store.events("c")[-1].state
                assert again.replay() == again.state()
        finally:
            store.close()
