"""Issue 11, item 1: a campaign's own expressions — preconditions, effects, derived values, the
inputs an action gives its roll — run under the same work budget as a roll. Before, a table
called from them charged no one (`work.meter()` outside a request counts nothing), so a state
section could hang a campaign where the same expression in a check was refused."""

from __future__ import annotations

import time

import pytest
from test_hostile_budget import tables

import engine
from engine import Limits
from engine.state.memory import MemoryStore


def state_ruleset(*, requires: str = "true", amount: str = "1", derived: str = "1", give: str = "1") -> str:
    """A one-action campaign whose expressions are chosen by the test."""
    return (
        "rulecraft: 1\nname: mini\n"
        + tables(40)
        + "checks:\n  act:\n    inputs:\n      n: {type: int, min: 0, max: 1000000000, default: 1}\n"
        "    roll:\n      d: {die: 6}\n    outcomes: [miss, hit]\n"
        "    outcome: \"'hit' if d + n > 3 else 'miss'\"\n"
        "state:\n  shared:\n"
        "    marks: {counter: 0, min: 0, max: 1000000000000}\n"
        f'    shown: {{derived: "{derived}"}}\n'
        "actions:\n  push:\n"
        f'    requires:\n      - {{when: "{requires}", else: no}}\n'
        f'    roll: {{check: act, inputs: {{n: "{give}"}}}}\n'
        f'    effects:\n      - {{add: {{marks: "{amount}"}}}}\n'
    )


def campaign(text: str, limits: Limits = Limits()) -> engine.Campaign:  # noqa: B008 (frozen)
    return engine.new_campaign("c", engine.load(text, limits=limits), store=MemoryStore())


@pytest.mark.parametrize(
    "where",
    [
        {"requires": "t40(marks) > 0"},
        {"amount": "t40(marks) - t40(marks) + 1"},
        {"give": "t40(marks)"},
    ],
    ids=["precondition", "effect", "roll input"],
)
def test_an_action_is_bounded_by_the_budget(refused, where):
    game = campaign(state_ruleset(**where))
    error = refused("RC503", game.act, "push", seed=1)
    assert isinstance(error, engine.LimitError)
    assert len(game.log()) == 1  # refused: nothing was written
    refused("RC503", game.distribution, "push")


def test_a_derived_value_is_bounded_when_the_state_is_read(refused):
    """The state is read (derived values included) when the campaign is made."""
    assert campaign(state_ruleset()).show()["shared"]["shown"] == 1
    error = refused("RC503", campaign, state_ruleset(derived="t40(marks)"))
    assert isinstance(error, engine.LimitError)
    assert "derived value 'shown'" in str(error) and "t40(marks)" in str(error)  # the source line


def test_each_action_has_a_budget_of_its_own():
    """t15 makes 2**16 table calls, twice: one action fits in a budget of 300,000 units, and ten in a row
    do too, because the budget is per request, not per campaign."""
    game = campaign(state_ruleset(amount="t15(marks) - t15(marks) + 1"), Limits(max_work=300_000))
    start = time.monotonic()
    for seed in range(10):
        game.act("push", seed=seed)
    assert game.show()["shared"]["marks"] == 10
    assert game.replay() == game.state()
    assert time.monotonic() - start < 30
