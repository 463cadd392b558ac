"""A mapping or list written as a key (a flow mapping inside a flow mapping's braces with no key
before it, `{a: {{x: 1}}}`; `{[1, 2]: 3}`; a block `? ` key) is told as what it is, at the key:
one RC002 at load, its line, column and a caret under the whole key. It was told with Python's
text for it: `unknown key 'ordereddict([('x', 1)])'` (RC102), `"ordereddict(...)" ... is not a
valid name` (RC104) and a path `checks.c.inputs.(1, 2)` (RC103).

Each case is one edit of a small valid ruleset; the expected place is found in the edited text."""

from __future__ import annotations

import pytest

import engine
from engine.errors import RulecraftError
from engine.syntax.positions import SourceFile

BASE = """\
rulecraft: 1
name: keys
tables:
  t: {1: a, 2: b}
checks:
  c:
    inputs: {a: {min: 1, max: 3}}
    roll: {p: {pool: 1, die: 6}}
    outcomes: [lo, hi]
    outcome: "'hi' if sum(p) > a else 'lo'"
"""

CASES = [
    # (what is replaced, by what, the key's text, what it is)
    ("{a: {min: 1, max: 3}}", "{a: {{x: 1}}}", "{x: 1}", "a mapping"),
    ("{a: {min: 1, max: 3}}", "{a: {min: 1, {max: 3}}}", "{max: 3}", "a mapping"),
    ("{a: {min: 1, max: 3}}", "{{a: 1}: 2}", "{a: 1}", "a mapping"),
    ("{a: {min: 1, max: 3}}", "{[1, 2]: 3}", "[1, 2]", "a list"),
    ("{1: a, 2: b}", "{1: a, {2: b}}", "{2: b}", "a mapping"),
    ("  t: {1: a, 2: b}\n", "  t:\n    ? [x, y]\n    : a\n", "[x, y]", "a list"),
]


@pytest.mark.parametrize(("old", "new", "key", "what"), CASES)
def test_a_mapping_or_list_as_a_key_is_told_as_one(old: str, new: str, key: str, what: str) -> None:
    assert BASE.count(old) == 1, old
    text = BASE.replace(old, new)
    with pytest.raises(RulecraftError) as info:
        engine.load_source(SourceFile("bad.yaml", text))
    rendered = str(info.value)
    assert "Traceback" not in rendered and "ordereddict" not in rendered and "(1, 2)" not in rendered
    (told,) = info.value.diagnostics
    assert told.code == "RC002", (told.code, told.message)
    assert told.message.startswith(f"{what} is written as a key here"), told.message
    line = next(n for n, row in enumerate(text.splitlines(), 1) if key in row)
    column = text.splitlines()[line - 1].index(key) + 1
    assert told.span is not None
    assert (told.span.line, told.span.col) == (line, column), told.span
    assert told.span.end_col - told.span.col == len(key), told.span
    assert "^" * len(key) in rendered
