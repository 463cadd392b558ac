"""Chimera's contesting check and the help action with a role (rulesets/chimera.yaml: the
`contest` check, the `contest_check`, `help` and `deal_consequence` actions, the `consequences`
counter; notes contest-dice, contest-procedure, contest-npc-nines, contest-outcome,
contest-levels, contest-trait, contest-resolve, help-role).

The contest is checked against a hand enumeration written here from the text alone: the
Variables of Success tables, the majority with the tie order of note majority-tie, and the
9s-and-0s procedure (steps 1-6 of "Die Rolls and Determining Success") run die by die on each
side, the NPC taking every reroll its 9s allow (note contest-npc-nines).
"""

from __future__ import annotations

import io
import json
import random
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement, product
from math import factorial, prod
from pathlib import Path
from typing import Any

import pytest
from _repo import REPO_ROOT
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

import engine
from engine.cli import run
from engine.errors import CampaignError
from engine.state.campaign import Campaign
from engine.state.memory import MemoryStore

PATH = REPO_ROOT / "rulesets" / "chimera.yaml"
CHIMERA = engine.load(PATH)
FAST = settings(max_examples=30, deadline=None)

SUCCESS = ["crit_fail", "fail", "half_pass", "pass", "crit_pass"]  # worst first
TIE_ORDER = ["half_pass", "fail", "pass", "crit_fail", "crit_pass"]  # note majority-tie
OUTCOMES = ["npc_wins", "no_winner", "player_wins"]

# The text's tables, one row per level of the ladder: faces 0, 1-3, 4-5, 6-8, 9.
LADDER = {
    2: ["crit_fail", "pass", "pass", "pass", "crit_pass"],  # Double Advantage
    1: ["crit_fail", "fail", "pass", "pass", "crit_pass"],  # Advantage
    0: ["crit_fail", "fail", "half_pass", "pass", "crit_pass"],  # Variables of Success
    -1: ["crit_fail", "fail", "fail", "pass", "crit_pass"],  # Disadvantage
    -2: ["crit_fail", "fail", "fail", "fail", "crit_pass"],  # Double Disadvantage
}
BAND = [0, 1, 1, 1, 2, 2, 3, 3, 3, 4]  # the column of each face 0..9

Die = tuple[int, bool]  # a face, and whether its 9 or 0 has not acted yet
Dist = dict[str, Fraction]


def reading(level: int, face: int) -> str:
    return LADDER[level][BAND[face]]


def majority(readings: list[str]) -> str:
    counts = Counter(readings)
    most = max(counts.values())
    return next(r for r in TIE_ORDER if counts[r] == most)


def level_of(advantage: int, disadvantage: int) -> int:
    return max(-3, min(3, advantage - disadvantage))


def fresh(face: int) -> Die:
    return (face, face in (0, 9))


def first_rolls(n: int) -> Iterator[tuple[tuple[Die, ...], Fraction]]:
    """Every first roll of n d10 as a multiset, with its probability."""
    for faces in combinations_with_replacement(range(10), n):
        ways = factorial(n) // prod(factorial(c) for c in Counter(faces).values())
        yield tuple(fresh(f) for f in faces), Fraction(ways, 10**n)


def step(dice: tuple[Die, ...], n: int, level: int) -> tuple[str, int, list[Die], list[Die]] | None:
    """The next step of the procedure: (which, grant, eligible dice least valuable first, the
    other dice), the triggering dice marked used; None when it is over."""

    def order(d: Die) -> tuple[int, int, bool]:  # lowest reading, then face, unused triggers first
        return (SUCCESS.index(reading(level, d[0])), d[0], not d[1])

    for which, face, targets in (("nines", 9, range(0, 6)), ("zeros", 0, range(4, 9))):
        if which == "nines" and n < 2:  # "If you rolled multiple die"
            continue
        grant = sum(1 for d in dice if d == (face, True))
        if grant:
            rest = [(f, False) if (f, u) == (face, True) else (f, u) for f, u in dice]
            eligible = sorted((d for d in rest if d[0] in targets), key=order)
            others = list(rest)
            for d in eligible:
                others.remove(d)
            return which, grant, eligible, others
    return None


