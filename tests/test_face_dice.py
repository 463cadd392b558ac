"""Issue 12 items 1 and 2: dice whose faces come from expressions, triggers on a single die, and
explosions without a cap, solved exactly to a reported tail and sampled without end.

The trait-and-wild ruleset (`examples/trait_and_wild.yaml`) is checked against an independent
enumeration written here with plain fractions: an exploding dN totals N·k + r (r in 1..N-1)
with probability N^-(k+1), the better of two totals plus a modifier is compared with 4."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from _repo import REPO_ROOT
from _stats import chi_square_p
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.model.values import readable

TRAIT = engine.load(REPO_ROOT / "examples" / "trait_and_wild.yaml")
SIDES = {"d4": 4, "d6": 6, "d8": 8, "d10": 10, "d12": 12}


def exploding(n: int, depth: int = 40, ace: int | None = None) -> dict[int, Fraction]:
    """The total of a dN that adds a die whenever it shows `ace` or more (default: N), followed
    `depth` dice deep (what is left, at most (aces/N)^depth, is dropped)."""
    ace = n if ace is None else ace
    stays = [f for f in range(1, n + 1) if f < ace]
    out: dict[int, Fraction] = {}
    partial = {0: Fraction(1)}  # sum of the aces so far -> probability
    for _ in range(depth):
        nxt: dict[int, Fraction] = {}
        for s, p in partial.items():
            for f in range(1, n + 1):
                q = p / n
                if f in stays:
                    out[s + f] = out.get(s + f, Fraction(0)) + q
                else:
                    nxt[s + f] = nxt.get(s + f, Fraction(0)) + q
        partial = nxt
    return out


def trait_roll(n: int, modifier: int) -> tuple[dict[str, Fraction], dict[int, Fraction]]:
    """Outcome and `total` probabilities of the trait roll, by enumeration of both totals."""
    trait, wild = exploding(n), exploding(6)
    outcomes: dict[str, Fraction] = Counter()  # type: ignore[assignment]
    totals: dict[int, Fraction] = Counter()  # type: ignore[assignment]
    for t, pt in trait.items():
        for w, pw in wild.items():
            p = pt * pw
            total = max(t, w) + modifier
            totals[total] += p
            if t == 1 and w == 1:
                outcomes["critical_failure"] += p
            elif total < 4:
                outcomes["failure"] += p
            elif total < 8:
                outcomes["success"] += p
            else:
                outcomes["raise"] += p
    return outcomes, totals


@pytest.mark.parametrize("trait", list(SIDES))
@pytest.mark.parametrize("modifier", [0, -2, 3])
def test_trait_and_wild_agree_with_an_independent_enumeration(trait: str, modifier: int) -> None:
    d = TRAIT.distribution("trait", trait=trait, modifier=modifier)
    outcomes, totals = trait_roll(SIDES[trait], modifier)
    for name in ("critical_failure", "failure", "success", "raise"):
        assert abs(d.probability(name) - outcomes[name]) < 1e-12, name
    total = d.value("total")
    for value in set(totals) | {v for v, _ in total.items()}:
        assert abs(total.probability(value) - totals.get(value, Fraction(0))) < 1e-12, value
    # each of the two explosions is followed until at most 1e-15 is left; no cap is involved
    assert 0 < d.truncated <= Fraction(2, 10**15) and d.capped == 0


def test_trait_and_wild_samples_agree_with_the_exact_distribution() -> None:
    exact = TRAIT.distribution("trait", trait="d4")
    rng = random.Random(12)
    seen = Counter(TRAIT.roll("trait", rng, trait="d4").outcome.name for _ in range(4000))
    p = chi_square_p(seen, {s.name: exact.probability(s) for s in exact.outcomes.members})
    assert p > 1e-4


def test_a_die_with_triggers_reads_as_its_total() -> None:
    r = TRAIT.roll("trait", forced={"trait_die": [8, 8, 3], "wild": [6, 2]}, trait="d8")
    assert r.rolled == {"trait_die": 19, "wild": 8}
    kinds = [(s.kind, s.name, s.value) for s in r.trace if s.name in ("trait_die", "wild")]
    assert kinds[0] == ("die", "trait_die", 8)  # the first face, as for any die
    assert ("value", "trait_die", 19) in kinds and ("value", "wild", 8) in kinds
    assert "8 + 8 + 3" in [s.detail for s in r.trace]
    plain = TRAIT.roll("trait", forced={"trait_die": [3], "wild": [2]}, trait="d8")
    assert [s.kind for s in plain.trace if s.name == "trait_die"] == ["die"]  # no ace: no sum shown


def test_an_uncapped_explosion_is_sampled_past_where_the_exact_solver_stops() -> None:
    r = TRAIT.roll("trait", forced={"trait_die": [4] * 60 + [1], "wild": [2]}, trait="d4")
    assert r.values["total"] == 241
    small = engine.load(REPO_ROOT / "examples" / "trait_and_wild.yaml", limits=engine.Limits(max_rerolls=10))
    with pytest.raises(engine.LimitError) as err:
        small.roll("trait", forced={"trait_die": [4] * 12 + [1], "wild": [2]}, trait="d4")
    assert err.value.diagnostics[0].code == "RC503"


DICE = """
rulecraft: 1
name: faces
scales:
  rating: [low, high]
