"""Readings and errata of the Chill and Chimera texts, as tests.

Each test quotes, verbatim, the sentences its reading weighs (the texts' own spelling kept) and
names the ruleset note that records the reading (rulesets/chill.yaml, rulesets/chimera.yaml). A
note whose id starts with `erratum-` records a place where the text contradicts itself.
"""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine.errors import CampaignError, InputError
from engine.state.campaign import Campaign
from engine.state.memory import MemoryStore

CHILL = engine.load("chill")
CHIMERA = engine.load("chimera")


def note_ids(rs: engine.Ruleset) -> set[str]:
    return {n.id for n in rs.model.notes}


def case(players: int = 4) -> Campaign:
    """A new Chill case in memory: players + 1 tokens, 2 of them dark."""
    return engine.new_campaign("case", CHILL, store=MemoryStore(), params={"players": players})


def tokens(campaign: Campaign) -> tuple[int, int]:
    """The case's tokens as (light, dark)."""
    pool: dict[str, Any] = campaign.show()["shared"]["tokens"]
    return pool.get("light", 0), pool.get("dark", 0)


def refused(campaign: Campaign, action: str, **kw: Any) -> None:
    """`action` is refused with RC905 and the case's state stays as it was."""
    before = campaign.state()
    with pytest.raises(CampaignError) as error:
        campaign.act(action, **kw)
    assert error.value.diagnostics[0].code == "RC905"
    assert campaign.state() == before


# ---------------------------------------------------------------------------------------------
# Chill
# ---------------------------------------------------------------------------------------------


def test_chill_a_botch_turned_colossal_turns_no_token_light_erratum():
    """ "At that point the check is a Colossal Success in terms of what it means for the story, but
    the player does not turn a token light (see below)" against "A player can turn a token dark
    (flipping it from the light side to the dark side)" and "NOTE: The Chill Master must turn a
    token light if she rolls a Botch, or if a player rolls a Colossal Success"."""
    # Erratum, chill.yaml note `erratum-player-turns-no-light`: players never turn tokens light;
    # the sentence is read as the Chill Master turning none for a Botch turned Colossal.
    assert "erratum-player-turns-no-light" in note_ids(CHILL)
    player = CHILL.roll("specific", forced={"tens": 7, "ones": 7}, target=70, tokens=1)
    assert player.outcome.name == "colossal_success"
    assert (player.values["forced_dark"], player.values["forced_light"]) == (2, 0)
    # A Colossal Success that was no Botch does make the Chill Master turn one light.
    plain = CHILL.roll("specific", forced={"tens": 3, "ones": 3}, target=55)
    assert (plain.values["forced_dark"], plain.values["forced_light"]) == (0, 1)
    # "Rules for converting a Botch into a Colossal Success are the same as for players": the
    # Chill Master's Botch turned by two tokens turns three light and makes no player turn one dark.
    master = CHILL.roll("specific", forced={"tens": 7, "ones": 7}, target=60, tokens=2, roller="chill_master")
    assert master.outcome.name == "colossal_success"
    assert (master.values["forced_dark"], master.values["forced_light"]) == (0, 3)
    # On the table: 3 light, 2 dark; one spent and one for the Botch turn dark, none turns light.
    campaign = case()
    campaign.act("player_roll", forced={"tens": 7, "ones": 7}, target=70, spend=1)
    assert tokens(campaign) == (1, 4)


def test_chill_the_unknowns_awareness_adds_a_dark_token_erratum():
    """ "Under certain circumstances (detailed below), the Chill Master will add a light token"
    against "When the forces of the Unknown become aware of the characters’ presence, the Chill
    Master adds a dark token. This only happens once per case" and "Certain powerful Disciplines
    of the Evil Way require the Chill Master either to turn multiple tokens light or to add a light
    token"."""
    # Erratum, chill.yaml note `erratum-added-token`: the detailed sentence wins, so the
    # awareness adds a dark token and a Discipline a light one.
    assert "erratum-added-token" in note_ids(CHILL)
    campaign = case()
    campaign.act("unknown_aware")
    assert tokens(campaign) == (3, 3)
    refused(campaign, "unknown_aware")  # "This only happens once per case"
    campaign.act("add_light")
    assert tokens(campaign) == (4, 3)


def test_chill_double_zeros_are_doubles_read_as_100():
    """ "if you roll double zeros, read the dice as “100”" and "*If your character number is greater
    than 100, a roll of 00 is considered a Failure, not a Botch" (note `reading-dice`)."""
    result = CHILL.roll("specific", forced={"tens": 0, "ones": 0}, target=99)
    assert (result.values["roll"], result.values["doubles"]) == (100, True)
    assert result.outcome.name == "botch"
    above = CHILL.roll("specific", forced={"tens": 0, "ones": 0}, target=101)
    assert above.outcome.name == "failure"


