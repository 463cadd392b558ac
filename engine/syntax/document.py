"""Stage 1 — load: YAML text to plain data that remembers where every key and value was.

ruamel.yaml's round-trip loader keeps 0-based positions on its containers; we copy the data
into plain dicts and lists (so later stages never see YAML types) and keep the positions in
a side table keyed by the path to each value. ruamel is imported only when YAML is read: a
document found in the cache (`cached.py`) never needs it.
"""

from __future__ import annotations

import errno
import math
import re
import warnings
from collections.abc import Callable, Mapping
from decimal import Decimal, InvalidOperation
from functools import cached_property, lru_cache, partial
from pathlib import Path
from typing import Any, Final

from ..errors import MAX_DIGITS, DeadlineError, Diagnostic, LimitError, LoadError, clipped, limit_advice
from ..frozen import frozen
from .breaks import stray_break
from .cachedir import read_regular
from .clock import Clock
from .expansion import Expansion, alias_span
from .positions import ExprOrigin, SourceFile, Span, decimal_text

PathKey = tuple[str | int, ...]


def _flow_width(text: str) -> int | None:
    """The width of the flow collection `text` starts with (`[5, 3]`, `{d: 6}`), to its closing
    bracket, quoted scalars skipped; None where it does not close on this line. (A flow list is
    shown whole; a flow mapping, such as a rule row, by its first key, as the docs show it.)"""
    depth, i, start = 0, 0, True
    # `start`: at the start of a scalar, where a quote opens a quoted one (not `don't`)
    while i < len(text):
        c = text[i]
        if start and c in "'\"":
            i += 1
            while i < len(text) and text[i] != c or text[i : i + 2] == "''" and c == "'":
                i += 2 if (c == '"' and text[i] == "\\") or text[i : i + 2] == "''" else 1
            start = False
        elif c in "[{,":
            depth += c != ","
            start = True
        elif c in "]}":
            depth -= 1
            if depth == 0:
                return i + 1
        elif c == "#" and text[i - 1] == " ":
            return None  # a comment: the collection goes on below
        elif c == ":" and (text[i + 1 : i + 2] in (" ", "") or text[i - 1 : i] in ("'", '"')):
            start = True  # a value next: after ': ', or right after a quoted key ('"k":"v"')
        elif c != " ":
            start = False
        i += 1
    return None


@frozen(slots=True)
class Place:
    """Where a value sits: its key (for mapping entries) and the value itself, 1-based."""

    key: tuple[int, int] | None
    value: tuple[int, int]


YAML11_BOOLEANS: Final = frozenset({"y", "yes", "n", "no", "on", "off"})
"""The words YAML 1.1 reads as true or false besides `true` and `false` (in any case), which YAML
1.2, rulecraft's default, reads as text: under `%YAML 1.1` a trigger's `on:` is the key `true`."""
YAML11_SAID: Final = "the file asks for YAML 1.1, which reads on, off, yes, no, y and n as true or false"
YAML11_HINT: Final = "quote the key ('{}':), or write %YAML 1.2 (or leave the %YAML line out)"


