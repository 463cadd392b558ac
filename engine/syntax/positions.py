"""Source files and positions.

Every stage reports problems against the text the author wrote, so positions are one type
(`Span`, 1-based like editors and lark) and rendering the line-and-caret lives here, once.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from functools import cache, cached_property
from typing import Final

from ..frozen import field, frozen

EXCERPT_WIDTH: Final = 120
"""The most characters of a source line an excerpt shows: a longer line (a flow mapping written on
one line, a minified JSON text) is shown as that many around the place, cut with `…`. The whole
line was shown, with as many spaces before the caret: a place at column 900,016 of a JSON text
was a megabyte of message, and an answer cut to its first characters lost the caret (found by a
hunt)."""


@frozen
class SourceFile:
    """The text of one ruleset and the name it is reported under."""

    name: str
    text: str

    @cached_property
    def lines(self) -> tuple[str, ...]:
        """The text's lines, split once: the compiler asks for hundreds of them while it loads.
        Split at a newline only, as `line_starts` and the YAML reader count lines (and JSON):
        `str.splitlines` also splits at U+2028, U+0085, a form feed and others, and a caret
        below one fell under the line above the one it meant. A CR before a newline is not
        shown, and a lone CR (no line end to JSON, which counts lines so too) is shown as a
        space: shown as it is, it sends a terminal's cursor back over the line. A last newline
        ends the last line, as `splitlines` has it."""
        lines = [line.removesuffix("\r").replace("\r", " ") for line in self.text.split("\n")]
        if lines[-1] == "":
            lines.pop()
        return tuple(lines)

    @cached_property
    def line_starts(self) -> tuple[int, ...]:
        """The offset in `text` at which each line begins (a line ends at a newline only)."""
        starts = [0]
        at = self.text.find("\n")
        while at >= 0:
            starts.append(at + 1)
            at = self.text.find("\n", at + 1)
        return tuple(starts)

    def line(self, number: int) -> str:
        lines = self.lines
        if 1 <= number <= len(lines):
            return lines[number - 1]
        return ""


@frozen(slots=True)
class Span:
    """A 1-based region of a source file; `end_col` is exclusive and on `line` when shown."""

    source: SourceFile
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0
    through: int = field(default=0, compare=False, repr=False)
    """The line of the alias (`*name`) by which what is told here was reached, where it is a
    value written once, at its anchor, and read again elsewhere (0: none): the excerpt shows it
    where it is written, and a mistake only its use makes (a name the other check does not
    have) is then told with where it is used too (hunt 13zh). A note on the place, not part of
    it: two spans of one place are equal, and a span reads as it did."""

    @property
    def file(self) -> str:
        return self.source.name

    def location(self) -> str:
        return f"{self.source.name}:{self.line}:{self.col}"

    @property
    def text(self) -> str:
        """The text under the span ('' where it spans lines or holds none)."""
        if self.end_line not in (0, self.line) or self.end_col <= self.col:
            return ""
        return self.source.line(self.line)[self.col - 1 : self.end_col - 1]

    def excerpt(self) -> str:
        """The source line and a caret (or a run of carets) under the span."""
        text = self.source.line(self.line)
        if not text:
            return ""
        width = 1
        if self.end_line in (0, self.line) and self.end_col > self.col:
            width = self.end_col - self.col
        width = max(1, min(width, len(text) - self.col + 1))
        before = text[: self.col - 1]  # what stands before the caret on the line shown
        if len(text) > EXCERPT_WIDTH:  # a window around the place, a third of it before
            first = max(0, min(self.col - 1 - EXCERPT_WIDTH // 3, len(text) - EXCERPT_WIDTH))
            last = first + EXCERPT_WIDTH
            lead = "…" if first else ""
            before = lead + text[first : self.col - 1]
            width = max(1, min(width, last - self.col + 1))
            text = lead + text[first:last] + ("…" if last < len(text) else "")
        shown = widths(text)
        drawn = [visible(c) for c in text]  # a control character as its escape, as wide as it is
        shown = [len(d) if d != c else w for c, d, w in zip(text, drawn, shown, strict=True)]
        at = drawn_at(text, shown, len(before))
        under = sum(shown[at : len(before) + width])
        return f"  {''.join(drawn)}\n  {_blank(text[:at], shown[:at])}{'^' * max(1, under)}"


CONTROL: Final = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\udc80-\udc9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
"""The characters a terminal acts on rather than draws: C0 but for the tab and the newline, DEL,
and C1. From a stranger's ruleset, written raw, `\\x1b[2J` clears the screen, `\\x1b]0;...\\a`
retitles the window, and others have moved the cursor over what was said (docs/security.md);
and a file name's bytes 0x80-0x9f that are no UTF-8, which Python holds as lone surrogates.
And Unicode's bidirectional controls, every character of the property Bidi_Control (U+061C,
U+200E, U+200F, U+202A-U+202E, U+2066-U+2069): drawn as nothing, they reorder what follows
them on the line ("Trojan Source"), so that a ruleset's title or a line in an excerpt read in
another order than it was written. The whole property, not only the overrides and isolates:
the marks (U+200E, U+200F, U+061C) move neutral characters about as well, and a ruleset has
no use for any of them that a reader should not see."""


def visible(text: str) -> str:
    """`text` with each `CONTROL` character written as its escape (`\\x1b`, `\\u202e`), as Python
    writes one: what the command line prints and a diagnostic's excerpt shows, so that text from
    a ruleset or its inputs is read, never acted on, by the terminal."""
    return CONTROL.sub(_escaped, text) if CONTROL.search(text) else text


def _escaped(m: re.Match[str]) -> str:
    """A control character as `\\x1b`, a bidirectional one as `\\u202e`; a byte 0x80-0x9f a file
    name held that was no UTF-8 (Python reads it as a lone surrogate, U+DC80-U+DC9F, and writes it
    back as the raw byte, a C1 control to a terminal: an 8-bit CSI, 0x9b) as that byte, `\\x9b`."""
    code = ord(m[0])
    if code >= 0xDC00:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


BREAKS: Final = re.compile("[\n\t]")


def one_line(value: str) -> str:
    """`value` with its line breaks and tabs written as `\\n` and `\\t`: a value put into a line of
    text (a file name, a name given on the command line or in a ruleset) that is one value, not
    lines of its own. A file name holding a newline split a diagnostic's `file:line:col` over two
    lines, and `wrote x` / `y.json` read as two things said; the text's own lines stay lines."""
    return BREAKS.sub(lambda m: "\\n" if m[0] == "\n" else "\\t", value) if BREAKS.search(value) else value


