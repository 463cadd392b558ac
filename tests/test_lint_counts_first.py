"""The linter checks what the inputs decide of the dice before it sizes them.

A combination whose enumeration the cost model puts over the linter's share is left out (RC809);
but a count the inputs decide can be checked without enumerating anything. A draw of 600 chits
from a bag of 45 had passed `validate` with an RC809 whose hint asked for 27 million units of
`--lint-work` (every roll of it fails: RC808 is the finding), and a pool of 600 dice over
`max_pool` had asked for 199 million, where the bound that stops it is `max_pool`, which
`--lint-work` does not raise (hunt 13zh). The counts are checked by the rule the roller and the
exact evaluator check them by (`limits.counted_before_roll`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

BAG = """rulecraft: 1
name: drawn
bags:
  beads:
    chits: {poor: 3, average: 4, good: 2}
    sets: 5
checks:
  task:
    inputs:
      n: {type: int, min: 1, max: COUNT, default: COUNT}
    roll:
      drawn: {draw: beads, count: n}
    outcomes: beads
    outcome: "best(drawn) if n == 1 else worst(drawn)"
"""

POOL = """rulecraft: 1
name: pooled
scales:
  level: [low, normal, high]
tables:
  dice_for:
    params: {l: level}
    returns: int
    cases: {low: 2, normal: 600, high: 2}
checks:
  task:
    inputs:
      level: {type: choice, choices: level, default: normal}
    roll:
      p: {pool: dice_for(level), die: 6}
    outcomes: [lo, hi]
    outcome: "'hi' if highest(p) == 6 and level == 'high' else 'lo'"
"""


@pytest.mark.parametrize("count", [46, 600, 1_000_000])
def test_a_draw_past_its_bag_fails_validate_however_dear_to_enumerate(
    cli: Any, tmp_path: Path, count: int
) -> None:
    path = tmp_path / "drawn.yaml"
    path.write_text(BAG.replace("COUNT", str(count)), encoding="utf-8")
    r = cli("validate", str(path))
    assert r.code == 1, r
    assert (
        f"drawn.yaml:12:35: error RC808: check 'task' fails for an allowed input: "
        f"the default inputs: cannot draw {count} chits from a bag of 45 (RC406)"
    ) in r.err
    assert "RC809" not in r.err and "--lint-work" not in r.err
    assert cli("prob", str(path), "task").err.startswith(
        f"{path}:12:35: error RC406: cannot draw {count} chits from a bag of 45"
    )


def test_a_pool_over_max_pool_is_left_out_for_that_bound_not_the_linters_budget(
    cli: Any, tmp_path: Path
) -> None:
    path = tmp_path / "pooled.yaml"
    path.write_text(POOL, encoding="utf-8")
    r = cli("validate", str(path))
    assert r.code == 0, r
    assert (
        "1 of 3 input combinations were left out, e.g. the default inputs (dice in the pool is 600" in r.err
    )
    assert "raise it with --limit max_pool=N" in r.err
    assert "--lint-work N`, at least" not in r.err  # had asked for 199,430,720 units
    raised = cli("validate", "--limit", "max_pool=600", str(path)).err
    assert "Limits.max_pool" not in raised and "dice in the pool is 600" not in raised  # that bound passed


@pytest.mark.parametrize(
    ("times", "said", "col", "carets"), [("-1", "-1", 18, "^^"), ('"1/2"', "1/2", 19, "^^^")]
)
def test_a_redraws_times_that_is_no_count_is_told_at_its_value(
    cli: Any, tmp_path: Path, times: str, said: str, col: int, carets: str
) -> None:
    """It was told at `redraw:` (8:9), with the hint "correct the expression" two lines above the
    expression, where a pool's count is told at the count (hunt 13zh)."""
    path = tmp_path / "times.yaml"
    path.write_text(
        "rulecraft: 1\nname: x\nchecks:\n  c:\n    roll:\n      d:\n        die: 6\n        redraw:\n"
        f"          must: d == 1\n          times: {times}\n    outcomes: [lo, hi]\n"
        "    outcome: \"'hi' if d > 3 else 'lo'\"\n",
        encoding="utf-8",
    )
    r = cli("validate", str(path))
    assert r.code == 1, r
    assert (
        f"times.yaml:10:{col}: error RC808: check 'c' always fails (it has no inputs): "
        f"a redraw's 'times' must be a whole number, at least 0, got {said} (RC406)"
    ) in r.err
    assert f"\n            times: {times}\n{' ' * (col + 1)}{carets}\n" in r.err


def test_a_count_an_auto_rule_never_lets_roll_is_no_failure(cli: Any, tmp_path: Path) -> None:
    """Past 45 chits the rule decides before any draw, so no draw of more than the bag is made:
    the roller checks the counts only where no such rule fired, and so does the linter."""
    path = tmp_path / "auto.yaml"
    path.write_text(
        BAG.replace("COUNT", "600").replace(
            "    roll:\n", "    auto:\n      - when: n > 45\n        then: poor\n    roll:\n", 1
        ),
        encoding="utf-8",
    )
    r = cli("validate", str(path))
    assert r.code == 0 and "RC808" not in r.err, r
