"""What a campaign store keeps, as plain data, and the interface every store offers.

A campaign is a header (its name, the ruleset it plays and that ruleset's text and content hash,
the parameters it was made with) and an append-only log of events, each with the whole state
after it. The current state is the last event's. Nothing is ever deleted: an undo is an event.
Everything here is JSON-ready, so a store needs no knowledge of rulesets. The rules every
database store shares (the format mark, what an append accepts, JSON in a column, the unknown
campaign's hint) are stated here once, for the SQLite and the PostgreSQL store alike.
"""

from __future__ import annotations

import json
import math
import re
import sys
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any, Final, Protocol

from ..errors import CampaignError, Diagnostic, did_you_mean
from ..frozen import FrozenDict, field, frozen, frozen_hook, frozen_json
from ..runtime.arguments import KEPT_NAME_MOST

State = dict[str, Any]
"""{"shared": {item: value}, "characters": {name: {item: value}}}: counters are ints, tallies
{member: count}; JSON-ready."""


@frozen
class Header:
    """A campaign as made: never changed afterwards, except the ruleset by an explicit migration."""

    name: str
    ruleset: str
    """The ruleset as it was named when the campaign was made: a shipped name or a path."""
    ruleset_hash: str
    """sha256 of the ruleset's text, hex: a changed ruleset is detected before any action."""
    ruleset_text: str
    params: Mapping[str, Any] = field(default_factory=dict)
    created: str = ""
    """ISO 8601 time, UTC."""

    def __post_init__(self) -> None:
        # read-only, as a store keeps it: `campaign.header.params` was the memory store's own dict
        object.__setattr__(self, "params", frozen_json(dict(self.params)))


@frozen
class Event:
    """One entry of the log: what happened and the whole state after it.

    `kind` is "new" (the first event: the starting state), "action", "period" (a period begins
    or ends and resets what it resets), "undo" (`undoes` is the seq of the event reversed; the
    state is the one before it), or "migrate" (the ruleset was replaced on purpose). `data` holds
    the rest: action, character, inputs, seed, policy, dice drawn, outcome, effects applied.

    As a store hands it out, `data` and `state` are read-only all the way down (`FrozenDict`,
    `FrozenList`: `frozen_json`, `frozen_hook`), whatever the store: a memory store hands out the
    very event it keeps, and a reader's change to it changed the campaign (review 12g)."""

    seq: int
    kind: str
    data: Mapping[str, Any]
    state: State
    undoes: int | None = None
    at: str = ""


@frozen
class Window:
    """Which part of a log a reader asks for: the events numbered after `after` and before
    `before` (each bound left open by its default), oldest first; of more than `limit`, the
    oldest `limit`, or with `newest` the newest `limit` (a page that ends at `before`). One
    statement of a page, for every store: a reader of a long log (the server's `/log`, an undo
    looking back for the change to reverse) reads a bounded part of it, where reading all of it
    took 18 s at 200,000 events (`/log`) and an undo 6 s."""

    after: int = 0
    before: int | None = None
    limit: int | None = None
    newest: bool = False
    data: bool = True
    """Whether each event's data is read; without, it holds `UNREAD`. An undo looking back for
    the change to reverse needs only each event's number, kind and `undoes`, and a reader of the
    state now only the state: a scene's data (its trace) can be megabytes of JSON, and decoding
    it took 0.8 s an event, under the write lock (an undo over 8 scenes held it 6.6 s)."""
    state: bool = True
    """Whether each event's state is read; without, it holds `UNREAD`. A store may read more
    than it is asked for (a memory store hands out what it keeps, which costs nothing)."""
    most_chars: int | None = None
    """At most about this many characters of stored JSON (the data and state read) in all, but
    always one event at least: the page ends at the event that would pass it (the newest kept
    with `newest`, else the oldest). A page of the server's `/log` is bounded so, where 19 long
    scenes (4.6 MB of trace each) answered 76 MB in 31 s."""

    @property
    def open_ended(self) -> bool:
        """No bound on the event numbers (a page of the newest, or the whole log): a log with no
        event in it was damaged."""
        return self.after == 0 and self.before is None

    def take(self, events: list[Event]) -> list[Event]:
        """The window of a log held in order (a memory store's), found by bisection: copying and
        filtering the log for each page made an undo over 200,000 events take 44 s."""
        lo = bisect_right(events, self.after, key=_seq)
        hi = len(events) if self.before is None else bisect_left(events, self.before, lo, key=_seq)
        if self.limit is not None and hi - lo > self.limit:
            lo, hi = (hi - self.limit, hi) if self.newest else (lo, lo + self.limit)
        taken = events[lo:hi]
        if self.most_chars is None:
            return taken
        sizes = (_chars(e, self.data, self.state) for e in (reversed(taken) if self.newest else taken))
        count = fitting(sizes, self.most_chars)
        return taken[len(taken) - count :] if self.newest else taken[:count]


