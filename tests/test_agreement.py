"""One semantics: what the sampler rolls agrees with what the exact evaluator computes.

Each shipped check is sampled with a fixed seed and a chi-square goodness-of-fit test must
not reject the exact distribution at significance 1e-6; hypothesis then writes small random
rulesets (random bands over random dice) and checks the exact answer against a brute force
written here, and the sampler against the exact answer.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction

import pytest
from _stats import chi_square_p
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.syntax.positions import SourceFile

ALPHA = 1e-6
CASES = [
    ("chill", "specific", {"target": 55}),
    ("chill", "specific", {"target": 105, "tokens": 1}),
    ("chimera", "single", {}),
    ("chimera", "single", {"advantage": 1}),
    ("chimera", "pool", {"dice": 3}),
    ("chimera", "pool", {"dice": 6, "disadvantage": 1}),
    ("chimera", "save", {"bonus": 2}),
    ("castle", "task", {"skill": "advantaged"}),
    ("castle", "task", {"skill": "disadvantaged"}),
    ("castle", "wound", {"weapon": "crossbow"}),
    ("castle", "ranged", {"range": "long"}),
    ("chthonian", "standard", {"traits": 2, "difficulty": 9}),
]


@pytest.mark.parametrize("ruleset,check,inputs", CASES, ids=[f"{r}.{c}-{i}" for r, c, i in CASES])
def test_samples_agree_with_exact(ruleset: str, check: str, inputs: dict[str, object]) -> None:
    rs = engine.load(ruleset)
    exact = {s.name: p for s, p in rs.distribution(check, **inputs).table()}
    rng = random.Random(20261129)
    observed = Counter(rs.roll(check, rng, **inputs).outcome.name for _ in range(6000))
    p = chi_square_p(observed, exact)
    assert p > ALPHA, f"{observed} does not fit {exact} (p = {p:.2e})"


def test_the_test_can_fail() -> None:
    """A biased sampler (a d10 that never shows 0) is rejected against the fair exact answer."""
    rs = engine.load("chimera")
    exact = {s.name: p for s, p in rs.distribution("single").table()}
    rng = random.Random(1)
    observed = Counter(
        rs.roll("single", forced={"die": rng.randrange(1, 10)}).outcome.name for _ in range(6000)
    )
    assert chi_square_p(observed, exact) <= ALPHA


@st.composite
def banded_ruleset(draw: st.DrawFn) -> tuple[str, list[list[int]], list[int], int]:
    """A ruleset text: 1-2 dice with random faces, total = their sum, ascending bands."""
    dice = draw(st.lists(st.lists(st.integers(-3, 9), min_size=1, max_size=6), min_size=1, max_size=2))
    lo = sum(min(f) for f in dice)
    hi = sum(max(f) for f in dice)
    cuts = sorted(set(draw(st.lists(st.integers(lo, hi + 1), min_size=1, max_size=4))))
    mode = draw(st.sampled_from(["rules", "table"]))
    names = [f"band{i}" for i in range(len(cuts) + 1)]
    roll = "\n".join(f"      d{i}: {{die: {faces}}}" for i, faces in enumerate(dice))
    total = " + ".join(f"d{i}" for i in range(len(dice)))
    if mode == "rules":
        rows = "".join(f"      - when: total < {c}\n        then: {names[i]}\n" for i, c in enumerate(cuts))
        outcome = f"    outcome:\n{rows}      - else: {names[-1]}\n"
        tables = ""
    else:
        bounds = [lo - 1] + cuts
        keys = "".join(
            f"      {bounds[i]}..{bounds[i + 1] - 1}: {names[i]}\n"
            for i in range(len(cuts))
            if bounds[i] <= bounds[i + 1] - 1
        )
        tables = f"tables:\n  band:\n    params: {{t: int}}\n    returns: scale\n    cases:\n{keys}      else: {names[-1]}\n"
        outcome = "    outcome: band(total)\n"
    text = (
        f"rulecraft: 1\nname: random\nscales:\n  scale: [{', '.join(names)}]\n{tables}"
        f"checks:\n  c:\n    roll:\n{roll}\n    let:\n      total: {total}\n    outcomes: scale\n{outcome}"
    )
    return text, dice, cuts, draw(st.integers(0, 2**32))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(banded_ruleset())
def test_random_rulesets_exact_and_sampled(case: tuple[str, list[list[int]], list[int], int]) -> None:
    text, dice, cuts, seed = case
    rs = engine.load_source(SourceFile("random.yaml", text))
    counts: Counter[str] = Counter()
    for faces in itertools.product(*dice):
        total = sum(faces)
        band = next((i for i, c in enumerate(cuts) if total < c), len(cuts))
        counts[f"band{band}"] += 1
    n = sum(counts.values())
    brute = {k: Fraction(v, n) for k, v in counts.items()}
    d = rs.distribution("c")
    exact = {s.name: p for s, p in d.table() if p}
    assert exact == brute
    assert sum(p for _, p in d.table()) == 1
    rng = random.Random(seed)
    observed = Counter(rs.roll("c", rng).outcome.name for _ in range(1500))
    assert chi_square_p(observed, {s.name: p for s, p in d.table()}) > ALPHA
