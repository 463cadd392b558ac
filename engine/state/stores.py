"""Which store a target names: one function, so that the CLI, the API and the server open
campaigns the same way.

A target is a path (the SQLite file, made when missing) or a PostgreSQL URL (`postgresql://...`
or `postgres://...`). The PostgreSQL store is imported only when a URL is given, so the engine
runs without psycopg until one is.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Final

from ..errors import CampaignError, Diagnostic, InputError
from ..runtime import arguments
from .records import Store

URL_SCHEMES: Final = ("postgresql://", "postgres://")


def is_postgres(target: str | Path) -> bool:
    """Whether `target` names a PostgreSQL database rather than a file."""
    return isinstance(target, str) and target.lower().startswith(URL_SCHEMES)


def postgres_url(target: str) -> str:
    """The PostgreSQL URL `target` as the store is given it (and names it, its password masked):
    its scheme in lower case, the only case libpq takes."""
    given, _, rest = target.partition("://")
    return f"{given.lower()}://{rest}"


MEMORY: Final = ":memory:"


def unkept(target: str | Path) -> str | None:
    """Why campaigns could not be kept at `target`, a path or URL as given, or None: an empty
    name, or SQLite's database in memory (`:memory:`), which a command or a server's request
    would make and drop unseen ("made campaign 'x'", then nothing to list: hunts 13g and 13l).
    The one rule the CLI's `--db`, `serve --db` and every store opened share; `./:memory:` is a
    file of that name (`SqliteStore` opens it so)."""
    text = str(target) if isinstance(target, Path) else target
    if not text.strip():
        return "an empty name"
    if text.strip() == MEMORY:
        return "SQLite's database in memory, gone when the command ends"
    return None


def refuse_unkept(target: str | Path) -> None:
    """RC407 when campaigns could not be kept at `target` (`unkept`): what every store opened
    asks first, `SqliteStore` made directly too."""
    why = unkept(target)
    if why is not None:
        raise InputError(
            [
                Diagnostic(
                    "RC407",
                    f"{str(target)!r} is {why}: campaigns are kept in a file or in PostgreSQL",
                    None,
                    "give a file path (./:memory: for a file of that name), or postgresql://USER@HOST/DATABASE",
                )
            ]
        )


def open_store(target: str | Path, *, wait: float | None = None) -> Store:
    """The campaign store `target` names: a `PostgresStore` for a `postgresql://` or `postgres://`
    URL, else a `SqliteStore` for the file at that path. Close it when done. `wait` bounds how
    many seconds a write waits for another writer (the stores' own 10 s by default): a server
    waits no longer than its request's deadline."""
    if isinstance(target, bool) or not isinstance(target, (str, Path)):  # not read as a name (hunt 13r)
        shown = f"{type(target).__name__} {target!r}"[:60]
        raise TypeError(f"open_store: argument 'target' must be a str or a pathlib.Path, not {shown}")
    wait = arguments.seconds("open_store", "wait", wait, none_is="the store's own wait of 10 s")
    refuse_unkept(target)
    if is_postgres(target):
        from .postgres import PostgresStore

        if wait is not None:
            return PostgresStore(postgres_url(str(target)), timeout=wait)
        return PostgresStore(postgres_url(str(target)))
    _no_other_scheme(target)
    from .sqlite import SqliteStore

    return SqliteStore(target) if wait is None else SqliteStore(target, timeout=wait)


def names_folder(text: str) -> bool:
    """Whether a path as given names a folder by how it ends (`/`, `/.`, `/..`): `Path` drops the
    slash, so `--db newdir/` had made a file named `newdir`, and `export -o out/` one named `out`
    (hunts 13ze, 13zf)."""
    return bool(text) and (text.endswith(("/", os.sep)) or os.path.basename(text) in (".", ".."))


def check_address(target: str | Path) -> None:
    """RC903 (RC407 for `unkept`) now for a store `target` that no request could open: a URL
    libpq cannot read, or a scheme of no store. Nothing is connected to or made: a server checks
    its `--db` so at start, where it had started and answered every request 503 (hunt 13o)."""
    refuse_unkept(target)
    if is_postgres(target):
        from .postgres import PostgresStore

        PostgresStore(postgres_url(str(target)), connect=False)
        return
    _no_other_scheme(target)
    if isinstance(target, str) and names_folder(target):
        from .sqlite import folder_named

        raise folder_named(target)


def _no_other_scheme(target: str | Path) -> None:
    """RC903 for a URL of another scheme: `mysql://...` is no file either: say so, not that its
    "folder" is missing."""
    scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", target) if isinstance(target, str) else None
    if scheme:
        raise CampaignError(
            [
                Diagnostic(
                    "RC903",
                    f"cannot keep campaigns at {scheme[1]}://...: a campaign store is a SQLite file or a"
                    " PostgreSQL URL",
                    None,
                    "give a file path, or postgresql://USER@HOST/DATABASE",
                )
            ]
        )
