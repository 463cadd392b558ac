"""`rulecraft serve` through FastAPI's TestClient: every endpoint, and every class of error with
its status and the CLI's diagnostic code (the status mapping docs/server.md documents)."""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

import engine  # noqa: E402
from engine.serve.app import Settings, create_app  # noqa: E402
from engine.syntax.resources import shipped_rulesets  # noqa: E402

BROKEN = """\
rulecraft: 1
name: broken
checks:
  hit:
    roll: {d: {die: 6}}
    outcomes: [miss, hit]
    outcome: "'hit' if d >= 5 else 'miss' +"
"""
COIN = """\
rulecraft: 1
name: coin
checks:
  flip:
    inputs:
      bias: {type: int, min: 0, max: 4, default: 0}
    roll: {d: {die: 6}}
    outcomes: [tails, heads]
    outcome: "'heads' if d + bias >= 4 else 'tails'"
"""


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One app for the module. Its deadline is long: these tests are about answers, not time, and
    the worker runs at a lower priority on a machine that may be shared and loaded."""
    db = tmp_path_factory.mktemp("serve") / "campaigns.db"
    with TestClient(create_app(Settings(db=str(db), token="s3cret", workers=1, deadline=60.0))) as c:
        yield c


def error(response: Any, status: int) -> list[dict[str, Any]]:
    """The diagnostics of an error response, after checking its status and its shape."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and body["error"]["status"] == status
    diagnostics: list[dict[str, Any]] = body["error"]["diagnostics"]
    assert diagnostics and all(d["code"].startswith("RC") and d["text"] for d in diagnostics)
    return diagnostics


# -- rulesets ---------------------------------------------------------------------------------------


def test_the_shipped_rulesets_are_listed_with_their_checks(client: TestClient) -> None:
    listed = {r["name"]: r for r in client.get("/api/rulesets").json()}
    assert {"castle", "chill", "chimera", "chthonian"} <= set(listed)
    assert listed["chill"]["checks"] == list(engine.load("chill").checks)
    assert listed["castle"]["scenes"] == list(engine.load("castle").scenes)


def test_a_ruleset_is_shown_with_its_text_and_each_checks_form(client: TestClient) -> None:
    shown = client.get("/api/rulesets/chill").json()
    assert shown["source"].startswith("# yaml-language-server") and "specific:" in shown["source"]
    specific = shown["checks"]["specific"]
    target = next(i for i in specific["inputs"] if i["name"] == "target")
    assert target == {**target, "type": "int", "minimum": 1, "maximum": 300, "default": None}
    assert "botch" in specific["outcomes"]


def test_a_misspelt_ruleset_is_404_with_the_nearest_name(client: TestClient) -> None:
    [d] = error(client.get("/api/rulesets/chil"), 404)
    assert d["code"] == "RC001" and "chill" in d["hint"]


def test_a_served_folder_adds_its_rulesets(tmp_path: Path) -> None:
    (tmp_path / "coin.yaml").write_text(COIN, encoding="utf-8")
    with TestClient(create_app(rulesets=tmp_path)) as c:
        assert "coin" in [r["name"] for r in c.get("/api/rulesets").json()]
        rolled = c.post("/api/roll", json={"ruleset": "coin", "check": "flip", "seed": 1}).json()
        assert rolled["outcome"] in ("heads", "tails")


def test_a_named_pipe_in_the_served_folder_is_rc001_not_waited_on(tmp_path: Path) -> None:
    """The server read a served file for its digest before its load's regular-file check, so a
    named pipe in the folder held each `GET /api/rulesets` in `open` for good (and `serve` at its
    start): it is RC001, as docs/security.md says, and the rest is listed."""
    import threading

    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    (tmp_path / "coin.yaml").write_text(COIN, encoding="utf-8")
    pipe = tmp_path / "pipe.yaml"
    os.mkfifo(pipe)
    answers: list[Any] = []

    def ask() -> None:
        with TestClient(create_app(rulesets=tmp_path)) as c:
            answers.append(c.get("/api/rulesets"))
            answers.append(c.get("/api/rulesets/pipe"))

    asking = threading.Thread(target=ask, daemon=True)
    asking.start()
    asking.join(30)
    if asking.is_alive():  # let a reader stuck in `open` go: a writer comes and leaves
        os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
    assert not asking.is_alive() and len(answers) == 2, "a request waited on the named pipe"
    listed, pipe_asked = answers
    assert listed.status_code == 200 and "coin" in [r["name"] for r in listed.json()]
    [d] = error(pipe_asked, 422)
    assert d["code"] == "RC001" and "not a regular file" in d["message"], d


def test_a_served_file_over_the_limit_is_never_read_whole(tmp_path: Path, monkeypatch: Any) -> None:
    """The server read an oversized served file whole on every request for its digest (a 1 GiB
    file: 3.3 s and 1.1 GB on each `GET /api/rulesets`): at most `max_yaml_bytes` + 1 of it is."""
    from engine import Limits
    from engine.serve import app as app_module

    most = 1000
    big = tmp_path / "big.yaml"
    with big.open("wb") as f:
        f.write(b"rulecraft: 1\n")
        f.truncate(8 * 1024 * 1024)  # sparse: 8 MiB to read, none of it on disc
    read: list[int] = []
    real = app_module.digest
    monkeypatch.setattr(app_module, "digest", lambda data: read.append(len(data)) or real(data))
    with TestClient(create_app(Settings(rulesets=tmp_path, limits=Limits(max_yaml_bytes=most)))) as c:
        for _ in range(2):
            assert "big" not in [r["name"] for r in c.get("/api/rulesets").json()]
        [d] = error(c.get("/api/rulesets/big"), 422)
        assert d["code"] == "RC004" and "max_yaml_bytes" in d["text"], d
    assert read and max(read) <= most + 1, read


def test_a_served_folder_reads_the_suffix_in_any_case(tmp_path: Path) -> None:
    """`serve --rulesets` listed only `*.yaml` and `*.yml` in lower case, where `rulecraft validate`
    of the same folder reads `RULES.YAML` too: the served ruleset was 404 (an audit)."""
    for name in ("RULES.YAML", "old.Yml", "plain.yaml"):
        (tmp_path / name).write_text(COIN, encoding="utf-8")
    (tmp_path / "notes.txt").write_text(COIN, encoding="utf-8")
    (tmp_path / "near.yaml.bak").write_text(COIN, encoding="utf-8")
    with TestClient(create_app(rulesets=tmp_path)) as c:
        names = [r["name"] for r in c.get("/api/rulesets").json()]
        assert {"RULES", "old", "plain"} <= set(names), names
        assert not {"notes", "near.yaml", "near"} & set(names), names
        for name in ("RULES", "old"):
            assert c.get(f"/api/rulesets/{name}").json()["checks"].keys() == {"flip"}
            rolled = c.post("/api/roll", json={"ruleset": name, "check": "flip", "seed": 1})
            assert rolled.status_code == 200 and rolled.json()["outcome"] in ("heads", "tails")


def test_a_served_folder_lists_what_validate_of_it_reads(tmp_path: Path) -> None:
    """Review: `serve --rulesets` took every entry with a ruleset's suffix, a folder `sub.yaml/`
    (named unloadable at start, and 422 with its absolute path when asked for) and a hidden
    `.hidden.yml` (served) too, where `rulecraft validate` of the folder reads neither."""
    from engine.cli import _yaml_below

    (tmp_path / "coin.yaml").write_text(COIN, encoding="utf-8")
    (tmp_path / "sub.yaml").mkdir()
    (tmp_path / "sub.yaml" / "inner.yaml").write_text(COIN, encoding="utf-8")
    (tmp_path / ".hidden.yml").write_text(COIN, encoding="utf-8")
    app = create_app(rulesets=tmp_path)
    with TestClient(app) as c:
        names = [r["name"] for r in c.get("/api/rulesets").json()]
        assert "coin" in names and not {"sub", ".hidden", "inner"} & set(names), names
        for name in ("sub", ".hidden"):
            response = c.get(f"/api/rulesets/{name}")
            assert error(response, 404)[0]["code"] == "RC001" and str(tmp_path) not in response.text
    assert app.state.server.catalog.unloadable() == []
    served = {p for n, p in app.state.server.catalog.names().items() if p.parent == tmp_path}
    assert served == {p for p in _yaml_below(tmp_path) if p.parent == tmp_path} == {tmp_path / "coin.yaml"}


def test_a_served_file_whose_name_is_not_utf8_is_not_served(tmp_path: Path) -> None:
    """Review: a file named with a byte UTF-8 cannot decode (`caf\\xe9.yaml`, which Linux allows)
    was listed by `GET /api/rulesets` as a name with a lone surrogate: JSON no strict client reads,
    and a name no request can send. It is left out, and `Catalog.misnamed` names it (`serve` says
    so when it starts: test_serve_docs)."""
    (tmp_path / "coin.yaml").write_text(COIN, encoding="utf-8")
    bad = tmp_path / os.fsdecode(b"caf\xe9.yaml")
    bad.write_text(COIN, encoding="utf-8")
    app = create_app(rulesets=tmp_path)
    with TestClient(app) as c:
        listed = c.get("/api/rulesets")
        assert listed.status_code == 200
        names = [r["name"] for r in json.loads(listed.content.decode("utf-8", "strict"))]
        assert "coin" in names and not [n for n in names if n.startswith("caf")], names
    catalog = app.state.server.catalog
    assert bad not in catalog.names().values() and catalog.unloadable() == []
    [(path, exc)] = catalog.misnamed()
    assert path == bad and exc.diagnostics[0].code == "RC001", exc


def test_a_served_file_that_cannot_be_read_is_named_by_its_file_name(tmp_path: Path) -> None:
    """Review: reading a served file named it by its path on the server in the error ('cannot read
    /…/gone.yaml: No such file or directory', '/…/latin.yaml is not UTF-8 text'), though the
    server loads it under its file name alone. Every message of reading names it as loaded."""
    (tmp_path / "gone.yaml").symlink_to(tmp_path / "nowhere.yaml")
    (tmp_path / "latin.yaml").write_bytes(COIN.replace("coin", "caf\xe9").encode("latin-1"))
    with TestClient(create_app(rulesets=tmp_path)) as c:
        for name, says in [("gone", "cannot read gone.yaml: "), ("latin", "latin.yaml is not UTF-8 text")]:
            response = c.get(f"/api/rulesets/{name}")
            [d] = error(response, 404 if name == "gone" else 422)
            assert d["code"] == "RC001" and d["message"].startswith(says), d["message"]
            assert str(tmp_path) not in response.text, response.text


def test_one_broken_file_in_the_served_folder_leaves_the_list_to_the_others(tmp_path: Path) -> None:
    """The list leaves a file that does not load out (it was a 422 for every caller); asked for by
    name, it answers with its own error (`serve` names it when it starts: test_serve_docs)."""
    (tmp_path / "coin.yaml").write_text(COIN, encoding="utf-8")
    (tmp_path / "torn.yaml").write_text("rulecraft: 1\nname: [\n", encoding="utf-8")
    with TestClient(create_app(rulesets=tmp_path)) as c:
        listed = c.get("/api/rulesets")
        assert listed.status_code == 200
        names = [r["name"] for r in listed.json()]
        assert "coin" in names and "chill" in names and "torn" not in names
        [d] = error(c.get("/api/rulesets/torn"), 422)
        assert d["code"] == "RC002"


# -- validate ---------------------------------------------------------------------------------------


def test_validate_places_an_error_at_its_line_and_column(client: TestClient) -> None:
    answer = client.post("/api/validate", json={"source": BROKEN, "name": "mine.yaml"})
    assert answer.status_code == 200
    body = answer.json()
    assert body["ok"] is False and body["checks"] == {}
    d = body["diagnostics"][0]
    assert d["code"] == "RC201" and d["file"] == "mine.yaml" and d["line"] == 7
    assert d["source_line"] == BROKEN.splitlines()[6] and d["column"] > 1
    assert "^" in d["text"] and d["text"].startswith("mine.yaml:7:")


def test_validate_of_a_good_ruleset_lists_its_checks(client: TestClient) -> None:
    body = client.post("/api/validate", json={"source": COIN}).json()
    assert body["ok"] is True and list(body["checks"]) == ["flip"]
    assert body["checks"]["flip"]["inputs"][0] == {
        "name": "bias",
        "type": "int",
        "default": 0,
        "minimum": 0,
        "maximum": 4,
        "choices": None,
        "choices_left_out": None,
        "description": None,
    }


# -- roll -------------------------------------------------------------------------------------------


def test_a_seeded_roll_is_the_engines_roll_with_the_same_seed(client: TestClient) -> None:
    body = {"ruleset": "chill", "check": "specific", "inputs": {"target": 55}, "seed": 42}
    first, again = client.post("/api/roll", json=body).json(), client.post("/api/roll", json=body).json()
    assert first == again
    local = engine.load("chill").roll("specific", random.Random(42), target=55)
    assert first["outcome"] == local.outcome.name and first["seed"] == 42
    assert first["trace"] == local.as_json()["trace"] and "=> " in first["text"]


