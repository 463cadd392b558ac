"""The SQLite campaign store (`engine.state.sqlite`), on real files and real processes.

What it promises: an append-only log per campaign with seqs 1..n; a transaction keeps all its
appends or none (an exception, or a SIGKILL halfway, keeps none, and leaves no stale lock); two
processes writing one campaign at once lose nothing; a file that is not a rulecraft campaign
database gets one RC903 and is not changed by a single byte.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _repo import REPO_ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

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


def test_create_names_header_events_round_trip(db: Path, store: SqliteStore) -> None:
    first = store.create(header("moor"), counter(0))
    assert (first.seq, first.kind, first.data, first.state, first.undoes) == (1, "new", {}, counter(0), None)
    store.create(header("abbey", "chill"), counter(10))
    appended = [append_counter(store, "moor", {"action": "flip", "seed": i}) for i in range(3)]
    assert [e.seq for e in appended] == [2, 3, 4]
    assert store.names() == [("abbey", "chill", 1), ("moor", "castle", 4)]

    got = store.header("moor")
    assert (got.name, got.ruleset, got.ruleset_text, dict(got.params)) == (
        "moor",
        "castle",
        "name: castle\n",
        {"difficulty": 2},
    )
    assert got.created.endswith("+00:00")  # ISO 8601, UTC

    events = store.events("moor")
    assert events == [first, *appended]
    assert [e.state["shared"]["counter"] for e in events] == [0, 1, 2, 3]
    store.close()
    with SqliteStore(db) as again:  # all of it is on disk
        assert again.events("moor") == events
        assert again.header("moor") == got
        assert again.names() == [("abbey", "chill", 1), ("moor", "castle", 4)]


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


def test_reads_inside_a_transaction_are_current(store: SqliteStore) -> None:
    store.create(header("moor"), counter(0))
    with store.transaction("moor") as tx:
        tx.append("action", {}, counter(1))
        second = tx.append("period", {"period": "session"}, counter(5))
        assert tx.last() == second
        assert [e.seq for e in tx.events()] == [1, 2, 3]
        assert [e.seq for e in store.events("moor")] == [1, 2, 3]
        undo = tx.append("undo", {}, counter(1), undoes=3)
        assert (undo.seq, undo.undoes) == (4, 3)
        tx.replace_ruleset("f" * 64, "name: castle  # v2\n")
        assert tx.header().ruleset_hash == "f" * 64
    assert store.header("moor").ruleset_text == "name: castle  # v2\n"
    assert store.events("moor")[-1] == undo


def test_create_refuses_a_taken_name_and_writes_nothing(db: Path, store: SqliteStore) -> None:
    store.create(header("moor"), counter(0))
    append_counter(store, "moor")
    before = (store.header("moor"), store.events("moor"))
    with pytest.raises(CampaignError) as error:
        store.create(header("moor", "chill"), counter(99))
    assert "moor" in only_diagnostic(error, "RC902", db)
    assert (store.header("moor"), store.events("moor")) == before


def test_an_unknown_campaign_is_rc901_with_the_nearest_name(db: Path, store: SqliteStore) -> None:
    with pytest.raises(CampaignError) as error:
        store.events("moor")
    only_diagnostic(error, "RC901", db)
    assert "no campaigns yet" in (error.value.diagnostics[0].hint or "")

    store.create(header("moor"), counter(0))
    store.create(header("abbey"), counter(0))
    for call in (store.header, store.events, lambda name: last_in_transaction(store, name)):
        with pytest.raises(CampaignError) as error:
            call("mor")
        assert "'mor'" in only_diagnostic(error, "RC901", db)
        assert error.value.diagnostics[0].hint == "did you mean 'moor'?"
    with pytest.raises(CampaignError) as error:
        store.header("zzz")
    assert error.value.diagnostics[0].hint == "the campaigns in this file: abbey, moor"
    append_counter(store, "moor")  # the failed transaction left no lock behind


# -- transactions keep all or nothing --------------------------------------------------------


class Boom(Exception):
    pass


def test_a_transaction_that_raises_keeps_nothing(store: SqliteStore) -> None:
    store.create(header("moor"), counter(0))
    append_counter(store, "moor")
    before = (store.header("moor"), store.events("moor"))
    with pytest.raises(Boom), store.transaction("moor") as tx:
        tx.append("action", {}, counter(2))
        tx.append("action", {}, counter(3))
        tx.replace_ruleset("f" * 64, "changed")
        raise Boom
    assert (store.header("moor"), store.events("moor")) == before
    assert append_counter(store, "moor").seq == 3  # and the next one carries on


def test_misuse_is_a_python_error_and_rolls_back(store: SqliteStore) -> None:
    store.create(header("moor"), counter(0))
    with pytest.raises(ValueError, match="kind"), store.transaction("moor") as tx:
        tx.append("new", {}, counter(1))
    with pytest.raises(ValueError, match="undo"), store.transaction("moor") as tx:
        tx.append("undo", {}, counter(1))
    with pytest.raises(ValueError, match="earlier"), store.transaction("moor") as tx:
        tx.append("action", {}, counter(1))
        tx.append("undo", {}, counter(0), undoes=3)
    with pytest.raises(TypeError, match="JSON"), store.transaction("moor") as tx:
        tx.append("action", {"roll": object()}, counter(1))
    with pytest.raises(TypeError, match="JSON"):
        store.create(header("abbey"), {"shared": {"x": float("nan")}})
    with pytest.raises(RuntimeError, match="one at a time"), store.transaction("moor"):
        with store.transaction("moor"):
            pass
    with store.transaction("moor") as tx:
        pass
    with pytest.raises(RuntimeError, match="ended"):
        tx.last()
    assert [e.seq for e in store.events("moor")] == [1]
    assert [n for n, _, _ in store.names()] == ["moor"]
    store.close()
    store.close()
    with pytest.raises(RuntimeError, match="closed"):
        store.names()


def test_a_writer_waits_then_gives_up_with_locked(db: Path, store: SqliteStore) -> None:
    store.create(header("moor"), counter(0))
    with SqliteStore(db, timeout=0.2) as other, store.transaction("moor") as tx:
        tx.append("action", {}, counter(1))
        assert [e.seq for e in other.events("moor")] == [1]  # readers never wait (WAL)
        started = time.monotonic()
        with pytest.raises(CampaignError) as error:
            with other.transaction("moor"):
                pass
        assert time.monotonic() - started >= 0.15
        assert "locked" in only_diagnostic(error, "RC903", db)
        with pytest.raises(CampaignError) as error:
            other.create(header("abbey"), counter(0))
        assert "locked" in only_diagnostic(error, "RC903", db)
    assert [e.seq for e in store.events("moor")] == [1, 2]
    assert [n for n, _, _ in store.names()] == ["moor"]


# -- real processes ----------------------------------------------------------------------------

KILLED = """
import sys, time
from engine.state.sqlite import SqliteStore
store = SqliteStore(sys.argv[1])
with store.transaction("moor") as tx:
    tx.append("action", {"step": "kept"}, {"shared": {"counter": 1}, "characters": {}})
