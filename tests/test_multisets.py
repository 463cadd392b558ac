"""The one multiset enumeration (`engine.runtime.multisets`): every composition once, in the
order the evaluators rely on, without recursion (a die of a thousand kinds found by the fuzzer
once raised `RecursionError`)."""

from __future__ import annotations

import math
from collections.abc import Iterator

from hypothesis import given
from hypothesis import strategies as st

from engine.runtime.multisets import compositions, kind_multisets
from engine.runtime.work import Work, working


def _reference(n: int, k: int) -> Iterator[tuple[int, ...]]:
    """The recursive definition: the first place from n down, then the rest."""
    if k == 0:
        if n == 0:
            yield ()
        return
    if k == 1:
        yield (n,)
        return
    for first in range(n, -1, -1):
        for rest in _reference(n - first, k - 1):
            yield (first, *rest)


@given(st.integers(0, 7), st.integers(0, 6))
def test_compositions_are_the_recursive_definitions_in_its_order(n: int, k: int) -> None:
    found = list(compositions(n, k))
    assert found == list(_reference(n, k))
    assert len(found) == (math.comb(n + k - 1, k - 1) if k else int(n == 0))


def test_a_thousand_kinds_need_no_recursion() -> None:
    found = list(compositions(2, 1000))
    assert len(found) == math.comb(1001, 999)
    assert found[0] == (2,) + (0,) * 999 and found[-1] == (0,) * 999 + (2,)


def test_kind_multisets_weigh_every_way() -> None:
    weights = (1, 2, 3)
    ways = kind_multisets(weights, 3)
    assert sum(w for _, w in ways) == sum(weights) ** 3
    # each way by hand: the dice's orders times each kind's faces, e.g. (1, 2, 0) is 3 · 1 · 2² = 12
    for counts, w in ways:
        orders = math.factorial(3) // math.prod(math.factorial(c) for c in counts)
        assert w == orders * math.prod(f**c for f, c in zip(weights, counts)), counts
    assert dict(ways)[(1, 2, 0)] == 12


def _charged(weights: tuple[int, ...], n: int) -> int:
    """The units `kind_multisets` charges for `n` dice of kinds of these weights."""
    with working(Work(10**12)) as work:
        kind_multisets(weights, n)
    return work.used


def test_ways_of_long_weights_are_charged_for_their_length() -> None:
    """Review: each way was charged a unit whatever the length of the numbers its weight
    multiplies and divides (n! by each c!, times each weight to the c): 3,000 `each_die` dice of
    two readings read whole (53-bit weights, so numbers of 160,000 bits) ran 27 s on the default
    budget of about 2 s, with no RC503. 300 of them, 301 ways, took 25-40 ms for 301 units; now
    about a microsecond a unit (measured: 0.6-1.1 µs from 300 to 2,000 dice). A game's dice, whose
    numbers stay short, are charged a unit a way as before."""
    assert _charged((9 * 10**15, 10**15), 300) > 20_000
    assert _charged((1,) * 6, 10) == math.comb(15, 5)
    assert _charged((5, 3, 2, 1), 20) == math.comb(23, 3)
