"""Issue 11, item 1: a budget of work and time that every evaluation path honours. Each reproducer
of "Limits bound neither time nor memory", "Allowed inputs to a shipped ruleset run for minutes"
and the `validate` hangs ends with its diagnostic well within the bound (`conftest.BOUND`), most of
them refused when the ruleset loads."""

from __future__ import annotations

import random
import threading
import time
from fractions import Fraction

import pytest

import engine
from engine import Limits
from engine.tools.lint import lint

SMALL = Limits(max_pool=20, max_states=1000, max_rerolls=50)
"""The limits under which the issue's reproducers still ran for minutes."""

WHOLE = "      n: {type: int, min: 0, max: 1000000000, default: 1}\n"


def mini(roll: str, outcome: str, *, inputs: str = WHOLE, top: str = "", extra: str = "") -> str:
    """A one-check ruleset: `roll` lines under `roll:`, an outcome expression over them."""
    return (
        f"rulecraft: 1\nname: mini\n{top}checks:\n  act:\n    inputs:\n{inputs}"
        f'    roll:\n{roll}    outcomes: [miss, hit]\n    outcome: "{outcome}"\n{extra}'
    )


def tables(depth: int) -> str:
    """Tables each calling the one before twice: 2**depth calls for the last."""
    text = "tables:\n  t0: {params: [x], value: x + 1}\n"
    for i in range(1, depth + 1):
        text += f"  t{i}: {{params: [x], value: t{i - 1}(x) + t{i - 1}(x)}}\n"
    return text


def lets(k: int) -> str:
    """Named values each squaring the one before."""
    return "    let:\n      v0: n + 2\n" + "".join(
        f"      v{i}: v{i - 1} * v{i - 1}\n" for i in range(1, k + 1)
    )


SUM_20D1000 = mini("      p: {pool: 20, die: 1000}\n", "'hit' if sum(p) > 10000 else 'miss'")
SUM_ND100 = mini("      p: {pool: n, die: 100}\n", "'hit' if sum(p) > 5000 else 'miss'")
TRIGGERED = mini(
    "      p: {pool: n, die: 1000, triggers: [{on: face == 1, may: reroll}], cap: 5}\n",
    "'hit' if sum(p) > 10000 else 'miss'",
)
MANY_KINDS = mini(
    "      d: {die: 1000, cap: 0, triggers: "
    "[{may: add, on: face >= 5, name: a}, {may: reroll, on: face >= 5}]}\n",
    "'hit' if 6 >= 1 else 'miss'",
)
"""Found by the fuzzer: a die of a thousand faces, each its own kind, whose reroll chain packs
states of three thousand fields; it charged nothing while it packed them (3 s past a 1 s deadline)."""
TABLES_CONSTANT = mini("      d: {die: 6}\n", "'hit' if d + t40(1) > 7 else 'miss'", top=tables(40))
TABLES_INPUT = mini("      d: {die: 6}\n", "'hit' if d + t40(n) > 7 else 'miss'", top=tables(40))
SQUARES = mini("      d: {die: 6}\n", "'hit' if d + v40 > 7 else 'miss'", extra=lets(40))


# -- work: a counter every loop charges ----------------------------------------------------------


def test_a_statistic_over_a_large_pool(refused):
    refused("RC503", engine.load(SUM_20D1000, limits=SMALL).distribution, "act")


def test_a_statistic_over_a_hundred_dice_by_default(refused):
    error = refused("RC503", engine.load(SUM_ND100).distribution, "act", n=100)
    assert "work budget of 2,000,000 units" in str(error) and "Limits.max_work" in str(error)


def test_a_triggered_pool_is_not_listed_before_it_is_charged(refused):
    refused("RC503", engine.load(TRIGGERED, limits=SMALL).distribution, "act", n=20)
    refused("RC503", engine.load(TRIGGERED).distribution, "act", n=20)


