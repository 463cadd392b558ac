"""How the compiler runs one statement (`compiler.problems.statement`, `Apart.part`): what it
records and goes on from, and what ends the load. Both are plain classes since 2026-12-06 (they
were generator context managers, a load enters thousands); these pin what they did then."""

from __future__ import annotations

import pytest

from engine.compiler.problems import Apart, Reported, problem, statement
from engine.errors import DeadlineError, Diagnostic, LimitError, RulecraftError


def _diag(code: str) -> Diagnostic:
    return Diagnostic(code, f"message {code}", None)


def test_a_problem_is_recorded_and_the_statement_ends_there() -> None:
    diags: list[Diagnostic] = []
    reached = []
    with statement(diags):
        raise problem("RC702", "bad", None)
        reached.append(1)  # pragma: no cover
    with statement(diags):
        reached.append(2)
    assert [d.code for d in diags] == ["RC702"] and reached == [2]


def test_an_error_of_a_stage_below_gives_all_its_diagnostics() -> None:
    diags: list[Diagnostic] = []
    with statement(diags):
        raise RulecraftError([_diag("RC201"), _diag("RC202")])
    with statement(diags):
        raise LimitError([_diag("RC503")])  # over a bound: the statement's own
    assert [d.code for d in diags] == ["RC201", "RC202", "RC503"]


def test_a_statement_resting_on_a_told_one_says_nothing() -> None:
    diags: list[Diagnostic] = []
    with statement(diags):
        raise Reported
    assert diags == []


@pytest.mark.parametrize("error", [DeadlineError([_diag("RC503")]), KeyError("x"), KeyboardInterrupt()])
def test_a_passed_deadline_and_a_bug_end_the_load(error: BaseException) -> None:
    """A deadline is no problem of the statement's, and a bug is none of the user's: neither
    is turned into a diagnostic."""
    diags: list[Diagnostic] = []
    with pytest.raises(type(error)), statement(diags):
        raise error
    assert diags == []


def test_a_part_that_fails_marks_the_whole_and_the_rest_still_run() -> None:
    diags: list[Diagnostic] = []
    parts = Apart(diags)
    with parts.part():
        pass
    assert not parts.failed
    parts.settle()  # nothing failed: no Reported
    with parts.part():
        raise problem("RC702", "first", None)
    with parts.part():
        raise problem("RC702", "second", None)
    assert parts.failed and [d.message for d in diags] == ["first", "second"]
    with pytest.raises(Reported):
        parts.settle()


def test_a_part_ended_by_a_deadline_propagates_it_unrecorded() -> None:
    diags: list[Diagnostic] = []
    parts = Apart(diags)
    with pytest.raises(DeadlineError), parts.part():
        raise DeadlineError([_diag("RC503")])
    assert diags == [] and not parts.failed
