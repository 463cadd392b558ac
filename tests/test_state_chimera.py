"""Chimera's lasting state (rulesets/chimera.yaml, `state:` and `actions:`), through the Python API
and the command line: traits once per day, resolve that is spent and never goes below 0,
corruption, instruction (three cumulative successes, one attempt per rest, a new subject abandons
the successes so far), and the consequences a critical failure puts on helpers.

Every roll's dice are forced, so each test says exactly which roll it is about. The readings the
ruleset chose are its notes (trait-per-day, resolve-pool, resolve-regain, corruption,
instruction-state, instruction-dice, help, erratum-disadvantage).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from _repo import REPO_ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.cli import run
from engine.errors import CampaignError
from engine.state.campaign import Campaign
from engine.state.memory import MemoryStore

PATH = REPO_ROOT / "rulesets" / "chimera.yaml"
CHIMERA = engine.load(PATH)
FAST = settings(max_examples=40, deadline=None)
SUCCESS = ["crit_fail", "fail", "half_pass", "pass", "crit_pass"]  # the scale, worst first


def table(**characters: dict[str, Any]) -> Campaign:
    """A new campaign in memory with these characters (`ada={"max_resolve": 3}`)."""
    return engine.new_campaign("moor", CHIMERA, store=MemoryStore(), characters=characters)


def sheet(campaign: Campaign, who: str = "ada") -> dict[str, Any]:
    items: dict[str, Any] = campaign.show()["characters"][who]["items"]
    return items


def owed(campaign: Campaign) -> int:
    value: int = campaign.show()["shared"]["helper_consequences"]
    return value


def refused(code: str, campaign: Campaign, action: str, who: str | None = "ada", **kw: Any) -> None:
    """`action` is refused with `code`, and the campaign's state and log stay as they were."""
    before, events = campaign.state(), len(campaign.log())
    with pytest.raises(CampaignError) as error:
        campaign.act(action, who, **kw)
    assert error.value.diagnostics[0].code == code, error.value.diagnostics[0].render()
    assert campaign.state() == before
    assert len(campaign.log()) == events


def instruct(campaign: Campaign, subject: int, passes: bool, who: str = "ada", **kw: Any) -> None:
    """One instruction attempt with an instructor of proficiency 4 (two dice needed) who gives four
    dice, so no resolve makes them up (note instruction): 6, 7 is a pass and 1, 2 a fail."""
    dice = [6, 7] if passes else [1, 2]
    kw.setdefault("given", 4)
    campaign.act("instruct", who, forced={"rolled": dice}, subject=subject, proficiency=4, **kw)


# -- traits: once per day ----------------------------------------------------------------------


def test_a_trait_lifts_a_fail_once_per_day_and_a_new_day_gives_it_back() -> None:
    c = table(ada={"max_resolve": 3})
    acted = c.act("skill_check", "ada", forced={"rolled": [1, 2]}, dice=2, use_trait=True)
    assert acted.result is not None
    assert (acted.result.outcome.name, acted.result.values["read"]) == ("pass", "fail")
    assert sheet(c)["traits_left"] == 0
    refused("RC905", c, "attack_check", forced={"rolled": [1, 3]}, dice=2, use_trait=True)
    c.begin("rest")  # a rest is not a day
    assert sheet(c)["traits_left"] == 0
    c.begin("day")
    assert sheet(c)["traits_left"] == 1
    c.act("evasion_check", "ada", forced={"rolled": [3, 2]}, dice=2, use_trait=True)
    assert sheet(c)["traits_left"] == 0


def test_each_trait_is_a_use_a_day() -> None:
    c = table(bea={"max_resolve": 0, "traits": 2})
    for _ in range(2):
        c.act("skill_check", "bea", forced={"rolled": [1, 2]}, dice=2, use_trait=True)
    assert sheet(c, "bea")["traits_left"] == 0
    refused("RC905", c, "skill_check", "bea", forced={"rolled": [1, 2]}, dice=2, use_trait=True)


two_plain_dice = st.lists(st.integers(1, 8), min_size=2, max_size=2)


