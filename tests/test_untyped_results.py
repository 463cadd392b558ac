"""A table with untyped parameters and no `returns` gives a value whose type is known only when it
runs (`any`). Where such a value meets an operation that needs one kind — arithmetic, a numeric
builtin, an ordering, `in`, a condition, a comparison of two kinds, a pool's statistics — the
generated code checks it there, by the type checker's own rules (`runtime.kinds`), and a wrong
kind is the safety net's RC506 at the expression (RC808 from the linter).

Before, Python carried it on: a scale's value is a `str`, so `idv('lo') + idv('hi')` was `lohi`
and `idv('hi') * n` a string of n copies (600 MB and a MemoryError traceback for a large n);
true/false is an `int`, so `t(d) + 1` was 2 where `t` gave true, `idv(true) == 1` held and `sum`
of a pool read as true/false counted the trues. The same expressions written without the table
are RC304 at load. Found by a hunt (its bb, bb3, bb4 and a8 rulesets).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest

import engine
import engine.compiler.codegen as codegen
from engine.compiler import compile_document
from engine.syntax.positions import SourceFile

HEAD = """\
rulecraft: 1
name: untyped
scales:
  q: [lo, hi]
  r: [low, mid]
tables:
  idv:
    params: [u]
    value: u
  t:
    params: [u]
    cases:
      1: true
      else: true
checks:
  a:
    inputs:
      n: {type: int, min: 0, default: 1}
    roll:
      d: {die: 2}
