"""Stage 2 — validate: the document against `schemas/ruleset.schema.json`.

jsonschema works on plain data and reports JSON paths; we map each path back to the line and
column the loader recorded, and word the common failures for authors rather than for schema
writers.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from collections.abc import Set as AbstractSet
from contextvars import ContextVar
from fractions import Fraction
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError, best_match

from ..errors import PROBABILITY_HINT, Diagnostic, SchemaError, clipped, did_you_mean, shown
from ..frozen import replace
from .clock import SCHEMA_STEPS, Clock
from .document import YAML11_HINT, YAML11_SAID, Document
from .faces import NO_FACES, no_faces_hint, too_many_faces
from .input_keys import input_takes
from .names import NAME_PATTERN, NAME_RULE, RULESET_NAME_PATTERN, name_rule
from .notation import DICE, MODIFIED, PLUS_MINUS, sides
from .positions import Span, decimal_text
from .resources import schema_path


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The ruleset JSON Schema (draft 2020-12)."""
    loaded: dict[str, Any] = json.loads(schema_path().read_text(encoding="utf-8"))
    return loaded


MESSAGES: dict[str, str] = {
    "/$defs/rules/items": "a rule row has either `when` and `then`, or `else` alone",
    "/$defs/table": "a table has exactly one body: `rules`, `cases` or `value`",
    "/$defs/randomizer": "a roll entry is a die (`die`, optionally with `triggers`, `cap`), a pool (`pool`"
    " with `die`, `each`, `triggers`, `cap` or `each_die`) or a draw (`draw` with `count`), each"
    " optionally with `redraw`",
    "/$defs/trigger": "a trigger has `on` and exactly one of `may` or `must` (reroll or add)",
    "/$defs/redraw": "a redraw has exactly one of `may` or `must`, and optionally `times`",
    "/$defs/example/properties/expect": "an example expects at least one of `outcome`, `values`,"
    " `probability` and `mean`: an empty `expect` checks nothing",
    "/$defs/example/properties/expect/properties/values": "name at least one value or output, or remove"
    " `values`: an empty `values` checks nothing",
    "/$defs/example/properties/expect/properties/mean": "name at least one value or output, or remove"
    " `mean`: an empty `mean` checks nothing",
    "/$defs/example/properties/expect/properties/probability": "name at least one outcome, or remove"
    " `probability`: an empty `probability` checks nothing",
    "/$defs/example/properties/expect/properties/probability/additionalProperties/oneOf/1": "bounds name"
    " `at_least`, `at_most` or both: an empty mapping checks nothing",
    "/properties/state/properties/examples/items/properties/expect": "name at least one item under"
    " `shared` or `characters`, or remove `expect`: an empty `expect` checks nothing",
    "/properties/state/properties/examples/items/properties/expect/properties/shared": "name at least"
    " one item, or remove `shared`: an empty `shared` checks nothing",
    "/properties/state/properties/examples/items/properties/expect/properties/characters": "name at"
    " least one character, or remove `characters`: an empty `characters` checks nothing",
    "/properties/state/properties/examples/items/properties/expect/properties/characters"
    "/additionalProperties": "name at least one of the character's items, or remove the character: an"
    " empty mapping checks nothing",
}
"""The engine's own words for a subschema's failure, by the subschema's JSON pointer in the
shipped schema. They live here, not in the schema, so that the file strangers validate with holds
only Draft 2020-12's keywords (a strict validator, as Ajv's default, refuses one it does not
know); tests/test_schema_standard.py holds every pointer to a subschema that is there."""

_PROBABILITY = "/$defs/probability"
_EXPECTED_P = "/$defs/example/properties/expect/properties/probability/additionalProperties"
NUMBER_TEXT = (
    "/$defs/probability/oneOf/0",
    "/$defs/example/properties/expect/properties/mean/additionalProperties/oneOf/0",
)
"""The subschemas of an example's probability (a number, text or bounds), and those of a number
written as text, which the engine words itself rather than as the forms they list."""


def resolve(pointer: str) -> Any:
    """The subschema at a JSON pointer of the shipped schema (KeyError, IndexError when none)."""
    node: Any = schema()
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


_WORDED = frozenset((*MESSAGES, _PROBABILITY, _EXPECTED_P, *NUMBER_TEXT))


@lru_cache(maxsize=1024)
def pointer_of(path: tuple[str | int, ...]) -> str | None:
    """The JSON pointer, in the shipped schema, of the subschema whose keyword is the last of a
    validation error's `absolute_schema_path` (None when the path is not the schema's). jsonschema
    writes no `$ref` into the path: where a step is not a key of a subschema that refers, it is one
    of the subschema referred to, and the pointer goes on from there. Read from the path alone, not
    from the subschema's identity, the words hold for a validator made from a copy of the schema."""
    node: Any = schema()
    pointer = ""
    for i, part in enumerate(path):
        while isinstance(node, dict) and part not in node and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if not ref.startswith("#/"):
                return None
            pointer, node = ref[1:], resolve(ref[1:])
        if i == len(path) - 1:  # the keyword that failed, of the subschema reached
            break
        if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        elif isinstance(node, dict) and isinstance(part, str) and part in node:
            node = node[part]
        else:
            return None
        pointer += "/" + str(part).replace("~", "~0").replace("/", "~1")
    return pointer


