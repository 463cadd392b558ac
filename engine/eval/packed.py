"""Best play and the push under it on a reroll chain of `Packing` codes, each node's moves worked
out in place.

`markov.BestPlay` scores any chain: it asks the chain for each node (a call, and a tuple made)
and keeps a stack of its own; `markov.pushed` asks again for each node the mass reaches. On a
reroll chain the answers are `Packing`'s: a flight's successors are its code plus a few numbers
kept per flight field (`Packing.flight_deltas`), a state's are `Packing.moves_in`'s. Here they are
worked out in place, and a node is scored where its score is first read (`_Scores`), so reading
a node's successors' scores is one look-up each whether they are scored yet or not (a state's in
one call into C; a flight's in a list display written out for its number of kinds, `reads`), and
the stack is Python's own, `DEEP` levels at most (deeper, `BestPlay`'s own loop goes on). The
arithmetic, the order the nodes are scored in, the choices and the work charged are those of
`BestPlay`, `pushed` and `RerollSolver._node`: the same exact results and the same states
counted (tests/test_reroll_solver.py holds them to the reference; tests/test_chain_arrays.py to
the numpy solver, which restates the same rules).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Sequence
from operator import mul
from types import FrameType
from typing import TYPE_CHECKING, Any

from ..runtime.procedure import Option
from ..runtime.work import TRANSITION
from .dist import Dist
from .markov import RESCALE, BestPlay, Node, multiply, rescale_units

if TYPE_CHECKING:
    from .rerolls import RerollSolver

DEEP = 200
"""How many nodes deep best play scores by recursion (`_Scores`): Python's stack, a frame in C
and one in Python per node, is not for a chain a thousand nodes deep (a die added for each six up
to a cap of a thousand); past this depth `BestPlay`'s loop, over a stack of its own, scores on
(the benchmark's pool of 20 d10 is about 40 deep). Fewer where the stack has less room (`room`)."""

LEVEL = 4
"""Units of Python's recursion limit one level of `_Scores` may take (its frame, and the call
from C that reads a score: 2 measured at a state; 3 at a flight, whose successors' scores are
read inside a list display of its own, `reads`)."""

LEFT = 250
"""Units of the recursion limit left below the deepest level: for what scoring an end runs (the
rest of the check, whose own pools' solves count their room from where they start)."""


def room() -> int:
    """How many levels best play may score by recursion from here, at most `DEEP`: what the
    recursion limit leaves above the frames already on the stack (two units each, as they may
    have been called from C), less `LEFT`. A solve started while another scores an end (the
    check's next pool, under `optimal`) so takes only the room that one left."""
    frames = 0
    frame: FrameType | None = sys._getframe()
    while frame is not None:
        frames += 1
        frame = frame.f_back
    return max(0, min(DEEP, (sys.getrecursionlimit() - 2 * frames - LEFT) // LEVEL))


Reads = Callable[[int, Sequence[int], Callable[[int], Any]], list[Any]]
"""`(code, deltas, read)` to `[read(code + d) for d in deltas]`: a flight's successors' scores."""


def _read_all(code: int, deltas: Sequence[int], read: Callable[[int], Any]) -> list[Any]:
    return [read(code + d) for d in deltas]


_WRITTEN: tuple[Reads, ...] = (
    lambda c, d, r: [],
    lambda c, d, r: [r(c + d[0])],
    lambda c, d, r: [r(c + d[0]), r(c + d[1])],
    lambda c, d, r: [r(c + d[0]), r(c + d[1]), r(c + d[2])],
    lambda c, d, r: [r(c + d[0]), r(c + d[1]), r(c + d[2]), r(c + d[3])],
    lambda c, d, r: [r(c + d[0]), r(c + d[1]), r(c + d[2]), r(c + d[3]), r(c + d[4])],
    lambda c, d, r: [r(c + d[0]), r(c + d[1]), r(c + d[2]), r(c + d[3]), r(c + d[4]), r(c + d[5])],
    lambda c, d, r: [
        r(c + d[0]), r(c + d[1]), r(c + d[2]), r(c + d[3]), r(c + d[4]), r(c + d[5]), r(c + d[6])
    ],
    lambda c, d, r: [
        r(c + d[0]), r(c + d[1]), r(c + d[2]), r(c + d[3]), r(c + d[4]), r(c + d[5]), r(c + d[6]),
        r(c + d[7]),
    ],
)  # fmt: skip


def reads(n: int) -> Reads:
    """`[read(code + d) for d in deltas]` for `n` deltas, written out as a list display up to
    eight (as `packing.sums`, and for the same reason): a flight's successors' scores, each
    scored first where it is not yet, in the order of its kinds. Its successors themselves are
    made only for `BestPlay._mixed` (a score of several parts, or a scale that must grow)."""
    return _WRITTEN[n] if n < len(_WRITTEN) else _read_all


UNIT = 2 * TRANSITION
"""Units charged per move listed (`RerollSolver._node`'s charge)."""


class _Scores(dict[int, Any]):
    """Best play's scores by code, each scored where it is first read while a solve runs
    (`PackedPlay._solved` sets `ctx`; otherwise a plain dictionary, a code not scored a
    `KeyError`). A state being scored is kept in `BestPlay._busy` meanwhile (the set its own loop
    marks), so a chain that returns to it is refused (RC505, `BestPlay.on_cycle`) where it is
    first read again: kept as None here, it was read as a score, and the state's other options
    were scored before the refusal (hypothesis found 4 nodes scored and 224 units charged where
    `BestPlay` took 2 and 48). About as soon as `BestPlay`, not always at the same node: a
    flight's landings are read together, so one scored before the one that returns may be
    charged where `BestPlay`, which marks flights too, stops first (16 units more in one case
    found). A flight needs no mark, as every cycle passes through a state (a flight's dice only
    fall)."""

    __slots__ = ("ctx", "depth")
    ctx: tuple[Any, ...]
    """What scoring a node reads (`PackedPlay._solved`), present while a solve runs."""
    depth: int
    """How many nodes are being scored by recursion now."""

    def __missing__(self, code: int) -> Any:
        try:
            (
                play, packing, flying, high, mask, landing, weights, faces, whole, walked, work,
                read, moves, through, order, most, pending, moves_in, movings, policy, reading, busy,
            ) = self.ctx  # fmt: skip
        except AttributeError:  # no solve running
            raise KeyError(code) from None
        if code in busy:  # a state being scored: the chain returns to it
            raise play.on_cycle(code)
        depth = self.depth
        if depth > DEEP:
            return BestPlay._solved(play, code)
        self.depth = depth + 1
        if code >= flying:  # a flight: its next die falls, one way per kind
            top = (code >> high) & mask
            deltas = landing.get(top) or packing.flight_deltas(top)
            if code not in walked:
                work.charge(UNIT)
            rescaled = play._rescaled
            scores = reading(code, deltas, read)  # each scored first where it is not yet
            if play._rescaled != rescaled:  # the scale grew meanwhile: the first ones read again
                scores = reading(code, deltas, read)
            if whole:
                value, left = divmod(sum(map(mul, scores, weights)), faces)
                if left:
                    value = play._mixed(packing.landed(code, deltas), scores, weights, faces)
            else:
                value = play._mixed(packing.landed(code, deltas), scores, weights, faces)
        else:
            t = pending(code)
            if t is None:  # the end of the procedure
                value = play._end(code)
            else:
                options, successors = moves_in(movings[t], code, t, policy)
                if len(options) > 1 or code not in walked:
                    work.charge(UNIT * len(options))
                busy.add(code)  # being scored
                rescaled = play._rescaled
                scores = list(map(read, successors))
                if play._rescaled != rescaled:
                    scores = list(map(read, successors))
                busy.discard(code)
                value = max(scores)
                at = scores.index(value)  # ties keep the earlier option
                to = successors[at]
                moves[code] = options[at]
                through[code] = to if to >= flying else through.get(to, to)  # a flight is no choice
        self.depth = depth
        self[code] = value
        order.append(code)
        # the states being scored counted too (`BestPlay` counts its flights being scored as well:
        # at most the depth more, and all of them scored in the end, so a bound refuses alike)
        n = len(self) + len(busy)
        if n > most:
            play.count(n)
        return value


class PackedPlay(BestPlay[int, Option]):
    """`BestPlay` on a reroll solver's chain, its nodes read off their codes (the module's note).
    `node` is still asked past `DEEP` levels, where `BestPlay`'s own loop scores."""

    def __init__(
        self,
        solver: RerollSolver,
        node: Callable[[int], Node | None],
        final: Callable[[int], Dist],
        score: Callable[[Dist], tuple[Any, ...]],
        count: Callable[[int], None],
        on_cycle: Callable[[int], Exception],
        most: int = 0,
    ) -> None:
        super().__init__(node, final, score, count, on_cycle, most)
        self.solver = solver
        self._values: _Scores = _Scores()

    def score_from(self, code: int, levels: int) -> None:
        """Score `code` (not scored yet) and all it leads to, by recursion at most `levels` deep
        (`room()`, worked out once by a caller that asks from the same depth again and again),
        inside a solve that has paused the cycle collector already (`best` pauses it for each
        choice it is asked about)."""
        self._solved(code, levels)

    def _solved(self, root: int, levels: int | None = None) -> Any:
        solver = self.solver
        packing = solver.packing
        values = self._values
        weights = solver.proc.weights
        values.depth = DEEP - (room() if levels is None else levels)
        values.ctx = (
            self, packing, packing.flying, packing.flight_shift, packing.flight_mask,
            packing.landing_table, weights, sum(weights), solver.whole_scores, solver.walked,
            solver.work, values.__getitem__, self._moves, self._through, self.order, self.most,
            packing.pending, packing.moves_in, packing.movings(solver.policy), solver.policy,
            reads(len(weights)), self._busy,
        )  # fmt: skip
        try:
            return values[root]
        except BaseException:  # a limit, or a cycle: nothing is being scored any more
            self._busy.clear()
            raise
        finally:
            del values.ctx  # the context holds the scores (a cycle reference counting frees)


def pushed(solver: RerollSolver, starts: Dist, above: list[int], end: Callable[[int], Hashable]) -> Dist:
    """`markov.pushed` under best play on the solver's chain: from the first rolls `starts`, the
    nodes above best play (`above`, each after every node it leads to, those best play scored
    left out) and then best play's own (its `order` read backwards), a flight's mass landing where
    its die falls and, from its last die, on where best play goes from there (`through`), a
    choice's going where best play takes it. A flight best play scored is charged again, and a
    choice mass reaches from above (as `RerollSolver._played` charged them in `pushed`)."""
    play, packing, policy = solver.play, solver.packing, solver.policy
    flying, high, mask = packing.flying, packing.flight_shift, packing.flight_mask
    landing, last = packing.landing_table, packing.last_die_below
    pending, moves_in, movings = packing.pending, packing.moves_in, packing.movings(policy)
    thru = play.through.get
    weights = solver.proc.weights
    faces = sum(weights)
    work = solver.work
    scale = starts.total
    mass: dict[int, int] = dict(starts.weights)
    pop, get = mass.pop, mass.get
    ends: dict[int, int] = {}
    for part, scored in ((above, False), (reversed(play.order), True)):
        for s in part:
            num = pop(s, None)
            if not num:
                continue
            if s >= flying:
                if scored:
                    work.charge(UNIT)
                top = (s >> high) & mask
                deltas = landing.get(top) or packing.flight_deltas(top)
                share, left = divmod(num, faces)
                if left:  # the scale takes on powers of the faces first (`pushed`)
                    factor = faces**RESCALE
                    work.charge(rescale_units(mass, scale, factor) + rescale_units(ends, scale, factor))
                    scale *= factor
                    multiply(mass, factor)
                    multiply(ends, factor)
                    share = num * factor // faces
                if top < last:  # the last die: where it falls best play may choose
                    for d, w in zip(deltas, weights):
                        t = s + d
                        t = thru(t, t)
                        mass[t] = get(t, 0) + share * w
                else:
                    for d, w in zip(deltas, weights):
                        t = s + d
                        mass[t] = get(t, 0) + share * w
                continue
            to = thru(s)
            if to is not None:  # a choice (a first roll: one reached by a landing is passed over)
                work.charge(UNIT)
            else:
                u = pending(s)
                if u is None:
                    ends[s] = ends.get(s, 0) + num
                    continue
                to = moves_in(movings[u], s, u, policy)[1][0]  # a state above: one option
            mass[to] = get(to, 0) + num
    by_end: dict[Hashable, int] = {}
    for s, num in ends.items():
        key = end(s)
        by_end[key] = by_end.get(key, 0) + num
    return Dist.lowest(by_end, scale)
