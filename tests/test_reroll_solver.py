"""The reroll solver (issue 13): dice rerolled one at a time, states packed into whole numbers.

Two checks that it changed no number: every result recorded from the solver it replaced (all
rerolled dice at once, over every multiset) is given again exactly, for Chimera's procedure
over a range of pool sizes, levels and policies and for the tests' small procedures (loops,
explosions with and without a cap, histories); and, for generated pools of every trigger form, a
slow reference kept here — the old transition, every way the dice can fall at once, solved by
plain recursion — gives the same ends and the same best play.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import test_pool_history
import test_rerolls
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_procedure_quick import pools

import engine
from engine.api import Limits
from engine.eval.dist import Dist
from engine.eval.rerolls import CAPPED, RerollSolver
from engine.frozen import replace
from engine.model.values import Multi
from engine.runtime.packing import Packing
from engine.runtime.procedure import Option, Procedure, State
from engine.syntax.positions import SourceFile

RECORDED = json.loads((Path(__file__).parent / "reroll_reference.json").read_text())["cases"]
SOURCES = {
    "EXPLODE": test_rerolls.EXPLODE,
    "EXPLODE_UNCAPPED": test_rerolls.EXPLODE.replace("        cap: 3\n", ""),
    "CYCLE": test_rerolls.CYCLE,
    "EXPLODING": test_pool_history.EXPLODING,
    "REROLLING": test_pool_history.REROLLING,
    "BOTH": test_pool_history.BOTH,
}
_loaded: dict[str, engine.Ruleset] = {}


def _ruleset(source: str) -> engine.Ruleset:
    if source not in _loaded:
        big = Limits(max_work=10**12, max_states=10**7)
        _loaded[source] = (
            engine.load("chimera", limits=big)
            if source == "chimera"
            else engine.load_source(SourceFile(source.lower() + ".yaml", SOURCES[source]), limits=big)
        )
    return _loaded[source]


def _digest(d: engine.Distribution) -> str:
    rows = sorted((repr(k), str(Fraction(w, d.joint.total))) for k, w in d.joint.weights.items())
    return hashlib.sha256(repr(rows).encode()).hexdigest()


@pytest.mark.parametrize(
    "case",
    RECORDED,
    ids=[
        f"{c['source']}-{c['check']}-{c['policy']}-" + ",".join(f"{k}={v}" for k, v in c["inputs"].items())
        for c in RECORDED
    ],
)
def test_the_recorded_results_are_given_exactly(case: dict[str, Any]) -> None:
    d = _ruleset(case["source"]).distribution(case["check"], policy=case["policy"], **case["inputs"])
    outcome = {str(k): str(Fraction(w, d.outcome.total)) for k, w in d.outcome.weights.items()}
    assert outcome == case["outcome"]
    if "capped" in case:
        assert (str(d.capped), str(d.truncated)) == (case["capped"], case["truncated"])
    assert _digest(d) == case["joint"]


def test_the_recorded_cases_span_pool_sizes_and_policies() -> None:
    """What the test above covers: Chimera's skill check from 1 to 10 dice under every policy."""
    skill = {
        (c["inputs"]["dice"], c["policy"])
        for c in RECORDED
        if c["check"] == "skill" and len(c["inputs"]) == 1
    }
    assert skill == {(n, p) for n in range(1, 11) for p in ("always", "never", "optimal")}


# -- a slow reference: the transition before issue 13, all dice at once --------------------------


