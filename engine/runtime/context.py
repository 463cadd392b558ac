"""One run's settings, passed as one value instead of parameters threaded by position."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import Diagnostic, InputError
from .cache import Caches
from .limits import DEFAULT_LIMITS, Limits

POLICIES = ("always", "never", "optimal")
"""How a player decides every "may": take it, decline it, or whatever is exactly best."""


@dataclass(frozen=True)
class RunContext:
    """The limits, the policy for the player's choices, the caches of the ruleset, and — when
    sampling — the random source and the dice the caller forces."""

    limits: Limits = DEFAULT_LIMITS
    policy: str = "always"
    caches: Caches = field(default_factory=Caches)
    rng: random.Random | None = None
    forced: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        check_policy(self.policy)


def check_policy(policy: str) -> None:
    if policy not in POLICIES:
        raise InputError(
            [Diagnostic("RC408", f"unknown policy '{policy}'", None, f"policies: {', '.join(POLICIES)}")]
        )