def _seq(event: Event) -> int:
    return event.seq


def _chars(event: Event, data: bool, state: bool) -> int:
    """The characters of `event`'s data and state as a store keeps them (`dumps`): what a memory
    store weighs against `Window.most_chars`."""
    return (len(json.dumps(event.data, sort_keys=True)) if data else 0) + (
        len(json.dumps(event.state, sort_keys=True)) if state else 0
    )


def fitting(sizes: Iterable[int], most: int) -> int:
    """How many of the events whose sizes come in `sizes`, in the order a page takes them, fit
    in `most` characters: one at least (where there is one), and no size read past the first
    that does not fit."""
    count = total = 0
    for size in sizes:
        total += size
        if count and total > most:
            break
        count += 1
    return count


UNREAD: Final = FrozenDict()
"""What an event read without its data or its state (`Window.data`, `Window.state`) holds in its
place: this very object, so that a check of what an event holds (`shape`) passes over what was
not read, where an empty mapping read from a store is damage."""


WHOLE: Final = Window()
"""The whole log."""
NEWEST: Final = Window(limit=1, newest=True)
"""The newest event alone (`Store.last`)."""
STATE_NOW: Final = Window(limit=1, newest=True, data=False)
"""The newest event with its state alone: what the state now is read from."""
HEADS: Final = Window(data=False, state=False)
"""Events with neither data nor state: their number, kind, `undoes` and time (an undo's look back)."""


class Transaction(Protocol):
    """One atomic change to one campaign: everything read inside it is current, and either every
    append is kept or none (an exception, a crash or a kill keeps none)."""

    def header(self) -> Header: ...

    def events(self, window: Window = WHOLE) -> list[Event]:
        """The log, or the part of it `window` asks for, as it stands inside the transaction."""
        ...

    def last(self) -> Event:
        """The newest event, for its state: its data may be left unread (`UNREAD`), as a
        change reads only the state it changes (a scene's data can be megabytes)."""
        ...

    def append(self, kind: str, data: Mapping[str, Any], state: State, undoes: int | None = None) -> Event:
        """Add an event after the last one; its `seq` is one more than the last's."""
        ...

    def replace_ruleset(self, ruleset_hash: str, ruleset_text: str) -> None:
        """Point the campaign at a changed ruleset (a migration, recorded by the caller as an event)."""
        ...


STORE_METHODS = ("create", "names", "header", "events", "last", "transaction", "close")
"""What a campaign store offers (`Store`): what the API checks a caller's store has."""


