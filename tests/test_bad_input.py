"""Bad input gives one clear diagnostic: `file:line:col`, the source line, a caret, a hint.

Each broken ruleset is a small YAML text written here; the expected line and column are found in
that text (the position of the offending token), never copied from the engine's output.
"""

from __future__ import annotations

import re

import pytest
from _repo import REPO_ROOT

import engine
from engine.errors import CompileError, InputError, LoadError, RulecraftError, SchemaError
from engine.syntax.positions import SourceFile, visible

BASE = """\
rulecraft: 1
name: mini
scales:
  result: [botch, failure, success]
tables:
  specific_band:
    params: [roll, doubles, target]
    returns: result
    rules:
      - when: doubles and roll > target
        then: botch
      - when: roll > target
        then: failure
      - else: success
checks:
  specific:
    inputs:
      target:
        type: int
        min: 1
        max: 100
    roll:
      tens: {die: "0..9"}
      ones: {die: "0..9"}
    let:
      roll: tens * 10 + ones
      doubles: tens == ones
    outcomes: result
    outcome: specific_band(roll, doubles, target)
    outputs:
      flips: "1 if outcome == 'botch' else 0"
"""


def broken(old: str, new: str, base: str = BASE) -> str:
    assert base.count(old) == 1, f"the edit {old!r} must hit exactly one place"
    return base.replace(old, new)


def locate(text: str, line_has: str, token: str, nth: int = 0, whole: bool = False) -> tuple[int, int]:
    """1-based line and column of the `nth` `token` on the first line containing `line_has`
    (or, with `whole`, the first line that is exactly `line_has` once stripped)."""
    for number, line in enumerate(text.splitlines(), start=1):
        if (line.strip() == line_has) if whole else (line_has in line):
            col = -1
            for _ in range(nth + 1):
                col = line.index(token, col + 1)
            return number, col + 1
    raise AssertionError(f"no line contains {line_has!r}")


def load_text(text: str, name: str = "bad.yaml") -> engine.Ruleset:
    return engine.load_source(SourceFile(name, text))


def assert_one_diagnostic(
    text: str, exc_type: type[RulecraftError], code: str, at: tuple[int, int], name: str = "bad.yaml"
) -> engine.Diagnostic:
    """Loading `text` fails with exactly one diagnostic of `code` at `at`, shown with a caret."""
    with pytest.raises(exc_type) as info:
        load_text(text, name)
    exc = info.value
    assert len(exc.diagnostics) == 1, str(exc)
    d = exc.diagnostics[0]
    line, col = at
    assert d.code == code, str(exc)
    assert d.span is not None and d.span.file == name
    assert (d.span.line, d.span.col) == (line, col), str(exc)
    rendered = str(exc)
    assert rendered.startswith(f"{name}:{line}:{col}: "), rendered
    source_line = visible(text.splitlines()[line - 1])  # a control character shown escaped: `\x07`
    assert f"  {source_line}\n  {' ' * (col - 1)}^" in rendered, rendered
    assert "Traceback" not in rendered
    return d


def test_the_base_ruleset_is_valid():
    """Every broken ruleset below is this one with a single fault; it must load cleanly itself."""
    rs = load_text(BASE)
    assert rs.roll("specific", forced={"tens": 7, "ones": 7}, target=50).outcome.name == "botch"


# -- YAML syntax -------------------------------------------------------------------------------


def test_yaml_mapping_value_where_none_is_allowed():
    text = broken("name: mini", "name: mini: two")
    assert_one_diagnostic(text, LoadError, "RC002", locate(text, "name: mini: two", ":", nth=1))


def test_yaml_duplicate_key():
    text = broken("name: mini\n", "name: mini\nname: again\n")
    d = assert_one_diagnostic(text, LoadError, "RC002", locate(text, "name: again", "name"))
    assert "name" in d.message


def test_yaml_tab_indentation():
    text = broken("    outcomes: result", "\toutcomes: result")
    with pytest.raises(LoadError) as info:
        load_text(text)
    d = info.value.diagnostics[0]
    assert (d.code, d.span.line) == ("RC002", locate(text, "\toutcomes", "\t")[0])
    assert "Traceback" not in str(info.value)


@pytest.mark.parametrize("character", ["\x07", "\x1b", "\ud800"])
def test_a_character_yaml_does_not_allow_is_shown_where_it_is(character: str) -> None:
    """A control character pasted into a ruleset (it does not show on screen) was reported at 1:1
    with ruamel's "position 72"; it is at its own line and column now, with its code point."""
    text = broken("        max: 100\n", f"        max: 100{character}\n")
    d = assert_one_diagnostic(text, LoadError, "RC002", locate(text, "max: 100" + character, character))
    assert f"U+{ord(character):04X}" in d.message and "does not show" in (d.hint or "")
    if character != "\ud800":  # shown as its escape, its caret as wide, never sent raw to a terminal
        assert f"max: 100\\x{ord(character):02x}\n" in str(d.render()) and character not in d.render()


