"""`highest` and `lowest` read a list as they read a pool: `highest([a, b, c], 2)` keeps the two
highest of three values computed apart (roll and keep), as a pool, so `sum(...)` adds them and
`count(...)` counts them, as for `highest(p, 2)`. The exact evaluator and the sampler are held to
every ordered roll of small dice with ties, for every k from 0 past the list's length."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import product

import pytest

import engine
from engine.expr.parser import parse
from engine.expr.printer import to_text
from engine.syntax.positions import SourceFile
from engine.tools.lint import lint

TEXT = """\
rulecraft: 1
name: kept_lists
checks:
  c:
    inputs:
      k: {type: int, min: 0, max: 4, default: 2}
    roll:
      a: {die: 3}
      b: {die: 3}
      d: {die: "0..3"}
    let:
      top: sum(highest([a, b, d + 1], k))
      bottom: sum(lowest([a, b, d + 1], k))
      kept: count(highest([a, b, d + 1], k))
      hi: highest([a, b, d + 1])
      lo: lowest([a, b, d + 1])
    outcomes: [low, high]
    outcome: "'high' if top > bottom + lo else 'low'"
"""
RULES = engine.load(TEXT)
NAMES = ("top", "bottom", "kept", "hi", "lo")


def by_hand(a: int, b: int, d: int, k: int) -> tuple[dict[str, int], str]:
    """The rule as stated, for one roll: sort the three values, keep k of one end."""
    ranked = sorted([a, b, d + 1])
    values = {
        "top": sum(ranked[::-1][:k]),
        "bottom": sum(ranked[:k]),
        "kept": min(k, 3),
        "hi": ranked[-1],
        "lo": ranked[0],
    }
    return values, "high" if values["top"] > values["bottom"] + values["lo"] else "low"


@pytest.mark.parametrize("k", [0, 1, 2, 3, 4])
def test_exact_agrees_with_every_roll(k: int) -> None:
    rolls = list(product(range(1, 4), range(1, 4), range(0, 4)))
    counts: dict[str, Counter[int]] = {n: Counter() for n in NAMES}
    outcomes: Counter[str] = Counter()
    for roll in rolls:
        values, outcome = by_hand(*roll, k)
        for n in NAMES:
            counts[n][values[n]] += 1
        outcomes[outcome] += 1
    d = RULES.distribution("c", k=k)
    for n in NAMES:
        assert d.value(n).fractions() == {v: Fraction(c, len(rolls)) for v, c in counts[n].items()}, n
    assert {o: d.probability(o) for o in ("low", "high")} == {
        o: Fraction(outcomes[o], len(rolls)) for o in ("low", "high")
    }


@pytest.mark.parametrize("k", [0, 1, 2, 3, 4])
def test_every_roll_keeps_what_the_rule_says(k: int) -> None:
    rng = random.Random(k)
    for _ in range(200):
        r = RULES.roll("c", rng, k=k)
        values, outcome = by_hand(r.rolled["a"], r.rolled["b"], r.rolled["d"], k)
        assert dict(r.values) == values and r.outcome.name == outcome


@pytest.mark.parametrize(
    ("dice", "k", "top", "bottom"),
    [((2, 2, 1), 2, 4, 4), ((3, 3, 2), 1, 3, 3), ((1, 3, 0), 0, 0, 0), ((2, 1, 2), 4, 6, 6)],
)
def test_ties_and_counts_past_the_length(dice: tuple[int, int, int], k: int, top: int, bottom: int) -> None:
    r = RULES.roll("c", forced=dict(zip("abd", dice)), k=k)
    assert (r.values["top"], r.values["bottom"], r.values["kept"]) == (top, bottom, min(k, 3))


def test_the_sampler_follows_the_exact_distribution() -> None:
    batch = RULES.sample("c", 4000, random.Random(9), method="rolled", k=2)
    want = float(RULES.distribution("c", k=2).probability("high"))
    assert abs(batch.share("high") - want) < 4 * (want * (1 - want) / 4000) ** 0.5


SAME = """\
rulecraft: 1
name: same
checks:
  c:
    inputs:
      k: {type: int, min: 0, max: 4, default: 2}
    roll:
      a: {die: 4}
      b: {die: 4}
      d: {die: 4}
      p: {pool: 3, die: 4}
    let:
      listed: sum(highest([a, b, d], k)) - sum(lowest([a, b, d], k))
      pooled: sum(highest(p, k)) - sum(lowest(p, k))
      alike: highest([a, b, d], k) == highest(p, k)
    outcomes: [differ, equal]
    outcome: "'equal' if alike else 'differ'"
