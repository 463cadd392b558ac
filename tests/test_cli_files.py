"""Files the command line writes (`rulecraft new`, `campaign export -o`): whole or not at all,
never over a file that is there, and every refusal an RC diagnostic (exit 1), as README says of
every problem but a command line the parser cannot read (hunt 11)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _repo import REPO_ROOT

import engine
from engine.api import open_store

resource = pytest.importorskip("resource")
LIMIT = 40_000


def _campaign(cli: Any, tmp_path: Path) -> str:
    db = str(tmp_path / "c.db")
    assert cli("campaign", "--db", db, "new", "c", "chill", "-p", "players=4").code == 0
    for action in ("turn_dark", "turn_light", "turn_dark"):
        assert cli("campaign", "--db", db, "act", "c", action).code == 0
    return db


def _limited(size: int) -> None:
    """In the child: files of at most `size` bytes, a write past it an error (EFBIG), not a signal."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


def test_an_export_cut_short_leaves_no_file_and_a_retry_writes_it_whole(cli: Any, tmp_path: Path) -> None:
    """A write that failed halfway (here a size limit, as `ulimit -f`) left the part written
    under the name, and every retry was refused: 'already exists; not overwriting it'."""
    db = str(tmp_path / "c.db")
    store = open_store(db)
    campaign = engine.new_campaign("c", "chill", store=store, params={"players": 4})
    for _ in range(40):  # a log larger than the limit below, which SQLite's own files stay within
        campaign.act("turn_dark")
        campaign.act("turn_light")
    store.close()
    whole = cli("campaign", "--db", db, "export", "c").out
    assert len(whole) > LIMIT
    command = [sys.executable, "-m", "engine", "campaign", "--db", db, "export", "c", "-o", "part.json"]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    cut = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, preexec_fn=lambda: _limited(LIMIT)
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.db"], "no part and no temporary left"
    assert cut.returncode == 1 and "error RC603: cannot write part.json: File too large" in cut.stderr, cut
    again = cli("campaign", "--db", db, "export", "c", "-o", "part.json", cwd=tmp_path)
    assert again.code == 0, again.err
    assert (tmp_path / "part.json").read_text(encoding="utf-8") == whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.db", "part.json"]


def test_an_export_never_overwrites_and_says_so_with_a_code(cli: Any, tmp_path: Path) -> None:
    db = _campaign(cli, tmp_path)
    (tmp_path / "mine.json").write_text("my own\n", encoding="utf-8")
    r = cli("campaign", "--db", db, "export", "c", "-o", "mine.json", cwd=tmp_path)
    assert r.code == 1 and r.err.startswith("error RC603: mine.json already exists; not overwriting it")
    assert (tmp_path / "mine.json").read_text(encoding="utf-8") == "my own\n"
    r = cli("campaign", "--db", db, "export", "c", "-o", "no/such.json", cwd=tmp_path)
    assert r.code == 1 and "error RC603: cannot write no/such.json: folder no does not exist" in r.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.db", "mine.json"]


def test_an_export_to_dash_is_standard_output(cli: Any, tmp_path: Path) -> None:
    """`-o -` wrote a file named '-'; it is standard output, as with most commands."""
    db = _campaign(cli, tmp_path)
    r = cli("campaign", "--db", db, "export", "c", "-o", "-", cwd=tmp_path)
    assert r.code == 0 and r.out == cli("campaign", "--db", db, "export", "c").out
    assert [e["kind"] for e in json.loads(r.out)["events"]] == ["new", "action", "action", "action"]
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["new", "My Game"], "error RC407: 'My Game' is not a ruleset name"),
        (["new", "9lives"], "error RC407: '9lives' is not a ruleset name"),
        (["new", "sub/dir/x"], "error RC603: cannot write sub/dir/x.yaml: folder sub/dir does not exist"),
    ],
)
def test_new_refusals_are_coded_and_exit_1(cli: Any, tmp_path: Path, argv: list[str], said: str) -> None:
    """A bad name was exit 2 (a command line the parser cannot read, README says) and no code;
    a missing folder had no code."""
    r = cli(*argv, cwd=tmp_path)
    assert (r.code, r.out) == (1, "") and r.err.startswith(said), r
    assert list(tmp_path.iterdir()) == []


def test_new_in_what_is_no_folder_says_so(cli: Any, tmp_path: Path) -> None:
    """Hunt 13m: `new afile.yaml/x`, where afile.yaml is a file, said "folder afile.yaml does not
    exist"; `new proj/` of a folder proj wrote proj.yaml beside it."""
    (tmp_path / "afile.yaml").write_text("x")
    (tmp_path / "proj").mkdir()
    r = cli("new", "afile.yaml/x", cwd=tmp_path)
    assert r.code == 1 and r.err.startswith(
        "error RC603: cannot write afile.yaml/x.yaml: afile.yaml is not a folder"
    )
    r = cli("new", "proj/", cwd=tmp_path)
    assert r.code == 1 and r.err.startswith(
        "error RC407: 'proj/' is a folder: give the ruleset's name after it"
    )
    assert "for example proj/my-game" in r.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile.yaml", "proj"]
    assert list((tmp_path / "proj").iterdir()) == []
    r = cli("new", "proj/my-game", cwd=tmp_path)
    assert r.code == 0 and (tmp_path / "proj" / "my-game.yaml").is_file()