@cache
def settle(dice: tuple[Die, ...], n: int, level: int, take_nines: bool) -> tuple[tuple[str, Fraction], ...]:
    """The reading of one side once its procedure is over, as (reading, probability) pairs; the
    side's 9s are taken (`always`, and the NPC) or declined (`never`)."""
    nxt = step(dice, n, level)
    if nxt is None:
        return ((majority([reading(level, f) for f, _ in dice]), Fraction(1)),)
    which, grant, eligible, others = nxt
    k = min(grant, len(eligible)) if (which == "zeros" or take_nines) else 0
    kept = others + eligible[k:]
    out: Counter[str] = Counter()
    for new in product(range(10), repeat=k):
        after = tuple(sorted(kept + [fresh(f) for f in new]))
        for r, p in settle(after, n, level, take_nines):
            out[r] += p / 10**k
    return tuple(out.items())


def side(n: int, level: int, take_nines: bool = True) -> Dist:
    """One side of the contest: n dice at this level of the ladder."""
    if level >= 3:
        return {"pass": Fraction(1)}  # Auto-pass: no die, never critical
    if level <= -3:
        return {"fail": Fraction(1)}
    out: Counter[str] = Counter()
    for dice, p in first_rolls(n):
        for r, q in settle(tuple(sorted(dice)), n, level, take_nines):
            out[r] += p * q
    return dict(out)


def judge(player: str, npc: str) -> str:
    a, b = SUCCESS.index(player), SUCCESS.index(npc)
    return "player_wins" if a > b else "no_winner" if a == b else "npc_wins"


def lift(r: str, trait: bool, level: int) -> str:
    """Note contest-trait: a trait lifts a rolled reading below a pass to a pass."""
    return "pass" if trait and -3 < level < 3 and SUCCESS.index(r) < SUCCESS.index("pass") else r


def by_hand(
    npc_dice: int = 1,
    resolve: int = 0,
    advantage: int = 0,
    disadvantage: int = 0,
    npc_advantage: int = 0,
    npc_disadvantage: int = 0,
    trait: bool = False,
    policy: str = "always",
) -> Dist:
    """The contest's outcomes by enumeration, independent of the engine."""
    level, npc_level = level_of(advantage, disadvantage), level_of(npc_advantage, npc_disadvantage)
    npc = side(npc_dice, npc_level)
    out: Counter[str] = Counter()
    if policy == "optimal":
        for r, p in npc.items():
            for outcome, q in optimal_player(npc_dice + resolve, level, r, trait).items():
                out[outcome] += p * q
    else:
        player = side(npc_dice + resolve, level, take_nines=policy == "always")
        for (r, p), (s, q) in product(npc.items(), player.items()):
            out[judge(lift(s, trait, level), r)] += p * q
    return {o: out[o] for o in OUTCOMES}


def optimal_player(n: int, level: int, npc: str, trait: bool) -> Dist:
    """The player's outcomes knowing the NPC's outcome, each 9's reroll taken on any eligible dice
    (up to the grant) that give the best chance to win, then of at least no winner."""
    if not -3 < level < 3:
        return {judge("pass" if level >= 3 else "fail", npc): Fraction(1)}

    def score(d: Dist) -> tuple[Fraction, Fraction]:
        return (d["player_wins"], d["player_wins"] + d["no_winner"])

    @cache
    def value(dice: tuple[Die, ...]) -> tuple[tuple[str, Fraction], ...]:
        nxt = step(dice, n, level)
        if nxt is None:
            final = majority([reading(level, f) for f, _ in dice])
            return ((judge(lift(final, trait, level), npc), Fraction(1)),)
        which, grant, eligible, others = nxt
        choices = [eligible[: min(grant, len(eligible))]] if which == "zeros" else subsets(eligible, grant)
        best: Dist | None = None
        for chosen in choices:
            kept = others + _minus(eligible, chosen)
            d: Counter[str] = Counter({o: Fraction(0) for o in OUTCOMES})
            for new in product(range(10), repeat=len(chosen)):
                for o, p in value(tuple(sorted(kept + [fresh(f) for f in new]))):
                    d[o] += p / 10 ** len(chosen)
            if best is None or score(d) > score(best):
                best = dict(d)
        assert best is not None
        return tuple(best.items())

    out: Counter[str] = Counter({o: Fraction(0) for o in OUTCOMES})
    for dice, p in first_rolls(n):
        for o, q in value(tuple(sorted(dice))):
            out[o] += p * q
    return dict(out)


