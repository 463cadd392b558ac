"""One effect that names several items is one change: its `when` and every amount are read from
the state as the effect found it (docs/language.md, effects). Hunt 13x: `{add: {a: 1, b: 1}, when:
"a == 0"}` added to `a` and then, reading `a` again, not to `b`; `{add: {a: 1, b: a}}` gave `b`
the new `a`. The exact distribution after an action (`Campaign.distribution`) is the same."""

from __future__ import annotations

import json

import pytest

import engine
from engine.state.memory import MemoryStore

RULES = """\
rulecraft: 1
name: entry
checks:
  k:
    roll: {d: {die: 2}}
    outcomes: [p, q]
    outcome: "'p' if d == 1 else 'q'"
state:
  shared:
    a: {counter: 0, max: 5}
    b: {counter: 0, max: 5}
    t: {tally: [x, y]}
actions:
  both:
    effects:
      - {add: {a: 1, b: 1}, when: "a == 0"}
  before:
    effects:
      - {add: {a: 1, b: a}}
  after:
    effects:
      - {add: {a: 1}}
      - {add: {b: a}}
  tallied:
    roll: {check: k}
    effects:
      - {add: {t: {x: 1}, b: "count(t, 'x') + (1 if outcome == 'q' else 0)"}}
"""


@pytest.mark.parametrize(
    ("action", "a", "b"),
    [("both", 1, 1), ("before", 1, 0), ("after", 1, 1)],
)
def test_an_entry_reads_the_state_it_found(action: str, a: int, b: int) -> None:
    c = engine.new_campaign("c", engine.load(RULES), store=MemoryStore())
    c.act(action)
    shared = c.show()["shared"]
    assert (shared["a"], shared["b"]) == (a, b), shared
    if action != "both":  # the exact state after it again: `before` adds the a it found (1)
        [(state, weight)] = c.distribution(action).weights.items()
        again = {"before": 1, "after": 2}[action]  # the a the entry found (1); the a `after` made (2)
        assert json.loads(state)["shared"]["b"] == b + again and weight == 1, state


def test_a_tally_entry_reads_the_tally_it_found() -> None:
    c = engine.new_campaign("c", engine.load(RULES), store=MemoryStore())
    c.act("tallied", forced={"d": 2})
    shared = c.show()["shared"]
    assert shared["t"] == {"x": 1} and shared["b"] == 1, shared  # count(t, 'x') was 0
