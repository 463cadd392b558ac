"""Peer implementations for the rulecraft benchmark: icepool and dyce.

Every task has one function per library.  Each function does the whole
computation from scratch when called and returns a plain ``dict`` mapping an
outcome (a ``str`` name or an ``int``) to an exact :class:`fractions.Fraction`;
the values sum to exactly 1.  Outcomes with probability 0 may be absent.

Nothing is cached here across calls.  Caches that live inside the libraries are
left alone, because they are part of what the benchmark measures; the
docstrings say where one matters:

* icepool keeps a cache on each ``MultisetEvaluator`` instance.  Its built-in
  evaluators, such as ``largest_count_and_outcome`` used for the Chimera
  majority, are module-level singletons with ``next_state_key = type(self)``.
  So a repeated call, or a call on a pool that shares sub-pools with an
  earlier one, reuses intermediate results.  ``Deal`` goes through the same
  evaluator machinery.  Small dice such as ``icepool.d12`` are also cached.
* dyce 0.7 keeps no cache between calls: ``P.survey`` memoises only within
  one call.

Tasks (the semantics are the ones rulecraft implements):

1. ``chill_specific(target)``: Chill 3e Specific check, percentile roll of
   two 0-9 d10s (tens, ones), where 00 reads 100.
2. ``chimera_majority(n)``: n d10 (0-9) classified into five classes.  The
   most common class wins, and ties go by a fixed preference.
3. ``castle_draw(k, keep, sets)``: draw k chits without replacement from a bag
   of sets x (3 poor, 4 average, 2 good), and keep the best or the worst.
4. ``chthonian_extent(traits, difficulty)`` / ``chthonian_success``:
   d12 + traits - difficulty (the Standard Roll: success when it is 0 or more).
5. ``castle_combat(skill, foe_skill, riposte)``: the Castle combat exchange.  Each side
   draws at its level from its own full bag (Disadvantaged two keeping the worst,
   Average one, Advantaged two keeping the best); the better bead hits, equal beads
   are a stand-off; with a Riposte a stand-off draws again at your level from a full
   bag, and a bead higher than the foe's is a riposte hit.
6. ``chthonian_contest(traits, foe_traits, must_win)``: each side rolls d12 + its
   Traits; the higher wins; a tie is a tie, or, when one side must win, goes to the
   higher Traits and is rerolled when they are equal.

Run ``python benchmarks/peers.py`` to check icepool, dyce and a plain-Python
brute force against each other for every task and parameter, and to print
per-call timings.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import dyce
import icepool
from dyce import H, P
from dyce.evaluation import HResult
from dyce.lifecycle import ExperimentalWarning
from dyce.p import survey_outcome_order_ascending

__all__ = [
    "CHILL_OUTCOMES",
    "CHIMERA_CLASSES",
    "CHIMERA_PREFERENCE",
    "CASTLE_CHITS",
    "chill_specific_icepool",
    "chill_specific_dyce",
    "chimera_majority_icepool",
    "chimera_majority_dyce",
    "castle_draw_icepool",
    "castle_draw_dyce",
    "chthonian_extent_icepool",
    "chthonian_extent_dyce",
    "chthonian_success_icepool",
    "chthonian_success_dyce",
    "castle_combat_icepool",
    "castle_combat_dyce",
    "chthonian_contest_icepool",
    "chthonian_contest_dyce",
    "PEERS",
    "self_check",
    "warm_up",
    "versions",
]

# ---------------------------------------------------------------------------
# Shared rule data (pure Python; the same for both libraries)
# ---------------------------------------------------------------------------

CHILL_OUTCOMES = ("botch", "failure", "low_success", "high_success", "colossal_success")


def _chill_band(tens: int, ones: int, target: int) -> str:
    """Result band of one (tens, ones) reading against ``target``: first match wins."""
    roll = 100 if tens == 0 and ones == 0 else 10 * tens + ones
    if roll == 100:
        return "botch" if target < 100 else "failure"
    doubles = tens == ones
    if doubles:
        return "colossal_success" if roll <= target else "botch"
    if roll > target:
        return "failure"
    if 2 * roll <= target:
        return "high_success"
    return "low_success"


CHIMERA_CLASSES = ("crit_fail", "fail", "half_pass", "pass", "crit_pass")
# Face (0..9) -> class name.
CHIMERA_FACE_CLASS = (
    "crit_fail",  # 0
    "fail",
    "fail",
    "fail",  # 1-3
    "half_pass",
    "half_pass",  # 4-5
    "pass",
    "pass",
    "pass",  # 6-8
    "crit_pass",  # 9
)
# Tie-break preference, most preferred first.
CHIMERA_PREFERENCE = ("half_pass", "fail", "pass", "crit_fail", "crit_pass")
# Encode each class as an int rank, where a higher rank is more preferred.
# Then the winner is just max((count, rank)) over the classes, which is
# exactly what a "largest count and outcome" evaluation computes.
_CHIMERA_RANK = {c: len(CHIMERA_PREFERENCE) - 1 - i for i, c in enumerate(CHIMERA_PREFERENCE)}
_CHIMERA_RANK_NAME = {r: c for c, r in _CHIMERA_RANK.items()}
_CHIMERA_FACE_RANK = tuple(_CHIMERA_RANK[c] for c in CHIMERA_FACE_CLASS)

CASTLE_CHITS = ("poor", "average", "good")  # ascending order; encoded as 0, 1, 2
_CASTLE_PER_SET = (3, 4, 2)


def _check_keep(keep: str) -> None:
    if keep not in ("best", "worst"):
        raise ValueError(f"keep must be 'best' or 'worst', not {keep!r}")


def _icepool_dict(die: icepool.Die, names: Any = None) -> dict[Any, Fraction]:
    """Turn a Die into {outcome: Fraction}, optionally renaming outcomes via ``names[outcome]``."""
    outs = die.outcomes()
    probs = die.probabilities()
    if names is None:
        return {o: p for o, p in zip(outs, probs) if p}
    return {names[o]: p for o, p in zip(outs, probs) if p}


def _dyce_dict(h: H, names: Any = None) -> dict[Any, Fraction]:
    """Turn an H into {outcome: Fraction}, optionally renaming outcomes via ``names[outcome]``."""
    if names is None:
        return {o: p for o, p in h.probability_items() if p}
    return {names[o]: p for o, p in h.probability_items() if p}


# ---------------------------------------------------------------------------
# 1. Chill 3e Specific check
# ---------------------------------------------------------------------------


def chill_specific_icepool(target: int) -> dict[str, Fraction]:
    """Chill Specific check with icepool.

    Approach: ``icepool.map(band, tens, ones)`` over two ``Die(range(10))``.
    That is the joint-outcome map (100 calls of a plain band function), and
    the result is a ``Die`` with string outcomes.  The check needs both dice
    kept apart (for doubles and 00 = 100), so there is no pool or multiset
    shortcut; ``map`` over two dice is icepool's idiomatic tool for this.
    """
    d10z = icepool.Die(range(10))
    die = icepool.map(lambda t, o: _chill_band(t, o, target), d10z, d10z, star=False)
    return _icepool_dict(die)


def chill_specific_dyce(target: int) -> dict[str, Fraction]:
    """Chill Specific check with dyce.

    Approach: ``H(range(10)).apply(band, H(range(10)))``.  ``H.apply`` with a
    second ``H`` takes the Cartesian product of the two histograms and
    accumulates the counts.  It is dyce's stable (non-experimental) joint-map
    API.
    """
    d10z = H(range(10))
    h = d10z.apply(lambda t, o: _chill_band(t, o, target), d10z)
    return _dyce_dict(h)


# ---------------------------------------------------------------------------
# 2. Chimera majority
# ---------------------------------------------------------------------------


class _MajorityEvaluator(icepool.MultisetEvaluator):
    """State = max((count, rank)) over the outcomes seen so far; the final outcome is the rank."""

    def next_state(
        self, state: tuple[int, int] | None, order: Any, outcome: int, count: int
    ) -> tuple[int, int]:
        cand = (count, outcome)
        return cand if state is None or cand > state else state

    def final_outcome(self, final_state: tuple[int, int], *_: Any) -> int:  # type: ignore[override]
        return final_state[1]

    @property
    def next_state_key(self) -> Any:
        # Same pattern as icepool's own built-in evaluators: next_state is a
        # pure function of the class, so results can be shared between calls.
        return type(self)


# One shared instance, as icepool does for its built-in evaluators ("shared
# instance for caching").  The cache that persists between calls is icepool's
# own, inside the instance.
_majority_evaluator = _MajorityEvaluator()


def chimera_majority_icepool(n: int) -> dict[str, Fraction]:
    """Chimera majority with icepool.

    Approach: a d10 whose ten faces are labelled with class ranks
    (``icepool.Die(face_ranks)``, so the weights are 1/3/2/3/1), where a
    higher rank is a more preferred tie-break.  Then ``.pool(n)``, evaluated
    by a small ``MultisetEvaluator`` whose state is ``max((count, rank))``
    and whose ``final_outcome`` is the rank.  This is icepool's multiset
    dynamic programme over 5 outcomes, polynomial in n.  It is the same
    computation as the built-in ``pool.largest_count_and_outcome().marginals[1]``
    but about 1.7x faster, because no intermediate tuple Die is built and
    then marginalised.

    Caching: the evaluator is one module-level instance with
    ``next_state_key = type(self)``, exactly the pattern icepool uses for its
    built-in evaluators.  So icepool's evaluator cache survives across calls:
    a repeated call with the same n, or a call with a larger n after a smaller
    one, reuses sub-results.  ``_chimera_majority_icepool_nocache`` uses a
    fresh evaluator per call to show the uncached cost.
    """
    return _icepool_dict(
        _majority_evaluator.evaluate(icepool.Die(_CHIMERA_FACE_RANK).pool(n)), _CHIMERA_RANK_NAME
    )


def _chimera_majority_icepool_nocache(n: int) -> dict[str, Fraction]:
    """Same as ``chimera_majority_icepool`` with a fresh evaluator, so no cache carries over between calls."""
    return _icepool_dict(
        _MajorityEvaluator().evaluate(icepool.Die(_CHIMERA_FACE_RANK).pool(n)), _CHIMERA_RANK_NAME
    )


def _chimera_majority_icepool_builtin(n: int) -> dict[str, Fraction]:
    """Built-in formulation: ``pool.largest_count_and_outcome().marginals[1]`` (shared, cached evaluator)."""
    die = icepool.Die(_CHIMERA_FACE_RANK).pool(n).largest_count_and_outcome().marginals[1]
    return _icepool_dict(die, _CHIMERA_RANK_NAME)


def _chimera_accumulate(state: tuple[int, int] | None, rank: int, count: int) -> tuple[int, int]:
    cand = (count, rank)
    return cand if state is None or cand > state else state


def _chimera_settle(state: tuple[int, int]) -> int:
    return state[1]


def chimera_majority_dyce(n: int) -> dict[str, Fraction]:
    """Chimera majority with dyce.

    Approach: ``n @ P(class_h)``, where ``class_h = H(face_ranks)`` is the
    d10 with its faces labelled by the same class ranks as in the icepool
    version.  Then
    ``P.survey(accumulate=..., order=ascending, settle=...)``.  ``survey`` is
    dyce 0.7's icepool-style state-collapsing fold over outcomes.  The state
    is ``max((count, rank))``, and ``settle`` keeps the rank.  This was faster
    than the other dyce formulation, ``expand(callback, n @ P(class_h))``,
    which enumerates all C(n+4, 4) sorted class rolls through
    ``P.rolls_with_counts``; see ``_chimera_majority_dyce_expand``.

    ``survey`` is marked experimental, and its ExperimentalWarning is
    suppressed locally.  Caching: none across calls (the memo lives inside one
    ``survey`` call).
    """
    class_h = H(_CHIMERA_FACE_RANK)
    pool = n @ P(class_h)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExperimentalWarning)
        h = pool.survey(
            accumulate=_chimera_accumulate,
            order=survey_outcome_order_ascending,
            settle=_chimera_settle,
        )
    return _dyce_dict(h, _CHIMERA_RANK_NAME)


def _chimera_majority_dyce_expand(n: int) -> dict[str, Fraction]:
    """Alternative dyce formulation, kept for comparison: ``expand`` over every sorted roll.

    ``min_path_probability=0`` is needed: the default cut-off (1/0x7FFFFF) would
    silently drop rare rolls such as ten crit_fails (probability 1e-10).
    """
    class_h = H(_CHIMERA_FACE_RANK)

    def winner(res: Any) -> int:
        roll = res.roll  # sorted tuple of ranks
        best = (0, -1)
        i = 0
        while i < len(roll):
            j = i
            while j < len(roll) and roll[j] == roll[i]:
                j += 1
            cand = (j - i, roll[i])
            if cand > best:
                best = cand
            i = j
        return best[1]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExperimentalWarning)
        h = dyce.expand(winner, n @ P(class_h), min_path_probability=Fraction(0))
    return _dyce_dict(h, _CHIMERA_RANK_NAME)


# ---------------------------------------------------------------------------
# 3. Castle draw (without replacement)
# ---------------------------------------------------------------------------


def castle_draw_icepool(k: int = 2, keep: str = "best", sets: int = 5) -> dict[str, Fraction]:
    """Castle chit draw with icepool.

    Approach: ``icepool.Deck({0: 3*sets, 1: 4*sets, 2: 2*sets})``
    (poor < average < good, encoded as ints so that they order correctly).
    Then ``deck.deal(k)``, and ``.highest(1).sum()`` for 'best' or
    ``.lowest(1).sum()`` for 'worst'.  ``Deal`` is icepool's exact
    hypergeometric multiset generator (drawing without replacement), so this
    is a native one-liner.
    """
    _check_keep(keep)
    deck = icepool.Deck({i: c * sets for i, c in enumerate(_CASTLE_PER_SET)})
    hand = deck.deal(k)
    kept = hand.highest(1) if keep == "best" else hand.lowest(1)
    return _icepool_dict(kept.sum(), CASTLE_CHITS)


def _castle_kept_dyce(k: int, keep: str, sets: int) -> H:
    """The kept chit (0 poor, 1 average, 2 good) of a draw of k without replacement, as an H.

    dyce has no deck / without-replacement primitive: ``H`` and ``P`` always
    model independent draws.  The draw is therefore built from sequential
    draws with ``dyce.expand``.  The callback removes the drawn chit from the
    bag, recursively ``expand``s the next draw over the reduced bag's ``H``,
    and returns that ``H`` (mapped through max or min with the chit just
    drawn).  ``expand`` splices a returned ``H`` in place and rescales it
    correctly, so the result is exact.  The cost grows like (number of chit
    kinds)^k; for k=2 that is 3 + 9 callback calls.

    ``expand`` is marked experimental, and its ExperimentalWarning is
    suppressed locally.  ``min_path_probability=0`` turns off dyce's default
    path truncation (it is not reached at k=2, but this keeps the result exact
    for any k).  Caching: none.
    """
    _check_keep(keep)
    pick = max if keep == "best" else min
    bag0 = tuple(c * sets for c in _CASTLE_PER_SET)

    def draw(res: HResult[int], *, bag: tuple[int, ...], left: int) -> H[int] | int:
        got = res.outcome
        if left == 1:
            return got
        rest = list(bag)
        rest[got] -= 1
        rest_t = tuple(rest)
        nxt = dyce.expand(draw, H({i: c for i, c in enumerate(rest_t) if c}), bag=rest_t, left=left - 1)
        return nxt.apply(lambda x: pick(x, got))

    if k < 1 or k > sum(bag0):
        raise ValueError(f"k must be between 1 and {sum(bag0)}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExperimentalWarning)
        return dyce.expand(
            draw,
            H({i: c for i, c in enumerate(bag0) if c}),
            bag=bag0,
            left=k,
            min_path_probability=Fraction(0),
        )


def castle_draw_dyce(k: int = 2, keep: str = "best", sets: int = 5) -> dict[str, Fraction]:
    """Castle chit draw with dyce: sequential draws with ``dyce.expand`` (see ``_castle_kept_dyce``)."""
    return _dyce_dict(_castle_kept_dyce(k, keep, sets), CASTLE_CHITS)


# ---------------------------------------------------------------------------
# 3b. Castle combat exchange (two draws, and a riposte draw on a stand-off)
# ---------------------------------------------------------------------------

CASTLE_LEVELS = ("disadvantaged", "average", "advantaged")
COMBAT_OUTCOMES = ("foe_hits", "stand_off", "you_hit", "riposte_hit")
# A skill level's draw: (chits drawn, which one is kept).
_CASTLE_DRAW = {"disadvantaged": (2, "worst"), "average": (1, "best"), "advantaged": (2, "best")}


def _castle_level(level: str) -> tuple[int, str]:
    if level not in _CASTLE_DRAW:
        raise ValueError(f"level must be one of {CASTLE_LEVELS}, not {level!r}")
    return _CASTLE_DRAW[level]


def _castle_kept_icepool(level: str, sets: int = 5) -> icepool.Die:
    k, keep = _castle_level(level)
    hand = icepool.Deck({i: c * sets for i, c in enumerate(_CASTLE_PER_SET)}).deal(k)
    return (hand.highest(1) if keep == "best" else hand.lowest(1)).sum()


def castle_combat_icepool(
    skill: str = "average", foe_skill: str = "average", riposte: bool = False
) -> dict[str, Fraction]:
    """Castle combat exchange with icepool.

    Approach: each side's kept bead is a ``Deck.deal(k).highest(1)`` (or
    ``lowest``) die, as in ``castle_draw_icepool``; ``icepool.map`` over the two
    beads classifies the exchange, and on a stand-off with a Riposte returns
    the riposte bead's die mapped against the foe's bead (icepool mixes a
    returned ``Die`` in with the right weights).  The riposte bead is only
    drawn on a stand-off, as in the rules.
    """
    mine = _castle_kept_icepool(skill)
    theirs = mine if foe_skill == skill else _castle_kept_icepool(foe_skill)
    again = mine if riposte else None

    def exchange(m: int, t: int) -> Any:
        if m > t:
            return 2
        if m < t:
            return 0
        if again is None:
            return 1
        return again.map(lambda r: 3 if r > t else 1)

    return _icepool_dict(icepool.map(exchange, mine, theirs), COMBAT_OUTCOMES)


def castle_combat_dyce(
    skill: str = "average", foe_skill: str = "average", riposte: bool = False
) -> dict[str, Fraction]:
    """Castle combat exchange with dyce.

    Approach: each side's kept bead is an ``H`` built by ``_castle_kept_dyce``
    (sequential draws with ``expand``); then ``dyce.expand`` over the two beads
    classifies the exchange and, on a stand-off with a Riposte, returns the
    riposte bead's ``H`` mapped against the foe's bead (``expand`` splices a
    returned ``H`` in with the right weights).  Caching: none.
    """
    mine = _castle_kept_dyce(*_castle_level(skill), 5)
    theirs = mine if foe_skill == skill else _castle_kept_dyce(*_castle_level(foe_skill), 5)
    again = mine if riposte else None

    def exchange(m: HResult[int], t: HResult[int]) -> Any:
        mo, to = m.outcome, t.outcome
        if mo > to:
            return 2
        if mo < to:
            return 0
        if again is None:
            return 1
        return again.apply(lambda r: 3 if r > to else 1)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExperimentalWarning)
        h = dyce.expand(exchange, mine, theirs, min_path_probability=Fraction(0))
    return _dyce_dict(h, COMBAT_OUTCOMES)


# ---------------------------------------------------------------------------
# 4. Chthonian Stress extent
# ---------------------------------------------------------------------------


def chthonian_extent_icepool(traits: int, difficulty: int) -> dict[int, Fraction]:
    """Extent with icepool: ``icepool.d12 + (traits - difficulty)`` (die arithmetic)."""
    return _icepool_dict(icepool.d12 + (traits - difficulty))


def chthonian_extent_dyce(traits: int, difficulty: int) -> dict[int, Fraction]:
    """Extent with dyce: ``H(12) + (traits - difficulty)`` (histogram arithmetic)."""
    return _dyce_dict(H(12) + (traits - difficulty))


_SUCCESS_NAMES = {True: "success", False: "failure"}


def chthonian_success_icepool(traits: int, difficulty: int) -> dict[str, Fraction]:
    """P(extent >= 0) with icepool: ``(icepool.d12 + m) >= 0``, which gives a Die of bools."""
    return _icepool_dict((icepool.d12 + (traits - difficulty)) >= 0, _SUCCESS_NAMES)


def chthonian_success_dyce(traits: int, difficulty: int) -> dict[str, Fraction]:
    """P(extent >= 0) with dyce: ``(H(12) + m).ge(0)``, which gives an H of bools."""
    return _dyce_dict((H(12) + (traits - difficulty)).ge(0), _SUCCESS_NAMES)


CONTEST_OUTCOMES = ("lose", "reroll", "tie", "win")


def _contest_reading(traits: int, foe_traits: int, must_win: bool) -> Callable[[int], int]:
    """The outcome (an index into CONTEST_OUTCOMES) of one Extent, your result less the foe's."""

    def reading(extent: int) -> int:
        if extent > 0:
            return 3
        if extent < 0:
            return 0
        if not must_win:
            return 2
        return 3 if traits > foe_traits else 0 if traits < foe_traits else 1

    return reading


