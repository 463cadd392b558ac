"""Bounds on what one `prob --sweep` or `--plot` asks for, told before any work (hunt 13za)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

MANY = (
    "rulecraft: 1\nname: many\nscales:\n  s: [{members}]\nchecks:\n  c:\n    inputs:\n"
    "      x: {{type: int, min: 0, max: 20000, default: 0}}\n    roll:\n      d: {{die: {die}}}\n"
    "    outcomes: s\n    outcome: \"shift('m0', d - 1 + 0 * x)\"\n"
)


def _many(tmp_path: Path, n: int) -> Path:
    path = tmp_path / "many.yaml"
    path.write_text(MANY.format(members=", ".join(f"m{i}" for i in range(n)), die=min(n, 1000)))
    return path


def test_a_list_of_values_is_bounded_as_a_range_is(cli: Any, tmp_path: Path) -> None:
    """20,001 values listed were solved, where a range stops at 10,001; and each value was looked
    for among those before it, so 32,500 values took 6 s to be refused for something else."""
    path = _many(tmp_path, 3)
    listed = ",".join(str(i) for i in range(20_001))
    started = time.monotonic()
    r = cli("prob", str(path), "c", "--sweep", f"x={listed}")
    assert r.code == 1 and "lists 20,001 values, more than the 10,001 a sweep takes" in r.err, r.err
    assert time.monotonic() - started < 5
    r = cli("prob", str(path), "c", "--sweep", "x=0..10001")
    assert r.code == 1 and "at most 10001 values" in r.err
    r = cli("prob", str(path), "c", "--sweep", "x=1,2,1")
    assert r.code == 1 and "'1'" in r.err and "twice" in r.err
    r = cli("prob", str(path), "c", "--sweep", "x=0..2")
    assert r.code == 0 and "m2" in r.out


def test_a_sweep_of_too_many_chances_is_refused_before_it_is_solved(cli: Any, tmp_path: Path) -> None:
    """201 values of a check of 40,000 outcomes printed 72 MB, 28 s past a 2 s deadline."""
    path = _many(tmp_path, 5_000)
    r = cli("prob", str(path), "c", "--sweep", "x=0..200")
    assert r.code == 1 and "201 values of check 'c', which has 5,000 outcomes, are 1,005,000" in r.err
    assert "sweep at most 200 values of this check at once" in r.err
    r = cli("prob", str(path), "c", "--sweep", "x=0..1", "--json")
    assert r.code == 0 and r.out.count('"m999"') == 2


def test_a_chart_of_too_many_outcomes_is_refused_before_it_is_drawn(cli: Any, tmp_path: Path) -> None:
    """3,000 bars took matplotlib 14 s to lay out; 40,000 more than a minute and 1.5 GB."""
    r = cli("prob", str(_many(tmp_path, 101)), "c", "--plot", str(tmp_path / "c.svg"))
    assert r.code == 1 and "a chart shows at most 100 outcomes, and it has 101" in r.err, r.err
    assert not (tmp_path / "c.svg").exists()


def test_a_sweeps_json_is_made_inside_its_budget(cli: Any, tmp_path: Path) -> None:
    """Found by hunt 13zc: `--json` writes every value's distribution for each row, worked out
    after the sweep's request had ended, charged nothing: 1,000 rows of four values of a d1000
    ran 52 s to 118 MB. They are made with each point now, under the sweep's one budget."""
    path = tmp_path / "values.yaml"
    path.write_text(
        "rulecraft: 1\nname: values\nchecks:\n  c:\n    inputs:\n      x: {type: int, min: 1, max: 9999}\n"
        "    roll:\n      d: {die: 1000}\n    let:\n      a: d * x\n      b: d * x + 1\n"
        "    outcomes: [lo, hi]\n    outcome: \"'hi' if d > 500 else 'lo'\"\n"
    )
    small = ("--limit", "max_work=40000")
    r = cli("prob", str(path), "c", "--sweep", "x=1..20", *small)
    assert r.code == 0, r.err  # the outcomes alone fit
    r = cli("prob", str(path), "c", "--sweep", "x=1..20", "--json", *small)
    assert r.code == 1 and '"RC503"' in r.out and "work budget of 40,000 units" in r.out, r.out[-400:]


def test_all_policies_take_no_plot_however_many_outcomes(cli: Any, tmp_path: Path) -> None:
    """Found by hunt 13zc: `--policy all --plot` on 101 outcomes was told the chart's bound, not
    that `--policy all` takes no `--plot`."""
    r = cli("prob", str(_many(tmp_path, 101)), "c", "--policy", "all", "--plot", str(tmp_path / "c.svg"))
    assert r.code == 1 and "RC407" in r.err and "--plot" in r.err and "RC602" not in r.err, r.err
