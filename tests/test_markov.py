"""The chain solver every scene goes through (`eval.markov.solve_components`), against an
independent solver written here: the same chain as one dense linear system over fractions, and,
for chains with choices, every deterministic policy tried in turn.

The solver eliminates one state at a time within each strongly connected component; these laws
hold for any chain, so hypothesis draws chains with cycles, self-loops, states that can never end
and states that offer two choices."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.eval.dist import Dist
from engine.eval.markov import NEVER, solve_components

ENDS = ("win", "lose")


@st.composite
def chains(draw: st.DrawFn, max_choices: int = 1) -> dict[Any, list[Dist] | None]:
    """A chain over states 0..n-1 (transient) and the two ends, each transient state with one or
    more successor distributions of small whole weights."""
    n = draw(st.integers(1, 6))
    targets = [*range(n), *ENDS]
    graph: dict[Any, list[Dist] | None] = {end: None for end in ENDS}
    for s in range(n):
        options = []
        for _ in range(draw(st.integers(1, max_choices))):
            picked = draw(st.lists(st.sampled_from(targets), min_size=1, max_size=4, unique=True))
            weights = {t: draw(st.integers(1, 5)) for t in picked}
            options.append(Dist(weights, sum(weights.values())))
        graph[s] = options
    return graph


def _dense(graph: dict[Any, list[Dist] | None], policy: dict[Any, int]) -> dict[Any, dict[str, Fraction]]:
    """x = b + Q x as one dense system (Gauss–Jordan over fractions); a state that cannot reach an
    end under `policy` is worth {never: 1}, and the expected steps ride along as a column."""
    transient = [s for s, o in graph.items() if o is not None]
    succ = {s: list(graph[s][policy[s]].weights) for s in transient}  # type: ignore[index]
    reach = {s for s in transient if any(t in ENDS for t in succ[s])}
    changed = True
    while changed:
        changed = False
        for s in transient:
            if s not in reach and any(t in reach for t in succ[s]):
                reach.add(s)
                changed = True
    live = [s for s in transient if s in reach]
    cols = [*ENDS, NEVER, "steps"]
    n = len(live)
    a = [[Fraction(0)] * (n + len(cols)) for _ in range(n)]
    for i, s in enumerate(live):
        d = graph[s][policy[s]]  # type: ignore[index]
        a[i][i] += 1
        a[i][n + 3] += 1  # a step is taken from every live state
        for t, w in d.weights.items():
            p = Fraction(w, d.total)
            if t in ENDS:
                a[i][n + ENDS.index(t)] += p
            elif t in reach:
                a[i][live.index(t)] -= p
            else:  # into a state that can never end
                a[i][n + 2] += p
    for c in range(n):
        pivot = next(r for r in range(c, n) if a[r][c] != 0)
        a[c], a[pivot] = a[pivot], a[c]
        a[c] = [v / a[c][c] for v in a[c]]
        for r in range(n):
            if r != c and a[r][c] != 0:
                f = a[r][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c])]
    out: dict[Any, dict[str, Fraction]] = {}
    for s in transient:
        if s in reach:
            i = live.index(s)
            out[s] = {k: a[i][n + j] for j, k in enumerate(cols) if a[i][n + j]}
        else:
            out[s] = {NEVER: Fraction(1)}
    return out


def _terminal(s: Any) -> dict[Any, Fraction]:
    return {s: Fraction(1)}


def _one_step(s: Any, t: Any) -> Fraction:
    return Fraction(1)


@settings(max_examples=300, deadline=None)
@given(chains())
def test_the_solver_equals_one_dense_linear_system(graph: dict[Any, list[Dist] | None]) -> None:
    value, _, total = solve_components(graph, _terminal, None, _one_step)
    expected = _dense(graph, {s: 0 for s in graph if graph[s] is not None})
    for s, want in expected.items():
        steps = want.pop("steps", Fraction(0))
        assert value[s] == want, s
        if NEVER not in want:
            assert total[s] == steps, s
    assert all(sum(v.values()) == 1 for v in value.values())


@settings(max_examples=150, deadline=None)
@given(chains(max_choices=2))
def test_the_optimal_policy_is_the_best_of_every_policy(graph: dict[Any, list[Dist] | None]) -> None:
    transient = [s for s, o in graph.items() if o is not None]
    value, chosen, _ = solve_components(graph, _terminal, lambda v: v.get("win", Fraction(0)))
    best = {s: Fraction(-1) for s in transient}
    for picks in itertools.product(*(range(len(graph[s])) for s in transient)):  # type: ignore[arg-type]
        solved = _dense(graph, dict(zip(transient, picks)))
        for s in transient:
            best[s] = max(best[s], solved[s].get("win", Fraction(0)))
    for s in transient:
        assert value[s].get("win", Fraction(0)) == best[s], s
    # and the choices it reports give exactly its values
    assert {s: v.get("win", Fraction(0)) for s, v in _dense(graph, chosen).items()} == {
        s: value[s].get("win", Fraction(0)) for s in transient
    }


def test_a_stand_off_that_returns_is_summed_not_cut_off() -> None:
    """Two fighters: each exchange one wins (1/3 each) or it is a stand-off (1/3) that returns."""
    graph: dict[Any, list[Dist] | None] = {
        "win": None,
        "lose": None,
        0: [Dist({"win": 1, "lose": 1, 0: 1}, 3)],
    }
    value, _, total = solve_components(graph, _terminal, None, _one_step)
    assert value[0] == {"lose": Fraction(1, 2), "win": Fraction(1, 2)}
    assert total[0] == Fraction(3, 2)


@settings(max_examples=300, deadline=None)
@given(chains(), st.data())
def test_absorb_pushes_through_components_as_one_dense_system_solves(
    graph: dict[Any, list[Dist] | None], data: st.DataObject
) -> None:
    """`absorb` on a chain that can return to a state (pushed component by component, each
    solved alone, since 2026-12-04) ends where the one dense system says, from any start; a
    start that can never end is refused with RC503."""
    from engine.errors import LimitError
    from engine.eval.markov import absorb

    transient = [s for s in graph if graph[s] is not None]
    starts = data.draw(st.lists(st.sampled_from(transient), min_size=1, max_size=3, unique=True))
    start = Dist({s: i + 1 for i, s in enumerate(starts)}, sum(range(1, len(starts) + 1)))
    expected = _dense(graph, {s: 0 for s in transient})

    def step(s: Any) -> Dist | None:
        options = graph[s]
        return None if options is None else options[0]

    want: dict[Any, Fraction] = {}
    for s, w in start.weights.items():
        for k, v in expected[s].items():
            if k != "steps":
                want[k] = want.get(k, Fraction(0)) + Fraction(w, start.total) * v
    if NEVER in want:
        with pytest.raises(LimitError) as err:
            absorb(start, step, lambda s: s, lambda n: None)
        assert err.value.diagnostics[0].code == "RC503"
        return
    got = absorb(start, step, lambda s: s, lambda n: None)
    assert {k: got.probability(k) for k in ENDS if got.probability(k)} == want


REROLL_ONES = """
rulecraft: 1
name: until
checks:
  c:
    inputs:
      n: {type: int, min: 1, max: 12, default: 4}
      sides: {type: int, min: 2, max: 20, default: 10}
      at_least: {type: int, min: 0, max: 200, default: 24}
    roll:
      p: {pool: n, die: sides, triggers: [{on: face == 1, must: reroll}]}
    outcomes: [lo, hi]
    outcome: "'hi' if sum(p) >= at_least else 'lo'"
