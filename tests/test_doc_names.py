"""Every dotted `engine.…` name the README and the docs give resolves: a module, or something in one.

A name the docs hand a reader to import or call (`engine.tools.examples.run_examples`, say) is
looked up for real, so a module that moves takes its mentions with it.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

import pytest
from _repo import REPO_ROOT

_NAME = re.compile(r"(?<![\w./-])engine(?:\.[A-Za-z_]\w*)+")


def _mentions() -> list[tuple[str, str]]:
    pages = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
    found = {
        (p.relative_to(REPO_ROOT).as_posix(), m.group(0))
        for p in pages
        for m in _NAME.finditer(p.read_text())
    }
    return sorted(found)


def resolve(name: str) -> Any:
    """The object `name` names: its longest importable module prefix, then attributes."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)  # AttributeError: the page names what is not there
        return obj
    raise ImportError(name)


def test_the_pages_name_engine_objects() -> None:
    assert len(_mentions()) >= 30  # the pattern still finds the docs' names


@pytest.mark.parametrize(("page", "name"), _mentions(), ids=lambda v: str(v))
def test_a_named_object_exists(page: str, name: str) -> None:
    resolve(name)


def test_a_name_that_moved_is_caught() -> None:
    with pytest.raises((ImportError, AttributeError)):
        resolve("engine.examples.run_examples")  # moved to engine.tools.examples
