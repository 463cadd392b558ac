"""Where the repository is, for what a test file needs while it is being collected (parameter lists
read from the shipped rulesets, the README, tests/broken/). Inside a test, use the `repo_root`
fixture of conftest.py instead."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
SHIPPED_NAMES = ("castle", "chill", "chimera", "chthonian")
