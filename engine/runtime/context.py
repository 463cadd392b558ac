"""One run's settings, passed as one value instead of parameters threaded by position."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, NamedTuple

from ..errors import Diagnostic, InputError, did_you_mean
from .cache import Caches
from .limits import Limits
from .work import Work, working

POLICIES = ("always", "never", "optimal")
"""How a player decides every "may": take it, decline it, or whatever is exactly best."""


class RunContext(NamedTuple):
    """The limits, the policy for the player's choices, the caches of the ruleset, and — when
    sampling — the random source and the dice the caller forces. Immutable, and quick to make
    for every roll; the evaluators check the policy (`check_policy`)."""

    limits: Limits
    policy: str
    caches: Caches
    """The loaded ruleset's own (`Ruleset.caches`), or a fresh `Caches()`: never shared by default."""
    rng: random.Random | None = None
    forced: Mapping[str, Any] | None = None
    work: Work | None = None
    """This request's work budget; None: the evaluator makes one from `limits` (`with_work`)."""


def with_work(ctx: RunContext) -> RunContext:
    """`ctx` with a budget of its own: the one it carries, else a fresh one from its limits."""
    if ctx.work is not None:
        return ctx
    return ctx._replace(work=new_work(ctx.limits))


def new_work(limits: Limits) -> Work:
    """A fresh budget for one request under `limits`."""
    return Work(limits.max_work, limits.deadline)


@contextmanager
def metered(limits: Limits) -> Iterator[Work]:
    """A request's budget for code that runs expressions outside an evaluator — a campaign's
    preconditions, effects, derived values and period resets — whose table calls find it through
    `work.meter()`, so a hostile ruleset's state is bounded like its checks."""
    with working(new_work(limits)) as work:
        yield work


def check_policy(policy: str) -> str:
    """The policy's own name (one of `POLICIES`, whatever kind of `str` was given, so a result
    carries the same name on every path), or an `InputError` RC408."""
    if policy not in POLICIES:
        hint = did_you_mean(str(policy), POLICIES) or f"policies: {', '.join(POLICIES)}"
        raise InputError([Diagnostic("RC408", f"unknown policy {policy!r}"[:80], None, hint)])
    return POLICIES[POLICIES.index(policy)]
