"""The worked examples of the rule texts, as tests.

Each test quotes the example it pins. Where the example's own arithmetic is wrong, the test pins
the answer the *rule* gives and a comment names the ruleset note that records the erratum. Where a
text contradicts itself and no note records it, the comment says so (and the report lists it).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import engine

CHILL = engine.load("chill")
CHIMERA = engine.load("chimera")
CASTLE = engine.load("castle")
CHTHONIAN = engine.load("chthonian")


def note_ids(rs: engine.Ruleset) -> set[str]:
    return {n.id for n in rs.model.notes}


def standard(die: int, traits: int, difficulty: int = 8) -> engine.Result:
    return CHTHONIAN.roll("standard", forced={"die": die}, traits=traits, difficulty=difficulty)


# ---------------------------------------------------------------------------------------------
# Chthonian
# ---------------------------------------------------------------------------------------------


def test_walter_picks_the_lock():
    """ "I roll an 8, adds Ex-Detective 2 and subtracts the lock's Well-Crafted 3 for a result of
    7. My Extent is -4 (7 minus 11). Walter fails"."""
    # Erratum, chthonian.yaml note `erratum-ex-detective`: Walter's sheet says "ex-Detective 3",
    # but this example (and the Mulk contest) add Ex-Detective 2. We pin the example's own numbers
    # here; with the sheet's 3 the result is 8 and the Extent -3 (tests/test_readings.py).
    result = standard(8, 2 - 3, difficulty=11)
    assert result.values["result"] == 7
    assert result.values["extent"] == -4
    assert result.outcome.name == "failure"


def test_walter_and_the_crowbar_erratum():
    """ "Difficulty of 5. Walter' Player rolls a 7, adds the Crowbar's Pry 2 for a result of 9.
    My Extent is 2 (9 minus 7). Walter opens the chest"."""
    # Erratum, chthonian.yaml note `erratum-crowbar`: the text subtracts the roll, not the
    # Difficulty; by the rule the Extent is 9 - 5 = 4. We pin the rule's 4 (and the success).
    assert "erratum-crowbar" in note_ids(CHTHONIAN)
    result = standard(7, 2, difficulty=5)
    assert result.values["result"] == 9
    assert result.values["extent"] == 4
    assert result.outcome.name == "success"


def test_terrible_insight_roll_erratum():
    """ "Terrible Insight Roll … Difficulty of 8. Walter already has a Terrible Insight of 2, and
    Walter's Player rolls a 7 (9 - 2 from Practicality) for an Extent of -1. Walter gains another
    point of Terrible Insight"."""
    # Erratum, chthonian.yaml note `erratum-walter-ti-roll`: at TI 2 in a Weird Tale (the Style
    # chosen earlier) Practicality is one-half Insight rounded down, 1, not 2. By the rule the die
    # of 9 gives 8, Extent 0: a success ("Roller's Extent must be zero or greater"), no point.
    assert "erratum-walter-ti-roll" in note_ids(CHTHONIAN)
    result = standard(9, -1, difficulty=8)
    assert result.values["result"] == 8
    assert result.values["extent"] == 0
    assert result.outcome.name == "success"


def test_automatic_success_follow_up_roll_erratum():
    """ "Standard Roll with a Difficulty of 15, modified by his Practicality; the Player rolls a 5
    (7 - 2) for an Extent of -10. Walter gains another point of Terrible Insight along with new
    Numbers for his Practicality and Cognizance Traits"."""
    # Erratum, chthonian.yaml note `erratum-walter-automatic-success`: Walter comes to this Roll at
    # TI 2 (the Terrible Insight Roll above gained nothing), Practicality 1: 7 - 1 = 6, Extent -9,
    # a failure. The point takes him to TI 3, where his Numbers are still 3 // 2 = 1: no new
    # Numbers. The whole chain, as campaign state, is tests/test_readings.py's.
    assert "erratum-walter-automatic-success" in note_ids(CHTHONIAN)
    result = standard(7, -1, difficulty=15)
    assert result.values["result"] == 6
    assert result.values["extent"] == -9
    assert result.outcome.name == "failure"


