"""An outcome's pass left for the first question about outcomes (issue 13 item 1, the Extent):
when nothing in it can raise (`Check.outcome_total`), a distribution charges the pass when it is
made and runs it only when an outcome is asked for, so a named value's distribution alone never
runs it. These tests hold the compiler's judgement to what running the pass does, the lazy
distribution to the eager one (the same numbers, the same units charged), and every error to
`distribution(...)` itself."""

from __future__ import annotations

import dis
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.errors import EvalError, LimitError, RulecraftError
from engine.eval import exact
from engine.model.ruleset import Check
from engine.runtime.cache import Caches
from engine.runtime.context import RunContext
from engine.runtime.inputs import bind_inputs
from engine.runtime.limits import DEFAULT_LIMITS, Limits
from engine.runtime.work import Work

KINDS = """
rulecraft: 1
name: kinds
scales:
  level: [low, mid, high]
checks:
"""

CHECK = """
  {name}:
    inputs:
      t: {{type: int, min: -5, max: 5, default: 1}}
      lv: {{type: choice, choices: level, default: mid}}
    roll:
      a: {{die: 6}}
    let:
      x: {expr}
    outcomes: [failure, success]
    outcome:
{rules}
"""

ELSE = """      - when: {test}
        then: success
      - else: failure"""

NO_ELSE = """      - when: {test}
        then: success
      - when: not ({test})
        then: failure"""

CASES = {
    # name: (the value x, the outcome's test, the rules end in an else, can the pass raise?)
    "sums": ("a + t - 3", "x >= 0", True, False),
    "negated": ("-a + 3", "x < t", True, False),
    "choice": ("a - t if a > 3 else t - a", "x >= 0 and not (x == 2)", True, False),
    "equal_levels": ("a + t", "lv == 'high' or x == 4", True, False),
    "product": ("a * 2", "x >= 7", True, True),
    "quotient": ("a / 2", "x >= 2", True, True),
    "floor": ("a // 2", "x >= 2", True, True),
    "remainder": ("a % 2", "x == 1", True, True),
    "membership": ("a + t", "x in [1, 2, 3]", True, True),
    "ordered_levels": ("a + t", "lv >= 'mid' and x > 2", True, True),
    "call": ("max(a, t)", "x >= 3", True, True),
    "no_else": ("a + t", "x >= 3", False, True),
}


def _kinds() -> engine.Ruleset:
    checks = "".join(
        CHECK.format(name=name, expr=f'"{expr}"', rules=(ELSE if has_else else NO_ELSE).format(test=test))
        for name, (expr, test, has_else, _) in CASES.items()
    )
    return engine.load(KINDS + checks)


@pytest.mark.parametrize("name", list(CASES))
def test_only_a_pass_that_cannot_raise_is_left(name: str) -> None:
    """Sums, differences, orders of numbers, tests and an `else` cannot raise; a product, a
    quotient, `in`, an order of scale values, a call, or rules with no `else` might."""
    check = _kinds().check(name)
    assert check.outcome_loop is not None
    assert check.outcome_total is not CASES[name][3]


def _eager(check: Check) -> Check:
    return replace(check, outcome_total=False)


def _work_of(check: Check, inputs: dict[str, Any]) -> tuple[exact.Distribution, int]:
    work = Work(10**9)
    ctx = RunContext(DEFAULT_LIMITS, "always", Caches(), None, None, work)
    return exact.distribution(check, bind_inputs(check, inputs), ctx), work.used


def test_a_value_alone_never_runs_the_pass_and_the_outcome_is_the_eager_one() -> None:
    """Chthonian's Standard Roll: the Extent asked alone leaves the pass unrun; asked after, the
    outcome is the one made at once, and both charge the same units when made."""
    check = engine.load("chthonian").check("standard")
    assert check.outcome_total
    for traits in range(-3, 4):
        inputs = {"traits": traits, "difficulty": 8}
        lazy, used = _work_of(check, inputs)
        eager, eager_used = _work_of(_eager(check), inputs)
        assert used == eager_used == 12
        assert isinstance(lazy.source, exact._Product) and lazy.source.outcome is None
        assert lazy.value("extent") == eager.value("extent")
        assert lazy.source.outcome is None  # a value alone never ran it
        assert isinstance(eager.source, exact._Product) and eager.source.outcome is not None
        assert lazy.table() == eager.table() and lazy.outcome == eager.outcome
        assert lazy.source.outcome is lazy.outcome  # made once, kept


def test_a_lazy_distribution_is_weighed_at_its_most_then_as_made() -> None:
    check = engine.load("chthonian").check("standard")
    lazy, _ = _work_of(check, {"traits": 0})
    eager, _ = _work_of(_eager(check), {"traits": 0})
    assert lazy.approx_bytes() >= eager.approx_bytes()
    lazy.table()
    assert lazy.approx_bytes() == eager.approx_bytes()


def test_the_pass_is_charged_when_the_distribution_is_made() -> None:
    """A budget too small for the pass refuses the distribution itself, not a later question."""
    rs = engine.load("chthonian", limits=Limits(max_work=5))
    with pytest.raises(LimitError) as caught:
        rs.distribution("standard", traits=1)
    assert caught.value.diagnostics[0].code == "RC503"


def test_a_pass_that_can_raise_raises_when_the_distribution_is_made() -> None:
    """A quotient by zero on one face, and rules with no row for one face: the error comes from
    `distribution(...)`, as it always did (the compiler did not leave these passes)."""
    rs = engine.load(
        KINDS
        + CHECK.format(name="divide", expr='"6 / (a - 3)"', rules=ELSE.format(test="x >= 2"))
        + CHECK.format(
            name="gap", expr='"a + t"', rules=NO_ELSE.format(test="x >= 3").replace("not (x >= 3)", "x < 2")
        )
    )
    for name, code in (("divide", "RC502"), ("gap", "RC501")):
        assert not rs.check(name).outcome_total
        with pytest.raises(EvalError) as caught:
            rs.distribution(name, t=1)
        assert caught.value.diagnostics[0].code == code


