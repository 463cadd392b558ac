"""The one absorbing-Markov-chain solver: where a chain that must end ends, and best play on one.

A chain is given by a `step` function: a state's successors as a `Dist`, or None when the state
absorbs. Reroll procedures use it today; multi-roll scenes (a fight to the end) are the same
shape. Nothing is truncated: an acyclic chain is pushed through in topological order with whole
numbers, and a chain that can return to a state is solved as a linear system over fractions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from fractions import Fraction
from operator import mul
from typing import Any, Generic, TypeVar

from ..errors import Diagnostic, EndlessError
from ..graph import postorder as postorder  # markov.postorder too, as docs/performance.md names it
from ..model.scene import NEVER  # what a state is worth when it can never reach an absorbing one
from ..runtime.work import made_units, meter, product_units
from .collector import collector_paused
from .dist import SMALL_BITS, Dist

S = TypeVar("S", bound=Hashable)
Opt = TypeVar("Opt")
Edges = tuple[Sequence[Any], tuple[int, ...], int]
"""A state's successors as absorb keeps them: the states, their weights and the total (a tuple
of three is a third of the memory of a `Dist` and its map)."""
Step = Callable[[Any], "Dist | Edges | None"]


def absorb(
    starts: Dist,
    step: Step,
    end: Callable[[Any], Hashable],
    count: Callable[[int], None],
    most: int = 0,
) -> Dist:
    """The distribution of `end(s)` over the absorbing states `s` the chain reaches from `starts`.

    `step(s)` gives a state's successors as a `Dist` (or as `Edges`, the same without making
    one), or None when it absorbs. `count(n)` is told how many states are listed so far once
    there are more than `most` (each time, when `most` is 0), and raises to stop a chain that is
    too large. Each state's successors are asked for once."""
    edges: dict[Any, Edges | None] = {}
    none: Sequence[Any] = ()
    shared: dict[tuple[int, ...], tuple[int, ...]] = {}  # one tuple per list of weights

    def listed(s: Any) -> Sequence[Any]:
        nxt = step(s)
        if nxt is None:
            edges[s] = None
            if len(edges) > most:
                count(len(edges))
            return none
        targets: Sequence[Any]
        if isinstance(nxt, Dist):
            targets, weights, total = tuple(nxt.weights), tuple(nxt.weights.values()), nxt.total
        else:
            targets, weights, total = nxt
        edges[s] = (targets, shared.setdefault(weights, weights), total)
        if len(edges) > most:
            count(len(edges))
        return targets

    order, cyclic = postorder(starts.weights, listed, edges)
    if cyclic:
        return _solve(starts, edges, end)
    return pushed(starts, reversed(order), edges.pop, end)  # pushed once: no longer needed


RESCALE = 8
"""How many powers of a chance node's total a scale takes on when a mass or score does not fit it
(the push's and best play's alike)."""


def multiply(table: dict[Any, Any], factor: int) -> None:
    """Every whole number in `table` (or tuple of them) times `factor`, in place: a scale grew, and
    callers hold the table. None (a score still being worked out: `packed._Scores`) stays None.
    Not charged here: the caller charges `rescale_units` before it changes anything."""
    for k, v in table.items():
        if v is not None:
            table[k] = v * factor if isinstance(v, int) else tuple([x * factor for x in v])


def rescale_units(table: Mapping[Any, Any], scale: int, factor: int) -> int:
    """Units to charge for `multiply(table, factor)` where each number is at most about `scale`
    (a mass, or a score's numerator, over it): a product each by the factor (`product_units`: an
    end's long denominator) and a pass over the products (`made_units`; a score of 10,000 bits
    times 1000**8, 1.3 us measured). None while the scale and the factor are together under
    `SMALL_BITS`, so a game's rescale costs what it did; past it, best play on a pool of 10 d1000
    rerolling 1s up to a cap of 1,000 grew its scale to 10,000 bits over 63,000 scores and took
    three times its budget's time."""
    bits = scale.bit_length() + factor.bit_length()
    if bits < SMALL_BITS or not table:
        return 0
    parts = next((1 if isinstance(v, int) else len(v) for v in table.values() if v is not None), 1)
    entries = len(table) * parts
    return entries * product_units(scale.bit_length(), factor.bit_length()) + made_units(entries * bits)


