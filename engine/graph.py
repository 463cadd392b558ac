"""Graph order: the one depth-first walk that puts each node after every node it leads to.

The compiler orders a check's named values by it (each after the values it reads, a circle an
error that names it); the Markov solver orders a chain's states by it (each after the states it
leads to, a cycle sending the chain to the linear solve). It imports nothing of the engine, so
the compiler reads it without the evaluators.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable
from typing import Any


def postorder(
    roots: Iterable[Any],
    successors: Callable[[Any], Iterable[Any]],
    known: Container[Any],
    done: Container[Any] = frozenset(),
    *,
    into: list[Any] | None = None,
    cycle: Callable[[list[Any]], None] | None = None,
) -> tuple[list[Any], bool]:
    """Every node reached from `roots` and neither `known` nor `done`, each after every node it
    leads to (a topological order, read backwards, when the chain has no cycle), and whether some
    node leads back to one on its own path (a cycle). The walk is depth first without recursion;
    `successors(s)` is asked once per node, and must make `s` known (the caller keeps what it
    learns, so nothing is held twice); `done` holds nodes dealt with elsewhere, which may grow
    while the walk runs (two containers, not one that asks both: a look-up per edge).

    `into`, when given, is the list the nodes are appended to (and returned): what was ordered
    stays there if `cycle` raises. `cycle(path)`, when given, is told of each cycle as it is found:
    the walk's path from the node reached again to the one that reaches it. It may raise, which
    ends the walk (the compiler's circle of named values)."""
    order: list[Any] = [] if into is None else into
    on_path: set[Any] = set()
    cyclic = False
    for root in roots:
        if root in known or root in done:
            continue
        on_path.add(root)
        stack = [(root, iter(successors(root)))]
        while stack:
            s, nexts = stack[-1]
            for t in nexts:
                if t in known or t in done:
                    if t in on_path:
                        cyclic = True
                        if cycle is not None:
                            path = [n for n, _ in stack]
                            cycle(path[path.index(t) :])
                    continue
                on_path.add(t)
                stack.append((t, iter(successors(t))))
                break
            else:
                stack.pop()
                on_path.discard(s)
                order.append(s)
    return order, cyclic


CIRCLE_SHOWN = 8
"""How many names a circle's text shows of a longer circle (`circle_text`; one of nine is shown
whole, as a count would be longer than the one name it stands for)."""


def circle_text(trail: list[str]) -> str:
    """A circle as `a -> b -> a`, back to its first name; past `CIRCLE_SHOWN` names its middle
    is told as a count (a circle of 3,000 named values had been a message of 26 KB on one line)."""
    return chain_text([*trail, trail[0]])


def chain_text(names: list[str]) -> str:
    """A chain as `a -> b -> c`, its middle told as a count past `CIRCLE_SHOWN` names."""
    if len(names) <= CIRCLE_SHOWN + 1:  # "... (1 more)" would be longer than the name
        return " -> ".join(names)
    half = CIRCLE_SHOWN // 2
    left_out = len(names) - 2 * half
    return f"{' -> '.join(names[:half])} -> ... ({left_out} more) -> {' -> '.join(names[-half:])}"
