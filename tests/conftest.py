"""Test-session setup and the fixtures the test files share.

Fixtures:

- `repo_root`: the repository root (a `Path`), for the shipped rulesets, schema, README and docs;
- `cli`: the `rulecraft` command run in this process — `cli(*argv, cwd=None)` returns a
  `CliResult(code, out, err)`. It calls `engine.cli.run(argv, out, err)` with `StringIO` streams,
  in `cwd` (default: the repository root, where a subprocess test would run it), and also catches
  what argparse writes to `sys.stdout`/`sys.stderr` itself (`--help`, usage errors), so `out` and
  `err` hold everything a user would see. A traceback in either stream fails the test;
- `shipped`: the four shipped rulesets, loaded once per session (name → `engine.Ruleset`);
- a private cache (`pytest_configure`, automatic): the session's on-disk caches (lark's grammar
  analysis, loaded documents) go to a throwaway folder of its own, never the user's `~/.cache/rulecraft` — the
  suite loads hundreds of rulesets, which filled the user's 128 kept documents, and a test that
  read that folder passed or failed by what other tests had left there;
- `pg_cluster`: a real PostgreSQL server for the session (`tests/_postgres.py`: the server at
  `$RULECRAFT_TEST_PG`, else a private throwaway cluster), or a skip that says why there is none;
  `pg_url`: the URL of a new, empty database on it, dropped after the test.

Only a few tests start a real process (`python -m engine`, the installed `rulecraft` script,
mypy, check-jsonschema); everything else goes through `cli`, which is much faster.

When a hypothesis test fails (a strict xfail included), hypothesis' pytest plugin imports
`hypothesis.extra._patching`, which imports libcst, which (with mypy_extensions >= 1.1) emits a
DeprecationWarning. Under `filterwarnings = error` that warning is raised inside a pytest hook and
ends the whole run with INTERNALERROR instead of a test report. Importing the module once here,
with that one warning ignored, keeps the report intact; every other warning is still an error.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple

import pytest
from _postgres import Cluster, Unavailable, database_name
from _repo import REPO_ROOT, SHIPPED_NAMES

import engine
from engine.cli import run
from engine.state.records import Store

with warnings.catch_warnings():
    warnings.filterwarnings(
        "ignore", message=r"mypy_extensions\.TypedDict is deprecated", category=DeprecationWarning
    )
    try:
        import hypothesis.extra._patching  # noqa: F401
    except ImportError:  # libcst is optional for hypothesis; without it there is nothing to pre-import
        pass


class CliResult(NamedTuple):
    """What one `rulecraft` command gave: its exit code and everything it printed."""

    code: int
    out: str
    err: str


def run_cli(*argv: str, cwd: Path | None = None) -> CliResult:
    """`rulecraft ARGV...` in this process, in `cwd` (default: the repository root)."""
    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.chdir(REPO_ROOT if cwd is None else cwd),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        code = run(list(argv), out, err)
    result = CliResult(code, out.getvalue(), err.getvalue())
    assert "Traceback" not in result.out + result.err, result.out + result.err
    return result


class _Teed(io.StringIO):
    """A stream that also writes into `both`: standard output and error as one reader sees them."""

    def __init__(self, both: io.StringIO) -> None:
        super().__init__()
        self._both = both

    def write(self, text: str) -> int:
        self._both.write(text)
        return super().write(text)


def run_cli_seen(*argv: str, cwd: Path | None = None) -> tuple[int, str]:
    """`rulecraft ARGV...` as `run_cli` runs it, with what it printed on both streams in the order
    it printed it (what a terminal shows, or a log of `2>&1`)."""
    both = io.StringIO()
    out, err = _Teed(both), _Teed(both)
    with (
        contextlib.chdir(REPO_ROOT if cwd is None else cwd),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        code = run(list(argv), out, err)
    assert "Traceback" not in both.getvalue(), both.getvalue()
    return code, both.getvalue()


@pytest.fixture
def cli_seen() -> Callable[..., tuple[int, str]]:
    return run_cli_seen


_CACHE_BEFORE: list[str | None] = []


def pytest_configure(config: pytest.Config) -> None:
    """Before collection (some test files load rulesets when imported): the session's own cache
    folder (see the module's docstring, "a private cache")."""
    _CACHE_BEFORE.append(os.environ.get("XDG_CACHE_HOME"))
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="rulecraft-test-cache-")


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = os.environ.get("XDG_CACHE_HOME")
    if _CACHE_BEFORE:
        before = _CACHE_BEFORE.pop()
        if before is None:
            os.environ.pop("XDG_CACHE_HOME", None)
        else:
            os.environ["XDG_CACHE_HOME"] = before
        if folder and os.path.basename(folder).startswith("rulecraft-test-cache-"):
            shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def cli() -> Callable[..., CliResult]:
    return run_cli


@pytest.fixture(scope="session")
def shipped() -> Mapping[str, engine.Ruleset]:
    return MappingProxyType({name: engine.load(name) for name in SHIPPED_NAMES})


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """One PostgreSQL server per test process (xdist worker), started when first asked for."""
    try:
        started = Cluster.start()
    except Unavailable as e:
        pytest.skip(f"no PostgreSQL server for the tests: {e}")
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture
def pg_url(pg_cluster: Cluster) -> Iterator[str]:
    url = pg_cluster.database()
    try:
        yield url
    finally:
        pg_cluster.drop(database_name(url))


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """An empty campaign store of each kind (PostgreSQL skipped, with its reason, when no server
    can be had): for a test that holds every store to the same rule."""
    from engine.state.memory import MemoryStore
    from engine.state.sqlite import SqliteStore

    if request.param == "postgres":
        from engine.state.postgres import PostgresStore

        made: Store = PostgresStore(request.getfixturevalue("pg_url"))
    else:
        made = MemoryStore() if request.param == "memory" else SqliteStore(tmp_path / "c.db")
    yield made
    made.close()