def chthonian_contest_icepool(traits: int, foe_traits: int, must_win: bool = False) -> dict[str, Fraction]:
    """Contest Roll with icepool: ``((d12 + traits) - (d12 + foe_traits)).map(reading)`` (die arithmetic)."""
    extent = (icepool.d12 + traits) - (icepool.d12 + foe_traits)
    return _icepool_dict(extent.map(_contest_reading(traits, foe_traits, must_win)), CONTEST_OUTCOMES)


def chthonian_contest_dyce(traits: int, foe_traits: int, must_win: bool = False) -> dict[str, Fraction]:
    """Contest Roll with dyce: ``((H(12) + traits) - (H(12) + foe_traits)).apply(reading)``."""
    extent = (H(12) + traits) - (H(12) + foe_traits)
    return _dyce_dict(extent.apply(_contest_reading(traits, foe_traits, must_win)), CONTEST_OUTCOMES)


# ---------------------------------------------------------------------------
# Registry and versions
# ---------------------------------------------------------------------------

PEERS: dict[str, dict[str, Callable[..., dict[Any, Fraction]]]] = {
    "chill_specific": {"icepool": chill_specific_icepool, "dyce": chill_specific_dyce},
    "chimera_majority": {"icepool": chimera_majority_icepool, "dyce": chimera_majority_dyce},
    "castle_draw": {"icepool": castle_draw_icepool, "dyce": castle_draw_dyce},
    "chthonian_extent": {"icepool": chthonian_extent_icepool, "dyce": chthonian_extent_dyce},
    "chthonian_success": {"icepool": chthonian_success_icepool, "dyce": chthonian_success_dyce},
    "castle_combat": {"icepool": castle_combat_icepool, "dyce": castle_combat_dyce},
    "chthonian_contest": {"icepool": chthonian_contest_icepool, "dyce": chthonian_contest_dyce},
}