@pytest.mark.parametrize(
    ("target", "tens", "ones", "band"),
    [
        (55, 2, 7, "high_success"),
        (55, 2, 8, "low_success"),
        (54, 2, 7, "high_success"),
        (54, 2, 8, "low_success"),
    ],
)
def test_chill_exactly_half_the_target_is_a_high_success(target: int, tens: int, ones: int, band: str):
    """ "If the roll is lower than or equal to the target number, but still more than half the
    target number, the result is a Low Success" and "If the roll is lower than half the target
    number, the result is a High Success": exactly half (27 of 54) is placed by note `half-target`."""
    assert CHILL.roll("specific", forced={"tens": tens, "ones": ones}, target=target).outcome.name == band


@pytest.mark.parametrize(
    ("target", "tens", "ones", "band"),
    [
        (70, 7, 7, "botch"),  # higher than the target: a Failure's roll too
        (55, 2, 2, "colossal_success"),  # lower than half the target: a High Success's roll too
        (55, 3, 3, "colossal_success"),  # above half (27.5): a Low Success's roll too
        (44, 2, 2, "colossal_success"),  # exactly half (note half-target): High
        (55, 4, 4, "colossal_success"),  # above half: a Low Success's roll too
        (55, 5, 5, "colossal_success"),  # the target itself (note erratum-lower-than)
    ],
)
def test_chill_doubles_are_read_before_the_results_they_overlap(target: int, tens: int, ones: int, band: str):
    """ "A Botch is worse than a failure" and "A Colossal Success is the best a character can do":
    a double meets a doubles bullet and a wider one, and the doubles bullet wins (note
    `doubles-first`)."""
    assert "doubles-first" in note_ids(CHILL)
    assert CHILL.roll("specific", forced={"tens": tens, "ones": ones}, target=target).outcome.name == band


def test_chill_an_envoy_is_not_saved_for_nothing():
    """ "Save the life of an envoy. This requires that the player turn all available light tokens
    dark" under "A player can turn a token dark (flipping it from the light side to the dark side)
    to accomplish the following" (note `save-envoy`)."""
    campaign = case()
    campaign.act("save_envoy")
    assert tokens(campaign) == (0, 5)
    refused(campaign, "save_envoy")


# ---------------------------------------------------------------------------------------------
# Chimera
# ---------------------------------------------------------------------------------------------


def test_chimera_each_disadvantage_counts_minus_one_erratum():
    """ "For those more mathematically oriented, think of each advantage as a -1. Rolling normally
    here equals zero, and each disadvantage is a negative" and "if they are distracted because a
    character uses this action against them--these impart advantage", in the Disadvantage
    section."""
    # Erratum, chimera.yaml note `erratum-disadvantage`: the section means disadvantage in both
    # places ("Disadvantage stacks up to three times"), so each disadvantage is -1 (note ladder).
    assert "erratum-disadvantage" in note_ids(CHIMERA)
    one = CHIMERA.roll("single", forced={"die": 4}, disadvantage=1)
    assert (one.values["level"], one.outcome.name) == (-1, "fail")
    two = CHIMERA.roll("single", forced={"die": 8}, disadvantage=2)
    assert (two.values["level"], two.outcome.name) == (-2, "fail")
    three = CHIMERA.roll("single", disadvantage=3)
    assert (three.outcome.name, three.auto) == ("fail", True)


def test_chimera_advantages_are_summed_before_the_scale():
    """ "total the amount of advantage or disadvantage on affecting your player character, see
    where on the scale this falls, roll your die" (note `ladder`): 4 advantages and 2
    disadvantages are Double Advantage, where a 1 passes."""
    result = CHIMERA.roll("single", forced={"die": 1}, advantage=4, disadvantage=2)
    assert (result.values["level"], result.outcome.name) == (2, "pass")


@pytest.mark.parametrize(
    ("faces", "want"),
    [
        # The text's examples: "( "0, 4, 9" or "1, 5, 6") the result is a half-pass", and "9, 8"
        # or "0, 1", "the results should be pass and fail, respectively".
        ([0, 4, 9], "half_pass"),
        ([1, 5, 6], "half_pass"),
        ([9, 8], "pass"),
        ([0, 1], "fail"),
        # Our order (note majority-tie): pairs no example of the text covers.
        ([2, 7], "fail"),
        ([1, 9], "fail"),
        ([0, 6], "pass"),
        ([0, 9], "crit_fail"),
    ],
)
def test_chimera_majority_ties(faces: list[int], want: str):
    """ "—If there is a tie, it is advised to give the most neutral outcome, leaning first toward
    half-passes, and then toward fails and passes" (note `majority-tie`)."""
    assert CHIMERA.roll("pool", forced={"rolled": faces}, dice=len(faces)).outcome.name == want


