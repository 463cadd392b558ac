"""The die-by-die evaluation merges what the check reads alike (issue 13, item 1): a randomizer's
values the check reads only through the same parts (`Check.own_keys`), the rolls so far that the
rest reads alike (`Check.stage_keys`), and, when for the inputs given no die reads an earlier one
and no redraw can be offered, the dice evaluated as a product (`exact._unlinked`). Each must give
exactly what the plain die-by-die evaluation gives — the same fractions, the same errors; these
tests compare them with it, on the shipped checks and on checks written here."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_procedure_quick import pools

import engine
from engine.errors import RulecraftError
from engine.eval import exact
from engine.model.ruleset import Check
from engine.runtime import procedure
from engine.runtime.cache import Caches
from engine.runtime.context import RunContext
from engine.runtime.inputs import bind_inputs
from engine.runtime.limits import DEFAULT_LIMITS
from engine.runtime.rules import before_roll, first_rule

SHIPPED = {name: engine.load(name) for name in ("castle", "chill", "chimera", "chthonian")}
CASTLE = SHIPPED["castle"]
SKILLS = ("disadvantaged", "average", "advantaged")


def _plain(check: Check, inputs: dict[str, Any], policy: str = "always") -> exact.Distribution:
    """The die-by-die evaluation with nothing merged: no keys, no product."""
    plain = replace(check, stage_keys=None, own_keys=None)
    ctx = RunContext(DEFAULT_LIMITS, policy, Caches())
    bound = bind_inputs(plain, inputs)
    env = before_roll(plain, bound)
    fired = first_rule(plain.auto, env)
    if fired is not None:  # decided before the roll: nothing to merge
        return exact._fixed(plain, bound, env, fired[1], policy)
    return exact.Sequential(plain, env, ctx).distribution(bound)


def _merged(check: Check, inputs: dict[str, Any], policy: str = "always") -> exact.Distribution:
    return exact.distribution(check, bind_inputs(check, inputs), RunContext(DEFAULT_LIMITS, policy, Caches()))


def _same(a: exact.Distribution, b: exact.Distribution) -> None:
    """The same outcome and the same values, as fractions (the totals may differ)."""
    assert a.outcome.fractions() == b.outcome.fractions()
    assert a.names == b.names
    assert a.joint.fractions() == b.joint.fractions()


def _sequential_cases() -> list[tuple[str, str, dict[str, Any], str]]:
    """Every shipped sequential check with the inputs and policy of each of its examples."""
    cases = []
    for rs_name, rs in SHIPPED.items():
        for check in rs.checks.values():
            if not check.sequential:
                continue
            seen: list[tuple[dict[str, Any], str]] = []
            for ex in check.examples:
                case = (dict(ex.inputs), ex.policy)
                if case not in seen:
                    seen.append(case)
                    cases.append((rs_name, check.name, *case))
    return cases


@pytest.mark.parametrize(("rs_name", "check_name", "inputs", "policy"), _sequential_cases())
def test_every_shipped_sequential_check_gives_what_the_plain_evaluation_gives(
    rs_name: str, check_name: str, inputs: dict[str, Any], policy: str
) -> None:
    check = SHIPPED[rs_name].check(check_name)
    _same(_merged(check, inputs, policy), _plain(check, inputs, policy))


@settings(max_examples=40, deadline=None)
@given(
    skill=st.sampled_from(SKILLS),
    foe_skill=st.sampled_from(SKILLS),
    wounded=st.booleans(),
    foe_wounded=st.booleans(),
    main_gauche=st.booleans(),
    riposte=st.booleans(),
    policy=st.sampled_from(("always", "never", "optimal")),
)
def test_the_combat_exchange_merged_is_the_plain_evaluation(
    skill: str,
    foe_skill: str,
    wounded: bool,
    foe_wounded: bool,
    main_gauche: bool,
    riposte: bool,
    policy: str,
) -> None:
    """Every way through the combat check — a product, merged tables, redraws under each policy,
    the riposte's draw that depends on both beads — against the plain evaluation."""
    inputs = {
        "skill": skill,
        "foe_skill": foe_skill,
        "seriously_wounded": wounded,
        "foe_seriously_wounded": foe_wounded,
        "main_gauche": main_gauche,
        "riposte": riposte,
    }
    _same(_merged(CASTLE.check("combat"), inputs, policy), _plain(CASTLE.check("combat"), inputs, policy))


