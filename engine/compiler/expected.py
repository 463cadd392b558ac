"""An example's expected value against the static type of the value it names.

`rulecraft test` compares what an example expects with what came out (`tools.examples._same`);
an expectation that no value of the named value's type can be (`"1/0"` for a number, `1` for
true/false, a name outside the scale) would fail every run, so it is refused when the ruleset
loads (RC702), where it is written.
"""

from __future__ import annotations

from ..errors import clipped, did_you_mean
from ..model import types as T
from ..runtime.inputs import parse_number
from ..syntax.positions import Span
from .problems import problem, written
from .unit import Unit

NUMBER_HINT = 'write a whole number, a decimal or a fraction as text, like "7/2"'


def expected_value(
    unit: Unit, name: str, kind: T.Type, raw: object, span: Span, *, counter: bool = False
) -> None:
    """RC702 at `span` unless `raw`, what an example expects `name` (of type `kind`) to be, is
    one a value of that type can be, read as the runner compares them: for a number, a number or
    a text that `parse_number` reads (the one reader of a number written as text; never
    true or false), a whole one for a `counter`; for true/false, true or false (or that text, in
    any case); for a scale's value, one of its members; for a pool or a list, a YAML list (its
    JSON form, as `roll --json` shows it) whose every item is one of its element type. A value
    of any other type (a range, a table's `any`, a name whose definition failed) is left to
    the run."""
    if kind.kind in ("multi", "list"):
        if not isinstance(raw, list):
            what = "a pool" if kind.kind == "multi" else "a list"
            hint = f"{name} is a {kind}: write its items as a YAML list, unquoted, like [5, 2]"
            if kind.kind == "multi":
                hint += " (in any order: a pool is a multiset)"
            shown = clipped(written(span) or repr(raw))
            raise problem("RC702", f"example expects {name} = {shown}, which is not {what}", span, hint)
        for item in raw if kind.elem is not None else ():
            assert kind.elem is not None
            refused = _refused(unit, name, kind.elem, item, counter=False)
            if refused is not None:
                shown = clipped("[" + ", ".join(map(str, raw)) + "]")
                raise problem(
                    "RC702",
                    f"example expects {name} = {shown}, whose item {clipped(str(item))} is not {refused[0]}",
                    span,
                    f"the items of {refused[1]}",
                )
        return
    refused = _refused(unit, name, kind, raw, counter=counter)
    if refused is not None:
        shown = clipped(written(span) or repr(raw))
        raise problem(
            "RC702", f"example expects {name} = {shown}, which is not {refused[0]}", span, refused[1]
        )


def _refused(unit: Unit, name: str, kind: T.Type, raw: object, *, counter: bool) -> tuple[str, str] | None:
    """What a value of `kind` is and the hint to write one, unless `raw` can be one (None)."""
    if kind.kind == "num":
        number = None if isinstance(raw, bool) else parse_number(str(raw))
        # `parse_number` gives a whole number as an `int`
        if number is not None and (not counter or type(number) is int):
            return None
        what = "a whole number" if counter else "a number"
        hint = (
            f"{name} is a counter, a whole number, like 3"
            if counter
            else f"{name} is a number: {NUMBER_HINT}"
        )
    elif kind.kind == "bool":
        if isinstance(raw, bool) or (isinstance(raw, str) and raw.lower() in ("true", "false")):
            return None
        what, hint = "true or false", f"{name} is true/false: write true or false"
    elif kind.kind == "sym" and kind.scale in unit.scales:
        names = unit.scales[kind.scale].names
        if str(raw) in names:
            return None
        what = f"one of {', '.join(names)}"
        near = did_you_mean(str(raw), names)
        hint = f"{name} is {_scale_value(unit, kind.scale)}" + (f"; {near}" if near else "")
    else:
        return None
    return what, hint


def _scale_value(unit: Unit, scale: str) -> str:
    """What a value of `scale` is, in words: an inline scale is named after what declared it
    (a check's outcomes `check`, an input's choices `check.input`), a declared one by its name."""
    owner = unit.owner.get(scale)
    if owner is None:
        return f"a '{scale}' value"
    if scale == owner:
        return f"an outcome of check '{owner}'"
    return f"one of the choices of input '{scale.removeprefix(owner + '.')}'"
