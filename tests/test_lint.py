"""The linter (engine/tools/lint/) and its place in `rulecraft validate`.

The must-show case first: bands that leave a roll of exactly half the target unplaced get an
RC801 that names such a roll. Then each finding, the absence of false positives on the shipped
rulesets and on common idioms, `--strict`, `--format json`, the order of findings, and that the
linter's work is bounded.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest
from _repo import REPO_ROOT
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import engine
from engine.tools.lint import DEFAULT_BUDGET, LintBudget, lint

CHILL = (REPO_ROOT / "rulesets" / "chill.yaml").read_text(encoding="utf-8")
SHIPPED = sorted((REPO_ROOT / "rulesets").glob("*.yaml"))


def codes(text: str, budget: LintBudget = DEFAULT_BUDGET) -> list[engine.Diagnostic]:
    return lint(engine.load(text), budget)


def only(diags: list[engine.Diagnostic], code: str) -> engine.Diagnostic:
    found = [d for d in diags if d.code == code]
    assert len(found) == 1, [d.render() for d in diags]
    return found[0]


# -- the must-show case: a gap at exactly half the target -----------------------------------------

BANDS = """      - when: roll <= target / 2
        then: high_success
      - else: low_success"""
EXPLICIT = """      - when: roll <= target / 2
        then: high_success
      - when: roll > target / 2
        then: low_success"""


def chill_bands(text: str) -> str:
    """The shipped Chill bands with the last band written out (no `else`), as many authors write them."""
    assert BANDS in CHILL
    return CHILL.replace(BANDS, text)


def test_the_explicit_bands_are_complete():
    assert [d.code for d in codes(chill_bands(EXPLICIT))] == []


def test_a_gap_at_half_the_target_names_a_roll_that_falls_through():
    text = chill_bands(EXPLICIT.replace("roll <= target / 2", "roll < target / 2"))
    d = only(codes(text), "RC801")
    assert d.severity == "error"
    m = re.search(r"roll = (\d+), doubles = false, target = (\d+)", d.message)
    assert m, d.message
    roll, target = int(m[1]), int(m[2])
    assert 2 * roll == target  # exactly half
    dice = re.search(r"tens = (\d), ones = (\d)", d.message)
    assert dice and 10 * int(dice[1]) + int(dice[2]) == roll
    assert "falls through" in d.message and "table 'specific_band'" in d.message
    # the position is the table's rule list, and the hint says what to do
    lines = text.splitlines()
    assert d.span is not None and lines[d.span.line - 1].strip() == "rules:"
    assert "else" in (d.hint or "")
    # and the roll it names really has no result
    rules = engine.load(text)
    with pytest.raises(engine.EvalError) as caught:
        rules.roll("specific", forced={"tens": int(dice[1]), "ones": int(dice[2])}, target=target)
    assert caught.value.diagnostics[0].code == "RC501"


def test_a_27_against_54_falls_through():
    text = chill_bands(EXPLICIT.replace("roll <= target / 2", "roll < target / 2"))
    text = text.replace("min: 1\n        max: 300", "min: 54\n        max: 54")
    # the check's own examples give other targets, which no example may now (RC702 at load)
    start = text.index("\n    examples:\n", text.index("\n  specific:\n"))
    text = text[:start] + text[text.index("\nstate:\n", start) :]
    d = only(codes(text), "RC801")
    assert "roll = 27, doubles = false, target = 54" in d.message
    assert "target = 54 with tens = 2, ones = 7 falls through" in d.message
    assert "probability 1/100" in d.message


def test_the_one_character_change_with_an_else_moves_the_half_to_the_else():
    """With the shipped `else: low_success` kept, `<` is no gap: exactly half becomes a Low Success."""
    text = CHILL.replace("roll <= target / 2", "roll < target / 2")
    assert text != CHILL
    assert [d.code for d in codes(text)] == []


def test_validate_reports_the_gap(tmp_path: Path, cli):
    bad = tmp_path / "chill_gap.yaml"
    bad.write_text(chill_bands(EXPLICIT.replace("roll <= target / 2", "roll < target / 2")), encoding="utf-8")
    code, out, err = cli("validate", str(bad))
    assert code == 1 and f"FAILED  {bad}" in out
    assert re.search(
        rf"{re.escape(str(bad))}:\d+:5: error RC801: table 'specific_band' has no rule for roll = \d+", err
    )
    assert "^^^^^" in err


# -- the shipped rulesets ------------------------------------------------------------------------


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_rulesets_lint_clean(path: Path):
    assert [d.render() for d in lint(engine.load(path))] == []


def test_validate_shipped_folder_strict_subprocess():
    """Kept as a real process: `python -m engine validate` end to end, exit status included."""
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "validate", "--strict", "rulesets/"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "warning" not in proc.stdout + proc.stderr


def test_lint_leaves_the_ruleset_as_it_was():
    rules = engine.load("chill")
    before = rules.distribution("specific", target=55).table()
    lint(rules)
    assert (
        rules.distribution("specific", target=56).table()
        == engine.load("chill").distribution("specific", target=56).table()
    )
    assert rules.distribution("specific", target=55).table() == before
    assert lint(rules) == lint(rules)  # and it is deterministic


# -- each finding -------------------------------------------------------------------------------------

D6 = """
rulecraft: 1
name: t
checks:
  act:
    roll:
      d: {die: 6}
    outcomes: [miss, hit, critical]
"""


def test_rc801_outcome_rules_name_inputs_dice_and_values():
    d = only(
        codes("""
rulecraft: 1
name: t
checks:
  act:
    inputs:
      skill: {type: int, min: 0, max: 2, default: 0}
    roll:
      a: {die: 6}
      b: {die: 6}
    let:
      total: a + b + skill
    outcomes: [miss, partial, hit]
    outcome:
      - when: total >= 10
        then: hit
      - when: total >= 7 and total <= 8
        then: partial
      - when: total <= 6
        then: miss
"""),
        "RC801",
    )
    assert d.message.startswith("the outcome rules of check 'act' leave rolls without an outcome: e.g. ")
    assert "total = 9" in d.message and "falls through" in d.message
    assert (d.span.line, d.span.col) == (14, 5)  # the `outcome:` key (the text starts with a blank line)


def test_rc801_value_table_without_a_case():
    d = only(
        codes("""
rulecraft: 1
name: t
scales:
  result: [fail, pass]
tables:
  read:
    params: {face: int}
    returns: result
    cases: {1..3: fail, 5..6: pass}
checks:
  act:
    roll:
      d: {die: 6}
    outcomes: result
    outcome: read(d)
"""),
        "RC801",
    )
    assert "table 'read' has no case for face = 4" in d.message and "d = 4" in d.message
    assert "probability 1/6" in d.message


def test_rc801_with_a_reroll_procedure():
    """A pool with reroll triggers is followed exactly (small pools) under both policies."""
    d = only(
        codes("""
