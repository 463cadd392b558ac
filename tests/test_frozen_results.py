"""Results are immutable throughout, on every path a roll can take.

- `FrozenDict` is a `dict` in all but change: equal to one, printed, pickled, copied and written
  as JSON as one; every changing method (and `|=`) raises `TypeError`; `copy()` and `dict(...)`
  give a plain dict to change.
- Every `Result` the engine returns holds its values, inputs, dice and draws as `FrozenDict`s:
  the first roll of a binding and the kept rolls after it, the pre-bound roller, no random
  source, a `random.Random` subclass, forced dice, inside a running request, an automatic
  outcome, pools and procedures under every policy, with and without the trace. So the result
  a kept roll hands to every roll of its faces (`sample.kept_roller`) cannot be changed by one
  caller under another.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import engine
from engine.frozen import FrozenDict
from engine.runtime.work import Work, working

_CHANGES: list[tuple[str, Callable[[dict[Any, Any]], Any]]] = [
    ("setitem", lambda d: d.__setitem__("x", 1)),
    ("delitem", lambda d: d.__delitem__(next(iter(d)))),
    ("ior", lambda d: d.__ior__({"x": 1})),
    ("clear", lambda d: d.clear()),
    ("pop", lambda d: d.pop(next(iter(d)))),
    ("popitem", lambda d: d.popitem()),
    ("setdefault", lambda d: d.setdefault("x", 1)),
    ("update", lambda d: d.update(x=1)),
]

_items = st.dictionaries(st.text(max_size=4), st.integers() | st.text(max_size=3), min_size=1, max_size=6)


@given(_items)
def test_a_frozen_dict_is_a_dict_that_cannot_change(items: dict[str, Any]) -> None:
    frozen = FrozenDict(items)
    assert frozen == items and repr(frozen) == repr(items) and list(frozen) == list(items)
    assert json.dumps(frozen) == json.dumps(items)
    for made in (pickle.loads(pickle.dumps(frozen)), copy.copy(frozen), copy.deepcopy(frozen)):
        assert type(made) is FrozenDict and made == items and list(made) == list(items)
    for name, change in _CHANGES:
        with pytest.raises(TypeError, match="read-only"):
            change(frozen)
        assert frozen == items, name  # refused before anything changed
    plain = frozen.copy()
    plain["x"] = 1
    assert type(plain) is dict and type(dict(frozen)) is dict and type(frozen | {}) is dict
    assert frozen == items
    assert FrozenDict.fromkeys("ab", 0) == {"a": 0, "b": 0}


def test_the_changing_methods_are_all_refused() -> None:
    """Every public method of `dict` is either one that reads it or one refused here (a new
    one in a later Python fails this until it is sorted), and the operators that change a dict
    in place are refused too: one missed would be a way to change a shared result."""
    reading = {"copy", "fromkeys", "get", "items", "keys", "values"}
    refused = {name for name, _ in _CHANGES}
    public = {name for name in vars(dict) if not name.startswith("_")}
    assert public == reading | (refused - {"setitem", "delitem", "ior"})
    in_place = {name for name in vars(dict) if name in {"__setitem__", "__delitem__", "__ior__"}}
    assert {name.strip("_") for name in in_place} <= refused
    for name in public - reading:
        assert getattr(FrozenDict, name) is not getattr(dict, name), name


class _Random(random.Random):
    """A random source of another type: rolls go the general way."""


def _frozen(result: engine.Result, where: str) -> None:
    for name in ("values", "inputs", "rolled", "drawn"):
        mapping = getattr(result, name)
        assert type(mapping) is FrozenDict, (where, name, type(mapping))
    assert isinstance(result.trace, tuple)
    again = pickle.loads(pickle.dumps(result))
    assert again == result and again.trace == result.trace and type(again.values) is FrozenDict
    assert set(dataclasses.asdict(result)["inputs"]) == set(result.inputs)  # its fields copied whole


def _calls(rs: engine.Ruleset, check: str, inputs: dict[str, Any]) -> dict[str, Callable[[], engine.Result]]:
    rng = random.Random(4)
    ours = _Random(4)
    calls: dict[str, Callable[[], engine.Result]] = {}
    for traced in (True, False):
        for policy in ("always", "never", "optimal"):
            tag = f"{policy}{'' if traced else ' untraced'}"
            calls[f"roll {tag}"] = lambda t=traced, p=policy: rs.roll(check, rng, trace=t, policy=p, **inputs)
            calls[f"no source {tag}"] = lambda t=traced, p=policy: rs.roll(check, trace=t, policy=p, **inputs)
            calls[f"subclass {tag}"] = lambda t=traced, p=policy: rs.roll(
                check, ours, trace=t, policy=p, **inputs
            )
            roller = rs.roller(check, trace=traced, policy=policy, **inputs)
            calls[f"roller {tag}"] = lambda r=roller: r(rng)
    return calls


@pytest.mark.parametrize("name", ["castle", "chill", "chimera", "chthonian"])
def test_every_result_of_every_path_is_frozen(name: str) -> None:
    rs = engine.load(name)
    seen_auto = False
    for check in rs.model.checks.values():
        examples = [{k: getattr(v, "name", v) for k, v in e.inputs.items()} for e in check.examples][:4]
        for inputs in examples or [{}]:
            for where, call in _calls(rs, check.name, inputs).items():
                for _ in range(3):  # the first roll of a binding, then its kept rolls
                    result = call()
                    _frozen(result, f"{check.name} {inputs} {where}")
                    seen_auto = seen_auto or result.auto
                    forced = rs.roll(check.name, forced=result.forced(), policy=result.policy, **inputs)
                    _frozen(forced, f"{check.name} {inputs} forced")
                    with working(Work(10**7)):
                        _frozen(call(), f"{check.name} {inputs} {where} in a request")
    if name == "chimera":
        assert seen_auto  # its `single` check at three levels of advantage


def test_a_result_handed_to_two_callers_is_unchanged_by_either() -> None:
    """Two rolls of the same faces from a kept binding are one result; neither caller can
    change what the other holds, not even through its trace's steps."""
    chill = engine.load("chill")
    rng = random.Random(5)
    results = [chill.roll("specific", rng, target=55) for _ in range(400)]
    by_faces: dict[tuple[int, int], engine.Result] = {}
    shared = 0
    for result in results[1:]:
        faces = (result.rolled["tens"], result.rolled["ones"])
        if faces in by_faces:
            shared += by_faces[faces] is result
        by_faces.setdefault(faces, result)
    assert shared > 0
    one = results[-1]
    for _, change in _CHANGES:
        with pytest.raises(TypeError):
            change(one.values)  # type: ignore[arg-type]
    with pytest.raises(AttributeError):  # a step is a named tuple
        one.trace[0].value = 0  # type: ignore[misc]
