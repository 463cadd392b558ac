"""Stage 4 — compile: a schema-valid document to the frozen `RulesetModel`.

Here every name is resolved, every expression type-checked and turned into a closure, and the
values of a check are split into those known before the roll and those that need dice.
Problems are collected (one per faulty statement) and raised together as a `CompileError`.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

from . import types as T
from .builtins import Builtin, library
from .errors import CompileError, Diagnostic, EvalError, RulecraftError, did_you_mean
from .expr import ast
from .expr.parser import parse
from .load import Document, PathKey
from .model import (
    Bag,
    Check,
    Code,
    Die,
    Draw,
    Expr,
    InputSpec,
    Let,
    Note,
    Pool,
    Randomizer,
    Rule,
    RulesetModel,
    Scale,
    Table,
)
from .source import Span
from .values import Multi, Symbol, normalize

SUPPORTED_VERSIONS = (1,)

_ARITH: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
}
_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


class _Fail(Exception):
    """One statement's problem; the compiler records it and goes on to the next statement."""

    def __init__(self, diag: Diagnostic) -> None:
        self.diag = diag


def _fail(code: str, message: str, span: Span | None, hint: str | None = None) -> _Fail:
    return _Fail(Diagnostic(code, message, span, hint))


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
        self.builtins: dict[str, Builtin] = {}

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
            raise CompileError(self.diags)
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

    def _new_scale(self, name: str, members: list[str], path: PathKey) -> Scale | None:
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
        raw = self.doc.data
        for p in path:
            raw = raw[p]
        span = self.doc.span(path)
        if isinstance(raw, bool):
            node: ast.Node = ast.Bool(raw, span=span)
        elif isinstance(raw, (int, float)):
            node = ast.Num(normalize(Fraction(str(raw))), span=span)
        else:
            node = parse(str(raw), self.doc.expr_origin(path))
        return self.lower(node, scope, expect)

    def lower(self, node: ast.Node, scope: Mapping[str, T.Type], expect: T.Type | None = None) -> Expr:
        """Type-check `node` and build its closure."""
        t, run = self._lower(node, scope, expect)
        if expect is not None and not expect.accepts(t):
            raise _fail("RC304", f"expected {expect} here, but this is {t}", node.span)
        return Expr(node, t, run)

    def _lower(self, node: ast.Node, scope: Mapping[str, T.Type], expect: T.Type | None) -> tuple[T.Type, Code]:
        match node:
            case ast.Num(value=v):
                return T.NUM, lambda env: v
            case ast.Bool(value=v):
                return T.BOOL, lambda env: v
            case ast.Sym():
                s = self._symbol(node, expect)
                return T.sym(s.scale), lambda env: s
            case ast.Name(id=name):
                if name not in scope:
                    if expect is not None and expect.kind == "sym" and expect.scale in self.scales:
                        scale = self.scales[expect.scale]
                        if name in scale.names:
                            s = scale[name]
                            return T.sym(s.scale), lambda env: s
                    raise _fail(
                        "RC301",
                        f"unknown name '{name}'",
                        node.span,
                        did_you_mean(name, list(scope)) or self._symbol_hint(name),
                    )
                return scope[name], lambda env: env[name]
            case ast.ListExpr(items=items):
                elem_expect = expect.elem if expect is not None and expect.kind == "list" else None
                lowered = self._lower_all(items, scope, elem_expect)
                elem = lowered[0][0] if lowered else T.ANY
                for (t, _), item in zip(lowered, items):
                    if not elem.accepts(t):
                        raise _fail("RC304", f"a list holds values of one type; this is {t}, not {elem}", item.span)
                fns = tuple(f for _, f in lowered)
                return T.listof(elem), lambda env: tuple(f(env) for f in fns)
            case ast.Range(lo=lo, hi=hi):
                (tl, fl), (th, fh) = self._need(lo, scope, T.NUM), self._need(hi, scope, T.NUM)
                return T.RANGE, lambda env: range(_int(fl(env), lo), _int(fh(env), hi) + 1)
            case ast.Unary(operand=a):
                _, f = self._need(a, scope, T.NUM)
                return T.NUM, lambda env: -f(env)
            case ast.Binary(op=op, left=a, right=b):
                (_, fa), (_, fb) = self._need(a, scope, T.NUM), self._need(b, scope, T.NUM)
                return T.NUM, self._arith(op, fa, fb, node)
            case ast.Compare(op=op, left=a, right=b):
                return self._compare(node, op, a, b, scope)
            case ast.Logic(op=op, left=a, right=b):
                (_, fa), (_, fb) = self._need(a, scope, T.BOOL), self._need(b, scope, T.BOOL)
                if op == "and":
                    return T.BOOL, lambda env: bool(fa(env) and fb(env))
                return T.BOOL, lambda env: bool(fa(env) or fb(env))
            case ast.Not(operand=a):
                _, f = self._need(a, scope, T.BOOL)
                return T.BOOL, lambda env: not f(env)
            case ast.Cond(then=a, test=c, other=b):
                _, fc = self._need(c, scope, T.BOOL)
                if isinstance(a, ast.Sym) and expect is None:
                    tb, fb = self._lower(b, scope, None)
                    ta, fa = self._lower(a, scope, tb)
                else:
                    ta, fa = self._lower(a, scope, expect)
                    tb, fb = self._lower(b, scope, ta if ta.kind != "any" else expect)
                if not ta.accepts(tb):
                    raise _fail("RC304", f"both branches must have one type: {ta} and {tb}", node.span)
                result = tb if ta.kind == "any" else ta
                return result, lambda env: fa(env) if fc(env) else fb(env)
            case ast.Call():
                return self._call(node, scope, expect)
        raise _fail("RC304", f"unsupported expression {type(node).__name__}", node.span)  # pragma: no cover

    def _lower_all(
        self, nodes: tuple[ast.Node, ...], scope: Mapping[str, T.Type], expect: T.Type | None
    ) -> list[tuple[T.Type, Code]]:
        """Lower siblings, letting a typed one tell quoted names in the others their scale."""
        out: dict[int, tuple[T.Type, Code]] = {}
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

    def _need(self, node: ast.Node, scope: Mapping[str, T.Type], want: T.Type) -> tuple[T.Type, Code]:
        t, f = self._lower(node, scope, want)
        if not want.accepts(t):
            raise _fail("RC304", f"expected {want} here, but this is {t}", node.span)
        return t, f

    def _arith(self, op: str, fa: Code, fb: Code, node: ast.Node) -> Code:
        span = node.span
        if op in _ARITH:
            fn = _ARITH[op]
            return lambda env: fn(fa(env), fb(env))

        def divide(env: dict[str, Any]) -> Any:
            x, y = fa(env), fb(env)
            if y == 0:
                raise EvalError([Diagnostic("RC502", "division by zero", span)])
            if op == "/":
                return normalize(Fraction(x) / y)
            if op == "//":
                return x // y
            return normalize(x % y)

        return divide

    def _compare(
        self, node: ast.Node, op: str, a: ast.Node, b: ast.Node, scope: Mapping[str, T.Type]
    ) -> tuple[T.Type, Code]:
        if op in ("in", "not in"):
            tb, fb = self._lower(b, scope, None)
            if tb.kind not in ("list", "range", "multi", "any"):
                raise _fail("RC304", f"'in' needs a list, range or pool on its right, not {tb}", b.span)
            elem = T.NUM if tb.kind == "range" else (tb.elem or T.ANY)
            ta, fa = self._lower(a, scope, elem)
            if not elem.accepts(ta):
                raise _fail("RC304", f"cannot look for {ta} in a {tb}", a.span)
            if isinstance(b, ast.ListExpr) and isinstance(a, ast.Sym) is False and ta.kind == "sym":
                tb, fb = self._lower(b, scope, T.listof(ta))

            def member(env: dict[str, Any]) -> bool:
                coll = fb(env)
                return fa(env) in (coll.items if isinstance(coll, Multi) else coll)

            if op == "in":
                return T.BOOL, member
            return T.BOOL, lambda env: not member(env)
        first, second = (b, a) if isinstance(a, ast.Sym) else (a, b)
        t1, f1 = self._lower(first, scope, None)
        t2, f2 = self._lower(second, scope, t1 if t1.kind != "any" else None)
        if not t1.accepts(t2):
            raise _fail("RC304", f"cannot compare {t1 if first is a else t2} with {t2 if first is a else t1}", node.span)
        if op not in ("==", "!=") and t1.kind not in ("num", "sym", "any"):
            raise _fail("RC304", f"'{op}' orders numbers or values of a scale, not {t1}", node.span)
        fa, fb = (f1, f2) if first is a else (f2, f1)
        fn = _COMPARE[op]
        return T.BOOL, lambda env: fn(fa(env), fb(env))

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
        owners = [s for s in self.scales.values() if name in s.names]
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

    def _call(self, node: ast.Call, scope: Mapping[str, T.Type], expect: T.Type | None) -> tuple[T.Type, Code]:
        name, args = node.func, node.args
        if name in self.builtins:
            fn = self.builtins[name]
            if not fn.min_args <= len(args) <= fn.max_args:
                want = str(fn.min_args) if fn.min_args == fn.max_args else f"{fn.min_args} to {fn.max_args}"
                raise _fail("RC303", f"{name}() takes {want} argument(s), got {len(args)}", node.span, fn.doc)
            lowered = self._lower_all(args, scope, None)
            if name == "majority" and len(args) == 2 and lowered[0][0].kind == "multi":
                lowered[1] = self._lower(args[1], scope, T.listof(lowered[0][0].elem or T.ANY))
            result = fn.typer([t for t, _ in lowered])
            if isinstance(result, str):
                raise _fail("RC304", f"{name}() {result}", node.span, fn.doc)
            return result, _apply(fn.impl, [f for _, f in lowered])
        if name in self.data.get("tables", {}):
            table = self._table(name, node.span)
            if len(args) != len(table.params):
                raise _fail(
                    "RC303",
                    f"table {name}() takes {len(table.params)} argument(s) ({', '.join(p for p, _ in table.params)}), got {len(args)}",
                    node.span,
                )
            fns = []
            for arg, (pname, ptype) in zip(args, table.params):
                t, f = self._lower(arg, scope, ptype if ptype.kind != "any" else None)
                if not ptype.accepts(t):
                    raise _fail("RC304", f"parameter '{pname}' of {name}() is {ptype}, but this is {t}", arg.span)
                fns.append(f)
            return table.returns, _apply(table.run, fns)
        options = list(self.builtins) + list(self.data.get("tables", {}))
        raise _fail("RC302", f"unknown function '{name}'", node.span, did_you_mean(name, options))

    # -- tables ------------------------------------------------------------------------

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
            names = [p for p, _ in params]
            if "rules" in spec:
                body = self._rules(path + ("rules",), scope, returns)
            elif "cases" in spec:
                body = self._cases(path + ("cases",), spec["cases"], params, 0, returns)
            else:
                body = self.expr(path + ("value",), scope, returns).run

            def run(*args: Any) -> Any:
                return body(dict(zip(names, args)))

            table = Table(name, tuple(params), returns, run, spec.get("description", ""), self.doc.span(path, key=True))
            self.tables[name] = table
            return table
        finally:
            self._table_busy.pop()

    def _rules(self, path: PathKey, scope: Mapping[str, T.Type], returns: T.Type) -> Code:
        rows = self._rule_list(path, scope, returns)
        span = self.doc.span(path, key=True)
        return _run_rules(rows, span)

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
    ) -> Code:
        """A value table: one nested mapping level per parameter, keys are patterns."""
        if depth >= len(params):
            raise _fail("RC310", "this value table is nested deeper than it has parameters", self.doc.span(path, key=True))
        pname, ptype = params[depth]
        matchers: list[tuple[Callable[[Any], bool], Code]] = []
        default: Code | None = None
        for key, sub in cases.items():
            here = path + (key,)
            with self.statement():
                if isinstance(sub, dict):
                    result = self._cases(here, sub, params, depth + 1, returns)
                else:
                    if depth != len(params) - 1:
                        raise _fail("RC310", f"expected a nested table for parameter '{params[depth + 1][0]}'", self.doc.span(here))
                    result = self.expr(here, {}, returns).run
                if key == "else":
                    default = result
                else:
                    matchers.append((self._pattern(key, here, ptype), result))
        span = self.doc.span(path, key=True)
        index = depth

        def run(env: dict[str, Any]) -> Any:
            value = env[pname]
            for match, result in matchers:
                if match(value):
                    return result(env)
            if default is not None:
                return default(env)
            raise EvalError([Diagnostic("RC501", f"no case of the table matches {pname} = {value}", span)])

        del index
        return run

    def _pattern(self, key: Any, path: PathKey, ptype: T.Type) -> Callable[[Any], bool]:
        if isinstance(key, int):
            return lambda v: v == key
        place = self.doc.places.get(path)
        origin = self.doc.expr_origin(path)
        if place is not None and place.key is not None:
            from .load import ExprOrigin

            line, col = place.key
            origin = ExprOrigin(self.doc.source, line, col, 0)
        node = parse(str(key), origin)
        items = node.items if isinstance(node, ast.ListExpr) else (node,)
        tests: list[Callable[[Any], bool]] = []
        for item in items:
            expr = self.lower(item, {}, ptype if ptype.kind == "sym" else None)
            value = expr.run({})
            if isinstance(value, range):
                tests.append(lambda v, r=value: v in r)
            else:
                tests.append(lambda v, c=value: v == c)
        return lambda v: any(t(v) for t in tests)

    # -- checks ------------------------------------------------------------------------

    def _check(self, name: str) -> Check | None:
        path: PathKey = ("checks", name)
        spec = self.data["checks"][name]
        before = len(self.diags)
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
                lp = path + ("let", lname)
                raw = let_spec[lname]
                if isinstance(raw, (bool, int, float)):
                    let_nodes[lname] = ast.Bool(raw, span=self.doc.span(lp)) if isinstance(raw, bool) else ast.Num(normalize(Fraction(str(raw))), span=self.doc.span(lp))
                else:
                    let_nodes[lname] = parse(str(raw), self.doc.expr_origin(lp))
        order = self._let_order(path, let_nodes)
        needs_dice = {
            n for n in order if self._depends_on(n, let_nodes, roll_names)
        }
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
        for rname, rspec in roll_spec.items():
            with self.statement():
                r = self._randomizer(path + ("roll", rname), rname, rspec, pre_scope)
                rtype = T.NUM if isinstance(r, Die) else (
                    T.multi(r.each.type if r.each else T.NUM) if isinstance(r, Pool) else T.multi(T.sym(r.bag.name))
                )
                declare(rname, rtype, "a die", path + ("roll", rname))
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
            span=self.doc.span(path, key=True),
        )

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
                scale = self._new_scale(f"{check}.{name}", [str(c) for c in choices], path + ("choices",))
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
        if default is not None and kind in ("int", "number"):
            if (lo is not None and default < lo) or (hi is not None and default > hi):
                raise _fail("RC310", f"default {default} is outside {lo}..{hi}", self.doc.span(path + ("default",)))
        return InputSpec(name, kind, lo, hi, default, scale, spec.get("description", ""), self.doc.span(path, key=True))

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
        return self._new_scale(check, [str(m) for m in raw], path + ("outcomes",))

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
        span = self.doc.span(path, key=True)
        if "pool" in spec:
            count = self.expr(path + ("pool",), scope, T.NUM)
            faces = self._faces(path + ("die",)) if "die" in spec else tuple(range(1, 7))
            each = None
            if "each" in spec:
                each_scope = dict(scope)
                each_scope["face"] = T.NUM
                each = self.expr(path + ("each",), each_scope)
            return Pool(name, count, faces, each, span)
        if "draw" in spec:
            bag_name = spec["draw"]
            if bag_name not in self.bags:
                raise _fail("RC312", f"unknown bag '{bag_name}'", self.doc.span(path + ("draw",)), did_you_mean(str(bag_name), self.bags))
            count = self.expr(path + ("count",), scope, T.NUM) if "count" in spec else self.lower(ast.Num(1, span=span), {})
            return Draw(name, self.bags[bag_name], count, span)
        return Die(name, self._faces(path + ("die",)), span)


