"""Every name an expression must read is held to the language's naming rules: an output, a table's
parameter, an action's input and role (hunts 13w, 13x). An output named `true`, `in`, `face` or
`max`, or a table parameter named `in`, loaded, and no expression could read it; a role or input
named `if` was told it had "the name of another value" or "of a state item"."""

from __future__ import annotations

import pytest

import engine
from engine.errors import RulecraftError

CHECK = """\
rulecraft: 1
name: n
tables:
  tb:
    params: [PARAM]
    value: 1
checks:
  c:
    roll:
      d: {die: 6}
    outcomes: [lo, hi]
    outcome: "'hi' if d > 3 else 'lo'"
    outputs:
      OUTPUT: d
"""

STATE = """\
rulecraft: 1
name: s
checks:
  k:
    roll: {d: {die: 2}}
    outcomes: [p, q]
    outcome: "'p' if d == 1 else 'q'"
state:
  each:
    n: {counter: 0}
actions:
  go:
    by: character
    others: [ROLE]
    inputs:
      INPUT: {type: int, default: 1}
    effects:
      - {add: {n: 1}}
"""


def _told(text: str) -> str:
    with pytest.raises(RulecraftError) as error:
        engine.load(text)
    [d] = error.value.diagnostics
    assert d.code == "RC307", d.render()
    return d.message


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("true", "'true' is a word of the expression language and cannot name a value"),
        ("in", "'in' is a word of the expression language and cannot name a value"),
        ("face", "'face' is a word of the expression language and cannot name a value"),
        ("max", "'max' is the name of a function"),
        ("tb", "'tb' is the name of a table"),
    ],
)
def test_an_output_is_named_as_a_value_is(name: str, said: str) -> None:
    assert _told(CHECK.replace("OUTPUT", name).replace("PARAM", "x")) == said


@pytest.mark.parametrize("word", ["in", "if", "not", "else"])
def test_a_table_parameter_is_no_word_of_the_language(word: str) -> None:
    said = _told(CHECK.replace("OUTPUT", "o").replace("PARAM", word))
    assert said == f"'{word}' is a word of the expression language and cannot name a parameter"


@pytest.mark.parametrize(
    ("role", "given", "said"),
    [
        ("if", "x", "'if' is a reserved word and cannot name a role"),
        ("foe", "not", "'not' is a reserved word and cannot name an input"),
        ("foe", "outcome", "'outcome' is a reserved word and cannot name an input"),
        ("foe", "n", "input 'n' has the name of a state item or parameter"),
    ],
)
def test_an_action_s_roles_and_inputs_are_told_why(role: str, given: str, said: str) -> None:
    assert _told(STATE.replace("ROLE", role).replace("INPUT", given)) == said


def test_plain_names_load() -> None:
    assert engine.load(CHECK.replace("OUTPUT", "o").replace("PARAM", "x")).name == "n"
    assert engine.load(STATE.replace("ROLE", "foe").replace("INPUT", "x")).name == "s"
