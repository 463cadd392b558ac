"""RC103 names every kind a value may take, in the docs' words (hunt 13m): `outcomes: 3` said
"should be an array" (JSON's word, and only one of its forms: a scale's name is the other), and
`die: 1.5` "should be an integer" where text (`"1-6"`) and a list of faces are dice too."""

from __future__ import annotations

import pytest

import engine
from engine.errors import RulecraftError
from engine.syntax.positions import SourceFile

BASE = """\
rulecraft: 1
name: kinds
checks:
  c:
    roll:
      d: {die: 6}
    let:
      v: "1"
    outcomes: [lo, hi]
    outcome: "'hi' if d > 3 else 'lo'"
"""


def _one(old: str, new: str) -> engine.Diagnostic:
    assert old in BASE
    with pytest.raises(RulecraftError) as info:
        engine.load_source(SourceFile("k.yaml", BASE.replace(old, new)))
    assert len(info.value.diagnostics) == 1, str(info.value)
    return info.value.diagnostics[0]


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ("outcomes: [lo, hi]", "outcomes: 3", "checks.c.outcomes should be a list or text, not a number"),
        (
            "{die: 6}",
            "{die: 1.5}",
            "checks.c.roll.d.die should be a whole number, text or a list, not a number",
        ),
        ("{die: 6}", "{die: {a: 1}}", "should be a whole number, text or a list, not a mapping"),
        ('v: "1"', "v: 1.5", "checks.c.let.v should be text, a whole number or true/false, not 1.5"),
        ("d: {die: 6}", "d: 6", "checks.c.roll.d should be a mapping, not a number"),
    ],
)
def test_every_kind_a_value_may_take_is_named(old: str, new: str, said: str) -> None:
    d = _one(old, new)
    assert d.code == "RC103" and said in d.message, d.message
    assert "array" not in d.message and "integer" not in d.message and "string" not in d.message


def test_the_hint_of_a_decimal_where_an_expression_goes_is_kept() -> None:
    d = _one('v: "1"', "v: 1.5")
    assert d.hint == 'an exact number is written as an expression, in quotes: "1.5"'


def test_a_form_of_named_words_still_names_them() -> None:
    d = _one("    outcomes: [lo, hi]\n", "    outcomes: [lo, hi]\n    objective: 5\n")
    assert d.code == "RC104" and "best_first" in d.message, d.message
