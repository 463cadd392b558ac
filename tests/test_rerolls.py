"""Reroll triggers, redraws and policies: forced-dice walks through Chimera's procedure, exact
distributions under each policy checked against an independent simulation of the text, and
the laws (optimal is never worse; samples agree with the exact answer)."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction

import pytest
from _stats import chi_square_p

import engine
from engine.syntax.positions import SourceFile

CHIMERA = engine.load("chimera")
CASTLE = engine.load("castle")


def steps(result: engine.Result) -> list[str]:
    return [s.detail for s in result.trace if s.kind in ("reroll", "choice", "redraw")]


# -- the procedure, step by step, with forced dice --------------------------------------


def test_a_nine_grants_a_reroll_of_a_two() -> None:
    r = CHIMERA.roll("skill", forced={"rolled": [9, 2, 7]}, dice=2)
    assert sorted(r.drawn["rolled"][:2]) == [2, 9]
    [line] = steps(r)
    assert "nines" in line and "showing 9" in line and "2 → 7" in line
    # 9 and 7 stand: a crit pass against a pass, a tie the ruleset's note majority-tie reads as
    # the pass ('the player rolls two dice and gets "9, 8" ... the results should be pass')
    assert r.outcome == "pass"
    assert sorted(r.rolled["rolled"].faces) == [7, 9]


def test_a_new_nine_from_the_reroll_grants_another() -> None:
    r = CHIMERA.roll("skill", forced={"rolled": [9, 2, 3, 9, 5]}, dice=3)
    lines = steps(r)
    assert len(lines) == 2
    assert "2 → 9" in lines[0]
    assert "3 → 5" in lines[1]  # the new 9 grants a reroll of the remaining 0-5 die
    assert sorted(r.rolled["rolled"].faces) == [5, 9, 9]


def test_a_zero_forces_the_reroll_of_a_six() -> None:
    r = CHIMERA.roll("skill", forced={"rolled": [0, 6, 1, 4]}, dice=3)
    [line] = steps(r)
    assert "zeros" in line and "forces" in line and "6 → 4" in line
    assert sorted(r.rolled["rolled"].faces) == [0, 1, 4]


def test_a_zero_hits_the_least_valuable_eligible_die() -> None:
    # 0 with a 5 (half pass) and an 8 (pass): the half pass is rerolled.
    r = CHIMERA.roll("skill", forced={"rolled": [0, 5, 8, 3]}, dice=3)
    assert "5 → 3" in steps(r)[0]


def test_a_single_die_ignores_the_nine_rule() -> None:
    r = CHIMERA.roll("skill", forced={"rolled": [9]}, dice=1)
    assert steps(r) == []
    assert r.outcome == "crit_pass"


def test_policy_never_declines_the_nine() -> None:
    r = CHIMERA.roll("skill", forced={"rolled": [9, 2]}, dice=2, policy="never")
    [line] = steps(r)
    assert "none taken" in line
    assert sorted(r.rolled["rolled"].faces) == [2, 9]


def test_a_nine_may_reroll_a_zero_which_then_forces_nothing() -> None:
    # 9, 0, 6: the 9 rerolls the 0 (worst eligible), so the 6 is never forced.
    r = CHIMERA.roll("skill", forced={"rolled": [9, 0, 6, 7]}, dice=3)
    lines = steps(r)
    assert len(lines) == 1 and "0 → 7" in lines[0]
    assert sorted(r.rolled["rolled"].faces) == [6, 7, 9]


def test_replay_reproduces_every_step() -> None:
    rng = random.Random(8)
    for _ in range(40):
        r = CHIMERA.roll("skill", rng, dice=6, policy="optimal")
        again = CHIMERA.roll("skill", forced=r.forced(), dice=6, policy="optimal")
        assert (again.outcome, again.values, steps(again)) == (r.outcome, r.values, steps(r))


def test_forced_faces_left_over_are_an_error() -> None:
    with pytest.raises(engine.InputError) as err:
        CHIMERA.roll("skill", forced={"rolled": [7, 7, 3]}, dice=2)
    assert "never used" in str(err.value)


# -- exact distributions against an independent simulation of the text -----------------

VOS = ["crit_fail", "fail", "fail", "fail", "half_pass", "half_pass", "pass", "pass", "pass", "crit_pass"]
ORDER = ["half_pass", "fail", "pass", "crit_fail", "crit_pass"]
RANK = {c: i for i, c in enumerate(["crit_fail", "fail", "half_pass", "pass", "crit_pass"])}


def text_distribution(n: int, reroll_nines: bool) -> dict[str, Fraction]:
    """Probability by exact recursion: each branch weighs 1/10 per face rolled."""
    result: Counter[str] = Counter()

    def walk(faces: list[int], nines: list[int], zeros: list[int], p: Fraction) -> None:
        if nines and len(faces) >= 2:
            eligible = sorted(
                (i for i in range(len(faces)) if faces[i] <= 5),
                key=lambda i: (RANK[VOS[faces[i]]], -(i in zeros)),
            )
            chosen = eligible[: len(nines)] if reroll_nines else []
            zeros = [z for z in zeros if z not in chosen]
            if chosen:
                for new in itertools.product(range(10), repeat=len(chosen)):
                    f = faces[:]
                    for i, v in zip(chosen, new):
                        f[i] = v
                    walk(
                        f,
                        [i for i, v in zip(chosen, new) if v == 9],
                        zeros + [i for i, v in zip(chosen, new) if v == 0],
                        p / 10 ** len(chosen),
                    )
                return
        if zeros:
            eligible = sorted(
                (i for i in range(len(faces)) if 4 <= faces[i] <= 8), key=lambda i: RANK[VOS[faces[i]]]
            )
            chosen = eligible[: len(zeros)]
            if chosen:
                for new in itertools.product(range(10), repeat=len(chosen)):
                    f = faces[:]
                    for i, v in zip(chosen, new):
                        f[i] = v
                    walk(
                        f,
                        [i for i, v in zip(chosen, new) if v == 9],
                        [i for i, v in zip(chosen, new) if v == 0],
                        p / 10 ** len(chosen),
                    )
                return
        c = Counter(VOS[f] for f in faces)
        top = max(c.values())
        result[next(x for x in ORDER if c[x] == top)] += p  # type: ignore[assignment]

    for first in itertools.product(range(10), repeat=n):
        walk(
            list(first),
            [i for i, f in enumerate(first) if f == 9],
            [i for i, f in enumerate(first) if f == 0],
            Fraction(1, 10**n),
        )
    return {k: v for k, v in result.items() if v}


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("policy", ["always", "never"])
def test_exact_procedure_matches_the_text(n: int, policy: str) -> None:
    got = {s.name: p for s, p in CHIMERA.distribution("skill", dice=n, policy=policy).table() if p}
    assert got == text_distribution(n, reroll_nines=(policy == "always"))


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_optimal_is_never_worse_on_its_objective(n: int) -> None:
    at_least = {
        p: CHIMERA.distribution("skill", dice=n, policy=p).at_least("pass")
        for p in ("always", "never", "optimal")
    }
    assert at_least["optimal"] >= at_least["always"]
    assert at_least["optimal"] >= at_least["never"]
    for p in ("always", "never", "optimal"):
        d = CHIMERA.distribution("skill", dice=n, policy=p)
        assert sum(q for _, q in d.table()) == 1


@pytest.mark.parametrize("policy", ["always", "never", "optimal"])
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_samples_agree_with_each_policy(policy: str, n: int) -> None:
    exact = {s.name: p for s, p in CHIMERA.distribution("skill", dice=n, policy=policy).table()}
    rng = random.Random(4242 + n)
    observed = Counter(CHIMERA.roll("skill", rng, dice=n, policy=policy).outcome.name for _ in range(3000))
    assert chi_square_p(observed, exact) > 1e-6


def test_ten_dice_full_procedure_is_exact() -> None:
    d = CHIMERA.distribution("skill", dice=10, policy="always")
    assert sum(p for _, p in d.table()) == 1
    assert d.at_least("pass") > CHIMERA.distribution("skill", dice=10, policy="never").at_least("pass")


def test_trait_and_resolve_and_auto() -> None:
    r = CHIMERA.roll("skill", forced={"rolled": [1, 2]}, dice=1, resolve=1, trait=True)
    assert r.outcome == "pass"  # a trait lifts a fail to a pass (note trait)
    r = CHIMERA.roll("skill", forced={"rolled": [9, 9]}, dice=2, trait=True)
    assert r.outcome == "crit_pass"  # a critical pass stays
    assert CHIMERA.roll("skill", dice=3, advantage=3).outcome == "pass"
    assert CHIMERA.roll("skill", dice=0).outcome == "fail" and CHIMERA.roll("skill", dice=0).auto
    d = CHIMERA.distribution("skill", dice=2, trait=True)
    assert d.at_least("pass") == 1


def test_instruction_dice_count() -> None:
    r = CHIMERA.roll("instruction", random.Random(1), proficiency=2)
    assert len(r.drawn["rolled"]) >= 4  # 6 - 2 dice first, then any rerolls
    assert r.values["success"] == (1 if r.outcome >= CHIMERA.checks["instruction"].outcomes["pass"] else 0)


# -- The Castle's redraws --------------------------------------------------------------


def test_main_gauche_optimal_redraws_only_when_it_helps() -> None:
    """Main Gauche is a fight's redraw (castle.yaml note main-gauche): on the combat exchange."""
    foe = {"foe_beads": ["average"]}
    keep = CASTLE.roll("combat", forced={**foe, "beads": ["good"]}, main_gauche=True, policy="optimal")
    assert keep.outcome == "you_hit" and len(keep.drawn["beads"]) == 1
    redraw = CASTLE.roll(
        "combat", forced={**foe, "beads": ["poor", "average"]}, main_gauche=True, policy="optimal"
    )
    assert redraw.outcome == "stand_off" and any(s.kind == "redraw" for s in redraw.trace)
    never = CASTLE.roll("combat", forced={**foe, "beads": ["poor"]}, main_gauche=True, policy="never")
    assert never.outcome == "foe_hits"


