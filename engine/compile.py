"""Stage 4 — compile: a schema-valid document to the frozen `RulesetModel`.

Here every name is resolved, every expression type-checked and turned into a closure, and the
values of a check are split into those known before the roll and those that need dice.
Problems are collected (one per faulty statement) and raised together as a `CompileError`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from fractions import Fraction
from typing import Any

from . import types as T
from .builtins import Builtin, library
from .errors import CompileError, Diagnostic, InputError, RulecraftError, did_you_mean
from .inputs import coerce
from .expr import ast
from .expr.parser import parse
from .codegen import Emitter
from .folds import FOLDS
from .expr.printer import to_text
from .load import Document, ExprOrigin, PathKey
from .model import (
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
    Redraw,
    Trigger,
    Rule,
    RulesetModel,
    Scale,
    Table,
)
from .source import Span
from .values import Symbol, normalize

SUPPORTED_VERSIONS = (1,)



class _Fail(Exception):
    """One statement's problem; the compiler records it and goes on to the next statement."""

    def __init__(self, diag: Diagnostic) -> None:
        self.diag = diag


def _fail(code: str, message: str, span: Span | None, hint: str | None = None) -> _Fail:
    return _Fail(Diagnostic(code, message, span, hint))


def check_version(doc: Document) -> None:
    """Refuse a file written for a format this rulecraft does not read, before anything else."""
    data = doc.data if isinstance(doc.data, dict) else {}
    version = data.get("rulecraft")
    if version in SUPPORTED_VERSIONS:
        return
    if version is None:
        message, span = "this file does not say which ruleset format it is written for", doc.span(())
    else:
        message, span = f"unsupported format version {version!r}", doc.span(("rulecraft",))
    raise CompileError(
        [Diagnostic("RC003", message, span, f"start the file with 'rulecraft: {SUPPORTED_VERSIONS[-1]}' (this rulecraft reads format {', '.join(map(str, SUPPORTED_VERSIONS))})")]
    )


def compile_document(doc: Document) -> RulesetModel:
    """Compile a validated document, raising `CompileError` with every problem found."""
    return _Compiler(doc).run()