def _after_all_at_once(
    proc: Procedure, state: State, t: int, option: Option, fresh: tuple[int, ...]
) -> State:
    """`Procedure.after` as it was written before flights: every new die in one step."""
    counts, unused, _, hist = state
    remove, rolled = option
    new_counts = tuple(c - r + f for c, r, f in zip(counts, remove, fresh))
    zeros = tuple(0 for _ in proc.kinds)
    rows = []
    for u in range(len(proc.steps)):
        on = tuple(k.on[u] for k in proc.kinds)
        # a new die holds step u unless u takes only the first roll's dice, or rolled it and
        # says repeat: false (a step that never acts is held by every die it names)
        step = proc.steps[u]
        holds = not step.active or (not proc.pool.triggers[u].first_roll_only and (u != t or step.repeat))
        if u == t:
            rows.append(tuple(f if o else 0 for f, o in zip(fresh, on)) if holds else zeros)
        else:
            rows.append(
                tuple(
                    (x - r if x > r else 0) + (f if o and holds else 0)
                    for x, r, f, o in zip(unused[u], remove, fresh, on)
                )
            )
    if hist:
        first, added, rerolled = hist
        if proc.steps[t].action == "add":
            added = tuple(a + f for a, f in zip(added, fresh)) if added else added
        else:
            rerolled = tuple(x + r for x, r in zip(rerolled, remove)) if rerolled else rerolled
        hist = (first, added, rerolled)
    return (new_counts, tuple(rows), proc.used_after(state, t, rolled), hist)


class _Cycle(Exception):
    pass


class Reference:
    """Ends and best play by recursion over states (a chain that returns to a state is refused)."""

    def __init__(
        self, proc: Procedure, policy: str, outcome_of: Callable[[Any], Dist], score: Callable[[Dist], Any]
    ) -> None:
        self.proc, self.policy, self.outcome_of, self.score = proc, policy, outcome_of, score
        self._ends: dict[State, dict[Any, Fraction]] = {}
        self._best: dict[State, tuple[dict[Any, Fraction], Option | None]] = {}
        self._busy: set[State] = set()

    def successors(self, state: State, t: int, option: Option) -> list[tuple[State, Fraction]]:
        fresh = self.proc.fresh(option[1])
        total = sum(w for _, w in fresh)
        return [(_after_all_at_once(self.proc, state, t, option, f), Fraction(w, total)) for f, w in fresh]

    def best(self, state: State) -> tuple[dict[Any, Fraction], Option | None]:
        if state in self._best:
            return self._best[state]
        if state in self._busy:
            raise _Cycle
        t = self.proc.pending(state)
        if t is None:
            d = self.outcome_of(self.proc.final(state[0], state[3]))
            found: tuple[dict[Any, Fraction], Option | None] = (d.fractions(), None)
        else:
            self._busy.add(state)
            found_best: tuple[dict[Any, Fraction], Option] | None = None
            best_score = None
            for o in self.proc.options(state, t, self.policy):
                mixed: dict[Any, Fraction] = {}
                for nxt, p in self.successors(state, t, o):
                    for k, q in self.best(nxt)[0].items():
                        mixed[k] = mixed.get(k, Fraction(0)) + p * q
                s = self.score(Dist.from_fractions(mixed))
                if found_best is None or s > best_score:
                    found_best, best_score = (mixed, o), s
            self._busy.discard(state)
            assert found_best is not None
            found = found_best
        self._best[state] = found
        return found

    def ends(self, state: State) -> dict[Any, Fraction]:
        if state in self._ends:
            return self._ends[state]
        if state in self._busy:
            raise _Cycle
        proc = self.proc
        t = proc.pending(state)
        if t is None:
            out = {
                (proc.final(state[0], state[3]), CAPPED if proc.capped(state, self.policy) else 0): Fraction(
                    1
                )
            }
        else:
            self._busy.add(state)
            options = proc.options(state, t, self.policy)
            option = options[0] if len(options) == 1 else self.best(state)[1]
            assert option is not None
            out = {}
            for nxt, p in self.successors(state, t, option):
                for k, q in self.ends(nxt).items():
                    out[k] = out.get(k, Fraction(0)) + p * q
            self._busy.discard(state)
        self._ends[state] = out
        return out


