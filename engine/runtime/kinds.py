"""The static type rules, applied when a check runs to a value whose type is known only then.

A table with an untyped `returns` gives a value of type `any`: the compiler accepts it wherever
a value may stand, and its code then checks it where it meets an operation that needs one kind
(`compiler.expressions` writes the calls). Python would otherwise carry it on: a scale's value
is a `str`, so `+` joins two and `*` repeats one; true/false is an `int`, so `true + 1` is 2 and
`true == 1` holds. Each check here applies a rule of the type checker, with its words, as the
safety net's `RC506` at the expression: a comparison's from `comparing`, a builtin's its own
`typer`, the compiler applying the same ones at load. Sampler and exact evaluator run the same
generated code, so they meet the same checks; typed values never pass through here.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from fractions import Fraction
from functools import lru_cache
from typing import Any

from ..errors import Diagnostic, EvalError
from ..model import types as T
from ..model.values import Multi, Symbol, show
from ..syntax.positions import Span
from .builtins import Builtin
from .comparing import MEMBERSHIP, compare_rule, found_in
from .folds import Summary

_HINT = "declare the table's result ('returns:') so that rulecraft checks it when it loads"


def _wrong(message: str, span: Span | None) -> EvalError:
    return EvalError([Diagnostic("RC506", message, span, _HINT)])


def vague(t: T.Type) -> bool:
    """Whether a value of static type `t` may be of a kind known only when it runs: `any`, or a
    pool or list of such values (a pool read through an untyped table's `each`)."""
    while t.elem is not None:
        t = t.elem
    return t.kind == "any" and not t.broken


@lru_cache(maxsize=256)
def _scale(name: str) -> T.Type:
    """A scale's type, made once (a check reads a scale's value again and again)."""
    return T.sym(name)


def type_of(value: Any, span: Span | None) -> T.Type:
    """The static type `value` would have had: a list or pool by its items, which must be of one
    type (`RC506` for a list that mixes them, as `RC304` is for one written so); a pool the exact
    evaluator passes as its statistics only shows no readings, so it is a pool of `any`."""
    if value is True or value is False:
        return T.BOOL
    kind = type(value)
    if kind is int or kind is Fraction:
        return T.NUM
    if kind is Symbol:
        return _scale(value.scale)
    if kind is tuple:
        return T.listof(_one_type(value, span))
    if kind is Multi:
        return T.multi(_one_type(value.items, span))
    if kind is range:
        return T.RANGE
    if kind is Summary:
        return T.multi(T.ANY)
    return T.ANY


def _one_type(items: Iterable[Any], span: Span | None) -> T.Type:
    found = T.ANY
    for item in items:
        t = type_of(item, span)
        if not found.accepts(t):
            raise _wrong(f"a list or pool holds values of one type; this one holds {found} and {t}", span)
        if found.kind == "any":
            found = t
    return found


def want(value: Any, wanted: T.Type, span: Span | None) -> Any:
    """`value`, of a type known only when it runs, where the compiler expected `wanted` (a number,
    true/false, a scale's value, ...): checked, never passed on as another kind. A scale's value
    where its scale is wanted (a table's answer, the common case) is passed at once."""
    if type(value) is Symbol and wanted.kind == "sym" and wanted.scale == value.scale:
        return value
    if not wanted.accepts(type_of(value, span)):
        raise _wrong(f"expected {wanted} here, but this gave {show(value)}", span)
    return value


_ORDERS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def compare(op: str, a: Any, b: Any, ta: T.Type | None, tb: T.Type | None, span: Span | None) -> bool:
    """`a op b` (a comparison or `in`) where a side's type is known only when it runs (None: read
    it from the value), by the rule the compiler checks at load (`comparing.compare_rule`)."""
    left = type_of(a, span) if ta is None else ta
    right = type_of(b, span) if tb is None else tb
    refused = compare_rule(op, left, right)
    if refused is not None:
        raise _wrong(refused, span)
    if op in MEMBERSHIP:
        found = found_in(a, b)
        return found if op == "in" else not found
    return _ORDERS[op](a, b)


def call(
    fn: Builtin, impl: Callable[..., Any], types: tuple[T.Type | None, ...], span: Span | None, *args: Any
) -> Any:
    """`impl(*args)`, a call of builtin `fn`, once its type rule holds for the arguments' types,
    those known only when it runs (None) read from their values. A `strict` builtin's
    implementation fails for every kind its rule refuses, so the rule is read only when it
    failed: the error is then the rule's, not Python's ("'int' object has no attribute 'rank'")."""
    if fn.strict:
        try:
            return impl(*args)
        except Exception:
            _held(fn, types, span, args)
            raise
    _held(fn, types, span, args)
    return impl(*args)


def _held(fn: Builtin, types: tuple[T.Type | None, ...], span: Span | None, args: tuple[Any, ...]) -> None:
    """`RC506` with the words of `fn`'s type rule where the arguments' types break it."""
    found = [type_of(a, span) if t is None else t for t, a in zip(types, args)]
    result = fn.typer(found)
    if isinstance(result, str):
        raise _wrong(f"{fn.name}() {result}", span)


Use = tuple[Builtin, tuple[T.Type | None, ...], Span | None]
"""A statistic a check reads a pool through: the builtin, its arguments' types (None: the pool),
and where the call is written."""


def reading(value: Any, uses: tuple[Use, ...]) -> Any:
    """A reading of a pool whose `each` has a type known only when it runs, checked against the
    type rules of the statistics the check reads that pool through (`sum(p)`, `count(p, 1)`), as
    `call` checks them where a pool is passed whole: the exact evaluator works a statistic out
    from the readings themselves, and the call sees only the result."""
    pool = T.multi(type_of(value, None))
    for fn, types, span in uses:
        result = fn.typer([pool if t is None else t for t in types])
        if isinstance(result, str):
            raise _wrong(f"{fn.name}() {result}", span)
    return value
