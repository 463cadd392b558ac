"""No game in the engine: nothing under engine/ names a seed game or one of its bands.

Mirrors the issue's `grep -riE "chill|chimera|castle|chthonian|botch|nodule" engine/` over every
file (source, grammar, data), skipping only bytecode caches, which are regenerated from source.
"""

from __future__ import annotations

import re
from pathlib import Path

import engine

ENGINE = Path(engine.__file__).resolve().parent
GAME_WORDS = re.compile(r"chill|chimera|castle|chthonian|botch|nodule", re.IGNORECASE)


def hits(folder: Path) -> list[str]:
    found = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            if GAME_WORDS.search(line):
                found.append(f"{path.relative_to(folder.parent)}:{number}: {line.strip()}")
    return found


def test_engine_names_no_game():
    assert ENGINE.name == "engine" and (ENGINE / "__init__.py").is_file()
    assert hits(ENGINE) == []


def test_the_search_does_find_game_words(repo_root: Path):
    """The same search over rulesets/ must find them, or the test above could never fail."""
    found = hits(repo_root / "rulesets")
    for word in ("chill", "chimera", "castle", "chthonian", "botch"):
        assert any(word in line.lower() for line in found), word
