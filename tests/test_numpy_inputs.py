"""Numbers given from Python as NumPy scalars (or a NumPy array for a list input or forced dice)
are read as the numbers they are: `numpy.int64(5)` is 5 wherever an int is expected, a NumPy
float a number, NumPy's true/false a bool. They were refused as "is not a number" (and a forced
`numpy.int64(4)` as "not a face of this die (1..6)"), and shown as `np.int64(11)` in messages."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

import engine

np = pytest.importorskip("numpy")

TEXT = """\
rulecraft: 1
name: numpy_in
checks:
  c:
    inputs:
      n: {type: int, min: 0, max: 4, default: 2}
      bonus: {type: number, min: -5, max: 5, default: 0}
      aimed: {type: bool, default: false}
      extra: {type: list, max_length: 3, default: []}
    roll:
      p: {pool: n, die: 6}
      d: {die: 6}
    let:
      total: sum(p) + d + bonus + sum(extra) + (1 if aimed else 0)
    outcomes: [low, high]
    outcome: "'high' if total >= 9 else 'low'"
"""
RULES = engine.load(TEXT)

PLAIN: dict[str, object] = {"n": 3, "bonus": Fraction(5, 2), "aimed": True, "extra": [1, 2]}
GIVEN = [
    ("n", np.int64(3)),
    ("n", np.uint8(3)),
    ("n", np.int32(3)),
    ("bonus", np.float64(2.5)),
    ("bonus", np.float32(2.5)),
    ("aimed", np.bool_(True)),
    ("aimed", np.int64(1)),  # review: read as NumPy's true, which `as_json` wrote as "True"
    ("extra", [np.int64(1), np.int16(2)]),
    ("extra", np.array([1, 2])),
]


@pytest.mark.parametrize(("name", "value"), GIVEN, ids=[f"{n}={type(v).__name__}" for n, v in GIVEN])
def test_a_numpy_value_is_read_as_the_number_it_is(name: str, value: object) -> None:
    want = RULES.roll("c", random.Random(7), **{name: PLAIN[name]})
    got = RULES.roll("c", random.Random(7), **{name: value})
    assert got.inputs == want.inputs and got.outcome == want.outcome
    assert type(got.inputs[name]) is type(want.inputs[name])  # a plain int, Fraction, bool or pool
    assert RULES.distribution("c", **{name: value}) == RULES.distribution("c", **{name: PLAIN[name]})


def test_a_float32_is_read_as_its_shortest_text() -> None:
    assert RULES.roll("c", random.Random(1), bonus=np.float32(0.1)).inputs["bonus"] == Fraction(1, 10)
    # review: an array's items were read through `tolist` (float32 0.1 as 0.10000000149011612);
    # each is now read as the scalar it is, as one given alone is
    from engine.runtime.inputs import coerce, listed

    spec = RULES.check("c").inputs[1]  # bonus, a number
    items = listed(np.array([0.1], dtype=np.float32))
    assert items is not None and [coerce(spec, x) for x in items] == [Fraction(1, 10)]


def test_a_bool_given_a_numpy_one_is_python_s_true_in_json() -> None:
    """Review: `value == 1` of a NumPy 1 is NumPy's true, which a roll's JSON wrote as "True"."""
    got = RULES.roll("c", random.Random(1), aimed=np.int64(1))
    assert got.inputs["aimed"] is True and got.as_json()["inputs"]["aimed"] is True


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("n", np.int64(7), "input 'n' = 7 is above its maximum 4"),
        ("n", np.float64(2.5), "input 'n' = 2.5 is not a whole number"),
        ("bonus", np.float64("nan"), "input 'bonus' = nan is not a finite number"),
        ("n", np.bool_(True), "input 'n' = true is not a number"),
        ("aimed", np.int64(2), "input 'aimed' = 2 is not true or false"),
    ],
)
def test_a_bad_numpy_value_is_refused_in_the_language_s_words(name: str, value: object, says: str) -> None:
    with pytest.raises(engine.InputError) as caught:
        RULES.roll("c", random.Random(1), **{name: value})
    assert caught.value.diagnostics[0].message == says


def test_forced_dice_may_be_numpy_integers() -> None:
    forced = {"p": np.array([6, 5, 4]), "d": np.int64(6)}
    r = RULES.roll("c", random.Random(1), forced=forced, n=np.int64(3))
    assert r.forced() == {"p": [6, 5, 4], "d": [6]} and r.values["total"] == 21
    with pytest.raises(engine.InputError) as caught:
        RULES.roll("c", random.Random(1), forced={"d": np.int64(7)})
    assert caught.value.diagnostics[0].message == "forced d = 7 is not a face of this die (1..6)"


def test_a_count_of_rolls_or_scenes_may_be_a_numpy_integer() -> None:
    """`sample(check, numpy.int64(20))` said "must be a whole number, at least 1, got np.int64(20)"."""
    want = RULES.sample("c", 20, random.Random(3))
    assert RULES.sample("c", np.int64(20), random.Random(3)) == want
    castle = engine.load("castle")
    assert castle.sample_scenes("duel", np.int32(3), random.Random(1)) == castle.sample_scenes(
        "duel", 3, random.Random(1)
    )
    with pytest.raises(engine.InputError) as caught:
        RULES.sample("c", np.bool_(True), random.Random(3))
    assert caught.value.diagnostics[0].message.endswith("at least 1, got true")
