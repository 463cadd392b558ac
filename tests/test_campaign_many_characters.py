"""A campaign made with many characters copies its state once (`runtime.state.join_all`), not
once per character: 1,600 took 4.2 s through the server and 3,000 passed its deadline (hunt
13zp); 3,200 used up the whole work budget, charged for each copy of every sheet."""

from __future__ import annotations

from pathlib import Path

import engine
from engine.api import open_store
from engine.runtime.state import join, join_all
from engine.state.campaign import Campaign


def test_a_campaign_of_3200_characters_fits_the_default_budget(tmp_path: Path) -> None:
    rs = engine.load("chill")
    characters = {f"envoy{i}": {} for i in range(3200)}
    with open_store(tmp_path / "c.db") as store:
        made = Campaign.create(
            store, "crowd", rs.model, rs.document.source.text, {"players": 4}, characters, rs.limits
        )
        state = made.state()
    assert sorted(state["characters"]) == sorted(characters)  # every one


def test_joining_all_at_once_is_joining_one_after_another() -> None:
    rs = engine.load("chill")
    rules = rs.model.state
    assert rules is not None
    from engine.runtime.state import new_state

    start = new_state(rules, {"players": 5})
    joining = {"ann": {}, "bo": {}, "cy": {}}
    one_by_one = start
    for who, params in joining.items():
        one_by_one = join(rules, one_by_one, who, params)
    assert join_all(rules, start, joining.items()) == one_by_one
    assert start["characters"] == {}  # the state joined to is not changed


ST = """\
rulecraft: 1
name: st
checks:
  c:
    roll: {d: {die: 6}}
    outcomes: [lo, hi]
    outcome: "'hi' if d > 3 else 'lo'"
state:
  periods: [scene]
  character:
    start_hp: {type: int, min: 0, max: 100, default: 6}
  each:
    hp: {counter: start_hp, min: 0, max: 10}
    bag:
      tally: [a, b]
      start: {a: "start_hp - 6"}
"""


def _st() -> engine.Ruleset:
    from engine.api import load_source
    from engine.syntax.positions import SourceFile

    return load_source(SourceFile("st.yaml", ST))


def test_made_at_once_the_first_problem_is_one_by_one_s(tmp_path: Path) -> None:
    """Each character is bound as it joins: `a` over its bound is told, not `b`'s bad number
    after it (every character was bound first for a while: hunt 13zq)."""
    import pytest

    from engine.errors import RulecraftError

    rs = _st()
    with open_store(tmp_path / "c.db") as store:
        with pytest.raises(RulecraftError) as caught:
            Campaign.create(
                store,
                "k",
                rs.model,
                rs.document.source.text,
                {},
                {"a": {"start_hp": 20}, "b": {"start_hp": "x"}},
                rs.limits,
            )
        assert store.names() == []
    [d] = caught.value.diagnostics
    assert d.code == "RC906" and "'hp' would be 20, above its maximum 10" in d.message, d.render()


def test_a_campaign_is_made_only_if_it_can_be_shown_within_the_same_limits(tmp_path: Path) -> None:
    """Made at once, thousands of characters cost little to join (`join_all`) and more to show,
    each character's items read with their derived values: a campaign was written that no
    request could then show (422, its work budget used up, every time) or change (hunt 13zq).
    Under every budget here it is either refused, with nothing written, or made and shown."""
    from engine.errors import LimitError
    from engine.runtime.limits import Limits

    rs = engine.load("castle")  # each character's derived values cost more to show than to join
    characters = {f"c{i}": {} for i in range(1000)}
    outcomes = set()
    for budget in (30_000, 50_000, 80_000, 120_000, 400_000):  # 50,000: made, then never shown
        limits = Limits(max_work=budget)
        with open_store(tmp_path / f"c{budget}.db") as store:
            try:
                made = Campaign.create(store, "k", rs.model, rs.document.source.text, {}, characters, limits)
            except LimitError:
                assert store.names() == [], budget  # refused: nothing written
                outcomes.add("refused")
                continue
            shown = made.show()  # made: shown under the same limits
            assert len(shown["characters"]) == 1000
            outcomes.add("made")
    assert outcomes == {"refused", "made"}  # the budgets span both


def test_a_change_once_written_is_shown_without_more_work(tmp_path: Path) -> None:
    """The state after a change is worked out before it is committed, within the change's own
    budget and deadline, and `show(at=)` of it does no work: a join whose request's deadline
    passed in the read after the commit was answered 504 though written (hunt 13zq)."""
    import time

    from engine.runtime.work import request_deadline

    rs = engine.load("castle")  # 1,500 characters' views: past the clock's first look
    with open_store(tmp_path / "c.db") as store:
        made = Campaign.create(
            store, "k", rs.model, rs.document.source.text, {}, {f"c{i}": {} for i in range(1500)}, rs.limits
        )
        event = made.join("late")
        with request_deadline(1.0, time.monotonic() - 1.0):  # passed: any clock read stops it
            shown = made.show(at=event)
        assert "late" in shown["characters"] and len(shown["characters"]) == 1501


def test_a_change_is_written_only_if_a_read_could_show_it(tmp_path: Path) -> None:
    """A change checked its views alone where a read checks the state against the rules too, on
    one budget: a join was written that no read could then show (hunt 13zs). Joined one by one
    under a small budget, each join is refused, with nothing written, or shown after."""
    from engine.errors import LimitError
    from engine.runtime.limits import Limits

    rs = engine.load("chill")
    limits = Limits(max_work=400)
    with open_store(tmp_path / "c.db") as store:
        made = Campaign.create(
            store,
            "crowd",
            rs.model,
            rs.document.source.text,
            {"players": 4},
            {f"e{i}": {} for i in range(50)},
            limits,
        )
        for k in range(200):
            events = len(made.log())
            try:
                made.join(f"newbie{k}")
            except LimitError as exc:
                assert "showing the state of campaign 'crowd' after the change" in str(exc), str(exc)
                assert len(made.log()) == events  # nothing written
                break
            made.show()  # written: a read shows it
        else:
            raise AssertionError("every join fitted: the budget does not test the bound")


def test_a_request_s_short_wait_for_the_lock_does_not_outlast_its_write(tmp_path: Path) -> None:
    """A write in a request waits for the lock what the request has left; the store's next read
    waits its own again (it kept the write's tenth of a second, and the read that answered a
    campaign just made met a lock as a 503: hunt 13zs)."""
    import time

    from engine.runtime.work import request_deadline

    rs = engine.load("chill")
    with open_store(tmp_path / "c.db", wait=5) as store:
        with request_deadline(1.0, time.monotonic() + 0.25):
            Campaign.create(store, "k", rs.model, rs.document.source.text, {"players": 4}, {}, rs.limits)
        (busy,) = store._open().execute("PRAGMA busy_timeout").fetchone()  # type: ignore[attr-defined]
        assert busy == 5000, busy
