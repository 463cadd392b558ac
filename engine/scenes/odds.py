"""A scene solved exactly: a Markov chain over its states, one step at a time, with choices.

A node of the chain is the whole lasting state (canonical JSON) and the step about to be taken.
A step's action is solved one action deep (`state.exact.after_action`: the check's exact
distribution, each point through the same effects); a node whose state meets an ending absorbs.
A step that offers a choice (`may:`) has two successors — the step without it and with it — and
the policy picks (a step its `when` skips, or whose choice leads where the step without it does,
offers none): `never` the first, `always` the second where the rules allow it, `optimal` the
one that gives the scene's objective ending the higher chance, found by policy iteration
(`eval.markov.solve_components`). Where play can return to a state (a stand-off changes nothing)
the chain has cycles and each cycle is solved exactly, not cut off; a state from which no ending
can be reached ends as "never". The length in rounds is counted to `max_rounds`, with the rest.
"""

from __future__ import annotations

import json
import math
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from ..errors import CampaignError, Diagnostic, LimitError, did_you_mean, limit_advice, placed
from ..eval.dist import SMALL_BITS, Dist, common_divisor, fraction_text
from ..eval.markov import expectation, solve_components
from ..frozen import FrozenDict, field, freeze_fields, frozen, replace
from ..model.ruleset import RulesetModel
from ..model.scene import NEVER, Scene
from ..model.state import Counter, StateModel, Tally
from ..model.values import Multi
from ..runtime import arguments
from ..runtime.context import RunContext, with_work
from ..runtime.state import begin, width_work
from ..runtime.work import Work, gcd_units, product_units, quotient_units, working
from ..state.exact import after_action
from .memo import state_key
from .play import ending, scene_view, step_call, takes_place, too_long

Node = tuple[str, int]
"""(the state as canonical JSON, the index of the step about to be taken)."""


@frozen
class Odds:
    """The exact chance of each ending, the length in rounds, and how large the chain was."""

    scene: str
    policy: str
    endings: Dist
    rounds: Mapping[int, Fraction]
    """P(the scene ends in round r), for r up to the scene's `max_rounds`."""
    longer: Fraction
    """P(it lasts longer than `max_rounds`)."""
    mean_rounds: Fraction | None
    """The exact expected length (None when the scene may never end)."""
    states: int
    choices: Mapping[str, int] = field(default_factory=dict)
    """How many nodes of the chain offered a choice, and in how many the policy took it."""
    expected: Mapping[str, Fraction] | None = None
    """The expected value at the end of each name asked for (`PARTY.ITEM`: what is left of a
    resource, a count of wounds); None when some state never ends, so there is no end to average."""
    declared: tuple[str, ...] = field(default=(), compare=False, repr=False)
    """Every ending the scene may have (its own and `never`), for telling a misspelt one."""
    truncated: Fraction = Fraction(0)
    """The largest share any roll the scene makes was cut at (an uncapped explosion followed
    down to a tail, `Distribution.truncated`): each step's chances are exact to within it, and
    the numbers above are exact for the chances so cut. Not a bound on the scene's numbers: a
    scene that returns to a state again and again carries a roll's error round after round."""

    def __post_init__(self) -> None:
        # read-only all the way down, as a check's `Distribution` is: a changed weight made
        # `probability` answer 500000 (hunt 13k)
        freeze_fields(self, "rounds", "choices")
        if self.expected is not None:
            freeze_fields(self, "expected")
        if type(self.endings.weights) is not FrozenDict:
            endings = Dist(FrozenDict(self.endings.weights), self.endings.total)
            for kept in ("scale", "truncated"):  # set on it, not fields (`Dist`)
                if kept in self.endings.__dict__:
                    object.__setattr__(endings, kept, self.endings.__dict__[kept])
            object.__setattr__(self, "endings", endings)

    def probability(self, name: str) -> Fraction:
        """P(the scene ends so); `CampaignError` RC907 for an ending the scene does not have."""
        arguments.name("Odds.probability", "name", name)
        if self.declared and name not in self.declared:
            raise arguments.unknown(
                "ending", name, self.declared, f"scene '{self.scene}'", code="RC907", error=CampaignError
            )
        return self.endings.probability(name)

    def later(self, last: int) -> Fraction:
        """P(the scene ends after round `last`, by its `max_rounds`): what the rounds past `last`
        hold together, from those up to it and `longer` (the rounds and `longer` add up to 1, or
        are all 0 when an ending holds before round 1), not by adding up every later round."""
        last = arguments.whole("Odds.later", "last", last)
        if not self.rounds:
            return Fraction(0)
        return 1 - self.longer - sum((p for r, p in self.rounds.items() if r <= last and p), Fraction(0))

    def as_json(self) -> dict[str, Any]:
        """As JSON, fractions as text; the rounds in order while their text fits `ROUNDS_TEXT`,
        the rest together as `later` (from `rounds_listed` on), so the answer's size is bounded
        whatever the scene's `max_rounds`."""
        listed: dict[str, str] = {}
        size = last = 0
        for r, p in self.rounds.items():
            if p:
                text = fraction_text(p)
                size += len(text)
                if size > ROUNDS_TEXT:
                    break
                listed[str(r)] = text
            last = r
        return {
            "scene": self.scene,
            "policy": self.policy,
            "endings": {str(k): fraction_text(p) for k, p in self.endings.items()},
            "rounds": listed,
            "rounds_listed": last,
            "later": fraction_text(self.later(last)),
            "longer": fraction_text(self.longer),
            "mean_rounds": fraction_text(self.mean_rounds) if self.mean_rounds is not None else None,
            "states": self.states,
            "choices": dict(self.choices),
            "expected": None
            if self.expected is None
            else {k: fraction_text(v) for k, v in self.expected.items()},
            "truncated": fraction_text(self.truncated),
        }


