"""Counts of a value's outcomes that notice when true/false and numbers are both among them.

A dictionary takes true for 1 and false for 0 (they are equal and hash alike), so a value that is
of either kind by the roll (an untyped table's result) would be counted as one: true 3/4 where
true 1/4 and 1 1/2 are right (hunt 13y, in the exact evaluator), and 1 and true as one entry of a
batch rolled one by one, its mean reading true as 1 (hunt 13zd). Both count through here, and
both refuse such a value alike (RC506)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..errors import Diagnostic, EvalError
from ..model.ruleset import Check


class KindCounts(dict[Any, int]):
    """Counts by value, noting whether true/false and numbers were both counted."""

    truth = False
    number = False

    def __setitem__(self, key: Any, weight: int) -> None:
        if key.__class__ is bool:
            self.truth = True
        elif isinstance(key, (int, Fraction)):
            self.number = True
        dict.__setitem__(self, key, weight)

    @property
    def mixed(self) -> bool:
        """Both kinds were counted: the counts cannot be told apart."""
        return self.truth and self.number


def truth_and_number(name: str, check: Check | None) -> EvalError:
    """RC506 for a value that is true/false for some rolls and a number for others, at its
    expression where the check's model is at hand."""
    at = None
    if isinstance(check, Check):
        at = next((let.expr.node.span for let in check.lets if let.name == name), None)
        at = at or next((e.node.span for n, e in check.outputs if n == name), None) or check.span
    return EvalError(
        [
            Diagnostic(
                "RC506",
                f"value '{name}' is true/false for some rolls and a number for others: true is no 1,"
                " so its distribution cannot be told",
                at,
                "declare the table's result ('returns:') so that rulecraft checks it when it loads,"
                " or give one kind of value in every case",
            )
        ]
    )
