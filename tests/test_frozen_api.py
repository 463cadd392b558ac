"""What the Python API hands out cannot be changed under the next caller (hunt 12e).

A distribution is cached per check, policy and inputs, and a compiled model is shared by every
`load` of the same text in the process: the mappings they hand out were the cache's own dicts,
so `d.value("roll").weights[1] += 10**6` changed every later answer, `b.inputs["target"] = 999`
on an exact batch changed the cached distribution's inputs, `d.joint.weights.clear()` made the
next `sample` fail in numpy, and `engine.load("chill").checks.pop("specific")` made every later
load of chill answer RC402. Each is now a `FrozenDict`. And a `Dist` checks what it is asked: a
misspelt scale member is RC402 (it was a chance of 0, or compared as text), a wrong kind a
`TypeError` naming the argument (`True` is not a number).
"""

from __future__ import annotations

import pickle
import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest

import engine
from engine.eval.dist import Dist
from engine.frozen import FrozenDict

_CHANGES: list[Callable[[Any], Any]] = [
    lambda m: m.__setitem__(next(iter(m)), 10**6),
    lambda m: m.clear(),
    lambda m: m.pop(next(iter(m))),
    lambda m: m.update({}),
]


def _refused(mapping: Any) -> None:
    """Every change to `mapping` is refused, and it is as it was."""
    before = dict(mapping)
    assert type(mapping) is FrozenDict, type(mapping)
    for change in _CHANGES:
        with pytest.raises(TypeError, match="read-only"):
            change(mapping)
    assert mapping == before


def _handed_out(d: Any) -> list[Any]:
    """Every mapping a distribution hands out, its values' weights included."""
    out = [d.inputs, d.values, d.joint.weights, d.outcome.weights]
    out += [v.weights for v in d.values.values()]
    return out


@pytest.mark.parametrize(
    ("ruleset", "check", "policy", "inputs"),
    [
        ("chill", "specific", "always", {"target": 55}),  # independent dice: the product
        ("chimera", "skill", "optimal", {"dice": 4}),  # a reroll procedure: die by die
        ("chimera", "single", "always", {"advantage": 3}),  # an auto rule: certain
    ],
)
def test_a_cached_distribution_hands_out_read_only_mappings(
    ruleset: str, check: str, policy: str, inputs: dict[str, Any]
) -> None:
    rs = engine.load(ruleset)
    d = rs.distribution(check, policy=policy, **inputs)
    answers = (d.table(), {k: v.fractions() for k, v in d.values.items()}, d.as_json())
    for mapping in _handed_out(d):
        if mapping:
            _refused(mapping)
    again = rs.distribution(check, policy=policy, **inputs)
    assert again is d
    assert (again.table(), {k: v.fractions() for k, v in again.values.items()}, again.as_json()) == answers
    copy = pickle.loads(pickle.dumps(d))
    assert all(type(m) is FrozenDict for m in _handed_out(copy)) and copy == d


def test_the_hunts_changes_no_longer_reach_later_answers() -> None:
    chill = engine.load("chill")
    d = chill.distribution("specific", target=55)
    with pytest.raises(TypeError):
        d.value("roll").weights[1] += 10**6
    assert chill.distribution("specific", target=55).value("roll").mean == Fraction(101, 2)
    b = chill.sample("specific", 10, random.Random(1), target=55)
    assert b.method == "exact"
    with pytest.raises(TypeError):
        b.inputs["target"] = 999  # type: ignore[index]
    assert chill.distribution("specific", target=55).inputs == {"target": 55, "tokens": 0, "roller": "player"}
    with pytest.raises(TypeError):
        d.joint.weights.clear()  # type: ignore[attr-defined]
    assert sum(chill.sample("specific", 10, random.Random(1), target=55).outcomes.values()) == 10


@pytest.mark.parametrize("method", ["exact", "rolled"])
def test_a_batch_hands_out_read_only_mappings(method: str) -> None:
    b = engine.load("chill").sample("specific", 50, random.Random(2), method=method, target=55)
    for mapping in (b.inputs, b.outcomes, b.values, *b.values.values()):
        _refused(mapping)


