"""The cost model's estimate of the work of one fold (`tables._folded`, `_folded_one`,
`_per_folded`): the states it walks, bounded category by category and by the dice placed so far,
each priced as the exact evaluator charges a state (`foldcost.state_units`).

Priced as n · categories · final states steps, each at the most a keeping statistic handles,
the estimate ran 2-39 times over the charge for a statistic that keeps readings, or for two
(`sum(highest(p, 3))` with `lowest(lowest(p, 3))` of 6 d6 showing thirds: 259,056 units for
22,128), so cheap combinations were left out (RC809, review Z); and up to 280 times under it for
a pool of many dice (a majority of 80 d10: 8,030 units for 2.2 million), whose states take a
step for each count of the dice still to place.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from ...eval.foldcost import fold_price, longest_fraction, state_units
from ...model.values import normalize
from ...runtime.folds import FOLDS, KEPT, in_order, matches

SAMPLES = 12
"""Categories, and counts of dice placed, at which the states are counted and priced, at most:
past them each point stands for the block it ends (`_blocks`). One estimate then takes a few
tenths of a millisecond (a millisecond over 1,000 readings; a pool over a list, `list_work`,
about 4), where the linter makes one for each input combination; a fold of up to 14 readings
and 11 dice is counted at every point."""


def fold_work(keys: tuple[tuple[Any, ...], ...], readings: Sequence[Any], n: int, draw: bool) -> float:
    """Estimated units for folding `n` dice alike (or chits: `draw`) over these `readings` (one
    category each) into the statistics `keys` (`tables._folded`, `_folded_one`).

    The states that enter a category, by the dice placed m, are at most the multisets of m
    readings from the categories before it, and at most the different partial folds they show
    (`partial_folds`); each is charged its steps (one for each count of the dice left it may take)
    and what its kept readings cost, as the exact evaluator charges a state (`state_units`). A
    state that no reading can change (a `sum(highest(p, k))` once it keeps k) is not walked again.
    The states the exact evaluator meets are fewer (the statistics' partial folds are not
    independent; a majority's leader settles), so the estimate runs over the charge: 1-3.4 times
    over one or two statistics of 1-80 dice of 4-30 faces, whole or fractions, keeping 1-8
    (`tests/test_lint_work.py` holds a grid of them within 4 times); further over four that each
    keep or count (`highest(p, 3)`, `lowest(p, 3)`, `sum` and `count` of 20 d10: 26 times). It
    may run under it by a little (0.93 times at least over those shapes), where a block of
    `SAMPLES` stands for many points: the linter's try is stopped by its share anyway."""
    folds = [(FOLDS[key[0]], key[1:]) for key in keys]
    price = fold_price(folds, readings)
    bits = longest_fraction(readings) or None
    categories = len(readings)
    if not n or not categories:
        return 0.0
    ordered = {f.order for f, _ in folds if f.order}
    if ordered:  # taken as the exact evaluator takes them: the highest (or lowest) first
        try:
            readings = [v for v, _ in in_order(((v, 0) for v in readings), ordered.pop())]
        except TypeError:  # readings that do not compare: the evaluator fails on them too
            pass
    settle = _settles(keys)
    # a state settled before every die is placed is counted at once, not walked on
    placed = _blocks(0, n) if settle is None or settle >= n else [*_blocks(0, settle - 1), (n, 1)]
    single = len(keys) == 1 and not draw
    taken = [(0, 1), *_blocks(1, categories - 2), (categories - 1, 1)] if categories > 1 else [(0, 1)]
    # a state's units by the dice placed: in a category before the last (a step for each count
    # of the dice left), and in the last (which takes them all)
    priced = {}
    for m in dict.fromkeys((0, *(m for m, _ in placed))):
        partial, left = _partial(folds, m), n - m
        before_last = state_units(price, partial, left, left + 1, True, bits)
        priced[m] = (before_last, state_units(price, partial, left, left + 1 if single else 1, False, bits))
    total = 0.0
    for (c, weight), before in zip(taken, shown(keys, readings, [c for c, _ in taken])):
        last = c == categories - 1
        for m, across in placed if c else [(0, 1)]:
            total += weight * across * _states(keys, m, before) * priced[m][last]
    return total


class Dice(NamedTuple):
    """A pool over a list as the estimate reads it (`list_work`)."""

    readings: list[tuple[Any, ...]]
    """Each die's readings: every face's (`whole`), or where that would cost too much, the
    first and the last face's (the least and the most where they grow with the face)."""
    whole: bool
    faces: int
    """The most readings a die shows."""


def list_work(keys: tuple[tuple[Any, ...], ...], dice: Dice) -> float:
    """Estimated units for folding the dice of a pool over a list into the statistics `keys`,
    die by die (`tables._per_folded`; for a majority, every multiset of the readings so far,
    a unit a reading: `_per_multisets`): after m dice, the states are at most the multisets of
    each kind of die (those showing the same readings) together, and the partial folds of the
    readings those dice show together (`fold_work`); a sum's across the dice' spans. Measured
    over lists of 2-10 d6 or d10 showing `face + item` (items alike, spread, or halves and
    thirds): 0.6-2.7 times the charge for one statistic; for two, 0.5 times at least and up to
    12 (keeping 3 at each end, items spread from -5 to 4). Dearer to make than `fold_work`'s:
    about 4 ms a combination (review AC: `shown` for each die placed, and every face read up to
    `cost.PRICED_READINGS`), so `validate` of a check over a list input takes 1.5-2 times what it
    took before this estimate, for the same findings."""
    folds = [(FOLDS[key[0]], key[1:]) for key in keys]
    every = [v for readings in dice.readings for v in readings]
    price = fold_price(folds, every)
    bits = longest_fraction(every) or None
    majority = any(key[0] == "majority" for key in keys)
    placed = _blocks(0, len(dice.readings) - 1)
    union: dict[Any, None] = {}  # the readings of the dice so far, in order
    ends: list[int] = []  # how many of them the first m dice show, for each m placed
    sums: list[Shown] = []  # each die's own span and step: its sums reach across them
    seen = 0
    for m, _ in placed:
        for readings in dice.readings[seen:m]:
            union.update(dict.fromkeys(readings))
            sums += shown((), readings, [len(readings)])
        seen = m
        ends.append(len(union))
    total = 0.0
    for (m, weight), before in zip(placed, shown(keys, list(union), ends)):
        if not dice.whole:  # a few faces of each die read: as many as the faces of those not alike
            kinds = len(set(dice.readings[:m]))
            before = before._replace(taken=max(before.taken, kinds * dice.faces), span=None)
        elif m and all(die.span is not None for die in sums[:m]):
            # a sum of dice not alike: across their spans together, by a step all of them share
            # (given as m times a span, as a sum of m dice alike is)
            step = 0
            for die in sums[:m]:
                step = _gcd(step, die.step)
            before = before._replace(span=sum(die.span for die in sums[:m]) / Fraction(m), step=step)
        # the multisets of each kind of die (those showing the same readings) together, at most
        alike = Counter(dice.readings[:m])
        multisets = min(
            float(comb(m + before.taken - 1, before.taken - 1)),
            math.prod(float(comb(c + len(die) - 1, len(die) - 1)) for die, c in alike.items()),
        )
        states = multisets if majority else _states(keys, m, before, multisets)
        units = 1 if majority else state_units(price, _partial(folds, m), 1, 1, False, bits)
        total += weight * states * dice.faces * units
    return total


class Shown(NamedTuple):
    """What the partial folds are bounded by: the first `taken` readings."""

    taken: int
    span: Any
    """The most less the least of them where they are numbers, else None."""
    step: Any
    """What every difference between two of them is a whole multiple of (0: none differ)."""
    counted: tuple[int, ...]
    """For each statistic, how many of them a `count` counts (`folds.matches`; 0 for others)."""


def shown(keys: tuple[tuple[Any, ...], ...], readings: Sequence[Any], points: Sequence[int]) -> list[Shown]:
    """`Shown` for the first c readings, for each c of `points` (in order), in one pass."""
    out: list[Shown] = []
    least = most = None
    step: Any = 0
    counted = [0] * len(keys)
    taken = 0
    for c in points:
        for v in readings[taken:c]:
            if isinstance(v, (int, Fraction)) and not isinstance(v, bool):
                if least is None or most is None:
                    least = most = v
                step = _gcd(step, v - least)
                least, most = min(least, v), max(most, v)
            for i, key in enumerate(keys):
                if key[0] == "count" and (len(key) == 1 or matches(v, key[1])):
                    counted[i] += 1
        taken = max(taken, c)
        spread = most - least if most is not None and least is not None else None
        out.append(Shown(c, spread, step, tuple(counted)))
    return out


def _gcd(a: Any, b: Any) -> Any:
    """The greatest number both whole numbers or fractions `a` and `b` are whole multiples of."""
    if type(a) is int and type(b) is int:
        return math.gcd(a, b)
    a, b = Fraction(a), Fraction(b)
    common = a.denominator * b.denominator
    return normalize(Fraction(math.gcd(a.numerator * b.denominator, b.numerator * a.denominator), common))


def _blocks(first: int, last: int) -> list[tuple[int, int]]:
    """The points from `first` to `last` counted (`SAMPLES` at most), each with how many it
    stands for: each block's last point (where the states are most)."""
    count = last - first + 1
    if count <= 0:
        return []
    if count <= SAMPLES:
        return [(p, 1) for p in range(first, last + 1)]
    ends = [first - 1 + (count * (b + 1)) // SAMPLES for b in range(SAMPLES)]
    return [(end, end - start) for start, end in zip([first - 1, *ends], ends)]


def _partial(folds: list[tuple[Any, tuple[Any, ...]]], m: int) -> tuple[Any, ...]:
    """Partial folds of m dice as the price reads them: a keeping statistic's readings held
    (as many as it keeps of m), any other's a whole number (what fractions its partial folds
    hold is not known before the states are)."""
    return tuple((0,) * min(f.holds(a), m) if f.holds(a) else 0 for f, a in folds)


def _settles(keys: tuple[tuple[Any, ...], ...]) -> int | None:
    """The dice placed from which every statistic is settled (`Fold.settled`) whatever the dice
    left show, where that is known before they are: `sum(highest(p, k))` once it keeps k."""
    kept_sums = [key[1] for key in keys if key[0] in ("highest_sum", "lowest_sum")]
    if not keys or len(kept_sums) < len(keys):
        return None
    return int(max(kept_sums))


def _states(
    keys: tuple[tuple[Any, ...], ...], m: int, before: Shown, multisets: float | None = None
) -> float:
    """At most how many states of m dice placed over the readings `before`: multisets of them
    (or `multisets`, where fewer are known), and the partial folds they can show."""
    c = before.taken
    if m == 0 or c == 0:
        return 1.0 if m == 0 else 0.0
    if multisets is None:
        multisets = float(comb(m + c - 1, c - 1))
    folds = 1.0
    for i, key in enumerate(keys):
        folds *= partial_folds(key, m, before, i)
        if folds >= multisets:
            return multisets
    return folds


def partial_folds(key: tuple[Any, ...], m: int, before: Shown, i: int) -> float:
    """At most how many different partial folds statistic `key` (the i-th) shows over m dice of
    the readings `before`: for `sum` each sum of m of them, a `count` of 0 to m (one where it
    counts every reading or none), a kept k a multiset of k of them (`sum(highest(p, k))` the
    sum of them), a majority a leader and its count, any other statistic one reading."""
    name, c = key[0], before.taken
    if name == "sum":
        return _sums(m, before)
    if name == "count":
        return 1.0 if before.counted[i] in (0, c) else float(m + 1)
    if name in KEPT and len(key) > 1:
        k = min(key[1], m)
        if name in ("highest_sum", "lowest_sum"):
            return _sums(k, before)
        return float(comb(k + c - 1, c - 1))
    if name == "majority":
        return float(c * m)
    return float(max(1, c))


def _sums(m: int, before: Shown) -> float:
    """At most how many sums m of the readings `before` make: one for each multiple of their
    `step` across m times their span, else (not numbers) one per reading a die."""
    if before.span is None:
        return float(m * before.taken + 1)
    return float(m * before.span / before.step + 1) if before.step else 1.0


def comb(n: int, k: int) -> int:
    """A binomial coefficient, capped so that estimates never overflow a float (and worked out
    no further than the cap: a pool of a million dice over a thousand readings)."""
    k = min(k, n - k)  # the shorter way round: C(n, n - 1) in one step, not n - 1
    if k <= 0:
        return 1
    value = 1
    for i in range(1, k + 1):
        value = value * (n - k + i) // i
        if value > 10**15:
            return 10**15
    return value