def test_mulk_contest_erratum():
    """ "I roll a 6 and add Walter's Traits for a result of 9. The Narrator rolls an 8 for the Mulk
    and adds the Mulk's Traits for a result of 12. The Mulk is the winner with an Extent of 4
    (12 - 8)"."""
    # Erratum, chthonian.yaml note `erratum-mulk`: a contest's Extent is the difference of the two
    # results, 12 - 9 = 3; the text subtracted the Mulk's die. Walter adds Powerful 1 and
    # Ex-Detective 2, the Mulk Inhuman Strength 3 and Tough Hide 1.
    assert "erratum-mulk" in note_ids(CHTHONIAN)
    result = CHTHONIAN.roll("contest", forced={"die": 6, "foe_die": 8}, traits=1 + 2, foe_traits=3 + 1)
    assert (result.values["result"], result.values["foe_result"]) == (9, 12)
    assert result.outcome.name == "lose"
    assert result.values["extent"] == -3  # the Mulk's Extent of 3, from Walter's side


def test_instructive_notes():
    """ "I make a Roll with an Extent of 4. The directions now have the Trait Instructive 4. Anyone
    trying to decipher Walter's notes would add the Instructive Trait to their own Roll"."""
    # The Extent becomes a Trait of its number; the state keeps no objects (note `wounded`), so the
    # Trait is added by hand to the next Roll: a die of 5 with Instructive 4 makes 9.
    written = standard(12, 0, difficulty=8)
    assert written.values["extent"] == 4
    reader = standard(5, written.values["extent"], difficulty=8)
    assert (reader.values["result"], reader.outcome.name) == (9, "success")


def test_jade_figure_contest():
    """ "The Narrator gives Walter a Trait Close to the Jade Figure 2 (only for this instant). I roll
    a 6 (4 + 2), not enough to beat the Narrator's roll of 10!"."""
    race = CHTHONIAN.roll("contest", forced={"die": 4, "foe_die": 10}, traits=2, foe_traits=0)
    assert (race.values["result"], race.values["foe_result"], race.values["extent"]) == (6, 10, -4)
    assert race.outcome.name == "lose"


def test_phase_bear_atomized_contest():
    """ "Walter tries to duck and I roll a 7 (no Traits apply). The Narrator rolls a 9 (10 - 1 for
    the Phase Bear's Clumsy) for an initial Extent of 2 … the final Extent is 4 (2 + 3 - 1 from
    the Bear's Strong and Walter's Protection)"."""
    # Strong 3 and Walter's Protection 1 modify only the Extent (note `atomizing`); the contest's
    # Extent is signed from Walter's side.
    duck = CHTHONIAN.roll(
        "contest", forced={"die": 7, "foe_die": 10}, traits=0, foe_traits=-1, foe_extent_traits=3 - 1
    )
    assert (duck.values["result"], duck.values["foe_result"]) == (7, 9)
    assert (duck.values["extent"], duck.values["final_extent"]) == (-2, -4)
    assert duck.outcome.name == "lose"


def test_burglar_picks_a_well_made_lock():
    """ "an Excursionist (Burglar 2) picking a lock (Well-made 1) would apply those Traits to his Roll
    and not the Difficulty"."""
    # Both Traits go on the Roll (die + 2 - 1) and the Difficulty stays as set, the average 8: a die
    # of 7 makes a result of 8, Extent 0; a die of 6 fails.
    lock = standard(7, 2 - 1, difficulty=8)
    assert (lock.values["result"], lock.values["extent"], lock.outcome.name) == (8, 0, "success")
    assert standard(6, 2 - 1, difficulty=8).outcome.name == "failure"


def test_athlete_outruns_a_policeman():
    """ "If an Excursionist (Athlete 1) is outrunning a policeman (no applicable Traits), the Athlete
    Trait will apply to only one die"."""
    # Athlete 1 is added to the Excursionist's die alone: 6 + 1 against the policeman's bare 6.
    race = CHTHONIAN.roll("contest", forced={"die": 6, "foe_die": 6}, traits=1, foe_traits=0)
    assert (race.values["result"], race.values["foe_result"], race.values["extent"]) == (7, 6, 1)
    assert race.outcome.name == "win"


# ---------------------------------------------------------------------------------------------
# Chill
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", range(67, 77))
def test_connies_77_botch_turned_by_a_token(target):
    """ "if Connie had rolled a 77, that would be a Botch (higher than her target number and
    doubles), but turning a token would raise her target number high enough to be successful.
    She still turns a token dark from the Botch regardless, plus any tokens required … At that
    point the check is a Colossal Success … but the player does not turn a token light".

    The "previous example" giving Connie's target is not in our text; one token (+10) making 77
    a success means a target from 67 to 76, so every such target is tried."""
    before = CHILL.roll("specific", forced={"tens": 7, "ones": 7}, target=target)
    assert before.outcome.name == "botch"
    after = CHILL.roll("specific", forced={"tens": 7, "ones": 7}, target=target, tokens=1)
    assert after.outcome.name == "colossal_success"
    assert after.values["forced_dark"] == 2  # one from the Botch, one turned for +10
    # Erratum, chill.yaml note `erratum-player-turns-no-light`: "the player does not turn a token
    # light" names the wrong side; the Chill Master turns none light for this Colossal Success.
    assert after.values["forced_light"] == 0