def test_a_dependence_the_inputs_switch_off_is_evaluated_as_a_product() -> None:
    """Without a Riposte the third draw is of no chits whatever the beads (`riposte and ...` is
    false) and Main Gauche is not offered: the dice are independent and multiply. With either,
    the check goes die by die."""
    check = CASTLE.check("combat")
    plain = _merged(check, {})
    assert isinstance(plain.source, exact._Product)
    assert plain.outcome.fractions() == {
        check.outcomes["foe_hits"]: Fraction(26, 81),
        check.outcomes["stand_off"]: Fraction(29, 81),
        check.outcomes["you_hit"]: Fraction(26, 81),
    }
    for inputs in ({"riposte": True}, {"main_gauche": True}):
        assert isinstance(_merged(check, inputs).source, exact.Dist), inputs


def test_each_draw_lists_only_what_the_check_reads_of_it() -> None:
    """The check reads each draw through `keep(beads, level)` (and the riposte's also through its
    count): two chits kept best or worst are three values, not six multisets, so the exchange with
    a Riposte evaluates fewer states than the plain way, to the same fractions."""
    check = CASTLE.check("combat")
    assert check.own_keys is not None and all(own is not None for own in check.own_keys)
    inputs = {"skill": "advantaged", "foe_skill": "disadvantaged", "riposte": True}
    merged, plain = _merged(check, inputs), _plain(check, inputs)
    _same(merged, plain)
    assert merged.states < plain.states / 2, (merged.states, plain.states)


STAGED = """
rulecraft: 1
name: staged
checks:
  sum_then:
    inputs:
      bonus: {type: int, default: 0}
    roll:
      a: {die: 6}
      b: {die: 6}
      c: {pool: "1 if a + b + bonus >= 9 else 0", die: 4}
    let:
      total: a + b
    outcomes: [low, high, top]
    outcome:
      - when: count(c) > 0 and highest(c) == 4
        then: top
      - when: total + bonus >= 9
        then: high
      - else: low
"""


@pytest.mark.parametrize("bonus", [0, 2, 20])
def test_rolls_that_the_rest_reads_alike_are_finished_once(bonus: int) -> None:
    """After both d6 the rest reads only `total` (their sum, for the value and the third die's
    count): 36 rolls are 11 keys, and the merged evaluation is the plain one."""
    rs = engine.load(STAGED)
    check = rs.check("sum_then")
    assert check.sequential and check.stage_keys is not None
    merged, plain = _merged(check, {"bonus": bonus}), _plain(check, {"bonus": bonus})
    _same(merged, plain)
    assert merged.states < plain.states


FAILING = """
rulecraft: 1
name: failing
tables:
  pick:
    params: {x: int}
    returns: int
    cases: {1: 10, 2: 20}
checks:
  c:
    inputs:
      on: {type: bool, default: true}
    roll:
      a: {die: 3}
      b: {pool: "1 if on and pick(a) > 10 else 0", die: 6}
    outcomes: [lo, hi]
    outcome: "'hi' if count(b) > 0 and a > 1 else 'lo'"
"""


def test_a_key_that_fails_keeps_its_dice_apart_and_the_error_comes_as_before() -> None:
    """`pick(3)` has no row: working out the key of a = 3 fails, so that value is kept apart and
    the evaluation stops with the error the plain evaluation gives (RC501, at the same place).
    With `on` false nothing reads `pick`, the dice multiply and nothing fails."""
    rs = engine.load(FAILING)
    check = rs.check("c")
    assert check.own_keys is not None and check.own_keys[0] is not None
    with pytest.raises(RulecraftError) as merged:
        _merged(check, {})
    with pytest.raises(RulecraftError) as plain:
        _plain(check, {})
    assert [(d.code, d.message, d.span) for d in merged.value.diagnostics] == [
        (d.code, d.message, d.span) for d in plain.value.diagnostics
    ]
    assert merged.value.diagnostics[0].code == "RC501"
    off = _merged(check, {"on": False})
    assert isinstance(off.source, exact._Product)
    _same(off, _plain(check, {"on": False}))