"""


@pytest.mark.parametrize("k", [0, 2, 3])
def test_a_list_keeps_what_a_pool_of_the_same_dice_keeps(k: int) -> None:
    """The result is a pool, as for a pool: equal to a pool of the same readings (in any order)."""
    rs = engine.load(SAME)
    d = rs.distribution("c", k=k)
    assert d.value("listed").fractions() == d.value("pooled").fractions()
    r = rs.roll("c", forced={"a": 4, "b": 1, "d": 4, "p": [1, 4, 4]}, k=k)
    assert r.values["alike"] is True and r.outcome.name == "equal"


def test_values_of_one_scale_are_kept_by_the_scale_order() -> None:
    rs = engine.load(
        "rulecraft: 1\nname: s\nscales:\n  q: [bad, meh, good]\nchecks:\n  c:\n"
        "    inputs:\n      x: {type: choice, choices: q, default: bad}\n"
        "      y: {type: choice, choices: q, default: bad}\n"
        "    let:\n      goods: count(highest([x, y, 'meh'], 2), 'good')\n"
        "      least: lowest([x, 'good', y])\n"
        "    outcomes: [no, yes]\n    outcome: \"'yes' if goods == 2 else 'no'\"\n"
    )
    r = rs.roll("c", random.Random(1), x="good", y="good")
    assert (r.values["goods"], r.values["least"].name, r.outcome.name) == (2, "good", "yes")
    r = rs.roll("c", random.Random(1), x="bad", y="good")
    assert (r.values["goods"], r.values["least"].name) == (1, "bad")


def test_an_empty_list_keeps_nothing_and_has_no_extreme() -> None:
    rs = engine.load(TEXT.replace("highest([a, b, d + 1], k))", "highest([], k))"))
    assert rs.roll("c", random.Random(1)).values["top"] == 0
    rs = engine.load(TEXT.replace("highest([a, b, d + 1])", "highest([])"))
    with pytest.raises(engine.EvalError) as caught:
        rs.roll("c", random.Random(1))
    assert caught.value.diagnostics[0].code == "RC504"
    assert "highest() of an empty list" in caught.value.diagnostics[0].message


@pytest.mark.parametrize("k", ["-1", "3 / 2"])
def test_a_count_that_is_no_whole_number_is_refused(k: str) -> None:
    rs = engine.load(TEXT.replace("lowest([a, b, d + 1], k)", f"lowest([a, b, d + 1], {k})"))
    with pytest.raises(engine.EvalError) as caught:
        rs.roll("c", random.Random(1))
    assert caught.value.diagnostics[0].code == "RC504" and "whole number" in str(caught.value)


@pytest.mark.parametrize(
    ("call", "says"),
    [
        (
            "highest([a >= 2, b >= 2], 1)",
            "highest() keeps numbers or values of one scale, but this is a list of true/false",
        ),
        (
            "highest([a, b], [1])",
            "highest() expects how many dice to keep second, a number, got list of number",
        ),
        ("lowest(a >= 2, 1)", "lowest() expects a pool, draw or list first, got true/false"),
        ("lowest(a)", "lowest() expects a pool, draw or list, got number"),
    ],
)
def test_a_wrong_argument_is_told_at_its_call(call: str, says: str) -> None:
    text = TEXT.replace("sum(lowest([a, b, d + 1], k))", f"sum({call})")
    with pytest.raises(engine.RulecraftError) as caught:
        engine.load_source(SourceFile("bad.yaml", text))
    (d,) = caught.value.diagnostics
    line = next(n for n, ln in enumerate(text.splitlines(), start=1) if call in ln)
    column = text.splitlines()[line - 1].index(call) + 1
    assert (d.code, d.message, d.span.line, d.span.col) == ("RC304", says, line, column)
    rendered = str(caught.value)
    assert rendered.startswith(f"bad.yaml:{line}:{column}: error RC304: {says}")
    assert f"\n{' ' * (column + 1)}^" in rendered and "Traceback" not in rendered


@pytest.mark.parametrize(
    "text",
    [
        "highest([a, b, c], 2)",
        "lowest([1, 2, 3], 0)",
        "sum(highest([a + 1, max(b, c), -d], k - 1)) + 1",
        "count(lowest(['x', y], 1), 'x')",
        "highest([])",
    ],
)
def test_the_printer_round_trips(text: str) -> None:
    node = parse(text)
    assert to_text(node) == text
    assert parse(to_text(node)) == node


def test_the_linter_reads_it() -> None:
    found = lint(RULES)
    assert not [d for d in found if d.severity == "error"], [d.render() for d in found]
