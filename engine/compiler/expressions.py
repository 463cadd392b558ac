"""Stage 4a — expressions: names resolved, types checked, Python source generated.

`Expressions` owns expressions and the named tables they call: it resolves each name against
a scope, infers and checks static types (with the quoted names of scales learning their scale
from context), and asks `codegen` for the Python source each expression becomes. `structure`
owns the ruleset's structure and calls it; both share one `Unit`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from ..errors import (
    MAX_DIGITS,
    DeadlineError,
    Diagnostic,
    LimitError,
    RulecraftError,
    clipped,
    did_you_mean,
    limit_advice,
)
from ..expr import ast
from ..expr.parser import KEYWORDS, parse
from ..expr.printer import to_text
from ..frozen import frozen
from ..graph import circle_text
from ..model import types as T
from ..model.ruleset import AGAIN, Expr, Rule, Scale, Table
from ..model.values import Symbol, normalize
from ..runtime.bounds import TOO_BIG
from ..runtime.builtins import HISTORY, Call
from ..runtime.comparing import EQUALITY, MEMBERSHIP, compare_rule, element
from ..runtime.kinds import vague
from ..runtime.work import code_units
from ..syntax.document import PathKey
from ..syntax.positions import ExprOrigin, Span, decimal_text
from .problems import Problem, UnknownName, problem, statement
from .table_order import table_order
from .unit import InlineBody, Unit


class BeforeTheRoll(dict[str, T.Type]):
    """The scope of a value reckoned before the roll, with the check's names it does not hold (its
    dice and the values after the roll). A value is reckoned there because it names no die, so a
    misspelt die or later value is unknown there: the nearest of `later` is the hint, since naming
    it rightly moves the value after the roll."""

    def __init__(self, scope: Mapping[str, T.Type], later: Iterable[str]) -> None:
        super().__init__(scope)
        self.later = frozenset(later)


class OutputScope(dict[str, T.Type]):
    """The scope of an output: everything after the outcome, and the outputs written above it.
    `below` names the outputs written after it, which it cannot read (outputs run in order)."""

    def __init__(self, scope: Mapping[str, T.Type], below: Iterable[str]) -> None:
        super().__init__(scope)
        self.below = frozenset(below)


def _mismatch(want: T.Type, t: T.Type, node: ast.Node, hint: str | None = None) -> Problem:
    """RC304 for a value of type `t` where `want` is needed, with `hint`, a better one the
    caller knows, or else the usual way from one to the other when there is one."""
    said = f"expected {want} here, but this is {t}"
    return problem("RC304", said, node.span, hint if hint is not None else _usual_way(want, t, node))


def _usual_way(want: T.Type, t: T.Type, node: ast.Node) -> str | None:
    text = to_text(node)
    shown = text if len(text) <= 30 else "(…)"
    if want.kind == "bool" and t.kind == "num":
        return f"a condition is true or false: compare the number, e.g. {shown} > 0"
    if want.kind == "bool" and t.kind == "sym" and t.scale:
        return f"compare the value with one of its scale's: {shown} == 'NAME'"
    if want.kind == "num" and t.kind == "sym":
        return (
            "a scale's values are names, not numbers: compare them (== 'NAME'), or give each one a "
            "number with a table"
        )
    if want.kind == "num" and t.kind == "bool":
        return f"true/false is no number: write 1 if {shown} else 0"
    if want.kind == "num" and t.kind in ("multi", "list"):
        return "a pool or list holds several values: count(), sum(), highest() or lowest() read one number"
    return None


def _later(scope: Mapping[str, T.Type]) -> frozenset[str]:
    return scope.later if isinstance(scope, BeforeTheRoll) else frozenset()


class Expressions:
    """Expressions and the named tables they call, for one compilation `unit`."""

    def __init__(self, unit: Unit) -> None:
        self.unit = unit
        self._table_busy: list[str] = []
        self._circles: dict[str, Diagnostic] = {}
        """Per table on a circle, RC308 (`TableOrder.circles`; or found on the stack, in a call
        the ordering walk did not see): a call of it raises this until it is compiled. Walking
        the circle again from each of its tables had made a load quadratic in its length (60
        tables of 40 terms: 9.9 s)."""
        self._too_deep: dict[str, Diagnostic] = {}
        """`TableOrder.too_deep`: tables never compiled, each call of one RC202."""
        self._failed: dict[str, Diagnostic] = {}
        """Per table that failed to compile, why: each later call raises it at once, where each
        had compiled the table again, a level deeper on the stack for a chain (a chain of 150
        tables over a misspelt name had ended in a `RecursionError`) and its whole length again
        for each caller."""
        self._instances: set[tuple[str, tuple[T.Type, ...]]] = set()
        self._queued: list[tuple[Table, tuple[T.Type, ...], Span | None]] | None = None
        """Table bodies waiting to be checked for one call's types, while one is (`_check_instance`)."""
        self._tables_made = 0
        self._nodes = 0
        """Expression nodes lowered by `lower_checked` so far, and three for each case key tested:
        a table's code is charged by its size (`runtime.work.code_units`)."""
        self._last_call: tuple[ast.Call, Table, list[str]] | None = None
        """The table call lowered last, with its arguments' sources: what `assign` inlines."""
        self._bounds: dict[int, Mapping[str, int]] = {}
        """Per scope (by identity, while it is `bounded`): names whose value is a whole number of
        at most this size, so a product of them needs no check against `rt_mul`'s bound."""

    def bounded(self, scope: Mapping[str, T.Type], bounds: Mapping[str, int]) -> None:
        """While `scope` is used (until `unbounded`), its names in `bounds` are whole numbers of at
        most that size (a die's constant faces): only lowering in this very scope reads them, so a
        table's parameter of the same name, lowered in its own scope, is never taken for one."""
        self._bounds[id(scope)] = bounds

    def unbounded(self, scope: Mapping[str, T.Type]) -> None:
        self._bounds.pop(id(scope), None)

    def size_bound(self, node: ast.Node, scope: Mapping[str, T.Type]) -> int | None:
        """`_bound`, for a caller that bounds a named value by its expression (`Programs`)."""
        return self._bound(node, scope)

    def _bound(self, node: ast.Node, scope: Mapping[str, T.Type]) -> int | None:
        """The largest size `node`'s value can have when it is surely a whole number, else None."""
        match node:
            case ast.Num(value=value):
                return abs(value) if type(value) is int else None
            case ast.Name(id=name):
                found = scope.get(name)
                bounds = self._bounds.get(id(scope))
                if bounds is None or found is None or found.kind != "num":
                    return None
                return bounds.get(name)
            case ast.Unary(operand=operand):
                return self._bound(operand, scope)
            case ast.Binary(op="**", left=left, right=ast.Num(value=power)) if (
                type(power) is int and power >= 0
            ):
                a = self._bound(left, scope)  # surely whole with a whole exponent of at least 0
                if a is None or a.bit_length() * power > TOO_BIG.bit_length():
                    return None  # (or too large to be worth making: `rt_pow` refuses it)
                return int(a**power)
            case ast.Binary(op=op, left=left, right=right) if op in ("+", "-", "*"):
                a, b = self._bound(left, scope), self._bound(right, scope)
                if a is None or b is None:
                    return None
                return a * b if op == "*" else a + b
            case ast.Cond(then=then, other=other):
                a, b = self._bound(then, scope), self._bound(other, scope)
                return None if a is None or b is None else max(a, b)
            case _:
                return None

    # -- expressions -------------------------------------------------------------------

    def expr(self, path: PathKey, scope: Mapping[str, T.Type], expect: T.Type | None = None) -> Expr:
        """Parse and compile the expression at `path` (a string, or a YAML number or boolean)."""
        return self.lower(self.node_at(path), scope, expect)

    def node_at(self, path: PathKey) -> ast.Node:
        """The syntax tree of the expression at `path`; YAML numbers and booleans are literals."""
        raw = self.unit.doc.data
        for p in path:
            raw = raw[p]
        if isinstance(raw, bool):
            return ast.Bool(raw, span=self.unit.doc.span(path))
        if isinstance(raw, float):  # whole as YAML reads it (the schema refuses others): as written?
            span = self.unit.doc.span(path)
            written = decimal_text(span, raw)  # every digit the file writes, not the float's 17
            try:
                value = normalize(Fraction(written))
            except ValueError:  # not finite
                value = None
            if not isinstance(value, int):  # 1.0000000000000000001 is no whole number (hunt 13y)
                raise problem(
                    "RC103",
                    f"{'.'.join(map(str, path))} should be text, a whole number or true/false, not a number",
                    span,
                    f'an exact number is written as an expression, in quotes: "{written}"',
                )
            return ast.Num(value, span=span)
        if isinstance(raw, int):
            return ast.Num(raw, span=self.unit.doc.span(path))
        return self.parse(str(raw), self.unit.doc.expr_origin(path))

    def parse(self, text: str, origin: ExprOrigin) -> ast.Node:
        """Parse `text` within the expression limits of this compilation."""
        limits = self.unit.limits
        return parse(text, origin, max_depth=limits.max_expression_depth, max_size=limits.max_expression_size)

    def lower(self, node: ast.Node, scope: Mapping[str, T.Type], expect: T.Type | None = None) -> Expr:
        """Type-check `node` and compile it to a function of the environment."""
        t, src = self._lower(node, scope, expect)
        if expect is not None and not expect.accepts(t):
            raise _mismatch(expect, t, node, self._mismatch_hint(expect, t, node))
        src = self._wanted(src, t, expect, node)
        return Expr(node, t, self.unit.emit.expression(src, node.span), to_text(node))

    def _wanted(self, src: str, t: T.Type, expect: T.Type | None, node: ast.Node) -> str:
        """`src`, checked when it runs where its type is known only then (a table's undeclared
        result, `vague`) but one that is not is expected: a number, true/false, a scale's value,
        a list of numbers... (`kinds.want`). Code for a value of a known type is left as it is."""
        if expect is None or expect.broken or not vague(t) or vague(expect):
            return src
        emit = self.unit.emit
        return f"_want({src}, {emit.const(expect)}, {emit.const(node.span)})"

    def _lower(
        self, node: ast.Node, scope: Mapping[str, T.Type], expect: T.Type | None
    ) -> tuple[T.Type, str]:
        """The static type of `node` and its Python source; constant parts are folded."""
        t, src = self._lower_node(node, scope, expect)
        if not isinstance(node, (ast.Num, ast.Bool, ast.Sym, ast.Name)) and not ast.names(node):
            try:
                value = self.unit.emit.expression(src, node.span)({})
            except LimitError as exc:  # the load's work budget (`compile_document`) or a number's size
                if isinstance(exc, DeadlineError) and self.unit.emit.clock is not None:
                    raise  # the load's own deadline (`load_source(deadline=)`): the load ends
                d = exc.diagnostics[0]
                bound = d.advice.name if d.advice is not None and d.advice.kind == "limit" else None
                if bound == "max_code":  # no code past it (`Emitter.passed`, reported once): not folded
                    return t, src
                said = f"folding this constant: {d.message}"
                if bound == "max_work":  # every constant of the ruleset is folded in one budget
                    lead = "the load folds every constant in one budget: fold fewer, or cheaper ones"
                    raise Problem(
                        Diagnostic("RC503", said, node.span, **limit_advice("max_work", lead))
                    ) from None
                raise Problem(d.retold("RC503", said, node.span)) from None
            except RulecraftError:
                return t, src  # reported when it runs, with its position
            if _too_long(value):
                raise problem(
                    "RC202",
                    f"this constant has more than {MAX_DIGITS} digits",
                    node.span,
                    f"numbers have at most {MAX_DIGITS} digits",
                )
            return t, self.unit.emit.const(value)
        return t, src

    def _name(self, name: str) -> str:
        if name in self.unit.locals:
            return self.unit.renamed.get(name, f"v_{name}")
        return f"env[{name!r}]"

    def _lower_node(
        self, node: ast.Node, scope: Mapping[str, T.Type], expect: T.Type | None
    ) -> tuple[T.Type, str]:
        k = self.unit.emit.const
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
                    if expect is not None and expect.kind == "sym" and expect.scale in self.unit.scales:
                        scale = self.unit.scales[expect.scale]
                        if name in scale.names:
                            return T.sym(scale.name), k(scale[name])
                    members: list[str] = []
                    if expect is not None and expect.kind == "sym" and expect.scale in self.unit.scales:
                        members = list(self.unit.scales[expect.scale].names)
                    below = isinstance(scope, OutputScope) and name in scope.below
                    raise UnknownName(
                        Diagnostic(
                            "RC301",
                            f"unknown name '{name}'"
                            + (f" (not a value nor one of {', '.join(members)})" if members else ""),
                            node.span,
                            f"'{name}' is an output written below this one: an output reads the outputs "
                            "above it, so move it up"
                            if below
                            else did_you_mean(name, [*members, *scope, *_later(scope)])
                            or self._symbol_hint(name),
                        ),
                        name,
                    )
                return scope[name], self._name(name)
            case ast.ListExpr(items=items):
                elem_expect = expect.elem if expect is not None and expect.kind == "list" else None
                lowered = self._lower_all(items, scope, elem_expect)
                elem = lowered[0][0] if lowered else T.ANY
                for (t, _), item in zip(lowered, items):
                    if not elem.accepts(t):
                        raise problem(
                            "RC304", f"a list holds values of one type; this is {t}, not {elem}", item.span
                        )
                srcs = [self._wanted(src, t, elem, item) for (t, src), item in zip(lowered, items)]
                return T.listof(elem), "(" + "".join(f"{src}, " for src in srcs) + ")"
            case ast.Range(lo=lo, hi=hi):
                (_, a), (_, b) = self._need(lo, scope, T.NUM), self._need(hi, scope, T.NUM)
                return T.RANGE, f"_range({a}, {b}, {k(node.span)})"
            case ast.Unary(op=op, operand=operand):
                _, a = self._need(operand, scope, T.NUM)
                return T.NUM, f"({op}{a})"
            case ast.Binary(op=op, left=left, right=right):
                (_, a), (_, b) = self._need(left, scope, T.NUM), self._need(right, scope, T.NUM)
                if op in ("*", "+", "-"):  # the bound of `rt_mul` inline for whole numbers (a call
                    # costs more); a sum too: fractions' sums multiply their denominators, and seven
                    # of 1,000 digits each made one that no number could be shown of (hunt 13y)
                    size = self._bound(node, scope)
                    if size is not None and size < TOO_BIG:  # small whole numbers: within it
                        return T.NUM, f"({a} {op} {b})"
                    big = f"_mul(_p, 1, {k(node.span)})"
                    return T.NUM, f"(_p if _type(_p := {a} {op} {b}) is _int and -_B < _p < _B else {big})"
                if op == "**" and not ast.names(right):  # a constant exponent: whole, or refused now
                    # a folded constant's value by its name; None for digits or unfolded source
                    power = self.unit.emit.namespace.get(b)
                    if isinstance(power, Fraction) and power.denominator != 1:
                        raise problem(
                            "RC304",
                            f"an exponent must be a whole number, got {to_text(right)}",
                            node.span,
                            "a fractional power (a root) is seldom an exact number; round the "
                            "exponent, or keep the number whole",
                        )
                helper = {"/": "_div", "//": "_floordiv", "%": "_mod", "**": "_pow"}.get(op)
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
                    if isinstance(other, ast.Sym) and len(self._owners(then.name)) == 1:
                        # two quoted names: the one only one scale has tells the other its scale,
                        # whichever branch it is in (`'a' if t else 'b'` as `'b' if t else 'a'`)
                        ta, a = self._lower(then, scope, None)
                        tb, b = self._lower(other, scope, ta)
                    else:
                        tb, b = self._lower(other, scope, None)
                        ta, a = self._lower(then, scope, tb)
                else:
                    ta, a = self._lower(then, scope, expect)
                    tb, b = self._lower(other, scope, ta if ta.kind != "any" else expect)
                if not ta.accepts(tb):
                    raise problem("RC304", f"both branches must have one type: {ta} and {tb}", node.span)
                # a branch of a type known only when it runs, checked against the other's
                a, b = self._wanted(a, ta, tb, then), self._wanted(b, tb, ta, other)
                return (tb if ta.kind == "any" else ta), f"({a} if {c} else {b})"
            case ast.Call():
                return self._call(node, scope)
        raise problem("RC304", f"unsupported expression {type(node).__name__}", node.span)  # pragma: no cover

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
        """`node` as an operand that must be of type `want` (checked when it runs where its type
        is known only then: `_wanted`)."""
        t, src = self._lower(node, scope, want)
        if not want.accepts(t):
            raise _mismatch(want, t, node, self._mismatch_hint(want, t, node))
        return t, self._wanted(src, t, want, node)

    def _compare(
        self, node: ast.Node, op: str, a: ast.Node, b: ast.Node, scope: Mapping[str, T.Type]
    ) -> tuple[T.Type, str]:
        if op in MEMBERSHIP:
            ta: T.Type | None = None
            sa = ""
            if not isinstance(a, ast.Sym):
                ta, sa = self._lower(a, scope, None)
            want = T.listof(ta) if ta is not None and ta.kind == "sym" else None
            tb, sb = self._lower(b, scope, want)
            elem = element(tb)
            if isinstance(elem, str):  # the right side alone is refused
                raise problem("RC304", elem, b.span)
            if ta is None:
                ta, sa = self._lower(a, scope, elem if elem.kind != "any" or elem.broken else None)
            refused = compare_rule(op, ta, tb)
            if refused is not None:  # what the left side looks for
                raise problem("RC304", refused, a.span)
            if vague(ta) or vague(tb):
                return T.BOOL, self._checked_compare(op, sa, sb, ta, tb, node)
            # a pool's readings, and a range looked in at once for any number (`found_in`)
            test = f"_in({sa}, {sb})" if tb.kind in ("multi", "any", "range") else f"({sa} in {sb})"
            return T.BOOL, test if op == "in" else f"(not {test})"
        first, second = (b, a) if isinstance(a, ast.Sym) else (a, b)
        t1, s1 = self._lower(first, scope, None)
        t2, s2 = self._lower(second, scope, t1 if t1.kind != "any" or t1.broken else None)
        left_t, right_t = (t1, t2) if first is a else (t2, t1)
        refused = compare_rule(op, left_t, right_t)
        if refused is not None:
            kinds = {left_t.kind, right_t.kind}
            hint = (
                "a pool or list holds several values: compare one number read from it, such as "
                "count(), sum(), highest() or lowest()"
                if kinds & {"multi", "list"} and kinds & {"num", "sym"}
                else self._twin_scales(left_t, right_t)
            )
            raise problem("RC304", refused, node.span, hint)
        sa, sb = (s1, s2) if first is a else (s2, s1)
        if vague(t1) or vague(t2):
            return T.BOOL, self._checked_compare(op, sa, sb, left_t, right_t, node)
        if t1.kind in ("num", "any") and t2.kind in ("num", "any") and op not in EQUALITY:
            # x <= y / k  is  x * k <= y  for a whole k > 0: no fraction is made on every roll.
            for side, other, flip in ((b, sa, False), (a, sb, True)):
                if isinstance(side, ast.Binary) and side.op == "/" and isinstance(side.right, ast.Num):
                    k = side.right.value
                    if isinstance(k, int) and k > 0:
                        _, num = self._need(side.left, scope, T.NUM)  # checked, as `/` checks it
                        left, right = (f"({other} * {k})", num) if not flip else (num, f"({other} * {k})")
                        return T.BOOL, f"({left} {op} {right})"
        return T.BOOL, f"({sa} {op} {sb})"

    def _mismatch_hint(self, want: T.Type, t: T.Type, node: ast.Node) -> str | None:
        """RC304's hint that the caller knows better than the usual way from `t` to `want`."""
        return self._shadowed(want, node) or self._twin_scales(want, t)

    def _shadowed(self, want: T.Type, node: ast.Node) -> str | None:
        """The hint when a bare name where a scale's member goes is also a value in scope (a
        `let` named like an outcome): the value is read first, so the member must be quoted."""
        if not isinstance(node, ast.Name) or want.kind != "sym" or not want.scale:
            return None
        scale = self.unit.scales.get(want.scale)
        if scale is None or node.id not in scale.names:
            return None
        check = self.unit.owner.get(want.scale)
        member = (
            "the outcome"
            if check is not None and want.scale == check
            else f"the member of scale '{want.scale}'"
        )
        return (
            f"'{node.id}' is also the name of a value here (a let, an input, a die or a parameter), "
            f"which a bare name reads first: quote it, '{node.id}', to name {member}"
        )

    def _twin_scales(self, a: T.Type, b: T.Type) -> str | None:
        """The hint when one of two scales that do not meet is a check's own list (a choice
        input's `choices: [low, high]`, the scale 'check.input', or its `outcomes:`) holding just
        the other's members: a list makes a scale of its own, which naming the scale would not.
        Written in another order, it says that the scale's order (worst first) comes with it:
        what ranks or compares the values reads that order (review AF)."""
        if a.kind != "sym" or b.kind != "sym" or not a.scale or not b.scale or a.scale == b.scale:
            return None
        scales, owner = self.unit.scales, self.unit.owner
        for own, named in ((a.scale, b.scale), (b.scale, a.scale)):
            if own not in owner or named in owner or own not in scales or named not in scales:
                continue
            if set(scales[own].names) == set(scales[named].names):
                check, _, name = own.partition(".")
                lists = f"input '{name}' of check '{check}'" if name else f"check '{check}'"
                key = "choices" if name else "outcomes"
                hint = (
                    f"{lists} lists the members of scale '{named}' as its {key}, which makes a scale "
                    f"of its own ('{own}'): write {key}: {named}"
                )
                order = scales[named].names
                if tuple(scales[own].names) != tuple(order):
                    hint += (
                        f" (in the scale's order, worst first: {', '.join(order)}, not the list's; "
                        "check what ranks or compares them)"
                    )
                return hint
        return None

    def _checked_compare(self, op: str, sa: str, sb: str, ta: T.Type, tb: T.Type, node: ast.Node) -> str:
        """A comparison or `in` with a side whose type is known only when it runs: the rules
        checked here at load (`comparing.compare_rule`) are checked then (`kinds.compare`), that
        side's type read from its value."""
        k = self.unit.emit.const
        types = ", ".join("None" if vague(t) else k(t) for t in (ta, tb))
        return f"_compare({op!r}, {sa}, {sb}, {types}, {k(node.span)})"

    def _symbol(self, node: ast.Sym, expect: T.Type | None) -> Symbol:
        name = node.name
        if expect is not None and expect.kind == "list" and expect.elem is not None:
            expect = expect.elem
        if expect is not None and expect.kind == "sym" and expect.scale in self.unit.scales:
            scale = self.unit.scales[expect.scale]
            if name in scale.names:
                return scale[name]
            raise problem(
                "RC305",
                f"'{name}' is not in scale '{scale.name}' ({', '.join(scale.names)})",
                node.span,
                did_you_mean(name, scale.names),
            )
        owners = self._owners(name)
        if len(owners) == 1 or (owners and expect is not None and expect.broken):
            return owners[0][name]  # (compared with a name whose definition has an error: reported)
        if not owners:
            everything = [
                m
                for s in self.unit.scales.values()
                if self.unit.owner.get(s.name, self.unit.current) == self.unit.current
                for m in s.names
            ]
            raise problem("RC305", f"'{name}' is not in any scale", node.span, did_you_mean(name, everything))
        raise problem(
            "RC306",
            f"'{name}' is in several scales ({', '.join(s.name for s in owners)}); "
            "compare it with a value to say which",
            node.span,
        )

    def _owners(self, name: str) -> list[Scale]:
        """The scales this check sees that have a member `name` (its own inline scales and the
        ruleset's)."""
        current = self.unit.current
        return [
            s
            for s in self.unit.scales.values()
            if s.has(name) and self.unit.owner.get(s.name, current) == current
        ]

    def _symbol_hint(self, name: str) -> str | None:
        for s in self.unit.scales.values():
            if s.has(name):
                return f"'{name}' is a value of scale '{s.name}'; quote it: '{name}'"
        return None

    def _history_hint(self, arg: ast.Node, func: str) -> str | None:
        """RC324's hint where the argument is a die of this check with triggers: it is rolled as a
        pool of one, but its name reads as the number its dice total, with no history to read;
        a pool of one (`pool: 1`) keeps it, and `sum` of it is that total."""
        if not isinstance(arg, ast.Name):
            return None
        checks = self.unit.data.get("checks")
        spec = checks.get(self.unit.current) if isinstance(checks, dict) and self.unit.current else None
        roll = spec.get("roll") if isinstance(spec, dict) else None
        die = roll.get(arg.id) if isinstance(roll, dict) else None
        if not (isinstance(die, dict) and "triggers" in die and "pool" not in die):
            return None
        name = arg.id
        return (
            f"'{name}' is a die with triggers: it reads as the number its dice total and keeps no "
            f"history; to read {func}() of it, write it as a pool of one ('pool: 1' beside its 'die:' "
            f"and triggers), whose total is sum({name})"
        )

    def _call(self, node: ast.Call, scope: Mapping[str, T.Type]) -> tuple[T.Type, str]:
        name, args = node.func, node.args
        if name in self.unit.builtins:
            fn = self.unit.builtins[name]
            if len(args) < fn.min_args or (fn.max_args is not None and len(args) > fn.max_args):
                want = (
                    f"{fn.min_args} or more"
                    if fn.max_args is None
                    else str(fn.min_args)
                    if fn.min_args == fn.max_args
                    else f"{fn.min_args} to {fn.max_args}"
                )
                raise problem(
                    "RC303", f"{name}() takes {want} argument(s), got {len(args)}", node.span, fn.doc
                )
            if name in HISTORY and not (isinstance(args[0], ast.Name) and args[0].id in self.unit.pools):
                pools = ", ".join(sorted(self.unit.pools))
                raise problem(
                    "RC324",
                    f"{name}() reads a pool's own history: its argument must be the name of a pool "
                    "of this check's roll",
                    args[0].span or node.span,
                    self._history_hint(args[0], name)
                    or (
                        f"pools here: {pools}"
                        if pools
                        else "only a check's after-roll expressions can read a pool"
                    ),
                )
            if name == "redraws":
                return T.NUM, self._redraws(node)
            lowered = (
                self._lower_all(args, scope, None)
                if name not in ("count", "majority")
                else [self._lower(args[0], scope, None)]
            )
            if name in ("count", "majority") and len(args) == 2:
                pool_t = lowered[0][0]
                elem = pool_t.elem if pool_t.kind == "multi" and pool_t.elem is not None else None
                hint_t = (
                    T.listof(elem)
                    if elem is not None and (name == "majority" or isinstance(args[1], ast.ListExpr))
                    else elem
                )
                lowered.append(self._lower(args[1], scope, hint_t))
            result = fn.typer([t for t, _ in lowered])
            if isinstance(result, str):
                raise problem("RC304", f"{name}() {result}", node.span, fn.doc)
            impl = (
                fn.impl
                if fn.at is None
                else fn.at(Call(clipped(to_text(node)), tuple(clipped(to_text(a)) for a in args), node.span))
            )
            k = self.unit.emit.const
            given = ", ".join(src for _, src in lowered)
            if any(vague(t) for t, _ in lowered):  # its type rule when it runs
                known = tuple(None if vague(t) else t for t, _ in lowered)
                return result, f"_called({k(fn)}, {k(impl)}, {k(known)}, {k(node.span)}, {given})"
            return result, f"{k(impl)}({given})"
        if name in self.unit.data.get("tables", {}):
            table = self.table(name, node.span)
            if len(args) != len(table.params):
                raise problem(
                    "RC303",
                    f"table {name}() takes {len(table.params)} argument(s) "
                    f"({', '.join(p for p, _ in table.params)}), got {len(args)}",
                    node.span,
                )
            srcs = []
            types = []
            for arg, (pname, ptype) in zip(args, table.params):
                t, src = self._lower(arg, scope, ptype if ptype.kind != "any" else None)
                if not ptype.accepts(t):
                    raise problem(
                        "RC304",
                        f"parameter '{pname}' of {name}() is {ptype}, but this is {t}",
                        arg.span,
                        self._twin_scales(ptype, t),
                    )
                srcs.append(self._wanted(src, t, ptype, arg))
                types.append(t)
            self._check_instance(table, tuple(types), node.span)
            if self.unit.counted:
                self.unit.counted[-1] += self.unit.table_units[name]
            self._last_call = (node, table, srcs)
            return table.returns, f"{self.unit.emit.const(table.run)}({', '.join(srcs)})"
        options = list(self.unit.builtins) + list(self.unit.data.get("tables", {}))
        raise problem("RC302", f"unknown function '{name}'", node.span, did_you_mean(name, options))

    def _redraws(self, node: ast.Call) -> str:
        """`redraws(x)`: the count of x's redraws, which the evaluators keep in the environment
        beside x's value, not in it (`runtime.rules.with_dice`). Only a randomizer of this check
        that has a `redraw`, and only once it is made: read by the values, rules and outputs after
        the roll and by later randomizers, not by its own redraw condition or a table."""
        arg = node.args[0]
        if not (isinstance(arg, ast.Name) and arg.id in self.unit.redrawn):
            have = ", ".join(sorted(self.unit.redrawn))
            raise problem(
                "RC326",
                "redraws() reads how often a die, pool or draw was redrawn: its argument must be "
                "the name of one in this check's roll that has a 'redraw' and is made before this "
                "expression",
                arg.span or node.span,
                f"randomizers with a redraw here: {have}"
                if have
                else "only a check's expressions after the randomizer (values, rules, outputs, later "
                "randomizers) can read its redraws",
            )
        emit = self.unit.emit
        return f"{emit.const(self.unit.builtins['redraws'].impl)}(env, {arg.id!r})"

    # -- tables ------------------------------------------------------------------------

    def _check_instance(self, table: Table, types: tuple[T.Type, ...], call: Span | None) -> None:
        """Type-check the body of a table with untyped parameters for the types of one call.
        The calls it meets in that body are queued and checked after it, not inside it: checked
        inside, a chain of about 120 tables, each calling the next, had run out of Python's stack.
        (A call's type is the table's declared result either way, so nothing waits on them.)"""
        if all(p.kind != "any" for _, p in table.params) or (table.name, types) in self._instances:
            return
        if self._queued is not None:
            self._queued.append((table, types, call))
            return
        self._queued = [(table, types, call)]
        try:
            while self._queued:
                table, types, call = self._queued.pop(0)
                if (table.name, types) not in self._instances:  # queued twice
                    # marked as it is checked: one left in the queue by a failure is checked at
                    # its next call
                    self._instances.add((table.name, types))
                    self._check_one(table, types, call)
        finally:
            self._queued = None

    def _check_one(self, table: Table, types: tuple[T.Type, ...], call: Span | None) -> None:
        """`_check_instance` for one call's types: a problem in the body, with a hint naming them."""
        spec = self.unit.data["tables"][table.name]
        path: PathKey = ("tables", table.name)
        scope = {
            p: (t if declared.kind == "any" else declared) for (p, declared), t in zip(table.params, types)
        }
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
        saved = self.unit.locals
        self.unit.locals = set(scope)
        # the body is lowered only to be typed: the calls in it are charged to no one (they had
        # been charged to whichever table or check was being compiled, as compile order fell)
        self.unit.counted.append(0)
        try:
            for node, expect in nodes:
                try:
                    self.lower_checked(node, scope, expect)
                except Problem as f:
                    given = ", ".join(f"{p}: {t}" for p, t in scope.items())
                    raise problem(
                        f.diag.code,
                        f.diag.message,
                        f.diag.span,
                        f"when {table.name}() is called with {given} (at line {call.line if call else '?'})",
                    ) from None
        finally:
            self.unit.counted.pop()
            self.unit.locals = saved

    def _type_named(self, name: str, path: PathKey) -> T.Type:
        t = T.named(str(name), set(self.unit.scales))
        if t is None:
            raise problem(
                "RC312",
                f"unknown type or scale '{name}'",
                self.unit.doc.span(path),
                did_you_mean(str(name), ["int", "number", "bool", *self.unit.scales]),
            )
        return t

    def table_order(self) -> list[str]:
        """The ruleset's tables in the order they compile, each after the tables it calls, with
        the circles and over-long chains among them told (`table_order.table_order`)."""
        found = table_order(self.unit.data.get("tables", {}), self.unit.builtins, self._table_nodes)
        self._circles, self._too_deep = found.circles, found.too_deep
        return found.order

    def _table_nodes(self, name: str) -> list[ast.Node]:
        """The expressions of a table's body that parse, in the order it is compiled."""
        path: PathKey = ("tables", name)
        spec = self.unit.data["tables"][name]
        where: list[PathKey] = []
        if "value" in spec:
            where.append(path + ("value",))
        for i, row in enumerate(spec.get("rules", []) if isinstance(spec.get("rules"), list) else []):
            if isinstance(row, dict):
                where += [path + ("rules", i, k) for k in ("when", "then", "else") if k in row]
        keys: list[tuple[Any, PathKey]] = []
        levels = [(path + ("cases",), spec.get("cases"))]
        while levels:
            here, level = levels.pop()
            if isinstance(level, dict):
                keys += [(k, here + (k,)) for k in level if k != "else" and not isinstance(k, int)]
                levels += reversed([(here + (k,), v) for k, v in level.items()])
            elif level is not None:
                where.append(here)
        nodes: list[ast.Node] = []
        for at in where:
            try:
                nodes.append(self.node_at(at))
            except RulecraftError:
                continue  # told where the table is compiled
        for key, at in keys:  # a key may call a table too
            try:
                nodes.append(self._key_node(key, at))
            except RulecraftError:
                continue
        return nodes

    def table(self, name: str, used_at: Span | None = None) -> Table:
        """Compiled on first use, so a table may call one declared after it; a cycle is a problem."""
        if name in self.unit.tables:
            return self.unit.tables[name]
        told = self._failed.get(name) or self._too_deep.get(name)
        if told is None and used_at is not None:  # a call; the list of tables compiles it still
            told = self._circles.get(name)
        if told is not None:
            raise Problem(told)
        if name in self._table_busy:
            on = self._table_busy[self._table_busy.index(name) :]
            told = Diagnostic("RC308", f"tables may not call themselves ({circle_text(on)})", used_at)
            self._circles.update(dict.fromkeys(on, told))
            raise Problem(told)
        try:
            return self._compiled(name)
        except Problem as f:
            self._failed[name] = f.diag
            raise

    def _compiled(self, name: str) -> Table:
        """`table` for one not yet compiled."""
        path: PathKey = ("tables", name)
        spec = self.unit.data["tables"][name]
        if name in self.unit.builtins:
            raise problem(
                "RC307",
                f"table '{name}' has the name of a builtin function",
                self.unit.doc.span(path, key=True),
            )
        if name in KEYWORDS:  # no call of it could be written: `in(d)` reads the word
            raise problem(
                "RC307",
                f"'{name}' is a word of the expression language and cannot name a table",
                self.unit.doc.span(path, key=True),
                f"rename it, e.g. '{name}_'",
            )
        self._table_busy.append(name)
        self.unit.counted.append(0)
        nodes = self._nodes
        saved_locals, saved_renamed = self.unit.locals, self.unit.renamed
        saved_pools, self.unit.pools = self.unit.pools, set()  # a table sees values, not the check's pools
        saved_redrawn, self.unit.redrawn = self.unit.redrawn, set()
        try:
            params_raw = spec.get("params", [])
            params: list[tuple[str, T.Type]] = []
            if isinstance(params_raw, dict):
                for p, tname in params_raw.items():
                    params.append((p, self._type_named(tname, path + ("params", p))))
            else:
                params = [(str(p), T.ANY) for p in params_raw]
            for i, (p, _) in enumerate(params):
                if p in KEYWORDS:  # its body could never read it (hunts 13w, 13x)
                    raise problem(
                        "RC307",
                        f"'{p}' is a word of the expression language and cannot name a parameter",
                        self.unit.doc.span(path + ("params", i if isinstance(params_raw, list) else p)),
                        f"rename it, e.g. '{p}_'",
                    )
                if any(q == p for q, _ in params[:i]):
                    raise problem(
                        "RC307",
                        f"parameter '{p}' of table '{name}' is given twice",
                        self.unit.doc.span(path + ("params", i if isinstance(params_raw, list) else p)),
                        "give each parameter a name of its own",
                    )
            returns = self._type_named(spec.get("returns", "any"), path + ("returns",))
            scope = dict(params)
            self.unit.locals = set(scope)
            # its parameters' names are its own, so that its body can stand inside a check's loop
            self.unit.renamed = {p: f"_t{self._tables_made}_{p}" for p, _ in params}
            self._tables_made += 1
            span = self.unit.doc.span(path, key=True)
            where = self.unit.emit.const(span)
            rows: list[tuple[str | None, str]] | None = None
            otherwise = ""
            if "rules" in spec:
                rows, otherwise = self._rules_parts(path + ("rules",), scope, returns, span)
                body = chain(rows, lambda _, then: [f"return {then}"], [otherwise])
            elif "cases" in spec:
                body = self._cases(path + ("cases",), spec["cases"], params, 0, returns) + [
                    f"raise _nomatch({where}, 'case of table {name}', {self._shown(params)})"
                ]
            else:
                rows = [(None, self.lower_checked(self.node_at(path + ("value",)), scope, returns))]
                body = [f"return {rows[0][1]}"]
            local = tuple(self._name(p) for p, _ in params)
            # each call is charged to the request that makes it (a table calling tables grows fast),
            # a unit and its code's size past a few lines (58 rules ran 7 µs a call: hunt 13h)
            own = 1 + code_units(self._nodes - nodes)
            run = self.unit.emit.function(f"table_{name}", list(local), [*_charged(own), *body], span)
            if rows is not None and self.unit.inline:
                self.unit.bodies[name] = InlineBody(local, tuple(rows), otherwise, where)
            table = Table(name, tuple(params), returns, run, spec.get("description", ""), span)
            self.unit.tables[name] = table
            self.unit.table_units[name] = own + self.unit.counted[-1]
            return table
        finally:
            self._table_busy.pop()
            self.unit.counted.pop()
            self.unit.locals, self.unit.renamed = saved_locals, saved_renamed
            self.unit.pools = saved_pools
            self.unit.redrawn = saved_redrawn

    def lower_checked(self, node: ast.Node, scope: Mapping[str, T.Type], expect: T.Type | None) -> str:
        """Python source for `node`, for generated code that inlines it instead of calling an `Expr`."""
        return self._lower_typed(node, scope, expect)[1]

    def _lower_typed(
        self, node: ast.Node, scope: Mapping[str, T.Type], expect: T.Type | None
    ) -> tuple[T.Type, str]:
        """`lower_checked`, with the type `node` has."""
        self._nodes += ast.size(node)
        t, src = self._lower(node, scope, expect)
        if expect is not None and not expect.accepts(t):
            raise _mismatch(expect, t, node, self._mismatch_hint(expect, t, node))
        return t, self._wanted(src, t, expect, node)

    def assign(
        self, target: str, node: ast.Node, scope: Mapping[str, T.Type], expect: T.Type | None
    ) -> tuple[list[str], Inlined | None]:
        """`target = node` as statements whose errors are placed at `node` (free until raised);
        and, when `node` is a call of a table whose body is a plain if/elif chain (`Unit.bodies`),
        that body ready to be written in place of the call (`Inlined.lines`), or None.

        The second form is for a generated loop that runs with no work counter set (its table
        calls charged before it ran): it skips the call and the call's own metering, nothing
        else. The arguments are worked out first under `node`'s span, then the rows under the
        table's, so an error inside gives the diagnostic the call gave."""
        self._last_call = None
        src = self.lower_checked(node, scope, expect)
        here = self.unit.emit.const(node.span)
        called = _guarded([f"{target} = {src}"], here)
        found, self._last_call = self._last_call, None
        if found is None or found[0] is not node:
            return called, None  # not a table call, or one inside a larger expression
        _, table, args = found
        body = self.unit.bodies.get(table.name)
        if body is None or src != f"{self.unit.emit.const(table.run)}({', '.join(args)})":
            return called, None  # a result checked when it runs (`_want`), or folded to a constant
        binds: list[str] = []
        same: dict[str, str] = {}  # a parameter given a local, a constant or an `env` read is read as it
        for p, a in zip(body.params, args):
            if _IDENTIFIER.fullmatch(a) or ENV_READ.fullmatch(a):
                same[p] = a
            else:
                binds.append(f"{p} = {a}")

        def read(text: str) -> str:
            return _LOCAL.sub(lambda m: same.get(m.group(0), m.group(0)), text) if same else text

        rows = tuple((None if when is None else read(when), read(then)) for when, then in body.rows)
        head = tuple(_guarded(binds, here)) if binds else ()
        return called, Inlined(head, rows, read(body.otherwise), body.where)

    def _shown(self, params: list[tuple[str, T.Type]]) -> str:
        names = tuple(p for p, _ in params)
        return f"_pairs({self.unit.emit.const(names)}, {', '.join(self._name(p) for p in names)})"

    def _rules_parts(
        self, path: PathKey, scope: Mapping[str, T.Type], returns: T.Type, span: Span
    ) -> tuple[list[tuple[str | None, str]], str]:
        """An ordered rule list inside a table: each row's condition and result, and the
        statement that raises when none matches."""
        rows = self.rule_list(path, scope, returns)
        if returns.kind == "any":
            # An undeclared result must still be one kind of value in every row.
            kinds = [r.then for r in rows if r.then.type.kind != "any"]
            for row in kinds[1:]:
                if not kinds[0].type.accepts(row.type):
                    raise problem(
                        "RC304",
                        f"this row gives {row.type}, but an earlier row gives {kinds[0].type}",
                        row.node.span,
                        "every row of a table gives one kind of value; declare it with 'returns:'",
                    )
        params = [(p, t) for p, t in scope.items()]
        nomatch = f"raise _nomatch({self.unit.emit.const(span)}, 'rule', {self._shown(params)})"
        return self.rule_parts(rows, scope, returns), nomatch

    def rule_parts(
        self, rows: tuple[Rule, ...], scope: Mapping[str, T.Type], returns: T.Type
    ) -> list[tuple[str | None, str]]:
        """Each row's condition (None for `else:`) and result, as Python source: a table's rules
        or a check's outcome rules, as `chain` takes them."""
        parts: list[tuple[str | None, str]] = []
        for rule in rows:
            if rule.again:  # `then: again`: the symbol no outcome is (`AGAIN`), as a constant
                then = self.unit.emit.const(rule.then.run({}))
            else:
                then = self.lower_checked(rule.then.node, scope, returns)
            when = None if rule.when is None else self.lower_checked(rule.when.node, scope, T.BOOL)
            parts.append((when, then))
            if when is None:
                break  # rows after an `else:` never run (nor are their table calls counted)
        return parts

    def rule_list(
        self, path: PathKey, scope: Mapping[str, T.Type], returns: T.Type, again: bool = False
    ) -> tuple[Rule, ...]:
        """Each row is its own statement, so every faulty row is reported, not just the first.
        `again`: a check's outcome rules, where `then: again` rolls the whole check again."""
        rows: list[Rule] = []
        items = self.unit.doc.data
        for p in path:
            items = items[p]
        for i, item in enumerate(items):
            with statement(self.unit.diags):
                here = path + (i,)
                if "else" in item:
                    key = here + ("else",)
                    if again and _is_again(item["else"]):
                        then = self._again(key, returns)
                        rows.append(Rule(None, then, self.unit.doc.span(key, key=True), again=True))
                        continue
                    then = self.expr(key, scope, returns)
                    rows.append(Rule(None, then, self.unit.doc.span(key, key=True)))
                else:
                    when = self.expr(here + ("when",), scope, T.BOOL)
                    span = self.unit.doc.span(here + ("when",), key=True)
                    if again and _is_again(item.get("then")):
                        rows.append(Rule(when, self._again(here + ("then",), returns), span, again=True))
                        continue
                    then = self.expr(here + ("then",), scope, returns)
                    rows.append(Rule(when, then, span))
        return tuple(rows)

    def _again(self, path: PathKey, returns: T.Type) -> Expr:
        """The result of a row `then: again`: `AGAIN` as a symbol of the outcome scale that is
        none of its members (its rank is -1), so the programs and loops that count outcomes
        count it as they count any, and the evaluators take it apart (`Check.again_rules`)."""
        node = ast.Sym(AGAIN, span=self.unit.doc.span(path))
        symbol = Symbol(returns.scale or "", AGAIN, -1)
        run = self.unit.emit.expression(self.unit.emit.const(symbol), node.span)
        return Expr(node, returns, run, AGAIN)

    def _cases(
        self,
        path: PathKey,
        cases: dict[Any, Any],
        params: list[tuple[str, T.Type]],
        depth: int,
        returns: T.Type,
        given: list[tuple[T.Type, ast.Node]] | None = None,
    ) -> list[str]:
        """A value table as an if-chain: one nested mapping level per parameter, keys are patterns.
        Without `returns`, its results may be of several kinds (docs/language.md, Tables), but not
        true/false beside numbers (`given`: the kinds seen so far): `true` is no 1, and an exact
        distribution, which keys its values by what they equal, would count them as one."""
        given = [] if given is None else given
        if depth >= len(params):
            raise problem(
                "RC310",
                "this value table is nested deeper than it has parameters",
                self.unit.doc.span(path, key=True),
            )
        pname, ptype = params[depth]
        lines: list[str] = []
        default: list[str] | None = None
        for key, sub in cases.items():
            here = path + (key,)
            with statement(self.unit.diags):
                if isinstance(sub, dict):
                    result = self._cases(here, sub, params, depth + 1, returns, given)
                else:
                    if depth != len(params) - 1:
                        raise problem(
                            "RC310",
                            f"expected a nested table for parameter '{params[depth + 1][0]}'",
                            self.unit.doc.span(here),
                        )
                    node = self.node_at(here)
                    kind, src = self._lower_typed(node, {}, returns)
                    if returns.kind == "any":
                        _one_of_truth_or_number(kind, node, given)
                    result = [f"return {src}"]
                if key == "else":
                    default = result
                else:
                    lines.append(f"if {self._pattern(key, here, pname, ptype)}:")
                    self._nodes += 3
                    lines += ["    " + line for line in result] or ["    pass"]  # rows that failed
        if default is not None:
            lines += default
        return lines

    def _key_node(self, key: Any, path: PathKey) -> ast.ListExpr:
        """A case key that is not a whole number (a value, a range, or several), as the list of
        them it is, placed on the key."""
        place = self.unit.doc.places.get(path)
        origin = self.unit.doc.expr_origin(path)
        text = self.unit.doc.key_text(path)  # a decimal without quotes: every digit written
        if place is not None and place.key is not None:
            line, col = place.key
            written = self.unit.doc.source.line(line)[col - 1 :]
            quote = written[:1]
            if quote in ("'", '"') and written.find(quote, 1) == len(text) + 1:  # no escapes in it
                col += 1  # the key's text starts after its quote
            origin = ExprOrigin(self.unit.doc.source, line, col, 0)
        if not text.strip(" []"):
            raise problem(
                "RC310",
                f"the case key {'(empty)' if not text.strip() else repr(text)} names no value",
                self.unit.doc.span(path, key=True),
                "a case key is a value, a range ('1..3') or several ('1, 2', [1, 3]); 'else' for the rest",
            )
        node = self.parse(text, origin) if text.lstrip().startswith("[") else None
        if not isinstance(node, ast.ListExpr):
            at = ExprOrigin(origin.source, origin.line, origin.col - 1, origin.indent)
            try:
                node = self.parse(f"[{text}]", at)
            except RulecraftError as exc:
                end = exc.diagnostics[0].span
                if end is None or (end.line, end.col) != (origin.line, origin.col + len(text)):
                    raise
                self.parse(f"[{text}", at)  # the ']' added here: the key ends too early, said so
                raise
        assert isinstance(node, ast.ListExpr)
        return node

    def _pattern(self, key: Any, path: PathKey, pname: str, ptype: T.Type) -> str:
        """A test of parameter `pname` against a case key: a value, a range, or a list of them."""
        var = self._name(pname)
        if isinstance(key, int):
            if not ptype.accepts(T.NUM):
                raise problem(
                    "RC304",
                    f"case {key} is a number, but parameter '{pname}' is {ptype}",
                    self.unit.doc.span(path, key=True),
                    _TYPED_KEY.get(ptype.kind),
                )
            return f"{var} == {key!r}"
        node = self._key_node(key, path)
        tests: list[str] = []
        for item in node.items:
            _literal_key(item)
            expect = ptype if ptype.kind == "sym" else None
            if isinstance(item, ast.Name) and expect is None and ptype.kind == "any":
                item = ast.Sym(item.id, span=item.span)
            if isinstance(item, ast.Range):
                if not ptype.accepts(T.NUM):
                    raise problem(
                        "RC304",
                        f"a range of numbers cannot match parameter '{pname}', which is {ptype}",
                        item.span,
                    )
                try:
                    value = self.lower(item, {}).run({})
                except LimitError:  # a bound of the load (its code, its work), not this range's
                    if self.unit.emit.passed is None:
                        raise
                    value = range(0)  # no code past `max_code` (reported once): the ruleset is refused
                except RulecraftError as exc:
                    raise problem(
                        "RC304", exc.diagnostics[0].message, item.span, "case ranges run over whole numbers"
                    ) from None
                tests.append(f"_in({var}, {self.unit.emit.const(value)})")  # at once for a third too
            else:
                t, src = self._lower(item, {}, expect)
                if not ptype.accepts(t):
                    raise problem(
                        "RC304",
                        f"case {to_text(item)} is {t}, but parameter '{pname}' is {ptype}",
                        item.span,
                        _TYPED_KEY.get(ptype.kind) if {t.kind, ptype.kind} == {"bool", "num"} else None,
                    )
                tests.append(f"{var} == {src}")
        return " or ".join(tests)


