"""YAML tags, misspelt required keys, aliased mistakes and boolean keys: each mistake is said once,
at its place, in an author's words — never a traceback, never a follow-on message.

Each case is one edit of a small valid ruleset; the expected line and column are found in the
edited text, never copied from the engine's output.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

import engine
from engine.errors import RulecraftError
from engine.syntax.document import load as load_yaml
from engine.syntax.positions import SourceFile

BASE = """\
rulecraft: 1
name: coin
checks:
  flip:
    roll:
      d: {die: 6}
    outcomes: [lo, hi]
    outcome: "'hi' if d > 3 else 'lo'"
"""


def edit(old: str, new: str, text: str = BASE) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def at(text: str, token: str) -> tuple[int, int]:
    """1-based line and column of the first `token` in `text`."""
    for number, line in enumerate(text.splitlines(), start=1):
        if token in line:
            return number, line.index(token) + 1
    raise AssertionError(token)


def diagnostics(text: str) -> list[engine.Diagnostic]:
    """The diagnostics loading `text` fails with (an error of rulecraft's, rendered without a
    traceback, each with its source line and a caret)."""
    with pytest.raises(RulecraftError) as info:
        engine.load_source(SourceFile("bad.yaml", text))
    rendered = str(info.value)
    assert "Traceback" not in rendered and "^" in rendered
    return list(info.value.diagnostics)


def one(text: str) -> engine.Diagnostic:
    found = diagnostics(text)
    assert len(found) == 1, "\n".join(f"{d.code} {d.message}" for d in found)
    assert found[0].span is not None
    return found[0]


# -- explicit YAML tags --------------------------------------------------------------------------

BAD_TAG_VALUES = [
    # (the tagged value written for `die: 6` or for the outcome, what the message says)
    ("d: {die: !!int six}", "!!int six", "'six' is not a whole number, which its tag '!!int' says it is"),
    ('outcome: !!float "hi"', '!!float "hi"', "'hi' is not a number, which its tag '!!float' says it is"),
    (
        "outcome: !!bool maybe",
        "!!bool maybe",
        "'maybe' is not true or false, which its tag '!!bool' says it is",
    ),
    ("outcome: !!null x", "!!null x", "'x' is not null, which its tag '!!null' says it is"),
    ("outcome: &o !!int six", "!!int six", "'six' is not a whole number"),
]


@pytest.mark.parametrize(("line", "token", "said"), BAD_TAG_VALUES)
def test_a_value_its_tag_cannot_be_is_one_rc002_at_the_tag(line: str, token: str, said: str) -> None:
    key = line.split(":")[0]
    text = (
        BASE.replace("d: {die: 6}", line)
        if key == "d"
        else edit("""outcome: "'hi' if d > 3 else 'lo'\"""", line)
    )
    d = one(text)
    assert d.code == "RC002"
    assert said in d.message
    assert d.span is not None and (d.span.line, d.span.col) == at(text, token)
    assert d.span.end_col == d.span.col + len(token)  # the tag and its value
    assert d.hint is not None and "remove the tag" in d.hint


@pytest.mark.parametrize(
    "tag",
    [
        "!!set",
        "!!omap",
        "!!pairs",
        "!!binary",
        "!!timestamp",
        "!foo",
        "!",
        "!!python/name:os.system",
        "!!merge",
    ],
)
@pytest.mark.parametrize("value", ['"hi"', "hi", "{hi: 1}", "[hi]"])
def test_a_tag_a_ruleset_does_not_take_is_refused_at_the_tag(tag: str, value: str) -> None:
    text = edit("outcomes: [lo, hi]", f"outcomes: {tag} {value}")
    d = one(text)
    assert d.code == "RC002"
    assert d.message == f"the tag '{tag}' is not one a ruleset may use"
    assert d.span is not None and (d.span.line, d.span.col) == at(text, f"{tag} ")
    assert d.span.end_col == d.span.col + len(tag)
    assert d.hint is not None and "!!str, !!int, !!float, !!bool, !!null, !!seq and !!map" in d.hint


def test_a_python_tag_constructs_nothing() -> None:
    for tag in ("!!python/object/apply:os.system", "!!python/object:os.system", "!!python/name:os.system"):
        text = edit("outcomes: [lo, hi]", f"outcomes: {tag} [echo hi]")
        assert "is not one a ruleset may use" in one(text).message


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("!!str [lo, hi]", "the tag '!!str' makes text, but a list is written here"),
        ("!!int {lo: 1}", "the tag '!!int' makes a whole number, but a mapping is written here"),
        ("!!map lo", "the tag '!!map' makes a mapping, but a single value is written here"),
        ("!!seq lo", "the tag '!!seq' makes a list, but a single value is written here"),
    ],
)
def test_a_core_tag_on_the_wrong_kind_of_value_is_refused(written: str, said: str) -> None:
    text = edit("outcomes: [lo, hi]", f"outcomes: {written}")
    d = one(text)
    assert (d.code, d.message) == ("RC002", said)
    assert d.span is not None and (d.span.line, d.span.col) == at(text, written)