TABLE: Final = "widths.json"
"""The columns each character takes in a terminal, beside this file: written from `unicodedata`
by `python -m engine.syntax.widths`, which writes the same table into the playground's app.js."""


@cache
def _table() -> tuple[list[int], list[int]]:
    """The table's runs, as their first code points and their widths: read when a caret is first
    drawn, never at start-up (a roll that draws none reads no file)."""
    import json
    from pathlib import Path

    runs = json.loads((Path(__file__).resolve().parent / TABLE).read_text(encoding="utf-8"))["runs"]
    return [run[0] for run in runs], [run[1] for run in runs]


def _width(c: str) -> int:
    """The columns a character alone takes in a terminal (about as `wcwidth` counts them): two for
    an East Asian wide or fullwidth one (漢, ｶ is one: halfwidth), none for a mark drawn on the
    character before it or a format character (a combining accent, a zero-width joiner); a
    spacing mark (a virama of category Mc) takes its own column. The table says, so the page
    counts as this does."""
    from bisect import bisect_right

    starts, each = _table()
    return each[bisect_right(starts, ord(c)) - 1]


def widths(text: str) -> list[int]:
    """The columns each character of `text` takes: `_width`, but a character joined by U+200D to
    an emoji (the last character before it that takes columns, drawn in two) takes none, and one
    that U+FE0F asks to be drawn as an emoji (🏳️‍🌈, ☂️) takes two unless it is so joined:
    👨‍👩‍👧, 🧑‍⚕️ and 🏴‍☠️ are drawn in two columns, and a letter after a joiner, as Indic
    scripts write them (क्‍ष), keeps its column. A tab counts one (`blank` keeps it)."""
    out: list[int] = []
    base = -1  # the last character that takes columns
    for i, c in enumerate(text):
        if c == "\t":
            out.append(1)
            base = -1
        elif i and text[i - 1] == "\u200d" and base >= 0 and out[base] == 2:
            out.append(0)
        else:
            if c == "\ufe0f" and i and out[i - 1] == 1 and text[i - 1] != "\t":
                out[i - 1] = 2
            out.append(_width(c))
            if out[-1]:
                base = i
    return out


