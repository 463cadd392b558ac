"""Stage 3 — parse: expression text to the syntax tree, with spans placed in the YAML file.

One LALR parser is built from `grammar.lark`; lark's exceptions stop here and become
`ExprSyntaxError`s that point into the ruleset file.

lark's tree is first turned into a `Shape`: plain tuples that say the same (each rule's name and
the positions of its tokens, relative to the expression), and the syntax tree is built from the
shape and the expression's `ExprOrigin`. A text's shape does not depend on where it stands, so
shapes are kept by text (`remember`, `recording`): a ruleset whose shapes came with its cached
document (`syntax.cached`, through `api`) compiles without importing lark at all. The limits on
depth and size are checked on the shape every time, whatever limits it was first made under.

lark itself is imported and its parser built on first use. Analysing the grammar takes lark about
40 ms, so its result is kept in a file of lark's own (`cache=`), which lark reads back only when
the grammar, its options and lark's version all match. That file is a pickle, so it is kept only
in the private cache folder (`syntax.cachedir`), never in a shared temporary folder; where there
is no such folder (or `RULECRAFT_NO_CACHE` is set), the grammar is analysed afresh.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from fractions import Fraction
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import MAX_DIGITS, Diagnostic, ExprSyntaxError, LimitError, limit_advice
from ..syntax import cachedir
from ..syntax.names import name_rule
from ..syntax.positions import ExprOrigin, SourceFile, Span
from . import ast

if TYPE_CHECKING:
    from lark import Lark
    from lark.exceptions import UnexpectedInput, UnexpectedToken

_GRAMMAR = files(__package__).joinpath("grammar.lark").read_text(encoding="utf-8")

Meta = tuple[int, int, int, int] | None
"""A rule's first and last position in the expression (line, column, end line, end column)."""
Shape = tuple[Any, ...]
"""One node of a parsed expression as plain data: a rule is `(name, Meta, children)` (3 items), a
token `(type, text, line, column, end_line, end_column)` (6 items)."""

SHAPE_FORMAT = 1


def _cache_file() -> str | None:
    """Where lark may keep its analysis of the grammar: a file in the private cache folder
    (`syntax.cachedir`), named by the grammar's hash and lark's version; None when there is none."""
    folder = cachedir.folder()
    if folder is None:  # caching is off, or another user could write there: never read a pickle
        return None
    import hashlib

    import lark

    digest = hashlib.sha256(_GRAMMAR.encode()).hexdigest()[:16]
    return os.path.join(folder, f"grammar-{digest}-lark-{lark.__version__}.cache")


@lru_cache(maxsize=1)
def _parser() -> Lark:
    """The LALR parser, built (or read from lark's cache) when an expression is first parsed."""
    from lark import Lark

    return Lark(
        _GRAMMAR,
        parser="lalr",
        propagate_positions=True,
        maybe_placeholders=False,
        cache=_cache_file() or False,
        postlex=_whole_words(),
    )


def _whole_words() -> Any:
    """A postlexer that changes no token: it makes every state of lark's contextual lexer read a
    `NAME` and the words of the language (`always_accept`), so that a word is read only whole.

    lark reads a quoted word such as "and" as a NAME whose text is that word (its `unless`
    callback), but only where a NAME may come. Where none may (after `x`), its lexer alone took
    the word from the front of a longer one: `x andy` was `x and y`, `x inside` `x in side`.
    Now `andy` is read whole, a name where an operator was expected (`RC201`, with a hint), and
    a word of the language is never a name (`not(x)` after `+` is no call of a function `not`)."""
    from lark.lark import PostLex

    class WholeWords(PostLex):
        always_accept = ("NAME", *_KEYWORD_TOKENS)

        def process(self, stream: Iterator[Any]) -> Iterator[Any]:
            return stream

    return WholeWords()


@lru_cache(maxsize=1)
def fingerprint() -> bytes | None:
    """What decides a text's shape — the grammar, this module and the installed lark — hashed, for
    a cache that keeps shapes across processes; None when it cannot be told."""
    lark = cachedir.library_identity("lark")
    if lark is None:
        return None
    try:
        here = Path(__file__).read_bytes()
    except OSError:
        return None
    return cachedir.digest(b"shape %d" % SHAPE_FORMAT, _GRAMMAR.encode(), here, lark)


