"""What a first exact request finds made already (issue 13 item 1, the first column): each die's
table, made when the ruleset loads, and each named value's kind, known from its static type so
that its distribution is made without looking at every value. These tests hold both to what
the request would have made itself."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.errors import MAX_DIGITS, DeadlineError, InputError, LimitError
from engine.eval import exact
from engine.eval.dist import Dist
from engine.model.ruleset import Die, InputSpec
from engine.model.values import Symbol
from engine.runtime.cache import Caches
from engine.runtime.context import RunContext
from engine.runtime.inputs import bind, bind_inputs, coerce
from engine.runtime.limits import Limits
from engine.runtime.work import CLOCK_EVERY, Work

SHIPPED = ("castle", "chill", "chimera", "chthonian")


def _constant_dice(rs: engine.Ruleset) -> list[tuple[str, Die]]:
    return [
        (check.name, r)
        for check in rs.checks.values()
        for r in check.roll
        if isinstance(r, Die) and r.faces_expr is None and r.faces
    ]


WITH_DICE = ("chill", "chimera", "chthonian")
"""The shipped rulesets that roll a die of constant faces (Castle draws from bags only:
`test_the_others_roll_no_such_die` holds the list to them)."""


def test_the_others_roll_no_such_die() -> None:
    for name in set(SHIPPED) - set(WITH_DICE):
        assert _constant_dice(engine.load(name)) == [], name


@pytest.mark.parametrize("name", WITH_DICE)
def test_every_die_of_constant_faces_has_its_table_when_the_ruleset_loads(name: str) -> None:
    """Right after `load`, before any request, each such die's table is in the ruleset's tables:
    its faces counted by hand, and the very table a distribution then reads."""
    rs = engine.load(name)
    dice = _constant_dice(rs)
    assert dice
    products = 0
    for _, die in dice:
        kept = rs.caches.tables.lookup(("die", die.faces))
        counts: dict[Any, int] = {}
        for face in die.faces:
            counts[face] = counts.get(face, 0) + 1
        assert kept == Dist(counts, len(die.faces))
    for check_name, die in dice:
        check = rs.check(check_name)
        if check.sequential:
            continue
        example = next((ex for ex in check.examples if not ex.policy or ex.policy == "always"), None)
        d = rs.distribution(check_name, **(dict(example.inputs) if example else {}))
        if isinstance(d.source, exact._Product):
            i = check.roll.index(die)
            assert d.source.parts[i] is rs.caches.tables.lookup(("die", die.faces))
            products += 1
    assert products  # some distribution did read a die's table


REPEATED = """
rulecraft: 1
name: repeated
checks:
  one:
    roll:
      a: {die: [1, 1, 2, 3]}
      b: {die: 6}
    outcomes: [lo, hi]
    outcome: "'hi' if a + b > 5 else 'lo'"
  two:
    roll:
      c: {die: [1, 1, 2, 3]}
      size: {die: [4, 6]}
      d: {die: "1..size"}
    outcomes: [lo, hi]
    outcome: "'hi' if c + d > 5 else 'lo'"
"""


def test_dice_with_equal_faces_share_one_table_and_a_table_let_go_is_made_again() -> None:
    """One table per list of faces (a face written twice weighs twice); faces read when rolled
    are not made at load; a table the cache has let go is made again by the request and kept."""
    rs = engine.load(REPEATED)
    tables = rs.caches.tables
    assert tables.lookup(("die", (1, 1, 2, 3))) == Dist({1: 2, 2: 1, 3: 1}, 4)
    assert tables.lookup(("die", (1, 2, 3, 4, 5, 6))) == Dist(dict.fromkeys(range(1, 7), 1), 6)
    assert tables.lookup(("die", (4, 6))) is not None
    assert [k for k, _ in tables.items() if isinstance(k, tuple) and k[0] == "die"] == [
        ("die", (1, 1, 2, 3)),
        ("die", (1, 2, 3, 4, 5, 6)),
        ("die", (4, 6)),
    ]
    before = rs.distribution("one").table()
    tables.clear()
    again = engine.load(REPEATED)
    again.caches.tables.clear()
    assert again.distribution("one").table() == before
    assert again.caches.tables.lookup(("die", (1, 1, 2, 3))) == Dist({1: 2, 2: 1, 3: 1}, 4)
    hand = sum(Fraction(w, 4 * 6) for a, w in ((1, 2), (2, 1), (3, 1)) for b in range(1, 7) if a + b > 5)
    assert dict((s.name, p) for s, p in before)["hi"] == hand


KINDS = """
rulecraft: 1
name: kinds
scales:
  level: [low, mid, high]
tables:
  loose:
    params: [x]
    cases:
      1..3: "'low'"
      else: 7
  plus:
    params: [x]
    value: x + 3
  sure:
    params: [x]
    returns: int
    value: x * 2