ROUNDS_TEXT = 1_000_000
"""The most characters of exact fractions `Odds.as_json` lists in `rounds` (about a megabyte, a
thousand times a duel's hundred rounds): a scene that ends each round with chance 1/2 has a
fraction r bits long for round r, and its 20,000 rounds, which the default budget counts, were
54 MB of text; past this the rounds are given together, exactly, as `later`."""


def odds(
    model: RulesetModel,
    scene: Scene,
    state: Mapping[str, Any],
    cast: Mapping[str, str],
    ctx: RunContext,
    expect: Sequence[str] = (),
) -> Odds:
    """The exact odds of `scene` from `state`, with the parties played by `cast`; with the expected
    value at the end of each name in `expect`."""
    return solve(model, scene, state, cast, ctx, expect)[0]


@frozen
class Decision:
    """What the optimal policy does where a step offers a choice, and why: the chance of the
    scene's objective ending if the choice is declined and if it is taken, each with best play
    after it."""

    taken: bool
    objective: str
    if_declined: Fraction
    if_taken: Fraction


def choice_at(
    model: RulesetModel, scene: Scene, state: Mapping[str, Any], cast: Mapping[str, str], ctx: RunContext
) -> Mapping[Node, Decision]:
    """The optimal policy's decision at every node whose step offers a choice; solved once per
    scene, start and policy, and kept in the ruleset's cache."""
    key = ("scene", scene.name, state_key(state), tuple(sorted(cast.items())), ctx.policy, ctx.limits)
    found: Mapping[Node, Decision] | None = ctx.caches.evaluators.get(key)
    if found is None:
        found = solve(model, scene, state, cast, ctx)[1]
        ctx.caches.evaluators.put(key, found)
    return found


PUSHES_PER_UNIT = 3
"""Multiply-adds of the length distribution charged as one unit of work (each takes about a
third of a microsecond, measured on a two-party duel and on a cycle pushed 16,000 rounds)."""

BITS_PER_WORD = 32_768
"""Past this many bits of the common total, a multiply-add is charged once more per as many bits
(a chain pushed 100,000 rounds carries numbers of about 150,000 bits)."""


GCD_BITS = 1_600
"""A greatest common divisor of numbers of n bits is charged (n / GCD_BITS)² units: about a
millisecond at 50,000 bits."""

NODE_WORK = 120
"""Units of work charged for listing one node of a scene's chain (its state's view, its step's
action applied to each point of the roll): about what it costs, at a microsecond a unit."""


def solve(
    model: RulesetModel,
    scene: Scene,
    state: Mapping[str, Any],
    cast: Mapping[str, str],
    ctx: RunContext,
    expect: Sequence[str] = (),
) -> tuple[Odds, dict[Node, Decision]]:
    """The odds, and at each node that offers a choice what the policy does and why, within one
    work budget (`Limits.max_work`, `Limits.deadline`) for the whole solve, the checks it solves
    included."""
    ctx = with_work(ctx)
    assert ctx.work is not None
    try:
        with working(ctx.work):
            return _solve(model, scene, state, cast, ctx, expect)
    except LimitError as exc:
        raise placed(exc, scene.span) from None


