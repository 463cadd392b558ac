"""Campaigns in a PostgreSQL database: the `Store` for several processes on several machines.

Why PostgreSQL beside SQLite: a bot that serves many tables runs several processes, often on
several machines, and they must share one campaign's log. SQLite's lock is a file's; a server's
is the network's. The guarantees are SQLite's, kept the same way: one transaction per change,
committed whole or not at all (an exception, a refused action, a killed process or a dropped
connection keeps nothing), and no lost or interleaved events however many processes write.

How two writers of one campaign are kept apart: `SELECT ... FOR UPDATE` on the campaign's row,
first thing in every changing transaction, in READ COMMITTED (set on each transaction, whatever
the server's default). The second writer waits in the server's lock queue until the first
commits or rolls back; its later statements then see everything the first committed, so its
read-compute-append starts from the latest event. The alternatives, weighed:

- SERIALIZABLE with retry: a conflict is found only at a later statement or at commit, and the
  whole change must then be run again. The `Transaction` interface hands the transaction to the
  caller's code (the rules, the roll), which a store cannot re-run; a retry loop would have to
  live in every caller, and an action would roll its dice again. Waiting is simpler and fair.
- An advisory lock (`pg_advisory_xact_lock`) keyed by a hash of the name: the same queue, but
  tied to a number instead of the data (names can collide, other tools cannot see it). The row
  lock is on the row itself, is released by commit, rollback or a lost connection alike, and
  other campaigns' writers never wait for it. (An advisory lock is used once: while the tables
  are laid out in an empty database, where there is no row yet to lock.)

Waiting is bounded like SQLite's busy timeout: `lock_timeout` is set on each transaction, a
read's too, to the store's `timeout`, after which the writer (or a reader held up by a lock
taken from outside, a `LOCK TABLE`) gets RC903 "locked". Seqs stay 1..n: each append
takes the last seq under the row lock, and (campaign, seq) is the primary key besides.

Read-write is not set on a transaction: a database, user or connection its administrator
made read-only by default (`default_transaction_read_only = on`) stays so, where `READ WRITE`
would quietly override it. A write there is one RC903 before anything is written; reads work.

Layout, schema version 1 — the SQLite store's, so the same bytes are kept (JSON is
`json.dumps(..., sort_keys=True)` in `text` columns, times ISO 8601 UTC text):

    meta(key text PRIMARY KEY, value text)   ('format', 'rulecraft-campaigns'), ('version', '1')
    campaigns(name PRIMARY KEY, ruleset, ruleset_hash, ruleset_text, params JSON, created)
    events(campaign REFERENCES campaigns, seq, kind, data JSON, state JSON, undoes, at,
           PRIMARY KEY (campaign, seq))
    INDEX campaigns_by_code_point ON campaigns (name COLLATE "C")   (pages of names; `_index`)

The tables live in the connection's current schema: `public` unless the URL says otherwise
(`?options=-csearch_path%3Dname`). A database is ours when that schema holds our `meta` table
with our format mark; when it holds nothing at all, our tables are laid out in it (one
transaction: all of them or none). Anything else — another program's tables, a newer schema
version — is refused with RC903 after reading only (in a READ ONLY transaction): a database that
is not ours is never changed.

One `PostgresStore` holds one connection. Use one store per thread (as with SQLite); calls from
several threads on one store are serialised by a lock rather than mixed into one transaction.
psycopg 3 is needed only here, and only when a store is opened: the `postgres` extra
(`pip install 'rulecraft[postgres]'`).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final, Literal
from urllib.parse import unquote

from ..errors import Advice, CampaignError
from ..runtime import arguments
from ..runtime.work import wait_within
from .records import (
    FORMAT,
    SCHEMA_VERSION,
)
from .sql import SCHEMA, SqlStore

try:
    import psycopg
    from psycopg import errors as pg_errors
    from psycopg.pq import TransactionStatus
except ImportError:  # the 'postgres' extra is not installed: PostgresStore says so when opened
    psycopg = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from .records import Store

    Connection = psycopg.Connection[tuple[Any, ...]]

EXTRA: Final = "pip install 'rulecraft[postgres]'"
_LAYOUT_LOCK: Final = 0x72756C6563726166
"""The advisory lock key ("rulecraf") held while an empty database gets our tables: two
processes opening one new database at once lay them out once."""
_CONNECT_TIMEOUT: Final = 10
PAGE_INDEX: Final = "campaigns_by_code_point"
"""The index a page of `names` reads (`WHERE name COLLATE "C" > after ORDER BY name COLLATE "C"
LIMIT n`): the primary key's index keeps the database's locale order, so without this one each
page read and sorted every name (31 ms at 100,000 campaigns; 0.2 ms with it)."""
_PAGE_INDEX_SQL: Final = f'CREATE INDEX IF NOT EXISTS {PAGE_INDEX} ON campaigns (name COLLATE "C")'
INDEX_WAIT: Final = "50ms"
"""How long adding the page index to an older database waits for the table's lock (a campaign
being made, an `ANALYZE` from outside): an open goes on without it rather than wait."""
INDEX_BUILD: Final = "2s"
"""How long building it may take (a writer of a new campaign waits meanwhile): about 2,000,000
campaigns' names. A larger database is given it by hand (docs/language.md)."""
INDEX_RETRY: Final = 600.0
"""Seconds before a process tries again where adding it failed (a server opens a store per
request)."""
_INDEX_TRIED: dict[str, float] = {}
"""Where this process last failed to add it, by URL, and when (`time.monotonic`)."""


