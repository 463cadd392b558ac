"""Chthonian's fight as a scene (rulesets/chthonian.yaml, `scenes: combat`): an Excursionist and a
creature make one Contest Roll a round; the loser takes the Extent as Wounded (an Excursionist only
the part the Style and the foe allow, rounded down), Wounded is subtracted from every later roll,
and the fight ends when one side's Wounded reaches its `out_at`. The Player may spend a Nodule for an
Automatic Success instead of a round's roll.

The exact odds (`scene_odds`) are checked against a computation by hand from the rules, with
Fractions over the two d12s; a round that changes nothing (a tie, or a Pulp wound that rounds down
to 0) returns to the same state, and is summed as a geometric series. Played scenes agree with the
odds, and their traces show the Wounded of earlier rounds in the later rolls. The notes named
(`combat-style`, ...) are the ruleset's `notes:`.
"""

from __future__ import annotations

import io
import random
from fractions import Fraction
from math import sqrt
from typing import Any

import pytest
from _repo import REPO_ROOT

import engine
from engine.cli import run
from engine.state.memory import MemoryStore

RULESET = engine.load(REPO_ROOT / "rulesets" / "chthonian.yaml")

# The difference of two d12s, d1 - d2: k in -11..11 has (12 - |k|) of the 144 pairs.
D12_DIFFERENCE = {k: Fraction(12 - abs(k), 144) for k in range(-11, 12)}

# Walter (revolver Powerful 1, ex-Detective 2) against the Grumbling Mulk (Inhuman Strength 3, Tough
# Hide 1), in a Weird Tale, each out at Wounded 4; no Nodules, so there is no choice to make.
MULK = (
    {"style": "weird_tale"},
    {"excursionist": {"combat_traits": 3, "out_at": 4}, "creature": {"combat_traits": 4, "out_at": 4}},
)
# The same fight in a Shocking Discovery, where "Any harm to Excursionists" is the "Full Extent", as in
# a Weird Tale: the same odds (the audit of the Chthonian text's examples found this Style untested).
SHOCKING = ({"style": "shocking_discovery"}, MULK[1])
# A Pulp Adventure against a Faceless Goon (one-fifth of an Extent wounds), out at 3 each; one Nodule
# (Terrible Insight 1) that buys an Automatic Success of Extent 1.
GOON = (
    {"style": "pulp_adventure"},
    {
        "excursionist": {"out_at": 3, "starting_ti": 1, "nodule_extent": 1},
        "creature": {"out_at": 3},
    },
)
# A Pulp Adventure against a Main Villain (one-half of an Extent wounds), stronger than the hero; one
# Nodule of Extent 1.
VILLAIN = (
    {"style": "pulp_adventure"},
    {
        "excursionist": {"combat_traits": 1, "out_at": 3, "starting_ti": 1, "nodule_extent": 1},
        "creature": {"combat_traits": 3, "out_at": 4, "villain": True},
    },
)


def by_hand(
    params: dict[str, Any], parties: dict[str, dict[str, Any]], policy: str
) -> tuple[Fraction, Fraction]:
    """(P(the creature is out first), the expected number of rounds), from the rules alone.

    A state is (the Excursionist's Wounded, the creature's Wounded, Nodules left). A round is a
    Nodule strike (the creature takes the declared Extent: `nodule_extent`, or what puts it out if
    less) or a Contest Roll: d12 + Traits - Wounded each; the winner wounds the loser by the
    difference, the creature whole, the Excursionist by the Style's part rounded down (Pulp: one-half
    from a Main Villain, else one-fifth; otherwise the full Extent). The Roll after a Nodule strike
    moves only Terrible Insight, which no ending reads, so it is left out here.

    A round that changes nothing comes back to the same state with probability r: the value x of a
    state that rolls is x = a + r x, so x = a / (1 - r) (and the length t = (1 + b) / (1 - r)).
    `optimal` takes the better of rolling and striking: max(strike, a / (1 - r)) is the fixed point
    of x = max(strike, a + r x)."""
    style = params["style"]
    me, it = parties["excursionist"], parties["creature"]
    et, eo, ne = me.get("combat_traits", 0), me.get("out_at", 7), me.get("nodule_extent", 15)
    ct, co, villain = it.get("combat_traits", 0), it.get("out_at", 7), it.get("villain", False)

    def part(extent: int) -> int:
        if style == "pulp_adventure":
            return extent // 2 if villain else extent // 5
        return extent

    memo: dict[tuple[int, int, int], tuple[Fraction, Fraction]] = {}

    def value(ew: int, cw: int, n: int) -> tuple[Fraction, Fraction]:
        if cw >= co:
            return Fraction(1), Fraction(0)
        if ew >= eo:
            return Fraction(0), Fraction(0)
        if (ew, cw, n) in memo:
            return memo[(ew, cw, n)]
        win, length, same = Fraction(0), Fraction(0), Fraction(0)
        for k, p in D12_DIFFERENCE.items():
            extent = k + (et - ew) - (ct - cw)  # the Excursionist's result less the creature's
            if extent > 0:
                nxt = (ew, cw + extent, n)
            elif extent < 0 and part(-extent) > 0:
                nxt = (ew + part(-extent), cw, n)
            else:
                same += p
                continue
            v, t = value(*nxt)
            win, length = win + p * v, length + p * t
        rolled = (win / (1 - same), (1 + length) / (1 - same))
        found = rolled
        if n > 0 and policy != "never":
            v, t = value(ew, cw + min(ne, co - cw), n - 1)
            struck = (v, 1 + t)
            found = struck if policy == "always" or struck[0] > rolled[0] else rolled
        memo[(ew, cw, n)] = found
        return found

    return value(0, 0, parties["excursionist"].get("starting_ti", 0))


