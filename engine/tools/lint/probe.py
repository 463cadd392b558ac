"""What running a check records, for the report to word.

The linter runs each check's own compiled code, so it judges with the engine's semantics:
`Probe` stands in for a check's `program` and notes which rule fired, which later rules would
have matched too, and every roll that falls through or fails; `TableCalls` wraps each table's
function where the generated code looks it up and notes the argument lists it is called with.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, TypeGuard

from ...errors import BoundError, Diagnostic, EvalError, LimitError, RulecraftError
from ...model.ruleset import Check, Rule, RulesetModel
from ...model.values import Redrawn, redraws_key
from ...runtime.rules import with_dice


class Marker:
    """An outcome no ruleset can give, standing for a roll without one. Under `optimal` best play
    scores it below every outcome (rank -1, below a scale's worst): a roll that falls through or
    fails is worth nothing to the player, so the linter can follow best play on such a check."""

    rank = -1

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"

    def __ge__(self, other: object) -> bool:
        return False

    def __gt__(self, other: object) -> bool:
        return False

    def __le__(self, other: object) -> bool:
        return True

    def __lt__(self, other: object) -> bool:
        return True


GAP = Marker("falls through")
FAIL = Marker("fails")


def spent(exc: RulecraftError) -> TypeGuard[LimitError]:
    """Whether `exc` is a budget or a bound the embedder set, so that what it stopped is left out
    (RC809), rather than a failure of the rules for these inputs (RC808). A `BoundError` (a
    number of more than 1000 digits, a die of more than 1000 faces) is the ruleset's own: no
    budget or `Limits` lets the roll through, as none lets a division by zero through."""
    return isinstance(exc, LimitError) and not isinstance(exc, BoundError)


@dataclass
class Example:
    """The first place something happened: inputs, dice, values, and where it was found."""

    combo: dict[str, Any]
    dice: dict[str, Any] | None
    values: dict[str, Any]
    args: tuple[Any, ...] | None = None
    policy: str = ""
    first_rolled: bool = False
    probability: Fraction | None = None
    diagnostic: Diagnostic | None = None
    combos: int = 1
    last: int = -1
    before: bool = False
    at: set[int] = field(default_factory=set)
    """For a failure: the input combinations (their index in the grid) where it happened, so
    RC808 can say it happens for every allowed input, rather than name one."""


class TableCalls:
    """The argument lists each table of a private compiled model is called with.

    Each table's function is wrapped where the generated code looks it up (the namespaces of
    the tables' and checks' code), so the caller's `Ruleset` is never changed."""

    def __init__(self, model: RulesetModel, cap: int) -> None:
        self.args: dict[str, set[tuple[Any, ...]]] = {t: set() for t in model.tables}
        self.cap = cap
        self.incomplete: set[str] = set()
        """Tables some of whose calls were not recorded: more distinct argument lists than
        `cap`, arguments that cannot be remembered, or a check that was not fully analysed."""
        self.overflowed: set[str] = set()
        """Of those, the tables called with more distinct argument lists than `cap`."""
        self.partial: set[str] = set()
        """Tables a check reaches whose inputs were tried only in part (a grid, not every allowed
        input): a rule or case no recorded call reaches may be reached at an input left out, so
        it is a note, as a check's own rule is (`report.never`'s `tried`)."""
        self.gap: tuple[str, tuple[Any, ...]] | None = None
        """The first table call since the last reset that had no rule or case for its arguments."""
        self._instrument(model)
        self._direct = {t.name: self._wrap(t.name, t.run) for t in model.tables.values()}

    def saved(self) -> tuple[dict[str, set[tuple[Any, ...]]], set[str], set[str]]:
        """What has been recorded so far, for `restore` after calls that no play makes."""
        return {t: set(a) for t, a in self.args.items()}, set(self.incomplete), set(self.overflowed)

    def restore(self, saved: tuple[dict[str, set[tuple[Any, ...]]], set[str], set[str]]) -> None:
        """Forget every call recorded since `saved` was taken."""
        args, incomplete, overflowed = saved
        for t, a in args.items():
            self.args[t].clear()
            self.args[t].update(a)
        self.incomplete, self.overflowed, self.gap = incomplete, overflowed, None

    def call(self, table: str, args: tuple[Any, ...]) -> None:
        """Call `table` with `args` as the lasting state would, recording it and every table call
        it makes; a call that fails (no rule, a division by zero) is not the checks' to report,
        but the budget running out is raised."""
        try:
            self._direct[table](*args)
        except RulecraftError as exc:
            if spent(exc):
                raise

    def _instrument(self, model: RulesetModel) -> None:
        by_id = {id(t.run): t.name for t in model.tables.values()}
        spaces: dict[int, dict[str, Any]] = {}
        for t in model.tables.values():
            ns = getattr(t.run, "__globals__", None)
            if isinstance(ns, dict):
                spaces[id(ns)] = ns
        for check in model.checks.values():
            ns = getattr(check.program, "__globals__", None)
            if isinstance(ns, dict):
                spaces[id(ns)] = ns
        for ns in spaces.values():
            for k, v in list(ns.items()):
                name = by_id.get(id(v))
                if name is not None and v is model.tables[name].run:
                    ns[k] = self._wrap(name, v)

    def _wrap(self, name: str, real: Any) -> Any:
        seen = self.args[name]
        cap = self.cap

        def run(*args: Any) -> Any:
            try:
                if len(seen) < cap:
                    seen.add(args)
                elif args not in seen:
                    self.incomplete.add(name)
                    self.overflowed.add(name)
            except TypeError:
                self.incomplete.add(name)
            try:
                return real(*args)
            except EvalError as exc:
                if self.gap is None and exc.diagnostics and exc.diagnostics[0].code == "RC501":
                    self.gap = (name, args)
                raise

        return run


