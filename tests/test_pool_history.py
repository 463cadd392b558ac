"""A pool's own history — `first_roll`, `added_dice`, `rerolled_dice` — read by expressions.

Forced dice pin each value; exact distributions are checked against an enumeration of the rules
written here from the text of language.md (not through the engine's procedure); sampled values
agree with the trace's own steps and, under `optimal`, with the exact distribution; reading the
history changes no existing number; a history function given anything but a pool is RC324, and
a count of dice added or rerolled that has no last value is RC325.
"""

from __future__ import annotations

import itertools
import random
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest
from _repo import REPO_ROOT, cache_home
from _stats import chi_square_p
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.tools.lint import lint

EXPLODING = """
rulecraft: 1
name: history
checks:
  strike:
    inputs:
      dice: {type: int, min: 1, max: 3, default: 2}
    roll:
      d:
        pool: dice
        die: 4
        cap: 2
        triggers:
          - {name: explode, on: face == 4, must: add}
    let:
      total: sum(d)
      natural_one: 1 in first_roll(d)
      extra: count(added_dice(d))
      top_first: highest(first_roll(d))
    outcomes: [fumble, miss, hit]
    outcome:
      - when: natural_one and total < 4
        then: fumble
      - when: total >= 7
        then: hit
      - else: miss
"""

REROLLING = """
rulecraft: 1
name: history
scales:
  mark: [blank, hit]
checks:
  lucky:
    inputs:
      dice: {type: int, min: 1, max: 4, default: 3}
    roll:
      d:
        pool: dice
        die: 4
        each: "'hit' if face >= 3 else 'blank'"
        triggers:
          - {name: ones, on: face == 1, may: reroll, repeat: false}
    let:
      hits: count(d, 'hit')
      saved: count(rerolled_dice(d))
      first_hits: count(first_roll(d), 'hit')
    outcomes: [miss, hit, clean]
    objective: mean_rank
    outcome:
      - when: hits >= 2 and saved == 0
        then: clean
      - when: hits >= 2
        then: hit
      - else: miss
"""

BOTH = """
rulecraft: 1
name: history
checks:
  both:
    roll:
      d:
        pool: 3
        die: 6
        cap: 4
        triggers:
          - {name: explode, on: face == 6, must: add}
          - {name: ones, on: face == 1, must: reroll, target: face <= 2}
    let:
      first: first_roll(d)
      added: added_dice(d)
      gone: rerolled_dice(d)
    outcomes: [low, high]
    outcome: "'high' if sum(d) >= 12 else 'low'"
"""


def _joint(d: engine.Distribution, names: tuple[str, ...]) -> dict[tuple[Any, ...], Fraction]:
    """The exact joint distribution of some named values."""
    where = [d.names.index(n) for n in names]
    out: dict[tuple[Any, ...], Fraction] = {}
    for key, w in d.joint.weights.items():
        k = tuple(key[2 + i] for i in where)
        out[k] = out.get(k, Fraction(0)) + Fraction(w, d.joint.total)
    return out


# -- forced dice: each value -----------------------------------------------------------


def test_first_roll_keeps_a_natural_one_that_an_explosion_follows() -> None:
    rs = engine.load(EXPLODING)
    r = rs.roll("strike", forced={"d": [4, 1, 3]})
    assert list(r.rolled["d"].items) == [4, 1, 3]
    assert r.values["natural_one"] is True
    assert r.values["extra"] == 1
    assert r.values["top_first"] == 4
    assert r.values["total"] == 8 and r.outcome == "hit"


def test_a_one_an_explosion_rolled_is_not_on_the_first_roll() -> None:
    rs = engine.load(EXPLODING)
    r = rs.roll("strike", forced={"d": [4, 2, 1]})
    assert r.values["natural_one"] is False
    assert r.values["extra"] == 1


def test_added_dice_are_every_die_added_in_order_and_the_cap_ends_them() -> None:
    rs = engine.load(EXPLODING)
    r = rs.roll("strike", forced={"d": [4, 4, 4, 4]})  # two 4s add two dice, both 4s: cap 2 reached
    history = r.rolled["d"].history
    assert history is not None
    assert list(history[1].items) == [4, 4]
    assert r.values["extra"] == 2 and r.values["total"] == 16


