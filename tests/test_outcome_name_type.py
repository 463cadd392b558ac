"""An outcome asked for by something that is no text is a `TypeError` naming the argument, as a
value's name is (`Distribution.value(None)`); it was RC402 "no outcome None" (hunt 13k's "seen
and left"). A misspelt outcome is still RC402 with the nearest name."""

from __future__ import annotations

import random

import pytest

import engine
from engine.errors import InputError

RS = engine.load("chill")
DIST = RS.distribution("specific", target=55)
BATCH = RS.sample("specific", 50, random.Random(1), target=55)


@pytest.mark.parametrize("wrong", [None, 3, 1.5, ["failure"]])
@pytest.mark.parametrize(
    "ask",
    [DIST.probability, DIST.at_least, DIST.at_most, DIST.value, BATCH.share, BATCH.standard_error],
    ids=["probability", "at_least", "at_most", "value", "share", "standard_error"],
)
def test_a_name_that_is_no_text_is_a_type_error(ask: object, wrong: object) -> None:
    with pytest.raises(TypeError) as caught:
        ask(wrong)  # type: ignore[operator]
    assert "argument 'outcome'" in str(caught.value) or "argument 'name'" in str(caught.value)


def test_a_misspelt_outcome_is_still_rc402_with_the_nearest() -> None:
    for ask in (DIST.probability, BATCH.share):
        with pytest.raises(InputError) as caught:
            ask("failur")
        (d,) = caught.value.diagnostics
        assert d.code == "RC402" and "did you mean 'failure'" in (d.hint or ""), d
    assert DIST.probability("failure") == DIST.probability(DIST.outcomes["failure"])
