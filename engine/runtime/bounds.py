"""The bound the language fixes on the numbers a ruleset computes (`MAX_COMPUTED_DIGITS`): one
rule for the compiled code's products, quotients and powers (`compiler.codegen`) and for the
values a campaign keeps and derives (`runtime.state`), whose sums could otherwise grow past what
Python writes out as text (4,300 digits), where a stored state could no longer be shown."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..errors import MAX_COMPUTED_DIGITS, BoundError, Diagnostic
from ..syntax.positions import Span

TOO_BIG = 10**MAX_COMPUTED_DIGITS
"""A computed number's bound: a number this big or bigger (or a fraction with a numerator or a
denominator so big) is refused (`bounded`)."""


def bounded(p: Any, span: Span | None) -> Any:
    """`p`, or `too_big(span)` raised where it is a number past the bound (anything else passes)."""
    if type(p) is int:
        if -TOO_BIG < p < TOO_BIG:
            return p
    elif not isinstance(p, Fraction) or (-TOO_BIG < p.numerator < TOO_BIG and p.denominator < TOO_BIG):
        return p
    raise too_big(span)


def too_big(span: Span | None) -> BoundError:
    """RC503 for a number past the bound of computed numbers: a bound no `Limits` raises."""
    return BoundError(
        [
            Diagnostic(
                "RC503",
                f"a number this ruleset computes has more than {MAX_COMPUTED_DIGITS} digits",
                span,
                f"numbers rulecraft computes have at most {MAX_COMPUTED_DIGITS} digits",
            )
        ]
    )
