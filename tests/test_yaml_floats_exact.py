"""A number YAML reads as a float where an expression goes is read as the file writes it, every
digit (as a value table's keys and an example's numbers are: `positions.decimal_text`), not as the
float: hunt 13y found `1.0000000000000000001` taken as 1 (so `v > 1` was false), and
`9007199254740993.0` as 9007199254740992. One that is not whole is RC103 with the quotes to write
(as `1.5` is), and one whose digits written out pass the limit of 100 (`1e308`: 309) is RC005,
as a literal of 101 digits is."""

from __future__ import annotations

import random

import pytest

import engine

RULES = """\
rulecraft: 1
name: floats
tables:
  r:
    params: {a: int}
    returns: number
    rules:
      - when: a == 1
        then: 123456789012345678901234567890.0
      - else: 0
checks:
  c:
    roll:
      d: {die: 2}
    let:
      v: VALUE
      b: r(d)
    outcomes: [lo, hi]
    outcome: "'hi' if v > 1 else 'lo'"
"""


def test_a_whole_float_is_read_with_every_digit() -> None:
    rs = engine.load(RULES.replace("VALUE", "9007199254740993.0"))
    values = rs.roll("c", forced={"d": 1}).values
    assert values["v"] == 9007199254740993 and type(values["v"]) is int
    assert values["b"] == 123456789012345678901234567890


@pytest.mark.parametrize("written", ["1.0000000000000000001", "2.00000000000000000000001"])
def test_a_float_that_is_not_whole_as_written_is_told_to_be_quoted(written: str) -> None:
    with pytest.raises(engine.RulecraftError) as error:
        engine.load(RULES.replace("VALUE", written))
    [d] = error.value.diagnostics
    assert (
        d.code == "RC103" and d.hint == f'an exact number is written as an expression, in quotes: "{written}"'
    )
    quoted = engine.load(RULES.replace("VALUE", f'"{written}"'))
    assert quoted.roll("c", rng=random.Random(1)).outcome.name == "hi"  # v > 1, exactly


@pytest.mark.parametrize(("written", "digits"), [("1e308", 309), ("1e-400", 400), ("1e100", 101)])
def test_a_float_past_the_digit_limit_written_out_is_rc005(written: str, digits: int) -> None:
    with pytest.raises(engine.RulecraftError) as error:
        engine.load(RULES.replace("VALUE", written))
    [d] = error.value.diagnostics
    assert (
        d.code == "RC005" and d.message == f"{written} has {digits} digits written out, over the limit of 100"
    )
    assert engine.load(RULES.replace("VALUE", "1e99")).roll("c", forced={"d": 2}).values["v"] == 10**99
