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
    ("face", "hint"),
    [
        ("6.0", "a face is a whole number: write 6, not 6.0"),
        ("6.5", "force a one of its faces, 1..6"),
        ("7.0", "force a one of its faces, 1..6"),
        ('"6"', "a face is a number: write it unquoted, 6"),
    ],
)
def test_a_forced_face_that_is_no_whole_number_says_what_to_write(face: str, hint: str) -> None:
    with pytest.raises(RulecraftError) as info:
        engine.load_source(SourceFile("f.yaml", TEXT.replace("FACE", face)))
    (d,) = info.value.diagnostics
    assert d.code == "RC702" and d.hint == hint, (d.message, d.hint)
    assert engine.load_source(SourceFile("f.yaml", TEXT.replace("FACE", "6"))).check("c")