_SCHEME: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_SECRET_KEYS: Final = frozenset(
    {"password", "sslpassword", "oauth_client_secret", "scram_client_key", "scram_server_key"}
)
"""The parameters whose values are masked: in a URL's query (compared case-insensitively, once
decoded) and in key=value connection text."""
_KEYWORD_PASSWORD: Final = re.compile(
    r"(\b(?:" + "|".join(sorted(_SECRET_KEYS, key=len, reverse=True)) + r")\s*=\s*)"
    r"('(?:[^'\\]|\\.)*'?|(?:\\.?|[^\s\\])+)",
    re.IGNORECASE | re.DOTALL,
)
"""A secret's value in key=value connection text: quoted, or unquoted up to the first space that
no backslash escapes (libpq reads `password=a\\ b` as `a b`)."""
_BAD_ESCAPE: Final = re.compile(r"%(?![0-9A-Fa-f]{2})|%00")


def _host_start(url: str, start: int) -> int:
    """Where libpq begins reading the host of the URL whose text after its scheme begins at
    `start`: just after the first '@' when one comes before any '/' (the user and password end
    there), else at `start`."""
    first = re.search(r"[@/]", url[start:])
    return start + first.end() if first is not None and first.group() == "@" else start


def _query_starts(url: str) -> tuple[int | None, list[int]]:
    """Where a URL's query may begin (just after a '?'): libpq's reading, the first '?' after the
    user and password as libpq ends them (None when there is none), and every reading an
    unencoded '@', '/' or '?' in a password or a name may make of it: just after each '?' of the
    address, libpq's among them. The one home of "where the query begins": what libpq reads
    decides what it shows and refuses; every reading decides what is masked."""
    scheme = _SCHEME.match(url)
    if scheme is None:
        return None, []
    marks = [m.end() for m in re.finditer(r"\?", url) if m.start() >= scheme.end()]
    host = _host_start(url, scheme.end())
    return next((mark for mark in marks if mark > host), None), marks


def _userinfo(url: str) -> tuple[int, int, bool] | None:
    """Where a URL's user and password lie, `url[start:end]` (the '@' that ends them at `end`),
    and whether libpq reads them so. libpq ends them at the first '@' before any '/'; an '@' or a
    '/' in the password that is not percent-encoded moves that end into the password, and the
    rest of it becomes the host, the database or the query, which libpq's messages show. So the
    span given is the widest any reading makes of it: up to the last '@' before the query (or
    the last '@' of all, where what follows libpq's '?' is not a query whose every piece libpq
    reads as a parameter)."""
    scheme = _SCHEME.match(url)
    if scheme is None:
        return None
    start = scheme.end()
    query, _ = _query_starts(url)
    before = len(url)
    if query is not None and all(_readable(piece) for piece in url[query:].split("&") if piece):
        before = query - 1  # a query libpq reads whole: the '?' is the query's
    last = url.rfind("@", start, before)
    if last < 0:
        return None
    return start, last, last + 1 == _host_start(url, start)


def _decoded(token: str) -> str | None:
    """`token` percent-decoded as libpq decodes it, or None where libpq refuses it (a '%' without
    two hex digits after it, or %00)."""
    return None if _BAD_ESCAPE.search(token) else unquote(token)


def _is_secret(piece: str) -> bool:
    """Whether a query's `key=value` piece gives a password (its key, once decoded, one of ours)."""
    key, equals, _ = piece.partition("=")
    name = _decoded(key)
    return bool(equals) and name is not None and name.lower() in _SECRET_KEYS


def _libpq_reads(piece: str) -> bool:
    """Whether libpq reads `piece` as a parameter of a URL's query: asked of libpq itself."""
    try:
        psycopg.conninfo.conninfo_to_dict("postgresql:///?" + piece)
    except (psycopg.Error, UnicodeError):
        return False
    return True


_READ_KEYS: Final[set[str]] = set()
"""Query keys libpq was found to read, as written (`sslmode`, `%73slmode`): only these are kept,
so that no piece of a password (a key under some reading) is kept after it is asked about."""


def _key_read(key: str) -> bool:
    """Whether libpq reads the query parameter `key` (as written, percent-encoded or not), with
    any value: asked of libpq once per key it reads."""
    if key in _READ_KEYS:
        return True
    if _libpq_reads(key + "="):
        _READ_KEYS.add(key)
        return True
    return False


