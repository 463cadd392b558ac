"""A number written with an exponent is held to the same 100 digits as one written out.

Found by hunt 13g: `1e100` is one digit and an exponent of 100, which the text reader took, but it
is 101 digits once read, where `10**100` given as an int is refused (RC404). A character joined
with `lvl=1e100` was written, and every later read of the campaign failed ("damaged", RC903), so a
player could break a table's campaign; a campaign parameter so written was made and then refused.
"""

from __future__ import annotations

import pytest

import engine
from engine.errors import InputError
from engine.state.memory import MemoryStore

RULES = """
rulecraft: 1
name: mm
checks:
  r: {roll: {d: {die: 6}}, outcomes: [a], outcome: "'a'"}
state:
  campaign:
    k: {type: int, default: 0}
    w: {type: number, default: 1}
  character:
    lvl: {type: int, default: 1}
  each:
    hp: {counter: "lvl * 3", min: 0}
actions:
  note:
    inputs: {x: {type: int}}
    effects: []
"""


@pytest.mark.parametrize("written", ["1e100", "-1e100", "1e-100", "1E+100"])
def test_an_exponent_past_the_digits_is_refused_before_anything_is_written(written: str) -> None:
    store = MemoryStore()
    c = engine.new_campaign("m", engine.load(RULES), store=store, characters={"ann": {}})
    log = c.log()
    for attempt in (
        lambda: c.join("zed", params={"lvl": written}),
        lambda: c.act("note", x=written),
        lambda: engine.new_campaign("n", engine.load(RULES), store=store, params={"k": written}),
        lambda: engine.new_campaign("n", engine.load(RULES), store=store, params={"w": written}),
    ):
        with pytest.raises(InputError) as raised:
            attempt()
        [d] = raised.value.diagnostics
        assert d.code == "RC404" and "has more than 100 digits" in d.message, d.message
    assert c.log() == log and engine.open_campaign("m", store=store).state() == c.state()
    assert [row[0] for row in store.names()] == ["m"]


def test_the_longest_exponent_within_the_digits_is_kept_and_read_again() -> None:
    store = MemoryStore()
    c = engine.new_campaign("m", engine.load(RULES), store=store, params={"w": "1e-99", "k": "9e99"})
    c.join("zed", params={"lvl": "1e99"})
    again = engine.open_campaign("m", store=store, ruleset=engine.load(RULES))
    assert again.state()["characters"]["zed"]["items"]["hp"] == 3 * 10**99
    assert again.state()["params"]["k"] == 9 * 10**99