def test_rerolled_dice_are_the_faces_replaced_read_through_each() -> None:
    rs = engine.load(REROLLING)
    r = rs.roll("lucky", forced={"d": [1, 1, 3, 4, 2]})  # both 1s rerolled: to 4 and 2
    assert r.values == {"hits": 2, "saved": 2, "first_hits": 1}
    assert r.outcome == "hit"
    history = r.rolled["d"].history
    assert history is not None
    assert history[1] is None  # the check does not read it, so it is not kept
    assert list(history[0].items) == ["blank", "blank", "hit"]
    assert list(history[2].items) == ["blank", "blank"]


def test_nothing_rerolled_under_never() -> None:
    rs = engine.load(REROLLING)
    r = rs.roll("lucky", forced={"d": [1, 3, 4]}, policy="never")
    assert r.values == {"hits": 2, "saved": 0, "first_hits": 2}
    assert r.outcome == "clean"


def test_a_die_added_then_rerolled_is_in_both() -> None:
    rs = engine.load(BOTH)
    # 6 adds a 1; that 1 forces the reroll of a die showing 1-2: the lowest is the new 1 itself
    # (a die holding no step is rerolled after those holding one, but here only the 1 and the 2
    # are eligible, and the 1 reads lower)
    r = rs.roll("both", forced={"d": [6, 3, 5, 1, 4]})
    assert list(r.values["first"].items) == [6, 3, 5]
    assert list(r.values["added"].items) == [1]
    assert list(r.values["gone"].items) == [1]
    assert sorted(r.rolled["d"].items) == [3, 4, 5, 6]


def test_a_pool_without_triggers_was_rolled_once() -> None:
    rs = engine.load(
        """
rulecraft: 1
name: plain
checks:
  c:
    roll:
      d: {pool: 2, die: 6}
    let:
      same: sum(first_roll(d)) == sum(d)
      none: count(added_dice(d)) + count(rerolled_dice(d))
    outcomes: [a, b]
    outcome: "'a' if same and none == 0 else 'b'"
"""
    )
    assert rs.roll("c", forced={"d": [2, 5]}).values == {"same": True, "none": 0}
    assert rs.distribution("c").probability("a") == 1


def test_a_redraw_condition_reads_the_history_of_the_roll_it_would_replace() -> None:
    rs = engine.load(
        """
rulecraft: 1
name: redrawn
checks:
  c:
    roll:
      d:
        pool: 2
        die: 6
        cap: 2
        triggers:
          - {on: face == 6, must: add}
        redraw: {must: "1 in first_roll(d)"}
    outcomes: [a, b]
    outcome: "'a' if 1 in first_roll(d) else 'b'"
"""
    )
    r = rs.roll("c", forced={"d": [1, 6, 2, 3, 4]})  # 1, 6 (adds 2) is redrawn: 3, 4 stands
    assert r.outcome == "b" and list(r.rolled["d"].history[0].items) == [3, 4]
    # only one redraw: a second first roll with a 1 stands
    assert rs.distribution("c").probability("a") == Fraction(11, 36) ** 2


# -- exact: against the rules enumerated here ------------------------------------------


def _explosions(
    faces: tuple[int, ...], holding: int, used: int, cap: int
) -> Iterator[tuple[tuple[int, ...], Fraction]]:
    """Every way the explode step (the dice showing 4 that have not yet exploded each add a d4,
    `cap` dice in all) goes on from here, with its chance: the dice rolled, in order."""
    if holding == 0 or used >= cap:
        yield faces, Fraction(1)
        return
    k = min(holding, cap - used)
    for new in itertools.product(range(1, 5), repeat=k):
        for end, p in _explosions(faces + new, sum(f == 4 for f in new), used + k, cap):
            yield end, p / 4**k


