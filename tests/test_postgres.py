"""Campaigns on PostgreSQL (`engine.state.postgres`), against a real server (the `pg_cluster`
fixture: `$RULECRAFT_TEST_PG`, else a private throwaway cluster; skipped with the reason when
neither can be had).

The store contract shared with SQLite is in tests/test_store_contract.py. Here: a database that
is not ours is refused and not changed; every way of failing to connect is one RC903 that never
shows the password; the engine runs without psycopg and says which extra a URL needs; a dropped
connection is made again; the command line with `--db postgresql://...`; a refused or
over-the-limit action writes nothing; and several processes acting on one campaign at once
through the Python API and the command line lose nothing, interleave nothing, and replay.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _postgres import Cluster, database_name, with_database
from _repo import REPO_ROOT

import engine
from engine.errors import CampaignError
from engine.state import open_store
from engine.state.postgres import PAGE_INDEX, PostgresStore, redact
from engine.state.records import FORMAT, SCHEMA_VERSION, Header

CHILD_ENV = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
SECRET = "s3cret-Pa55"


def header(name: str) -> Header:
    return Header(name, "castle", "0" * 64, "name: castle\n", {})


def counter(n: int) -> dict[str, Any]:
    return {"shared": {"counter": n}, "characters": {}}


def refused(call: Callable[[], object], *says: str) -> str:
    """`call` raises one RC903 with no position whose text holds each of `says`: its text."""
    with pytest.raises(CampaignError) as error:
        call()
    (diagnostic,) = error.value.diagnostics
    assert diagnostic.code == "RC903" and diagnostic.span is None, diagnostic.render()
    text = diagnostic.render()
    for part in says:
        assert part in text, text
    return text


# -- a database that is not ours ------------------------------------------------------------------


def snapshot(cluster: Cluster, url: str) -> tuple[object, ...]:
    """Everything a user schema of the database holds: relations, columns and rows."""
    relations = cluster.execute(
        "SELECT n.nspname, c.relname, c.relkind FROM pg_class AS c"
        " JOIN pg_namespace AS n ON n.oid = c.relnamespace"
        " WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'"
        " ORDER BY 1, 2",
        url,
    )
    columns = cluster.execute(
        "SELECT table_schema, table_name, column_name, data_type FROM information_schema.columns"
        " WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2, 3",
        url,
    )
    rows = [
        cluster.execute(f'SELECT t::text FROM "{schema}"."{name}" AS t ORDER BY 1', url)
        for schema, name, kind in relations
        if kind == "r"
    ]
    return relations, columns, rows


def _foreign(cluster: Cluster, url: str) -> None:
    cluster.execute(
        "CREATE TABLE songs (title text, seconds integer); INSERT INTO songs VALUES ('Greensleeves', 170)",
        url,
    )


def _foreign_meta(cluster: Cluster, url: str) -> None:
    cluster.execute(
        "CREATE TABLE meta (key text PRIMARY KEY, value text);"
        " INSERT INTO meta VALUES ('format', 'someone-elses'), ('version', '1')",
        url,
    )


def _meta_of_other_columns(cluster: Cluster, url: str) -> None:
    cluster.execute("CREATE TABLE meta (id integer, note text); INSERT INTO meta VALUES (1, 'x')", url)


def _ours_then(statement: str) -> Callable[[Cluster, str], None]:
    def make(cluster: Cluster, url: str) -> None:
        with PostgresStore(url) as store:
            store.create(header("moor"), counter(0))
        cluster.execute(statement, url)

    return make


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (_foreign, "holds tables that are not rulecraft's"),
        (_foreign_meta, "holds tables that are not rulecraft's"),
        (_meta_of_other_columns, "holds tables that are not rulecraft's"),
        (
            _ours_then(f"UPDATE meta SET value = '{SCHEMA_VERSION + 1}' WHERE key = 'version'"),
            f"schema version {SCHEMA_VERSION + 1}, newer",
        ),
        (_ours_then("UPDATE meta SET value = 'banana' WHERE key = 'version'"), "unknown schema version"),
        (_ours_then("DROP TABLE events"), "damaged: its table(s) events are missing"),
    ],
    ids=["foreign", "foreign-meta", "meta-of-other-columns", "newer", "bad-version", "damaged"],
)
def test_a_database_that_is_not_ours_is_one_rc903_and_left_unchanged(
    pg_cluster: Cluster, pg_url: str, make: Callable[[Cluster, str], None], says: str
) -> None:
    make(pg_cluster, pg_url)
    before = snapshot(pg_cluster, pg_url)
    refused(lambda: PostgresStore(pg_url), says, redact(pg_url))
    assert snapshot(pg_cluster, pg_url) == before


def test_an_empty_database_is_laid_out_with_the_format_mark(pg_cluster: Cluster, pg_url: str) -> None:
    with PostgresStore(pg_url) as store:
        store.create(header("moor"), counter(0))
    assert dict(pg_cluster.execute("SELECT key, value FROM meta", pg_url)) == {
        "format": FORMAT,
        "version": str(SCHEMA_VERSION),
    }
    (stored,) = pg_cluster.execute("SELECT state FROM events WHERE campaign = 'moor'", pg_url)
    assert stored == (json.dumps(counter(0), sort_keys=True),)  # the bytes SQLite keeps


def _page_index(cluster: Cluster, url: str) -> list[tuple[object, ...]]:
    return cluster.execute(
        f"SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = '{PAGE_INDEX}'",
        url,
    )


def _page_scans(cluster: Cluster, url: str) -> int:
    """How many scans the page index has served, as the server's statistics count them."""
    found = cluster.execute(
        f"SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = '{PAGE_INDEX}'", url
    )
    return int(str(found[0][0])) if found else -1


def test_a_page_of_names_is_read_through_the_code_point_index(pg_cluster: Cluster, pg_url: str) -> None:
    """A page of names (`names(after, limit)`, `campaign list --after`, `GET /api/campaigns`)
    compares and orders names `COLLATE "C"` (by code point, as Python sorts), which the primary
    key's index, in the database's locale order, cannot serve: each page read and sorted every
    name (31 ms at 100,000). The layout has an index in that order, and the page is read
    through it."""
    with PostgresStore(pg_url) as store:
        store.create(header("moor"), counter(0))
    ((indexdef,),) = _page_index(pg_cluster, pg_url)
    assert str(indexdef).endswith('USING btree (name COLLATE "C")'), indexdef
    pg_cluster.execute(
        "INSERT INTO campaigns SELECT 'table-' || lpad(i::text, 5, '0'), 'castle', 'h', 't', '{}', 'now'"
        " FROM generate_series(1, 20000) AS i; ANALYZE campaigns",
        pg_url,
    )
    before = _page_scans(pg_cluster, pg_url)
    with PostgresStore(pg_url) as store:
        page = store.names(after="table-09999", limit=3)
    assert page == [("table-10000", "castle", 0), ("table-10001", "castle", 0), ("table-10002", "castle", 0)]
    # a backend's counts reach the statistics when it ends (the store hung up): soon after
    deadline = time.monotonic() + 20
    while _page_scans(pg_cluster, pg_url) <= before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _page_scans(pg_cluster, pg_url) > before >= 0


def test_a_database_laid_out_without_the_page_index_gets_it_when_opened(
    pg_cluster: Cluster, pg_url: str
) -> None:
    """A database laid out by an earlier rulecraft (no page index, the same schema version) is
    given the index the first time a store opens it, and nothing else changes."""
    with PostgresStore(pg_url) as store:
        store.create(header("moor"), counter(0))
    pg_cluster.execute(f"DROP INDEX {PAGE_INDEX}", pg_url)
    before = snapshot(pg_cluster, pg_url)
    with PostgresStore(pg_url) as store:
        assert store.names() == [("moor", "castle", 1)]
    assert len(_page_index(pg_cluster, pg_url)) == 1
    relations, columns, rows = snapshot(pg_cluster, pg_url)
    assert (columns, rows) == before[1:]
    assert [r for r in relations if r not in before[0]] == [("public", PAGE_INDEX, "i")]


