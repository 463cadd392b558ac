"""Stage 4 — compile, a check's programs: everything after the roll as generated Python.

`Structure` builds a check's parts (its dice, values and outcome) and hands them here; this
module writes the functions both evaluators run — the whole program, the outcome's own program,
loop and per-group pass for the exact evaluator, the roller for the sampler, each value's own
loop — and the keys by which the die-by-die evaluation merges states (`own_keys`,
`stage_keys`). It shares the compile's `Unit` and `Expressions`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..errors import RulecraftError
from ..expr import ast
from ..expr.printer import to_text
from ..frozen import frozen
from ..model import types as T
from ..model.ruleset import (
    Die,
    Expr,
    Let,
    Pool,
    Randomizer,
    Rule,
    after_roll_expressions,
    counts_redraws,
    randomizer_expressions,
)
from ..runtime.bounds import TOO_BIG
from ..runtime.work import code_units
from ..syntax.positions import Span
from .expressions import ENV_READ, Expressions, Inlined, chain, located
from .problems import Problem, Reported
from .unit import Unit

__all__ = ["Programs", "ProgramWriter"]


@frozen
class Programs:
    """A check's generated functions and what they may charge (see `ProgramWriter.program`)."""

    program: Callable[..., tuple[Any, ...]]
    outcome_program: Callable[..., Any]
    outcome_loop: Callable[..., None] | None
    outcome_stages: Any
    roller: Callable[..., tuple[Any, ...]] | None
    roller_units: int
    outcome_units: int
    value_loops: dict[str, tuple[Callable[..., None], int]]
    outcome_total: bool = False
    code_units: int = 0