class Store(Protocol):
    """Where campaigns live. SQLite is the embedded default; another database implements the same
    few methods, and nothing about rules changes."""

    def create(self, header: Header, state: State) -> Event:
        """A new campaign with its first event ("new"); `CampaignError` RC902 if the name is taken."""
        ...

    def names(self, after: str | None = None, limit: int | None = None) -> list[tuple[str, str, int]]:
        """Every campaign: (name, ruleset, number of events), by name in the order of its code
        points; or a page of them: those named after `after`, at most `limit`."""
        ...

    def header(self, name: str) -> Header:
        """`CampaignError` RC901 (with the nearest name) if there is no such campaign."""
        ...

    def events(self, name: str, window: Window = WHOLE) -> list[Event]:
        """The whole log, oldest first; or the part of it `window` asks for."""
        ...

    def last(self, name: str) -> Event:
        """The newest event alone: the state now is read from it, at a cost that does not grow
        with the log (reading the whole log for it took 35 ms at 2,000 events, and on)."""
        ...

    def transaction(self, name: str) -> AbstractContextManager[Transaction]:
        """Exclusive for writing: a second writer waits for the first to finish (up to a timeout,
        then `CampaignError` RC903 "locked")."""
        ...

    def close(self) -> None: ...


# -- what every database store shares ----------------------------------------------------------

FORMAT: Final = "rulecraft-campaigns"
"""The mark in a database's `meta` table (key "format") that says the database is ours."""
SCHEMA_VERSION: Final = 1
"""The layout of `meta`, `campaigns` and `events` (meta key "version"); a newer one is refused."""


MOST_SEQ: Final = 2**53
"""The largest event number a log may hold (JSON's exact integers; SQLite's and PostgreSQL's
64-bit columns hold more, so a larger one was written from outside)."""
_NEEDS: Final[Mapping[str, tuple[tuple[str, type | tuple[type, ...]], ...]]] = {
    "new": (),
    "join": (("character", str), ("params", dict)),
    "action": (("action", str), ("character", (str, type(None))), ("inputs", dict), ("effects", list)),
    "roll": (("check", str), ("inputs", dict), ("roll", dict)),
    "scene": (("scene", str), ("cast", dict), ("ending", str), ("rounds", int), ("trace", list)),
    "period": (("period", str), ("effects", list)),
    "undo": (("kind", str),),
    "migrate": (("from", str), ("to", str), ("from_text", str)),
}
"""Each kind of event's data: the keys the readers of a log index, with their JSON types."""
APPEND_KINDS: Final = frozenset(_NEEDS) - {"new"}
"""What `Transaction.append` accepts; "new" is written by `create` alone."""


def damage(seq: object, kind: object, undoes: object = None, at: object = "") -> str | None:
    """What is wrong with a stored event's place in its log, if anything: an event number out of
    range, a kind no store appends, a "new" event anywhere but first (or a first that is not
    one), an undo of no earlier event or an `undoes` on another kind, a time that is not text
    (the store reports it as RC903). What the event holds is its campaign's to check (`shape`)."""
    if type(seq) is not int or not 1 <= seq <= MOST_SEQ:
        return f"an event's number is {seq!r}"
    if kind not in _NEEDS:
        return f"event {seq} is of no known kind ({kind!r})"
    if (kind == "new") != (seq == 1):  # a "new" later on would pass a made-up state off as a start
        return f"event {seq} is of kind {kind!r}: a log begins with its one 'new' event"
    if kind == "undo" and (type(undoes) is not int or not 1 <= undoes < seq):
        return f"event {seq} undoes {undoes!r}, no earlier event"
    if kind != "undo" and undoes is not None:
        return f"event {seq} is of kind {kind!r} and yet undoes {undoes!r}"
    if not isinstance(at, str):
        return f"event {seq}'s time is {type(at).__name__}, not the text rulecraft writes"
    return None


def header_damage(**columns: object) -> str | None:
    """What is wrong with a campaign's stored ruleset and time, if anything: each is text as
    rulecraft writes it (a column changed to another type, or emptied to NULL, reads otherwise)."""
    for column, value in columns.items():
        if not isinstance(value, str):
            return f"its {column} is {'NULL' if value is None else type(value).__name__}, not text"
    return None