"""

POOL = '      p: {pool: 3, die: 6, each: "idv(face >= 4)"}\n'
"""A pool read as true/false through the untyped table."""

WRONG = [
    # (a value of check `a`, the text the caret is under, a part of the message)
    ("idv('lo') + idv('hi')", "idv('lo')", "expected number here, but this gave lo"),
    ("idv('hi') * d", "idv('hi')", "expected number here, but this gave hi"),
    ("idv('hi') * n", "idv('hi')", "expected number here, but this gave hi"),
    ("t(d) + 1", "t(d)", "expected number here, but this gave true"),
    ("-idv(d == 1)", "idv(d == 1)", "expected number here, but this gave true"),
    # `x / k > y` is worked out as `x > y * k` (no fraction made): the value is checked all the same
    ("idv(d == 1) / 2 > 0", "idv(d == 1)", "expected number here, but this gave true"),
    ("0 < idv('hi') / 2", "idv('hi')", "expected number here, but this gave hi"),
    ("t(d) == 1", "t(d) == 1", "cannot compare true/false with number"),
    ("idv(d == 2) != idv(d)", "idv(d == 2) != idv(d)", "cannot compare true/false with number"),
    ("idv('mid') == 'hi'", "idv('mid') == 'hi'", "cannot compare 'r' value with 'q' value"),
    ("idv(d == 1) < 2", "idv(d == 1) < 2", "cannot compare true/false with number"),
    ("idv(d == 1) < idv(true)", "idv(d == 1) < idv(true)", "'<' orders numbers or values of a scale"),
    ("idv(true) in [1, 2]", "idv(true) in [1, 2]", "cannot look for true/false in a list of number"),
    ("d in idv([true])", "d in idv([true])", "cannot look for number in a list of true/false"),
    ("d in 1..idv(true)", "idv(true)", "expected number here, but this gave true"),
    ("not idv(d)", "idv(d)", "expected true/false here, but this gave 1"),
    ("idv(d) and true", "idv(d)", "expected true/false here, but this gave 1"),
    ("1 if idv(d) else 2", "idv(d)", "expected true/false here, but this gave 1"),
    ("(idv(true) if d == 1 else 0) + 1", "idv(true)", "expected number here, but this gave true"),
    ("sum([1, idv(d == 1)])", "idv(d == 1)", "expected number here, but this gave true"),
    ("sum(idv([true, false]))", "sum(idv([true, false]))", "sum() adds numbers"),
    ("abs(idv(d == 1))", "abs(idv(d == 1))", "abs() expects numbers, got true/false"),
    ("max(idv(d == 1), 2)", "max(idv(d == 1), 2)", "max() expects numbers or values of one scale"),
    ("max(idv(d))", "max(idv(d))", "max() with one argument expects a pool"),
    ("max(idv('lo'), idv('low'))", "max(idv('lo'), idv('low'))", "got 'q' value and 'r' value"),
    ("shift(idv('lo'), idv(true))", "shift(idv('lo'), idv(true))", "expects a number of steps"),
    # builtins whose implementation fails for every other kind said Python's words ("cannot
    # evaluate this: 'tuple' object has no attribute 'items'"), not their type rule's
    ("best(idv([1, 2]))", "best(idv([1, 2]))", "best() expects a pool or draw, got list of number"),
    ("worst(idv(d))", "worst(idv(d))", "worst() expects a pool or draw, got number"),
    ("rank(idv(d))", "rank(idv(d))", "rank() expects a value of a scale, got number"),
    ("sum(p)", "sum(p)", "sum() adds numbers, but this pool reads as true/false"),
    ("count(p, 1)", "count(p, 1)", "count() cannot count number in a pool of true/false"),
    ("sum(highest(p, 2))", "sum(highest(p, 2))", "sum() adds numbers, but this pool reads as true/false"),
    ("sum(first_roll(p))", "sum(first_roll(p))", "sum() adds numbers, but this pool reads as true/false"),
]
"""Each is the one value of check `a`, which every roll with d = 1 meets with a value of the wrong
kind. Written with the values themselves instead of the untyped tables, each is RC304 at load."""


def _text(value: str) -> str:
    pool = POOL if "p)" in value or "p," in value else ""
    rest = "    outcomes: q\n    outcome: \"'hi' if d == 2 else 'lo'\"\n"
    return f'{HEAD}{pool}    let:\n      v: "{value}"\n{rest}'


@pytest.mark.parametrize(("value", "at", "said"), WRONG)
def test_a_wrong_kind_from_an_untyped_table_is_rc506_where_it_is_used(value: str, at: str, said: str) -> None:
    """Sampled and exact alike (they run the same generated code), at the expression."""
    text = _text(value)
    rs = engine.load_source(SourceFile("untyped.yaml", text))
    line = len(text.splitlines()) - 2  # the value's line
    col = text.splitlines()[line - 1].index(at) + 1
    asks: list[Callable[[], object]] = [
        lambda: rs.roll("a", random.Random(1), forced={"d": 1}),
        lambda: rs.distribution("a").values,  # worked out when first read
    ]
    for ask in asks:
        with pytest.raises(engine.EvalError) as caught:
            ask()
        [d] = caught.value.diagnostics
        assert d.code == "RC506" and said in d.message, d.message
        assert d.span is not None and (d.span.line, d.span.col) == (line, col), (d.span, d.message)


HUNT = """\
rulecraft: 1
name: bb4
scales:
  q: [lo, hi]
tables:
  idv:
    params: [u]
    value: u
checks:
  a:
    inputs:
      n: {type: int, min: 0, default: 1}
    roll:
      d: {die: 2}
    let:
      z: idv('hi') * n
    outcomes: q
    outcome: "'hi' if d == 2 else 'lo'"
    outputs:
      o: z
"""


@pytest.mark.parametrize(
    "argv",
    [
        (
            "roll",
            "bb4.yaml",
            "a",
            "-i",
            "n=100000",
            "--no-trace",
        ),  # was a string of 100,000 copies (a MemoryError for more)
        ("roll", "bb4.yaml", "a", "-i", "n=3", "--force", "d=2"),  # was `output o = hihihi`
        ("prob", "bb4.yaml", "a", "--value", "z"),
    ],
)
def test_the_cli_says_rc506_once_at_the_expression(cli, tmp_path: Path, argv: tuple[str, ...]) -> None:
    (tmp_path / "bb4.yaml").write_text(HUNT)
    r = cli(*argv, cwd=tmp_path)
    assert r.code != 0
    said = r.out + r.err
    assert said.count("error RC506") == 1 and "expected number here, but this gave hi" in said, said
    assert "bb4.yaml:16:10:" in said and "hihi" not in said


def test_the_linter_reports_it_as_a_failure_for_an_allowed_input(cli, tmp_path: Path) -> None:
    (tmp_path / "bb4.yaml").write_text(HUNT)
    r = cli("validate", "bb4.yaml", cwd=tmp_path)
    assert r.code != 0
    said = r.out + r.err
    assert "error RC808" in said and "(RC506)" in said and "bb4.yaml:16:10:" in said, said


LEGIT = """\
rulecraft: 1
name: legit
scales:
  q: [lo, hi]