rulecraft: 1
name: t
checks:
  act:
    inputs:
      dice: {type: int, min: 1, max: 3, default: 2}
    roll:
      p:
        pool: dice
        die: 6
        triggers:
          - {on: face == 1, may: reroll, repeat: false}
    outcomes: [miss, hit]
    outcome:
      - when: highest(p) >= 5
        then: hit
      - when: highest(p) <= 3
        then: miss
"""),
        "RC801",
    )
    m = re.search(r"p = \[([\d, ]+)\]", d.message)
    assert m, d.message
    assert max(int(x) for x in m[1].split(", ")) == 4  # the one highest die no rule covers


def test_rc802_shadowed_and_never_true():
    diags = codes(
        D6
        + """    outcome:
      - when: d >= 4
        then: hit
      - when: d == 6
        then: critical
      - when: d > 6
        then: miss
      - else: miss
"""
    )
    found = [d for d in diags if d.code == "RC802"]
    assert [d.span.line for d in found] == [12, 14]
    assert (
        "rule 2 of check 'act' (when d == 6) never fires: "
        "earlier rule 1 already decides every roll it matches" in found[0].message
    )
    assert "so outcome 'critical' never comes out" in found[0].message
    assert (
        "rule 3 of check 'act' (when d > 6) never fires: its condition is never true for any allowed input"
        in found[1].message
    )
    assert not [d for d in diags if d.code in ("RC803", "RC804")]  # folded into the RC802


AUTO_FIRST = """rulecraft: 1
name: au2
checks:
  a:
    inputs:
      x: {type: int, min: 0, max: 3, default: 1}
    roll:
      d: {die: 6}
    auto:
      - when: x == 0
        then: miss
    outcomes: [miss, hit, odd]
    outcome:
      - when: x == 0 and d == 6
        then: odd
      - when: d >= 4
        then: hit
      - else: miss
"""


def test_rc802_names_the_auto_rule_that_decides_first() -> None:
    """Found by a hunt: an outcome rule true only at inputs an auto rule decides before the roll
    was RC802 "its condition is never true for any allowed input", with a hint to compare it with
    the dice faces and min and max, though it is true at x = 0, d = 6. The rolls of the inputs the
    auto rules decided are tried for such a rule (and only for one), and the auto rule named; a
    condition true nowhere is told as before; where those rolls cannot all be tried, the message
    says the condition is never true where the auto rules leave the roll to it."""
    found = only(codes(AUTO_FIRST), "RC802")
    assert (found.severity, found.message) == (
        "warning",
        "rule 1 of check 'a' (when x == 0 and d == 6) never fires: its condition is true only at "
        "inputs where auto rule 1 already decides before the roll, so outcome 'odd' never comes out",
    )
    assert found.hint is not None and "narrow auto rule 1's condition" in found.hint
    assert "dice faces" not in found.hint
    nowhere = only(codes(AUTO_FIRST.replace("x == 0 and d == 6", "x == 1 and d == 7")), "RC802")
    assert nowhere.message.endswith(
        "its condition is never true for any allowed input, so outcome 'odd' never comes out"
    )
    # a die of x faces: at x = 0, which the auto rule decides, the dice cannot be rolled
    unsure = only(
        codes(
            AUTO_FIRST.replace("d: {die: 6}", "d: {die: x}")
            .replace("d == 6", "d == 1")
            .replace("d >= 4", "d >= 1")
        ),
        "RC802",
    )
    assert "never true for any allowed input where the auto rules leave the roll to it (auto rule 1 " in (
        unsure.message
    )
    assert not codes(AUTO_FIRST.replace("x == 0 and d == 6", "x == 1 and d == 6"))
    # (a review) an earlier rule that decides those rolls is no auto rule's to name: narrowing the
    # auto rule would never let the rule fire; and every auto rule that decides first is named
    shadowed = AUTO_FIRST.replace(
        "      - when: x == 0 and d == 6\n",
        "      - when: d == 6\n        then: hit\n      - when: x == 0 and d == 6\n",
    )
    assert "auto rule" not in only(codes(shadowed), "RC802").message
    two = AUTO_FIRST.replace(
        "      - when: x == 0\n        then: miss\n",
        "      - when: x == 0\n        then: miss\n      - when: x == 3\n        then: miss\n",
    ).replace("x == 0 and d == 6", "(x == 0 or x == 3) and d == 6")
    assert "auto rules 1 and 2 already decide" in only(codes(two), "RC802").message


def test_rc802_auto_rule_and_table_rule():
    diags = codes("""
rulecraft: 1
name: t
tables:
  band:
    params: {total: int}
    returns: int
    rules:
      - when: total >= 4
        then: 1
      - when: total >= 5
        then: 2
      - else: 0
      - when: total < 0
        then: 3
checks:
  act:
    inputs:
      level: {type: int, min: 0, max: 3, default: 0}
    auto:
      - when: level >= 3
        then: hit
      - when: level >= 4
        then: miss
    roll:
      d: {die: 6}
    outcomes: [miss, hit]
    outcome:
      - when: band(d + level) >= 1
        then: hit
      - else: miss
""")
    messages = [d.message for d in diags if d.code == "RC802"]
    assert any(
        m.startswith("auto rule 2 of check 'act' (when level >= 4) never fires: its condition is never true")
        for m in messages
    )
    assert any(
        m.startswith(
            "rule 2 of table 'band' (when total >= 5) never fires: earlier rule 1 already decides every call"
        )
        for m in messages
    )
    assert any(
        m.startswith("rule 4 of table 'band' (when total < 0) never fires: earlier rule 3 already decides")
        for m in messages
    )
    assert len(messages) == 3  # the else row is never reported


def test_rc803_and_rc804():
    diags = codes(
        D6
        + """    outcome: "'hit' if d >= 7 else 'miss'"
"""
    )
    assert (
        only(diags, "RC803").message == "outcome 'critical' of check 'act' is declared but nothing gives it"
    )
    d804 = only(diags, "RC804")
    assert d804.message == "outcome 'hit' of check 'act' has probability 0 for every allowed input"
    assert (d804.span.line, d804.span.col) == (8, 22)  # the member in the outcomes list


def test_a_value_spelt_like_an_outcome_does_not_name_it():
    """`graze` below reads the `let`, not the outcome: nothing gives the outcome, so RC803
    (not RC804, which says something names it). Same for a table's parameter."""
    text = """
rulecraft: 1
name: t
tables:
  band:
    params: {hit: int}
    returns: int
    value: hit + 1
checks:
  attack:
    roll:
      d: {die: 6}
    let:
      graze: band(d)
    outcomes: [miss, graze, hit]
    outcome:
      - when: graze >= 5
        then: hit
      - else: miss
"""
    diags = codes(text)
    assert (
        only(diags, "RC803").message == "outcome 'graze' of check 'attack' is declared but nothing gives it"
    )
    assert not [d for d in diags if d.code == "RC804"]
    # a table's parameter spelt like the outcome, read in the table's body, names it neither
    renamed = text.replace("{hit: int}", "{graze: int}").replace("hit + 1", "graze + 1")
    renamed = renamed.replace("graze: band(d)", "total: band(d)").replace("when: graze", "when: total")
    diags = codes(renamed)
    assert (
        only(diags, "RC803").message == "outcome 'graze' of check 'attack' is declared but nothing gives it"
    )


