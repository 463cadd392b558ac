"""What the fold programme (`tables._folded`, `_folded_one`, `_per_folded`) charges past a unit
a step, where a step costs more than a unit: a statistic that keeps readings (`highest(p, k)`)
sorts, copies and keys by up to 2k of them a step, and makes a pool of each state it ends in
(`kept`); a step over fractions calls into Python for each sum, comparison and hash
(`fraction_units`).

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


FRACTION = 5
"""Units a statistic's step is charged where the readings, or the partial folds, may be
fractions (a pool over a list of numbers such as 1/2): a sum of `Fraction`s is a call into
Python that reduces by a gcd, a comparison is one too, and hashing one into the state's key
works out an inverse modulo a prime. Measured die by die (dice not alike; the loaded machine,
where a sum of whole numbers cost 0.9-1.3 µs a reading folded in, charged a unit): fractions of
one digit 7.0 µs a sum, 3.7 a highest, 10.2 both, 1.7 a count (whole numbers: 1.2-1.6 two
statistics, charged `tables.SEVERAL`)."""

FRACTION_BITS = 400
"""Bits of fractions (numerators and denominators: the reading's, for each statistic, and the
partial folds') a step handles in a unit past `FRACTION`: fractions whose denominators share no
factor multiply them, so a sum of dice each showing a fraction of 100 digits grows by 660 bits a
die. A reading folded in cost 37 µs over 30 such dice, 63 over 60 (the sum alone), 39 over 16
(sum and highest); 19 µs over 60 dice of 20-digit fractions, and over 40 of 5 digits (sum and
highest), on the machine and load above."""


def fractional(readings: Iterable[Any]) -> bool:
    """Whether any of `readings` is a fraction (`fraction_units`)."""
    return any(type(v) is Fraction for v in readings)


def fraction_bits(values: Iterable[Any]) -> int:
    """The bits of the numerators and denominators of the fractions among `values`."""
    return sum(v.numerator.bit_length() + v.denominator.bit_length() for v in values if type(v) is Fraction)


def fraction_units(partial: Iterable[Any], reading_bits: int) -> int:
    """Units for a step of the statistics whose partial folds are `partial`, where the readings
    may be fractions, of `reading_bits` bits at most (`fraction_bits`): `FRACTION` for each
    partial fold that is a fraction (a sum, an extreme reading), a unit for each other (a count:
    a step over whole numbers), and a unit for each `FRACTION_BITS` bits the fractions' steps
    add or compare, the reading's and their own."""
    units = bits = 0
    for p in partial:
        if type(p) is Fraction:
            units += FRACTION
            bits += reading_bits + p.numerator.bit_length() + p.denominator.bit_length()
        else:
            units += 1
    return units + bits // FRACTION_BITS
