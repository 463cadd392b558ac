"""Syntax tree back to canonical expression text (error messages, `show`, round-trip tests)."""

from __future__ import annotations

from fractions import Fraction

from . import ast

# Binding strength of each node kind; a child that binds looser than its parent gets parentheses.
_COND, _OR, _AND, _NOT, _CMP, _RANGE, _SUM, _PROD, _UNARY, _POW, _ATOM = range(11)


def _level(node: ast.Node) -> int:
    match node:
        case ast.Cond():
            return _COND
        case ast.Logic(op="or"):
            return _OR
        case ast.Logic():
            return _AND
        case ast.Not():
            return _NOT
        case ast.Compare():
            return _CMP
        case ast.Range():
            return _RANGE
        case ast.Binary(op="+" | "-"):
            return _SUM
        case ast.Binary(op="**"):
            return _POW
        case ast.Binary():
            return _PROD
        case ast.Unary():
            return _UNARY
        case ast.Num(value=v) if v < 0:
            return _UNARY
    return _ATOM


def to_text(node: ast.Node) -> str:
    """Canonical text that parses back to an equal tree."""
    return _print(node)


def _wrap(node: ast.Node, minimum: int) -> str:
    text = _print(node)
    return f"({text})" if _level(node) < minimum else text


def _print(node: ast.Node) -> str:
    match node:
        case ast.Num(value=v):
            if isinstance(v, Fraction) and v.denominator != 1:
                return _decimal(v)
            return str(v)
        case ast.Bool(value=v):
            return "true" if v else "false"
        case ast.Sym(name=n):
            return f'"{n}"' if "'" in n else f"'{n}'"
        case ast.Name(id=n):
            return n
        case ast.ListExpr(items=items):
            return "[" + ", ".join(_print(i) for i in items) + "]"
        case ast.Call(func=f, args=args):
            return f"{f}(" + ", ".join(_print(a) for a in args) + ")"
        case ast.Range(lo=a, hi=b):
            return f"{_wrap(a, _SUM)}..{_wrap(b, _SUM)}"
        case ast.Unary(op=op, operand=a):
            return f"{op}{_wrap(a, _UNARY)}"
        case ast.Binary(op="**", left=a, right=b):
            # Its left is an atom (`(-2) ** 2`, `(2 ** 3) ** 2`); its right a unary or a power
            # (`2 ** -1`, `2 ** 3 ** 2`), as Python reads them.
            return f"{_wrap(a, _ATOM)} ** {_wrap(b, _UNARY)}"
        case ast.Binary(op=op, left=a, right=b):
            lvl = _level(node)
            return f"{_wrap(a, lvl)} {op} {_wrap(b, lvl + 1)}"
        case ast.Compare(op=op, left=a, right=b):
            return f"{_wrap(a, _RANGE)} {op} {_wrap(b, _RANGE)}"
        case ast.Logic(op=op, left=a, right=b):
            lvl = _level(node)
            return f"{_wrap(a, lvl)} {op} {_wrap(b, lvl + 1)}"
        case ast.Not(operand=a):
            return f"not {_wrap(a, _NOT)}"
        case ast.Cond(then=a, test=t, other=b):
            return f"{_wrap(a, _OR)} if {_wrap(t, _OR)} else {_wrap(b, _COND)}"
    raise TypeError(f"cannot print {type(node).__name__}")  # pragma: no cover


def _decimal(value: Fraction) -> str:
    """A terminating decimal for a literal rational (literals are written as decimals)."""
    sign = "-" if value < 0 else ""
    value = abs(value)
    rest, twos, fives = value.denominator, 0, 0  # the places it takes: its denominator's 2s or 5s
    while rest % 2 == 0:
        rest, twos = rest // 2, twos + 1
    while rest % 5 == 0:
        rest, fives = rest // 5, fives + 1
    if rest != 1:  # pragma: no cover - a literal is written as a decimal: it terminates
        raise ValueError(f"{value} has no finite decimal form")
    places = max(twos, fives)  # as many as a literal has (it had stopped at 64: hunt 13y)
    if places == 0:
        return f"{sign}{value.numerator}.0"
    digits = str((value * 10**places).numerator).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}"
