"""The run loop: each check of a private compiled copy of the ruleset, with a `Probe` in place
of its program, over its input grid and (for player choices) both policies, within the budget.

The grid comes from `grid`, the estimates from `cost`, the exact evaluation through `evaluate`;
what was found is worded by `report`, and the table calls it recorded are judged by `tables`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ...compiler import compile_document
from ...errors import NO_BEST_PLAY, Diagnostic, EndlessError, EvalError, LimitError, RulecraftError
from ...expr import ast
from ...frozen import replace
from ...model.ruleset import Check, Die, Pool, RulesetModel, randomizer_expressions
from ...model.values import Symbol
from ...runtime.cache import Caches
from ...runtime.context import RunContext
from ...runtime.inputs import bind_inputs
from ...runtime.limits import counted_before_roll, redraw_times
from ...runtime.rules import before_roll, concrete, reading
from ...runtime.work import Work, working
from .budget import COMBINATION_SHARE, LintBudget
from .cost import cost
from .evaluate import exact_distribution, randomizer_values
from .grid import grid
from .lasting import state_calls, state_table_gaps
from .probe import FAIL, GAP, OVER_SHARE, CheckRun, Matches, Probe, Stop, TableCalls, spent
from .report import Report, note
from .static import table_nodes, tables_reached
from .tables import table_rule_findings

if TYPE_CHECKING:
    from ...api import Ruleset


class Analysis:
    """One ruleset's dynamic analysis, on a private copy of its compiled model whose table
    functions are wrapped to record the arguments they are called with."""

    def __init__(self, rs: Ruleset, budget: LintBudget) -> None:
        self.rs = rs
        self.budget = budget
        self.limits = rs.limits
        self.ctx = RunContext(rs.limits, "always", Caches())  # its own: it runs edited copies of checks
        self.work = Work(budget.max_work, budget.deadline)
        """The whole analysis's budget: each exact evaluation runs on a share of it (`_evaluate`),
        and everything else it runs — lets, tables, sizing the dice — is charged here directly.
        Counted in units, so what is covered is the same on every machine; only an embedder's
        explicit `LintBudget.deadline` adds the clock."""
        # as the ruleset was, and within the linter's deadline when it has one (the compile is
        # most of a large ruleset's load, and a server gives a validation only what it has left)
        clock = (
            None
            if budget.deadline is None
            else Work(rs.limits.max_work, budget.deadline, until=self.work.until)
        )
        self.model: RulesetModel = compile_document(rs.document, rs.limits, work=clock)
        self.bodies = {t: table_nodes(rs.document, t) for t in self.model.tables}
        self.tables = TableCalls(self.model, budget.table_args)
        self.report = Report(rs.document, self.model.tables, self.bodies, budget.max_work)

    def run(self) -> list[Diagnostic]:
        """The findings of every check, then of the tables' rules."""
        with working(self.work):
            return self._run()

    def _run(self) -> list[Diagnostic]:
        found: list[Diagnostic] = []
        gaps: set[str] = set()  # tables a check already found a gap in
        for name, check in self.model.checks.items():
            result = self._check(check, self.rs.checks[name])
            found += self.report.check(result)
            gaps |= {where[1] for where in result.probe.gaps if where[0] == "table"}
            if not result.conclusive:  # some calls may not have been seen
                self.tables.incomplete |= tables_reached(check, self.bodies)
            elif not result.exhaustive:  # seen, over some of the inputs only
                self.tables.partial |= tables_reached(check, self.bodies)
        try:  # the tables the lasting state calls, over the values the state gives them
            found += state_table_gaps(self.rs.document, self.rs.model, gaps)
        except LimitError as exc:
            found.append(
                note(f"the tables the state calls were not all tried: {exc.diagnostics[0].message}", None)
            )
        try:  # the tables' rules, over the calls of the checks and of the lasting state
            by_state, unlisted = state_calls(self.model, self.tables, self.bodies)
            self.tables.incomplete |= unlisted
            found += table_rule_findings(
                self.rs.document, self.model, self.bodies, self.tables, self.limits, by_state
            )
        except LimitError as exc:
            found.append(note(f"the table rules were not all analysed: {exc.diagnostics[0].message}", None))
        return found

    def _check(self, check: Check, public: Check) -> CheckRun:
        probe = Probe(self.tables, check)
        probed = replace(
            check,
            program=probe,
            outcome_program=None,
            outcome_loop=None,
            outcome_stages=None,
            value_loops={},
            stage_keys=None,
            own_keys=None,
            roller=None,
        )  # every state and every run through the probe
        # Past the share for following choices, dice that only reroll or redraw are taken
        # as first rolled: every value a reroll can end on is one a first roll can show —
        # unless the check reads a pool's history or counts redraws, which a first roll alone
        # never shows.
        can_skip_choices = (
            check.sequential
            and not _dependent(check)
            and all(t.action == "reroll" for r in check.roll if isinstance(r, Pool) for t in r.triggers)
            and not any(isinstance(r, Pool) and r.history or r.counted for r in check.roll)
        )
        first_rolled = replace(probed, sequential=False) if can_skip_choices else None
        # With no `must` step, the dice as first rolled are what stands when the player declines
        # every choice, and every roll a reroll can leave is among them: the rolls seen so are
        # the rolls that can stand, for certain (hunt 13p: a gap seen there was told as a
        # "perhaps", with a hint to give the linter a budget that could tell no more).
        declined = first_rolled is not None and _no_must(check)
        # every way the player may play (a rule that fires only under best play fires); with no
        # "may", one way to play
        policies = ("always", "never", "optimal") if check.chooses else ("always",)
        combos, exhaustive = grid(check, self.bodies, self.rs.document, self.budget.max_combinations)
        run = CheckRun(check, public, probe, len(combos), exhaustive)
        roll_names = _roll_names(check)
        seen: dict[tuple[Any, ...], int] = {}  # the index of the first combination that rolls so
        decided: list[tuple[int, dict[str, Any]]] = []  # (the auto rule, the inputs) it decided
        # The cost model puts a reroll chain far above the work it does (3 d6 that may reroll
        # once: 94,000 units for three policies, 2,500 done), so what it calls too dear to
        # follow is still tried, counted as it runs: all of a check's tries together within the
        # share for following (but for the one charge that crosses it), and where a try is
        # stopped — by that share or by any other bound — the dice are taken as first rolled.
        tries = Work(self.budget.per_follow)
        gave_up = math.inf  # the least estimate whose try was stopped: no dearer one is tried
        gave_up_by = OVER_SHARE  # and the bound that stopped it, which a dearer one is taken to meet
        for index, combo in enumerate(combos):
            late = self._late()
            if late or not self.work.left:
                why = late or self._spent()
                for c in combos[index:]:
                    _leave_out(run, c, why)
                break
            probe.combo, probe.index = combo, index
            try:
                bound = bind_inputs(check, combo)
            except RulecraftError:
                continue
            run.tried += 1
            self.tables.gap = None
            try:
                env = before_roll(check, bound)
            except RulecraftError as exc:
                if spent(exc):
                    _leave_out(run, combo, self._why(exc), exc)
                else:
                    probe.failed(exc, dict(bound), None, before=True)
                continue
            try:
                deciding, fired = _auto(check, env, run, probe)
            except LimitError as exc:
                _leave_out(run, combo, self._why(exc), exc)
                continue
            if fired is not None:
                if isinstance(fired, Symbol):
                    run.produced.add(str(fired))
                    run.produced_followed.add(str(fired))  # decided before any die: nothing to follow
                if deciding is not None and fired is not FAIL:
                    decided.append((deciding, bound))
                continue
            try:
                key = tuple((n, env.get(n)) for n in roll_names)
                hash(key)
            except TypeError:  # pragma: no cover - inputs and values are hashable
                key = (("#", index),)
            if key in seen:
                probe.same_as(seen[key])
                continue
            seen[key] = index
            # what the inputs decide of the dice, checked before they are sized (`cost` reads
            # them), where no rule decided before the roll (as the roller checks it: `prepared`)
            try:
                counted_before_roll(check, env, self.limits)
            except LimitError as exc:  # a bound of `Limits`, named as such (not `--lint-work`)
                _leave_out(run, combo, self._why(exc), exc)
                continue
            except RulecraftError as exc:  # a draw past its bag: every roll fails there (RC808),
                run.cut = True  # as the evaluation would have stopped at it, before any die
                probe.failed(exc, env, None)
                continue
            target, runs = probed, policies
            try:
                units, states = cost(check, env, check.sequential, self.ctx)
                units *= len(policies)
                followed = units
                if check.sequential and units > self.budget.per_follow and first_rolled is not None:
                    target, runs = first_rolled, ("always",)
                    units, states = cost(check, env, False, self.ctx)
            except LimitError as exc:  # sizing the dice ran out of the analysis's budget
                _leave_out(run, combo, self._why(exc), exc)
                continue
            if not self._admits(run, combo, units, states):
                continue
            if target is first_rolled and tries.left and followed < gave_up:
                stop = self._follow(run, probed, policies, bound, env, combo, tries)
                if stop is None:
                    continue  # followed after all
                gave_up, gave_up_by = followed, stop
                # the try was stopped, and may have spent what the check had left; the dice as
                # first rolled get a share of their own, and are left out only if it stops them too
                run.unfollowed = run.unfollowed or stop
                if not self._admits(run, combo, units, states):
                    continue
            elif target is first_rolled:
                run.unfollowed = run.unfollowed or (gave_up_by if tries.left else OVER_SHARE)
            elif first_rolled is not None:
                # followed at once, as cheap: where one of the embedder's `Limits` stops that, the
                # dice as first rolled, as for a try, so more lint work never analyses less
                # (review Y, F1); where the linter's own budget (or another bound) does, the
                # combination is left out; and where the dice as first rolled are stopped too, it is
                # left out naming what stopped them (review AA, F1: it named the bound that stopped
                # following, max_states, where the linter's budget had stopped them)
                instead = self._follow(run, probed, policies, bound, env, combo, None)
                if instead is None:
                    continue
                run.unfollowed = run.unfollowed or instead
                target, runs = first_rolled, ("always",)
                try:
                    units, states = cost(check, env, False, self.ctx)
                except LimitError as exc:
                    _leave_out(run, combo, self._why(exc), exc)
                    continue
                if not self._admits(run, combo, units, states):
                    continue
            probe.first_rolled = target is first_rolled and not declined
            for policy in runs:
                if target is first_rolled:
                    probe.policy = "never" if declined else ""
                else:
                    probe.policy = policy if check.sequential else ""
                if not self._evaluate(run, target, policy, bound, env, combo):
                    break
        if decided and run.conclusive:
            self._decided_first(run, probed, policies, decided)
        return run

    def _decided_first(
        self,
        run: CheckRun,
        target: Check,
        policies: tuple[str, ...],
        decided: list[tuple[int, dict[str, Any]]],
    ) -> None:
        """For each outcome rule that never fired and that no earlier rule shadows, whether its
        condition is true at some roll of the inputs an auto rule decided before the roll (the
        outcome rules are not tried there): `run.auto_first` names those auto rules. Run only for
        such a rule (a ruleset without one is analysed as before; its work is charged as any
        evaluation's), the table calls it makes forgotten (no play makes them); where it cannot be run
        to the end (the budget, a bound, a roll that fails where the auto rule spares it),
        `run.auto_unsure` says so, and the rule is told as never true where the roll is left to it."""
        probe = run.probe
        open_rules = [j for j in probe.pending if j not in probe.shadowed]
        if not open_rules:
            return
        shadow = Matches(run.check, probe.rules, open_rules)
        rolled = replace(target, auto=(), program=shadow)
        saved = self.tables.saved()
        try:
            for auto, bound in decided:  # every one, so that each auto rule that decides first is named
                shadow.auto = auto
                for policy in policies:
                    check_left = max(0, self.budget.per_check - run.work)
                    share = self.work.share(min(self.limits.max_work, check_left))
                    try:
                        exact_distribution(rolled, bound, self.ctx._replace(policy=policy, work=share))
                    finally:
                        run.work += share.used
                        self.work.count(share)
        except RulecraftError:
            run.auto_unsure = True
        finally:
            self.tables.restore(saved)
        run.auto_first = shadow.matched

    def _admits(self, run: CheckRun, combo: dict[str, Any], units: float, states: float) -> bool:
        """Whether one combination estimated at `units` and `states` is run; if not, it is left
        out, with the least budget that would let it in (`needed` when it is the first, and
        `needed_all` for every one left out for its cost)."""
        reason = self._over_budget(units, states, run.work)
        if not reason:
            return True
        if self.budget.combination_work is None:
            if states <= self.limits.max_states and units > self.budget.per_combination:
                needed = math.ceil(units) * COMBINATION_SHARE
                if not run.skipped:
                    run.needed = needed
                run.needed_all = max(run.needed_all or 0, needed)
        _leave_out(run, combo, reason)
        run.over_states |= states > self.limits.max_states
        return False

    def _follow(
        self,
        run: CheckRun,
        target: Check,
        policies: tuple[str, ...],
        bound: dict[str, Any],
        env: dict[str, Any],
        combo: dict[str, Any],
        follow: Work | None,
    ) -> Stop | None:
        """Follow one combination's choices under every policy; None when that was done (or a
        roll failed: a failure of the rules, found on followed rolls), else the bound that stopped
        it first, and the caller takes the dice as first rolled (what the policies run before
        found still counts: those rolls were followed). With `follow` (a try), within what it has
        left, and any bound stops it (`Limits.max_states`, the deadline, ...); without (followed
        at once, as cheap), only `Limits.max_states` or `Limits.max_work` (`_FOLLOWING`): any
        other bound leaves the combination out (and None is returned), as it would the dice as
        first rolled."""
        run.probe.first_rolled = False
        for policy in policies:
            run.probe.policy = policy
            try:
                if not self._evaluate(run, target, policy, bound, env, combo, follow, falls_back=True):
                    break
            except _FollowSpent as stopped:
                return stopped.stop
        return None

    def _over_budget(self, units: float, states: float, used: int) -> str:
        """Why one combination estimated at `units` and `states` is left out, when the check's
        evaluations have used `used` units so far; '' when it is not left out."""
        if states > self.limits.max_states:
            return (
                f"about {states:.3g} rolls to enumerate, "
                f"over the exact evaluator's limit of {self.limits.max_states} (Limits.max_states)"
            )
        if units > self.budget.per_combination:
            share = self._share(self.budget.combination_work, "an eightieth")
            return (
                f"about {units:.3g} units of work to enumerate one combination, over the linter's "
                f"{self.budget.per_combination:,} for one combination{share}"
            )
        if used + units > self.budget.per_check:
            share = self._share(self.budget.check_work, "a twentieth").replace(",", ":", 1)
            return f"the linter's budget of {self.budget.per_check:,} units for this check was spent{share}"
        return ""

    def _share(self, given: int | None, fraction: str) -> str:
        """How a share of the budget was come to, when it was (not given on its own): a share of 0
        or 3 units only makes sense next to the budget it is a share of (`--lint-work 1`)."""
        return f", {fraction} of its budget of {self.budget.max_work:,}" if given is None else ""

    def _spent(self) -> str:
        """Why nothing more is analysed when the whole budget is gone (or was 0 from the start)."""
        if self.budget.max_work == 0:
            return "the linter's work budget is 0 units"
        return f"the linter's work budget of {self.budget.max_work:,} units was used up"

    def _late(self) -> str:
        """Why the analysis stops now when the embedder's deadline has passed; '' otherwise."""
        try:
            self.work.check_clock()
        except LimitError:
            deadline = round(self.budget.deadline or 0.0, 2)  # a clock runs only with one: not 4.91066
            return f"the linter's deadline of {deadline:g} s passed"
        return ""

    def _why(self, exc: LimitError) -> str:
        """The reason an evaluation that ran out of the linter's own budget gives."""
        late = self._late()
        if late:
            return late
        if not self.work.left:
            return self._spent()
        return exc.diagnostics[0].message

    def _evaluate(
        self,
        run: CheckRun,
        target: Check,
        policy: str,
        bound: dict[str, Any],
        env: dict[str, Any],
        combo: dict[str, Any],
        follow: Work | None = None,
        *,
        falls_back: bool = False,
    ) -> bool:
        """Enumerate one combination exactly under one policy; False when it could not be, and
        it is left out. With
        `follow` (a try at following), within what it has left too, and `_FollowSpent` when any
        bound stopped it (`spent`: its work, a bound of `Limits`, the deadline): a try is only a
        try, so it leaves nothing out, and the caller takes the dice as first rolled. With
        `falls_back` alone (rerolls followed at once), `_FollowSpent` for a bound of following
        (`_FOLLOWING`)."""
        probe = run.probe
        self.tables.gap = None
        before = set(probe.gaps)
        # one evaluation may use what one request may, and no more than the check and the
        # analysis have left
        check_left = max(0, self.budget.per_check - run.work)
        most = min(self.limits.max_work, check_left)
        share = self.work.share(most if follow is None else min(most, follow.left))
        try:
            weights, total, truncated = exact_distribution(
                target, bound, self.ctx._replace(policy=policy, work=share)
            )
            if truncated > run.truncated[0]:
                run.truncated = (truncated, dict(combo))
        except RulecraftError as exc:
            endless = isinstance(exc, EndlessError) or exc.diagnostics[0].code == "RC507"
            if endless and policy != "never" and target.chooses:
                # every 'may' taken for ever (a reroll chain that returns, or a rule `then: again`
                # that a taken redraw sets off on every attempt): the player's, who may stop, as
                # `optimal` on a chain that returns is no way to play it; `never` tells whether the
                # rules end (hunt 13p: RC507 under `always` was RC808 "always fails" of a check
                # that `never` solves). Said as a note: `always` is the default policy (hunt 13w)
                if policy == "always" and run.endless_always is None:
                    run.endless_always = (exc.diagnostics[0], dict(combo))
                return True
            if policy == "optimal" and exc.diagnostics[0].code in NO_BEST_PLAY:
                # no best play on a chain that returns, nor over attempts a rule rolls again:
                # `optimal` is no way to play it, and `always` and `never` are analysed (a valid
                # check holding both a `may` and a `then: again` failed `validate`: hunt 13j)
                return True
            if not spent(exc):
                # not a roll the probe caught: the evaluation stopped here, and no later roll was seen
                run.cut = True
                probe.failed(exc, env, None, at=self._located(target, env))
                return False
            reason = self._share_spent(exc, share, check_left)
            if follow is not None and share.used > share.limit == follow.left:
                raise _FollowSpent(OVER_SHARE) from exc
            stop = Stop(reason, _limit_named(reason, exc))
            if follow is not None or (falls_back and stop.limit in _FOLLOWING):
                # not only its work: a try stopped by `max_states` had left its combination out,
                # which the dice as first rolled let in (review V, F1); and so does one followed
                # at once, lest more lint work, which makes it cheap, analyse less (review Y, F1)
                raise _FollowSpent(stop) from exc
            _skip(run, combo, stop)
            return False
        finally:
            run.work += share.used
            self.work.count(share)  # the loop stops once nothing is left
            if follow is not None:
                follow.count(share)
        given = {str(o) for o, w in weights.items() if w and isinstance(o, Symbol)}
        run.produced |= given
        if not probe.first_rolled:
            run.produced_followed |= given
        gap_weight = weights.get(GAP, 0)
        if gap_weight:
            for where, example in probe.gaps.items():
                if where not in before and example.probability is None:
                    example.probability = Fraction(gap_weight, total)
        return True

    def _located(self, check: Check, env: dict[str, Any]) -> dict[str, Any] | None:
        """The dice at which an evaluation that stopped (`CheckRun.cut`) met its failure, where the
        code run for each face (a redraw's condition, a later die's faces, `each:`) fails so again,
        for the example to name (hunt 13p: "in check 'k3', no inputs falls through" named no die);
        None where it is not found so. The table calls it makes are real ones: a play makes them."""
        gap = self.tables.gap

        def same(exc: RulecraftError) -> bool:  # the roll without a result the evaluation met
            met = self.tables.gap
            self.tables.gap = None
            return exc.diagnostics[0].code == "RC501" and met == gap

        self.tables.gap = None
        try:
            return None if gap is None else _first_failing(check, env, self.ctx, same)
        except RulecraftError:  # the budget, or another failure: the example names no dice
            return None
        finally:
            self.tables.gap = gap

    def _share_spent(self, exc: LimitError, share: Work, check_left: int) -> str:
        """Why an evaluation stopped: the share it had, named by whose budget it came from."""
        if share.used <= share.limit:  # the clock, or another of the evaluator's limits
            return self._why(exc)
        if share.limit == self.work.left and share.limit < min(self.limits.max_work, check_left):
            return f"the linter's work budget of {self.budget.max_work:,} units was used up"
        if share.limit == check_left and check_left < self.limits.max_work:
            return f"the linter's budget of {self.budget.per_check:,} units for this check was spent"
        return exc.diagnostics[0].message