class _Compiler:
    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.data: dict[str, Any] = doc.data
        self.diags: list[Diagnostic] = []
        self.scales: dict[str, Scale] = {}
        self.bags: dict[str, Bag] = {}
        self.tables: dict[str, Table] = {}
        self._table_busy: list[str] = []
        self._locals: set[str] = set()
        self._instances: set[tuple[str, tuple[T.Type, ...]]] = set()
        self._owner: dict[str, str] = {}  # inline scales, by the check that declared them
        self._current: str | None = None
        self.builtins: dict[str, Builtin] = {}
        self.emit = Emitter()

    # -- driver -------------------------------------------------------------------------

    @contextmanager
    def statement(self) -> Iterator[None]:
        try:
            yield
        except _Fail as f:
            self.diags.append(f.diag)
        except RulecraftError as e:
            self.diags.extend(e.diagnostics)

    def run(self) -> RulesetModel:
        version = self.data.get("rulecraft")
        if version not in SUPPORTED_VERSIONS:
            raise CompileError(
                [
                    Diagnostic(
                        "RC003",
                        f"unsupported format version {version!r}",
                        self.doc.span(("rulecraft",)),
                        f"this rulecraft reads format version {', '.join(map(str, SUPPORTED_VERSIONS))}",
                    )
                ]
            )
        self._scales()
        self._bags()
        self.builtins = library({n: s.members for n, s in self.scales.items()})
        for name in self.data.get("tables", {}):
            with self.statement():
                self._table(name)
        checks: dict[str, Check] = {}
        for name in self.data.get("checks", {}):
            check = self._check(name)
            if check is not None:
                checks[name] = check
        if self.diags:
            unique: dict[tuple[object, ...], Diagnostic] = {}
            for d in self.diags:
                unique.setdefault((d.code, d.message, d.span.line if d.span else 0, d.span.col if d.span else 0), d)
            raise CompileError(list(unique.values()))
        notes = tuple(Note(n["id"], n["text"]) for n in self.data.get("notes", []))
        return RulesetModel(
            name=self.data["name"],
            title=self.data.get("title", self.data["name"]),
            version=version,
            notes=notes,
            scales=dict(self.scales),
            bags=dict(self.bags),
            tables=dict(self.tables),
            checks=checks,
            source_name=self.doc.source.name,
        )

    def span(self, *path: str | int, key: bool = False) -> Span:
        return self.doc.span(tuple(path), key=key)

    # -- scales and bags ---------------------------------------------------------------

    def _new_scale(self, name: str, members: list[str], path: PathKey, owner: str | None = None) -> Scale | None:
        if name in self.scales:
            self.diags.append(
                Diagnostic("RC307", f"scale '{name}' is declared twice", self.doc.span(path, key=True))
            )
            return None
        seen: set[str] = set()
        for i, m in enumerate(members):
            if m in seen:
                self.diags.append(
                    Diagnostic("RC307", f"'{m}' appears twice in scale '{name}'", self.doc.span(path + (i,)))
                )
            seen.add(m)
        scale = Scale(name, tuple(Symbol(name, m, i) for i, m in enumerate(members)), self.doc.span(path, key=True))
        self.scales[name] = scale
        if owner is not None:
            self._owner[name] = owner
        return scale

    def _scales(self) -> None:
        for name, members in self.data.get("scales", {}).items():
            self._new_scale(name, [str(m) for m in members], ("scales", name))

    def _bags(self) -> None:
        for name, spec in self.data.get("bags", {}).items():
            path: PathKey = ("bags", name)
            chits = spec["chits"]
            scale = self._new_scale(name, [str(c) for c in chits], path)
            if scale is None:
                continue
            contents = tuple((scale[str(c)], int(n)) for c, n in chits.items())
            self.bags[name] = Bag(name, scale, contents, int(spec.get("sets", 1)), self.doc.span(path, key=True))

    # -- expressions -------------------------------------------------------------------

    def expr(self, path: PathKey, scope: Mapping[str, T.Type], expect: T.Type | None = None) -> Expr:
        """Parse and compile the expression at `path` (a string, or a YAML number or boolean)."""
        return self.lower(self.node_at(path), scope, expect)

    def node_at(self, path: PathKey) -> ast.Node:
        """The syntax tree of the expression at `path`; YAML numbers and booleans are literals."""
        raw = self.doc.data
        for p in path:
            raw = raw[p]
        if isinstance(raw, bool):
            return ast.Bool(raw, span=self.doc.span(path))
        if isinstance(raw, (int, float)):
            return ast.Num(normalize(Fraction(str(raw))), span=self.doc.span(path))
        return parse(str(raw), self.doc.expr_origin(path))

    def lower(self, node: ast.Node, scope: Mapping[str, T.Type], expect: T.Type | None = None) -> Expr:
        """Type-check `node` and compile it to a function of the environment."""
        t, src = self._lower(node, scope, expect)
        if expect is not None and not expect.accepts(t):
            raise _fail("RC304", f"expected {expect} here, but this is {t}", node.span)
        return Expr(node, t, self.emit.expression(src, node.span), to_text(node))

    def _lower(self, node: ast.Node, scope: Mapping[str, T.Type], expect: T.Type | None) -> tuple[T.Type, str]:
        """The static type of `node` and its Python source; constant parts are folded."""
        t, src = self._lower_node(node, scope, expect)
        if not isinstance(node, (ast.Num, ast.Bool, ast.Sym, ast.Name)) and not ast.names(node):
            try:
                value = self.emit.expression(src, node.span)({})
            except RulecraftError:
                return t, src  # reported when it runs, with its position
            return t, self.emit.const(value)
        return t, src

    def _name(self, name: str) -> str:
        return f"v_{name}" if name in self._locals else f"env[{name!r}]"

    def _lower_node(self, node: ast.Node, scope: Mapping[str, T.Type], expect: T.Type | None) -> tuple[T.Type, str]:
        k = self.emit.const
        match node:
            case ast.Num(value=v):
                return T.NUM, k(v)
            case ast.Bool(value=v):
                return T.BOOL, k(v)
            case ast.Sym():
                s = self._symbol(node, expect)
                return T.sym(s.scale), k(s)
            case ast.Name(id=name):
                if name not in scope:
                    if expect is not None and expect.kind == "sym" and expect.scale in self.scales:
                        scale = self.scales[expect.scale]
                        if name in scale.names:
                            return T.sym(scale.name), k(scale[name])
                    raise _fail(
                        "RC301",
                        f"unknown name '{name}'",
                        node.span,
                        did_you_mean(name, list(scope)) or self._symbol_hint(name),
                    )
                return scope[name], self._name(name)
            case ast.ListExpr(items=items):
                elem_expect = expect.elem if expect is not None and expect.kind == "list" else None
                lowered = self._lower_all(items, scope, elem_expect)
                elem = lowered[0][0] if lowered else T.ANY
                for (t, _), item in zip(lowered, items):
                    if not elem.accepts(t):
                        raise _fail("RC304", f"a list holds values of one type; this is {t}, not {elem}", item.span)
                return T.listof(elem), "(" + "".join(f"{src}, " for _, src in lowered) + ")"
            case ast.Range(lo=lo, hi=hi):
                (_, a), (_, b) = self._need(lo, scope, T.NUM), self._need(hi, scope, T.NUM)
                return T.RANGE, f"_range({a}, {b}, {k(node.span)})"
            case ast.Unary(operand=operand):
                _, a = self._need(operand, scope, T.NUM)
                return T.NUM, f"(-{a})"
            case ast.Binary(op=op, left=left, right=right):
                (_, a), (_, b) = self._need(left, scope, T.NUM), self._need(right, scope, T.NUM)
                helper = {"/": "_div", "//": "_floordiv", "%": "_mod"}.get(op)
                if helper:
                    return T.NUM, f"{helper}({a}, {b}, {k(node.span)})"
                return T.NUM, f"({a} {op} {b})"
            case ast.Compare(op=op, left=left, right=right):
                return self._compare(node, op, left, right, scope)
            case ast.Logic(op=op, left=left, right=right):
                (_, a), (_, b) = self._need(left, scope, T.BOOL), self._need(right, scope, T.BOOL)
                return T.BOOL, f"({a} {op} {b})"
            case ast.Not(operand=operand):
                _, a = self._need(operand, scope, T.BOOL)
                return T.BOOL, f"(not {a})"
            case ast.Cond(then=then, test=test, other=other):
                _, c = self._need(test, scope, T.BOOL)
                if isinstance(then, ast.Sym) and expect is None:
                    tb, b = self._lower(other, scope, None)
                    ta, a = self._lower(then, scope, tb)
                else:
                    ta, a = self._lower(then, scope, expect)
                    tb, b = self._lower(other, scope, ta if ta.kind != "any" else expect)
                if not ta.accepts(tb):
                    raise _fail("RC304", f"both branches must have one type: {ta} and {tb}", node.span)
                return (tb if ta.kind == "any" else ta), f"({a} if {c} else {b})"
            case ast.Call():
                return self._call(node, scope)
        raise _fail("RC304", f"unsupported expression {type(node).__name__}", node.span)  # pragma: no cover

    def _lower_all(
        self, nodes: tuple[ast.Node, ...], scope: Mapping[str, T.Type], expect: T.Type | None
    ) -> list[tuple[T.Type, str]]:
        """Lower siblings, letting a typed one tell quoted names in the others their scale."""
        out: dict[int, tuple[T.Type, str]] = {}
        for i, n in enumerate(nodes):
            if not isinstance(n, ast.Sym) or expect is not None:
                out[i] = self._lower(n, scope, expect)
                if expect is None and out[i][0].kind == "sym":
                    expect = out[i][0]
        for i, n in enumerate(nodes):
            if i not in out:
                out[i] = self._lower(n, scope, expect)
                expect = expect or out[i][0]
        return [out[i] for i in range(len(nodes))]

    def _need(self, node: ast.Node, scope: Mapping[str, T.Type], want: T.Type) -> tuple[T.Type, str]:
        t, src = self._lower(node, scope, want)
        if not want.accepts(t):
            raise _fail("RC304", f"expected {want} here, but this is {t}", node.span)
        return t, src

    def _compare(
        self, node: ast.Node, op: str, a: ast.Node, b: ast.Node, scope: Mapping[str, T.Type]
    ) -> tuple[T.Type, str]:
        if op in ("in", "not in"):
            ta: T.Type | None = None
            sa = ""
            if not isinstance(a, ast.Sym):
                ta, sa = self._lower(a, scope, None)
            want = T.listof(ta) if ta is not None and ta.kind == "sym" else None
            tb, sb = self._lower(b, scope, want)
            if tb.kind not in ("list", "range", "multi", "any"):
                raise _fail("RC304", f"'in' needs a list, range or pool on its right, not {tb}", b.span)
            elem = T.NUM if tb.kind == "range" else (tb.elem or T.ANY)
            if ta is None:
                ta, sa = self._lower(a, scope, elem if elem.kind != "any" else None)
            if not elem.accepts(ta):
                raise _fail("RC304", f"cannot look for {ta} in a {tb}", a.span)
            test = f"_in({sa}, {sb})" if tb.kind in ("multi", "any") else f"({sa} in {sb})"
            return T.BOOL, test if op == "in" else f"(not {test})"
        first, second = (b, a) if isinstance(a, ast.Sym) else (a, b)
        t1, s1 = self._lower(first, scope, None)
        t2, s2 = self._lower(second, scope, t1 if t1.kind != "any" else None)
        if not t1.accepts(t2):
            left_t, right_t = (t1, t2) if first is a else (t2, t1)
            raise _fail("RC304", f"cannot compare {left_t} with {right_t}", node.span)
        if op not in ("==", "!=") and t1.kind not in ("num", "sym", "any"):
            raise _fail("RC304", f"'{op}' orders numbers or values of a scale, not {t1}", node.span)
        sa, sb = (s1, s2) if first is a else (s2, s1)
        if t1.kind in ("num", "any") and t2.kind in ("num", "any") and op not in ("==", "!="):
            # x <= y / k  is  x * k <= y  for a whole k > 0: no fraction is made on every roll.
            for side, other, flip in ((b, sa, False), (a, sb, True)):
                if isinstance(side, ast.Binary) and side.op == "/" and isinstance(side.right, ast.Num):
                    k = side.right.value
                    if isinstance(k, int) and k > 0:
                        _, num = self._lower(side.left, scope, T.NUM)
                        left, right = (f"({other} * {k})", num) if not flip else (num, f"({other} * {k})")
                        return T.BOOL, f"({left} {op} {right})"
        return T.BOOL, f"({sa} {op} {sb})"

    def _symbol(self, node: ast.Sym, expect: T.Type | None) -> Symbol:
        name = node.name
        if expect is not None and expect.kind == "list" and expect.elem is not None:
            expect = expect.elem
        if expect is not None and expect.kind == "sym" and expect.scale in self.scales:
            scale = self.scales[expect.scale]
            if name in scale.names:
                return scale[name]
            raise _fail(
                "RC305",
                f"'{name}' is not in scale '{scale.name}' ({', '.join(scale.names)})",
                node.span,
                did_you_mean(name, scale.names),
            )
        owners = [
            s for s in self.scales.values() if name in s.names and self._owner.get(s.name, self._current) == self._current
        ]
        if len(owners) == 1:
            return owners[0][name]
        if not owners:
            everything = [m for s in self.scales.values() for m in s.names]
            raise _fail("RC305", f"'{name}' is not in any scale", node.span, did_you_mean(name, everything))
        raise _fail(
            "RC306",
            f"'{name}' is in several scales ({', '.join(s.name for s in owners)}); compare it with a value to say which",
            node.span,
        )

    def _symbol_hint(self, name: str) -> str | None:
        for s in self.scales.values():
            if name in s.names:
                return f"'{name}' is a value of scale '{s.name}'; quote it: '{name}'"
        return None

    def _call(self, node: ast.Call, scope: Mapping[str, T.Type]) -> tuple[T.Type, str]:
        name, args = node.func, node.args
        if name in self.builtins:
            fn = self.builtins[name]
            if not fn.min_args <= len(args) <= fn.max_args:
                want = str(fn.min_args) if fn.min_args == fn.max_args else f"{fn.min_args} to {fn.max_args}"
                raise _fail("RC303", f"{name}() takes {want} argument(s), got {len(args)}", node.span, fn.doc)
            lowered = self._lower_all(args, scope, None) if name not in ("count", "majority") else [self._lower(args[0], scope, None)]
            if name in ("count", "majority") and len(args) == 2:
                pool_t = lowered[0][0]
                elem = pool_t.elem if pool_t.kind == "multi" and pool_t.elem is not None else None
                want = T.listof(elem) if elem is not None and (name == "majority" or isinstance(args[1], ast.ListExpr)) else elem
                lowered.append(self._lower(args[1], scope, want))
            result = fn.typer([t for t, _ in lowered])
            if isinstance(result, str):
                raise _fail("RC304", f"{name}() {result}", node.span, fn.doc)
            return result, f"{self.emit.const(fn.impl)}({', '.join(src for _, src in lowered)})"
        if name in self.data.get("tables", {}):
            table = self._table(name, node.span)
            if len(args) != len(table.params):
                raise _fail(
                    "RC303",
                    f"table {name}() takes {len(table.params)} argument(s) ({', '.join(p for p, _ in table.params)}), got {len(args)}",
                    node.span,
                )
            srcs = []
            types = []
            for arg, (pname, ptype) in zip(args, table.params):
                t, src = self._lower(arg, scope, ptype if ptype.kind != "any" else None)
                if not ptype.accepts(t):
                    raise _fail("RC304", f"parameter '{pname}' of {name}() is {ptype}, but this is {t}", arg.span)
                srcs.append(src)
                types.append(t)
            self._check_instance(table, tuple(types), node.span)
            return table.returns, f"{self.emit.const(table.run)}({', '.join(srcs)})"
        options = list(self.builtins) + list(self.data.get("tables", {}))
        raise _fail("RC302", f"unknown function '{name}'", node.span, did_you_mean(name, options))

    # -- tables ------------------------------------------------------------------------

    def _check_instance(self, table: Table, types: tuple[T.Type, ...], call: Span | None) -> None:
        """Type-check the body of a table with untyped parameters for the types of one call."""
        if all(p.kind != "any" for _, p in table.params) or (table.name, types) in self._instances:
            return
        self._instances.add((table.name, types))
        spec = self.data["tables"][table.name]
        path: PathKey = ("tables", table.name)
        scope = {p: (t if declared.kind == "any" else declared) for (p, declared), t in zip(table.params, types)}
        wanted: list[tuple[PathKey, T.Type | None]] = []
        if "value" in spec:
            wanted.append((path + ("value",), table.returns))
        for i, row in enumerate(spec.get("rules", [])):
            here = path + ("rules", i)
            if "when" in row:
                wanted.append((here + ("when",), T.BOOL))
            wanted.append((here + ("else" if "else" in row else "then",), table.returns))
        nodes: list[tuple[ast.Node, T.Type | None]] = []
        for where, expect in wanted:
            try:
                nodes.append((self.node_at(where), expect))
            except RulecraftError:
                continue  # a syntax error, already reported where the table was compiled
        saved = self._locals
        self._locals = set(scope)
        try:
            for node, expect in nodes:
                try:
                    self._lower_checked(node, scope, expect)
                except _Fail as f:
                    given = ", ".join(f"{p}: {t}" for p, t in scope.items())
                    raise _fail(f.diag.code, f.diag.message, f.diag.span, f"when {table.name}() is called with {given} (at line {call.line if call else '?'})") from None
        finally:
            self._locals = saved

    def _type_named(self, name: str, path: PathKey) -> T.Type:
        t = T.named(str(name), set(self.scales))
        if t is None:
            raise _fail(
                "RC312",
                f"unknown type or scale '{name}'",
                self.doc.span(path),
                did_you_mean(str(name), ["int", "number", "bool", *self.scales]),
            )
        return t

    def _table(self, name: str, used_at: Span | None = None) -> Table:
        if name in self.tables:
            return self.tables[name]
        if name in self._table_busy:
            cycle = " -> ".join(self._table_busy[self._table_busy.index(name) :] + [name])
            raise _fail("RC308", f"tables may not call themselves ({cycle})", used_at)
        path: PathKey = ("tables", name)
        spec = self.data["tables"][name]
        if name in self.builtins:
            raise _fail("RC307", f"table '{name}' has the name of a builtin function", self.doc.span(path, key=True))
        self._table_busy.append(name)
        saved_locals = self._locals
        try:
            params_raw = spec.get("params", [])
            params: list[tuple[str, T.Type]] = []
            if isinstance(params_raw, dict):
                for p, tname in params_raw.items():
                    params.append((p, self._type_named(tname, path + ("params", p))))
            else:
                params = [(str(p), T.ANY) for p in params_raw]
            returns = self._type_named(spec.get("returns", "any"), path + ("returns",))
            scope = dict(params)
            self._locals = set(scope)
            span = self.doc.span(path, key=True)
            if "rules" in spec:
                body = self._rules_source(path + ("rules",), scope, returns, span)
            elif "cases" in spec:
                body = self._cases(path + ("cases",), spec["cases"], params, 0, returns) + [
                    f"raise _nomatch({self.emit.const(span)}, 'case of table {name}', {self._shown(params)})"
                ]
            else:
                body = [f"return {self._lower_checked(self.node_at(path + ('value',)), scope, returns)}"]
            run = self.emit.function(f"table_{name}", [f"v_{p}" for p, _ in params], body, span)
            table = Table(name, tuple(params), returns, run, spec.get("description", ""), span)
            self.tables[name] = table
            return table
        finally:
            self._table_busy.pop()
            self._locals = saved_locals

    def _lower_checked(self, node: ast.Node, scope: Mapping[str, T.Type], expect: T.Type | None) -> str:
        t, src = self._lower(node, scope, expect)
        if expect is not None and not expect.accepts(t):
            raise _fail("RC304", f"expected {expect} here, but this is {t}", node.span)
        return src

    def _shown(self, params: list[tuple[str, T.Type]]) -> str:
        names = tuple(p for p, _ in params)
        return f"_pairs({self.emit.const(names)}, {', '.join(f'v_{p}' for p in names)})"

    def _rules_source(self, path: PathKey, scope: Mapping[str, T.Type], returns: T.Type, span: Span) -> list[str]:
        """An if-chain for an ordered rule list inside a table."""
        lines: list[str] = []
        for rule in self._rule_list(path, scope, returns):
            then = self._lower_checked(rule.then.node, scope, returns)
            if rule.when is None:
                lines.append(f"return {then}")
                return lines
            when = self._lower_checked(rule.when.node, scope, T.BOOL)
            lines += [f"if {when}:", f"    return {then}"]
        params = [(p, t) for p, t in scope.items()]
        lines.append(f"raise _nomatch({self.emit.const(span)}, 'rule', {self._shown(params)})")
        return lines

    def _rule_list(self, path: PathKey, scope: Mapping[str, T.Type], returns: T.Type) -> tuple[Rule, ...]:
        rows: list[Rule] = []
        items = self.doc.data
        for p in path:
            items = items[p]
        for i, item in enumerate(items):
            with self.statement():
                here = path + (i,)
                if "else" in item:
                    then = self.expr(here + ("else",), scope, returns)
                    rows.append(Rule(None, then, self.doc.span(here + ("else",), key=True)))
                else:
                    when = self.expr(here + ("when",), scope, T.BOOL)
                    then = self.expr(here + ("then",), scope, returns)
                    rows.append(Rule(when, then, self.doc.span(here + ("when",), key=True)))
        return tuple(rows)

    def _cases(
        self, path: PathKey, cases: dict[Any, Any], params: list[tuple[str, T.Type]], depth: int, returns: T.Type
    ) -> list[str]:
        """A value table as an if-chain: one nested mapping level per parameter, keys are patterns."""
        if depth >= len(params):
            raise _fail("RC310", "this value table is nested deeper than it has parameters", self.doc.span(path, key=True))
        pname, ptype = params[depth]
        lines: list[str] = []
        default: list[str] | None = None
        for key, sub in cases.items():
            here = path + (key,)
            with self.statement():
                if isinstance(sub, dict):
                    result = self._cases(here, sub, params, depth + 1, returns)
                else:
                    if depth != len(params) - 1:
                        raise _fail("RC310", f"expected a nested table for parameter '{params[depth + 1][0]}'", self.doc.span(here))
                    result = [f"return {self._lower_checked(self.node_at(here), {}, returns)}"]
                if key == "else":
                    default = result
                else:
                    lines.append(f"if {self._pattern(key, here, pname, ptype)}:")
                    lines += ["    " + line for line in result]
        if default is not None:
            lines += default
        return lines

    def _pattern(self, key: Any, path: PathKey, pname: str, ptype: T.Type) -> str:
        """A test of parameter `pname` against a case key: a value, a range, or a list of them."""
        var = f"v_{pname}"
        if isinstance(key, int):
            return f"{var} == {key!r}"
        place = self.doc.places.get(path)
        origin = self.doc.expr_origin(path)
        if place is not None and place.key is not None:
            origin = ExprOrigin(self.doc.source, place.key[0], place.key[1], 0)
        text = str(key)
        node = parse(text, origin) if text.lstrip().startswith("[") else None
        if not isinstance(node, ast.ListExpr):
            node = parse(f"[{text}]", ExprOrigin(origin.source, origin.line, origin.col - 1, origin.indent))
        assert isinstance(node, ast.ListExpr)
        tests: list[str] = []
        for item in node.items:
            expect = ptype if ptype.kind == "sym" else None
            if isinstance(item, ast.Name) and expect is None and ptype.kind == "any":
                item = ast.Sym(item.id, span=item.span)
            if isinstance(item, ast.Range):
                _, rng = self._lower(item, {}, None)
                tests.append(f"{var} in {rng}")
            else:
                _, src = self._lower(item, {}, expect)
                tests.append(f"{var} == {src}")
        return " or ".join(tests)

    # -- checks ------------------------------------------------------------------------

    def _check(self, name: str) -> Check | None:
        path: PathKey = ("checks", name)
        spec = self.data["checks"][name]
        before = len(self.diags)
        self._current = name
        scope: dict[str, T.Type] = {}
        kinds: dict[str, str] = {}

        def declare(n: str, t: T.Type, kind: str, at: PathKey) -> None:
            if n in kinds:
                raise _fail("RC307", f"'{n}' is already declared as {kinds[n]} of this check", self.doc.span(at, key=True))
            if n in self.builtins or n in self.data.get("tables", {}):
                raise _fail("RC307", f"'{n}' is the name of a function", self.doc.span(at, key=True))
            kinds[n] = kind
            scope[n] = t

        inputs: list[InputSpec] = []
        for iname in spec.get("inputs", {}):
            with self.statement():
                inp = self._input(name, iname)
                declare(iname, T.sym(inp.scale.name) if inp.scale else (T.BOOL if inp.kind == "bool" else T.NUM), "an input", path + ("inputs", iname))
                inputs.append(inp)

        # Values: parse first, then order by dependency and split before/after the roll.
        roll_spec: dict[str, Any] = spec.get("roll", {})
        let_spec: dict[str, Any] = spec.get("let", {})
        roll_names = set(roll_spec)
        let_nodes: dict[str, ast.Node] = {}
        for lname in let_spec:
            with self.statement():
                let_nodes[lname] = self.node_at(path + ("let", lname))
        order = self._let_order(path, let_nodes)
        needs_dice = {n for n in order if self._depends_on(n, let_nodes, roll_names)}
        lets: list[Let] = []
        pre_scope = dict(scope)
        for lname in order:
            if lname in needs_dice:
                continue
            with self.statement():
                e = self.lower(let_nodes[lname], pre_scope)
                declare(lname, e.type, "a named value", path + ("let", lname))
                pre_scope[lname] = e.type
                lets.append(Let(lname, e, True, self.doc.span(path + ("let", lname), key=True)))

        # Outcomes.
        outcomes = self._outcome_scale(name, path)
        if outcomes is None:
            return None
        out_t = T.sym(outcomes.name)

        auto: tuple[Rule, ...] = ()
        if "auto" in spec:
            auto = self._rule_list(path + ("auto",), self._only(pre_scope, path + ("auto",), roll_names | needs_dice), out_t)

        roll: list[Randomizer] = []
        roll_scope = dict(pre_scope)
        for rname, rspec in roll_spec.items():
            with self.statement():
                r = self._randomizer(path + ("roll", rname), rname, rspec, roll_scope)
                rtype = T.NUM if isinstance(r, Die) else (
                    T.multi(r.each.type if r.each else T.NUM) if isinstance(r, Pool) else T.multi(T.sym(r.bag.name))
                )
                declare(rname, rtype, "a die", path + ("roll", rname))
                roll_scope[rname] = rtype
                roll.append(r)

        for lname in order:
            if lname not in needs_dice:
                continue
            with self.statement():
                e = self.lower(let_nodes[lname], scope)
                declare(lname, e.type, "a named value", path + ("let", lname))
                lets.append(Let(lname, e, False, self.doc.span(path + ("let", lname), key=True)))

        outcome: Expr | tuple[Rule, ...] | None = None
        with self.statement():
            if isinstance(spec.get("outcome"), list):
                outcome = self._rule_list(path + ("outcome",), scope, out_t)
            else:
                outcome = self.expr(path + ("outcome",), scope, out_t)

        outputs: list[tuple[str, Expr]] = []
        out_scope = dict(scope)
        out_scope["outcome"] = out_t
        for oname in spec.get("outputs", {}):
            with self.statement():
                if oname in scope or oname == "outcome":
                    raise _fail("RC307", f"output '{oname}' has the name of another value", self.doc.span(path + ("outputs", oname), key=True))
                outputs.append((oname, self.expr(path + ("outputs", oname), out_scope)))

        if len(self.diags) > before or outcome is None:
            return None
        objective = self._objective(path, outcomes)
        names_before: set[str] = set()
        sequential = False
        for r in roll:
            params = [r.count] if not isinstance(r, Die) else []
            if isinstance(r, Pool) and r.each is not None:
                params.append(r.each)
            if r.redraw is not None or (isinstance(r, Pool) and r.triggers):
                sequential = True
            if any(ast.names(p.node) & names_before for p in params):
                sequential = True
            names_before.add(r.name)
        post = [let for let in lets if not let.before_roll]
        read_by = [let.expr.node for let in post] + [e.node for _, e in outputs]
        if isinstance(outcome, Expr):
            read_by.append(outcome.node)
        else:
            read_by += [n for rule in outcome for n in (rule.when.node if rule.when else None, rule.then.node) if n is not None]
        roll = [self._with_folds(r, read_by, scope) for r in roll]
        program = self._program(name, scope, out_t, [r.name for r in roll], post, outcome, outputs)
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
            objective=objective,
            sequential=sequential,
            examples=self._examples(path, spec, inputs, roll, lets, outputs, outcomes),
            span=self.doc.span(path, key=True),
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
        value_names = [let.name for let in lets] + [n for n, _ in outputs]
        for i, ex in enumerate(spec.get("examples", [])):
            here = path + ("examples", i)
            with self.statement():
                for key, known, what in (
                    ("inputs", [x.name for x in inputs], "input"),
                    ("dice", [r.name for r in roll], "die or draw"),
                ):
                    for name in ex.get(key, {}):
                        if name not in known:
                            raise _fail("RC702", f"example names no {what} of this check: '{name}'", self.doc.span(here + (key, name), key=True), did_you_mean(str(name), known))
                expects: list[Expectation] = []
                want = ex["expect"]
                if "outcome" in want:
                    expects.append(Expectation("outcome", "", self._outcome_named(outcomes, want["outcome"], here + ("expect", "outcome")), self.doc.span(here + ("expect", "outcome"))))
                for name, value in want.get("values", {}).items():
                    if name not in value_names:
                        raise _fail("RC702", f"example expects a value this check does not have: '{name}'", self.doc.span(here + ("expect", "values", name), key=True), did_you_mean(str(name), value_names))
                    expects.append(Expectation("value", name, value, self.doc.span(here + ("expect", "values", name))))
                for name, value in want.get("probability", {}).items():
                    where = here + ("expect", "probability", name)
                    sym = self._outcome_named(outcomes, name, where, key=True)
                    if isinstance(value, dict):
                        bounds = (self._probability(value.get("at_least", 0), where + ("at_least",)), self._probability(value.get("at_most", 1), where + ("at_most",)))
                        expects.append(Expectation("probability", sym, bounds, self.doc.span(where)))
                    else:
                        p = self._probability(value, where)
                        expects.append(Expectation("probability", sym, (p, p), self.doc.span(where)))
                found.append(Example(str(ex.get("name", f"example {i + 1}")), dict(ex.get("inputs", {})), dict(ex.get("dice", {})), str(ex.get("policy", "always")), tuple(expects), self.doc.span(here)))
        return tuple(found)

    def _outcome_named(self, outcomes: Scale, name: Any, where: PathKey, key: bool = False) -> Symbol:
        if str(name) not in outcomes.names:
            raise _fail("RC702", f"'{name}' is not an outcome of this check ({', '.join(outcomes.names)})", self.doc.span(where, key=key), did_you_mean(str(name), outcomes.names))
        return outcomes[str(name)]

    def _probability(self, raw: Any, where: PathKey) -> Fraction:
        try:
            value = Fraction(str(raw).replace(" ", ""))
        except (ValueError, ZeroDivisionError):
            raise _fail("RC702", f"{raw!r} is not a probability", self.doc.span(where), 'write a fraction like "1/20" or a decimal') from None
        if not 0 <= value <= 1:
            raise _fail("RC702", f"{raw} is not a probability between 0 and 1", self.doc.span(where))
        return value

    def _objective(self, path: PathKey, outcomes: Scale) -> tuple[str, Any]:
        """What the optimal policy maximises (see `Check.objective`)."""
        raw = self.doc.data
        for p in path:
            raw = raw[p]
        spec = raw.get("objective")
        if spec is None:
            return ("best_first", None)
        if isinstance(spec, str):
            return (spec, None)
        target = str(spec["at_least"])
        if target not in outcomes.names:
            self.diags.append(
                Diagnostic(
                    "RC305",
                    f"'{target}' is not an outcome of this check ({', '.join(outcomes.names)})",
                    self.doc.span(path + ("objective", "at_least")),
                    did_you_mean(target, outcomes.names),
                )
            )
            return ("best_first", None)
        return ("at_least", outcomes[target])

    def _with_folds(self, r: Randomizer, nodes: list[ast.Node], scope: Mapping[str, T.Type]) -> Randomizer:
        """Mark a pool or draw that is read only through fold statistics with constant arguments."""
        if isinstance(r, Die):
            return r
        keys: list[tuple[Any, ...]] = []
        elem = scope[r.name].elem or T.ANY

        def visit(node: ast.Node) -> bool:
            if isinstance(node, ast.Name):
                return node.id != r.name
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == r.name:
                rest = node.args[1:]
                if node.func not in FOLDS or (node.func in ("min", "max") and rest):
                    return False
                if any(ast.names(a) for a in rest):
                    return False
                expect = T.listof(elem) if node.func == "majority" else None
                try:
                    values = tuple(self.lower(a, {}, expect if expect else (elem if isinstance(a, ast.Sym) else None)).run({}) for a in rest)
                except (RulecraftError, _Fail):
                    return False
                if (node.func, *values) not in keys:
                    keys.append((node.func, *values))
                return True
            return all(visit(c) for c in ast.children(node))

        if all(visit(n) for n in nodes):
            return replace(r, folds=tuple(keys))
        return r

    def _program(
        self,
        name: str,
        scope: Mapping[str, T.Type],
        out_t: T.Type,
        dice: list[str],
        post: list[Let],
        outcome: Expr | tuple[Rule, ...],
        outputs: list[tuple[str, Expr]],
    ) -> Callable[..., tuple[Any, ...]]:
        """One Python function for everything after the roll, shared by sampler and exact.

        Called as `program(env, *dice)`; returns (outcome, index of the rule that fired or -1,
        each after-roll value, each output) — see `Check.layout`.
        """
        saved = self._locals
        self._locals = set(dice) | {let.name for let in post} | {"outcome"} | {n for n, _ in outputs}
        try:
            full = dict(scope)
            full["outcome"] = out_t
            lines = [f"v_{n} = {self._lower_checked(let.expr.node, full, None)}" for let in post for n in [let.name]]
            if isinstance(outcome, Expr):
                lines += [f"v_outcome = {self._lower_checked(outcome.node, full, out_t)}", "rule = -1"]
            else:
                for i, rule in enumerate(outcome):
                    then = self._lower_checked(rule.then.node, full, out_t)
                    if rule.when is None:
                        lines += [("else:" if i else "if True:"), f"    v_outcome = {then}", f"    rule = {i}"]
                        break
                    when = self._lower_checked(rule.when.node, full, T.BOOL)
                    lines += [f"{'elif' if i else 'if'} {when}:", f"    v_outcome = {then}", f"    rule = {i}"]
                else:
                    span = self.emit.const(outcome[0].span if outcome else None)
                    lines += ["else:", f"    raise _nomatch({span}, 'outcome rule', _show(env, {', '.join(f'v_{d}' for d in dice)}))"]
            lines += [f"v_{n} = {self._lower_checked(e.node, full, None)}" for n, e in outputs]
            names = [let.name for let in post] + [n for n, _ in outputs]
            lines.append("return (v_outcome, rule, " + "".join(f"v_{n}, " for n in names) + ")")
            where = self.doc.span(("checks", name), key=True)
            return self.emit.function(f"check_{name}", ["env", *(f"v_{d}" for d in dice)], lines, where)
        finally:
            self._locals = saved

    def _only(self, scope: Mapping[str, T.Type], path: PathKey, banned: set[str]) -> dict[str, T.Type]:
        del path
        return {k: v for k, v in scope.items() if k not in banned}

    def _let_order(self, path: PathKey, nodes: dict[str, ast.Node]) -> list[str]:
        """Named values in dependency order (the author's order where free); cycles are errors."""
        order: list[str] = []
        state: dict[str, int] = {}

        def visit(n: str, trail: list[str]) -> None:
            if state.get(n) == 2:
                return
            if state.get(n) == 1:
                cycle = " -> ".join(trail[trail.index(n) :] + [n])
                raise _fail("RC308", f"named values depend on each other in a circle: {cycle}", self.doc.span(path + ("let", n), key=True))
            state[n] = 1
            for dep in sorted(ast.names(nodes[n])):
                if dep in nodes:
                    visit(dep, trail + [n])
            state[n] = 2
            order.append(n)

        for n in nodes:
            if n in state:
                continue
            with self.statement():
                visit(n, [])
        return [n for n in order if n in nodes]

    def _depends_on(self, name: str, nodes: dict[str, ast.Node], targets: set[str], seen: set[str] | None = None) -> bool:
        seen = seen or set()
        if name in seen:
            return False
        seen.add(name)
        for dep in ast.names(nodes[name]):
            if dep in targets or (dep in nodes and self._depends_on(dep, nodes, targets, seen)):
                return True
        return False

    def _input(self, check: str, name: str) -> InputSpec:
        path: PathKey = ("checks", check, "inputs", name)
        spec = self.data["checks"][check]["inputs"][name]
        kind = spec.get("type", "int")
        scale = None
        if kind == "choice":
            choices = spec["choices"]
            if isinstance(choices, str):
                if choices not in self.scales:
                    raise _fail("RC312", f"unknown scale '{choices}'", self.doc.span(path + ("choices",)), did_you_mean(choices, self.scales))
                scale = self.scales[choices]
            else:
                scale = self._new_scale(f"{check}.{name}", [str(c) for c in choices], path + ("choices",), owner=check)
                if scale is None:
                    raise _fail("RC307", "duplicate choices", self.doc.span(path))
        default = spec.get("default")
        if default is not None and scale is not None:
            if str(default) not in scale.names:
                raise _fail("RC305", f"default '{default}' is not one of the choices", self.doc.span(path + ("default",)), did_you_mean(str(default), scale.names))
            default = scale[str(default)]
        lo, hi = spec.get("min"), spec.get("max")
        if lo is not None and hi is not None and lo > hi:
            raise _fail("RC310", f"min {lo} is greater than max {hi}", self.doc.span(path + ("min",)))
        made = InputSpec(name, kind, lo, hi, None, scale, spec.get("description", ""), self.doc.span(path, key=True))
        if default is not None and scale is None:
            try:
                default = coerce(made, default)
            except InputError as exc:
                raise _fail("RC310", f"default {default!r} does not fit: {exc.diagnostics[0].message}", self.doc.span(path + ("default",)), exc.diagnostics[0].hint) from None
        return replace(made, default=default)

    def _outcome_scale(self, check: str, path: PathKey) -> Scale | None:
        spec = self.data["checks"][check]
        raw = spec["outcomes"]
        if isinstance(raw, str):
            if raw not in self.scales:
                self.diags.append(
                    Diagnostic("RC312", f"unknown scale '{raw}'", self.doc.span(path + ("outcomes",)), did_you_mean(raw, self.scales))
                )
                return None
            return self.scales[raw]
        return self._new_scale(check, [str(m) for m in raw], path + ("outcomes",), owner=check)

    def _faces(self, path: PathKey) -> tuple[int, ...]:
        raw = self.doc.data
        for p in path:
            raw = raw[p]
        if isinstance(raw, bool):
            raise _fail("RC310", "a die's faces are a number of sides, a range like '0..9' or a list", self.doc.span(path))
        if isinstance(raw, int):
            return tuple(range(1, raw + 1))
        if isinstance(raw, list):
            return tuple(int(x) for x in raw)
        node = parse(str(raw), self.doc.expr_origin(path))
        value = self.lower(node, {}).run({})
        if isinstance(value, range):
            faces = tuple(value)
        elif isinstance(value, tuple):
            faces = tuple(int(v) for v in value)
        elif isinstance(value, int):
            faces = tuple(range(1, value + 1))
        else:
            raise _fail("RC310", "a die's faces are a number of sides, a range like '0..9' or a list", self.doc.span(path))
        if not faces:
            raise _fail("RC310", "this die has no faces", self.doc.span(path))
        return faces

    def _randomizer(self, path: PathKey, name: str, spec: dict[str, Any], scope: Mapping[str, T.Type]) -> Randomizer:
        """A die, pool or draw; its parameters may use inputs, values known before the roll and
        earlier dice of the same check."""
        span = self.doc.span(path, key=True)

        def redraw_of(own: T.Type) -> Redraw | None:
            if "redraw" not in spec:
                return None
            return self._redraw(path + ("redraw",), spec["redraw"], {**scope, name: own})

        if "pool" in spec:
            count = self.expr(path + ("pool",), scope, T.NUM)
            faces = self._faces(path + ("die",)) if "die" in spec else tuple(range(1, 7))
            face_scope = dict(scope)
            face_scope["face"] = T.NUM
            each = self.expr(path + ("each",), face_scope) if "each" in spec else None
            redraw = redraw_of(T.multi(each.type if each else T.NUM))
            triggers = tuple(
                self._trigger(path + ("triggers", i), t, scope, face_scope) for i, t in enumerate(spec.get("triggers", []))
            )
            cap = spec.get("cap")
            if any(t.action == "add" for t in triggers) and cap is None:
                raise _fail(
                    "RC313",
                    "a pool whose dice add dice (explode) needs a 'cap' on how many it may add",
                    self.doc.span(path, key=True),
                    "without one the chain has no end; add for example 'cap: 20'",
                )
            return Pool(name, count, faces, each, span, triggers=triggers, cap=cap, redraw=redraw)
        if "draw" in spec:
            bag_name = spec["draw"]
            if bag_name not in self.bags:
                raise _fail("RC312", f"unknown bag '{bag_name}'", self.doc.span(path + ("draw",)), did_you_mean(str(bag_name), self.bags))
            count = self.expr(path + ("count",), scope, T.NUM) if "count" in spec else self.lower(ast.Num(1, span=span), {})
            return Draw(name, self.bags[bag_name], count, span, redraw=redraw_of(T.multi(T.sym(bag_name))))
        return Die(name, self._faces(path + ("die",)), span, redraw=redraw_of(T.NUM))

    def _trigger(
        self, path: PathKey, spec: dict[str, Any], scope: Mapping[str, T.Type], face_scope: Mapping[str, T.Type]
    ) -> Trigger:
        must = "must" in spec
        action = spec["must"] if must else spec["may"]
        target = spec.get("target", "self")
        return Trigger(
            name=str(spec.get("name", f"trigger {path[-1] + 1}")),
            on=self.expr(path + ("on",), face_scope, T.BOOL),
            action=action,
            must=must,
            target=None if target == "self" else self.expr(path + ("target",), face_scope, T.BOOL),
            per_die=int(spec.get("per_die", 1)),
            only_if=self.expr(path + ("only_if",), scope, T.BOOL) if "only_if" in spec else None,
            repeat=bool(spec.get("repeat", True)),
            pick=str(spec.get("pick", "lowest")),
            span=self.doc.span(path),
        )

    def _redraw(self, path: PathKey, spec: dict[str, Any], scope: Mapping[str, T.Type]) -> Redraw:
        must = "must" in spec
        allowed = self.expr(path + ("must" if must else "may",), scope, T.BOOL)
        times = self.expr(path + ("times",), scope, T.NUM) if "times" in spec else self.lower(ast.Num(1), {})
        return Redraw(allowed, must, times, self.doc.span(path, key=True))

def first_rule(rows: tuple[Rule, ...], env: dict[str, Any]) -> tuple[int, Any] | None:
    """Which rule of a list fires for `env` and its value (for the trace)."""
    for i, r in enumerate(rows):
        if r.when is None or r.when.run(env):
            return i, r.then.run(env)
    return None
