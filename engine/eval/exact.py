"""Evaluate exactly: the full distribution of a check's outcome and named values.

It reads the same compiled model and runs the same `Check.program` as the sampler; only the way
randomizers produce values differs. Independent randomizers multiply (`randomizer_table` each,
every combination once); a check whose dice depend on earlier dice, or whose player chooses
(triggers, redraws), goes die by die (`Sequential`), with reroll procedures solved as absorbing
Markov chains (`rerolls`). Every weight is a whole number over a common total (`Dist`).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property
from itertools import product
from typing import Any

from ..errors import Diagnostic, InputError, LimitError, did_you_mean, placed
from ..model.ruleset import Check, Pool, Scale
from ..model.values import Multi, Symbol, to_json
from ..runtime.context import RunContext, check_policy, with_work
from ..runtime.limits import enforce, redraw_times, roll_count
from ..runtime.procedure import Procedure
from ..runtime.rules import auto_outputs, before_roll, first_rule, read_faces, redraw_offered, with_dice
from ..runtime.work import TRANSITION, meter, working
from .dist import Dist, fraction_text
from .rerolls import RerollSolver
from .tables import randomizer_table


@dataclass(frozen=True)
class Distribution:
    """The exact distribution of one check for fixed inputs: outcomes and named values."""

    check: str
    inputs: Mapping[str, Any]
    outcomes: Scale
    joint: Dist = field(repr=False)
    """Over (outcome, index of the rule that fired, each named value in `names`)."""
    names: tuple[str, ...] = ()
    states: int = 0
    policy: str = "always"
    capped: Fraction = Fraction(0)
    """The chance that a pool's `cap`, not its rules, ended a reroll procedure."""

    @cached_property
    def outcome(self) -> Dist:
        """The outcome's distribution."""
        return self.joint.map(lambda key: key[0])

    @cached_property
    def values(self) -> Mapping[str, Dist]:
        """Each named value's distribution (numbers, true/false and scale values), made on first use."""
        value_w: dict[str, dict[Any, int]] = {name: {} for name in self.names}
        for key, weight in self.joint.weights.items():
            for name, v in zip(self.names, key[2:]):
                counts = value_w[name]
                counts[v] = counts.get(v, 0) + weight
        return {
            n: Dist(c, self.joint.total)
            for n, c in value_w.items()
            if all(isinstance(v, (int, Fraction, Symbol)) for v in c)
        }

    def probability(self, outcome: str | Symbol) -> Fraction:
        return self.outcome.probability(self._sym(outcome))

    def at_least(self, outcome: str | Symbol) -> Fraction:
        """P(outcome is this one or better)."""
        return self.outcome.at_least(self._sym(outcome))

    def at_most(self, outcome: str | Symbol) -> Fraction:
        """P(outcome is this one or worse)."""
        return self.outcome.at_most(self._sym(outcome))

    def value(self, name: str) -> Dist:
        """A named value's distribution (`InputError` RC402 for a name the check has no value of)."""
        found = self.values.get(name)
        if found is None:
            raise InputError(
                [
                    Diagnostic(
                        "RC402",
                        f"check '{self.check}' has no value '{name}' with a distribution",
                        None,
                        did_you_mean(str(name), self.values) or f"values: {', '.join(self.values) or 'none'}",
                    )
                ]
            )
        return found

    def mean(self, name: str) -> Fraction:
        return self.value(name).mean

    def table(self) -> list[tuple[Symbol, Fraction]]:
        """Every declared outcome, worst first, with its probability (zero included)."""
        return [(s, self.outcome.probability(s)) for s in self.outcomes.members]

    def _sym(self, outcome: str | Symbol) -> Symbol:
        if isinstance(outcome, Symbol):
            return outcome
        if isinstance(outcome, str) and outcome in self.outcomes.names:
            return self.outcomes[outcome]
        raise InputError(
            [
                Diagnostic(
                    "RC402",
                    f"check '{self.check}' has no outcome {outcome!r}"[:120],
                    None,
                    did_you_mean(str(outcome), self.outcomes.names)
                    or f"outcomes: {', '.join(self.outcomes.names)}",
                )
            ]
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "inputs": {k: to_json(v) for k, v in self.inputs.items()},
            "outcomes": {s.name: fraction_text(p) for s, p in self.table()},
            "values": {k: d.as_json() for k, d in self.values.items()},
            "states": self.states,
            "policy": self.policy,
            "capped": fraction_text(self.capped),
        }


