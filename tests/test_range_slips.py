"""A range written with a dash, found by a hunt: `cases: {"1-2": a}` read the key as the number -1
(`1 - 2`), and `"1+1"` or `"2*2"` were keys too, with no word from `validate`; `count(p, 5-6)`
counted the dice that read -1. A case key is a value or a range, never arithmetic (RC310 at the
key, the hint for `a-b` the range `a..b`); a literal `a-b` elsewhere is a lint warning (RC810).
The expected places are found in the text, never copied from the engine's output.
"""

from __future__ import annotations

import pytest

import engine
from engine.errors import RulecraftError
from engine.syntax.positions import SourceFile
from engine.tools.lint import lint


def table(cases: str) -> str:
    return f"""\
rulecraft: 1
name: k
tables:
  t:
    params: {{a: number}}
    returns: number
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


def place(text: str, token: str) -> tuple[int, int]:
    for number, line in enumerate(text.splitlines(), start=1):
        if token in line:
            return number, line.index(token) + 1
    raise AssertionError(token)


def errors(text: str) -> list[engine.Diagnostic]:
    with pytest.raises(RulecraftError) as info:
        engine.load_source(SourceFile("bad.yaml", text))
    assert "Traceback" not in str(info.value)
    return list(info.value.diagnostics)


@pytest.mark.parametrize(("key", "lo", "hi"), [("1-2", 1, 2), ("3-9", 3, 9), ("10-12", 10, 12)])
def test_a_dashed_case_key_is_rc310_at_the_key_with_the_range_as_hint(key: str, lo: int, hi: int) -> None:
    text = table(f'{{0: 0, "{key}": 1, else: 2}}')
    (d,) = errors(text)
    assert d.code == "RC310"
    assert d.span is not None and (d.span.line, d.span.col) == place(text, key)
    assert d.span.text == key
    assert f"the number {lo - hi}" in d.message
    assert d.hint == f"write {lo}..{hi} for a range"


@pytest.mark.parametrize("key", ["1+1", "2*2", "1..2+1", "4, 2-1", "6-5", "2**2", "7 % 2", "max(1, 2)"])
def test_other_arithmetic_in_a_case_key_is_rc310(key: str) -> None:
    text = table(f'{{0: 0, "{key}": 1, else: 2}}')
    (d,) = errors(text)
    assert d.code == "RC310"
    assert "calculation" in d.message
    assert d.span is not None and d.span.line == place(text, key)[0]
    assert d.hint is not None and "for a range" not in d.hint.replace("(1..3)", "")


@pytest.mark.parametrize(
    ("key", "x", "matched"),
    [
        ("-1", -1, True),
        ('"-3..-1"', -2, True),
        ('"1/3"', "1/3", True),
        ('"1.5"', "3/2", True),
        ('"1..2, 5"', 5, True),
        ("1..2", 3, False),
    ],
)
def test_values_and_ranges_still_match(key: str, x: object, matched: bool) -> None:
    rs = engine.load_source(SourceFile("ok.yaml", table(f"{{{key}: 1, else: 2}}")))
    assert rs.roll("c", forced={"d": 1}, x=x).values["o"] == (1 if matched else 2)


def check(count: str) -> str:
    return f"""\
rulecraft: 1
name: hits
checks:
  act:
    inputs:
      dice: {{type: int, min: 1, max: 6, default: 3}}
    roll:
      p: {{pool: dice, die: 6}}
    outcomes: [miss, hit]
    outcome: "'hit' if {count} >= 1 else 'miss'"
"""


def test_a_dashed_range_in_an_expression_is_a_lint_warning_with_the_range_as_hint() -> None:
    text = check("count(p, 5-6)")
    found = [d for d in lint(engine.load(text)) if d.code == "RC810"]
    assert len(found) == 1
    d = found[0]
    assert d.severity == "warning"
    assert d.span is not None and (d.span.line, d.span.col) == place(text, "5-6")
    assert "the number -1" in d.message
    assert d.hint is not None and d.hint.startswith("write 5..6 for a range")


@pytest.mark.parametrize("count", ["count(p, 5..6)", "count(p, 6-5)", "count(p, 0-1)", "count(p, 6) - 1"])
def test_no_warning_where_it_is_no_range(count: str) -> None:
    assert [d for d in lint(engine.load(check(count))) if d.code == "RC810"] == []