_SHAPES: dict[str, Shape] = {}
"""Shapes by expression text, for this process: bounded by the length of the texts kept together
(`_SHAPES_CHARS`, a shape has at most a node or two per character), the oldest out first."""
_SHAPES_CHARS = 1_000_000
_SHAPES_LOCK = threading.Lock()
_RECORDING: ContextVar[dict[str, Shape] | None] = ContextVar("rulecraft_shapes", default=None)
_kept_chars = 0


def _keep(text: str, shape: Shape) -> None:
    global _kept_chars
    with _SHAPES_LOCK:
        if text not in _SHAPES:
            _kept_chars += len(text)
        _SHAPES[text] = shape
        while _kept_chars > _SHAPES_CHARS and _SHAPES:
            oldest = next(iter(_SHAPES))
            del _SHAPES[oldest]
            _kept_chars -= len(oldest)


def forget() -> None:
    """Drop every shape this process keeps (as a fresh process starts)."""
    global _kept_chars
    with _SHAPES_LOCK:
        _SHAPES.clear()
        _kept_chars = 0


@contextmanager
def recording() -> Iterator[dict[str, Shape]]:
    """Collect the shape of every expression parsed inside the block (in this thread or task),
    to be kept with the document they came from."""
    seen: dict[str, Shape] = {}
    token = _RECORDING.set(seen)
    try:
        yield seen
    finally:
        _RECORDING.reset(token)


def remember(shapes: object) -> bool:
    """Take shapes recorded by an earlier process; False (and nothing taken) unless every one is
    well formed: a text and a tree of rules and tokens as `Shape` describes."""
    if not isinstance(shapes, dict):
        return False
    for text, shape in shapes.items():
        if not isinstance(text, str) or not _well_formed(shape):
            return False
    for text, shape in shapes.items():
        _keep(text, shape)
    return True


def _well_formed(shape: object) -> bool:
    stack = [shape]
    while stack:
        item = stack.pop()
        if not isinstance(item, tuple):
            return False
        if len(item) == 6:
            if not (isinstance(item[0], str) and isinstance(item[1], str)):
                return False
            if not all(v is None or type(v) is int for v in item[2:]):
                return False
        elif len(item) == 3:
            name, meta, children = item
            if not isinstance(name, str) or not hasattr(_Build, name) or not isinstance(children, tuple):
                return False
            if meta is not None and not (
                isinstance(meta, tuple) and len(meta) == 4 and all(type(v) is int for v in meta)
            ):
                return False
            stack.extend(children)
        else:
            return False
    return True


KEYWORDS = ("if", "else", "or", "and", "not", "in", "true", "false")
"""The words of the language (`grammar.lark`'s quoted words): each is a whole word, never a name."""
_KEYWORD_TOKENS = {word.upper(): word for word in KEYWORDS}
_TOKEN_WORDS = {
    "NAME": "a name",
    "INT": "a number",
    "DECIMAL": "a number",
    "STRING": "a quoted name",
    "LPAR": "'('",
    "RPAR": "')'",
    "LSQB": "'['",
    "RSQB": "']'",
    "COMMA": "','",
    "COMP_OP": "a comparison",
    "ADD_OP": "'+' or '-'",
    "MUL_OP": "'*', '/', '//' or '%'",
    "POW_OP": "'**'",
    "MINUS": "'-'",
    "PLUS": "'+'",
    "$END": "the end of the expression",
}