def _literal_key(item: ast.Node) -> None:
    """Refuse a case key's item that is arithmetic: a key is a value or a range, so `"1-2"`
    (read as the number -1, a slip for the range 1..2) or `"1+1"` would match a value the
    author never wrote. A fraction `a/b` of two numbers is a value (1/3 has no decimal)."""
    if isinstance(item, ast.Range):
        for end in (item.lo, item.hi):
            _literal_key(end)
        return
    if isinstance(item, (ast.Num, ast.Bool, ast.Sym, ast.Name)):
        return
    if (
        isinstance(item, ast.Binary)
        and item.op == "/"
        and isinstance(item.left, ast.Num)
        and isinstance(item.right, ast.Num)
    ):
        return
    written = (item.span.text if item.span is not None else "") or to_text(item)
    dash = ast.range_slip(item)
    raise problem(
        "RC310",
        f"the case key '{written}' is a calculation"
        + (f" (the number {node_value})" if (node_value := _worked(item)) is not None else "")
        + ": a case key is a value or a range, not arithmetic",
        item.span,
        f"write {dash[0]}..{dash[1]} for a range"
        if dash
        else "write the value it stands for, or a range (1..3)",
    )


def _worked(node: ast.Node) -> str | None:
    """What a key of two numbers and one operator works out to, said so the slip shows."""
    if isinstance(node, ast.Binary) and isinstance(node.left, ast.Num) and isinstance(node.right, ast.Num):
        a, b = node.left.value, node.right.value
        value = {"-": a - b, "+": a + b, "*": a * b}.get(node.op)
        return None if value is None else str(value)
    return None