def test_adding_the_page_index_waits_for_no_lock_and_is_tried_again_later(
    pg_cluster: Cluster, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Adding the index needs the table's SHARE lock, which a campaign being made (or a migration,
    or an `ANALYZE` from outside) holds against it: the open waited the store's whole `timeout`
    (10 s) and then went on without it, and so did every later open (a server opens a store per
    request). It waits `INDEX_WAIT` now, and this process tries again after `INDEX_RETRY`."""
    import psycopg

    from engine.state import postgres

    monkeypatch.setattr(postgres, "_INDEX_TRIED", {})
    with PostgresStore(pg_url) as store:
        store.create(header("moor"), counter(0))
    pg_cluster.execute(f"DROP INDEX {PAGE_INDEX}", pg_url)
    holder = psycopg.connect(pg_url, autocommit=True)
    try:
        holder.execute("BEGIN")
        holder.execute("UPDATE campaigns SET created = created WHERE name = 'moor'")  # a writer's lock
        for _ in range(2):
            began = time.monotonic()
            with PostgresStore(pg_url, timeout=5) as store:
                assert [n for n, _, _ in store.names()] == ["moor"]
            assert time.monotonic() - began < 2.5
            assert _page_index(pg_cluster, pg_url) == []
        holder.execute("COMMIT")
        with PostgresStore(pg_url) as store:  # tried within INDEX_RETRY: not again
            store.names()
        assert _page_index(pg_cluster, pg_url) == []
        monkeypatch.setattr(postgres, "INDEX_RETRY", 0.0)
        with PostgresStore(pg_url) as store:
            store.names()
        assert len(_page_index(pg_cluster, pg_url)) == 1
    finally:
        holder.close()


@pytest.mark.parametrize("who", ["read-only", "not-the-owner"])
def test_a_database_without_the_page_index_that_cannot_get_it_is_read_as_before(
    pg_cluster: Cluster, pg_url: str, who: str
) -> None:
    """Where the index cannot be made — a database read-only by default, a user who may read and
    write the tables but does not own them — the store opens, reads and writes as before (pages
    by a scan of every name, in the same order), and nothing else is changed."""
    with PostgresStore(pg_url) as store:
        for name in ("moor", "Moor", "fen", "éclair"):
            store.create(header(name), counter(0))
    pg_cluster.execute(f"DROP INDEX {PAGE_INDEX}", pg_url)
    url = pg_url
    role = "rc_" + database_name(pg_url)[3:] + "_guest"
    if who == "read-only":
        pg_cluster.execute(f'ALTER DATABASE "{database_name(pg_url)}" SET default_transaction_read_only = on')
    else:
        url = pg_url.replace("postgresql://postgres@", f"postgresql://{role}@", 1)
        if url == pg_url:
            pytest.skip("the guest's URL is made from the private cluster's (trusted socket) URL")
        pg_cluster.execute(f"CREATE ROLE {role} LOGIN")
        pg_cluster.execute(f"GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO {role}", pg_url)
    try:
        before = snapshot(pg_cluster, pg_url)
        with PostgresStore(url) as store:
            assert [n for n, _, _ in store.names()] == ["Moor", "fen", "moor", "éclair"]
            assert [n for n, _, _ in store.names(after="Moor", limit=2)] == ["fen", "moor"]
        assert snapshot(pg_cluster, pg_url) == before and _page_index(pg_cluster, pg_url) == []
        if who == "not-the-owner":
            with PostgresStore(url) as store:
                append(store)
                assert [e.seq for e in store.events("moor")] == [1, 2]
            assert _page_index(pg_cluster, pg_url) == []
    finally:
        if who == "not-the-owner":
            pg_cluster.execute(f"DROP OWNED BY {role}", pg_url)
            pg_cluster.execute(f"DROP ROLE {role}")


@pytest.mark.parametrize("encoding", ["SQL_ASCII", "LATIN1"])
def test_a_database_not_in_utf8_is_refused_before_anything_is_laid_out(
    pg_cluster: Cluster, pg_url: str, encoding: str
) -> None:
    """In SQL_ASCII psycopg reads text back as bytes, so a campaign was written and then its own
    database called foreign; in LATIN1 a name or ruleset holding '—' was a UnicodeEncodeError
    traceback, after the tables were laid out. Both are refused at once, and nothing is made."""
    name = database_name(pg_url)
    pg_cluster.drop(name)
    pg_cluster.execute(
        f"CREATE DATABASE \"{name}\" ENCODING '{encoding}' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0"
    )
    pg_cluster.made.append(name)
    refused(lambda: PostgresStore(pg_url), f"keeps its text as {encoding}", "UTF8", redact(pg_url))
    assert pg_cluster.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", pg_url) == [(0,)]


def test_the_text_is_utf8_whatever_the_clients_environment_says(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PGCLIENTENCODING", "LATIN1")
    with PostgresStore(pg_url) as store:
        store.create(header("дело — moor"), counter(0))
        assert [n for n, _, _ in store.names()] == ["дело — moor"]


def test_a_schema_of_its_own_named_in_the_url(pg_cluster: Cluster, pg_url: str) -> None:
    """A database shared with another program: our tables go in the schema the URL names, and the
    other program's tables are not touched."""
    _foreign(pg_cluster, pg_url)
    before = snapshot(pg_cluster, pg_url)
    refused(lambda: PostgresStore(pg_url), "options=-csearch_path%3DNAME")
    pg_cluster.execute("CREATE SCHEMA games", pg_url)
    in_games = (
        pg_url + "&options=-csearch_path%3Dgames"
        if "?" in pg_url
        else pg_url + "?options=-csearch_path%3Dgames"
    )
    with open_store(in_games) as store:
        store.create(header("moor"), counter(0))
    with open_store(in_games) as store:
        assert store.names() == [("moor", "castle", 1)]
    relations = {(s, n) for s, n, _ in snapshot(pg_cluster, pg_url)[0]}
    assert {("games", "meta"), ("games", "campaigns"), ("games", "events")} <= relations
    assert pg_cluster.execute("SELECT title FROM public.songs", pg_url) == [("Greensleeves",)]
    assert [r for r in snapshot(pg_cluster, pg_url)[0] if r[0] == "public"] == before[0]
    missing = pg_url + ("&" if "?" in pg_url else "?") + "options=-csearch_path%3Dnowhere"
    refused(lambda: PostgresStore(missing), "no schema to keep campaigns in")


# -- connecting -------------------------------------------------------------------------------------


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_every_way_of_failing_to_connect_is_one_rc903_without_the_password(
    pg_cluster: Cluster, pg_url: str, cli: Any, tmp_path: Path
) -> None:
    port = _free_port()
    cases = [
        (f"postgresql://ann:{SECRET}@127.0.0.1:{port}/games", "connection refused"),
        (f"postgres://ann:{SECRET}@/games?host={tmp_path}&port={port}", "connection refused"),
        (with_database(pg_url, "no_such_db"), 'database "no_such_db" does not exist'),
        (pg_url.replace("postgresql://postgres@", "postgresql://nobody@", 1), "refused the user or password"),
        (f"postgresql://ann:{SECRET}@no such host/games", "not a PostgreSQL address"),
        (f"postgresql://ann:{SECRET} x@db.example/games", "not a PostgreSQL address"),  # psycopg quotes it
        (f"postgresql://h/x?password={SECRET}&sslmode=nonsense", "postgresql://h/x?password=***"),
        # a bad parameter is not a host that does not answer ("no answer within the connect
        # timeout", hunt 13l)
        (
            f"postgresql://ann:{SECRET}@127.0.0.1:{port}/g?connect_timeout=abc",
            "check the parameters after '?'",
        ),
        (f"postgresql://ann:{SECRET}@127.0.0.1:{port}/g?sslmode=bogus", "check the parameters after '?'"),
    ]
    if pg_cluster.tcp is not None:  # the private cluster asks for a password over TCP
        cases.append((pg_cluster.tcp_url(database_name(pg_url), SECRET), "refused the user or password"))
    for url, says in cases:
        text = refused(lambda url=url: PostgresStore(url, connect_timeout=3), says)
        assert SECRET not in text
        # each the store's keeper's to mend, so a server's client is told so, not how to write
        # a URL it never gave (hunt 13o: `api_hint` "write it as postgresql://...", or none)
        with pytest.raises(CampaignError) as error:
            PostgresStore(url, connect_timeout=3)
        advice = error.value.diagnostics[0].advice
        assert advice is not None and (advice.kind, advice.of) == ("keeper", "store"), (url, advice)
        r = cli("campaign", "--db", url, "list")
        assert r.code == 1 and "error RC903" in r.err and says in r.err, r.err
        assert SECRET not in r.out + r.err


