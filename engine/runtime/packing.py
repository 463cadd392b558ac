"""A reroll procedure's counted states and flights as whole numbers, for the exact solver.

`Procedure` (procedure.py) states the rules on states of nested tuples, which the sampler and
the solver share; the solver walks hundreds of thousands of them, and a whole number hashes,
compares and moves faster. `Packing` lays every count out as a bit field and restates what the
solver asks of a state (`pending`, `grant`, a step's `moves`, a die's landing, a first roll) on
the code itself, each part worked out from the rules once (`launch`, `land`, `start`) so each
rule is still stated once; `tests/test_reroll_solver.py` holds every such reading to the rule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import repeat
from operator import add
from typing import NamedTuple

from .procedure import Asked, Counts, Flight, History, Option, Procedure, State
from .work import meter

MOVES_KEPT = 1 << 19
"""How many moves a packing keeps for reuse, counted by their options (about 18 MB at most). At
20 dice under `optimal` solved node by node all it lists are kept: 401,889 options, 13.6 MB
counted deep; at 2^18 it filled at 7.9 MB and the moves of about 7,000 states were worked out
again (`_move`), 3 % of that solve's instructions."""
PLANS_KEPT = 1 << 18
"""How many options a packing keeps laid out for reuse (`Packing._plan`; each list counts one more
than its options): the benchmark's 20-dice reroll procedure under `optimal` keeps all it lists
(8,527 lists, 142,474 options, about 12 MB of resident memory)."""
SPREAD = 0x1E3779B97F4A7C15
"""A code is its fields' number times 1 + SPREAD · 2^b, b past every field: the fields stay where
they are (read with the same masks and shifts, moved by additions), and above them a copy times
this odd 61-bit constant makes Python's hash of the code (the number modulo 2^61 − 1) the fields'
number times a large constant modulo that prime. The fields' number alone hashes to itself, and
its low bits — a dictionary's slot — are a few small counts: at 20 dice, 269,766 codes in 1,540
slots of 2^19, where a look-up took twice as long."""
FREE_FIELDS = 16
"""Fields of a packed state whose packing is in the charge of the state itself (a pool of a few
kinds: every shipped one)."""
FIELDS_PER_UNIT = 4
"""Fields packed or unpacked per unit of work past `FREE_FIELDS` (a field takes about 0.2 µs:
0.55 ms for a state of 3,000 fields, measured on a d1000 with two triggers)."""
BITS_PER_STEP = 10_000
"""A packed or unpacked field costs once more per this many bits of its state's fields: unpacking
shifts the whole code down once per field, and packing (`code |= v << shift`, and `start`'s sum)
copies the code grown so far once per field, so both grow as the square of the fields
(unpacking 0.16 µs a field at 80 bits, 1.1 µs at 11,000, 1.4 µs at 33,000, 3.6 µs at 66,000;
packing 3,000 fields of 11 bits 3.9 ms, 6,000 9.9 ms: measured on the 2-core machine under load).
Charged by its fields alone, a d1000 whose faces are a thousand kinds, with a trigger adding a die
(whose cap makes every state read unpacked), ran 2.6-3 s to its RC503 on the default budget."""


Sums = Callable[[int, Sequence[int]], list[int]]
"""`(code, deltas)` to `[code + d for d in deltas]`: a node's successors (`sums`)."""


def _summed(code: int, deltas: Sequence[int]) -> list[int]:
    return [code + d for d in deltas]


_WRITTEN: tuple[Sums, ...] = (
    lambda c, d: [],
    lambda c, d: [c + d[0]],
    lambda c, d: [c + d[0], c + d[1]],
    lambda c, d: [c + d[0], c + d[1], c + d[2]],
    lambda c, d: [c + d[0], c + d[1], c + d[2], c + d[3]],
    lambda c, d: [c + d[0], c + d[1], c + d[2], c + d[3], c + d[4]],
    lambda c, d: [c + d[0], c + d[1], c + d[2], c + d[3], c + d[4], c + d[5]],
    lambda c, d: [c + d[0], c + d[1], c + d[2], c + d[3], c + d[4], c + d[5], c + d[6]],
    lambda c, d: [c + d[0], c + d[1], c + d[2], c + d[3], c + d[4], c + d[5], c + d[6], c + d[7]],
)


