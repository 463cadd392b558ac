"""Properties that hold for every roll and every expression, checked with hypothesis.

1. For any seed and any valid inputs (drawn from each check's declared inputs), the outcome is
   one of the check's declared outcomes, the same seed gives the same result, and replaying the
   roll's dice through `forced=` gives the same result again.
2. Printing an expression tree and parsing the text gives the same tree back.
"""

from __future__ import annotations

import random
import re
import string
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.errors import ExprSyntaxError
from engine.expr import ast
from engine.expr.parser import parse
from engine.expr.printer import to_text
from engine.model.ruleset import Check, Draw, InputSpec, Pool
from engine.model.values import Multi, Symbol
from engine.syntax.positions import SourceFile

RULESETS = {name: engine.load(name) for name in ("chill", "chimera", "castle", "chthonian")}

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def value_for(spec: InputSpec) -> st.SearchStrategy:
    """Any valid value of an input, from its declaration alone."""
    if spec.scale is not None:
        return st.sampled_from(spec.scale.names)
    if spec.kind == "bool":
        return st.booleans()
    lo = spec.minimum if spec.minimum is not None else -1000
    hi = spec.maximum if spec.maximum is not None else 1000
    return st.integers(int(lo), int(hi))


def inputs_for(check: Check) -> st.SearchStrategy:
    """All required inputs, and any subset of the optional ones (so defaults are exercised too)."""
    required = {s.name: value_for(s) for s in check.inputs if s.required}
    optional = {s.name: value_for(s) for s in check.inputs if not s.required}
    return st.fixed_dictionaries(required, optional=optional)


def uses_pool_or_draw(check: Check) -> bool:
    return any(isinstance(r, (Pool, Draw)) for r in check.roll)


ALL_CHECKS = [(r, c) for r, rs in RULESETS.items() for c in rs.checks]
CHECK_IDS = [f"{r}-{c}" for r, c in ALL_CHECKS]


def test_every_shipped_check_is_covered():
    """The properties below run over this list; an empty or short list would test nothing."""
    assert len(ALL_CHECKS) >= 8
    assert any(uses_pool_or_draw(RULESETS[r].checks[c]) for r, c in ALL_CHECKS)


@pytest.mark.parametrize(("ruleset", "check"), ALL_CHECKS, ids=CHECK_IDS)
@SETTINGS
@given(data=st.data())
def test_outcome_is_declared_and_seed_is_deterministic(ruleset, check, data):
    rs = RULESETS[ruleset]
    spec = rs.checks[check]
    seed = data.draw(st.integers(0, 2**64 - 1), label="seed")
    inputs = data.draw(inputs_for(spec), label="inputs")
    result = rs.roll(check, random.Random(seed), **inputs)
    assert result.outcome.name in spec.outcomes.names
    assert result.check == check
    assert set(result.inputs) == {i.name for i in spec.inputs}  # every input bound, given or default
    again = rs.roll(check, random.Random(seed), **inputs)
    assert again.as_json() == result.as_json()
    if result.auto:
        assert result.rolled == {}
    else:
        assert set(result.rolled) == {r.name for r in spec.roll}


@pytest.mark.parametrize(("ruleset", "check"), ALL_CHECKS, ids=CHECK_IDS)
@SETTINGS
@given(data=st.data())
def test_forced_replay_gives_the_same_result(ruleset, check, data):
    """`forced=result.forced()` with the same inputs reproduces the roll, whatever the RNG."""
    rs = RULESETS[ruleset]
    seed = data.draw(st.integers(0, 2**64 - 1), label="seed")
    inputs = data.draw(inputs_for(rs.checks[check]), label="inputs")
    result = rs.roll(check, random.Random(seed), **inputs)
    replay = rs.roll(check, random.Random(seed + 1), forced=result.forced(), **inputs)
    assert replay.outcome == result.outcome
    assert replay.values == result.values
    assert replay.rolled == result.rolled
    assert replay.auto == result.auto
    assert replay.as_json() == result.as_json()


@pytest.mark.parametrize(
    ("ruleset", "check", "inputs"),
    [("chimera", "pool", {"dice": 3}), ("castle", "task", {"skill": "advantaged"})],
)
def test_forced_replay_of_a_pool_and_a_draw_concretely(ruleset, check, inputs):
    """Replay without hypothesis: a three-die Chimera pool, a two-chit Castle draw. (Before the
    current sampler, `Result.forced()` raised TypeError on every pool and draw.)"""
    rs = RULESETS[ruleset]
    result = rs.roll(check, random.Random(3), **inputs)
    replay = rs.roll(check, random.Random(4), forced=result.forced(), **inputs)
    assert replay.as_json() == result.as_json()


def test_a_pool_replays_from_its_raw_faces():
    """What a working `forced()` has to hand back for a pool: the raw faces, which do replay."""
    chimera = RULESETS["chimera"]
    result = chimera.roll("pool", random.Random(3), dice=3)
    faces = list(result.rolled["rolled"].faces)
    assert len(faces) == 3
    assert (
        chimera.roll("pool", random.Random(4), forced={"rolled": faces}, dice=3).as_json() == result.as_json()
    )


