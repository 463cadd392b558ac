"""The power operator `**`: Python's reading and exact semantics.

It binds tighter than a unary minus on its left and looser on its right, and is right-associative
(`-2 ** 2` is -4, `2 ** -1` is 1/2, `2 ** 3 ** 2` is 512); its exponent must be whole (`RC304`),
`0` to a negative power is a division by zero (`RC502`), and a power past the bound of computed
numbers (`RC503`) is refused before it is worked out, so `10 ** 1000000000` ends at once.
"""

from __future__ import annotations

import random
import subprocess
import sys
import uuid
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from _repo import REPO_ROOT
from _stats import chi_square_p
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.compiler import codegen
from engine.expr import ast
from engine.expr.parser import parse
from engine.expr.printer import to_text


def ruleset(value: str, *, k: str = "{type: int, min: -2000000000, max: 2000000000, default: 2}") -> str:
    """One check: a d6 `d`, inputs `k` and `q`, and the named value `v` (written as given)."""
    return f"""rulecraft: 1
name: powers
checks:
  act:
    inputs:
      k: {k}
      q: {{type: int, min: 1, max: 9, default: 1}}
    roll:
      d: {{die: 6}}
    let:
      v: "{value}"
    outcomes: [low, high]
    outcome: "'high' if v >= 10 else 'low'"
"""


def value(text: str, *, forced: int = 2, **inputs: int) -> object:
    return engine.load(ruleset(text)).roll("act", forced={"d": forced}, **inputs).values["v"]


# -- the reading --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,tree",
    [
        ("-2 ** 2", ast.Unary("-", ast.Binary("**", ast.Num(2), ast.Num(2)))),
        ("2 ** 3 ** 2", ast.Binary("**", ast.Num(2), ast.Binary("**", ast.Num(3), ast.Num(2)))),
        ("2 ** -1", ast.Binary("**", ast.Num(2), ast.Num(-1))),
        ("(-2) ** 2", ast.Binary("**", ast.Num(-2), ast.Num(2))),
        ("2 * 3 ** 2", ast.Binary("*", ast.Num(2), ast.Binary("**", ast.Num(3), ast.Num(2)))),
        ("a ** b * c", ast.Binary("*", ast.Binary("**", ast.Name("a"), ast.Name("b")), ast.Name("c"))),
        ("x**-y", ast.Binary("**", ast.Name("x"), ast.Unary("-", ast.Name("y")))),
    ],
)
def test_power_reads_as_python_reads_it(text: str, tree: ast.Node) -> None:
    node = parse(text)
    assert node == tree
    assert parse(to_text(node)) == node


@pytest.mark.parametrize(
    "text,printed",
    [
        ("(-2) ** 2", "(-2) ** 2"),
        ("(2 ** 3) ** 2", "(2 ** 3) ** 2"),
        ("-(2 ** 2)", "-2 ** 2"),
        ("2 ** (3 ** 2)", "2 ** 3 ** 2"),
        ("(-x) ** 2", "(-x) ** 2"),
        ("2 ** (-x)", "2 ** -x"),
        ("(a * b) ** (c + d)", "(a * b) ** (c + d)"),
        ("(1.5) ** 2", "1.5 ** 2"),
        ("(-1.5) ** 2", "(-1.5) ** 2"),
    ],
)
def test_power_prints_with_the_brackets_it_needs(text: str, printed: str) -> None:
    assert to_text(parse(text)) == printed


def test_a_star_too_many_is_a_syntax_error() -> None:
    for text in ("2 *** 3", "2 ** ** 3", "2 * * 3"):
        with pytest.raises(engine.ExprSyntaxError):
            parse(text)


def test_a_caret_for_a_power_is_told_to_write_two_stars() -> None:
    with pytest.raises(engine.ExprSyntaxError) as caught:
        parse("d ^ 2")
    (d,) = caught.value.diagnostics
    assert d.code == "RC201" and d.span is not None and d.span.col == 3
    assert d.hint == "a power is written '**', as in 2 ** 3 (which is 8)"


# -- the values, folded when constant and worked out when run ------------------------------------