def test_a_rulesets_checks_and_scenes_are_read_only_and_shared_loads_keep_theirs() -> None:
    chill, castle = engine.load("chill"), engine.load("castle")
    model = castle.model
    assert model.state is not None
    for mapping in (chill.checks, castle.scenes, model.scales, model.bags, model.tables, model.checks):
        _refused(mapping)
    for mapping in (model.state.shared, model.state.each, model.state.actions, model.state.scenes):
        if mapping:
            _refused(mapping)
    engine.load("chill").roll("specific", random.Random(1), target=55)  # still there for the next load
    assert engine.load("castle").scene("duel").name == "duel"


# -- a Dist checks what it is asked ------------------------------------------------------------


def _dist() -> Any:
    return engine.load("chill").distribution("specific", target=55)


@pytest.mark.parametrize(
    ("ask", "named"),
    [
        (lambda d: d.value("roll").at_least("50"), "a number"),
        (lambda d: d.value("roll").at_most(None), "a number"),
        (lambda d: d.value("roll").probability([50]), "argument 'value'"),
        (lambda d: d.value("roll").at_least(True), "not bool True"),
        (lambda d: d.value("roll").probability(True), "not bool True"),
        (lambda d: d.value("before_tokens").at_least(None), "'result' value"),
        (lambda d: d.value("before_tokens").probability(3), "'result' value"),
        (lambda d: d.value("doubles").probability("yes"), "True or False"),
    ],
)
def test_a_wrong_kind_of_value_is_a_type_error_naming_the_argument(
    ask: Callable[[Any], Any], named: str
) -> None:
    with pytest.raises(TypeError) as caught:
        ask(_dist())
    assert "argument 'value'" in str(caught.value) and named in str(caught.value), caught.value


@pytest.mark.parametrize("method", ["probability", "at_least", "at_most"])
@pytest.mark.parametrize("name", ["botchh", "Botch"])
def test_a_name_outside_the_values_scale_is_rc402(method: str, name: str) -> None:
    d = _dist()
    for dist in (d.value("before_tokens"), d.outcome):
        with pytest.raises(engine.InputError) as caught:
            getattr(dist, method)(name)
        first = caught.value.diagnostics[0]
        assert first.code == "RC402" and "botch" in (first.hint or ""), first


@pytest.mark.parametrize("method", ["probability", "at_least", "at_most"])
def test_a_dist_mapped_or_mixed_over_the_same_members_keeps_their_scale(method: str) -> None:
    """`map` and `mix` made a `Dist` with no scale: asked a misspelt member, one of the outcome's
    mapped to itself, or two outcomes mixed, answered 0 (or compared as text) where the outcome
    itself is RC402. Values that stay the scale's members keep it; any other value drops it."""
    d = _dist()
    outcome, scale = d.outcome, d.value("before_tokens")
    better = {m: d.outcomes.members[min(m.rank + 1, len(d.outcomes.members) - 1)] for m in outcome.weights}
    kept = [
        outcome.map(lambda v: v),
        outcome.map(better.__getitem__),
        Dist.mix([(outcome, 1, 2), (scale, 1, 2)]),
        Dist.mix([(outcome.map(better.__getitem__), 1, 1)]),
    ]
    for made in kept:
        assert made.scale == outcome.scale is not None
        with pytest.raises(engine.InputError) as caught:
            getattr(made, method)("botchh")
        assert caught.value.diagnostics[0].code == "RC402", caught.value
    assert getattr(kept[0], method)("failure") == getattr(outcome, method)("failure")
    assert kept[2].probability("failure") == outcome.probability("failure")  # the same chances, mixed
    dropped = [
        outcome.map(str),  # plain text: no member
        outcome.map(lambda v: v.rank),  # numbers
        Dist.mix([(outcome, 1, 2), (Dist.certain(d.outcomes.members[0]), 1, 2)]),  # one of no scale
        Dist.mix([(outcome, 1, 2), (d.value("roll"), 1, 2)]),
    ]
    assert [m.scale for m in dropped] == [None] * len(dropped)
    assert dropped[0].probability("botchh") == 0  # as a hand-made Dist of text answers


