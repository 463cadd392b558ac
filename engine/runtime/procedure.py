"""Reroll procedures in a pool: triggers, the player's choices, sampled and solved exactly.

A pool with triggers is rolled, then steps run until none is pending: the first trigger (in
declared order) that has dice which set it off and have not yet been used takes all of them,
grants `per_die` rerolls (or added dice) for each, and the policy — or the rule, for a `must`
— decides which dice are rerolled. Rerolled dice are new dice: they may set off triggers
again (not the step that rolled them when it says `repeat: false`, and no step that says
`first_roll_only: true`: `ruleset.sets_off`), and a rerolled die loses any trigger it had
not yet used (among alike dice, those with unused triggers are rerolled first).

Faces that behave alike (same reading through `each`, same triggers, same targets) form one
*kind*; the procedure only ever looks at how many dice of each kind there are and how many of
those have unused triggers. That state is hashable, the sampler and the exact solver share
every rule about it (`pending`, `options`, `after`), and the exact solver treats the
procedure as an absorbing Markov chain over these states, so long chains are solved exactly
rather than cut off.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import chain
from operator import attrgetter, itemgetter
from typing import Any

from ..errors import Diagnostic, EndlessError, EvalError
from ..frozen import frozen, replace
from ..model.ruleset import Pool, Trigger, acts_on_every_die, adds_without_end, endless_steps, sets_off
from ..model.values import Multi, Symbol, faces_text, show
from .builtins import HISTORY
from .cache import Caches
from .folds import matches
from .multisets import kind_multisets
from .rules import count_keys_for
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
    whole: bool
    """A `may` step's grant is taken whole or not at all (`take: all`)."""


def _at_face(exc: EvalError, pool: Pool, face: Any) -> EvalError:
    """`exc`, met reading a face of `pool` with its triggers, said so in its hint: every face is
    read so when the roll begins, whatever the dice show, so a table with no row for a face no die
    showed failed the roll (hunt 13p: "nothing matched f = 2" where the dice showed 3 and 4)."""
    first, *rest = exc.diagnostics
    note = (
        f"met reading face {show(face)} of '{pool.name}' with its triggers, as every face "
        "is when the roll begins, whatever the dice show"
    )
    hint = f"{first.hint}; {note}" if first.hint else note
    return type(exc)([replace(first, hint=hint), *rest])


def _runs(faces: list[int], place: Mapping[int, int], alike: int) -> list[tuple[int, ...]]:
    """A group of faces that read alike and play the same parts, split where a face that reads
    alike but plays another part falls between them: dice that read the same are taken by face
    (docs/language.md, rule 5), so a kind is a run of such faces. Faces 2 and 4 of one part with 3
    of another between them are two kinds, 2 before 3 before 4 (hunt 13z: as one, the 4 was
    rerolled before the 3). `place`: each face's place among the `alike` faces of its reading."""
    if alike == len(set(faces)):
        return [tuple(faces)]
    runs: list[list[int]] = []
    for f in sorted(faces):
        if runs and place[f] - place[runs[-1][-1]] == 1:  # next to the last: the same run
            runs[-1].append(f)
        else:
            runs.append([f])
    return [tuple(run) for run in runs]