def warm_up(library: str) -> None:
    """An unrelated task (a pool of 3d6, its sum at least 11, as rulecraft's warm-up in bench.py),
    so that a library's first use of its pool machinery is not charged to the first task timed
    in a fresh process."""
    if library == "icepool":
        _icepool_dict(icepool.d6.pool(3).sum() >= 11)  # a pool, through icepool's evaluator
    elif library == "dyce":
        _dyce_dict((3 @ P(6)).h().ge(11))  # a pool of three d6, summed
    else:
        raise ValueError(f"no peer library {library!r}")


def versions() -> dict[str, str]:
    """Installed versions of the peer libraries."""
    from importlib.metadata import version

    return {"icepool": version("icepool"), "dyce": version("dyce")}


# ---------------------------------------------------------------------------
# Self-check and timing:  python benchmarks/peers.py
# ---------------------------------------------------------------------------

# Parameters checked by the self-check.
CHILL_TARGETS = range(1, 121)
CHIMERA_NS = range(1, 11)
CASTLE_PARAMS = [(2, keep, 5) for keep in ("best", "worst")]
# Extra castle cases beyond the benchmark's own (cheap, and they exercise the
# general-k code paths).
CASTLE_EXTRA = [(k, keep, s) for k in (1, 2, 3) for keep in ("best", "worst") for s in (1, 2, 5)]
CHTHONIAN_PARAMS = [(t, d) for t in range(0, 7) for d in range(0, 19)]