def _solve(
    model: RulesetModel,
    scene: Scene,
    state: Mapping[str, Any],
    cast: Mapping[str, str],
    ctx: RunContext,
    expect: Sequence[str],
) -> tuple[Odds, dict[Node, Decision]]:
    """Each name in `expect` rides along the chain as one more column of the ending vectors (an
    ending state is worth its value there), so its expectation at the end comes out of the same
    solve."""
    work = ctx.work
    assert work is not None
    rules = model.state
    assert rules is not None
    if expect:
        _check_names(scene, scene_view(model, dict(state), cast), expect)
    size = len(scene.round)
    memo = ctx.caches.environments
    seen: dict[str, tuple[dict[str, Any], dict[str, Any], str | None]] = {}

    def look(key: str) -> tuple[dict[str, Any], dict[str, Any], str | None]:
        """A state (by its key), its scene view and its ending: made once, though a state is
        about to take each step of the round in turn."""
        found = seen.get(key)
        if found is None:
            state = json.loads(key)
            work.charge(width_work(rules, state))
            view = scene_view(model, state, cast)
            found = seen[key] = (state, view, ending(scene, view))
        return found

    def ended(key: str) -> str | None:
        return look(key)[2]

    forks: set[Node] = set()  # the nodes that offer a choice
    cut: list[Fraction] = []  # the tails of the rolls cut short (`after_action`)

    def successors(node: Node) -> list[Dist] | None:
        """The distributions a node may lead to: several where the step offers a choice and the
        policy weighs it (`optimal`), the one a fixed policy takes otherwise."""
        key, i = node
        here, view, end = look(key)
        if end is not None:
            return None
        step, nxt = scene.round[i], (i + 1) % size
        if step.period:
            taken = takes_place(step, view)
            moved = state_key(begin(rules, here, step.period, memo)[0]) if taken else key
            return [Dist.certain((moved, nxt))]
        if not takes_place(step, view):  # skipped: nothing happens, and no choice is offered
            return [Dist.certain((key, nxt))]
        options = []
        for offer in (False, True) if step.may else (False,):
            call = step_call(model, step, view, cast, offer)
            if call is None:
                options.append(Dist.certain((key, nxt)))
                continue
            act, who, bound, roles = call
            try:
                after = after_action(rules, model.checks, act, here, who, bound, ctx, roles, cut)
            except CampaignError as exc:
                if exc.diagnostics[0].code != "RC905":
                    raise
                if offer:
                    continue  # the choice is not there in this state
                after = Dist.certain(key)
            options.append(after.map(lambda k: (k, nxt)))
        if len(options) == 1 or _same(options[0], options[1]):
            return options[:1]  # no choice here: a skipped step, or a choice that changes nothing
        forks.add(node)  # a choice is offered here, whichever policy decides it
        if ctx.policy == "never":
            return options[:1]
        if ctx.policy == "always":
            return options[1:2]
        return options

    start: Node = (state_key(state), 0)
    graph: dict[Node, list[Dist] | None] = {}
    todo = deque([start])
    try:
        while todo:
            node = todo.popleft()
            if node in graph:
                continue
            graph[node] = successors(node)
            work.charge(NODE_WORK + sum(len(d.weights) for d in graph[node] or ()))
            if len(graph) > ctx.limits.max_states:
                raise LimitError(
                    [
                        Diagnostic(
                            "RC503",
                            f"scene '{scene.name}' has more than {ctx.limits.max_states:,} states",
                            scene.span,
                            **limit_advice("max_states"),
                        )
                    ]
                )
            for d in graph[node] or ():
                todo.extend(t for t in d.weights if t not in graph)
    except LimitError as exc:
        raise _grown(exc, (found[0] for found in seen.values()), cast, rules) from None

    objective = scene.objective or scene.ends[0].name

    def score(vector: Mapping[Any, Fraction]) -> Fraction:
        return vector.get(objective, Fraction(0))

    def terminal(node: Node) -> dict[Any, Fraction]:
        name = ended(node[0])
        if name is None:
            return {NEVER: Fraction(1)}
        vector: dict[Any, Fraction] = {name: Fraction(1)}
        for asked in expect:
            vector[(EXPECTED, asked)] = _number(look(node[0])[1][asked])
        return vector

    value, chosen, total = solve_components(
        graph,
        terminal,
        score if ctx.policy == "optimal" else None,
        lambda s, t: Fraction(1) if s[1] == 0 else Fraction(0),  # a round begins with its first step
    )
    at_start = value[start]
    endings = Dist.from_fractions({k: v for k, v in at_start.items() if v and not isinstance(k, tuple)})
    expected = (
        None
        if NEVER in endings.weights and expect
        else {asked: at_start.get((EXPECTED, asked), Fraction(0)) for asked in expect}
    )
    offered = [n for n, options in graph.items() if options is not None and len(options) > 1]
    policy_graph = {n: (None if o is None else [o[chosen.get(n, 0)]]) for n, o in graph.items()}
    rounds, longer = _lengths(start, policy_graph, scene, size, work)
    mean = total[start] if NEVER not in endings.weights else None
    # a fixed policy decided each fork as it was listed: `always` took each one, `never` none
    took = len(forks) if ctx.policy == "always" else sum(1 for n in offered if chosen.get(n, 0) == 1)
    taken = {"offered": len(forks), "taken": took}
    declared = (*(e.name for e in scene.ends), NEVER)
    odds = Odds(
        scene.name,
        ctx.policy,
        endings,
        rounds,
        longer,
        mean,
        len(graph),
        taken,
        expected,
        declared,
        cut[-1] if cut else Fraction(0),
    )
    decisions = {}
    for n in offered:
        options = graph[n]
        assert options is not None
        declined, accepted = (score(expectation(d, value)) for d in options)
        decisions[n] = Decision(chosen.get(n, 0) == 1, objective, declined, accepted)
    return odds, decisions


