"""A value table's keys and results, and numbers written without quotes, found by a hunt.

An empty case key made the compiler write `if :` (a Python traceback on the command line, an
HTTP 500); a `null` result was "unknown name 'None'" at the table's call; a decimal written
without quotes lost its digits past the seventeenth wherever one was taken (a table's key or
result, an example's input or expected number), so an example could pass that should fail. The
expected places are found in the text, never copied from the engine's output.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import engine
from engine.errors import RulecraftError
from engine.syntax.positions import SourceFile


def table(cases: str, params: str = "{a: number}", returns: str = "number") -> str:
    return f"""\
rulecraft: 1
name: k
tables:
  t:
    params: {params}
    returns: {returns}
    cases: {cases}
checks:
  c:
    inputs:
      x: {{type: number, default: 0}}
    roll:
      d: {{die: 6}}
    outcomes: [lo, hi]
    outcome: "'hi' if t(d) > 3 else 'lo'"
    outputs:
      o: t(x)
"""


def one(text: str) -> engine.Diagnostic:
    with pytest.raises(RulecraftError) as info:
        engine.load_source(SourceFile("bad.yaml", text))
    assert len(info.value.diagnostics) == 1, str(info.value)
    assert "Traceback" not in str(info.value)
    return info.value.diagnostics[0]


def place(text: str, token: str) -> tuple[int, int]:
    for number, line in enumerate(text.splitlines(), start=1):
        if token in line:
            return number, line.index(token) + 1
    raise AssertionError(token)


@pytest.mark.parametrize("key", ['"[]"', "null", "~", '""', '"  "', '"[ ]"', "'[]'"])
def test_an_empty_case_key_is_one_rc310_at_the_key(key: str) -> None:
    text = table("{" + key + ": 5, else: 1}")
    d = one(text)
    assert d.span is not None
    assert (d.code, d.span.line, d.span.col) == ("RC310", *place(text, key + ": 5"))
    assert "names no value" in d.message
    assert d.hint is not None and "'1..3'" in d.hint


def test_an_empty_case_key_is_refused_over_http_as_an_authors_error() -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from engine.serve.app import Settings, create_app

    answer = TestClient(create_app(Settings())).post(
        "/api/validate", json={"source": table('{"[]": 5, else: 1}')}
    )
    assert answer.status_code == 200, answer.text
    (found,) = answer.json()["diagnostics"]
    assert found["code"] == "RC310"


def test_a_null_result_is_rc103_at_the_null_not_an_unknown_name() -> None:
    text = table("{1: null, else: 1}")
    d = one(text)
    assert d.span is not None
    assert (d.code, d.span.line, d.span.col) == ("RC103", *place(text, "null"))
    assert "None" not in d.message and "not empty" in d.message


def test_a_decimal_result_without_quotes_is_told_to_be_quoted_with_every_digit() -> None:
    text = table("{1: 123456789.123456789, else: 1}")
    d = one(text)
    assert d.span is not None
    assert (d.code, d.span.line, d.span.col) == ("RC103", *place(text, "123456789.123456789"))
    assert d.hint == 'an exact number is written as an expression, in quotes: "123456789.123456789"'
    assert engine.load(table('{1: "123456789.123456789", else: 1}'))


def test_a_decimal_key_without_quotes_matches_exactly_what_it_writes() -> None:
    rs = engine.load(table("{0.1000000000000000000001: 5, 0.5: 7, else: 1}"))
    dist = rs.distribution("c", inputs={"x": "0.1000000000000000000001"})
    assert dist.mean("o") == 5  # the key's every digit, not the float 0.1
    assert rs.distribution("c", inputs={"x": "1/10"}).mean("o") == 1
    assert rs.distribution("c", inputs={"x": "1/2"}).mean("o") == 7


def test_an_examples_decimals_without_quotes_keep_every_digit(cli: Any, tmp_path: Path) -> None:
    """`expect: {probability: {hi: 0.50000000000000000001}}` passed where P(hi) is 1/2, and an
    input `x: 0.1000000000000000000001` was run as 1/10: the float's seventeen digits."""
    text = table("{else: 1}").replace("t(d) > 3", "d > 3") + "      x_out: x\n    examples:\n"
    f = tmp_path / "k.yaml"
    f.write_text(text + "      - {expect: {probability: {hi: 0.50000000000000000001}}}\n", encoding="utf-8")
    r = cli("test", str(f))
    assert r.code == 1 and "RC701" in r.out + r.err
    assert "50000000000000000001/100000000000000000000" in r.out + r.err
    given = "      - {inputs: {x: 0.1000000000000000000001}, dice: {d: 1}, expect: {values: {x_out: WANT}}}\n"
    f.write_text(text + given.replace("WANT", "0.1"), encoding="utf-8")
    r = cli("test", str(f))
    assert r.code == 1 and "RC701" in r.out + r.err, r.out + r.err
    f.write_text(text + given.replace("WANT", "0.1000000000000000000001"), encoding="utf-8")
    r = cli("test", str(f))
    assert r.code == 0, r.out + r.err