tables:
  bonus:
    params: PARAMS
    RETURNS_NUM
    value: x + 1
  pick:
    params: PARAMS
    RETURNS_Q
    value: "'hi' if x > 3 else 'lo'"
checks:
  a:
    roll:
      d: {die: 6}
      p: {pool: 3, die: 6, each: bonus(face)}
    let:
      s: sum(p) + bonus(d) * 2 - count(p, 4..7)
      m: max(bonus(d), highest(p))
      g: pick(d)
      up: pick(d) < pick(bonus(d)) or pick(d) == 'hi'
      r: rank(pick(d)) + rank(pick(bonus(d)))
      k: sum(highest(p, 2)) + count(p, bonus(2))
    outcomes: q
    outcome: "'hi' if up and s >= 12 and g >= 'lo' else 'lo'"
    outputs:
      total: s + m + k + r
"""


def test_an_untyped_table_used_rightly_gives_what_its_typed_twin_gives() -> None:
    """Numbers in arithmetic and statistics, a scale's value compared with one of its own scale:
    the checks pass, and the exact numbers are those of the same ruleset with its types declared."""
    untyped = LEGIT.replace("PARAMS", "[x]").replace("    RETURNS_NUM\n", "").replace("    RETURNS_Q\n", "")
    typed = (
        LEGIT.replace("PARAMS", "{x: int}")
        .replace("RETURNS_NUM", "returns: int")
        .replace("RETURNS_Q", "returns: q")
    )
    loose = engine.load_source(SourceFile("loose.yaml", untyped))
    strict = engine.load_source(SourceFile("strict.yaml", typed))
    mine, theirs = loose.distribution("a"), strict.distribution("a")
    assert mine.outcomes == theirs.outcomes
    assert mine.values == theirs.values
    for seed in range(5):
        a, b = loose.roll("a", random.Random(seed)), strict.roll("a", random.Random(seed))
        assert (a.outcome, a.values) == (b.outcome, b.values)


def test_typed_code_calls_no_check(shipped) -> None:
    """Only a value whose type is known only when it runs pays for a check: the shipped rulesets
    whose tables all declare their types compile to the code they compiled to before."""
    texts: list[str] = []
    kept = codegen.compile_kept

    def recorded(text: str, name: str) -> object:
        texts.append(text)
        return kept(text, name)

    for name in ("chill", "chimera", "chthonian"):
        rs = shipped[name]
        try:
            codegen.compile_kept = recorded  # type: ignore[assignment]
            compile_document(rs.document, rs.limits)
        finally:
            codegen.compile_kept = kept  # type: ignore[assignment]
    assert texts
    for helper in ("_want(", "_compare(", "_called(", "_reading("):
        assert not any(helper in text for text in texts), helper


def test_a_pool_of_true_dice_is_refused() -> None:
    """A pool's count from an untyped table: `true` had rolled one die (to Python it is the int 1)."""
    text = HEAD.replace("      d: {die: 2}\n", "      d: {pool: idv(n == 1), die: 6}\n") + (
        "    outcomes: q\n    outcome: \"'hi' if count(d) > 0 else 'lo'\"\n"
    )
    rs = engine.load_source(SourceFile("count.yaml", text))
    for ask in (lambda: rs.roll("a", random.Random(1)), lambda: rs.distribution("a")):
        with pytest.raises(engine.RulecraftError) as caught:
            ask()
        [d] = caught.value.diagnostics
        assert d.code == "RC406" and d.message.endswith("got true"), d.message


