"""An example forcing `6.0` on a d6 (hunt 13m): refused, as the sampler refuses it (a face is a
whole number, `forced_face`), but its hint said "force a one of its faces, 1..6", as if 6 were
none of them. It now says what to write."""

from __future__ import annotations

import pytest

import engine
from engine.errors import RulecraftError
from engine.syntax.positions import SourceFile

TEXT = """\
rulecraft: 1
name: f
checks:
  c:
    roll:
      a: {die: 6}
    outcomes: [lo, hi]
    outcome: "'hi' if a > 3 else 'lo'"
    examples:
      - {dice: {a: FACE}, expect: {outcome: hi}}
"""


@pytest.mark.parametrize(
    ("face", "code", "hint"),
    [
        ("6.0", "RC702", "a face is a whole number: write 6, not 6.0"),
        ("7.0", "RC702", "force a one of its faces, 1..6"),
        ('"6"', "RC702", "a face is a number: write it unquoted, 6"),
        ("6.5", "RC103", "a forced die shows one of its faces: a whole number, or a face's name: a: 6"),
    ],
)
def test_a_forced_face_that_is_no_whole_number_says_what_to_write(face: str, code: str, hint: str) -> None:
    with pytest.raises(RulecraftError) as info:
        engine.load_source(SourceFile("f.yaml", TEXT.replace("FACE", face)))
    (d,) = info.value.diagnostics
    assert d.code == code and d.hint == hint, (d.message, d.hint)
    assert engine.load_source(SourceFile("f.yaml", TEXT.replace("FACE", "6"))).check("c")


def test_expecting_a_die_as_a_value_says_it_is_forced_not_expected() -> None:
    """`expect: {values: {a: 3}}` where `a` is a die said only "example expects a value this check
    does not have: 'a'" (hunt 13m)."""
    text = TEXT.replace("{dice: {a: FACE}, expect: {outcome: hi}}", "{expect: {values: {a: 3}}}")
    with pytest.raises(RulecraftError) as info:
        engine.load_source(SourceFile("f.yaml", text))
    (d,) = info.value.diagnostics
    assert d.message == "example expects a value this check does not have: 'a'"
    assert d.hint == "'a' is a die this check rolls: force it under 'dice:', and expect a value that reads it"
