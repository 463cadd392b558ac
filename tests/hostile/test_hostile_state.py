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
from engine.api import open_store
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


def test_each_action_has_a_budget_of_its_own(refused):
    """t15 makes 2**16 table calls, twice: one action fits in a budget of 300,000 units, and ten in a row
    do too, because the budget is per request, not per campaign. A replay is one request too: the
    ten actions' work again, on one budget, is past 300,000 units (RC503), and fits in ten times it."""
    game = campaign(state_ruleset(amount="t15(marks) - t15(marks) + 1"), Limits(max_work=300_000))
    start = time.monotonic()
    for seed in range(10):
        game.act("push", seed=seed)
    assert game.show()["shared"]["marks"] == 10
    refused("RC503", game.replay)
    wide = engine.open_campaign("c", store=game.store, limits=Limits(max_work=3_000_000))
    assert wide.replay() == game.state()
    assert time.monotonic() - start < 30


def long_track(moves: int) -> str:
    """A table whose track holds 100,000 entries and an action of `moves` effects, each moving one
    entry: every effect changes the track, so the next one reads it anew (100,000 members each)."""
    return (
        "rulecraft: 1\nname: track\n"
        "checks:\n  act:\n    roll:\n      d: {die: 6}\n    outcomes: [miss, hit]\n"
        "    outcome: \"'hit' if d > 3 else 'miss'\"\n"
        "state:\n  shared:\n"
        "    track: {tally: [open, marked], start: {open: 100000}}\n"
        "actions:\n  mark:\n    effects:\n" + "      - {move: track, from: open, to: marked}\n" * moves
    )


def test_an_action_is_charged_for_the_track_entries_it_touches(refused, tmp_path):
    """Issue: state actions charged no work of their own, so 300 effects each reading a track of
    100,000 entries (30 million entries built, 1-2 s; a longer list or a promotion loop, minutes)
    were bounded by no budget. Each environment is charged a unit per item and per 32 entries of a
    track, each effect a unit: this one needs about 940,000 units, so it is refused under 500,000
    (RC503) and the SQLite campaign is as it was — no event appended, the same state."""
    store = open_store(str(tmp_path / "c.db"))
    tight = Limits(max_work=500_000)
    game = engine.new_campaign("c", engine.load(long_track(300), limits=tight), store=store, limits=tight)
    before = (game.log(), game.state())
    error = refused("RC503", game.act, "mark")
    assert isinstance(error, engine.LimitError)
    assert "work budget of 500,000 units" in str(error)
    store.close()
    again = open_store(str(tmp_path / "c.db"))
    kept = engine.open_campaign("c", store=again, limits=tight)
    assert (kept.log(), kept.state()) == before
    wide = engine.open_campaign("c", store=again, limits=Limits(max_work=2_000_000))
    assert wide.act("mark").event.state["shared"]["track"] == {"open": 99700, "marked": 300}
    again.close()


def test_a_replay_is_one_request_charged_per_event(refused):
    """Issue: a replay gave each event a budget of its own, so a log of any length replayed with no
    bound at all (a stranger's GET /replay re-ran every request ever made). Now the whole replay
    is one budget: 2,000 actions of a few expressions each replay within the default budget, and
    under 40,000 units (about 23 an event) they are refused with RC503, nothing written."""
    game = campaign(state_ruleset(requires="marks >= 0"))
    for seed in range(2000):
        game.act("push", seed=seed)
    assert game.replay() == game.state()
    tight = engine.open_campaign("c", store=game.store, limits=Limits(max_work=40_000))
    error = refused("RC503", tight.replay)
    assert isinstance(error, engine.LimitError)
    assert len(game.log()) == 2001 and game.state()["shared"]["marks"] == 2000


def test_an_undo_is_charged_for_the_log_it_reads(refused):
    """An undo looks back through the log, newest first, for the change to undo: a unit for each
    event it reads, on the request's budget (refused, it appends nothing). Rolls are passed over,
    so a change 3,000 rolls back costs 3,000 units; one just made costs a page, whatever the log's
    length (it read and charged the whole log until 2026-12-06)."""
    game = campaign(state_ruleset())
    game.act("push", seed=0)
    for seed in range(3000):
        game.roll("act", seed=seed)
    tight = engine.open_campaign("c", store=game.store, limits=Limits(max_work=2_000))
    refused("RC503", tight.undo)
    assert len(game.log()) == 3002
    assert engine.open_campaign("c", store=game.store, limits=Limits(max_work=20_000)).undo().undoes == 2
    game.act("push", seed=1)  # the newest change: found in the first page read
    assert tight.undo().undoes == 3004


def test_a_budget_spent_on_the_stored_state_is_rc503_not_damage(refused):
    """Review: the check of the stored state (before each change) and the carrying over of a
    migration took a spent budget for a state the rules cannot read: an action under a budget too
    small for that check was RC903 "damaged" and a migration a CampaignError, though nothing was
    wrong with the campaign. Both are the request's LimitError RC503, and nothing is written."""
    game = campaign(state_ruleset())
    for tiny in range(1, 4):
        tight = engine.open_campaign("c", store=game.store, limits=Limits(max_work=tiny))
        error = refused("RC503", tight.act, "push", seed=1)
        assert isinstance(error, engine.LimitError)
        error = refused(
            "RC503",
            engine.open_campaign,
            "c",
            store=game.store,
            ruleset=engine.load(state_ruleset(derived="2")),
            migrate=True,
            limits=Limits(max_work=tiny),
        )
        assert isinstance(error, engine.LimitError)
    assert len(game.log()) == 1 and game.header.ruleset_hash == game.store.header("c").ruleset_hash


def rolling_ruleset(derived: str) -> str:
    """A campaign with a check whose outcome makes about 65,000 table calls ('dear') and one that
    makes none ('cheap'); reading its state computes `derived`."""
    outcome = "    outcomes: [miss, hit]\n    outcome: \"'hit' if {} > 3 else 'miss'\"\n"
    return (
        "rulecraft: 1\nname: mini\n"
        + tables(14)
        + "checks:\n  cheap:\n    roll:\n      d: {die: 6}\n"
        + outcome.format("d")
        + "  dear:\n    roll:\n      d: {die: 6}\n"
        + outcome.format("t14(d) - t14(d) + d")
        + "state:\n  shared:\n    marks: {counter: 0, min: 0, max: 10}\n"
        f'    shown: {{derived: "{derived}"}}\n'
    )


def test_a_recorded_roll_is_one_request(refused):
    """Review: `Campaign.roll` rolled on one budget and checked the stored state (before appending
    the roll) on a second, fresh one, so a roll and a check each under `max_work` but together past
    it were written. Each costs about 65,000 units here: each alone fits a budget of 100,000, both
    on one budget do not (RC503, nothing written), and fit in 200,000."""
    cheap_state = campaign(rolling_ruleset("1"))
    dear_state = campaign(rolling_ruleset("t14(marks)"))
    tight = Limits(max_work=100_000)
    assert engine.open_campaign("c", store=cheap_state.store, limits=tight).roll("dear", seed=1)
    assert engine.open_campaign("c", store=dear_state.store, limits=tight).roll("cheap", seed=1)
    game = engine.open_campaign("c", store=dear_state.store, limits=tight)
    error = refused("RC503", game.roll, "dear", seed=1)
    assert isinstance(error, engine.LimitError)
    assert len(game.log()) == 2  # made, and the cheap roll: the dear one was not written
    wide = engine.open_campaign("c", store=dear_state.store, limits=Limits(max_work=200_000))
    assert wide.roll("dear", seed=1)[0].kind == "roll"