class Procedure:
    """One pool's reroll procedure for fixed inputs: its kinds, steps and the shared rules."""

    def __init__(self, pool: Pool, env: Mapping[str, Any], depth: int | None = None) -> None:
        """`depth`: where the exact solver cuts an uncapped explosion (a cap of its own, whose
        reach is reported as truncated, not capped), kept only where the steps that can act in
        this roll can add dice without end; the sampler gives none and rolls on."""
        self.pool = pool
        scope = dict(env)
        groups: dict[tuple[Any, ...], list[int]] = {}
        # each face is read and tried against every trigger: a die of many faces is much work
        meter().charge(len(pool.faces) * (1 + len(pool.triggers)))
        for face in pool.faces:
            try:
                reading = read(pool, scope, face)  # sets `face` in the scope for the triggers too
                on = tuple(bool(t.on.run(scope)) for t in pool.triggers)
                target = tuple(
                    bool(t.target.run(scope)) if t.target is not None else False for t in pool.triggers
                )
            except EvalError as exc:
                raise _at_face(exc, pool, face) from None
            groups.setdefault((reading, on, target), []).append(face)
        by_reading: dict[Any, set[int]] = {}
        for (r, _, _), faces in groups.items():
            by_reading.setdefault(r, set()).update(faces)
        place = {f: i for fs in by_reading.values() for i, f in enumerate(sorted(fs))}
        plain = [
            Kind(r, run, on, tg)
            for (r, on, tg), faces in groups.items()
            for run in _runs(faces, place, len(by_reading[r]))
        ]
        first = {f: i for i, f in reversed(list(enumerate(pool.faces)))}
        plain.sort(key=lambda k: first[k.faces[0]])  # as the die lists its faces (runs apart too)
        self.reading_of = {f: k.reading for k in plain for f in k.faces}
        """Each face's own reading (a sampled roll's dice are read by it, whatever the kinds)."""
        ranked = sorted(plain, key=attrgetter("order"))  # the order `pick` takes dice in, lowest first
        keys = count_keys_for(pool, env)
        merged = _merged(ranked, keys, pool.triggers)
        # merged kinds, made in the order `pick` takes them, are kept as the die lists its faces
        # too, so a tie among options of as many dice goes the same way merged or not (hunt 13zb)
        listed = (
            None
            if merged is None
            else sorted(range(len(merged)), key=lambda i: min(first[f] for f in merged[i].faces))
        )
        self.kinds = tuple(plain) if merged is None or listed is None else tuple(merged[i] for i in listed)
        self.kind_of = {f: i for i, k in enumerate(self.kinds) for f in k.faces}
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
                t.take == "all",
            )
            for t in pool.triggers
        )
        self.acting = frozenset(
            u for u, step in enumerate(self.steps) if step.active and any(k.on[u] for k in self.kinds)
        )
        """The steps that can act in this roll: its `only_if` true, and its `on` holding on some face
        (both may read the inputs)."""
        self.endless = (
            frozenset()
            if pool.cap is not None
            else endless_steps(
                pool.triggers,
                [
                    u
                    for u in self.acting
                    if acts_on_every_die(
                        pool.triggers[u],
                        all(k.on[u] for k in self.kinds),
                        all(k.target[u] for k in self.kinds),
                    )
                ],
            )
        )
        """The steps that, for these inputs, act on every die and set each other off for ever, with
        no cap: a roll of one die or more never ends (`never_ends`; the compiler's `RC313` where
        the faces alone decide it). Empty for a procedure whose every roll ends."""
        endless = pool.cap is None and adds_without_end(pool.triggers, self.acting)
        self.cap = pool.cap if pool.cap is not None else (depth if endless else None)
        self.truncating = endless and depth is not None
        """The cap is the exact solver's depth, not the game's: a roll whose rules would take it
        past the depth stops before the grant that would (`pending`), and is reported as
        truncated (`capped`)."""
        self._on = tuple(tuple(k.on[u] for k in self.kinds) for u in range(len(self.steps)))
        self._targets = tuple(tuple(k.target[u] for k in self.kinds) for u in range(len(self.steps)))
        by_value = (
            sorted(range(len(self.kinds)), key=lambda i: self.kinds[i].order)
            if listed is None
            else sorted(range(len(self.kinds)), key=lambda i: listed[i])  # merged: the order made
        )
        self._order = {"lowest": tuple(by_value), "highest": tuple(reversed(by_value))}
        n_steps = len(self.steps)
        rank = {p: {k: i for i, k in enumerate(order)} for p, order in self._order.items()}
        self._face_rank = {p: {f: r[self.kind_of[f]] for f in self.kind_of} for p, r in rank.items()}
        self._hit = tuple(
            frozenset(f for k in self.kinds if k.target[u] for f in k.faces) for u in range(n_steps)
        )
        self._active_mask = sum(1 << t for t, step in enumerate(self.steps) if step.active)
        triggers = pool.triggers

        def held(k: Kind, by: int | None) -> list[int]:
            """The steps a die holds unused when it falls as kind `k`, rolled by step `by` (None:
            first rolled): those its face sets off and that such a die may (`sets_off`). A step
            that never acts in this roll (its `only_if` false) is held by every die its face
            sets off, whoever rolled it: it rolls nothing and is never used, and held alike it
            leaves alike dice alike."""
            return [
                u
                for u in range(n_steps)
                if k.on[u] and (not self.steps[u].active or sets_off(triggers, u, by))
            ]

        _first_roll_order(pool, self.steps, plain)

        # the steps a face holds (a mask) when first rolled, and when rolled by each step
        self._holds = {
            f: (
                sum(1 << u for u in held(k, None)),
                tuple(sum(1 << u for u in held(k, t)) for t in range(n_steps)),
            )
            for k in self.kinds
            for f in k.faces
        }
        self.zeros = tuple(0 for _ in self.kinds)
        """No die of any kind: the counts of an empty pool (`Packing` packs its states from it too)."""
        # the triggers a die rolled by step t holds when it falls as each kind
        self._lands = tuple(tuple(frozenset(held(k, t)) for k in self.kinds) for t in range(n_steps))
        self.keeps = tuple(h in pool.history for h in HISTORY)
        """Which parts of the history the check reads (first roll, added, rerolled)."""
        self._gather = tuple(_gathering(self.kinds, keys, h) for h in HISTORY)
        """Per part of the history, the kind each kind's dice are counted under there: the first
        alike in every count the check reads of that part (-1: in none, not kept; None: each its
        own). A check that reads `1 in first_roll(p)` keeps of the first roll only its 1s, not
        every kind the pool's own counts tell apart."""
        self.summed = _summed_kinds(pool, self.kinds, self.steps)
        """The kinds whose dice, once they have fallen, only add their reading to all the check
        reads of the pool: states alike in how many such dice there are and what they add up to
        lead to the same remaining computation (`Packing` keeps them so). Empty where none are."""
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
        return (counts, unused, 0, self.history_of(counts, self.zeros, self.zeros))

    def history_of(self, first: Counts, added: Counts, rerolled: Counts) -> History:
        """The history a state keeps: only the parts the check reads, nothing when it reads none."""
        if not self.pool.history:
            return ()
        return tuple(
            _gathered(c, rep) if keep else ()
            for c, keep, rep in zip((first, added, rerolled), self.keeps, self._gather)
        )

    def pending(self, state: State) -> int | None:
        """The trigger that acts next, or None when the procedure is over. The solver's depth
        (`truncating`) ends it before a grant it would cut short, the step left waiting, so that
        `capped` counts every roll the depth cut, and only those."""
        unused, used, cap = state[1], state[2], self.cap
        if cap is not None and used >= cap:
            return None
        for t, step in enumerate(self.steps):
            if step.active and any(unused[t]):
                if self.truncating and cap is not None and step.per_die * sum(unused[t]) > cap - used:
                    return None
                return t
        return None

    def capped(self, state: State, policy: str = "always") -> bool:
        """Whether the cap, not the rules, cut the procedure short on the way here (asked of a
        state where it is over): a step that could still act is waiting, and the game's cap was
        reached, or the solver's depth stopped it (`pending`). Under `never` a `may` step could
        not: the policy declines it, so a cap that leaves only such steps waiting changed
        nothing (hunt 13n: a `never` roll was told the cap ended it, the same distribution as
        without the cap). Under `optimal` a waiting `may` step counts: best play might take it."""
        unused, used = state[1], state[2]
        if self.cap is None:
            return False
        declining = policy == "never"
        waiting = any(
            step.active and any(unused[t]) and not (declining and not step.must)
            for t, step in enumerate(self.steps)
        )
        return waiting and (self.truncating or used >= self.cap)

    def used_after(self, state: State, t: int, rolled: int) -> int:
        """Dice used once `rolled` more are rerolled or added at trigger `t` (0 without a cap, so
        states alike but for it are one). A grant the cap cut short ends the procedure only
        when its dice reach the cap: dice declined or not there leave the rest of it to the
        steps after ("that many dice have been rerolled or added, stop")."""
        return 0 if self.cap is None else state[2] + rolled

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
        dice — for a reroll, the grant no larger than the eligible dice and the eligible dice of
        each kind no more than the grant (no option takes more), so states alike but for rerolls
        they cannot use share one list."""
        k = self.grant(state, t)
        eligible = self.eligible(state, t)
        if self.steps[t].action != "add":
            k = min(k, sum(eligible))
            eligible = tuple([e if e < k else k for e in eligible])
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
        none = tuple([0] * n)
        if step.action == "add":
            if step.must or policy == "always":
                return [(none, k)]
            if policy == "never" or k == 0:
                return [(none, 0)]
            return [(none, 0), (none, k)] if step.whole else [(none, j) for j in range(k + 1)]
        if step.must or policy == "always":
            take = self._greedy(eligible, min(k, sum(eligible)), t)
            return [(take, sum(take))]
        if policy == "never":
            return [(none, 0)]
        if step.whole:  # the grant as `always` takes it, or nothing (fewest dice first)
            take = self._greedy(eligible, min(k, sum(eligible)), t)
            return [(none, 0), (take, sum(take))] if sum(take) else [(none, 0)]
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

    def single(self, t: int, policy: str) -> bool:
        """Whether step `t` offers one option under `policy` that takes dice by `pick_order`: a
        reroll the rule forces or the policy `always` takes (what `_listed` lists for it)."""
        step = self.steps[t]
        return step.action != "add" and not step.self_target and (step.must or policy == "always")

    def pick_order(self, t: int) -> tuple[int, ...]:
        """The kinds in the order step `t`'s one option takes their dice (`single`)."""
        return self._order["highest" if self.steps[t].pick == "highest" else "lowest"]

    def _greedy(self, eligible: tuple[int, ...], j: int, t: int) -> tuple[int, ...]:
        take = [0] * len(self.kinds)
        for i in self.pick_order(t):
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
                self.zeros if u == t else tuple([x - r if x > r else 0 for x, r in zip(unused[u], remove)])
                for u in range(len(self.steps))
            ]
        )
        if hist and self.steps[t].action != "add" and hist[2]:  # the dice rerolled away join the history
            first, added, rerolled = hist
            hist = (
                first,
                added,
                _gathered(tuple([x + r for x, r in zip(rerolled, remove)]), self._gather[2]),
            )
        base = (counts, rows, self.used_after(state, t, rolled), hist)
        return base if rolled == 0 else (base, t, rolled)

    def land(self, flight: Flight, kind: int) -> State | Flight:
        """One die of a flight falls as `kind`: it joins the pool holding the triggers it sets
        off and may hold (`ruleset.sets_off`: not the acting one again when that says `repeat:
        false`, nor one that says `first_roll_only`); the state once the last
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
            rep = self._gather[1]
            at = kind if rep is None else rep[kind]
            if at >= 0:  # a die in no count the check reads of them is not kept (`_gathering`)
                hist = (first, added[:at] + (added[at] + 1,) + added[at + 1 :], rerolled)
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
        holds those `ruleset.sets_off` lets it (not that step again when it says `repeat:
        false`, nor a step that says `first_roll_only`)."""
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


