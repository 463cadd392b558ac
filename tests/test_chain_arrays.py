"""The numpy chain solver (`engine.eval.chainarrays`, issue 13) against the node-by-node one.

A chain of many first rolls is solved whole with numpy arrays when numpy is installed; a smaller
one, or one the arrays cannot hold, node by node. The two must not be told apart: the same exact
ends, the same states counted (a `Distribution` compares them) and the same work charged, so a
request fits the work budget or is refused alike with and without numpy. Here both are run on
the same chains, the arrays forced (`ARRAYS_FROM` 0) and kept out (`ARRAYS_FROM` above any chain).

One known difference (a review, 2026-12-02): under `optimal`, while a chain is solved, the
arrays count every choice best play meets where the node-by-node walk does not count again one
it meets after best play scored it (which depends on its order), so a `max_states` that the walk
just fits can be refused with numpy: a 4d4 chain forced onto the arrays was refused at 82 to 87
states and admitted node by node (59 states counted by both). None was found at the shipped
`ARRAYS_FROM`, in Chimera's skill check or in seven larger variants.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_procedure_quick import pools

import engine
from engine.api import Limits
from engine.eval import chainarrays, packed, rerolls
from engine.eval.dist import Dist
from engine.eval.markov import BestPlay
from engine.eval.rerolls import RerollSolver
from engine.model.values import Multi
from engine.runtime.procedure import Procedure
from engine.runtime.work import SCORED_END, TRANSITION, Work, meter, working
from engine.syntax.positions import SourceFile

NEVER = 10**9
BIG = Limits(max_work=10**12, max_states=10**7)


@contextmanager
def arrays_from(first_rolls: int) -> Iterator[None]:
    """Solve chains of at least this many first rolls with arrays, for the block."""
    kept = rerolls.ARRAYS_FROM
    rerolls.ARRAYS_FROM = first_rolls
    try:
        yield
    finally:
        rerolls.ARRAYS_FROM = kept


@contextmanager
def solved_ends() -> Iterator[list[int]]:
    """The work each `RerollSolver.ends` call charges in the block, in order."""
    charged: list[int] = []
    ends = RerollSolver.ends

    def counted(self: RerollSolver, first: Any) -> Dist:
        work = meter()
        before = work.used
        try:
            return ends(self, first)
        finally:
            charged.append(work.used - before)

    RerollSolver.ends = counted  # type: ignore[method-assign]
    try:
        yield charged
    finally:
        RerollSolver.ends = ends  # type: ignore[method-assign]


def both(ask: Any) -> tuple[tuple[Any, list[int]], tuple[Any, list[int]]]:
    """`ask()` node by node, then with arrays: each answer with the work its solves charged."""
    out = []
    for first_rolls in (NEVER, 0):
        with arrays_from(first_rolls), solved_ends() as charged:
            out.append((ask(), charged))
    return out[0], out[1]


@pytest.mark.parametrize("policy", ["always", "never", "optimal"])
@pytest.mark.parametrize(
    "inputs",
    [
        {"dice": 2},
        {"dice": 3, "resolve": 3},
        {"dice": 6, "advantage": 2},
        {"dice": 7, "disadvantage": 1},
        {"dice": 8, "disadvantage": 2},
        {"dice": 9, "advantage": 1, "resolve": 1},
    ],
)
def test_chimeras_procedure_is_told_apart_by_nothing(inputs: dict[str, int], policy: str) -> None:
    """The skill check's distribution (its states counted too) and the work of each solve."""

    def ask() -> engine.Distribution:
        return engine.load("chimera", limits=BIG).distribution("skill", policy=policy, **inputs)

    (nodes, by_node), (arrays, by_arrays) = both(ask)
    assert arrays == nodes
    assert by_arrays == by_node and by_node


