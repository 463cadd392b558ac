"""The columns a caret is laid out by: one table (engine/syntax/widths.json, written from Python's
`unicodedata` by `python -m engine.syntax.widths`) for the command line and the playground.

The page had a table of its own: about 300 symbols it drew two columns wide stood one wide on the
command line (and in a terminal), and its carets after them stood a column off the command line's.
A caret on a combining mark stood under the character after it, and a family emoji (three joined
by U+200D) was counted six columns where a terminal draws two. The browser's side of the same
checks is in tests/e2e/test_playground.py.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

import pytest

from engine.syntax import widths as made
from engine.syntax.positions import SourceFile, Span, _width, blank, columns

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # 👨‍👩‍👧
RAINBOW = "\U0001f3f3\ufe0f\u200d\U0001f308"  # 🏳️‍🌈


def _page_table() -> dict[str, object]:
    [line] = [x for x in made.PAGE.read_text(encoding="utf-8").split("\n") if x.startswith(made.PAGE_LINE)]
    table: dict[str, object] = json.loads(line.removeprefix(made.PAGE_LINE).removesuffix(";"))
    return table


def test_the_page_lays_carets_out_by_the_command_line_s_table() -> None:
    """app.js's table is widths.json's, and `positions` counts every code point by it."""
    table = json.loads(made.TABLE.read_text(encoding="utf-8"))
    assert _page_table() == table
    runs = table["runs"]
    assert runs[0][0] == 0 and all(a[0] < b[0] and a[1] != b[1] for a, b in zip(runs, runs[1:]))
    bounds = [run[0] for run in runs[1:]] + [sys.maxunicode + 1]
    for (first, width), end in zip(runs, bounds, strict=True):
        assert all(_width(chr(point)) == width for point in range(first, end)), hex(first)


def test_the_table_is_the_one_this_python_s_unicodedata_makes() -> None:
    """Written from `unicodedata` as `width` counts: wide and fullwidth two, marks and format
    characters none (a Python of another Unicode would write another: then rewrite it)."""
    table = json.loads(made.TABLE.read_text(encoding="utf-8"))
    if table["unicode"] != unicodedata.unidata_version:
        pytest.skip(f"the table is Unicode {table['unicode']}'s, this Python's {unicodedata.unidata_version}")
    assert made.table() == made.TABLE.read_text(encoding="utf-8").strip()
    assert made.page_with(made.PAGE.read_text(encoding="utf-8"), made.table()) == made.PAGE.read_text(
        encoding="utf-8"
    )


def test_a_code_point_with_no_character_takes_one_column_but_in_the_ideographs_blocks() -> None:
    """Python's `unicodedata` says every unassigned code point is fullwidth ("F"): one after U+0377
    was counted two columns. Unicode gives them one, but in the blocks kept for ideographs."""
    assert columns("\u0378") == 1 and columns("\U000e0080") == 1 and columns("\U0010ffff") == 1
    assert columns("\U0002fffd") == 2 and columns("\u9fff") == 2


def test_a_joined_emoji_takes_no_column_of_its_own() -> None:
    """Joined by U+200D, a family is one emoji a terminal draws in two columns, not 2 + 2 + 2;
    U+FE0F asks for the emoji (two columns) of a character otherwise drawn in one."""
    assert columns(FAMILY) == 2 and columns(RAINBOW) == 2 and columns("\u2602\ufe0f") == 2
    assert blank(FAMILY + "x") == "   " and columns("\t\ufe0f") == 1
    # a joined symbol asked as an emoji (⚕️, ☠️, ⚧️, 🗨️) is part of the emoji before the joiner
    # (review AP: 2255985 counted these four columns); a joined letter keeps its column
    for joined in (
        "\U0001f9d1\u200d\u2695\ufe0f",
        "\U0001f3f4\u200d\u2620\ufe0f",
        "\U0001f441\ufe0f\u200d\U0001f5e8\ufe0f",
    ):
        assert columns(joined) == 2, ascii(joined)
    assert columns("\u0915\u094d\u200d\u0937") == 2 and columns("a\u200db") == 2
    line = f"x: '{FAMILY}' y"
    at = line.index("y") + 1
    assert Span(SourceFile("f.yaml", line), 1, at).excerpt().split("\n")[1] == "  " + " " * 8 + "^"
    # on the second emoji of the family: the caret under the family, as wide as it is drawn
    on = Span(SourceFile("f.yaml", line), 1, 6, 1, 7).excerpt().split("\n")[1]
    assert on == "  " + " " * 4 + "^^"


@pytest.mark.parametrize(
    ("line", "col", "end", "under"),
    [
        ("x\u0301 y", 2, 3, " " * 0 + "^"),  # on the accent: under the x it is drawn on
        ("ab\u0301\u0302 y", 3, 5, " " + "^"),  # two marks on the b
        ("漢\u0301y", 2, 3, "^^"),  # on a wide character: under its two columns
        ("\u0301y", 1, 2, "^"),  # nothing before it: where it is
        ("a\t\u0301y", 3, 4, " \t^"),  # after a tab: after the tab's stop, as before
        ("x\u0301y", 2, 4, "^^"),  # the accent and the y: the x and the y
    ],
)
def test_a_caret_on_a_combining_mark_stands_under_the_character_it_is_drawn_on(
    line: str, col: int, end: int, under: str
) -> None:
    """A span that starts on a combining mark had its caret under the next character: the mark is
    drawn in the cell of the character before it, so the caret stands there (its column, as the
    location says, is still the mark's)."""
    shown = Span(SourceFile("f.yaml", line), 1, col, 1, end).excerpt().split("\n")
    assert shown == ["  " + line, "  " + under]


def test_a_long_line_s_window_counts_its_marks_and_joins_too() -> None:
    """A line cut to 120 characters around the place lays its caret out the same way."""
    line = "a" * 200 + "e\u0301" + FAMILY + "z" + "b" * 200
    at = line.index("z") + 1
    caret = Span(SourceFile("f.yaml", line), 1, at).excerpt().split("\n")[1]
    assert caret == "  " + " " * (1 + 33 + 1 + 2) + "^"  # `…`, 33 `a`, é, the family
    mark = Span(SourceFile("f.yaml", line), 1, line.index("\u0301") + 1).excerpt().split("\n")[1]
    assert mark == "  " + " " * (1 + 40 - 1) + "^"  # under the e


def test_positions_reads_no_table_at_start_up(tmp_path: Path) -> None:
    """A fresh `rulecraft roll` imports `positions` and draws no caret: it reads no file for it."""
    import subprocess

    code = (
        "import sys, engine.syntax.positions as p; assert p._table.cache_info().currsize == 0;"
        "p.columns('x');"
        "assert p._table.cache_info().currsize == 1"
    )
    repo = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