@pytest.mark.parametrize(
    "use",
    [
        lambda u: u == 1,
        lambda u: 1 == u,
        lambda u: u < 1,
        hash,
        bool,
        len,
        iter,
        lambda u: u + 1,
        lambda u: 1 + u,
        lambda u: -u,
        lambda u: u * 2,
        lambda u: 1 in u,
        lambda u: u.items,
        lambda u: u[0],
        str,
        repr,
        int,
        lambda u: {u: 1},
        lambda u: max(u, 1),
    ],
)
def test_a_die_not_rolled_yet_refuses_every_use(use: Any) -> None:
    """What `_unlinked` binds the earlier dice to: any use raises, so a value worked out
    without raising did not read them."""
    with pytest.raises(exact._Read):
        use(exact._UNROLLED)


READS_EARLIER = """
rulecraft: 1
name: reads
checks:
  faces:
    roll:
      a: {die: 4}
      b: {die: "1..a"}
    outcomes: [lo, hi]
    outcome: "'hi' if b >= 3 else 'lo'"
  each:
    roll:
      a: {die: 2}
      b: {pool: 2, die: 6, each: "face + a"}
    outcomes: [lo, hi]
    outcome: "'hi' if sum(b) >= 9 else 'lo'"
"""


@pytest.mark.parametrize("name", ["faces", "each"])
def test_a_die_read_through_faces_or_each_is_not_taken_for_independent(name: str) -> None:
    rs = engine.load(READS_EARLIER)
    check = rs.check(name)
    env = before_roll(check, bind_inputs(check, {}))
    assert exact._unlinked(check, env, RunContext(DEFAULT_LIMITS, "always", Caches())) is None
    _same(_merged(check, {}), _plain(check, {}))


# -- a triggered pool's kinds merged by what the check counts (`procedure._merged`) ------------


@contextmanager
def _unmerged() -> Iterator[None]:
    """Every pool's procedure counted by its plain kinds (reading and steps), nothing merged."""
    merged = procedure._merged
    procedure._merged = lambda plain, folds, triggers: None  # type: ignore[assignment]
    try:
        yield
    finally:
        procedure._merged = merged


def _every_policy(text: str, **inputs: Any) -> list[Any]:
    """Each policy's outcomes and what the cap and the depth cut, or the error's codes."""
    rs = engine.load(text)
    found: list[Any] = []
    for policy in ("always", "never", "optimal"):
        try:
            d = rs.distribution(next(iter(rs.checks)), policy=policy, **inputs)
        except RulecraftError as exc:  # a chain that can return to a state, under optimal
            found.append([x.code for x in exc.diagnostics])
            continue
        found.append(({o: d.probability(o) for o in d.outcomes.names}, d.capped, d.truncated))
    return found


COUNTS = [  # what the outcome reads, of dice read as numbers and of dice read as 'lo' or 'hi'
    ("count(p) > 3", "count(p) > 3"),
    ("count(p, 6) >= 1", "count(p, 'hi') >= 1"),
    ("count(p, [1, 2]) < 2", "count(p, ['lo']) < 2"),
    ("count(p, 5..6) >= 2 and count(p) > 2", "count(p, 'hi') >= 2 and count(p) > 2"),
]


@settings(max_examples=80, deadline=None)
@given(pools(), st.sampled_from(COUNTS))
def test_kinds_merged_by_the_counts_read_change_no_number(
    spec: tuple[str, int], reads: tuple[str, str]
) -> None:
    """Dice the check counts alike and the steps treat alike are one kind of the reroll chain
    (a ten-sided pool with 10-again counted 8-10: three kinds, not ten); every policy's
    distribution, and what the cap and the depth cut, are the same with nothing merged."""
    text = spec[0].replace("count(p) > 3", reads[1] if "'hi'" in spec[0] else reads[0])
    merged = _every_policy(text)
    with _unmerged():
        assert _every_policy(text) == merged


TEN_AGAIN = """\
rulecraft: 1
name: ten_again
checks:
  pool:
    inputs:
      dice: {type: int, min: 1, max: 10, default: 5}
    roll:
      pool:
        pool: dice
        die: 10
        triggers:
          - {name: ten_again, on: face == 10, must: add}
    outcomes: [failure, success, exceptional]
    outcome:
      - when: count(pool, 8..10) >= 5
        then: exceptional
      - when: count(pool, 8..10) >= 1
        then: success
      - else: failure
"""