"""


@pytest.mark.parametrize(("n", "sides", "at_least"), [(4, 10, 24), (10, 6, 35), (12, 4, 30), (3, 20, 40)])
def test_a_pool_rerolled_until_no_die_shows_1_is_each_die_uniform_on_the_rest(
    n: int, sides: int, at_least: int
) -> None:
    """ "Reroll 1s until no die shows 1": each die ends uniform on 2..sides (a convolution written
    here). The chain returns to its states (dice in the air land on 1 again), and solved as one
    linear system it ran past the default work budget from 5d6 or 4d10, 6-11 s in; component by
    component these are well inside it (icepool's `4 @ d10.reroll([1], depth='inf')`: 1175/2187)."""
    import engine

    sums = {0: Fraction(1)}
    for _ in range(n):
        nxt: dict[int, Fraction] = {}
        for total, p in sums.items():
            for face in range(2, sides + 1):
                nxt[total + face] = nxt.get(total + face, Fraction(0)) + p / (sides - 1)
        sums = nxt
    want = sum((p for total, p in sums.items() if total >= at_least), Fraction(0))
    got = engine.load(REROLL_ONES).distribution("c", n=n, sides=sides, at_least=at_least)
    assert got.probability("hi") == want
    if (n, sides) == (4, 10):
        assert want == Fraction(1175, 2187)
