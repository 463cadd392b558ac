"""A played scene's work budget bounds its answer's size and its period steps, as it bounds its
time (found by a hunt of the server).

A refused step's trace entry carries the precondition's whole message, and every step was charged
a flat 20 units whatever its entry carried: a 15 KB request to `POST /api/scenes/roll` (a refusal
of 15,000 characters, four refused steps a round, `max_rounds: 20000`) answered 1.2 GB, written
after the worker had answered, outside the deadline. An entry is now charged for its text past
what a step pays for, so a budget of N units gives an answer of at most some 26 N characters, or
`RC503` at the scene's `max_rounds:` and no answer. A period's beginning (`{begin: ...}`) was
charged only for the items it looked at, about 3 units for some 23 µs: 200 of them a round ran
15.5 s to the default budget's `RC503`, where the budget promises about 2 s; it is now a step
like any other (20 units, worked out once per state)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.api import open_store
from engine.runtime.context import RunContext
from engine.runtime.work import Work
from engine.scenes import play
from engine.scenes.campaign import play_in_campaign
from engine.scenes.play import STEP_WORK

MESSAGE = "y" * 5_000
BUDGET = 100_000
CHARACTERS_PER_UNIT = 32
"""What the test allows an answer per unit of its budget (the charge gives about 26)."""


def refusing(rounds: int, message: str = MESSAGE) -> str:
    """A scene of four steps a round, each refused with `message` (5,000 characters)."""
    return f"""\
rulecraft: 1
name: refusing
checks:
  c:
    roll: {{d: {{die: 2}}}}
    outcomes: [a, b]
    outcome: "'a' if d == 1 else 'b'"
state:
  each:
    x: {{counter: 0, min: 0, max: 3}}
actions:
  poke:
    by: character
    requires:
      - {{when: "x > 5", else: "{message}"}}
    roll: {{check: c}}
    effects:
      - {{add: {{x: 1}}, clamp: true}}
scenes:
  s:
    parties: [p]
    round:
      - {{act: poke, by: p}}
      - {{act: poke, by: p}}
      - {{act: poke, by: p}}
      - {{act: poke, by: p}}
    ends:
      - {{when: p.x > 2, then: done}}
    max_rounds: {rounds}
"""


def at_max_rounds(error: engine.LimitError, source: str) -> str:
    """The RC503's message, after checking it is told at the scene's `max_rounds:`."""
    [d] = error.diagnostics
    assert d.code == "RC503" and "max_work" in (d.hint or ""), d
    assert d.span is not None and source.splitlines()[d.span.line - 1].strip().startswith("max_rounds:"), d
    assert "round by round, at round " in d.message, d.message
    return d.message


def test_a_played_scene_s_answer_is_bounded_by_its_budget() -> None:
    """Each length either fits the budget with an answer of at most 32 characters a unit, or is
    refused whole. Before, 200 rounds of refusals fitted a budget of 100,000 units (800 steps of
    20) and answered 4 MB, 40 characters a unit; a longer message or more rounds, without end."""
    fitted = []
    for rounds in (10, 50, 200, 2000):
        source = refusing(rounds)
        rs = engine.load(source, limits=engine.Limits(max_work=BUDGET))
        try:
            played = rs.play_scene("s", random.Random(1))
        except engine.LimitError as exc:
            at_max_rounds(exc, source)
            continue
        fitted.append(rounds)
        assert played.ending == "unfinished" and len(played.trace) == 4 * rounds
        assert all(entry["refused"].endswith(MESSAGE) for entry in played.trace)
        size = len(json.dumps(played.as_json()))
        assert size <= BUDGET * CHARACTERS_PER_UNIT, (rounds, size)
    assert fitted == [10, 50], fitted  # the shorter fit, their traces whole; the longer are refused


def test_an_entry_is_charged_for_its_characters_in_any_script() -> None:
    """Review AB, F2: the entry was measured as `json.dumps` writes it, a character past ASCII as
    a six-character escape, so a refusal in French or Japanese cost about five times one in
    English of the same length: 50 rounds of a 5,000-character refusal in kanji were refused
    (some 380,000 units) where the same in ASCII fits 100,000. Measured in characters, it fits."""
    message = "\u5263" * len(MESSAGE)
    rs = engine.load(refusing(50, message), limits=engine.Limits(max_work=BUDGET))
    played = rs.play_scene("s", random.Random(1))
    assert len(played.trace) == 200 and played.trace[0]["refused"].endswith(message)


def test_a_campaign_s_scene_is_bounded_so_too(tmp_path: Path) -> None:
    """A scene played in a campaign keeps its whole trace in the store (a replay takes its steps
    again), so there the trace is not cut: past the budget nothing is written."""
    path = tmp_path / "refusing.yaml"
    path.write_text(refusing(200))
    store = open_store(str(tmp_path / "c.db"))
    try:
        engine.new_campaign("c", path, store=store, characters={"p": {}})
        campaign = engine.open_campaign("c", store=store, limits=engine.Limits(max_work=BUDGET))
        before = campaign.log()
        with pytest.raises(engine.LimitError) as caught:
            play_in_campaign(campaign, "s", {"p": "p"}, seed=1)
        at_max_rounds(caught.value, refusing(200))
        assert campaign.log() == before
    finally:
        store.close()


LOOP_STEPS = 50
LOOP = (
    """\