@frozen
class Document:
    """A loaded ruleset file: plain data plus the position of every value."""

    source: SourceFile
    data: Any
    places: Mapping[PathKey, Place]
    parts: tuple[tuple[PathKey, Document], ...] = ()
    """Values grafted in from other files (`graft`): each path prefix and the document it came
    from, which places every value under it in its own file."""
    aliases: tuple[tuple[PathKey, PathKey], ...] = ()
    """Each path an alias (`*name`) put a mapping or list at, and the path where that same node
    was first met: one mistake inside it is one place in the file, however often it is used."""

    def first_path(self, path: PathKey) -> PathKey:
        """The path by which the value at `path` is first reached in the file: `path` itself
        unless an alias leads to it, else the path of the anchored value (so a message about a
        value several aliases share names it the same way for every use)."""
        other = self._part(path)
        if other is not None:
            return other.first_path(path)
        path = tuple(path)
        for _ in range(len(self.aliases)):
            for use, first in self.aliases:
                if path[: len(use)] == use:
                    path = first + path[len(use) :]
                    break
            else:
                break
        return path

    def _part(self, path: PathKey) -> Document | None:
        for prefix, other in self.parts:
            if tuple(path[: len(prefix)]) == prefix:
                return other
        return None

    def span(self, path: PathKey, *, key: bool = False) -> Span:
        """The span of the value at `path` (or of its key), falling back to the nearest parent."""
        other = self._part(path)
        if other is not None:
            return other.span(path, key=key)
        probe = tuple(path)
        while probe and probe not in self.places:
            probe = probe[:-1]
        place = self.places.get(probe)
        if place is None:
            return Span(self.source, 1, 1)
        line, col = place.key if (key and place.key) else place.value
        width = self._token_width(line, col)
        return Span(self.source, line, col, line, col + width, self._through(tuple(path)))

    def _through(self, path: PathKey) -> int:
        """The line of the alias `path` is reached by (its key's: `let: *L`), where the value is
        written elsewhere; of the innermost, where the anchored value is itself reached through
        another; 0 when none, or the alias is not a mapping's value. A look-up per prefix of the
        path (`_uses`), not a pass over every alias: it is asked for every value compiled."""
        uses = self._uses
        line = 0
        for _ in range(len(uses)):  # each step moves to where an anchored value is written
            for n in range(len(path), 0, -1):
                first = uses.get(path[:n])
                if first is not None:
                    place = self.places.get(path[:n])
                    if place is not None and place.key is not None:
                        line = place.key[0]
                    path = first + path[n:]
                    break
            else:
                break
        return line

    @cached_property
    def _uses(self) -> dict[PathKey, PathKey]:
        """`aliases` by the path of each use (a use that is its own first path left out)."""
        return {use: first for use, first in self.aliases if first != use}

    def path_text(self, path: PathKey) -> str:
        """`path` as a message names it, dotted: by the path the file first reaches it by
        (`first_path`), each key as written (`key_text`: a decimal key with every digit)."""
        first = tuple(self.first_path(tuple(path)))
        return ".".join(self.key_text(first[: i + 1]) for i in range(len(first)))

    def boolean_key(self, path: PathKey) -> str | None:
        """The key at the end of `path` as the file writes it, when YAML 1.1 (a file's
        `%YAML 1.1`) read that word as true or false (`on:`, `Yes:`, `n:`); else None."""
        if str(path[-1]) not in ("true", "false"):
            return None
        text = self.span(path, key=True).text
        return text if text.lower() in YAML11_BOOLEANS else None

    def key_text(self, path: PathKey) -> str:
        """The key at the end of `path` as text: one YAML read as a float (a value table's `1e3`
        or `0.1000000000000000000001`, kept here as the float's text, 17 digits at most) as the
        decimal the file writes, every digit (`decimal_text`); any other as it is kept."""
        other = self._part(path)
        if other is not None:
            return other.key_text(path)
        key = path[-1]
        text = "" if key is None else str(key)
        place = self.places.get(tuple(path))
        if place is None or place.key is None or text.isdigit() or not _FLOAT_TEXT.fullmatch(text):
            return text
        line, col = place.key
        if self.source.line(line)[col - 1 : col] in ("'", '"'):  # written as text: kept as written
            return text
        return decimal_text(self.span(path, key=True), float(text))

    def span_later(self, path: PathKey, *, key: bool = False) -> Callable[[], Span]:
        """`span(path, key=key)`, worked out when called: for a check that nearly always
        passes, whose message alone needs the place (a load checks thousands of them)."""
        return partial(self.span, path, key=key)

    def _token_width(self, line: int, col: int) -> int:
        whole = self.source.line(line)
        text = whole[col - 1 :]
        if not text:
            return 1
        if text[0] in "'\"":
            end = text.find(text[0], 1)
            return end + 1 if end > 0 else len(text)
        if text[0] == "[" and (closed := _flow_width(text)) is not None:
            return closed
        stops = [": ", " #"]
        before = whole[: col - 1]
        if before.count("{") + before.count("[") > before.count("}") + before.count("]"):
            stops += [",", "}", "]"]  # inside a flow collection these end the value
        for stop in stops:
            cut = text.find(stop)
            if cut > 0:
                text = text[:cut]
        if text.endswith(":"):
            text = text[:-1]
        return max(1, len(text.rstrip()))

    def expr_origin(self, path: PathKey) -> ExprOrigin:
        """Where each character of the string at `path` sits in the file, for placing errors
        inside expressions — also when YAML folded lines or unescaped characters on the way."""
        other = self._part(path)
        if other is not None:
            return other.expr_origin(path)
        place = self.places.get(tuple(path))
        if place is None:
            return ExprOrigin(self.source, 1, 1, 0)
        line, col = place.value
        through = self._through(tuple(path))
        first = self.source.line(line)[col - 1 : col]
        value: Any = self.data
        for p in path:
            value = value[p]
        value = str(value)
        simple = "\n" not in value and first not in ("|", ">")
        if first in ("'", '"'):
            rest = self.source.line(line)[col:]
            closing = rest.find(first)
            simple = (
                simple
                and "\\" not in rest[: closing if closing >= 0 else None]
                and closing >= 0
                and first + first not in rest
            )
            if simple:
                return ExprOrigin(self.source, line, col + 1, 0, through=through)
        elif simple and self.source.line(line)[col - 1 :].rstrip().endswith(value.rstrip()[-1:] or " "):
            return ExprOrigin(self.source, line, col, 0, through=through)
        starts = self._line_starts()
        offset = starts[line - 1] + col - 1
        if first in ("'", '"'):
            offset += 1
        elif first in ("|", ">"):
            offset = starts[line] if line < len(starts) else offset
        breaks = (0, *(i + 1 for i, ch in enumerate(value) if ch == "\n"))
        aligned = _align(value, self.source.text, offset, starts, quote=first)
        return ExprOrigin(self.source, line, col, 0, aligned, breaks, through)

    def _line_starts(self) -> list[int]:
        return list(self.source.line_starts)


_ESCAPED = dict(zip('0abtnvfre "/\\N_LP\t', '\0\a\b\t\n\v\f\r\x1b "/\\\x85\xa0\u2028\u2029\t', strict=True))
"""What each one-letter escape of a double-quoted YAML scalar stands for."""
_HEX = {"x": 2, "u": 4, "U": 8}


def _escape(text: str, i: int) -> tuple[str, int] | None:
    """The character the escape at `text[i]` (a backslash, in a double-quoted scalar) stands for,
    and how many characters of the source it takes; None for a line continuation or a bad one."""
    letter = text[i + 1 : i + 2]
    if letter in _ESCAPED:
        return _ESCAPED[letter], 2
    digits = _HEX.get(letter)
    if digits is not None:
        try:
            return chr(int(text[i + 2 : i + 2 + digits], 16)), 2 + digits
        except ValueError:
            return None
    return None


def _align(
    value: str, text: str, offset: int, starts: list[int], *, quote: str = ""
) -> tuple[tuple[int, int, int], ...]:
    """The (line, col, width) in `text` of each character of `value`, read from `offset` on: the
    columns it takes there, so a caret under a token ending in one spans all of it.

    Source characters that produce nothing in the value (quotes, the indentation YAML strips) are
    skipped, and a folded line break stands for a space. In a double-quoted scalar (`quote` '"') an
    escape such as `\\t` or `\\u006f` is the one character it stands for, placed at its backslash
    and as wide as the escape; in a single-quoted one (`quote` "'"), so is `''` for one quote."""
    import bisect

    out: list[tuple[int, int, int]] = []
    i = offset
    for ch in value:
        found = _escape(text, i) if quote == '"' and i < len(text) and text[i] == "\\" else None
        if found is None and quote == "'" and ch == "'" and text[i : i + 2] == "''":
            found = ch, 2
        if found is not None and found[0] == ch:
            ln = bisect.bisect_right(starts, i)
            out.append((ln, i - starts[ln - 1] + 1, found[1]))
            i += found[1]
            continue
        while i < len(text) and text[i] != ch and not (ch == " " and text[i] == "\n"):
            i += 1
        j = min(i, len(text) - 1) if text else 0
        ln = bisect.bisect_right(starts, j)
        out.append((ln, j - starts[ln - 1] + 1, 1))
        if i < len(text) and ch == " " and text[i] == "\n":
            i += 1
            while i < len(text) and text[i] in " \t":
                i += 1
        else:
            i += 1
    return tuple(out)


