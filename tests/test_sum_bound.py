"""A sum, a difference or a remainder a ruleset computes is held to the bound of computed numbers
(1,000 digits, RC503) as products and quotients are (docs/security.md). Hunt 13y: seven fractions
of 1,000 digits each summed to a denominator of some 7,000 digits, and every command that showed
the value (roll, roll --json, prob --value, a campaign's roll) ended in Python's "Exceeds the limit
(4300 digits)" traceback, an HTTP 500 over the API."""

from __future__ import annotations

import random

import pytest

import engine
from engine.errors import LimitError

SUM = """\
rulecraft: 1
name: sums
checks:
  c:
    inputs:
      x: {type: int, min: 0, max: 3, default: 3}
    roll:
      d: {die: 6}
    let:
      v: EXPR
    outcomes: [lo, hi]
    outcome: "'hi' if v > 0 and d > 3 else 'lo'"
"""

TERMS = ["1/(x+8)**900", "1/(x+10)**800", "1/(x+14)**700", "1/(x+16)**700", "1/(x+26)**600"]


@pytest.mark.parametrize(
    "expr",
    [
        " + ".join(TERMS),
        " - ".join(TERMS),
        # a remainder's denominator is as long as its operands' together
        "(1/(x+8)**900) % (1/(x+10)**800) + (1/(x+14)**700) % (1/(x+16)**700)",
    ],
    ids=["sum", "difference", "remainder"],
)
def test_a_sum_past_the_bound_is_refused_at_its_operator(expr: str) -> None:
    rs = engine.load(SUM.replace("EXPR", expr))
    for ask in (lambda: rs.roll("c", rng=random.Random(1)), lambda: rs.distribution("c").value("v")):
        with pytest.raises(LimitError) as error:
            ask()
        [d] = error.value.diagnostics
        assert d.code == "RC503" and "more than 1000 digits" in d.message, d.render()
        assert d.span is not None and d.span.line == SUM.splitlines().index("      v: EXPR") + 1


def test_a_sum_within_the_bound_is_made_exactly() -> None:
    rs = engine.load(SUM.replace("EXPR", "1/(x+8)**100 + 1/(x+10)**100"))
    v = rs.roll("c", rng=random.Random(1)).values["v"]
    assert v == pytest.approx(0) and v.denominator == (11**100 * 13**100)


def test_sums_of_bounded_inputs_and_values_before_the_roll_carry_no_check() -> None:
    """The check added to sums stays out of code it could never fail: a whole-number input
    between whole bounds, and a value before the roll made of them (`target + 10 * tokens`), are
    bounded when the ruleset loads (the read of the change: the Chill check's value before the
    roll had carried one)."""
    rs = engine.load("chill")
    check = rs.model.checks["specific"]
    let = next(let for let in check.lets if let.name == "final_target")
    assert let.before_roll and "_mul" not in let.expr.run.__code__.co_names, let.expr.run.__code__.co_names
    open_ended = engine.load(SUM.replace("EXPR", "x + x").replace(" max: 3,", ""))
    value = next(let for let in open_ended.model.checks["c"].lets if let.name == "v")
    assert value.before_roll and "_mul" in value.expr.run.__code__.co_names  # x has no max: checked
