"""Work is charged where it is done, by its size: a unit of the budget is about a microsecond,
so a request refused with RC503 at the default budget stops within a second or two. Each case
here ran 2-30 times longer than its units said, charged a unit an item whatever the item's size:
ways of a pool of a thousand kinds (`way_units`), the keys `Dist.mix` merges (`merge_units`),
states packed into long codes (`Packing`'s cost per state)."""

from __future__ import annotations

import math

import pytest

import engine
from engine.eval import dist, markov
from engine.eval.dist import Dist
from engine.frozen import replace
from engine.runtime.folds import Summary
from engine.runtime.multisets import kind_multisets
from engine.runtime.packing import Packing
from engine.runtime.procedure import Procedure
from engine.runtime.work import Work, working

TRIGGERED = """\
rulecraft: 1
name: kinds
checks:
  c:
    roll:
      d:
        pool: {pool}
        die: 1000
        triggers:
          - {{on: face {on}, may: reroll, per_die: 1, repeat: false}}
    objective: {{at_least: yes}}
    outcomes: [no, yes]
    outcome: "'yes' if sum(d) >= 500 else 'no'"
"""
"""A d1000 read through `sum`: its thousand faces are a thousand kinds of the reroll chain."""


def _used(run: object) -> int:
    with working(Work(10**15)) as work:
        run()  # type: ignore[operator]
    return work.used


def test_ways_of_many_kinds_are_charged_for_their_length() -> None:
    # 2 dice of a thousand kinds: 500,500 ways, each a tuple of 1,000 counts (about 72 µs)
    ways = math.comb(1001, 2)
    assert _used(lambda: kind_multisets((1,) * 1000, 2)) >= 100 * ways
    # a game's few kinds cost a unit a way, as before
    assert _used(lambda: kind_multisets((1,) * 6, 10)) == math.comb(15, 5)


def test_two_triggered_d1000_are_refused_before_their_ways_are_listed() -> None:
    """Charged a unit a way, 2 triggered d1000 listed all 500,500 ways of 1,000 counts before
    their RC503: 63 s on the default budget. Now the charge before the listing refuses them."""
    rs = engine.load(TRIGGERED.format(pool=2, on="== 1"), limits=engine.Limits(max_work=10**6))
    with pytest.raises(engine.LimitError) as raised:
        rs.distribution("c")
    assert raised.value.diagnostics[0].code == "RC503"
    with working(Work(2_000_000)) as work, pytest.raises(engine.LimitError):
        kind_multisets((1,) * 1000, 2)
    assert work.used > 10**7  # refused at its first charge, nothing listed


def _summary(n: int, i: int) -> Summary:
    return Summary({("s", j): i + j for j in range(n)})


def test_a_mix_is_charged_for_the_keys_it_merges() -> None:
    """Keys read through folds hash a set of their results each time they are looked up
    (3.5 µs and 1 µs a result); charged by its parts alone, a redraw chain over a bag of fifty
    kinds drawn 3 at a time ran 9-13 s to its RC503 on the default budget, 2 s now."""
    ints = Dist({i: 1 for i in range(100)}, 100)
    folded = Dist({(_summary(10, i), False): 1 for i in range(100)}, 100)
    by_int = _used(lambda: Dist.mix([(ints, 1, 2), (ints, 1, 2)]))
    by_summary = _used(lambda: Dist.mix([(folded, 1, 2), (folded, 1, 2)]))
    assert by_int == 0  # a number costs its caller's unit an item, nothing more
    assert by_summary >= 2 * 100 * 10  # each item's key: a set of ten results, hashed and compared
    assert dist.merge_units([folded]) == 100 * (3 + 10)


def _packing(on: str) -> Packing:
    check = engine.load(TRIGGERED.format(pool=1, on=on)).model.checks["c"]
    # read whole (no folds): every face a field, where read by its sum the faces no step takes
    # are kept as two (`Procedure.summed`)
    return Packing(Procedure(replace(check.roll[0], folds=None), {}), 1000)


def test_a_long_code_costs_more_a_field() -> None:
    """Unpacking shifts the whole code once per field, so a state of thousands of fields costs
    more a field: a d1000 with a trigger on every face (2,000 fields of 10 bits) and a
    thousand kinds was charged a unit per four fields."""
    with working(Work(10**12)):
        few = _packing("== 1")  # 1,001 fields
        many = _packing(">= 1")  # 2,000 fields
    # a state's fields are charged as they are many; a code's copies and shifts as their square
    assert few.unit_cost == (1001 - 16) // 4 and many.unit_cost == (2000 - 16) // 4
    assert many.unpack_cost >= 3 * many.unit_cost
    assert few.unpack_cost >= 2 * few.unit_cost


WALK = """\
rulecraft: 1
name: walk
checks:
  c:
    roll:
      d: {{die: 1000}}
    outcomes: [lo, mid, hi]
    outcome: [{{when: "d > 501", then: hi}}, {{when: "d > 3", then: mid}}, {{else: lo}}]
state:
  each:
    hp: {{counter: {n}, min: 0, max: {n}}}
actions:
  hit:
    by: character
    roll: {{check: c}}
    effects:
      - {{remove: {{hp: 1}}, when: "outcome == 'hi'"}}
      - {{add: {{hp: 1}}, clamp: true, when: "outcome == 'mid'"}}
scenes:
  s:
    parties: [p]
    round:
      - {{act: hit, by: p}}
    ends:
      - {{when: p.hp == 0, then: done}}
"""
"""A counter walking up and down: one cycle through all its values, whose elimination leaves
entries as long as the cycle (fractions of thousands of bits)."""


def test_a_long_cycle_of_a_scene_is_charged_by_its_fractions() -> None:
    """Charged a unit an entry, a walk over 2,000 values was answered in 10 s on 445,000 units
    (one over 4,000 in 75 s on 883,000): the solve was 1-5 ms a unit."""
    assert markov.fraction_units(200) == 0  # a game's fractions: the entry's unit alone
    assert markov.fraction_units(10_000) >= 30 * markov.fraction_units(1_000) > 0  # as their square
    # 800 values: 182,000 units charged by the entry, about 750,000 by their size
    rs = engine.load(WALK.format(n=800), limits=engine.Limits(max_work=400_000, deadline=None))
    with pytest.raises(engine.LimitError) as raised:
        rs.scene_odds("s")
    assert raised.value.diagnostics[0].code == "RC503"
    rs = engine.load(WALK.format(n=2000), limits=engine.Limits(deadline=None))
    with pytest.raises(engine.LimitError):
        rs.scene_odds("s")


def test_packing_a_long_code_is_charged_as_unpacking_it() -> None:
    """Packing builds the code a field at a time (`code |= v << shift`), copying what it has
    built each time, so it grows as the square of the fields, as unpacking does; it was charged
    by its fields alone (review AP: 6,000 fields of 11 bits took 9.9 ms on 1,496 units)."""
    with working(Work(10**12)):
        many = _packing(">= 1")  # 2,000 fields
    assert many.unpack_cost > many.unit_cost
    code = many.start((1,) + (0,) * (len(many.proc.kinds) - 1))
    with working(Work(10**12)) as work:
        state = many.unpack(code)
        unpacked = work.used
        assert many.pack(state) == code
        assert work.used - unpacked == many.unpack_cost == unpacked
