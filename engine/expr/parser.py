"""Stage 3 — parse: expression text to the syntax tree, with spans placed in the YAML file.

One LALR parser is built once from `grammar.lark`; lark's exceptions stop here and become
`ExprSyntaxError`s that point into the ruleset file.

Analysing the grammar takes lark about 40 ms, a tenth of a fresh command's time, so its result is
kept in a file of lark's own (`cache=`), which lark reads back only when the grammar, its options
and lark's version all match. That file is a pickle, so it is kept only in a folder that this user
alone can write (`$XDG_CACHE_HOME/rulecraft`, made private), never in a shared temporary folder;
where there is no such folder, the grammar is analysed at import as before.
"""

from __future__ import annotations

import hashlib
import os
from fractions import Fraction
from importlib.resources import files
from typing import Any

import lark
from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from ..errors import MAX_DIGITS, Diagnostic, ExprSyntaxError, LimitError
from ..syntax.positions import ExprOrigin, SourceFile, Span
from . import ast

_GRAMMAR = files(__package__).joinpath("grammar.lark").read_text(encoding="utf-8")


def _cache_file() -> str | None:
    """Where lark may keep its analysis of the grammar: a file in a folder only this user can
    write, named by the grammar's hash and lark's version; None when there is no such folder."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "rulecraft")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        st = os.lstat(folder)
        private = st.st_uid == os.getuid() and not st.st_mode & 0o022 and os.access(folder, os.W_OK)
    except OSError:
        return None
    if not private:  # another user could write there: never read a pickle from it
        return None
    digest = hashlib.sha256(_GRAMMAR.encode()).hexdigest()[:16]
    return os.path.join(folder, f"grammar-{digest}-lark-{lark.__version__}.cache")


_PARSER = Lark(
    _GRAMMAR, parser="lalr", propagate_positions=True, maybe_placeholders=False, cache=_cache_file() or False
)

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
    "MINUS": "'-'",
    "PLUS": "'+'",
    "$END": "the end of the expression",
}


@v_args(meta=True)
class _Build(Transformer[Token, ast.Node]):
    """Builds nodes only; no checks here, so lark never wraps our errors."""

    def __init__(self, origin: ExprOrigin) -> None:
        super().__init__()
        self.origin = origin

    def _span(self, meta: Any) -> Any:
        if getattr(meta, "empty", True):
            return None
        return self.origin.span(meta.line, meta.column, meta.end_line, meta.end_column)

    def int(self, meta: Any, c: list[Token]) -> ast.Node:
        return ast.Num(int(c[0]), span=self._span(meta))

    def decimal(self, meta: Any, c: list[Token]) -> ast.Node:
        value = Fraction(str(c[0]))
        return ast.Num(value.numerator if value.denominator == 1 else value, span=self._span(meta))

    def symbol(self, meta: Any, c: list[Token]) -> ast.Node:
        return ast.Sym(str(c[0])[1:-1], span=self._span(meta))

    def true(self, meta: Any, c: list[Any]) -> ast.Node:
        return ast.Bool(True, span=self._span(meta))

    def false(self, meta: Any, c: list[Any]) -> ast.Node:
        return ast.Bool(False, span=self._span(meta))

    def name(self, meta: Any, c: list[Token]) -> ast.Node:
        return ast.Name(str(c[0]), span=self._span(meta))

    def qualified(self, meta: Any, c: list[Token]) -> ast.Node:
        """`foe.wounds`: an item of another character an action names (one name, with its dot)."""
        return ast.Name(f"{c[0]}.{c[1]}", span=self._span(meta))

    def call(self, meta: Any, c: list[Any]) -> ast.Node:
        args = tuple(c[1].children) if len(c) > 1 else ()
        return ast.Call(str(c[0]), args, span=self._span(meta))

    def list_expr(self, meta: Any, c: list[Any]) -> ast.Node:
        items = tuple(c[0].children) if c else ()
        return ast.ListExpr(items, span=self._span(meta))

    def args(self, meta: Any, c: list[Any]) -> Tree[Any]:
        return Tree("args", c)

    def cond(self, meta: Any, c: list[ast.Node]) -> ast.Node:
        return ast.Cond(c[0], c[1], c[2], span=self._span(meta))

    def or_(self, meta: Any, c: list[ast.Node]) -> ast.Node:
        return ast.Logic("or", c[0], c[1], span=self._span(meta))

    def and_(self, meta: Any, c: list[ast.Node]) -> ast.Node:
        return ast.Logic("and", c[0], c[1], span=self._span(meta))

    def not_(self, meta: Any, c: list[ast.Node]) -> ast.Node:
        return ast.Not(c[0], span=self._span(meta))

    def compare(self, meta: Any, c: list[Any]) -> ast.Node:
        return ast.Compare(str(c[1]), c[0], c[2], span=self._span(meta))

    def in_(self, meta: Any, c: list[ast.Node]) -> ast.Node:
        return ast.Compare("in", c[0], c[1], span=self._span(meta))

    def not_in(self, meta: Any, c: list[ast.Node]) -> ast.Node:
        return ast.Compare("not in", c[0], c[1], span=self._span(meta))

    def range(self, meta: Any, c: list[ast.Node]) -> ast.Node:
        return ast.Range(c[0], c[1], span=self._span(meta))

    def binop(self, meta: Any, c: list[Any]) -> ast.Node:
        return ast.Binary(str(c[1]), c[0], c[2], span=self._span(meta))

    def neg(self, meta: Any, c: list[ast.Node]) -> ast.Node:
        operand = c[0]
        if isinstance(operand, ast.Num):
            return ast.Num(-operand.value, span=self._span(meta))
        return ast.Unary("-", operand, span=self._span(meta))

    def pos(self, meta: Any, c: list[ast.Node]) -> ast.Node:
        return c[0]


MAX_DEPTH = 50
MAX_SIZE = 2000


def parse(
    text: str, origin: ExprOrigin | None = None, *, max_depth: int = MAX_DEPTH, max_size: int = MAX_SIZE
) -> ast.Node:
    """Parse one expression; `origin` says where its first character sits in the ruleset.

    An expression nested more than `max_depth` operations deep or holding more than `max_size`
    names, numbers and operations, or a number of more than `MAX_DIGITS` digits, is refused
    (`RC202`) before anything recursive sees it: the tree, the compiler and Python's own parser of
    the generated code all stay far from their limits."""
    if origin is None:
        origin = ExprOrigin(SourceFile("<expr>", text), 1, 1, 0)
    return _parse(text, origin, max_depth, max_size)


def _parse(text: str, origin: ExprOrigin, max_depth: int = MAX_DEPTH, max_size: int = MAX_SIZE) -> ast.Node:
    try:
        tree = _PARSER.parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(text, origin, exc) from None
    _bound(tree, origin, max_depth, max_size)
    node = _Build(origin).transform(tree)
    assert isinstance(node, ast.Node)
    return node


def _bound(tree: Tree[Token], origin: ExprOrigin, max_depth: int, max_size: int) -> None:
    """Walk lark's tree without recursion; refuse it when it is too deep, too large, or holds a
    number with too many digits."""
    size = 0
    stack: list[tuple[Tree[Token] | Token, int]] = [(tree, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Token):
            if item.type in ("INT", "DECIMAL") and sum(ch.isdigit() for ch in item) > MAX_DIGITS:
                span = origin.span(item.line or 1, item.column or 1, item.end_line or 1, item.end_column or 2)
                raise _too_large(
                    f"a number of {sum(ch.isdigit() for ch in item)} digits, over the limit of {MAX_DIGITS}",
                    span,
                    f"numbers have at most {MAX_DIGITS} digits",
                )
            continue
        size += 1
        if depth > max_depth or size > max_size:
            meta = item.meta
            line, col = getattr(meta, "line", 1), getattr(meta, "column", 1)
            span = origin.span(line, col, line, col + 1)
            if depth > max_depth:
                raise _too_large(
                    f"this expression is nested more than {max_depth} operations deep",
                    span,
                    "split it into named values (let:) or tables; the embedder's Limits set this bound "
                    "(max_expression_depth)",
                )
            raise _too_large(
                f"this expression has more than {max_size} parts",
                span,
                "split it into named values (let:) or tables; the embedder's Limits set this bound "
                "(max_expression_size)",
            )
        stack.extend((child, depth + 1) for child in item.children)


def _too_large(message: str, span: Span, hint: str) -> LimitError:
    return LimitError([Diagnostic("RC202", message, span, hint)])


def _token_word(name: str) -> str:
    """How a grammar terminal reads to an author (never lark's internal names)."""
    if name in _TOKEN_WORDS:
        return _TOKEN_WORDS[name]
    try:
        pattern = _PARSER.get_terminal(name).pattern
    except KeyError:
        return name.lower()
    return repr(pattern.value) if pattern.type == "str" else name.lower()


def _syntax_error(text: str, origin: ExprOrigin, exc: UnexpectedInput) -> ExprSyntaxError:
    line = getattr(exc, "line", 1) or 1
    col = getattr(exc, "column", 1) or 1
    if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END"):
        lines = text.splitlines() or [""]
        line, col = len(lines), len(lines[-1]) + 1
        found = "the expression ends too early"
    elif isinstance(exc, UnexpectedCharacters):
        found = f"unexpected character {text.splitlines()[line - 1][col - 1]!r}"
    elif isinstance(exc, UnexpectedToken):
        found = f"unexpected {exc.token.value!r}"
    else:  # pragma: no cover - lark has no other kinds today
        found = "unexpected input"
    before = "\n".join(
        text.splitlines()[: line - 1] + [text.splitlines()[line - 1][: col - 1] if text.splitlines() else ""]
    )
    open_parens = before.count("(") - before.count(")")
    open_brackets = before.count("[") - before.count("]")
    closers = {
        "RPAR": open_parens > 0,
        "RSQB": open_brackets > 0,
        "COMMA": open_parens > 0 or open_brackets > 0,
    }
    expected = sorted({_token_word(t) for t in getattr(exc, "expected", ()) or () if closers.get(t, True)})
    hint = f"expected {', '.join(expected[:6])}" if expected else None
    if "=" in text and "==" not in text and not any(op in text for op in ("<=", ">=", "!=")):
        hint = "comparison is written '==' (a single '=' is not an operator)"
    span = origin.span(line, col, line, col + 1)
    return ExprSyntaxError([Diagnostic("RC201", f"expression syntax error: {found}", span, hint)])
