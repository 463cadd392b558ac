"""Where the repository is, for what a test file needs while it is being collected (parameter lists
read from the shipped rulesets, the README, tests/broken/). Inside a test, use the `repo_root`
fixture of conftest.py instead. Also what a child process started with a bare environment needs
to keep using the session's cache folder (`cache_home`)."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
SHIPPED_NAMES = ("castle", "chill", "chimera", "chthonian")


def cache_home() -> dict[str, str]:
    """The session's cache folder (`conftest.pytest_configure`) as environment, for a child given
    a bare environment: without it the child would write the user's `~/.cache`."""
    home = os.environ.get("XDG_CACHE_HOME")
    return {"XDG_CACHE_HOME": home} if home else {}