# -- schema ------------------------------------------------------------------------------------


def test_schema_unknown_key_with_did_you_mean():
    text = broken("    roll:\n", "    rolll:\n")
    d = assert_one_diagnostic(text, SchemaError, "RC102", locate(text, "rolll:", "rolll"))
    assert "rolll" in d.message
    assert d.hint is not None and "did you mean 'roll'" in d.hint


def test_schema_missing_required_key():
    text = broken("    outcomes: result\n", "")
    d = assert_one_diagnostic(text, SchemaError, "RC101", locate(text, "  specific:", "specific"))
    assert "outcomes" in d.message


def test_schema_wrong_type():
    text = broken("        min: 1\n", "        min: one\n")
    d = assert_one_diagnostic(text, SchemaError, "RC103", locate(text, "min: one", "one"))
    assert "number" in d.message


def test_schema_wrong_enum_with_did_you_mean():
    text = broken("        type: int\n", "        type: integer\n")
    d = assert_one_diagnostic(text, SchemaError, "RC104", locate(text, "type: integer", "integer"))
    assert d.hint is not None and "'int'" in d.hint


def test_schema_wrong_type_in_flow_mapping_caret_covers_only_the_value():
    text = broken(
        "      target:\n        type: int\n        min: 1\n        max: 100\n",
        "      target: {type: int, min: one, max: 100}\n",
    )
    line, col = locate(text, "min: one", "one")
    with pytest.raises(SchemaError) as info:
        load_text(text)
    d = info.value.diagnostics[0]
    assert (d.span.line, d.span.col) == (line, col)
    assert f"\n  {' ' * (col - 1)}^^^\n" in str(info.value) + "\n"


def test_schema_bad_name_in_a_list_of_table_params():
    """A list of params is allowed; a bad name in it is reported as that, at that item."""
    text = broken("    params: [roll, doubles, target]", '    params: [roll, doubles, "tar get"]')
    d = assert_one_diagnostic(text, SchemaError, "RC104", locate(text, "params:", '"tar get"'))
    assert "tar get" in d.message


def test_unsupported_format_version():
    text = broken("rulecraft: 1", "rulecraft: 2")
    with pytest.raises(RulecraftError) as info:
        load_text(text)
    exc = info.value
    assert len(exc.diagnostics) == 1
    d = exc.diagnostics[0]
    assert d.code in ("RC003", "RC104")  # the schema (RC104) or the compiler (RC003) may catch it
    assert (d.span.line, d.span.col) == locate(text, "rulecraft: 2", "2")
    assert "2" in d.message and "1" in (d.message + (d.hint or ""))
    assert "  rulecraft: 2\n             ^" in str(exc)


@pytest.mark.parametrize(
    ("written", "told"), [("2", "upgrade rulecraft"), ("0", "start the file with 'rulecraft: 1'")]
)
def test_a_version_newer_than_this_rulecraft_is_told_to_upgrade(written: str, told: str) -> None:
    """A file for a later format is not fixed by writing 'rulecraft: 1': the author needs a newer
    rulecraft; an older or unknown version is told the one to write."""
    with pytest.raises(RulecraftError) as info:
        load_text(broken("rulecraft: 1", f"rulecraft: {written}"))
    (d,) = info.value.diagnostics
    assert d.code == "RC003" and d.hint is not None and told in d.hint


# -- expressions: names ------------------------------------------------------------------------


def test_unknown_name_inside_an_expression_points_into_the_string():
    text = broken(
        "outcome: specific_band(roll, doubles, target)", "outcome: specific_band(rol, doubles, target)"
    )
    d = assert_one_diagnostic(text, CompileError, "RC301", locate(text, "specific_band(rol,", "rol"))
    assert "'rol'" in d.message
    assert d.hint is not None and "did you mean 'roll'" in d.hint


def test_unknown_name_inside_a_quoted_expression():
    text = broken('flips: "1 if outcome', 'flips: "1 if outcom')
    d = assert_one_diagnostic(text, CompileError, "RC301", locate(text, "flips:", "outcom"))
    assert d.hint is not None and "did you mean 'outcome'" in d.hint


def test_unknown_name_in_a_literal_block_expression():
    text = broken(
        "    outcome: specific_band(roll, doubles, target)\n",
        "    outcome: |-\n      specific_band(roll,\n        doubles, targte)\n",
    )
    d = assert_one_diagnostic(text, CompileError, "RC301", locate(text, "doubles, targte", "targte"))
    assert d.hint is not None and "did you mean 'target'" in d.hint


