"""An error is drawn (its source line, caret and hint) when it is read, not when it is made.

Errors raised and caught where nobody reads them are many in places: the linter sizes a pool
face by face, and a face its `each` cannot read (here `item`, which only a die of a pool over a
list has) raises one. Drawn as each was made, a 12-line ruleset took `validate` 30-53 s, all of it
in 300,000 source excerpts thrown away (hunt 13zh); counted, not timed, here.
"""

from __future__ import annotations

import pickle
from typing import Any

import pytest

import engine
from engine.errors import Diagnostic, EvalError, RulecraftError
from engine.syntax.positions import SourceFile, Span
from engine.tools.lint import lint

RACE = """rulecraft: 1
name: race
checks:
  race:
    inputs:
      speed: {type: int, min: 0, max: 5, default: 0}
      rivals: {type: list, min: 0, max: 5, min_length: 1, max_length: 5, default: [0, 1]}
    roll:
      mine: {die: 6}
      theirs: {pool: rivals, die: 1000, each: face + item}
    outcomes: [lose, win]
    outcome: "'win' if mine + speed > highest(theirs) else 'lose'"
"""


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many diagnostics have been drawn so far (one entry each)."""
    count: list[int] = []
    render = Diagnostic.render

    def counted(self: Diagnostic, *args: Any, **kwargs: Any) -> str:
        count.append(1)
        return render(self, *args, **kwargs)

    monkeypatch.setattr(Diagnostic, "render", counted)
    return count


def test_the_linter_draws_none_of_the_errors_it_catches(drawn: list[int]) -> None:
    rules = engine.load(RACE)
    drawn.clear()
    findings = lint(rules)
    assert [d.code for d in findings] == ["RC809"]  # every combination over the check's budget
    assert len(drawn) == 0  # was 300,000: one per face of the pool, per input combination


def test_an_error_reads_as_it_did(drawn: list[int]) -> None:
    span = Span(SourceFile("x.yaml", "checks:\n  act: 1 / 0\n"), 2, 8, 2, 13)
    e = EvalError([Diagnostic("RC502", "division by zero", span, "give a divisor")])
    assert drawn == []  # made, not drawn
    text = str(e)
    assert text.splitlines() == [
        "x.yaml:2:8: error RC502: division by zero",
        "    act: 1 / 0",
        "         ^^^^^",
        "  hint: give a divisor",
    ]
    assert repr(e) == f"EvalError({text!r})"
    again = pickle.loads(pickle.dumps(e))
    assert type(again) is EvalError and str(again) == text and again.diagnostics == e.diagnostics
    with pytest.raises(RulecraftError, match="division by zero"):
        raise e
