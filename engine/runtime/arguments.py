"""Checking the arguments a Python caller passes, at the public API's edge.

A misused entry point should fail where it was called, in the caller's words: a `TypeError`
whose sentence names the argument and what it must be, or a `RulecraftError` (an unknown name
with the nearest known one; a value out of its range) — never an `AttributeError` or `KeyError`
from deep inside an evaluator. Every public entry point checks its arguments with these few
functions, so the wording is the same everywhere. A number (a bound, a seed, seconds) may be
NumPy's, as an input's value may: it is returned as the Python number it is, to be kept and
shown as one given so (`whole`, `seed`, `seconds`).
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, NoReturn

from ..errors import Diagnostic, InputError, RulecraftError, did_you_mean, digits
from ..frozen import replace
from .inputs import whole as integral

_KIND_WORDS = {
    str: "a str",
    int: "a whole number (int)",
    float: "a number",
    bool: "True or False",
    dict: "a mapping (dict)",
    Mapping: "a mapping (dict)",
}


def _words(kinds: tuple[type, ...]) -> str:
    """What a value of `kinds` is, in words: a type without its own words is named with the article
    its first letter takes ("an Event", not "a Event")."""
    return " or ".join(_KIND_WORDS.get(k, f"{_article(k.__name__)} {k.__name__}") for k in kinds)


def _article(word: str) -> str:
    """'an' before a vowel's letter, else 'a' (by the letter: type names are not read aloud)."""
    return "an" if word[:1].lower() in "aeiou" else "a"


class ArgumentTypeError(TypeError):
    """An argument of the wrong type, with its name, so a caller whose check has an input of that
    name can say how the input is given (`meant_as_input`)."""

    def __init__(self, message: str, argument: str) -> None:
        super().__init__(message)
        self.argument = argument

    def __reduce__(self) -> tuple[type[ArgumentTypeError], tuple[str, str]]:
        return (ArgumentTypeError, (str(self), self.argument))  # to a worker's parent and back whole


def wrong_type(where: str, argument: str, value: Any, wanted: str) -> NoReturn:
    """Raise the `TypeError` that names the argument, what it must be and what it was."""
    shown = f"{type(value).__name__} {value!r}"[:60]
    raise ArgumentTypeError(f"{where}: argument '{argument}' must be {wanted}, not {shown}", argument)


@contextmanager
def meant_as_input(kind: str, name: object, inputs: Callable[[], Collection[str]]) -> Iterator[None]:
    """An argument of the wrong type whose name is also one of the check's (or action's) inputs
    was most likely meant for that input (`trace=6` for an input `trace`): the `TypeError` says
    how an input of that name is given, as the hint of an unknown policy (RC408) does where there
    is an input `policy` (`policy="bold"` for a choice input). `inputs` is asked only then, and
    only for a known name."""
    try:
        yield
    except ArgumentTypeError as e:
        if e.argument not in inputs():
            raise
        way = f"inputs={{'{e.argument}': ...}}"
        raise ArgumentTypeError(
            f"{e}; {kind} '{name}' has an input named '{e.argument}': give it as {way}", e.argument
        ) from None
    except InputError as e:  # a policy of the right type that is no policy: RC408
        first, *rest = e.diagnostics
        if first.code != "RC408" or "policy" not in inputs():
            raise
        also = f"{kind} '{name}' has an input named 'policy': give it as inputs={{'policy': ...}}"
        hint = f"{first.hint}; {also}" if first.hint else also
        raise InputError([replace(first, hint=hint), *rest]) from None


def of_type(
    where: str, argument: str, value: Any, kinds: type | tuple[type, ...], *, optional: bool = False
) -> None:
    """`value` is one of `kinds` (or None when `optional`); True and False are never numbers."""
    wanted = kinds if isinstance(kinds, tuple) else (kinds,)
    if value is None and optional:
        return
    is_bool = isinstance(value, bool) and bool not in wanted
    if is_bool or not isinstance(value, wanted):
        wrong_type(where, argument, value, _words(wanted) + (" or None" if optional else ""))


def name(where: str, argument: str, value: Any, *, optional: bool = False) -> None:
    """A name (of a check, an outcome, a scene, …) is a `str`."""
    of_type(where, argument, value, str, optional=optional)


KEPT_NAME_MOST = 100
"""The longest name a campaign or a character may be given (in characters)."""


_ODD = {"Cc": "a control character", "Cs": "a lone surrogate", "Zl": "a line break", "Zp": "a line break"}