_TYPED_KEY = {
    "bool": "a true/false parameter's cases are true and false "
    "(a number matches a truth value only in an untyped parameter's table)",
    "num": "write the number (1 or 0), or declare the parameter bool "
    "(true matches 1 only in an untyped parameter's table)",
}
"""The hint of a case key of the wrong type, true/false against a number, by the parameter's kind
(docs/language.md, `cases`: keys compare by value, a truth value equal to a number, only in an
untyped parameter's table; a typed one checks each key against its type)."""


def _is_again(raw: Any) -> bool:
    """Whether a rule's written result is the bare word `again` (not quoted: `'again'` would be
    a member of the scale, which no outcome scale may have)."""
    return isinstance(raw, str) and raw.strip() == AGAIN


def chain(
    rows: Sequence[tuple[str | None, str]], take: Callable[[int, str], list[str]], otherwise: list[str]
) -> list[str]:
    """The if/elif chain of a rule list, stated once: the first row whose condition holds
    decides. Each row is (its condition's source, None for `else:`; its result's source);
    `take(i, result)` is what row `i` does with it, `otherwise` what runs when no row holds."""
    lines: list[str] = []
    for i, (when, then) in enumerate(rows):
        if when is None:
            head = "else:" if i else "if True:"
        else:
            head = f"{'elif' if i else 'if'} {when}:"
        lines += [head, *("    " + line for line in take(i, then))]
        if when is None:
            return lines
    if not lines:
        return otherwise
    return [*lines, "else:", *("    " + line for line in otherwise)]


