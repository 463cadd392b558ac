"""A flow mapping's key written with no space after its colon is told as that, once.

Found by hunt 13h: YAML reads `{act:take_wound, ...}` as one key, `act:take_wound`, with no value.
Block style was told "'outcomes:' has no space after its colon" (RC002), but in a flow mapping the
schema said two things beside the point: RC101 "missing the required key 'act'" and RC102
"unknown key 'act:take_wound'" with no hint, and for an input `{type:choice, choices: ...}` the hint
listed an int input's keys.
"""

from __future__ import annotations

import pytest

import engine
from engine.errors import RulecraftError

BASE = """\
rulecraft: 1
name: glued
checks:
  test:
    inputs:
      stance: INPUT
    roll:
      first: DIE
    outcomes: [low, high]
    outcome: "'high' if first >= 4 else 'low'"
"""


@pytest.mark.parametrize(
    ("part", "written", "key", "fixed"),
    [
        ("DIE", "{die:6}", "die:6", "die: 6"),  # a required key
        ("INPUT", "{type:choice, choices: [a, b], default: a}", "type:choice", "type: choice"),
        ("INPUT", "{type: choice, choices:ab, default: ab}", "choices:ab", "choices: ab"),
    ],
)
def test_a_glued_key_is_one_message_with_the_fix(
    part: str, written: str, key: str, fixed: str | None
) -> None:
    text = BASE.replace("INPUT", "{type: choice, choices: [a, b], default: a}" if part == "DIE" else written)
    text = text.replace("DIE", written if part == "DIE" else "{die: 6}")
    with pytest.raises(RulecraftError) as raised:
        engine.load(text)
    [d] = raised.value.diagnostics
    assert (
        d.code == "RC102" and f"unknown key '{key}'" in d.message and "no space after its colon" in d.message
    )
    assert d.hint == f"put a space after the colon: {fixed}"
    line = 8 if part == "DIE" else 6
    assert d.span is not None and (d.span.line, d.span.col) == (
        line,
        text.splitlines()[line - 1].index(key) + 1,
    )


def test_a_second_document_is_told_as_one_with_its_fix() -> None:
    """Hunt 13h: a `---` after the ruleset was RC002 "YAML syntax error: but found another document",
    half of the reader's message, with no hint."""
    text = BASE.replace("INPUT", "{type: int}").replace("DIE", "{die: 6}") + "---\nrulecraft: 1\n"
    with pytest.raises(RulecraftError) as raised:
        engine.load(text)
    [d] = raised.value.diagnostics
    assert d.code == "RC002" and d.message.startswith("a second YAML document starts at line 11 ('---')")
    assert d.hint is not None and d.hint.startswith("remove the '---' line")
    assert d.span is not None and (d.span.line, d.span.col, d.span.end_col) == (11, 1, 4)