tables:
  faces_for:
    params: {r: rating}
    returns: any
    cases: {low: "[1, 1, 2]", high: 2..5}
checks:
  c:
    inputs:
      sides: {type: int, min: 1, max: 2000, default: 6}
      r: {type: choice, choices: rating, default: low}
    roll:
      a: {die: sides}
      b: {die: "1..sides"}
      c: {die: "faces_for(r)"}
      d: {die: "1..a"}
    outcomes: [lo, hi]
    outcome: "'hi' if a + b + c + d > sides + 4 else 'lo'"
"""


def enumerate_dice(sides: int, c_faces: list[int]) -> Fraction:
    """P(hi) for DICE, by listing every face of every die."""
    hits = Fraction(0)
    for a in range(1, sides + 1):
        for b in range(1, sides + 1):
            for c in c_faces:
                for d in range(1, a + 1):
                    if a + b + c + d > sides + 4:
                        hits += Fraction(1, sides * sides * len(c_faces) * a)
    return hits


@pytest.mark.parametrize(("sides", "r", "c_faces"), [(6, "low", [1, 1, 2]), (3, "high", [2, 3, 4, 5])])
def test_faces_read_from_inputs_a_table_and_an_earlier_die(sides: int, r: str, c_faces: list[int]) -> None:
    rs = engine.load(DICE)
    d = rs.distribution("c", sides=sides, r=r)
    assert d.probability("hi") == enumerate_dice(sides, c_faces)
    roll = rs.roll("c", forced={"a": 2, "b": sides, "c": c_faces[0], "d": 2}, sides=sides, r=r)
    assert roll.rolled == {"a": 2, "b": sides, "c": c_faces[0], "d": 2}
    die_steps = {s.name: s.die for s in roll.trace if s.kind == "die"}
    assert die_steps["d"] == (1, 2) and die_steps["b"] == tuple(range(1, sides + 1))


def test_a_forced_face_is_checked_against_the_faces_of_this_roll() -> None:
    rs = engine.load(DICE)
    with pytest.raises(engine.InputError) as err:
        rs.roll("c", forced={"a": 2, "d": 3}, sides=6)
    assert err.value.diagnostics[0].code == "RC405" and "1..2" in err.value.diagnostics[0].message


@pytest.mark.parametrize("sides", [1001, 2000, 10**40])
def test_faces_over_the_limit_are_refused_when_rolled(sides: int) -> None:
    rs = engine.load(DICE.replace("max: 2000", "max: 10000000000000000000000000000000000000000"))
    for call in (lambda: rs.distribution("c", sides=sides), lambda: rs.roll("c", sides=sides)):
        with pytest.raises(engine.LimitError) as err:
            call()
        (diag,) = err.value.diagnostics
        assert diag.code == "RC503" and f"{sides:,} faces" in diag.message
        assert diag.span is not None and diag.span.line == 17 and diag.span.col == 16  # under `sides`


def test_faces_that_are_no_faces_are_refused_when_rolled() -> None:
    rs = engine.load(DICE.replace('b: {die: "1..sides"}', 'b: {die: "sides - 3"}'))
    rs.distribution("c", sides=4)
    for call in (lambda: rs.distribution("c", sides=3), lambda: rs.roll("c", sides=3)):
        with pytest.raises(engine.InputError) as err:
            call()
        (diag,) = err.value.diagnostics
        assert diag.code == "RC409" and "sides - 3 = 0" in diag.message
        assert diag.hint and "at least 1" in diag.hint


def test_the_linter_reports_faces_that_fail_for_an_allowed_input() -> None:
    from engine.tools.lint import lint

    rs = engine.load(DICE.replace('b: {die: "1..sides"}', 'b: {die: "sides - 3"}'))
    found = [d for d in lint(rs) if d.code == "RC808"]
    assert any("RC409" in d.message for d in found), [d.message for d in found]
    # `sides` up to 2000: more than 1000 faces fails too, whatever the limits (RC503)
    assert any("over the limit of 1000 (RC503)" in d.message for d in found)


@pytest.mark.parametrize(
    ("faces", "code", "fragment", "hint"),
    [
        ("sise", "RC301", "unknown name 'sise'", "a die's faces may read the check's inputs"),
        ("1..d + 1", "RC301", "unknown name 'd'", "dice above it"),  # d is rolled below b
        ("sides > 2", "RC310", "this expression gives true/false", None),
        ("1..2000", "RC310", "2,000 faces, over the limit of 1000", "at most 1000 faces"),
    ],
)
def test_faces_that_cannot_be_read_say_why(faces: str, code: str, fragment: str, hint: str | None) -> None:
    with pytest.raises(engine.CompileError) as err:
        engine.load(DICE.replace('b: {die: "1..sides"}', f'b: {{die: "{faces}"}}'))
    (diag,) = err.value.diagnostics
    assert diag.code == code and fragment in diag.message
    assert diag.span is not None and diag.span.line == 18
    if hint:
        assert diag.hint and hint in diag.hint


def test_a_die_without_triggers_needs_no_cap_and_a_reroll_trigger_keeps_one_face() -> None:
    rs = engine.load(
        """
