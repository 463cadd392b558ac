"""The type rules of `==`, `!=`, the orderings and `in`, and what `in` does, stated once.

The compiler applies the rules at load to the types it knows (`RC304`); `kinds.compare` applies
them when a check runs to a side whose type is known only then (`RC506`), with the same words.
Each rule answers with its complaint, or None where the operands are allowed; where it points
is the caller's: the load points at the operand it blames, a run at the expression.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..model import types as T
from ..model.values import Multi

MEMBERSHIP = frozenset({"in", "not in"})
EQUALITY = frozenset({"==", "!="})


def element(right: T.Type) -> T.Type | str:
    """What `x in right` looks for in a value of type `right` (a range holds numbers; an
    unknown definition's type stays unknown, so what is looked for in it is not refused
    again), or why `right` holds nothing to look for."""
    if right.kind not in ("list", "range", "multi", "any"):
        return f"'in' needs a list, range or pool on its right, not {right}"
    if right.kind == "range":
        return T.NUM
    return right.elem or (right if right.broken else T.ANY)


def compare_rule(op: str, left: T.Type, right: T.Type) -> str | None:
    """Why `left op right` is refused (`op` a comparison or `in`), or None where it is allowed.
    An ordering needs numbers or values of a scale: the side of a known kind says which (two
    sides of known kinds are of one kind once they may be compared)."""
    if op in MEMBERSHIP:
        elem = element(right)
        if isinstance(elem, str):
            return elem
        return None if elem.accepts(left) else f"cannot look for {left} in a {right}"
    if not left.accepts(right):
        return f"cannot compare {left} with {right}"
    if op not in EQUALITY:
        known = left if left.kind != "any" else right
        if known.kind not in ("num", "sym", "any"):
            return f"'{op}' orders numbers or values of a scale, not {known}"
    return None


def found_in(x: Any, coll: Any) -> bool:
    """`x in coll`, where `coll` is a pool or draw (its readings) or a list or range."""
    if type(coll) is range:
        return within(x, coll)
    return x in (coll.items if isinstance(coll, Multi) else coll)


def within(x: Any, numbers: range) -> bool:
    """`x in numbers` at once whatever `x` is: Python's range tests a whole number at once but
    walks every element for any other value (a third in `1..hi` took hi steps: 10^9, a hang that
    no budget stopped, found by a review). Nothing but a whole number is one of a range's."""
    if isinstance(x, int):  # true/false too, as Python reads them (as an untyped table's cases do)
        return x in numbers
    return isinstance(x, Fraction) and x.denominator == 1 and x.numerator in numbers