class ProgramWriter:
    """Writes a check's programs into the compile's `Unit`, lowering expressions through its
    `Expressions`."""

    def __init__(self, unit: Unit, exprs: Expressions) -> None:
        self.unit = unit
        self.exprs = exprs

    def program(
        self,
        name: str,
        scope: Mapping[str, T.Type],
        out_t: T.Type,
        roll: Sequence[Randomizer],
        post: list[Let],
        outcome: Expr | tuple[Rule, ...],
        outputs: list[tuple[str, Expr]],
        pre: list[str] | None,
        sized: Mapping[str, int] | None = None,
    ) -> Programs:
        """One Python function for everything after the roll, shared by sampler and exact; the
        same statements cut down to what the outcome needs (`Check.outcome_program`,
        `Check.outcome_loop`, `Check.outcome_stages`) for the exact evaluator; and, when every
        randomizer is a plain die (`pre`: the names of the values known before the roll), the
        same statements after the dice drawn (`Check.roller`), for the sampler.

        `program(env, *dice)` returns (outcome, index of the rule that fired or -1, each
        after-roll value, each output) — see `Check.layout`. `outcome_program`, with the same
        arguments, runs only the named values the outcome reads (directly or through other
        values) and returns the outcome alone: the exact evaluator's outcome pass, which need not
        work out outputs and values nobody asked for. `roller(env, draw)` draws each die's face as
        `faces[draw(len(faces))]` in roll order and returns (outcome, rule index, the dice by
        name, each die's faces taken by name, every named value by name). Then the most work
        units one run of the roller can charge (its table calls; 0 without a roller), and the
        most the outcome's statements can charge for one combination (`Check.outcome_units`);
        last, each named value's own loop (`Check.value_loops`). All as one `Programs`.
        """
        dice = [r.name for r in roll]
        saved = self.unit.locals
        self.unit.locals = set(dice) | {let.name for let in post} | {"outcome"} | {n for n, _ in outputs}
        self.unit.counted.append(0)  # the table units one run can charge
        full = dict(scope)
        full["outcome"] = out_t
        # a die of constant whole faces is at most its largest face in everything written here, a
        # whole-number input its bounds' size (`sized`), a named value what its expression can be
        sizes = dict(sized or {})
        for r in roll:
            if (
                isinstance(r, Die)
                and r.faces_expr is None
                and r.faces
                and all(type(f) is int for f in r.faces)
            ):
                sizes[r.name] = max(abs(f) for f in r.faces)
        self.exprs.bounded(full, sizes)
        try:
            fast: dict[str, Inlined] = {}  # by target: a plain table's body to write in place of its call

            def guarded(target: str, node: ast.Node, expect: T.Type | None) -> list[str]:
                """An assignment whose errors are placed at its own expression (free until raised)."""
                called, inline = self.exprs.assign(target, node, full, expect)
                if inline is not None:
                    fast[target] = inline
                return called

            counted = self.unit.counted
            let_lines = []
            let_units: dict[str, int] = {}  # the table units each value's statements can charge
            for let in post:
                before = counted[-1]
                let_lines.append((let, guarded(f"v_{let.name}", let.expr.node, None)))
                let_units[let.name] = counted[-1] - before
                size = self.exprs.size_bound(let.expr.node, full)
                if size is not None and size < TOO_BIG:  # a whole number this small, read after
                    sizes[let.name] = size  # (its sums and products need no check: `_bound`)
            before = counted[-1]
            unmatched = False  # a rule list with no 'else': its message shows every die
            nomatch: list[str] = []
            parts: list[tuple[str | None, str]] | None = None  # the outcome's rows
            spans: list[tuple[str, str]] = []  # each row's condition's and result's span
            if isinstance(outcome, Expr):
                decide = [*guarded("v_outcome", outcome.node, out_t), "rule = -1"]
                read = set(ast.names(outcome.node))
            else:
                span = self.unit.emit.const(outcome[0].span if outcome else None)
                shown = ", ".join(f"({d!r}, v_{d})" for d in dice)
                nomatch = [f"raise _nomatch({span}, 'outcome rule', _show(env, {shown}))"]
                parts = self.exprs.rule_parts(outcome, full, out_t)
                decide = chain(parts, lambda i, then: [f"v_outcome = {then}", f"rule = {i}"], nomatch)
                const = self.unit.emit.const
                spans = [
                    (const(r.when.node.span if r.when is not None else None), const(r.then.node.span))
                    for r in outcome
                ]
                decide = located(decide, parts, spans)
                read = set().union(*(ast.names(e.node) for r in outcome for e in (r.when, r.then) if e))
                unmatched = not outcome or outcome[-1].when is not None
            decided_by = set(read)
            decide_units = counted[-1] - before
            lines = [line for _, block in let_lines for line in block] + decide
            for n, e in outputs:
                lines += guarded(f"v_{n}", e.node, None)
                full[n] = e.type  # later outputs may use earlier ones
            names = [let.name for let in post] + [n for n, _ in outputs]
            body = [*lines, "return (v_outcome, rule, " + "".join(f"v_{n}, " for n in names) + ")"]
            for let, _ in reversed(let_lines):  # the values the outcome reads, through each other
                if let.name in read:
                    read |= ast.names(let.expr.node)
            needed = [(let, block) for let, block in let_lines if let.name in read]
            types = {**full, **{let.name: let.expr.type for let in post}}
            total = all(_total(let.expr.node, types) for let, _ in needed) and (
                _total(outcome.node, types)
                if isinstance(outcome, Expr)
                else not unmatched
                and all(_total(e.node, types) for r in outcome for e in (r.when, r.then) if e is not None)
            )
            short = [line for _, block in needed for line in block]
            let_nodes = {let.name: ast.size(let.expr.node) for let in post}
            decide_nodes = (
                ast.size(outcome.node)
                if isinstance(outcome, Expr)
                else sum(ast.size(e.node) for r in outcome for e in (r.when, r.then) if e is not None)
            )
            # the size of the code charged with the table calls it can make (`Check.code_units`)
            outcome_units = (
                decide_units
                + sum(let_units[let.name] for let, _ in needed)
                + code_units(decide_nodes + sum(let_nodes[let.name] for let, _ in needed))
            )
            whole_units = code_units(
                decide_nodes + sum(let_nodes.values()) + sum(ast.size(e.node) for _, e in outputs)
            )
            short += [*decide, "return v_outcome"]
            where = self.unit.doc.span(("checks", name), key=True)
            params = ["env", *(f"v_{d}" for d in dice)]
            emit = self.unit.emit
            loop = None
            value_loops: dict[str, tuple[Callable[..., None], int]] = {}
            quick = [
                (
                    let,
                    fast[f"v_{let.name}"].lines(_assigned(f"v_{let.name}"))
                    if f"v_{let.name}" in fast
                    else block,
                )
                for let, block in needed
            ]
            inlined = fast.get("v_outcome") if isinstance(outcome, Expr) else None
            fast_decide = decide if inlined is None else inlined.lines(_assigned("v_outcome"))
            rows = parts if inlined is None else list(inlined.rows)
            tally: tuple[list[str], list[str]] | None = None
            if self.unit.inline and rows and all(_CONSTANT.fullmatch(then) for _, then in rows):
                # each row's result is one outcome: its weight is counted in a local, not in `_out`
                fast_decide = (
                    inlined.lines(_counted)
                    if inlined is not None
                    else located(chain(rows, _counted, nomatch), rows, spans)
                )
                tally = (
                    [" = ".join(f"_c{i}" for i in range(len(rows))) + " = 0"],
                    [
                        x
                        for i, (_, then) in enumerate(rows)
                        for x in (f"if _c{i}:", f"    _out[{then}] += _c{i}")
                    ],
                )
            if 0 < len(dice) <= MAX_LOOP_DEPTH:
                tables = ["env", "_out", *(f"_p{i}" for i in range(len(dice)))]
                looped = _two_forms(
                    _outcome_loop(dice, needed, decide), _outcome_loop(dice, quick, fast_decide, tally=tally)
                )
                loop = emit.function(f"outcomes_{name}", tables, _hoisted(looped), where)
                read_by = {let.name: ast.names(let.expr.node) for let, _ in let_lines}
                sources = []  # every value's loop charged before any is compiled (`Emitter.source`)
                for let, _ in let_lines:  # each named value alone, through the values it reads
                    if emit.passed is not None:  # no more code is made: none to write
                        break
                    reads = {let.name}
                    for other, _ in reversed(let_lines):
                        if other.name in reads:
                            reads |= read_by[other.name]
                    mine = [(x, block) for x, block in let_lines if x.name in reads]
                    fn = f"value_{name}_{let.name}"
                    text = emit.source(fn, tables, _hoisted(_outcome_loop(dice, mine, [], let.name)), where)
                    units = sum(let_units[x.name] for x, _ in mine)  # its table calls at their most
                    sources.append((let.name, fn, text, units))
                for value, fn, text, units in sources:
                    value_loops[value] = (emit.define(fn, text), units)
            program = emit.function(f"check_{name}", params, body, where)
            outcome_program = emit.function(f"outcome_{name}", params, short, where)
            staged = self._staged(
                name, dice, (needed, decide, quick, fast_decide), decided_by, unmatched, where, tally
            )
            if pre is None:
                return Programs(
                    program,
                    outcome_program,
                    loop,
                    staged,
                    None,
                    0,
                    outcome_units,
                    value_loops,
                    total,
                    whole_units,
                )
            draws = [
                f"v_{r.name} = {emit.const(r.faces)}[draw({len(r.faces)})]"
                for r in roll
                if isinstance(r, Die)
            ]
            # the keys are names the grammar checked as identifiers (as the `v_` locals are), so
            # they are written as literals: a dict of constant keys is built in one step
            rolled = ", ".join(f"{d!r}: v_{d}" for d in dice)
            drawn = ", ".join(f"{d!r}: (v_{d},)" for d in dice)
            values = [f"{n!r}: env[{n!r}]" for n in pre]
            values += [f"{n!r}: v_{n}" for n in names]
            back = f"return (v_outcome, rule, {{{rolled}}}, {{{drawn}}}, {{{', '.join(values)}}})"
            roller = emit.function(f"roll_{name}", ["env", "draw"], [*draws, *lines, back], where)
            return Programs(
                program,
                outcome_program,
                loop,
                staged,
                roller,
                self.unit.counted[-1],
                outcome_units,
                value_loops,
                total,
                whole_units,
            )
        finally:
            self.exprs.unbounded(full)
            self.unit.locals = saved
            self.unit.counted.pop()

    def _staged(
        self,
        name: str,
        dice: list[str],
        forms: tuple[list[tuple[Let, list[str]]], list[str], list[tuple[Let, list[str]]], list[str]],
        decided_by: set[str],
        unmatched: bool,
        where: Span | None,
        tally: tuple[list[str], list[str]] | None,
    ) -> tuple[Callable[..., tuple[Any, ...]], Callable[..., None]] | None:
        """`Check.outcome_stages`: the values the outcome reads that depend on the dice alone
        (no input, no value known before the roll), split off from the rest, or None when the
        outcome reads none. Whatever the inputs, the same dice give them the same values, so the
        exact evaluator works them out once per check and merges the combinations of dice that
        agree on what the rest reads (`stage`); the rest runs per request over those groups.
        `forms`: the values' statements and the outcome's, then the same with plain tables'
        bodies in place of their calls, for the rest's unmetered pass (`_two_forms`), which counts
        each row's weight in a local when `tally` is given (see `_outcome_loop`)."""
        lets, decide, quick, fast_decide = forms
        alone: set[str] = set(dice)
        for let, _ in lets:
            # `redraws(d)` reads the count the environment carries beside the die, not the die
            # (hunt 13z: a stage reading it had no `env`, a NameError at the second request)
            if ast.names(let.expr.node) <= alone and not counted_randomizers([let.expr.node]):
                alone.add(let.name)
        early = [(let, block) for let, block in lets if let.name in alone]
        if not early:
            return None
        rest = [(let, block) for let, block in lets if let.name not in alone]
        reads = set(decided_by).union(*(ast.names(let.expr.node) for let, _ in rest))
        live = [d for d in dice if d in reads or unmatched] + [
            let.name for let, _ in early if let.name in reads
        ]
        if not live:
            return None
        emit = self.unit.emit
        values = "(" + "".join(f"v_{n}, " for n in live) + ")"
        stage = emit.function(
            f"stage_{name}",
            [f"v_{d}" for d in dice],
            [line for _, b in early for line in b] + [f"return {values}"],
            where,
        )

        def over_groups(
            blocks: list[tuple[Let, list[str]]], decide: list[str], tally: tuple[list[str], list[str]] | None
        ) -> list[str]:
            body = [*tally[0]] if tally else ["_get = _out.get"]
            body.append(f"for {values}, _wt in _staged:")
            body += ["    " + line for let, b in blocks if let.name not in alone for line in b]
            body += ["    " + line for line in decide]
            if tally:
                return body + tally[1]
            return [*body, "    _out[v_outcome] = _get(v_outcome, 0) + _wt"]

        body = _two_forms(over_groups(lets, decide, None), over_groups(quick, fast_decide, tally))
        return stage, emit.function(f"staged_{name}", ["env", "_out", "_staged"], _hoisted(body), where)

    def own_keys(
        self,
        name: str,
        scope: Mapping[str, T.Type],
        out_t: T.Type,
        roll: Sequence[Randomizer],
        post: list[Let],
        outcome: Expr | tuple[Rule, ...],
        outputs: list[tuple[str, Expr]],
    ) -> tuple[
        tuple[tuple[Callable[..., tuple[Any, ...]], tuple[str, ...]] | None, ...] | None,
        list[set[str] | None],
    ]:
        """`Check.own_keys` of a sequential check: for each randomizer whose value the check reads
        only through parts that read nothing else but inputs and values known before the roll
        (`keep(bag, level)`, `count(p) > 0`), a function of (env, its value) giving those parts,
        with the names of what they read besides the value. Values with equal parts are read
        alike everywhere, so the exact evaluator keeps one of them with their weights summed:
        it enumerates what the check reads, not every draw. None for a randomizer read whole
        somewhere (or with triggers: its value carries its history, or when the outcome's
        message on no match shows every die), and when no randomizer has one. Second, the text
        of each key's parts (None where there is no key), which `_stage_keys` compares with."""
        dice = [r.name for r in roll]
        lets = {let.name for let in post}
        env_names = set(scope) - set(dice) - lets - {n for n, _ in outputs} - {"outcome"}
        texts: list[set[str] | None] = [None] * len(roll)
        if not isinstance(outcome, Expr) and (not outcome or outcome[-1].when is not None):
            return None, texts  # the outcome's message on no match shows every die as drawn
        readers = after_roll_expressions(roll, post, outcome, outputs)
        full = dict(scope)
        full["outcome"] = out_t
        saved = self.unit.locals
        self.unit.counted.append(0)
        made: list[tuple[Callable[..., tuple[Any, ...]], tuple[str, ...]] | None] = []
        try:
            for r in roll:
                self.unit.locals = {r.name}
                parts: dict[str, str] = {}
                reads: set[str] = set()
                whole = isinstance(r, Pool) and bool(r.triggers)
                for expr in readers:
                    if whole:
                        break
                    for node in _largest_known(expr.node, env_names | {r.name}, {r.name}, first=True):
                        if isinstance(node, ast.Name):
                            whole = True  # read whole: no two values are alike
                            break
                        text = to_text(node)
                        if text not in parts:
                            try:
                                parts[text] = self.exprs.lower_checked(node, full, None)
                            except (Problem, Reported, RulecraftError):
                                whole = True
                                break
                            reads |= ast.names(node) - {r.name}
                if whole or not parts:
                    made.append(None)
                    continue
                body = ["return (" + "".join(f"{p}, " for p in parts.values()) + ")"]
                where = self.unit.doc.span(("checks", name), key=True)
                fn = self.unit.emit.function(f"own_{name}_{r.name}", ["env", f"v_{r.name}"], body, where)
                made.append((fn, tuple(sorted(reads))))
                texts[len(made) - 1] = set(parts)
        finally:
            self.unit.locals = saved
            self.unit.counted.pop()
        return (tuple(made) if any(m is not None for m in made) else None), texts

    def stage_keys(
        self,
        name: str,
        scope: Mapping[str, T.Type],
        out_t: T.Type,
        roll: Sequence[Randomizer],
        post: list[Let],
        outcome: Expr | tuple[Rule, ...],
        outputs: list[tuple[str, Expr]],
        own_parts: list[set[str] | None],
    ) -> tuple[Callable[..., tuple[Any, ...]] | None, ...] | None:
        """`Check.stage_keys` of a sequential check: after each randomizer but the last, what the
        rest of the check reads of the dice so far. The parts: each value that needs only those
        dice; each largest part of a later expression (a later randomizer's count, faces, `each`,
        triggers or redraw, a value, the outcome, an output) that reads them and nothing still
        unknown; a die itself where only a whole read of it will do. Two rolls with equal keys
        finish the check alike, so the exact evaluator finishes it once per key. A part that
        cannot be compiled alone gives the dice it reads instead; an error while a key is worked
        out makes the evaluator keep those dice apart (see `exact.Sequential.stage_key`), so the
        evaluation fails as it did without keys. A stage's key is None where its parts are just
        the `own_parts` of its dice (their own keys' parts): values merged by those are told
        apart by it already, so the dice themselves serve. None when no stage has a key."""
        dice = [r.name for r in roll]
        if len(dice) < 2:
            return None
        lets = {let.name: let for let in post}
        later_names = set(lets) | {n for n, _ in outputs} | {"outcome"}
        env_names = set(scope) - set(dice) - later_names
        unmatched = not isinstance(outcome, Expr) and (not outcome or outcome[-1].when is not None)
        full = dict(scope)
        full["outcome"] = out_t
        emit = self.unit.emit
        saved = self.unit.locals
        self.unit.locals = set(dice) | set(lets)
        self.unit.counted.append(0)
        made: list[Callable[..., tuple[Any, ...]] | None] = []
        try:
            for i in range(len(dice) - 1):
                known = set(dice[: i + 1])
                ready: list[Let] = []  # the values that need only the dice so far, in order
                for let in post:
                    if ast.names(let.expr.node) <= env_names | known:
                        ready.append(let)
                        known.add(let.name)
                readers = [e for r in roll[i + 1 :] for e in randomizer_expressions(r)]
                readers += [let.expr for let in post if let.name not in known]
                readers += (
                    [e for rule in outcome for e in (rule.when, rule.then) if e]
                    if not isinstance(outcome, Expr)
                    else [outcome]
                )
                readers += [e for _, e in outputs]
                parts: dict[str, str] = {}  # the source of each part, by its text
                counts: set[str] = set()  # the parts that are counts of redraws, by their text
                covered = {let.expr.node for let in ready}
                raw = set(dice[: i + 1]) if unmatched else set()  # its message shows every die
                for expr in readers:
                    for node in _largest_known(expr.node, env_names | known, known):
                        if _through(node, covered, set(dice)):
                            continue  # reads the dice only through values that are parts already
                        text = to_text(node)
                        if text in parts:
                            continue
                        if isinstance(node, ast.Name):
                            raw.add(node.id)
                            continue
                        if _counts(node):
                            counts.add(text)
                        try:
                            parts[text] = self.exprs.lower_checked(node, full, None)
                        except (Problem, Reported, RulecraftError):
                            raw |= ast.names(node) & set(dice)
                values = [f"v_{let.name}" for let in ready] + [f"v_{d}" for d in dice if d in raw]
                values += list(parts.values())
                own = [o for o in own_parts[: i + 1] if o is not None]
                if not raw and len(own) == i + 1:
                    # a count of redraws is carried with its die's value (`Redrawn`) among the dice
                    if {to_text(let.expr.node) for let in ready} | (set(parts) - counts) == set().union(*own):
                        made.append(None)  # the dice's own keys, no more: nothing left to merge
                        continue
                body = [
                    f"v_{let.name} = {self.exprs.lower_checked(let.expr.node, full, None)}" for let in ready
                ]
                body.append("return (" + "".join(f"{v}, " for v in values) + ")")
                where = self.unit.doc.span(("checks", name), key=True)
                made.append(
                    emit.function(f"key_{name}_{i}", ["env", *(f"v_{d}" for d in dice[: i + 1])], body, where)
                )
        except (Problem, Reported, RulecraftError):
            return None
        finally:
            self.unit.locals = saved
            self.unit.counted.pop()
        return tuple(made) if any(m is not None for m in made) else None