_FOLLOWING = frozenset({"max_states", "max_work"})
"""The bounds of the embedder's `Limits` that following rerolls at once may meet where the dice
as first rolled do not (a reroll chain's states, an evaluation's work), so that the dice are then
taken as first rolled. The others (`max_pool`, `max_draw`, a redraw's `times` over
`max_rerolls`) bound what the inputs ask, which the dice as first rolled pass as well: the
combination is left out naming that bound."""


class _FollowSpent(Exception):
    """Following a combination's choices was stopped by a bound (`_follow`): a try's work or any
    other, or one of the embedder's `Limits` for choices followed at once."""

    def __init__(self, stop: Stop) -> None:
        super().__init__(stop.reason)
        self.stop = stop


def _roll_names(check: Check) -> list[str]:
    """Inputs and values known before the roll that anything after it reads."""
    known = {spec.name for spec in check.inputs} | {let.name for let in check.pre_lets}
    exprs = check.after_roll_expressions()
    return sorted(known & set().union(*(ast.names(e.node) for e in exprs))) if exprs else []


def _leave_out(run: CheckRun, combo: dict[str, Any], reason: str, exc: LimitError | None = None) -> None:
    """Note `combo` left out for `reason`. When it is the first, and `exc` passed a bound of the
    embedder's `Limits` that `reason` tells in its own words (not the linter's budget or deadline
    said instead), RC809's hint names that bound: `--lint-work` does not raise it."""
    _skip(run, combo, Stop(reason, "" if exc is None else _limit_named(reason, exc)))


