"""A scene whose states multiply because an item keeps changing (a counter that only grows) passed
its bound with a hint that could not help: "fewer dice, a smaller input, a 'cap'" for the work
budget, and past `max_states` only to raise it, which never ends such a scene (hunt 13ze). The
hint names the items that took the most values among the states met."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import engine
from engine import Limits

GROW = """\
rulecraft: 1
name: grow
checks:
  coin:
    roll: {d: {die: 2}}
    outcomes: [t, h]
    outcome: "'h' if d == 2 else 't'"
state:
  each:
    n: {counter: 0, min: 0}
    done: {counter: 0, min: 0, max: 1}
actions:
  flip:
    by: character
    roll: {check: coin}
    effects:
      - {add: {n: 1}}
      - {add: {done: 1}, when: "outcome == 'h' and n > 5"}
scenes:
  grows:
    parties: [p]
    round:
      - {act: flip, by: p}
    ends:
      - {when: "p.done == 1", then: stop}
"""


@pytest.fixture(scope="module")
def grow(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("grow") / "grow.yaml"
    path.write_text(GROW)
    return path


@pytest.mark.parametrize(
    ("limits", "bound"),
    [(Limits(), "max_work"), (Limits(max_work=10**9, max_states=3000), "max_states")],
)
def test_the_hint_names_the_item_that_keeps_changing(grow: Path, limits: Limits, bound: str) -> None:
    with pytest.raises(engine.LimitError) as refused:
        engine.load(grow, limits=limits).scene_odds("grows")
    [d] = refused.value.diagnostics
    assert d.code == "RC503" and d.span is not None and d.span.line == 20
    hint = d.hint or ""
    assert hint.startswith("every value of every item is a state of its own, and p.n (")
    assert "took the most among the states met: keep an item the scene does not need from changing" in hint
    assert hint.endswith(f"or raise the limit with --limit {bound}=N (Limits.{bound} from Python)")
    assert "p.done" not in hint  # two values: not what multiplies the states
    assert d.advice is not None and d.advice.kind == "limit" and d.advice.name == bound
    assert d.advice.lead.startswith("every value of every item")


def test_a_scene_past_its_budget_with_no_item_growing_keeps_its_hint() -> None:
    castle = engine.load("castle", limits=Limits(max_work=20_000))
    with pytest.raises(engine.LimitError) as refused:
        castle.scene_odds("duel")
    [d] = refused.value.diagnostics
    assert d.code == "RC503" and "every value of every item" not in (d.hint or "")
    assert (d.hint or "").endswith("or raise it with --limit max_work=N (Limits.max_work from Python)")


def test_the_command_line_prints_it(grow: Path, cli: Callable[..., Any]) -> None:
    told = cli("scene", "prob", str(grow), "grows")
    assert told.code == 1 and "p.n (" in told.err and "keep an item the scene does not need" in told.err


def test_an_item_bounded_on_both_sides_is_not_named(grow: Path, tmp_path: Path) -> None:
    """Hunt 13zf: hit points with a `min` and a `max` were named as what multiplies the states,
    and told to get a 'max' they had; such an item cannot grow without end."""
    bounded = tmp_path / "bounded.yaml"
    bounded.write_text(
        grow.read_text().replace("n: {counter: 0, min: 0}", "n: {counter: 0, min: 0, max: 100000}")
    )
    with pytest.raises(engine.LimitError) as refused:
        engine.load(bounded).scene_odds("grows")
    [d] = refused.value.diagnostics
    assert d.code == "RC503" and "every value of every item" not in (d.hint or ""), d.hint


def test_a_name_to_average_given_twice_is_refused_by_every_front_end(tmp_path: Path) -> None:
    """Hunt 13ze: the command line refused `--expect` given twice (RC407), while
    `Ruleset.scene_odds` and `/api/scenes/odds` took it, and answered it once."""
    castle = engine.load("castle")
    with pytest.raises(engine.CampaignError) as refused:
        castle.scene_odds("duel", expect=["you.wound_track", "you.wound_track"])
    [d] = refused.value.diagnostics
    assert d.code == "RC907" and d.message == "'you.wound_track' is asked to average twice"
    assert d.hint == "name each once" and refused.value.unfit
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from engine.serve.app import Settings, create_app

    body = {"ruleset": "castle", "scene": "duel", "expect": ["you.wound_track", "you.wound_track"]}
    with TestClient(create_app(Settings(db=str(tmp_path / "c.db"), workers=1))) as c:
        answer = c.post("/api/scenes/odds", json=body)
    assert answer.status_code == 422, answer.text
    assert (
        answer.json()["error"]["diagnostics"][0]["message"] == "'you.wound_track' is asked to average twice"
    )