def test_main_gauche_exact() -> None:
    # Average against Average: one bead each of 45 (15 poor, 20 average, 10 good). Main Gauche is
    # offered on a losing bead only (castle.yaml note main-gauche), where a fresh bead never does
    # worse, so `always` and `optimal` both redraw exactly the losing beads.
    p = {"poor": Fraction(1, 3), "average": Fraction(4, 9), "good": Fraction(2, 9)}
    rank = {"poor": 0, "average": 1, "good": 2}
    want: dict[str, Fraction] = {"foe_hits": Fraction(0), "stand_off": Fraction(0), "you_hit": Fraction(0)}

    def band(mine: str, theirs: str) -> str:
        return (
            "you_hit"
            if rank[mine] > rank[theirs]
            else "foe_hits"
            if rank[mine] < rank[theirs]
            else "stand_off"
        )

    for theirs, pt in p.items():
        for mine, pm in p.items():
            if band(mine, theirs) == "foe_hits":  # redraw: a fresh bead from the full bag
                for again, pa in p.items():
                    want[band(again, theirs)] += pt * pm * pa
            else:
                want[band(mine, theirs)] += pt * pm
    for policy in ("always", "optimal"):
        d = CASTLE.distribution("combat", main_gauche=True, policy=policy)
        assert {s.name: d.probability(s.name) for s, _ in d.table() if s.name != "riposte_hit"} == want
    assert want == {
        "foe_hits": Fraction(134, 729),
        "stand_off": Fraction(337, 729),
        "you_hit": Fraction(258, 729),
    }
    never = CASTLE.distribution("combat", main_gauche=True, policy="never")
    assert never.probability("you_hit") == p["poor"] * (1 - p["poor"]) + p["average"] * p["good"]