SUMMED_READS = frozenset({("sum",), ("count",)})
"""The statistics that read a pool's dice by their total and their number alone."""
SUMMED_KINDS_MOST = 64
"""A die of more kinds is not summed. A flight still lands on every kind, and an end reads every
kind's count, while the work model charges a flight as one node and a state by its fields: a d1000
adding three dice on its 1000, summed, packed three fields where it had packed 1,001, and ran
35 s and 3.1 GB to its RC503 where, charged by its fields, it was refused in 1.25 s (hunt
13zn). A d100 of a hundred kinds, summed, ran 4 s within the default budget."""


def _summed_kinds(pool: Pool, kinds: tuple[Kind, ...], steps: tuple[StepRule, ...]) -> tuple[int, ...]:
    """The kinds whose dice can be kept as how many there are and the sum of their readings: the
    check reads the pool only by that total (a die with triggers, whose value is its total; or
    only `sum(p)` and `count(p)`, with no history and no redraw, which would read the pool
    otherwise), and no step ever takes a die of the kind (none rerolls it: it is no step's
    target, nor on a step that rerolls the dice that set it off), so it stays as it fell. Steps
    that add dice still see it by its unused triggers, which are kept per kind. Its readings must
    be whole numbers filling a range (any count and sum the dice can make is then also made by
    the highest, the lowest and at most one die between, which the solver reads a state by), and
    at least two kinds must be such: else nothing is merged; and the die must have at most
    `SUMMED_KINDS_MOST` kinds. A d20 that adds a die on 16-20 is then about 4k states k dice
    deep, where counts of each face it can show are C(k+4, 4)."""
    if pool.history or len(kinds) > SUMMED_KINDS_MOST:
        return ()
    if not pool.total and (not pool.folds or pool.redraw is not None or not set(pool.folds) <= SUMMED_READS):
        return ()
    taken = {  # a step that never acts in this roll too: `Packing` reads the dice any step may take
        k
        for t, step in enumerate(steps)
        if step.action != "add"
        for k, kind in enumerate(kinds)
        if kind.target[t] or (step.self_target and kind.on[t])
    }
    found = tuple(k for k, kind in enumerate(kinds) if k not in taken and type(kind.reading) is int)
    readings = {kinds[k].reading for k in found}
    if len(found) < 2 or len(readings) != max(readings) - min(readings) + 1:
        return ()
    return found


