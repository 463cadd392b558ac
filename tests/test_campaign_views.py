"""What a campaign hands out cannot change it (review 12g). With the memory store, `show()["params"]`
and `log()[-1].state` were the stored state's own dicts: `show()["params"]["players"] = 5` changed
the campaign with no action, no event and no check, and 99 (past its bound) made the next `show()`
RC903 "damaged". Every view (`show`, `state`, `log` and the events every change returns, `replay`,
`export`, `header`, the store's own `events` and `last`) is now read-only all the way down
(`FrozenDict`, `FrozenList`), for every store alike: each change to one is a TypeError, and the
campaign reads as it did. The PostgreSQL store is tried when a server can be had (`pg_url`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.scenes.campaign import campaign_odds, play_in_campaign
from engine.scenes.play import Played
from engine.state.memory import MemoryStore
from engine.state.records import Store
from engine.state.sqlite import SqliteStore

RULES = """\
rulecraft: 1
name: views
checks:
  swing:
    roll: {d: {die: 6}}
    outcomes: [miss, hit]
    outcome: "'hit' if d >= 4 else 'miss'"
state:
  periods: [night]
  campaign:
    players: {type: int, min: 1, max: 6, default: 3}
  character:
    hp: {type: int, min: 1, max: 9, default: 3}
  shared:
    heap: {tally: [x, y], start: {x: 4}, reset: night}
    gold: {counter: 2, min: 0, max: "players * 10"}
  each:
    hurt: {counter: 0, min: 0}
    down: {derived: "hurt >= hp"}
actions:
  poke:
    effects:
      - {move: heap, from: x, to: y}
      - {add: {gold: 1}}
  strike:
    by: character
    others: [foe]
    requires:
      - {when: "not down and not foe.down", else: nobody who is down fights}
    roll: {check: swing}
    effects:
      - {add: {hurt: 1}, of: foe, when: "outcome == 'hit'"}
scenes:
  fight:
    parties: [ann, bo]
    round:
      - {act: strike, by: ann, others: {foe: bo}}
      - {act: strike, by: bo, others: {foe: ann}}
    ends:
      - {when: bo.down, then: ann_wins}
      - {when: ann.down, then: bo_wins}
    max_rounds: 40