class _Build:
    """Builds nodes from a shape, one method per rule of the grammar; no checks here."""

    def __init__(self, origin: ExprOrigin) -> None:
        self.origin = origin

    def transform(self, shape: Shape) -> Any:
        """The node (or, for a token, its text) that `shape` stands for. Recursive: `_bound` has
        limited the depth before this runs."""
        if len(shape) == 6:
            return shape[1]
        name, meta, children = shape
        built: Any = getattr(self, name)(meta, [self.transform(child) for child in children])
        return built

    def _span(self, meta: Meta) -> Any:
        if meta is None:
            return None
        return self.origin.span(*meta)

    def int(self, meta: Meta, c: list[str]) -> ast.Node:
        return ast.Num(int(c[0]), span=self._span(meta))

    def decimal(self, meta: Meta, c: list[str]) -> ast.Node:
        value = Fraction(c[0])
        return ast.Num(value.numerator if value.denominator == 1 else value, span=self._span(meta))

    def symbol(self, meta: Meta, c: list[str]) -> ast.Node:
        return ast.Sym(c[0][1:-1], span=self._span(meta))

    def true(self, meta: Meta, c: list[Any]) -> ast.Node:
        return ast.Bool(True, span=self._span(meta))

    def false(self, meta: Meta, c: list[Any]) -> ast.Node:
        return ast.Bool(False, span=self._span(meta))

    def name(self, meta: Meta, c: list[str]) -> ast.Node:
        return ast.Name(c[0], span=self._span(meta))

    def qualified(self, meta: Meta, c: list[str]) -> ast.Node:
        """`rival.health`: an item of another character an action names (one name, with its dot)."""
        return ast.Name(f"{c[0]}.{c[1]}", span=self._span(meta))

    def call(self, meta: Meta, c: list[Any]) -> ast.Node:
        args = tuple(c[1]) if len(c) > 1 else ()
        return ast.Call(c[0], args, span=self._span(meta))

    def list_expr(self, meta: Meta, c: list[Any]) -> ast.Node:
        items = tuple(c[0]) if c else ()
        return ast.ListExpr(items, span=self._span(meta))

    def args(self, meta: Meta, c: list[ast.Node]) -> tuple[ast.Node, ...]:
        return tuple(c)

    def cond(self, meta: Meta, c: list[ast.Node]) -> ast.Node:
        return ast.Cond(c[0], c[1], c[2], span=self._span(meta))

    def or_(self, meta: Meta, c: list[ast.Node]) -> ast.Node:
        return ast.Logic("or", c[0], c[1], span=self._span(meta))

    def and_(self, meta: Meta, c: list[ast.Node]) -> ast.Node:
        return ast.Logic("and", c[0], c[1], span=self._span(meta))

    def not_(self, meta: Meta, c: list[ast.Node]) -> ast.Node:
        return ast.Not(c[0], span=self._span(meta))

    def compare(self, meta: Meta, c: list[Any]) -> ast.Node:
        return ast.Compare(c[1], c[0], c[2], span=self._span(meta))

    def in_(self, meta: Meta, c: list[ast.Node]) -> ast.Node:
        return ast.Compare("in", c[0], c[1], span=self._span(meta))

    def not_in(self, meta: Meta, c: list[ast.Node]) -> ast.Node:
        return ast.Compare("not in", c[0], c[1], span=self._span(meta))

    def range(self, meta: Meta, c: list[ast.Node]) -> ast.Node:
        return ast.Range(c[0], c[1], span=self._span(meta))

    def binop(self, meta: Meta, c: list[Any]) -> ast.Node:
        return ast.Binary(c[1], c[0], c[2], span=self._span(meta))

    def neg(self, meta: Meta, c: list[ast.Node]) -> ast.Node:
        operand = c[0]
        if isinstance(operand, ast.Num):
            return ast.Num(-operand.value, span=self._span(meta))
        return ast.Unary("-", operand, span=self._span(meta))

    def pos(self, meta: Meta, c: list[ast.Node]) -> ast.Node:
        """`+3` is the number 3; `+x` stays in the tree, so that `x` is checked to be a number
        as it is for `-x`."""
        operand = c[0]
        if isinstance(operand, ast.Num):
            return operand
        return ast.Unary("+", operand, span=self._span(meta))


MAX_DEPTH = 50
MAX_SIZE = 2000


def parse(
    text: str, origin: ExprOrigin | None = None, *, max_depth: int = MAX_DEPTH, max_size: int = MAX_SIZE
) -> ast.Node:
    """Parse one expression; `origin` says where its first character sits in the ruleset.

    An expression nested more than `max_depth` operations deep or holding more than `max_size`
    names, numbers and operations, or a number of more than `MAX_DIGITS` digits, is refused
    (`RC202`) before anything recursive sees it: the tree, the compiler and Python's own parser of
    the generated code all stay far from their limits. So is one of more than `TOKENS_PER_PART`
    tokens per part allowed, before the parser runs (`_prebound`)."""
    if origin is None:
        origin = ExprOrigin(SourceFile("<expr>", text), 1, 1, 0)
    return _parse(text, origin, max_depth, max_size)