def test_a_roll_equal_to_the_target_succeeds_erratum():
    """ "A check is successful if the result is lower than a particular number" against "If the
    roll is lower than or equal to the target number, but still more than half the target number,
    the result is a Low Success"."""
    # Erratum, chill.yaml note `erratum-lower-than`: the sentences that name the results win, so a
    # roll equal to the target succeeds; doubles equal to it are a Colossal Success.
    assert "erratum-lower-than" in note_ids(CHILL)
    assert CHILL.roll("specific", forced={"tens": 5, "ones": 6}, target=56).outcome.name == "low_success"
    assert CHILL.roll("specific", forced={"tens": 5, "ones": 7}, target=56).outcome.name == "failure"
    assert CHILL.roll("specific", forced={"tens": 5, "ones": 5}, target=55).outcome.name == "colossal_success"


def test_doubles_examples():
    """ "If the roll is doubles (33, 55, etc.)": 33 and 55 against 55 are Colossal Successes."""
    for d in (3, 5):
        result = CHILL.roll("specific", forced={"tens": d, "ones": d}, target=55)
        assert result.values["doubles"] is True
        assert result.outcome.name == "colossal_success"


# ---------------------------------------------------------------------------------------------
# Chimera
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("faces", "want", "quote"),
    [
        ([7, 7, 9], "pass", 'rolls three dice and gets a "7, 7, 9", the player "passes" the check'),
        ([0, 4, 9], "half_pass", '"0, 4, 9" … the result is a half-pass'),
        ([1, 5, 6], "half_pass", '"1, 5, 6" the result is a half-pass'),
        ([9, 8], "pass", 'two dice and gets "9, 8" … pass'),
        ([0, 1], "fail", '"0, 1" … fail'),
    ],
)
def test_rolling_with_resolve_examples(faces, want, quote):
    """The majority examples of "Rolling with Resolve" (tie-break per chimera.yaml note
    `majority-tie`), on the `pool` check: the majority reading of the dice given. The text does not
    say whether its examples are first rolls or the dice the 9s-and-0s procedure leaves; the same
    majority reads both (on `skill`: the next test)."""
    result = CHIMERA.roll("pool", forced={"rolled": faces}, dice=len(faces))
    assert result.outcome.name == want, quote


@pytest.mark.parametrize(
    ("first", "rerolls", "policy", "want"),
    [
        ([7, 7, 9], [], "always", "pass"),  # the 9 finds no die showing 0-5 to reroll
        ([1, 5, 6], [], "always", "half_pass"),  # no 9, no 0
        ([9, 8], [], "always", "pass"),
        ([0, 1], [], "always", "fail"),  # the 0 finds no die showing 4-8
        # Step 2 comes first: the 9 rerolls the 0 (a 0, a new one), which then rerolls the 4 (a 4).
        ([0, 4, 9], [0, 4], "always", "half_pass"),
        # Declined, the 9 rerolls nothing; the 0 must reroll the 4 (a 4).
        ([0, 4, 9], [4], "never", "half_pass"),
    ],
)
@pytest.mark.parametrize("resolve", [False, True])
def test_rolling_with_resolve_examples_under_the_procedure(first, rerolls, policy, want, resolve):
    """The same examples on `skill`, which runs the 9s-and-0s procedure: four of them leave it
    nothing to do, and "0, 4, 9" stands as the final dice of rolls that rerolled into it. The
    paragraph is "Rolling with Resolve" ("a player character can add as many Resolve die as they
    need"): each example is rolled again as one die and the rest Resolve, to the same end."""
    dice = {"dice": 1, "resolve": len(first) - 1} if resolve else {"dice": len(first)}
    result = CHIMERA.roll("skill", forced={"rolled": first + rerolls}, policy=policy, **dice)
    assert result.outcome.name == want
    assert tuple(sorted(result.rolled["rolled"].faces)) == tuple(sorted(first))


def test_zero_four_nine_as_a_first_roll_does_not_stand():
    """chimera.yaml note `majority-tie`: "0, 4, 9" is read as the dice that stand. Rolled first on
    `skill`, step 5 forces the 4's reroll ("If there are any 0s, you must reroll ... this only
    applies to 4, 5, 6, 7, 8"), so the new die decides: a 7 leaves crit_fail, pass, crit_pass,
    a three-way tie with no half pass, which the order gives to the pass."""
    result = CHIMERA.roll("skill", forced={"rolled": [0, 4, 9, 7]}, dice=3, policy="never")
    assert sorted(result.rolled["rolled"].faces) == [0, 7, 9]
    assert result.outcome.name == "pass"