def _readable(piece: str) -> bool:
    """Whether libpq reads a query's piece as a parameter of its own, as libpq itself says:
    `key=value` with one '=', a key it takes (`requiressl` too), and both percent-encoded as it
    asks. Without psycopg, none is taken for sure to be one."""
    if psycopg is None:
        return False
    key, equals, value = piece.partition("=")
    if not equals or "=" in value or _decoded(value) is None:
        return False
    return _key_read(key) or _libpq_reads(piece)  # `ssl=true` is read, `ssl` with another value not


def _query_spans(url: str, at: int) -> list[tuple[int, int]]:
    """The passwords in a URL's query read as beginning at `at`: the value of each secret piece
    together with the pieces after it that libpq would not read as a parameter of their own ('&'
    or '=' in the password not percent-encoded: `?password=PASS&WORD`). An empty piece (`&&`, a
    trailing '&') does not end a password: `?password=PASS&` may be the password `PASS&`."""
    spans: list[tuple[int, int]] = []
    secret: int | None = None  # where the password being read began
    end = at  # where the last piece ended
    for piece in url[at:].split("&"):
        if _is_secret(piece):
            if secret is not None:
                spans.append((secret, end))
            secret = at + piece.index("=") + 1
        elif secret is not None and piece and _readable(piece):
            spans.append((secret, end))
            secret = None
        end = at + len(piece)
        at = end + 1
    if secret is not None:
        spans.append((secret, end))
    return spans


def _secret_spans(url: str) -> list[tuple[int, int]]:
    """Where the passwords of `url` lie, as `(start, end)` spans of it, each the widest any reading
    makes of it: the user's password (see `_userinfo`), and each password in the query, wherever
    the query may begin (see `_query_starts`)."""
    spans: set[tuple[int, int]] = set()
    found = _userinfo(url)
    if found is not None:
        colon = url.find(":", found[0], found[1])
        if colon >= 0:
            spans.add((colon + 1, found[1]))
    for at in _query_starts(url)[1]:
        spans.update(_query_spans(url, at))
    return sorted(spans)


def redact(url: str) -> str:
    """The URL as it may be shown: each password in it (user:password@, ?password=, or
    password= in key=value text) masked whole where it sits, however an unencoded '@', ':', '/',
    '?', '#', '&' or '=' in it would have it read; nothing else is changed."""
    if _SCHEME.match(url) is None:  # key=value connection text
        return _KEYWORD_PASSWORD.sub(r"\1***", url)
    merged: list[list[int]] = []
    for start, end in _secret_spans(url):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    shown, after = [], 0
    for start, end in merged:
        shown += [url[after:start], "***"]
        after = end
    return "".join(shown) + url[after:]