def test_a_password_that_is_a_word_of_the_address_masks_itself_alone() -> None:
    """Every occurrence of the password was masked, so a password "postgres" turned the address
    into '***ql://...' (and "e" would have masked every e): the address, already shown with its
    password masked, is kept whole."""
    port = _free_port()
    url = f"postgresql://ann:postgres@127.0.0.1:{port}/games"
    text = refused(lambda: PostgresStore(url, connect_timeout=3), "connection refused")
    assert f"postgresql://ann:***@127.0.0.1:{port}/games" in text and "***ql" not in text


PIECES = ("Kx7q", "Zr9w", "Mn4v", "Pt2s")
"""A password's pieces, joined by the characters a URL gives a meaning to: none may be shown."""


@pytest.mark.parametrize(
    "password",
    [
        "Kx7q@Zr9w",
        "Kx7q@Zr9w@Mn4v",
        "Kx7q:Zr9w@Mn4v",
        "Kx7q@Zr9w:Mn4v",
        "Kx7q/Zr9w",
        "Kx7q@Zr9w/Mn4v:Pt2s",
        "Kx7q:Zr9w",
        "Kx7q?Zr9w",
        "Kx7q#Zr9w@Mn4v",
        "Kx7q?Zr9w@Mn4v",
        "Kx7q@Zr9w/Mn4v?Pt2s",
    ],
)
def test_a_password_with_an_unencoded_at_colon_or_slash_shows_no_part_of_itself(
    cli: Any, monkeypatch: pytest.MonkeyPatch, password: str
) -> None:
    """`postgresql://ann:Kx7q@Zr9w@host/db`: libpq ends the password at the first '@' (a '/'
    ends the user and password before it), and took the rest for the host, which its message
    showed ("failed to resolve host 'Zr9w@127.0.0.1'"); the address as shown was masked up to
    another '@' (or not at all past a '/' or '?'). No part of the password may be shown, and an
    address that libpq would read otherwise than it is meant is refused saying how to write it."""
    port = _free_port()
    pieces = [piece for piece in PIECES if piece in password]
    for url in (
        f"postgresql://ann:{password}@127.0.0.1:{port}/games",
        f"postgres://ann:{password}@127.0.0.1:{port}/games?sslmode=disable",
    ):
        assert not any(piece in redact(url) for piece in pieces), redact(url)
        text = refused(lambda url=url: PostgresStore(url, connect_timeout=3))
        assert "ann:***@127.0.0.1" in text and not any(piece in text for piece in pieces), text
        if "@" in password or "/" in password:
            assert "%40" in text and "nothing was sent to the server" in text, text
        else:  # read as meant: tried, and the server is not there
            assert "connection refused" in text, text
        r = cli("campaign", "--db", url, "list")
        assert r.code == 1 and r.err.startswith("error RC903") and r.err.count("error") == 1, r.err
        assert not any(piece in r.out + r.err for piece in pieces), r.out + r.err
        monkeypatch.setenv("RULECRAFT_DB", url)
        r = cli("campaign", "list")
        assert r.code == 1 and not any(piece in r.out + r.err for piece in pieces), r.out + r.err
    r = cli("campaign", "--db", f"postgresql+psycopg://ann:{password}@127.0.0.1:{port}/games", "list")
    assert r.code == 1 and "RC903" in r.err and not any(piece in r.out + r.err for piece in pieces), r.err
    keywords = f"host=127.0.0.1 port={port} user=ann password='{password.replace(':', ' ')}'"
    text = refused(lambda: PostgresStore(keywords, connect_timeout=3), "connection refused")
    assert not any(piece in text for piece in pieces), text


@pytest.mark.skipif("RULECRAFT_TEST_PG" in os.environ, reason="needs the private cluster's TCP port")
def test_a_password_holding_at_colon_and_slash_percent_encoded_connects(
    pg_cluster: Cluster, pg_url: str
) -> None:
    """What the refusal's hint says to do works: the same password, percent-encoded."""
    from urllib.parse import quote

    role = "rc_" + database_name(pg_url)[3:] + "_at"
    password = "Kx7q@Zr9w/Mn4v:Pt2s?#"
    pg_cluster.execute(f"CREATE ROLE {role} LOGIN SUPERUSER PASSWORD '{password}'")
    try:
        base = pg_cluster.tcp_url(database_name(pg_url), None).replace("postgres@", f"{role}:{{}}@", 1)
        text = refused(lambda: PostgresStore(base.format(password)), "%40")
        assert not any(piece in text for piece in PIECES), text
        with PostgresStore(base.format(quote(password, safe=""))) as store:
            store.create(header("moor"), counter(0))
            assert store.path == base.format("***") and store.names() == [("moor", "castle", 1)]
    finally:
        pg_cluster.execute(f"DROP OWNED BY {role}", pg_url)
        pg_cluster.execute(f"DROP ROLE {role}")


@pytest.mark.parametrize(
    ("query", "clear"),
    [
        ("password=Kx7q&Zr9w", False),
        ("password=Kx7q&Zr9w=Mn4v", False),
        ("password=Kx7q=Zr9w", False),
        ("pass%77ord=Kx7q&Zr9w&sslmode=disable", False),
        ("password=Kx7q%26Zr9w&Mn4v", False),
        ("password=Kx7q&password=Zr9w&Mn4v", False),
        ("sslmode=disable&password=Kx7q&Zr9w", False),
        ("password=Kx7q#Zr9w&Mn4v", False),
        ("password=Kx7q?Zr9w&Mn4v", False),
        ("password=Kx7q/Zr9w:Mn4v&Pt2s", False),
        ("password=Kx7q&Zr9w@Mn4v", False),
        ("sslpassword=Kx7q&Zr9w", False),
        ("password=Kx7q%26Zr9w%3DMn4v&sslmode=disable", True),
        ("password=Kx7q#Zr9w@Mn4v", True),
        ("password=Kx7q?Zr9w/Mn4v:Pt2s", True),
        ("password=Kx7q&password=Zr9w", True),
    ],
)
def test_a_password_in_the_query_shows_no_part_of_itself(cli: Any, query: str, clear: bool) -> None:
    """`postgresql://ann@host/db?password=Kx7q&Zr9w`: libpq ends the password at the '&' and
    refused the rest ('missing key/value separator "=" in URI query parameter: "Zr9w"'), which
    was shown, as was the rest in the address (`?password=***&Zr9w`). A password in the query
    that is followed by a piece libpq would not read as a parameter of its own (an '&' or '='
    in it not percent-encoded) is refused before anything is sent, and masked whole; one written
    as libpq reads it is tried, and masked where it sits."""
    port = _free_port()
    url = f"postgresql://ann@127.0.0.1:{port}/games?{query}"
    pieces = [piece for piece in PIECES if piece in query]
    assert not any(piece in redact(url) for piece in pieces), redact(url)
    text = refused(lambda: PostgresStore(url, connect_timeout=3))
    assert not any(piece in text for piece in pieces), text
    if clear:
        assert "connection refused" in text, text
    else:
        assert "nothing was sent to the server" in text and ("%26" in text or "%40" in text), text
    r = cli("campaign", "--db", url, "list")
    assert r.code == 1 and r.err.startswith("error RC903") and r.err.count("error") == 1, r.err
    assert not any(piece in r.out + r.err for piece in pieces), r.out + r.err


def test_a_password_in_the_query_is_masked_where_it_sits() -> None:
    """The address shown keeps every parameter libpq reads as one, and masks a password's value
    with whatever libpq would not read as a parameter after it."""
    assert redact("postgresql://u@host/db?password=a&b") == "postgresql://u@host/db?password=***"
    assert (
        redact("postgresql://u@host/db?password=a&b&sslmode=disable&password=c=d")
        == "postgresql://u@host/db?password=***&sslmode=disable&password=***"
    )
    assert (
        redact("postgresql://ann:a@host/db?application_name=a&sslpassword=a%26b")
        == "postgresql://ann:***@host/db?application_name=a&sslpassword=***"
    )


HUNTER = "hunter2"