_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Embeddings, overrides and isolates: they reorder the text after them wherever it is shown (a
name beginning with U+202E showed the names listed after it reversed), unlike a direction mark."""


_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols that show as blank space (Hangul fillers, the blank braille pattern): no
name of them alone shows (a review)."""


_JOINERS = frozenset("\u200c\u200d")
"""The zero-width non-joiner and joiner: between two letters of a script that joins (Persian,
the Indic scripts) or two emoji (a family: 👨\u200d👩\u200d👧) they change what shows; between two
ASCII letters they show as nothing."""
_TAGS = range(0xE0020, 0xE0080)
"""Tag characters: the letters of a subdivision's flag after U+1F3F4 (🏴 and the tags of 'gbeng')."""


def _invisible(text: str, i: int) -> bool:
    """Whether the format character (Cf) at `text[i]` shows as nothing, so that a name holding it
    looks like one without it: all but a joiner between two characters past ASCII that show, and
    the tags of a flag (a hunt: `case\u200b`, `ca\u00adse`, `c\u200dase` and `case\u200f` were
    four more campaigns that all showed as 'case')."""
    c = text[i]
    if c in _JOINERS:
        before, after = text[i - 1 : i], text[i + 1 : i + 2]
        return not (before and after and all(x > "\x7f" and x.isprintable() for x in (before, after)))
    if ord(c) in _TAGS:
        j = i
        while j > 0 and ord(text[j - 1]) in _TAGS:
            j -= 1
        return not (j > 0 and text[j - 1] == "\U0001f3f4")
    return True


def _unprintable(text: str) -> str | None:
    """What is wrong with `text` as a name shown and stored, said in words: the first character no
    terminal, log line or UTF-8 store takes as it is, or one that shows as nothing (`_invisible`);
    None when there is none. Spaces other than ' ' are text like any other, but not a name of
    them alone, which shows as nothing (found by a hunt)."""
    import unicodedata

    seen = False  # a character that shows
    for i, c in enumerate(text):
        kind = _ODD.get(category := unicodedata.category(c))
        if kind is None and c in _BIDI_CONTROLS:
            kind = "a direction override"
        if kind is None and category == "Cf" and _invisible(text, i):
            kind = "a character that shows as nothing, so the name would look like another"
        if kind is not None:
            return f"holds {kind} ({ascii(c)})"
        seen = seen or (category not in ("Cf", "Zs", "Mn", "Me") and c not in _BLANK)
    return None if seen else "shows nothing (only spaces, marks or format characters)"


def kept_name(where: str, argument: str, value: Any, what: str) -> None:
    """A name a campaign keeps (its own, a character's): one it can print, store and put in a
    URL path — 1 to `KEPT_NAME_MOST` characters, none a control character, a line break, a lone
    surrogate (which no UTF-8 store can take) or a direction override, some that show, no space at
    either end, no '/', not '.' or '..', written in Unicode's composed form (NFC).
    A wrong one is an `InputError` RC410 that says which rule it breaks, in words that name no
    Python function (`where` names the one called only in a `TypeError`, a Python caller's alone):
    a server answers it to an HTTP client and the command line prints it as it is. A name kept
    before this rule is still opened as it is."""
    name(where, argument, value)
    import unicodedata

    problem = hint = None
    if not value:
        problem = "is empty"
    elif len(value) > KEPT_NAME_MOST:
        problem = f"is {len(value)} characters long (at most {KEPT_NAME_MOST})"
    elif (odd := _unprintable(value)) is not None:
        problem = odd
    elif value != value.strip():
        problem = "begins or ends with a space"
    elif "/" in value:
        problem = "holds a '/' (a name is part of the HTTP API's paths)"
    elif value in (".", ".."):  # a URL's path reads them as "here" and "up": no path reaches them
        problem = "is a path step ('.' or '..'), which an HTTP API path cannot hold as a name"
    elif (composed := unicodedata.normalize("NFC", value)) != value:
        # 'é' typed as one character or as 'e' and a combining accent shows alike: two names
        # that look the same must not be two campaigns (a hunt), so a kept name is composed
        problem = (
            f"is not in Unicode's composed form (NFC): {ascii(value[:40])} composes to"
            f" {ascii(composed[:40])}, which looks the same"
        )
        hint = f"write it composed, {composed!r}: a name that looks the same is then the same {what}"
    if problem is not None:
        # repr, not ascii: a name in any script shows as written (what cannot show is escaped)
        shown = repr(value[:40]) + ("..." if len(value) > 40 else "")
        raise InputError(
            [
                Diagnostic(
                    "RC410",
                    f"the {what}'s name {shown} {problem}",
                    None,
                    hint
                    or f"give the {what} a name of 1 to {KEPT_NAME_MOST} printable characters, without '/'"
                    " (and not '.' or '..')",
                )
            ]
        )