@FAST
@given(two_plain_dice)
def test_a_trait_is_spent_exactly_when_the_roll_reads_below_a_pass(dice: list[int]) -> None:
    # Faces 1-8 set off no 9s-and-0s rerolls, so the two forced dice are the whole roll.
    c = table(ada={"max_resolve": 0})
    acted = c.act("skill_check", "ada", forced={"rolled": dice}, dice=2, use_trait=True)
    assert acted.result is not None
    below = SUCCESS.index(acted.result.values["read"]) < SUCCESS.index("pass")
    assert sheet(c)["traits_left"] == (0 if below else 1)
    assert SUCCESS.index(acted.result.outcome.name) >= SUCCESS.index("pass")


def test_a_roll_decided_before_the_dice_spends_no_trait() -> None:
    # note trait: an auto-fail (disadvantage 3) or no dice at all rolls nothing for the trait to lift.
    c = table(ada={"max_resolve": 0})
    auto = c.act("skill_check", "ada", seed=1, dice=2, disadvantage=3, use_trait=True)
    none = c.act("skill_check", "ada", seed=1, dice=0, use_trait=True)
    assert auto.result is not None and none.result is not None
    assert (auto.result.outcome.name, none.result.outcome.name) == ("fail", "fail")
    assert sheet(c)["traits_left"] == 1


# -- resolve: spent, never below 0 -------------------------------------------------------------


@FAST
@given(st.integers(0, 6), st.lists(st.integers(0, 4), max_size=6))
def test_resolve_dice_are_paid_and_resolve_never_goes_below_zero(top: int, spends: list[int]) -> None:
    c = table(ada={"max_resolve": top})
    left = top
    for n in spends:
        forced = {"rolled": [6] * (1 + n)}
        if n > left:
            refused("RC905", c, "skill_check", forced=forced, dice=1, resolve_dice=n)
        else:
            c.act("skill_check", "ada", forced=forced, dice=1, resolve_dice=n)
            left -= n
        assert sheet(c)["resolve"] == left >= 0


def test_the_counters_minimum_stands_behind_the_precondition() -> None:
    # Without the action's precondition the counter's own bound refuses the spend (RC906).
    text = PATH.read_text(encoding="utf-8")
    precondition = (
        "    requires:\n      - when: resolve_dice <= resolve\n"
        "        else: not enough resolve left for those resolve dice\n"
        "      - when: not use_trait or traits_left > 0\n"
    )
    assert text.count(precondition) == 1  # skill_check's
    bare = engine.load(
        text.replace(precondition, "    requires:\n      - when: not use_trait or traits_left > 0\n", 1)
    )
    c = engine.new_campaign("bare", bare, store=MemoryStore(), characters={"ada": {"max_resolve": 1}})
    refused("RC906", c, "skill_check", forced={"rolled": [6, 6, 6]}, dice=1, resolve_dice=2)


def test_a_reroll_costs_one_point_and_not_the_first_rolls_resolve_dice_again() -> None:
    c = table(ada={"max_resolve": 3})
    c.act("attack_check", "ada", forced={"rolled": [1, 2]}, dice=1, resolve_dice=1)
    assert sheet(c)["resolve"] == 2
    c.act("attack_check", "ada", forced={"rolled": [6, 7]}, dice=1, resolve_dice=1, reroll=True)
    assert sheet(c)["resolve"] == 1
    c.act("save_check", "ada", forced={"die": 0})
    c.act("save_check", "ada", forced={"die": 7}, reroll=True)
    assert sheet(c)["resolve"] == 0
    refused("RC905", c, "evasion_check", forced={"rolled": [7]}, dice=1, reroll=True)
    refused("RC905", c, "save_check", forced={"die": 7}, reroll=True)


def test_regained_resolve_stops_at_the_maximum_and_corruption_counts_up() -> None:
    c = table(ada={"max_resolve": 3})
    c.act("skill_check", "ada", forced={"rolled": [6, 7, 1]}, dice=1, resolve_dice=2)
    c.act("regain_resolve", "ada", points=1)
    assert sheet(c)["resolve"] == 2
    c.act("regain_resolve", "ada", points=5)
    assert sheet(c)["resolve"] == 3
    c.act("take_corruption", "ada")
    c.act("take_corruption", "ada")
    assert sheet(c)["corruption"] == 2


# -- instruction -------------------------------------------------------------------------------