@settings(max_examples=80, deadline=None)
@given(pools())
def test_one_die_at_a_time_gives_what_all_at_once_gives(spec: tuple[str, int]) -> None:
    """Generated pools of d6 with one to three triggers of every form (reroll or add, may or
    must, targets, per_die, repeat, pick, caps, readings): under each policy the new solver's
    ends, and under `optimal` its best play from every first roll, equal the reference's. Read
    whole (no folds), every end is the reference's multiset; read as the check reads it
    (`count(p)`), the kinds no step takes are kept by their number and sum (`Procedure.summed`),
    and every end is the reference's in its number of dice and their sum."""
    text, n = spec
    rs = engine.load(text)
    check = rs.model.checks["c"]
    members = check.outcomes.members

    def outcome_of(value: Any) -> Dist:  # an outcome that depends on the dice in the pool
        items = value.items if isinstance(value, Multi) else (value,)
        return Dist.certain(members[0] if len(items) > n else members[1])

    for policy, pool in [
        (policy, pool)
        for policy in ("always", "never", "optimal")
        for pool in (replace(check.roll[0], folds=None), check.roll[0])
    ]:
        proc = Procedure(pool, {})
        if pool.folds and not proc.summed:
            continue  # as read whole
        solver = RerollSolver(proc, policy, 200_000, outcome_of, check.objective, members, 100)
        reference = Reference(
            proc, policy, outcome_of, lambda d: check.objective.score(members, d.weights, d.total)
        )
        starts = Dist.of((proc.start(c), w) for c, w in proc.fresh(n))
        expected: dict[Any, Fraction] = {}
        try:
            for s, w in starts.weights.items():
                for k, q in reference.ends(s).items():
                    expected[k] = expected.get(k, Fraction(0)) + Fraction(w, starts.total) * q
                if policy == "optimal" and proc.pending(s) is not None:
                    value, option = reference.best(s)
                    t = proc.pending(s)
                    assert t is not None
                    assert solver.choice(s, t) == option
                    scored = dict(solver.decision_scores(s, t))
                    assert scored[option] == reference.score(Dist.from_fractions(value))
        except _Cycle:
            assume(False)
        found = solver.ends(proc.fresh(n)).fractions()
        if proc.summed:  # alike in what the check can read: how many dice, and their sum
            found, expected = _by_total(found), _by_total(expected)
        assert found == expected, (text, policy)


def _by_total(ends: dict[Any, Fraction]) -> dict[Any, Fraction]:
    """Ends (a pool's value, how it was cut) by the number of its dice and their sum."""
    out: dict[Any, Fraction] = {}
    for (value, cut), p in ends.items():
        key = (len(value.items), sum(value.items), cut)
        out[key] = out.get(key, Fraction(0)) + p
    return out


def test_the_packed_states_round_trip() -> None:
    """A state packed into a whole number unpacks to itself, and its dice read off it alone
    (`Packing.counts`) are its own (Chimera's pool, and a pool that keeps its whole history, with
    a cap)."""
    rs = engine.load_source(SourceFile("both.yaml", test_pool_history.BOTH))
    chimera = _ruleset("chimera").model.checks["skill"].roll[0]
    for pool, env in [(chimera, {"level": 0, "total_dice": 4}), (rs.model.checks["both"].roll[0], {})]:
        proc = Procedure(pool, env)
        packing = Packing(proc, 50)
        for counts, _ in proc.fresh(4):
            state = proc.start(counts)
            assert packing.unpack(packing.pack(state)) == state
            assert packing.counts(packing.pack(state)) == state[0]
            t = proc.pending(state)
            if t is None:
                continue
            for option in proc.options(state, t, "optimal"):
                flight = proc.launch(state, t, option)
                if len(flight) == 3:
                    code = packing.pack_any(flight)
                    assert code >= packing.flying
                    for kind, landed in enumerate(packing.landings(code)):
                        assert landed == packing.pack_any(proc.land(flight, kind))  # type: ignore[arg-type]


def test_twenty_dice_stay_inside_the_default_budget_or_stop_with_rc503() -> None:
    """20 dice (`dice=10, resolve=10`) under `always`: solved within a raised budget, and a
    small budget still stops the chain with RC503 (the work is charged)."""
    small = engine.load("chimera", limits=Limits(max_work=50_000))
    with pytest.raises(engine.LimitError) as err:
        small.distribution("skill", dice=10, resolve=10, policy="always")
    assert err.value.diagnostics[0].code == "RC503"
    few = engine.load("chimera", limits=Limits(max_states=2_000))
    with pytest.raises(engine.LimitError) as err:
        few.distribution("skill", dice=10, resolve=10, policy="always")
    assert err.value.diagnostics[0].code == "RC503"