def test_forced_dice_decide_the_roll(client: TestClient) -> None:
    body = {
        "ruleset": "chill",
        "check": "specific",
        "inputs": {"target": 55},
        "force": {"tens": 7, "ones": 7},
    }
    assert client.post("/api/roll", json=body).json()["outcome"] == "botch"
    one = {"source": COIN, "check": "flip", "force": [6]}
    assert client.post("/api/roll", json=one).json()["outcome"] == "heads"
    assert client.post("/api/roll", json={**one, "force": [1]}).json()["outcome"] == "tails"


def test_a_roll_without_its_trace(client: TestClient) -> None:
    body = {"source": COIN, "check": "flip", "seed": 3, "trace": False}
    assert client.post("/api/roll", json=body).json()["trace"] == []


LONG_NAMES = (
    "rulecraft: 1\nname: long\nscales:\n  s: [{lo}, {hi}]\nchecks:\n  c:\n    roll:\n      p:\n"
    "        pool: 1\n        die: 300\n        each: \"'{hi}' if face == 300 else '{lo}'\"\n"
    "        triggers:\n          - {{on: face < 300, must: add}}\n        cap: 300\n"
    "    outcomes: [a, b]\n    outcome: \"'a' if count(p, '{hi}') > 0 else 'b'\"\n"
)


def test_a_trace_too_long_to_show_is_refused_and_rolls_without_it(client: TestClient) -> None:
    """Found by hunt 13za: a pool shown after each of its rerolls, its dice read as names of
    3,000 characters, made a 300 MB answer to a 6 KB ruleset (its `text` the whole trace even
    with `"trace": false`). The trace's text is charged to the budget (RC503, the roll itself
    fits); without it the answer is the dice and outcome, its text without the steps."""
    source = LONG_NAMES.format(lo="l" * 3000, hi="h" * 3000)
    body = {"source": source, "check": "c", "seed": 1, "force": [1] * 300 + [300]}
    refused = client.post("/api/roll", json=body)
    assert refused.status_code == 422, len(refused.content)
    [d] = error(refused, 422)
    assert d["code"] == "RC503" and "by the roll's trace" in d["message"]
    got = client.post("/api/roll", json={**body, "trace": False})
    assert got.status_code == 200, got.json()["diagnostics"]
    assert got.json()["trace"] == [] and got.json()["outcome"] == "a"
    assert len(got.content) < 2_000_000 and "reroll" not in got.json()["text"]
    short = LONG_NAMES.format(lo="lo", hi="hi")  # the same roll with short names shows its trace
    shown = client.post("/api/roll", json={**body, "source": short}).json()
    assert shown["outcome"] == "a" and len(shown["trace"]) > 300


def test_a_misspelt_check_is_404_with_did_you_mean(client: TestClient) -> None:
    [d] = error(client.post("/api/roll", json={"ruleset": "chill", "check": "specfic"}), 404)
    assert d["code"] == "RC402" and d["hint"] == "did you mean 'specific'?"


@pytest.mark.parametrize(
    ("inputs", "code"),
    [({}, "RC401"), ({"targte": 5}, "RC402"), ({"target": 999}, "RC403"), ({"target": "high"}, "RC404")],
)
def test_bad_inputs_are_422_with_their_code(client: TestClient, inputs: dict[str, Any], code: str) -> None:
    diagnostics = error(
        client.post("/api/roll", json={"ruleset": "chill", "check": "specific", "inputs": inputs}), 422
    )
    assert diagnostics[0]["code"] == code


def test_a_bad_policy_and_bad_forced_dice_are_422(client: TestClient) -> None:
    body = {"ruleset": "chill", "check": "specific", "inputs": {"target": 5}}
    assert error(client.post("/api/roll", json={**body, "policy": "greedy"}), 422)[0]["code"] == "RC408"
    assert error(client.post("/api/roll", json={**body, "force": {"tens": 11}}), 422)[0]["code"] == "RC405"
    assert error(client.post("/api/roll", json={**body, "force": [1, 2]}), 422)[0]["code"] == "RC405"


def test_a_forced_face_that_is_no_whole_number_is_said_to_be_none(client: TestClient, cli: Any) -> None:
    """`"force": {"tens": 7.0}` said "7.0 is not a face of this die (0..9)", which 7 is (found by a
    hunt): it is no whole number, said so over HTTP as on the command line (`--force tens=7.0`)."""
    body = {
        "ruleset": "chill",
        "check": "specific",
        "inputs": {"target": 5},
        "force": {"tens": 7.0, "ones": 7},
    }
    [d] = error(client.post("/api/roll", json=body), 422)
    assert (d["code"], d["message"]) == (
        "RC405",
        "forced tens = 7.0 is not a whole number, so no face of this die (0..9)",
    )
    said = cli("roll", "chill", "specific", "--input", "target=5", "--force", "tens=7.0", "--force", "ones=7")
    assert (
        said.code == 1
        and "forced tens = '7.0' is not a whole number, so no face of this die (0..9)" in said.err
    )


@pytest.mark.parametrize(
    "body",
    [
        {"check": "flip"},  # neither a ruleset nor a source
        {"ruleset": "chill", "source": COIN, "check": "flip"},  # both
        {"ruleset": "chill", "check": "specific", "inputz": {}},  # an unknown field
        {"ruleset": "chill", "check": "specific", "seed": -1},  # a seed out of range
        {"ruleset": "chill", "check": 7},  # a check that is no name
    ],
)
def test_a_request_of_the_wrong_shape_is_422_rc407(client: TestClient, body: dict[str, Any]) -> None:
    assert {d["code"] for d in error(client.post("/api/roll", json=body), 422)} == {"RC407"}


def test_a_body_that_is_not_json_is_422(client: TestClient) -> None:
    sent = client.post("/api/roll", content=b"{not json", headers={"content-type": "application/json"})
    assert error(sent, 422)[0]["code"] == "RC407"


@pytest.mark.parametrize(
    ("path", "body", "key"),
    [
        (
            "/api/roll",
            b'{"ruleset": "chill", "check": "specific", "inputs": {"target": 55, "target": 65}}',
            "target",
        ),
        (
            "/api/prob",
            b'{"ruleset": "chill", "check": "specific", "check": "general", "inputs": {"target": 5}}',
            "check",
        ),
        ("/api/campaigns", b'{"name": "twice", "ruleset": "chill", "name": "again"}', "name"),
    ],
)
def test_a_key_given_twice_is_refused_not_overridden(
    client: TestClient, path: str, body: bytes, key: str
) -> None:
    """JSON parsers keep the last of two equal keys; the API refuses them, as the CLI refuses a
    NAME=VALUE given twice, and acts on nothing (no roll, no campaign made)."""
    sent = client.post(path, content=body, headers={"content-type": "application/json", **AUTH})
    [d] = error(sent, 422)
    assert d["code"] == "RC407" and f"the key '{key}' twice" in d["message"]
    assert client.get("/api/campaigns/twice").status_code == 404
    assert client.get("/api/campaigns/again").status_code == 404


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b'{"ruleset": "chill", "check": "specific", "inputs": {"\\ud800": 5}}', "lone surrogate"),
        (b'{"source": "name: x\\udcff", "check": "specific"}', "lone surrogate"),
        (b'{"ruleset": "chill\xff", "check": "specific"}', "not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "deeper"),
        (
            b'{"ruleset": "chill", "check": "specific", "seed": ' + b"9" * 5000 + b"}",
            "more than 4,300 digits",
        ),
        (
            b'{"ruleset": "chill", "check": "specific", "inputs": {"target": }}',
            "Expecting value (line 1, column 64)",
        ),
    ],
    # short ids: pytest puts the test's id in the environment (PYTEST_CURRENT_TEST), which the
    # server's worker processes inherit; an id holding the 200,000-byte body is longer than one
    # environment string may be, so starting a process from this test failed (E2BIG)
    ids=["surrogate-input", "surrogate-source", "not-utf8", "deep", "long-number", "bad-json"],
)
def test_a_body_that_cannot_be_read_is_one_422_that_says_why(
    client: TestClient, body: bytes, says: str
) -> None:
    """Text no UTF-8 store or terminal can take (a lone surrogate from JSON's escape), bytes that
    are not UTF-8, nesting past the reader's depth and a number past Python's digit limit were a
    500 from the route's source handling, or FastAPI's 400 "There was an error parsing the body";
    each is one 422 RC407 now that names the trouble."""
    sent = client.post("/api/roll", content=body, headers={"content-type": "application/json"})
    [d] = error(sent, 422)
    assert d["code"] == "RC407" and says in d["message"], d["message"]
    assert "sys." not in d["message"], d["message"]  # Python's advice, which a client cannot take


PYTHON_NAME = re.compile(r"\b[A-Z]\w*\.[a-z_]\w*\b|\bLimits\b")
"""A Python class's method (`Campaign.create`, `Campaign.join`) or `Limits`, which a client of the
API cannot call."""


def test_a_campaign_name_the_store_cannot_keep_is_422(client: TestClient) -> None:
    """Said in a client's words: the messages began with the Python method that checked the name
    (`Campaign.create: the campaign's name ...`, `Campaign.join: ...`), found by a review."""
    made = {"name": "named", "ruleset": "chill", "params": {"players": 4}}
    assert client.post("/api/campaigns", json=made, headers=AUTH).status_code == 201
    for bad in ["", "a/b", " padded", "x" * 101, ".", ".."]:  # '..' was made, and no URL reached it
        [d] = error(client.post("/api/campaigns", json={"name": bad, "ruleset": "chill"}, headers=AUTH), 422)
        assert d["code"] == "RC410" and "the campaign's name" in d["message"], d["message"]
        sent = {**made, "name": "other", "characters": {bad: {}}}
        if bad:  # an empty key: the campaign's own parameters have no character to check
            [c] = error(client.post("/api/campaigns", json=sent, headers=AUTH), 422)
            [j] = error(client.post("/api/campaigns/named/join", json={"character": bad}, headers=AUTH), 422)
            assert c["code"] == j["code"] == "RC410" and "the character's name" in j["message"], j["message"]
            for said in (c, j):
                assert not PYTHON_NAME.search(said["message"] + said["text"]), said["text"]
        assert not PYTHON_NAME.search(d["message"] + d["text"]), d["text"]


def test_a_ruleset_sent_as_text_is_reported_at_its_own_lines(client: TestClient) -> None:
    [d] = error(client.post("/api/roll", json={"source": BROKEN, "name": "b.yaml", "check": "hit"}), 422)
    assert d["code"] == "RC201" and d["file"] == "b.yaml" and d["line"] == 7


def test_an_unknown_path_is_a_json_404(client: TestClient) -> None:
    assert error(client.get("/api/nothing"), 404)[0]["code"] == "RC407"


# -- exact answers ----------------------------------------------------------------------------------


def test_prob_is_the_exact_distribution(client: TestClient) -> None:
    body = {"ruleset": "chill", "check": "specific", "inputs": {"target": 50}}
    answer = client.post("/api/prob", json=body).json()
    exact = engine.load("chill").distribution("specific", target=50)
    assert {o["name"]: Fraction(o["probability"]) for o in answer["outcomes"]} == {
        s.name: p for s, p in exact.table()
    }
    assert sum(Fraction(o["probability"]) for o in answer["outcomes"]) == 1
    assert all(abs(o["float"] - float(Fraction(o["probability"]))) < 1e-12 for o in answer["outcomes"])
    assert "value" not in answer


def test_prob_of_a_named_value(client: TestClient) -> None:
    rs = engine.load("chill")
    check = rs.check("specific")
    name = next(iter(rs.distribution("specific", target=50).values))
    body = {"ruleset": "chill", "check": check.name, "inputs": {"target": 50}, "value": name}
    values = client.post("/api/prob", json=body).json()["value"]
    assert sum(Fraction(v["probability"]) for v in values) == 1
    [d] = error(client.post("/api/prob", json={**body, "value": name + "x"}), 422)
    assert d["code"] == "RC402" and name in (d["hint"] or "")
    # at the check, as the command line tells it (it had no file, line or column)
    assert (d["file"], d["line"], d["source_line"]) == ("chill.yaml", check.span.line, "  specific:"), d


def test_prob_of_a_value_an_auto_rule_left_unrolled_says_nothing_was_rolled(client: TestClient) -> None:
    """As the command line says it, at the check: not 'no numeric or scale value'."""
    source = COIN.replace(
        "    roll:", "    auto: [{when: bias == 4, then: heads}]\n    let: {total: d + bias}\n    roll:"
    )
    body = {"source": source, "check": "flip", "inputs": {"bias": 4}, "value": "total"}
    [d] = error(client.post("/api/prob", json=body), 422)
    assert d["code"] == "RC402" and (d["line"], d["source_line"]) == (4, "  flip:"), d
    assert d["message"] == (
        "check 'flip' has no value 'total' for these inputs: "
        "an auto rule decided the outcome before the roll, and nothing was rolled"
    )
    assert client.post("/api/prob", json={**body, "inputs": {"bias": 3}}).status_code == 200


