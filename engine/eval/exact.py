"""Evaluate exactly: the full distribution of a check's outcome and named values.

It reads the same compiled model and runs the same `Check.program` as the sampler; only the way
randomizers produce values differs. Independent randomizers multiply (`randomizer_table` each,
every combination once); a check whose dice depend on earlier dice, or whose player chooses
(triggers, redraws), goes die by die (`Sequential`) — unless, for the inputs given, none of that
is in force (`_unlinked`) — listing only what the check reads of each value and finishing once
per key of what the rest reads, with reroll procedures solved as absorbing Markov chains
(`rerolls`). Every weight is a whole number over a common total (`Dist`).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Hashable, Mapping
from fractions import Fraction
from functools import cached_property, partial
from itertools import islice, product, repeat
from typing import Any

from ..errors import (
    BoundError,
    EndlessError,
    EvalError,
    InputError,
    LimitError,
    never_ends,
    no_outcome,
    no_value,
    optimal_again,
    placed,
)
from ..expr import ast
from ..frozen import FrozenDict, field, freeze_fields, frozen
from ..model.ruleset import AGAIN, Check, Expr, Pool, Randomizer, Scale, randomizer_expressions
from ..model.values import COUNTED, Multi, Symbol, redraws_key, to_json
from ..runtime import arguments
from ..runtime.cache import approx_bytes
from ..runtime.context import POLICIES, RunContext, check_policy, new_work
from ..runtime.limits import enforce, redraw_times, roll_count
from ..runtime.procedure import Procedure
from ..runtime.rules import (
    auto_outputs,
    before_roll,
    carried,
    concrete,
    first_rule,
    folds_for,
    known_values,
    read_faces,
    reading,
    redraw_offered,
    with_dice,
)
from ..runtime.work import (
    CLOCK_EVERY,
    TRANSITION,
    Work,
    current_work,
    enter,
    leave,
    meter,
    pause,
    unstoppable,
    working,
)
from .collector import collector_paused
from .dist import Dist, fraction_text, ratios
from .rerolls import CAPPED, TRUNCATED, RerollSolver
from .tables import randomizer_table, weighted_pool
from .tally import KindCounts, truth_and_number

TAIL = Fraction(1, 10**15)
"""An uncapped explosion is followed deeper (8, 16, 32, … dice added or rerolled, at most
`Limits.max_rerolls`) until the chance that it would go on is at most this; that chance is
`Distribution.truncated`."""
FIRST_DEPTH = 8
_NONE = Fraction(0)
_KINDS = COUNTED
"""The kinds of value a named value's distribution holds (numbers, true/false, scale values)."""
_PLAIN = frozenset({int, bool, Fraction, Symbol})
"""`_KINDS` by exact type, told at once for a whole distribution (a subclass is asked one by one)."""
_SMALL = frozenset({Symbol, int, bool})
"""The kinds of value a point of a joint distribution is weighed without walking it: a tuple of
these is about its slots and a small number each (a scale's members belong to the model)."""
_APART = object()
"""Marks a key made of the value or dice themselves because working out the key failed
(`Sequential.stage_key`, `_read_alike`): they are merged with nothing."""


