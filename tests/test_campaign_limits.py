"""A campaign's request that passes its work budget or its deadline (`RC503`) is told where it
was: at the action, the check or the scene asked for, at `periods:` or `character:` for a period
beginning or a character joining, and at the ruleset's `state:` for a request that reads only
the state or the log (an undo, `show`), saying what it was doing. Before, an action whose
effects used up the budget said "error RC503: the work budget ... was used up" with no
file:line:col, no source line and no caret (found by a hunt). Nothing is written either way."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import engine
from engine import Limits
from engine.api import open_store
from engine.runtime import work
from engine.scenes.campaign import campaign_odds, play_in_campaign

HEAP = """\
rulecraft: 1
name: heap
checks:
  swing:
    roll: {d: {die: 6}}
    outcomes: [miss, hit]
    outcome: "'hit' if d >= 5 else 'miss'"
state:
  periods: [night]
  character:
    hp: {type: int, min: 1, max: 5, default: 2}
  shared:
    heap: {tally: [x, y], start: {x: 100000}, reset: night}
  each:
    hurt: {counter: 0, min: 0}
    down: {derived: "hurt >= hp"}
actions:
  poke:
    effects:
      - {move: heap, from: x, to: y}
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
"""Every read of its state builds a tally of 100,000 members (3,125 units): a budget of 1,000
is passed by the first thing any request does with the state."""

LINES = HEAP.splitlines()
CAST = {"ann": "ann", "bo": "bo"}

# what each request does, and the line (stripped) its RC503 is told at
REQUESTS: dict[str, tuple[Callable[[engine.Campaign], Any], str, str]] = {
    "act": (lambda c: c.act("poke"), "poke:", ""),
    "roll": (lambda c: c.roll("swing", seed=1), "swing:", ""),
    "prob": (lambda c: c.distribution("poke"), "poke:", ""),
    "begin": (lambda c: c.begin("night"), "periods: [night]", "period 'night' beginning: "),
    "join": (lambda c: c.join("cy"), "character:", "character 'cy' joining campaign 'c': "),
    "undo": (lambda c: c.undo(), "state:", "undoing the latest change of campaign 'c': "),
    "show": (lambda c: c.show(), "state:", "reading the state of campaign 'c': "),
    "replay": (lambda c: c.replay(), "poke:", "replaying campaign 'c' at event 2 (action): "),
    "scene roll": (lambda c: play_in_campaign(c, "fight", CAST, seed=1), "fight:", ""),
    "scene prob": (lambda c: campaign_odds(c, "fight", CAST), "fight:", ""),
}


@pytest.fixture
def made(tmp_path: Path) -> Any:
    """A campaign in an SQLite file with one action taken (so there is a change to undo and an
    action to replay), and how to open it again under other limits."""
    path = tmp_path / "heap.yaml"
    path.write_text(HEAP)
    store = open_store(str(tmp_path / "c.db"))
    engine.new_campaign("c", path, store=store, characters={"ann": {}, "bo": {}}).act("poke")
    yield lambda limits: engine.open_campaign("c", store=store, limits=limits)
    store.close()


def told(error: engine.RulecraftError) -> tuple[str, str, str]:
    (d,) = error.diagnostics
    assert d.code == "RC503" and d.span is not None, d
    return LINES[d.span.line - 1].strip(), d.message, d.span.source.name


@pytest.mark.parametrize("request_", list(REQUESTS))
def test_a_spent_budget_is_told_where_the_request_was(made: Any, request_: str) -> None:
    """With a budget of 1,000 units every request passes it at its first read of the state."""
    run, line, lead = REQUESTS[request_]
    campaign = made(Limits(max_work=1000))
    before = campaign.log()
    with pytest.raises(engine.LimitError) as caught:
        run(campaign)
    at, message, source = told(caught.value)
    assert at == line and source.endswith("heap.yaml")
    assert message == lead + "the work budget of 1,000 units was used up (this request needs more " + (
        "work than its limits allow)"
    )
    assert made(Limits()).log() == before  # nothing written


