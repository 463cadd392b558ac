"""A campaign store read as it was written, and a file that is not ours left as it was (hunt
13zi): another program's SQLite database, killed with its write-ahead log not yet merged, was
refused and yet changed, since closing the connection merged the log into it; a stored number
past a float's range (`1e400`, which is JSON) was read as infinity, which `export` and `log
--json` printed as `Infinity`, not JSON; and a stored `3.0` where the rules write `3` was refused
by `show`, whose hint sent the reader to `replay`, which said every state equals the stored
one."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import engine
from engine.state.sqlite import SqliteStore

COUNTER = """rulecraft: 1
name: counter
checks:
  flip:
    roll:
      d: {die: 2}
    outcomes: [t, h]
    outcome: "'h' if d == 2 else 't'"
state:
  shared:
    n: {counter: 0, min: 0, max: 1000000}
actions:
  inc:
    effects:
      - {add: {n: 1}}
"""

KILLED = """
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA journal_mode = WAL")
c.execute("PRAGMA wal_autocheckpoint = 0")
c.execute("CREATE TABLE notes (a)")
for _ in range(50):
    c.execute("INSERT INTO notes VALUES (?)", ("x" * 200,))
os._exit(0)  # no close: the log stays beside the file, unmerged, as after a kill
"""


def _files(folder: Path) -> dict[str, str]:
    """The files that hold data, by their bytes: not the shared-memory index (`-shm`), which any
    reader of a database with a log, the program's own included, rebuilds from the log."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.is_file() and not p.name.endswith("-shm")
    }


HOT = """
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA journal_mode = DELETE")
c.execute("CREATE TABLE notes (a)")
for _ in range(50):
    c.execute("INSERT INTO notes VALUES (?)", ("x" * 200,))
c.execute("PRAGMA cache_size = 1")  # the transaction's pages spill into the file: a hot journal
c.execute("BEGIN")
for _ in range(500):
    c.execute("INSERT INTO notes VALUES (?)", ("y" * 400,))
os._exit(0)
"""


@pytest.mark.parametrize(
    ("made", "log", "through"),
    [(KILLED, "-wal", None), (HOT, "-journal", None), (KILLED, "-wal", "link"), (KILLED, "-wal", "dots")],
    ids=["wal", "journal", "link", "dots"],
)
def test_another_program_s_killed_database_is_left_as_it_is(
    tmp_path: Path, made: str, log: str, through: str | None
) -> None:
    """Its write-ahead log or its hot rollback journal (a writer killed mid-transaction), reached
    by its own name, through a link to it (SQLite names the log after the file the link leads to)
    or through `link/..` (a look by the path's text had read another file; hunt 13zl)."""
    folder = tmp_path / "app"
    folder.mkdir()
    subprocess.run([sys.executable, "-c", made, str(folder / "app.db")], check=True)
    before = _files(folder)
    assert f"app.db{log}" in before
    path = folder / "app.db"
    if through == "link":
        path = tmp_path / "link.db"
        path.symlink_to(folder / "app.db")
    elif through == "dots":
        (folder / "sub").mkdir()
        (tmp_path / "in").symlink_to(folder / "sub")
        path = tmp_path / "in" / ".." / "app.db"  # the kernel: folder/app.db; the text: tmp_path/app.db
    with pytest.raises(engine.CampaignError, match="not rulecraft's"):
        SqliteStore(path)
    assert _files(folder) == before


def test_a_path_that_is_not_utf8_with_a_log_beside_it_opens(tmp_path: Path) -> None:
    """The first look's address was quoted from the path's text, which a name of bytes that are
    not UTF-8 cannot be encoded from: a traceback (hunt 13zl), where the store had opened."""
    path = Path(os.fsdecode(bytes(tmp_path) + b"/t\xff.db"))
    held = SqliteStore(path)  # held open: its log stays beside it
    engine.new_campaign("c", COUNTER, store=held)
    assert os.path.isfile(os.fsencode(path) + b"-wal")
    with SqliteStore(path) as store:
        assert [name for name, _, _ in store.names()] == ["c"]
    held.close()


