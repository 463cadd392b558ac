"""Where campaigns are kept: a target SQLite would read as its database in memory or as a URI is
a file's name, or refused (hunt 13l).

- `./:memory:`, the CLI's own hint for "a file of that name", was `Path(":memory:")` again: the
  campaign was made in memory and gone ("made campaign 'm1'", then "no campaigns yet").
- `file::memory:` and `file:x.db?nolock=1` were read as SQLite URIs (this library reads file
  names as URIs): one lost every campaign, the other let four writers corrupt the file.
- `serve --db :memory:` started, answered every write 201 and kept nothing.
- A ruleset file whose name is no UTF-8 ended `campaign new` in a UnicodeEncodeError traceback.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_log_pages import COUNT

import engine
from engine import api
from engine.errors import InputError

COUNTER = COUNT
"""A shared counter and the action `tick` that adds 1 to it (test_log_pages' ruleset)."""


@pytest.mark.parametrize("target", ["./:memory:", "file::memory:", "file:x.db?nolock=1", "file:x.db"])
def test_a_target_sqlite_would_read_otherwise_is_a_file_of_that_name(
    cli: Callable[..., Any], tmp_path: Path, target: str
) -> None:
    (tmp_path / "counter.yaml").write_text(COUNTER)
    made = cli("campaign", "--db", target, "new", "kept", "counter.yaml", cwd=tmp_path)
    assert made.code == 0, made.err
    assert cli("campaign", "--db", target, "act", "kept", "tick", cwd=tmp_path).code == 0
    listed = cli("campaign", "--db", target, "list", cwd=tmp_path)
    assert "kept  (counter.yaml, 2 events)" in listed.out, listed.out
    file = tmp_path / os.path.normpath(target)
    assert file.is_file(), sorted(p.name for p in tmp_path.iterdir())
    db = sqlite3.connect(str(file.absolute()))  # absolute: no URI; a real database, with the campaign
    try:
        assert db.execute("SELECT COUNT(*) FROM events").fetchone() == (2,)
    finally:
        db.close()
    assert not (tmp_path / "x.db").exists()


@pytest.mark.parametrize("target", [":memory:", " :memory: ", ""])
def test_sqlite_in_memory_or_no_name_is_refused_by_every_way_in(
    cli: Callable[..., Any], tmp_path: Path, target: str
) -> None:
    with pytest.raises(InputError) as caught:
        api.open_store(target)
    assert caught.value.diagnostics[0].code == "RC407"
    served = cli("serve", "--db", target, "--port", "0", cwd=tmp_path)
    assert served.code == 1 and "RC407" in served.err and "--db" in served.err, served.err
    assert served.out == ""  # refused before it served


def test_a_store_given_a_path_of_memory_is_refused_not_made_in_memory() -> None:
    from engine.state.sqlite import SqliteStore

    with pytest.raises(InputError):
        SqliteStore(Path(":memory:"))


def test_a_ruleset_file_whose_name_is_no_utf8_is_kept_as_text(tmp_path: Path) -> None:
    folder = os.fsdecode(bytes(tmp_path) + b"/r\xff.yaml")
    Path(folder).write_text(COUNTER)
    with api.open_store(tmp_path / "c.db") as store:
        campaign = engine.new_campaign("odd", engine.load(Path(folder)), store=store)
        campaign.act("tick")
        assert campaign.header.ruleset.startswith("<") and "r\\xff.yaml" in campaign.header.ruleset
    with api.open_store(tmp_path / "c.db") as store:
        again = api.open_campaign("odd", store=store)
        assert again.show()["shared"]["n"] == 1


def test_a_campaign_file_in_a_read_only_folder_says_so(cli: Callable[..., Any], tmp_path: Path) -> None:
    """Hunt 13l: a copy of a campaign file on a read-only file system could not even be listed,
    and the message said "cannot write r.db" with no word of the folder. SQLite writes a WAL
    database's `-shm` beside it to read it; the message now names the folder and what to do. A
    read-only file system is a real one (tmpfs mounted read-only), or the test skips."""
    import shutil
    import subprocess

    (tmp_path / "counter.yaml").write_text(COUNTER)
    assert cli("campaign", "--db", str(tmp_path / "r.db"), "new", "x", "counter.yaml", cwd=tmp_path).code == 0
    mount = tmp_path / "ro"
    mount.mkdir()
    if (
        shutil.which("mount") is None
        or subprocess.run(["mount", "-t", "tmpfs", "tmpfs", str(mount)], capture_output=True).returncode
    ):
        pytest.skip("no read-only file system to be had here (mounting a tmpfs needs root)")
    try:
        shutil.copy(tmp_path / "r.db", mount / "r.db")
        assert subprocess.run(["mount", "-o", "remount,ro", str(mount)], capture_output=True).returncode == 0
        r = cli("campaign", "--db", str(mount / "r.db"), "list", cwd=tmp_path)
        assert r.code == 1 and "its folder" in r.err and "cannot be written" in r.err, r.err
        assert "copy the file to a folder that can be written" in r.err
    finally:
        subprocess.run(["umount", str(mount)], capture_output=True)


def test_a_name_longer_than_any_kept_is_not_echoed_whole(cli: Callable[..., Any], tmp_path: Path) -> None:
    """Hunt 13l: `show` of a 5,000-character name echoed it whole in RC901."""
    (tmp_path / "counter.yaml").write_text(COUNTER)
    db = str(tmp_path / "c.db")
    assert cli("campaign", "--db", db, "new", "kept", "counter.yaml", cwd=tmp_path).code == 0
    r = cli("campaign", "--db", db, "show", "x" * 5000, cwd=tmp_path)
    assert r.code == 1 and "RC901" in r.err and "(5,000 characters)" in r.err and len(r.err) < 600, r.err
    near = "y" * 100  # as long as a kept name may be: shown whole
    r = cli("campaign", "--db", db, "show", near, cwd=tmp_path)
    assert f"no campaign named '{near}'" in r.err


def test_the_line_that_pages_on_names_the_store(cli: Callable[..., Any], tmp_path: Path) -> None:
    """Hunt 13l: `list --first N`'s "more may follow" line left out `--db`, so pasted it read the
    default store."""
    (tmp_path / "counter.yaml").write_text(COUNTER)
    db = "my games.db"
    for name in ("a", "b"):
        assert cli("campaign", "--db", db, "new", name, "counter.yaml", cwd=tmp_path).code == 0
    r = cli("campaign", "--db", db, "list", "--first", "1", cwd=tmp_path)
    assert r.out.endswith("more may follow: rulecraft campaign --db 'my games.db' list --after=a --first 1\n")


def test_an_empty_log_window_is_said(cli: Callable[..., Any], tmp_path: Path) -> None:
    """Hunt 13l: `log --before 1` printed nothing at all, where `list` says it has none."""
    (tmp_path / "counter.yaml").write_text(COUNTER)
    db = str(tmp_path / "c.db")
    assert cli("campaign", "--db", db, "new", "k", "counter.yaml", cwd=tmp_path).code == 0
    r = cli("campaign", "--db", db, "log", "k", "--before", "1", cwd=tmp_path)
    assert (r.code, r.out) == (0, "no events of 'k' before #1\n"), r
    r = cli("campaign", "--db", db, "log", "k", "--after", "3", "--json", cwd=tmp_path)
    assert (r.code, r.out.strip()) == (0, "[]"), r


@pytest.mark.parametrize(
    ("target", "said"),
    [
        ("postgresql://u:sekret@localhost/db?bogusparam=1", 'invalid URI query parameter: "bogusparam"'),
        ("mysql://host/db", "cannot keep campaigns at mysql://...: a campaign store is a SQLite file or a"),
    ],
)
def test_a_store_address_no_request_could_open_is_refused_at_start(
    cli: Callable[..., Any], tmp_path: Path, target: str, said: str
) -> None:
    """Hunt 13o: `serve --db 'postgresql://...?bogusparam=1'` started, and every request was then
    503. The address is read at start, as libpq will read it (nothing is connected to), and
    refused with the request's own RC903, its password masked."""
    served = cli("serve", "--db", target, "--port", "0", cwd=tmp_path)
    assert served.code == 1 and "error RC903: " in served.err and said in served.err, served.err
    assert "sekret" not in served.err and served.out == ""  # refused before it served
    assert list(tmp_path.iterdir()) == []
