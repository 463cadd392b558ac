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

from collections.abc import Iterable, Mapping
from itertools import chain, repeat
from operator import add, itemgetter
from typing import Any, NamedTuple

from ..frozen import frozen
from ..model.ruleset import Pool
from ..model.values import Multi, Symbol
from .builtins import HISTORY
from .cache import Caches
from .multisets import kind_multisets
from .rules import reading as read
from .work import meter

Counts = tuple[int, ...]
History = tuple[Counts, ...]
"""What the check reads of a pool's history, per kind: () when it reads none; else the first roll,
the dice added and the dice rerolled away, each () when not read (`Pool.history`)."""
State = tuple[Counts, tuple[Counts, ...], int, History]  # counts, unused per trigger, dice used, history
Option = tuple[tuple[int, ...], int]  # dice removed per kind, fresh dice rolled
Asked = tuple[int, str, int, tuple[int, ...]]
"""All a step's options read of a state (`Procedure.asked`): step, policy, grant, eligible dice."""
Flight = tuple[State, int, int]
"""A step's dice in the air: the state without them (grant spent), the trigger acting, how many
are still to be rolled, one at a time."""


OPTIONS_KEPT = 1 << 16
"""How many options a procedure keeps listed for reuse (a few megabytes at most)."""
MOVES_KEPT = 1 << 18
"""How many moves a packing keeps for reuse (about ten megabytes at most)."""
PLANS_KEPT = 1 << 18
"""How many options a packing keeps laid out for reuse (`Packing._plan`; each list counts one more
than its options): the benchmark's 20-dice reroll procedure under `optimal` keeps all it lists
(8,527 lists, 142,474 options, about 12 MB of resident memory)."""


@frozen(slots=True)
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


