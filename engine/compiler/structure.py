"""Stage 4 — compile: a schema-valid document to the frozen `RulesetModel`.

Here the ruleset's structure is built — scales, bags, checks with their inputs, dice and
examples — and the values of a check are split into those known before the roll and those
that need dice. Expressions and tables are compiled by `expressions.Expressions`, which
`Structure` holds and shares one `Unit` with. Problems are collected (one per faulty
statement) and raised together as a `CompileError`.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from fractions import Fraction
from typing import Any

from ..errors import (
    MAX_DIGITS,
    PROBABILITY_HINT,
    CompileError,
    Diagnostic,
    ExprSyntaxError,
    InputError,
    LimitError,
    RulecraftError,
    clipped,
    did_you_mean,
    shown,
)
from ..expr import ast
from ..expr.parser import KEYWORDS
from ..frozen import FrozenDict, replace
from ..graph import circle_text, postorder
from ..model import types as T
from ..model.objective import Objective
from ..model.ruleset import (
    AGAIN,
    ROLLED,
    Bag,
    Check,
    Die,
    Draw,
    Example,
    Expectation,
    Expr,
    InputSpec,
    Let,
    Note,
    Pool,
    Randomizer,
    Rule,
    RulesetModel,
    Scale,
    after_roll_expressions,
    chains_without_end,
    counts_redraws,
)
from ..model.values import Symbol
from ..runtime.bounds import TOO_BIG
from ..runtime.builtins import HISTORY, library
from ..runtime.context import new_work
from ..runtime.folds import FOLDS, SUMMED, keeps
from ..runtime.inputs import as_written, coerce, digits_over, parse_number
from ..runtime.kinds import Use, type_of, vague
from ..runtime.limits import DEFAULT_LIMITS, Limits
from ..runtime.rules import counting
from ..runtime.work import Work, working
from ..syntax.clock import Clock
from ..syntax.document import YAML11_HINT, YAML11_SAID, Document, PathKey
from ..syntax.input_keys import LIST_INPUT_KEYS, input_takes
from ..syntax.positions import Span
from .codegen import CLOCK_CODE
from .expected import expected_value
from .expressions import BeforeTheRoll, Expressions, OutputScope
from .given import Missing, forced_dice, given_values, written_exactly
from .problems import Apart, Problem, UnknownName, example_key, known_if_failing, once, problem, statement
from .programs import ProgramWriter, counted_randomizers
from .randomizers import RandomizerCompiler
from .unit import Unit
from .version import check_version

__all__ = ["RESERVED", "Structure", "compile_document"]

LIMIT_CODES = frozenset({"RC202", "RC503"})
"""The codes of a bound passed while a ruleset compiles: an expression too large or too deep, a
number too long, `Limits.max_code`, a constant size or the work of folding constants. A ruleset
whose every problem is one of them is refused with a `LimitError`."""


WHOLE_LOAD_BOUNDS = frozenset({"max_code", "max_work", "deadline"})
"""Bounds of the load as a whole (the code it writes; the work and time of folding its constants):
once passed, everything after passes them too, so each is said once (`_whole_load_once`)."""


def _place(d: Diagnostic) -> tuple[str, int, int]:
    """Where a diagnostic is, to order a load's by (one with no place first)."""
    return (d.span.file, d.span.line, d.span.col) if d.span is not None else ("", 0, 0)


def _whole_load_once(found: list[Diagnostic]) -> list[Diagnostic]:
    """`found` with each bound of the whole load said once, where it was first passed."""
    said: set[str] = set()
    out = []
    for d in found:
        bound = d.advice.name if d.advice is not None and d.advice.kind == "limit" else None
        if bound in WHOLE_LOAD_BOUNDS:
            if bound in said:
                continue
            said.add(bound)
        out.append(d)
    return out


RESERVED = frozenset({*KEYWORDS, "outcome", "face"})
"""The words no input, named value, die or member may be: the language's (`parser.KEYWORDS`),
and the names every check's own expressions read."""


def compile_document(
    doc: Document, limits: Limits = DEFAULT_LIMITS, *, inline: bool = True, work: Work | None = None
) -> RulesetModel:
    """Compile a validated document within `limits` (expression depth and size), raising
    `CompileError` with every problem found. `inline=False` keeps every table a call in the
    generated loops (the same results: tests compare the two). Folding constants runs tables, so
    it charges a budget: by default a fresh one under `limits`. A load with a deadline of its own
    (a server's, for a ruleset sent in a request: `api.load_source(deadline=)`) passes `work`,
    whose clock is also read as code is written and compiled (`Emitter._clock`), so the compile
    stops with a `DeadlineError` when it passes; `Limits.deadline` alone bounds evaluations, not
    a load."""
    try:
        with working(work if work is not None else new_work(limits)):
            structure = Structure(doc, limits, inline=inline)
            if work is not None:
                structure.unit.emit.clock = Clock(work.check_clock, CLOCK_CODE)
            return structure.run()
    except Problem as f:  # a problem outside any statement: still a diagnostic, never a traceback
        raise CompileError([f.diag]) from None


def _reading(nodes: dict[str, ast.Node], targets: set[str]) -> set[str]:
    """The named values that read one of `targets` (the dice), themselves or through the values
    they read, circles included: from those that read one outright, back along who reads whom,
    each value once (a chain of thousands costs as many steps, not their square)."""
    readers: dict[str, list[str]] = {}
    found: list[str] = []
    for name, node in nodes.items():
        read = ast.names(node)
        if read & targets:
            found.append(name)
        for dep in read:
            if dep in nodes:
                readers.setdefault(dep, []).append(name)
    reached = set(found)
    while found:
        for reader in readers.get(found.pop(), ()):
            if reader not in reached:
                reached.add(reader)
                found.append(reader)
    return reached