def test_an_output_spelt_like_an_outcome_does_not_name_it():
    """Outputs read the outputs above them: `crit` below is the output, not the outcome."""
    diags = codes(
        D6.replace("[miss, hit, critical]", "[miss, hit, crit]")
        + """    outcome: "'hit' if d >= 4 else 'miss'"
    outputs:
      crit: "1 if d == 6 else 0"
      bonus: "crit * 2"
"""
    )
    assert only(diags, "RC803").message == "outcome 'crit' of check 'act' is declared but nothing gives it"


def test_outcomes_computed_by_builtins_are_not_rc803():
    diags = codes("""
rulecraft: 1
name: t
scales:
  result: [fail, half, pass]
tables:
  read:
    params: {face: int}
    returns: result
    cases: {1..2: fail, 3..4: half, 5..6: pass}
checks:
  act:
    roll:
      p: {pool: 3, die: 6, each: read(face)}
    outcomes: result
    outcome: "majority(p, ['half', 'fail', 'pass'])"
""")
    assert diags == []


def test_rc805_rc806_rc807_and_what_counts_as_a_use():
    diags = codes("""
rulecraft: 1
name: t
bags:
  beads:
    chits: {poor: 2, good: 1}
tables:
  twice:
    params: {x: int}
    returns: int
    value: x * 2
  spare:
    params: [x]
    value: x
checks:
  act:
    inputs:
      dice: {type: int, min: 1, max: 3, default: 1}
      helped: {type: bool, default: false}
      second: {type: bool, default: false}
      ignored: {type: int, min: 0, max: 3, default: 0}
    let:
      bonus: twice(1 if helped else 0)
      shown: dice + 1
      unused: dice * 3
    roll:
      p:
        pool: dice
        die: 6
        triggers:
          - {on: face == 1, may: reroll, only_if: helped}
      b:
        draw: beads
        redraw: {may: second}
    outcomes: [miss, hit]
    outcome:
      - when: highest(p) + bonus >= 6 or best(b) == 'good'
        then: hit
      - else: miss
    outputs:
      echo: shown
""")
    assert only(diags, "RC805").message == "input 'ignored' of check 'act' is never used"
    assert only(diags, "RC806").message == "named value 'unused' of check 'act' is never used"
    assert only(diags, "RC807").message == "table 'spare' is never called"
    assert all(d.severity == "warning" for d in diags)


def test_rc808_names_the_input_and_points_at_the_expression():
    d = only(
        codes("""
rulecraft: 1
name: t
checks:
  act:
    inputs:
      helpers: {type: int, min: 0, max: 4, default: 1}
    roll:
      d: {die: 6}
    let:
      share: d / helpers
    outcomes: [miss, hit]
    outcome: "'hit' if share >= 3 else 'miss'"
"""),
        "RC808",
    )
    assert d.severity == "error"
    assert "helpers = 0 with d = 1: division by zero (RC502)" in d.message
    assert (d.span.line, d.span.col, d.span.end_col) == (11, 14, 25)


def test_rc808_leaves_out_a_pool_the_expression_does_not_read():
    """Review: a pool the exact evaluator summarised with no statistic (nothing reads it) was shown
    as an empty entry: 'a = 1, b = 1,  with no inputs'."""
    d = only(
        codes("""
rulecraft: 1
name: t
checks:
  act:
    roll: {a: {die: 4}, b: {die: 4}, p: {pool: 3, die: 4}}
    let: {v: "sum(highest([a, b], -1))"}
    outcomes: [miss, hit]
    outcome: "'hit' if v > 2 else 'miss'"
"""),
        "RC808",
    )
    assert "at a = 1, b = 1, highest(" in d.message, d.message
    assert ",  " not in d.message and ", with" not in d.message


POWER = """
rulecraft: 1
name: pw
checks:
  act:
    roll:
      d: {die: 20}
    let:
      v: "d ** 5000"
    outcomes: [low, high]
    outcome: "'high' if v >= 10 else 'low'"
"""


def test_rc808_for_a_number_past_the_bound_of_computed_numbers(tmp_path: Path, cli):
    """Every roll but a 1 of this check fails with RC503 (a number of more than 1000 digits),
    which no budget or `Limits` lets through: the linter said RC809 ("left out", a warning
    `--strict` keeps a warning), so `validate --strict` passed it (found by a review). It is the
    ruleset's, like a division by zero: RC808, with the dice and carets at the expression."""
    d = only(codes(POWER), "RC808")
    assert d.severity == "error"
    assert d.message == (
        "check 'act' always fails (it has no inputs, and its odds take in every roll): at d = 2, "
        "a number this ruleset computes has more than 1000 digits (RC503)"
    )
    assert d.span is not None and (d.span.line, d.span.col, d.span.end_col) == (9, 11, 20)
    assert not [x for x in codes(POWER) if x.code == "RC809"]
    f = tmp_path / "pw.yaml"
    f.write_text(POWER, encoding="utf-8")
    code, out, err = cli("validate", "--strict", str(f))
    assert code == 1 and f"FAILED  {f}" in out and "error RC808" in err


@pytest.mark.parametrize(
    ("let", "auto", "where"),
    [
        # an input's power: refused before it is made, at the grid's first input past the bound
        ('v: "2 ** k"', "", (11, 11)),
        ('v: "10 ** k"', "", (11, 11)),
        # the same in an auto rule's condition, worked out before the roll
        ('v: "k"', '    auto:\n      - {when: "10 ** k > 5", then: high}\n', (11, 17)),
    ],
)
def test_rc808_for_a_power_of_an_input_past_the_bound(let: str, auto: str, where: tuple[int, int]):
    """A power of an input (k up to 10**9) past 1000 digits fails for those inputs whatever the
    limits: RC808 naming the input, before the roll; no RC809 for it."""
    text = f"""
rulecraft: 1
name: pw
checks:
  act:
    inputs:
      k: {{type: int, min: 0, max: 1000000000, default: 1}}
    roll:
      d: {{die: 6}}
{auto}    let:
      {let}
    outcomes: [low, high]
    outcome: "'high' if v + d >= 10 else 'low'"
"""
    diags = codes(text)
    d = only(diags, "RC808")
    assert re.fullmatch(
        r"check 'act' fails for an allowed input: k = \d+ \(before the roll\): "
        r"a number this ruleset computes has more than 1000 digits \(RC503\)",
        d.message,
    ), d.message
    assert d.span is not None and (d.span.line, d.span.col) == where
    assert not [x for x in diags if x.code == "RC809"], [x.render() for x in diags]


