"""RC802 for the rules of tables, over every argument list the checks called each table with.

A table's rules are compiled into one function, which says only which result it gave; so each
rule's condition is compiled on its own, as a one-line table in a copy of the document, and is
judged with the engine's own semantics.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...compiler import compile_document
from ...errors import Diagnostic, RulecraftError
from ...expr import ast
from ...model.ruleset import RulesetModel
from ...syntax.document import Document
from .probe import TableCalls
from .report import never
from .static import Bodies, walk

Condition = Callable[..., Any]


def table_rule_findings(
    doc: Document, model: RulesetModel, bodies: Bodies, calls: TableCalls
) -> list[Diagnostic]:
    """RC802 for every table rule that no recorded call reaches, when all its calls were recorded."""
    data = doc.data.get("tables", {})
    wanted = [t for t, spec in data.items() if isinstance(spec.get("rules"), list) and calls.args.get(t)]
    wanted = [t for t in wanted if t not in calls.incomplete and _observed(t, model, bodies)]
    if not wanted:
        return []
    probes = _rule_probes(doc, wanted)
    if probes is None:
        return []
    found: list[Diagnostic] = []
    for t in wanted:
        rows = data[t]["rules"]
        tests = {j: probes[(t, j)] for j, row in enumerate(rows) if "when" in row and (t, j) in probes}
        if len(tests) != sum(1 for row in rows if "when" in row):
            continue
        judged = _judge(len(rows), tests, calls.args[t])
        if judged is None:
            continue
        fired, shadowed = judged
        otherwise = next((j for j, row in enumerate(rows) if "when" not in row), None)
        if otherwise is not None:
            for j in range(otherwise + 1, len(rows)):
                shadowed[j] = {otherwise}
        for j, row in enumerate(rows):
            if "when" not in row or j in fired:
                continue
            found.append(
                never(
                    f"rule {j + 1}",
                    str(row["when"]),
                    shadowed.get(j),
                    "call",
                    f"for any of the {len(calls.args[t])} different calls the checks make",
                    doc.span(("tables", t, "rules", j, "when"), key=True),
                    table=t,
                )
            )
    return found


def _judge(
    rows: int, tests: dict[int, Condition], calls: set[tuple[Any, ...]]
) -> tuple[set[int], dict[int, set[int]]] | None:
    """Which rules fire for some call, and for each rule that matched after an earlier one
    decided, those earlier rules (rows without a test are `else` rows); None when a condition
    could not be judged."""
    fired: set[int] = set()
    shadowed: dict[int, set[int]] = {}
    for args in calls:
        first: int | None = None
        for j in range(rows):
            if j not in tests:  # an else row
                first = j if first is None else first
                break
            if first is not None and j in fired:
                continue
            try:
                hit = bool(tests[j](*args))
            except RulecraftError:
                continue
            except Exception:  # pragma: no cover - a value of an unexpected kind
                return None
            if hit and first is None:
                first = j
                fired.add(j)
            elif hit and first is not None:
                shadowed.setdefault(j, set()).add(first)
    return fired, shadowed


def _observed(table: str, model: RulesetModel, bodies: Bodies) -> bool:
    """Whether every call of the table happens at run time (a call with constant
    arguments is worked out once by the compiler, and the wrapper never sees it)."""
    sites: list[ast.Call] = []
    for check in model.checks.values():
        for _, e in check.expressions():
            sites += [n for n in walk(e.node) if isinstance(n, ast.Call) and n.func == table]
    for nodes in bodies.values():
        for node in nodes:
            sites += [n for n in walk(node) if isinstance(n, ast.Call) and n.func == table]
    return all(any(ast.names(a) for a in site.args) for site in sites)


def _rule_probes(doc: Document, tables: Sequence[str]) -> dict[tuple[str, int], Condition] | None:
    """Each table rule's condition as a function of the table's parameters: compiled as a
    one-line table of its own in a copy of the ruleset, so it has the engine's semantics."""
    data = dict(doc.data)
    specs = dict(data.get("tables", {}))
    names: dict[str, tuple[str, int]] = {}
    for t in tables:
        for j, row in enumerate(specs[t]["rules"]):
            if "when" not in row:
                continue
            probe = f"{t}__lint{j}"
            while probe in specs:
                probe += "_"
            specs[probe] = {"params": specs[t].get("params", []), "returns": "bool", "value": row["when"]}
            names[probe] = (t, j)
    data["tables"] = specs
    data["checks"] = {}
    try:
        model = compile_document(Document(doc.source, data, doc.places, doc.parts))
    except RulecraftError:
        return None
    return {key: model.tables[probe].run for probe, key in names.items() if probe in model.tables}
