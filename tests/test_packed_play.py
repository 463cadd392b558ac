"""Best play on a reroll chain of packed codes (`engine.eval.packed`, issue 13) against the one
it stands in for, `markov.BestPlay` asking the solver for each node (`RerollSolver._node`).

`PackedPlay` reads each node off its code in place and scores a node where its score is first
read, by recursion down to `DEEP` levels. It must not be told apart from `BestPlay`: the same
scores, the nodes scored in the same order (the push reads that order), the same choices and the
same work charged; a chain that returns to a state is refused alike (RC505), and a solve stopped
part-way leaves no score half made.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_procedure_quick import pools

import engine
from engine.api import Limits
from engine.eval import packed
from engine.eval.collector import collector_paused
from engine.eval.dist import Dist
from engine.eval.markov import BestPlay
from engine.eval.rerolls import RerollSolver
from engine.model.values import Multi
from engine.runtime.procedure import Option, Procedure
from engine.runtime.work import SCORED_END, Work, meter, working


def _solver(text: str, dice: int, most: int = 200_000) -> tuple[RerollSolver, Procedure]:
    """A generated pool's solver under `optimal` (for at most `dice` dice, `most` states),
    outside any check: its outcome reads how many dice it ends with."""
    check = engine.load(text).model.checks["c"]
    members = check.outcomes.members

    def outcome_of(value: Any) -> Dist:
        items = value.items if isinstance(value, Multi) else (value,)
        return Dist.certain(members[0] if len(items) > 3 else members[1])

    proc = Procedure(check.roll[0], {})
    return RerollSolver(proc, "optimal", most, outcome_of, check.objective, members, dice), proc


def _played(solver: RerollSolver, play: BestPlay[int, Option], codes: list[int]) -> Any:
    """Best play from each of `codes` in turn: each score, what the play kept (its order, its
    choices, where they lead, its scores over its scale) and the work charged; or the refusal."""
    with working(Work(10**12)) as work:
        solver.work = meter()
        try:
            scores = [play.scored(code) for code in codes]
        except engine.LimitError as error:
            # nothing is left half scored, nor marked as being scored
            assert None not in play.scores.values() and not play._busy
            return "refused", [d.code for d in error.diagnostics], work.used
    kept = {code: play.scored(code) for code in play.order}
    moves = {code: play.move(code) for code in play.order}
    # the times the scale grew too: a score read before a growth and not read again is off
    return scores, play.order, kept, moves, dict(play.through), work.used, play._rescaled


def _both(solver: RerollSolver, codes: list[int]) -> tuple[Any, Any]:
    packed_play = solver.play
    generic: BestPlay[int, Option] = BestPlay(
        packed_play.node,
        packed_play.final,
        packed_play.score,
        packed_play.count,
        packed_play.on_cycle,
        200_000,
    )
    return _played(solver, packed_play, codes), _played(solver, generic, codes)


def _firsts(solver: RerollSolver, proc: Procedure, n: int) -> list[int]:
    return sorted(solver.packing.start(counts) for counts, _ in proc.fresh(n))


RETURNING = """\
rulecraft: 1
name: quick
scales:
  mark: [lo, hi]
checks:
  c:
    roll:
      p:
        pool: 1
        die: 6
        triggers:
          - {name: t0, on: 'face in [1, 2]', may: reroll, per_die: 1, repeat: true, pick: lowest}
          - {name: t1, on: 'face in [2, 3]', may: reroll, per_die: 1, repeat: false, pick: lowest}
    outcomes: [a, b]
    outcome: "'a' if count(p) > 3 else 'b'"
