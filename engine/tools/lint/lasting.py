"""RC801 for the tables that lasting state calls (an item, an action, a scene), tried over the
values the state gives their arguments.

A check's inputs have declared ranges, and the linter tries them; lasting state declares ranges
too: a parameter's `min` and `max` (or its choices, or true and false), a counter's `min` and
`max`. A call is tried when each of its arguments is a constant, or names such a parameter or
counter, or a derived value computed from them alone (bare, `ROLE.NAME` or `PARTY.NAME`): with
every combination of the values they may take (a counter's bounds worked out for each value of
the parameters they read), up to `COMBINATIONS` a call (past it the rest is not tried). The first
combination for which a table has no rule or case (`RC501`) is reported at that table, as a
check's roll that falls through is.

A call with any other argument — an expression over several values, a tally, an action's input, a
check's value after a roll, a counter without both bounds or with bounds that read other items, a
`number` parameter (even between bounds: its values, fractions, are no list) — is not tried: the
values it may take are not known without playing the state out, and taking a guess would report
gaps no play reaches. Nothing is
reported of such a call (the linter claims nothing about it either way), and the docs say so.

The calls listed so are RC802's too (`state_calls`): a table's rule or key that only the state's
calls reach fires, and of a table a state call of which cannot be listed, RC802 claims nothing.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

from ...errors import Diagnostic, RulecraftError
from ...expr import ast
from ...expr.printer import to_text
from ...model.ruleset import Expr, InputSpec, RulesetModel
from ...model.state import Counter, Derived, StateModel
from ...model.values import show
from ...runtime.work import meter
from ...syntax.document import Document
from .probe import TableCalls, spent
from .static import Bodies, reached, walk

COMBINATIONS = 10_000
"""Combinations of the values a call's arguments may take that are tried, at most, for one call
(a table call costs about a microsecond)."""
COMBINATION_WORK = 5
"""Units of the linter's work charged for each combination, about what it costs at a microsecond
a unit (its values worked out: 3 µs; the table's call charges its own), so a ruleset with many
such calls ends within the linter's budget (`RC809` past it)."""

Var = tuple[str, str]
"""A value of the state as a call reads it: (whose: '' for the table's, else the prefix it was
read with, a party or a role; its name)."""


class _Unknown(Exception):
    """A value whose possible values the linter cannot list."""


def state_table_gaps(doc: Document, model: RulesetModel, skip: set[str]) -> list[Diagnostic]:
    """RC801 for each table (not in `skip`: already reported for a check) that a call from the
    lasting state reaches with arguments it has no rule or case for."""
    state = model.state
    if state is None or not model.tables:
        return []
    found: dict[str, Diagnostic] = {}
    tried: set[tuple[str, tuple[Any, ...]]] = set()
    for where, expr in state.expressions():
        for call in (n for n in walk(expr.node) if isinstance(n, ast.Call) and n.func in model.tables):
            if call.func in skip or call.func in found:
                continue
            try:
                values = _Values(state, model, call)
            except _Unknown:
                continue
            for env, args in values.calls():
                if (call.func, args) in tried:
                    continue
                tried.add((call.func, args))
                failed = _gap(model, call.func, args)
                if failed is None:
                    continue
                table, matched = failed
                if table in skip or table in found:
                    break
                found[table] = _finding(doc, model, table, call, args, matched, where, env)
                break
    return list(found.values())


def state_calls(model: RulesetModel, calls: TableCalls, bodies: Bodies) -> tuple[set[str], set[str]]:
    """Record in `calls` every argument list the lasting state calls a table with, as `_Values`
    lists them, each call run through the recording (so the tables a table calls are recorded
    too), for RC802 to judge the tables' rules over the state's calls as over the checks'.
    Returns the tables whose state calls were all recorded, and those (with every table they
    call) of which some state call could not be listed: RC802 claims nothing of those."""
    state = model.state
    listed: set[str] = set()
    unlisted: set[str] = set()
    if state is None or not model.tables:
        return listed, unlisted
    for _, expr in state.expressions():
        for call in (n for n in walk(expr.node) if isinstance(n, ast.Call) and n.func in model.tables):
            reach = reached([call], bodies)
            try:
                values = _Values(state, model, call)
            except _Unknown:
                unlisted |= reach
                continue
            for _, args in values.calls():
                calls.call(call.func, args)
            (listed if values.whole else unlisted).update(reach)
    return listed - unlisted, unlisted


def _gap(model: RulesetModel, table: str, args: tuple[Any, ...]) -> tuple[str, str] | None:
    """The table that had no rule or case for this call (`table` or one it calls) and what it
    was given, in its own words; None when the call gives a result (or fails otherwise: a
    division by zero is not a gap, and is the checks' to report)."""
    try:
        model.tables[table].run(*args)
    except RulecraftError as exc:
        d = exc.diagnostics[0]
        if spent(exc):
            raise  # the linter's budget, not the rules
        if d.code != "RC501":
            return None
        failed = next(
            (t.name for t in model.tables.values() if t.span is not None and t.span == d.span), table
        )
        matched = (d.hint or "").partition("nothing matched ")[2]
        return failed, matched
    return None


def _finding(
    doc: Document,
    model: RulesetModel,
    table: str,
    call: ast.Call,
    args: tuple[Any, ...],
    matched: str,
    where: str,
    env: Mapping[str, Any],
) -> Diagnostic:
    spec = doc.data.get("tables", {}).get(table, {})
    cases = isinstance(spec, dict) and "cases" in spec
    if table == call.func:
        params = [p for p, _ in model.tables[table].params]
        given = ", ".join(f"{p} = {show(v)}" for p, v in zip(params, args))
    else:
        given = matched or "some values"
    values = ", ".join(f"{name} = {show(v)}" for name, v in env.items())
    return Diagnostic(
        "RC801",
        f"table '{table}' has no {'case' if cases else 'rule'} for {given}: e.g. in {where}, "
        f"{to_text(call)}{' with ' + values if values else ''} falls through (the state's "
        "parameters and counters tried over the values they may take)",
        doc.span(("tables", table, "cases" if cases else "rules"), key=True),
        f"add {'a case' if cases else 'a rule'} for these values, "
        f"or an 'else' {'case' if cases else 'row'} at the end",
    )


class _Values:
    """The values one call's arguments may take: the state's values they read (parameters and
    counters, and derived values computed from them), each combination of those, and the
    arguments worked out for each. `_Unknown` when some argument's values cannot be listed."""

    def __init__(self, state: StateModel, model: RulesetModel, call: ast.Call) -> None:
        self.state, self.model, self.call = state, model, call
        self.params: dict[Var, list[Any]] = {}
        self.counters: dict[Var, Counter] = {}
        self.derived: dict[Var, Derived] = {}
        self.shown: list[str] = []
        self.whole = True
        """Whether `calls` gave every combination (False once it left some out, past
        `COMBINATIONS` or for a value it cannot work out)."""
        for arg in call.args:
            if isinstance(arg, ast.Name):
                self.shown.append(arg.id)
                self._need(self._var(arg.id, ""), set())
            elif not isinstance(arg, (ast.Num, ast.Bool, ast.Sym)):
                raise _Unknown

    def _var(self, name: str, prefix: str) -> Var:
        """`name` as read under `prefix` (the party or role whose item is being read)."""
        whose, dot, bare = name.rpartition(".")
        if dot:
            return whose, bare
        table_wide = {s.name for s in self.state.campaign} | set(self.state.shared)
        return ("" if name in table_wide else prefix), name

    def _need(self, var: Var, seen: set[Var]) -> None:
        """Note `var` and what its values come from; `_Unknown` when they cannot be listed."""
        if var in self.params or var in self.counters or var in self.derived:
            return
        if var in seen:  # pragma: no cover - the compiler refuses a value read before it is made
            raise _Unknown
        seen = seen | {var}
        whose, name = var
        spec = next((s for s in (*self.state.campaign, *self.state.character) if s.name == name), None)
        if spec is not None:
            self.params[var] = _choices(spec)
            return
        # a bare name is a shared item, or (in an item of each character, an action) one's own
        item = (
            (self.state.shared.get(name) or self.state.each.get(name))
            if not whose
            else self.state.each.get(name)
        )
        if isinstance(item, Counter) and item.minimum is not None and item.maximum is not None:
            for bound in (item.minimum, item.maximum):  # read only parameters, for it to be listed
                for read in ast.names(bound.node):
                    found = self._var(read, whose)
                    if not any(s.name == found[1] for s in (*self.state.campaign, *self.state.character)):
                        raise _Unknown
                    self._need(found, seen)
            self.counters[var] = item
        elif isinstance(item, Derived):
            for read in ast.names(item.expr.node):
                self._need(self._var(read, whose), seen)
            self.derived[var] = item
        else:
            raise _Unknown

    def calls(self) -> Iterator[tuple[dict[str, Any], tuple[Any, ...]]]:
        """Each combination (the values the call reads, by the names it reads them by) and the
        arguments the call is given then; `_Unknown` is not raised here: past `COMBINATIONS`
        (every parameters' combination counted, and every counters' within it) the rest is left
        out, and so is a combination a derived value or a bound cannot be computed for, or whose
        counter has more values than `COMBINATIONS` alone (a range is never listed whole)."""
        names = list(self.params)
        count = 0
        for picked in itertools.product(*(self.params[v] for v in names)):
            count += 1
            meter().charge(COMBINATION_WORK)
            if count > COMBINATIONS:
                self.whole = False
                return
            env: dict[Var, Any] = dict(zip(names, picked))
            ranges: list[range] = []
            try:
                for var, counter in self.counters.items():
                    assert counter.minimum is not None and counter.maximum is not None
                    lo, hi = (self._run(b, var[0], env) for b in (counter.minimum, counter.maximum))
                    ranges.append(range(_whole_up(lo), _whole_down(hi) + 1))
            except RulecraftError:
                continue  # bounds that cannot be worked out: no campaign has these parameters
            except _Unknown:
                self.whole = False
                continue
            if any(len(r) > COMBINATIONS for r in ranges):
                self.whole = False
                continue
            for values in itertools.product(*ranges):
                count += 1
                meter().charge(COMBINATION_WORK)
                if count > COMBINATIONS:
                    self.whole = False
                    return
                full = {**env, **dict(zip(self.counters, values))}
                try:
                    for var, derived in self.derived.items():
                        full[var] = self._run(derived.expr, var[0], full)
                    args = tuple(self._arg(a, full) for a in self.call.args)
                except RulecraftError:
                    continue  # a derived value that fails here: no play makes this call
                except _Unknown:
                    self.whole = False
                    continue
                shown = {name: full[self._var(name, "")] for name in self.shown}
                yield shown, args

    def _run(self, expr: Expr, prefix: str, env: Mapping[Var, Any]) -> Any:
        """An expression of an item read under `prefix`, with the values known so far (derived
        values in the order they are declared, each after what it reads)."""
        given: dict[str, Any] = {}
        for read in ast.names(expr.node):
            var = self._var(read, prefix)
            if var not in env:
                derived = self.derived.get(var)
                if derived is None:
                    raise _Unknown
                env = {**env, var: self._run(derived.expr, var[0], env)}
            given[read] = env[var]
        return expr.run(given)

    def _arg(self, node: ast.Node, env: Mapping[Var, Any]) -> Any:
        if isinstance(node, ast.Name):
            return env[self._var(node.id, "")]
        if isinstance(node, (ast.Num, ast.Bool)):
            value = node.value
            return int(value) if isinstance(value, Fraction) and value.denominator == 1 else value
        assert isinstance(node, ast.Sym)
        for scale in self.model.scales.values():
            if node.name in scale.names:
                return scale[node.name]
        raise _Unknown


def _choices(spec: InputSpec) -> list[Any]:
    """Every value a parameter may take; `_Unknown` for one without a finite list."""
    if spec.scale is not None:
        return list(spec.scale.members)
    if spec.kind == "bool":
        return [False, True]
    if spec.kind == "int" and spec.minimum is not None and spec.maximum is not None:
        values = range(_whole_up(spec.minimum), _whole_down(spec.maximum) + 1)
        if len(values) <= COMBINATIONS:  # never listed whole past that (`min: 0, max: 10**9`)
            return list(values)
    raise _Unknown


def _whole_up(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        raise _Unknown
    return -((-value.numerator) // value.denominator) if isinstance(value, Fraction) else value


def _whole_down(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        raise _Unknown
    return value.numerator // value.denominator if isinstance(value, Fraction) else value