@pytest.mark.parametrize("n", [1, 2, 3])
def test_exploding_history_is_exact(n: int) -> None:
    expected: dict[tuple[Any, ...], Fraction] = {}
    for first in itertools.product(range(1, 5), repeat=n):
        for end, p in _explosions(first, sum(f == 4 for f in first), 0, 2):
            key = (sum(end), 1 in first, len(end) - n, max(first))
            expected[key] = expected.get(key, Fraction(0)) + p / 4**n
    d = engine.load(EXPLODING).distribution("strike", dice=n)
    assert _joint(d, ("total", "natural_one", "extra", "top_first")) == expected


@pytest.mark.parametrize("policy", ["always", "never"])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_rerolled_history_is_exact(policy: str, n: int) -> None:
    def mark(f: int) -> str:
        return "hit" if f >= 3 else "blank"

    expected: dict[tuple[Any, ...], Fraction] = {}
    for first in itertools.product(range(1, 5), repeat=n):
        ones = sum(f == 1 for f in first) if policy == "always" else 0
        for new in itertools.product(range(1, 5), repeat=ones):
            kept = [f for f in first if f != 1] if ones else list(first)
            end = kept + list(new)
            key = (sum(mark(f) == "hit" for f in end), ones, sum(mark(f) == "hit" for f in first))
            expected[key] = expected.get(key, Fraction(0)) + Fraction(1, 4**n * 4**ones)
    d = engine.load(REROLLING).distribution("lucky", dice=n, policy=policy)
    assert _joint(d, ("hits", "saved", "first_hits")) == expected


def test_an_optimal_choice_in_a_roll_weighs_the_history() -> None:
    """Two 1s and one hit: rerolling both 1s gives a second hit with chance 3/4, but a rerolled
    die spoils `clean` — so the best reachable is `hit` (rank 1): mean rank 3/4, not the 3/2 a
    choice blind to the dice rerolled would promise."""
    rs = engine.load(REROLLING)
    r = rs.roll("lucky", forced={"d": [1, 1, 3, 4, 2]}, policy="optimal")
    [step] = [s for s in r.trace if s.kind == "reroll"]
    assert step.decision is not None and step.decision.by == "optimal"
    assert (step.decision.reached, step.decision.declined) == (Fraction(3, 4), 0)
    assert r.outcome == "hit"


def test_optimal_weighs_the_history_and_samples_follow_it() -> None:
    rs = engine.load(REROLLING)
    exact = {p: rs.distribution("lucky", policy=p) for p in ("always", "never", "optimal")}
    mean = {p: sum(s.rank * x for s, x in d.table()) for p, d in exact.items()}
    assert mean["optimal"] >= max(mean["always"], mean["never"])
    assert mean["optimal"] > mean["always"]  # a reroll spoils a clean result: not always worth it
    rng = random.Random(7)
    observed = Counter(rs.roll("lucky", rng, policy="optimal").outcome.name for _ in range(3000))
    assert chi_square_p(observed, {s.name: p for s, p in exact["optimal"].table()}) > 1e-6


@pytest.mark.parametrize("policy", ["always", "never", "optimal"])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_reading_the_history_changes_no_other_number(policy: str, n: int) -> None:
    """Chimera's skill check with every part of its history read by values nothing else uses:
    the outcome, the cap note and each other value are exactly as without them — and the check
    as shipped evaluates exactly the states it did before history was kept (76 at four dice)."""
    text = (REPO_ROOT / "rulesets" / "chimera.yaml").read_text(encoding="utf-8")
    read = "      read: \"majority(rolled, ['half_pass', 'fail', 'pass', 'crit_fail', 'crit_pass'])\"\n"
    assert read in text
    extra = (
        "      h1: count(first_roll(rolled), 'crit_pass')\n"
        "      h2: count(rerolled_dice(rolled))\n"
        "      h3: count(added_dice(rolled))\n"
    )
    # no cap and two repeating steps: rerolled_dice needs one (RC325); 60 is beyond any roll's reach
    triggers = "        each: variables_of_success(level, face)\n        triggers:"
    assert triggers in text
    capped = triggers.replace("        triggers:", "        cap: 60\n        triggers:")
    reading = engine.load(text.replace(read, read + extra, 1).replace(triggers, capped, 1))
    plain = engine.load("chimera")
    a = plain.distribution("skill", dice=n, policy=policy)
    b = reading.distribution("skill", dice=n, policy=policy)
    assert a.table() == b.table() and a.capped == b.capped == 0
    assert a.value("read").as_json() == b.value("read").as_json()
    assert b.states >= a.states
    if n == 4:  # the states of the chain itself; under optimal the count also takes in each
        # outcome the solver scored on the way (the evaluator's memo of finished rolls)
        assert a.states == (111 if policy == "optimal" else 76)