with store.transaction("moor") as tx:
    tx.append("action", {"step": "half"}, {"shared": {"counter": 2}, "characters": {}})
    print("inside", flush=True)
    time.sleep(60)
"""


def test_a_writer_killed_inside_a_transaction_leaves_the_last_commit_and_no_lock(db: Path) -> None:
    with SqliteStore(db) as store:
        store.create(header("moor"), counter(0))
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED, str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=CHILD_ENV,
        cwd=REPO_ROOT,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line == "inside\n", child.communicate()[1] if line == "" else line
        with SqliteStore(db, timeout=0.1) as waiting:
            with pytest.raises(CampaignError) as error, waiting.transaction("moor"):
                pass
            assert "locked" in only_diagnostic(error, "RC903", db)
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=10) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.communicate()

    with SqliteStore(db, timeout=2) as store:
        events = store.events("moor")
        assert [(e.seq, e.data) for e in events] == [(1, {}), (2, {"step": "kept"})]
        assert events[-1].state == counter(1)
        assert append_counter(store, "moor").seq == 3  # the lock died with the process
        assert store.events("moor")[-1].state == counter(2)


WRITER = """
import os, sys, time
from engine.state.sqlite import SqliteStore
path, go, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
store = SqliteStore(path)
print("ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.002)
for _ in range(n):
    with store.transaction("race") as tx:
        state = tx.last().state
        time.sleep(0.0005)  # widen the read-to-write window a lost update would need
        state["shared"]["counter"] += 1
        tx.append("action", {"by": os.getpid()}, state)
store.close()
"""


def test_concurrent_writers_lose_nothing(db: Path, tmp_path: Path) -> None:
    writers, n = 3, 50
    go = tmp_path / "go"
    children = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db), str(go), str(n)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=CHILD_ENV,
            cwd=REPO_ROOT,
        )
        for _ in range(writers)
    ]
    try:
        for child in children:
            assert child.stdout is not None
            assert child.stdout.readline() == "ready\n", child.communicate()[1]
        with SqliteStore(db) as store:  # the writers made the file between them
            store.create(header("race"), counter(0))
        go.touch()  # all start writing at once
        for child in children:
            _, err = child.communicate(timeout=60)
            assert child.returncode == 0, err
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.communicate()

    with SqliteStore(db) as store:
        events = store.events("race")
    assert [e.seq for e in events] == list(range(1, 1 + writers * n + 1))
    assert [e.state["shared"]["counter"] for e in events] == list(range(writers * n + 1))
    by = [e.data["by"] for e in events[1:]]
    assert sorted(by.count(child.pid) for child in children) == [n] * writers


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


def test_paths_that_cannot_hold_a_database_are_rc903(tmp_path: Path) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x", encoding="utf-8")
    for path, says in [
        (tmp_path, "is a folder"),
        (tmp_path / "missing" / "campaigns.db", "does not exist"),
        (a_file / "campaigns.db", "is not a folder"),
    ]:
        with pytest.raises(CampaignError) as error:
            SqliteStore(path)
        assert says in only_diagnostic(error, "RC903", path)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes anywhere")
def test_a_folder_that_cannot_be_written_is_rc903(tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(CampaignError) as error:
            SqliteStore(folder / "campaigns.db")
        only_diagnostic(error, "RC903", folder / "campaigns.db")
    finally:
        folder.chmod(0o700)


def test_corrupt_json_in_a_row_is_rc903_naming_the_campaign_and_seq(db: Path) -> None:
    with SqliteStore(db) as store:
        store.create(header("moor"), counter(0))
        append_counter(store, "moor")
    raw = sqlite3.connect(db)
    raw.execute("UPDATE events SET state = '{\"shared\": ' WHERE campaign = 'moor' AND seq = 2")
    raw.commit()
    with SqliteStore(db) as store:
        assert store.header("moor").name == "moor"
        for call in (store.events, lambda name: last_in_transaction(store, name)):
            with pytest.raises(CampaignError) as error:
                call("moor")
            message = only_diagnostic(error, "RC903", db)
            assert "'moor'" in message and "event 2" in message and "JSON" in message
        raw.execute("UPDATE campaigns SET params = '[1, 2]' WHERE name = 'moor'")
        raw.commit()
        raw.close()
        with pytest.raises(CampaignError) as error:
            store.header("moor")
        assert "parameters" in only_diagnostic(error, "RC903", db)


# -- the store against a model ----------------------------------------------------------------

NAMES = ("ash", "birch", "cedar")
OPS = st.lists(
    st.tuples(
        st.sampled_from(["create", "commit", "fail", "reopen"]),
        st.sampled_from(NAMES),
        st.lists(st.integers(-3, 3), max_size=3),
    ),
    max_size=12,
)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(OPS)
def test_the_store_holds_exactly_what_was_committed(ops: list[tuple[str, str, list[int]]]) -> None:
    model: dict[str, list[tuple[str, dict[str, Any], State]]] = {}

    def check(store: SqliteStore) -> None:
        assert store.names() == [(name, "castle", len(log)) for name, log in sorted(model.items())]
        for name, log in model.items():
            events = store.events(name)
            assert [e.seq for e in events] == list(range(1, len(log) + 1))
            assert [(e.kind, e.data, e.state) for e in events] == log

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.db"
        store = SqliteStore(path)
        try:
            for op, name, steps in ops:
                if op == "reopen":
                    store.close()
                    store = SqliteStore(path)
                elif op == "create":
                    start = counter(len(steps))
                    if name in model:
                        with pytest.raises(CampaignError):
                            store.create(header(name), start)
                    else:
                        store.create(header(name), start)
                        model[name] = [("new", {}, start)]
                elif name not in model:
                    with pytest.raises(CampaignError), store.transaction(name):
                        pass
                else:
                    pending: list[tuple[str, dict[str, Any], State]] = []
                    with (
                        pytest.raises(Boom) if op == "fail" else contextlib.nullcontext(),
                        store.transaction(name) as tx,
                    ):
                        for step in steps:
                            n = tx.last().state["shared"]["counter"] + step
                            tx.append("action", {"step": step}, counter(n))
                            pending.append(("action", {"step": step}, counter(n)))
                        if op == "fail":
                            raise Boom
                    if op == "commit":
                        model[name].extend(pending)
                check(store)
        finally:
            store.close()


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