def test_unknown_name_in_a_multi_line_plain_expression():
    text = broken(
        "    outcome: specific_band(roll, doubles, target)\n",
        "    outcome: specific_band(roll, doubles,\n      targte)\n",
    )
    assert_one_diagnostic(text, CompileError, "RC301", locate(text, "      targte)", "targte"))


def test_unknown_name_in_a_folded_block_expression():
    text = broken(
        "    outcome: specific_band(roll, doubles, target)\n",
        "    outcome: >-\n      specific_band(roll, doubles,\n      targte)\n",
    )
    assert_one_diagnostic(text, CompileError, "RC301", locate(text, "      targte)", "targte"))


def test_unknown_name_after_an_escape_in_a_double_quoted_expression():
    text = broken(
        "flips: \"1 if outcome == 'botch' else 0\"",
        'flips: "1 if outcome == \\"botch\\" else zero"',
    )
    assert_one_diagnostic(text, CompileError, "RC301", locate(text, "flips:", "zero"))


def test_unknown_function_with_did_you_mean():
    text = broken("outcome: specific_band(", "outcome: specifc_band(")
    d = assert_one_diagnostic(text, CompileError, "RC302", locate(text, "specifc_band(", "specifc_band"))
    assert d.hint is not None and "did you mean 'specific_band'" in d.hint


# -- expressions: syntax -----------------------------------------------------------------------


def test_expression_syntax_error():
    text = broken("flips: \"1 if outcome == 'botch' else 0\"", 'flips: "1 + * 2"')
    with pytest.raises(RulecraftError) as info:
        load_text(text)
    d = assert_one_diagnostic(text, type(info.value), "RC201", locate(text, "flips:", "*"))
    assert "'*'" in d.message


def test_expression_single_equals_gets_a_hint():
    text = broken("when: roll > target\n", "when: roll = target\n")
    d = assert_one_diagnostic(text, CompileError, "RC201", locate(text, "when: roll = target", "="))
    assert d.hint is not None and "==" in d.hint


def test_expression_ends_too_early():
    text = broken(
        "outcome: specific_band(roll, doubles, target)", 'outcome: "specific_band(roll, doubles, target"'
    )
    line, _ = locate(text, "outcome:", "outcome")
    source = text.splitlines()[line - 1]
    d = assert_one_diagnostic(text, CompileError, "RC201", (line, source.rindex('"') + 1))
    assert d.hint is not None and "')'" in d.hint


def test_expression_syntax_error_has_its_own_exception_type():
    text = broken("flips: \"1 if outcome == 'botch' else 0\"", 'flips: "1 + * 2"')
    with pytest.raises(engine.ExprSyntaxError):
        load_text(text)


def test_a_broken_named_value_gives_one_diagnostic():
    text = broken("      roll: tens * 10 + ones\n", "      roll: tens * * 10 + ones\n")
    assert_one_diagnostic(text, CompileError, "RC201", locate(text, "roll: tens * *", "*", nth=1))


def test_syntax_error_hints_do_not_leak_grammar_internals():
    """Hints name tokens as an author writes them, never lark's terminal names ('__ANON_0')."""
    from engine.expr.parser import parse

    with pytest.raises(engine.ExprSyntaxError) as info:
        parse("1 2")
    assert "__anon" not in str(info.value).lower()


@pytest.mark.parametrize(
    ("written", "word", "rest"),
    [
        ("doubles andy", "and", "y"),
        ("doubles orange", "or", "ange"),
        ("tens notin [1, 2]", "not", "in"),
        ("tens inside", "in", "side"),
        ("1 ifx else 2", "if", "x"),
    ],
)
def test_a_word_of_the_language_is_never_split_out_of_a_name(written: str, word: str, rest: str) -> None:
    """`doubles andy` was read `doubles and y` (lark's lexer took `and` from the front of `andy`
    where no name could come): it is a name where an operator belongs, placed at that name."""
    text = broken("flips: \"1 if outcome == 'botch' else 0\"", f'flips: "{written}"')
    d = assert_one_diagnostic(text, CompileError, "RC201", locate(text, "flips:", f"{word}{rest}"))
    assert f"'{word}{rest}'" in d.message
    assert d.hint is not None and f"'{word} {rest}'" in d.hint


@pytest.mark.parametrize(
    ("written", "word"), [("tens + not(ones)", "not"), ("and + 1", "and"), ("if(1)", "if")]
)
def test_a_word_of_the_language_names_no_value_and_no_function(written: str, word: str) -> None:
    """`not(ones)` after `+` was a call of a function `not` (RC302), `and + 1` a value `and` (RC301):
    the words belong to the language (language.md), so either is a syntax error placed at the word."""
    text = broken("flips: \"1 if outcome == 'botch' else 0\"", f'flips: "{written}"')
    d = assert_one_diagnostic(text, CompileError, "RC201", locate(text, "flips:", word))
    assert d.hint is not None and f"'{word}' is a word of the language" in d.hint