class Structure:
    """The ruleset's structure: scales, bags, tables, checks, dice and examples."""

    def __init__(self, doc: Document, limits: Limits = DEFAULT_LIMITS, *, inline: bool = True) -> None:
        self.unit = Unit(doc, limits, inline=inline)
        self.exprs = Expressions(self.unit)
        self.programs = ProgramWriter(self.unit, self.exprs)
        self.randomizers = RandomizerCompiler(self.unit, self.exprs)
        self.scale_paths: dict[str, PathKey] = {}
        """Where each scale was made, for RC307 to say what made both of two of one name."""

    # -- driver -------------------------------------------------------------------------

    def run(self) -> RulesetModel:
        check_version(self.unit.doc)  # the loader asked first; a document compiled directly too
        version = int(self.unit.data["rulecraft"])
        self._scales()
        self._bags()
        lasting = None
        if any(self.unit.data.get(k) for k in ("state", "actions", "scenes")):
            from .state import StateCompiler  # imported only by a ruleset that keeps state

            lasting = StateCompiler(self)
            lasting.scales()  # a tally's members are a scale, known to the builtins like any other
        self.unit.builtins = library({n: s.members for n, s in self.unit.scales.items()})
        for name in self.exprs.table_order():
            with statement(self.unit.diags):
                self.exprs.table(name)
        checks: dict[str, Check] = {}
        for name in self.unit.data.get("checks", {}):
            self.unit.pools, self.unit.redrawn = set(), set()
            check = self._check(name)
            if check is not None:
                checks[name] = check
        self.unit.pools, self.unit.redrawn = set(), set()
        state = lasting.run(checks) if lasting is not None else None
        ids: dict[str, Span] = {}
        for i, n in enumerate(self.unit.data.get("notes", [])):
            with statement(self.unit.diags):
                once(ids, str(n["id"]), self.unit.doc.span(("notes", i, "id")), "note", "id")
        if self.unit.emit.passed is not None:  # the code made no more, the rest checked still
            self.unit.diags.append(self.unit.emit.passed)
        if self.unit.diags:
            unique: dict[tuple[object, ...], Diagnostic] = {}
            for d in self.unit.diags:
                unique.setdefault(
                    (d.code, d.message, d.span.line if d.span else 0, d.span.col if d.span else 0), d
                )
            # in the file's order, not the compiler's (a table compiles after the tables it calls)
            found = _whole_load_once(sorted(unique.values(), key=_place))
            if all(d.code in LIMIT_CODES for d in found):
                raise LimitError(found)
            raise (ExprSyntaxError if all(d.code == "RC201" for d in found) else CompileError)(found)
        notes = tuple(Note(n["id"], n["text"]) for n in self.unit.data.get("notes", []))
        return RulesetModel(
            name=self.unit.data["name"],
            title=self.unit.data.get("title", self.unit.data["name"]),
            version=version,
            notes=notes,
            scales=dict(self.unit.scales),
            bags=dict(self.unit.bags),
            tables=dict(self.unit.tables),
            checks=checks,
            source_name=self.unit.doc.source.name,
            state=state,
            code=self.unit.emit.code,
        )

    # -- scales and bags ---------------------------------------------------------------

    def new_scale(
        self, name: str, members: list[str], path: PathKey, owner: str | None = None
    ) -> Scale | None:
        if name in self.unit.scales:
            first = self.scale_paths.get(name)
            made = [_made_by(p) for p in (first, path) if p is not None]
            implicit = [m for m in made if m != "'scales:'"]
            said = f"scale '{name}' is declared twice" + (f": by {' and by '.join(made)}" if implicit else "")
            hint = None
            if implicit:
                hint = (
                    f"{' and '.join(implicit)} make a scale named so, as 'scales:' does: rename one of them"
                )
                if path[:1] == ("checks",) and first is not None and first[:1] == ("scales",):
                    hint += f", or write outcomes: {name} to take the declared scale as the check's outcomes"
            self.unit.diags.append(Diagnostic("RC307", said, self.unit.doc.span(path, key=True), hint))
            return None
        self.scale_paths[name] = path
        seen: set[str] = set()
        for i, m in enumerate(members):
            if m in RESERVED:  # it could not be written where a member is read by name (`then: hi`)
                at = path + ("chits", m) if path[0] == "bags" else path + (i,)
                self.unit.diags.append(
                    Diagnostic(
                        "RC307",
                        f"'{m}' is a {'name' if m in ('outcome', 'face') else 'word'} of the expression "
                        f"language and cannot name a member of scale '{name}'",
                        self.unit.doc.span(at, key=path[0] == "bags"),
                        f"rename it, e.g. '{m}_'",
                    )
                )
            if m in seen:
                self.unit.diags.append(
                    Diagnostic(
                        "RC307", f"'{m}' appears twice in scale '{name}'", self.unit.doc.span(path + (i,))
                    )
                )
            seen.add(m)
        scale = Scale(
            name, tuple(Symbol(name, m, i) for i, m in enumerate(members)), self.unit.doc.span(path, key=True)
        )
        self.unit.scales[name] = scale
        if owner is not None:
            self.unit.owner[name] = owner
        return scale

    def _scales(self) -> None:
        for name, members in self.unit.data.get("scales", {}).items():
            self.new_scale(name, [str(m) for m in members], ("scales", name))

    def _bags(self) -> None:
        for name, spec in self.unit.data.get("bags", {}).items():
            path: PathKey = ("bags", name)
            chits = spec["chits"]
            scale = self.new_scale(name, [str(c) for c in chits], path)
            if scale is None:
                continue
            contents = tuple((scale[str(c)], int(n)) for c, n in chits.items())
            size = sum(n for _, n in contents) * int(spec.get("sets", 1))
            self.unit.bags[name] = Bag(  # made first: what draws from it is not reported too
                name, scale, contents, int(spec.get("sets", 1)), self.unit.doc.span(path, key=True)
            )
            with statement(self.unit.diags):
                self.unit.within(f"bag '{name}' holds {size:,} chits", size, "max_bag", path, key=True)

    # -- checks ------------------------------------------------------------------------

    def _name_free(self, n: str, at: PathKey, kinds: Mapping[str, str] | None = None) -> None:
        """RC307 for a name of a check's namespace (an input, a value, a die, an output) that no
        expression could read as the value: a word of the language, a name `kinds` already holds,
        or a builtin's or a table's, which a call reads."""
        if n in RESERVED:
            written = self.unit.doc.boolean_key(at)
            if written is not None:  # `y:` under `%YAML 1.1`, read as true
                raise problem(
                    "RC307",
                    f"the name '{written}' is read as {n}: {YAML11_SAID}",
                    self.unit.doc.span(at, key=True),
                    YAML11_HINT.format(written),
                )
            raise problem(
                "RC307",
                f"'{n}' is a word of the expression language and cannot name a value",
                self.unit.doc.span(at, key=True),
                f"rename it, e.g. '{n}_'",
            )
        if kinds is not None and n in kinds:
            raise problem(
                "RC307",
                f"'{n}' is already declared as {kinds[n]} of this check",
                self.unit.doc.span(at, key=True),
            )
        if n in self.unit.builtins or n in self.unit.data.get("tables", {}):
            raise problem("RC307", _named_like(n, self.unit.builtins), self.unit.doc.span(at, key=True))

    def _check(self, name: str) -> Check | None:
        path: PathKey = ("checks", name)
        spec = self.unit.data["checks"][name]
        before = len(self.unit.diags)
        self.unit.current = name
        scope: dict[str, T.Type] = {}
        kinds: dict[str, str] = {}

        def declare(n: str, t: T.Type, kind: str, at: PathKey) -> None:
            self._name_free(n, at, kinds)
            kinds[n] = kind
            scope[n] = t

        inputs: list[InputSpec] = []

        def poison(n: str) -> None:
            """A name already reported as broken: later uses of it raise no second error."""
            if n not in kinds:
                kinds[n] = "a value"
                scope[n] = T.UNKNOWN

        for iname in spec.get("inputs", {}):
            with statement(self.unit.diags):
                inp = self._input(name, iname)
                declare(
                    iname,
                    T.sym(inp.scale.name)
                    if inp.scale
                    else (T.BOOL if inp.kind == "bool" else T.multi(T.NUM) if inp.kind == "list" else T.NUM),
                    "an input",
                    path + ("inputs", iname),
                )
                inputs.append(inp)
            poison(iname)

        # Values: parse first, then order by dependency and split before/after the roll.
        roll_spec: dict[str, Any] = spec.get("roll", {})
        let_spec: dict[str, Any] = spec.get("let", {})
        roll_names = set(roll_spec)
        let_nodes: dict[str, ast.Node] = {}
        for lname in let_spec:
            with statement(self.unit.diags):
                let_nodes[lname] = self.exprs.node_at(path + ("let", lname))
        order = self._let_order(path, let_nodes)
        needs_dice = _reading(let_nodes, roll_names)
        lets: list[Let] = []
        pre_scope = BeforeTheRoll(scope, [*roll_names, *let_spec])
        # a whole-number input between whole bounds is at most their size, and a value before the
        # roll what its expression can be: their sums and products need no check (`_bound`)
        sized = {
            i.name: max(abs(i.minimum), abs(i.maximum))
            for i in inputs
            if i.kind == "int" and type(i.minimum) is int and type(i.maximum) is int
        }

        def poison_let(lname: str) -> None:
            if lname not in kinds:
                poison(lname)
                pre_scope[lname] = T.UNKNOWN

        # The check's own outcome scale, which every value may name (before the roll or after it).
        outcomes = self._outcome_scale(name, path)

        ordered = set(order)
        for lname in let_spec:
            if lname not in ordered:
                poison_let(lname)  # did not parse, or part of a circle: reported, and known by name
        self.exprs.bounded(pre_scope, sized)
        try:
            for lname in order:
                if lname in needs_dice:
                    continue
                with statement(self.unit.diags):
                    e = self.exprs.lower(let_nodes[lname], pre_scope)
                    declare(lname, e.type, "a named value", path + ("let", lname))
                    pre_scope[lname] = e.type
                    lets.append(Let(lname, e, True, self.unit.doc.span(path + ("let", lname), key=True)))
                    size = self.exprs.size_bound(let_nodes[lname], pre_scope)
                    if size is not None and size < TOO_BIG:
                        sized[lname] = size
                poison_let(lname)
        finally:
            self.exprs.unbounded(pre_scope)

        if outcomes is None:
            return None
        out_t = T.sym(outcomes.name)

        auto: tuple[Rule, ...] = ()
        if "auto" in spec:
            auto = self.exprs.rule_list(path + ("auto",), dict(pre_scope), out_t)  # no die is read there

        roll: list[Randomizer] = []
        roll_scope = dict(pre_scope)
        for rname, rspec in roll_spec.items():
            if isinstance(rspec, dict) and "pool" in rspec:
                self.unit.pools.add(rname)  # its own redraw condition may read its history
            with statement(self.unit.diags):
                try:
                    r = self.randomizers.randomizer(path + ("roll", rname), rname, rspec, roll_scope)
                except Problem as f:  # a named value worked out after the roll: say so (hunt 13w)
                    raise _after_the_roll(f, needs_dice) from None
                rtype = (
                    T.NUM
                    if isinstance(r, Die) or (isinstance(r, Pool) and r.total)
                    else (
                        T.multi(r.each.type if r.each else T.NUM)
                        if isinstance(r, Pool)
                        else T.multi(T.sym(r.bag.name))
                    )
                )
                declare(rname, rtype, "a die", path + ("roll", rname))
                roll_scope[rname] = rtype
                roll.append(r)
                if r.redraw is not None:  # made: later expressions may count its redraws
                    self.unit.redrawn.add(rname)
            if rname not in kinds:
                poison(rname)
                roll_scope[rname] = T.UNKNOWN
                if isinstance(rspec, dict) and "redraw" in rspec:  # reported once: later counts stand
                    self.unit.redrawn.add(rname)

        for lname in order:
            if lname not in needs_dice:
                continue
            with statement(self.unit.diags):
                e = self.exprs.lower(let_nodes[lname], scope)
                declare(lname, e.type, "a named value", path + ("let", lname))
                lets.append(Let(lname, e, False, self.unit.doc.span(path + ("let", lname), key=True)))
            poison_let(lname)

        outcome: Expr | tuple[Rule, ...] | None = None
        with statement(self.unit.diags):
            if isinstance(spec.get("outcome"), list):
                outcome = self.exprs.rule_list(path + ("outcome",), scope, out_t, again=True)
            else:
                outcome = self.exprs.expr(path + ("outcome",), scope, out_t)

        outputs: list[tuple[str, Expr]] = []
        out_scope = dict(scope)
        out_scope["outcome"] = out_t
        written = list(spec.get("outputs", {}))
        for k, oname in enumerate(written):
            with statement(self.unit.diags):
                self._name_free(oname, path + ("outputs", oname))  # as a value's (hunt 13w)
                if oname in scope or oname == "outcome":
                    raise problem(
                        "RC307",
                        f"output '{oname}' has the name of another value",
                        self.unit.doc.span(path + ("outputs", oname), key=True),
                    )
                with known_if_failing(out_scope, oname):  # a later output may read it
                    e = self.exprs.expr(path + ("outputs", oname), OutputScope(out_scope, written[k + 1 :]))
                outputs.append((oname, e))
                out_scope[oname] = e.type  # later outputs may use earlier ones

        if len(self.unit.diags) > before or outcome is None:
            return None
        objective = self._objective(path, outcomes)
        names_before: set[str] = set()
        sequential = False
        for r in roll:
            params = [r.count] if not isinstance(r, Die) else []
            if not isinstance(r, Draw) and r.faces_expr is not None:
                params.append(r.faces_expr)
            if isinstance(r, Pool) and r.each is not None:
                params.append(r.each)
            if r.redraw is not None or (isinstance(r, Pool) and (r.triggers or r.own is not None)):
                sequential = True
            if any(ast.names(p.node) & names_before for p in params):
                sequential = True
            names_before.add(r.name)
        post = [let for let in lets if not let.before_roll]
        # A later randomizer's count or a redraw's condition may read a pool's statistics too.
        read_by = [e.node for e in after_roll_expressions(roll, post, outcome, outputs)]
        # a statistic's argument may read the inputs, the values known before the roll and the
        # dice (numbers) rolled before its pool: the pool is then made for each of their values
        dice_before: dict[str, T.Type] = {}
        folded = []
        for r in roll:
            known = {**pre_scope, **dice_before}
            folded.append(
                self._with_count_keys(self._with_folds(r, read_by, scope, known), read_by, scope, known)
            )
            if isinstance(r, Die) or (isinstance(r, Pool) and r.total):
                dice_before[r.name] = scope[r.name]
        roll = folded
        if any(set(r.fold_reads) & set(dice_before) for r in roll if isinstance(r, (Pool, Draw))):
            sequential = True
        with statement(self.unit.diags):
            roll = [self._with_history(r, read_by) for r in roll]
        counted = counted_randomizers(read_by)
        roll = [replace(r, counted=True) if r.name in counted else r for r in roll]
        made = None
        plain = not sequential and all(isinstance(r, Die) and r.faces_expr is None for r in roll)
        pre = [let.name for let in lets if let.before_roll]
        with statement(self.unit.diags):
            made = self.programs.program(
                name, scope, out_t, roll, post, outcome, outputs, pre if plain else None, sized
            )
        if made is None:
            return None
        stage_keys = own_keys = None
        if sequential:
            own_keys, own_parts = self.programs.own_keys(name, scope, out_t, roll, post, outcome, outputs)
            stage_keys = self.programs.stage_keys(name, scope, out_t, roll, post, outcome, outputs, own_parts)
        program, outcome_program = made.program, made.outcome_program
        if counted:
            # the counted dice come with their counts (`Redrawn`): the programs and the stage keys
            # (whose parts may read a count) are given both; where no redraw can be made, the
            # product's loops read each count as 0, and the dice's own keys read no count
            program, outcome_program = counting(program, roll), counting(outcome_program, roll)
            if stage_keys is not None:
                stage_keys = tuple(None if k is None else counting(k, roll) for k in stage_keys)
        return Check(
            name=name,
            title=spec.get("title", name),
            description=spec.get("description", ""),
            inputs=tuple(inputs),
            lets=tuple(lets),
            auto=auto,
            roll=tuple(roll),
            outcomes=outcomes,
            outcome=outcome,
            outputs=tuple(outputs),
            program=program,
            outcome_program=outcome_program,
            outcome_loop=made.outcome_loop,
            outcome_stages=made.outcome_stages,
            stage_keys=stage_keys,
            own_keys=own_keys,
            roller=made.roller,
            roller_units=made.roller_units,
            outcome_units=made.outcome_units,
            code_units=made.code_units,
            # a value's own loop runs no outcome, so it could not leave out the rolls made again
            value_loops={} if _rolls_again(outcome) else made.value_loops,
            outcome_total=made.outcome_total,
            objective=objective,
            sequential=sequential,
            examples=self._examples(path, spec, inputs, roll, lets, outputs, outcomes),
            span=self.unit.doc.span(path, key=True),
            value_scales=self._value_scales(inputs, lets, outputs, outcomes),
        )

    def _value_scales(
        self,
        inputs: list[InputSpec],
        lets: list[Let],
        outputs: list[tuple[str, Expr]],
        outcomes: Scale,
    ) -> FrozenDict:
        """The scale of each named value whose declared type is one scale's values (a choice
        input, a `let` or an output of a scale's type): a `Distribution` tells a misspelt member
        of it (RC402) from one that never comes up. A value of any other type, `any` among them,
        whose values may be members of several scales, has none."""
        scales = {**self.unit.scales, outcomes.name: outcomes}
        found = {spec.name: spec.scale for spec in inputs if spec.scale is not None}
        for name, expr in [*((let.name, let.expr) for let in lets), *outputs]:
            if expr.type.kind == "sym" and expr.type.scale in scales:
                found[name] = scales[expr.type.scale]
        return FrozenDict(found)

    def _example_inputs(
        self, here: PathKey, ex: dict[str, Any], inputs: list[InputSpec], parts: Apart
    ) -> dict[str, Any] | None:
        """RC702 unless every input an example gives is one its input takes, read as a run
        reads it, and every input with no default is given (`given_values`): else the example
        could only fail when `test` runs it. The inputs bound, when all are good."""
        at = here + ("inputs",) if "inputs" in ex else here
        return given_values(
            self.unit,
            parts,
            here + ("inputs",),
            ex.get("inputs") or {},
            inputs,
            Missing(
                "example gives", "the input", "this example's inputs:", self.unit.doc.span_later(at, key=True)
            ),
        )

    def _examples(
        self,
        path: PathKey,
        spec: dict[str, Any],
        inputs: list[InputSpec],
        roll: list[Randomizer],
        lets: list[Let],
        outputs: list[tuple[str, Expr]],
        outcomes: Scale,
    ) -> tuple[Example, ...]:
        """The check's worked examples, with every name in them checked now."""
        found: list[Example] = []
        types = {let.name: let.expr.type for let in lets} | {n: e.type for n, e in outputs}
        names: dict[str, Span] = {}
        for i, ex in enumerate(spec.get("examples", [])):
            here = path + ("examples", i)
            if "name" in ex:
                with statement(self.unit.diags):
                    once(names, str(ex["name"]), self.unit.doc.span(here + ("name",)), "example")
            with statement(self.unit.diags):
                found.append(
                    self._example(here, ex, i, inputs, roll, types, outcomes, bool(spec.get("auto")))
                )
        return tuple(found)

    def _example(
        self,
        here: PathKey,
        ex: dict[str, Any],
        i: int,
        inputs: list[InputSpec],
        roll: list[Randomizer],
        types: dict[str, T.Type],
        outcomes: Scale,
        auto: bool,
    ) -> Example:
        """One worked example, each of its keys checked apart (`Apart`): every misspelt name of
        it is reported in the one run, as the docs promise of a file's problems (`auto`: the
        check has auto rules, which may decide before anything is rolled)."""
        parts = Apart(self.unit.diags)
        value_names = list(types)
        for key, known, what in (
            ("inputs", [x.name for x in inputs], "input"),
            ("dice", [r.name for r in roll], "die or draw"),
        ):
            for name in ex.get(key) or {}:
                with parts.part():
                    example_key(name, self.unit.doc.span_later(here + (key, name), key=True))
                    if name not in known:
                        raise problem(
                            "RC702",
                            f"example names no {what} of this check: '{name}'",
                            self.unit.doc.span(here + (key, name), key=True),
                            did_you_mean(str(name), known),
                        )
        if not parts.failed:  # every input and die named rightly: each read as a run reads it
            bound = self._example_inputs(here, ex, inputs, parts)
            forced = ex.get("dice") or {}
            forced_dice(self.unit, parts, here + ("dice",), forced, roll, bound, auto, _rolls(ex["expect"]))
        expects: list[Expectation] = []
        want = ex["expect"]
        whole = [kind for kind in ("probability", "mean") if want.get(kind)]
        if ex.get("dice") and whole:  # they were read over every roll, the dice passed over (hunt 13h)
            with parts.part():
                raise problem(
                    "RC702",
                    f"example forces dice, but expects a {whole[0]}, which is worked out over every "
                    "roll: the dice would not be used",
                    self.unit.doc.span(here + ("dice",), key=True),
                    f"make it two examples: the dice with the outcome or values they give, and the "
                    f"{whole[0]} without dice",
                )
        if "outcome" in want:
            with parts.part():
                expects.append(
                    Expectation(
                        "outcome",
                        "",
                        self._outcome_named(outcomes, want["outcome"], here + ("expect", "outcome")),
                        self.unit.doc.span(here + ("expect", "outcome")),
                    )
                )
        for kind in ("values", "mean", "probability"):
            given = want.get(kind)
            for name, value in given.items() if isinstance(given, dict) else ():
                where = here + ("expect", kind, name)
                with parts.part():
                    example_key(name, self.unit.doc.span_later(where, key=True))
                    expects.append(self._expectation(kind, name, value, where, types, value_names, outcomes))
        parts.settle()
        return Example(
            str(ex.get("name", f"example {i + 1}")),
            written_exactly(self.unit, here + ("inputs",), ex.get("inputs") or {}),
            dict(ex.get("dice", {})),
            str(ex.get("policy", "always")),
            tuple(expects),
            self.unit.doc.span(here),
            {
                (part, str(k)): self.unit.doc.span(here + (part, k))
                for part in ("inputs", "dice")
                for k in (ex.get(part) or {})
            },
        )

    def _expectation(
        self,
        kind: str,
        name: str,
        value: Any,
        where: PathKey,
        types: dict[str, T.Type],
        value_names: list[str],
        outcomes: Scale,
    ) -> Expectation:
        """What an example's `expect: {values|mean|probability: {name: value}}` asks, checked."""
        if kind in ("values", "mean") and name not in value_names:
            asked = "a value" if kind == "values" else "the mean of a value"
            rolled = (self.unit.data.get(str(where[0]), {}).get(where[1]) or {}).get("roll") or {}
            raise problem(
                "RC702",
                f"example expects {asked} this check does not have: '{name}'",
                self.unit.doc.span(where, key=True),
                # a die is what an example forces, not what it expects (hunt 13m)
                f"'{name}' is a die this check rolls: force it under 'dice:', and expect a value "
                "that reads it"
                if name in rolled
                else did_you_mean(str(name), value_names),
            )
        if kind == "values":
            at = self.unit.doc.span(where)
            value = written_exactly(self.unit, where, value)  # a decimal's every digit
            expected_value(self.unit, name, types[name], value, at)
            return Expectation("value", name, value, at)
        if kind == "mean":
            return Expectation("mean", name, self._exact(value, where), self.unit.doc.span(where))
        sym = self._outcome_named(outcomes, name, where, key=True)
        if isinstance(value, dict):
            bounds = (
                self._probability(value.get("at_least", 0), where + ("at_least",)),
                self._probability(value.get("at_most", 1), where + ("at_most",)),
            )
            if bounds[0] > bounds[1]:  # no probability is both: it could never pass
                raise problem(
                    "RC702",
                    f"example expects P({name}) at least {bounds[0]} and at most {bounds[1]}, "
                    "which no probability is: it can never pass",
                    self.unit.doc.span(where),
                    "the bounds are swapped, or one of them is mistyped: at_least is the lower",
                )
            return Expectation("probability", sym, bounds, self.unit.doc.span(where))
        p = self._probability(value, where)
        return Expectation("probability", sym, (p, p), self.unit.doc.span(where))

    def _outcome_named(self, outcomes: Scale, name: Any, where: PathKey, key: bool = False) -> Symbol:
        if str(name) not in outcomes.names:
            raise problem(
                "RC702",
                f"'{name}' is not an outcome of this check ({', '.join(outcomes.names)})",
                self.unit.doc.span(where, key=key),
                did_you_mean(str(name), outcomes.names),
            )
        return outcomes[str(name)]

    def _exact(
        self, raw: Any, where: PathKey, what: str = "a number", like: str = 'a fraction like "7/2"'
    ) -> Fraction:
        """An example's exact number: a whole number, a decimal or a fraction written as text, read
        as the language reads a number written as text (`parse_number`); one written without
        quotes, every digit the file writes (`written_exactly`: YAML's float keeps 17)."""
        text = str(written_exactly(self.unit, where, raw))
        number = parse_number(text)
        if number is None:
            digits = digits_over(text)  # a number, but longer than any is read (hunt 13zh)
            said = f"a number written with {digits} digits, over the limit of {MAX_DIGITS}" if digits else ""
            raise problem(
                "RC702",
                f"{clipped(str(raw))} is not {what}" + (f": {said}" if said else ""),
                self.unit.doc.span(where),
                f"write {like}",
            )
        return Fraction(number)

    def _probability(self, raw: Any, where: PathKey) -> Fraction:
        value = self._exact(raw, where, "a probability", 'a fraction like "1/20" or a decimal')
        if not 0 <= value <= 1:
            raise problem(
                "RC702",
                f"{clipped(str(raw))} is not a probability between 0 and 1",
                self.unit.doc.span(where),
                PROBABILITY_HINT,
            )
        return value

    def _objective(self, path: PathKey, outcomes: Scale) -> Objective:
        """What the optimal policy maximises (see `Check.objective`)."""
        raw = self.unit.doc.data
        for p in path:
            raw = raw[p]
        spec = raw.get("objective")
        if spec is None:
            return Objective()
        if isinstance(spec, str):
            return Objective(spec)
        target = str(spec["at_least"])
        if target not in outcomes.names:
            self.unit.diags.append(
                Diagnostic(
                    "RC305",
                    f"'{target}' is not an outcome of this check ({', '.join(outcomes.names)})",
                    self.unit.doc.span(path + ("objective", "at_least")),
                    did_you_mean(target, outcomes.names),
                )
            )
            return Objective()
        return Objective("at_least", outcomes[target])

    def _with_folds(
        self, r: Randomizer, nodes: list[ast.Node], scope: Mapping[str, T.Type], before: Mapping[str, T.Type]
    ) -> Randomizer:
        """Mark a pool or draw that is read only through fold statistics whose arguments are
        known before the roll: constants, kept as values, or expressions of the inputs and the
        values reckoned before the roll (`before`'s scope), kept as `Expr`s that the evaluators
        work out for each request (`rules.folds_for`): `count(p, target..10)` with
        `target` an input is as much a fold as `count(p, 8..10)`."""
        if isinstance(r, Die) or (isinstance(r, Pool) and r.total):
            return r
        keys: list[tuple[Any, ...]] = []
        last: list[tuple[Any, ...]] = []  # the key the last fold call visited made
        uses: list[Use] = []  # each statistic's call, for a pool whose readings are of no known type
        elem = scope[r.name].elem or T.ANY
        in_order = not (isinstance(r, Pool) and r.per)  # a pool over a list is folded die by die

        def visit(node: ast.Node) -> bool:
            if isinstance(node, ast.Name):
                return node.id != r.name
            if counts_redraws(node) is not None:
                return True  # how often it was redrawn: nothing of its dice or chits
            kept = _kept_in_sum(node, r.name) if in_order else None
            if kept is not None:  # sum(highest(p, k)): one fold, the sum of the kept readings
                had = list(keys)
                if not visit(kept):
                    return False
                keys[:] = had
                summed = (SUMMED[last[0][0]], *last[0][1:])
                if summed not in keys:
                    keys.append(summed)
                uses.append((self.unit.builtins["sum"], (None,), node.span))
                return True
            if (
                isinstance(node, ast.Call)
                and node.args
                and isinstance(node.args[0], ast.Name)
                and node.args[0].id == r.name
            ):
                rest = node.args[1:]
                if node.func not in FOLDS or (node.func in ("min", "max") and rest):
                    return False
                if node.func in ("highest", "lowest") and len(rest) > 1:
                    return False
                expect = T.listof(elem) if node.func == "majority" else None
                values: tuple[Any, ...] = ()
                read = False  # whether an argument is read from the inputs (checked per request)
                try:
                    for a in rest:
                        want = expect if expect else (elem if isinstance(a, ast.Sym) else None)
                        if ast.names(a) and node.func not in ("count", "highest", "lowest"):
                            return False
                        made = self._known_before(a, before, want)
                        values += (made,)
                        read = read or isinstance(made, Expr)  # worked out per request
                except (RulecraftError, Problem):
                    return False  # reads a die or a value after the roll (or is refused as written)
                if values and node.func in ("highest", "lowest") and not read and not keeps(values):
                    return False  # a k refused when rolled, as written
                last[:] = [(node.func, *values)]
                if last[0] not in keys:
                    keys.append(last[0])
                types = tuple(v.type if isinstance(v, Expr) else type_of(v, None) for v in values)
                uses.append((self.unit.builtins[node.func], (None, *types), node.span))
                return True
            return all(visit(c) for c in ast.children(node))

        if all(visit(n) for n in nodes):
            if {"highest_sum", "lowest_sum"} <= {key[0] for key in keys}:  # in two orders: kept apart
                plain = {v: k for k, v in SUMMED.items()}
                keys = list(dict.fromkeys((plain.get(key[0], key[0]), *key[1:]) for key in keys))
            if uses and isinstance(r, Pool) and r.each is not None and vague(r.each.type):
                r = replace(r, each=self._checked_each(r.each, uses))
            return replace(r, folds=tuple(keys))
        return r

    def _with_count_keys(
        self, r: Randomizer, nodes: list[ast.Node], scope: Mapping[str, T.Type], before: Mapping[str, T.Type]
    ) -> Randomizer:
        """Mark a pool with triggers whose dice the check tells apart only by counts of readings,
        in the pool and in the parts of its history it reads (`count(p, 8..10)`,
        `1 in first_roll(p)`, `count(added_dice(p), 10)`): their keys, so that the procedure
        merges faces alike in all of them, and keeps each part of the history only by the counts
        read of it (`Pool.count_keys`). Folds cannot say so once the history is read (the pool is
        then listed as multisets), yet the check still sees no more of a die than its counts."""
        if not isinstance(r, Pool) or not r.triggers or r.total or r.per or r.own is not None:
            return r
        keys: list[tuple[Any, ...]] = []
        elem = scope[r.name].elem or T.ANY

        def part(node: ast.Node) -> str | None:
            """`count` where `node` is the pool, the part of its history it is, or None."""
            if isinstance(node, ast.Name):
                return "count" if node.id == r.name else None
            if (
                isinstance(node, ast.Call)
                and node.func in HISTORY
                and len(node.args) == 1
                and isinstance(node.args[0], ast.Name)
                and node.args[0].id == r.name
            ):
                return node.func
            return None

        def key(tag: str, what: ast.Node) -> bool:
            """Keep the key `what` counted in `tag`: a constant, or read from the inputs (worked
            out per request)."""
            try:
                made = self._known_before(what, before, elem if isinstance(what, ast.Sym) else None)
            except (RulecraftError, Problem):
                return False  # reads a die or a value after the roll (or is refused as written)
            if (tag, made) not in keys:
                keys.append((tag, made))
            return True

        def visit(node: ast.Node) -> bool:
            if isinstance(node, ast.Call) and node.func == "count" and node.args:
                tag = part(node.args[0])
                if tag is not None:
                    if len(node.args) == 1:  # how many: every die alike
                        if (tag,) not in keys:
                            keys.append((tag,))
                        return True
                    return len(node.args) == 2 and key(tag, node.args[1])
            if isinstance(node, ast.Compare) and node.op in ("in", "not in"):
                tag = part(node.right)
                if tag is not None:
                    return key(tag, node.left)
            if part(node) is not None:
                return False  # the pool, or a part of its history, read whole
            return all(visit(c) for c in ast.children(node))

        if all(visit(n) for n in nodes) and keys:
            return replace(r, count_keys=tuple(keys))
        return r

    def _known_before(self, a: ast.Node, before: Mapping[str, T.Type], want: T.Type | None) -> Any:
        """A statistic's argument known before the roll: its value where it is a constant, else
        its `Expr` over the values `before` the roll (worked out per request); raises where it
        reads anything else (a die or a value after the roll)."""
        if not ast.names(a):
            return self.exprs.lower(a, {}, want).run({})
        return self.exprs.lower(a, before, want)

    def _checked_each(self, each: Expr, uses: list[Use]) -> Expr:
        """`each` of a folded pool whose readings are of a type known only when it runs (an
        untyped table's result): each reading checked by the type rules of the statistics read
        from it (`kinds.reading`), which then see only the results (`sum(p)` of true/false
        readings would add them)."""
        emit = self.unit.emit
        body = [f"return _reading({emit.const(each.run)}(env), {emit.const(tuple(uses))})"]
        return replace(each, run=emit.function("each", ["env"], body, each.node.span))

    def _with_history(self, r: Randomizer, nodes: list[ast.Node]) -> Randomizer:
        """Mark which parts of a pool's history the check reads (`first_roll` and its kin), so
        that the evaluators keep those, and only those."""
        if not isinstance(r, Pool):
            return r
        read: dict[str, ast.Call] = {}
        stack = list(nodes)
        while stack:
            node = stack.pop()
            if (
                isinstance(node, ast.Call)
                and node.func in HISTORY
                and node.args
                and isinstance(node.args[0], ast.Name)
                and node.args[0].id == r.name
            ):
                read.setdefault(node.func, node)
            stack.extend(ast.children(node))
        if not read:
            return r
        if r.own is not None:
            call = next(iter(read.values()))
            raise problem(
                "RC328",
                f"{call.func}({r.name}): the dice of pool '{r.name}' each run their own triggers "
                "('each_die'), so the pool keeps no history",
                call.span,
                f"read {r.name} itself: each of its dice is the total of that die's own dice",
            )
        endless = r.cap is None and chains_without_end(r.triggers)
        grown = [read[f] for f in HISTORY[1:] if f in read]
        if endless and grown:
            call = grown[0]
            raise problem(
                "RC325",
                f"{call.func}({r.name}) needs a 'cap' on pool '{r.name}': its triggers can act again "
                "and again without end, so the dice they add or reroll have no last count",
                call.span,
                f"give '{r.name}' a cap (the most dice its triggers may add or reroll), or read "
                f"first_roll({r.name}), which needs none",
            )
        return replace(r, history=tuple(f for f in HISTORY if f in read))

    def _let_order(self, path: PathKey, nodes: dict[str, ast.Node]) -> list[str]:
        """Named values in dependency order (the author's order where free), by the engine's one
        graph walk (`graph.postorder`, depth first with a stack, not a recursion: a chain of named
        values each reading the one before may be longer than Python's recursion limit). A circle
        is RC308 at the value the walk came back to; the values on it are left out of the order,
        and the walk goes on from the next value not reached yet."""
        order: list[str] = []
        seen: set[str] = set()

        def reads(name: str) -> list[str]:
            seen.add(name)
            return sorted(n for n in ast.names(nodes[name]) if n in nodes)

        def circle(trail: list[str]) -> None:
            raise problem(
                "RC308",
                f"named values depend on each other in a circle: {circle_text(trail)}",
                self.unit.doc.span(path + ("let", trail[0]), key=True),
            )

        for name in nodes:
            if name not in seen:
                with statement(self.unit.diags):
                    postorder([name], reads, seen, into=order, cycle=circle)
        return order

    def _input(self, check: str, name: str) -> InputSpec:
        return self.input_at(("checks", check, "inputs", name), name, check, lists=True)

    def input_at(
        self, path: PathKey, name: str, owner: str, lists: bool = False, noun: str = "input"
    ) -> InputSpec:
        """A typed input (of a check, an action, a campaign or a character) declared at `path`;
        an inline scale of choices belongs to `owner`. Only a check's input may be a list.
        `noun` is what messages call it: a campaign's or a character's is a parameter."""
        spec: Any = self.unit.data
        for key in path:
            spec = spec[key]
        check = owner
        kind = spec.get("type", "int")
        self._input_keys(path, name, kind, spec)
        if kind == "list" or any(k in spec for k in ("of", "min_length", "max_length")):
            return self._list_input(path, name, spec, lists)
        scale = None
        if kind == "choice":
            choices = spec["choices"]
            if isinstance(choices, str):
                if choices not in self.unit.scales:
                    raise problem(
                        "RC312",
                        f"unknown scale '{choices}'",
                        self.unit.doc.span(path + ("choices",)),
                        did_you_mean(choices, self.unit.scales),
                    )
                scale = self.unit.scales[choices]
            else:
                scale = self.new_scale(
                    f"{check}.{name}", [str(c) for c in choices], path + ("choices",), owner=check
                )
                if scale is None:
                    raise problem("RC307", "duplicate choices", self.unit.doc.span(path))
        default = written_exactly(self.unit, path + ("default",), spec.get("default"))
        if default is not None and scale is not None:
            if str(default) not in scale.names:
                raise problem(
                    "RC305",
                    f"default '{default}' is not one of the choices",
                    self.unit.doc.span(path + ("default",)),
                    did_you_mean(str(default), scale.names),
                )
            default = scale[str(default)]
        if kind == "int":
            self._whole_bounds(path, name, spec, "type: number")
        lo, hi = self._bound(path, "min", spec), self._bound(path, "max", spec)
        if lo is not None and hi is not None and lo > hi:
            raise problem("RC310", f"min {lo} is greater than max {hi}", self.unit.doc.span(path + ("min",)))
        made = InputSpec(
            name, kind, lo, hi, None, scale, spec.get("description", ""), self.unit.doc.span(path, key=True)
        )
        if default is not None and scale is None:
            default = self._fitted(made, default, path, noun)
        return replace(made, default=default)

    def _whole_bounds(self, path: PathKey, name: str, spec: dict[str, Any], wider: str) -> None:
        """RC310 at a bound of whole numbers that is not one (`min: 2.5` on an int input): it
        would be shown and kept as written, though no value given could ever equal it."""
        for key, rounded in (("min", math.ceil), ("max", math.floor)):
            bound = spec.get(key)
            if bound is None or isinstance(bound, int) or float(bound).is_integer():
                continue
            raise problem(
                "RC310",
                f"{key} {bound} of '{name}' is not a whole number, and '{name}' holds whole numbers",
                self.unit.doc.span(path + (key,)),
                f"write a whole number: {key}: {rounded(bound)} (or '{wider}' for exact fractions)",
            )

    def _input_keys(self, path: PathKey, name: str, kind: str, spec: dict[str, Any]) -> None:
        """RC310 at each key that the input's type does not take and that would mean nothing
        there: `choices` on an input that is not a choice, `min`/`max` on a bool or a choice. (A
        list's own keys elsewhere are RC321, `_list_input`.)"""
        diags = []
        for key in spec:
            if key in LIST_INPUT_KEYS or input_takes(kind, key):
                continue
            if key == "choices":
                message = f"'choices' belongs to a choice input, and '{name}' is not one (it is {kind})"
                hint = "write 'type: choice' to make it one of the names, or remove the key"
            else:
                message = f"'{key}' bounds a number, and '{name}' is a {kind} input"
                hint = "remove the key: " + (
                    "a bool input is true or false"
                    if kind == "bool"
                    else "a choice input is one of its choices"
                )
            diags.append(Diagnostic("RC310", message, self.unit.doc.span(path + (key,), key=True), hint))
        if diags:
            raise CompileError(diags)

    def _list_input(self, path: PathKey, name: str, spec: dict[str, Any], lists: bool) -> InputSpec:
        """A list input: whole numbers (or numbers, `of: number`) each within `min`..`max`, at
        least `min_length` and at most `max_length` of them (at most `Limits.max_pool`)."""
        span = self.unit.doc.span(path, key=True)
        if spec.get("type", "int") != "list":
            key = next(k for k in LIST_INPUT_KEYS if k in spec)
            raise problem(
                "RC321",
                f"'{key}' belongs to a list input, and '{name}' is not one",
                self.unit.doc.span(path + (key,), key=True),
                "write 'type: list' to make it a list of numbers, or remove the key",
            )
        if not lists:
            raise problem(
                "RC320",
                f"'{name}' is a list input, and only a check's inputs may be lists",
                self.unit.doc.span(path + ("type",)),
                "give the action, campaign or character a number for each, or move the roll into a check",
            )
        of = spec.get("of", "int")
        if of not in ("int", "number"):
            raise problem(
                "RC321",
                f"a list input holds numbers: 'of' is int or number, not {of!r}",
                self.unit.doc.span(path + ("of",)),
            )
        if "max_length" not in spec:
            raise problem(
                "RC321",
                f"list input '{name}' needs a 'max_length'",
                span,
                "say how many numbers it may hold at most, e.g. 'max_length: 4' (it bounds the work)",
            )
        # whole counts, `2.0` as JSON Schema reads it (a float was the linter's internal error)
        lo_len, hi_len = int(spec.get("min_length", 0)), int(spec["max_length"])
        if lo_len > hi_len:
            raise problem(
                "RC321",
                f"min_length {lo_len} is greater than max_length {hi_len}",
                self.unit.doc.span(path + ("min_length",)),
            )
        self.unit.within(f"a list of up to {hi_len} numbers", hi_len, "max_pool", path + ("max_length",))
        if of == "int":
            self._whole_bounds(path, name, spec, "of: number")
        lo, hi = self._bound(path, "min", spec), self._bound(path, "max", spec)
        if lo is not None and hi is not None and lo > hi:
            raise problem("RC310", f"min {lo} is greater than max {hi}", self.unit.doc.span(path + ("min",)))
        made = InputSpec(
            name,
            "list",
            lo,
            hi,
            None,
            None,
            spec.get("description", ""),
            span,
            of=of,
            min_length=lo_len,
            max_length=hi_len,
        )
        default = written_exactly(self.unit, path + ("default",), spec.get("default"))
        if default is not None and not isinstance(default, list):
            # a list's default is a list (docs/language.md): `5` is not taken for `[5]`
            raise problem(
                "RC310",
                f"default {shown(default)} does not fit: the default of list input '{name}' is a list",
                self.unit.doc.span(path + ("default",)),
                f"write it in brackets, [{default}]"
                if isinstance(default, (int, float)) and not isinstance(default, bool)
                else "write its numbers in brackets, e.g. [0, 1] ([] for none)",
            )
        return replace(made, default=None if default is None else self._fitted(made, default, path))

    def _bound(self, path: PathKey, key: str, spec: dict[str, Any]) -> Any:
        """An input's `min` or `max` read as the number written, every digit (`written_exactly`),
        as a value given for it is read."""
        value = spec.get(key)
        if not (isinstance(value, float) and math.isfinite(value)):
            return value
        exact = parse_number(written_exactly(self.unit, path + (key,), value))
        return as_written(value) if exact is None else exact

    def _fitted(self, made: InputSpec, default: Any, path: PathKey, noun: str = "input") -> Any:
        """An input's default, checked as a value given for it would be (RC310 if it does not fit)."""
        try:
            return coerce(made, default, noun)
        except InputError as exc:
            d = exc.diagnostics[0]
            message = f"default {shown(default)} does not fit: {d.message}"
            raise Problem(d.retold("RC310", message, self.unit.doc.span(path + ("default",)))) from None

    def _outcome_scale(self, check: str, path: PathKey) -> Scale | None:
        spec = self.unit.data["checks"][check]
        raw = spec["outcomes"]
        if isinstance(raw, str):
            if raw in self.unit.scales and AGAIN in self.unit.scales[raw].names:
                self.unit.diags.append(_named_again(check, self.unit.doc.span(path + ("outcomes",)), raw))
                return None
            if raw not in self.unit.scales:
                self.unit.diags.append(
                    Diagnostic(
                        "RC312",
                        f"unknown scale '{raw}'",
                        self.unit.doc.span(path + ("outcomes",)),
                        did_you_mean(raw, self.unit.scales),
                    )
                )
                return None
            return self.unit.scales[raw]
        members = [str(m) for m in raw]
        if AGAIN in members:
            at = self.unit.doc.span(path + ("outcomes", members.index(AGAIN)))
            self.unit.diags.append(_named_again(check, at))
            return None
        return self.new_scale(check, members, path + ("outcomes",), owner=check)