def mapping(
    where: str,
    argument: str,
    value: Any,
    *,
    optional: bool = True,
    of_mappings: bool = False,
    of_names: bool = False,
) -> None:
    """A mapping with `str` keys (None allowed when `optional`); with `of_mappings`, each of its
    values is a mapping too (a party's or a character's parameters); with `of_names`, each is a
    name (`str`: the character who plays a role or a party, where None or a list had ended in
    Python's own TypeError from deep inside a hint: hunt 13g)."""
    if value is None and optional:
        return
    if not isinstance(value, Mapping):
        wrong_type(where, argument, value, "a mapping (dict)" + (" or None" if optional else ""))
    for key, item in value.items():
        if not isinstance(key, str):
            raise TypeError(f"{where}: argument '{argument}' has a key {key!r}; its keys are names (str)")
        if of_mappings and not isinstance(item, Mapping):
            wrong_type(where, f"{argument}[{key!r}]", item, "a mapping (dict) of parameters")
        if of_names and not isinstance(item, str):
            wrong_type(where, f"{argument}[{key!r}]", item, "a character's name (str)")


def inputs(
    where: str, given: Any, named: dict[str, Any], argument: str = "inputs", what: str = "input"
) -> dict[str, Any]:
    """A check's or an action's inputs given in a mapping (`inputs=`, which takes any name, even
    one of the method's own parameters, such as `rng` or `policy`) and as keyword arguments
    (`named`), as one new dict (so a caller's later change to its mapping changes nothing kept).
    A name given both ways is a `TypeError`, as Python's own for an argument given twice. (A
    character's parameters, `params=`, likewise: `argument` and `what` name them.)"""
    mapping(where, argument, given)
    for key in given:
        if key in named:
            raise TypeError(
                f"{where}: argument {argument!r} gives the {what} {key!r}, which is given as a keyword"
                f" argument too; give each {what} once"
            )
    return {**named, **given}


def names(where: str, argument: str, value: Any) -> None:
    """A list or tuple of names; a bare `str` is refused (it would be read letter by letter)."""
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        wrong_type(where, argument, value, "a list or tuple of str")
    for item in value:
        if not isinstance(item, str):
            wrong_type(where, argument, item, "a list or tuple of str")


def _real(value: Any) -> int | float | None:
    """`value` as the Python number it is, as an input's value is read: an `int` for a whole number
    (`integral`, `inputs.whole`: NumPy's integers too, never true or false), a `float` for a float
    (Python's, or a `numbers.Real` that is no `Rational`, NumPy's floats, read through its shortest
    text); None for anything else (a `Fraction`, an array, NumPy's true and false). Through the
    `numbers` ABCs NumPy registers its scalars with: the engine imports no NumPy of its own."""
    found = integral(value)
    if found is not None or isinstance(value, bool):
        return found
    if isinstance(value, float):
        return float(value)
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Rational):
        # by its shortest text, as an input is: NumPy's float32 0.1 is 0.1, not 0.10000000149011612
        try:
            return float(str(value))
        except ValueError:
            return float(value)
    return None


def whole(
    where: str, argument: str, value: Any, *, least: int = 0, most: int | None = None, what: str = "argument"
) -> int:
    """A whole number (never a bool; NumPy's integers too, `integral`) of at least `least` (and at
    most `most`), returned as Python's `int`: a wrong kind is a `TypeError`, a value out of the
    range an `InputError` RC410, which names the argument as `what` it is (`the limit
    'max_work'`) and no Python name: the command line prints it as it is (`--limit max_work=-1`)."""
    read = integral(value)
    if read is None:
        wrong_type(where, argument, value, _words((int,)))
    if read < least:
        shown = _number(read)
        raise InputError(
            [Diagnostic("RC410", f"the {what} '{argument}' must be at least {least}, got {shown}", None)]
        )
    if most is not None and read > most:
        shown = _number(read, grouped=True)
        raise InputError(
            [Diagnostic("RC410", f"the {what} '{argument}' must be at most {most:,}, got {shown}", None)]
        )
    return read


def _number(n: int, *, grouped: bool = False) -> str:
    """A whole number a message shows: as it is below 10**30 in size (`grouped`: in thousands,
    `20,000,000`), else by its length (Python writes none of more than 4,300 digits, and one of
    401 is no help to read)."""
    if abs(n) < 10**30:
        return f"{n:,}" if grouped else str(n)
    return f"a{' negative' if n < 0 else ''} number of {digits(n)} digits"