def _overlaps(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(left < end and start < right for left, right in spans)


def _unclear(url: str) -> bool:
    """Whether libpq would read a password in `url` otherwise than the widest reading, so that
    part of it would be sent as the host, the port or the database (and shown in libpq's
    messages): an '@' or '/' in the user's password that is not percent-encoded, or a password
    in the query that some reading puts before libpq's host ends (`postgresql://h?password=a@b`:
    libpq reads the host `b`)."""
    found = _userinfo(url)
    if found is not None and not found[2] and ":" in url[found[0] : found[1]]:
        return True
    scheme = _SCHEME.match(url)
    if scheme is None:
        return False
    query, _ = _query_starts(url)
    return _overlaps(
        _secret_spans(url), _host_start(url, scheme.end()), len(url) if query is None else query - 1
    )


def _unclear_query(url: str) -> bool:
    """Whether a password in the query may run on past where libpq ends it: a '=' in its value,
    or a piece of the query as libpq reads it, other than a password's value, that holds part of
    a password under some reading (an '&' in the password not percent-encoded: libpq would refuse
    that piece and show it in its message, or read it as a parameter of its own)."""
    query, _ = _query_starts(url)
    if query is None:
        return False
    spans = _secret_spans(url)
    at = query
    for piece in url[query:].split("&"):
        shown = at + len(piece)  # what of the piece libpq may show: all of it but a password's value
        if _is_secret(piece):
            if piece.count("=") > 1:
                return True
            shown = at + piece.index("=")
        if piece and _overlaps(spans, at, shown):
            return True
        at += len(piece) + 1
    return False


def _passwords(url: str) -> list[str]:
    """The password(s) written in `url`, as written and decoded, each also as libpq reads it (up
    to an '&' in it): where libpq's words on a URL it cannot read quote one whole (a token it
    could not read), it is masked."""
    if _SCHEME.match(url) is None:
        found = [m.group(2).strip("'") for m in _KEYWORD_PASSWORD.finditer(url)]
        found += [re.sub(r"\\(.)", r"\1", secret, flags=re.DOTALL) for secret in found]
    else:
        found = []
        for start, end in _secret_spans(url):
            pieces = url[start:end].split("&")
            found += ["&".join(pieces[:n]) for n in range(1, len(pieces) + 1)]
    return sorted({p for secret in found for p in (secret, unquote(secret)) if p}, key=len, reverse=True)


class PostgresStore(SqlStore):
    """The campaigns in the PostgreSQL database at `url` (`postgresql://user:password@host:port/db`,
    `postgres://...`, or a socket folder as `?host=/path`); our tables are laid out in it when
    its schema is empty.

    `timeout` is how many seconds a writer waits for another writer of the same campaign before
    giving up (RC903 "locked"); `connect_timeout` bounds the connection (unless the URL sets it).
    A server that cannot be reached, refused credentials, a missing database, and a database
    that is not ours are each one RC903 naming the URL (its password masked). A URL whose password
    libpq would end early (an '@' or '/' in it not percent-encoded, or a password in the query
    that an unencoded '?' or '@' puts before libpq's host ends) is refused before it is sent:
    libpq's messages would show the rest of it as the host or the database. So is one whose
    password in the query (`?password=`) is followed by a piece libpq would not read as a
    parameter (an '&' or '=' in it not percent-encoded): libpq's message would show that piece.
    Close the store (or use it as a context manager) when done.
    """

    HOLDER = "database"
    MARK = "%s"
    BY_CODE_POINT = ' COLLATE "C"'
    LEFT = "the database was left as it is"
    LOCKS_ROW = True
    SIZE = "octet_length"  # read from a long value's TOAST header, which `length` would decompress

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 10.0,
        connect_timeout: float = _CONNECT_TIMEOUT,
        connect: bool = True,
    ) -> None:
        """Open the store at `url`; `connect=False` only reads the address, as libpq will, and is
        closed (a server checks its `--db` so at start: `address_read`)."""
        self.url = url
        self.path = redact(url)
        """Where the campaigns are, for messages: the URL with its password masked."""
        # NaN had passed here, to fail as a ValueError at the first transaction (hunt 13zf)
        self.timeout = float(arguments.seconds("PostgresStore", "timeout", timeout, optional=False) or 0)
        self._waited = self.timeout
        """What the running transaction waits for a lock at most (`wait_within`), for its refusal."""
        self.connect_timeout = float(
            arguments.seconds("PostgresStore", "connect_timeout", connect_timeout, optional=False) or 0
        )
        self._where = self.path
        self._lock = threading.RLock()
        self._connection: Connection | None = None
        self._closed = False
        if _unclear(url):  # refused before libpq reads it: its messages would show part of the password
            raise self._error(
                "RC903",
                f"{self._where}: where its password ends is unclear: an '@', a '/' or a '?' in the address is"
                " not percent-encoded, and libpq would take part of the password for the host or the"
                " database; nothing was sent to the server",
                "percent-encode an '@' in a user, password or database name as %40, a '/' as %2F and a"
                " '?' as %3F: the password PASS@WORD is written postgresql://USER:PASS%40WORD@HOST/DATABASE",
            )
        if psycopg is None:
            raise self._error(
                "RC903",
                f"{self._where}: campaigns on PostgreSQL need psycopg 3, which is not installed",
                f"install the 'postgres' extra: {EXTRA}",
                Advice("extra", "postgres"),
            )
        if _unclear_query(url):  # refused before libpq reads it: its message would show a piece of it
            raise self._error(
                "RC903",
                f"{self._where}: where its password ends is unclear: what follows the password in the"
                " query is not a parameter libpq knows (an '&', a '=' or a '?' in the password or the"
                " address not percent-encoded?), and libpq would show it in its message; nothing was sent"
                " to the server",
                "percent-encode an '&' in a password as %26, a '=' as %3D and a '?' as %3F: the password"
                " PASS&WORD is written ?password=PASS%26WORD; and check the names of the parameters after it",
            )
        if not connect:
            self._given()
            self._closed = True
            return
        self._connection = self._connect()
        try:
            self._prepare()
        except BaseException:
            self.close()
            raise

    def __repr__(self) -> str:
        return f"PostgresStore({self._where!r})"

    def __del__(self) -> None:
        """A store dropped without `close` still hangs up (psycopg would warn of an open connection)."""
        connection = getattr(self, "_connection", None)
        if connection is not None:
            connection.close()

    # -- the Store interface ------------------------------------------------------------------

    def close(self) -> None:
        """Release the connection (an open transaction is rolled back). Closing twice is harmless."""
        with self._lock:
            self._closed = True
            connection, self._connection = self._connection, None
            if connection is not None:
                connection.close()  # the server rolls back whatever was open

    # -- opening --------------------------------------------------------------------------------

    def _connect(self) -> Connection:
        """A connection in autocommit mode (every transaction here is begun explicitly). The
        driver's exception is neither the cause nor the context of the RC903 raised for it: its
        words may hold the password whole ('invalid percent-encoded token: "PASS%zz"'), and a
        traceback or `logging.exception` would print them."""
        given = self._given()
        # text goes both ways as UTF-8 whatever the client's environment says (PGCLIENTENCODING)
        extra: dict[str, Any] = {"application_name": "rulecraft", "client_encoding": "utf8"}
        if "connect_timeout" not in given:
            extra["connect_timeout"] = max(2, round(self.connect_timeout))
        try:
            return psycopg.connect(self.url, autocommit=True, **extra)
        except psycopg.Error as e:
            failure = self._connect_error(e)
        raise failure from None  # raised outside the handler: the driver's error is not its context

    def _given(self) -> dict[str, Any]:
        """The address's parameters as libpq reads them, or RC903 (without the driver's error as
        its context, for the same reason as `_connect`)."""
        try:
            return dict(psycopg.conninfo.conninfo_to_dict(self.url))
        except psycopg.Error as e:
            failure = self._error(
                "RC903",
                f"{self._where} is not a PostgreSQL address rulecraft can read: {_first_line(e)}",
                ADDRESS,
                Advice("keeper", of="store", lead=ADDRESS),  # the URL is its keeper's (hunt 13o)
                parsing=True,
            )
        raise failure from None

    def _prepare(self) -> None:
        """Check that the database is ours (only reading), or lay out our tables in an empty one;
        give ours the page index if it has none (`_index`)."""
        with self._read(snapshot=False) as connection:
            found, indexed = self._inspect(connection)
        if found == "empty":
            with self._write() as connection, self._errors("laying out the campaign tables"):
                connection.execute("SELECT pg_advisory_xact_lock(%s)", (_LAYOUT_LOCK,))
                if self._inspect(connection)[0] == "empty":  # not laid out meanwhile by another process
                    for statement in (*SCHEMA, _PAGE_INDEX_SQL):
                        connection.execute(statement)
                    connection.cursor().executemany(
                        "INSERT INTO meta (key, value) VALUES (%s, %s)",
                        [("format", FORMAT), ("version", str(SCHEMA_VERSION))],
                    )
        elif not indexed:
            self._index()

    def _index(self) -> None:
        """Add `PAGE_INDEX` to a database laid out without it (by rulecraft before 2026-12-06; the
        schema version is the same: an index changes no row, and an older rulecraft reads and
        writes the database as before). It is only ever faster, never needed: where it cannot be
        made now — a read-only database or server, a user who does not own the table, the
        table's lock held longer than `INDEX_WAIT`, a build longer than `INDEX_BUILD` — pages
        are read as they were, by a scan of every name, and this process tries again after
        `INDEX_RETRY`. One transaction; another process building it (the layout's lock taken)
        is left to it."""
        tried = _INDEX_TRIED.get(self.url)
        if tried is not None and time.monotonic() - tried < INDEX_RETRY:
            return
        try:
            with self._write() as connection, self._errors("adding the page index"):
                connection.execute(
                    "SELECT set_config('lock_timeout', %s, true), set_config('statement_timeout', %s, true)",
                    (INDEX_WAIT, INDEX_BUILD),
                )
                (ours,) = _one(connection.execute("SELECT pg_try_advisory_xact_lock(%s)", (_LAYOUT_LOCK,)))
                if ours:
                    connection.execute(_PAGE_INDEX_SQL)
        except CampaignError:  # said above: not having it is slower, never wrong; whatever stops
            # every use is met again, and told, by the store's first read or write
            if len(_INDEX_TRIED) >= 1024:
                _INDEX_TRIED.clear()
            _INDEX_TRIED[self.url] = time.monotonic()

    def _inspect(self, connection: Connection) -> tuple[Literal["empty", "ours"], bool]:
        """What the current schema holds, decided by reading alone, and whether it has the page
        index; RC903 for anything but ours or empty."""
        with self._errors("reading what the database holds"):
            (encoding,) = _one(connection.execute("SELECT current_setting('server_encoding')"))
            if encoding != "UTF8":  # LATIN1 cannot hold every name; SQL_ASCII hands back bytes
                raise self._keepers(
                    f"{self._where} keeps its text as {encoding}: rulecraft keeps campaigns, whose names"
                    " and rulesets may hold any character, in a UTF8 database",
                    "create one with CREATE DATABASE name ENCODING 'UTF8' TEMPLATE template0",
                )
            (schema,) = _one(connection.execute("SELECT current_schema()"))
            if schema is None:
                raise self._keepers(
                    f"{self._where} has no schema to keep campaigns in:"
                    " its search_path names none that exists",
                    "create the schema first (CREATE SCHEMA name), or leave search_path as it is",
                )
            tables = {
                str(row[0])
                for row in connection.execute(
                    "SELECT c.relname FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace"
                    " WHERE n.nspname = current_schema()"
                ).fetchall()
            }
            if not tables:
                return "empty", False
            meta: dict[str, str] = {}
            if "meta" in tables:
                try:
                    meta = {str(k): str(v) for k, v in connection.execute("SELECT key, value FROM meta")}
                except pg_errors.UndefinedColumn:
                    meta = {}  # another program's meta table
        foreign = self._keepers(
            f"{self._where} holds tables that are not rulecraft's (schema '{schema}' has no"
            f" '{FORMAT}' format mark)",
            "give an empty database, or a schema of its own (add ?options=-csearch_path%3DNAME"
            f" to the URL); {self.LEFT}",
        )
        ours = self._ours(meta, tables, foreign)
        self._check_columns(connection)
        return ours, PAGE_INDEX in tables

    def _check_columns(self, connection: Connection) -> None:
        """RC903 when a column of ours was changed to another type, or dropped, outside rulecraft
        (`ALTER TABLE events ALTER undoes TYPE text`): told before anything is written. It was
        told only when a row was read back, after rulecraft had written its own events into
        the changed column (hunt 13l: an `undoes` of text took two writes, then every read of the
        campaign failed)."""
        with self._errors("reading what the database holds"):
            found = {
                (str(table), str(column)): str(kind)
                for table, column, kind in connection.execute(
                    "SELECT c.relname, a.attname, format_type(a.atttypid, NULL) FROM pg_attribute AS a"
                    " JOIN pg_class AS c ON c.oid = a.attrelid"
                    " JOIN pg_namespace AS n ON n.oid = c.relnamespace"
                    " WHERE n.nspname = current_schema() AND c.relname IN ('campaigns', 'events')"
                    " AND a.attnum > 0 AND NOT a.attisdropped"
                ).fetchall()
            }
        for (table, column), kind in COLUMN_TYPES.items():
            now = found.get((table, column))
            if now != kind:
                said = f"is {now}, not {kind}" if now is not None else "is missing"
                raise self._error(
                    "RC903",
                    f"{self._where} is damaged: the column {table}.{column} {said} (changed outside"
                    " rulecraft)",
                    f"change it back (ALTER TABLE {table} ALTER {column} TYPE {kind}), or restore the"
                    " database from a copy",
                )

    # -- transactions and errors ---------------------------------------------------------------

    def _open(self) -> Connection:
        """The connection, made again if the server dropped it while nothing was open."""
        if self._closed:
            raise RuntimeError(f"{self!r} is closed")
        connection = self._connection
        if connection is None or connection.closed or connection.broken:
            self._connection = connection = self._connect()
        return connection

    def _begin(self, mode: str) -> Connection:
        """BEGIN on the connection; once more on a new connection if the old one had been dropped
        by the server (a restart, an idle timeout) — nothing had been done on it yet."""
        connection = self._open()
        if connection.info.transaction_status != TransactionStatus.IDLE:
            raise RuntimeError(f"{self!r} already has a transaction open: one at a time per store")
        try:
            connection.execute(mode)
        except psycopg.OperationalError:
            if not (connection.closed or connection.broken):
                raise
            connection = self._open()
            with self._errors("connecting again"):
                connection.execute(mode)
        return connection

    def _bound_waits(self, connection: Connection) -> tuple[bool, bool]:
        """Wait for a lock no longer than `timeout`, or what the running request has left
        (`wait_within`), in this transaction (then 55P03: RC903). And,
        in the same round trip, whether the transaction is read-only and whether that is because
        the server is a standby (in recovery)."""
        _, read_only, standby = _one(
            connection.execute(
                "SELECT set_config('lock_timeout', %s, true), current_setting('transaction_read_only'),"
                " pg_is_in_recovery()",
                (f"{max(1, round(self._waited * 1000))}ms",),
            )
        )
        return read_only == "on", bool(standby)

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        """BEGIN (READ COMMITTED, waits bounded by `timeout`) ... COMMIT, or ROLLBACK on any
        exception (re-raised). Read-write is not asked for: a database or user its administrator
        made read-only by default (`default_transaction_read_only`) is refused before anything
        is written, where `READ WRITE` would quietly override that setting."""
        with self._lock:
            with self._errors("starting a transaction"):
                connection = self._begin("BEGIN ISOLATION LEVEL READ COMMITTED")
            try:
                with self._errors("starting a transaction"):
                    self._waited = wait_within(self.timeout)
                    read_only, standby = self._bound_waits(connection)
                if read_only:
                    raise self._read_only(standby)
                yield connection
                with self._errors("committing", committing=True):
                    connection.execute("COMMIT")
            except BaseException:
                _rollback(connection)
                raise

    def _read_only(self, standby: bool) -> CampaignError:
        """RC903 for a write transaction the server begins read-only: a standby's, or the
        default its administrator set for the database, the user or the URL's options."""
        if standby:
            return self._keepers(
                f"cannot write {self._where}: the server is read-only (a standby, in recovery);"
                " nothing was written",
                "give the primary server's address, not a standby's",
            )
        return self._error(
            "RC903",
            f"cannot write {self._where}: the database is read-only by default"
            " (default_transaction_read_only is on for this database, user or connection);"
            " nothing was written",
            "rulecraft keeps to that setting, and reading still works; to write, its administrator turns"
            " it off for rulecraft's user (ALTER ROLE name SET default_transaction_read_only = off)",
        )

    @contextmanager
    def _read(self, *, snapshot: bool = True) -> Iterator[Connection]:
        """One snapshot for several reads (READ ONLY: nothing here can write); inside an open
        transaction of this store, that transaction's."""
        with self._lock:
            connection = self._open()
            if connection.info.transaction_status != TransactionStatus.IDLE:
                yield connection
                return
            level = "REPEATABLE READ" if snapshot else "READ COMMITTED"
            with self._errors("reading"):
                connection = self._begin(f"BEGIN ISOLATION LEVEL {level}, READ ONLY")
            try:
                # a writer never blocks a reader, but a table lock taken from outside (LOCK TABLE,
                # ALTER TABLE) would, for as long as it is held: a reader waits as long as a writer
                with self._errors("reading"):
                    self._waited = wait_within(self.timeout)
                    self._bound_waits(connection)
                yield connection
            finally:
                _rollback(connection)  # nothing was written: ending the read is all this does

    @contextmanager
    def _errors(self, doing: str, *, committing: bool = False) -> Iterator[None]:
        """psycopg's errors as one RC903 naming the database; a misuse of psycopg is not caught."""
        try:
            yield
        except CampaignError:
            raise
        except psycopg.Error as e:
            if isinstance(e, psycopg.ProgrammingError | psycopg.InterfaceError) and e.sqlstate is None:
                raise  # said by psycopg itself, not the server: a bug of ours
            raise self._db_error(e, doing, committing) from e

    def _db_error(self, error: psycopg.Error, doing: str, committing: bool = False) -> CampaignError:
        state = error.sqlstate or ""
        said = _first_line(error)
        if state == "55P03":  # lock_not_available: `lock_timeout` passed
            return self._error(
                "RC903",
                # a campaign's row, or the tables (`list` has no campaign: hunt 13l)
                f"{self._where} is locked: another writer held what this needs (a campaign, or the"
                f" tables) for more than {self._waited:g} s",
                "another process is writing to this campaign (or holds its tables); try again when it is"
                " done, or wait longer",
                Advice("retry"),
            )
        if state == "57014":  # query_canceled: by an administrator, or a role's statement_timeout
            return self._error(
                "RC903",
                f"{self._where}: {doing} was cancelled by the server ({said}); nothing was written"
                if not committing
                else f"{self._where}: committing was cancelled by the server ({said}): the change may or"
                " may not have been kept",
                "try again; if it happens each time, look at the role's statement_timeout",
            )
        if state in ("40001", "40P01", "23505"):  # serialization_failure, deadlock, a seq taken
            return self._error(
                "RC903",
                f"{self._where}: {doing} collided with another writer ({said}); nothing was written",
                "try again",
            )
        if state == "25006":  # read_only_sql_transaction: a standby
            return self._keepers(
                f"cannot write {self._where}: the server is read-only ({said})",
                "give the primary server's address, not a standby's",
            )
        if state == "42501":  # insufficient_privilege
            return self._keepers(
                f"cannot use {self._where}: {said} (while {doing})",
                "grant the user the rights it needs (CREATE on the schema for a new database;"
                " SELECT, INSERT and UPDATE on rulecraft's tables), or use a database it owns",
            )
        if state.startswith("42"):  # undefined table or column: changed outside rulecraft
            return self._error("RC903", f"{self._where} is damaged ({said}) while {doing}")
        if state.startswith("53"):  # insufficient resources: disk full, out of memory
            return self._keepers(
                f"cannot write {self._where}: the server is out of room ({said}) while {doing}",
                "free room on the server, then try again",
            )
        if isinstance(error, psycopg.DataError) and not state:
            return self._error(
                "RC903",
                f"cannot keep that in {self._where} while {doing}: {said}",
                "PostgreSQL text cannot hold a NUL character (\\x00): leave it out of names and text",
            )
        if isinstance(error, psycopg.OperationalError) and (not state or state.startswith(("08", "57P"))):
            if committing:
                return self._error(
                    "RC903",
                    f"lost the connection to {self._where} while committing ({said}): the change may or may"
                    " not have been kept",
                    "look at the campaign's log before doing it again",
                )
            return self._error(
                "RC903",
                f"lost the connection to {self._where} while {doing} ({said}); nothing was written",
                "check that the server is running, then try again",
            )
        return self._error("RC903", f"{self._where}: {doing} failed: {said}")

    def _error(
        self,
        code: str,
        message: str,
        hint: str | None = None,
        advice: Advice | None = None,
        *,
        parsing: bool = False,
    ) -> CampaignError:
        """One diagnostic; the URL's password never appears in it, even inside a driver's words.
        The password is masked where it sits, never by replacing its text wherever it occurs (a
        password "a" would mask every "a" of the message): the address is shown as `_where`,
        masked already; where libpq quotes the URL whole (an IPv6 host it cannot read) it becomes
        `_where` too. And in libpq's own words on a URL it could not read (`parsing`), where it
        quotes a token ("invalid percent-encoded token", "unexpected spaces found in"), a token
        that is a password whole becomes "***". Nowhere else: the server quotes names
        ('password authentication failed for user "ann"', 'database "ann" does not exist'),
        and masking a name equal to the password would tell the password."""
        if self.url != self._where:
            message = message.replace(self.url, self._where)
        if parsing:
            parts = message.split(self._where)
            for secret in _passwords(self.url):
                parts = [part.replace(f'"{secret}"', '"***"') for part in parts]
            message = self._where.join(parts)
        return super()._error(code, message, hint, advice)

    def _connect_error(self, error: psycopg.Error) -> CampaignError:
        """What went wrong while connecting, told from libpq's words (it gives no SQLSTATE)."""
        said = _first_line(error)
        text = str(error)
        if (
            "password authentication failed" in text
            or "no password supplied" in text
            or ("role" in text and "does not exist" in text)
            or "authentication failed" in text
            or "pg_hba.conf" in text
        ):
            return self._keepers(
                f"cannot connect to {self._where}: the server refused the user or password ({_reason(text)})",
                "check the user and password in the URL (or PGPASSWORD, ~/.pgpass)",
            )
        if (
            "too many clients" in text
            or "too many connections" in text
            or "connection slots are reserved" in text
        ):
            # the server's max_connections reached, for now (SQLSTATE 53300): not a store that
            # cannot be used, and a server's client is told to try again (hunt 13o: several
            # `serve` processes on one database answered 417 of 1,000 requests so, as if broken)
            # whose limit: the role's or the database's own (CONNECTION LIMIT), or the server's;
            # a role's was told to raise max_connections, which is not what stopped it (hunt 13zi)
            limit = (
                "the role's CONNECTION LIMIT (ALTER ROLE)"
                if "connections for role" in text
                else "the database's CONNECTION LIMIT (ALTER DATABASE)"
                if "connections for database" in text
                else "PostgreSQL's max_connections"
            )
            return self._error(
                "RC903",
                f"cannot connect to {self._where}: it has no connection free ({_reason(text)}); nothing"
                " was written",
                f"try again in a moment; its keeper may raise {limit}, or run fewer processes on it",
                Advice("full"),
            )
        if "database" in text and "does not exist" in text:
            return self._keepers(
                f"cannot connect to {self._where}: {_reason(text)}",
                "create it first (createdb NAME), or name one that exists",
            )
        if "Connection refused" in text or "No such file or directory" in text:
            return self._keepers(
                f"cannot connect to {self._where}: connection refused (no server is listening there)",
                "check that PostgreSQL is running, and the host and port (or socket folder) in the URL",
            )
        if "resolve host" in text or "translate host name" in text:
            return self._keepers(
                f"cannot connect to {self._where}: {said}",
                "check the host name in the URL",
            )
        if ("invalid" in text and "value" in text) or "bad value for" in text:
            # libpq refusing a parameter of the URL (`connect_timeout=abc`, `sslmode=bogus`): not a
            # host that does not answer (hunt 13l: "no answer within the connect timeout")
            return self._keepers(
                f"{self._where} is not a PostgreSQL address rulecraft can read: {said}",
                "check the parameters after '?' in the URL",
            )
        if "timeout" in text.lower():
            return self._keepers(
                f"cannot connect to {self._where}: no answer within the connect timeout ({said})",
                "check the host and port, and that a firewall lets the connection through",
            )
        return self._keepers(
            f"cannot connect to {self._where}: {said}",
            "check the URL's host, port and parameters (sslmode: does the server offer what it asks?)",
        )

    # -- rows -------------------------------------------------------------------------------------


