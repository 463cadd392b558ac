"""Many rolls of one check at once: how many came out each way, and how often each value came up.

Two ways to the same law. When the check's exact joint distribution (outcome, the rule that fired,
every named value) can be had within the request's budget — it is kept in the ruleset's cache
once made — `times` rolls are drawn from it in one go: a multinomial draw over its points, with
numpy when it is installed (its time does not grow with `times`) and otherwise in Python, each
draw a whole number below the joint's total weight (exact at any size of total). That is what
rolling `times` times gives, in law, for every check: triggers, redraws and the optimal policy
included, since the exact evaluator solves the same rules as the sampler. When the distribution
cannot be had (its solve would spend the budget), or when the caller asks for it
(`method="rolled"`: an independent check of the exact evaluator), the check is rolled `times`
times by the one sampler, each roll charged for the dice it draws and the reads of them
(`die_weights`), about what it costs. One deadline for the whole request; the exact attempt has
the whole work budget (the draw is charged to what it left), and rolls after an attempt that
did not fit a budget of their own (`sample_many`).
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from collections.abc import Callable, Mapping
from fractions import Fraction
from itertools import accumulate
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import DeadlineError, Diagnostic, LimitError, limit_advice, no_outcome, no_value, placed
from ..frozen import FrozenDict, freeze_fields, frozen
from ..model.ruleset import Check
from ..model.values import COUNTED, Symbol, to_json
from ..runtime import arguments
from ..runtime.context import RunContext
from ..runtime.work import CLOCK_EVERY, Work, too_many, units
from .dicework import dice_units, die_weights, own_units
from .dist import Dist
from .sample import Ready, sample
from .tally import KindCounts, truth_and_number
from .trace import Result

if TYPE_CHECKING:
    from .exact import Distribution

METHODS = ("auto", "exact", "rolled")
"""How a batch is made: `exact` draws from the exact distribution, `rolled` rolls each time,
`auto` draws when the distribution fits the budget and rolls otherwise."""


@frozen
class Batch:
    """`times` rolls of one check: each outcome's count (every declared outcome, worst first, zeros
    included) and, for each named value and each output that is a number, true/false or a scale
    value, how many rolls gave each value (the values of `Distribution.values`, whichever the
    `method`: one known before the roll is the same in every roll, all `times` of them, auto rule
    or not; one worked out after the roll is absent when an auto rule decides)."""

    check: str
    inputs: Mapping[str, Any]
    policy: str
    times: int
    method: str
    """`exact` (drawn from the exact distribution) or `rolled` (the sampler, roll by roll)."""
    outcomes: Mapping[str, int]
    values: Mapping[str, Mapping[Any, int]]
    unrolled: tuple[str, ...] = ()
    """The values worked out after the roll that an auto rule left without one (as
    `Distribution.unrolled`): `mean` says so."""

    def __post_init__(self) -> None:
        # read-only all the way down, as a `Result` is: its inputs may be the cached
        # distribution's own (`_drawn`), shared by every later request
        freeze_fields(self, "inputs", "outcomes")
        values = self.values
        if type(values) is not FrozenDict or any(type(c) is not FrozenDict for c in values.values()):
            object.__setattr__(self, "values", FrozenDict({k: FrozenDict(c) for k, c in values.items()}))

    def share(self, outcome: str | Symbol) -> float:
        """The fraction of the rolls that came out so (`InputError` RC402 for an outcome the check
        does not have, as `Distribution.probability`)."""
        arguments.name("Batch.share", "outcome", outcome)  # text, as `Distribution.probability` asks
        return self.outcomes[self._outcome(outcome)] / self.times

    def standard_error(self, outcome: str | Symbol) -> float:
        """The standard error of `share(outcome)`, √(p(1−p)/n)."""
        arguments.name("Batch.standard_error", "outcome", outcome)
        p = self.share(outcome)
        return math.sqrt(p * (1 - p) / self.times)

    def mean(self, name: str) -> float:
        """The mean of a numeric value over the rolls (`InputError` RC402 for a name the batch
        counts no value of, and `Distribution.mean`'s `TypeError` for a scale value)."""
        arguments.name("Batch.mean", "name", name)
        counts = self.values.get(name)
        if counts is None:
            raise no_value(self.check, name, self.values, self.unrolled)
        return float(Dist(counts, self.times).mean)

    def _outcome(self, outcome: str | Symbol) -> str:
        name = outcome.name if isinstance(outcome, Symbol) else outcome
        if isinstance(name, str) and name in self.outcomes:
            return name
        raise no_outcome(self.check, outcome, self.outcomes)

    def as_json(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "inputs": {k: to_json(v) for k, v in self.inputs.items()},
            "policy": self.policy,
            "times": self.times,
            "method": self.method,
            "outcomes": dict(self.outcomes),
            "values": {
                name: [[to_json(v), n] for v, n in counts.items()] for name, counts in self.values.items()
            },
        }


def sample_many(
    check: Check,
    inputs: Mapping[str, Any],
    ctx: RunContext,
    times: int,
    method: str,
    exact: Callable[[Work], Distribution],
) -> Batch:
    """`times` rolls of `check` with bound `inputs`, made as `method` says; `exact(work)` gives
    the check's exact `Distribution` (the caller's, so its cache is used), solved under `work`,
    or raises `LimitError`. One deadline for the whole request. The exact attempt has the whole
    budget (`Limits.max_work`), so `auto` draws whenever the distribution fits it, whatever
    `times` is; the draw is charged to what it left. Under `auto`, rolls after an attempt that
    did not fit have a budget of their own, so such a request may do up to twice `max_work`
    (a share of one budget, priced ahead by trial rolls, had left the attempt short of a
    distribution that fitted, and rolled where it would have drawn: which of the two it did
    flipped back and forth as `times` grew)."""
    rng = ctx.rng or random.Random()
    limits = ctx.limits
    work = Work(limits.max_work, limits.deadline)  # the request's: its deadline runs from here
    try:
        if method != "rolled":
            try:
                dist = exact(work)
            except LimitError:
                if method == "exact":
                    raise
                work = Work(limits.max_work, work.seconds, until=work.until)  # the rolls': the same deadline
            else:
                return _drawn(check, dist, rng, times, ctx, work)
        return _rolled(_rolls(check, inputs, ctx._replace(rng=rng), work), times)
    except LimitError as exc:  # a budget spent by the draw or the rolls: reported at the check
        raise placed(exc, check.span) from None


def _drawn(
    check: Check, dist: Distribution, rng: random.Random, times: int, ctx: RunContext, work: Work
) -> Batch:
    points = list(dist.joint.weights.items())
    weights = [w for _, w in points]
    counts = _multinomial(rng, weights, dist.joint.total, times, work, f"rolls of check '{check.name}'")
    outcomes = {s.name: 0 for s in check.outcomes.members}
    reported = dist.values  # the one choice of what is counted: `Distribution.values`
    known = dict(dist.known)  # the same in every roll
    values: dict[str, dict[Any, int]] = {n: {known[n]: times} if n in known else {} for n in reported}
    kept = [i for i, name in enumerate(dist.names) if name in reported]
    for (key, _), n in zip(points, counts):
        if not n:
            continue
        outcomes[key[0].name] += n
        for i in kept:
            tally = values[dist.names[i]]
            v = key[2 + i]
            tally[v] = tally.get(v, 0) + n
    return Batch(
        check.name, dist.inputs, ctx.policy, times, "exact", outcomes, _sorted(values), dist.unrolled
    )


DRAWS = 2 * CLOCK_EVERY
"""Draws made in Python between two charges (`_multinomial`): half a unit each, so each charge
of a chunk may look at the clock (`CLOCK_EVERY` units), and a deadline stops the draw within a
few milliseconds."""


def _multinomial(
    rng: random.Random, weights: list[int], total: int, times: int, work: Work, said: str
) -> list[int]:
    """How many of `times` draws fall on each point, each point drawn with chance weight / total.
    numpy's multinomial costs a unit a point; without numpy, each of the `times` draws is made
    in Python, and costs about half a unit, charged a chunk of `DRAWS` at a time (a deadline
    passed is told after how many of the rolls, `said`, were drawn)."""
    try:
        import numpy as np
    except ImportError:  # the pure-Python way: each draw a whole number below the total, exactly
        if times // 2 > work.left:  # refused before a draw, saying what would fit and what helps
            raise _undrawable(times, work, said) from None
        counts = [0] * len(weights)
        cumulative = list(accumulate(weights))
        below = rng.randrange
        done = 0
        while done < times:  # a draw is a `randrange` and a bisection: it grows with `times`
            chunk = min(DRAWS, times - done)
            try:
                work.charge(chunk // 2)  # DRAWS is even: the chunks' charges add up to times // 2
            except DeadlineError as exc:
                raise too_many(exc, done, times, said, work, 0, 0) from None
            for _ in range(chunk):  # integers throughout: a total of any size, and no float rounding
                counts[bisect_right(cumulative, below(total))] += 1
            done += chunk
        return counts
    work.charge(len(weights))
    generator = np.random.default_rng(rng.getrandbits(128))
    shares = np.array([Fraction(w, total) for w in weights], dtype=float)
    drawn = generator.multinomial(times, shares / shares.sum())
    return [int(n) for n in drawn]


def _undrawable(times: int, work: Work, said: str) -> LimitError:
    """RC503 for more rolls than the budget left draws in Python (half a unit each): how many it
    draws, and the ways on, fewer at once or numpy, whose draw does not grow with the rolls (not
    a smaller check's advice: the distribution fitted)."""
    message = (
        f"the work budget of {units(work.limit)} is too small for the {times:,} {said} asked for "
        f"at once: without numpy each is drawn in Python, half a unit a roll, and the "
        f"{units(work.left)} left after the exact distribution draw at most {2 * work.left:,}"
    )
    lead = (
        "ask for fewer at once, or install numpy (a dependency of rulecraft that could not be "
        "imported here), whose draw does not grow with the rolls"
    )
    return LimitError([Diagnostic("RC503", message, None, **limit_advice("max_work", lead))])


class _Rolls(NamedTuple):
    """What each roll of a batch rolled one by one needs, made once: the check, its bound inputs,
    the context (its `work` the budget charged), what the rolls share (`ready`), the weight of
    each randomizer's dice (`die_weights`) and the units each roll is charged before it is made
    (`dicework.own_units`: `ROLL`, `POOL` for each pool, `DRAW` for each draw)."""

    check: Check
    inputs: Mapping[str, Any]
    ctx: RunContext
    ready: Ready
    weights: Mapping[str, int]
    own: int

    def one(self) -> Result:
        """One roll without its trace, charged to `ctx.work`: `own` before it (and a look at the
        clock: a roll's work may be small and slow), its dice after it."""
        work = self.ctx.work
        assert work is not None
        work.charge(self.own)
        work.check_clock()
        result = sample(self.check, self.inputs, self.ctx, False, self.ready)
        work.charge(dice_units(self.weights, result))
        return result

    def fixed(self, result: Result) -> int:
        """What every roll after `result` is charged, when it is the same for each: a roll of
        plain dice (`Before.quick`: no trigger, no redraw) draws as many every time, so its
        charge is made before it, in one. 0 otherwise: each roll is charged by what it drew."""
        before = self.ready.before
        if before is None or not before.quick or self.ctx.forced:
            return 0
        return self.own + dice_units(self.weights, result)


def _rolls(check: Check, inputs: Mapping[str, Any], ctx: RunContext, work: Work) -> _Rolls:
    own = own_units(check)
    return _Rolls(check, inputs, ctx._replace(work=work), Ready(check, inputs), die_weights(check), own)


def _rolled(rolls: _Rolls, times: int) -> Batch:
    """The check rolled `times` times within the request's budget (`ctx.work`: `Limits.max_work`,
    and the deadline from `Limits.deadline`) for them all: each roll is charged by the rule every
    roll made one by one is (`dicework.roll_units`): `ROLL` units, `POOL` more for each pool,
    `DRAW` for each draw of chits, and its dice and chits, each its weight (`die_weights`, in
    quarters of a unit: after the roll, or before it for plain dice, which draw as many each
    time), besides the work the roll charges itself (a reroll chain's,
    a table call's: a roll of plain dice charges none of its own)."""
    check, work = rolls.check, rolls.ctx.work
    assert work is not None
    outcomes = {s.name: 0 for s in check.outcomes.members}
    values: dict[str, dict[Any, int]] = {}
    unrolled: tuple[str, ...] = ()  # the inputs are the same in every roll: so is an auto rule
    first = last = 0  # the budget used once the first roll was done (one-off work included), the last
    one, fixed = rolls.one, 0
    inputs, ctx, ready = rolls.inputs, rolls.ctx, rolls.ready
    for done in range(times):
        try:
            if fixed:  # `one`, without its frame and its look at the dice
                work.charge(fixed)
                work.check_clock()
                result = sample(check, inputs, ctx, False, ready)
            else:
                result = one()
                fixed = rolls.fixed(result)
        except LimitError as exc:
            said = f"rolls of check '{check.name}'"
            raise too_many(exc, done, times, said, work, first, last) from None
        last = work.used
        if not done and result.auto:
            unrolled = check.unrolled(result.values)
        first = first or last
        outcomes[result.outcome.name] += 1
        for name, v in result.values.items():
            if isinstance(v, COUNTED):  # as `Distribution.values` reports them
                if v is True or v is False:  # kept apart from 1 and 0, which a dict takes them for
                    v = _TRUTHS[v]
                tally = values.setdefault(name, {})
                tally[v] = tally.get(v, 0) + 1
    told = {name: _told(name, tally, check) for name, tally in values.items()}
    return Batch(check.name, dict(inputs), ctx.policy, times, "rolled", outcomes, _sorted(told), unrolled)


class _Truth:
    """true or false as a key of a batch's counts, equal to nothing but itself (`_rolled`): not to
    1 and 0, as true and false are, nor to a value of any other kind."""

    __slots__ = ("value",)

    def __init__(self, value: bool) -> None:
        self.value = value


_TRUTHS = {True: _Truth(True), False: _Truth(False)}


def _told(name: str, tally: dict[Any, int], check: Check) -> dict[Any, int]:
    """A value's counts with true and false as themselves; RC506 where numbers were counted too,
    as the exact draw refuses such a value (`tally.KindCounts`): true and 1 had been counted as
    one, and the mean had read true as 1 (hunt 13zd)."""
    if not any(k.__class__ is _Truth for k in tally):
        return tally
    counts = KindCounts()
    for k, n in tally.items():
        counts[k.value if k.__class__ is _Truth else k] = n
    if counts.mixed:
        raise truth_and_number(name, check)
    return dict(counts)


def _sorted(values: dict[str, dict[Any, int]]) -> dict[str, dict[Any, int]]:
    """Each value's counts in the value's own order (numbers ascending, scale values worst first)."""
    out: dict[str, dict[Any, int]] = {}
    for name, counts in values.items():
        try:
            out[name] = dict(sorted(counts.items()))
        except TypeError:  # values of kinds that do not compare with each other: as they came
            out[name] = counts
    return out
