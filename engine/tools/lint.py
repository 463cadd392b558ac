"""Stage 6 — lint: what a ruleset that compiles may still get wrong, found by trying it.

The compiler already rejects unknown names (with the nearest declared one), wrong types,
cycles and bad structure; the linter runs only on a ruleset that compiled, so it never
repeats those. Its findings are `Diagnostic`s with codes RC801-RC809:

static, read from the compiled model
  RC805  an input that no expression, rule, randomizer parameter or output reads (warning)
  RC806  a named value (`let`) that nothing else reads (warning)
  RC807  a table that no check calls, directly or through another table (warning)

dynamic, by running the check's own compiled code over a bounded grid of inputs and,
for each, every roll the exact evaluator enumerates (one semantics: the same closures,
the same per-randomizer distributions)
  RC801  outcome rules or a table's rules/cases leave a reachable roll without a result:
         no rule matches and there is no `else` (error; names inputs and dice that fall through)
  RC802  a rule that never fires: earlier rules decide every roll it matches, or its
         condition is never true (warning; `else` rows are never reported)
  RC803  a declared outcome that nothing in the check (its rules, values, tables) names and
         no computed value gives (warning; a static fact, confirmed by the enumeration)
  RC804  a declared outcome that something names but that has probability 0 for every
         input tried (warning; the probability-aware finding)
  RC808  evaluation fails for an allowed input: division by zero, a pool of -1 dice, ...
         (error)
  RC809  a check the linter could not analyse fully within its budget (warning; `--strict`
         leaves it a warning, since the ruleset is not wrong, only too large to enumerate)

How the work is bounded (it must end quickly on an untrusted ruleset): at most
`LintBudget.max_combinations` input combinations per check (bounds, defaults, the numbers
the expressions mention and their neighbours, evenly spaced values; all combinations when
there are few enough, else every pair of values of two inputs with the others at their
defaults, then a covering set that holds every pair once more);
combinations that read the same values after the roll are evaluated once; each
combination's cost is estimated before it runs and the exact evaluation is skipped when it
is over `max_single` or the check's `max_cost` is spent; a wall-clock `max_seconds` stops the
whole analysis; the embedder's `Limits` still bound each exact evaluation. Anything left
out is reported as RC809, and then the findings that need the whole picture (RC802-RC804)
are not claimed for that check.

Player choices (`check.sequential`: reroll triggers, redraws, dice that depend on earlier
dice) are analysed exactly under the `always` and `never` policies while that is cheap;
above that, when the choices only reroll or redraw (never add dice), the dice are taken as
first rolled: every value a reroll can end on is a value a first roll can show, so rules
that fire there are evidence of reachability, and a roll that falls through there is
reported with that caveat.

Tables are analysed over every argument list the checks actually call them with: the linter
compiles a private copy of the ruleset and wraps each table's function where the generated
code looks it up, so the caller's `Ruleset` is never changed. A table rule's condition is
compiled on its own (as a one-line table in a copy of the document), so it is judged with the
engine's own semantics too.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import product
from typing import TYPE_CHECKING, Any

from ..compiler.structure import compile_document
from ..errors import Diagnostic, EvalError, LimitError, RulecraftError
from ..eval.tables import randomizer_table
from ..runtime.context import RunContext
from ..eval.exact import distribution
from ..expr import ast
from ..expr.parser import parse
from ..expr.printer import to_text
from ..model.ruleset import Check, Die, Draw, Expr, InputSpec, Pool, Randomizer, Rule, RulesetModel
from ..model.values import Multi, Symbol, show
from ..runtime.folds import Summary
from ..runtime.inputs import bind_inputs
from ..syntax.document import Document, PathKey
from ..syntax.positions import Span

if TYPE_CHECKING:
    from ..api import Ruleset

INFO_CODES = frozenset({"RC809"})
"""Warnings that say what the linter could not do, not what is wrong: `--strict` keeps them warnings."""


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
    """Wall-clock seconds for the whole ruleset, checked between combinations."""
    max_table_args: int = 20_000
    """Distinct argument lists remembered per table (for RC802 on a table's rules)."""


DEFAULT_BUDGET = LintBudget()

_PER_STATE = 3e-6  # seconds per evaluated roll (the check's code, a table or two, the probe), measured
_PER_FOLD = 1e-6  # seconds per step of the dynamic programme for a pool's statistics
_PER_CHAIN_STATE2 = 5e-6  # a reroll chain's exact solution grows with the square of its states
_OPAQUE = frozenset({"shift", "majority", "min", "max", "clamp", "highest", "lowest", "best", "worst"})
"""Builtins that can give a scale value no expression names."""


def lint(rs: Ruleset, budget: LintBudget = DEFAULT_BUDGET) -> list[Diagnostic]:
    """Every finding about a compiled ruleset, errors first, then by position."""
    found: list[Diagnostic] = []
    found += _unused(rs)
    try:
        found += _Analysis(rs, budget).run()
    except RulecraftError as exc:  # pragma: no cover - the analysis catches these itself
        found.append(_note(f"the linter stopped: {exc.diagnostics[0].message}", _file_span(rs)))
    except RecursionError:  # pragma: no cover - a deeply nested expression
        found.append(
            _note("the linter stopped: an expression is nested too deeply to analyse", _file_span(rs))
        )
    except Exception as exc:  # pragma: no cover - a bug in the linter must not hide the ruleset's findings
        found.append(
            _note(
                f"the linter stopped on an internal error ({type(exc).__name__}: {exc}); please report it",
                _file_span(rs),
            )
        )
    return ordered(found)


def ordered(diags: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Most likely root cause first: errors before warnings, then by file, line and column."""

    def key(d: Diagnostic) -> tuple[Any, ...]:
        s = d.span
        return (d.severity != "error", s.file if s else "", s.line if s else 0, s.col if s else 0, d.code)

    return sorted(diags, key=key)


def promote(diags: Iterable[Diagnostic], strict: bool) -> list[Diagnostic]:
    """With `strict`, warnings become errors (except the notes in `INFO_CODES`)."""
    if not strict:
        return list(diags)
    return [
        replace(d, severity="error") if d.severity == "warning" and d.code not in INFO_CODES else d
        for d in diags
    ]


# -- static findings -------------------------------------------------------------------------


def _randomizer_exprs(r: Randomizer) -> list[Expr]:
    out: list[Expr] = []
    if isinstance(r, Pool):
        out.append(r.count)
        if r.each is not None:
            out.append(r.each)
        for t in r.triggers:
            out += [e for e in (t.on, t.target, t.only_if) if e is not None]
    elif isinstance(r, Draw):
        out.append(r.count)
    if r.redraw is not None:
        out += [r.redraw.allowed, r.redraw.times]
    return out


def _check_exprs(check: Check) -> list[tuple[str, Expr]]:
    """Every expression of a check with its owner: a let's name, or '' for everything else."""
    out: list[tuple[str, Expr]] = [(let.name, let.expr) for let in check.lets]
    for rule in check.auto:
        out += [("", e) for e in (rule.when, rule.then) if e is not None]
    for r in check.roll:
        out += [("", e) for e in _randomizer_exprs(r)]
    if isinstance(check.outcome, Expr):
        out.append(("", check.outcome))
    else:
        for rule in check.outcome:
            out += [("", e) for e in (rule.when, rule.then) if e is not None]
    out += [("", e) for _, e in check.outputs]
    return out


def _walk(node: ast.Node) -> Iterable[ast.Node]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(ast.children(n))


def _calls(node: ast.Node) -> set[str]:
    return {n.func for n in _walk(node) if isinstance(n, ast.Call)}


def _table_paths(doc: Document, name: str) -> list[PathKey]:
    spec = doc.data.get("tables", {}).get(name, {})
    path: PathKey = ("tables", name)
    paths: list[PathKey] = []
    if "value" in spec:
        paths.append(path + ("value",))
    for i, row in enumerate(spec.get("rules", None) or []):
        for k in ("when", "then", "else"):
            if isinstance(row, dict) and k in row:
                paths.append(path + ("rules", i, k))

    def leaves(cases: Mapping[Any, Any], p: PathKey) -> None:
        for k, v in cases.items():
            if isinstance(v, dict):
                leaves(v, p + (k,))
            else:
                paths.append(p + (k,))

    if isinstance(spec.get("cases"), dict):
        leaves(spec["cases"], path + ("cases",))
    return paths


def _table_nodes(doc: Document, name: str) -> list[ast.Node]:
    """The expressions of a table's body, parsed from the document (numbers and booleans skipped)."""
    nodes: list[ast.Node] = []
    for p in _table_paths(doc, name):
        raw: Any = doc.data
        for q in p:
            raw = raw[q]
        if isinstance(raw, str):
            try:
                nodes.append(parse(raw, doc.expr_origin(p)))
            except RulecraftError:  # pragma: no cover - it compiled, so it parses
                continue
    return nodes


def _tables_reached(check: Check, bodies: Mapping[str, list[ast.Node]]) -> set[str]:
    """The tables a check calls, directly or through other tables."""
    todo = [t for _, e in _check_exprs(check) for t in _calls(e.node) if t in bodies]
    seen: set[str] = set()
    while todo:
        t = todo.pop()
        if t in seen:
            continue
        seen.add(t)
        todo += [u for n in bodies[t] for u in _calls(n) if u in bodies]
    return seen


def _unused(rs: Ruleset) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    bodies = {t: _table_nodes(rs.document, t) for t in rs.model.tables}
    called: set[str] = set()
    for check in rs.checks.values():
        exprs = _check_exprs(check)
        used = set().union(*(ast.names(e.node) for _, e in exprs)) if exprs else set()
        for spec in check.inputs:
            if spec.name not in used:
                found.append(
                    Diagnostic(
                        "RC805",
                        f"input '{spec.name}' of check '{check.name}' is never used",
                        spec.span,
                        "no value, rule, die or output reads it; remove it, or use it where the rules need it",
                        "warning",
                    )
                )
        for let in check.lets:
            others = set().union(*(ast.names(e.node) for owner, e in exprs if owner != let.name))
            if let.name not in others:
                found.append(
                    Diagnostic(
                        "RC806",
                        f"named value '{let.name}' of check '{check.name}' is never used",
                        let.span,
                        "no other value, rule, die or output reads it; remove it, or make it an output if it is only to be shown",
                        "warning",
                    )
                )
        called |= _tables_reached(check, bodies)
    for name, table in rs.model.tables.items():
        if name not in called:
            found.append(
                Diagnostic(
                    "RC807",
                    f"table '{name}' is never called by any check",
                    table.span,
                    "remove it, or call it from a check (directly or through another table)",
                    "warning",
                )
            )
    return found


# -- dynamic findings: running the checks ----------------------------------------------------


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


_GAP = _Marker("falls through")
_FAIL = _Marker("fails")


@dataclass
class _Example:
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


class _Probe:
    """Stands in for a check's compiled `program`: runs it, and records which rule fired,
    which later rules would have matched too, and every roll that falls through or fails."""

    def __init__(self, owner: _Analysis, check: Check) -> None:
        self.owner = owner
        self.check = check
        self.program = check.program
        self.dice_names = [r.name for r in check.roll]
        self.rules: tuple[Rule, ...] = check.outcome if isinstance(check.outcome, tuple) else ()
        self.fired: set[int] = set()
        self.shadowed: dict[int, set[int]] = {}
        self.pending = [j for j, r in enumerate(self.rules) if r.when is not None]
        self.blank = (None,) * len(check.layout)
        self.combo: dict[str, Any] = {}
        self.index = -1
        self.policy = ""
        self.first_rolled = False
        self.gaps: dict[tuple[str, ...], _Example] = {}
        self.failures: dict[tuple[Any, ...], _Example] = {}
        self.calls = 0

    def __call__(self, env: dict[str, Any], *dice: Any) -> tuple[Any, ...]:
        self.calls += 1
        self.owner.table_gap = None
        try:
            key = self.program(env, *dice)
        except EvalError as exc:
            return self.failed(exc, env, dice)
        fired = key[1]
        if fired >= 0 and fired not in self.fired:
            self.fired.add(fired)
            if fired in self.pending:
                self.pending.remove(fired)
        later = [j for j in self.pending if j > fired]
        if later:
            full = self.full_env(env, dice, key)
            for j in later:
                when = self.rules[j].when
                assert when is not None
                try:
                    if when.run(full):
                        self.shadowed.setdefault(j, set()).add(fired)
                except RulecraftError:
                    continue
        return key

    def full_env(
        self, env: dict[str, Any], dice: tuple[Any, ...], key: tuple[Any, ...] | None
    ) -> dict[str, Any]:
        full = dict(env)
        full.update(zip(self.dice_names, dice))
        if key is not None:
            full.update(zip(self.check.layout, key[2:]))
        return full

    def values_at(self, env: dict[str, Any], dice: tuple[Any, ...]) -> dict[str, Any]:
        """The named values after the roll, as far as they can be computed."""
        full = self.full_env(env, dice, None)
        out: dict[str, Any] = {}
        for let in self.check.post_lets:
            try:
                full[let.name] = out[let.name] = let.expr.run(full)
            except RulecraftError:
                break
        return out

    def failed(
        self, exc: RulecraftError, env: dict[str, Any], dice: tuple[Any, ...] | None, before: bool = False
    ) -> tuple[Any, ...]:
        """Record a roll (or, with `dice` None, an input combination) that has no result;
        `before`: it failed before any die was rolled."""
        d = exc.diagnostics[0]
        shown_dice = dict(zip(self.dice_names, dice)) if dice is not None else None
        values = self.values_at(env, dice) if dice is not None else {}
        if d.code == "RC501":
            gap = self.owner.table_gap
            where: tuple[str, ...] = ("table", gap[0]) if gap else ("check",)
            found = self.gaps.get(where)
            if found is None:
                self.gaps[where] = _Example(
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
            self.owner.table_gap = None
            return (_GAP, -2, *self.blank)
        where_f = (d.code, d.span.line if d.span else 0, d.span.col if d.span else 0)
        if where_f not in self.failures:
            self.failures[where_f] = _Example(
                dict(self.combo),
                shown_dice,
                values,
                None,
                self.policy,
                self.first_rolled,
                diagnostic=d,
                before=before,
            )
        return (_FAIL, -2, *self.blank)


class _Analysis:
    """One ruleset's dynamic analysis, on a private copy of its compiled model whose table
    functions are wrapped to record the arguments they are called with."""

    def __init__(self, rs: Ruleset, budget: LintBudget) -> None:
        self.rs = rs
        self.doc = rs.document
        self.budget = budget
        self.limits = rs.limits
        self.deadline = time.monotonic() + budget.max_seconds
        self.model: RulesetModel = compile_document(rs.document)
        self.bodies = {t: _table_nodes(self.doc, t) for t in self.model.tables}
        self.table_args: dict[str, set[tuple[Any, ...]]] = {t: set() for t in self.model.tables}
        self.table_overflow: set[str] = set()
        self.table_unsure: set[str] = set()
        self.table_gap: tuple[str, tuple[Any, ...]] | None = None
        self.found: list[Diagnostic] = []
        self._instrument()

    # -- set-up ---------------------------------------------------------------------------

    def _instrument(self) -> None:
        """Wrap each table's function where the generated code looks it up (its namespace)."""
        by_id = {id(t.run): t.name for t in self.model.tables.values()}
        spaces: dict[int, dict[str, Any]] = {}
        for t in self.model.tables.values():
            ns = getattr(t.run, "__globals__", None)
            if isinstance(ns, dict):
                spaces[id(ns)] = ns
        for check in self.model.checks.values():
            ns = getattr(check.program, "__globals__", None)
            if isinstance(ns, dict):
                spaces[id(ns)] = ns
        for ns in spaces.values():
            for k, v in list(ns.items()):
                name = by_id.get(id(v))
                if name is not None and v is self.model.tables[name].run:
                    ns[k] = self._wrap(name, v)

    def _wrap(self, name: str, real: Any) -> Any:
        seen = self.table_args[name]
        cap = self.budget.max_table_args

        def run(*args: Any) -> Any:
            try:
                if len(seen) < cap:
                    seen.add(args)
                elif args not in seen:
                    self.table_overflow.add(name)
            except TypeError:
                self.table_overflow.add(name)
            try:
                return real(*args)
            except EvalError as exc:
                if self.table_gap is None and exc.diagnostics and exc.diagnostics[0].code == "RC501":
                    self.table_gap = (name, args)
                raise

        return run

    def run(self) -> list[Diagnostic]:
        for name, check in self.model.checks.items():
            self._check(check, self.rs.checks[name])
        self._tables()
        return self.found

    # -- the input grid -----------------------------------------------------------------------

    def _constants(self, check: Check) -> set[Fraction | int]:
        nodes = [e.node for _, e in _check_exprs(check)]
        for t in _tables_reached(check, self.bodies):
            nodes += self.bodies[t]
            nodes += [
                ast.Num(k) for k, _ in self._case_entries(t) if isinstance(k, int) and not isinstance(k, bool)
            ]
        found: set[Fraction | int] = set()
        for node in nodes:
            for n in _walk(node):
                if isinstance(n, ast.Num):
                    found.add(n.value)
        return found

    @staticmethod
    def _candidates(spec: InputSpec, consts: set[Fraction | int]) -> tuple[list[Any], bool]:
        """Values to try for one input, and whether they are every value it allows."""
        if spec.scale is not None:
            return list(spec.scale.members), True
        if spec.kind == "bool":
            return [False, True], True
        whole = spec.kind == "int"
        picks: set[Any] = set()
        for c in consts:
            for v in (c - 1, c, c + 1):
                if not whole or (isinstance(v, int) or (isinstance(v, Fraction) and v.denominator == 1)):
                    picks.add(int(v) if whole else v)
        if spec.default is not None:
            picks.add(spec.default)
        anchors = picks | {0, 1}
        lo = spec.minimum if spec.minimum is not None else min(anchors) - 1
        hi = spec.maximum if spec.maximum is not None else max(anchors) + 1
        full = spec.minimum is not None and spec.maximum is not None and whole
        if whole:
            lo, hi = math.ceil(lo), math.floor(hi)
            if hi - lo + 1 <= 21:
                return list(range(lo, hi + 1)), full
        values = {lo, hi} | {p for p in picks if lo <= p <= hi}
        if whole:
            values |= {lo + 1, hi - 1}
            step = (hi - lo) / 8
            values |= {lo + round(step * k) for k in range(1, 8)}
        else:
            values |= {Fraction(lo) + Fraction(hi - lo) * Fraction(k, 8) for k in range(1, 8)}
        return sorted(values), False

    def _grid(self, check: Check) -> tuple[list[dict[str, Any]], bool]:
        consts = self._constants(check)
        names = [spec.name for spec in check.inputs]
        lists: list[list[Any]] = []
        complete = True
        for spec in check.inputs:
            values, full = self._candidates(spec, consts)
            lists.append(values)
            complete = complete and full
        cap = self.budget.max_combinations
        # The most ordinary value of each input: its default, else the middle of its candidates.
        home = [self._home(spec, values) for spec, values in zip(check.inputs, lists)]

        def distance(row: tuple[int, ...]) -> tuple[int, int]:
            """Rows nearest the ordinary values first, so that examples in messages read naturally."""
            return (sum(i != h for i, h in zip(row, home)), sum(abs(i - h) for i, h in zip(row, home)))

        if math.prod(len(v) for v in lists) <= cap:
            rows = sorted(product(*(range(len(v)) for v in lists)), key=distance)
        else:
            # Too many for all. Rules compare an input with another, rarely three at a time:
            # every pair of values of every two inputs with the others at their ordinary
            # values, then a covering set that holds every pair at least once more.
            complete = False
            sizes = [len(v) for v in lists]
            near = {
                tuple(a if k == i else b if k == j else h for k, h in enumerate(home))
                for i in range(len(sizes))
                for j in range(i, len(sizes))
                for a in range(sizes[i])
                for b in range(sizes[j])
            }
            rows = sorted(near, key=distance)[:cap]
            if len(rows) < cap:
                rows += sorted(set(_pairwise(sizes, cap - len(rows))) - near, key=distance)
        return [{n: lists[k][i] for k, (n, i) in enumerate(zip(names, row))} for row in rows], complete

    @staticmethod
    def _home(spec: InputSpec, values: list[Any]) -> int:
        if spec.default is not None:
            for i, v in enumerate(values):
                if type(v) is type(spec.default) and v == spec.default:
                    return i
        return 0 if spec.scale is not None or spec.kind == "bool" else len(values) // 2

    # -- cost ---------------------------------------------------------------------------------

    def _cost(self, check: Check, env: dict[str, Any], follow: bool) -> tuple[float, float]:
        """Estimated (seconds, rolls) to evaluate one combination exactly, following rerolls
        and redraws or not. Estimates are upper bounds in spirit, not promises: the wall
        clock and the exact evaluator's own limits stay in force.

        A randomizer whose size depends on earlier dice is sized at the largest it takes over
        a few of those dice' values."""
        states = 1.0
        extra = 0.0
        envs = [env]
        read_later = (
            set().union(*(ast.names(e.node) for r in check.roll for e in _randomizer_exprs(r)))
            if check.roll
            else set()
        )
        for r in check.roll:
            size, once, each = self._size(r, envs, follow)
            extra += once + each * states
            states *= size
            if r.name in read_later and size <= 1000:
                envs = self._extend(r, envs)
        return states * _PER_STATE + extra, states

    def _extend(self, r: Randomizer, envs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for e in envs:
            try:
                values = list(
                    randomizer_table(r, e, RunContext(self.limits, "always", self.rs.caches)).weights
                )[:6]
            except (RulecraftError, TypeError, ValueError):
                values = []
            out += [{**e, r.name: v} for v in values]
            if len(out) >= 36:
                break
        return out or envs

    def _size(self, r: Randomizer, envs: list[dict[str, Any]], follow: bool) -> tuple[float, float, float]:
        """How many values the program sees from `r`, and the seconds it costs to make them:
        once (a pool's statistics, memoised) and for each value of the dice before it (a
        reroll chain's exact solution, a redraw's choices)."""
        env = envs[0]
        if isinstance(r, Die):
            n = float(len(set(r.faces)))
            return n, 0.0, (n * n * _PER_STATE if follow and r.redraw is not None else 0.0)
        count = max(self._count(r.count, e) for e in envs)
        if isinstance(r, Draw):
            readings: list[Any] = [s for s, _ in r.bag.chits]
        else:
            readings = []
        kinds: set[tuple[Any, ...]] = set()
        if isinstance(r, Pool) and len(r.faces) > 1000:
            readings = list(
                range(len(set(r.faces)))
            )  # too many faces to read one by one: at most one reading each
            kinds = {(f, (), ()) for f in readings}
        elif isinstance(r, Pool):
            scope = dict(env)
            seen: set[Any] = set()
            for face in r.faces:
                scope["face"] = face
                try:
                    reading = r.each.run(scope) if r.each is not None else face
                    on = tuple(bool(t.on.run(scope)) for t in r.triggers)
                    target = tuple(
                        bool(t.target.run(scope)) if t.target is not None else False for t in r.triggers
                    )
                    hash(reading)
                except (RulecraftError, TypeError):
                    reading, on, target = face, (), ()
                if reading not in seen:
                    seen.add(reading)
                    readings.append(reading)
                kinds.add((reading, on, target))
        k = max(1, len(readings))
        multisets = float(_comb(count + k - 1, k - 1))
        size = multisets
        once = each = 0.0
        if r.folds is not None:
            size = min(size, _fold_size(r.folds, count, readings))
            once = count * k * size * _PER_FOLD
        if follow and isinstance(r, Pool) and r.triggers:
            m = float(_comb(count + len(kinds) - 1, len(kinds) - 1))
            each += m * m * _PER_CHAIN_STATE2 * 2
        if follow and r.redraw is not None:
            each += size * size * _PER_STATE
        return size, once, each

    @staticmethod
    def _count(e: Expr, env: dict[str, Any]) -> int:
        try:
            n = e.run(env)
        except RulecraftError:
            return 10  # depends on an earlier die: a guess, the wall clock still bounds it
        if isinstance(n, bool) or not isinstance(n, (int, Fraction)):
            return 10
        return max(0, min(int(n), 10**6))

    # -- one check ----------------------------------------------------------------------------

    def _roll_names(self, check: Check) -> list[str]:
        """Inputs and values known before the roll that anything after it reads."""
        known = {spec.name for spec in check.inputs} | {let.name for let in check.pre_lets}
        exprs: list[Expr] = [e for r in check.roll for e in _randomizer_exprs(r)]
        exprs += [let.expr for let in check.post_lets] + [e for _, e in check.outputs]
        if isinstance(check.outcome, Expr):
            exprs.append(check.outcome)
        else:
            exprs += [e for rule in check.outcome for e in (rule.when, rule.then) if e is not None]
        return sorted(known & set().union(*(ast.names(e.node) for e in exprs))) if exprs else []

    def _check(self, check: Check, public: Check) -> None:
        probe = _Probe(self, check)
        probed = replace(check, program=probe)
        dependent = self._dependent(check)
        can_skip_choices = (
            check.sequential
            and not dependent
            and all(t.action == "reroll" for r in check.roll if isinstance(r, Pool) for t in r.triggers)
        )
        first_rolled = replace(probed, sequential=False) if can_skip_choices else None
        policies = ("always", "never") if check.sequential else ("always",)
        combos, exhaustive = self._grid(check)
        roll_names = self._roll_names(check)
        produced: set[str] = set()
        auto_fired: set[int] = set()
        auto_true: dict[int, set[int]] = {}
        seen: set[tuple[Any, ...]] = set()
        skipped: list[tuple[dict[str, Any], str]] = []
        tried = 0
        spent = 0.0
        check_deadline = time.monotonic() + 3 * self.budget.max_cost
        for index, combo in enumerate(combos):
            if time.monotonic() > self.deadline:
                skipped += [(c, "the linter's time limit was reached") for c in combos[index:]]
                break
            probe.combo, probe.index = combo, index
            try:
                bound = bind_inputs(check, combo)
            except RulecraftError:
                continue
            tried += 1
            env = dict(bound)
            self.table_gap = None
            try:
                for let in check.pre_lets:
                    env[let.name] = let.expr.run(env)
            except LimitError as exc:
                skipped.append((combo, exc.diagnostics[0].message))
                continue
            except RulecraftError as exc:
                probe.failed(exc, env, None, before=True)
                continue
            fired = self._auto(check, env, auto_fired, auto_true, probe)
            if fired is not None:
                if isinstance(fired, Symbol):
                    produced.add(str(fired))
                continue
            try:
                key = tuple((n, env.get(n)) for n in roll_names)
                hash(key)
            except TypeError:  # pragma: no cover - inputs and values are hashable
                key = (("#", index),)
            if key in seen:
                continue
            seen.add(key)
            target, runs = probed, policies
            cost, states = self._cost(check, env, check.sequential)
            cost *= len(policies)
            if check.sequential and cost > self.budget.max_follow and first_rolled is not None:
                target, runs = first_rolled, ("always",)
                cost, states = self._cost(check, env, False)
            reason = ""
            if states > self.limits.max_states:
                reason = f"about {states:.3g} rolls to enumerate, over the exact evaluator's limit of {self.limits.max_states}"
            elif cost > self.budget.max_single:
                reason = "too many dice or chits to enumerate within the linter's budget for one combination"
            elif spent + cost > self.budget.max_cost or time.monotonic() > check_deadline:
                reason = "the linter's budget for this check was spent"
            if reason:
                skipped.append((combo, reason))
                continue
            spent += cost
            probe.first_rolled = target is first_rolled
            for policy in runs:
                probe.policy = policy if check.sequential and target is probed else ""
                self.table_gap = None
                before = {k: v.combo for k, v in probe.gaps.items()}
                try:
                    dist = distribution(target, bound, RunContext(self.limits, policy, self.rs.caches))
                except LimitError as exc:
                    skipped.append((combo, exc.diagnostics[0].message))
                    break
                except RulecraftError as exc:
                    probe.failed(exc, env, None)
                    break
                weights = dist.outcome.weights
                produced |= {str(o) for o, w in weights.items() if w and isinstance(o, Symbol)}
                gap_weight = weights.get(_GAP, 0)
                if gap_weight:
                    for where, example in probe.gaps.items():
                        if where not in before and example.probability is None:
                            example.probability = Fraction(gap_weight, dist.outcome.total)
        self._report_check(
            check, public, probe, produced, auto_fired, auto_true, skipped, tried, len(combos), exhaustive
        )

    def _dependent(self, check: Check) -> bool:
        names: set[str] = set()
        for r in check.roll:
            if any(ast.names(e.node) & names for e in _randomizer_exprs(r)):
                return True
            names.add(r.name)
        return False

    def _auto(
        self, check: Check, env: dict[str, Any], fired: set[int], true_at: dict[int, set[int]], probe: _Probe
    ) -> Any:
        """The auto rule that decides this combination (None: roll), recording which others matched."""
        first: int | None = None
        value: Any = None
        for i, rule in enumerate(check.auto):
            try:
                hit = rule.when is None or bool(rule.when.run(env))
            except RulecraftError as exc:
                if first is None:
                    probe.failed(exc, env, None, before=True)
                    return _FAIL
                continue
            if not hit:
                continue
            if first is None:
                first = i
                fired.add(i)
                try:
                    value = rule.then.run(env)
                except RulecraftError as exc:
                    probe.failed(exc, env, None, before=True)
                    return _FAIL
            else:
                true_at.setdefault(i, set()).add(first)
        return value if first is not None else None

    # -- reporting ------------------------------------------------------------------------------

    def _span(self, path: PathKey, key: bool = True) -> Span:
        return self.doc.span(path, key=key)

    def _report_check(
        self,
        check: Check,
        public: Check,
        probe: _Probe,
        produced: set[str],
        auto_fired: set[int],
        auto_true: dict[int, set[int]],
        skipped: list[tuple[dict[str, Any], str]],
        tried: int,
        total: int,
        exhaustive: bool,
    ) -> None:
        name = check.name
        for where, ex in probe.gaps.items():
            self.found.append(self._gap(check, where, ex, tried))
        for ex in probe.failures.values():
            d = ex.diagnostic
            assert d is not None
            when = self._situation(check, ex)
            self.found.append(
                Diagnostic(
                    "RC808",
                    f"check '{name}' fails for an allowed input: {when}: {d.message} ({d.code})",
                    d.span if d.span is not None and d.span.line else public.span,
                    d.hint
                    or "guard the expression (for example with 'if ... else'), or narrow the inputs with min and max",
                )
            )
        if skipped:
            combo, reason = skipped[0]
            self.found.append(
                _note(
                    f"check '{name}' was not fully analysed: {len(skipped)} of {total} input combinations "
                    f"were left out, e.g. {self._inputs(check, combo)} ({reason})",
                    public.span,
                )
            )
            self.table_unsure |= _tables_reached(check, self.bodies)
            return
        if probe.failures:
            # Rolls that fail have no outcome and stop before later rules and tables: which
            # rules fire and which outcomes come out cannot be judged until they are fixed.
            self.table_unsure |= _tables_reached(check, self.bodies)
            return
        every = "for every allowed input" if exhaustive else f"for all {tried} input combinations tried"
        scope = "for any allowed input" if exhaustive else f"for any of the {tried} input combinations tried"
        # A rule that never fires and is the only one to give an outcome: one finding, not two.
        silent: list[tuple[str, Rule, set[int] | None, str, Span | None]] = []
        for j, rule in enumerate(check.auto):
            if rule.when is not None and j not in auto_fired:
                silent.append((f"auto rule {j + 1}", rule, auto_true.get(j), "input", public.auto[j].span))
        public_rules = public.outcome if isinstance(public.outcome, tuple) else probe.rules
        for j, rule in enumerate(probe.rules):
            if rule.when is not None and j not in probe.fired:
                silent.append((f"rule {j + 1}", rule, probe.shadowed.get(j), "roll", public_rules[j].span))
        explained: set[str] = set()
        for label, rule, shadowers, what, span in silent:
            assert rule.when is not None
            gives = _named_outcome(rule.then.node, check)
            lost = gives if gives is not None and gives not in produced and not probe.gaps else None
            if lost is not None:
                explained.add(lost)
            self.found.append(
                self._never(
                    label, to_text(rule.when.node), shadowers, what, scope, span, check=name, lost=lost
                )
            )
        if probe.gaps:
            return  # outcomes that the rolls falling through should have had: the gap comes first
        mentioned, opaque = self._mentions(check)
        for k, member in enumerate(check.outcomes.members):
            if member.name in produced or member.name in explained:
                continue
            span = self._outcome_span(check, k)
            if member.name not in mentioned and not opaque:
                self.found.append(
                    Diagnostic(
                        "RC803",
                        f"outcome '{member.name}' of check '{name}' is declared but nothing gives it",
                        span,
                        "no rule, value or table of this check names it; remove it from the outcomes, or add the rule that gives it",
                        "warning",
                    )
                )
            else:
                self.found.append(
                    Diagnostic(
                        "RC804",
                        f"outcome '{member.name}' of check '{name}' has probability 0 {every}",
                        span,
                        "no roll reaches it with these dice and inputs; compare the conditions that give it with the dice faces and the inputs' min and max",
                        "warning",
                    )
                )

    def _never(
        self,
        label: str,
        condition: str,
        shadowers: set[int] | None,
        what: str,
        scope: str,
        span: Span | None,
        check: str | None = None,
        table: str | None = None,
        lost: str | None = None,
    ) -> Diagnostic:
        owner = f" of table '{table}'" if table else (f" of check '{check}'" if check else "")
        head = f"{label}{owner} (when {condition}) never fires"
        tail = f", so outcome '{lost}' never comes out" if lost is not None else ""
        earlier = sorted(i + 1 for i in shadowers or () if i >= 0)
        if earlier:
            who = (
                f"earlier rule {earlier[0]}"
                if len(earlier) == 1
                else "earlier rules " + _and([str(i) for i in earlier])
            )
            msg = f"{head}: {who} already decide{'s' if len(earlier) == 1 else ''} every {what} it matches{tail}"
            hint = "move it above the rule that covers it, or narrow that rule's condition; if it is not needed, remove it"
        else:
            msg = f"{head}: its condition is never true {scope}{tail}"
            hint = "compare the condition with the dice faces and the inputs' min and max"
        return Diagnostic("RC802", msg, span, hint, "warning")

    def _mentions(self, check: Check) -> tuple[set[str], bool]:
        """Scale names that the check's values, rules and tables name; and whether some
        builtin (shift, majority, best, ...) may compute a value nothing names."""
        nodes = [e.node for _, e in _check_exprs(check)]
        for t in _tables_reached(check, self.bodies):
            nodes += self.bodies[t]
            nodes += [ast.Name(v) for _, v in self._case_entries(t) if isinstance(v, str)]
        names: set[str] = set()
        opaque = any(
            spec.scale is not None and spec.scale.name == check.outcomes.name for spec in check.inputs
        )
        for node in nodes:
            for n in _walk(node):
                if isinstance(n, ast.Sym):
                    names.add(n.name)
                elif isinstance(n, ast.Name):
                    names.add(n.id)
                elif isinstance(n, ast.Call) and n.func in _OPAQUE:
                    opaque = True
        return names, opaque

    def _case_entries(self, table: str) -> list[tuple[Any, Any]]:
        """Every (key, value) pair of a value table, at every nesting level."""
        cases = self.doc.data.get("tables", {}).get(table, {}).get("cases")
        out: list[tuple[Any, Any]] = []
        stack = [cases] if isinstance(cases, dict) else []
        while stack:
            level = stack.pop()
            for k, v in level.items():
                out.append((k, v))
                if isinstance(v, dict):
                    stack.append(v)
        return out

    def _outcome_span(self, check: Check, k: int) -> Span:
        raw = self.doc.data.get("checks", {}).get(check.name, {}).get("outcomes")
        if isinstance(raw, list):
            return self.doc.span(("checks", check.name, "outcomes", k))
        return self.doc.span(("checks", check.name, "outcomes"))

    def _gap(self, check: Check, where: tuple[str, ...], ex: _Example, tried: int) -> Diagnostic:
        situation = self._situation(check, ex)
        facts = []
        if ex.probability:
            facts.append(f"probability {_frac(ex.probability)} for these inputs")
        if ex.combos > 1:
            facts.append(f"{ex.combos} of {tried} input combinations tried have such rolls")
        if where[0] == "table":
            table = where[1]
            params = [p for p, _ in self.model.tables[table].params]
            args = ", ".join(f"{p} = {show(v)}" for p, v in zip(params, ex.args or ()))
            spec = self.doc.data.get("tables", {}).get(table, {})
            part = "cases" if "cases" in spec else "rules"
            tail = f" ({'; '.join(facts)})" if facts else ""
            return Diagnostic(
                "RC801",
                f"table '{table}' has no {'case' if part == 'cases' else 'rule'} for {args}: "
                f"e.g. in check '{check.name}', {situation} falls through{tail}",
                self._span(("tables", table, part)),
                f"add {'a case' if part == 'cases' else 'a rule'} for these values, or an 'else' {'case' if part == 'cases' else 'row'} at the end",
            )
        values = ", ".join(f"{k} = {show(v)}" for k, v in ex.values.items() if _shown(v))
        tail = f" ({'; '.join(([values] if values else []) + facts)})" if values or facts else ""
        return Diagnostic(
            "RC801",
            f"the outcome rules of check '{check.name}' leave rolls without an outcome: e.g. {situation} falls through{tail}",
            self._span(("checks", check.name, "outcome")),
            "add a rule for these rolls, or an 'else:' row at the end",
        )

    def _situation(self, check: Check, ex: _Example) -> str:
        inputs = self._inputs(check, ex.combo)
        if ex.dice is None:
            return f"{inputs} (before the roll)" if ex.before else inputs
        dice = ", ".join(_show_die(k, v) for k, v in ex.dice.items())
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

    @staticmethod
    def _inputs(check: Check, combo: Mapping[str, Any]) -> str:
        shown = [
            f"{s.name} = {show(combo[s.name])}"
            for s in check.inputs
            if s.name in combo and combo[s.name] != s.default
        ]
        return ", ".join(shown) if shown else ("the default inputs" if check.inputs else "no inputs")

    # -- tables -----------------------------------------------------------------------------------

    def _tables(self) -> None:
        """RC802 for the rules of tables, over every argument list the checks called them with."""
        data = self.doc.data.get("tables", {})
        wanted = [
            t for t, spec in data.items() if isinstance(spec.get("rules"), list) and self.table_args.get(t)
        ]
        wanted = [
            t
            for t in wanted
            if t not in self.table_overflow and t not in self.table_unsure and self._observed(t)
        ]
        if not wanted:
            return
        probes = self._rule_probes(wanted)
        if probes is None:
            return
        for t in wanted:
            rows = data[t]["rules"]
            tests = {j: probes[(t, j)] for j, row in enumerate(rows) if "when" in row and (t, j) in probes}
            if len(tests) != sum(1 for row in rows if "when" in row):
                continue
            fired: set[int] = set()
            shadowed: dict[int, set[int]] = {}
            ok = True
            for args in self.table_args[t]:
                first: int | None = None
                for j in range(len(rows)):
                    if j not in tests:  # an else row
                        first = j if first is None else first
                        break
                    if first is not None and j in fired:
                        continue
                    try:
                        hit = bool(tests[j](*args))
                    except RulecraftError:
                        continue
                    except Exception:  # pragma: no cover - a value of an unexpected kind
                        ok = False
                        break
                    if hit and first is None:
                        first = j
                        fired.add(j)
                    elif hit and first is not None:
                        shadowed.setdefault(j, set()).add(first)
                if not ok:
                    break
            if not ok:
                continue
            calls = len(self.table_args[t])
            otherwise = next((j for j, row in enumerate(rows) if "when" not in row), None)
            if otherwise is not None:
                for j in range(otherwise + 1, len(rows)):
                    shadowed[j] = {otherwise}
            for j, row in enumerate(rows):
                if "when" not in row or j in fired:
                    continue
                self.found.append(
                    self._never(
                        f"rule {j + 1}",
                        str(row["when"]),
                        shadowed.get(j),
                        "call",
                        f"for any of the {calls} different calls the checks make",
                        self._span(("tables", t, "rules", j, "when")),
                        table=t,
                    )
                )

    def _observed(self, table: str) -> bool:
        """Whether every call of the table happens at run time (a call with constant
        arguments is worked out once by the compiler, and the wrapper never sees it)."""
        sites: list[ast.Call] = []
        for check in self.model.checks.values():
            for _, e in _check_exprs(check):
                sites += [n for n in _walk(e.node) if isinstance(n, ast.Call) and n.func == table]
        for nodes in self.bodies.values():
            for node in nodes:
                sites += [n for n in _walk(node) if isinstance(n, ast.Call) and n.func == table]
        return all(any(ast.names(a) for a in site.args) for site in sites)

    def _rule_probes(self, tables: Sequence[str]) -> dict[tuple[str, int], Any] | None:
        """Each table rule's condition as a function of the table's parameters: compiled as a
        one-line table of its own in a copy of the ruleset, so it has the engine's semantics."""
        data = dict(self.doc.data)
        specs = dict(data.get("tables", {}))
        names: dict[str, tuple[str, int]] = {}
        for t in tables:
            for j, row in enumerate(specs[t]["rules"]):
                if "when" not in row:
                    continue
                probe = f"{t}__lint{j}"
                while probe in specs:
                    probe += "_"
                specs[probe] = {"params": specs[t].get("params", []), "returns": "bool", "value": row["when"]}
                names[probe] = (t, j)
        data["tables"] = specs
        data["checks"] = {}
        try:
            model = compile_document(Document(self.doc.source, data, self.doc.places))
        except RulecraftError:
            return None
        return {key: model.tables[probe].run for probe, key in names.items() if probe in model.tables}


# -- helpers -------------------------------------------------------------------------------------


def _note(message: str, span: Span | None) -> Diagnostic:
    return Diagnostic(
        "RC809",
        message,
        span,
        "the linter bounds its work on every ruleset; the findings above cover what it analysed",
        "warning",
    )


def _file_span(rs: Ruleset) -> Span:
    return rs.document.span(())


def _frac(p: Fraction) -> str:
    if p.denominator == 1:
        return str(p.numerator)
    if p.denominator <= 1000:
        return f"{p.numerator}/{p.denominator}"
    return f"about {float(p):.4g}"


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _named_outcome(node: ast.Node, check: Check) -> str | None:
    """The outcome a rule's `then` names outright (`hit` or `'hit'`), if it does."""
    name = node.name if isinstance(node, ast.Sym) else node.id if isinstance(node, ast.Name) else None
    return name if name is not None and name in check.outcomes.names else None


def _pairwise(sizes: list[int], cap: int) -> list[tuple[int, ...]]:
    """Rows of value indexes in which every pair of values of every two columns appears at
    least once (a greedy covering array; at most `cap` rows, deterministic)."""
    n = len(sizes)
    uncovered = {
        (i, a, j, b)
        for i in range(n)
        for j in range(i + 1, n)
        for a in range(sizes[i])
        for b in range(sizes[j])
    }
    rows: list[tuple[int, ...]] = []
    while uncovered and len(rows) < cap:
        i, a, j, b = min(uncovered)
        row: list[int | None] = [None] * n
        row[i], row[j] = a, b
        for k in range(n):
            if row[k] is not None:
                continue

            def gain(v: int, k: int = k) -> int:
                return sum(
                    ((m, row[m], k, v) if m < k else (k, v, m, row[m])) in uncovered
                    for m in range(n)
                    if row[m] is not None
                )

            row[k] = max(range(sizes[k]), key=lambda v: (gain(v), -v))
        done = tuple(v if v is not None else 0 for v in row)
        rows.append(done)
        uncovered -= {(p, done[p], q, done[q]) for p in range(n) for q in range(p + 1, n)}
    return rows


def _comb(n: int, k: int) -> int:
    """A binomial coefficient, capped so that estimates never overflow a float."""
    if k <= 0:
        return 1
    value = 1
    for i in range(1, k + 1):
        value = value * (n - k + i) // i
        if value > 10**15:
            return 10**15
    return value


def _fold_size(keys: tuple[tuple[Any, ...], ...], n: int, readings: list[Any]) -> float:
    """At most how many different statistics a pool of `n` dice can show."""
    size = 1.0
    numbers = [v for v in readings if isinstance(v, (int, Fraction)) and not isinstance(v, bool)]
    for key in keys:
        if key[0] == "sum":
            size *= n * (max(numbers) - min(numbers)) + 1 if numbers else n * len(readings) + 1
        elif key[0] == "count":
            size *= n + 1
        else:
            size *= max(1, len(readings))
    return float(size)


def _show_die(name: str, value: Any) -> str:
    """`tens = 2`, `beads = [poor, good]`, or for a pool the exact evaluator only summarised,
    its statistics: `majority(rolled, ...) = half_pass`."""
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