def test_a_quoted_case_keys_syntax_error_is_placed_on_its_character() -> None:
    text = table('{"1 $": 5, else: 1}')
    d = one(text)
    assert d.span is not None
    assert (d.code, d.span.line, d.span.col) == ("RC201", *place(text, "$"))


@pytest.mark.parametrize("key", ['"1 +"', "'lo, '"])
def test_a_case_key_that_ends_too_early_says_so_not_a_bracket_never_written(key: str) -> None:
    text = table("{" + key + ": 5, else: 1}")
    d = one(text)
    assert d.code == "RC201" and "ends too early" in d.message and "']'" not in d.message
    assert d.span is not None
    line, col = place(text, key)
    assert (d.span.line, d.span.col) == (line, col + len(key) - 1)  # where its text ends


ITEM = """\
rulecraft: 1
name: it
checks:
  c:
    inputs:
      item: {type: int, min: 0, max: 5, default: 3}
      xs: {type: list, min: 0, max: 5, max_length: 3, default: [0, 1]}
    roll:
      b: {pool: xs, die: 6, each: face + item}
    outcomes: [lo, hi]
    outcome: "'hi' if sum(b) > 6 else 'lo'"
"""


def test_an_input_named_item_beside_a_pool_over_a_list_is_rc307_where_each_reads_item() -> None:
    d = one(ITEM)
    assert d.span is not None
    assert (d.code, d.span.line, d.span.col) == ("RC307", *place(ITEM, "face + item"))
    engine.load(ITEM.replace("item: {type", "bonus: {type").replace("face + item", "face + bonus"))
    # an `each` that does not read `item` leaves the check's own `item` as it is
    assert engine.load(ITEM.replace("each: face + item", "each: face").replace("sum(b)", "sum(b) + item"))


@pytest.mark.parametrize("version", ["1.0", "1.3", "1.9", "2.0", "abc"])
def test_a_yaml_version_rulecraft_does_not_read_is_rc002_at_it(version: str) -> None:
    """`%YAML 1.3` (any 1.x but 1.1 and 1.2) made ruamel's reader fail an assertion: a traceback
    on the command line, an HTTP 500, a server that would not start over such a file."""
    text = f"# a ruleset\n%YAML {version}\n---\n" + table("{else: 1}")
    d = one(text)
    assert d.span is not None
    assert (d.code, d.span.line, d.span.col) == ("RC002", 2, 7)
    assert f"YAML {version}" in d.message
    assert engine.load(text.replace(f"%YAML {version}", "%YAML 1.2"))


def test_a_date_where_the_format_version_goes_is_shown_as_written() -> None:
    """`rulecraft: 2001-12-14` said "unsupported format version datetime.date(2001, 12, 14)"; a
    plain date is text since hunt 13m (YAML 1.2's core schema has no dates), told as text is."""
    d = one("rulecraft: 2001-12-14\nname: k\n")
    assert d.code == "RC003" and d.message == "unsupported format version '2001-12-14'"


@pytest.mark.parametrize(
    ("key", "value"), [("1e3", "1000"), ("1.0E3", "1000"), (".5", "1/2"), ("-.5", "-1/2"), ("5.", "5")]
)
def test_a_decimal_key_in_any_form_yaml_reads_matches_its_number(key: str, value: str) -> None:
    """Review AR: the file's own text of a key, `1e3` or `.5`, is no expression the language reads."""
    rs = engine.load(table("{" + key + ": 5, else: 1}"))
    assert rs.distribution("c", inputs={"x": value}).mean("o") == 5
    assert rs.distribution("c", inputs={"x": "7"}).mean("o") == 1


@pytest.mark.parametrize("key", [".", "-.", ".e5"])
def test_a_key_that_is_no_number_is_a_syntax_error_not_a_traceback(key: str) -> None:
    assert one(table("{" + key + ": 5, else: 1}")).code == "RC201"


