"""`then: again` in a check's outcome rules: the whole check made again from scratch until a rule
names an outcome (docs/language.md, "Rolling again: `then: again`").

The exact evaluator gives the distribution of the roll that ends, P(x | not again), pinned here
against a brute-force enumeration in `Fraction`s; the sampler rolls again (chi-square against
that distribution); forced dice are taken in order across attempts; the trace shows each attempt;
a check that rolls again with certainty is refused (RC507), and best play over a check whose
player chooses is refused (RC508) rather than answered wrong.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from _repo import REPO_ROOT
from _stats import chi_square_p
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.errors import CompileError, EvalError, InputError, LimitError
from engine.state.memory import MemoryStore
from engine.tools.lint import lint

DUEL = """
rulecraft: 1
name: duel
checks:
  duel:
    inputs:
      edge: {type: int, min: -3, max: 3, default: 0}
      must: {type: bool, default: true}
    roll:
      a: {die: 6}
      b: {die: 4}
    let:
      diff: a + edge - b
    outcomes: [lose, tie, win]
    outcome:
      - when: diff > 0
        then: win
      - when: diff < 0
        then: lose
      - when: not must
        then: tie
      - else: again
    outputs:
      double: diff * 2
"""


def duel_by_hand(edge: int, must: bool) -> tuple[dict[str, Fraction], dict[int, Fraction]]:
    """Every (a, b) enumerated; the rolls made again left out and the rest weighed over what is left."""
    outcomes: Counter[str] = Counter()
    diffs: Counter[int] = Counter()
    for a, b in itertools.product(range(1, 7), range(1, 5)):
        diff = a + edge - b
        if diff == 0 and must:
            continue  # rolled again
        outcomes["win" if diff > 0 else "lose" if diff < 0 else "tie"] += 1
        diffs[diff] += 1
    total = sum(outcomes.values())
    return (
        {k: Fraction(v, total) for k, v in outcomes.items()},
        {k: Fraction(v, total) for k, v in diffs.items()},
    )


@pytest.fixture(scope="module")
def duel() -> engine.Ruleset:
    return engine.load(DUEL)


# -- the compiler ------------------------------------------------------------------------------


def test_again_named_as_an_outcome_is_refused_at_the_member() -> None:
    text = DUEL.replace("outcomes: [lose, tie, win]", "outcomes: [lose, tie, win, again]")
    with pytest.raises(CompileError) as error:
        engine.load(text)
    d = error.value.diagnostics[0]
    assert d.code == "RC307"
    assert "'again' cannot be an outcome of check 'duel'" in d.message
    assert (
        d.span is not None
        and d.span.line == 14
        and text.splitlines()[13][d.span.col - 1 :].startswith("again")
    )
    assert d.hint is not None and "then: again" in d.hint
    assert "^^^^^" in error.value.render() if hasattr(error.value, "render") else True


def test_a_declared_scale_with_again_cannot_be_a_checks_outcomes() -> None:
    text = DUEL.replace("checks:", "scales:\n  ends: [lose, tie, win, again]\nchecks:", 1).replace(
        "outcomes: [lose, tie, win]", "outcomes: ends"
    )
    with pytest.raises(CompileError) as error:
        engine.load(text)
    assert [d.code for d in error.value.diagnostics] == ["RC307"]
    assert "a member of scale 'ends'" in error.value.diagnostics[0].message


def test_again_is_no_word_of_a_single_expression_outcome() -> None:
    text = DUEL.replace(
        "outcome:\n      - when: diff > 0\n        then: win\n      - when: diff < 0\n        then: lose\n"
        "      - when: not must\n        then: tie\n      - else: again",
        "outcome: \"'win' if diff > 0 else again\"",
    )
    with pytest.raises(CompileError) as error:
        engine.load(text)
    assert error.value.diagnostics[0].code == "RC301"


def test_outcomes_do_not_list_again(duel: engine.Ruleset) -> None:
    assert duel.checks["duel"].outcomes.names == ("lose", "tie", "win")


# -- the exact evaluator -----------------------------------------------------------------------


@pytest.mark.parametrize(("edge", "must"), [(0, True), (0, False), (2, True), (-3, True), (3, False)])
def test_exact_is_conditioned_on_not_rolling_again(duel: engine.Ruleset, edge: int, must: bool) -> None:
    want, diffs = duel_by_hand(edge, must)
    d = duel.distribution("duel", edge=edge, must=must)
    assert {s.name: p for s, p in d.table() if p} == want
    assert sum(p for _, p in d.table()) == 1
    assert dict(d.value("diff").items()) == diffs
    assert dict(d.value("double").items()) == {2 * k: p for k, p in diffs.items()}
    assert d.joint.total == sum(d.joint.weights.values())
    assert all(key[0] != "again" for key in d.joint.weights)


def test_a_check_that_always_rolls_again_is_refused(duel: engine.Ruleset) -> None:
    text = DUEL.replace("when: diff > 0", "when: diff > 0 and edge > 5").replace(
        "when: diff < 0", "when: diff < 0 and edge > 5"
    )
    rs = engine.load(text)
    with pytest.raises(EvalError) as error:
        rs.distribution("duel")
    d = error.value.diagnostics[0]
    assert d.code == "RC507"
    assert "never ends" in d.message and "edge=0" in d.message
    again_line = text.splitlines().index("      - else: again") + 1
    assert d.span is not None and d.span.line == again_line  # the rule `else: again`
    assert rs.distribution("duel", must=False).probability("tie") == 1  # other inputs end


# -- the sampler -------------------------------------------------------------------------------


def test_rolls_agree_with_the_conditioned_distribution(duel: engine.Ruleset) -> None:
    want, _ = duel_by_hand(0, True)
    rng = random.Random(7)
    seen = Counter(duel.roll("duel", rng=rng, trace=False).outcome.name for _ in range(3000))
    assert "tie" not in seen
    assert chi_square_p(seen, want) > 1e-6
    # the test can fail: against the unconditioned chances (the tie's 1/6 spread nowhere) it does
    unconditioned = {"win": Fraction(9, 24), "lose": Fraction(9, 24), "tie": Fraction(6, 24)}
    more = Counter(duel.roll("duel", rng=rng, trace=False).outcome.name for _ in range(20000))
    assert chi_square_p(more + Counter({"tie": 0}), unconditioned) < 1e-6


def test_the_trace_shows_each_attempt_and_the_rule(duel: engine.Ruleset) -> None:
    result = duel.roll("duel", forced={"a": [2, 3, 5], "b": [2, 3, 1]})
    assert result.rolled_again == 2
    assert result.outcome == "win" and dict(result.rolled) == {"a": 5, "b": 1}
    assert result.values["diff"] == 4
    assert result.drawn == {"a": (2, 3, 5), "b": (2, 3, 1)}
    again = [s for s in result.trace if s.kind == "again"]
    assert [s.value for s in again] == [1, 2]
    assert all(s.rule is not None and s.rule.then == "again" and s.rule.when is None for s in again)
    assert "rolled again" in again[0].detail
    assert [s.value for s in result.trace if s.kind == "die"] == [2, 2, 3, 3, 5, 1]
    assert result.as_json()["rolled_again"] == 2
    assert "rolled_again" not in duel.roll("duel", forced={"a": 5, "b": 1}).as_json()
    replayed = duel.roll("duel", forced=result.forced())
    assert (replayed.outcome, replayed.rolled_again) == (result.outcome, 2)


def test_untraced_and_prebound_rolls_roll_again(duel: engine.Ruleset) -> None:
    """No fast path of plain dice skips the rule: untraced, pre-bound and kept rollers."""
    roller = duel.roller("duel", trace=False)
    rng = random.Random(3)
    results = [roller(rng) for _ in range(400)] + [
        duel.roll("duel", rng=rng, trace=False) for _ in range(400)
    ]
    assert all(r.outcome.name != "tie" for r in results)
    assert any(r.rolled_again for r in results)
    assert all(r.values["diff"] != 0 for r in results)


def test_forced_dice_run_out_in_a_second_attempt(duel: engine.Ruleset) -> None:
    with pytest.raises(InputError) as error:
        duel.roll("duel", forced={"a": 3, "b": 3})
    assert error.value.diagnostics[0].code == "RC405"


def test_a_check_that_almost_always_rolls_again_ends_at_the_budget() -> None:
    text = DUEL.replace("b: {die: 4}", "b: {die: 1000}").replace("a: {die: 6}", "a: {die: 1000}")
    for row in ("diff > 0", "diff < 0", "not must"):
        text = text.replace(f"when: {row}", "when: a == 1 and b == 1")
    rs = engine.load(text, limits=engine.Limits(max_work=20_000))
    with pytest.raises(LimitError) as error:  # about 1 in 10**6 rolls ends: far past 20,000 units
        rs.roll("duel", rng=random.Random(1))
    assert error.value.diagnostics[0].code == "RC503"


# -- policies ----------------------------------------------------------------------------------

CHOOSING = """
rulecraft: 1
name: choosing
checks:
  pick:
    roll:
      p:
        pool: 2
        die: 6
        triggers:
          - {on: face == 1, may: reroll}
    outcomes: [low, high]
    outcome:
      - when: sum(p) == 7
        then: again
      - when: sum(p) >= 8
        then: high
      - else: low
