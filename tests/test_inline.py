"""Plain tables written into the generated loops (issue 13): a `rules:` or `value:` table called
as a whole statement of a check (`let: x: band(s, t)`, `outcome: band(s, t)`) has its body in
the outcome's loop and in the groups' pass instead of a call. Compiled with `inline=False`, every
table stays a call; these tests hold the two to the same fractions on every shipped check and on
generated tables, to the same diagnostic (code, message, file:line:col, caret) when a table
fails inside a loop, and to the same work charged, a tight budget still stopping the pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.compiler import compile_document
from engine.errors import LimitError, RulecraftError
from engine.eval import exact
from engine.runtime.context import RunContext
from engine.runtime.inputs import bind_inputs
from engine.runtime.limits import Limits
from engine.runtime.rules import before_roll
from engine.runtime.work import CLOCK_EVERY, Work

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ["castle", "chill", "chimera", "chthonian", "trait_and_wild"]


def _load(source: str, limits: Limits | None = None) -> engine.Ruleset:
    """A shipped ruleset, the example's file, or YAML text."""
    where: str | Path = ROOT / "examples" / f"{source}.yaml" if source == "trait_and_wild" else source
    return engine.load(where) if limits is None else engine.load(where, limits=limits)


def _pair(source: str, limits: Limits | None = None) -> tuple[engine.Ruleset, engine.Ruleset]:
    """The ruleset as loaded (tables inlined where plain) and compiled with every table a call."""
    rs = _load(source, limits)
    called = engine.Ruleset(compile_document(rs.document, rs.limits, inline=False), rs.document, rs.limits)
    return rs, called


def _answer(rs: engine.Ruleset, check: str, inputs: dict[str, Any]) -> Any:
    """The outcome's exact weights, or the diagnostics rendered, for a fresh request."""
    rs.caches.distributions.clear()
    try:
        d = rs.distribution(check, **inputs)
    except RulecraftError as exc:
        return [d.render() for d in exc.diagnostics]
    return list(d.outcome.weights.items()), d.outcome.total  # in order: batches draw by it


def _inlined(rs: engine.Ruleset, check: str) -> bool:
    """Whether the check's loop holds a table's body (it then asks for the work counter to choose)."""
    c = rs.check(check)
    return c.outcome_loop is not None and "_work" in c.outcome_loop.__code__.co_names


def test_a_plain_table_called_as_a_statement_is_written_into_the_loop_and_the_groups() -> None:
    rs, called = _pair("chill")
    assert _inlined(rs, "specific") and not _inlined(called, "specific")
    stages = rs.check("specific").outcome_stages
    assert stages is not None and "_work" in stages[1].__code__.co_names
    castle, _ = _pair("castle")
    assert _inlined(castle, "task")  # a `value:` table
    # outcome rules whose every row gives one outcome: each row counts its weight in a local
    rules, plain = _pair("chthonian")
    assert _inlined(rules, "standard") and not _inlined(plain, "standard")
    # a table called inside a larger expression stays a call (its arguments might not all run)
    assert not _inlined(engine.load(CHECKS), "nested")


def _shipped_cases() -> list[tuple[str, str, dict[str, Any]]]:
    cases = []
    for source in SHIPPED:
        rs = _load(source)
        for check in rs.checks.values():
            seen: list[dict[str, Any]] = [{}]
            for ex in check.examples:
                if dict(ex.inputs) not in seen:
                    seen.append(dict(ex.inputs))
            cases += [(source, check.name, inputs) for inputs in seen]
    return cases


@pytest.mark.parametrize(("source", "check", "inputs"), _shipped_cases())
def test_every_shipped_check_gives_the_same_fractions_inlined_or_called(
    source: str, check: str, inputs: dict[str, Any]
) -> None:
    """The first request (the loop) and the second and third (the groups) alike."""
    rs, called = _pair(source)
    for _ in range(3):
        assert _answer(rs, check, inputs) == _answer(called, check, inputs)


def test_the_shipped_checks_include_inlined_ones_whose_pass_runs_unmetered() -> None:
    """So the comparison above is of the inlined form: the pass is charged before it runs."""
    inlined = [(s, c) for s, c, _ in _shipped_cases() if _inlined(_load(s), c)]
    assert ("chill", "specific") in inlined and ("castle", "task") in inlined
    rs = engine.load("chill")
    assert rs.check("specific").outcome_units * 100 <= CLOCK_EVERY


