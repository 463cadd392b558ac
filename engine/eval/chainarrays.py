"""A reroll chain solved whole with numpy: its nodes listed a layer at a time, best play and the
push as operations on arrays.

`RerollSolver.ends` asks this module first for a chain of many first rolls (`ARRAYS_FROM`) when
numpy can be imported (a dependency; where it cannot, the chain is solved node by node). The rules
are still `Packing`'s: a flight's landings, a state's pending step and its options
(`Packing.field_moves`) are asked of one state of each kind met, and applied to every alike state
at once as the difference of their fields (the acting step's own unused triggers, which a launch
spends, cleared on the whole layer). What is restated here is the arithmetic of `markov.BestPlay`
and `markov.pushed` — a chance node's weighted sum over one scale, a choice's first best option,
the mass pushed down — on whole layers.
`tests/test_chain_arrays.py` holds the results, the states counted and the work charged to the
node-by-node solver on random procedures.

A node's code here is its fields alone (`Packing.spread` divided out), so it fits numpy's 64 bits:
a chain whose fields do not (`MAX_BITS`), a pool with a cap (whose pending step reads the dice
used), one whose states cost work to unpack, and a chain that can return to a state are left to
the node-by-node solver. Numbers here are exact. Best play compares scores, so it keeps them as
whole numbers in numpy's object arrays of Python ints (each sum and product made by Python). The
push only adds and multiplies, and a bound on every mass is known before it starts: it is made in
int64 arrays modulo primes below 2**31, once per prime, and each end's whole number is put together
from its residues (`_residues`).
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
        work.take_back(charged)
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
        work.check_clock()  # a layer's arrays are charged in a few sums: the deadline is looked at here
        reached: list[Ints] = []
        flight = frontier >= flying
        if flight.any():
            fl, at = frontier[flight], frontier_ids[flight]
            work.charge_at_once(2 * TRANSITION * int(fl.size))
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
            # a state has an option at least: charged before they are grouped, the rest once known
            work.charge_at_once(2 * TRANSITION * int(s_t.size))
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
            work.charge_at_once(2 * TRANSITION * (int(count.sum()) - int(s_t.size)))
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
    play's (or the policy's) option and gathered at the ends, exact, in residues (`_residues`).
    Under `optimal` the node-by-node solver charges a move again for each node best play scored
    that mass reaches: so here."""
    faces = sum(solver.proc.weights)
    spread = solver.packing.spread
    at = np.searchsorted(chain.fields[: chain.firsts], [c // spread for c in starts.weights])
    lands = np.array([w > 0 for w in solver.proc.weights])  # a kind no face shows takes no mass
    reached = np.zeros(chain.nodes, bool)
    reached[at] = True
    # charged again, as the node-by-node push charges them: every scored flight mass reaches,
    # and every scored choice mass reaches from a first roll or from a state above best play
    # (one it reaches from a flight or from another choice it passes over, to where that leads)
    again = np.zeros(chain.nodes, bool)
    again[: chain.firsts] = True
    again &= scored & (chain.kind == 2)
    steps: list[tuple[Ints, Ints, Ints, Ints]] = []  # per layer: flights, their landings, states, their moves
    flights = 0  # layers with a flight mass reaches: no path has more flights
    work = meter()
    for layer in layers:
        work.check_clock()
        here = layer[reached[layer]]
        if not here.size:
            continue
        kind = chain.kind[here]
        fl, st = here[kind == 1], here[kind == 2]
        again[fl[scored[fl]]] = True
        landed = chain.landed[chain.row[fl]]
        if fl.size:
            flights += 1
            reached[landed[:, lands]] = True
        to = chosen[chain.row[st]]
        reached[to] = True
        passed = to[~scored[st]]
        again[passed[scored[passed] & (chain.kind[passed] == 2)]] = True
        steps.append((fl, landed.ravel(), st, to))
    work.charge_at_once(2 * TRANSITION * int(again.sum()))
    # The mass at node s is a probability P(s) = N(s) / (starts.total * faces**flights), N(s) a
    # whole number no larger than the denominator: each flight on a path divides by faces once.
    scale = starts.total * faces**flights
    ends = chain.ends[reached[chain.ends]]
    numbers = _residues(
        solver.proc.weights, steps, at, list(starts.weights.values()), ends, flights, scale, chain.nodes
    )
    out: dict[Hashable, int] = {}
    for fields, n in zip(chain.fields[ends].tolist(), numbers):
        key = end(fields * spread)
        out[key] = out.get(key, 0) + n
    return Dist.lowest(out, scale)


MODULUS_BELOW = 1 << 31
"""Primes below this are the push's moduli: a residue times a residue fits numpy's int64."""
SUMS_BELOW = 1 << 63
"""What a node's sum of unreduced addends must stay below (numpy's int64); where it might not, each
addend is reduced first."""
_PRIMES: tuple[int, ...] = ()
"""The largest primes below `MODULUS_BELOW`, in descending order, as many as a push has asked for
(replaced, never changed in place: threads that extend it at once make the same tuple)."""


def _is_prime(n: int) -> bool:
    """Miller–Rabin with the bases 2, 3, 5 and 7, which decide every n below 3,215,031,751."""
    if n < 2 or n % 2 == 0:
        return n == 2
    d, r = n - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    for a in (2, 3, 5, 7):
        if a % n == 0:
            continue
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _moduli(bound: int, faces: int) -> list[int]:
    """Primes below `MODULUS_BELOW`, none dividing `faces`, whose product exceeds `bound`."""
    global _PRIMES
    primes = list(_PRIMES)
    out: list[int] = []
    product = 1
    i = 0
    while product <= bound:
        if i == len(primes):
            n = primes[-1] - 1 if primes else MODULUS_BELOW - 1
            while not _is_prime(n):
                n -= 1
            primes.append(n)
        p = primes[i]
        i += 1
        if faces % p:
            out.append(p)
            product *= p
    if len(primes) > len(_PRIMES):
        _PRIMES = tuple(primes)
    return out


def _residues(
    weights: tuple[int, ...],
    steps: list[tuple[Ints, Ints, Ints, Ints]],
    at: Ints,
    masses: list[int],
    ends: Ints,
    flights: int,
    scale: int,
    nodes: int,
) -> list[int]:
    """N at each of `ends` (see `_pushed`): the push made once per prime modulus in int64 arrays,
    where a flight's division by faces is a product by its inverse, and the whole numbers put
    together from their residues (Chinese remaindering, Garner's mixed radix). Exact, since each
    N is at least 0 and at most `scale`, below the moduli's product; a push over Python's whole
    numbers in object arrays would take each sum and product per element in Python."""
    faces = sum(weights)
    moduli = _moduli(scale, faces)
    edges = sum(landed.size + to.size for _, landed, _, to in steps)
    digits: list[Ints] = []
    work = meter()
    for p in moduli:
        work.check_clock()  # a pass over the layers per prime: the deadline is looked at between them
        inv = pow(faces, -1, p)
        w = np.array([x % p for x in weights], np.int64)
        # a node's sum: its first mass and at most one addend per edge, each below (p - 1) * w
        reduce = edges * (p - 1) * max(int(w.max()), 1) + p >= SUMS_BELOW
        mass = np.zeros(nodes, np.int64)
        mass[at] = [m % p for m in masses]
        for fl, landed, st, to in steps:
            if fl.size:
                share = mass[fl] % p * inv % p
                added = (share[:, None] * w).ravel()
                if reduce:
                    added %= p
                np.add.at(mass, landed, added)
            if st.size:
                np.add.at(mass, to, mass[st] % p)
        x = mass[ends] % p * pow(faces, flights, p) % p
        for d, q in zip(digits, moduli):
            x = (x - d) % p * pow(q, -1, p) % p
        digits.append(x)
    whole = np.zeros(ends.size, dtype=object)
    for d, q in zip(reversed(digits), reversed(moduli)):
        whole = whole * q + d.astype(object)
    numbers: list[int] = whole.tolist()
    return numbers
