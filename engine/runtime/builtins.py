"""The function library of the expression language.

Each builtin has a type rule (checked at compile time) and one implementation that both the
sampler and the exact evaluator call, so there is a single semantics for every function.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from ..errors import Diagnostic, EvalError
from ..frozen import frozen
from ..model import types as T
from ..model.values import Multi, Symbol, normalize, redraws_key, show
from ..syntax.positions import Span
from .folds import Summary, apply

Typer = Callable[[Sequence[T.Type]], "T.Type | str"]


@frozen(slots=True)
class Call:
    """One call of a builtin as written (`printer.to_text`) and where it is: an argument's value
    is known only when it runs, so what refuses it there quotes the call and points at it."""

    text: str
    args: tuple[str, ...]
    span: Span | None


@frozen(slots=True)
class Builtin:
    """A library function: arity, a type rule returning the result type or a complaint, the code."""

    name: str
    min_args: int
    max_args: int | None
    """None: no most of its own. `min` and `max` take any number of values: an expression's size
    (`Limits.max_expression_size`, `RC202`) bounds the call, and the exact evaluator's work is
    the randomizers' combinations (`Limits.max_states`, `max_work`), not the arguments'."""
    typer: Typer
    impl: Callable[..., Any]
    doc: str
    at: Callable[[Call], Callable[..., Any]] | None = None
    """The implementation for one call, for a builtin that can refuse its arguments' values (its
    errors then quote that call, not a pattern of it); None: `impl` serves every call."""
    strict: bool = False
    """Whether `impl` fails (an exception) for every argument of a kind its type rule refuses:
    then an argument whose type is known only when it runs is checked only once the call failed,
    for the rule's words (`runtime.kinds.call`), and a right call costs no check. Most let
    another kind through (`abs(true)` is 1), so theirs are checked before the call."""


def _nums(result: T.Type) -> Typer:
    def typer(args: Sequence[T.Type]) -> T.Type | str:
        for a in args:
            if not T.NUM.accepts(a):
                return f"expects numbers, got {a}"
        return result

    return typer


def _ordered(args: Sequence[T.Type]) -> T.Type | str:
    """min/max: numbers, symbols of one scale, or a single pool."""
    if len(args) == 1:
        if args[0].kind == "multi" and args[0].elem is not None:
            return args[0].elem
        if args[0].kind == "any":
            return T.ANY
        return f"with one argument expects a pool or draw, got {args[0]}"
    known = [a for a in args if a.kind != "any"]
    if not known:
        return T.ANY
    first = known[0]
    for a in known:
        if not first.accepts(a) or a.kind not in ("num", "sym"):
            return f"expects numbers or values of one scale, got {first} and {a}"
    return first


def _of_multi(
    result: Callable[[T.Type], T.Type | str], unknown: T.Type = T.ANY, *, lists: bool = False
) -> Typer:
    """A statistic of one pool or draw (or, with `lists`, a list): `result` turns the element
    type into the result type (or a complaint); `unknown` is the result when the argument's type
    is not known."""
    kinds = ("multi", "list") if lists else ("multi",)

    def typer(args: Sequence[T.Type]) -> T.Type | str:
        a = args[0]
        if a.kind == "any":
            return unknown
        if a.kind not in kinds or a.elem is None:
            return f"expects a pool or draw{', or a list' if lists else ''}, got {a}"
        return result(a.elem)

    return typer


def _count_typer(args: Sequence[T.Type]) -> T.Type | str:
    a = args[0]
    if a.kind not in ("multi", "list", "any"):
        return f"expects a pool, draw or list first, got {a}"
    if len(args) == 2 and a.elem is not None:
        b = args[1]
        target = b.elem if b.kind in ("list",) and b.elem else b
        if b.kind == "range" and not T.NUM.accepts(a.elem):
            return f"cannot count a range of numbers in a pool of {a.elem}"
        if b.kind != "range" and not a.elem.accepts(target):
            return f"cannot count {b} in a pool of {a.elem}"
    return T.NUM


def _sum_of(elem: T.Type) -> T.Type | str:
    if not T.NUM.accepts(elem):
        return f"adds numbers, but this pool reads as {elem}; count() the readings instead"
    return T.NUM


def _majority_typer(args: Sequence[T.Type]) -> T.Type | str:
    a = args[0]
    if a.kind == "any":
        return T.ANY
    if a.kind != "multi" or a.elem is None:
        return f"expects a pool or draw first, got {a}"
    if len(args) == 2:
        b = args[1]
        if b.kind != "list" or (b.elem is not None and not a.elem.accepts(b.elem)):
            return f"expects a list of {a.elem} as the tie-break order, got {b}"
    return a.elem


def _shift_typer(args: Sequence[T.Type]) -> T.Type | str:
    if args[0].kind not in ("sym", "any"):
        return f"expects a value of a scale first, got {args[0]}"
    if not T.NUM.accepts(args[1]):
        return f"expects a number of steps second, got {args[1]}"
    return args[0]


def _rank_typer(args: Sequence[T.Type]) -> T.Type | str:
    return T.NUM if args[0].kind in ("sym", "any") else f"expects a value of a scale, got {args[0]}"


def _clamp(x: Any, lo: Any, hi: Any) -> Any:
    return lo if x < lo else hi if x > hi else x


def _extreme(name: str, plain: Callable[..., Any]) -> Callable[..., Any]:
    """min/max: of several values, or (one argument) of a pool's readings."""

    def impl(*args: Any) -> Any:
        if len(args) == 1 and isinstance(args[0], (Multi, Summary)):
            return apply(name, args[0], ())
        return plain(args)

    return impl