# -- expressions: types and scale members ------------------------------------------------------


def test_type_error_number_plus_scale_value():
    text = broken("flips: \"1 if outcome == 'botch' else 0\"", "flips: \"roll + 'botch'\"")
    d = assert_one_diagnostic(text, CompileError, "RC304", locate(text, "flips:", "'botch'"))
    assert "number" in d.message


def test_type_error_number_where_a_condition_is_needed():
    text = broken(
        "    outcome: specific_band(roll, doubles, target)\n",
        "    outcome:\n      - when: roll\n        then: failure\n      - else: success\n",
    )
    d = assert_one_diagnostic(text, CompileError, "RC304", locate(text, "- when: roll", "roll", whole=True))
    assert "true/false" in d.message


@pytest.mark.parametrize("written", ["+(roll > target)", "-(roll > target)"])
def test_unary_plus_needs_a_number_as_minus_does(written: str) -> None:
    """`+(roll > target)` was accepted (the parser dropped the `+`, so nothing checked its operand)
    while `-(roll > target)` was RC304: both are arithmetic, which needs numbers."""
    text = broken("      - when: roll > target\n", f'      - when: "{written}"\n')
    d = assert_one_diagnostic(text, CompileError, "RC304", locate(text, written, "roll"))
    assert "true/false" in d.message


def test_unary_plus_is_kept_on_a_name_and_folded_into_a_number() -> None:
    """`+x` stays in the tree (so `x` is checked) and prints back as written; `+3` is the number 3;
    a number under `+` is still a number to the compiler."""
    from engine.expr import ast
    from engine.expr.parser import parse
    from engine.expr.printer import to_text

    assert parse("+x") == ast.Unary("+", ast.Name("x")) and to_text(parse("+x")) == "+x"
    assert parse("+3") == ast.Num(3) and parse("+-x") == ast.Unary("+", ast.Unary("-", ast.Name("x")))
    load_text(broken("flips: \"1 if outcome == 'botch' else 0\"", 'flips: "+tens + +(ones) + +1"'))


def test_unknown_scale_member_with_did_you_mean():
    text = broken("outcome == 'botch'", "outcome == 'botsh'")
    d = assert_one_diagnostic(text, CompileError, "RC305", locate(text, "flips:", "'botsh'"))
    assert "botsh" in d.message
    assert d.hint is not None and "did you mean 'botch'" in d.hint


def test_unknown_bare_scale_member_in_then_with_did_you_mean():
    text = broken("        then: botch\n", "        then: botsh\n")
    d = assert_one_diagnostic(text, CompileError, "RC301", locate(text, "then: botsh", "botsh"))
    assert d.hint is not None and "botch" in d.hint


def test_unknown_outcome_scale_with_did_you_mean():
    text = broken("    outcomes: result", "    outcomes: resutl")
    d = assert_one_diagnostic(text, CompileError, "RC312", locate(text, "outcomes: resutl", "resutl"))
    assert d.hint is not None and "did you mean 'result'" in d.hint


# -- inputs to a roll --------------------------------------------------------------------------

CHILL_PATH = REPO_ROOT / "rulesets" / "chill.yaml"


def chill_target_at() -> tuple[int, int]:
    """Where chill.yaml's `specific` check declares the `target` input (the key under `inputs:`)."""
    text = CHILL_PATH.read_text(encoding="utf-8")
    in_checks = False
    for number, line in enumerate(text.splitlines(), start=1):
        in_checks = in_checks or line.startswith("checks:")
        m = re.match(r"^(\s+)target:", line)
        if m and in_checks:
            return number, len(m.group(1)) + 1
    raise AssertionError("chill.yaml declares no target input")


def roll_error(**inputs) -> InputError:
    chill = engine.load(CHILL_PATH)
    with pytest.raises(InputError) as info:
        chill.roll("specific", **inputs)
    exc = info.value
    assert "Traceback" not in str(exc)
    return exc


def assert_at_target(exc: InputError) -> None:
    d = exc.diagnostics[0]
    line, col = chill_target_at()
    assert d.span is not None and d.span.file.endswith("chill.yaml")
    assert (d.span.line, d.span.col) == (line, col)
    assert f"chill.yaml:{line}:{col}: " in str(exc)
    assert "\n  " + " " * (col - 1) + "^" in str(exc)


def test_missing_input():
    exc = roll_error()
    assert len(exc.diagnostics) == 1
    assert exc.diagnostics[0].code == "RC401"
    assert "'target'" in exc.diagnostics[0].message
    assert_at_target(exc)


def test_unknown_input_with_did_you_mean():
    exc = roll_error(target=50, tokns=1)
    assert len(exc.diagnostics) == 1
    d = exc.diagnostics[0]
    assert d.code == "RC402" and "'tokns'" in d.message
    assert d.hint is not None and "did you mean 'tokens'" in d.hint
    assert d.span is not None and d.span.file.endswith("chill.yaml")
    line, col = locate(CHILL_PATH.read_text(encoding="utf-8"), "  specific:", "specific")
    assert (d.span.line, d.span.col) == (line, col)