def test_a_file_held_by_another_process_is_waited_for_once(tmp_path: Path) -> None:
    """The first look waited the whole timeout, and the usual opening as long again: 4 s for a
    timeout of 2, told as "more than 2 s" (hunt 13zl)."""
    db = tmp_path / "app.db"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys, time\n"
            "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "c.execute('PRAGMA journal_mode = WAL'); c.execute('PRAGMA locking_mode = EXCLUSIVE')\n"
            "c.execute('CREATE TABLE t (a)'); c.execute('INSERT INTO t VALUES (1)')\n"
            "print('held', flush=True); time.sleep(30)\n",
            str(db),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        start = time.monotonic()
        with pytest.raises(engine.CampaignError, match="locked: another process held it for more than 2 s"):
            SqliteStore(db, timeout=2)
        assert time.monotonic() - start < 3.5  # the timeout and the look's fifth of a second, not twice 2 s
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()


def test_another_program_s_database_with_its_log_is_left_as_it_is(tmp_path: Path, cli) -> None:
    folder = tmp_path / "app"
    folder.mkdir()
    db = folder / "app.db"
    subprocess.run([sys.executable, "-c", KILLED, str(db)], check=True)
    before = _files(folder)
    assert {"app.db", "app.db-wal"} <= set(before) and (folder / "app.db-wal").stat().st_size > 0
    r = cli("campaign", "--db", str(db), "list", cwd=tmp_path)
    assert r.code == 1 and "is an SQLite database but not rulecraft's" in r.err, r.err
    with pytest.raises(engine.CampaignError, match="not rulecraft's"):
        SqliteStore(db)
    assert _files(folder) == before  # the file and its log, byte for byte
    with sqlite3.connect(db) as app:  # and the program's own rows are all there
        assert app.execute("SELECT count(*) FROM notes").fetchone() == (50,)


def _stored(tmp_path: Path, cli, state: str) -> str:
    (tmp_path / "counter.yaml").write_text(COUNTER)
    db = str(tmp_path / "w.db")
    for args in (["new", "c", "counter.yaml"], ["act", "c", "inc"], ["act", "c", "inc"]):
        assert cli("campaign", "--db", db, *args, cwd=tmp_path).code == 0
    with sqlite3.connect(db) as c:
        c.execute("UPDATE events SET state = ? WHERE seq = 3", (state,))
    return db


def test_a_number_past_a_float_s_range_is_damage(tmp_path: Path, cli) -> None:
    db = _stored(tmp_path, cli, '{"characters": {}, "params": {}, "shared": {"n": 1e400}}')
    said = (
        f"{db} is damaged: in campaign 'c', event 3's state holds the number 1e400, past a float's"
        " range, which rulecraft never writes"
    )
    for args in (["export", "c"], ["log", "c"], ["show", "c"], ["replay", "c"]):
        r = cli("campaign", "--db", db, *args, cwd=tmp_path)
        assert r.code == 1 and not r.out and r.err.splitlines()[0] == f"error RC903: {said}", (args, r.err)
    r = cli("campaign", "--db", db, "log", "c", "--json", cwd=tmp_path)  # JSON, told as JSON
    assert r.code == 1 and [d["message"] for d in json.loads(r.out)["diagnostics"]] == [said]
    with sqlite3.connect(db) as c:  # within a float's range, a number with an exponent reads
        c.execute(
            "UPDATE events SET state = ? WHERE seq = 3",
            ('{"characters": {}, "params": {}, "shared": {"n": 1e300}}',),
        )
    r = cli("campaign", "--db", db, "log", "c", "--json", cwd=tmp_path)
    assert r.code == 0 and json.loads(r.out)[-1]["state"]["shared"]["n"] == 1e300