@pytest.mark.parametrize("request_", list(REQUESTS))
def test_a_passed_deadline_is_told_where_the_request_was(
    made: Any, request_: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The clock looked at after every unit, moving a second at each look: the half-second
    deadline is passed by the first unit of work the request does, wherever that is."""
    run, line, lead = REQUESTS[request_]
    if request_ == "replay":  # passed as it reads the log, before any event
        line, lead = "state:", "replaying campaign 'c': "
    campaign = made(Limits(deadline=0.5))
    before = campaign.log()
    ticks = iter(range(10**6))
    monkeypatch.setattr(work, "CLOCK_EVERY", 1)
    monkeypatch.setattr(time, "monotonic", lambda: float(next(ticks)))
    with pytest.raises(engine.DeadlineError) as caught:
        run(campaign)
    monkeypatch.undo()
    at, message, _ = told(caught.value)
    assert at == line and message == lead + "the deadline of 0.5 s passed before the request ended"
    assert made(Limits()).log() == before


def test_making_a_campaign_past_its_budget_is_told_at_its_state(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "c.db"))
    with pytest.raises(engine.LimitError) as caught:
        engine.new_campaign("c", engine.load(HEAP), store=store, limits=Limits(max_work=1000))
    at, message, _ = told(caught.value)
    assert at == "state:" and message.startswith("making campaign 'c': the work budget of 1,000 units")
    assert store.names() == []
    store.close()


PROMOTED = """\
rulecraft: 1
name: st3
checks:
  c:
    roll:
      d: {die: 6}
    outcomes: [lo, hi]
    outcome: "'hi' if d > 3 else 'lo'"
state:
  shared:
    t:
      tally: [x, y]
      promote:
        - {when: "count(t, 'x') > count(t, 'y')", remove: {x: 1}, add: {y: 1}}
        - {when: "count(t, 'y') > count(t, 'x') + 1", remove: {y: 1}, add: {x: 1}}
actions:
  big:
    inputs:
      n: {type: int, default: 1}
    effects:
      - {set: {t: {x: n}}}
"""


def test_an_action_whose_promotions_use_up_the_budget_is_told_at_the_action(cli: Any, tmp_path: Path) -> None:
    """The hunt's case: 100,000 members set, then promotions that move one at a time, each round
    reading the whole tally again. Told at the action with its source line and caret, in --json
    with its file and line; the log keeps only the campaign's making."""
    (tmp_path / "st3.yaml").write_text(PROMOTED)
    db = str(tmp_path / "c.db")
    assert cli("campaign", "--db", db, "new", "st3c", "st3.yaml", cwd=tmp_path).code == 0
    act = ("campaign", "--db", db, "act", "st3c", "big", "-i", "n=100000", "--limit", "max_work=100000")
    r = cli(*act, cwd=tmp_path)
    assert r.code == 1 and r.out == "", r.out
    assert r.err.startswith("st3.yaml:17:3: error RC503: the work budget of 100,000 units was used up"), r.err
    assert "\n    big:\n    ^^^\n" in r.err, r.err
    r = cli(*act, "--json", cwd=tmp_path)
    (d,) = json.loads(r.out)["diagnostics"]
    assert r.code == 1 and (d["code"], d["file"], d["line"], d["column"]) == ("RC503", "st3.yaml", 17, 3), d
    log = cli("campaign", "--db", db, "log", "st3c", "--json", cwd=tmp_path)
    assert [e["kind"] for e in json.loads(log.out)] == ["new"], log.out


def _store_bytes(folder: Path) -> dict[str, bytes]:
    """Every file of a folder's SQLite store (the database and any journal beside it), by name."""
    return {p.name: p.read_bytes() for p in sorted(folder.glob("c.db*"))}


def test_an_act_on_a_file_over_max_yaml_bytes_shows_its_first_line(cli: Any, tmp_path: Path) -> None:
    """An act refused because its ruleset file is over `max_yaml_bytes` (`RC004`) was told at
    `rules.yaml:1:1` with no source line and no caret, where a text over it shows its first
    line (found by a hunt): the file's first line is shown when the bytes read hold it whole;
    one cut short by the limit is not. Nothing is written."""
    (tmp_path / "rules.yaml").write_text(HEAP)
    db = str(tmp_path / "c.db")
    assert cli("campaign", "--db", db, "new", "h", "rules.yaml", cwd=tmp_path).code == 0
    stored = _store_bytes(tmp_path)
    r = cli("campaign", "--db", db, "act", "h", "poke", "--limit", "max_yaml_bytes=20", cwd=tmp_path)
    said = f"rules.yaml:1:1: error RC004: the file is {len(HEAP.encode()):,} bytes, over the limit of 20\n"
    assert r.code == 1 and r.out == "" and r.err.startswith(said + "  rulecraft: 1\n  ^\n"), r.err
    assert r.err.count("error RC") == 1 and _store_bytes(tmp_path) == stored
    with pytest.raises(engine.LimitError) as caught:  # its first line longer than the bytes read
        engine.load(tmp_path / "rules.yaml", limits=Limits(max_yaml_bytes=5))
    assert "\n  ^" not in str(caught.value) and str(caught.value).startswith(
        f"{tmp_path / 'rules.yaml'}:1:1: "
    )


def test_a_bound_the_file_passes_refuses_show_and_replay_at_the_file(cli: Any, tmp_path: Path) -> None:
    """`campaign show --limit max_yaml_bytes=20` on a good file read the campaign with the text it
    keeps, as for a broken file, and that text passed the bound too: told at `<campaign h>:1:1`,
    as if the stored text were at fault (found by a hunt). A bound refuses the file itself, which
    is not broken: `show` and `replay` are refused with the file's own RC004, at the file, as
    every change is; nothing is written."""
    (tmp_path / "rules.yaml").write_text(HEAP)
    db = str(tmp_path / "c.db")
    assert cli("campaign", "--db", db, "new", "h", "rules.yaml", cwd=tmp_path).code == 0
    stored = _store_bytes(tmp_path)
    line = HEAP[: HEAP.index("{d: {die: 6}}") + 4].count("\n") + 1
    for bound, said in (
        ("max_yaml_bytes=20", f"rules.yaml:1:1: error RC004: the file is {len(HEAP.encode()):,} bytes"),
        ("max_yaml_depth=1", f"rules.yaml:{line}:"),
    ):
        for command in ("show", "replay", "act"):
            argv = [command, "h", *(["poke"] if command == "act" else []), "--limit", bound]
            r = cli("campaign", "--db", db, *argv, cwd=tmp_path)
            assert r.code == 1 and r.out == "" and r.err.startswith(said), (argv, r.err)
            assert r.err.count("RC004") == 1 and "<campaign" not in r.err, r.err
    assert _store_bytes(tmp_path) == stored
    with open_store(tmp_path / "c.db") as store, pytest.raises(engine.LimitError) as caught:
        engine.open_campaign("h", store=store, read_only=True, limits=Limits(max_yaml_bytes=20))
    [d] = caught.value.diagnostics
    assert d.code == "RC004" and d.span is not None and d.span.file == str(tmp_path / "rules.yaml")


def test_the_environments_a_request_keeps_are_weighed_by_their_tallies(tmp_path: Path) -> None:
    """Each round of the promotions above keeps its environment, whose tally is a pool of 100,000
    readings (800 KB of tuple). A pool is a value made at run time, not the ruleset's own model,
    so the cache weighs it and stays within its bytes; it had weighed the pool as nothing and
    held 500 MB on this request."""
    path = tmp_path / "st3.yaml"
    path.write_text(PROMOTED)
    store = open_store(str(tmp_path / "c.db"))
    campaign = engine.new_campaign("st3c", path, store=store, limits=Limits(max_work=300_000))
    with pytest.raises(engine.RulecraftError, match="RC503"):
        campaign.act("big", inputs={"n": 100_000})
    cache = campaign.caches.environments
    kept = [v for v in cache._data.values() if isinstance(v, dict) and "t" in v]
    assert kept, "the promotions kept no environment"
    held = sum(sys.getsizeof(env["t"].items) for env in kept)
    assert held <= cache.bytes <= cache.max_bytes, (held, cache.bytes, cache.max_bytes)