def _brute_chill(target: int) -> dict[str, Fraction]:
    """Every (tens, ones) pair.  The band is written out again, with its own logic."""
    from itertools import product

    counts: dict[str, int] = {}
    for tens, ones in product(range(10), repeat=2):
        is_00 = tens == 0 and ones == 0
        roll = 100 if is_00 else tens * 10 + ones
        dbl = tens == ones
        if is_00:
            band = "failure" if target >= 100 else "botch"
        elif roll > target:
            band = "botch" if dbl else "failure"
        elif dbl:
            band = "colossal_success"
        elif Fraction(roll) <= Fraction(target, 2):
            band = "high_success"
        else:
            band = "low_success"
        counts[band] = counts.get(band, 0) + 1
    return {b: Fraction(c, 100) for b, c in counts.items()}


def _brute_chimera_winner(classes: Any) -> str:
    from collections import Counter

    cnt = Counter(classes)
    top = max(cnt.values())
    return next(c for c in CHIMERA_PREFERENCE if cnt.get(c, 0) == top)


def _brute_chimera_faces(n: int) -> dict[str, Fraction]:
    """Every ordered tuple of n faces (10**n of them; used only for small n)."""
    from itertools import product

    counts: dict[str, int] = {}
    for faces in product(range(10), repeat=n):
        w = _brute_chimera_winner(CHIMERA_FACE_CLASS[f] for f in faces)
        counts[w] = counts.get(w, 0) + 1
    return {c: Fraction(v, 10**n) for c, v in counts.items()}


