"""The cost model: the estimated units of work and rolls of one exact evaluation, known before
it starts, so that work over the budget is left out (and reported as RC809) instead of run.

Estimates are in the units `engine.runtime.work` counts (about a microsecond each) and depend
only on the ruleset and the inputs, never on the machine. They are upper bounds in spirit, not
promises: the work the evaluation really charges and the exact evaluator's own limits stay in
force.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ...errors import RulecraftError
from ...eval.foldcost import made_estimate
from ...expr import ast
from ...model.ruleset import Check, Die, Draw, Expr, Pool, Randomizer, randomizer_expressions
from ...model.values import Multi
from ...runtime.context import RunContext
from ...runtime.folds import FOLDS
from ...runtime.rules import concrete, elements, folds_for, reading
from .evaluate import randomizer_values
from .foldwork import Dice, comb, fold_work, list_work, partial_folds, shown

_PER_STATE = 3.0  # units per evaluated roll (the check's code, a table or two, the probe)
_PER_CHAIN_STATE2 = 5.0  # a reroll chain's exact solution grows with the square of its states


def cost(check: Check, env: dict[str, Any], follow: bool, ctx: RunContext) -> tuple[float, float]:
    """Estimated (units of work, rolls) to evaluate one combination exactly, following rerolls and
    redraws or not.

    A randomizer whose size depends on earlier dice is sized at the largest it takes over a
    few of those dice' values."""
    states = 1.0
    extra = 0.0
    envs = [env]
    read_later = (
        set().union(*(ast.names(e.node) for r in check.roll for e in randomizer_expressions(r)))
        if check.roll
        else set()
    )
    for r in check.roll:
        size, once, each = _size(r, envs, follow)
        extra += once + each * states
        states *= size
        if r.name in read_later and size <= 1000:
            envs = _extend(r, envs, ctx)
    return states * (_PER_STATE + check.code_units) + extra, states


def _extend(r: Randomizer, envs: list[dict[str, Any]], ctx: RunContext) -> list[dict[str, Any]]:
    """A few environments with `r` rolled, for sizing the randomizers that read it."""
    out: list[dict[str, Any]] = []
    for e in envs:
        try:
            values = randomizer_values(r, e, ctx)[:6]
        except (RulecraftError, TypeError, ValueError):
            values = []
        out += [{**e, r.name: v} for v in values]
        if len(out) >= 36:
            break
    return out or envs


def _size(r: Randomizer, envs: list[dict[str, Any]], follow: bool) -> tuple[float, float, float]:
    """How many values the program sees from `r`, and the units it costs to make them:
    once (a pool's statistics, memoised) and for each value of the dice before it (a
    reroll chain's exact solution, a redraw's choices)."""
    env = envs[0]
    if not isinstance(r, Draw) and r.faces_expr is not None:
        try:  # faces read from inputs: sized for the first environment
            r = concrete(r, env)
        except RulecraftError:
            pass
    if isinstance(r, Die):
        n = float(len(set(r.faces)))
        return n, 0.0, (n * n * _PER_STATE if follow and r.redraw is not None else 0.0)
    count = max(_count(r.count, e) for e in envs)
    if isinstance(r, Draw):
        readings: list[Any] = [s for s, _ in r.bag.chits]
    else:
        readings = []
    kinds: set[tuple[Any, ...]] = set()
    if isinstance(r, Pool) and len(r.faces) > 1000:
        # too many faces to read one by one: at most one reading each
        readings = list(range(len(set(r.faces))))
        kinds = {(f, (), ()) for f in readings}
    elif isinstance(r, Pool):
        scope = dict(env)
        seen: set[Any] = set()
        for face in r.faces:
            scope["face"] = face  # the triggers read it too, with or without `each`
            try:
                value = reading(r, scope, face)
                on = tuple(bool(t.on.run(scope)) for t in r.triggers)
                target = tuple(
                    bool(t.target.run(scope)) if t.target is not None else False for t in r.triggers
                )
                hash(value)
            except (RulecraftError, TypeError):
                value, on, target = face, (), ()
            if value not in seen:
                seen.add(value)
                readings.append(value)
            kinds.add((value, on, target))
    k = max(1, len(readings))
    if isinstance(r, Draw):  # only the multisets the bag can give (the exact evaluator keeps no other)
        multisets = float(_within(count, [n for _, n in r.bag.contents()]))
    else:
        multisets = float(comb(count + k - 1, k - 1))
    size = multisets
    once = each = 0.0
    folds = folds_for(r, env)  # arguments read from the inputs: for the first environment
    if folds is None and r.folds is not None and r.fold_reads:  # one reads an earlier die: at its most
        folds = tuple((key[0], *(count if isinstance(a, Expr) else a for a in key[1:])) for key in r.folds)
    if folds is not None:
        size = min(size, _fold_size(folds, count, readings))
        statistics = [(FOLDS[key[0]], key[1:]) for key in folds]
        dice = _dice(r, env, readings) if isinstance(r, Pool) and r.per else None
        if dice is None:
            once = fold_work(folds, readings, count, isinstance(r, Draw))
            priced = readings
        else:
            once = list_work(folds, dice)
            priced = [v for die in dice.readings for v in die]
        once += size * made_estimate(statistics, priced, count)
    if follow and isinstance(r, Pool) and r.triggers:
        m = float(comb(count + len(kinds) - 1, len(kinds) - 1))
        # A history read splits the chain's states (by first roll, by the count added): measured
        # at 3-8 times the time of the same chain unread, which the estimate above, several times
        # the measured time already, mostly covers.
        grows = 1.5 ** len(r.history)
        each += m * m * grows * _PER_CHAIN_STATE2 * 2
    if follow and r.redraw is not None:
        each += size * size * _PER_STATE
    return size, once, each


