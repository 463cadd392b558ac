"""A campaign's counters and derived values are held to the bound of computed numbers.

Found by hunt 13g: products and quotients are refused past 1,000 digits (RC503), but sums are
not, so `set: {n: "n + n"}` again and again grew a counter past the 4,300 digits Python writes out
as text: the next action failed with a Python traceback (`ValueError: Exceeds the limit`). A
derived value so grown was worse: its action was written, then every `show` of the campaign, and
over HTTP every read of it, failed. Now an amount and a derived value are bounded where they are
worked out (`runtime.bounds.bounded`, RC503 at the expression), and a counter an effect takes past
the bound is refused at the effect (RC906), before anything is written.
"""

from __future__ import annotations

import pytest

import engine
from engine.errors import RulecraftError
from engine.state.memory import MemoryStore

RULES = """
rulecraft: 1
name: big
checks:
  r: {roll: {d: {die: 6}}, outcomes: [a], outcome: "'a'"}
state:
  shared:
    n: {counter: 6}
    m: {counter: 1}
    twice: {derived: "m + m"}
actions:
  up: {effects: [{set: {n: "n * 10 ** 99"}}]}
  up9: {effects: [{set: {n: "n * 10 ** 9"}}]}
  double: {effects: [{set: {n: "n + n"}}]}
  again: {effects: [{add: {n: "n"}}]}
  grow: {effects: [{set: {m: "n"}}]}
"""


def _near_the_bound(c) -> None:  # type: ignore[no-untyped-def]
    """n = 6 * 10**999, 1,000 digits, made by products each within the bound."""
    for _ in range(10):
        c.act("up")
    c.act("up9")
    assert c.state()["shared"]["n"] == 6 * 10**999


@pytest.mark.parametrize(
    ("action", "code", "said"),
    [
        ("double", "RC503", "a number this ruleset computes has more than 1000 digits"),
        ("again", "RC906", "'n' would have more than 1000 digits"),
        ("grow", "RC503", "derived value 'twice': a number this ruleset computes has more than 1000 digits"),
    ],
)
def test_a_number_past_the_bound_is_refused_before_it_is_written(action: str, code: str, said: str) -> None:
    store = MemoryStore()
    c = engine.new_campaign("b", engine.load(RULES), store=store)
    _near_the_bound(c)
    before, log = c.state(), c.log()
    with pytest.raises(RulecraftError) as raised:
        c.act(action)
    [d] = raised.value.diagnostics
    assert d.code == code and said in d.message, d.message
    again = engine.open_campaign("b", store=store, ruleset=engine.load(RULES))
    assert again.log() == log and again.state() == before
    assert str(again.show()["shared"]["n"]).startswith("6000")


def test_the_command_line_tells_it_without_a_traceback(tmp_path, cli) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "big.yaml"
    f.write_text(RULES, encoding="utf-8")
    db = str(tmp_path / "c.db")
    assert cli("campaign", "--db", db, "new", "b", str(f)).code == 0
    for _ in range(10):
        assert cli("campaign", "--db", db, "act", "b", "up").code == 0
    assert cli("campaign", "--db", db, "act", "b", "up9").code == 0
    r = cli("campaign", "--db", db, "act", "b", "grow")
    assert r.code != 0 and "Traceback" not in r.err and "error RC503" in r.err, r.err
    assert cli("campaign", "--db", db, "show", "b").code == 0
