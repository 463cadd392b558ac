"""What a roll that no outcome rule matched is told with (RC501's hint): each value once, named.

Found by hunt 13j: the dice were shown from the scope and then again, unnamed
(`nothing matched d = 3, e = 5, g = 1, 3, 5, 1`); a pool, which the scope's part leaves out, was
shown unnamed only, and the exact evaluator's pool, read through its statistics alone, as
`Summary(results={('sum',): 12})`.
"""

from __future__ import annotations

import pytest

import engine
from engine.errors import EvalError

THREE = """\
rulecraft: 1
name: fall
checks:
  f:
    inputs:
      bonus: {type: int, min: 0, max: 3, default: 0}
    roll:
      d: {die: 6}
      e: {die: 6}
      g: {die: 6}
    outcomes: [lo, hi]
    outcome:
      - when: d + bonus < 3
        then: lo
      - when: d + bonus > 3
        then: hi
"""
POOL = """\
rulecraft: 1
name: fallp
checks:
  f:
    roll:
      p: {pool: 3, die: 6}
    outcomes: [lo, hi]
    outcome:
      - when: sum(p) < 5
        then: lo
      - when: sum(p) > 12
        then: hi
"""


def _hint(raised: pytest.ExceptionInfo[EvalError]) -> str:
    [d] = raised.value.diagnostics
    assert d.code == "RC501" and d.hint is not None
    return d.hint


def test_each_die_is_shown_once_by_name() -> None:
    with pytest.raises(EvalError) as raised:
        engine.load(THREE).roll("f", forced={"d": 3, "e": 5, "g": 1})
    assert _hint(raised) == "add an 'else:' row; nothing matched bonus = 0, d = 3, e = 5, g = 1"


def test_a_pool_is_shown_by_name() -> None:
    with pytest.raises(EvalError) as raised:
        engine.load(POOL).roll("f", forced={"p": [3, 3, 3]})
    assert _hint(raised) == "add an 'else:' row; nothing matched p = [3, 3, 3]"


def test_the_exact_evaluators_pool_is_shown_by_its_statistics() -> None:
    with pytest.raises(EvalError) as raised:
        engine.load(POOL).distribution("f")
    hint = _hint(raised)
    assert hint.startswith("add an 'else:' row; nothing matched sum(p) = "), hint
    assert "Summary" not in hint
