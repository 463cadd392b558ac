"""A scene over a wide state (many items a character): its bounds check reads one view.

A hunt found a scene whose party has 1,500 plain counters and a random walk on one more: each
new state's bounds check copied the whole view once for every counter (O(items²), about 28 ms a
state), and a node of the exact solve was charged a flat 120 units and its weights whatever the
state's width, so the solve ran past 200 s of CPU and 3.7 GB under the default budget with no
RC503 (over HTTP the worker missed its deadline and was killed). No test here times anything.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

import engine
import engine.runtime.state as runtime_state


def wide(items: int, far: int) -> str:
    """A party with `items` plain counters besides `x`, which walks ±1 from 1 until 0 or `far`."""
    counters = "\n".join(f"    i{k}: {{counter: {k}, min: 0}}" for k in range(items))
    return f"""\
rulecraft: 1
name: wide
checks:
  c:
    roll: {{d: {{die: 2}}}}
    outcomes: [dn, up]
    outcome: "'up' if d == 2 else 'dn'"
state:
  each:
    x: {{counter: 1, min: 0, max: 100000}}
{counters}
actions:
  walk:
    by: character
    roll: {{check: c}}
    effects:
      - {{add: {{x: 1}}, when: "outcome == 'up'"}}
      - {{remove: {{x: 1}}, when: "outcome == 'dn'"}}
scenes:
  s:
    parties: [p]
    round:
      - {{act: walk, by: p}}
    ends:
      - {{when: p.x == 0, then: zero}}
      - {{when: "p.x >= {far}", then: far}}
    max_rounds: 10
"""


def test_a_bounds_check_gives_every_bound_the_one_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bounds are "evaluated on the current state each time they are checked" (docs/language.md,
    Counters): the state is the same for every bound of one check, so they read one view, not a
    copy of it each (a copy a counter made a state's check O(items²))."""
    rs = engine.load(wide(3, 4))
    views: list[list[dict[str, Any]]] = []
    owner = runtime_state._check_owner

    def check(items: Any, env: dict[str, Any], effect: Any) -> None:
        views.append([])
        owner(items, env, effect)

    def seen(bound: Any) -> Any:
        def run(env: dict[str, Any]) -> Any:
            views[-1].append(env)
            return bound(env)

        return run

    monkeypatch.setattr(runtime_state, "_check_owner", check)
    rules = rs.model.state
    assert rules is not None
    bounds = [rules.each[name].minimum for name in ("i0", "i1", "i2")]
    runs = [b.run for b in bounds if b is not None]
    for b, run in zip(bounds, runs):
        object.__setattr__(b, "run", seen(run))  # an Expr is frozen
    try:
        assert rs.scene_odds("s").probability("far") == Fraction(1, 4)
    finally:
        for b, run in zip(bounds, runs):
            object.__setattr__(b, "run", run)
    checks = [v for v in views if v]  # (the table's items, none here, are checked apart)
    assert checks and all(len(v) == 3 for v in checks)
    assert all(v[0] is v[1] is v[2] for v in checks)
