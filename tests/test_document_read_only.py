"""A loaded ruleset's document is read-only all the way down: one ruleset text loaded twice in a
process shares its document (`api._LOADED`), so a change made through one `Ruleset` would have
shown in every later load of the same text (`load("x").document.data["name"] = ...` did)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import engine

TEXT = """\
rulecraft: 1
name: readonly_doc
checks:
  swing:
    inputs:
      skill: {type: int, min: 0, max: 3, default: 0}
    roll: {d: {die: 6}}
    outcomes: [miss, hit]
    outcome:
      - when: d + skill >= 5
        then: hit
      - else: miss
state:
  character:
    hp: {type: int, min: 1, max: 5, default: 2}
  each:
    hurt: {counter: 0, min: 0}
    down: {derived: "hurt >= hp"}
  periods: [fight]
actions:
  strike:
    by: character
    others: [foe]
    requires:
      - {when: "not down and not foe.down", else: nobody who is down fights}
    roll: {check: swing}
    effects:
      - {add: {hurt: 1}, of: foe, when: "outcome == 'hit'"}
"""

SCENES = """\
scenes:
  fight:
    parties: [ann, bo]
    round:
      - {act: strike, by: ann, others: {foe: bo}}
      - {act: strike, by: bo, others: {foe: ann}}
    ends:
      - {when: bo.down, then: ann_wins}
      - {when: ann.down, then: bo_wins}
    max_rounds: 10
"""


def _assert_read_only(data: object) -> None:
    assert isinstance(data, dict)
    with pytest.raises(TypeError, match="read-only"):
        data["name"] = "changed"
    with pytest.raises(TypeError, match="read-only"):
        data["checks"]["swing"]["outcome"][0]["then"] = "miss"
    with pytest.raises(TypeError, match="read-only"):
        data["checks"]["swing"]["inputs"].pop("skill")


@pytest.mark.parametrize("twice", [False, True], ids=["compiled", "from the process's cache"])
def test_document_data_cannot_be_changed(twice: bool) -> None:
    rs = engine.load(TEXT, name="readonly_doc")
    if twice:
        rs = engine.load(TEXT, name="readonly_doc")
    _assert_read_only(rs.document.data)
    again = engine.load(TEXT, name="readonly_doc")
    assert again.document.data["name"] == "readonly_doc"
    assert again.document.data == rs.document.data


def test_document_from_the_disk_cache_is_read_only(tmp_path: Path) -> None:
    # a fresh process reads the document from the private cache folder (`syntax.cached`), not
    # from the YAML: that copy is handed out read-only too
    f = tmp_path / "r.yaml"
    f.write_text(TEXT)
    probe = (
        "import engine, pathlib, sys\n"
        "rs = engine.load(pathlib.Path(sys.argv[1]))\n"
        "try:\n"
        "    rs.document.data['checks']['swing']['outcome'].append({})\n"
        "except TypeError as e:\n"
        "    print('refused', e)\n"
        "else:\n"
        "    print('changed')\n"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    runs = [
        subprocess.run(
            [sys.executable, "-c", probe, str(f)], capture_output=True, text=True, env=env, timeout=120
        )
        for _ in range(2)  # the second reads the cache the first wrote
    ]
    assert [r.stdout.split(" ")[0].strip() for r in runs] == ["refused", "refused"], [r.stderr for r in runs]
    assert any((tmp_path / "cache").rglob("*")), "the first run kept nothing in the cache folder"


def test_scenes_grafted_document_read_only_and_pickles() -> None:
    rs = engine.load(TEXT, name="readonly_doc")
    grown = rs.with_scenes(SCENES)
    _assert_read_only(grown.document.data)
    assert "fight" in grown.document.data["scenes"]
    assert "scenes" not in rs.document.data  # the graft changed neither document
    back = pickle.loads(pickle.dumps(grown))
    _assert_read_only(back.document.data)
    assert back.distribution("swing", skill=1).probability("hit") == Fraction(1, 2)
    assert back.scene_odds("fight") == grown.scene_odds("fight")
