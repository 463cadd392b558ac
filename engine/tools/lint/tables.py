"""RC802 for the rules of tables, over every argument list the checks called each table with.

A table's rules are compiled into one function, which says only which result it gave; so each
rule's condition is compiled on its own, as a one-line table in a copy of the document, and is
judged with the engine's own semantics.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from ...compiler import compile_document
from ...errors import Diagnostic, RulecraftError
from ...expr import ast
from ...model.ruleset import RulesetModel
from ...runtime.limits import Limits
from ...syntax.document import Document
from .probe import TableCalls
from .report import never, note
from .static import Bodies, walk

Condition = Callable[..., Any]


def table_rule_findings(
    doc: Document, model: RulesetModel, bodies: Bodies, calls: TableCalls, limits: Limits
) -> list[Diagnostic]:
    """RC802 for every table rule that no recorded call reaches, when all its calls were recorded."""
    data = doc.data.get("tables", {})
    found: list[Diagnostic] = []
    wanted: list[str] = []
    args: dict[str, set[tuple[Any, ...]]] = {}
    for t, spec in data.items():
        if not isinstance(spec.get("rules"), list):
            continue
        where = doc.span(("tables", t), key=True)
        if t in calls.overflowed:
            found.append(
                note(
                    f"the rules of table '{t}' were not judged: the checks call it with more than "
                    f"{calls.cap:,} different argument lists (a share of the linter's budget)",
                    where,
                )
            )
            continue
        constant = _constant_calls(t, model, bodies)
        if constant is None:
            found.append(
                note(
                    f"the rules of table '{t}' were not judged: a call of it whose arguments are "
                    "worked out when the ruleset loads, not plain numbers, is not seen by the linter",
                    where,
                )
            )
            continue
        args[t] = calls.args.get(t, set()) | constant
        if args[t] and t not in calls.incomplete:
            wanted.append(t)
    if not wanted:
        return found
    probes = _rule_probes(doc, wanted, limits)
    if probes is None:
        return found
    for t in wanted:
        rows = data[t]["rules"]
        tests = {j: probes[(t, j)] for j, row in enumerate(rows) if "when" in row and (t, j) in probes}
        if len(tests) != sum(1 for row in rows if "when" in row):
            continue
        judged = _judge(len(rows), tests, args[t])
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
                    f"for any of the {len(args[t])} different calls the checks make",
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


def _constant_calls(table: str, model: RulesetModel, bodies: Bodies) -> set[tuple[Any, ...]] | None:
    """The argument lists of the table's calls whose arguments are constant, which the compiler
    works out once (the wrapper that records calls never sees them), read off their literals;
    None when such a call's arguments are not plain numbers or truth values."""
    sites: list[ast.Call] = []
    for check in model.checks.values():
        for _, e in check.expressions():
            sites += [n for n in walk(e.node) if isinstance(n, ast.Call) and n.func == table]
    for nodes in bodies.values():
        for node in nodes:
            sites += [n for n in walk(node) if isinstance(n, ast.Call) and n.func == table]
    found: set[tuple[Any, ...]] = set()
    for site in sites:
        if any(ast.names(a) for a in site.args):
            continue  # called at run time, and recorded there
        if not all(isinstance(a, (ast.Num, ast.Bool)) for a in site.args):
            return None
        found.add(tuple(_literal(a) for a in site.args))
    return found


def _literal(node: ast.Node) -> Any:
    """A number or truth value as the table receives it (a whole fraction as an int)."""
    assert isinstance(node, (ast.Num, ast.Bool))
    value = node.value
    if isinstance(value, Fraction) and value.denominator == 1:
        return int(value)
    return value


def _rule_probes(
    doc: Document, tables: Sequence[str], limits: Limits
) -> dict[tuple[str, int], Condition] | None:
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
        model = compile_document(Document(doc.source, data, doc.places, doc.parts), limits)
    except RulecraftError:
        return None
    return {key: model.tables[probe].run for probe, key in names.items() if probe in model.tables}
