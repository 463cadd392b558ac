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

import engine  # noqa: E402
from engine import api  # noqa: E402
from engine.runtime.cache import BoundedCache, compiled_bytes  # noqa: E402
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


def _coin(i: int) -> str:
    return COIN.replace("name: coin", f"name: coin{i}")


def test_rulesets_sent_as_text_are_kept_by_what_they_weigh(tmp_path: Path) -> None:
    """The server kept the 64 rulesets last sent as text, whatever each held: a text of 700 checks
    (66 KB) held about 10 MB, so a stranger could hold 650 MB with 64 of them. They are kept by
    `Ruleset.held_bytes` too (`Settings.cached_bytes`), the least recently sent going first."""
    texts = [_coin(i) for i in range(4)]
    weights = {engine.load(t).held_bytes() for t in texts}
    [weight] = weights
    settings = Settings(db=str(tmp_path / "c.db"), workers=1, cached_bytes=2 * weight + weight // 2)
    with TestClient(create_app(settings)) as c:
        kept = c.app.state.server.catalog._sources  # type: ignore[attr-defined]

        def send(text: str) -> list[str]:
            assert c.post("/api/validate", json={"source": text}).json()["ok"] is True
            return [rs.name for _, rs in kept.items()]

        assert [send(t) for t in texts] == [
            ["coin0"],
            ["coin0", "coin1"],
            ["coin1", "coin2"],
            ["coin2", "coin3"],
        ]
        assert kept.bytes == 2 * weight <= settings.cached_bytes
        assert send(texts[2]) == ["coin3", "coin2"]  # sent again: the newest
        assert send(texts[0]) == ["coin2", "coin0"]


def held(rs: engine.Ruleset) -> int:
    """What a ruleset holds, as the server weighs it: code and text, and its caches now."""
    return compiled_bytes(rs.model.code, len(rs.document.source.text)) + rs.caches.bytes()


BIAS = COIN.replace(
    "    roll: {d: {die: 6}}",
    "    inputs:\n      bias: {type: int, min: 0, max: 1000000, default: 0}\n    roll: {d: {die: 6}}",
).replace("d >= 4", "d + bias >= 4")


def test_a_sent_rulesets_caches_count_as_it_is_rolled(tmp_path: Path) -> None:
    """A ruleset sent as text was weighed by its code and text when it was sent, and its caches,
    which grow as it is rolled in the server's process (a binding and its rolls kept per input,
    up to 256 MiB each), never counted: 64 kept rulesets could hold many times `cached_bytes`.
    Each is weighed again after each roll, so a heavier one pushes the least recently used out."""
    first, second = BIAS.replace("name: coin", "name: one"), BIAS.replace("name: coin", "name: two")
    weight = max(held(engine.load(first)), held(engine.load(second)))
    settings = Settings(db=str(tmp_path / "c.db"), workers=1, cached_bytes=2 * weight + weight // 4)
    with TestClient(create_app(settings)) as c:
        kept = c.app.state.server.catalog._sources  # type: ignore[attr-defined]
        for text in (second, first):
            assert c.post("/api/validate", json={"source": text}).json()["ok"] is True
        assert [rs.name for _, rs in kept.items()] == ["two", "one"]
        [one] = [rs for _, rs in kept.items() if rs.name == "one"]
        bias = 0
        while held(one) < weight + weight // 4:  # each new input keeps a binding
            rolled = c.post("/api/roll", json={"source": first, "check": "flip", "inputs": {"bias": bias}})
            assert rolled.status_code == 200, rolled.text
            bias += 1
            assert bias < 5_000, held(one)
        assert [rs.name for _, rs in kept.items()] == ["one"]  # "two" let go for it
        assert kept.bytes == held(one) <= settings.cached_bytes


def test_a_processs_compiled_rulesets_are_kept_by_what_they_weigh(monkeypatch: pytest.MonkeyPatch) -> None:
    """`api._LOADED`, the rulesets a process compiled last, kept 16 whatever each held (a
    server's worker compiles the texts sent to it): it is bounded by `compiled_bytes` too. A
    ruleset weighs by its code, which grows far faster than its text for values that read each
    other: 60 of them, 1 KB of text, compile to over 200 times that."""
    chain = "".join(f"      l{i}: l{i - 1} + 1\n" for i in range(1, 60))
    text = (
        "rulecraft: 1\nname: chain\nchecks:\n  c:\n    outcomes: [lo, hi]\n"
        "    roll:\n      d: {die: 6}\n    let:\n      l0: d\n"
        + chain
        + "    outcome: \"'hi' if l59 > 62 else 'lo'\"\n"
    )
    assert engine.load(text).model.code > 200 * len(text)
    weight = compiled_bytes(engine.load(_coin(0)).model.code, len(_coin(0)))
    monkeypatch.setattr(api, "_LOADED", BoundedCache(16, 2 * weight + weight // 2))
    for i in range(3):
        engine.load(_coin(i))
    assert [key[1] for key, _ in api._LOADED.items()] == [_coin(1), _coin(2)]