def test_rc808_for_a_die_past_the_bound_of_faces():
    """A die whose faces, read from an input, number more than 1000 is refused (RC503) whatever
    the limits (`MAX_FACES` is the language's, not a `Limits` field): RC808, not RC809."""
    diags = codes("""
rulecraft: 1
name: faces
checks:
  act:
    inputs:
      size: {type: int, min: 1, max: 5000, default: 6}
    roll:
      d: {die: "1..size"}
    outcomes: [low, high]
    outcome: "'high' if d >= 4 else 'low'"
""")
    d = only(diags, "RC808")
    assert re.fullmatch(
        r"check 'act' fails for an allowed input: size = \d+: die 'd' has [\d,]+ faces "
        r"\(1\.\.size = 1\.\.\d+\), over the limit of 1000 \(RC503\)",
        d.message,
    ), d.message
    assert d.span is not None and (d.span.line, d.span.col) == (9, 17)
    assert not [x for x in diags if x.code == "RC809"]


EVERY = """
rulecraft: 1
name: every
checks:
  act:
    inputs:
      skill: {type: int, min: 1, max: 3, default: 2}
      extra: {type: int, min: 0, max: 2, default: 0}
    roll:
      d: {die: "skill - 5"}
    outcomes: [low, high]
    outcome: "'high' if d >= 4 else 'low'"
"""


def test_a_failure_at_every_allowed_input_says_so():
    """`{die: "skill - 5"}` fails whatever skill is: RC808 said 'for an allowed input: skill =
    1', as if another would do (hunt4 F12 h). `extra` is not read by the roll, so the linter
    runs one combination per skill and counts the others with it."""
    d = only(codes(EVERY), "RC808")
    assert d.message.startswith("check 'act' fails for every allowed input, e.g. "), d.message
    assert "die 'd' has faces skill - 5 = " in d.message and d.message.endswith("(RC409)")


def test_a_failure_at_some_allowed_inputs_names_one():
    d = only(codes(EVERY.replace("max: 3, default: 2}", "max: 6, default: 2}")), "RC808")
    assert d.message.startswith("check 'act' fails for an allowed input: "), d.message
    assert "for every" not in d.message


NO_INPUTS = """\
rulecraft: 1
name: none
checks:
  act:
    roll:
      d: ROLL
    outcomes: [low, high]
    outcome: "'high' if OUTCOME else 'low'"
"""


@pytest.mark.parametrize(
    ("roll", "outcome", "at", "dice"),
    [
        ("{pool: -1, die: 6}", "sum(d) > 3", "-1", False),
        ("{pool: 2 - 3, die: 6}", "sum(d) > 3", "2 - 3", False),
        ("{die: 6}", "d / 0 > 3", "d / 0", True),
    ],
)
def test_a_check_with_no_inputs_always_fails_at_its_expression(roll, outcome, at, dice):
    """A check with no inputs that fails was told 'fails for an allowed input: no inputs' and to
    'narrow the inputs with min and max' (hunt 13): it always fails, and only the expression can
    be corrected. A pool's count is pointed at, not the die's name."""
    text = NO_INPUTS.replace("ROLL", roll).replace("OUTCOME", outcome)
    d = only(codes(text), "RC808")
    assert d.message.startswith("check 'act' always fails (it has no inputs"), d.message
    assert "allowed input" not in d.message and "no inputs:" not in d.message
    assert d.hint is not None and "correct the expression" in d.hint and "min and max" not in d.hint
    assert ("guard it" in d.hint) is dice and ("at d = 1, " in d.message) is dice
    line = next(n for n, x in enumerate(text.splitlines(), 1) if at in x)
    assert d.span is not None and (d.span.line, d.span.col) == (
        line,
        text.splitlines()[line - 1].index(at) + 1,
    )


def test_a_pool_over_the_embedder_s_max_pool_stays_rc809():
    """`Limits.max_pool` is a bound the embedder sets and `--limit max_pool=N` raises: a
    combination over it is left out (RC809), not a failure of the ruleset."""
    diags = codes("""
rulecraft: 1
name: pool
checks:
  act:
    inputs:
      n: {type: int, min: 1, max: 150, default: 1}
    roll:
      p: {pool: n, die: 2}
    outcomes: [low, high]
    outcome: "'high' if count(p, 2) > 0 else 'low'"
""")
    assert "over the limit of 100" in only(diags, "RC809").message
    assert not [x for x in diags if x.code == "RC808"]


ENDLESS = """
rulecraft: 1
name: endless
checks:
  act:
    inputs:
      k: {{type: int, min: 1, max: 6, default: 6}}
    roll:
      p:
        pool: 2
        die: 6
        triggers:
{triggers}
    outcomes: [miss, hit]
    outcome: "'hit' if count(p, 6) > 0 else 'miss'"
"""


@pytest.mark.parametrize(
    "triggers",
    [
        "          - {on: face >= k, must: reroll}",
        # a `may` beside it: declining every choice, the `must` still rerolls for ever
        "          - {on: face >= k, must: reroll}\n          - {on: face == 2, may: reroll}",
    ],
)
def test_rc808_for_a_chain_of_rerolls_that_never_ends_for_an_allowed_input(
    triggers: str, tmp_path: Path, cli
) -> None:
    """At k = 1 every face must be rerolled, so no roll ever ends (RC503 "this chain of rerolls
    never ends", what loading refuses as RC313 when `on` reads no input). No budget or `Limits`
    lets it end: the linter said RC809 ("left out", with a hint to raise --lint-work), and
    `validate --strict` passed it. It is the ruleset's, like a division by zero: RC808 naming k,
    with the carets at the pool."""
    text = ENDLESS.format(triggers=triggers)
    diags = codes(text)
    d = only(diags, "RC808")
    assert d.severity == "error"
    assert d.message == (
        "check 'act' fails for an allowed input: k = 1: this chain of rerolls never ends (RC503)"
    )
    assert d.span is not None and (d.span.line, d.span.col) == (9, 7)
    assert d.hint is not None and "'cap'" in d.hint and "--lint-work" not in d.hint
    assert not [x for x in diags if x.code == "RC809"], [x.render() for x in diags]
    f = tmp_path / "endless.yaml"
    f.write_text(text, encoding="utf-8")
    code, out, err = cli("validate", str(f))
    assert code == 1 and "9:7: error RC808" in err
    # told at the pool when asked for, too
    with pytest.raises(engine.LimitError) as caught:
        engine.load(text).distribution("act", k=1)
    (said,) = caught.value.diagnostics
    assert said.span is not None and (said.span.line, said.span.col) == (9, 7)


