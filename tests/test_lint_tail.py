"""What the linter says never happens, on a check whose explosion is solved down to a tail, is a
note: the rolls past the tail were not followed.

Found by hunt 13j: a d6 exploding on 6 without a cap reaches 200 (34 sixes, then a 2: about
6^-34), below the exact evaluator's tail of 2.7e-16, so the linter called the outcome it gives
"probability 0 for every allowed input" (RC804) and its rule's condition "never true" (RC802), as
warnings, and `validate --strict` failed a correct ruleset. The same check with a cap is solved
whole, and there the claim is proven: still a warning.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import engine
from engine.tools.lint import lint

DEEP = """\
rulecraft: 1
name: deep
checks:
  deep:
    roll:
      d: {{die: 6, {cap}triggers: [{{name: ex, on: face == 6, must: add}}]}}
    outcomes: [lo, hi, absurd]
    outcome:
      - when: d >= 200
        then: absurd
      - when: d >= 100
        then: hi
      - else: lo
"""


def _found(cap: str) -> dict[str, Any]:
    return {d.code: d for d in lint(engine.load(DEEP.format(cap=cap)))}


def test_past_the_tail_it_is_a_note_that_says_so() -> None:
    found = _found("")
    assert "RC314" in found  # the tail, told as ever
    rule = found["RC802"]
    assert rule.severity == "note" and rule.message.endswith("above the explosion's tail"), rule.message
    assert "the rolls past the explosion's tail, at most 2.7e-16 of the probability" in (rule.hint or "")


def test_a_roll_past_the_tail_does_reach_it() -> None:
    rolled = engine.load(DEEP.format(cap="")).roll("deep", forced={"d": [6] * 34 + [2]})
    assert rolled.outcome == "absurd" and rolled.rolled["d"] == 206


@pytest.mark.parametrize("cap", ["cap: 20, "])
def test_with_a_cap_the_check_is_solved_whole_and_the_claim_is_a_warning(cap: str) -> None:
    found = _found(cap)
    assert "RC314" not in found
    rule = found["RC802"]
    assert rule.severity == "warning" and "explosion" not in rule.message, rule.message


def test_validate_strict_passes_the_uncapped_check(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text(DEEP.format(cap=""))
    r = cli("validate", "--strict", str(path))
    assert r.code == 0, r.out + r.err
