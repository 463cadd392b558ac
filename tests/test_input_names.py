"""A check's or an action's inputs may be named as the Python API's own keyword parameters
(`rng`, `forced`, `policy`, `trace`, `method`, `inputs`, `seed`, `check`, `others`):
such inputs are given from Python by `inputs={...}` (any name), and the command line, the HTTP
API and a ruleset's examples, which pass inputs that way, take them too. A roll with such inputs
is the roll of a twin check whose inputs have plain names.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.state.memory import MemoryStore

NAMES = ("rng", "forced", "policy", "trace", "method", "inputs", "seed", "check")
PLAIN = tuple(f"plain_{n}" for n in NAMES)


def _check(names: tuple[str, ...]) -> str:
    inputs = "".join(f"      {n}: {{type: int, min: 0, max: 3, default: 0}}\n" for n in names)
    weights = " + ".join(f"{i + 1} * {n}" for i, n in enumerate(names))  # each input moves it its own way
    return f"""\
    inputs:
{inputs}    roll: {{d: {{die: 20}}}}
    let:
      total: d + {weights}
    outcomes: result
    outcome:
      - when: total >= 60
        then: high
      - when: total >= 30
        then: mid
      - else: low
"""


TEXT = f"""\
rulecraft: 1
name: named
scales:
  result: [low, mid, high]
checks:
  odd:
{_check(NAMES)}    examples:
      - name: inputs named as the API's parameters, with dice
        inputs: {{rng: 3, policy: 3, inputs: 3}}
        dice: {{d: 20}}
        expect: {{outcome: mid, values: {{total: 50}}}}
      - name: and exactly
        inputs: {{rng: 3, policy: 3, inputs: 3, method: 3}}
        expect: {{probability: {{high: 3/10, mid: 7/10}}}}
  plain:
{_check(PLAIN)}state:
  character:
    hp: {{type: int, min: 1, max: 5, default: 2}}
    self: {{type: int, min: 0, max: 3, default: 0}}
  each:
    score: {{counter: 0, min: 0}}
  examples:
    - name: an action's inputs named as the API's parameters
      characters: {{ann: {{}}}}
      steps: [{{act: push, character: ann, inputs: {{seed: 1, policy: 1, inputs: 1}}}}]
      expect: {{characters: {{ann: {{score: 7}}}}}}
    - name: a character's parameter named as a method's own
      characters: {{}}
      steps: [{{join: bob, params: {{self: 2}}}}, {{act: lift, character: bob}}]
      expect: {{characters: {{bob: {{score: 2}}}}}}
actions:
  lift:
    by: character
    effects:
      - {{add: {{score: self}}}}
  push:
    by: character
    inputs:
      seed: {{type: int, min: 0, max: 3, default: 0}}
      policy: {{type: int, min: 0, max: 3, default: 0}}
      others: {{type: int, min: 0, max: 3, default: 0}}
      inputs: {{type: int, min: 0, max: 3, default: 0}}
    effects:
      - {{add: {{score: "seed + 2 * policy + 3 * others + 4 * inputs"}}}}
"""

RULES = engine.load(TEXT, name="named.yaml")

values = st.fixed_dictionaries({}, optional={n: st.integers(0, 3) for n in NAMES})


def plain(given: dict[str, int]) -> dict[str, int]:
    """The same inputs under the twin check's plain names."""
    return {f"plain_{k}": v for k, v in given.items()}


def _same_roll(a: engine.Result, b: engine.Result) -> None:
    assert (a.outcome.name, a.rolled, dict(a.values)) == (b.outcome.name, b.rolled, dict(b.values))


@settings(max_examples=40, deadline=None)
@given(values, st.integers(0, 2**32), st.booleans())
def test_roll_by_inputs_is_the_twins_roll(given: dict[str, int], seed: int, trace: bool) -> None:
    odd = RULES.roll("odd", random.Random(seed), trace=trace, inputs=given)
    twin = RULES.roll("plain", random.Random(seed), trace=trace, **plain(given))
    _same_roll(odd, twin)
    assert {k: odd.inputs[k] for k in given} == given
    again = RULES.roll("odd", random.Random(seed), trace=trace, inputs=given)  # remembered now
    _same_roll(again, twin)


@settings(max_examples=25, deadline=None)
@given(values, st.integers(0, 2**32))
def test_roller_sample_and_distribution_by_inputs_are_the_twins(given: dict[str, int], seed: int) -> None:
    _same_roll(
        RULES.roller("odd", inputs=given)(random.Random(seed)),
        RULES.roller("plain", **plain(given))(random.Random(seed)),
    )
    for method in ("exact", "rolled"):
        odd = RULES.sample("odd", 50, random.Random(seed), method=method, inputs=given)
        twin = RULES.sample("plain", 50, random.Random(seed), method=method, **plain(given))
        assert (odd.outcomes, odd.method) == (twin.outcomes, twin.method)
    assert (
        RULES.distribution("odd", inputs=given).table() == RULES.distribution("plain", **plain(given)).table()
    )