@pytest.mark.parametrize(
    ("teacher", "student_roll", "want"),
    [
        (9, [1, 2], "pass"),
        (6, [4, 5], "pass"),
        (4, [4, 5], "half_pass"),
        (2, [4, 5], "fail"),
        (0, [6, 7], "fail"),
    ],
)
def test_teaching_an_ability(teacher, student_roll, want):
    """ "On a crit pass, the student rolls with double advantage, on a pass--advantage, on a
    half-pass--they roll normally, on a fail--disadvantage, and on a crit fail--double
    disadvantage. The student must then make their own roll with this modification"."""
    # Note ability-demonstration: the teacher's d10 is the `demonstration` check; its outputs are
    # the student's advantage and disadvantage. An ability's teacher gives no dice, so an
    # instructor of Luck modifier 4 leaves the student 2 dice.
    shown = CHIMERA.roll("demonstration", forced={"die": teacher})
    mod = {
        "advantage": shown.values["student_advantage"],
        "disadvantage": shown.values["student_disadvantage"],
    }
    result = CHIMERA.roll("instruction", forced={"rolled": student_roll}, proficiency=4, **mod)
    assert result.outcome.name == want


def test_auto_pass_never_critically_passes():
    """ "Auto-pass is gained when advantage stacks three times … no roll is made … a recipient
    will never ever ever ever ever critically pass with this boon"."""
    for advantage in (3, 4, 10):
        result = CHIMERA.roll("single", advantage=advantage)
        assert (result.outcome.name, result.auto, result.rolled) == ("pass", True, {})


def test_auto_fail_never_critically_fails():
    """ "Auto-fail … a recipient will never ever ever ever ever critically fail with this boon"."""
    for disadvantage in (3, 7):
        result = CHIMERA.roll("pool", dice=4, disadvantage=disadvantage)
        assert (result.outcome.name, result.auto, result.rolled) == ("fail", True, {})


def test_advantage_and_disadvantage_cancel():
    """ "any instance of disadvantage acts as a -1, and can detract from any advantages received":
    one of each is a normal roll, where a 4 is a half pass."""
    result = CHIMERA.roll("single", forced={"die": 4}, advantage=1, disadvantage=1)
    assert result.outcome.name == "half_pass"


# ---------------------------------------------------------------------------------------------
# The Castle
# ---------------------------------------------------------------------------------------------


def test_main_gauche_scenario_draws():
    """ "you begin duelling a Parisian fop and draw a Poor result while he rather shockingly draws
    a Good result, you can use your Main Gauche to swiftly try to turn the result in your favour by
    redrawing your result": both Average, the better result (Good) scores the hit, and the redraw
    is one fresh bead that can at best tie the fop's Good."""
    beads = {s.name: p for s, p in CASTLE.distribution("task", skill="average").table()}
    fop = {"foe_beads": ["good"]}
    assert CASTLE.roll("combat", forced={**fop, "beads": ["poor"]}).outcome.name == "foe_hits"
    after: dict[str, Fraction] = {}
    for bead, p in beads.items():
        redrawn = CASTLE.roll(
            "combat", forced={**fop, "beads": ["poor", bead]}, main_gauche=True, policy="optimal"
        )
        assert redrawn.values["main_gauche_used"] == 1
        after[redrawn.outcome.name] = after.get(redrawn.outcome.name, Fraction(0)) + p
    # By hand: a fresh bead of 45 (15 poor, 20 average, 10 good) ties on Good (2/9) and loses on
    # Poor or Average (7/9); it never wins, so the text's "try to" is apt.
    assert after == {"stand_off": Fraction(2, 9), "foe_hits": Fraction(7, 9)}


def test_botte_di_serge_is_draw_two_take_highest_damage():
    """ "deliver a Mighty Blow (draw 2 take the highest damage)": the most damaging of two wound
    chits, whatever the weapon's own draw (note `botte-di-serge`): a knife keeps the lighter of two
    on its own, and the same two chits with the Botte are the deadly one."""
    chits = {"chits": ["light", "deadly"]}
    assert CASTLE.roll("wound", forced=chits, weapon="knife").outcome.name == "light"
    blow = CASTLE.roll("wound", forced=chits, weapon="knife", botte_di_serge=True)
    assert blow.outcome.name == "deadly"
