"""Chthonian's lasting state (rulesets/chthonian.yaml, `state:` and `actions:`): Terrible Insight,
Practicality and Cognizance derived from it by the Style, Nodules fixed for a Story, the Rolls
that move Terrible Insight, the four uses of a Nodule, and a Wounded Trait that lasts.

Everything goes through the Python API (`engine.new_campaign` on a `MemoryStore`) with forced
d12s, and once through the command line in this process, on a SQLite file. The notes the tests
cite (`insight-rounding`, `erratum-walter-ti-roll`, ...) are the ruleset's `notes:`.
"""

from __future__ import annotations

import io
import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from _repo import REPO_ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.cli import run
from engine.errors import CampaignError
from engine.state.campaign import Campaign
from engine.state.memory import MemoryStore

RULESET = engine.load(REPO_ROOT / "rulesets" / "chthonian.yaml")
STYLES = ("pulp_adventure", "weird_tale", "shocking_discovery")

# The text's table "Terrible Insight & Style", with its footnote "Round down to nearest whole
# number": (Practicality, Cognizance) as fractions of Terrible Insight.
SUGGESTED = {
    "pulp_adventure": (Fraction(1, 3), Fraction(1, 2)),
    "weird_tale": (Fraction(1, 2), Fraction(1, 2)),
    "shocking_discovery": (Fraction(1), Fraction(1)),
}


def campaign(style: str, **starting: int) -> Campaign:
    """A campaign in memory with one character per keyword, each starting at that Terrible Insight."""
    return engine.new_campaign(
        "test",
        RULESET,
        store=MemoryStore(),
        params={"style": style},
        characters={who: {"starting_ti": ti} for who, ti in starting.items()},
    )


def items(c: Campaign, who: str) -> dict[str, Any]:
    found: dict[str, Any] = c.show()["characters"][who]["items"]
    return found


def refused(c: Campaign, action: str, who: str, **inputs: Any) -> str:
    """The code with which `action` is refused; the state must be unchanged."""
    before = c.show()
    with pytest.raises(CampaignError) as error:
        c.act(action, who, forced={"die": 12}, **inputs)
    assert c.show() == before
    return error.value.diagnostics[0].code


# -- Practicality and Cognizance ----------------------------------------------------------------


@pytest.mark.parametrize("ti", range(11))
@pytest.mark.parametrize("style", STYLES)
def test_practicality_and_cognizance_are_the_suggested_fractions_rounded_down(style: str, ti: int) -> None:
    practicality, cognizance = SUGGESTED[style]
    got = items(campaign(style, walter=ti), "walter")
    assert (got["ti"], got["practicality"], got["cognizance"]) == (
        ti,
        math.floor(practicality * ti),
        math.floor(cognizance * ti),
    )