def test_a_may_reroll_taken_for_ever_is_the_player_s_not_a_failure():
    """With `may` in place of `must`, k = 1 lets the player reroll every die for ever: under the
    policy `always` (every reroll taken) the chain never ends, but the player may stop, and under
    `never` it ends. Like `optimal` on a chain that returns (RC505), `always` is then no way to
    play it: no RC808 error and nothing left out (the linter said RC809 with a hint to raise
    --lint-work); `never` is still analysed for k = 1. A note says that `roll` and `prob`, which
    take `always` unless told, refuse it at k = 1 (hunt 13w)."""
    text = ENDLESS.format(triggers="          - {on: face >= k, may: reroll}")
    rs = engine.load(text)
    with pytest.raises(engine.LimitError, match="never ends"):
        rs.distribution("act", k=1)
    assert rs.distribution("act", k=1, policy="never").probability("hit") == Fraction(11, 36)
    found = codes(text)
    assert [(d.code, d.severity) for d in found] == [("RC808", "note")], [d.render() for d in found]
    assert "never ends under the policy 'always' (every 'may' taken) with k = 1" in found[0].message
    # and a rule only `never` reaches at k = 1 (two 1s stand) is seen to fire there
    fires = text.replace(
        "outcome: \"'hit' if count(p, 6) > 0 else 'miss'\"",
        "outcome: \"'hit' if count(p, 1) == 2 and k == 1 else 'miss'\"",
    )
    assert [(d.code, d.severity) for d in codes(fires)] == [("RC808", "note")]


def test_rc809_when_a_check_is_too_large_and_the_work_stays_bounded():
    text = """
rulecraft: 1
name: t
checks:
  big:
    inputs:
      n: {type: int, min: 1, max: 100, default: 50}
      m: {type: int, min: 1, max: 100, default: 50}
    roll:
      p: {pool: n, die: 20}
      q: {pool: m, die: 20}
    outcomes: [lo, hi]
    outcome: "'hi' if sum(p) > sum(q) else 'lo'"
  many:
    inputs:
      a: {type: int, min: 0, max: 1000}
      b: {type: int, min: 0, max: 1000}
      c: {type: int, min: 0, max: 1000}
    roll:
      x: {die: 100}
      y: {die: 100}
      z: {die: 10}
    outcomes: [lo, hi]
    outcome: "'hi' if x + a > y + b + c + z else 'lo'"
"""
    start = time.monotonic()
    diags = codes(text)
    assert time.monotonic() - start < 10
    notes = [d for d in diags if d.code == "RC809"]
    assert {d.message.split("'")[1] for d in notes} == {"big", "many"}
    assert all(d.severity == "warning" and re.search(r"was not (fully )?analysed", d.message) for d in notes)
    # a budget of no work at all still ends at once, with the notes
    start = time.monotonic()
    diags = codes(text, LintBudget(max_work=0))
    assert time.monotonic() - start < 2
    assert [d.code for d in diags] == ["RC809", "RC809"]


def test_findings_that_need_the_whole_picture_are_not_claimed_when_work_was_left_out():
    diags = codes(
        """
rulecraft: 1
name: t
checks:
  act:
    inputs:
      n: {type: int, min: 1, max: 100, default: 50}
    roll:
      p: {pool: n, die: 20}
      q: {pool: n, die: 20}
    outcomes: [lo, hi, never]
    outcome: "'hi' if sum(p) > sum(q) else 'lo'"
""",
        LintBudget(max_work=0),
    )
    assert [d.code for d in diags] == ["RC809"]


# -- validate: strict, json, order, no duplicates of compile errors ------------------------------------


WARN_ONLY = (
    D6
    + """    outcome:
      - when: d >= 4
        then: hit
      - else: miss
"""
)


def test_strict_turns_warnings_into_errors(tmp_path: Path, cli):
    f = tmp_path / "warn.yaml"
    f.write_text(WARN_ONLY, encoding="utf-8")
    code, out, err = cli("validate", str(f))
    assert code == 0 and "1 warning(s)" in out and "warning RC803" in err
    code, out, err = cli("validate", "--strict", str(f))
    assert code == 1 and f"FAILED  {f}" in out and "error RC803" in err


def test_strict_leaves_rc809_a_warning(tmp_path: Path, cli):
    f = tmp_path / "big.yaml"
    f.write_text(
        """
rulecraft: 1
name: t
checks:
  big:
    inputs:
      n: {type: int, min: 1, max: 100, default: 50}
    roll:
      p: {pool: n, die: 20}
      q: {pool: n, die: 20}
    outcomes: [lo, hi]
    outcome: "'hi' if sum(p) > sum(q) else 'lo'"
""",
        encoding="utf-8",
    )
    code, out, err = cli("validate", "--strict", "--format", "json", str(f))
    data = json.loads(out)
    assert code == 0 and data["ok"] is True
    assert [(d["code"], d["severity"]) for d in data["files"][0]["diagnostics"]] == [("RC809", "warning")]


def test_json_has_the_lint_diagnostics(tmp_path: Path, cli):
    f = tmp_path / "warn.yaml"
    f.write_text(WARN_ONLY, encoding="utf-8")
    code, out, _ = cli("validate", "--format", "json", str(f))
    entry = json.loads(out)["files"][0]
    assert code == 0 and entry["ok"] is True and (entry["errors"], entry["warnings"]) == (0, 1)
    (d,) = entry["diagnostics"]
    assert d == {
        "file": str(f),
        "line": 8,
        "column": 27,
        "severity": "warning",
        "code": "RC803",
        "message": "outcome 'critical' of check 'act' is declared but nothing gives it",
        "hint": d["hint"],
    }


def test_errors_come_first_then_position(tmp_path: Path, cli):
    f = tmp_path / "mixed.yaml"
    f.write_text(
        """rulecraft: 1
name: t
checks:
  act:
    inputs:
      unused: {type: int, min: 0, max: 1, default: 0}
      helpers: {type: int, min: 0, max: 2, default: 1}
    roll:
      d: {die: 6}
    outcomes: [miss, hit, critical]
    outcome:
      - when: d / helpers >= 4
        then: hit
      - when: d >= 2
        then: miss
""",
        encoding="utf-8",
    )
    code, out, _ = cli("validate", "--format", "json", str(f))
    diags = json.loads(out)["files"][0]["diagnostics"]
    assert code == 1
    assert [d["severity"] for d in diags] == sorted(
        (d["severity"] for d in diags), key=lambda s: s != "error"
    )
    assert diags[0]["code"] in ("RC801", "RC808")
    errors = [(d["line"], d["column"]) for d in diags if d["severity"] == "error"]
    warnings = [(d["line"], d["column"]) for d in diags if d["severity"] == "warning"]
    assert errors == sorted(errors) and warnings == sorted(warnings)
    assert "RC805" in {d["code"] for d in diags}