def test_riposte_and_botte() -> None:
    r = CASTLE.roll(
        "combat",
        forced={"foe_beads": ["average"], "beads": ["average"], "riposte_beads": ["good"]},
        riposte=True,
    )
    assert r.outcome == "riposte_hit"
    r = CASTLE.roll(
        "combat",
        forced={"foe_beads": ["average"], "beads": ["average"], "riposte_beads": ["poor"]},
        riposte=True,
    )
    assert r.outcome == "stand_off"  # a worse riposte changes nothing
    r = CASTLE.roll("combat", forced={"foe_beads": ["good"], "beads": ["poor"]})
    assert r.outcome == "foe_hits" and not r.drawn.get("riposte_beads")
    botte = CASTLE.distribution("wound", weapon="knife", botte_di_serge=True)
    plain_zwei = CASTLE.distribution("wound", weapon="zweihander")
    assert botte.table() == plain_zwei.table()


# -- general constructs: explode with a cap, reroll-once, a cycle solved exactly -------

EXPLODE = """
rulecraft: 1
name: explode
checks:
  c:
    roll:
      dice:
        pool: 1
        die: 6
        triggers:
          - {on: face == 6, must: add}
        cap: 3
    let:
      total: sum(dice)
    outcomes: [low, high]
    outcome: "'high' if total >= 10 else 'low'"
"""


