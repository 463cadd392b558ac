"""A pool's reroll procedure solved exactly: its `Procedure` (the rules) on the one Markov solver.

The states are the procedure's hashable states; a state's successors are how the dice it rerolls
or adds can fall. Under `always` and `never` the policy's single option is followed; under
`optimal` each decision is `BestPlay`'s, judged by the check's objective on the outcome the check
gives once the pool is finished (`outcome_of`, later randomizers averaged in).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from ..errors import Diagnostic, LimitError
from ..model.objective import Objective
from ..model.values import Multi, Symbol
from ..runtime.procedure import Option, Procedure, State
from ..runtime.work import TRANSITION, meter
from .dist import Dist
from .markov import BestPlay, absorb

CAPPED = 1
"""A procedure ended by its pool's `cap` (a rule of the game)."""
TRUNCATED = 2
"""An uncapped explosion cut where the exact solver stopped following it (see `exact.TAIL`)."""


class RerollSolver:
    """Exact results of one procedure under one policy (not shared between threads unlocked)."""

    def __init__(
        self,
        proc: Procedure,
        policy: str,
        max_states: int,
        outcome_of: Callable[[Multi], Dist],
        objective: Objective,
        members: tuple[Symbol, ...],
    ) -> None:
        self.proc = proc
        self.policy = policy
        self.max_states = max_states
        self.objective = objective
        self.members = members
        self.play: BestPlay[State, Option] = BestPlay(
            self._options,
            self._after,
            lambda s: outcome_of(proc.final(s[0], s[3])),
            self._score,
            self._count,
            self._cycle,
        )

    def _count(self, n: int) -> None:
        if n > self.max_states:
            raise LimitError(
                [
                    Diagnostic(
                        "RC503",
                        f"the reroll chain has more than {self.max_states} states",
                        self.proc.pool.span,
                        "set a 'cap' on the pool or raise Limits.max_states",
                    )
                ]
            )

    def _cycle(self, state: State) -> Exception:
        return LimitError(
            [
                Diagnostic(
                    "RC505",
                    "the optimal policy cannot be solved on a reroll chain "
                    "that can return to an earlier state",
                    self.proc.pool.span,
                    "set a 'cap' on the pool so the chain must end",
                )
            ]
        )

    def _score(self, d: Dist) -> tuple[Fraction, ...]:
        return self.objective.score(self.members, d.weights, d.total)

    def _options(self, state: State) -> list[Option] | None:
        t = self.proc.pending(state)
        return None if t is None else self.proc.options(state, t, self.policy)

    def _after(self, state: State, option: Option) -> Dist:
        """Where the dice go when `option` is taken at `state`: W**j ways for j fresh dice."""
        t = self.proc.pending(state)
        assert t is not None
        out: dict[State, int] = {}
        fresh = self.proc.fresh(option[1])
        meter().charge(TRANSITION * len(fresh))
        for dice, w in fresh:
            nxt = self.proc.after(state, t, option, dice)
            out[nxt] = out.get(nxt, 0) + w
        return Dist(out, sum(w for _, w in fresh))

    def choice(self, state: State, t: int) -> Option:
        """The option the policy takes at `state` (which is pending on trigger `t`)."""
        options = self.proc.options(state, t, self.policy)
        if len(options) == 1:
            return options[0]
        best = self.play.best(state)[1]
        assert best is not None
        return best

    def decision_scores(self, state: State, t: int) -> list[tuple[Option, tuple[Fraction, ...]]]:
        """Every option at `state` with the objective it reaches (for the trace)."""
        return [(o, self._score(self.play.value(state, o))) for o in self.proc.options(state, t, self.policy)]

    def ends(self, starts: Dist) -> Dist:
        """Where the procedure ends from the first-roll states `starts`: (the pool's value, how it
        was cut: 0, `CAPPED` by the pool's cap or `TRUNCATED` at the solver's depth). Ends alike in
        counts and in the history the check reads are one end."""
        cut = TRUNCATED if self.proc.truncating else CAPPED

        def step(s: State) -> Dist | None:
            t = self.proc.pending(s)
            return None if t is None else self._after(s, self.choice(s, t))

        ends = absorb(starts, step, lambda s: (s[0], s[3], cut if self.proc.capped(s) else 0), self._count)
        return ends.map(lambda end: (self.proc.final(end[0], end[1]), end[2]))