ADDRESS: Final = "write it as postgresql://USER:PASSWORD@HOST:PORT/DATABASE"
"""The hint for a URL libpq cannot read."""

COLUMN_TYPES: Final = {
    **{
        ("campaigns", c): "text"
        for c in ("name", "ruleset", "ruleset_hash", "ruleset_text", "params", "created")
    },
    **{("events", c): "text" for c in ("campaign", "kind", "data", "state", "at")},
    ("events", "seq"): "integer",
    ("events", "undoes"): "integer",
}
"""Each column of the tables (`sql.SCHEMA`) and the type PostgreSQL gives it (`format_type`)."""


def _one(cursor: psycopg.Cursor[tuple[Any, ...]]) -> tuple[Any, ...]:
    row = cursor.fetchone()
    assert row is not None  # an aggregate or a function call always gives one row
    return row


def _first_line(error: BaseException) -> str:
    """The first line of a driver's message, without libpq's "connection failed:" prefixes."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__


def _reason(text: str) -> str:
    """The server's own words in a libpq connection error: after its last "FATAL:"."""
    found = re.findall(r"(?:FATAL|fe_sendauth):\s*(.+)", text)
    return found[-1].strip() if found else _first_line(Exception(text))


def _rollback(connection: Connection) -> None:
    """End the open transaction, if any, keeping nothing. A rollback that fails (the connection
    is gone) must not hide the error that caused it; the server drops the transaction anyway."""
    try:
        if not connection.closed and connection.info.transaction_status != TransactionStatus.IDLE:
            connection.execute("ROLLBACK")
    except psycopg.Error:
        pass


if TYPE_CHECKING:
    _conforms: type[Store] = PostgresStore  # mypy checks that PostgresStore is a Store
