"""`rulecraft show` says a randomizer's size and faces in words: a count or faces written as an
expression is set apart from the noun it counts, so an input named like the noun (`dice`,
`faces`, `chits`) never reads twice ("a pool of dice dice"), and a check whose title is its
name is not named twice ("roll: roll")."""

from __future__ import annotations

import re
from pathlib import Path

from _fences import fences
from _repo import REPO_ROOT, SHIPPED_NAMES

import engine
from engine.tools.render import check_text, ruleset_text

WORDS = """\
rulecraft: 1
name: words
bags:
  chits: {chits: {good: 2, bad: 3}}
checks:
  act:
    inputs:
      dice: {type: int, min: 1, max: 4, default: 2}
      faces: {type: int, min: 2, max: 8, default: 6}
      chits: {type: int, min: 1, max: 3, default: 1}
    roll:
      one: {pool: 1, die: faces}
      p: {pool: dice, die: 6, each_die: {triggers: [{on: face == 6, must: add}], cap: 3}}
      q: {pool: dice + 1, die: "[1, 2, 3]"}
      drawn: {draw: chits, count: chits}
      two: {draw: chits, count: 2}
      single: {draw: chits}
    outcomes: [miss, hit]
    let:
      dice_read: count(p) + count(q) + count(one)
      chits_read: count(drawn) + count(two) + count(single)
    outcome: "'hit' if dice_read + chits_read > 9 else 'miss'"
"""

DOUBLED = re.compile(r"\b([A-Za-z_]\w*)\W+\1\b")
LABEL = re.compile(r"^\s+\w+: ")


def test_sizes_and_faces_are_said_apart_from_their_nouns() -> None:
    model = engine.load(WORDS).model
    assert ruleset_text(model).splitlines()[:5] == [
        "words  (<string>)",
        "bags:",
        "  chits: 2 good, 3 bad (1 set)",
        "checks:",
        "  act",
    ]
    lines = check_text(model.checks["act"]).splitlines()
    assert lines[0] == "act"
    for line in (
        "one: a pool of 1 die with faces worked out when rolled from faces",
        "p: a pool of dice (how many: dice) with faces 1..6",
        "q: a pool of dice (how many: dice + 1) with faces 1..3",
        "drawn: a draw of chits (how many: chits) from bag 'chits' (5 chits)",
        "two: a draw of 2 chits from bag 'chits' (5 chits)",
        "single: a draw of 1 chit from bag 'chits' (5 chits)",
    ):
        assert f"    {line}" in lines


def _rulesets() -> list[tuple[str, str]]:
    """The shipped rulesets, the example and every complete ruleset of the docs."""
    found = [(name, (REPO_ROOT / "rulesets" / f"{name}.yaml").read_text()) for name in SHIPPED_NAMES]
    found.append(("trait_and_wild", (REPO_ROOT / "examples" / "trait_and_wild.yaml").read_text()))
    for page in sorted(Path(REPO_ROOT / "docs").glob("*.md")):
        for fence in fences(page):
            info = fence.info.split()
            if info[0] == "yaml" and "fragment" not in info and "bad" not in info:
                found.append((f"{page.name}:{fence.line}", fence.text))
    return found


def test_no_word_of_show_doubles() -> None:
    shown = 0
    for where, text in [*_rulesets(), ("words", WORDS)]:
        try:
            rules = engine.load(text)
        except engine.RulecraftError:
            continue  # a doc's block that loads only beside its files
        for check in rules.model.checks.values():
            for line in check_text(check).splitlines():
                if check.description and line.strip() == check.description:
                    continue  # the author's own words
                # an indented line's own label (`a: a pool of ...`) and an input's description are
                # not the phrase builder's words
                said = LABEL.sub("", line).split(" — ")[0] if line.startswith(" ") else line
                assert not DOUBLED.search(said), f"{where}: {line}"
            shown += 1
    assert shown > 50


def test_a_single_die_shows_its_triggers_and_cap_as_a_pool_does() -> None:
    """A die with triggers is a pool of one: `show` lists its steps and cap under it, as under a
    pool (it printed only "read as the total of its dice")."""
    text = """\
rulecraft: 1
name: single
checks:
  act:
    roll:
      t: {die: 8, cap: 4, triggers: [{name: ace, on: face == 8, must: add}]}
      p: {pool: 1, die: 8, cap: 4, triggers: [{name: ace, on: face == 8, must: add}]}
    outcomes: [miss, hit]
    outcome: "'hit' if t + sum(p) >= 12 else 'miss'"
"""
    lines = check_text(engine.load(text).model.checks["act"]).splitlines()
    t, p = (
        lines.index(next(x for x in lines if x.startswith("    t: "))),
        lines.index("    p: a pool of 1 die with faces 1..8"),
    )
    assert lines[t] == "    t: a die with faces 1..8, read as the total of its dice"
    assert lines[t + 1 : p] == lines[p + 1 :][: p - t - 1]  # the same steps, the same cap
    assert lines[t + 1 : p] == [
        "      ace: each die where face == 8 must add a die ×1",
        "      at most 4 dice rerolled or added in all",
    ]


def test_a_step_s_keys_that_change_what_it_does_are_shown() -> None:
    """Hunt 13w: a rote (`first_roll_only: true`) and "reroll until 8 or more" printed the same
    line, though one solves and the other runs out of work; `repeat`, `pick` and `take` were not
    shown either, and every `add` read "must add the die itself"."""
    text = """\
rulecraft: 1
name: steps
checks:
  act:
    roll:
      p:
        pool: 3
        die: 10
        triggers:
          - {name: again, on: face == 10, must: add}
          - {name: rote, on: face < 8, must: reroll, first_roll_only: true}
          - {name: once, on: face == 1, may: reroll, repeat: false, pick: highest, take: all}
    outcomes: [lo, hi]
    outcome: "'hi' if count(p, 8..10) >= 2 else 'lo'"
"""
    lines = check_text(engine.load(text).model.checks["act"]).splitlines()
    assert "      again: each die where face == 10 must add a die ×1" in lines, lines
    assert "      rote: each die where face < 8 must reroll the die itself ×1, first_roll_only: true" in lines
    assert (
        "      once: each die where face == 1 may reroll the die itself ×1, repeat: false, pick: highest,"
        " take: all" in lines
    ), lines