def _brute_chimera_multisets(n: int) -> dict[str, Fraction]:
    """Every multiset of n faces, weighted by its number of orderings (multinomial)."""
    from collections import Counter
    from itertools import combinations_with_replacement
    from math import factorial

    counts: dict[str, int] = {}
    for faces in combinations_with_replacement(range(10), n):
        ways = factorial(n)
        for m in Counter(faces).values():
            ways //= factorial(m)
        w = _brute_chimera_winner(CHIMERA_FACE_CLASS[f] for f in faces)
        counts[w] = counts.get(w, 0) + ways
    return {c: Fraction(v, 10**n) for c, v in counts.items()}


def _brute_castle(k: int, keep: str, sets: int) -> dict[str, Fraction]:
    """Every ordered draw of k distinct chits from the physical bag."""
    from itertools import permutations

    bag = [kind for kind, c in enumerate(_CASTLE_PER_SET) for _ in range(c * sets)]
    pick = max if keep == "best" else min
    counts: dict[str, int] = {}
    total = 0
    for draw in permutations(range(len(bag)), k):
        kept = CASTLE_CHITS[pick(bag[i] for i in draw)]
        counts[kept] = counts.get(kept, 0) + 1
        total += 1
    return {c: Fraction(v, total) for c, v in counts.items()}


