"""Checking the inputs a caller gives a check, against the check's declared inputs.

Values may come as Python values or as command-line text; either way a bad one is an
`InputError` that points at the input's declaration in the ruleset.
"""

from __future__ import annotations

import keyword
import math
import numbers
import re
from collections.abc import Collection, Iterable, Mapping
from fractions import Fraction
from typing import Any

from ..errors import (
    MAX_DIGITS,
    Advice,
    Diagnostic,
    InputError,
    Numeral,
    did_you_mean,
    forced_as,
    scalar_bool,
    shown,
)
from ..frozen import replace
from ..model.ruleset import Check, Die, Draw, InputSpec, Randomizer
from ..model.values import Multi, normalize
from ..syntax.positions import Span

_DECIMAL = re.compile(r"[+-]?(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:[eE]([+-]?\d+))?", re.ASCII)
_TOO_LONG = 10**MAX_DIGITS
_RATIO = re.compile(r"([+-]?\d+)\s*/\s*(\d+)", re.ASCII)


def digits_over(text: str) -> int | None:
    """The digits of a text written as a number (`2/3`, `-2.5`) that `parse_number` refuses for
    its length alone, past `MAX_DIGITS`; None for any other text, one it reads or no number."""
    text = text.strip()
    if len(text) > 8 * MAX_DIGITS:
        return None
    ratio = _RATIO.fullmatch(text)
    if ratio is None and _DECIMAL.fullmatch(text) is None:
        return None
    parts = ratio.groups() if ratio else (text,)  # a fraction's parts are bounded each
    digits = max(sum(ch.isdigit() for ch in part) for part in parts)
    return digits if digits > MAX_DIGITS and parse_number(text) is None else None


def parse_number(text: str) -> int | Fraction | None:
    """A number written as text (`3`, `-2.5`, `1e3`, `2/3`), or None when it is not one.

    The text is checked before anything converts it, so no text is slow to read: at most
    `MAX_DIGITS` digits, an exponent of at most `MAX_DIGITS`, only ASCII digits (no `²`), no NaN or
    infinity."""
    text = text.strip()
    if len(text) > 4 * MAX_DIGITS:
        return None
    ratio = _RATIO.fullmatch(text)
    if ratio is not None:
        top, bottom = ratio.group(1), ratio.group(2)
        if len(top) > MAX_DIGITS + 1 or len(bottom) > MAX_DIGITS or int(bottom) == 0:
            return None
        return normalize(Fraction(int(top), int(bottom)))
    m = _DECIMAL.fullmatch(text)
    if m is None:
        return None
    whole, part, only, exponent = m.groups()
    digits = len(whole or "") + len(part or "") + len(only or "")
    if digits > MAX_DIGITS or (exponent is not None and len(exponent.lstrip("+-")) > 4):
        return None
    if exponent is not None and abs(int(exponent)) > MAX_DIGITS:
        return None
    return normalize(Fraction(text))


def bind_inputs(check: Check, given: Mapping[str, Any]) -> dict[str, Any]:
    """Every declared input with its value (given or default), typed; or an `InputError`."""
    return bind(check.inputs, given, "check", check.name, check.span, rolls=check)


def bind(
    specs: tuple[InputSpec, ...],
    given: Mapping[str, Any],
    kind: str,
    owner: str,
    span: Span | None,
    flag: str = "--input",
    rolls: Check | None = None,
) -> dict[str, Any]:
    """Inputs of a check, an action, a campaign or a character (`kind` and `owner` name it in
    messages; `flag` is how the command line gives one; `rolls`, the check they roll, the check
    itself or an action's, whose dice and draws are each told as such when given as an input).

    Every name known, every value good and nothing missing is the common case, taken in one pass
    over the declarations with nothing else made; anything else goes the long way, which words
    every problem (`_problems`)."""
    bound: dict[str, Any] = {}
    known = 0
    try:
        for spec in specs:
            name = spec.name
            if name in given:
                known += 1
                value = given[name]
                whole = spec.whole
                if whole is not None and type(value) is int and whole[0] <= value <= whole[1]:
                    bound[name] = value  # as `_coerce` gives it: a plain `int` within its bounds
                else:
                    bound[name] = _coerce(spec, value)
            elif spec.default is not None:
                bound[name] = spec.default
            else:
                break  # missing: said below
        else:
            if known == len(given):
                return bound
    except InputError:
        pass
    raise InputError(_problems(specs, given, kind, owner, span, flag, rolls))


