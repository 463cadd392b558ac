"""Reroll procedures in a pool: triggers, the player's choices, sampled and solved exactly.

A pool with triggers is rolled, then steps run until none is pending: the first trigger (in
declared order) that has dice which set it off and have not yet been used takes all of them,
grants `per_die` rerolls (or added dice) for each, and the policy — or the rule, for a `must`
— decides which dice are rerolled. Rerolled dice are new dice: they may set off triggers
again (unless the trigger says `repeat: false`), and a rerolled die loses any trigger it had
not yet used (among alike dice, those with unused triggers are rerolled first).

Faces that behave alike (same reading through `each`, same triggers, same targets) form one
*kind*; the procedure only ever looks at how many dice of each kind there are and how many of
those have unused triggers. That state is hashable, the sampler and the exact solver share
every rule about it (`pending`, `options`, `after`), and the exact solver treats the
procedure as an absorbing Markov chain over these states, so long chains are solved exactly
rather than cut off.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..errors import Diagnostic, LimitError
from ..model.ruleset import Pool
from ..model.values import Multi, Symbol
from .multisets import kind_multisets

State = tuple[tuple[int, ...], tuple[tuple[int, ...], ...], int]  # counts, unused per trigger, dice used
Option = tuple[tuple[int, ...], int]  # dice removed per kind, fresh dice rolled
POLICIES = ("always", "never", "optimal")


@dataclass(frozen=True, slots=True)
class Kind:
    """Faces that behave alike in the procedure."""

    reading: Any
    faces: tuple[int, ...]
    on: tuple[bool, ...]
    target: tuple[bool, ...]

    @property
    def order(self) -> tuple[Any, ...]:
        r = self.reading
        return (r.rank if isinstance(r, Symbol) else r, self.faces[0])


@dataclass(frozen=True, slots=True)
class StepRule:
    """A trigger as it applies to this roll (its `only_if` already decided)."""

    name: str
    action: str
    must: bool
    self_target: bool
    per_die: int
    active: bool
    repeat: bool
    pick: str


class Procedure:
    """One pool's reroll procedure for fixed inputs: its kinds, steps and the shared rules."""

    def __init__(self, pool: Pool, env: Mapping[str, Any]) -> None:
        self.pool = pool
        scope = dict(env)
        groups: dict[tuple[Any, ...], list[int]] = {}
        for face in pool.faces:
            scope["face"] = face
            reading = pool.each.run(scope) if pool.each is not None else face
            on = tuple(bool(t.on.run(scope)) for t in pool.triggers)
            target = tuple(
                bool(t.target.run(scope)) if t.target is not None else False for t in pool.triggers
            )
            groups.setdefault((reading, on, target), []).append(face)
        self.kinds = tuple(Kind(r, tuple(f), on, tg) for (r, on, tg), f in groups.items())
        self.kind_of = {f: i for i, k in enumerate(self.kinds) for f in k.faces}
        self.weights = tuple(len(k.faces) for k in self.kinds)
        self.steps = tuple(
            StepRule(
                t.name,
                t.action,
                t.must,
                t.target is None,
                t.per_die,
                True if t.only_if is None else bool(t.only_if.run(dict(env))),
                t.repeat,
                t.pick,
            )
            for t in pool.triggers
        )
        self.cap = pool.cap
        self._on = tuple(tuple(k.on[u] for k in self.kinds) for u in range(len(self.steps)))
        self._zeros = tuple(0 for _ in self.kinds)

    # -- the rules, shared by sampler and solver ---------------------------------------

    def start(self, counts: tuple[int, ...]) -> State:
        unused = tuple(
            tuple(c if k.on[t] else 0 for c, k in zip(counts, self.kinds)) for t in range(len(self.steps))
        )
        return (counts, unused, 0)

    def pending(self, state: State) -> int | None:
        """The trigger that acts next, or None when the procedure is over."""
        _, unused, used = state
        if self.cap is not None and used >= self.cap:
            return None
        for t, step in enumerate(self.steps):
            if step.active and any(unused[t]):
                return t
        return None

    def capped(self, state: State) -> bool:
        """Whether the cap, not the rules, cut the procedure short on the way here."""
        _, unused, used = state
        if self.cap is None:
            return False
        return used > self.cap or (
            used >= self.cap and any(step.active and any(unused[t]) for t, step in enumerate(self.steps))
        )

    def used_after(self, state: State, t: int, rolled: int) -> int:
        """Dice used once `rolled` more are rerolled or added at trigger `t`; past the cap
        (one more than it) when the cap cut this step's grant short."""
        _, unused, used = state
        if self.cap is None:
            return 0
        if self.steps[t].per_die * sum(unused[t]) > self.cap - used:
            return self.cap + 1
        return used + rolled

    def eligible(self, state: State, t: int) -> tuple[int, ...]:
        counts, unused, _ = state
        step = self.steps[t]
        if step.action == "add":
            return tuple(0 for _ in counts)
        if step.self_target:
            return unused[t]
        return tuple(c if k.target[t] else 0 for c, k in zip(counts, self.kinds))

    def grant(self, state: State, t: int) -> int:
        _, unused, used = state
        k = self.steps[t].per_die * sum(unused[t])
        if self.cap is not None:
            k = max(0, min(k, self.cap - used))
        return k

    def options(self, state: State, t: int, policy: str) -> list[Option]:
        """What may be done at this step: one option for a rule or a fixed policy, every
        option for `optimal` (fewest dice first)."""
        step = self.steps[t]
        k = self.grant(state, t)
        eligible = self.eligible(state, t)
        n = len(self.kinds)
        if step.action == "add":
            if step.must or policy == "always":
                return [(tuple([0] * n), k)]
            if policy == "never":
                return [(tuple([0] * n), 0)]
            return [(tuple([0] * n), j) for j in range(k + 1)]
        if step.must or policy == "always":
            take = self._greedy(eligible, min(k, sum(eligible)), step.pick)
            return [(take, sum(take))]
        if policy == "never":
            return [(tuple([0] * n), 0)]
        found = [(v, sum(v)) for v in _bounded_vectors(eligible, k)]
        found.sort(key=lambda o: o[1])
        return found

    def _greedy(self, eligible: tuple[int, ...], j: int, pick: str) -> tuple[int, ...]:
        order = sorted(range(len(self.kinds)), key=lambda i: self.kinds[i].order, reverse=(pick == "highest"))
        take = [0] * len(self.kinds)
        for i in order:
            grab = min(eligible[i], j)
            take[i] += grab
            j -= grab
        return tuple(take)

    def after(self, state: State, t: int, option: Option, fresh: tuple[int, ...]) -> State:
        """The state once option `option` is taken at trigger `t` and the new dice show `fresh`."""
        counts, unused, _ = state
        remove, rolled = option
        new_counts = tuple([c - r + f for c, r, f in zip(counts, remove, fresh)])
        rows = []
        for u, on in enumerate(self._on):
            if u == t:
                rows.append(
                    tuple([f if o else 0 for f, o in zip(fresh, on)]) if self.steps[t].repeat else self._zeros
                )
            else:
                rows.append(
                    tuple(
                        [
                            (x - r if x > r else 0) + (f if o else 0)
                            for x, r, f, o in zip(unused[u], remove, fresh, on)
                        ]
                    )
                )
        return (new_counts, tuple(rows), self.used_after(state, t, rolled))

    def fresh(self, n: int) -> tuple[tuple[tuple[int, ...], int], ...]:
        """Every way `n` new dice can fall, by kind, with its multinomial weight (total W^n)."""
        return kind_multisets(self.weights, n)

    def value(self, counts: tuple[int, ...], capped: bool = False) -> Multi:
        """The pool as the rules read it once the procedure is over."""
        items = tuple(k.reading for k, c in zip(self.kinds, counts) for _ in range(c))
        tally = tuple((k.reading, c) for k, c in zip(self.kinds, counts) if c)
        merged: dict[Any, int] = {}
        for r, c in tally:
            merged[r] = merged.get(r, 0) + c
        return Multi(items, tally=tuple(merged.items()))