def test_the_core_tags_read_as_plain_values() -> None:
    text = edit("d: {die: 6}", "d: {die: !!int 6}")
    text = edit("outcomes: [lo, hi]", "outcomes: !!seq [!!str lo, hi]", text)
    text = edit("""outcome: "'hi'""", """outcome: !!str "'hi'""", text)
    assert engine.load(text).distribution("flip").probability("hi") == 1 / 2
    tagged_key = edit("  flip:", "  !!str flip:")
    assert engine.load(tagged_key).distribution("flip").probability("hi") == 1 / 2


def test_a_bad_tag_from_the_command_line_is_one_message_and_exit_1(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.yaml"
    path.write_text(BASE.replace("d: {die: 6}", "d: {die: !!int six}"))
    result = cli("validate", str(path))
    assert result.code == 1
    assert result.err.count("error RC") + result.out.count("error RC") == 1
    assert "'six' is not a whole number" in result.out + result.err


# -- a misspelt required key ---------------------------------------------------------------------

RICH = """\
rulecraft: 1
name: coin
notes:
  - id: a
    text: hello
checks:
  flip:
    inputs:
      r: {type: choice, choices: [a, b], default: a}
      k: {type: int, min: 0, max: 3, default: 0}
    roll:
      d: {die: 6, triggers: [{on: face == 1, may: reroll}]}
      p:
        pool: 2
        die: 6
        each: face >= 4
    outcomes: [lo, hi]
    auto:
      - when: k > 2
        then: hi
    outcome:
      - when: d > 3 and r == 'a' and count(p, true) > 0
        then: hi
      - else: lo
    examples:
      - name: x
        dice: {d: 6, p: [5, 1]}
        expect: {outcome: hi}
state:
  shared:
    oil: {counter: 3, min: 0}
  examples:
    - name: burn
      steps:
        - {act: burn}
      expect: {shared: {oil: 2}}
actions:
  burn:
    roll: {check: flip}
    effects:
      - {remove: {oil: 1}}
"""

MISSPELT = [
    # (the edit, the key written, the key meant, the mapping's path in the message)
    ("    outcome:\n      - when: d > 3", "outcom", "outcome", "checks.flip"),
    ("    text: hello", "txt", "text", "notes.0"),
    ("choices: [a, b]", "choces", "choices", "checks.flip.inputs.r"),
    ("        expect: {outcome: hi}", "expct", "expect", "checks.flip.examples.0"),
    ("      steps:", "seps", "steps", "state.examples.0"),
    ("roll: {check: flip}", "chek", "check", "actions.burn.roll"),
    ("name: coin", "nam", "name", "the top level"),
    ("may: reroll", "ay", "may", "checks.flip.roll.d.triggers.0"),
    ("        pool: 2", "pol", "pool", "checks.flip.roll.p"),
    ("        then: hi\n    outcome:", "thn", "then", "checks.flip.auto.0"),
    ("        then: hi\n      - else", "thn", "then", "checks.flip.outcome.0"),
]


def test_the_rich_base_is_valid() -> None:
    assert engine.load(RICH).distribution("flip", k=0).probability("hi") > 0


@pytest.mark.parametrize(("old", "written", "meant", "where"), MISSPELT)
def test_a_misspelt_required_key_is_said_once_at_the_key(
    old: str, written: str, meant: str, where: str
) -> None:
    """Not also as the missing key it stands for (RC101) or the form it would have made (RC105),
    and the hint is the key meant alone."""
    new = old.replace(meant, written, 1)
    assert new != old
    text = edit(old, new, RICH)
    d = one(text)
    assert (d.code, d.message, d.hint) == (
        "RC102",
        f"unknown key '{written}' in {where}",
        f"did you mean '{meant}'?",
    )
    line = text.splitlines()[d.span.line - 1] if d.span else ""
    assert d.span is not None and line[d.span.col - 1 :].startswith(f"{written}:")


def test_a_missing_key_nothing_misspelt_explains_is_still_said() -> None:
    found = diagnostics(edit("    text: hello", "    words: hello", RICH))
    assert [(d.code, d.message) for d in found] == [
        ("RC101", "notes.0 is missing the required key 'text'"),
        ("RC102", "unknown key 'words' in notes.0"),
    ]
    found = diagnostics(edit("may: reroll", "zzz: reroll", RICH))
    assert [d.code for d in found] == ["RC105", "RC102"]


def test_a_key_missing_beside_a_misspelt_one_is_still_said() -> None:
    text = edit("    outcomes: [lo, hi]\n", "", RICH)
    text = edit("    outcome:\n      - when: d > 3", "    outcom:\n      - when: d > 3", text)
    assert [(d.code, d.message) for d in diagnostics(text)] == [
        ("RC101", "checks.flip is missing the required key 'outcomes'"),
        ("RC102", "unknown key 'outcom' in checks.flip"),
    ]


def test_every_unknown_key_is_named_the_misspelt_one_with_the_key_it_stands_for() -> None:
    """Of two unknown keys, each is named at its own key (the first alone had been); the one
    that stands for a missing required key with that key, the other with the allowed keys."""
    text = edit("    text: hello", "    zzz: 1\n    txt: hello", RICH)
    found = diagnostics(text)
    assert [(d.code, d.message, d.hint) for d in found] == [
        ("RC102", "unknown key 'zzz' in notes.0", "allowed keys: id, text"),
        ("RC102", "unknown key 'txt' in notes.0", "did you mean 'text'?"),
    ]
    assert [(d.span.line, d.span.col) if d.span else None for d in found] == [
        at(text, "zzz:"),
        at(text, "txt:"),
    ]


@pytest.mark.parametrize(
    ("old", "new", "where", "told"),
    [
        (
            "choices: [a, b], default: a}",
            "choicez: [a, b], default: a, nmae: r, zzz: 1}",
            "checks.flip.inputs.r",
            # 'choices' is missing (required of a choice): 'choicez' stands for it
            [("choicez", "did you mean 'choices'?"), ("nmae", None), ("zzz", None)],
        ),
        (
            "    outcomes: [lo, hi]\n",
            "    outcomes: [lo, hi]\n    titel: t\n    zzz: 2\n    outptus: {}\n",
            "checks.flip",
            [("titel", "did you mean 'title'?"), ("zzz", None), ("outptus", "did you mean 'outputs'?")],
        ),
        (
            "may: reroll}",
            "may: reroll, onn: 1, zzz: 2}",
            "checks.flip.roll.d.triggers.0",
            [("onn", None), ("zzz", None)],
        ),
    ],
    ids=["an input", "a check", "a trigger (one of several forms)"],
)
def test_every_unknown_key_of_one_mapping_is_its_own_diagnostic(
    old: str, new: str, where: str, told: list[tuple[str, str | None]]
) -> None:
    """As a validator that reports its errors as data would: one RC102 per unknown key of the
    mapping (only the first had been said), each at its own key, each with its own hint."""
    text = edit(old, new, RICH)
    found = diagnostics(text)
    assert [(d.code, d.message) for d in found] == [
        ("RC102", f"unknown key '{k}' in {where}") for k, _ in told
    ]
    for d, (key, hint) in zip(found, told):
        line = text.splitlines()[d.span.line - 1] if d.span else ""
        assert d.span is not None and line[d.span.col - 1 :].startswith(f"{key}:")
        assert d.span.end_col == d.span.col + len(key)
        if hint is not None:
            assert d.hint == hint
        else:
            assert d.hint is not None and d.hint.startswith("allowed keys: ")


def test_the_command_line_prints_every_unknown_key_and_fails_once(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "bad.yaml"
    path.write_text(
        edit("choices: [a, b]", "choices: [a, b], mni: 0, maxx: 4, bogus: 1", RICH), encoding="utf-8"
    )
    done = subprocess.run(
        [sys.executable, "-m", "engine", "validate", str(path)],
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "RULECRAFT_NO_CACHE": "1"},
        check=False,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    said = [line for line in done.stderr.splitlines() if " error RC102: " in line]
    assert [line.split("RC102: ")[1] for line in said] == [
        f"unknown key '{k}' in checks.flip.inputs.r" for k in ("mni", "maxx", "bogus")
    ]
    assert done.stdout.count("FAILED") == 1


def test_an_unknown_key_of_a_row_is_not_told_with_the_description_of_the_outcome() -> None:
    text = edit("        then: hi\n      - else", "        then: hi\n        thn: hi\n      - else", RICH)
    d = one(text)
    assert d.hint == "allowed keys: when, then, else, note"


# -- a mistake inside a value aliases share ------------------------------------------------------

SHARED = """\
rulecraft: 1
name: coin
checks:
  a:
    roll:
      d: {die: 6}
    outcomes: [lo, hi]
    outcome: &rules
      - when: d > 3
        then: hi
      - else: lo
  b:
    roll:
      d: {die: 6}
    outcomes: [lo, hi]
    outcome: *rules
  c:
    roll: &roll
      d: {die: 6}
    outcomes: [lo, hi]
    outcome: *rules
  e:
    roll: *roll
    outcomes: [lo, hi]
    outcome: *rules
"""


def test_the_shared_base_is_valid() -> None:
    assert engine.load(SHARED).distribution("e").probability("hi") == 1 / 2


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ("        then: hi", "        thn: hi", "unknown key 'thn' in checks.a.outcome.0"),
        (
            "        then: hi",
            "        then: hi\n        note: 3",
            "checks.a.outcome.0.note should be text, not a number",
        ),
        (
            "      - else: lo",
            "      - else: lo\n        when: d > 1",
            "checks.a.outcome.1: a rule row has either",
        ),
        (
            "    roll: &roll\n      d: {die: 6}",
            "    roll: &roll\n      d: {die: 6, tiggers: []}",
            "checks.c.roll.d",
        ),
    ],
)
def test_a_mistake_inside_an_aliased_value_is_said_once_by_its_first_path(
    old: str, new: str, said: str
) -> None:
    text = edit(old, new, SHARED)
    d = one(text)
    assert said in d.message