_LEAF = st.sampled_from(["a", "t", "0", "1", "2", "3"])


def _expr(depth: int) -> st.SearchStrategy[str]:
    if depth == 0:
        return _LEAF
    inner = _expr(depth - 1)
    return st.one_of(
        _LEAF,
        st.builds(lambda x: f"-({x})", inner),
        st.builds(
            lambda x, op, y: f"({x}) {op} ({y})",
            inner,
            st.sampled_from(["+", "-", "*", "/", "//", "%"]),
            inner,
        ),
        st.builds(lambda c, x, y: f"({x}) if ({c}) else ({y})", _test(depth - 1), inner, inner),
    )


def _test(depth: int) -> st.SearchStrategy[str]:
    inner = _expr(depth)
    compare = st.builds(
        lambda x, op, y: f"({x}) {op} ({y})",
        inner,
        st.sampled_from(["<", "<=", ">", ">=", "==", "!="]),
        inner,
    )
    return st.one_of(
        compare,
        st.builds(lambda p, op, q: f"({p}) {op} ({q})", compare, st.sampled_from(["and", "or"]), compare),
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_expr(2), _test(1), st.booleans(), st.integers(-5, 5))
def test_a_left_pass_never_raises_and_every_error_comes_from_distribution(
    expr: str, test: str, has_else: bool, t: int
) -> None:
    """Any value and test built from sums, products, quotients, orders and choices: where the
    compiler leaves the pass, running it raises nothing; either way, an error comes from
    `distribution(...)` and never from a later question, and the answer is the eager one."""
    text = KINDS + CHECK.format(
        name="probe",
        expr=f'"a - a + ({expr})"',  # read after the roll, in the pass
        rules=(ELSE if has_else else NO_ELSE).format(test=f"x == x and {test}"),  # the pass works out x
    )
    try:
        rs = engine.load(text)
    except RulecraftError:
        return  # not a well-typed check
    check = rs.check("probe")
    ctx = RunContext(DEFAULT_LIMITS, "always", Caches())
    bound = bind_inputs(check, {"t": t})
    try:
        eager = exact.distribution(_eager(check), bound, ctx).table()
    except RulecraftError as exc:  # made at once, the pass raised (or a value before the roll)
        with pytest.raises(type(exc)):  # then a left pass would not have raised here
            exact.distribution(check, bound, RunContext(DEFAULT_LIMITS, "always", Caches()))
        return
    lazy = exact.distribution(check, bound, RunContext(DEFAULT_LIMITS, "always", Caches()))
    assert lazy.table() == eager


PRODUCTS = """
rulecraft: 1
name: products
checks:
  small:
    inputs:
      t: {type: int, min: -5, max: 5, default: 2}
    roll:
      tens: {die: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}
      ones: {die: 10}
    let:
      roll: tens * 10 + ones
      scaled: (tens - 3) * -(ones * 2)
      by_input: tens * t
    outcomes: [low, high]
    outcome:
      - when: roll + scaled + by_input > 40
        then: high
      - else: low
  huge:
    roll:
      a: {die: [BIG, 2]}
    let:
      x: FACTORS
    outcomes: [low, high]
    outcome:
      - when: x > 0
        then: high
      - else: low
"""


def test_a_product_of_dice_is_written_without_the_bound_and_gives_the_same_numbers() -> None:
    """Products and sums of dice of constant whole faces, whole constants and whole-number inputs
    between whole bounds cannot pass the bound on a computed number: no check is written for them
    (one is for an input without both bounds); the numbers are those of the checked product,
    worked out by hand."""
    big, factors = 10**99, "a"
    rs = engine.load(PRODUCTS.replace("BIG", str(big)).replace("FACTORS", factors))

    def checks(rules: engine.Ruleset) -> int:
        program = rules.check("small").program
        return sum(
            1 for i in dis.get_instructions(program) if i.opname == "LOAD_GLOBAL" and i.argval == "_mul"
        )

    assert checks(rs) == 0  # t is within -5..5
    open_ended = PRODUCTS.replace("BIG", str(big)).replace("FACTORS", factors).replace(" max: 5,", "")
    assert checks(engine.load(open_ended)) >= 1  # `tens * t`, and the sum that reads it
    for t in range(-5, 6):
        want: dict[str, int] = {}
        for tens in range(10):
            for ones in range(1, 11):
                high = tens * 10 + ones + (tens - 3) * -(ones * 2) + tens * t > 40
                key = "high" if high else "low"
                want[key] = want.get(key, 0) + 1
        got = {s.name: p for s, p in rs.distribution("small", t=t).table() if p}
        assert got == {k: Fraction(n, 100) for k, n in want.items()}


@pytest.mark.parametrize(("count", "refused"), [(10, False), (11, True)])
def test_a_product_that_can_pass_the_bound_is_still_checked(count: int, refused: bool) -> None:
    """Ten factors of a hundred-digit face stay under the thousand-digit bound, unchecked; eleven
    can pass it, so the outer product is checked and refused (RC503) as it always was."""
    big = 10**99
    rs = engine.load(PRODUCTS.replace("BIG", str(big)).replace("FACTORS", " * ".join(["a"] * count)))
    if not refused:
        assert "_mul" not in rs.check("huge").program.__code__.co_names
        assert rs.distribution("huge").probability("high") == 1
        return
    with pytest.raises(LimitError) as caught:
        rs.distribution("huge")
    assert caught.value.diagnostics[0].code == "RC503"