def _parse(text: str, origin: ExprOrigin, max_depth: int = MAX_DEPTH, max_size: int = MAX_SIZE) -> ast.Node:
    shape = _SHAPES.get(text)
    if shape is None:
        _prebound(text, origin, max_size)
        shape = _shape_of(text, origin)
        _keep(text, shape)
    seen = _RECORDING.get()
    if seen is not None:
        seen[text] = shape
    _bound(shape, origin, max_depth, max_size)
    node = _Build(origin).transform(shape)
    assert isinstance(node, ast.Node)
    return node


_TOKENS = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|\w+|\*\*|//|[=!<>]=|\.\.|\S")
"""What the grammar reads as one token, near enough to count them: a string, a word or number, an
operator of two characters, or one other character."""
TOKENS_PER_PART = 4
"""Tokens an expression may have per part of `max_size` before it is parsed: a part is a name,
number or operation, and brackets, commas and `if`/`else` add tokens that are no part."""


def _prebound(text: str, origin: ExprOrigin, max_size: int) -> None:
    """Bound the work of parsing before the parser runs: its time grows with the text, and only
    its tree can be bounded by depth and parts, so an expression of more than `TOKENS_PER_PART`
    tokens per part allowed is `RC202` at once, counted in one scan that stops at the excess.
    (Brackets that hold only a name add nothing to the tree and stay harmless; 200,000 of them
    took seconds to parse, then passed.)"""
    most = TOKENS_PER_PART * max_size
    for n, m in enumerate(_TOKENS.finditer(text), 1):
        if n > most:
            at = m.start()
            line = text.count("\n", 0, at) + 1
            col = at - (text.rfind("\n", 0, at) + 1) + 1
            raise _too_large(
                f"this expression has more than {most:,} tokens: {TOKENS_PER_PART} for each of the "
                f"{max_size:,} {'part' if max_size == 1 else 'parts'} an expression may have",
                origin.span(line, col, line, col + len(m.group())),
                "max_expression_size",
            )


def _shape_of(text: str, origin: ExprOrigin) -> Shape:
    """lark's tree of `text` as a `Shape`, made without recursion (the tree may be deep: `_bound`
    refuses it only afterwards); a syntax error is `RC201` at its place in the file."""
    from lark import Token
    from lark.exceptions import UnexpectedInput

    try:
        tree = _parser().parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(text, origin, exc) from None
    done: list[Shape] = []
    stack: list[tuple[Any, bool]] = [(tree, False)]
    while stack:
        item, ready = stack.pop()
        if isinstance(item, Token):
            done.append((item.type, str(item), item.line, item.column, item.end_line, item.end_column))
        elif not ready:
            stack.append((item, True))
            stack.extend((child, False) for child in reversed(item.children))
        else:
            count = len(item.children)
            children = tuple(done[len(done) - count :]) if count else ()
            del done[len(done) - count :]
            m = item.meta
            meta = None if getattr(m, "empty", True) else (m.line, m.column, m.end_line, m.end_column)
            done.append((str(item.data), meta, children))
    return done[0]


def _bound(shape: Shape, origin: ExprOrigin, max_depth: int, max_size: int) -> None:
    """Walk the shape without recursion; refuse it when it is too deep, too large, or holds a
    number with too many digits."""
    size = 0
    stack: list[tuple[Shape, int]] = [(shape, 1)]
    while stack:
        item, depth = stack.pop()
        if len(item) == 6:
            kind, value, line, col, end_line, end_col = item
            if kind in ("INT", "DECIMAL") and sum(ch.isdigit() for ch in value) > MAX_DIGITS:
                span = origin.span(line or 1, col or 1, end_line or 1, end_col or 2)
                said = (
                    f"a number of {sum(ch.isdigit() for ch in value)} digits, over the limit of {MAX_DIGITS}"
                )
                raise LimitError(
                    [Diagnostic("RC202", said, span, f"numbers have at most {MAX_DIGITS} digits")]
                )
            continue
        if item[0] == "args":  # a call's or a list's items: a level of lark's tree, not of ours
            stack.extend((child, depth) for child in item[2])
            continue
        size += 1
        if depth > max_depth or size > max_size:
            meta = item[1]
            line, col = (meta[0], meta[1]) if meta is not None else (1, 1)
            span = origin.span(line, col, line, col + 1)
            if depth > max_depth:
                raise _too_large(
                    f"this expression is nested more than {max_depth} operations deep",
                    span,
                    "max_expression_depth",
                )
            raise _too_large(
                f"this expression has more than {max_size} parts",
                span,
                "max_expression_size",
            )
        stack.extend((child, depth + 1) for child in item[2])


