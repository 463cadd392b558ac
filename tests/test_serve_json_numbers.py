"""A JSON number in a request is read from its text, exactly, as the command line's `--input` is.

Found by hunt 13i: the body reader made Python floats of JSON numbers, so
`0.30000000000000000001` reached the ruleset as 3/10 (an exact answer of 1/5 where the same text as
a string, or on the command line, gave 3/10), `55.00000000000000001` rolled a whole-number input as
55 where the text is refused as not whole, and `1e400` was told as "inf is not a finite number".
Now a number with a point or an exponent is an `errors.Numeral`: a float that keeps its text.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

import engine  # noqa: E402
from engine.serve.app import Settings, create_app  # noqa: E402
from engine.serve.body import read_json  # noqa: E402

STRICT = """\
rulecraft: 1
name: strict
checks:
  c:
    inputs:
      x: {type: number, min: 0, max: 1}
    roll:
      d: {die: 10}
    outcomes: [lo, hi]
    outcome: "'hi' if d < 10 * x else 'lo'"
"""
TEXT = "0.30000000000000000001"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("serve") / "campaigns.db"
    with TestClient(create_app(Settings(db=str(db), workers=1, deadline=60.0))) as c:
        yield c


def _prob(client: TestClient, x: str) -> Any:
    body = '{"source": ' + _quoted(STRICT) + ', "check": "c", "inputs": {"x": ' + x + "}}"
    answer = client.post("/api/prob", content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 200, answer.text
    return answer.json()


def _quoted(text: str) -> str:
    import json

    return json.dumps(text)


def test_the_number_and_the_text_give_the_same_exact_answer(client: TestClient) -> None:
    # d < 10 * x: with x just above 3/10, d of 1, 2 or 3 (3/10); with x rounded to 3/10, 1 or 2 (1/5)
    assert engine.load(STRICT).distribution("c", x=Fraction(TEXT)).probability("hi") == Fraction(3, 10)
    as_number, as_text = _prob(client, TEXT), _prob(client, f'"{TEXT}"')
    assert as_number == as_text, (as_number, as_text)
    [hi] = [o for o in as_number["outcomes"] if o["name"] == "hi"]
    assert Fraction(hi["probability"]) == Fraction(3, 10), as_number


@pytest.mark.parametrize(
    ("target", "said"),
    [
        ("55.00000000000000001", "input 'target' = 55.00000000000000001 is not a whole number"),
        ("1e400", "input 'target' = 1e400 has more than 100 digits"),
        ("5e-324", "input 'target' = 5e-324 has more than 100 digits"),
        # told by its length (it was "(a number of more than 100 digits) has more than 100 digits")
        ("9" * 4300, "input 'target' = (a whole number of 4,300 digits) has more than 100 digits"),
    ],
)
def test_a_number_the_text_refuses_is_refused_in_its_own_words(
    client: TestClient, target: str, said: str
) -> None:
    body = '{"ruleset": "chill", "check": "specific", "seed": 7, "inputs": {"target": ' + target + "}}"
    answer = client.post("/api/roll", content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 422, answer.text
    [d] = answer.json()["error"]["diagnostics"]
    assert d["code"] == "RC404" and d["message"] == said, d


def test_a_plain_decimal_still_reads_as_before(client: TestClient) -> None:
    body = '{"ruleset": "chill", "check": "specific", "seed": 7, "inputs": {"target": 55.0}}'
    answer = client.post("/api/roll", content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 200 and answer.json()["inputs"]["target"] == 55, answer.text


def test_a_numeral_keeps_its_text_through_pickling_and_reads_as_a_float() -> None:
    from engine.errors import Numeral

    found = read_json('{"a": [1.5e3, 2, 0.1]}')
    a, two, tenth = found["a"]
    assert isinstance(a, Numeral) and a.text == "1.5e3" and a == 1500.0
    assert type(two) is int and isinstance(tenth, Numeral) and tenth.text == "0.1"
    again = pickle.loads(pickle.dumps(a))  # as a job goes to a worker process
    assert isinstance(again, Numeral) and again.text == "1.5e3" and again == 1500.0


def test_the_command_line_says_a_long_decimal_has_too_many_digits(cli: Any) -> None:
    r = cli("roll", "chill", "specific", "--input", "target=1e400")
    assert r.code == 1 and "input 'target' = '1e400' has more than 100 digits" in r.err, r.err