def test_three_cumulative_successes_learn_the_skill_whoever_teaches() -> None:
    c = table(ada={"max_resolve": 3})
    instruct(c, 1, passes=True)
    c.begin("rest")
    instruct(c, 1, passes=False)  # a fail marks nothing and keeps what there is
    assert (sheet(c)["instruction_successes"], sheet(c)["learning"]) == (1, 1)
    c.begin("rest")
    c.act("instruct", "ada", forced={"rolled": [6, 7, 1]}, subject=1, proficiency=3, given=3)
    assert (sheet(c)["instruction_successes"], sheet(c)["learned"]) == (2, 0)
    c.begin("rest")
    c.act("instruct", "ada", forced={"rolled": [8]}, subject=1, proficiency=5, given=5)
    got = sheet(c)
    assert (got["learned"], got["instruction_successes"], got["learning"]) == (1, 0, 0)


def test_one_instruction_attempt_per_rest_whatever_its_result() -> None:
    c = table(ada={"max_resolve": 3})
    instruct(c, 1, passes=False)
    refused("RC905", c, "instruct", forced={"rolled": [6, 7]}, subject=1, proficiency=4, given=4)
    c.begin("day")  # a new day is not a rest
    refused("RC905", c, "instruct", forced={"rolled": [6, 7]}, subject=1, proficiency=4, given=4)
    c.begin("rest")
    instruct(c, 1, passes=True)
    assert sheet(c)["instruction_successes"] == 1


def test_switching_subject_abandons_the_successes() -> None:
    c = table(ada={"max_resolve": 3})
    for _ in range(2):
        instruct(c, 1, passes=True)
        c.begin("rest")
    assert sheet(c)["instruction_successes"] == 2
    instruct(c, 2, passes=True)
    assert (sheet(c)["instruction_successes"], sheet(c)["learning"]) == (1, 2)
    c.begin("rest")
    instruct(c, 1, passes=False)  # going back is learning something new again
    assert (sheet(c)["instruction_successes"], sheet(c)["learning"]) == (0, 1)


attempts = st.lists(st.tuples(st.integers(1, 3), st.booleans()), max_size=12)


@FAST
@given(attempts)
def test_instruction_follows_the_rule_for_any_run_of_attempts(run_of: list[tuple[int, bool]]) -> None:
    """The ruleset against the rule written out in Python: a pass marks a success, another subject
    starts again from none, the third success learns the subject."""
    c = table(ada={"max_resolve": 0})
    learning = successes = learned = 0
    for subject, passes in run_of:
        instruct(c, subject, passes)
        c.begin("rest")
        if subject != learning:
            successes = 0
        learning = subject
        successes += passes
        if successes == 3:
            learned, learning, successes = learned + 1, 0, 0
        got = sheet(c)
        assert (got["learning"], got["instruction_successes"], got["learned"]) == (
            learning,
            successes,
            learned,
        )


def test_resolve_makes_up_the_dice_an_instruction_needs() -> None:
    """ "Use your Resolve to meet the required number of dice" (note instruction): 6 - 3 = 3 dice
    needed, the teacher gives 1, two points of resolve make up the rest; none is added on top."""
    c = table(ada={"max_resolve": 3})
    acted = c.act("instruct", "ada", forced={"rolled": [7, 8, 1]}, subject=1, proficiency=3, given=1)
    assert acted.result is not None and acted.result.values["total_dice"] == 3
    assert acted.result.values["resolve_needed"] == 2
    assert (sheet(c)["resolve"], sheet(c)["instruction_successes"]) == (1, 1)


def test_an_instructor_of_proficiency_six_needs_no_die() -> None:
    """Note instruction-master: 6 - 6 = 0 dice are needed; the student passes without a roll and
    pays no resolve (an earlier reading of ours made it an automatic fail)."""
    c = table(ada={"max_resolve": 0})
    acted = c.act("instruct", "ada", forced={"rolled": []}, subject=1, proficiency=6)
    assert acted.result is not None and acted.result.outcome.name == "pass" and acted.result.auto
    assert (sheet(c)["resolve"], sheet(c)["instruction_successes"]) == (0, 1)


# -- help ----------------------------------------------------------------------------------------