PRICED_READINGS = 400
"""Readings of the dice of a pool over a list the cost model reads, at most, to price its fold
(`_dice`): past them, the first and the last face of each die (reading every face of every die
for every combination cost a list of 100 d1000 more than the linter's whole run)."""


def _dice(r: Pool, env: dict[str, Any], readings: list[Any]) -> Dice:
    """A pool over a list as its fold is estimated (`foldwork.list_work`): each die's readings
    (its `each` may read `item`, as `face + item` over fractions), of every face up to
    `PRICED_READINGS` in all, else of the first and the last; where a face does not read (its
    `each` fails), the faces' readings read above, for every die."""
    scope = dict(env)
    try:
        items = elements(r, env)
        whole = len(items) * len(r.faces) <= PRICED_READINGS or not r.faces
        faces = r.faces if whole else tuple(dict.fromkeys((r.faces[0], r.faces[-1])))
        out: list[tuple[Any, ...]] = []
        for item in items:
            scope["item"] = item
            out.append(tuple(dict.fromkeys(reading(r, scope, f) for f in faces)))
    except (RulecraftError, TypeError, ValueError):
        return Dice([tuple(readings)] * _count(r.count, env), True, len(readings))
    return Dice(out, whole, max((len(die) for die in out), default=0) if whole else len(readings))


def _count(e: Expr, env: dict[str, Any]) -> int:
    """How many dice or chits `e` asks for, clamped; a guess when it needs an earlier die."""
    try:
        n = e.run(env)
    except RulecraftError:
        return 10  # depends on an earlier die: a guess, the work charged still bounds it
    if isinstance(n, Multi):
        return len(n.items)  # a pool over a list: one die per element
    if isinstance(n, bool) or not isinstance(n, (int, Fraction)):
        return 10
    return max(0, min(int(n), 10**6))


def _within(n: int, caps: list[int]) -> int:
    """How many multisets of `n` chits a bag holding `caps` of each colour can give: the ways to
    write n as a sum of one count per colour, each at most its cap (capped as `foldwork.comb`
    is). Where no cap binds, or counting would cost more than an estimate may (a bag of many
    colours), every multiset of the colours, as for dice."""
    if n > sum(caps):
        return 0
    if min(caps, default=n) >= n or len(caps) * n > 100_000:
        return comb(n + len(caps) - 1, len(caps) - 1)
    ways = [1] + [0] * n  # ways[j]: multisets of j chits from the colours so far
    for cap in caps:
        running, out = 0, []
        for j in range(n + 1):
            running += ways[j] - (ways[j - cap - 1] if j > cap else 0)
            out.append(min(running, 10**15))
        ways = out
    return ways[n] if n >= 0 else 0


def _fold_size(keys: tuple[tuple[Any, ...], ...], n: int, readings: list[Any]) -> float:
    """At most how many different statistics a pool of `n` dice can show: each statistic's
    partial folds (`foldwork.partial_folds`), but a majority's, whose result is one reading."""
    size = 1.0
    [every] = shown(keys, readings, [len(readings)])
    for i, key in enumerate(keys):
        size *= max(1, len(readings)) if key[0] == "majority" else partial_folds(key, n, every, i)
    return size
