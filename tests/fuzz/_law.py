"""The law every fuzz case is held to (issue 11, item 6): whatever a stranger writes, loading,
validating (the linter), rolling with a seeded RNG and solving exactly each end in a result or a
`RulecraftError` — never another exception, never a hang — and what comes back obeys the laws
stated elsewhere (tests/test_properties.py, tests/test_exact.py):

- a sampled outcome is one of the check's declared outcomes, and one the exact distribution
  gives a chance above 0 (under the same policy);
- replaying a roll with its own dice (`forced=result.forced()`) gives the same result;
- the declared outcomes' probabilities sum to exactly 1.

Every case runs under small `Limits` and a small `LintBudget`, so no case can run long; a case
that still runs past `BOUND` seconds is stopped by an alarm and fails as a hang.
"""

from __future__ import annotations

import random
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import engine
from engine.model.ruleset import Check, InputSpec
from engine.tools.lint import LintBudget, lint

LIMITS = engine.Limits(
    max_pool=4,
    max_draw=4,
    max_states=500,
    max_rerolls=20,
    max_scenes=4,
    max_yaml_bytes=128 * 1024,  # the shipped rulesets fit, as seeds of the long harness
    max_yaml_depth=16,
    max_yaml_nodes=20_000,
    max_expression_depth=20,
    max_expression_size=200,
)
BUDGET = LintBudget(
    max_combinations=6,
    max_work=500_000,
    check_work=5_000,
    combination_work=2_000,
    follow_work=1_000,
    max_table_args=50,
)
BOUND = 10.0
"""Seconds one case may take: generous (a case takes milliseconds) so a busy machine is no
failure; what it catches is a hang, which takes far longer."""


class Hang(BaseException):
    """A case ran past `BOUND` (a BaseException, so no `except Exception` in the engine hides it)."""


@contextmanager
def bounded(what: str, seconds: float = BOUND) -> Iterator[None]:
    """Fail with `Hang` if the body runs longer than `seconds` (SIGALRM; the main thread only)."""

    def ring(signum: int, frame: Any) -> None:
        raise Hang(f"{what} ran past {seconds} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    start = time.monotonic()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert time.monotonic() - start < seconds, f"{what} took {time.monotonic() - start:.1f} s"


def refused(error: engine.RulecraftError) -> None:
    """A clean error: diagnostics with codes, each of which can be shown."""
    assert error.diagnostics and all(d.code.startswith("RC") for d in error.diagnostics), error
    error.render()


def value(spec: InputSpec, rng: random.Random) -> Any:
    """An input value a player might give: a bound, the default, or a small number."""
    if spec.scale is not None:
        return rng.choice(spec.scale.names)
    if spec.kind == "bool":
        return rng.random() < 0.5
    picks = [v for v in (spec.minimum, spec.maximum, spec.default) if v is not None] + [0, 1, 2]
    return rng.choice(picks)


def inputs_for(check: Check, rng: random.Random) -> dict[str, Any]:
    return {s.name: value(s, rng) for s in check.inputs if s.required or rng.random() < 0.5}


def obey(rs: engine.Ruleset, seed: int, *, lint_too: bool = True) -> list[str]:
    """Lint `rs`, then roll and solve every check once; returns what happened to each check."""
    rng = random.Random(seed)
    seen: list[str] = []
    if lint_too:
        for d in lint(rs, BUDGET):
            assert "internal error" not in d.message, d.render()
            seen.append(d.code)
    for check in rs.checks.values():
        inputs = inputs_for(check, rng)
        policy = rng.choice(["always", "never"])
        try:
            result = rs.roll(check.name, random.Random(seed), policy=policy, **inputs)
        except engine.RulecraftError as error:
            refused(error)
            seen.append("roll:" + error.diagnostics[0].code)
            result = None
        if result is not None:
            seen.append("roll")
            assert result.outcome.name in check.outcomes.names, (check.name, result.outcome)
            replay = rs.roll(
                check.name, random.Random(seed + 1), forced=result.forced(), policy=policy, **inputs
            )
            assert replay.as_json() == result.as_json()
        try:
            dist = rs.distribution(check.name, policy=policy, **inputs)
        except engine.RulecraftError as error:
            refused(error)
            seen.append("dist:" + error.diagnostics[0].code)
            continue
        seen.append("dist")
        assert sum(p for _, p in dist.table()) == 1, dist.table()
        if result is not None:
            assert dist.probability(result.outcome) > 0, (result.as_json(), dist.table())
    return seen


def load_and_obey(text: str, seed: int, *, lint_too: bool = True) -> list[str]:
    """The whole law for one ruleset's text."""
    with bounded("a generated ruleset"):
        try:
            rs = engine.load(text, limits=LIMITS)
        except engine.RulecraftError as error:
            refused(error)
            return ["load:" + error.diagnostics[0].code]
        return ["loaded", *obey(rs, seed, lint_too=lint_too)]