def _solver(text: str, policy: str, dice: int = 6) -> tuple[RerollSolver, Procedure]:
    """A generated pool's solver, outside any check (for at most `dice` dice): its outcome reads
    how many dice it ends with."""
    rs = engine.load(text)
    check = rs.model.checks["c"]
    members = check.outcomes.members

    def outcome_of(value: Any) -> Dist:
        items = value.items if isinstance(value, Multi) else (value,)
        return Dist.certain(members[0] if len(items) > 3 else members[1])

    proc = Procedure(check.roll[0], {})
    return RerollSolver(proc, policy, 200_000, outcome_of, check.objective, members, dice), proc


class _Loop(Exception):
    """The arrays found a loop and handed the chain on (`test_a_chain_that_loops_…` covers that)."""


def _uncapped(spec: tuple[str, int], once: bool) -> tuple[str, int]:
    """A generated pool as the arrays hold it: no cap, and so rerolls only (a die added needs one);
    `once`: no trigger set off again by a rerolled die, so the chain cannot loop."""
    text, n = spec
    lines = [line for line in text.splitlines(keepends=True) if not line.strip().startswith("cap:")]
    text = "".join(lines).replace(": add,", ": reroll,")
    return (text.replace("repeat: true", "repeat: false") if once else text), n


@settings(max_examples=150, deadline=None)
@given(st.builds(_uncapped, pools(), st.booleans()))
def test_generated_pools_are_told_apart_by_nothing(spec: tuple[str, int]) -> None:
    """Pools of d6 with one to three triggers of every form but a die added (which needs a cap),
    under each policy: the same ends (or the same refusal) and the same work. A pool whose chain
    can return to a state is left out here (the arrays hand it on before solving it)."""
    text, n = spec
    solve = chainarrays.solve

    def solved(*args: Any) -> Dist:
        whole = solve(*args)
        if whole is None:
            raise _Loop
        return whole

    for policy in ("always", "never", "optimal"):
        answers = []
        for first_rolls in (0, NEVER):
            solver, proc = _solver(text, policy)
            if not chainarrays.eligible(solver):
                return
            with arrays_from(first_rolls), working(Work(10**12)) as work:
                chainarrays.solve = solved  # type: ignore[assignment]
                try:
                    answer: object = solver.ends(proc.fresh(n)).fractions()
                except _Loop:
                    break
                except engine.LimitError as error:  # best play on a loop: refused alike
                    answer = [d.code for d in error.diagnostics]
                finally:
                    chainarrays.solve = solve
            answers.append((answer, work.used))
        else:
            assert answers[0] == answers[1], (text, policy)


LOOP = """
rulecraft: 1
name: loop
checks:
  c:
    roll:
      d:
        pool: 4
        die: 3
        triggers:
          - {on: face == 1, must: reroll, target: face <= 2}
    outcomes: [no, yes]
    outcome: "'yes' if count(d, 3) >= 2 else 'no'"
"""


def test_a_chain_that_loops_is_handed_on_with_its_work_taken_back() -> None:
    """A 1 rerolls a 1 or a 2, itself included, so a state can come back: the arrays cannot order
    the chain, and the node-by-node solver solves it (as a linear system) and charges it once."""
    solver, proc = _solver(LOOP, "always")
    starts = Dist.of((solver.packing.start(c), w) for c, w in proc.fresh(4))
    assert chainarrays.eligible(solver)
    with working(Work(10**12)) as work:
        assert chainarrays.solve(solver, starts, lambda code: code) is None
    assert work.used == 0

    def ask() -> engine.Distribution:
        return engine.load_source(SourceFile("loop.yaml", LOOP)).distribution("c")

    (nodes, by_node), (arrays, by_arrays) = both(ask)
    assert arrays == nodes and by_arrays == by_node

    def refused() -> str:  # a choice on a loop has no last step to play best from: refused alike
        choosing = LOOP.replace("must: reroll", "may: reroll")
        with pytest.raises(engine.LimitError) as error:
            engine.load_source(SourceFile("choosing.yaml", choosing)).distribution("c", policy="optimal")
        return error.value.diagnostics[0].code

    (nodes, by_node), (arrays, by_arrays) = both(refused)
    assert arrays == nodes == "RC505" and by_arrays == by_node


