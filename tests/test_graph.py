"""`graph.postorder`, the engine's one depth-first order of a graph: the compiler's order of named
values (`Structure._let_order`) and the Markov solver's order of a chain's states both walk it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.compiler.structure import Structure
from engine.errors import Diagnostic
from engine.expr import ast
from engine.graph import circle_text, postorder
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


OUTCOME = "    outcome: \"'hi' if {} > 3 else 'lo'\""


def test_a_long_circle_is_told_in_a_line_of_bounded_length() -> None:
    """Review: a circle of 3,000 named values was one message line of 26 KB (every name on it),
    and a circle of tables alike: past `CIRCLE_SHOWN` names the middle is a count. A circle of
    50 tables was told 50 times, once from each table on it (a circle of N tables, N messages of
    N names each): it is told once."""
    n = 3000
    lines = ["rulecraft: 1", "name: circle", "checks:", "  act:", "    roll: {d: {die: 6}}", "    let:"]
    lines += [f"      v{i}: v{(i + 1) % n} + d" for i in range(n)]
    lines += ["    outcomes: [lo, hi]", OUTCOME.format("v0")]
    with pytest.raises(engine.RulecraftError) as caught:
        engine.load("\n".join(lines) + "\n")
    [d] = [d for d in caught.value.diagnostics if d.code == "RC308"]
    assert d.message == (
        "named values depend on each other in a circle: "
        f"v0 -> v1 -> v2 -> v3 -> ... ({n - 7} more) -> v{n - 3} -> v{n - 2} -> v{n - 1} -> v0"
    )
    t = 50
    lines = ["rulecraft: 1", "name: tables", "tables:"]
    for i in range(t):
        lines += [f"  t{i}:", "    params: {n: int}", "    returns: int"]
        lines.append(f'    value: "0 if n <= 0 else t{(i + 1) % t}(n - 1)"')
    lines += [
        "checks:",
        "  act:",
        "    roll: {d: {die: 6}}",
        "    outcomes: [lo, hi]",
        OUTCOME.format("t0(d)"),
    ]
    with pytest.raises(engine.RulecraftError) as caught:
        engine.load("\n".join(lines) + "\n")
    [d] = [d for d in caught.value.diagnostics if d.code == "RC308"]
    assert d.message == (
        f"tables may not call themselves (t0 -> t1 -> t2 -> t3 -> ... ({t - 7} more) -> "
        f"t{t - 3} -> t{t - 2} -> t{t - 1} -> t0)"
    )
    assert circle_text(["a", "b"]) == "a -> b -> a"  # a short circle whole


def test_a_circle_one_name_too_long_is_told_whole() -> None:
    """Review: a circle of nine names was told with "... (1 more)", longer than the one name."""
    nine = [f"v{i}" for i in range(8)]
    assert circle_text(nine) == " -> ".join([*nine, "v0"])
    ten = [f"v{i}" for i in range(9)]
    assert "... (2 more)" in circle_text(ten)


CIRCLE = """rulecraft: 1
name: circ
tables:
  t0:
    params: {n: int}
    returns: int
    rules:
      - {when: "n <= 0", then: "0"}
      - {else: "t1(n - 1)"}
  t1:
    params: {n: int}
    returns: int
    value: "t0(n - 1) + bogus"
checks:
  act:
    roll: {d: {die: 6}}
    let:
      x: t1(d)
    outcomes: [lo, hi]
    outcome: "'hi' if x > 3 else 'lo'"
    examples:
      - {dice: {d: 6}, expect: {outcome: hi, values: {x: 0}}}
