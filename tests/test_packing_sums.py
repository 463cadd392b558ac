"""A node's successors written out as list displays (`packing.sums`, `packed.reads`): the very
lists the comprehensions they stand for make, read in the same order."""

from __future__ import annotations

from typing import Any

import pytest

from engine.eval import packed
from engine.runtime import packing

CODE = (1 << 170) + 12345
DELTAS = tuple((-1) ** k * ((k + 1) << (40 * k)) for k in range(12))


@pytest.mark.parametrize("n", range(12))
def test_sums_are_the_comprehension(n: int) -> None:
    deltas = DELTAS[:n]
    assert packing.sums(n)(CODE, deltas) == [CODE + d for d in deltas]


@pytest.mark.parametrize("n", range(12))
def test_reads_read_each_successor_once_in_order(n: int) -> None:
    deltas = DELTAS[:n]
    asked: list[int] = []

    def read(code: int) -> Any:
        asked.append(code)
        return code * 3

    assert packed.reads(n)(CODE, deltas, read) == [(CODE + d) * 3 for d in deltas]
    assert asked == [CODE + d for d in deltas]


def test_a_flight_of_up_to_eight_kinds_is_written_out() -> None:
    """Pools of up to eight kinds (every shipped one) take the written-out lists."""
    for n in range(9):
        assert packing.sums(n) is not packing._summed
        assert packed.reads(n) is not packed._read_all
