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
    assert join_all(rules, start, joining) == one_by_one
    assert start["characters"] == {}  # the state joined to is not changed
