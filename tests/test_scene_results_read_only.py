"""What a scene hands out is read-only all the way down, as a check's results are.

Found by hunt 13k: `Odds.endings.weights`, `Odds.rounds`, `Odds.expected`, `Odds.choices`,
`Sampled.endings` and `rounds`, and a played scene's trace and state were plain dicts: after
`odds.endings.weights["you_win"] = 10**6`, `odds.probability("you_win")` answered 500000, where
README says what the API hands out is read-only (each `Dist`'s `weights` too).
"""

from __future__ import annotations

import pickle
import random
from fractions import Fraction

import pytest

import engine


def test_odds_are_read_only() -> None:
    odds = engine.load("castle").scene_odds("duel")
    before = odds.probability("you_win")
    for mapping in (odds.endings.weights, odds.rounds, odds.choices):
        with pytest.raises(TypeError, match="read-only"):
            mapping[next(iter(mapping), "x")] = 10**6  # type: ignore[index]
    assert odds.probability("you_win") == before and 0 < before < 1
    assert sum(odds.rounds.values()) + odds.longer == 1 or odds.mean_rounds is None
    again = pickle.loads(pickle.dumps(odds))
    assert again == odds and isinstance(again.probability("you_win"), Fraction)


def test_sampled_and_played_scenes_are_read_only() -> None:
    castle = engine.load("castle")
    sampled = castle.sample_scenes("duel", 20, random.Random(1))
    with pytest.raises(TypeError, match="read-only"):
        sampled.endings["you_win"] = -5  # type: ignore[index]
    with pytest.raises(TypeError, match="read-only"):
        sampled.rounds[1] = -5  # type: ignore[index]
    played = castle.play_scene("duel", random.Random(1))
    assert played.trace
    with pytest.raises(TypeError, match="read-only"):
        played.trace[0]["x"] = 1
    with pytest.raises(TypeError, match="read-only"):
        played.state["x"] = 1  # type: ignore[index]
    assert played.as_json()["trace"][0] == dict(played.trace[0])