def _die_given(r: Randomizer, value: Any, kind: str, owner: str, check: str, span: Span | None) -> Diagnostic:
    """The die or draw `r` of `check`, which the `kind` `owner` rolls, given as its input: a roll
    takes its face as a forced one, and the exact odds take every face, so neither has it as an
    input. The hint's example is one a roll accepts face by face (`_example`); how many a pool or
    a draw takes is known only at the roll, which says so itself."""
    of = kind_of(r)
    faces = _example(r, _items(value))
    in_python = ", ".join(f if re.fullmatch(r"-?[0-9]{1,30}", f) else repr(f) for f in faces)
    lead = f"'{r.name}' is a {'draw' if of == 'draw' else 'die'} of check '{check}', not an input"
    note = "the exact odds take every " + ("chit" if of == "draw" else "face")
    return Diagnostic(
        "RC402",
        f"{kind} '{owner}' has no input '{r.name}'",
        span,
        f"{lead}: a roll takes its {forced_as(of)} as --force {r.name}={','.join(faces)} "
        f"(from Python, a roll's forced={{'{r.name}': [{in_python}]}}); {note}",
        advice=Advice("die", r.name, of, tuple(faces), lead=lead, note=note),
    )


def _example(r: Randomizer, items: list[Any]) -> list[str]:
    """Faces or chits to force `r` with, for the `items` given in its place: each given one that
    is one of `r`'s (a chit while the bag still holds one), else its middle face or the middle
    chit left; as many as were given for a pool or a draw (at most ten, at most the bag's
    chits), one for a die; `FACE` where the faces are worked out at the roll. Never the given
    value unread: a number of 5,000 digits has no text (hunt 13zzb)."""
    wanted = 1 if isinstance(r, Die) or not 1 <= len(items) <= 10 else len(items)
    if isinstance(r, Draw):
        left = {str(c): k * r.bag.sets for c, k in r.bag.chits}
        out: list[str] = []
        for item in items[:wanted] or [None]:
            chit = _known(item, [c for c, k in left.items() if k])
            if chit is not None:
                left[chit] -= 1
                out.append(chit)
        return out
    faces = [str(f) for f in r.faces]
    if not faces:  # `die: "1..size"`: its faces are known only at the roll
        return ["FACE"] * wanted
    return [_known(item, faces) or "FACE" for item in [*items, None][:wanted]]  # (None only for no faces)