def test_a_mistake_in_each_of_two_places_is_said_for_each() -> None:
    text = edit("  b:\n    roll:\n      d: {die: 6}", "  b:\n    roll:\n      d: {die: 6, sides: 2}", SHARED)
    text = edit("  a:\n    roll:\n      d: {die: 6}", "  a:\n    roll:\n      d: {die: 6, sides: 2}", text)
    assert [d.message for d in diagnostics(text)] == [
        "unknown key 'sides' in checks.a.roll.d",
        "unknown key 'sides' in checks.b.roll.d",
    ]


# -- an alias inside the value its anchor names ---------------------------------------------------

SELF_ALIASES = [
    # (old, new, the alias as written): a value that would contain itself
    ("name: coin", "name: coin\ndescription: &d [a, *d]", "*d"),  # in a list
    ("d: {die: 6}", "d: &d {die: 6, then: *d}", "*d"),  # a mapping's value
    ("d: {die: 6}", "d: &d {die: 6, *d : 1}", "*d"),  # a mapping's key
    ("d: {die: 6}", "d: &d {die: 6, <<: *d}", "*d"),  # merged into itself
    ("outcomes: [lo, hi]", "outcomes: &o [[lo, [*o]]]", "*o"),  # nested two deep
    ("    roll:\n      d: {die: 6}", "    roll: &r\n      d: {die: 6}\n      e:\n        - *r", "*r"),
]


