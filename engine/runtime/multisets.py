"""The one multiset enumeration: how n independent dice fall by kind, with multinomial weights.

Pools (every multiset of their readings) and reroll procedures (how the rerolled dice fall)
share it."""

from __future__ import annotations

import math
from collections.abc import Iterator

from .work import meter


def kind_multisets(weights: tuple[int, ...], n: int) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Every way `n` dice fall into kinds of the given face weights, with its number of ways
    (the weights sum to W**n). The current request is charged a unit per way before any is listed."""
    out = []
    fact = [math.factorial(i) for i in range(n + 1)]
    meter().charge(math.comb(n + len(weights) - 1, len(weights) - 1) if weights else 1)  # before listing
    for counts in compositions(n, len(weights)):
        w = fact[n]
        for c, wt in zip(counts, weights):
            if c:
                w = w // fact[c] * wt**c
        out.append((counts, w))
    return tuple(out)


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