@pytest.mark.parametrize(
    "url",
    [
        f"postgresql://ann:p@ss?x@db.example/games?password={HUNTER}",
        f"postgresql://ann:p@ss?x@db.example/games?sslpassword={HUNTER}",
        f"postgresql://ann:p/ss?x@db.example/games?password={HUNTER}",
        f"postgresql://ann@db.example/ga?mes?password={HUNTER}",
        f"postgresql://db.example?password=hun@{HUNTER}",
        f"postgresql://db.example:5432?password=hun@{HUNTER}",
        f"postgresql://ann@db.example/games?sslmode=disable?password=x&{HUNTER}",
    ],
)
def test_a_query_password_after_an_unencoded_at_and_question_mark_shows_no_part_of_itself(
    cli: Any, url: str
) -> None:
    """`_userinfo` took the widest reading of where the user's password ends (past `p@ss?x@`)
    while the query was looked for at libpq's first '?' after the first '@', so the whole tail
    was one piece that gave no password, and `?password=hunter2` was shown in the refusal, in
    `store.path` and in libpq's words. A password in the query is masked wherever the query may
    begin; one that libpq would read as the host or as a piece of its own is refused."""
    assert HUNTER not in redact(url), redact(url)
    text = refused(lambda: PostgresStore(url, connect_timeout=2), "nothing was sent to the server")
    assert HUNTER not in text, text
    r = cli("campaign", "--db", url, "list")
    assert r.code == 1 and r.err.startswith("error RC903") and HUNTER not in r.out + r.err, r.err


@pytest.mark.parametrize(
    ("query", "shown"),
    [
        ("password=p&", "password=***"),
        ("password=p&requiressl=1", "password=***&requiressl=1"),
        ("password=p&ssl=true", "password=***&ssl=true"),
        ("password=p&%73slmode=disable", "password=***&%73slmode=disable"),
    ],
)
def test_a_query_libpq_reads_is_tried_and_masked_where_its_password_sits(query: str, shown: str) -> None:
    """A trailing '&' (an empty piece) and `requiressl`, which libpq reads though it is no
    keyword of its list, were taken for a piece of the password and the URL refused. Whether
    libpq reads a piece is asked of libpq."""
    import psycopg.conninfo

    port = _free_port()
    url = f"postgresql://ann@127.0.0.1:{port}/games?{query}"
    psycopg.conninfo.conninfo_to_dict(url)  # libpq reads it
    assert redact(url) == f"postgresql://ann@127.0.0.1:{port}/games?{shown}"
    refused(lambda: PostgresStore(url, connect_timeout=2), "connection refused")


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://u:hunter%zz2@127.0.0.1:1/db",
        "postgresql://u@127.0.0.1:1/db?password=hunter%zz2",
        "postgresql://u:hunter 2@127.0.0.1:1/db",
        "postgresql://u:hunter2@[::1/db",
        "postgresql://u:hunter2@127.0.0.1:1/db",
    ],
)
def test_the_drivers_exception_is_neither_the_cause_nor_the_context(url: str) -> None:
    """The RC903 was raised `from` psycopg's exception, whose words held the password whole
    ('invalid percent-encoded token: "hunter%zz2"'), and a traceback or `logging.exception`
    prints a cause and a context."""
    import traceback

    with pytest.raises(CampaignError) as error:
        PostgresStore(url, connect_timeout=2)
    err = error.value
    assert err.__cause__ is None and err.__context__ is None, (err.__cause__, err.__context__)
    printed = "".join(traceback.format_exception(err))
    assert "hunter" not in printed, printed


def test_a_secret_in_key_value_text_is_masked_whole() -> None:
    """`\\bpassword` did not match in `sslpassword`, and `password=a\\ b` (libpq reads `a b`)
    was shown as `password=*** b`."""
    assert redact("host=h sslpassword=topsecret") == "host=h sslpassword=***"
    assert redact("host=h password=a\\ b port=5") == "host=h password=*** port=5"
    assert redact("host=h password='a b' sslpassword=c\\ d") == "host=h password=*** sslpassword=***"
    port = _free_port()
    text = refused(
        lambda: PostgresStore(f"host=127.0.0.1 port={port} user=ann password=Kx7q\\ Zr9w", connect_timeout=2),
        "connection refused",
    )
    assert "Kx7q" not in text and "Zr9w" not in text, text


@pytest.mark.skipif("RULECRAFT_TEST_PG" in os.environ, reason="needs the private cluster's TCP port")
def test_a_user_or_database_named_as_the_password_is_shown(pg_cluster: Cluster, pg_url: str) -> None:
    """A quoted token equal to the password was masked in every message, so the server's
    'password authentication failed for user "***"' for `postgresql://rc_x:rc_x@...` told the
    password (it is the user's name); so did 'database "***" does not exist'. Only libpq's
    words on a URL it cannot read have their quoted password masked."""
    role = "rc_" + database_name(pg_url)[3:] + "_same"
    pg_cluster.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{role}'")
    try:
        assert pg_cluster.tcp is not None
        host, port = pg_cluster.tcp
        same = f"postgresql://{role}:{role}@{host}:{port}/{database_name(pg_url)}"
        pg_cluster.execute(f"ALTER ROLE {role} PASSWORD '{role}x'")
        text = refused(lambda: PostgresStore(same), "refused the user or password")
        assert f'password authentication failed for user "{role}"' in text, text
        missing = f"postgresql://{role}:{role}_db@{host}:{port}/{role}_db"
        pg_cluster.execute(f"ALTER ROLE {role} PASSWORD '{role}_db'")
        text = refused(lambda: PostgresStore(missing), "does not exist")
        assert f'database "{role}_db" does not exist' in text, text
        assert f"postgresql://{role}:***@{host}:{port}/{role}_db" in text, text
    finally:
        pg_cluster.execute(f"DROP ROLE {role}")


def test_the_server_hides_a_url_whose_scheme_is_in_capitals() -> None:
    """`open_store` lower-cases the scheme, so the store named `postgresql://ann:***@...`, which
    the server's `_hidden` did not know (it looked for `PostgreSQL://ann:***@...`)."""
    pytest.importorskip("fastapi")
    from engine.serve.app import Server, Settings
    from engine.serve.routes_campaigns import STORE, _hidden

    port = _free_port()
    for given in (
        f"PostgreSQL://ann:Kx7q@127.0.0.1:{port}/games",
        f"POSTGRES://ann:Kx7q@127.0.0.1:{port}/games",
    ):
        server = Server(Settings(db=given))
        with pytest.raises(CampaignError) as error:
            open_store(given)
        (said,) = error.value.diagnostics
        shown = _hidden(server, said).message
        assert shown == f"cannot connect to {STORE}: connection refused (no server is listening there)", shown


def test_the_server_names_neither_the_stores_host_nor_its_user_nor_its_database() -> None:
    """docs/server.md: an error names the store "the server's campaign store", never its URL. The
    URL whole was hidden, but the driver's words name its host: a client reading campaigns while
    `postgresql://alice:pw@db.internal.example/x` was down got a 503 naming the host (a hunt)."""
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from engine.errors import Diagnostic
    from engine.serve.app import Server, Settings, create_app
    from engine.serve.routes_campaigns import _hidden

    given = "postgresql://alice:pw@db.internal.invalid/tables?connect_timeout=2"  # .invalid: never found
    with TestClient(create_app(db=given, workers=1)) as client:
        read = client.get("/api/campaigns")
    assert read.status_code == 503, read.text
    for secret in ("db.internal", "alice", "tables", "pw"):
        assert secret not in read.text, (secret, read.text)
    assert "the server's campaign store" in read.text
    server = Server(Settings(db="postgresql://alice:pw@db.internal.invalid:5433,[fd00::7]/tables"))
    for said in (  # libpq's words, as a server that is there but refuses says them
        'connection to server at "db.internal.invalid" (10.1.2.3), port 5433 failed: timeout expired',
        'connection to server at "fd00::7", port 5432 failed: FATAL: password for user "alice" failed',
        "FATAL: database 'tables' does not exist",
        'could not translate host name "db.internal.invalid" to address',
    ):
        d = Diagnostic("RC903", f"cannot connect to the server's campaign store: {said}", None, said)
        shown = _hidden(server, d)
        for secret in ("db.internal", "10.1.2.3", "fd00", "5433", "alice", "tables"):
            assert secret not in shown.message and secret not in (shown.hint or ""), (secret, shown)


