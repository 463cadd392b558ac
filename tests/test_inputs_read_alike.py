"""An input's value is read the same way by every front end: the command line's text
(`-i NAME=TEXT`), a Python value, a JSON value over HTTP and a YAML value in an example. A
true/false input given the number 1 or 0 was refused from Python, over HTTP and in examples,
though the command line read "1" and "0" (and docs/server.md says each input is "read as the
command line's `--input` reads it"); and the command line took `-i ' rng=2'` as `rng`, where
Python and HTTP refuse the name `' rng'`.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.cli import _pairs
from engine.errors import InputError
from engine.runtime.inputs import coerce

TEXT = """\
rulecraft: 1
name: alike
scales:
  grade: [low, mid, high]
checks:
  shot:
    inputs:
      aimed: {type: bool, default: false}
      rng: {type: int, min: -5, max: 5, default: 0}
      bonus: {type: number, min: -5, max: 5, default: 0}
      grade: {type: choice, choices: grade, default: mid}
    roll: {d: {die: 6}}
    outcomes: [miss, hit]
    outcome: "'hit' if d + rng + (2 if aimed else 0) >= 6 else 'miss'"
    examples:
      - name: aimed by number
        inputs: {aimed: 1, rng: 3}
        dice: {d: 1}
        expect: {outcome: hit}
      - name: not aimed by number
        inputs: {aimed: 0, rng: 3}
        dice: {d: 1}
        expect: {outcome: miss}
"""
RULES = engine.load(TEXT)
SPECS = RULES.check("shot").input_map


def _read(spec: Any, value: Any) -> tuple[str, Any]:
    """What reading `value` for `spec` gives: ("ok", the value) or ("refused", the code)."""
    try:
        return ("ok", coerce(spec, value))
    except InputError as exc:
        return ("refused", exc.diagnostics[0].code)


def _typed(value: Any) -> str:
    """How a value is typed on the command line: text as itself, anything else as JSON writes it."""
    return value if isinstance(value, str) else json.dumps(value)


VALUES = st.one_of(
    st.integers(-7, 7),
    st.booleans(),
    st.floats(-7, 7, allow_nan=False).map(lambda x: round(x, 2)),
    st.sampled_from(
        ["true", "False", "YES", "no", "1", "0", " 1", "yes ", "2", "1/2", "mid", " high", "x", ""]
    ),
)


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(sorted(SPECS)), value=VALUES)
def test_a_value_is_read_as_the_command_line_reads_its_text(name: str, value: Any) -> None:
    """A law: a value given from Python (or as JSON or YAML, which arrive as the same values) is
    read as the command line reads the text it is typed as, accepted alike or refused alike."""
    [(_, text)] = _pairs([f"{name}={_typed(value)}"], "input").items()
    assert _read(SPECS[name], value) == _read(SPECS[name], text)


def test_one_and_zero_are_true_and_false_everywhere(cli: Any, tmp_path: Path) -> None:
    assert RULES.roll("shot", random.Random(1), inputs={"aimed": 1}).inputs["aimed"] is True
    assert RULES.distribution("shot", aimed=0).inputs["aimed"] is False
    file = tmp_path / "alike.yaml"
    file.write_text(TEXT)
    r = cli("test", str(file))
    assert r.code == 0, r.out + r.err
    assert cli("roll", str(file), "shot", "-i", "aimed=1", "--seed", "1").code == 0
    # a Python True for a whole-number input stays refused, as the text "true" is
    for ask in (
        lambda: RULES.roll("shot", rng=None, inputs={"rng": True}),
        lambda: RULES.distribution("shot", rng=True),
    ):
        with pytest.raises(InputError) as caught:
            ask()
        [d] = caught.value.diagnostics
        assert (d.code, d.message) == ("RC404", "input 'rng' = true is not a number")
    for bad in (2, -1, 1.0, Fraction(1)):
        with pytest.raises(InputError, match="is not true or false"):
            RULES.distribution("shot", aimed=bad)


def test_one_and_zero_are_true_and_false_over_http() -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from engine.serve.app import create_app

    with TestClient(create_app()) as c:
        for given_, read in ((1, True), (0, False), ("1", True), (True, True)):
            body = {"source": TEXT, "check": "shot", "seed": 1, "inputs": {"aimed": given_}}
            answer = c.post("/api/roll", json=body)
            assert answer.status_code == 200, answer.text
            assert answer.json()["inputs"]["aimed"] is read
        body = {"source": TEXT, "check": "shot", "inputs": {}, "input": "aimed", "from": 0, "to": 1}
        swept = c.post("/api/sweep", json=body)
        assert swept.status_code == 200, swept.text
        exact = [RULES.distribution("shot", aimed=a).probability("hit") for a in (False, True)]
        got = [Fraction(p["outcomes"]["hit"]["probability"]) for p in swept.json()["points"]]
        assert got == exact
        answer = c.post("/api/roll", json={"source": TEXT, "check": "shot", "inputs": {" rng": 2}})
        assert answer.status_code == 422
        assert answer.json()["error"]["diagnostics"][0]["message"] == "check 'shot' has no input ' rng'"


def test_a_name_is_taken_as_written_everywhere(cli: Any, tmp_path: Path) -> None:
    """`-i ' rng=2'` is no more `rng` on the command line than `{' rng': 2}` is from Python."""
    file = tmp_path / "alike.yaml"
    file.write_text(TEXT)
    for argv in (
        ("roll", str(file), "shot", "-i", " rng=2"),
        ("prob", str(file), "shot", "--sweep", "rng =1..2"),
    ):
        r = cli(*argv)
        assert r.code == 1 and r.out == ""
        assert "error RC402: check 'shot' has no input '" in r.err and "did you mean 'rng'?" in r.err
    with pytest.raises(InputError) as caught:
        RULES.roll("shot", rng=None, inputs={" rng": 2})
    [d] = caught.value.diagnostics
    assert (d.code, d.message, d.hint) == ("RC402", "check 'shot' has no input ' rng'", "did you mean 'rng'?")
    r = cli(
        "roll", str(file), "shot", "-i", "rng= 2", "-i", "grade= high ", "-i", "aimed= yes", "--seed", "1"
    )
    assert r.code == 0, r.err  # a value's spaces are left out, as from Python: " high" is high
    assert RULES.distribution("shot", grade=" high ", aimed=" yes").inputs["grade"].name == "high"


def test_a_character_s_name_on_the_command_line_is_taken_as_written(cli: Any, tmp_path: Path) -> None:
    """Review: `campaign join k ' al :armour=1'` joined 'al' (the command line stripped the name)
    where Python and HTTP refuse a padded name; the spaces around a list's parts stay layout."""
    db = str(tmp_path / "c.db")
    assert cli("campaign", "--db", db, "new", "k", "castle").code == 0
    padded = cli("campaign", "--db", db, "join", "k", " al :armour=1")
    assert padded.code == 1 and "RC410" in padded.err and "' al '" in padded.err, padded.err
    laid_out = cli("campaign", "--db", db, "join", "k", "bo: armour=1, shield=true")
    assert laid_out.code == 0, laid_out.err
    party = cli("scene", "prob", "castle", "shootout", "--party", " you:quick=1")
    assert party.code == 1 and "RC907" in party.err and "' you'" in party.err, party.err


