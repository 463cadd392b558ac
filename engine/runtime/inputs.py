"""Checking the inputs a caller gives a check, against the check's declared inputs.

Values may come as Python values or as command-line text; either way a bad one is an
`InputError` that points at the input's declaration in the ruleset.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..errors import Diagnostic, InputError, did_you_mean
from ..model.ruleset import Check, InputSpec
from ..model.values import normalize
from ..syntax.positions import Span


def bind_inputs(check: Check, given: Mapping[str, Any]) -> dict[str, Any]:
    """Every declared input with its value (given or default), typed; or an `InputError`."""
    return bind(check.inputs, given, "check", check.name, check.span)


def bind(
    specs: tuple[InputSpec, ...],
    given: Mapping[str, Any],
    kind: str,
    owner: str,
    span: Span | None,
    flag: str = "--input",
) -> dict[str, Any]:
    """Inputs of a check, an action, a campaign or a character (`kind` and `owner` name it in
    messages; `flag` is how the command line gives one)."""
    by_name = {s.name: s for s in specs}
    diags: list[Diagnostic] = []
    meant: set[str] = set()  # inputs a misspelt name stands for: one message, not two
    noun = "input" if kind in ("check", "action") else "parameter"
    for name in given:
        if name not in by_name:
            near = did_you_mean(name, by_name)
            if near:
                meant.add(near.split("'")[1])
            hint = near or (
                f"{noun}s of '{owner}': {', '.join(by_name)}" if by_name else f"'{owner}' takes no {noun}s"
            )
            diags.append(Diagnostic("RC402", f"{kind} '{owner}' has no {noun} '{name}'", span, hint))
    bound: dict[str, Any] = {}
    for spec in specs:
        if spec.name in given:
            try:
                bound[spec.name] = _coerce(spec, given[spec.name])
            except InputError as exc:
                diags.extend(exc.diagnostics)
        elif spec.default is not None:
            bound[spec.name] = spec.default
        elif spec.name not in meant:
            diags.append(
                Diagnostic(
                    "RC401",
                    f"{kind} '{owner}' needs the {noun} '{spec.name}' ({describe(spec)})",
                    spec.span,
                    f"give it as {flag} {spec.name}=VALUE",
                )
            )
    if diags:
        raise InputError(diags)
    return bound


def describe(spec: InputSpec) -> str:
    """The allowed values of an input, in words."""
    if spec.scale is not None:
        return "one of " + ", ".join(spec.scale.names)
    if spec.kind == "bool":
        return "true or false"
    kind = "a whole number" if spec.kind == "int" else "a number"
    if spec.minimum is not None and spec.maximum is not None:
        return f"{kind} from {spec.minimum} to {spec.maximum}"
    if spec.minimum is not None:
        return f"{kind}, at least {spec.minimum}"
    if spec.maximum is not None:
        return f"{kind}, at most {spec.maximum}"
    return kind


def _bad(spec: InputSpec, value: Any, why: str, code: str = "RC404") -> InputError:
    return InputError(
        [
            Diagnostic(
                code,
                f"input '{spec.name}' = {value!r} {why}",
                spec.span,
                f"'{spec.name}' is {describe(spec)}",
            )
        ]
    )


def coerce(spec: InputSpec, value: Any) -> Any:
    """One input value, typed and range-checked, or an `InputError`."""
    return _coerce(spec, value)


def _coerce(spec: InputSpec, value: Any) -> Any:
    if spec.scale is not None:
        name = getattr(value, "name", value)
        if isinstance(name, str) and name in spec.scale.names:
            return spec.scale[name]
        hint = did_you_mean(str(name), spec.scale.names)
        raise InputError(
            [
                Diagnostic(
                    "RC404",
                    f"input '{spec.name}' = {value!r} is not one of the choices",
                    spec.span,
                    hint or f"'{spec.name}' is {describe(spec)}",
                )
            ]
        )
    if spec.kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no", "1", "0"):
            return value.lower() in ("true", "yes", "1")
        raise _bad(spec, value, "is not true or false")
    number: int | Fraction
    if isinstance(value, bool):
        raise _bad(spec, value, "is not a number")
    if isinstance(value, (int, Fraction)):
        number = value
    elif isinstance(value, float):
        number = Fraction(str(value))
    elif isinstance(value, str):
        try:
            number = Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise _bad(spec, value, "is not a number") from None
    else:
        raise _bad(spec, value, "is not a number")
    number = normalize(number)
    if spec.kind == "int" and not isinstance(number, int):
        raise _bad(spec, value, "is not a whole number")
    if spec.minimum is not None and number < spec.minimum:
        raise _bad(spec, value, f"is below its minimum {spec.minimum}", "RC403")
    if spec.maximum is not None and number > spec.maximum:
        raise _bad(spec, value, f"is above its maximum {spec.maximum}", "RC403")
    return number
