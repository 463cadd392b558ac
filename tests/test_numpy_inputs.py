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
    assert caught.value.diagnostics[0].message.endswith("at least 1, got true (a bool: a count is an int)")


SKIRMISH = """\
rulecraft: 1
name: skirmish
checks:
  swing:
    roll: {d: {die: 6}}
    outcomes: [miss, hit]
    outcome: "'hit' if d >= 4 else 'miss'"
state:
  each:
    hurt: {counter: 0, min: 0}
actions:
  strike:
    by: character
    others: [foe]
    requires:
      - {when: "hurt < 2 and foe.hurt < 2", else: nobody who is down fights}
    roll: {check: swing}
    effects:
      - {add: {hurt: 1}, of: foe, when: "outcome == 'hit'"}
scenes:
  fight:
    parties: [ann, bo]
    round:
      - {act: strike, by: ann, others: {foe: bo}}
      - {act: strike, by: bo, others: {foe: ann}}
    ends:
      - {when: bo.hurt >= 2, then: ann_wins}
      - {when: ann.hurt >= 2, then: bo_wins}
    max_rounds: 10
"""


CAST = {"ann": "ann", "bo": "bo"}


def _kept(value: object) -> tuple[type, object]:
    return type(value), value


def test_a_limit_may_be_a_numpy_number_and_is_kept_as_python_s() -> None:
    """`Limits(max_work=numpy.int64(5000))` said "must be a whole number (int), not int64 5000",
    and a `deadline` of NumPy's float32 "must be a whole number (int) or a number"; NumPy's
    float64 (a float) was taken, and kept as `np.float64(2.5)`. Each is now the Python number it
    is, as an input's value is: the limits read, print and compare as ones given so."""
    given = engine.Limits(
        max_work=np.int64(5000), max_pool=np.uint8(7), max_states=np.int32(900), deadline=np.float32(0.1)
    )
    plain = engine.Limits(max_work=5000, max_pool=7, max_states=900, deadline=0.1)
    assert given == plain and repr(given) == repr(plain)
    assert [_kept(getattr(given, f)) for f in ("max_work", "max_pool", "deadline")] == [
        (int, 5000),
        (int, 7),
        (float, 0.1),  # by its shortest text, as an input's float32 is
    ]
    assert _kept(engine.Limits(deadline=np.float64(2.5)).deadline) == (float, 2.5)
    assert _kept(engine.Limits(deadline=np.int16(3)).deadline) == (int, 3)
    rs = engine.load(SKIRMISH, limits=given)
    assert rs.limits == plain and rs.scene_odds("fight") == engine.load(SKIRMISH, limits=plain).scene_odds(
        "fight"
    )


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ({"max_work": np.bool_(True)}, "'max_work' must be a whole number (int), not bool"),
        ({"max_work": np.float64(3.0)}, "'max_work' must be a whole number (int), not float64"),
        ({"max_work": np.array([3])}, "'max_work' must be a whole number (int), not ndarray"),
        ({"max_work": np.array(3)}, "'max_work' must be a whole number (int), not ndarray"),
        (
            {"deadline": np.bool_(False)},
            "'deadline' must be a number of seconds (an int or a float), not bool",
        ),
        (
            {"deadline": np.array([1.5])},
            "'deadline' must be a number of seconds (an int or a float), not ndarray",
        ),
    ],
    ids=["int-bool", "int-float", "int-array", "int-0d-array", "seconds-bool", "seconds-array"],
)
def test_a_numpy_bool_or_array_is_no_limit(given: dict[str, object], says: str) -> None:
    """NumPy's true/false is no number here, as Python's is not; nor is an array, of any shape."""
    with pytest.raises(TypeError) as caught:
        engine.Limits(**given)  # type: ignore[arg-type]
    assert says in str(caught.value)


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ({"max_work": np.int64(-1)}, "the limit 'max_work' must be at least 0, got -1"),
        (
            {"max_expression_depth": np.uint16(101)},
            "the limit 'max_expression_depth' must be at most 100, got 101",
        ),
        (
            {"deadline": np.float32("inf")},
            "the limit 'deadline' must be a finite number of seconds, at least 0, got inf",
        ),
        (
            {"deadline": np.float64(-0.5)},
            "the limit 'deadline' must be a finite number of seconds, at least 0, got -0.5",
        ),
    ],
)
def test_a_numpy_limit_out_of_range_is_said_as_python_s(given: dict[str, object], says: str) -> None:
    with pytest.raises(engine.InputError) as caught:
        engine.Limits(**given)  # type: ignore[arg-type]
    assert caught.value.diagnostics[0].message == says


