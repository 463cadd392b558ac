"""Every face of a pool with triggers is read (its `each:`, its triggers' `on` and `target`) when
the roll begins, whatever the dice show: a table with no row for a face no die showed failed the
roll with "nothing matched f = 2" where the dice showed 3 and 4 (hunt 13p). The refusal stands (the
rules are incomplete, and the linter says so), and its hint now says where it was met."""

from __future__ import annotations

import pytest

import engine
from engine.errors import EvalError

GAP = """
rulecraft: 1
name: gap
tables:
  tr:
    params: {f: int}
    returns: bool
    rules:
      - when: f == 1
        then: false
      - when: f >= 3
        then: "f == 6"
checks:
  k:
    roll:
      p:
        pool: 2
        die: 6
        triggers:
          - {on: tr(face), must: add}
        cap: 2
    outcomes: [lo, hi]
    outcome: "'hi' if sum(p) >= 9 else 'lo'"
"""


def test_a_face_no_die_showed_is_named_as_read_when_the_roll_began() -> None:
    rs = engine.load(GAP)
    with pytest.raises(EvalError) as error:
        rs.roll("k", forced={"p": [3, 4]})
    [d] = error.value.diagnostics
    assert d.code == "RC501"
    assert d.hint == (
        "add an 'else:' row; nothing matched f = 2; met reading face 2 of 'p' with its triggers, "
        "as every face is when the roll begins, whatever the dice show"
    ), d.hint