def subsets(eligible: list[Die], grant: int) -> list[list[Die]]:
    """Every choice of at most `grant` eligible dice, by face, unused triggers first within a face."""
    faces = sorted({f for f, _ in eligible})
    found: list[list[Die]] = [[]]
    for f in faces:
        alike = sorted((d for d in eligible if d[0] == f), key=lambda d: not d[1])
        found = [c + alike[:j] for c in found for j in range(len(alike) + 1) if len(c) + j <= grant]
    return found


def _minus(dice: list[Die], taken: list[Die]) -> list[Die]:
    left = list(dice)
    for d in taken:
        left.remove(d)
    return left


def engine_dist(policy: str = "always", **inputs: Any) -> Dist:
    d = CHIMERA.distribution("contest", policy=policy, **inputs)
    return {o: d.probability(o) for o in OUTCOMES}


def run_by_hand(faces: list[int], n: int, level: int, take_nines: bool = True) -> tuple[str, list[int]]:
    """One side with real dice: the first n faces are the roll, the rest the rerolls in order.
    Returns its reading and the faces it ends on."""
    if not -3 < level < 3:
        assert not faces
        return ("pass" if level >= 3 else "fail"), []
    queue = list(faces)
    dice = [fresh(queue.pop(0)) for _ in range(n)]
    while (nxt := step(tuple(dice), n, level)) is not None:
        which, grant, eligible, others = nxt
        k = min(grant, len(eligible)) if (which == "zeros" or take_nines) else 0
        dice = others + eligible[k:] + [fresh(queue.pop(0)) for _ in range(k)]
    assert not queue, "faces left over"
    return majority([reading(level, f) for f, _ in dice]), sorted(f for f, _ in dice)


# -- every outcome by forced dice -------------------------------------------------------------


FORCED = [
    # (inputs, the NPC's dice, the player's dice (rerolls after the first roll), policy, outcome)
    ({"npc_dice": 2}, [6, 7], [9, 9], "always", "player_wins"),
    ({"npc_dice": 2}, [6, 7], [8, 6], "always", "no_winner"),
    ({"npc_dice": 2}, [6, 7], [1, 2], "always", "npc_wins"),
    ({}, [4], [5], "always", "no_winner"),
    ({}, [3], [0], "always", "npc_wins"),
    ({}, [8], [9], "always", "player_wins"),
    ({"npc_dice": 2}, [0, 0], [0, 0], "always", "no_winner"),
    ({"npc_dice": 2}, [9, 2, 8], [6, 6], "always", "no_winner"),
    ({"npc_dice": 3}, [0, 6, 1, 1], [4, 5, 7], "always", "player_wins"),
    ({"npc_dice": 2}, [4, 5], [9, 3, 7], "always", "player_wins"),
    ({"npc_dice": 2}, [4, 5], [9, 3], "never", "npc_wins"),
    ({"npc_dice": 1, "resolve": 2}, [7], [9, 9, 1, 9], "always", "player_wins"),
    ({"npc_dice": 2, "advantage": 1}, [4, 5], [4, 5], "always", "player_wins"),
    ({"npc_dice": 2, "npc_advantage": 1}, [4, 5], [4, 5], "always", "npc_wins"),
    ({"npc_dice": 2, "advantage": 3}, [9, 9], [], "always", "npc_wins"),
    ({"npc_dice": 2, "advantage": 3}, [6, 6], [], "always", "no_winner"),
    ({"npc_dice": 2, "advantage": 3}, [4, 5], [], "always", "player_wins"),
    ({"npc_dice": 2, "npc_disadvantage": 3}, [], [1, 2], "always", "no_winner"),
    ({"npc_dice": 2, "disadvantage": 2}, [4, 5], [6, 7], "always", "npc_wins"),
    ({"npc_dice": 2, "trait": True}, [4, 4], [1, 2], "always", "player_wins"),
    ({"npc_dice": 2, "trait": True}, [6, 8], [1, 2], "always", "no_winner"),
    ({"npc_dice": 2, "trait": True}, [9, 9], [1, 2], "always", "npc_wins"),
]