SECRET_TOKENS = [*"@/:?&=#% []'\"\\", "%zz", *"QJKZ"]
"""What a password is made of in the property test: the characters a URL or libpq's URL reading
gives a meaning to, and letters that no message of ours holds (so that a password found in the
text can only be a password shown)."""


def _url_cases() -> Any:
    from hypothesis import strategies as st

    password = st.lists(st.sampled_from(SECRET_TOKENS), min_size=1, max_size=12).map("".join)
    key = st.sampled_from(["password", "sslpassword", "PassWord", "pass%77ord"])
    after = st.sampled_from(["", "&sslmode=disable", "&", "&requiressl=1"])
    return st.one_of(
        st.tuples(st.just("user"), password, st.just(""), st.just(""), st.just("")),
        st.tuples(st.just("query"), st.just(""), key, password, after),
        st.tuples(st.just("both"), password, key, password, after),
    )


def _built(case: tuple[str, str, str, str, str]) -> tuple[str, list[tuple[int, int]]]:
    """A URL to a port nothing listens on and where its passwords were written in it."""
    form, user_secret, key, query_secret, after = case
    head = "postgresql://ann"
    spans = []
    if form in ("user", "both"):
        spans.append((len(head) + 1, len(head) + 1 + len(user_secret)))
        head += f":{user_secret}"
    head += "@127.0.0.1:1/games"
    if form in ("query", "both"):
        head += f"?{key}="
        spans.append((len(head), len(head) + len(query_secret)))
        head += query_secret + after
    return head, spans


def test_no_password_of_any_reading_is_ever_shown() -> None:
    """Random passwords over the characters a URL reading gives a meaning to, in the user's
    password, the query, or both: none is shown, as written or percent-decoded, in `redact` or in
    the RC903 the store raises (or its cause or context), when it is 3 characters or more, not
    found elsewhere in the URL, and holds a letter (punctuation alone, "'@'", is in our own
    words)."""
    from urllib.parse import unquote

    from hypothesis import HealthCheck, given, settings

    @settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(_url_cases())
    def check(case: tuple[str, str, str, str, str]) -> None:
        url, spans = _built(case)
        secrets_ = []
        for start, end in spans:
            written = url[start:end]
            rest = url[:start] + "\0" + url[end:]
            secrets_ += [
                s
                for s in {written, unquote(written)}
                if len(s) >= 3 and s not in rest and set(s) & set("QJKZ")
            ]
        shown = redact(url)
        with pytest.raises(CampaignError) as error:
            PostgresStore(url, connect_timeout=1)
        err = error.value
        text = "\n".join(
            [*(d.render() for d in err.diagnostics), str(err), repr(err.__cause__), repr(err.__context__)]
        )
        for secret in secrets_:
            assert secret not in shown, (url, shown)
            assert secret not in text, (url, text)

    check()


@pytest.mark.parametrize("password", ["a", "e", "n", "o", "s", "1", ".", "c", "t"])
def test_a_one_letter_password_masks_itself_alone(password: str) -> None:
    """Every occurrence of the password's text was masked, so a password "a" turned every "a" of
    the message into "***" ("c***nnot connect", and the port's digits for "1"). The password is
    masked where it sits in the address; libpq's words are left whole, but for the address
    quoted whole (an IPv6 host it cannot read) and a token it quotes that is the password."""
    port = _free_port()
    for url, shown in (
        (
            f"postgresql://ann:{password}@127.0.0.1:{port}/games",
            f"postgresql://ann:***@127.0.0.1:{port}/games",
        ),
        (
            f"postgresql://ann@127.0.0.1:{port}/games?password={password}",
            f"postgresql://ann@127.0.0.1:{port}/games?password=***",
        ),
    ):
        text = refused(lambda url=url: PostgresStore(url, connect_timeout=3))
        assert text == (
            f"error RC903: cannot connect to {shown}: connection refused (no server is listening there)\n"
            "  hint: check that PostgreSQL is running, and the host and port (or socket folder) in the URL"
        ), text
    text = refused(lambda: PostgresStore(f"postgresql://ann:{password}@[::1/games"))
    said = 'end of string reached when looking for matching "]" in IPv6 host address in URI'
    assert text.splitlines()[0] == (
        "error RC903: postgresql://ann:***@[::1/games is not a PostgreSQL address rulecraft can read:"
        f' {said}: "postgresql://ann:***@[::1/games"'
    ), text
    for url, shown, said in (
        (
            f"postgresql://ann:{password}%@127.0.0.1/games",
            "postgresql://ann:***@127.0.0.1/games",
            'invalid percent-encoded token: "***"',
        ),
        (
            f"postgresql://ann@127.0.0.1/games?password={password}%zz",
            "postgresql://ann@127.0.0.1/games?password=***",
            'invalid percent-encoded token: "***"',
        ),
        (
            f"postgresql://ann:{password} x@127.0.0.1/games",
            "postgresql://ann:***@127.0.0.1/games",
            'unexpected spaces found in "***", use percent-encoded spaces (%20) instead',
        ),
    ):
        text = refused(lambda url=url: PostgresStore(url))
        assert text.splitlines()[0] == (
            f"error RC903: {shown} is not a PostgreSQL address rulecraft can read: {said}"
        ), text


@pytest.mark.skipif("RULECRAFT_TEST_PG" in os.environ, reason="needs the private cluster's TCP port")
@pytest.mark.parametrize("password", ["a", "s", "&=?#"])
def test_a_short_password_over_tcp_connects_and_a_wrong_one_is_told_whole(
    pg_cluster: Cluster, pg_url: str, password: str
) -> None:
    """The server's own words ('password authentication failed for user "..."') are shown whole
    though the password given is "e"; a short password in the query, percent-encoded as the
    refusal's hint says, connects."""
    from urllib.parse import quote

    role = "rc_" + database_name(pg_url)[3:] + "_short"
    pg_cluster.execute(f"CREATE ROLE {role} LOGIN SUPERUSER PASSWORD '{password}'")
    try:
        base = pg_cluster.tcp_url(database_name(pg_url), None).replace("postgres@", f"{role}@", 1)
        with PostgresStore(f"{base}?password={quote(password, safe='')}") as store:
            store.create(header("moor"), counter(0))
            assert store.path == f"{base}?password=***" and store.names() == [("moor", "castle", 1)]
        wrong = base.replace(f"{role}@", f"{role}:e@", 1)  # a one-letter password, and the wrong one
        text = refused(lambda: PostgresStore(wrong))
        shown = base.replace(f"{role}@", f"{role}:***@", 1)
        assert text == (
            f"error RC903: cannot connect to {shown}: the server refused the user or password"
            f' (password authentication failed for user "{role}")\n'
            "  hint: check the user and password in the URL (or PGPASSWORD, ~/.pgpass)"
        ), text
    finally:
        pg_cluster.execute(f"DROP OWNED BY {role}", pg_url)
        pg_cluster.execute(f"DROP ROLE {role}")


