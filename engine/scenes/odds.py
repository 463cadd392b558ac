"""A scene solved exactly: an absorbing Markov chain over its states, one round a step.

A state of the chain is the whole lasting state (canonical JSON). One round takes the steps in
order; each step's action is solved one action deep (`state.exact.after_action`: the check's exact
distribution, each point through the same effects), and a state in which an ending holds stays
where it is. Where the scene can return to a state (a stand-off changes nothing) the chain has
cycles and is solved exactly as a linear system, not cut off; a state from which no ending can
be reached ends as "never". The length in rounds is counted to `max_rounds`, with what is left.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..errors import CampaignError, Diagnostic, LimitError
from ..eval.dist import Dist, fraction_text
from ..eval.markov import absorb, expected_steps
from ..model.ruleset import RulesetModel
from ..model.scene import Scene
from ..runtime.context import RunContext
from ..runtime.state import begin
from ..state.exact import after_action
from .play import ending, step_call, takes_place

NEVER = "never"
"""The ending of a state from which no ending of the scene can be reached."""


@dataclass(frozen=True)
class Odds:
    """The exact chance of each ending, the length in rounds, and how large the chain was."""

    scene: str
    policy: str
    endings: Dist
    rounds: Mapping[int, Fraction]
    """P(the scene ends in round r), for r up to the scene's `max_rounds`."""
    longer: Fraction
    """P(it lasts longer than `max_rounds`)."""
    mean_rounds: Fraction | None
    """The exact expected length (None when some state can never end)."""
    states: int

    def probability(self, name: str) -> Fraction:
        return self.endings.probability(name)

    def as_json(self) -> dict[str, Any]:
        return {
            "scene": self.scene,
            "policy": self.policy,
            "endings": {str(k): fraction_text(p) for k, p in self.endings.items()},
            "rounds": {str(r): fraction_text(p) for r, p in self.rounds.items() if p},
            "longer": fraction_text(self.longer),
            "mean_rounds": fraction_text(self.mean_rounds) if self.mean_rounds is not None else None,
            "states": self.states,
        }


def _key(state: Any) -> str:
    return json.dumps(state, sort_keys=True)


def odds(
    model: RulesetModel, scene: Scene, state: Mapping[str, Any], cast: Mapping[str, str], ctx: RunContext
) -> Odds:
    """The exact odds of `scene` from `state`, with the parties played by `cast`."""
    rules = model.state
    assert rules is not None
    ends: dict[str, str | None] = {}

    def ended(key: str) -> str | None:
        if key not in ends:
            ends[key] = ending(model, scene, json.loads(key), cast)
        return ends[key]

    def round_from(key: str) -> Dist:
        current = Dist.certain(key)
        for step in scene.round:
            parts = []
            for k, w in current.weights.items():
                here = json.loads(k)
                moved = Dist.certain(k)
                if ended(k) is None and step.period:
                    if takes_place(model, step, here, cast):
                        moved = Dist.certain(_key(begin(rules, here, step.period)[0]))
                elif ended(k) is None:
                    call = step_call(model, step, here, cast)
                    if call is not None:
                        act, who, bound, roles = call
                        try:
                            moved = after_action(rules, model.checks, act, here, who, bound, ctx, roles)
                        except CampaignError as exc:
                            if exc.diagnostics[0].code != "RC905":
                                raise
                parts.append((moved, w, current.total))
            current = Dist.mix(parts)
        return current

    start = _key(state)
    edges: dict[str, Dist | None] = {}
    todo = deque([start])
    while todo:
        k = todo.popleft()
        if k in edges:
            continue
        edges[k] = None if ended(k) is not None else round_from(k)
        if len(edges) > ctx.limits.max_states:
            raise LimitError(
                [
                    Diagnostic(
                        "RC503",
                        f"scene '{scene.name}' has more than {ctx.limits.max_states} states",
                        scene.span,
                        "raise Limits.max_states",
                    )
                ]
            )
        nxt = edges[k]
        if nxt is not None:
            todo.extend(t for t in nxt.weights if t not in edges)
    # States from which no ending can be reached never end: they absorb as NEVER.
    reaches: set[str] = {k for k, e in edges.items() if e is None}
    back: dict[str, list[str]] = {}
    for k, e in edges.items():
        for t in e.weights if e is not None else ():
            back.setdefault(t, []).append(k)
    frontier = deque(reaches)
    while frontier:
        for k in back.get(frontier.popleft(), []):
            if k not in reaches:
                reaches.add(k)
                frontier.append(k)
    stuck = {k for k in edges if k not in reaches}
    chain = {k: (None if k in stuck else e) for k, e in edges.items()}
    endings = absorb(Dist.certain(start), lambda k: chain[k], lambda k: ended(k) or NEVER, lambda n: None)
    rounds, longer = _lengths(start, edges, scene.max_rounds)  # a stuck state's mass stays "longer"
    mean = expected_steps(start, chain) if not stuck else None
    return Odds(scene.name, ctx.policy, endings, rounds, longer, mean, len(edges))


def _lengths(
    start: str, chain: Mapping[str, Dist | None], horizon: int
) -> tuple[dict[int, Fraction], Fraction]:
    """P(the scene ends in round r) for r = 1..horizon, pushing the mass one round at a time."""
    mass: dict[str, Fraction] = {start: Fraction(1)} if chain[start] is not None else {}
    rounds: dict[int, Fraction] = {}
    for r in range(1, horizon + 1):
        if not mass:
            break
        nxt: dict[str, Fraction] = {}
        done = Fraction(0)
        for k, p in mass.items():
            e = chain[k]
            assert e is not None
            for t, w in e.weights.items():
                q = p * Fraction(w, e.total)
                if chain[t] is None:
                    done += q
                else:
                    nxt[t] = nxt.get(t, Fraction(0)) + q
        rounds[r] = done
        mass = nxt
    return rounds, sum(mass.values(), Fraction(0))