def _bounded_vectors(limits: tuple[int, ...], total: int) -> Iterator[tuple[int, ...]]:
    """All vectors v with 0 <= v[i] <= limits[i] and sum(v) <= total."""
    if not limits:
        yield ()
        return
    for first in range(min(limits[0], total) + 1):
        for rest in _bounded_vectors(limits[1:], total - first):
            yield (first, *rest)


# -- objectives ----------------------------------------------------------------------------

OutcomeDist = Mapping[Symbol, Fraction]


def score(objective: tuple[str, Any], members: tuple[Symbol, ...], dist: OutcomeDist) -> tuple[Fraction, ...]:
    """How good an outcome distribution is for the player; larger is better."""
    kind, target = objective
    if kind == "at_least":
        return (sum((p for s, p in dist.items() if s >= target), Fraction(0)),)
    if kind == "mean_rank":
        return (sum((p * s.rank for s, p in dist.items()), Fraction(0)),)
    out = []
    for m in reversed(members):
        out.append(sum((p for s, p in dist.items() if s >= m), Fraction(0)))
    return tuple(out)


# -- exact solution ---------------------------------------------------------------------------


Weights = tuple[dict[Any, int], int]  # numerators and their common denominator


def _mix(parts: list[tuple[Weights, int, int]]) -> Weights:
    """Σ (w / total) · child, kept as integers over one common denominator."""
    den = 1
    for (_, d), _, total in parts:
        den = math.lcm(den, d * total)
    out: dict[Any, int] = {}
    for (child, d), w, total in parts:
        factor = den // (d * total) * w
        for k, n in child.items():
            out[k] = out.get(k, 0) + n * factor
    return out, den