CHECKS = """
rulecraft: 1
name: inlined
scales:
  result: [low, mid, high]
tables:
  band:
    params: {s: int, t: int}
    returns: result
    rules:
      - when: s > t
        then: high
      - when: 10 / (t - 9) > s
        then: mid
      - when: s == 2
        then: low
  size:
    params: {k: int}
    returns: int
    cases: {1: 3, 2: 7}
  sized:
    params: {s: int, t: int}
    returns: result
    rules:
      - when: size(t) > s
        then: low
      - else: high
  plain:
    params: {s: int}
    returns: result
    rules:
      - when: s > 45
        then: high
      - when: s > 30
        then: mid
      - else: low
  loose:
    params: [x]
    value: "x"
  weird:
    params: {s: int}
    returns: result
    rules:
      - when: rank(loose(s)) > s
        then: high
      - else: low
  typed:
    params: {s: int, t: int}
    returns: result
    rules:
      - when: s > t
        then: loose('high')
      - else: loose(s)
checks:
  sum:
    inputs:
      t: {type: int, min: 0, max: 200, default: 5}
    roll:
      a: {die: 6}
      b: {die: 6}
    let:
      s: a + b
    outcomes: result
    outcome: band(s, t)
  direct:
    inputs:
      t: {type: int, min: 0, max: 200, default: 5}
    roll:
      a: {die: 6}
      b: {die: 6}
    let:
      pick: band(a + b, t)
    outcomes: result
    outcome: "'high' if pick == 'high' else 'low'"
  lookup:
    inputs:
      t: {type: int, min: 0, max: 200, default: 1}
    roll:
      a: {die: 6}
      b: {die: 6}
    let:
      s: a + b
    outcomes: result
    outcome: sized(s, t)
  wrong:
    inputs:
      t: {type: int, min: 0, max: 200, default: 1}
    roll:
      a: {die: 6}
    outcomes: result
    outcome: typed(a, t)
  odd:
    inputs:
      t: {type: int, min: 0, max: 200, default: 1}
    roll:
      a: {die: 6}
    outcomes: result
    outcome: weird(a + t)
  nested:
    inputs:
      t: {type: int, min: 0, max: 200, default: 1}
    roll:
      a: {die: 6}
    outcomes: result
    outcome: "band(a, t) if t > 0 else 'low'"
"""


@pytest.mark.parametrize(
    ("check", "t", "code", "at"),
    [
        ("sum", 9, "RC502", "10 / (t - 9)"),  # division by zero in a row
        ("sum", 20, "RC501", "band:"),  # no row matched: at the table, its arguments shown
        ("direct", 9, "RC502", "10 / (t - 9)"),  # a value's table, its argument an expression
        ("direct", 20, "RC501", "band:"),
        ("lookup", 99, "RC501", "size:"),  # a lookup out of its cases, inside the inlined body
        ("wrong", 99, "RC506", "loose(s)"),  # an undeclared result of the wrong kind
        # a builtin's argument of the wrong kind in a row: its type rule's words, at the call in the
        # row (Python's words at the table before `rank` checked an untyped argument)
        ("odd", 1, "RC506", "rank(loose(s))"),
    ],
)
def test_an_error_inside_an_inlined_table_is_the_diagnostic_the_call_gave(
    check: str, t: int, code: str, at: str
) -> None:
    rs, called = _pair(CHECKS)
    assert _inlined(rs, check) or check == "wrong"
    for attempt in range(3):  # the loop, then the groups
        mine, theirs = _answer(rs, check, {"t": t}), _answer(called, check, {"t": t})
        assert mine == theirs, attempt
        assert isinstance(mine, list) and len(mine) == 1
        first, line, carets = mine[0].splitlines()[:3]
        assert first.startswith("<string>:") and f"error {code}" in first
        assert at in line and "^" in carets