def _first_roll_order(pool: Pool, steps: tuple[StepRule, ...], kinds: list[Kind]) -> None:
    """Refuse (`RC327`) a step that takes only the first roll's dice (`first_roll_only`) after a
    step acting on the same faces that every die may set off: the earlier step would leave a die
    of the first roll holding only the later one, beside dice rolled since holding only the
    earlier one. The procedure keeps, per kind, how many dice still hold each step, which is
    whole only while one alike die's unused steps include the other's: declared first, a
    first-roll step is used by every die that holds it before any other step acts on them."""
    for j, later in enumerate(pool.triggers):
        if not later.first_roll_only or not steps[j].active:
            continue
        for i, earlier in enumerate(pool.triggers[:j]):
            if earlier.first_roll_only or not steps[i].active:
                continue
            shared = sorted({f for k in kinds if k.on[i] and k.on[j] for f in k.faces})  # a face once
            if shared:
                faces = str(shared[0]) if len(shared) == 1 else faces_text(tuple(shared))
                raise EvalError(
                    [
                        Diagnostic(
                            "RC327",
                            f"'{later.name}' takes only the first roll's dice (first_roll_only), but "
                            f"'{earlier.name}', before it, acts on the same faces ({faces})",
                            later.span,
                            f"declare '{later.name}' before '{earlier.name}': a step that takes only the "
                            "first roll's dice must come before the other steps its faces set off",
                        )
                    ]
                )