@pytest.mark.parametrize("outcome", ["6 >= 1", "d >= 6"])  # the die unread, and read
@pytest.mark.parametrize("policy", ["always", "never", "optimal"])
def test_a_die_of_a_thousand_kinds_is_charged_as_its_states_are_packed(refused, policy, outcome):
    text = MANY_KINDS.replace("6 >= 1", outcome)
    small = engine.load(text, limits=Limits(max_work=50_000, deadline=1.0))
    refused("RC503", small.distribution, "act", policy=policy)
    refused("RC503", engine.load(text).distribution, "act", policy=policy)


def test_a_die_of_a_thousand_kinds_stops_at_its_deadline():
    rs = engine.load(MANY_KINDS, limits=Limits(max_work=10**12, deadline=0.3))
    start = time.monotonic()
    with pytest.raises(engine.LimitError) as caught:
        rs.distribution("act")
    took = time.monotonic() - start
    assert "deadline of 0.3 s" in str(caught.value)
    assert took < 1.5, took


def test_tables_calling_tables_while_loading(refused):
    error = refused("RC503", engine.load, TABLES_CONSTANT)
    assert "folding this constant" in str(error)
    # found by a review: the retold diagnostic kept the hint naming --limit but lost its advice,
    # so the API's api_hint named the command line's flag
    (d,) = error.diagnostics
    assert d.advice is not None and d.advice.kind == "limit" and d.advice.name == "max_work"


@pytest.mark.parametrize("how", ["roll", "distribution"])
def test_tables_calling_tables_while_running(refused, how):
    rs = engine.load(TABLES_INPUT)
    if how == "roll":
        refused("RC503", rs.roll, "act", random.Random(1), n=1)
    else:
        refused("RC503", rs.distribution, "act", n=1)


@pytest.mark.parametrize("how", ["roll", "distribution"])
def test_a_value_squared_forty_times(refused, how):
    rs = engine.load(SQUARES)
    fn = rs.roll if how == "roll" else rs.distribution
    error = refused("RC503", fn, "act", n=1)
    assert "more than 1000 digits" in str(error)


def test_a_budget_of_its_own_for_each_request():
    rs = engine.load(SUM_ND100, limits=Limits(max_work=300_000))
    for n in (4, 5, 6):  # each fits alone; together they would not
        assert rs.distribution("act", n=n).probability("miss") > 0


# -- redraws ------------------------------------------------------------------------------------

REDRAW = "      d: {{die: 3, redraw: {{{how}: d < 3, times: {times}}}}}\n"


def test_sixteen_redraws_are_solved_once_per_level():
    start = time.monotonic()
    rs = engine.load(mini(REDRAW.format(how="may", times=16), "'hit' if d > 2 else 'miss'"))
    p = rs.distribution("act", policy="optimal").probability("hit")
    assert p == 1 - Fraction(2, 3) ** 17 and time.monotonic() - start < 2


def test_a_billion_redraws_are_refused_when_loading(refused):
    error = refused("RC503", engine.load, mini(REDRAW.format(how="may", times=10**9), "'hit'"))
    assert "Limits.max_rerolls" in str(error)


@pytest.mark.parametrize("how", ["roll", "distribution"])
def test_a_billion_redraws_from_an_input(refused, how):
    rs = engine.load(mini(REDRAW.format(how="must", times="n"), "'hit' if d > 2 else 'miss'"))
    fn = rs.roll if how == "roll" else rs.distribution
    refused("RC503", fn, "act", n=10**9)


def test_a_thousand_redraws_from_an_input_are_solved():
    rs = engine.load(mini(REDRAW.format(how="may", times="n"), "'hit' if d > 2 else 'miss'"))
    start = time.monotonic()
    assert rs.distribution("act", n=1000, policy="optimal").probability("hit") > Fraction(999, 1000)
    assert time.monotonic() - start < 5


# -- sizes refused when the ruleset loads --------------------------------------------------------


@pytest.mark.parametrize(
    "pool, limit",
    [
        (
            "{pool: 1, die: 6, triggers: [{on: face == 6, must: add, per_die: 10000000}], cap: 20}",
            "max_rerolls",
        ),
        ("{pool: 1, die: 6, triggers: [{on: face == 6, must: add}], cap: 10000000}", "max_rerolls"),
        ("{pool: 1000000, die: 6}", "max_pool"),
    ],
    ids=["per_die", "cap", "pool"],
)
def test_sizes_that_cannot_fit_are_refused_when_loading(refused, pool, limit):
    error = refused("RC503", engine.load, mini(f"      p: {pool}\n", "'hit' if sum(p) > 10 else 'miss'"))
    assert f"Limits.{limit}" in str(error)


