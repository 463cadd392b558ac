"""YAML parser errors in an author's words.

ruamel.yaml reports what its grammar expected ("expected <block end>, but found '<scalar>'"),
which names tokens an author never wrote. The usual mistakes behind those messages — a key
indented one space off, a tab, an expression that starts with a quote, a key without its colon,
a '[' or '{' left open, a '}' or ']' that closes nothing, a list item among a mapping's keys, a
value holding ': ' — are recognised here from the parser's positions and the lines around them,
and told with what to write instead. Anything not recognised keeps the parser's own words
(`explain` returns None).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from ..frozen import frozen
from .positions import SourceFile, Span

_KEY_LINE = re.compile(r"^(?P<indent> *)(?P<dashes>(?:- +)*)(?P<key>[^\s#'\"\-?:][^:#]*?) *:(?: |$)")
"""A line that opens a mapping entry, possibly as a list item: `  - name: value`."""

_QUOTED_START = re.compile(r"^(?P<lead> *(?:- +)*(?:[^\s#'\"][^:#]*?: +)?)(?P<quote>['\"])")
"""A line whose value (after `key: ` or `- `) opens with a quote."""


_STRAY = re.compile(
    r"^expected (?:<block end>|the node content|'<document start>'), but found \(?'(?P<closer>[]}])',?\)?$"
)
"""The parser meeting a '}' or ']' outside any flow collection (block context, or after the
document's one top-level node): a closer that closes nothing. ruamel shows the token of the
last as a tuple, `('}',)`."""


@frozen(slots=True)
class Explained:
    """A YAML mistake told in an author's words: the message, where it is, what to do."""

    message: str
    span: Span
    hint: str


@frozen(slots=True)
class _Level:
    """A column at which keys (or a list's dashes) stand, and the line that shows it."""

    indent: int
    line: int
    name: str
    dash: bool = False


def explain(
    source: SourceFile,
    problem: str,
    problem_at: tuple[int, int] | None,
    context: str,
    context_at: tuple[int, int] | None,
) -> Explained | None:
    """The mistake behind a ruamel.yaml error, or None when it is none of the usual ones.

    Positions are 1-based (line, column); `problem` and `context` are the parser's own words."""
    lines = source.text.split("\n")
    if problem_at is None:
        return None
    line, col = problem_at
    if not 1 <= line <= len(lines) + 1:
        return None
    if "'\\t'" in problem:
        return _tab(source, lines, line, col)
    run_on = _quote_run_on(source, lines, line)
    if run_on is not None:  # before any other reading: the lines YAML read were inside a quote
        return run_on
    if "could not find expected ':'" in problem and context_at is not None and "simple key" in context:
        return _missing_colon(source, lines, context_at[0])
    if "mapping values are not allowed" in problem:
        return _colon_in_value(source, lines, line, col)
    if "quoted scalar" in context and "end of stream" in problem and context_at is not None:
        at_line, at_col = context_at
        return Explained(
            "a quote opened here is never closed, so YAML reads on to the end of the file",
            Span(source, at_line, at_col, at_line, at_col + 1),
            "close the quote at the end of the value, with the same kind of quote",
        )
    if "flow" in context and "found '<stream end>'" in problem:
        return _open_at_end(source, lines)
    stray = _STRAY.match(problem)
    if stray is not None:  # a '}' or ']' read where no flow collection is open
        return _closes_nothing(source, lines, line, col, stray["closer"])
    flow = "sequence" if "flow sequence" in context else "mapping" if "flow mapping" in context else None
    if flow is not None and context_at is not None and problem.startswith("expected ','"):
        at_line, at_col = context_at
        opened, closer = ("[", "]") if flow == "sequence" else ("{", "}")
        what = "list" if flow == "sequence" else "mapping"
        got = problem.partition("but got ")[2] or "something else"
        if got == ("'}'" if flow == "sequence" else "']'"):  # the other kind of bracket's closer
            return _closes_nothing(source, lines, line, col, got[1], (opened, at_line, at_col))
        got = {"'<scalar>'": "another value", "'<stream end>'": "the end of the file"}.get(got, got)
        said = f"at line {line}, column {col} YAML found {got} where it expected ',' or '{closer}'"
        if line > at_line or got == "the end of the file":  # it read on past the bracket's own line
            return Explained(
                f"the {what} opened with '{opened}' here is not closed: {said}",
                Span(source, at_line, at_col, at_line, at_col + 1),
                f"close the {what} with '{closer}' after its last item, or put ',' between two items",
            )
        return Explained(  # on the bracket's line: two items without a ',' between them
            f"two items of the {what} opened at column {at_col} have no ',' between them: {said}",
            Span(source, line, col, line, col + 1),
            f"put ',' before this item (or close the {what} with '{closer}' before it)",
        )
    if "found another document" in problem:  # a `---` after the ruleset (hunt 13h: half a message)
        return Explained(
            f"a second YAML document starts at line {line} ('---'): a ruleset file holds one",
            Span(source, line, col, line, col + 3),
            "remove the '---' line and what follows it, or put the second ruleset in a file of its own",
        )
    if problem.startswith("expected '<document start>'"):
        return Explained(
            f"line {line} does not line up with the lines above it: the top-level keys of a "
            "ruleset start at the left margin",
            Span(source, line, col, line, col + 1),
            "remove the spaces before the keys at the top of the file",
        )
    if problem.startswith("expected <block end>, but found"):
        found = problem.split("found", 1)[1].strip()
        if found == "'<scalar>'":
            quoted = _quoted_expression(source, lines, line)
            if quoted is not None:
                return quoted
        if found == "'-'":
            return _dash_in_mapping(source, lines, line, col)
        return _indentation(source, lines, line)
    return None


def _quote_run_on(source: SourceFile, lines: list[str], line: int) -> Explained | None:
    """A value's quote not closed on its own line, which the next quote of its kind closes on the
    problem's line or the line before it (`title: "Starter`, then `outcome: "hi if ..."` five lines
    on): YAML reads every line between as the one text, and what follows that quote is the mistake it reports,
    told as a key out of line or a comment indented wrong, at the wrong line (hunt 13zt). A quoted
    text over several lines is YAML, but not one whose end is followed by a mistake."""
    row = 0
    while row < line - 1:
        opened = _QUOTED_START.match(lines[row])
        if opened is None:
            row += 1
            continue
        closed = _closing(lines, row, opened.end("quote"), opened["quote"])
        if closed is None or closed[0] == row:  # never closed (said elsewhere), or on its own line
            if closed is None:
                return None
            row += 1
            continue
        if not closed[0] <= line - 1 <= closed[0] + 1 or not _swallows_keys(lines, row, closed[0]):
            row = closed[0] + 1  # not the mistake's quote, or a text over lines that is one
            continue
        at = opened.start("quote") + 1
        return Explained(
            f"the quote opened here is not closed on its line: YAML reads on to the next {opened['quote']}"
            f" at line {closed[0] + 1}, column {closed[1] + 1}, and takes every line between as one text",
            Span(source, row + 1, at, row + 1, at + 1),
            "close the quote at the end of its value, on its own line, with the same kind of quote",
        )
    return None


def _swallows_keys(lines: list[str], opened: int, closed: int) -> bool:
    """Whether the quoted text from row `opened` to `closed` holds a line that reads as a key no
    deeper than the quote's own key (`checks:` under `title: "Starter`; `text:` under `- id: "first`,
    at the column after the dash): the file's structure taken in as text, where a text written over
    several lines on purpose holds none (reviews 13zv, 13zw)."""
    own = _KEY_LINE.match(lines[opened])  # its key's column: a list item's keys stand after its dash
    depth = (
        len(own["indent"]) + len(own["dashes"])
        if own
        else len(lines[opened]) - len(lines[opened].lstrip(" "))
    )
    return any(
        (found := _KEY_LINE.match(lines[r])) is not None
        and len(found["indent"]) + len(found["dashes"]) <= depth
        for r in range(opened + 1, closed + 1)
    )


def _closing(lines: list[str], row: int, col: int, quote: str) -> tuple[int, int] | None:
    """Where the quote opened before (`row`, `col`) closes, 0-based: the next `"` not escaped by a
    backslash, or the next `'` not doubled; None when none does."""
    while row < len(lines):
        text, i = lines[row], col
        while i < len(text):
            c = text[i]
            if quote == '"' and c == "\\":
                i += 2
                continue
            if c == quote:
                if quote == "'" and text[i + 1 : i + 2] == "'":
                    i += 2
                    continue
                return row, i
            i += 1
        row, col = row + 1, 0
    return None


def _open_at_end(source: SourceFile, lines: list[str]) -> Explained:
    """A '{' or '[' still open when the file ends (`expect: {outcome: ` as the last line): ruamel
    names no opener and places the end past the last line, so the opener is found here, at the
    last one left open (or, failing that, the end of the last line that holds anything)."""
    opened = _last_open(lines)
    if opened is None:
        last = max((i for i, text in enumerate(lines, 1) if text.strip()), default=1)
        end = len(_text(lines, last).rstrip()) + 1
        return Explained(
            "a mapping ('{') or a list ('[') is not closed when the file ends",
            Span(source, last, end, last, end + 1),
            "close each '{' with '}' and each '[' with ']'",
        )
    bracket, at_line, at_col = opened
    what, closer = ("mapping", "}") if bracket == "{" else ("list", "]")
    return Explained(
        f"the {what} opened with '{bracket}' here is not closed: the file ends before its '{closer}'",
        Span(source, at_line, at_col, at_line, at_col + 1),
        f"finish its last item and close the {what} with '{closer}'",
    )


def _last_open(lines: list[str]) -> tuple[str, int, int] | None:
    """The innermost '{' or '[' left open at the end of the text, with its line and column
    (quoted text inside brackets and comments skipped)."""
    stack: list[tuple[str, int, int]] = []
    for number, text in enumerate(lines, 1):
        quote = ""
        for i, c in enumerate(text):
            if quote:
                quote = "" if c == quote else quote
            elif c == "#" and (i == 0 or text[i - 1] in " \t"):
                break
            elif c in "'\"" and stack and (i == 0 or text[i - 1] in " \t[{,:"):
                quote = c
            elif c in "[{":
                stack.append((c, number, i + 1))
            elif c in "]}" and stack:
                stack.pop()
    return stack[-1] if stack else None


def _closes_nothing(
    source: SourceFile,
    lines: list[str],
    line: int,
    col: int,
    closer: str,
    open_at: tuple[str, int, int] | None = None,
) -> Explained:
    """A '}' or ']' that closes nothing, at the bracket: none of its kind is open there (`open_at`:
    the other kind is, the bracket, line and column that opened it)."""
    opener, what = ("{", "mapping") if closer == "}" else ("[", "list")
    span = Span(source, line, col, line, col + 1)
    if open_at is not None:
        other, at_line, at_col = open_at
        other_what, other_closer = ("mapping", "}") if other == "{" else ("list", "]")
        return Explained(
            f"a '{closer}' that closes nothing: the {other_what} opened with '{other}' at line "
            f"{at_line}, column {at_col} is open here, not a {what}",
            span,
            f"close that {other_what} with '{other_closer}' instead, or remove the '{closer}'",
        )
    closed = _closed_before(_text(lines, line), col, opener, closer)
    hint = f"remove the '{closer}'"
    if closed is not None:
        start, end = closed
        hint += f": the '{opener}' at column {start} is closed already, by the '{closer}' at column {end}"
    else:
        lines_of = "'key: value' lines" if closer == "}" else "'- ' lines"
        hint += (
            f" (a {what} written as indented {lines_of} needs no brackets), or put the '{opener}' "
            f"it closes where the {what} begins"
        )
    return Explained(
        f"a '{closer}' that closes nothing: no {what} opened with '{opener}' is open here", span, hint
    )


def _closed_before(text: str, col: int, opener: str, closer: str) -> tuple[int, int] | None:
    """The columns of the last `opener` … `closer` pair that ends on `text` before column `col`,
    when the brackets before it there are read simply (quotes skipped, no bracket left open);
    None otherwise."""
    stack: list[tuple[str, int]] = []
    last: tuple[int, int] | None = None
    quote = ""
    for i, ch in enumerate(text[: col - 1]):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"" and (i == 0 or text[i - 1] in " \t[{,:"):
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1] in " \t"):
            return None
        elif ch in "[{":
            stack.append((ch, i + 1))
        elif ch in "]}":
            if not stack or "[{"["]}".index(ch)] != stack[-1][0]:
                return None
            start = stack.pop()[1]
            if ch == closer and not stack:
                last = (start, i + 1)
    return last if not stack and not quote else None


