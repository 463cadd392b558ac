"""What many rolls at once are charged (`Ruleset.sample`, `roll --times`): each roll rolled one by
one by its dice and the reads of them, not a flat unit, and one budget for the whole request,
the try at the exact distribution included. Counted, never timed."""

from __future__ import annotations

import random
import re

import pytest

import engine
from engine import Limits
from engine.runtime import work as work_module

DICE = """\
rulecraft: 1
name: dice
checks:
  one:
    roll: {p: {pool: 1, die: 1000}}
    outcomes: [lo, hi]
    outcome: "'hi' if sum(p) > 500 else 'lo'"
  hundred:
    roll: {p: {pool: 100, die: 1000}}
    let: {t: sum(p), h: highest(p)}
    outcomes: [lo, hi]
    outcome: "'hi' if t + h > 50000 else 'lo'"
"""

HEAVY = """\
rulecraft: 1
name: heavy
checks:
  h:
    roll:
      a: {pool: 100, die: 1000, each: "face * 3 % 7 + face // 11"}
      b: {pool: 100, die: 1000, each: "face * 5 % 9 + face // 13"}
      c: {pool: 100, die: 1000}
    let:
      s1: sum(a) + sum(b) + sum(c)
      s2: sum(highest(a, 50)) + sum(lowest(b, 50)) + sum(highest(c, 30))
      s3: count(a, 3) + count(b, 4) + count(c, 500..1000)
    outcomes: [lo, hi]
    outcome: "'hi' if s1 + s2 + s3 > 60000 else 'lo'"
"""


def per_roll(error: engine.LimitError) -> int:
    """The units each roll after the first took, as the batch's RC503 says."""
    found = re.search(r"each after it about ([\d,]+)", error.diagnostics[0].message)
    assert found, error.diagnostics[0].message
    return int(found.group(1).replace(",", ""))


def test_a_roll_is_charged_by_its_dice_and_their_reads():
    """Rolled one by one, a check of 100 d1000 read through `sum` and `highest` is charged many
    times what a check of one d1000 is (each had been charged a unit a roll, so 1,000 rolls of
    either fitted 20,000 units, and 10,000,000 of the first ran 228 s to their RC503)."""
    rs = engine.load(DICE, name="dice.yaml", limits=Limits(max_work=20_000))
    assert rs.sample("one", 1000, random.Random(1), method="rolled").times == 1000
    with pytest.raises(engine.LimitError) as caught:
        rs.sample("hundred", 1000, random.Random(1), method="rolled")
    hundred = per_roll(caught.value)
    with pytest.raises(engine.LimitError) as caught:
        rs.sample("one", 100_000, random.Random(1), method="rolled")
    one = per_roll(caught.value)
    # 100 dice, each drawn and read twice: at least 50 times the one die's draw past the roll's own
    assert hundred >= 5 * one and hundred >= 50, (hundred, one)


def test_heavy_rolls_are_refused_after_few_of_them():
    """Three pools of 100 d1000 read through sum, highest, lowest and count (about 400 µs a roll):
    a budget of 20,000 units refuses rolling them one by one after a few dozen, not 20,000 (the
    default budget let 1,000,000 of them run some 12 CPU-minutes)."""
    rs = engine.load(HEAVY, name="heavy.yaml", limits=Limits(max_work=20_000))
    with pytest.raises(engine.LimitError) as caught:
        rs.sample("h", 1_000_000, random.Random(1), method="rolled")
    said = caught.value.diagnostics[0]
    assert said.code == "RC503" and said.span == rs.check("h").span
    done = int(re.search(r"after ([\d,]+) of the", said.message).group(1).replace(",", ""))
    assert done <= 20_000 // 200, said.message
    assert per_roll(caught.value) >= 200, said.message


def test_auto_charges_one_budget_for_the_exact_try_and_the_rolls(monkeypatch):
    """Under `auto`, a solve that does not fit the budget and the rolls after it are one request:
    together they charge at most `max_work` (the rolls had a budget of their own after the try
    had spent one, twice the budget in one request), and the rolls still fit what the try left."""
    rs = engine.load(HEAVY, name="heavy.yaml", limits=Limits(max_work=200_000))
    made: list[work_module.Work] = []
    shares: list[work_module.Work] = []
    init, share = work_module.Work.__init__, work_module.Work.share

    def recorded(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append(self)

    def shared(self, most):
        part = share(self, most)
        shares.append(part)
        return part

    monkeypatch.setattr(work_module.Work, "__init__", recorded)
    monkeypatch.setattr(work_module.Work, "share", shared)
    batch = rs.sample("h", 50, random.Random(1))
    assert batch.method == "rolled" and batch.times == 50
    roots = [w for w in made if all(w is not s for s in shares)]
    total = sum(w.used for w in roots)
    assert total <= 200_000, [(w.limit, w.used) for w in roots]
    assert total > 100_000  # the try did spend its part: the budget was shared, not spared


def test_auto_with_rolls_that_cannot_fit_gives_the_try_the_whole_budget(monkeypatch):
    """A million rolls could not fit 200,000 units even at a roll's least charge: the exact try
    has the whole budget, and past it the request is refused, at the check, with no second budget
    for the rolls."""
    rs = engine.load(HEAVY, name="heavy.yaml", limits=Limits(max_work=200_000))
    rolled: list[int] = []
    from engine.eval import batch as batch_module

    real = batch_module.sample

    def counted(*args, **kwargs):
        rolled.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(batch_module, "sample", counted)
    with pytest.raises(engine.LimitError) as caught:
        rs.sample("h", 1_000_000, random.Random(1))
    assert caught.value.diagnostics[0].code == "RC503"
    assert caught.value.diagnostics[0].span == rs.check("h").span
    assert not rolled