def test_a_state_bound_stops_best_play_too() -> None:
    """Under `optimal` the states best play scores are counted against `Limits.max_states` (checked
    in place, once past the bound), with the work budget out of the way: sampled rolls whose dice
    offer a choice ask best play alone (the states it scores are kept from roll to roll), and an
    exact solve walks the chain too."""
    few = engine.load("chimera", limits=Limits(max_work=10**12, max_states=2_000))

    def rolls() -> None:
        for seed in range(5):
            few.roll("skill", random.Random(seed), dice=10, resolve=2, policy="optimal")

    for ask in (rolls, lambda: few.distribution("skill", dice=10, resolve=2, policy="optimal")):
        with pytest.raises(engine.LimitError) as err:
            ask()
        assert err.value.diagnostics[0].code == "RC503"
        assert "more than 2,000 states" in str(err.value)


SKIPPING = """
rulecraft: 1
name: skipping
checks:
  c:
    roll:
      d:
        pool: 3
        die: 4
        triggers:
          - {name: ones, on: face == 1, may: reroll, repeat: false}
          - {name: fours, on: face == 4, must: reroll, target: face == 2}
    outcomes: [no, yes]
    outcome: "'yes' if count(d, 3) >= 1 else 'no'"
"""


def test_dice_in_the_air_are_one_flight_whichever_step_rolled_them_when_they_land_alike() -> None:
    """A flight's code names the first step whose dice land as its own do: Chimera's 9s and 0s
    each let a rerolled die hold every trigger again, so the dice either puts in the air are one
    node; a die rolled by a step that says `repeat: false` does not hold that step again, so its
    flights stay its own. Every flight still lands as `Procedure.land` says (test above)."""
    chimera = _ruleset("chimera").model.checks["skill"].roll[0]
    skipping = engine.load_source(SourceFile("skipping.yaml", SKIPPING)).model.checks["c"].roll[0]
    for pool, env, alike in [(chimera, {"level": 0, "total_dice": 4}, True), (skipping, {}, False)]:
        proc = Procedure(pool, env)
        packing = Packing(proc, 50)
        assert len(proc.steps) == 2
        for counts, _ in proc.fresh(3):
            state = proc.start(counts)
            for left in (1, 2):
                codes = [packing.pack_any((state, t, left)) for t in (0, 1)]
                assert (codes[0] == codes[1]) is alike, (pool, state, left)


# -- the solver's shortcuts, held to the rules they stand for --------------------------------------


def _reachable(proc: Procedure, n: int, limit: int = 400) -> list[State]:
    """States a pool of `n` dice reaches (first rolls, then every option landed every way), up to
    `limit` of them, in the order they are met."""
    seen: dict[State, None] = {}
    todo = [proc.start(c) for c, _ in proc.fresh(n)]
    while todo and len(seen) < limit:
        state = todo.pop(0)
        if state in seen:
            continue
        seen[state] = None
        t = proc.pending(state)
        if t is None:
            continue
        for option in proc.options(state, t, "optimal"):
            for fresh, _ in proc.fresh(option[1]):
                todo.append(proc.after(state, t, option, fresh))
    return list(seen)


