"""`validate` passes a check that holds both a player's choice (`may`) and a rule `then: again`.

Found by hunt 13j: such a check is refused only under `optimal` (RC508: best play would weigh
every attempt to come), and works under `always` and `never`, but the linter took the refusal for
a failure of the check: "check 'pick' always fails" (RC808), so the fixed example of RC508 in
docs/diagnostics.md could never pass `validate`. `optimal` is now left out of the analysis for
it, as for a chain that can return to a state (RC505).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_roll_again import CHOOSING

import engine
from engine.errors import EvalError

PICK = CHOOSING  # the check of test_roll_again's policies


def test_the_check_is_refused_under_optimal_alone() -> None:
    rules = engine.load(PICK)
    with pytest.raises(EvalError) as raised:
        rules.distribution("pick", policy="optimal")
    assert raised.value.diagnostics[0].code == "RC508"
    for policy in ("always", "never"):
        d = rules.distribution("pick", policy=policy)
        assert d.probability("low") + d.probability("high") == 1


def test_validate_passes_it_strict_too(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "choosing.yaml"
    path.write_text(PICK)
    for strict in ((), ("--strict",)):
        r = cli("validate", str(path), *strict)
        assert r.code == 0 and "RC808" not in r.out + r.err, r.out + r.err
