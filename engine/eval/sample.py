"""Stage 5a — evaluate by sampling: one roll of a check with an injected RNG, fully traced.

The trace records every input, value, die, chit, reroll, choice and rule in the order they
happened. Every face and chit taken is also kept in order (`Result.drawn`), so
`Result.forced()` replays the same roll exactly. Reroll procedures follow the rules in
`chains.py` (shared with the exact evaluator), and the `optimal` policy asks the exact
evaluator which choice is best.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

from ..errors import Diagnostic, InputError, LimitError, did_you_mean
from ..model.ruleset import Check, Die, Draw, Expr, Pool, Randomizer, Rule
from ..model.values import Multi, Symbol, faces_text, show, to_json
from ..runtime.limits import DEFAULT_LIMITS, Limits, redraw_times, roll_count
from ..runtime.procedure import POLICIES, Option, Procedure, State
from ..runtime.rules import first_rule

Forced = Mapping[str, Any]
_new = tuple.__new__  # builds a Step without NamedTuple's Python-level constructor (hot path)


class Step(NamedTuple):
    """One line of a trace: what happened (`kind`), to what (`name`), the value, and why."""

    kind: str  # input | value | auto | die | pool | draw | reroll | choice | redraw | rule | outcome | output
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
    drawn: Mapping[str, tuple[Any, ...]] = field(default_factory=dict, repr=False)
    """Every face or chit each randomizer took, in order (first roll, rerolls, redraws)."""
    policy: str = "always"

    def forced(self) -> dict[str, Any]:
        """The dice and chits of this roll, in the form `roll(..., forced=...)` accepts."""
        return {k: [to_json(x) for x in v] for k, v in self.drawn.items()}

    def as_json(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "outcome": self.outcome.name,
            "auto": self.auto,
            "policy": self.policy,
            "inputs": {k: to_json(v) for k, v in self.inputs.items()},
            "rolled": {k: to_json(v) for k, v in self.rolled.items()},
            "drawn": {k: [to_json(x) for x in v] for k, v in self.drawn.items()},
            "values": {k: to_json(v) for k, v in self.values.items()},
            "trace": [s.as_json() for s in self.trace],
        }


class _Source:
    """Where faces and chits come from: the forced lists first, else the RNG; all recorded."""

    def __init__(self, check: Check, rng: random.Random, forced: Forced) -> None:
        self.rng = rng
        self.drawn: dict[str, list[Any]] = {}
        self.forced: dict[str, list[Any]] = {}
        if not forced:
            return
        self.spans = {r.name: r.span for r in check.roll}
        for k in forced:
            if k not in self.spans:
                hint = (
                    did_you_mean(k, self.spans)
                    or f"dice and draws of '{check.name}': {', '.join(self.spans) or 'none'}"
                )
                raise InputError(
                    [
                        Diagnostic(
                            "RC405", f"'{k}' is not a die or draw of check '{check.name}'", check.span, hint
                        )
                    ]
                )
        self.forced = {k: list(v) if isinstance(v, (list, tuple)) else [v] for k, v in forced.items()}

    def faces(self, r: Die | Pool, n: int) -> list[int]:
        queue = self.forced.get(r.name)
        if queue is None:  # the common case: straight from the RNG
            faces, size, draw = r.faces, len(r.faces), self.rng.randrange
            out = [faces[draw(size)] for _ in range(n)]
            self.drawn.setdefault(r.name, []).extend(out)
            return out
        out = []
        for _ in range(n):
            if queue is not None:
                if not queue:
                    raise _bad_force(r, self.drawn.get(r.name, []), "ran out: the roll needed more faces")
                face = queue.pop(0)
                if face not in r.faces:
                    raise _bad_force(r, face, f"is not a face of this die ({faces_text(r.faces)})")
            else:
                face = r.faces[self.rng.randrange(len(r.faces))]
            out.append(face)
        self.drawn.setdefault(r.name, []).extend(out)
        return out

    def chits(self, r: Draw, n: int) -> list[Symbol]:
        queue = self.forced.get(r.name)
        if queue is None:
            bag = [s for s, k in r.bag.contents() for _ in range(k)]
            out = list(self.rng.sample(bag, n))
        else:
            left = {s.name: k for s, k in r.bag.contents()}
            out = []
            for _ in range(n):
                if not queue:
                    raise _bad_force(r, self.drawn.get(r.name, []), "ran out: the draw needed more chits")
                name = getattr(queue[0], "name", queue[0])
                queue.pop(0)
                if left.get(name, 0) <= 0:
                    hint = did_you_mean(str(name), left) if name not in left else None
                    raise InputError(
                        [
                            Diagnostic(
                                "RC405",
                                f"forced {r.name} = {name!r} is not left in bag '{r.bag.name}'",
                                r.span,
                                hint,
                            )
                        ]
                    )
                left[name] -= 1
                out.append(r.bag.scale[name])
        self.drawn.setdefault(r.name, []).extend(out)
        return out

    def finish(self) -> None:
        for name, queue in self.forced.items():
            if queue:
                raise InputError(
                    [
                        Diagnostic(
                            "RC405",
                            f"forced {name} has {len(queue)} face(s) or chit(s) the roll never used: {queue}",
                            self.spans.get(name),
                            "force only what the roll takes, in order (rerolls and redraws included)",
                        )
                    ]
                )


def sample(
    check: Check,
    inputs: Mapping[str, Any],
    rng: random.Random,
    forced: Forced | None = None,
    limits: Limits = DEFAULT_LIMITS,
    policy: str = "always",
) -> Result:
    """Roll `check` once with bound inputs (see `inputs.bind_inputs`); `policy` decides every "may"."""
    if policy not in POLICIES:
        raise InputError(
            [Diagnostic("RC408", f"unknown policy '{policy}'", None, f"policies: {', '.join(POLICIES)}")]
        )
    source = _Source(check, rng, forced or {})
    env: dict[str, Any] = dict(inputs)
    trace: list[Step] = [_new(Step, ("input", k, v, "")) for k, v in inputs.items()]
    values: dict[str, Any] = {}
    rolled: dict[str, Any] = {}
    for let in check.pre_lets:
        env[let.name] = values[let.name] = value = let.expr.run(env)
        trace.append(_new(Step, ("value", let.name, value, let.expr.text)))
    fired = first_rule(check.auto, env) if check.auto else None
    if fired is not None:
        index, outcome = fired
        trace.append(
            Step("auto", check.outcomes.name, outcome, _rule_text(check.auto[index]) + " (nothing is rolled)")
        )
        return _auto(check, env, values, inputs, trace, outcome, policy)
    roller = _Roller(check, env, source, limits, policy, trace) if check.sequential else None
    dice: list[Any] = []
    for i, r in enumerate(check.roll):
        if roller is not None:
            value = roller.roll(i, tuple(dice))
        else:
            value = _plain(r, env, source, limits)
            trace.append(_roll_step(r, value))
        env[r.name] = rolled[r.name] = value
        dice.append(value)
    source.finish()
    outcome, rule, *after = check.program(env, *dice)
    results = iter(after)
    for let in check.post_lets:
        values[let.name] = value = next(results)
        trace.append(_new(Step, ("value", let.name, value, let.expr.text)))
    if isinstance(check.outcome, Expr):
        trace.append(_new(Step, ("outcome", check.outcomes.name, outcome, check.outcome.text)))
    else:
        trace.append(_new(Step, ("rule", check.outcomes.name, outcome, _rule_text(check.outcome[rule]))))
    for name, expr in check.outputs:
        values[name] = value = next(results)
        trace.append(_new(Step, ("output", name, value, expr.text)))
    drawn = {k: tuple(v) for k, v in source.drawn.items()}
    return Result(check.name, outcome, values, dict(inputs), rolled, tuple(trace), False, drawn, policy)


def _auto(
    check: Check,
    env: dict[str, Any],
    values: dict[str, Any],
    inputs: Mapping[str, Any],
    trace: list[Step],
    outcome: Symbol,
    policy: str,
) -> Result:
    env["outcome"] = outcome
    for name, expr in check.auto_outputs:
        env[name] = values[name] = expr.run(env)
        trace.append(Step("output", name, values[name], expr.text))
    return Result(check.name, outcome, values, dict(inputs), {}, tuple(trace), True, {}, policy)


def _rule_text(rule: Rule) -> str:
    then = rule.then.text
    return f"when {rule.when.text} → {then}" if rule.when is not None else f"otherwise → {then}"


def _roll_step(r: Randomizer, value: Any) -> Step:
    if isinstance(r, Die):
        return _new(Step, ("die", r.name, value, r.label))
    if isinstance(r, Pool):
        faces = value.faces or value.items
        read = "" if value.faces is None else " read as " + ", ".join(str(i) for i in value.items)
        return Step(
            "pool",
            r.name,
            value,
            f"{len(faces)} {'die' if len(faces) == 1 else 'dice'} rolled "
            + ", ".join(map(str, faces))
            + read,
        )
    if not len(value):
        return Step("draw", r.name, value, "nothing drawn")
    return Step(
        "draw",
        r.name,
        value,
        f"{len(value)} from bag '{r.bag.name}': " + ", ".join(str(i) for i in value.items),
    )


def _read(r: Pool, env: dict[str, Any], faces: Sequence[int]) -> Multi:
    if r.each is None:
        return Multi(tuple(faces))
    each = r.each.run
    scope = dict(env)
    items = []
    for f in faces:
        scope["face"] = f
        items.append(each(scope))
    return Multi(tuple(items), tuple(faces))


def _plain(r: Randomizer, env: dict[str, Any], source: _Source, limits: Limits) -> Any:
    """One roll of a randomizer with no triggers and no redraw."""
    if isinstance(r, Die):
        return source.faces(r, 1)[0]
    if isinstance(r, Pool):
        n = roll_count(r.count, env, r, limits.max_pool, "dice in the pool")
        return _read(r, env, source.faces(r, n))
    n = roll_count(r.count, env, r, limits.max_draw, "chits drawn")
    return Multi(tuple(source.chits(r, n)))


class _Roller:
    """Rolls for checks with reroll procedures, redraws or dependent dice, tracing each step."""

    def __init__(
        self,
        check: Check,
        env: dict[str, Any],
        source: _Source,
        limits: Limits,
        policy: str,
        trace: list[Step],
    ) -> None:
        self.check = check
        self.base = dict(env)
        self.source = source
        self.limits = limits
        self.policy = policy
        self.trace = trace
        self._exact: Any = None

    def exact(self) -> Any:
        """The exact evaluator, consulted by the optimal policy (kept between rolls)."""
        if self._exact is None:
            self._exact = _exact_for(self.check, self.base, self.limits, self.policy)
        return self._exact

    def env(self, dice: tuple[Any, ...]) -> dict[str, Any]:
        env = dict(self.base)
        for r, v in zip(self.check.roll, dice):
            env[r.name] = v
        return env

    def roll(self, i: int, dice: tuple[Any, ...]) -> Any:
        r = self.check.roll[i]
        env = self.env(dice)
        value = self.once(i, dice, env)
        if r.redraw is None:
            return value
        times = redraw_times(r, env)
        while times > 0 and r.redraw.allowed.run({**env, r.name: value}):
            if r.redraw.must:
                why = "the rule forces it"
            elif self.policy == "optimal":
                fresh = self.exact().fresh(i, env)
                if not self.exact().wants_redraw(i, dice, env, value, times, fresh):
                    self.trace.append(
                        Step(
                            "choice",
                            r.name,
                            value,
                            "policy optimal keeps it: a redraw would not improve the objective",
                        )
                    )
                    break
                why = "policy optimal: a redraw improves the objective"
            elif self.policy == "always":
                why = "policy always takes every allowed redraw"
            else:
                self.trace.append(Step("choice", r.name, value, "policy never: keeps it"))
                break
            old = value
            value = self.once(i, dice, env, announce=False)
            self.trace.append(Step("redraw", r.name, value, f"{show(old)} redrawn ({why}) → {show(value)}"))
            times -= 1
        return value

    def once(self, i: int, dice: tuple[Any, ...], env: dict[str, Any], announce: bool = True) -> Any:
        r = self.check.roll[i]
        if not (isinstance(r, Pool) and r.triggers):
            value = _plain(r, env, self.source, self.limits)
            if announce:
                self.trace.append(_roll_step(r, value))
            return value
        return self.procedure(i, dice, env, r, announce)

    def procedure(self, i: int, dice: tuple[Any, ...], env: dict[str, Any], r: Pool, announce: bool) -> Multi:
        """A pool with triggers: roll, then run the steps until none is pending."""
        proc = Procedure(r, env)
        n = roll_count(r.count, env, r, self.limits.max_pool, "dice in the pool")
        faces = self.source.faces(r, n)
        unused = [{t for t in range(len(proc.steps)) if proc.kinds[proc.kind_of[f]].on[t]} for f in faces]
        if announce:
            self.trace.append(_roll_step(r, _read(r, env, faces)))
        used = 0
        while True:
            state = self._state(proc, faces, unused, used)
            t = proc.pending(state)
            if t is None:
                if proc.capped(state):
                    self.trace.append(
                        Step(
                            "reroll",
                            r.name,
                            _read(r, env, faces),
                            f"cap of {proc.cap} reached: the remaining triggers go unused",
                        )
                    )
                break
            step = proc.steps[t]
            option, why = self.decide(i, dice, env, proc, state, t)
            triggering = [d for d in range(len(faces)) if t in unused[d]]
            for d in triggering:
                unused[d].discard(t)
            grant = proc.grant(state, t)
            shown = ", ".join(str(faces[d]) for d in triggering)
            verb = "adds" if step.action == "add" else "rerolls"
            head = (
                f"{step.name}: {len(triggering)} {'die' if len(triggering) == 1 else 'dice'} showing {shown} "
                f"{'forces' if step.must else 'allows'} {grant} {'added die' if step.action == 'add' else 'reroll'}{'s' if grant != 1 else ''}"
            )
            remove, count = option
            if count == 0 and proc.cap is not None and proc.used_after(state, t, 0) > proc.cap:
                used = proc.cap + 1
            if count == 0:
                if step.action != "add" and not any(proc.eligible(state, t)):
                    why = "no die it may hit"
                self.trace.append(Step("choice", r.name, _read(r, env, faces), f"{head}; {why}: none taken"))
                continue
            if step.action == "add":
                new = self.source.faces(r, count)
                for f in new:
                    faces.append(f)
                    unused.append(
                        {
                            u
                            for u in range(len(proc.steps))
                            if proc.kinds[proc.kind_of[f]].on[u] and (u != t or step.repeat)
                        }
                    )
                detail = f"{head}; {why}: {verb} {', '.join(map(str, new))}"
            else:
                picked = self._pick(proc, faces, unused, remove, triggering if step.self_target else None)
                olds = [faces[d] for d in picked]
                new = self.source.faces(r, len(picked))
                for d, f in zip(picked, new):
                    faces[d] = f
                    unused[d] = {
                        u
                        for u in range(len(proc.steps))
                        if proc.kinds[proc.kind_of[f]].on[u] and (u != t or step.repeat)
                    }
                moves = ", ".join(f"{o} → {f}" for o, f in zip(olds, new))
                detail = f"{head}; {why}: {verb} {moves}"
            used = proc.used_after(state, t, count) if proc.cap is not None else used + count
            if used > self.limits.max_rerolls:
                raise LimitError(
                    [
                        Diagnostic(
                            "RC503",
                            f"the reroll procedure went past {self.limits.max_rerolls} dice",
                            r.span,
                            "set a 'cap' on the pool",
                        )
                    ]
                )
            self.trace.append(Step("reroll", r.name, _read(r, env, faces), detail))
        return _read(r, env, faces)

    def _state(self, proc: Procedure, faces: list[int], unused: list[set[int]], used: int) -> State:
        counts = [0] * len(proc.kinds)
        rows = [[0] * len(proc.kinds) for _ in proc.steps]
        for f, u in zip(faces, unused):
            k = proc.kind_of[f]
            counts[k] += 1
            for t in u:
                rows[t][k] += 1
        return (tuple(counts), tuple(tuple(row) for row in rows), used if proc.cap is not None else 0)

    def _pick(
        self,
        proc: Procedure,
        faces: list[int],
        unused: list[set[int]],
        remove: tuple[int, ...],
        among: list[int] | None,
    ) -> list[int]:
        """Which dice to reroll: `remove[k]` of each kind, those with unused triggers first."""
        picked: list[int] = []
        pool = among if among is not None else list(range(len(faces)))
        for k, want in enumerate(remove):
            if not want:
                continue
            candidates = [d for d in pool if proc.kind_of[faces[d]] == k and d not in picked]
            candidates.sort(key=lambda d: -len(unused[d]))
            picked.extend(candidates[:want])
        return picked

    def decide(
        self, i: int, dice: tuple[Any, ...], env: dict[str, Any], proc: Procedure, state: State, t: int
    ) -> tuple[Option, str]:
        step = proc.steps[t]
        which = "least valuable" if step.pick == "lowest" else "most valuable"
        if step.must:
            why = (
                "the rule adds them"
                if step.action == "add"
                else f"the rule forces it on the {which} eligible dice"
            )
            return proc.options(state, t, "always")[0], why
        if self.policy != "optimal":
            option = proc.options(state, t, self.policy)[0]
            if self.policy == "never":
                return option, "policy never"
            if step.action == "add":
                return option, "policy always takes every allowed die"
            return option, f"policy always takes every allowed reroll, {which} eligible die first"
        solver = self.exact().solver(i, dice, env)
        scored = solver.decision_scores(state, t)
        best = solver.choice(state, t)
        best_score = dict(scored)[best]
        keep = next((s for o, s in scored if o[1] == 0), None)
        label = _objective_label(self.check)
        why = f"policy optimal ({label} {_pct(best_score[0])}"
        why += f" vs {_pct(keep[0])} taking none)" if keep is not None and best[1] else ")"
        return best, why


_EXACT: dict[tuple[Any, ...], tuple[Check, Any]] = {}


def _exact_for(check: Check, env: dict[str, Any], limits: Limits, policy: str) -> Any:
    """One exact evaluator per check, inputs and policy, so optimal rolls reuse its solutions."""
    from .exact import Sequential

    try:
        key = (id(check), policy, limits, *sorted(env.items(), key=lambda kv: kv[0]))
        hash(key)
    except TypeError:
        return Sequential(check, env, limits, policy)
    found = _EXACT.get(key)
    if found is None or found[0] is not check:
        if len(_EXACT) > 64:
            _EXACT.clear()
        found = (check, Sequential(check, env, limits, policy))
        _EXACT[key] = found
    return found[1]


def _objective_label(check: Check) -> str:
    kind, target = check.objective
    if kind == "at_least":
        return f"P(at least {target.name})"
    if kind == "mean_rank":
        return "mean rank"
    return f"P({check.outcomes.members[-1].name})"


def _pct(x: Fraction) -> str:
    return f"{float(x) * 100:.1f}%"


def _bad_force(r: Randomizer, value: Any, why: str) -> InputError:
    return InputError([Diagnostic("RC405", f"forced {r.name} = {value!r} {why}", r.span)])