def _fold(name: str) -> Callable[..., Any]:
    return lambda m, *args: apply(name, m, args)


def _over_items(name: str) -> Callable[..., Any]:
    """count/sum: of a pool's readings, or of a list's items read the same way."""
    return lambda m, *args: apply(name, Multi(m) if type(m) is tuple else m, args)


def _kept_typer(args: Sequence[T.Type]) -> T.Type | str:
    """highest/lowest: of one pool (or list) its extreme reading; with a count, the pool of that
    many. A list is read as a pool of its items, so it keeps what `max` orders: numbers, or
    values of one scale."""
    a = args[0]
    if a.kind == "list":
        elem = a.elem or T.ANY
        if elem.kind not in ("num", "sym", "any"):
            return f"keeps numbers or values of one scale, but this is a {a}"
    elif a.kind not in ("multi", "any") or (a.kind == "multi" and a.elem is None):
        return f"expects a pool, draw or list{' first' if len(args) == 2 else ''}, got {a}"
    if len(args) == 2 and not T.NUM.accepts(args[1]):
        return f"expects how many dice to keep second, a number, got {args[1]}"
    if a.kind == "any":
        return T.ANY
    elem = a.elem or T.ANY
    if len(args) == 1:
        return elem
    return a if a.kind == "multi" else T.multi(elem)


def _kept(name: str, reverse: bool, call: Call | None = None) -> Callable[..., Any]:
    """`highest(p)` (a fold), or `highest(p, k)`: the k highest readings of p as a pool (all of
    them when p has fewer), the readings in order. A list (a tuple when run) is read as the pool
    of its items, so `highest([a, b, c], 2)` is a pool of two, as `highest(p, 2)` is. `call`: the
    call it serves, which its refusals quote and point at."""
    quoted = call.text if call is not None else f"{name}(p, k)"
    first = call.args[0] if call is not None else "p"
    where = call.span if call is not None else None

    def impl(m: Any, *args: Any) -> Any:
        if type(m) is tuple:
            if not m and not args:
                raise EvalError(
                    [
                        Diagnostic(
                            "RC504",
                            f"{name}() of an empty list has no value",
                            where,
                            f"give the list an item, or keep a count of it: {name}([...], k)",
                        )
                    ]
                )
            m = Multi(m)
        if not args or isinstance(m, Summary):
            return apply(name, m, args)  # the fold, with no frame between (or read from the summary)
        k = args[0]
        if isinstance(k, bool) or k != int(k) or k < 0:
            raise EvalError(
                [
                    Diagnostic(
                        "RC504",
                        f"{quoted} keeps a whole number of dice (or items), at least 0, not {show(k)}",
                        where,
                        f"give the count to keep as a whole number, e.g. {name}({first}, 2)",
                    )
                ]
            )
        return Multi(tuple(sorted(m.items, reverse=reverse)[: int(k)]))

    return impl


def _kept_at(name: str, reverse: bool) -> Callable[[Call], Callable[..., Any]]:
    """`Builtin.at` of highest/lowest: `_kept` for the one call the compiler lowers."""
    return lambda call: _kept(name, reverse, call)


HISTORY = ("first_roll", "added_dice", "rerolled_dice")
"""The functions that read a pool's own history, in the order `Multi.history` keeps it."""


def _history(part: int) -> Callable[[Multi], Multi]:
    """A part of a pool's history (`HISTORY[part]`). A pool that carries none (no triggers, or
    none of them acted) was rolled once: its first roll is itself, nothing was added or rerolled."""

    def impl(m: Multi) -> Multi:
        if m.history is not None:
            found = m.history[part]
            if found is not None:
                return found
        return m if part == 0 else Multi(())

    return impl


