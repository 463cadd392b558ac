"""The exact request's fixed cost, cut (issue 13 item 1, the first computation): each quick way
here must give exactly what the plain way gives — probabilities as `Fraction(n, d)` makes them,
a binding and its diagnostics as the long way words them, a die's table as counting its faces."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.errors import Advice, Diagnostic, InputError, did_you_mean
from engine.eval.dist import Dist, ratio, ratios
from engine.model.ruleset import InputSpec
from engine.runtime.inputs import _coerce, bind, describe
from engine.syntax.positions import Span

SHIPPED = {name: engine.load(name) for name in ("castle", "chill", "chimera", "chthonian")}


def _same_fraction(made: Fraction, wanted: Fraction) -> None:
    assert type(made) is Fraction
    assert (made.numerator, made.denominator) == (wanted.numerator, wanted.denominator)
    assert made == wanted and hash(made) == hash(wanted) and repr(made) == repr(wanted)


@given(st.integers(-(10**30), 10**30), st.integers(1, 10**30))
def test_ratio_is_the_constructors_fraction(n: int, d: int) -> None:
    _same_fraction(ratio(n, d), Fraction(n, d))


@given(st.lists(st.integers(0, 10**6), max_size=20), st.integers(1, 10**6))
def test_ratios_are_the_constructors_fractions(numerators: list[int], d: int) -> None:
    made = ratios(numerators, d)
    assert len(made) == len(numerators)
    for got, n in zip(made, numerators):
        _same_fraction(got, Fraction(n, d))


@pytest.mark.parametrize(
    ("n", "d"), [(1, -2), (-3, -6), (Fraction(1, 3), 2), (True, 4), (2, True), (7, 1), (0, 9)]
)
def test_anything_else_goes_to_the_constructor(n: Any, d: Any) -> None:
    """A denominator that is not a positive whole number, or a value that is not an int (a
    `Fraction`, a bool), is handed to `Fraction` itself: the same value, whatever it is."""
    _same_fraction(ratio(n, d), Fraction(n, d))


def test_a_zero_denominator_is_the_constructors_error() -> None:
    with pytest.raises(ZeroDivisionError):
        ratio(1, 0)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.integers(0, 5), st.integers(0, 10**30), min_size=1), st.integers(1, 10**6))
def test_weights_over_a_scale_are_put_in_lowest_form(weights: dict[int, int], scale: int) -> None:
    """`Dist.lowest`: the same probabilities, over the least total that holds them all whole."""
    total = sum(weights.values()) * scale or 1
    made = Dist.lowest({k: w * scale for k, w in weights.items()}, total)
    assert made.fractions() == {k: Fraction(w * scale, total) for k, w in weights.items()}
    least = 1
    for p in made.fractions().values():
        least = least * p.denominator // math.gcd(least, p.denominator)
    assert made.total == least


def test_a_distributions_answers_are_fractions_in_lowest_terms() -> None:
    d = Dist({"a": 2, "b": 4, "c": 0}, 6)
    assert list(d.items()) == [("a", Fraction(1, 3)), ("b", Fraction(2, 3)), ("c", Fraction(0))]
    assert d.fractions() == {"a": Fraction(1, 3), "b": Fraction(2, 3), "c": 0}
    for p in (*d.fractions().values(), d.probability("b"), d.at_least("b"), d.at_most("b")):
        _same_fraction(p, Fraction(p.numerator, p.denominator))
    table = SHIPPED["chill"].distribution("specific", target=55).table()
    assert [(s.name, p) for s, p in table] == [  # the example (tests/test_exact.py)
        ("botch", Fraction(1, 20)),
        ("failure", Fraction(2, 5)),
        ("low_success", Fraction(1, 4)),
        ("high_success", Fraction(1, 4)),
        ("colossal_success", Fraction(1, 20)),
    ]


# -- the binding: one pass when nothing is wrong, the long way when something is ---------------


def _long_way(
    specs: tuple[InputSpec, ...], given: dict[str, Any], kind: str, owner: str, span: Span | None
) -> dict[str, Any] | list[Diagnostic]:
    """The binding as it was before the one-pass way (every name looked up in a dict of the
    declarations, every problem collected), kept here as the oracle."""
    by_name = {s.name: s for s in specs}
    diags: list[Diagnostic] = []
    meant: set[str] = set()
    noun = "input" if kind in ("check", "action") else "parameter"
    for name in given:
        if name not in by_name:
            near = did_you_mean(name, by_name)
            if near:
                meant.add(near.split("'")[1])
            hint = near or (
                f"{noun}s of '{owner}': {', '.join(by_name)}" if by_name else f"'{owner}' takes no {noun}s"
            )
            diags.append(Diagnostic("RC402", f"{kind} '{owner}' has no {noun} '{name}'", span, hint))
    bound: dict[str, Any] = {}
    for spec in specs:
        if spec.name in given:
            try:
                bound[spec.name] = _coerce(spec, given[spec.name])
            except InputError as exc:
                diags.extend(exc.diagnostics)
        elif spec.default is not None:
            bound[spec.name] = spec.default
        elif spec.name not in meant:
            diags.append(
                Diagnostic(
                    "RC401",
                    f"{kind} '{owner}' needs the {noun} '{spec.name}' ({describe(spec)})",
                    spec.span,
                    f"give it as --input {spec.name}=VALUE ({spec.name}=VALUE from Python)",
                    advice=Advice("give", spec.name, kind),
                )
            )
    return diags or bound


CHECKS = [(name, check) for name, rs in SHIPPED.items() for check in rs.checks.values() if check.inputs]
VALUES = st.one_of(
    st.integers(-50, 150),
    st.sampled_from(["3", "x", "true", "no", "1,2", "2/3", "", "hinder", "average", "advantaged"]),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=True),
    st.lists(st.integers(-3, 3), max_size=9),
)


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_binding_agrees_with_the_long_way(data: st.DataObject) -> None:
    """Every shipped check with inputs, given any mix of its inputs (some left out), misspelt or
    unknown names and good or bad values: the same bound values, or an `InputError` with the
    same diagnostics in the same order."""
    _, check = CHECKS[data.draw(st.integers(0, len(CHECKS) - 1), label="check")]
    names = [spec.name for spec in check.inputs]
    chosen = data.draw(st.lists(st.sampled_from(names), unique=True))
    extra = data.draw(
        st.lists(st.sampled_from([names[0] + "s", names[-1][:-1] or "x", "nonsense"]), unique=True)
    )
    given_ = {name: data.draw(VALUES) for name in chosen + [e for e in extra if e not in names]}
    wanted = _long_way(check.inputs, given_, "check", check.name, check.span)
    try:
        got: dict[str, Any] | list[Diagnostic] = bind(check.inputs, given_, "check", check.name, check.span)
    except InputError as exc:
        got = list(exc.diagnostics)
    assert got == wanted
    if isinstance(got, dict):
        assert list(got) == list(wanted) and [type(v) for v in got.values()] == [
            type(v)
            for v in wanted.values()  # type: ignore[union-attr]
        ]


def test_a_distributions_bad_input_is_worded_as_before() -> None:
    """`Ruleset.distribution` binds its inputs itself now (no kept `Ready`): the same words."""
    rs = SHIPPED["chthonian"]
    with pytest.raises(InputError) as caught:
        rs.distribution("standard", trait=3, difficulty=99)
    assert [d.code for d in caught.value.diagnostics] == ["RC402", "RC403"]
    assert "did you mean 'traits'" in (caught.value.diagnostics[0].hint or "")
    with pytest.raises(InputError) as caught:
        rs.distribution("standard", traits=[3])
    assert [d.code for d in caught.value.diagnostics] == ["RC404"]


# -- a die's table -------------------------------------------------------------------------------

_FACES = """
rulecraft: 1
name: faces
checks:
  roll:
    roll:
      die: {{die: {faces}}}
    let:
      shown: die
    outcomes: [low, high]
    outcome: "'high' if shown >= 2 else 'low'"
"""


@pytest.mark.parametrize(
    ("faces", "values"),
    [
        ("[1, 1, 2]", {1: Fraction(2, 3), 2: Fraction(1, 3)}),
        ("[2, 1, 2, 2]", {1: Fraction(1, 4), 2: Fraction(3, 4)}),
        ("3", {1: Fraction(1, 3), 2: Fraction(1, 3), 3: Fraction(1, 3)}),
    ],
)
def test_a_die_weighs_each_face_as_often_as_it_is_written(faces: str, values: dict[int, Fraction]) -> None:
    dist = engine.load(_FACES.format(faces=faces)).distribution("roll")
    assert dict(dist.value("shown").items()) == values
    assert dist.probability("high") == sum(p for v, p in values.items() if v >= 2)