def shape(event: Event) -> str | None:
    """What is wrong with what a campaign's event holds, if anything: rulecraft writes each
    kind of event whole, so one missing a key its readers index, or a state that is not a
    campaign's, was changed from outside. The state's items are checked against the rules by
    the campaign itself (`runtime.state.misfit`)."""
    data, state = event.data, event.state
    for key, kinds in () if data is UNREAD else _NEEDS.get(event.kind, ()):
        if not isinstance(data.get(key), kinds) or isinstance(data.get(key), bool):
            return f"event {event.seq}'s data has no {key!r} of the right kind"
    effects = data.get("effects", [])
    if not isinstance(effects, list) or not all(
        isinstance(e, dict)
        and isinstance(e.get("item"), str)
        and isinstance(e.get("character"), (str, type(None)))
        for e in effects
    ):
        return f"event {event.seq}'s effects are not each an item's change"
    roll = data.get("roll")
    if roll is not None and not (
        isinstance(roll, dict) and isinstance(roll.get("check"), str) and isinstance(roll.get("outcome"), str)
    ):
        return f"event {event.seq}'s roll names no check and outcome"
    if state is not UNREAD and not (
        isinstance(state.get("params"), dict)
        and isinstance(state.get("shared"), dict)
        and isinstance(state.get("characters"), dict)
        and all(
            isinstance(sheet, dict)
            and isinstance(sheet.get("params"), dict)
            and isinstance(sheet.get("items"), dict)
            for sheet in state["characters"].values()
        )
    ):
        return f"event {event.seq}'s state is not a campaign's (params, shared items, characters)"
    return None


def whole(events: list[Event], campaign: str) -> list[Event]:
    """The events, when each holds what its kind needs (`shape`); else RC903 for the first that
    does not, as a reader of the log (its lines, a replay, a state) would meet it."""
    for e in events:
        wrong = shape(e)
        if wrong is not None:
            raise CampaignError(
                [
                    Diagnostic(
                        "RC903",
                        f"campaign '{campaign}' is damaged: {wrong}",
                        None,
                        "the log was changed outside rulecraft",
                    )
                ]
            )
    return events