SEED_RULE = "a seed is a whole number, at least 0"
"""What a seed may be, on every way in: the command line's `--seed`, a campaign's `seed=`, the
server's `seed`."""


SEED_MOST_DIGITS = 4300
"""The most digits a seed may have: Python writes no longer whole number as text, so an event's
JSON could not keep one (SQLite refused it, the memory store kept it and its export failed)."""


def seed_problem(value: int) -> str | None:
    """What is wrong with a whole number as a seed, or None. `random.Random` seeds by a number's
    absolute value, so -7 would roll exactly what 7 rolls: a negative seed is refused rather than
    taken for another seed (every seed of 0 or more rolls as it always did). A seed is kept in its
    event, so it is no longer than JSON can be written with (`SEED_MOST_DIGITS`)."""
    if digits(value) > SEED_MOST_DIGITS:
        return (
            f"a seed has at most {SEED_MOST_DIGITS:,} digits (the largest is 10**{SEED_MOST_DIGITS} - 1),"
            f" got {_number(value)}"
        )
    if value < 0:
        return f"{SEED_RULE}, got {value} (-{-value} would roll what {-value} rolls)"
    return None


def seed(where: str, value: Any, *, code: str = "RC410") -> int | None:
    """A seed: None (one is drawn) or a whole number (never a bool; NumPy's integers too, returned
    as Python's `int`, which an event's JSON can hold) of at least 0 (`seed_problem`): a wrong kind
    is a `TypeError`, a negative one an `InputError` (`code`: RC410 from Python, RC407 from the
    command line or a request), worded with no Python name, as `whole` words its own)."""
    if value is None:
        return None
    read = integral(value)
    if read is None:
        wrong_type(where, "seed", value, _words((int,)) + " or None")
    problem = seed_problem(read)
    if problem is not None:
        hint = f"give a seed from 0 up to 10**{SEED_MOST_DIGITS} - 1"
        raise InputError([Diagnostic(code, problem, None, hint)])
    return read


def seconds(
    where: str,
    argument: str,
    value: Any,
    *,
    optional: bool = True,
    what: str = "argument",
    none_is: str = "no wall-clock bound",
) -> int | float | None:
    """A finite number of seconds, at least 0 (None allowed when `optional`, and `none_is` what
    None means, for the hint), returned as Python's `int` or `float` (NumPy's as `_real` reads
    them); RC410 words it as `whole` does."""
    if value is None and optional:
        return None
    read = _real(value)
    if read is None:
        wrong_type(where, argument, value, "a number of seconds (an int or a float)")
    try:
        finite = math.isfinite(read)
        large = False
    except OverflowError:  # a whole number past a float's range: no clock can add it
        finite, large = False, True
    if not finite or read < 0:
        shown = _number(read) if isinstance(read, int) else repr(read)
        said = (
            f"is too large a number of seconds for a clock (at most {sys.float_info.max:.3g}), got {shown}"
            if large and read > 0
            else f"must be a finite number of seconds, at least 0, got {shown}"
        )
        raise InputError(
            [
                Diagnostic(
                    "RC410",
                    f"the {what} '{argument}' {said}",
                    None,
                    f"leave it None for {none_is}" if optional else None,
                )
            ]
        )
    return read if read else abs(read)  # -0.0 as 0.0: "more than -0 s" was told of a wait (hunt 13zf)


def unknown(
    kind: str,
    given: str,
    known: Iterable[str],
    owner: str,
    *,
    code: str,
    error: type[RulecraftError] = InputError,
) -> RulecraftError:
    """The error for a name that is not one of `known`: the nearest one, or the whole list."""
    options = list(known)
    hint = did_you_mean(given, options) or (
        f"{kind}s: {', '.join(options)}" if options else f"it has no {kind}s"
    )
    return error([Diagnostic(code, f"{owner} has no {kind} {given!r}"[:160], None, hint)])


def having(where: str, argument: str, value: Any, attributes: tuple[str, ...], wanted: str) -> None:
    """An object that offers `attributes` (a store, a compiled model): said as `wanted` if not."""
    if value is None or not all(hasattr(value, a) for a in attributes):
        wrong_type(where, argument, value, wanted)


def callable_(where: str, argument: str, value: Any, *, optional: bool = False) -> None:
    """A function (None allowed when `optional`)."""
    if value is None and optional:
        return
    if not callable(value):
        wrong_type(where, argument, value, "a function" + (" or None" if optional else ""))
