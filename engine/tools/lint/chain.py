"""What following a pool's reroll procedure exactly costs, estimated before it runs: the units
`engine.eval.rerolls` charges, counted from the procedure's kinds and steps (`Procedure`, one
pass over the faces, kept by `procedure_for`), never by solving it.

The solver charges `UNIT` for each node of the chain it walks: a flight (dice in the air, landed
one at a time) and a state it passes on. A state is what `Packing` keeps: the dice of each kind,
the steps they still hold unused, the dice used under a cap and the history the check reads. The
chain of `n` dice over `K` kinds, states and flights together, has about as many nodes as there
are multisets of `n` over `K + 1` kinds, C(n + K, K): a flight is a state whose last kind counts
the dice still in the air. Each field a state keeps that the counts do not already tell (`_extra`:
a die that set off a step aimed at other dice, which stays and keeps it used; the dice a player
chose to leave; a step only the first roll sets off; several steps on one kind) is one kind more,
and each count of dice used under a cap a layer more (`_levels`). Where the chain can return to a
state (a reroll that can show its own face again, no cap), its cycles are solved by elimination,
which costs about 1 + n / (K + 1) times the walk; where the check reads a pool's history, the
states of different first rolls are never merged: each first roll's own chain is counted.

Measured against the units the exact evaluation really charges (`exact_distribution` on a
fresh `Work`, one policy at a time; d6, d10 and d20 pools of 1-12 dice, and of up to 100 where
cheap; the check reading the pool's sum, or a count, which merges faces into fewer kinds), the
estimate over the real work, where that is 5,000 units or more (below it nothing is left out):

    triggers ("D" the die's top face)                 dice        always   never    optimal
    on D, must add (explode), no cap                  d6-d20 2-30  1.4-3.6
    on D, must add, cap 10 / cap 3                    d6-d20 2-100 1.5-3.4
    on D, must add, reading first_roll/added_dice     d6-d20 1-6   1.2-4.1
    on D, must add, cap 10, reading rerolled_dice     d6 3-8       1.5-2.0
    on 1, must reroll (again: the chain cycles)       d6-d20 3-30  1.2-2.7
    on 1, must reroll, repeat: false                  d6-d20 3-100 1.0-2.8
    on 1, must reroll, target D/3 highest, per_die 2  d6-d20 3-50  2.2-4.2
    on low third, may reroll, repeat: false           d6-d20 2-12  1.0-1.4  1.0-1.6  0.8-2.1
      the same, reading first_roll                    d6-d20 2-8   1.9-3.9  0.7-1.4  2.5-5.1
      the same, reading rerolled_dice                 d6 3-8       2.3-3.2  1.3-1.4  3.0-5.0
    on low third, may reroll (again), cap 4           d6-d20 2-12  1.2-2.5  0.8-1.6  0.9-3.6
    on D, may reroll a low die (target)               d6-d20 3-50  2.9-4.3  1.1-3.7  1.2-3.0
    on D may reroll low, on 1 must reroll high        d6-d20 3-20  2.2-3.2  1.3-3.0  1.1-2.4
    on D, may add, cap 5                              d6-d20 2-12  1.8-3.2  1.4-2.7  1.4-2.8
    a rote: on D must add, low must reroll once       d6-d20 1-12  0.8-5.5
    each_die: on D, must add (a fold over totals)     d6 1-12      1.1-2.9

The old estimate (m² · 10 units, m the multisets of the kinds) was 0.002 to 50,000 times the
work: 13 times at 5 d6 that explode under a cap of 10 (636,000 units for 49,000 done, over the
250,000 of one combination), a fifth for a rote, a five-hundredth for `each_die`. Now, of the
777 measurements above (a policy each), the median is 1.7 and 96% are within 1-4; 21 are
below 1, the least 0.7 (`never` where the first roll is read; a rote of 2 d20 read as a sum, 0.8
at 356,000 units done; 4 d20 that may reroll, under `optimal`, 0.8); 11 are above 4, at most 5.5
(a rote of 10-12 dice, a million units and more, left out either way; a history read under
`optimal`, which splits the states more than the kinds tell).

`chain_units` is the estimate for one policy; `own_die` sizes a die of an `each_die` pool.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

from ...model.ruleset import endless_steps
from ...runtime.procedure import Procedure
from ...runtime.work import TRANSITION
from .evaluate import FIRST_DEPTH, TAIL, deeper

UNIT = 2 * TRANSITION
"""Units the solver charges per node of a chain (a flight's landing, a state passed on)."""
MOST = 1e15
"""Where an estimate stops growing (a float, never an overflow)."""
_LOG_MOST = math.log(MOST)


def chain_units(proc: Procedure, n: int, policy: str, max_rerolls: int) -> float:
    """Estimated units of solving the procedure of `n` dice exactly under `policy`."""
    steps = _acting(proc, policy)
    kinds = len(proc.kinds)
    # making the procedure reads every face through every trigger, and every first roll is listed
    fixed = sum(proc.weights) * (1 + len(proc.steps)) + _multisets(n, kinds)
    if n <= 0:  # no die: nothing is solved
        return 0.0
    if not steps:  # nothing acts: each first roll is looked at once
        return min(MOST, fixed + UNIT * _multisets(n, kinds))
    fields = kinds + _extra(proc, steps, policy)
    levels, cycles = _levels(proc, steps, n, max_rerolls)
    adds = any(proc.pool.triggers[t].action == "add" for t in steps)
    kept = proc.keeps  # the first roll, the dice added, the dice rerolled away
    if kept[2] and not all(proc.pool.triggers[t].action == "add" for t in steps):
        # the dice rerolled away, up to as many as can be, of the kinds a reroll takes: apart
        # from every state (the layers of a cap tell how many already)
        most = _most(proc, steps, n)
        cycles *= _multisets(most, _moved(proc, steps) + 1) / (most + 1 if proc.pool.cap is not None else 1)
    if kept[0] or (kept[1] and adds):  # the first roll (the dice added tell it: the rest is it)
        nodes = _unmerged(proc, steps, n, fields)
    else:
        # C(n + F, F) is C(n + F - 1, F - 1) states times (n + F) / F; a flight holds no more
        # dice than a cap lets roll at once, so under a cap smaller than the pool, fewer flights
        air = proc.pool.cap if proc.pool.cap is not None else n
        nodes = _multisets(n, fields) * min((n + fields) / fields, 1 + air)
    return min(MOST, fixed + UNIT * levels * nodes * cycles)


def own_die(proc: Procedure, max_rerolls: int) -> tuple[float, int]:
    """(estimated units, the most dice it can add) of solving one die of an `each_die` pool: its
    totals run from its least face to its greatest times one more than that."""
    steps = _acting(proc, "always")
    units = chain_units(proc, 1, "always", max_rerolls)
    if not any(proc.pool.triggers[t].action == "add" for t in steps):
        return units, 0
    cap = proc.pool.cap
    if cap is not None:
        return units, cap
    adds = [t for t in endless_steps(proc.pool.triggers, steps) if proc.pool.triggers[t].action == "add"]
    if adds:
        return units, _depths(proc, adds, steps, 1, max_rerolls)[-1]
    return units, sum(proc.steps[t].per_die for t in steps)


def _acting(proc: Procedure, policy: str) -> list[int]:
    """The steps that can act under `policy`: under `never`, no `may` step does."""
    return [t for t in sorted(proc.acting) if policy != "never" or proc.steps[t].must]


def _extra(proc: Procedure, steps: list[int], policy: str) -> int:
    """How many fields a state keeps past the counts of its kinds that the counts (and the dice
    used) do not tell: each a kind more in the count of states."""
    extra = 0
    chooses = policy == "optimal"
    for t in steps:
        step = proc.steps[t]
        on = sum(1 for k in proc.kinds if k.on[t])
        partial = chooses and not step.must and not step.whole  # the player may leave some
        if step.action == "add":
            # the dice used tell how many of one kind were used, not of a second; nor of one
            # where other steps use the cap too; the dice a player adds vary as a field does
            extra += on - 1 + (len(steps) > 1) + partial
        elif not step.self_target or partial:
            extra += on  # the dice that set it off stay, with the step used or not
        elif proc.pool.triggers[t].first_roll_only and len(steps) > 1:
            extra += on  # dice the other steps roll do not hold it, first-rolled ones do
    for k in proc.kinds:  # a die that holds several steps may have used one and not another
        extra += max(0, sum(1 for t in steps if k.on[t]) - 1)
    return extra


def _levels(proc: Procedure, steps: list[int], n: int, max_rerolls: int) -> tuple[float, float]:
    """(layers of the chain, the factor of solving its cycles): one layer per count of dice used
    under a cap, each depth an uncapped explosion is solved to adding its own."""
    triggers = proc.pool.triggers
    endless = endless_steps(triggers, steps)
    cap = proc.pool.cap
    if cap is not None:
        return _most(proc, steps, n) + 1.0, 1.0
    adds = [t for t in endless if triggers[t].action == "add"]
    if adds:
        return float(sum(d + 1 for d in _depths(proc, adds, steps, n, max_rerolls))), 1.0
    if any(triggers[t].action == "reroll" and proc.steps[t].self_target for t in endless):
        return 1.0, 1.0 + n / (len(proc.kinds) + 1)
    return 1.0, 1.0


def _most(proc: Procedure, steps: list[int], n: int) -> int:
    """The most dice the steps can reroll or add under the pool's cap (that many past `n` dice
    without one, when they cannot go on for ever: each die may set off each step once)."""
    cap = proc.pool.cap
    if cap is not None and endless_steps(proc.pool.triggers, steps):
        return cap
    most = n * math.prod(1 + proc.steps[t].per_die for t in steps) - n
    return most if cap is None else min(cap, most)


def _depths(proc: Procedure, adds: list[int], steps: list[int], n: int, max_rerolls: int) -> tuple[int, ...]:
    """The depths the exact evaluator solves an uncapped explosion to (`Sequential.fresh`), for
    dice that each add `per_die` dice when they show a face the adding steps are on. The other
    steps' rerolls count against the depth too, and their dice may add: as many as all the dice
    may make, so that the depths come out no shallower than the evaluator's."""
    faces = sum(proc.weights)
    on = sum(w for k, w in zip(proc.kinds, proc.weights) if any(k.on[t] for t in adds))
    grows = max(proc.steps[t].per_die for t in adds)
    spent = sum(n * proc.steps[t].per_die for t in steps if t not in adds)
    return _schedule(n, spent, on / faces, grows, max_rerolls)


@lru_cache(maxsize=1024)
def _schedule(n: int, spent: int, q: float, grows: int, max_rerolls: int) -> tuple[int, ...]:
    """From `FIRST_DEPTH`, deeper (`deeper`) while the chance the explosion is cut is over `TAIL`
    (kept: every combination of a check with as many dice asks the same)."""
    out: list[int] = []
    depth = FIRST_DEPTH
    while True:
        depth = min(depth, max_rerolls)
        out.append(depth)
        if depth >= max_rerolls:
            return tuple(out)
        cut = _cut(depth - spent, n + spent, q, grows)
        if cut <= TAIL:
            return tuple(out)
        depth = deeper(depth, Fraction(cut))


def _cut(room: float, n: int, q: float, grows: int) -> float:
    """The chance that `n` dice, each adding `grows` dice with chance `q` (and so each added die),
    add more than `room` dice in all: the total number of dice that add is j with chance
    n/N · C(N, j) q^j (1-q)^(N-j), N = n + grows·j (the hitting-time theorem). Where the dice
    add that many on average, or without end, a half: a chance that large sends the evaluator
    four times as deep, as it does."""
    if q <= 0 or n <= 0:
        return 0.0
    first = max(0, int(room)) // grows + 1
    if room < 0 or q * grows >= 1 or first <= n * q / (1 - q * grows):
        return 0.5
    lq, lp = math.log(q), math.log1p(-q)
    total = 0.0
    for j in range(first, first + 10_000):  # past the mean: each term smaller than the last
        dice = n + grows * j
        term = math.exp(math.log(n / dice) + _lcomb(dice, j) + j * lq + (dice - j) * lp)
        total += term
        if term < 1e-30 or term < total * 1e-12:
            break
    return min(1.0, total)


def _unmerged(proc: Procedure, steps: list[int], n: int, fields: int) -> float:
    """The nodes of a chain whose states keep the first roll (a history read): each first roll's
    own chain, of the dice its steps can move (those on a kind a step is on or aims at), apart."""
    moved = _moved(proc, steps)
    still = len(proc.kinds) - moved
    if n > 200:  # too many first rolls to sum over: every one with every die moving
        return _multisets(n, len(proc.kinds)) * _multisets(n, fields + 1)
    total = 0.0
    for r in range(n + 1):
        rolls = _multisets(r, moved) * (_multisets(n - r, still) if still else float(r == n))
        total += rolls * _multisets(r, fields + 1)
    return min(MOST, total)


def _moved(proc: Procedure, steps: list[int]) -> int:
    """How many kinds the steps can move a die of: those a step is on or aims at."""
    return sum(1 for k in proc.kinds if any(k.on[t] or k.target[t] for t in steps))


def _multisets(n: int, kinds: int) -> float:
    """Multisets of `n` over `kinds` kinds, C(n + kinds - 1, kinds - 1), as a float up to `MOST`."""
    if kinds <= 0:
        return float(n == 0)
    return math.exp(min(_LOG_MOST, _lcomb(n + kinds - 1, kinds - 1)))


def _lcomb(n: int, k: int) -> float:
    """The natural log of C(n, k)."""
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
