"""Where the files that ship with rulecraft live: the JSON Schema and the bundled rulesets.

A wheel carries the schema inside the package (`engine/_data`) and the shipped games beside
it in `rulecraft_rulesets/` (the engine package holds no game); a source checkout or
editable install reads them from the repository's top-level `schemas/` and `rulesets/`.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # the `engine` package


def _first(*candidates: Path) -> Path:
    for c in candidates:
        if c.exists():
            return c
    return candidates[-1]


def schema_path() -> Path:
    return _first(
        _PACKAGE / "_data" / "ruleset.schema.json", _PACKAGE.parent / "schemas" / "ruleset.schema.json"
    )


def rulesets_dir() -> Path:
    return _first(_PACKAGE.parent / "rulecraft_rulesets", _PACKAGE.parent / "rulesets")


def shipped_rulesets() -> dict[str, Path]:
    """Bundled rulesets by name (the file's stem, which is also its `name:`)."""
    folder = rulesets_dir()
    return {p.stem: p for p in sorted(folder.glob("*.yaml"))} if folder.is_dir() else {}