class Probe:
    """Stands in for a check's compiled `program`: runs it, and records which rule fired,
    which later rules would have matched too, and every roll that falls through or fails."""

    def __init__(self, tables: TableCalls, check: Check) -> None:
        self.tables = tables
        self.check = check
        self.program = check.program
        self.dice_names = [r.name for r in check.roll]
        self.rules: tuple[Rule, ...] = check.outcome if isinstance(check.outcome, tuple) else ()
        self.fired: set[int] = set()
        self.fired_followed: set[int] = set()
        """The rules that fired on a roll whose rerolls were followed (not first rolled)."""
        self.shadowed: dict[int, set[int]] = {}
        self.pending = [j for j, r in enumerate(self.rules) if r.when is not None]
        self.blank = (None,) * len(check.layout)
        self.combo: dict[str, Any] = {}
        self.index = -1
        self.policy = ""
        self.first_rolled = False
        self.gaps: dict[tuple[str, ...], Example] = {}
        self.failures: dict[tuple[Any, ...], Example] = {}

    def __call__(self, env: dict[str, Any], *dice: Any) -> tuple[Any, ...]:
        self.tables.gap = None
        try:
            key = self.program(env, *dice)
        except (EvalError, BoundError) as exc:
            return self.failed(exc, env, dice)
        fired = key[1]
        if fired >= 0 and fired not in self.fired:
            self.fired.add(fired)
            if fired in self.pending:
                self.pending.remove(fired)
        if fired >= 0 and not self.first_rolled:
            self.fired_followed.add(fired)
        later = [j for j in self.pending if j > fired]
        if later:
            full = self._full_env(env, dice, key)
            for j in later:
                when = self.rules[j].when
                assert when is not None
                try:
                    if when.run(full):
                        self.shadowed.setdefault(j, set()).add(fired)
                except RulecraftError:
                    continue
        return key

    def _full_env(
        self, env: dict[str, Any], dice: tuple[Any, ...], key: tuple[Any, ...] | None
    ) -> dict[str, Any]:
        full = with_dice(env, self.check.roll, dice)
        if key is not None:
            full.update(zip(self.check.layout, key[2:]))
        return full

    def _values_at(self, env: dict[str, Any], dice: tuple[Any, ...]) -> dict[str, Any]:
        """The named values after the roll, as far as they can be computed."""
        full = self._full_env(env, dice, None)
        out: dict[str, Any] = {}
        for let in self.check.post_lets:
            try:
                full[let.name] = out[let.name] = let.expr.run(full)
            except RulecraftError:
                break
        return out

    def failed(
        self,
        exc: RulecraftError,
        env: dict[str, Any],
        dice: tuple[Any, ...] | None,
        before: bool = False,
        at: dict[str, Any] | None = None,
    ) -> tuple[Any, ...]:
        """Record a roll (or, with `dice` None, an input combination) that has no result;
        `before`: it failed before any die was rolled; `at`, with `dice` None: the dice, as
        shown, where an evaluation that stopped was found to fail (`Analysis._located`)."""
        d = exc.diagnostics[0]
        shown_dice = at or None
        if dice is not None:  # a die carried with its redraws shows both, as the check reads them
            shown_dice = {}
            for n, v in zip(self.dice_names, dice):
                if type(v) is Redrawn:
                    shown_dice[n], shown_dice[redraws_key(n)] = v.value, v.count
                else:
                    shown_dice[n] = v
        values = self._values_at(env, dice) if dice is not None else {}
        if d.code == "RC501":
            gap = self.tables.gap
            where: tuple[str, ...] = ("table", gap[0]) if gap else ("check",)
            found = self.gaps.get(where)
            if found is None or (found.first_rolled and not self.first_rolled):  # a roll that stands first
                self.gaps[where] = Example(
                    dict(self.combo),
                    shown_dice,
                    values,
                    gap[1] if gap else None,
                    self.policy,
                    self.first_rolled,
                    last=self.index,
                    before=before,
                )
            elif found.last != self.index:
                found.combos += 1
                found.last = self.index
            self.tables.gap = None
            return (GAP, -2, *self.blank)
        where_f = (d.code, d.span.line if d.span else 0, d.span.col if d.span else 0)
        known = self.failures.get(where_f)
        if known is None or (known.first_rolled and not self.first_rolled):
            self.failures[where_f] = Example(
                dict(self.combo),
                shown_dice,
                values,
                None,
                self.policy,
                self.first_rolled,
                diagnostic=d,
                before=before,
                at=known.at if known is not None else set(),
            )
        self.failures[where_f].at.add(self.index)
        return (FAIL, -2, *self.blank)

    def same_as(self, index: int) -> None:
        """The combination being run rolls as the one at `index` did (it was not run again):
        it fails where that one failed."""
        for ex in self.failures.values():
            if index in ex.at:
                ex.at.add(self.index)


