"""The Castle's duel (the scene `duel` of `rulesets/castle.yaml`), against the text worked by hand.

Each round both duellists draw from a full resolution bag (15 Poor, 20 Average, 10 Good: five sets
of 3/4/2) at their level — Average one bead, Advantaged two keeping the better, Disadvantaged two
keeping the worse, one level worse when seriously wounded. The better bead hits, equal beads are a
stand-off. The hit draws from the wounds bag (25 Light, 10 Serious, 5 Deadly) by the attacker's
weapon: knife and fist two keeping the lighter, sword and axe one, zweihander two keeping the worse.
The wound goes on the track: two lights make a serious, two serious a deadly (three of each with
Toughness), deadly plus serious or two deadly is dead. A significantly shorter weapon (a knife
against a sword) must win once to close before it can wound; the longer weapon's win pushes it
back. The duel ends when one side is dead.

The hand computation below is plain Python with Fractions, written from the text and not from the
engine's scene code: bead draws by hypergeometric counts, and the duel solved exactly by recursion
over (your track, foe's track, closed), the stand-offs summed as a geometric series (a stand-off
leaves the state as it was; every other round moves it forward, so the recursion is finite). The
hand cases have no armour, Brawn or fencing moves; those are pinned by the ruleset's state examples.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import pytest
from _castle import RESOLUTION, UNHURT, WOUNDS, Track, draw, seriously, worse, wounded
from _repo import REPO_ROOT

import engine

DAMAGE = {"knife": "disadvantaged", "fist": "disadvantaged", "sword": "average", "axe": "average"}
DAMAGE.update({"zweihander": "advantaged"})
REACH = {"knife": 0, "fist": 0, "sword": 1, "axe": 1, "zweihander": 2}


class Side:
    def __init__(self, level: str = "average", tough: bool = False, weapon: str = "sword") -> None:
        self.level, self.tough, self.weapon = level, tough, weapon

    def params(self) -> dict[str, Any]:
        return {"fighting": self.level, "toughness": self.tough, "wielding": self.weapon}


def exchange(you: str, foe: str) -> tuple[Fraction, Fraction, Fraction]:
    """P(you win), P(foe wins), P(stand-off) of one exchange at these levels."""
    mine, theirs = draw(RESOLUTION, you), draw(RESOLUTION, foe)
    win = sum((mine[i] * theirs[j] for i in range(3) for j in range(3) if i > j), Fraction(0))
    lose = sum((mine[i] * theirs[j] for i in range(3) for j in range(3) if i < j), Fraction(0))
    return win, lose, 1 - win - lose


class Duel:
    """The duel solved by hand: P(you win) and the expected number of rounds from each state, and
    the chance that it ends in each round."""

    def __init__(self, you: Side, foe: Side) -> None:
        self.you, self.foe = you, foe
        self.you_short = REACH[you.weapon] < REACH[foe.weapon]
        self.foe_short = REACH[foe.weapon] < REACH[you.weapon]
        self.solved: dict[tuple[Track, Track, bool, bool], tuple[Fraction, Fraction]] = {}

    def moves(self, state: tuple[Track, Track, bool, bool]) -> tuple[Fraction, list[tuple[Fraction, Any]]]:
        """P(stand-off), and the other outcomes of a round as (probability, next state or ending)."""
        mine, theirs, you_closed, foe_closed = state
        you_level = worse(self.you.level) if seriously(mine) else self.you.level
        foe_level = worse(self.foe.level) if seriously(theirs) else self.foe.level
        win, lose, tie = exchange(you_level, foe_level)
        out: list[tuple[Fraction, Any]] = []
        if self.you_short and not you_closed:
            out.append((win, (mine, theirs, True, foe_closed)))
        else:
            for level, p in enumerate(draw(WOUNDS, DAMAGE[self.you.weapon])):
                hurt = wounded(theirs, level, self.foe.tough)
                out.append((win * p, "you_win" if hurt[3] else (mine, hurt, you_closed, False)))
        if self.foe_short and not foe_closed:
            out.append((lose, (mine, theirs, you_closed, True)))
        else:
            for level, p in enumerate(draw(WOUNDS, DAMAGE[self.foe.weapon])):
                hurt = wounded(mine, level, self.you.tough)
                out.append((lose * p, "you_lose" if hurt[3] else (hurt, theirs, False, foe_closed)))
        return tie, out

    def solve(self, state: tuple[Track, Track, bool, bool]) -> tuple[Fraction, Fraction]:
        """(P(you win), expected rounds) from `state`: V = (Σ p·V(next)) / (1 − P(stand-off)),
        the geometric series of the stand-offs, which leave the state as it was."""
        if state in self.solved:
            return self.solved[state]
        tie, out = self.moves(state)
        win = rounds = Fraction(0)
        for p, nxt in out:
            if isinstance(nxt, str):
                win += p if nxt == "you_win" else 0
            else:
                w, r = self.solve(nxt)
                win, rounds = win + p * w, rounds + p * r
        self.solved[state] = (win / (1 - tie), (1 + rounds) / (1 - tie))
        return self.solved[state]

    def start(self) -> tuple[Track, Track, bool, bool]:
        return (UNHURT, UNHURT, False, False)

    def ends_in_round(self, horizon: int) -> dict[int, Fraction]:
        """P(the duel ends in round r), r = 1..horizon, pushing the chance forward round by round."""
        mass = {self.start(): Fraction(1)}
        ended: dict[int, Fraction] = {}
        for r in range(1, horizon + 1):
            nxt: dict[Any, Fraction] = {}
            ended[r] = Fraction(0)
            for state, m in mass.items():
                tie, out = self.moves(state)
                nxt[state] = nxt.get(state, Fraction(0)) + m * tie
                for p, after in out:
                    if isinstance(after, str):
                        ended[r] += m * p
                    else:
                        nxt[after] = nxt.get(after, Fraction(0)) + m * p
            mass = nxt
        return ended


CASES = {
    "average vs average": (Side(), Side()),
    "toughness on your side": (Side(tough=True), Side()),
    "your knife against a sword": (Side(weapon="knife"), Side()),
}


@pytest.fixture(scope="module")
def castle() -> engine.Ruleset:
    return engine.load("castle")


@pytest.fixture(scope="module")
def odds(castle: engine.Ruleset) -> dict[str, Any]:
    return {
        name: castle.scene_odds("duel", parties={"you": you.params(), "foe": foe.params()})
        for name, (you, foe) in CASES.items()
    }


@pytest.mark.parametrize("case", list(CASES))
def test_the_duel_is_solved_exactly_as_by_hand(odds: Mapping[str, Any], case: str) -> None:
    duel = Duel(*CASES[case])
    win, rounds = duel.solve(duel.start())
    found = odds[case]
    assert found.endings.fractions() == {"you_win": win, "you_lose": 1 - win}
    assert found.mean_rounds == rounds
    by_hand = duel.ends_in_round(12)
    assert {r: found.rounds[r] for r in by_hand} == by_hand


def test_the_exact_numbers() -> None:
    """Pinned: the hand values, P(you win) and the expected length in rounds (also in the report)."""
    expected = {
        "average vs average": ("1/2", "7686325343815885536537871989/928010076499009254801276928"),
        "toughness on your side": (
            "37526959350190751668676264572314088929210017/60101880122309519527154802503657112337383424",
            "2135966864775073604574979305158044120692170463555/"
            "224826108067529335171204327465555342976067043328",
        ),
        "your knife against a sword": (
            "257767308438770438069937326600472125341/1782978458015646151003496263844586586112",
            "2647704598738579158711115709786592717982797/256526025647001089975628024960639895076864",
        ),
    }
    for case, (win, rounds) in expected.items():
        duel = Duel(*CASES[case])
        assert duel.solve(duel.start()) == (Fraction(win), Fraction(rounds)), case
    # about 0.6244 with Toughness (9.50 rounds on average), 0.1446 with a knife (10.32), 8.28 even
    # one exchange of Average against Average: 26/81 each way, 29/81 a stand-off
    assert exchange("average", "average") == (Fraction(26, 81), Fraction(26, 81), Fraction(29, 81))
    # the task check's own examples: the bag of 45 at Advantaged and at Disadvantaged
    assert draw(RESOLUTION, "advantaged") == (Fraction(7, 66), Fraction(49, 99), Fraction(79, 198))
    assert draw(RESOLUTION, "disadvantaged") == (Fraction(37, 66), Fraction(13, 33), Fraction(1, 22))


def simulate(you: Side, foe: Side, duels: int, rng: random.Random) -> int:
    """Duels won by `you` in a plain simulation: beads drawn one by one from the bags."""
    beads = [0] * 15 + [1] * 20 + [2] * 10
    chits = [0] * 25 + [1] * 10 + [2] * 5
    rand = rng.random

    def pick(bag: list[int], level: str) -> int:
        n = len(bag)
        if level == "average":
            return bag[int(rand() * n)]
        i = int(rand() * n)
        j = int(rand() * (n - 1))
        j += j >= i
        return max(bag[i], bag[j]) if level == "advantaged" else min(bag[i], bag[j])

    you_short = REACH[you.weapon] < REACH[foe.weapon]
    foe_short = REACH[foe.weapon] < REACH[you.weapon]
    won = 0
    for _ in range(duels):
        mine, theirs, you_closed, foe_closed = UNHURT, UNHURT, False, False
        while True:
            a = pick(beads, worse(you.level) if seriously(mine) else you.level)
            b = pick(beads, worse(foe.level) if seriously(theirs) else foe.level)
            if a > b:
                if you_short and not you_closed:
                    you_closed = True
                    continue
                theirs = wounded(theirs, pick(chits, DAMAGE[you.weapon]), foe.tough)
                foe_closed = False
                if theirs[3]:
                    won += 1
                    break
            elif b > a:
                if foe_short and not foe_closed:
                    foe_closed = True
                    continue
                mine = wounded(mine, pick(chits, DAMAGE[foe.weapon]), you.tough)
                you_closed = False
                if mine[3]:
                    break
    return won


def within(won: int, duels: int, p: Fraction, sigmas: float = 5) -> bool:
    se = math.sqrt(float(p) * (1 - float(p)) / duels)
    return abs(won / duels - float(p)) <= sigmas * se


@pytest.mark.parametrize("case", list(CASES))
def test_a_plain_simulation_agrees_with_the_exact_value(odds: Mapping[str, Any], case: str) -> None:
    """200,000 duels played by the plain simulator above (not the engine) land within 5 standard
    errors of the engine's exact P(you win), in each setting."""
    you, foe = CASES[case]
    p = odds[case].probability("you_win")
    duels = 200_000
    won = simulate(you, foe, duels, random.Random(20261130))
    assert within(won, duels, p), (won / duels, float(p))


