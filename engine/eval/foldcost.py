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

from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from ..runtime.folds import Fold
from ..runtime.work import Work


class KeptRate(NamedTuple):
    """What a step of a statistic that keeps readings (`Fold.holds`) is charged for those it
    sorts and keys by, by what they are (`kept_rate`)."""

    free: int
    """Readings a step handles within the unit the step is charged."""
    units: int
    """Units for each `per` readings past those."""
    per: int


WHOLE = KeptRate(8, 1, 20)
"""Whole numbers compare and hash without a call into Python: a step keeping 5 or fewer costs
about what it did (a step of 100 d20 keeping 5 handles 9.7 on average, charged 1.1 units for
1.0-1.2 times what keeping 3 costs), and keeping 100 of 100 d20 is charged 4.3 units a step,
keeping 30 3.0, keeping 10 1.5."""

SCALED = KeptRate(0, 1, 4)
"""A scale's values compare by a call into Python: a step of 6 of them cost 1.8 µs where 6 whole
numbers cost 1.0, a step of 60 17.8 µs where whole numbers cost 2.0."""

FRACTIONS = KeptRate(0, 2, 1)
"""Fractions compare, and hash, by calls into Python: a step of 6 cost 7.1 µs, of 60 72 µs (with
`FRACTION` for the step, as any statistic's over fractions); 60 d6 showing thirds, keeping 30,
cost 1.8 times as much a unit as whole numbers charged a unit a reading, and as much at two."""

KEPT_MADE = 6
"""Units for the pool made of each state a statistic that keeps readings ends in (and hashed,
by the count of each reading, in its `Summary`): 7-12 µs, where a unit is about 1-1.5 µs on the
loaded machine; and what its readings are charged a step (`KeptRate`)."""


KEPT_BITS = 40
"""Bits of fractions (the longest reading's numerator's and denominator's) for which a kept one
is charged `FRACTIONS.units` again, in proportion (thirds as they were): its hash works out an
inverse modulo a prime, and each comparison multiplies across, both slower the longer the
fraction. Measured (`highest(p, 5)` of 12 dice, each showing a reading and a fraction of the
list, as `face + item`; and 12 d10 showing `face + x`): charged at the flat rate, 12-13 digit
fractions (83 bits) cost 2.1-3 times as much a unit as thirds, 4-5 digit ones (30 bits) 1.2-1.9
times; charged so, 0.9-1.5 µs a unit, as thirds."""


def kept_rate(readings: Iterable[Any]) -> KeptRate:
    """What a step of a statistic that keeps these readings is charged for them (`KeptRate`);
    fractions by the longest one's bits (`KEPT_BITS`)."""
    readings = list(readings)
    kinds = {type(v) for v in readings}
    if Fraction in kinds:
        units = FRACTIONS.units * (KEPT_BITS + longest_fraction(readings)) // KEPT_BITS
        return FRACTIONS._replace(units=units)
    return WHOLE if kinds <= {int, bool} else SCALED


