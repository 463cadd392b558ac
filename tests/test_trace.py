"""Traces are data: each step carries the dice, the rule that fired (with its span), the trigger
that acted and who decided; the words (`detail`) and the JSON are rendered from those fields."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import engine
from engine.eval.trace import Decision, RuleRef, Step, TriggerStep, detail

CHIMERA = engine.load("chimera")
CHILL = engine.load("chill")
CASTLE = engine.load("castle")


def test_a_reroll_step_carries_its_trigger_dice_and_decision() -> None:
    r = CHIMERA.roll("skill", forced={"rolled": [9, 2, 7]}, dice=2)
    [step] = [s for s in r.trace if s.kind == "reroll"]
    assert step.trigger is not None and step.decision is not None
    assert (step.trigger.trigger, step.trigger.action, step.trigger.must) == ("nines", "reroll", False)
    assert step.trigger.showing == (9,) and step.trigger.grant == 1
    assert step.replaced == (2,) and step.faces == (7,)
    assert (step.decision.by, step.decision.taken) == ("always", True)
    assert "2 → 7" in step.detail  # the words come from those fields


def test_an_optimal_choice_records_the_objective_each_way() -> None:
    r = CHIMERA.roll("skill", forced={"rolled": [9, 2, 7]}, policy="optimal", dice=2)
    [step] = [s for s in r.trace if s.kind in ("reroll", "choice")]
    assert step.decision is not None and step.decision.by == "optimal"
    assert step.decision.objective.startswith("P(")
    assert step.decision.reached is not None and 0 <= step.decision.reached <= 1


def test_the_rule_that_fired_is_a_position_in_the_ruleset() -> None:
    r = CHILL.roll("specific", random.Random(7), target=55)
    [outcome] = [s for s in r.trace if s.kind in ("rule", "outcome")]
    assert outcome.expr == "specific_band(roll, doubles, final_target)"
    chimera = CHIMERA.roll("skill", forced={"rolled": [9, 2, 7]}, dice=2)
    rules = [s for s in chimera.trace if s.kind == "rule"]
    assert rules
    for s in rules:
        assert s.rule is not None and s.rule.span is not None and s.rule.span.line > 0
        text = s.rule.span.source.line(s.rule.span.line)
        assert ("else" in text) if s.rule.when is None else ("when" in text)


def test_json_carries_the_fields_and_the_words() -> None:
    forced = {"foe_beads": ["good"], "beads": ["poor", "good"]}
    r = CASTLE.roll("combat", forced=forced, policy="always", main_gauche=True)
    data = json.loads(json.dumps(r.as_json()))
    [redraw] = [s for s in data["trace"] if s["kind"] == "redraw"]
    assert redraw["decision"] == {"by": "always", "taken": True}
    assert redraw["replaced"] == [["poor"]] and redraw["value"] == ["good"]
    assert redraw["detail"] == "[poor] redrawn (policy always takes every allowed redraw) → [good]"
    [draw] = [s for s in data["trace"] if s["kind"] == "draw" and s["name"] == "beads"]
    assert draw["bag"] == "resolution" and draw["faces"] == ["poor"]


def test_words_are_rendered_from_data_alone() -> None:
    """A step built by hand (as a page or a bot might) renders like one the sampler made."""
    rule = RuleRef(1, "roll <= target", "'success'")
    assert detail(Step("rule", "result", "success", rule=rule)) == "when roll <= target → 'success'"
    acted = TriggerStep("zeros", "reroll", True, "lowest", (0,), 1)
    step = Step(
        "reroll", "dice", None, faces=(4,), replaced=(6,), trigger=acted, decision=Decision("rule", True)
    )
    assert detail(step) == (
        "zeros: 1 die showing 0 forces 1 reroll; "
        "the rule forces it on the least valuable eligible dice: rerolls 6 → 4"
    )
    assert detail(Step("die", "d", 3, faces=(3,), die=(1, 2, 3, 4, 5, 6))) == "d{1..6}"
    # several dice agree with their verb (a newcomer's audit read "4 dice showing ... allows")
    two = TriggerStep("ones", "reroll", False, "lowest", (1, 1), 2)
    step = Step(
        "reroll", "d", None, faces=(1, 6), replaced=(1, 1), trigger=two, decision=Decision("always", True)
    )
    assert detail(step).startswith("ones: 2 dice showing 1, 1 allow 2 rerolls; ")
    forced = TriggerStep("zeros", "reroll", True, "lowest", (0, 0), 2)
    step = Step(
        "reroll", "d", None, faces=(4, 5), replaced=(6, 7), trigger=forced, decision=Decision("rule", True)
    )
    assert detail(step).startswith("zeros: 2 dice showing 0, 0 force 2 rerolls; ")
    # added dice are dice, not "dies" (a review read "forces 2 added dies")
    six = TriggerStep("sixes", "add", True, "lowest", (6,), 2)
    step = Step("reroll", "d", None, faces=(3, 4), trigger=six, decision=Decision("rule", True))
    assert detail(step) == "sixes: 1 die showing 6 forces 2 added dice; the rule adds them: adds 3, 4"
    six = TriggerStep("sixes", "add", True, "lowest", (6,), 1)
    step = Step("reroll", "d", None, faces=(3,), trigger=six, decision=Decision("rule", True))
    assert detail(step).startswith("sixes: 1 die showing 6 forces 1 added die; ")


def test_a_mean_rank_objective_is_shown_as_a_rank_not_a_percentage() -> None:
    """A 6 and a 1 on 2d6: rerolling the 1 reaches a mean rank of 1.5 (a 4-6 makes 10 or more,
    rank 2; a 1-3 makes 7-9, rank 1), keeping it 1 (7 is mid)."""
    rs = engine.load(
        "rulecraft: 1\nname: mr\nchecks:\n  c:\n    roll:\n      p:\n        pool: 2\n        die: 6\n"
        "        triggers:\n          - {name: sixes, on: face == 6, may: reroll, target: face <= 3}\n"
        "    outcomes: [low, mid, high]\n    objective: mean_rank\n"
        "    outcome: \"'high' if sum(p) >= 10 else 'mid' if sum(p) >= 7 else 'low'\"\n"
    )
    r = rs.roll("c", forced={"p": [6, 1, 5]}, policy="optimal")
    [step] = [s for s in r.trace if s.kind == "reroll"]
    assert "policy optimal (mean rank 1.500 vs 1.000 taking none)" in step.detail
    assert "%" not in step.detail


def test_a_best_first_choice_names_the_part_that_decided_it() -> None:
    """Found by hunt 13z: under `best_first` the trace showed P(best outcome) alone, 0.0% against
    0.0% where a roll can never reach the best, though the chance of the next best decided it.
    A 1 and a 4 on 2d6 (o1 from 6): rerolling the 1 makes o1 certain at 5/6 (a 2 or more: 4 + x
    >= 6), keeping it gives o0; with a 6 beside the 1 every option ties, and the lead is shown."""
    rs = engine.load(
        "rulecraft: 1\nname: bf\nchecks:\n  c:\n    roll:\n      p:\n        pool: 2\n        die: 6\n"
        "        triggers:\n          - {name: ones, on: face == 1, may: reroll, repeat: false}\n"
        "    outcomes: [o0, o1, o2]\n"
        "    outcome: \"'o2' if sum(p) >= 13 else 'o1' if sum(p) >= 6 else 'o0'\"\n"
    )
    r = rs.roll("c", forced={"p": [1, 4, 5]}, policy="optimal")
    [step] = [s for s in r.trace if s.kind == "reroll"]
    assert "policy optimal (P(o1 or better) 83.3% vs 0.0% taking none)" in step.detail
    assert step.decision is not None and step.decision.reached == Fraction(5, 6)
    r = rs.roll("c", forced={"p": [1, 6]}, policy="optimal")
    [step] = [s for s in r.trace if s.kind == "choice"]
    assert "policy optimal (P(o2) 0.0%): none taken" in step.detail
