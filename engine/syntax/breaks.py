"""The characters the YAML reader takes for a line break where nothing else does.

ruamel.yaml reads U+0085, U+2028 and U+2029 as line breaks (YAML 1.1's; YAML 1.2 and JSON do
not), yet counts lines at a newline only, as `SourceFile` does. One pasted into a comment ended
the comment there, and the rest of it was read as YAML: an RC002 about indentation or syntax at
a line that looks right. So one is refused where it is written, before the text is parsed: in
a comment, a plain or block scalar, or between values. Inside a quoted scalar it is left to the
reader, which takes it as a line break inside quotes (a U+2028 or U+2029 is kept, a U+0085 is
folded to a space; `tests/test_escaped_positions.py` loads such a title), and an escape
(`"\\u2028"`) is the character itself.

Where a quoted scalar starts and ends is told by ruamel's own scanner, run up to each such
character, only when the text holds one.
"""

from __future__ import annotations

import re

from ..errors import Diagnostic
from .clock import Clock
from .positions import SourceFile, Span

NAMES = {
    "\x85": "U+0085 (next line)",
    "\u2028": "U+2028 (line separator)",
    "\u2029": "U+2029 (paragraph separator)",
}
"""The characters YAML 1.1 counts as line breaks besides a newline and a carriage return."""

_BREAK = re.compile("[\x85\u2028\u2029]")
_QUOTES = ("'", '"')


def stray_break(source: SourceFile, clock: Clock | None = None) -> Diagnostic | None:
    """RC002 at the first U+0085, U+2028 or U+2029 outside a quoted scalar, or None when there is
    none. A scanner error before it is left for the load to tell; the `clock` is read as tokens
    are scanned, as the load reads it as values are composed."""
    text = source.text
    found = _BREAK.search(text)
    if found is None:
        return None
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    at = found.start()
    tokens = YAML(typ="rt").scan(text)
    try:
        for token in tokens:
            if clock is not None:
                clock.tick()
            if token.end_mark.index <= at:
                continue
            if getattr(token, "style", None) not in _QUOTES or token.start_mark.index > at:
                return _refused(source, at)
            found = _BREAK.search(text, token.end_mark.index)
            if found is None:
                return None
            at = found.start()
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        return None if mark is not None and mark.index < at else _refused(source, at)
    except YAMLError:  # the reader's own (a control character): the load tells it
        return None
    finally:
        tokens.close()
    return _refused(source, at)


def _refused(source: SourceFile, at: int) -> Diagnostic:
    text = source.text
    line = text.count("\n", 0, at) + 1
    col = at - (text.rfind("\n", 0, at) + 1) + 1
    escape = f"\\x{ord(text[at]):02x}" if text[at] == "\x85" else f"\\u{ord(text[at]):04x}"
    return Diagnostic(
        "RC002",
        f"a {NAMES[text[at]]} outside a quoted string: YAML reads it as a line break, so the rest "
        "of this line would be read as a line of its own",
        Span(source, line, col, line, col + 1),
        "end the line with a newline, or delete the character (it may not show); to put it in a "
        f'value, write it as an escape in a double-quoted string: "{escape}"',
    )