def graft(base: Document, other: Document, path: PathKey) -> Document:
    """`base` with the value at `path` in `other` put at the same path in it: one document in which
    every value still reports the line and column of its own file (a scene file added to a
    ruleset). The mappings along the path are copied; neither document is changed."""
    data = dict(base.data)
    here, there = data, other.data
    for key in path[:-1]:
        there = there[key]
        here[key] = dict(here.get(key) or {})
        here = here[key]
    here[path[-1]] = there[path[-1]]
    return Document(base.source, data, base.places, (*base.parts, (tuple(path), other)))


def read_source(path: Path, name: str | None = None, max_bytes: int | None = None) -> SourceFile:
    """A `SourceFile` from a file. Only a `Path` is ever opened: text is never taken for a file name.

    Bounded before it is read: only a regular file is opened (a pipe would wait for a writer, a
    device such as /dev/zero never ends), and no more than `max_bytes` of it is read (`RC004`
    from its size, before reading, as `load` says of text; by default `MAX_YAML_BYTES`). Every
    error names the file as `name` does, when given: a server serves it by its file name alone."""
    if max_bytes is None:
        max_bytes = MAX_YAML_BYTES
    shown = name or str(path)
    try:
        found = read_regular(path, max_bytes)
    except ValueError:  # a NUL in the path, which no file's name holds (hunt 13k)
        raise LoadError(
            [Diagnostic("RC001", f"cannot read {clipped(ascii(shown))}: a file's name holds no NUL", None)],
            missing=True,
        ) from None
    except OSError as exc:
        # only a file not there names nothing (a server's 404): one there that cannot be read (a
        # symlink loop, no permission) is a file that does not load, as a pipe is (hunt 13i)
        raise LoadError(
            [Diagnostic("RC001", f"cannot read {shown}: {exc.strerror or exc}", None)],
            missing=exc.errno in (errno.ENOENT, errno.ENOTDIR),
        ) from None
    if found is None:
        raise LoadError([Diagnostic("RC001", f"cannot read {shown}: not a regular file", None)])
    data, size = found
    if len(data) > max_bytes:  # its size, told without reading the rest
        raise _too_big(
            f"the file is {max(size, len(data)):,} bytes, over the limit of {max_bytes:,}",
            Span(SourceFile(shown, _first_line(data)), 1, 1),
            "max_yaml_bytes",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _not_utf8(SourceFile(shown, line_ends(data.decode("utf-8", "replace"))), data, exc) from None
    return SourceFile(shown, line_ends(text))


def newlines(source: SourceFile) -> SourceFile:
    """`source` with its line ends as a file's are read (`line_ends`), for text given as a string:
    the YAML reader counts a lone CR as a line and `SourceFile` does not, so a ruleset sent with
    CR line ends placed its values past its last line (an `IndexError`, a 500 from the server;
    found by a review). A load reads it before anything else, its cache key too (review AD)."""
    return SourceFile(source.name, line_ends(source.text)) if "\r" in source.text else source


def line_ends(text: str) -> str:
    """Line ends as Python's text mode reads them: a CR LF or a lone CR is one newline (as every
    ruleset is read; a campaign made of text read otherwise compares its kept text so)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _not_utf8(shown: SourceFile, data: bytes, exc: UnicodeDecodeError) -> LoadError:
    """RC001 at the first byte that is not UTF-8, with its line (as decoded with a stand-in for
    each bad byte) and a caret under it."""
    before = data[: exc.start]
    line = line_ends(before.decode("utf-8", "replace")).count("\n") + 1
    start = max(before.rfind(b"\n"), before.rfind(b"\r")) + 1
    col = len(before[start:].decode("utf-8", "replace")) + 1
    return LoadError(
        [
            Diagnostic(
                "RC001",
                f"{shown.name} is not UTF-8 text: byte 0x{data[exc.start]:02x} here cannot be read as UTF-8",
                Span(shown, line, col, line, col + 1),
                "save the file as UTF-8",
            )
        ]
    )


MAX_YAML_BYTES = 512 * 1024
MAX_YAML_DEPTH = 64
MAX_YAML_NODES = 100_000


def load(
    source: SourceFile,
    *,
    max_bytes: int = MAX_YAML_BYTES,
    max_depth: int = MAX_YAML_DEPTH,
    max_nodes: int = MAX_YAML_NODES,
    clock: Clock | None = None,
) -> Document:
    """Parse YAML into a `Document`; a YAML error becomes a `LoadError` at its position.

    Untrusted text is bounded before and while it is read: its size (`max_bytes`), how deeply
    mappings and lists nest (`max_depth`), how many values it holds once aliases are expanded
    (`max_nodes`, merge keys' too) and how much text it then holds (`EXPANDED_TEXT` times
    `max_bytes`; both counted as it is composed, at the alias that passes them: `expansion.py`)
    — each a `LimitError` `RC004`; a number that is not finite or is written with
    more than `MAX_DIGITS` digits is `RC005`; an explicit tag other than the core schema's, or a
    value its tag cannot be made from, is `RC002` at the tag, so only JSON-like data is made; a
    U+0085, U+2028 or U+2029 outside a quoted scalar, which the reader would take for a line
    break, is `RC002` at it (`breaks.py`).

    A `clock` (a load under a deadline: `api.load_source(deadline=)`) is read as values are
    composed, constructed and copied, so a text too large to read in time ends in the
    `DeadlineError` it raises, as the compile's does: unplaced, since no value of the text is at
    fault (`tests/test_load_reporting.py`).

    Line ends are read as a file's are (`newlines`), for text given as a string too."""
    source = newlines(source)
    size = len(source.text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise _too_big(
            f"the ruleset is {size:,} bytes, over the limit of {max_bytes:,}",
            Span(SourceFile(source.name, _over_line(source.text.partition("\n")[0])), 1, 1),
            "max_yaml_bytes",
        )
    deep = _flow_too_deep(source.text, max_depth)
    if deep is not None:
        line = source.text.count("\n", 0, deep) + 1
        col = deep - (source.text.rfind("\n", 0, deep) + 1) + 1
        raise _too_big(
            f"mappings and lists are nested more than {max_depth} deep",
            Span(source, line, col),
            "max_yaml_depth",
        )
    stray = stray_break(source, clock)
    if stray is not None:
        raise LoadError([stray])
    version = next((v for v in _YAML_DIRECTIVE.finditer(source.text) if v[2] not in ("1.1", "1.2")), None)
    if version is not None:
        # ruamel's reader asserts on any other 1.x (an AssertionError, not a YAML error)
        line = source.text.count("\n", 0, version.start(2)) + 1
        col = version.start(2) - (source.text.rfind("\n", 0, version.start(2)) + 1) + 1
        raise LoadError(
            [
                Diagnostic(
                    "RC002",
                    f"YAML syntax error: the file asks for YAML {version[2]}, and rulecraft reads YAML 1.2"
                    " (and 1.1)",
                    Span(source, line, col, line, col + len(version[2])),
                    "write %YAML 1.2, or leave the %YAML line out",
                )
            ]
        )
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.composer import MaxDepthExceededError
    from ruamel.yaml.error import MarkedYAMLError, ReusedAnchorWarning, YAMLError
    from ruamel.yaml.reader import ReaderError

    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    yaml.max_depth = max_depth
    yaml.Composer = _composer()
    yaml.Constructor = _constructor()
    if clock is not None:
        yaml.composer.clock = yaml.constructor.clock = clock
    yaml.composer.expansion = Expansion(source, max_nodes, max_bytes)
    try:
        with warnings.catch_warnings():
            # YAML lets an anchor be defined again (later aliases mean the newer one);
            # ruamel only warns, and a warning is not ours to print.
            warnings.simplefilter("ignore", ReusedAnchorWarning)
            tree = yaml.load(source.text)
    except MaxDepthExceededError as exc:
        mark = exc.problem_mark
        span = Span(source, mark.line + 1, mark.column + 1) if mark else None
        raise _too_big(
            f"mappings and lists are nested more than {max_depth} deep", span, "max_yaml_depth"
        ) from None
    except _BadNumber as exc:  # and `_Surrogate`, each with its code
        span = Span(source, exc.mark.line + 1, exc.mark.column + 1, exc.mark.line + 1, exc.end)
        raise LoadError([Diagnostic(exc.code, exc.message, span, exc.hint)]) from None
    except _BadTag as exc:
        raise LoadError([_tag_diagnostic(source, exc)]) from None
    except _SelfAlias as exc:
        raise LoadError([exc.diagnostic(source)]) from None
    except _SameKey as exc:
        line, col = exc.mark.line + 1, exc.mark.column + 1
        end = exc.end.column + 1 if exc.end.line == exc.mark.line else col + 1
        span = Span(source, line, col, line, max(end, col + 1))
        raise LoadError([Diagnostic("RC002", exc.message, span, exc.hint)]) from None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        span = Span(source, mark.line + 1, mark.column + 1) if mark else None
        problem = (exc.problem or exc.context or "invalid YAML").strip()
        from .yaml_errors import explain

        told = explain(
            source,
            str(exc.problem or ""),
            (exc.problem_mark.line + 1, exc.problem_mark.column + 1) if exc.problem_mark else None,
            str(exc.context or ""),
            (exc.context_mark.line + 1, exc.context_mark.column + 1) if exc.context_mark else None,
        )
        if told is not None:
            raise LoadError([Diagnostic("RC002", told.message, told.span, told.hint)]) from None
        hint = None
        twice = _DUPLICATE.match(str(exc.problem or ""))
        if twice is not None:  # ruamel's words hold the key and both values, shown as Python data
            first = _first_line_of(source.text, twice.group(1), mark.line if mark else 0)
            problem = f"the key '{twice.group(1)}' appears twice in one mapping"
            hint = "each key may appear once in a mapping"
            hint += f"; the first is on line {first}" if first else ""
        raise LoadError([Diagnostic("RC002", f"YAML syntax error: {problem}", span, hint)]) from None
    except ReaderError as exc:
        raise LoadError([_unacceptable(source, exc.position, exc.character)]) from None
    except YAMLError as exc:
        raise LoadError([Diagnostic("RC002", f"YAML error: {exc}", Span(source, 1, 1))]) from None
    except AssertionError as exc:  # ruamel's reader asserts on a %YAML version (`_YAML_DIRECTIVE`)
        if "version" not in str(exc):
            raise
        said = f"YAML syntax error: the file asks for a YAML version rulecraft does not read ({exc})"
        raise LoadError([Diagnostic("RC002", said, Span(source, 1, 1), "write %YAML 1.2")]) from None
    except RecursionError:  # a safety net: max_depth's ceiling is below Python's own limit
        said = "mappings and lists are nested too deeply for the YAML reader"
        raise LimitError([Diagnostic("RC004", said, Span(source, 1, 1), "nest them less deeply")]) from None
    kinds: _Kinds = (CommentedMap, CommentedSeq)
    places: dict[PathKey, Place] = {(): Place(None, (1, 1))}
    met = _Met()
    try:
        _count(tree, max_nodes, kinds)
        data = _plain(tree, (), places, _Budget(max_nodes, clock), kinds, met)
    except DeadlineError:  # the load's, not the file's: as it came
        raise
    except LimitError as exc:  # a count of the whole file's values: placed at the file
        raise LimitError(
            [d.retold(d.code, d.message, d.span or Span(source, 1, 1)) for d in exc.diagnostics]
        ) from None
    return Document(source, data, places, aliases=tuple(met.uses))


_DUPLICATE = re.compile(r'found duplicate key "(.*?)" with value')


_FLOAT_TEXT = re.compile(r"[-+]?[0-9]+(?:\.[0-9]*)?(?:e[-+]?[0-9]+)?")
"""The text of a float (`str(float)`), as a key YAML read as a float is kept (`key_text`)."""

_YAML_DIRECTIVE = re.compile(
    r"(?:\A\ufeff?|^\.\.\.[ \t]*(?:#[^\n]*)?\n)(?:(?:[ \t]*(?:#[^\n]*)?|%[^\n]*)\n)*?(%YAML[ \t]+)(\S+)",
    re.MULTILINE,
)
"""A `%YAML` directive among the lines before a document (at the start of the text, a byte-order
mark aside, or after a document's end `...`; blank lines, comments and other directives before
it), and the version it names."""


def _first_line_of(text: str, key: str, line: int) -> int | None:
    """The line (1-based) of the nearest `key:` above the 0-based `line` at the same indentation,
    where a mapping's repeated key was first written (None when it is not found so simply)."""
    lines = text.split("\n")  # as the YAML reader counts lines (`SourceFile.lines`)
    if line >= len(lines):
        return None
    indent = len(lines[line]) - len(lines[line].lstrip(" -"))
    for number in range(line - 1, -1, -1):
        above = lines[number]
        stripped = above.lstrip(" -")
        if stripped and len(above) - len(stripped) < indent and not stripped.startswith("#"):
            return None  # left the mapping
        if len(above) - len(stripped) == indent and re.match(rf"{re.escape(key)}\s*:", stripped):
            return number + 1
    return None


_FLOW_CHARS = re.compile(r"""[\[\]{}'"#\n]""")
_STRUCTURAL = frozenset(":-?[{,\n")


def _flow_too_deep(text: str, limit: int) -> int | None:
    """Where flow collections (`[...]`, `{...}`) first nest more than `limit` deep, or None.

    ruamel's scanner looks ahead through a whole flow collection for a possible key, which takes
    time quadratic in its nesting, before its composer could count the depth; this cheap pass
    over the text comes first. Quoted scalars and comments are skipped; in block context a bracket
    counts only where a flow collection may start (`key: [`, `- {`, the start of a line)."""
    depth = 0
    skip_to = 0
    for m in _FLOW_CHARS.finditer(text):
        i = m.start()
        if i < skip_to:
            continue
        ch = text[i]
        if ch == "\n":
            continue
        if ch == "#":
            if i == 0 or text[i - 1] in " \t\n":
                end = text.find("\n", i)
                skip_to = len(text) if end < 0 else end
            continue
        if ch in "'\"":
            if depth == 0 and not _at_structural(text, i):
                continue  # an apostrophe inside plain text
            skip_to = _quote_end(text, i)
            continue
        if ch in "[{":
            if depth > 0 or _at_structural(text, i):
                depth += 1
                if depth > limit:
                    return i
        elif depth > 0:
            depth -= 1
    return None


def _at_structural(text: str, i: int) -> bool:
    """Whether a flow collection or quoted scalar may start at `i`: after an indicator, at the
    start of a line, or after an anchor or a tag."""
    j = i - 1
    while j >= 0 and text[j] in " \t":
        j -= 1
    if j < 0 or text[j] in _STRUCTURAL:
        return True
    start = j
    while start >= 0 and text[start] not in " \t\n":
        start -= 1
    return text[start + 1] in "&!" and j < i - 1


def _quote_end(text: str, i: int) -> int:
    """Just after the quoted scalar that opens at `i` (the end of the text if it never closes)."""
    quote = text[i]
    j = i + 1
    while True:
        k = text.find(quote, j)
        if k < 0:
            return len(text)
        if quote == "'":
            if text.startswith("''", k):
                j = k + 2
                continue
            return k + 1
        backslashes = 0
        while text[k - 1 - backslashes] == "\\":
            backslashes += 1
        if backslashes % 2 == 0:
            return k + 1
        j = k + 1


def _unacceptable(source: SourceFile, position: Any, character: Any) -> Diagnostic:
    """A character YAML does not allow in its text (a control character, a lone surrogate), at its
    own line and column: ruamel tells its index in the text, not a mark."""
    text = source.text
    if not isinstance(position, int) or not 0 <= position < len(text):
        return Diagnostic(
            "RC002", "YAML error: the text holds a character YAML does not allow", Span(source, 1, 1)
        )
    line = text.count("\n", 0, position) + 1
    col = position - (text.rfind("\n", 0, position) + 1) + 1
    code = character if isinstance(character, int) else ord(text[position])
    escape = f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    return Diagnostic(
        "RC002",
        f"YAML error: the text holds a character YAML does not allow (U+{code:04X}, a control "
        "character or a lone surrogate)",
        Span(source, line, col, line, col + 1),
        f'delete it (it does not show); a double-quoted string may spell a control character "{escape}"',
    )


def _first_line(data: bytes) -> str:
    """The first line of a file's first bytes, when they hold it whole, else nothing: what a file
    over `max_yaml_bytes` shows under its place, 1:1, as a text over it shows its first line (it
    showed none, found by a hunt); the rest was never read, and a line cut short is not shown.
    Its line ends are a file's (`line_ends`: a lone CR ends it too)."""
    line, newline, _ = line_ends(data.decode("utf-8", "replace")).partition("\n")
    return _over_line(line) if newline else ""


def _over_line(line: str) -> str:
    """The first line a text or file over `max_yaml_bytes` shows under its place, 1:1, cut as a
    message cuts a value (`clipped`): a file of one long line (150 KB) made an error as long."""
    return clipped(line) + "\n"


def _too_big(message: str, span: Span | None, field: str) -> LimitError:
    return LimitError([Diagnostic("RC004", message, span, **limit_advice(field))])


class _BadNumber(Exception):
    """A number a ruleset cannot use (not finite, too many digits): RC005 at it."""

    code = "RC005"

    def __init__(self, message: str, mark: Any, end: int, hint: str) -> None:
        super().__init__(message)
        self.message, self.mark, self.end, self.hint = message, mark, end, hint


class _Surrogate(_BadNumber):
    """A double-quoted scalar whose escape (`\\ud800`) makes a lone surrogate: RC002 at it,
    placed and told as a bad number is."""

    code = "RC002"


_SURROGATE = re.compile("[\ud800-\udfff]")


_NUMBER_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")
_CORE = "tag:yaml.org,2002:"
_SCALAR_TAGS = {
    _CORE + "str": "text",
    _CORE + "int": "a whole number",
    _CORE + "float": "a number",
    _CORE + "bool": "true or false",
    _CORE + "null": "null",
}
_COLLECTION_TAGS = {_CORE + "seq": "a list", _CORE + "map": "a mapping"}
_ALLOWED_TAGS = "!!str, !!int, !!float, !!bool, !!null, !!seq and !!map"
_NULLS = frozenset(("", "~", "null", "Null", "NULL"))
_WRITTEN_TAG = re.compile(r"!(<[^>]*>|[^\s,\[\]{}]*)")


class _BadTag(Exception):
    """An explicit tag a ruleset does not take, or a value its tag cannot be made from: refused
    where the tag is written, before or while the value is constructed."""

    def __init__(self, message: str, mark: Any, hint: str, end: Any = None) -> None:
        super().__init__(message)
        self.message, self.mark, self.hint, self.end = message, mark, hint, end


def _tag_diagnostic(source: SourceFile, exc: _BadTag) -> Diagnostic:
    """RC002 at the tag as written (the node's mark may be at its anchor, `&a !!int x`), and on
    through its value when that is what is wrong and on the same line."""
    line, col = exc.mark.line + 1, exc.mark.column + 1
    text = source.line(line)
    found = _WRITTEN_TAG.search(text, col - 1)
    if found is not None:
        col, end = found.start() + 1, found.end() + 1
    else:
        end = col + 1
    if exc.end is not None and exc.end.line == exc.mark.line:
        end = max(end, exc.end.column + 1)
    return Diagnostic("RC002", exc.message, Span(source, line, col, line, end), exc.hint)


def _shown_tag(tag: str) -> str:
    """A resolved tag as an author writes it: `!!int` for YAML's own, `!foo` as it is."""
    return "!!" + tag[len(_CORE) :] if tag.startswith(_CORE) else tag


def _check_tag(event: Any) -> None:
    """Refuse an explicit tag other than the core schema's, or one on the wrong kind of node.

    A ruleset's data is JSON-like (text, numbers, true/false, null, lists, mappings); YAML's
    other tags (`!!set`, `!!omap`, `!!binary`, `!!timestamp`), local ones (`!foo`) and
    language-specific ones (`!!python/...`) would make something else or be read silently."""
    from ruamel.yaml.events import ScalarEvent

    ctag = getattr(event, "ctag", None)
    if ctag is None:
        return
    tag = str(ctag)
    mark = event.start_mark
    scalar = isinstance(event, ScalarEvent)
    kind = _SCALAR_TAGS.get(tag) or _COLLECTION_TAGS.get(tag)
    if kind is None:
        raise _BadTag(
            f"the tag '{_shown_tag(tag)}' is not one a ruleset may use",
            mark,
            f"remove it: a ruleset holds only text, numbers, true/false, null, lists and mappings, "
            f"and the only tags are {_ALLOWED_TAGS}",
        )
    if scalar != (tag in _SCALAR_TAGS):
        written = (
            "a single value" if scalar else ("a list" if "Sequence" in type(event).__name__ else "a mapping")
        )
        raise _BadTag(
            f"the tag '{_shown_tag(tag)}' makes {kind}, but {written} is written here",
            mark,
            f"remove the tag '{_shown_tag(tag)}'",
        )
    if tag == _CORE + "null" and str(event.value).strip() not in _NULLS:
        raise _BadTag(
            f"{str(event.value)!r} is not null, which its tag '!!null' says it is",
            mark,
            "write null (or nothing), or remove the tag '!!null'",
            event.end_mark,
        )


_NOT_FINITE = re.compile(r"^[-+]?\.(inf|nan)$", re.IGNORECASE)


@lru_cache(maxsize=1)
def _composer() -> Any:
    """The composer class below, made on first use: ruamel is imported only then."""
    from ruamel.yaml.composer import Composer
    from ruamel.yaml.events import AliasEvent
    from ruamel.yaml.nodes import MappingNode

    class _Composer(Composer):
        """ruamel's composer, refusing before conversion the numbers Python would choke on or that
        have no place in a ruleset: NaN, infinities and numbers of more than `MAX_DIGITS` digits."""

        clock: Clock | None = None
        """The load's clock (`load(clock=)`), read as values are composed."""
        expansion: Expansion | None = None
        """The load's count of what the text stands for, aliases expanded, told of each node."""

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.clock is not None:
                self.clock.tick()
            event = self.parser.peek_event()
            if isinstance(event, AliasEvent) and event.anchor in self.anchors:
                target = self.anchors[event.anchor]
                if target.end_mark is None:  # a list or mapping still being composed: the alias is in it
                    raise _SelfAlias(event, target)
            if self.expansion is not None:
                key = isinstance(parent, MappingNode) and index is None
                if not isinstance(event, AliasEvent):
                    self.expansion.write(event, key=key)
                elif event.anchor in self.anchors:  # else the composer's own error
                    self.expansion.use(event, self.anchors[event.anchor], key=key)
            if getattr(event, "ctag", None) is not None:  # an alias has none
                _check_tag(event)
            return super().compose_node(parent, index)

        def compose_scalar_node(self, anchor: Any) -> Any:
            node = super().compose_scalar_node(anchor)
            if node.style == '"' and (found := _SURROGATE.search(node.value)):
                # only an escape makes one (a file's own bytes are UTF-8, refused before): no
                # terminal, file or store can write it, so `show` and `roll` ended in a
                # UnicodeEncodeError traceback on a title that validated (hunt 13m)
                mark, stop = node.start_mark, node.end_mark
                raise _Surrogate(
                    f"this text holds the lone surrogate {ascii(found[0])[1:-1]}, which is not a character",
                    mark,
                    stop.column + 1 if stop.line == mark.line else mark.column + 2,
                    "write the character itself, or its whole code point as \\U and eight hex digits "
                    "(\\U0001F600, not the pair \\ud83d\\ude00)",
                )
            if str(node.tag) in _NUMBER_TAGS and node.style is None:
                text = str(node.value)
                mark = node.start_mark
                end = mark.column + 1 + len(text)
                if _NOT_FINITE.match(text.strip()):
                    raise _BadNumber(
                        f"{text.strip()} is not a number a ruleset can use",
                        mark,
                        end,
                        "numbers in a ruleset are finite: no .nan, .inf or -.inf",
                    )
                if str(node.tag).endswith("float") and not _finite(text):
                    raise _BadNumber(
                        f"{text.strip()} is too large to be a number a ruleset can use",
                        mark,
                        end,
                        "numbers in a ruleset are finite",
                    )
                digits = sum(ch.isdigit() for ch in text)
                out = _written_out(text) if str(node.tag).endswith("float") else 0  # `1e308`: 309
                if out > MAX_DIGITS and digits <= MAX_DIGITS and len(text) <= 4 * MAX_DIGITS:
                    raise _BadNumber(
                        f"{text.strip()} has {out} digits written out, over the limit of {MAX_DIGITS}",
                        mark,
                        end,
                        f"numbers in a ruleset have at most {MAX_DIGITS} digits",
                    )
                if digits > MAX_DIGITS or len(text) > 4 * MAX_DIGITS:
                    raise _BadNumber(
                        f"a number written with {digits} digits, over the limit of {MAX_DIGITS}",
                        mark,
                        end,
                        f"numbers in a ruleset have at most {MAX_DIGITS} digits",
                    )
            return node

    return _Composer


def _written_out(text: str) -> int:
    """How many digits a YAML float has written out in full (`1e308`: 309; `1e-400`: 400), as a
    ruleset's numbers are read (`positions.decimal_text`); 0 where it is no decimal."""
    try:
        _, digits, exponent = Decimal(text.strip().replace("_", "")).as_tuple()
    except (InvalidOperation, ValueError):
        return 0
    if not isinstance(exponent, int):  # not finite: told as such
        return 0
    return len(digits) + exponent if exponent >= 0 else max(len(digits), -exponent)


@lru_cache(maxsize=1)
def _constructor() -> Any:
    """ruamel's round-trip constructor, telling a value its tag cannot be made from (`!!int six`,
    `!!bool maybe`) as a `_BadTag` at the node: ruamel lets Python's own error through."""
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.constructor import RoundTripConstructor
    from ruamel.yaml.error import YAMLError
    from ruamel.yaml.nodes import ScalarNode

    class _Map(CommentedMap):
        """ruamel's mapping, told of each mapping that merges it (`<<: *m`) without comparing the
        newcomer with every earlier one, each a full copy of a mapping (`cm not in self._ref`):
        J merges of a mapping of K keys cost J²·K, 25 000 merges of one key over a minute."""

        __slots__ = ()

        def add_referent(self, cm: Any) -> None:
            if not self._ref or self._ref[-1] is not cm:
                self._ref.append(cm)

    class _Constructor(RoundTripConstructor):
        clock: Clock | None = None
        """The load's clock (`load(clock=)`), read as values are constructed."""

        def construct_yaml_map(self, node: Any) -> Any:
            """ruamel's own, making a `_Map`."""
            data = _Map()
            data._yaml_set_line_col(node.start_mark.line, node.start_mark.column)
            yield data
            self.construct_mapping(node, data, deep=True)
            self.set_collection_style(data, node)

        def check_mapping_key(self, node: Any, key_node: Any, mapping: Any, key: Any, value: Any) -> bool:
            if not isinstance(key_node, ScalarNode):  # a mapping or list as a key: no message shows one
                raise _shaped_key(key_node)
            if key in mapping and not self.allow_duplicate_keys:
                raise _twice(node, key_node, key, self.constructed_objects)
            return bool(super().check_mapping_key(node, key_node, mapping, key, value))

        def construct_non_recursive_object(self, node: Any, tag: Any = None) -> Any:
            if self.clock is not None:
                self.clock.tick()
            try:
                return super().construct_non_recursive_object(node, tag)
            except (YAMLError, RecursionError, _BadTag, _SameKey, DeadlineError):
                raise
            except Exception:
                shown = _shown_tag(str(tag if tag is not None else node.tag))
                kind = _SCALAR_TAGS.get(str(tag if tag is not None else node.tag), "the value its tag names")
                value = node.value if isinstance(node.value, str) else None
                what = f"{value!r} is not" if value is not None else "the value here cannot be made into"
                raise _BadTag(
                    f"{what} {kind}, which its tag '{shown}' says it is",
                    node.start_mark,
                    f"write {kind} there, or remove the tag '{shown}'",
                    node.end_mark,
                ) from None

    _Constructor.add_constructor("tag:yaml.org,2002:map", _Constructor.construct_yaml_map)
    # a plain date (`source: 2019-05-03`) is text, as YAML 1.2's core schema and every JSON
    # Schema validator read it: ruamel made a `datetime.date`, which the schema check then
    # refused as "a value YAML could not give plainly" (hunt 13m); `!!timestamp` written out is
    # still refused at its tag (`_check_tag`)
    _Constructor.add_constructor("tag:yaml.org,2002:timestamp", _Constructor.construct_yaml_str)
    return _Constructor


class _SelfAlias(Exception):
    """An alias inside the very list or mapping its anchor names (`&d [a, *d]`, `&m {<<: *m}`):
    ruamel composes a cycle, which its constructor reads as null (or, merged, as a bad `!!map`)
    — a wrong reading, not data. Refused at the alias, as it is composed."""

    def __init__(self, event: Any, target: Any) -> None:
        super().__init__(event.anchor)
        self.event, self.target = event, target

    def diagnostic(self, source: SourceFile) -> Diagnostic:
        name, anchor = self.event.anchor, self.target.start_mark
        where = (
            f" (&{name} is on line {anchor.line + 1})" if anchor.line != self.event.start_mark.line else ""
        )
        return Diagnostic(
            "RC002",
            f"the alias *{name} is used inside the value its anchor &{name} names: a value cannot "
            "contain itself",
            alias_span(source, self.event),
            f"write the value out in full here, or put the anchor on a part of it that does not hold "
            f"*{name}{where}",
        )


class _SameKey(Exception):
    """A key of a mapping that an earlier key of it equals, or one that is no key at all
    (`_shaped_key`): at the later key."""

    def __init__(self, message: str, mark: Any, end: Any, hint: str) -> None:
        super().__init__(message)
        self.message, self.mark, self.end, self.hint = message, mark, end, hint


_KINDS_OF_KEY = {_CORE + "bool": "true/false", _CORE + "int": "number", _CORE + "float": "number"}


def _twice(node: Any, key_node: Any, key: Any, constructed: Mapping[Any, Any]) -> _SameKey:
    """The key `key_node` repeats one written before it in the mapping `node`, told with both
    as written (ruamel's words show Python's `True`). Keys YAML 1.2 holds apart but that stand
    for one value here are told so: `1` and `true` (an untyped table's case `true` matches 1, as the
    language reference says), `1` and `1.0` (one exact number)."""
    first = next(
        (
            k
            for k, _ in node.value
            if k is not key_node and k in constructed and _same(constructed[k], key) and _written(k)
        ),
        None,
    )
    second = _shown_key(key_node)
    line = f"; the first is on line {first.start_mark.line + 1}" if first is not None else ""
    if first is None or str(first.tag) == str(key_node.tag):  # one value to YAML too
        spelt = (
            f" (written '{_written(first)}' first)" if first is not None and _written(first) != second else ""
        )
        return _SameKey(
            f"YAML syntax error: the key '{second}' appears twice in one mapping{spelt}",
            key_node.start_mark,
            key_node.end_mark,
            f"each key may appear once in a mapping{line}",
        )
    kinds = {_KINDS_OF_KEY.get(str(k.tag), "") for k in (first, key_node)}
    truth = "true/false" in kinds
    why = "true equals 1 and false equals 0 here" if truth else "they are one number"
    return _SameKey(
        f"the keys '{_written(first)}' and '{second}' of one mapping are the same key to rulecraft: {why}",
        key_node.start_mark,
        key_node.end_mark,
        f"keep one of them{line}"
        + (" (an untyped table's case true matches 1, and 1 matches true)" if truth else ""),
    )


def _shaped_key(key_node: Any) -> _SameKey:
    """A mapping or list written as a key (`{a: {{x: 1}}}`, `{[1, 2]: 3}`, `? [a]`): no key of a
    ruleset is one, and a message naming it showed Python's own text for it (`unknown key
    'ordereddict([('x', 1)])'`, `checks.c.inputs.(1, 2)`). Told at the load, at the key, as a
    key written twice is (one place for every mapping of the file)."""
    from ruamel.yaml.nodes import SequenceNode

    if isinstance(key_node, SequenceNode):
        what, hint = "a list", "write a name before it ('name: […]'), or quote it to keep it as text"
    else:
        what = "a mapping"
        hint = (
            "write a name before it ('name: {…}'), or remove the braces that make it a key "
            "(braces inside braces with no key before them make a key)"
        )
    return _SameKey(
        f"{what} is written as a key here; a key is a name, a number or true/false",
        key_node.start_mark,
        key_node.end_mark,
        hint,
    )


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # a key of a kind that does not compare: not the same
        return False


def _shown_key(key_node: Any) -> str:
    """A key as an author would recognise it: as written, or `[…]`/`{…}` for a list or mapping."""
    from ruamel.yaml.nodes import SequenceNode

    return _written(key_node) or ("[…]" if isinstance(key_node, SequenceNode) else "{…}")


def _written(key_node: Any) -> str:
    """A scalar key as written, without quotes or tag ('' for a mapping or list used as a key)."""
    value = getattr(key_node, "value", None)
    return value if isinstance(value, str) else ""


def _finite(text: str) -> bool:
    try:
        return math.isfinite(float(text.replace("_", "")))
    except ValueError:
        return True  # a form Python does not read (YAML 1.1 sexagesimal): ruamel's to judge


_Kinds = tuple[Any, Any]
"""ruamel's mapping and list types, handed down once it is imported."""


def _count(tree: Any, limit: int, kinds: _Kinds) -> None:
    """Refuse, before anything expands them, aliases that would stand for more than `limit` values
    (each shared value is counted once per use, but visited once) or that contain themselves."""
    sizes: dict[int, int] = {}
    busy: set[int] = set()

    def size(node: Any) -> int:
        if not isinstance(node, kinds):
            return 1
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in busy:
            raise _too_big("an alias stands for a value that contains it", None, "max_yaml_nodes")
        busy.add(key)
        children = node.values() if isinstance(node, kinds[0]) else node
        total = 1 + sum(size(child) for child in children)
        busy.discard(key)
        if total > limit:
            raise _too_big(
                f"the file holds more than {limit:,} values once its aliases are expanded",
                None,
                "max_yaml_nodes",
            )
        sizes[key] = total
        return total

    size(tree)


class _Budget:
    """How many more values the document may hold (aliases count each time they are used)."""

    def __init__(self, limit: int, clock: Clock | None = None) -> None:
        self.limit = limit
        self.left = limit
        self.clock = clock
        """The load's clock (`load(clock=)`), read as values are copied."""
        self.texts: dict[int, str] = {}
        """Each anchored text (ruamel's `str` subclass) by identity, as a plain `str` made once:
        every use of its alias shares it, where `str()` of each use made a copy of its own."""

    def text(self, value: str) -> str:
        """`value` as a plain `str`: itself when it is one, else one copy for all its uses."""
        if type(value) is str:
            return value
        made = self.texts.get(id(value))
        if made is None:
            made = self.texts[id(value)] = str(value)
        return made

    def take(self) -> None:
        if self.clock is not None:
            self.clock.tick()
        self.left -= 1
        if self.left < 0:
            raise _too_big(
                f"the file holds more than {self.limit:,} values once its aliases are expanded",
                None,
                "max_yaml_nodes",
            )


class _Met:
    """The mappings and lists met so far, by identity, and the path each was first met at; and
    each later path an alias put one at, with that first path."""

    def __init__(self) -> None:
        self.first: dict[int, PathKey] = {}
        self.uses: list[tuple[PathKey, PathKey]] = []


def _plain(
    node: Any,
    path: PathKey,
    places: dict[PathKey, Place],
    budget: _Budget,
    kinds: _Kinds,
    met: _Met | None = None,
) -> Any:
    budget.take()
    if met is not None and isinstance(node, kinds):
        first = met.first.setdefault(id(node), path)
        if first != path:
            met.uses.append((path, first))
            met = None  # what is inside it is named by the first path already
    if isinstance(node, kinds[0]):
        out: dict[Any, Any] = {}
        for key, value in node.items():
            if isinstance(key, bool):
                k: str | int = "true" if key else "false"
            elif key is None:  # `~:` or `null:`: an empty name, which no name pattern takes
                k = ""
            else:
                k = _scalar(key, budget) if isinstance(key, (str, int)) else str(key)  # plain, as in the data
            try:
                kl, kc = node.lc.key(key)
                vl, vc = node.lc.value(key)
                if value is None and vl != kl:  # `name:` left empty: YAML places it at the next
                    vl, vc = kl, kc  # token, lines below (or past the end); the key is where it is
                places[path + (k,)] = Place((kl + 1, kc + 1), (vl + 1, vc + 1))
            except (KeyError, TypeError, AttributeError):
                pass
            out[_scalar(k, budget)] = _plain(value, path + (k,), places, budget, kinds, met)
        return out
    if isinstance(node, kinds[1]):
        items = []
        for index, value in enumerate(node):
            try:
                line, col = node.lc.item(index)
                places[path + (index,)] = Place(None, (line + 1, col + 1))
            except (KeyError, TypeError, AttributeError):
                pass
            items.append(_plain(value, path + (index,), places, budget, kinds, met))
        return items
    return _scalar(node, budget)


def _scalar(value: Any, budget: _Budget) -> Any:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return budget.text(value)
    if type(value).__name__ == "TaggedScalar":  # `!!str 6`: its text, as written (no other tag passes)
        return str(value.value)
    return value