def some_value(spec: InputSpec) -> object:
    if spec.scale is not None:
        return spec.scale.names[0]
    if spec.kind == "bool":
        return False
    return spec.minimum if spec.minimum is not None else 0


def test_rolling_never_touches_the_global_random():
    """ "The RNG is always injected, never the global random"."""
    state = random.getstate()
    for rs in RULESETS.values():
        for check in rs.checks.values():
            rs.roll(
                check.name, random.Random(1), **{i.name: some_value(i) for i in check.inputs if i.required}
            )
    assert random.getstate() == state
    random.seed(1)
    a = RULESETS["chill"].roll("specific", random.Random(99), target=50).as_json()
    random.seed(2)
    b = RULESETS["chill"].roll("specific", random.Random(99), target=50).as_json()
    assert a == b


TWO_CHITS = SourceFile(
    "two.yaml",
    """\
rulecraft: 1
name: two
bags:
  b: {chits: {x: 1, y: 2}, sets: 1}
checks:
  c:
    inputs:
      n: {type: int, min: 1, max: 3}
    roll:
      d: {draw: b, count: n}
    outcomes: b
    outcome: best(d)
""",
)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(1, 3))
def test_draws_are_without_replacement(seed, n):
    """A bag of one x and two y: no draw ever holds two x or three y, and all three is the bag."""
    rs = engine.load_source(TWO_CHITS)
    drawn = [s.name for s in rs.roll("c", random.Random(seed), n=n).rolled["d"].items]
    assert len(drawn) == n
    assert drawn.count("x") <= 1 and drawn.count("y") <= 2
    if n == 3:
        assert sorted(drawn) == ["x", "y", "y"]


# ---------------------------------------------------------------------------------------------
# parse → print → parse
# ---------------------------------------------------------------------------------------------

GRAMMAR = (Path(engine.__file__).parent / "expr" / "grammar.lark").read_text(encoding="utf-8")
KEYWORDS = set(re.findall(r'"([a-z]+)"', GRAMMAR))


def test_grammar_keywords_found():
    assert {"if", "else", "and", "or", "not", "in", "true", "false"} <= KEYWORDS


names = st.one_of(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True),
    # a name that starts with a word of the language (`andy`, `inside`): one name, never split
    st.builds(
        lambda k, s: k + s,
        st.sampled_from(sorted(KEYWORDS)),
        st.from_regex(r"[A-Za-z0-9_]{1,4}", fullmatch=True),
    ),
).filter(lambda s: s not in KEYWORDS)
nums = st.one_of(
    st.integers(-(10**12), 10**12).map(ast.Num),
    # up to 90 places: a literal may have 100 digits (the printer had stopped at 64 places: hunt 13y)
    st.builds(lambda n, k: Fraction(n, 10**k), st.integers(-(10**6), 10**6), st.integers(1, 90))
    .filter(lambda f: f.denominator != 1)
    .map(ast.Num),
)
# A quoted name: any text without a newline or a single quote (which is how it is printed).
syms = st.text(alphabet=string.ascii_letters + string.digits + ' _-."!?', max_size=8).map(ast.Sym)
leaves = st.one_of(nums, st.booleans().map(ast.Bool), syms, names.map(ast.Name))


def _compound(children: st.SearchStrategy) -> st.SearchStrategy:
    # The parser folds `-` and `+` into a literal (`-3` is Num(-3), `+3` Num(3)), so Unary never
    # wraps a Num.
    not_a_literal = children.filter(lambda n: not isinstance(n, ast.Num))
    return st.one_of(
        st.lists(children, max_size=3).map(lambda xs: ast.ListExpr(tuple(xs))),
        st.builds(lambda f, xs: ast.Call(f, tuple(xs)), names, st.lists(children, max_size=3)),
        st.builds(ast.Range, children, children),
        st.builds(ast.Unary, st.sampled_from(["-", "+"]), not_a_literal),
        st.builds(ast.Binary, st.sampled_from(["+", "-", "*", "/", "//", "%", "**"]), children, children),
        st.builds(
            ast.Compare,
            st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "in", "not in"]),
            children,
            children,
        ),
        st.builds(ast.Logic, st.sampled_from(["and", "or"]), children, children),
        st.builds(ast.Not, children),
        st.builds(ast.Cond, children, children, children),
    )


expressions = st.recursive(leaves, _compound, max_leaves=14)


@settings(max_examples=200, deadline=None)
@given(node=expressions)
def test_parse_print_parse_is_stable(node):
    text = to_text(node)
    again = parse(text)
    assert again == node, text
    assert to_text(again) == text


@settings(max_examples=200, deadline=None)
@given(first=names, second=names)
def test_two_names_never_make_an_expression(first, second):
    """`x andy` was read `x and y`: a word of the language is read only whole, so a name after a
    name (`andy`, `inside`, `orange` too) is always a syntax error, placed at the second name."""
    with pytest.raises(ExprSyntaxError) as info:
        parse(f"{first} {second}")
    assert info.value.diagnostics[0].span.col == len(first) + 2