rulecraft: 1
name: once
checks:
  c:
    roll:
      d:
        die: 6
        triggers: [{on: face == 1, must: reroll, repeat: false}]
        redraw: {must: d == 2}
    outcomes: [lo, hi]
    outcome: "'hi' if d >= 4 else 'lo'"
"""
    )
    # one run of the procedure: a 1 is rerolled once and the new face stands
    one = {f: Fraction(1, 36) + (Fraction(1, 6) if f > 1 else 0) for f in range(1, 7)}
    # then a 2 must be redrawn once: the die (and its trigger) is rolled again
    good = sum(p for f, p in one.items() if f >= 4)
    assert rs.distribution("c").probability("hi") == good + one[2] * good
    r = rs.roll("c", forced={"d": [1, 2, 1, 5]})
    assert r.rolled == {"d": 5}


@settings(max_examples=25, deadline=None)
@given(sides=st.integers(2, 12), data=st.data())
def test_an_exploding_die_matches_the_geometric_tail(sides: int, data: st.DataObject) -> None:
    # the highest face, or the two highest of a d6 or more: a tail of 1/3 a roll or less (a die
    # that adds dice on most faces goes so deep that it meets the work budget, RC503)
    ace = data.draw(st.integers(sides - 1 if sides >= 6 else sides, sides), label="ace")
    rs = engine.load(
        f"""
rulecraft: 1
name: geo
checks:
  c:
    roll:
      d:
        die: {sides}
        triggers: [{{on: face >= {ace}, must: add}}]
    outcomes: [lo, hi]
    outcome: "'hi' if d > {sides} else 'lo'"
"""
    )
    d = rs.distribution("c")
    expected = exploding(sides, depth=80, ace=ace)
    assert abs(d.probability("hi") - sum(p for t, p in expected.items() if t > sides)) < 1e-12
    assert d.truncated <= Fraction(1, 10**15)


def test_the_total_is_a_named_value_of_its_distribution() -> None:
    rs = engine.load(
        """
rulecraft: 1
name: geo
checks:
  c:
    roll:
      d: {die: 3, triggers: [{on: face == 3, must: add}]}
    let:
      total: d
    outcomes: [lo, hi]
    outcome: "'hi' if d > 3 else 'lo'"
"""
    )
    total = rs.distribution("c").value("total")
    for t, p in exploding(3, depth=60).items():
        assert abs(total.probability(t) - p) < 1e-12


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (Fraction(1, 1296), "1/1296 (0.08%)"),
        (Fraction(1, 6**21), "4.6e-17"),
        (Fraction(123456789, 1000000007), "12.35%"),
        (Fraction(0), "0 (0.00%)"),
    ],
)
def test_probabilities_are_readable(p: Fraction, text: str) -> None:
    assert readable(p) == text


def test_prob_prints_the_cap_and_the_tail_readably(tmp_path: Path, cli: Any) -> None:
    capped = tmp_path / "capped.yaml"
    capped.write_text(
        """
rulecraft: 1
name: capped
checks:
  c:
    roll:
      d: {die: 6, cap: 20, triggers: [{on: face == 6, must: add}]}
    outcomes: [lo, hi]
    outcome: "'hi' if d > 6 else 'lo'"
""",
        encoding="utf-8",
    )
    out = cli("prob", str(capped), "c").out
    assert "a reroll cap ended the procedure with probability 4.6e-17" in out
    out = cli("prob", "examples/trait_and_wild.yaml", "trait", "-i", "trait=d4").out
    (note,) = [line for line in out.splitlines() if "uncapped explosion" in line]
    assert "e-16 of the probability was left" in note or "e-15 of the probability was left" in note


@pytest.mark.parametrize("on", ["face >= 1", "true"])
def test_a_die_that_adds_a_die_on_every_face_is_refused(on: str) -> None:
    text = """
