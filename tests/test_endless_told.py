"""A check that can never end is told so (RC507) by the sampler, not as a spent work budget, and the
linter takes a check that never ends only when the player takes every `may` as no failure, as it
takes a reroll chain that returns so (docs/diagnostics.md, RC503, RC507 and RC808).

Hunt 13p: `roll` of a check whose `then: again` rule fires whatever the dice ran until its work
budget was spent (2 s, then RC503 advising a larger `max_work`, which could not help; 23 s with
ten times the budget), where `prob` said RC507 at once; and `validate` said a check that
`--policy never` solves "always fails".
"""

from __future__ import annotations

import random
import time

import pytest

import engine
from engine.errors import EvalError, LimitError
from engine.eval import sample as sampler
from engine.tools.lint import lint

SURE = """
rulecraft: 1
name: sure
checks:
  k:
    inputs:
      x: {type: int, min: 0, max: 3, default: 1}
    roll:
      d: {die: 6}
    outcomes: [lose, win]
    outcome:
      - when: x == 0
        then: again
      - when: d >= 4
        then: win
      - else: lose
"""

TAKEN = """
rulecraft: 1
name: taken
checks:
  k:
    roll:
      d: {die: 6, redraw: {may: "true"}}
    outcomes: [lo, hi]
    outcome:
      - when: redraws(d) == 1
        then: again
      - when: d >= 4
        then: hi
      - else: lo
"""

RARE = """
rulecraft: 1
name: rare
checks:
  k:
    roll:
      d: {die: 1000}
    outcomes: [lo, hi]
    outcome:
      - when: d < 1000
        then: again
      - else: hi
"""


def test_a_rule_that_fires_whatever_the_dice_is_told_at_the_first_attempt() -> None:
    rs = engine.load(SURE)
    started = time.perf_counter()
    with pytest.raises(EvalError) as error:
        rs.roll("k", x=0, rng=random.Random(1))
    assert time.perf_counter() - started < 1  # was 2 s: the whole work budget
    d = error.value.diagnostics[0]
    assert d.code == "RC507" and "never ends with x=0" in d.message
    rule = SURE.splitlines().index("      - when: x == 0") + 1
    assert d.span is not None and d.span.line == rule
    with pytest.raises(EvalError) as error:  # forced dice too: no face escapes the rule
        rs.roll("k", x=0, forced={"d": 6})
    assert error.value.diagnostics[0].code == "RC507"
    assert rs.roll("k", x=1, rng=random.Random(1)).outcome in ("lose", "win")


def test_a_check_that_never_ends_under_its_policy_is_told_whatever_the_budget() -> None:
    for max_work in (2_000_000, 20_000_000):
        rs = engine.load(TAKEN, limits=engine.Limits(max_work=max_work))
        started = time.perf_counter()
        with pytest.raises(EvalError) as error:
            rs.roll("k", rng=random.Random(1))  # the policy `always` takes the redraw every time
        assert time.perf_counter() - started < 2  # was 2.5 s, and 23 s with the larger budget
        d = error.value.diagnostics[0]
        assert d.code == "RC507" and "never ends" in d.message
    result = rs.roll("k", rng=random.Random(1), policy="never")  # declined, it ends at once
    assert result.outcome in ("lo", "hi") and result.rolled_again == 0


def test_a_roll_that_can_end_goes_on_past_the_ask_with_the_same_dice() -> None:
    rs = engine.load(RARE)
    seed = next(s for s in range(200) if _attempts(s) > sampler.ASK_AGAIN)  # asks the exact evaluator
    first = rs.roll("k", rng=random.Random(seed), trace=False)
    assert first.outcome == "hi" and first.rolled_again > sampler.ASK_AGAIN
    again = rs.roll("k", rng=random.Random(seed), trace=False)  # the answer kept: no ask
    assert (again.outcome, again.rolled_again, again.drawn) == ("hi", first.rolled_again, first.drawn)