@frozen(slots=True)
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
        # each face is read and tried against every trigger: a die of many faces is much work
        meter().charge(len(pool.faces) * (1 + len(pool.triggers)))
        for face in pool.faces:
            reading = read(pool, scope, face)  # sets `face` in the scope for the triggers too
            on = tuple(bool(t.on.run(scope)) for t in pool.triggers)
            target = tuple(
                bool(t.target.run(scope)) if t.target is not None else False for t in pool.triggers
            )
            groups.setdefault((reading, on, target), []).append(face)
        self.kinds = tuple(Kind(r, tuple(f), on, tg) for (r, on, tg), f in groups.items())
        self.kind_of = {f: i for i, k in enumerate(self.kinds) for f in k.faces}
        self.reading_of = {f: k.reading for k in self.kinds for f in k.faces}
        self.weights = tuple(len(k.faces) for k in self.kinds)
        self._readings = tuple(k.reading for k in self.kinds)
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
        self._targets = tuple(tuple(k.target[u] for k in self.kinds) for u in range(len(self.steps)))
        by_value = sorted(range(len(self.kinds)), key=lambda i: self.kinds[i].order)
        self._order = {"lowest": tuple(by_value), "highest": tuple(reversed(by_value))}
        n_steps = len(self.steps)
        rank = {p: {k: i for i, k in enumerate(order)} for p, order in self._order.items()}
        self._face_rank = {p: {f: r[self.kind_of[f]] for f in self.kind_of} for p, r in rank.items()}
        self._hit = tuple(
            frozenset(f for k in self.kinds if k.target[u] for f in k.faces) for u in range(n_steps)
        )
        self._active_mask = sum(1 << t for t, step in enumerate(self.steps) if step.active)
        # the steps a face holds (a mask) when first rolled, and when rolled by each step
        self._holds = {
            f: (
                sum(1 << u for u in range(n_steps) if k.on[u]),
                tuple(
                    sum(1 << u for u in range(n_steps) if k.on[u] and (u != t or self.steps[u].repeat))
                    for t in range(n_steps)
                ),
            )
            for k in self.kinds
            for f in k.faces
        }
        self._zeros = tuple(0 for _ in self.kinds)
        # the triggers a die rolled by step t holds when it falls as each kind
        self._lands = tuple(
            tuple(
                frozenset(u for u in range(n_steps) if k.on[u] and (u != t or self.steps[u].repeat))
                for k in self.kinds
            )
            for t in range(n_steps)
        )
        self.keeps = tuple(h in pool.history for h in HISTORY)
        """Which parts of the history the check reads (first roll, added, rerolled)."""
        self._fresh: dict[int, tuple[tuple[tuple[int, ...], int], ...]] = {}
        self._options: dict[Asked, list[Option]] = {}
        self._kept = 0
        self._sums: dict[tuple[int, ...], list[list[Option]]] = {}
        self._same: dict[Option, Option] = {}

    # -- the rules, shared by sampler and solver ---------------------------------------

    def start(self, counts: tuple[int, ...]) -> State:
        unused = tuple(
            tuple(c if k.on[t] else 0 for c, k in zip(counts, self.kinds)) for t in range(len(self.steps))
        )
        return (counts, unused, 0, self.history_of(counts, self._zeros, self._zeros))

    def history_of(self, first: Counts, added: Counts, rerolled: Counts) -> History:
        """The history a state keeps: only the parts the check reads, nothing when it reads none."""
        if not self.pool.history:
            return ()
        return tuple(c if keep else () for c, keep in zip((first, added, rerolled), self.keeps))

    def pending(self, state: State) -> int | None:
        """The trigger that acts next, or None when the procedure is over."""
        unused, used = state[1], state[2]
        if self.cap is not None and used >= self.cap:
            return None
        for t, step in enumerate(self.steps):
            if step.active and any(unused[t]):
                return t
        return None

    def capped(self, state: State) -> bool:
        """Whether the cap, not the rules, cut the procedure short on the way here."""
        unused, used = state[1], state[2]
        if self.cap is None:
            return False
        return used > self.cap or (
            used >= self.cap and any(step.active and any(unused[t]) for t, step in enumerate(self.steps))
        )

    def used_after(self, state: State, t: int, rolled: int) -> int:
        """Dice used once `rolled` more are rerolled or added at trigger `t`; past the cap
        (one more than it) when the cap cut this step's grant short."""
        unused, used = state[1], state[2]
        if self.cap is None:
            return 0
        if self.steps[t].per_die * sum(unused[t]) > self.cap - used:
            return self.cap + 1
        return used + rolled

    def eligible(self, state: State, t: int) -> tuple[int, ...]:
        counts, unused = state[0], state[1]
        step = self.steps[t]
        if step.action == "add":
            return tuple(0 for _ in counts)
        if step.self_target:
            return unused[t]
        return tuple([c if hit else 0 for c, hit in zip(counts, self._targets[t])])

    def grant(self, state: State, t: int) -> int:
        unused, used = state[1], state[2]
        k = self.steps[t].per_die * sum(unused[t])
        if self.cap is not None:
            k = max(0, min(k, self.cap - used))
        return k

    def options(self, state: State, t: int, policy: str) -> list[Option]:
        """What may be done at this step: one option for a rule or a fixed policy, every
        option for `optimal` (fewest dice first). The list may be shared: do not change it."""
        return self.listed(self.asked(state, t, policy))

    def asked(self, state: State, t: int, policy: str) -> Asked:
        """All that `options` reads of a state: the step, the policy, the grant and the eligible
        dice — for a reroll, the grant no larger than the eligible dice (no more can be taken), so
        states alike but for rerolls they cannot use share one list."""
        k = self.grant(state, t)
        eligible = self.eligible(state, t)
        if self.steps[t].action != "add":
            k = min(k, sum(eligible))
        return (t, policy, k, eligible)

    def listed(self, asked: Asked) -> list[Option]:
        """`options` for what they read (`asked`), kept for reuse up to `OPTIONS_KEPT`."""
        found = self._options.get(asked)
        if found is None:
            found = self._listed(*asked)
            if self._kept < OPTIONS_KEPT:  # states alike in what options read share one list
                self._options[asked] = found
                self._kept += len(found)
        return found

    def _listed(self, t: int, policy: str, k: int, eligible: tuple[int, ...]) -> list[Option]:
        """`options` for a grant of `k` dice among `eligible`: all they read of the state."""
        step = self.steps[t]
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
        # by the dice rerolled: a smaller grant's options are the first of a larger one's, so the
        # listing among these eligible dice is kept and extended, sum by sum, when a larger grant
        # is asked (each option listed once; never beyond the grant asked: no option is listed
        # that the solver, which charges the options it weighs, was not asked for)
        by_sum = self._sums.get(eligible)
        if by_sum is None:
            by_sum = []
            if self._kept < OPTIONS_KEPT:
                self._sums[eligible] = by_sum
        if len(by_sum) <= k:
            if self._kept >= OPTIONS_KEPT:  # past the bound: what is kept grows no further
                by_sum = list(by_sum)
            same = self._same  # one tuple per option, however many lists hold it (up to a bound)
            shared = len(same) < OPTIONS_KEPT
            for m in range(len(by_sum), k + 1):
                listed = [(v, m) for v in _summing(eligible, m)]
                by_sum.append([same.setdefault(o, o) for o in listed] if shared else listed)
                self._kept += len(listed)
        return list(chain.from_iterable(by_sum[: k + 1]))

    def _greedy(self, eligible: tuple[int, ...], j: int, pick: str) -> tuple[int, ...]:
        take = [0] * len(self.kinds)
        for i in self._order["highest" if pick == "highest" else "lowest"]:
            grab = min(eligible[i], j)
            take[i] += grab
            j -= grab
        return tuple(take)

    def after(self, state: State, t: int, option: Option, fresh: tuple[int, ...]) -> State:
        """The state once option `option` is taken at trigger `t` and the new dice show `fresh`:
        `launch`, then each new die `land`ed in turn (the order does not matter)."""
        now: State | Flight = self.launch(state, t, option)
        for kind, n in enumerate(fresh):
            for _ in range(n):
                now = self.land(now, kind)  # type: ignore[arg-type]
        assert len(now) == 4
        return now

    def launch(self, state: State, t: int, option: Option) -> State | Flight:
        """Option `option` taken at trigger `t`: the chosen dice are taken away (those holding
        unused triggers first) and the grant is spent. With no die to roll that is the next state;
        else a `Flight`, whose dice are rolled one at a time by `land` — the same distribution as
        rolling them together, with a handful of successors instead of every multiset."""
        counts, unused, _, hist = state
        remove, rolled = option
        if any(remove):
            counts = tuple([c - r for c, r in zip(counts, remove)])
        rows = tuple(
            [
                self._zeros if u == t else tuple([x - r if x > r else 0 for x, r in zip(unused[u], remove)])
                for u in range(len(self.steps))
            ]
        )
        if hist and self.steps[t].action != "add" and hist[2]:  # the dice rerolled away join the history
            first, added, rerolled = hist
            hist = (first, added, tuple([x + r for x, r in zip(rerolled, remove)]))
        base = (counts, rows, self.used_after(state, t, rolled), hist)
        return base if rolled == 0 else (base, t, rolled)

    def land(self, flight: Flight, kind: int) -> State | Flight:
        """One die of a flight falls as `kind`: it joins the pool holding the triggers it sets
        off (not the acting one again when that says `repeat: false`); the state once the last
        one has fallen, else the flight with one die fewer to roll."""
        (counts, rows, used, hist), t, left = flight
        counts = counts[:kind] + (counts[kind] + 1,) + counts[kind + 1 :]
        holds = self._lands[t][kind]
        if holds:
            rows = tuple(
                [
                    row[:kind] + (row[kind] + 1,) + row[kind + 1 :] if u in holds else row
                    for u, row in enumerate(rows)
                ]
            )
        if hist and self.steps[t].action == "add" and hist[1]:  # the dice added join the history
            first, added, rerolled = hist
            hist = (first, added[:kind] + (added[kind] + 1,) + added[kind + 1 :], rerolled)
        state = (counts, rows, used, hist)
        return state if left == 1 else (state, t, left - 1)

    def fresh(self, n: int) -> tuple[tuple[tuple[int, ...], int], ...]:
        """Every way `n` new dice can fall, by kind, with its multinomial weight (total W^n)."""
        found = self._fresh.get(n)
        if found is None:
            found = self._fresh[n] = kind_multisets(self.weights, n)
        return found

    # -- the same rules for real dice, one by one (the sampler) ------------------------------
    # A die's unused steps are a bit mask: bit t set while it holds step t unused.

    def holds(self, face: int, acted: int | None = None) -> int:
        """The triggers a newly rolled face holds unused (a mask); a face rolled by step `acted`
        does not hold that step again when it says `repeat: false`."""
        first, by_step = self._holds[face]
        return first if acted is None else by_step[acted]

    def take(
        self, faces: list[int], unused: list[int], t: int, triggering: list[int], used: int, policy: str
    ) -> tuple[int, list[int], int, bool]:
        """What a rule or a fixed policy does at step `t` with real dice, worked out on the dice
        themselves: (the grant, the dice rerolled — in the order `pick` gives them —, how many dice
        are rolled, whether no die was eligible). The same choice as `options` then `pick` on
        `state_of` (a test holds them to it), without making the counted state. `triggering`
        are the dice that set the step off, which no longer hold it."""
        step = self.steps[t]
        k = step.per_die * len(triggering)
        if self.cap is not None:
            k = max(0, min(k, self.cap - used))
        taken = step.must or policy == "always"
        if step.action == "add":
            return k, [], k if taken else 0, False
        if step.self_target:
            eligible = triggering
        else:
            hit = self._hit[t]
            eligible = [d for d, f in enumerate(faces) if f in hit]
        if not taken or not eligible:
            return k, [], 0, not eligible
        kind_of = self.kind_of
        if len(eligible) > k:  # the least valuable first; among alike dice, those holding steps
            rank = self._face_rank["highest" if step.pick == "highest" else "lowest"]
            if k <= 1:  # the common grant: one die (the first of the least valuable), or none
                return (
                    k,
                    [min(eligible, key=lambda d: (rank[faces[d]], -unused[d].bit_count()))] if k else [],
                    k,
                    False,
                )
            chosen = sorted(eligible, key=lambda d: (rank[faces[d]], -unused[d].bit_count(), d))[:k]
            kept = set(chosen)
            short = {kind_of[faces[d]] for d in eligible if d not in kept}
            # in `pick`'s order: by kind; within a kind cut short, those holding steps first
            chosen.sort(
                key=lambda d: (
                    kind_of[faces[d]],
                    -unused[d].bit_count() if kind_of[faces[d]] in short else 0,
                    d,
                )
            )
            return k, chosen, k, False
        if len(eligible) > 1:
            eligible = sorted(eligible, key=lambda d: (kind_of[faces[d]], d))
        return k, eligible, len(eligible), False

    def pending_among(self, unused: list[int], used: int) -> int | None:
        """`pending` for real dice, without making their state: the quick test a sampled roll
        makes before every step, most often to find that nothing is left to do."""
        if self.cap is not None and used >= self.cap:
            return None
        held = 0
        for u in unused:
            held |= u
        held &= self._active_mask
        return (held & -held).bit_length() - 1 if held else None  # the first step written

    def state_of(self, faces: list[int], unused: list[int], used: int, hist: History = ()) -> State:
        """The state of real dice: how many of each kind, and of those how many hold each trigger
        (`hist`: the history as `counted` gives it)."""
        n = len(self.kinds)
        kind_of = self.kind_of
        counts = [0] * n
        rows = [[0] * n for _ in self.steps]
        for f, u in zip(faces, unused):
            k = kind_of[f]
            counts[k] += 1
            t = 0
            while u:
                if u & 1:
                    rows[t][k] += 1
                u >>= 1
                t += 1
        return (tuple(counts), tuple([tuple(row) for row in rows]), used if self.cap is not None else 0, hist)

    def counted(self, first: list[int], added: list[int], rerolled: list[int]) -> History:
        """The history of real dice (the faces first rolled, added, rerolled away) as states keep it."""
        if not self.pool.history:
            return ()

        def count(faces: list[int]) -> Counts:
            out = [0] * len(self.kinds)
            for f in faces:
                out[self.kind_of[f]] += 1
            return tuple(out)

        return self.history_of(count(first), count(added), count(rerolled))

    def with_history(self, value: Multi, first: list[int], added: list[int], rerolled: list[int]) -> Multi:
        """A sampled pool's value with the parts of its history the check reads."""
        if not self.pool.history:
            return value
        parts = tuple(self.read(f) if keep else None for f, keep in zip((first, added, rerolled), self.keeps))
        return Multi(value.items, value.faces, value.tally, (parts[0], parts[1], parts[2]))

    def pick(
        self, faces: list[int], unused: list[int], remove: tuple[int, ...], among: list[int] | None
    ) -> list[int]:
        """Which real dice an option rerolls: `remove[k]` of each kind, those holding unused
        triggers first (as `after` counts them)."""
        picked: list[int] = []
        pool = among if among is not None else range(len(faces))
        kind_of = self.kind_of
        for k, want in enumerate(remove):
            if not want:
                continue
            candidates = [d for d in pool if kind_of[faces[d]] == k]  # picked dice are of other kinds
            if len(candidates) > want:
                candidates.sort(key=lambda d: -unused[d].bit_count())
            picked.extend(candidates[:want])
        return picked

    def read(self, faces: list[int] | tuple[int, ...]) -> Multi:
        """Real dice as the rules read them: `rules.read_faces`, from the readings made once."""
        if self.pool.each is None:
            return Multi(tuple(faces))
        reading_of = self.reading_of
        return Multi(tuple([reading_of[f] for f in faces]), tuple(faces))

    def final(self, counts: Counts, hist: History) -> Any:
        """The pool as the rules read it once the procedure is over, with the history it keeps
        (a die with triggers: the total of its dice, which keeps none)."""
        value = self.value(counts)
        if not hist:
            return value
        parts = tuple(self.value(c) if keep else None for c, keep in zip(hist, self.keeps))
        return Multi(value.items, value.faces, value.tally, (parts[0], parts[1], parts[2]))

    def value(self, counts: tuple[int, ...], capped: bool = False) -> Any:
        """The dice of these counts by kind as the rules read them (sorted by kind); a die with
        triggers: the total of its dice."""
        if self.pool.total:
            return sum(k.reading * c for k, c in zip(self.kinds, counts))
        items: list[Any] = []
        merged: dict[Any, int] = {}
        for r, c in zip(self._readings, counts):
            if c:
                items += [r] * c
                merged[r] = merged.get(r, 0) + c
        return Multi(tuple(items), tally=tuple(merged.items()))


