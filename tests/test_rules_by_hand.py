"""Rules that the sampler and the exact evaluator share, each held to a count made by hand here.

Where both evaluators call one rule, a test that compares them cannot see that rule change: it
agrees with itself. Hunt 13zg changed each of these rules alone, one at a time, and every test
passed: `majority`'s tie (the lowest reading), a draw read through a fold that settles early (the
ways of the chits left, without replacement), `half`, a clamp to a minimum that is not whole, a
scene's ending looked at when a period begins, and the standard error of a sampled scene's share.
Each is derived here without the engine: by brute force over the faces or the chits, or in closed
form, with the derivation beside it.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction
from itertools import combinations, product
from typing import Any

import pytest
from test_scenes import MARKS

import engine
from engine.state.memory import MemoryStore


def _probabilities(d: Any) -> dict[str, Fraction]:
    """A check's outcomes with a chance, by name."""
    return {name: p for name, p in d.table() if p}


def _majority_by_hand(values: tuple[int, ...] | tuple[str, ...], order: list) -> object:
    """The value most dice show; on a tie the lowest in `order` (docs/language.md, `majority`)."""
    counts = Counter(values)
    most = max(counts.values())
    return min((v for v, n in counts.items() if n == most), key=order.index)


@pytest.mark.parametrize(("dice", "faces"), [(2, 2), (3, 4), (4, 3)])
def test_majority_on_a_tie_takes_the_lowest_reading(dice: int, faces: int) -> None:
    rs = engine.load(
        f"rulecraft: 1\nname: m\nchecks:\n  m:\n    roll:\n      p: {{pool: {dice}, die: {faces}}}\n"
        "    outcomes: [low, high]\n    outcome: \"'low' if majority(p) == 1 else 'high'\"\n"
    )
    rolls = list(product(range(1, faces + 1), repeat=dice))
    ones = sum(_majority_by_hand(r, list(range(1, faces + 1))) == 1 for r in rolls)
    expected = {"low": Fraction(ones, len(rolls)), "high": Fraction(len(rolls) - ones, len(rolls))}
    assert _probabilities(rs.distribution("m")) == {k: v for k, v in expected.items() if v}
    # two d2: 1-1, 1-2 and 2-1 read 1 (a tie to the lowest), 2-2 reads 2
    if (dice, faces) == (2, 2):
        assert ones == 3


def test_the_table_of_pool_examples_in_the_language_reference() -> None:
    """docs/language.md, "Examples (`p` a pool that rolled 0, 9, 9, 3)": the values it states."""
    rs = engine.load(
        """rulecraft: 1
name: examples
checks:
  c:
    roll:
      p: {pool: 4, die: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}
      q: {pool: 4, die: 2}
    outputs:
      counts: "[count(p), count(p, 9), count(p, 0..3), count(p, [0, 9])]"
      stats: "[sum(p), highest(p), lowest(p), majority(p)]"
      kept: "[sum(highest(p, 2)), sum(lowest(p, 3)), count(highest(p, 9))]"
      listed: "[sum(highest([5, 2, 5], 2)), count(lowest([5, 2, 5], 7)), lowest([5, 2, 5])]"
      ordered: "[majority(q, [2, 1]), majority(q)]"
      halves: "[half(7), half(8)]"
    outcomes: [x]
    outcome: "'x'"
"""
    )
    values = rs.roll("c", forced={"p": [0, 9, 9, 3], "q": [1, 1, 2, 2]}).values
    assert list(values["counts"]) == [4, 2, 2, 3]
    assert list(values["stats"]) == [21, 9, 0, 9]
    assert list(values["kept"]) == [18, 12, 4]
    assert list(values["listed"]) == [10, 3, 2]
    assert list(values["ordered"]) == [2, 1]
    assert list(values["halves"]) == [Fraction(7, 2), 4]


def test_half_is_exactly_half() -> None:
    """`half(d) > 3` on a d8: 7/2 and 4 (d = 7, 8) are over 3, so 2 faces of 8."""
    rs = engine.load(
        "rulecraft: 1\nname: h\nchecks:\n  c:\n    roll:\n      d: {die: 8}\n"
        "    outputs:\n      h: half(d)\n    outcomes: [low, high]\n"
        "    outcome: \"'high' if half(d) > 3 else 'low'\"\n"
    )
    assert _probabilities(rs.distribution("c")) == {"low": Fraction(3, 4), "high": Fraction(1, 4)}
    for d in range(1, 9):
        assert rs.roll("c", forced={"d": [d]}).values["h"] == Fraction(d, 2)