rulecraft: 1
name: forever
checks:
  c:
    roll:
      d: {{die: 6, triggers: [{{on: "{on}", must: add}}]}}
    outcomes: [lo, hi]
    outcome: "'hi' if d > 6 else 'lo'"
"""
    with pytest.raises(engine.CompileError) as err:
        engine.load(text.format(on=on))
    (diag,) = err.value.diagnostics
    assert diag.code == "RC313" and "the adds never end" in diag.message
    engine.load(text.format(on=on).replace("die: 6,", "die: 6, cap: 3,"))  # a cap ends it


def test_faces_read_from_inputs_alone_keep_the_check_independent() -> None:
    """No die reads another: the check is rolled and solved as independent dice."""
    rs = engine.load(DICE.replace('      d: {die: "1..a"}\n', "").replace(" + d >", " >"))
    assert not rs.check("c").sequential
    d = rs.distribution("c", sides=3, r="high")
    hits = sum(
        Fraction(1, 9 * 4) for a in range(1, 4) for b in range(1, 4) for c in (2, 3, 4, 5) if a + b + c > 7
    )
    assert d.probability("hi") == hits
    rng = random.Random(5)
    seen = {(roll.rolled["a"], roll.rolled["b"]) for roll in (rs.roll("c", rng, sides=3) for _ in range(200))}
    assert seen == {(a, b) for a in range(1, 4) for b in range(1, 4)}
    with pytest.raises(engine.InputError) as err:
        rs.roll("c", forced={"a": 4, "b": 1, "c": 1}, sides=3)
    assert err.value.diagnostics[0].code == "RC405"


def test_the_linter_notes_the_tail_of_an_uncapped_explosion_readably() -> None:
    from engine.tools.lint import lint, promote

    ace = """
rulecraft: 1
name: ace
checks:
  act:
    roll:
      d: {die: 6, triggers: [{name: ace, on: face == 6, must: add}]}
    outcomes: [miss, hit]
    outcome: "'hit' if d >= 8 else 'miss'"
"""
    (found,) = [d for d in lint(engine.load(ace)) if d.code == "RC314"]
    assert found.severity == "warning" and found.span is not None and found.span.line == 7
    assert re.search(r"at most \d\.\de-1[5-9] of the probability is left out", found.message), found.message
    assert promote([found], strict=True)[0].severity == "warning"
    capped = ace.replace("{die: 6,", "{die: 6, cap: 5,")
    assert not [d for d in lint(engine.load(capped)) if d.code == "RC314"]


def test_show_says_where_the_faces_come_from_and_what_the_name_reads(cli: Any) -> None:
    out = cli("show", "examples/trait_and_wild.yaml", "trait").out
    assert (
        "trait_die: a die with faces worked out when rolled from sides(trait), read as the total of its dice"
        in out
    )
    assert "wild: a die with faces 1..6, read as the total of its dice" in out


def test_the_trait_ruleset_validates_strictly_and_tests(cli: Any) -> None:
    r = cli("validate", "--strict", "--format", "json", "examples/trait_and_wild.yaml")
    assert r.code == 0, r.out + r.err
    codes = {d["code"] for f in json.loads(r.out)["files"] for d in f["diagnostics"]}
    assert codes == {"RC314"}  # every input combination covered: no RC809 (the budget is in work units)
    again = cli("validate", "--strict", "--format", "json", "examples/trait_and_wild.yaml")
    assert (again.code, again.out, again.err) == (r.code, r.out, r.err)  # the same findings every run
    t = cli("test", "examples/trait_and_wild.yaml")
    assert t.code == 0 and "5/5 examples" in t.out


def test_optimal_play_on_a_pool_that_reads_no_earlier_die_still_sees_it() -> None:
    """The procedure of a pool that reads nothing rolled before it is solved once under a fixed
    policy; under `optimal` the choice depends on the dice before it, so it is solved per value."""
    rs = engine.load(
        """
rulecraft: 1
name: duel
checks:
  c:
    roll:
      foe: {die: 6}
      mine: {pool: 1, die: 6, triggers: [{on: face <= 3, may: reroll, repeat: false}]}
    outcomes: [lose, win]
    outcome: "'win' if sum(mine) > foe else 'lose'"
"""
    )
    win = Fraction(0)
    for foe in range(1, 7):
        for m in range(1, 7):
            keep = Fraction(int(m > foe))
            win += Fraction(1, 36) * (keep if m >= 4 else max(keep, Fraction(6 - foe, 6)))
    assert rs.distribution("c", policy="optimal").probability("win") == win
    always = sum(
        Fraction(1, 36) * (Fraction(int(m > f)) if m >= 4 else Fraction(6 - f, 6))
        for f in range(1, 7)
        for m in range(1, 7)
    )
    assert rs.distribution("c").probability("win") == always