def test_exploding_die_with_a_cap_reports_it() -> None:
    rs = engine.load_source(SourceFile("explode.yaml", EXPLODE))
    d = rs.distribution("c")
    # Totals: 1-5 (5/6); 6+1..6+5 (5/36); 12+1..12+5 (5/216); 18+1..5 (5/1296); 18+6 capped (1/1296).
    assert d.capped == Fraction(1, 1296)
    assert d.value("total").probability(24) == Fraction(1, 1296)
    # High needs a 6 first, then 4, 5 (totals 10, 11) or another 6 (at least 13): 3 in 36.
    assert d.probability("high") == Fraction(3, 36)
    r = rs.roll("c", forced={"dice": [6, 6, 6, 6]})
    assert any("cap of 3" in s.detail for s in r.trace)


def test_exploding_pool_without_a_cap_is_solved_to_its_tail() -> None:
    """Issue 12: an explosion needs no cap. The exact solver follows it until at most 1e-15 of
    the probability is left (reported as `truncated`, not `capped`); sampling rolls on."""
    rs = engine.load_source(SourceFile("x.yaml", EXPLODE.replace("        cap: 3\n", "")))
    d = rs.distribution("c")
    assert d.capped == 0 and 0 < d.truncated <= Fraction(1, 10**15)
    assert d.probability("high") == Fraction(3, 36)  # a 6, then 4 or more: the tail is all high
    total = d.value("total")
    for k in range(8):  # k sixes, then 1..5: each such total has probability (1/6)^(k+1)
        for f in range(1, 6):
            assert total.probability(6 * k + f) == Fraction(1, 6 ** (k + 1))
    r = rs.roll("c", forced={"dice": [6] * 40 + [2]})  # far past where the exact solver stopped
    assert r.values["total"] == 242
    with pytest.raises(engine.LimitError) as err:
        engine.load_source(
            SourceFile("x.yaml", EXPLODE.replace("        cap: 3\n", "")), limits=engine.Limits(max_rerolls=5)
        ).roll("c", forced={"dice": [6] * 7 + [2]})
    assert err.value.diagnostics[0].code == "RC503"


CUT = """
rulecraft: 1
name: cut
checks:
  c:
    roll:
      d:
        pool: 2
        die: 6
        cap: 1
        triggers:
          - {name: sixes, on: face == 6, may: reroll, per_die: 2}
          - {name: ones, on: face == 1, must: reroll}
    outcomes: [a, b]
    outcome: "'b' if count(d, 1) == 0 else 'a'"
"""


def test_a_grant_the_cap_cuts_short_stops_the_procedure_only_when_its_dice_reach_the_cap() -> None:
    """docs/language.md, the procedure: "2. If the pool has a `cap` and that many dice have been
    rerolled or added, stop." and "4. ... The step grants `per_die` × that many rerolls ..., cut
    to what the cap still allows." A 6 asks for 2 rerolls under `cap: 1`; declined, it rerolls
    nothing, so the 1 beside it is still rerolled. (Until 2026-12-02 a cut grant ended the
    procedure and counted as capped whatever it rolled: 95/108 and 11/27 under `never`.)

    Under `never`, by the first roll: no 1 (25/36) is b; two 1s (1/36) reroll one of them (the
    grant of 2 cut to 1) and the other stays, a; a 1 beside a 2-5 (8/36) or beside a declined 6
    (2/36) is rerolled, b unless it shows 1 again (5/6). P(b) = 25/36 + 10/36 × 5/6 = 25/27.
    Capped: the one die rerolled reaches the cap, and the procedure was cut short when that
    die shows 1 or 6 and a step waits that could act: under `optimal` both, (1 + 8 + 2)/36 ×
    2/6 = 11/108 (best play might take the 6's reroll); under `never` only the 1's `must`, since
    the 6's `may` is declined: (1 + 8 + 2)/36 × 1/6 = 11/216 (hunt 13n: 11/108 counted a step the
    policy would not take). `optimal` declines too: rerolling a 6 spends the cap, so a 1 beside
    it would stay, and the new die could only add a 1 (on a tie, the fewest dice). Under
    `always` the 6 rerolls itself and the cap is reached, as before."""
    rs = engine.load_source(SourceFile("cut.yaml", CUT))
    for policy, capped in (("never", Fraction(11, 216)), ("optimal", Fraction(11, 108))):
        d = rs.distribution("c", policy=policy)
        assert d.probability("b") == Fraction(25, 27) and d.capped == capped, policy
    r = rs.roll("c", forced={"d": [6, 1, 3]}, policy="never")
    assert r.outcome == "b" and sorted(r.rolled["d"].items) == [3, 6]
    assert [s.kind for s in r.trace if s.kind in ("choice", "reroll")] == ["choice", "reroll"]
    always = rs.distribution("c", policy="always")
    assert always.probability("b") == Fraction(181, 216)