def _same(one: Dist, other: Dist) -> bool:
    """Whether two distributions give every value the same chance (their totals may differ)."""
    return one.weights.keys() == other.weights.keys() and all(
        w * other.total == other.weights[v] * one.total for v, w in one.weights.items()
    )


EXPECTED = "expected"
"""Tags the columns of an ending vector that carry a name's value rather than an ending's chance."""


def _number(value: Any) -> Fraction:
    """A value as a number to average: a count, a whole or exact number, true as 1, a tally as
    how many it holds."""
    if isinstance(value, Multi):
        return Fraction(len(value))
    return Fraction(value)


def _check_names(scene: Scene, view: Mapping[str, Any], expect: Sequence[str]) -> None:
    """Each name to average must be one the scene's expressions can read, hold a number, and be
    asked once."""
    numbers = [n for n, v in view.items() if isinstance(v, (int, Fraction, Multi))]
    seen: set[str] = set()
    for asked in expect:
        if asked in seen:  # a slip, as `--expect` given twice is (hunt 13ze): each once
            raise CampaignError(
                [Diagnostic("RC907", f"'{asked}' is asked to average twice", scene.span, "name each once")],
                unfit=True,
            )
        seen.add(asked)
        if asked not in numbers:
            raise CampaignError(
                [
                    Diagnostic(
                        "RC907",
                        f"scene '{scene.name}' has no number '{asked}' to average at the end",
                        scene.span,
                        did_you_mean(asked, numbers) or "name a PARTY.ITEM that holds a number or a tally",
                    )
                ],
                unfit=True,
            )


def _lengths(
    start: Node, graph: Mapping[Node, list[Dist] | None], scene: Scene, size: int, work: Work
) -> tuple[dict[int, Fraction], Fraction]:
    """`_count_lengths` to the scene's `max_rounds`; a limit passed while counting is told at the
    scene's `max_rounds:` (the scene's name when it is not given), saying so: each round of the
    count is an exact chance of its own (a scene that ends each round with chance 1/2 has one of
    r bits for round r), so a long count may not fit where the odds of its endings did, and a
    lower `max_rounds` is the way on (the rounds past it are given together, as `longer`). Only
    when the count did most of the request's work: a budget spent mostly before it (by the solve,
    by a grid's earlier cells) is told as it was. Worded by `play.too_long`, as a scene played
    past the budget round by round is."""
    reached = [0]
    before = work.used
    try:
        return _count_lengths(start, graph, scene.max_rounds, size, work, reached)
    except LimitError as exc:
        if work.used - before < before:
            raise
        why = " (each round's chance of ending is an exact fraction of its own)"
        lead = (
            "the chance of lasting longer is given whole, as 'longer'; "
            "the endings' odds and the mean do not depend on it"
        )
        raise too_long(exc, scene, reached[0], work, "counting the length of", why, lead) from None