def test_a_reader_waits_no_longer_than_a_writer_and_a_cancel_is_said_as_one(
    pg_cluster: Cluster, pg_url: str
) -> None:
    """A read waited as long as a table lock taken from outside was held (24 s behind a LOCK
    TABLE, where the docs said readers never wait), and a statement the server cancelled was
    reported as a lock held for more than the timeout (found by an audit)."""
    import threading

    import psycopg

    with PostgresStore(pg_url) as store:
        store.create(header("moor"), counter(0))
    holder = psycopg.connect(pg_url, autocommit=True)
    holder.execute("BEGIN")
    holder.execute("LOCK TABLE events IN ACCESS EXCLUSIVE MODE")
    try:
        said: list[str] = []
        kinds: list[str | None] = []  # the advice: a server tells its client to send it again

        def read(seconds: float) -> None:
            with PostgresStore(pg_url, timeout=seconds) as reader:
                try:
                    reader.events("moor")
                except CampaignError as e:
                    said.append(e.diagnostics[0].render())
                    advice = e.diagnostics[0].advice
                    kinds.append(None if advice is None else advice.kind)

        hasty = threading.Thread(target=read, args=(1,))  # in a thread: a read that waits on is
        hasty.start()  # a failure here, not a test that hangs until the lock is let go
        hasty.join(8)
        assert not hasty.is_alive() and len(said) == 1, said
        assert "is locked" in said[0] and "more than 1 s" in said[0], said
        assert kinds == ["retry"], kinds
        said.clear()
        waiting = threading.Thread(target=read, args=(60,))
        waiting.start()
        until = time.monotonic() + 20
        cancelled: list[Any] = []
        while not cancelled and time.monotonic() < until:
            time.sleep(0.1)
            cancelled = pg_cluster.execute(
                "SELECT pg_cancel_backend(pid) FROM pg_stat_activity"
                " WHERE application_name = 'rulecraft' AND wait_event_type = 'Lock'",
                pg_url,
            )
        waiting.join(30)
        assert cancelled and not waiting.is_alive()
        assert said and "was cancelled by the server" in said[0] and "is locked" not in said[0], said
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_a_url_with_its_scheme_in_capitals_and_a_column_made_jsonb(pg_cluster: Cluster, pg_url: str) -> None:
    """`POSTGRESQL://` was taken for PostgreSQL and handed to libpq, which takes the scheme in
    lower case only; a `data` column changed to jsonb (which the docs suggest for queries) was
    read as "not a JSON object" (found by an audit)."""
    scheme, _, rest = pg_url.partition("://")
    with open_store(f"{scheme.upper()}://{rest}") as store:
        store.create(header("moor"), counter(0))
    pg_cluster.execute("ALTER TABLE events ALTER data TYPE jsonb USING data::jsonb", pg_url)
    # told when the store is opened, before anything is written (hunt 13l), not at the first read
    refused(lambda: PostgresStore(pg_url), "damaged", "events.data is jsonb, not text", "ALTER TABLE events")


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ("ALTER TABLE events ALTER undoes TYPE text", "events.undoes is text, not integer"),
        (
            "ALTER TABLE campaigns ALTER created TYPE timestamptz USING created::timestamptz",
            "campaigns.created is",
        ),
        ("ALTER TABLE events DROP COLUMN at", "events.at is missing"),
    ],
)
def test_a_column_changed_outside_is_refused_before_any_write(
    pg_cluster: Cluster, pg_url: str, change: str, said: str
) -> None:
    """Hunt 13l: with `events.undoes` made text, `act` and `undo` each wrote an event into it, and
    only then did every read fail ("event 8 undoes '7', no earlier event"): rulecraft's own
    writes made the campaign unreadable. Now the open is refused, and nothing is written."""
    with open_store(pg_url) as store:
        store.create(header("moor"), counter(0))
    pg_cluster.execute(change, pg_url)
    refused(lambda: open_store(pg_url), "damaged", said, "changed outside rulecraft")
    rows = pg_cluster.execute("SELECT count(*) FROM events", pg_url)
    assert rows == [(1,)], rows


def test_a_user_without_the_rights_is_told_which_it_needs(pg_cluster: Cluster, pg_url: str) -> None:
    role = "rc_" + database_name(pg_url)[3:] + "_guest"
    guest = pg_url.replace("postgresql://postgres@", f"postgresql://{role}@", 1)
    if guest == pg_url:
        pytest.skip("the guest's URL is made from the private cluster's (trusted socket) URL")
    pg_cluster.execute(f"CREATE ROLE {role} LOGIN")
    try:
        pg_cluster.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC", pg_url)  # as PostgreSQL 15 has it
        before = snapshot(pg_cluster, pg_url)
        refused(lambda: PostgresStore(guest), "permission denied for schema public", "CREATE on the schema")
        assert snapshot(pg_cluster, pg_url) == before
        with PostgresStore(pg_url) as store:  # laid out by its owner, shown to the guest
            store.create(header("moor"), counter(0))
        pg_cluster.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}", pg_url)
        with PostgresStore(guest) as store:
            assert store.names() == [("moor", "castle", 1)]
            refused(lambda: append(store), "permission denied for table campaigns", "UPDATE")  # FOR UPDATE
            assert [e.seq for e in store.events("moor")] == [1]
    finally:
        pg_cluster.execute(f"DROP OWNED BY {role}", pg_url)
        pg_cluster.execute(f"DROP ROLE {role}")


@pytest.mark.parametrize("by", ["database", "role"])
def test_a_database_read_only_by_default_is_read_and_never_written(
    pg_cluster: Cluster, pg_url: str, cli: Any, by: str
) -> None:
    """Writes began `READ WRITE`, which overrides `default_transaction_read_only`: a database (or
    a user) its administrator had made read-only by default was written anyway. The setting is
    kept: reads work, and each write is one RC903 that says so, and writes nothing."""
    name = database_name(pg_url)
    url = pg_url
    with PostgresStore(pg_url) as store:
        store.create(header("moor"), counter(0))
        append(store)
    if by == "database":
        pg_cluster.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
    else:
        role = "rc_" + name[3:] + "_reader"
        url = pg_url.replace("postgresql://postgres@", f"postgresql://{role}@", 1)
        if url == pg_url:
            pytest.skip("the role's URL is made from the private cluster's (trusted socket) URL")
        pg_cluster.execute(f"CREATE ROLE {role} LOGIN SUPERUSER")
        pg_cluster.execute(f"ALTER ROLE {role} SET default_transaction_read_only = on")
    try:
        before = snapshot(pg_cluster, pg_url)
        says = ("read-only by default", "default_transaction_read_only", "nothing was written")
        with PostgresStore(url) as store:
            assert store.names() == [("moor", "castle", 2)]
            assert [e.seq for e in store.events("moor")] == [1, 2]
            refused(lambda: append(store), *says)
            refused(lambda: store.create(header("fen"), counter(0)), *says)
            assert [e.seq for e in store.events("moor")] == [1, 2]  # and the store goes on reading
        r = cli("campaign", "--db", url, "new", "case", "chill", "-p", "players=4")
        assert r.code == 1 and r.err.count("error") == 1 and "error RC903: cannot write" in r.err, r.err
        assert "read-only by default" in r.err and r.out == ""
        r = cli("campaign", "--db", url, "list")
        assert (r.code, r.out) == (0, "moor  (castle, 2 events)\n"), r.err
        assert snapshot(pg_cluster, pg_url) == before
        # the connection's own options may turn it off, where writing is what is meant
        sep = "&" if "?" in url else "?"
        with PostgresStore(url + sep + "options=-cdefault_transaction_read_only%3Doff") as store:
            append(store)
            assert [e.seq for e in store.events("moor")] == [1, 2, 3]
    finally:
        if by == "role":
            pg_cluster.execute(f"DROP ROLE {role}")


def test_an_empty_database_read_only_by_default_is_refused_and_not_laid_out(
    pg_cluster: Cluster, pg_url: str
) -> None:
    pg_cluster.execute(f'ALTER DATABASE "{database_name(pg_url)}" SET default_transaction_read_only = on')
    refused(lambda: PostgresStore(pg_url), "read-only by default", "nothing was written")
    assert pg_cluster.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", pg_url) == [(0,)]


def append(store: PostgresStore) -> None:
    with store.transaction("moor") as tx:
        tx.append("action", {}, counter(1))


@pytest.mark.skipif("RULECRAFT_TEST_PG" in os.environ, reason="the private cluster's password is known")
def test_the_right_password_over_tcp(pg_cluster: Cluster, pg_url: str) -> None:
    url = pg_cluster.tcp_url(database_name(pg_url))
    with open_store(url) as store:
        assert isinstance(store, PostgresStore)
        store.create(header("moor"), counter(0))
        assert "***" in store.path and url.split(":")[2].split("@")[0] not in store.path
        with pytest.raises(CampaignError) as error:
            store.header("mor")
        assert "***" in error.value.diagnostics[0].message


def test_a_dropped_connection_is_made_again_and_a_cut_transaction_keeps_nothing(
    pg_cluster: Cluster, pg_url: str
) -> None:
    kill = (
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
        f" WHERE datname = '{database_name(pg_url)}' AND application_name = 'rulecraft'"
    )
    with PostgresStore(pg_url) as store:
        store.create(header("moor"), counter(0))
        assert pg_cluster.execute(kill) == [(True,)]
        assert store.names() == [("moor", "castle", 1)]  # connected again: nothing was open
        with pytest.raises(CampaignError) as error, store.transaction("moor") as tx:
            tx.append("action", {}, counter(1))
            pg_cluster.execute(kill)
            tx.append("action", {}, counter(2))
        (diagnostic,) = error.value.diagnostics
        assert diagnostic.code == "RC903" and "lost the connection" in diagnostic.message
        assert "nothing was written" in diagnostic.message
        assert [e.seq for e in store.events("moor")] == [1]
        with store.transaction("moor") as tx:
            tx.append("action", {}, counter(1))
    with PostgresStore(pg_url) as store:
        assert [e.state for e in store.events("moor")] == [counter(0), counter(1)]


