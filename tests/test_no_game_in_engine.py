"""No game in the engine: nothing under engine/ names a seed game or one of its bands.

Mirrors the issue's `grep -riE "chill|chimera|castle|chthonian|botch|nodule" engine/` over every
file (source, grammar, data), skipping only bytecode caches, which are regenerated from source;
then searches the same files for every outcome name of the shipped rulesets, read from the
rulesets themselves, as a whole word, but for the ordinary English words among them (`ENGLISH`),
which the engine's own prose and code use in their own sense (`pass` is Python's).
"""

from __future__ import annotations

import re
from pathlib import Path

import engine

ENGINE = Path(engine.__file__).resolve().parent
GAME_WORDS = re.compile(r"chill|chimera|castle|chthonian|botch|nodule", re.IGNORECASE)
SHIPPED = ("castle", "chill", "chimera", "chthonian")
ENGLISH = frozenset(
    {"average", "deadly", "fail", "failure", "good", "hit", "light", "lose", "miss", "nobody"}
    | {"pass", "poor", "serious", "success", "tie", "win"}
)
"""Outcome names of the shipped rulesets that are ordinary words; every other one (`half_pass`,
`low_success`, `stand_off`, ...) is the game's own, and must not appear in engine/."""


def outcome_names() -> set[str]:
    return {
        name
        for game in SHIPPED
        for check in engine.load(game).checks.values()
        for name in check.outcomes.names
    }


def hits(folder: Path, words: re.Pattern[str] = GAME_WORDS) -> list[str]:
    found = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            if words.search(line):
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


def test_engine_names_no_games_outcome():
    names = outcome_names()
    assert ENGLISH < names  # each listed word is an outcome today (else it belongs off the list)
    own = names - ENGLISH
    assert {"half_pass", "low_success", "stand_off"} <= own
    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, own))) + r")\b", re.IGNORECASE)
    assert hits(ENGINE, pattern) == []
    assert any("half_pass" in line for line in hits(Path(engine.__file__).parents[1] / "rulesets", pattern))
