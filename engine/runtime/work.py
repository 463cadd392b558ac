"""The work budget of one request: a counter every loop that can grow charges, and a deadline.

A `Work` is made for each request (`RunContext.work`, or by the evaluator when the context has
none) and is never shared between requests, so it needs no lock: a thread only ever charges its
own request's counter. The loops that have the request's context at hand charge `ctx.work`; the
code the compiler generates (a table call) and the solvers a ruleset keeps between requests (an
`optimal` reroll chain) find the counter of the request they are running for through `meter()`,
a context variable the evaluator sets for the length of the request (`working`). A context
variable is per thread (and per asyncio task), so two requests never see each other's counter.

One unit is roughly a microsecond of the engine's own work: a state listed, a fold step, a table
call; a reroll chain's transition, which costs several times more, is charged several units, and
an end of the chain that best play scores (the rest of the check finished on it) more again,
and an end read without being scored (`END`) about a transition.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token

from ..errors import DeadlineError, Diagnostic, LimitError, limit_advice

CLOCK_EVERY = 20_000
"""Units charged between two looks at the clock when a deadline is set (a few milliseconds)."""


def unstoppable(units: int, max_work: int) -> bool:
    """Whether `units` of work charged to a fresh budget of `max_work` could neither be refused
    nor make it look at the clock (they stay under its first `mark`): such work may run with no
    counter set, as metering it could never stop it."""
    return units <= CLOCK_EVERY and units <= max_work


DIGIT_BITS = 30
"""Bits in one of CPython's digits of a whole number."""
PRODUCT_DIGITS = 1_000
"""A product of whole numbers of a and b digits (`DIGIT_BITS`) takes about a·b / PRODUCT_DIGITS
microseconds past the interpreter's own step (schoolbook multiplication: 1.2 µs for two numbers
of 1,024 bits, 4.8 µs of 2,048, measured on the 2-core machine)."""