def _rolls_again(outcome: Expr | tuple[Rule, ...]) -> bool:
    """Whether some outcome rule is `then: again`."""
    return not isinstance(outcome, Expr) and any(rule.again for rule in outcome)


def _named_again(check: str, span: Span | None, scale: str = "") -> Diagnostic:
    """`again` named as an outcome: it is the word of the outcome rules that rolls the check
    again (`then: again`), so no outcome may have it as its name."""
    of = f" (a member of scale '{scale}')" if scale else ""
    return Diagnostic(
        "RC307",
        f"'{AGAIN}'{of} cannot be an outcome of check '{check}': it is the word of an outcome rule "
        "that rolls the whole check again ('then: again')",
        span,
        f"to roll the check again, write 'then: {AGAIN}' in a rule of 'outcome:' and leave it out of "
        f"'outcomes:'; for an outcome of that name, rename it, e.g. '{AGAIN}_'",
    )


def _made_by(path: PathKey) -> str:
    """What made a scale, in words, from where it was made: a check's inline outcomes, a bag's
    chits and a tally's members each make a scale named after their owner."""
    if path[:1] == ("checks",) and path[-1:] == ("outcomes",):
        return f"the inline outcomes of check '{path[1]}'"
    if path[:1] == ("bags",):
        return f"the chits of bag '{path[1]}'"
    if path[:1] == ("state",) and path[-1:] == ("tally",):
        return f"the members of tally '{path[-2]}'"
    return "'scales:'"


