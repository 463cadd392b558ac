"""A sweep's answer is bounded (hunt 13i): its values times the check's outcomes at most
`jobs.MAX_SWEEP_VALUES`, refused before the solve, and its exact chances' text at most
`jobs.MAX_SWEEP_CHARACTERS`, counted by the worker as it solves. A check of 4,500 outcomes swept
over 201 points was a 25-38 MB answer, built in the server process past the deadline."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

import engine  # noqa: E402
from engine.errors import InputError  # noqa: E402
from engine.serve import jobs  # noqa: E402
from engine.serve.app import Settings, create_app  # noqa: E402


def many(outcomes: int) -> str:
    """A check of `outcomes` outcomes, one d2 deciding between two of them."""
    names = ", ".join(f"o{i}" for i in range(outcomes))
    return f"""\
rulecraft: 1
name: many
checks:
  c:
    inputs:
      k: {{type: int, min: 0, max: 1000, default: 0}}
    roll:
      d: {{die: 2}}
    outcomes: [{names}]
    outcome: "o1 if d == 1 else o0"
"""


@pytest.fixture()
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(workers=1, deadline=60.0))) as c:
        yield c


def _sweep(outcomes: int, to: int) -> dict[str, Any]:
    return {"source": many(outcomes), "check": "c", "input": "k", "inputs": {}, "from": 0, "to": to}


@pytest.mark.parametrize("path", ["/api/sweep", "/api/chart/sweep"])
def test_a_sweep_of_too_many_chances_is_refused_before_any_solve(client: TestClient, path: str) -> None:
    started = time.monotonic()
    answer = client.post(path, json=_sweep(4500, 200))
    assert answer.status_code == 422, answer.text[:300]
    [said] = answer.json()["error"]["diagnostics"]
    assert said["code"] == "RC407"
    assert "at most 10,050 chances" in said["message"] and "4,500 outcomes" in said["message"]
    assert said["api_hint"] == "sweep at most 2 values of this check at once (e.g. 0..1)"
    assert time.monotonic() - started < 5


def test_a_sweep_at_the_bound_is_answered(client: TestClient) -> None:
    points = client.post("/api/sweep", json=_sweep(50, 200)).json()["points"]
    assert len(points) == 201 and len(points[0]["outcomes"]) == 50
    assert points[3]["outcomes"]["o1"]["probability"] == "1/2"
    assert client.post("/api/sweep", json=_sweep(51, 200)).status_code == 422
    assert client.post("/api/sweep", json=_sweep(51, 196)).status_code == 200  # 197 * 51 = 10,047


def test_a_sweep_s_answer_is_bounded_by_its_text_as_it_is_solved(monkeypatch: pytest.MonkeyPatch) -> None:
    rs = engine.load(many(3))
    body = {"check": "c", "input": "k", "inputs": {}, "from": 0, "to": 9, "policy": None}
    assert len(jobs.sweep(rs, body)["points"]) == 10
    monkeypatch.setattr(jobs, "MAX_SWEEP_CHARACTERS", 20)  # each point writes "1/2" "1/2" "0": 7
    with pytest.raises(InputError) as refused:
        jobs.sweep(rs, body)
    [said] = refused.value.diagnostics
    assert said.code == "RC503" and "passed 20 characters of exact chances by 2 (of 0..9)" in said.message