@pytest.mark.parametrize(
    ("setting", "policy"),
    [
        (MULK, "always"),
        (SHOCKING, "always"),
        (GOON, "never"),
        (GOON, "always"),
        (VILLAIN, "never"),
        (VILLAIN, "always"),
    ],
    ids=["mulk", "shocking", "goon-never", "goon-always", "villain-never", "villain-always"],
)
def test_the_exact_odds_equal_a_computation_by_hand(setting: Any, policy: str) -> None:
    params, parties = setting
    odds = RULESET.scene_odds("combat", params=params, parties=parties, policy=policy)
    win, rounds = by_hand(params, parties, policy)
    assert odds.probability("creature_out") == win
    assert odds.probability("excursionist_out") == 1 - win
    assert odds.mean_rounds == rounds
    if setting in (MULK, SHOCKING):  # the numbers reported with the commit
        assert odds.mean_rounds == Fraction(25005487787207655344, 14518659734595225825)  # 1.722 rounds
        assert win == Fraction(13810940220910377367, 35636710257642827025)


def test_spending_the_nodule_at_once_is_optimal() -> None:
    """The optimal policy decides at every state with a Nodule; here it spends it at once, as
    `always` does (note combat-nodule), and the by-hand maximum over both choices agrees."""
    params, parties = GOON
    got = {
        policy: RULESET.scene_odds("combat", params=params, parties=parties, policy=policy)
        for policy in ("never", "always", "optimal")
    }
    best = got["optimal"].probability("creature_out")
    assert best == by_hand(params, parties, "optimal")[0]
    assert best == got["always"].probability("creature_out") > got["never"].probability("creature_out")
    assert best == Fraction(1265282897, 1313458146)
    assert got["never"].probability("creature_out") == Fraction(263419278673, 291826518984)
    assert got["optimal"].choices["offered"] > 0


def _replay(trace: Any, parties: dict[str, dict[str, Any]], style: str) -> int:
    """Check every exchange of a played trace against the contest rule, with the Wounded of the
    earlier rounds subtracted; return how many rounds those wounds decided differently."""
    traits = {who: parties[who].get("combat_traits", 0) for who in ("excursionist", "creature")}
    wounded = {"excursionist": 0, "creature": 0}
    villain = parties["creature"].get("villain", False)
    changed = 0
    for step in trace:
        if step.get("action") == "nodule_strike" and "effects" in step:
            for effect in step["effects"]:
                if effect["item"] == "wounded":
                    wounded[effect["character"]] = effect["to"]
        if step.get("action") != "exchange" or "refused" in step:
            continue
        mine = step["dice"]["die"][0] + traits["excursionist"] - wounded["excursionist"]
        theirs = step["dice"]["foe_die"][0] + traits["creature"] - wounded["creature"]
        extent = mine - theirs
        assert step["outcome"] == ("win" if extent > 0 else "lose" if extent < 0 else "tie")
        fresh = (
            step["dice"]["die"][0] + traits["excursionist"] - step["dice"]["foe_die"][0] - traits["creature"]
        )
        changed += (fresh > 0) != (extent > 0) or (fresh < 0) != (extent < 0)
        before = dict(wounded)
        for effect in step["effects"]:
            if effect["item"] == "wounded":
                wounded[effect.get("character", "excursionist")] = effect["to"]
        if extent > 0:
            assert wounded["creature"] - before["creature"] == extent
        elif extent < 0:
            part = -extent if style != "pulp_adventure" else -extent // (2 if villain else 5)
            assert wounded["excursionist"] - before["excursionist"] == part
        else:
            assert wounded == before
    return changed