def _kept_in_sum(node: ast.Node, pool: str) -> ast.Call | None:
    """The `highest(p, k)` or `lowest(p, k)` of `sum(highest(p, k))`, `p` being `pool`; else None."""
    if not (isinstance(node, ast.Call) and node.func == "sum" and len(node.args) == 1):
        return None
    kept = node.args[0]
    if (
        isinstance(kept, ast.Call)
        and kept.func in SUMMED
        and len(kept.args) == 2
        and isinstance(kept.args[0], ast.Name)
        and kept.args[0].id == pool
    ):
        return kept
    return None


def _rolls(want: Any) -> bool:
    """Whether an example's `expect:` has it roll its check with its forced dice (`ROLLED`: an
    outcome or a value expected), read from the raw keys, so that an expectation whose value is
    wrong, told apart, still has the example's forced lists counted."""
    return isinstance(want, dict) and any(want.get(key) for key in ROLLED)


def _named_like(name: str, builtins: Mapping[str, Any]) -> str:
    """RC307's words for a value named like a builtin function or a table, which a call reads."""
    return f"'{name}' is the name of {'a function' if name in builtins else 'a table'}"


def _after_the_roll(f: Problem, after: Collection[str]) -> Problem:
    """RC301 "unknown name 'v'" in a part of the roll, where `v` is one of the check's named values
    that read a die (`after`): it is declared, but worked out after the roll, which no part of the
    roll can read; the hint says so and what the roll reads (it had no hint)."""
    if not isinstance(f, UnknownName) or f.name not in after:
        return f
    said = (
        f"'{f.name}' is a named value worked out after the roll (it reads a die); the roll's parts"
        " (counts, faces, each, triggers, redraws) read the check's inputs, the values known before"
        " the roll and the dice written above them"
    )
    return Problem(replace(f.diag, hint=f"{f.diag.hint}; {said}" if f.diag.hint else said))