def _skip(run: CheckRun, combo: dict[str, Any], stop: Stop) -> None:
    """Note `combo` left out for `stop`, whose bound RC809's hint names when it is the first."""
    if not run.skipped:
        run.limit = stop.limit
    run.skipped.append((combo, stop.reason))


def _limit_named(reason: str, exc: LimitError) -> str:
    """The bound of the embedder's `Limits` that `exc` passed, when `reason` tells it in its own
    words (not the linter's budget or deadline said instead): '' otherwise."""
    d = exc.diagnostics[0]
    a = d.advice
    if reason == d.message and a is not None and a.kind == "limit" and a.name != "deadline":
        return a.name
    return ""


def _no_must(check: Check) -> bool:
    """Whether every reroll and redraw of the check is the player's choice (`may`): then the
    dice as first rolled are what the `never` policy plays."""
    pools = [p for r in check.roll if isinstance(r, Pool) for p in (r, r.own) if p is not None]
    return not any(t.must for p in pools for t in p.triggers) and not any(
        r.redraw is not None and r.redraw.must for r in (*check.roll, *pools)
    )


def _dependent(check: Check) -> bool:
    """Whether some randomizer reads an earlier one (so its dice cannot be taken as first rolled)."""
    names: set[str] = set()
    for r in check.roll:
        if any(ast.names(e.node) & names for e in randomizer_expressions(r)):
            return True
        names.add(r.name)
    return False