def _largest_known(node: ast.Node, known: set[str], dice: set[str], first: bool = False) -> list[ast.Node]:
    """The largest parts of `node` that read only names in `known` and at least one in `dice`.
    `first`: parts of the values the dice were first rolled, which `redraws(x)` does not read
    (it reads how often x was redrawn): it is then no part, and a part holds none."""
    if first and _counts(node):
        return []
    names = ast.names(node)
    if not names & dice:
        return []
    if names <= known and not (first and counted_randomizers([node])):
        return [node]
    return [part for child in ast.children(node) for part in _largest_known(child, known, dice, first)]


def _counts(node: ast.Node) -> bool:
    return counts_redraws(node) is not None


def counted_randomizers(nodes: Iterable[ast.Node]) -> set[str]:
    """The randomizers whose redraws these expressions count (`redraws(x)`, anywhere in them)."""
    found: set[str] = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        name = counts_redraws(node)
        if name is not None:
            found.add(name)
        stack.extend(ast.children(node))
    return found


def _through(node: ast.Node, covered: set[ast.Node], dice: set[str]) -> bool:
    """Whether `node` reads `dice` only inside parts equal to one of `covered` (spans aside)."""
    if node in covered:
        return True
    if isinstance(node, ast.Name):
        return node.id not in dice
    return all(_through(child, covered, dice) for child in ast.children(node))


