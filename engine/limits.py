"""Resource limits an embedder sets, so every evaluation of an untrusted ruleset ends quickly."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import Diagnostic, LimitError
from .source import Span


@dataclass(frozen=True, slots=True)
class Limits:
    """Upper bounds for one evaluation; breaching one is a `LimitError`, never a hang."""

    max_pool: int = 100
    """Dice in one pool."""
    max_draw: int = 100
    """Chits drawn at once from a bag."""
    max_states: int = 2_000_000
    """States the exact evaluator may enumerate for one distribution."""



def enforce(what: str, value: int, limit: int, span: Span | None) -> None:
    """Raise `LimitError` when `value` is over `limit`."""
    if value > limit:
        raise LimitError(
            [Diagnostic("RC503", f"{what} is {value}, over the limit of {limit}", span, "the embedder's Limits set this bound")]
        )


DEFAULT_LIMITS = Limits()