@pytest.mark.parametrize(
    "text,expected",
    [
        ("-2 ** 2", -4),
        ("(-2) ** 2", 4),
        ("2 ** 3 ** 2", 512),
        ("(2 ** 3) ** 2", 64),
        ("2 ** -1", Fraction(1, 2)),
        ("2 ** -2 + 1", Fraction(5, 4)),
        ("1.5 ** 2", Fraction(9, 4)),
        ("(2/3) ** -2", Fraction(9, 4)),
        ("(-2) ** -3", Fraction(-1, 8)),
        ("0 ** 0", 1),
        ("(-1) ** 1000000000", 1),
        ("1 ** 1000000000", 1),
        ("0 ** 1000000000", 0),
        ("2 * 3 ** 2", 18),
        ("4 ** (6/3)", 16),
    ],
)
def test_constant_powers_are_folded_exactly(text: str, expected: object) -> None:
    """Folded when the ruleset loads (no name): the value, exact, and an int when whole."""
    got = value(text)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize(
    "text,inputs,expected",
    [
        ("d ** k", {"k": 3}, 8),
        ("d ** k", {"k": -1}, Fraction(1, 2)),
        ("d ** k", {"k": 0}, 1),
        ("-d ** k", {"k": 2}, -4),
        ("(-d) ** k", {"k": 3}, -8),
        ("(d / q) ** k", {"k": -3, "q": 3}, Fraction(27, 8)),
        ("d ** k ** q", {"k": 2, "q": 3}, 256),
        ("k ** (d - 1)", {"k": -3}, -3),
        ("d ** (q / 3)", {"q": 6}, 4),
        ("d ** (2 ** -2 * 8)", {}, 4),  # a whole constant, if folded as the fraction 2/1
    ],
)
def test_powers_worked_out_when_run(text: str, inputs: dict[str, int], expected: object) -> None:
    got = value(text, **inputs)
    assert got == expected and type(got) is type(expected)


@settings(max_examples=150, deadline=None)
@given(
    num=st.integers(-9, 9),
    den=st.integers(1, 9),
    power=st.integers(-12, 12),
)
def test_a_power_is_pythons_exact_power(num: int, den: int, power: int) -> None:
    """The runtime helper against Python's own exact arithmetic on fractions."""
    base = Fraction(num, den)
    if base == 0 and power < 0:
        with pytest.raises(engine.EvalError) as caught:
            codegen.rt_pow(num if den == 1 else base, power, None)
        assert caught.value.diagnostics[0].code == "RC502"
        return
    expected = base**power
    got = codegen.rt_pow(num if den == 1 else base, power, None)
    assert got == expected
    assert type(got) is (int if expected.denominator == 1 else Fraction)


@settings(max_examples=60, deadline=None)
@given(k=st.integers(-5, 40), q=st.integers(1, 9), d=st.integers(1, 6))
def test_compiled_powers_agree_with_python(k: int, q: int, d: int) -> None:
    got = engine.load(ruleset("(d / q) ** k")).roll("act", forced={"d": d}, k=k, q=q).values["v"]
    assert got == Fraction(d, q) ** k


def test_powers_lower_to_the_helper_and_small_ones_to_an_inline_product(monkeypatch) -> None:
    """`**` is `rt_pow` in the generated code. A whole power of a die's face by a constant is known
    small (`Expressions._bound`), so a product of it is multiplied inline, unchecked; a power by
    an input is not, and its product keeps the check of `rt_mul`'s bound. Both give the numbers."""
    written: list[str] = []
    source = codegen.Emitter.source

    def spy(self: codegen.Emitter, *args: object, **kwargs: object) -> str:
        text: str = source(self, *args, **kwargs)  # type: ignore[arg-type]
        written.append(text)
        return text

    monkeypatch.setattr(codegen.Emitter, "source", spy)
    text = ruleset("d ** 2 * d - d ** k * d") + f"# {uuid.uuid4().hex}: a text loaded nowhere else\n"
    rs = engine.load(text)
    code = "\n".join(written)
    assert "(_pow(v_d, 2, _k0) * v_d)" in code
    assert "_p := _pow(v_d, _e_k, _k2) * v_d) is _int" in code
    assert rs.distribution("act", k=2).values["v"].fractions() == {0: Fraction(1)}


# -- over a die: exact, and sampled alike --------------------------------------------------------


def test_the_exact_distribution_of_a_power_over_a_die() -> None:
    rs = engine.load(ruleset("d ** k - 1"))
    dist = rs.distribution("act", k=2)
    assert dist.values["v"].fractions() == {f * f - 1: Fraction(1, 6) for f in range(1, 7)}
    assert {s.name: p for s, p in dist.table()} == {"low": Fraction(1, 2), "high": Fraction(1, 2)}
    halves = rs.distribution("act", k=-1).values["v"].fractions()
    assert halves == {Fraction(1, f) - 1: Fraction(1, 6) for f in range(1, 7)}


def test_the_sampler_agrees_with_the_exact_evaluator() -> None:
    rs = engine.load(ruleset("(d - 3) ** k"))
    exact = rs.distribution("act", k=3).values["v"].fractions()
    assert exact == {(f - 3) ** 3: Fraction(1, 6) for f in range(1, 7)}
    rng = random.Random(20261205)
    observed = Counter(rs.roll("act", rng, k=3).values["v"] for _ in range(3000))
    assert set(observed) <= set(exact)
    assert chi_square_p(observed, exact) > 1e-6
    batch = rs.sample("act", 3000, random.Random(7), method="rolled", k=3)
    assert chi_square_p(dict(batch.values["v"]), exact) > 1e-6


# -- refused ---------------------------------------------------------------------------------------