def test_a_misspelt_name_is_reported_once_by_the_compiler(tmp_path: Path, cli):
    f = tmp_path / "typo.yaml"
    f.write_text(
        D6
        + """    outcome:
      - when: dd >= 4
        then: hit
      - else: miss
""",
        encoding="utf-8",
    )
    code, out, _ = cli("validate", "--format", "json", str(f))
    diags = json.loads(out)["files"][0]["diagnostics"]
    assert code == 1
    assert [(d["code"], d["hint"]) for d in diags] == [("RC301", "did you mean 'd'?")]


# -- lasting state: what it reads and calls, and the values it gives a table ------------------------

LASTING = """\
rulecraft: 1
name: lasting
tables:
  cap_for:
    params: {level: int}
    returns: int
    value: level * 2 + 3
  band_of:
    params: {hp: int}
    returns: int
    rules:
      - {when: hp < 3, then: 0}
      - {when: hp >= 3, then: 1}
checks:
  hit:
    inputs:
      bonus: {type: int, min: 0, max: 3, default: 0}
    roll: {d: {die: 6}}
    let:
      dmg: d + bonus
    outcomes: [miss, hit]
    outcome: "'hit' if d >= 4 else 'miss'"
state:
  character:
    level: {type: int, min: 1, max: 5, default: 1}
  each:
    hp: {counter: "cap_for(level)", min: 0, max: "cap_for(level)"}
    band: {derived: "band_of(hp)"}
actions:
  strike:
    by: character
    others: [foe]
    roll: {check: hit}
    effects:
      - {remove: {hp: dmg}, of: foe, when: "outcome == 'hit'", clamp: true}
"""


def test_a_value_or_table_used_only_by_lasting_state_is_used() -> None:
    """A check's `let` that only an action's effect reads (`remove: {hp: dmg}`), and a table that
    only `state:` calls (`hp: {counter: "cap_for(level)"}`), were reported unused (RC806, RC807:
    "remove it", which breaks the ruleset; found by a review). The linter counts what the state,
    the actions' effects and the scenes read and call."""
    assert [d.render() for d in codes(LASTING)] == []
    # an action that rolls another check does not make the value used; nothing at all, not the table
    unused = LASTING.replace("remove: {hp: dmg}", "remove: {hp: 1}").replace(
        'counter: "cap_for(level)", min: 0, max: "cap_for(level)"', "counter: 5, min: 0, max: 9"
    )
    diags = codes(unused)
    assert only(diags, "RC806").message == "named value 'dmg' of check 'hit' is never used"
    assert only(diags, "RC807").message == "table 'cap_for' is never called"
    # a scene's call counts too
    scene = unused + (
        "scenes:\n  fight:\n    parties: [ann, bo]\n    round:\n"
        "      - {act: strike, by: ann, others: {foe: bo}, when: cap_for(ann.level) > 4}\n"
        "    ends:\n      - {when: bo.hp == 0, then: won}\n"
    )
    assert not [d for d in codes(scene) if d.code == "RC807"]


def test_a_gap_in_a_table_that_lasting_state_calls_is_reported() -> None:
    """A table that only lasting state calls is tried over the values the state gives its
    arguments: `band_of(hp)` with `hp` a counter from 0 to `cap_for(level)` (worked out for each
    level) and rules `hp < 3` and `hp > 3` has no rule for 3. Validate said ok and `test` failed
    with RC501 (found by a review); it is RC801 at the table's rules, as for a check's call."""
    gap = LASTING.replace("hp >= 3, then: 1", "hp > 3, then: 1")
    found = only(codes(gap), "RC801")
    assert found.severity == "error" and found.span is not None and found.span.line == 11  # its rules
    assert found.message.startswith(
        "table 'band_of' has no rule for hp = 3: e.g. in each character's item 'band'"
    )
    # from a scene, by a party's counter, and through another table
    through = gap.replace('band: {derived: "band_of(hp)"}', 'band: {derived: "1"}').replace(
        "  band_of:", "  outer:\n    params: {x: int}\n    returns: int\n    value: band_of(x)\n  band_of:"
    ) + (
        "scenes:\n  fight:\n    parties: [ann, bo]\n    round:\n"
        "      - {act: strike, by: ann, others: {foe: bo}, when: outer(bo.hp) > 0}\n"
        "    ends:\n      - {when: bo.hp == 0, then: won}\n"
    )
    found = only(codes(through), "RC801")
    assert "table 'band_of' has no rule for hp = 3" in found.message and "in scene 'fight'" in found.message
    assert "outer(bo.hp) with bo.hp = 3" in found.message


@pytest.mark.parametrize(
    "change",
    [
        ('{derived: "band_of(hp)"}', '{derived: "band_of(hp - 1)"}'),  # an expression: not tried
        ('min: 0, max: "cap_for(level)"', "min: 0"),  # a counter without both bounds
        ("level: {type: int, min: 1, max: 5, default: 1}", "level: {type: number, default: 1}"),  # a number
        # more values than are tried for one call: never listed whole, so over at once
        (
            "level: {type: int, min: 1, max: 5, default: 1}",
            "level: {type: int, min: 1, max: 1000000000, default: 1}",
        ),
    ],
)
def test_a_call_whose_values_are_not_known_is_not_tried(change: tuple[str, str]) -> None:
    """Where the state does not say which values an argument may take (an expression over values,
    a counter without both bounds, a number parameter), the call is not tried and nothing is
    claimed: a guess would report gaps no play reaches."""
    gap = LASTING.replace("hp >= 3, then: 1", "hp > 3, then: 1").replace(*change)
    assert change[0] in LASTING.replace("hp >= 3, then: 1", "hp > 3, then: 1")
    assert not [d for d in codes(gap) if d.code == "RC801"]


STATE_BONUS = """rulecraft: 1
name: st
tables:
  bonus:
    params: [x]
    cases:
      1: 1
      2: 2
      10: 5
      else: 0
checks:
  act:
    inputs:
      b: {type: int, min: 0, max: 5, default: 0}
    roll:
      d: {die: 2}
    outputs:
      o: bonus(d) + b
    outcomes: [miss, hit]
    outcome: "'hit' if d + b > 3 else 'miss'"
state:
  campaign:
    lvl: {type: int, min: 1, max: 20, default: 10}
  shared:
    start: {derived: bonus(lvl)}
"""


