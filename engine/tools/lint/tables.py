"""RC802 for the rules and the cases of tables, over every argument list the checks called each
table with.

A table's rules are compiled into one function, which says only which result it gave; so each
rule's condition is compiled on its own, as a one-line table in a copy of the document, and is
judged with the engine's own semantics. A `cases` key is a rule on one parameter, tried at its
level of the table: it is compiled so too (a table whose other levels are all `else`), and the
calls are led down the levels as the table leads them, so a key that earlier keys cover is told
as a rule that earlier rules cover is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from ...compiler import compile_document
from ...errors import Diagnostic, RulecraftError
from ...expr import ast
from ...expr.printer import to_text
from ...model.ruleset import RulesetModel
from ...runtime.limits import Limits
from ...syntax.document import Document
from ...syntax.positions import Span
from .probe import TableCalls
from .report import never, note
from .static import Bodies, tables_reached, walk

Condition = Callable[..., Any]


def table_rule_findings(
    doc: Document,
    model: RulesetModel,
    bodies: Bodies,
    calls: TableCalls,
    limits: Limits,
    by_state: set[str] | None = None,
) -> list[Diagnostic]:
    """RC802 for every table rule that no recorded call reaches, when all its calls were recorded
    (`by_state`: the tables the lasting state calls, its calls recorded too, which the findings
    name among the callers)."""
    data = doc.data.get("tables", {})
    by_checks = set().union(*(tables_reached(c, bodies) for c in model.checks.values()))
    callers = {t: _callers(t in by_checks or t not in (by_state or ()), t in (by_state or ())) for t in data}
    found: list[Diagnostic] = []
    wanted: list[str] = []
    args: dict[str, set[tuple[Any, ...]]] = {}
    for t, spec in data.items():
        rows = _rows(spec)
        if rows is None:
            continue
        where = doc.span(("tables", t), key=True)
        if t in calls.overflowed:
            found.append(
                note(
                    f"which {rows} of table '{t}' fire was not judged: {callers[t][0]} it with more than "
                    f"{calls.cap:,} different argument lists (a share of the linter's budget)",
                    where,
                )
            )
            continue
        constant = _constant_calls(t, model, bodies)
        if isinstance(constant, ast.Call):
            found.append(_unread(t, rows, constant, where))
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
        partial = t in calls.partial  # over part of some check's inputs: notes, not warnings
        if "cases" in data[t]:
            found += _case_findings(doc, t, probes, args[t], callers[t][1:], partial)
        else:
            found += _rule_findings(doc, t, probes, args[t], callers[t][1:], partial)
    return found


_DICE = "the dice faces and the inputs' min and max"
_BOUNDS = "the min and max of the state's parameters and counters"


def _callers(checks: bool, state: bool) -> tuple[str, str, str]:
    """Who calls a table, in words: (with "call", with "make", what gave the calls' values), as
    the checks or the lasting state or both, so that a key no call matches is not said to be
    missed by the checks alone."""
    if checks and state:
        both = "the checks and the lasting state"
        return f"{both} call", f"{both} make", f"{_DICE}, and {_BOUNDS}"
    if state:
        return "the lasting state calls", "the lasting state makes", _BOUNDS
    return "the checks call", "the checks make", _DICE


def _rows(spec: Any) -> str | None:
    """What a table's body is judged by: its 'rules' or its 'cases'; None for a `value` table."""
    if not isinstance(spec, dict):
        return None
    if isinstance(spec.get("rules"), list):
        return "rules"
    if isinstance(spec.get("cases"), dict):
        return "cases"
    return None


def _rule_findings(
    doc: Document,
    t: str,
    probes: dict[tuple[str, Any], Condition],
    calls: set[tuple[Any, ...]],
    callers: tuple[str, str],
    partial: bool = False,
) -> list[Diagnostic]:
    """RC802 for each rule of table `t` that none of `calls` reaches (a note where the calls came
    from part of a check's inputs, `partial`)."""
    rows = doc.data["tables"][t]["rules"]
    tests = {j: probes[(t, j)] for j, row in enumerate(rows) if "when" in row and (t, j) in probes}
    if len(tests) != sum(1 for row in rows if "when" in row):
        return []
    judged = _judge(len(rows), tests, calls)
    if judged is None:
        return []
    fired, shadowed = judged
    otherwise = next((j for j, row in enumerate(rows) if "when" not in row), None)
    if otherwise is not None:
        for j in range(otherwise + 1, len(rows)):
            shadowed[j] = {otherwise}
    return [
        never(
            f"rule {j + 1}",
            str(row["when"]),
            shadowed.get(j),
            "call",
            f"for the one call {callers[0]}"
            if len(calls) == 1
            else f"for any of the {len(calls)} different calls {callers[0]}",
            doc.span(("tables", t, "rules", j, "when"), key=True),
            table=t,
            against=callers[1],
            tried=len(calls) if partial else None,
        )
        for j, row in enumerate(rows)
        if "when" in row and j not in fired
    ]


def _case_findings(
    doc: Document,
    t: str,
    probes: dict[tuple[str, Any], Condition],
    calls: set[tuple[Any, ...]],
    callers: tuple[str, str],
    partial: bool = False,
) -> list[Diagnostic]:
    """RC802 for each key of value table `t` that none of `calls` reaches at its level, though
    the key above it is reached (a key under one never reached is that key's finding); a note
    where the calls came from part of a check's inputs (`partial`)."""
    found: list[Diagnostic] = []
    todo: list[tuple[tuple[Any, ...], dict[Any, Any], set[tuple[Any, ...]]]] = [
        ((), doc.data["tables"][t]["cases"], calls)
    ]
    while todo:
        above, level, reaching = todo.pop()
        keys = [k for k in level if k != "else"] + (["else"] if "else" in level else [])
        tests = {j: probes.get((t, (*above, k))) for j, k in enumerate(keys) if k != "else"}
        if not reaching or any(test is None for test in tests.values()):
            continue
        fired: set[int] = set()
        shadowed: dict[int, set[int]] = {}
        led: dict[int, set[tuple[Any, ...]]] = {}
        for args in reaching:
            try:
                first = _decide(
                    len(keys), {j: f for j, f in tests.items() if f is not None}, args, fired, shadowed
                )
            except _Unjudged:  # pragma: no cover - a value of an unexpected kind
                return []
            if first is not None:
                led.setdefault(first, set()).add(args)
        for j, key in enumerate(keys):
            if isinstance(level[key], dict):
                todo.append(((*above, key), level[key], led.get(j, set())))
            if key == "else" or j in fired:
                continue
            found.append(
                never(
                    "case " + ": ".join(_key_texts(doc, t, (*above, key))),
                    None,
                    shadowed.get(j),
                    "call",
                    f"of the {len(reaching)} different calls {callers[0]}" + (" here" if above else ""),
                    doc.span(("tables", t, "cases", *above, key), key=True),
                    table=t,
                    rows=[str(k) for k in keys],
                    against=callers[1],
                    tried=len(reaching) if partial else None,
                )
            )
    return found


def _key_texts(doc: Document, table: str, keys: tuple[Any, ...]) -> list[str]:
    """A case's keys, each as the file writes it (`Document.key_text`: a decimal's every digit)."""
    return [doc.key_text(("tables", table, "cases", *keys[: i + 1])) for i in range(len(keys))]


def _judge(
    rows: int, tests: dict[int, Condition], calls: set[tuple[Any, ...]]
) -> tuple[set[int], dict[int, set[int]]] | None:
    """Which rules fire for some call, and for each rule that matched after an earlier one
    decided, those earlier rules (rows without a test are `else` rows); None when a condition
    could not be judged."""
    fired: set[int] = set()
    shadowed: dict[int, set[int]] = {}
    try:
        for args in calls:
            _decide(rows, tests, args, fired, shadowed)
    except _Unjudged:  # pragma: no cover - a value of an unexpected kind
        return None
    return fired, shadowed


class _Unjudged(Exception):
    """A condition raised what no rule of the language raises: the table is not judged."""


def _decide(
    rows: int,
    tests: dict[int, Condition],
    args: tuple[Any, ...],
    fired: set[int],
    shadowed: dict[int, set[int]],
) -> int | None:
    """The row that decides the call `args` (rows without a test are `else` rows, which end the
    search), None if none does; it is added to `fired`, and it to `shadowed` of each later row
    that matched too. The one statement of first-match for rules and cases alike."""
    first: int | None = None
    for j in range(rows):
        if j not in tests:  # an else row
            return j if first is None else first
        if first is not None and j in fired:
            continue
        try:
            hit = bool(tests[j](*args))
        except RulecraftError:
            continue
        except Exception:  # pragma: no cover - a value of an unexpected kind
            raise _Unjudged from None
        if hit and first is None:
            first = j
            fired.add(j)
        elif hit and first is not None:
            shadowed.setdefault(j, set()).add(first)
    return first


def _unread(t: str, rows: str, site: ast.Call, where: Span) -> Diagnostic:
    """RC809: table `t` is not judged, for a call `site` whose constant arguments are not all
    literals. No budget would read them (the compiler works the call out when the ruleset loads,
    where the linter's recording never sees it), so the hint offers no more work: it says what
    the linter reads, and how to write the call so that the table is judged."""
    return Diagnostic(
        "RC809",
        f"which {rows} of table '{t}' fire was not judged: a call of it whose arguments are worked out "
        "when the ruleset loads, not plain numbers, is not seen by the linter",
        where,
        f"{to_text(site)} is worked out once, when the ruleset loads, and of such a call the linter "
        "reads only arguments written as plain numbers or truth values (0.3, not 3 / 10; a scale's "
        f"value it does not read at all); written so, they are judged. More work for the "
        "linter does not change this",
        "warning",
    )


def _constant_calls(table: str, model: RulesetModel, bodies: Bodies) -> set[tuple[Any, ...]] | ast.Call:
    """The argument lists of the table's calls whose arguments are constant, which the compiler
    works out once (the wrapper that records calls never sees them), read off their literals;
    or the first such call whose arguments are not plain numbers or truth values."""
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
            return site
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
) -> dict[tuple[str, Any], Condition] | None:
    """Each table rule's condition, and each `cases` key's test, as a function of the table's
    parameters: compiled as a table of its own in a copy of the ruleset, so it has the engine's
    semantics. A rule is keyed by its index, a case by the keys that lead to it."""
    data = dict(doc.data)
    specs = dict(data.get("tables", {}))
    names: dict[str, tuple[str, Any]] = {}

    def add(t: str, at: Any, body: dict[str, Any]) -> None:
        probe = f"{t}__lint{len(names)}"
        while probe in specs:
            probe += "_"
        specs[probe] = {"params": specs[t].get("params", []), "returns": "bool", **body}
        names[probe] = (t, at)

    for t in tables:
        if "cases" in specs[t]:
            depth = len(specs[t].get("params") or [])
            for above, key in _case_keys(specs[t]["cases"]):
                add(t, (*above, key), {"cases": _one_key(len(above), key, depth)})
            continue
        for j, row in enumerate(specs[t]["rules"]):
            if "when" in row:
                add(t, j, {"value": row["when"]})
    data["tables"] = specs
    data["checks"] = {}
    for part in _CALLERS:
        data.pop(part, None)
    try:
        model = compile_document(Document(doc.source, data, doc.places, doc.parts), limits)
    except RulecraftError:
        return None
    return {key: model.tables[probe].run for probe, key in names.items() if probe in model.tables}


_CALLERS = ("state", "actions", "scenes", "notes")
"""The parts of a ruleset that name its checks: left out of the probes' copy with the checks (an
action's `roll: {check: …}` was an unknown check there, so no table of a ruleset with state was
judged)."""


def _case_keys(level: dict[Any, Any], above: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    """Every key of a value table but `else`, with the keys that lead to it."""
    found: list[tuple[tuple[Any, ...], Any]] = []
    for key, sub in level.items():
        if key != "else":
            found.append((above, key))
        if isinstance(sub, dict):
            found += _case_keys(sub, (*above, key))
    return found


def _one_key(at: int, key: Any, depth: int) -> dict[Any, Any]:
    """The `cases` of a table of `depth` parameters true where parameter `at` matches `key`,
    whatever the others are."""

    def anything(level: int, result: bool) -> Any:
        for _ in range(level, depth):
            result = {"else": result}  # type: ignore[assignment]
        return result

    body: Any = {key: anything(at + 1, True), "else": anything(at + 1, False)}
    for _ in range(at):
        body = {"else": body}
    return dict(body)