@settings(max_examples=60, deadline=None)
@given(pools())
def test_codes_worked_out_from_parts_are_the_launches_codes(spec: tuple[str, int]) -> None:
    """`Packing.start` packs a first roll as `Procedure.start` and `Packing.pack` do;
    `Packing.pending` and `Packing.grant` read the step a state's code is pending on and its
    grant as `Procedure.pending` and `Procedure.grant` do; `Packing.launched` (an option's code
    summed from parts shared by every state alike in what the part reads) and `Packing.moves` (the
    options and how far each moves the code, shared by every state alike in the fields the step
    reads, or in the code cut to what its options read) give each option's code exactly as
    launching it and packing the result, and `Packing.field_moves` the same in fields, for every
    option under every policy, over many states sharing one packing."""
    text, n = spec
    pool = engine.load(text).model.checks["c"].roll[0]
    proc = Procedure(pool, {})  # uncapped pools too: `_reachable` stops
    packing = Packing(proc, 1000)
    for counts, _ in proc.fresh(n):
        assert packing.start(counts) == packing.pack(proc.start(counts)), (text, counts)
    for state in _reachable(proc, n):
        code = packing.pack(state)
        t = proc.pending(state)
        assert packing.pending(code) == t
        if t is None:
            continue
        assert packing.grant(code, t) == proc.grant(state, t), (text, state, t)
        for policy in ("always", "never", "optimal"):
            options = proc.options(state, t, policy)
            expected = [packing.pack_any(proc.launch(state, t, o)) for o in options]
            assert packing.launched(code, state, t, options) == expected, (text, state, t, policy)
            assert packing.moves(code, t, policy) == (options, expected), (text, state, t, policy)
            # the same moves in fields, from the fields with the step's own triggers cleared
            fields = code // packing.spread
            fields -= fields & dict(packing.pending_rows)[t]
            moved = packing.field_moves(code, t, policy)
            assert moved[0] == options
            assert [fields + d for d in moved[1]] == [e // packing.spread for e in expected], (text, state, t)


def test_a_declined_step_keeps_one_move_per_count_of_its_own_triggers() -> None:
    """Under `never` a `may` step's one option takes no die whatever the dice, so `Packing.moves`
    keeps its move by the step's own unused triggers alone: Chimera's 9s step, met in thousands
    of states of a 12-die pool, keeps one entry per number of unused 9s; the 0s step, a `must`,
    still reads the dice it takes."""
    check = engine.load("chimera").model.checks["skill"]
    proc = Procedure(check.roll[0], {"total_dice": 12, "level": 0})
    packing = Packing(proc, 20)
    nines, zeros = (proc.steps.index(s) for s in proc.steps)
    met = {nines: set(), zeros: set()}
    for state in _reachable(proc, 12, limit=3000):
        t = proc.pending(state)
        if t is None:
            continue
        code = packing.pack(state)
        assert packing.moves(code, t, "never") == (
            proc.options(state, t, "never"),
            [packing.pack_any(proc.launch(state, t, o)) for o in proc.options(state, t, "never")],
        )
        met[t].add(state)
    kept = {t: len(packing._moved[(t, "never")][1]) for t in met}
    unused_nines = {state[1][nines] for state in met[nines]}
    assert len(met[nines]) > 1000 and kept[nines] == len(unused_nines) <= 12
    assert kept[zeros] > 12  # a rule's option reads the dice it takes


def test_states_alike_in_what_the_step_takes_share_one_move() -> None:
    """A step's options read the dice it may take only so far (`Packing._cut`): its one option
    under `always` the dice its pick takes until the grant is spent, its options under `optimal`
    the dice up to the grant — and the grant, not the unused triggers that make it, no larger than
    the dice it may take. So `Packing.moves` keeps far fewer moves than the states it is asked at
    differ in the fields the step reads: Chimera's 9s step, met at about 2,000 states of a 12-die
    pool, 1,561 of them apart in those fields, keeps 93 moves under `always` and 317 under
    `optimal` (568 under both when the cut kept the unused 9s whole and cut every kind to the
    grant), and every move is the launch's."""
    check = engine.load("chimera").model.checks["skill"]
    proc = Procedure(check.roll[0], {"total_dice": 12, "level": 0})
    nines = next(t for t, step in enumerate(proc.steps) if not step.must)
    states = [s for s in _reachable(proc, 12, limit=3000) if proc.pending(s) == nines]
    assert len(states) > 1000
    for policy, fewer in (("always", 10), ("optimal", 4)):
        packing = Packing(proc, 20)
        grants: dict[int, set[int]] = {}
        for state in states:
            code = packing.pack(state)
            options = proc.options(state, nines, policy)
            assert packing.moves(code, nines, policy) == (
                options,
                [packing.pack_any(proc.launch(state, nines, o)) for o in options],
            )
            key = packing._cut(code, nines, proc.single(nines, policy))
            grants.setdefault(key, set()).add(proc.grant(state, nines))
        _, by_fields, by_cut, cutting, single = packing._moved[(nines, policy)]
        assert cutting and single == (policy == "always")
        assert len(by_fields) > fewer * len(by_cut), (policy, len(by_fields), len(by_cut))
        # states of different grants share a move: more unused 9s than dice they may take
        assert any(len(g) > 1 for g in grants.values()), policy


@settings(max_examples=60, deadline=None)
@given(pools())
def test_options_kept_by_what_they_read_are_the_options_listed_afresh(spec: tuple[str, int]) -> None:
    """`Procedure.options` keeps its lists by what they read (`asked`: a reroll's grant cut to the
    eligible dice, since no more can be taken) and lists a reroll's options once per eligible dice
    for every grant up to the largest listed (a smaller grant's options are the first of a larger
    one's): over many states sharing one procedure, every list is the one a procedure that keeps
    nothing lists for the state's own grant and eligible dice."""
    text, n = spec
    pool = engine.load(text).model.checks["c"].roll[0]
    proc = Procedure(pool, {})
    for state in _reachable(proc, n):
        t = proc.pending(state)
        if t is None:
            continue
        for policy in ("always", "never", "optimal"):
            afresh = Procedure(pool, {})
            expected = afresh._listed(t, policy, afresh.grant(state, t), afresh.eligible(state, t))
            assert proc.options(state, t, policy) == expected, (text, state, t, policy)


def test_a_reroll_lists_its_options_once_for_every_grant_among_the_same_dice() -> None:
    """Chimera's 9s: grants asked in any order among the same eligible dice, larger and smaller
    than any listed before, each get exactly the options listed afresh for that grant."""
    proc = Procedure(_ruleset("chimera").model.checks["skill"].roll[0], {"level": 0, "total_dice": 20})
    assert proc.steps[0].name == "nines" and not proc.steps[0].must
    eligible = (2, 3, 4, 0, 0)
    for k in (1, 0, 3, 2, 7, 5, 9, 4):
        expected = Procedure(proc.pool, {"level": 0, "total_dice": 20})._listed(0, "optimal", k, eligible)
        assert len(expected) > k
        assert proc.listed((0, "optimal", min(k, sum(eligible)), eligible)) == expected, k


def _bounded_in_product_order(limits: tuple[int, ...], total: int) -> list[tuple[int, ...]]:
    """Every v <= limits with sum(v) <= total, as options listed them before issue 13: in the
    order of `itertools.product`, then sorted (stably) by sum."""
    from itertools import product

    places = [i for i, n in enumerate(limits) if n]
    found = []
    for picked in product(*(range(min(limits[i], total) + 1) for i in places)):
        if sum(picked) <= total:
            v = [0] * len(limits)
            for i, x in zip(places, picked):
                v[i] = x
            found.append(tuple(v))
    found.sort(key=sum)
    return found


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=5), st.integers(0, 9))
def test_options_come_in_the_order_ties_are_broken_in(limits: list[int], total: int) -> None:
    """Best play keeps the first of equally good options, so the options of a step keep their
    order: fewest dice first, then the order of `itertools.product` (as before they were listed
    by sum directly)."""
    from engine.runtime.procedure import _summing

    bound = tuple(limits)
    by_sum = [_summing(bound, m) for m in range(total + 1)]
    assert all(sum(v) == m and len(v) == len(bound) for m, vs in enumerate(by_sum) for v in vs)
    assert [v for vs in by_sum for v in vs] == _bounded_in_product_order(bound, total)


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from(["best_first", "at_least", "mean_rank"]),
    st.lists(st.lists(st.integers(0, 9), min_size=3, max_size=3), min_size=1, max_size=4),
    st.lists(st.integers(1, 9), min_size=4, max_size=4),
)
def test_an_objective_scores_a_mixture_as_the_mixture_of_its_scores(
    kind: str, parts: list[list[int]], chances: list[int]
) -> None:
    """What best play relies on to keep scores instead of distributions (`markov.BestPlay`): each
    objective's score is an expected value, so mixing distributions mixes their scores."""
    from engine.model.objective import Objective
    from engine.model.values import Symbol

    members = tuple(Symbol("s", name, rank) for rank, name in enumerate(["lo", "mid", "hi"]))
    objective = Objective(kind, members[1] if kind == "at_least" else None)
    dists = [Dist(dict(zip(members, ws)), sum(ws)) for ws in parts if sum(ws)]
    assume(dists)
    weights = chances[: len(dists)]
    total = sum(weights)
    mixed = Dist.mix((d, w, total) for d, w in zip(dists, weights))
    expected = [Fraction(0)] * len(objective.score(members, mixed.weights, mixed.total))
    for d, w in zip(dists, weights):
        for i, s in enumerate(objective.score(members, d.weights, d.total)):
            expected[i] += Fraction(w, total) * s
    assert objective.score(members, mixed.weights, mixed.total) == tuple(expected)


