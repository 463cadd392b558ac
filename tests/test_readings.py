"""Readings of the rule texts fixed in issue 12, each pinned by an exact distribution worked
out by hand (Fractions) or by forced dice, independently of the ruleset.

Each test quotes the sentences its reading weighs; the ruleset note named in it records them.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import engine
from engine.errors import RulecraftError
from engine.state.memory import MemoryStore

CHILL = engine.load("chill")
CHIMERA = engine.load("chimera")
CASTLE = engine.load("castle")


def table(rs: engine.Ruleset, check: str, **inputs: object) -> dict[str, Fraction]:
    return {s.name: p for s, p in rs.distribution(check, **inputs).table()}


# ---------------------------------------------------------------------------------------------
# Chill, note `hundred`
# ---------------------------------------------------------------------------------------------


def test_chill_against_exactly_100_the_00_is_a_failure_not_a_botch():
    """Botch: "the roll is doubles ... and is higher than the target number"; "A roll of a 100 is
    a failure, no matter what"; "If a target number is 100 or more, you can only fail if you
    roll 100". 100 is not higher than 100: against exactly 100 the 00 is a plain Failure."""
    # By hand, target 100: doubles 11..99 are Colossal (9 rolls); 1..50 but 11, 22, 33, 44 High
    # (46); 51..99 but 55, 66, 77, 88, 99 Low (44); 00 a Failure (1).
    assert table(CHILL, "specific", target=100) == {
        "botch": Fraction(0),
        "failure": Fraction(1, 100),
        "low_success": Fraction(44, 100),
        "high_success": Fraction(46, 100),
        "colossal_success": Fraction(9, 100),
    }


@pytest.mark.parametrize(("target", "band"), [(99, "botch"), (100, "failure"), (101, "failure")])
def test_chill_00_is_a_botch_only_against_a_lower_target(target: int, band: str):
    result = CHILL.roll("specific", forced={"tens": 0, "ones": 0}, target=target)
    assert result.outcome.name == band
    assert result.values["forced_dark"] == (1 if band == "botch" else 0)


# ---------------------------------------------------------------------------------------------
# Chimera instruction checks, notes `instruction`, `instruction-dice`, `instruction-master`
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("proficiency", range(0, 6))
@pytest.mark.parametrize("given", [0, 1, 2, 4, 6])
def test_chimera_resolve_makes_up_the_dice_an_instruction_needs(proficiency: int, given: int):
    """ "is subtracted from a value of 6. This determines the number of dice needed for the check.
    Use your Resolve to meet the required number of dice"; the teacher "gives this number of dice
    to their student". The check rolls exactly 6 - proficiency dice, whatever the teacher gives;
    resolve pays for the ones the teacher does not give."""
    needed = 6 - proficiency
    faces = [6] * needed  # every die a pass: no 9 or 0 to set off a reroll
    result = CHIMERA.roll("instruction", forced={"rolled": faces}, proficiency=proficiency, given=given)
    assert len(result.drawn["rolled"]) == needed
    assert result.values["resolve_needed"] == max(needed - given, 0)
    assert result.outcome.name == "pass"


def test_chimera_an_instruction_with_one_die_reads_the_variables_of_success():
    """Proficiency 5: one die; "If you rolled multiple die, and there is a 9" does not apply, and a
    lone 0 has no 4-8 die to reroll. 0 | 1-3 | 4-5 | 6-8 | 9 out of ten faces."""
    assert table(CHIMERA, "instruction", proficiency=5, given=1) == {
        "crit_fail": Fraction(1, 10),
        "fail": Fraction(3, 10),
        "half_pass": Fraction(2, 10),
        "pass": Fraction(3, 10),
        "crit_pass": Fraction(1, 10),
    }


def test_chimera_an_instructor_of_proficiency_six_needs_no_die_and_the_student_passes():
    """6 - 6 = 0 dice are needed: nothing is rolled and the student passes (it was an Auto-fail);
    Auto-fail still fails."""
    master = CHIMERA.distribution("instruction", proficiency=6)
    assert {s.name: p for s, p in master.table() if p} == {"pass": Fraction(1)}
    assert master.value("success").probability(1) == 1
    assert CHIMERA.roll("instruction", proficiency=6, disadvantage=3).outcome.name == "fail"


# ---------------------------------------------------------------------------------------------
# The Castle, note `main-gauche`
# ---------------------------------------------------------------------------------------------


def test_castle_a_task_draw_offers_no_main_gauche():
    """ "you can make one re-draw every fight ... But just once for each combat": the task check
    (outside a fight) has no Main Gauche input, and the attempt action none to spend."""
    with pytest.raises(RulecraftError) as error:
        CASTLE.roll("task", forced={"beads": ["poor", "good"]}, main_gauche=True)
    assert error.value.diagnostics[0].code == "RC402"
    campaign = engine.new_campaign(
        "t", CASTLE, store=MemoryStore(), characters={"duval": {"fencing": 1, "main_gauche": True}}
    )
    with pytest.raises(RulecraftError) as error:
        campaign.act("attempt", "duval", forced={"beads": ["poor", "good"]}, use_main_gauche=True)
    assert error.value.diagnostics[0].code == "RC402"
    # By hand: one bead of 45 (15 poor, 20 average, 10 good), whatever the policy.
    for policy in ("always", "optimal"):
        got = {s.name: p for s, p in CASTLE.distribution("task", policy=policy).table()}
        assert got == {"poor": Fraction(1, 3), "average": Fraction(4, 9), "good": Fraction(2, 9)}


def test_castle_main_gauche_in_a_fight_is_the_combat_exchange_redraw():
    """The Parisian fop draws Good and you Poor: "you can use your Main Gauche to swiftly try to
    turn the result in your favour by redrawing your result"."""
    forced = {"foe_beads": ["good"], "beads": ["poor", "good"]}
    result = CASTLE.roll("combat", forced=forced, main_gauche=True, policy="optimal")
    assert result.outcome.name == "stand_off"