def _text(lines: list[str], line: int) -> str:
    return lines[line - 1] if 1 <= line <= len(lines) else ""


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def _tab(source: SourceFile, lines: list[str], line: int, col: int) -> Explained:
    text = _text(lines, line)
    span = Span(source, line, col, line, col + 1)
    if text[: col - 1].strip(" \t") == "":
        return Explained(
            f"a tab in the indentation of line {line}: YAML indents with spaces only",
            span,
            "replace the tab with spaces, lining the key up with the others of its mapping "
            "(most editors can be set to insert spaces for the Tab key)",
        )
    return Explained("a tab where YAML does not allow one", span, "use spaces instead of the tab")


def _missing_colon(source: SourceFile, lines: list[str], line: int) -> Explained:
    text = _text(lines, line)
    start = _indent(text) + 1
    stripped = text.strip()
    span = Span(source, line, start, line, start + len(stripped))
    glued = re.match(r"^(?P<dash>(?:- +)*)(?P<key>[^\s:]+):(?P<rest>\S.*)$", stripped)
    if glued is not None:
        fixed = f"{glued['dash']}{glued['key']}: {glued['rest']}"
        return Explained(
            f"'{glued['key']}:' has no space after its colon, so YAML does not read it as a key",
            span,
            f"put a space after the colon: {fixed}",
        )
    word = re.match(r"^(?P<dash>(?:- +)*)(?P<key>[^\s:]+)(?P<rest>.*)$", stripped)
    key = word["key"] if word else stripped
    fixed = f"{word['dash']}{key}:{word['rest']}" if word else f"{stripped}:"
    return Explained(
        f"'{key}' has no ':' after it, so YAML cannot tell the key from its value",
        span,
        f"write a key with a colon and a space before its value: {fixed.rstrip()}",
    )


