"""The SQLite campaign store (`engine.state.sqlite`), on real files and real processes.

What it promises: an append-only log per campaign with seqs 1..n; a transaction keeps all its
appends or none (an exception, or a SIGKILL halfway, keeps none, and leaves no stale lock); two
processes writing one campaign at once lose nothing; a file that is not a rulecraft campaign
database gets one RC903 and is not changed by a single byte.

What every store promises alike (the round trip, all or nothing, waiting writers, killed writers,
concurrent writers) is tested once for SQLite and PostgreSQL in tests/test_store_contract.py;
this file keeps what is SQLite's own: files, folders, foreign and damaged files, locks.
"""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _repo import REPO_ROOT

from engine.errors import CampaignError
from engine.state.records import Event, Header, State
from engine.state.sqlite import FORMAT, SCHEMA_VERSION, SqliteStore

CHILD_ENV = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}


def header(name: str, ruleset: str = "castle") -> Header:
    return Header(name, ruleset, "0" * 64, f"name: {ruleset}\n", {"difficulty": 2})


def counter(n: int) -> State:
    return {"shared": {"counter": n}, "characters": {}}


def only_diagnostic(error: pytest.ExceptionInfo[CampaignError], code: str, path: Path) -> str:
    """The single diagnostic's message, after checking its code, that it names the file and that
    it has no ruleset position."""
    (diagnostic,) = error.value.diagnostics
    assert diagnostic.code == code, diagnostic.render()
    assert diagnostic.span is None
    assert str(path) in diagnostic.message
    return diagnostic.message


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "campaigns.db"


@pytest.fixture
def store(db: Path) -> Iterator[SqliteStore]:
    with SqliteStore(db) as opened:
        yield opened


def last_in_transaction(store: SqliteStore, name: str) -> Event:
    with store.transaction(name) as tx:
        return tx.last()


def append_counter(store: SqliteStore, name: str, data: dict[str, Any] | None = None) -> Event:
    with store.transaction(name) as tx:
        n = tx.last().state["shared"]["counter"]
        return tx.append("action", data or {"action": "tick"}, counter(n + 1))


# -- the round trip ----------------------------------------------------------------------------


def test_the_file_says_what_it_is_and_uses_wal(db: Path, store: SqliteStore) -> None:
    store.close()
    raw = sqlite3.connect(db)
    try:
        assert dict(raw.execute("SELECT key, value FROM meta")) == {
            "format": FORMAT,
            "version": str(SCHEMA_VERSION),
        }
        assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    finally:
        raw.close()


# -- files that are not ours -----------------------------------------------------------------


def _random_bytes(path: Path) -> None:
    path.write_bytes(random.Random(1).randbytes(5000))


def _text(path: Path) -> None:
    path.write_text("name: castle\ndice: 3d6\n" * 40, encoding="utf-8")


def _sqlite_header_then_garbage(path: Path) -> None:
    path.write_bytes(b"SQLite format 3\x00" + random.Random(2).randbytes(8000))


def _foreign(path: Path) -> None:
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE songs (title TEXT, seconds INTEGER)")
    raw.execute("INSERT INTO songs VALUES ('Greensleeves', 170)")
    raw.commit()
    raw.close()


def _foreign_with_a_meta_table(path: Path) -> None:
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    raw.execute("INSERT INTO meta VALUES ('format', 'someone-elses'), ('version', '1')")
    raw.commit()
    raw.close()


