"""The one absorbing-Markov-chain solver: where a chain that must end ends, and best play on one.

A chain is given by a `step` function: a state's successors as a `Dist`, or None when the state
absorbs. Reroll procedures use it today; multi-roll scenes (a fight to the end) are the same
shape. Nothing is truncated: an acyclic chain is pushed through in topological order with whole
numbers, and a chain that can return to a state is solved as a linear system over fractions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Container, Hashable, Iterable, Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Any, Generic, TypeVar

from ..errors import Diagnostic, LimitError
from ..runtime.work import meter
from .collector import collector_paused
from .dist import Dist

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


def postorder(
    roots: Iterable[Any],
    successors: Callable[[Any], Iterable[Any]],
    known: Container[Any],
    done: Container[Any] = frozenset(),
) -> tuple[list[Any], bool]:
    """Every node reached from `roots` and neither `known` nor `done`, each after every node it
    leads to (a topological order, read backwards, when the chain has no cycle), and whether some
    node leads back to one on its own path (a cycle). The walk is depth first without recursion;
    `successors(s)` is asked once per node, and must make `s` known (the caller keeps what it
    learns, so nothing is held twice); `done` holds nodes dealt with elsewhere, which may grow
    while the walk runs (two containers, not one that asks both: a look-up per edge)."""
    order: list[Any] = []
    on_path: set[Any] = set()
    cyclic = False
    for root in roots:
        if root in known or root in done:
            continue
        on_path.add(root)
        stack = [(root, iter(successors(root)))]
        while stack:
            s, nexts = stack[-1]
            for t in nexts:
                if t in known or t in done:
                    if t in on_path:
                        cyclic = True
                    continue
                on_path.add(t)
                stack.append((t, iter(successors(t))))
                break
            else:
                stack.pop()
                on_path.discard(s)
                order.append(s)
    return order, cyclic


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
    # Mass as a numerator and a denominator per state (one list each, so an edge costs one look-up),
    # pushed once along every edge in topological order; the denominators are mostly one power of
    # the chain's totals, so sums rarely need an lcm.
    total0 = starts.total
    mass: dict[Any, list[int]] = {s: [w, total0] for s, w in starts.weights.items()}
    ends: dict[Hashable, tuple[int, int]] = {}
    for s in order:
        here = mass.pop(s, None)
        if here is None:
            continue
        num, den = here
        if not num:
            continue
        nxt = successors(s)
        if nxt is None:
            _add(ends, end(s), num, den)
            continue
        targets, weights, total = nxt
        den2 = den * total
        for t, w in zip(targets, weights):
            there = mass.get(t)
            if there is None:
                mass[t] = [num * w, den2]
            elif there[1] == den2:
                there[0] += num * w
            else:
                old = there[1]
                common = _common(old, den2)
                there[0] = there[0] * (common // old) + num * w * (common // den2)
                there[1] = common
    common = 1
    for _, d in ends.values():
        common = common if common % d == 0 else math.lcm(common, d)
    return Dist({k: n * (common // d) for k, (n, d) in ends.items()}, common)


def _common(a: int, b: int) -> int:
    """A common denominator of a and b (the larger, when one divides the other, as powers do)."""
    if a > b:
        return a if a % b == 0 else math.lcm(a, b)
    return b if b % a == 0 else math.lcm(a, b)


def _add(into: dict[Any, tuple[int, int]], key: Any, num: int, den: int) -> None:
    """into[key] += num / den, keeping one denominator (powers of one base divide each other)."""
    old = into.get(key)
    if old is None:
        into[key] = (num, den)
        return
    n0, d0 = old
    if d0 == den:
        into[key] = (n0 + num, den)
    elif den % d0 == 0:
        into[key] = (n0 * (den // d0) + num, den)
    elif d0 % den == 0:
        into[key] = (n0 + num * (d0 // den), d0)
    else:
        common = math.lcm(d0, den)
        into[key] = (n0 * (common // d0) + num * (common // den), common)


def _solve(starts: Dist, edges: dict[Any, Edges | None], end: Callable[[Any], Hashable]) -> Dist:
    """A chain with cycles: x_s = Σ p · x_next for a transient s, x_s = e_end(s) for an absorbing
    one, solved by Gauss–Jordan elimination over the rationals (I − Q is invertible)."""
    states = list(edges)
    index = {s: i for i, s in enumerate(states)}
    ends = sorted({end(s) for s in states if edges[s] is None}, key=repr)
    col = {e: i for i, e in enumerate(ends)}
    n = len(states)
    a = [[Fraction(0)] * (n + len(ends)) for _ in range(n)]
    for s, i in index.items():
        a[i][i] = Fraction(1)
        nxt = edges[s]
        if nxt is None:
            a[i][n + col[end(s)]] = Fraction(1)
            continue
        targets, weights, total = nxt
        for t, w in zip(targets, weights):
            a[i][index[t]] -= Fraction(w, total)
    _eliminate(a, n)
    out: dict[Hashable, Fraction] = {}
    for s, w in starts.weights.items():
        p = Fraction(w, starts.total)
        for e, v in zip(ends, a[index[s]][n:]):
            if v:
                out[e] = out.get(e, Fraction(0)) + p * v
    return Dist.from_fractions(out)


def _eliminate(a: list[list[Fraction]], n: int) -> None:
    """Gauss–Jordan on the first n columns of `a`, in place (the matrix part is invertible).
    Each row it changes is charged to the current request, a unit per entry."""
    work = meter()
    width = len(a[0]) if a else 0
    for c in range(n):
        pivot = next((r for r in range(c, n) if a[r][c] != 0), None)
        if pivot is None:  # some states never reach an end: a chain of rerolls that goes on forever
            raise LimitError(
                [Diagnostic("RC503", "this chain of rerolls never ends", None, "give it a 'cap'")]
            )
        a[c], a[pivot] = a[pivot], a[c]
        inv = 1 / a[c][c]
        a[c] = [v * inv for v in a[c]]
        for r in range(n):
            if r != c and a[r][c] != 0:
                work.charge(width)
                f = a[r][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c])]


Value = tuple[int, ...]
"""A score kept whole: one common denominator, then its parts' numerators."""