@pytest.mark.parametrize("dice", [3, 6])
def test_under_optimal_the_check_runs_once_per_finished_pool(dice: int) -> None:
    """Best play asks the outcome of the pools it scores, and the distribution then runs the
    check on every finished pool: a pool best play asked about is not run again
    (`Sequential.finish` takes its result from the memo), and the distribution is the one the
    check as compiled gives."""
    from dataclasses import replace

    from engine.eval import exact
    from engine.runtime.cache import Caches
    from engine.runtime.context import RunContext
    from engine.runtime.inputs import bind_inputs
    from engine.runtime.limits import DEFAULT_LIMITS

    check = engine.load("chimera").check("skill")
    bound = bind_inputs(check, {"dice": dice})
    runs: list[Any] = []

    def counting(env: dict[str, Any], *dice_values: Any) -> Any:
        runs.append(dice_values)
        return check.program(env, *dice_values)

    counted = replace(check, program=counting)
    for policy in ("always", "optimal"):
        runs.clear()
        d = exact.distribution(counted, bound, RunContext(DEFAULT_LIMITS, policy, Caches()))
        assert runs and len(runs) == len(set(runs)), policy  # each finished pool's check once
        # the same numbers as the check as compiled (nothing counted)
        assert d.joint == exact.distribution(check, bound, RunContext(DEFAULT_LIMITS, policy, Caches())).joint
    assert len(d.joint.weights) > 1  # the optimal joint, the loop's last: more than one outcome


