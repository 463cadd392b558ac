"""A query parameter a route does not take is refused (hunt 13i): FastAPI ignored it, so
`GET /api/campaigns/race1/log?limt=5` answered the whole page and `POST /api/roll?sed=5` rolled
with a seed of its own, both silently. 422 `RC407` naming it and the nearest the route takes, as a
parameter given twice is (`app.QueryOnce`); one check for every route (`body.OnceRoute`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from engine.serve.app import Settings, create_app  # noqa: E402
from engine.serve.body import OnceRoute  # noqa: E402

AUTH = {"Authorization": "Bearer s3cret"}
ROLL = {"ruleset": "chill", "check": "specific", "inputs": {"target": 55}, "seed": 1}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db: Path = tmp_path_factory.mktemp("serve") / "campaigns.db"
    with TestClient(create_app(Settings(db=str(db), token="s3cret", workers=1, deadline=60.0))) as c:
        made = {"name": "race1", "ruleset": "chill", "params": {"players": 4}}
        assert c.post("/api/campaigns", json=made, headers=AUTH).status_code == 201
        yield c


def _refused(answer: Any) -> dict[str, str]:
    assert answer.status_code == 422, answer.text
    [said] = answer.json()["error"]["diagnostics"]
    assert said["code"] == "RC407"
    return dict(said)


def test_a_misspelt_query_parameter_is_refused_with_the_nearest(client: TestClient) -> None:
    said = _refused(client.get("/api/campaigns/race1/log?limt=5"))
    assert said["message"] == "/api/campaigns/{name}/log takes no query parameter 'limt'"
    assert said["api_hint"] == "did you mean 'limit'?"
    said = _refused(client.get("/api/campaigns?aftr=a"))
    assert said["api_hint"] == "did you mean 'after'?"
    assert client.get("/api/campaigns/race1/log?limit=5&newest=true").status_code == 200
    assert client.get("/api/campaigns?limit=3").status_code == 200


def test_a_query_parameter_to_a_route_that_takes_none_is_refused(client: TestClient) -> None:
    said = _refused(client.post("/api/roll?sed=5", json=ROLL))
    assert said["message"] == "/api/roll takes no query parameter 'sed'"
    assert said["api_hint"] == "it takes no query parameters"
    said = _refused(client.get("/api/rulesets/chill?" + "x" * 5000 + "=1"))
    assert len(said["message"]) < 300  # the name is cut, as every echoed text is
    assert client.post("/api/roll", json=ROLL).status_code == 200


def test_every_route_refuses_a_query_parameter_it_does_not_take(client: TestClient) -> None:
    from engine.serve import routes_campaigns, routes_charts, routes_eval, routes_rulesets

    modules = (routes_campaigns, routes_charts, routes_eval, routes_rulesets)
    routes = [r for m in modules for r in m.router.routes if isinstance(r, OnceRoute)]
    assert len(routes) > 15
    for route in routes:
        path = route.path.replace("{name}", "race1").replace("{ruleset}", "chill")
        path = path.replace("{action}", "a").replace("{period}", "p")
        method = sorted(route.methods)[0]
        answer = client.request(method, path + "?zz_unknown=1", headers=AUTH, json={})
        assert answer.status_code == 422, (path, answer.text)
        assert "takes no query parameter 'zz_unknown'" in answer.json()["error"]["diagnostics"][0]["message"]


@pytest.mark.parametrize("value", ["1.0", "+1", "%201", "1_0", "", "1e0", "0x1"])
@pytest.mark.parametrize(
    "query", ["/api/campaigns/race1/log?limit=", "/api/campaigns/race1/log?after=", "/api/campaigns?limit="]
)
def test_a_whole_number_in_the_query_is_written_in_digits(client: TestClient, query: str, value: str) -> None:
    """`?limit=1.0` was read as 1, `+1` and ` 1` as 1 and `1_0` as 10 (pydantic's conversion of a
    query's text, Python's `int`), where a body's numbers are JSON's own (`Strict`). 422 `RC407`,
    as a body's field of the wrong type is."""
    said = _refused(client.get(query + value))
    name = query.rsplit("?", 1)[1].rstrip("=")
    assert said["message"].startswith(f"query parameter '{name}' is ")
    assert client.get(query + "1").status_code == 200
    assert client.get(query + "001").status_code == 200


def test_a_whole_number_below_its_bound_is_told_its_bound(client: TestClient) -> None:
    said = _refused(client.get("/api/campaigns/race1/log?limit=-1"))
    assert "greater than or equal to 1" in said["message"]