MAX_LOOP_DEPTH = 6
"""Randomizers a check's outcome loop nests at most (Python allows about twenty nested blocks);
a check with more is run through `Check.outcome_program` once per combination instead."""


def _total(node: ast.Node, types: Mapping[str, T.Type]) -> bool:
    """Whether working out `node` can never raise, whatever the dice and inputs: constants, names,
    `+` and `-` of numbers, `==`/`!=` of anything, an order of numbers, `and`/`or`/`not` and
    `if`/`else` of such. A call (a table's lookup may fail, or charge), a product, a quotient
    or a power (bounded: it may be refused), `in`, a list, a range, and an order of scale values (two
    scales' values do not order) are not (`Check.outcome_total`)."""
    match node:
        case ast.Num() | ast.Bool() | ast.Sym() | ast.Name():
            return True
        case ast.Compare(op=op, left=left, right=right):
            if op in ("==", "!="):
                return _total(left, types) and _total(right, types)
            return op in ("<", "<=", ">", ">=") and _number(left, types) and _number(right, types)
        case ast.Logic(left=left, right=right):
            return _total(left, types) and _total(right, types)
        case ast.Not(operand=operand):
            return _total(operand, types)
        case ast.Cond(then=then, test=test, other=other):
            return _total(test, types) and _total(then, types) and _total(other, types)
        case _:
            return _number(node, types)


