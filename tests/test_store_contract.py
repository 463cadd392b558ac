"""The `Store` contract, held by every database store alike: SQLite on a real file and PostgreSQL
on a real server (the `pg_cluster` fixture; skipped with its reason when there is none).

What a store promises: an append-only log per campaign with seqs 1..n; reads inside a
transaction are current; a transaction keeps all its appends or none (an exception, or a SIGKILL
halfway, keeps none and leaves no lock behind); a second writer waits, then gives up with RC903
"locked"; several processes writing one campaign at once lose nothing and interleave nothing;
unknown campaigns are RC901 with the nearest name; a taken name is RC902 and writes nothing.
tests/test_store.py holds what is SQLite's own (WAL, files that are not ours);
tests/test_postgres.py what is PostgreSQL's own.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from _postgres import Cluster
from _repo import REPO_ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import CampaignError
from engine.state import open_store
from engine.state.postgres import PostgresStore, redact
from engine.state.records import Event, Header, State, Store, Window
from engine.state.sqlite import SqliteStore

CHILD_ENV = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}


@dataclass
class Backend:
    """One kind of store on one database: opened as often as a test likes."""

    kind: str
    target: str
    """What `open_store` takes: a path or a URL."""
    where: str
    """How messages name it."""
    holder: str
    """What the unknown-campaign hint calls it: "file" or "database"."""
    cluster: Cluster | None = None

    def open(self, timeout: float = 10.0) -> Store:
        if self.kind == "sqlite":
            return SqliteStore(Path(self.target), timeout=timeout)
        return PostgresStore(self.target, timeout=timeout)

    def wipe(self) -> None:
        """Every campaign gone (the tables stay): a fresh start for a hypothesis example."""
        if self.kind == "sqlite":
            Path(self.target).unlink(missing_ok=True)
            return
        assert self.cluster is not None
        with contextlib.suppress(Exception):
            self.cluster.execute("DELETE FROM events; DELETE FROM campaigns", self.target)


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "sqlite":
        path = str(tmp_path / "campaigns.db")
        return Backend("sqlite", path, path, "file")
    url: str = request.getfixturevalue("pg_url")
    return Backend("postgres", url, redact(url), "database", request.getfixturevalue("pg_cluster"))


@pytest.fixture
def store(backend: Backend) -> Iterator[Store]:
    opened = backend.open()
    try:
        yield opened
    finally:
        opened.close()


def header(name: str, ruleset: str = "castle") -> Header:
    return Header(name, ruleset, "0" * 64, f"name: {ruleset}\n", {"difficulty": 2})


def counter(n: int) -> State:
    return {"shared": {"counter": n}, "characters": {}}


def only_diagnostic(error: pytest.ExceptionInfo[CampaignError], code: str, backend: Backend) -> str:
    """The single diagnostic's message, after checking its code, that it names the database and
    that it has no ruleset position."""
    (diagnostic,) = error.value.diagnostics
    assert diagnostic.code == code, diagnostic.render()
    assert diagnostic.span is None
    assert backend.where in diagnostic.message
    return diagnostic.message


def append_counter(store: Store, name: str, data: dict[str, Any] | None = None) -> Event:
    with store.transaction(name) as tx:
        n = tx.last().state["shared"]["counter"]
        return tx.append("action", data or {"action": "tick"}, counter(n + 1))


def last_in_transaction(store: Store, name: str) -> Event:
    with store.transaction(name) as tx:
        return tx.last()


# -- the round trip ----------------------------------------------------------------------------


def test_create_names_header_events_round_trip(backend: Backend, store: Store) -> None:
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
    assert store.last("moor") == appended[-1] and store.last("abbey").seq == 1
    store.close()
    with contextlib.closing(backend.open()) as again:  # all of it was committed
        assert again.events("moor") == events
        assert again.header("moor") == got
        assert again.names() == [("abbey", "chill", 1), ("moor", "castle", 4)]


def test_open_store_picks_the_store_from_the_target(backend: Backend) -> None:
    with contextlib.closing(open_store(backend.target)) as opened:
        assert type(opened) is (SqliteStore if backend.kind == "sqlite" else PostgresStore)
        assert opened.names() == []


def test_reads_inside_a_transaction_are_current(store: Store) -> None:
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


# -- pages of a log ---------------------------------------------------------------------------------


def expected_page(
    events: list[Event], after: int, before: int | None, limit: int | None, newest: bool
) -> list[Event]:
    """A page as the docs state it, worked out here on its own (not through `Window.take`)."""
    inside = [e for e in events if after < e.seq and (before is None or e.seq < before)]
    if limit is None:
        return inside
    return inside[max(0, len(inside) - limit) :] if newest else inside[:limit]


def test_a_window_reads_the_part_of_the_log_it_names_in_and_out_of_a_transaction(store: Store) -> None:
    store.create(header("moor"), counter(0))
    store.create(header("abbey"), counter(10))  # another campaign's events are never in the page
    for i in range(9):
        append_counter(store, "moor", {"action": "tick", "i": i})
        append_counter(store, "abbey")
    events = store.events("moor")
    assert [e.seq for e in events] == list(range(1, 11))
    pages = [
        (after, before, limit, newest)
        for after in (0, 1, 3, 9, 10, 11)
        for before in (None, 1, 2, 5, 10, 11, 12)
        for limit in (None, 1, 3, 10)
        for newest in (False, True)
    ]
    with store.transaction("moor") as tx:
        for after, before, limit, newest in pages:
            want = expected_page(events, after, before, limit, newest)
            window = Window(after, before, limit, newest)
            assert store.events("moor", window) == want, window
            assert tx.events(window) == want, window
    assert store.events("moor", Window(after=3, limit=2)) == events[3:5]  # seqs 4 and 5
    assert store.events("moor", Window(before=9, limit=2, newest=True)) == events[6:8]  # 7 and 8


def test_names_list_by_code_point_a_page_at_a_time(backend: Backend, store: Store) -> None:
    """`names` lists by name in the order Python sorts text (its code points) on every store,
    PostgreSQL's locale notwithstanding, and a page of them after a name: what the server's
    `GET /api/campaigns` pages through."""
    names = ["zed", "Zed", "apple", "Émile", "émile", "日本", "a b", "a-b", "a_b", "ä"]
    for name in names:
        store.create(header(name), counter(0))
    append_counter(store, "apple")
    listed = store.names()
    assert [n for n, _, _ in listed] == sorted(names)
    assert dict((n, k) for n, _, k in listed)["apple"] == 2
    paged, after = [], None
    while page := store.names(after, 3):
        assert len(page) <= 3
        paged += page
        after = page[-1][0]
    assert paged == listed
    assert store.names("zed") == [(n, r, k) for n, r, k in listed if n > "zed"]
    assert store.names(None, 1) == listed[:1] and store.names("\U0010ffff") == []


def test_a_window_past_a_gap_in_the_log_is_rc903(backend: Backend, store: Store) -> None:
    """A page must start at the event after `after` and go on without a gap: the pages an undo
    reads (newest first) and the server's `/log` find a log changed from outside as a whole read
    does."""
    store.create(header("moor"), counter(0))
    for _ in range(9):
        append_counter(store, "moor")
    statement = "DELETE FROM events WHERE campaign = 'moor' AND seq = 5"
    if backend.kind == "sqlite":
        raw = sqlite3.connect(backend.target)
        raw.execute(statement)
        raw.commit()
        raw.close()
    else:
        assert backend.cluster is not None
        backend.cluster.execute(statement, backend.target)
    for window in (
        Window(),
        Window(after=4),
        Window(after=2, limit=5),
        Window(before=9, limit=5, newest=True),
    ):
        with pytest.raises(CampaignError) as error:
            store.events("moor", window)
        message = only_diagnostic(error, "RC903", backend)
        assert "event 5 is missing (the log goes on at event 6)" in message, (window, message)
    # a page that does not reach the gap is read
    assert [e.seq for e in store.events("moor", Window(after=5, limit=2))] == [6, 7]
    assert [e.seq for e in store.events("moor", Window(before=5))] == [1, 2, 3, 4]


def test_create_refuses_a_taken_name_and_writes_nothing(backend: Backend, store: Store) -> None:
    store.create(header("moor"), counter(0))
    append_counter(store, "moor")
    before = (store.header("moor"), store.events("moor"))
    with pytest.raises(CampaignError) as error:
        store.create(header("moor", "chill"), counter(99))
    assert "moor" in only_diagnostic(error, "RC902", backend)
    assert (store.header("moor"), store.events("moor")) == before
    assert store.names() == [("moor", "castle", 2)]


def test_an_unknown_campaign_is_rc901_with_the_nearest_name(backend: Backend, store: Store) -> None:
    with pytest.raises(CampaignError) as error:
        store.events("moor")
    only_diagnostic(error, "RC901", backend)
    assert f"this {backend.holder} has no campaigns yet" in (error.value.diagnostics[0].hint or "")
    store.create(header("moor"), counter(0))
    store.create(header("abbey"), counter(0))
    for call in (store.header, store.events, store.last, lambda name: last_in_transaction(store, name)):
        with pytest.raises(CampaignError) as error:
            call("mor")
        assert "'mor'" in only_diagnostic(error, "RC901", backend)
        assert error.value.diagnostics[0].hint == "did you mean 'moor'?"
    with pytest.raises(CampaignError) as error:
        store.header("zzz")
    assert error.value.diagnostics[0].hint == f"the campaigns in this {backend.holder}: abbey, moor"
    append_counter(store, "moor")  # the failed transaction left no lock behind


# -- transactions keep all or nothing --------------------------------------------------------


class Boom(Exception):
    pass


def test_a_transaction_that_raises_keeps_nothing(store: Store) -> None:
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


def test_misuse_is_a_python_error_and_rolls_back(store: Store) -> None:
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


def test_a_writer_waits_then_gives_up_with_locked(backend: Backend, store: Store) -> None:
    store.create(header("moor"), counter(0))
    with contextlib.closing(backend.open(timeout=0.2)) as other, store.transaction("moor") as tx:
        tx.append("action", {}, counter(1))
        assert [e.seq for e in other.events("moor")] == [1]  # readers never wait, nor see it yet
        started = time.monotonic()
        with pytest.raises(CampaignError) as error:
            with other.transaction("moor"):
                pass
        assert time.monotonic() - started >= 0.15
        assert "locked" in only_diagnostic(error, "RC903", backend)
    assert [e.seq for e in store.events("moor")] == [1, 2]
    with contextlib.closing(backend.open(timeout=0.2)) as other:  # and the lock is gone
        assert append_counter(other, "moor").seq == 3


# -- real processes ----------------------------------------------------------------------------

KILLED = """
import sys, time
from engine.state import open_store
store = open_store(sys.argv[1])
with store.transaction("moor") as tx:
    tx.append("action", {"step": "kept"}, {"shared": {"counter": 1}, "characters": {}})