"""


def test_optimal_is_refused_where_the_player_chooses_and_the_check_may_roll_again() -> None:
    rs = engine.load(CHOOSING)
    for ask in (lambda: rs.distribution("pick", policy="optimal"), lambda: rs.roll("pick", policy="optimal")):
        with pytest.raises(EvalError) as error:
            ask()
        assert error.value.diagnostics[0].code == "RC508"
    for policy in ("always", "never"):
        d = rs.distribution("pick", policy=policy)
        assert sum(p for _, p in d.table()) == 1
        assert rs.roll("pick", policy=policy, rng=random.Random(2)).outcome.name in ("low", "high")


def test_optimal_stands_where_nobody_chooses(duel: engine.Ruleset) -> None:
    assert duel.distribution("duel", policy="optimal").table() == duel.distribution("duel").table()


def test_never_is_the_brute_force_of_the_first_roll() -> None:
    rs = engine.load(CHOOSING)
    counts: Counter[str] = Counter()
    for a, b in itertools.product(range(1, 7), repeat=2):
        if a + b != 7:
            counts["high" if a + b >= 8 else "low"] += 1
    total = sum(counts.values())
    assert {s.name: p for s, p in rs.distribution("pick", policy="never").table()} == {
        k: Fraction(v, total) for k, v in counts.items()
    }


# -- many rolls, a state action, the linter ----------------------------------------------------


@pytest.mark.parametrize("method", ["exact", "rolled"])
def test_a_batch_agrees_with_the_conditioned_distribution(duel: engine.Ruleset, method: str) -> None:
    want, _ = duel_by_hand(1, True)
    batch = duel.sample("duel", 4000, random.Random(5), method=method, edge=1)
    assert sum(batch.outcomes.values()) == 4000
    assert chi_square_p({k: n for k, n in batch.outcomes.items() if n}, want) > 1e-6


def test_a_state_action_rolls_a_contest_again() -> None:
    """Chthonian's `fight` rolls `contest`: with `must_win` and even Traits a tie is rolled again."""
    c = engine.new_campaign(
        "test",
        REPO_ROOT / "rulesets" / "chthonian.yaml",
        store=MemoryStore(),
        params={"style": "weird_tale"},
        characters={"walter": {"starting_ti": 0}},
    )
    after = c.distribution("fight", "walter", must_win=True)
    wounded: Counter[int] = Counter()
    for state, p in after.items():
        wounded[json.loads(state)["characters"]["walter"]["items"]["wounded"]] += p
    by_hand: Counter[int] = Counter()
    for mine, theirs in itertools.product(range(1, 13), repeat=2):
        if mine != theirs:  # equal dice with equal Traits: rolled again, left out
            by_hand[max(theirs - mine, 0)] += 1
    assert dict(wounded) == {k: Fraction(n, 132) for k, n in by_hand.items()}
    assert wounded[0] == Fraction(1, 2)
    event = c.act("fight", "walter", forced={"die": [7, 4], "foe_die": [7, 9]}, must_win=True)
    assert event.result is not None and event.result.rolled_again == 1
    assert event.result.outcome == "lose" and event.result.values["extent"] == -5
    assert c.show()["characters"]["walter"]["items"]["wounded"] == 5