"""


def test_a_circle_of_tables_is_told_once_and_a_check_that_calls_it_no_more() -> None:
    """Review: telling a circle once by stopping without a message left a check that calls a
    table on it half compiled, so its example was told it has no value 'x'; walking the circle
    again from each table on it, to tell it anew, made a load quadratic in its length (60 tables
    of 40 terms: 9.9 s). A table on a told circle raises that diagnostic at once: one message.
    (`bogus`, read after the call that meets the circle, is told once the circle is broken.)"""
    with pytest.raises(engine.RulecraftError) as caught:
        engine.load(CIRCLE)
    told = [(d.code, d.message) for d in caught.value.diagnostics]
    assert told == [("RC308", "tables may not call themselves (t0 -> t1 -> t0)")], told
    fixed = CIRCLE.replace('else: "t1(n - 1)"', 'else: "n"')
    with pytest.raises(engine.RulecraftError) as caught:
        engine.load(fixed)
    assert [(d.code, d.message) for d in caught.value.diagnostics] == [("RC301", "unknown name 'bogus'")]


def _table_chain(n: int, *, typed: bool = True, circle: bool = False) -> str:
    """A ruleset of `n` tables, each calling the next (the last, with `circle`, the first), and
    a check that calls the first with a d6."""
    lines = ["rulecraft: 1", "name: chain", "tables:"]
    for i in range(n):
        body = f"t{(i + 1) % n}(x) + 1" if circle or i < n - 1 else "x"
        lines += [f"  t{i}:", "    params: {x: int}" if typed else "    params: [x]", f"    value: {body}"]
    lines += [
        "checks:",
        "  act:",
        "    roll: {d: {die: 6}}",
        "    outcomes: [lo, hi]",
        OUTCOME.format("t0(d)"),
    ]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("typed", [True, False])
def test_a_long_chain_of_tables_compiles_without_running_out_of_stack(typed: bool) -> None:
    """Review: a chain of about 120 tables, each calling the next, ended a load in a bare
    `RecursionError` (each table compiled its callee on first use, and, untyped, checked its
    callee's body for the call's types inside its own). Tables now compile callees first and
    queue those checks, so a chain of 200 loads, and rolls what it says."""
    rs = engine.load(_table_chain(200, typed=typed))
    assert rs.roll("act", forced={"d": 1}).outcome == "hi"  # 1 + 199 > 3
    assert rs.distribution("act").probability("hi") == 1


@pytest.mark.parametrize("typed", [True, False])
def test_a_chain_of_tables_past_the_stack_is_one_error(typed: bool) -> None:
    """The calls of a chain of tables are Python calls when it runs, and a chain of about 950
    ran out of Python's stack: past `MAX_TABLE_CHAIN` tables it is `RC202` at the call that
    passes it, told once, for 201 tables as for 3,000."""
    for n in (201, 3000):
        with pytest.raises(engine.LimitError) as caught:
            engine.load(_table_chain(n, typed=typed))
        [d] = caught.value.diagnostics
        first = n - 201
        assert d.code == "RC202"
        assert d.message == (
            f"tables call one another more than 200 deep: t{first} -> t{first + 1} -> t{first + 2} -> "
            f"t{first + 3} -> ... (193 more) -> t{n - 4} -> t{n - 3} -> t{n - 2} -> t{n - 1}"
        )
        assert d.span is not None and (d.span.line, d.span.col) == (6 + 3 * first, 12)


def test_a_long_circle_of_tables_is_told_without_running_out_of_stack() -> None:
    """A circle of 3,000 tables had walked its whole length on the stack before it was told:
    the circle is now found by the one walk that orders the tables."""
    with pytest.raises(engine.RulecraftError) as caught:
        engine.load(_table_chain(3000, circle=True))
    [d] = caught.value.diagnostics
    assert (d.code, d.message) == (
        "RC308",
        "tables may not call themselves "
        "(t0 -> t1 -> t2 -> t3 -> ... (2993 more) -> t2997 -> t2998 -> t2999 -> t0)",
    )


def test_a_mismatch_two_untyped_tables_down_names_the_call_that_made_it() -> None:
    """An untyped table's body is checked for each call's types after the body that calls it,
    not inside it: a mismatch in a table that another table calls names the types and the line
    of that table's call (the closest call, where the types were given)."""
    text = """rulecraft: 1
name: down
tables:
  outer:
    params: [x]
    value: inner(x)
  inner:
    params: [y]
    value: y + 1
checks:
  act:
    roll: {d: {die: 6}}
    outcomes: [lo, hi]
    outcome: "'hi' if outer(d > 3) else 'lo'"
"""
    with pytest.raises(engine.CompileError) as caught:
        engine.load(text)
    [d] = caught.value.diagnostics
    assert d.code == "RC304" and d.span is not None and d.span.line == 9
    assert d.hint == "when inner() is called with y: true/false (at line 6)"


def _told(text: str) -> list[tuple[str, int, int]]:
    with pytest.raises(engine.RulecraftError) as caught:
        engine.load(text)
    return [
        (d.code, d.span.line if d.span else 0, d.span.col if d.span else 0) for d in caught.value.diagnostics
    ]


def test_a_table_on_a_circle_still_reports_its_other_errors_and_its_callers() -> None:
    """Review: a table on a circle the ordering walk found was never compiled, so its other rows'
    errors and a wrong call of it went untold. The circle is raised by a call of a table on it
    until that table is compiled; the list of tables still compiles each, its rows one by one."""
    text = """rulecraft: 1
name: circ
tables:
  a:
    params: {x: int}
    rules:
      - when: b(x) > 1
        then: 1
      - else: bogus
  b:
    params: {x: int}
    value: a(x)
checks:
  act:
    roll: {d: {die: 6}}
    outcomes: [lo, hi]
    outcome: "'hi' if a(d, 2) > 2 else 'lo'"
"""
    assert _told(text) == [("RC301", 9, 15), ("RC308", 12, 12), ("RC303", 17, 23)]


