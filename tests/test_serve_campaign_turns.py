"""Campaign requests that may solve (an action, a roll, a scene, a replay) run in the server's own
process, beside the store, and took no turns: 40 `optimal` scenes at once answered their 504
after 7.5-12.2 s of a 5 s deadline, and a plain roll beside them took 8.7 s (hunt 13o). They take
turns now, `--workers` at a time with `--queue` more waiting, within the request's deadline
(`Server.campaign_turn`). The turns are held here by the server's own gate, as a running solve
holds one, so that no test waits on how fast a solve is."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from engine.serve.app import Settings, create_app  # noqa: E402

AUTH = {"Authorization": "Bearer s3cret"}


def _client(tmp_path: Path, queue: int, deadline: float) -> TestClient:
    settings = Settings(db=str(tmp_path / "c.db"), token="s3cret", workers=1, queue=queue, deadline=deadline)
    return TestClient(create_app(settings))


def _made(c: TestClient) -> None:
    made = c.post(
        "/api/campaigns", json={"name": "c", "ruleset": "chill", "params": {"players": 4}}, headers=AUTH
    )
    assert made.status_code == 201, made.text


def test_past_the_workers_and_the_queue_a_solving_campaign_request_is_503(tmp_path: Path) -> None:
    with _client(tmp_path, queue=0, deadline=30.0) as c:
        _made(c)
        server = c.app.state.server  # type: ignore[attr-defined]
        with server.campaign_turn(time.monotonic()):  # the one turn, taken as a running solve takes it
            for method, path, body in [
                ("POST", "/api/campaigns/c/act", {"action": "turn_dark", "inputs": {"n": 1}}),
                ("POST", "/api/campaigns/c/roll", {"check": "specific", "inputs": {"target": 55}}),
                ("GET", "/api/campaigns/c/replay", None),
            ]:
                r = c.request(method, path, json=body, headers=AUTH)
                assert r.status_code == 503 and r.headers["Retry-After"] == "1", r.text
                [d] = r.json()["error"]["diagnostics"]
                assert d["code"] == "RC503"
                assert (
                    d["message"] == "the server is playing 1 campaign request, its limit: try again shortly"
                )
            # what does not solve takes no turn: a read, a period begun
            assert c.get("/api/campaigns/c").status_code == 200
            assert c.get("/api/campaigns/c/log").status_code == 200
        acted = c.post("/api/campaigns/c/act", json={"action": "turn_dark", "inputs": {"n": 1}}, headers=AUTH)
        assert acted.status_code == 200, acted.text  # the turn given back
        log = c.get("/api/campaigns/c/log").json()
        assert [e["kind"] for e in log] == ["new", "action"]  # nothing refused was written


def test_a_request_whose_deadline_passes_while_it_waits_for_its_turn_is_504(tmp_path: Path) -> None:
    with _client(tmp_path, queue=1, deadline=0.5) as c:
        _made(c)
        server = c.app.state.server  # type: ignore[attr-defined]
        with server.campaign_turn(time.monotonic() + 60):
            started = time.monotonic()
            r = c.post("/api/campaigns/c/act", json={"action": "turn_dark", "inputs": {"n": 1}}, headers=AUTH)
            took = time.monotonic() - started
        assert r.status_code == 504, r.text
        [d] = r.json()["error"]["diagnostics"]
        assert (
            d["code"] == "RC503"
            and d["message"] == "the request's deadline passed while it waited for its turn"
        )
        assert 0.4 < took < 5, took
        assert [e["kind"] for e in c.get("/api/campaigns/c/log").json()] == ["new"]


def test_a_turn_runs_within_what_is_left_of_the_request_s_deadline(tmp_path: Path) -> None:
    """The limits a turn gives are the server's, their deadline what is left of the request's."""
    with _client(tmp_path, queue=1, deadline=30.0) as c:
        server = c.app.state.server  # type: ignore[attr-defined]
        with server.campaign_turn(time.monotonic() - 10) as limits:
            assert 19 < limits.deadline <= 20
            assert limits.max_work == server.limits.max_work