def drawn_at(text: str, shown: list[int], at: int) -> int:
    """Where a caret for the character at index `at` stands: a character drawn in no column of its
    own (a combining accent, a joined emoji) is drawn in the cell of the one before it, and so
    is its caret. A caret on the accent of `é` stood under the character after it."""
    while 0 < at < len(text) and shown[at] == 0 and text[at - 1] != "\t":
        at -= 1
    return at


def columns(text: str) -> int:
    """The columns `text` takes in a terminal (`widths` of its characters)."""
    return sum(widths(text))


def blank(text: str) -> str:
    """Blank space as wide as `text` shows: its tabs kept (the terminal's own stops), every other
    character as many spaces as the columns it takes. A caret drawn after `漢漢` stood two
    columns short of its place, under the wrong token."""
    return _blank(text, widths(text))


def _blank(text: str, shown: list[int]) -> str:
    return "".join("\t" if c == "\t" else " " * w for c, w in zip(text, shown, strict=True))


@frozen(slots=True)
class ExprOrigin:
    """Maps a position inside an expression string to a position in the YAML file."""

    source: SourceFile
    line: int
    col: int
    indent: int
    positions: tuple[tuple[int, int, int], ...] | None = None
    """Where each character of the expression is (line, column, and the columns it takes: an
    escape such as `\\u0061` or a single-quoted scalar's `''` stands for one character), when it
    is not one run of one line."""
    breaks: tuple[int, ...] = (0,)
    """Where each line of the expression starts, in characters of the expression."""
    through: int = 0
    """The line of the alias the expression was reached by (`Span.through`), 0 for none."""

    def span(self, line: int, col: int, end_line: int, end_col: int) -> Span:
        if self.positions:
            return self._mapped(line, col, end_line, end_col)

        def place(ln: int, cl: int) -> tuple[int, int]:
            if ln <= 1:
                return self.line, self.col + cl - 1
            return self.line + ln - 1, self.indent + cl

        a = place(line, col)
        b = place(end_line, end_col)
        return Span(self.source, a[0], a[1], b[0], b[1], self.through)

    def _mapped(self, line: int, col: int, end_line: int, end_col: int) -> Span:
        positions = self.positions
        assert positions is not None

        def index_of(ln: int, cl: int) -> int:
            start = self.breaks[min(max(ln, 1), len(self.breaks)) - 1]
            return min(max(start + cl - 1, 0), len(positions) - 1)

        a = positions[index_of(line, col)]
        last = positions[index_of(end_line, end_col - 1)] if end_col > 1 else a
        end = (last[0], last[1] + last[2]) if last[0] == a[0] else (a[0], a[1] + a[2])
        return Span(self.source, a[0], a[1], end[0], end[1], self.through)


def decimal_text(span: Span, number: float) -> str:
    """A decimal number as the file writes it at `span`, every digit kept, as the language writes
    a number (`1e3` as 1000, `.5` as 0.5): YAML reads an unquoted 123456789.123456789 as the
    float 123456789.12345679, and an exact number is read from the text (a key of a value table,
    an example's number, the hint that asks for quotes). The float's own digits where the span,
    on one line, does not read as that float."""
    chosen = repr(number)
    text = span.text.strip().replace("_", "")
    try:
        if text and float(text) == number:
            chosen = text
    except ValueError:
        pass
    try:
        return format(Decimal(chosen), "f")
    except (InvalidOperation, ValueError):  # not finite: said as YAML read it
        return chosen