def _brute_chimera_classes(n: int) -> dict[str, Fraction]:
    """Every count of dice per class (C(n+4, 4) of them), weighted by its multinomial number of
    rolls and each class's faces: independent of both libraries, and fast enough for 100 dice."""
    from math import comb

    weight = {c: CHIMERA_FACE_CLASS.count(c) for c in CHIMERA_CLASSES}
    order = CHIMERA_CLASSES
    pw = {c: [weight[c] ** i for i in range(n + 1)] for c in order}
    counts: dict[str, int] = dict.fromkeys(order, 0)
    rank = {c: i for i, c in enumerate(CHIMERA_PREFERENCE)}
    for a in range(n + 1):
        wa = comb(n, a) * pw[order[0]][a]
        for b in range(n - a + 1):
            wb = wa * comb(n - a, b) * pw[order[1]][b]
            for c in range(n - a - b + 1):
                wc = wb * comb(n - a - b, c) * pw[order[2]][c]
                left = n - a - b - c
                for d in range(left + 1):
                    e = left - d
                    ways = wc * comb(left, d) * pw[order[3]][d] * pw[order[4]][e]
                    got = (a, b, c, d, e)
                    top = max(got)
                    winner = min((k for k in range(5) if got[k] == top), key=lambda k: rank[order[k]])
                    counts[order[winner]] += ways
    return {c: Fraction(v, 10**n) for c, v in counts.items() if v}


def _brute_castle_kept(level: str, sets: int = 5) -> dict[int, Fraction]:
    """Every ordered draw of a level's chits from the physical bag; the kept chit's index."""
    from itertools import permutations

    k, keep = _castle_level(level)
    bag = [kind for kind, c in enumerate(_CASTLE_PER_SET) for _ in range(c * sets)]
    pick = max if keep == "best" else min
    counts: dict[int, int] = {}
    total = 0
    for draw in permutations(range(len(bag)), k):
        kept = pick(bag[i] for i in draw)
        counts[kept] = counts.get(kept, 0) + 1
        total += 1
    return {c: Fraction(v, total) for c, v in counts.items()}