@pytest.mark.parametrize(("inputs", "npc", "player", "policy", "want"), FORCED)
def test_every_outcome_by_forced_dice(
    inputs: dict[str, Any], npc: list[int], player: list[int], policy: str, want: str
) -> None:
    r = CHIMERA.roll("contest", forced={"npc_rolled": npc, "rolled": player}, policy=policy, **inputs)
    assert r.outcome.name == want
    # The hand-run procedure on the same dice gives the same readings and the same outcome.
    n = inputs.get("npc_dice", 1)
    level = level_of(inputs.get("advantage", 0), inputs.get("disadvantage", 0))
    npc_level = level_of(inputs.get("npc_advantage", 0), inputs.get("npc_disadvantage", 0))
    theirs, _ = run_by_hand(npc, n, npc_level)
    mine, _ = run_by_hand(player, n + inputs.get("resolve", 0), level, take_nines=policy == "always")
    assert judge(lift(mine, inputs.get("trait", False), level), theirs) == want
    assert r.values["npc_result"] == theirs and r.values["read"] == mine


def test_the_forced_cases_reach_every_outcome() -> None:
    assert {want for *_, want in FORCED} == set(OUTCOMES)


def test_meeting_the_npc_is_no_winner_at_every_outcome() -> None:
    """Note contest-outcome: the same outcome on both sides is no winner, whichever it is."""
    same = {"crit_fail": [0], "fail": [2], "half_pass": [5], "pass": [7], "crit_pass": [9]}
    for faces in same.values():
        assert (
            CHIMERA.roll("contest", forced={"npc_rolled": faces, "rolled": faces}).outcome.name == "no_winner"
        )


# -- exact distributions against the hand enumeration -----------------------------------------


CASES = [
    {},
    {"npc_dice": 2},
    {"npc_dice": 3},
    {"npc_dice": 2, "resolve": 1},
    {"npc_dice": 1, "resolve": 2},
    {"npc_dice": 2, "advantage": 1},
    {"npc_dice": 2, "npc_advantage": 2, "disadvantage": 1},
    {"npc_dice": 2, "trait": True},
    {"npc_dice": 2, "advantage": 3},
    {"npc_dice": 2, "npc_disadvantage": 4},
]


@pytest.mark.parametrize("inputs", CASES, ids=[json.dumps(c) for c in CASES])
@pytest.mark.parametrize("policy", ["always", "never"])
def test_the_contest_distribution_equals_the_hand_enumeration(inputs: dict[str, Any], policy: str) -> None:
    want = by_hand(policy=policy, **inputs)
    assert sum(want.values()) == 1
    assert engine_dist(policy, **inputs) == want


@pytest.mark.parametrize("inputs", [{"npc_dice": 2}, {"npc_dice": 2, "resolve": 1}, {"npc_dice": 3}])
def test_optimal_play_knows_the_npc_outcome(inputs: dict[str, Any]) -> None:
    """`optimal` decides the player's 9s knowing the NPC's outcome (note contest-npc-nines)."""
    want = by_hand(policy="optimal", **inputs)
    assert engine_dist("optimal", **inputs) == want
    always = by_hand(**inputs)
    assert want["player_wins"] >= always["player_wins"]


def test_one_die_each_by_arithmetic() -> None:
    """A single die each is a plain reading (no 9 reroll on one die, no 4-8 die for a 0 to hit):
    P(tie) = 0.1^2 + 0.3^2 + 0.2^2 + 0.3^2 + 0.1^2 = 6/25, and each side wins half the rest."""
    tie = sum(Fraction(x, 10) ** 2 for x in (1, 3, 2, 3, 1))
    assert tie == Fraction(6, 25)
    assert (
        by_hand()
        == engine_dist()
        == {
            "npc_wins": (1 - tie) / 2,
            "no_winner": tie,
            "player_wins": (1 - tie) / 2,
        }
    )


def _probability_examples() -> list[tuple[str, dict[str, Any], str, dict[str, Any]]]:
    doc = YAML(typ="safe").load(PATH.read_text(encoding="utf-8"))
    return [
        (ex["name"], ex.get("inputs", {}), ex.get("policy", "always"), ex["expect"]["probability"])
        for ex in doc["checks"]["contest"]["examples"]
        if "probability" in ex["expect"]
    ]


def test_the_rulesets_probability_examples_hold_by_hand() -> None:
    """Every probability the ruleset's contest examples state, against the hand enumeration
    (the engine's own run of them is `rulecraft test`)."""
    examples = _probability_examples()
    assert len(examples) >= 3
    exact = 0
    for name, inputs, policy, expected in examples:
        got = by_hand(policy=policy, **inputs)
        for outcome, p in expected.items():
            if isinstance(p, dict):
                assert (
                    Fraction(str(p.get("at_least", 0))) <= got[outcome] <= Fraction(str(p.get("at_most", 1)))
                )
            else:
                assert got[outcome] == Fraction(str(p)), name
                exact += 1
    assert exact >= 6