@lru_cache(maxsize=64)
def _sibling_keys(key: str) -> frozenset[str]:
    """The keys that some mapping of the schema takes beside `key` (`then`, `else`, `note` beside
    a rule's `when`)."""
    from .schema import schema  # only when a mistake is explained: jsonschema is not needed before

    found: set[str] = set()
    stack: list[Any] = [schema()]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            props = node.get("properties")
            if isinstance(props, dict) and key in props:
                found.update(str(k) for k in props)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return frozenset(found)


def _colon_in_value(source: SourceFile, lines: list[str], line: int, col: int) -> Explained:
    text = _text(lines, line)
    entry = _KEY_LINE.match(text)
    if entry is not None and entry.end() <= col - 1:
        key = entry["key"]
        value = text[entry.end() :].strip()
        said = f"the value of '{key}' holds ': ', which YAML reads as the start of another key"
        words = text[entry.end() : col - 1].split()
        word = words[-1] if len(words) > 1 else None
        if word is not None and word != key and word in _sibling_keys(key):
            # two keys of one mapping on one line (`- when: x then: y`): the second belongs below
            column = len(entry["indent"]) + len(entry["dashes"]) + 1
            rest = text[col:].strip() or "..."
            return Explained(
                said,
                Span(source, line, col, line, col + 1),
                f"'{word}' is a key of its own: put '{word}: {rest}' on a line of its own, "
                f"lined up with '{key}' (column {column})",
            )
        return Explained(
            said,
            Span(source, line, col, line, col + 1),
            f"quote the whole value: {entry['dashes']}{key}: {_quoted(value)}",
        )
    previous = _previous(lines, line)
    here = _indent(text)
    if previous is not None:
        before = _text(lines, previous)
        entry = _KEY_LINE.match(before)
        start = here + 1
        span = Span(source, line, start, line, start + len(text.strip()))
        if entry is None and ":" not in before and not before.strip().startswith(("-", "#")):
            word = before.strip()
            start = _indent(before) + 1
            return Explained(
                f"'{word}' on line {previous} has no ':' after it, so YAML reads it and line {line} "
                "as one text",
                Span(source, previous, start, previous, start + len(word)),
                f"write a key with a colon: {word}:",
            )
        if entry is not None:
            key = entry["key"].strip()
            owner = f"'{key}' on line {previous}"
            if text.strip().startswith("- "):
                return Explained(
                    f"line {line} starts a list inside the value of {owner}, which has a value already",
                    span,
                    f"a key has either a value after its colon or items below it; check the "
                    f"indentation of lines {previous} and {line}",
                )
            return Explained(
                f"line {line} is indented more than {owner}, so YAML reads it as more of {key}'s value",
                span,
                _line_up(lines, line, here),
            )
    return Explained(
        "a ':' where YAML does not expect a key",
        Span(source, line, col, line, col + 1),
        "quote a value that holds ': ', and line each key up with the others of its mapping",
    )


