"""What a scene's rolls are charged for their dice: by the rule a batch's rolls are
(`dicework.dice_units`), so many scenes at once (`Ruleset.sample_scenes`) are bounded by the dice
they roll as `Ruleset.sample`'s rolls are. A step had been charged 20 units whatever it rolled:
scenes rolling three pools of 100 d1000 were some 43 units a roll against `sample`'s 160, and
40,000 of them fitted the default budget (10-11 CPU-s). Counted, never timed."""

from __future__ import annotations

import random
import re

import pytest

import engine
from engine import Limits
from engine.runtime.context import RunContext
from engine.runtime.work import Work
from engine.scenes import play

RULES = """\
rulecraft: 1
name: dice
checks:
  one:
    roll: {p: {pool: 1, die: 1000}}
    outcomes: [lo, hi]
    outcome: "'hi' if sum(p) + highest(p) > 1000 else 'lo'"
  hundred:
    roll: {p: {pool: 100, die: 1000}}
    outcomes: [lo, hi]
    outcome: "'hi' if sum(p) + highest(p) > 50000 else 'lo'"
state:
  each:
    x: {counter: 0, min: 0, max: 3}
actions:
  one:
    by: character
    roll: {check: one}
    effects:
      - {add: {x: 0}}
  hundred:
    by: character
    roll: {check: hundred}
    effects:
      - {add: {x: 0}}
scenes:
  one:
    parties: [p]
    round:
      - {act: one, by: p}
    ends:
      - {when: p.x > 2, then: done}
    max_rounds: 1
  hundred:
    parties: [p]
    round:
      - {act: hundred, by: p}
    ends:
      - {when: p.x > 2, then: done}
    max_rounds: 1
"""


def per_play(error: engine.LimitError) -> int:
    """The units each play or roll after the first took, as the request's RC503 says."""
    found = re.search(r"each after it about ([\d,]+)", error.diagnostics[0].message)
    assert found, error.diagnostics[0].message
    return int(found.group(1).replace(",", ""))


def charged(run: object, name: str) -> int:
    with pytest.raises(engine.LimitError) as caught:
        run(name, 100_000, random.Random(1))  # type: ignore[operator]
    return per_play(caught.value)


def test_a_scene_s_roll_is_charged_for_its_dice_as_a_batch_s_is() -> None:
    """A scene rolling 100 d1000 read twice is charged 75 units a play more than one rolling a
    single d1000 (a quarter of a unit per die drawn and per read: 300 quarters against 3), the
    very difference `Ruleset.sample` charges the two checks rolled one by one. Both had been
    charged alike, a step's 20 units and its look."""
    rs = engine.load(RULES, name="dice.yaml", limits=Limits(max_work=20_000))
    one, hundred = charged(rs.sample_scenes, "one"), charged(rs.sample_scenes, "hundred")
    assert hundred - one >= 100 * 3 // 4 - 1, (one, hundred)

    def rolled(check: str, times: int, rng: random.Random) -> object:
        return rs.sample(check, times, rng, method="rolled")

    assert hundred - one == charged(rolled, "hundred") - charged(rolled, "one")


def test_a_played_scene_is_charged_for_its_dice() -> None:
    """One scene played with its trace (`play_scene`'s way) is charged for its dice too: 100
    rounds of 100 d1000 read twice, at least 75 units a round more than 100 rounds of one d1000."""
    rs = engine.load(RULES.replace("max_rounds: 1", "max_rounds: 100"), name="dice.yaml")
    used = {}
    for name in ("one", "hundred"):
        scene = rs.model.state.scenes[name]  # type: ignore[union-attr]
        state, cast = play.cast_state(rs.model, scene, None, None)
        work = Work(10**9)
        ctx = RunContext(rs.limits, "always", rs.caches, random.Random(1), work=work)
        assert play.play(rs.model, scene, state, cast, ctx).rounds == 100
        used[name] = work.used
    # and the longer trace entries' text past `ENTRY_TEXT`, which alone was some 600 units
    assert used["hundred"] - used["one"] >= 100 * (100 * 3 // 4), used