def _int(value: Any, node: ast.Node) -> int:
    if isinstance(value, int):
        return value
    if isinstance(value, Fraction) and value.denominator == 1:
        return int(value)
    raise EvalError([Diagnostic("RC304", f"a range needs whole numbers, got {value}", node.span)])


def _apply(fn: Callable[..., Any], args: list[Code]) -> Code:
    """A call closure, unrolled for the common arities (the sampler's hot path)."""
    if len(args) == 1:
        (a,) = args
        return lambda env: fn(a(env))
    if len(args) == 2:
        a, b = args
        return lambda env: fn(a(env), b(env))
    if len(args) == 3:
        a, b, c = args
        return lambda env: fn(a(env), b(env), c(env))
    return lambda env: fn(*(f(env) for f in args))


def _run_rules(rows: tuple[Rule, ...], span: Span) -> Code:
    pairs = [(r.when.run if r.when else None, r.then.run) for r in rows]

    def run(env: dict[str, Any]) -> Any:
        for when, then in pairs:
            if when is None or when(env):
                return then(env)
        raise EvalError([Diagnostic("RC501", "no rule matched", span, "add an 'else:' row to cover every case")])

    return run


def first_rule(rows: tuple[Rule, ...], env: dict[str, Any]) -> tuple[int, Any] | None:
    """Which rule of a list fires for `env` and its value (for the trace)."""
    for i, r in enumerate(rows):
        if r.when is None or r.when.run(env):
            return i, r.then.run(env)
    return None
