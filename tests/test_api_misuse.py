"""Misusing the public Python API gives a worded error, never a traceback from deep inside.

Every public entry point — the functions and classes in `engine.__all__`, every public method of
`Ruleset`, `Distribution`, `Campaign` and the scene results (`Odds`, `Played`, `Sampled`) — is
called here with, for each of its arguments, the wrong type, an unknown name, an out-of-range
value, NaN or infinity, `True` where a number goes, or `None`. Each call must raise a
`RulecraftError` (with a did-you-mean for a misspelt name) or a `TypeError` whose sentence names
the argument. The table is checked against the surface itself: a public method, or an argument of
one, without a case here fails `test_every_public_entry_point_has_cases`.
"""

from __future__ import annotations

import inspect
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import Any

import pytest

import engine
from engine.errors import RulecraftError
from engine.eval.batch import Batch
from engine.eval.exact import Distribution
from engine.scenes.campaign import campaign_odds, play_in_campaign
from engine.scenes.odds import Odds
from engine.scenes.play import Played, Sampled
from engine.state.memory import MemoryStore

TEXT = """\
rulecraft: 1
name: skirmish
scales:
  result: [miss, graze, hit]
checks:
  swing:
    inputs:
      skill: {type: int, min: 0, max: 3, default: 0}
    roll: {d: {die: 6}}
    let:
      total: d + skill
    outcomes: result
    outcome:
      - when: total >= 6
        then: hit
      - when: total >= 4
        then: graze
      - else: miss
state:
  character:
    hp: {type: int, min: 1, max: 5, default: 2}
  each:
    hurt: {counter: 0, min: 0}
    down: {derived: "hurt >= hp"}
  periods: [fight]
actions:
  strike:
    by: character
    others: [foe]
    requires:
      - {when: "not down and not foe.down", else: nobody who is down fights}
    roll: {check: swing}
    effects:
      - {add: {hurt: 1}, of: foe, when: "outcome == 'hit'"}
scenes:
  fight:
    parties: [ann, bo]
    round:
      - {act: strike, by: ann, others: {foe: bo}}
      - {act: strike, by: bo, others: {foe: ann}}
    ends:
      - {when: bo.down, then: ann_wins}
      - {when: ann.down, then: bo_wins}
    max_rounds: 10
"""

RULES = engine.load(TEXT)
DIST = RULES.distribution("swing")
ODDS = RULES.scene_odds("fight")
PLAYED = RULES.play_scene("fight", random.Random(1))
SAMPLED = RULES.sample_scenes("fight", 20, random.Random(1))
BATCH = RULES.sample("swing", 20, random.Random(1))


def campaign() -> engine.Campaign:
    """A fresh campaign in memory with two characters."""
    return engine.new_campaign("c", RULES, store=MemoryStore(), characters={"ann": {}, "bo": {}})


NAN, INF = math.nan, math.inf


@dataclass(frozen=True)
class Case:
    """One misuse: which entry point, which argument, what is wrong, the call."""

    target: str
    argument: str
    wrong: str
    call: Callable[[], Any]
    named: str = ""
    """What the message must contain (by default the argument's name for a TypeError, and
    'did you mean' for an unknown name)."""


