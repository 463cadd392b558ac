"""Readings of the rule texts fixed in issue 12, each pinned by an exact distribution worked
out by hand (Fractions) or by forced dice, independently of the ruleset.

Each test quotes the sentences its reading weighs; the ruleset note named in it records them.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import engine

CHILL = engine.load("chill")


def table(rs: engine.Ruleset, check: str, **inputs: object) -> dict[str, Fraction]:
    return {s.name: p for s, p in rs.distribution(check, **inputs).table()}


# ---------------------------------------------------------------------------------------------
# Chill, note `hundred`
# ---------------------------------------------------------------------------------------------


def test_chill_against_exactly_100_the_00_is_a_failure_not_a_botch():
    """Botch: "the roll is doubles ... and is higher than the target number"; "A roll of a 100 is
    a failure, no matter what"; "If a target number is 100 or more, you can only fail if you
    roll 100". 100 is not higher than 100: against exactly 100 the 00 is a plain Failure."""
    # By hand, target 100: doubles 11..99 are Colossal (9 rolls); 1..50 but 11, 22, 33, 44 High
    # (46); 51..99 but 55, 66, 77, 88, 99 Low (44); 00 a Failure (1).
    assert table(CHILL, "specific", target=100) == {
        "botch": Fraction(0),
        "failure": Fraction(1, 100),
        "low_success": Fraction(44, 100),
        "high_success": Fraction(46, 100),
        "colossal_success": Fraction(9, 100),
    }


@pytest.mark.parametrize(("target", "band"), [(99, "botch"), (100, "failure"), (101, "failure")])
def test_chill_00_is_a_botch_only_against_a_lower_target(target: int, band: str):
    result = CHILL.roll("specific", forced={"tens": 0, "ones": 0}, target=target)
    assert result.outcome.name == band
    assert result.values["forced_dark"] == (1 if band == "botch" else 0)