@pytest.mark.parametrize("case", list(CASES))
def test_the_engine_plays_duels_as_often_won_as_the_exact_value(case: str) -> None:
    """Duels played by the engine's own sampler (`sample_scenes`, seeded) within 5 standard errors
    of the exact chance: 200,000 of the plain duel (about 110 s on the machine of 2026-12-01, the
    suite's longest test: a sampled duel takes about 0.55 ms there; 5 standard errors are
    ±0.0056), 10,000 of each other setting (±0.025). The duels are one request, so they are
    played under a budget that fits them all (the default fits about a thousand)."""
    you, foe = CASES[case]
    duel = Duel(you, foe)
    p = duel.solve(duel.start())[0]
    duels = 200_000 if case == "average vs average" else 10_000
    roomy = engine.load("castle", limits=engine.Limits(max_work=2_000_000_000))
    sampled = roomy.sample_scenes(
        "duel", duels, random.Random(7), parties={"you": you.params(), "foe": foe.params()}
    )
    assert sum(sampled.endings.values()) == duels and set(sampled.endings) == {"you_win", "you_lose"}
    assert within(sampled.endings["you_win"], duels, p), (sampled.share("you_win"), float(p))


def test_a_played_duel_follows_the_round(castle: engine.Ruleset) -> None:
    """The trace of a played duel: an exchange opens every round, a strike follows only a won
    exchange, and the duel ends on a death."""
    played = castle.play_scene("duel", random.Random(3), parties={"you": {}, "foe": {}})
    assert played.ending in {"you_win", "you_lose"}
    loser = "foe" if played.ending == "you_win" else "you"
    assert played.state["characters"][loser]["items"]["wound_track"] == {"dead": 1}
    rounds: dict[int, list[dict[str, Any]]] = {}
    for entry in played.trace:
        rounds.setdefault(entry["round"], []).append(entry)
    assert sorted(rounds) == list(range(1, played.rounds + 1))
    for steps in rounds.values():
        assert steps[0]["action"] == "duel_exchange"
        outcome = steps[0]["outcome"]
        struck = [s["by"] for s in steps if s["action"] == "strike"]
        assert struck == {"you_hit": ["you"], "foe_hits": ["foe"], "stand_off": []}[outcome]