@pytest.mark.parametrize(
    ("given", "said", "example"),
    [
        ("newdir/", "'newdir/' names a folder", "newdir/my-game"),
        ("newdir/.", "'newdir/.' names a folder", "newdir/my-game"),
        ("a/b/", "'a/b/' names a folder", "a/b/my-game"),
        ("proj/..", "'proj/..' is a folder", "proj/../my-game"),
    ],
)
def test_new_of_a_folder_that_is_not_there_writes_nothing(
    cli: Any, tmp_path: Path, given: str, said: str, example: str
) -> None:
    """Hunt 13zf: `new newdir/` of no folder `newdir` wrote `newdir.yaml`, where a path ending in a
    slash names a folder (as `--db newdir/` and `export -o out/` now read it)."""
    (tmp_path / "proj").mkdir()
    r = cli("new", given, cwd=tmp_path)
    assert (r.code, r.out) == (1, ""), r
    assert r.err.startswith(f"error RC407: {said}: give the ruleset's name after it"), r.err
    assert f"for example {example}" in r.err
    assert [p.name for p in tmp_path.iterdir()] == ["proj"] and not any((tmp_path / "proj").iterdir())


def test_new_twice_is_coded_and_leaves_the_first(cli: Any, tmp_path: Path) -> None:
    assert cli("new", "mygame", cwd=tmp_path).code == 0
    first = (tmp_path / "mygame.yaml").read_text(encoding="utf-8")
    r = cli("new", "mygame", cwd=tmp_path)
    assert r.code == 1 and r.err.startswith("error RC603: mygame.yaml already exists; not overwriting it")
    assert (tmp_path / "mygame.yaml").read_text(encoding="utf-8") == first
    assert [p.name for p in tmp_path.iterdir()] == ["mygame.yaml"]


def test_a_file_made_while_the_export_was_written_is_kept(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The name is taken only when the file is whole, and not over a file another process made
    meanwhile: the other's stays, and nothing of this one is left."""
    db = _campaign(cli, tmp_path)
    synced = os.fsync

    def another_writer(fd: int) -> None:
        synced(fd)
        (tmp_path / "out.json").write_text("theirs\n", encoding="utf-8")

    monkeypatch.setattr(os, "fsync", another_writer)
    r = cli("campaign", "--db", db, "export", "c", "-o", "out.json", cwd=tmp_path)
    assert r.code == 1 and r.err.startswith("error RC603: out.json already exists; not overwriting it")
    assert (tmp_path / "out.json").read_text(encoding="utf-8") == "theirs\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.db", "out.json"]


def test_without_hard_links_the_file_is_still_written_whole(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file system that links no files (FAT, some shares): the name is claimed, then the whole
    file renamed over the claim; a rename that fails leaves neither the claim nor the temporary."""
    db = _campaign(cli, tmp_path)
    whole = cli("campaign", "--db", db, "export", "c").out

    def no_links(source: object, target: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    assert cli("campaign", "--db", db, "export", "c", "-o", "a.json", cwd=tmp_path).code == 0
    assert (tmp_path / "a.json").read_text(encoding="utf-8") == whole

    def no_rename(source: object, target: object) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "replace", no_rename)
    r = cli("campaign", "--db", db, "export", "c", "-o", "b.json", cwd=tmp_path)
    assert r.code == 1 and "error RC603: cannot write b.json: Input/output error" in r.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "c.db"]


def test_a_name_at_the_file_system_s_length_is_written(cli: Any, tmp_path: Path) -> None:
    """Review AU: the temporary was named after the file (its first 100 characters), so a name of
    250 bytes in 64 characters made a temporary past 255 bytes: RC603 'File name too long' for a
    file the file system takes."""
    db = _campaign(cli, tmp_path)
    name = "\N{GRINNING FACE}" * 62 + ".j"
    assert len(name.encode()) == 250
    r = cli("campaign", "--db", db, "export", "c", "-o", name, cwd=tmp_path)
    assert r.code == 0, r.err
    assert json.loads((tmp_path / name).read_text(encoding="utf-8"))["events"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["c.db", name])


def test_the_temporary_is_made_once_the_text_is(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hunt 13zi: `export -o` made its temporary, then wrote out the log as JSON (5 s at 50,000
    events), so a process killed meanwhile left an empty `.rulecraft-….part` beside the target.
    The text is made first: while it is, no temporary is there."""
    db = _campaign(cli, tmp_path)
    seen: list[list[str]] = []
    dumps = json.dumps

    def watched(value: Any, **kw: Any) -> str:
        seen.append(sorted(p.name for p in tmp_path.iterdir()))
        return dumps(value, **kw)

    monkeypatch.setattr(json, "dumps", watched)
    assert cli("campaign", "--db", db, "export", "c", "-o", "out.json", cwd=tmp_path).code == 0
    assert seen and all(not any(name.endswith(".part") for name in names) for names in seen), seen
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.db", "out.json"]
