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
CHTHONIAN = engine.load("chthonian")


def table(rs: engine.Ruleset, check: str, **inputs: object) -> dict[str, Fraction]:
    return {s.name: p for s, p in rs.distribution(check, **inputs).table()}


# ---------------------------------------------------------------------------------------------
# Chill, note `hundred`
# ---------------------------------------------------------------------------------------------


def test_chill_against_exactly_100_the_00_is_a_failure_not_a_botch():
    """Botch: "the roll is doubles ... and is higher than the target number"; "A roll of a 100 is
    a failure, no matter what"; "If a target number is 100 or more, you can only fail if you
    roll 100". 100 is not higher than 100: against exactly 100 the 00 is a plain Failure. The
    footnote, "*If your character number is greater than 100, a roll of 00 is considered a Failure,
    not a Botch", speaks of numbers over 100 alone and so does not decide exactly 100 either way
    (note hundred reads its "character number" as the target number)."""
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
    """6 - 6 = 0 dice are needed: nothing is rolled and the student passes (an earlier reading of
    ours made it an Auto-fail); Auto-fail still fails."""
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


@pytest.mark.parametrize(
    ("foe", "mine", "want"), [("poor", "poor", "stand_off"), ("average", "good", "you_hit")]
)
def test_castle_main_gauche_redraws_only_a_losing_bead(foe, mine, want):
    """Note main-gauche: the redraw is "to turn the result in your favour", and a stand-off has the
    Riposte ("in the event of a draw, you can redraw"): even `always` keeps a tie or a win (one
    forced bead each: a redraw would run out of beads)."""
    for policy in ("always", "optimal"):
        result = CASTLE.roll(
            "combat", forced={"foe_beads": [foe], "beads": [mine]}, main_gauche=True, policy=policy
        )
        assert result.outcome.name == want
        assert not any(s.kind == "redraw" for s in result.trace)


# ---------------------------------------------------------------------------------------------
# Chimera: the `pool` check is the plain majority (note pool-check); traits on saves (save-trait)
# ---------------------------------------------------------------------------------------------

VOS = ["crit_fail"] + ["fail"] * 3 + ["half_pass"] * 2 + ["pass"] * 3 + ["crit_pass"]  # faces 0-9
TIE_ORDER = ["half_pass", "fail", "pass", "crit_fail", "crit_pass"]  # note majority-tie


def test_chimera_pool_is_the_plain_majority_of_the_dice_as_rolled():
    """Two dice, no 9s-and-0s procedure: a pair reads its class, two classes tie and the tie goes
    by the order of note majority-tie. Counted over the 100 face pairs by hand."""
    counts = dict.fromkeys(TIE_ORDER, 0)
    for a in range(10):
        for b in range(10):
            ca, cb = VOS[a], VOS[b]
            counts[ca if ca == cb else min(ca, cb, key=TIE_ORDER.index)] += 1
    assert table(CHIMERA, "pool", dice=2) == {k: Fraction(v, 100) for k, v in counts.items()}
    # A 0 beside a 6: the plain majority keeps the tie (a pass); the skill check's 0s rule ("you
    # must reroll") rerolls the 6.
    assert CHIMERA.roll("pool", forced={"rolled": [0, 6]}, dice=2).outcome.name == "pass"
    assert CHIMERA.roll("skill", forced={"rolled": [0, 6, 2]}, dice=2).outcome.name == "fail"
    pool = CHIMERA.checks["pool"]
    assert "not a Chimera check" in pool.title and "skill" not in pool.title.lower()


@pytest.mark.parametrize("bonus", [-2, 0, 1, 3])
@pytest.mark.parametrize("level", [-2, -1, 0, 1, 2])
def test_chimera_a_trait_forces_a_save_to_succeed(bonus: int, level: int):
    """Traits "can be used to force any roll to succeed"; step 6 offers "resolve, a trait, or
    taking a point of corruption" on every roll: a save below a pass becomes a pass."""
    ladder = {
        -2: ["crit_fail", "fail", "fail", "fail", "crit_pass"],
        -1: ["crit_fail", "fail", "fail", "pass", "crit_pass"],
        0: ["crit_fail", "fail", "half_pass", "pass", "crit_pass"],
        1: ["crit_fail", "fail", "pass", "pass", "crit_pass"],
        2: ["crit_fail", "pass", "pass", "pass", "crit_pass"],
    }[level]  # the columns 0 | 1-3 | 4-5 | 6-8 | 9 of the text's tables
    column = [0, 1, 1, 1, 2, 2, 3, 3, 3, 4]
    want = dict.fromkeys(TIE_ORDER, Fraction(0))
    for die in range(10):
        read = ladder[column[min(max(die + bonus, 0), 9)]]
        want["pass" if read in ("crit_fail", "fail", "half_pass") else read] += Fraction(1, 10)
    inputs = {"advantage": max(level, 0), "disadvantage": max(-level, 0)}
    assert table(CHIMERA, "save", bonus=bonus, trait=True, **inputs) == want


