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
from test_scenes import DUEL

import engine

TEXT, _, SCENES = DUEL.partition("scenes:\n")
SCENES = "scenes:\n" + SCENES
"""test_scenes' duel, its scene kept apart to be grafted in (`with_scenes`)."""


def _assert_read_only(data: object) -> None:
    assert isinstance(data, dict)
    with pytest.raises(TypeError, match="read-only"):
        data["name"] = "changed"
    with pytest.raises(TypeError, match="read-only"):
        data["checks"]["swing"]["roll"]["d"]["die"] = 20
    with pytest.raises(TypeError, match="read-only"):
        data["state"]["each"].pop("hurt")


@pytest.mark.parametrize("twice", [False, True], ids=["compiled", "from the process's cache"])
def test_document_data_cannot_be_changed(twice: bool) -> None:
    rs = engine.load(TEXT, name="readonly_doc")
    if twice:
        rs = engine.load(TEXT, name="readonly_doc")
    _assert_read_only(rs.document.data)
    again = engine.load(TEXT, name="readonly_doc")
    assert again.document.data["name"] == "skirmish"  # as written, not "changed"
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
        "    rs.document.data['state']['each']['hurt']['counter'] = 5\n"
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
    assert back.distribution("swing").probability("hit") == Fraction(1, 3)
    assert back.scene_odds("fight") == grown.scene_odds("fight")
