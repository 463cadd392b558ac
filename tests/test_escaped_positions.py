"""Where a character of a double-quoted YAML expression sits in the file, when escapes were used
(`Document.expr_origin`): each character of the value is placed at its own source character, or
at the backslash of the escape that stands for it, so a caret inside an expression stays on the
expression's line and under what the author wrote. A caret under a token ending in an escape (or
in a single-quoted scalar's `''`) spans all of it: it stopped at the backslash (hunt 13h)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.syntax.document import _escape
from engine.syntax.document import load as load_yaml
from engine.syntax.positions import SourceFile

LETTERS = "abcdefghijklmnopqrstuvwxyz_ =<>+-*()0123456789'\"\\\t/"
ONE_LETTER = {'"': '\\"', "\\": "\\\\", "\t": "\\t", "/": "\\/"}
"""YAML's one-letter escapes for characters an expression may hold."""


def written(ch: str, how: int) -> str:
    """`ch` inside a double-quoted scalar: as itself (a quote or a backslash cannot be: they are
    written with their one-letter escape), or as one of YAML's escapes for it (4: the one-letter
    escape, where it has one)."""
    if how == 4 or (how == 0 and ch in '"\\'):
        return ONE_LETTER.get(ch, ch)
    if how == 1:
        return f"\\x{ord(ch):02x}"
    if how == 2:
        return f"\\u{ord(ch):04x}"
    if how == 3:
        return f"\\U{ord(ch):08x}"
    return ch


@settings(max_examples=300)
@given(st.lists(st.tuples(st.sampled_from(LETTERS), st.integers(0, 4)), min_size=1, max_size=30))
def test_each_character_is_placed_at_itself_or_at_its_escape(chars: list[tuple[str, int]]) -> None:
    texts = [written(ch, how) for ch, how in chars]
    body = "".join(texts)
    text = f'top:\n  expr: "{body}"\nafter: 1\n'
    doc = load_yaml(SourceFile("t.yaml", text))
    value = doc.data["top"]["expr"]
    assert value == "".join(ch for ch, _ in chars)
    origin = doc.expr_origin(("top", "expr"))
    lines = text.splitlines()
    for k, ((ch, _), shown) in enumerate(zip(chars, texts), start=1):
        span = origin.span(1, k, 1, k + 1)
        assert span.line == 2
        assert (span.end_line, span.end_col - span.col) == (2, len(shown)), (body, k)  # all of it
        at = lines[1][span.col - 1 :]
        if shown != ch:  # written as an escape: placed at its backslash
            found = _escape(lines[1], span.col - 1)
            assert at.startswith(shown) and found is not None and found[0] == ch, (body, k)
        else:
            assert at.startswith(ch), (body, k)


@pytest.mark.parametrize("brk", ["\u2028", "\u2029", "\x85"])
def test_a_line_separator_in_a_scalar_leaves_the_source_line_under_the_caret(brk: str) -> None:
    """`SourceFile.lines` split with `str.splitlines`, which counts U+2028, U+0085, a form feed
    and others as line ends where the YAML reader and `line_starts` count only a newline: a
    mistake below a title holding one was shown with the line above it (found by hunt 3)."""
    text = (
        f'rulecraft: 1\nname: coin\ntitle: "a{brk}b"\nchecks:\n  flip:\n    roll: {{d: {{die: 2}}}}\n'
        '    outcomes: [tails, heads]\n    outcome: "heads if d == 2 else tailz"\n'
    )
    with pytest.raises(engine.CompileError) as caught:
        engine.load(text)
    [d] = caught.value.diagnostics
    assert d.span is not None and (d.span.line, d.span.col) == (8, 36)
    assert d.span.source.line(8) == '    outcome: "heads if d == 2 else tailz"'
    for other in (brk, "\x0b", "\x0c", "\x1c"):  # YAML refuses these three: the rule is the same
        assert SourceFile("x", f"a{other}b\r\nc\n").lines == (f"a{other}b", "c")


@settings(max_examples=200)
@given(st.lists(st.sampled_from("ab'( )+1"), min_size=1, max_size=30))
def test_a_quote_doubled_in_a_single_quoted_scalar_is_one_character_two_columns(chars: list[str]) -> None:
    body = "".join("''" if ch == "'" else ch for ch in chars)
    text = f"top:\n  expr: '{body}'\nafter: 1\n"
    doc = load_yaml(SourceFile("t.yaml", text))
    assert doc.data["top"]["expr"] == "".join(chars)
    origin = doc.expr_origin(("top", "expr"))
    line = text.splitlines()[1]
    col = len("  expr: '") + 1
    for k, ch in enumerate(chars, start=1):
        span = origin.span(1, k, 1, k + 1)
        width = 2 if ch == "'" else 1
        assert (span.line, span.col, span.end_col) == (2, col, col + width), (body, k)
        assert line[col - 1 : col - 1 + width] == ("''" if ch == "'" else ch)
        col += width


@pytest.mark.parametrize(
    ("outcome", "carets"),
    [
        ('"zor\\u006B"', "^^^^^^^^^"),  # an unknown name ending in an escape: all nine columns
        ("'''b'' if d > ''x'' else ''a'''", "^^^^^"),  # a string in doubled quotes: all five
    ],
)
def test_the_caret_spans_a_token_ending_in_an_escape(outcome: str, carets: str) -> None:
    text = (
        "rulecraft: 1\nname: caret\nchecks:\n  c:\n    roll: {d: {die: 6}}\n"
        f"    outcomes: [a, b]\n    outcome: {outcome}\n"
    )
    with pytest.raises(engine.CompileError) as caught:
        engine.load(text)
    [d] = caught.value.diagnostics
    assert d.span is not None and d.span.line == 7
    shown = d.span.excerpt().splitlines()
    assert shown[-1].strip() == carets, d.span.excerpt()