def _brute_castle_combat(skill: str, foe_skill: str, riposte: bool) -> dict[str, Fraction]:
    """Every (foe bead, your bead, riposte bead) of three independent full-bag draws."""
    foe, mine = _brute_castle_kept(foe_skill), _brute_castle_kept(skill)
    out: dict[str, Fraction] = {}
    for t, pt in foe.items():
        for m, pm in mine.items():
            for r, pr in mine.items():  # the riposte draw, read only on a stand-off with a Riposte
                if m > t:
                    name = "you_hit"
                elif m < t:
                    name = "foe_hits"
                elif riposte and r > t:
                    name = "riposte_hit"
                else:
                    name = "stand_off"
                out[name] = out.get(name, Fraction(0)) + pt * pm * pr
    return out


def _brute_chthonian_contest(traits: int, foe_traits: int, must_win: bool) -> dict[str, Fraction]:
    out: dict[str, Fraction] = {}
    for mine in range(1, 13):
        for theirs in range(1, 13):
            a, b = mine + traits, theirs + foe_traits
            if a != b:
                name = "win" if a > b else "lose"
            elif not must_win:
                name = "tie"
            elif traits != foe_traits:
                name = "win" if traits > foe_traits else "lose"
            else:
                name = "reroll"
            out[name] = out.get(name, Fraction(0)) + Fraction(1, 144)
    return out


def _brute_chthonian_extent(traits: int, difficulty: int) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for face in range(1, 13):
        e = face + traits - difficulty
        out[e] = out.get(e, 0) + Fraction(1, 12)
    return out


def _brute_chthonian_success(traits: int, difficulty: int) -> dict[str, Fraction]:
    ok = sum(1 for face in range(1, 13) if face + traits - difficulty >= 0)
    out = {"success": Fraction(ok, 12), "failure": Fraction(12 - ok, 12)}
    return {k: v for k, v in out.items() if v}


def _nonzero(d: dict[Any, Fraction]) -> dict[Any, Fraction]:
    return {k: v for k, v in d.items() if v != 0}


def _check_result(name: str, args: tuple, expected: dict, got: dict, lib: str) -> None:
    for v in got.values():
        if not isinstance(v, Fraction):
            raise AssertionError(f"{name}{args} [{lib}]: value {v!r} is not a Fraction")
    if sum(got.values()) != 1:
        raise AssertionError(f"{name}{args} [{lib}]: probabilities sum to {sum(got.values())}")
    if _nonzero(got) != _nonzero(expected):
        raise AssertionError(f"{name}{args} [{lib}]: got {got}, expected {expected}")


def _time_first_and_repeat(fn: Callable[..., Any], args: tuple, repeats: int = 20) -> tuple[float, float]:
    import statistics
    import time

    t0 = time.perf_counter()
    fn(*args)
    first = time.perf_counter() - t0
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args)
        samples.append(time.perf_counter() - t0)
    return first, statistics.median(samples)


def _fmt(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:8.3f} s "
    if seconds >= 1e-3:
        return f"{seconds * 1e3:8.3f} ms"
    return f"{seconds * 1e6:8.1f} us"


def _main() -> int:
    import time

    v = versions()
    print(f"icepool {v['icepool']}, dyce {v['dyce']}")

    # -- Timing first, so that "first" really is the first call of each
    # function in this process.  The benchmark points are the representative
    # parameters.  Note: icepool's first-ever evaluation also pays some
    # one-time setup that gets charged to whichever task happens to run first.
    bench_points: list[tuple[str, str, tuple]] = [
        ("chill_specific", "chill_specific(55)", (55,)),
        ("chimera_majority", "chimera_majority(10)", (10,)),
        ("castle_draw", "castle_draw(2,'best',5)", (2, "best", 5)),
        ("castle_draw", "castle_draw(2,'worst',5)", (2, "worst", 5)),
        ("chthonian_extent", "chthonian_extent(3,7)", (3, 7)),
        ("chthonian_success", "chthonian_success(3,7)", (3, 7)),
        ("castle_combat", "castle_combat(avg,avg)", ("average", "average", False)),
        ("castle_combat", "castle_combat(adv,dis,riposte)", ("advantaged", "disadvantaged", True)),
        ("chthonian_contest", "chthonian_contest(3,4)", (3, 4, False)),
    ]
    print()
    print(f"{'task':<28} {'icepool first':>14} {'icepool repeat':>15} {'dyce first':>14} {'dyce repeat':>15}")
    for task, label, args in bench_points:
        row = [f"{label:<28}"]
        for lib in ("icepool", "dyce"):
            first, rep = _time_first_and_repeat(PEERS[task][lib], args)
            row.append(f"{_fmt(first):>14} {_fmt(rep):>15}")
        print(" ".join(row))

    # Whole-sweep timing: each library over a task's full parameter list, once.
    sweeps: list[tuple[str, str, list[tuple]]] = [
        ("chill_specific", "chill sweep (120 targets)", [(t,) for t in CHILL_TARGETS]),
        ("chimera_majority", "chimera sweep (n=1..10)", [(n,) for n in CHIMERA_NS]),
        ("chthonian_extent", f"chthonian sweep ({len(CHTHONIAN_PARAMS)} cases)", CHTHONIAN_PARAMS),
    ]
    print()
    print(f"{'sweep (one pass, warm)':<28} {'icepool':>14} {'dyce':>14}")
    for task, label, plist in sweeps:
        row = [f"{label:<28}"]
        for lib in ("icepool", "dyce"):
            fn = PEERS[task][lib]
            t0 = time.perf_counter()
            for args in plist:
                fn(*args)
            row.append(f"{_fmt(time.perf_counter() - t0):>14}")
        print(" ".join(row))

    # Chimera per-n (repeat medians), since its cost grows with n.
    print()
    print("chimera_majority per n, median of repeats (the first two columns are the functions in PEERS):")
    variants = [
        ("icepool", chimera_majority_icepool, 20),
        ("dyce survey", chimera_majority_dyce, 20),
        ("icepool no-cache", _chimera_majority_icepool_nocache, 5),
        ("icepool builtin", _chimera_majority_icepool_builtin, 20),
        ("dyce expand", _chimera_majority_dyce_expand, 5),
    ]
    print("  " + "".join(f"{name:>18}" for name, _, _ in variants))
    for n in CHIMERA_NS:
        cells = [_fmt(_time_first_and_repeat(fn, (n,), repeats=r)[1]) for _, fn, r in variants]
        print(f"  n={n:<2}" + "".join(f"{c:>18}" for c in cells)[4:])

    print()
    print(f"all {self_check(full=True, say=print)} library results agree")
    return 0


