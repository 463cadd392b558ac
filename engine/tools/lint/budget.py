"""How much work the linter may do: it runs on untrusted rulesets, so every bound ends in RC809,
never in a hang."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LintBudget:
    """How much work the linter may do; every bound ends in RC809, never in a hang."""

    max_combinations: int = 1000
    """Input combinations tried per check: all of them when there are no more, else every
    pair of values of two inputs with the others at their ordinary values, then a covering
    set (combinations that read the same values after the roll are evaluated once)."""
    max_cost: float = 1.0
    """Estimated seconds of exact evaluation per check (and three times this on the wall clock)."""
    max_single: float = 0.25
    """Estimated seconds for one input combination; above it the combination is left out."""
    max_follow: float = 0.05
    """Estimated seconds for following one combination's rerolls and redraws exactly under
    both policies; above it (when the choices only reroll or redraw) the dice are taken as
    first rolled."""
    max_seconds: float = 10.0
    """Wall-clock seconds for the whole ruleset: a deadline every loop honours (`RC503` inside an
    evaluation, which then counts as left out)."""
    max_work: int = 20_000_000
    """Units of work for the whole ruleset (as `Limits.max_work` counts them; one evaluation may
    use at most the `Limits.max_work` of one request): about ten requests' worth."""
    max_table_args: int = 20_000
    """Distinct argument lists remembered per table (for RC802 on a table's rules)."""


DEFAULT_BUDGET = LintBudget()
