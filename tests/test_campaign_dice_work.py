"""What a campaign's rolls are charged for their dice: an action's roll, a roll recorded at the
table, and their replay (an action's event, a stored scene's steps) are charged by the rule a
batch's rolls and a scene's plays are (`dicework.dice_units`). They had charged nothing for
them: an action rolling ten pools of 100 d1000, each read three times, cost what one rolling a
single d1000 did. Counted, never timed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import engine
from engine import Limits
from engine.api import open_store
from engine.runtime.work import Work
from engine.scenes.campaign import play_in_campaign

POOLS = 10
READS = "sum(p{i}) + highest(p{i}) + lowest(p{i})"

RULES = f"""\
rulecraft: 1
name: dice
checks:
  one:
    roll: {{p: {{pool: 1, die: 1000}}}}
    outcomes: [lo, hi]
    outcome: "'hi' if sum(p) + highest(p) + lowest(p) > 1000 else 'lo'"
  many:
    roll: {{{", ".join(f"p{i}: {{pool: 100, die: 1000}}" for i in range(POOLS))}}}
    outcomes: [lo, hi]
    outcome: "'hi' if {" + ".join(READS.format(i=i) for i in range(POOLS))} > 10 else 'lo'"
state:
  each:
    x: {{counter: 0, min: 0}}
actions:
  one:
    by: character
    roll: {{check: one}}
    effects:
      - {{add: {{x: 1}}}}
  many:
    by: character
    roll: {{check: many}}
    effects:
      - {{add: {{x: 1}}}}
scenes:
  one:
    parties: [p]
    round:
      - {{act: one, by: p}}
    ends:
      - {{when: p.x > 4, then: done}}
    max_rounds: 5
  many:
    parties: [p]
    round:
      - {{act: many, by: p}}
    ends:
      - {{when: p.x > 4, then: done}}
    max_rounds: 5
"""

DICE = POOLS * 100 * (1 + 3) // 4
"""The units `many`'s dice are charged past `one`'s (about: `one`'s single die is a unit)."""


@pytest.fixture
def made(tmp_path: Path) -> Any:
    """A new campaign with one character, and how to open it again under other limits."""
    path = tmp_path / "dice.yaml"
    path.write_text(RULES)
    store = open_store(str(tmp_path / "c.db"))
    engine.new_campaign("c", path, store=store, characters={"ann": {}, "bo": {}})
    yield lambda limits: engine.open_campaign("c", store=store, limits=limits)
    store.close()


def acted(campaign: engine.Campaign, action: str) -> int:
    """The units one `action` by ann from the campaign's state uses (nothing is written)."""
    act = campaign.rules.actions[action]
    work = Work(10**9)
    campaign._run(act, campaign.state(), "ann", {}, 1, None, "always", {}, work)
    return work.used


def replayed(campaign: engine.Campaign) -> int:
    """The units a replay of the campaign's whole log uses."""
    events, now = campaign._read_now(campaign.store.events)
    work = Work(10**9)
    campaign._replayed(events, work, now)
    return work.used


def test_an_action_s_roll_is_charged_for_its_dice(made: Any) -> None:
    """`many` costs at least its dice's units more than `one` (they had cost alike); a budget
    that `one` fits with room to spare refuses `many` (RC503 at the action), and nothing is
    written; the default budget takes it."""
    campaign = made(Limits())
    one, many = acted(campaign, "one"), acted(campaign, "many")
    assert many - one >= DICE - 1, (one, many)
    before = campaign.log()
    small = made(Limits(max_work=one + DICE // 2))
    small.act("one", "ann", seed=1)
    with pytest.raises(engine.LimitError) as caught:
        small.act("many", "ann", seed=1)
    assert caught.value.diagnostics[0].code == "RC503"
    assert "work budget" in caught.value.diagnostics[0].message
    assert len(made(Limits()).log()) == len(before) + 1  # `one`'s event alone
    assert made(Limits()).act("many", "ann", seed=2).result is not None


def test_a_recorded_roll_is_charged_for_its_dice(made: Any) -> None:
    """A roll at the table (`Campaign.roll`) is charged for its dice as an action's roll is."""
    campaign = made(Limits())
    one = acted(campaign, "one")
    small = made(Limits(max_work=one + DICE // 2))
    small.roll("one", seed=1)
    before = small.log()
    with pytest.raises(engine.LimitError) as caught:
        small.roll("many", seed=1)
    assert caught.value.diagnostics[0].code == "RC503"
    assert made(Limits()).log() == before


def test_an_action_s_replay_is_charged_for_its_dice(made: Any) -> None:
    """Five actions of `many` replay at least five times their dice's units past five of `one`."""
    ones = made(Limits())
    for seed in range(5):
        ones.act("one", "ann", seed=seed)
    base = replayed(ones)
    for seed in range(5):
        ones.act("many", "ann", seed=seed)
    assert replayed(ones) - base >= 5 * (DICE - 1), base


def test_a_stored_scene_s_replay_is_charged_for_its_dice(made: Any) -> None:
    """A stored scene of five steps of `many` replays at least five times their dice's units
    past one of `one`."""
    campaign = made(Limits())
    play_in_campaign(campaign, "one", {"p": "ann"}, seed=1)
    base = replayed(campaign)
    play_in_campaign(campaign, "many", {"p": "bo"}, seed=1)
    assert replayed(campaign) - base >= 5 * (DICE - 1), base
    # and a replay under a budget that the scene's dice pass is refused
    with pytest.raises(engine.LimitError):
        made(Limits(max_work=replayed(campaign) - 5 * DICE // 2)).replay()
    made(Limits()).replay()
