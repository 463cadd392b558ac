"""Every end of a reroll chain is charged: best play's as it scores them (`work.SCORED_END`), and
those read without being scored — every end under `always` and `never`, those no choice leads
to under `optimal` — `work.END` as `RerollSolver.ends` reads them (the pool's value unpacked off
the state, 5-10 µs). They were charged nothing: a pool of 16 d6 under `always` read 20,349 ends
for free. Counted, never timed: each solve is run with the charge and with it set to 0, and the
difference is one `END` for each end read unscored, node by node and with arrays alike."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine.eval import rerolls
from engine.eval.dist import Dist
from engine.runtime.work import END, meter

TEXT = """\
rulecraft: 1
name: ends
checks:
  c:
    roll:
      p:
        pool: 6
        die: 6
        triggers: [{name: r, on: "face <= 2", may: reroll, repeat: false}]
    outcomes: [lo, hi]
    outcome: "'hi' if sum(highest(p, 3)) >= 15 else 'lo'"
"""


def solved(policy: str, arrays: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int, int]:
    """The units the check's chain charges (`RerollSolver.ends`), its ends read, and those best
    play scored (a fresh load each time, so nothing is kept between solves)."""
    monkeypatch.setattr(rerolls, "ARRAYS_FROM", 0 if arrays else 10**9)
    rs = engine.load(TEXT, name="ends.yaml", limits=engine.Limits(max_work=10**12))
    found: list[tuple[rerolls.RerollSolver, int]] = []
    ends = rerolls.RerollSolver.ends

    def counted(self: rerolls.RerollSolver, first: Any) -> Dist:
        work = meter()
        before = work.used
        try:
            return ends(self, first)
        finally:
            found.append((self, work.used - before))

    monkeypatch.setattr(rerolls.RerollSolver, "ends", counted)
    rs.distribution("c", policy=policy)
    monkeypatch.setattr(rerolls.RerollSolver, "ends", ends)
    ((solver, used),) = found
    return used, len(solver._finals), len(solver._scored)


@pytest.mark.parametrize("policy", ["always", "never", "optimal"])
@pytest.mark.parametrize("arrays", [False, True])
def test_each_end_read_unscored_is_charged_an_end(
    policy: str, arrays: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    used, ends, scored = solved(policy, arrays, monkeypatch)
    monkeypatch.setattr(rerolls, "END", 0, raising=False)
    uncharged, again, _ = solved(policy, arrays, monkeypatch)
    assert ends == again and ends > 100
    assert (scored > 0) == (policy == "optimal")
    assert ends >= scored  # under optimal, none charged twice
    assert used - uncharged == END * (ends - scored), (used, uncharged, ends, scored)