def pushed(
    starts: Dist,
    order: Iterable[Any],
    successors: Callable[[Any], Edges | None],
    end: Callable[[Any], Hashable],
) -> Dist:
    """The distribution of `end(s)` over the absorbing states `s` an acyclic chain reaches from
    `starts`, its states given in `order`, each before every state it leads to (a topological
    order; states that receive no mass may be among them and cost a look-up). `successors(s)`
    gives a state's successors as `Edges` (None where it absorbs), and is asked once per state
    that receives mass."""
    # Mass as whole numbers over one scale, pushed once along every edge in topological order: a
    # state's mass is split by its total once, and each edge costs a look-up, a product and a sum.
    # Where a mass does not divide by its total, the scale (and every mass and end held) takes on
    # powers of that total first: exact, since each was a whole number over the old scale.
    scale = starts.total
    mass: dict[Any, int] = dict(starts.weights)
    ends: dict[Any, int] = {}  # the absorbing states reached, each with its mass: `end` is read once
    for s in order:
        num = mass.pop(s, None)
        if not num:
            continue
        nxt = successors(s)
        if nxt is None:
            ends[s] = ends.get(s, 0) + num
            continue
        targets, weights, total = nxt
        share, left = divmod(num, total)
        if left:
            factor = total**RESCALE
            # charged by the size of what it multiplies, before (none for a game's scale)
            meter().charge(rescale_units(mass, scale, factor) + rescale_units(ends, scale, factor))
            scale *= factor
            multiply(mass, factor)
            multiply(ends, factor)
            share = num * factor // total
        get = mass.get
        for t, w in zip(targets, weights):
            mass[t] = get(t, 0) + share * w
    by_end: dict[Hashable, int] = {}
    for s, num in ends.items():
        key = end(s)
        by_end[key] = by_end.get(key, 0) + num
    return Dist.lowest(by_end, scale)


def _solve(starts: Dist, edges: dict[Any, Edges | None], end: Callable[[Any], Hashable]) -> Dist:
    """A chain with cycles, pushed through its strongly connected components in topological
    order: mass crossing from one component to the next as in `pushed` (in fractions), and inside
    a component that can return to a state, the expected visits x of its states solve
    x = b + Qᵀx (b the mass entering it, Q its moves within), by exact elimination on that
    component alone; what leaves it is x weighed by the moves out. A die rerolled until it stops
    showing a face makes many small components (a handful of dice in the air), where one system
    over the whole chain grew as its states cubed."""
    none: tuple[Any, ...] = ()

    def successors(s: Any) -> Sequence[Any]:
        nxt = edges[s]
        return none if nxt is None else nxt[0]

    mass: dict[Any, Fraction] = {s: Fraction(w, starts.total) for s, w in starts.weights.items()}
    out: dict[Hashable, Fraction] = {}
    for component in reversed(_components(starts.weights, successors)):  # sources first
        if len(component) == 1 and not _loops(component[0], edges):
            s = component[0]
            m = mass.pop(s, None)
            if m is None:
                continue
            nxt = edges[s]
            if nxt is None:
                key = end(s)
                out[key] = out.get(key, Fraction(0)) + m
                continue
            targets, weights, total = nxt
            for t, w in zip(targets, weights):
                mass[t] = mass.get(t, Fraction(0)) + m * w / total
            continue
        index = {s: i for i, s in enumerate(component)}
        n = len(component)
        a: list[dict[int, Fraction]] = [{j: Fraction(1)} for j in range(n)]  # (I − Qᵀ) x = b
        for j, s in enumerate(component):
            entering = mass.pop(s, None)
            if entering:
                a[j][n] = entering
            nxt = edges[s]
            assert nxt is not None  # an absorbing state is a component of its own, without a loop
            targets, weights, total = nxt
            for t, w in zip(targets, weights):
                i = index.get(t)
                if i is not None:
                    left = a[i].get(j, 0) - Fraction(w, total)
                    if left:
                        a[i][j] = left
                    else:
                        del a[i][j]
        _eliminate(a, n)
        for j, s in enumerate(component):
            x = a[j].get(n)
            if not x:
                continue
            nxt = edges[s]
            assert nxt is not None
            targets, weights, total = nxt
            for t, w in zip(targets, weights):
                if t not in index:
                    mass[t] = mass.get(t, Fraction(0)) + x * w / total
    return Dist.from_fractions(out)