def test_text_postgresql_cannot_hold_is_rc903_and_writes_nothing(pg_url: str) -> None:
    with PostgresStore(pg_url) as store:
        refused(lambda: store.create(header("mo\x00or"), counter(0)), "NUL")
        assert store.names() == []


# -- without psycopg --------------------------------------------------------------------------------

NO_PSYCOPG = """
import sys
sys.modules["psycopg"] = None  # as if the 'postgres' extra were not installed
from engine.cli import main
import engine
from engine.state import open_store
store = open_store(sys.argv[1])
engine.new_campaign("moor", "chill", store=store, params={"players": 3})
store.close()
assert "psycopg" not in sys.modules or sys.modules["psycopg"] is None
print("sqlite ok", flush=True)
sys.exit(main(["campaign", "--db", "postgresql://ann:hidden@localhost/games", "list"]))
"""


def test_the_engine_runs_without_psycopg_and_names_the_extra(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", NO_PSYCOPG, str(tmp_path / "c.db")],
        capture_output=True,
        text=True,
        env=CHILD_ENV,
        cwd=REPO_ROOT,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert done.stdout == "sqlite ok\n"
    assert "error RC903" in done.stderr and "need psycopg 3" in done.stderr
    assert "pip install 'rulecraft[postgres]'" in done.stderr
    assert "Traceback" not in done.stderr and "hidden" not in done.stderr


def test_importing_the_engine_does_not_import_psycopg() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import sys, engine, engine.cli; print('psycopg' in sys.modules)"],
        capture_output=True,
        text=True,
        env=CHILD_ENV,
        cwd=REPO_ROOT,
        timeout=120,
    )
    assert done.stdout == "False\n", done.stderr


# -- the command line ---------------------------------------------------------------------------------


