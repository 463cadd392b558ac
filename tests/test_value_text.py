"""How values are written where a user reads them (found by a review): a value refused is shown
as JSON or YAML writes it, not as Python prints it (`{'a': 1}`, `Fraction(1, 2)`); a campaign's
or a character's parameter is called a parameter when its value is refused, not an input; and a
range is written in JSON as the language writes it, `"1..3"`, not as the list `[1, 3]`.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.errors import CompileError, InputError, shown
from engine.state.memory import MemoryStore

TEXT = """\
rulecraft: 1
name: texts
checks:
  c:
    inputs:
      x: {type: int, min: 0, max: 5, default: 3}
    let:
      rg: "1..x"
      lst: "[x, x + 1]"
    roll:
      d: {die: 6}
    outcomes: [miss, hit]
    outcome: "'hit' if d in rg else 'miss'"
    examples:
      - name: a range expected as it is written
        dice: {d: 1}
        expect: {outcome: hit, values: {rg: "1..3"}}
state:
  campaign:
    rng: {type: int, default: 1, min: 0, max: 9}
  character:
    tough: {type: int, default: 0, min: 0, max: 3}
  shared:
    wins: {counter: 0, min: 0}
"""
RULES = engine.load(TEXT)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({"a": 1}, '{"a": 1}'),
        ([1, "x"], '[1, "x"]'),
        ((1, 2), "[1, 2]"),
        (Fraction(1, 2), "1/2"),
        ({"a": [True, None]}, '{"a": [true, null]}'),
        ("9", "'9'"),
        (True, "true"),
        (None, "null"),
        ({"é": "\ud800"}, '{"é": "\\ud800"}'),  # printable wherever it is written
    ],
)
def test_a_value_is_shown_as_json_writes_it(value: Any, text: str) -> None:
    assert shown(value) == text


def test_a_refused_input_is_shown_as_json_from_python_and_over_http() -> None:
    with pytest.raises(InputError) as caught:
        RULES.distribution("c", x={"a": 1})
    assert caught.value.diagnostics[0].message == """input 'x' = {"a": 1} is not a number"""
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from engine.serve.app import create_app

    with TestClient(create_app()) as c:
        answer = c.post("/api/roll", json={"source": TEXT, "check": "c", "inputs": {"x": {"a": 1}}})
        assert answer.status_code == 422
        [d] = answer.json()["error"]["diagnostics"]
        assert d["message"] == """input 'x' = {"a": 1} is not a number"""


def test_a_campaigns_or_characters_parameter_is_called_a_parameter(cli: Any, tmp_path: Path) -> None:
    """RC403/RC404 for a campaign's or a character's parameter said "input 'rng' = …"; the
    parameter's missing or unknown name was already told as a parameter."""
    with pytest.raises(InputError) as caught:
        engine.new_campaign("k", RULES, store=MemoryStore(), params={"rng": True})
    assert caught.value.diagnostics[0].message == "parameter 'rng' = true is not a number"
    campaign = engine.new_campaign("k", RULES, store=MemoryStore())
    with pytest.raises(InputError) as caught:
        campaign.join("cy", tough=9)
    assert (
        caught.value.diagnostics[0].message
        == "parameter 'tough' = 9 is above its maximum 3 (for character 'cy')"
    )
    with pytest.raises(InputError) as caught:
        campaign.join("cy", tough=[1])
    assert (
        caught.value.diagnostics[0].message == "parameter 'tough' = [1] is not a number (for character 'cy')"
    )
    file = tmp_path / "texts.yaml"
    file.write_text(TEXT)
    db = str(tmp_path / "c.db")
    assert cli("campaign", "--db", db, "new", "k", str(file)).code == 0
    r = cli("campaign", "--db", db, "join", "k", "cy:tough=x")
    assert r.code == 1 and "error RC404: parameter 'tough' = 'x' is not a number" in r.err, r.err
    bad = TEXT.replace("{type: int, default: 0, min: 0, max: 3}", "{type: int, default: 9, min: 0, max: 3}")
    with pytest.raises(CompileError) as loading:
        engine.load(bad)
    [d] = loading.value.diagnostics
    assert d.message == "default 9 does not fit: parameter 'tough' = 9 is above its maximum 3"
    # a check's input stays an input
    with pytest.raises(InputError, match="error RC403: input 'x' = 9 is above its maximum 5"):
        RULES.distribution("c", x=9)


