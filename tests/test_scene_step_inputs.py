"""An action's input that a scene's step gives out of bounds (or not at all) is told at the
step's expression in the scene, naming the step and where the input is declared (hunt 13f): it
was told at the action's declaration alone, with no word of the scene, and `scene prob` (which
meets every state the scene reaches) failed where a played scene might not."""

from __future__ import annotations

import pytest

import engine

WALK = """
rulecraft: 1
name: walk
checks:
  run:
    roll: {d: {die: 6}}
    outcomes: [slow, fast]
    outcome: "'fast' if d >= 4 else 'slow'"
state:
  shared:
    pos: {counter: 2, min: 0, max: 6}
actions:
  move:
    inputs:
      big: {type: int, min: 1, max: 3, default: 1}
    roll: {check: run}
    effects:
      - {add: {pos: big}, when: "outcome == 'fast'", clamp: true}
      - {remove: {pos: 1}, when: "outcome == 'slow'", clamp: true}
  leap:
    inputs:
      k: {type: int, min: 1, max: 3}
    effects:
      - {add: {pos: k}, clamp: true}
scenes:
  far:
    parties: [w]
    round: [{act: move, inputs: {big: "pos"}}]
    ends: [{when: "pos >= 6", then: win}, {when: "pos == 0", then: lose}]
  bare:
    parties: [w]
    round: [{act: leap}]
    ends: [{when: "pos >= 6", then: win}]
"""


def test_an_input_out_of_bounds_is_told_at_the_step() -> None:
    rs = engine.load(WALK)
    with pytest.raises(engine.InputError) as caught:
        rs.scene_odds("far")
    [d] = caught.value.diagnostics
    assert d.code == "RC403"
    assert d.message.startswith(
        "input 'big' = 4 is above its maximum 3: given by the scene's step taking 'move'"
    )
    assert "declared at <string>:15:7" in d.message
    assert d.span is not None and (d.span.line, d.span.col) == (28, 40)  # `pos` in the step's inputs
    assert d.hint == "'big' is a whole number from 1 to 3"


def test_an_input_a_step_does_not_give_is_told_at_the_step(tmp_path, cli) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "walk.yaml"
    f.write_text(WALK, encoding="utf-8")
    r = cli("scene", "prob", str(f), "bare")
    assert r.code == 1 and r.out == ""
    assert "walk.yaml:32:13: error RC401: action 'leap' needs the input 'k'" in r.err
    assert "the scene's step taking 'leap' gives none" in r.err
    assert "hint: give it in the step's 'inputs:'" in r.err
