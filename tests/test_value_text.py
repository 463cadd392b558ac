"""How values are written where a user reads them (found by a review): a range is written in
JSON as the language writes it, `"1..3"`, not as the list `[1, 3]`.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import engine

TEXT = """\
rulecraft: 1
name: texts
checks:
  c:
    inputs:
      x: {type: int, min: 0, max: 5, default: 3}
    let:
      rg: "1..x"
      lst: "[x, x + 1]"
    roll:
      d: {die: 6}
    outcomes: [miss, hit]
    outcome: "'hit' if d in rg else 'miss'"
    examples:
      - name: a range expected as it is written
        dice: {d: 1}
        expect: {outcome: hit, values: {rg: "1..3"}}
state:
  campaign:
    rng: {type: int, default: 1, min: 0, max: 9}
  character:
    tough: {type: int, default: 0, min: 0, max: 3}
  shared:
    wins: {counter: 0, min: 0}
"""
RULES = engine.load(TEXT)


def test_a_range_is_written_as_the_language_writes_it_in_json(cli: Any, tmp_path: Path) -> None:
    result = RULES.roll("c", random.Random(1))
    assert result.as_json()["values"]["rg"] == "1..3"
    assert result.as_json()["values"]["lst"] == [3, 4]
    file = tmp_path / "texts.yaml"
    file.write_text(TEXT)
    r = cli("roll", str(file), "c", "--seed", "1", "--json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["values"]["rg"] == "1..3"
    r = cli("test", str(file))
    assert r.code == 0, r.out + r.err  # an example expects a range as it is written
