"""A scene whose rolls are an uncapped explosion says so (`Odds.truncated`, the CLI's note).

Found by hunt 13f: the scene solver took each roll's distribution as the exact evaluator gives
it, cut down to a tail, and called the answer exact with no word of the cut. A d6 exploding on 6
read even or odd: the total is 6k + r, so P(even) is exactly 2/5 and the scene 'first even'
ends `even_first` with 16/25; the cut rolls give a fraction off by about 1e-16.
"""

from __future__ import annotations

import json
from fractions import Fraction

import engine

EXPLODING = """
rulecraft: 1
name: xp
checks:
  boom:
    roll:
      hits:
        pool: 1
        die: 6
        triggers:
          - {name: explode, on: face == 6, must: add}
    let:
      total: sum(hits)
    outcomes: [odd, even]
    outcome: "'even' if total % 2 == 0 else 'odd'"
state:
  shared:
    evens: {counter: 0, min: 0}
    odds: {counter: 0, min: 0}
actions:
  go:
    roll: {check: boom}
    effects:
      - {add: {evens: 1}, when: "outcome == 'even'"}
      - {add: {odds: 1}, when: "outcome == 'odd'"}
scenes:
  s:
    parties: [p]
    round: [{act: go}]
    ends:
      - {when: "evens >= 1", then: even_first}
      - {when: "odds >= 2", then: two_odds}
    max_rounds: 5
"""


def test_a_scene_of_cut_rolls_carries_their_cut() -> None:
    rs = engine.load(EXPLODING)
    roll = rs.distribution("boom")
    assert roll.truncated > 0
    odds = rs.scene_odds("s")
    assert odds.truncated == roll.truncated
    assert odds.probability("even_first") != Fraction(16, 25)  # exact for the rolls as cut
    assert abs(odds.probability("even_first") - Fraction(16, 25)) < 10 * odds.truncated
    assert odds.as_json()["truncated"] == f"{roll.truncated.numerator}/{roll.truncated.denominator}"


def test_a_scene_of_whole_rolls_says_nothing(tmp_path, cli) -> None:  # type: ignore[no-untyped-def]
    capped = EXPLODING.replace("pool: 1\n", "pool: 1\n        cap: 3\n")
    rs = engine.load(capped)
    assert rs.scene_odds("s").truncated == 0
    for text, noted in ((EXPLODING, True), (capped, False)):
        f = tmp_path / "xp.yaml"
        f.write_text(text, encoding="utf-8")
        r = cli("scene", "prob", str(f), "s")
        assert r.code == 0, r.err
        assert ("note: a roll of this scene is an uncapped explosion" in r.out) is noted
        j = cli("scene", "prob", str(f), "s", "--json")
        assert (json.loads(j.out)["truncated"] != "0/1") is noted
