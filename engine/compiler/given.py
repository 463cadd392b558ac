"""What a worked example gives, checked when the ruleset loads: its inputs and parameters read
as a run reads them (`coerce`, the RC403/RC404 reading), and the faces and chits it forces against
the dice and bags they are forced on. Anything here that is wrong would make the example fail
only when `rulecraft test` runs it, so it is RC702 at the value, one message per value."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from ..errors import InputError, RulecraftError, did_you_mean, shown
from ..model.ruleset import Die, Draw, InputSpec, Pool, Randomizer, reads
from ..model.values import faces_text
from ..runtime.inputs import coerce, forced_face, in_bag, listed, parse_number, whole
from ..runtime.limits import Limits, roll_count
from ..runtime.rules import concrete
from ..syntax.document import PathKey
from ..syntax.positions import Span, decimal_text
from .problems import Apart, Problem, problem
from .unit import Unit


def to_add(name: str, where: str, character: bool = False) -> str:
    """The hint that an example give a value it leaves out, under `where` ("this example's
    inputs:"): "add NAME: VALUE to …", or of a character's parameter "give the character NAME:
    VALUE in …". Said when the ruleset loads (`Missing`) and when `test` runs a step left to it
    (`tools.examples`), in the one wording."""
    return f"give the character {name}: VALUE in {where}" if character else f"add {name}: VALUE to {where}"


class Missing(NamedTuple):
    """How a value an example leaves out is told, at `span()`: "{gives} no value for {what}
    'NAME'{of}, which has no default", with the hint to add it under `to` (`to_add`; a
    `character`'s parameter). The place is worked out only when something is missing: a
    load checks every example, and nearly all of them give what they must."""

    gives: str
    what: str
    to: str
    span: Callable[[], Span]
    of: str = ""
    character: bool = False

    def problem(self, name: str) -> Problem:
        return problem(
            "RC702",
            f"{self.gives} no value for {self.what} '{name}'{self.of}, which has no default",
            self.span(),
            to_add(name, self.to, self.character),
        )


def given_values(
    unit: Unit,
    parts: Apart,
    at: PathKey,
    given: Mapping[str, Any],
    specs: Sequence[InputSpec],
    missing: Missing | None,
    noun: str = "input",
) -> dict[str, Any] | None:
    """RC702 at each value of `given` (written at `at`) that its declaration `specs` refuses, and
    (`missing`: how to say so) for each declaration with no default left out. Each is
    checked apart; the values bound, defaults too, when all are good."""
    bound: dict[str, Any] = {}
    given = written_exactly(unit, at, given)  # a decimal without quotes: every digit written
    for spec in specs:
        with parts.part():
            if spec.name in given:
                bound[spec.name] = _value(unit, at + (spec.name,), spec, given[spec.name], noun)
            elif spec.default is not None:
                bound[spec.name] = spec.default
            elif missing is not None:
                raise missing.problem(spec.name)
    return bound if len(bound) == len(specs) else None


def written_exactly(unit: Unit, at: PathKey, value: Any) -> Any:
    """`value` (written at `at`) with each float in it, at any depth of lists and mappings, as
    the decimal the file writes (`decimal_text`): YAML's float keeps 17 digits."""
    if isinstance(value, float):
        return decimal_text(unit.doc.span(at), value)
    if isinstance(value, list):
        return [written_exactly(unit, at + (i,), v) for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: written_exactly(unit, at + (k,), v) for k, v in value.items()}
    return value


def _value(unit: Unit, at: PathKey, spec: InputSpec, value: Any, noun: str) -> Any:
    """One value an example gives, read as a run reads it, or RC702 at it with the input's hint."""
    try:
        return coerce(spec, value, noun)
    except InputError as exc:
        found = exc.diagnostics[0]
        raise problem("RC702", f"in this example, {found.message}", unit.doc.span(at), found.hint) from None


def forced_dice(
    unit: Unit,
    parts: Apart,
    at: PathKey,
    forced: Mapping[str, Any],
    roll: Sequence[Randomizer],
    bound: Mapping[str, Any] | None,
    auto: bool = False,
    rolls: bool = True,
) -> None:
    """RC702 where an example forces a die or a pool's dice a face they do not have (`d: 7` on a
    d6 could never roll), or a draw a chit its bag does not hold, or fewer faces or chits than
    the first roll takes (`_enough`), each die or draw apart (`forced` is written at `at`). Faces
    and counts worked out from the inputs are worked out for `bound`, the inputs the roll has
    (None: not known now); those that read a roll are known only when `test` rolls them, and
    are left to it, as is every count where an `auto` rule may decide (nothing is rolled then).
    An example that does not `roll` its forced dice (one that expects only probabilities or
    means, worked out exactly) never takes them in turn: no count is asked of it."""
    for r in roll:
        if r.name in forced:
            with parts.part():
                if isinstance(r, Draw):
                    _chits(unit, at + (r.name,), r, forced[r.name])
                else:
                    _faces(unit, at + (r.name,), r, forced[r.name], bound)
                if rolls and not auto:
                    _enough(unit, at + (r.name,), r, forced[r.name], bound)


def _enough(unit: Unit, at: PathKey, r: Randomizer, given: Any, bound: Mapping[str, Any] | None) -> None:
    """RC702 unless `given` holds at least as many faces or chits as `r`'s first roll takes,
    where that is known now (`_first_roll`): the sampler takes them in turn, rerolls, added dice
    and redraws after the first roll, so fewer could only run out when `test` rolls."""
    needs = _first_roll(r, bound, unit.limits)
    items = listed(given)
    has = 1 if items is None else len(items)
    if needs is None or has >= needs:
        return
    one, many, first = ("chit", "chits", "draw") if isinstance(r, Draw) else ("face", "faces", "roll")
    raise problem(
        "RC702",
        f"in this example, {r.name} is forced {_many(has, one, many)}, but its first {first} needs {needs}",
        unit.doc.span(at),
        f"force {r.name} at least {_many(needs, one, many)}, {_order(r)}",
    )


def _order(r: Randomizer) -> str:
    """The order the sampler takes a randomizer's forced faces or chits in, for the hint: a
    draw's and a pool's first roll whole, then what is redrawn, rerolled or added; an `each_die`
    pool's die by die, each die's own rerolls and added dice straight after it."""
    if isinstance(r, Draw):
        return "in order: one per chit of its first draw, then one per chit redrawn"
    if isinstance(r, Pool) and r.own is not None:
        return "die by die: each die's first face, then one per die rerolled or added for it"
    return "in order: one per die of its first roll, then one per die rerolled or added"


def _many(n: int, one: str, many: str) -> str:
    """`n` of a thing, in words: "no faces", "1 face", "3 faces"."""
    return f"no {many}" if n == 0 else f"{n} {one if n == 1 else many}"


def _first_roll(r: Randomizer, bound: Mapping[str, Any] | None, limits: Limits) -> int | None:
    """How many faces or chits `r`'s first roll takes: one for a die (a die with triggers too),
    a pool's or draw's count where it reads only the inputs `bound` (None: none known), taken by
    the sampler's rule (`roll_count`, within the ruleset's `limits`); None where only a roll can
    tell (a count that reads a die or a value), or the run refuses the count (it says so, at the
    pool: no count, more chits than the bag holds, past `max_pool` or `max_draw`)."""
    if isinstance(r, Die) or (isinstance(r, Pool) and r.total):
        return 1
    known = bound or {}
    if not reads(r.count.node) <= set(known):
        return None
    try:
        return roll_count(r.count, dict(known), r, limits)
    except RulecraftError:
        return None


def _faces(unit: Unit, at: PathKey, r: Die | Pool, given: Any, bound: Mapping[str, Any] | None) -> None:
    """RC702 unless every face forced on `r` is one of its faces, where they are known now, read
    by the sampler's rule (`forced_face`: a whole number that is one of them)."""
    faces = r.faces
    if r.faces_expr is not None:
        if bound is None or not reads(r.faces_expr.node) <= set(bound):
            return  # faces that read a roll, or inputs not known: only a run knows them
        try:
            faces = concrete(r, bound).faces
        except RulecraftError:
            return  # no faces for these inputs: the run says so, at the die
    die = not isinstance(r, Pool) or r.total
    for where, face in _items(at, given):
        if forced_face(face, faces) is None:
            # a face written as text ("3") is none: the sampler takes numbers; nor is 6.0, which
            # equals 6 but is written as no face is (hunt 13m: the message read as if 6 were none)
            meant = whole(parse_number(face.strip())) if isinstance(face, str) else None
            decimal = int(face) if isinstance(face, float) and face.is_integer() else None
            raise problem(
                "RC702",
                f"in this example, {r.name} is forced {shown(face)}, which is not a face of "
                f"{'this die' if die else 'its dice'} ({faces_text(faces)})",
                unit.doc.span(where),
                f"a face is a number: write it unquoted, {meant}"
                if meant in faces
                else f"a face is a whole number: write {decimal}, not {shown(face)}"
                if decimal in faces
                else f"force {r.name} one of its faces, {faces_text(faces)}"
                if die
                else f"force {r.name} faces its dice have, {faces_text(faces)}",
            )


def _chits(unit: Unit, at: PathKey, r: Draw, given: Any) -> None:
    """RC702 unless every chit forced on draw `r` is one its bag holds, and (with no redraw,
    which puts the chits back) no more of one colour than the bag holds: the sampler's rule
    (`in_bag`), asked of the full bag."""
    held = {s.name: k for s, k in r.bag.contents()}
    items = [(where, getattr(c, "name", c)) for where, c in _items(at, given)]
    chits = [name for _, name in items]
    for where, name in items:
        if not in_bag(name, 1, held):
            raise problem(
                "RC702",
                f"in this example, {r.name} is forced {shown(name)}, which is not a chit of "
                f"bag '{r.bag.name}' ({', '.join(held)})",
                unit.doc.span(where),
                did_you_mean(str(name), held) or f"force {r.name} chits of its bag: {', '.join(held)}",
            )
    for name in dict.fromkeys(chits):
        if r.redraw is None and not in_bag(name, chits.count(name), held):
            raise problem(
                "RC702",
                f"in this example, {r.name} is forced {name} {chits.count(name)} times, but bag "
                f"'{r.bag.name}' holds only {held[name]}",
                unit.doc.span(at),
                f"force at most {held[name]} {name}: chits drawn are not put back",
            )


def _items(at: PathKey, given: Any) -> list[tuple[PathKey, Any]]:
    """Each face or chit an example forces on one die or draw, with the path it is written at:
    the items of a list of several one by one (the sampler takes them in turn, `listed`), else
    the value as written (a list of one: the list, which holds the face)."""
    items = listed(given)
    if items is None or len(items) == 1:
        return [(at, item) for item in items or [given]]
    return [(at + (i,), item) for i, item in enumerate(items)]