def kept(
    folds: list[tuple[Fold, tuple[Any, ...]]], rate: KeptRate
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Where among `folds` a statistic keeps readings, with the most it keeps (`Fold.holds`):
    all of them (each ends in pools: `kept_made`), and those whose steps may handle more than
    `rate.free` (`kept_units`; whole numbers keeping 4 or fewer: a state is charged as it was, at
    no cost)."""
    keeping = [(i, k) for i, k in enumerate(f.holds(a) for f, a in folds) if k]
    return keeping, [(i, k) for i, k in keeping if heavy(k, rate)]


def heavy(k: int, rate: KeptRate) -> bool:
    """Whether a step of a statistic that keeps up to `k` readings may handle more than
    `rate.free` (the k it holds and as many it adds), so is charged for them (`kept_units`)."""
    return 2 * k > rate.free


def kept_units(held: int, left: int, k: int, every: bool, rate: KeptRate) -> int:
    """Units past a unit a step for the steps of a statistic that keeps up to `k` readings from
    a state that holds `held`, by every count c of dice from 0 to `left` (`every`) or by `left`
    alone: each sorts the `held` with c more (at most k) and keys the new state by them."""
    if not every:
        return max(0, held + min(left, k) - rate.free) * rate.units // rate.per
    most = min(left, k)  # by c = 0 to `left` dice: c more readings each, at most k
    readings = (left + 1) * held + most * (most + 1) // 2 + (left - most) * k
    return max(0, readings - rate.free * (left + 1)) * rate.units // rate.per


def kept_made(held: int, rate: KeptRate) -> int:
    """Units for the result made of a final state of a statistic that keeps readings, which holds
    `held` of them (`KEPT_MADE`)."""
    return KEPT_MADE + held * rate.units // rate.per


SEVERAL = 2
"""Units `_folded` charges a step when it folds several statistics at once: a step then makes
the list of their steps, asks each whether it is `settled` and keys the state by them, 2.1-2.8
µs whatever the statistics (highest and lowest of 10 d150, sum and count of 60 d6, sum, highest
and count of 60 d6, highest, lowest and count of 15 d30, sum and count of 20 chits drawn from
300; the 2-core machine, a little loaded), where one statistic's step costs 0.6-1 µs and is
charged a unit. (A unit a statistic, a430c42, overcharged three: faff439.)"""


def step_unit(folds: Sequence[Any]) -> int:
    """Units a step of these statistics is charged over readings that are not fractions: a unit
    for one, `SEVERAL` for several folded at once."""
    return 1 if len(folds) == 1 else SEVERAL


FRACTION = 3
"""Units a statistic's step is charged where the readings may be fractions (a pool over a list
of numbers such as 1/2, `each: face / 2`), but for a sum (`FRACTION_SUM`): a comparison of
`Fraction`s is a call into Python, and hashing one into the state's key works out an inverse
modulo a prime. Measured on the loaded machine, where a step over whole numbers charged a unit
cost 0.9-1.3 µs: 2.7-3.7 µs a step of a highest (one digit fractions; 1.7 a count)."""

FRACTION_SUM = 6
"""`FRACTION` for a statistic that adds the readings (`Fold.adds`): each sum reduces by a gcd,
also a call into Python: 7.0-7.3 µs a step of a sum (10.2 a sum and a highest, 10 a sum and a
count), dice alike or not."""

LONG_FRACTION = 8
"""Units more for a step whose fractions (`fraction_units`) have over `LONG_BITS` bits in all:
past a machine word, Python's whole numbers take slower ways, and a gcd of long ones many
steps. Measured with `FRACTION_BITS`: below."""

LONG_BITS = 256

FRACTION_BITS = 400
"""Bits of fractions (numerators and denominators: the reading's, once for each statistic, and
each partial fold's that is a fraction) a step handles in a unit past the others: fractions
whose denominators share no factor multiply them, so a sum of dice each showing a fraction of
100 digits grows by 660 bits a die. In units of a step over whole numbers (0.8-1.3 µs), a step
cost 20 over 40 dice of 5-digit fractions (a sum and a highest, 900 bits on average), 22 over
60 dice of 20-digit ones (a sum, 5,300 bits), 43 over 30 dice of 100 digits (a sum, 14,000),
71 over 60 (27,000), 46 over 16 (a sum and a highest, 9,300); and a sum of 30 dice alike each
showing a 100-digit fraction 20 (2,000 bits)."""


def fraction_base(folds: list[tuple[Fold, tuple[Any, ...]]]) -> int:
    """Units for a step of these statistics where the readings may be fractions, before their
    length: `FRACTION_SUM` for a statistic that adds them, `FRACTION` for any other."""
    return sum(FRACTION_SUM if f.adds else FRACTION for f, _ in folds)


def longest_fraction(readings: Iterable[Any]) -> int:
    """The bits (numerator's and denominator's) of the longest fraction among `readings`, 0 when
    none is a fraction: what `fraction_units` is told of a step's reading."""
    return max(
        (v.numerator.bit_length() + v.denominator.bit_length() for v in readings if type(v) is Fraction),
        default=0,
    )


def fraction_units(base: int, statistics: int, reading_bits: int, partial: Iterable[Any]) -> int:
    """Units for a step of `statistics` statistics (`fraction_base`: `base`) whose readings may
    be fractions of `reading_bits` bits at most (`longest_fraction`), from the partial folds
    `partial`: `base`, `LONG_FRACTION` more past `LONG_BITS` bits, and a unit for each
    `FRACTION_BITS` (the reading's for each statistic, and those of each partial fold that is a
    fraction)."""
    bits = statistics * reading_bits
    for p in partial:
        if type(p) is Fraction:
            bits += p.numerator.bit_length() + p.denominator.bit_length()
    return base + (LONG_FRACTION if bits > LONG_BITS else 0) + bits // FRACTION_BITS


class FoldPrice(NamedTuple):
    """What the fold programme charges a state of these statistics over these readings for its
    steps (`fold_price`, `state_units`), worked out once a fold."""

    unit: int
    """A step's units where the readings are not fractions (`step_unit`)."""
    base: int
    """A step's units where they may be, before their length (`fraction_base`)."""
    statistics: int
    rate: KeptRate
    """What kept readings are charged (`kept_rate`)."""
    keeping: list[tuple[int, int]]
    """The statistics that keep readings, with the most each keeps (`kept`): charged for the
    pools their final states make (`charge_made`)."""
    dear: list[tuple[int, int]]
    """Those whose steps are charged for the readings they handle (`kept`)."""


def fold_price(folds: list[tuple[Fold, tuple[Any, ...]]], readings: Iterable[Any]) -> FoldPrice:
    """How a fold of these statistics over these readings is charged (`FoldPrice`)."""
    rate = kept_rate(readings)
    keeping, dear = kept(folds, rate)
    return FoldPrice(step_unit(folds), fraction_base(folds), len(folds), rate, keeping, dear)


def state_units(
    price: FoldPrice, partial: Sequence[Any], left: int, steps: int, every: bool, bits: int | None
) -> int:
    """Units for a state whose partial folds are `partial`, with `left` dice to place: `steps`
    steps, each a unit (`price.unit`) or, where the readings may be fractions (`bits`, the
    longest one's, not None), `fraction_units`; and for each statistic whose steps handle more
    kept readings than their unit covers, those readings (`kept_units`, by every count of the
    `left` dice or by `left` alone). The one rule `tables._folded`, `_folded_one` and
    `_per_folded` charge a state by."""
    units = steps * (
        price.unit if bits is None else fraction_units(price.base, price.statistics, bits, partial)
    )
    for i, most in price.dear:
        units += kept_units(len(partial[i]), left, most, every, price.rate)
    return units


def units_by_left(
    price: FoldPrice, most: int, counts: bool, every: bool, bits: int | None
) -> list[int] | None:
    """`state_units` of a state with 0 to `most` dice left, taking `left + 1` steps (`counts`: one
    for each count of them) or one, where nothing else changes it (no fractions, no kept readings
    charged; None where they do): the folds' loops read it from this list, where a call a state
    cost a sum of 3 d100 18 % more instructions (callgrind), of 12 d20 8 %."""
    if price.dear or bits is not None:
        return None
    return [state_units(price, (), left, left + 1 if counts else 1, every, None) for left in range(most + 1)]


def charge_made(work: Work, partial: Sequence[Any], price: FoldPrice) -> None:
    """Charge `work` for the pools a final state makes, whose partial folds are `partial`: one
    for each statistic that keeps readings (`price.keeping`), as `kept_made`."""
    if price.keeping:
        work.charge(sum(kept_made(len(partial[i]), price.rate) for i, _ in price.keeping))


def made_estimate(folds: list[tuple[Fold, tuple[Any, ...]]], readings: Sequence[Any], n: int) -> int:
    """What the linter's cost model prices each final state of these statistics of `n` dice at:
    for each that keeps readings, the pool it ends in (`kept_made`, holding up to k of them)."""
    rate = kept_rate(readings)
    return sum(kept_made(min(k, n), rate) for _, k in kept(folds, rate)[0])