def test_a_table_case_only_the_lasting_state_reaches_is_not_said_never_to_fire() -> None:
    """Found by a hunt: `bonus` called by a check with a d2 and by a derived value with `lvl` in
    1..20 (default 10) was RC802 "case 10 of table 'bonus' never fires: its key matches none of
    the 2 different calls the checks make" (an error under --strict), yet a campaign starts at 5:
    only the checks' calls were counted. The state's calls that `lasting` lists count too; a key
    no call of either matches is still told, naming both; and of a table some state call of which
    cannot be listed, nothing is claimed."""
    assert not [d for d in codes(STATE_BONUS) if d.code == "RC802"]
    band = STATE_BONUS.replace("      else: 0", "      30: 7\n      else: 0")
    found = only(codes(band), "RC802")
    assert found.message == (
        "case 30 of table 'bonus' never fires: its key matches none of the 20 different calls "
        "the checks and the lasting state make"
    )
    assert found.hint == (
        "compare the key with the dice faces and the inputs' min and max, and the min and max of "
        "the state's parameters and counters"
    )
    # called by the state alone, through another table: the state's calls are its only calls
    alone = band.replace("o: bonus(d) + b", "o: d + b").replace(
        "start: {derived: bonus(lvl)}", "start: {derived: outer(lvl)}"
    )
    alone = alone.replace("tables:\n", "tables:\n  outer:\n    params: [y]\n    value: bonus(y)\n")
    found = only(codes(alone), "RC802")
    assert found.message.endswith("matches none of the 20 different calls the lasting state makes")
    assert found.hint == "compare the key with the min and max of the state's parameters and counters"
    # a table's rules alike: `x >= 10` is true for no roll of a d6, but for lvl 10..20
    rules = STATE_BONUS.replace(
        "    cases:\n      1: 1\n      2: 2\n      10: 5\n      else: 0",
        "    rules:\n      - {when: x >= 10, then: 5}\n      - {when: x >= 30, then: 7}\n      - else: 0",
    ).replace("d: {die: 2}", "d: {die: 6}")
    found = only(codes(rules), "RC802")
    assert found.message.startswith("rule 2 of table 'bonus' (when x >= 30) never fires: its condition")
    assert found.message.endswith("for any of the 20 different calls the checks and the lasting state make")
    # a call whose values the state does not list: no claim either way
    unlisted = STATE_BONUS.replace("start: {derived: bonus(lvl)}", "start: {derived: bonus(lvl * 2)}")
    assert not [d for d in codes(unlisted) if d.code == "RC802"]
    assert not [d for d in codes(unlisted.replace("lvl * 2", "lvl * 2 + 40")) if d.code == "RC802"]


def test_trying_the_tables_lasting_state_calls_is_within_the_linter_s_budget() -> None:
    """Each combination tried is charged to the linter's work; past its budget the linter says
    what it left out (RC809) instead of going on."""
    gap = LASTING.replace("hp >= 3, then: 1", "hp > 3, then: 1")
    diags = codes(gap, LintBudget(max_work=1))
    assert not [d for d in diags if d.code == "RC801"]
    assert any(
        d.code == "RC809" and "the tables the state calls were not all tried" in d.message for d in diags
    )


def test_a_number_past_the_bound_in_a_table_lasting_state_calls_is_no_budget() -> None:
    """A table call of the state's that fails with a number of more than 1000 digits (RC503, a
    bound no budget raises) is a failure like a division by zero, not a gap: the other values
    are still tried. It stopped the whole search as if the linter's budget were spent (a note,
    and the gap at hp = 2 unreported)."""
    big = LASTING.replace(
        "      - {when: hp < 3, then: 0}\n      - {when: hp >= 3, then: 1}",
        '      - {when: "hp <= 1 and 10 ** ((1 - hp) * 1001) > 0", then: 0}\n      - {when: hp > 2, then: 1}',
    )
    assert big != LASTING
    diags = codes(big)
    assert only(diags, "RC801").message.startswith("table 'band_of' has no rule for hp = 2")
    assert not [d for d in diags if d.code == "RC809"], [d.render() for d in diags]


def _linear(a: int, b: int, c: int, hi: int, op: str) -> str:
    return f"""\
rulecraft: 1
name: linear
checks:
  t:
    inputs:
      x: {{type: int, min: 0, max: {hi}, default: 0}}
    roll:
      d: {{die: 6}}
    outcomes: [low, odd, high]
    outcome:
      - when: x * {a} + {b} {op} {c}
        then: odd
      - when: d >= 4
        then: high
      - else: low
"""


def test_a_rule_true_only_at_an_input_the_grid_leaves_out_is_a_note_not_a_warning(tmp_path):
    """`x * 3 == 2001` holds at x = 667, which the grid over 0..10000 (bounds, the numbers the
    rules mention and their neighbours, evenly spaced values) did not try: RC802 said the rule
    never fires as a warning, and `validate --strict` failed a sound ruleset. Over part of the
    grid it is a note, saying how many combinations were tried, which `--strict` leaves a note."""
    text = _linear(3, 0, 2001, 10000, "==")
    found = [d for d in codes(text) if d.code in ("RC802", "RC804")]
    assert found and all(d.severity == "note" for d in found)
    rule = only(found, "RC802")
    assert "input combinations tried" in rule.message and "may be otherwise at one it left out" in (
        rule.hint or ""
    )
    path = tmp_path / "linear.yaml"
    path.write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "engine", "validate", str(path), "--strict"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 note(s)" in done.stdout and "warning" not in done.stdout
    assert f"{path}:11:9: note RC802:" in done.stderr
    as_json = subprocess.run(
        [sys.executable, "-m", "engine", "validate", str(path), "--strict", "--format", "json"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
    )
    entry = json.loads(as_json.stdout)["files"][0]
    assert (entry["errors"], entry["warnings"], entry["notes"]) == (0, 0, 1)


def test_a_rule_never_true_over_a_domain_run_whole_is_still_reported():
    """Over 0..10 every input is run: `x * 3 == 20` is never true, proven, and said as a
    warning, which `--strict` makes an error."""
    found = codes(_linear(3, 0, 20, 10, "=="))
    diag = only(found, "RC802")
    assert "for any allowed input" in diag.message and "'odd' never comes out" in diag.message
    assert diag.severity == "warning" and not [d for d in found if d.severity == "note"]


@example(a=3, b=0, c=2001, hi=10000, op="==")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    a=st.integers(-6, 6),
    b=st.integers(-30, 30),
    c=st.integers(-60, 2100),
    hi=st.sampled_from([3, 12, 40, 300, 2500, 10000]),
    op=st.sampled_from(["==", "!=", ">", "<=", ">="]),
)
def test_rc802_only_when_enumerating_every_input_agrees(a, b, c, hi, op):
    """For a linear condition on an input over 0..hi, RC802 on it (and RC804 on its outcome)
    is a warning only when no x in 0..hi makes it true, by brute force (over part of the grid
    it is a note at most, which `--strict` does not make an error)."""
    holds = {
        "==": lambda v: v == c,
        "!=": lambda v: v != c,
        ">": lambda v: v > c,
        "<=": lambda v: v <= c,
        ">=": lambda v: v >= c,
    }[op]
    never_true = not any(holds(a * x + b) for x in range(hi + 1))
    found = codes(_linear(a, b, c, hi, op))
    said = [
        d for d in found if d.code == "RC802" and d.message.startswith("rule 1 ") and d.severity != "note"
    ]
    said += [d for d in found if d.code == "RC804" and "'odd'" in d.message and d.severity != "note"]
    if not never_true:
        assert not said, (a, b, c, hi, op, [d.message for d in said])


