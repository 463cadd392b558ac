"""Wording: what the run loop found, as `Diagnostic`s.

Rolls that fall through (RC801), rules that never fire (RC802), outcomes nothing gives or that
never come out (RC803, RC804), failures for an allowed input (RC808) and work left out (RC809).
Every message names an example (inputs, dice, values) that a reader can check by hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ...errors import Advice, Diagnostic, Severity, limit_advice
from ...expr import ast
from ...expr.printer import to_text
from ...frozen import replace
from ...model.ruleset import Check, Pool, Rule, Table
from ...model.values import Multi, Symbol, readable, show
from ...runtime.folds import Summary
from ...syntax.document import Document
from ...syntax.positions import Span
from .budget import DEFAULT_WORK
from .probe import OVER_SHARE, CheckRun, Example
from .static import Bodies, case_entries, tables_reached, walk

_OPAQUE = frozenset({"shift", "majority", "min", "max", "clamp", "highest", "lowest", "best", "worst"})
"""Builtins that can give a scale value no expression names."""


def _tail(run: CheckRun) -> Diagnostic:
    """RC314: an explosion without a cap is exact only to within its reported tail."""
    left, combo = run.truncated
    pool = next(
        (
            r
            for r in run.public.roll
            if isinstance(r, Pool)
            and ((r.cap is None and r.triggers) or (r.own is not None and r.own.cap is None))
        ),
        None,
    )
    return Diagnostic(
        "RC314",
        f"check '{run.check.name}': an explosion without a cap is solved exactly down to a tail; at "
        f"most {readable(left)} of the probability is left out ({_inputs(run.check, combo)}), and "
        "every probability is exact to within it",
        pool.span if pool is not None else run.public.span,
        "nothing to fix: this says how the exact numbers are made; a 'cap' would make them exact "
        "for a game that stops the chain",
        "warning",
    )


def _seen_first_rolled_only(run: CheckRun) -> tuple[str, str] | None:
    """The rules that fired, and the outcomes that came out, only where the dice were taken as
    first rolled: the rolls that the rerolls leave are among the first rolls, so a rule that
    fired on a followed roll fires for certain, and one seen only on first rolls may never fire
    (a die that must reroll its 1s never ends on one): said, with its pronoun; None when there
    are none."""
    probe = run.probe
    rules = sorted(j + 1 for j in probe.fired - probe.fired_followed)
    outcomes = sorted(run.produced - run.produced_followed)
    said = []
    if rules:
        said.append(("rule " if len(rules) == 1 else "rules ") + _and([str(j) for j in rules]) + " fired")
    if outcomes:
        said.append(
            ("outcome " if len(outcomes) == 1 else "outcomes ")
            + _and([f"'{o}'" for o in outcomes])
            + " came out"
        )
    if not said:
        return None
    return " and ".join(said), "it" if len(rules) + len(outcomes) == 1 else "them"


def note(
    message: str,
    span: Span | None,
    over_states: bool = False,
    *,
    limit: str = "",
    given: int | None = None,
    needed: int | None = None,
    needed_all: int | None = None,
    none_run: bool = False,
) -> Diagnostic:
    """RC809: what the linter could not do (`limit`: the example was left out for that bound of
    `Limits`, `max_pool`, `max_work`, ...; else `over_states`: some of it for Limits.max_states,
    as estimated; its own budget raises neither). `given` is the budget it had, `needed` the
    least that lets in the example left out, `needed_all` the least that lets in every
    combination left out for its cost, each on its own (said when it is more: raised to
    `needed`, the check would be cut again at another combination's cost; all of them together
    may still spend the check's share, which is told then), `none_run` that nothing of the check ran: said, so
    that a budget of 1 unit reads as the cause and no finding is taken for a clean bill."""
    had = (
        f"; its budget here was {given:,} unit{'' if given == 1 else 's'} (the default is {DEFAULT_WORK:,})"
        if given is not None
        else ""
    )
    more = f", at least {needed:,} for the combination shown" if needed is not None else ""
    if needed_all is not None and needed_all > (needed or 0):
        every = "every combination left out for its cost"
        more += (
            f" and {needed_all:,} for {every}"
            if needed is not None
            else f", at least {needed_all:,} for {every}"
        )
    covered = (
        "No roll of this check was enumerated, so no gap, failure or rule that never fires can be "
        "reported for it"
        if none_run
        else "Its other findings cover only what it analysed"
    )
    bounds = f"the linter bounds its work on every ruleset, in units counted the same on every machine{had}"
    hint = (
        f"{bounds}. Give it more with `rulecraft validate --lint-work N`{more} (LintBudget(max_work=N) in "
        f"Python). {covered}"
    )
    advice = Advice("lint_work", lead=bounds, note=covered)
    if limit:  # the example's own bound, which the reason shown names
        own = "work budget" if limit == "max_work" else "limits"
        bounds = (
            f"each evaluation the linter runs is bounded by the ruleset's own {own} too "
            f"(Limits.{limit}), as any request is"
        )
        raised = limit_advice(limit)
        hint = f"{bounds}: `--lint-work` does not raise that; {raised['hint']}. {covered}"
        advice = replace(raised["advice"], lead=bounds, note=covered)
    elif over_states:
        bounds = (
            "the linter enumerates no more rolls than the exact evaluator may (Limits.max_states), "
            "and it estimates them before it starts, at their most"
        )
        hint = (
            f"{bounds}: `--lint-work` does not raise that. "
            f"`rulecraft prob` with these inputs shows whether they solve. {covered}"
        )
        advice = Advice("solve", lead=bounds, note=covered)
    return Diagnostic("RC809", message, span, hint, "warning", advice)


def never(
    label: str,
    condition: str | None,
    shadowers: set[int] | None,
    what: str,
    scope: str,
    span: Span | None,
    check: str | None = None,
    table: str | None = None,
    lost: str | None = None,
    tried: int | None = None,
    rows: Sequence[str] | None = None,
    against: str = "the dice faces and the inputs' min and max",
    autos: Sequence[int] = (),
    sure: bool = True,
) -> Diagnostic:
    """RC802: a rule that never fires, because earlier rules decide first or its condition is never
    true. With `tried`, over only that many input combinations, not every allowed one. Rules in
    the wrong order are a warning all the same (the mistake is in their order, not at an input
    the grid left out: `d == 20` after `d + bonus >= 11`, bonus in 0..30); a condition never
    true over part of the grid is a note (`x * 3 == 2001` holds at 667, which the grid may leave
    out), which `--strict` leaves a note. A value table's key has no condition but itself
    (`condition` None): `rows` names its level's keys, the earlier ones that cover it.
    `against` is what a condition never true is to be compared with: what gave the values it
    was tried on. `autos` (indices) are the auto rules that decide first where the condition is
    true (`sure`), or, not `sure`, that decided inputs whose rolls were not all tried: the
    condition is then told never true where the auto rules leave the roll to it."""
    owner = f" of table '{table}'" if table else (f" of check '{check}'" if check else "")
    head = f"{label}{owner}{f' (when {condition})' if condition is not None else ''} never fires"
    row, test = ("rule", "condition") if rows is None else ("case", "key")
    if lost is None:
        tail = ""
    elif tried is None:
        tail = f", so outcome '{lost}' never comes out"
    else:
        tail = f", so outcome '{lost}' came out at none of them"
    earlier = [str(i + 1) if rows is None else rows[i] for i in sorted(shadowers or ()) if i >= 0]
    if earlier:
        who = f"earlier {row} {earlier[0]}" if len(earlier) == 1 else f"earlier {row}s " + _and(earlier)
        decide = "decides" if len(earlier) == 1 else "decide"
        over = f" over the {tried} input combinations tried" if tried is not None else ""
        msg = f"{head}: {who} already {decide} every {what} it matches{over}{tail}"
        hint = (
            f"move it above the {row} that covers it, or narrow that {row}'s {test}; "
            "if it is not needed, remove it"
        )
        return Diagnostic("RC802", msg, span, hint, "warning")
    if autos:
        named = _and([str(i + 1) for i in autos])
        who = f"auto rule {named}" if len(autos) == 1 else f"auto rules {named}"
        over = f" over the {tried} input combinations tried" if tried is not None else ""
        if sure:
            decide = "decides" if len(autos) == 1 else "decide"
            msg = (
                f"{head}: its condition is true only at inputs where {who} already {decide} "
                f"before the roll{over}{tail}"
            )
            hint = (
                "the outcome rules are not tried where an auto rule decides: narrow "
                f"{who}'s condition to leave these rolls to this rule; if it is not needed, remove it"
            )
            return Diagnostic("RC802", msg, span, hint, "warning")
        msg = (
            f"{head}: its condition is never true {scope} where the auto rules leave the roll to it "
            f"({who} {'decides' if len(autos) == 1 else 'decide'} the other inputs first, whose rolls "
            f"were not all tried){tail}"
        )
        hint = (
            f"compare the condition with {against}, and with {who}, under which the outcome rules "
            "are not tried"
        )
        return Diagnostic(
            "RC802",
            msg,
            span,
            hint if tried is None else hint + UNPROVEN,
            "warning" if tried is None else "note",
        )
    said = "its condition is never true" if rows is None else "its key matches none"
    msg = f"{head}: {said} {scope}{tail}"
    hint = f"compare the {test} with {against}"
    if tried is None:
        return Diagnostic("RC802", msg, span, hint, "warning")
    return Diagnostic("RC802", msg, span, hint + UNPROVEN, "note")


UNPROVEN = (
    " (a note, not a warning: the linter ran only some of the allowed input combinations, and it "
    "may be otherwise at one it left out)"
)
"""Said of a condition never true (RC802) and an outcome never reached (RC804) over part of the
inputs' grid: what they say may hold for every allowed input, or fail at one the grid left out
(`x * 3 == 2001` for x in 0..10000), so they are notes, which `--strict` does not make errors."""


def _beyond_the_tail(run: CheckRun, found: list[Diagnostic]) -> list[Diagnostic]:
    """`found` (rules that never fire, outcomes of probability 0) as notes where an explosion
    without a cap was solved down to a tail (RC314): the rolls past it were not followed, and a
    rule or an outcome may be reached there (`d >= 200` of a d6 exploding on 6, about 6^-34 in
    truth, was a warning of probability 0, and failed `--strict`: hunt 13j)."""
    cut = run.truncated[0]
    if not cut:
        return found
    said = (
        f" (a note, not a warning: the rolls past the explosion's tail, at most {readable(cut)} of "
        "the probability, were not followed, and it may be otherwise there)"
    )
    return [
        replace(
            d, message=d.message + " above the explosion's tail", hint=(d.hint or "") + said, severity="note"
        )
        for d in found
    ]


class Report:
    """Words the findings about the checks of one ruleset; positions come from its document."""

    def __init__(
        self, doc: Document, tables: Mapping[str, Table], bodies: Bodies, work: int | None = None
    ) -> None:
        self.doc = doc
        self.tables = tables
        self.bodies = bodies
        self.work = work
        """The linter's budget (`LintBudget.max_work`), said in RC809's hint."""

    def check(self, run: CheckRun) -> list[Diagnostic]:
        """Everything found about one check, in the order it is reported."""
        check, public, probe = run.check, run.public, run.probe
        found = [self._gap(check, where, ex, run.tried) for where, ex in probe.gaps.items()]
        for ex in probe.failures.values():
            d = ex.diagnostic
            assert d is not None
            # every combination allowed was run (more than one: a check with no inputs has one),
            # and each failed here: no min or max avoids it
            every = run.exhaustive and not run.skipped and run.tried > 1 and len(ex.at) == run.tried
            span = d.span if d.span is not None and d.span.line else public.span
            if not check.inputs:  # nothing to narrow: every question asked of the check meets it
                found.append(_unsure(_always(check, ex, d, span), ex))
                continue
            found.append(
                _unsure(
                    d.retold(
                        "RC808",
                        f"check '{check.name}' fails for "
                        + ("every allowed input, e.g. " if every else "an allowed input: ")
                        + f"{situation(check, ex)}: {d.message} ({d.code})",
                        span,
                        "it fails whatever the inputs: correct the expression"
                        if every
                        else "guard the expression (for example with 'if ... else'), "
                        "or narrow the inputs with min and max",
                    ),
                    ex,
                )
            )
        if run.endless_always is not None and not probe.failures:
            found.append(_endless_always(check, public, *run.endless_always))
        if run.truncated[0]:
            found.append(_tail(run))
        if run.skipped:
            combo, reason = run.skipped[0]
            none_run = len(run.skipped) >= run.total
            left = (
                (
                    "was not analysed: its one input combination was left out"
                    if run.total == 1
                    else f"was not analysed: all {run.total} input combinations were left out"
                )
                if none_run
                else f"was not fully analysed: {len(run.skipped)} of {run.total} input combinations "
                "were left out"
            )
            found.append(
                note(
                    f"check '{check.name}' {left}, e.g. {_inputs(check, combo)} ({reason})",
                    public.span,
                    run.over_states,
                    limit=run.limit,
                    given=self.work,
                    needed=run.needed,
                    needed_all=run.needed_all,
                    none_run=none_run and not probe.gaps and not probe.failures,
                )
            )
        if not run.conclusive:
            return found  # RC802-RC804 need the whole picture
        silent, explained = self._silent(run)
        found += _beyond_the_tail(run, silent)
        if probe.gaps:
            return found  # outcomes that the rolls falling through should have had: the gap comes first
        unsure = _seen_first_rolled_only(run)
        if unsure:
            stop = run.unfollowed or OVER_SHARE
            found.append(
                note(
                    f"check '{check.name}': {unsure[0]} only with the dice as first rolled, their "
                    f"rerolls not followed ({stop.reason}), so whether the rerolls ever let "
                    f"{unsure[1]} is not known",
                    public.span,
                    limit=stop.limit,
                )
            )
        return found + _beyond_the_tail(run, self._unproduced(run, explained))

    def _silent(self, run: CheckRun) -> tuple[list[Diagnostic], set[str]]:
        """RC802 for the check's auto and outcome rules, and the outcomes that this explains:
        a rule that never fires and is the only one to give an outcome is one finding, not two."""
        check, public, probe = run.check, run.public, run.probe
        # proven when every combination was run; over part of the grid, a note (`never`)
        tried = None if run.exhaustive else run.tried
        scope = (
            "for any allowed input" if tried is None else f"for any of the {tried} input combinations tried"
        )
        silent: list[tuple[str, Rule, set[int] | None, str, Span | None]] = []
        for j, rule in enumerate(check.auto):
            if rule.when is not None and j not in run.auto_fired:
                silent.append(
                    (f"auto rule {j + 1}", rule, run.auto_true.get(j), "input", public.auto[j].span)
                )
        public_rules = public.outcome if isinstance(public.outcome, tuple) else probe.rules
        for j, rule in enumerate(probe.rules):
            if rule.when is not None and j not in probe.fired:
                silent.append((f"rule {j + 1}", rule, probe.shadowed.get(j), "roll", public_rules[j].span))
        found: list[Diagnostic] = []
        explained: set[str] = set()
        for label, rule, shadowers, what, span in silent:
            assert rule.when is not None
            gives = _named_outcome(rule.then.node, check)
            lost = gives if gives is not None and gives not in run.produced and not probe.gaps else None
            if lost is not None:
                explained.add(lost)
            first, sure = _decided_first(run, label, what, shadowers)
            found.append(
                never(
                    label,
                    to_text(rule.when.node),
                    shadowers,
                    what,
                    scope,
                    span,
                    check=check.name,
                    lost=lost,
                    tried=tried,
                    autos=first,
                    sure=sure,
                )
            )
        return found, explained

    def _unproduced(self, run: CheckRun, explained: set[str]) -> list[Diagnostic]:
        """RC803 (nothing names the outcome) and RC804 (named, but probability 0): one each for a
        few outcomes, and past `ONE_BY_ONE` one for them all, naming the first few (a shared scale
        of 40,000 members made 180,000 notes and 107 MB of `validate`'s output: hunt 13za)."""
        check = run.check
        mentioned, opaque = self._mentions(check)
        unnamed: list[int] = []
        zero: list[int] = []
        for k, member in enumerate(check.outcomes.members):
            if member.name in run.produced or member.name in explained:
                continue
            if member.name not in mentioned and not opaque:  # static: whatever inputs were run
                unnamed.append(k)
            else:  # proven when every combination was run; over part of the grid, a note
                zero.append(k)
        found: list[Diagnostic] = []
        if unnamed:
            found += self._outcomes_told(
                check,
                unnamed,
                "RC803",
                "is declared but nothing gives it",
                "are declared but nothing gives them",
                "no rule, value or table of this check names it; "
                "remove it from the outcomes, or add the rule that gives it",
                "warning",
                "no rule, value or table of this check names them; "
                "remove them from the outcomes, or add the rules that give them",
            )
        if zero:
            every = (
                "for every allowed input"
                if run.exhaustive
                else f"for all {run.tried} input combinations tried"
            )
            hint = (
                "no roll reaches it with these dice and inputs; compare the conditions "
                "that give it with the dice faces and the inputs' min and max"
            )
            hints = (
                "no roll reaches them with these dice and inputs; compare the conditions "
                "that give them with the dice faces and the inputs' min and max"
            )
            found += self._outcomes_told(
                check,
                zero,
                "RC804",
                f"has probability 0 {every}",
                f"have probability 0 {every}",
                hint if run.exhaustive else hint + UNPROVEN,
                "warning" if run.exhaustive else "note",
                hints if run.exhaustive else hints + UNPROVEN,
            )
        return found

    def _outcomes_told(
        self,
        check: Check,
        ks: list[int],
        code: str,
        one: str,
        several: str,
        hint: str,
        severity: Severity,
        hints: str,
    ) -> list[Diagnostic]:
        """A diagnostic for each outcome at `ks`, or where they are more than `ONE_BY_ONE`, one for
        them all at the first, naming `SHOWN` of them and how many more (its hint `hints`)."""
        members = check.outcomes.members
        if len(ks) <= ONE_BY_ONE:
            return [
                Diagnostic(
                    code,
                    f"outcome '{members[k].name}' of check '{check.name}' {one}",
                    self._outcome_span(check, k),
                    hint,
                    severity,
                )
                for k in ks
            ]
        named = ", ".join(f"'{members[k].name}'" for k in ks[:SHOWN])
        said = f"outcomes {named} and {len(ks) - SHOWN:,} more of check '{check.name}' {several}"
        return [Diagnostic(code, said, self._outcome_span(check, ks[0]), hints, severity)]

    def _mentions(self, check: Check) -> tuple[set[str], bool]:
        """Scale names that the check's values, rules and tables name; and whether some
        builtin (shift, majority, best, ...) may compute a value nothing names.

        A bare name that the scope binds (an input, a die, a `let`, an output; a table's
        parameter) reads that value, whatever its spelling, so it names no outcome."""
        bound = {spec.name for spec in check.inputs} | {v.name for v in check.lets}
        bound |= {r.name for r in check.roll} | {name for name, _ in check.outputs}
        groups = [([e.node for _, e in check.expressions()], bound)]
        for t in tables_reached(check, self.bodies):
            cases = [ast.Name(v) for _, v in case_entries(self.doc, t) if isinstance(v, str)]
            groups.append(([*self.bodies[t], *cases], {p for p, _ in self.tables[t].params}))
        names: set[str] = set()
        opaque = any(
            spec.scale is not None and spec.scale.name == check.outcomes.name for spec in check.inputs
        )
        for nodes, scope in groups:
            for n in (n for node in nodes for n in walk(node)):
                if isinstance(n, ast.Sym):
                    names.add(n.name)
                elif isinstance(n, ast.Name) and n.id not in scope:
                    names.add(n.id)
                elif isinstance(n, ast.Call) and n.func in _OPAQUE:
                    opaque = True
        return names, opaque

    def _outcome_span(self, check: Check, k: int) -> Span:
        raw = self.doc.data.get("checks", {}).get(check.name, {}).get("outcomes")
        if isinstance(raw, list):
            return self.doc.span(("checks", check.name, "outcomes", k))
        return self.doc.span(("checks", check.name, "outcomes"))

    def _gap(self, check: Check, where: tuple[str, ...], ex: Example, tried: int) -> Diagnostic:
        """RC801: the first roll found that falls through, in the check's rules or a table's."""
        return _unsure(self._fell_through(check, where, ex, tried), ex)

    def _fell_through(self, check: Check, where: tuple[str, ...], ex: Example, tried: int) -> Diagnostic:
        where_text = situation(check, ex)
        facts = []
        if ex.probability:
            facts.append(f"probability {_frac(ex.probability)} for these inputs")
        if ex.combos > 1:
            facts.append(f"{ex.combos} of {tried} input combinations tried have such rolls")
        if where[0] == "table":
            table = where[1]
            params = [p for p, _ in self.tables[table].params]
            args = ", ".join(f"{p} = {show(v)}" for p, v in zip(params, ex.args or ()))
            spec = self.doc.data.get("tables", {}).get(table, {})
            cases = "cases" in spec
            part = "cases" if cases else "rules"
            tail = f" ({'; '.join(facts)})" if facts else ""
            return Diagnostic(
                "RC801",
                f"table '{table}' has no {'case' if cases else 'rule'} for {args}: "
                f"e.g. in check '{check.name}', {where_text} falls through{tail}",
                self.doc.span(("tables", table, part), key=True),
                f"add {'a case' if cases else 'a rule'} for these values, "
                f"or an 'else' {'case' if cases else 'row'} at the end",
            )
        values = ", ".join(f"{k} = {show(v)}" for k, v in ex.values.items() if _shown(v))
        tail = f" ({'; '.join(([values] if values else []) + facts)})" if values or facts else ""
        return Diagnostic(
            "RC801",
            f"the outcome rules of check '{check.name}' leave rolls without an outcome: "
            f"e.g. {where_text} falls through{tail}",
            self.doc.span(("checks", check.name, "outcome"), key=True),
            "add a rule for these rolls, or an 'else:' row at the end",
        )


ONE_BY_ONE = 10
"""Outcomes of one check told one by one (RC803, RC804); past it, one diagnostic for them all."""
SHOWN = 5
"""Outcomes named in that one diagnostic."""


def _unsure(found: Diagnostic, ex: Example) -> Diagnostic:
    """`found` as it stands, or where it was seen with the dice taken as first rolled, an RC809
    warning: a first roll that a reroll must change may never stand (a die that must reroll its
    1s never ends on a 1), so the linter cannot tell whether it happens, and says so."""
    if not ex.first_rolled:
        return found
    fix = found.hint.rstrip(".") + "; " if found.hint else ""
    return Diagnostic(
        "RC809",
        f"perhaps {found.code}: {found.message}; but a reroll may keep such a roll from standing, "
        "so it may never happen",
        found.span,
        f"if it can happen: {fix}to have the linter follow the rerolls and tell, give it more work: "
        f"`rulecraft validate --lint-work N` (default {DEFAULT_WORK:,}) or LintBudget(max_work=N)",
        "warning",
        Advice("unsure", lead=f"if it can happen: {found.hint.rstrip('.')}" if found.hint else ""),
    )


def _always(check: Check, ex: Example, d: Diagnostic, span: Span | None) -> Diagnostic:
    """RC808 for a check with no inputs: no input narrows it away, so it always fails — on every
    roll when the dice play no part (a pool's count), else on every question of its odds (each
    enumerates the roll that fails) and whenever that roll comes up."""
    where = situation(check, ex)
    if ex.dice is None or where == "no inputs":
        said = f"check '{check.name}' always fails (it has no inputs): {d.message} ({d.code})"
        return d.retold("RC808", said, span, "correct the expression: no input can avoid it")
    dice = where.removesuffix(" with no inputs")
    said = (
        f"check '{check.name}' always fails (it has no inputs, and its odds take in every roll): "
        f"at {dice}, {d.message} ({d.code})"
    )
    hint = "correct the expression, or guard it (for example with 'if ... else') for the rolls that fail"
    return d.retold("RC808", said, span, hint)


def situation(check: Check, ex: Example) -> str:
    """Where something happened, in words: the inputs that differ from their defaults, the dice."""
    inputs = _inputs(check, ex.combo)
    if ex.dice is None:
        return f"{inputs} (before the roll)" if ex.before else inputs
    dice = ", ".join(shown for k, v in ex.dice.items() if (shown := _show_die(k, v)))
    if not dice:
        text = inputs
    elif inputs in ("the default inputs", "no inputs"):
        text = f"{dice} with {inputs}"
    else:
        text = f"{inputs} with {dice}"
    if ex.first_rolled:
        text += " as first rolled (the linter does not follow rerolls for this many dice)"
    elif ex.policy == "never":
        text += " (when the player declines every choice)"
    return text


def _inputs(check: Check, combo: Mapping[str, Any]) -> str:
    shown = [
        f"{s.name} = {show(combo[s.name])}"
        for s in check.inputs
        if s.name in combo and combo[s.name] != s.default
    ]
    return ", ".join(shown) if shown else ("the default inputs" if check.inputs else "no inputs")


def _frac(p: Fraction) -> str:
    if p.denominator == 1:
        return str(p.numerator)
    if p.denominator <= 1000:
        return f"{p.numerator}/{p.denominator}"
    return f"about {float(p):.4g}"


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _decided_first(
    run: CheckRun, label: str, what: str, shadowers: set[int] | None
) -> tuple[list[int], bool]:
    """For an outcome rule (`what` 'roll') that never fired and no earlier rule shadows: the auto
    rules that decide first where its condition is true, and True; or, where the rolls of the
    inputs they decided were not all tried, every auto rule that decided some, and False; else
    none."""
    if what != "roll" or shadowers:
        return [], True
    j = int(label.rpartition(" ")[2]) - 1
    first = sorted(run.auto_first.get(j, ()))
    if first:
        return first, True
    return (sorted(run.auto_fired), False) if run.auto_unsure else ([], True)


def _named_outcome(node: ast.Node, check: Check) -> str | None:
    """The outcome a rule's `then` names outright (`hit` or `'hit'`), if it does."""
    name = node.name if isinstance(node, ast.Sym) else node.id if isinstance(node, ast.Name) else None
    return name if name is not None and name in check.outcomes.names else None


def _show_die(name: str, value: Any) -> str:
    """`tens = 2`, `bag = [red, blue]`, or for a pool the exact evaluator only summarised,
    its statistics: `majority(rolled, ...) = middling`; "" for a summarised pool nothing reads
    (no statistic kept), which the example leaves out."""
    if isinstance(value, Summary):
        if not all(_shown(v) for v in value.results.values()):
            return f"{name} = []"  # only an empty pool's statistics have no value
        return ", ".join(
            f"{key[0]}({name}{', ...' if len(key) > 1 else ''}) = {show(v)}"
            for key, v in value.results.items()
        )
    return f"{name} = {show(value)}" if _shown(value) else f"{name} has no value"


def _shown(value: Any) -> bool:
    """Whether a value is one the language shows (an empty pool's statistic is not)."""
    return isinstance(value, (bool, int, Fraction, Symbol, Multi, tuple, range))


def _endless_always(check: Check, public: Check, d: Diagnostic, combo: Mapping[str, Any]) -> Diagnostic:
    """RC808 as a note: under `always` (every `may` taken) the check never ends with these inputs,
    which is no failure of the check, since the player may stop (`never` ends it), but `roll` and
    `prob` take `always` unless told another policy, and refuse it there (hunt 13w: `validate
    --strict` said ok of a check whose every default roll and `prob` failed)."""
    given = ", ".join(f"{k} = {show(v)}" for k, v in combo.items())
    return Diagnostic(
        "RC808",
        f"check '{check.name}' never ends under the policy 'always' (every 'may' taken)"
        + (f" with {given}" if given else "")
        + f": {d.message} ({d.code})",
        d.span if d.span is not None and d.span.line else public.span,
        "no failure: the player may stop, and under 'never' it ends; but a roll or its odds asked under"
        " 'always', the default, are refused there: ask them under the policy 'never', or give"
        " the reroll a condition some roll escapes (or a cap)",
        "note",
    )