def test_chimera_a_zero_rerolled_away_forces_nothing_and_a_new_zero_does():
    """Step 2 lets a 9 reroll "a 0, 1, 2, 3, 4, or 5"; step 5: "If any 0s are rolled, repeat this
    step" (note `rerolled-zero`)."""
    gone = CHIMERA.roll("skill", forced={"rolled": [9, 0, 6, 7]}, dice=3)
    assert sorted(gone.rolled["rolled"].faces) == [6, 7, 9]  # the 6 stays
    new = CHIMERA.roll("skill", forced={"rolled": [9, 0, 6, 0, 2]}, dice=3)
    assert sorted(new.rolled["rolled"].faces) == [0, 2, 9]  # the new 0 rerolled the 6
    assert new.outcome.name == "fail"


def test_chimera_a_repeated_step_counts_the_nines_the_rerolls_brought():
    """ "reroll a number of die equal to the number of 9s" and "If another 9 is rolled as a result
    of rerolling, repeat step 2" (note `nines`): a repeat counts the new 9s, not every 9 standing.
    9, 1, 2, 3: the first 9 rerolls the 1 (least valuable first), which comes up 9; that new 9
    rerolls one die, the 2 (to a 4), and the 3 stands: a third face forced is never used (RC405).
    Counting the first 9 again would reroll the 3 too."""
    r = CHIMERA.roll("skill", forced={"rolled": [9, 1, 2, 3, 9, 4]}, dice=4)
    assert sorted(r.rolled["rolled"].faces) == [3, 4, 9, 9]
    assert r.outcome.name == "crit_pass"  # two 9s against one 3 and one 4
    with pytest.raises(InputError) as more:  # a die for the 3 is never asked for
        CHIMERA.roll("skill", forced={"rolled": [9, 1, 2, 3, 9, 4, 4]}, dice=4)
    assert more.value.diagnostics[0].code == "RC405"


def test_chimera_the_nines_and_zeros_take_dice_by_face():
    """ "they may only reroll a 0, 1, 2, 3, 4, or 5 (a Crit Fail, Fail, or Half Pass)" and "this
    only applies to 4, 5, 6, 7, 8 (Half Pass and Pass)" (notes `nines`, `zeros`): the faces win."""
    # At Double Advantage the 1 reads as a pass and is still rerolled (to a 5).
    nine = CHIMERA.roll("skill", forced={"rolled": [9, 1, 3, 5]}, dice=3, advantage=2)
    assert sorted(nine.rolled["rolled"].faces) == [3, 5, 9]
    # At Disadvantage the 5 reads as a fail and the 0 still rerolls it (to a 7).
    zero = CHIMERA.roll("skill", forced={"rolled": [0, 5, 7]}, dice=2, disadvantage=1)
    assert sorted(zero.rolled["rolled"].faces) == [0, 7]
    # The text does not say which die a 0 rerolls: the least valuable, the 4 before the 7.
    least = CHIMERA.roll("skill", forced={"rolled": [0, 4, 7, 2]}, dice=3)
    assert sorted(least.rolled["rolled"].faces) == [0, 2, 7]


def test_chimera_a_trait_makes_the_roll_succeed_not_one_die():
    """ "Traits guarantee a success" and "force any roll to succeed even after resolve has been
    used to alter a roll" against "use their trait to change a die to an auto-success" (note
    `trait`): one die of 1, 2, 3 changed to a pass would still be a fail by the majority."""
    one_die_changed = CHIMERA.roll("pool", forced={"rolled": [6, 2, 3]}, dice=3)
    assert one_die_changed.outcome.name == "fail"
    result = CHIMERA.roll("skill", forced={"rolled": [1, 2, 3]}, dice=3, trait=True)
    assert (result.values["read"], result.outcome.name) == ("fail", "pass")


@pytest.mark.parametrize(
    ("die", "bonus", "total", "want"),
    [(8, 1, 9, "crit_pass"), (9, 3, 9, "crit_pass"), (1, -2, 0, "crit_fail")],
)
def test_chimera_a_save_reads_the_total_clamped_to_the_table(die: int, bonus: int, total: int, want: str):
    """ "success is determined strictly by the rolled amount, plus any bonus. The value is then
    compared to the Variables of Success" (note `save-total`: totals outside 0-9 read as 0 or 9)."""
    result = CHIMERA.roll("save", forced={"die": die}, bonus=bonus)
    assert (result.values["total"], result.outcome.name) == (total, want)
