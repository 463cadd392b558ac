"""What `scene prob --grid` writes (hunt 13m).

- `--json` gave each cell as a float, so a chance of 1 - 1.1e-22 came out as `1.0`, where every
  other `--json` gives exact fractions; a one-axis grid gave a phantom `"columns": ["", [""]]`.
- The table showed such a cell as `100.00%`, as if the objective were certain: now `>99.99%`.
- A grid over a scene whose rolls are cut (an uncapped explosion) said nothing of the cut, where
  one cell's odds add the note.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

from test_scene_truncated import EXPLODING
from test_scenes import DUEL

import engine
from engine.tools.render import percent

LUCKY = DUEL.replace("max: 5, default: 2", "max: 200, default: 2")
"""test_scenes' duel, a character's hp up to 200: at 60 hp Ann is short of certain by about 1e-7."""


def test_grid_json_is_exact_and_agrees_with_each_cell(tmp_path: Path, cli: Callable[..., object]) -> None:
    f = tmp_path / "lucky.yaml"
    f.write_text(LUCKY)
    got = cli("scene", "prob", str(f), "fight", "--grid", "ann.hp=40,60", "--json")
    assert got.code == 0, got.err  # type: ignore[attr-defined]
    data = json.loads(got.out)  # type: ignore[attr-defined]
    assert data["columns"] is None and data["rows"] == ["ann.hp", ["40", "60"]]
    rs = engine.load(f)
    for hp, (cell,) in zip((40, 60), data["chances"]):
        exact = rs.scene_odds("fight", parties={"ann": {"hp": hp}, "bo": {}}).probability("ann_wins")
        assert Fraction(cell) == exact and 0 < 1 - exact < Fraction(1, 10**6)  # not 1, and not 1.0
    assert data["truncated"] == "0/1"
    table = cli("scene", "prob", str(f), "fight", "--grid", "ann.hp=60")
    assert ">99.99%" in table.out and "100.00%" not in table.out  # type: ignore[attr-defined]


def test_two_axis_grid_json_names_its_columns(tmp_path: Path, cli: Callable[..., object]) -> None:
    f = tmp_path / "lucky.yaml"
    f.write_text(LUCKY)
    got = cli("scene", "prob", str(f), "fight", "--grid", "ann.hp=1,2", "--grid", "bo.hp=1,3", "--json")
    data = json.loads(got.out)  # type: ignore[attr-defined]
    assert data["columns"] == ["bo.hp", ["1", "3"]]
    assert [len(r) for r in data["chances"]] == [2, 2]
    assert all(0 < Fraction(c) < 1 for r in data["chances"] for c in r)


def test_a_grid_of_cut_rolls_says_so(tmp_path: Path, cli: Callable[..., object]) -> None:
    f = tmp_path / "xp.yaml"
    f.write_text(
        EXPLODING.replace(
            "state:\n  shared:",
            "state:\n  character:\n    need: {type: int, min: 1, max: 3, default: 1}\n  shared:",
        ).replace('"evens >= 1"', '"evens >= p.need"')
    )
    cut = engine.load(f).distribution("boom").truncated
    assert cut > 0
    text = cli("scene", "prob", str(f), "s", "--grid", "p.need=1..2")
    assert "note: a roll of this scene is an uncapped explosion" in text.out  # type: ignore[attr-defined]
    data = json.loads(cli("scene", "prob", str(f), "s", "--grid", "p.need=1..2", "--json").out)  # type: ignore[attr-defined]
    assert Fraction(data["truncated"]) == cut


def test_percent_never_rounds_to_a_certainty_or_to_nothing() -> None:
    assert percent(Fraction(1)) == "100.00%" and percent(Fraction(0)) == "  0.00%"
    assert percent(1 - Fraction(1, 10**22)) == ">99.99%"
    assert percent(Fraction(19_999, 20_000)) == ">99.99%"  # 99.995 %, which two decimals round up
    assert percent(Fraction(99_989, 100_000)) == " 99.99%"
    assert percent(Fraction(1, 10**22)) == "1.0e-20%"