def test_the_linter_flags_an_again_rule_that_never_fires_and_a_check_that_never_ends() -> None:
    never = DUEL.replace(
        "      - else: again", "      - when: diff > 9\n        then: again\n      - else: tie"
    )
    found = lint(engine.load(never))
    assert any(d.code == "RC802" and "rule 4" in d.message for d in found)
    endless = DUEL.replace("when: diff > 0", "when: diff > 0 and edge < 3").replace(
        "when: diff < 0", "when: diff < 0 and edge < 3"
    )
    found = lint(engine.load(endless))
    assert any(d.code == "RC808" and "RC507" in d.message and "edge = 3" in d.message for d in found)
    assert not [d for d in lint(engine.load(DUEL)) if d.severity != "note"]


# -- a property --------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sides=st.tuples(st.integers(2, 6), st.integers(2, 6)),
    again_below=st.integers(2, 12),
    win_above=st.integers(2, 12),
)
def test_a_random_check_with_an_again_rule_is_the_brute_force_conditioning(
    sides: tuple[int, int], again_below: int, win_above: int
) -> None:
    m, n = sides
    text = f"""
rulecraft: 1
name: prop
checks:
  c:
    roll:
      x: {{die: {m}}}
      y: {{die: {n}}}
    outcomes: [low, mid, high]
    outcome:
      - when: x + y < {again_below}
        then: again
      - when: x + y > {win_above}
        then: high
      - when: x == y
        then: mid
      - else: low
"""
    counts: Counter[str] = Counter()
    for x, y in itertools.product(range(1, m + 1), range(1, n + 1)):
        if x + y < again_below:
            continue
        counts["high" if x + y > win_above else "mid" if x == y else "low"] += 1
    rs = engine.load(text)
    if not counts:
        with pytest.raises(EvalError) as error:
            rs.distribution("c")
        assert error.value.diagnostics[0].code == "RC507"
        return
    total = sum(counts.values())
    table = dict(rs.distribution("c").table())
    assert sum(table.values()) == 1
    assert {k.name: p for k, p in table.items() if p} == {k: Fraction(v, total) for k, v in counts.items()}