def test_a_cut_grant_counts_as_capped_only_when_a_step_is_still_waiting() -> None:
    """docs/language.md: "two 6s under `cap: 1` add one die instead of two, and if that die is
    not a 6 the procedure counts as ended by its rules." 2d6 exploding under `cap: 1`: one 6
    (10/36) adds a die that is a 6 with 1/6; two 6s (1/36) add one die, a 6 with 1/6. Capped:
    11/36 × 1/6 = 11/216 (2/27 while a cut grant counted whatever it rolled)."""
    text = EXPLODE.replace("pool: 1", "pool: 2").replace("cap: 3", "cap: 1")
    assert "pool: 2" in text and "cap: 1" in text
    d = engine.load_source(SourceFile("two.yaml", text)).distribution("c")
    assert d.capped == Fraction(11, 216)


CYCLE = """
rulecraft: 1
name: cycle
checks:
  c:
    roll:
      d:
        pool: 2
        die: 3
        triggers:
          - {on: face == 1, must: reroll, target: face <= 2}
    outcomes: [no, yes]
    outcome: "'yes' if count(d, 3) >= 1 else 'no'"
"""


def test_a_reroll_chain_that_loops_is_solved_exactly() -> None:
    """A 1 forces a reroll of a die showing 1 or 2 (itself included): states can recur."""
    rs = engine.load_source(SourceFile("cycle.yaml", CYCLE))
    d = rs.distribution("c")
    assert sum(p for _, p in d.table()) == 1
    rng = random.Random(3)
    observed = Counter(rs.roll("c", rng).outcome.name for _ in range(4000))
    assert chi_square_p(observed, {s.name: p for s, p in d.table()}) > 1e-6


# -- rule 5: dice that read the same but play different parts go by face ------------------

BY_FACE = """\
rulecraft: 1
name: by_face
scales:
  r: [bad, good]
checks:
  c:
    roll:
      p:
        pool: 3
        die: 6
        cap: 3
        each: "'bad' if face == 1 else 'good'"
        triggers:
          - {name: curse, on: face == 1, must: reroll, target: "face in [2, 3, 4]", repeat: false}
          - {name: bonus, on: face == 3, must: add, repeat: false}
    outcomes: [lo, hi]
    outcome: "'hi' if count(p, 'good') >= 3 else 'lo'"
"""
"""Faces 2 to 6 read alike; 2 and 4 play the same parts (hit by the curse), 3 others (hit by it,
and setting off the bonus), 5 and 6 others again."""


def _by_face_reference() -> dict[str, Fraction]:
    """BY_FACE's procedure written from docs/language.md's rules 1-7, not from the engine: every
    die a (face, steps held unused) pair; a curse rerolls the eligible die lowest by reading, then
    by face, then holding unused steps; a rerolled or added die holds what its new face sets off
    but the step that rolled it (`repeat: false`); at most 3 dice rerolled or added."""

    def holds(face: int, by: str | None) -> frozenset[str]:
        held = {"curse"} if face == 1 else {"bonus"} if face == 3 else set()
        return frozenset(held - {by} if by else held)

    out: dict[str, Fraction] = {"lo": Fraction(0), "hi": Fraction(0)}

    def run(dice: list[tuple[int, frozenset[str]]], used: int, p: Fraction) -> None:
        step = next((s for s in ("curse", "bonus") if any(s in h for _, h in dice)), None)
        if used == 3 or step is None:
            good = sum(face != 1 for face, _ in dice)
            out["hi" if good >= 3 else "lo"] += p
            return
        holders = [i for i, (_, h) in enumerate(dice) if step in h]
        dice = [(f, h - {step}) if i in holders else (f, h) for i, (f, h) in enumerate(dice)]
        grant = min(len(holders), 3 - used)
        if step == "bonus":
            for faces in itertools.product(range(1, 7), repeat=grant):
                run(dice + [(f, holds(f, "bonus")) for f in faces], used + grant, p / 6**grant)
            return
        eligible = sorted(
            (i for i, (f, _) in enumerate(dice) if f in (2, 3, 4)), key=lambda i: (dice[i][0], not dice[i][1])
        )[:grant]
        if not eligible:
            run(dice, used, p)
            return
        for faces in itertools.product(range(1, 7), repeat=len(eligible)):
            new = list(dice)
            for i, f in zip(eligible, faces):
                new[i] = (f, holds(f, "curse"))
            run(new, used + len(eligible), p / 6 ** len(eligible))

    for first in itertools.product(range(1, 7), repeat=3):
        run([(f, holds(f, None)) for f in first], 0, Fraction(1, 216))
    return out