@pytest.mark.parametrize("value", [0, -5, 10_000])
def test_out_of_range_input(value):
    exc = roll_error(target=value)
    assert len(exc.diagnostics) == 1
    assert exc.diagnostics[0].code == "RC403"
    assert str(value) in exc.diagnostics[0].message
    assert_at_target(exc)


@pytest.mark.parametrize("value", ["abc", 5.5, True])
def test_input_of_the_wrong_kind(value):
    exc = roll_error(target=value)
    assert exc.diagnostics[0].code == "RC404"
    assert_at_target(exc)


def test_choice_input_with_did_you_mean():
    castle = engine.load("castle")
    with pytest.raises(InputError) as info:
        castle.roll("task", skill="advantagd")
    d = info.value.diagnostics[0]
    assert d.code == "RC404"
    assert d.hint is not None and "did you mean 'advantaged'" in d.hint


def test_unknown_check_with_did_you_mean():
    with pytest.raises(InputError) as info:
        engine.load("chill").roll("specifc", target=5)
    assert info.value.diagnostics[0].hint == "did you mean 'specific'?"


def test_forced_face_that_the_die_does_not_have():
    with pytest.raises(InputError) as info:
        engine.load("chill").roll("specific", forced={"tens": 10}, target=5)
    assert info.value.diagnostics[0].code == "RC405"


def test_forced_faces_are_refused_when_an_auto_rule_decides():
    """An auto rule decides without rolling, so forced faces are left over, which is an error as
    any left over ("they mean the roll did not go as the caller thought"): they had been dropped
    without a word, and an example forcing them passed `test` (found by a review)."""
    text = """\
rulecraft: 1
name: exa
checks:
  c:
    inputs: {pb: {type: bool, default: false}}
    auto: [{when: pb, then: hi}]
    roll: {d: {die: 6}}
    outcomes: [lo, hi]
    outcome: "'hi' if d > 3 else 'lo'"
    examples:
      - {inputs: {pb: true}, dice: {d: 1}, expect: {outcome: hi}}
"""
    rs = load_text(text)
    with pytest.raises(InputError) as info:
        rs.roll("c", forced={"d": 1}, pb=True)
    [d] = info.value.diagnostics
    assert d.code == "RC405" and "an auto rule decided the outcome" in d.message
    assert rs.roll("c", forced={"d": 1}, pb=False).outcome.name == "lo"
    assert rs.roll("c", pb=True).outcome.name == "hi"
    from engine.tools.examples import run_examples

    [result] = run_examples(rs)
    assert not result.passed and "an auto rule decided" in result.problems[0].message


def test_forced_pool_given_a_single_int():
    """A bare face for a one-die pool is that die; for a bigger pool it is too few faces — an
    InputError, never a TypeError (this crashed before the current sampler)."""
    chimera = engine.load("chimera")
    assert chimera.roll("pool", forced={"rolled": 7}, dice=1).outcome.name == "pass"
    with pytest.raises(InputError) as info:
        chimera.roll("pool", forced={"rolled": 7}, dice=2)
    assert info.value.diagnostics[0].code == "RC405"


def test_empty_pool_is_a_clean_error_not_a_crash():
    """max() of zero dice has no value: an embedder must get an EvalError, not a ValueError."""
    text = """\
rulecraft: 1
name: empty
checks:
  c:
    inputs:
      n: {type: int, min: 0, max: 5}
    roll:
      p: {pool: n, die: 6}
    outcomes: [lo, hi]
    outcome: "'hi' if max(p) > 3 else 'lo'"
"""
    with pytest.raises(engine.EvalError) as info:
        load_text(text).roll("c", n=0)
    assert "Traceback" not in str(info.value)


def test_division_by_zero_is_a_clean_error():
    text = broken("      doubles: tens == ones\n", "      doubles: tens == ones\n      ratio: tens / ones\n")
    with pytest.raises(engine.EvalError) as info:
        load_text(text).roll("specific", forced={"tens": 1, "ones": 0}, target=5)
    assert info.value.diagnostics[0].span.line == locate(text, "ratio:", "ratio")[0]


def test_pool_over_the_limit_is_a_limit_error():
    text = """\
rulecraft: 1
name: big
checks:
  c:
    inputs:
      n: {type: int, min: 0, max: 1000}
    roll:
      p: {pool: n, die: 6}
    outcomes: [lo, hi]
    outcome: "'hi' if sum(p) > 3 * n else 'lo'"
"""
    rs = engine.load_source(SourceFile("big.yaml", text), limits=engine.Limits(max_pool=10))
    assert rs.roll("c", n=10).outcome.name in {"lo", "hi"}
    with pytest.raises(engine.LimitError):
        rs.roll("c", n=11)