FREE_FIELDS = 16
"""Fields of a packed state whose packing is in the charge of the state itself (a pool of a few
kinds: every shipped one)."""
FIELDS_PER_UNIT = 4
"""Fields packed or unpacked per unit of work past `FREE_FIELDS` (a field takes about 0.2 µs:
0.55 ms for a state of 3,000 fields, measured on a d1000 with two triggers)."""


class _Plan(NamedTuple):
    """A step's options laid out for `Packing._offsets`: the part of how far each moves a code
    that every state listing them shares, and the columns of the parts that vary by state."""

    options: list[Option]
    fixed: tuple[int, ...]
    varying: tuple[tuple[int, tuple[int, ...], int], ...]
    """Per kind whose taken dice may hold other steps: the kind, the dice taken per option, the most."""
    rolled: tuple[int, ...] | None
    """The dice rolled per option, when what rolling adds varies by state (under a cap)."""
    most: int


_Move = tuple[list[Option], tuple[int, ...]]
"""A state's options and how far each moves its code."""


class Packing:
    """A procedure's counted states and flights as whole numbers, for the exact solver: one
    bit field per count that can be nonzero (the dice of each kind, the unused triggers a kind
    can hold, the dice used, the history kept), the acting step and the dice still in the air
    above them. A number hashes and compares faster than nested tuples, and a die landing is
    one addition: `land` on the fields, worked out once per step and kind from `Procedure.land`
    itself, so the rule is still stated once."""

    def __init__(self, proc: Procedure, bound: int) -> None:
        """`bound`: more than any count a state can hold (the solver's own bound)."""
        self.proc = proc
        n = len(proc.kinds)
        self._held = tuple((t, k) for t in range(len(proc.steps)) for k in range(n) if proc.kinds[k].on[t])
        kept = proc.keeps if proc.pool.history else (False, False, False)
        self._kept = kept
        size = n + len(self._held) + (1 if proc.cap is not None else 0) + n * sum(kept)
        self._cost = max(0, size - FREE_FIELDS) // FIELDS_PER_UNIT
        """Units charged for packing or unpacking one state past the first `FREE_FIELDS` fields
        (a pool of many kinds has states of thousands of fields; a few are in the state's own
        charge)."""
        width = max(bound, 1).bit_length()
        self._mask = (1 << width) - 1
        self._shifts = tuple(range(0, width * size, width))
        self._high = width * size
        self._by_roll: dict[tuple[int, int, int, int], list[int]] = {}
        self._by_kind: dict[tuple[int, ...], list[int]] = {}
        self._holding = tuple(
            tuple(tuple(u for u in range(len(proc.steps)) if u != t and kind.on[u]) for kind in proc.kinds)
            for t in range(len(proc.steps))
        )
        """Per step and kind, the other steps a die of that kind can hold unused (what taking it reads)."""
        rows = [0] * len(proc.steps)  # per step, its unused triggers' fields
        for (t, _), shift in zip(self._held, self._shifts[n:]):
            rows[t] |= self._mask << shift
        self._rows = tuple(rows)
        self._active = tuple(t for t, step in enumerate(proc.steps) if step.active)
        # per step, the fields its options and their launches read: its own unused triggers, and
        # of each kind it can take, the count and the other steps' unused triggers (the dice used
        # too, under a cap); nothing else of a state changes what the step does to it. Fields are
        # named (kind,) for a count and (step, kind) for unused triggers.
        field: dict[tuple[int, ...], int] = {(k,): shift for k, shift in enumerate(self._shifts[:n])}
        field.update({(t, k): shift for (t, k), shift in zip(self._held, self._shifts[n:])})
        reads = []
        declined = []  # per step, what declining it reads: its own unused triggers (and the dice used)
        clips = []
        self._used_at = self._shifts[n + len(self._held)] if proc.cap is not None else 0
        for t, step in enumerate(proc.steps):
            mask = rows[t]
            if proc.cap is not None:
                mask |= self._mask << self._used_at
            declined.append(mask)
            if step.action == "add":
                takes = []
            else:  # a step without a target takes the dice that set it off
                takes = [
                    k for k in range(n) if (proc.kinds[k].on if step.self_target else proc.kinds[k].target)[t]
                ]
            cut = []  # the fields of the dice it may take: read no further than the grant
            for k in takes:
                mask |= self._mask << field[(k,)]
                cut.append(field[(k,)])
                for u in range(len(proc.steps)):
                    if (u, k) in field:
                        mask |= self._mask << field[(u, k)]
                        if u != t:
                            cut.append(field[(u, k)])
            reads.append(mask)
            own = tuple(field[(t, k)] for k in range(n) if (t, k) in field)
            clips.append((tuple(cut), own, step.per_die))
        self._reads = tuple(reads)
        self._clips = tuple(clips)
        """Per step: the fields `_cut` cuts to the grant, and what `grant` reads (the step's own
        unused triggers' fields, and the dice each grants)."""
        self._declined = tuple(declined)
        """Per step, the fields read where the policy declines it (`never` at a `may`): its one
        option takes no die whatever the dice, so only the clearing of its own unused triggers (and,
        under a cap, the dice used) moves a code."""
        self._moved: dict[tuple[int, str], tuple[int, dict[int, _Move], dict[int, _Move] | None]] = {}
        """Per step and policy: the fields read, the moves kept by them, and (where the step can
        take dice) the moves kept by the code cut to the grant (`_cut`)."""
        self._moves_kept = 0
        self._plans: dict[Asked, _Plan] = {}
        self._plans_kept = 0
        self.flying = 1 << self._high
        """Codes from here up are flights."""
        self._landing: dict[int, tuple[int, ...]] = {}
        steps = max(len(proc.steps), 1)
        self._steps = steps
        zero = proc.history_of(proc._zeros, proc._zeros, proc._zeros)
        empty: State = (proc._zeros, tuple(proc._zeros for _ in proc.steps), 0, zero)
        # what landing adds, per step, per whether it is the last die, per kind: a state packed
        # for each, charged before it is made (kinds × fields grows as the square of the faces)
        meter().charge(2 * len(proc.steps) * n * (1 + self._cost))
        self._land = tuple(
            tuple(
                tuple(
                    self.pack(proc.land((empty, t, 2), k)[0])  # type: ignore[arg-type]
                    - ((steps + (t if last else 0)) << self._high)
                    for k in range(n)
                )
                for last in (False, True)
            )
            for t in range(len(proc.steps))
        )
        self._alike = tuple(
            next(u for u in range(t + 1) if self._land[u][0] == self._land[t][0])
            for t in range(len(proc.steps))
        )
        """Per step, the first step whose dice land as its own do (the same fields added, each
        kind): a flight's code names that one, so dice in the air alike but for the step that
        rolled them are one node (two steps that both let a rerolled die hold every trigger again)."""
        self._first = tuple(
            self.pack(proc.start(proc._zeros[:k] + (1,) + proc._zeros[k + 1 :])) for k in range(n)
        )
        """Per kind, the code of a first roll of one die of it: `Procedure.start` fills every field
        of a first roll in proportion to the dice of each kind (their counts, the unused triggers
        they hold, the history's first roll), so a first roll's code is the sum of these (`start`)."""

    def start(self, counts: Counts) -> int:
        """`pack(proc.start(counts))`, summed from one die's code per kind (`_first`; a test holds
        it to the rule): every first roll of a pool is packed, thousands of them at 20 dice."""
        if self._cost:
            meter().charge(self._cost)
        code = 0
        for c, one in zip(counts, self._first):
            if c:
                code += c * one
        return code

    def pack(self, state: State) -> int:
        if self._cost:
            meter().charge(self._cost)
        counts, unused, used, hist = state
        flat = [*counts, *(unused[t][k] for t, k in self._held)]
        if self.proc.cap is not None:
            flat.append(used)
        if hist:
            for part, keep in zip(hist, self._kept):
                if keep:
                    flat.extend(part)
        assert max(flat) <= self._mask and min(flat) >= 0
        code = 0
        for v, shift in zip(flat, self._shifts):
            code |= v << shift
        return code

    def pack_any(self, now: State | Flight) -> int:
        """A state's code, or a flight's: its state's, with the step and the dice left above."""
        if len(now) == 4:
            return self.pack(now)
        state, t, left = now
        return self.pack(state) + ((left * self._steps + self._alike[t]) << self._high)

    def pending(self, code: int) -> int | None:
        """`Procedure.pending` of a state's code, read off its fields without unpacking it: the
        first active step whose unused triggers are not all zero (a test holds it to the rule)."""
        if self.proc.cap is not None:  # the dice used decide too
            return self.proc.pending(self.unpack(code))
        for t in self._active:
            if code & self._rows[t]:
                return t
        return None

    def moves(self, code: int, t: int, policy: str) -> tuple[list[Option], list[int]]:
        """The options at the state of `code` (pending on step `t`) and the code each leads to
        (`launched`), kept by what the step reads of a state (`_reads`; `_declined` where the policy
        declines the step): states alike in those fields share their options and how far each
        moves the code, so most states are never unpacked (a test holds the moves to the
        launches)."""
        moved = self._moved.get((t, policy))
        if moved is None:
            declines = policy == "never" and not self.proc.steps[t].must
            cuts: dict[int, _Move] | None = None if declines or not self._clips[t][0] else {}
            moved = self._moved[(t, policy)] = (self._declined[t] if declines else self._reads[t], {}, cuts)
        reads, kept, cuts = moved
        found = kept.get(code & reads)
        if found is None:
            cut = self._cut(code, t) if cuts is not None else 0
            found = cuts.get(cut) if cuts is not None else None
            if found is None:
                state = self.unpack(code)
                plan = self._planned(state, t, policy)
                found = (plan.options, self._offsets(code, state, t, plan))
                if cuts is not None and self._moves_kept < MOVES_KEPT:
                    cuts[cut] = found
                    self._moves_kept += len(plan.options)
            if self._moves_kept < MOVES_KEPT:
                kept[code & reads] = found
                self._moves_kept += len(found[0])
        options, shifts = found
        return options, [code + d for d in shifts]

    def grant(self, code: int, t: int) -> int:
        """`Procedure.grant` of a state's code, read off its fields without unpacking it (a test
        holds it to the rule)."""
        _, own, per_die = self._clips[t]
        mask = self._mask
        grant = 0
        for shift in own:
            grant += (code >> shift) & mask
        grant *= per_die
        cap = self.proc.cap
        if cap is not None:
            grant = max(0, min(grant, cap - ((code >> self._used_at) & mask)))
        return grant

    def _cut(self, code: int, t: int) -> int:
        """`code` as step `t`'s options read it, every field of the dice it may take cut to the
        grant: no option takes more dice of a kind than the grant, so a count (or another step's
        unused triggers on a kind) above it reads as the grant does — the greedy pick reads
        `min(eligible, grant)`, listing every option reads no more, and taking dice reads how
        many of them hold other steps up to the dice taken (`_taken`). States alike so share one
        move where the fields read in full (`_reads`) would tell them apart: a pool of many dice
        and few triggers meets many counts above its grant."""
        grant = self.grant(code, t)
        mask = self._mask
        key = code & self._declined[t]  # the step's own unused triggers and the dice used, whole
        for shift in self._clips[t][0]:
            v = (code >> shift) & mask
            key |= (v if v < grant else grant) << shift
        return key

    def launched(self, code: int, state: State, t: int, options: list[Option]) -> list[int]:
        """`pack_any(proc.launch(state, t, o))` for every option `o` at the state of `code`, with
        no launch per option (`_plan`, `_offsets`; a test holds the sum to the launch)."""
        return [code + d for d in self._offsets(code, state, t, self._plan(state, t, options))]

    def _planned(self, state: State, t: int, policy: str) -> _Plan:
        """The options at a state pending on step `t`, laid out (`_plan`) once for every state
        alike in what they read (`Procedure.asked`), kept up to `PLANS_KEPT` options."""
        asked = self.proc.asked(state, t, policy)
        plan = self._plans.get(asked)
        if plan is None:
            plan = self._plan(state, t, self.proc.listed(asked))
            if self._plans_kept < PLANS_KEPT:
                self._plans[asked] = plan
                self._plans_kept += 1 + len(plan.options)
        return plan

    def _plan(self, state: State, t: int, options: list[Option]) -> _Plan:
        """How far each option moves a code, split by what it reads. A launch spends the acting
        step's unused triggers (its fields are cleared), taking dice of one kind changes only that
        kind's count, unused triggers and history, and the number rolled only the dice used and
        the flight; so an option moves a code by the clearing, plus the part of the dice rolled
        (`_rolls`), plus one part per kind taken (`_taken`), each worked out by `Procedure.launch`
        itself. Parts that read nothing of the state but the options' own key — a kind that can
        hold no other step, the dice rolled when there is no cap — are summed here once; the
        others are kept as the options' columns, for `_offsets` to add at each state."""
        capped = self.proc.cap is not None  # rolling reads the dice used and the grant spent
        if len(options) == 1:  # one option (a rule, a fixed policy): its parts added in place
            (remove, m) = options[0]
            one = 0 if capped else self._rolls(state, t, m)[m]
            held = []
            for k, j in enumerate(remove):
                if j and self._holding[t][k]:
                    held.append((k, (j,), j))
                elif j:
                    one += self._taken(state, t, k, j)[j]
            return _Plan(options, (one,), tuple(held), (m,) if capped else None, m)
        removes, rolled = zip(*options)
        most = max(rolled)
        fixed: Iterable[int] = (
            repeat(0, len(options)) if capped else map(self._rolls(state, t, most).__getitem__, rolled)
        )
        varying = []
        for k, column in enumerate(zip(*removes)):
            top = max(column)
            if not top:
                continue
            if self._holding[t][k]:  # how many taken dice hold other steps: the state's to say
                varying.append((k, column, top))
            else:
                fixed = map(add, fixed, map(self._taken(state, t, k, top).__getitem__, column))
        return _Plan(options, tuple(fixed), tuple(varying), rolled if capped else None, most)

    def _offsets(self, code: int, state: State, t: int, plan: _Plan) -> tuple[int, ...]:
        """How far each of a plan's options moves the code of `state`: its fixed part, plus the
        parts of the kinds whose dice may hold other steps (and of the dice rolled, under a cap),
        read for this state from lists by how many dice, plus the clearing — one pass per varying
        part, no loop over kinds per option."""
        _, fixed, varying, rolled, most = plan
        cleared = -(code & self._rows[t])
        if len(fixed) == 1:  # one option (a rule, a fixed policy): the parts added in place
            one = cleared + fixed[0]
            for k, column, top in varying:
                one += self._taken(state, t, k, top)[column[0]]
            if rolled is not None:
                one += self._rolls(state, t, most)[rolled[0]]
            return (one,)
        total: Iterable[int] = fixed
        for k, column, top in varying:
            total = map(add, total, map(self._taken(state, t, k, top).__getitem__, column))
        if rolled is not None:
            total = map(add, total, map(self._rolls(state, t, most).__getitem__, rolled))
        return tuple([cleared + d for d in total])

    def _rolls(self, state: State, t: int, most: int) -> list[int]:
        """What rolling 0, 1, … `most` dice at step `t` adds to a code once the step's fields are
        cleared (the dice used, and the flight): all it reads is the step, and under a cap the
        dice used and the grant spent (none rolled may still cut the grant short)."""
        used, spent = state[2], sum(state[1][t])
        key = (t, most, used, spent)
        parts = self._by_roll.get(key)
        if parts is None:
            proc = self.proc
            zero = proc._zeros
            base = self.pack(state) & ~self._rows[t]
            parts = self._by_roll[key] = [
                self.pack_any(proc.launch(state, t, (zero, m))) - base for m in range(most + 1)
            ]
        return parts

    def _taken(self, state: State, t: int, k: int, most: int) -> list[int]:
        """What taking 0, 1, … `most` dice of kind `k` at step `t` adds to a code: all it reads
        is how many of them (up to `most`) hold each other step unused."""
        unused = state[1]
        key = (t, k, most, *[min(unused[u][k], most) for u in self._holding[t][k]])
        parts = self._by_kind.get(key)
        if parts is None:
            proc = self.proc
            zero = proc._zeros
            base = self.pack_any(proc.launch(state, t, (zero, 0)))
            parts = self._by_kind[key] = [0] + [
                self.pack_any(proc.launch(state, t, (zero[:k] + (j,) + zero[k + 1 :], 0))) - base
                for j in range(1, most + 1)
            ]
        return parts

    def unpack(self, code: int) -> State:
        """The state of a code below `flying`."""
        if self._cost:
            meter().charge(self._cost)
        proc = self.proc
        mask = self._mask
        flat = [(code >> shift) & mask for shift in self._shifts]
        n = len(proc.kinds)
        counts = tuple(flat[:n])
        rows = [list(proc._zeros) for _ in proc.steps]
        at = n
        for t, k in self._held:
            rows[t][k] = flat[at]
            at += 1
        used = 0
        if proc.cap is not None:
            used = flat[at]
            at += 1
        hist: History = ()
        if proc.pool.history:
            parts: list[Counts] = []
            for keep in self._kept:
                if keep:
                    parts.append(tuple(flat[at : at + n]))
                    at += n
                else:
                    parts.append(())
            hist = (parts[0], parts[1], parts[2])
        return (counts, tuple([tuple(r) for r in rows]), used, hist)

    def landings(self, code: int) -> list[int]:
        """A flight's successors, one per kind its next die can show (`Procedure.land`)."""
        top = code >> self._high
        deltas = self._landing.get(top)
        if deltas is None:  # what landing adds, by the flight's step and dice left (few of them)
            left, t = divmod(top, self._steps)
            deltas = self._landing[top] = self._land[t][left == 1]
        return [code + d for d in deltas]