def cases() -> list[Case]:
    c = campaign
    out: list[Case] = []

    def add(target: str, argument: str, wrong: str, call: Callable[[], Any], named: str = "") -> None:
        out.append(Case(target, argument, wrong, call, named))

    # -- the functions ----------------------------------------------------------------------------
    add("load", "source", "type", lambda: engine.load(42))
    add("load", "source", "None", lambda: engine.load(None))
    add("load", "source", "unknown", lambda: engine.load("chil"), "did you mean")
    add("load", "limits", "type", lambda: engine.load(TEXT, limits={"max_pool": 3}))
    add("load", "name", "type", lambda: engine.load(TEXT, name=3))
    add("load_source", "source", "type", lambda: engine.load_source(TEXT))
    add("load_source", "source", "None", lambda: engine.load_source(None))
    add(
        "load_source",
        "source",
        "type",
        lambda: engine.load_source(engine.SourceFile("x.yaml", 3)),
    )
    add(
        "load_source",
        "source",
        "type",
        lambda: engine.load_source(engine.SourceFile(None, TEXT)),
    )
    add(
        "load_source",
        "limits",
        "type",
        lambda: engine.load_source(engine.SourceFile("x", TEXT), limits=3),
    )
    add(
        "load_source",
        "deadline",
        "type",
        lambda: engine.load_source(engine.SourceFile("x", TEXT), deadline="1"),
    )
    add(
        "load_source",
        "deadline",
        "negative",
        lambda: engine.load_source(engine.SourceFile("x", TEXT), deadline=-1),
    )
    add(
        "load_source",
        "deadline",
        "inf",
        lambda: engine.load_source(engine.SourceFile("x", TEXT), deadline=INF),
    )
    add("new_campaign", "name", "type", lambda: engine.new_campaign(3, RULES, store=MemoryStore()))
    # a name a campaign keeps: printable, 1 to 100 characters, no space at an end, no '/'
    for bad, says in [
        ("", "is empty"),
        ("x" * 101, "101 characters"),
        ("a\tb", "a control character"),
        ("c\udcff", "a lone surrogate"),
        ("a\u2028b", "a line break"),
        (" c", "space"),
        ("a/b", "'/'"),
    ]:
        add(
            "new_campaign",
            "name",
            "range",
            lambda bad=bad: engine.new_campaign(bad, RULES, store=MemoryStore()),
            says,
        )
        add(
            "new_campaign",
            "characters",
            "range",
            lambda bad=bad: engine.new_campaign("c", RULES, store=MemoryStore(), characters={bad: {}}),
            says,
        )
        add("Campaign.join", "character", "range", lambda bad=bad: c().join(bad), says)
    add("new_campaign", "ruleset", "type", lambda: engine.new_campaign("c", 3, store=MemoryStore()))
    add(
        "new_campaign",
        "ruleset",
        "unknown",
        lambda: engine.new_campaign("c", "castel", store=MemoryStore()),
        "did you mean",
    )
    add("new_campaign", "store", "type", lambda: engine.new_campaign("c", RULES, store="x.db"))
    add(
        "new_campaign",
        "params",
        "type",
        lambda: engine.new_campaign("c", RULES, store=MemoryStore(), params=[1]),
    )
    add(
        "new_campaign",
        "characters",
        "type",
        lambda: engine.new_campaign("c", RULES, store=MemoryStore(), characters=["ann"]),
    )
    add(
        "new_campaign",
        "characters",
        "unknown",
        lambda: engine.new_campaign("c", RULES, store=MemoryStore(), characters={"ann": {"hpp": 2}}),
        "did you mean",
    )
    add(
        "new_campaign",
        "characters",
        "range",
        lambda: engine.new_campaign("c", RULES, store=MemoryStore(), characters={"ann": {"hp": 9}}),
        "hp",
    )
    add("open_campaign", "name", "type", lambda: engine.open_campaign(3, store=MemoryStore()))
    add("open_campaign", "name", "unknown", lambda: engine.open_campaign("nope", store=MemoryStore()), "nope")
    add("open_campaign", "store", "type", lambda: engine.open_campaign("c", store=3))
    add("open_campaign", "ruleset", "type", lambda: engine.open_campaign("c", store=_stored(), ruleset=3))
    add("open_campaign", "migrate", "type", lambda: engine.open_campaign("c", store=_stored(), migrate="yes"))
    add(
        "open_campaign",
        "read_only",
        "type",
        lambda: engine.open_campaign("c", store=_stored(), read_only="yes"),
    )
    add(
        "open_campaign",
        "limits",
        "type",
        lambda: engine.open_campaign("c", store=_stored(), limits={"deadline": 1}),
    )
    add(
        "new_campaign",
        "limits",
        "type",
        lambda: engine.new_campaign("c", RULES, store=MemoryStore(), limits=5),
    )

    # -- Limits and SourceFile ----------------------------------------------------------------------
    add("Limits", "max_pool", "type", lambda: engine.Limits(max_pool="3"))
    add("Limits", "max_pool", "bool", lambda: engine.Limits(max_pool=True))
    add("Limits", "max_pool", "range", lambda: engine.Limits(max_pool=-1))
    add("Limits", "max_work", "NaN", lambda: engine.Limits(max_work=NAN))
    add("Limits", "deadline", "NaN", lambda: engine.Limits(deadline=NAN))
    add("Limits", "deadline", "inf", lambda: engine.Limits(deadline=INF))
    add("Limits", "deadline", "range", lambda: engine.Limits(deadline=-1.0))
    # a whole number past a float's range: no `OverflowError` from `math.isfinite`
    add("Limits", "deadline", "huge", lambda: engine.Limits(deadline=10**400))
    add("Limits", "deadline", "type", lambda: engine.Limits(deadline="2"))
    for field in engine.Limits.__dataclass_fields__:  # every bound: a whole number, never text
        add("Limits", field, "type", lambda f=field: engine.Limits(**{f: "3"}))

    # -- Ruleset ----------------------------------------------------------------------------------
    add("Ruleset.check", "name", "unknown", lambda: RULES.check("swng"), "did you mean")
    add("Ruleset.check", "name", "type", lambda: RULES.check(3))
    add("Ruleset.check", "name", "None", lambda: RULES.check(None))
    add("Ruleset.roll", "check", "unknown", lambda: RULES.roll("swng"), "did you mean")
    add("Ruleset.roll", "check", "type", lambda: RULES.roll(["swing"]))
    add("Ruleset.roll", "rng", "type", lambda: RULES.roll("swing", 1), "random")
    add("Ruleset.roll", "forced", "type", lambda: RULES.roll("swing", forced=[6]))
    add("Ruleset.roll", "forced", "unknown", lambda: RULES.roll("swing", forced={"dd": 6}), "did you mean")
    add("Ruleset.roll", "forced", "range", lambda: RULES.roll("swing", forced={"d": 7}), "d")
    add("Ruleset.roll", "forced", "NaN", lambda: RULES.roll("swing", forced={"d": NAN}), "d")
    add("Ruleset.roll", "forced", "bool", lambda: RULES.roll("swing", forced={"d": True}), "d")
    add("Ruleset.roll", "policy", "unknown", lambda: RULES.roll("swing", policy="optimall"), "did you mean")
    add("Ruleset.roll", "policy", "type", lambda: RULES.roll("swing", policy=None))
    add("Ruleset.roll", "trace", "type", lambda: RULES.roll("swing", trace="no"))
    add("Ruleset.roll", "trace", "None", lambda: RULES.roll("swing", trace=None))
    add("Ruleset.roll", "trace", "type", lambda: RULES.roll("swing", trace=0))  # 0 is not False here
    add("Ruleset.roll", "trace", "NaN", lambda: RULES.roll("swing", trace=NAN))
    add("Ruleset.roll", "inputs", "unknown", lambda: RULES.roll("swing", skil=1), "did you mean")
    add("Ruleset.roll", "inputs", "range", lambda: RULES.roll("swing", skill=9), "skill")
    add("Ruleset.roll", "inputs", "NaN", lambda: RULES.roll("swing", skill=NAN), "skill")
    add("Ruleset.roll", "inputs", "inf", lambda: RULES.roll("swing", skill=INF), "skill")
    add("Ruleset.roll", "inputs", "bool", lambda: RULES.roll("swing", skill=True), "skill")
    add("Ruleset.roll", "inputs", "None", lambda: RULES.roll("swing", skill=None), "skill")
    add("Ruleset.roller", "check", "unknown", lambda: RULES.roller("swng"), "did you mean")
    add("Ruleset.roller", "check", "type", lambda: RULES.roller(["swing"]))
    add("Ruleset.roller", "check", "None", lambda: RULES.roller(None))
    add(
        "Ruleset.roller",
        "policy",
        "unknown",
        lambda: RULES.roller("swing", policy="optimall"),
        "did you mean",
    )
    add("Ruleset.roller", "policy", "type", lambda: RULES.roller("swing", policy=None))
    add("Ruleset.roller", "trace", "type", lambda: RULES.roller("swing", trace="no"))
    add("Ruleset.roller", "trace", "None", lambda: RULES.roller("swing", trace=None))
    add("Ruleset.roller", "trace", "type", lambda: RULES.roller("swing", trace=0))
    add("Ruleset.roller", "trace", "NaN", lambda: RULES.roller("swing", trace=NAN))
    add("Ruleset.roller", "inputs", "unknown", lambda: RULES.roller("swing", skil=1), "did you mean")
    add("Ruleset.roller", "inputs", "range", lambda: RULES.roller("swing", skill=9), "skill")
    add("Ruleset.roller", "inputs", "NaN", lambda: RULES.roller("swing", skill=NAN), "skill")
    add("Ruleset.roller", "inputs", "inf", lambda: RULES.roller("swing", skill=INF), "skill")
    add("Ruleset.roller", "inputs", "bool", lambda: RULES.roller("swing", skill=True), "skill")
    add("Ruleset.roller", "inputs", "None", lambda: RULES.roller("swing", skill=None), "skill")
    add("Ruleset.roller", "inputs", "type", lambda: RULES.roller("swing", skill=[1]), "skill")
    # the function it returns takes one argument, the random source
    add("Ruleset.roller", "rng", "type", lambda: RULES.roller("swing")(1), "random")
    add("Ruleset.roller", "rng", "type", lambda: RULES.roller("swing", trace=False)("seed"), "random")
    add("Ruleset.roller", "rng", "type", lambda: RULES.roller("swing", skill=2)(random), "random")
    add("Ruleset.sample", "check", "unknown", lambda: RULES.sample("swng", 10), "did you mean")
    add("Ruleset.sample", "check", "type", lambda: RULES.sample(3, 10))
    add("Ruleset.sample", "times", "range", lambda: RULES.sample("swing", 0), "number of rolls")
    add("Ruleset.sample", "times", "bool", lambda: RULES.sample("swing", True), "number of rolls")
    add("Ruleset.sample", "times", "NaN", lambda: RULES.sample("swing", NAN), "number of rolls")
    add("Ruleset.sample", "times", "type", lambda: RULES.sample("swing", "10"), "number of rolls")
    add("Ruleset.sample", "rng", "type", lambda: RULES.sample("swing", 10, 1), "random")
    add(
        "Ruleset.sample",
        "policy",
        "unknown",
        lambda: RULES.sample("swing", 10, policy="nevr"),
        "did you mean",
    )
    add("Ruleset.sample", "policy", "type", lambda: RULES.sample("swing", 10, policy=None))
    add(
        "Ruleset.sample",
        "method",
        "unknown",
        lambda: RULES.sample("swing", 10, method="exakt"),
        "did you mean",
    )
    add("Ruleset.sample", "method", "type", lambda: RULES.sample("swing", 10, method=1))
    add("Ruleset.sample", "inputs", "unknown", lambda: RULES.sample("swing", 10, skil=1), "did you mean")
    add("Ruleset.sample", "inputs", "range", lambda: RULES.sample("swing", 10, skill=9), "skill")
    add("Ruleset.distribution", "check", "unknown", lambda: RULES.distribution("swng"), "did you mean")
    add("Ruleset.distribution", "check", "type", lambda: RULES.distribution(3))
    add(
        "Ruleset.distribution", "policy", "unknown", lambda: RULES.distribution("swing", policy="x"), "policy"
    )
    add("Ruleset.distribution", "policy", "type", lambda: RULES.distribution("swing", policy=3))
    add(
        "Ruleset.distribution",
        "inputs",
        "unknown",
        lambda: RULES.distribution("swing", skil=1),
        "did you mean",
    )
    add("Ruleset.distribution", "inputs", "NaN", lambda: RULES.distribution("swing", skill=NAN), "skill")
    add(
        "Ruleset.distribution",
        "inputs",
        "unhashable",
        lambda: RULES.distribution("swing", skill=[1]),
        "skill",
    )
    add("Ruleset.with_scenes", "source", "type", lambda: RULES.with_scenes(3))
    add("Ruleset.with_scenes", "source", "None", lambda: RULES.with_scenes(None))
    add("Ruleset.with_scenes", "source", "unknown", lambda: RULES.with_scenes("scenes: {x: 1}"))
    scenes = "scenes: {x: 1}"
    add("Ruleset.with_scenes", "deadline", "type", lambda: RULES.with_scenes(scenes, deadline="1"))
    add("Ruleset.with_scenes", "deadline", "negative", lambda: RULES.with_scenes(scenes, deadline=-1))
    add("Ruleset.with_scenes", "deadline", "NaN", lambda: RULES.with_scenes(scenes, deadline=NAN))
    add("Ruleset.with_scenes", "deadline", "inf", lambda: RULES.with_scenes(scenes, deadline=INF))
    add("Ruleset.scene", "name", "unknown", lambda: RULES.scene("fihgt"), "did you mean")
    add("Ruleset.scene", "name", "type", lambda: RULES.scene(3))
    add("Ruleset.scene_odds", "scene", "unknown", lambda: RULES.scene_odds("fihgt"), "did you mean")
    add("Ruleset.scene_odds", "scene", "type", lambda: RULES.scene_odds(None))
    add("Ruleset.scene_odds", "params", "type", lambda: RULES.scene_odds("fight", params=3))
    add("Ruleset.scene_odds", "params", "unknown", lambda: RULES.scene_odds("fight", params={"x": 1}), "x")
    add("Ruleset.scene_odds", "parties", "type", lambda: RULES.scene_odds("fight", parties=["ann"]))
    add(
        "Ruleset.scene_odds",
        "parties",
        "unknown",
        lambda: RULES.scene_odds("fight", parties={"an": {}}),
        "did you mean",
    )
    add("Ruleset.scene_odds", "parties", "type", lambda: RULES.scene_odds("fight", parties={"ann": 3}))
    add(
        "Ruleset.scene_odds",
        "parties",
        "range",
        lambda: RULES.scene_odds("fight", parties={"ann": {"hp": 0}}),
        "hp",
    )
    add("Ruleset.scene_odds", "policy", "unknown", lambda: RULES.scene_odds("fight", policy="best"), "policy")
    add("Ruleset.scene_odds", "expect", "type", lambda: RULES.scene_odds("fight", expect="ann.hurt"))
    add(
        "Ruleset.scene_odds",
        "expect",
        "unknown",
        lambda: RULES.scene_odds("fight", expect=["ann.hrt"]),
        "hrt",
    )
    add("Ruleset.play_scene", "scene", "unknown", lambda: RULES.play_scene("fihgt"), "did you mean")
    add("Ruleset.play_scene", "rng", "type", lambda: RULES.play_scene("fight", 7), "random")
    add("Ruleset.play_scene", "params", "type", lambda: RULES.play_scene("fight", params=[]))
    add(
        "Ruleset.play_scene",
        "parties",
        "unknown",
        lambda: RULES.play_scene("fight", parties={"bob": {}}),
        "did you mean",
    )
    add("Ruleset.play_scene", "policy", "type", lambda: RULES.play_scene("fight", policy=1))
    add("Ruleset.sample_scenes", "scene", "unknown", lambda: RULES.sample_scenes("fihgt", 3), "did you mean")
    add("Ruleset.sample_scenes", "times", "range", lambda: RULES.sample_scenes("fight", 0), "times")
    add("Ruleset.sample_scenes", "times", "bool", lambda: RULES.sample_scenes("fight", True), "times")
    add("Ruleset.sample_scenes", "times", "NaN", lambda: RULES.sample_scenes("fight", NAN), "times")
    add("Ruleset.sample_scenes", "times", "type", lambda: RULES.sample_scenes("fight", "3"), "times")
    add("Ruleset.sample_scenes", "rng", "type", lambda: RULES.sample_scenes("fight", 3, 3), "random")
    add("Ruleset.sample_scenes", "params", "type", lambda: RULES.sample_scenes("fight", 3, params=1))
    add("Ruleset.sample_scenes", "parties", "type", lambda: RULES.sample_scenes("fight", 3, parties=1))
    add(
        "Ruleset.sample_scenes",
        "policy",
        "unknown",
        lambda: RULES.sample_scenes("fight", 3, policy="al"),
        "policy",
    )

    # -- Distribution -----------------------------------------------------------------------------
    for method in ("probability", "at_least", "at_most"):
        add(
            f"Distribution.{method}",
            "outcome",
            "unknown",
            lambda m=method: getattr(DIST, m)("hti"),
            "did you mean",
        )
        add(f"Distribution.{method}", "outcome", "type", lambda m=method: getattr(DIST, m)(3), "outcome")
        add(f"Distribution.{method}", "outcome", "None", lambda m=method: getattr(DIST, m)(None), "outcome")
    for method in ("value", "mean"):
        add(
            f"Distribution.{method}",
            "name",
            "unknown",
            lambda m=method: getattr(DIST, m)("totl"),
            "did you mean",
        )
        add(f"Distribution.{method}", "name", "type", lambda m=method: getattr(DIST, m)(3), "name")
        add(f"Distribution.{method}", "name", "None", lambda m=method: getattr(DIST, m)(None), "name")

    # -- Batch: as Distribution ---------------------------------------------------------------------
    for method in ("share", "standard_error"):
        add(
            f"Batch.{method}", "outcome", "unknown", lambda m=method: getattr(BATCH, m)("hti"), "did you mean"
        )
        add(f"Batch.{method}", "outcome", "type", lambda m=method: getattr(BATCH, m)(3), "outcome")
        add(f"Batch.{method}", "outcome", "None", lambda m=method: getattr(BATCH, m)(None), "outcome")
    add("Batch.mean", "name", "unknown", lambda: BATCH.mean("totl"), "did you mean")
    add("Batch.mean", "name", "type", lambda: BATCH.mean(3), "name")
    add("Batch.mean", "name", "None", lambda: BATCH.mean(None), "name")

    # -- scene results ----------------------------------------------------------------------------
    add("Odds.probability", "name", "unknown", lambda: ODDS.probability("ann_won"), "did you mean")
    add("Odds.probability", "name", "type", lambda: ODDS.probability(3), "name")
    add("Odds.later", "last", "type", lambda: ODDS.later("3"), "last")
    add("Odds.later", "last", "bool", lambda: ODDS.later(True), "last")
    add("Odds.later", "last", "range", lambda: ODDS.later(-1), "last")
    for method in ("share", "standard_error"):
        add(
            f"Sampled.{method}",
            "ending",
            "unknown",
            lambda m=method: getattr(SAMPLED, m)("ann_won"),
            "did you mean",
        )
        add(f"Sampled.{method}", "ending", "type", lambda m=method: getattr(SAMPLED, m)(None), "ending")

    # -- Campaign ---------------------------------------------------------------------------------
    add("Campaign.join", "character", "type", lambda: c().join(3))

    def entered(**given: Any) -> None:
        with c().request(**given):
            pass

    add("Campaign.request", "at", "type", lambda: entered(at="3:1"))
    add("Campaign.request", "lead", "type", lambda: entered(lead=3))
    add("Campaign.join", "character", "unknown", lambda: c().join("ann"), "ann")  # already there
    add("Campaign.join", "named", "unknown", lambda: c().join("cy", hpp=2), "did you mean")
    add("Campaign.join", "named", "range", lambda: c().join("cy", hp=0), "hp")
    add("Campaign.join", "named", "bool", lambda: c().join("cy", hp=True), "hp")
    add("Campaign.join", "named", "NaN", lambda: c().join("cy", hp=NAN), "hp")
    add("Campaign.join", "params", "type", lambda: c().join("cy", params=[("hp", 2)]))
    add("Campaign.join", "params", "key", lambda: c().join("cy", params={1: 2}), "keys are names")
    add(
        "Campaign.join",
        "params",
        "twice",
        lambda: c().join("cy", params={"hp": 2}, hp=3),
        "parameter 'hp', which is given as a keyword",
    )
    add("Campaign.join", "params", "unknown", lambda: c().join("cy", params={"character": 2}), "character")
    add(
        "Campaign.act",
        "action",
        "unknown",
        lambda: c().act("strik", "ann", others={"foe": "bo"}),
        "did you mean",
    )
    add("Campaign.act", "action", "type", lambda: c().act(3, "ann"))
    add(
        "Campaign.act",
        "character",
        "unknown",
        lambda: c().act("strike", "anne", others={"foe": "bo"}),
        "did you mean",
    )
    add("Campaign.act", "character", "type", lambda: c().act("strike", 3, others={"foe": "bo"}))
    add("Campaign.act", "seed", "type", lambda: c().act("strike", "ann", others={"foe": "bo"}, seed="1"))
    add("Campaign.act", "seed", "bool", lambda: c().act("strike", "ann", others={"foe": "bo"}, seed=True))
    add("Campaign.act", "seed", "NaN", lambda: c().act("strike", "ann", others={"foe": "bo"}, seed=NAN))
    # random.Random(-7) rolls what random.Random(7) does: a negative seed is refused (RC410)
    add(
        "Campaign.act",
        "seed",
        "negative",
        lambda: c().act("strike", "ann", others={"foe": "bo"}, seed=-7),
        "a seed is a whole number, at least 0",
    )
    add("Campaign.act", "forced", "type", lambda: c().act("strike", "ann", others={"foe": "bo"}, forced=6))
    add(
        "Campaign.act",
        "forced",
        "range",
        lambda: c().act("strike", "ann", others={"foe": "bo"}, forced={"d": 0}),
        "d",
    )
    add(
        "Campaign.act",
        "policy",
        "unknown",
        lambda: c().act("strike", "ann", others={"foe": "bo"}, policy="x"),
        "policy",
    )
    add("Campaign.act", "others", "type", lambda: c().act("strike", "ann", others=["bo"]))
    # a role's character that is no name: Python's own TypeError from deep inside a hint (hunt 13g)
    for wrong, what in [(None, "None"), (5, "int"), (["bo"], "list")]:
        add(
            "Campaign.act",
            "others",
            f"type of a value, {what}",
            lambda wrong=wrong: c().act("strike", "ann", others={"foe": wrong}),
            "a character's name (str)",
        )
        add(
            "Campaign.distribution",
            "others",
            f"type of a value, {what}",
            lambda wrong=wrong: c().distribution("strike", "ann", others={"foe": wrong}),
            "a character's name (str)",
        )
    add(
        "Campaign.act",
        "others",
        "unknown",
        lambda: c().act("strike", "ann", others={"fo": "bo"}),
        "did you mean",
    )
    add(
        "Campaign.act",
        "others",
        "unknown",
        lambda: c().act("strike", "ann", others={"foe": "bob"}),
        "did you mean",
    )
    add("Campaign.act", "inputs", "unknown", lambda: c().act("strike", "ann", others={"foe": "bo"}, x=1), "x")
    add("Campaign.roll", "check", "unknown", lambda: c().roll("swng"), "did you mean")
    add("Campaign.roll", "check", "type", lambda: c().roll(3))
    add("Campaign.roll", "seed", "type", lambda: c().roll("swing", seed=1.5))
    add("Campaign.roll", "trace", "type", lambda: c().roll("swing", trace="no"))
    add("Campaign.roll", "trace", "None", lambda: c().roll("swing", trace=None))
    add("Campaign.act", "trace", "type", lambda: c().act("strike", "ann", others={"foe": "bo"}, trace=0))
    add("Campaign.act", "trace", "NaN", lambda: c().act("strike", "ann", others={"foe": "bo"}, trace=NAN))
    add("Campaign.roll", "seed", "negative", lambda: c().roll("swing", seed=-1), "at least 0")
    add("Campaign.roll", "forced", "unknown", lambda: c().roll("swing", forced={"dd": 1}), "did you mean")
    add("Campaign.roll", "policy", "type", lambda: c().roll("swing", policy=None))
    add("Campaign.roll", "inputs", "range", lambda: c().roll("swing", skill=-1), "skill")
    add("Campaign.roll", "inputs", "inf", lambda: c().roll("swing", skill=INF), "skill")
    add(
        "Campaign.distribution", "action", "unknown", lambda: c().distribution("strik", "ann"), "did you mean"
    )
    add("Campaign.distribution", "action", "type", lambda: c().distribution(None))
    add(
        "Campaign.distribution",
        "character",
        "unknown",
        lambda: c().distribution("strike", "an", others={"foe": "bo"}),
        "did you mean",
    )
    add(
        "Campaign.distribution",
        "policy",
        "unknown",
        lambda: c().distribution("strike", "ann", others={"foe": "bo"}, policy="y"),
        "policy",
    )
    add("Campaign.distribution", "others", "type", lambda: c().distribution("strike", "ann", others="bo"))
    add(
        "Campaign.distribution",
        "inputs",
        "unknown",
        lambda: c().distribution("strike", "ann", others={"foe": "bo"}, z=1),
        "z",
    )
    # inputs by name in a mapping (`inputs=`, any name) and as keyword arguments (`**named`)
    foe = {"foe": "bo"}
    given_by_name: dict[str, Callable[..., Any]] = {
        "Ruleset.roll": lambda **k: RULES.roll("swing", **k),
        "Ruleset.roller": lambda **k: RULES.roller("swing", **k),
        "Ruleset.sample": lambda **k: RULES.sample("swing", 10, **k),
        "Ruleset.distribution": lambda **k: RULES.distribution("swing", **k),
        "Campaign.act": lambda **k: c().act("strike", "ann", others=foe, **k),
        "Campaign.roll": lambda **k: c().roll("swing", **k),
        "Campaign.distribution": lambda **k: c().distribution("strike", "ann", others=foe, **k),
    }
    for target, call in given_by_name.items():
        name = "skill" if target.startswith("Ruleset") or target == "Campaign.roll" else "x"
        add(target, "inputs", "type", partial(call, inputs=[(name, 1)]))
        add(target, "inputs", "type", partial(call, inputs="skill=1"))
        add(target, "inputs", "key", partial(call, inputs={1: 1}), "keys are names")
        add(
            target,
            "inputs",
            "twice",
            partial(call, inputs={name: 1}, **{name: 2}),
            f"input '{name}', which is given as a keyword",
        )
        add(target, "inputs", "unknown", partial(call, inputs={"skil": 1}), "skil")
        add(target, "named", "unknown", partial(call, skil=1), "skil")
    add("Ruleset.roll", "inputs", "range", lambda: RULES.roll("swing", inputs={"skill": 9}), "skill")
    add("Ruleset.roll", "inputs", "unhashable", lambda: RULES.roll("swing", inputs={"skill": [1]}), "skill")
    add(
        "Ruleset.distribution",
        "inputs",
        "NaN",
        lambda: RULES.distribution("swing", inputs={"skill": NAN}),
        "skill",
    )
    add("Campaign.begin", "period", "unknown", lambda: c().begin("figth"), "did you mean")
    add("Campaign.begin", "period", "type", lambda: c().begin(3))
    add("Campaign.undo", "-", "nothing to undo", lambda: c().undo(), "undo")
    add("Campaign.create", "store", "type", lambda: engine.Campaign.create(3, "c", RULES.model, TEXT))
    add(
        "Campaign.create", "name", "type", lambda: engine.Campaign.create(MemoryStore(), 3, RULES.model, TEXT)
    )
    add("Campaign.create", "model", "type", lambda: engine.Campaign.create(MemoryStore(), "c", RULES, TEXT))
    add(
        "Campaign.create",
        "text",
        "type",
        lambda: engine.Campaign.create(MemoryStore(), "c", RULES.model, None),
    )
    add(
        "Campaign.create",
        "params",
        "type",
        lambda: engine.Campaign.create(MemoryStore(), "c", RULES.model, TEXT, 3),
    )
    add(
        "Campaign.create",
        "characters",
        "type",
        lambda: engine.Campaign.create(MemoryStore(), "c", RULES.model, TEXT, None, 3),
    )
    add(
        "Campaign.create",
        "limits",
        "type",
        lambda: engine.Campaign.create(MemoryStore(), "c", RULES.model, TEXT, limits=3),
    )
    add(
        "Campaign.create",
        "compile",
        "type",
        lambda: engine.Campaign.create(MemoryStore(), "c", RULES.model, TEXT, compile=3),
    )
    add(
        "Campaign.create",
        "source",
        "type",
        lambda: engine.Campaign.create(MemoryStore(), "c", RULES.model, TEXT, source=3),
    )
    add(
        "Campaign.create",
        "start",
        "type",
        lambda: engine.Campaign.create(MemoryStore(), "c", RULES.model, TEXT, start=3),
    )
    add("Campaign.open", "store", "type", lambda: engine.Campaign.open(None, "c", _compile))
    add("Campaign.open", "name", "unknown", lambda: engine.Campaign.open(MemoryStore(), "c", _compile), "c")
    add("Campaign.open", "compile", "type", lambda: engine.Campaign.open(_stored(), "c", 3))
    add("Campaign.open", "text", "type", lambda: engine.Campaign.open(_stored(), "c", _compile, 3))
    add(
        "Campaign.open",
        "migrate",
        "type",
        lambda: engine.Campaign.open(_stored(), "c", _compile, migrate=None),
    )
    add("Campaign.open", "limits", "type", lambda: engine.Campaign.open(_stored(), "c", _compile, limits=1))
    add(
        "Campaign.open",
        "shown_as",
        "type",
        lambda: engine.Campaign.open(_stored(), "c", _compile, shown_as=1),
    )
    add(
        "Campaign.open",
        "read_only",
        "type",
        lambda: engine.Campaign.open(_stored(), "c", _compile, read_only=1),
    )
    add("Campaign.open", "refused", "type", lambda: engine.Campaign.open(_stored(), "c", _compile, refused=1))
    add(
        "Campaign.open",
        "refused",
        "with text",
        lambda: engine.Campaign.open(_stored(), "c", _compile, TEXT, refused=engine.LoadError([])),
    )
    add("Campaign.show", "at", "type", lambda: engine.open_campaign("c", store=_stored()).show(at=3))
    add("Campaign.log", "after", "type", lambda: c().log(after="3"))
    add("Campaign.log", "after", "range", lambda: c().log(after=-1), "must be at least 0")
    add("Campaign.log", "before", "type", lambda: c().log(before=2.0))
    add("Campaign.log", "before", "range", lambda: c().log(before=0), "must be at least 1")
    add("Campaign.log", "limit", "type", lambda: c().log(limit=True))
    add("Campaign.log", "limit", "range", lambda: c().log(limit=0), "must be at least 1")
    add("Campaign.log", "newest", "type", lambda: c().log(newest="yes"))
    add("Campaign.undo", "seen", "type", lambda: c().undo(seen="2"))
    add("Campaign.undo", "seen", "range", lambda: c().undo(seen=0), "must be at least 1")
    return out