def _loops(s: Any, edges: dict[Any, Edges | None]) -> bool:
    """Whether `s` leads straight back to itself."""
    nxt = edges[s]
    return nxt is not None and s in nxt[0]


ENTRY_WORK = 4
"""Units of work charged for each entry an elimination changes: a fraction's product, sum and
reduction take about 3-5 microseconds, a unit being about one."""

FREE_FRACTION_BITS = 256
"""Fractions whose parts are at most this long are in the charge of their entry alone."""


def fraction_size(f: Fraction) -> int:
    """Bits of the longer part of `f`: what a product or a sum with it costs grows with."""
    return max(f.numerator.bit_length(), f.denominator.bit_length())


def fraction_units(bits: int) -> int:
    """Units, past an entry's own, for a product and a sum of fractions whose parts are at most
    `bits` long, with the reductions `Fraction` makes: measured on the 2-core machine, 48 µs at
    1,000 bits, 256 at 3,000, 1.8 ms at 10,000, 13 ms at 30,000 (a dozen products,
    `product_units`, and a pass a 40 bits); charged a third of that, since `bits` is the longest
    of a row's entries and bounds the rest (a scene's solve then runs 0.5-1 µs a unit). An
    elimination along a long cycle makes the entries it leaves as long as the cycle: a scene
    walking a counter of 4,000 up and down was answered in 75 s on 883,000 units, each entry
    charged a unit."""
    if bits <= FREE_FRACTION_BITS:
        return 0
    return 4 * product_units(bits, bits) + (bits - FREE_FRACTION_BITS) // 120


def _longest(*groups: Iterable[Fraction]) -> int:
    """The longest `fraction_size` among these fractions (0 for none)."""
    return max((fraction_size(f) for group in groups for f in group), default=0)


def _eliminate(rows: list[dict[int, Fraction]], n: int) -> None:
    """Gauss–Jordan on the first n columns of `rows`, in place (the matrix part is invertible);
    each row holds its nonzero entries only (a chain's state leads to a few others), so a step
    costs what it changes, each entry charged to the current request."""
    work = meter()
    for c in range(n):
        pivot = next((r for r in range(c, n) if rows[r].get(c)), None)
        if pivot is None:  # some states never reach an end: a chain of rerolls that goes on forever
            raise EndlessError(
                [
                    Diagnostic(
                        "RC503",
                        "this chain of rerolls never ends",
                        None,
                        "give the pool a 'cap', or narrow the trigger's 'on' (or the inputs it reads)",
                    )
                ]
            )
        rows[c], rows[pivot] = rows[pivot], rows[c]
        inv = 1 / rows[c][c]
        work.charge(len(rows[c]) * (ENTRY_WORK + fraction_units(_longest(rows[c].values(), (inv,)))))
        top = rows[c] = {k: v * inv for k, v in rows[c].items()}
        longest = _longest(top.values())
        for r in range(n):
            row = rows[r]
            f = row.get(c) if r != c else None
            if not f:
                continue
            work.charge(len(top) * (ENTRY_WORK + fraction_units(max(longest, fraction_size(f)))))
            for k, v in top.items():
                x = row.get(k, 0) - f * v
                if x:
                    row[k] = x
                else:
                    del row[k]


Value = Any
"""A score kept whole, as numerators over `BestPlay`'s one scale: an `int` for a score of one part
(compared and mixed by `max` and `sum` in C), a tuple of them for more (compared part by part)."""

Node = tuple[Sequence[Any] | None, Sequence[Any], tuple[int, ...], int]
"""A node of a chain with choices, as `BestPlay` asks for it: (options, successors, (), 0) where a
player chooses (successor i is where option i leads, for certain), or (None, successors, weights,
total) where chance moves (successor i with chance weights[i] / total)."""


