"""One bound on the size of every answer the solve pool makes (`jobs.MAX_ANSWER_BYTES`), measured
in the worker: hunt 13zp's 14.7 MB answer to a 200-byte `/api/prob` request (six at once took the
server to 832 MB, encoding them on its event loop) and 38 MB answer to a 17 KB `/api/test`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine.errors import InputError
from engine.serve.jobs import MAX_ANSWER_BYTES, fitted

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from engine.serve.app import Settings, create_app  # noqa: E402

WIDE = """\
rulecraft: 1
name: wide
checks:
  c:
    roll: {a: {die: 447}, b: {die: 447}}
    let:
      wide: "a * 100000 + b"
      narrow: "a % 7"
    outcomes: [lo, hi]
    outcome: "'hi' if a > b else 'lo'"
"""


def test_an_answer_is_refused_past_the_bound_and_kept_below_it() -> None:
    small = {"text": "x" * 100}
    assert fitted("prob", small) is small
    at_most = {"t": "x" * (MAX_ANSWER_BYTES - len('{"t":""}'))}  # exactly the bound, as JSON
    assert fitted("prob", at_most) is at_most
    with pytest.raises(InputError) as caught:
        fitted("prob", {"t": "x" * MAX_ANSWER_BYTES})
    [d] = caught.value.diagnostics
    assert d.code == "RC503" and "over the server's 8,000,000 for one answer" in d.message
    assert d.message.startswith("the answer is 8,000,008 bytes of JSON"), d.message  # exactly
    wide = {"t": "語" * 2_600_000}  # 7.8 MB as UTF-8, as it is sent (15.6 MB escaped: hunt 13zq)
    assert fitted("test", wide) is wide
    assert d.hint is not None and "fewer results" in d.hint


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("answers") / "c.db"
    with TestClient(create_app(Settings(db=str(db), workers=1, deadline=60.0))) as c:
        yield c


def test_a_value_of_200_000_results_is_refused_in_the_worker(client: TestClient) -> None:
    r = client.post("/api/prob", json={"source": WIDE, "check": "c", "value": "wide"})
    assert r.status_code == 422, r.text[:300]
    [d] = r.json()["error"]["diagnostics"]
    assert d["code"] == "RC503" and "bytes of JSON, over the server's 8,000,000" in d["message"], d
    assert len(r.content) < 10_000
    narrow = client.post("/api/prob", json={"source": WIDE, "check": "c", "value": "narrow"})
    assert narrow.status_code == 200, narrow.text[:300]  # the same check, a short value: answered
    assert len(narrow.json()["value"]) == 7


def _failing(examples: int, values: int = 40) -> str:
    """`examples` failing examples, each expecting `values` values wrongly through one YAML alias:
    each failure quotes the alias's long line (300 of them: a 15 KB text, a 12.9 MB answer)."""
    lets = "".join(f"      v{i}: d + {i}\n" for i in range(values))
    wrong = ", ".join(f"v{i}: 99" for i in range(values))
    return (
        "rulecraft: 1\nname: failing\nchecks:\n  c:\n    roll: {d: {die: 6}}\n    let:\n"
        + lets
        + "    outcomes: [lo, hi]\n    outcome: \"'hi' if d > 3 else 'lo'\"\n    examples:\n"
        + f"      - {{name: e0, dice: {{d: 1}}, expect: &e {{outcome: hi, values: {{{wrong}}}}}}}\n"
        + "".join(f"      - {{name: e{j}, dice: {{d: 1}}, expect: *e}}\n" for j in range(1, examples))
    )


def test_many_failing_examples_made_by_an_alias_are_refused(client: TestClient) -> None:
    r = client.post("/api/test", json={"source": _failing(300)})
    assert r.status_code == 422, r.text[:300]
    [d] = r.json()["error"]["diagnostics"]
    assert d["code"] == "RC503" and "over the server's 8,000,000" in d["message"], d
    assert "fewer examples" in d["api_hint"], d
    r = client.post("/api/test", json={"source": _failing(3)})  # a few: their failures are answered
    assert r.status_code == 200 and r.json()["failed"] == 3, r.text[:300]