def _stored() -> MemoryStore:
    """A store that holds campaign 'c'."""
    store = MemoryStore()
    engine.new_campaign("c", RULES, store=store)
    return store


def _compile(text: str, name: str) -> Any:
    return engine.load_source(engine.SourceFile(name, text)).model


CASES = cases()


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.target}-{c.argument}-{c.wrong}")
def test_misuse_is_a_worded_error(case: Case) -> None:
    with pytest.raises(Exception) as info:
        case.call()
    exc = info.value
    assert isinstance(exc, (RulecraftError, TypeError)), f"{type(exc).__name__}: {exc}"
    text = str(exc)
    if isinstance(exc, TypeError):  # a sentence that names the argument, not Python's own words
        names = [case.argument] + ([case.named] if case.named else [])
        assert any(f"argument '{name}" in text for name in names), text
    if case.named:
        assert case.named in text, text
    assert "Traceback" not in text


def test_a_campaign_built_directly_of_a_ruleset_with_no_state_is_a_worded_misuse() -> None:
    """`Campaign(...)` is made by `Campaign.create` and `Campaign.open`, which refuse a ruleset with
    no `state:` first with a placed RC907; built directly of one, it raised that RC907 with no
    place at all (found by helper A2). It is a misuse, told as one, naming the argument."""
    stored = _stored()
    checks = engine.load_source(engine.SourceFile("checks.yaml", TEXT[: TEXT.index("state:")])).model
    with pytest.raises(TypeError) as caught:
        engine.Campaign(stored, stored.header("c"), checks)
    assert "argument 'model'" in str(caught.value) and "declares a 'state:'" in str(caught.value)


