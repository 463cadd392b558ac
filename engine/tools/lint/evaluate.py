"""The linter's one door into the evaluators.

The evaluator API is being reshaped; every call the linter makes into `engine.eval` goes
through these two functions, so that a change there is a change here only. No other module
of the linter imports `engine.eval`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...eval.exact import _randomizer, distribution
from ...model.ruleset import Check, Randomizer
from ...runtime.limits import Limits


def exact_distribution(
    check: Check, inputs: Mapping[str, Any], limits: Limits, policy: str
) -> tuple[Mapping[Any, int], int]:
    """(outcome weights, total) of the check's exact distribution."""
    d = distribution(check, inputs, limits, policy)
    return d.outcome.weights, d.outcome.total


def randomizer_values(r: Randomizer, env: dict[str, Any], limits: Limits) -> list[Any]:
    """Every value a randomizer can take for this environment (first rolls), in the exact
    evaluator's order."""
    return [v for v, _ in _randomizer(r, env, limits)]
