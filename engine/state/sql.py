"""What the two SQL stores share, written once: reading the layout's rows into records, and the
`Transaction` a store yields. Each store keeps its own connection, locking, errors and the SQL
that differs (creating the layout, refusing a database that is not ours); the statements here
are written with `?` and a store whose driver marks parameters otherwise sets `MARK`.

The layout (see sqlite.py) is the same in both: `campaigns` and `events`, JSON as text.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from types import TracebackType
from typing import Any, ClassVar, Final, Literal, Self

from ..errors import Advice, CampaignError, Diagnostic
from ..frozen import FrozenDict, frozen_hook
from .records import (
    FORMAT,
    HINT_SIDE,
    NEWEST,
    SCHEMA_VERSION,
    STATE_NOW,
    UNREAD,
    WHOLE,
    Event,
    Header,
    Near,
    State,
    Transaction,
    Window,
    check_append,
    damage,
    dumps,
    fitting,
    header_damage,
    json_object,
    near_names,
    now,
    unknown_campaign,
)

SCHEMA: Final = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)",
    """CREATE TABLE campaigns (
        name TEXT PRIMARY KEY NOT NULL,
        ruleset TEXT NOT NULL,
        ruleset_hash TEXT NOT NULL,
        ruleset_text TEXT NOT NULL,
        params TEXT NOT NULL,
        created TEXT NOT NULL
    )""",
    """CREATE TABLE events (
        campaign TEXT NOT NULL REFERENCES campaigns (name),
        seq INTEGER NOT NULL CHECK (seq >= 1),
        kind TEXT NOT NULL,
        data TEXT NOT NULL,
        state TEXT NOT NULL,
        undoes INTEGER,
        at TEXT NOT NULL,
        PRIMARY KEY (campaign, seq)
    )""",
)
"""The layout, schema version 1 (see sqlite.py), in SQL that SQLite and PostgreSQL both take."""
EVENT_COLUMNS: Final = "seq, kind, data, state, undoes, at"


class SqlStore:
    """The reads of a campaign store over SQL. A subclass gives `_where` (the database as shown),
    `_errors` (the driver's errors as one RC903), `_read` (one snapshot) and `_write` (one write
    transaction with the lock taken), and `HOLDER` and `MARK` for its kind."""

    HOLDER: ClassVar[str] = "file"
    """What holds the campaigns, in messages: "file" or "database"."""
    MARK: ClassVar[str] = "?"
    """The driver's parameter mark."""
    BY_CODE_POINT: ClassVar[str] = ""
    """What orders text by its code points, as Python does (SQLite's own order, memcmp of UTF-8;
    PostgreSQL's by the database's locale unless told `COLLATE "C"`)."""
    LEFT: ClassVar[str] = "the file was left as it is"
    """What a refusal says of the database it would not use."""
    SIZE: ClassVar[str] = "length"
    """The SQL function that sizes a text column without decoding it (`Window.most_chars`)."""
    LOCKS_ROW: ClassVar[bool] = False
    """Whether a transaction locks its campaign's row (`FOR UPDATE`); not where the write lock
    already covers the whole file."""
    _where: str

    def _errors(self, doing: str) -> AbstractContextManager[None]:
        raise NotImplementedError

    def _read(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _write(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def create(self, header: Header, state: State) -> Event:
        """A new campaign with its first event ("new"); RC902 if the name is taken (then nothing
        is written: the insert that finds the name taken and the event share one transaction)."""
        params = dumps(header.params, "campaign parameters")
        state_text = dumps(state, "starting state")
        at = now()
        with self._write() as connection, self._errors("creating a campaign"):
            inserted = connection.execute(
                self._sql(
                    "INSERT INTO campaigns (name, ruleset, ruleset_hash, ruleset_text, params, created)"
                    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING"
                ),
                (
                    header.name,
                    header.ruleset,
                    header.ruleset_hash,
                    header.ruleset_text,
                    params,
                    header.created or at,
                ),
            ).rowcount
            if inserted != 1:
                raise self._error(
                    "RC902",
                    f"a campaign named '{header.name}' already exists in {self._where}",
                    "choose another name: a campaign is never overwritten",
                )
            connection.execute(
                self._sql(
                    f"INSERT INTO events (campaign, {EVENT_COLUMNS}) VALUES (?, 1, 'new', '{{}}', ?, NULL, ?)"
                ),
                (header.name, state_text, at),
            )
        return Event(
            1,
            "new",
            FrozenDict(),
            json.loads(state_text, object_pairs_hook=frozen_hook(state_text)),
            None,
            at,
        )

    @contextmanager
    def transaction(self, name: str) -> Iterator[Transaction]:
        """One atomic change to campaign `name`: the write lock is taken first (waiting up to the
        timeout for another writer of it), everything read inside is current, and the appends
        are committed on a normal exit and all dropped on any exception, which is re-raised.
        RC901 if there is no such campaign. One transaction at a time per store."""
        with self._write() as connection:
            self._header(connection, name, lock=self.LOCKS_ROW)
            tx = SqlTransaction(self, connection, name)
            try:
                yield tx
            finally:
                tx.closed = True

    def _sql(self, statement: str) -> str:
        return statement if self.MARK == "?" else statement.replace("?", self.MARK)

    def _error(
        self, code: str, message: str, hint: str | None = None, advice: Advice | None = None
    ) -> CampaignError:
        return CampaignError([Diagnostic(code, message, None, hint, advice=advice)])

    def _keepers(self, message: str, hint: str) -> CampaignError:
        """RC903 about the store itself, which only whoever keeps it can mend (its `hint` tells
        them how): to a client of a server, its operator (advice `keeper`, of the store), where
        "give a campaign database" is nothing a request can do."""
        return self._error("RC903", message, hint, Advice("keeper", of="store", lead=hint))

    def _ours(self, meta: Mapping[str, object], tables: set[str], foreign: CampaignError) -> Literal["ours"]:
        """Whether a database with `tables` and the `meta` rows read from it is ours: `foreign`
        when it has no format mark of ours, RC903 for an unknown or newer schema version or a
        missing table. Decided by reading alone."""
        if meta.get("format") != FORMAT:
            raise foreign
        version = str(meta.get("version", ""))
        if not (version.isascii() and version.isdigit()) or int(version) < 1:  # '²' is a digit to str
            raise self._error("RC903", f"{self._where} has an unknown schema version {version!r}")
        if int(version) > SCHEMA_VERSION:
            raise self._keepers(
                f"{self._where} is a rulecraft campaign database of schema version {version}, newer than"
                f" this rulecraft reads (version {SCHEMA_VERSION})",
                f"upgrade rulecraft to use it; {self.LEFT}",
            )
        missing = sorted({"campaigns", "events"} - tables)
        if missing:
            raise self._error(
                "RC903", f"{self._where} is damaged: its table(s) {', '.join(missing)} are missing"
            )
        return "ours"

    def names(self, after: str | None = None, limit: int | None = None) -> list[tuple[str, str, int]]:
        """Every campaign as (name, ruleset, number of events), sorted by name (its code points:
        `BY_CODE_POINT`, as Python sorts); or those named after `after`, at most `limit`: a page of
        a store of many (100,000 took 2 s and 5 MB to list whole)."""
        order = f"c.name{self.BY_CODE_POINT}"
        if after is not None and "\x00" in after:
            # no name holds a NUL (nor can PostgreSQL be sent one), so the names after `p + NUL
            # + rest` are exactly those after `p`, which is not after it
            after = after[: after.index("\x00")]
        where, args = ("", []) if after is None else (f" WHERE {order} > ?", [after])
        cut = "" if limit is None else f" LIMIT {int(limit)}"
        with self._read() as connection, self._errors("listing campaigns"):
            rows = connection.execute(
                self._sql(
                    "SELECT c.name, c.ruleset, (SELECT COUNT(*) FROM events AS e WHERE e.campaign = c.name)"
                    f" FROM campaigns AS c{where} ORDER BY {order}{cut}"
                ),
                args,
            ).fetchall()
        return [(str(name), str(ruleset), int(count)) for name, ruleset, count in rows]

    def header(self, name: str) -> Header:
        """The campaign's header; RC901 (with the nearest name) if there is no such campaign."""
        with self._read() as connection:
            return self._header(connection, name)

    def events(self, name: str, window: Window = WHOLE) -> list[Event]:
        """The campaign's whole log, or the part `window` asks for, oldest first; RC901 if there
        is no such campaign."""
        with self._read() as connection:
            self._header(connection, name)
            return self._events(connection, name, window)

    def last(self, name: str) -> Event:
        """The campaign's newest event; RC901 if there is no such campaign."""
        with self._read() as connection:
            self._header(connection, name)
            return self._events(connection, name, NEWEST)[0]

    def _header(self, connection: Any, name: str, *, lock: bool = False) -> Header:
        """The header, read inside the caller's transaction; `lock` also locks the campaign's row
        until it ends (`FOR UPDATE`: a store whose write lock is the whole file never asks)."""
        with self._errors("locking the campaign" if lock else "reading a campaign"):
            row = None
            if _storable(name):  # else no campaign has it (see `arguments.kept_name`)
                row = connection.execute(
                    self._sql(
                        "SELECT ruleset, ruleset_hash, ruleset_text, params, created"
                        " FROM campaigns WHERE name = ?"
                    )
                    + (" FOR UPDATE" if lock else ""),
                    (name,),
                ).fetchone()
            if row is None:
                raise unknown_campaign(name, self._near(connection, name), self._where, self.HOLDER)
        ruleset, ruleset_hash, ruleset_text, params, created = row
        wrong = header_damage(
            ruleset=ruleset, ruleset_hash=ruleset_hash, ruleset_text=ruleset_text, created=created
        )
        if wrong is not None:
            raise self._error("RC903", f"{self._where} is damaged: in campaign '{name}', {wrong}")
        return Header(
            name,
            ruleset,
            ruleset_hash,
            ruleset_text,
            self._load(params, name, "its parameters' text"),
            created,
        )

    def _near(self, connection: Any, name: str) -> Near:
        """The names the unknown campaign `name`'s hint weighs (`records.near_names`): `HINT_SIDE`
        names on each side of it and its other cases, each read through the key's index, where
        every name of the store was read before. The sides are in the database's own order, not
        `BY_CODE_POINT`: any order places a typo near its name, and PostgreSQL's index keeps only
        its own (with `COLLATE "C"`, each side was a scan of every name: 40 ms at 100,000)."""

        def side(anchor: str, before: bool) -> list[str]:
            which, direction = ("<", "DESC") if before else (">", "ASC")
            rows = connection.execute(
                self._sql(
                    f"SELECT name FROM campaigns WHERE name {which} ? ORDER BY name {direction}"
                    f" LIMIT {HINT_SIDE + 1}"
                ),
                (anchor,),
            ).fetchall()
            return [str(r[0]) for r in rows]

        def exist(names: list[str]) -> list[str]:
            if not names:
                return []
            marks = ", ".join("?" for _ in names)
            rows = connection.execute(
                self._sql(f"SELECT name FROM campaigns WHERE name IN ({marks})"), names
            ).fetchall()
            return [str(r[0]) for r in rows]

        return near_names(name, side, exist)

    def _events(self, connection: Any, name: str, window: Window = WHOLE) -> list[Event]:
        """The campaign's events in `window`, oldest first. A campaign is made with its first
        event in one transaction, so one without any was damaged from outside (RC903), as is a
        log with a gap: the events read must follow one another, from the one after `after`."""
        where = "campaign = ?"
        args: list[object] = [name]
        if window.after:
            where, args = where + " AND seq > ?", [*args, window.after]
        if window.before is not None:
            where, args = where + " AND seq < ?", [*args, window.before]
        order = "DESC" if window.newest else "ASC"
        limit = "" if window.limit is None else f" LIMIT {int(window.limit)}"
        # a column not asked for is not read at all (NULL in its place): not decoded, nor, in
        # SQLite, its overflow pages read from the file
        data = "data" if window.data else "NULL"
        state = "state" if window.state else "NULL"
        if window.most_chars is not None:
            limit = f" LIMIT {self._fitting(connection, window, where, args, order + limit)}"
        with self._errors("reading events"):
            rows = connection.execute(
                self._sql(
                    f"SELECT seq, kind, {data}, {state}, undoes, at FROM events WHERE {where}"
                    f" ORDER BY seq {order}{limit}"
                ),
                args,
            ).fetchall()
        if window.newest:
            rows.reverse()
        if not rows and window.open_ended:
            raise self._error("RC903", f"{self._where} is damaged: campaign '{name}' has no events")
        events = [
            Event(
                seq,
                kind,
                self._load(data, name, f"event {seq}'s data") if window.data else UNREAD,
                self._load(state, name, f"event {seq}'s state") if window.state else UNREAD,
                undoes,
                at,
            )
            for seq, kind, data, state, undoes, at in rows
        ]
        # appended one after another from 1: the first read is the one after `after`, unless the
        # page was taken from the newest end
        expected = None if window.newest else window.after + 1
        for e in events:
            wrong = damage(e.seq, e.kind, e.undoes, e.at)
            if wrong is None and expected is not None and e.seq != expected:
                wrong = f"event {expected} is missing (the log goes on at event {e.seq})"
            if wrong is not None:
                raise self._error("RC903", f"{self._where} is damaged: in campaign '{name}', {wrong}")
            expected = e.seq + 1
        return events

    def _fitting(self, connection: Any, window: Window, where: str, args: list[object], rest: str) -> int:
        """How many events of the page `where` and `rest` (its order and limit) take fit in
        `window.most_chars`, sized by `SIZE` (the columns read, not decoded), and read only until
        one does not fit (SQLite's rows come one at a time)."""
        parts = [f"{self.SIZE}({c})" for c, read in (("data", window.data), ("state", window.state)) if read]
        size = " + ".join(parts) or "0"
        with self._errors("reading events"):
            cursor = connection.execute(
                self._sql(f"SELECT {size} FROM events WHERE {where} ORDER BY seq {rest}"), args
            )
            try:
                return fitting((int(row[0] or 0) for row in cursor), window.most_chars or 0)
            finally:
                cursor.close()

    def _load(self, text: object, campaign: str, what: str) -> dict[str, Any]:
        """A JSON object from a column; anything else means the database was damaged (RC903)."""
        value = json_object(text)
        if isinstance(value, dict):
            return value
        raise self._error("RC903", f"{self._where} is damaged: in campaign '{campaign}', {what} {value}")


class SqlTransaction:
    """The `Transaction` a SQL store's `transaction` yields: valid only inside its `with`, on the
    connection whose transaction holds the campaign's write lock."""

    def __init__(self, store: SqlStore, connection: Any, name: str) -> None:
        self._store = store
        self._connection = connection
        self.name = name
        self.closed = False
        self._last: Event | None = None

    def _live(self) -> Any:
        if self.closed:
            raise RuntimeError(f"the transaction on campaign '{self.name}' has ended")
        return self._connection

    def header(self) -> Header:
        return self._store._header(self._live(), self.name)

    def events(self, window: Window = WHOLE) -> list[Event]:
        return self._store._events(self._live(), self.name, window)

    def last(self) -> Event:
        # read once per transaction and per append: an event is read-only (`Event`), so the one
        # read is handed to every reader (a change read it twice under the lock, and a JSON read
        # into read-only values costs a plain read and half again); its state alone, which is all
        # a change reads of it (decoding a scene's data, its trace, took 0.8 s under the lock)
        if self._last is None:
            self._last = self._store._events(self._live(), self.name, STATE_NOW)[0]
        else:
            self._live()
        return self._last

    def append(self, kind: str, data: Mapping[str, Any], state: State, undoes: int | None = None) -> Event:
        """Add an event after the last one (seq = last seq + 1, read under the write lock). A
        wrong kind or `undoes` is a caller's bug: ValueError (see `records.check_append`)."""
        connection = self._live()
        sql = self._store._sql
        data_text = dumps(data, "event data")
        state_text = dumps(state, "state")
        with self._store._errors("appending an event"):
            row = connection.execute(
                sql("SELECT COUNT(*), COALESCE(MAX(seq), 0) FROM events WHERE campaign = ?"), (self.name,)
            ).fetchone()
        if row[0] != row[1]:  # events are appended one after another from 1: a gap was made outside
            raise self._store._error(
                "RC903",
                f"{self._store._where} is damaged: in campaign '{self.name}', "
                f"{'1 event is' if row[0] == 1 else f'{row[0]} events are'} numbered up to {row[1]}",
            )
        with self._store._errors("appending an event"):
            seq = int(row[1]) + 1
            check_append(self.name, kind, undoes, seq)
            at = now()
            connection.execute(
                sql(f"INSERT INTO events (campaign, {EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)"),
                (self.name, seq, kind, data_text, state_text, undoes, at),
            )
        data_read = json.loads(data_text, object_pairs_hook=frozen_hook(data_text))
        state_read = json.loads(state_text, object_pairs_hook=frozen_hook(state_text))
        self._last = Event(seq, kind, data_read, state_read, undoes, at)
        return self._last

    def replace_ruleset(self, ruleset_hash: str, ruleset_text: str) -> None:
        """Point the campaign at a changed ruleset; the caller records the migration as an event."""
        with self._store._errors("replacing the ruleset"):
            self._live().execute(
                self._store._sql("UPDATE campaigns SET ruleset_hash = ?, ruleset_text = ? WHERE name = ?"),
                (ruleset_hash, ruleset_text, self.name),
            )


def _storable(name: str) -> bool:
    """Whether `name` can be sent to the database at all: text with a lone surrogate (what Python
    makes of bytes that are not UTF-8 on a command line) cannot, nor a NUL to PostgreSQL (it was
    a 503 RC903 over HTTP, `/api/campaigns/mo%00r`), so no campaign is named so (a name holds
    neither: `arguments.kept_name`)."""
    if "\x00" in name:
        return False
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
