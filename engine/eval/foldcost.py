"""What the fold programme (`tables._folded`, `_folded_one`, `_per_folded`) charges past a unit
a step, where a step costs more than a unit: a statistic that keeps readings (`highest(p, k)`)
sorts, copies and keys by up to 2k of them a step, and makes a pool of each state it ends in.

Measured on the 2-core machine (loaded; CPU time): a step of `highest(p, k)` of 100 d20, which
handles (sorts, then keys by) 5.9 readings on average keeping 3, costs 1.2-1.5 µs keeping 3 or 5
(9.7 readings), 1.8 µs keeping 10 (18.8), 2.6 keeping 20 (34.7), 3.2 keeping 30 (48.8), 4.4
keeping 50 (64.3), 6.3 keeping 100 (75.1); charged a unit whatever k, `prob` of a check reading
`lowest(highest(p, k))` of 100 d20 ran 7.2 s to the default budget of about 2 s keeping 30, 9.1
s keeping 50 and 12.2 s (1.6 GB) keeping 100. And each state it ends in is made a pool in a
`Summary` and hashed, 7-12 µs (18 holding 100 readings), where a sum's result costs 2.5 µs and
a sum's states are few next to its steps: 12 d10 keeping 12 ended in 293,930 pools, 3.4 s of
its 5.6 s, for 1.1 million units.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from ..runtime.folds import Fold

KEPT_FREE = 8
"""Readings a step of a statistic that keeps readings (`Fold.holds`) sorts and keys by within
the unit the step is charged: keeping 5 or fewer costs about what it did (a step of 100 d20
keeping 5 handles 9.7 on average, and was charged 1.1 units for 1.0-1.2 times what keeping 3
costs)."""

KEPT_MADE = 6
"""Units for the pool made of each state a statistic that keeps readings ends in (and hashed,
by the count of each reading, in its `Summary`): 7-12 µs, where a unit is about 1-1.5 µs on the
loaded machine."""


def kept_a_unit(readings: Iterable[Any]) -> int:
    """How many readings past `KEPT_FREE` a step of a statistic that keeps them handles in a
    unit, by what they are: whole numbers compare and hash without a call into Python (20: so
    keeping 100 of 100 d20 is charged 4.3 units a step, keeping 30 3.0, keeping 10 1.5); a
    scale's values compare by one (4: a step of 60 of them cost 17.8 µs where 60 whole numbers
    cost 2.0); fractions compare and hash by several (1: 72 µs)."""
    kinds = {type(v) for v in readings}
    if Fraction in kinds:
        return 1
    return 20 if kinds <= {int, bool} else 4


def kept(folds: list[tuple[Fold, tuple[Any, ...]]]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Where among `folds` a statistic keeps readings, with the most it keeps (`Fold.holds`):
    all of them (each ends in pools: `kept_made`), and those whose steps may handle more than
    `KEPT_FREE` (`kept_units`; keeping 4 or fewer, a state is charged as it was, at no cost)."""
    keeping = [(i, k) for i, k in enumerate(f.holds(a) for f, a in folds) if k]
    return keeping, [(i, k) for i, k in keeping if 2 * k > KEPT_FREE]


def kept_units(held: int, left: int, k: int, every: bool, a_unit: int) -> int:
    """Units past a unit a step for the steps of a statistic that keeps up to `k` readings from
    a state that holds `held`, by every count c of dice from 0 to `left` (`every`) or by `left`
    alone: each sorts the `held` with c more (at most k) and keys the new state by them.
    `KEPT_FREE` readings a step are in its unit, then a unit for each `a_unit` (`kept_a_unit`)."""
    if not every:
        return max(0, held + min(left, k) - KEPT_FREE) // a_unit
    most = min(left, k)  # by c = 0 to `left` dice: c more readings each, at most k
    readings = (left + 1) * held + most * (most + 1) // 2 + (left - most) * k
    return max(0, readings - KEPT_FREE * (left + 1)) // a_unit


def kept_made(held: int, a_unit: int) -> int:
    """Units for the result made of a final state of a statistic that keeps readings, which holds
    `held` of them: `KEPT_MADE`, and a unit for each `a_unit` of them."""
    return KEPT_MADE + held // a_unit
