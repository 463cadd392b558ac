"""Best play's bookkeeping (`markov.BestPlay`) and the cycle collector's pause around a solve.

Best play keeps, per choice, the state its option leads to and where the chain goes from there
for certain (`through`, which the push under `optimal` follows past the choices); the states
being scored are kept apart (reaching one again is a cycle), so a limit or a cycle that stops a
solve must leave none of them behind. The chain's tables are acyclic, so the cycle collector is
paused while they are built (`eval.collector`).
"""

from __future__ import annotations

import gc
import json
import sys
import threading
from collections.abc import Iterator
from fractions import Fraction
from types import FrameType
from typing import Any

import pytest

import engine
from engine.errors import Diagnostic, LimitError
from engine.eval.collector import collector_paused
from engine.eval.dist import Dist
from engine.eval.markov import BestPlay, Node
from engine.eval.rerolls import RerollSolver

# A: choose 'x' (to C) or 'y' (to D); C: one option, to E; D loses, E wins; F: a chance node,
# half to A, half to D. L: a loop, choosing between itself's successor M and an end; M leads back.
CHAIN: dict[str, Node | None] = {
    "A": (["x", "y"], ["C", "D"], (), 0),
    "C": (["only"], ["E"], (), 0),
    "D": None,
    "E": None,
    "F": (None, ["A", "D"], (1, 1), 2),
    "L": (["stay", "leave"], ["M", "D"], (), 0),
    "M": (None, ["L"], (1,), 1),
}
FINAL = {"D": Dist.certain("lose"), "E": Dist.certain("win")}


def _win(d: Dist) -> tuple[Fraction, ...]:
    return (Fraction(d.weights.get("win", 0), d.total),)


def _cycle(state: Any) -> Exception:
    return LimitError([Diagnostic("RC505", f"a cycle through {state}", None)])


def _play(count: Any = lambda n: None, most: int = 0) -> BestPlay[str, str]:
    return BestPlay(CHAIN.__getitem__, FINAL.__getitem__, _win, count, _cycle, most)


def test_a_choice_goes_through_the_choices_it_leads_to() -> None:
    play = _play()
    assert play.scored("F") == (Fraction(1, 2),)
    assert play.move("A") == "x" and play.move("C") == "only"
    assert play.through == {"A": "E", "C": "E"}
    assert play.move("F") is None and "F" not in play.through
    # every state after all it leads to: a push reads `order` backwards
    assert play.order.index("E") < play.order.index("C") < play.order.index("A") < play.order.index("F")


def test_a_cycle_is_found_each_time_it_is_asked_for() -> None:
    play = _play()
    for _ in range(2):  # a state left marked as being scored would be taken for a score
        with pytest.raises(LimitError) as err:
            play.best("L")
        assert err.value.diagnostics[0].code == "RC505"
    assert "L" not in play.scores and "M" not in play.scores
    assert play.scored("A") == (Fraction(1),)  # the rest of the chain is still solved


def test_a_limit_that_stops_a_solve_leaves_no_state_half_scored() -> None:
    def count(n: int) -> None:
        raise LimitError([Diagnostic("RC503", f"more than {n - 1} states", None)])

    play = _play(count, most=1)
    for _ in range(2):
        with pytest.raises(LimitError) as err:
            play.best("F")
        assert err.value.diagnostics[0].code == "RC503"
        assert all(isinstance(v, int) for v in play.scores.values())  # every state kept has a score


def test_a_chain_deeper_than_the_recursion_limit_is_scored() -> None:
    """Best play scored a state by calling itself on each successor not yet scored, so a chain
    longer than Python's recursion limit was a RecursionError (a pool adding a die per six, with
    a cap of 500, from the command line). Here: n chance steps, each ending the chain (a loss)
    or going on, with a choice at the bottom between a win and a loss."""
    n = 5 * sys.getrecursionlimit()
    chain: dict[Any, Node | None] = {i: (None, ["D", i + 1], (1, 1), 2) for i in range(n)}
    chain[n] = (["lose", "win"], ["D", "E"], (), 0)
    chain.update({"D": None, "E": None})
    play: BestPlay[Any, str] = BestPlay(chain.__getitem__, FINAL.__getitem__, _win, lambda k: None, _cycle)
    assert play.scored(0) == (Fraction(1, 2**n),)
    assert play.move(n) == "win" and play.through[n] == "E"
    assert play.order.index(n) < play.order.index(n - 1) < play.order.index(0)
    assert len(play.scores) == n + 3


