"""Running the worked examples written inside a ruleset (`rulecraft test`).

Each example rolls its check with forced dice (for an expected outcome or values) or asks
for the exact distribution (for expected probabilities), and every mismatch becomes a
diagnostic at the line of the expectation that failed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..api import Ruleset
from ..errors import Diagnostic, RulecraftError
from ..model.ruleset import Check, Example
from ..model.values import Symbol, show, to_json


@dataclass(frozen=True)
class Outcome:
    """How one example went: passed, or the diagnostics saying why not."""

    check: str
    example: Example
    problems: tuple[Diagnostic, ...]

    @property
    def passed(self) -> bool:
        return not self.problems


def run_examples(rs: Ruleset) -> list[Outcome]:
    """Every example of every check of `rs`, in file order."""
    return [run_example(rs, check, ex) for check in rs.checks.values() for ex in check.examples]


def run_example(rs: Ruleset, check: Check, ex: Example) -> Outcome:
    problems: list[Diagnostic] = []
    where = f"example '{ex.name}' of check '{check.name}'"
    rolled = [e for e in ex.expects if e.kind in ("outcome", "value")]
    probs = [e for e in ex.expects if e.kind == "probability"]
    try:
        if rolled:
            result = rs.roll(
                check.name, random.Random(0), forced=ex.dice or None, policy=ex.policy, **ex.inputs
            )
            loose = [name for name in result.rolled if name not in ex.dice and result.drawn.get(name)]
            if loose:
                problems.append(
                    _fail(
                        f"{where} expects a roll's result but does not force "
                        f"{', '.join(repr(n) for n in loose)}: it would hold only by chance",
                        ex.span,
                        "give every die or draw the roll takes under 'dice:', "
                        "or expect probabilities instead",
                    )
                )
                return Outcome(check.name, ex, tuple(problems))
            for e in rolled:
                if e.kind == "outcome":
                    if result.outcome != e.expected:
                        problems.append(
                            _fail(
                                f"{where}: expected outcome '{e.expected}', got '{result.outcome}'",
                                e.span,
                                _why(result),
                            )
                        )
                else:
                    actual = result.values.get(e.name, _MISSING)
                    if actual is _MISSING:
                        problems.append(
                            _fail(
                                f"{where}: '{e.name}' has no value in this roll (decided before the roll?)",
                                e.span,
                            )
                        )
                    elif not _same(actual, e.expected):
                        problems.append(
                            _fail(
                                f"{where}: expected {e.name} = {_shown(e.expected)}, got {show(actual)}",
                                e.span,
                                _why(result),
                            )
                        )
        if probs:
            dist = rs.distribution(check.name, policy=ex.policy, **ex.inputs)
            for e in probs:
                p = dist.probability(e.name)
                lo, hi = e.expected
                if not lo <= p <= hi:
                    want = f"exactly {_frac(lo)}" if lo == hi else f"between {_frac(lo)} and {_frac(hi)}"
                    problems.append(
                        _fail(
                            f"{where}: expected P({e.name}) {want}, got {_frac(p)} ≈ {float(p):.4f}", e.span
                        )
                    )
    except RulecraftError as exc:
        first = exc.diagnostics[0]
        problems.append(_fail(f"{where} could not run: {first.message}", ex.span, first.hint))
    return Outcome(check.name, ex, tuple(problems))


_MISSING = object()


def _fail(message: str, span: Any, hint: str | None = None) -> Diagnostic:
    return Diagnostic("RC701", message, span, hint)


def _why(result: Any) -> str:
    rolled = ", ".join(f"{k} = {show(v)}" for k, v in result.rolled.items())
    return f"rolled {rolled}" if rolled else "nothing was rolled (an auto rule decided)"


def _same(actual: Any, expected: Any) -> bool:
    if isinstance(actual, Symbol):
        return actual.name == str(expected)
    if isinstance(actual, bool) or isinstance(expected, bool):
        return actual is expected or str(expected).lower() == str(actual).lower()
    if isinstance(actual, (int, Fraction)):
        try:
            return Fraction(actual) == Fraction(str(expected).replace(" ", ""))
        except (ValueError, ZeroDivisionError):
            return False
    return bool(to_json(actual) == expected)


def _shown(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _frac(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p.numerator)
