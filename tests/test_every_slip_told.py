"""`validate` tells every slip of an action, a scene and a state item in one run, as it does a
check's (hunt 13m): each stopped at its first, so a scene with `act: strik` and two misspelt
endings told only `strik`, and an action's misspelt roll input hid a misspelt effect `when`."""

from __future__ import annotations

import pytest

import engine
from engine.errors import RulecraftError
from engine.syntax.positions import SourceFile

BASE = """\
rulecraft: 1
name: slips
checks:
  swing:
    inputs:
      needs: {type: int, min: 1, max: 6, default: 5}
    roll: {d: {die: 6}}
    outcomes: [miss, hit]
    outcome: "'hit' if d >= needs else 'miss'"
state:
  periods: [day]
  character:
    hp: {type: int, min: 1, max: 5, default: 2}
  each:
    hurt: {counter: START, min: 0, reset: RESET}
    luck: {counter: 1, min: 0}
    down: {derived: "hurt >= hp"}
actions:
  strike:
    by: character
    others: [foe]
    inputs:
      lucky: {type: bool, default: false}
    requires:
      - {when: "REQUIRE", else: nobody who is down fights}
    roll: {check: CHECK, inputs: {needs: "ROLLED"}}
    effects:
      - {remove: {luck: 1}, when: "EFFECT"}
      - {add: {hurt: 1}, of: foe, when: "outcome == 'hit'"}
scenes:
  fight:
    parties: [ann, bo]
    round:
      - {act: ACT, by: ann, others: {foe: bo}}
      - {act: strike, by: bo, others: {foe: ann}}
    ends:
      - {when: "END1", then: ann_wins}
      - {when: "END2", then: bo_wins}
    max_rounds: 10
"""

GOOD = {
    "RESET": "day",
    "START": "0",
    "REQUIRE": "not down and not foe.down",
    "CHECK": "swing",
    "ROLLED": "6 if lucky else 5",
    "EFFECT": "lucky",
    "ACT": "strike",
    "END1": "bo.down",
    "END2": "ann.down",
}


def _text(**slips: str) -> str:
    text = BASE
    for key, value in {**GOOD, **slips}.items():
        text = text.replace(key, value)
    return text


def _told(**slips: str) -> list[str]:
    with pytest.raises(RulecraftError) as info:
        engine.load_source(SourceFile("slips.yaml", _text(**slips)))
    return [f"{d.code} {d.message}" for d in info.value.diagnostics]


def test_the_good_ruleset_loads() -> None:
    assert engine.load_source(SourceFile("slips.yaml", _text())).scene("fight")


def test_a_scene_tells_its_step_and_each_ending() -> None:
    assert _told(ACT="strik", END1="bo.dwn", END2="ann.dwn") == [
        "RC312 unknown action 'strik'",
        "RC301 unknown name 'bo.dwn'",
        "RC301 unknown name 'ann.dwn'",
    ]


def test_an_action_tells_its_requirement_roll_input_and_effect() -> None:
    assert _told(REQUIRE="not dwn", ROLLED="6 if lcky else 5", EFFECT="lucy") == [
        "RC301 unknown name 'dwn'",
        "RC301 unknown name 'lcky'",
        "RC301 unknown name 'lucy'",
    ]


def test_an_unknown_check_is_one_message_not_one_per_effect_reading_its_outcome() -> None:
    told = _told(CHECK="swng")
    assert told == ["RC312 unknown check 'swng'"], told


def test_one_state_item_tells_its_reset_and_its_start() -> None:
    assert sorted(_told(RESET="dya", START="zz + 1")) == [
        "RC301 unknown name 'zz'",
        "RC312 unknown period 'dya'",
    ]