def test_a_header_shows_the_values_as_read_not_as_typed(cli: Any) -> None:
    """Review: `scene prob chimera learning --party student:max_resolve=00` was headed
    `max_resolve=00`, and a sweep's fixed inputs `tokens=01`, where `prob`'s own header shows
    the value it read (`target=55` for `055`): every header now shows what was read."""
    scene = cli("scene", "prob", "chimera", "learning", "--party", "student:max_resolve=00")
    assert scene.code == 0, scene.err
    assert scene.out.splitlines()[0].endswith("(student: max_resolve=0)"), scene.out
    grid = cli("scene", "prob", "castle", "shootout", "--party", "you:quick=1", "--grid", "foe.quick=0..1")
    assert grid.code == 0, grid.err  # a true/false parameter given 1 is shown as it was read
    assert grid.out.splitlines()[0].endswith("(you: quick=true)"), grid.out
    # and a grid's labels alike: 0..1 of a true/false parameter is false, true
    assert [line.split()[0] for line in grid.out.splitlines()[2:4]] == ["false", "true"], grid.out
    sweep = cli("prob", "chill", "specific", "--input", "tokens=01", "--sweep", "target=1..3")
    assert sweep.code == 0, sweep.err
    assert sweep.out.splitlines()[0].endswith("(tokens=1)"), sweep.out


DECIMAL_BOUNDS = """\
rulecraft: 1
name: decimal_bounds
checks:
  a:
    inputs:
      x: {type: number, min: 0.1, max: 0.3, default: 0.1}
      xs: {type: list, of: number, min: 0.1, max_length: 2.0, default: [0.1]}
    roll:
      d: {die: 6}
    outcomes: [miss, hit]
    outcome: "'hit' if d * x + sum(xs) > 1 else 'miss'"
  capped:
    roll:
      p: {pool: 2, die: 6, cap: 2.0, triggers: [{on: face == 6, must: add}]}
    outcomes: [miss, hit]
    outcome: "'hit' if sum(p) > 6 else 'miss'"
state:
  campaign:
    r: {type: number, min: 0.1, max: 0.5, default: 0.1}
"""


def test_a_decimal_bound_is_the_number_written_as_a_value_is() -> None:
    """A bound is read as the number written, as a value given for it is: `min: 0.1` was kept as
    the binary float, so 0.1 (read as 1/10) was "below its minimum 0.1", a default equal to its
    bound did not load (RC310), and a campaign's parameter at its bound was refused (found by a
    hunt). A whole count written `2.0` (a cap, a list's length), which JSON Schema takes as
    whole, is that whole number: a cap of 2.0 was a traceback in the solver."""
    from engine.state.memory import MemoryStore

    rs = engine.load(DECIMAL_BOUNDS)
    for low in (0.1, "0.1", "1/10", Fraction(1, 10)):  # d * 1/10 + 1/10 > 1 never holds
        assert rs.distribution("a", x=low, xs=[low]).probability("hit") == 0
    for high in (0.3, "0.3", Fraction(3, 10)):  # d * 3/10 + 1/10 > 1 for d of 4 or more
        assert rs.distribution("a", x=high).probability("hit") == Fraction(1, 2)
    assert rs.distribution("a").probability("hit") == 0  # the defaults, at their bounds
    with pytest.raises(InputError) as below:
        rs.distribution("a", x="0.09")
    assert "below its minimum 1/10" in str(below.value)
    with pytest.raises(InputError):
        rs.distribution("a", xs=[0.1, 0.1, 0.1])  # max_length 2
    assert rs.distribution("capped").probability("miss") == Fraction(5, 12)
    campaign = engine.new_campaign("b", rs, store=MemoryStore(), params={"r": 0.1})
    assert campaign.state()["params"] == {"r": "1/10"}