MIXED = """\
rulecraft: 1
name: mixed
scales:
  q: [lo, hi]
tables:
  u:
    params: [x]
    cases:
      1: "true"
      2: 1
      else: 5
checks:
  c:
    roll:
      d: {die: 3}
    let:
      m: u(d)
    outcomes: q
    outcome: "'lo' if d == 1 else 'hi'"
"""


def test_a_cases_table_whose_results_mix_truth_and_numbers_is_refused_once() -> None:
    """Hunt 13x: `u` gave true at 1 and 1 at 2, and the exact distribution of `m` read `true 2/3,
    5 1/3` (mean 7/3): it counts values by what they equal, and true == 1 in Python. A roll kept
    them apart. Mixing them is refused where the table is written, once, at the first case that
    does; a number beside a scale value is still allowed (docs/language.md, Tables)."""
    with pytest.raises(engine.RulecraftError) as error:
        engine.load(MIXED)
    [d] = error.value.diagnostics
    assert d.code == "RC304" and d.message.startswith(
        "this case gives number, but an earlier case gives true/false"
    )
    assert d.span is not None and MIXED.splitlines()[d.span.line - 1] == "      2: 1"
    nested = MIXED.replace(
        '      1: "true"\n      2: 1\n      else: 5\n', "      1: {else: 1}\n      else: {else: true}\n"
    )
    nested = nested.replace("params: [x]", "params: [x, y]").replace("u(d)", "u(d, d)")
    with pytest.raises(engine.RulecraftError) as error:
        engine.load(nested)
    assert [d.code for d in error.value.diagnostics] == ["RC304"]
    scaled = engine.load(MIXED.replace('      1: "true"\n', "      1: \"'lo'\"\n"))
    m = scaled.distribution("c").value("m")
    assert (
        sorted((str(k), w) for k, w in m.weights.items()) == [("1", 1), ("5", 1), ("lo", 1)] and m.total == 3
    )


MERGED = """\
rulecraft: 1
name: merge
tables:
  un:
    params: [a]
    value: a
  pick:
    params: [a]
    rules:
      - when: a == 1
        then: true
      - else: a
checks:
  c:
    roll:
      d: {die: 4}
    let:
      v: un(d == 1) if d <= 2 else un(1)
      w: pick(d)
      z: un(d == 1)
    outcomes: [lo, hi]
    outcome: "'hi' if d > 2 else 'lo'"
"""


@pytest.mark.parametrize("name", ["v", "w"])
def test_a_value_true_for_some_rolls_and_a_number_for_others_has_no_distribution(name: str) -> None:
    """Hunt 13y: `v` rolls true, false, 1, 1 and its exact distribution read true 3/4, false 1/4
    (mean 3/4), where true 1/4, false 1/4 and 1 1/2 are right: a dictionary counts true as 1.
    Where the two kinds meet in one value's distribution it is RC506 at the value, not a wrong
    number; the outcome's distribution stands, and a roll shows each kind as it is."""
    rs = engine.load(MERGED)
    with pytest.raises(engine.RulecraftError) as error:
        rs.distribution("c").value(name)
    [d] = error.value.diagnostics
    assert d.code == "RC506" and d.message.startswith(
        f"value '{name}' is true/false for some rolls and a number"
    )
    assert d.span is not None and MERGED.splitlines()[d.span.line - 1].startswith(f"      {name}: ")
    assert rs.distribution("c").probability("hi") == Fraction(1, 2)
    assert rs.roll("c", forced={"d": 1}).values[name] is True
    third = rs.roll("c", forced={"d": 3}).values[name]
    assert third == {"v": 1, "w": 3}[name] and type(third) is int
    z = rs.distribution("c").value("z")  # true/false alone: counted as it is
    assert z.weights == {True: 1, False: 3}
