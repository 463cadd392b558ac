"""A pool over a list (dice not alike) read only through statistics is folded die by die
(`tables._per_folded`): each reading folded into a state is charged what it costs, and the
states are bounded by `max_states`, as a pool over a list listed by its multisets is."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

import engine
from engine.eval import foldcost, tables
from engine.model.ruleset import Pool
from engine.runtime.work import Work, working

RACE = """\
rulecraft: 1
name: race
checks:
  race:
    inputs:
      rivals: {type: list, of: number, min: -5, max: 5, min_length: 0, max_length: 100, default: [0, 1]}
    roll:
      theirs: {pool: rivals, die: 6, each: face + item}
    outcomes: [lose, win]
    outcome: "'win' if sum(theirs) > 20 * highest(theirs) else 'lose'"
"""
RIVALS = [Fraction(i % 11 - 5, i % 7 + 1) for i in range(12)]  # hunt 2's list, cut to 12


def _units(dice: tuple[tuple[tuple[Any, int], ...], ...], keys: tuple[tuple[Any, ...], ...]) -> int:
    """The units charged to fold `keys` over `dice` die by die."""
    pool = engine.load(RACE).check("race").roll[0]
    assert isinstance(pool, Pool)
    with working(Work(10**12)) as work:
        tables._per_folded(dice, keys, 10**9, pool)
    return work.used


def test_a_step_over_fractions_is_charged_what_it_costs() -> None:
    """Hunt 2, item 4: a reading folded into a state was charged a unit, where a sum of fractions
    reduces by a gcd and hashes by a modular inverse, each a call into Python (7 µs a sum, 10
    a sum and a highest); a race against 60 rivals of fractional bonuses ran 24 s of CPU to the
    default budget of about 2 s, 40 rivals 6 s to an answer. Now `FRACTION_SUM` units a step of a
    sum, `FRACTION` of any other statistic, more for long fractions (`LONG_FRACTION`, and a unit
    for each `FRACTION_BITS` bits): the 60 rivals stop in about 2 s, 30 too (an answer in 4.4 s
    before)."""
    half, whole = (Fraction(1, 2), 1), (1, 1)
    # ten dice each showing 1/2 or 3/2 (or 1 or 3): after d dice, d + 1 sums, each stepped by both
    # readings (110 steps, a unit each before), a sum of fractions each
    assert _units(((whole, (3, 1)),) * 10, (("sum",),)) == 110
    assert _units(((half, (Fraction(3, 2), 1)),) * 10, (("sum",),)) == 110 * foldcost.FRACTION_SUM
    # a sum and a count: the count's step is charged as any other over fractions
    assert _units(((half,),) * 2, (("sum",), ("count",))) == 2 * (foldcost.FRACTION_SUM + foldcost.FRACTION)
    # a fraction of 1,202 bits: the first die adds it to 0, the second to itself (2,404 bits)
    long = (Fraction(1, 2**1200), 1)
    by_bits = 1202 // foldcost.FRACTION_BITS + 2404 // foldcost.FRACTION_BITS
    assert (
        _units(((long,),) * 2, (("sum",),)) == 2 * (foldcost.FRACTION_SUM + foldcost.LONG_FRACTION) + by_bits
    )


def test_a_step_of_several_statistics_of_whole_numbers_is_charged_as_the_alike_dices() -> None:
    """A reading folded into two statistics at once was charged a unit, as into one (1.2-1.6 µs
    where one costs 0.9-1.1): now `SEVERAL`, as `_folded` charges dice alike."""
    dice = (((1, 1), (2, 1)),) * 10  # after d dice, d + 1 sums (and counts alike): 110 steps
    assert _units(dice, (("sum",),)) == 110
    assert _units(dice, (("sum",), ("count",))) == foldcost.SEVERAL * 110


def test_the_states_die_by_die_are_bounded_by_max_states() -> None:
    """Hunt 2, item 4: the states of a pool over a list folded die by die were never bounded
    (a pool listed by its multisets is, by `max_states`): now they are, after each die."""
    tight = engine.load(RACE, limits=engine.Limits(max_states=50))
    with pytest.raises(engine.LimitError) as caught:
        tight.distribution("race", rivals=RIVALS)
    (d,) = caught.value.diagnostics
    assert d.code == "RC503" and d.message == "more exact states are needed than the limit of 50", d
    assert d.hint is not None and "max_states" in d.hint
    fits = engine.load(RACE).distribution("race", rivals=RIVALS)  # within the default
    assert fits.probability("win") + fits.probability("lose") == 1