class Matches:
    """Stands in for a check's `program` on the rolls of inputs an auto rule decided (no play
    rolls them): notes, for each of `wanted` (indices of the outcome rules), the auto rules at
    whose inputs it would decide some roll (its condition true, and no earlier rule's). It
    records nothing else, and a roll that fails here is no failure of the check's."""

    def __init__(self, check: Check, rules: tuple[Rule, ...], wanted: list[int]) -> None:
        self.check = check
        self.program = check.program
        self.rules = rules
        self.wanted = wanted
        self.auto = -1
        self.matched: dict[int, set[int]] = {}
        self.blank = (None,) * len(check.layout)

    def __call__(self, env: dict[str, Any], *dice: Any) -> tuple[Any, ...]:
        try:
            key = self.program(env, *dice)
        except (EvalError, BoundError):
            return (FAIL, -2, *self.blank)
        full = with_dice(env, self.check.roll, dice)
        full.update(zip(self.check.layout, key[2:]))
        # the rule that would decide this roll: the first whose condition holds (an earlier one
        # that holds decides it, so a later rule it shadows here is not the auto rule's to name:
        # a review found 'narrow auto rule 1' told of a rule that rule 1 shadowed everywhere)
        for j, rule in enumerate(self.rules):
            try:
                holds = rule.when is None or rule.when.run(full)
            except (EvalError, BoundError):
                return key
            if holds:
                if j in self.wanted:
                    self.matched.setdefault(j, set()).add(self.auto)
                return key
        return key