def product_units(a_bits: int, b_bits: int) -> int:
    """Units to charge, past a loop's own, for a product of whole numbers of `a_bits` and `b_bits`
    bits: none below about a thousand bits each (a fold whose weights cannot grow that long is not
    asked: `tables._wide`), so the weights of a game's dice cost what they did (a sum of 100 d12
    the same, of 200 d12 2 % more), while a pool of dice each weighed over a long total (each
    die's own exploding chain, `each_die`) pays for numbers of thousands of digits."""
    return (a_bits // DIGIT_BITS) * (b_bits // DIGIT_BITS) // PRODUCT_DIGITS


MADE_DIGITS = 200
"""Digits of whole numbers made a microsecond by a loop that makes each from the one before by a
short factor (a power from the power before it, a binomial or a factorial from its neighbour):
past the products' own `product_units`, making a number is linear in its length. Measured on
the 2-core machine, with `made_units` and `product_units` charged: the powers of a weight of 4
to 200 bits, and the ways to choose among 500 to 4,000 dice, 0.4-1.5 µs a unit."""


def made_units(bits: int) -> int:
    """Units to charge for whole numbers of `bits` bits in all, each made from the one before by a
    short factor (`MADE_DIGITS`): a list of powers, binomials or factorials, whose numbers a fold
    of thousands of dice makes by the megabyte."""
    return bits // (DIGIT_BITS * MADE_DIGITS)


def quotient_units(a_bits: int, b_bits: int) -> int:
    """Units to charge for dividing a whole number of `a_bits` bits by one of `b_bits` (a
    quotient or a remainder): long division, about three products of the quotient's length by
    the divisor's (`product_units`; 40,000 digits by 20,000, 1.7 s measured on the 2-core
    machine; by 40 digits, 2.6 products), and a pass over the dividend (`made_units`)."""
    return 3 * product_units(max(a_bits - b_bits, 0) + DIGIT_BITS, b_bits) + made_units(a_bits)


def gcd_units(short_bits: int, gcd_bits: int) -> int:
    """Units to charge for the greatest common divisor, of `gcd_bits` bits, of two whole numbers
    once the longer is divided by the shorter, of `short_bits` (that division is `quotient_units`):
    Lehmer's steps on the shorter, about two products of it by the bits they take off it on the
    way down to the divisor (two random numbers of 20,000 digits: 0.8 s; none when the shorter
    divides the longer). Known only once the divisor is found, so charged then."""
    return 2 * product_units(short_bits, short_bits - gcd_bits)


TRANSITION = 8
"""Units charged per transition of a reroll chain or redraw (each costs several microseconds)."""

SCORED_END = 4 * TRANSITION
"""Units charged for each end (absorbing state) of a reroll chain that best play scores, before it
is scored: the pool's value read off the state (unpacked under a cap or a history), the rest of
the check finished on it and the objective weighed took 10-16 µs of CPU, and finding the state an
end (its `pending`, unpacked under a cap) 4.5-7 µs more, where the chain's own units ran at about
0.5 µs (a move listed, `2 * TRANSITION`, so about 8 µs): about 30-40 units, measured on the 2-core machine.
They were charged a unit (`Sequential.finish`'s, only where its memo missed), so a pool of 2 d5
adding a die on four faces under `optimal` ran twice as long as under `always` to its RC503.
Later randomizers and tables the rest of the check runs charge their own work besides."""

END = TRANSITION
"""Units charged for each end of a reroll chain read without being scored (under `always` and
`never` every end, under `optimal` those no choice leads to), before its value is read off the
state: finding it an end, unpacking it and the pool's value (`RerollSolver._final`) took 10.5 µs
of CPU on a pool of 16 d6 rerolling a 1 or a 2, whose chain's units ran at 1.15 µs (about 9
units), and 5-7.5 µs on a shipped check's 17 d10 (a majority read), whose units ran at 0.2 µs;
measured on the 2-core machine. The rest of the check is finished once per value the ends
share, and charged there. They were charged nothing (2026-12-06): a chain under `always` read
20,349 ends of 16 d6 for free."""


CODE_NODES = 16
"""Expression nodes of a check's code after the roll per unit of work (`code_units`): measured on
2026-12-06 at about 0.5 µs a unit for 40 named values of 25 operations each over 160,000 states,
on the 2-core machine."""
FREE_CODE_NODES = 128
"""Nodes of a check's code after the roll, or of a table's, that its state's, roll's or call's own
unit covers: every shipped check has at most 55, every shipped table at most 115 (a ladder of
outcomes, which most calls leave after a few rows)."""


def code_units(nodes: int) -> int:
    """Units one run of code of `nodes` expression nodes costs past its state's own (`Check.code_units`)."""
    return max(0, nodes - FREE_CODE_NODES) // CODE_NODES


_REQUEST: ContextVar[tuple[float, float] | None] = ContextVar("rulecraft_request_deadline", default=None)
"""The deadline every budget made now keeps to, whatever its own (`request_deadline`): when it
passes (a `time.monotonic()`) and its length in seconds, for the message."""


@contextmanager
def request_deadline(seconds: float, until: float) -> Iterator[None]:
    """Every budget made while the block runs (and in the threads it hands work to with its
    context) stops by `until`, a `time.monotonic()`, or by its own deadline if that comes first:
    one deadline for all a request does. A server counts it from the request's arrival, so
    loading a ruleset sent as text and then rolling it, or waiting for a thread, no longer start
    the deadline afresh (a roll of a text had two whole deadlines, and work waiting for a thread
    ran its full deadline after the wait: hunt 13zp). `seconds` is that deadline's length, for
    the message that it passed."""
    token = _REQUEST.set((until, seconds))
    try:
        yield
    finally:
        _REQUEST.reset(token)


def request_left() -> float | None:
    """Seconds left of the running request's deadline (`request_deadline`; less than 0 once it
    has passed), None outside one: for a wait that is no budget's, a store's lock."""
    outer = _REQUEST.get()
    return None if outer is None else outer[0] - time.monotonic()


LEAST_WAIT = 0.1
"""Seconds a store's write waits for another writer when its request's deadline has (all but)
passed: a store free at once is written, one locked is refused at once (RC903, `Retry-After`)."""


def wait_within(most: float) -> float:
    """Seconds to wait now for a lock another writer holds: `most` (a store's own timeout), or
    what the running request has left when that is less, down to a tenth (the refusal says how
    long it waited; rounded, it ended after the deadline), at least `LEAST_WAIT`. Asked when
    each wait begins, after the work before it: a wait worked out when the store was opened,
    before an action was worked out, ran past the deadline by the action's time (hunt 13zr)."""
    left = request_left()
    return most if left is None else min(most, max(math.floor(left * 10) / 10, LEAST_WAIT))


@contextmanager
def own_deadlines() -> Iterator[None]:
    """Budgets made while the block runs keep to their own deadlines alone, not the request's
    (`request_deadline`): the compile of a served ruleset's file, once for every request after
    it (cut by one request's deadline, its folding of a constant was told as a fault at a line
    of the operator's file, and a listing left the file out: hunt 13zq), and the read that
    answers a campaign made already."""
    token = _REQUEST.set(None)
    try:
        yield
    finally:
        _REQUEST.reset(token)


class Work:
    """How much work one request may still do, and until when."""

    __slots__ = ("limit", "used", "until", "seconds", "mark")

    def __init__(self, limit: int, seconds: float | None = None, *, until: float | None = None) -> None:
        self.limit = limit
        """Units this request may charge (`Limits.max_work`)."""
        self.used = 0
        if until is None and seconds is not None:
            until = time.monotonic() + seconds
        outer = _REQUEST.get()
        if outer is not None and (until is None or outer[0] <= until):
            # the request's deadline comes first (`request_deadline`), and is told by its length
            # where a part's ends with it (a linter's share was told as "1.49959 s": hunt 13zq)
            until, seconds = outer
        self.seconds = seconds
        """The deadline as the embedder gave it (`Limits.deadline`), for the message."""
        self.until = until
        """The `time.monotonic()` past which the request stops (None: no deadline)."""
        self.mark = limit if self.until is None else min(limit, CLOCK_EVERY)
        """Past this count `over()` decides: the budget is spent, or it is time to look at the clock."""

    def charge(self, n: int = 1) -> None:
        """Count `n` units of work; past the budget or the deadline, a `LimitError` RC503."""
        self.used += n
        if self.used > self.mark:
            self.over()

    def charge_at_once(self, n: int) -> None:
        """`charge` for `n` units of work about to be done in one go (a layer of a chain held in
        arrays), which charged a unit at a time would be refused part way: past the budget, it is
        refused having charged it up to its end and a unit more, not `n` past it, so the refusal
        comes where a unit-by-unit charge's would, or before (a 14-die chain solved with numpy was
        refused at 2,269,996 units of 2,000,000: a layer's 270,000 in one sum)."""
        left = self.limit - self.used
        self.charge(n if n <= left else left + 1)

    def check_clock(self) -> None:
        """Look at the deadline now (for loops whose steps are few but slow)."""
        if self.until is not None and time.monotonic() > self.until:
            raise self._late()

    def take_back(self, since: int) -> None:
        """Forget the units charged since `used` was `since`: work one solver gave up on, which
        the solver that takes over charges again (each unit of the request is counted once)."""
        self.used = min(self.used, since)

    def share(self, most: int) -> Work:
        """A budget of its own for one part of this request: at most `most` units and no more
        than are `left` here, with this deadline. What it charges is checked against it alone;
        `count` then adds it here."""
        return Work(min(most, self.left), self.seconds, until=self.until)

    def count(self, share: Work) -> None:
        """Add what `share` (`share()`) used, without a check: the share was checked as it ran
        and stops at most one charge past its own limit, so this budget is at most that far over
        (`left` is then 0, which the caller tests before it starts another part)."""
        self.used += share.used

    @property
    def left(self) -> int:
        return max(0, self.limit - self.used)

    def over(self) -> None:
        """Called once `used` passes `mark`: raise if the budget is spent or the deadline passed."""
        if self.used > self.limit:
            raise LimitError(
                [
                    Diagnostic(
                        "RC503",
                        f"the work budget of {units(self.limit)} was used up "
                        "(this request needs more work than its limits allow)",
                        None,
                        **limit_advice("max_work", "ask for less (fewer dice, a smaller input, a 'cap')"),
                    )
                ]
            )
        self.check_clock()
        self.mark = min(self.limit, self.used + CLOCK_EVERY)

    def _late(self) -> DeadlineError:
        return deadline_passed(self.seconds)

    def passed(self, exc: LimitError) -> tuple[str, str] | None:
        """What of this budget `exc` says was passed, as a message words it, and the limit's name
        ("the deadline of 2 s passed", "deadline"); None when `exc` is another limit (a pool's
        size, a reroll chain's), which its own words tell. For a caller that says more of what
        the request was doing when it was passed."""
        if isinstance(exc, DeadlineError):
            given = f"{self.seconds:g} s" if self.seconds is not None else "its time"
            return f"the deadline of {given} passed", "deadline"
        if self.used > self.limit:
            return f"the work budget of {units(self.limit)} was used up", "max_work"
        return None


def too_many(
    exc: LimitError, done: int, times: int, plays: str, work: Work, first: int, last: int
) -> LimitError:
    """`exc`, the request's budget (`work`) or deadline passed by `times` plays of one thing asked
    for at once (rolls of a check, plays of a scene: one request), said so: after how many of
    them were done, of a budget what they took (`first`, the budget used when the first was
    done, one-off work such as a solve included; `last`, when the last was), and that fewer at
    once is the way on. Any other limit (a pool's size, a reroll chain's), or none done yet (one
    alone is too much, not their number): `exc` as it is. The caller places it."""
    passed = work.passed(exc)
    if not done or passed is None:
        return exc
    what, name = passed
    message = f"{what} after {done:,} of the {times:,} {plays} asked for at once"
    if name == "max_work":  # what each took of the budget (a deadline is time, which units do not tell)
        took = f"the first took {units(first)}"
        if done > 1:
            took += f", each after it about {round((last - first) / (done - 1)):,}"
        message += f" (one request: {took})"
    return type(exc)([Diagnostic("RC503", message, None, **limit_advice(name, "ask for fewer at once"))])


def units(n: int) -> str:
    """`n` units of work, as a message says it ("1 unit", "2,000,000 units")."""
    return f"{n:,} unit" if n == 1 else f"{n:,} units"


def deadline_passed(seconds: float | None) -> DeadlineError:
    """RC503 for a request whose deadline of `seconds` passed (a server that gave a solve only
    the part of it left says so with the request's whole deadline)."""
    given = f"{seconds:g} s" if seconds is not None else "its time"
    return DeadlineError(
        [
            Diagnostic(
                "RC503",
                f"the deadline of {given} passed before the request ended",
                None,
                **limit_advice("deadline", "ask for less"),
            )
        ]
    )


_CURRENT: ContextVar[Work | None] = ContextVar("rulecraft_work", default=None)


def current() -> Work | None:
    """The counter of the request this thread is running for, if any."""
    return _CURRENT.get()


current_work = _CURRENT.get
"""`current` without a Python frame, for generated code: a table charges its call inline
(`used += 1`, and `over()` only past `mark`), so a call costs a few bytecodes."""


class working:  # noqa: N801 -- used as a function: `with working(work):`
    """Make `work` the current request's counter while the block runs (nesting restores). A
    class rather than a generator: every exact request enters one, and this costs a third."""

    __slots__ = ("work", "token")

    def __init__(self, work: Work) -> None:
        self.work = work

    def __enter__(self) -> Work:
        self.token = _CURRENT.set(self.work)
        return self.work

    def __exit__(self, *exc: object) -> None:
        _CURRENT.reset(self.token)


enter: Callable[[Work], Token[Work | None]] = _CURRENT.set
"""Make a `Work` the current counter until `leave(token)`: `working` without a context manager,
for a roll's hot path, where the `with` statement costs more than the check's expressions."""

leave: Callable[[Token[Work | None]], None] = _CURRENT.reset
"""Restore the counter `enter` replaced (call it in a `finally`)."""


def pause() -> Token[Work | None]:
    """No counter until `leave(token)`: for a loop whose table calls were charged, at their
    most, before it ran (a table's charge is then one look at the context variable)."""
    return _CURRENT.set(None)


class _Unmetered(Work):
    """What code that charges gets when no request is running (a direct call from a test or a
    tool): it counts nothing, so it needs no lock."""

    __slots__ = ()

    def charge(self, n: int = 1) -> None:
        return None


_UNMETERED = _Unmetered(0)


def meter() -> Work:
    """The counter to charge: the current request's, or one that counts nothing outside a request."""
    return _CURRENT.get() or _UNMETERED