def located(
    lines: list[str], rows: Sequence[tuple[str | None, str]], spans: Sequence[tuple[str, str]]
) -> list[str]:
    """A rule list's chain whose errors are placed at the row that raised them: the rows'
    conditions and results are pure, so once one raises, they are worked out again, in order
    and each guarded, to find it (free until raised). `spans` names each row's condition's and
    result's span; an error none of them raises again keeps the span it had."""
    again: list[str] = []
    for (when, then), (at_when, at_then) in zip(rows, spans):
        if when is not None:
            again += _guarded([f"_held = {when}"], at_when)
        else:
            again += ["_held = True"]
        again += ["if _held:", *("    " + line for line in _guarded([then], at_then)), "    raise"]
        if when is None:
            break
    return [
        "try:",
        *("    " + line for line in lines),
        "except _Error:",
        *("    " + line for line in again),
        "    raise",
    ]


@frozen
class Inlined:
    """One call of a plain table written out: the arguments bound (`head`, placed at the call),
    then the table's rows with its parameters read as the arguments, placed at the table."""

    head: tuple[str, ...]
    rows: tuple[tuple[str | None, str], ...]
    otherwise: str
    where: str

    def lines(self, take: Callable[[int, str], list[str]]) -> list[str]:
        """The statements, row `i` doing `take(i, result)` (an assignment, or a weight counted)."""
        return [*self.head, *_guarded(chain(self.rows, take, [self.otherwise]), self.where)]


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
ENV_READ = re.compile(r"env\[('[A-Za-z_][A-Za-z0-9_]*')\]")
"""How generated code reads a name that is not a local (`Expressions._name`): what a loop reads
once before it starts (`programs._hoisted`), and what an inlined parameter may stand for."""
_LOCAL = re.compile(r"\b_t[0-9]+_[A-Za-z0-9_]+\b")
"""A table parameter's name in generated code (`Unit.renamed`); nothing else there starts so."""


