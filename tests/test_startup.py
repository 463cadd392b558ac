"""Start-up: lark's analysis of the expression grammar is kept in a private cache file, read back
only when it matches, and never from a folder another user could write."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from engine.expr import parser

PARSE = (
    "from engine.expr.parser import parse; from engine.expr.printer import to_text; "
    "print(to_text(parse('1 + f(x) * 2 if a else b')))"
)


def _run(cache_home: Path, repo_root: Path) -> str:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    done = subprocess.run(
        [sys.executable, "-c", PARSE], cwd=repo_root, env=env, capture_output=True, text=True, check=True
    )
    assert done.stderr == ""  # lark logs nothing (a failed cache write would)
    return done.stdout


def test_the_grammar_analysis_is_cached_privately_and_reused(tmp_path: Path, repo_root: Path) -> None:
    first = _run(tmp_path, repo_root)
    folder = tmp_path / "rulecraft"
    [kept] = list(folder.iterdir())
    assert kept.name.startswith("grammar-") and "lark" in kept.name
    assert folder.stat().st_mode & 0o777 == 0o700
    made = kept.stat().st_mtime_ns
    assert _run(tmp_path, repo_root) == first  # the same parser from the cache
    assert kept.stat().st_mtime_ns == made  # read, not written again


def test_a_folder_others_can_write_is_not_used(tmp_path: Path, monkeypatch) -> None:
    shared = tmp_path / "rulecraft"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert parser._cache_file() is None
    shared.chmod(0o700)
    assert str(parser._cache_file()).startswith(str(shared))


def test_no_cache_folder_to_be_had_still_parses(tmp_path: Path, repo_root: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert _run(blocked, repo_root).strip() == "1 + f(x) * 2 if a else b"  # analysed afresh, as before