# -- through the command line ------------------------------------------------------------------


def test_cli_validate_reports_a_bad_file_at_its_line_and_column(tmp_path, cli):
    text = broken(
        "outcome: specific_band(roll, doubles, target)", "outcome: specific_band(rol, doubles, target)"
    )
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    line, col = locate(text, "specific_band(rol,", "rol")
    r = cli("validate", str(path))
    assert r.code == 1
    assert f"{path}:{line}:{col}: " in r.err
    assert "did you mean 'roll'" in r.err
    assert "\n  " + " " * (col - 1) + "^^^" in r.err
    assert "Traceback" not in r.err + r.out


def test_cli_validate_reports_a_yaml_error(tmp_path, cli):
    text = broken("name: mini", "name: mini: two")
    path = tmp_path / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    line, col = locate(text, "name: mini: two", ":", nth=1)
    r = cli("validate", str(path))
    assert r.code == 1
    assert f"{path}:{line}:{col}: " in r.err
    assert "Traceback" not in r.err + r.out


def test_cli_roll_with_an_out_of_range_input(cli):
    line, col = chill_target_at()
    r = cli("roll", "chill", "specific", "--input", "target=999", "--seed", "1")
    assert r.code == 1
    assert f"chill.yaml:{line}:{col}: " in r.err
    assert "999" in r.err
    assert "Traceback" not in r.err + r.out


def test_cli_roll_with_a_missing_input(cli):
    r = cli("roll", "chill", "specific")
    assert r.code == 1
    assert "target" in r.err
    assert "Traceback" not in r.err + r.out


def test_cli_force_one_die_of_a_pool(cli):
    """`--force rolled=7` on a one-die pool (this ended in a TypeError traceback before)."""
    r = cli("roll", "chimera", "pool", "--force", "rolled=7", "--json")
    assert "Traceback" not in r.err
    assert r.code == 0, r.err
    assert r.out and '"outcome": "pass"' in r.out


def test_a_missing_name_is_data_on_the_error_and_stays_when_placed() -> None:
    """`missing` (the request named what is not there) is set where the error is made, and kept
    when a position is given to it later (`placed`), so a server reads it, not the message."""
    from engine.errors import Diagnostic, placed
    from engine.syntax.positions import Span

    with pytest.raises(InputError) as caught:
        engine.load("chill").distribution("specfic", target=50)
    assert caught.value.missing
    with pytest.raises(LoadError) as loading:
        engine.load("chil")
    assert loading.value.missing
    with pytest.raises(InputError) as bad:
        engine.load("chill").distribution("specific", target=999)
    assert not bad.value.missing  # there, but out of range
    span = Span(SourceFile("x.yaml", "a: 1\n"), 1, 1, 1, 2)
    moved = placed(InputError([Diagnostic("RC402", "no such", None)], missing=True), span)
    assert moved.missing and moved.diagnostics[0].span == span
    assert not placed(InputError([Diagnostic("RC402", "out", None)]), span).missing


@pytest.mark.parametrize("text", ["rules.yaml", "RULES.YAML", "old.Yml"])
def test_a_string_that_names_a_ruleset_file_is_not_read_as_yaml(text: str) -> None:
    """`engine.load("RULES.YAML")` was parsed as YAML text, the word itself, and refused as a
    ruleset of the wrong shape; a file's name is told to pass a `Path`, whatever its suffix's case."""
    with pytest.raises(LoadError) as caught:
        engine.load(text)
    [d] = caught.value.diagnostics
    assert d.code == "RC001" and "never as a file name" in d.message and f"Path({text!r})" in (d.hint or "")


def test_an_error_crosses_a_process_whole() -> None:
    """An error pickles with its diagnostics and flags (`Exception` alone would pickle its text
    and fail to unpickle), so an embedder's worker process hands its parent the same error."""
    import multiprocessing
    import pickle
    from concurrent.futures import ProcessPoolExecutor

    from engine.errors import DeadlineError, Diagnostic

    for error in (
        InputError([Diagnostic("RC402", "no such", None, "did you mean 'x'?")], missing=True),
        DeadlineError([Diagnostic("RC503", "late", None)]),
        engine.CampaignError([Diagnostic("RC907", "no party", None)], unfit=True),
    ):
        back = pickle.loads(pickle.dumps(error))
        assert type(back) is type(error) and back.diagnostics == error.diagnostics
        assert (back.missing, back.unfit, str(back)) == (error.missing, error.unfit, str(error))
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        failed = pool.submit(engine.load, "chil").exception(timeout=120)
    assert isinstance(failed, LoadError) and failed.missing
    assert failed.diagnostics[0].code == "RC001" and "chill" in (failed.diagnostics[0].hint or "")


