"""An outcome, a chit colour, a scale's member: one `Symbol` is shared by every answer and by every
ruleset loaded from the same text in the process, and its slots took assignment: after
`roll(...).outcome.rank = 99` a fresh load's exact `at_least` gave 3/5 where 33/100 is right, and
after `.name = ...` later calls failed (hunt 13r). It is read-only, as every record the API hands
out is."""

from __future__ import annotations

import pickle
import random
from dataclasses import FrozenInstanceError
from fractions import Fraction

import pytest

import engine
from engine.model.values import Symbol


def test_a_returned_symbol_refuses_assignment_and_later_answers_stand() -> None:
    chill = engine.load("chill")
    before = chill.distribution("specific", target=60).at_least("high_success")
    outcome = chill.roll("specific", random.Random(7), target=55).outcome
    assert isinstance(outcome, Symbol)
    for name, value in (("rank", 99), ("name", "x"), ("scale", "other"), ("anything", 1)):
        with pytest.raises(FrozenInstanceError):
            setattr(outcome, name, value)
    with pytest.raises(FrozenInstanceError):
        del outcome.rank
    after = engine.load("chill").distribution("specific", target=60).at_least("high_success")
    assert after == before == Fraction(33, 100)  # high success: a roll of at most 30, no doubles


def test_a_symbol_is_still_made_compared_and_pickled_as_before() -> None:
    low, high = Symbol("band", "low", 0), Symbol("band", "high", 1)
    assert (low.scale, low.name, low.rank) == ("band", "low", 0)
    assert low < high and low == "low" and hash(low) == hash("low")
    again = pickle.loads(pickle.dumps(high))
    assert (again.scale, again.name, again.rank) == ("band", "high", 1) and isinstance(again, Symbol)


def test_an_error_s_text_shows_a_caller_s_controls_and_bounds_a_long_name() -> None:
    """Hunt 13r: `str(error)` of `roll("\\x1b[2J")` held the raw escape, which a bot printing it
    to a terminal had acted on, and a 1 MB name came back whole."""
    from engine.errors import MAX_SAID, RulecraftError

    rs = engine.load("chill")
    with pytest.raises(RulecraftError) as error:
        rs.roll("\x1b[2J")
    said = str(error.value)
    assert "\x1b" not in said and "no check '\\x1b[2J'" in said, said
    with pytest.raises(RulecraftError) as error:
        rs.roll("a" * 1_000_000)
    first = str(error.value).splitlines()[0]
    assert len(first) <= MAX_SAID and first.endswith("characters in all)"), first[-60:]