def test_inputs_and_keywords_merge_and_policy_keeps_its_meaning() -> None:
    """`inputs=` and keyword inputs together are one set of inputs; `policy=` is still the policy."""
    both = RULES.roll("odd", random.Random(3), policy="never", inputs={"policy": 2, "rng": 1}, method=3)
    twin = RULES.roll("plain", random.Random(3), policy="never", plain_policy=2, plain_rng=1, plain_method=3)
    _same_roll(both, twin)
    assert both.policy == "never"
    dist = RULES.distribution("odd", policy="optimal", inputs={"policy": 3, "method": 1})
    assert dist.policy == "optimal" and dist.inputs["policy"] == 3 and dist.inputs["method"] == 1


def test_a_remembered_roll_is_never_found_by_other_inputs() -> None:
    """`roll` remembers recent arguments: a mapping changed after a roll, or another mapping,
    finds the roll of its own inputs, never the one remembered before."""
    rs = engine.load(TEXT, name="named.yaml")
    mine = {"rng": 0}
    for value in (0, 3, 0, 3):
        mine["rng"] = value
        for _ in range(2):
            got = rs.roll("odd", random.Random(1), trace=False, inputs=mine)
            _same_roll(got, rs.roll("plain", random.Random(1), trace=False, plain_rng=value))
            assert got.inputs["rng"] == value
    # many inputs at once, and one by keyword
    for value in (1, 2, 1):
        got = rs.roll("odd", random.Random(2), inputs={"rng": value, "trace": 3}, policy="always")
        assert got.values["total"] - got.rolled["d"] == value + 4 * 3


def test_a_rulesets_examples_take_such_inputs(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "named.yaml").write_text(TEXT)
    r = cli("test", str(tmp_path / "named.yaml"))
    assert r.code == 0, r.out + r.err
    assert "4 passed" in r.out, r.out


def test_the_cli_takes_such_inputs_as_python_does(cli: Any, tmp_path: Path) -> None:
    """`--input rng=2` (which had been a traceback: the CLI passed inputs as keywords) rolls what
    `inputs={"rng": 2}` rolls."""
    file = tmp_path / "named.yaml"
    file.write_text(TEXT)
    flags = [arg for n in NAMES for arg in ("--input", f"{n}={NAMES.index(n) % 4}")]
    given = {n: NAMES.index(n) % 4 for n in NAMES}
    r = cli("roll", str(file), "odd", *flags, "--seed", "7", "--json")
    assert r.code == 0, r.err
    rolled = json.loads(r.out)
    api = RULES.roll("odd", random.Random(7), inputs=given)
    assert rolled["outcome"] == api.outcome.name and rolled["values"]["total"] == api.values["total"]
    r = cli("roll", str(file), "odd", *flags, "--seed", "7", "--times", "20", "--json")
    assert r.code == 0, r.err
    assert (
        json.loads(r.out)["outcomes"]
        == RULES.sample("odd", 20, random.Random(7), inputs=given).as_json()["outcomes"]
    )
    r = cli("prob", str(file), "odd", *flags, "--json")
    assert r.code == 0, r.err
    table = {s.name: p for s, p in RULES.distribution("odd", inputs=given).table()}
    assert json.loads(r.out)["outcomes"] == {k: f"{v.numerator}/{v.denominator}" for k, v in table.items()}


def _campaign() -> engine.Campaign:
    return engine.new_campaign("c", RULES, store=MemoryStore(), characters={"ann": {}})


def test_a_campaign_takes_such_inputs_by_inputs() -> None:
    c = _campaign()
    acted = c.act("push", "ann", seed=5, inputs={"seed": 1, "policy": 1, "others": 1, "inputs": 1})
    assert acted.event.data["inputs"] == {"seed": 1, "policy": 1, "others": 1, "inputs": 1}
    assert acted.event.data["seed"] == 5
    assert c.state()["characters"]["ann"]["items"]["score"] == 1 + 2 + 3 + 4
    dist = c.distribution("push", "ann", inputs={"inputs": 1, "others": 1})
    [(state, p)] = dist.items()  # no roll: one state, certain
    assert p == 1 and json.loads(state)["characters"]["ann"]["items"]["score"] == 10 + 4 + 3
    event, result = c.roll("odd", seed=7, inputs={"check": 2, "seed": 1, "forced": 3})
    _same_roll(result, RULES.roll("plain", random.Random(7), plain_check=2, plain_seed=1, plain_forced=3))
    assert event.data["seed"] == 7
    again, same = c.roll("odd", check=2, seed=7, inputs={"seed": 1, "forced": 3})  # `check` is positional
    _same_roll(same, result)