def test_a_bag_of_two_billion_chits(refused):
    bag = "bags:\n  b:\n    chits: {red: 1000000000, blue: 1000000000}\n"
    text = mini("      c: {draw: b}\n", "'hit' if count(c, 'red') > 0 else 'miss'", top=bag)
    error = refused("RC503", engine.load, text)
    assert "Limits.max_bag" in str(error)
    assert engine.load(text, limits=Limits(max_bag=2 * 10**9)).name == "mini"  # loading builds no bag


def test_the_limits_set_by_the_embedder_decide(refused):
    text = mini("      p: {pool: 30, die: 6}\n", "'hit' if sum(p) > 10 else 'miss'")
    assert engine.load(text).name == "mini"
    refused("RC503", engine.load, text, limits=SMALL)


# -- a shipped ruleset's allowed inputs ----------------------------------------------------------


@pytest.fixture(scope="module")
def chimera() -> engine.Ruleset:
    return engine.load("chimera")


@pytest.mark.parametrize("policy", ["always", "optimal"])
def test_the_largest_skill_check_ends_with_the_budget(refused, chimera, policy):
    error = refused("RC503", chimera.distribution, "skill", dice=10, resolve=10, policy=policy)
    assert "Limits.max_work" in str(error)


def test_the_command_line_skill_check_that_ran_for_minutes(cli):
    start = time.monotonic()
    r = cli("prob", "chimera", "skill", "--input", "dice=10", "--input", "resolve=10")
    assert r.code != 0 and " RC503:" in r.err and time.monotonic() - start < 10


def test_the_budget_is_the_embedders_to_set(refused, chimera):
    assert chimera.distribution("skill", dice=6, resolve=2).probability("pass") > 0
    small = engine.load("chimera", limits=Limits(max_work=10_000))
    refused("RC503", small.distribution, "skill", dice=6, resolve=2)


# -- a deadline the embedder sets -----------------------------------------------------------------


def test_a_deadline_stops_a_long_request_near_it():
    # a request that takes well past the deadline on any minute: 20 dice under `always` took
    # 0.36 s warm on a fast one (2026-12-03, numpy imported), too near 0.3 s to be stopped
    # before it ended; under `optimal`, 0.86 s warm
    rs = engine.load("chimera", limits=Limits(max_work=10**12, max_states=10**7, deadline=0.3))
    start = time.monotonic()
    with pytest.raises(engine.LimitError) as caught:
        rs.distribution("skill", dice=10, resolve=10, policy="optimal")
    took = time.monotonic() - start
    assert "deadline of 0.3 s" in str(caught.value) and "Limits.deadline" in str(caught.value)
    assert took < 1.5, took


def test_a_deadline_holds_per_request_and_per_thread():
    rs = engine.load(TABLES_INPUT, limits=Limits(max_work=10**12, deadline=0.2))
    took: list[float] = []
    codes: list[str] = []

    def one() -> None:
        start = time.monotonic()
        try:
            rs.roll("act", random.Random(1), n=1)
        except engine.RulecraftError as exc:
            codes.append(exc.diagnostics[0].code)
        took.append(time.monotonic() - start)

    threads = [threading.Thread(target=one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert codes == ["RC503"] * 4 and max(took) < 3, took


# -- validate ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        (TABLES_INPUT, ["RC809"]),
        # every input squares past 1000 digits, a bound no budget raises: the ruleset fails
        # (RC808), at the let where it passes it for each input tried
        (SQUARES, ["RC808"] * 4),
        (TRIGGERED.replace("max: 1000000000, default: 1", "max: 20, default: 20"), ["RC809"]),
    ],
    ids=["tables", "squares", "triggered"],
)
def test_validate_ends_on_what_once_hung_it(text, codes):
    start = time.monotonic()
    found = lint(engine.load(text))
    assert [d.code for d in found] == codes and time.monotonic() - start < 10