with store.transaction("moor") as tx:
    tx.append("action", {"step": "half"}, {"shared": {"counter": 2}, "characters": {}})
    print("inside", flush=True)
    time.sleep(60)
"""


def test_a_writer_killed_inside_a_transaction_leaves_the_last_commit_and_no_lock(backend: Backend) -> None:
    with contextlib.closing(backend.open()) as store:
        store.create(header("moor"), counter(0))
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED, backend.target],
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
        with contextlib.closing(backend.open(timeout=0.1)) as waiting:
            with pytest.raises(CampaignError) as error, waiting.transaction("moor"):
                pass
            assert "locked" in only_diagnostic(error, "RC903", backend)
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=10) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.communicate()
    with contextlib.closing(backend.open(timeout=5)) as store:
        events = store.events("moor")
        assert [(e.seq, e.data) for e in events] == [(1, {}), (2, {"step": "kept"})]
        assert events[-1].state == counter(1)
        assert append_counter(store, "moor").seq == 3  # the lock died with the process
        assert store.events("moor")[-1].state == counter(2)


WRITER = """
import os, sys, time
from engine.state import open_store
target, go, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
store = open_store(target)
print("ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.002)
for _ in range(n):
    with store.transaction("race") as tx:
        last = tx.last().state  # read-only, as a store hands it out: the next state is a copy
        time.sleep(0.0005)  # widen the read-to-write window a lost update would need
        state = {**last, "shared": {**last["shared"], "counter": last["shared"]["counter"] + 1}}
        tx.append("action", {"by": os.getpid()}, state)
store.close()
"""


def test_concurrent_writers_lose_nothing(backend: Backend, tmp_path: Path) -> None:
    """Three processes open the database at once (an empty one: they lay out the tables between
    them), then write one campaign at once: every append is there once, in a chain."""
    writers, n = 3, 50
    go = tmp_path / "go"
    children = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, backend.target, str(go), str(n)],
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
        with contextlib.closing(backend.open()) as store:
            store.create(header("race"), counter(0))
        go.touch()  # all start writing at once
        for child in children:
            _, err = child.communicate(timeout=120)
            assert child.returncode == 0, err
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.communicate()
    with contextlib.closing(backend.open()) as store:
        events = store.events("race")
    assert [e.seq for e in events] == list(range(1, 1 + writers * n + 1))
    assert [e.state["shared"]["counter"] for e in events] == list(range(writers * n + 1))
    by = [e.data["by"] for e in events[1:]]
    assert sorted(by.count(child.pid) for child in children) == [n] * writers


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


@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(ops=OPS)
def test_the_store_holds_exactly_what_was_committed(
    backend: Backend, ops: list[tuple[str, str, list[int]]]
) -> None:
    backend.wipe()
    model: dict[str, list[tuple[str, dict[str, Any], State]]] = {}

    def check(store: Store) -> None:
        assert store.names() == [(name, "castle", len(log)) for name, log in sorted(model.items())]
        for name, log in model.items():
            events = store.events(name)
            assert [e.seq for e in events] == list(range(1, len(log) + 1))
            assert [(e.kind, e.data, e.state) for e in events] == log

    store = backend.open()
    try:
        for op, name, steps in ops:
            if op == "reopen":
                store.close()
                store = backend.open()
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