def _at(error: ValidationError) -> str | None:
    """The JSON pointer of the subschema an error came from, if it is one the engine words."""
    at = pointer_of(tuple(error.absolute_schema_path))
    return at if at in _WORDED else None


def _custom(error: ValidationError) -> str | None:
    """The engine's message for the subschema an error came from, if it has one (`MESSAGES`)."""
    at = _at(error)
    return MESSAGES.get(at) if at is not None else None


def _pattern(
    validator: Any, pattern: str, instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    """`pattern` as JSON Schema means it (ECMA-262): `$` is the end of the text — Python's `re`
    also lets it match before a final newline, which would let `"name\\n"` through. A key that is
    not text (`1:` where a name belongs) is not a name either; where the schema asks for text
    (`type: string`), the type check already says so."""
    if isinstance(instance, str):
        if not re.search(_ecma(pattern), instance):
            yield ValidationError(f"{instance!r} does not match {pattern!r}")
    elif "type" not in schema and not isinstance(instance, bool):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


@lru_cache(maxsize=64)
def _ecma(pattern: str) -> re.Pattern[str]:
    return re.compile(
        pattern[:-1] + r"\Z" if pattern.endswith("$") and not pattern.endswith("\\$") else pattern
    )


_CLOCK: ContextVar[Clock | None] = ContextVar("rulecraft_schema_clock", default=None)
"""The clock of the load being checked in this thread (`validate(clock=)`): the validator is
one for the process, shared by a server's threads."""


_PROPERTIES = Draft202012Validator.VALIDATORS["properties"]


def _properties(
    validator: Any, properties: dict[str, Any], instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    """`properties` as jsonschema checks it, counted on the load's clock, if any: every mapping
    checked passes here (a check, an input, an effect), so a large text's check reads it often."""
    clock = _CLOCK.get()
    if clock is not None:
        clock.tick(SCHEMA_STEPS)
    yield from _PROPERTIES(validator, properties, instance, schema)


@lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    """The validator of the shipped schema. The schema is not checked against the metaschema
    here — that took 0.1–0.2 s of every fresh process — but by the test suite
    (`tests/test_cli.py`), once, as the shipped file it is."""
    s = schema()
    checker = validators.extend(  # type: ignore[no-untyped-call]
        Draft202012Validator, {"pattern": _pattern, "properties": _properties}
    )
    made: Draft202012Validator = checker(s)
    return made


def validate(doc: Document, clock: Clock | None = None) -> None:
    """Raise `SchemaError` listing every shape problem of the document, in file order.

    Every unknown key of a mapping is said, each at its own key. A misspelt key is said once, as
    the unknown key ("did you mean 'outcome'?"): the missing required key it stands for
    (`RC101`), or the form it would have made (`RC105`), is its consequence and is not said
    again. A `clock` (a load under a deadline) is read as mappings are checked: past the
    deadline, its `DeadlineError`."""
    token = _CLOCK.set(clock)
    try:
        errors = list(_validator().iter_errors(doc.data))
    finally:
        _CLOCK.reset(token)
    slips = _misspellings(errors, lambda at, key: (doc.boolean_key(at + (key,)) or "").lower())
    # a value of the wrong kind is said once, as that: the forms it fits none of say it again
    typed = {tuple(e.absolute_path) for e in errors if e.validator == "type"}
    errors = [
        e for e in errors if not (e.validator in ("oneOf", "anyOf") and tuple(e.absolute_path) in typed)
    ]
    diags = [d for e in errors if not _explained(e, slips) for d in _diagnostics(doc, e, slips)]
    if diags:
        diags.sort(key=lambda d: (d.span.line if d.span else 0, d.span.col if d.span else 0))
        raise SchemaError(_dedupe(diags))


Slips = dict[tuple[Any, ...], dict[str, str]]
"""Per mapping (its path), each unknown key that is a misspelling of a required key it lacks,
and that key."""


def _walk(errors: list[ValidationError]) -> Iterator[ValidationError]:
    """Every error and, under each, the errors of the forms it tried (a oneOf's branches)."""
    for e in errors:
        yield e
        yield from _walk(list(e.context or ()))


def _missing(error: ValidationError) -> list[str]:
    """The key a `required` error finds missing (jsonschema makes one error per missing key,
    and names it in its message)."""
    if not isinstance(error.instance, dict) or not isinstance(error.validator_value, list):
        return []
    named = str(error.message).split("'")[1] if "'" in str(error.message) else None
    return [str(k) for k in error.validator_value if k not in error.instance and str(k) == named]


def _misspellings(errors: list[ValidationError], written: Callable[[tuple[Any, ...], Any], str]) -> Slips:
    """The unknown keys that stand for a required key missing from the same mapping (in any of
    the forms it was tried against): `outcom` where `outcome` is missing, `ay` where a trigger
    needs `may` or `must`, and a key written as the missing one but read as another (`on:`,
    which YAML 1.1 reads as `true`: `written` gives such a key's word in lower case, else '')."""
    missing: dict[tuple[Any, ...], set[str]] = {}
    unknown: list[ValidationError] = []
    for e in _walk(errors):
        if e.validator == "required":
            missing.setdefault(tuple(e.absolute_path), set()).update(_missing(e))
        elif e.validator == "additionalProperties":
            unknown.append(e)
    slips: Slips = {}
    for e in unknown:
        at = tuple(e.absolute_path)
        for key in _extra(e):
            lacking = missing.get(at, set())
            read_as = written(at, key)
            meant = read_as if read_as in lacking else _nearest(str(key), lacking)
            glued = _glued(str(key))
            if glued is not None and glued[0] in lacking:  # `{act:take_wound}`: the key `act` is there
                meant = glued[0]
            if meant is not None:
                slips.setdefault(at, {})[str(key)] = meant
    for e in unknown:
        at = tuple(e.absolute_path)
        extra = _extra(e)
        if len(extra) == 1 and str(extra[0]) not in slips.get(at, {}):
            meant = _short_for(e, extra[0], [f for f in errors if tuple(f.absolute_path) == at])
            if meant is not None:
                slips.setdefault(at, {})[str(extra[0])] = meant
    return slips


def _glued(key: str) -> tuple[str, str] | None:
    """A key and its value written with no space after the colon (`act:take_wound`), which a flow
    mapping reads as one key: the two, or None."""
    head, colon, rest = key.partition(":")
    if not colon or not head.strip() or not rest.strip() or rest[:1].isspace():
        return None
    return head.strip(), rest.strip()


def _short_for(error: ValidationError, key: Any, here: list[ValidationError]) -> str | None:
    """The key a mapping's one unknown `key` is short for, though too unlike it for a
    misspelling (`d` for `die`): the one key that some form of a oneOf/anyOf at the mapping
    (`here`) lacks alone, that starts with `key`'s letter, and whose schema takes `key`'s value
    (`{d: 6}` is a die: `draw` takes no number). None when no key, or more than one, is so."""
    props = _schema_of(error).get("properties", {})
    instance: Any = error.instance
    value = instance[key]
    found: set[str] = set()
    for e in here:
        if e.validator not in ("oneOf", "anyOf") or not e.context:
            continue
        forms: dict[Any, list[ValidationError]] = {}
        for f in e.context:
            forms.setdefault(f.relative_schema_path[0], []).append(f)
        for failed in forms.values():
            lacks = {k for f in failed if f.validator == "required" for k in _missing(f)}
            if len(lacks) == 1 and all(f.validator == "required" for f in failed):
                meant = next(iter(lacks))
                if (
                    meant[:1].lower() == str(key)[:1].lower()
                    and meant in props
                    and _validator().evolve(schema=props[meant]).is_valid(value)
                ):
                    found.add(meant)
    return found.pop() if len(found) == 1 else None


def _nearest(key: str, candidates: AbstractSet[str]) -> str | None:
    hint = did_you_mean(key, candidates) if candidates else None
    return hint.split("'")[1] if hint else None


def _extra(error: ValidationError) -> list[Any]:
    """The keys of an `additionalProperties` error's mapping that its schema does not have (as
    written: a number stays a number, so that its place is found)."""
    allowed = _schema_of(error).get("properties", {})
    instance = error.instance
    return [k for k in instance if k not in allowed] if isinstance(instance, dict) else []


def _explained(error: ValidationError, slips: Slips) -> bool:
    """Whether the error is only the consequence of a misspelt key: a required key missing that
    an unknown key of the same mapping stands for, or a oneOf/anyOf one of whose forms lacks only
    such keys."""
    at = tuple(error.absolute_path)
    meant = set(slips.get(at, {}).values())
    if not meant:
        return False
    if error.validator == "required":
        return bool(_missing(error)) and set(_missing(error)) <= meant
    if error.validator in ("oneOf", "anyOf") and error.context:
        forms: dict[Any, list[ValidationError]] = {}
        for e in error.context:
            forms.setdefault(e.relative_schema_path[0], []).append(e)
        return any(
            all(
                e.validator == "required" and tuple(e.absolute_path) == at and set(_missing(e)) <= meant
                for e in failed
            )
            for failed in forms.values()
        )
    return False


def _dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    """One diagnostic per mistake: the same message at the same line is said once (a value that
    aliases share is one place in the file, and its messages name it by its first path); told
    where it is written, not through an alias (`Span.through`), when it is wrong there too."""
    seen: dict[tuple[object, ...], int] = {}
    out: list[Diagnostic] = []
    for d in diags:
        key = (d.code, d.span.source.name if d.span else "", d.span.line if d.span else 0, d.message)
        at = seen.get(key)
        if at is None:
            seen[key] = len(out)
            out.append(d)
        elif d.span is not None and not d.span.through:  # wrong where it is written: no alias told
            out[at] = d
    return out


def _where(doc: Document, path: list[Any]) -> str:
    """The path named in a message: the first by which the file reaches the value, so that a
    mistake inside a value several aliases share is told the same for every use (and once)."""
    return doc.path_text(tuple(path)) or "the top level"


def _extra_keys(error: ValidationError) -> int:
    """How many keys of the mapping its schema does not have."""
    known = _schema_of(error).get("properties", {})
    return sum(k not in known for k in error.instance) if isinstance(error.instance, dict) else 0


def _same_kind(instance: Any, options: Any) -> bool:
    """Whether an enum of `options` is about values of `instance`'s kind (a mapping is never one
    of a list of names, so a oneOf's names do not explain a mapping)."""
    return not isinstance(options, list) or any(isinstance(instance, type(o)) for o in options)


def _exclusive(error: ValidationError) -> tuple[str, str] | None:
    """Two keys the mapping holds that one of its forms forbids together (`may` and `must`, a
    rule's `when` and `else`): the form says "this key, and not that one"."""
    if not isinstance(error.instance, dict):
        return None
    for form in _schema_of(error).get("oneOf", []):
        if not isinstance(form, dict) or not isinstance(form.get("not"), dict):
            continue
        needed, barred = form.get("required", []), form["not"].get("required", [])
        if needed and barred and all(k in error.instance for k in (*needed, *barred)):
            return needed[0], barred[0]
    return None


def _diagnostics(doc: Document, error: ValidationError, slips: Slips | None = None) -> list[Diagnostic]:
    """What one schema error says: one diagnostic, or one per unknown key of a mapping."""
    if (probability := _probability(doc, error, slips)) is not None:
        return probability
    if error.validator == "oneOf" and error.context and (pair := _exclusive(error)) is not None:
        # both of two keys that exclude each other: at the later one, which is most often the slip
        at = tuple(error.absolute_path)
        spans = sorted((doc.span((*at, k), key=True) for k in pair), key=lambda sp: (sp.line, sp.col))
        text = _custom(error) or _schema_of(error).get("description", error.message)
        return [
            Diagnostic(
                "RC105",
                f"{_where(doc, list(at))} has both '{pair[0]}' and '{pair[1]}': {text}",
                spans[-1],
                f"keep one of '{pair[0]}' and '{pair[1]}'",
            )
        ]
    if error.validator in ("oneOf", "anyOf") and error.context and (sides := _sides(doc, error)):
        return [sides]
    if error.validator in ("oneOf", "anyOf") and error.context:
        # Only the alternatives of the instance's own type explain it (an array is not a string).
        fitting = [
            e
            for e in error.context
            if (e.validator != "type" or len(e.absolute_path) > len(error.absolute_path))
            and not (e.validator == "enum" and not _same_kind(e.instance, e.validator_value))
        ]
        custom = _custom(error)
        if not fitting and not custom:
            # no form takes a value of this kind: every kind they take, where one form's was said
            # ("should be an array" of `outcomes: 3`, which a scale's name may be too: hunt 13m)
            here = [e for e in error.context if len(e.absolute_path) == len(error.absolute_path)]
            kinds = [
                str(t)
                for e in here
                if e.validator == "type"
                for t in (e.validator_value if isinstance(e.validator_value, list) else [e.validator_value])
            ]
            if kinds and all(e.validator == "type" for e in here):  # not a form of named words
                span = doc.span(tuple(error.absolute_path))
                where = _where(doc, list(error.absolute_path))
                said = f"{where} should be {_wanted(kinds)}, not {_kind(error.instance)}"
                one = _diagnostic(doc, best_match(error.context), list(error.absolute_path), span, where)
                return [Diagnostic("RC103", said, span, one.hint)]  # its hint: quote a decimal, ...
        # a misspelt key says most: of the forms that have one, the one it is nearest to
        unknown = [e for e in fitting if e.validator == "additionalProperties"]
        # an empty mapping is told as empty by the form of mappings, not as none of the forms
        empty = [e for e in fitting if e.validator == "minProperties" and e.instance == {}]
        if unknown:
            deeper = min(unknown, key=_extra_keys)
        else:
            deeper = empty[0] if empty else best_match(fitting or error.context)
        if (
            custom
            and len(deeper.absolute_path) <= len(error.absolute_path)
            and deeper.validator not in ("additionalProperties",)
        ):
            return [
                Diagnostic(
                    "RC105",
                    f"{_where(doc, list(error.absolute_path))}: {custom}",
                    doc.span(tuple(error.absolute_path)),
                )
            ]
        if len(deeper.absolute_path) > len(error.absolute_path) or deeper.validator in (
            "required",
            "additionalProperties",
            "type",
            "uniqueItems",
            "enum",
            "pattern",
            "minItems",
            "minProperties",
        ):
            told = _diagnostics(doc, deeper, slips)
            described = _schema_of(error).get("description")
            if (
                described
                and deeper.validator in ("enum", "additionalProperties")
                and deeper.absolute_path == error.absolute_path
            ):
                # the value fits none of its forms: the forms it may take, as the schema says them
                # (not for a mapping inside it, nor where the key meant is named already)
                return [
                    d
                    if deeper.validator == "additionalProperties" and (d.hint or "").startswith("did you")
                    else replace(d, hint=_then(d.hint, described))
                    for d in told
                ]
            return told
    path = list(error.absolute_path)
    span = doc.span(tuple(path))
    where = _where(doc, path)
    v = error.validator
    if v == "additionalProperties":
        return _unknown_keys(doc, error, slips or {})
    return [_diagnostic(doc, error, path, span, where)]


def _probability(doc: Document, error: ValidationError, slips: Slips | None) -> list[Diagnostic] | None:
    """An example's expected probability that is none (`2`, `-0.5`, `"x"`, `true`), told at the
    value as the compiler tells `"3/2"`, not as the forms it fits none of; of bounds
    (`{at_most: 2}`), what is wrong inside them: the mapping is bounds, not a probability."""
    at = _at(error)
    if at not in (_PROBABILITY, _EXPECTED_P) or error.validator != "oneOf":
        return None
    if at == _EXPECTED_P and isinstance(error.instance, dict):
        bounds = [e for e in error.context or () if e.relative_schema_path and e.relative_schema_path[0] == 1]
        return [d for e in bounds for d in _diagnostics(doc, e, slips)] or None
    path = list(error.absolute_path)
    span = doc.span(tuple(path))
    value = error.instance
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        written = decimal_text(span, value) if isinstance(value, float) else shown(value)
        return [
            Diagnostic("RC702", f"{written} is not a probability between 0 and 1", span, PROBABILITY_HINT)
        ]
    where = _where(doc, path)
    if not isinstance(value, str):
        return [
            Diagnostic(
                "RC103", f"{where} should be a probability, not {_kind(value)}", span, PROBABILITY_HINT
            )
        ]
    number = _signed_number(value)
    if number is not None and not 0 <= number <= 1:  # "-0.5", "-1/2", "+2": a number, out of range
        text = clipped(value.strip())
        return [Diagnostic("RC702", f"{text} is not a probability between 0 and 1", span, PROBABILITY_HINT)]
    said = "is not a number" if number is None else "is not written as a probability"
    return [Diagnostic("RC104", f"{clipped(value)!r} at {where} {said}", span, PROBABILITY_HINT)]


_SIGNED = re.compile(
    r"\s*[+-]?(?:[0-9]+\s*(?:/\s*[0-9]+)?|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?)\s*"
)


def _signed_number(text: str) -> Fraction | None:
    """A number written as text with a sign or an exponent (`-0.5`, `+1/2`, `5e-1`), as a
    probability's text is not; None for any other text (or one too long to be worth reading)."""
    if len(text) > 100 or _SIGNED.fullmatch(text) is None:
        return None
    try:
        return Fraction(re.sub(r"\s", "", text))
    except (ValueError, ZeroDivisionError):
        return None


def _sides(doc: Document, error: ValidationError) -> Diagnostic | None:
    """A die's number of sides out of the schema's bounds (`die: 0`, `die: 1001`): RC310 in the
    words the compiler gives the same faces written as text, not the forms a die may take."""
    n = error.instance
    if isinstance(n, bool) or not isinstance(n, int) or _schema_of(error) != schema()["$defs"]["faces"]:
        return None
    span = doc.span(tuple(error.absolute_path))
    for e in error.context or ():
        if e.absolute_path != error.absolute_path:
            continue
        if e.validator == "minimum":
            return Diagnostic("RC310", NO_FACES, span, no_faces_hint())
        if e.validator == "maximum" and isinstance(e.validator_value, int):
            message, hint = too_many_faces(n, e.validator_value)
            return Diagnostic("RC310", message, span, hint)
    return None


def _unknown_keys(doc: Document, error: ValidationError, slips: Slips) -> list[Diagnostic]:
    """One RC102 per key of the mapping that its schema does not have, each at its own key: a
    misspelling of a missing required key with the key it stands for, any other with the nearest
    allowed key not written yet (or the allowed keys)."""
    path = tuple(error.absolute_path)
    where = _where(doc, list(path))
    allowed = list(_schema_of(error).get("properties", {}))
    meant = slips.get(path, {})
    instance: Any = error.instance
    an_input = len(path) >= 2 and path[-2] == "inputs" and isinstance(instance, dict)
    kinds = _schema_of(error).get("properties", {}).get("type", {}).get("enum", [])
    if an_input and instance.get("type", "int") in kinds:  # of a type it knows: not a key it refuses
        allowed = [k for k in allowed if input_takes(instance.get("type", "int"), k)]
    # a key written already is not the one a misspelling stands for ('outcomez' beside
    # 'outcome' means the missing 'outcomes')
    unused = [k for k in allowed if not (isinstance(instance, dict) and k in instance)]
    told = []
    for key in _extra(error) or ["?"]:
        name = doc.key_text(path + (key,)) if key in instance else str(key)
        hint = f"did you mean '{meant[name]}'?" if name in meant else did_you_mean(name, unused)
        written = doc.boolean_key(path + (key,)) if key in instance else None
        if written is not None:  # a word YAML 1.1 reads as true or false: said as written
            known = written.lower() in allowed
            told.append(
                Diagnostic(
                    "RC102",
                    f"the key '{written}' in {where} is read as {name}: {YAML11_SAID}"
                    if known
                    else f"unknown key '{written}' in {where} (read as {name}: {YAML11_SAID})",
                    doc.span(path + (key,), key=True),
                    YAML11_HINT.format(written.lower())
                    if known
                    else (did_you_mean(written, unused) or f"allowed keys: {', '.join(allowed)}"),
                )
            )
            continue
        glued = _glued(name)
        if glued is not None and glued[0] in allowed:
            # `{act:take_wound}`: YAML reads a flow mapping's key up to its `,` or `}` when no space
            # follows the colon (hunt 13h: RC101 and RC102 with no word of the colon)
            told.append(
                Diagnostic(
                    "RC102",
                    f"unknown key '{name}' in {where}: '{glued[0]}:' has no space after its colon, so "
                    "YAML reads it all as one key",
                    doc.span(path + (key,), key=True),
                    f"put a space after the colon: {glued[0]}: {glued[1]}",
                )
            )
            continue
        if name in meant and not did_you_mean(name, [meant[name]]):
            # short for a key, not misspelt (`d` for `die`): the key as it is written
            shown = doc.span(path + (key,)).text or "VALUE"
            hint = f"'{name}' is no key here: write {meant[name]}: {shown}"
        told.append(
            Diagnostic(
                "RC102",
                f"unknown key '{name}' in {where}",
                doc.span(path + (key,), key=True),
                hint or (f"allowed keys: {', '.join(allowed)}" if allowed else None),
            )
        )
    return told


def _diagnostic(doc: Document, error: ValidationError, path: list[Any], span: Span, where: str) -> Diagnostic:
    """What any other schema error says: one diagnostic at the value (`span`), its path `where`."""
    v = error.validator
    if v == "required":
        missing = str(error.message).split("'")[1] if "'" in error.message else "?"
        key_span = doc.span(tuple(path), key=True) if path else span
        return Diagnostic(
            "RC101",
            f"{where} is missing the required key '{missing}'",
            key_span,
            _found_deeper(doc, tuple(path), error.instance, missing),
        )
    if v == "type" and "propertyNames" in error.absolute_schema_path:  # `1:` where a name belongs
        return _bad_key(doc, error, path, span, where)
    if v == "type":
        want: Any = error.validator_value
        want_s = _wanted(want if isinstance(want, list) else [want])
        hint = _mapping_hint(path, error.instance) if want_s == "a mapping" else None
        at = pointer_of(tuple(error.absolute_schema_path)) or ""
        placed = _placed_hint(at, path, error.instance, span)
        if placed is not None:
            hint = placed
        elif at != "/$defs/expression":  # quoting makes text, not a value, where no expression goes
            pass
        elif isinstance(error.instance, float):  # 1.5 where an expression goes
            written = decimal_text(span, error.instance)
            hint = f'an exact number is written as an expression, in quotes: "{written}"'
        elif isinstance(error.instance, list):  # [1, 2] where an expression goes
            written = span.text
            if written.startswith("[") and '"' not in written:
                hint = f'a list is written as an expression, in quotes: "{written}"'
        kinds = want if isinstance(want, list) else [want]
        got = _kind(error.instance)
        if isinstance(error.instance, float) and "integer" in kinds and "number" not in kinds:
            got = decimal_text(span, error.instance)  # "a whole number, not a number" said nothing
        return Diagnostic("RC103", f"{where} should be {want_s}, not {got}", span, hint)
    if v in ("enum", "const"):
        options: list[Any] = list(error.validator_value) if v == "enum" else [error.validator_value]  # type: ignore[arg-type]
        hint = did_you_mean(str(error.instance), [str(o) for o in options])
        return Diagnostic(
            "RC104",
            f"{where} must be one of {', '.join(map(shown, options))}, not {shown(error.instance)}",
            span,
            hint,
        )
    if v == "pattern":
        if _at(error) in NUMBER_TEXT:  # a number written as text: a mean
            return Diagnostic(
                "RC104",
                f"{error.instance!r} at {where} is not a number",
                span,
                'write a whole number, a decimal or a fraction as text: 3, 0.5, "7/2"',
            )
        return _bad_key(doc, error, path, span, where)
    if v == "uniqueItems" and isinstance(error.instance, list):
        counts = Counter(map(str, error.instance))
        twice = next((x for x, n in counts.items() if n > 1), "?")
        return Diagnostic(
            "RC104", f"'{twice}' appears twice in {where}", span, "each member of a list may appear once"
        )
    if v == "minProperties" and error.instance == {}:
        # an empty mapping where something must be named: said so, with what to name if the schema says
        return Diagnostic("RC104", f"{where} is empty", span, _custom(error))
    if v in ("minimum", "maximum", "minItems", "minProperties", "uniqueItems"):
        return Diagnostic("RC104", f"{where}: {error.message}", span)
    if v == "oneOf" or v == "not":
        text = _custom(error) or _schema_of(error).get("description", error.message)
        return Diagnostic("RC105", f"{where} does not have a valid form: {text}", span)
    return Diagnostic("RC105", f"{where}: {error.message}", span)


_WHOLE = {
    ("roll", "pool"): "a pool rolls a whole number of dice",
    ("roll", "count"): "a draw takes a whole number of chits",
    ("redraw", "times"): "the most redraws is a whole number",
}
"""The expressions whose value must be whole, by (where, key): quoting a decimal there would
only move the error to the roll (RC406, RC808), so their hint says what is expected."""


def _placed_hint(at: str, path: list[Any], instance: Any, span: Span) -> str | None:
    """RC103's hint where quoting the value (the general hint) would make it no better: a
    decimal where a whole number goes, a forced die that is no face, an expected outcome that is
    not one name. None elsewhere."""
    key = str(path[-1]) if path else ""
    randomizer = len(path) >= 5 and path[0] == "checks" and path[2] == "roll"  # checks.C.roll.R...
    where = (
        "roll"
        if randomizer and len(path) == 5
        else "redraw"
        if randomizer and path[4:5] == ["redraw"]
        else ""
    )
    whole = _WHOLE.get((where, key)) if at == "/$defs/expression" else None
    if whole is not None and isinstance(instance, float):
        low = int(instance // 1)
        return f"{whole}: {key}: {low} or {key}: {low + 1}, or an expression that gives a whole number"
    if "/properties/dice/additionalProperties" in at:  # a forced die, or one of a pool's
        name = next((str(p) for p in reversed(path) if isinstance(p, str)), "d")
        if isinstance(instance, list):
            inner = span.text.strip()[1:-1].strip() if span.text.strip().startswith("[") else "1, 2"
            return f"a pool's forced faces are one list, in the order they are rolled: {name}: [{inner}]"
        face = str(int(instance // 1)) if isinstance(instance, float) else "1"
        shown = f"[{face}]" if isinstance(path[-1], int) else face  # one of a pool's, or a die's
        return f"a forced die shows one of its faces: a whole number, or a face's name: {name}: {shown}"
    if at.endswith("/expect/properties/outcome"):
        names = [x for x in instance if isinstance(x, str)] if isinstance(instance, list) else []
        if names:
            more = "; each outcome its own example" if len(names) > 1 else ""
            return f"an example expects one outcome, by its name: outcome: {names[0]}{more}"
        return "an example expects one of the check's outcomes, by its name: outcome: NAME"
    return None


def _bad_key(doc: Document, error: ValidationError, path: list[Any], span: Span, where: str) -> Diagnostic:
    """RC104 for a text that does not match its pattern, or a key that is not text where a name
    belongs (the schema's `propertyNames` ask for a string, for validators that read YAML's
    keys as they are): at the key, when it is one, saying what it should be."""
    key = error.instance
    keyed = "propertyNames" in error.absolute_schema_path
    if keyed and isinstance(key, (str, int)):
        span = doc.span((*path, key), key=True)  # a key: point at it, not at its mapping
    named = ("an empty key (null)" if keyed else "an empty text") if key == "" else repr(key)
    pattern = error.validator_value if error.validator == "pattern" else _schema_of(error).get("pattern")
    shape = PATTERN_HINTS.get(str(pattern))
    if pattern == NAME_PATTERN and shape is not None:
        shape = (shape[0], name_rule(key))
    if shape is None:  # a pattern added to the schema without a hint: say the pattern itself
        shape = ("valid here", f"it must match the pattern {pattern}")
    return Diagnostic("RC104", f"{named} at {where} is not {shape[0]}", span, shape[1])


def _mapping_hint(path: list[Any], instance: Any) -> str | None:
    """The mapping meant where the commonest shorthands are written instead: a die as its sides
    (`first: 6`, `first: d6`), an input as its type (`skill: int`), outputs as a list of names."""
    name = str(path[-1]) if path else ""
    parent = str(path[-2]) if len(path) >= 2 else ""
    if parent == "roll" and isinstance(instance, (int, str)) and not isinstance(instance, bool):
        notation = DICE.fullmatch(instance) if isinstance(instance, str) else None
        plus_minus = PLUS_MINUS.fullmatch(instance) if isinstance(instance, str) else None
        modified = MODIFIED.fullmatch(instance) if isinstance(instance, str) else None
        if modified is not None:  # 2d6+1: the dice, and the modifier where they are read
            count, op, plus = modified["count"], modified["op"], modified["mod"]
            faces = sides(modified)
            if count not in ("", "1"):
                pool = f"{{pool: {count}, die: {faces}}}"
                return f"a pool of dice is a mapping: {name}: {pool}, read as sum({name}) {op} {plus}"
            return f"a die is a mapping: {name}: {{die: {faces}}}, read as {name} {op} {plus}"
        if plus_minus is not None:  # dF, 4dF: a die of the faces -1..1
            count = plus_minus["count"]
            if count not in ("", "1"):
                return f'a pool of dice is a mapping: {name}: {{pool: {count}, die: "-1..1"}}'
            return f'a die is a mapping: {name}: {{die: "-1..1"}}'
        if notation is not None and notation["count"] not in ("", "1"):
            return (
                f"a pool of dice is a mapping: {name}: {{pool: {notation['count']}, die: {sides(notation)}}}"
            )
        return f"a die is a mapping: {name}: {{die: {sides(notation) if notation is not None else instance}}}"
    if parent == "inputs" and isinstance(instance, str):
        kinds = schema()["$defs"]["input"]["properties"]["type"]["enum"]
        kind = instance if instance in kinds else "int"
        return f"an input is a mapping: {name}: {{type: {kind}}}"
    if name == "outputs" and isinstance(instance, list):
        first = instance[0] if instance and isinstance(instance[0], str) else "margin"
        return f"outputs are named expressions: outputs: {{{first}: EXPR}}"
    if name == "roll" and isinstance(instance, list):
        return "name each die: roll: {first: {die: 6}, second: {die: 6}}"
    return None


def _then(hint: str | None, more: str) -> str:
    """Two sentences of a hint, the second after the first's own stop."""
    if not hint:
        return more
    return f"{hint} {more}" if hint.endswith(("?", ".")) else f"{hint}. {more}"


PATTERN_HINTS: dict[str, tuple[str, str]] = {
    NAME_PATTERN: ("a valid name", NAME_RULE),
    RULESET_NAME_PATTERN: (
        "a valid ruleset name",
        "a ruleset's name starts with a lower-case letter and uses lower-case letters, digits, _ and -",
    ),
    "^RC[0-9]{3}(?!\\n)$": ("a diagnostic code", "a code is RC and three digits, as RC104"),
}
"""What each of the schema's name patterns is called in a message, and the hint that says it in
words (read from the pattern itself, so a hint cannot describe another pattern's rule)."""


def _found_deeper(doc: Document, path: tuple[Any, ...], instance: Any, key: str) -> str | None:
    """Where a missing key is written one level too deep (indented under a sibling such as
    `let:`), said as a hint: the newcomer sees the key in the file and is told why it is missing."""
    if not isinstance(instance, dict):
        return None
    for name, child in instance.items():
        if isinstance(child, dict) and key in child:
            at = doc.span((*path, name, key), key=True)
            return f"'{key}' is at line {at.line}, inside '{name}': indent it to go with '{name}'"
    return None


def _schema_of(error: ValidationError) -> dict[str, Any]:
    """The schema an error came from, as a mapping (jsonschema also allows booleans there)."""
    return error.schema if isinstance(error.schema, dict) else {}


_TYPE_WORDS = {
    "object": "a mapping",
    "array": "a list",
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true/false",
    "null": "empty",
}
"""A JSON Schema type in the docs' words, as `_kind` names what was written (not JSON's
"object" and "array": the docs say mapping and list)."""


def _wanted(types: list[str]) -> str:
    """What a value should be, from the JSON Schema types its forms take: "a list or text"."""
    words = list(dict.fromkeys(_TYPE_WORDS.get(t, t) for t in types))
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _kind(value: Any) -> str:
    if value is None:
        return "empty"
    return {
        dict: "a mapping",
        list: "a list",
        str: "text",
        bool: "true/false",
        int: "a number",
        float: "a number",
    }.get(type(value)) or "a value YAML could not give plainly"