# ---------------------------------------------------------------------------------------------
# Chthonian: Atomizing (note atomizing) and the worked examples' slips
# ---------------------------------------------------------------------------------------------


def test_chthonian_atomizing_adds_the_extent_traits_only_to_a_success():
    """ "the Player should roll the die, using any Traits that would modify the Roll to figure the
    Extent. Only if this initial Extent is a success does the Player add Traits to the Extent for
    a final result." d12 against 8 with Extent Traits 2, by hand: faces 1-7 keep Extents -7..-1,
    faces 8-12 (Extents 0..4) become 2..6."""
    final = CHTHONIAN.distribution("standard", difficulty=8, extent_traits=2).value("final_extent")
    want = {face - 8 + (2 if face >= 8 else 0): Fraction(1, 12) for face in range(1, 13)}
    assert {v: final.probability(v) for v in want} == want
    assert sum(want.values()) == 1


def test_chthonian_the_phase_bear_atomized():
    """ "I roll a 7 (no Traits apply). The Narrator rolls a 9 (10 - 1 for the Phase Bear's Clumsy)
    for an initial Extent of 2 ... the final Extent is 4 (2 + 3 - 1 from the Bear's Strong and
    Walter's Protection)"."""
    result = CHTHONIAN.roll(
        "contest", forced={"die": 7, "foe_die": 10}, traits=0, foe_traits=-1, foe_extent_traits=3 - 1
    )
    assert result.outcome.name == "lose"
    assert (result.values["extent"], result.values["final_extent"]) == (-2, -4)
    # Not atomized (no Extent Traits), the Contest's Extent is the plain difference.
    plain = CHTHONIAN.roll("contest", forced={"die": 7, "foe_die": 10}, foe_traits=-1)
    assert plain.values["final_extent"] == plain.values["extent"] == -2


def test_chthonian_walters_sheet_against_his_examples():
    """Note erratum-ex-detective: the sheet's "ex-Detective 3" against the examples' 2."""
    lock = CHTHONIAN.roll("standard", forced={"die": 8}, traits=3 - 3, difficulty=11)
    assert (lock.values["result"], lock.values["extent"], lock.outcome.name) == (8, -3, "failure")
    mulk = CHTHONIAN.roll("contest", forced={"die": 6, "foe_die": 8}, traits=1 + 3, foe_traits=3 + 1)
    assert (mulk.values["result"], mulk.values["foe_result"], mulk.values["extent"]) == (10, 12, -2)
    assert "erratum-ex-detective" in {n.id for n in CHTHONIAN.model.notes}


def test_chthonian_walters_automatic_success_by_the_rule():
    """Note erratum-walter-automatic-success: in the text's order, the Terrible Insight Roll (9 - 1
    = 8 against 8) succeeds and Walter keeps TI 2; the Roll after his Automatic Success is then
    7 - 1 = 6, Extent -9, not "5 (7 - 2)", -10, and the point it costs takes him to TI 3, where
    Practicality and Cognizance are still 1: no "new Numbers"."""
    campaign = engine.new_campaign(
        "t",
        CHTHONIAN,
        store=MemoryStore(),
        params={"style": "weird_tale"},
        characters={"walter": {"starting_ti": 2}},
    )
    studied = campaign.act("insight_roll", "walter", forced={"die": 9}, difficulty=8)
    assert studied.result is not None and studied.result.outcome.name == "success"
    assert studied.result.values["extent"] == 0
    assert campaign.show()["characters"]["walter"]["items"]["ti"] == 2
    acted = campaign.act("automatic_success", "walter", forced={"die": 7}, declared_extent=15)
    assert acted.result is not None
    assert acted.result.values["result"] == 6 and acted.result.values["extent"] == -9
    sheet = campaign.show()["characters"]["walter"]["items"]
    assert (sheet["ti"], sheet["practicality"], sheet["cognizance"]) == (3, 1, 1)