def procedure_for(
    pool: Pool, env: Mapping[str, Any], caches: Caches, concrete: Pool | None = None
) -> Procedure:
    """The pool's procedure for the values its faces, `each` and triggers read, kept in the
    ruleset's caches: making one reads every face through them, which costs more than a sampled
    roll. `pool` is the pool as written (the key); `concrete` the same pool with faces read from
    inputs worked out for `env` (`rules.concrete`), when they are."""
    key = ("procedure", id(pool), tuple([env.get(n) for n in pool.procedure_reads]))
    found: tuple[Pool, Procedure] | None = caches.tables.get(key)
    if found is not None and found[0] is pool:  # an id can be reused by a later pool object
        return found[1]
    proc = Procedure(concrete or pool, env)
    caches.tables.put(key, (pool, proc), 256 * (len(pool.faces) + len(proc.kinds) + 1))
    return proc


def _summing(limits: tuple[int, ...], m: int) -> list[tuple[int, ...]]:
    """Every vector v with 0 <= v[i] <= limits[i] and sum(v) == m, in ascending lexicographic
    order (so, taken for sums 0, 1, 2, …, the order of every bounded vector sorted by its sum,
    `itertools.product`'s order among equal sums). Built place by place over the places that can
    be nonzero only, the last taking what is left, with no call per vector: a step's options are
    listed thousands of times in an optimal solve."""
    places = [i for i, c in enumerate(limits) if c]
    n = len(limits)
    if not places:
        return [(0,) * n] if m == 0 else []
    room = [0] * (len(places) + 1)  # room[j]: the most the places from the j-th on can hold
    for j in range(len(places) - 1, -1, -1):
        room[j] = room[j + 1] + limits[places[j]]
    if m > room[0]:
        return []
    partial: list[tuple[tuple[int, ...], int]] = [((), m)]  # each prefix with what it leaves
    for j in range(len(places) - 1):
        c, after = limits[places[j]], room[j + 1]
        partial = [
            (p + (x,), left - x) for p, left in partial for x in range(max(0, left - after), min(c, left) + 1)
        ]
    whole = [p + (left, 0) for p, left in partial]  # a 0 for every place that cannot be nonzero
    if len(places) == n:
        return [v[:-1] for v in whole]
    where = {p: j for j, p in enumerate(places)}  # n > 1 here: itemgetter gives tuples
    return list(map(itemgetter(*[where.get(i, len(places)) for i in range(n)]), whole))
