"""A value that is true/false for some rolls and a number for others (an untyped table's result),
in a batch rolled one by one: a dictionary takes true for 1, so `Ruleset.sample(method="rolled")`
counted 1 and true as one entry, labelled by whichever came first (`[[false, 1990], [1, 4010]]`
for about 2,000 false, 1,000 ones and 3,000 true), and `Batch.mean` read true as 1 (hunt 13zd).
It is refused with RC506 at the value, as the batch drawn from the exact distribution is; a value
of one kind, true/false alone, is counted as before."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import engine

MIXED = """\
rulecraft: 1
name: mixed
tables:
  t:
    params: [a]
    rules:
      - when: a == 1
        then: a
      - else: a > 3
checks:
  c:
    roll:
      d: {die: 6}
    let:
      v: t(d)
      w: d > 3
    outcomes: [lo, hi]
    outcome: "'hi' if d > 3 else 'lo'"
"""


@pytest.mark.parametrize("method", ["rolled", "exact", "auto"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_true_and_one_are_refused_by_every_method(method: str, seed: int) -> None:
    rs = engine.load(MIXED)
    with pytest.raises(engine.EvalError) as refused:
        rs.sample("c", 600, random.Random(seed), method=method)
    [d] = refused.value.diagnostics
    assert d.code == "RC506" and d.message.startswith("value 'v' is true/false for some rolls and a number")
    assert d.span is not None and (d.span.line, d.span.col) == (15, 10)


def test_a_value_of_true_and_false_alone_is_counted_as_itself() -> None:
    rs = engine.load(MIXED.replace("then: a\n", "then: false\n"))
    batch = rs.sample("c", 6000, random.Random(2), method="rolled")
    assert set(batch.values["v"]) == {False, True} and set(batch.values["w"]) == {False, True}
    assert all(type(k) is bool for k in batch.values["v"])
    assert batch.values["w"][True] == batch.outcomes["hi"] and batch.values["v"][True] == batch.outcomes["hi"]
    assert list(batch.values["w"]) == [False, True]


def test_the_command_line_tells_it_at_the_value(cli: Callable[..., Any], tmp_path: Path) -> None:
    path = tmp_path / "mixed.yaml"
    path.write_text(MIXED)
    told = cli("roll", str(path), "c", "--times", "600", "--seed", "2", "--method", "rolled")
    assert told.code == 1 and "error RC506: value 'v'" in told.err and told.out == ""