def _too_large(message: str, span: Span, limit: str) -> LimitError:
    """RC202 for an expression past the bound `limit` of `Limits`."""
    advice = limit_advice(limit, "split it into named values (let:) or tables")
    return LimitError([Diagnostic("RC202", message, span, **advice)])


def _token_word(name: str) -> str:
    """How a grammar terminal reads to an author (never lark's internal names)."""
    if name in _TOKEN_WORDS:
        return _TOKEN_WORDS[name]
    try:
        pattern = _parser().get_terminal(name).pattern
    except KeyError:
        return name.lower()
    return repr(pattern.value) if pattern.type == "str" else name.lower()


_COMPARISONS = frozenset(("<", ">", "<=", ">=", "==", "!="))
_WORDS = {"&&": "and", "||": "or", "!": "not"}
"""Operators of other languages, and the words written for them here."""
_TYPESET = {
    "≥": ">=",
    "≤": "<=",
    "≠": "!=",
    "−": "-",
    "–": "-",
    "×": "*",
    "÷": "/",
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
}
"""Typeset characters (text pasted from a PDF or a word processor), and what is written for each."""
_SPACES = {
    "\u00a0": "a no-break space",
    "\u2007": "a figure space",
    "\u2009": "a thin space",
    "\u200a": "a hair space",
    "\u202f": "a narrow no-break space",
    "\u3000": "an ideographic space",
    "\u200b": "a zero-width space",
    "\ufeff": "a zero-width no-break space",
}
"""Characters that look like a space, or like nothing, and are none to the expression language."""
_ASSIGNING = frozenset(("+", "-", "*", "/", "%", "**", "//"))
"""Operators a program writes before `=` to change a value (`x += 1`)."""
_OPERATOR_END = re.compile(r"[-+*/%<>=!]+$")
"""The operator a text ends with (`x **`: `**`)."""
_WORD_END = re.compile(r"[\w.]+$")
_WORD_START = re.compile(r"[\w.]+")
_COMPARED = re.compile(r"[<>]|[=!]=")
"""A comparison before the place a parse failed at another: the author chained them."""