def _merged(
    plain: list[Kind], keys: tuple[tuple[Any, ...], ...] | None, triggers: tuple[Trigger, ...]
) -> tuple[Kind, ...] | None:
    """The kinds the procedure counts: `plain` (faces alike in reading and in every step, in the
    order `pick` takes them), with neighbours merged where the check cannot tell them apart. A
    check that reads the pool, and the parts of its history it reads, only through counts of
    readings (`count(p, 8..10)`, `1 in first_roll(p)`: `Pool.count_keys`, worked out for the
    inputs) sees of a die only which of those it is counted in; dice alike in that and in every step
    lead to the same remaining computation, so a d10 pool whose 10s add a die, counted 8-10, is
    three kinds, not ten (1-7, 8-9, and 10, which holds the step). Faces that hold a step are
    merged only where no step ever chooses among them (`_unpicked`), and merged kinds must be
    runs of `plain`'s order, so that the dice a rule or `always` takes, lowest first, are alike
    either way; where they would not be, nothing is merged. A merged kind reads as its first
    member (any member: the counts agree; the history's counts are kept per merged kind, and read
    alike). None where nothing is merged."""
    if keys is None or not plain:
        return None

    def alike(k: Kind) -> tuple[Any, ...]:
        counted = tuple(matches(k.reading, key[1]) for key in keys if len(key) == 2)
        # a die that holds a step is merged only where nothing picks among such dice: which of
        # several alike dice a reroll takes depends on which still hold their steps (they go
        # first), and that would then reach across faces the rules take in another order
        return (counted, k.on, k.target, id(k) if any(k.on) and not _unpicked(k, triggers) else None)

    runs: list[list[Kind]] = []
    for k in plain:
        if runs and alike(runs[-1][0]) == alike(k):
            runs[-1].append(k)
        else:
            runs.append([k])
    if len(runs) == len(plain) or len({alike(run[0]) for run in runs}) < len(runs):
        return None  # nothing to merge, or dice alike split by others
    return tuple(
        Kind(run[0].reading, tuple(sorted(f for k in run for f in k.faces)), run[0].on, run[0].target)
        for run in runs
    )