def test_a_sweep_is_one_exact_distribution_per_value(client: TestClient) -> None:
    body = {"source": COIN, "check": "flip", "input": "bias", "from": 0, "to": 3}
    points = client.post("/api/sweep", json=body).json()["points"]
    assert [p["x"] for p in points] == [0, 1, 2, 3]
    assert [Fraction(p["outcomes"]["heads"]["probability"]) for p in points] == [
        Fraction(3, 6),
        Fraction(4, 6),
        Fraction(5, 6),
        Fraction(6, 6),
    ]
    # a form that sends every input (the playground's) may sweep one of them: each point replaces it
    given = client.post("/api/sweep", json={**body, "inputs": {"bias": 2}}).json()["points"]
    assert given == points
    assert error(client.post("/api/sweep", json={**body, "input": "bais"}), 422)[0]["code"] == "RC402"
    assert error(client.post("/api/sweep", json={**body, "to": 5000}), 422)[0]["code"] == "RC407"
    assert error(client.post("/api/sweep", json={**body, "to": 9}), 422)[0]["code"] == "RC403"


def test_test_runs_the_rulesets_examples(client: TestClient) -> None:
    answer = client.post("/api/test", json={"ruleset": "chill"}).json()
    assert answer["failed"] == 0 and answer["passed"] == len(answer["results"]) > 5
    example = "{name: always heads, inputs: {bias: 0}, dice: {d: 1}, expect: {outcome: heads}}"
    wrong = COIN + f"    examples:\n      - {example}\n"
    failed = client.post("/api/test", json={"source": wrong}).json()
    assert failed["failed"] == 1 and failed["results"][0]["diagnostics"][0]["code"] == "RC701"


def test_scene_odds_and_a_played_scene(client: TestClient) -> None:
    rs = engine.load("castle")
    scene = "shootout"  # solved in milliseconds (the duel takes a second or more)
    assert scene in rs.scenes
    odds = client.post("/api/scenes/odds", json={"ruleset": "castle", "scene": scene}).json()
    assert odds == json.loads(json.dumps(rs.scene_odds(scene).as_json()))
    played = client.post("/api/scenes/roll", json={"ruleset": "castle", "scene": scene, "seed": 5}).json()
    assert played["seed"] == 5 and played == {**rs.play_scene(scene, random.Random(5)).as_json(), "seed": 5}
    [d] = error(client.post("/api/scenes/odds", json={"ruleset": "castle", "scene": scene + "x"}), 404)
    assert d["code"] == "RC907" and scene in (d["hint"] or "")
    # a party or a number the scene does not declare: the request does not fit (no campaign refused it)
    for fields in ({"parties": {"yuo": {}}}, {"expect": ["you.nosuch"]}):
        body = {"ruleset": "castle", "scene": scene, **fields}
        [d] = error(client.post("/api/scenes/odds", json=body), 422)
        assert d["code"] == "RC907", fields


# -- campaigns --------------------------------------------------------------------------------------

AUTH = {"Authorization": "Bearer s3cret"}


def test_a_campaign_through_the_api(client: TestClient) -> None:
    made = client.post(
        "/api/campaigns", json={"name": "case", "ruleset": "chill", "params": {"players": 4}}, headers=AUTH
    )
    assert made.status_code == 201, made.text
    assert made.json()["shared"]["tokens"] == {"light": 3, "dark": 2}
    acted = client.post(
        "/api/campaigns/case/act",
        json={"action": "player_roll", "inputs": {"target": 55}, "force": {"tens": 7, "ones": 7}},
        headers=AUTH,
    ).json()
    assert acted["roll"]["outcome"] == "botch" and acted["state"]["shared"]["tokens"] == {
        "light": 2,
        "dark": 3,
    }
    undone = client.post("/api/campaigns/case/undo", headers=AUTH).json()
    assert undone["state"]["shared"]["tokens"] == {"light": 3, "dark": 2}
    assert client.get("/api/campaigns/case").json()["shared"]["tokens"] == {"light": 3, "dark": 2}
    log = client.get("/api/campaigns/case/log").json()
    assert [e["kind"] for e in log][-1] == "undo" and [e["seq"] for e in log] == list(range(1, len(log) + 1))
    assert {"name": "case", "ruleset": "chill", "events": len(log)} in client.get("/api/campaigns").json()
    assert client.get("/api/campaigns/case/replay").json()["ok"] is True


def test_every_write_answers_its_event_as_the_log_lists_it(client: TestClient) -> None:
    """An event's `undoes` was `null` in the log and in `/scene`'s answer but left out of the
    `event` of `/join`, `/act`, `/roll`, `/begin` and `/undo` (their `response_model_exclude_none`
    dropped it): one event, two shapes. Every answer now gives every event field, `undoes` `null`
    but for an undo; `roll` is still only in the answer of a write that rolled."""
    c = "/api/campaigns/agree"
    made = client.post(
        "/api/campaigns",
        json={"name": "agree", "ruleset": "castle", "characters": {"ann": {"wielding": "bow"}}},
        headers=AUTH,
    )
    assert made.status_code == 201, made.text
    shootout = {"scene": "shootout", "cast": {"you": "ann", "foe": "bo"}, "seed": 3}
    writes = {
        "join": client.post(
            f"{c}/join", json={"character": "bo", "params": {"wielding": "bow"}}, headers=AUTH
        ),
        "act": client.post(
            f"{c}/act",
            json={"action": "take_wound", "character": "ann", "inputs": {"level": "light"}},
            headers=AUTH,
        ),
        "roll": client.post(f"{c}/roll", json={"check": "task", "seed": 3}, headers=AUTH),
        "begin": client.post(f"{c}/begin", json={"period": "fight"}, headers=AUTH),
        "undo": client.post(f"{c}/undo", headers=AUTH),
        "scene": client.post(f"{c}/scene", json=shootout, headers=AUTH),
    }
    log = client.get(f"{c}/log").json()
    fields = {"seq", "kind", "at", "undoes", "data", "state"}
    assert all(set(e) == fields for e in log), log
    for path, sent in writes.items():
        assert sent.status_code == 200, (path, sent.text)
        answer = sent.json()
        assert answer["event"] == log[answer["event"]["seq"] - 1], path
        assert ("roll" in answer) == (path == "roll"), (path, sorted(answer))
    undoes = {e["kind"]: e["undoes"] for e in log}
    assert undoes["undo"] == writes["begin"].json()["event"]["seq"]
    assert all(undoes[kind] is None for kind in undoes if kind != "undo"), undoes


def test_campaign_writes_need_the_token(client: TestClient) -> None:
    body = {"name": "nope", "ruleset": "chill", "params": {"players": 2}}
    [none] = error(client.post("/api/campaigns", json=body), 401)
    assert none["code"] == "RC407" and none["message"] == "this server's campaign writes need its token"
    assert none["hint"] == "send the header 'Authorization: Bearer <token>'"
    wrong = client.post("/api/campaigns", json=body, headers={"Authorization": "Bearer s3cre"})
    [d] = error(wrong, 401)
    assert wrong.headers["www-authenticate"] == "Bearer"
    # a token sent but not this one: told so, not to send the header it sent (hunt 13o)
    assert d["message"] == "the token sent is not this server's", d
    assert d["hint"] == "ask the server's operator for its token", d
    assert "nope" not in [c["name"] for c in client.get("/api/campaigns").json()]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("act", {"action": "turn_drak"}),
        ("roll", {"check": "specfic", "inputs": {"target": 50}}),
        ("begin", {"period": "cas"}),
        ("scene", {"scene": "nosuch", "cast": {}}),
    ],
    ids=["action", "check", "period", "scene"],
)
def test_a_name_the_campaign_lacks_is_404(client: TestClient, path: str, body: dict[str, Any]) -> None:
    """What the request names and the ruleset does not have is not found (404), wherever it is
    named, as a misspelt check is at /api/roll; nothing is written."""
    client.post(
        "/api/campaigns", json={"name": "c404", "ruleset": "chill", "params": {"players": 4}}, headers=AUTH
    )
    before = client.get("/api/campaigns/c404/log").json()
    [d] = error(client.post(f"/api/campaigns/c404/{path}", json=body, headers=AUTH), 404)
    assert d["code"] == "RC907" and "has no" in d["message"]
    assert client.get("/api/campaigns/c404/log").json() == before


def test_campaign_errors_keep_their_codes(client: TestClient) -> None:
    [d] = error(client.get("/api/campaigns/nosuch"), 404)
    assert d["code"] == "RC901"
    client.post(
        "/api/campaigns", json={"name": "c2", "ruleset": "chill", "params": {"players": 4}}, headers=AUTH
    )
    refused = client.post(
        "/api/campaigns/c2/act", json={"action": "turn_dark", "inputs": {"n": 4}}, headers=AUTH
    )
    assert error(refused, 409)[0]["code"] == "RC905"
    unknown = client.post("/api/campaigns/c2/act", json={"action": "turn_drak"}, headers=AUTH)
    [d] = error(unknown, 404)
    assert d["code"] == "RC907" and d["hint"] == "did you mean 'turn_dark'?"
    # told at the ruleset's `actions:`, the served ruleset's file named by its basename
    assert (d["file"], d["source_line"]) == ("chill.yaml", "actions:") and d["line"] > 1
    assert d["text"].startswith(f"chill.yaml:{d['line']}:1: error RC907: ruleset 'chill' has no action")
    unknown = client.post("/api/campaigns/c2/roll", json={"check": "specifc"}, headers=AUTH)
    [d] = error(unknown, 404)  # an unknown check at `checks:`, as an unknown action at `actions:`
    assert (d["code"], d["hint"], d["file"], d["source_line"]) == (
        "RC907",
        "did you mean 'specific'?",
        "chill.yaml",
        "checks:",
    )
    no_role = client.post(
        "/api/campaigns/c2/act", json={"action": "turn_dark", "others": {"nobody": "x"}}, headers=AUTH
    )
    assert error(no_role, 422)[0]["code"] == "RC907"  # a role the action does not declare: no refusal
    taken = client.post(
        "/api/campaigns", json={"name": "c2", "ruleset": "chill", "params": {"players": 4}}, headers=AUTH
    )
    assert error(taken, 409)[0]["code"] == "RC902"
    assert (
        error(client.post("/api/campaigns", json={"name": "c3", "ruleset": "chil"}, headers=AUTH), 404)[0][
            "code"
        ]
        == "RC001"
    )


# -- the schema and the page ------------------------------------------------------------------------


