"""`graph.postorder`, the engine's one depth-first order of a graph: the compiler's order of named
values (`Structure._let_order`) and the Markov solver's order of a chain's states both walk it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.compiler.structure import Structure
from engine.errors import Diagnostic
from engine.expr import ast
from engine.graph import postorder
from engine.syntax.positions import SourceFile, Span

NAMES = [f"v{i}" for i in range(7)]
graphs = st.dictionaries(
    st.sampled_from(NAMES), st.lists(st.sampled_from([*NAMES, "x", "d"]), max_size=4), min_size=1
)


def reference(reads: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    """The named values' order and the circles found, as `_let_order` found them before it
    walked `graph.postorder` (its own copy of the walk, kept here as the law's other side)."""
    order: list[str] = []
    state: dict[str, int] = {}
    circles: list[str] = []
    for root in reads:
        if root in state:
            continue
        trail = [root]
        state[root] = 1
        stack = [iter(sorted(set(reads[root])))]
        try:
            while stack:
                for dep in stack[-1]:
                    if dep not in reads or state.get(dep) == 2:
                        continue
                    if state.get(dep) == 1:
                        if dep not in trail:
                            continue
                        circles.append(" -> ".join(trail[trail.index(dep) :] + [dep]))
                        raise StopIteration
                    state[dep] = 1
                    trail.append(dep)
                    stack.append(iter(sorted(set(reads[dep]))))
                    break
                else:
                    stack.pop()
                    done = trail.pop()
                    state[done] = 2
                    order.append(done)
        except StopIteration:
            pass
    return order, circles


def let_order(reads: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    """`Structure._let_order` on named values that read `reads`, and the circles it reported."""
    diags: list[Diagnostic] = []
    span = Span(SourceFile("x.yaml", "x"), 1, 1)
    owner: Any = SimpleNamespace(
        unit=SimpleNamespace(diags=diags, doc=SimpleNamespace(span=lambda *a, **k: span))
    )
    nodes: dict[str, ast.Node] = {
        name: ast.ListExpr(tuple(ast.Name(r) for r in read)) for name, read in reads.items()
    }
    order = Structure._let_order(owner, ("checks", "c"), nodes)
    prefix = "named values depend on each other in a circle: "
    assert all(d.code == "RC308" and d.message.startswith(prefix) for d in diags)
    return order, [d.message[len(prefix) :] for d in diags]


@settings(max_examples=400, deadline=None)
@given(graphs)
def test_the_order_of_named_values_is_the_walk_it_was(reads: dict[str, list[str]]) -> None:
    """Ordering named values by `graph.postorder` changed nothing: the same order, the same
    circles reported (one per walk that meets one), the values on a circle left out."""
    assert let_order(reads) == reference(reads)


@settings(max_examples=200, deadline=None)
@given(graphs)
def test_postorder_puts_each_node_after_all_it_leads_to(reads: dict[str, list[str]]) -> None:
    known: set[str] = set()

    def successors(s: str) -> list[str]:
        known.add(s)
        return [t for t in reads.get(s, []) if t in reads]

    order, cyclic = postorder(list(reads), successors, known)
    assert sorted(order) == sorted(reads)
    if not cyclic:
        at = {s: i for i, s in enumerate(order)}
        assert all(at[t] < at[s] for s in reads for t in reads[s] if t in reads)
