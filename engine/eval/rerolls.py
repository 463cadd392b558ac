"""A pool's reroll procedure solved exactly: its `Procedure` (the rules) on the one Markov solver.

The nodes are the procedure's hashable states and its flights (`Procedure.launch`): a state's one
successor is the flight of the option taken, and a flight's successors are how its next die can
fall (`Procedure.land`), one die at a time, so a node has at most as many successors as the pool
has kinds, and every option that leaves the same dice in the air shares one flight (whichever
step rolled them, where they land alike). Under `always` and `never` the policy's single option
is followed and `absorb` walks the chain; under `optimal` each decision is `BestPlay`'s (as
`packed.PackedPlay` works it out on the codes), judged by the check's objective on the outcome the
check gives once the pool is finished (`outcome_of`, later randomizers averaged in), and the ends
are pushed through in the order best play scored its nodes (`packed.pushed`), so the chain below
its choices is walked once.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Container, Hashable, Iterable, Iterator
from fractions import Fraction
from types import ModuleType
from typing import Any, TypeVar

from ..errors import Diagnostic, EndlessError, LimitError, limit_advice
from ..graph import postorder
from ..model.objective import Objective
from ..model.values import Multi, Symbol
from ..runtime.multisets import CLOCK_MASK
from ..runtime.packing import Packing
from ..runtime.procedure import Counts, Option, Procedure, State, never_ends
from ..runtime.work import END, SCORED_END, TRANSITION, Work, meter
from .dist import Dist
from .markov import Edges, Node, absorb
from .packed import PackedPlay, pushed, room

CAPPED = 1
"""A procedure ended by its pool's `cap` (a rule of the game)."""
TRUNCATED = 2
"""An uncapped explosion cut where the exact solver stopped following it (see `exact.TAIL`)."""
ARRAYS_FROM = 400
"""From how many first rolls a chain is solved whole with numpy (`chainarrays`) once numpy is
imported: below it, numpy's cost per call outweighs what it saves (under `always`, a pool of 7 d10
read in five kinds, 330 first rolls, is about even; one of 8, 495 first rolls, about a tenth
faster with numpy)."""
ARRAYS_IMPORTING_FROM = 1500
"""From how many first rolls numpy is imported to solve a chain whole: its import (about 60 ms
and 14 MB on the machine measured) pays off from about 12 such d10 (1,820 first rolls) on."""
_ARRAYS: ModuleType | None | bool = False


def _arrays(first_rolls: int) -> ModuleType | None:
    """The numpy solver (`chainarrays`) for a chain of this many first rolls, or None: a smaller
    chain, or numpy not importable (a dependency, imported when first worth it)."""
    global _ARRAYS
    if first_rolls < ARRAYS_FROM:
        return None
    if _ARRAYS is False:
        if first_rolls < ARRAYS_IMPORTING_FROM and "numpy" not in sys.modules:
            return None
        try:
            from . import chainarrays
        except ImportError:
            _ARRAYS = None
        else:
            _ARRAYS = chainarrays
    return _ARRAYS  # type: ignore[return-value]


T = TypeVar("T")


def _clocked(items: Iterator[T], work: Work) -> Iterator[T]:
    """`items`, looking at the deadline once every `CLOCK_MASK` + 1 of them (a first roll's ways,
    each cheap, charged when they were listed: millions took seconds past it)."""
    for i, item in enumerate(items):
        if not i & CLOCK_MASK:
            work.check_clock()
        yield item