def test_the_openapi_schema_lists_every_endpoint(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in (
        "/api/rulesets",
        "/api/rulesets/{name}",
        "/api/validate",
        "/api/roll",
        "/api/prob",
        "/api/sweep",
        "/api/test",
        "/api/scenes/odds",
        "/api/scenes/roll",
        "/api/campaigns",
        "/api/campaigns/{name}",
        "/api/campaigns/{name}/act",
        "/api/campaigns/{name}/log",
    ):
        assert path in paths, path
    assert client.get("/docs").status_code == 200
    assert client.get("/").status_code == 200


def _slow_to_lint(checks: int) -> str:
    """A ruleset the linter works on for about a second a check (pools of up to 14 d20 against
    1,001 multipliers): 20 checks took 22 s to lint under the default lint budget."""
    lines = ["rulecraft: 1", "name: linty", "checks:"]
    for i in range(checks):
        lines += [
            f"  c{i}:",
            "    inputs:",
            "      n: {type: int, min: 0, max: 14, default: 1}",
            "      m: {type: int, min: 0, max: 1000, default: 1}",
            "    roll:",
            "      p: {pool: n, die: 20}",
            "      q: {die: 20}",
            "    let:",
            "      total: sum(p) + q * m",
            "    outcomes: [lo, mid, hi]",
            f"    outcome: \"'hi' if total > 100 + {i} else ('mid' if total > 50 else 'lo')\"",
        ]
    return "\n".join(lines) + "\n"


def test_validate_stops_linting_at_the_server_s_deadline(tmp_path: Path) -> None:
    """/api/validate lints in a server thread: past `--deadline` the linter stops and says so
    (RC809, still a 200 with what it found), so a stranger's ruleset cannot hold the thread for
    the lint budget's tens of seconds."""
    import time

    # a deadline of 3 s: loading the text must fit it even on a loaded machine (at 1 s the load
    # alone passed it under a load of 11 on 2 cores, a 504), while the lint takes 22 s unbounded
    with TestClient(create_app(Settings(db=str(tmp_path / "c.db"), deadline=3.0))) as c:
        started = time.monotonic()
        r = c.post("/api/validate", json={"source": _slow_to_lint(20), "name": "linty.yaml"})
        took = time.monotonic() - started
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["ok"] is True and set(body["checks"]) == {f"c{i}" for i in range(20)}
    assert any(d["code"] == "RC809" and "deadline" in d["message"] for d in body["diagnostics"]), body
    assert took < 15, took  # a deadline of 3 s (and loading the text): 22 s before


def _slow_to_compile(checks: int, terms: int = 600) -> str:
    """A ruleset whose compile takes seconds (each outcome reads a max of `terms` sums): 97 checks
    of 600 terms, 520 KB, took 11.6 s to validate (compiled twice) under a 5 s deadline."""
    terms_text = ", ".join(f"d + {j}" for j in range(terms))
    lines = ["rulecraft: 1", "name: heavy", "checks:"]
    for i in range(checks):
        lines += [
            f"  c{i}:",
            "    roll: {d: {die: 6}}",
            "    outcomes: [lo, hi]",
            f'    outcome: "hi if max({terms_text}) > 3 else lo"',
        ]
    return "\n".join(lines) + "\n"


def test_a_ruleset_sent_as_text_loads_within_the_deadline(tmp_path: Path) -> None:
    """Loading a ruleset sent as text is the request's time too: its compile reads the clock
    (`Emitter._clock`), so a validation whose load passes `--deadline` is a 504 (it had been a
    200 after 11.6 s, the text compiled twice), and a solve's text is not loaded past it either."""
    import time

    heavy = _slow_to_compile(40)
    with TestClient(create_app(Settings(db=str(tmp_path / "c.db"), deadline=0.3, workers=1))) as c:
        for path, extra in (
            ("/api/validate", {}),
            ("/api/prob", {"check": "c0"}),
            ("/api/roll", {"check": "c0"}),
        ):
            started = time.monotonic()
            r = c.post(path, json={"source": heavy, "name": "heavy.yaml", **extra})
            took = time.monotonic() - started
            [d] = error(r, 504)
            assert d["code"] == "RC503" and "deadline" in d["message"], d
            assert took < 10, (path, took)  # a deadline of 0.3 s; the compile alone is seconds
        # and the worker that would have solved it stopped itself: none was killed for it
        assert c.app.state.server.pool.killed == 0


def test_an_error_does_not_tell_a_client_where_the_store_is(client: TestClient) -> None:
    """A missing campaign said 'no campaign named ... in /the/server's/path.db': the path (or a
    database URL with its user) is the operator's, so the answer names the store instead."""
    response = client.get("/api/campaigns/nosuch")
    [d] = error(response, 404)
    assert d["code"] == "RC901" and "in the server's campaign store" in d["message"]
    assert "campaigns.db" not in response.text and "/tmp" not in response.text


def _unserved_campaign(tmp_path: Path) -> tuple[Path, Path]:
    """Campaign `cli1`, made as on the command line of a copy of chill in a folder the server
    does not serve (`secretplace/deep/mychill.yaml`): that file, and the store."""
    from engine.api import new_campaign, open_store

    secret = tmp_path / "secretplace" / "deep"
    secret.mkdir(parents=True)
    mine = secret / "mychill.yaml"
    mine.write_text(shipped_rulesets()["chill"].read_text(encoding="utf-8"), encoding="utf-8")
    db = tmp_path / "c.db"
    store = open_store(db)
    try:
        new_campaign("cli1", mine, store=store, params={"players": 4})
    finally:
        store.close()
    return mine, db


def test_a_campaign_s_unserved_file_is_never_read_and_is_named_without_its_place(tmp_path: Path) -> None:
    """A campaign made on the command line from a file the server does not serve: its errors named
    it by its whole path (`file`, `text`), where the server's folders are the operator's (found by
    a review); now by its file name alone, as every route names one. And the server plays it
    with the text the campaign keeps, never the file: it read whatever file the stored row named,
    and a row changed in the database to name `/etc/passwd` showed that file's first line to every
    client, in a warning of a plain GET (hunt 13o). So the file broken, or gone, since changes
    nothing the server does."""
    import sqlite3

    mine, db = _unserved_campaign(tmp_path)
    with TestClient(create_app(Settings(db=str(db), token="s3cret", workers=1))) as c:
        wrong = c.post(
            "/api/campaigns/cli1/act", json={"action": "player_roll", "inputs": {"target": 555}}, headers=AUTH
        )
        [d] = error(wrong, 422)
        assert d["code"] == "RC403" and d["file"] == "mychill.yaml", d
        mine.write_text("rulecraft: 1\nname: [\n", encoding="utf-8")  # its file broken since
        played = c.post("/api/campaigns/cli1/act", json={"action": "add_light"}, headers=AUTH)
        assert played.status_code == 200, played.text
        shown = c.get("/api/campaigns/cli1")
        assert shown.status_code == 200 and shown.json()["shared"]["tokens"] == {"light": 4, "dark": 2}
        assert shown.json()["warnings"] == [] and shown.json()["ruleset"] == "mychill.yaml"
        mine.unlink()
        mine.mkdir()  # no file at all
        assert c.get("/api/campaigns/cli1").json()["warnings"] == []
        with sqlite3.connect(db) as con:  # a row changed in the database to name another file
            con.execute("UPDATE campaigns SET ruleset = '/etc/passwd' WHERE name = 'cli1'")
        read = c.get("/api/campaigns/cli1")
        assert read.status_code == 200 and read.json()["warnings"] == [], read.text
        assert read.json()["ruleset"] == "passwd"
        written = c.post("/api/campaigns/cli1/act", json={"action": "add_light"}, headers=AUTH)
        assert written.status_code == 200, written.text
        for response in (wrong, played, shown, read, written):
            assert "secretplace" not in response.text and str(tmp_path) not in response.text, response.text
            assert "root:" not in response.text, response.text


def test_a_campaign_s_unserved_file_is_named_without_its_place_from_a_server_above_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server started in a folder above a campaign's unserved file named that file from there
    (`secretplace/deep/mychill.yaml`), which only an absolute path was hidden of (review AF); its
    file name alone now, from any folder."""
    mine, db = _unserved_campaign(tmp_path)
    monkeypatch.chdir(tmp_path)
    with TestClient(create_app(Settings(db=str(db), token="s3cret", workers=1))) as c:
        wrong = c.post(
            "/api/campaigns/cli1/act", json={"action": "player_roll", "inputs": {"target": 555}}, headers=AUTH
        )
        [d] = error(wrong, 422)
        assert d["code"] == "RC403" and d["file"] == "mychill.yaml", d
        shown = c.get("/api/campaigns/cli1")
        assert shown.status_code == 200 and shown.json()["ruleset"] == "mychill.yaml"
        for response in (wrong, shown):
            assert "secretplace" not in response.text and str(tmp_path) not in response.text, response.text


def test_a_campaign_s_ruleset_stored_as_a_relative_path_is_named_by_its_file_alone() -> None:
    """A ruleset loaded from a relative path and made a campaign of from another folder is stored
    by that relative path (`api._found_again`); its errors named it so, which only an absolute
    reference was hidden of (review AH). A shipped ruleset's name is left as it is, and so is a
    path that merely ends with the stored one."""
    from engine.errors import Diagnostic
    from engine.serve.routes_campaigns import _unplaced
    from engine.syntax.positions import SourceFile, Span

    ref = "secretplace/mychill.yaml"
    span = Span(SourceFile(ref, "rulecraft: 1\n"), 1, 1, 1, 10)
    said = Diagnostic("RC001", f"cannot read {ref}: not a regular file; nor /etc/{ref}", span)
    hidden = _unplaced(said, ref)
    assert hidden.message == f"cannot read mychill.yaml: not a regular file; nor /etc/{ref}"
    assert hidden.span is not None and hidden.span.file == "mychill.yaml"
    shipped = Diagnostic("RC403", "chill: input 'target' is above its maximum", None)
    assert _unplaced(shipped, "chill") == shipped


def test_a_campaign_s_ruleset_is_listed_by_its_file_alone_however_it_is_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`GET /api/campaigns` (and a campaign's `ruleset` in every state) showed a ruleset stored by
    a relative path whole (`secretplace/mychill.yaml`), which its errors already named by its file
    alone: both name it so now, as one stored by its absolute path is named (found by a hunt).
    `new_campaign` keeps the path of the file the ruleset was loaded from, resolved when it was
    loaded, from whatever folder the campaign is made: a relative one could name another file."""
    from engine.api import new_campaign, open_store
    from engine.state.campaign import Campaign

    chill = shipped_rulesets()["chill"].read_text(encoding="utf-8")
    for folder in ("a", "b"):
        (tmp_path / folder / "secretplace").mkdir(parents=True)
    mine = tmp_path / "a" / "secretplace" / "mychill.yaml"
    mine.write_text(chill, encoding="utf-8")
    other = tmp_path / "b" / "secretplace" / "mychill.yaml"  # another file of that name
    other.write_text(chill.replace("Chill", "Chilled"), encoding="utf-8")
    monkeypatch.chdir(tmp_path / "a")
    rs = engine.load(Path("secretplace/mychill.yaml"))
    monkeypatch.chdir(tmp_path / "b")
    db = tmp_path / "c.db"
    store = open_store(db)
    try:
        made = new_campaign("made", rs, store=store, params={"players": 4})
        assert made.header.ruleset == str(mine.resolve())  # the file it was loaded from
        # the file is found again from this folder, which holds another of that name: not RC904
        assert engine.open_campaign("made", store=store).show()["shared"]["tokens"]["light"] == 3
        old = "secretplace/mychill.yaml"  # as a campaign made before was stored
        Campaign.create(store, "old", rs.model, rs.document.source.text, {"players": 4}, source=old)
    finally:
        store.close()
    monkeypatch.chdir(tmp_path)
    with TestClient(create_app(Settings(db=str(db), token="s3cret", workers=1))) as c:
        listed = c.get("/api/campaigns")
        assert listed.status_code == 200, listed.text
        assert {(e["name"], e["ruleset"]) for e in listed.json()} == {
            ("made", "mychill.yaml"),
            ("old", "mychill.yaml"),
        }
        shown = [c.get(f"/api/campaigns/{n}") for n in ("made", "old")]
        assert [r.json()["ruleset"] for r in shown] == ["mychill.yaml", "mychill.yaml"]
        for response in (listed, *shown):
            assert "secretplace" not in response.text and str(tmp_path) not in response.text, response.text


def test_a_campaign_changed_by_hand_is_one_rc903_from_every_route(tmp_path: Path) -> None:
    """The log, the state and a change each answer 503 with one RC903 naming the damage, and
    nothing is appended (the log route read rows whole and rendered a traceback-free 200 of
    whatever was there; found by an audit)."""
    import sqlite3

    db = tmp_path / "c.db"
    with TestClient(create_app(Settings(db=str(db), token="s3cret", workers=1, deadline=60.0))) as c:
        made = c.post(
            "/api/campaigns", json={"name": "hx", "ruleset": "chill", "params": {"players": 2}}, headers=AUTH
        )
        assert made.status_code == 201, made.text
        assert c.post("/api/campaigns/hx/act", json={"action": "add_light"}, headers=AUTH).status_code == 200
        with sqlite3.connect(db) as con:
            con.execute("update events set data = json_set(data, '$.effects', json('[1]')) where seq = 2")
        [d] = error(c.get("/api/campaigns/hx/log"), 503)
        assert d["code"] == "RC903" and "event 2's effects are not each an item's change" in d["message"]
        with sqlite3.connect(db) as con:
            con.execute("update events set state = json_remove(state, '$.shared.tokens') where seq = 2")
        assert error(c.get("/api/campaigns/hx"), 503)[0]["code"] == "RC903"
        assert (
            error(c.post("/api/campaigns/hx/act", json={"action": "add_light"}, headers=AUTH), 503)[0]["code"]
            == "RC903"
        )
        with sqlite3.connect(db) as con:
            assert con.execute("select count(*) from events").fetchone() == (2,)


# -- found by an audit as a bot in another language (2026-12-04) ------------------------------------


def test_an_error_lists_a_bounded_number_of_problems_of_bounded_size(client: TestClient) -> None:
    """5,000 unknown inputs were 5,000 RC402s (105,000 were a 42 MB answer after 5 s, past the
    deadline), and a check named with a megabyte was echoed back twice: an answer as large as
    the request, or larger. Ten unknown names are named, the rest counted in one more line, and
    no part of a diagnostic passes `MAX_TEXT` characters."""
    from engine.runtime.inputs import UNKNOWN_SHOWN
    from engine.serve.jobs import MAX_TEXT

    inputs = {f"x{i}": 0 for i in range(5000)} | {"target": 55}
    sent = client.post("/api/prob", json={"ruleset": "chill", "check": "specific", "inputs": inputs})
    found = error(sent, 422)
    assert len(found) == UNKNOWN_SHOWN + 1 and len(sent.content) < 20_000
    assert "4990 more names given are not inputs of check 'specific'" in found[-1]["message"]
    sent = client.post("/api/roll", json={"ruleset": "chill", "check": "x" * 1_000_000})
    [d] = error(sent, 404)
    assert len(sent.content) < 5 * MAX_TEXT + 2000 and d["message"].endswith("…")


def test_an_api_error_lists_at_most_max_diagnostics() -> None:
    from engine.errors import Diagnostic, InputError
    from engine.serve.jobs import MAX_DIAGNOSTICS
    from engine.serve.problems import api_error

    many = InputError([Diagnostic("RC403", f"problem {i}", None) for i in range(MAX_DIAGNOSTICS + 7)])
    shown = api_error(many).diagnostics
    assert [d["message"] for d in shown[:-1]] == [f"problem {i}" for i in range(MAX_DIAGNOSTICS)]
    assert shown[-1]["message"].startswith("7 more problems are not listed") and shown[-1]["code"] == "RC403"


def test_a_store_that_cannot_be_opened_is_not_named_either(tmp_path: Path) -> None:
    """The store's path was hidden from errors raised while it was used, not from those raised
    while it was opened: a file that is no campaign database was named in full."""
    odd = tmp_path / "secret-place.db"
    odd.write_text("hello\n")
    # and a file in a folder that is not there, named with a step the store's path drops ('/./'):
    # "cannot create /…/c.db: /…/secret-folder does not exist" named the folder (found by a review)
    for db in (str(odd), f"{tmp_path}/./secret-folder/c.db"):
        with TestClient(create_app(Settings(db=db, workers=1))) as other:
            response = other.get("/api/campaigns")
        [d] = error(response, 503)
        assert d["code"] == "RC903" and "the server's campaign store" in d["message"], d["message"]
        assert "secret-" not in response.text and str(tmp_path) not in response.text, response.text


def test_a_store_that_is_no_campaign_database_is_the_operators_to_mend(tmp_path: Path) -> None:
    """Its `api_hint` told a client to "give a campaign database, or a new file name to start
    one", which only the server's operator can (found by a hunt): it says so, and keeps the
    words for the operator after it; the command line's hint is as it was."""
    odd = tmp_path / "odd.db"
    odd.write_text("hello\n")
    for db, lead in [
        (odd, "give a campaign database, or a new file name to start one; the file was left as it is"),
        (tmp_path / "no" / "c.db", "create the folder first, or give another path"),
    ]:
        with TestClient(create_app(Settings(db=str(db), workers=1))) as other:
            [d] = error(other.post("/api/campaigns", json={"name": "x", "ruleset": "chill"}), 503)
        assert d["code"] == "RC903" and d["hint"].startswith(lead), d
        operator = (
            "the campaign store is the server's, which no request can change: the server's operator mends it"
        )
        assert d["api_hint"].startswith(f"{operator}; for them: {lead}"), d["api_hint"]


def test_a_campaign_of_a_served_file_is_named_as_the_server_serves_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A campaign of a `--rulesets` file showed the operator's absolute path as its ruleset, which
    a client cannot send back; and once the file was edited, RC904's hint told the client to
    leave out the ruleset or use --migrate, neither of which the API has."""
    folder = tmp_path / "games"
    folder.mkdir()
    mine = folder / "mine.yaml"
    mine.write_bytes(shipped_rulesets()["chill"].read_bytes())
    monkeypatch.chdir(tmp_path)  # `--rulesets games`, relative, as an operator types it (found by a review)
    settings = Settings(rulesets=Path("games"), db=str(tmp_path / "c.db"), workers=1)
    with TestClient(create_app(settings)) as other:
        made = other.post("/api/campaigns", json={"name": "c7", "ruleset": "mine", "params": {"players": 4}})
        assert made.status_code == 201 and made.json()["ruleset"] == "mine"
        assert other.get("/api/campaigns").json() == [{"name": "c7", "ruleset": "mine", "events": 1}]
        assert other.get("/api/campaigns/c7").json()["ruleset"] == "mine"
        assert str(tmp_path) not in other.get("/api/campaigns/c7").text
        assert other.get("/api/campaigns/c7").json()["warnings"] == []
        mine.write_text(mine.read_text() + "# changed\n")
        [d] = error(other.post("/api/campaigns/c7/act", json={"action": "add_light"}), 409)
        # read, it is what is stored, with RC904 as a warning, as `campaign show` and `replay` say it
        # on the command line (both answered 409 with nothing to see)
        shown = other.get("/api/campaigns/c7")
        replayed = other.get("/api/campaigns/c7/replay")
        assert [e["kind"] for e in other.get("/api/campaigns/c7/log").json()] == ["new"]
    assert d["code"] == "RC904" and "operator" in d["hint"] and "leave out" not in d["hint"]
    # words true for the case: the file changed, so sending it again does nothing (it said to)
    assert "--migrate" in d["hint"] and "old text back" in d["hint"] and "again" not in d["hint"], d
    assert shown.status_code == 200 and shown.json()["shared"]["tokens"] == {"light": 3, "dark": 2}, (
        shown.text
    )
    assert replayed.status_code == 200 and replayed.json()["ok"] is True, replayed.text
    for answer in (shown, replayed):
        [w] = answer.json()["warnings"]
        assert w["code"] == "RC904" and w["severity"] == "warning" and w["api_hint"] == w["hint"]
        # a read was answered: its warning says what a change needs, not to send it again
        assert w["hint"].startswith("what is stored is read all the same; to change the campaign, ")
        assert w["hint"].endswith(d["hint"][d["hint"].index("the server's operator") :]), w["hint"]
        assert w["file"] == "mine.yaml" and w["text"].startswith(f"mine.yaml:{w['line']}:1: warning RC904")
        assert str(tmp_path) not in answer.text


def test_a_served_file_changed_to_one_without_state_is_not_said_to_be_migratable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RC904 over HTTP had one hint for every change, that the operator migrates the campaign to
    the new file; a file that no longer declares a `state:` cannot be migrated to (RC907), so its
    hint says to put the old text back (found by helper A2)."""
    folder = tmp_path / "games"
    folder.mkdir()
    mine = folder / "mine.yaml"
    mine.write_bytes(shipped_rulesets()["chill"].read_bytes())
    monkeypatch.chdir(tmp_path)
    settings = Settings(rulesets=Path("games"), db=str(tmp_path / "c.db"), workers=1)
    with TestClient(create_app(settings)) as other:
        made = other.post("/api/campaigns", json={"name": "c8", "ruleset": "mine", "params": {"players": 4}})
        assert made.status_code == 201, made.text
        text = mine.read_text()
        mine.write_text(text[: text.index("\nstate:")] + "\n")
        [d] = error(other.post("/api/campaigns/c8/act", json={"action": "add_light"}), 409)
        [w] = other.get("/api/campaigns/c8").json()["warnings"]
    assert d["code"] == "RC904" and "no longer declares a 'state:'" in d["message"], d
    assert (
        "put" in d["hint"]
        and "old text back" in d["hint"]
        and "migrate" not in d["hint"].replace("migrated", "")
    ), d["hint"]
    assert w["hint"] == d["hint"] and w["line"] >= 1


def test_a_campaign_of_a_served_file_broken_since_is_read_with_its_error_as_warnings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `--rulesets` file broken since a campaign was made of it refused the campaign's reads too
    (the served file's load error); they now answer 200 with what is stored, read with the ruleset
    text the campaign keeps, the load error in their `warnings`, as `campaign show` tells it;
    every change is refused with that error and writes nothing."""
    folder = tmp_path / "games"
    folder.mkdir()
    mine = folder / "mine.yaml"
    mine.write_bytes(shipped_rulesets()["chill"].read_bytes())
    monkeypatch.chdir(tmp_path)
    settings = Settings(rulesets=Path("games"), db=str(tmp_path / "c.db"), workers=1)
    with TestClient(create_app(settings)) as other:
        made = other.post("/api/campaigns", json={"name": "c9", "ruleset": "mine", "params": {"players": 4}})
        assert made.status_code == 201, made.text
        mine.write_text("rulecraft: 1\nname: [\n", encoding="utf-8")
        [d] = error(other.post("/api/campaigns/c9/act", json={"action": "add_light"}), 422)
        shown = other.get("/api/campaigns/c9")
        replayed = other.get("/api/campaigns/c9/replay")
        assert [e["kind"] for e in other.get("/api/campaigns/c9/log").json()] == ["new"]
    assert d["code"] == "RC002" and d["file"] == "mine.yaml", d
    assert shown.status_code == 200 and shown.json()["shared"]["tokens"] == {"light": 3, "dark": 2}
    assert replayed.status_code == 200 and replayed.json()["ok"] is True, replayed.text
    for answer in (shown, replayed):
        [w] = answer.json()["warnings"]
        assert (
            w["code"] == "RC002" and w["severity"] == "warning" and (w["file"], w["line"]) == ("mine.yaml", 2)
        )
        assert (
            w["message"]
            == d["message"]
            + "; campaign 'c9' is read with the ruleset text it keeps: its file no longer loads"
        )
        assert str(tmp_path) not in answer.text


def test_making_a_campaign_names_its_ruleset_as_the_server_serves_it(tmp_path: Path) -> None:
    """Review: an error making a campaign gave the ruleset's place on the server in its `file` and
    `text` (the shipped file's path, a `--rulesets` file's absolute one), where every other route
    gives the file name alone. The campaign still keeps where to find its ruleset again."""
    folder = tmp_path / "games"
    folder.mkdir()
    mine = folder / "mine.yaml"
    mine.write_bytes(shipped_rulesets()["chill"].read_bytes())
    settings = Settings(rulesets=folder, db=str(tmp_path / "c.db"), workers=1)
    with TestClient(create_app(settings)) as other:
        for name in ["chill", "mine"]:
            response = other.post("/api/campaigns", json={"name": "case", "ruleset": name})
            [d] = error(response, 422)
            assert d["code"] == "RC401" and d["file"] == f"{name}.yaml", d["file"]
            assert d["text"].startswith(f"{name}.yaml:"), d["text"]
            shown = other.post("/api/roll", json={"ruleset": name, "check": "specific"})
            assert error(shown, 422)[0]["file"] == d["file"]  # as a roll of it shows it
            for place in [str(folder), str(shipped_rulesets()["chill"].parent), "rulesets/"]:
                assert place not in response.text, response.text
            made = other.post(
                "/api/campaigns", json={"name": name, "ruleset": name, "params": {"players": 4}}
            )
            assert made.status_code == 201 and made.json()["ruleset"] == name
    store = engine.api.open_store(str(tmp_path / "c.db"))
    assert [store.header(n).ruleset for n in ["chill", "mine"]] == ["chill", str(mine.resolve())]
    store.close()


@pytest.mark.parametrize(
    "content_type", [None, "text/plain;charset=UTF-8", "application/x-www-form-urlencoded"]
)
def test_a_body_not_sent_as_json_is_415_saying_so(client: TestClient, content_type: str | None) -> None:
    """Node's fetch sends a string body as text/plain, curl's -d as a form: FastAPI did not read
    either, and the answer was a 422 that the body was no object, for a body that was one."""
    body = json.dumps({"ruleset": "chill", "check": "specific", "inputs": {"target": 55}})
    headers = {} if content_type is None else {"content-type": content_type}
    request = client.build_request("POST", "/api/roll", content=body.encode(), headers=headers)
    if content_type is None and "content-type" in request.headers:
        del request.headers["content-type"]
    [d] = error(client.send(request), 415)
    assert d["code"] == "RC407" and "not as JSON" in d["message"] and "application/json" in d["hint"]
    sent = client.post("/api/roll", content=body, headers={"content-type": "application/json; charset=utf-8"})
    assert sent.status_code == 200


def test_an_undo_takes_an_empty_body_or_an_empty_object_and_nothing_else(client: TestClient) -> None:
    """`/undo` took any body at all (`text/plain`, `{"x": 1}`) and undid, where every other route
    refuses a field it does not know (422) or a body that is not JSON (415); nothing is undone."""
    made = client.post(
        "/api/campaigns", json={"name": "undos", "ruleset": "chill", "params": {"players": 4}}, headers=AUTH
    )
    assert made.status_code == 201, made.text
    url = "/api/campaigns/undos"
    act = {"action": "player_roll", "inputs": {"target": 55}, "force": {"tens": 7, "ones": 7}}

    def events() -> int:
        return len(client.get(f"{url}/log").json())

    for body in ({}, None):
        assert client.post(f"{url}/act", json=act, headers=AUTH).status_code == 200
        done = client.post(f"{url}/undo", headers=AUTH, **({} if body is None else {"json": body}))
        assert done.status_code == 200 and done.json()["event"]["kind"] == "undo", done.text
    assert client.post(f"{url}/act", json=act, headers=AUTH).status_code == 200
    before = events()
    [d] = error(client.post(f"{url}/undo", json={"x": 1}, headers=AUTH), 422)
    assert d["code"] == "RC407" and "x" in d["text"], d
    [d] = error(
        client.post(f"{url}/undo", content=b"undo", headers={"content-type": "text/plain", **AUTH}), 415
    )
    assert d["code"] == "RC407" and "not as JSON" in d["message"], d
    [d] = error(client.post(f"{url}/undo", json=[1], headers=AUTH), 422)
    assert d["code"] == "RC407", d
    assert events() == before


def test_an_unknown_campaigns_hint_names_the_store_as_its_message_does(tmp_path: Path) -> None:
    """RC901's hint said "the campaigns in this file: ..." to a client of a server, whose message
    says "the server's campaign store" (and "this database" on PostgreSQL): it names the store as
    the message does, whatever the store is."""
    with TestClient(create_app(db=str(tmp_path / "c.db"), workers=1)) as c:
        [d] = error(c.get("/api/campaigns/zzz"), 404)
        assert d["hint"] == "the server's campaign store has no campaigns yet: create one first", d
        made = {"name": "alpha", "ruleset": "chill", "params": {"players": 2}}
        assert c.post("/api/campaigns", json=made).status_code == 201
        [d] = error(c.get("/api/campaigns/zzz"), 404)
        assert d["code"] == "RC901" and "in the server's campaign store" in d["message"], d
        assert d["hint"] == "the campaigns in the server's campaign store: alpha", d
        assert "this file" not in d["text"] and "this file" not in (d["api_hint"] or ""), d


def test_the_page_answers_head_and_only_at_its_own_path(client: TestClient) -> None:
    """Found by a hunt: `HEAD /` was 405; /static/index.html served the page where its relative
    links find nothing; /redoc served a page loading its script from a CDN, documented nowhere."""
    head = client.head("/")
    assert (
        head.status_code == 200
        and head.content == b""
        and head.headers["content-type"].startswith("text/html")
    )
    assert client.get("/static/app.js").status_code == 200
    for path in ("/static/index.html", "/static/./index.html", "/redoc"):
        assert error(client.get(path), 404)[0]["code"] == "RC407"


def test_validate_names_a_text_sent_without_a_name_as_every_route_does(client: TestClient) -> None:
    """`/api/validate` named it "ruleset.yaml", every other route `<request>`."""
    [d] = client.post("/api/validate", json={"source": BROKEN}).json()["diagnostics"]
    assert d["file"] == "<request>" and d["text"].startswith("<request>:7:")
    roll = client.post("/api/roll", json={"source": BROKEN, "check": "hit"})
    assert error(roll, 422)[0]["file"] == "<request>"


def test_a_405_says_which_methods_the_path_allows(client: TestClient) -> None:
    response = client.get("/api/roll")
    assert error(response, 405)[0]["code"] == "RC407" and response.headers["allow"] == "POST"
    # a GET route answers HEAD too, and says so (hunt 13o: `Allow: GET`)
    other = client.delete("/api/rulesets")
    assert error(other, 405) and other.headers["allow"] == "GET, HEAD"
    assert client.head("/api/rulesets").status_code == 200


@pytest.mark.parametrize(
    "change",
    [{"seed": True}, {"seed": "7"}, {"seed": 7.0}, {"trace": "yes"}, {"trace": 0}, {"policy": 1}],
)
def test_a_field_of_the_wrong_type_is_refused_not_converted(
    client: TestClient, change: dict[str, Any]
) -> None:
    """`"seed": true` rolled with seed 1, `"7"` with seed 7, `"trace": "yes"` traced: a bot
    sending the wrong type is told so. An input's value is still the ruleset's to read."""
    body = {"ruleset": "chill", "check": "specific", "inputs": {"target": "55"}}
    assert client.post("/api/roll", json=body).status_code == 200
    assert {d["code"] for d in error(client.post("/api/roll", json={**body, **change}), 422)} == {"RC407"}


@pytest.mark.parametrize("constant", [b"NaN", b"Infinity", b"-Infinity"])
def test_the_numbers_json_has_not_are_refused(client: TestClient, constant: bytes) -> None:
    body = (
        b'{"ruleset": "chill", "check": "specific",\n "NaN": "NaN", "inputs": {"target": ' + constant + b"}}"
    )
    [d] = error(client.post("/api/prob", content=body, headers={"content-type": "application/json"}), 422)
    assert d["code"] == "RC407" and "is no JSON number" in d["message"]
    # placed in the body as any body not JSON is, past the word inside strings (hunt 13o: no place)
    assert (d["file"], d["line"], d["column"]) == ("<request body>", 2, 37), d


@pytest.mark.parametrize(("ruleset", "check"), [("chill", "specific"), ("chthonian", "contest")])
def test_every_value_a_check_lists_is_one_prob_gives(client: TestClient, ruleset: str, check: str) -> None:
    """The check's form listed its values known before the roll (Chill's `final_target`), which
    `prob` refused (RC402), and left out its outputs, which it gives."""
    listed = client.get(f"/api/rulesets/{ruleset}").json()["checks"][check]["values"]
    inputs = {"target": 55} if ruleset == "chill" else {}
    dist = engine.load(ruleset).distribution(check, **inputs)
    assert listed == list(dist.values) and listed
    for value in listed:
        body = {"ruleset": ruleset, "check": check, "inputs": inputs, "value": value}
        assert client.post("/api/prob", json=body).status_code == 200, value


def test_a_path_with_a_slash_too_many_is_a_json_404(client: TestClient) -> None:
    """`POST /api/roll/` answered 307 with an empty body (found by an audit as a bot)."""
    body = {"ruleset": "chill", "check": "specific", "inputs": {"target": 55}}
    response = client.post("/api/roll/", json=body, follow_redirects=False)
    assert error(response, 404)[0]["code"] == "RC407"


def test_a_body_that_is_not_json_is_placed_in_the_body(client: TestClient) -> None:
    """Its line and column were only words in the message, the fields null (found by an audit)."""
    sent = client.post(
        "/api/roll",
        content=b'{"ruleset": "chill",\n "check": }',
        headers={"content-type": "application/json"},
    )
    [d] = error(sent, 422)
    assert (d["file"], d["line"], d["column"], d["source_line"]) == ("<request body>", 2, 11, ' "check": }')
    assert d["text"].endswith(' "check": }\n            ^')
    # said after the method and path, as the server's own refusals are (hunt 13zp: not these)
    assert d["message"].startswith("POST /api/roll: the body is not JSON: "), d
    # a path of thousands of characters is cut, so the reason still fits (hunt 13zq)
    long = client.post(
        "/api/campaigns/" + "n" * 5000 + "/join",
        content=b"{",
        headers={"content-type": "application/json", "authorization": "Bearer s3cret"},
    )
    [d] = error(long, 422)
    assert "n" * 150 + "…: the body is not JSON" in d["message"] and len(d["message"]) < 400, d
    [d] = error(client.get("/api/" + "x" * 5000), 404)
    assert d["message"].startswith("GET /api/" + "x" * 190) and d["message"].endswith("…: Not Found"), d


def test_a_scene_request_refuses_a_field_its_endpoint_does_not_use(client: TestClient) -> None:
    """`seed` on the odds and `expect` on a played scene were accepted and ignored (hunt 13zp):
    a bot that sent one believed it was used. Each is 422 now, as any unknown field is."""
    scene = {"ruleset": "castle", "scene": "shootout", "parties": {"you": {"wielding": "bow"}}}
    for path, field in (("/api/scenes/odds", {"seed": 3}), ("/api/scenes/roll", {"expect": ["you.wounds"]})):
        [d] = error(client.post(path, json={**scene, **field}), 422)
        assert d["code"] == "RC407" and next(iter(field)) in d["message"], (path, d)


def test_the_store_is_hidden_and_a_path_beside_it_left_whole() -> None:
    """Its path and, where it stands alone, its folder are hidden; a ruleset's path in the same
    folder is not turned into "the server's campaign store's folder/games/a.yaml"."""
    from engine.errors import Diagnostic
    from engine.serve.app import Server
    from engine.serve.routes_campaigns import _hidden

    server = Server(Settings(db="/srv/rc/secret/c.db"))
    said = {
        "cannot create /srv/rc/secret/c.db: /srv/rc/secret does not exist": "cannot create the server's"
        " campaign store: the server's campaign store's folder does not exist",
        "in /srv/rc/secret/games/a.yaml:3:4": "in /srv/rc/secret/games/a.yaml:3:4",
    }
    for message, shown in said.items():
        assert _hidden(server, Diagnostic("RC903", message, None)).message == shown


BAD_BODIES = {
    "not JSON": (b'{"name": ', "application/json"),
    "not UTF-8": (b'\xff\xfe{"name"', "application/json"),
    "a key twice": (b'{"name": "a", "name": "b"}', "application/json"),
    "wrong JSON types": (
        b'{"name": 1, "ruleset": [], "action": {}, "scene": 2, "check": null}',
        "application/json",
    ),
    "an unknown field": (b'{"nosuch": 1}', "application/json"),
    "not an object": (b"[1, 2]", "application/json"),
    "empty": (b"", "application/json"),
    "sent as text": (b'{"name": "a"}', "text/plain"),
    "sent as a form": (b"name=a", "application/x-www-form-urlencoded"),
    "no content type": (b'{"name": "a"}', None),
}
WRITES = ["", "/c401/join", "/c401/act", "/c401/roll", "/c401/begin", "/c401/undo", "/c401/scene"]


@pytest.mark.parametrize("kind", list(BAD_BODIES))
@pytest.mark.parametrize("auth", [None, "Bearer s3cre", "Basic s3cret"], ids=["none", "wrong", "basic"])
def test_a_write_without_the_token_is_401_whatever_its_body(
    client: TestClient, kind: str, auth: str | None
) -> None:
    """A body that was not JSON, not UTF-8, not sent as JSON or gave a key twice was answered 422
    or 415 before the missing token's 401: a stranger learned how its body was wrong, and made
    the server parse it. The token is checked before the body is read, on every write route."""
    content, content_type = BAD_BODIES[kind]
    for path in WRITES:
        request = client.build_request("POST", f"/api/campaigns{path}", content=content)
        if content_type is not None:
            request.headers["content-type"] = content_type
        elif "content-type" in request.headers:
            del request.headers["content-type"]
        if auth is not None:
            request.headers["authorization"] = auth
        response = client.send(request)
        [d] = error(response, 401)
        assert d["code"] == "RC407" and "token" in d["message"], (path, response.text)
        assert response.headers["www-authenticate"] == "Bearer"


def test_a_write_with_the_token_is_still_told_what_is_wrong_with_its_body(client: TestClient) -> None:
    sent = client.post(
        "/api/campaigns", content=b'{"name": ', headers={**AUTH, "content-type": "application/json"}
    )
    assert error(sent, 422)[0]["file"] == "<request body>"
    sent = client.post(
        "/api/campaigns/c401/act", content=b"{}", headers={**AUTH, "content-type": "text/plain"}
    )
    assert error(sent, 415)[0]["code"] == "RC407"


def test_a_request_of_the_wrong_shape_is_bounded_as_every_error_is(client: TestClient) -> None:
    """FastAPI's complaints about a request's shape had their own bounds (20 listed, none said to
    be left out, 300 characters each), not the `MAX_DIAGNOSTICS` and `MAX_TEXT` every other error
    keeps: 100 unknown fields were 20 diagnostics that did not say 80 more were wrong."""
    from engine.serve.jobs import MAX_DIAGNOSTICS, MAX_TEXT

    body = {"ruleset": "chill", "check": "specific", **{f"field{i}": 1 for i in range(100)}}
    found = error(client.post("/api/roll", json=body), 422)
    assert len(found) == MAX_DIAGNOSTICS + 1 and {d["code"] for d in found} == {"RC407"}
    assert [d["message"] for d in found[:2]] == [f"field{i}: Extra inputs are not permitted" for i in (0, 1)]
    assert (
        found[-1]["message"]
        == f"{100 - MAX_DIAGNOSTICS} more problems are not listed (the first {MAX_DIAGNOSTICS} are)"
    )
    sent = client.post("/api/roll", json={"ruleset": "chill", "check": "specific", "y" * 100_000: 1})
    [d] = error(sent, 422)
    assert len(d["message"]) <= MAX_TEXT and d["message"].endswith("y…: Extra inputs are not permitted")
    assert len(d["message"]) > 300 and len(sent.content) < 5 * MAX_TEXT


def test_a_request_lists_the_served_folder_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A campaign request globbed the `--rulesets` folder three or four times (in `_campaign`,
    twice, in `Catalog.named` and in `_state`), and `GET /api/rulesets` once more for each
    ruleset. `Path.iterdir` (how `Catalog.names` lists the folder) is wrapped, not replaced: what
    each answer says is unchanged."""
    games = tmp_path / "games"
    games.mkdir()
    (games / "mine.yaml").write_bytes(shipped_rulesets()["castle"].read_bytes())
    globbed: list[Path] = []
    iterdir = Path.iterdir

    def counted(self: Path) -> Any:
        if self == games:
            globbed.append(self)
        return iterdir(self)

    monkeypatch.setattr(Path, "iterdir", counted)
    shootout = {"scene": "shootout", "cast": {"you": "ann", "foe": "bo"}, "seed": 3}
    c = "/api/campaigns"
    steps: list[tuple[str, str, dict[str, Any] | None]] = [
        ("POST", c, {"name": "k", "ruleset": "mine", "characters": {"ann": {"wielding": "bow"}}}),
        ("POST", f"{c}/k/join", {"character": "bo", "params": {"wielding": "bow"}}),
        ("POST", f"{c}/k/act", {"action": "take_wound", "character": "ann", "inputs": {"level": "light"}}),
        ("POST", f"{c}/k/roll", {"check": "task", "seed": 3}),
        ("POST", f"{c}/k/begin", {"period": "fight"}),
        ("POST", f"{c}/k/undo", None),
        ("POST", f"{c}/k/scene", shootout),
        ("GET", f"{c}/k", None),
        ("GET", f"{c}/k/replay", None),
        ("GET", c, None),
        ("GET", "/api/rulesets", None),
        ("GET", "/api/rulesets/mine", None),
    ]
    settings = Settings(rulesets=games, db=str(tmp_path / "c.db"), token="t", workers=1, deadline=60.0)
    with TestClient(create_app(settings)) as other:
        for method, path, body in steps:
            globbed.clear()
            sent = other.request(method, path, json=body, headers={"Authorization": "Bearer t"})
            assert 200 <= sent.status_code < 300, (path, sent.text)
            assert len(globbed) == 1, (method, path, globbed)
        assert other.get("/api/campaigns/k").json()["ruleset"] == "mine"


def test_a_field_of_several_types_that_is_none_of_them_is_one_problem(client: TestClient) -> None:
    """`force` is a list or an object: a text was two RC407s named by pydantic's tags for the
    types (`force.list[any]`, `force.dict[str,any]`); it is one, named by the field (found by a
    review). Two fields each of the wrong type are still two."""
    for force in ("x", 5, True):
        sent = client.post(
            "/api/roll",
            json={"ruleset": "chill", "check": "specific", "inputs": {"target": 55}, "force": force},
        )
        [d] = error(sent, 422)
        assert (
            d["code"] == "RC407"
            and d["message"] == "force: Input should be a valid list or a valid dictionary"
        )
    both = client.post("/api/roll", json={"ruleset": "chill", "check": 5, "seed": "x"})
    assert [d["message"] for d in error(both, 422)] == [
        "check: Input should be a valid string",
        "seed: Input should be a valid integer",
    ]


@pytest.mark.parametrize(
    ("body", "line", "shown"),
    [
        (
            '{"ruleset":"ch\u2028ill",\n "check":"specific",\n "inputs":{"target":55,}}',
            3,
            ' "inputs":{"target":55,}}',
        ),
        (
            '{"ruleset":"ch\x85ill",\n "check":"specific",\n "inputs":{"target":55,}}',
            3,
            ' "inputs":{"target":55,}}',
        ),
        ('{"ruleset":"chill",\r"check":"specific",\r"inputs":{"target":55,}}', 1, None),
    ],
    ids=["U+2028", "U+0085", "CR"],
)
def test_a_body_that_is_not_json_is_placed_on_the_line_json_counts(
    client: TestClient, body: str, line: int, shown: str | None
) -> None:
    """JSON counts lines by LF alone; the source line shown had been read by `str.splitlines`,
    which also breaks at a lone CR, U+2028 or U+0085 (one line above the caret's, or a part of
    it; found by a review)."""
    sent = client.post("/api/roll", content=body.encode(), headers={"content-type": "application/json"})
    [d] = error(sent, 422)
    assert d["line"] == line and d["column"] == 24 + 39 * (line == 1), d
    assert d["source_line"] == (shown if shown is not None else body.replace("\r", " ")), d
    assert d["source_line"][d["column"] - 1] == "}", d  # the caret is under what JSON read


@pytest.mark.parametrize("brk", ["\u2028", "\u2029", "\x85"], ids=["U+2028", "U+2029", "U+0085"])
def test_a_body_that_is_not_json_shows_its_line_as_sent(client: TestClient, brk: str) -> None:
    """The server read a body's lines by a rule of its own (`_lines_as_json`), which made a
    U+2028, U+2029 or U+0085 a space so that `str.splitlines` would not count it; `SourceFile`
    counts lines at a newline only, as JSON does, so the body is placed as it is, and the line
    shown under the caret is the line sent, such a character and all (in `text`, drawn for a
    terminal, U+0085, a C1 control, as `\\x85`: `positions.visible`)."""
    from engine.syntax.positions import visible

    body = f'{{"ruleset":"ch{brk}ill",\n "check":"specific", "note":"a{brk}b", "inputs":}}'
    sent = client.post("/api/roll", content=body.encode(), headers={"content-type": "application/json"})
    [d] = error(sent, 422)
    shown = body.split("\n")[1]
    assert (d["line"], d["column"]) == (2, shown.index("}") + 1), d
    assert d["source_line"] == shown, d
    assert f"  {visible(shown)}\n" in d["text"], d


def test_an_empty_policy_or_value_is_asked_for_and_refused(client: TestClient) -> None:
    """`"policy": ""` rolled under `always` and `"value": ""` answered without the value (`or`
    and `if value` took "" for none); each is a name asked for, and no policy (RC408) or value
    (RC402) has it (found by a review)."""
    ask = {"ruleset": "chill", "check": "specific", "inputs": {"target": 55}}
    [d] = error(client.post("/api/roll", json={**ask, "policy": ""}), 422)
    assert d["code"] == "RC408"
    [d] = error(client.post("/api/prob", json={**ask, "policy": ""}), 422)
    assert d["code"] == "RC408"
    [d] = error(client.post("/api/prob", json={**ask, "value": ""}), 422)
    assert d["code"] == "RC402"


SHOOTOUT = {"you": {"wielding": "bow"}, "foe": {"wielding": "bow"}}
NULL_BODIES: dict[str, Any] = {
    "/api/validate": {"source": COIN, "name": "coin.yaml"},
    "/api/roll": {"ruleset": "chill", "check": "specific", "inputs": {"target": 55}, "seed": 1},
    "/api/prob": {"ruleset": "chill", "check": "specific", "inputs": {"target": 55}},
    "/api/sweep": {
        "ruleset": "chill",
        "check": "specific",
        "inputs": {},
        "input": "target",
        "from": 9,
        "to": 11,
    },
    "/api/test": {"source": COIN},
    "/api/scenes/odds": {"ruleset": "castle", "scene": "shootout", "parties": SHOOTOUT},
    "/api/scenes/roll": {"ruleset": "castle", "scene": "shootout", "parties": SHOOTOUT, "seed": 3},
    "/api/chart/distribution": {"ruleset": "chill", "check": "specific", "inputs": {"target": 55}},
    "/api/chart/sweep": {"ruleset": "chill", "check": "specific", "input": "target", "from": 9, "to": 11},
    "/api/chart/policies": {"ruleset": "chimera", "check": "skill", "inputs": {"dice": 2, "resolve": 1}},
    "/api/campaigns": {"ruleset": "castle", "characters": {"ann": {"wielding": "bow"}}},  # and a new name
    "/api/campaigns/{name}/join": {"params": {"wielding": "bow"}},  # and a new character
    "/api/campaigns/{name}/act": {"action": "take_wound", "character": "ann", "inputs": {"level": "light"}},
    "/api/campaigns/{name}/roll": {"check": "task", "seed": 3},
    "/api/campaigns/{name}/begin": {"period": "fight"},
    "/api/campaigns/{name}/scene": {"scene": "shootout", "cast": {"you": "ann", "foe": "bo"}, "seed": 3},
    "/api/campaigns/{name}/undo": {},  # no field: the body itself may be left out
}
"""A request to each route that takes a body (`test_null_is_an_optional_field_not_given` checks
that this is every one), each of its optional fields to be left out and sent as null in turn."""


def test_null_is_an_optional_field_not_given(client: TestClient) -> None:
    """`"trace": null` was 422 ("strict bodies") where `"seed": null` was the default: many
    languages' JSON writers send an unset optional field as null (found by a review). On every
    route, each optional field given as null is answered as the field left out (status and
    answer; a campaign's write each from the same state, undone after), and a field that must be
    given is still 422 when null, saying so."""
    schema = client.get("/openapi.json").json()
    bodied = {
        path
        for path, methods in schema["paths"].items()
        for method in methods.values()
        if "requestBody" in method
    }
    assert bodied == set(NULL_BODIES), bodied ^ set(NULL_BODIES)
    made = {
        "name": "nulls",
        "ruleset": "castle",
        "characters": {"ann": {"wielding": "bow"}, "bo": {"wielding": "bow"}},
    }
    assert client.post("/api/campaigns", json=made, headers=AUTH).status_code == 201
    fresh = iter(range(1000))

    def send(path: str, body: dict[str, Any]) -> tuple[int, Any]:
        if path == "/api/campaigns":
            body = {**body, "name": f"nulls{next(fresh)}"}
        elif path.endswith("/join"):
            body = {**body, "character": f"cy{next(fresh)}"}
        answer = client.post(path.replace("{name}", "nulls"), json=body, headers=AUTH)
        if (
            "{name}" in path and not path.endswith("/roll") and answer.status_code == 200
        ):  # a roll changes nothing
            assert client.post("/api/campaigns/nulls/undo", headers=AUTH).status_code == 200
        if answer.status_code >= 400:
            return answer.status_code, [d["message"] for d in answer.json()["error"]["diagnostics"]]
        if "campaigns" in path or answer.headers["content-type"].startswith("image/"):
            return answer.status_code, None  # its own event and time; a chart compared as it is drawn
        return answer.status_code, answer.json()

    tried = 0
    for path, body in NULL_BODIES.items():
        taken = schema["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
        ref = taken["$ref"] if "$ref" in taken else taken["anyOf"][0]["$ref"]  # an optional body
        model = schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]
        for field in set(model["properties"]) - set(model.get("required", [])):
            if field == "seed" and path in ("/api/roll", "/api/scenes/roll", "/api/campaigns/{name}/roll"):
                continue  # left out, one is drawn: compared below with the seed given
            left_out = {k: v for k, v in body.items() if k != field}
            assert send(path, {**left_out, field: None}) == send(path, left_out), (path, field)
            tried += 1
    assert tried >= 40, tried
    rolled = client.post("/api/roll", json={**NULL_BODIES["/api/roll"], "trace": None, "policy": None})
    assert rolled.status_code == 200 and rolled.json()["trace"] and rolled.json()["policy"] == "always"
    for path, field in (
        ("/api/roll", "check"),
        ("/api/sweep", "from"),
        ("/api/campaigns/{name}/act", "action"),
    ):
        [d] = error(
            client.post(
                path.replace("{name}", "nulls"), json={**NULL_BODIES[path], field: None}, headers=AUTH
            ),
            422,
        )
        assert d["code"] == "RC407" and d["message"].startswith(f"{field}: Input should be"), d["message"]
        assert "not null (null stands for a field not given only where one may be left out)" in d["message"]


def test_a_scene_s_odds_answer_is_bounded(client: TestClient) -> None:
    """Review I, finding 4: `/api/scenes/odds` of a 600-byte scene that ends each round with
    chance 1/2, `max_rounds: 20000`, answered 54,607,148 bytes within the default budget. Its
    rounds are listed while they fit about a megabyte, the rest given together as `later`."""
    source = COIN_SCENE.replace("max_rounds: 60", "max_rounds: 20000")
    sent = client.post("/api/scenes/odds", json={"source": source, "scene": "tossing"})
    assert sent.status_code == 200 and len(sent.content) < 1_200_000, len(sent.content)
    odds = sent.json()
    listed = [Fraction(int(n, 0), int(d, 0)) for n, d in (p.split("/") for p in odds["rounds"].values())]
    later, longer = (
        Fraction(int(n, 0), int(d, 0)) for n, d in (odds[k].split("/") for k in ("later", "longer"))
    )
    assert sum(listed) + later + longer == 1 and 0 < odds["rounds_listed"] < 20000


COIN_SCENE = """\
rulecraft: 1
name: coin
checks:
  flip:
    roll: {d: {die: 2}}
    outcomes: [tails, heads]
    outcome: "'heads' if d == 2 else 'tails'"
state:
  each:
    heads: {counter: 0, min: 0}
actions:
  toss:
    by: character
    roll: {check: flip}
    effects:
      - {add: {heads: 1}, when: "outcome == 'heads'"}
scenes:
  tossing:
    parties: [ann]
    round:
      - {act: toss, by: ann}
    ends:
      - {when: ann.heads > 0, then: done}
    max_rounds: 60
"""


def test_a_played_scene_s_answer_is_bounded_by_the_work_budget(tmp_path: Path) -> None:
    """A hunt of the server: `/api/scenes/roll` of a 15 KB scene (a refusal of 15,000 characters
    in each of four steps a round, `max_rounds: 20000`) answered 1.2 GB, the JSON written in the
    server process after the worker had answered. A step's entry is charged for the text it
    carries, so the budget bounds the answer: past it the answer is 422 `RC503` at the scene's
    `max_rounds:`, with no trace; a scene that fits is answered whole."""
    refusal = '"' + "y" * 5_000 + '"'
    source = COIN_SCENE.replace(
        "    by: character\n    roll:",
        "    by: character\n    requires:\n      - {when: 'heads > 5', else: " + refusal + "}\n    roll:",
    ).replace("max_rounds: 60", "max_rounds: 1000")
    line = source.splitlines().index("    max_rounds: 1000") + 1
    budget = 100_000
    settings = Settings(
        db=str(tmp_path / "c.db"), workers=1, deadline=60.0, limits=engine.Limits(max_work=budget)
    )
    with TestClient(create_app(settings)) as c:
        body = {"source": source, "name": "refusing.yaml", "scene": "tossing", "seed": 1}
        sent = c.post("/api/scenes/roll", json=body)
        # a thousand refusals: it had answered 5,080,056 bytes, 51 a unit of the budget
        assert sent.status_code == 422, (sent.status_code, len(sent.content))
        [d] = error(sent, 422)
        assert d["code"] == "RC503" and (d["line"], d["source_line"]) == (line, "    max_rounds: 1000"), d
        assert "round by round" in d["message"] and "trace" not in sent.text
        fits = c.post(
            "/api/scenes/roll", json={**body, "source": source.replace("max_rounds: 1000", "max_rounds: 10")}
        )
        assert fits.status_code == 200, fits.text
        played = fits.json()
        assert len(played["trace"]) == 10 and len(fits.content) < budget * 32


def test_listing_campaigns_names_their_rulesets_once_per_request_not_per_campaign(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`GET /api/campaigns` resolved every served path and listed the shipped rulesets' folder
    for each campaign it named: 100,000 campaigns took 20 s to list (2 s now, measured on
    2026-12-06). The names are worked out once per request; the answer is as before."""
    import pathlib

    from engine.api import new_campaign, open_store
    from engine.serve import routes_campaigns

    games = tmp_path / "games"
    games.mkdir()
    chill = shipped_rulesets()["chill"].read_text(encoding="utf-8")
    (games / "mine.yaml").write_text(chill.replace("name: chill", "name: mine", 1), encoding="utf-8")
    db = tmp_path / "c.db"
    store = open_store(db)
    try:
        for i in range(30):
            rules = "chill" if i % 2 else engine.load(games / "mine.yaml")
            new_campaign(f"c{i:02}", rules, store=store, params={"players": 2})
    finally:
        store.close()
    resolved, listed = [], []
    real_resolve, real_shipped = pathlib.Path.resolve, routes_campaigns.shipped_rulesets

    def resolve(self: pathlib.Path, strict: bool = False) -> pathlib.Path:
        resolved.append(self)
        return real_resolve(self, strict=strict)

    def shipped() -> dict[str, Path]:
        listed.append(1)
        return real_shipped()

    with TestClient(create_app(Settings(db=str(db), workers=1, rulesets=games))) as c:
        monkeypatch.setattr(pathlib.Path, "resolve", resolve)
        monkeypatch.setattr(routes_campaigns, "shipped_rulesets", shipped)
        answer = c.get("/api/campaigns").json()
        monkeypatch.undo()
    assert [(a["name"], a["ruleset"]) for a in answer] == [
        (f"c{i:02}", "chill" if i % 2 else "mine") for i in range(30)
    ]
    named = len(shipped_rulesets()) + 1  # the served folder's mine.yaml
    assert len(resolved) <= 2 * named and len(listed) <= 1, (len(resolved), len(listed))


def test_a_looping_link_in_the_served_folder_leaves_every_other_campaign_named(tmp_path: Path) -> None:
    """Naming campaigns' rulesets from a table of every served file resolved each of them for
    every request; a link that loops (`resolve` raises RuntimeError on Python 3.11) made every
    campaign's state and the list a 500 (review AN). That file is found by its listed path; the
    rest are named as before."""
    from engine.api import new_campaign, open_store

    games = tmp_path / "games"
    games.mkdir()
    (games / "zloop.yaml").symlink_to("zloop.yaml")
    db = tmp_path / "c.db"
    store = open_store(db)
    try:
        new_campaign("c1", "chill", store=store, params={"players": 2})
    finally:
        store.close()
    with TestClient(create_app(Settings(db=str(db), workers=1, rulesets=games))) as c:
        listed = c.get("/api/campaigns")
        assert listed.status_code == 200, listed.text
        assert listed.json() == [{"name": "c1", "ruleset": "chill", "events": 1}]
        shown = c.get("/api/campaigns/c1")
        assert shown.status_code == 200 and shown.json()["ruleset"] == "chill", shown.text


DIVIDES = """\
rulecraft: 1
name: der
checks:
  coin:
    roll: {d: {die: 2}}
    outcomes: [tails, heads]
    outcome: "heads if d == 2 else tails"
state:
  shared:
    hits: {counter: 0, min: 0}
    ratio: {derived: "10 // (2 - hits)"}
actions:
  tick:
    effects:
      - {add: {hits: 1}}
"""


def test_a_derived_value_dividing_by_zero_after_an_action_is_422_as_at_roll(tmp_path: Path) -> None:
    """RC502 is 422 wherever it is met (`/api/roll`, and server.md's table): after an action it
    was 409, whose row lists only a campaign's own refusals (RC902, RC904, RC905-RC909). Nothing
    is written."""
    (tmp_path / "der.yaml").write_text(DIVIDES)
    settings = Settings(rulesets=tmp_path, db=str(tmp_path / "c.db"), workers=1, deadline=60.0)
    with TestClient(create_app(settings)) as c:
        assert c.post("/api/campaigns", json={"name": "d", "ruleset": "der"}).status_code == 201
        assert c.post("/api/campaigns/d/act", json={"action": "tick"}).status_code == 200
        [d] = error(c.post("/api/campaigns/d/act", json={"action": "tick"}), 422)
        assert d["code"] == "RC502" and "derived value 'ratio': division by zero" in d["message"]
        assert [e["seq"] for e in c.get("/api/campaigns/d/log").json()] == [1, 2]


def test_a_locked_store_tells_a_client_to_send_again(tmp_path: Path) -> None:
    """RC903 "locked" over HTTP gave the command line's hint alone ("another process is writing to
    this file ... or wait longer"), which a client cannot act on: its `api_hint` says to send the
    request again, and the answer has `Retry-After`. The store waits its timeout (10 s) first."""
    import sqlite3

    db = tmp_path / "c.db"
    with TestClient(create_app(Settings(db=str(db), workers=1, deadline=60.0))) as c:
        made = c.post("/api/campaigns", json={"name": "k", "ruleset": "chill", "params": {"players": 4}})
        assert made.status_code == 201, made.text
        holder = sqlite3.connect(db, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # another process's write lock
        try:
            answer = c.post("/api/campaigns/k/undo")
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        [d] = error(answer, 503)
        assert d["code"] == "RC903" and "is locked" in d["message"]
        assert "this file" not in d["api_hint"] and "send the request again" in d["api_hint"], d
        assert answer.headers["retry-after"] == "1"


@pytest.mark.parametrize(
    ("path", "query", "name"),
    [
        ("/api/campaigns/nosuch/log", "limit=2&limit=3", "limit"),
        ("/api/campaigns", "limit=1&%6Cimit=1", "limit"),  # the same name however it is written
        ("/api/rulesets", "x=&x=", "x"),  # one no route reads, alike
    ],
)
def test_a_query_parameter_given_twice_is_refused(
    client: TestClient, path: str, query: str, name: str
) -> None:
    """The framework took the last and said nothing (a `/log` page's `Link` echoed both), where a
    body's key given twice is refused: so is a query's, before anything reads it."""
    [d] = error(client.get(f"{path}?{query}"), 422)
    assert d["code"] == "RC407" and f"the query gives the parameter '{name}' more than once" in d["message"]
    once = client.get(f"{path}?{query.split('&')[0]}")
    if name == "x":  # given once, a parameter no route takes is refused as such (test_serve_query_params)
        assert "takes no query parameter 'x'" in error(once, 422)[0]["message"]
    elif path.endswith("/log"):  # read once, the query is the route's own: the campaign is not there
        [gone] = error(once, 404)
        assert gone["code"] == "RC901" and "nosuch" in gone["message"]
    else:
        assert once.status_code == 200 and len(once.json()) <= 1  # read once, its limit of 1 holds


def test_an_echoed_text_is_cut_to_its_bound_ellipsis_included(client: TestClient) -> None:
    """The 2,000-character bound came out as 2,001 characters (the `…` after 2,000): a source's
    100,000-character `name`, the file every diagnostic names, and a message naming a check of a
    million characters."""
    from engine.serve.jobs import MAX_TEXT

    sent = client.post("/api/validate", json={"source": "rulecraft: 1\nname: n\n", "name": "f" * 100_000})
    assert sent.status_code == 200 and not sent.json()["ok"]
    d = sent.json()["diagnostics"][0]
    assert len(d["file"]) == MAX_TEXT and d["file"].endswith("…"), len(d["file"])
    # the text is the diagnostic's own render, whose lines are bounded too (`errors.MAX_SAID`)
    assert len(d["text"]) <= 3 * MAX_TEXT and "characters in all)" in d["text"], len(d["text"])
    [d] = error(client.post("/api/roll", json={"ruleset": "chill", "check": "x" * 1_000_000}), 404)
    assert len(d["message"]) == MAX_TEXT and d["message"].endswith("…"), len(d["message"])


@pytest.mark.parametrize(
    "path",
    ["/api/rulesets", "/api/rulesets/chill", "/api/campaigns", "/api/campaigns/nosuch", "/api/nothing"],
)
def test_head_is_answered_as_get_without_the_body(client: TestClient, path: str) -> None:
    """`HEAD` on the API's `GET` routes was 405 (RFC 9110: the same status and headers as `GET`)."""
    got, head = client.get(path), client.head(path)
    assert head.status_code == got.status_code and head.content == b""
    assert head.headers["content-type"] == got.headers["content-type"]
    assert head.headers["content-length"] == str(len(got.content))
    refused = client.head("/api/roll")  # a path that takes no GET takes no HEAD
    assert refused.status_code == 405 and "POST" in refused.headers["allow"]


def test_a_locked_store_waits_no_longer_than_the_deadline(tmp_path: Path) -> None:
    """Hunt 13l: under `--deadline 5` a write waiting for another writer answered after the
    store's own 10 s, past a proxy's timeout set "longer than --deadline"."""
    import sqlite3
    import time

    db = tmp_path / "c.db"
    with TestClient(create_app(Settings(db=str(db), workers=1, deadline=1.5))) as c:
        made = c.post("/api/campaigns", json={"name": "k", "ruleset": "chill", "params": {"players": 4}})
        assert made.status_code == 201, made.text
        holder = sqlite3.connect(db, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            start = time.monotonic()
            answer = c.post("/api/campaigns/k/undo")
            took = time.monotonic() - start
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        [d] = error(answer, 503)
        # what was left of the 1.5 s when it began to wait, down to a tenth (`wait_within`)
        waited = re.search(r"for more than ([0-9.]+) s", d["message"])
        assert d["code"] == "RC903" and "is locked" in d["message"], d
        assert waited is not None and 1.0 <= float(waited.group(1)) <= 1.5, d
        assert took < 6, took  # the deadline's 1.5 s and the request's own work, not the store's 10 s


def test_a_long_scale_is_listed_in_part_in_a_checks_description(client: TestClient) -> None:
    """Found by hunt 13za: each check over a shared scale of 40,000 names repeated it, outcomes
    and choices, so 400 checks made `/api/validate` answer 279 MB. A list holds 200 names and
    says how many more there are; the lint's notes on them come as one per check."""
    members = ", ".join(f"m{i}" for i in range(1_500))
    checks = "".join(
        f"  c{i}:\n    inputs: {{k: {{type: choice, choices: s, default: m0}}}}\n"
        "    roll: {d: {die: 2}}\n    outcomes: s\n    outcome: k\n"
        for i in range(30)
    )
    source = f"rulecraft: 1\nname: wide\nscales:\n  s: [{members}]\nchecks:\n{checks}"
    got = client.post("/api/validate", json={"source": source})
    assert got.status_code == 200 and len(got.content) < 1_000_000, len(got.content)
    info = got.json()["checks"]["c7"]
    assert info["outcomes"][:2] == ["m0", "m1"] and len(info["outcomes"]) == 200
    assert info["outcomes_left_out"] == 1_300
    assert len(info["inputs"][0]["choices"]) == 200 and info["inputs"][0]["choices_left_out"] == 1_300
    notes = [d for d in got.json()["diagnostics"] if d["code"] == "RC804"]  # the 500 choices not tried
    assert len(notes) == 30 and "and 495 more of check" in notes[0]["message"], notes[0]["message"]
    assert notes[0]["hint"].startswith("no roll reaches them with these dice")  # hunt 13zc: "it"


def test_a_source_over_the_bytes_allowed_is_no_file(client: TestClient) -> None:
    """Found by hunt 13za: RC004 said "the file is 781,015 bytes" of a request's `source`."""
    got = client.post("/api/validate", json={"source": COIN + "#" * 600_000})
    [d] = [d for d in got.json()["diagnostics"] if d["code"] == "RC004"]
    assert d["message"].startswith("the ruleset is ") and "over the limit of" in d["message"], d