MANY_ENDS = """
rulecraft: 1
name: many-ends
checks:
  c:
    roll:
      p: {pool: 6, die: 6, each: "face // 2",
          triggers: [{name: r, on: "face <= 2", may: reroll, repeat: false}]}
    let:
      v: "sum(highest(p, 3))"
    outcomes: [o0, o1, o2]
    objective: mean_rank
    outcome: "'o2' if v >= 7 else 'o1' if v >= 5 else 'o0'"
"""
"""A chain best play scores many ends of (the dice a reroll of 1s and 2s can leave, read in four
kinds), which the arrays can hold (no cap, and fields that fit their 64 bits)."""

ADDING = """
rulecraft: 1
name: adding
checks:
  c:
    roll:
      p: {pool: 2, die: 5, cap: 4, each: "face // 2", triggers: [{name: s0, on: "face in [1, 2, 4, 5]",
          must: add}, {name: s1, on: "face in [2, 3, 4, 5]", may: reroll, per_die: 2, repeat: false}]}
    let:
      v: "sum(lowest(p, 2))"
    outcomes: [o0, o1, o2]
    objective: mean_rank
    outcome: "'o2' if v >= 3 else 'o1' if v >= 0 else 'o0'"
"""
"""A hunt's repro (2 d5, a die added on four faces and a reroll on four), capped: a chain of many
ends for its size, node by node only (the cap)."""


@contextmanager
def scored_ends() -> Iterator[dict[str, list[int]]]:
    """The units charged while each end best play scores is scored, by how it was scored: node by
    node in `BestPlay._end` (which `packed._Scores` and `BestPlay`'s own loop both call), with
    arrays in `RerollSolver.end_score`."""
    charged: dict[str, list[int]] = {"nodes": [], "arrays": []}
    end, end_score = BestPlay._end, RerollSolver.end_score

    def counted(scoring: Any, into: list[int]) -> Any:
        def scored(*args: Any) -> Any:
            work = meter()
            before = work.used
            try:
                return scoring(*args)
            finally:
                into.append(work.used - before)

        return scored

    BestPlay._end = counted(end, charged["nodes"])  # type: ignore[method-assign]
    RerollSolver.end_score = counted(end_score, charged["arrays"])  # type: ignore[method-assign]
    try:
        yield charged
    finally:
        BestPlay._end = end  # type: ignore[method-assign]
        RerollSolver.end_score = end_score  # type: ignore[method-assign]


