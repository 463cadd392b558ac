"""A count or an amount that is a whole number held as a fraction is that whole number.

Found by hunt 13g: `add: {n: "x * 2"}` with a number input `x = 1/2` is 1, a `Fraction` of
denominator 1, and was refused with RC906 "'n' must be a whole number, got 1"; so were a tally's
amount, a `set`, and a counter's start `w * 4` with a number parameter `w = 0.5` (a campaign that
could not be made). `6 / 3` written as a constant was folded to an int and passed.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import engine
from engine.errors import CampaignError
from engine.state.memory import MemoryStore

RULES = """
rulecraft: 1
name: fr
checks:
  r: {roll: {d: {die: 6}}, outcomes: [a], outcome: "'a'"}
state:
  campaign:
    w: {type: number, default: 0.5}
  shared:
    n: {counter: "w * 4"}
    t: {tally: [a, b]}
actions:
  add:
    inputs: {x: {type: number}}
    effects: [{add: {n: "x * 2"}}]
  mark:
    inputs: {x: {type: number}}
    effects: [{add: {t: {a: "x * 2"}}}]
  put:
    inputs: {x: {type: number}}
    effects: [{set: {n: "x * 2"}}]
"""


def test_whole_fractions_count_as_whole_numbers() -> None:
    c = engine.new_campaign("c", engine.load(RULES), store=MemoryStore())
    assert c.state()["shared"]["n"] == 2  # 0.5 * 4
    c.act("add", x=Fraction(1, 2))
    c.act("add", x="3/2")
    c.act("add", x=0.5)
    assert c.state()["shared"]["n"] == 2 + 1 + 3 + 1
    c.act("mark", x="1/2")
    assert c.state()["shared"]["t"] == {"a": 1}
    c.act("put", x="5/2")
    assert c.state()["shared"]["n"] == 5
    assert type(c.state()["shared"]["n"]) is int


def test_a_fraction_that_is_not_whole_is_still_refused() -> None:
    c = engine.new_campaign("c", engine.load(RULES), store=MemoryStore())
    before = c.state()
    with pytest.raises(CampaignError) as raised:
        c.act("add", x="1/3")
    [d] = raised.value.diagnostics
    assert d.code == "RC906" and "'n' must be a whole number, got 2/3" in d.message
    assert c.state() == before
