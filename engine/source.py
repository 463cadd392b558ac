"""Source files and positions.

Every stage reports problems against the text the author wrote, so positions are one type
(`Span`, 1-based like editors and lark) and rendering the line-and-caret lives here, once.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SourceFile:
    """The text of one ruleset and the name it is reported under."""

    name: str
    text: str

    def line(self, number: int) -> str:
        lines = self.text.splitlines()
        if 1 <= number <= len(lines):
            return lines[number - 1]
        return ""


@dataclass(frozen=True, slots=True)
class Span:
    """A 1-based region of a source file; `end_col` is exclusive and on `line` when shown."""

    source: SourceFile
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0

    @property
    def file(self) -> str:
        return self.source.name

    def location(self) -> str:
        return f"{self.source.name}:{self.line}:{self.col}"

    def excerpt(self) -> str:
        """The source line and a caret (or a run of carets) under the span."""
        text = self.source.line(self.line)
        if not text:
            return ""
        width = 1
        if self.end_line in (0, self.line) and self.end_col > self.col:
            width = self.end_col - self.col
        width = max(1, min(width, len(text) - self.col + 1))
        pad = "".join("\t" if c == "\t" else " " for c in text[: self.col - 1])
        return f"  {text}\n  {pad}{'^' * width}"