LOOKED = 200_000
"""How many items' values `_grown` reads, of the states first met: its hint is worked out after
the budget has been spent, so it is bounded on its own."""
GROWN = 50
"""How many values one item must have taken among a scene's states, when the solve passes a
bound, for the hint to name it as what multiplies them (`_grown`)."""


def _grown(
    exc: LimitError, states: Iterable[Mapping[str, Any]], cast: Mapping[str, str], rules: StateModel
) -> LimitError:
    """`exc`, a bound passed while a scene's states were found, with a hint naming the items that
    took the most values among the states met, where one took `GROWN` or more: a scene's state is
    every item's value, so an item that changes each round (a counter that only grows) makes
    new states round after round. The hint had been "fewer dice, a smaller input, a 'cap'", and
    past `max_states` only to raise it, which never ends such a scene (hunt 13ze). An item with
    bounds on both sides (a counter's `min` and `max`, a tally's `max`) is not named: it cannot
    grow without end, and a scene may need it (hit points); and at most `LOOKED` values are read,
    as this runs after the budget is spent (a scene of 1,500 items had taken 2 s here)."""
    unbounded = {name for name, item in rules.shared.items() if not _bounded(item)}
    each = {name for name, item in rules.each.items() if not _bounded(item)}
    values: dict[str, set[Any]] = {}
    party = {character: name for name, character in cast.items()}
    read = 0
    for state in states:
        if read > LOOKED:
            break
        for item, value in (state.get("shared") or {}).items():
            if item in unbounded:
                values.setdefault(item, set()).add(_seen(value))
                read += 1
        for who, sheet in (state.get("characters") or {}).items():
            for item, value in (sheet.get("items") or {}).items():
                if item in each:
                    values.setdefault(f"{party.get(who, who)}.{item}", set()).add(_seen(value))
                    read += 1
    most = sorted(values.items(), key=lambda kv: -len(kv[1]))[:2]
    named = [f"{name} ({len(seen):,} values)" for name, seen in most if len(seen) >= GROWN]
    if not named:
        return exc
    lead = (
        f"every value of every item is a state of its own, and {' and '.join(named)} took the most"
        " among the states met: keep an item the scene does not need from changing, or give it a"
        " 'max'"
    )
    told = []
    for d in exc.diagnostics:
        bound = d.advice.name if d.advice is not None and d.advice.kind == "limit" else ""
        told.append(replace(d, **limit_advice(bound, lead, "the limit")) if bound else d)
    return type(exc)(told, missing=exc.missing, unfit=exc.unfit)


def _bounded(item: Any) -> bool:
    """Whether a state item cannot grow without end: a counter with a `min` and a `max`, a tally
    with a `max`; a derived value is no state."""
    if isinstance(item, Counter):
        return item.minimum is not None and item.maximum is not None
    if isinstance(item, Tally):
        return item.maximum is not None
    return True


def _seen(value: Any) -> Any:
    """A stored value as a set keeps it: a number or a name as it is, a tally's counts as text."""
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else value


