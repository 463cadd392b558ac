"""The one multiset enumeration: how n independent dice fall by kind, with multinomial weights.

Pools (every multiset of their readings) and reroll procedures (how the rerolled dice fall)
share it."""

from __future__ import annotations

import math
from collections.abc import Iterator
from itertools import accumulate
from operator import mul

from .work import made_units, meter, product_units

FREE_KINDS = 16
"""Kinds a way lists within its unit (a game's pools: a few readings each)."""
KINDS_PER_UNIT = 8
"""Kinds past `FREE_KINDS` a way is charged a unit for: each way is a tuple of a count per kind,
made, walked to weigh it and walked again by whoever reads it, about 70 ns a kind (measured at
1,000 kinds: 72 µs a way). Charged a unit a way alone, 2 triggered d1000 of a thousand kinds
(500,500 ways) ran 63 s to their RC503 on the default budget."""


CLOCK_MASK = 0x1FFF
"""The deadline is looked at once every 8,192 ways listed (their units are charged before the list
is made, which looks at the clock only then)."""


def way_units(kinds: int) -> int:
    """Units for listing one way `kinds` kinds long (`KINDS_PER_UNIT`)."""
    return 1 + max(0, kinds - FREE_KINDS) // KINDS_PER_UNIT


def kind_multisets(weights: tuple[int, ...], n: int) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Every way `n` dice fall into kinds of the given face weights, with its number of ways
    (the weights sum to W**n). The current request is charged a unit per way before any is
    listed (more for a way of many kinds: `way_units`); where the numbers can grow long
    (`_long`), each way is charged besides for the length of the numbers its weight takes,
    before it is worked out."""
    out: list[tuple[tuple[int, ...], int]] = []
    work = meter()
    ways = math.comb(n + len(weights) - 1, len(weights) - 1) if weights else 1
    work.charge(ways * way_units(len(weights)))  # before listing
    sizes = [wt.bit_length() for wt in weights]
    long = _long(sizes, n)
    if long:  # the factorials, each from the one before, every one at most n**n
        work.charge(made_units(n * (n + 1) // 2 * n.bit_length()))
    fact = list(accumulate(range(1, n + 1), mul, initial=1))
    fact_bits = [f.bit_length() for f in fact] if long else []
    for counts in compositions(n, len(weights)):
        if not len(out) & CLOCK_MASK:  # a way is cheap, but millions are not: look at the deadline
            work.check_clock()
        if long:
            work.charge(_weight_units(counts, sizes, fact_bits))
        w = fact[n]
        for c, wt in zip(counts, weights):
            if c:
                w = w // fact[c] * wt**c
        out.append((counts, w))
    return tuple(out)


def _long(sizes: list[int], n: int) -> bool:
    """Whether the weights of `n` dice of kinds weighing `sizes` bits can grow long enough to be
    charged for their length (`product_units`): every number a weight's work makes is at most
    n! times the longest weight to the n, itself at most n**n times it. A game's dice stay short
    (100 d2 read whole: 900 bits), so a unit a way is all they are charged."""
    bound = n * (n.bit_length() + max(sizes, default=0))
    return product_units(bound, bound) > 0


def _weight_units(counts: tuple[int, ...], sizes: list[int], fact_bits: list[int]) -> int:
    """Units for working out the weight of one way the dice fall (`counts` by kind, of weights
    `sizes` bits long): n! divided, kind by kind, by c! and multiplied by the kind's weight to
    the c, each step a unit besides. Measured on the 2-core machine: a division takes about
    twice a product of its quotient by its divisor (`product_units`: 1.5-3 times, 3,000 to
    160,000 bits by 300 to 30,000); a power w**c of b bits about half a product of b/2 bits by
    itself (1.6 ms for 162,000 bits, charged 3,645 units; 285 µs for 54,000, 405; 6 µs for
    5,400, 4: long ones are multiplied faster than `product_units` counts). Together 0.6-1.1 µs
    a unit for 300 to 2,000 dice of two 53-bit weights or 1,000 to 6,000 of 1 bit, 0.34 µs for
    1,000 of 200 bits (whose powers are the longest)."""
    units = 0
    bits = fact_bits[-1]
    for c, size in zip(counts, sizes):
        if c:
            quotient = bits - fact_bits[c] + 1
            power = c * size
            units += 1 + 2 * product_units(quotient, fact_bits[c])
            units += product_units(power // 2, power // 2) // 2 + product_units(quotient, power)
            bits = quotient + power
    return units


def compositions(n: int, k: int) -> Iterator[tuple[int, ...]]:
    """All k-tuples of non-negative whole numbers summing to n, the largest first (descending
    order). A loop, not a recursion: a die of a thousand kinds must not reach Python's
    recursion limit."""
    if k == 0:
        if n == 0:
            yield ()
        return
    c = [0] * k
    c[0] = n
    last = k - 1
    while True:
        yield tuple(c)
        i = last - 1  # the last place before the end that can give one away
        while i >= 0 and not c[i]:
            i -= 1
        if i < 0:
            return
        c[i] -= 1
        moved = c[last] + 1  # the places between are zero: the tail is the last place
        c[last] = 0
        c[i + 1] = moved