def _guarded(lines: list[str], where: str) -> list[str]:
    """Statements whose Python errors are placed at the span named `where` (free until raised)."""
    return [
        "try:",
        *("    " + line for line in lines),
        "except _Error as exc:",
        f"    raise _wrong({where}, exc) from None",
    ]


def _charged(units: int) -> list[str]:
    """A table call's first lines: its `units` charged to the current request (`runtime.work`), inline."""
    return [
        "_w = _work()",
        "if _w is not None:",
        f"    _w.used += {units}",
        "    if _w.used > _w.mark:",
        "        _w.over()",
    ]


def _too_long(value: Any) -> bool:
    """A folded number with more digits than any number may have (a bool is not one)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, Fraction)):
        return bool(max(abs(value.numerator), value.denominator) >= 10**MAX_DIGITS)
    return False


def _one_of_truth_or_number(kind: T.Type, node: ast.Node, given: list[tuple[T.Type, ast.Node]]) -> None:
    """RC304 for a result of a `cases` table without `returns` that is true/false where an
    earlier one is a number, or the other way round (`Compiler._cases`)."""
    if kind.kind in ("bool", "num") and not any(t.kind == "any" for t, _ in given):  # told once
        other = next((t for t, _ in given if t.kind in ("bool", "num") and t.kind != kind.kind), None)
        if other is not None:
            given.append((T.ANY, node))
            raise problem(
                "RC304",
                f"this case gives {kind}, but an earlier case gives {other}: true is no 1, and a table's"
                " results do not mix them",
                node.span,
                "give one kind of value in every case, or declare it with 'returns:'",
            )
        given.append((kind, node))