@pytest.mark.parametrize(("old", "new", "alias"), SELF_ALIASES)
def test_an_alias_inside_the_value_its_anchor_names_is_one_rc002_at_the_alias(
    old: str, new: str, alias: str
) -> None:
    """ruamel composes such a value as a cycle and reads the alias as null (`[a, None]`): a wrong
    reading, said nowhere. It is refused where the alias is written, before the value is made."""
    text = edit(old, new)
    d = one(text)
    line, col = at(text, alias)
    assert d.code == "RC002"
    assert d.span is not None and (d.span.line, d.span.col, d.span.end_col) == (line, col, col + len(alias))
    name = alias[1:]
    assert d.message == (
        f"the alias *{name} is used inside the value its anchor &{name} names: a value cannot contain itself"
    )
    assert d.hint is not None and d.hint.startswith("write the value out in full here")
    anchor_line = at(text, "&" + name)[0]
    assert (f"(&{name} is on line {anchor_line})" in d.hint) == (anchor_line != line)


def test_an_alias_after_its_anchored_value_closes_still_reads() -> None:
    """Only a value still open when its alias comes is refused: a use after it closes, a use of an
    anchor written again inside it (`&o [&o [..], *o]`: the inner one, closed), read as before."""
    text = edit("outcomes: [lo, hi]", "outcomes: &o [lo, hi]")
    text += "  again:\n    roll: {d: {die: 6}}\n    outcomes: *o\n    outcome: \"'hi' if d > 3 else 'lo'\"\n"
    assert engine.load(text).distribution("again").probability("hi") == 1 / 2
    doc = load_yaml(SourceFile("t.yaml", "a: &x [1]\nb: *x\nc: &y [&y [2], *y]\n"))
    assert doc.data == {"a": [1], "b": [1], "c": [[2], [2]]}


def test_an_alias_inside_its_own_value_from_the_command_line_is_one_message_and_exit_1(
    tmp_path: Path,
    cli,  # type: ignore[no-untyped-def]
) -> None:
    path = tmp_path / "bad.yaml"
    text = edit("outcomes: [lo, hi]", "outcomes: &o [lo, hi, *o]")
    path.write_text(text)
    line, col = at(text, "*o")
    result = cli("validate", str(path))
    said = result.out + result.err
    assert result.code == 1
    assert said.count("error RC") == 1 and "Traceback" not in said
    assert f"{path}:{line}:{col}: error RC002: the alias *o is used inside" in said