"""


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "memory":
        made: Store = MemoryStore()
    elif request.param == "sqlite":
        made = SqliteStore(tmp_path / "views.db")
    else:  # skipped, with its reason, when no server can be had
        from engine.state.postgres import PostgresStore

        made = PostgresStore(request.getfixturevalue("pg_url"))
    yield made
    made.close()


def _played(store: Store, tmp_path: Path) -> tuple[engine.Campaign, dict[str, Callable[[], Any]], Played]:
    """A campaign with an event of every kind a player makes, and every view it hands out."""
    path = tmp_path / "views.yaml"
    path.write_text(RULES)
    c = engine.new_campaign("v", path, store=store, params={"players": 3}, characters={"ann": {}})
    joined = c.join("bo", hp=4)
    acted = c.act("poke")
    struck = c.act("strike", "ann", others={"foe": "bo"}, seed=3)
    rolled, result = c.roll("swing", seed=5)
    begun = c.begin("night")
    undone = c.undo()
    scene, played = play_in_campaign(c, "fight", {"ann": "ann", "bo": "bo"}, seed=1)
    views: dict[str, Callable[[], Any]] = {
        "show()": c.show,
        "show(at=)": lambda: c.show(at=c.log()[-1]),
        "state()": c.state,
        "log()": lambda: tuple((e.data, e.state) for e in c.log()),
        "log(newest)": lambda: tuple((e.data, e.state) for e in c.log(limit=2, newest=True)),
        "replay()": c.replay,
        "export()": c.export,
        "header.params": lambda: c.header.params,
        "store.header": lambda: store.header("v").params,
        "store.events": lambda: tuple((e.data, e.state) for e in store.events("v")),
        "store.last": lambda: (store.last("v").data, store.last("v").state),
        "joined": lambda: (joined.data, joined.state),
        "acted": lambda: (acted.event.data, acted.event.state),
        "struck": lambda: (struck.event.data, struck.event.state, struck.result),
        "rolled": lambda: (rolled.data, rolled.state, result),
        "begun": lambda: (begun.data, begun.state),
        "undone": lambda: (undone.data, undone.state),
        "scene": lambda: (scene.data, scene.state),
    }
    return c, views, played


def _containers(value: Any) -> Iterator[Any]:
    """Every mapping and list within `value` (a view, or a tuple of views), itself included."""
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from _containers(v)
    elif isinstance(value, list):
        yield value
        for v in value:
            yield from _containers(v)
    elif isinstance(value, tuple):
        for v in value:
            yield from _containers(v)
    elif hasattr(value, "values") and hasattr(value, "outcome"):  # a Result: its mappings
        for name in ("values", "inputs", "rolled", "drawn"):
            yield from _containers(getattr(value, name))


def _changes(container: Any) -> Iterator[Callable[[], Any]]:
    """Each way of changing `container` in place, one at a time."""
    if isinstance(container, dict):
        for key, v in list(container.items()):
            yield lambda k=key, v=v: container.__setitem__(k, 99 if not isinstance(v, dict | list) else {})
            yield lambda k=key: container.pop(k)
        yield lambda: container.__setitem__("added", 5)
        yield lambda: container.update({"added": 5})
        yield container.clear
    else:
        if container:
            yield lambda: container.__setitem__(0, 99)
            yield container.pop
        yield lambda: container.append(1)
        yield lambda: container.extend([1])
        yield container.clear


def _as_played(c: engine.Campaign) -> str:
    """Everything the campaign reads as: its state shown, its whole log and header."""
    return json.dumps({"show": c.show(), "export": c.export(), "params": c.header.params}, sort_keys=True)


def test_no_view_a_campaign_hands_out_changes_it(store: Store, tmp_path: Path) -> None:
    c, views, _ = _played(store, tmp_path)
    before = _as_played(c)
    taken: list[str] = []
    for name, read in views.items():
        for container in list(_containers(read())):
            for change in _changes(container):
                try:
                    change()
                except TypeError:
                    continue  # refused: the view is read-only
                taken.append(f"{name}: {type(container).__name__}")
        assert _as_played(c) == before, f"changing what {name} handed out changed the campaign"
    reopened = engine.open_campaign("v", store=store)
    assert _as_played(reopened) == before and reopened.replay() == c.state()
    # read-only all the way down, for every store alike (not only unchanged: a copy to change
    # is what `dict(...)` and `list(...)` give)
    assert taken == [], taken


def test_what_is_the_caller_s_own_shares_nothing_kept(store: Store, tmp_path: Path) -> None:
    """A played scene's trace and state, and a scene's odds, share nothing kept, and are
    read-only (they were mutable copies until hunt 13k: test_scene_results_read_only): no change
    to them reaches the campaign or the next answer."""
    c, _, played = _played(store, tmp_path)
    before = _as_played(c)
    cast = {"ann": "ann", "bo": "bo"}
    odds = campaign_odds(c, "fight", cast)
    endings, rounds = dict(odds.endings.weights), dict(odds.rounds)
    for made in (odds.endings.weights, odds.rounds, odds.choices, played.state, *played.trace):
        with pytest.raises(TypeError, match="read-only"):
            made.clear()
    again = campaign_odds(c, "fight", cast)
    assert dict(again.endings.weights) == endings and dict(again.rounds) == rounds
    assert _as_played(c) == before


def test_the_review_s_case_params_set_past_its_bound(store: Store, tmp_path: Path) -> None:
    """`show()["params"]["players"] = 99` made the next show RC903 "campaign is damaged"."""
    path = tmp_path / "views.yaml"
    path.write_text(RULES)
    c = engine.new_campaign("v", path, store=store, params={"players": 3})
    with pytest.raises(TypeError, match="read-only"):
        c.show()["params"]["players"] = 99
    with pytest.raises(TypeError, match="read-only"):
        c.log()[-1].state["params"]["players"] = 99
    assert c.show()["params"] == {"players": 3}
    c.act("poke")  # the campaign plays on from what it kept
    assert c.show()["shared"]["gold"] == 3 and c.replay() == c.state()


def test_a_copy_is_the_caller_s_to_change(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "views.yaml"
    path.write_text(RULES)
    c = engine.new_campaign("v", path, store=store, params={"players": 3})
    shown = dict(c.show())
    shown["params"] = dict(shown["params"], players=5)
    assert c.show()["params"] == {"players": 3} and shown["params"] == {"players": 5}
    # written as JSON, compared and hashed as the plain values
    assert json.loads(json.dumps(c.export()))["state"] == c.state() == json.loads(json.dumps(c.state()))


def test_frozen_json_and_frozen_pairs() -> None:
    from engine.frozen import FrozenDict, FrozenList, frozen_hook, frozen_json, frozen_pairs

    made = frozen_json({"a": [1, {"b": [2, [3]]}], "c": FrozenDict(d={"e": 1}), "t": (1, 2)})
    read = json.loads(
        '{"a": [1, {"b": [2, [3]]}], "c": {"d": {"e": 1}}, "t": [1, 2]}', object_pairs_hook=frozen_pairs
    )
    assert made == read == {"a": [1, {"b": [2, [3]]}], "c": {"d": {"e": 1}}, "t": [1, 2]}
    for value in (made, read):
        inner = value["a"][1]["b"][1]
        assert type(value) is FrozenDict and type(value["c"]["d"]) is FrozenDict
        assert type(inner) is FrozenList and type(value["t"]) is FrozenList
        with pytest.raises(TypeError, match="read-only"):
            inner.append(4)
        with pytest.raises(TypeError, match="read-only"):
            value["c"]["d"]["e"] = 2
        assert hash(inner) == hash((3,)) and list(inner) == [3]
    # a store's read: FrozenDict itself where the text holds no '[', else frozen_pairs
    for text in ('{"a": {"b": 1}}', '{"a": "[", "b": {"c": 2}}', b'{"a": [{"b": [1]}]}'):
        read = json.loads(text, object_pairs_hook=frozen_hook(text))
        assert read == json.loads(text)
        assert all(type(made) in (FrozenDict, FrozenList) for made in _containers(read))
    import pickle

    assert (
        pickle.loads(pickle.dumps(made)) == made and type(pickle.loads(pickle.dumps(read["a"]))) is FrozenList
    )
