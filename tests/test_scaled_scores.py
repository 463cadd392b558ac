"""Whole numbers over one scale in the chain solver, and codes that hash apart.

Best play keeps every score, and the push every mass, as a whole number over one denominator
that grows when a score or a share does not fit it (`markov.BestPlay`, `markov.pushed`); the
numbers must be the exact ones whatever the chain's totals and ends, so hypothesis draws chains
with totals that do not divide each other and ends worth fractions of any denominator, and a
plain solver over `Fraction`s written here gives what they must be. A packed state's code is
its fields times a constant that spreads Python's hash of it (`packing.SPREAD`): the codes of a
real pool must land in many dictionary slots, not a few.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_reroll_solver import _reachable, _ruleset

from engine.errors import Diagnostic, LimitError
from engine.eval.dist import Dist
from engine.eval.markov import BestPlay, Node, pushed
from engine.runtime.packing import Packing
from engine.runtime.procedure import Procedure

Chain = tuple[dict[int, Node | None], dict[int, tuple[Fraction, ...]]]


@st.composite
def chains(draw: st.DrawFn) -> Chain:
    """An acyclic chain over states 0..n-1 (each leads only to higher ones): ends worth a score of
    `parts` fractions, choices among 1-4 options, and moves of chance with weights 1-6."""
    n = draw(st.integers(2, 14))
    parts = draw(st.integers(1, 2))
    nodes: dict[int, Node | None] = {}
    ends: dict[int, tuple[Fraction, ...]] = {}
    for s in reversed(range(n)):
        later = list(range(s + 1, n))
        kind = draw(st.sampled_from(["end", "choice", "chance"])) if later else "end"
        if kind == "end":
            nodes[s] = None
            ends[s] = tuple(
                Fraction(draw(st.integers(0, 12)), draw(st.integers(1, 12))) for _ in range(parts)
            )
            continue
        to = draw(st.lists(st.sampled_from(later), min_size=1, max_size=4))
        if kind == "choice":
            nodes[s] = ([f"o{i}" for i in range(len(to))], to, (), 0)
        else:
            weights = tuple(draw(st.integers(1, 6)) for _ in to)
            nodes[s] = (None, to, weights, sum(weights))
    return nodes, ends


def _reference(nodes: dict[int, Node | None], ends: dict[int, tuple[Fraction, ...]]) -> tuple[dict, dict]:
    """Backward induction over `Fraction`s: each state's score, and the first best option."""
    score: dict[int, tuple[Fraction, ...]] = {}
    move: dict[int, Any] = {}
    for s in sorted(nodes, reverse=True):
        node = nodes[s]
        if node is None:
            score[s] = ends[s]
            continue
        options, to, weights, total = node
        if options is None:
            score[s] = tuple(
                sum((Fraction(w, total) * score[t][i] for t, w in zip(to, weights)), Fraction(0))
                for i in range(len(score[to[0]]))
            )
        else:
            best = max(range(len(to)), key=lambda i: (score[to[i]], -i))
            score[s], move[s] = score[to[best]], options[best]
    return score, move


def _play(nodes: dict[int, Node | None], ends: dict[int, tuple[Fraction, ...]]) -> BestPlay[int, Any]:
    def cycle(s: Any) -> Exception:
        return LimitError([Diagnostic("RC505", f"a cycle through {s}", None)])

    return BestPlay(
        nodes.__getitem__,
        lambda s: Dist.certain(s),
        lambda d: ends[next(iter(d.weights))],
        lambda n: None,
        cycle,
    )


@settings(max_examples=300, deadline=None)
@given(chains(), st.data())
def test_best_play_over_one_scale_gives_the_exact_scores_and_moves(chain: Chain, data: st.DataObject) -> None:
    nodes, ends = chain
    score, move = _reference(nodes, ends)
    play = _play(nodes, ends)
    asked = data.draw(st.permutations(sorted(nodes)))  # in any order: the scale grows as it must
    for s in asked:
        assert play.scored(s) == score[s], s
    for s in nodes:
        assert play.move(s) == move.get(s), s


def test_a_score_read_before_the_scale_grew_is_read_again() -> None:
    """P mixes A (scored first, over the scale 1) with B, whose own score (1/3) makes the scale
    grow while P is being scored: P must read A again, over the new scale (read as it was, A's 1
    and B's 3^7 would sum to an even number, which halves without a remainder: a wrong score)."""
    nodes: dict[int, Node | None] = {
        0: (None, [1, 2], (1, 1), 2),  # P
        1: None,  # A: worth 1
        2: (None, [3, 1], (2, 1), 3),  # B: two thirds lost, a third A
        3: None,  # worth 0
    }
    ends = {1: (Fraction(1),), 3: (Fraction(0),)}
    play = _play(nodes, ends)
    assert play.scored(1) == (Fraction(1),)
    assert play.scored(0) == (Fraction(2, 3),)
    assert play.scored(2) == (Fraction(1, 3),)


@st.composite
def flows(draw: st.DrawFn) -> tuple[Dist, dict[int, tuple[list[int], tuple[int, ...], int] | None]]:
    """An acyclic chain without choices over 0..n-1, with first weights over some of its states."""
    n = draw(st.integers(1, 14))
    edges: dict[int, tuple[list[int], tuple[int, ...], int] | None] = {}
    for s in range(n):
        later = list(range(s + 1, n))
        if not later or draw(st.booleans()):
            edges[s] = None  # an end
            continue
        to = draw(st.lists(st.sampled_from(later), min_size=1, max_size=4))
        weights = tuple(draw(st.integers(1, 7)) for _ in to)
        edges[s] = (to, weights, sum(weights))
    starts = draw(st.lists(st.sampled_from(range(n)), min_size=1, max_size=3, unique=True))
    first = {s: draw(st.integers(1, 9)) for s in starts}
    return Dist(first, sum(first.values())), edges


@settings(max_examples=300, deadline=None)
@given(flows())
def test_mass_pushed_over_one_scale_is_the_exact_distribution(flow: tuple[Dist, dict]) -> None:
    starts, edges = flow
    mass = {s: Fraction(w, starts.total) for s, w in starts.weights.items()}
    expected: dict[int, Fraction] = {}
    for s in sorted(edges):
        here = mass.pop(s, Fraction(0))
        nxt = edges[s]
        if nxt is None:
            if here:
                expected[s % 3] = expected.get(s % 3, Fraction(0)) + here
            continue
        to, weights, total = nxt
        for t, w in zip(to, weights):
            mass[t] = mass.get(t, Fraction(0)) + here * Fraction(w, total)
    got = pushed(starts, sorted(edges), edges.__getitem__, lambda s: s % 3)
    assert got.fractions() == expected


def test_a_pools_codes_land_in_many_dictionary_slots() -> None:
    """The codes of states and flights Chimera's pool of 12 dice reaches (3,000 here): in as many
    slots as codes, rounded up to a power of two, they take about three in four distinct slots,
    as a random hash would; the fields' number alone took 199 of them, under a tenth."""
    pool = _ruleset("chimera").model.checks["skill"].roll[0]
    proc = Procedure(pool, {"level": 0, "total_dice": 12})
    packing = Packing(proc, 14)
    codes = set()
    for state in _reachable(proc, 12, limit=600):
        codes.add(packing.pack(state))
        for t in range(len(proc.steps)):
            for left in range(1, 5):
                codes.add(packing.pack_any((state, t, left)))
    slots = (1 << (len(codes) - 1).bit_length()) - 1
    assert len({hash(c) & slots for c in codes}) > len(codes) / 2, len(codes)
