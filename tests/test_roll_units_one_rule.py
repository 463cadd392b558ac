"""One rule for what a roll made one by one is charged (`dicework.roll_units`): its own units
(`ROLL`, `POOL` a pool, `DRAW` a draw of chits) and its dice's. A batch's rolls were charged all
of it; a scene's step and a campaign's action (and so its replay, and a roll recorded at the
table) only their dice, so a step or an action drawing chits paid 10 units less than the same
roll in a batch. Counted, never timed."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from test_campaign_dice_work import acted

import engine
from engine import Limits
from engine.api import open_store
from engine.eval import dicework

RULES = """\
rulecraft: 1
name: units
bags:
  fate:
    chits: {black: 3, grey: 4, white: 2}
checks:
  die:
    roll: {p: {pool: 1, die: 6}}
    outcomes: [lo, hi]
    outcome: "'hi' if sum(p) > 3 else 'lo'"
  pick:
    roll: {beads: {draw: fate, count: 1}}
    outcomes: fate
    outcome: best(beads)
state:
  each:
    x: {counter: 0, min: 0, max: 3}
actions:
  still:
    by: character
    effects:
      - {add: {x: 0}}
  die:
    by: character
    roll: {check: die}
    effects:
      - {add: {x: 0}}
  pick:
    by: character
    roll: {check: pick}
    effects:
      - {add: {x: 0}}
scenes:
  die:
    parties: [p]
    round:
      - {act: die, by: p}
    ends:
      - {when: p.x > 2, then: done}
    max_rounds: 1
  pick:
    parties: [p]
    round:
      - {act: pick, by: p}
    ends:
      - {when: p.x > 2, then: done}
    max_rounds: 1
"""


def per_play(run: object, name: str) -> int:
    """The units each play or roll after the first took, as the request's RC503 says."""
    with pytest.raises(engine.LimitError) as caught:
        run(name, 100_000, random.Random(1))  # type: ignore[operator]
    message = caught.value.diagnostics[0].message
    found = re.search(r"each after it about ([\d,]+)", message)
    assert found, message
    return int(found.group(1).replace(",", ""))


def test_a_scene_s_step_pays_for_its_roll_what_a_batch_s_roll_does() -> None:
    """A scene drawing a chit costs a play what a batch's roll of the draw costs more than one of a
    die (`DRAW` against `POOL`, and their dice): before, the scene paid their dice's difference
    alone, 4 units less."""
    rs = engine.load(RULES, name="units.yaml", limits=Limits(max_work=20_000))
    scenes = per_play(rs.sample_scenes, "pick") - per_play(rs.sample_scenes, "die")

    def rolled(check: str, times: int, rng: random.Random) -> object:
        return rs.sample(check, times, rng, method="rolled")

    batch = per_play(rolled, "pick") - per_play(rolled, "die")
    assert batch >= dicework.DRAW - dicework.POOL, batch
    assert scenes == batch, (scenes, batch)


@pytest.fixture
def campaign(tmp_path: Path) -> engine.Campaign:
    path = tmp_path / "units.yaml"
    path.write_text(RULES)
    store = open_store(str(tmp_path / "c.db"))
    engine.new_campaign("c", path, store=store, characters={"ann": {}})
    yield engine.open_campaign("c", store=store)
    store.close()


def test_a_campaign_s_action_pays_for_its_draw_what_a_batch_s_roll_does(campaign: engine.Campaign) -> None:
    """An action drawing a chit costs at least `ROLL` and `DRAW` more than the same action rolling
    nothing (it had cost its one chit's quarter units more: nothing); and a budget that fits the
    still action and the chit's dice, but not the draw's own units, refuses it at the action."""
    still, pick = acted(campaign, "still"), acted(campaign, "pick")
    assert pick - still >= dicework.ROLL + dicework.DRAW, (still, pick)
    store = campaign.store
    small = engine.open_campaign("c", store=store, limits=Limits(max_work=still + 2))
    with pytest.raises(engine.LimitError) as caught:
        small.act("pick", "ann", seed=1)
    assert caught.value.diagnostics[0].code == "RC503"
    with pytest.raises(engine.LimitError):
        small.roll("pick", seed=1)  # a roll recorded at the table is charged alike