def _whole(score: tuple[Fraction, ...]) -> Value:
    den = 1
    for f in score:
        if den % f.denominator:
            den = math.lcm(den, f.denominator)
    return (den, *[f.numerator * (den // f.denominator) for f in score])


def _above(a: Value, b: Value) -> bool:
    """Whether score `a` is larger than `b` (compared part by part, the first difference deciding)."""
    ad, bd = a[0], b[0]
    if len(a) == 2:
        return a[1] * bd > b[1] * ad
    return tuple([x * bd for x in a[1:]]) > tuple([y * ad for y in b[1:]])


BUSY: Value = ()
"""The score of a state being scored (falsy: reaching it again is a cycle)."""

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
    under best play is `absorb`'s to work out, following `best`)."""

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
        self._values: dict[S, Value] = {}
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
        return tuple([Fraction(n, value[0]) for n in value[1:]])

    def best(self, state: S) -> tuple[Value, Opt | None]:
        """Best play from `state`: its score, and the option taken now (None where nobody
        chooses)."""
        value = self._values.get(state)
        if value is None:
            try:
                with collector_paused:  # the scores kept are acyclic (see `collector`)
                    value = self._solved(state)
            except BaseException:  # a limit, or a cycle: nothing is being scored any more
                values = self._values
                for s in [s for s, v in values.items() if v is BUSY]:
                    del values[s]
                raise
        return value, self._moves.get(state)

    def _solved(self, state: S) -> Value:
        """Score `state` (not yet scored), and the states it needs first, depth first: the
        hottest loop of an optimal solve, so one call per state (and none per option). A state
        being scored is kept as `BUSY` (falsy), so reaching it again is a cycle."""
        values = self._values
        if state in values:
            raise self.on_cycle(state)
        node = self.node(state)
        if node is None:
            value = _whole(self.score(self.final(state)))
        else:
            options, successors, weights, total = node
            values[state] = BUSY
            solved = self._solved
            scores: list[Value] = [values.get(t) or solved(t) for t in successors]
            if options is None:
                value = _mixed(scores, weights, total)
            else:
                at = _first_best(scores)
                value = scores[at]
                to: S = successors[at]
                self._moves[state] = options[at]
                through = self._through
                through[state] = through.get(to, to)
        values[state] = value
        self.order.append(state)
        if len(values) > self.most:
            self.count(len(values))
        return value


def _first_best(scores: list[Value]) -> int:
    """Where the highest score is first found (ties keep the earlier one)."""
    at = 0
    top = scores[0]
    if len(top) == 2:  # one part: compared by cross multiplication inline
        d, n = top
        for i in range(1, len(scores)):
            d2, n2 = scores[i]
            if n2 * d > n * d2:
                at, d, n = i, d2, n2
        return at
    for i in range(1, len(scores)):
        if _above(scores[i], top):
            at, top = i, scores[i]
    return at


def _mixed(scores: list[Value], weights: tuple[int, ...], total: int) -> Value:
    """The score of a move of chance: its successors' scores weighed by their chances, over one
    common denominator (one successor: its own score)."""
    if len(scores) == 1:
        return scores[0]
    den = 1
    for value in scores:
        d = value[0]
        if den % d:
            den = d if d % den == 0 else math.lcm(den, d)
    if len(scores[0]) == 2:
        acc = 0
        for (d, n), w in zip(scores, weights):
            acc += n * (den // d * w)
        return (den * total, acc)
    parts = [0] * (len(scores[0]) - 1)
    for value, w in zip(scores, weights):
        f = den // value[0] * w
        for i, n in enumerate(value[1:]):
            parts[i] += n * f
    return (den * total, *parts)


# -- chains with choices, solved component by component ------------------------------------------


Vector = dict[Hashable, Fraction]
NEVER = "never"
"""What a state is worth when it can never reach an absorbing state."""


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
    order = _components(choices)
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
        if loop:
            f = 1 / (1 - loop)
            row = rows[s] = {t: v * f for t, v in row.items()}
            const = consts[s] = {k: v * f for k, v in const.items()}
        for r in users.pop(s):
            if r in eliminated or r == s:
                continue
            target, c = rows[r], rows[r].pop(s)
            work.charge(len(row) + len(const))
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
            for k, v in value[t].items():
                x[k] = x.get(k, Fraction(0)) + c * v
            if total[t]:
                x[_REWARD] = x.get(_REWARD, Fraction(0)) + c * total[t]
        total[s] = x.pop(_REWARD, Fraction(0))
        value[s] = {k: x[k] for k in sorted(x, key=repr) if x[k]}


def _succ(choices: Mapping[Any, Sequence[Dist] | None], policy: Mapping[Any, int], s: Any) -> list[Any]:
    options = choices[s]
    return [] if options is None else list(options[policy[s]].weights)


def _components(choices: Mapping[Any, Sequence[Dist] | None]) -> list[list[Any]]:
    """Strongly connected components over every choice's successors, sinks first (Tarjan,
    without recursion)."""
    index: dict[Any, int] = {}
    low: dict[Any, int] = {}
    stack: list[Any] = []
    on_stack: set[Any] = set()
    out: list[list[Any]] = []
    counter = 0
    for root in choices:
        if root in index:
            continue
        work: list[tuple[Any, Iterator[Any]]] = [(root, iter(_all_succ(choices, root)))]
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
                    work.append((t, iter(_all_succ(choices, t))))
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