# -- the sampler agrees with its trace -------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_history_is_what_the_trace_shows(seed: int) -> None:
    rs = engine.load(BOTH)
    r = rs.roll("both", random.Random(seed))
    pool = next(s for s in r.trace if s.kind == "pool")
    added = [
        f for s in r.trace if s.kind == "reroll" and s.trigger and s.trigger.action == "add" for f in s.faces
    ]
    gone = [f for s in r.trace if s.kind == "reroll" and s.trigger for f in s.replaced]
    assert list(r.values["first"].items) == list(pool.faces)
    assert list(r.values["added"].items) == added
    assert list(r.values["gone"].items) == gone
    assert Counter(r.rolled["d"].items) == Counter(pool.faces) + Counter(added) + Counter(
        f
        for s in r.trace
        if s.kind == "reroll" and s.trigger and s.trigger.action == "reroll"
        for f in s.faces
    ) - Counter(gone)


# -- diagnostics -----------------------------------------------------------------------


def _compile_error(text: str) -> engine.RulecraftError:
    with pytest.raises(engine.RulecraftError) as info:
        engine.load(text)
    return info.value


@pytest.mark.parametrize(
    ("let", "col"),
    [
        ("both: d\n      bad: count(first_roll(both))", 29),
        ("bad: count(added_dice(k))", 29),
        ("bad: count(rerolled_dice(b))", 32),
        ("bad: count(first_roll(x)) + sum(d)", 29),
        ("bad: count(first_roll(d) )", 0),
    ],
)
def test_a_history_of_anything_but_a_pool_is_rc324(let: str, col: int) -> None:
    text = f"""rulecraft: 1
name: wrong
bags:
  beads: {{chits: {{red: 2, blue: 2}}}}
checks:
  c:
    inputs:
      x: {{type: int, min: 0, max: 2, default: 1}}
    roll:
      k: {{die: 6}}
      b: {{draw: beads}}
      d:
        pool: 2
        die: 6
        cap: 2
        triggers:
          - {{on: face == 6, must: add}}
    let:
      {let}
    outcomes: [a, b]
    outcome: "'a' if sum(d) > 6 else 'b'"
"""
    if col == 0:  # the same call on the pool itself is fine
        engine.load(text)
        return
    [d] = _compile_error(text).diagnostics
    assert d.code == "RC324"
    assert "must be the name of a pool" in d.message
    assert d.span is not None and d.span.col == col
    assert d.hint == "pools here: d"


def test_a_table_cannot_read_a_pools_history() -> None:
    text = """rulecraft: 1
name: wrong
tables:
  naturals:
    params: [d]
    value: count(first_roll(d), 1)
checks:
  c:
    roll:
      d: {pool: 2, die: 6}
    outcomes: [a, b]
    outcome: "'a' if naturals(d) > 0 else 'b'"
"""
    [d] = _compile_error(text).diagnostics
    assert d.code == "RC324"
    assert d.span is not None and (d.span.line, d.span.col) == (6, 29)
    assert d.hint is not None and "only a check's after-roll expressions" in d.hint


