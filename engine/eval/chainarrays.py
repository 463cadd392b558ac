"""A reroll chain solved whole with numpy: its nodes listed a layer at a time, best play and the
push as operations on arrays.

`RerollSolver.ends` asks this module first for a chain of many first rolls (`ARRAYS_FROM`) when
numpy is installed (the `fast` extra). The rules are still `Packing`'s: a flight's landings, a
state's pending step and its options (`Packing.field_moves`) are asked of one state of each kind
met, and applied to every alike state at once as the difference of their fields (the acting
step's own unused triggers, which a launch spends, cleared on the whole layer). What is restated here
is the arithmetic of `markov.BestPlay` and `markov.pushed` — a chance node's weighted sum over
one scale, a choice's first best option, the mass pushed down — on whole layers, in whole numbers
(numpy's object arrays of Python ints: exact). `tests/test_chain_arrays.py` holds the results,
the states counted and the work charged to the node-by-node solver on random procedures.

A node's code here is its fields alone (`Packing.spread` divided out), so it fits numpy's 64 bits:
a chain whose fields do not (`MAX_BITS`), a pool with a cap (whose pending step reads the dice
used), one whose states cost work to unpack, and a chain that can return to a state are left to
the node-by-node solver. Numbers here are exact: the arrays hold
whole numbers, compared and summed as Python compares and sums them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..runtime.work import TRANSITION, meter
from .dist import Dist
from .markov import RESCALE

if TYPE_CHECKING:
    from .rerolls import RerollSolver

Ints = Any
"""A numpy array of int64 (node ids, fields, counts)."""

MAX_BITS = 62
"""The most bits a node's fields may take here (numpy's int64, with room for a difference)."""
FAR = 1 << 40
"""More options than any state lists (a stand-in position where an option is not the best)."""


def eligible(solver: RerollSolver) -> bool:
    """Whether this module can solve the solver's chain (see the module's note)."""
    packing = solver.packing
    return solver.proc.cap is None and packing.unit_cost == 0 and packing.field_bits <= MAX_BITS


class _Chain:
    """The chain's nodes by id (ids in the order they are found: the first rolls first, sorted)
    and their successors: flights' one per kind, states' one per option, as flat arrays."""

    def __init__(
        self,
        firsts: int,
        nodes: int,
        fields: Ints,
        flights: tuple[Ints, Ints],
        states: tuple[Ints, Ints, Ints],
        ends: Ints,
    ) -> None:
        self.firsts = firsts
        self.nodes = nodes
        self.fields = fields
        self.flights, self.landed = flights
        self.states, self.options, self.moved = states
        self.ends = ends
        self.first = np.cumsum(self.options) - self.options
        """Per state, where its options start in `moved`."""
        self.kind = np.zeros(nodes, np.int8)  # 0 an end, 1 a flight, 2 a state with options
        self.row = np.zeros(nodes, np.int64)
        self.kind[self.flights] = 1
        self.row[self.flights] = np.arange(self.flights.size)
        self.kind[self.states] = 2
        self.row[self.states] = np.arange(self.states.size)

    def successors(self, nodes: Ints) -> Ints:
        """Every successor of `nodes`, with repeats."""
        kind = self.kind[nodes]
        parts = [self.landed[self.row[nodes[kind == 1]]].ravel()]
        rows = self.row[nodes[kind == 2]]
        parts.append(self.moved[_ranges(self.first[rows], self.options[rows])[0]])
        return np.concatenate(parts)


def _ranges(starts: Ints, counts: Ints) -> tuple[Ints, Ints]:
    """The indices start_i … start_i + count_i − 1 for every i, in a row, and each one's place in its run."""
    total = int(counts.sum())
    pos = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    return np.repeat(starts, counts) + pos, pos


def _distinct(a: Ints) -> Ints:
    """The distinct values of `a`, sorted (numpy's `unique` imports `numpy.ma` the first time)."""
    a = np.sort(a)
    keep = np.empty(a.size, bool)
    keep[:1] = True
    np.not_equal(a[1:], a[:-1], out=keep[1:])
    return a[keep]