checks:
  all:
    inputs:
      t: {type: int, min: -5, max: 5, default: 1}
    roll:
      a: {die: 6}
      b: {die: 4}
    let:
      n: a + t
      q: a / b
      yes: a > b
      lv: "'high' if a > 4 else 'low'"
      any_number: plus(a)
      mixed: loose(a)
      typed: sure(a)
      span: 1..a
    outcomes: [failure, success]
    outcome: "'success' if n > 3 else 'failure'"
    examples:
      - name: a four
        inputs: {t: 0}
        dice: {a: 4, b: 1}
        expect: {outcome: success}
  pool:
    roll:
      dice: {pool: 2, die: 6}
    let:
      same: dice
      top: highest(dice)
    outcomes: [failure, success]
    outcome: "'success' if top > 4 else 'failure'"
    examples:
      - name: a five
        dice: {dice: [5, 1]}
        expect: {outcome: success}
"""


def test_a_values_static_type_says_what_its_distribution_holds() -> None:
    """`Check.plain_values`: numbers, true/false and scale values by their static type (made
    without looking at each value); a table's undeclared result and a range are not, and are
    looked at as before — numbers, or numbers and scale values, after all give a distribution,
    a range does not (RC402) — whichever way the value is made."""
    rs = engine.load(KINDS)
    check = rs.check("all")
    assert check.plain_values == {"n", "q", "yes", "lv", "typed"}
    for joint_first in (False, True):
        d = rs.distribution("all", t=2)
        if joint_first:
            assert len(d.joint) > 0
        assert d.value("n") == Dist({a + 2: 4 for a in range(1, 7)}, 24)
        assert d.value("q").probability(Fraction(1, 2)) == Fraction(2, 24)
        assert d.value("yes").probability(True) == Fraction(14, 24)
        levels = [(str(v), p) for v, p in d.value("lv").items()]
        assert levels == [("low", Fraction(2, 3)), ("high", Fraction(1, 3))]
        assert d.value("typed") == Dist({2 * a: 4 for a in range(1, 7)}, 24)
        assert d.value("any_number") == Dist({a + 3: 4 for a in range(1, 7)}, 24)
        assert {str(v): w for v, w in d.value("mixed").weights.items()} == {"low": 12, "7": 12}
        with pytest.raises(InputError) as caught:
            d.value("span")
        assert caught.value.diagnostics[0].code == "RC402"


@pytest.mark.parametrize("name", [*SHIPPED, "kinds"])
def test_every_value_of_a_plain_type_holds_only_numbers_truths_and_scale_values(name: str) -> None:
    """The compiler's judgement held to the values themselves: on every shipped check's examples
    (and the checks above, a pool among their values), each value in `plain_values` takes only
    numbers, true/false and scale values in the joint."""
    rs = engine.load(KINDS if name == "kinds" else name)
    if name == "kinds":
        assert rs.check("pool").plain_values == {"top"}
    seen = 0
    for check in rs.checks.values():
        if not check.roll:
            continue
        for ex in check.examples:
            d = rs.distribution(check.name, policy=ex.policy or "always", **dict(ex.inputs))
            for at, value in enumerate(d.names):
                if value in check.plain_values:
                    for key in d.joint.weights:
                        assert isinstance(key[at + 2], (int, Fraction, Symbol)), (check.name, value)
                        seen += 1
    assert seen


# -- a whole number bound as it comes ------------------------------------------------------------

_MOST = 10**MAX_DIGITS - 1
_BOUNDS = st.one_of(
    st.none(),
    st.integers(-60, 60),
    st.fractions(Fraction(-60), Fraction(60), max_denominator=7),
    st.sampled_from([-_MOST - 5, -_MOST, _MOST, _MOST + 5]),
)
_WHOLE = st.one_of(
    st.integers(-70, 70),
    st.sampled_from([-_MOST - 1, -_MOST, _MOST, _MOST + 1, 10**MAX_DIGITS * 7, True, False]),
    st.integers(),
)


@settings(max_examples=500, deadline=None)
@given(kind=st.sampled_from(["int", "number"]), lo=_BOUNDS, hi=_BOUNDS, value=_WHOLE)
def test_a_whole_number_input_is_bound_as_the_general_check_binds_it(
    kind: str, lo: Any, hi: Any, value: Any
) -> None:
    """`InputSpec.whole` lets `bind` take a plain `int` within an input's bounds without the
    general check: on any bounds (none, whole, fractional, past the digits a number may have)
    and any whole number (at and past each bound, past the digits, a bool), `bind` gives what
    `coerce` gives — the same value of the same type, or the same diagnostics."""
    spec = InputSpec("x", kind, lo, hi, span=None)
    assert spec.whole is not None
    try:
        wanted: Any = coerce(spec, value)
    except InputError as exc:
        wanted = exc.diagnostics
    try:
        got: Any = bind((spec,), {"x": value}, "check", "c", None)["x"]
    except InputError as exc:
        got = exc.diagnostics
    assert got == wanted and type(got) is type(wanted)


def test_only_a_number_input_is_bound_without_the_general_check() -> None:
    """A true/false, a choice or a list input has no `whole` (its `int` means something else);
    every number input of the shipped checks has one, its bounds as declared."""
    rs = engine.load(KINDS)
    level = rs.model.scales["level"]
    assert InputSpec("b", "bool").whole is None
    assert InputSpec("c", "choice", scale=level).whole is None
    assert InputSpec("l", "list", 0, 5, of="int", max_length=3).whole is None
    seen = 0
    for name in SHIPPED:
        for check in engine.load(name).checks.values():
            for spec in check.inputs:
                if spec.kind in ("int", "number") and spec.scale is None:
                    assert spec.whole == (
                        -_MOST if spec.minimum is None else spec.minimum,
                        _MOST if spec.maximum is None else spec.maximum,
                    )
                    seen += 1
                else:
                    assert spec.whole is None
    assert seen


# -- a value's own loop, without a budget that could not refuse it --------------------------------

_WIDE = """
rulecraft: 1
name: wide
tables:
  plus:
    params: [x]
    value: x + 3
