"""Statistics of a pool or a draw, written once as folds over (reading, how many) pairs.

`count`, `sum`, `highest`, `lowest`, `best`, `worst`, `majority` and one-argument `min`/`max`
are folds. The builtins run them over a rolled pool; the exact evaluator runs the same step
functions inside a dynamic programme over the pool's readings, so a check that looks at a
pool only through these statistics never has to list the pool's multisets (a 10-die pool of
five readings has 1001 of them; the programme keeps a few dozen states). Order of the pairs
never matters: every fold is commutative.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from ..errors import Diagnostic, EvalError
from ..frozen import frozen
from ..model.values import Multi, Symbol, normalize
from .comparing import within


@frozen(slots=True)
class Fold:
    """A statistic: `step(state, reading, count, args)` from `init(args)`, read by `final`."""

    name: str
    init: Callable[[tuple[Any, ...]], Any]
    step: Callable[[Any, Any, int, tuple[Any, ...]], Any]
    final: Callable[[Any, tuple[Any, ...]], Any]
    settled: Callable[[Any, int], bool] = lambda state, left: left == 0
    """Whether no `left` more dice can change the result (lets the exact evaluator stop early)."""
    order: int = 0
    """In which order the fold must be given the readings: 1 the highest first, -1 the lowest
    first (`in_order`), 0 any order."""
    holds: Callable[[tuple[Any, ...]], int] = lambda args: 0
    """For these arguments, the most readings a state holds, for a statistic whose state is the
    tuple of the readings it keeps (the k of `highest(p, k)`): a step sorts them with those it
    adds (at most as many again) and the new state is keyed by them, so the exact evaluator
    charges for them (`foldcost.kept_units`); 0: a state is a number or one reading."""
    adds: bool = False
    """Whether a step adds readings (a sum), where other statistics compare or count them: over
    fractions an addition reduces by a gcd, so the exact evaluator charges it more
    (`foldcost.fraction_base`)."""

    def over(self, tally: Iterable[tuple[Any, int]], args: tuple[Any, ...]) -> Any:
        state = self.init(args)
        if self.order:
            tally = in_order(tally, self.order)
        for value, count in tally:
            if count:
                state = self.step(state, value, count, args)
        return self.final(state, args)


@frozen(slots=True, compared_now=True)  # compared by nearly every exact request
class Summary:
    """What the exact evaluator passes for a pool that is only read through folds: the results."""

    results: dict[tuple[Any, ...], Any]

    def __hash__(self) -> int:
        # Order-free, so equal summaries hash alike; an empty pool's undefined statistic is left
        # out (it equals only itself).
        return hash(frozenset((k, v) for k, v in self.results.items() if not isinstance(v, _Undefined)))


def matches(value: Any, what: Any) -> bool:
    """Whether a die reading `value` is counted by `count(p, what)`: in a list or range, or equal."""
    if type(what) is range:
        return within(value, what)
    if isinstance(what, tuple):
        return value in what
    return bool(value == what)


def _sort_key(value: Any) -> Any:
    return value.rank if isinstance(value, Symbol) else value


def in_order(pairs: Iterable[tuple[Any, Any]], order: int) -> list[tuple[Any, Any]]:
    """(reading, …) pairs sorted as a fold of that `order` must see them: 1 the highest reading
    first, -1 the lowest first."""
    return sorted(pairs, key=lambda pair: _sort_key(pair[0]), reverse=order > 0)


def _summed_step(state: Any, value: Any, count: int, args: tuple[Any, ...]) -> Any:
    """`sum(highest(p, k))`'s step, given the readings in order (the highest first): (room left
    among the k kept, their sum so far); once the k are kept, later readings change nothing."""
    room, total = state
    take = min(count, room)
    return (room - take, total + value * take) if take else state


def _kept_sum(name: str, order: int) -> Fold:
    """`sum(highest(p, k))` (`order` 1) or `sum(lowest(p, k))` (-1) as one fold over (room left,
    sum so far), the readings given in that order: settled once the k are kept."""
    return Fold(
        name,
        lambda a: (a[0], 0),
        _summed_step,
        lambda s, a: normalize(s[1]),
        lambda s, left: left == 0 or s[0] == 0,
        order,
        adds=True,
    )


def _majority_key(value: Any, count: int, order: tuple[Any, ...]) -> tuple[Any, ...]:
    """Most dice first; among ties, earlier in `order`, then the lowest reading."""
    if value in order:
        return (count, 1, -order.index(value))
    return (count, 0, -_sort_key(value))


def _majority_step(state: Any, value: Any, count: int, args: tuple[Any, ...]) -> Any:
    order = args[0] if args else ()
    key = _majority_key(value, count, order)
    return (key, value) if state is None or key > state[0] else state


def _extreme(pick: Callable[[Any, Any], Any]) -> Callable[[Any, Any, int, tuple[Any, ...]], Any]:
    return lambda state, value, count, args: value if state is None else pick(state, value)


class _Undefined:
    """The statistic of an empty pool: an error only if the rules actually read it."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def fail(self) -> EvalError:
        return EvalError(
            [
                Diagnostic(
                    "RC504",
                    f"{self.name}() of an empty pool or draw has no value",
                    None,
                    "guard it, e.g. 'count(p) > 0 and ...'",
                )
            ]
        )


