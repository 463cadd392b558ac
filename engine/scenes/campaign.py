"""Scenes played from a stored campaign: the odds from its state now, or a scene played out and
kept as one event of its log (with every step's dice, so a replay takes the same steps again)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from ..errors import Advice, CampaignError, Diagnostic, did_you_mean
from ..model.scene import Scene
from ..runtime.context import RunContext, check_policy
from ..state.campaign import Campaign
from ..state.records import Event
from .odds import Odds, odds
from .play import Played, play


def _fail(
    message: str,
    hint: str | None = None,
    *,
    missing: bool = False,
    unfit: bool = False,
    advice: Advice | None = None,
) -> CampaignError:
    return CampaignError(
        [Diagnostic("RC907", message, None, hint, advice=advice)], missing=missing, unfit=unfit
    )


def cast_of(campaign: Campaign, scene: str, cast: Mapping[str, str] | None) -> tuple[Scene, dict[str, str]]:
    """The scene, and the campaign's character who plays each of its parties (each named once)."""
    found = campaign.rules.scenes.get(scene)
    if found is None:
        raise _fail(
            f"ruleset '{campaign.model.name}' has no scene '{scene}'",
            did_you_mean(scene, campaign.rules.scenes)
            or f"scenes: {', '.join(campaign.rules.scenes) or 'none'}",
            missing=True,
        )
    given = dict(cast or {})
    names = list(campaign.state()["characters"])
    for party in found.parties:
        if party not in given:
            raise _fail(
                f"scene '{scene}' needs the character who plays '{party}'",
                f"give it as --cast {party}=NAME (characters: {', '.join(names) or 'none'})",
                unfit=True,
                advice=Advice("cast", party, values=tuple(names)),
            )
        if given[party] not in names:
            raise _fail(
                f"campaign '{campaign.name}' has no character '{given[party]}'",
                did_you_mean(given[party], names) or f"characters: {', '.join(names) or 'none'}",
            )
    extra = [p for p in given if p not in found.parties]
    if extra:
        raise _fail(
            f"scene '{scene}' has no party '{extra[0]}'", f"parties: {', '.join(found.parties)}", unfit=True
        )
    if len(set(given.values())) != len(given):
        raise _fail("one character cannot play two parties of a scene", unfit=True)
    return found, given


def campaign_odds(
    campaign: Campaign,
    scene: str,
    cast: Mapping[str, str] | None = None,
    *,
    policy: str = "always",
    expect: Sequence[str] = (),
) -> Odds:
    """The exact odds of a scene played from the campaign's state now (nothing is written)."""
    found, given = cast_of(campaign, scene, cast)
    ctx = RunContext(campaign.limits, check_policy(policy), campaign.caches)
    return odds(campaign.model, found, campaign.state(), given, ctx, tuple(expect))


def play_in_campaign(
    campaign: Campaign,
    scene: str,
    cast: Mapping[str, str] | None = None,
    *,
    seed: int | None = None,
    policy: str = "always",
) -> tuple[Event, Played]:
    """Play a scene out from the campaign's state and keep where it ends, as one event."""
    found, given = cast_of(campaign, scene, cast)
    policy = check_policy(policy)  # before anything is played or written
    seed = random.randrange(2**32) if seed is None else seed
    ctx = RunContext(campaign.limits, policy, campaign.caches, random.Random(seed))
    with campaign.writing() as tx:  # played and kept in one transaction
        played = play(campaign.model, found, tx.last().state, given, ctx)
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