AGAIN_NOTE = "a rule 'then: again' makes the check again where it fires"


def test_prob_says_its_chances_are_those_of_the_roll_that_ends(cli: Any) -> None:
    """`prob` of a check with a rule `then: again` says in a note what its numbers are (the roll
    that ends), once, also beside the three policies; a check without one has no such note."""
    r = cli("prob", "chthonian", "contest", "-i", "must_win=true")
    assert r.code == 0, r.err
    assert "win   1/2" in r.out and f"  note: {AGAIN_NOTE}" in r.out
    r = cli("prob", "chthonian", "contest", "-i", "must_win=true", "--policy", "all")
    assert r.code == 0, r.err
    assert r.out.count(AGAIN_NOTE) == 1
    r = cli("prob", "chthonian", "standard")
    assert r.code == 0 and AGAIN_NOTE not in r.out


def test_each_attempt_is_charged_for_its_code_and_its_trace() -> None:
    """Found by hunt 13za: an attempt made again was charged 4 units and its dice, whatever its
    code, so two values of a 1,000-term `max` ran 142,858 attempts (21 s) before the budget
    ended the roll; a roll of many charges a roll for its code. A traced roll is charged too for
    the text its steps show past what their work paid for (each attempt shows both expressions)."""
    terms = ", ".join(["d"] * 1000)
    text = (
        "rulecraft: 1\nname: heavy\nchecks:\n  c:\n    roll:\n      d: {die: 1000}\n      e: {die: 1000}\n"
        f'    let:\n      a: "max({terms})"\n      b: "max({terms}) + 1"\n    outcomes: [lo, hi]\n'
        "    outcome:\n      - when: d + e < 2000\n        then: again\n      - else: hi\n"
    )
    rs = engine.load(text)
    with pytest.raises(engine.LimitError) as caught:
        rs.roll("c", random.Random(1), trace=False)
    untraced = _attempts(caught.value)
    assert 1_000 < untraced < 40_000
    with pytest.raises(engine.LimitError) as caught:
        rs.roll("c", random.Random(1))
    assert _attempts(caught.value) < untraced * 2 // 3  # the expressions' text, shown each attempt


def _attempts(exc: engine.LimitError) -> int:
    said = exc.diagnostics[0].message
    assert "attempts made again" in said, said
    return int(said.split(" after ")[1].split(" attempt")[0].replace(",", ""))


def test_a_rule_shown_at_each_attempt_is_charged_with_its_text() -> None:
    """Found by hunt 13zc: the text a step shows of its rule (a `when` of 1,000 numbers, shown by
    each attempt's rule and again step, three times each in text and JSON) and of a die's faces
    were not counted, and a 5 KB ruleset was answered with 203 MB of text (769 MB of JSON). Each
    attempt is charged for them now, told with the rest as attempts made again."""
    listed = ", ".join(str(i) for i in range(1, 1000))
    rs = engine.load(
        "rulecraft: 1\nname: longwhen\nchecks:\n  c:\n    roll:\n      d: {die: 1000}\n      e: {die: 1000}\n"
        f'    outcomes: [lo, hi]\n    outcome:\n      - when: "d in [{listed}] or e > 1"\n'
        "        then: again\n      - else: hi\n"
    )
    assert rs.roll("c", random.Random(1), trace=False).outcome == "hi"  # without its trace it ends
    with pytest.raises(engine.LimitError) as caught:
        rs.roll("c", random.Random(1))
    assert _attempts(caught.value) < 2_000  # 20,279 attempts were shown before
    faces = ", ".join(str(2 * i + 1) for i in range(1000))
    rs = engine.load(
        "rulecraft: 1\nname: bigdie\nchecks:\n  c:\n    roll:\n"
        + "".join(f"      d{i}: {{die: [{faces}]}}\n" for i in range(20))
        + "    outcomes: [lo, hi]\n    outcome:\n      - when: d0 > 1995\n        then: hi\n"
        "      - else: again\n"
    )
    ended = rs.roll("c", random.Random(1), trace=False)
    assert ended.outcome == "hi"
    with pytest.raises(engine.LimitError) as caught:
        rs.roll("c", random.Random(1))
    assert _attempts(caught.value) < ended.rolled_again