def _keeping(
    pick: Callable[[Any, Any], Any], reverse: bool
) -> Callable[[Any, Any, int, tuple[Any, ...]], Any]:
    """`highest(p)`'s step (the extreme reading), or `highest(p, k)`'s: the k highest readings so
    far, in order (a pool of many dice keeps a few, so the exact evaluator's states are few: 20
    d10 keeping 3 are at most 220 kept triples, where its multisets are 10,015,005)."""
    extreme = _extreme(pick)

    def step(state: Any, value: Any, count: int, args: tuple[Any, ...]) -> Any:
        if not args:
            return extreme(state, value, count, args)
        k = args[0]
        return tuple(sorted((*state, *[value] * min(count, k)), reverse=reverse)[:k])

    return step


def _kept_final(name: str, reverse: bool) -> Callable[[Any, tuple[Any, ...]], Any]:
    empty = _empty(name)

    def final(state: Any, args: tuple[Any, ...]) -> Any:
        if not args:
            return empty(state, args)
        return Multi(tuple(sorted(state, reverse=reverse)))  # as `highest(p, k)` rolled makes it

    return final


def keeps(args: tuple[Any, ...]) -> bool:
    """Whether `highest(p, k)` or `lowest(p, k)` with these constant arguments is a fold: k a
    whole number, at least 0 (anything else is refused when rolled, as written)."""
    return len(args) == 1 and type(args[0]) is int and args[0] >= 0


def _empty(name: str, pick: Callable[[Any], Any] = lambda s: s) -> Callable[[Any, tuple[Any, ...]], Any]:
    def final(state: Any, args: tuple[Any, ...]) -> Any:
        if state is None:
            return _Undefined(name)
        return pick(state)

    return final


FOLDS: dict[str, Fold] = {
    f.name: f
    for f in (
        Fold(
            "count",
            lambda a: 0,
            lambda s, v, c, a: s + (c if not a or matches(v, a[0]) else 0),
            lambda s, a: s,
        ),
        Fold("sum", lambda a: 0, lambda s, v, c, a: s + v * c, lambda s, a: normalize(s), adds=True),
        Fold(
            "highest",
            lambda a: None if not a else (),
            _keeping(max, True),
            _kept_final("highest", True),
            holds=lambda a: a[0] if a else 0,
        ),
        Fold(
            "lowest",
            lambda a: None if not a else (),
            _keeping(min, False),
            _kept_final("lowest", False),
            holds=lambda a: a[0] if a else 0,
        ),
        Fold("best", lambda a: None, _extreme(max), _empty("best")),
        Fold("worst", lambda a: None, _extreme(min), _empty("worst")),
        Fold("max", lambda a: None, _extreme(max), _empty("max")),
        Fold("min", lambda a: None, _extreme(min), _empty("min")),
        _kept_sum("highest_sum", 1),
        _kept_sum("lowest_sum", -1),
        Fold(
            "majority",
            lambda a: None,
            _majority_step,
            _empty("majority", lambda s: s[1]),
            # no other reading can reach the leader's count with the dice left
            lambda s, left: left == 0 or (s is not None and s[0][0] > left),
        ),
    )
}


KEPT = ("highest", "lowest", "highest_sum", "lowest_sum")
"""The folds whose argument is how many readings they keep (`keeps`)."""
SUMMED = {"highest": "highest_sum", "lowest": "lowest_sum"}
"""`sum(highest(p, k))` as one fold: the sum of the k kept readings, the readings given in order
(`Fold.order`), so the exact evaluator keeps (room, sum) states where `highest(p, k)` keeps
every k readings apart. The compiler makes the key where the check reads `highest(p, k)` only
inside `sum`; a summary then answers `highest(p, k)` with a pool of one reading, that sum."""


def tally(m: Multi) -> Iterable[tuple[Any, int]]:
    return m.tally if m.tally is not None else Counter(m.items).items()


_MISSING = object()

_EXTREMES: dict[str, Callable[[tuple[Any, ...]], Any]] = {
    "highest": max,
    "lowest": min,
    "best": max,
    "worst": min,
    "max": max,
    "min": min,
}
"""The folds that keep one extreme reading: over a pool's readings at once, the same answer
as the fold's steps (the exact evaluator calls them once per state, so the steps' calls show)."""


def apply(name: str, m: Multi | Summary, args: tuple[Any, ...]) -> Any:
    """Run statistic `name` on a rolled pool, or read it from the exact evaluator's summary."""
    if isinstance(m, Summary):
        found = m.results.get((name, *args), _MISSING)
        if found is _MISSING and name in SUMMED:  # read only inside sum(...): its sum, as a pool of one
            return Multi((m.results[(SUMMED[name], *args)],))
        value = m.results[(name, *args)] if found is _MISSING else found
    elif m.items and name in _EXTREMES and not args:
        return _EXTREMES[name](m.items)
    elif name == "count" and not args:
        return len(m.items)
    else:
        value = FOLDS[name].over(tally(m), args)
    if isinstance(value, _Undefined):
        raise value.fail()
    return value
