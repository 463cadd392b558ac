"""Evaluate by sampling: one roll of a check with the caller's RNG, traced as data.

The trace records every input, value, die, chit, reroll, choice and rule in the order they
happened (`trace.Step`). Every face and chit taken is also kept in order (`Result.drawn`), so
`Result.forced()` replays the same roll exactly. Reroll procedures follow the rules of
`runtime.procedure` (shared with the exact evaluator) die by die, redraws follow
`runtime.rules.redraw_offered`, and the `optimal` policy asks the exact evaluator which choice is
best, so sampled play is exact play.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import (
    Advice,
    Diagnostic,
    EvalError,
    InputError,
    LimitError,
    RulecraftError,
    did_you_mean,
    limit_advice,
    optimal_again,
    placed,
    shown,
)
from ..errors import never_ends as endless_check
from ..expr import ast
from ..frozen import FrozenDict
from ..model.ruleset import AGAIN, Check, Die, Draw, Expr, Pool, Randomizer, Rule
from ..model.values import Multi, Symbol, faces_text, redraws_key
from ..runtime.cache import Caches
from ..runtime.context import POLICIES, RunContext, check_policy, new_work
from ..runtime.inputs import forced_face, in_bag, listed, whole
from ..runtime.limits import Limits, counted_before_roll, redraw_times, roll_count
from ..runtime.procedure import Option, Procedure, State, never_ends, procedure_for
from ..runtime.rules import (
    auto_outputs,
    before_roll,
    carried,
    concrete,
    first_rule,
    known_values,
    read_faces,
    redraw_offered,
    split_counted,
    with_dice,
)
from ..runtime.work import TRANSITION, Work, current_work, enter, leave, meter, unstoppable, working
from .trace import Decision, Result, RuleRef, Step, TriggerStep, made, text_units

if TYPE_CHECKING:  # the exact evaluator is imported by the rolls that consult it (`_exact_for`)
    from ..syntax.positions import Span
    from .exact import Sequential

Forced = Mapping[str, Any]
Drawer = Callable[[random.Random], int]
"""Draws each die's face of a check of plain dice from a `random.Random`, as one number (`_drawer`)."""
_new = tuple.__new__  # a Step without NamedTuple's Python-level constructor, on the hot path


_DECIDED = {by: Decision(by, True) for by in ("rule", "always", "never")}
"""The decisions of a rule or a fixed policy: the same every time, so made once."""
_DECLINED = {
    (by, nothing): Decision(by, False, "", None, None, nothing)
    for by in _DECIDED
    for nothing in (False, True)
}
"""The same, when nothing was taken (`nothing`: no die was eligible)."""

_REST = (None, (), (), (), "", None, None, None)
"""The fields after `expr` of a step that shows a value and the expression it came from."""


