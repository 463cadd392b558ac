"""A hint that names the command line's way to give something names the Python way too, as RC503
names `--limit NAME=N` and `Limits.NAME`: an embedder reads the same message, and `--input` is no
argument of `Ruleset.roll` (hunt 13r). The HTTP API words the same advice its own way
(tests/test_serve_hints.py)."""

from __future__ import annotations

import pytest

import engine
from engine.scenes.campaign import campaign_odds
from engine.state.memory import MemoryStore


def _hint(call: object) -> str:
    assert callable(call)
    with pytest.raises(engine.RulecraftError) as error:
        call()
    hint = error.value.diagnostics[0].hint
    assert hint is not None
    return hint


def test_a_missing_check_input() -> None:
    hint = _hint(lambda: engine.load("chill").roll("specific"))
    assert hint == "give it as --input target=VALUE (target=VALUE from Python)"


def test_a_missing_campaign_parameter() -> None:
    rules = engine.load("chill")
    hint = _hint(lambda: engine.new_campaign("t", rules, store=MemoryStore()))
    assert hint == "give it as --param players=VALUE (params={'players': VALUE} from Python)"


def test_a_missing_scene_party_parameter() -> None:
    hint = _hint(lambda: engine.load("chimera").scene_odds("learning"))
    assert hint == (
        "give it as --party student:max_resolve=VALUE "
        "(parties={'student': {'max_resolve': VALUE}} from Python)"
    )


def test_a_missing_role_and_a_missing_party() -> None:
    chimera = engine.load("chimera")
    c = engine.new_campaign("m", chimera, store=MemoryStore(), characters={"ada": {"max_resolve": 3}})
    assert _hint(lambda: c.act("help", "ada", dice=2)).startswith(
        "give it as --other helper=NAME (others={'helper': NAME} from Python; characters: ada"
    )
    castle = engine.load("castle")
    d = engine.new_campaign("d", castle, store=MemoryStore(), characters={"ann": {}, "bo": {}})
    assert _hint(lambda: campaign_odds(d, "duel", {"you": "ann"})).startswith(
        "give it as --cast foe=NAME (cast={'foe': NAME} from Python; characters: "
    )