def _number(node: ast.Node, types: Mapping[str, T.Type]) -> bool:
    """Whether `node` is surely a number (whole or a fraction) worked out without raising."""
    match node:
        case ast.Num():
            return True
        case ast.Name(id=name):
            found = types.get(name)
            return found is not None and found.kind == "num"
        case ast.Unary(operand=operand):
            return _number(operand, types)
        case ast.Binary(op=op, left=left, right=right):
            return op in ("+", "-") and _number(left, types) and _number(right, types)
        case ast.Cond(then=then, test=test, other=other):
            return _total(test, types) and _number(then, types) and _number(other, types)
        case _:
            return False


def _two_forms(metered: list[str], inline: list[str]) -> list[str]:
    """A loop's body twice: as written, with its table calls (each charging the request's work
    counter), when a counter is set; else with the plain tables' bodies in place of their calls
    (and the outcome's weights counted in locals: `_outcome_loop`'s `tally`).
    The evaluator runs a loop with no counter set only when it has charged the loop's table calls
    before, at their most (`Check.outcome_units`), and the charge could not reach the point where
    the counter looks at the clock (`runtime.work.CLOCK_EVERY`); otherwise the calls meter as
    they go, as they always did. Once only when no call was replaced."""
    if inline == metered:
        return metered
    return ["if _work() is not None:", *("    " + line for line in metered), "    return", *inline]