def _gathering(
    kinds: tuple[Kind, ...], keys: tuple[tuple[Any, ...], ...] | None, part: str
) -> tuple[int, ...] | None:
    """For a part of the history (`first_roll`...), the kind each kind is counted under there:
    the first kind alike in every count the check reads of the part (`Pool.count_keys`); None
    where the check reads the history otherwise (each kind its own)."""
    if keys is None:
        return None
    whole = (part,) in keys  # `count(first_roll(p))`: how many, whatever they show
    seen: dict[tuple[bool, ...], int] = {}
    out: list[int] = []
    for i, k in enumerate(kinds):
        counted = tuple(matches(k.reading, key[1]) for key in keys if key[0] == part and len(key) == 2)
        out.append(seen.setdefault(counted, i) if whole or any(counted) else -1)  # -1: in no count read
    return tuple(out)


def _gathered(counts: Counts, rep: tuple[int, ...] | None) -> Counts:
    """`counts` by kind, each added to the kind it is counted under (`_gathering`; left out where
    no count read holds it)."""
    if rep is None:
        return counts
    out = [0] * len(counts)
    for c, i in zip(counts, rep):
        if i >= 0:
            out[i] += c
    return tuple(out)


def _unpicked(k: Kind, triggers: tuple[Trigger, ...]) -> bool:
    """Whether no step ever chooses among dice of kind `k`: every step they set off is a rule
    (`must`) on the dice that set it off (no `target`), which takes all of them, and no step
    targets them. Such dice differ only in which steps they still hold, which the chain counts
    per kind, and no pick ever reads it (a cap that cuts a step short takes any of them: the
    check counts them alike)."""
    if any(k.target):
        return False
    return all(t.must and t.target is None for u, t in enumerate(triggers) if k.on[u])


def never_ends(pool: Pool, mays_taken: bool = False) -> EndlessError:
    """A roll of `pool` that can never end for the inputs given, told at the pool with where its
    cap goes: its `Procedure.endless` steps, or a chain of rerolls the exact solver found has no
    end (`mays_taken`: a `may` step is taken every time, under the policy `always`)."""
    hint = f"{pool.set_cap}, or narrow the trigger's 'on' (or the inputs it reads)"
    if mays_taken:  # the player's to stop, as the policy never does
        hint += "; if a 'may' reroll taken every time is what never ends, the policy 'never' declines it"
    return EndlessError([Diagnostic("RC503", "this chain of rerolls never ends", pool.span, hint)])


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
