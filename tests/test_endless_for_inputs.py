"""A roll that can never end for the inputs asked for: `must` steps that act on every die and set
each other off, decided on the inputs (`Procedure.endless`), told alike by the sampler, the exact
evaluator and the linter (the compiler's `RC313` where the faces alone decide it).

Hunt 11c: a `must: add` on `face >= k` with `k` allowed to be 1 passed `validate` (its linter
only ran out of budget, `RC809`), `prob` said to raise `max_work`, then `max_states`, and `roll` to
raise `max_rerolls`: no limit is ever enough. The same with `must: reroll` said "never ends" in
`prob` but asked for `max_rerolls` in `roll`."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import pytest

import engine
from engine.cli import main

RULES = """\
rulecraft: 1
name: endless
checks:
  c:
    inputs:
      k: {type: int, min: 1, max: 7, default: 1}
      n: {type: int, min: 0, max: 3, default: 1}
    roll:
      p:
        pool: n
        die: 6
        triggers: [{on: "face >= k", must: ACTION}]
    outcomes: [miss, hit]
    outcome: "'hit' if sum(p) >= 4 else 'miss'"
"""


@pytest.fixture(params=["add", "reroll"])
def rules(request: pytest.FixtureRequest) -> str:
    return RULES.replace("ACTION", request.param)


def told(exc: engine.RulecraftError) -> None:
    (d,) = exc.diagnostics
    assert d.code == "RC503" and d.message == "this chain of rerolls never ends", d
    assert d.hint is not None and d.hint.startswith("set a 'cap' on the pool"), d.hint
    assert d.span is not None and d.span.line == 9, d.span  # the pool, where its cap goes


def test_the_exact_evaluator_says_it_never_ends(rules: str) -> None:
    rs = engine.load(rules)
    with pytest.raises(engine.LimitError) as caught:
        rs.distribution("c", k=1)
    told(caught.value)


def test_the_sampler_says_it_never_ends_not_to_raise_a_limit(rules: str) -> None:
    rs = engine.load(rules)
    with pytest.raises(engine.LimitError) as caught:
        rs.roll("c", random.Random(3), k=1)
    told(caught.value)


def test_inputs_that_let_it_end_are_answered(rules: str) -> None:
    """`k` 7 sets nothing off; no die rolled (`n` 0) has nothing to set off: both end at once."""
    rs = engine.load(rules)
    assert rs.distribution("c", k=7).probability("hit") == Fraction(1, 2)
    assert rs.distribution("c", k=1, n=0).probability("miss") == 1
    assert rs.roll("c", random.Random(3), k=1, n=0).outcome == "miss"


def test_an_add_that_stops_after_one_round_ends() -> None:
    """`repeat: false`: the added die does not set the step off again, so every roll ends."""
    rs = engine.load(RULES.replace("must: ACTION}", "must: add, repeat: false}"))
    dist = rs.distribution("c", k=1)
    assert dist.probability("hit") == Fraction(33, 36)  # two dice: 3 or less only as 1+1, 1+2, 2+1
    assert rs.roll("c", random.Random(3), k=1).outcome in ("hit", "miss")


def test_validate_fails_the_input_not_the_budget(rules: str, tmp_path: Path, capsys) -> None:
    path = tmp_path / "endless.yaml"
    path.write_text(rules.replace("max: 7", "max: 1"))  # only k = 1: nothing else to spend on
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err
    assert "error RC808" in err and "this chain of rerolls never ends" in err, err
    assert "RC809" not in err, err


def test_a_die_of_its_own_that_never_stops_adding() -> None:
    """An `each_die` pool's die, and a die with triggers, alike."""
    text = RULES.replace(
        'pool: n\n        die: 6\n        triggers: [{on: "face >= k", must: ACTION}]',
        'pool: n\n        die: 6\n        each_die: {triggers: [{on: "face >= k", must: add}]}',
    )
    assert "each_die" in text
    with pytest.raises(engine.LimitError) as caught:
        engine.load(text).distribution("c", k=1)
    assert caught.value.diagnostics[0].message == "this chain of rerolls never ends"
    die = RULES.replace("pool: n\n        die: 6", "die: 6").replace("sum(p)", "p")
    for action in ("add", "reroll"):
        rs = engine.load(die.replace("ACTION", action))
        with pytest.raises(engine.LimitError) as caught:
            rs.distribution("c", k=1)
        assert caught.value.diagnostics[0].message == "this chain of rerolls never ends"
        with pytest.raises(engine.LimitError) as caught:
            rs.roll("c", random.Random(1), k=1)
        assert caught.value.diagnostics[0].message == "this chain of rerolls never ends"