def _attempts(seed: int) -> int:
    """How many times a d1000 is rolled before its first 1000, with `seed` (as the sampler rolls it)."""
    rng, n = random.Random(seed), 0
    while rng.randrange(1000) != 999:
        n += 1
    return n


def test_a_spent_budget_says_the_check_may_never_end() -> None:
    text = RARE.replace("{die: 1000}", "{die: 1000}\n      e: {die: 1000}").replace(
        "when: d < 1000", "when: d < 1000 or e < 1000"
    )
    rs = engine.load(text, limits=engine.Limits(max_work=20_000))  # too small to solve, or to end
    with pytest.raises(LimitError) as error:
        rs.roll("k", rng=random.Random(1))
    d = error.value.diagnostics[0]
    assert d.code == "RC503" and "made again by a rule 'then: again'" in d.message
    assert "may never end" in d.message and "its exact distribution tells whether it does" in d.message
    assert d.hint is not None and "ask for its exact distribution" in d.hint and "max_work" in d.hint


def test_the_linter_takes_a_check_that_never_ends_only_when_every_may_is_taken_as_no_failure() -> None:
    """As a reroll chain that returns under `always` is (docs/diagnostics.md: "a chain that never
    ends only when the player takes every `may` ... is no failure"): `never` tells, and ends."""
    found = [d for d in lint(engine.load(TAKEN)) if d.code == "RC808"]
    assert [d.severity for d in found] == ["note"], [d.render() for d in found]  # no failure ...
    # ... but `roll` and `prob` take `always` unless told, and refuse it: a note says so (hunt 13w)
    assert found[0].message.startswith("check 'k' never ends under the policy 'always' (every 'may' taken)")
    assert "(RC507)" in found[0].message and "under the policy 'never'" in (found[0].hint or "")
    assert engine.load(TAKEN).distribution("k", policy="never").probability("hi") == 0.5


def test_a_reroll_chain_that_never_ends_when_every_may_is_taken_is_a_note() -> None:
    text = """\
rulecraft: 1
name: t
checks:
  f:
    roll:
      p: {pool: 2, die: 6, triggers: [{on: face >= 1, may: reroll}]}
    outcomes: [lo, hi]
    outcome: "'hi' if sum(p) > 7 else 'lo'"
"""
    found = [d for d in lint(engine.load(text)) if d.code == "RC808"]
    assert [d.severity for d in found] == ["note"], [d.render() for d in found]
    assert "never ends under the policy 'always'" in found[0].message and "(RC503)" in found[0].message


def test_the_linter_still_fails_a_check_that_never_ends_whatever_the_player_does() -> None:
    text = TAKEN.replace("when: redraws(d) == 1", "when: redraws(d) <= 1")
    found = [d for d in lint(engine.load(text)) if d.code == "RC808"]
    assert len(found) == 1 and found[0].severity == "error" and "always fails" in found[0].message


def test_a_check_that_never_ends_under_one_policy_names_it() -> None:
    """RC507 did not name the policy: `always` takes the redraw and never ends, `never` declines
    and ends, and the message read as if no way of playing the check ended. A check without
    choices names none (no policy changes it)."""
    rs = engine.load(TAKEN)
    for ask in (
        lambda: rs.distribution("k"),
        lambda: rs.roll("k", rng=random.Random(1)),
    ):
        with pytest.raises(EvalError) as error:
            ask()
        d = error.value.diagnostics[0]
        assert d.code == "RC507" and "check 'k' never ends under the policy 'always': " in d.message, d
        assert d.hint is not None and d.hint.endswith(", or play it under another policy"), d.hint
    assert sum(p for _, p in rs.distribution("k", policy="never").table()) == 1
    with pytest.raises(EvalError) as error:
        engine.load(SURE).distribution("k", x=0)
    d = error.value.diagnostics[0]
    assert "check 'k' never ends with x=0: " in d.message and "policy" not in (d.hint or ""), d
