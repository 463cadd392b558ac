"""Scenes played from a stored campaign: the odds from its state now, or a scene played out and
kept as one event of its log (with every step's dice, so a replay takes the same steps again)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from ..errors import Advice, CampaignError, Diagnostic, did_you_mean
from ..model.scene import Scene
from ..runtime import arguments
from ..runtime.context import RunContext, check_policy
from ..runtime.state import State
from ..runtime.work import Work
from ..state.campaign import Campaign, kept_from_latest
from ..state.records import Event, Transaction
from ..syntax.positions import Span
from .odds import Odds, odds
from .play import Played, play


def _fail(
    message: str,
    hint: str | None = None,
    *,
    missing: bool = False,
    unfit: bool = False,
    advice: Advice | None = None,
    span: Span | None = None,
) -> CampaignError:
    return CampaignError(
        [Diagnostic("RC907", message, span, hint, advice=advice)], missing=missing, unfit=unfit
    )


def scene_of(campaign: Campaign, scene: str) -> Scene:
    """The campaign's scene `scene`: one its ruleset does not have is RC907 (a server answers 404)."""
    found = campaign.rules.scenes.get(scene)
    if found is None:
        raise _fail(
            f"ruleset '{campaign.model.name}' has no scene '{scene}'",
            did_you_mean(scene, campaign.rules.scenes)
            or f"scenes: {', '.join(campaign.rules.scenes) or 'none'}",
            missing=True,
            span=campaign.rules.scenes_span,
        )
    return found


def cast_of(campaign: Campaign, found: Scene, cast: Mapping[str, str] | None, state: State) -> dict[str, str]:
    """The character of `state` who plays each of the scene's parties (each named once); a cast
    that does not fit is told at the scene, whose parties it fills."""
    scene, at = found.name, found.span
    given = dict(cast or {})
    names = list(state["characters"])
    extra = [p for p in given if p not in found.parties]
    if extra:  # before what is missing: a misspelt party is both (hunt 11b: only the missing was told)
        missing = [p for p in found.parties if p not in given]
        raise _fail(
            f"scene '{scene}' has no party '{extra[0]}'",
            did_you_mean(extra[0], missing or found.parties)
            or (f"it lacks {', '.join(map(repr, missing))}; " if missing else "")
            + f"parties: {', '.join(found.parties)}",
            unfit=True,
            span=at,
        )
    for party in found.parties:
        if party not in given:
            raise _fail(
                f"scene '{scene}' needs the character who plays '{party}'",
                f"give it as --cast {party}=NAME (cast={{'{party}': NAME}} from Python; characters: "
                f"{', '.join(names) or 'none'})",
                unfit=True,
                advice=Advice("cast", party, values=tuple(names)),
                span=at,
            )
        if given[party] not in names:
            raise _fail(
                f"campaign '{campaign.name}' has no character '{given[party]}'",
                did_you_mean(given[party], names) or f"characters: {', '.join(names) or 'none'}",
                span=at,
            )
    if len(set(given.values())) != len(given):
        raise _fail("one character cannot play two parties of a scene", unfit=True, span=at)
    return given


def campaign_odds(
    campaign: Campaign,
    scene: str,
    cast: Mapping[str, str] | None = None,
    *,
    policy: str = "always",
    expect: Sequence[str] = (),
) -> Odds:
    """The exact odds of a scene played from the campaign's state now (nothing is written). One
    request: reading the state (and checking it) and the solve share one work budget."""
    arguments.mapping("campaign_odds", "cast", cast, of_names=True)
    found = scene_of(campaign, scene)
    with campaign.request(found.span) as work:  # a spent budget is told at the scene
        state = campaign.state()
        given = cast_of(campaign, found, cast, state)
        ctx = RunContext(campaign.limits, check_policy(policy), campaign.caches, work=work)
        return odds(campaign.model, found, state, given, ctx, tuple(expect))


def play_in_campaign(
    campaign: Campaign,
    scene: str,
    cast: Mapping[str, str] | None = None,
    *,
    seed: int | None = None,
    policy: str = "always",
) -> tuple[Event, Played]:
    """Play a scene out from the campaign's state and keep where it ends, as one event. One
    request: the check of the stored state, the cast read from it and every step of the scene
    share one work budget; past it nothing is written.

    The scene is played before the write transaction opens, so an `optimal` policy's exact solve
    does not hold the store's write lock (a writer to the same file waited on it, then gave up
    after 10 s, found by a review). A scene is fixed by the state it starts from, the cast, the
    seed and the policy; under the lock the state is read again, and the scene played is kept
    only if that state is the one it was played from. If another process changed it meanwhile,
    the scene is played again from the state now (`kept_from_latest`: outside the lock, on a
    budget of its own, twice; then under it): slower, but never refused for another's write and
    never kept from a state that is no longer the last. A scene whose ending already holds in
    that state would play no round: it is refused (RC905) and nothing is written."""
    seed = arguments.seed("play_in_campaign", seed)
    arguments.mapping("play_in_campaign", "cast", cast, of_names=True)
    found = scene_of(campaign, scene)
    seed = random.randrange(2**32) if seed is None else seed
    policy = check_policy(policy)  # before anything is played or written

    def played_from(state: State, given: Mapping[str, str], work: Work) -> Played:
        ctx = RunContext(campaign.limits, policy, campaign.caches, random.Random(seed), work=work)
        played = play(campaign.model, found, state, given, ctx)
        if played.rounds == 0:  # over before it begins: nothing played, so nothing to keep
            raise CampaignError(
                [
                    Diagnostic(
                        "RC905",
                        f"scene '{scene}' is over before it begins: its ending '{played.ending}' already "
                        f"holds in campaign '{campaign.name}'",
                        found.span,
                        "nothing is played or written; change the campaign's state first (an action, "
                        "a period), or play a scene none of whose endings holds yet",
                    )
                ]
            )
        return played

    def played_in(state: State, work: Work) -> tuple[Mapping[str, str], Played]:
        given = cast_of(campaign, found, cast, state)
        return given, played_from(state, given, work)

    def kept(tx: Transaction, done: tuple[Mapping[str, str], Played]) -> tuple[Event, Played]:
        given, played = done
        data = {
            "scene": scene,
            "cast": given,
            "seed": seed,
            "policy": policy,
            "ending": played.ending,
            "rounds": played.rounds,
            "trace": list(played.trace),
        }
        return tx.append("scene", data, played.state), played

    return kept_from_latest(campaign, found.span, played_in, kept)  # a spent budget is told at the scene
