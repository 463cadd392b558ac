"""The rules of a check that every evaluator and the linter follow in the same way."""

from __future__ import annotations

from typing import Any

from ..model.ruleset import Rule


def first_rule(rows: tuple[Rule, ...], env: dict[str, Any]) -> tuple[int, Any] | None:
    """Which rule of a list fires for `env` and its value (for the trace)."""
    for i, r in enumerate(rows):
        if r.when is None or r.when.run(env):
            return i, r.then.run(env)
    return None
