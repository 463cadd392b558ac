"""The issue's three claims against a real `python -m engine serve` in a subprocess:

- a 10 MB request is refused with 413 (declared, and streamed without a length: refused before
  the client has sent it all);
- a solve that would run far past its deadline ends with a clean error within it;
- 100 concurrent heavy solves each get a result or a clean error within their deadline, while a
  light roll sent at the same time answers within 200 ms.

Margins: the machine this runs on has 2 cores shared with other work, so each deadline check
allows 1.5 s past the deadline for a loaded scheduler, and the 200 ms claim is measured on the
rolls sent one after another while the 100 solves are in flight: the median of ten must be under
it, and every one under two seconds (with the load average at 12 on 2 cores, the first roll after the
burst has taken 0.65 s here; on a quiet machine it takes 20-30 ms).
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
import httpx  # noqa: E402
from _repo import REPO_ROOT  # noqa: E402

DEADLINE = 3.0
SLACK = 1.5
"""Seconds past a deadline a loaded machine may add to an answer (see the module's docstring)."""

HEAVY = (
    (Path(__file__).parent / "test_serve_pool.py")
    .read_text(encoding="utf-8")
    .split('HEAVY = """\\\n')[1]
    .split('"""')[0]
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("served")
    (folder / "heavy.yaml").write_text(HEAVY, encoding="utf-8")
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "engine",
        "serve",
        "--port",
        str(port),
        "--rulesets",
        str(folder),
        "--db",
        str(folder / "c.db"),
        "--deadline",
        str(DEADLINE),
        "--workers",
        "2",
        "--queue",
        "32",
    ]
    process = subprocess.Popen(
        command,
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        until = time.monotonic() + 90
        while True:
            assert process.poll() is None, process.communicate()
            try:
                if httpx.get(url + "/api/rulesets", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < until, "the server did not start"
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            out, err = process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
        assert b"Traceback" not in err, err.decode()


def prob(n: int) -> dict[str, Any]:
    return {"ruleset": "heavy", "check": "big", "inputs": {"n": n}}


def clean_error(response: httpx.Response, *statuses: int) -> bool:
    body = response.json()
    return (
        response.status_code in statuses
        and body["error"]["status"] == response.status_code
        and all(d["code"].startswith("RC") for d in body["error"]["diagnostics"])
    )


def test_ten_megabytes_declared_are_413(server: str) -> None:
    response = httpx.post(
        server + "/api/validate",
        content=b" " * 10_000_000,
        headers={"content-type": "application/json"},
        timeout=30,
    )
    assert response.status_code == 413 and clean_error(response, 413)
    [d] = response.json()["error"]["diagnostics"]
    assert "the request body is over the server's limit of 1,048,576 bytes" in d["message"], d  # grouped


def test_ten_megabytes_streamed_are_refused_before_they_are_all_sent(server: str) -> None:
    host, port = server.removeprefix("http://").split(":")
    sent = 0
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(
            b"POST /api/validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        chunk = b" " * 65536
        try:
            while sent < 10_000_000:
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sent += len(chunk)
                if select.select([sock], [], [], 0)[0]:
                    break  # the server has answered
        except (BrokenPipeError, ConnectionResetError):
            pass
        reply = b""
        while b"\r\n\r\n" not in reply:
            part = sock.recv(65536)
            if not part:
                break
            reply += part
    assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
    assert sent < 10_000_000, "the whole body was sent before the server answered"
    body = json.loads(reply.split(b"\r\n\r\n", 1)[1] or b"{}") if reply.endswith(b"}") else None
    assert body is None or body["error"]["status"] == 413


def test_a_solve_that_would_run_on_ends_cleanly_within_its_deadline(server: str) -> None:
    started = time.monotonic()
    response = httpx.post(server + "/api/prob", json=prob(100), timeout=60)
    seconds = time.monotonic() - started
    assert clean_error(response, 504, 422), response.text
    assert response.json()["error"]["diagnostics"][0]["code"] == "RC503"
    assert seconds < DEADLINE + SLACK, seconds


BLAST = """
import asyncio, json, sys, time
import httpx

async def main() -> None:
    limits = httpx.Limits(max_connections=200, max_keepalive_connections=200)
    async with httpx.AsyncClient(base_url=sys.argv[1], timeout=60, limits=limits) as client:
        async def heavy(n):
            started = time.monotonic()
            r = await client.post("/api/prob", json={"ruleset": "heavy", "check": "big", "inputs": {"n": n}})
            return r.status_code, r.json(), time.monotonic() - started
        print("sent", flush=True)
        found = await asyncio.gather(*(heavy(10 + n % 30) for n in range(100)))
        print(json.dumps(found))

asyncio.run(main())
"""
"""100 solves at once from a process of their own: the light rolls below are measured from this
one, so what they wait for is the server, not a client loop busy with 100 connections."""


def test_a_hundred_heavy_solves_and_a_light_roll(server: str) -> None:
    body = {"ruleset": "chill", "check": "specific", "inputs": {"target": 50}}
    with httpx.Client(base_url=server, timeout=30) as client:
        assert client.post("/api/roll", json=body).status_code == 200  # a warm connection
        blast = subprocess.Popen([sys.executable, "-c", BLAST, server], stdout=subprocess.PIPE, text=True)
        assert blast.stdout is not None and blast.stdout.readline() == "sent\n"
        time.sleep(0.3)  # the solves are on their way and in flight
        rolls = []
        for seed in range(10):
            started = time.monotonic()
            response = client.post("/api/roll", json={**body, "seed": seed})
            rolls.append(time.monotonic() - started)
            assert response.status_code == 200, response.text
            time.sleep(0.1)
        assert blast.poll() is None, "the solves were over before the rolls: nothing was measured"
        out, _ = blast.communicate(timeout=120)
        # the pool still solves once the burst is over (a worker cut at its deadline may still
        # be being replaced, so a few tries a second apart)
        for _ in range(5):
            after = client.post("/api/prob", json=prob(10))
            if after.status_code == 200:
                break
            time.sleep(1)
    answers = json.loads(out.splitlines()[-1])
    done = sum(status == 200 for status, _, _ in answers)
    print(f"light rolls while 100 solves were in flight: {[round(s * 1000) for s in rolls]} ms")
    print(f"solves answered: {done} of 100 (the rest refused or cut at the deadline)")
    assert len(answers) == 100
    for status, answer, seconds in answers:
        if status != 200:
            assert status in (503, 504) and answer["error"]["status"] == status, answer
            assert {d["code"] for d in answer["error"]["diagnostics"]} == {"RC503"}
        assert seconds < DEADLINE + SLACK, seconds
    # How many of the burst finish in time is the machine's: 14 of 100 on a quiet one, and none
    # at all while the rest of the suite keeps both cores busy (the pool's workers are niced, so
    # they yield to it). That the pool still answers is the server's, and holds either way.
    assert after.status_code == 200, after.text
    assert statistics.median(rolls) < 0.2 and max(rolls) < 2.0, rolls


@pytest.mark.skipif(shutil.which("node") is None, reason="no node on PATH: the JavaScript bot is not run")
def test_the_javascript_bot_of_the_docs_runs(server: str, tmp_path: Path) -> None:
    """docs/server.md's bot, as written, against a real server: it prints the roll and the odds,
    and a bad input comes back as the diagnostic's text."""
    text = (REPO_ROOT / "docs" / "server.md").read_text(encoding="utf-8")
    found = re.search(r"```js\n(.*?)```", text, re.S)
    assert found is not None
    bot = tmp_path / "bot.mjs"
    bot.write_text(found.group(1), encoding="utf-8")
    env = {**os.environ, "RULECRAFT_URL": server}
    ran = subprocess.run(["node", str(bot), "40"], capture_output=True, text=True, env=env, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert "=> " in ran.stdout and re.search(r"^failure\s+53\.0%$", ran.stdout, re.M), ran.stdout
    bad = subprocess.run(["node", str(bot), "400"], capture_output=True, text=True, env=env, timeout=60)
    assert bad.returncode != 0 and "RC403" in bad.stderr and "above its maximum 300" in bad.stderr