def _redraws(env: Mapping[str, Any], name: str) -> int:
    """`redraws(name)`: the compiler passes the environment and the randomizer's name (the
    count is no part of the value the name reads)."""
    count: int = env[redraws_key(name)]
    return count


def _same_pool(args: Sequence[T.Type]) -> T.Type | str:
    a = args[0]
    if a.kind in ("multi", "any"):
        return a
    return f"expects a pool, got {a}"


def _shift(s: Symbol, steps: Any, scales: dict[str, tuple[Symbol, ...]]) -> Symbol:
    members = scales[s.scale]
    index: int = _clamp(s.rank + int(steps), 0, len(members) - 1)
    return members[index]


def library(scales: dict[str, tuple[Symbol, ...]]) -> dict[str, Builtin]:
    """The builtins, bound to the ruleset's scales (which `shift` needs)."""
    fns = [
        Builtin("floor", 1, 1, _nums(T.NUM), lambda x: math.floor(x), "round down to a whole number"),
        Builtin("ceil", 1, 1, _nums(T.NUM), lambda x: math.ceil(x), "round up to a whole number"),
        Builtin("abs", 1, 1, _nums(T.NUM), lambda x: abs(x), "absolute value"),
        Builtin("min", 1, None, _ordered, _extreme("min", min), "the least of its arguments, or of a pool"),
        Builtin(
            "max", 1, None, _ordered, _extreme("max", max), "the greatest of its arguments, or of a pool"
        ),
        Builtin("clamp", 3, 3, _ordered, _clamp, "clamp(x, lo, hi): x kept within lo..hi"),
        Builtin(
            "count",
            1,
            2,
            _count_typer,
            _over_items("count"),
            "count(p): dice in p (or items of a list); count(p, x): dice reading x (or in a list/range)",
        ),
        Builtin(
            "sum",
            1,
            1,
            _of_multi(_sum_of, T.NUM, lists=True),
            _over_items("sum"),
            "total of a pool's readings (or a list's)",
        ),
        Builtin(
            "highest",
            1,
            2,
            _kept_typer,
            _kept("highest", True),
            "highest(p): the highest reading of a pool (or list); highest(p, k): its k highest, as a pool",
            _kept_at("highest", True),
        ),
        Builtin(
            "lowest",
            1,
            2,
            _kept_typer,
            _kept("lowest", False),
            "lowest(p): the lowest reading of a pool (or list); lowest(p, k): its k lowest, as a pool",
            _kept_at("lowest", False),
        ),
        Builtin(
            "best",
            1,
            1,
            _of_multi(lambda e: e),
            _fold("best"),
            "the best chit of a draw (by the bag's order)",
            strict=True,
        ),
        Builtin(
            "worst",
            1,
            1,
            _of_multi(lambda e: e),
            _fold("worst"),
            "the worst chit of a draw (by the bag's order)",
            strict=True,
        ),
        Builtin(
            "majority",
            1,
            2,
            _majority_typer,
            _fold("majority"),
            "majority(p, [order]): the most common reading, ties by order",
        ),
        Builtin(
            "shift",
            2,
            2,
            _shift_typer,
            lambda s, n: _shift(s, n, scales),
            "shift(x, n): n steps along x's scale, clamped",
        ),
        Builtin(
            "first_roll",
            1,
            1,
            _same_pool,
            _history(0),
            "first_roll(p): the dice of pool p as first rolled, before its triggers acted",
            strict=True,
        ),
        Builtin(
            "added_dice",
            1,
            1,
            _same_pool,
            _history(1),
            "added_dice(p): the dice the triggers of pool p added",
            strict=True,
        ),
        Builtin(
            "rerolled_dice",
            1,
            1,
            _same_pool,
            _history(2),
            "rerolled_dice(p): the dice of pool p its triggers rerolled, as they showed before",
            strict=True,
        ),
        Builtin(
            "redraws",
            1,
            1,
            lambda args: T.NUM,
            _redraws,
            "redraws(x): how many times die, pool or draw x was redrawn (its `redraw`)",
        ),
        Builtin(
            "rank",
            1,
            1,
            _rank_typer,
            lambda s: s.rank,
            "position of a value in its scale, worst = 0",
            strict=True,
        ),
        Builtin(
            "half",
            1,
            1,
            _nums(T.NUM),
            lambda x: normalize(Fraction(x) / 2),
            "exactly half (may be a fraction)",
        ),
    ]
    return {f.name: f for f in fns}