def test_a_cycle_deep_in_a_long_chain_is_found() -> None:
    n = 3 * sys.getrecursionlimit()
    chain: dict[Any, Node | None] = {i: (None, ["D", i + 1], (1, 1), 2) for i in range(n)}
    chain[n] = (["back", "lose"], [n // 2, "D"], (), 0)
    chain["D"] = None
    play: BestPlay[Any, str] = BestPlay(chain.__getitem__, FINAL.__getitem__, _win, lambda k: None, _cycle)
    with pytest.raises(LimitError) as err:
        play.best(0)
    assert err.value.diagnostics[0].message == f"a cycle through {n // 2}"
    assert not play._busy  # nothing is left marked as being scored


DEEP = """\
rulecraft: 1
name: deep
checks:
  c:
    outcomes: [low, high]
    objective: {at_least: high}
    roll:
      p:
        pool: 1
        die: "1..6"
        cap: 1000
        triggers:
          - {name: six, on: face == 6, may: add}
    outcome:
      - when: "count(p, 5..6) >= 2"
        then: high
      - else: low
"""


@pytest.mark.parametrize("policy", ["optimal", "always"])
def test_a_pool_adding_a_die_per_six_up_to_a_thousand_is_solved_under_best_play(
    cli: Any, tmp_path: Any, policy: str
) -> None:
    """Found by trying deep chains: under `optimal` this was a RecursionError traceback from
    `prob` within the default limits. One die, another added for each six (the player may
    decline; adding never hurts, so best play always adds): high needs the first die a six and
    the added die a 5 or 6, 1/6 · 2/6 = 1/18."""
    (tmp_path / "deep.yaml").write_text(DEEP)
    r = cli("prob", "deep.yaml", "c", "--policy", policy, "--json", cwd=tmp_path)
    assert r.code == 0, r.err
    assert json.loads(r.out)["outcomes"] == {"low": "17/18", "high": "1/18"}


def test_the_collector_is_paused_inside_and_back_as_it_was_after() -> None:
    assert gc.isenabled()
    with collector_paused:
        assert not gc.isenabled()
        with collector_paused:
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block leaves the outer one's pause alone
    assert gc.isenabled()
    with pytest.raises(LookupError), collector_paused:
        raise LookupError("a solve that fails")
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused:
            pass
        assert not gc.isenabled()  # an embedder's own switch is kept
    finally:
        gc.enable()


def test_threads_share_one_pause() -> None:
    inside, leave = threading.Event(), threading.Event()

    def hold() -> None:
        with collector_paused:
            inside.set()
            leave.wait(10)

    other = threading.Thread(target=hold)
    other.start()
    inside.wait(10)
    with collector_paused:
        pass
    assert not gc.isenabled()  # the other thread is still inside
    leave.set()
    other.join()
    assert gc.isenabled()


@pytest.fixture
def eager_collector() -> Iterator[list[set[str]]]:
    """The collector set to run at every allocation, with the functions it runs under recorded."""
    seen: list[set[str]] = []

    def watch(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            names: set[str] = set()
            frame: FrameType | None = sys._getframe(1)
            while frame is not None:
                names.add(frame.f_code.co_name)
                frame = frame.f_back
            seen.append(names)

    before = gc.get_threshold()
    gc.callbacks.append(watch)
    gc.set_threshold(50, 1, 1)
    try:
        yield seen
    finally:
        gc.set_threshold(*before)
        gc.callbacks.remove(watch)


@pytest.mark.parametrize("policy", ["always", "optimal"])
def test_a_reroll_chain_is_solved_with_the_collector_paused(
    eager_collector: list[set[str]], policy: str
) -> None:
    rs = engine.load("chimera", limits=engine.Limits(max_work=10**9))
    d = rs.distribution("skill", dice=3, resolve=2, advantage=1, policy=policy)  # asked nowhere else
    assert d.outcome.total > 0
    solving = [s for s in eager_collector if s & {"ends", "_solved", "absorb", "pushed"}]
    assert eager_collector and not solving  # it ran elsewhere, never while the chain was solved


def _solves_alive() -> int:
    """Best plays and reroll solvers alive, reachable or not (the collector is off)."""
    return sum(isinstance(o, (BestPlay, RerollSolver)) for o in gc.get_objects())


@pytest.mark.parametrize("policy", ["never", "optimal"])
def test_a_requests_solve_is_freed_when_the_request_ends(policy: str) -> None:
    """A solver's best play calls back into it and into its evaluator (reference cycles): the
    request breaks them, so its tables are freed at once, not left for the collector."""
    rs = engine.load("chimera", limits=engine.Limits(max_work=10**9))
    gc.collect()
    before = _solves_alive()
    gc.disable()
    try:
        d = rs.distribution("skill", dice=4, resolve=1, advantage=2, policy=policy)  # asked nowhere else
        assert d.outcome.total > 0
        assert _solves_alive() == before
    finally:
        gc.enable()


def test_a_solve_stopped_by_a_limit_is_freed_too() -> None:
    rs = engine.load("chimera", limits=engine.Limits(max_work=20_000))
    gc.collect()
    before = sum(isinstance(o, BestPlay) for o in gc.get_objects())
    gc.disable()
    try:
        with pytest.raises(LimitError):
            rs.distribution("skill", dice=9, resolve=1, policy="optimal")
        assert sum(isinstance(o, BestPlay) for o in gc.get_objects()) == before
    finally:
        gc.enable()
