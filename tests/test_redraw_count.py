"""`redraws(x)`: how many times a randomizer was redrawn, in both evaluators and the linter.

The exact numbers are checked against a reference written here from the rule in
docs/language.md ("Redraws"), not from the engine: a redraw is offered while fewer than `times`
were made and the condition holds; `must` and `always` take it, `never` declines, `optimal`
takes it only when that is strictly better for the objective.
"""

from __future__ import annotations

import random
from fractions import Fraction
from functools import cache

import pytest
from _stats import chi_square_p
from hypothesis import example, given, settings
from hypothesis import strategies as st

import engine
from engine.errors import RulecraftError
from engine.eval.dist import Dist
from engine.tools.lint import lint

Joint = dict[tuple[str, int], Fraction]


def _ruleset(faces: int, kind: str, below: int, times: int, cost: int, needed: int) -> engine.Ruleset:
    return engine.load(
        f"""
rulecraft: 1
name: gen
checks:
  act:
    roll:
      d:
        die: {faces}
        redraw: {{{kind}: "d <= {below}", times: {times}}}
      e: {{die: "0..1"}}
    outcomes: [fail, pass]
    objective: {{at_least: pass}}
    outcome: "'pass' if d - {cost} * redraws(d) + e >= {needed} else 'fail'"
    outputs:
      spent: redraws(d)
"""
    )


def _reference(faces: int, kind: str, below: int, times: int, cost: int, needed: int, policy: str) -> Joint:
    """(outcome, redraws made) → probability, by following the rule die face by die face (`e`,
    0 or 1, is rolled after `d` is settled: the exact evaluator merges what it has rolled so far
    by what the rest reads of it, which must count the redraws)."""

    def end(d: int, spent: int) -> Joint:
        out: Joint = {}
        for e in (0, 1):
            k = ("pass" if d - cost * spent + e >= needed else "fail", spent)
            out[k] = out.get(k, Fraction(0)) + Fraction(1, 2)
        return out

    def passing(j: Joint) -> Fraction:
        return sum((p for (o, _), p in j.items() if o == "pass"), Fraction(0))

    @cache
    def fresh(spent: int) -> tuple[tuple[tuple[str, int], Fraction], ...]:
        out: Joint = {}
        for d in range(1, faces + 1):
            for k, p in settle(d, spent).items():
                out[k] = out.get(k, Fraction(0)) + p / faces
        return tuple(out.items())

    def settle(d: int, spent: int) -> Joint:
        if spent >= times or d > below:
            return end(d, spent)
        again = dict(fresh(spent + 1))
        if kind == "must" or policy == "always":
            return again
        if policy == "never":
            return end(d, spent)
        kept = end(d, spent)
        return again if passing(again) > passing(kept) else kept

    return dict(fresh(0))


def _joint(rs: engine.Ruleset, policy: str, **inputs: object) -> Joint:
    dist = rs.distribution("act", policy=policy, **inputs)
    at = 2 + dist.names.index("spent")
    out: Joint = {}
    for key, w in dist.joint.weights.items():
        k = (str(key[0]), key[at])
        out[k] = out.get(k, Fraction(0)) + Fraction(w, dist.joint.total)
    return out


@settings(max_examples=400, deadline=None)
@example(faces=6, kind="may", below=3, times=2, cost=1, needed=2, policy="optimal")  # see below
@given(
    faces=st.integers(2, 6),
    kind=st.sampled_from(["may", "must"]),
    below=st.integers(0, 6),
    times=st.integers(0, 3),
    cost=st.integers(0, 2),
    needed=st.integers(0, 6),
    policy=st.sampled_from(["always", "never", "optimal"]),
)
def test_the_count_and_the_outcome_are_exact(
    faces: int, kind: str, below: int, times: int, cost: int, needed: int, policy: str
) -> None:
    """The joint distribution of the outcome and `redraws(d)` is the rule's, under every policy:
    a count that changes the outcome changes `optimal`'s choices too (the example: after one
    redraw a 2 passes only if its count is forgotten, so keeping it must be weighed with it)."""
    rs = _ruleset(faces, kind, below, times, cost, needed)
    assert _joint(rs, policy) == _reference(faces, kind, below, times, cost, needed, policy)


def test_a_forced_redraw_twice_counts_by_hand() -> None:
    """docs/language.md's `luck` die (`must: d == 1, times: 2`): 0 redraws 5/6, 1 redraw 5/36
    (a 1, then not), 2 redraws 1/36 (two 1s; the third roll stands whatever it shows)."""
    rs = _ruleset(6, "must", 1, 2, 0, 4)
    spent = rs.distribution("act").value("spent")
    assert {k: Fraction(w, spent.total) for k, w in spent.weights.items()} == {
        0: Fraction(5, 6),
        1: Fraction(5, 36),
        2: Fraction(1, 36),
    }