# -- files that are not ruleset files: bounded before they are read ------------------------------


def test_a_huge_file_is_refused_by_its_size_without_being_read(tmp_path) -> None:
    """A 1 GiB file (sparse: no disk) is RC004 from its size; what is read stays near the limit."""
    import tracemalloc
    from pathlib import Path

    huge = tmp_path / "huge.yaml"
    with huge.open("wb") as f:
        f.truncate(2**30)
    tracemalloc.start()
    try:
        with pytest.raises(RulecraftError) as caught:
            engine.load(Path(huge))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    (d,) = caught.value.diagnostics
    assert d.code == "RC004" and "1,073,741,824 bytes" in d.message
    assert peak < 8 * 2**20  # the limit is 512 KiB: a file read whole would be a gibibyte


def test_a_file_that_grows_past_the_limit_is_refused(tmp_path) -> None:
    from pathlib import Path

    big = tmp_path / "big.yaml"
    big.write_text("#" * 1000 + "\n")
    with pytest.raises(RulecraftError) as caught:
        engine.load(Path(big), limits=engine.Limits(max_yaml_bytes=500))
    assert caught.value.diagnostics[0].code == "RC004"


def test_a_device_is_not_read() -> None:
    """/dev/zero never ends: it is refused as no regular file, not read until memory runs out."""
    from pathlib import Path

    with pytest.raises(LoadError) as caught:
        engine.load(Path("/dev/zero"))
    (d,) = caught.value.diagnostics
    assert d.code == "RC001" and "not a regular file" in d.message


def test_a_pipe_is_not_waited_on(tmp_path) -> None:
    """A named pipe would block the reader until a writer came: refused at once (in a child
    process, so that the old behaviour fails the test by its timeout rather than hanging it)."""
    import os
    import subprocess
    import sys

    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "engine", "validate", str(fifo)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert "RC001" in done.stderr and "not a regular file" in done.stderr


def test_a_byte_that_is_not_utf8_is_shown_at_its_line_and_column(tmp_path) -> None:
    from pathlib import Path

    bad = tmp_path / "latin1.yaml"
    bad.write_bytes(b"rulecraft: 1\r\nname: x\nchecks:\n  a:\n    title: caf\xe9 au lait\n")
    with pytest.raises(LoadError) as caught:
        engine.load(Path(bad))
    (d,) = caught.value.diagnostics
    assert d.code == "RC001" and "is not UTF-8 text" in d.message and "0xe9" in d.message
    assert d.span is not None and (d.span.line, d.span.col) == (5, 15)
    assert caught.value.render().splitlines()[1:3] == ["      title: caf\ufffd au lait", "                ^"]


def test_many_unknown_inputs_are_named_ten_and_counted_and_a_misspelling_still_counts() -> None:
    """Ten unknown names are named and the rest counted (a request of 100,000 was as many
    diagnostics); a misspelt input past the ten still stands for its input, so no RC401 says
    that input is missing (found by a review)."""
    from engine.runtime.inputs import UNKNOWN_SHOWN

    rs = engine.load("chill")
    given = {f"x{i}": 0 for i in range(UNKNOWN_SHOWN + 10)} | {"targt": 55}
    with pytest.raises(InputError) as caught:
        rs.distribution("specific", **given)
    found = caught.value.diagnostics
    assert [d.code for d in found] == ["RC402"] * (UNKNOWN_SHOWN + 1), [d.message for d in found]
    assert found[-1].message == "11 more names given are not inputs of check 'specific'"
    one = {f"x{i}": 0 for i in range(UNKNOWN_SHOWN + 1)} | {"target": 55}
    with pytest.raises(InputError) as caught:
        rs.distribution("specific", **one)
    # one past the ten named: said in the singular (hunt 13o: "1 more names given are not inputs")
    assert caught.value.diagnostics[-1].message == "1 more name given is not an input of check 'specific'"


@pytest.mark.parametrize(
    ("old", "new", "token", "hint"),
    [
        ("        min: 1\n", "        min: 1.5\n", "1.5", "min: 2 (or 'type: number'"),
        ("        max: 100\n", "        max: 99.5\n", "99.5", "max: 99 (or 'type: number'"),
    ],
)
def test_a_bound_of_an_int_input_that_is_not_whole_is_refused_at_the_bound(
    old: str, new: str, token: str, hint: str
) -> None:
    """`min: 2.5` on an int input was kept and shown ('a whole number from 2.5 to 12')."""
    text = broken(old, new)
    d = assert_one_diagnostic(text, CompileError, "RC310", locate(text, token, token))
    assert "is not a whole number" in d.message and d.hint is not None and hint in d.hint