class BestPlay(Generic[S, Opt]):
    """Backward induction on a chain whose states offer options: from each state, the option that
    maximises `score` of where the chain ends, and that score under best play.

    `node(s)` tells what happens at `s` (a `Node`; None when `s` absorbs): a choice among options
    (fewest first: ties keep the earlier option), each leading to one state for certain, or a move
    of chance. A choice whose outcome is uncertain is a choice of a chance node, so an option costs
    one look-up of a score already kept and no call. `final(s)` is what an absorbing state is worth
    (a `Dist` of outcomes). A decision on a chain that can return to a state has no last step:
    `on_cycle(s)` makes the error to raise. `count(n)` is told how many states are scored (or
    being scored) once there are more than `most` (each time, when `most` is 0), and raises to
    stop a chain too large.

    `score` must be an expected value, part by part (every `Objective`'s is): the score of a
    mixture is then the mixture of the scores, so a state keeps its score alone — a few whole
    numbers over one denominator — and never the distribution of its ends (where the chain ends
    under best play is `absorb`'s to work out, following `best`).

    Every score is kept over one denominator, the scale, so a choice is `max` over whole numbers
    and a move of chance one weighted sum, divided exactly: no fraction is made or compared in
    the loop. The scale starts at 1 and grows when a score does not fit it — an end's
    denominator, or a chance node's sum not divisible by its total — by multiplying every score
    kept so far (exact, since each was a whole number over the old scale)."""

    def __init__(
        self,
        node: Callable[[S], Node | None],
        final: Callable[[S], Dist],
        score: Callable[[Dist], tuple[Fraction, ...]],
        count: Callable[[int], None],
        on_cycle: Callable[[S], Exception],
        most: int = 0,
    ) -> None:
        self.node = node
        self.most = most
        self.final = final
        self.score = score
        self.count = count
        self.on_cycle = on_cycle
        self._scale = 1
        self._rescaled = 0
        """How many times the scale has grown (a solve that saw it grow reads its scores again)."""
        self._values: dict[S, Value] = {}
        self._busy: set[S] = set()
        """The states being scored (reaching one again is a cycle)."""
        self._moves: dict[S, Opt] = {}  # a choice's option taken
        self._through: dict[S, S] = {}
        self.order: list[S] = []
        """Every state scored so far, each after every state it leads to (so, read backwards, an
        order in which mass can be pushed through the chain under best play: `pushed`)."""

    @property
    def scores(self) -> Mapping[S, Value]:
        """The states scored so far (to look up, not to change)."""
        return self._values

    @property
    def through(self) -> Mapping[S, S]:
        """Per choice scored, where the chain goes from it for certain under best play: where its
        option leads, and on through the option of each choice it comes to (so a push through
        the chain can pass over choices: a choice's successor is scored before it, so comes
        after it in `order` read backwards)."""
        return self._through

    def move(self, state: S) -> Opt | None:
        """The option best play takes at a scored state (None where nobody chooses; where it
        leads: `through`)."""
        return self._moves.get(state)

    def scored(self, state: S) -> tuple[Fraction, ...]:
        """The score reached from `state` under best play (an option's: that of where it leads)."""
        value = self.best(state)[0]
        parts = (value,) if isinstance(value, int) else value
        return tuple([Fraction(n, self._scale) for n in parts])

    def best(self, state: S) -> tuple[Value, Opt | None]:
        """Best play from `state`: its score (over the scale as it is now), and the option taken
        now (None where nobody chooses)."""
        value = self._values.get(state)
        if value is None:
            try:
                with collector_paused:  # the scores kept are acyclic (see `collector`)
                    value = self._solved(state)
            except BaseException:  # a limit, or a cycle: nothing is being scored any more
                self._busy.clear()
                raise
        return value, self._moves.get(state)

    def _solved(self, root: S) -> Value:
        """Score `root` (not yet scored), and the states it needs first, depth first: the hottest
        loop of an optimal solve, so the look-ups, sums and comparisons of a state's successors'
        scores are each one call into C. A loop over a stack of the states being scored, not a
        recursion: a chain can be deeper than Python's recursion limit (a die added for each six,
        up to a cap of a thousand)."""
        node_of, values, busy, end, mixed = self.node, self._values, self._busy, self._end, self._mixed
        get = values.get
        moves, through, order = self._moves, self._through, self.order
        most = self.most
        # per state being scored: it, its node, its successors' scores so far, the one being
        # scored, and how many times the scale had grown when the scores were read
        stack: list[list[Any]] = []
        state, node = root, node_of(root)
        scores: list[Any] = []
        known = False  # whether `scores` holds all of `state`'s successors' scores
        while True:
            if not known:  # a state met for the first time
                if node is None:
                    value = end(state)
                else:
                    successors = node[1]
                    scores = list(map(get, successors))
                    if None in scores:  # score the first not scored yet, then come back
                        i = scores.index(None)
                        busy.add(state)
                        stack.append([state, node, scores, i, self._rescaled])
                        state = successors[i]
                        if state in busy:
                            raise self.on_cycle(state)
                        node = node_of(state)
                        continue
            if node is not None:
                options, successors, weights, total = node
                if options is None:
                    value = mixed(successors, scores, weights, total)
                else:
                    value = max(scores)
                    at = scores.index(value)  # ties keep the earlier option
                    to: S = successors[at]
                    moves[state] = options[at]
                    through[state] = through.get(to, to)
            values[state] = value
            order.append(state)
            n = len(values) + len(busy)
            if n > most:
                self.count(n)
            if not stack:
                return value
            # back to the state that asked: on to its next successor not scored yet, or its score
            frame = stack[-1]
            state, node, scores, i, rescaled = frame
            successors = node[1]
            scores[i] = value
            known = True
            for j in range(i + 1, len(successors)):
                if scores[j] is None:
                    found = get(successors[j])
                    if found is None:
                        frame[3] = j
                        state = successors[j]
                        if state in busy:
                            raise self.on_cycle(state)
                        node, known = node_of(state), False
                        break
                    scores[j] = found
            else:
                stack.pop()
                busy.discard(state)
                if self._rescaled != rescaled:  # the scale grew meanwhile: read them again
                    scores = list(map(get, successors))

    def _end(self, state: S) -> Value:
        """An absorbing state's score over the scale (grown first if the score does not fit it)."""
        parts = self.score(self.final(state))
        scale = self._scale
        for f in parts:
            if scale % f.denominator:
                self._rescale(f.denominator // math.gcd(scale, f.denominator))
                scale = self._scale
        nums = [f.numerator * (scale // f.denominator) for f in parts]
        return nums[0] if len(nums) == 1 else tuple(nums)

    def _mixed(
        self, successors: Sequence[S], scores: list[Value], weights: tuple[int, ...], total: int
    ) -> Value:
        """A move of chance: its successors' scores weighed by their chances, over the scale
        (grown by powers of `total` until the weighted sum divides exactly)."""
        while True:
            if isinstance(scores[0], int):
                value, left = divmod(sum(map(mul, scores, weights)), total)
                if not left:
                    return value
            else:
                sums = [sum(map(mul, part, weights)) for part in zip(*scores)]
                if not any(s % total for s in sums):
                    return tuple([s // total for s in sums])
            self._rescale(total**RESCALE)
            scores = list(map(self._values.__getitem__, successors))

    def _rescale(self, factor: int) -> None:
        """Multiply the scale, and so every score kept, by `factor`: charged by the size of the
        scores first (`rescale_units`), so a limit stops it before the scale and the scores
        disagree (a solver is kept between requests)."""
        meter().charge(rescale_units(self._values, self._scale, factor))
        self._scale *= factor
        self._rescaled += 1
        multiply(self._values, factor)


# -- chains with choices, solved component by component ------------------------------------------


Vector = dict[Hashable, Fraction]


def solve_components(
    choices: Mapping[Any, Sequence[Dist] | None],
    terminal: Callable[[Any], Vector],
    score: Callable[[Vector], Fraction] | None = None,
    reward: Callable[[Any, Any], Fraction] | None = None,
) -> tuple[dict[Any, Vector], dict[Any, int], dict[Any, Fraction]]:
    """Exact values of a finite chain whose states may offer choices.

    `choices[s]` lists the successor distributions among which `s` chooses (one: no choice;
    None: `s` absorbs, worth `terminal(s)`, a vector over outcomes). Without `score` the first
    choice is taken everywhere; with it, each state takes the choice whose vector scores highest
    (ties keep the earlier one). Strongly connected components are solved from the sinks back:
    a component without cycles by one sweep, one with cycles by policy iteration, each policy
    evaluated by exact elimination over fractions on that component alone. `reward(s, t)` adds
    an expected total (e.g. rounds) along the way. Returns each state's vector, the choice taken
    and the expected reward."""
    order = _components(choices, lambda s: _all_succ(choices, s))
    value: dict[Any, Vector] = {}
    chosen: dict[Any, int] = {}
    total: dict[Any, Fraction] = {}
    for component in order:
        members = set(component)
        for s in component:
            if choices[s] is None:
                value[s], chosen[s], total[s] = terminal(s), 0, Fraction(0)
        inner = [s for s in component if choices[s] is not None]
        if not inner:
            continue
        policy = {s: 0 for s in inner}
        while True:
            _evaluate(inner, members, choices, policy, value, total, reward)
            if score is None:
                break
            changed = False
            for s in inner:
                options = choices[s]
                assert options is not None
                scores = [score(expectation(d, value)) for d in options]
                best = max(range(len(options)), key=lambda i: (scores[i], -i))
                if scores[best] > scores[policy[s]]:
                    policy[s] = best
                    changed = True
            if not changed:
                break
        chosen.update(policy)
    return value, chosen, total


def expectation(d: Dist, value: Mapping[Any, Vector]) -> Vector:
    """Where the chain ends, as a vector, when it moves by `d` from states worth `value`."""
    out: Vector = {}
    for t, w in d.weights.items():
        for k, v in value[t].items():
            out[k] = out.get(k, Fraction(0)) + Fraction(w, d.total) * v
    return out


def _evaluate(
    inner: list[Any],
    members: set[Any],
    choices: Mapping[Any, Sequence[Dist] | None],
    policy: Mapping[Any, int],
    value: dict[Any, Vector],
    total: dict[Any, Fraction],
    reward: Callable[[Any, Any], Fraction] | None,
) -> None:
    """Values of one component's states under `policy`: x = b + Q x, solved exactly. A state that
    under this policy can never leave the component never ends: it is worth {NEVER: 1}."""
    leaving = {s for s in inner if any(t not in members for t in _succ(choices, policy, s))}
    back: dict[Any, list[Any]] = {}
    for s in inner:
        for t in _succ(choices, policy, s):
            back.setdefault(t, []).append(s)
    frontier = list(leaving)
    while frontier:
        for s in back.get(frontier.pop(), []):
            if s not in leaving and s in members:
                leaving.add(s)
                frontier.append(s)
    for s in inner:
        if s not in leaving:
            value[s], total[s] = {NEVER: Fraction(1)}, Fraction(0)
    inner = [s for s in inner if s in leaving]
    if not inner:
        return
    _solve_sparse(inner, choices, policy, value, total, reward)


_REWARD = object()
"""The key under which a state's expected reward rides along with its vector of outcomes."""


def _solve_sparse(
    inner: list[Any],
    choices: Mapping[Any, Sequence[Dist] | None],
    policy: Mapping[Any, int],
    value: dict[Any, Vector],
    total: dict[Any, Fraction],
    reward: Callable[[Any, Any], Fraction] | None,
) -> None:
    """x_s = Σ q_st x_t + c_s over one component, by eliminating one state at a time and then
    substituting back. A scene's components are long thin cycles (a round's steps returning to
    its start), so each row stays a handful of entries and this costs a few operations a state,
    where a dense elimination costs the cube of the component's size."""
    members = set(inner)
    rows: dict[Any, dict[Any, Fraction]] = {}
    consts: dict[Any, dict[Hashable, Fraction]] = {}
    users: dict[Any, set[Any]] = {s: set() for s in inner}
    for s in inner:
        options = choices[s]
        assert options is not None
        d = options[policy[s]]
        row: dict[Any, Fraction] = {}
        const: dict[Hashable, Fraction] = {}
        for t, w in d.weights.items():
            p = Fraction(w, d.total)
            if reward is not None:
                r = reward(s, t)
                if r:
                    const[_REWARD] = const.get(_REWARD, Fraction(0)) + p * r
            if t in members:
                row[t] = row.get(t, Fraction(0)) + p
                users[t].add(s)
                continue
            for k, v in value[t].items():
                const[k] = const.get(k, Fraction(0)) + p * v
            if reward is not None and total[t]:
                const[_REWARD] = const.get(_REWARD, Fraction(0)) + p * total[t]
        rows[s], consts[s] = row, const
    eliminated: set[Any] = set()
    work = meter()  # a unit per entry touched, to the current request (none outside one)
    work.charge(len(inner))
    for s in inner:
        row, const = rows[s], consts[s]
        loop = row.pop(s, None)
        longest = _longest(row.values(), const.values())
        if loop:
            f = 1 / (1 - loop)
            work.charge((len(row) + len(const)) * (1 + fraction_units(max(longest, fraction_size(f)))))
            row = rows[s] = {t: v * f for t, v in row.items()}
            const = consts[s] = {k: v * f for k, v in const.items()}
            longest = _longest(row.values(), const.values())
        for r in users.pop(s):
            if r in eliminated or r == s:
                continue
            target, c = rows[r], rows[r].pop(s)
            # charged by the size of what it multiplies (the entries grow along a long cycle)
            work.charge((len(row) + len(const)) * (1 + fraction_units(max(longest, fraction_size(c)))))
            for t, v in row.items():
                target[t] = target.get(t, Fraction(0)) + c * v
                users[t].add(r)
            into = consts[r]
            for k, v in const.items():
                into[k] = into.get(k, Fraction(0)) + c * v
        eliminated.add(s)
    for s in reversed(inner):
        x = dict(consts[s])
        for t, c in rows[s].items():
            work.charge(
                len(value[t]) * (1 + fraction_units(max(fraction_size(c), _longest(value[t].values()))))
            )
            for k, v in value[t].items():
                x[k] = x.get(k, Fraction(0)) + c * v
            if total[t]:
                x[_REWARD] = x.get(_REWARD, Fraction(0)) + c * total[t]
        total[s] = x.pop(_REWARD, Fraction(0))
        value[s] = {k: x[k] for k in sorted(x, key=repr) if x[k]}


def _succ(choices: Mapping[Any, Sequence[Dist] | None], policy: Mapping[Any, int], s: Any) -> list[Any]:
    options = choices[s]
    return [] if options is None else list(options[policy[s]].weights)


def _components(nodes: Iterable[Any], following: Callable[[Any], Iterable[Any]]) -> list[list[Any]]:
    """Strongly connected components of the graph reached from `nodes`, sinks first (Tarjan,
    without recursion)."""
    index: dict[Any, int] = {}
    low: dict[Any, int] = {}
    stack: list[Any] = []
    on_stack: set[Any] = set()
    out: list[list[Any]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work: list[tuple[Any, Iterator[Any]]] = [(root, iter(following(root)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for t in successors:
                if t not in index:
                    index[t] = low[t] = counter
                    counter += 1
                    stack.append(t)
                    on_stack.add(t)
                    work.append((t, iter(following(t))))
                    advanced = True
                    break
                if t in on_stack:
                    low[node] = min(low[node], index[t])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    t = stack.pop()
                    on_stack.discard(t)
                    component.append(t)
                    if t == node:
                        break
                out.append(component)
    return out


def _all_succ(choices: Mapping[Any, Sequence[Dist] | None], s: Any) -> list[Any]:
    options = choices[s]
    return [] if options is None else list(dict.fromkeys(t for d in options for t in d.weights))
