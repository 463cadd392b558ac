"""docs/server.md is true: every `curl` line it shows is sent to the app (in order, so the
campaign lines build on each other) and answers 2xx; every path it names is in the OpenAPI
schema; and `rulecraft serve` without FastAPI says which extra to install."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _repo import REPO_ROOT

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from engine.serve.app import Settings, create_app  # noqa: E402

DOC = (REPO_ROOT / "docs" / "server.md").read_text(encoding="utf-8")
TOKEN = "doc-token"


def curls() -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", DOC, flags=re.S)
    return [line for block in blocks for line in block.splitlines() if line.startswith("curl ")]


def request_of(line: str) -> tuple[str, str, dict[str, str], bytes | None]:
    """(method, path, headers, body) of one documented curl line."""
    words = shlex.split(line.replace("$RULECRAFT_TOKEN", TOKEN))[1:]
    method, url, headers, body = "", "", {}, None
    i = 0
    while i < len(words):
        word = words[i]
        if word == "-s":
            i += 1
        elif word in ("-H", "-d", "-X"):
            value = words[i + 1]
            if word == "-H":
                name, _, text = value.partition(":")
                headers[name.strip()] = text.strip()
            elif word == "-d":
                body = value.encode()
            else:
                method = value
            i += 2
        else:
            assert not url, f"two URLs in: {line}"
            url = word
            i += 1
    assert url.startswith("localhost:8000/"), line
    return (
        method or ("POST" if body is not None else "GET"),
        url.removeprefix("localhost:8000"),
        headers,
        body,
    )


def test_the_page_shows_curl_for_every_kind_of_request() -> None:
    paths = {request_of(line)[1] for line in curls()}
    assert {"/api/rulesets", "/api/validate", "/api/roll", "/api/prob", "/api/sweep", "/api/test"} <= paths
    assert len(curls()) >= 15


def test_every_documented_curl_answers_2xx(tmp_path: Path) -> None:
    settings = Settings(db=str(tmp_path / "doc.db"), token=TOKEN, workers=1, deadline=60.0)
    with TestClient(create_app(settings)) as client:
        for line in curls():
            method, path, headers, body = request_of(line)
            response = client.request(method, path, headers=headers, content=body)
            assert 200 <= response.status_code < 300, f"{line}\n-> {response.status_code} {response.text}"


def test_every_documented_path_is_in_the_schema() -> None:
    schema: dict[str, Any] = TestClient(create_app()).get("/openapi.json").json()
    templates = [re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", p) + "$") for p in schema["paths"]]
    named = set(re.findall(r"(/api/[a-z/{}_]+)", DOC))
    named |= {request_of(line)[1] for line in curls()}
    for path in sorted(named):
        concrete = re.sub(r"\{[^}]+\}", "x", path.rstrip("/"))
        assert any(t.match(concrete) for t in templates), f"{path} is not in /openapi.json"


def test_serve_without_the_extra_names_it() -> None:
    blocked = (
        "import sys; sys.modules['fastapi'] = None\n"
        "from engine.cli import main\n"
        "raise SystemExit(main(['serve']))"
    )
    run = subprocess.run(
        [sys.executable, "-c", blocked], capture_output=True, text=True, cwd=REPO_ROOT, timeout=60
    )
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.strip() == (
        "rulecraft serve: needs the 'serve' extra (fastapi is missing): pip install 'rulecraft[serve]'"
    )


def test_the_engine_imports_without_fastapi() -> None:
    blocked = (
        "import sys; sys.modules['fastapi'] = sys.modules['uvicorn'] = None\n"
        "import engine, engine.cli\n"
        "print(engine.load('chill').name)"
    )
    run = subprocess.run(
        [sys.executable, "-c", blocked], capture_output=True, text=True, cwd=REPO_ROOT, timeout=60
    )
    assert run.returncode == 0 and run.stdout.strip() == "chill", run.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--workers", "0"], "--workers must be 1..64"),
        (["--workers", "100000"], "--workers must be 1..64"),
        (["--queue", "-1"], "--queue must be 0..10,000"),
        (["--queue", "10001"], "--queue must be 0..10,000"),
        (["--host", "999.1.1.1"], "cannot listen on 999.1.1.1 port 8000"),
        (["--deadline", "0"], "--deadline must be more than 0"),
        (["--rulesets", "no/such/folder"], "--rulesets no/such/folder: no such folder"),
    ],
)
def test_serve_refuses_settings_that_make_no_sense(cli: Any, args: list[str], message: str) -> None:
    result = cli("serve", *args)
    assert result.code == 1 and "RC407" in result.err and message in result.err


def test_serve_on_port_0_prints_the_port_it_took_and_a_port_in_use_is_rc407(cli: Any, tmp_path: Path) -> None:
    """Port 0 asks for a free port: the line printed at start names the real one, which answers.
    A file of the served folder that does not load is named at start."""
    import httpx

    (tmp_path / "torn.yaml").write_text("rulecraft: 1\nname: [\n", encoding="utf-8")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "engine",
            "serve",
            "--port",
            "0",
            "--workers",
            "1",
            "--rulesets",
            str(tmp_path),
        ],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = re.search(r"serving on http://127\.0\.0\.1:(\d+) ", line)
        assert found and found[1] != "0", line
        port = int(found[1])
        assert httpx.get(f"http://127.0.0.1:{port}/api/rulesets", timeout=30).status_code == 200
        taken = cli("serve", "--port", str(port))  # the same port, while it is held
        assert taken.code == 1 and "RC407" in taken.err and f"port {port}" in taken.err, taken.err
    finally:
        process.terminate()
        _, err = process.communicate(timeout=30)
    assert "Traceback" not in err, err
    assert f"warning: {tmp_path / 'torn.yaml'} does not load" in err and "RC002" in err, err
