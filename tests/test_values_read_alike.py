"""Two values of one `--sweep` or `--grid` that read alike are one row shown twice (hunt 13m):
the check for a value given twice compared the text, so `7,07`, `7,7.0`, `true,yes` and `1,01`
each showed a row twice where `7,7` was refused (diagnostics.md, RC407)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

RULES = """\
rulecraft: 1
name: alike
checks:
  test:
    inputs:
      skill: {type: int, min: 1, max: 12, default: 6}
    roll: {a: {die: 6}, b: {die: 6}}
    outcomes: [fail, pass]
    outcome: "'pass' if a + b <= skill else 'fail'"
"""


@pytest.mark.parametrize(("values", "first", "second"), [("7,07", "7", "07"), ("7,8,7.0", "7", "7.0")])
def test_a_sweep_of_values_read_alike_is_refused(
    tmp_path: Path, cli: Callable[..., object], values: str, first: str, second: str
) -> None:
    f = tmp_path / "alike.yaml"
    f.write_text(RULES)
    got = cli("prob", str(f), "test", "--sweep", f"skill={values}")
    assert got.code == 1  # type: ignore[attr-defined]
    assert (
        f"RC407: the values '{first}' and '{second}' of --sweep 'skill=...' are read alike, as 7" in got.err  # type: ignore[attr-defined]
    )
    assert got.out == ""  # type: ignore[attr-defined]  # refused before any row


def test_a_sweep_of_distinct_values_is_answered(tmp_path: Path, cli: Callable[..., object]) -> None:
    f = tmp_path / "alike.yaml"
    f.write_text(RULES)
    got = cli("prob", str(f), "test", "--sweep", "skill=7,08")
    assert got.code == 0 and "    8" in got.out, got.err  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("axis", "said"), [("you.toughness=true,yes", "true"), ("you.toughness=1,true", "true")]
)
def test_a_grid_of_values_read_alike_is_refused(cli: Callable[..., object], axis: str, said: str) -> None:
    got = cli("scene", "prob", "castle", "duel", "--grid", axis)
    assert got.code == 1, got.out  # type: ignore[attr-defined]
    assert "are read alike, as " + said in got.err  # type: ignore[attr-defined]