def _syntax_error(text: str, origin: ExprOrigin, exc: UnexpectedInput) -> ExprSyntaxError:
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    line = getattr(exc, "line", 1) or 1
    col = getattr(exc, "column", 1) or 1
    # split at a newline only, as lark counts lines (`SourceFile.lines`): `splitlines` also splits
    # at U+2028 and the like, and the line lark names was past the last (found by review AD)
    rows = list(SourceFile("<expression>", text).lines) or [""]
    if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END"):
        line, col = len(rows), len(rows[-1]) + 1
        found = "the expression ends too early"
    elif isinstance(exc, UnexpectedCharacters):
        found = f"unexpected character {rows[line - 1][col - 1]!r}"
    elif isinstance(exc, UnexpectedToken):
        found = f"unexpected {exc.token.value!r}"
    else:  # pragma: no cover - lark has no other kinds today
        found = "unexpected input"
    before = "\n".join(rows[: line - 1] + [rows[line - 1][: col - 1]])
    open_parens = before.count("(") - before.count(")")
    open_brackets = before.count("[") - before.count("]")
    closers = {
        "RPAR": open_parens > 0,
        "RSQB": open_brackets > 0,
        "COMMA": open_parens > 0 or open_brackets > 0,
    }
    # what can begin a value first (a name, a number, a quoted name), then punctuation and words:
    # sorted as text, `'('` came before them, and the six shown left them out (hunt 13y)
    expected = sorted(
        {_token_word(t) for t in getattr(exc, "expected", ()) or () if closers.get(t, True)},
        key=lambda word: (word.startswith("'"), word),
    )
    hint = f"expected {', '.join(expected[:6])}" if expected else None
    here = rows[line - 1][col - 1 :]
    op = _OPERATOR_END.search(before.rstrip())
    last = op.group() if op else ""  # the operator before the character that failed, past spaces
    if here.startswith(("=>", "=<")):
        hint = f"'{here[:2]}' is written '{here[1]}='"
    elif here.startswith("=") and last in ("==", "!=", "<=", ">="):  # `x !== 1`, `x == = 1`
        hint = f"'{last}' is followed by another '=': write '{last}' alone"
    elif here.startswith("=") and last in _ASSIGNING:  # `x += 5`, as a program changes a value
        left = _WORD_END.search(before.rstrip()[: -len(last)].rstrip())
        right = _WORD_START.match(here[1:].lstrip())
        shown = f"{left.group() if left else 'x'} {last} {right.group() if right else '1'}"
        hint = f"'{last}=' is no operator: an expression changes no value; write the new value, as in {shown}"
    elif here.startswith("=") and last in ("<", ">"):  # `x > = 1`
        hint = f"'{last}=' is written without a space"
    elif here.startswith("=") and not here.startswith("=="):
        hint = "comparison is written '==' (a single '=' is not an operator)"
    elif re.match(r"![ \t]+=", here):  # `x ! = 1`
        hint = "'!=' is written without a space"
    elif isinstance(exc, UnexpectedToken) and exc.token.value in _COMPARISONS and before.endswith(("<", ">")):
        # `x <> y`, `x >> 1`: two characters that are no operator here (hunt 13y)
        written = before[-1] + exc.token.value
        hint = (
            "'<>' is written '!='"
            if written == "<>"
            else f"'{written}' is no operator; a comparison is one of <, <=, >, >=, ==, !="
        )
    elif isinstance(exc, UnexpectedToken) and exc.token.value in _COMPARISONS and _COMPARED.search(before):
        hint = "comparisons do not chain: join two with 'and', as in 1 < x and x < 3"
    elif here.startswith("^"):
        hint = "a power is written '**', as in 2 ** 3 (which is 8)"
    elif here.startswith("?"):
        hint = "a choice is written 'A if CONDITION else B', as in 'stat if stat > 0 else 0'"
    elif here.startswith(("&&", "||", "!")) and not here.startswith("!="):
        written = here[:2] if here[0] != "!" else "!"
        hint = f"'{written}' is written '{_WORDS[written]}'"
    elif here[:1] in _TYPESET:
        hint = f"write '{_TYPESET[here[0]]}' for '{here[0]}' (a typeset character, as pasted from a document)"
    elif here[:1] in _SPACES:  # hunt 13h: no hint, though it looks like a space (or like nothing)
        said = _SPACES[here[0]]
        hint = (
            f"this is {said}, which shows as nothing: delete it"
            if "zero-width" in said
            else f"this is {said}, not a space: type a plain space here"
        )
    elif here[:1] in ("'", '"') and here[0] not in here[1:].split("\n")[0]:
        hint = f"the text opened with {here[0]} here is not closed: close it with {here[0]} on this line"
    elif isinstance(exc, UnexpectedToken) and (word := _word_hint(exc, here)) is not None:
        hint = word
    elif isinstance(exc, UnexpectedCharacters) and here[:1].isalpha() and not here[:1].isascii():
        # a letter to its author (`tötal`), refused as a let-name's is: the one rule, in its words
        hint = name_rule(here[:1])
    span = origin.span(line, col, line, col + 1)
    return ExprSyntaxError([Diagnostic("RC201", f"expression syntax error: {found}", span, hint)])


def _word_hint(exc: UnexpectedToken, here: str) -> str | None:
    """Where a word of the language meets a name: `x andy` (one name `andy`, where an operator was
    expected) or `not(x)` after an operator (a word where a name or value was expected); `here`
    is the text from the token on."""
    token, expected = exc.token, set(getattr(exc, "expected", ()) or ())
    after = here[len(token.value) : len(token.value) + 1]
    if after.isalpha() and not after.isascii():
        # `andé`: the word ends at a letter no name may hold, which is the mistake
        return name_rule(after)
    if token.type == "NAME":
        for word in KEYWORDS:
            rest = token.value[len(word) :]
            if token.value.startswith(word) and word.upper() in expected and rest:
                return (
                    f"'{token.value}' is one name, where an operator belongs; if '{word}' was meant,"
                    f" write it apart: '{word} {rest}'"
                )
        return None
    keyword = _KEYWORD_TOKENS.get(token.type)
    called = here[len(token.value) :].lstrip().startswith("(")  # `not(x)`, as if a function
    if keyword == "not" and "NAME" in expected and not called:  # `f == not g`: `not` is looser
        return (
            "'not' binds more loosely than operators and comparisons: put it in brackets, as in f == (not g)"
        )
    if keyword is not None and "NAME" in expected:
        return f"'{keyword}' is a word of the language: it cannot name a value or a function"
    return None