def _quoted_expression(source: SourceFile, lines: list[str], line: int) -> Explained | None:
    text = _text(lines, line)
    m = _QUOTED_START.match(text)
    if m is None:
        return None
    start = m.end("lead")
    quote = m["quote"]
    close = text.find(quote, start + 1)
    rest = text[close + 1 :].strip() if close > 0 else ""
    if not rest or rest.startswith("#"):
        return None
    value = text[start:].rstrip()
    lead = m["lead"].strip()
    key = lead[:-1].strip().lstrip("- ").strip() if lead.endswith(":") else ""
    whose = f"the value of '{key}'" if key else "the list item"
    wrapped = _quoted(value)
    kind = "double" if wrapped.startswith('"') else "single"
    return Explained(
        f"{whose} starts with a quote, so YAML takes only {text[start : close + 1]} as the value "
        f"and cannot read the rest ({rest})",
        Span(source, line, start + 1, line, start + 1 + len(value)),
        f"wrap the whole expression in {kind} quotes: {lead + ' ' if lead else ''}{wrapped}",
    )


def _quoted(value: str) -> str:
    """`value` as one YAML scalar: in double quotes when it holds none, else in single quotes."""
    if '"' not in value and "\\" not in value:
        return f'"{value}"'
    return "'" + value.replace("'", "''") + "'"