def test_good_questions_are_answered_as_before() -> None:
    d = _dist()
    roll, scale = d.value("roll"), d.value("before_tokens")
    assert roll.probability(50) == Fraction(1, 100) and roll.at_least(50) == Fraction(51, 100)
    assert roll.at_most(50.5) == Fraction(1, 2) and roll.probability(1000) == 0
    assert scale.probability("botch") == d.probability("botch") == Fraction(1, 20)
    assert scale.at_least("low_success") == d.at_least("low_success")
    assert scale.at_most(d.outcomes["failure"]) == d.at_most("failure")
    members = d.outcomes.names
    assert sum(scale.probability(m) for m in members) == 1  # a member never reached is 0
    doubles = d.value("doubles")
    assert doubles.probability(True) + doubles.probability(False) == 1
    made = Dist.of([((1, 2), 3), ((2, 1), 1)])  # a hand-made dist of tuples: asked as it is
    assert made.probability((1, 2)) == Fraction(3, 4)


# -- roller, hash, deadline ------------------------------------------------------------------------

POOL = """\
rulecraft: 1
name: big
checks:
  sum:
    inputs:
      dice: {type: int, min: 1, max: 1000, default: 10}
    roll:
      p: {pool: dice, die: 6}
    let:
      t: sum(p)
    outcomes: [lo, hi]
    outcome: "'hi' if t > dice * 3 else 'lo'"
"""


def test_a_roller_over_max_pool_is_refused_when_it_is_made() -> None:
    rs = engine.load(POOL)
    with pytest.raises(engine.LimitError) as caught:
        rs.roller("sum", dice=500)
    first = caught.value.diagnostics[0]
    assert first.code == "RC503" and "max_pool" in (first.hint or "") and first.span is not None
    assert rs.roller("sum", dice=50)(random.Random(1)).outcome in ("lo", "hi")


def test_a_result_hashes_as_its_fields() -> None:
    chill = engine.load("chill")
    a = chill.roll("specific", random.Random(7), target=55)
    b = chill.roll("specific", random.Random(7), target=55, trace=True)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert hash(FrozenDict(x=1)) == hash(FrozenDict(x=1))
    with pytest.raises(TypeError):
        hash(FrozenDict(x=[1]))  # hashable as its items are


def test_deadline_zero_stops_what_reads_the_clock_and_nothing_else() -> None:
    """One rule (language.md, limits): the clock is read every 20 000 units, and by a rolled
    sample at each roll; what works fewer units finishes under any deadline."""
    late = engine.load("chill", limits=engine.Limits(deadline=0))
    assert late.roll("specific", random.Random(1), target=55).outcome == "low_success"
    assert late.roller("specific", target=55)(random.Random(1)).outcome == "low_success"
    assert late.distribution("specific", target=55).probability("botch") == Fraction(1, 20)
    with pytest.raises(engine.DeadlineError):
        late.sample("specific", 5, random.Random(1), method="rolled", target=55)


ANY_VALUE = """\
rulecraft: 1
name: anyv
scales:
  a: [x, y]
  b: [p, q]
tables:
  t:
    params: [n]
    rules: [{else: n}]
checks:
  c:
    roll: {d: {die: 6}}
    let:
      v: "t('x') if d < 2 else (t('p') if d < 3 else t(d))"
      w: "'y' if d > 5 else 'x'"
    outcomes: [lo, hi]
    outcome: "'hi' if d > 3 else 'lo'"
"""


def test_a_value_of_any_type_is_told_no_scale_and_one_of_a_scales_type_is():
    """Review AV: the scale was taken from a value's first value, so `v`, whose values are a
    member of scale a, one of scale b and numbers, was told scale a: `probability('p')` was RC402
    and `probability(3)` a TypeError, each of chance 1/6. A scale is the declared type's."""
    d = engine.load(ANY_VALUE, name="anyv.yaml").distribution("c")
    v = d.value("v")
    assert (v.probability("x"), v.probability("p"), v.probability(3)) == (Fraction(1, 6),) * 3
    w = d.value("w")  # a value of scale a's type: a misspelt member is told
    assert w.probability("y") == Fraction(1, 6)
    with pytest.raises(engine.InputError) as caught:
        w.probability("yy")
    assert caught.value.diagnostics[0].code == "RC402"
