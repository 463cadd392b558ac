"""The Chill Specific check read straight from the rule text, shared by the tests that check
the engine against it (an oracle written independently of the ruleset)."""

from __future__ import annotations


def chill_reading(tens: int, ones: int) -> int:
    """Percentile dice: tens and ones, and "if you roll double zeros, read the dice as 100"."""
    return 100 if tens == 0 and ones == 0 else tens * 10 + ones


def chill_band(roll: int, doubles: bool, target: int) -> str:
    """The five results of a Specific check, from the text.

    Readings the text leaves open follow chill.yaml's notes: `hundred` (100 always fails; a
    Botch only when it is higher than the target, so a Failure against 100 or more),
    `half-target` (exactly half is High).
    """
    if roll == 100:
        return "failure" if target >= 100 else "botch"
    if doubles:
        return "botch" if roll > target else "colossal_success"
    if roll > target:
        return "failure"
    if roll * 2 <= target:
        return "high_success"
    return "low_success"