def _dash_in_mapping(source: SourceFile, lines: list[str], line: int, col: int) -> Explained:
    return Explained(
        "a list item ('- ') among the keys of a mapping",
        Span(source, line, col, line, col + 1),
        "the entries of a mapping are 'key: value' lines without '- ': remove the '- ', or, for "
        "a list, put every item under one key, each starting with '- '",
    )


def _indentation(source: SourceFile, lines: list[str], line: int) -> Explained | None:
    text = _text(lines, line)
    here = _indent(text)
    if not text.strip():
        return None
    entry = _KEY_LINE.match(text)
    item = text.strip().startswith("- ")
    name = f"'{entry['key'].strip()}'" if entry and not entry["dashes"] else f"line {line}"
    if item:
        name = f"the list item on line {line}"
    levels = _levels(lines, line)
    dash = next((lv for lv in levels if lv.indent == here and lv.dash), None)
    where = (
        f"like the '-' of the list on line {dash.line}, where a key cannot stand"
        if dash is not None
        else "which lines up with no key above it"
    )
    if item:
        where = "which lines up with no list or key above it"
    width = len(entry["key"].strip()) if entry and not entry["dashes"] else 1
    span = Span(source, line, here + 1, line, here + 1 + width)
    return Explained(
        f"{name} is indented {_spaces(here)}, {where}", span, _line_up(lines, line, here, item=item)
    )