def test_notes_come_after_warnings_and_errors() -> None:
    """`ordered` ranks what is proven first: errors, warnings, then notes (what the linter could
    not prove), each in file order; a note early in the file came before a warning later on."""
    from engine.syntax.positions import SourceFile, Span
    from engine.tools.lint import ordered

    source = SourceFile("f.yaml", "x\n" * 10)

    def at(line: int, severity: str) -> engine.Diagnostic:
        return engine.Diagnostic("RC802", "m", Span(source, line, 1, line, 2), None, severity)  # type: ignore[arg-type]

    given = [at(3, "note"), at(9, "warning"), at(5, "error"), at(1, "note"), at(2, "warning")]
    assert [(d.severity, d.span.line if d.span else 0) for d in ordered(given)] == [
        ("error", 5),
        ("warning", 2),
        ("warning", 9),
        ("note", 1),
        ("note", 3),
    ]


CRITS_WITH_BONUS = """\
rulecraft: 1
name: crits
checks:
  attack:
    inputs:
      bonus: {type: int, min: 0, max: 30, default: 0}
    roll:
      d: {die: 20}
    outcomes: [miss, hit, critical]
    outcome:
      - when: d + bonus >= 11
        then: hit
      - when: d == 20
        then: critical
      - else: miss
"""

BAND_OVER_A_WIDE_INPUT = """\
rulecraft: 1
name: band
scales:
  result: [miss, hit, crit]
tables:
  band:
    params: {roll: int}
    returns: result
    rules:
      - when: roll >= 11
        then: hit
      - when: roll == 20
        then: crit
      - else: miss
checks:
  act:
    inputs:
      x: {type: int, min: 0, max: 10000, default: 0}
    roll:
      d: {die: 20}
    outcomes: result
    outcome: band(d)
    outputs:
      dmg: d + x
"""


def test_rules_in_the_wrong_order_are_a_warning_over_part_of_the_grid_too() -> None:
    """The reference's crits mistake with a bonus of 0..30 (more values than the grid runs each):
    rule 2 is shadowed by rule 1 at every combination tried, a mistake of order, so a warning
    that `--strict` makes an error; for a while it was only a note (found by a review)."""
    diag = only(codes(CRITS_WITH_BONUS), "RC802")
    assert diag.severity == "warning", diag.render()
    assert "earlier rule 1 already decides every roll it matches over the" in diag.message
    assert "so outcome 'critical' came out at none of them" in diag.message


def test_a_table_rule_shadowed_is_judged_though_a_partly_tried_check_calls_it() -> None:
    """A table whose rules are in the wrong order, called by a check whose input the grid runs
    only in part: its RC802 at the table's rule (it was not judged at all, the check's RC804
    only a note, and `--strict` passed)."""
    found = codes(BAND_OVER_A_WIDE_INPUT)
    rule = only(found, "RC802")
    assert rule.severity == "warning" and "rule 2 of table 'band'" in rule.message, rule.render()


CASES = """
rulecraft: 1
name: t4
scales:
  grade: [fail, pass, crit]
tables:
  band:
    params: {roll: int}
    returns: grade
    cases:
      1: fail
      2..10: pass
      5..6: fail
      11..20: crit
      21: crit
  ladder:
    params: {level: int, face: int}
    returns: grade
    cases:
      0: {1..10: fail, else: pass}
      1: {1..5: fail, 3: crit, 6..20: pass}
      "0, 1, 7": {else: crit}
      else: {else: pass}
checks:
  hit:
    inputs: {level: {type: int, min: 0, max: 1, default: 0}}
    roll:
      d: {die: 20}
    outcomes: grade
    outcome: "ladder(level, d) if level > 5 else band(d)"
  climb:
    inputs: {level: {type: int, min: 0, max: 1, default: 0}}
    roll:
      d: {die: 20}
    outcomes: grade
    outcome: ladder(level, d)
"""


def test_a_cases_key_that_earlier_keys_cover_is_rc802_as_a_rule_is() -> None:
    """A `cases` key is a rule on its parameter: one that earlier keys of its level cover for
    every call is RC802 at the key, as the same table written with `rules` is (it had passed
    with no word); one no call matches is RC802 too, and a key under it is not told again."""
    text = CASES
    found = {d.message: d for d in codes(text) if d.code == "RC802"}
    lines = text.splitlines()
    covered = "already decides every call it matches"
    said = {
        f"case 5..6 of table 'band' never fires: earlier case 2..10 {covered}": "5..6",
        "case 21 of table 'band' never fires: its key matches none of the 20 different calls "
        "the checks make": "21",
        f"case 1: 3 of table 'ladder' never fires: earlier case 1..5 {covered}": "3",
        "case 0, 1, 7 of table 'ladder' never fires: earlier cases 0 and 1 already decide every "
        "call it matches": '"0, 1, 7"',
    }
    assert set(found) == set(said), sorted(found)
    for message, key in said.items():
        d = found[message]
        assert d.severity == "warning" and d.span is not None
        assert lines[d.span.line - 1][d.span.col - 1 :].startswith(f"{key}:"), d.render()
    assert "move it above the case that covers it" in found[next(iter(said))].hint


def test_the_tables_of_a_ruleset_with_actions_are_judged_too() -> None:
    """The tables' rules and cases are judged in a copy of the ruleset without its checks; an
    action's `roll: {check: …}` was then an unknown check, so no table of a ruleset with state
    (every shipped one) was judged at all."""
    text = (
        CASES
        + """
state:
  shared:
    tries: {counter: 0, min: 0}
actions:
  try:
    roll: {check: climb}
    effects:
      - {add: {tries: 1}}
"""
    )
    found = [d.message for d in codes(text) if d.code == "RC802"]
    assert any(m.startswith("case 5..6 of table 'band' never fires") for m in found), found
    rules = text.replace(
        "    cases:\n      1: fail\n      2..10: pass\n      5..6: fail\n      11..20: crit\n"
        "      21: crit\n",
        "    rules:\n      - {when: roll <= 10, then: pass}\n      - {when: roll in 5..6, then: fail}\n"
        "      - {else: crit}\n",
    )
    assert rules != text
    found = [d.message for d in codes(rules) if d.code == "RC802"]
    assert any(m.startswith("rule 2 of table 'band' (when roll in 5..6) never fires") for m in found), found