def _auto(check: Check, env: dict[str, Any], run: CheckRun, probe: Probe) -> tuple[int | None, Any]:
    """The auto rule that decides this combination and its value (None, None: roll), recording
    every other that matched too (which `first_rule` does not: it stops at the first)."""
    first: int | None = None
    value: Any = None
    for i, rule in enumerate(check.auto):
        try:
            hit = rule.when is None or bool(rule.when.run(env))
        except RulecraftError as exc:
            if spent(exc):
                raise  # not a failure of the rules: the analysis's budget
            if first is None:
                probe.failed(exc, env, None, before=True)
                return None, FAIL
            continue
        if not hit:
            continue
        if first is None:
            first = i
            run.auto_fired.add(i)
            try:
                value = rule.then.run(env)
            except RulecraftError as exc:
                if spent(exc):
                    raise
                probe.failed(exc, env, None, before=True)
                return first, FAIL
        else:
            run.auto_true.setdefault(i, set()).add(first)
    return first, (value if first is not None else None)


_LOCATE = 256
"""At most this many first rolls of the check's dice are tried by `_first_failing`."""


def _first_failing(
    check: Check, env: dict[str, Any], ctx: RunContext, same: Callable[[RulecraftError], bool]
) -> dict[str, Any] | None:
    """The first dice, one die's face after another in the check's order, at which the code run
    for each face fails with a roll without a result that `same` tells is the one met (the same
    table and arguments); None when none is found within `_LOCATE` rolls, or past a pool, a
    draw or a die whose redraws are counted (their values are not single faces)."""
    left = [_LOCATE]

    def fails(run: Callable[..., Any], *args: Any) -> bool:
        try:
            run(*args)
        except EvalError as exc:
            return same(exc)
        return False

    def walk(i: int, scope: dict[str, Any], dice: dict[str, Any]) -> dict[str, Any] | None:
        if i == len(check.roll) or left[0] <= 0:
            return None
        r = check.roll[i]
        try:
            values = randomizer_values(r, scope, ctx)
        except EvalError as exc:
            if not same(exc):
                return None
            face = _each_failing(r, scope, fails) if isinstance(r, Pool) and r.each is not None else None
            if face is not None:  # a die of the pool, read through its `each`
                return {**dice, f"a die of {r.name}": face}
            return dict(dice)  # its faces or its count fail for the dice before it
        if not isinstance(r, Die) or r.counted:
            return None
        for v in values:
            left[0] -= 1
            if left[0] < 0:
                return None
            there = {**scope, r.name: v}
            if r.redraw is not None and redraw_times(r, scope, ctx.limits) > 0:
                if fails(r.redraw.allowed.run, there):  # redrawn or kept: asked of every face
                    return {**dice, r.name: v}
            found = walk(i + 1, there, {**dice, r.name: v})
            if found is not None:
                return found
        return None

    return walk(0, dict(env), {})


def _each_failing(pool: Pool, scope: dict[str, Any], fails: Callable[..., bool]) -> int | None:
    """The first face of `pool` whose reading through its `each` `fails`; None where none does
    (its faces or its count failed instead)."""
    try:
        made = concrete(pool, scope)
    except RulecraftError:
        return None
    return next((f for f in made.faces if fails(reading, made, dict(scope), f)), None)