def test_the_sampler_counts_what_it_redraws() -> None:
    """A roll with its trace: the count is the number of redraw steps, under each policy."""
    rs = _ruleset(6, "may", 3, 2, 2, 3)
    rolled = rs.roll("act", forced={"d": [2, 1, 5], "e": [0]})
    assert [s.kind for s in rolled.trace].count("redraw") == 2
    assert rolled.values["spent"] == 2 and rolled.rolled == {"d": 5, "e": 0}
    assert rs.roll("act", forced={"d": [2], "e": [0]}, policy="never").values["spent"] == 0
    # optimal: a 1 cannot pass as it stands (1 + e < 3) and is redrawn (5/12 to pass); a 4 after
    # one redraw passes on e = 1 (1/2), a second redraw only on a 6 and e = 1 (1/12): kept
    optimal = rs.roll("act", forced={"d": [1, 4], "e": [0]}, policy="optimal")
    assert optimal.values["spent"] == 1 and optimal.outcome.name == "fail"


@pytest.mark.parametrize("policy", ["always", "optimal"])
def test_sampled_counts_agree_with_the_exact_joint(policy: str) -> None:
    rs = _ruleset(6, "may", 3, 2, 2, 3)
    exact = _joint(rs, policy)
    rng = random.Random(20261202)
    observed: dict[tuple[str, int], int] = {}
    for _ in range(6000):
        r = rs.roll("act", rng, policy=policy)
        k = (r.outcome.name, r.values["spent"])
        observed[k] = observed.get(k, 0) + 1
    assert chi_square_p(observed, exact) > 1e-6
    wrong = {k: p for k, p in exact.items() if k[1] == 0}  # as if nothing were ever redrawn
    wrong = {k: p / sum(wrong.values()) for k, p in wrong.items()}
    with pytest.raises(AssertionError):  # the test can fail
        assert chi_square_p(observed, wrong) > 1e-6


def test_a_later_randomizer_reads_the_count() -> None:
    """`e` has one face fewer for each redraw of `d`. Kept: P(pass) = P(e >= 6 - d) on a d6;
    redrawn once: e is a d5, P(d' + e >= 6) = (1 + 2 + 3 + 4 + 5 + 5) / 30 = 2/3. Optimal
    redraws a 1 (1/3 kept) or a 2 (1/2 kept) and keeps a 3 (2/3 either way: a tie keeps):
    (2/3 + 2/3 + 2/3 + 5/6 + 1 + 1) / 6 = 29/36; always redraws the 3 too, for the same 29/36."""
    rs = engine.load(
        """
rulecraft: 1
name: later
checks:
  act:
    roll:
      d:
        die: 6
        redraw: {may: "d <= 3"}
      e: {die: "1..(6 - redraws(d))"}
    outcomes: [fail, pass]
    objective: {at_least: pass}
    outcome: "'pass' if d + e >= 6 else 'fail'"
"""
    )
    for policy in ("optimal", "always"):
        assert rs.distribution("act", policy=policy).probability("pass") == Fraction(29, 36)
    assert rs.distribution("act", policy="never").probability("pass") == Fraction(2 + 3 + 4 + 5 + 6 + 6, 36)
    assert rs.roll("act", forced={"d": [2, 5], "e": [5]}).outcome.name == "pass"
    with pytest.raises(RulecraftError):  # e is a d5 after one redraw: it has no face 6
        rs.roll("act", forced={"d": [2, 5], "e": [6]})


def test_the_castle_main_gauche_is_counted_only_when_it_redraws() -> None:
    """Average against Average (one bead each from poor 3, average 4, good 2): the first bead
    loses with probability 26/81, and only then is it redrawn."""
    castle = engine.load("castle")
    used = castle.distribution("combat", main_gauche=True).value("main_gauche_used")
    assert {k: Fraction(w, used.total) for k, w in used.weights.items()} == {
        0: Fraction(55, 81),
        1: Fraction(26, 81),
    }
    for inputs, policy in (({"main_gauche": True}, "never"), ({}, "always")):
        none = castle.distribution("combat", policy=policy, **inputs).value("main_gauche_used")
        assert dict(none.weights) == {0: none.total}


