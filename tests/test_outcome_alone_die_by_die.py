"""A value the outcome does not read, failing at some end of the roll, leaves the outcome's
distribution given where the check is worked out randomizer by randomizer (`Sequential`: triggers,
redraws, a die read from an earlier one), as it always did for a product of independent dice
(docs/language.md, Checks: "the outcome's distribution ... runs the named values the outcome
reads and nothing else"). Hunt 11c: `prob` failed with RC502 at the unread value there."""

from __future__ import annotations

import pickle
from fractions import Fraction

import pytest

import engine

BASE = """\
rulecraft: 1
name: t
checks:
  c:
    inputs:
      x: {type: int, min: 0, max: 1, default: 0}
    roll:
ROLL
    let:
      z: 1 / (d - 2)
    outcomes: [miss, hit]
    outcome: "'hit' if d > 3 else 'miss'"
    outputs:
      o: z
"""
ROLLS = {
    "plain": ("      d: {die: 6}", Fraction(1, 2)),
    "trigger": (
        "      d: {die: 6, triggers: [{on: face == 1, must: reroll, repeat: false}]}",
        Fraction(7, 12),
    ),
    "redraw": ("      d: {die: 6, redraw: {must: d == 1}}", Fraction(7, 12)),
    "earlier die": (
        '      s: {die: 2}\n      d: {die: "1..(4 + s)"}',
        Fraction(1, 2) * Fraction(2, 5) + Fraction(1, 2) * Fraction(3, 6),
    ),  # 4 or 5 of 1..5, 4 to 6 of 1..6
}


@pytest.mark.parametrize("kind", list(ROLLS))
def test_the_outcome_is_given_and_the_value_fails(kind: str) -> None:
    roll, hit = ROLLS[kind]
    rs = engine.load(BASE.replace("ROLL", roll))
    dist = rs.distribution("c")
    assert dist.probability("hit") == hit
    for ask in (lambda: dist.value("z"), lambda: dist.value("o"), lambda: dist.values):
        with pytest.raises(engine.EvalError) as caught:
            ask()
        assert caught.value.diagnostics[0].code == "RC502"
    again = pickle.loads(pickle.dumps(dist))  # as a worker process sends it
    assert again.probability("hit") == hit and again == dist
    with pytest.raises(engine.EvalError):
        again.value("z")


def test_an_optimal_choice_reads_the_outcome_alone() -> None:
    """A `may` reroll under best play: its objective is the outcome's, which the failing value
    does not touch (reroll a 1 or a 2, 3 is no better: 1/2 + 2/6 * 1/2)."""
    roll = "      d: {die: 6, triggers: [{on: face <= 3, may: reroll, repeat: false}]}"
    rs = engine.load(BASE.replace("ROLL", roll))
    assert rs.distribution("c", policy="optimal").probability("hit") == Fraction(3, 4)


def test_a_failing_outcome_still_fails() -> None:
    roll = "      d: {die: 6, redraw: {must: d == 1}}"
    rs = engine.load(BASE.replace("ROLL", roll).replace("'hit' if d > 3", "'hit' if z > 0"))
    with pytest.raises(engine.EvalError) as caught:
        rs.distribution("c")
    assert caught.value.diagnostics[0].code == "RC502"


@pytest.mark.parametrize("kind", ["plain", "trigger"])
def test_prob_json_gives_the_outcomes_and_the_values_error(kind: str, tmp_path, cli) -> None:
    """Review AU: `prob --json` failed with RC502 where `prob` answered; the outcomes are given,
    `values` is null and `values_error` says why."""
    import json

    path = tmp_path / "t.yaml"
    path.write_text(BASE.replace("ROLL", ROLLS[kind][0]))
    r = cli("prob", str(path), "c", "--json")
    assert r.code == 0, r.err
    data = json.loads(r.out)
    assert data["outcomes"]["hit"] == str(ROLLS[kind][1]) and data["values"] is None
    assert [d["code"] for d in data["values_error"]] == ["RC502"] and data["values_error"][0]["line"] == 10