checks:
  wide:
    roll:
      a: {die: 30}
      b: {die: 30}
      c: {die: 30}
    let:
      s: a + b + c
      t: plus(a)
    outcomes: [low, high]
    outcome: "'high' if s > 45 else 'low'"
"""


@pytest.mark.parametrize("faces", [20, 30])
@pytest.mark.parametrize("name", ["s", "t"])
def test_a_value_asked_after_its_request_is_refused_exactly_where_its_own_budget_refuses_it(
    name: str, faces: int
) -> None:
    """A named value asked after its request runs without a budget of its own when that budget
    could neither refuse the charge nor look at the clock; otherwise through one, as before. So
    `max_work` refuses it (RC503) exactly when the units its own budget counts — a unit per
    state and each table call made (`t` calls its table once per face of `a`, in `a`'s loop) —
    pass it, though a run without a budget is judged by its most (a call per state), and a
    deadline already passed refuses it exactly when its charge, over `CLOCK_EVERY` units, makes
    the budget look at the clock; whichever way it ran, the same distribution. Three d20 (8,000
    states) run without a budget when the limit allows; three d30 (27,000) always through one."""
    rs = engine.load(_WIDE.replace("{die: 30}", f"{{die: {faces}}}"))
    check = rs.check("wide")
    _, units = check.value_loops[name]
    assert units == (1 if name == "t" else 0)  # `t` may call a table once per state, `s` never
    bound = bind_inputs(check, {})
    states = faces**3
    counted = states + (faces if name == "t" else 0)  # what its own budget is charged
    most = states * (1 + units)  # what a run without one is judged by
    assert (most <= CLOCK_EVERY) == (faces == 20)
    dice = range(1, faces + 1)
    wanted = Dist.of(((a + b + c if name == "s" else a + 3), 1) for a in dice for b in dice for c in dice)

    def value(limits: Limits) -> Dist:
        # the request within an unbounded budget of the caller's; the value after it, alone
        ctx = RunContext(limits, "always", Caches(), None, None, Work(10**12))
        return exact.distribution(check, bound, ctx).value(name)

    for limit in sorted({counted - 1, counted, counted + 1, most - 1, most, most + 1}):
        if limit < counted:
            with pytest.raises(LimitError) as caught:
                value(Limits(max_work=limit))
            assert caught.value.diagnostics[0].code == "RC503"
            assert not isinstance(caught.value, DeadlineError)  # out of work, not of time
        else:
            assert value(Limits(max_work=limit)) == wanted
    if counted > CLOCK_EVERY:
        with pytest.raises(DeadlineError) as caught:
            value(Limits(deadline=1e-9))
        assert "deadline" in caught.value.diagnostics[0].message
    else:
        assert value(Limits(deadline=1e-9)) == wanted


@pytest.mark.parametrize(
    ("kind", "value", "ok"),
    [
        ("int", 1e99, True),
        ("int", 1e100, False),  # 101 digits
        ("int", 1e308, False),
        ("number", 1e-99, True),
        ("number", 1e-100, False),  # a denominator of 101 digits
        ("number", 1e-300, False),
        ("number", 0.5, True),
    ],
)
def test_a_float_input_has_at_most_the_digits_any_number_has(kind: str, value: float, ok: bool) -> None:
    """A float (JSON's `1e308`, sent to the server as an input) is held to the digits a whole
    number, a fraction and a text are: it had been taken whole, 309 digits echoed back (found by a
    review)."""
    spec = InputSpec("x", kind, span=None)
    if ok:
        assert coerce(spec, value) == Fraction(str(value))
        return
    with pytest.raises(InputError) as caught:
        coerce(spec, value)
    assert caught.value.diagnostics[0].code == "RC404"
    assert f"more than {MAX_DIGITS} digits" in caught.value.diagnostics[0].message
