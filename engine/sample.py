"""Stage 5a — evaluate by sampling: one roll of a check with an injected RNG, fully traced.

The trace records every input, value, die, chit and rule in the order they happened, and
`Result.forced()` gives back the dice so the same roll can be replayed exactly.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .compile import first_rule
from .errors import Diagnostic, InputError
from .limits import DEFAULT_LIMITS, Limits, enforce
from .model import Check, Die, Draw, Expr, Pool, Randomizer, Rule
from .values import Multi, Symbol, to_json

Forced = Mapping[str, Any]


class Step(NamedTuple):
    """One line of a trace: what happened (`kind`), to what (`name`), the value, and why."""

    kind: str  # input | value | auto | die | pool | draw | rule | outcome | output
    name: str
    value: Any
    detail: str = ""

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "name": self.name, "value": to_json(self.value)}
        if self.detail:
            out["detail"] = self.detail
        return out


@dataclass(frozen=True)
class Result:
    """The outcome of one roll, the named values, what was rolled, and the trace."""

    check: str
    outcome: Symbol
    values: Mapping[str, Any]
    inputs: Mapping[str, Any]
    rolled: Mapping[str, Any]
    trace: tuple[Step, ...] = field(repr=False)
    auto: bool = False

    def forced(self) -> dict[str, Any]:
        """The dice and chits of this roll, in the form `roll(..., forced=...)` accepts."""
        return {k: (v if isinstance(v, int) else [to_json(x) for x in v]) for k, v in self.rolled.items()}

    def as_json(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "outcome": self.outcome.name,
            "auto": self.auto,
            "inputs": {k: to_json(v) for k, v in self.inputs.items()},
            "rolled": {k: to_json(v) for k, v in self.rolled.items()},
            "values": {k: to_json(v) for k, v in self.values.items()},
            "trace": [s.as_json() for s in self.trace],
        }


def sample(
    check: Check,
    inputs: Mapping[str, Any],
    rng: random.Random,
    forced: Forced | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Result:
    """Roll `check` once with bound inputs (see `inputs.bind_inputs`)."""
    forced = forced or {}
    unknown = [k for k in forced if k not in {r.name for r in check.roll}] if forced else None
    if unknown:
        raise InputError(
            [Diagnostic("RC405", f"'{unknown[0]}' is not a die or draw of check '{check.name}'", check.span)]
        )
    env: dict[str, Any] = dict(inputs)
    trace: list[Step] = [Step("input", k, v) for k, v in inputs.items()]
    values: dict[str, Any] = {}
    rolled: dict[str, Any] = {}
    for let in check.pre_lets:
        env[let.name] = values[let.name] = value = let.expr.run(env)
        trace.append(Step("value", let.name, value, let.expr.text))
    fired = first_rule(check.auto, env) if check.auto else None
    if fired is not None:
        index, outcome = fired
        trace.append(Step("auto", check.outcomes.name, outcome, _rule_text(check.auto[index]) + " (nothing is rolled)"))
        return _finish(check, env, values, inputs, rolled, trace, outcome, auto=True)
    dice = []
    for r in check.roll:
        value = _roll(r, env, rng, forced.get(r.name), limits)
        env[r.name] = rolled[r.name] = value
        dice.append(value)
        trace.append(_roll_step(r, value))
    outcome, rule, *after = check.program(env, *dice)
    results = iter(after)
    for let in check.post_lets:
        values[let.name] = value = next(results)
        trace.append(Step("value", let.name, value, let.expr.text))
    if isinstance(check.outcome, Expr):
        trace.append(Step("outcome", check.outcomes.name, outcome, check.outcome.text))
    else:
        trace.append(Step("rule", check.outcomes.name, outcome, _rule_text(check.outcome[rule])))
    for name, expr in check.outputs:
        values[name] = value = next(results)
        trace.append(Step("output", name, value, expr.text))
    return Result(check.name, outcome, values, dict(inputs), rolled, tuple(trace), False)


def _finish(
    check: Check,
    env: dict[str, Any],
    values: dict[str, Any],
    inputs: Mapping[str, Any],
    rolled: dict[str, Any],
    trace: list[Step],
    outcome: Symbol,
    auto: bool,
) -> Result:
    env["outcome"] = outcome
    for name, expr in check.outputs:
        env[name] = values[name] = expr.run(env)
        trace.append(Step("output", name, values[name], expr.text))
    return Result(check.name, outcome, values, dict(inputs), rolled, tuple(trace), auto)


def _rule_text(rule: Rule) -> str:
    return f"when {rule.when.text}" if rule.when is not None else "else"


def _roll_step(r: Randomizer, value: Any) -> Step:
    if isinstance(r, Die):
        return Step("die", r.name, value, r.label)
    if isinstance(r, Pool):
        faces = value.faces or value.items
        read = "" if value.faces is None else " read as " + ", ".join(str(i) for i in value.items)
        return Step("pool", r.name, value, f"{len(faces)} dice rolled " + ", ".join(map(str, faces)) + read)
    return Step("draw", r.name, value, f"{len(value)} from bag '{r.bag.name}': " + ", ".join(str(i) for i in value.items))


def _roll(r: Randomizer, env: dict[str, Any], rng: random.Random, forced: Any, limits: Limits) -> Any:
    if isinstance(r, Die):
        if forced is not None:
            if forced not in r.faces:
                raise _bad_force(r, forced, f"is not a face of this die ({r.faces[0]}..{r.faces[-1]})")
            return forced
        return r.faces[rng.randrange(len(r.faces))]
    if isinstance(r, Pool):
        n = roll_count(r.count, env, r, limits.max_pool, "dice in the pool")
        if forced is not None:
            faces = tuple(forced)
            if len(faces) != n:
                raise _bad_force(r, list(faces), f"has {len(faces)} dice, but the pool rolls {n}")
            for f in faces:
                if f not in r.faces:
                    raise _bad_force(r, f, "is not a face of this pool's dice")
        else:
            size = len(r.faces)
            faces = tuple(r.faces[rng.randrange(size)] for _ in range(n))
        if r.each is None:
            return Multi(faces)
        each = r.each.run
        return Multi(tuple(each({**env, "face": f}) for f in faces), faces)
    assert isinstance(r, Draw)
    n = roll_count(r.count, env, r, limits.max_draw, "chits drawn")
    if forced is not None:
        return _forced_draw(r, forced, n)
    chits = [s for s, k in r.bag.contents() for _ in range(k)]
    return Multi(tuple(rng.sample(chits, n)))


def roll_count(expr: Expr, env: dict[str, Any], r: Randomizer, limit: int, what: str) -> int:
    n = expr.run(env)
    if not isinstance(n, int) or n < 0:
        raise InputError([Diagnostic("RC406", f"the number of {what} must be a whole number, at least 0, got {n}", r.span)])
    if isinstance(r, Draw) and n > r.bag.size:
        raise InputError([Diagnostic("RC406", f"cannot draw {n} chits from a bag of {r.bag.size}", r.span)])
    enforce(what, n, limit, r.span)
    return n


def _forced_draw(r: Draw, forced: Sequence[Any], n: int) -> Multi:
    names = [getattr(x, "name", x) for x in forced]
    if len(names) != n:
        raise _bad_force(r, names, f"has {len(names)} chits, but the draw takes {n}")
    left = {s.name: k for s, k in r.bag.contents()}
    out = []
    for name in names:
        if left.get(name, 0) <= 0:
            raise _bad_force(r, name, f"is not left in bag '{r.bag.name}'")
        left[name] -= 1
        out.append(r.bag.scale[name])
    return Multi(tuple(out))


def _bad_force(r: Randomizer, value: Any, why: str) -> InputError:
    return InputError([Diagnostic("RC405", f"forced {r.name} = {value!r} {why}", r.span)])


