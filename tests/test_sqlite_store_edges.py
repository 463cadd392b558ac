"""Edges of the SQLite store found by hunt 13ze: a read-only copy of a campaign database whose
journal is not write-ahead (a backup made by `VACUUM INTO`) could not be read at all ("cannot
write backup.db" for a `list`); `--db newdir/` made a file named `newdir`; a wait of NaN waited
without bound and one below 0 was told as "held it for more than -1 s"."""

from __future__ import annotations

import math
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.api import open_store
from engine.state import stores
from engine.state.sqlite import SqliteStore

REPO = Path(__file__).resolve().parent.parent


def _without_root_overrides(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`argv` run as a process whose file modes apply to it: as it is when not root; as root with
    the capabilities that pass over them dropped (`setpriv`, util-linux's)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if os.geteuid() != 0:
        return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: a file's mode does not bind this process")
    drop = ["--bounding-set=-dac_override,-dac_read_search,-fowner", "--"]
    return subprocess.run(
        [setpriv, *drop, *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def test_a_read_only_backup_in_another_journal_mode_is_read(tmp_path: Path) -> None:
    live, backup = tmp_path / "live.db", tmp_path / "backup.db"
    with open_store(live) as store:
        engine.new_campaign("c", "chill", store=store, params={"players": 4}).act("turn_dark", n=1)
    with sqlite3.connect(live) as db:
        db.execute(f"VACUUM INTO '{backup}'")
    with sqlite3.connect(backup) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal"  # what the bug needs
    backup.chmod(0o444)
    tmp_path.chmod(0o555)  # nor can a journal be made beside it
    try:
        cli = [sys.executable, "-m", "engine", "campaign", "--db", "backup.db"]
        probe = _without_root_overrides([sys.executable, "-c", "open('backup.db', 'a')"], tmp_path)
        assert probe.returncode != 0, "the file could be written: the test would show nothing"
        listed = _without_root_overrides([*cli, "list"], tmp_path)
        assert listed.returncode == 0 and listed.stdout.startswith("c  (chill, 2 events)"), listed.stderr
        shown = _without_root_overrides([*cli, "show", "c"], tmp_path)
        assert shown.returncode == 0 and "tokens: 2 light, 3 dark" in shown.stdout, shown.stderr
        logged = _without_root_overrides([*cli, "log", "c"], tmp_path)
        assert logged.returncode == 0 and "turn_dark" in logged.stdout, logged.stderr
        acted = _without_root_overrides([*cli, "act", "c", "turn_dark", "-i", "n=1"], tmp_path)
        assert acted.returncode == 1 and "RC903" in acted.stderr and "Traceback" not in acted.stderr
        assert "cannot write backup.db: the file may not be written" in acted.stderr  # not its folder
        assert "its campaigns can be read; to change one, work on a copy that may be written" in acted.stderr
    finally:
        tmp_path.chmod(0o755)
    with sqlite3.connect(f"file:{backup}?mode=ro", uri=True) as db:  # the write left nothing
        assert db.execute("SELECT count(*) FROM events").fetchone()[0] == 2


@pytest.mark.parametrize("slash", sorted({"/", os.sep}))
def test_a_path_ending_in_a_slash_is_a_folder_not_a_file(
    tmp_path: Path, cli: Callable[..., Any], slash: str
) -> None:
    named = str(tmp_path / "newdir") + slash
    made = cli("campaign", "--db", named, "new", "c", "chill", "-p", "players=3")
    assert made.code == 1 and "names a folder, not a rulecraft campaign database file" in made.err
    assert "hint: give a file's path, ending in its name (as campaigns.db)" in made.err
    assert not (tmp_path / "newdir").exists()
    with pytest.raises(engine.CampaignError, match="names a folder"):
        SqliteStore(named)
    (tmp_path / "newdir").mkdir()  # a folder that is there is told as before
    with pytest.raises(engine.CampaignError, match="is a folder"):
        SqliteStore(named)


@pytest.mark.parametrize(
    "wait", [math.nan, -1, -0.5, math.inf, 10**400], ids=["nan", "-1", "-0.5", "inf", "huge"]
)
@pytest.mark.parametrize("opener", [open_store, stores.open_store])
def test_a_wait_is_a_finite_number_of_seconds(tmp_path: Path, opener: Any, wait: Any) -> None:
    with pytest.raises(engine.InputError) as refused:
        opener(str(tmp_path / "c.db"), wait=wait)
    [d] = refused.value.diagnostics
    assert d.code == "RC410" and "'wait'" in d.message
    assert d.hint == "leave it None for the store's own wait of 10 s"
    assert not (tmp_path / "c.db").exists()


def test_a_store_is_made_of_a_path_and_a_finite_timeout(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="argument 'path' must be a str or a pathlib.Path"):
        SqliteStore(5)  # type: ignore[arg-type]
    with pytest.raises(engine.InputError, match="'timeout' must be a finite number of seconds"):
        SqliteStore(tmp_path / "c.db", timeout=math.nan)
    with SqliteStore(tmp_path / "c.db", timeout=0) as store:  # 0: give up at once, as before
        assert store.timeout == 0.0


def test_a_stored_text_that_is_not_utf8_is_told_as_damage(tmp_path: Path, cli: Callable[..., Any]) -> None:
    """A row whose bytes were flipped by hand had been "reading events failed: Could not decode
    to UTF-8 column 'data' with text '...'", the text echoed, no word of damage, no hint."""
    db = str(tmp_path / "c.db")
    assert cli("campaign", "--db", db, "new", "c", "chill", "-p", "players=3").code == 0
    assert cli("campaign", "--db", db, "act", "c", "turn_dark", "-i", "n=1").code == 0
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE events SET data = CAST(X'7b22ff' || 'x' AS TEXT) WHERE seq = 2")
    for command in (["log", "c"], ["replay", "c"], ["export", "c"]):
        told = cli("campaign", "--db", db, *command)
        assert told.code == 1, command
        assert told.err == (
            f"error RC903: {db} is damaged: a text it holds in its column 'data' is not UTF-8, while"
            " reading events\n  hint: the file was changed outside rulecraft; restore it from a copy\n"
        )


@pytest.mark.parametrize("tail", ["/.", "/..", "//"])
def test_a_path_ending_in_a_dot_names_a_folder_too(
    tmp_path: Path, cli: Callable[..., Any], tail: str
) -> None:
    """Hunt 13zf: `--db nd2/.` made a file named `nd2`, `Path` dropping the `/.`."""
    named = str(tmp_path / "nd2") + tail
    made = cli("campaign", "--db", named, "new", "c", "chill", "-p", "players=3")
    assert made.code == 1 and "names a folder" in made.err and not (tmp_path / "nd2").exists()
    with pytest.raises(engine.CampaignError, match="names a folder"):
        stores.check_address(named)  # what `serve --db` asks at start


def test_a_file_named_with_a_slash_after_it_is_told_so(tmp_path: Path, cli: Callable[..., Any]) -> None:
    (tmp_path / "afile.db").write_text("")
    made = cli("campaign", "--db", str(tmp_path / "afile.db") + "/", "new", "c", "chill", "-p", "players=3")
    assert made.code == 1 and f"names a folder, but {tmp_path / 'afile.db'} is a file" in made.err
    assert "hint: give the file's path without what follows its name" in made.err


@pytest.mark.parametrize("tail", ["/", "/."])
def test_export_to_a_path_naming_a_folder_writes_nothing(
    tmp_path: Path, cli: Callable[..., Any], tail: str
) -> None:
    db = str(tmp_path / "c.db")
    assert cli("campaign", "--db", db, "new", "c", "chill", "-p", "players=3").code == 0
    named = str(tmp_path / "newout") + tail
    told = cli("campaign", "--db", db, "export", "c", "-o", named)
    assert told.code == 1 and f"error RC603: {named} names a folder, not a file to write" in told.err
    assert not (tmp_path / "newout").exists()


def test_a_server_names_no_path_in_the_hint_for_a_folder(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from engine.serve.app import Settings, create_app

    hidden = str(tmp_path / "secretplace" / "newdir") + "/"
    (tmp_path / "secretplace").mkdir()
    with TestClient(create_app(Settings(db=hidden, workers=1)), raise_server_exceptions=False) as c:
        answer = c.get("/api/campaigns")
    assert answer.status_code == 503
    assert "secretplace" not in answer.text and "campaign storecampaigns" not in answer.text


def test_a_meta_text_that_is_not_utf8_is_damage_not_another_programs_file(
    tmp_path: Path, cli: Callable[..., Any]
) -> None:
    """Hunt 13zf: a flipped byte in the schema's version was told as "an SQLite database but not
    rulecraft's (no format mark)"."""
    db = str(tmp_path / "c.db")
    assert cli("campaign", "--db", db, "new", "c", "chill", "-p", "players=3").code == 0
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE meta SET value = CAST(X'31ff' AS TEXT) WHERE key = 'version'")
    told = cli("campaign", "--db", db, "list")
    assert told.code == 1 and "is damaged: a text it holds in its column 'value' is not UTF-8" in told.err
    assert "not rulecraft's" not in told.err


def test_the_damage_is_the_stores_keepers_to_mend(tmp_path: Path) -> None:
    """A server's client is not told to restore the file (hunt 13zf): the advice is the keeper's."""
    db = str(tmp_path / "c.db")
    with open_store(db) as store:
        engine.new_campaign("c", "chill", store=store, params={"players": 3})
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE events SET data = CAST(X'7b22ff' AS TEXT) WHERE seq = 1")
    with open_store(db) as store, pytest.raises(engine.CampaignError) as refused:
        store.events("c")
    [d] = refused.value.diagnostics
    assert d.advice is not None and d.advice.kind == "keeper" and d.advice.of == "store"


def test_a_postgres_timeout_is_a_finite_number_of_seconds() -> None:
    """Hunt 13zf: `PostgresStore(url, timeout=nan)` was taken, to fail at the first transaction with
    a `ValueError`; and a wait of -0.0 was told as "more than -0 s"."""
    from engine.runtime import arguments
    from engine.state.postgres import PostgresStore

    for wait in (math.nan, -1):
        with pytest.raises(engine.InputError, match="'timeout' must be a finite number of seconds"):
            PostgresStore("postgresql://u@localhost/db", timeout=wait, connect=False)
    assert str(arguments.seconds("f", "wait", -0.0)) == "0.0"