def _faces_or_chits(n: int, chits: bool) -> str:
    """`n` forced faces or chits, in words ("1 face", "2 chits"): no "face(s)" (hunt 13r)."""
    word = "chit" if chits else "face"
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class _Source:
    """Where faces and chits come from: the forced lists first, else the RNG; all recorded."""

    def __init__(self, check: Check, rng: random.Random, forced: Forced) -> None:
        self.rng = rng
        self.drawn: dict[str, list[Any]] = {}
        self.forced: dict[str, list[Any]] = {}
        self.given: dict[str, list[Any]] = {}
        self.to_come: dict[str, int] = {}
        """Per randomizer, its dice not rolled yet after the one rolling now (an `each_die`
        pool's, rolled die by die): a shortfall of forced faces counts them too."""
        self.earlier: dict[str, int] = {}
        """Per randomizer, its faces or chits drawn by the attempts a rule `then: again` made
        again before this one: a shortfall of forced ones says the check made again counts."""
        if not forced:
            return
        self.spans = {r.name: r.span for r in check.roll}
        self.draws = {r.name for r in check.roll if isinstance(r, Draw)}
        for k in forced:
            if k not in self.spans:
                hint = (
                    did_you_mean(k, self.spans)
                    or f"dice and draws of '{check.name}': {', '.join(self.spans) or 'none'}"
                )
                raise InputError(
                    [
                        Diagnostic(
                            "RC405", f"'{k}' is not a die or draw of check '{check.name}'", check.span, hint
                        )
                    ]
                )
        self.forced = {k: [v] if (items := listed(v)) is None else items for k, v in forced.items()}
        self.given = {k: list(v) for k, v in self.forced.items()}

    def faces(self, r: Die | Pool, n: int) -> list[int]:
        queue = self.forced.get(r.name)
        if queue is None:  # the common case: straight from the RNG
            # `_randbelow(n)` is what `randrange(n)` returns, without its argument checks: the
            # same draws from the same seed, about half a microsecond sooner each
            faces, size, draw = r.faces, len(r.faces), self.rng._randbelow  # type: ignore[attr-defined]
            out = [faces[draw(size)] for _ in range(n)]
            self.drawn.setdefault(r.name, []).extend(out)
            return out
        out = []
        for _ in range(n):
            if queue is not None:
                if not queue:
                    raise self._ran_out(r, n, [str(f) for f in r.faces])
                given = queue.pop(0)
                # an int as it is (NumPy's too); 1.0 and True equal 1, yet are not faces
                face = forced_face(given, r.faces)
                if face is None:
                    # 7.0 (a JSON number, or the command line's text) is none for being no whole number
                    why = (
                        "is not a face of this die"
                        if whole(given) is not None
                        else "is not a whole number, so no face of this die"
                    )
                    raise _bad_force(r, given, f"{why} ({faces_text(r.faces)})")
            else:
                face = r.faces[self.rng.randrange(len(r.faces))]
            out.append(face)
        self.drawn.setdefault(r.name, []).extend(out)
        return out

    def chits(self, r: Draw, n: int) -> list[Symbol]:
        queue = self.forced.get(r.name)
        if queue is None:
            out = list(self.rng.sample(r.bag.population, n))
        else:
            left = {s.name: k for s, k in r.bag.contents()}
            out = []
            for _ in range(n):
                if not queue:
                    # the chits still in the bag, each as often as it is there: an example that
                    # can be drawn (grey three times from a bag of two greys could not: hunt 13x)
                    raise self._ran_out(r, n, [name for name, k in left.items() for _ in range(k)])
                name = getattr(queue[0], "name", queue[0])
                queue.pop(0)
                if not in_bag(name, 1, left):
                    hint = None if isinstance(name, str) and name in left else did_you_mean(str(name), left)
                    raise InputError(
                        [
                            Diagnostic(
                                "RC405",
                                f"forced {r.name} = {shown(name)} is not left in bag '{r.bag.name}'",
                                r.span,
                                hint,
                            )
                        ]
                    )
                left[name] -= 1
                out.append(r.bag.scale[name])
        self.drawn.setdefault(r.name, []).extend(out)
        return out

    def _ran_out(self, r: Randomizer, n: int, fill: list[str]) -> InputError:
        """Forced faces (or chits) that ran out: how many the roll needs, how many were given, and
        an example with enough of them."""
        chits = isinstance(r, Draw)
        given = [str(getattr(v, "name", v)) if chits else shown(v) for v in self.given.get(r.name, [])]
        before = len(self.drawn.get(r.name, []))
        needed = before + n + self.to_come.get(r.name, 0)
        why = ""
        if before:
            again = self.earlier.get(r.name, 0) > 0  # some were drawn by an attempt made again
            # what rolls again within an attempt: a redraw, a pool's triggers or its die-by-die steps
            within = r.redraw is not None or (isinstance(r, Pool) and bool(r.triggers or r.own is not None))
            counted = []
            if within or not again:
                counted.append("every redraw" if chits else "the dice rerolls and triggers roll again")
            if again:
                counted.append(
                    "the check made again"
                    if counted
                    else f"the {'chits' if chits else 'dice'} of the check made again"
                )
            why = ", counting " + " and ".join(counted)
        attempts = ", attempt after attempt of the check made again" if self.earlier.get(r.name) else ""
        wanted = max(0, needed - len(given))
        if chits:  # the bag's chits in turn (a redraw puts them back: round again)
            example = [*given, *[fill[i % len(fill)] if fill else "?" for i in range(wanted)]]
        else:  # a die's middle face, as often as needed
            example = [*given, *[fill[len(fill) // 2] if fill else "?"] * wanted]
        in_python = ", ".join(repr(x) for x in example) if chits else ", ".join(example)
        return InputError(
            [
                Diagnostic(
                    "RC405",
                    f"forced {r.name} ran out: {_faces_or_chits(len(given), chits)} given, but the roll needs"
                    f" at least {needed}{why}",
                    r.span,
                    f"force one per {'chit drawn' if chits else 'die'} in order, then one per reroll or "
                    f"redraw{attempts}: e.g. --force {r.name}={','.join(example)} "
                    f"(from Python: forced={{'{r.name}': [{in_python}]}})",
                    advice=Advice("force", r.name, "chit" if chits else "die", tuple(example)),
                )
            ]
        )

    def finish(self, why: str = "") -> None:
        """Refuse forced faces or chits left over (`why` says why the roll took none of them)."""
        for name, queue in self.forced.items():
            if queue:
                raise InputError(
                    [
                        Diagnostic(
                            "RC405",
                            f"forced {name} has {_faces_or_chits(len(queue), name in self.draws)} the roll"
                            f" never used: {queue}{why}",
                            self.spans.get(name),
                            "force only what the roll takes, in order (rerolls and redraws included)",
                        )
                    ]
                )


class Before(NamedTuple):
    """What every roll of one check with one set of bound inputs shares, worked out once: the
    environment before the dice, the trace's first steps and the values so far, the auto rule
    that fires (if any), and how the steps after the dice are made."""

    env: dict[str, Any]
    steps: tuple[Step, ...]
    """The inputs' and the values known before the roll."""
    values: tuple[tuple[str, Any], ...]
    fired: tuple[int, Symbol] | None
    quick: bool
    """The check has a `roller` (plain dice) and no auto rule fires: a roll is one call."""
    dice: tuple[tuple[str, tuple[int, ...]], ...]
    """Each die's name and faces, for its step (plain dice only)."""
    posts: tuple[tuple[str, str, tuple[Any, ...]], ...]
    """Each value after the roll: kind, name, and the step's fields after its value."""
    outs: tuple[tuple[str, str, tuple[Any, ...]], ...]
    """The same for each output."""
    outcome: tuple[Any, ...] | None
    """The fields after the outcome's value when it is one expression."""
    refs: tuple[RuleRef, ...]
    """The rows of an outcome rule list, as a trace names the one that fired."""
    scale: str
    """The name of the check's outcomes, which names the outcome's step."""
    draw: Drawer | None
    """Plain dice only: every die's face drawn from an exact `random.Random` in roll order."""


READY_WEIGHT = 4
"""A kept `Ready` weighs about this many times its bound inputs (the environment and the steps
made from them, which come later; the rolls it keeps are weighed as they come, `Ready.weigh`)."""

KEEP = 1024
"""The most rolls of plain dice one `Ready` keeps, one per tuple of faces under each policy and
trace asked for (`_variant`): a check of two d10 keeps all of its 100 a roller, a check of more
faces than this keeps the first ones it meets."""


class Ready:
    """A check with bound inputs, kept by the ruleset per inputs as given (`Ruleset.roll`), and
    what the rolls share (`before`), worked out at the first roll under its budget and kept:
    a later roll with the same inputs starts at its dice. Two threads may both work it out once.

    A check of plain dice is a pure function of its bound inputs and its faces, so once its
    rolls are proven unmeterable under the ruleset's limits (`unmetered`), each tuple of faces
    is worked out once under each policy and trace asked for and kept (`kept`, at most `room`):
    a later roll draws its dice from the RNG as before and returns what was kept. Only a binding
    the ruleset's cache holds keeps rolls: `weigh` weighs it again in the cache as it grows (at
    1, 2, 4, 8, ... kept rolls), so the cache's bound holds what is kept, and puts it back if
    the cache dropped it while a pre-bound roller still rolls it and it fits. Growing never
    pushes another binding out (`BoundedCache.grow`): one that does not fit keeps the rolls it
    had when last weighed and no more (its later rolls are worked out each time, as the same
    results); if the cache had dropped it, those are held by its pre-bound roller alone."""

    __slots__ = (
        "check",
        "inputs",
        "before",
        "unmetered",
        "kept",
        "room",
        "grew",
        "weighed",
        "weigh",
        "settle",
        "rollers",
        "counted",
        "surely",
        "ends",
    )

    def __init__(self, check: Check, inputs: Mapping[str, Any]) -> None:
        self.check = check
        self.inputs = FrozenDict(inputs)
        """The bound inputs, frozen once here: every result of this binding holds them."""
        self.before: Before | None = None
        self.unmetered: Limits | None = None
        """The limits under which a roll was proven unmeterable (see `sample`), else None."""
        self.kept: dict[int, Result] = {}
        """The kept rolls, by the number that names their faces (`_drawer`) plus where their
        policy's and trace's rolls start (`_variant`)."""
        self.room = KEEP
        self.grew = 0
        self.weighed = 0
        """How many rolls were kept when the cache last weighed this."""
        self.weigh: Callable[[], bool] | None = None
        """Weigh this in the cache that holds it; False when it does not fit (`BoundedCache.grow`)."""
        self.settle: Callable[[], None] | None = None
        """Weigh this in the cache that holds it as a new entry, pushing older ones out to fit
        (`BoundedCache.put`): at its first kept roll, when its environment and steps are made."""
        self.rollers: dict[tuple[str, bool, Callable[[Any], random.Random]], Callable[..., Result]] = {}
        """Its rollers once proven unmeterable, by policy, trace and random source (`kept_roller`)."""
        self.counted: Limits | None = None
        """The limits its pools' and draws' counts were checked against by `prepared`, else None."""
        self.surely: dict[int, bool] = {}
        """Per `then: again` rule that fired: whether it fires on every attempt (`_surely_again`)."""
        self.ends: dict[str, bool | Limits] = {}
        """Per policy, what the exact evaluator said of whether a roll ends (`_ask_exact`): True,
        it can; the limits under which it could not tell."""

    def work_out(self) -> Before:
        """`before`, worked out now (under the current request's budget) and kept."""
        check = self.check
        env = before_roll(check, self.inputs)
        steps = [_new(Step, ("input", k, v, "") + _REST) for k, v in self.inputs.items()]
        steps += [
            _new(Step, ("value", let.name, env[let.name], let.expr.text) + _REST) for let in check.pre_lets
        ]
        fired = first_rule(check.auto, env) if check.auto else None
        outcome = check.outcome
        # a check that may roll again goes the general way (`_sample`), which makes each attempt
        quick = check.roller is not None and fired is None and not check.again_rules
        dice = tuple((r.name, r.faces) for r in check.roll if isinstance(r, Die))
        self.before = Before(
            env,
            tuple(steps),
            known_values(check, env),
            fired,
            quick,
            dice,
            tuple(("value", let.name, (let.expr.text, *_REST)) for let in check.post_lets),
            tuple(("output", name, (expr.text, *_REST)) for name, expr in check.outputs),
            (outcome.text, *_REST) if isinstance(outcome, Expr) else None,
            () if isinstance(outcome, Expr) else tuple(_rule_ref(outcome, i) for i in range(len(outcome))),
            check.outcomes.name,
            _drawer(tuple(faces for _, faces in dice)) if quick else None,
        )
        return self.before


def _drawer(faces: tuple[tuple[int, ...], ...]) -> Drawer:
    """Draw each die's face as `faces[rng._randbelow(len(faces))]`, in roll order (what the
    check's `roller` draws, so the same RNG calls in the same order), as the number that names
    the tuple of faces (`_faces`: the places drawn, in mixed radix), which a binding keeps its
    rolls by (no tuple to make and hash); one, two and three dice without a loop. Where this
    Python's `_randbelow` is the `getrandbits` loop (`_inlined`), that loop is written out here:
    the same `getrandbits` calls, without a Python frame a die (for an exact `random.Random`
    only: a subclass may draw another way)."""
    sized = [(len(f), len(f).bit_length()) for f in faces]
    if not _inlined():

        def below(rng: random.Random) -> int:
            index = 0
            for n, _ in sized:
                index = index * n + rng._randbelow(n)  # type: ignore[attr-defined]
            return index

        return below
    if len(sized) == 1:
        ((n0, k0),) = sized

        def one(rng: random.Random) -> int:
            bits = rng.getrandbits
            r = bits(k0)
            while r >= n0:
                r = bits(k0)
            return r

        return one
    if len(sized) == 2:
        (n0, k0), (n1, k1) = sized

        def two(rng: random.Random) -> int:
            bits = rng.getrandbits
            r = bits(k0)
            while r >= n0:
                r = bits(k0)
            s = bits(k1)
            while s >= n1:
                s = bits(k1)
            return r * n1 + s

        return two
    if len(sized) == 3:
        (n0, k0), (n1, k1), (n2, k2) = sized

        def three(rng: random.Random) -> int:
            bits = rng.getrandbits
            r = bits(k0)
            while r >= n0:
                r = bits(k0)
            s = bits(k1)
            while s >= n1:
                s = bits(k1)
            t = bits(k2)
            while t >= n2:
                t = bits(k2)
            return (r * n1 + s) * n2 + t

        return three

    def many(rng: random.Random) -> int:
        bits = rng.getrandbits
        index = 0
        for n, k in sized:
            r = bits(k)
            while r >= n:
                r = bits(k)
            index = index * n + r
        return index

    return many


def _faces(before: Before, index: int) -> tuple[int, ...]:
    """The faces a drawer's number names (see `_drawer`)."""
    out = []
    for _, faces in reversed(before.dice):
        index, place = divmod(index, len(faces))
        out.append(faces[place])
    return tuple(reversed(out))


_INLINED: list[bool] = []
"""Whether `_drawer` may write out `_randbelow`: worked out once (`_inlined`)."""


def _inlined() -> bool:
    """Whether this Python's `random.Random._randbelow(n)` is `_below(rng.getrandbits, n)`:
    CPython's `_randbelow_with_getrandbits`, seen to draw what `_below` draws, and leave the
    generator where it leaves it, from one seed over sizes from 1 to past 2**20 (else the
    drawers call `_randbelow` itself)."""
    if not _INLINED:
        ours, theirs = random.Random(20261201), random.Random(20261201)
        same = random.Random._randbelow is getattr(random.Random, "_randbelow_with_getrandbits", None)  # type: ignore[attr-defined]
        for n in (1, 2, 3, 5, 6, 8, 10, 12, 16, 20, 100, 1000, 2**20 + 1):
            for _ in range(8):
                same = same and theirs._randbelow(n) == _below(ours.getrandbits, n)  # type: ignore[attr-defined]
        _INLINED.append(same and ours.getstate() == theirs.getstate())
    return _INLINED[0]


def _below(bits: Callable[[int], int], n: int) -> int:
    """A whole number from 0 to n - 1 from `bits` (`Random.getrandbits`), as CPython's
    `Random._randbelow_with_getrandbits` draws it: `n.bit_length()` bits, again while too big."""
    k = n.bit_length()
    r = bits(k)
    while r >= n:
        r = bits(k)
    return r


def sample(
    check: Check, inputs: Mapping[str, Any], ctx: RunContext, trace: bool = True, ready: Ready | None = None
) -> Result:
    """Roll `check` once with bound inputs (see `inputs.bind_inputs`); `ctx.policy` decides every
    "may", `ctx.rng` rolls and `ctx.forced` fixes dice. The work is charged to `ctx.work` (a
    fresh budget from `ctx.limits` when it has none). Without `trace` the result's trace is empty
    and no step is made; the dice, outcome and values are the same. `ready`: the same check and
    inputs as kept by the ruleset, so what the rolls share is worked out once."""
    if (
        ready is not None
        and ready.unmetered is ctx.limits
        and not ctx.forced
        and ctx.work is None
        and current_work() is None
        and ctx.policy in POLICIES
        and type(ctx.rng) is random.Random
    ):
        return kept_roller(ready, ctx.policy, trace, ctx.caches, _as_given)(ctx.rng)
    named = check_policy(ctx.policy)
    if named is not ctx.policy:
        ctx = ctx._replace(policy=named)
    work = ctx.work
    if work is None:
        work = new_work(ctx.limits)
    token = enter(work) if current_work() is not work else None  # a scene's roll runs in its request
    try:
        if ready is None:
            ready = Ready(check, inputs)
        before = ready.before or ready.work_out()
        _decide(ready, before, ctx.limits)
        if before.quick and not ctx.forced:
            return _quick(check, ready, before, ctx.rng or random.Random(), ctx.policy, trace)
        return _sample(check, ready, before, ctx if ctx.work is not None else ctx._replace(work=work), trace)
    except LimitError as exc:
        raise placed(exc, check.span) from None
    finally:
        if token is not None:
            leave(token)


def _decide(ready: Ready, before: Before, limits: Limits) -> None:
    """Whether the rolls of `ready` go unmetered under `limits`: a plain roll whose table calls
    can charge no more than a fresh budget holds, nor enough to make it look at the clock, could
    never be stopped by metering, so the rolls after this one are not metered (`_from_kept`; its
    values known before the roll were worked out under a budget, in `before`)."""
    units = ready.check.roller_units
    if before.quick and unstoppable(units, limits.max_work):
        if ready.unmetered is not limits and ready.unmetered is not None:
            # proven again under other limits: the rollers made under the old ones meter a
            # roll in a request by them, and a kept roll was worked out under them
            ready.rollers.clear()
            ready.kept.clear()
        ready.unmetered = limits


def prepared(
    ready: Ready,
    policy: str,
    traced: bool,
    limits: Limits,
    caches: Caches,
    source: Callable[[Any], random.Random],
) -> Callable[..., Result]:
    """A function of a random source that rolls `ready`'s check with its bound inputs under
    `policy` (checked by the caller): what rolls share is worked out now, under a fresh budget,
    and whether they go unmetered decided now, so a roll of plain dice is its dice and what
    was kept (`kept_roller`). `source` checks a random source that is not a
    `random.Random`."""
    before = ready.before
    if before is None or ready.counted is not limits:  # once per binding: a roller is made often
        try:
            with working(new_work(limits)):
                if before is None:
                    before = ready.work_out()
                if before.fired is None:
                    counted_before_roll(ready.check, before.env, limits)  # a roller's mistakes, now
        except LimitError as exc:
            raise placed(exc, ready.check.span) from None
        ready.counted = limits
    _decide(ready, before, limits)
    if ready.unmetered is limits:
        return kept_roller(ready, policy, traced, caches, source)
    check, inputs = ready.check, ready.inputs

    def roll(rng: Any = None) -> Result:
        return sample(check, inputs, RunContext(limits, policy, caches, source(rng)), traced, ready)

    return _named(roll)


ROLLER = "Ruleset.roller's roll"
"""What a roller is called where Python words a call with other arguments than its one, the
random source ("Ruleset.roller's roll() got an unexpected keyword argument 'forced'"): the
public call that made it, not this module's inner function."""


def _named(roll: Callable[..., Result]) -> Callable[..., Result]:
    """`roll`, named as the caller knows it (`ROLLER`), at no cost to a call."""
    roll.__qualname__ = ROLLER
    return roll


def kept_roller(
    ready: Ready, policy: str, traced: bool, caches: Caches, source: Callable[[Any], random.Random]
) -> Callable[..., Result]:
    """The roller of a binding whose rolls were proven unmeterable (`ready.unmetered` is the
    ruleset's limits) under `policy` (one of `POLICIES`), made once and kept by the binding: what
    `Ruleset.roller` returns and what `Ruleset.roll` calls once it has seen the same arguments."""
    policy = check_policy(policy)  # its own name: an equal `str` of another kind finds it
    key = (policy, traced, source)
    found = ready.rollers.get(key)
    if found is None:
        found = ready.rollers[key] = _kept_roller(ready, policy, traced, caches, source)
    return found


def _kept_roller(
    ready: Ready, policy: str, traced: bool, caches: Caches, source: Callable[[Any], random.Random]
) -> Callable[..., Result]:
    """A roll of plain dice as one Python frame: the faces drawn, and this roller's own kept
    roll of those faces (worked out now if it is not), returned as it was kept: a `Result` is
    immutable throughout (`trace.made`), so every roll of the same faces may be the same one.
    Each policy and trace keeps its own rolls, made with that policy and that trace (or none),
    so finding the kept one is all a roll does (`_variant`). Inside a running request a roll
    goes the metered way instead (`sample`)."""
    before, check, inputs, limits = ready.before, ready.check, ready.inputs, ready.unmetered
    assert before is not None and before.draw is not None and limits is not None
    draw, got = before.draw, ready.kept.get  # `kept` is emptied in place, never replaced
    at = _variant(before, policy, traced)
    exact = random.Random

    def roll(rng: random.Random | None = None) -> Result:
        if type(rng) is not exact or current_work() is not None:
            # inside a running request: metered, as `sample` meters it; a subclass draws its own way
            return sample(check, inputs, RunContext(limits, policy, caches, source(rng)), traced, ready)
        index = draw(rng)
        kept = got(index + at)
        if kept is None:
            try:
                kept = _keep(ready, before, index, at, policy, traced)
            except LimitError as exc:  # a number past the digits a ruleset may compute
                raise placed(exc, check.span) from None
        return kept

    return _named(roll)


def _variant(before: Before, policy: str, traced: bool) -> int:
    """Where the rolls kept for `policy` (one of `POLICIES`) and `traced` start among a
    binding's numbers (`Ready.kept`): each of the six takes its own run of as many numbers as
    there are tuples of faces, after the drawer's (`_drawer`), so a roller finds its own kept
    roll by one addition, with its policy and trace (or none) already in it."""
    tuples = 1
    for _, faces in before.dice:
        tuples *= len(faces)
    return (POLICIES.index(policy) * 2 + (1 if traced else 0)) * tuples


def _as_given(rng: Any) -> random.Random:
    """The random source `sample` was given, already a `random.Random`."""
    return rng  # type: ignore[no-any-return]


def _keep(ready: Ready, before: Before, index: int, at: int, policy: str, traced: bool) -> Result:
    """The roll of the faces `index` names worked out (the check's `program`, the same
    statements as its `roller`) under `policy`, with its trace when `traced` (else an empty
    one), and kept among the rolls of that policy and trace (starting at `at`, `_variant`) while
    there is room."""
    dice = _faces(before, index)
    outcome, rule, *after = ready.check.program(before.env, *dice)
    values = dict(before.values)
    for (_, name, _), value in zip(before.posts + before.outs, after):
        values[name] = value
    names = [name for name, _ in before.dice]
    trace: tuple[Step, ...] = ()
    if traced:
        steps = [
            _new(Step, ("die", name, face, "", None, (face,), (), faces, "", None, None, None))
            for (name, faces), face in zip(before.dice, dice)
        ]
        steps += _after(before, outcome, rule, values)
        trace = before.steps + tuple(steps)
    rolled = dict(zip(names, dice))
    drawn = {name: (face,) for name, face in zip(names, dice)}
    kept = made(ready.check.name, outcome, values, ready.inputs, rolled, trace, drawn, policy)
    at += index
    if ready.weigh is not None and (at in ready.kept or len(ready.kept) < ready.room):
        ready.kept[at] = kept
        ready.grew += 1
        if ready.grew & (ready.grew - 1) == 0:  # at the 1st, 2nd, 4th, 8th ... kept roll (hunt 13zzd)
            if ready.weigh():
                ready.weighed = len(ready.kept)
            else:  # no room: back to what the cache weighed, and no more
                for unweighed in list(ready.kept)[ready.weighed :]:
                    ready.kept.pop(unweighed, None)
                ready.room = ready.weighed
                if ready.grew == 1 and ready.settle is not None:  # its own weight (its environment
                    ready.settle()  # and steps, made at this roll), not growth: counted as a new
                    # entry's (7x undercounted before: hunt 13zzd)
    return kept


def _quick(
    check: Check, ready: Ready, before: Before, rng: random.Random, policy: str, traced: bool
) -> Result:
    """A roll of plain dice: the check's `roller` draws each die's face straight from the RNG
    (`_randbelow(n)` is what `randrange(n)` returns, without its argument checks: the same draws
    from the same seed) and runs the statements of its `program`; steps only when traced."""
    outcome, rule, rolled, drawn, values = check.roller(before.env, rng._randbelow)  # type: ignore[misc, attr-defined]
    if not traced:
        return made(check.name, outcome, values, ready.inputs, rolled, (), drawn, policy)
    trace = [
        *before.steps,
        *[
            _new(Step, ("die", name, rolled[name], "", None, drawn[name], (), faces, "", None, None, None))
            for name, faces in before.dice
        ],
        *_after(before, outcome, rule, values),
    ]
    return made(check.name, outcome, values, ready.inputs, rolled, tuple(trace), drawn, policy)


def _after(before: Before, outcome: Symbol, rule: int, values: Mapping[str, Any]) -> list[Step]:
    """The steps after the dice: each value, the outcome (its expression's, or the row of its
    rules that fired), each output."""
    steps = [_new(Step, (kind, name, values[name], *rest)) for kind, name, rest in before.posts]
    if before.outcome is not None:
        steps.append(_new(Step, ("outcome", before.scale, outcome, *before.outcome)))
    else:
        ref = before.refs[rule]
        steps.append(_new(Step, ("rule", before.scale, outcome, "", ref, (), (), (), "", None, None, None)))
    steps += [_new(Step, (kind, name, values[name], *rest)) for kind, name, rest in before.outs]
    return steps


class _Untraced(list[Step]):
    """Where the steps of an untraced roll go: nowhere."""

    def append(self, step: Step) -> None:
        return None


def _sample(check: Check, ready: Ready, before: Before, ctx: RunContext, traced: bool) -> Result:
    source = _Source(check, ctx.rng or random.Random(), ctx.forced or {})
    inputs = ready.inputs
    trace: list[Step] = list(before.steps) if traced else _Untraced()
    env = dict(before.env)
    values: dict[str, Any] = dict(before.values)
    if before.fired is not None:
        index, outcome = before.fired
        trace.append(Step("auto", check.outcomes.name, outcome, rule=_rule_ref(check.auto, index)))
        source.finish(" (an auto rule decided the outcome: nothing was rolled)")
        return _auto(check, env, values, inputs, trace, outcome, ctx.policy)
    if check.again_rules and ctx.policy == "optimal" and check.chooses:
        raise optimal_again(check.name, before.refs[check.again_rules[0]].span)
    again = drawn_before = 0
    steps_before = len(trace)
    used = left = 0  # the request's budget as it was once an attempt was made again
    while True:
        try:
            outcome, rule, rolled, after = _attempt(check, before, env, source, ctx, trace, traced)
        except LimitError as exc:
            raise _spent_again(exc, again) from None
        if outcome != AGAIN or rule not in check.again_rules:
            break
        # `then: again`: the whole check is made again from scratch, its dice drawn anew (forced
        # ones taken on in order), each attempt charged as a roll is (`ROLL_AGAIN`)
        again += 1
        if again == 1:  # nothing here for a roll made once: the common roll pays nothing
            if _surely_again(check, ready, before, rule):
                raise endless_check(check.name, inputs, before.refs[rule].span, False)
            budget = meter()
            used, left = budget.used, budget.left
        elif again & (again - 1) == 0 and (again >= ASK_AGAIN or meter().used - used > left // 4):
            _ask_exact(check, ready, ctx, meter())  # at a power of two: O(1) an attempt, a few asks a roll
        if traced:  # the attempt as a roll shows it, then that it was made again and by which rule
            earlier = dict(values)
            for (_, name, _), value in zip(before.posts + before.outs, after):
                earlier[name] = value
            trace += _after(before, outcome, rule, earlier)
            trace.append(Step("again", before.scale, again, rule=before.refs[rule]))
        faces = sum(map(len, source.drawn.values()))  # and each step a traced attempt made
        # its code too, as a roll of many is charged for it (`dicework.roll_units`): 1,900-term
        # values were 14 units an attempt, and a roll ran 21 s of its budget (hunt 13za); and the
        # text its steps show (`text_units`), told with the rest as attempts made again
        shown = text_units(trace[steps_before:]) if traced else 0
        try:
            meter().charge(
                ROLL_AGAIN + check.code_units + faces - drawn_before + len(trace) - steps_before + shown
            )
        except LimitError as exc:
            raise _spent_again(exc, again) from None
        if source.forced:  # what forced faces running out will count (`_ran_out`)
            source.earlier = {k: len(v) for k, v in source.drawn.items()}
        drawn_before, steps_before = faces, len(trace)
        env = dict(before.env)
    source.finish()
    for (_, name, _), value in zip(before.posts + before.outs, after):
        values[name] = value
    drawn = {k: tuple(v) for k, v in source.drawn.items()}
    if not traced:
        return made(check.name, outcome, values, inputs, rolled, (), drawn, ctx.policy, again=again)
    trace += _after(before, outcome, rule, values)
    _show(trace[steps_before:], check)
    return made(check.name, outcome, values, inputs, rolled, tuple(trace), drawn, ctx.policy, again=again)


ROLL_AGAIN = 4
"""Units each attempt a rule `then: again` makes again is charged, besides a unit for each face
or chit it drew, as a roll made one by one is charged for its own (`dicework.ROLL`): a check that almost
always rolls again runs out of its work budget (RC503) rather than rolling on without end."""

ASK_AGAIN = 1024
"""Attempts made again in one roll after which the sampler asks the exact evaluator, once for
the binding and policy, whether the check can end at all (`_ask_exact`): a check that ends with a
chance of 1 in 100 an attempt gets this far once in 30,000 rolls, so the ask is rare where a
check ends, and where none does it comes within a few milliseconds, not at the work budget."""


def _surely_again(check: Check, ready: Ready, before: Before, rule: int) -> bool:
    """Whether the `then: again` rule `rule`, having fired, fires on every attempt: it and every
    rule before it read only what is known before the roll (the inputs and the values worked out
    from them), so each attempt takes the same row whatever its dice. Worked out once a binding
    (`Ready.surely`); exact, and no solve."""
    found = ready.surely.get(rule)
    if found is None:
        rules = check.outcome
        assert not isinstance(rules, Expr)
        known = before.env.keys()
        found = ready.surely[rule] = all(
            r.when is None or ast.names(r.when.node) <= known for r in rules[: rule + 1]
        )
    return found


def _ask_exact(check: Check, ready: Ready, ctx: RunContext, work: Work) -> None:
    """RC507 (as the exact evaluator words it) when no roll of the check ends under this policy,
    asked of the exact evaluator within a share of what the request has left (half of it), charged
    to the request. Its answer is kept by the binding: that it ends (no more asks), or that it
    could not tell under these limits (no more asks under them); either way the roll goes on."""
    known = ready.ends.get(ctx.policy)
    if known is True or known == ctx.limits:
        return
    from .exact import distribution

    share = work.share(work.left // 2)
    try:
        distribution(check, ready.inputs, RunContext(ctx.limits, ctx.policy, ctx.caches, None, None, share))
        ready.ends[ctx.policy] = True
    except EvalError as exc:
        if exc.diagnostics[0].code == "RC507":
            raise
        ready.ends[ctx.policy] = ctx.limits  # a roll that fails is the sampler's to meet, or not
    except RulecraftError:  # too large to solve within the share: the rolls tell what they can
        ready.ends[ctx.policy] = ctx.limits
    finally:
        work.count(share)


def _show(steps: list[Step], check: Check) -> None:
    """Charge what `steps` of a roll's trace show past what their work paid for (`text_units`),
    the budget passed said so: the answer would be too long to show, where the roll itself fit."""
    shown = text_units(steps)
    if not shown:
        return
    try:
        meter().charge(shown)
    except LimitError as exc:
        passed = meter().passed(exc)
        if passed is None:
            raise
        what, name = passed
        message = (
            f"{what} by the roll's trace: its steps show more text than the budget pays for "
            "(a long name or expression shown at every step)"
        )
        lead = "roll it without its trace where that is offered (the dice, values and outcome alone)"
        raise type(exc)([Diagnostic("RC503", message, check.span, **limit_advice(name, lead))]) from None


def _spent_again(exc: LimitError, again: int) -> LimitError:
    """`exc`, the request's budget or deadline passed by a roll that a rule `then: again` made
    again `again` times, said so: such a check may never end, which more budget cannot mend and
    `rulecraft prob` tells. Any other limit, or none made again: `exc` as it is."""
    passed = meter().passed(exc) if again else None
    if passed is None:
        return exc
    what, name = passed
    attempt = "attempt" if again == 1 else "attempts"
    message = (
        f"{what} after {again:,} {attempt} made again by a rule 'then: again': the check may never end "
        "with these inputs (its exact distribution tells whether it does)"
    )
    # words for every front end (a server's client has no command line): its exact distribution
    # is `prob` on the command line, `/api/prob` over HTTP, `Ruleset.distribution` in Python
    lead = "ask for its exact distribution to see whether it ends, or give the rule a condition"
    lead += " more rolls escape"
    return type(exc)([Diagnostic("RC503", message, None, **limit_advice(name, lead))])


def _attempt(
    check: Check,
    before: Before,
    env: dict[str, Any],
    source: _Source,
    ctx: RunContext,
    trace: list[Step],
    traced: bool,
) -> tuple[Any, int, dict[str, Any], list[Any]]:
    """One attempt at the check from its dice on (`env`: the values known before the roll, filled
    in here): the outcome (`AGAIN` for a row `then: again`), the rule that fired, the dice by name
    and the values after the roll in `before.posts + before.outs`' order."""
    roller = _Roller(check, env, source, ctx, trace) if check.sequential else None
    dice: list[Any] = []
    rolled: dict[str, Any] = {}
    for i, r in enumerate(check.roll):
        if roller is not None:
            value = roller.roll(i, tuple(dice))
        else:
            r = concrete(r, env, ctx.caches)  # faces read from inputs: worked out now
            value = _plain(r, env, source, ctx)
            if traced:  # no step is made for a roll without its trace
                trace.append(_roll_step(r, value, source))
        dice.append(value)
        if r.counted:  # the name reads the value; redraws(name) the count (0 when it is bare)
            value, env[redraws_key(r.name)] = split_counted(value)
        env[r.name] = rolled[r.name] = value
    outcome, rule, *after = check.program(env, *dice)
    return outcome, rule, rolled, after


def _auto(
    check: Check,
    env: dict[str, Any],
    values: dict[str, Any],
    inputs: Mapping[str, Any],
    trace: list[Step],
    outcome: Symbol,
    policy: str,
) -> Result:
    texts = dict(check.auto_outputs)
    for name, value in auto_outputs(check, env, outcome).items():
        values[name] = value
        trace.append(Step("output", name, value, texts[name].text))
    return made(check.name, outcome, values, inputs, {}, tuple(trace), {}, policy, auto=True)


def _rule_ref(rules: tuple[Rule, ...], index: int) -> RuleRef:
    rule = rules[index]
    return RuleRef(index, rule.when.text if rule.when is not None else None, rule.then.text, rule.span)


def _roll_step(r: Randomizer, value: Any, source: _Source) -> Step:
    """The step that shows a randomizer's first roll."""
    if isinstance(r, Die):
        return _new(Step, ("die", r.name, value, "", None, (value,), (), r.faces, "", None, None, None))
    if isinstance(r, Pool) and r.total:  # a die with triggers: its first face
        return Step("die", r.name, value.items[0], faces=value.items, die=r.faces)
    if isinstance(r, Pool):
        return _new(
            Step, ("pool", r.name, value, "", None, value.faces or value.items, (), (), "", None, None, None)
        )
    return Step("draw", r.name, value, faces=value.items, bag=r.bag.name)


def _plain(r: Randomizer, env: dict[str, Any], source: _Source, ctx: RunContext) -> Any:
    """One roll of a randomizer, without its triggers or redraws."""
    if isinstance(r, Die):
        return source.faces(r, 1)[0]
    if isinstance(r, Pool):
        n = roll_count(r.count, env, r, ctx.limits)
        return read_faces(r, env, source.faces(r, n))
    n = roll_count(r.count, env, r, ctx.limits)
    return Multi(tuple(source.chits(r, n)))


class _Roller:
    """Rolls for checks with reroll procedures, redraws or dependent dice, tracing each step."""

    def __init__(
        self, check: Check, env: dict[str, Any], source: _Source, ctx: RunContext, trace: list[Step]
    ) -> None:
        self.check = check
        self.base = dict(env)
        self.source = source
        self.ctx = ctx
        self.policy = ctx.policy
        self.trace = trace
        self.announced = type(trace) is not _Untraced
        """Whether a randomizer's first roll is shown (a roll with its trace): else no step is made."""
        self._exact: Sequential | None = None

    def exact(self) -> Sequential:
        """The exact evaluator the optimal policy consults, kept in the ruleset's cache."""
        if self._exact is None:
            self._exact = _exact_for(self.check, self.base, self.ctx)
        return self._exact

    @contextmanager
    def consulted(self) -> Iterator[Sequential]:
        """The exact evaluator, locked for this roll. Its memos grow as the optimal policy asks
        it more, after its cache weighed it; once it has done a quarter as much work again as it
        had when last weighed (and at least `REWEIGH_WORK`), it is weighed again. Memory grows with
        work, so a kept evaluator holds at most about a quarter more than its cache counts, and
        the weighing costs a bounded multiple of the work it follows. It is walked (`approx_bytes`)
        only once its work has doubled since its last walk; in between, it is weighed as what that
        walk found scaled by the work done since (its own bytes per unit of work, the part made
        before any work counted in: at or above what it grew by). A walk takes about 1.5 ms
        however small the evaluator, and walking at every quarter was a quarter of the time of a
        stream of optimal rolls with distinct inputs (hunt 13zzd)."""
        exact = self.exact()
        work = meter()
        with exact.lock:
            before = work.used
            yield exact
            exact.unweighed += work.used - before
            if exact.key is None:
                return
            evaluators = self.ctx.caches.evaluators
            held = evaluators.get(exact.key)
            if held is None or held[1] is not exact:  # let go meanwhile: another may hold its key
                return
            if exact.unweighed <= max(REWEIGH_WORK, exact.weighed // 4):
                if not exact.walked:  # not walked since it was made: counted by what its work may hold
                    evaluators.reweigh(exact.key, exact.made + FIRST_BYTES + WORK_BYTES * exact.unweighed)
            else:
                exact.weighed += exact.unweighed
                exact.unweighed = 0
                if exact.walked and exact.weighed < 2 * exact.walked:
                    evaluators.reweigh(exact.key, exact.walked_bytes * exact.weighed // exact.walked)
                else:
                    evaluators.reweigh(exact.key)
                    exact.walked = exact.weighed
                    exact.walked_bytes = evaluators.weight(exact.key) or 0

    def roll(self, i: int, dice: tuple[Any, ...]) -> Any:
        r = self.check.roll[i]
        env = with_dice(self.base, self.check.roll, dice)
        value = self.once(i, dice, env)
        if r.redraw is None:
            return value
        times = redraw_times(r, env, self.ctx.limits)
        allowed = times
        work = meter()
        while redraw_offered(r, env, value, times):
            # a unit per die or chit the redraw rolls again, as a reroll chain's step is charged:
            # redrawing 100 chits from a bag of 99,000 takes some 50 microseconds
            work.charge(TRANSITION + len(getattr(value, "items", ())))
            if r.redraw.must:
                by = "rule"
            elif self.policy == "optimal":
                with self.consulted() as exact:
                    wanted = exact.wants_redraw(i, dice, env, value, times, allowed - times)
                if not wanted:
                    self.trace.append(Step("choice", r.name, value, decision=Decision("optimal", False)))
                    break
                by = "optimal"
            elif self.policy == "always":
                by = "always"
            else:
                self.trace.append(Step("choice", r.name, value, decision=Decision("never", False)))
                break
            made = allowed - times + 1
            redrawing = Step("redraw", r.name, None, replaced=(value,), decision=Decision(by, True))
            value = self.once(i, dice, env, redrawing, made)
            times -= 1
        return carried(r, value, allowed - times)

    def once(
        self,
        i: int,
        dice: tuple[Any, ...],
        env: dict[str, Any],
        redrawing: Step | None = None,
        made: int = 0,
    ) -> Any:
        """A roll of randomizer `i`: its first, or (`redrawing`: the step that says so, its value
        still to be filled in) the `made`th redraw of it."""
        written = self.check.roll[i]
        r = concrete(written, env, self.ctx.caches)
        if isinstance(written, Pool) and written.own is not None:
            assert isinstance(r, Pool)
            return self.each_die(i, dice, env, r, written.own)
        if not (isinstance(r, Pool) and r.triggers):
            value = _plain(r, env, self.source, self.ctx)
            if redrawing is not None:  # the faces it fell on, as a first roll shows them
                self.trace.append(
                    redrawing._replace(value=value, faces=_roll_step(r, value, self.source).faces)
                )
            elif self.announced:  # a roll without its trace shows no first roll
                self.trace.append(_roll_step(r, value, self.source))
            return value
        assert isinstance(written, Pool)
        return self.procedure(i, dice, env, r, written, redrawing, made)

    def each_die(self, i: int, dice: tuple[Any, ...], env: dict[str, Any], r: Pool, own: Pool) -> Any:
        """A pool whose dice each run their own triggers (`each_die`): each die in turn rolled
        as a die with triggers, its steps and its total traced, then the pool of the totals."""
        n = roll_count(r.count, env, r, self.ctx.limits)
        die = concrete(own, env, self.ctx.caches)
        source = self.source
        forcing = r.name in source.forced
        totals = []
        for k in range(n):
            if forcing:  # forced faces that run out count the dice still to roll too
                source.to_come[r.name] = n - 1 - k
            totals.append(self.procedure(i, dice, env, die, own, None, 0))
        value = read_faces(r, env, totals)
        if self.announced:
            self.trace.append(_roll_step(r, value, self.source))
        return value

    def procedure(
        self,
        i: int,
        dice: tuple[Any, ...],
        env: dict[str, Any],
        r: Pool,
        written: Pool,
        redrawing: Step | None,
        made: int,
    ) -> Any:
        """A pool with triggers: roll (shown as `redrawing` where it is a redraw), then run the
        steps until none is pending."""
        n = 1 if r.total else roll_count(r.count, env, r, self.ctx.limits)
        announce = redrawing is None and self.announced  # a roll without its trace shows no first roll
        if n == 0:  # no die: no face is read, nothing triggers
            empty = read_faces(r, env, self.source.faces(r, 0))  # recorded as drawn: nothing
            if redrawing is not None:
                self.trace.append(redrawing._replace(value=empty))
            elif announce:
                self.trace.append(_roll_step(r, empty, self.source))
            return empty
        proc = procedure_for(written, env, self.ctx.caches, r)
        if proc.endless:  # each die sets off steps that never stop: no roll of n >= 1 dice ends
            raise never_ends(written)
        faces = self.source.faces(r, n)
        holds = proc.holds
        unused = [holds(f) for f in faces]
        keeps = bool(r.history)  # the check reads its history: the first roll, added, rerolled
        # the pool as it stands, read again only when a die changes; a die with triggers reads as
        # its total, so its pool is read only when a step acts (most rolls, none does)
        now: Any = None if r.total else proc.read(faces)
        first: list[int] = list(faces) if keeps else []
        added: list[int] = []
        rerolled: list[int] = []
        trace = self.trace
        # a redraw: the new roll as it fell (its faces, as a first roll shows them), then its steps
        if redrawing is not None:
            fell = faces[0] if r.total else now
            trace.append(
                redrawing._replace(value=fell, faces=tuple(faces) if r.total else now.faces or now.items)
            )
        elif announce:
            if r.total:
                shown = ("die", r.name, faces[0], "", None, tuple(faces), (), r.faces, "", None, None, None)
                trace.append(_new(Step, shown))
            else:
                trace.append(_roll_step(r, now, self.source))
        used = 0
        cap = proc.cap
        work = meter()
        while True:
            work.charge(TRANSITION + len(faces))
            t = proc.pending_among(unused, used)
            if now is None and (t is not None or cap is not None):
                now = proc.read(faces)
            if t is None:
                if cap is not None and proc.capped(proc.state_of(faces, unused, used), self.ctx.policy):
                    trace.append(Step("reroll", r.name, now, cap=cap))
                break
            step = proc.steps[t]
            bit = 1 << t
            triggering = [d for d, u in enumerate(unused) if u & bit]
            if step.must or self.policy != "optimal":  # worked out on the dice themselves
                for d in triggering:
                    unused[d] ^= bit
                grant, picked, count, nothing = proc.take(faces, unused, t, triggering, used, self.policy)
                decision = _DECIDED["rule" if step.must else self.policy]
            else:
                hist = proc.counted(first, added, rerolled) if keeps else ()
                state = proc.state_of(faces, unused, used, hist)
                option, decision = self.decide(i, dice, env, proc, state, t, made)
                for d in triggering:
                    unused[d] ^= bit
                grant, (remove, count) = proc.grant(state, t), option
                nothing = step.action != "add" and not any(proc.eligible(state, t))
                if count and step.action != "add":
                    picked = proc.pick(faces, unused, remove, triggering if step.self_target else None)
            acted = TriggerStep(
                step.name, step.action, step.must, step.pick, tuple([faces[d] for d in triggering]), grant
            )
            if count == 0:
                if decision.by == "optimal":
                    decision = Decision(
                        decision.by, False, decision.objective, decision.reached, None, nothing
                    )
                else:
                    decision = _DECLINED[decision.by, nothing]
                trace.append(
                    _new(Step, ("choice", r.name, now, "", None, (), (), (), "", acted, decision, None))
                )
                continue
            used += count  # the cap is reached only by dice rerolled or added (`Procedure.used_after`)
            if used > self.ctx.limits.max_rerolls:
                raise _past_rerolls(r.span, written, self.ctx.limits.max_rerolls)
            if step.action == "add":
                new = self.source.faces(r, count)
                for f in new:
                    faces.append(f)
                    unused.append(holds(f, t))
                olds: list[int] = []
                if keeps:
                    added += new
            else:
                olds = [faces[d] for d in picked]
                new = self.source.faces(r, len(picked))
                for d, f in zip(picked, new):
                    faces[d] = f
                    unused[d] = holds(f, t)
                if keeps:
                    rerolled += olds
            now = proc.read(faces)
            trace.append(
                _new(
                    Step,
                    ("reroll", r.name, now, "", None, tuple(new), tuple(olds), (), "", acted, decision, None),
                )
            )
        if r.total:  # a die with triggers reads as the total of its dice
            total = sum(faces)
            if len(faces) > 1:
                self.trace.append(_new(Step, ("value", r.name, total, " + ".join(map(str, faces))) + _REST))
            return total
        return proc.with_history(now, first, added, rerolled) if keeps else now

    def decide(
        self,
        i: int,
        dice: tuple[Any, ...],
        env: dict[str, Any],
        proc: Procedure,
        state: State,
        t: int,
        made: int,
    ) -> tuple[Option, Decision]:
        """The option taken at trigger `t` of the roll after `made` redraws, and who took it."""
        if proc.steps[t].must:
            return proc.options(state, t, "always")[0], _DECIDED["rule"]
        if self.policy != "optimal":
            return proc.options(state, t, self.policy)[0], _DECIDED[self.policy]
        with self.consulted() as exact:
            solver = exact.solver(i, dice, env, made=made)
            deeper = solver.depth_for(state, t)
            while deeper:  # rolled past where the solver stopped following the explosion
                was = solver.proc.cap
                solver = exact.solver(i, dice, env, deeper, made)
                deeper = solver.depth_for(state, t)
                if deeper and solver.proc.cap == was:  # no deeper than `max_rerolls`
                    written = self.check.roll[i]
                    assert isinstance(written, Pool)
                    raise _too_deep_to_weigh(written, proc.grant(state, t), self.ctx.limits.max_rerolls)
            scored = solver.decision_scores(state, t)
            best = solver.choice(state, t)
        best_score = dict(scored)[best]
        keep = next((s for o, s in scored if o[1] == 0), None)
        # what decided: against taking nothing, or (nothing taken) against the best that takes
        # some; under `best_first` a part past the first where the first ties (hunt 13z)
        taking = [s for o, s in scored if o[1]]
        other = keep if best[1] else (max(taking) if taking else None)
        objective = self.check.objective
        part = objective.deciding(best_score, other)
        label = objective.label(self.check.outcomes.members, part)
        declined = keep[part] if keep is not None and best[1] else None
        return best, Decision("optimal", True, label, best_score[part], declined)


REWEIGH_WORK = 2_000
"""Units of work a kept exact evaluator may do before it is weighed again (a few milliseconds)."""

FIRST_BYTES = 32 * 1024
WORK_BYTES = 64
"""What a kept exact evaluator not walked since it was made is counted at, past its weight when
made: what its first solve makes (its procedure and packing) and a unit of work's memos, at or
above what the shipped rulesets' reroll checks measured under `optimal` (a contest of pools held
27-86 KB after 109 to 1,272 units; counted so, 1.0-2.0 times what a walk finds). Counted at its weight
when made, such evaluators held 3-4.5 times what their cache counted (review 13zze)."""


def _exact_for(check: Check, env: dict[str, Any], ctx: RunContext) -> Sequential:
    """One exact evaluator per check, inputs and policy, kept in the ruleset's caches so that
    optimal rolls reuse its solutions."""
    from .exact import Sequential

    try:
        key = (check.name, id(check), ctx.policy, ctx.limits, *sorted(env.items(), key=lambda kv: kv[0]))
        hash(key)
    except TypeError:
        return Sequential(check, env, ctx)
    found: tuple[Check, Sequential] | None = ctx.caches.evaluators.get(key)
    if found is None or found[0] is not check:  # an id can be reused by a later check object
        found = (check, Sequential(check, env, ctx, key))
        ctx.caches.evaluators.put(key, found)
        found[1].made = ctx.caches.evaluators.weight(key) or 0
    return found[1]


def _past_rerolls(span: Span | None, written: Pool, most: int) -> LimitError:
    """A roll whose procedure goes past `max_rerolls` dice, told at `span`."""
    return _over_rerolls(f"the reroll procedure went past {most} dice", span, written)


def _too_deep_to_weigh(written: Pool, grant: int, most: int) -> LimitError:
    """Best play cannot weigh a step's options: the exact solver follows a roll at most `most`
    dice deep, and the grant, with the dice the roll already holds, goes past that. Whatever
    best play would choose (taking none of the dice, perhaps), it cannot be worked out (hunt
    13zn: told "went past N dice" where no die had been added)."""
    said = (
        f"best play cannot weigh this roll's grant of {grant} dice: the exact solver follows "
        f"a roll at most {most} dice deep"
    )
    return _over_rerolls(said, written.span, written)


def _over_rerolls(said: str, span: Span | None, written: Pool) -> LimitError:
    """RC503 of `max_rerolls`, with where the cap of the pool as written goes."""
    return LimitError([Diagnostic("RC503", said, span, **limit_advice("max_rerolls", written.set_cap))])


def _bad_force(r: Randomizer, value: Any, why: str) -> InputError:
    return InputError([Diagnostic("RC405", f"forced {r.name} = {shown(value)} {why}", r.span)])
