"""A string longer than `max_yaml_bytes` is text over the limit, whatever it looks like: `load`
tells RC004 before reading it as a name or a path (a one-line 10 MB string was compared with
every shipped name, about a second, and answered RC001 quoting it)."""

from __future__ import annotations

import pytest

import engine
from engine import Limits, RulecraftError


@pytest.mark.parametrize(
    "text",
    ["a" * 2_000, "a/b" * 700, "a b" * 700, " chill" + " " * 2_000],
    ids=["a-word", "a-path", "words", "a-name-and-spaces"],
)
def test_long_string_is_text_over_the_limit(text: str) -> None:
    with pytest.raises(RulecraftError) as caught:
        engine.load(text, limits=Limits(max_yaml_bytes=1_000))
    (said,) = caught.value.diagnostics
    assert said.code == "RC004", said
    assert "over the limit of 1,000" in said.message


def test_a_shipped_name_still_loads_under_a_small_limit() -> None:
    """The name is not text: the shipped file is read under the limit (and refused if over it)."""
    with pytest.raises(RulecraftError) as caught:
        engine.load("chill", limits=Limits(max_yaml_bytes=1_000))
    assert caught.value.diagnostics[0].code == "RC004"
    assert engine.load("chill").name