def test_the_record_sheet_rounds_up_and_the_rule_wins() -> None:
    """Erratum (erratum-record-sheet): the sheet prints -1 -1 -2 -2 ... over the ten O's, which is
    one-half rounded up; the text says to round down, so TI 1..10 give 0 1 1 2 2 3 3 4 4 5."""
    sheet = [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    rule = [items(campaign("weird_tale", walter=ti), "walter")["practicality"] for ti in range(1, 11)]
    assert rule == [0, 1, 1, 2, 2, 3, 3, 4, 4, 5]
    assert [a - b for a, b in zip(sheet, rule, strict=True)] == [1, 0, 1, 0, 1, 0, 1, 0, 1, 0]


@pytest.mark.parametrize("style", STYLES)
def test_a_point_of_insight_gained_gives_a_point_only_in_a_shocking_discovery(style: str) -> None:
    """Erratum (erratum-insight-points): "Every point of Terrible Insight gained gives a point to
    a pair of special Traits: Practicality and Cognizance" against the Style table, which the
    next sentence defers to ("The meaning and values of these Traits depend on the Style"): the
    table wins: in a Weird Tale a point gained from TI 2 to 3 gives nothing (2 // 2 = 3 // 2 = 1),
    in a Pulp Adventure Practicality rises only at every third point, and only in a Shocking
    Discovery does the sentence hold for every point."""
    assert "erratum-insight-points" in {n.id for n in RULESET.model.notes}
    gains = []
    for ti in range(10):
        c = campaign(style, walter=ti)
        before = items(c, "walter")
        c.act("insight_roll", "walter", forced={"die": 1}, difficulty=8)  # fails: one point gained
        after = items(c, "walter")
        assert after["ti"] == ti + 1
        gains.append(
            (after["practicality"] - before["practicality"], after["cognizance"] - before["cognizance"])
        )
    every_point = [(1, 1)] * 10
    assert (gains == every_point) == (style == "shocking_discovery"), gains
    practicality, cognizance = SUGGESTED[style]
    assert gains == [
        (math.floor(practicality * (ti + 1)) - math.floor(practicality * ti),
         math.floor(cognizance * (ti + 1)) - math.floor(cognizance * ti))
        for ti in range(10)
    ]  # fmt: skip


def test_the_derived_values_follow_terrible_insight_as_it_changes() -> None:
    c = campaign("pulp_adventure", walter=5)
    assert (items(c, "walter")["practicality"], items(c, "walter")["cognizance"]) == (1, 2)
    c.act("insight_roll", "walter", forced={"die": 1}, difficulty=8)
    assert (
        items(c, "walter")["ti"],
        items(c, "walter")["practicality"],
        items(c, "walter")["cognizance"],
    ) == (
        6,
        2,
        3,
    )


# -- Rolls that move Terrible Insight ----------------------------------------------------------


def test_walters_terrible_insight_roll_succeeds_by_the_rule() -> None:
    """Erratum (erratum-walter-ti-roll): "Walter already has a Terrible Insight of 2, and Walter's
    Player rolls a 7 (9 - 2 from Practicality) for an Extent of -1." In the Weird Tale the text
    plays, TI 2 gives Practicality 1: the 9 becomes 8, Extent 0, a success, and no point."""
    c = campaign("weird_tale", walter=2)
    acted = c.act("insight_roll", "walter", forced={"die": 9}, difficulty=8)
    assert acted.result is not None
    assert acted.result.values == {"result": 8, "extent": 0, "final_extent": 0}
    assert acted.result.outcome.name == "success"
    assert items(c, "walter")["ti"] == 2


def test_the_texts_numbers_for_walters_roll_are_those_of_practicality_2() -> None:
    """The same roll in a Shocking Discovery (Practicality = TI = 2) gives the text's 7 and -1."""
    c = campaign("shocking_discovery", walter=2)
    acted = c.act("insight_roll", "walter", forced={"die": 9}, difficulty=8)
    assert acted.result is not None
    assert acted.result.values == {"result": 7, "extent": -1, "final_extent": -1}
    assert items(c, "walter")["ti"] == 3


@pytest.mark.parametrize(
    ("action", "die", "change"),
    [
        ("insight_roll", 7, +1),  # 7 - 1 = 6 against 8 fails: a point gained
        ("insight_roll", 9, 0),
        ("social_roll", 9, -1),  # 9 - 1 = 8 succeeds: a point lost
        ("social_roll", 8, 0),
        ("treatment", 9, -1),
        ("treatment", 7, 0),
    ],
)
def test_rolls_that_move_terrible_insight(action: str, die: int, change: int) -> None:
    c = campaign("weird_tale", walter=3)
    c.act(action, "walter", forced={"die": die}, difficulty=8)
    assert items(c, "walter")["ti"] == 3 + change
    assert items(c, "walter")["nodules"] == 3


def test_terrible_insight_never_goes_below_zero() -> None:
    c = campaign("weird_tale", walter=0)
    c.act("social_roll", "walter", forced={"die": 12}, difficulty=2, points=3)
    assert items(c, "walter")["ti"] == 0


# -- Nodules -----------------------------------------------------------------------------------


def test_nodules_are_fixed_for_the_story_and_a_new_story_sets_them_to_terrible_insight() -> None:
    c = campaign("weird_tale", walter=4)
    assert items(c, "walter")["nodules"] == 4
    for die in (1, 1, 1):  # three failed Terrible Insight Rolls: TI 7
        c.act("insight_roll", "walter", forced={"die": die}, difficulty=8)
    c.act("treatment", "walter", forced={"die": 12}, difficulty=5)  # 12 - 3 = 9: TI 6
    assert (items(c, "walter")["ti"], items(c, "walter")["nodules"]) == (6, 4)
    c.begin("story")
    assert (items(c, "walter")["ti"], items(c, "walter")["nodules"]) == (6, 6)


def test_a_new_story_replaces_the_nodules_left_over() -> None:
    """Note nodules: a Player can end a Story with more Nodules than TI; the next Story gives TI."""
    c = campaign("weird_tale", walter=3)
    c.act("insightful_shift", "walter", toward="practicality")
    assert (items(c, "walter")["ti"], items(c, "walter")["nodules"]) == (2, 2)
    c.begin("story")
    assert items(c, "walter")["nodules"] == 2


def test_each_character_gets_its_own_nodules() -> None:
    c = campaign("pulp_adventure", walter=1, anna=3)
    c.act("insightful_shift", "anna", toward="cognizance")
    c.begin("story")
    assert (items(c, "walter")["nodules"], items(c, "anna")["nodules"]) == (1, 4)


@pytest.mark.parametrize(
    ("action", "inputs"),
    [
        ("automatic_success", {"declared_extent": 3}),
        ("authorial_power", {"difficulty": 5}),
        ("lucky_break", {"victim_difficulty": 8}),
        ("insightful_shift", {"toward": "cognizance"}),
    ],
)
def test_every_use_of_a_nodule_needs_one(action: str, inputs: dict[str, Any]) -> None:
    c = campaign("weird_tale", walter=0)
    assert refused(c, action, "walter", **inputs) == "RC905"


# -- the Roll that follows a Nodule: Difficulty by Style, a point on failure -------------------

FOLLOW_UPS = [
    # (action, inputs, Difficulty in Pulp, Weird and Shocking)
    ("automatic_success", {"declared_extent": 15}, (7, 15, 30)),
    ("automatic_success", {"declared_extent": 4}, (2, 4, 8)),
    ("authorial_power", {"difficulty": 11}, (5, 11, 22)),
    ("authorial_power", {"difficulty": 5}, (2, 5, 10)),
    ("authorial_power", {"difficulty": 11, "by_style": False}, (11, 11, 11)),
    ("lucky_break", {"victim_difficulty": 9}, (4, 9, 18)),
]


@pytest.mark.parametrize(("action", "inputs", "difficulties"), FOLLOW_UPS)
@pytest.mark.parametrize("style", STYLES)
def test_the_follow_up_difficulty_is_scaled_by_the_style(
    style: str, action: str, inputs: dict[str, Any], difficulties: tuple[int, int, int]
) -> None:
    """Half (rounded down), equal or double; seen through the Extent of a forced roll at TI 1 (one
    Nodule to spend; Practicality 0, or 1 in a Shocking Discovery)."""
    c = campaign(style, walter=1)
    practicality = items(c, "walter")["practicality"]
    acted = c.act(action, "walter", forced={"die": 6}, **inputs)
    assert acted.result is not None
    assert acted.result.values["extent"] == 6 - practicality - difficulties[STYLES.index(style)]


@pytest.mark.parametrize(("action", "inputs", "difficulties"), FOLLOW_UPS)
@pytest.mark.parametrize("style", STYLES)
def test_a_failed_follow_up_roll_adds_a_point_and_a_success_does_not(
    style: str, action: str, inputs: dict[str, Any], difficulties: tuple[int, int, int]
) -> None:
    difficulty = difficulties[STYLES.index(style)]
    for die in range(1, 13):
        c = campaign(style, walter=2)
        practicality = items(c, "walter")["practicality"]
        acted = c.act(action, "walter", forced={"die": die}, **inputs)
        assert acted.result is not None
        failed = die - practicality < difficulty
        assert acted.result.outcome.name == ("failure" if failed else "success")
        assert items(c, "walter")["ti"] == 2 + failed
        assert items(c, "walter")["nodules"] == 1  # spent either way


def test_walters_automatic_success_of_extent_15() -> None:
    """Note erratum-walter-automatic-success: "rolls a 5 (7 - 2) for an Extent of -10" and "new Numbers"
    after the point hold in a Weird Tale only from TI 5 (Practicality 2, then 3 at TI 6)."""
    c = campaign("weird_tale", walter=5)
    acted = c.act("automatic_success", "walter", forced={"die": 7}, declared_extent=15)
    assert acted.result is not None
    assert acted.result.values == {"result": 5, "extent": -10, "final_extent": -10}
    expected = {"ti": 6, "practicality": 3, "cognizance": 3, "nodules": 4, "wounded": 0}
    assert {k: v for k, v in items(c, "walter").items() if k in expected} == expected


# -- Insightful Shift -------------------------------------------------------------------------


def test_insightful_shifts_move_terrible_insight_by_one_without_a_roll() -> None:
    c = campaign("weird_tale", walter=3)
    acted = c.act("insightful_shift", "walter", toward="practicality")
    assert acted.result is None
    assert (items(c, "walter")["ti"], items(c, "walter")["nodules"]) == (2, 2)
    c.act("insightful_shift", "walter", toward="cognizance")
    c.act("insightful_shift", "walter", toward="cognizance")
    assert (items(c, "walter")["ti"], items(c, "walter")["nodules"]) == (4, 0)


def test_a_shift_towards_practicality_with_no_terrible_insight_is_refused() -> None:
    c = campaign("weird_tale", walter=1)
    c.act("social_roll", "walter", forced={"die": 12}, difficulty=2)
    assert (items(c, "walter")["ti"], items(c, "walter")["nodules"]) == (0, 1)
    assert refused(c, "insightful_shift", "walter", toward="practicality") == "RC905"
    c.act("insightful_shift", "walter", toward="cognizance")
    assert (items(c, "walter")["ti"], items(c, "walter")["nodules"]) == (1, 0)


# -- Wounded ----------------------------------------------------------------------------------


def test_a_wound_lasts_and_hinders_every_later_roll() -> None:
    """Walter's shot of Extent 3 leaves the Mulk Wounded 3, applied "to all its future rolls"."""
    c = campaign("weird_tale", mulk=0)
    c.act("harm", "mulk", extent=3)
    assert items(c, "mulk")["wounded"] == 3
    fight = c.act("fight", "mulk", forced={"die": 6, "foe_die": 8}, traits=4, foe_traits=3)
    assert fight.result is not None
    assert fight.result.values == {"result": 7, "foe_result": 11, "extent": -4, "final_extent": -4}
    assert items(c, "mulk")["wounded"] == 7
    roll = c.act("standard_roll", "mulk", forced={"die": 10}, traits=2, difficulty=8)
    assert roll.result is not None
    assert roll.result.values == {"result": 5, "extent": -3, "final_extent": -3}  # 10 + 2 - 7


def test_the_mulks_blow_wounds_walter_by_the_rules_extent() -> None:
    """Erratum (erratum-mulk): 9 against 12 is an Extent of 3, not the text's "4 (12 - 8)"."""
    c = campaign("weird_tale", walter=0)
    c.act("fight", "walter", forced={"die": 6, "foe_die": 8}, traits=3, foe_traits=4)
    assert items(c, "walter")["wounded"] == 3
    c.act("fight", "walter", forced={"die": 12, "foe_die": 1}, traits=3, foe_traits=4)  # a win
    assert items(c, "walter")["wounded"] == 3


@pytest.mark.parametrize(
    ("portion", "extent", "wounded"), [("full", 7, 7), ("one_half", 7, 3), ("one_fifth", 9, 1)]
)
def test_the_part_of_an_extent_that_wounds_is_rounded_down(portion: str, extent: int, wounded: int) -> None:
    c = campaign("pulp_adventure", walter=0)
    c.act("harm", "walter", extent=extent, portion=portion)
    assert items(c, "walter")["wounded"] == wounded


def test_wounded_enters_the_terrible_insight_rolls_and_recovery_lowers_it() -> None:
    c = campaign("weird_tale", walter=0)
    c.act("harm", "walter", extent=2)
    c.act("insight_roll", "walter", forced={"die": 9}, difficulty=8)  # 9 - 2 = 7 fails
    assert items(c, "walter")["ti"] == 1
    c.act("recover", "walter", points=5)
    assert items(c, "walter")["wounded"] == 0


def test_cognizance_helps_and_practicality_hinders_a_standard_roll() -> None:
    c = campaign("shocking_discovery", walter=3)
    got = {
        insight: c.act("standard_roll", "walter", forced={"die": 6}, insight=insight).result
        for insight in ("none", "practicality", "cognizance")
    }
    assert {k: r.values["result"] for k, r in got.items() if r is not None} == {
        "none": 6,
        "practicality": 3,
        "cognizance": 9,
    }
    assert items(c, "walter")["ti"] == 3


# -- a law over any sequence of actions ---------------------------------------------------------

STEPS = st.one_of(
    st.tuples(st.just("insight_roll"), st.integers(1, 12)),
    st.tuples(st.just("social_roll"), st.integers(1, 12)),
    st.tuples(st.just("treatment"), st.integers(1, 12)),
    st.tuples(st.just("automatic_success"), st.integers(1, 12)),
    st.tuples(st.just("lucky_break"), st.integers(1, 12)),
    st.tuples(st.just("shift_practicality"), st.just(0)),
    st.tuples(st.just("shift_cognizance"), st.just(0)),
    st.tuples(st.just("story"), st.just(0)),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(style=st.sampled_from(STYLES), start=st.integers(0, 6), steps=st.lists(STEPS, max_size=10))
def test_nodules_move_only_when_spent_or_when_a_story_begins(
    style: str, start: int, steps: list[tuple[str, int]]
) -> None:
    """After any sequence: TI is never negative; Practicality and Cognizance are the suggested
    fractions of TI rounded down; Nodules drop by exactly one per use of a Nodule, are TI when a
    Story begins, and are changed by nothing else; the log replays to the same state."""
    c = campaign(style, walter=start)
    for action, die in steps:
        before = items(c, "walter")
        spends = action in ("automatic_success", "lucky_break") or action.startswith("shift")
        try:
            if action == "story":
                c.begin("story")
            elif action.startswith("shift"):
                c.act("insightful_shift", "walter", toward=action.removeprefix("shift_"))
            elif action == "automatic_success":
                c.act(action, "walter", forced={"die": die}, declared_extent=6)
            elif action == "lucky_break":
                c.act(action, "walter", forced={"die": die}, victim_difficulty=8)
            else:
                c.act(action, "walter", forced={"die": die}, difficulty=8)
        except CampaignError as error:
            assert error.diagnostics[0].code == "RC905"
            assert spends and (before["nodules"] == 0 or before["ti"] == 0)
            assert items(c, "walter") == before
            continue
        after = items(c, "walter")
        if action == "story":
            assert after["nodules"] == after["ti"] == before["ti"]
        else:
            assert after["nodules"] == before["nodules"] - spends
            assert abs(after["ti"] - before["ti"]) <= 1
        practicality, cognizance = SUGGESTED[style]
        assert after["ti"] >= 0
        assert after["practicality"] == math.floor(practicality * after["ti"])
        assert after["cognizance"] == math.floor(cognizance * after["ti"])
    assert c.replay() == c.state()


# -- the command line -------------------------------------------------------------------------


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def test_walters_story_through_the_command_line(tmp_path: Path) -> None:
    db = str(tmp_path / "campaigns.db")
    ruleset = str(REPO_ROOT / "rulesets" / "chthonian.yaml")
    code, out, err = cli(
        "campaign", "--db", db, "new", "tale", ruleset, "-p", "style=weird_tale",
        "-c", "walter:starting_ti=5", "-c", "anna",
    )  # fmt: skip
    assert code == 0, err
    code, out, err = cli(
        "campaign", "--db", db, "act", "tale", "automatic_success", "-c", "walter",
        "-i", "declared_extent=15", "--force", "die=7", "--json",
    )  # fmt: skip
    assert code == 0, err
    done = json.loads(out)
    assert done["event"]["data"]["roll"]["values"] == {"result": 5, "extent": -10, "final_extent": -10}
    walter = done["state"]["characters"]["walter"]["items"]
    assert {k: walter[k] for k in ("ti", "practicality", "cognizance", "nodules", "wounded")} == {
        "ti": 6,
        "practicality": 3,
        "cognizance": 3,
        "nodules": 4,
        "wounded": 0,
    }
    code, out, err = cli("campaign", "--db", db, "begin", "tale", "story", "--json")
    assert code == 0, err
    assert json.loads(out)["state"]["characters"]["walter"]["items"]["nodules"] == 6
    code, out, err = cli(
        "campaign", "--db", db, "act", "tale", "insightful_shift", "-c", "anna", "-i", "toward=cognizance"
    )
    assert code == 1
    assert "RC905" in out + err and "no Nodule left" in out + err
    assert cli("campaign", "--db", db, "replay", "tale")[0] == 0


def test_a_check_input_the_action_works_out_out_of_bounds_is_told_at_the_action() -> None:
    """Hunt 13v: at Terrible Insight 31 in a Shocking Discovery (Practicality 31), the action's
    `traits - practicality - wounded` is -31, below the Standard Roll's -30. It was told at the
    check's declaration as `input 'traits' = -31`, naming an input the user never gave (theirs
    was 0); it is told at the action's expression, saying which action worked it out and how,
    and nothing is written."""
    c = campaign("shocking_discovery", walter=30)
    c.act("insight_roll", "walter", forced={"die": 1})
    assert items(c, "walter")["ti"] == 31
    before, events = c.show(), len(c.log())
    with pytest.raises(engine.RulecraftError) as error:
        c.act("insight_roll", "walter", forced={"die": 1})
    [d] = error.value.diagnostics
    assert d.code == "RC403", d.render()
    assert d.message.startswith(
        "input 'traits' = -31 is below its minimum -30: worked out by action 'insight_roll' as "
        "traits - practicality - wounded for check 'standard', declared at "
    ), d.message
    assert d.span is not None
    text = (REPO_ROOT / "rulesets" / "chthonian.yaml").read_text().splitlines()[d.span.line - 1]
    assert text[d.span.col - 1 :].startswith("traits - practicality - wounded"), text
    assert c.show() == before and len(c.log()) == events
