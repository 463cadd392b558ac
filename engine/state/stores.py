"""Which store a target names: one function, so that the CLI, the API and the server open
campaigns the same way.

A target is a path (the SQLite file, made when missing) or a PostgreSQL URL (`postgresql://...`
or `postgres://...`). The PostgreSQL store is imported only when a URL is given, so the engine
runs without psycopg until one is.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from ..errors import CampaignError, Diagnostic
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


def open_store(target: str | Path) -> Store:
    """The campaign store `target` names: a `PostgresStore` for a `postgresql://` or `postgres://`
    URL, else a `SqliteStore` for the file at that path. Close it when done."""
    if is_postgres(target):
        from .postgres import PostgresStore

        return PostgresStore(postgres_url(str(target)))
    scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", target) if isinstance(target, str) else None
    if scheme:  # `mysql://...` is no file either: say so, not that its "folder" is missing
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
    from .sqlite import SqliteStore

    return SqliteStore(Path(target))