def test_your_main_gauche_is_a_choice_that_optimal_play_times(castle: engine.Ruleset) -> None:
    """Your Main Gauche redraw is `may: {use: true}` in the scene (the foe's spends it by the fixed
    rule, its first lost exchange). `never` is the duel without Main Gauche at all; `always` is that
    fixed rule on your side too; `optimal` times the one redraw for P(you win), and beats both."""
    parties = {"you": {"fencing": 1, "main_gauche": True}, "foe": {}}
    won = {
        policy: castle.scene_odds("duel", parties=parties, policy=policy).endings.fractions()["you_win"]
        for policy in ("never", "always", "optimal")
    }
    without = castle.scene_odds("duel", parties={"you": {"fencing": 1}, "foe": {}}, policy="optimal")
    assert won["never"] == without.endings.fractions()["you_win"]
    assert won["never"] < won["always"] < won["optimal"]
    # about 0.8297, 0.8660 and 0.8810; `always` is the value the scene gave before the choice, when
    # it spent your redraw by the fixed rule (engine-computed, pinned against regressions)
    assert won["always"] == Fraction(
        243272977684276902624657265613071027, 280921643537355403505330107044593664
    )
    played = castle.play_scene("duel", random.Random(5), parties=parties, policy="optimal")
    offered = [entry for entry in played.trace if "choice" in entry]
    assert all(entry["by"] == "you" and entry["choice"]["policy"] == "optimal" for entry in offered)
    taken = [entry for entry in offered if entry["choice"]["taken"]]
    assert len(taken) == 1 and "refused" not in taken[0]  # this seed's duel: spent once, in round 3
    declined = [entry for entry in offered if not entry["choice"]["taken"]]
    assert declined and all("keeps the bead" in entry["refused"] for entry in declined)
    # why: the chance of winning either way, with best play after; a tie keeps the redraw
    for entry in offered:
        why = entry["choice"]
        assert why["objective"] == "you_win"
        assert (why["if_taken"] > why["if_declined"]) == why["taken"]
    assert "[taken: P(you_win)" in castle_text(castle, parties)


