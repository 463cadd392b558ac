"""RC805-RC807 and RC810, read from the compiled model without running anything; and the helpers that read
a table's body, which the compiler turns into one function, back from the document.

A named value is used when anything reads it: the check's own expressions, or the effects of an
action that rolls the check (they read its values by name). A table is used when anything calls
it: a check, an item of the lasting state, an action, a scene, or a table that one of them calls."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ...errors import Diagnostic, RulecraftError
from ...expr import ast
from ...expr.parser import parse
from ...model.ruleset import Check
from ...syntax.document import Document, PathKey

if TYPE_CHECKING:
    from ...api import Ruleset

Bodies = Mapping[str, list[ast.Node]]
"""Each table's body expressions, by table name (see `table_nodes`)."""


def walk(node: ast.Node) -> Iterable[ast.Node]:
    """`node` and every node below it."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(ast.children(n))


def calls(node: ast.Node) -> set[str]:
    """The functions (builtins and tables) an expression calls."""
    return {n.func for n in walk(node) if isinstance(n, ast.Call)}


def _table_paths(doc: Document, name: str) -> list[PathKey]:
    spec = doc.data.get("tables", {}).get(name, {})
    path: PathKey = ("tables", name)
    paths: list[PathKey] = []
    if "value" in spec:
        paths.append(path + ("value",))
    for i, row in enumerate(spec.get("rules", None) or []):
        for k in ("when", "then", "else"):
            if isinstance(row, dict) and k in row:
                paths.append(path + ("rules", i, k))

    def leaves(cases: Mapping[Any, Any], p: PathKey) -> None:
        for k, v in cases.items():
            if isinstance(v, dict):
                leaves(v, p + (k,))
            else:
                paths.append(p + (k,))

    if isinstance(spec.get("cases"), dict):
        leaves(spec["cases"], path + ("cases",))
    return paths


def table_nodes(doc: Document, name: str) -> list[ast.Node]:
    """The expressions of a table's body, parsed from the document (numbers and booleans skipped)."""
    nodes: list[ast.Node] = []
    for p in _table_paths(doc, name):
        raw: Any = doc.data
        for q in p:
            raw = raw[q]
        if isinstance(raw, str):
            try:
                nodes.append(parse(raw, doc.expr_origin(p)))
            except RulecraftError:  # pragma: no cover - it compiled, so it parses
                continue
    return nodes


def case_entries(doc: Document, table: str) -> list[tuple[Any, Any]]:
    """Every (key, value) pair of a value table, at every nesting level."""
    cases = doc.data.get("tables", {}).get(table, {}).get("cases")
    out: list[tuple[Any, Any]] = []
    stack = [cases] if isinstance(cases, dict) else []
    while stack:
        level = stack.pop()
        for k, v in level.items():
            out.append((k, v))
            if isinstance(v, dict):
                stack.append(v)
    return out


def tables_reached(check: Check, bodies: Bodies) -> set[str]:
    """The tables a check calls, directly or through other tables."""
    return reached([e.node for _, e in check.expressions()], bodies)


def reached(nodes: Iterable[ast.Node], bodies: Bodies) -> set[str]:
    """The tables these expressions call, directly or through other tables."""
    todo = [t for node in nodes for t in calls(node) if t in bodies]
    seen: set[str] = set()
    while todo:
        t = todo.pop()
        if t in seen:
            continue
        seen.add(t)
        todo += [u for n in bodies[t] for u in calls(n) if u in bodies]
    return seen


def range_slips(rs: Ruleset) -> list[Diagnostic]:
    """RC810: a literal `a-b` of whole numbers with 0 < a < b (`count(p, 5-6)`) is the negative
    number a - b, which no author writes so: it is almost surely the range `a..b`. A warning, not
    an error: it is well-formed arithmetic (a case key, where it is never meant, is RC310)."""
    nodes: list[ast.Node] = [e.node for check in rs.checks.values() for _, e in check.expressions()]
    nodes += [n for t in rs.model.tables for n in table_nodes(rs.document, t)]
    if rs.model.state is not None:
        nodes += [e.node for _, e in rs.model.state.expressions()]
    found: dict[tuple[Any, ...], Diagnostic] = {}
    for node in nodes:
        for n in walk(node):
            ends = ast.range_slip(n)
            if ends is None or n.span is None:
                continue
            a, b = ends
            at = (n.span.file, n.span.line, n.span.col)
            found.setdefault(
                at,
                Diagnostic(
                    "RC810",
                    f"'{n.span.text or f'{a}-{b}'}' is the number {a - b} ({a} minus {b}), not a range",
                    n.span,
                    f"write {a}..{b} for a range; write {a - b} if the number is meant",
                    "warning",
                ),
            )
    return list(found.values())


def unused(rs: Ruleset) -> list[Diagnostic]:
    """RC805 (inputs), RC806 (named values) and RC807 (tables) that nothing reads."""
    found: list[Diagnostic] = []
    bodies = {t: table_nodes(rs.document, t) for t in rs.model.tables}
    state = rs.model.state
    # what the lasting state calls, and reads of a check's values after the action rolls it
    called = reached((e.node for _, e in state.expressions()), bodies) if state is not None else set()
    after: dict[str, set[str]] = {}
    for action in state.actions.values() if state is not None else ():
        if action.roll is not None:
            read = after.setdefault(action.roll.check, set())
            read.update(*(ast.names(e.node) for effect in action.effects for e in effect.expressions()))
    for check in rs.checks.values():
        exprs = check.expressions()
        used = set().union(*(ast.names(e.node) for _, e in exprs)) if exprs else set()
        for spec in check.inputs:
            if spec.name not in used:
                found.append(
                    Diagnostic(
                        "RC805",
                        f"input '{spec.name}' of check '{check.name}' is never used",
                        spec.span,
                        "no value, rule, die or output reads it; "
                        "remove it, or use it where the rules need it",
                        "warning",
                    )
                )
        for let in check.lets:
            others = set().union(*(ast.names(e.node) for owner, e in exprs if owner != let.name))
            if let.name not in others | after.get(check.name, set()):
                found.append(
                    Diagnostic(
                        "RC806",
                        f"named value '{let.name}' of check '{check.name}' is never used",
                        let.span,
                        "no other value, rule, die or output reads it, nor an action's effect after "
                        "rolling the check; remove it, or make it an output if it is only to be shown",
                        "warning",
                    )
                )
        called |= tables_reached(check, bodies)
    for name, table in rs.model.tables.items():
        if name not in called:
            found.append(
                Diagnostic(
                    "RC807",
                    f"table '{name}' is never called",
                    table.span,
                    "no check, item, action or scene calls it, directly or through another table; "
                    "remove it, or call it where the rules need it",
                    "warning",
                )
            )
    return found