def test_two_dice_each_exactly() -> None:
    """The example "two dice each": the procedure on both sides, both taking every 9's reroll."""
    assert by_hand(npc_dice=2) == {
        "npc_wins": Fraction(42809, 125000),
        "no_winner": Fraction(19691, 62500),
        "player_wins": Fraction(42809, 125000),
    }


@FAST
@given(
    npc_dice=st.integers(1, 2),
    player=st.tuples(st.integers(0, 3), st.integers(0, 3)),
    npc=st.tuples(st.integers(0, 3), st.integers(0, 3)),
)
def test_swapping_the_sides_swaps_the_winner(
    npc_dice: int, player: tuple[int, int], npc: tuple[int, int]
) -> None:
    """With no resolve dice and no trait the two sides roll alike (the NPC takes its 9s as the
    policy `always` takes the player's), so trading their ladder levels trades their chances."""
    mine = {"advantage": player[0], "disadvantage": player[1]}
    theirs = {"npc_advantage": npc[0], "npc_disadvantage": npc[1]}
    swapped = {"advantage": npc[0], "disadvantage": npc[1], "npc_advantage": player[0]}
    one = engine_dist(npc_dice=npc_dice, **mine, **theirs)
    two = engine_dist(npc_dice=npc_dice, **swapped, npc_disadvantage=player[1])
    assert one["player_wins"] == two["npc_wins"] and one["no_winner"] == two["no_winner"]


@FAST
@given(
    seed=st.integers(0, 2**32),
    npc_dice=st.integers(1, 4),
    resolve=st.integers(0, 3),
    advantage=st.integers(0, 3),
    npc_disadvantage=st.integers(0, 3),
    policy=st.sampled_from(["always", "never"]),
)
def test_every_sampled_contest_agrees_with_the_procedure_run_by_hand(
    seed: int, npc_dice: int, resolve: int, advantage: int, npc_disadvantage: int, policy: str
) -> None:
    inputs = {"npc_dice": npc_dice, "resolve": resolve, "advantage": advantage}
    inputs["npc_disadvantage"] = npc_disadvantage
    r = CHIMERA.roll("contest", random.Random(seed), policy=policy, **inputs)
    theirs, npc_end = run_by_hand(list(r.drawn["npc_rolled"]), npc_dice, level_of(0, npc_disadvantage))
    mine, end = run_by_hand(
        list(r.drawn["rolled"]), npc_dice + resolve, level_of(advantage, 0), take_nines=policy == "always"
    )
    assert (r.values["npc_result"], r.values["read"]) == (theirs, mine)
    # Alike dice (one column of the tables) are interchangeable: which of them is rerolled is no
    # matter, so the dice are compared by column.
    assert sorted(BAND[f] for f in r.rolled["npc_rolled"].faces) == sorted(BAND[f] for f in npc_end)
    assert sorted(BAND[f] for f in r.rolled["rolled"].faces) == sorted(BAND[f] for f in end)
    assert r.outcome.name == judge(mine, theirs)


# -- the help action, with its helper in a role -----------------------------------------------


def table(**characters: dict[str, Any]) -> Campaign:
    return engine.new_campaign("moor", CHIMERA, store=MemoryStore(), characters=characters)


def items(campaign: Campaign, who: str) -> dict[str, Any]:
    found: dict[str, Any] = campaign.show()["characters"][who]["items"]
    return found


def crew() -> Campaign:
    return table(ada={"max_resolve": 3}, bea={"max_resolve": 2}, cal={"max_resolve": 1})


def test_a_helper_gives_advantage() -> None:
    moor = crew()
    acted = moor.act("help", "ada", others={"helper": "bea"}, forced={"rolled": [4, 5]}, dice=2)
    assert acted.result is not None
    assert acted.result.values["level"] == 1 and acted.result.outcome.name == "pass"  # 4, 5 read as passes
    assert items(moor, "bea")["consequences"] == 0


