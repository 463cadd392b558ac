"""The law every fuzz case is held to (issue 11, item 6): whatever a stranger writes, loading,
validating (the linter), rolling with a seeded RNG and solving exactly each end in a result or a
`RulecraftError` — never another exception, never a hang — and what comes back obeys the laws
stated elsewhere (tests/test_properties.py, tests/test_exact.py):

- a sampled outcome is one of the check's declared outcomes, and one the exact distribution
  gives a chance above 0 (under the same policy);
- replaying a roll with its own dice (`forced=result.forced()`) gives the same result;
- the declared outcomes' probabilities sum to exactly 1.

Scenes, a ruleset's own examples and campaigns are held to their laws too (`obey_scenes`,
`obey_examples`, `obey_campaign`, below).

Every case runs under `LIMITS`: the sizes a ruleset may ask for are the defaults (pools and draws
of 100, 1,000 rerolls or redraws), so a generated size past them is refused at load, while the
work budget is small (`max_work` 50,000 units, a `deadline` of 1 s) so that a case asking for
much ends quickly on the budget. Each request (a load, a roll, a solve, a scene, an action) must
end within `REQUEST_BOUND`, five times the deadline, and a whole case within `BOUND`, where an
alarm stops it as a hang.
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
    max_work=50_000,
    deadline=1.0,
    max_states=20_000,
    max_scenes=20,
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
assert LIMITS.deadline is not None
REQUEST_BOUND = 5 * LIMITS.deadline
"""Seconds one request may take: five times the budget's deadline, generous so that a busy machine
is no failure (a request takes milliseconds, or ends on its budget in a tenth of a second)."""
BOUND = 60.0
"""Seconds one whole case may take (many requests); what it catches is a hang."""


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


@contextmanager
def request(what: str) -> Iterator[None]:
    """One request of a case: it must end (in a result or an error) within `REQUEST_BOUND`."""
    start = time.monotonic()
    try:
        yield
    finally:
        took = time.monotonic() - start
        assert took < REQUEST_BOUND, f"{what} took {took:.1f} s, over {REQUEST_BOUND} s"


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
            with request(f"rolling {check.name}"):
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
            with request(f"solving {check.name}"):
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
            with request("loading"):
                rs = engine.load(text, limits=LIMITS)
        except engine.RulecraftError as error:
            refused(error)
            return ["load:" + error.diagnostics[0].code]
        return ["loaded", *obey(rs, seed, lint_too=lint_too)]


# -- scenes ---------------------------------------------------------------------------------------


def obey_scenes(rs: engine.Ruleset, seed: int) -> list[str]:
    """Each scene solved exactly (`scene prob`), played once (`scene roll`) and a few times
    (`sample_scenes`, `scene roll --times`): each a result or a `RulecraftError`; the endings'
    chances sum to exactly 1 and so do the rounds' with `longer` (unless an ending holds at the
    start: then none, and a mean of 0 rounds); a played scene's ending is one
    of the scene's (or `unfinished`) and, when the exact solve succeeded too, has a chance above 0
    there; the same seed plays the same scene."""
    rng = random.Random(seed)
    seen: list[str] = []
    for name, scene in rs.scenes.items():
        names = {e.name for e in scene.ends}
        policy = rng.choice(["always", "never", "optimal"])
        expect = (
            [f"{p}.{rng.choice(['hurt', 'hp', 'nope'])}" for p in scene.parties[:1]]
            if rng.random() < 0.3
            else []
        )
        odds = None
        try:
            with request(f"solving scene {name}"):
                odds = rs.scene_odds(name, policy=policy, expect=expect)
        except engine.RulecraftError as error:
            refused(error)
            seen.append("odds:" + error.diagnostics[0].code)
        if odds is not None:
            seen.append("odds")
            chances = odds.endings.fractions()
            assert sum(chances.values()) == 1, chances
            assert set(chances) <= names | {"never"}, chances
            lengths = sum(odds.rounds.values()) + odds.longer
            # a scene whose ending holds before its first step ends before round 1 (docs/scenes.md)
            assert lengths == 1 or (lengths == 0 and odds.mean_rounds == 0), (odds.rounds, odds.longer)
            assert odds.mean_rounds is None or odds.mean_rounds >= 0
            odds.as_json()
        try:
            with request(f"playing scene {name}"):
                played = rs.play_scene(name, random.Random(seed), policy=policy)
            with request(f"playing scene {name} again"):
                again = rs.play_scene(name, random.Random(seed), policy=policy)
        except engine.RulecraftError as error:
            refused(error)
            seen.append("play:" + error.diagnostics[0].code)
        else:
            seen.append("play")
            assert played.ending in names | {"unfinished"}, played.ending
            assert played.as_json() == again.as_json()
            assert 1 <= played.rounds <= scene.max_rounds or not played.trace, played.rounds
            if odds is not None and played.ending != "unfinished":
                assert odds.probability(played.ending) > 0, (played.ending, odds.endings.fractions())
        times = rng.choice([1, 3, LIMITS.max_scenes + 1])
        try:
            with request(f"sampling scene {name}"):
                sampled = rs.sample_scenes(name, times, random.Random(seed), policy=policy)
        except engine.RulecraftError as error:
            refused(error)
            seen.append("sample:" + error.diagnostics[0].code)
        else:
            seen.append("sample")
            # a scene still going after max_rounds has no length: it is counted in `endings` alone
            going = sampled.endings.get("unfinished", 0)
            assert sum(sampled.endings.values()) == times, sampled.as_json()
            assert sum(sampled.rounds.values()) == times - going, sampled.as_json()
            assert (sampled.mean_rounds() is None) == (going > 0), sampled.as_json()
            if odds is not None:
                for ending, count in sampled.endings.items():
                    assert ending == "unfinished" or not count or odds.probability(ending) > 0, ending
    return seen


# -- examples -------------------------------------------------------------------------------------


def obey_examples(rs: engine.Ruleset) -> list[str]:
    """`rulecraft test`: every example of the ruleset passes, fails with diagnostics that carry a
    code (RC701), or the run ends in a `RulecraftError` — never another exception."""
    from engine.tools.examples import run_examples

    try:
        with request("running the examples"):
            outcomes = run_examples(rs)
    except engine.RulecraftError as error:
        refused(error)
        return ["examples:" + error.diagnostics[0].code]
    seen = []
    for outcome in outcomes:
        for problem in outcome.problems:
            assert problem.code.startswith("RC"), problem
            assert "internal error" not in problem.message, problem.render()
            problem.render()
        seen.append("passed" if outcome.passed else "failed:" + outcome.problems[0].code)
    return seen


# -- campaigns ------------------------------------------------------------------------------------


def obey_campaign(rs: engine.Ruleset, ops: list[dict[str, Any]], store: Any) -> list[str]:
    """A campaign made in `store`, then each operation: each ends in a result or a
    `RulecraftError`; a refused one leaves the stored log exactly as it was (never a partial write)
    and a taken one appends exactly one event; at the end the log replays to the stored state."""
    from engine.scenes.campaign import play_in_campaign

    seen: list[str] = []
    try:
        with request("making a campaign"):
            campaign = engine.new_campaign("c", rs, store=store, characters={"ann": {}, "bo": {}})
    except engine.RulecraftError as error:
        refused(error)
        return ["new:" + error.diagnostics[0].code]
    for op in ops:
        before = [(e.seq, e.kind, e.data, e.state) for e in store.events("c")]
        kind = op["op"]
        try:
            with request(f"campaign {kind}"):
                if kind == "act":
                    campaign.act(
                        op["action"],
                        op["character"],
                        seed=op.get("seed"),
                        forced=op.get("forced"),
                        policy=op["policy"],
                        others=op["others"],
                        **op.get("inputs", {}),
                    )
                elif kind == "join":
                    campaign.join(op["character"], params=op["params"])
                elif kind == "roll":
                    campaign.roll(op["check"], seed=op["seed"], **op["inputs"])
                elif kind == "begin":
                    campaign.begin(op["period"])
                elif kind == "undo":
                    campaign.undo()
                else:
                    play_in_campaign(campaign, op["scene"], op["cast"], seed=op["seed"], policy=op["policy"])
        except engine.RulecraftError as error:
            refused(error)
            seen.append(f"{kind}:" + error.diagnostics[0].code)
            after = [(e.seq, e.kind, e.data, e.state) for e in store.events("c")]
            assert after == before, f"a refused {kind} changed the log"
            continue
        seen.append(kind)
        after = [(e.seq, e.kind, e.data, e.state) for e in store.events("c")]
        assert after[:-1] == before and len(after) == len(before) + 1, f"{kind} did not append one event"
    with request("replaying the campaign"):
        assert campaign.replay() == campaign.state()
    return seen
