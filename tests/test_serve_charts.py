"""The chart endpoints through an HTTP client against the app: the SVG says what /api/prob and
/api/sweep say, errors are the API's JSON with the CLI's codes, and the page and its files are
served."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi", reason="the serve extra (fastapi) is not installed")
from fastapi.testclient import TestClient  # noqa: E402

from engine.serve.app import create_app  # noqa: E402
from engine.serve.routes_charts import exact  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
CHILL = {"ruleset": "chill", "check": "specific", "inputs": {"target": 55}}


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(workers=1, deadline=60.0)) as c:
        yield c


def _svg(answer: Any) -> ET.Element:
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("image/svg+xml")
    assert "default-src 'none'" in answer.headers["content-security-policy"]
    return ET.fromstring(answer.text)


def _bars(root: ET.Element) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if g.get("class") == "bar"]


def _chances(prob: dict[str, Any]) -> dict[str, Fraction]:
    return {o["name"]: exact(o["probability"]) for o in prob["outcomes"]}


def test_the_distribution_chart_draws_the_exact_answer(client: TestClient) -> None:
    root = _svg(client.post("/api/chart/distribution", json=CHILL))
    prob = client.post("/api/prob", json=CHILL).json()
    drawn = {g.get("data-outcome"): Fraction(g.get("data-probability", "")) for g in _bars(root)}
    assert drawn == _chances(prob)
    assert [g.get("data-outcome") for g in _bars(root)] == [
        o["name"] for o in prob["outcomes"]
    ]  # worst first
    title = root.find(f"{SVG}title")
    assert title is not None and title.text == "specific (target=55, tokens=0, roller=player)"


def test_the_sweep_chart_has_a_line_or_an_area_per_outcome(client: TestClient) -> None:
    body = {**CHILL, "input": "target", "from": 10, "to": 30}
    lines = _svg(client.post("/api/chart/sweep", json=body))
    series = [g for g in lines.iter(f"{SVG}g") if g.get("class") == "series"]
    assert [g.get("data-outcome") for g in series] == [
        "botch",
        "failure",
        "low_success",
        "high_success",
        "colossal_success",
    ]
    for g in series:
        line = g.find(f"{SVG}polyline")
        assert line is not None and len(line.get("points", "").split()) == 21
    areas = _svg(client.post("/api/chart/sweep", json={**body, "stacked": True}))
    assert len(list(areas.iter(f"{SVG}polygon"))) == 5
    assert "rc-stacked" in areas.get("class", "")


def test_the_policies_side_by_side(client: TestClient) -> None:
    body = {"ruleset": "chimera", "check": "skill", "inputs": {"dice": 3, "resolve": 1}}
    root = _svg(client.post("/api/chart/policies", json=body))
    bars = _bars(root)
    policies = ["always", "never", "optimal"]
    assert sorted({g.get("data-series") for g in bars}) == sorted(policies)
    for policy in policies:
        prob = client.post("/api/prob", json={**body, "policy": policy}).json()
        drawn = {
            g.get("data-outcome"): Fraction(g.get("data-probability", ""))
            for g in bars
            if g.get("data-series") == policy
        }
        assert drawn == _chances(prob), policy
    always = client.post("/api/prob", json=body).json()
    optimal = client.post("/api/prob", json={**body, "policy": "optimal"}).json()
    assert _chances(always) != _chances(optimal)  # the chart compares something that differs


def test_the_policies_are_one_solve_so_no_queue_does_not_refuse_them() -> None:
    """`--queue 0` (no solve may wait) and one worker: the chart of policies asked the pool for a
    solve per policy at once, so its second found the pool full and the chart was a 503. They
    are one job now, one place in the pool, and the chart is drawn (the same fractions as
    /api/prob under each policy, asked one at a time)."""
    body = {"ruleset": "chimera", "check": "skill", "inputs": {"dice": 3, "resolve": 1}}
    with TestClient(create_app(workers=1, queue=0, deadline=60.0)) as c:
        bars = _bars(_svg(c.post("/api/chart/policies", json=body)))
        for policy in ("always", "never", "optimal"):
            drawn = {
                g.get("data-outcome"): Fraction(g.get("data-probability", ""))
                for g in bars
                if g.get("data-series") == policy
            }
            assert drawn == _chances(c.post("/api/prob", json={**body, "policy": policy}).json()), policy


def test_a_ruleset_sent_as_text_is_charted(client: TestClient, repo_root: Any) -> None:
    text = (repo_root / "rulesets" / "chill.yaml").read_text(encoding="utf-8")
    body = {"source": text, "name": "mine.yaml", "check": "specific", "inputs": {"target": 55}}
    assert _svg(client.post("/api/chart/distribution", json=body)).find(f"{SVG}title") is not None


@pytest.mark.parametrize(
    ("path", "body", "status", "code"),
    [
        ("distribution", {**CHILL, "check": "specfic"}, 404, "RC402"),
        ("distribution", {**CHILL, "inputs": {"target": 9999}}, 422, "RC403"),
        ("distribution", {**CHILL, "ruleset": "nosuch"}, 404, "RC001"),
        ("sweep", {**CHILL, "input": "target", "from": 1, "to": 100000}, 422, "RC407"),
        ("sweep", {**CHILL, "input": "nosuch", "from": 1, "to": 3}, 422, "RC402"),
        ("policies", {**CHILL, "check": "<svg onload=alert(1)>"}, 404, "RC402"),
        ("distribution", {"check": "specific"}, 422, "RC407"),
    ],
)
def test_errors_are_json_with_the_cli_codes(
    client: TestClient, path: str, body: dict[str, Any], status: int, code: str
) -> None:
    answer = client.post(f"/api/chart/{path}", json=body)
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/json")
    assert answer.json()["error"]["diagnostics"][0]["code"] == code


def test_the_page_and_its_files_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    for ref in ("static/app.js", "static/style.css"):
        assert ref in page.text
        assert client.get("/" + ref).status_code == 200
    script = client.get("/static/app.js").text
    assert "innerHTML" not in script  # everything from the server goes in as text
    assert "http://" not in script and "https://" not in script  # nothing fetched from elsewhere


def test_exact_reads_both_ways_fractions_are_written() -> None:
    assert exact("3/8") == Fraction(3, 8)
    assert exact("1") == 1
    big = Fraction(3**2000, 2**7000)
    assert exact(f"{big.numerator:#x}/{big.denominator:#x}") == big


def test_the_page_files_ship_in_the_wheel(repo_root: Any) -> None:
    """The wheel takes every file under engine/ that git does not ignore (pyproject.toml's hatch
    `packages`), and the app finds them beside its module: none may be ignored."""
    import subprocess

    static = repo_root / "engine" / "serve" / "static"
    files = sorted(p.relative_to(repo_root).as_posix() for p in static.iterdir())
    assert {
        "engine/serve/static/index.html",
        "engine/serve/static/app.js",
        "engine/serve/static/style.css",
    } <= set(files)
    ignored = subprocess.run(["git", "check-ignore", *files], cwd=repo_root, capture_output=True, text=True)
    assert ignored.stdout == "", ignored.stdout


def test_a_charts_tiny_chance_reads_as_text_shows_it() -> None:
    """Review: the SVG charts wrote a chance of 1e-20 as 0.00% (a percent of their own), while
    text wrote `1.0e-18%`: the chart reads it through `render.percent`."""
    from fractions import Fraction

    from engine.tools.svgchart import percent

    assert percent(Fraction(1, 10**20)) == "1.0e-18%"
    assert percent(Fraction(1, 20)) == "5.00%"
    assert percent(Fraction(0)) == "0.00%"


@pytest.mark.parametrize("route", ["/api/chart/distribution", "/api/chart/policies"])
def test_a_chart_refuses_value_which_it_would_not_draw(client: TestClient, route: str) -> None:
    """Both charts took `/api/prob`'s `value` (`"value": "nope"` too) and dropped it unsaid: a
    chart draws outcomes, so `value` is refused as any field the route does not take is."""
    body = {"ruleset": "chimera", "check": "skill", "inputs": {"dice": 2, "resolve": 1}}
    for value in ("nope", None):
        sent = client.post(route, json={**body, "value": value})
        assert sent.status_code == 422, (value, sent.text[:200])
        [d] = sent.json()["error"]["diagnostics"]
        assert d["code"] == "RC407" and "value" in d["message"], d
    _svg(client.post(route, json=body))