def _error(text: str, **inputs: int) -> engine.RulecraftError:
    with pytest.raises(engine.RulecraftError) as caught:
        rs = engine.load(ruleset(text))
        rs.roll("act", forced={"d": 1}, **inputs)
    return caught.value


def _place(text: str) -> tuple[int, int]:
    """Where `v`'s expression starts in `ruleset(text)` (its line and column, 1-based)."""
    lines = ruleset(text).splitlines()
    line = next(i for i, s in enumerate(lines, 1) if s.startswith("      v: "))
    return line, lines[line - 1].index('"') + 2


@pytest.mark.parametrize("text", ["d ** 0.5", "4 ** (1/2) + d", "d ** (1/2)"])
def test_a_constant_fractional_exponent_is_refused_when_the_ruleset_loads(text: str) -> None:
    with pytest.raises(engine.CompileError) as caught:
        engine.load(ruleset(text))
    (d,) = caught.value.diagnostics
    assert d.code == "RC304" and "an exponent must be a whole number" in d.message
    assert d.span is not None and (d.span.line, d.span.col) == _place(text)


def test_a_fractional_exponent_met_when_run_is_refused_at_the_operator() -> None:
    error = _error("1 + d ** (k / 2)", k=1)
    (d,) = error.diagnostics
    assert d.code == "RC304" and "an exponent must be a whole number, got 1/2" in d.message
    line, col = _place("1 + d ** (k / 2)")
    assert d.span is not None and (d.span.line, d.span.col) == (line, col + 4)  # at `d ** …`
    assert "d ** (k / 2)" in error.render() and "^" in error.render()


def test_zero_to_a_negative_power_is_a_division_by_zero() -> None:
    error = _error("(d - 1) ** k", k=-1)
    (d,) = error.diagnostics
    assert d.code == "RC502" and d.message == "division by zero"
    assert d.span is not None and (d.span.line, d.span.col) == _place("(d - 1) ** k")


def test_a_power_past_the_bound_is_refused_at_the_operator() -> None:
    error = _error("2 + (d + 1) ** k", k=1_000_000_000)
    (d,) = error.diagnostics
    assert d.code == "RC503" and "more than 1000 digits" in d.message
    line, col = _place("2 + (d + 1) ** k")
    assert d.span is not None and (d.span.line, d.span.col) == (line, col + 4)


def test_a_power_just_within_the_bound_is_made() -> None:
    """The estimate refuses only what the bound refuses: 10 ** 999 has 1000 digits, 10 ** 1000
    one more (and 2 ** 3321 is the largest power of two below 10 ** 1000)."""
    assert value("(d + 8) ** k", forced=2, k=999) == 10**999
    assert value("d ** k", forced=2, k=3321) == 2**3321
    assert value("(d + 8) ** k", forced=2, k=-999) == Fraction(1, 10**999)
    assert value("(d / 10) ** k", forced=2, k=1000) == Fraction(1, 5**1000)  # 699 digits
    for text, k in (("(d + 9) ** k", 1000), ("(d + 1) ** k", 3322), ("(d + 9) ** k", -1000)):
        assert [x.code for x in _error(text, k=k).diagnostics] == ["RC503"]  # (d is 1 here)


def test_a_huge_constant_power_is_refused_when_the_ruleset_loads() -> None:
    with pytest.raises(engine.RulecraftError) as caught:
        engine.load(ruleset("10 ** 1000000000 + d"))
    (d,) = caught.value.diagnostics
    assert (
        d.code == "RC503"
        and d.span is not None
        and (d.span.line, d.span.col) == _place("10 ** 1000000000 + d")
    )


TIME_BOX = 120
"""Seconds a command may take before it counts as hung: far beyond the milliseconds the refusals
take, far below what working out 10 ** 1000000000 (or its exact distribution) would."""


@pytest.mark.parametrize(
    "command",
    [
        ["roll", "{file}", "act", "--input", "k=1000000000", "--force", "d=6"],
        ["prob", "{file}", "act", "--input", "k=1000000000"],
        ["roll", "{file}", "act", "--input", "k=-1000000000", "--force", "d=6"],
    ],
)
def test_a_huge_power_fails_fast_with_its_caret(command: list[str], tmp_path: Path) -> None:
    """Run in a process of its own, time-boxed: a power worked out before it is checked would
    hang here (and eat gigabytes), not fail."""
    text = ruleset("2 + d ** k")
    path = tmp_path / "powers.yaml"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "engine", *(c.format(file=path) for c in command)],
        capture_output=True,
        text=True,
        timeout=TIME_BOX,
        cwd=REPO_ROOT,
    )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    line, col = _place("2 + d ** k")
    head = f"{path}:{line}:{col + 4}: error RC503: "
    assert head in done.stderr, done.stderr
    shown = done.stderr[done.stderr.index(head) :].splitlines()
    assert shown[1].strip() == 'v: "2 + d ** k"'
    assert shown[2].index("^") == col + 4 + 1  # two spaces of indent, then the column