def test_a_load_s_deadline_may_be_a_numpy_number() -> None:
    source = engine.SourceFile("skirmish.yaml", SKIRMISH)
    for deadline in (np.float32(30.0), np.int64(30)):
        assert engine.load_source(source, deadline=deadline).name == "skirmish"
    with pytest.raises(TypeError, match="'deadline' must be"):
        engine.load_source(source, deadline=np.bool_(True))


def test_a_seed_may_be_a_numpy_integer_and_is_recorded_as_python_s() -> None:
    """`Campaign.act(seed=numpy.int64(7))` and `roll(seed=...)` said "must be a whole number (int)
    or None"; now they roll what seed 7 rolls, and the event records 7 (JSON's number, not NumPy's)."""
    import json

    from engine.scenes.campaign import play_in_campaign
    from engine.state.memory import MemoryStore

    def campaign() -> engine.Campaign:
        return engine.new_campaign("c", SKIRMISH, store=MemoryStore(), characters={"ann": {}, "bo": {}})

    for seed in (np.int64(7), np.uint32(7), np.int8(7)):
        plain, given = campaign(), campaign()
        want = plain.act("strike", "ann", others={"foe": "bo"}, seed=7)
        got = given.act("strike", "ann", others={"foe": "bo"}, seed=seed)
        assert got.event.data == want.event.data and type(got.event.data["seed"]) is int
        json.dumps(got.event.data)  # an event's data is JSON
        rolled = given.roll("swing", seed=seed)[0].data
        assert rolled == plain.roll("swing", seed=7)[0].data and type(rolled["seed"]) is int
        kept = play_in_campaign(given, "fight", CAST, seed=seed)[0].data
        assert kept == play_in_campaign(plain, "fight", CAST, seed=7)[0].data and type(kept["seed"]) is int
    with pytest.raises(TypeError, match="'seed' must be a whole number"):
        campaign().roll("swing", seed=np.bool_(True))
    with pytest.raises(TypeError, match="'seed' must be a whole number"):
        campaign().roll("swing", seed=np.float64(7.0))
    with pytest.raises(engine.InputError) as caught:
        campaign().roll("swing", seed=np.int64(-7))
    assert caught.value.diagnostics[0].message.startswith("a seed is a whole number, at least 0, got -7")


def test_a_round_of_the_odds_may_be_a_numpy_integer() -> None:
    odds = engine.load(SKIRMISH).scene_odds("fight")
    assert odds.later(np.int64(2)) == odds.later(2)
    with pytest.raises(TypeError, match="'last' must be a whole number"):
        odds.later(np.bool_(True))


def test_reading_a_number_imports_no_numpy() -> None:
    """NumPy is an extra: its numbers are told by the `numbers` ABCs it registers them with, so a
    process that has not imported it checks limits, seeds and seconds without importing it."""
    import subprocess
    import sys

    program = (
        "import sys, engine\n"
        "limits = engine.Limits(max_work=10**6, deadline=2.5)\n"
        "engine.load_source(engine.SourceFile('s.yaml', sys.argv[1]), limits=limits, deadline=30)\n"
        "print('numpy' in sys.modules)\n"
    )
    shown = subprocess.run(
        [sys.executable, "-c", program, SKIRMISH], capture_output=True, text=True, check=True
    )
    assert shown.stdout.split() == ["False"]