def _known(item: Any, options: list[str]) -> str | None:
    """`item` written as the one of `options` it is (`07` is 7), else the middle option, or None
    where there are none left."""
    if not options:
        return None
    text = item.strip() if isinstance(item, str) and len(item) <= 40 else None
    if type(item) is int and -(10**30) < item < 10**30:
        text = str(item)
    if text is not None and re.fullmatch(r"[+-]?[0-9]{1,30}", text):
        text = str(int(text))
    return text if text in options else options[len(options) // 2]


def kind_of(r: Randomizer) -> str:
    """'die' (one face), 'pool' (a face per die) or 'draw' (chits from a bag), as hints say it."""
    return "draw" if isinstance(r, Draw) else "die" if isinstance(r, Die) else "pool"


def unknown_input(check: Check, name: str, value: Any) -> Diagnostic:
    """RC402 for `name`, given with `value` but no input of `check` (a sweep's input, named
    apart from the others): told as the check's die where it is one, else with the nearest input."""
    for r in check.roll:
        if r.name == name:
            return _die_given(r, value, "check", check.name, check.name, check.span)
    hint = did_you_mean(name, check.input_map) or f"inputs: {', '.join(check.input_map) or 'none'}"
    return Diagnostic("RC402", f"check '{check.name}' has no input '{name}'", check.span, hint)


def _items(value: Any) -> list[Any]:
    """The faces a value given for a die stands for: the command line's `9,2,0`, a list, or one."""
    if isinstance(value, str):
        return value.split(",")
    return list(value) if isinstance(value, (list, tuple)) else [value]


UNKNOWN_SHOWN = 10
"""Unknown names a failed binding names one by one (each with its nearest known name); the rest
are counted in one more message, so a request naming a hundred thousand inputs is answered at
once and in a few lines."""


def _problems(
    specs: tuple[InputSpec, ...],
    given: Mapping[str, Any],
    kind: str,
    owner: str,
    span: Span | None,
    flag: str,
    rolls: Check | None = None,
) -> list[Diagnostic]:
    """Every problem of a binding that failed, in order: unknown names (with the nearest known
    one, or, for a die or draw of the check it `rolls`, how a roll fixes its face), then each
    declaration's bad value or missing input (not one a misspelt name stands for)."""
    by_name = {s.name: s for s in specs}
    diags: list[Diagnostic] = []
    meant: set[str] = set()  # inputs a misspelt name stands for: one message, not two
    noun = "input" if kind in ("check", "action") else "parameter"
    unknown = [name for name in given if name not in by_name]
    listed = f"{noun}s of '{owner}': {', '.join(by_name)}" if by_name else f"'{owner}' takes no {noun}s"
    dice = {r.name: r for r in rolls.roll} if rolls is not None else {}
    for name in unknown[:UNKNOWN_SHOWN]:
        if name in dice and rolls is not None:  # not "did you mean" another input: `tens` for `tokens`
            diags.append(_die_given(dice[name], given[name], kind, owner, rolls.name, span))  # (hunt 13zx)
            continue
        near = did_you_mean(name, by_name)
        if near:
            meant.add(near.split("'")[1])
        diags.append(Diagnostic("RC402", f"{kind} '{owner}' has no {noun} '{name}'", span, near or listed))
    if len(unknown) > UNKNOWN_SHOWN:
        # a misspelling among the rest still stands for its input (no RC401 beside it), looked
        # for among the inputs still missing alone, and in the next thousand names at most
        needed = [s.name for s in specs if s.default is None and s.name not in given and s.name not in meant]
        for name in unknown[UNKNOWN_SHOWN : UNKNOWN_SHOWN + 1000] if needed else ():
            near = did_you_mean(name, needed)
            if near:
                meant.add(near.split("'")[1])
        left = len(unknown) - UNKNOWN_SHOWN
        one = f"1 more name given is not {'an' if noun[0] in 'aeiou' else 'a'} {noun}"
        said = one if left == 1 else f"{left} more names given are not {noun}s"
        diags.append(Diagnostic("RC402", f"{said} of {kind} '{owner}'", span, listed))
    for spec in specs:
        if spec.name in given:
            try:
                _coerce(spec, given[spec.name], noun)
            except InputError as exc:
                if kind == "character":  # one command may give several: say whose (hunt 13zi)
                    whose = f"party '{owner}'" if flag.startswith("--party ") else f"character '{owner}'"
                    diags.extend(replace(d, message=f"{d.message} (for {whose})") for d in exc.diagnostics)
                else:
                    diags.extend(exc.diagnostics)
        elif spec.default is not None:
            pass
        elif spec.name not in meant:
            diags.append(
                Diagnostic(
                    "RC401",
                    f"{kind} '{owner}' needs the {noun} '{spec.name}' ({describe(spec)})",
                    spec.span,
                    f"give it as {flag}{'' if flag.endswith(':') else ' '}{spec.name}=VALUE"
                    + _from_python(flag, spec.name),
                    advice=Advice("give", spec.name, kind),
                )
            )
    return diags


def written_for(d: Diagnostic, specs: Iterable[InputSpec], written: Mapping[str, Any]) -> tuple[Any, str]:
    """For an input refused by `d` (placed at the input's declaration among `specs`), the
    expression `written` gave it by name (an action's `roll: inputs:`, a scene step's `inputs:`),
    or None; and the words that name the declaration's place, for a message told at that
    expression instead (`state._given_by_action`, `play._given_by_step`)."""
    declared = {spec.span: spec.name for spec in specs if spec.span is not None}
    name = declared.get(d.span) if d.span is not None else None
    where = f", declared at {d.span.location()}" if d.span is not None and d.span.line else ""
    return (written.get(name) if name is not None else None), where


def input_names(owners: Mapping[str, Any], name: object) -> frozenset[str]:
    """The names of the inputs of the check (or action) called `name` among `owners`; none for a
    name they do not have, or no name at all (a caller's argument, of any type)."""
    found = owners.get(name) if type(name) is str else None
    return frozenset() if found is None else frozenset(spec.name for spec in found.inputs)


OWN_ARGUMENTS = frozenset(
    ("rng", "forced", "policy", "trace", "inputs", "method", "seed", "others", "character", "params")
)
"""The keyword arguments of the entry points that take inputs as keywords too (`Ruleset.roll`,
`sample`, `distribution`, `Campaign.act`, …), all of them: an input of one of these names is
told to be given in `inputs=`, as is one whose name Python reserves (`class`, `lambda`). One set
for every entry point, since a message does not know which one was called: `inputs=` takes any
name at all of them, where `seed=` is the seed of `Campaign.act` though an input of
`Ruleset.roll`."""


def by_keyword(name: str) -> bool:
    """Whether an input of this name can be given from Python as `name=VALUE`."""
    return name.isidentifier() and not keyword.iskeyword(name) and name not in OWN_ARGUMENTS


def _from_python(flag: str, name: str) -> str:
    """The Python way to give what the command line's `flag` gives, after its hint: an embedder
    reads the same message (the HTTP API words the advice its own way, `serve.advice`)."""
    if flag == "--input":
        way = f"{name}=VALUE" if by_keyword(name) else f"inputs={{'{name}': VALUE}}"
    elif flag == "--param":
        way = f"params={{'{name}': VALUE}}"
    elif flag.startswith("--party ") and flag.endswith(":"):
        way = f"parties={{'{flag[len('--party ') : -1]}': {{'{name}': VALUE}}}}"
    elif flag.endswith(":"):  # a character's, after its name
        way = f"params={{'{name}': VALUE}}"
    else:
        return ""
    return f" ({way} from Python)"


def describe(spec: InputSpec) -> str:
    """The allowed values of an input, in words."""
    if spec.kind == "list":
        lo, hi = spec.min_length, spec.max_length
        size = f"{lo} to {hi}" if lo != hi else f"{lo}"
        element = describe(replace(spec, kind=spec.of or "int"))
        return f"a list of {size} numbers, each {element}, written like 3,1,2"
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


def _bad(spec: InputSpec, value: Any, why: str, code: str = "RC404", noun: str = "input") -> InputError:
    return InputError(
        [
            Diagnostic(
                code,
                f"{noun} '{spec.name}' = {shown(value)} {why}",
                spec.span,
                f"'{spec.name}' is {describe(spec)}",
            )
        ]
    )


def coerce(spec: InputSpec, value: Any, noun: str = "input") -> Any:
    """One value of an input (or of a campaign's or character's parameter: `noun` names what it
    is in messages), typed and range-checked, or an `InputError`."""
    return _coerce(spec, value, noun)


_TRUTH = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}
"""The words a true/false input is given in (any case), and what each means."""


