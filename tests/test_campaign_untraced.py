"""A campaign's action and roll without the trace (`trace=False`, `--no-trace`, `"trace": false`),
as a roll outside a campaign has had. A trace too long to show is refused (RC503 "by the roll's
trace", hunt 13za), and in a campaign that had only one way round: a bigger work budget. Its hint
said to roll it without its trace "where that is offered", which a campaign did not offer. The
roll without its trace is the same roll: the same dice, outcome, values and event."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.state.memory import MemoryStore

LONG = (
    "rulecraft: 1\nname: long\nscales:\n  s: [{lo}, {hi}]\nchecks:\n  c:\n    roll:\n      p:\n"
    "        pool: 1\n        die: 300\n        each: \"'{hi}' if face == 300 else '{lo}'\"\n"
    "        triggers:\n          - {{on: face < 300, must: add}}\n        cap: 300\n"
    "    outcomes: [a, b]\n    outcome: \"'a' if count(p, '{hi}') > 0 else 'b'\"\n"
    "state:\n  shared:\n    found: {{counter: 0, min: 0}}\n"
    "actions:\n  look:\n    roll: {{check: c}}\n"
    "    effects:\n      - {{add: {{found: 1}}, when: \"outcome == 'a'\"}}\n"
)
"""A pool shown after each of its 300 added dice, its dice read as names of 3,000 characters."""
FORCED = {"p": [1] * 300 + [300]}


@pytest.fixture
def long_names(tmp_path: Path) -> engine.Campaign:
    path = tmp_path / "long.yaml"
    path.write_text(LONG.format(lo="l" * 3000, hi="h" * 3000))
    return engine.new_campaign("c", path, store=MemoryStore())


def test_an_action_whose_trace_is_too_long_is_taken_without_it(long_names: engine.Campaign) -> None:
    with pytest.raises(engine.LimitError) as refused:
        long_names.act("look", forced=FORCED)
    [d] = refused.value.diagnostics
    assert d.code == "RC503" and "by the roll's trace" in d.message
    assert [e.kind for e in long_names.log()] == ["new"]  # nothing written
    acted = long_names.act("look", forced=FORCED, trace=False)
    assert acted.result is not None and acted.result.trace == ()
    assert acted.result.outcome.name == "a" and long_names.state()["shared"] == {"found": 1}
    event, rolled = long_names.roll("c", forced=FORCED, trace=False)
    assert rolled.trace == () and rolled.outcome.name == "a" and event.kind == "roll"


def _chill() -> engine.Campaign:
    return engine.new_campaign("c", "chill", store=MemoryStore(), params={"players": 4})


@pytest.mark.parametrize("seed", [0, 3, 11, 2024])
def test_without_the_trace_an_action_is_the_same_action(seed: int) -> None:
    with_it, without = _chill(), _chill()
    for _ in range(3):  # each from the state the last one left
        shown = with_it.act("player_roll", inputs={"target": 55}, seed=seed)
        plain = without.act("player_roll", inputs={"target": 55}, seed=seed, trace=False)
        assert shown.result is not None and plain.result is not None
        assert shown.result.trace and plain.result.trace == ()
        assert plain.result.outcome == shown.result.outcome
        assert plain.result.values == shown.result.values and plain.result.forced() == shown.result.forced()
        assert plain.event.data == shown.event.data and plain.event.state == shown.event.state
    event, rolled = without.roll("specific", seed=seed, inputs={"target": 40}, trace=False)
    kept, shown_roll = with_it.roll("specific", seed=seed, inputs={"target": 40})
    assert rolled.trace == () and rolled.outcome == shown_roll.outcome and event.data == kept.data


@pytest.mark.parametrize("call", ["act", "roll"])
def test_a_trace_that_is_no_bool_is_a_type_error(call: str) -> None:
    campaign = _chill()
    with pytest.raises(TypeError, match="trace"):
        if call == "act":
            campaign.act("player_roll", inputs={"target": 55}, trace="no")  # type: ignore[arg-type]
        else:
            campaign.roll("specific", inputs={"target": 55}, trace=1)  # type: ignore[arg-type]
    assert [e.kind for e in campaign.log()] == ["new"]


def test_an_input_named_trace_is_given_in_the_mapping(tmp_path: Path) -> None:
    """`trace` is the method's own keyword now, as on `Ruleset.roll`: an input of that name is given
    by `inputs=`, which takes any name."""
    source = (
        "rulecraft: 1\nname: t\nchecks:\n  c:\n    inputs: {trace: {type: int, min: 0, max: 9}}\n"
        "    roll: {d: {die: 6}}\n    outcomes: [lo, hi]\n    outcome: \"'hi' if d > trace else 'lo'\"\n"
        "state:\n  shared:\n    n: {counter: 0}\nactions:\n  go:\n"
        "    inputs: {trace: {type: int, min: 0, max: 9}}\n    roll: {check: c, inputs: {trace: trace}}\n"
        "    effects:\n      - {add: {n: 1}}\n"
    )
    path = tmp_path / "t.yaml"
    path.write_text(source)
    campaign = engine.new_campaign("c", path, store=MemoryStore())
    acted = campaign.act("go", inputs={"trace": 6}, seed=1, trace=False)
    assert acted.result is not None and acted.result.outcome.name == "lo" and acted.result.trace == ()
    _, rolled = campaign.roll("c", inputs={"trace": 0}, seed=1)
    assert rolled.outcome.name == "hi" and rolled.trace


def test_the_command_line_acts_and_rolls_without_the_trace(cli: Callable[..., Any], tmp_path: Path) -> None:
    db = str(tmp_path / "c.db")
    assert cli("campaign", "--db", db, "new", "case", "chill", "-p", "players=4").code == 0
    args = ("player_roll", "-i", "target=55", "--seed", "3")
    shown = cli("campaign", "--db", db, "act", "case", *args)
    plain = cli("campaign", "--db", db, "act", "case", *args, "--no-trace")
    assert shown.code == 0 and plain.code == 0, plain.err
    assert "die     tens" in shown.out and "die     tens" not in plain.out
    assert "rolled  tens            : 3" in plain.out and "=> low_success" in plain.out
    rolled = cli(
        "campaign", "--db", db, "roll", "case", "specific", "-i", "target=55", "--seed", "3", "--no-trace"
    )
    assert rolled.code == 0 and "rolled  ones            : 9" in rolled.out and "die     " not in rolled.out
    as_json = cli("campaign", "--db", db, "act", "case", *args, "--no-trace", "--json")
    assert as_json.code == 0, as_json.err
    assert json.loads(as_json.out)["event"]["data"]["roll"]["outcome"] == "low_success"


def test_the_server_acts_and_rolls_without_the_trace(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from engine.serve.app import Settings, create_app

    auth = {"Authorization": "Bearer s3cret"}
    with TestClient(create_app(Settings(db=str(tmp_path / "c.db"), token="s3cret"))) as c:
        made = c.post(
            "/api/campaigns", json={"name": "c", "ruleset": "chill", "params": {"players": 4}}, headers=auth
        )
        assert made.status_code == 201, made.text
        body = {"action": "player_roll", "inputs": {"target": 55}, "seed": 3}
        shown = c.post("/api/campaigns/c/act", json=body, headers=auth).json()
        plain = c.post("/api/campaigns/c/act", json={**body, "trace": False}, headers=auth).json()
        assert shown["roll"]["trace"] and plain["roll"]["trace"] == []
        assert plain["roll"]["outcome"] == shown["roll"]["outcome"] == "low_success"
        roll = {"check": "specific", "inputs": {"target": 55}, "seed": 3, "trace": False}
        rolled = c.post("/api/campaigns/c/roll", json=roll, headers=auth).json()
        assert rolled["roll"]["trace"] == [] and rolled["roll"]["outcome"] == "low_success"
        wrong = c.post("/api/campaigns/c/roll", json={**roll, "trace": "no"}, headers=auth)
        assert wrong.status_code == 422


def test_a_campaign_acted_without_the_trace_replays(long_names: engine.Campaign) -> None:
    """Hunt 13zf: the replay acted again with the trace on, so an action that could only be taken
    without it was refused on replay (RC503 "by the roll's trace"); nothing reads a replay's trace."""
    long_names.act("look", forced=FORCED, trace=False)
    assert long_names.replay()["shared"] == {"found": 1}


def test_a_state_example_whose_trace_is_too_long_passes(tmp_path: Path, cli: Callable[..., Any]) -> None:
    example = (
        "  examples:\n    - name: looks\n"
        f"      steps: [{{act: look, dice: {{p: {[1] * 300 + [300]}}}}}]\n"
        "      expect: {shared: {found: 1}}\n"
    )
    text = LONG.format(lo="l" * 3000, hi="h" * 3000).replace("actions:\n", example + "actions:\n")
    path = tmp_path / "long.yaml"
    path.write_text(text)
    tested = cli("test", str(path))
    assert tested.code == 0 and "1 passed, 0 failed" in tested.out, tested.out + tested.err