def test_an_alias_inside_its_own_value_is_refused_each_time_a_file_is_loaded(tmp_path: Path) -> None:
    """A refused file is never kept by the on-disk cache (`syntax.cached`): the second load reads
    it afresh and refuses it as the first did."""
    path = tmp_path / "bad.yaml"
    path.write_text(edit("outcomes: [lo, hi]", "outcomes: &o [lo, hi, *o]"))
    for _ in range(2):
        with pytest.raises(engine.LoadError) as info:
            engine.load(path)
        assert [d.code for d in info.value.diagnostics] == ["RC002"]


# -- keys that are one key to rulecraft ----------------------------------------------------------

TABLE = """\
rulecraft: 1
name: coin
tables:
  bonus:
    params: {x: int}
    returns: int
    cases: {0: 5, 1: 10, else: 0}
checks:
  flip:
    roll:
      d: {die: 6}
    outcomes: [lo, hi]
    outcome: "'hi' if d + bonus(d - 5) > 10 else 'lo'"
"""


def test_the_table_base_is_valid() -> None:
    assert engine.load(TABLE).distribution("flip").probability("hi") == Fraction(1, 6)


@pytest.mark.parametrize(
    ("cases", "later", "said", "hint"),
    [
        (
            "{0: 5, 1: 10, true: 20, false: 30, else: 0}",
            "true",
            "the keys '1' and 'true' of one mapping are the same key to rulecraft: true equals 1 and false "
            "equals 0 here",
            "keep one of them; the first is on line 7 "
            "(an untyped table's case true matches 1, and 1 matches true)",
        ),
        (
            "{false: 5, 1: 10, 0: 20, else: 0}",
            "0",
            "the keys 'false' and '0' of one mapping are the same key to rulecraft: true equals 1 and false "
            "equals 0 here",
            "keep one of them; the first is on line 7 "
            "(an untyped table's case true matches 1, and 1 matches true)",
        ),
        (
            "{0: 5, 1: 10, 1.0: 20, else: 0}",
            "1.0",
            "the keys '1' and '1.0' of one mapping are the same key to rulecraft: they are one number",
            "keep one of them; the first is on line 7",
        ),
        (
            "{0: 5, 1: 10, 0x1: 20, else: 0}",
            "0x1",
            "YAML syntax error: the key '0x1' appears twice in one mapping (written '1' first)",
            "each key may appear once in a mapping; the first is on line 7",
        ),
    ],
)
def test_keys_rulecraft_reads_as_one_are_told_as_written(
    cases: str, later: str, said: str, hint: str
) -> None:
    text = edit("{0: 5, 1: 10, else: 0}", cases, TABLE)
    d = one(text)
    assert (d.code, d.message, d.hint) == ("RC002", said, hint)
    assert "True" not in d.message
    line = text.splitlines()[6]
    assert d.span is not None and (d.span.line, d.span.col) == (7, line.index(f" {later}:") + 2)


MIXED = """\
rulecraft: 1
name: mixed
tables:
  t:
    params: PARAMS
    returns: int
    cases: {true: 10, 2: 20, else: 0}
checks:
  c:
    inputs: {n: {type: int, default: 0}, b: {type: bool, default: false}}
    roll:
      d: {die: 2}
    outcomes: [lo, hi]
    outcome: "'hi' if d == 2 else 'lo'"
    outputs:
      by_number: t(n)
      by_truth: t(b)
"""


def test_an_untyped_table_mixing_true_and_a_number_compares_its_keys_by_value() -> None:
    """docs/language.md, `cases`: keys compare by value where the parameter is untyped, a truth
    value equal to a number: `true` matches true and 1, `2` matches 2, and the two are two keys."""
    rs = engine.load(MIXED.replace("PARAMS", "[x]"))
    for given, number, truth in ((0, 0, 0), (1, 10, 0), (2, 20, 0), (3, 0, 0)):
        values = rs.roll("c", forced={"d": 1}, n=given, b=False).values
        assert (values["by_number"], values["by_truth"]) == (number, truth), given
    assert rs.roll("c", forced={"d": 1}, b=True).values["by_truth"] == 10


@pytest.mark.parametrize(
    ("params", "key", "said", "hint"),
    [
        (
            "{x: int}",
            "true",
            "case true is true/false, but parameter 'x' is number",
            "write the number (1 or 0), or declare the parameter bool "
            "(true matches 1 only in an untyped parameter's table)",
        ),
        (
            "{x: bool}",
            "2",
            "case 2 is a number, but parameter 'x' is true/false",
            "a true/false parameter's cases are true and false "
            "(a number matches a truth value only in an untyped parameter's table)",
        ),
    ],
)
def test_a_typed_table_refuses_a_key_of_the_other_type_at_the_key(
    params: str, key: str, said: str, hint: str
) -> None:
    """A typed parameter checks each key against its type (the reference: "use them only with a
    parameter of the matching type"): `2` can never be a truth value, and `true` in an int table is
    a slip for 1, so one of the two keys is RC304, at that key, with what to write."""
    text = MIXED.replace("PARAMS", params)
    if params == "{x: bool}":
        text = text.replace("by_number: t(n)", "by_number: t(n > 0)")
    else:
        text = text.replace("by_truth: t(b)", "by_truth: t(1 if b else 0)")
    d = one(text)
    assert (d.code, d.message, d.hint) == ("RC304", said, hint)
    cases = text.splitlines()[6]
    assert cases.startswith("    cases: {")
    assert d.span is not None and (d.span.line, d.span.col) == (7, cases.index(f"{key}: ") + 1)


