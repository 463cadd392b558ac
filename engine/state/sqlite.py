"""Campaigns in one SQLite file: the embedded `Store`.

Why SQLite: a single file a group can copy or back up, commits that survive a crash or a kill
whole or not at all, and a write lock shared by every process that opens the file, so two
players acting on one campaign at once queue up instead of overwriting each other.

Layout, schema version 1 (JSON is `json.dumps(..., sort_keys=True)`, times are ISO 8601 UTC):

    meta(key PRIMARY KEY, value)    ("format", "rulecraft-campaigns") and ("version", "1")
    campaigns(name PRIMARY KEY, ruleset, ruleset_hash, ruleset_text, params JSON, created)
    events(campaign, seq, kind, data JSON, state JSON, undoes, at, PRIMARY KEY (campaign, seq))

The journal is WAL, so readers never wait for the writer nor the writer for readers. Every write
runs in `BEGIN IMMEDIATE`: the write lock is taken before anything is read, so one process's
read-compute-append can never interleave with another's.

A file that is not ours is never changed: its kind is decided by reading (through a connection
that cannot write where a log lies beside it, which opening it to write would merge into it or
roll back), and our tables are created only in a file that is empty or new.

One `SqliteStore` per thread: its connection refuses other threads (sqlite3's
`check_same_thread`). Each thread or process opens its own store on the same path; they share
the file's lock.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..errors import Advice, CampaignError, Diagnostic
from ..runtime import arguments
from ..runtime.work import wait_within
from .records import (
    APPEND_KINDS,
    FORMAT,
    SCHEMA_VERSION,
)
from .sql import SCHEMA, SqlStore
from .stores import names_folder, refuse_unkept

if TYPE_CHECKING:
    from .records import Store

__all__ = ["APPEND_KINDS", "FORMAT", "SCHEMA_VERSION", "SqliteStore"]


SWITCH_WAIT = 0.2
"""Seconds an opening waits to switch a campaign database kept with a rollback journal (a copy
made by `VACUUM INTO`) to write-ahead logging, while another process holds it: past that, the file
is used in the mode it has. A new file waits the whole timeout, as its tables wait for it. The
read-only first look at a file with a log beside it waits as long at most, so a file another
process holds is waited for once (the whole timeout), not twice."""


class SqliteStore(SqlStore):
    """The campaigns in the SQLite file at `path`, which is created if it is missing or empty.

    `timeout` is how many seconds to wait for another writer before giving up (RC903 "locked").
    A file that is not a rulecraft campaign database raises `CampaignError` RC903 and is left
    untouched. Use one store per thread; close it (or use it as a context manager) when done.
    """

    def __init__(self, path: str | Path, *, timeout: float = 10.0) -> None:
        if isinstance(path, bool) or not isinstance(path, (str, Path)):
            arguments.wrong_type("SqliteStore", "path", path, "a str or a pathlib.Path")
        # a wait of NaN never ended (no clock passes it), and one below 0 was told as such (hunt 13ze)
        read = arguments.seconds("SqliteStore", "timeout", timeout, optional=False)
        assert read is not None
        refuse_unkept(path)  # `Path("./:memory:")` is `:memory:` again: only the text tells them apart
        self.path = Path(path)
        self.timeout = float(read)
        self._waited = self.timeout
        """What the last write waited at most (`wait_within`), for its refusal."""
        self._where = str(self.path)
        if isinstance(path, str) and names_folder(path) and not self.path.is_dir():
            raise folder_named(path)
        self._connection: sqlite3.Connection | None = None
        self._thread = threading.get_ident()  # the one thread its connection serves
        self._check_file()
        self._inspect_read_only()
        # a name SQLite reads as a URI (`file:x.db?nolock=1`, `file::memory:`, where the library
        # is built to read file names as URIs) or as its database in memory (`:memory:`, given as
        # `./:memory:`) is a file's name here: written from the folder (hunt 13l)
        name = str(self.path)
        opened = name if self.path.is_absolute() else os.path.join(os.curdir, name)
        try:
            connection = sqlite3.connect(opened, timeout=timeout, isolation_level=None, uri=False)
        except sqlite3.Error as e:
            raise self._db_error(e, "opening it") from e
        self._connection = connection
        try:
            self._prepare(connection)
        except BaseException:
            self.close()
            raise

    def __repr__(self) -> str:
        return f"SqliteStore({self._where!r})"

    # -- the Store interface ------------------------------------------------------------------

    def close(self) -> None:
        """Release the file (an open transaction is rolled back). Closing twice is harmless; from
        another thread than the one that opened it, RC903 as any other use there, and the store
        stays open (sqlite3's own `ProgrammingError` had marked it closed, its file still held:
        hunt 13zi)."""
        connection = self._connection
        if connection is None:
            return
        if threading.get_ident() != self._thread:
            raise self._other_thread()
        self._connection = None
        _rollback(connection)
        connection.close()

    # -- opening --------------------------------------------------------------------------------

    def _check_file(self) -> None:
        """Refuse a folder, or a file in a folder that is not there, before SQLite is asked.

        The file itself is never opened here, not even to read its first bytes: closing any
        descriptor of a file drops every POSIX lock this process holds on it, those of SQLite's
        other connections included (a server opens a store per request, in threads). Another
        process could then take the file as unused, checkpoint and delete the write-ahead log
        under them, and the file is corrupted. Whether it is SQLite at all, SQLite says
        (`SQLITE_NOTADB`, on the first read), before anything is written."""
        try:
            folder, parent = self.path.is_dir(), self.path.parent.is_dir()
            other = self.path.exists() and not self.path.is_file()  # a device, a pipe, a socket
        except OSError as exc:  # a path the system refuses (a name too long)
            raise self._error("RC903", f"cannot use {self._where}: {exc.strerror or exc}") from None
        if folder:
            raise self._error("RC903", f"{self._where} is a folder, not a rulecraft campaign database")
        if other:  # SQLite would write its journal beside it (`/dev/null-journal`)
            raise self._error("RC903", f"{self._where} is not a file, so not a rulecraft campaign database")
        if not parent:
            blocker = _file_above(self.path.parent)
            raise self._keepers(
                f"cannot create {self._where}: "
                + (f"{blocker} is not a folder" if blocker else f"{self.path.parent} does not exist"),
                "give another path" if blocker else "create the folder first, or give another path",
            )

    def _inspect_read_only(self) -> None:
        """A file with a log beside it — a write-ahead log, or a rollback journal left by a
        writer that was killed — is first read through a connection that may not write: opening
        it to write rolls such a journal back, and closing the last connection that may write
        merges a write-ahead log into the file, so refusing another program's database, left so
        when it was killed, had changed it (4,096 bytes to 20,480, its log deleted: hunt 13zi). A
        file that is not ours is refused here, never opened to write; any other answer, or none
        (the file is held, or a read-only connection cannot be made), is left to the usual
        opening. The log is looked for beside the file the path leads to, through any link, as
        SQLite names it; a journal is not read (`immutable`: the file as it lies), a write-ahead
        log is (the tables a program made may be in it alone)."""
        real = os.path.realpath(self.path)
        if os.path.isfile(f"{real}-wal"):
            mode = "mode=ro"
        elif os.path.isfile(f"{real}-journal"):
            mode = "immutable=1"
        else:
            return
        uri = "file:" + urllib.parse.quote(os.fsencode(real)) + "?" + mode
        try:
            reader = sqlite3.connect(
                uri, timeout=min(self.timeout, SWITCH_WAIT), isolation_level=None, uri=True
            )
        except sqlite3.Error:
            return
        try:
            self._inspect(reader)
        except sqlite3.Error:
            return
        finally:
            reader.close()

    def _prepare(self, connection: sqlite3.Connection) -> None:
        """Check that the file is ours (only reading), or lay out our tables in a new, empty one."""
        with self._errors("opening it"):
            connection.execute("PRAGMA foreign_keys = ON")
            if self._inspect(connection) == "empty":
                self._to_wal(connection)
                with self._write():  # a second process creating the same file waits here
                    if self._inspect(connection) == "empty":
                        for statement in SCHEMA:
                            connection.execute(statement)
                        connection.executemany(
                            "INSERT INTO meta (key, value) VALUES (?, ?)",
                            [("format", FORMAT), ("version", str(SCHEMA_VERSION))],
                        )
            (mode,) = connection.execute("PRAGMA journal_mode").fetchone()
            if str(mode).lower() != "wal":
                try:
                    self._to_wal(connection, SWITCH_WAIT)
                except sqlite3.OperationalError as e:
                    # a file this process may not write (a backup kept read-only, copied by `VACUUM
                    # INTO` with its journal in a file): read in the journal mode it has; a write is
                    # refused when one is asked for. It could not be read at all (hunt 13ze). Or a
                    # file another process holds, if only to read it: used in the mode it has (its
                    # writes wait for its readers), switched by a later opening (a `show` waited 10 s
                    # for a reader, then blamed "another writer": hunt 13zi).
                    if not (_read_only(e) or _busy(e)):
                        raise

    def _to_wal(self, connection: sqlite3.Connection, most: float | None = None) -> None:
        """Switch the file's journal to write-ahead logging, waiting up to `timeout` for it (or
        `most` seconds, if less).

        The switch needs the file to itself, and while another connection holds it — a second
        process opening the same new file and reading what it holds — SQLite answers "database is
        locked" at once, without the busy timeout's wait (seen: 11 of 240 processes, four at a time
        on one new file, failed in a few milliseconds). So the switch is tried again, with short
        sleeps, until it is made or the timeout has passed. Where another process holds the file
        with a lock, the busy handler waits on it instead: that wait is cut to `most` as well."""
        wait = self.timeout if most is None else min(most, self.timeout)
        deadline = time.monotonic() + wait
        pause = 0.001
        connection.execute(f"PRAGMA busy_timeout = {_milliseconds(wait)}")
        try:
            while True:
                try:
                    connection.execute("PRAGMA journal_mode = WAL").fetchall()
                    return
                except sqlite3.OperationalError as e:
                    if not _busy(e) or time.monotonic() + pause > deadline:
                        raise
                time.sleep(pause)
                pause = min(pause * 2, 0.05)
        finally:
            connection.execute(f"PRAGMA busy_timeout = {_milliseconds(self.timeout)}")

    def _inspect(self, connection: sqlite3.Connection) -> Literal["empty", "ours"]:
        """What the file holds, decided by reading alone; RC903 for anything but ours or empty."""
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master").fetchall()}
        if not tables:
            return "empty"
        try:
            meta = dict(connection.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.OperationalError as e:  # no meta table, or one with other columns
            if _undecodable(e):  # ours, damaged: not another program's
                raise self._db_error(e, "opening it") from None
            meta = {}
        foreign = self._keepers(
            f"{self._where} is an SQLite database but not rulecraft's (no '{FORMAT}' format mark)",
            f"give a new file name to start a campaign database; {self.LEFT}",
        )
        return self._ours(meta, tables, foreign)

    # -- transactions and errors ---------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        if self._connection is None:
            raise RuntimeError(f"{self!r} is closed")
        if threading.get_ident() != self._thread:  # sqlite3's own ProgrammingError said no more (hunt 13r)
            raise self._other_thread()
        return self._connection

    def _other_thread(self) -> CampaignError:
        return self._error(
            "RC903",
            f"{self._where}: this store was opened in another thread, and a SQLite store serves only"
            " the thread that opened it",
            "open one store per thread (engine.api.open_store), each on the same file",
        )

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """`BEGIN IMMEDIATE` ... `COMMIT`, or `ROLLBACK` on any exception (re-raised)."""
        connection = self._open()
        if connection.in_transaction:
            raise RuntimeError(f"{self!r} already has a transaction open: one at a time per store")
        try:
            self._bound_wait(connection)  # what is left of a request's deadline, if less
            with self._errors("taking the write lock"):
                connection.execute("BEGIN IMMEDIATE")
            try:
                yield connection
                self._bound_wait(connection)  # again: a commit may wait for readers (no WAL)
                with self._errors("committing"):
                    connection.execute("COMMIT")
            except BaseException:
                _rollback(connection)
                raise
        finally:  # the store's own wait for what it does next (a read after a request's write
            # waited a tenth of a second, and a campaign made was answered 503: hunt 13zs)
            if self._waited != self.timeout:
                self._waited = self.timeout
                connection.execute(f"PRAGMA busy_timeout = {_milliseconds(self.timeout)}")

    def _bound_wait(self, connection: sqlite3.Connection) -> None:
        """Wait for another writer no longer than the running request has left (`wait_within`)."""
        wait = wait_within(self.timeout)
        if wait != self._waited:
            connection.execute(f"PRAGMA busy_timeout = {_milliseconds(wait)}")
            self._waited = wait

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """One snapshot for several reads; inside an open transaction, that transaction's."""
        connection = self._open()
        if connection.in_transaction:
            yield connection
            return
        with self._errors("reading"):
            connection.execute("BEGIN DEFERRED")
        try:
            yield connection
        finally:
            _rollback(connection)  # nothing was written: ending the read is all this does

    @contextmanager
    def _errors(self, doing: str) -> Iterator[None]:
        """SQLite's own errors as one RC903 naming the file; misuse of the API is not caught."""
        try:
            yield
        except sqlite3.ProgrammingError:
            raise
        except sqlite3.Error as e:
            raise self._db_error(e, doing) from e

    def _db_error(self, error: sqlite3.Error, doing: str) -> CampaignError:
        kind = getattr(error, "sqlite_errorname", "") or ""
        if _busy(error):
            return self._error(
                "RC903",
                f"{self._where} is locked: another process held it for more than {self._waited:g} s",
                "another process is writing to this file (or reading it, if its journal is not"
                " write-ahead); try again when it is done, or wait longer",
                Advice("retry"),
            )
        if kind.startswith("SQLITE_NOTADB"):
            return self._not_sqlite()
        if kind.startswith("SQLITE_CORRUPT"):
            return self._error("RC903", f"{self._where} is damaged ({error}) while {doing}")
        if _undecodable(error):
            column = re.search(r"column '([^']*)'", str(error))
            where = f" in its column '{column[1]}'" if column else ""
            return self._keepers(  # the file's keeper mends it: a client of a server cannot
                f"{self._where} is damaged: a text it holds{where} is not UTF-8, while {doing}",
                "the file was changed outside rulecraft; restore it from a copy",
            )
        folder = self.path.parent
        if kind.startswith("SQLITE_READONLY") and self.path.is_file() and not os.access(self.path, os.W_OK):
            # the file's own mode (a backup kept read-only, which reads fine): not its folder, which
            # was blamed "even to read it" just after a read of it had worked (hunt 13zf)
            return self._keepers(
                f"cannot write {self._where}: the file may not be written ({error}, while {doing})",
                "its campaigns can be read; to change one, work on a copy that may be written",
            )
        if (
            kind.startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY"))
            and self.path.is_file()
            and not os.access(folder, os.W_OK)
        ):
            # a read too: SQLite keeps a WAL database's shared-memory file (`-shm`) beside it, which
            # a folder it cannot write has no room for ("cannot write" told a `list` of a backup in
            # a read-only folder, with no word of the folder: hunt 13l)
            return self._keepers(
                f"cannot use {self._where}: its folder {folder} cannot be written, and SQLite writes"
                f" files beside a campaign database even to read it ({error}, while {doing})",
                "copy the file to a folder that can be written, and open the copy",
            )
        if kind.startswith(
            ("SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM", "SQLITE_IOERR", "SQLITE_FULL")
        ):
            return self._keepers(
                f"cannot write {self._where} ({error}) while {doing}",
                "check that the file and its folder exist, can be written, and the disk has room",
            )
        return self._error("RC903", f"{self._where}: {doing} failed: {error}")

    def _not_sqlite(self) -> CampaignError:
        return self._keepers(
            f"{self._where} is not a rulecraft campaign database (not SQLite)",
            f"give a campaign database, or a new file name to start one; {self.LEFT}",
        )

    # -- rows -------------------------------------------------------------------------------------


