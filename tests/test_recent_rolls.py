"""`Ruleset.roll`'s recent rollers and the drawers of kept rolls.

- A roll with the arguments of a recent roll of the same check goes straight to its proven
  roller; anything that is not the same arguments of the same types (`True` after `1`, `55.0`
  after `55`, a `str` subclass, a policy or trace of another type) goes the way it went before
  and gives what a fresh ruleset gives, result or error.
- The recent rollers hold only bindings the ruleset's cache holds, at most `RECENT` a check;
  rolls with many argument sets in turn find their rollers without binding again.
- The results cannot be changed; a roll inside a running request's budget is still metered.
- The drawers write out `Random._randbelow`: the same faces and the same generator state as
  `_randbelow` itself for any number of dice of any size.
"""

from __future__ import annotations

import random
import sys
from fractions import Fraction
from functools import partial
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import api
from engine.api import RECENT
from engine.eval import sample as sampling
from engine.runtime.limits import Limits
from engine.runtime.work import Work, working


class _Str(str):
    """A `str` that equals its text but is not of its type."""


class _Int(int):
    """An `int` that equals its value but is not of its type."""


def _warm(rs: engine.Ruleset, **inputs: Any) -> None:
    """Roll until the binding is proven and its roller remembered."""
    rng = random.Random(0)
    for traced in (True, False):
        for _ in range(3):
            rs.roll("specific", rng, trace=traced, **inputs)
    assert "specific" in rs._recent


def _entries(rs: engine.Ruleset) -> list[Any]:
    """Every remembered roll of every check: the newest of each, and its table."""
    return [entry for newest, table, _ in rs._recent.values() for entry in (newest, *table.values())]


def _outcome(call: Any) -> Any:
    """What a call gives: the result's parts, or the error's type and text."""
    try:
        r = call()
    except (engine.RulecraftError, TypeError) as exc:
        return type(exc).__name__, str(exc)
    return r.outcome, r.values, r.inputs, {k: type(v) for k, v in r.inputs.items()}, r.rolled, r.trace


ODD = [  # (plain arguments, arguments equal to them of other types)
    ({"target": 1}, {"target": True}),
    ({"target": 55}, {"target": 55.0}),
    ({"target": 1}, {"target": 1.0}),
    ({"target": 55}, {"target": Fraction(55)}),
    ({"target": 55}, {"target": _Int(55)}),
    ({"target": 55, "roller": "player"}, {"target": 55, "roller": _Str("player")}),
    ({"target": 55, "tokens": 1}, {"target": 55, "tokens": True}),
    ({"target": 55, "tokens": 0}, {"target": 55, "tokens": 0.0}),
    ({"target": 55, "tokens": 0}, {"target": 55, "tokens": False}),
]


@pytest.mark.parametrize(("plain", "odd"), ODD, ids=repr)
def test_arguments_of_other_types_go_the_way_they_went_before(
    plain: dict[str, Any], odd: dict[str, Any]
) -> None:
    """Right after a roll with the plain arguments (its roller the newest remembered), a roll
    with equal arguments of other types gives what a fresh ruleset (nothing remembered) gives:
    the same result, or the same error."""
    warm = engine.load("chill")
    _warm(warm, **plain)
    for traced in (True, False):
        fresh = engine.load("chill")
        warm.roll("specific", random.Random(2), trace=traced, **plain)
        ours = _outcome(partial(warm.roll, "specific", random.Random(3), trace=traced, **odd))
        theirs = _outcome(partial(fresh.roll, "specific", random.Random(3), trace=traced, **odd))
        assert ours == theirs
    for given_inputs, policy, traced, *_ in _entries(warm):
        assert all(type(v) in (int, str) for v in given_inputs.values())
        assert type(policy) is str and type(traced) is bool


def test_a_bool_never_finds_the_roller_of_a_number() -> None:
    chill = engine.load("chill")
    for traced in (True, False):
        _warm(chill, target=1)
        chill.roll("specific", random.Random(1), trace=traced, target=1)  # the newest
        with pytest.raises(engine.InputError) as caught:
            chill.roll("specific", random.Random(1), trace=traced, target=True)
        assert caught.value.diagnostics[0].code == "RC404"


def test_a_policy_or_trace_of_another_kind_is_refused_as_before() -> None:
    chill = engine.load("chill")
    _warm(chill, target=55)
    with pytest.raises(TypeError):
        chill.roll("specific", random.Random(1), trace=1, target=55)  # type: ignore[arg-type]
    with pytest.raises(engine.RulecraftError) as caught:
        chill.roll("specific", random.Random(1), policy="sometimes", target=55)
    assert caught.value.diagnostics[0].code == "RC408"
    odd = _Str("always")  # accepted as a name, as before: the same roll a fresh ruleset gives
    fresh = engine.load("chill")
    assert _outcome(lambda: chill.roll("specific", random.Random(1), policy=odd, target=55)) == _outcome(
        lambda: fresh.roll("specific", random.Random(1), policy=odd, target=55)
    )
    with pytest.raises(engine.RulecraftError) as caught:
        chill.roll("specific", 7, target=55)  # type: ignore[arg-type]
    assert "random.Random" in str(caught.value)


