"""An unknown campaign's hint (RC901, a 404 over HTTP) is found among a bounded number of names:
those next to the asked name in order on each side (and next to it in lower case), and its other
cases looked up whole. Before, every store read every campaign's name and weighed each one: at
100,000 campaigns 3 to 6 s per unknown name, which anyone could ask for in a loop. The typos of
every day are still found among many names, and at most 106 names are read of 405."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from engine.errors import CampaignError
from engine.state import records
from engine.state.memory import MemoryStore
from engine.state.postgres import PostgresStore
from engine.state.records import HINT_SIDE, Header, Store
from engine.state.sqlite import SqliteStore

NAMED = ["moor", "abbey", "Castle Keep", "the-long-night", "Émile"]
MOST_READ = 4 * (HINT_SIDE + 1) + 6 + 1
"""The names one unknown name may read: two sides of the name and of its lower case (each one
more than it weighs, which tells whether there are more), its other cases (at most five: lower,
upper, capitalized, title, swapped) and itself as a store is sent it (`anchored`), and the header
it looked for."""


def made(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> Store:
    if kind == "memory":
        return MemoryStore()
    if kind == "sqlite":
        return SqliteStore(tmp_path / "c.db")
    return PostgresStore(request.getfixturevalue("pg_url"))


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    opened = made(request.param, tmp_path, request)
    for name in [*NAMED, *(f"table-{i:05d}" for i in range(0, 2_000, 5))]:
        opened.create(Header(name, "castle", "0" * 64, "x"), {"shared": {}, "characters": {}})
    yield opened
    opened.close()


def hint(store: Store, name: str) -> str | None:
    with pytest.raises(CampaignError) as error:
        store.header(name)
    assert error.value.diagnostics[0].code == "RC901"
    return error.value.diagnostics[0].hint


@pytest.mark.parametrize(
    ("asked", "meant"),
    [
        ("the-long-nigth", "the-long-night"),  # two letters swapped at the end
        ("the-long-nite", "the-long-night"),  # the end misspelt
        ("the-lung-night", "the-long-night"),  # a letter wrong in the middle
        ("moore", "moor"),  # a letter added at the end
        ("mor", "moor"),  # a letter missing in the middle
        ("abey", "abbey"),
        ("castle keep", "Castle Keep"),  # a case difference, at the start and in the middle
        ("CASTLE KEEP", "Castle Keep"),
        ("Moor", "moor"),
        ("Castle Keeq", "Castle Keep"),  # the last letter wrong
        ("table-01230x", "table-01230"),
        ("Table-01230", "table-01230"),
    ],
)
def test_the_typos_of_every_day_are_found_among_many_campaigns(store: Store, asked: str, meant: str) -> None:
    assert hint(store, asked) == f"did you mean '{meant}'?"


def counted(store: Store, seen: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """Count every name the store reads from its database (or weighs, in memory)."""
    if isinstance(store, MemoryStore):
        weighed = records.did_you_mean

        def counting(name: str, candidates: Any, cutoff: float = 0.6) -> str | None:
            listed = list(candidates)
            seen.append(len(listed))
            return weighed(name, listed, cutoff)

        monkeypatch.setattr(records, "did_you_mean", counting)
        return
    reading: Callable[..., Any] = store._read  # type: ignore[attr-defined]

    class Cursor:
        def __init__(self, cursor: Any) -> None:
            self.cursor = cursor

        def fetchall(self) -> list[Any]:
            rows = list(self.cursor.fetchall())
            seen.append(len(rows))
            return rows

        def fetchone(self) -> Any:
            row = self.cursor.fetchone()
            seen.append(row is not None)
            return row

    class Connection:
        def __init__(self, connection: Any) -> None:
            self.connection = connection

        def execute(self, *args: Any) -> Cursor:
            return Cursor(self.connection.execute(*args))

        def __getattr__(self, name: str) -> Any:
            return getattr(self.connection, name)

    @contextmanager
    def read(*args: Any, **kwargs: Any) -> Iterator[Any]:
        with reading(*args, **kwargs) as connection:
            yield Connection(connection)

    store._read = read  # type: ignore[attr-defined]


def test_an_unknown_name_reads_a_bounded_number_of_names(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    for asked in ("zzz", "Table-0123x", "the-lung-night", "\udcff"):
        seen: list[int] = []
        monkeypatch.undo()
        counted(store, seen, monkeypatch)
        hint(store, asked)
        assert 0 < sum(seen) <= MOST_READ, (asked, seen)
    many = len(NAMED) + 400
    assert MOST_READ < many  # every name was read before


@pytest.mark.parametrize("asked", ["tabel-01995", "atble-01995", "tabel-01990"])
def test_a_name_read_among_some_is_offered_only_when_nearly_alike(store: Store, asked: str) -> None:
    """A typo in a name's first letters sorts it far from the name meant, which is then not read
    (`table-01995` here): the nearest of those read was offered though barely alike ('did you mean
    table-00115?', 0.73 by difflib), a wrong lead. Among some names a hint asks for 0.8
    (`PARTIAL_CUTOFF`); a database's store lists the campaigns next to the asked name instead."""
    said = hint(store, asked)
    if isinstance(store, MemoryStore):  # it names no campaigns but the one it offers
        assert said is None
    else:
        assert said is not None and said.startswith("the campaigns next to it by name"), said


def test_a_small_store_is_listed_whole_when_no_name_is_near(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "c.db")
    for name in ("b", "a", "c"):
        store.create(Header(name, "castle", "0" * 64, "x"), {"shared": {}, "characters": {}})
    assert hint(store, "zzzz") == "the campaigns in this file: a, b, c"
    for i in range(60):
        store.create(Header(f"n{i:02d}", "castle", "0" * 64, "x"), {"shared": {}, "characters": {}})
    assert hint(store, "zzzz") == (
        "the campaigns next to it by name in this file: n50, n51, n52, n53, n54, n55, n56, n57, n58, n59,"
        " and more"
    )
    store.close()


def test_a_store_of_exactly_a_side_s_names_is_listed_whole(tmp_path: Path) -> None:
    """A side of exactly `HINT_SIDE` names was taken for a part of more: a file of 25 campaigns
    was said to hold "…, and more", and its hint asked for `PARTIAL_CUTOFF` (review AO)."""
    store = SqliteStore(tmp_path / "c.db")
    for i in range(HINT_SIDE):
        store.create(Header(f"zone-{i:02d}", "castle", "0" * 64, "x"), {"shared": {}, "characters": {}})
    said = hint(store, "zone")  # 0.73 alike to each: offered, since every name was read
    assert said is not None and said.startswith("did you mean 'zone-"), said
    said = hint(store, "aaaa")
    assert (
        said is not None
        and said.startswith("the campaigns in this file: zone-00")
        and said.endswith(f"and {HINT_SIDE - 10} more")
    )
    store.close()


def test_a_nul_in_a_name_or_a_page_s_start_is_no_database_error(store: Store) -> None:
    """PostgreSQL takes no NUL in text: `GET /api/campaigns/mo%00r` and `?after=%00` were 503
    RC903 ("cannot keep that"), an answer that tells a client to try again (review AO). No name
    holds a NUL, so the first is an unknown campaign (`moor\\x00`: its hint still finds `moor`), and the
    names after `p + NUL + rest` are those after `p`."""
    assert hint(store, "moor\x00") == "did you mean 'moor'?"
    everything = store.names()
    assert store.names("\x00") == everything
    assert store.names("table-01230\x00x", 2) == [r for r in everything if r[0] > "table-01230"][:2]