def _coerce(spec: InputSpec, value: Any, noun: str = "input") -> Any:
    if spec.kind == "list":
        return _coerce_list(spec, value, noun)
    if spec.scale is not None:
        name = getattr(value, "name", value)
        if isinstance(name, str):  # text as the command line's `--input` reads it, spaces aside
            name = name.strip()
        if isinstance(name, str) and spec.scale.has(name):
            return spec.scale[name]
        hint = did_you_mean(name, spec.scale.names) if isinstance(name, str) else None
        raise InputError(
            [
                Diagnostic(
                    "RC404",
                    f"{noun} '{spec.name}' = {shown(value)} is not one of the choices",
                    spec.span,
                    hint or f"'{spec.name}' is {describe(spec)}",
                )
            ]
        )
    if spec.kind == "bool":  # read as the command line's `--input` reads it: 1 and "1" alike
        if isinstance(value, bool):
            return value
        if isinstance(value, numbers.Integral) and value in (0, 1):
            return int(value) == 1  # Python's true, not NumPy's `value == 1`
        if scalar_bool(value):  # NumPy's true/false, which is no `numbers` type
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in _TRUTH:
            return _TRUTH[value.strip().lower()]
        raise _bad(spec, value, "is not true or false", noun=noun)
    number: int | Fraction
    if type(value) is int:  # the usual case, taken first: `isinstance(x, Fraction)` asks an ABC
        number = value
        if abs(number) >= _TOO_LONG:
            raise _bad(spec, value, f"has more than {MAX_DIGITS} digits", noun=noun)
    elif isinstance(value, bool):
        raise _bad(spec, value, "is not a number", noun=noun)
    elif isinstance(value, numbers.Rational):  # an int subclass, a Fraction, NumPy's integers
        number = Fraction(int(value.numerator), int(value.denominator))
        if max(abs(number.numerator), number.denominator) >= 10**MAX_DIGITS:
            raise _bad(spec, value, f"has more than {MAX_DIGITS} digits", noun=noun)
    elif isinstance(value, Numeral):  # a JSON number: its text, read as `--input` reads it
        number = _numeral(spec, value, value.text, noun)
    elif isinstance(value, numbers.Real):  # a float, NumPy's floats
        if not math.isfinite(value):
            raise _bad(spec, value, "is not a finite number", noun=noun)
        # read as written: its shortest text (`str` of a float, 0.1 of NumPy's float32 0.1);
        # 1e308 is 309 digits, 1e-300 a denominator of 301
        read = None if isinstance(value, float) else parse_number(str(value))
        number = read if read is not None else as_written(float(value))
        if max(abs(number.numerator), number.denominator) >= 10**MAX_DIGITS:
            raise _bad(spec, value, f"has more than {MAX_DIGITS} digits", noun=noun)
    elif isinstance(value, str):
        number = _numeral(spec, value, value, noun)
    elif isinstance(value, numbers.Number) and not scalar_bool(value):
        # a Decimal, a complex: a number, of a kind not taken (it was "is not a number": hunt 13k)
        taken = "an int, a Fraction, a float or its text"
        raise _bad(
            spec, value, f"is a {type(value).__name__}, not a kind of number taken ({taken})", noun=noun
        )
    else:
        raise _bad(spec, value, "is not a number", noun=noun)
    if type(number) is not int:
        number = normalize(number)
    if spec.kind == "int" and not isinstance(number, int):
        raise _bad(spec, value, "is not a whole number", noun=noun)
    if spec.minimum is not None and number < spec.minimum:
        raise _bad(spec, value, f"is below its minimum {spec.minimum}", "RC403", noun)
    if spec.maximum is not None and number > spec.maximum:
        raise _bad(spec, value, f"is above its maximum {spec.maximum}", "RC403", noun)
    return number