@pytest.mark.parametrize("count", [1, 3, 5, 7, 9])
def test_a_draw_read_through_majority_by_brute_force_over_the_chits(count: int) -> None:
    """A draw without replacement read through `majority`, whose fold settles before every chit
    is read: every `count`-subset of the nine chits, equally likely, counted by hand."""
    bag = ["black"] * 3 + ["grey"] * 4 + ["white"] * 2
    order = ["black", "grey", "white"]
    rs = engine.load(
        "rulecraft: 1\nname: b\nbags:\n  fate:\n    chits: {black: 3, grey: 4, white: 2}\n"
        f"checks:\n  m:\n    roll:\n      d: {{draw: fate, count: {count}}}\n"
        "    outcomes: fate\n    outcome: majority(d)\n"
    )
    subsets = list(combinations(range(len(bag)), count))
    by_hand = Counter(_majority_by_hand(tuple(bag[i] for i in s), order) for s in subsets)
    expected = {c: Fraction(by_hand[c], len(subsets)) for c in order if by_hand[c]}
    got = {k: v for k, v in _probabilities(rs.distribution("m")).items() if v}
    assert got == expected and sum(got.values()) == 1
    if count == 5:  # the hunt's case: black 1/2, grey 1/2 (a wrong count of the rest gave 11/21, 41/42)
        assert expected == {"black": Fraction(1, 2), "grey": Fraction(1, 2)}


def test_a_clamp_to_a_minimum_that_is_not_whole_stops_at_the_whole_number_above_it() -> None:
    """`hp` 3, minimum 1/2, `add: -5` clamped: the least whole count allowed is 1 (ceil 1/2); the
    floor, 0, is below the minimum and would be refused."""
    rs = engine.load(
        """rulecraft: 1
name: clampmin
checks:
  swing:
    roll: {d: {die: 6}}
    outcomes: [miss, hit]
    outcome: "'hit' if d >= 4 else 'miss'"
state:
  each:
    hp: {counter: 3, min: "1 / 2"}
actions:
  drain:
    by: character
    effects:
      - {add: {hp: -5}, clamp: true}
"""
    )
    campaign = engine.new_campaign("c", rs, store=MemoryStore())
    campaign.join("ann")
    assert campaign.act("drain", "ann").event.state["characters"]["ann"]["items"]["hp"] == 1
    assert campaign.show()["characters"]["ann"]["items"]["hp"] == 1


ENDS_AS_A_BOUT_BEGINS = MARKS.replace(
    "{when: ann.hits >= 3, then: done}", '{when: "ann.hits >= 1 and count(ann.marks) == 0", then: done}'
)
"""test_scenes' bouts, ended only where a bout's beginning has cleared the marks."""


def test_a_scene_that_can_end_only_as_a_period_begins() -> None:
    """Marks are cleared only as a bout begins, so the ending is met there: in round k + 1, where
    k is the first round with a hit (two strikes, each a hit with chance 1/2: a round has one with
    chance 3/4). So the scene ends in round r >= 2 with chance (1/4)^(r-2) * 3/4, and lasts
    1 + 4/3 = 7/3 rounds on average. The sampler looks at the ending there too."""
    rs = engine.load(ENDS_AS_A_BOUT_BEGINS)
    odds = rs.scene_odds("bouts")
    assert dict(odds.endings.fractions()) == {"done": 1}
    assert odds.mean_rounds == Fraction(7, 3)
    for r in range(1, 8):
        assert odds.rounds.get(r, 0) == (0 if r == 1 else Fraction(1, 4) ** (r - 2) * Fraction(3, 4))
    played = rs.sample_scenes("bouts", 4000, random.Random(5))
    assert dict(played.endings) == {"done": 4000}  # had played on to max_rounds, every one
    assert 1 not in played.rounds
    mean = sum(r * n for r, n in played.rounds.items()) / 4000
    assert abs(mean - 7 / 3) < 5 * math.sqrt(Fraction(4, 9)) / math.sqrt(4000)  # sd of 1 + Geom(3/4)


def test_a_sampled_scenes_standard_error_is_that_of_its_share() -> None:
    """√(p(1 − p)/n) of the share p of n scenes: what `scene roll --times` prints as ±."""
    rs = engine.load(
        MARKS.replace(
            "      - {when: ann.hits >= 3, then: done}",
            "      - {when: ann.hits >= 1, then: won}\n      - {when: count(ann.marks) >= 4, then: lost}",
        ).replace("      - {begin: bout}\n", "")
    )
    played = rs.sample_scenes("bouts", 3000, random.Random(2))
    won = played.endings["won"]
    assert 0 < won < 3000  # won in two rounds with chance 1 - (1/2)^4 = 15/16
    p = won / 3000
    assert played.standard_error("won") == pytest.approx(math.sqrt(p * (1 - p) / 3000), rel=1e-12)
    assert played.standard_error("lost") == pytest.approx(math.sqrt(p * (1 - p) / 3000), rel=1e-12)
    assert dict(rs.scene_odds("bouts").endings.fractions()) == {
        "won": Fraction(15, 16),
        "lost": Fraction(1, 16),
    }
