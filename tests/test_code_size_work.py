"""Work is charged by the size of the code a state, a roll or a table call runs.

Found by hunt 13h: a unit a state whatever the check's code did, so 40 named values of about 25
operations each over four d20 (160,000 states) ran 13.5 s of CPU under `--limit deadline=1` and
charged 160,000 units (the default budget is 2,000,000, about 2 s), and a table of 58 rules was
a unit a call; `validate` of such a file ran 85 s. Now a check's code after the roll past
`FREE_CODE_NODES` expression nodes costs a unit for each `CODE_NODES` more at every state and
roll (`Check.code_units`), and a table's likewise at every call, so the budget bounds them.
"""

from __future__ import annotations

import time

import pytest

import engine
from engine import Limits
from engine.errors import LimitError
from engine.eval.dicework import own_units
from engine.runtime.work import CODE_NODES, FREE_CODE_NODES, code_units


def _heavy(dice: int, lets: int = 40) -> str:
    """`lets` named values of 12 products and 11 sums each over `dice` d20, read by the outcome."""
    terms = " + ".join(f"i{k} * d{k % dice}" for k in range(12))
    text = "rulecraft: 1\nname: heavy\nchecks:\n  c:\n    inputs:\n"
    text += "".join(
        f"      i{k}: {{type: int, min: 0, max: 1000, default: {k * 37 + 5}}}\n" for k in range(12)
    )
    text += "    roll:\n" + "".join(f"      d{j}: {{die: 20}}\n" for j in range(dice)) + "    let:\n"
    text += "".join(f"      s{j}: ({terms}) * {j + 1} % 97\n" for j in range(lets))
    text += "      u: " + " + ".join(f"s{j}" for j in range(lets)) + "\n"
    return text + "    outcomes: [a, b]\n    outcome: \"'a' if u > 3000 else 'b'\"\n"


def _refused(text: str, max_work: int) -> bool:
    """Whether the check's distribution is over a budget of `max_work` units (a fresh load)."""
    try:
        engine.load(text, limits=Limits(max_work=max_work)).distribution("c")
    except LimitError as exc:
        assert exc.diagnostics[0].code == "RC503"
        return True
    return False


def test_a_checks_code_is_charged_by_its_size_at_every_state() -> None:
    rs = engine.load(_heavy(2), limits=Limits(max_work=10**12))
    units = rs.model.checks["c"].code_units
    assert units == code_units(units * CODE_NODES + FREE_CODE_NODES) and units > 100
    assert _refused(_heavy(2), 400 * units) and not _refused(_heavy(2), 10**7)  # 20 x 20 states
    assert own_units(rs.model.checks["c"]) > units  # a sampled roll's too
    small = engine.load(_heavy(2, lets=1), limits=Limits(max_work=10**12))
    assert small.model.checks["c"].code_units == 0  # a few lines are a state's own unit


def test_a_heavy_check_is_refused_by_the_budget_at_once() -> None:
    """Four d20 of the heavy code: about 20 million units, refused before the pass runs (it ran
    13.5 s and passed, charged 160,000)."""
    rs = engine.load(_heavy(4))
    started = time.process_time()
    with pytest.raises(LimitError) as raised:
        rs.distribution("c")
    assert raised.value.diagnostics[0].code == "RC503"
    assert time.process_time() - started < 5  # the refusal, not the pass (13 s), however slow the machine


def test_a_tables_code_is_charged_by_its_size_at_every_call() -> None:
    rows = "".join(f"      - {{when: x % {k} == y % {k}, then: {k}}}\n" for k in range(2, 60))
    text = (
        "rulecraft: 1\nname: t\ntables:\n  t:\n    params: [x, y]\n    returns: int\n    rules:\n"
        + rows
        + "      - else: 0\nchecks:\n  c:\n    roll: {d0: {die: 20}, d1: {die: 20}}\n"
        + "    let: {u: 't(d0 * 7, d1 + 3)'}\n    outcomes: [a, b]\n    outcome: \"'a' if u > 30 else 'b'\"\n"
    )
    per_call = 1 + code_units(58 * 8 + 1)  # each rule: x % k == y % k (7 nodes), k; the else: 0
    assert per_call > 20
    assert _refused(text, 400 * per_call - 1) and not _refused(text, 10**7)


@pytest.mark.parametrize("name", ["chill", "chimera", "castle", "chthonian"])
def test_the_shipped_checks_code_is_within_a_states_own_unit(name: str) -> None:
    """So the numbers the docs give for them (budgets, dice that fit) stand."""
    rs = engine.load(name)
    assert all(check.code_units == 0 for check in rs.model.checks.values())


def test_a_heavy_pass_within_the_budget_still_meets_the_deadline() -> None:
    """With the budget raised, the pass is charged state by state, so the clock is looked at as it
    runs: it ran 13.5 s past a deadline of 1 s."""
    rs = engine.load(_heavy(4), limits=Limits(max_work=10**9, deadline=0.5))
    started = time.process_time()
    with pytest.raises(LimitError) as raised:
        rs.distribution("c")
    assert raised.value.diagnostics[0].code == "RC503" and "deadline" in str(raised.value)
    assert time.process_time() - started < 5


def test_a_heavy_checks_values_agree_with_its_outcome() -> None:
    """Its values come from its joint, metered as its outcome's pass is (no value loop, which
    would be charged before it ran)."""
    rs = engine.load(_heavy(2), limits=Limits(max_work=10**9))
    d = rs.distribution("c")
    u = d.value("u")
    assert sum(p for _, p in u.items()) == 1
    assert d.probability("a") == sum(p for v, p in u.items() if v > 3000) > 0