def _numeral(spec: InputSpec, value: Any, text: str, noun: str) -> int | Fraction:
    """The number `text` writes (`value` is what was given, as a message shows it)."""
    parsed = parse_number(text)
    if parsed is None:
        # a decimal past the digits read (1e400, 5e-324, 101 nines) is a number, too long
        why = f"has more than {MAX_DIGITS} digits" if _DECIMAL.fullmatch(text.strip()) else "is not a number"
        raise _bad(spec, value, why, noun=noun)
    # `1e100` is a digit and an exponent, but 101 digits once read, as `10**100` is: kept,
    # no stored state holding it could be read again (hunt 13g)
    read = Fraction(parsed)
    if max(abs(read.numerator), read.denominator) >= _TOO_LONG:
        raise _bad(spec, value, f"has more than {MAX_DIGITS} digits", noun=noun)
    return parsed


def as_written(value: float) -> int | Fraction:
    """A finite float as its shortest text reads it (0.1 is 1/10, not the binary float nearest
    it): the one reading of a decimal written for a number, a value given and a ruleset's bound
    alike (a bound kept as the float had `min: 0.1` refuse 0.1 as below its minimum 0.1, found
    by a hunt)."""
    return normalize(Fraction(str(value)))


def whole(value: Any) -> int | None:
    """`value` as the `int` it is: an `int`, or another `numbers.Integral` (NumPy's integers);
    None for anything else, true and false among them (Python's, NumPy's are no `Integral`)."""
    if type(value) is int:
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    return None