def _grouped(a: Ints) -> tuple[Ints, Ints, Ints]:
    """The distinct values of `a` (sorted), where each is first met, and each element's value's index."""
    perm = np.argsort(a, kind="stable")
    s = a[perm]
    keep = np.empty(a.size, bool)
    keep[:1] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    where = np.empty(a.size, np.int64)
    where[perm] = np.cumsum(keep) - 1
    return s[keep], perm[keep], where


def solve(solver: RerollSolver, starts: Dist, end: Callable[[int], Hashable]) -> Dist | None:
    """`RerollSolver.ends` from the first rolls `starts` (codes): where the chain ends, or None
    when it can return to a state (the work this charged is taken back: the node-by-node solver
    charges it again)."""
    work = meter()
    charged = work.used
    chain = _listed(solver, starts)
    layers = _layers(chain)
    if layers is None:
        work.used = charged
        return None
    if solver.policy == "optimal":
        chosen, scored = _best(solver, chain, layers)
    else:
        chosen, scored = chain.moved[chain.first], np.zeros(chain.nodes, bool)
    return _pushed(solver, chain, layers, starts, chosen, scored, end)


def _listed(solver: RerollSolver, starts: Dist) -> _Chain:
    """Every node the chain reaches from `starts`, a layer of newly found nodes at a time. Work is
    charged as the node-by-node solver charges a node listed (a flight, or a state per option).
    States are counted as it counts them: under a fixed policy the flights and ends, here; under
    `optimal` at most twice `max_states` nodes here, and its two counts exactly in `_best`."""
    packing, policy = solver.packing, solver.policy
    work = meter()
    spread, shift = packing.spread, packing.flight_shift
    flying = 1 << shift
    kinds = len(solver.proc.weights)
    known = _distinct(np.array([c // spread for c in starts.weights], np.int64))
    firsts = known.size
    ids = np.arange(firsts, dtype=np.int64)
    found, frontier, frontier_ids = [known], known, ids
    nodes = known.size
    counted = 0  # flights and ends: what the node-by-node solver counts under a fixed policy
    flights: list[Ints] = []
    landed: list[Ints] = []
    states: list[Ints] = []
    options: list[Ints] = []
    moved: list[Ints] = []
    ends: list[Ints] = []
    landings: dict[int, Ints] = {}
    moves: dict[tuple[int, int], tuple[int, ...]] = {}
    most = solver.max_states
    while frontier.size:
        work.check_clock()  # a layer's arrays are charged in one sum: the deadline is looked at here
        reached: list[Ints] = []
        flight = frontier >= flying
        if flight.any():
            fl, at = frontier[flight], frontier_ids[flight]
            work.charge(2 * TRANSITION * int(fl.size))
            tops, _, which = _grouped(fl >> shift)
            table = []
            for top in tops.tolist():
                deltas = landings.get(top)
                if deltas is None:  # one flight of each kind asked: the rest land alike
                    code = (top << shift) * spread
                    deltas = landings[top] = np.array(
                        [(c - code) // spread for c in packing.landings(code)], np.int64
                    )
                table.append(deltas)
            flights.append(at)
            reached.append((fl[:, None] + np.stack(table)[which]).ravel())
            counted += fl.size
        st, at = frontier[~flight], frontier_ids[~flight]
        step = np.full(st.shape, -1, np.int64)
        for t, row in packing.pending_rows:
            step[(step < 0) & ((st & row) != 0)] = t
        ends.append(at[step < 0])
        counted += int((step < 0).sum())
        for t, row in packing.pending_rows:
            here = step == t
            if not here.any():
                continue
            s_t, id_t = st[here], at[here]
            keys, first, which = _grouped(s_t & packing.move_reads(t, policy))
            lists: list[tuple[int, ...]] = []
            for key, one in zip(keys.tolist(), s_t[first].tolist()):
                shifts = moves.get((t, key))
                if shifts is None:  # one state of each kind asked: alike states move alike
                    shifts = moves[(t, key)] = packing.field_moves(one * spread, t, policy)[1]
                lists.append(shifts)
            sizes = np.array([len(x) for x in lists], np.int64)
            flat = np.array([d for x in lists for d in x], np.int64)
            count = sizes[which]
            work.charge(2 * TRANSITION * int(count.sum()))
            index, _ = _ranges((np.cumsum(sizes) - sizes)[which], count)
            states.append(id_t)
            options.append(count)
            reached.append(np.repeat(s_t - (s_t & row), count) + flat[index])  # the step's triggers spent
        if solver.policy != "optimal" and counted > most:
            solver.count_states(counted)
        if not reached:
            break
        every = np.concatenate(reached)
        distinct, _, which = _grouped(every)
        place: Ints = np.searchsorted(known, distinct)
        hit = place < known.size
        hit[hit] = known[place[hit]] == distinct[hit]
        got = np.empty(distinct.size, np.int64)
        got[hit] = ids[place[hit]]
        new = distinct[~hit]
        got[~hit] = new_ids = np.arange(nodes, nodes + new.size, dtype=np.int64)
        nodes += new.size
        if policy == "optimal" and nodes > 2 * most:  # above it in the walk or in best play (`_best`)
            solver.count_states(nodes)
        into = np.searchsorted(known, new)
        known, ids = np.insert(known, into, new), np.insert(ids, into, new_ids)
        to = got[which]
        at_ = 0
        parts = iter(reached)
        if flight.any():
            part = next(parts)
            landed.append(to[at_ : at_ + part.size].reshape(-1, kinds))
            at_ += part.size
        for part in parts:
            moved.append(to[at_ : at_ + part.size])
            at_ += part.size
        found.append(new)
        frontier, frontier_ids = new, new_ids

    def joined(xs: list[Ints], shape: tuple[int, ...] = (0,)) -> Ints:
        return np.concatenate(xs) if xs else np.zeros(shape, np.int64)

    return _Chain(
        firsts,
        nodes,
        np.concatenate(found),
        (joined(flights), joined(landed, (0, kinds))),
        (joined(states), joined(options), joined(moved)),
        joined(ends),
    )


def _layers(chain: _Chain) -> list[Ints] | None:
    """The nodes in layers, each node after every node that leads to it (Kahn's order, a layer
    at a time), or None when some node leads back to itself."""
    waiting = np.bincount(np.concatenate([chain.landed.ravel(), chain.moved]), minlength=chain.nodes)
    ready = np.flatnonzero(waiting == 0)
    layers = []
    placed = 0
    work = meter()
    while ready.size:
        work.check_clock()
        layers.append(ready)
        placed += ready.size
        after = chain.successors(ready)
        np.subtract.at(waiting, after, 1)
        ready = _distinct(after[waiting[after] == 0])
    return layers if placed == chain.nodes else None


def _best(solver: RerollSolver, chain: _Chain, layers: list[Ints]) -> tuple[Ints, Ints]:
    """Best play: per state, the successor of its first best option (`markov.BestPlay`: a choice
    takes the first option of the highest score, a chance node weighs its successors' scores over
    one scale, grown by powers of its total where a sum does not divide), and which nodes best
    play scores — every node a choice of two or more options leads to, as the node-by-node solver
    scores them (so the same ends are asked for, and the same states counted and work charged)."""
    scored = np.zeros(chain.nodes, bool)
    scored[chain.states[chain.options > 1]] = True
    met = np.zeros(chain.nodes, bool)  # what the walk above best play comes to
    met[: chain.firsts] = True
    for layer in layers:
        here = layer[scored[layer]]
        if here.size:
            scored[chain.successors(here)] = True
        above = layer[~scored[layer]]
        if above.size:
            met[chain.successors(above)] = True
    # the node-by-node solver counts the nodes best play scores, and apart from them the nodes
    # its walk comes to above them; a choice the walk meets after best play has scored it is not
    # counted there again, which depends on the walk's order: this counts every choice it meets
    solver.count_states(max(int(scored.sum()), int((met & scored).sum() + (~scored).sum())))
    faces = sum(solver.proc.weights)
    weights = np.array(solver.proc.weights, dtype=object)[None, :, None]
    parts = solver.objective.parts(solver.members)
    value = np.zeros((chain.nodes, parts), dtype=object)  # scores, part by part, over the scale
    ends = chain.ends[scored[chain.ends]]
    scale = 1
    scores = [solver.end_score(fields * solver.packing.spread) for fields in chain.fields[ends].tolist()]
    for score in scores:
        for f in score:
            scale = math.lcm(scale, f.denominator)
    if scores:
        value[ends] = [[f.numerator * (scale // f.denominator) for f in score] for score in scores]
    chosen = chain.moved[chain.first]
    work = meter()
    for layer in reversed(layers):
        work.check_clock()
        here = layer[scored[layer]]
        if not here.size:
            continue
        kind = chain.kind[here]
        fl = here[kind == 1]
        if fl.size:
            below = value[chain.landed[chain.row[fl]]]
            while True:
                total = (below * weights).sum(axis=1)
                share = total // faces
                if not (total - share * faces).any():
                    break
                factor = faces**RESCALE  # the scale grows: every score kept, and these, with it
                value *= factor
                below = below * factor
            value[fl] = share
        st = here[kind == 2]
        if st.size:
            rows = chain.row[st]
            count = chain.options[rows]
            index, place = _ranges(chain.first[rows], count)
            options = value[chain.moved[index]]
            starts = np.cumsum(count) - count
            best = np.ones(index.size, bool)  # the options still best, compared part by part
            for part in range(parts):
                column = np.where(best, options[:, part], -1)  # every score is at least 0
                best &= column == np.repeat(np.maximum.reduceat(column, starts), count)
            at = starts + np.minimum.reduceat(np.where(best, place, FAR), starts)
            value[st] = options[at]
            chosen[rows] = chain.moved[index[at]]
    return chosen, scored


def _pushed(
    solver: RerollSolver,
    chain: _Chain,
    layers: list[Ints],
    starts: Dist,
    chosen: Ints,
    scored: Ints,
    end: Callable[[int], Hashable],
) -> Dist:
    """`markov.pushed` on whole layers: the first rolls' mass pushed down the chain along best
    play's (or the policy's) option, whole numbers over one scale (grown by powers of a flight's
    total where a mass does not divide), gathered at the ends. Under `optimal` the node-by-node
    solver charges a move again for each node best play scored that mass reaches: so here."""
    faces = sum(solver.proc.weights)
    weights = np.array(solver.proc.weights, dtype=object)
    mass = np.zeros(chain.nodes, dtype=object)
    spread = solver.packing.spread
    firsts = chain.firsts
    mass[np.searchsorted(chain.fields[:firsts], [c // spread for c in starts.weights])] = list(
        starts.weights.values()
    )
    scale = starts.total
    # charged again, as the node-by-node push charges them: every scored flight mass reaches,
    # and every scored choice mass reaches from a first roll or from a state above best play
    # (one it reaches from a flight or from another choice it passes over, to where that leads)
    again = np.zeros(chain.nodes, bool)
    again[: chain.firsts] = True
    again &= scored & (chain.kind == 2)
    work = meter()
    for layer in layers:
        work.check_clock()
        held = mass[layer]
        live = held != 0
        here, held = layer[live], held[live]
        if not here.size:
            continue
        kind = chain.kind[here]
        again[here[(kind == 1) & scored[here]]] = True
        fl = kind == 1
        if fl.any():
            on, m = here[fl], held[fl]
            share = m // faces
            if (m - share * faces).any():
                factor = faces**RESCALE
                scale *= factor
                mass *= factor
                m = mass[on]
                share = m // faces
            np.add.at(mass, chain.landed[chain.row[on]].ravel(), (share[:, None] * weights).ravel())
        st = kind == 2
        if st.any():
            on = here[st]
            to = chosen[chain.row[on]]
            np.add.at(mass, to, mass[on])
            to = to[~scored[on]]
            again[to[scored[to] & (chain.kind[to] == 2)]] = True
    work.charge(2 * TRANSITION * int(again.sum()))
    out: dict[Hashable, int] = {}
    last = chain.ends
    for fields, m in zip(chain.fields[last].tolist(), mass[last].tolist()):
        if m:
            key = end(fields * spread)
            out[key] = out.get(key, 0) + m
    common = math.gcd(scale, *out.values())
    return Dist({k: n // common for k, n in out.items()}, scale // common)
