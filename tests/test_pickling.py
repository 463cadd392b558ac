"""What an embedder hands between processes pickles whole: a roll's `Result`, an exact
`Distribution` (its joint distribution worked out first: the product that makes it lazily holds
compiled code) and every `RulecraftError` (tests/test_bad_input.py). A bot that solves in a
worker pool gets the same answer back as it would in one process."""

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


def test_a_distribution_solved_in_a_worker_process_is_the_same() -> None:
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        there = pool.submit(_solve, "chill", "specific", {"target": 55}).result(timeout=120)
    assert there == _solve("chill", "specific", {"target": 55})
