"""How much work the linter may do: it runs on untrusted rulesets, so every bound ends in RC809,
never in a hang. Every bound is counted in units of work (`engine.runtime.work`), never in
seconds, so the same ruleset gets the same findings on every run and every machine."""

from __future__ import annotations

from ...frozen import frozen

CHECK_SHARE = 20
"""A check's exact evaluations may use `max_work // CHECK_SHARE` units together (by default)."""
COMBINATION_SHARE = 80
"""One input combination, estimated before it runs, may cost `max_work // COMBINATION_SHARE`."""

DEFAULT_WORK = 20_000_000
"""The default `LintBudget.max_work`: the shipped rulesets use 0.05–0.74 million units each (no
check more than 0.34 million of its 1 million) and the starter a few hundred, so they are
covered completely with room to spare."""


@frozen(slots=True)
class LintBudget:
    """How much work the linter may do; every bound ends in RC809, never in a hang.

    `max_work` is the one knob (`rulecraft validate --lint-work N`): the shares for one check,
    one input combination and following choices are fixed fractions of it unless given. Only
    `deadline` makes results depend on the machine, and it is off by default."""

    max_combinations: int = 1000
    """Input combinations tried per check: all of them when there are no more, else every
    pair of values of two inputs with the others at their ordinary values, then a covering
    set (combinations that read the same values after the roll are evaluated once)."""
    max_work: int = DEFAULT_WORK
    """Units of work for the whole ruleset (as `Limits.max_work` counts them: about a
    microsecond each on a small machine). One exact evaluation still uses at most the
    `Limits.max_work` of one request."""
    check_work: int | None = None
    """Units the exact evaluations of one check may use together; None: `max_work // 20`."""
    combination_work: int | None = None
    """Estimated units for one input combination (the cost model, before it runs); above it the
    combination is left out. None: `max_work // 80`."""
    follow_work: int | None = None
    """Units for following rerolls and redraws exactly under every policy, where the choices only
    reroll or redraw: a combination estimated at no more (the cost model, before it runs) is
    followed; one estimated above it is still tried, counted as it runs, all of a check's tries
    together within this many units, but for the one charge that crosses it (none estimated
    dearer than one whose try was stopped), and where a try is stopped, by these units or by any
    other bound (`Limits.max_states`, ...), the dice are taken as first rolled (the cost model
    puts a reroll chain far above the work it does). None: `max_work // 400`."""
    deadline: float | None = None
    """Seconds of wall clock for the whole analysis, an embedder's explicit option (None, the
    default: no deadline). The one thing that makes the findings depend on the machine's speed:
    what is cut off by it differs from run to run."""
    max_table_args: int | None = None
    """Distinct argument lists remembered per table (for RC802 on a table's rules); None:
    `max_work // 200` (100,000 by default; a shipped ruleset's table is called with 28,200)."""

    @property
    def table_args(self) -> int:
        """Distinct argument lists remembered per table."""
        return self.max_table_args if self.max_table_args is not None else self.max_work // 200

    @property
    def per_check(self) -> int:
        """Units one check's exact evaluations may use together."""
        return self.check_work if self.check_work is not None else self.max_work // CHECK_SHARE

    @property
    def per_combination(self) -> int:
        """Estimated units one input combination may cost."""
        return (
            self.combination_work if self.combination_work is not None else self.max_work // COMBINATION_SHARE
        )

    @property
    def per_follow(self) -> int:
        """Units for following choices that only reroll (`follow_work`): the estimate above which
        a combination is only tried, and what a check's tries may use together."""
        return self.follow_work if self.follow_work is not None else self.max_work // 400


DEFAULT_BUDGET = LintBudget()