def test_a_boolean_key_written_twice_is_spelt_as_written_with_its_first_line() -> None:
    text = edit("    cases: {0: 5, 1: 10, else: 0}", "    cases:\n      true: 1\n      true: 2", TABLE)
    d = one(text)
    assert d.message == "YAML syntax error: the key 'true' appears twice in one mapping"
    assert d.hint == "each key may appear once in a mapping; the first is on line 8"
    assert d.span is not None and (d.span.line, d.span.col) == (9, 7)


BREAKS = ["\u2028", "\u2029", "\x85"]


@pytest.mark.parametrize("brk", BREAKS, ids=["U+2028", "U+2029", "U+0085"])
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("name: coin\n", "name: coin\n# a note {brk} more: stuff\n"),
        ("{die: 6}\n", "{{die: 6}}   # six{brk} faces\n"),
        ("name: coin\n", "name: co{brk}in\n"),
        ("name: coin\n", "name: coin\ndescription: |\n  one{brk} two\n"),
        ("    outcomes:", "{brk}    outcomes:"),
    ],
    ids=["comment", "trailing comment", "plain", "block", "between"],
)
def test_a_line_break_yaml_alone_reads_is_refused_where_it_is_written(brk: str, old: str, new: str) -> None:
    """ruamel.yaml reads U+2028, U+2029 and U+0085 as line breaks (and counts lines at a newline
    only): one in a comment ended it, and the rest was read as YAML, a misleading RC002 about
    indentation. Outside a quoted string each is one RC002 at its own line and column, saying
    what it is and how to write it instead."""
    text = edit(old, new.format(brk=brk))
    d = one(text)
    line = text.count("\n", 0, text.index(brk)) + 1
    col = text.index(brk) - text.rfind("\n", 0, text.index(brk))
    assert (d.code, d.span.line, d.span.col) == ("RC002", line, col), d
    assert d.message.startswith(f"a U+{ord(brk):04X} (") and "outside a quoted string" in d.message
    assert d.hint is not None and "double-quoted string" in d.hint


@pytest.mark.parametrize("brk", BREAKS, ids=["U+2028", "U+2029", "U+0085"])
def test_a_line_break_yaml_alone_reads_is_left_to_the_reader_inside_quotes(brk: str) -> None:
    """Inside a quoted string one is read as YAML reads a line break there (a U+2028 or U+2029
    kept, a U+0085 folded to a space), and an escape is the character itself; a second one, in a
    comment after the quoted one, is still refused at its place."""
    written = f"\\x{ord(brk):02x}" if brk == "\x85" else f"\\u{ord(brk):04x}"
    for title, read in [
        (f'"a{written}b"', f"a{brk}b"),
        (f'"a{brk}b"', f"a{brk}b" if brk != "\x85" else "a b"),
        (f"'a{brk}b'", f"a{brk}b" if brk != "\x85" else "a b"),
    ]:
        rs = engine.load_source(SourceFile("ok.yaml", edit("name: coin\n", f"name: coin\ntitle: {title}\n")))
        assert rs.title == read, title
    text = edit("name: coin\n", f'name: coin\ntitle: "a{brk}b"  # c{brk}d\n')
    d = one(text)
    assert (d.code, d.span.line, d.span.col) == ("RC002", 3, text.split("\n")[2].rindex(brk) + 1), d


def test_an_earlier_yaml_error_is_told_before_a_line_break_after_it() -> None:
    """The scan for these characters leaves a mistake before the first of them to the YAML
    reader's own words, at its own place."""
    text = edit("name: coin\n", "name: coin\ntitle: 'open\n# note\u2028 more\n")
    d = one(text)
    assert d.code == "RC002" and "U+2028" not in d.message, d


def test_the_scan_for_a_line_break_reads_the_load_clock() -> None:
    """A large text with one such character at its end is scanned token by token: under a load's
    deadline the scan reads the clock, as the YAML reader's stages do."""
    from engine.errors import DeadlineError
    from engine.syntax.breaks import stray_break
    from engine.syntax.clock import Clock

    def late() -> None:
        raise DeadlineError([engine.Diagnostic("RC503", "late", None)])

    text = BASE + "".join(f"k{i}: {i}\n" for i in range(2000)) + "# end\u2028\n"
    with pytest.raises(DeadlineError):
        stray_break(SourceFile("big.yaml", text), Clock(late))
    assert stray_break(SourceFile("big.yaml", text)) is not None