# -- the table covers the surface ---------------------------------------------------------------

VALUE_TYPES = {
    "Diagnostic": "a value the engine returns (its fields are data)",
    "Result": "a value the engine returns: its methods take no argument",
    "Step": "a part of a Result",
    "Multi": "a value the engine returns",
    "Symbol": "a value the engine returns (a str)",
    "SourceFile": "plain data, checked where it is used (load_source)",
}


def _arguments(func: Callable[..., Any]) -> list[str]:
    return [p for p in inspect.signature(func).parameters if p not in ("self", "cls")]


def _public_methods(cls: type) -> dict[str, list[str]]:
    """Each public method of `cls` and the names of its arguments (`**named`, a check's inputs as
    keyword arguments, is "named")."""
    out: dict[str, list[str]] = {}
    for name, member in vars(cls).items():
        func = member.__func__ if isinstance(member, (classmethod, staticmethod)) else member
        if not name.startswith("_") and inspect.isfunction(func):
            out[f"{cls.__name__}.{name}"] = _arguments(func)
    return out


def surface() -> dict[str, list[str]]:
    """Every public entry point and its arguments: the functions and classes of `engine.__all__`
    (a dataclass's fields are its arguments) and the classes the API returns with methods."""
    out: dict[str, list[str]] = {}
    for name in engine.__all__:
        obj = getattr(engine, name)
        if name in VALUE_TYPES or (isinstance(obj, type) and issubclass(obj, Exception)):
            continue
        if inspect.isfunction(obj):
            out[name] = _arguments(obj)
        elif isinstance(obj, type) and hasattr(obj, "__dataclass_fields__"):
            out[name] = list(obj.__dataclass_fields__)
        elif isinstance(obj, type):
            out.update(_public_methods(obj))
        else:
            raise AssertionError(f"engine.{name}: say how it is misused, or why it cannot be")
    for cls in (Distribution, Batch, Odds, Played, Sampled):
        out.update(_public_methods(cls))
    return out