def _rollback(connection: sqlite3.Connection) -> None:
    """End the open transaction, if any, keeping nothing. A rollback that fails must not hide the
    error that caused it; SQLite drops the transaction when the connection closes anyway."""
    if connection.in_transaction:
        try:
            connection.execute("ROLLBACK")
        except sqlite3.Error:
            pass


if TYPE_CHECKING:
    _conforms: type[Store] = SqliteStore  # mypy checks that SqliteStore is a Store


def folder_named(path: str) -> CampaignError:
    """RC903 for a `--db` path that names a folder by how it ends (`stores.names_folder`), told
    to whoever keeps the store (a server's operator), its hint naming no path (a server's answer
    names no store's place)."""
    said = f"{path} names a folder, not a rulecraft campaign database file"
    hint = "give a file's path, ending in its name (as campaigns.db)"
    if Path(path).is_file():  # `afile.db/`: the file is there, named with a slash after it
        said = f"{path} names a folder, but {Path(path)} is a file"
        hint = "give the file's path without what follows its name"
    return CampaignError(
        [Diagnostic("RC903", said, None, hint, advice=Advice("keeper", of="store", lead=hint))]
    )


def _milliseconds(seconds: float) -> int:
    """A wait as SQLite's busy timeout takes it: whole milliseconds, within its `int`."""
    return min(int(seconds * 1000), 2**31 - 1)


def _undecodable(error: sqlite3.Error) -> bool:
    """Whether Python's `sqlite3` could not read a text column as UTF-8 (a byte changed by hand)."""
    return "Could not decode to UTF-8" in str(error)


def _read_only(error: sqlite3.Error) -> bool:
    """Whether SQLite refused a write because the file (or its folder) may not be written."""
    kind = getattr(error, "sqlite_errorname", "") or ""
    return kind.startswith("SQLITE_READONLY") or "readonly database" in str(error)


def _busy(error: sqlite3.Error) -> bool:
    """Whether SQLite refused because another connection holds the file (busy or locked)."""
    kind = getattr(error, "sqlite_errorname", "") or ""
    return kind.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in str(error)


def _file_above(folder: Path) -> Path | None:
    """The nearest of `folder` and the folders above it that is there but is no folder (a file
    where `$XDG_DATA_HOME` names the folder): what to name, where "does not exist" would send the
    user to make a folder that cannot be made."""
    for place in (folder, *folder.parents):
        try:
            if place.exists():
                return None if place.is_dir() else place
        except OSError:
            return None
    return None