@pytest.mark.parametrize("end", ["\r", "\r\n"])
def test_text_with_carriage_return_line_ends_loads_and_is_placed_as_a_file_would_be(end: str) -> None:
    """Text given as a string with a lone CR (or CR LF) ending each line is read as a file with
    those line ends is: the YAML reader counted each lone CR as a line and `SourceFile` did not,
    so loading it raised an `IndexError` (a 500 from the server's /api/validate; found by a
    review). A mistake in it is placed at its line and column, with the line shown."""
    rs = engine.load(BASE.replace("\n", end))
    assert rs.name == "coin"
    wrong = edit("d > 3", "d > nothing").replace("\n", end)
    d = one(wrong)
    line, col = at(wrong.replace(end, "\n"), "nothing")
    assert (d.code, d.span.line, d.span.col) == ("RC301", line, col), d
    assert "'hi' if d > nothing else 'lo'" in d.render()


@pytest.mark.parametrize("brk", ["\u2028", "\\u2028", "\\x85", "\u2029"])
def test_a_line_break_character_in_an_expression_is_a_placed_syntax_error(brk: str) -> None:
    """A U+2028 (or U+0085, U+2029) inside an expression, raw in its quotes or escaped as RC002's
    hint suggests, is a character the grammar does not take: the syntax error's line was read with
    `splitlines`, which splits at it, and the line lark named was past the last (an IndexError, a
    500 from /api/validate; found by review AD). It is RC201 at the character."""
    text = edit("d > 3", "d >" + brk + " 3")
    d = one(text)
    line, col = at(text, "d >")
    assert (d.code, d.span.line, d.span.col) == ("RC201", line, col + 3), d
    assert "unexpected character" in d.message and "'hi' if d >" in d.render()


# A shorthand where a mapping belongs: said once, as a mapping (the docs' word), with the mapping meant.


@pytest.mark.parametrize(
    ("old", "new", "token", "hint"),
    [
        ("d: {die: 6}", "d: 6", "6", "d: {die: 6}"),
        ("d: {die: 6}", "d: d6", "d6", "d: {die: 6}"),
        ("d: {die: 6}", "d: 2d6", "2d6", "d: {pool: 2, die: 6}"),
        ("      d: {die: 6}", "      - d: {die: 6}", "- d", "roll: {first: {die: 6}"),
        ("    roll:\n", "    inputs:\n      skill: int\n    roll:\n", "int", "skill: {type: int}"),
        (
            "outcome: \"'hi' if d > 3 else 'lo'\"",
            "outcome: \"'hi' if d > 3 else 'lo'\"\n    outputs: [margin]",
            "[margin]",
            "outputs: {margin: EXPR}",
        ),
    ],
)
def test_a_shorthand_where_a_mapping_belongs_is_one_rc103_with_the_mapping_meant(
    old: str, new: str, token: str, hint: str
) -> None:
    text = edit(old, new)
    d = one(text)
    assert d.code == "RC103" and "should be a mapping" in d.message and "object" not in d.message
    assert d.span is not None and (d.span.line, d.span.col) == at(text, token)
    assert d.hint is not None and hint in d.hint


def test_a_key_short_for_the_one_a_form_lacks_is_one_rc102_with_that_key() -> None:
    """`d: {d: 6}` had two messages for one mistake, RC105 (none of a roll entry's forms) and
    RC102 (unknown key 'd'), with no fix (hunt 4, F6): now one RC102 with the key meant."""
    text = edit("d: {die: 6}", "d: {d: 6}")
    d = one(text)
    assert (d.code, d.message, d.hint) == (
        "RC102",
        "unknown key 'd' in checks.flip.roll.d",
        "'d' is no key here: write die: 6",
    )
    assert d.span is not None and (d.span.line, d.span.col) == at(text, "d: 6")


@pytest.mark.parametrize(
    ("faces", "message", "hint"),
    [
        ("0", "this die has no faces", "at least 1 side"),
        ("-3", "this die has no faces", "at least 1 side"),
        ('"0"', "this die has no faces", "at least 1 side"),
        ("1001", "this die has 1,001 faces, over the limit of 1000", "at most 1000 faces"),
        ('"1..1001"', "this die has 1,001 faces, over the limit of 1000", "at most 1000 faces"),
        ('"6..1"', "this die has no faces", "1..6"),
    ],
)
def test_a_die_with_no_faces_or_too_many_is_rc310_however_it_is_written(
    faces: str, message: str, hint: str
) -> None:
    text = edit("d: {die: 6}", f"d: {{die: {faces}}}")
    d = one(text)
    assert (d.code, d.message) == ("RC310", message)
    assert d.span is not None and (d.span.line, d.span.col) == at(text, faces)
    assert d.hint is not None and hint in d.hint


