"""Requests another site's page sends through its visitor's browser (`serve.app.CrossSite`).

A hunt (2026-12-07) had a page at another origin send `fetch(url, {method: "POST", mode:
"no-cors"})` to `/api/campaigns/NAME/undo` on a server with no token: a POST with no JSON body is
sent without asking the server first, and the campaign's latest change was undone. The page could
also show the playground in a frame and have its visitor click. Here, the same requests as the
browser sends them (its `Origin` and `Sec-Fetch-Site` headers), through the real app."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from engine.serve.app import Settings, create_app, origin_of

OTHER = {"Origin": "http://localhost:8001", "Sec-Fetch-Site": "same-site"}  # another port: another origin
OWN = {"Origin": "http://testserver"}  # the playground's own page (TestClient's Host is `testserver`)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(db=str(tmp_path / "c.db"), workers=1, deadline=60.0))) as c:
        yield c


def _events(client: TestClient) -> list[str]:
    return [e["kind"] for e in client.get("/api/campaigns/case/log").json()]


def _made(client: TestClient) -> None:
    made = client.post("/api/campaigns", json={"name": "case", "ruleset": "chill", "params": {"players": 4}})
    assert made.status_code == 201, made.text
    acted = client.post("/api/campaigns/case/act", json={"action": "turn_dark", "inputs": {"n": 1}})
    assert acted.status_code == 200, acted.text


def test_another_site_s_page_cannot_undo_a_campaign_s_change(client: TestClient) -> None:
    _made(client)
    for headers in (
        OTHER,
        {"Origin": "https://evil.example"},
        {"Origin": "null"},  # a sandboxed frame, a file
        {"Origin": "http://testserver:8000"},  # the server's name on another port
        {"Sec-Fetch-Site": "cross-site"},  # a browser that left Origin out
    ):
        refused = client.post("/api/campaigns/case/undo", headers=headers)
        assert refused.status_code == 403, (headers, refused.text)
        [d] = refused.json()["error"]["diagnostics"]
        assert d["code"] == "RC407" and d["message"].startswith("POST /api/campaigns/case/undo: refused:"), d
        assert "a page of another origin" in d["message"] and "no Origin header" in d["hint"], d
        assert _events(client) == ["new", "action"]  # nothing undone
    # the same with a JSON body, and every other write and computation alike
    assert client.post("/api/campaigns/case/undo", json={}, headers=OTHER).status_code == 403
    assert (
        client.post("/api/roll", json={"ruleset": "chill", "check": "specific"}, headers=OTHER).status_code
        == 403
    )
    assert (
        client.post("/api/campaigns", json={"name": "b", "ruleset": "chill"}, headers=OTHER).status_code
        == 403
    )
    assert _events(client) == ["new", "action"] and client.get("/api/campaigns/b").status_code == 404
    # reads are answered (a browser keeps their answers from the other page without CORS headers)
    assert client.get("/api/campaigns/case", headers=OTHER).status_code == 200


def test_the_server_s_own_page_and_programs_are_answered(client: TestClient) -> None:
    _made(client)
    own = client.post("/api/campaigns/case/undo", headers={**OWN, "Sec-Fetch-Site": "same-origin"})
    assert own.status_code == 200, own.text
    client.post("/api/campaigns/case/act", json={"action": "turn_dark", "inputs": {"n": 1}}, headers=OWN)
    program = client.post("/api/campaigns/case/undo")  # a bot, curl: no Origin
    assert program.status_code == 200, program.text
    assert _events(client) == ["new", "action", "undo", "action", "undo"]
    upper = client.post(
        "/api/campaigns/case/act",
        json={"action": "turn_dark", "inputs": {"n": 1}},
        headers={"Origin": "HTTP://TestServer:80"},
    )  # the scheme's own port, any case
    assert upper.status_code == 200, upper.text


def test_no_answer_may_be_shown_in_another_page_s_frame(client: TestClient) -> None:
    for answer in (
        client.get("/"),
        client.get("/api/rulesets"),
        client.get("/api/campaigns/nobody"),  # 404
        client.post("/api/campaigns/case/undo", headers=OTHER),  # the refusal itself
    ):
        assert answer.headers["x-frame-options"] == "DENY", answer.headers
        assert answer.headers["content-security-policy"] == "frame-ancestors 'none'", answer.headers


def test_the_host_check_s_refusal_may_not_be_framed_either(tmp_path: Path) -> None:
    settings = Settings(db=str(tmp_path / "c.db"), workers=1, deadline=60.0, allowed_hosts=("localhost",))
    with TestClient(create_app(settings)) as client:
        refused = client.get("/", headers={"Host": "evil.example"})
    assert refused.status_code == 400 and refused.headers["x-frame-options"] == "DENY"
    assert refused.headers["content-security-policy"] == "frame-ancestors 'none'"


def test_behind_a_proxy_that_sends_its_own_host_the_page_s_origin_is_given(tmp_path: Path) -> None:
    """A proxy that sends the server a `Host` of its own (nginx's default, `127.0.0.1:8000`):
    the page's origin is the public one, which `--origin URL` gives (`Settings.origins`), exactly.
    Two tries before were too wide (hunts 13zv, 13zw): X-Forwarded-Host, which a proxy may set
    from the `Host` a DNS-rebound page's request carried, and the `--allow-host` names on any port,
    which let another web app of the same machine write."""
    origins = (origin_of("HTTPS://Dice.Example.org:443/"), origin_of("http://dice.example.org:8443"))
    assert origins == ("https://dice.example.org", "http://dice.example.org:8443")
    settings = Settings(db=str(tmp_path / "c.db"), workers=1, deadline=60.0, origins=origins)  # type: ignore[arg-type]
    with TestClient(create_app(settings)) as client:
        _made(client)
        proxied = {"Host": "127.0.0.1:8000"}
        for origin, status in (
            ("https://dice.example.org", 200),
            ("http://dice.example.org:8443", 200),
            ("https://DICE.example.org:443", 200),
            ("http://dice.example.org", 403),
            ("https://dice.example.org:8443", 403),
            ("http://dice.example.org:3000", 403),
        ):
            answer = client.post("/api/campaigns/case/undo", headers={**proxied, "Origin": origin})
            assert answer.status_code == status, (origin, answer.text)
            if status == 200:  # a change again, for the next undo
                client.post("/api/campaigns/case/act", json={"action": "turn_dark", "inputs": {"n": 1}})
        rebound = {**proxied, "Origin": "http://evil.test:38081", "X-Forwarded-Host": "evil.test:38081"}
        assert client.post("/api/campaigns/case/undo", headers=rebound).status_code == 403


def test_a_name_the_server_answers_to_is_no_origin_on_another_port(tmp_path: Path) -> None:
    """`serve --allow-host localhost`, no proxy: a page of another web app on the same machine
    (`http://localhost:8799`) undid a campaign's change on the server at port 8741 (hunt 13zw)."""
    from engine.cli import _limits, _parser
    from engine.serve.run import settings_of

    given = [
        "serve",
        "--allow-host",
        "localhost",
        "--allow-host",
        "testserver",
        "--db",
        str(tmp_path / "c.db"),
    ]
    args = _parser("serve").parse_args([*given, "--workers", "1", "--deadline", "60"])
    args.limits = _limits([])
    with TestClient(create_app(settings_of(args))) as client:  # as `serve` makes its settings
        _made(client)
        other_app = {"Host": "localhost:8741", "Origin": "http://localhost:8799"}
        assert client.post("/api/campaigns/case/undo", headers=other_app).status_code == 403
        own = {"Host": "localhost:8741", "Origin": "http://localhost:8741"}
        assert client.post("/api/campaigns/case/undo", headers=own).status_code == 200


def test_serve_refuses_an_origin_that_is_none(cli: Any) -> None:
    for bad in (
        "dice.example.org",
        "ftp://dice.example.org",
        "https://dice.example.org/play",
        "https://a@b.org",
    ):
        refused = cli("serve", "--origin", bad, "--port", "0")
        assert refused.code == 1 and f"--origin {bad!r}: give an origin alone" in refused.err, refused.err


def test_no_origin_and_a_browser_s_mark_is_said_so(client: TestClient) -> None:
    [d] = client.post("/api/roll", json={}, headers={"Sec-Fetch-Site": "cross-site"}).json()["error"][
        "diagnostics"
    ]
    assert d["message"] == (
        "POST /api/roll: refused: a page of another origin (its browser says so) sent it, through its"
        " visitor's browser"
    ), d
