"""What one step and one round of a scene do, and a whole scene sampled with its trace.

A step's action is taken by the party's character, with the parties in its roles; a step whose
condition is false, or whose action the rules refuse in that state, changes nothing. After every
step the endings are checked in order; the first that holds ends the scene there.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import CampaignError, Diagnostic, did_you_mean
from ..model.ruleset import RulesetModel
from ..model.scene import Scene, SceneStep
from ..model.values import to_json
from ..runtime.cache import BoundedCache
from ..runtime.context import RunContext
from ..runtime.inputs import bind
from ..runtime.state import State, begin, bind_params, environment, join, new_state
from ..state.campaign import take


def cast_state(
    model: RulesetModel,
    scene: Scene,
    params: Mapping[str, Any] | None,
    parties: Mapping[str, Mapping[str, Any]] | None,
) -> tuple[State, dict[str, str]]:
    """A fresh state for a scene played on its own: the campaign's parameters and one character per
    party, named after it, with that party's parameters; and the cast (party → character)."""
    rules = model.state
    assert rules is not None
    state = new_state(rules, bind_params(rules.campaign, params or {}, "campaign", scene.name))
    given = dict(parties or {})
    for party in given:
        if party not in scene.parties:
            raise CampaignError(
                [
                    Diagnostic(
                        "RC907",
                        f"scene '{scene.name}' has no party '{party}'",
                        scene.span,
                        did_you_mean(party, scene.parties) or f"parties: {', '.join(scene.parties)}",
                    )
                ]
            )
    for party in scene.parties:
        state = join(
            rules, state, party, bind_params(rules.character, given.get(party, {}), "character", party)
        )
    return state, {p: p for p in scene.parties}


def scene_view(
    model: RulesetModel, state: State, cast: Mapping[str, str], memo: BoundedCache | None = None
) -> dict[str, Any]:
    """What a scene's expressions see in a state: the table's names and `PARTY.NAME` for every
    party. Made once per state and handed to `ending`, `takes_place` and `step_call`."""
    rules = model.state
    assert rules is not None
    return environment(rules, state, None, cast, memo)


def ending(scene: Scene, view: Mapping[str, Any]) -> str | None:
    """The scene's ending in the state seen as `view`, or None while it goes on."""
    for end in scene.ends:
        if end.when.run(dict(view)):
            return end.name
    return None


def takes_place(step: SceneStep, view: Mapping[str, Any]) -> bool:
    """Whether the step happens in the state seen as `view` (its condition holds, or it has none)."""
    return step.when is None or bool(step.when.run(dict(view)))


def step_call(
    model: RulesetModel,
    step: SceneStep,
    view: Mapping[str, Any],
    cast: Mapping[str, str],
    offer: bool = False,
) -> tuple[Any, str | None, dict[str, Any], dict[str, str]] | None:
    """The action, the acting character, its bound inputs and its roles for this step in the
    state seen as `view` (with its `may` inputs when the choice is taken); None when the step's
    condition is false."""
    rules = model.state
    assert rules is not None
    if not takes_place(step, view):
        return None
    act = rules.actions[step.action]
    given = {name: expr.run(dict(view)) for name, expr in (*step.inputs, *(step.may if offer else ()))}
    bound = bind(act.inputs, given, "action", act.name, act.span)
    who = cast[step.party] if step.party else None
    roles = {role: cast[party] for role, party in step.others}
    return act, who, bound, roles


@dataclass(frozen=True)
class Played:
    """A sampled scene: its ending ("unfinished" past `max_rounds`), its length, every step."""

    scene: str
    ending: str
    rounds: int
    trace: tuple[dict[str, Any], ...]
    state: State

    def as_json(self) -> dict[str, Any]:
        return {
            "scene": self.scene,
            "ending": self.ending,
            "rounds": self.rounds,
            "trace": list(self.trace),
            "state": self.state,
        }


def play(model: RulesetModel, scene: Scene, state: State, cast: Mapping[str, str], ctx: RunContext) -> Played:
    """One whole scene, sampled with `ctx`'s random source; a choice a step offers is taken as the
    policy says (`optimal`: as the exact solution of the whole scene says)."""
    from .odds import choice_at, node_of  # the exact solution the optimal policy follows

    rules = model.state
    assert rules is not None
    rng = ctx.rng or random.Random()
    roll_ctx = ctx._replace(rng=rng)
    optimal = choice_at(model, scene, state, cast, ctx) if ctx.policy == "optimal" and _offers(scene) else {}
    trace: list[dict[str, Any]] = []
    memo = ctx.caches.environments
    view = scene_view(model, state, cast, memo)  # seen anew after every change
    already = ending(scene, view)
    if already is not None:  # over before it begins, as the exact odds say
        return Played(scene.name, already, 0, (), state)
    for rnd in range(1, scene.max_rounds + 1):
        for index, step in enumerate(scene.round):
            if step.period:
                if takes_place(step, view):
                    state, done = begin(rules, state, step.period, memo)
                    view = scene_view(model, state, cast, memo)
                    trace.append({"round": rnd, "begin": step.period, "effects": done})
                    end = ending(scene, view)
                    if end is not None:
                        return Played(scene.name, end, rnd, tuple(trace), state)
                continue
            offer = bool(step.may) and (ctx.policy == "always" or optimal.get(node_of(state, index), 0) == 1)
            taken = _take(model, step, state, view, cast, offer, roll_ctx)
            if isinstance(taken, str) and offer:  # the choice is not there in this state
                offer = False
                taken = _take(model, step, state, view, cast, offer, roll_ctx)
            if taken is None:
                continue
            if isinstance(taken, str):  # refused: the step changes nothing (a declined choice too)
                refused: dict[str, Any] = {
                    "round": rnd,
                    "action": step.action,
                    "by": cast.get(step.party),
                    "refused": taken,
                }
                if step.may:
                    refused["choice"] = {"taken": False, "policy": ctx.policy}
                trace.append(refused)
                continue
            state, entry = taken
            view = scene_view(model, state, cast, memo)
            entry["round"] = rnd
            if step.may:
                entry["choice"] = {"taken": offer, "policy": ctx.policy}
            trace.append(entry)
            end = ending(scene, view)
            if end is not None:
                return Played(scene.name, end, rnd, tuple(trace), state)
    return Played(scene.name, "unfinished", scene.max_rounds, tuple(trace), state)


def _offers(scene: Scene) -> bool:
    return any(step.may for step in scene.round)


def _take(
    model: RulesetModel,
    step: SceneStep,
    state: State,
    view: Mapping[str, Any],
    cast: Mapping[str, str],
    offer: bool,
    ctx: RunContext,
) -> tuple[State, dict[str, Any]] | str | None:
    """The state after the step and its trace entry; the refusal's message; or None when the
    step does not take place."""
    call = step_call(model, step, view, cast, offer)
    if call is None:
        return None
    act, who, bound, roles = call
    try:
        new, done, result = take(model, act, state, who, bound, ctx, roles)
    except CampaignError as exc:
        if exc.diagnostics[0].code != "RC905":
            raise
        return exc.diagnostics[0].message
    entry: dict[str, Any] = {
        "action": act.name,
        "by": who,
        "others": roles,
        "inputs": {k: to_json(v) for k, v in bound.items()},
        "effects": done,
    }
    if result is not None:
        entry["outcome"] = result.outcome.name
        entry["dice"] = result.forced()
    return new, entry
