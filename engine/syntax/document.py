"""Stage 1 — load: YAML text to plain data that remembers where every key and value was.

ruamel.yaml's round-trip loader keeps 0-based positions on its containers; we copy the data
into plain dicts and lists (so later stages never see YAML types) and keep the positions in
a side table keyed by the path to each value.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, ReusedAnchorWarning, YAMLError

from ..errors import Diagnostic, LoadError
from .positions import ExprOrigin, SourceFile, Span

PathKey = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Place:
    """Where a value sits: its key (for mapping entries) and the value itself, 1-based."""

    key: tuple[int, int] | None
    value: tuple[int, int]


@dataclass(frozen=True)
class Document:
    """A loaded ruleset file: plain data plus the position of every value."""

    source: SourceFile
    data: Any
    places: Mapping[PathKey, Place]

    def span(self, path: PathKey, *, key: bool = False) -> Span:
        """The span of the value at `path` (or of its key), falling back to the nearest parent."""
        probe = tuple(path)
        while probe and probe not in self.places:
            probe = probe[:-1]
        place = self.places.get(probe)
        if place is None:
            return Span(self.source, 1, 1)
        line, col = place.key if (key and place.key) else place.value
        width = self._token_width(line, col)
        return Span(self.source, line, col, line, col + width)

    def _token_width(self, line: int, col: int) -> int:
        whole = self.source.line(line)
        text = whole[col - 1 :]
        if not text:
            return 1
        if text[0] in "'\"":
            end = text.find(text[0], 1)
            return end + 1 if end > 0 else len(text)
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
        place = self.places.get(tuple(path))
        if place is None:
            return ExprOrigin(self.source, 1, 1, 0)
        line, col = place.value
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
                return ExprOrigin(self.source, line, col + 1, 0)
        elif simple and self.source.line(line)[col - 1 :].rstrip().endswith(value.rstrip()[-1:] or " "):
            return ExprOrigin(self.source, line, col, 0)
        starts = self._line_starts()
        offset = starts[line - 1] + col - 1
        if first in ("'", '"'):
            offset += 1
        elif first in ("|", ">"):
            offset = starts[line] if line < len(starts) else offset
        breaks = (0, *(i + 1 for i, ch in enumerate(value) if ch == "\n"))
        return ExprOrigin(self.source, line, col, 0, _align(value, self.source.text, offset, starts), breaks)

    def _line_starts(self) -> list[int]:
        starts = [0]
        for i, ch in enumerate(self.source.text):
            if ch == "\n":
                starts.append(i + 1)
        return starts


def _align(value: str, text: str, offset: int, starts: list[int]) -> tuple[tuple[int, int], ...]:
    """The (line, col) in `text` of each character of `value`, read from `offset` on.

    Source characters that produce nothing in the value (quotes, escape backslashes, the
    indentation YAML strips) are skipped, and a folded line break stands for a space."""
    import bisect

    out: list[tuple[int, int]] = []
    i = offset
    for ch in value:
        while i < len(text) and text[i] != ch and not (ch == " " and text[i] == "\n"):
            i += 1
        j = min(i, len(text) - 1) if text else 0
        ln = bisect.bisect_right(starts, j)
        out.append((ln, j - starts[ln - 1] + 1))
        if i < len(text) and ch == " " and text[i] == "\n":
            i += 1
            while i < len(text) and text[i] in " \t":
                i += 1
        else:
            i += 1
    return tuple(out)


def read_source(path_or_text: str | Path, name: str | None = None) -> SourceFile:
    """A `SourceFile` from a path, or from YAML text given directly."""
    if isinstance(path_or_text, Path) or (
        "\n" not in path_or_text and Path(path_or_text).suffix in (".yaml", ".yml")
    ):
        path = Path(path_or_text)
        try:
            return SourceFile(name or str(path), path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise LoadError(
                [Diagnostic("RC001", f"cannot read {path}: {exc.strerror or exc}", None)]
            ) from None
        except UnicodeDecodeError:
            raise LoadError([Diagnostic("RC001", f"{path} is not UTF-8 text", None)]) from None
    return SourceFile(name or "<string>", str(path_or_text))


def load(source: SourceFile) -> Document:
    """Parse YAML into a `Document`; a YAML error becomes a `LoadError` at its position."""
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    try:
        with warnings.catch_warnings():
            # YAML lets an anchor be defined again (later aliases mean the newer one);
            # ruamel only warns, and a warning is not ours to print.
            warnings.simplefilter("ignore", ReusedAnchorWarning)
            tree = yaml.load(source.text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        span = Span(source, mark.line + 1, mark.column + 1) if mark else None
        problem = (exc.problem or exc.context or "invalid YAML").strip()
        hint = None
        if "duplicate key" in problem or "found duplicate key" in str(exc):
            problem = str(exc.problem).split("\n")[0]
            hint = "each key may appear once in a mapping"
        raise LoadError([Diagnostic("RC002", f"YAML syntax error: {problem}", span, hint)]) from None
    except YAMLError as exc:
        raise LoadError([Diagnostic("RC002", f"YAML error: {exc}", Span(source, 1, 1))]) from None
    places: dict[PathKey, Place] = {(): Place(None, (1, 1))}
    data = _plain(tree, (), places)
    return Document(source, data, places)


def _plain(node: Any, path: PathKey, places: dict[PathKey, Place]) -> Any:
    if isinstance(node, CommentedMap):
        out: dict[Any, Any] = {}
        for key, value in node.items():
            if isinstance(key, bool):
                k: str | int = "true" if key else "false"
            else:
                k = key if isinstance(key, (str, int)) else str(key)
            try:
                kl, kc = node.lc.key(key)
                vl, vc = node.lc.value(key)
                places[path + (k,)] = Place((kl + 1, kc + 1), (vl + 1, vc + 1))
            except (KeyError, TypeError, AttributeError):
                pass
            out[_scalar(k)] = _plain(value, path + (k,), places)
        return out
    if isinstance(node, CommentedSeq):
        items = []
        for index, value in enumerate(node):
            try:
                line, col = node.lc.item(index)
                places[path + (index,)] = Place(None, (line + 1, col + 1))
            except (KeyError, TypeError, AttributeError):
                pass
            items.append(_plain(value, path + (index,), places))
        return items
    return _scalar(node)


def _scalar(value: Any) -> Any:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str(value)
    return value