def test_a_chill_case_through_the_command_line_on_postgresql(
    cli: Any, pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def run(*args: str) -> str:
        r = cli("campaign", "--db", pg_url, *args)
        assert r.code == 0, r.out + r.err
        return str(r.out)

    def tokens() -> dict[str, int]:
        shown: dict[str, int] = json.loads(run("show", "case", "--json"))["shared"]["tokens"]
        return shown

    assert f"in {pg_url}" in run("new", "case", "chill", "-p", "players=4")
    assert tokens() == {"light": 3, "dark": 2}
    printed = run("act", "case", "player_roll", "-i", "target=55", "--force", "tens=7", "--force", "ones=7")
    assert "=> botch" in printed
    assert tokens() == {"light": 2, "dark": 3}
    run("begin", "case", "case")
    assert "undo #3 (period)" in run("undo", "case")
    assert "replayed 4 events of 'case'" in run("replay", "case")
    assert run("list") == "case  (chill, 4 events)\n"
    assert [line.split(" ", 2)[0] for line in run("log", "case").splitlines()] == ["#1", "#2", "#3", "#4"]
    run("export", "case", "-o", str(tmp_path / "case.json"))
    exported = json.loads((tmp_path / "case.json").read_text(encoding="utf-8"))
    assert [e["kind"] for e in exported["events"]] == ["new", "action", "period", "undo"]

    r = cli("campaign", "--db", pg_url, "show", "cas")
    assert r.code == 1 and "error RC901: no campaign named 'cas'" in r.err and "did you mean 'case'?" in r.err

    monkeypatch.setenv("RULECRAFT_DB", pg_url)  # the default database may be a URL too
    r = cli("campaign", "list")
    assert (r.code, r.out) == (0, "case  (chill, 4 events)\n"), r.err


# -- a failing action writes nothing ------------------------------------------------------------------

MINI = (
    "rulecraft: 1\nname: mini\ntables:\n  t0: {params: [x], value: x + 1}\n"
    + "".join(f"  t{i}: {{params: [x], value: t{i - 1}(x) + t{i - 1}(x)}}\n" for i in range(1, 41))
    + textwrap.dedent(
        """\
        checks:
          act:
            roll:
              d: {die: 6}
            outcomes: [miss, hit]
            outcome: "'hit' if d > 3 else 'miss'"
        state:
          shared:
            marks: {counter: 0, min: 0, max: 1000000000000}
        actions:
          push:
            requires:
              - {when: "marks < 2", else: two marks are enough}
            roll: {check: act}
            effects:
              - {add: {marks: 1}}
          strain:
            roll: {check: act}
            effects:
              - {add: {marks: "t40(marks) - t40(marks) + 1"}}
        """
    )
)


def test_a_refused_or_over_the_limit_action_writes_nothing(pg_cluster: Cluster, pg_url: str) -> None:
    with PostgresStore(pg_url) as store:
        game = engine.new_campaign("c", engine.load(MINI), store=store)
        game.act("push", seed=1)
        game.act("push", seed=2)
        before = store.events("c")

        with pytest.raises(engine.CampaignError) as error:
            game.act("push", seed=3)  # the precondition refuses
        assert error.value.diagnostics[0].code == "RC905"
        with pytest.raises(engine.LimitError) as over:
            game.act("strain", seed=4)  # the work budget runs out inside the transaction
        assert over.value.diagnostics[0].code == "RC503"

        assert store.events("c") == before
        assert pg_cluster.execute("SELECT count(*) FROM events", pg_url) == [(3,)]
        assert pg_cluster.execute(  # no transaction was left open, no lock held
            f"SELECT count(*) FROM pg_stat_activity WHERE datname = '{database_name(pg_url)}'"
            " AND state LIKE 'idle in transaction%'"
        ) == [(0,)]
        assert game.replay() == game.state()
        game.join("ann")  # and the campaign carries on
        assert [e.seq for e in store.events("c")] == [1, 2, 3, 4]


# -- several processes, one campaign ------------------------------------------------------------------

RACE = """\
rulecraft: 1
name: race
checks:
  step:
    roll:
      d: {die: 6}
    outcomes: [low, high]
    outcome: "'high' if d > 3 else 'low'"
state:
  shared:
    total: {counter: 0, min: 0, max: 1000000}
    highs: {counter: 0, min: 0, max: 1000000}
  each:
    mine: {counter: 0, min: 0, max: 1000000}
actions:
  step:
    by: character
    roll: {check: step}
    effects:
      - {add: {total: 1}}
      - {add: {highs: 1}, when: "outcome == 'high'"}
      - {add: {mine: 1}}
"""

ACTOR = """
import os, sys, time
import engine
from engine.state import open_store
target, ruleset, who, go, n = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
store = open_store(target)
game = engine.open_campaign("race", store=store, ruleset=engine.load(open(ruleset).read()))
print("ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.002)
started = time.monotonic()
for i in range(n):
    game.act("step", who, seed=i)
print(time.monotonic() - started, flush=True)
store.close()
"""


def _race(pg_url: str, tmp_path: Path, processes: int, each: int, bound: float) -> list[float]:
    """`processes` OS processes each act `each` times on one campaign, all at once; each must be
    done within `bound` seconds of the start. Returns how long each took."""
    ruleset = tmp_path / "race.yaml"
    ruleset.write_text(RACE, encoding="utf-8")
    players = [f"p{k}" for k in range(processes)]
    with PostgresStore(pg_url) as store:
        engine.new_campaign("race", engine.load(ruleset), store=store, characters={p: {} for p in players})
    go = tmp_path / "go"
    children = [
        subprocess.Popen(
            [sys.executable, "-c", ACTOR, pg_url, str(ruleset), who, str(go), str(each)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=CHILD_ENV,
            cwd=REPO_ROOT,
        )
        for who in players
    ]
    took: list[float] = []
    try:
        for child in children:
            assert child.stdout is not None
            assert child.stdout.readline() == "ready\n", child.communicate()[1]
        go.touch()
        deadline = time.monotonic() + bound
        for child in children:
            out, err = child.communicate(timeout=max(1.0, deadline - time.monotonic()) + 5)
            assert child.returncode == 0, err
            took.append(float(out))
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.communicate()
    assert max(took) < bound, took

    with PostgresStore(pg_url) as store:
        game = engine.open_campaign("race", store=store, ruleset=engine.load(ruleset))
        log = game.log()
        total = processes * each
        assert [e.seq for e in log] == list(range(1, total + 2))  # every event once, seqs contiguous
        actions = [e for e in log if e.kind == "action"]
        assert len(actions) == total
        for who in players:  # each process's actions, in the order it made them
            assert [e.data["seed"] for e in actions if e.data["character"] == who] == list(range(each))
        state = game.show()
        assert state["shared"]["total"] == total
        assert state["shared"]["highs"] == sum(e.data["roll"]["outcome"] == "high" for e in actions)
        assert {who: c["items"]["mine"] for who, c in state["characters"].items()} == dict.fromkeys(
            players, each
        )
        # no interleaving: every stored state is the one before it changed by its own action
        assert [e.state["shared"]["total"] for e in log] == list(range(total + 1))
        assert game.replay() == game.state()
    return took


def test_four_processes_acting_on_one_campaign_lose_nothing(pg_url: str, tmp_path: Path) -> None:
    _race(pg_url, tmp_path, processes=4, each=50, bound=60)


def test_a_thousand_actions_from_five_processes_within_a_minute(pg_url: str, tmp_path: Path) -> None:
    took = _race(pg_url, tmp_path, processes=5, each=200, bound=60)
    print(f"1000 actions by 5 processes: slowest process {max(took):.1f} s")


def test_command_line_processes_acting_at_once(pg_url: str, tmp_path: Path) -> None:
    """Three `rulecraft campaign act` processes at a time, three rounds, on one campaign."""
    ruleset = tmp_path / "race.yaml"
    ruleset.write_text(RACE, encoding="utf-8")
    env = {**CHILD_ENV, "RULECRAFT_DB": pg_url}

    def rulecraft(*args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "engine", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=REPO_ROOT,
        )

    made = rulecraft("campaign", "new", "race", str(ruleset), "-c", "a", "-c", "b", "-c", "c")
    assert made.wait(timeout=120) == 0, made.communicate()
    made.communicate()
    for round_ in range(3):
        batch = [
            rulecraft("campaign", "act", "race", "step", "-c", who, "--seed", str(round_)) for who in "abc"
        ]
        for child in batch:
            out, err = child.communicate(timeout=120)
            assert child.returncode == 0, err
            assert "error" not in err
    done = subprocess.run(
        [sys.executable, "-m", "engine", *shlex.split("campaign replay race --json")],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO_ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    replayed = json.loads(done.stdout)
    assert replayed["events"] == 10 and replayed["state"]["shared"]["total"] == 9
    with contextlib.closing(open_store(pg_url)) as store:
        assert [e.seq for e in store.events("race")] == list(range(1, 11))


def test_a_servers_answers_name_campaigns_called_like_the_stores_user_or_database(pg_url: str) -> None:
    """The server hides the store's host, user and database from the driver's words (RC903); it
    hid them in every campaign error, so a campaign named `postgres` (the usual user) was offered
    as "did you mean the store's user?" (review AS)."""
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from engine.serve.app import Settings, create_app

    user = pg_url.split("://", 1)[1].split("@", 1)[0].split(":", 1)[0]
    database = database_name(pg_url)
    with TestClient(create_app(Settings(db=pg_url))) as client:
        for name in (user, database):
            made = client.post("/api/campaigns", json={"name": name, "ruleset": "castle"})
            assert made.status_code == 201, made.text
        answer = client.get(f"/api/campaigns/{user}s")
    assert answer.status_code == 404
    (d,) = answer.json()["error"]["diagnostics"]
    assert d["hint"] == f"did you mean '{user}'?", d
    assert "the store's" not in json.dumps(answer.json())


def test_a_campaign_named_like_the_stores_host_or_user_keeps_its_name_in_a_store_error() -> None:
    """Review AT: the store's address was masked anywhere in an RC903's words, so a damaged
    campaign named `db` (the store's host) was told as "in campaign the store's host"."""
    pytest.importorskip("fastapi")
    from engine.errors import Diagnostic
    from engine.serve.routes_campaigns import _unaddressed

    url = "postgresql://postgres@db/rc"
    for name in ("db", "postgres", "rc"):
        said = f"damaged: in campaign '{name}', event 3 (could not translate host name \"db\" to address)"
        shown = _unaddressed(Diagnostic("RC903", said, None, None), url).message
        assert f"in campaign '{name}', event 3" in shown, shown
        assert '"db"' not in shown, shown


def test_a_server_with_no_connection_free_is_told_as_for_now(pg_cluster: Cluster, pg_url: str) -> None:
    """Hunt 13o: several `serve` processes on one database ran it out of connections, and 417 of
    1,000 requests answered 503 "cannot connect ...: connection failed: connection to ... failed:
    FATAL: sorry, too many clients already", with no `Retry-After`, as if the store could not be
    used. A server (or a role, or a database) with no connection free is now told as such, for
    now: RC903 with the advice `full`, which the API answers with `Retry-After`. (A role's own
    connection limit stands in for the server's, which a test cannot lower on a shared cluster.)"""
    import psycopg

    from engine.serve.advice import api_hint
    from engine.serve.problems import api_error

    role = "rc_" + database_name(pg_url)[3:] + "_one"
    one = pg_url.replace("postgresql://postgres@", f"postgresql://{role}@", 1)
    if one == pg_url:
        pytest.skip("the role's URL is made from the private cluster's (trusted socket) URL")
    with PostgresStore(pg_url) as store:
        store.create(header("moor"), counter(0))
    pg_cluster.execute(f"CREATE ROLE {role} LOGIN CONNECTION LIMIT 1")
    try:
        pg_cluster.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}", pg_url)
        with psycopg.connect(one):  # the role's one connection, held
            with pytest.raises(CampaignError) as error:
                PostgresStore(one).names()
        (d,) = error.value.diagnostics
        assert d.code == "RC903" and d.advice is not None and d.advice.kind == "full", d.render()
        assert "it has no connection free (too many connections for role" in d.message, d.message
        # the role's own limit stopped it, not the server's (hunt 13zi: told to raise max_connections)
        assert d.hint == (
            "try again in a moment; its keeper may raise the role's CONNECTION LIMIT (ALTER ROLE), or run"
            " fewer processes on it"
        ), d.hint
        assert "connection failed" not in d.message, d.message
        answer = api_error(error.value)
        assert answer.status == 503 and answer.headers == {"Retry-After": "1"}
        assert "send the request again in a moment (Retry-After)" in (api_hint(d) or "")
        # the connection given back: the store as it was (once the server has seen it go: its
        # backend leaves a moment after the client closes, and a connection at once met it, CI
        # on 2026-12-07)
        for _ in range(50):
            try:
                with PostgresStore(one) as store:
                    assert store.names() == [("moor", "castle", 1)]
                break
            except CampaignError:
                time.sleep(0.1)
        else:
            pytest.fail("the role's one connection was not given back within 5 s")
    finally:
        pg_cluster.execute(f"DROP OWNED BY {role}", pg_url)
        pg_cluster.execute(f"DROP ROLE {role}")


def test_a_write_waits_for_a_lock_what_its_request_has_left(pg_url: str) -> None:
    """As SQLite's: the lock wait is asked when the transaction begins, at most what the running
    request has left (`wait_within`), where it was the store's whole timeout (hunt 13zr)."""
    import psycopg

    from engine.runtime.work import request_deadline

    with PostgresStore(pg_url) as store:
        store.create(header("tor"), counter(0))
    holder = psycopg.connect(pg_url, autocommit=True)
    holder.execute("BEGIN")
    holder.execute("LOCK TABLE events IN ACCESS EXCLUSIVE MODE")
    try:
        with PostgresStore(pg_url, timeout=10) as store:
            with request_deadline(5.0, time.monotonic() + 0.65):  # 0.6 s left, down to a tenth
                started = time.monotonic()
                with pytest.raises(CampaignError) as caught:
                    with store.transaction("tor") as tx:
                        tx.append("note", {}, tx.last().state)
                took = time.monotonic() - started
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    message = caught.value.diagnostics[0].message
    waited = re.search(r"for more than ([0-9.]+) s", message)  # what was left, down to a tenth
    assert "is locked" in message and waited is not None and 0.1 <= float(waited.group(1)) <= 0.6, message
    assert took < 4.0, took
