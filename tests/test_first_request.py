"""What a first exact request finds made already (issue 13 item 1, the first column): each die's
table, made when the ruleset loads, and each named value's kind, known from its static type so
that its distribution is made without looking at every value. These tests hold both to what
the request would have made itself."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

import engine
from engine.errors import InputError
from engine.eval import exact
from engine.eval.dist import Dist
from engine.model.ruleset import Die
from engine.model.values import Symbol

SHIPPED = ("castle", "chill", "chimera", "chthonian")


def _constant_dice(rs: engine.Ruleset) -> list[tuple[str, Die]]:
    return [
        (check.name, r)
        for check in rs.checks.values()
        for r in check.roll
        if isinstance(r, Die) and r.faces_expr is None and r.faces
    ]


@pytest.mark.parametrize("name", SHIPPED)
def test_every_die_of_constant_faces_has_its_table_when_the_ruleset_loads(name: str) -> None:
    """Right after `load`, before any request, each such die's table is in the ruleset's tables:
    its faces counted by hand, and the very table a distribution then reads."""
    rs = engine.load(name)
    dice = _constant_dice(rs)
    if name in ("chill", "chthonian"):
        assert dice  # (Castle draws from bags, Chimera rolls pools)
    for _, die in dice:
        kept = rs.caches.tables.lookup(("die", die.faces))
        counts: dict[Any, int] = {}
        for face in die.faces:
            counts[face] = counts.get(face, 0) + 1
        assert kept == Dist(counts, len(die.faces))
    for check_name, die in dice:
        check = rs.check(check_name)
        if check.sequential:
            continue
        example = next((ex for ex in check.examples if not ex.policy or ex.policy == "always"), None)
        d = rs.distribution(check_name, **(dict(example.inputs) if example else {}))
        if isinstance(d.source, exact._Product):
            i = check.roll.index(die)
            assert d.source.parts[i] is rs.caches.tables.lookup(("die", die.faces))


REPEATED = """
rulecraft: 1
name: repeated
checks:
  one:
    roll:
      a: {die: [1, 1, 2, 3]}
      b: {die: 6}
    outcomes: [lo, hi]
    outcome: "'hi' if a + b > 5 else 'lo'"
  two:
    roll:
      c: {die: [1, 1, 2, 3]}
      size: {die: [4, 6]}
      d: {die: "1..size"}
    outcomes: [lo, hi]
    outcome: "'hi' if c + d > 5 else 'lo'"
"""


def test_dice_with_equal_faces_share_one_table_and_a_table_let_go_is_made_again() -> None:
    """One table per list of faces (a face written twice weighs twice); faces read when rolled
    are not made at load; a table the cache has let go is made again by the request and kept."""
    rs = engine.load(REPEATED)
    tables = rs.caches.tables
    assert tables.lookup(("die", (1, 1, 2, 3))) == Dist({1: 2, 2: 1, 3: 1}, 4)
    assert tables.lookup(("die", (1, 2, 3, 4, 5, 6))) == Dist(dict.fromkeys(range(1, 7), 1), 6)
    assert tables.lookup(("die", (4, 6))) is not None
    assert [k for k in tables._data if isinstance(k, tuple) and k[0] == "die"] == [
        ("die", (1, 1, 2, 3)),
        ("die", (1, 2, 3, 4, 5, 6)),
        ("die", (4, 6)),
    ]
    before = rs.distribution("one").table()
    tables.clear()
    again = engine.load(REPEATED)
    again.caches.tables.clear()
    assert again.distribution("one").table() == before
    assert again.caches.tables.lookup(("die", (1, 1, 2, 3))) == Dist({1: 2, 2: 1, 3: 1}, 4)
    hand = sum(Fraction(w, 4 * 6) for a, w in ((1, 2), (2, 1), (3, 1)) for b in range(1, 7) if a + b > 5)
    assert dict((s.name, p) for s, p in before)["hi"] == hand


KINDS = """
rulecraft: 1
name: kinds
scales:
  level: [low, mid, high]
tables:
  loose:
    params: [x]
    cases:
      1..3: "'low'"
      else: 7
  plus:
    params: [x]
    value: x + 3
  sure:
    params: [x]
    returns: int
    value: x * 2
checks:
  all:
    inputs:
      t: {type: int, min: -5, max: 5, default: 1}
    roll:
      a: {die: 6}
      b: {die: 4}
    let:
      n: a + t
      q: a / b
      yes: a > b
      lv: "'high' if a > 4 else 'low'"
      any_number: plus(a)
      mixed: loose(a)
      typed: sure(a)
      span: 1..a
    outcomes: [failure, success]
    outcome: "'success' if n > 3 else 'failure'"
    examples:
      - name: a four
        inputs: {t: 0}
        dice: {a: 4, b: 1}
        expect: {outcome: success}
  pool:
    roll:
      dice: {pool: 2, die: 6}
    let:
      same: dice
      top: highest(dice)
    outcomes: [failure, success]
    outcome: "'success' if top > 4 else 'failure'"
    examples:
      - name: a five
        dice: {dice: [5, 1]}
        expect: {outcome: success}
"""


def test_a_values_static_type_says_what_its_distribution_holds() -> None:
    """`Check.plain_values`: numbers, true/false and scale values by their static type (made
    without looking at each value); a table's undeclared result and a range are not, and are
    looked at as before — numbers, or numbers and scale values, after all give a distribution,
    a range does not (RC402) — whichever way the value is made."""
    rs = engine.load(KINDS)
    check = rs.check("all")
    assert check.plain_values == {"n", "q", "yes", "lv", "typed"}
    for joint_first in (False, True):
        d = rs.distribution("all", t=2)
        if joint_first:
            assert len(d.joint) > 0
        assert d.value("n") == Dist({a + 2: 4 for a in range(1, 7)}, 24)
        assert d.value("q").probability(Fraction(1, 2)) == Fraction(2, 24)
        assert d.value("yes").probability(True) == Fraction(14, 24)
        levels = [(str(v), p) for v, p in d.value("lv").items()]
        assert levels == [("low", Fraction(2, 3)), ("high", Fraction(1, 3))]
        assert d.value("typed") == Dist({2 * a: 4 for a in range(1, 7)}, 24)
        assert d.value("any_number") == Dist({a + 3: 4 for a in range(1, 7)}, 24)
        assert {str(v): w for v, w in d.value("mixed").weights.items()} == {"low": 12, "7": 12}
        with pytest.raises(InputError) as caught:
            d.value("span")
        assert caught.value.diagnostics[0].code == "RC402"


@pytest.mark.parametrize("name", [*SHIPPED, "kinds"])
def test_every_value_of_a_plain_type_holds_only_numbers_truths_and_scale_values(name: str) -> None:
    """The compiler's judgement held to the values themselves: on every shipped check's examples
    (and the checks above, a pool among their values), each value in `plain_values` takes only
    numbers, true/false and scale values in the joint."""
    rs = engine.load(KINDS if name == "kinds" else name)
    if name == "kinds":
        assert rs.check("pool").plain_values == {"top"}
    seen = 0
    for check in rs.checks.values():
        if not check.roll:
            continue
        for ex in check.examples:
            d = rs.distribution(check.name, policy=ex.policy or "always", **dict(ex.inputs))
            for at, value in enumerate(d.names):
                if value in check.plain_values:
                    for key in d.joint.weights:
                        assert isinstance(key[at + 2], (int, Fraction, Symbol)), (check.name, value)
                        seen += 1
    assert seen
