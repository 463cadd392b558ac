"""`Distribution.capped` under `never` (hunt 13n): the cap counted as ending a roll when all that
waited was a `may` step the policy declines, so a roll whose distribution the cap did not change
was told "a reroll cap ended the procedure with probability 7/72". A waiting step counts only
when it could act: a `must` step, or a `may` step under `always` or `optimal`."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

import engine

TEXT = """\
rulecraft: 1
name: capnever
checks:
  c:
    roll:
      p:
        pool: 2
        die: 6
        CAP
        triggers:
          - {on: face == 6, must: add, repeat: false}
          - {on: face == 1, MODE: reroll}
    outcomes: [lo, hi]
    outcome: "'hi' if sum(p) >= 9 else 'lo'"
"""


def _load(cap: bool, mode: str = "may") -> engine.Ruleset:
    return engine.load(TEXT.replace("CAP", "cap: 1" if cap else "").replace("MODE", mode))


def test_a_cap_that_leaves_only_declined_steps_waiting_ended_nothing() -> None:
    capped, free = (
        _load(True).distribution("c", policy="never"),
        _load(False).distribution("c", policy="never"),
    )
    assert capped.table() == free.table()  # the cap changed nothing under never
    assert capped.probability("hi") == Fraction(41, 108)
    assert capped.capped == 0


@pytest.mark.parametrize(("policy", "mode"), [("always", "may"), ("optimal", "may"), ("never", "must")])
def test_a_step_that_could_act_still_counts(policy: str, mode: str) -> None:
    # a 6 and a 1 first: the add takes the cap, and the reroll of the 1 (taken, or a `must`) waits
    d = _load(True, mode).distribution("c", policy=policy)
    assert d.capped > 0, (policy, mode)
    # two dice, each 1/6 a six, the rest: brute force of the first roll alone
    six_and_one = Fraction(2, 36)  # (6, 1) or (1, 6): the add is taken, the 1 waits
    assert d.capped >= six_and_one


def test_the_rolled_trace_says_no_cap_under_never() -> None:
    rs = _load(True)
    rolled = rs.roll("c", random.Random(0), forced={"p": [6, 1, 3]}, policy="never")
    assert not any(getattr(s, "cap", None) for s in rolled.trace)
    again = rs.roll("c", random.Random(0), forced={"p": [6, 1, 3]}, policy="always")
    assert any(getattr(s, "cap", None) for s in again.trace)