def sums(n: int) -> Sums:
    """`[code + d for d in deltas]` for `n` deltas, written out as a list display up to eight:
    CPython 3.11 makes a comprehension a function of its own, made and called at every use,
    which costs about as much as the additions themselves (a flight with five kinds to land on:
    about 4,400 instructions as a comprehension, 2,600 written out). The benchmark's pool of 20
    d10 under `optimal` makes about 80,000 lists this way (a flight's landings, a state's options), and best
    play reads about 150,000 flights' successors' scores the same way (`packed.reads`);
    tests/test_packing_sums.py holds each to the comprehension."""
    return _WRITTEN[n] if n < len(_WRITTEN) else _summed


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


_Move = tuple[list[Option], tuple[int, ...], tuple[int, ...], Sums]
"""A state's options and how far each moves its code, and its fields (the code over `SPREAD`),
once the acting step's own unused triggers are cleared; and what adds those shifts to a code
(`sums`)."""
_Moving = tuple[int, dict[int, tuple[int, _Move]], dict[int, _Move], bool, bool]
"""A step's moves under one policy (`Packing._moved`)."""


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
        summed = proc.summed
        self._summed = summed
        self._plain = tuple(k for k in range(n) if k not in summed)
        """The kinds counted each in a field of its own; the dice of the others (`summed`) are
        kept as how many there are and the sum of their readings past the lowest (`counts`)."""
        counted = len(self._plain)
        size = counted + len(self._held) + (1 if proc.cap is not None else 0) + n * sum(kept)
        width = max(bound, 1).bit_length()
        low = min([proc.kinds[k].reading for k in summed], default=0)
        self._past = tuple(proc.kinds[k].reading - low for k in summed)
        """Per summed kind, how far its reading is past the lowest."""
        self._widest = max(self._past, default=0)
        self._by_past = {p: k for k, p in reversed(list(zip(summed, self._past)))}
        """Per distance past the lowest reading, the first summed kind that reads so: what a
        state's summed dice are read as (the highest, at most one between, the rest the lowest)."""
        most = max(bound, 1) * len(summed)  # as many as the kinds' own fields would hold
        dice_width = most.bit_length() if summed else 0
        sum_width = (most * self._widest).bit_length()
        self._cost = max(0, size - FREE_FIELDS) // FIELDS_PER_UNIT
        """Units for a state's fields past the first `FREE_FIELDS` (a pool of many kinds has states
        of thousands of fields; a few are in the state's own charge)."""
        self._code_cost = self._cost * (1 + width * size // BITS_PER_STEP)
        """Units charged for packing or unpacking one state: `_cost`, more for a long code
        (`BITS_PER_STEP`)."""
        self._mask = (1 << width) - 1
        self._shifts = tuple(range(0, width * size, width))
        self._dice_at = width * size
        self._dice_mask = (1 << dice_width) - 1
        self._sum_at = self._dice_at + dice_width
        """Where the summed dice's number and the sum of their readings (past the lowest) are kept,
        in fields of their own width above the others: room for as many dice as each summed kind's
        own field would hold (a sampled roll asking best play may hold more than the solver's
        chain: `RerollSolver.depth_for`)."""
        self._sum_mask = (1 << sum_width) - 1
        self._high = self._sum_at + sum_width
        self._count_shifts = self._shifts[: len(self._plain)]
        self._by_roll: dict[tuple[int, int, int, int], list[int]] = {}
        self._by_kind: dict[tuple[int, ...], list[int]] = {}
        self._holding = tuple(
            tuple(tuple(u for u in range(len(proc.steps)) if u != t and kind.on[u]) for kind in proc.kinds)
            for t in range(len(proc.steps))
        )
        """Per step and kind, the other steps a die of that kind can hold unused (what taking it reads)."""
        rows = [0] * len(proc.steps)  # per step, its unused triggers' fields
        for (t, _), shift in zip(self._held, self._shifts[counted:]):
            rows[t] |= self._mask << shift
        self._rows = tuple(rows)
        self._active = tuple(t for t, step in enumerate(proc.steps) if step.active)
        self._pending_rows = tuple((t, self._rows[t]) for t in self._active)
        # per step, the fields its options and their launches read: its own unused triggers, and
        # of each kind it can take, the count and the other steps' unused triggers (the dice used
        # too, under a cap); nothing else of a state changes what the step does to it. Fields are
        # named (kind,) for a count and (step, kind) for unused triggers.
        field: dict[tuple[int, ...], int] = {(k,): shift for k, shift in zip(self._plain, self._count_shifts)}
        field.update({(t, k): shift for (t, k), shift in zip(self._held, self._shifts[counted:])})
        reads = []
        whole: list[int] = []
        greedy: list[tuple[tuple[int, tuple[int, ...]], ...]] = []
        declined = []  # per step, what declining it reads: its own unused triggers (and the dice used)
        clips = []
        self._used_at = self._shifts[counted + len(self._held)] if proc.cap is not None else 0
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
            # the step's own unused triggers are read only through the grant where the dice it
            # takes are counts (they are the dice under `self_target`), and without a cap (which
            # the dice rolled read, with the dice used: `_rolls`); else they stay whole
            whole.append(declined[t] if proc.cap is not None or step.self_target else 0)
            greedy.append(
                tuple(
                    (
                        field[(k,)],
                        tuple(field[(u, k)] for u in range(len(proc.steps)) if u != t and (u, k) in field),
                    )
                    for k in proc.pick_order(t)
                    if k in takes
                )
            )
        self._reads = tuple(reads)
        self._clips = tuple(clips)
        """Per step: the fields `_cut` cuts to the grant, and what `grant` reads (the step's own
        unused triggers' fields, and the dice each grants)."""
        self._whole = tuple(whole)
        """Per step, the fields `_cut` keeps whole (the rest of a state's own unused triggers is
        read through the grant)."""
        self._greedy = tuple(greedy)
        """Per step, in the order its one option takes them (`Procedure.pick_order`), each kind it
        may take: the field of its count and those of the other steps' unused triggers on it."""
        self._declined = tuple(declined)
        """Per step, the fields read where the policy declines it (`never` at a `may`): its one
        option takes no die whatever the dice, so only the clearing of its own unused triggers (and,
        under a cap, the dice used) moves a code."""
        self._moved: dict[tuple[int, str], _Moving] = {}
        """Per step and policy: the fields read, the moves kept by them (a state's clearing of the
        step's own triggers, and its move, shared with the second key), the moves kept by the
        code cut to what the options read (`_cut`: shifts once the step's own unused triggers are
        cleared), whether the step can take dice under the policy (else the second key is the
        fields read), and whether it offers one option (`Procedure.single`)."""
        self._moves_kept = 0
        self._plans: dict[Asked, _Plan] = {}
        self._plans_kept = 0
        steps = max(len(proc.steps), 1)
        self._steps = steps
        top = ((max(bound, 1) + 1) * steps).bit_length()
        self._top = (1 << top) - 1
        """The flight's own field above the state's: the dice still in the air and the step."""
        self._spread = 1 + (SPREAD << (self._high + top))
        """What every field is multiplied by to make a code (`SPREAD`)."""
        self.flying = (1 << self._high) * self._spread
        """Codes from here up are flights."""
        self._landing: dict[int, tuple[int, ...]] = {}
        self.landed = sums(n)
        """A flight's successors from its code and its deltas (`flight_deltas`): one per kind."""
        zero = proc.history_of(proc.zeros, proc.zeros, proc.zeros)
        empty: State = (proc.zeros, tuple(proc.zeros for _ in proc.steps), 0, zero)
        # what landing adds, per step, per whether it is the last die, per kind: a state packed
        # for each, charged before it is made (kinds × fields grows as the square of the faces)
        meter().charge(2 * len(proc.steps) * n * (1 + self._cost))
        self._land = tuple(
            tuple(
                tuple(
                    self.pack(proc.land((empty, t, 2), k)[0])  # type: ignore[arg-type]
                    - ((steps + (t if last else 0)) << self._high) * self._spread
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
            self.pack(proc.start(proc.zeros[:k] + (1,) + proc.zeros[k + 1 :])) for k in range(n)
        )
        """Per kind, the code of a first roll of one die of it: `Procedure.start` fills every field
        of a first roll in proportion to the dice of each kind (their counts, the unused triggers
        they hold, the history's first roll), so a first roll's code is the sum of these (`start`)."""

    def start(self, counts: Counts) -> int:
        """`pack(proc.start(counts))`, summed from one die's code per kind (`_first`; a test holds
        it to the rule): every first roll of a pool is packed, thousands of them at 20 dice."""
        if self._cost:
            meter().charge(self._code_cost)
        code = 0
        for c, one in zip(counts, self._first):
            if c:
                code += c * one
        return code

    def pack(self, state: State) -> int:
        if self._cost:
            meter().charge(self._code_cost)
        flat, dice, total = self._fields(state)
        assert self._holds(flat, dice, total)
        code = (total << self._sum_at) | (dice << self._dice_at)
        for v, shift in zip(flat, self._shifts):
            code |= v << shift
        return code * self._spread

    def _fields(self, state: State) -> tuple[list[int], int, int]:
        """A state's fields of the common width, in order, and its summed dice's number and sum."""
        counts, unused, used, hist = state
        flat = [counts[k] for k in self._plain]
        dice = total = 0
        if self._summed:
            dice = sum([counts[k] for k in self._summed])
            total = sum([counts[k] * p for k, p in zip(self._summed, self._past)])
        flat.extend([unused[t][k] for t, k in self._held])
        if self.proc.cap is not None:
            flat.append(used)
        if hist:
            for part, keep in zip(hist, self._kept):
                if keep:
                    flat.extend(part)
        return flat, dice, total

    def _holds(self, flat: list[int], dice: int, total: int) -> bool:
        """Whether a state's fields (`_fields`) fit their widths."""
        return (
            max(flat, default=0) <= self._mask
            and min(flat, default=0) >= 0
            and dice <= self._dice_mask
            and total <= self._sum_mask
        )

    def fits(self, state: State) -> bool:
        """Whether `state` can be packed: no count past its field (a sampled roll's may be)."""
        return self._holds(*self._fields(state))

    def pack_any(self, now: State | Flight) -> int:
        """A state's code, or a flight's: its state's, with the step and the dice left above."""
        if len(now) == 4:
            return self.pack(now)
        state, t, left = now
        top = left * self._steps + self._alike[t]
        assert top <= self._top
        return self.pack(state) + (top << self._high) * self._spread

    def pending(self, code: int) -> int | None:
        """`Procedure.pending` of a state's code, read off its fields without unpacking it: the
        first active step whose unused triggers are not all zero (a test holds it to the rule)."""
        if self.proc.cap is not None:  # the dice used decide too
            return self.proc.pending(self.unpack(code))
        for t, row in self._pending_rows:
            if code & row:
                return t
        return None

    @property
    def pending_rows(self) -> tuple[tuple[int, int], ...]:
        """Per active step, in order, the fields of its unused triggers: without a cap, a state is
        pending on the first step whose fields are not all zero (`pending`)."""
        return self._pending_rows

    @property
    def spread(self) -> int:
        """What a code's fields are multiplied by (`SPREAD`): a code is its fields times this."""
        return self._spread

    @property
    def field_bits(self) -> int:
        """How many bits a code's fields take, the flight's own field included."""
        return self._high + self._top.bit_length()

    @property
    def flight_shift(self) -> int:
        """Where a flight's own field starts: fields of `1 << flight_shift` or more are a flight's."""
        return self._high

    @property
    def flight_mask(self) -> int:
        """The flight's own field, once shifted down by `flight_shift`."""
        return self._top

    @property
    def last_die_below(self) -> int:
        """A flight's own field below this: it has one die left to fall (its successors are states)."""
        return 2 * self._steps

    @property
    def unit_cost(self) -> int:
        """Units for a state's fields (0 for a pool of a few kinds: `FREE_FIELDS`)."""
        return self._cost

    @property
    def unpack_cost(self) -> int:
        """Units charged for packing or unpacking a state (more a field for a long code)."""
        return self._code_cost

    def move_reads(self, t: int, policy: str) -> int:
        """The fields step `t`'s options read under `policy`: states alike in them share their
        options and how far each moves the code (`moves`)."""
        return self._declined[t] if self._declines(t, policy) else self._reads[t]

    def _declines(self, t: int, policy: str) -> bool:
        """Whether `policy` declines step `t` (`never` at a `may`): its one option takes no die."""
        return policy == "never" and not self.proc.steps[t].must

    def moves(self, code: int, t: int, policy: str) -> tuple[list[Option], list[int]]:
        """The options at the state of `code` (pending on step `t`) and the code each leads to
        (`launched`), kept by what the step reads of a state (`_reads`; `_declined` where the
        policy declines the step), and under that by what its options read (`_move`), so most
        states are never unpacked (a test holds the moves to the launches)."""
        return self.moves_in(self._moved.get((t, policy)) or self._moving(t, policy), code, t, policy)

    def movings(self, policy: str) -> list[_Moving]:
        """Each step's moves under `policy`, by step, for `moves_in`: a solver that asks at
        hundreds of thousands of states looks them up once."""
        return [self._moved.get((t, policy)) or self._moving(t, policy) for t in range(len(self.proc.steps))]

    def moves_in(self, moved: _Moving, code: int, t: int, policy: str) -> tuple[list[Option], list[int]]:
        """`moves`, given step `t`'s moves under `policy` (`movings`)."""
        found = moved[1].get(code & moved[0])
        if found is None:  # the clearing of the step's own triggers (the fields read hold them)
            found = (-(code & self._rows[t]) * self._spread, self._move(code, t, policy, moved))
            if self._moves_kept < MOVES_KEPT:
                moved[1][code & moved[0]] = found
                self._moves_kept += len(found[1][0])
        cleared, (options, shifts, _, summed) = found
        code += cleared
        if len(shifts) == 1:  # most states: one option (a rule, or a fixed policy)
            return options, [code + shifts[0]]
        return options, summed(code, shifts)

    def field_moves(self, code: int, t: int, policy: str) -> tuple[list[Option], tuple[int, ...]]:
        """`moves` for a solver that clears the step's own unused triggers itself, on whole layers
        of states (`chainarrays`): the options, and how far each moves the state's fields (its
        code over `spread`) once they are cleared."""
        options, _, fields, _ = self._move(
            code, t, policy, self._moved.get((t, policy)) or self._moving(t, policy)
        )
        return options, fields

    def _moving(self, t: int, policy: str) -> _Moving:
        """Step `t`'s moves under `policy` (`_moved`), made empty the first time it is asked."""
        cutting = not self._declines(t, policy) and bool(self._clips[t][0])
        moved = self._moved[(t, policy)] = (
            self.move_reads(t, policy),
            {},
            {},
            cutting,
            self.proc.single(t, policy),
        )
        return moved

    def _move(self, code: int, t: int, policy: str, moved: _Moving) -> _Move:
        """The options at the state of `code` and how far each moves it once the step's own
        unused triggers are cleared, kept by the code cut to what the options read (`_cut`;
        where the policy declines the step, by the fields it reads then)."""
        reads, _, cuts, cutting, single = moved
        cut = self._cut(code, t, single) if cutting else code & reads
        found = cuts.get(cut)
        if found is None:
            state = self.unpack(code)
            plan = self._planned(state, t, policy)
            shifts = self._offsets(state, t, plan)
            spread = self._spread
            found = (plan.options, shifts, tuple([d // spread for d in shifts]), sums(len(shifts)))
            if self._moves_kept < MOVES_KEPT:
                cuts[cut] = found
                self._moves_kept += len(plan.options)
        return found

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

    def _cut(self, code: int, t: int, single: bool) -> int:
        """`code` as step `t`'s options and how far they move a code (its own unused triggers
        cleared) read it. A state's dice of a kind the step may take, and the other steps'
        unused triggers on them, read no further than the dice taken: with one option
        (`Procedure.single`) those its pick takes, kind by kind in its order until the grant is
        spent; with several, the grant (no option takes more), which is kept in the key in place
        of the triggers that make it, no larger than the dice the step may take. So states alike
        in what the step does to them share one move where the fields read in full (`_reads`)
        would tell them apart: a pool of many dice and few triggers meets many counts above its
        grant, and many grants larger than its dice."""
        left = self.grant(code, t)
        mask = self._mask
        whole = self._whole[t]
        key = code & whole  # under a cap, or where the triggers are the dice: whole
        if single:
            for count, others in self._greedy[t]:
                v = (code >> count) & mask
                taken = v if v < left else left
                key |= taken << count
                for shift in others:
                    v = (code >> shift) & mask
                    key |= (v if v < taken else taken) << shift
                left -= taken
            return key
        own = self._clips[t][1]
        if not whole and own:  # the grant stands for the step's own triggers, where they would be
            dice = 0
            for count, _ in self._greedy[t]:
                dice += (code >> count) & mask
            if dice < left:
                left = dice
            key = left << own[0]
        for shift in self._clips[t][0]:
            v = (code >> shift) & mask
            key |= (v if v < left else left) << shift
        return key

    def launched(self, code: int, state: State, t: int, options: list[Option]) -> list[int]:
        """`pack_any(proc.launch(state, t, o))` for every option `o` at the state of `code`, with
        no launch per option (`_plan`, `_offsets`; a test holds the sum to the launch)."""
        cleared = code - (code & self._rows[t]) * self._spread
        return [cleared + d for d in self._offsets(state, t, self._plan(state, t, options))]

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

    def _offsets(self, state: State, t: int, plan: _Plan) -> tuple[int, ...]:
        """How far each of a plan's options moves the code of `state` once the step's own unused
        triggers are cleared: its fixed part, plus the parts of the kinds whose dice may hold
        other steps (and of the dice rolled, under a cap), read for this state from lists by how
        many dice — one pass per varying part, no loop over kinds per option."""
        _, fixed, varying, rolled, most = plan
        if len(fixed) == 1:  # one option (a rule, a fixed policy): the parts added in place
            one = fixed[0]
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
        return tuple(total)

    def _rolls(self, state: State, t: int, most: int) -> list[int]:
        """What rolling 0, 1, … `most` dice at step `t` adds to a code once the step's fields are
        cleared (the dice used, and the flight): all it reads is the step, and under a cap the
        dice used and the grant spent (none rolled may still cut the grant short)."""
        used, spent = state[2], sum(state[1][t])
        key = (t, most, used, spent)
        parts = self._by_roll.get(key)
        if parts is None:
            proc = self.proc
            zero = proc.zeros
            packed = self.pack(state)
            base = packed - (packed & self._rows[t]) * self._spread
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
            zero = proc.zeros
            base = self.pack_any(proc.launch(state, t, (zero, 0)))
            parts = self._by_kind[key] = [0] + [
                self.pack_any(proc.launch(state, t, (zero[:k] + (j,) + zero[k + 1 :], 0))) - base
                for j in range(1, most + 1)
            ]
        return parts

    def counts(self, code: int) -> Counts:
        """The dice of each kind in the state of a code below `flying` (`unpack`'s first part,
        without the rest: what a finished pool without a history is read by)."""
        if self._cost:
            meter().charge(self._code_cost)
        if not self._summed:
            mask = self._mask
            return tuple([(code >> shift) & mask for shift in self._count_shifts])
        return self._read_counts(code)

    def _read_counts(self, code: int) -> Counts:
        """The dice of each kind in a state with summed kinds, those given as one way of making
        their number and sum (`Procedure.summed`: every way leads to the same remaining
        computation, so any is the state's), which packs back to the same code."""
        mask = self._mask
        out = list(self.proc.zeros)
        for k, shift in zip(self._plain, self._count_shifts):
            out[k] = (code >> shift) & mask
        dice, total = (code >> self._dice_at) & self._dice_mask, (code >> self._sum_at) & self._sum_mask
        if self._widest:  # as many dice as can read the highest, at most one between, the rest the lowest
            top, between = divmod(total, self._widest)
            out[self._by_past[self._widest]] += top
            if between:
                out[self._by_past[between]] += 1
            dice -= top + (1 if between else 0)
        out[self._by_past[0]] += dice
        return tuple(out)

    def unpack(self, code: int) -> State:
        """The state of a code below `flying`."""
        if self._cost:
            meter().charge(self._code_cost)
        proc = self.proc
        mask = self._mask
        flat = [(code >> shift) & mask for shift in self._shifts]
        n = len(proc.kinds)
        at = len(self._plain)
        counts = self._read_counts(code) if self._summed else tuple(flat[:n])
        rows = [list(proc.zeros) for _ in proc.steps]
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
        top = (code >> self._high) & self._top
        return self.landed(code, self._landing.get(top) or self.flight_deltas(top))

    def flight_deltas(self, top: int) -> tuple[int, ...]:
        """What a flight's next die adds to its code, per kind (`landings`), by the flight's own
        field `top` (its code's bits from `flight_shift` up, within `flight_mask`): by the step
        and the dice left, so few of them, each kept in `landing_table` once asked."""
        left, t = divmod(top, self._steps)
        deltas = self._landing[top] = self._land[t][left == 1]
        return deltas

    @property
    def landing_table(self) -> Mapping[int, tuple[int, ...]]:
        """`flight_deltas` asked so far, by flight field (to look up in a solver's loop, not to change)."""
        return self._landing