def test_an_equal_policy_that_is_another_string_finds_the_roller() -> None:
    chill = engine.load("chill")
    _warm(chill, target=55)
    built = "".join(["alw", "ays"])  # not the interned "always"
    assert built is not sys.intern("always")  # the point: equal, not the same object
    before = len(_entries(chill))
    a = chill.roll("specific", random.Random(5), policy=built, target=55)
    assert len(_entries(chill)) == before  # found, not remembered anew
    assert all(entry[1] is not built for entry in _entries(chill))
    b = engine.load("chill").roll("specific", random.Random(5), target=55)
    assert a == b and a.trace == b.trace and a.policy == "always"


class _Unequal:
    """An input whose `==` raises: never compared with a remembered input (it is refused by
    type first, as on a fresh ruleset)."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("compared")

    __hash__ = object.__hash__


def test_an_input_whose_equality_raises_is_refused_as_before() -> None:
    np = pytest.importorskip("numpy")
    for value in (_Unequal(), np.array([55, 56])):
        warm, fresh = engine.load("chill"), engine.load("chill")
        _warm(warm, target=55)
        got = [_outcome(partial(rs.roll, "specific", random.Random(1), target=value)) for rs in (warm, fresh)]
        assert got[0] == got[1] and got[0][0] == "InputError", got
        _warm(warm, target=55, tokens=0)  # two inputs: the loop over their types comes first too
        two = [
            partial(rs.roll, "specific", random.Random(1), target=55, tokens=value) for rs in (warm, fresh)
        ]
        assert _outcome(two[0]) == _outcome(two[1])


def test_new_limits_hold_for_a_remembered_roll() -> None:
    """A ruleset given new `limits` (as a server's worker does per job) proves its rolls again
    under them: a budget too small for the check is refused on every path, as on a fresh
    ruleset with those limits, and a budget that admits it again gets rollers of its own."""
    chill = engine.load("chill")
    _warm(chill, target=55)
    old = chill.roller("specific", target=55)
    chill.limits = Limits(max_work=1)  # the check charges 2 units
    tight = engine.load("chill", limits=Limits(max_work=1))
    for call in (
        lambda rs: rs.roll("specific", random.Random(1), target=55),
        lambda rs: rs.roll("specific", _Sub(1), target=55),
        lambda rs: rs.roll("specific", random.Random(1), trace=False, target=55),
    ):
        assert _outcome(partial(call, chill))[0] == "LimitError"
        assert _outcome(partial(call, chill)) == _outcome(partial(call, tight))
    with working(Work(10**6)):
        assert _outcome(lambda: chill.roll("specific", random.Random(1), target=55))[0] == "LimitError"
    chill.limits = Limits(max_work=10)
    again = chill.roll("specific", random.Random(2), target=55)
    assert again == engine.load("chill").roll("specific", random.Random(2), target=55)
    new = chill.roller("specific", target=55)
    assert new is not old and new(random.Random(3)) == old(random.Random(3))


def test_a_policy_given_as_another_kind_of_str_comes_back_as_its_own_name() -> None:
    odd = _Str("always")
    for rs in (engine.load("chill"), engine.load("chill")):
        results = [rs.roll("specific", random.Random(1), policy=odd, target=55) for _ in range(3)]
        with working(Work(10**6)):
            results.append(rs.roll("specific", random.Random(1), policy="always", target=55))
        results.append(rs.roll("specific", random.Random(1), target=55))
        assert [type(r.policy) for r in results] == [str] * 5
        assert all(r.policy == "always" for r in results)
        assert rs.roller("specific", policy=odd, target=55)(random.Random(1)).policy.__class__ is str


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 6), st.booleans(), st.sampled_from([None, 0, 1])), min_size=1, max_size=60
    ),
    st.integers(0, 2**32),
    st.sampled_from([RECENT, 3]),
)
def test_recent_rolls_are_the_rolls_a_fresh_ruleset_gives(
    calls: list[tuple[int, bool, int | None]], seed: int, bound: int
) -> None:
    """Any sequence of rolls with a few targets, with or without tokens (one input or two: the
    two kinds of key, `_remembered`), traced or not, from one RNG: the same results, traces and
    RNG state as on a ruleset that remembers nothing (every roll there goes the way it went
    before: bound by its key). With a bound of 3 the 36 argument sets overflow the table again
    and again, and it starts again each time."""
    warm, cold = engine.load("chill"), engine.load("chill")
    ours, theirs = random.Random(seed), random.Random(seed)
    with patch.object(api, "RECENT", bound):
        for target, traced, tokens in calls:
            inputs = {"target": target * 10} if tokens is None else {"target": target * 10, "tokens": tokens}
            a = warm.roll("specific", ours, trace=traced, **inputs)
            cold.caches.bindings.recent.clear()
            b = cold.roll("specific", theirs, trace=traced, **inputs)
            assert a == b and a.trace == b.trace
            for _, table, _ in warm._recent.values():
                assert len(table) <= bound
    assert ours.getstate() == theirs.getstate()


def test_rolls_with_many_argument_sets_in_turn_find_their_rollers() -> None:
    """A bot rolling one check against many targets in turn: once each set of arguments has
    been rolled and proven, a roll with any of them goes straight to its roller, without
    binding its inputs or looking its binding up again; a new target is bound as before."""
    chill = engine.load("chill")
    rng = random.Random(4)
    targets = range(1, 41)
    calls = [{"target": t} for t in targets] + [{"target": t, "tokens": 1} for t in range(1, 11)]
    for _ in range(3):
        for inputs in calls:
            for traced in (True, False):
                chill.roll("specific", rng, trace=traced, **inputs)
    looked: list[Any] = []
    find = chill.caches.bindings.lookup

    def counted(key: Any) -> Any:
        looked.append(key)
        return find(key)

    chill.caches.bindings.lookup = counted
    fresh, again = engine.load("chill"), random.Random(9)
    ours = random.Random(9)
    for inputs in reversed(calls):  # one input and two, in turn
        for traced in (False, True):
            a = chill.roll("specific", ours, trace=traced, **inputs)
            b = fresh.roll("specific", again, trace=traced, **inputs)
            assert a == b and a.trace == b.trace
    assert looked == []
    chill.roll("specific", ours, target=41)
    assert looked  # a new target: bound and looked up as before


def test_a_one_input_roll_finds_its_roller_among_the_newest_peers() -> None:
    """With one input, a roll whose policy and trace are the newest's finds its roller by the
    input's value among the newest's peers (those remembered with the same policy, trace and
    input name): the newest stays, no key is built, and the rolls are a fresh ruleset's. A value
    of another type, or another input's name, is not found there."""
    chill, fresh = engine.load("chill"), engine.load("chill")
    rng = random.Random(5)
    for _ in range(3):
        for t in range(1, 31):
            chill.roll("specific", rng, trace=False, target=t)
    held = chill._recent["specific"]
    newest = held[0]
    assert newest[3] == "target" and sorted(newest[5]) == list(range(1, 31))
    ours, theirs = random.Random(6), random.Random(6)
    for t in (7, 30, 1, 7):
        a = chill.roll("specific", ours, trace=False, target=t)
        b = fresh.roll("specific", theirs, trace=False, target=t)
        assert a == b and a.inputs == {"target": t, "tokens": 0, "roller": "player"}
        assert chill._recent["specific"] is held  # among the peers: the table would make a newest
    # traced: not the newest's peers; found in the table, and its own peers become the newest's
    chill.roll("specific", ours, trace=True, target=7)
    assert chill._recent["specific"][0][2] is True and 7 in chill._recent["specific"][0][5]
    # `True` equals 1 and is not found among the peers, nor is a second input's call by its
    # target (its roller would give tokens 0): each is rolled as a fresh ruleset rolls it
    for odd in ({"target": True}, {"target": 7, "tokens": 1}, {"tokens": 1}):
        for rs in (chill, fresh):
            rs.roll("specific", random.Random(0), trace=False, target=7)  # the newest's peers again
        ours_, theirs_ = (
            partial(rs.roll, "specific", random.Random(1), trace=False, **odd) for rs in (chill, fresh)
        )
        assert _outcome(ours_) == _outcome(theirs_)


def test_the_recent_rollers_hold_only_what_the_cache_holds() -> None:
    """When the cache lets bindings go (here: pushed out by others), it forgets every recent
    roller, so none keeps a binding the cache dropped; `clear` forgets them too."""
    rs = engine.load("chill", limits=Limits(max_cache_bytes=2**20))  # bindings: about 150 kB
    rng = random.Random(8)
    peered = 0
    for target in range(1, 80):  # kept rolls fill the bindings' room, new bindings push old ones out
        for _ in range(200):
            rs.roll("specific", rng, target=target, tokens=1)
        for _ in range(3):  # one input: remembered among its peers too
            rs.roll("specific", rng, target=target)
        peered += sum(len(peers) for *_, peers in _entries(rs))
        held = {id(v) for _, v in rs.caches.bindings.items()}
        for _, table, _ in rs._recent.values():
            assert len(table) <= RECENT
        rollers = [roller for *_, roller, _ in _entries(rs)]
        rollers += [r for *_, peers in _entries(rs) for r in peers.values()]  # one input's, by value
        for roller in rollers:
            ready = roller.__closure__ and next(
                c.cell_contents for c in roller.__closure__ if type(c.cell_contents) is sampling.Ready
            )
            assert id(ready) in held
    assert len(rs.caches.bindings) < 2 * 79  # some were let go (two bindings a target)
    assert peered  # and the peers were looked at
    rs.caches.bindings.clear()
    assert not rs._recent


def test_results_of_recent_rolls_cannot_be_changed() -> None:
    """A recent roll's result is the kept one itself (`kept_roller`), handed to every roll of
    the same faces: a caller cannot change it, so no later roll is changed with it."""
    chill = engine.load("chill")
    _warm(chill, target=55)
    rng = random.Random(2)
    for traced in (False, True):
        first = chill.roll("specific", rng, trace=traced, target=55)
        for mapping in (first.values, first.inputs, first.rolled, first.drawn):
            with pytest.raises(TypeError, match="read-only"):
                mapping.clear()  # type: ignore[attr-defined]
        for _ in range(500):  # every pair of faces comes up
            result = chill.roll("specific", rng, trace=traced, target=55)
            assert len(result.values) == 8
            assert result.inputs == {"target": 55, "tokens": 0, "roller": "player"}
            assert list(result.rolled) == ["tens", "ones"] and list(result.drawn) == ["tens", "ones"]


def test_a_recent_roll_inside_a_request_is_metered() -> None:
    """Inside a running request (`working`), the remembered roller of a proven binding rolls
    the metered way (the check's compiled `roller`, under a budget), as `roll` did before: it
    keeps no roll there, and gives what a fresh ruleset gives."""
    chill = engine.load("chill")
    _warm(chill, target=55)
    ready = chill._bind(chill.check("specific"), {"target": 55})
    ready.kept.clear()
    fresh = engine.load("chill")
    for traced in (True, False):
        ours, theirs = random.Random(6), random.Random(6)
        with working(Work(10**6)):
            inside = [chill.roll("specific", ours, trace=traced, target=55) for _ in range(300)]
        assert not ready.kept
        outside = [fresh.roll("specific", theirs, trace=traced, target=55) for _ in range(300)]
        assert inside == outside and [r.trace for r in inside] == [r.trace for r in outside]
    chill.roll("specific", random.Random(1), target=55)
    assert ready.kept  # outside, it keeps them again


class _Sub(random.Random):
    """A random source that draws its own way: `_randbelow` from `random()`."""

    def random(self) -> float:
        return super().random()


def test_a_random_subclass_draws_its_own_way_through_a_recent_roller() -> None:
    chill = engine.load("chill")
    _warm(chill, target=55)
    for traced in (True, False):
        ours, theirs = _Sub(4), _Sub(4)
        for _ in range(50):
            a = chill.roll("specific", ours, trace=traced, target=55)
            b = chill.roll("specific", theirs, trace=traced, target=55, forced=None)
            tens, ones = b.rolled["tens"], b.rolled["ones"]
            again = chill.roll("specific", forced={"tens": tens, "ones": ones}, trace=traced, target=55)
            assert a == b == again
        assert ours.getstate() == theirs.getstate()
    check = _Sub(4)
    draws = [check._randbelow(10) for _ in range(4)]  # type: ignore[attr-defined]
    roll = chill.roll("specific", _Sub(4), target=55)
    assert (roll.rolled["tens"], roll.rolled["ones"]) == (draws[0], draws[1])


# -- the drawers --------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 3000), min_size=1, max_size=5), st.integers(0, 2**32))
def test_a_drawer_draws_what_randbelow_draws(sizes: list[int], seed: int) -> None:
    """Written out or not (`_inlined`), a drawer gives the number of the faces `_randbelow`
    gives, die by die in order, and leaves the generator where `_randbelow` leaves it."""
    faces = tuple(tuple(range(100, 100 + n)) for n in sizes)
    before = sampling.Before(
        {}, (), (), None, True, tuple((f"d{i}", f) for i, f in enumerate(faces)), (), (), None, (), "", None
    )
    assert sampling._inlined()  # CPython's `_randbelow` here: the written-out drawers are tested
    written = sampling._drawer(faces)
    sampling._INLINED[0] = False
    try:
        plain = sampling._drawer(faces)
    finally:
        sampling._INLINED[0] = True
    ours, theirs, third = random.Random(seed), random.Random(seed), random.Random(seed)
    for _ in range(20):
        expected = tuple(f[theirs._randbelow(len(f))] for f in faces)  # type: ignore[attr-defined]
        assert sampling._faces(before, written(ours)) == expected
        assert sampling._faces(before, plain(third)) == expected
    assert ours.getstate() == theirs.getstate() == third.getstate()