def _versioned(version: str) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        with SqliteStore(path) as store:
            store.create(header("moor"), counter(0))
        raw = sqlite3.connect(path)
        raw.execute("UPDATE meta SET value = ? WHERE key = 'version'", (version,))
        raw.commit()
        raw.close()

    return make


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (_random_bytes, "(not SQLite)"),
        (_text, "(not SQLite)"),
        (_sqlite_header_then_garbage, "not"),
        (_foreign, "is an SQLite database but not rulecraft's"),
        (_foreign_with_a_meta_table, "is an SQLite database but not rulecraft's"),
        (_versioned(str(SCHEMA_VERSION + 1)), f"schema version {SCHEMA_VERSION + 1}, newer"),
        (_versioned("banana"), "unknown schema version"),
    ],
    ids=[
        "random-bytes",
        "text",
        "sqlite-header-then-garbage",
        "foreign",
        "foreign-meta",
        "newer",
        "bad-version",
    ],
)
def test_a_file_that_is_not_ours_is_one_rc903_and_left_unchanged(
    tmp_path: Path, make: Callable[[Path], None], says: str
) -> None:
    path = tmp_path / "campaigns.db"
    make(path)
    before = path.read_bytes()
    with pytest.raises(CampaignError) as error:
        SqliteStore(path, timeout=0.5)
    assert says in only_diagnostic(error, "RC903", path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["campaigns.db"]  # no -wal, no -shm


def test_an_empty_file_or_a_new_path_becomes_a_campaign_database(tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.touch()
    for path in (empty, tmp_path / "new.db"):
        with SqliteStore(path) as store:
            store.create(header("moor"), counter(0))
        with SqliteStore(path) as store:
            assert store.names() == [("moor", "castle", 1)]


def test_a_new_file_opened_by_many_at_once_is_laid_out_once(tmp_path: Path) -> None:
    """Six stores open one new file at once, 300 times over. Switching a new file to WAL needs it
    alone, and while another connection holds it SQLite can answer "locked" at once, without the
    busy timeout's wait: before the switch was retried (`SqliteStore._to_wal`) about one round in
    twenty had a store fail with RC903 "locked" within milliseconds (the rare failure of
    test_store_contract's concurrent writers, which open an empty file in three processes)."""
    failed: list[BaseException] = []
    for round_ in range(300):
        path = tmp_path / f"new{round_}.db"
        barrier = threading.Barrier(6)

        def opener(path: Path, barrier: threading.Barrier) -> None:
            barrier.wait()
            try:
                SqliteStore(path, timeout=5).close()
            except BaseException as e:  # every failure is reported below
                failed.append(e)

        threads = [threading.Thread(target=opener, args=(path, barrier)) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        with SqliteStore(path) as store:
            assert store.names() == []
    assert not failed, [str(e) for e in failed[:3]]


def test_paths_that_cannot_hold_a_database_are_rc903(tmp_path: Path) -> None:
    """A pipe (or a device) is refused before SQLite opens it: it would leave its journal beside
    it (`/dev/null-journal`, found by an audit)."""
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x", encoding="utf-8")
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    for path, says in [
        (tmp_path, "is a folder"),
        (tmp_path / "missing" / "campaigns.db", "does not exist"),
        (a_file / "campaigns.db", "is not a folder"),
        # a file further up is named, not the folder below it said not to exist (as where
        # $XDG_DATA_HOME names a file, and `rulecraft/` would be made in it)
        (a_file / "rulecraft" / "campaigns.db", f"{a_file} is not a folder"),
        (pipe, "is not a file"),
    ]:
        with pytest.raises(CampaignError) as error:
            SqliteStore(path)
        assert says in only_diagnostic(error, "RC903", path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "pipe"]


ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.mark.skipif(ROOT and not Path("/sys/kernel").is_dir(), reason="root, and no sysfs to refuse it")
def test_a_folder_that_cannot_be_written_is_rc903(tmp_path: Path) -> None:
    """A folder whose mode forbids writing; as root (CI's user here), whom modes do not stop, sysfs,
    where nobody may make a file."""
    folder = Path("/sys") if ROOT else tmp_path / "locked"
    if not ROOT:
        folder.mkdir()
        folder.chmod(0o500)
    try:
        with pytest.raises(CampaignError) as error:
            SqliteStore(folder / "campaigns.db")
        only_diagnostic(error, "RC903", folder / "campaigns.db")
    finally:
        if not ROOT:
            folder.chmod(0o700)
    assert not (folder / "campaigns.db").exists()


def log_readers_refuse(store: SqliteStore, db: Path, name: str) -> list[str]:
    """The header still reads; the log, whole or its last event (in a transaction or not), is one
    RC903 each: their messages."""
    assert store.header(name).name == name
    messages = []
    for call in (store.events, store.last, lambda name: last_in_transaction(store, name)):
        with pytest.raises(CampaignError) as error:
            call(name)
        messages.append(only_diagnostic(error, "RC903", db))
    return messages


def test_corrupt_json_in_a_row_is_rc903_naming_the_campaign_and_seq(db: Path) -> None:
    with SqliteStore(db) as store:
        store.create(header("moor"), counter(0))
        append_counter(store, "moor")
    raw = sqlite3.connect(db)
    raw.execute("UPDATE events SET state = '{\"shared\": ' WHERE campaign = 'moor' AND seq = 2")
    raw.commit()
    with SqliteStore(db) as store:
        for message in log_readers_refuse(store, db, "moor"):
            assert "'moor'" in message and "event 2" in message and "JSON" in message
        raw.execute("UPDATE campaigns SET params = '[1, 2]' WHERE name = 'moor'")
        raw.commit()
        raw.close()
        with pytest.raises(CampaignError) as error:
            store.header("moor")
        assert "parameters" in only_diagnostic(error, "RC903", db)


def test_a_campaign_whose_events_were_deleted_is_rc903_for_every_reader(db: Path, cli: Any) -> None:
    """A campaign is made with its first event in one transaction; one without any was damaged
    from outside. Reading its log or its state, in or out of a transaction, through the API or the
    command line, is then RC903, not an `IndexError`."""
    with SqliteStore(db) as store:
        store.create(header("moor"), counter(0))
    raw = sqlite3.connect(db)
    raw.execute("DELETE FROM events WHERE campaign = 'moor'")
    raw.commit()
    raw.close()
    with SqliteStore(db) as store:
        for message in log_readers_refuse(store, db, "moor"):
            assert "campaign 'moor' has no events" in message
    real = db.with_name("real.db")  # a campaign the command line can open: of a shipped ruleset
    assert cli("campaign", "--db", str(real), "new", "case", "chill", "-p", "players=4").code == 0
    raw = sqlite3.connect(real)
    raw.execute("DELETE FROM events WHERE campaign = 'case'")
    raw.commit()
    raw.close()
    for command in ("show", "replay", "export", "log"):
        r = cli("campaign", "--db", str(real), command, "case")
        assert r.code == 1 and "RC903" in r.err and "Traceback" not in r.err, (command, r.err)


# -- locks ---------------------------------------------------------------------------------------


def test_opening_another_store_on_the_file_keeps_this_process_locks(tmp_path: Path) -> None:
    """A server opens a store per request, in threads of one process. Opening one must not close
    a descriptor of the file outside SQLite: that drops every POSIX lock the process holds on it,
    so another process closing its last connection takes the file for unused, checkpoints and
    deletes the write-ahead log under the open connections — and the next writes corrupt the file
    (seen: 4 servers on one file, 1,000 actions, "database disk image is malformed")."""
    path = tmp_path / "c.db"
    wal = Path(f"{path}-wal")
    first = SqliteStore(path)  # lays out the tables: a write, so the log exists while it is open
    try:
        assert wal.exists()
        SqliteStore(path).close()  # another request of this process opens and closes a store
        subprocess.run(  # another process opens the file, reads, and closes its only connection
            [
                sys.executable,
                "-c",
                f"import sqlite3; c = sqlite3.connect({str(path)!r}); "
                "c.execute('SELECT count(*) FROM meta').fetchall(); c.close()",
            ],
            check=True,
            timeout=60,
        )
        assert wal.exists(), "the log was checkpointed and deleted while this process had it open"
    finally:
        first.close()
    with sqlite3.connect(path) as check:
        assert check.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


def test_a_url_of_another_database_is_rc903_naming_what_a_store_is(cli: Any) -> None:
    r = cli("campaign", "--db", "mysql://x/y", "list")
    assert r.code == 1 and "cannot keep campaigns at mysql://..." in r.err and "does not exist" not in r.err


def test_a_stored_number_too_long_to_read_is_told_without_python_s_words(tmp_path: Path) -> None:
    """A state holding a whole number past Python's digits limit was told with Python's own words
    ("use sys.set_int_max_str_digits() to increase the limit"): a function the reader cannot call
    (hunt 13o). It is told as what it is."""
    import sqlite3
    import sys

    import engine
    from engine.api import open_campaign

    db = tmp_path / "c.db"
    with SqliteStore(db) as store:
        engine.new_campaign("c1", "chill", store=store, params={"players": 4})
    with sqlite3.connect(db) as con:
        (state,) = con.execute("SELECT state FROM events WHERE campaign = 'c1' AND seq = 1").fetchone()
        con.execute(
            "UPDATE events SET state = ? WHERE campaign = 'c1' AND seq = 1",
            (state.replace('"light": 3', '"light": ' + "9" * (sys.get_int_max_str_digits() + 1)),),
        )
    with SqliteStore(db) as store, pytest.raises(CampaignError) as error:
        open_campaign("c1", store=store).show()
    (d,) = error.value.diagnostics
    assert d.code == "RC903" and "sys.set_int_max_str_digits" not in d.message, d.message
    most = f"{sys.get_int_max_str_digits():,}"
    assert (
        f"event 1's state holds a whole number of more than {most} digits, which rulecraft never writes"
        in (d.message)
    )