def distribution(check: Check, inputs: Mapping[str, Any], ctx: RunContext) -> Distribution:
    """The exact distribution of `check` with bound inputs; `ctx.policy` decides every "may".
    The work is charged to `ctx.work` (a fresh budget from `ctx.limits` when it has none)."""
    check_policy(ctx.policy)
    ctx = with_work(ctx)
    assert ctx.work is not None
    try:
        with working(ctx.work):
            return _distribution(check, inputs, ctx)
    except LimitError as exc:
        raise placed(exc, check.span) from None


def _distribution(check: Check, inputs: Mapping[str, Any], ctx: RunContext) -> Distribution:
    env = before_roll(check, inputs)
    fired = first_rule(check.auto, env)
    if fired is not None:
        return replace(_fixed(check, inputs, env, fired[1]), policy=ctx.policy)
    if check.sequential:
        return Sequential(check, env, ctx).distribution(inputs)
    return replace(_product(check, inputs, env, ctx), policy=ctx.policy)


def _product(check: Check, inputs: Mapping[str, Any], env: dict[str, Any], ctx: RunContext) -> Distribution:
    """Independent randomizers: every combination once, weights multiplied."""
    parts = [randomizer_table(r, env, ctx) for r in check.roll]
    states = math.prod(len(d) for d in parts)
    enforce("exact states", states, ctx.limits.max_states, check.span)
    meter().charge(states)
    total = math.prod(d.total for d in parts)
    program = check.program
    joint: dict[tuple[Any, ...], int] = {}
    if len(parts) == 1:
        for value, weight in parts[0].weights.items():
            key = program(env, value)
            joint[key] = joint.get(key, 0) + weight
    elif len(parts) == 2:
        second = parts[1].weights.items()
        for v1, w1 in parts[0].weights.items():
            for v2, w2 in second:
                key = program(env, v1, v2)
                joint[key] = joint.get(key, 0) + w1 * w2
    else:
        for combo in product(*(d.weights.items() for d in parts)):
            weight = 1
            for _, w in combo:
                weight *= w
            key = program(env, *(v for v, _ in combo))
            joint[key] = joint.get(key, 0) + weight
    return Distribution(check.name, dict(inputs), check.outcomes, Dist(joint, total), check.layout, states)


def _fixed(check: Check, inputs: Mapping[str, Any], env: dict[str, Any], outcome: Symbol) -> Distribution:
    """An outcome decided before the roll: every value is certain."""
    values = {let.name: env[let.name] for let in check.pre_lets} | auto_outputs(check, env, outcome)
    names = tuple(values)
    key = (outcome, -1, *values.values())
    return Distribution(check.name, dict(inputs), check.outcomes, Dist.certain(key), names, 1)


# -- die by die: dependent dice, reroll procedures and the player's choices -------------------


