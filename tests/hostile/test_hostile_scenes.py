"""Scenes whose exact solve did work that no budget counted, found by the fuzz suite
(tests/fuzz/test_fuzz_scenes.py): each ran for tens of seconds under a budget of a tenth of a
second, past any deadline, and now ends with `RC503` within the bound (`conftest.BOUND`)."""

from __future__ import annotations

import json
import random
from fractions import Fraction

from test_hostile_budget import tables

import engine

TIGHT = engine.Limits(max_work=100_000)
"""A tenth of the work a second; no deadline, which only a charge looks at."""


def scene(die: int, hit: int, effects: str, ends: str, max_rounds: int) -> str:
    """One party rolling a die round after round until `ends` holds."""
    return (
        "rulecraft: 1\nname: mini\n"
        f"checks:\n  swing:\n    roll: {{d: {{die: {die}}}}}\n    outcomes: [miss, hit]\n"
        f"    outcome: \"'hit' if d >= {hit} else 'miss'\"\n    outputs: {{dmg: d}}\n"
        "state:\n  each:\n    hurt: {counter: 0, min: 0}\n"
        f"actions:\n  swing:\n    by: character\n    roll: {{check: swing}}\n    effects:\n{effects}"
        f"scenes:\n  fight:\n    parties: [ann]\n    round: [{{act: swing, by: ann}}]\n"
        f"    ends: [{{when: {ends}, then: done}}]\n    max_rounds: {max_rounds}\n"
    )


HEALING = scene(
    6,
    3,
    "      - {add: {hurt: 1}, when: \"outcome == 'hit'\"}\n"
    "      - {remove: {hurt: 2}, when: \"outcome == 'miss'\", clamp: true}\n",
    "ann.hurt >= 40",
    10_000,
)
"""A scene that can come back to a state, counted round by round to `max_rounds: 10000`: the
length distribution pushed ten thousand rounds of ever longer numbers, charged nothing (8 s under
a budget of 100,000 units; 45 s for 20,000 rounds, the schema allowing 100,000)."""

THOUSAND_POINTS = scene(
    1000, 990, "      - {add: {hurt: 1}, when: \"outcome == 'hit'\"}\n", "ann.hurt >= 300", 100
)
"""A d1000 rolled in each of 300 states: its effects applied to each of the thousand points of
the roll, in every state, charged as one node each (about 10 s under a budget of 100,000 units)."""

STUCK = scene(
    100, 87, "      - {add: {hurt: 1}, when: \"outcome == 'hit'\"}\n", "ann.hurt >= 2", 100_000
).replace(
    "    roll: {check: swing}\n",
    "    requires: [{when: hurt < 1, else: no more}]\n    roll: {check: swing}\n",
)
"""After one hit the action is refused for ever and no ending can hold: the chance still running
is a number whose length grows round after round, and each round's greatest common divisors on
it were charged nothing (8 s in them under a budget of 50,000 units, deadline or not)."""


def test_a_long_horizon_is_charged_round_by_round(refused):
    refused("RC503", engine.load(HEALING, limits=TIGHT).scene_odds, "fight")


def test_every_point_of_a_roll_is_charged(refused):
    refused("RC503", engine.load(THOUSAND_POINTS, limits=TIGHT).scene_odds, "fight")


def test_both_are_solved_with_room():
    """The same scenes with a budget to fit them: solved, the length distribution and `longer`
    adding up to 1."""
    roomy = engine.Limits(max_work=50_000_000)
    odds = engine.load(THOUSAND_POINTS, limits=roomy).scene_odds("fight")
    assert odds.probability("done") == 1 and sum(odds.rounds.values()) + odds.longer == 1
    short = engine.load(HEALING.replace("max_rounds: 10000", "max_rounds: 50"), limits=roomy)
    odds = short.scene_odds("fight")
    assert odds.probability("done") == 1 and sum(odds.rounds.values()) + odds.longer == 1


def test_the_length_of_a_scene_that_never_ends_is_known_without_counting():
    """STUCK, which ran its greatest common divisors uncharged and then was refused (`RC503`)
    under TIGHT, is answered at once: no ending can be reached from its start, so no round of
    its `max_rounds: 100000` is pushed, and every chance is in `longer` (review I, finding 3)."""
    odds = engine.load(STUCK, limits=TIGHT).scene_odds("fight")
    assert odds.endings.fractions() == {"never": 1} and odds.rounds == {} and odds.longer == 1


PARTLY_STUCK = (
    STUCK.replace("outcomes: [miss, hit]", "outcomes: [miss, hit, crit]")
    .replace(
        "outcome: \"'hit' if d >= 87 else 'miss'\"",
        "outcome: \"'crit' if d == 100 else 'hit' if d >= 87 else 'miss'\"",
    )
    .replace(
        "      - {add: {hurt: 1}, when: \"outcome == 'hit'\"}\n",
        "      - {add: {hurt: 1}, when: \"outcome == 'hit'\"}\n"
        "      - {add: {hurt: 2}, when: \"outcome == 'crit'\"}\n",
    )
)
"""STUCK with a crit that ends it: each round 1/100 ends, 13/100 is stuck for ever, and the
rest (86/100) goes on, so some mass can end in every round of the hundred thousand."""


