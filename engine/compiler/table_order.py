"""The order a ruleset's tables compile in, and what the walk that finds it meets on the way.

Each table compiles after the tables it calls, so compiling one never compiles another on the
stack: a table compiled on its first call had compiled its callee inside itself, and a chain of
about 120 tables, each calling the next, ran out of Python's stack. The one walk that orders
them (`graph.postorder`) also finds every circle among them (RC308) and every chain of calls
through more than `MAX_TABLE_CHAIN` tables (RC202), whose calls are Python calls when it runs.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping

from ..errors import Diagnostic
from ..expr import ast
from ..frozen import frozen
from ..graph import chain_text, circle_text, postorder
from ..syntax.positions import Span

MAX_TABLE_CHAIN = 200
"""The most tables one chain of calls may run through (`RC202`), each calling the next: each is
a Python call when it runs, and Python's stack gives out at about 950."""


@frozen
class TableOrder:
    """What `table_order` finds."""

    order: list[str]
    """Every table, each after the tables it calls."""
    circles: dict[str, Diagnostic]
    """Per table on a circle, RC308 (the first circle found through it, placed at the call that
    closes it): a call of it raises this until it is compiled, so that compiling the circle stops
    where it closes, while each table on it is still compiled from the list, its other rows and
    its callers' calls checked."""
    too_deep: dict[str, Diagnostic]
    """Per table whose chain of calls runs through more than `MAX_TABLE_CHAIN` tables, and whose
    callee's does not, RC202 (placed at its call of that callee): it is never compiled, so every
    table above it on the chain fails with this one message."""


def table_order(
    tables: Iterable[str], builtins: Collection[str], nodes: Callable[[str], Iterable[ast.Node]]
) -> TableOrder:
    """`TableOrder` of `tables`, where `nodes(name)` gives the expressions of a table's body that
    parse (the keys of a `cases` table too); a call of a builtin's name is the builtin's."""
    names = list(tables)
    known = set(names)
    calls: dict[str, dict[str, Span | None]] = {}
    circles: dict[str, Diagnostic] = {}
    too_deep: dict[str, Diagnostic] = {}

    def called(name: str) -> list[str]:
        found: dict[str, Span | None] = {}
        for node in nodes(name):
            stack = [node]
            while stack:
                n = stack.pop()
                if isinstance(n, ast.Call) and n.func in known and n.func not in builtins:
                    found.setdefault(n.func, n.span)
                stack.extend(reversed(ast.children(n)))
        calls[name] = found
        return list(found)

    def circle(path: list[str]) -> None:
        closing = calls[path[-1]][path[0]]
        said = Diagnostic("RC308", f"tables may not call themselves ({circle_text(path)})", closing)
        for member in path:
            circles.setdefault(member, said)

    order, _ = postorder(names, called, calls, cycle=circle)
    deepest: dict[str, tuple[int, str | None]] = {}
    """Per table off every circle, the most tables a chain of calls from it runs through, and
    the callee it goes on to."""
    for name in order:
        if name in circles:
            continue
        on = [(deepest[c][0], c) for c in calls[name] if c in deepest]
        depth, through = max(on) if on else (0, None)
        deepest[name] = (depth + 1, through)
        if depth + 1 == MAX_TABLE_CHAIN + 1 and through is not None:
            too_deep[name] = _too_deep(name, deepest, calls[name][through])
    return TableOrder(order, circles, too_deep)


def _too_deep(name: str, deepest: Mapping[str, tuple[int, str | None]], at: Span | None) -> Diagnostic:
    """RC202 for the chain of calls from `name`, placed at `at`, its call of the next."""
    chain = [name]
    while (after := deepest[chain[-1]][1]) is not None:
        chain.append(after)
    return Diagnostic(
        "RC202",
        f"tables call one another more than {MAX_TABLE_CHAIN} deep: {chain_text(chain)}",
        at,
        "join some of them into one table",
    )