def test_every_public_entry_point_has_cases() -> None:
    """A new public function, method or argument without a misuse case here fails this test
    (methods that take no argument cannot be given a wrong one)."""
    covered = {(c.target, c.argument) for c in CASES}
    found = surface()
    missing = [f"{t}({a})" for t, arguments in found.items() for a in arguments if (t, a) not in covered]
    assert not missing, "public entry points without a misuse case: " + ", ".join(missing)
    stale = {c.target for c in CASES} - set(found)
    assert not stale, f"cases for entry points that are not public: {stale}"


def test_a_huge_bound_is_told_by_its_length_either_side_of_zero() -> None:
    """Review: `Limits(deadline=-10**400)` and `Limits(max_work=-10**400)` wrote all 401 digits
    into the message (only a huge positive deadline or bound was told by its length)."""
    for field in ("deadline", "max_work"):
        for value, said in (
            (-(10**400), "a negative number of 401 digits"),
            (10**400, "a number of 401 digits"),
        ):
            with pytest.raises(engine.InputError) as caught:
                engine.Limits(**{field: value})
            assert caught.value.diagnostics[0].message.endswith(f"got {said}"), caught.value
    with pytest.raises(engine.InputError, match="got -5$"):
        engine.Limits(max_work=-5)
    with pytest.raises(engine.InputError, match="got 100,000,000,000,000,000,000$"):
        engine.Limits(max_work=10**20)


