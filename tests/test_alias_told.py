"""A value written once (`&name`) and used through an alias (`*name`) is told where it is written,
and, where only its use makes it wrong, with the line of the alias too.

Hunt 13zh: check `a` declares an input `n` and anchors `let: &L {v: n + d}`; check `b`, which has
no `n`, reads `let: *L`. The error was "10:10 unknown name 'n'", inside check `a`, where `n` is
known, and said nothing of check `b` or of line 16.
"""

from __future__ import annotations

import pytest

import engine
from engine.errors import RulecraftError

LET = """rulecraft: 1
name: alias_let
checks:
  a:
    inputs:
      n: {type: int, min: 0, max: 3, default: 0}
    roll:
      d: {die: 6}
    let: &L
      v: n + d
    outcomes: [lo, hi]
    outcome: "'hi' if v > 3 else 'lo'"
  b:
    roll:
      d: {die: 6}
    let: *L
    outcomes: [lo, hi]
    outcome: "'hi' if v > 3 else 'lo'"
"""

INPUTS_AS_ROLL = """rulecraft: 1
name: alias_path
checks:
  c:
    inputs: &A
      n: {type: int, min: 0, max: 3, default: 0}
    roll:
      extra: *A
      d: {die: 6}
    outcomes: [lo, hi]
    outcome: "'hi' if d + n > 3 else 'lo'"
"""

EVERYWHERE = """rulecraft: 1
name: al
checks:
  a:
    roll: &R
      d: {die: 6, bogus: 1}
    outcomes: [lo, hi]
    outcome: "'hi' if d > 3 else 'lo'"
  b:
    roll: *R
    outcomes: [lo, hi]
    outcome: "'hi' if d > 3 else 'lo'"
"""


def _told(text: str) -> str:
    with pytest.raises(RulecraftError) as caught:
        engine.load(text)
    return str(caught.value)


def test_a_name_only_the_aliased_use_lacks_is_told_with_the_alias() -> None:
    assert _told(LET).splitlines() == [
        "<string>:10:10: error RC301: unknown name 'n'",
        "        v: n + d",
        "           ^",
        "  (written here, and reached through the alias on line 16)",
    ]


def test_a_shape_only_the_aliased_use_breaks_is_told_with_the_alias() -> None:
    told = _told(INPUTS_AS_ROLL)
    assert "<string>:6:7: error RC102: unknown key 'n' in checks.c.inputs" in told
    assert told.count("(written here, and reached through the alias on line 8)") == 2  # RC105 too


def test_a_value_wrong_where_it_is_written_is_told_once_there_with_no_alias() -> None:
    told = _told(EVERYWHERE)
    assert told.splitlines()[0] == "<string>:6:19: error RC102: unknown key 'bogus' in checks.a.roll.d"
    assert told.count("RC102") == 1 and "alias" not in told
