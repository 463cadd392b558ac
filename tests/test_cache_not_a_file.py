"""A cache entry that is no regular file is no entry: a pipe in its place is never waited on.

Found by hunt 13k: a named pipe put in the place of a cached document (`document-*.marshal`) or of
kept code (`code-*.marshal`) hung every later load of that ruleset for good, whatever its
deadline: the entry was opened as a file, and opening a pipe waits for a writer. And a path
holding a NUL gave Python's own `ValueError` from inside the engine, where any other path that
cannot be read is RC001.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from engine.errors import LoadError

COIN = """\
rulecraft: 1
name: coin
checks:
  flip: {roll: {d: {die: 2}}, outcomes: [tails, heads], outcome: "'heads' if d == 2 else 'tails'"}
"""
LOAD = (
    "import engine, sys; "
    "print(engine.load(open(sys.argv[1]).read()).distribution('flip').probability('heads'))"
)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_pipe_in_place_of_a_cache_entry_is_no_entry(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    rules = tmp_path / "coin.yaml"
    rules.write_text(COIN)
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    env.pop("RULECRAFT_NO_CACHE", None)
    first = subprocess.run(
        [sys.executable, "-c", LOAD, str(rules)], env=env, capture_output=True, text=True, timeout=120
    )
    assert first.returncode == 0 and first.stdout.strip() == "1/2", first.stderr
    entries = sorted((cache / "rulecraft").glob("document-*.marshal")) + sorted(
        (cache / "rulecraft").glob("code-*.marshal")
    )
    assert any(e.name.startswith("document-") for e in entries) and any(
        e.name.startswith("code-") for e in entries
    )
    for entry in entries:
        entry.unlink()
        os.mkfifo(entry)
    again = subprocess.run(
        [sys.executable, "-c", LOAD, str(rules)], env=env, capture_output=True, text=True, timeout=120
    )
    assert again.returncode == 0 and again.stdout.strip() == "1/2", again.stderr


def test_a_path_holding_a_nul_is_rc001() -> None:
    for load in (
        lambda: engine.load(Path("rules\0.yaml")),
        lambda: engine.load("chill").with_scenes(Path("a\0b")),
    ):
        with pytest.raises(LoadError) as raised:
            load()
        [d] = raised.value.diagnostics
        assert d.code == "RC001" and "a file's name holds no NUL" in d.message, d.message