def forced_face(given: Any, faces: Collection[int]) -> int | None:
    """The face `given` forces on a die of `faces`: a whole number (`whole`) that is one of
    them; None for anything else (text "3", 1.0 and true are no face). The one rule of a roll's
    forced faces (`eval.sample`) and of an example's, checked when the ruleset loads
    (`compiler.given`)."""
    face = given if type(given) is int else whole(given)
    return face if face is not None and face in faces else None


def in_bag(name: Any, k: int, left: Mapping[str, int]) -> bool:
    """Whether a bag that holds `left` of each colour yields `k` chits `name` (drawn without
    putting them back): the one rule of a roll's forced chits (`eval.sample`, one at a time)
    and of an example's, checked when the ruleset loads (`compiler.given`, each colour's
    count). A chit is named by text: anything else (a list, a mapping, which no bag could be
    asked for) is in no bag."""
    return isinstance(name, str) and left.get(name, 0) >= k


def listed(value: Any) -> list[Any] | None:
    """The items of a list a caller gives from Python: a list, a tuple, or a NumPy array of one
    dimension (its own scalars, read as the language reads each); None for anything else."""
    if isinstance(value, (list, tuple)):
        return list(value)
    if getattr(value, "ndim", None) == 1 and callable(getattr(value, "tolist", None)):
        # its own scalars, each read as one given alone is (`tolist` made a float32 0.1 Python's
        # float 0.10000000149011612, where numpy.float32(0.1) reads as 1/10)
        return list(value)
    return None


def _coerce_list(spec: InputSpec, value: Any, noun: str = "input") -> Multi:
    """A list input: a sequence of numbers or text like `3,1,2` (`[]` or nothing: empty), each
    element checked as the element kind, the length within its bounds; sorted into a `Multi`."""
    raw = listed(value)
    if raw is not None:  # a list, a tuple or a NumPy array
        pass
    elif isinstance(value, Multi):
        raw = list(value.items)
    elif isinstance(value, str):
        text = value.strip().removeprefix("[").removesuffix("]").strip()
        if len(text) > 4 * MAX_DIGITS * (spec.max_length or 1) + 100:
            raise _bad(spec, value, "is too long", noun=noun)
        raw = [t.strip() for t in text.split(",")] if text else []
    elif isinstance(value, numbers.Real) and not isinstance(value, bool):
        raw = [value]  # one number is a list of one
    else:
        raise _bad(spec, value, "is not a list of numbers", noun=noun)
    hi = spec.max_length
    if len(raw) < spec.min_length or (hi is not None and len(raw) > hi):
        raise _bad(spec, value, f"has {len(raw)} elements, not {spec.min_length} to {hi}", "RC403", noun)
    element = replace(spec, kind=spec.of or "int")
    return Multi(tuple(sorted(_coerce(element, v, noun) for v in raw)))