def test_a_long_chain_over_a_failed_table_is_one_error_not_a_recursion() -> None:
    """Review: a table that failed to compile was compiled again by each caller, one level deeper
    on the stack each time: a chain of 150 tables over a misspelt name ended in a
    `RecursionError`. A failed table's diagnostic is kept, and each later call raises it."""
    text = _table_chain(150).replace("    value: x\n", "    value: x + bogus\n")
    assert _told(text) == [("RC301", 6 + 3 * 149, 16)]


def test_a_chain_through_case_keys_counts_toward_the_bound() -> None:
    """Review: a table called in a `cases` key was not seen by the ordering walk, so a chain
    of 260 such tables ran out of Python's stack: keys are walked too. Since 2026-12-06 a key is
    a value or a range, never a calculation (a401432), so such keys are refused where they are
    written (RC310), and the walk still tells the chain too deep (RC202) rather than recursing."""
    n = 260
    lines = ["rulecraft: 1", "name: keys", "tables:"]
    for i in range(n - 1):
        lines += [f"  t{i}:", "    params: {x: int}", "    cases:", f"      t{i + 1}(1): 1", "      else: 0"]
    lines += [f"  t{n - 1}:", "    params: {x: int}", "    value: x"]
    lines += [
        "checks:",
        "  act:",
        "    roll: {d: {die: 6}}",
        "    outcomes: [lo, hi]",
        OUTCOME.format("t0(d)"),
    ]
    codes = [code for code, _, _ in _told("\n".join(lines) + "\n")]
    assert "RC202" in codes and set(codes) == {"RC202", "RC310"}


def test_a_failed_check_for_one_calls_types_leaves_the_others_to_their_next_call() -> None:
    """Review: the per-call checks queued behind one that failed were marked done and dropped,
    so a later call of the same table with the same types skipped its check: b's RC304 at
    act2's call went untold."""
    text = """rulecraft: 1
name: down
tables:
  outer:
    params: [x]
    value: a(x) + b(x)
  a:
    params: [y]
    value: y + 1
  b:
    params: [z]
    value: z * 2
checks:
  act:
    roll: {d: {die: 6}}
    outcomes: [lo, hi]
    outcome: "'hi' if outer(d > 3) > 1 else 'lo'"
  act2:
    roll: {d: {die: 6}}
    outcomes: [lo, hi]
    outcome: "'hi' if b(d > 3) > 1 else 'lo'"
"""
    assert _told(text) == [("RC304", 9, 12), ("RC304", 12, 12)]


UNIT_TABLES = {
    "a": "    params: {x: int}\n    value: u(x) + b(x)\n",
    "b": "    params: {x: int}\n    value: u(x)\n",
    "u": "    params: [y]\n    value: v(y) + v(y)\n",
    "v": "    params: {y: int}\n    value: y\n",
}


def test_a_tables_work_charge_does_not_follow_the_compile_order() -> None:
    """Review: an untyped table's body, lowered again only to type it for a call, charged the
    calls in it to whichever table was being compiled: b's charge (and the check's) was 4 or
    6 by the order the tables were declared or compiled in. It is charged to no one."""
    charged = []
    for order in ("abuv", "bauv"):
        text = "rulecraft: 1\nname: units\ntables:\n"
        text += "".join(f"  {t}:\n{UNIT_TABLES[t]}" for t in order)
        text += "checks:\n  act:\n    roll: {d: {die: 6}}\n    outcomes: [lo, hi]\n"
        text += OUTCOME.format("b(d)") + "\n"
        charged.append(engine.load(text).model.checks["act"].roller_units)
    assert charged == [4, 4], charged


def test_a_loads_errors_come_in_the_files_order() -> None:
    """Review: tables compile after the tables they call, and the errors of a load had come in
    that order (line 9 before line 6); they come in the file's."""
    text = """rulecraft: 1
name: order
tables:
  a:
    params: {x: int}
    value: bogus_one + b(x)
  b:
    params: {x: int}
    value: bogus_two
checks:
  act:
    roll: {d: {die: 6}}
    outcomes: [lo, hi]
    outcome: "'hi' if a(d) > 2 else 'lo'"
"""
    assert _told(text) == [("RC301", 6, 12), ("RC301", 9, 12)]