def test_counting_dice_rerolled_without_end_is_rc325() -> None:
    text = """rulecraft: 1
name: endless
checks:
  c:
    roll:
      p:
        pool: 3
        die: 6
        triggers:
          - {on: face == 1, must: reroll}
    let:
      natural: count(first_roll(p), 1)
      ones: count(rerolled_dice(p))
    outcomes: [a, b]
    outcome: "'a' if ones > natural else 'b'"
"""
    [d] = _compile_error(text).diagnostics
    assert d.code == "RC325"
    assert d.span is not None and (d.span.line, d.span.col) == (13, 19)
    assert "needs a 'cap' on pool 'p'" in d.message
    assert d.hint is not None and "first_roll(p), which needs none" in d.hint
    # first_roll alone needs no cap; nor does a single step that does not repeat
    engine.load(text.replace("      ones: count(rerolled_dice(p))\n", "      ones: 0\n"))
    engine.load(text.replace("must: reroll}", "must: reroll, repeat: false}"))


# -- the linter and the docs -----------------------------------------------------------


def test_the_linter_follows_the_procedure_when_the_history_is_read() -> None:
    """Past its budget for following choices, the linter may take pools that only reroll as first
    rolled — which never shows a die rerolled: the `saved_hit` rule would be reported as never
    firing (RC802). With the history read it follows the procedure or says it could not."""
    text = """
rulecraft: 1
name: history
checks:
  lucky:
    inputs:
      dice: {type: int, min: 1, max: 4, default: 4}
    roll:
      d:
        pool: dice
        die: 10
        triggers:
          - {name: ones, on: face == 1, may: reroll, repeat: false}
    let:
      saved: count(rerolled_dice(d))
    outcomes: [miss, hit, saved_hit]
    outcome:
      - when: saved > 0 and sum(d) >= 20
        then: saved_hit
      - when: sum(d) >= 20
        then: hit
      - else: miss
"""
    found = lint(engine.load(text))
    assert [f.code for f in found] == ["RC809"], [f.render() for f in found]


def _doc_section() -> str:
    doc = (REPO_ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    start = doc.index("### A pool's history")
    return doc[start : doc.index("\n### ", start + 1)]


def test_the_docs_transcripts_are_what_the_command_prints(tmp_path: Any) -> None:
    section = _doc_section()
    ruleset = re.search(r"```yaml\n(.*?)```", section, re.S)
    transcript = re.search(r"```text\n(.*?)```", section, re.S)
    assert ruleset and transcript
    (tmp_path / "history.yaml").write_text(ruleset.group(1), encoding="utf-8")
    for block in transcript.group(1).strip().split("\n\n"):
        command, *expected = block.splitlines()
        assert command.startswith("$ rulecraft ")
        run = subprocess.run(
            [sys.executable, "-m", "engine", *command.split()[2:]],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin", **cache_home()},
        )
        assert run.returncode == 0, run.stderr
        assert run.stdout.rstrip("\n").splitlines() == expected
    assert lint(engine.load(ruleset.group(1))) == []


SINGLE = """rulecraft: 1
name: single
checks:
  c:
    roll:
      t:
        {pool}die: 4
        cap: 3
        triggers:
          - {{name: ace, on: face == 4, must: add}}
      w: {{die: 6}}
    let:
      snake: {read} and w == 1
    outcomes: [a, b]
    outcome: "'a' if snake else 'b'"
"""


@pytest.mark.parametrize("func", ["first_roll", "added_dice", "rerolled_dice"])
def test_a_single_die_with_triggers_is_told_to_be_a_pool_of_one(func: str) -> None:
    """A die with triggers reads as the number its dice total: its history is RC324, and the hint
    (not "only a check's after-roll expressions", which it is in) says to write it `pool: 1`; the
    file so written loads, and gives the natural 1 of the hint's pool."""
    text = SINGLE.format(pool="", read=f"1 in {func}(t)")
    [d] = _compile_error(text).diagnostics
    assert d.code == "RC324"
    assert d.hint is not None and "after-roll" not in d.hint
    assert "'t' is a die with triggers" in d.hint and "'pool: 1'" in d.hint and "sum(t)" in d.hint
    fixed = engine.load(SINGLE.format(pool="pool: 1\n        ", read=f"1 in {func}(t)"))
    if func == "first_roll":
        assert fixed.roll("c", forced={"t": [1], "w": 1}).outcome == "a"
