"""`rulecraft prob` as a user runs it: a real subprocess, real files."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest


def rulecraft(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args], capture_output=True, text=True, timeout=120
    )


def test_prob_table_shows_fractions_percentages_and_bars() -> None:
    run = rulecraft("prob", "chill", "specific", "--input", "target=55")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert list(rows) == [
        "botch",
        "failure",
        "low_success",
        "high_success",
        "colossal_success",
    ]  # worst → best
    assert rows["botch"][1] == "1/20" and rows["botch"][2] == "5.00%"
    assert rows["failure"][1] == "2/5" and rows["failure"][2] == "40.00%"
    assert rows["low_success"][1] == "1/4" and rows["high_success"][1] == "1/4"
    assert rows["colossal_success"][1] == "1/20"
    assert "█" in rows["failure"][3]


def test_prob_json_keeps_fractions_exact() -> None:
    run = rulecraft("prob", "chill", "specific", "-i", "target=55", "--json")
    data = json.loads(run.stdout)
    assert data["outcomes"] == {
        "botch": "1/20",
        "failure": "2/5",
        "low_success": "1/4",
        "high_success": "1/4",
        "colossal_success": "1/20",
    }
    assert sum(Fraction(v) for v in data["outcomes"].values()) == 1


def test_prob_value_distribution() -> None:
    run = rulecraft(
        "prob", "chthonian", "standard", "-i", "traits=3", "-i", "difficulty=8", "--value", "extent"
    )
    assert run.returncode == 0, run.stderr
    assert "extent: mean 3/2" in run.stdout
    rows = [line.split() for line in run.stdout.splitlines()]
    assert ["-4", "1/12", "8.33%"] == rows[rows.index(["extent:", "mean", "3/2", "≈", "1.500"]) + 1][:3]


def test_prob_sweep_rows_and_json() -> None:
    run = rulecraft("prob", "castle", "task", "--sweep", "skill=disadvantaged,average,advantaged")
    assert run.returncode == 0, run.stderr
    body = run.stdout.splitlines()
    assert body[1].split() == ["skill", "poor", "average", "good"]
    assert body[3].split()[0] == "average" and body[3].split()[1] == "33.33%"
    data = json.loads(rulecraft("prob", "chill", "specific", "--sweep", "target=1..120", "--json").stdout)
    assert len(data["rows"]) == 120
    assert data["rows"][54]["outcomes"]["botch"] == "1/20"


def test_prob_sweep_plot_writes_a_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "chill.png"
    run = rulecraft("prob", "chill", "specific", "--sweep", "target=1..120", "--plot", str(out))
    assert run.returncode == 0, run.stderr
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    svg = tmp_path / "one.svg"
    assert rulecraft("prob", "chimera", "pool", "-i", "dice=5", "--plot", str(svg)).returncode == 0
    assert "<svg" in svg.read_text()


def test_plot_without_matplotlib_is_a_clear_message(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from engine.cli import main\n"
        f"raise SystemExit(main(['prob', 'chill', 'specific', '-i', 'target=5', '--plot', {str(tmp_path / 'x.png')!r}]))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    assert "needs matplotlib" in run.stderr and "pip install 'rulecraft[plot]'" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--sweep", "target=5..1"], "must run upwards"),
        (["--sweep", "target"], "NAME=A..B"),
        (["-i", "target=55", "--value", "rol"], "did you mean 'roll'"),
        (["-i", "target=55", "--plot", "x.gif"], ".png or .svg"),
    ],
)
def test_prob_bad_arguments(args: list[str], needle: str) -> None:
    run = rulecraft("prob", "chill", "specific", *args)
    assert run.returncode == 1
    assert needle in run.stderr
    assert "Traceback" not in run.stderr
