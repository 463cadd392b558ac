"""A chain solved with numpy (`eval/chainarrays.py`) charges a layer of nodes in a few sums, each
before the work it stands for (`Work.charge_at_once`): past the budget the sum is refused having
charged the budget up to its end and a unit more, so the refusal comes where the node-by-node
solver's would, or before. It came up to a layer's sum past it: Chimera's `skill` at 14 dice
under `optimal` was refused at 2,269,996 units of 2,000,000. Counted, never timed."""

from __future__ import annotations

import traceback

import pytest

import engine
from engine import Limits
from engine.eval import rerolls
from engine.runtime import work
from engine.runtime.work import END, SCORED_END


@pytest.mark.parametrize(
    ("policy", "dice", "budget"),
    [
        ("optimal", 12, 900_000),
        ("always", 12, 150_000),
        ("always", 12, 300_000),
        ("never", 12, 100_000),
        ("never", 12, 200_000),
    ],
)
def test_a_refusal_with_arrays_comes_at_the_budget(
    policy: str, dice: int, budget: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rerolls, "ARRAYS_FROM", 0)
    past: list[tuple[int, bool]] = []  # how far past the budget, and whether the arrays charged it
    over = work.Work.over

    def told(self: work.Work) -> None:
        if self.used > self.limit:
            frames = traceback.extract_stack()
            past.append((self.used - self.limit, any(f.filename.endswith("chainarrays.py") for f in frames)))
        over(self)

    monkeypatch.setattr(work.Work, "over", told)
    rs = engine.load("chimera", limits=Limits(max_work=budget))
    with pytest.raises(engine.LimitError):
        rs.distribution("skill", policy=policy, dice=10, resolve=dice - 10)
    (by, arrays), *_ = past
    assert arrays and by <= max(SCORED_END, END), past