@pytest.mark.parametrize(
    ("text", "solved"),
    [(MANY_ENDS, "packed"), (MANY_ENDS, "loop"), (MANY_ENDS, "arrays"), (ADDING, "packed"), (ADDING, "loop")],
)
def test_each_end_best_play_scores_is_charged_more_than_a_move(
    text: str, solved: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scoring an end — the pool's value read off its state, the rest of the check finished on
    it, the objective weighed — took about 20 µs, more than a move listed (`2 * TRANSITION`
    units), and was charged a unit where the check's memo missed, else none: `ADDING`'s chain,
    uncapped, under `optimal` ran twice as long as under `always` to its RC503 on the default
    budget. Each end is now charged `SCORED_END` before it is scored, alike node by node
    (`packed._Scores`, or `BestPlay`'s own loop past `packed.DEEP` levels) and with arrays."""
    if solved == "loop":
        monkeypatch.setattr(packed, "DEEP", 0)
    rs = engine.load_source(SourceFile("ends.yaml", text), limits=BIG)
    with arrays_from(0 if solved == "arrays" else NEVER), solved_ends() as solves, scored_ends() as by:
        rs.distribution("c", policy="optimal")
    ends = by["arrays" if solved == "arrays" else "nodes"]
    assert len(ends) > 100 and not by["nodes" if solved == "arrays" else "arrays"]
    assert min(ends) >= SCORED_END > 2 * TRANSITION
    assert sum(solves) >= SCORED_END * len(ends)


def test_work_taken_back_is_what_was_charged_since_and_never_more() -> None:
    work = Work(100)
    work.charge(5)
    since = work.used
    work.charge(7)
    work.take_back(since)
    assert work.used == 5 and work.left == 95
    work.take_back(50)  # a count past what was charged gives nothing back, and charges nothing
    assert work.used == 5


def test_what_the_arrays_cannot_hold_goes_node_by_node() -> None:
    """A cap (the pending step reads the dice used) is left to the node-by-node solver; an
    objective of one part or several, under any policy, is held (best play compares the parts in
    turn, as `BestPlay` compares its tuples)."""
    capped = LOOP.replace("        triggers:", "        cap: 2\n        triggers:")
    assert not chainarrays.eligible(_solver(capped, "always")[0])
    several = LOOP.replace("    outcomes: [no, yes]", "    outcomes: [no, maybe, yes]")
    for text in (
        LOOP,
        several,
        LOOP.replace("    outcomes:", "    objective: {at_least: yes}\n    outcomes:"),
    ):
        for policy in ("always", "never", "optimal"):
            assert chainarrays.eligible(_solver(text, policy)[0])


def test_without_numpy_every_chain_goes_node_by_node(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where numpy cannot be imported (a dependency, but an embedder may leave it out) the same
    numbers come node by node."""
    ask = lambda: engine.load("chimera", limits=BIG).distribution("skill", dice=9, policy="optimal")  # noqa: E731
    with arrays_from(0):
        expected = ask()
        monkeypatch.setattr(rerolls, "_ARRAYS", None)
        called = []
        monkeypatch.setattr(chainarrays, "solve", lambda *a: called.append(a))
        assert ask() == expected
    assert not called


def test_numpy_is_imported_for_a_chain_worth_its_import() -> None:
    """A fresh process does not import numpy for Chimera's 10 dice (1,001 first rolls: solved node
    by node, faster than numpy imports), and does for 12 (1,820 first rolls); once it is imported,
    every chain of `ARRAYS_FROM` first rolls or more is solved with it."""
    import subprocess
    import sys

    program = (
        "import sys, engine\n"
        "rs = engine.load('chimera')\n"
        "for extra in (0, 2):\n"
        "    rs.distribution('skill', dice=10, resolve=extra)\n"
        "    print('numpy' in sys.modules)\n"
    )
    shown = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert shown.stdout.split() == ["False", "True"]
    assert rerolls.ARRAYS_FROM <= 1001 < rerolls.ARRAYS_IMPORTING_FROM <= 1820


def _odd_primes_to(n: int) -> list[int]:
    """The odd primes up to n, by a sieve (the test's own, not the module's)."""
    sieve = bytearray([1]) * (n + 1)
    sieve[:2] = b"\x00\x00"
    for i in range(2, int(n**0.5) + 1):
        if sieve[i]:
            sieve[i * i :: i] = bytearray(len(sieve[i * i :: i]))
    return [i for i in range(3, n + 1) if sieve[i]]


SMALL = _odd_primes_to(50_000)
"""Every prime up to √(2**31) but 2: a number below 2**31 with no factor among them is prime."""


def test_primes_are_told_from_composites() -> None:
    """The Miller–Rabin test with its four bases against a sieve, and about 2**31."""
    below = set(_odd_primes_to(100_000)) | {2}
    assert [n for n in range(100_000) if chainarrays._is_prime(n)] == sorted(below)
    for n in (2**31 - 1, 2_147_483_629, 2_147_483_587):  # the three largest primes below 2**31
        assert chainarrays._is_prime(n)
    for n in (2**31 - 3, 3 * 715_827_883, 46_349**2, 25_326_001):  # the last passes bases 2, 3 and 5
        assert not chainarrays._is_prime(n)


@settings(max_examples=300, deadline=None)
@given(st.integers(2**31 - 10**7, 2**31 - 1))
def test_numbers_about_the_moduli_are_told_apart_as_trial_division_tells_them(n: int) -> None:
    assert chainarrays._is_prime(n) == (n % 2 == 1 and all(n % p for p in SMALL))


MODULI = chainarrays._moduli(2**4100, 1)
"""The push's moduli for a bound past the largest below (by more than the faces leave out), each
proved prime here by trial division."""


def test_the_largest_moduli_are_primes() -> None:
    assert len(MODULI) == len(set(MODULI)) > 100
    assert MODULI == sorted(MODULI, reverse=True) and MODULI[0] == 2**31 - 1
    for p in MODULI:
        assert p < chainarrays.MODULUS_BELOW and all(p % q for q in SMALL)


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 2**4000 - 1),
    st.one_of(st.integers(1, 10**6), st.sampled_from([MODULI[0] * 6, MODULI[1] * MODULI[3], MODULI[0] ** 2])),
)
def test_the_moduli_just_pass_the_bound_and_leave_the_faces_out(bound: int, faces: int) -> None:
    """The push's moduli multiply to more than every number it can meet (`bound`), the last of them
    needed for that, and none divides the faces (whose inverse each must have)."""
    moduli = chainarrays._moduli(bound, faces)
    assert set(moduli) <= set(MODULI)
    assert math.prod(moduli) > bound >= math.prod(moduli[:-1])
    assert all(faces % p for p in moduli)
    assert moduli == [p for p in MODULI if faces % p][: len(moduli)]  # the largest primes


def test_the_push_in_residues_needs_many_moduli_and_may_reduce_every_addend(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Chimera's 8 dice with advantage: masses of several moduli' size, put together from their
    residues (Garner's mixed radix over three moduli or more), the same as node by node; and the
    same again with every addend reduced before it is summed (as where a sum might not fit int64)."""
    used: list[int] = []
    moduli = chainarrays._moduli

    def counted(bound: int, faces: int) -> list[int]:
        found = moduli(bound, faces)
        used.append(len(found))
        return found

    monkeypatch.setattr(chainarrays, "_moduli", counted)

    def ask() -> engine.Distribution:
        return engine.load("chimera", limits=BIG).distribution("skill", dice=8, advantage=1, policy="always")

    (nodes, by_node), (arrays, by_arrays) = both(ask)
    assert arrays == nodes and by_arrays == by_node
    assert used and min(used) >= 3
    monkeypatch.setattr(chainarrays, "SUMS_BELOW", 0)
    (_, _), (reduced, by_reduced) = both(ask)
    assert reduced == nodes and by_reduced == by_node


def test_threads_that_find_more_moduli_at_once_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """Requests solved in threads (the server's) may ask for more primes at the same moment: each
    gets the same moduli, and the primes kept hold none twice. Each primality test yields to the
    other threads, so they interleave."""
    import threading
    import time

    monkeypatch.setattr(chainarrays, "_PRIMES", ())
    is_prime = chainarrays._is_prime

    def slow(n: int) -> bool:
        time.sleep(0)
        return is_prime(n)

    monkeypatch.setattr(chainarrays, "_is_prime", slow)
    start = threading.Barrier(4)
    found: list[list[int]] = []

    def ask() -> None:
        start.wait()
        found.append(chainarrays._moduli(2**400, 1))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(found) == 4 and all(f == MODULI[: len(f)] for f in found)
    assert list(chainarrays._PRIMES) == MODULI[: len(chainarrays._PRIMES)]


def test_numpy_is_a_dependency_of_the_default_install() -> None:
    """A long chain is solved whole on every install (Chimera's 20 dice under `optimal` within its
    time goal: docs/performance.md), so numpy is in the package's own dependencies, not an extra."""
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    named = {d.split(">")[0].split("=")[0].split("[")[0].strip() for d in project["project"]["dependencies"]}
    assert "numpy" in named