def test_a_range_is_written_as_the_language_writes_it_in_json(cli: Any, tmp_path: Path) -> None:
    result = RULES.roll("c", random.Random(1))
    assert result.as_json()["values"]["rg"] == "1..3"
    assert result.as_json()["values"]["lst"] == [3, 4]
    file = tmp_path / "texts.yaml"
    file.write_text(TEXT)
    r = cli("roll", str(file), "c", "--seed", "1", "--json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["values"]["rg"] == "1..3"
    r = cli("test", str(file))
    assert r.code == 0, r.out + r.err  # an example expects a range as it is written


def test_a_value_too_large_to_print_is_shown_without_raising() -> None:
    """Review: a container holding a whole number past Python's 4,300 digits for text (refused
    by JSON, then by `repr`) raised a bare ValueError from `shown`, so `roll(inputs={'skill':
    [10**5000]})` was no InputError."""
    for value in ([10**5000], {"a": 10**5000}, (1, 10**5000)):
        text = shown(value)
        assert "too large to show" in text and len(text) < 60, text
    for value in ([10**5000], {"a": 10**5000}):
        with pytest.raises(InputError) as caught:
            RULES.roll("c", random.Random(1), inputs={"x": value})
        assert caught.value.diagnostics[0].code == "RC404", caught.value


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("true", "true"),
        ("null", "null"),
        ("[int]", '["int"]'),
        ("{a: 1}", '{"a": 1}'),
        ("integer", "'integer'"),
    ],
)
def test_a_yaml_value_refused_by_the_schema_is_shown_as_yaml_writes_it(written: str, said: str) -> None:
    """Review: a value of the wrong choice was quoted as Python prints it (`None`, `['int']`)."""
    with pytest.raises(engine.RulecraftError) as caught:
        engine.load(TEXT.replace("x: {type: int,", f"x: {{type: {written},"))
    (d,) = [d for d in caught.value.diagnostics if d.code == "RC104"]
    assert d.message.endswith(f"must be one of 'int', 'number', 'bool', 'choice', 'list', not {said}"), d


@pytest.mark.parametrize(("written", "said"), [("true", "true"), ("{a: 1}", '{"a": 1}'), ("'1'", "'1'")])
def test_a_format_version_refused_is_shown_as_yaml_writes_it(written: str, said: str) -> None:
    with pytest.raises(CompileError) as caught:
        engine.load(TEXT.replace("rulecraft: 1", f"rulecraft: {written}"))
    assert caught.value.diagnostics[0].message == f"unsupported format version {said}"


def test_a_forced_chit_refused_is_shown_as_a_forced_face_is() -> None:
    rules = engine.load(
        """\
rulecraft: 1
name: chits
bags:
  beads: {chits: {good: 1, poor: 2}}
checks:
  c:
    roll:
      b: {draw: beads}
    outcomes: [lo, hi]
    outcome: "'hi' if best(b) == 'good' else 'lo'"
"""
    )
    for given, said in ((True, "true"), (None, "null"), ("gold", "'gold'")):
        with pytest.raises(InputError) as caught:
            rules.roll("c", random.Random(1), forced={"b": [given]})
        assert caught.value.diagnostics[0].message == f"forced b = {said} is not left in bag 'beads'"


@pytest.mark.parametrize(("given", "said"), [(["good"], '["good"]'), ({"good": 1}, '{"good": 1}')])
def test_a_forced_chit_no_bag_could_hold_is_rc405_not_a_traceback(given: object, said: str) -> None:
    """`rs.roll(..., forced={"b": [["good"]]})`, a chit that is a list (unhashable), was a
    TypeError from the sampler's bag lookup, where every other bad chit is RC405: a chit is
    named by text (`in_bag`), and anything else is in no bag."""
    rules = engine.load(
        "rulecraft: 1\nname: chits\nbags:\n  beads: {chits: {good: 1, poor: 2}}\nchecks:\n  c:\n"
        "    roll:\n      b: {draw: beads}\n    outcomes: [lo, hi]\n"
        "    outcome: \"'hi' if best(b) == 'good' else 'lo'\"\n"
    )
    with pytest.raises(InputError) as caught:
        rules.roll("c", random.Random(1), forced={"b": [given]})
    [d] = caught.value.diagnostics
    assert (d.code, d.message) == ("RC405", f"forced b = {said} is not left in bag 'beads'")