CASTLE_COMBATS = [
    (skill, foe, riposte) for skill in CASTLE_LEVELS for foe in CASTLE_LEVELS for riposte in (False, True)
]
CONTEST_PARAMS = [(t, f, m) for t in range(-2, 5) for f in range(-2, 5) for m in (False, True)]
CHIMERA_LARGE = (20, 30, 60, 100)


def self_check(full: bool = True, say: Callable[[str], object] = lambda _: None) -> int:
    """Check icepool, dyce and a plain-Python enumeration against each other for every task;
    `full=False` keeps to the small sizes (seconds), as tests/test_bench.py does. Returns the
    number of library results checked; raises AssertionError on the first disagreement."""
    checks = 0

    sanity = {
        "botch": Fraction(1, 20),
        "colossal_success": Fraction(1, 20),
        "failure": Fraction(2, 5),
        "high_success": Fraction(1, 4),
        "low_success": Fraction(1, 4),
    }
    assert _brute_chill(55) == sanity, _brute_chill(55)
    # The ruleset's own worked figures (rulesets/castle.yaml, the combat check's examples).
    assert _brute_castle_combat("average", "average", False) == {
        "foe_hits": Fraction(26, 81),
        "stand_off": Fraction(29, 81),
        "you_hit": Fraction(26, 81),
    }
    assert _brute_chthonian_contest(0, 0, False) == {
        "win": Fraction(11, 24),
        "tie": Fraction(1, 12),
        "lose": Fraction(11, 24),
    }

    def run(task: str, plist: list[tuple[Any, ...]], brute: Callable[..., dict[Any, Fraction]]) -> None:
        nonlocal checks
        for args in plist:
            expected = brute(*args)
            assert sum(expected.values()) == 1
            for lib, fn in PEERS[task].items():
                _check_result(task, args, expected, fn(*args), lib)
                checks += 1
        say(f"ok  {task:<18} {len(plist):4d} parameter sets: icepool == dyce == brute force")

    run("chill_specific", [(t,) for t in CHILL_TARGETS] if full else [(1,), (55,), (100,)], _brute_chill)

    # Chimera: three enumerations that agree where they are cheap (every ordered roll, every
    # multiset of faces, every count per class); the last one checks the large pools.
    for n in range(1, 6 if full else 4):
        assert _brute_chimera_multisets(n) == _brute_chimera_faces(n) == _brute_chimera_classes(n), n
    small = [(n,) for n in (CHIMERA_NS if full else range(1, 5))]
    run("chimera_majority", small, _brute_chimera_multisets)
    if full:
        run("chimera_majority", [(n,) for n in CHIMERA_LARGE], _brute_chimera_classes)
        for n in CHIMERA_NS:
            expected = _brute_chimera_multisets(n)
            for lib, fn in (
                ("dyce-expand", _chimera_majority_dyce_expand),
                ("icepool-nocache", _chimera_majority_icepool_nocache),
                ("icepool-builtin", _chimera_majority_icepool_builtin),
            ):
                _check_result("chimera_majority", (n,), expected, fn(n), lib)
        say("ok  chimera_majority alternative formulations (dyce expand, icepool no-cache/builtin)")

    run("castle_draw", CASTLE_PARAMS + (CASTLE_EXTRA if full else []), _brute_castle)
    run("castle_combat", CASTLE_COMBATS, _brute_castle_combat)
    chthonian = CHTHONIAN_PARAMS if full else [(3, 8), (0, 0), (6, 18)]
    run("chthonian_extent", chthonian, _brute_chthonian_extent)
    run("chthonian_success", chthonian, _brute_chthonian_success)
    run(
        "chthonian_contest",
        CONTEST_PARAMS if full else [(3, 4, False), (2, 1, True), (0, 0, True)],
        _brute_chthonian_contest,
    )
    return checks


if __name__ == "__main__":
    raise SystemExit(_main())
