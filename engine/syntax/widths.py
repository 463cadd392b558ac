"""Writes the table of the columns each character takes in a terminal: `widths.json` here, read by
`positions` when it first draws a caret, and the same table into the playground's app.js, which
lays its carets out by it. One table for both, so the command line's carets and the page's cannot
disagree again (the page's own table drew about 300 symbols two columns wide that a terminal, and
the command line, draw in one).

Run `python -m engine.syntax.widths` after a Python whose `unicodedata` knows a newer Unicode:
never imported on the way to a caret (nor at start-up), only by this command and the tests.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path
from typing import Final

HERE: Final = Path(__file__).resolve().parent
TABLE: Final = HERE / "widths.json"
PAGE: Final = HERE.parent / "serve" / "static" / "app.js"
PAGE_LINE: Final = "const WIDTHS = "
"""How app.js's line with the table starts; the rest of that line is the table's JSON and `;`."""


WIDE_UNASSIGNED: Final = (
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0x20000, 0x2FFFD),
    (0x30000, 0x3FFFD),
)
"""Where Unicode's EastAsianWidth.txt gives an unassigned code point "W" (its ideographs' blocks
and planes 2 and 3); anywhere else an unassigned one is "N", one column. Python's `unicodedata`
(3.11 at least) says "F" for all of them: a caret after one stood a column too far."""


def width(c: str) -> int:
    """None for a mark drawn on the character before it or a format character (a combining accent,
    a zero-width joiner, a variation selector: categories Mn, Me, Cf), two for an East Asian wide
    or fullwidth one (漢, not the halfwidth ｶ), else one; a spacing mark (a virama of category Mc)
    takes its own column. As `wcwidth` counts them, but from this Python's `unicodedata` alone
    (with `WIDE_UNASSIGNED` for code points it has no character at)."""
    category = unicodedata.category(c)
    if category in ("Mn", "Me", "Cf"):
        return 0
    if category == "Cn":  # unassigned: `east_asian_width` says "F" for every one of them
        return 2 if any(first <= ord(c) <= last for first, last in WIDE_UNASSIGNED) else 1
    return 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1


def runs() -> list[list[int]]:
    """The table as runs `[first code point, width]`, each lasting to the next run's first code point
    (the last to U+10FFFF): about a thousand, where a list of every code point has a million."""
    out: list[list[int]] = []
    for point in range(sys.maxunicode + 1):
        w = width(chr(point))
        if not out or out[-1][1] != w:
            out.append([point, w])
    return out


def table() -> str:
    """The table's JSON, on one line: the Unicode version it was made from and its runs."""
    return json.dumps({"unicode": unicodedata.unidata_version, "runs": runs()}, separators=(",", ":"))


def page_with(text: str, made: str) -> str:
    """app.js's `text` with its table's line holding `made`."""
    lines = text.split("\n")
    [at] = [i for i, line in enumerate(lines) if line.startswith(PAGE_LINE)]
    lines[at] = f"{PAGE_LINE}{made};"
    return "\n".join(lines)


def main() -> None:
    made = table()
    TABLE.write_text(made + "\n", encoding="utf-8")
    PAGE.write_text(page_with(PAGE.read_text(encoding="utf-8"), made), encoding="utf-8")
    print(f"wrote {TABLE.name} and {PAGE.name}'s table (Unicode {unicodedata.unidata_version})")


if __name__ == "__main__":
    main()
