"""An undo told the newest event its caller has seen (`seen`) reverses nothing newer.

The playground's second tab undid a change the first tab had just made, which the second never
showed (hunt 13zt, 2026-12-07): an undo reverses the latest change, whatever the caller last read.
With `seen` (Python's `Campaign.undo(seen=N)`, the command line's `campaign undo NAME --seen N`,
the API's `{"seen": N}`, which the page sends) an undo past what was seen is refused, RC908, and
nothing is written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import engine
from engine.serve.app import Settings, create_app
from engine.state.memory import MemoryStore


def _kinds(campaign: Any) -> list[str]:
    return [e.kind for e in campaign.log()]


def test_an_undo_past_what_its_caller_saw_is_refused_and_writes_nothing() -> None:
    case = engine.new_campaign("case", "chill", store=MemoryStore(), params={"players": 4})
    case.act("turn_dark", n=1)  # event 2, seen by this caller
    case.act("turn_dark", n=1)  # event 3, by another caller meanwhile
    with pytest.raises(engine.CampaignError) as refused:
        case.undo(seen=2)
    [d] = refused.value.diagnostics
    assert d.code == "RC908" and d.message == (
        "campaign 'case' has changed since event #2, the newest its undo was asked from: its newest is"
        " #3 (action), so nothing was undone"
    ), d.message
    assert d.hint == "read the campaign again, and undo what it shows then"
    assert _kinds(case) == ["new", "action", "action"] and case.show()["shared"]["tokens"]["dark"] == 4
    with pytest.raises(engine.CampaignError, match=r"has no event #9: its newest is #3"):
        case.undo(seen=9)
    undone = case.undo(seen=3)  # what it saw is the newest: undone as without `seen`
    assert undone.seq == 4 and undone.undoes == 3
    assert case.undo(seen=4).undoes == 2  # an undo is an event too: the next is seen after it
    assert _kinds(case) == ["new", "action", "action", "undo", "undo"]


def test_seen_is_an_event_s_number() -> None:
    case = engine.new_campaign("case", "chill", store=MemoryStore(), params={"players": 4})
    case.act("turn_dark", n=1)
    with pytest.raises(engine.InputError) as low:
        case.undo(seen=0)
    assert low.value.diagnostics[0].message == "the argument 'seen' must be at least 1, got 0"
    with pytest.raises(TypeError, match="seen"):
        case.undo(seen="2")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="seen"):
        case.undo(seen=True)
    assert _kinds(case) == ["new", "action"]


def test_the_command_line_and_the_api_take_seen(cli: Callable[..., Any], tmp_path: Path) -> None:
    db = str(tmp_path / "c.db")
    assert cli("campaign", "--db", db, "new", "case", "chill", "-p", "players=4").code == 0
    assert cli("campaign", "--db", db, "act", "case", "turn_dark", "-i", "n=1").code == 0
    r = cli("campaign", "--db", db, "undo", "case", "--seen", "1")
    assert r.code == 1 and "error RC908: campaign 'case' has changed since event #1" in r.err, r.err
    assert "Traceback" not in r.err
    low = cli("campaign", "--db", db, "undo", "case", "--seen", "0")  # named as typed
    assert low.code == 1 and "error RC410: the argument '--seen' must be at least 1, got 0" in low.err, (
        low.err
    )
    assert cli("campaign", "--db", db, "undo", "case", "--seen", "2").code == 0
    with TestClient(create_app(Settings(db=db, workers=1, deadline=60.0))) as client:
        client.post("/api/campaigns/case/act", json={"action": "turn_dark", "inputs": {"n": 1}})  # event 4
        stale = client.post("/api/campaigns/case/undo", json={"seen": 3})
        assert stale.status_code == 409, stale.text
        [d] = stale.json()["error"]["diagnostics"]
        assert d["code"] == "RC908" and "its newest is #4 (action)" in d["message"], d
        assert client.post("/api/campaigns/case/undo", json={"seen": 0}).status_code == 422
        done = client.post("/api/campaigns/case/undo", json={"seen": 4})
        assert done.status_code == 200 and done.json()["event"]["undoes"] == 4, done.text
        client.post("/api/campaigns/case/act", json={"action": "turn_dark", "inputs": {"n": 1}})  # event 6
        assert client.post("/api/campaigns/case/undo").status_code == 200  # no `seen`: as before
        kinds = [e["kind"] for e in client.get("/api/campaigns/case/log").json()]
    assert kinds == ["new", "action", "undo", "action", "undo", "action", "undo"]


def test_a_migration_pending_is_no_event_seen_nor_named(cli: Callable[..., Any], tmp_path: Path) -> None:
    """`campaign undo --migrate --seen N` with the ruleset's file changed: the migration the
    opening appends is rolled back with the refusal, and was named as the newest event ("its
    newest is #3 (migrate)"), and `--seen 3` was taken as seeing it (hunt 13zv)."""
    from _repo import REPO_ROOT

    rules = tmp_path / "mych.yaml"
    rules.write_text((REPO_ROOT / "rulesets" / "chill.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    db = str(tmp_path / "c.db")
    assert cli("campaign", "--db", db, "new", "m", str(rules), "-p", "players=4").code == 0
    assert cli("campaign", "--db", db, "act", "m", "turn_dark", "-i", "n=1").code == 0
    text = rules.read_text(encoding="utf-8")
    rules.write_text(text.replace("\ntitle:", "\ntitle: Chill changed #", 1), encoding="utf-8")
    stale = cli("campaign", "--db", db, "undo", "m", "--migrate", "--seen", "1")
    assert stale.code == 1 and "its newest is #2 (action), so nothing was undone" in stale.err, stale.err
    ahead = cli("campaign", "--db", db, "undo", "m", "--migrate", "--seen", "3")
    assert ahead.code == 1 and "has no event #3: its newest is #2" in ahead.err, ahead.err
    kinds = [line.split()[2] for line in cli("campaign", "--db", db, "log", "m").out.splitlines()]
    assert len(kinds) == 2  # nothing written: no migration, no undo