def castle_text(castle: engine.Ruleset, parties: dict[str, Any]) -> str:
    from engine.tools.render import played_text

    played = castle.play_scene("duel", random.Random(5), parties=parties, policy="optimal")
    return played_text(played, "duel")


def test_your_riposte_is_a_choice_that_optimal_play_times() -> None:
    """Your Riposte is `may: {use: true}` too. It needs Fencing 2 and a fencing weapon ("Fencing can
    ONLY be used with fencing weapons"), which also give two points of virtual armour, so `never`
    is the duel with that armour and no Riposte; `always` (riposte every stand-off while it is
    left) and `optimal` beat it. The armour on one side makes a larger chain than the default
    budget allows."""
    castle = engine.load("castle", limits=engine.Limits(max_work=10**9))
    parties = {"you": {"fencing": 2, "riposte": True}, "foe": {}}
    won = {
        policy: castle.scene_odds("duel", parties=parties, policy=policy).endings.fractions()["you_win"]
        for policy in ("never", "always", "optimal")
    }
    plain = castle.scene_odds("duel", parties={"you": {"fencing": 2}, "foe": {}}, policy="never")
    assert won["never"] == plain.endings.fractions()["you_win"]
    assert won["never"] < won["always"] < won["optimal"]


def test_no_fencing_move_without_a_fencing_weapon(castle: engine.Ruleset) -> None:
    """ "Fencing can ONLY be used with fencing weapons. You can't fence with an Axe!": the Fencing
    Moves are "special Fencing skills", so without a fencing weapon a character has neither the
    virtual armour nor the moves, and every policy plays the plain Average duel (1/2 by hand)."""
    moves = {"fencing": 2, "main_gauche": True, "riposte": True, "botte_di_serge": True}
    parties = {"you": {**moves, "fencing_weapon": False}, "foe": {}}
    duel = Duel(Side(), Side())
    for policy in ("never", "always", "optimal"):
        won = castle.scene_odds("duel", parties=parties, policy=policy).endings.fractions()["you_win"]
        assert won == duel.solve(duel.start())[0] == Fraction(1, 2)


