"""Chill's Specific check written by hand in plain Python: what `Ruleset.roll` is measured against.

The same check as rulesets/chill.yaml (`specific`): two d10 read 0-9 as tens and ones (00 reads
100), the five bands of `specific_band` against the target before and after the tokens, and the
same named values and outputs (`final_target`, `roll`, `doubles`, `before_tokens`,
`spent_and_botch`, `colossal`, `forced_dark`, `forced_light`). The dice come from
`rng.randrange(10)`, tens first, which draws what rulecraft draws from the same seed, so the two
agree roll for roll (tests/test_rollfast.py holds them to it, and to the exact distribution).
"""

from __future__ import annotations

import random
from typing import Any


def band(roll: int, doubles: bool, target: int) -> str:
    """The result of a percentile roll against a target (the ruleset's `specific_band`)."""
    if roll == 100 and target >= 100:
        return "failure"
    if roll == 100:
        return "botch"
    if doubles and roll > target:
        return "botch"
    if doubles:
        return "colossal_success"
    if roll > target:
        return "failure"
    if roll * 2 <= target:
        return "high_success"
    return "low_success"


def specific(
    rng: random.Random, target: int, tokens: int = 0, roller: str = "player"
) -> tuple[str, dict[str, Any]]:
    """One Specific check: its outcome and its named values and outputs, in the ruleset's order."""
    tens = rng.randrange(10)
    ones = rng.randrange(10)
    final_target = target + 10 * tokens
    roll = 100 if tens == 0 and ones == 0 else tens * 10 + ones
    doubles = tens == ones
    before_tokens = band(roll, doubles, target)
    outcome = band(roll, doubles, final_target)
    spent_and_botch = tokens + (1 if before_tokens == "botch" else 0)
    colossal = 1 if outcome == "colossal_success" and before_tokens != "botch" else 0
    if roller == "player":
        forced_dark, forced_light = spent_and_botch, colossal
    else:
        forced_dark, forced_light = colossal, spent_and_botch
    return outcome, {
        "final_target": final_target,
        "roll": roll,
        "doubles": doubles,
        "before_tokens": before_tokens,
        "spent_and_botch": spent_and_botch,
        "colossal": colossal,
        "forced_dark": forced_dark,
        "forced_light": forced_light,
    }
