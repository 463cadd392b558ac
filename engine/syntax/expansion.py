"""What a YAML text stands for once its aliases are expanded, counted as it is composed.

An alias (`*name`) is its anchored value again at every use: to every later stage, a value of
100 000 characters used 60 000 times is 6·10⁹ characters, and a mapping of 3 000 keys merged
(`<<: *m`) 500 times is 1.5 million values, which ruamel's constructor spends minutes merging.
Each use is counted here, as the composer meets it and before anything is constructed, and the
one that passes a bound is refused (`RC004`) where it is written.
"""

from __future__ import annotations

from typing import Any

from ..errors import Diagnostic, LimitError, limit_advice
from .positions import SourceFile, Span

EXPANDED_TEXT = 4
"""How many times `max_yaml_bytes` the text of a file's values and keys may come to once its
aliases are expanded: a file without aliases never comes near it (its text is at most its
bytes), and a long text may still be used a few times."""


class Expansion:
    """The values and the characters of text (keys' and values', as written) a file stands for so
    far, each alias counted as all it stands for at each use: a key is no value (as
    `max_yaml_nodes` counts), but its text is text."""

    def __init__(self, source: SourceFile, max_values: int, max_bytes: int) -> None:
        self.source = source
        self.max_values = max_values
        self.max_text = EXPANDED_TEXT * max_bytes
        self.values = 0
        self.text = 0
        self.sizes: dict[int, tuple[int, int]] = {}
        """Each anchored node's values and text by identity, counted once however often used."""

    def write(self, event: Any, *, key: bool) -> None:
        """Count the scalar, list or mapping `event` starts, as written."""
        value = getattr(event, "value", None)
        self._count(None, 1, len(value) if isinstance(value, str) else 0, key=key)

    def use(self, event: Any, target: Any, *, key: bool) -> None:
        """Count the alias `event`: all the node `target`, its anchor's, stands for."""
        values, text = self._size(target)
        self._count(event, values, text, key=key)

    def _count(self, alias: Any, values: int, text: int, *, key: bool) -> None:
        """Add a node's values and text; refuse the file if it now passes a bound: at the `alias`
        (its event) that passed it, else at the file, whose every value counts as much."""
        self.values += 0 if key else values
        self.text += text
        if self.values > self.max_values:
            raise self._over(
                alias, f"the file holds more than {self.max_values:,} values once its aliases are expanded"
            )
        if self.text > self.max_text:
            raise self._over(
                alias,
                f"the file's text comes to more than {self.max_text:,} characters once its aliases are "
                f"expanded ({EXPANDED_TEXT} times max_yaml_bytes)",
            )

    def _size(self, node: Any) -> tuple[int, int]:
        """The values and text `node` stands for. A collection still being composed (an alias
        inside its own anchor) counts as nothing: the document's composer refuses such an alias
        before it is counted (`RC002`), and this keeps the count from recursing if it is not."""
        if isinstance(node.value, str):
            return 1, len(node.value)
        found = self.sizes.get(id(node))
        if found is not None:
            return found
        if node.end_mark is None:
            return 0, 0
        values, text = 1, 0
        for item in node.value:
            if isinstance(item, tuple):
                key, value = self._size(item[0]), self._size(item[1])
                values, text = values + value[0], text + key[1] + value[1]
            else:
                size = self._size(item)
                values, text = values + size[0], text + size[1]
        self.sizes[id(node)] = values, text
        return values, text

    def _over(self, alias: Any, message: str) -> LimitError:
        """`RC004` at the alias that passed a bound (or at the file), naming the bound it passed."""
        field = "max_yaml_nodes" if self.values > self.max_values else "max_yaml_bytes"
        span = Span(self.source, 1, 1) if alias is None else alias_span(self.source, alias)
        return LimitError([Diagnostic("RC004", message, span, **limit_advice(field))])


def alias_span(source: SourceFile, alias: Any) -> Span:
    """Where the alias `alias` (its event) is written: `*name`, on its line."""
    start, end = alias.start_mark, alias.end_mark
    line, col = start.line + 1, start.column + 1
    stop = end.column + 1 if end.line == start.line else col + 1
    return Span(source, line, col, line, max(stop, col + 1))
