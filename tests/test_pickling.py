"""What an embedder hands between processes pickles: a `Ruleset` (as its source, compiled again
where it lands), a roll's `Result`, an exact `Distribution` (its joint distribution worked out
first: the product that makes it lazily holds compiled code) and every `RulecraftError`
(tests/test_bad_input.py). A bot that solves in a worker pool gets the same answer back as it
would in one process."""

from __future__ import annotations

import multiprocessing
import pickle
import random
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest

import engine

CASES = [
    ("chill", "specific", {"target": 55}),
    ("chimera", "skill", {"dice": 4, "policy": "optimal"}),
    ("castle", "combat", {"main_gauche": True, "riposte": True}),
    ("chthonian", "contest", {}),
]


def _solve(name: str, check: str, inputs: dict[str, Any]) -> Any:
    return engine.load(name).distribution(check, **inputs)


@pytest.mark.parametrize(("name", "check", "inputs"), CASES, ids=[c[0] for c in CASES])
def test_a_distribution_pickles_whole(name: str, check: str, inputs: dict[str, Any]) -> None:
    made = _solve(name, check, inputs)
    back = pickle.loads(pickle.dumps(made))
    assert back == made and back.outcome == made.outcome
    assert {k: v.weights for k, v in back.values.items()} == {k: v.weights for k, v in made.values.items()}


def test_a_result_pickles_whole() -> None:
    made = engine.load("chill").roll("specific", rng=random.Random(3), target=55)
    back = pickle.loads(pickle.dumps(made))
    assert (back.outcome, back.values, back.as_json()) == (made.outcome, made.values, made.as_json())


def test_samples_and_scenes_pickle_whole() -> None:
    """The other answers a worker may hand back: a batch of rolls, a scene's odds, a played
    scene and a sample of scenes."""
    chill, castle = engine.load("chill"), engine.load("castle")
    for made in (
        chill.sample("specific", 1000, random.Random(1), target=55),
        castle.scene_odds("shootout"),
        castle.play_scene("shootout", random.Random(2)),
        castle.sample_scenes("shootout", 50, random.Random(3)),
    ):
        back = pickle.loads(pickle.dumps(made))
        assert type(back) is type(made) and back.as_json() == made.as_json(), type(made).__name__


SCENE_FILE = """
scenes:
  two_rounds:
    parties: [you, foe]
    round:
      - {act: duel_exchange, by: you, others: {foe: foe}}
      - {act: end_exchange, by: you, others: {foe: foe}}
    ends:
      - {when: you.dead, then: you_lose}
    max_rounds: 2
"""


def test_a_ruleset_pickles_as_what_it_was_made_from() -> None:
    """A loaded ruleset comes back compiled from its text; one with a scene file grafted in, from
    its whole document (the scene included); each answers as the original does."""
    plain = engine.load("chill")
    back = pickle.loads(pickle.dumps(plain))
    assert back is not plain and back.name == plain.name and back.limits == plain.limits
    assert back.distribution("specific", target=55) == plain.distribution("specific", target=55)
    grafted = engine.load("castle").with_scenes(SCENE_FILE)
    again = pickle.loads(pickle.dumps(grafted))
    assert "two_rounds" in again.scenes
    assert again.scene_odds("two_rounds").as_json() == grafted.scene_odds("two_rounds").as_json()


def test_a_distribution_solved_in_a_worker_process_is_the_same() -> None:
    """The embedder's pattern: the bound method goes to a worker (the ruleset pickled with it),
    the distribution comes back."""
    ruleset = engine.load("chill", limits=engine.Limits(max_work=3_000_000))
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        there = pool.submit(ruleset.distribution, "specific", target=55).result(timeout=120)
        refused = pool.submit(ruleset.distribution, "specific", target=999).exception(timeout=120)
    assert there == ruleset.distribution("specific", target=55)
    assert isinstance(refused, engine.InputError) and refused.diagnostics[0].code == "RC403"
