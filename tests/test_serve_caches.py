"""What `rulecraft serve` keeps compiled, found by a hunt: a served file edited with its
modification time kept back, a served file named like a shipped ruleset, and the rulesets sent as
text, kept by count where each may weigh tens of megabytes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from engine.serve import app as served  # noqa: E402
from engine.serve.app import Settings, create_app  # noqa: E402
from engine.syntax.resources import shipped_rulesets  # noqa: E402

COIN = """\
rulecraft: 1
name: coin
title: Old coin
checks:
  flip:
    roll: {d: {die: 6}}
    outcomes: [tails, heads]
    outcome: "'heads' if d >= 4 else 'tails'"
"""


def _edited_in_place(path: Path, old: str, new: str) -> None:
    """`sed -i` then `touch -r`: the text changed, its size and modification time as they were."""
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    assert len(old) == len(new) and old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def test_a_served_file_edited_with_its_time_kept_is_served_as_it_is_now(tmp_path: Path) -> None:
    """The served file was kept compiled by its path and modification time alone, which `touch
    -r`, `cp -p`, `rsync -t` and tar set back: the old title and text were served until a restart
    while `rulecraft show` read the new. Its change time, which no tool sets, is in the stamp."""
    mine = tmp_path / "mine.yaml"
    mine.write_text(COIN, encoding="utf-8")
    with TestClient(create_app(rulesets=tmp_path)) as c:
        assert c.get("/api/rulesets/mine").json()["title"] == "Old coin"
        _edited_in_place(mine, "Old coin", "New coin")
        shown = c.get("/api/rulesets/mine").json()
        assert shown["title"] == "New coin" and "New coin" in shown["source"]


def test_a_file_changed_within_a_tick_of_its_reading_is_compared_by_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where timestamps are coarse (a second; two on FAT), a change in the same tick as the read
    moves neither time: a file changed that recently is compared by its content. Such a file
    system is played by a stamp that sees only the size and the modification time."""
    monkeypatch.setattr(served, "stamp", lambda st: (st.st_size, st.st_mtime_ns), raising=False)
    mine = tmp_path / "mine.yaml"
    mine.write_text(COIN, encoding="utf-8")
    with TestClient(create_app(rulesets=tmp_path)) as c:
        assert c.get("/api/rulesets/mine").json()["title"] == "Old coin"
        _edited_in_place(mine, "Old coin", "New coin")
        assert c.get("/api/rulesets/mine").json()["title"] == "New coin"
        catalog = c.app.state.server.catalog  # type: ignore[attr-defined]
        kept = catalog._named[mine].ruleset
        assert catalog.named("mine") is kept  # unchanged since: not compiled again


def _act(c: TestClient, campaign: str) -> Any:
    wound = {"action": "take_wound", "character": "ann", "inputs": {"level": "light"}}
    return c.post(f"/api/campaigns/{campaign}/act", json=wound)


def test_a_served_file_named_like_a_shipped_ruleset_leaves_its_campaigns_alone(tmp_path: Path) -> None:
    """A `castle.yaml` put in the served folder is served as `castle` in place of the shipped one
    (the folder's files win), but a campaign made with the shipped `castle` had every change
    refused, 409 RC904 with the hint that "the ruleset's file on the server was changed", though
    no file had. It keeps playing the shipped one, which its stored reference (a shipped name, not
    a path) names; a campaign made with the folder's file plays that, and its RC904 is true."""
    games = tmp_path / "games"
    games.mkdir()
    settings = Settings(rulesets=games, db=str(tmp_path / "c.db"), workers=1, deadline=60.0)
    shipped = shipped_rulesets()["castle"].read_text(encoding="utf-8")
    with TestClient(create_app(settings)) as c:
        made = {"name": "shadow", "ruleset": "castle", "characters": {"ann": {"wielding": "bow"}}}
        assert c.post("/api/campaigns", json=made).status_code == 201
        mine = games / "castle.yaml"
        mine.write_text(shipped.replace("title: The Castle", "title: My Castle"), encoding="utf-8")
        assert c.get("/api/rulesets/castle").json()["title"].startswith("My Castle")
        acted = _act(c, "shadow")
        assert acted.status_code == 200, acted.text
        shown = c.get("/api/campaigns/shadow").json()
        assert shown["warnings"] == [] and shown["ruleset"] == "castle", shown
        assert c.get("/api/campaigns/shadow/replay").json()["warnings"] == []
        assert c.app.state.server.catalog.shadowing() == [(mine, "castle")]  # type: ignore[attr-defined]
        # one made now is the folder's, and told its file changed when it has
        assert c.post("/api/campaigns", json={**made, "name": "mine"}).status_code == 201
        assert _act(c, "mine").status_code == 200
        mine.write_text(shipped.replace("title: The Castle", "title: Our Castle"), encoding="utf-8")
        refused = _act(c, "mine")
        assert refused.status_code == 409, refused.text
        assert [d["code"] for d in refused.json()["error"]["diagnostics"]] == ["RC904"]
        assert _act(c, "shadow").status_code == 200
