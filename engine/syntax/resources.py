"""Where the files that ship with rulecraft live: the JSON Schema and the bundled rulesets.

A wheel carries the schema inside the package (`engine/_data`) and the shipped games beside
it in `rulecraft_rulesets/` (the engine package holds no game); a source checkout or
editable install reads them from the repository's top-level `schemas/` and `rulesets/`.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePath

RULESET_SUFFIXES = (".yaml", ".yml")
"""What the name of a ruleset file (or a scene file) ends with, in any case: `RULES.YAML` and
`old.Yml` too, as a file saved on Windows may be named. `is_ruleset_file` is the one test of it:
`validate` and `test` read a folder's files by it and `serve --rulesets` lists its folder by it
(both through `is_listed_ruleset`, which also passes over folders and hidden names), `scene`
tells `FILE.YAML:NAME` from a scene's name by it, and `new` keeps a suffix it accepts.
The pre-commit hooks' `files:` pattern says the same in a regular expression
(tests/test_tooling.py holds it to `is_ruleset_file`)."""

_PACKAGE = Path(__file__).resolve().parent.parent  # the `engine` package


def _first(*candidates: Path) -> Path:
    for c in candidates:
        if c.exists():
            return c
    return candidates[-1]


def is_ruleset_file(name: str | os.PathLike[str]) -> bool:
    """Whether a file name or path ends with a ruleset file's suffix, `RULESET_SUFFIXES`, in any
    case (`.yaml` alone, a hidden file's whole name, has no suffix and is not one)."""
    return PurePath(name).suffix.lower() in RULESET_SUFFIXES


def is_listed_ruleset(path: Path) -> bool:
    """Whether an entry met reading a folder whole (`validate DIR`, `test DIR`, `serve --rulesets
    DIR`) is one of its rulesets: a ruleset file's suffix (`is_ruleset_file`), a name that is not
    hidden (`.draft.yaml`, as a project's `.pre-commit-config.yaml` is not one) and no folder (a
    folder `old.yaml/` holds files, it is not one). A file that cannot be read (a link to nothing)
    is one all the same: reading it says why, where passing it over would say nothing."""
    if not is_ruleset_file(path.name) or path.name.startswith("."):
        return False
    try:
        return not path.is_dir()
    except OSError:  # it cannot be looked at: taken as a file, which reading then reports
        return True


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
