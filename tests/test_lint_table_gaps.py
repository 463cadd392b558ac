"""A table gap met in code the exact evaluator runs for each face (a redraw's condition, a later
die's faces, `each:`) stops that evaluation at the face: the rolls after it went unseen, so the
linter claims no rule that never fires (RC802) from it, and its example names the die.

Found by hunt 13p: with rules for `f == 1` and `f >= 3` only, a d6 redrawn while `rd(d)` holds
falls through at d = 2; the linter saw the calls rd(1) and rd(2) alone and said rule 2 of 'rd'
(`f >= 3`) never fires "for any of the 2 different calls the checks make" (a play makes six), and
that the check's rules for `d == 6` and `d >= 4` were never true for any allowed input; its RC801
said "in check 'k3', no inputs falls through", naming no die. A gap met through a `let` after the
roll is caught roll by roll, and there the rules that never fire are still told.
"""

from __future__ import annotations

from typing import Any

import engine
from engine.errors import Diagnostic
from engine.tools.lint import lint

TABLE = """\
  {name}:
    params: {{f: int}}
    returns: {returns}
    rules:
      - when: f == 1
        then: {one}
      - when: f >= 3
        then: {three}
"""
"""A table with a gap at f = 2: rules for f = 1 and for f >= 3 only."""


def _doc(tables: str, checks: str) -> str:
    return f"rulecraft: 1\nname: gaps\ntables:\n{tables}checks:\n{checks}"


REDRAW = _doc(
    TABLE.format(name="rd", returns="bool", one="true", three="false"),
    """\
  k3:
    roll:
      d: {die: 6, redraw: {must: rd(d)}}
    outcomes: [lo, hi, top]
    outcome:
      - when: d == 6
        then: top
      - when: d >= 4
        then: hi
      - else: lo
""",
)
"""d = 1 is redrawn (rd(1) is true), d = 2 falls through, d = 3..6 stand (rd is false)."""

EACH = _doc(
    TABLE.format(name="g", returns="int", one="0", three="1"),
    """\
  k:
    roll:
      p: {pool: 2, die: 6, each: "g(face)"}
    outcomes: [lo, hi]
    outcome:
      - when: sum(p) >= 1
        then: hi
      - else: lo
""",
)
"""Each die reads 0 on a 1, 1 on 3..6, and falls through on a 2."""

DEPENDENT = _doc(
    TABLE.format(name="h", returns="int", one="0", three="1"),
    """\
  k2:
    roll:
      a: {die: 6}
      b: {die: "1..h(a) + 1"}
    outcomes: [lo, hi]
    outcome: "'hi' if b >= 2 else 'lo'"
""",
)
"""b has faces 1..1 at a = 1, 1..2 at a = 3..6; at a = 2 its faces fall through."""

LET = _doc(
    TABLE.format(name="t2", returns="int", one="1", three="2"),
    """\
  k4:
    roll:
      d: {die: 6}
    let:
      v: t2(d)
    outcomes: [lo, hi, top]
    outcome:
      - when: v >= 5
        then: top
      - when: v >= 2
        then: hi
      - else: lo
""",
)
"""v is 1 at d = 1, 2 at d = 3..6 (d = 2 falls through, probability 1/6): `v >= 5` is never true."""


def _found(text: str) -> list[Diagnostic]:
    return lint(engine.load(text))


def _codes(found: list[Diagnostic], code: str) -> list[str]:
    return [d.message for d in found if d.code == code]


def test_a_gap_in_a_redraw_condition_claims_no_rule_never_fires() -> None:
    found = _found(REDRAW)
    assert _codes(found, "RC802") == [] and _codes(found, "RC804") == []
    assert _codes(found, "RC801") == [
        "table 'rd' has no rule for f = 2: e.g. in check 'k3', d = 2 with no inputs falls through"
    ]


def test_the_rules_it_no_longer_claims_do_fire() -> None:
    rs = engine.load(REDRAW)
    outcomes: dict[int, Any] = {d: rs.roll("k3", forced={"d": [d]}).outcome for d in (3, 4, 6)}
    # rd(3), rd(4), rd(6) are false (rule 2 of 'rd' fires): each stands, and `d >= 4`, `d == 6` fire
    assert outcomes == {3: "lo", 4: "hi", 6: "top"}


def test_a_gap_in_each_names_the_face_and_claims_no_rule_never_fires() -> None:
    found = _found(EACH)
    assert _codes(found, "RC802") == [] and _codes(found, "RC804") == []
    assert _codes(found, "RC801") == [
        "table 'g' has no rule for f = 2: e.g. in check 'k', a die of p = 2 with no inputs falls through"
    ]


def test_a_gap_in_a_later_dies_faces_names_the_earlier_die() -> None:
    found = _found(DEPENDENT)
    assert _codes(found, "RC802") == []  # h(3) = 1: rule 2 of 'h' fires at a = 3..6
    assert _codes(found, "RC801") == [
        "table 'h' has no rule for f = 2: e.g. in check 'k2', a = 2 with no inputs falls through"
    ]


def test_a_gap_through_a_let_still_tells_the_rule_that_never_fires() -> None:
    found = _found(LET)
    assert _codes(found, "RC801") == [
        "table 't2' has no rule for f = 2: e.g. in check 'k4', d = 2 with no inputs falls through "
        "(probability 1/6 for these inputs)"
    ]
    assert _codes(found, "RC802") == [
        "rule 1 of check 'k4' (when v >= 5) never fires: its condition is never true for any allowed input"
    ]


def test_the_other_checks_and_their_tables_are_still_judged() -> None:
    # a plain d6 that calls its own table 'u' with d = 1..6: u's rule `f >= 7` and the check's rule
    # `d >= 7` never fire, and are still told beside the redrawn check, whose own are not
    plain = """\
  plain:
    roll:
      d: {die: 6}
    let:
      v: u(d)
    outcomes: [lo, hi]
    outcome:
      - when: d >= 7
        then: hi
      - else: "'lo' if v >= 1 else 'hi'"
"""
    table = """\
  u:
    params: {f: int}
    returns: int
    rules:
      - when: f <= 6
        then: 1
      - when: f >= 7
        then: 2
"""
    text = REDRAW.replace("checks:\n", table + "checks:\n") + plain
    found = _found(text)
    assert sorted(_codes(found, "RC802")) == [
        "rule 1 of check 'plain' (when d >= 7) never fires: its condition is never true for any "
        "allowed input, so outcome 'hi' never comes out",  # v = u(d) = 1 >= 1: the `else` gives lo
        "rule 2 of table 'u' (when f >= 7) never fires: its condition is never true for any of the 6 "
        "different calls the checks make",
    ]
