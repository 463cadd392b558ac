"""Two names that meet, found by a hunt: a `let` named like an outcome made `then: glitch` an
RC304 ("expected 'test' value here, but this is true/false") that never said the name was also a
value, nor that quoting it names the outcome; and a check named like a declared scale was "scale
'attack' is declared twice" at `outcomes:`, with no word that inline outcomes make a scale named
after the check. The quoted form the hint gives is written back and must load."""

from __future__ import annotations

import pytest

import engine
from engine.errors import RulecraftError
from engine.syntax.positions import SourceFile

GLITCH = """\
rulecraft: 1
name: sh
checks:
  test:
    inputs:
      dice: {type: int, min: 1, max: 20, default: 6}
    roll:
      p: {pool: dice, die: 6}
    let:
      glitch: count(p, 1) * 2 >= dice
    outcomes: [glitch, failure, success]
    outcome:
      - when: glitch
        then: THEN
      - when: count(p, 5..6) > 0
        then: success
      - else: failure
"""


def error(text: str) -> engine.Diagnostic:
    with pytest.raises(RulecraftError) as info:
        engine.load_source(SourceFile("bad.yaml", text))
    [d] = info.value.diagnostics
    return d


def test_a_let_named_like_an_outcome_is_told_to_quote_the_outcome() -> None:
    d = error(GLITCH.replace("THEN", "glitch"))
    assert d.code == "RC304"
    assert d.hint is not None and "'glitch' is also the name of a value here" in d.hint
    assert "quote it, 'glitch', to name the outcome" in d.hint
    rs = engine.load(GLITCH.replace("THEN", "\"'glitch'\""))  # the hint's form loads
    assert rs.roll("test", forced={"p": [1, 1, 1, 2, 3, 4]}).outcome == "glitch"


def test_a_bare_outcome_with_no_value_of_its_name_is_the_outcome() -> None:
    text = GLITCH.replace("THEN", "glitch").replace("glitch: count", "glitched: count")
    rs = engine.load(text.replace("when: glitch\n", "when: glitched\n"))
    assert rs.roll("test", forced={"p": [1, 1, 1, 2, 3, 4]}).outcome == "glitch"


CLASH = """\
rulecraft: 1
name: cl
scales:
  attack: [low, high]
checks:
  attack:
    roll:
      d: {die: 6}
    outcomes: [miss, hit]
    outcome: "'hit' if d > 3 else 'miss'"
"""


def test_a_check_named_like_a_scale_says_its_inline_outcomes_make_one() -> None:
    d = error(CLASH)
    assert d.code == "RC307"
    assert d.message == (
        "scale 'attack' is declared twice: by 'scales:' and by the inline outcomes of check 'attack'"
    )
    assert d.hint is not None and "inline outcomes of check 'attack' make a scale" in d.hint
    assert "outcomes: attack" in d.hint
    assert d.span is not None and (d.span.line, d.span.col) == (9, 5)


def test_a_bag_named_like_a_scale_says_its_chits_make_one() -> None:
    d = error(
        CLASH.replace("checks:", "bags:\n  attack: {chits: {red: 1, blue: 1}}\nchecks:").replace(
            "  attack:\n    roll", "  act:\n    roll"
        )
    )
    assert d.code == "RC307"
    assert d.message.endswith("by 'scales:' and by the chits of bag 'attack'"), d.message
    assert d.hint is not None and "outcomes: attack" not in d.hint