@pytest.mark.parametrize("start", ["\ufeff", "rulecraft: 1\n...\n"])
def test_a_yaml_version_after_a_byte_order_mark_or_a_documents_end_is_rc002(start: str) -> None:
    d = one(start + "%YAML 1.3\n---\n" + table("{else: 1}"))
    assert d.code == "RC002" and "YAML 1.3" in d.message


def test_a_decimal_list_element_bound_and_default_keep_every_digit(cli: Any, tmp_path: Path) -> None:
    text = table("{else: 1}").replace(
        "x: {type: number, default: 0}",
        "x: {type: number, min: 0.1000000000000000000001, default: 0.1000000000000000000001}\n"
        "      xs: {type: list, of: number, max_length: 3, default: [0]}",
    )
    rs = engine.load(text + "      big: 1 if x > 1/10 else 0\n      many: 1 if sum(xs) > 1/10 else 0\n")
    assert rs.distribution("c").mean("big") == 1  # the default, every digit
    with pytest.raises(RulecraftError):
        rs.distribution("c", inputs={"x": "1/10"})  # below the minimum written
    f = tmp_path / "k.yaml"
    f.write_text(
        text
        + "      many: 1 if sum(xs) > 1/10 else 0\n    examples:\n"
        + "      - {inputs: {xs: [0.1000000000000000000001]}, dice: {d: 1}, expect: {values: {many: 1}}}\n",
        encoding="utf-8",
    )
    r = cli("test", str(f))
    assert r.code == 0, r.out + r.err


def test_a_state_examples_decimals_keep_every_digit(cli: Any, tmp_path: Path) -> None:
    """Review AR: a campaign parameter and an action's input written without quotes ran as the
    float's 17 digits in a state example, so `p > 1/10` was refused (RC905)."""
    f = tmp_path / "st.yaml"
    f.write_text(
        """\
rulecraft: 1
name: st
state:
  periods: [case]
  campaign:
    p: {type: number, default: 0}
  shared:
    n:
      counter: 0
      min: 0
  examples:
    - name: action input
      steps: [{act: go, inputs: {x: 0.1000000000000000000001}}]
      expect: {shared: {n: 1}}
    - name: campaign param
      params: {p: 0.1000000000000000000001}
      steps: [{act: gp}]
      expect: {shared: {n: 1}}
checks:
  c:
    roll: {d: {die: 6}}
    outcomes: [lo, hi]
    outcome: "'hi' if d > 3 else 'lo'"
actions:
  go:
    inputs:
      x: {type: number}
    requires:
      - when: x > 1/10
        else: too small
    effects:
      - {set: {n: 1}}
  gp:
    requires:
      - when: p > 1/10
        else: too small
    effects:
      - {set: {n: 1}}
""",
        encoding="utf-8",
    )
    r = cli("test", str(f))
    assert r.code == 0, r.out + r.err


def test_a_list_where_an_expression_goes_is_told_to_be_quoted() -> None:
    d = one(table("{1: [1, 2], else: 1}", params="[a]", returns="any"))
    assert d.code == "RC103" and d.hint == 'a list is written as an expression, in quotes: "[1, 2]"'


def test_the_linter_names_a_decimal_key_as_written() -> None:
    """RC802 said "case 0.1 of table 't' never fires" of a key written 0.1000000000000000000001."""
    from engine.tools.lint import lint

    # whole-number inputs, which never reach the key (a number input's grid tries the numbers a
    # key names, and reaches it: no finding then)
    text = table("{0.1000000000000000000001: 5, else: 1}")
    text = text.replace("x: {type: number, default: 0}", "x: {type: int, min: 0, max: 3, default: 0}")
    said = [w.message for w in lint(engine.load(text))]
    assert any(m.startswith("case 0.1000000000000000000001 of table 't' never fires") for m in said), said


@pytest.mark.parametrize("key", ["0.10", "0.1000000000000000000001", "2.50"])
def test_a_schema_message_names_a_decimal_key_as_written(key: str) -> None:
    """A schema message named a decimal key by the float's digits: `unknown key '0.1'` of a key
    written `0.10`, and `tables.t.cases.0.1` of a case written `0.1000000000000000000001`."""
    text = table("{" + key + ": [1], else: 1}")
    d = one(text)
    assert d.code == "RC103" and d.message.startswith(f"tables.t.cases.{key} should be"), d.message
    text = table("{else: 1}").replace("    outcomes:", f"    {key}: x\n    outcomes:")
    d = one(text)
    assert d.code == "RC102" and d.message == f"unknown key '{key}' in checks.c", d.message
    assert (d.span.line, d.span.col) == place(text, f"{key}: x")