def test_the_length_of_a_scene_partly_stuck_is_charged(refused):
    """The mass set aside as stuck does not hide the rest: the count still goes round by round
    while some mass can end, and is refused past the budget as before."""
    error = refused("RC503", engine.load(PARTLY_STUCK, limits=TIGHT).scene_odds, "fight")
    assert "length of scene 'fight'" in str(error)
    short = engine.load(PARTLY_STUCK.replace("max_rounds: 100000", "max_rounds: 40"), limits=TIGHT)
    odds = short.scene_odds("fight")
    stay = Fraction(86, 100)
    assert odds.endings.fractions() == {"done": Fraction(1, 14), "never": Fraction(13, 14)}
    assert odds.rounds == {r: stay ** (r - 1) / 100 for r in range(1, 41)}
    assert odds.longer == 1 - sum(odds.rounds.values())


# Found by the fuzz suite in a CI run: a scene whose rounds' exact chances grow past 4,300 decimal
# digits (a redrawn d100 every step, a hundred rounds) made `Odds.as_json` raise Python's
# ValueError for printing such a number. Those parts are now written in hexadecimal, still exact.
HUGE_ROUNDS = {
    "rulecraft": 1,
    "name": "fuzz",
    "checks": {
        "swing": {
            "inputs": {"edge": {"type": "int", "min": 0, "max": 3, "default": 0}},
            "roll": {"d": {"die": 100, "redraw": {"may": "d < 3", "times": 12}}},
            "outcomes": ["miss", "hit", "crit"],
            "outcome": [
                {"when": "d + edge >= 2", "then": "'crit'"},
                {"when": "d + edge >= 1", "then": "'hit'"},
                {"else": "'miss'"},
            ],
            "outputs": {"dmg": "1 + d // 3"},
        }
    },
    "state": {
        "character": {"hp": {"type": "int", "min": 1, "max": 1, "default": 1}},
        "each": {
            "hurt": {"counter": 0, "min": 0, "max": "hp", "clamp": True},
            "down": {"derived": "hurt >= hp"},
        },
        "periods": ["rest"],
        "campaign": {"bonus": {"type": "int", "min": 0, "max": 3, "default": 0}},
    },
    "actions": {
        "strike": {
            "by": "character",
            "others": ["foe"],
            "requires": [{"when": "not down and not foe.down", "else": "nobody who is down fights"}],
            "roll": {"check": "swing", "inputs": {"edge": "0"}},
            "effects": [{"add": {"hurt": 1}, "of": "foe", "when": "outcome == 'hit'", "clamp": True}],
        }
    },
    "scenes": {
        "fight": {
            "parties": ["ann", "bo"],
            "round": [
                {"act": "strike", "by": "ann", "others": {"foe": "bo"}},
                {"act": "strike", "by": "bo", "others": {"foe": "ann"}},
                {"begin": "rest"},
            ],
            "ends": [{"when": "ann.down", "then": "ann_falls"}],
        }
    },
}


def test_a_scene_whose_chances_outgrow_decimal_text_still_prints() -> None:
    odds = engine.load(json.dumps(HUGE_ROUNDS)).scene_odds("fight")
    rounds = odds.as_json()["rounds"]
    long = [r for r, text in rounds.items() if text.startswith("0x")]
    assert long  # the late rounds' chances are too long for decimal text
    n, d = rounds[long[-1]].split("/")
    assert Fraction(int(n, 16), int(d, 16)) == odds.rounds[int(long[-1])]  # and still exact


def test_a_scene_in_a_campaign_is_one_request(refused):
    """Review: a scene played in a campaign read the state on one budget, checked it again before
    the append on a second and played on a third (its odds: two reads and the solve), each fresh,
    so a campaign scene could do several times `max_work`. Reading this campaign's state costs
    about 25,000 units (its `lore`), the scene played about 99,000 and solved about 100,000: each
    fits a budget of 110,000 alone (as the ruleset's own scene does), together they do not
    (RC503, nothing written)."""
    from engine.scenes.campaign import campaign_odds, play_in_campaign
    from engine.state.memory import MemoryStore

    text = (
        scene(6, 3, "      - {add: {hurt: 1}, when: \"outcome == 'hit'\"}\n", "ann.hurt >= 3", 100)
        .replace("name: mini\n", "name: mini\n" + tables(12))
        .replace("state:\n", 'state:\n  shared:\n    base: {counter: 0}\n    lore: {derived: "t12(base)"}\n')
    )
    tight = engine.Limits(max_work=110_000)
    store = MemoryStore()
    engine.new_campaign("c", engine.load(text), store=store, characters={"cy": {}})
    assert engine.open_campaign("c", store=store, limits=tight).state()["shared"]["base"] == 0
    alone = engine.load(text, limits=tight)
    assert alone.play_scene("fight", random.Random(3), parties={"ann": {}}).ending == "done"
    assert alone.scene_odds("fight", parties={"ann": {}}).endings
    game = engine.open_campaign("c", store=store, limits=tight)
    error = refused("RC503", play_in_campaign, game, "fight", {"ann": "cy"}, seed=3)
    assert isinstance(error, engine.LimitError)
    assert [e.kind for e in game.log()] == ["new"]  # nothing was written
    game = engine.open_campaign("c", store=store, limits=tight)
    assert isinstance(refused("RC503", campaign_odds, game, "fight", {"ann": "cy"}), engine.LimitError)
    wide = engine.open_campaign("c", store=store, limits=engine.Limits(max_work=150_000))
    assert play_in_campaign(wide, "fight", {"ann": "cy"}, seed=3)[0].kind == "scene"
    assert campaign_odds(wide, "fight", {"ann": "cy"}).endings
