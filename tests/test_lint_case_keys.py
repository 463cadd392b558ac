"""RC802 for a table's case key or rule is judged over the calls the checks make, and those come
from the linter's grid of inputs: the grid tries the numbers in a key of a range or several values
as it tries a plain key, and a key or rule no call reaches over a grid that left inputs out is a
note, as a check's own rule is (hunt 13w: `"10..12": 1` over an input -100..100 was a warning that
it never fires, and `--strict` refused a correct ruleset)."""

from __future__ import annotations

import engine
from engine.tools.lint import lint

RANGE = """\
rulecraft: 1
name: t
tables:
  f:
    params: [x]
    cases:
      "10..12": 1
      "4, 6": 2
      "[20, 30]": 3
      else: 0
checks:
  c:
    inputs:
      x: {type: int, min: -100, max: 100, default: 0}
    outcomes: [a, b]
    outcome: "'a' if f(x) >= 1 else 'b'"
"""

FAR = """\
rulecraft: 1
name: t
tables:
  f:
    params: [x]
    rules:
      - when: x * 3 == 201
        then: 1
      - else: 0
checks:
  c:
    inputs:
      x: {type: int, min: 0, max: 10000, default: 0}
    outcomes: [a, b]
    outcome: "'a' if f(x) == 1 else 'b'"
"""


def test_keys_of_ranges_and_several_values_are_tried() -> None:
    found = lint(engine.load(RANGE))
    assert [d for d in found if d.code in ("RC802", "RC804")] == [], [d.render() for d in found]


def test_a_rule_no_call_of_a_partial_grid_reaches_is_a_note() -> None:
    """`x * 3 == 201` holds at 67, which a grid over 0..10000 may leave out."""
    found = [d for d in lint(engine.load(FAR)) if d.code == "RC802"]
    assert [d.severity for d in found] == ["note"], [d.render() for d in found]
    assert "a note, not a warning: the linter ran only some of the allowed input combinations" in (
        found[0].hint or ""
    )