def test_played_scenes_agree_with_the_exact_odds_and_carry_their_wounds() -> None:
    params, parties = MULK
    odds = RULESET.scene_odds("combat", params=params, parties=parties)
    rng = random.Random(2024)
    n = 2000
    played = [RULESET.play_scene("combat", rng, params=params, parties=parties) for _ in range(n)]
    p = float(odds.probability("creature_out"))
    share = sum(1 for s in played if s.ending == "creature_out") / n
    assert abs(share - p) < 5 * sqrt(p * (1 - p) / n)
    lengths = [s.rounds for s in played]
    mean = sum(lengths) / n
    sd = sqrt(sum((x - mean) ** 2 for x in lengths) / (n - 1))
    assert abs(mean - float(odds.mean_rounds or 0)) < 5 * sd / sqrt(n)
    assert {s.ending for s in played} == {"creature_out", "excursionist_out"}
    # Every round of every played fight follows the contest rule with the earlier Wounded subtracted,
    # and in some rounds those wounds turned the result.
    assert sum(_replay(s.trace, parties, params["style"]) for s in played) > 0


def test_a_played_pulp_scene_wounds_by_one_fifth_and_spends_its_nodule() -> None:
    params, parties = GOON
    for seed in range(40):
        played = RULESET.play_scene("combat", random.Random(seed), params=params, parties=parties)
        _replay(played.trace, parties, params["style"])
        strikes = [s for s in played.trace if s.get("action") == "nodule_strike" and "refused" not in s]
        assert len(strikes) == 1 and strikes[0]["round"] == 1 and strikes[0]["choice"]["taken"]
        assert played.state["characters"]["excursionist"]["items"]["nodules"] == 0


def test_wounded_from_an_early_round_is_subtracted_from_later_rolls() -> None:
    """Forced dice through the Python API: the Mulk's blow, then Walter's shot, then the Mulk again."""
    c = engine.new_campaign(
        "fight",
        RULESET,
        store=MemoryStore(),
        params={"style": "weird_tale"},
        characters={"walter": {"combat_traits": 3}, "mulk": {"combat_traits": 4}},
    )
    foe = {"foe": "mulk"}
    first = c.act("exchange", "walter", others=foe, forced={"die": 6, "foe_die": 8}).result
    assert first is not None and first.outcome.name == "lose" and first.values["extent"] == -3
    c.begin("combat_round")
    second = c.act("exchange", "walter", others=foe, forced={"die": 10, "foe_die": 3}).result
    assert second is not None and second.values["result"] == 10  # 10 + 3 - Wounded 3
    assert second.outcome.name == "win" and second.values["extent"] == 3
    c.begin("combat_round")
    third = c.act("exchange", "walter", others=foe, forced={"die": 5, "foe_die": 6}).result
    assert third is not None and third.values["result"] == 5 and third.values["foe_result"] == 7  # 6 + 4 - 3
    assert third.outcome.name == "lose"
    shown = c.show()["characters"]
    assert shown["walter"]["items"]["wounded"] == 5 and shown["mulk"]["items"]["wounded"] == 3
    assert shown["walter"]["items"]["out"] is False


def test_the_command_line_prints_the_exact_odds() -> None:
    out, err = io.StringIO(), io.StringIO()
    argv = ["scene", "prob", "chthonian", "combat", "-p", "style=weird_tale"]
    argv += [
        "--party",
        "excursionist:combat_traits=3,out_at=4",
        "--party",
        "creature:combat_traits=4,out_at=4",
    ]
    assert run(argv, out, err) == 0, err.getvalue()
    win, _ = by_hand(*MULK, "always")
    assert win == Fraction(13810940220910377367, 35636710257642827025)  # 38.75%
    assert f"creature_out      {win.numerator}/{win.denominator}" in out.getvalue()
    assert f"excursionist_out  {(1 - win).numerator}/{(1 - win).denominator}" in out.getvalue()
