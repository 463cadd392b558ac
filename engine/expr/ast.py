"""Expression syntax tree: frozen nodes that carry the span they were parsed from.

The tree is the language's own (not lark's), so later stages match on node classes and never
count children. Spans are excluded from equality so that parse → print → parse compares equal.
"""

from __future__ import annotations

from fractions import Fraction

from ..frozen import field, frozen
from ..syntax.positions import Span


@frozen(slots=True)
class Node:
    span: Span | None = field(default=None, compare=False, repr=False, kw_only=True)


@frozen(slots=True)
class Num(Node):
    """An integer or exact rational literal: `3`, `1.5`."""

    value: Fraction | int


@frozen(slots=True)
class Bool(Node):
    """`true` or `false`."""

    value: bool


@frozen(slots=True)
class Sym(Node):
    """A quoted name of a member of an ordered scale: `'failure'`, `'good'`."""

    name: str


@frozen(slots=True)
class Name(Node):
    """A reference to an input, a die or a named value."""

    id: str


@frozen(slots=True)
class ListExpr(Node):
    """`[a, b, c]` — used with `in` and as tie-break orders."""

    items: tuple[Node, ...]


@frozen(slots=True)
class Range(Node):
    """`a..b`, both ends included."""

    lo: Node
    hi: Node


@frozen(slots=True)
class Unary(Node):
    """`-x`, `+x` (kept, so that its operand is checked to be a number)."""

    op: str
    operand: Node


@frozen(slots=True)
class Binary(Node):
    """Arithmetic: `+ - * / // % **`."""

    op: str
    left: Node
    right: Node


@frozen(slots=True)
class Compare(Node):
    """`== != < <= > >=`, `in` and `not in`."""

    op: str
    left: Node
    right: Node


@frozen(slots=True)
class Logic(Node):
    """`and` / `or`, short-circuiting."""

    op: str
    left: Node
    right: Node


@frozen(slots=True)
class Not(Node):
    """`not x`."""

    operand: Node


@frozen(slots=True)
class Cond(Node):
    """`then if test else other`."""

    then: Node
    test: Node
    other: Node


@frozen(slots=True)
class Call(Node):
    """`f(a, b)`: a builtin function or a table of the ruleset."""

    func: str
    args: tuple[Node, ...]


def children(node: Node) -> tuple[Node, ...]:
    """The direct sub-expressions of a node, for walks that do not care about its kind."""
    match node:
        case ListExpr(items=items) | Call(args=items):
            return items
        case Range(lo=a, hi=b) | Binary(left=a, right=b) | Compare(left=a, right=b) | Logic(left=a, right=b):
            return (a, b)
        case Unary(operand=a) | Not(operand=a):
            return (a,)
        case Cond(then=a, test=b, other=c):
            return (a, b, c)
    return ()


def size(node: Node) -> int:
    """How many nodes an expression has (what its code is charged by: `runtime.work.code_units`)."""
    count = 0
    stack = [node]
    while stack:
        count += 1
        stack.extend(children(stack.pop()))
    return count


def names(node: Node) -> set[str]:
    """Every name an expression refers to (not counting function names)."""
    found: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Name):
            found.add(n.id)
        stack.extend(children(n))
    return found


def range_slip(node: Node) -> tuple[int, int] | None:
    """The range `a..b` that `a-b` (whole numbers, 0 < a < b) almost surely stands for: read as
    a subtraction it is a negative number no author means there."""
    if (
        isinstance(node, Binary)
        and node.op == "-"
        and isinstance(node.left, Num)
        and isinstance(node.right, Num)
        and isinstance(node.left.value, int)
        and isinstance(node.right.value, int)
        and 0 < node.left.value < node.right.value
    ):
        return node.left.value, node.right.value
    return None
