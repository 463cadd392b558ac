"""The fuzz suite's size: at least 10,000 generated cases a run (issue 11, item 6), spread over
several tests so that pytest-xdist shares them between the cores: expressions, whole rulesets, and
scenes, examples and campaigns (each of which the suite must keep)."""

from __future__ import annotations

import test_fuzz_expressions
import test_fuzz_rulesets
import test_fuzz_scenes


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
    cases = _cases(test_fuzz_expressions) | _cases(test_fuzz_rulesets) | _cases(test_fuzz_scenes)
    assert len(cases) >= 11
    assert sum(cases.values()) >= 10_000, cases


def test_scenes_examples_and_campaigns_are_fuzzed() -> None:
    """Scenes solved and played, examples run and campaigns driven each have cases of their own."""
    cases = _cases(test_fuzz_scenes)
    for name in (
        "test_scenes_solved_played_and_sampled",
        "test_examples_pass_fail_or_are_refused",
        "test_campaigns_in_memory",
        "test_campaigns_in_sqlite",
    ):
        assert cases.get(name, 0) >= 50, cases
