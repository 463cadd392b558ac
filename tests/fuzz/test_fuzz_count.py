"""The fuzz suite's size: at least 10,000 generated cases a run (issue 11, item 6), spread over
several tests so that pytest-xdist shares them between the cores."""

from __future__ import annotations

import test_fuzz_expressions
import test_fuzz_rulesets


def _cases(module: object) -> dict[str, int]:
    found = {}
    for name, fn in vars(module).items():
        if name.startswith("test_") and hasattr(fn, "hypothesis"):
            runs = 1
            for mark in getattr(fn, "pytestmark", []):
                if mark.name == "parametrize":
                    runs *= len(mark.args[1])
            found[name] = runs * fn._hypothesis_internal_use_settings.max_examples
    return found


def test_the_fuzz_suite_runs_ten_thousand_cases() -> None:
    cases = _cases(test_fuzz_expressions) | _cases(test_fuzz_rulesets)
    assert len(cases) >= 6
    assert sum(cases.values()) >= 10_000, cases