class Solver:
    """Exact results of one procedure under one policy.

    `terminal(state)` is the distribution of (final counts, capped?) from a state. Under
    `optimal` each decision maximises the objective of the check's outcome, which
    `outcome_of(counts)` gives for a finished pool (averaging over anything rolled later).
    Weights stay integers over a common denominator; only decisions compare fractions.
    """

    def __init__(
        self,
        proc: Procedure,
        policy: str,
        max_states: int,
        outcome_of: Callable[[tuple[int, ...]], OutcomeDist] | None = None,
        objective: tuple[str, Any] = ("best_first", None),
        members: tuple[Symbol, ...] = (),
    ) -> None:
        self.proc = proc
        self.policy = policy
        self.max_states = max_states
        self.outcome_of = outcome_of
        self.objective = objective
        self.members = members
        self._terminal: dict[State, Weights] = {}
        self._best: dict[State, tuple[Weights, Option | None]] = {}
        self._busy: set[State] = set()

    def _count(self) -> None:
        if len(self._terminal) + len(self._best) > self.max_states:
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

    def choice(self, state: State, t: int) -> Option:
        """The option the policy takes at `state` (which is pending on trigger `t`)."""
        options = self.proc.options(state, t, self.policy)
        if len(options) == 1:
            return options[0]
        best = self.best(state)[1]
        assert best is not None
        return best

    def option_value(self, state: State, t: int, option: Option) -> Weights:
        """The outcome distribution if `option` is taken now and the policy is followed after."""
        fresh = self.proc.fresh(option[1])
        total = sum(w for _, w in fresh)
        return _mix([(self.best(self.proc.after(state, t, option, dice))[0], w, total) for dice, w in fresh])

    def _score(self, weights: Weights) -> tuple[Fraction, ...]:
        nums, den = weights
        return score(self.objective, self.members, {s: Fraction(n, den) for s, n in nums.items()})

    def best(self, state: State) -> tuple[Weights, Option | None]:
        """Optimal play from `state`: its outcome distribution and the option taken now."""
        found = self._best.get(state)
        if found is not None:
            return found
        if state in self._busy:
            raise LimitError(
                [
                    Diagnostic(
                        "RC505",
                        "the optimal policy cannot be solved on a reroll chain that can return to an earlier state",
                        self.proc.pool.span,
                        "set a 'cap' on the pool so the chain must end",
                    )
                ]
            )
        t = self.proc.pending(state)
        if t is None:
            assert self.outcome_of is not None
            dist = self.outcome_of(state[0])
            den = 1
            for p in dist.values():
                den = math.lcm(den, p.denominator)
            result: tuple[Weights, Option | None] = (({s: int(p * den) for s, p in dist.items()}, den), None)
        else:
            self._busy.add(state)
            try:
                best_option: Option | None = None
                best_weights: Weights = ({}, 1)
                best_score: tuple[Fraction, ...] | None = None
                for option in self.proc.options(state, t, self.policy):
                    weights = self.option_value(state, t, option)
                    s = self._score(weights)
                    if best_score is None or s > best_score:
                        best_option, best_weights, best_score = option, weights, s
                result = (best_weights, best_option)
            finally:
                self._busy.discard(state)
        self._best[state] = result
        self._count()
        return result

    def decision_scores(self, state: State, t: int) -> list[tuple[Option, tuple[Fraction, ...]]]:
        """Every option at `state` with the objective it reaches (for the trace)."""
        return [
            (o, self._score(self.option_value(state, t, o))) for o in self.proc.options(state, t, self.policy)
        ]

    def absorb(self, starts: Mapping[State, Fraction]) -> dict[tuple[tuple[int, ...], bool], Fraction]:
        """Push probability from the start states through the chain to where it ends.

        The reachable states are listed once (following the policy's choices), put in
        topological order, and each state's probability is passed on to its successors, so
        every transition is used once. A chain that can return to a state is solved as a
        linear system instead."""
        # An edge is (next state, w, j): probability w / W**j, where W is the faces per die.
        edges: dict[State, list[tuple[State, int, int]]] = {}
        order: list[State] = []
        stack: list[tuple[State, bool]] = [(s, False) for s in starts]
        on_path: set[State] = set()
        cyclic = False
        while stack:
            s, done = stack.pop()
            if done:
                on_path.discard(s)
                order.append(s)
                continue
            if s in edges:
                if s in on_path:
                    cyclic = True
                continue
            t = self.proc.pending(s)
            if t is None:
                edges[s] = []
            else:
                option = self.choice(s, t)
                j = option[1]
                edges[s] = [(self.proc.after(s, t, option, d), w, j) for d, w in self.proc.fresh(j)]
            if len(edges) > self.max_states:
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
            on_path.add(s)
            stack.append((s, True))
            for nxt, _, _ in edges[s]:
                if nxt in on_path:
                    cyclic = True
                elif nxt not in edges:
                    stack.append((nxt, False))
        if cyclic:
            out: dict[tuple[tuple[int, ...], bool], Fraction] = {}
            for s, p in starts.items():
                nums, den = self._solve_cycle(s)
                for end, n in nums.items():
                    out[end] = out.get(end, Fraction(0)) + p * Fraction(n, den)
            return out
        # Probabilities as (numerator, k) meaning numerator / W**k: whole-number arithmetic.
        base = sum(self.proc.weights)
        den = 1
        for p in starts.values():
            den = math.lcm(den, p.denominator)
        mass: dict[State, tuple[int, int]] = {st: (int(p * den), 0) for st, p in starts.items()}
        ends: dict[tuple[tuple[int, ...], bool], tuple[int, int]] = {}

        def add(into: dict[Any, tuple[int, int]], key: Any, num: int, k: int) -> None:
            old = into.get(key)
            if old is None:
                into[key] = (num, k)
            elif old[1] == k:
                into[key] = (old[0] + num, k)
            elif old[1] < k:
                into[key] = (old[0] * base ** (k - old[1]) + num, k)
            else:
                into[key] = (old[0] + num * base ** (old[1] - k), old[1])

        for st in reversed(order):
            got = mass.pop(st, None)
            if got is None or not got[0]:
                continue
            num, k = got
            if not edges[st]:
                add(ends, (st[0], self.proc.capped(st)), num, k)
                continue
            for nxt, w, j in edges[st]:
                add(mass, nxt, num * w, k + j)
        return {end: Fraction(num, den * base**k) for end, (num, k) in ends.items()}

    def _solve_cycle(self, start: State) -> Weights:
        """The absorbing chain through `start`, solved by exact Gaussian elimination."""
        states: list[State] = []
        index: dict[State, int] = {}
        edges: dict[State, list[tuple[State, Fraction]]] = {}
        stack = [start]
        while stack:
            s = stack.pop()
            if s in index:
                continue
            index[s] = len(states)
            states.append(s)
            if len(states) > self.max_states:
                raise LimitError(
                    [
                        Diagnostic(
                            "RC503",
                            f"the reroll chain has more than {self.max_states} states",
                            self.proc.pool.span,
                        )
                    ]
                )
            t = self.proc.pending(s)
            if t is None:
                edges[s] = []
                continue
            option = (
                self.proc.options(s, t, self.policy)[0] if self.policy != "optimal" else self.choice(s, t)
            )
            fresh = self.proc.fresh(option[1])
            total = sum(w for _, w in fresh)
            edges[s] = [(self.proc.after(s, t, option, d), Fraction(w, total)) for d, w in fresh]
            stack.extend(n for n, _ in edges[s])
        ends = sorted({(s[0], self.proc.capped(s)) for s in states if self.proc.pending(s) is None})
        col = {e: i for i, e in enumerate(ends)}
        n = len(states)
        # x_s = Σ p · x_next for a transient s; x_s = e_end for an absorbing s.
        matrix = [[Fraction(0)] * n for _ in range(n)]
        rhs = [[Fraction(0)] * len(ends) for _ in range(n)]
        for s, i in index.items():
            matrix[i][i] = Fraction(1)
            if not edges[s]:
                rhs[i][col[(s[0], self.proc.capped(s))]] = Fraction(1)
            for nxt, p in edges[s]:
                matrix[i][index[nxt]] -= p
        solution = _solve(matrix, rhs)
        for s, i in index.items():
            den = 1
            for v in solution[i]:
                den = math.lcm(den, v.denominator)
            self._terminal[s] = ({e: int(v * den) for e, v in zip(ends, solution[i]) if v}, den)
        return self._terminal[start]


def _solve(matrix: list[list[Fraction]], rhs: list[list[Fraction]]) -> list[list[Fraction]]:
    """Gauss–Jordan elimination over the rationals (the matrix is I − Q, invertible)."""
    n = len(matrix)
    a = [row[:] + r[:] for row, r in zip(matrix, rhs)]
    for c in range(n):
        pivot = next(r for r in range(c, n) if a[r][c] != 0)
        a[c], a[pivot] = a[pivot], a[c]
        inv = 1 / a[c][c]
        a[c] = [v * inv for v in a[c]]
        for r in range(n):
            if r != c and a[r][c] != 0:
                f = a[r][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c])]
    return [row[n:] for row in a]