@pytest.mark.parametrize("written", ["2.0", "true"])
def test_replay_finds_a_number_of_another_kind(tmp_path: Path, cli, written: str) -> None:
    db = _stored(tmp_path, cli, '{"characters": {}, "params": {}, "shared": {"n": ' + written + "}}")
    shown = cli("campaign", "--db", db, "show", "c", cwd=tmp_path)
    assert shown.code == 1 and "RC903" in shown.err and "'replay' finds the first event" in shown.err
    r = cli("campaign", "--db", db, "replay", "c", cwd=tmp_path)
    assert r.code == 1 and not r.out
    assert r.err.startswith("error RC909: replaying campaign 'c' gives a different state at event 3 (action)")


def test_same_json() -> None:
    from engine.state.records import same_json

    assert same_json({"a": [1, "x", None, {"b": True}]}, {"a": (1, "x", None, {"b": True})})
    for a, b in [
        (3, 3.0),
        (1, True),
        (0, False),
        ({"a": 1}, {"a": 1, "b": 2}),
        ([1], [1, 1]),
        ({"a": 1}, [1]),
    ]:
        assert not same_json(a, b) and not same_json(b, a), (a, b)


def test_a_reader_of_a_copy_with_a_rollback_journal_does_not_stop_a_read(tmp_path: Path) -> None:
    """A copy made by `VACUUM INTO` keeps a rollback journal; opening it switches it to a
    write-ahead log, which needs the file to itself. With another connection reading it, `show`
    waited the whole timeout (10 s) and was refused as "locked: another writer held it". It now
    reads the file in the mode it has, and a write waits for the reader, told as such."""
    source = SqliteStore(tmp_path / "src.db")
    engine.new_campaign("c", COUNTER, store=source).act("inc")
    with sqlite3.connect(tmp_path / "src.db") as c:
        c.execute(f"VACUUM INTO '{tmp_path / 'bk.db'}'")
    source.close()
    reader = sqlite3.connect(tmp_path / "bk.db", isolation_level=None)
    assert reader.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM events").fetchall()  # holds the file, to read it
    try:
        start = time.monotonic()
        with SqliteStore(tmp_path / "bk.db", timeout=3) as store:
            campaign = engine.open_campaign("c", store=store)
            assert campaign.state()["shared"] == {"n": 1}
            assert time.monotonic() - start < 2  # a fifth of a second to try the switch
            with pytest.raises(engine.CampaignError) as locked:
                campaign.act("inc")
            said = str(locked.value)
            assert "locked: another process held it for more than 3 s" in said
            assert "or reading it, if its journal is not write-ahead" in said
    finally:
        reader.close()
    with SqliteStore(tmp_path / "bk.db") as store:  # the reader gone: switched, and written
        engine.open_campaign("c", store=store).act("inc")
    with sqlite3.connect(tmp_path / "bk.db") as c:
        assert c.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_closing_from_another_thread_is_told_and_leaves_the_store_open(tmp_path: Path) -> None:
    """sqlite3's own `ProgrammingError` had come out, the store marked closed and its file held."""
    import threading

    store = SqliteStore(tmp_path / "c.db")
    engine.new_campaign("c", COUNTER, store=store)
    seen: list[BaseException] = []

    def close() -> None:
        try:
            store.close()
        except BaseException as e:  # noqa: BLE001 - what it raised is the test's to read
            seen.append(e)

    thread = threading.Thread(target=close)
    thread.start()
    thread.join()
    [error] = seen
    assert isinstance(error, engine.CampaignError) and error.diagnostics[0].code == "RC903"
    assert "opened in another thread" in error.diagnostics[0].message
    assert [name for name, _, _ in store.names()] == ["c"]  # still open, in its own thread
    store.close()
    store.close()  # twice: harmless


def test_a_long_number_past_a_float_s_range_is_shown_cut_and_said_so() -> None:
    from engine.state.records import json_object

    said = json_object('{"n": 1' + "0" * 400 + ".0}")
    assert said == (
        "holds the number 10000000000000000000… (403 characters), past a float's range, which rulecraft"
        " never writes"
    )
