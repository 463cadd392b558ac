"""Stage 5b — evaluate exactly: the full distribution of a check's outcome and named values.

It reads the same compiled model and runs the same closures as the sampler; only the way
randomizers produce values differs. Each randomizer gives its own exact distribution with
integer weights — a die its faces; a pool the multisets of its readings (after `each`) with
multinomial weights; a draw the multisets of chits with hypergeometric counts — and the check
is evaluated once per combination. Randomizer distributions are memoised on their hashable
parameters, so sweeping an input reuses them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property, lru_cache
from itertools import product
from typing import Any

from ..model.ruleset import Check, Die, Draw, Pool, Randomizer, Scale
from ..model.values import Multi, Symbol, normalize, show, to_json
from ..runtime.folds import FOLDS, Summary
from ..runtime.limits import DEFAULT_LIMITS, Limits, enforce, redraw_times, roll_count
from ..runtime.multisets import compositions, kind_multisets
from ..runtime.procedure import Procedure, Solver, score
from ..runtime.rules import first_rule

Weighted = tuple[tuple[Any, int], ...]


@dataclass(frozen=True)
class Dist:
    """An exact finite distribution over hashable values, kept as integer weights."""

    weights: Mapping[Any, int]
    total: int

    def probability(self, value: Any) -> Fraction:
        return Fraction(self.weights.get(value, 0), self.total)

    def items(self) -> Iterator[tuple[Any, Fraction]]:
        """(value, probability) pairs, in ascending order of value where values are ordered."""
        keys = list(self.weights)
        try:
            keys.sort()
        except TypeError:
            pass
        for k in keys:
            yield k, Fraction(self.weights[k], self.total)

    @property
    def mean(self) -> Fraction:
        """The expected value (numbers and true/false only)."""
        if not all(isinstance(v, (int, Fraction)) for v in self.weights):
            raise TypeError("only a distribution of numbers has a mean")
        return Fraction(sum(v * w for v, w in self.weights.items()), self.total)

    def at_least(self, value: Any) -> Fraction:
        return Fraction(sum(w for v, w in self.weights.items() if v >= value), self.total)

    def at_most(self, value: Any) -> Fraction:
        return Fraction(sum(w for v, w in self.weights.items() if v <= value), self.total)

    def as_json(self) -> dict[str, str]:
        return {show(v) if not isinstance(v, Symbol) else v.name: _frac(p) for v, p in self.items()}


@dataclass(frozen=True)
class Distribution:
    """The exact distribution of one check for fixed inputs: outcomes and named values."""

    check: str
    inputs: Mapping[str, Any]
    outcomes: Scale
    outcome: Dist
    joint: Mapping[tuple[Any, ...], int] = field(repr=False)
    names: tuple[str, ...] = ()
    states: int = 0
    policy: str = "always"
    capped: Fraction = Fraction(0)
    """The chance that a pool's `cap`, not its rules, ended a reroll procedure."""

    @cached_property
    def values(self) -> Mapping[str, Dist]:
        """Each named value's distribution (numbers, true/false and scale values), made on first use."""
        value_w: dict[str, dict[Any, int]] = {name: {} for name in self.names}
        for key, weight in self.joint.items():
            for name, v in zip(self.names, key[2:]):
                counts = value_w[name]
                counts[v] = counts.get(v, 0) + weight
        return {
            n: Dist(c, self.outcome.total)
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
        return self.values[name]

    def mean(self, name: str) -> Fraction:
        return self.values[name].mean

    def table(self) -> list[tuple[Symbol, Fraction]]:
        """Every declared outcome, worst first, with its probability (zero included)."""
        return [(s, self.outcome.probability(s)) for s in self.outcomes.members]

    def _sym(self, outcome: str | Symbol) -> Symbol:
        return outcome if isinstance(outcome, Symbol) else self.outcomes[outcome]

    def as_json(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "inputs": {k: to_json(v) for k, v in self.inputs.items()},
            "outcomes": {s.name: _frac(p) for s, p in self.table()},
            "values": {k: d.as_json() for k, d in self.values.items()},
            "states": self.states,
            "policy": self.policy,
            "capped": _frac(self.capped),
        }


def _frac(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def distribution(
    check: Check, inputs: Mapping[str, Any], limits: Limits = DEFAULT_LIMITS, policy: str = "always"
) -> Distribution:
    """The exact distribution of `check` with bound inputs; `policy` decides every "may"."""
    env: dict[str, Any] = dict(inputs)
    for let in check.lets:
        if let.before_roll:
            env[let.name] = let.expr.run(env)
    fired = first_rule(check.auto, env)
    if fired is not None:
        return replace(_fixed(check, inputs, env, fired[1]), policy=policy)
    if check.sequential:
        return Sequential(check, env, limits, policy).distribution(inputs)
    return replace(_product(check, inputs, env, limits), policy=policy)


def _product(check: Check, inputs: Mapping[str, Any], env: dict[str, Any], limits: Limits) -> Distribution:
    """Independent randomizers: every combination once, weights multiplied."""
    parts: list[tuple[str, Weighted]] = []
    for r in check.roll:
        parts.append((r.name, _randomizer(r, env, limits)))
    states = math.prod(len(w) for _, w in parts)
    enforce("exact states", states, limits.max_states, check.span)
    total = math.prod(sum(w for _, w in weighted) for _, weighted in parts)
    program = check.program
    joint: dict[tuple[Any, ...], int] = {}
    if len(parts) == 1:
        for value, weight in parts[0][1]:
            key = program(env, value)
            joint[key] = joint.get(key, 0) + weight
    elif len(parts) == 2:
        for v1, w1 in parts[0][1]:
            for v2, w2 in parts[1][1]:
                key = program(env, v1, v2)
                joint[key] = joint.get(key, 0) + w1 * w2
    else:
        for combo in product(*(w for _, w in parts)):
            weight = 1
            for _, w in combo:
                weight *= w
            key = program(env, *(v for v, _ in combo))
            joint[key] = joint.get(key, 0) + weight
    return _marginals(check, inputs, joint, total, check.layout, states)


def _fixed(check: Check, inputs: Mapping[str, Any], env: dict[str, Any], outcome: Symbol) -> Distribution:
    """An outcome decided before the roll: every value is certain."""
    env = dict(env)
    env["outcome"] = outcome
    for name, expr in check.auto_outputs:
        env[name] = expr.run(env)
    names = tuple(let.name for let in check.pre_lets) + tuple(n for n, _ in check.auto_outputs)
    key = (outcome, -1, *(env[n] for n in names))
    return _marginals(check, inputs, {key: 1}, 1, names, 1)


def _marginals(
    check: Check,
    inputs: Mapping[str, Any],
    joint: Mapping[tuple[Any, ...], int],
    total: int,
    names: tuple[str, ...],
    states: int,
) -> Distribution:
    outcome_w: dict[Symbol, int] = {}
    for key, weight in joint.items():
        outcome_w[key[0]] = outcome_w.get(key[0], 0) + weight
    return Distribution(
        check.name, dict(inputs), check.outcomes, Dist(outcome_w, total), joint, names, states
    )


# -- per-randomizer exact distributions --------------------------------------------------


def _randomizer(r: Randomizer, env: dict[str, Any], limits: Limits) -> Weighted:
    if isinstance(r, Die):
        return _die(r.faces)
    if isinstance(r, Pool):
        n = roll_count(r.count, env, r, limits.max_pool, "dice in the pool")
        if r.each is None:
            readings: tuple[tuple[Hashable, int], ...] = _die(r.faces)
        else:
            each = r.each.run
            counts: Counter[Any] = Counter(each({**env, "face": f}) for f in r.faces)
            readings = tuple(counts.items())
        if r.folds is not None:
            return _folded(readings, n, r.folds, False)
        enforce(
            "exact states", math.comb(n + len(readings) - 1, len(readings) - 1), limits.max_states, r.span
        )
        return _multisets(readings, n)
    assert isinstance(r, Draw)
    n = roll_count(r.count, env, r, limits.max_draw, "chits drawn")
    if r.folds is not None:
        return _folded(r.bag.contents(), n, r.folds, True)
    return _hypergeometric(r.bag.contents(), n)


@lru_cache(maxsize=1024)
def _folded(
    categories: tuple[tuple[Any, int], ...],
    n: int,
    keys: tuple[tuple[Any, ...], ...],
    without_replacement: bool,
) -> Weighted:
    """The joint distribution of a pool's (or draw's) statistics, by dynamic programming.

    Categories are taken one at a time; a state is (dice still to place, each statistic's
    partial fold), and states that agree are merged. For independent dice a category of
    weight w taking c of the r remaining dice weighs C(r, c)·w^c; for a draw without
    replacement from N_i chits it weighs C(N_i, c), and the last category takes the rest.
    """
    folds = [(FOLDS[key[0]], key[1:]) for key in keys]
    # Heaviest categories first: a leader emerges sooner, so more states settle early.
    categories = tuple(sorted(categories, key=lambda vw: -vw[1]))
    single = len(folds) == 1
    done: dict[tuple[Any, ...], int] = {}
    states: dict[tuple[Any, ...], int] = {(n, *(f.init(a) for f, a in folds)): 1}
    for index, (value, weight) in enumerate(categories):
        rest = categories[index + 1 :]
        rest_weight = sum(w for _, w in rest)
        nxt: dict[tuple[Any, ...], int] = {}
        for (left, *partial), w in states.items():
            choices = range(left, left + 1) if not rest else range(left + 1)
            for c in choices:
                if without_replacement:
                    if c > weight:
                        continue
                    grow = math.comb(weight, c)
                else:
                    grow = math.comb(left, c) * weight**c
                if not c:
                    new = partial
                elif single:
                    new = [folds[0][0].step(partial[0], value, c, folds[0][1])]
                else:
                    new = [f.step(p, value, c, a) for (f, a), p in zip(folds, partial)]
                remaining = left - c
                if remaining and (
                    folds[0][0].settled(new[0], remaining)
                    if single
                    else all(f.settled(p, remaining) for (f, _), p in zip(folds, new))
                ):
                    # Whatever the other dice show, the statistics stay: count their ways at once.
                    ways = (
                        math.comb(rest_weight, remaining) if without_replacement else rest_weight**remaining
                    )
                    key = (0, *new)
                    done[key] = done.get(key, 0) + w * grow * ways
                    continue
                key = (remaining, *new)
                nxt[key] = nxt.get(key, 0) + w * grow
        states = nxt
    for key, w in states.items():
        done[key] = done.get(key, 0) + w
    out: list[tuple[Any, int]] = []
    for (left, *partial), w in done.items():
        if left == 0 and w:
            results = {key: f.final(p, a) for key, (f, a), p in zip(keys, folds, partial)}
            out.append((Summary(results), w))
    return tuple(out)


@lru_cache(maxsize=256)
def _die(faces: tuple[int, ...]) -> Weighted:
    return tuple(Counter(faces).items())


@lru_cache(maxsize=1024)
def _multisets(readings: tuple[tuple[Any, int], ...], n: int) -> Weighted:
    """Every multiset of `n` independent readings with its multinomial weight."""
    values = [v for v, _ in readings]
    out: list[tuple[Any, int]] = []
    for counts, weight in kind_multisets(tuple(w for _, w in readings), n):
        items = tuple(v for v, c in zip(values, counts) for _ in range(c))
        tally = tuple((v, c) for v, c in zip(values, counts) if c)
        out.append((Multi(items, tally=tally), weight))
    return tuple(out)


@lru_cache(maxsize=1024)
def _hypergeometric(contents: tuple[tuple[Symbol, int], ...], k: int) -> Weighted:
    """Every multiset of `k` chits drawn without replacement, weighted by C(N_i, c_i) products."""
    out: list[tuple[Any, int]] = []
    for counts in compositions(k, len(contents)):
        weight = 1
        for (_, avail), c in zip(contents, counts):
            weight *= math.comb(avail, c)
        if weight:
            items = tuple(s for (s, _), c in zip(contents, counts) for _ in range(c))
            tally = tuple((s, c) for (s, _), c in zip(contents, counts) if c)
            out.append((Multi(items, tally=tally), weight))
    return tuple(out)


__all__ = ["Dist", "Distribution", "distribution", "normalize"]


# -- die by die: dependent dice, reroll procedures and the player's choices -------------------


class Sequential:
    """Exact evaluation one randomizer at a time, for checks where a die depends on an earlier
    one or the player chooses (triggers, redraws). Optimal choices compare the outcome
    distributions of finishing the check each way, so they are exact too."""

    def __init__(self, check: Check, env: dict[str, Any], limits: Limits, policy: str) -> None:
        self.check = check
        self.env = env
        self.limits = limits
        self.policy = policy
        self._finish: dict[tuple[int, tuple[Any, ...]], dict[tuple[Any, ...], Fraction]] = {}
        self._solvers: dict[tuple[int, tuple[Any, ...]], Solver] = {}

    def distribution(self, inputs: Mapping[str, Any]) -> Distribution:
        result = self.finish(0, ())
        denominator = 1
        for p in result.values():
            denominator = denominator * p.denominator // math.gcd(denominator, p.denominator)
        joint: dict[tuple[Any, ...], int] = {}
        capped = Fraction(0)
        for (key, was_capped), p in result.items():
            joint[key] = joint.get(key, 0) + int(p * denominator)
            if was_capped:
                capped += p
        d = _marginals(
            self.check, inputs, joint, denominator, self.check.layout, len(self._finish) + len(result)
        )
        return replace(d, policy=self.policy, capped=capped)

    def _env(self, dice: tuple[Any, ...]) -> dict[str, Any]:
        env = dict(self.env)
        for r, v in zip(self.check.roll, dice):
            env[r.name] = v
        return env

    def finish(self, i: int, dice: tuple[Any, ...]) -> dict[tuple[Any, ...], Fraction]:
        """Distribution of (program result, capped?) given the first `i` randomizers' values."""
        memo = self._finish.get((i, dice))
        if memo is not None:
            return memo
        env = self._env(dice)
        if i == len(self.check.roll):
            result = {(self.check.program(env, *dice), False): Fraction(1)}
        else:
            result = {}
            for value, p, capped in self.values(i, dice, env):
                for (key, c), q in self.finish(i + 1, dice + (value,)).items():
                    k = (key, c or capped)
                    result[k] = result.get(k, Fraction(0)) + p * q
        self._finish[(i, dice)] = result
        enforce("exact states", len(self._finish), self.limits.max_states, self.check.span)
        return result

    def outcomes(self, i: int, dice: tuple[Any, ...]) -> dict[Symbol, Fraction]:
        """The outcome distribution once the first `i` randomizers are known."""
        out: dict[Symbol, Fraction] = {}
        for (key, _), p in self.finish(i, dice).items():
            out[key[0]] = out.get(key[0], Fraction(0)) + p
        return out

    def better(self, a: Mapping[Symbol, Fraction], b: Mapping[Symbol, Fraction]) -> bool:
        members = self.check.outcomes.members
        return score(self.check.objective, members, a) > score(self.check.objective, members, b)

    def fresh(self, i: int, env: dict[str, Any]) -> list[tuple[Any, Fraction, bool]]:
        """A new roll of randomizer `i` (no redraw decided yet)."""
        r = self.check.roll[i]
        if isinstance(r, Pool) and r.triggers:
            solver = self.solver(i, tuple(env[x.name] for x in self.check.roll[:i]), env)
            proc = solver.proc
            n = roll_count(r.count, env, r, self.limits.max_pool, "dice in the pool")
            start = proc.fresh(n)
            total = sum(w for _, w in start)
            starts: dict[Any, Fraction] = {}
            for counts, w in start:
                state = proc.start(counts)
                starts[state] = starts.get(state, Fraction(0)) + Fraction(w, total)
            ends = solver.absorb(starts)
            return [(proc.value(counts), p, capped) for (counts, capped), p in ends.items()]
        weighted = _randomizer(r, env, self.limits)
        total = sum(w for _, w in weighted)
        return [(v, Fraction(w, total), False) for v, w in weighted]

    def values(self, i: int, dice: tuple[Any, ...], env: dict[str, Any]) -> list[tuple[Any, Fraction, bool]]:
        """Randomizer `i`'s final values, after any redraws the policy or the rule makes."""
        r = self.check.roll[i]
        first = self.fresh(i, env)
        if r.redraw is None:
            return first
        times = redraw_times(r, env)
        out: dict[tuple[Any, bool], Fraction] = {}
        for value, p, capped in first:
            for (v, c), q in self.settle(i, dice, env, value, capped, times, first).items():
                out[(v, c)] = out.get((v, c), Fraction(0)) + p * q
        return [(v, p, c) for (v, c), p in out.items()]

    def settle(
        self,
        i: int,
        dice: tuple[Any, ...],
        env: dict[str, Any],
        value: Any,
        capped: bool,
        times: int,
        fresh: list[tuple[Any, Fraction, bool]],
    ) -> dict[tuple[Any, bool], Fraction]:
        """Where a drawn value ends after up to `times` redraws."""
        r = self.check.roll[i]
        assert r.redraw is not None
        keep = {(value, capped): Fraction(1)}
        if times <= 0 or not r.redraw.allowed.run({**env, r.name: value}):
            return keep
        if not r.redraw.must and not self.wants_redraw(i, dice, env, value, times, fresh):
            return keep
        out: dict[tuple[Any, bool], Fraction] = {}
        for v, p, c in fresh:
            for key, q in self.settle(i, dice, env, v, c, times - 1, fresh).items():
                out[key] = out.get(key, Fraction(0)) + p * q
        return out

    def wants_redraw(
        self,
        i: int,
        dice: tuple[Any, ...],
        env: dict[str, Any],
        value: Any,
        times: int,
        fresh: list[tuple[Any, Fraction, bool]],
    ) -> bool:
        """The policy's answer to "redraw this?" — for `optimal`, whichever finishes better."""
        if self.policy != "optimal":
            return self.policy == "always"
        kept = self.outcomes(i + 1, dice + (value,))
        again: dict[Symbol, Fraction] = {}
        for v, p, c in fresh:
            for (final, _), q in self.settle(i, dice, env, v, c, times - 1, fresh).items():
                for s, x in self.outcomes(i + 1, dice + (final,)).items():
                    again[s] = again.get(s, Fraction(0)) + p * q * x
        return self.better(again, kept)

    def solver(self, i: int, dice: tuple[Any, ...], env: dict[str, Any]) -> Solver:
        """The reroll procedure of pool `i`, with optimal choices judged on the whole check."""
        found = self._solvers.get((i, dice))
        if found is None:
            r = self.check.roll[i]
            assert isinstance(r, Pool)
            proc = Procedure(r, env)

            def outcome_of(counts: tuple[int, ...]) -> dict[Symbol, Fraction]:
                return self.outcomes(i + 1, dice + (proc.value(counts),))

            found = Solver(
                proc,
                self.policy,
                self.limits.max_states,
                outcome_of,
                self.check.objective,
                self.check.outcomes.members,
            )
            self._solvers[(i, dice)] = found
        return found
