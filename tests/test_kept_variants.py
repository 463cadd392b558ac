"""The kept rolls of each policy and trace (`eval.sample._variant`) and `Ruleset.roll`'s check of a
one-input call.

- A binding keeps its rolls per policy and trace, each made with that policy and that trace (or
  none): rolls under every policy, with and without the trace, through `roll` and pre-bound
  rollers in any order, are the rolls the metered way gives from the same seed (outcome, values,
  trace, policy, RNG state); none borrows another's kept roll.
- They share the binding's room and the cache weighs them all.
- A result made from a kept roll is a whole frozen `Result`: it pickles, copies and `replace`s as
  one made by its `__init__` does.
- The newest remembered roller of a one-input call knows the input's name and is found by that
  input only when it is of the remembered value's type.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
import random
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.eval.trace import Result
from engine.frozen import FrozenDict
from engine.runtime.context import POLICIES
from engine.runtime.work import Work, working


class _Int(int):
    """An `int` that equals its value but is not of its type."""


CALLS = st.lists(st.tuples(st.sampled_from(POLICIES), st.booleans(), st.booleans()), min_size=1, max_size=40)
"""Rolls in some order: (policy, traced, through a pre-bound roller)."""


@settings(max_examples=30, deadline=None)
@given(CALLS, st.integers(0, 2**32))
def test_each_policy_and_trace_rolls_its_own_kept_rolls(
    calls: list[tuple[str, bool, bool]], seed: int
) -> None:
    """Interleaved rolls of one binding under every policy and trace, once its rolls are kept,
    are what the metered way (inside a request's budget) gives a fresh ruleset from the same seed:
    a kept roll of one policy or trace never serves another."""
    ours = engine.load("chill")
    warm = random.Random(seed ^ 1)
    for policy in POLICIES:  # every variant proven and partly kept
        for traced in (True, False):
            for _ in range(20):
                ours.roll("specific", warm, policy=policy, trace=traced, target=55)
    rollers = {
        (policy, traced): ours.roller("specific", policy=policy, trace=traced, target=55)
        for policy in POLICIES
        for traced in (True, False)
    }
    fresh = engine.load("chill")
    mine, theirs = random.Random(seed), random.Random(seed)
    for policy, traced, prebound in calls * 3:
        if prebound:
            a = rollers[policy, traced](mine)
        else:
            a = ours.roll("specific", mine, policy=policy, trace=traced, target=55)
        with working(Work(10**9)):
            b = fresh.roll("specific", theirs, policy=policy, trace=traced, target=55)
        assert a == b and a.trace == b.trace and a.policy == policy
        assert bool(a.trace) is traced
        assert mine.getstate() == theirs.getstate()


class _Str(str):
    """A `str` that equals its text but is not of its type."""


def test_an_equal_policy_of_another_kind_keeps_the_policys_own_name() -> None:
    """A roller asked for with an equal `str` of another kind gives the policy's own name in its
    kept results (`roll` sends such a policy the way it went before)."""
    chill = engine.load("chill")
    bound = chill.roller("specific", policy=_Str("never"), target=55)
    rng = random.Random(3)
    for _ in range(300):
        result = bound(rng)
        assert result.policy == "never" and type(result.policy) is str


def test_the_variants_share_the_room_and_are_weighed() -> None:
    """Traced and untraced rolls of a binding are kept side by side (all 100 Chill tuples of faces
    each), within the binding's one room, and the cache weighs the second set as it comes."""
    chill = engine.load("chill")
    rng = random.Random(4)
    for _ in range(3000):
        chill.roll("specific", rng, target=55)
    ready = chill._bind(chill.check("specific"), {"target": 55})
    assert len(ready.kept) == 100
    weighed = chill.caches.bindings.bytes
    for _ in range(3000):
        chill.roll("specific", rng, target=55, trace=False)
    assert len(ready.kept) == 200
    assert chill.caches.bindings.bytes > weighed


def test_a_result_from_a_kept_roll_is_a_whole_frozen_result() -> None:
    """Made without `__init__` (its attributes set at once), a result still behaves as one made by
    `Result(...)`: frozen, comparable, picklable, copyable, `replace`able."""
    chill = engine.load("chill")
    rng = random.Random(9)
    for traced in (True, False):
        for _ in range(200):
            chill.roll("specific", rng, trace=traced, target=55)
        result = chill.roll("specific", rng, trace=traced, target=55)
        assert type(result) is Result
        assert list(vars(result)) == [f.name for f in dataclasses.fields(Result)]
        with pytest.raises(dataclasses.FrozenInstanceError):
            result.outcome = result.outcome  # type: ignore[misc]
        again = Result(**{f.name: getattr(result, f.name) for f in dataclasses.fields(Result)})
        assert again == result and again.trace == result.trace
        assert pickle.loads(pickle.dumps(result)) == result
        assert copy.deepcopy(result) == result
        assert dataclasses.replace(result, policy="never").policy == "never"


def test_a_result_made_by_hand_freezes_its_mappings() -> None:
    """`Result(...)` with plain dicts, as a caller or `dataclasses.replace` makes one, holds
    `FrozenDict` copies, as the engine's results do: changing a mapping raises, and what the
    caller passed stays the caller's to change."""
    rolled = engine.load("chill").roll("specific", random.Random(3), target=55)
    given = {f.name: getattr(rolled, f.name) for f in dataclasses.fields(Result)}
    plain = {k: dict(v) if isinstance(v, dict) else v for k, v in given.items()}
    made = Result(**plain)
    assert made == rolled
    for name in ("values", "inputs", "rolled", "drawn"):
        mapping = getattr(made, name)
        assert type(mapping) is FrozenDict and mapping is not plain[name]
        with pytest.raises(TypeError):
            mapping["x"] = 1  # type: ignore[index]
    plain["inputs"]["target"] = 1
    assert made.inputs["target"] == 55
    replaced = dataclasses.replace(made, values={"mine": 1})
    assert type(replaced.values) is FrozenDict and replaced.inputs is made.inputs


ONE_INPUT = [True, 1.0, Fraction(1), _Int(1)]


@pytest.mark.parametrize("odd", ONE_INPUT, ids=repr)
@pytest.mark.parametrize("traced", [True, False])
def test_a_one_input_call_finds_its_roller_only_with_its_type(odd: Any, traced: bool) -> None:
    """The newest remembered roller of `target=1` holds the input's name (the one-input check);
    `target` equal to 1 of another type right after it gives what a fresh ruleset gives."""
    warm = engine.load("chill")
    rng = random.Random(0)
    for _ in range(3):
        warm.roll("specific", rng, trace=traced, target=1)
    newest = warm._recent["specific"][0]
    assert newest[0] == {"target": 1} and newest[3] == "target"
    fresh = engine.load("chill")

    def outcome(rs: engine.Ruleset) -> Any:
        try:
            r = rs.roll("specific", random.Random(3), trace=traced, target=odd)
        except engine.RulecraftError as exc:
            return type(exc).__name__, str(exc)
        return r.outcome, r.values, r.inputs, {k: type(v) for k, v in r.inputs.items()}, r.trace

    assert outcome(warm) == outcome(fresh)
    two = engine.load("chill")
    for _ in range(3):
        two.roll("specific", rng, trace=traced, target=1, tokens=0)
    assert two._recent["specific"][0][3] is None  # two inputs: the loop over their types
