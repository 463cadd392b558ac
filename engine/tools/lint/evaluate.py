"""The linter's one door into the evaluators: every call it makes into `engine.eval` goes
through these two functions. No other module of the linter imports `engine.eval`."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ...eval.exact import distribution
from ...eval.tables import randomizer_table
from ...model.ruleset import Check, Randomizer
from ...runtime.context import RunContext


def exact_distribution(
    check: Check, inputs: Mapping[str, Any], ctx: RunContext
) -> tuple[Mapping[Any, int], int, Fraction]:
    """(outcome weights, total, truncated) of the check's exact distribution under `ctx.policy`;
    `truncated` is what an uncapped explosion left out (`Distribution.truncated`)."""
    d = distribution(check, inputs, ctx)
    return d.outcome.weights, d.outcome.total, d.truncated


def randomizer_values(r: Randomizer, env: dict[str, Any], ctx: RunContext) -> list[Any]:
    """Every value a randomizer can take for this environment (first rolls), in the exact
    evaluator's order."""
    return list(randomizer_table(r, env, ctx).weights)
