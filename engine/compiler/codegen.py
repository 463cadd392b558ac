"""Python code for compiled expressions, tables and rule lists.

The compiler type-checks the syntax tree and asks this module for Python source text; each
expression then becomes one Python function (as jinja compiles templates to Python), which
is several times faster than walking the tree on every roll — and the exact evaluator runs
these functions once per state, so speed here is speed everywhere.

The source is built only from our own syntax tree: names are identifiers checked by the
grammar and the schema, and every value (numbers, symbols, functions) is passed in through a
table of constants, never as text. Nothing a ruleset author writes is pasted into code.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from ..compiled import compile_kept
from ..errors import Diagnostic, EvalError, LimitError, limit_advice
from ..frozen import replace
from ..model.values import Multi, normalize
from ..runtime import kinds
from ..runtime.bounds import TOO_BIG, bounded, too_big
from ..runtime.comparing import found_in
from ..runtime.folds import Summary
from ..runtime.work import current_work
from ..syntax.clock import Clock
from ..syntax.positions import Span


def _fail(code: str, message: str, span: Span | None, hint: str | None = None) -> EvalError:
    return EvalError([Diagnostic(code, message, span, hint)])


def rt_div(x: Any, y: Any, span: Span | None) -> Any:
    """x / y, exact, refused like a product when the quotient has more than `MAX_COMPUTED_DIGITS`
    digits; sums, differences and remainders are capped too (`Compiler._lower`, `rt_mod`): a sum
    of fractions has a denominator as long as its terms' together (hunt 13y: seven terms of 1,000
    digits each made a number no roll could show)."""
    if y == 0:
        raise _fail("RC502", "division by zero", span)
    if type(x) is int and type(y) is int:
        q, r = divmod(x, y)
        return q if r == 0 else bounded(Fraction(x, y), span)
    return bounded(normalize(Fraction(x) / y), span)


def rt_mul(x: Any, y: Any, span: Span | None) -> Any:
    """x * y, refused when the product has more than `MAX_COMPUTED_DIGITS` digits: products are
    the one way a ruleset's numbers grow fast (a value squared forty times), and every operand is
    itself bounded, so the product is cheap to make before it is checked."""
    return bounded(x * y, span)


_TOO_BIG_BITS = TOO_BIG.bit_length()


def rt_pow(x: Any, y: Any, span: Span | None) -> Any:
    """x ** y, exact, for a whole exponent (`RC304` for another: a root is seldom a fraction);
    `2 ** -1` is 1/2, and `0 ** -1` a division by zero (`RC502`). Bounded like a product, and a
    power past the bound is refused before it is made: a numerator or denominator of b bits is at
    least 2 ** (b - 1), so its |y|-th power has at least (b - 1) * |y| bits, and when that is the
    bound's bits or more the power is refused at once (`10 ** 1000000000` ends there); otherwise
    it has fewer than twice the bound's bits, cheap to make and then checked exactly. (A base of
    1 or -1 has b = 1 whatever the exponent: its power is 1 or -1, made in as many squarings as the
    exponent has bits.)"""
    y = normalize(y) if isinstance(y, Fraction) else y
    if isinstance(y, Fraction):
        raise _fail(
            "RC304",
            f"an exponent must be a whole number, got {y}",
            span,
            "a fractional power (a root) is seldom an exact number; round the exponent, or keep "
            "the number whole",
        )
    if type(y) is not int or not isinstance(x, (int, Fraction)) or isinstance(x, bool):
        raise TypeError(f"unsupported operand type(s) for **: {type(x).__name__} and {type(y).__name__}")
    if x == 0 and y < 0:
        raise _fail("RC502", "division by zero", span, f"a negative power divides: 0 ** {y} is 1 / 0")
    n = abs(y)
    parts = (x, 1) if type(x) is int else (x.numerator, x.denominator)
    if any((abs(part).bit_length() - 1) * n >= _TOO_BIG_BITS for part in parts):
        raise too_big(span)
    p = x**n
    return bounded(normalize(Fraction(1) / p if y < 0 else p), span)


def rt_floordiv(x: Any, y: Any, span: Span | None) -> Any:
    if y == 0:
        raise _fail("RC502", "division by zero", span)
    return x // y


def rt_mod(x: Any, y: Any, span: Span | None) -> Any:
    if y == 0:
        raise _fail("RC502", "division by zero", span)
    return bounded(normalize(x % y), span)  # fractions': a denominator of both sizes


def rt_range(lo: Any, hi: Any, span: Span | None) -> range:
    lo, hi = normalize(lo), normalize(hi)
    if not isinstance(lo, int) or not isinstance(hi, int):
        raise _fail("RC304", f"a range needs whole numbers, got {lo}..{hi}", span)
    return range(lo, hi + 1)


def rt_nomatch(span: Span | None, what: str, shown: str) -> EvalError:
    return _fail("RC501", f"no {what} matched", span, f"add an 'else:' row; nothing matched {shown}")


def rt_pairs(names: tuple[str, ...], *values: Any) -> str:
    return ", ".join(f"{n} = {v}" for n, v in zip(names, values))


def rt_wrong(span: Span | None, exc: Exception) -> EvalError:
    """A Python error inside generated code: a value of an unexpected kind reached an operation."""
    if isinstance(exc, EvalError):
        if all(d.span is not None for d in exc.diagnostics):
            return exc
        return EvalError([d if d.span is not None else replace(d, span=span) for d in exc.diagnostics])
    return _fail(
        "RC506",
        f"cannot evaluate this: {exc}",
        span,
        "a value of an unexpected kind reached an operation; declaring table parameters and results "
        "('params: {x: int}', 'returns:') lets rulecraft check them when it loads",
    )


def rt_show(env: dict[str, Any], *dice: tuple[str, Any]) -> str:
    """The values a roll that no rule matched had, for its message: the scope's but its dice,
    then each die by name (a die the scope held was shown twice, once unnamed: hunt 13j); a pool
    the exact evaluator read only through its statistics, as those (`sum(p) = 12`)."""
    named = {name for name, _ in dice}
    parts = [f"{k} = {v}" for k, v in env.items() if k not in named and not isinstance(v, (Multi, Summary))]
    for name, v in dice:
        if isinstance(v, Summary):
            parts += [f"{k[0]}({', '.join([name, *map(str, k[1:])])}) = {x}" for k, x in v.results.items()]
        else:
            parts.append(f"{name} = {v}")
    return ", ".join(parts)


_RUNTIME: dict[str, Any] = {
    "_show": rt_show,
    "_pairs": rt_pairs,
    "_wrong": rt_wrong,
    "_want": kinds.want,
    "_compare": kinds.compare,
    "_called": kinds.call,
    "_reading": kinds.reading,
    "_Error": (TypeError, ValueError, ArithmeticError, KeyError, IndexError, AttributeError, EvalError),
    "_div": rt_div,
    "_mul": rt_mul,
    "_pow": rt_pow,
    "_B": TOO_BIG,
    "_type": type,
    "_int": int,
    "_work": current_work,
    "_floordiv": rt_floordiv,
    "_mod": rt_mod,
    "_range": rt_range,
    "_in": found_in,
    "_nomatch": rt_nomatch,
    "__builtins__": {},
}


CLOCK_CODE = 20_000
"""Characters of code written or compiled between two looks at the load's clock (a few
milliseconds of work, as `work.CLOCK_EVERY` units are)."""


class Emitter:
    """Holds the constants that generated code refers to, and turns source into functions."""

    def __init__(self, max_code: int) -> None:
        """`max_code`: the most characters of source it may turn into functions (`Limits.max_code`):
        a ruleset's source can grow faster than its text, as each named value's own loop repeats
        the values it reads (a chain of 600 values, each reading the one before, made 26 MB of
        source, compiled in 3.5 s; 1,500 of them took over a minute)."""
        self.namespace: dict[str, Any] = dict(_RUNTIME)
        self._ids: dict[int, str] = {}
        self.max_code = max_code
        self.code = 0
        """Characters of source turned into functions so far (a cached compile counts alike)."""
        self.passed: Diagnostic | None = None
        """`max_code` passed, where it was first: from there nothing is compiled (`define` makes a
        function that raises it), and the compile goes on checking the rest, so that what it finds
        is reported with it (`Structure.run`) and nothing is left unmade to be reported again."""
        self.clock: Clock | None = None
        """The load's clock, when it has a deadline of its own (`compile_document(work=)`): read
        every `CLOCK_CODE` characters of code written and compiled (`_clock`)."""

    def const(self, value: Any) -> str:
        """A name in the generated code's namespace that holds `value`."""
        if isinstance(value, bool):
            return "True" if value else "False"
        if type(value) is int:
            return repr(value)
        key = id(value)
        if key not in self._ids:
            name = f"_k{len(self._ids)}"
            self._ids[key] = name
            self.namespace[name] = value
        return self._ids[key]

    def expression(self, source: str, span: Span | None = None) -> Callable[[dict[str, Any]], Any]:
        """A function of the environment dict that evaluates `source`."""
        return self.function("expr", ["env"], [f"return {source}"], span)

    def function(
        self, name: str, params: list[str], body: list[str], span: Span | None = None
    ) -> Callable[..., Any]:
        """A function with the given positional parameter names and body lines.

        Any Python error inside becomes an `EvalError` at `span` (zero cost until raised), so
        an embedder never sees a traceback from a ruleset."""
        return self.define(name, self.source(name, params, body, span))

    def source(self, name: str, params: list[str], body: list[str], span: Span | None = None) -> str:
        """The source of `function(name, params, body, span)`, charged against `max_code` now and
        turned into a function later by `define`: a writer of many functions charges them all
        first, so a ruleset over the limit is refused before any of them is compiled (compiling
        is most of the cost of a long chain of values)."""
        args = ", ".join(params)
        where = self.const(span)
        lines = [
            "try:",
            *("    " + line for line in body),
            "except _Error as exc:",
            f"    raise _wrong({where}, exc) from None",
        ]
        text = f"def {name}({args}):\n" + "\n".join("    " + line for line in lines) + "\n"
        self.code += len(text)
        self._clock(len(text))
        if self.code > self.max_code and self.passed is None:
            self.passed = Diagnostic(
                "RC503",
                f"this ruleset compiles to more than {self.max_code:,} characters of code (Limits.max_code)",
                span,
                **limit_advice(
                    "max_code",
                    "a named value's code repeats the values it reads, so a long chain of "
                    "values each reading the one before grows as its square: read fewer values "
                    "through each other",
                ),
            )
        return text

    def define(self, name: str, text: str) -> Callable[..., Any]:
        """The function `name` that `text` (from `source`, so already charged) defines; past
        `max_code`, one that raises it (the ruleset is refused, so none is ever run but by the
        compiler, folding a constant, which leaves the constant unfolded)."""
        if self.passed is not None:
            return _refusing(self.passed)
        self._clock(len(text))
        local: dict[str, Any] = {}
        exec(compile_kept(text, "<rulecraft>"), self.namespace, local)
        fn: Callable[..., Any] = local[name]
        return fn

    def _clock(self, n: int) -> None:
        """Read the load's clock now and then, when it has one (a `DeadlineError` once its
        deadline has passed): writing and compiling code is most of a load, and a large ruleset
        sent to a server takes seconds. Past the deadline every call reads it again, so a caller
        that took the error for a constant it could not fold meets it at its next function."""
        if self.clock is not None:
            self.clock.tick(n)


def _refusing(passed: Diagnostic) -> Callable[..., Any]:
    """A function in place of one not compiled past `max_code`: it raises that limit."""

    def refused(*_: Any, **__: Any) -> Any:
        raise LimitError([passed])

    return refused
