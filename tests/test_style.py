"""The code is formatted and linted by ruff (configured in pyproject.toml: 110-character lines),
and stays so: a change that is not `ruff format`ted or that `ruff check` flags fails here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def _ruff(repo_root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, "engine", "tests", "benchmarks"],
        capture_output=True,
        text=True,
        cwd=repo_root,
        timeout=300,
    )


def test_ruff_format_leaves_every_file_as_it_is(repo_root: Path) -> None:
    run = _ruff(repo_root, "format", "--check")
    assert run.returncode == 0, run.stdout + run.stderr


def test_ruff_check_finds_nothing(repo_root: Path) -> None:
    run = _ruff(repo_root, "check", "--no-cache")
    assert run.returncode == 0, run.stdout + run.stderr