def _count_lengths(
    start: Node,
    graph: Mapping[Node, list[Dist] | None],
    horizon: int,
    size: int,
    work: Work,
    reached: list[int],
) -> tuple[dict[int, Fraction], Fraction]:
    """P(the scene ends in round r) for r = 1..horizon, pushing the mass one step at a time (all
    of it stands at the same step: a round is `size` steps). The mass is kept as whole numbers
    over one common total, reduced once a round. Nodes are numbered and every step's weights put
    over one denominator up front, so a push is integer multiply-adds only. Each step charges
    `work` for its multiply-adds before it makes them (`PUSHES_PER_UNIT`, and `product_units` of
    the total by the longest weight: a check over a large bag moves mass by weights of a thousand
    bits), the reduction's divisions likewise (`quotient_units`): a scene that can go on for ever
    with `max_rounds: 100000` pushes a hundred thousand rounds.

    Mass that reaches a node from which no ending can be reached (`_stuck`) is not pushed on: it
    is set aside as `stuck`, for `longer`, since it ends in no round of any count. The count stops
    once no mass is left that could still end, so a scene that can never end from where it stands
    is counted in no rounds at all, however long its `max_rounds`."""
    stuck_nodes = _stuck(graph)
    number = {node: i for i, node in enumerate(graph)}
    scale = [1] * size  # the common denominator of the moves out of step i
    for node, options in graph.items():
        if options is not None:
            scale[node[1]] = math.lcm(scale[node[1]], options[0].total)
    moves: list[list[tuple[int, int]]] = []  # (node, weight); ENDS and STUCK for the two ways out
    for node, options in graph.items():
        if options is None or node in stuck_nodes:
            moves.append([])  # never pushed from: mass does not stay there
            continue
        d = options[0]
        f = scale[node[1]] // d.total
        out: dict[int, int] = {}
        for t, w in d.weights.items():
            to = _ENDS if graph[t] is None else _STUCK if t in stuck_nodes else number[t]
            out[to] = out.get(to, 0) + w * f
        moves.append(list(out.items()))
    fan = [len(m) for m in moves]
    # the longest move weight: past a thousand bits or so (a check over a large bag), each push
    # is a product of the mass by it (`product_units`), which the word count alone misses
    weight_bits = max((w.bit_length() for m in moves for _, w in m), default=0)
    stuck = 0  # the mass set aside, over the running total
    mass: dict[int, int] = {}
    if start in stuck_nodes:
        stuck = 1
    elif graph[start] is not None:
        mass = {number[start]: 1}
    total = 1
    rounds: dict[int, Fraction] = {}
    for r in range(1, horizon + 1):
        if not mass:
            break
        reached[0] = r
        done = 0
        for i in range(size):
            nxt: dict[int, int] = {}
            ended = lost = 0
            width = 1 + total.bit_length() // BITS_PER_WORD  # long numbers cost more per push
            pushes = sum(fan[at] for at in mass)
            work.charge(
                1
                + width * pushes // PUSHES_PER_UNIT
                + pushes * product_units(total.bit_length(), weight_bits)
            )
            for at, m in mass.items():
                for t, w in moves[at]:
                    if t >= 0:
                        nxt[t] = nxt.get(t, 0) + m * w
                    elif t == _ENDS:
                        ended += m * w
                    else:
                        lost += m * w
            total *= scale[i]
            done = done * scale[i] + ended  # `done` and `stuck` stay over the running total
            stuck = stuck * scale[i] + lost
            mass = nxt
            if not mass:
                break
        # two greatest common divisors of the total follow (the round's fraction, the reduction),
        # each quadratic in its length: 4,000 rounds of a chain that never ends took 8 s in them.
        # Charged by the total's length as before (which also bounds the rounds' fractions kept:
        # 'tossing' of docs/scenes.md), and by the size of the numbers each divides (`common_divisor`):
        # a reduction over many masses that share a long factor with the total (a d1000's
        # chances) takes a divisor of that length per mass, and ran 12 s at the default budget
        work.charge(2 * (total.bit_length() // GCD_BITS) ** 2)
        bits, done_bits = total.bit_length(), done.bit_length()
        if bits + done_bits >= SMALL_BITS:  # as `common_divisor` charges the fraction's own
            work.charge(quotient_units(bits, done_bits))
        rounds[r] = Fraction(done, total)
        if bits + done_bits >= SMALL_BITS:
            work.charge(gcd_units(done_bits, bits - rounds[r].denominator.bit_length()))
        if bits < SMALL_BITS:  # a game's totals: one call, nothing more charged
            common = math.gcd(total, stuck, *mass.values())
        else:
            common = total
            for v in (stuck, *mass.values()):
                if common == 1:
                    break
                common = common_divisor(common, v, work)
        if common > 1:
            work.charge((2 + len(mass)) * quotient_units(total.bit_length(), common.bit_length()))
            total //= common
            stuck //= common
            mass = {k: v // common for k, v in mass.items()}
    return rounds, Fraction(sum(mass.values()) + stuck, total)


_ENDS = -1
_STUCK = -2
"""Where a move of `_count_lengths` may lead besides a node: to an ending, or to a node from
which no ending can be reached."""


def _stuck(graph: Mapping[Node, list[Dist] | None]) -> set[Node]:
    """The nodes of a chain (one option each) from which no ending can be reached: every node
    but those an ending is reached from, walking the moves backwards from the endings."""
    into: dict[Node, list[Node]] = {}
    for node, options in graph.items():
        for t in options[0].weights if options else ():
            into.setdefault(t, []).append(node)
    live = {node for node, options in graph.items() if options is None}
    todo = list(live)
    while todo:
        for before in into.get(todo.pop(), ()):
            if before not in live:
                live.add(before)
                todo.append(before)
    return {node for node in graph if node not in live}
