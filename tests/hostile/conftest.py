"""Helpers for the hostile corpus: rulesets and inputs written to break the engine.

Every case must end with a `RulecraftError` carrying its exact diagnostic code (or, where the
input is harmless after all, a result) within a generous bound — never a traceback, a hang or a
silently wrong answer. The bound (`BOUND`, seconds) is loose on purpose, and `refused` counts it
in this process's CPU time: a busy 2-core machine must not make these tests flaky (a 5,000-value
chain refused in about 2.5 s of wall time alone once took 8.3 s beside three full test runs);
what they catch is a hang or a blow-up, which takes far longer. A wait that burns no CPU is
caught by the wall-time bound, `WALL_BOUND`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

import engine

BOUND = 5.0
WALL_BOUND = 6 * BOUND


class Refused:
    """`refused(code, fn, *args, **kwargs)`: `fn` raises a `RulecraftError` with `code` (and no
    other kind of exception) within `BOUND` seconds of CPU time (and `WALL_BOUND` of wall time);
    returns the error."""

    def __call__(self, code: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> engine.RulecraftError:
        start, cpu = time.monotonic(), time.process_time()
        with pytest.raises(engine.RulecraftError) as caught:
            fn(*args, **kwargs)
        took, spent = time.monotonic() - start, time.process_time() - cpu
        codes = [d.code for d in caught.value.diagnostics]
        assert code in codes, f"expected {code}, got {codes}: {caught.value}"
        assert spent < BOUND, f"{code} took {spent:.1f} s of CPU time"
        assert took < WALL_BOUND, f"{code} took {took:.1f} s"
        caught.value.render()  # every diagnostic can be shown (no number too long to print)
        return caught.value


@pytest.fixture(scope="session")
def refused() -> Refused:
    return Refused()


@pytest.fixture(scope="session")
def ruleset() -> Callable[..., str]:
    """A small valid ruleset's text, with parts replaced: `ruleset(inputs=..., die=..., outcome=...)`."""

    def make(
        *,
        target: str = "{type: int, min: 1, max: 100}",
        die: str = "6",
        outcome: str = "\"'hit' if d + target > 7 else 'miss'\"",
        extra: str = "",
    ) -> str:
        return (
            "rulecraft: 1\n"
            "name: mini\n"
            "checks:\n"
            "  act:\n"
            "    inputs:\n"
            f"      target: {target}\n"
            "    roll:\n"
            f"      d: {{die: {die}}}\n"
            "    outcomes: [miss, hit]\n"
            f"    outcome: {outcome}\n"
            f"{extra}"
        )

    return make
