"""A draw's table of multisets (`tables._hypergeometric`, what a draw read whole is solved from)
against every set of chits that can be taken from the bag, one by one: the same multisets, each
weighed by how many sets of chits make it, over C(chits, drawn); and each multiset's `items` in
the bag's order of colours with its `tally` their counts (what hashing and the folds read)."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from math import comb

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.eval.tables import _hypergeometric
from engine.model.values import Symbol


def _bag(counts: list[int]) -> tuple[tuple[Symbol, int], ...]:
    return tuple((Symbol("colour", f"c{i}", i), n) for i, n in enumerate(counts))


def _by_hand(contents: tuple[tuple[Symbol, int], ...], k: int) -> Counter[tuple[tuple[Symbol, int], ...]]:
    """Every k of the bag's chits told apart, counted by how many of each colour they hold."""
    chits = [s for s, n in contents for _ in range(n)]
    ways: Counter[tuple[tuple[Symbol, int], ...]] = Counter()
    for taken in combinations(range(len(chits)), k):
        held = Counter(chits[i] for i in taken)
        ways[tuple((s, held[s]) for s, _ in contents if held[s])] += 1
    return ways


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=0, max_size=4), st.integers(0, 6))
def test_a_draw_table_counts_every_set_of_chits(counts: list[int], k: int) -> None:
    contents = _bag(counts)
    table = _hypergeometric(contents, k)
    assert table.total == comb(sum(counts), k)
    got = {m.tally: w for m, w in table.weights.items()}
    assert got == dict(_by_hand(contents, k))
    for m in table.weights:
        assert m.items == tuple(s for s, c in m.tally for _ in range(c))  # the bag's order of colours


def test_a_draw_of_more_chits_than_the_bag_holds_has_no_way() -> None:
    table = _hypergeometric(_bag([2, 1]), 4)
    assert table.total == 0 and not table.weights
