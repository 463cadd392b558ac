"""The engine is fully typed (it ships `py.typed`): `mypy --strict` must stay clean."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_engine_passes_mypy_strict(repo_root: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "engine"],
        capture_output=True,
        text=True,
        cwd=repo_root,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert (repo_root / "engine" / "py.typed").exists()