def test_a_pool_and_a_draw_are_counted_as_a_die_is() -> None:
    """A pool of two d4 redrawn while its sum is 3 or less (3/16), at most twice."""
    rs = engine.load(
        """
rulecraft: 1
name: pools
bags:
  fate: {chits: {poor: 1, good: 1}}
checks:
  act:
    roll:
      p:
        pool: 2
        die: 4
        redraw: {must: sum(p) <= 3, times: 2}
      b:
        draw: fate
        redraw: {must: "best(b) == 'poor'"}
    let:
      tries: redraws(p) + redraws(b)
    outcomes: [low, high]
    outcome: "'high' if sum(p) >= 4 else 'low'"
"""
    )
    tries = rs.distribution("act").value("tries")
    low = Fraction(3, 16)
    p_counts = {0: 1 - low, 1: low * (1 - low), 2: low * low}
    b_counts = {0: Fraction(1, 2), 1: Fraction(1, 2)}
    want: dict[int, Fraction] = {}
    for i, p in p_counts.items():
        for j, q in b_counts.items():
            want[i + j] = want.get(i + j, Fraction(0)) + p * q
    assert {k: Fraction(w, tries.total) for k, w in tries.weights.items()} == want


def _error(text: str) -> str:
    with pytest.raises(RulecraftError) as caught:
        engine.load(text)
    return str(caught.value)


BASE = """
rulecraft: 1
name: bad
tables:
  twice:
    params: [x]
    value: {table}
checks:
  act:
    roll:
      a: {{die: 6}}
      d:
        die: 6
        redraw: {{may: "{condition}"}}
    let:
      n: {let}
    outcomes: [fail, pass]
    outcome: "'pass' if d + n >= 4 else 'fail'"
"""


@pytest.mark.parametrize(
    ("where", "fields"),
    [
        ("a die without a redraw", {"let": "redraws(a)"}),
        ("a value computed from the die", {"let": "redraws(d + 1)"}),
        ("its own redraw condition", {"condition": "d <= 3 and redraws(d) == 0"}),
        ("a table's parameter", {"table": "redraws(x)"}),
    ],
)
def test_a_count_of_something_that_is_not_redrawn_is_refused(where: str, fields: dict[str, str]) -> None:
    values = {"table": "x", "condition": "d <= 3", "let": "redraws(d)"} | fields
    message = _error(BASE.format(**values))
    assert "RC326" in message and "^" in message, where
    # one error: a die whose own condition is refused is still counted by the value after it
    assert message.count("error RC326") == 1, message
    assert engine.load(BASE.format(table="x", condition="d <= 3", let="redraws(d)"))  # the fix


def test_the_linter_shows_the_count_of_a_roll_that_fails() -> None:
    """A value that divides by zero only after a redraw: the linter's example names the count."""
    rs = engine.load(
        """
rulecraft: 1
name: fails
checks:
  act:
    roll:
      d:
        die: 6
        redraw: {may: "d <= 3"}
    let:
      share: d / (1 - redraws(d))
    outcomes: [bad, good]
    outcome: "'good' if share >= 4 else 'bad'"
"""
    )
    found = [d for d in lint(rs) if d.code == "RC808"]
    assert len(found) == 1 and "redraws(d) = 1" in found[0].message, found


def test_without_a_possible_redraw_the_check_is_still_a_product() -> None:
    """The Castle's combat check counts its beads' redraws; with no Main Gauche (no redraw can be
    made) it is still evaluated as a product of independent draws, each count read as 0."""
    castle = engine.load("castle")
    plain = castle.distribution("combat")
    assert not isinstance(plain.source, Dist)  # the product of the draws' tables, made on demand
    assert isinstance(castle.distribution("combat", main_gauche=True).source, Dist)  # die by die
    assert plain.probability("foe_hits") == Fraction(26, 81)
    assert dict(plain.value("main_gauche_used").weights) == {0: plain.joint.total}


COUNTED_UNTAKEN = """\
rulecraft: 1
name: counted
checks:
  c:
    inputs:
      t: {type: int, min: 0, max: 2, default: 0}
    roll:
      d:
        die: 6
        redraw: {may: d <= 2, times: t}
    let:
      m: d - redraws(d)
    outcomes: [lo, hi]
    outcome: "'hi' if m >= 4 else 'lo'"
"""


@pytest.mark.parametrize("t", [0, 1])
def test_a_count_of_redraws_is_read_at_every_request_of_a_ruleset(t: int) -> None:
    """Found by hunt 13z: with no redraw to offer (t = 0) the dice are a product, and at the
    second request of the same tables the value `m`, which reads `redraws(d)`, was worked out
    once per die without the environment holding the count: a NameError (an HTTP 500). Each
    policy in turn, in one ruleset, gives what a fresh ruleset gives; by hand, at t = 1 a 1 or 2
    is redrawn and then counts one less (hi on a 5 or 6): 1/2 + 1/3 * 1/3 = 11/18."""
    rs = engine.load(COUNTED_UNTAKEN)
    want = {"always": Fraction(11, 18) if t else Fraction(1, 2), "never": Fraction(1, 2)}
    want["optimal"] = want["always"]
    for _ in range(2):
        for policy, p in want.items():
            assert rs.distribution("c", t=t, policy=policy).probability("hi") == p
            assert engine.load(COUNTED_UNTAKEN).distribution("c", t=t, policy=policy).probability("hi") == p