def test_dice_that_read_alike_but_play_other_parts_are_rerolled_by_face() -> None:
    """Found by hunt 13z: faces 2 and 4 were one kind, taken at the kind's first face, so from 1,
    3, 4 the curse rerolled the 4 before the 3 (whose bonus then added a die); rule 5 takes the 3.
    The exact distribution (and the cap's share) matches the rules written out by hand."""
    rs = engine.load(BY_FACE)
    r = rs.roll("c", forced={"p": [1, 3, 4, 5]})
    assert r.rolled["p"].faces == (1, 5, 4)  # the 3 went, its bonus with it
    d = rs.distribution("c")
    assert {o: d.probability(o) for o in ("lo", "hi")} == _by_face_reference()
    assert d.probability("lo") == Fraction(5647, 15552)


def test_an_optimal_tie_among_as_many_dice_takes_the_later_face() -> None:
    """Found by hunt 13z: the docs said only "on a tie, the fewest dice". With a 1 granting one
    reroll of a 2 or a 3 and only a 6 counting (at least o2), rerolling either ties (1/6); the
    option listed first takes the face listed later on the die, the 3, as docs/language.md says."""
    rs = engine.load(
        "rulecraft: 1\nname: tie\nchecks:\n  c:\n    roll:\n      p:\n        pool: 3\n        die: 6\n"
        '        triggers:\n          - {name: luck, on: face == 1, may: reroll, target: "face in 2..3", '
        "repeat: false}\n    outcomes: [o0, o1, o2]\n    objective: {at_least: o2}\n"
        "    outcome: \"'o2' if count(p, 6) >= 1 else 'o1' if sum(p) >= 8 else 'o0'\"\n"
    )
    r = rs.roll("c", forced={"p": [1, 2, 3, 5]}, policy="optimal")
    assert sorted(r.rolled["p"].items) == [1, 2, 5]


def test_an_optimal_tie_goes_the_same_way_where_the_pool_is_read_only_by_counts() -> None:
    """Found by hunt 13zb: a check reading its pool only through `count(...)` merges the kinds it
    counts alike, and the merged ones were listed by value, so a tie went to the less valuable
    face; adding `and sum(p) > 0` (which reads the pool whole) changed the exact numbers. With a
    d6 listed 6 to 1, a 1 grants a reroll of a 2 or a 3: rerolling either ties on P(at least o1);
    the 2, listed later, goes, merged or not. By hand, from 1, 2, 3 that keeps the 3 for o2."""
    body = (
        "    objective: {{at_least: o1}}\n    roll:\n      p:\n        pool: 3\n"
        "        die: [6, 5, 4, 3, 2, 1]\n        triggers:\n"
        "          - {{name: t1, on: face == 1, may: reroll, target: 'face in [2, 3]', repeat: false}}\n"
        "    outcomes: [o0, o1, o2]\n"
        "    outcome: \"'o2' if count(p, 3..6) >= 2 and count(p, 4..6) >= 1{extra} else 'o1' if "
        "count(p, 4..6) >= 1 else 'o0'\"\n"
    )
    rs = engine.load(
        "rulecraft: 1\nname: tie\nchecks:\n  cnt:\n"
        + body.format(extra="")
        + "  whole:\n"
        + body.format(extra=" and sum(p) > 0")
    )
    for check in ("cnt", "whole"):
        d = rs.distribution(check, policy="optimal")
        assert [d.probability(o) for o in ("o0", "o1", "o2")] == [
            Fraction(1, 12),
            Fraction(3, 16),
            Fraction(35, 48),
        ], check
        r = rs.roll(check, forced={"p": [1, 2, 3, 4]}, policy="optimal")
        assert sorted(r.rolled["p"].items) == [1, 3, 4], check