def test_the_default_budget_plays_as_many_duels_as_the_docs_say() -> None:
    """Review I, finding 8: docs/scenes.md said the default `max_work` plays "about a thousand
    duels"; under `--policy optimal` it is about 750 (its first play includes the exact solve its
    policy follows). The ranges it gives now hold for seeds 1 to 3, as it says. (About 900 and 670
    since a step's roll pays its own units as a batch's does, `dicework.roll_units`.)"""
    text = " ".join((REPO_ROOT / "docs" / "scenes.md").read_text(encoding="utf-8").split())
    found = re.search(
        r"about 900 duels under the default policy `always` \(([\d,]+)–([\d,]+) of them.*?"
        r"about 670 under `--policy optimal` \(([\d,]+)–([\d,]+):",
        text,
    )
    assert found, "docs/scenes.md no longer says how many duels the default budget plays"
    low, high = (int(n.replace(",", "")) for n in found.groups()[:2])
    ranges = {"always": (low, high), "optimal": tuple(int(n.replace(",", "")) for n in found.groups()[2:])}
    for policy, (least, most) in ranges.items():
        for seed in (1, 2, 3):
            rs = engine.load(REPO_ROOT / "rulesets" / "castle.yaml")  # fresh: the solve is in the budget
            with pytest.raises(engine.LimitError) as caught:
                rs.sample_scenes("duel", 3000, random.Random(seed), policy=policy)
            played = re.search(r"after ([\d,]+) of the 3,000 plays", caught.value.diagnostics[0].message)
            assert played, caught.value.diagnostics[0].message
            assert least <= int(played.group(1).replace(",", "")) <= most, (policy, seed, played.group(1))


def test_the_documented_200000_duels_fit_the_budget_the_docs_give_them() -> None:
    """docs/scenes.md and README gave the 200,000 seeded duels `--limit max_work=400000000`, which
    had fitted them before each step's roll paid for its dice (2026-12-06); at about 2,220 units a
    duel they need some 444 million, and the command the docs show stopped with RC503 (hunt 13zu,
    2026-12-07). A hundredth of them, from the same seed, fit in a hundredth of the budget the docs
    give: a duel's cost is steady from the first."""
    scenes = (REPO_ROOT / "docs" / "scenes.md").read_text(encoding="utf-8")
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    [given] = re.findall(r"scene roll castle duel --times 200000 --seed 1 --limit max_work=(\d+)", scenes)
    assert f"so that many need `--limit max_work={given}`" in " ".join(readme.split())
    rs = engine.load("castle", limits=engine.Limits(max_work=int(given) // 100))
    sampled = rs.sample_scenes("duel", 2000, random.Random(1))
    assert sum(sampled.endings.values()) == 2000