@pytest.mark.parametrize(
    "name, check, inputs", [("chill", "specific", {"target": 55}), ("chimera", "skill", {"dice": 3})]
)
def test_a_roller_called_with_other_arguments_names_the_public_call(name, check, inputs):
    """A roller (`Ruleset.roller`) takes the random source alone; another argument is a TypeError
    that names the call the caller made, kept roller (plain dice, proven unmeterable) or metered
    alike, not this engine's inner function (it said `_kept_roller.<locals>.roll()`)."""
    roller = engine.load(name).roller(check, **inputs)
    for call in (lambda: roller(random.Random(1), forced={}), lambda: roller(random.Random(1), 2)):
        with pytest.raises(TypeError) as caught:
            call()
        said = str(caught.value)
        assert said.startswith("Ruleset.roller's roll()") and "<locals>" not in said, said
    assert roller(rng=random.Random(1)).check == check


@pytest.mark.parametrize(
    "times, kind", [(Fraction(5), "Fraction"), (Fraction(5, 2), "Fraction"), (5.0, "float"), (True, "bool")]
)
def test_a_count_of_another_kind_than_int_is_refused_naming_its_kind(times, kind):
    """A count of rolls or scenes is any `numbers.Integral` but `bool` (as a `Limits` bound):
    `Fraction(5)` is refused, and the message names its kind; it said "got 5", which reads as
    if 5 were wrong."""
    chill = engine.load("chill")
    with pytest.raises(RulecraftError) as caught:
        chill.sample("specific", times, random.Random(1), target=55)
    found = caught.value.diagnostics[0]
    assert found.code == "RC404" and f"(a {kind}: a count is an int)" in found.message, found.message
    castle = engine.load("castle")
    with pytest.raises(RulecraftError) as caught:
        castle.sample_scenes("duel", times, random.Random(1))
    assert f"(a {kind}: a count is an int)" in caught.value.diagnostics[0].message
    assert chill.sample("specific", 5, random.Random(1), target=55).times == 5


@pytest.mark.parametrize("wrong", [None, 5, ["bo"]])
@pytest.mark.parametrize("call", [play_in_campaign, campaign_odds])
def test_a_cast_of_no_names_is_a_worded_misuse(call: Any, wrong: Any) -> None:
    """`engine.scenes.campaign`'s scenes of a stored campaign (scenes.md): a party's character
    that is no name ended in Python's own TypeError from deep inside a hint (hunt 13g)."""
    with pytest.raises(TypeError) as info:
        call(campaign(), "fight", {"ann": "ann", "bo": wrong})
    text = str(info.value)
    assert (
        text.startswith(f"{call.__name__}: argument 'cast['bo']'") and "a character's name (str)" in text
    ), text