def test_helpers_give_advantage_and_share_a_critical_failure() -> None:
    c = table(ada={"max_resolve": 3}, bea={"max_resolve": 1})
    instruct(c, 1, passes=False, who="bea")
    c.act("instruct", "ada", forced={"rolled": [4, 5]}, subject=1, proficiency=4, given=4, helpers=1)
    assert sheet(c)["instruction_successes"] == 1  # a half pass with advantage is a pass
    c.act("skill_check", "ada", forced={"rolled": [0, 0]}, dice=2, helpers=2)
    assert owed(c) == 2
    c.act("skill_check", "ada", forced={"rolled": [0, 0]}, dice=2, helpers=1, use_trait=True)
    assert owed(c) == 2  # a trait lifted it: no critical failure to share
    c.act("consequences_dealt", None, count=2)
    assert owed(c) == 0
    refused("RC905", c, "consequences_dealt", None, count=1)


def test_a_reroll_takes_back_the_consequences_of_the_roll_it_replaces() -> None:
    c = table(ada={"max_resolve": 3})
    c.act("attack_check", "ada", forced={"rolled": [0, 0]}, dice=2, helpers=1)
    assert owed(c) == 1
    c.act("attack_check", "ada", forced={"rolled": [0, 0]}, dice=2, helpers=1, reroll=True)
    assert owed(c) == 1
    c.act("attack_check", "ada", forced={"rolled": [6, 7]}, dice=2, helpers=1, reroll=True)
    assert (owed(c), sheet(c)["resolve"]) == (0, 1)


def test_undo_and_replay_agree_with_the_rules() -> None:
    c = table(ada={"max_resolve": 3})
    c.act("skill_check", "ada", forced={"rolled": [1, 2, 6]}, dice=1, resolve_dice=2, use_trait=True)
    instruct(c, 1, passes=True)
    c.begin("day")
    c.undo()
    assert sheet(c)["traits_left"] == 0
    c.undo()
    assert (sheet(c)["attempts_left"], sheet(c)["instruction_successes"]) == (1, 0)
    assert c.replay() == c.state()


# -- the command line ----------------------------------------------------------------------------


def cli(db: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(["campaign", "--db", str(db), *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def test_one_instruction_attempt_per_rest_from_the_command_line(tmp_path: Path) -> None:
    # Each command compiles the ruleset again, so this test keeps to four of them.
    db = tmp_path / "campaigns.db"
    assert cli(db, "new", "moor", str(PATH), "-c", "ada:max_resolve=3")[0] == 0
    act = ("act", "moor", "instruct", "-c", "ada", "-i", "subject=1", "-i", "proficiency=4")
    assert cli(db, *act, "--force", "rolled=6,7")[0] == 0
    code, _, err = cli(db, *act, "--force", "rolled=6,7")
    assert code == 1 and "RC905" in err and "instruction attempt of this rest" in err
    code, out, _ = cli(db, "show", "moor", "--json")
    assert code == 0
    ada = json.loads(out)["characters"]["ada"]["items"]
    assert (ada["instruction_successes"], ada["learning"], ada["attempts_left"]) == (1, 1, 0)


# -- the ladder: every source summed before the level is read (note ladder) -----------------------


@pytest.mark.parametrize(
    ("action", "extra"),
    [
        ("skill_check", {"dice": 2}),
        ("attack_check", {"dice": 2}),
        ("evasion_check", {"dice": 2}),
        ("save_check", {}),
        ("instruct", {"subject": 1, "proficiency": 4, "given": 4}),
        ("contest_check", {"npc_dice": 1, "dice": 1}),
    ],
)
@pytest.mark.parametrize(
    ("advantage", "helpers", "disadvantage", "level"), [(9, 3, 10, 2), (10, 3, 10, 3), (0, 2, 5, -3)]
)
def test_help_and_advantage_are_summed_with_disadvantage_before_any_cap(
    action: str, extra: dict[str, int], advantage: int, helpers: int, disadvantage: int, level: int
) -> None:
    """Hunt 13t: the actions passed `min(advantage + helpers, 10)` to the check, capping the
    advantage before the disadvantage was taken from it: 9 advantages and 3 helpers against 10
    disadvantages read level 0 where the sum is +2, and 10 and 3 against 10 read 0 where it is +3,
    Auto-pass (a save's 0 then a critical failure that cost the helpers)."""
    c = table(ada={"max_resolve": 3})
    acted = c.act(
        action, "ada", seed=1, advantage=advantage, helpers=helpers, disadvantage=disadvantage, **extra
    )
    assert acted.result is not None
    assert acted.result.values["level"] == level, acted.result.values