def test_a_pass_too_long_to_charge_first_is_metered_call_by_call_and_a_tight_budget_stops_it() -> None:
    """27,000 combinations, a table call each: more than the counter may count between looks at
    the clock, so the loop takes its calls (each charging), inlined or not."""
    source = CHECKS.replace(
        "  nested:",
        "  big:\n    inputs: {t: {type: int, default: 30}}\n"
        "    roll: {a: {die: 30}, b: {die: 30}, c: {die: 30}}\n"
        "    outcomes: result\n    outcome: plain(a + b + c - t)\n  nested:",
    )
    rs, called = _pair(source)
    assert _inlined(rs, "big")
    states = 30**3
    assert rs.check("big").outcome_units * states > CLOCK_EVERY
    used = []
    for each in (rs, called):
        check = each.check("big")
        work = Work(10**9)
        ctx = RunContext(each.limits, "always", each.caches, None, None, work)
        exact.distribution(check, bind_inputs(check, {"t": 30}), ctx)
        used.append(work.used)
    assert used[0] == used[1] == states + states  # a unit per state, then one per call
    tight = Limits(max_work=states + states // 2)
    for each in _pair(source, tight):
        with pytest.raises(LimitError) as caught:
            each.distribution("big", t=30)
        assert caught.value.diagnostics[0].code == "RC503"


@pytest.mark.parametrize("check", ["sum", "direct", "lookup"])
def test_the_work_charged_is_the_same_inlined_or_called(check: str) -> None:
    """The first request through the loop, the next ones through the groups: a unit per state or
    group, and the table calls the outcome's statements can make (`outcome_units`) per each."""
    rs, called = _pair(CHECKS)
    used: list[list[int]] = [[], []]
    for i, each in enumerate((rs, called)):
        c = each.check(check)
        for t in (1, 2, 1, 2):
            work = Work(10**9)
            ctx = RunContext(each.limits, "always", each.caches, None, None, work)
            exact.distribution(c, bind_inputs(c, {"t": t}), ctx)
            used[i].append(work.used)
    assert used[0] == used[1]


def test_a_loop_reads_each_name_of_its_environment_once() -> None:
    """What the loop reads of `env` cannot change inside it: read once, before the loops."""

    class Counting(dict[str, Any]):
        reads = 0

        def __getitem__(self, key: str) -> Any:
            Counting.reads += 1
            return super().__getitem__(key)

    rs = engine.load("chill")
    check = rs.check("specific")
    env = Counting(before_roll(check, bind_inputs(check, {"target": 55})))
    faces = tuple((f, 1) for f in range(10))
    out: dict[Any, int] = {}
    assert check.outcome_loop is not None
    check.outcome_loop(env, out, faces, faces)
    assert sum(out.values()) == 100 and Counting.reads == 1  # final_target, once for 100 states


_TERMS = ["s", "t", "a", "3", "s + 2", "s * t", "t - 4", "s / (t - 4)", "s // 3", "a % (t - 2)", "-s"]
_TESTS = st.builds(
    lambda x, op, y: f"{x} {op} {y}",
    st.sampled_from(_TERMS),
    st.sampled_from(["<", "<=", ">", ">=", "==", "!="]),
    st.sampled_from(_TERMS),
)
_CONDITIONS = st.one_of(
    _TESTS,
    st.builds(lambda x, op, y: f"{x} {op} {y}", _TESTS, st.sampled_from(["and", "or"]), _TESTS),
    st.builds(lambda x: f"not ({x})", _TESTS),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(st.tuples(_CONDITIONS, st.sampled_from(["low", "mid", "high"])), min_size=1, max_size=5),
    otherwise=st.one_of(st.none(), st.sampled_from(["low", "mid", "high"])),
    ts=st.lists(st.integers(-3, 14), min_size=1, max_size=3),
)
def test_generated_tables_give_the_same_fractions_and_errors_inlined_or_called(
    rows: list[tuple[str, str]], otherwise: str | None, ts: list[int]
) -> None:
    body = "".join(f"      - when: {cond!r}\n        then: {then}\n" for cond, then in rows)
    if otherwise is not None:
        body += f"      - else: {otherwise}\n"
    source = f"""
rulecraft: 1
name: generated
scales:
  result: [low, mid, high]
tables:
  band:
    params: {{s: int, t: int, a: int}}
    returns: result
    rules:
{body}checks:
  grouped:
    inputs: {{t: {{type: int, default: 0}}}}
    roll: {{a: {{die: 4}}, b: {{die: [0, 1, 1, 3]}}}}
    let: {{s: a + b}}
    outcomes: result
    outcome: band(s, t, a)
  looped:
    inputs: {{t: {{type: int, default: 0}}}}
    roll: {{a: {{die: 4}}, b: {{die: [0, 1, 1, 3]}}}}
    let: {{s: "band(a * b, t + 1, a)"}}
    outcomes: result
    outcome: "s"
"""
    rs, called = _pair(source)
    assert _inlined(rs, "grouped") and _inlined(rs, "looped")
    for check in ("grouped", "looped"):
        for t in ts * 2:  # the second time round, through the groups
            assert _answer(rs, check, {"t": t}) == _answer(called, check, {"t": t})