def _hoisted(body: list[str]) -> list[str]:
    """`body` with each `env[...]` read made once, before the loops: a loop assigns locals only,
    so what it reads of `env` (inputs, values known before the roll) cannot change inside it.
    Generated code reads `env` only as `env['<name>']` (`Expressions._name`), a name the grammar
    checked as an identifier."""
    names = sorted(set(ENV_READ.findall("\n".join(body))))
    if not names:
        return body
    reads = [f"_e_{key[1:-1]} = env[{key}]" for key in names]
    return reads + [ENV_READ.sub(lambda m: f"_e_{m.group(1)[1:-1]}", line) for line in body]


def _assigned(target: str) -> Callable[[int, str], list[str]]:
    """What a row of an inlined table does with its result: assign it to `target`."""
    return lambda _, then: [f"{target} = {then}"]


def _counted(i: int, then: str) -> list[str]:
    """What row `i` of the outcome does in a loop that counts weights (`_outcome_loop`'s `tally`):
    add the combination's weight `_wt` to its own counter, the outcome put in `_out` the first
    time (so `_out` lists the outcomes in the order the loop meets them, as it did)."""
    return [f"if not _c{i}:", f"    _out.setdefault({then}, 0)", f"_c{i} += _wt"]


_CONSTANT = re.compile(r"_k[0-9]+")
"""A value generated code reads from the emitter's constants (`codegen.Emitter.const`)."""