rulecraft: 1
name: loop
checks:
  c:
    roll: {d: {die: 2}}
    outcomes: [a, b]
    outcome: "'a' if d == 1 else 'b'"
state:
  periods: [rest]
  each:
    x: {counter: 0, min: 0, max: 3, reset: rest}
scenes:
  s:
    parties: [p]
    round:
"""
    + "      - {begin: rest}\n" * LOOP_STEPS
    + """\
    ends:
      - {when: p.x > 2, then: done}
    max_rounds: 100000
"""
)
"""A scene whose round is fifty beginnings of a rest, which never ends."""


def test_a_period_s_beginning_is_charged_as_a_step() -> None:
    """Fifty beginnings a round under a budget of 100,000 units: each is a step of `STEP_WORK`,
    so the budget runs out in round 100 or 101 (it ran to round 667, at 3 units a beginning,
    and the default budget's 2 million units to 15.5 s of play)."""
    rs = engine.load(LOOP, limits=engine.Limits(max_work=BUDGET))
    with pytest.raises(engine.LimitError) as caught:
        rs.play_scene("s", random.Random(1))
    message = at_max_rounds(caught.value, LOOP)
    found = re.search(r"at round ([\d,]+) ", message)
    assert found is not None, message
    reached = int(found.group(1).replace(",", ""))
    assert reached <= BUDGET // (STEP_WORK * LOOP_STEPS) + 1, message
    # a round that fits plays every beginning, each with its entry
    played = engine.load(LOOP.replace("max_rounds: 100000", "max_rounds: 3")).play_scene(
        "s", random.Random(1)
    )
    assert played.ending == "unfinished" and len(played.trace) == 3 * LOOP_STEPS
    assert played.trace[0] == {"round": 1, "begin": "rest", "effects": []}


TOKENS = [f"token_of_a_rather_long_kind_number_{i}" for i in range(12)]
PLEA = 'a plea "in quotes", a back\\slash, a\ttab, a\nnew line, a \x01 control, \u5263 and \u00e9; ' * 8
VERBOSE = f"""\
rulecraft: 1
name: verbose
checks:
  heap:
    inputs:
      dice: {{type: int, min: 1, max: 100, default: 10}}
    roll: {{d: {{pool: dice, die: 6}}}}
    outcomes: [low, high]
    outcome: "'high' if sum(d) > 3 * dice else 'low'"
state:
  periods: [dawn]
  shared:
    ticks: {{counter: 0, min: 0}}
  each:
    done: {{counter: 0, min: 0}}
    hoard: {{tally: [{", ".join(TOKENS)}], reset: dawn}}
actions:
  tick:
    effects:
      - {{add: {{ticks: 1}}}}
  haul:
    by: character
    inputs:
      dice: {{type: int, min: 1, max: 100, default: 10}}
      manner: {{type: choice, choices: [quietly_at_some_length, loudly_at_greater_length]}}
    roll: {{check: heap, inputs: {{dice: dice}}}}
    effects:
      - {{add: {{hoard: {{{", ".join(f"{t}: {i % 3 + 1}" for i, t in enumerate(TOKENS))}}}}}}}
      - {{add: {{done: 1}}}}
  plead:
    by: character
    requires:
      - {{when: "done > 100", else: {json.dumps(PLEA)}}}
scenes:
  s:
    parties: [p]
    round:
      - {{begin: dawn}}
      - {{act: tick}}
      - {{act: haul, by: p, inputs: {{dice: "7*p.done+1"}}, may: {{manner: "'loudly_at_greater_length'"}}}}
      - {{act: plead, by: p}}
    ends:
      - {{when: p.done >= 12, then: over}}
    max_rounds: 14
"""
"""A scene whose entries of every kind run past `ENTRY_TEXT` or not: a period resetting a tally of
long names, an action of the table (`by` null), a choice, a pool's dice growing round by round, and
a refusal with quotes, a backslash, control characters and characters past ASCII."""


def _played(source: str, seeds: range) -> list[tuple[int, list[dict[str, Any]]]]:
    """The units each seeded play of scene `s` charged, one after another on a fresh load, and
    its trace."""
    rs = engine.load(source)
    scene = rs.scene("s")
    out = []
    for seed in seeds:
        state, cast = play.cast_state(rs.model, scene, None, None)
        work = Work(10**9)
        played = play.play(
            rs.model,
            scene,
            state,
            cast,
            RunContext(rs.limits, "always", rs.caches, random.Random(seed), work=work),
        )
        out.append((work.used, list(played.trace)))
    return out


def test_every_entry_is_charged_for_exactly_its_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    """An entry is sized in parts (once what a state's step keeps: its action, inputs and
    effects; at each roll what it adds: the dice, the round, the choice), and charged exactly as
    when each was written out whole to be measured: a unit for each 16 of its characters as
    `json.dumps(entry, ensure_ascii=False)` writes it, past the first 512."""
    charged = _played(VERBOSE, range(6))
    monkeypatch.setattr(play, "ENTRY_TEXT", 10**9)
    uncharged = _played(VERBOSE, range(6))
    kinds = set()
    for (units, trace), (free, same) in zip(charged, uncharged, strict=True):
        assert trace == same
        sizes = [len(json.dumps(entry, ensure_ascii=False)) for entry in trace]
        assert units - free == sum((n - 512) // 16 for n in sizes if n > 512)
        kinds |= {
            next(k for k in ("begin", "refused", "dice", "by") if k in e)
            for e, n in zip(trace, sizes)
            if n > 512
        }
    assert kinds == {"begin", "refused", "dice"}


def test_a_step_met_before_is_not_written_out_to_be_measured(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each entry was written out whole as JSON to be measured, some 3-7 µs a step, 5-13 % of a
    played scene's time: now what a state's step keeps is measured once, when it is kept, and a
    step met before measures only what its roll adds; the sum is the entry's length exactly."""
    rs = engine.load(VERBOSE)
    for seed in range(20):
        rs.play_scene("s", random.Random(seed))
    encode, log = json.JSONEncoder.encode, play._log
    whole: list[Any] = []
    sized: list[tuple[dict[str, Any], int]] = []

    def measured(self: json.JSONEncoder, value: Any) -> str:
        if isinstance(value, dict) and "effects" in value:
            whole.append(value)
        return encode(self, value)

    def logged(trace: list[dict[str, Any]], entry: dict[str, Any], text: int, work: Work) -> None:
        sized.append((entry, text))
        log(trace, entry, text, work)

    monkeypatch.setattr(json.JSONEncoder, "encode", measured)
    traced = sum(len(rs.play_scene("s", random.Random(seed)).trace) for seed in range(20))
    assert traced > 500 and whole == []
    monkeypatch.undo()
    monkeypatch.setattr(play, "_log", logged)
    traced = sum(len(rs.play_scene("s", random.Random(seed)).trace) for seed in range(20, 40))
    assert len(sized) == traced
    assert all(text == len(json.dumps(entry, ensure_ascii=False)) for entry, text in sized)


def test_a_scene_played_untraced_first_measures_no_entry_and_traces_exactly_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Played without its trace, a scene measures no entry (each new state's, and each period's
    beginning's, had been written out as JSON all the same, about 1 % of a cold `sample_scenes`;
    review AE); a traced play after it measures each kept step's entry once, and exactly."""
    rs = engine.load(VERBOSE)
    encode = json.JSONEncoder.encode
    whole: list[Any] = []

    def measured(self: json.JSONEncoder, value: Any) -> str:
        # an action's entry or a period's beginning (a state's key is neither)
        if isinstance(value, dict) and ("action" in value or "begin" in value):
            whole.append(value)
        return encode(self, value)

    monkeypatch.setattr(json.JSONEncoder, "encode", measured)
    rs.sample_scenes("s", 20, rng=random.Random(1))
    assert whole == []
    monkeypatch.undo()
    log = play._log
    sized: list[tuple[dict[str, Any], int]] = []

    def logged(trace: list[dict[str, Any]], entry: dict[str, Any], text: int, work: Work) -> None:
        sized.append((entry, text))
        log(trace, entry, text, work)

    monkeypatch.setattr(play, "_log", logged)
    traced = sum(len(rs.play_scene("s", random.Random(seed)).trace) for seed in range(20))
    assert traced > 500 and len(sized) == traced
    assert any("begin" in entry for entry, _ in sized)
    assert all(text == len(json.dumps(entry, ensure_ascii=False)) for entry, text in sized)