class Sequential:
    """Exact evaluation one randomizer at a time, for checks where a die depends on an earlier
    one or the player chooses (triggers, redraws). Optimal choices compare the outcome
    distributions of finishing the check each way, so they are exact too.

    Its memos grow as it is asked; `lock` serialises callers that share one (the sampler's
    `optimal` decisions)."""

    def __init__(self, check: Check, env: dict[str, Any], ctx: RunContext) -> None:
        self.check = check
        self.env = env
        self.ctx = ctx
        self.policy = ctx.policy
        self.lock = threading.RLock()
        self._finish: dict[tuple[int, tuple[Any, ...]], Dist] = {}
        self._solvers: dict[tuple[int, tuple[Any, ...]], RerollSolver] = {}
        self._redrawn: dict[tuple[int, tuple[Any, ...], int], Dist] = {}

    def distribution(self, inputs: Mapping[str, Any]) -> Distribution:
        result = self.finish(0, ())
        joint = result.map(lambda kc: kc[0])
        capped = Fraction(sum(w for (_, c), w in result.weights.items() if c), result.total)
        states = len(self._finish) + len(result)
        d = Distribution(self.check.name, dict(inputs), self.check.outcomes, joint, self.check.layout, states)
        return replace(d, policy=self.policy, capped=capped)

    def finish(self, i: int, dice: tuple[Any, ...]) -> Dist:
        """Distribution of (program result, capped?) given the first `i` randomizers' values."""
        memo = self._finish.get((i, dice))
        if memo is not None:
            return memo
        env = with_dice(self.env, self.check.roll, dice)
        if i == len(self.check.roll):
            result = Dist.certain((self.check.program(env, *dice), False))
        else:
            parts = []
            values = self.values(i, dice, env)
            for (value, capped), w in values.weights.items():
                rest = self.finish(i + 1, dice + (value,))
                if capped:
                    rest = rest.map(lambda kc: (kc[0], True))
                parts.append((rest, w, values.total))
            result = Dist.mix(parts)
        self._finish[(i, dice)] = result
        meter().charge(len(result))
        enforce("exact states", len(self._finish), self.ctx.limits.max_states, self.check.span)
        return result

    def outcomes(self, i: int, dice: tuple[Any, ...]) -> Dist:
        """The outcome distribution once the first `i` randomizers are known."""
        return self.finish(i, dice).map(lambda kc: kc[0][0])

    def better(self, a: Dist, b: Dist) -> bool:
        members = self.check.outcomes.members
        objective = self.check.objective
        return objective.score(members, a.weights, a.total) > objective.score(members, b.weights, b.total)

    def fresh(self, i: int, env: dict[str, Any]) -> Dist:
        """A new roll of randomizer `i` (no redraw decided yet), over (value, capped?)."""
        r = self.check.roll[i]
        if isinstance(r, Pool) and r.triggers:
            if roll_count(r.count, env, r, self.ctx.limits.max_pool, "dice in the pool") == 0:
                return Dist.certain((read_faces(r, env, ()), False))  # no die: no face read, no trigger
            solver = self.solver(i, tuple(env[x.name] for x in self.check.roll[:i]), env)
            proc = solver.proc
            n = roll_count(r.count, env, r, self.ctx.limits.max_pool, "dice in the pool")
            start = proc.fresh(n)
            starts = Dist.of((proc.start(counts), w) for counts, w in start)
            return solver.ends(starts)
        return randomizer_table(r, env, self.ctx).map(lambda v: (v, False))

    def values(self, i: int, dice: tuple[Any, ...], env: dict[str, Any]) -> Dist:
        """Randomizer `i`'s final values, after any redraws the policy or the rule makes."""
        r = self.check.roll[i]
        first = self.fresh(i, env)
        if r.redraw is None:
            return first
        times = redraw_times(r, env, self.ctx.limits)
        for t in range(1, times):  # fewest redraws left first, so no chain of calls is `times` deep
            self.redrawn(i, dice, env, t, first)
        return Dist.mix(
            (self.settle(i, dice, env, value, capped, times, first), w, first.total)
            for (value, capped), w in first.weights.items()
        )

    def settle(
        self,
        i: int,
        dice: tuple[Any, ...],
        env: dict[str, Any],
        value: Any,
        capped: bool,
        times: int,
        fresh: Dist,
    ) -> Dist:
        """Where a drawn value ends after up to `times` redraws."""
        r = self.check.roll[i]
        assert r.redraw is not None
        if not redraw_offered(r, env, value, times):
            return Dist.certain((value, capped))
        if not r.redraw.must and not self.wants_redraw(i, dice, env, value, times, fresh):
            return Dist.certain((value, capped))
        return self.redrawn(i, dice, env, times, fresh)

    def redrawn(self, i: int, dice: tuple[Any, ...], env: dict[str, Any], times: int, fresh: Dist) -> Dist:
        """Where the value ends when it is redrawn now (with `times - 1` redraws left after)."""
        key = (i, dice, times)
        found = self._redrawn.get(key)
        if found is None:
            meter().charge(TRANSITION * len(fresh))
            found = self._redrawn[key] = Dist.mix(
                (self.settle(i, dice, env, v, c, times - 1, fresh), w, fresh.total)
                for (v, c), w in fresh.weights.items()
            )
        return found

    def wants_redraw(
        self, i: int, dice: tuple[Any, ...], env: dict[str, Any], value: Any, times: int, fresh: Dist
    ) -> bool:
        """The policy's answer to "redraw this?" — for `optimal`, whichever finishes better."""
        if self.policy != "optimal":
            return self.policy == "always"
        kept = self.outcomes(i + 1, dice + (value,))
        ends = self.redrawn(i, dice, env, times, fresh)
        again = Dist.mix(
            (self.outcomes(i + 1, dice + (final,)), w, ends.total) for (final, _), w in ends.weights.items()
        )
        return self.better(again, kept)

    def solver(self, i: int, dice: tuple[Any, ...], env: dict[str, Any]) -> RerollSolver:
        """The reroll procedure of pool `i`, with optimal choices judged on the whole check."""
        found = self._solvers.get((i, dice))
        if found is None:
            r = self.check.roll[i]
            assert isinstance(r, Pool)
            proc = Procedure(r, env)

            def outcome_of(value: Multi) -> Dist:
                return self.outcomes(i + 1, dice + (value,))

            found = RerollSolver(
                proc,
                self.policy,
                self.ctx.limits.max_states,
                outcome_of,
                self.check.objective,
                self.check.outcomes.members,
            )
            self._solvers[(i, dice)] = found
        return found