@frozen(eq=False)
class Distribution:
    """The exact distribution of one check for fixed inputs: outcomes and named values.

    The outcome's distribution is made when the distribution is — or, when nothing in its pass
    can raise (`Check.outcome_total`), charged then and made at the first question about
    outcomes, so a question about a value alone never makes it; the joint distribution of the
    outcome with every named value (`joint`, `values`) is made the first time it is asked for
    (`_Product`), so a question about outcomes alone never works out outputs and values."""

    check: str
    inputs: Mapping[str, Any]
    outcomes: Scale
    source: Dist | _Product = field(repr=False)
    """The joint `Dist` itself, or the product of the check's randomizer tables that makes it."""
    names: tuple[str, ...] = ()
    states: int = 0
    policy: str = "always"
    capped: Fraction = Fraction(0)
    """The chance that a pool's `cap`, not its rules, ended a reroll procedure."""
    truncated: Fraction = Fraction(0)
    """The chance that an uncapped explosion went on past where it was followed: each
    probability is exact to within it (the cut roll counts the dice as they stood). For a check
    with a rule `then: again`, the bound of the roll that ends (`Sequential.distribution`)."""
    known: tuple[tuple[str, Any], ...] = ()
    """The values known before the roll (`known_values`), by name: the same at every point, so
    not in `joint`; `values` reports each as certain, auto rule or not, as a roll reports it."""
    unrolled: tuple[str, ...] = ()
    """The values worked out after the roll that an auto rule, deciding the outcome, left without
    one (`Check.unrolled`): nothing was rolled, and `value` says so."""
    failed: EvalError | BoundError | None = field(default=None, repr=False)
    """The first error a value or an output the outcome does not read raised at some end of the
    roll, where the check was worked out randomizer by randomizer (`Sequential`): the outcome's
    distribution stands, and asking for the joint, a value or an output raises it, as a roll with
    those dice does (the product's `joint` raises it when made)."""
    value_scales: Mapping[str, Scale] = field(default_factory=dict, repr=False)
    """The scale of each named value declared of a scale's type (`Check.value_scales`): its `Dist`
    is told it (`Dist.scale`), so that a misspelt member is RC402, not a chance of 0."""
    _outcome: Dist | None = field(init=False, repr=False)
    """The outcome's distribution as made with the distribution; None when its pass was left
    (then `_Product.finish` makes and keeps it)."""
    _marginals: dict[str, Dist | None] = field(init=False, repr=False)

    @cached_property
    def joint(self) -> Dist:
        """Over (outcome, index of the rule that fired, each named value in `names`)."""
        if self.failed is not None:
            raise self.failed
        source = self.source
        if isinstance(source, Dist):
            return source
        joint = source.joint()
        # a check that may roll again: the roll that ends (a pass over the joint for it alone)
        return _frozen(_not_again(joint, _first) if source.check.again_rules else joint)

    @property
    def outcome(self) -> Dist:
        """The outcome's distribution (its pass run now when it was left for the first question
        about outcomes: `_Product.finish`)."""
        made = self._outcome
        if made is None:
            assert isinstance(self.source, _Product)
            made = _frozen(_not_again(self.source.finish()), self.outcomes)
            object.__setattr__(self, "_outcome", made)
        return made

    def __post_init__(self) -> None:
        # what it hands out is read-only (`_frozen`): a distribution is kept in the ruleset's
        # cache and handed to every caller who asks the same question
        freeze_fields(self, "inputs")
        source = self.source
        if isinstance(source, Dist):
            made: Dist | None = source.map(_first)
            assert made is not None
            if AGAIN in made.weights:  # a check that may roll again: the roll that ends (`_not_again`)
                source, made = _not_again(source, _first), _not_again(made)
            source = _frozen(source)
            object.__setattr__(self, "source", source)
        else:
            made = source.outcome
            if made is not None:
                made = _not_again(made)
        if made is not None:  # the product's pass makes its own read-only; a map is made here
            made = _frozen(made, self.outcomes, fresh=not isinstance(source, _Product))
        object.__setattr__(self, "_outcome", made)
        object.__setattr__(self, "_marginals", {})

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with its joint distribution worked out first: the product that would make it
        later holds the check's compiled code, which does not pickle (so a distribution solved in
        a worker process reaches its parent)."""
        joint, failed = self._made()
        fields = (self.check, self.inputs, self.outcomes, joint, self.names, self.states, self.policy)
        rest = (self.capped, self.truncated, self.known, self.unrolled, failed, self.value_scales)
        return (Distribution, (*fields, *rest))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Distribution):
            return NotImplemented
        return (self.check, self.inputs, self.outcomes, self.names, self.states, self.policy) == (
            other.check,
            other.inputs,
            other.outcomes,
            other.names,
            other.states,
            other.policy,
        ) and (self.capped, self.truncated, self.known, *_shown(self._made())) == (
            other.capped,
            other.truncated,
            other.known,
            *_shown(other._made()),
        )

    def _made(self) -> tuple[Dist, EvalError | BoundError | None]:
        """The joint as it was made, the ends whose values failed as the outcome alone, with the
        first such failure (a product's joint is made now, and may fail so): what equality,
        pickling and a cache's weighing read, never the answer to a question."""
        source = self.source
        if isinstance(source, Dist):
            return source, self.failed
        made: tuple[Dist, EvalError | BoundError | None] | None = self.__dict__.get("_failed_joint")
        if made is not None:  # a failed joint is not kept by `cached_property`
            return made
        try:
            return self.joint, None
        except (EvalError, BoundError) as exc:  # a value the outcome does not read fails
            made = self.__dict__["_failed_joint"] = (self.outcome.map(_alone), exc)
            return made

    __hash__ = None  # type: ignore[assignment]

    @cached_property
    def values(self) -> Mapping[str, Dist]:
        """Each named value's and output's distribution (numbers, true/false and scale values),
        made on first use: those known before the roll first (certain), then the others."""
        source = self.source
        if isinstance(source, _Product) and (len(source.check.value_loops) < len(self.names) or source.heavy):
            _ = self.joint  # some value has no loop of its own: every value from one pass
        found = {name: self._marginal(name) for name, _ in self.known}
        found.update((name, self._marginal(name)) for name in self.names)
        return FrozenDict({name: d for name, d in found.items() if d is not None})

    def _marginal(self, name: str) -> Dist | None:
        """One named value's distribution from the joint, kept; None for a name the check has
        no value of, or a value that is not a number, true/false or a scale value."""
        kept = self._marginals
        if name in kept:
            return kept[name]
        made = None
        if name not in self.names:  # known before the roll, or no value of the check
            for known, v in self.known:  # the same at every point
                if known == name and isinstance(v, _KINDS):
                    made = _frozen(Dist(FrozenDict({v: 1}), 1), self.value_scales.get(name))
        else:
            source = self.source
            loop = None
            if isinstance(source, _Product) and "joint" not in self.__dict__ and not source.heavy:
                loop = source.check.value_loops.get(name)  # (a heavy check's values: its joint, metered)
            plain = source.check.plain_values if isinstance(source, _Product) else ()
            # a value whose type is known only when it runs may be true for some rolls and a number
            # for others, which a dictionary counts as one (true == 1): seen as they are counted
            counts: dict[Any, int] = {} if name in plain else KindCounts()
            if loop is not None:  # that value alone, through its own loop (the joint is not made)
                assert isinstance(source, _Product)
                source.value(*loop, counts)
                total = source.total
            else:
                at = self.names.index(name) + 2
                get = counts.get
                joint = self.joint
                for key, weight in joint.weights.items():
                    v = key[at]
                    counts[v] = get(v, 0) + weight
                total = joint.total
            if isinstance(counts, KindCounts) and counts.mixed:
                raise truth_and_number(name, getattr(source, "check", None))
            if (
                name in plain  # its static type says what it holds: no value looked at
                or set(map(type, counts)) <= _PLAIN
                or all(isinstance(v, _KINDS) for v in counts)
            ):
                made = _frozen(Dist(FrozenDict(counts), total), self.value_scales.get(name))
        kept[name] = made
        return made

    def probability(self, outcome: str | Symbol) -> Fraction:
        return self.outcome.probability(self._sym(outcome, "Distribution.probability"))

    def at_least(self, outcome: str | Symbol) -> Fraction:
        """P(outcome is this one or better)."""
        return self.outcome.at_least(self._sym(outcome, "Distribution.at_least"))

    def at_most(self, outcome: str | Symbol) -> Fraction:
        """P(outcome is this one or worse)."""
        return self.outcome.at_most(self._sym(outcome, "Distribution.at_most"))

    def value(self, name: str) -> Dist:
        """A named value's distribution (`InputError` RC402 for a name the check has no value of)."""
        if type(name) is not str:
            arguments.name("Distribution.value", "name", name)
        found = self._marginal(name)
        if found is None:
            raise no_value(self.check, name, self.values, self.unrolled)
        return found

    def mean(self, name: str) -> Fraction:
        arguments.name("Distribution.mean", "name", name)
        return self.value(name).mean

    def table(self) -> list[tuple[Symbol, Fraction]]:
        """Every declared outcome, worst first, with its probability (zero included)."""
        members = self.outcomes.members
        made = self._outcome
        if made is None:  # its pass was left for the first question about outcomes
            assert isinstance(self.source, _Product)
            made = _not_again(self.source.finish())
        weights = made.weights
        return list(zip(members, ratios(map(weights.get, members, repeat(0)), made.total)))

    def _sym(self, outcome: str | Symbol, where: str) -> Symbol:
        # a name is text (`TypeError` otherwise), as `value` says of a value's name: None or 3
        # was RC402, "no outcome None", where `value(None)` was a TypeError (hunt 13k)
        arguments.name(where, "outcome", outcome)
        if isinstance(outcome, Symbol):
            return outcome
        if isinstance(outcome, str) and outcome in self.outcomes.names:
            return self.outcomes[outcome]
        raise no_outcome(self.check, outcome, self.outcomes.names)

    def approx_bytes(self) -> int:
        """About what this distribution holds, for the cache that keeps it. A joint made already
        is weighed from two of its points (they are alike in shape) times their number; one not
        made yet is weighed as if it were, at its largest (a point for every state), with the
        randomizer tables it keeps to make it."""
        source = self.source
        if isinstance(source, _Product):
            each = 200 + 8 * (2 + len(self.names))  # an entry, its tuple, its weight and new values
            tables = 0  # kept alive by it, whatever the tables cache drops
            for d in source.parts:
                tables += 200 * len(d.weights)
            made = source.outcome  # not made yet: at its most, every outcome
            outcomes = len(made.weights) if made is not None else len(self.outcomes.members)
            return 1000 + each * self.states + tables + 150 * outcomes + 200 * len(self.inputs)
        joint = self._made()[0]
        points = list(islice(joint.weights.items(), 2))
        if all(type(v) in _SMALL for (key, _) in points for v in key):  # no value to walk into
            each = 64 + 8 * len(points[0][0]) + 28 * (len(points[0][0]) + 1) + 100
        else:
            each = approx_bytes(points) // max(len(points), 1) + 100  # and its entry in the dict
        return 1000 + each * len(joint.weights) + 200 * len(self.inputs)

    def as_json(self) -> dict[str, Any]:
        """The distribution as JSON; where a value the outcome does not read fails at some roll,
        `values` is null and `values_error` its diagnostics, the outcomes given as `prob` gives
        them (review AU: `prob --json` failed where `prob` answered)."""
        failed: list[dict[str, Any]] = []
        try:
            values: dict[str, Any] | None = {k: d.as_json() for k, d in self.values.items()}
        except (EvalError, BoundError) as exc:
            values, failed = None, [d.as_json() for d in exc.diagnostics]
        out: dict[str, Any] = {
            "check": self.check,
            "inputs": {k: to_json(v) for k, v in self.inputs.items()},
            "outcomes": {s.name: fraction_text(p) for s, p in self.table()},
            "values": values,
            "states": self.states,
            "policy": self.policy,
            "capped": fraction_text(self.capped),
            "truncated": fraction_text(self.truncated),
        }
        if failed:
            out["values_error"] = failed
        return out


class _Endless(Exception):
    """Every roll of the check is made again (`_not_again`): the check never ends."""


def _not_again(d: Dist, outcome_of: Callable[[Any], Any] | None = None) -> Dist:
    """`d` given that the check is not rolled again: its points whose outcome (the point itself,
    or `outcome_of(point)`) is `AGAIN` left out and the rest weighed over what is left, P(x | not
    again) — the distribution of the roll that ends, however many were made before it. `d`
    itself when it has none of them (every check without a `then: again`). `_Endless` when
    every point is one (the caller says which check, `distribution`)."""
    if outcome_of is None:
        dropped = d.weights.get(AGAIN, 0)
        if not dropped:
            return d
        kept = {k: w for k, w in d.weights.items() if k != AGAIN}
    else:
        kept = {}
        dropped = 0
        for k, w in d.weights.items():
            if outcome_of(k) == AGAIN:
                dropped += w
            else:
                kept[k] = w
        if not dropped:
            return d
    if not kept:
        raise _Endless
    made = Dist(kept, d.total - dropped)
    if d.scale is not None:
        object.__setattr__(made, "scale", d.scale)
    return made


def _frozen(d: Dist, scale: Scale | None = None, fresh: bool = False) -> Dist:
    """`d` with read-only weights (a `FrozenDict`, copied once) and told the `scale` its values
    belong to (`Dist.scale`): what a `Distribution` keeps and hands out, to every caller who asks
    its cache the same question. `fresh`: `d` was just made and nobody else holds it, so its own
    weights are replaced (no second `Dist`: this is on every request's path)."""
    if type(d.weights) is not FrozenDict:
        if fresh:
            object.__setattr__(d, "weights", FrozenDict(d.weights))
        else:
            d = Dist(FrozenDict(d.weights), d.total)
    if scale is not None:
        object.__setattr__(d, "scale", scale)
    return d


def distribution(check: Check, inputs: Mapping[str, Any], ctx: RunContext) -> Distribution:
    """The exact distribution of `check` with bound inputs; `ctx.policy` decides every "may".
    The work is charged to `ctx.work` (a fresh budget from `ctx.limits` when it has none)."""
    if ctx.policy not in POLICIES:
        check_policy(ctx.policy)
    work = ctx.work
    if work is None:
        work = new_work(ctx.limits)
        ctx = RunContext(ctx.limits, ctx.policy, ctx.caches, ctx.rng, ctx.forced, work)
    token = enter(work)  # `working` without its three frames: a first request runs them cold
    try:
        env = before_roll(check, inputs) if check.pre_lets else dict(inputs)  # no value: no frame
        if check.auto:
            fired = first_rule(check.auto, env)
            if fired is not None:
                return _fixed(check, inputs, env, fired[1], ctx.policy)
        if check.again_rules:
            return _ended(check, inputs, env, ctx)
        if check.sequential:
            parts = _unlinked(check, env, ctx)
            if parts is None:
                with collector_paused:  # resumed once its tables are freed (see `collector`)
                    evaluator = Sequential(check, env, ctx)
                    try:
                        return evaluator.distribution(inputs)
                    finally:
                        evaluator.close()
            return _product(check, inputs, _unredrawn(check, env), ctx, parts)
        return _product(check, inputs, env, ctx)
    except LimitError as exc:
        raise placed(exc, check.span) from None
    finally:
        leave(token)


def _ended(check: Check, inputs: Mapping[str, Any], env: dict[str, Any], ctx: RunContext) -> Distribution:
    """The distribution of a check with a `then: again` rule: that of the roll that ends, each
    made again left out (`_not_again`); refused when every roll is made again (`never_ends`,
    RC507) or when best play would have to weigh the rolls made again (`optimal_again`, RC508)."""
    rules = check.outcome
    assert not isinstance(rules, Expr)
    first = rules[check.again_rules[0]].span
    if ctx.policy == "optimal" and check.chooses:
        raise optimal_again(check.name, first)
    try:
        if check.sequential:
            parts = _unlinked(check, env, ctx)
            if parts is None:
                with collector_paused:
                    evaluator = Sequential(check, env, ctx)
                    try:
                        made = evaluator.distribution(inputs)
                    finally:
                        evaluator.close()
            else:
                made = _product(check, inputs, _unredrawn(check, env), ctx, parts)
        else:
            made = _product(check, inputs, env, ctx)
        _ = made.outcome  # made now: a check that never ends is refused here, not at a question
    except _Endless:
        chosen = ctx.policy if check.chooses else None  # the player's choices decide it: named
        raise never_ends(check.name, inputs, first, len(check.again_rules) > 1, chosen) from None
    return made


class _Read(Exception):
    """A die not rolled yet was read (`_Unrolled`)."""


class _Unrolled:
    """What an earlier die is bound to while `_unlinked` asks whether a randomizer reads it:
    every use of it — a comparison, a hash, truth, arithmetic, an attribute, printing — raises
    `_Read`, which no generated code catches, so a value worked out without one is a value that
    does not depend on that die."""

    __slots__ = ()


def _read(*_: Any) -> Any:
    raise _Read


for _use in (
    "__eq__ __ne__ __lt__ __le__ __gt__ __ge__ __hash__ __bool__ __len__ __iter__ __contains__ "
    "__getitem__ __getattr__ __add__ __radd__ __sub__ __rsub__ __mul__ __rmul__ __truediv__ "
    "__rtruediv__ __floordiv__ __rfloordiv__ __mod__ __rmod__ __pow__ __rpow__ __neg__ __pos__ "
    "__abs__ __index__ __int__ __float__ __round__ __floor__ __ceil__ __str__ __repr__ __format__"
).split():
    setattr(_Unrolled, _use, _read)
_UNROLLED = _Unrolled()


def _unlinked(check: Check, env: dict[str, Any], ctx: RunContext) -> list[Dist] | None:
    """Each randomizer's table, when for these inputs the check needs no die-by-die evaluation:
    no randomizer reads an earlier one (a count like `2 if parry and mine == theirs else 0`
    reads no die when `parry` is false), none has triggers, and no redraw can be offered (its
    condition false, or no redraw left, whatever the dice). Then the dice are independent and the
    check is evaluated as a product, with its outcome programs. None otherwise, or when asking
    fails: the die-by-die evaluation then does what it always did, errors included."""
    probe = dict(_unredrawn(check, env))
    for r in check.roll:
        probe[r.name] = _UNROLLED
    parts = []
    try:
        for r in check.roll:
            if isinstance(r, Pool) and (r.triggers or r.own is not None):
                return None
            if r.redraw is not None:
                if redraw_times(r, probe, ctx.limits) and bool(r.redraw.allowed.run(probe)):
                    return None
            parts.append(randomizer_table(r, probe, ctx))
    except (_Read, EvalError, InputError):
        return None
    if math.prod(map(len, parts)) <= 2 * sum(map(len, parts)):
        return parts  # few combinations: merging the values would cost more than it saves
    return [_read_alike(check, i, table, env, ctx) for i, table in enumerate(parts)]


def _unredrawn(check: Check, env: dict[str, Any]) -> dict[str, Any]:
    """`env` where no redraw is made: each count the check reads (`redraws(x)`) is 0."""
    counted = [redraws_key(r.name) for r in check.roll if r.counted]
    return {**env, **dict.fromkeys(counted, 0)} if counted else env


def _read_alike(check: Check, i: int, table: Dist, env: dict[str, Any], ctx: RunContext) -> Dist:
    """Randomizer `i`'s `table` with the values the check reads alike merged (`Check.own_keys`):
    one value kept, weighed for all. It depends only on the table and the values known before
    the roll that the key reads, so it is kept in the ruleset's tables for the next request. A
    value whose key fails to work out is kept apart, so its error comes where it came before."""
    own = check.own_keys[i] if check.own_keys is not None else None
    if own is None or len(table) < 2:
        return table
    fn, reads = own
    tables = ctx.caches.tables
    key = ("alike", id(fn), id(table), *((type(v), v) for v in map(env.get, reads)))
    found = tables.get(key)
    if found is not None and found[0] is fn and found[1] is table:
        return found[2]  # type: ignore[no-any-return]
    meter().charge(len(table))
    groups: dict[Any, list[Any]] = {}
    for value, w in table.weights.items():
        try:
            alike = fn(env, value)
        except (EvalError, InputError):
            alike = (_APART, value)
        group = groups.get(alike)
        if group is None:
            groups[alike] = [value, w]
        else:
            group[1] += w
    merged = table if len(groups) == len(table) else Dist(dict(groups.values()), table.total)
    tables.put(key, (fn, table, merged), 200 + 120 * len(merged))
    return merged


def _first(key: tuple[Any, ...]) -> Any:
    return key[0]


def _shown(made: tuple[Dist, Exception | None]) -> tuple[Dist, str]:
    """A made joint and its failure as equality compares them (an error by what it says)."""
    return made[0], repr(made[1])


def _alone(outcome: Any) -> tuple[Any]:
    """An end of the roll as the outcome alone: its values failed (`Distribution.failed`)."""
    return (outcome,)


def _carried(env: Mapping[str, Any], r: Randomizer) -> Any:
    """Randomizer `r`'s value in `env` as the dice carry it (`rules.carried`: with its count of
    redraws, a `Redrawn`, where the check counts them and some were made), so that a value reached
    by a redraw and the same value rolled first key apart, and the key reads back as the dice
    (under `optimal` it is the dice the rest of the check is asked with)."""
    return carried(r, env[r.name], env.get(redraws_key(r.name), 0))


def _uncut(value: Any) -> tuple[Any, int]:
    """A randomizer's value as `Sequential` carries it: with no procedure cut short."""
    return (value, 0)


def _tally(call: Callable[..., Any], parts: list[Dist]) -> dict[Any, int]:
    """`call(*values)` over every combination of the parts' values, the weights of equal results
    summed (whole numbers): one and two parts without a tuple and a generator per combination."""
    out: dict[Any, int] = {}
    get = out.get
    if len(parts) == 1:
        for value, weight in parts[0].weights.items():
            key = call(value)
            out[key] = get(key, 0) + weight
    elif len(parts) == 2:
        second = tuple(parts[1].weights.items())
        for v1, w1 in parts[0].weights.items():
            for v2, w2 in second:
                key = call(v1, v2)
                out[key] = get(key, 0) + w1 * w2
    else:
        for combo in product(*(d.weights.items() for d in parts)):
            weight = 1
            for _, w in combo:
                weight *= w
            key = call(*(v for v, _ in combo))
            out[key] = get(key, 0) + weight
    return out


class _Product:
    """Independent randomizers, every combination once, weights multiplied: the outcome's
    distribution at once (through `Check.outcome_program`, which works out only what the outcome
    reads), the joint distribution with every named value when it is first asked for."""

    __slots__ = ("check", "env", "parts", "states", "total", "limits", "outcome")

    outcome: Dist | None
    """The outcome's distribution; None while its pass is left for the first question about
    outcomes (`finish`)."""

    def __init__(
        self, check: Check, env: dict[str, Any], parts: list[Dist], states: int, ctx: RunContext
    ) -> None:
        self.check = check
        self.env = env
        self.parts = parts
        self.states = states
        """Combinations of the parts' values (the product of their sizes)."""
        total = 1
        for d in parts:  # a loop, not a generator: a first request runs each piece of code cold
            total *= d.total
        self.total = total
        self.limits = ctx.limits
        work = ctx.work if ctx.work is not None else meter()
        if self.heavy:  # no loop nor stage charges as it goes: state by state, through the program
            work.charge(states)
            program = check.outcome_program
            self.outcome = self._metered(program if program is not None else check.program, work)
            if program is None:
                self.outcome = self.outcome.map(_first)
            return
        loop = check.outcome_loop
        groups = None
        due = states  # a unit per state, charged with the pass's table calls in one charge
        if check.outcome_stages is not None:
            work.charge(due * (1 + check.code_units))  # the first stage's code runs at every state
            due = 0
            groups = _groups(check.outcome_stages[0], parts, ctx, loop is None)
        if groups is not None or loop is not None:
            # the table calls are charged before the pass, at their most (with the states, in
            # one charge); a pass that could make the budget look at the clock is metered as it
            # goes instead
            runs = len(groups) if groups is not None else states
            units = check.outcome_units * runs
            if units > CLOCK_EVERY:  # its code charged before it (it looks at nothing as it runs)
                work.charge(due + runs * check.code_units)
                self.outcome = self._pass(groups, False)
            else:
                work.charge(due + units)
                self.outcome = None
                if groups is not None:
                    self.outcome = self._pass(groups, True)
                elif not check.outcome_total:
                    self.finish()
                # else nothing in the loop can raise (and it calls no table): it runs when the
                # outcome is first asked for, so a question about a value alone never runs it
        else:  # its table calls charge as they are made, its code before it runs
            work.charge(due + states * check.code_units)
            if check.outcome_program is not None:
                self.outcome = self._run(check.outcome_program)
            else:
                self.outcome = self._run(check.program).map(_first)

    def _pass(self, groups: tuple[tuple[tuple[Any, ...], int], ...] | None, charged: bool) -> Dist:
        """The outcome's pass: through `Check.outcome_stages`' rest over `groups`, or through
        `Check.outcome_loop` over every combination; with no counter set when its table calls
        were `charged` before it (each call then skips its own metering)."""
        check = self.check
        weights: dict[Any, int] = {}
        token = pause() if charged else None
        try:
            if groups is not None:
                assert check.outcome_stages is not None
                check.outcome_stages[1](self.env, weights, groups)
            else:
                assert check.outcome_loop is not None
                items = []  # each table's (value, weight) pairs, as the generated loops take them
                for d in self.parts:  # a loop, not a generator: a first request runs each piece cold
                    items.append(tuple(d.weights.items()))
                check.outcome_loop(self.env, weights, *items)
        finally:
            if token is not None:
                leave(token)
        return Dist(FrozenDict(weights), self.total)  # read-only: the distribution hands it out

    def finish(self) -> Dist:
        """The outcome's distribution, its pass run now if it was left (`Check.outcome_total`):
        charged when the distribution was made, it runs as a charged pass does."""
        made = self.outcome
        if made is None:
            made = self.outcome = self._pass(None, True)
        return made

    @property
    def heavy(self) -> bool:
        """Whether the check's code over every state could make the budget look at the clock
        (`Check.code_units`): then it is run state by state, each charged before it (`_metered`),
        so the budget and the deadline stop it where they fall, where a loop charged before it
        ran 13.5 s past a deadline of 1 s (hunt 13h)."""
        return self.check.code_units * self.states > CLOCK_EVERY

    def _run(self, program: Any) -> Dist:
        """`program(env, *values)` over every combination, its results' weights summed."""
        return Dist(FrozenDict(_tally(partial(program, self.env), self.parts)), self.total)

    def _metered(self, program: Any, work: Work) -> Dist:
        """`_run`, each run charged its code's units first (`Check.code_units`)."""
        env, code, charge = self.env, self.check.code_units, work.charge

        def run(*values: Any) -> Any:
            charge(code)
            return program(env, *values)

        return Dist(FrozenDict(_tally(run, self.parts)), self.total)

    def joint(self) -> Dist:
        """The joint distribution of (outcome, rule, values), made now: within the request that
        asks for it, else within a budget of its own from the same limits (it is as much work
        as the outcome's pass, charged again)."""
        states = self.states * (1 + self.check.code_units)  # the code's units with each state's
        if current_work() is not None:  # no Python frame: a first request runs it cold
            if self.heavy:  # charged run by run, as the outcome's pass
                meter().charge(self.states)
                return self._metered(self.check.program, meter())
            meter().charge(states)
            return self._run(self.check.program)
        try:
            with working(new_work(self.limits)) as work:
                if self.heavy:
                    work.charge(self.states)
                    return self._metered(self.check.program, work)
                work.charge(states)
                return self._run(self.check.program)
        except LimitError as exc:
            raise placed(exc, self.check.span) from None

    def value(self, loop: Any, units: int, out: dict[Any, int]) -> None:
        """One named value's weights into `out` through its loop (`Check.value_loops`), charged
        as the joint is (a unit per state, and the table calls as they are made) — within the
        running request, or a budget of its own from the same limits. A budget of its own is
        not made when it could neither refuse the charge, at its most (`units` per state besides
        the state's own), nor look at the clock: then the loop runs with no counter set, as an
        outcome's pass runs once its table calls are charged."""
        tables = []  # each table's (value, weight) pairs, read in place
        for d in self.parts:
            tables.append(d.weights.items())
        states = self.states * (1 + self.check.code_units)  # at most the whole code's units too
        if current_work() is not None:  # no Python frame: a first request runs it cold
            meter().charge(states)
            loop(self.env, out, *tables)
            return
        limits = self.limits
        if unstoppable(states + self.states * units, limits.max_work):
            loop(self.env, out, *tables)
            return
        work = Work(limits.max_work, limits.deadline)  # `new_work`, without its frame
        token = enter(work)  # `working` without its three frames
        try:
            work.charge(states)
            loop(self.env, out, *tables)
        except LimitError as exc:
            raise placed(exc, self.check.span) from None
        finally:
            leave(token)


def _groups(
    stage: Any, parts: list[Dist], ctx: RunContext, now: bool
) -> tuple[tuple[tuple[Any, ...], int], ...] | None:
    """Every combination of the tables `parts` through `stage`, the combinations that agree
    merged: kept in the ruleset's tables with the parts themselves (they depend on nothing
    else), so the next request with the same tables, whatever its inputs, starts from the groups.

    Made at the second request that could use them (or at once when `now`: no loop to fall back
    on): a single request is quicker through `Check.outcome_loop` than through making groups it
    uses once, and the first request only leaves a mark (None: take the loop)."""
    tables = ctx.caches.tables
    key = ("groups", id(stage), *map(id, parts))
    found = tables.get(key)
    if found is not None and found[0] is stage and all(a is b for a, b in zip(found[1], parts)):
        if found[2] is not None:
            return found[2]  # type: ignore[no-any-return]
    elif not now:
        tables.put(key, (stage, tuple(parts), None), 200)
        return None
    meter().charge(math.prod(len(d) for d in parts))
    groups = tuple(_tally(stage, parts).items())
    width = len(groups[0][0]) if groups else 0
    tables.put(key, (stage, tuple(parts), groups), 200 + (120 + 8 * width) * len(groups))
    return groups


def _product(
    check: Check,
    inputs: Mapping[str, Any],
    env: dict[str, Any],
    ctx: RunContext,
    parts: list[Dist] | None = None,
) -> Distribution:
    """Independent randomizers: every combination once, weights multiplied (`parts`: their
    tables, when made already)."""
    if parts is None:
        parts = []
        for r in check.roll:
            parts.append(randomizer_table(r, env, ctx))
    states = 1
    for d in parts:
        states *= len(d.weights)
    if states > ctx.limits.max_states:
        enforce("exact states", states, ctx.limits.max_states, check.span, "max_states")
    source = _Product(check, env, parts, states, ctx)  # it charges the states
    # no `capped` or `truncated` to keep: a product has no reroll procedure to cut (a pool with
    # triggers is solved die by die, `Sequential`, which keeps them, conditioned for `again`)
    return Distribution(
        check.name,
        dict(inputs),
        check.outcomes,
        source,
        check.layout,
        states,
        ctx.policy,
        known=known_values(check, env),
        value_scales=check.value_scales,
    )


def _fixed(
    check: Check, inputs: Mapping[str, Any], env: dict[str, Any], outcome: Symbol, policy: str
) -> Distribution:
    """An outcome decided before the roll: every value is certain (the outputs that need no dice
    in the joint, the values known before the roll in `known`, as for any other distribution)."""
    values = auto_outputs(check, env, outcome)
    key = (outcome, -1, *values.values())
    dist = Dist.certain(key)
    known = known_values(check, env)
    unrolled = check.unrolled(values)
    return Distribution(
        check.name,
        dict(inputs),
        check.outcomes,
        dist,
        tuple(values),
        1,
        policy,
        known=known,
        unrolled=unrolled,
        value_scales=check.value_scales,
    )


# -- die by die: dependent dice, reroll procedures and the player's choices -------------------


def _no_choice(value: Multi) -> Dist:
    """What best play would ask of a die with `must` steps alone: never asked."""
    raise AssertionError("a die of an each_die pool has no choice to judge")


def _deeper(depth: int, cut: Fraction) -> int:
    """How deep to follow an explosion next: where its tail, shrinking geometrically as it did
    down to `depth`, would fall to `TAIL` (a little past it), and at most four times as deep."""
    guess = depth * 2
    if 0 < cut < 1:
        guess = math.ceil(depth * math.log(TAIL) / math.log(cut)) + 1
    return max(depth + 1, min(guess, 4 * depth))


class Sequential:
    """Exact evaluation one randomizer at a time, for checks where a die depends on an earlier
    one or the player chooses (triggers, redraws). Optimal choices compare the outcome
    distributions of finishing the check each way, so they are exact too.

    Its memos grow as it is asked; `lock` serialises callers that share one (the sampler's
    `optimal` decisions)."""

    def __init__(
        self, check: Check, env: dict[str, Any], ctx: RunContext, key: Hashable | None = None
    ) -> None:
        self.key = key
        """Its key in the ruleset's `evaluators` cache, when it is kept there."""
        self.weighed = 0
        """Units of work done before it was last weighed by that cache."""
        self.unweighed = 0
        """Units of work done since (the sampler weighs it again when this passes a quarter of `weighed`)."""
        self.made = 0
        """What its cache weighed it at when it was put there, empty."""
        self.walked = 0
        self.walked_bytes = 0
        """Units of work done before its cache last walked it (`approx_bytes`), and what it found."""
        self.check = check
        self.env = env
        self.ctx = ctx
        self.policy = ctx.policy
        self.lock = threading.RLock()
        self._finish: dict[tuple[int, tuple[Any, ...]], Dist] = {}
        self._solvers: dict[tuple[int, tuple[Any, ...], int], RerollSolver] = {}
        """By randomizer, the values before it (`_carried`) and the redraws of it made (`_played_after`)."""
        self._procedures: dict[tuple[int, tuple[Any, ...], int], Dist] = {}
        self._leaves = 0
        """Ends of the roll the last randomizer's values reached without a memo entry each."""
        self._redrawn: dict[tuple[int, tuple[Any, ...], int], Dist] = {}
        self._redrawn_outcomes: dict[tuple[int, tuple[Any, ...], int], Dist] = {}
        self.failed: EvalError | BoundError | None = None
        """The first error a value the outcome does not read raised at an end (`_program`)."""
        self._tables: dict[tuple[int, int], tuple[Dist, Dist]] = {}
        """Each randomizer's tables met, by id, with the values it reads alike merged and paired
        with "not cut" (`fresh`)."""

    def close(self) -> None:
        """Let its reroll solvers' tables go now, for one that is not kept: a solver's best play
        calls back into the solver and into this evaluator (reference cycles), so without this
        they would wait, a solve's worth of memory, for the cycle collector's next full pass."""
        for solver in self._solvers.values():
            solver.close()

    @cached_property
    def _reads(self) -> list[bool]:
        """Whether randomizer `i` reads an earlier one (else, under a fixed policy, its procedure
        is solved once for every value of the dice before it): worked out only for a pool with
        triggers, which alone asks."""
        reads: list[bool] = []
        earlier: set[str] = set()
        for r in self.check.roll:
            read = set().union(*(ast.names(e.node) for e in randomizer_expressions(r)))
            reads.append(bool(read & earlier))
            earlier.add(r.name)
        return reads

    def distribution(self, inputs: Mapping[str, Any]) -> Distribution:
        result = self.finish(0, ())
        joint = result.map(_first)
        capped = truncated = _NONE
        if any(c for _, c in result.weights):  # a reroll procedure was cut short somewhere
            again = capped_w = cut_w = cut_ended = 0
            for (key, c), w in result.weights.items():
                if key[0] == AGAIN:
                    again += w
                    cut_w += w if c & TRUNCATED else 0
                else:
                    capped_w += w if c & CAPPED else 0
                    cut_ended += w if c & TRUNCATED else 0
                    cut_w += w if c & TRUNCATED else 0
            ended = result.total - again
            # the cap is part of the game: its share is one of the roll that ends (`_not_again`)
            capped = Fraction(capped_w, ended) if ended else _NONE
            # A cut is not: the cut rolls (cut_w, of every attempt) count their dice as they
            # stood, so each may truly end otherwise, or be made again where it was counted as
            # ending, and the reverse. Of the roll that ends, P(x | not again) = (u + a) / (n + a + b)
            # with u, n the uncut weights of x and of every end, and a + b <= cut_w what the cut
            # rolls truly give x and the other ends: truth and figure both lie in
            # [u / (n + cut_w), (u + cut_w) / (n + cut_w)], so each probability is exact to within
            # cut_w / (n + cut_w), n = ended - cut_ended. Conditioning scales the bound up by about
            # 1 / P(not again); the cut share of the rolls that end alone (what was kept until
            # 2026-12-06) said 0 where every cut roll was counted as made again.
            if cut_w:
                truncated = Fraction(cut_w, ended - cut_ended + cut_w)
        states = len(self._finish) + self._leaves + len(result)
        return Distribution(
            self.check.name,
            dict(inputs),
            self.check.outcomes,
            joint,
            self.check.layout,
            states,
            self.policy,
            capped,
            truncated,
            known_values(self.check, self.env),
            failed=self.failed,
            value_scales=self.check.value_scales,
        )

    def stage_key(self, i: int, dice: tuple[Any, ...]) -> tuple[Any, ...]:
        """What the rest of the check reads of the first `i` randomizers' values `dice`
        (`Check.stage_keys`): rolls with equal keys finish alike, so they share one memo entry.
        The dice themselves where there is no key; where working the key out fails (a value
        that raises for these dice), the dice too, so that the error comes where it came before."""
        keys = self.check.stage_keys
        if i == 0:
            return ()
        if keys is None or i > len(keys):
            return dice
        made = keys[i - 1]
        if made is None:
            return dice
        try:
            return made(self.env, *dice)
        except (EvalError, InputError):
            return (_APART, *dice)

    def finish(self, i: int, dice: tuple[Any, ...], key: tuple[Any, ...] | None = None) -> Dist:
        """Distribution of (program result, how a procedure was cut: `CAPPED` | `TRUNCATED` bits)
        given the first `i` randomizers' values (`key`: theirs, when known already)."""
        if key is None:
            key = dice if self.check.stage_keys is None else self.stage_key(i, dice)
        at = (i, key)
        memo = self._finish.get(at)
        if memo is not None:
            return memo
        env = with_dice(self.env, self.check.roll, dice)
        if i == len(self.check.roll):
            result = Dist.certain((self._program(env, *dice), 0))
        elif i == len(self.check.roll) - 1:  # the last randomizer: the program once per value
            values = self.values(i, dice, env)
            program = self._program
            # under `optimal`, the ends best play asked the outcome of (making `values`) have their
            # result in the memo already
            ended = self._finish if self.policy == "optimal" else None
            joint: dict[Any, int] = {}
            for (value, cut), w in values.weights.items():
                known = None
                if ended is not None:
                    after = dice + (value,)
                    known = ended.get((i + 1, self.stage_key(i + 1, after)))
                if known is None:
                    point = (program(env, *dice, value), cut)
                else:
                    point = (next(iter(known.weights))[0], cut)
                joint[point] = joint.get(point, 0) + w
            result = Dist(joint, values.total)
            self._leaves += len(values)
        else:
            values = self.values(i, dice, env)
            groups: dict[tuple[Any, ...], list[Any]] = {}  # rolls that finish alike, weighed together
            for (value, capped), w in values.weights.items():
                then = self.stage_key(i + 1, dice + (value,))
                found = groups.get((then, capped))
                if found is None:
                    groups[(then, capped)] = [value, w]
                else:
                    found[1] += w
            parts = []
            for (then, capped), (value, w) in groups.items():
                rest = self.finish(i + 1, dice + (value,), then)
                if capped:
                    rest = rest.map(lambda kc, c=capped: (kc[0], kc[1] | c))
                parts.append((rest, w, values.total))
            result = Dist.mix(parts)
        self._finish[at] = result
        meter().charge(len(result))
        enforce(
            "exact states",
            len(self._finish) + self._leaves,
            self.ctx.limits.max_states,
            self.check.span,
            "max_states",
            counting=True,
        )
        return result

    def _program(self, env: dict[str, Any], *dice: Any) -> tuple[Any, ...]:
        """`Check.program` at one end of the roll; where a value or an output the outcome does not
        read fails there (a division by zero, a statistic of an empty pool, a number past the
        language's bound), the outcome alone (`Check.outcome_program`, which raises where the
        outcome's own reading fails), the error kept for whoever asks for the values
        (`Distribution.failed`): the product's outcome is worked out alike."""
        code = self.check.code_units
        if code:  # the code past a state's own unit, charged before it runs (`Check.code_units`)
            meter().charge(code)
        try:
            return self.check.program(env, *dice)
        except (EvalError, BoundError) as exc:
            cut = self.check.outcome_program
            if cut is None or isinstance(exc, EndlessError):
                raise
            outcome = _alone(cut(env, *dice))
            if self.failed is None:
                self.failed = exc
            return outcome

    def outcomes(self, i: int, dice: tuple[Any, ...]) -> Dist:
        """The outcome distribution once the first `i` randomizers are known."""
        return self.finish(i, dice).map(lambda kc: kc[0][0])

    def better(self, a: Dist, b: Dist) -> bool:
        members = self.check.outcomes.members
        objective = self.check.objective
        return objective.score(members, a.weights, a.total) > objective.score(members, b.weights, b.total)

    def fresh(self, i: int, env: dict[str, Any], made: int = 0) -> Dist:
        """A new roll of randomizer `i` (no redraw decided yet) after `made` redraws of it, over
        (value, how it was cut)."""
        r = self.check.roll[i]
        if isinstance(r, Pool) and r.own is not None:
            return self.each_die(i, env, r)
        if isinstance(r, Pool) and r.triggers:
            made = self._played_after(i, made)
            r = concrete(r, env)
            n = roll_count(r.count, env, r, self.ctx.limits)
            if n == 0:
                return Dist.certain((read_faces(r, env, ()), 0))  # no die: no face read, no trigger
            shared = self.policy != "optimal" and not self._reads[i]
            key = () if shared else tuple(_carried(env, x) for x in self.check.roll[:i])
            found = self._procedures.get((i, key, made))
            if found is not None:
                return found
            solver = self.solver(i, key, env, made=made)
            with collector_paused:  # a chain's tables are acyclic (see `collector`)
                while True:
                    proc = solver.proc
                    ends = solver.ends_of(n)  # the first roll's ways bounded before they are listed
                    depth = proc.cap
                    if not proc.truncating or depth is None or depth >= self.ctx.limits.max_rerolls:
                        break
                    cut = Fraction(sum(w for (_, c), w in ends.weights.items() if c), ends.total)
                    if cut <= TAIL:
                        break
                    depth = min(_deeper(depth, cut), self.ctx.limits.max_rerolls)
                    solver = self.solver(i, key, env, depth, made)
            found = self._procedures[(i, key, made)] = ends
            return found
        table = randomizer_table(r, env, self.ctx)
        pair = self._tables.get((i, id(table)))
        if pair is None or pair[0] is not table:
            merged = _read_alike(self.check, i, table, self.env, self.ctx)
            pair = self._tables[(i, id(table))] = (table, merged.map(_uncut))
        return pair[1]

    def each_die(self, i: int, env: dict[str, Any], written: Pool) -> Dist:
        """Pool `i`, whose dice each run their own triggers (`Pool.own`), over (value, how it was
        cut): one die's totals solved once (`own_die`), then the pool of that many such dice
        (`tables.weighted_pool`), a roll cut when one of its dice was."""
        assert written.own is not None
        r = concrete(written, env)
        n = roll_count(r.count, env, r, self.ctx.limits)
        if n == 0:
            return Dist.certain((read_faces(r, env, ()), 0))  # no die: no face read, no trigger
        key = tuple(_carried(env, x) for x in self.check.roll[:i]) if self._reads[i] else ()
        found = self._procedures.get((i, key, -1))
        if found is None:
            die = self.own_die(written.own, env)
            scope = dict(env)
            dice = [((reading(r, scope, total), cut), w) for (total, cut), w in die.weights.items()]
            folds = folds_for(r, env, self.ctx.caches)
            limits = self.ctx.limits
            found = self.ctx.caches.tables.get_or_make(  # a sweep of requests makes it once
                ("each die", tuple(dice), die.total, n, folds),
                lambda: weighted_pool(dice, die.total, n, folds, limits.max_states, r.span),
                lambda d: 300 + (350 + 150 * len(folds or (1,))) * len(d),
            )
            self._procedures[(i, key, -1)] = found
        return found

    def own_die(self, written: Pool, env: dict[str, Any]) -> Dist:
        """The totals of one die with triggers (an `each_die` pool's die) over (total, how it was
        cut), its procedure solved as a single die's is: an uncapped explosion followed deeper
        until at most `TAIL` is cut (or `max_rerolls` dice deep). Its steps are all `must`
        steps, so no policy chooses among its options."""
        r = concrete(written, env)
        limits = self.ctx.limits
        depth = FIRST_DEPTH
        with collector_paused:
            while True:
                proc = Procedure(r, env, min(depth, limits.max_rerolls))
                solver = RerollSolver(
                    proc,
                    "always",
                    limits.max_states,
                    _no_choice,
                    self.check.objective,
                    self.check.outcomes.members,
                    limits.max_pool,
                )
                try:
                    ends = solver.ends(proc.fresh(1))
                finally:
                    solver.close()
                cap = proc.cap
                if not proc.truncating or cap is None or cap >= limits.max_rerolls:
                    return ends
                cut = Fraction(sum(w for (_, c), w in ends.weights.items() if c), ends.total)
                if cut <= TAIL:
                    return ends
                depth = _deeper(cap, cut)

    def values(self, i: int, dice: tuple[Any, ...], env: dict[str, Any]) -> Dist:
        """Randomizer `i`'s final values, after any redraws the policy or the rule makes."""
        r = self.check.roll[i]
        first = self.fresh(i, env)
        if r.redraw is None:
            return first
        times = redraw_times(r, env, self.ctx.limits)
        parts = []
        kept = True  # no value redrawn: the first roll is the answer, no mix to make
        for (value, capped), w in first.weights.items():
            ends = self.settle(i, dice, env, value, capped, times, 0)
            kept = kept and ends.total == 1 and (value, capped) in ends.weights
            parts.append((ends, w, first.total))
        return first if kept else Dist.mix(parts)

    def settle(
        self,
        i: int,
        dice: tuple[Any, ...],
        env: dict[str, Any],
        value: Any,
        capped: bool,
        times: int,
        made: int,
    ) -> Dist:
        """Where a drawn value ends after up to `times` more redraws, `made` made already."""
        if self.redraws_now(i, dice, env, value, times, made):
            return self.redrawn(i, dice, env, times, made)
        return Dist.certain((carried(self.check.roll[i], value, made), capped))

    def redraws_now(
        self, i: int, dice: tuple[Any, ...], env: dict[str, Any], value: Any, times: int, made: int
    ) -> bool:
        """Whether randomizer `i`, drawn as `value` after `made` redraws with `times` left, is
        redrawn now: the rule offers it, and it must be or the policy takes it."""
        r = self.check.roll[i]
        assert r.redraw is not None
        return redraw_offered(r, env, value, times) and (
            r.redraw.must or self.wants_redraw(i, dice, env, value, times, made)
        )

    def redrawn(self, i: int, dice: tuple[Any, ...], env: dict[str, Any], times: int, made: int) -> Dist:
        """Where the value ends when it is redrawn now (with `times - 1` redraws left after, and
        `made` made before: for one stage key, always its `times` allowed less those left)."""
        stage = self.stage_key(i, dice)
        key = (i, stage, times)
        found = self._redrawn.get(key)
        if found is None:
            if times > 1 and (i, stage, times - 1) not in self._redrawn:
                # fewest redraws left first, so no chain of calls is `times` deep: a roll under
                # `optimal` asks for the most left first, and 200 left passed Python's recursion
                # limit (a traceback, found by a hunt), where a distribution had warmed these
                for t in range(1, times):
                    self.redrawn(i, dice, env, t, times + made - t)
                    # a level is read by the next alone (its outcomes, which best play reads, are
                    # kept apart): kept, a thousand redraws of a d6 held 1,000 ever longer
                    # distributions, 425 MB at once at the default budget (hunt 13zh)
                    self._redrawn.pop((i, stage, t - 1), None)
            fresh = self.fresh(i, env, made + 1)
            meter().charge(TRANSITION * len(fresh))
            found = self._redrawn[key] = Dist.mix(
                (self.settle(i, dice, env, v, c, times - 1, made + 1), w, fresh.total)
                for (v, c), w in fresh.weights.items()
            )
        return found

    def wants_redraw(
        self,
        i: int,
        dice: tuple[Any, ...],
        env: dict[str, Any],
        value: Any,
        times: int,
        made: int,
    ) -> bool:
        """The policy's answer to "redraw this?" (with `times` redraws left, `made` made already) —
        for `optimal`, whichever finishes better."""
        if self.policy != "optimal":
            return self.policy == "always"
        kept = self.outcomes(i + 1, dice + (carried(self.check.roll[i], value, made),))
        return self.better(self.redrawn_outcomes(i, dice, env, times, made), kept)

    def redrawn_outcomes(
        self, i: int, dice: tuple[Any, ...], env: dict[str, Any], times: int, made: int
    ) -> Dist:
        """The outcome distribution when randomizer `i` is redrawn now (`redrawn`'s ends, the rest
        of the check finished on each): asked by every end of a solve that may lead to it, so
        worked out once per key of `redrawn`'s."""
        key = (i, self.stage_key(i, dice), times)
        found = self._redrawn_outcomes.get(key)
        if found is None:
            ends = self.redrawn(i, dice, env, times, made)
            meter().charge(TRANSITION * len(ends))
            found = self._redrawn_outcomes[key] = Dist.mix(
                (self.outcomes(i + 1, dice + (final,)), w, ends.total)
                for (final, _), w in ends.weights.items()
            )
        return found

    def settled_outcomes(
        self, i: int, dice: tuple[Any, ...], env: dict[str, Any], value: Any, times: int, made: int
    ) -> Dist:
        """The outcome distribution once randomizer `i`, drawn as `value` after `made` redraws
        with `times` left, is settled (`settle`) and the rest of the check finished."""
        if self.redraws_now(i, dice, env, value, times, made):
            return self.redrawn_outcomes(i, dice, env, times, made)
        return self.outcomes(i + 1, dice + (carried(self.check.roll[i], value, made),))

    def _played_after(self, i: int, made: int) -> int:
        """How many redraws of pool `i` its best play tells apart: under `optimal`, a pool that
        may be redrawn plays each roll for what follows it (the redraws left, and `redraws(x)`
        read at the end), so the roll after `made` redraws is a procedure of its own; otherwise
        every roll of it plays alike."""
        return made if self.policy == "optimal" and self.check.roll[i].redraw is not None else 0

    def solver(
        self, i: int, dice: tuple[Any, ...], env: dict[str, Any], depth: int = 0, made: int = 0
    ) -> RerollSolver:
        """The reroll procedure of pool `i` (rolled after `made` redraws of it), with optimal
        choices judged on the whole check: where the pool may be redrawn, on what the redraw
        rule and the policy make of the procedure's end (`settle`). An uncapped pool that adds
        dice is followed `depth` dice deep (`FIRST_DEPTH` when 0, or the depth it was last solved
        to); `fresh` goes deeper while the cut is over `TAIL`."""
        made = self._played_after(i, made)
        found = self._solvers.get((i, dice, made))
        if found is None or (depth and found.proc.truncating and found.proc.cap != depth):
            written = self.check.roll[i]
            r = concrete(written, env)
            assert isinstance(r, Pool)
            limit = self.ctx.limits.max_rerolls  # the depth holds only where it can add without end
            proc = Procedure(r, env, min(depth or FIRST_DEPTH, limit))
            left = redraw_times(written, env, self.ctx.limits) - made if written.redraw is not None else 0
            if self._played_after(i, 1) and found is None:
                # the rolls after this one first, the last first: each is then asked of the next,
                # already solved, so no chain of calls is as deep as the redraws allowed (up to
                # `max_rerolls`)
                for later in range(made + left, made, -1):
                    self.fresh(i, env, later)

            def outcome_of(value: Multi) -> Dist:
                if written.redraw is None:
                    return self.outcomes(i + 1, dice + (value,))
                return self.settled_outcomes(i, dice, env, value, left, made)

            found = RerollSolver(
                proc,
                self.policy,
                self.ctx.limits.max_states,
                outcome_of,
                self.check.objective,
                self.check.outcomes.members,
                self.ctx.limits.max_pool,
            )
            self._solvers[(i, dice, made)] = found
        return found