PUSHED = """
rulecraft: 1
name: pushed
checks:
  skill:
    inputs:
      dice: {type: int, min: 1, max: 10, default: 4}
    roll:
      pool:
        pool: dice
        die: 6
        triggers:
          - {name: push, on: face in 2..5, may: reroll, repeat: false}
    let:
      pushed: count(rerolled_dice(pool)) > 0
    outcomes: [failure, success]
    outcome: "'success' if count(pool, 6) > 0 and not pushed else 'failure'"
"""


def test_a_chain_too_large_is_told_of_each_where_its_faces_are_read_one_by_one() -> None:
    """A pool read face by face keeps every face apart (a newcomer's Year Zero push at 7 dice was
    told only to set a 'cap', which did not help); the same pool reading its faces as the classes
    the check tells apart (`each:`) is one state per class, and is told only of the cap."""
    classed = (
        PUSHED.replace("die: 6\n", "die: 6\n        each: \"'six' if face == 6 else 'blank'\"\n")
        .replace("count(pool, 6)", "count(pool, 'six')")
        .replace("checks:\n", "scales:\n  mark: [blank, six]\nchecks:\n")
    )
    hints = []
    for text in (PUSHED, classed):
        few = engine.load(text, limits=Limits(max_work=10**12, max_states=50))
        with pytest.raises(engine.LimitError) as err:
            few.distribution("skill", dice=6, policy="optimal")
        d = err.value.diagnostics[0]
        assert d.code == "RC503" and "states" in d.message, d.message
        hints.append(d.hint)
    assert hints[0] is not None and "'each:'" in hints[0] and "'cap'" in hints[0]
    assert (
        hints[1]
        == "set a 'cap' on the pool, or raise it with --limit max_states=N (Limits.max_states from Python)"
    )
    # and the classes are what makes it small: within the default bound it solves
    assert engine.load(classed).distribution("skill", dice=7).probability("success") > 0