TRIGGERED = edit(
    "d: {die: 6}",
    'd: {pool: 1, die: 6, cap: 2, triggers: [{ON: "face == 6", must: add}]}',
    "%YAML 1.1\n---\n" + edit("'hi' if d > 3", "'hi' if sum(d) > 6"),
)


@pytest.mark.parametrize("written", ["on", "On", "ON"])
def test_a_key_yaml_1_1_reads_as_true_is_one_rc102_saying_so(written: str) -> None:
    """Hunt 12b: under `%YAML 1.1`, which reads `on:` as the key `true`, a trigger's `on:` was two
    messages, neither the cause: RC101 "missing the required key 'on'" at the trigger, and RC102
    "unknown key 'true'" at the `on` the author wrote."""
    text = TRIGGERED.replace("ON:", f"{written}:")
    d = one(text)
    assert d.code == "RC102"
    assert d.message.startswith(f"the key '{written}' in checks.flip.roll.d.triggers.0 is read as true: "), (
        d.message
    )
    assert d.span is not None and (d.span.line, d.span.col) == at(text, f"{written}:")
    assert d.hint is not None and d.hint.startswith("quote the key ('on':)")
    fixed = text.replace(f"{written}:", "'on':")
    engine.load_source(SourceFile("fixed.yaml", fixed))  # the hint's quoted key loads


def test_an_unknown_key_yaml_1_1_reads_as_false_is_told_as_written() -> None:
    """Review AV: `off:` in a trigger under `%YAML 1.1` was "unknown key 'false'"."""
    text = TRIGGERED.replace("must: add}", "must: add, off: 1}").replace("ON:", "'on':")
    d = one(text)
    assert d.code == "RC102"
    assert d.message.startswith("unknown key 'off' in checks.flip.roll.d.triggers.0 (read as false: "), (
        d.message
    )
    assert d.span is not None and (d.span.line, d.span.col) == at(text, "off:")


def test_a_name_yaml_1_1_reads_as_true_is_one_rc307_saying_so() -> None:
    """Review AV: a `let` named `y` under `%YAML 1.1` was "'true' is a word of the expression
    language ... rename it, e.g. 'true_'"."""
    text = TRIGGERED.replace("ON:", "'on':").replace(
        "    outcomes:", "    let:\n      y: sum(d)\n    outcomes:"
    )
    found = diagnostics(text)
    said = [d for d in found if d.code == "RC307"]
    assert len(said) == 1 and said[0].message.startswith("the name 'y' is read as true: "), found
    assert said[0].span is not None and (said[0].span.line, said[0].span.col) == at(text, "y: sum")
    assert said[0].hint is not None and said[0].hint.startswith("quote the key ('y':)")


@pytest.mark.parametrize(("key", "written"), [("cap", "1.5"), ("cap", "2.50"), ("sets", "1.25")])
def test_a_fraction_where_a_whole_number_belongs_is_shown_as_written(key: str, written: str) -> None:
    """It was "should be a whole number, not a number" (hunt 13zh)."""
    text = (
        "rulecraft: 1\nname: x\nbags:\n  b:\n    chits: {a: 1}\n"
        + (f"    sets: {written}\n" if key == "sets" else "")
        + "checks:\n  c:\n    roll:\n      p: {pool: 2, die: 6, triggers: [{on: face == 6, must: add}]"
        + (f", cap: {written}" if key == "cap" else "")
        + "}\n    outcomes: [a]\n    outcome: \"'a'\"\n"
    )
    with pytest.raises(RulecraftError) as caught:
        engine.load(text)
    [d] = caught.value.diagnostics
    assert d.code == "RC103" and d.message.endswith(f".{key} should be a whole number, not {written}"), d


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ('"1/1' + "0" * 100 + '"', "a number written with 101 digits, over the limit of 100"),
        ('"0.' + "0" * 100 + '1"', "a number written with 102 digits, over the limit of 100"),
        ('"1/2"', None),
    ],
)
def test_an_expected_probability_too_long_to_read_says_so(written: str, said: str | None) -> None:
    """A fraction of 101 digits is a probability, but longer than a number is read: it was told
    "is not a probability" (hunt 13zh)."""
    text = (
        "rulecraft: 1\nname: x\nchecks:\n  c:\n    roll: {d: {die: 2}}\n    outcomes: [lo, hi]\n"
        "    outcome: \"'hi' if d == 2 else 'lo'\"\n"
        f"    examples:\n      - expect: {{probability: {{hi: {written}}}}}\n"
    )
    if said is None:
        engine.load(text)
        return
    with pytest.raises(RulecraftError) as caught:
        engine.load(text)
    [d] = caught.value.diagnostics
    assert d.code == "RC702" and d.message.endswith(f"is not a probability: {said}"), d