def test_a_pool_counted_by_its_successes_is_three_kinds_not_ten() -> None:
    """Found by an audit writing other games: 10-again read through `count(pool, 8..10)` ran out
    of the work budget at 6 dice (each face its own kind: 28,479 states at 5); written with
    `each:` it took 0.3 s at 10. Merged, the raw faces solve as fast, to the same fractions."""
    rs = engine.load(TEN_AGAIN)
    d = rs.distribution("pool", dice=10)
    assert d.probability("exceptional") == Fraction(4678419786333, 20000000000000)
    with_each = engine.load(
        TEN_AGAIN.replace("die: 10\n", "die: 10\n        each: \"'hit' if face >= 8 else 'miss'\"\n")
        .replace("count(pool, 8..10)", "count(pool, 'hit')")
        .replace("name: ten_again\n", "name: ten_again\nscales:\n  mark: [miss, hit]\n")
    )
    assert with_each.distribution("pool", dice=10).probability("exceptional") == d.probability("exceptional")
    five = rs.distribution("pool", dice=5)
    assert five.states < 1000
    with _unmerged():
        plain = engine.load(TEN_AGAIN, limits=engine.Limits(max_work=10**9)).distribution("pool", dice=5)
    assert plain.states > 20 * five.states
    assert {o: plain.probability(o) for o in ("failure", "success", "exceptional")} == {
        o: five.probability(o) for o in ("failure", "success", "exceptional")
    }


def test_dice_counted_alike_but_split_by_others_are_not_merged() -> None:
    """`count(p, [2, 5])` counts 2 and 5 alike, but 3 and 4 lie between them in the order a rule
    takes dice in (lowest first): merging them would change which dice `always` rerolls."""
    text = (
        TEN_AGAIN.replace("die: 10", "die: 6")
        .replace(
            "{name: ten_again, on: face == 10, must: add}",
            "{on: face == 6, may: reroll, target: face <= 5, repeat: false}",
        )
        .replace("count(pool, 8..10)", "count(pool, [2, 5])")
    )
    rs = engine.load(text)
    pool = rs.model.checks["pool"].roll[0]
    proc = procedure.Procedure(pool, {})
    assert len(proc.kinds) == 6
    assert _every_policy(text, dice=4) == _unmerged_policies(text, dice=4)


def _unmerged_policies(text: str, **inputs: Any) -> list[Any]:
    with _unmerged():
        return _every_policy(text, **inputs)


STEP_HOLDERS = """\
rulecraft: 1
name: holders
checks:
  c:
    inputs:
      n: {type: int, min: 1, max: 6, default: 3}
    roll:
      p:
        pool: n
        die: 6
        cap: 7
        triggers:
          - {name: r, on: face == 6, must: reroll, target: face <= 3}
          - {name: s, on: face <= 3, must: add, repeat: false}
    outcomes: [a0, a1, a2, a3, a4, a5]
    outcome:
      - {when: count(p) >= n + 5, then: a5}
      - {when: count(p) >= n + 4, then: a4}
      - {when: count(p) >= n + 3, then: a3}
      - {when: count(p) >= n + 2, then: a2}
      - {when: count(p) >= n + 1, then: a1}
      - {else: a0}
"""


def test_faces_that_hold_a_step_are_never_merged() -> None:
    """Found by a review: faces 1-3 hold the step `s` and are the 6's reroll targets; merged into
    one kind, the reroll took a die still holding `s` before a lower face that had used it (dice
    holding steps go first among alike dice), so fewer dice were added: a3 came out 6005/41472
    where the rules give 162035/1119744."""
    got = _every_policy(STEP_HOLDERS)
    assert got[0][0]["a3"] == Fraction(162035, 1119744) and got[0][0]["a4"] == Fraction(39979, 1119744)
    assert got == _unmerged_policies(STEP_HOLDERS)
    proc = procedure.Procedure(engine.load(STEP_HOLDERS).model.checks["c"].roll[0], {})
    assert [k.faces for k in proc.kinds] == [(1,), (2,), (3,), (4, 5), (6,)]