def _arithmetic(children: st.SearchStrategy) -> st.SearchStrategy:
    not_a_literal = children.filter(lambda n: not isinstance(n, ast.Num))
    return st.one_of(
        st.builds(ast.Unary, st.sampled_from(["-", "+"]), not_a_literal),
        st.builds(ast.Binary, st.just("**"), children, children),
        st.builds(ast.Binary, st.sampled_from(["+", "-", "*", "/", "//", "%"]), children, children),
    )


arithmetic = st.recursive(st.one_of(nums, names.map(ast.Name)), _arithmetic, max_leaves=8)
"""Numbers and names under unary minus or plus and the binary operators alone, a third of them `**`: where
the brackets of a power (its left an atom, its right a unary) are most often needed."""


@settings(max_examples=200, deadline=None)
@given(node=arithmetic)
def test_parse_print_parse_of_arithmetic_is_stable(node):
    text = to_text(node)
    again = parse(text)
    assert again == node, text
    assert to_text(again) == text


@pytest.mark.parametrize(
    "text",
    [
        "a if b else c if d else e",
        "(a if b else c) if d else e",
        "not a in b",
        "a not in b",
        "-x * -3",
        "--x",
        "a - (b - c)",
        "(a - b) - c",
        "2 * (3 + 4) // 5 % 6",
        "-2 ** 2",
        "(-2) ** 2",
        "2 ** 3 ** 2",
        "(2 ** 3) ** 2",
        "2 ** -x ** -2",
        "-x ** -y * -z ** 2",
        "(a..b) ** 2 ** c",
        "(1..3)..4",
        "1..0.5",
        "f()",
        "[]",
        "[a, 'b', 1.25, true]",
        "(a < b) == (c < d)",
        "not (a and b) or c",
        "a or (b or c)",
        "a and (b and c)",
        "(a or b) and c",
        "specific_band(roll, doubles, target)",
        "majority(rolled, ['half_pass', 'fail', 'pass', 'crit_fail', 'crit_pass'])",
    ],
)
def test_parse_print_parse_on_hand_written_texts(text):
    """Texts chosen for precedence and associativity edges; print then parse gives the same tree."""
    node = parse(text)
    assert parse(to_text(node)) == node


def test_printer_adds_parentheses_that_matter():
    """Guard against a printer that drops grouping: `a - (b - c)` and `(a - b) - c` differ."""
    assert parse("a - (b - c)") != parse("a - b - c")
    assert to_text(parse("a - (b - c)")) != to_text(parse("a - b - c"))


def test_parse_print_parse_of_a_name_with_a_single_quote():
    node = parse('"it\'s"')
    assert parse(to_text(node)) == node


_READINGS = st.one_of(
    st.lists(st.integers(-3, 12), max_size=8),
    st.lists(st.sampled_from(["crit_fail", "fail", "pass", "crit_pass"]), max_size=8).map(
        lambda names: [_SCALE[n] for n in names]
    ),
)
_SCALE = {n: Symbol("grade", n, i) for i, n in enumerate(["crit_fail", "fail", "pass", "crit_pass"])}


@given(_READINGS, st.randoms(use_true_random=False), st.booleans())
@settings(max_examples=200, deadline=None)
def test_a_pool_is_a_multiset_whatever_its_order(readings: list, rng: random.Random, tallied: bool) -> None:
    """Law: two pools with the same readings are equal and hash alike, in any order, with or
    without the counts the exact evaluator keeps (`tally`); a pool with one reading more, fewer or
    changed is not equal. (The sampler keeps the order rolled, the exact evaluator one of its own.)"""
    shuffled = list(readings)
    rng.shuffle(shuffled)
    a = Multi(tuple(readings))
    tally = tuple(Counter(shuffled).items()) if tallied else None
    b = Multi(tuple(shuffled), tally=tally)
    assert a == b and hash(a) == hash(b)
    assert Multi((), history=(a, None, None)) == Multi((), history=(b, None, None))
    if readings:
        assert a != Multi(tuple(readings[1:]))
        changed = list(shuffled)
        changed[0] = changed[-1] if changed[0] != changed[-1] else None
        assert a != Multi(tuple(changed))


@given(
    st.integers(-50, 50),
    st.integers(-50, 50),
    st.integers(-7, 7).filter(bool),
    st.integers(0, 2**80),
    st.integers(0, 6),
)
def test_a_range_s_face_count_is_its_length(start: int, stop: int, step: int, k: int, short: int) -> None:
    """The compiler counts a die's range without `len` (which stops at 2**63 - 1): the same
    number where `len` can count, and k for k steps (a stop short of the next one) past it."""
    from engine.compiler.randomizers import _count

    r = range(start, stop, step)
    assert _count(r) == len(r)
    short %= abs(step)
    assert _count(range(start, start + k * step - (short if step > 0 else -short), step)) == k
