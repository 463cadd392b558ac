"""Issue 11, item 3: inputs and forced dice are read safely — number text is checked before it is
converted, a bool is not a number, NaN and infinities are refused everywhere, a forced face must
be a face of the die."""

from __future__ import annotations

import random
import time

import pytest

import engine


@pytest.fixture(scope="module")
def chill() -> engine.Ruleset:
    return engine.load("chill")


HUGE_TEXT = ["1e100000000", "1e10000000", "-1e100000000", "9" * 5000, "1" + "0" * 101, "1/" + "9" * 5000]


@pytest.mark.parametrize("text", HUGE_TEXT, ids=lambda t: t[:14])
def test_number_text_is_bounded_before_it_is_converted(refused, chill, text):
    refused("RC404", chill.roll, "specific", random.Random(1), target=text)


def test_the_command_line_input_that_hung(refused, cli):
    start = time.monotonic()
    r = cli("roll", "chill", "specific", "--input", "target=1e100000000")
    assert r.code != 0 and " RC404:" in r.err and time.monotonic() - start < 5


def test_a_string_default_that_hung_load(refused, ruleset):
    text = ruleset(target="{type: int, min: 1, max: 100, default: '1e100000000'}")
    refused("RC310", engine.load, text)


def test_a_whole_number_too_long_to_print_is_refused_from_python(refused, chill):
    error = refused("RC404", chill.roll, "specific", target=10**5000)
    assert "more than 100 digits" in str(error)


def test_a_bool_is_not_a_number_even_after_the_same_int(refused, chill):
    assert chill.roll("specific", random.Random(1), target=1).outcome is not None
    refused("RC404", chill.roll, "specific", random.Random(1), target=True)
    refused("RC404", chill.distribution, "specific", target=True)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf"), "nan", "inf", "-Infinity"])
def test_nan_and_infinity_are_refused_from_python(refused, chill, value):
    refused("RC404", chill.roll, "specific", target=value)


@pytest.mark.parametrize("text", ["nan", "inf", "-inf"])
def test_nan_and_infinity_are_refused_on_the_command_line(cli, text):
    r = cli("prob", "chill", "specific", "--input", f"target={text}")
    assert r.code != 0 and " RC404:" in r.err


@pytest.mark.parametrize(
    "where",
    [
        "{type: int, min: 1, max: 100, default: .nan}",
        "{type: number, min: 1, max: 100, default: .inf}",
        "{type: number, min: 1, max: 100, default: -.inf}",
        "{type: int, min: .nan, max: 100}",
        "{type: int, min: 1, max: .inf}",
        "{type: number, min: 1, max: 1e400}",
    ],
)
def test_nan_and_infinity_in_yaml_are_refused(refused, ruleset, where):
    refused("RC005", engine.load, ruleset(target=where))


@pytest.mark.parametrize(
    "face", [1.0, True, "²", "1", 10**5000, 3.5], ids=["float", "bool", "superscript", "text", "huge", "half"]
)
def test_a_forced_face_must_be_a_face_of_the_die(refused, chill, face):
    refused("RC405", chill.roll, "specific", forced={"tens": face, "ones": 1}, target=50)


@pytest.mark.parametrize("text", ["²", "1.0", "9" * 5000, "٣"], ids=lambda t: t[:12])
def test_a_forced_face_on_the_command_line_must_be_a_face(cli, text):
    r = cli("roll", "chill", "specific", "-i", "target=50", "--force", f"tens={text}", "--force", "ones=1")
    assert r.code != 0 and " RC405:" in r.err, r.err
    assert len(r.err) < 2000  # the message shows a long value cut short


def test_forced_faces_that_are_faces_still_work(chill):
    result = chill.roll("specific", forced={"tens": 5, "ones": 2}, target=60)
    assert result.values["roll"] == 52 and type(result.values["roll"]) is int


@pytest.mark.parametrize("rng", [1, "seed", 2.5], ids=["int", "text", "float"])
def test_a_seed_where_the_random_source_goes_is_an_input_error(refused, chill, rng):
    refused("RC404", chill.roll, "specific", rng, target=50)
    castle = engine.load("castle")
    refused("RC404", castle.play_scene, "duel", rng)
    refused("RC404", castle.sample_scenes, "duel", 3, rng)


def test_an_unknown_outcome_or_value_of_a_distribution_is_an_input_error(chill):
    dist = chill.distribution("specific", target=55)
    for ask in (dist.probability, dist.at_least, dist.at_most):
        with pytest.raises(engine.InputError) as caught:
            ask("botchh")
        assert caught.value.diagnostics[0].code == "RC402" and "'botch'" in (
            caught.value.diagnostics[0].hint or ""
        )
    for ask in (dist.value, dist.mean):
        with pytest.raises(engine.InputError) as caught:
            ask("rol")
        assert caught.value.diagnostics[0].code == "RC402" and "'roll'" in (
            caught.value.diagnostics[0].hint or ""
        )
