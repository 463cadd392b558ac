"""The fenced code blocks of a markdown page, for the tests that run a doc's examples
(test_tutorial.py, test_language_doc.py, test_diagnostics_doc.py): each block with the line of its
opening fence, its info string and its text. Blocks with no info string are not examples and are
passed over; a block ends at the first line that is only a closing fence."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^```(?P<info>.*)$")


@dataclass(frozen=True)
class Fence:
    line: int  # the opening fence, 1-based
    info: str
    text: str


def fences(page: Path) -> list[Fence]:
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Fence] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m or not m["info"].strip():
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j].rstrip() != "```":
            j += 1
        found.append(Fence(i + 1, m["info"].strip(), "\n".join(lines[i + 1 : j]) + "\n"))
        i = j + 1
    return found