def _spaces(n: int) -> str:
    """`1 space`, `2 spaces` ("indented 1 spaces" had been said)."""
    return f"{n} space" if n == 1 else f"{n} spaces"


def _line_up(lines: list[str], line: int, here: int, *, item: bool = False) -> str:
    """What indentation would put the line at `line` with keys above it (or, for a list item,
    with the items of a list above it): the nearest deeper and shallower levels."""
    if item:
        dashes = [lv for lv in _levels(lines, line) if lv.dash and lv.indent != here]
        if dashes:
            near = min(dashes, key=lambda lv: abs(lv.indent - here))
            return (
                "the items of one list line up: indent it "
                f"{_spaces(near.indent)} to go with the '-' on line {near.line}"
            )
    keys = [lv for lv in _levels(lines, line) if not lv.dash and lv.indent != here]
    deeper = [lv for lv in keys if lv.indent > here]
    shallower = [lv for lv in keys if lv.indent < here]
    options = []
    if deeper:
        near = min(deeper, key=lambda lv: lv.indent)
        options.append(near)
    if shallower:
        options.append(max(shallower, key=lambda lv: lv.indent))
    if not options:
        return "a key lines up with the other keys of its mapping, indented with spaces"
    said = [f"{_spaces(options[0].indent)} to go with '{options[0].name}' (line {options[0].line})"]
    said += [f"{lv.indent} to go with '{lv.name}' (line {lv.line})" for lv in options[1:]]
    hint = "a key lines up with the other keys of its mapping: indent it " + ", or ".join(said)
    # the key that opened the mapping this line meant to join, right under its parent: deeper than
    # the line, or (its parent then the next level up) shallower
    above = sorted(shallower, key=lambda lv: -lv.indent)
    if deeper and above:
        opener, parent = near, above[0]
    elif len(above) > 1:
        opener, parent = above[0], above[1]
    else:
        return hint
    step = _step(lines)
    if opener.line == parent.line + 1 and here - parent.indent == step != opener.indent - parent.indent:
        # the line sits one usual step under the parent, and the key that opened the parent's
        # mapping right under it does not: that key is likely the one astray
        hint += f"; or, if it is '{opener.name}' that is out of line, indent that line {_spaces(here)}"
    return hint


def _step(lines: list[str]) -> int:
    """The file's usual indentation step: the least indentation of a line that has any."""
    indents = [len(text) - len(text.lstrip(" ")) for text in lines if text.strip() and text[0] == " "]
    return min(indents, default=2)


def _levels(lines: list[str], line: int) -> list[_Level]:
    """The columns keys stand at in the mappings open before `line`: the line before it, then
    each line above that is less indented than every one seen so far (its parents)."""
    out: list[_Level] = []
    bound = None
    number = line - 1
    while number >= 1:
        text = _text(lines, number)
        entry = _KEY_LINE.match(text)
        if entry is not None:
            indent = len(entry["indent"])
            key_at = indent + len(entry["dashes"])
            if bound is None or key_at < bound:
                out.append(_Level(key_at, number, entry["key"].strip()))
                bound = key_at
            if entry["dashes"] and indent < bound:
                out.append(_Level(indent, number, "-", dash=True))
                bound = indent
            if bound == 0:
                break
        number -= 1
    return out


def _previous(lines: list[str], line: int) -> int | None:
    """The nearest line above `line` with something on it other than a comment."""
    number = line - 1
    while number >= 1:
        stripped = _text(lines, number).strip()
        if stripped and not stripped.startswith("#"):
            return number
        number -= 1
    return None
