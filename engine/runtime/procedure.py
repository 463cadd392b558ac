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

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..model.ruleset import Pool
from ..model.values import Multi, Symbol
from .multisets import kind_multisets
from .rules import reading as read

State = tuple[tuple[int, ...], tuple[tuple[int, ...], ...], int]  # counts, unused per trigger, dice used
Option = tuple[tuple[int, ...], int]  # dice removed per kind, fresh dice rolled


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

    def __init__(self, pool: Pool, env: Mapping[str, Any], depth: int | None = None) -> None:
        """`depth`: where the exact solver cuts an uncapped explosion (a cap of its own, whose
        reach is reported as truncated, not capped); the sampler gives none and rolls on."""
        self.pool = pool
        scope = dict(env)
        groups: dict[tuple[Any, ...], list[int]] = {}
        for face in pool.faces:
            reading = read(pool, scope, face)  # sets `face` in the scope for the triggers too
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
        self.cap = pool.cap if pool.cap is not None else depth
        self.truncating = pool.cap is None and depth is not None
        self._on = tuple(tuple(k.on[u] for k in self.kinds) for u in range(len(self.steps)))
        self._zeros = tuple(0 for _ in self.kinds)
        self._fresh: dict[int, tuple[tuple[tuple[int, ...], int], ...]] = {}

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
        found = self._fresh.get(n)
        if found is None:
            found = self._fresh[n] = kind_multisets(self.weights, n)
        return found

    # -- the same rules for real dice, one by one (the sampler) ------------------------------

    def holds(self, face: int, acted: int | None = None) -> set[int]:
        """The triggers a newly rolled face holds unused; a face rolled by step `acted` does not
        hold that step again when it says `repeat: false`."""
        on = self.kinds[self.kind_of[face]].on
        return {u for u in range(len(self.steps)) if on[u] and (u != acted or self.steps[u].repeat)}

    def state_of(self, faces: list[int], unused: list[set[int]], used: int) -> State:
        """The state of real dice: how many of each kind, and of those how many hold each trigger."""
        counts = [0] * len(self.kinds)
        rows = [[0] * len(self.kinds) for _ in self.steps]
        for f, u in zip(faces, unused):
            k = self.kind_of[f]
            counts[k] += 1
            for t in u:
                rows[t][k] += 1
        return (tuple(counts), tuple(tuple(row) for row in rows), used if self.cap is not None else 0)

    def pick(
        self, faces: list[int], unused: list[set[int]], remove: tuple[int, ...], among: list[int] | None
    ) -> list[int]:
        """Which real dice an option rerolls: `remove[k]` of each kind, those holding unused
        triggers first (as `after` counts them)."""
        picked: list[int] = []
        pool = among if among is not None else list(range(len(faces)))
        for k, want in enumerate(remove):
            if not want:
                continue
            candidates = [d for d in pool if self.kind_of[faces[d]] == k and d not in picked]
            candidates.sort(key=lambda d: -len(unused[d]))
            picked.extend(candidates[:want])
        return picked

    def value(self, counts: tuple[int, ...], capped: bool = False) -> Any:
        """The pool as the rules read it once the procedure is over (a die with triggers: the
        total of its dice)."""
        if self.pool.total:
            return sum(k.reading * c for k, c in zip(self.kinds, counts))
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