class RerollSolver:
    """Exact results of one procedure under one policy (not shared between threads unlocked).

    The chain's nodes are `Packing` codes: whole numbers for states and flights."""

    def __init__(
        self,
        proc: Procedure,
        policy: str,
        max_states: int,
        outcome_of: Callable[[Multi], Dist],
        objective: Objective,
        members: tuple[Symbol, ...],
        max_dice: int,
    ) -> None:
        """`max_dice`: the most dice the pool can hold (rolled and added), which bounds every
        count a state keeps; a history of rerolled dice grows by at most that much per state."""
        self.proc = proc
        self.policy = policy
        self.max_states = max_states
        self.objective = objective
        self.members = members
        self._faces = sum(proc.weights)
        dice = max_dice + (proc.cap or 0) + 2
        rerolls = proc.pool.history and proc.keeps[2]
        self.packing = Packing(proc, (max_states + 2) * dice if rerolls else dice)
        self._finals: dict[int, Any] = {}
        self._scores: dict[tuple[tuple[tuple[Any, int], ...], int], tuple[Fraction, ...]] = {}
        self.whole_scores = objective.parts(members) == 1
        """Whether best play's scores are whole numbers (an objective of one part), not tuples."""
        self._outcome_of = outcome_of
        self.play: PackedPlay = PackedPlay(
            self,
            self._node,
            self._outcome,
            self._score,
            self.count_states,
            self._cycle,
            max_states,
        )
        self.work = meter()
        """The counter this solve charges: the current request's (set again at every entry)."""
        self._scored: set[int] = set()
        """The ends best play has scored, each charged `SCORED_END` then (`_outcome`): `ends`
        charges the others `END` as it reads them (`end`), so every end is charged once."""
        self.walked: Container[int] = frozenset()
        """The nodes `_played`'s walk has charged while it runs: each node is charged once."""

    def close(self) -> None:
        """Drop best play (and so its tables) and the evaluator's callback: best play's callbacks
        are this solver's methods, and the callback reaches the evaluator that keeps this solver,
        so both are in reference cycles that reference counting alone cannot free. The solver
        cannot be asked again."""
        del self.play
        del self._outcome_of

    def _final(self, code: int) -> Any:
        """The pool's value at an end state (asked by best play and again by `ends`: made once)."""
        found = self._finals.get(code)
        if found is None:
            if self.proc.pool.history:
                state = self.packing.unpack(code)
                found = self._finals[code] = self.proc.final(state[0], state[3])
            else:  # the dice alone
                found = self._finals[code] = self.proc.final(self.packing.counts(code), ())
        return found

    def _outcome(self, code: int) -> Dist:
        """The check's outcomes at the end state of `code`, as best play scores it: every path
        (`BestPlay`'s loop, `packed._Scores`, `chainarrays`) asks once per end it scores, so the
        end's work is charged here alike (`SCORED_END`), before it is done."""
        self.work.charge(SCORED_END)
        self._scored.add(code)
        return self._outcome_of(self._final(code))

    def count_states(self, n: int) -> None:
        """Refuse a chain of more than `max_states` states (`RC503`), told `n` so far."""
        if n > self.max_states:
            pool = self.proc.pool
            cap = pool.set_cap
            lead = (
                cap
                # a die with triggers, or each die of an `each_die`, has no `each` of its own; and
                # dice kept by their number and sum are told apart by nothing `each` could merge
                if pool.each is not None or pool.total or self.proc.summed
                else "read the faces as the few classes the check tells apart with 'each:' "
                f"(dice read alike are one state of the chain), {cap}"
            )
            raise LimitError(
                [
                    Diagnostic(
                        "RC503",
                        f"the reroll chain has more than {self.max_states:,} states",
                        pool.span,
                        **limit_advice("max_states", lead),
                    )
                ]
            )

    def _cycle(self, code: int) -> Exception:
        return LimitError(
            [
                Diagnostic(
                    "RC505",
                    "the optimal policy cannot be solved on a reroll chain "
                    "that can return to an earlier state",
                    self.proc.pool.span,
                    f"{self.proc.pool.set_cap} so the chain must end",
                )
            ]
        )

    def _score(self, d: Dist) -> tuple[Fraction, ...]:
        """The objective of an end's outcomes, worked out once per distribution met: most ends
        of a pool give one of a few (a check with no later randomizer: one per outcome)."""
        key = (tuple(d.weights.items()), d.total)
        found = self._scores.get(key)
        if found is None:
            found = self._scores[key] = self.objective.score(self.members, d.weights, d.total)
        return found

    def end_score(self, code: int) -> tuple[Fraction, ...]:
        """What best play scores the end state of `code` (the objective of the check's outcome)."""
        return self._score(self.play.final(code))

    def _node(self, code: int) -> Node | None:
        """What happens at a node (`markov.Node`): a flight's next die falls, W ways (one per
        face); a state's options lead each to its flight (or, with no die to roll, its next state).
        Asked by `BestPlay`'s own loop, which scores past `packed.DEEP` levels (`PackedPlay` reads
        the nodes above that in place, charging as this does)."""
        packing = self.packing
        if code >= packing.flying:
            if code not in self.walked:
                self.work.charge(2 * TRANSITION)
            return (None, packing.landings(code), self.proc.weights, self._faces)
        t = packing.pending(code)
        if t is None:
            return None
        options, codes = packing.moves(code, t, self.policy)
        if len(options) > 1 or code not in self.walked:
            self.work.charge(2 * TRANSITION * len(options))
        return (options, codes, (), 0)

    def _launch(self, state: State, t: int, option: Option) -> int:
        meter().charge(2 * TRANSITION)
        return self.packing.pack_any(self.proc.launch(state, t, option))

    def depth_for(self, state: State, t: int) -> int:
        """0 where this solver's chain holds `state` (a sampled roll's, pending on step `t`);
        else how deep a solver must follow the explosion to hold it. A sampled roll rolls on past
        the depth the exact solver stopped at, so it may hold more dice than the chain's fields
        count (one field counts every summed die: hunt 13zm, 114 tens of a d10), or be granted
        more than the depth leaves, where the chain sees the roll cut and offers no move (nine
        1s that may add a die each, at depth 8)."""
        proc = self.proc
        if not proc.truncating or proc.cap is None:
            return 0  # the game's cap bounds every roll, sampled or solved
        grant = proc.steps[t].per_die * sum(state[1][t])
        fits = self.packing.fits(state)
        if grant <= proc.cap - state[2] and fits:
            return 0
        deeper = max(2 * proc.cap, state[2] + grant)  # twice as deep at least, as `exact` deepens
        return deeper if fits else max(deeper, sum(state[0]))  # the fields grow with the depth

    def choice(self, state: State, t: int) -> Option:
        """The option the policy takes at `state` (which is pending on trigger `t`)."""
        self.work = meter()
        options = self.proc.options(state, t, self.policy)
        if len(options) == 1:
            return options[0]
        move = self.play.best(self.packing.pack(state))[1]
        assert move is not None
        return move

    def decision_scores(self, state: State, t: int) -> list[tuple[Option, tuple[Fraction, ...]]]:
        """Every option at `state` with the objective it reaches (for the trace)."""
        self.work = meter()
        return [
            (o, self.play.scored(self._launch(state, t, o))) for o in self.proc.options(state, t, self.policy)
        ]

    def ends_of(self, n: int) -> Dist:
        """`ends` from every first roll of `n` dice. Where the procedure sums kinds, the first
        rolls are made one die at a time as codes, those alike in the summed dice's number and
        sum one (`summed_starts`); else every multiset by kind (`Procedure.fresh`), refused past
        `max_states` before any is listed (20 d10 of ten kinds, 10 M ways, filled the memory
        past any deadline: hunt 13j)."""
        self.work = meter()
        if not self.proc.summed:
            kinds = len(self.proc.weights)
            self.count_states(math.comb(n + kinds - 1, kinds - 1) if kinds else 1)
            return self.ends(self.proc.fresh(n))
        if self.proc.endless and n:
            raise never_ends(self.proc.pool)  # a die rolled sets off steps that never stop
        return self._ends_from(self.summed_starts(n))

    def summed_starts(self, n: int) -> Dist:
        """The first rolls of `n` dice as codes, with their ways: one die's codes added to the
        codes of the dice before, one die at a time (a first roll's code is the sum of its dice's:
        `Packing.start`), alike codes merged as they are made. Where kinds are summed they are far
        fewer than the multisets by kind: 12 d10 adding a die on a 10, read by their sum, are
        637 codes, where their multisets are 293,930. Charged a unit a sum made (about 0.15 µs
        for 20 d10 of such a pool: the kinds summed are at most `SUMMED_KINDS_MOST`, so a code
        is never long), before each die, as a multiset listed is a unit; bounded by `max_states`
        as the codes are made, and looking at the deadline every `CLOCK_MASK` + 1 codes."""
        packing, work, most = self.packing, self.work, self.max_states
        one = [(packing.start(unit), w) for unit, w in self.proc.fresh(1)]
        ways: dict[int, int] = {0: 1}
        for _ in range(n):
            work.charge(len(ways) * len(one))
            made: dict[int, int] = {}
            for i, (code, w) in enumerate(ways.items()):
                if not i & CLOCK_MASK:  # within a die too: one die's sums may be millions
                    work.check_clock()
                if len(made) > most:  # as they are made
                    self.count_states(len(made))
                for step, v in one:
                    at = code + step
                    made[at] = made.get(at, 0) + w * v
            ways = made
            self.count_states(len(ways))
        return Dist(ways, self._faces**n)

    def ends(self, first: Iterable[tuple[Counts, int]]) -> Dist:
        """Where the procedure ends from the first rolls `first` (dice per kind, each with its
        number of ways: `Procedure.fresh`): (the pool's value, how it was cut: 0, `CAPPED` by the
        pool's cap or `TRUNCATED` at the solver's depth). Ends alike in counts and in the history
        the check reads are one end."""
        self.work = meter()
        first = tuple(first)
        if self.proc.endless and any(any(counts) for counts, _ in first):
            raise never_ends(self.proc.pool)  # a die rolled sets off steps that never stop
        work = self.work
        return self._ends_from(Dist.of(_clocked(((self.packing.start(c), w) for c, w in first), work)))

    def _ends_from(self, starts: Dist) -> Dist:
        """`ends` from the first rolls' codes `starts`."""
        cut = TRUNCATED if self.proc.truncating else CAPPED
        packing = self.packing
        flying = packing.flying
        proc = self.proc

        nexts: dict[int, int] = {}
        work = meter()
        policy = self.policy
        moves_in, movings = packing.moves_in, packing.movings(policy)

        def follow(code: int) -> int:
            """Where a state goes once the policy has acted: a flight, or a state where nothing
            is pending (a state's one move is followed at once, so it is no node of the chain)."""
            now = code
            passed = []
            while now < flying:
                known = nexts.get(now)
                if known is not None:  # followed before from another state (and charged then)
                    now = known
                    break
                t = packing.pending(now)
                if t is None:
                    break
                options, codes = moves_in(movings[t], now, t, policy)
                if len(options) == 1:  # a rule, a fixed policy, or nothing to choose
                    work.charge(2 * TRANSITION)
                    passed.append(now)
                    now = codes[0]
                    continue
                self.play.best(now)
                now = self.play.through[now]  # past the choices best play makes from there too
            nexts[code] = now
            for p in passed:
                nexts[p] = now
            return now

        weights = proc.weights
        faces = self._faces

        def step(code: int) -> Edges | None:
            if code < flying:
                return None
            work.charge(2 * TRANSITION)
            landed = packing.landings(code)
            if landed[0] >= flying:  # dice still in the air: each landing is a flight, a node
                return landed, weights, faces
            out: dict[int, int] = {}  # the last die: where each landing goes once the policy acts
            for c, w in zip(landed, weights):
                nxt = nexts.get(c)
                if nxt is None:
                    nxt = follow(c)
                if nxt in out:
                    out[nxt] += w
                else:
                    out[nxt] = w
            return tuple(out), tuple(out.values()), faces

        scored = self._scored

        def end(code: int) -> tuple[Any, int]:
            if code not in scored:  # best play's were charged as it scored them
                work.charge(END)
            if proc.cap is None:  # nothing cuts it: no need to unpack the state to ask
                return (self._final(code), 0)
            return (self._final(code), cut if proc.capped(packing.unpack(code), self.policy) else 0)

        arrays = _arrays(len(starts.weights))
        if arrays is not None and arrays.eligible(self):
            whole: Dist | None = arrays.solve(self, starts, end)
            if whole is not None:
                return whole
        if self.policy == "optimal":
            played = self._played(starts, end)
            if played is not None:
                return played
        begun = starts.map(follow)  # a followed state is charged as work
        try:
            return absorb(begun, step, end, self.count_states, self.max_states)
        except EndlessError:  # told at the pool, as its other limits are, with its cap's place
            mays = self.policy == "always" and not all(s.must for s in self.proc.steps)
            raise never_ends(self.proc.pool, mays) from None

    def _played(self, starts: Dist, end: Callable[[int], Hashable]) -> Dist | None:
        """`ends` under best play with one walk of the chain fewer: best play keeps every node it
        scores after each it leads to, so that order, read backwards, pushes the mass through
        (`packed.pushed`). What lies above best play — the first rolls, down to where a choice is
        made or to nodes already scored — is walked here as `absorb` walks it (best play scores
        no more than it would, so the same outcomes are asked for), and comes first. None when
        that part of the chain returns to a state: `absorb` solves it."""
        play, packing, policy = self.play, self.packing, self.policy
        flying = packing.flying
        scored = play.scores
        work = meter()
        pending, moves_in, movings = packing.pending, packing.moves_in, packing.movings(policy)

        seen: set[int] = set()
        levels = room()  # how deep best play may recurse from the walk (every choice is met at one depth)
        self.walked = seen  # what the walk has charged, best play does not charge again (`_node`)
        most = self.max_states

        def below(code: int) -> list[int]:
            """A node's successors in the walk; none where best play has scored it."""
            seen.add(code)
            if len(seen) > most:
                self.count_states(len(seen))
            if code >= flying:
                work.charge(2 * TRANSITION)
                return packing.landings(code)
            t = pending(code)
            if t is None:
                return []
            options, codes = moves_in(movings[t], code, t, policy)
            if len(options) == 1:  # a rule, a fixed policy, or nothing to choose
                work.charge(2 * TRANSITION)
                return codes
            if code not in scored:
                play.score_from(code, levels)  # with all it leads to (`ends` paused the collector)
            return []

        try:
            above, cyclic = postorder(starts.weights, below, seen, scored)  # each after all it leads to
        finally:
            self.walked = frozenset()
        if cyclic:
            return None
        return pushed(self, starts, [s for s in reversed(above) if s not in scored], end)