"""
"""A chain that returns to a state through its first option (found by hypothesis in a full run):
a state being scored was kept as None and read as a score, so its other options were scored
before the refusal (224 units against `BestPlay`'s 48); now it is refused where it is read. The
two ends scored before it are charged as ends (`SCORED_END` each, since they were a unit or none)."""


def test_a_chain_that_returns_to_a_state_is_refused_where_it_returns() -> None:
    solver, proc = _solver(RETURNING, 7)
    by_packed, by_generic = _both(solver, _firsts(solver, proc, 1))
    assert by_packed == by_generic == ("refused", ["RC505"], 48 + 2 * SCORED_END)


TOO_MANY = """\
rulecraft: 1
name: quick
scales:
  mark: [lo, hi]
checks:
  c:
    roll:
      p:
        pool: 6
        die: 6
        each: "'hi' if face >= 4 else 'lo'"
        cap: 4
        triggers:
          - {name: t0, on: 'face in [1, 2, 3]', may: reroll, per_die: 2, repeat: true, pick: lowest, take: any, first_roll_only: true}
          - {name: t1, on: 'face in [1, 2, 4]', may: reroll, target: 'face in [1, 2, 3]', per_die: 2, repeat: true, pick: lowest, take: all}
          - {name: t2, on: 'face in [1, 4, 5]', may: add, per_die: 2, repeat: true, pick: highest}
    outcomes: [a, b]
    outcome: "'a' if count(p) > 3 else 'b'"
"""  # noqa: E501
"""A generated pool whose chain has more states than the test's bound (found by hypothesis on
2026-12-06): both plays refuse it with RC503, the bound on states, not RC505, a cycle."""


@settings(max_examples=150, deadline=None)
@given(pools(), st.booleans())
@example((TOO_MANY, 6), True)
def test_generated_pools_are_played_alike(spec: tuple[str, int], whole: bool) -> None:
    """Pools of d6 with one to three triggers of every form, an objective of one part (its
    scores whole numbers) or of two (tuples): the same best play from every first roll, or the
    same refusal where the chain returns to a state, or has more states than the bound (then the
    work up to it may differ: the packed play may go round once more before it meets a state it
    is scoring, or score a flight's other landings first)."""
    text, n = spec
    if whole:
        text = text.replace("    outcomes: [a, b]", "    objective: {at_least: b}\n    outcomes: [a, b]")
    solver, proc = _solver(text, n + 6)
    assert solver.whole_scores == whole
    by_packed, by_generic = _both(solver, _firsts(solver, proc, n))
    if by_generic[0] == "refused":
        # refused alike, and about as soon (the work charged): a state being scored is marked, so
        # the cycle is seen where it is first read again (unmarked, it went round until `DEEP`
        # levels); a flight's other landings may be scored first, which `BestPlay` leaves
        assert by_packed[1] == by_generic[1] and by_generic[1] in (["RC505"], ["RC503"])
        assert by_packed[2] <= 4 * by_generic[2] + 24, (by_packed, by_generic)
    else:
        assert by_packed == by_generic


@pytest.mark.parametrize("deep", [packed.DEEP, 3, 0])
def test_chimeras_procedure_is_played_alike_at_any_depth_of_recursion(
    deep: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chimera's skill check, 6 dice at double advantage: the same best play whether the packed
    play scores it by recursion throughout or hands each node past a few levels (or every node)
    to `BestPlay`'s own loop, as it does past `DEEP`. (Every end's outcome is asked once first, so
    neither play is charged for working one out.)"""
    rs = engine.load("chimera", limits=Limits(max_work=10**12, max_states=10**7))
    solvers: list[RerollSolver] = []
    made = RerollSolver.__init__

    def kept(self: RerollSolver, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        solvers.append(self)

    monkeypatch.setattr(RerollSolver, "__init__", kept)
    monkeypatch.setattr(RerollSolver, "close", lambda self: None)  # its play is asked again here
    rs.distribution("skill", dice=6, advantage=2, policy="optimal")
    monkeypatch.setattr(packed, "DEEP", deep)
    (solver,) = solvers
    firsts = _firsts(solver, solver.proc, 6)
    done = solver.play
    _played(solver, done, firsts)  # every end's outcome asked once (some only the push had asked)
    solver.play = packed.PackedPlay(
        solver, done.node, done.final, done.score, done.count, done.on_cycle, 10**7
    )
    by_packed, by_generic = _both(solver, firsts)
    assert by_packed == by_generic
    assert len(by_packed[1]) > 900  # nodes scored: a chain far deeper than a few levels


THREES = """
rulecraft: 1
name: threes
checks:
  c:
    roll:
      d:
        pool: 4
        die: 3
        triggers:
          - {on: face == 3, may: reroll, target: face <= 2, repeat: false}
    objective: {at_least: yes}
    outcomes: [no, yes]
    outcome: "'yes' if count(d, 3) >= 2 else 'no'"
"""


def test_the_scores_are_a_plain_mapping_outside_a_solve() -> None:
    solver, proc = _solver(THREES, 4)
    code = _firsts(solver, proc, 4)[-1]
    with pytest.raises(KeyError):
        solver.play.scores[code]  # type: ignore[index]
    with working(Work(10**12)):
        solver.work = meter()
        solver.play.scored(code)
    assert code in solver.play.scores and None not in solver.play.scores.values() and not solver.play._busy


def test_a_solve_stopped_by_a_limit_leaves_no_score_half_made() -> None:
    """The state bound stops best play part-way, among the states it is scoring: they are not
    kept as scored, nor as being scored (`BestPlay._busy`), for a later ask, and a later ask
    with room scores them."""
    solver, proc = _solver(THREES, 4, most=3)
    firsts = _firsts(solver, proc, 4)
    with working(Work(10**12)):
        solver.work = meter()
        with pytest.raises(engine.LimitError) as error:
            for code in firsts:
                solver.play.scored(code)
    assert error.value.diagnostics[0].code == "RC503"
    assert None not in solver.play.scores.values() and not solver.play._busy
    solver.play.most = 10**6
    roomy, _ = _solver(THREES, 4)
    with working(Work(10**12)):
        solver.work = roomy.work = meter()
        assert [solver.play.scored(c) for c in firsts] == [roomy.play.scored(c) for c in firsts]


def test_a_score_from_stopped_by_a_limit_leaves_no_state_marked() -> None:
    """`score_from` (what the solver's walk calls, `rerolls.py`) stopped by the state bound
    clears the states it marked as being scored, so a later ask does not read one of them as a
    chain returning to it (RC505) and scores them."""
    solver, proc = _solver(THREES, 4, most=3)
    firsts = _firsts(solver, proc, 4)
    with working(Work(10**12)), collector_paused:
        solver.work = meter()
        with pytest.raises(engine.LimitError):
            for code in firsts:
                if code not in solver.play.scores:
                    solver.play.score_from(code, packed.room())
    assert not solver.play._busy
    solver.play.most = 10**6
    roomy, _ = _solver(THREES, 4)
    with working(Work(10**12)), collector_paused:
        solver.work = roomy.work = meter()
        for code in firsts:
            if code not in solver.play.scores:
                solver.play.score_from(code, packed.room())
        assert [solver.play.scored(c) for c in firsts] == [roomy.play.scored(c) for c in firsts]


NESTED = """
rulecraft: 1
name: nested
checks:
  c:
    roll:
{pools}    objective: {{at_least: yes}}
    outcomes: [no, yes]
    outcome: "'yes' if {total} >= 20 else 'no'"
"""


def _nested(caps: int) -> str:
    pools = "".join(
        f"      d{i}:\n        pool: 1\n        die: 2\n        cap: 110\n        triggers:\n"
        "          - {on: face == 2, may: add}\n"
        for i in range(caps)
    )
    return NESTED.format(pools=pools, total=" + ".join(f"sum(d{i})" for i in range(caps)))


def _from_depth(frames: int, ask: Any) -> Any:
    return ask() if frames == 0 else _from_depth(frames - 1, ask)


@pytest.mark.parametrize(("pools", "frames"), [(2, 300), (2, 600)])
def test_solves_nested_in_each_others_ends_share_the_stack(pools: int, frames: int) -> None:
    """Each pool's chain is 110 nodes deep, and under `optimal` an end of one pool is scored by
    solving the next: a solve may recurse only as deep as the stack has room for where it
    starts (`packed.room`), so two such pools asked from 300 or 600 frames down are answered, not
    a `RecursionError` (each solve had taken its own `DEEP` levels, some 400 units of the
    recursion limit; three pools failed from the top, but take 10-17 s here).

    By hand: adding a die only raises the sum, so best play adds on every 2, and a pool shows k
    2s and then a 1 with chance 2^-(k+1), a sum of 2k + 1 (a pool capped at 110 dice is past 20
    whatever). The pools' 2s together number m with chance C(m + pools - 1, pools - 1) /
    2^(m + pools), and the total 2m + pools reaches 20 from m = 9 on (2 pools: 11/1024)."""
    rs = engine.load(_nested(pools), limits=Limits(max_work=10**10, max_states=10**7))
    dist = _from_depth(frames, lambda: rs.distribution("c", policy="optimal"))
    short = sum(Fraction(comb(m + pools - 1, pools - 1), 2 ** (m + pools)) for m in range(9))
    assert dist.probability("yes") == 1 - short
