"""A reroll chain's first roll is bounded, as a pool's multisets are, and looks at the deadline.

Found by hunt 13j: the ways a triggered pool's first roll falls, by kind, are listed whole before
its chain is solved, and nothing bounded how many: 15 d10 of ten kinds (1,307,504 ways) ran 3.7 s
and 511 MB under the default limits before the work budget refused it, and with the budget raised
and a deadline of 2 s, 18 dice ran 12.9 s to 1.8 GB (20 dice: a `MemoryError` traceback). Now the
ways are held to `max_states` before any is listed (RC503, as the chain's states are, and a
plain pool's multisets), and the listing and the start of the chain look at the deadline as they go.
"""

from __future__ import annotations

import math
import random
import time

import pytest

import engine
from engine.errors import DeadlineError, LimitError
from engine.runtime.multisets import kind_multisets
from engine.runtime.work import Work, working

RULES = """\
rulecraft: 1
name: heavy
checks:
  h:
    inputs:
      n: {type: int, min: 1, max: 40, default: 20}
    roll:
      p:
        pool: n
        die: 10
        triggers:
          - {name: r, on: face == 1, may: reroll, target: face <= 4}
    outcomes: [lo, hi]
    outcome: "'hi' if (sum(p) + 0 * max(p)) % 7 == 3 else 'lo'"
"""
"""Read by `max(p)` too, so that its faces 5-10 are kinds apart: read by its sum alone, they are
summed (`Procedure.summed`) and its first rolls are made one die at a time as codes
(`RerollSolver.summed_starts`), which `tests/test_summed_kinds.py` bounds."""


def test_the_first_rolls_ways_are_held_to_max_states_before_any_is_listed() -> None:
    rules = engine.load(RULES)
    assert math.comb(15 + 9, 9) == 1_307_504  # ten kinds: 1, 2-4 (its targets) and 5-10 apart
    with pytest.raises(LimitError) as raised:
        rules.distribution("h", n=15)
    [d] = raised.value.diagnostics
    assert d.code == "RC503"
    assert d.message == "the reroll chain has more than 200,000 states", d.message
    assert d.span is not None and d.span.line == 8  # the pool
    assert "max_states" in (d.hint or ""), d.hint


def test_within_the_bound_it_is_solved_as_before() -> None:
    rules = engine.load(RULES, limits=engine.Limits(max_work=10**8))
    d = rules.distribution("h", n=3)  # 220 ways
    rolled = rules.sample("h", 20_000, random.Random(3), n=3)
    assert d.probability("hi") + d.probability("lo") == 1
    assert abs(rolled.outcomes["hi"] / 20_000 - float(d.probability("hi"))) < 0.02


def test_listing_the_ways_looks_at_the_deadline() -> None:
    # 11,440 ways: charged below the units between two looks at the clock (`CLOCK_EVERY`), so
    # only the listing's own look can see that the deadline has passed
    late = Work(10**12, 0.5, until=time.monotonic() - 1)
    assert math.comb(7 + 9, 9) == 11_440
    with working(late), pytest.raises(DeadlineError):
        kind_multisets((1,) * 10, 7)


def test_a_raised_bound_leaves_the_deadline_in_force() -> None:
    """2,042,975 ways: 6-7 s of CPU listing them and starting the chain before the deadline was
    looked at again; now a fraction of a second past it (freeing what was listed)."""
    rules = engine.load(RULES, limits=engine.Limits(max_states=10**8, max_work=10**9, deadline=0.3))
    cpu = time.process_time()
    with pytest.raises(DeadlineError):
        rules.distribution("h", n=16)
    assert time.process_time() - cpu < 2.5