def test_a_critical_failure_lands_on_the_helpers_own_sheet() -> None:
    moor = crew()
    moor.act("help", "ada", others={"helper": "bea"}, forced={"rolled": [0, 0]}, dice=2)
    assert [items(moor, who)["consequences"] for who in ("ada", "bea", "cal")] == [0, 1, 0]
    assert moor.show()["shared"]["helper_consequences"] == 0  # nothing counted at the table
    moor.act("help", "cal", others={"helper": "bea"}, forced={"rolled": [0]}, dice=1)
    moor.act("help", "bea", others={"helper": "ada"}, forced={"rolled": [0, 1]}, dice=2)  # 0, 1: a fail
    assert [items(moor, who)["consequences"] for who in ("ada", "bea", "cal")] == [0, 2, 0]
    moor.act("deal_consequence", "bea", count=2)
    assert items(moor, "bea")["consequences"] == 0
    assert moor.replay() == moor.state()
    helped = [e.data.get("others") for e in moor.log() if e.kind == "action" and e.data.get("others")]
    assert helped == [{"helper": "bea"}, {"helper": "bea"}, {"helper": "ada"}]


def test_a_trait_that_lifts_the_critical_failure_spares_the_helper() -> None:
    moor = crew()
    moor.act("help", "ada", others={"helper": "bea"}, forced={"rolled": [0, 0]}, dice=2, use_trait=True)
    assert items(moor, "bea")["consequences"] == 0 and items(moor, "ada")["traits_left"] == 0


def test_help_refusals_change_nothing() -> None:
    moor = crew()
    before, events = moor.state(), len(moor.log())
    for kw, code in (
        ({"others": {"helper": "ada"}}, "RC907"),  # the roller cannot help themself
        ({"others": {}}, "RC907"),  # the role must be filled
        ({"others": {"helper": "bea"}, "resolve_dice": 4}, "RC905"),  # ada has 3 resolve
    ):
        with pytest.raises(CampaignError) as error:
            moor.act("help", "ada", forced={"rolled": [6, 7, 8, 9, 1]}, dice=1, **kw)
        assert error.value.diagnostics[0].code == code
    with pytest.raises(CampaignError) as error:
        moor.act("deal_consequence", "bea")
    assert error.value.diagnostics[0].code == "RC905"
    assert moor.state() == before and len(moor.log()) == events


@FAST
@given(st.lists(st.tuples(st.sampled_from(["ada", "bea", "cal"]), st.integers(0, 9)), max_size=8))
def test_a_helper_owes_one_consequence_per_helped_critical_failure(rolls: list[tuple[str, int]]) -> None:
    """Whoever rolls one die with a helper, the helper owes exactly the critical failures (a 0)."""
    moor = crew()
    owed: Counter[str] = Counter()
    for roller, face in rolls:
        helper = {"ada": "bea", "bea": "cal", "cal": "ada"}[roller]
        moor.act("help", roller, others={"helper": helper}, forced={"rolled": [face]}, dice=1)
        owed[helper] += face == 0
    assert {who: items(moor, who)["consequences"] for who in ("ada", "bea", "cal")} == {
        who: owed[who] for who in ("ada", "bea", "cal")
    }


def test_a_contest_pays_the_missing_dice_from_resolve() -> None:
    moor = crew()
    moor.act(
        "contest_check", "ada", forced={"npc_rolled": [4, 5, 1], "rolled": [6, 7, 2]}, npc_dice=3, dice=1
    )
    assert items(moor, "ada")["resolve"] == 1  # two dice short of the NPC's three
    with pytest.raises(CampaignError) as error:  # cal has 1 resolve, and lacks 2 dice
        moor.act("contest_check", "cal", forced={"npc_rolled": [4, 5, 1], "rolled": [6, 7, 2]}, npc_dice=3)
    assert error.value.diagnostics[0].code == "RC905"


def cli(db: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(["campaign", "--db", str(db), *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def test_help_from_the_command_line(tmp_path: Path) -> None:
    db = tmp_path / "campaigns.db"
    assert cli(db, "new", "moor", str(PATH), "-c", "ada:max_resolve=3", "-c", "bea:max_resolve=2")[0] == 0
    act = ("act", "moor", "help", "-c", "ada", "-i", "dice=2", "--force", "rolled=0,0")
    code, out, err = cli(db, *act, "--other", "helper=bea")
    assert code == 0, err
    code, _, err = cli(db, *act)
    assert code == 1 and "RC907" in err and "--other helper=NAME" in err
    code, out, _ = cli(db, "show", "moor", "--json")
    assert code == 0
    shown = json.loads(out)["characters"]
    assert shown["bea"]["items"]["consequences"] == 1 and shown["ada"]["items"]["consequences"] == 0