def test_a_bound_of_a_list_of_whole_numbers_that_is_not_whole_is_refused() -> None:
    text = broken(
        "        type: int\n        min: 1\n", "        type: list\n        max_length: 3\n        min: 0.5\n"
    )
    d = assert_one_diagnostic(text, CompileError, "RC310", locate(text, "0.5", "0.5"))
    assert d.hint is not None and "min: 1 (or 'of: number'" in d.hint


def test_a_place_far_along_a_long_line_is_shown_in_a_window_around_it(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A long line is shown as `EXCERPT_WIDTH` characters around the place, cut with `…`: the whole
    line was shown with as many spaces before the caret, so a mistake near the end of a minified
    JSON ruleset (one line) printed the whole file twice over, and an HTTP answer, cut to its first
    2,000 characters, lost the caret (found by a hunt)."""
    import json

    from engine.syntax.positions import EXCERPT_WIDTH

    ruleset = {
        "rulecraft": 1,
        "name": "wide",
        "title": "x" * 5000,
        "checks": {
            "flip": {
                "roll": {"d": {"die": 2}},
                "outcomes": ["tails", "heads"],
                "outcome": "'heads' if dd == 2 else 'tails'",
                "description": "y" * 5000,
            }
        },
    }
    text = json.dumps(ruleset)
    path = tmp_path / "wide.json"
    path.write_text(text + "\n")
    r = cli("validate", str(path))
    column = text.index("dd == 2") + 1
    assert r.code == 1 and f"wide.json:1:{column}: error RC301: unknown name 'dd'" in r.err, r.err
    head, shown, carets, hint = r.err.splitlines()[:4]
    assert shown.startswith("  …") and len(shown) == EXCERPT_WIDTH + 4 and shown.endswith("…")
    assert shown[carets.index("^") :].startswith("dd == 2") and carets.strip() == "^^"
    assert len(r.err) < 1000 and hint == "  hint: did you mean 'd'?"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "tables:\n  in:\n    params: [x]\n    value: x + 1\n",
            "'in' is a word of the expression language and cannot name a table",
        ),
        (
            "state:\n  shared:\n    in: {counter: 3}\n",
            "'in' is a reserved word and cannot name a shared item",
        ),
        ("state:\n  each:\n    true: {counter: 3}\n", "'true' is a reserved word and cannot name an item"),
    ],
)
def test_a_word_of_the_language_names_no_table_or_state_item(text: str, said: str) -> None:
    """Once a word of the language is read only as a word, a table or a state item named `in`
    loaded and no expression could call or read it (`in(d)`, `in + 1`, `rival.in` are RC201):
    it is refused where it is declared (a review)."""
    base = (
        "rulecraft: 1\nname: kw\nchecks:\n  c:\n    roll: {d: {die: 6}}\n    outcomes: [lo, hi]\n"
        "    outcome: \"'hi' if d > 3 else 'lo'\"\n"
    )
    with pytest.raises(RulecraftError) as error:
        engine.load_source(SourceFile("kw.yaml", base + text))
    [d] = error.value.diagnostics
    assert d.code == "RC307" and said in d.message, d.message
    name = said.split("'")[1]
    assert d.span is not None and d.span.excerpt().split("\n")[0].strip().startswith(f"{name}:")


def test_a_caret_after_wide_characters_stands_under_its_place_in_a_terminal() -> None:
    """The blank before a caret was a space per character: a terminal draws 漢 and 🎲 two columns
    wide, so a caret after them stood short of its place, under the wrong token. It keeps the
    line's tabs, takes two columns for a wide character and none for a combining mark, and the
    carets are as wide as what they underline."""
    from engine.syntax.positions import SourceFile, Span

    line = "outcome: \"'漢🎲'\tif tailz else 'heads'\""
    at = line.index("tailz") + 1
    shown = Span(SourceFile("f.yaml", line), 1, at, 1, at + 5).excerpt().split("\n")
    assert shown == ["  " + line, "  " + " " * 11 + "  " + "  " + " " + "\t" + "   " + "^" * 5]
    wide = Span(SourceFile("f.yaml", "x: 漢字 y"), 1, 4, 1, 6).excerpt().split("\n")
    assert wide[1] == "  " + "   " + "^^^^"  # two wide characters: four carets


def test_the_blank_before_a_caret_is_as_wide_as_a_terminal_draws_the_text() -> None:
    from engine.syntax.positions import blank, columns

    assert blank("a漢🎲\te\u0301ｶ") == " " + "  " + "  " + "\t" + " " + "" + " "  # ｶ: halfwidth
    assert columns("漢字") == 4 and columns("e\u0301") == 1
    assert columns("\u1b44") == 1 and columns("a\u200db") == 2  # a spacing virama (Mc); a joiner (Cf)
    # a letter joined by U+200D keeps its column (क्‍ष, as Indic scripts join); a joined emoji none
    assert columns("\u0915\u094d\u200d\u0937") == 2 and columns("\U0001f468\u200d\U0001f469") == 2