@dataclass(frozen=True)
class Stop:
    """Why a combination's rerolls were not followed, its dice taken as first rolled: the reason
    in RC809's words, and the bound of the embedder's `Limits` it names ('': the linter's own
    share, budget or deadline), whose advice RC809 then gives, as `CheckRun.limit` does."""

    reason: str
    limit: str


OVER_SHARE = Stop("over the linter's share for following them", "")
"""Why rerolls were not followed when the linter's share for following ran out."""


@dataclass
class CheckRun:
    """What running one check over its input grid found, for the report."""

    check: Check
    """The linter's private, instrumented copy."""
    public: Check
    """The caller's check, whose positions the report gives."""
    probe: Probe
    total: int
    """Input combinations in the grid."""
    exhaustive: bool
    """The grid holds every allowed input combination."""
    tried: int = 0
    produced: set[str] = field(default_factory=set)
    """Outcomes some roll or auto rule gave."""
    auto_fired: set[int] = field(default_factory=set)
    auto_true: dict[int, set[int]] = field(default_factory=dict)
    """For each auto rule that matched after an earlier one decided: those earlier rules."""
    skipped: list[tuple[dict[str, Any], str]] = field(default_factory=list)
    """Combinations left out, each with the reason."""
    over_states: bool = False
    """Some were left out for the exact evaluator's own bound on states, which no lint budget
    raises."""
    limit: str = ""
    """The bound of the embedder's `Limits` (`max_pool`, `max_rerolls`, a reroll chain's
    `max_states`, each evaluation's `max_work`, ...) that the first combination left out passed,
    which no lint budget raises ('': it was left out for the linter's own budget)."""
    truncated: tuple[Fraction, dict[str, Any]] = (Fraction(0), {})
    """The most an uncapped explosion left out of one distribution, and for which inputs."""
    work: int = 0
    """Units the check's exact evaluations used (bounded by `LintBudget.per_check`)."""
    needed: int | None = None
    """The least `LintBudget.max_work` whose share for one combination the first combination
    left out for its cost would fit in (None: none was left out so, or that share was set
    apart from `max_work`): what RC809's hint offers."""
    needed_all: int | None = None
    """The least `LintBudget.max_work` whose share for one combination every combination left out
    for its cost would fit in (as `needed`, over all of them): a budget raised to `needed` may
    still leave another out for its cost, so RC809's hint offers this too when it is more."""
    produced_followed: set[str] = field(default_factory=set)
    """Outcomes some roll gave whose rerolls were followed (not taken as first rolled)."""
    auto_first: dict[int, set[int]] = field(default_factory=dict)
    """For each outcome rule that never fired, no earlier rule shadowing it: the auto rules at
    whose inputs its condition is true for some roll (they decide first: `_decided_first`)."""
    auto_unsure: bool = False
    """The rolls of the inputs the auto rules decided were not all tried for `auto_first`."""
    endless_always: tuple[Diagnostic, dict[str, Any]] | None = None
    """The first refusal met where every `may` taken never ends (under `always`; `never` ends
    it), with its inputs: no failure of the check, but `roll` and `prob` refuse it there unless
    told another policy, which a note says (`Report.check`)."""
    unfollowed: Stop | None = None
    """Why the first combination whose rerolls were not followed was not (the first: RC809 names
    it beside the rolls seen only with the dice as first rolled, as it names the first combination
    left out; None: every combination's were, or none was left to the dice as first rolled)."""

    cut: bool = False
    """Some exact evaluation stopped at a roll that fell through or failed in code the evaluator
    runs for each face (a redraw's condition, a die's faces, `each:`), not in the check's program,
    which the probe catches roll by roll: the rolls after it, their rules and table calls, were
    not seen (hunt 13p: a table's rule for `f >= 3` never fired, as rows after f = 2 went unseen)."""

    @property
    def conclusive(self) -> bool:
        """Whether which rules fire and which outcomes come out can be judged: nothing was left
        out, no roll failed (a failing roll stops before later rules and tables), and no
        evaluation was cut short by a roll without a result (`cut`)."""
        return not self.skipped and not self.probe.failures and not self.cut