def now() -> str:
    """The time an event is stored with: ISO 8601, UTC, to the microsecond."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def dumps(value: Mapping[str, Any], what: str) -> str:
    """JSON text for a column; a value that is not JSON-ready is the caller's bug, said plainly."""
    try:
        return json.dumps(dict(value), sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise TypeError(f"the {what} to store is not JSON-ready: {e}") from e


def check_append(name: str, kind: str, undoes: int | None, seq: int) -> None:
    """An append of `kind` as event `seq` of campaign `name`: a kind other than those of
    `APPEND_KINDS`, or `undoes` that is missing for an undo, given for anything else, or not an
    earlier event, is a caller's bug (ValueError)."""
    if kind not in APPEND_KINDS:
        raise ValueError(f"cannot append an event of kind {kind!r}: one of {sorted(APPEND_KINDS)}")
    if (kind == "undo") != (undoes is not None):
        raise ValueError("an undo event, and only an undo event, names the seq it undoes")
    if undoes is not None and not 1 <= undoes < seq:
        raise ValueError(f"undoes={undoes} is not an earlier event of '{name}' (1..{seq - 1})")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is no JSON number")


class _TooLong(ValueError):
    """A whole number past Python's digit limit (`_whole`)."""


def _whole(text: str) -> int:
    """A whole number read as JSON has it; past Python's digit limit, said so in words of ours:
    Python's name a function of its own (`sys.set_int_max_str_digits`), which no reader calls."""
    try:
        return int(text)
    except ValueError:
        most = sys.get_int_max_str_digits()
        raise _TooLong(
            f"holds a whole number of more than {most:,} digits, which rulecraft never writes"
        ) from None


def _finite(text: str) -> float:
    """A number with a fraction or an exponent read as JSON has it; one past a float's range
    (`1e400`, which Python reads as infinity) said so: JSON has no infinity, and rulecraft never
    writes one, so the column was changed outside it (it was shown as `Infinity`, not JSON)."""
    value = float(text)
    if not math.isfinite(value):
        shown = text if len(text) <= 40 else f"{text[:20]}… ({len(text):,} characters)"
        raise _TooLong(f"holds the number {shown}, past a float's range, which rulecraft never writes")
    return value


def same_json(a: Any, b: Any) -> bool:
    """Whether two values read from or written as JSON are the same JSON: equal, and each number
    of the same kind (`3` and `3.0`, `1` and `true` are equal to Python, not as written). A replay
    compares a stored state so, since a state holding `3.0` where the rules write `3` is damaged
    (`show` refuses it) and its replay had said every state equals the stored one."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same_json(v, b[k]) for k, v in a.items())
    if isinstance(a, list | tuple):
        return isinstance(b, list | tuple) and len(a) == len(b) and all(map(same_json, a, b))
    return type(a) is type(b) and a == b


def json_object(text: object) -> dict[str, Any] | str:
    """A JSON object read from a column, read-only all the way down (`frozen_hook`: a state or
    an event's data is handed out as read, by every store alike), or what is wrong with it (the
    caller names the place)."""
    if isinstance(text, dict | list):  # the driver decoded it: the column is no longer text
        return "is JSON the database decoded itself (a column changed to json or jsonb?), not text"
    try:  # NaN and Infinity are Python's, not JSON's: rulecraft never writes them
        value = (
            json.loads(
                text,
                parse_constant=_no_constant,
                parse_int=_whole,
                parse_float=_finite,
                object_pairs_hook=frozen_hook(text),
            )
            if isinstance(text, str | bytes)
            else None
        )
    except _TooLong as e:
        return str(e)
    except ValueError as e:
        return f"is not valid JSON ({e})"
    except RecursionError:
        return "is not JSON rulecraft writes: it nests deeper than Python's reader goes"
    return value if isinstance(value, dict) else "is not a JSON object"


HINT_SIDE: Final = 25
"""How many names an unknown campaign's hint reads on each side of the asked name (and of it in
lower case), in code-point order: the hint weighs those and the asked name's other cases alone,
never every campaign of the store (100,000 names took 3 to 6 s per unknown name, which anyone
can ask for over HTTP)."""


PARTIAL_CUTOFF: Final = 0.8
"""The least likeness (`difflib`'s ratio) of a name the hint offers when it read only some of the
store's names: with every name read the nearest is offered from 0.6, but among a few the nearest
read may be the wrong one (`tabel-04123`, with `table-04123` among 100,000 and unread, came out
as 'did you mean table-00023', 0.73 alike). One letter wrong, swapped, missing or added in a
name of five or more is 0.8 or more."""


@frozen
class Near:
    """The names an unknown campaign's hint weighs (`near_names`): `whole` when they are every
    campaign of the store (neither side of the asked name held more than `HINT_SIDE`)."""

    names: tuple[str, ...]
    whole: bool


def case_variants(name: str) -> list[str]:
    """The asked name in its other cases (`Moor`, `MOOR`, `The Moor`...): looked up one by one,
    since a name that differs in its first letter's case sorts far from it."""
    found = [name.lower(), name.upper(), name.capitalize(), name.title(), name.swapcase()]
    return [v for v in dict.fromkeys(found) if v != name]


def anchored(name: str) -> str:
    """`name` as a store can be sent it: a lone surrogate (what Python makes of a command line's
    bytes that are not UTF-8), which no store takes, as U+FFFD, and a NUL (which PostgreSQL
    refuses) left out; it only places the name in order."""
    return re.sub("[\ud800-\udfff]", "\ufffd", name).replace("\x00", "")


def near_names(
    name: str, side: Callable[[str, bool], list[str]], exist: Callable[[list[str]], list[str]]
) -> Near:
    """The names an unknown campaign `name`'s hint weighs, read a bounded number at a time:
    `side(anchor, before)` gives at most `HINT_SIDE + 1` names after `anchor` (or before it),
    nearest first (the one past `HINT_SIDE` only tells whether there are more); `exist(names)`
    those of `names` that are campaigns. Its neighbours on both sides, and those of its lower
    case, find a letter wrong, missing or added toward its end, or anywhere where few names lie
    between; its other cases are looked up whole."""
    anchor = anchored(name)
    before, after = side(anchor, True), side(anchor, False)
    # a side of exactly `HINT_SIDE` names may be the store's last: one more tells (a file of 25
    # names was said to hold more, and its hint asked for `PARTIAL_CUTOFF`)
    whole = len(before) <= HINT_SIDE and len(after) <= HINT_SIDE
    found = [*before[:HINT_SIDE], *after[:HINT_SIDE]]
    lower = anchored(name.lower())
    if lower != anchor:
        found += [*side(lower, True)[:HINT_SIDE], *side(lower, False)[:HINT_SIDE]]
    looked = [anchored(v) for v in case_variants(name)]
    looked.append(anchored(unicodedata.normalize("NFC", name)))  # the same text composed
    if anchor != name:  # the name as sent (a NUL left out) may be a campaign's, which no side holds
        looked.append(anchor)
    found += exist(list(dict.fromkeys(looked)))
    return Near(tuple(dict.fromkeys(found)), whole)


def near_hint(name: str, near: Near) -> str | None:
    """'did you mean' the nearest of the names `near` read, if close enough: as close as any
    misspelling when they are every name (`did_you_mean`), at least `PARTIAL_CUTOFF` alike when
    they are only some. A name kept written composed (Unicode NFC, as every name is kept now:
    `arguments.kept_name`) that `name` decomposed would be is told as such, and a name kept otherwise
    (by hand, or by an older rulecraft) that `name` composed would be: the two look the same."""
    composed = unicodedata.normalize("NFC", name)
    if composed != name and composed in near.names:
        return (
            f"the campaign {composed!r} looks the same, but is written composed (Unicode NFC) where"
            f" this name is not: {ascii(name)} against {ascii(composed)}; give its composed form"
        )
    for kept in near.names:  # one kept by an older rulecraft, or written into the file by hand
        if kept != name and unicodedata.normalize("NFC", kept) == composed:
            return (
                f"the campaign {ascii(kept)} looks the same, but is written with other code points"
                f" than this name, {ascii(name)}; give it as it is kept"
            )
    return did_you_mean(name, near.names, 0.6 if near.whole else PARTIAL_CUTOFF)


def unknown_campaign(name: str, near: Near, where: str, holder: str = "file") -> CampaignError:
    """RC901 for campaign `name`, not in the database at `where` (a "file" or a "database"): the
    hint names the nearest of the names `near` read, or the campaigns there (all of them, or
    those next to it by name where there are more), or says there are none."""
    hint = near_hint(name, near)
    if hint is None:
        shown = sorted(near.names)
        if not near.whole:  # the ten next to it by name, of a store of more than it read
            at = bisect_left(shown, anchored(name))
            shown = shown[max(0, min(at - 5, len(shown) - 10)) :][:10]
            hint = f"the campaigns next to it by name in this {holder}: {', '.join(shown)}, and more"
        elif shown:
            more = f" and {len(shown) - 10} more" if len(shown) > 10 else ""
            hint = f"the campaigns in this {holder}: {', '.join(shown[:10])}{more}"
        else:
            hint = f"this {holder} has no campaigns yet: create one first"
    return CampaignError(
        [Diagnostic("RC901", f"no campaign named '{asked_name(name)}' in {where}", None, hint)], missing=True
    )


def asked_name(name: str) -> str:
    """A campaign's name as a message shows the one asked for: whole, unless it is longer than
    any kept name may be (`KEPT_NAME_MOST`), then its start and its length (a name of 5,000
    characters was echoed whole: hunt 13l)."""
    return name if len(name) <= KEPT_NAME_MOST else f"{name[:50]}… ({len(name):,} characters)"