def _outcome_loop(
    dice: list[str],
    lets: list[tuple[Let, list[str]]],
    decide: list[str],
    result: str = "outcome",
    tally: tuple[list[str], list[str]] | None = None,
) -> list[str]:
    """The body of `Check.outcome_loop`: one loop per randomizer, nested in roll order, each named
    value worked out in the loop of the last die it reads (once per value of the dice before it,
    not once per combination), the outcome's weight added up in `_out` — no call per state.
    With `result` another name than the outcome: that named value's weights (`Check.value_loops`).
    With `tally` (the counters set to 0, and their sums put in `_out`), `decide` counts each
    combination's weight `_wt` itself (`_counted`), one local per row of the outcome, which
    costs less than a look-up in `_out` per combination."""
    depth: dict[str, int] = {d: i for i, d in enumerate(dice)}
    placed: list[list[str]] = [[] for _ in dice]
    for let, block in lets:  # in dependency order: what a value reads is placed already
        level = max((depth[n] for n in ast.names(let.expr.node) if n in depth), default=len(dice) - 1)
        depth[let.name] = level
        placed[level] += block
    lines = [*tally[0]] if tally else ["_get = _out.get"]
    indent = ""
    for i, d in enumerate(dice):
        lines.append(f"{indent}for v_{d}, _w in _p{i}:")
        indent += "    "
        weight = "_wt" if i == len(dice) - 1 else f"_w{i}"
        lines.append(f"{indent}{weight} = _w" if i == 0 else f"{indent}{weight} = _w{i - 1} * _w")
        lines += [indent + line for line in placed[i]]
    lines += [indent + line for line in decide]
    if tally:
        return lines + tally[1]
    lines.append(f"{indent}_out[v_{result}] = _get(v_{result}, 0) + _wt")
    return lines
