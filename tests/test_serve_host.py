"""`rulecraft serve`'s own defences: the names it answers to (a DNS rebinding sends a web page's
own name as `Host`, and was answered: a page could make campaigns on a server with no token), and
a token no client can send, refused when the server starts."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from _repo import REPO_ROOT

pytest.importorskip("fastapi")
import httpx  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from engine.serve.app import Settings, create_app  # noqa: E402

CAMPAIGN = {"name": "rebound", "ruleset": "castle"}
REBIND = {"Host": "rebind.attacker.example", "Origin": "http://rebind.attacker.example"}


def refused(response: Any) -> str:
    """The message of a refused Host: 400, one JSON error, `RC407`."""
    assert response.status_code == 400, response.text
    assert response.headers["content-type"] == "application/json"
    [d] = response.json()["error"]["diagnostics"]
    assert d["code"] == "RC407" and "--allow-host" in d["hint"]
    message: str = d["message"]
    return message


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real `python -m engine serve` with no token, on the default host, a free port."""
    folder = tmp_path_factory.mktemp("host")
    command = [sys.executable, "-m", "engine", "serve", "--port", "0", "--workers", "1"]
    process = subprocess.Popen(
        [*command, "--db", str(folder / "play.db")],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = re.search(r"serving on (http://127\.0\.0\.1:\d+) ", line)
        assert found, line + (process.stderr.read() if process.stderr else "")
        yield found[1]
    finally:
        process.terminate()
        _, err = process.communicate(timeout=30)
    assert "Traceback" not in err, err


def test_a_page_rebound_to_the_loopback_cannot_write_a_campaign(server: str) -> None:
    """The hunt's curl: a request naming another host was 201 (the campaign made); now 400, and
    nothing is made. The loopback's names, any port, are answered."""
    sent = httpx.post(f"{server}/api/campaigns", json=CAMPAIGN, headers=REBIND, timeout=30)
    assert "rebound" not in [c["name"] for c in httpx.get(f"{server}/api/campaigns", timeout=30).json()]
    assert refused(sent) == "this server does not answer to the Host 'rebind.attacker.example'"
    port = server.rsplit(":", 1)[1]
    for host in (f"localhost:{port}", "127.0.0.1", "[::1]:80", "LOCALHOST."):
        listed = httpx.get(f"{server}/api/campaigns", headers={"Host": host}, timeout=30)
        assert listed.status_code == 200 and listed.json() == [], (host, listed.text)
    made = httpx.post(f"http://localhost:{port}/api/campaigns", json=CAMPAIGN, timeout=30)
    assert made.status_code == 201, made.text


def test_the_names_answered_follow_host_and_allow_host() -> None:
    """By default the loopback's names and `--host` (and the address it bound); `*` in
    --allow-host any name; `--host 0.0.0.0` the names --allow-host gives (it had answered any
    name, so a page anyone on the network opened could write by DNS rebinding: a review)."""
    from engine.serve.run import allowed_hosts

    loopback = ("localhost", "127.0.0.1", "[::1]")
    assert allowed_hosts([], "127.0.0.1", "127.0.0.1") == loopback
    assert allowed_hosts([], "::1") == loopback
    assert allowed_hosts([], "pi.lan", "192.168.1.5") == (*loopback, "pi.lan", "192.168.1.5")
    assert allowed_hosts(["Dice.Example.org"], "127.0.0.1") == (*loopback, "dice.example.org")
    assert allowed_hosts(["*"], "127.0.0.1") == ("*",)
    assert allowed_hosts([], "0.0.0.0") == allowed_hosts([], "::") == loopback
    assert allowed_hosts(["2001:DB8:0::1"], "::") == (*loopback, "[2001:db8::1]")  # its standard form
    assert allowed_hosts(["pi.lan"], "0.0.0.0", "0.0.0.0") == (*loopback, "pi.lan")


def test_host_0_0_0_0_answers_as_the_docs_say() -> None:
    """The docs said `--host 0.0.0.0` answers "to its addresses and the names --allow-host gives"
    (hunt 13i): it answers any IP address, the machine's or not, and `localhost` too, and no
    other name unless --allow-host gives it. The docs now say so; this holds the code to them."""
    from engine.serve.run import allowed_hosts

    app = create_app(Settings(allowed_hosts=allowed_hosts(["pi.lan"], "0.0.0.0", "0.0.0.0")))
    client = TestClient(app)
    for host in ["203.0.113.9", "[2001:db8::1]:8000", "localhost", "127.0.0.1", "[::1]", "pi.lan:8000"]:
        assert client.get("/api/rulesets", headers={"Host": host}).status_code == 200, host
    for host in ["myhost", "myhost.lan", "rebind.attacker.example"]:  # the machine's own name too
        assert "does not answer to the Host" in refused(client.get("/api/rulesets", headers={"Host": host}))
    server = (REPO_ROOT / "docs" / "server.md").read_text(encoding="utf-8")
    security = (REPO_ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    assert "to its addresses and the names `--allow-host` gives" not in server
    assert "answers the\nmachine's addresses" not in server
    said = "to any IP address (the machine's or not), the loopback's names and the names `--allow-host` gives"
    assert said in server
    assert "`--host 0.0.0.0` answers any IP address and the loopback's names as well" in security


def test_every_path_refuses_a_host_it_does_not_answer_to() -> None:
    """Before any route, the body limit and the token: a page, the schema, a write with the token."""
    from engine.serve.run import allowed_hosts

    settings = Settings(
        token="tok", workers=1, allowed_hosts=allowed_hosts(["dice.example.org"], "127.0.0.1")
    )
    with TestClient(create_app(settings), base_url="http://127.0.0.1:8000") as client:
        assert client.get("/").status_code == 200
        assert client.get("/", headers={"Host": "dice.example.org:443"}).status_code == 200
        refused_too = ("[1.2.3.4]", "[fe80::1%25evil.example]")  # bracketed IPv4, an IPv6 zone
        for host in (
            "evil.example",
            "127.0.0.1.evil.example",
            "localhost:8000@evil",
            "127.0.0.1:x",
            *refused_too,
        ):
            assert "does not answer" in refused(client.get("/", headers={"Host": host}))
        # an address is no rebinding (the page's own origin), in any form; an empty port is a port
        for host in ("192.168.1.5:8000", "[2001:db8:0::1]", "[::1]:8000", "127.0.0.1:"):
            assert client.get("/", headers={"Host": host}).status_code == 200, host
        auth = {"Authorization": "Bearer tok", "Host": "evil.example"}
        refused(client.post("/api/campaigns", json=CAMPAIGN, headers=auth))
        refused(client.get("/openapi.json", headers={"Host": "evil.example"}))
        big = client.post("/api/roll", content=b"x" * 2_000_000, headers={"Host": "evil.example"})
        refused(big)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--allow-host", "http://dice.example.org"], "--allow-host 'http://dice.example.org': give a host"),
        (["--allow-host", "dice.example.org:443"], "with no scheme, port or path"),
        (["--allow-host", ""], "--allow-host '': give a host name or address alone"),
        (["--token", "abc "], "--token begins or ends with white space"),
        (["--token", ""], "--token is empty"),
        (["--token", "pässword"], "--token holds a character that is not printable ASCII"),
        (["--token", "a\tb"], "--token holds a character that is not printable ASCII"),
        (["--rulesets", "/etc/passwd"], "--rulesets /etc/passwd: not a folder"),
    ],
)
def test_serve_refuses_a_name_or_token_that_cannot_work(cli: Any, args: list[str], message: str) -> None:
    """A token with a space at an end could never be matched (a client's is read without it):
    every write was 401; an empty one was no token at all, in silence. A port no server can take
    is given too: where the setting were taken, `serve` ends with that error, not serving."""
    result = cli("serve", *args, "--port", "70000")
    assert result.code == 1 and "RC407" in result.err and message in result.err, result.err


def test_an_empty_token_in_the_environment_is_refused(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RULECRAFT_TOKEN", "")
    result = cli("serve", "--port", "70000")
    assert result.code == 1 and "RC407" in result.err and "$RULECRAFT_TOKEN is empty" in result.err
    monkeypatch.setenv("RULECRAFT_TOKEN", " tok")
    assert "$RULECRAFT_TOKEN begins or ends with white space" in cli("serve", "--port", "70000").err


def test_settings_refuse_a_token_no_client_can_send() -> None:
    for token in ("", "tok\n", " tok"):
        with pytest.raises(ValueError, match="no space at either end"):
            Settings(token=token)
