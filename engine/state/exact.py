"""Exact questions one step deep: the distribution of the state after one action.

An action's roll is a check; its exact joint distribution (outcome and every value) is known. The
action's effects are applied to each joint point — the same `runtime.state.apply` a real action
uses — and states that come out alike are merged. So "what becomes of the token pool after this
roll?" or "of the wound track after this hit?" is a `Dist` over whole states, exactly.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from ..errors import CampaignError
from ..eval.dist import Dist
from ..eval.exact import distribution
from ..frozen import replace
from ..model.ruleset import Check
from ..model.state import Action, StateModel, Tally
from ..model.values import to_json
from ..runtime.context import RunContext, with_work
from ..runtime.state import APPLY_PASSES, State, apply, roll_of, seen_roll, width_work
from ..runtime.work import meter, working

APPLY_WORK = 40
"""Units of work charged for applying an action's effects to one point of its roll's joint
distribution (35-110 microseconds measured, by how many items and effects the state has)."""


def after_action(
    rules: StateModel,
    checks: Mapping[str, Check],
    action: Action,
    state: State,
    character: str | None,
    inputs: Mapping[str, Any],
    ctx: RunContext,
    others: Mapping[str, str] | None = None,
    cut: list[Fraction] | None = None,
) -> Dist:
    """The exact distribution of the state after `action`, keyed by the state as canonical JSON
    text (`json.loads` gives it back); certain when the action rolls nothing. Where the roll's
    chances are those of an uncapped explosion followed down to a tail (`Distribution.truncated`),
    its share is appended to `cut` where it is larger than the last there (so `cut[-1]` is the
    largest met): each chance of the state after is exact to within it."""
    ctx = with_work(ctx)
    assert ctx.work is not None
    with working(ctx.work):  # the effects on every joint point share the solve's budget
        return _after(rules, checks, action, state, character, inputs, ctx, others, cut)


def _after(
    rules: StateModel,
    checks: Mapping[str, Check],
    action: Action,
    state: State,
    character: str | None,
    inputs: Mapping[str, Any],
    ctx: RunContext,
    others: Mapping[str, str] | None,
    cut: list[Fraction] | None,
) -> Dist:
    memo = ctx.caches.environments
    work = ctx.work or meter()
    wide = width_work(rules, state)
    work.charge(wide)
    roll = roll_of(rules, checks, action, state, character, inputs, others, memo)
    if roll is None:
        work.charge(APPLY_PASSES * wide)
        new, _ = apply(rules, action, state, character, inputs, None, others, memo)
        return Dist.certain(_key(new))
    check, bound = roll
    key = ("distribution", check.name, id(check), ctx.policy, *bound.items())
    dist = ctx.caches.distributions.get(key)
    if dist is None:  # a scene asks for the same roll from many states
        dist = distribution(check, bound, ctx)
        ctx.caches.distributions.put(key, dist, dist.approx_bytes())
    if cut is not None and dist.truncated and (not cut or dist.truncated > cut[-1]):
        cut.append(dist.truncated)  # the largest last: a scene asks at every node, not a list that long
    fixed = dict(dist.known)  # the values known before the roll
    # the node that asked paid for one point (scenes.odds.NODE_WORK); every other is charged
    # before it is applied, so a roll of a thousand points cannot run past the budget unseen
    points = len(dist.joint.weights)
    work.charge(APPLY_WORK * (points - 1) + APPLY_PASSES * wide * points)
    # a distribution an auto rule decided holds only the outputs that need no dice (`exact._fixed`);
    # a rolled one, every value worked out after the roll (`Check.layout`), pools too
    auto = dist.names != check.layout
    out: dict[str, int] = {}
    # the points refused, by the refusal (its place and words): rolls refused at other effects, or
    # for other values, are not told as the first one's (hunt 13x: heads, refused at one effect
    # with 8, were told among tails refused at the next with 6)
    refusals: dict[tuple[Any, str], tuple[CampaignError, list[tuple[Any, ...]]]] = {}
    for key, weight in dist.joint.weights.items():
        rolled = seen_roll(check, {**fixed, **dict(zip(dist.names, key[2:]))}, key[0], auto)
        try:
            new, _ = apply(rules, action, state, character, inputs, rolled, others, memo)
        except CampaignError as exc:
            first = exc.diagnostics[0]
            refusals.setdefault((first.span, first.message), (exc, []))[1].append(key)
            continue
        k = _key(new)
        out[k] = out.get(k, 0) + weight
    if refusals:
        (refused, refusing), *more = refusals.values()
        if not out and not more:
            raise refused
        raise _refused_by_some(refused, refusing, dist.joint, [p for _, points in more for p in points])
    return Dist(out, dist.joint.total)


def _by_outcome(weights: Mapping[tuple[Any, ...], int], points: Iterable[tuple[Any, ...]]) -> dict[str, int]:
    """The weight of `points` (of a joint distribution's `weights`) by their outcome, named."""
    found: dict[str, int] = {}
    for key in points:
        shown = str(to_json(key[0]))
        found[shown] = found.get(shown, 0) + weights[key]
    return found


def _refused_by_some(
    refused: CampaignError,
    points: list[tuple[Any, ...]],
    joint: Dist,
    elsewhere: Sequence[tuple[Any, ...]] = (),
) -> CampaignError:
    """The first refusal of the action's effects (`RC906`, a bound broken) at some points of its
    roll (`points`, of `joint`) and not at others, saying which rolls refuse it (by their
    outcomes, "some of" those of an outcome not all of whose rolls refuse it, review AH; worked
    out here, off the path of an action no roll refuses) and how likely they are: told alone,
    as `act` tells it of the one roll it made, "there are only 0" read as if every roll broke it
    (hunt 5). The whole action is refused for those rolls, so the state after it has no
    distribution; the error stays the effect's, at its place. Rolls refused otherwise (at another
    effect, or for another value: `elsewhere`) are counted apart, after it."""
    first, *rest = refused.diagnostics
    refusing = _by_outcome(joint.weights, points)
    outcomes = _by_outcome(joint.weights, joint.weights)
    every = [f"'{o}'" for o, w in refusing.items() if w == outcomes[o]]
    some = [f"'{o}'" for o, w in refusing.items() if w != outcomes[o]]
    parts = [f"the rolls whose outcome is {', '.join(every)}"] if every else []
    parts += (
        [f"some of {'those' if every else 'the rolls'} whose outcome is {', '.join(some)}"] if some else []
    )
    chance = Fraction(sum(refusing.values()), joint.total)
    said = f"{first.message}, for {' and '.join(parts)} (a chance of {chance}), which refuse the whole action"
    if elsewhere:
        other = Fraction(sum(joint.weights[p] for p in elsewhere), joint.total)
        said += (
            f"; other rolls (a chance of {other}) are refused too, at another effect or with another value"
        )
    return CampaignError([replace(first, message=said), *rest], missing=refused.missing, unfit=refused.unfit)


def _key(state: State) -> str:
    return json.dumps(state, sort_keys=True)


def item_marginals(
    dist: Dist,
    character: str | None,
    rules: StateModel | None = None,
    others: Mapping[str, str] | None = None,
) -> dict[str, Dist]:
    """Each item's own distribution (shared items, then the character's, then those of the
    characters in the action's roles, `others`: an action may change them too, `of: foe`), from
    a `Dist` of states; a character's items are named `NAME.ITEM`. With `rules`, a tally's
    members are listed in its scale's order."""
    found: dict[str, dict[str, int]] = {}
    sheets = [who for who in dict.fromkeys([character, *(others or {}).values()]) if who is not None]
    for text, weight in dist.weights.items():
        state = json.loads(text)
        places = [("", state["shared"])]
        places += [(f"{who}.", state["characters"][who]["items"]) for who in sheets]
        for prefix, items in places:
            for name, value in items.items():
                item = rules.item(name) if rules is not None else None
                if isinstance(item, Tally):
                    value = {m.name: value[m.name] for m in item.scale.members if m.name in value}
                shown = json.dumps(value)
                counts = found.setdefault(prefix + name, {})
                counts[shown] = counts.get(shown, 0) + weight
    return {name: Dist(counts, dist.total) for name, counts in found.items()}