@pytest.mark.parametrize("twice", ["rng", "method", "trace"])
def test_a_name_given_both_ways_is_refused(twice: str) -> None:
    """(A name that is one of the method's own parameters cannot be given as a keyword input.)"""
    with pytest.raises(TypeError, match=f"argument 'inputs' gives the input '{twice}'"):
        RULES.distribution("odd", inputs={twice: 1}, **{twice: 2})


def test_the_http_api_takes_such_inputs_as_python_does() -> None:
    """A request's `inputs` are passed by `inputs=`: `{"policy": 2}` is the check's input, and
    the request's own `policy` is still the policy (it had been a server error)."""
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from engine.serve.app import create_app

    given = {"rng": 1, "policy": 2, "inputs": 3, "check": 1}
    with TestClient(create_app()) as c:
        body = {"source": TEXT, "check": "odd", "seed": 7, "policy": "never", "inputs": given}
        rolled = c.post("/api/roll", json=body)
        assert rolled.status_code == 200, rolled.text
        api = RULES.roll("odd", random.Random(7), policy="never", inputs=given)
        assert (rolled.json()["outcome"], rolled.json()["values"]["total"]) == (
            api.outcome.name,
            api.values["total"],
        )
        assert rolled.json()["policy"] == "never"
        prob = c.post("/api/prob", json={"source": TEXT, "check": "odd", "inputs": given})
        assert prob.status_code == 200, prob.text
        table = RULES.distribution("odd", inputs=given).table()
        assert [o["name"] for o in prob.json()["outcomes"]] == [s.name for s, _ in table]


def test_a_characters_parameter_may_be_named_self(cli: Any, tmp_path: Path) -> None:
    """A character's parameter named `self` (or an input named `check` or `action`: the
    campaign's methods take these positionally only) joins from Python, the command line, the
    HTTP API and an example; each had passed the parameters as keywords to
    `Campaign.join(self, character, **params)`: a traceback, or a server error."""
    c = _campaign()
    c.join("bob", self=2)
    c.act("lift", "bob")
    assert c.state()["characters"]["bob"]["items"]["score"] == 2
    with pytest.raises(engine.InputError, match="has no parameter 'character'"):
        c.join("dee", params={"character": 1})  # the user's parameters, as the front ends pass them
    c.join(character="cy", self=1)  # the character by keyword too: no parameter is named so
    c.act("lift", character="cy")
    assert c.distribution("lift", character="cy").items()
    assert c.state()["characters"]["cy"]["items"]["score"] == 1
    file = tmp_path / "named.yaml"
    file.write_text(TEXT)
    db = str(tmp_path / "c.db")
    assert cli("campaign", "--db", db, "new", "k", str(file)).code == 0
    joined = cli("campaign", "--db", db, "join", "k", "bob:self=3")
    assert joined.code == 0, joined.err
    clash = cli("campaign", "--db", db, "join", "k", "cy:character=1")  # had been a traceback
    assert clash.code != 0 and "RC402" in clash.err and "Traceback" not in clash.err, clash.err
    assert cli("campaign", "--db", db, "act", "k", "lift", "-c", "bob").code == 0
    shown = cli("campaign", "--db", db, "show", "k", "--json")
    assert json.loads(shown.out)["characters"]["bob"]["items"]["score"] == 3, shown.out
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from engine.serve.app import Settings, create_app

    served = tmp_path / "served"
    served.mkdir()
    (served / "named.yaml").write_text(TEXT)
    app = create_app(Settings(rulesets=served, db=str(tmp_path / "s.db"), workers=1))
    with TestClient(app) as client:
        made = client.post("/api/campaigns", json={"name": "k", "ruleset": "named"})
        assert made.status_code == 201, made.text
        join = client.post("/api/campaigns/k/join", json={"character": "bob", "params": {"self": 1}})
        assert join.status_code == 200, join.text
        clash = client.post("/api/campaigns/k/join", json={"character": "cy", "params": {"character": 1}})
        assert clash.status_code == 422 and clash.json()["error"]["diagnostics"][0]["code"] == "RC402", (
            clash.text
        )


def test_an_example_joining_with_a_parameter_named_character_is_refused_at_load(
    cli: Any, tmp_path: Path
) -> None:
    """A state example's `join` step with a parameter `character` (no parameter may be named so)
    names a parameter the ruleset does not have: RC702 at the key when the ruleset loads (it had
    been a traceback, then the example failing under `rulecraft test`)."""
    bad = TEXT.replace(
        "steps: [{join: bob, params: {self: 2}}", "steps: [{join: bob, params: {character: 2}}"
    )
    assert bad != TEXT
    (tmp_path / "named.yaml").write_text(bad)
    r = cli("test", str(tmp_path / "named.yaml"))
    assert r.code == 1 and "Traceback" not in r.out + r.err, r.out + r.err
    assert "RC702: example names no character parameter: 'character'" in r.err, r.err
    assert "1 file(s) did not load" in r.out, r.out
