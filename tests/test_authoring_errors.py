"""An author's mistakes are told in an author's words: YAML slips, dice notation, the command line.

Each mistake is one edit of a small valid ruleset; the expected line and column are found in the
edited text (where the mistake is), never copied from the engine's output, and the hint is pinned
to what it tells the author to write.
"""

from __future__ import annotations

import contextlib
import io
import re
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.cli import run
from engine.errors import LoadError, RulecraftError
from engine.syntax.positions import EXCERPT_WIDTH, SourceFile

BASE = """\
rulecraft: 1
name: coin
checks:
  flip:
    roll:
      d: {die: 2}
    outcomes: [tails, heads]
    outcome:
      - when: d == 2
        then: heads
      - else: tails
"""


def edit(old: str, new: str) -> str:
    assert BASE.count(old) == 1, old
    return BASE.replace(old, new)


def at(text: str, line_has: str, token: str) -> tuple[int, int]:
    """1-based line and column of `token` on the first line holding `line_has`."""
    for number, line in enumerate(text.splitlines(), start=1):
        if line_has in line:
            return number, line.index(token) + 1
    raise AssertionError(line_has)


def one(text: str) -> engine.Diagnostic:
    """Loading `text` fails with one diagnostic, drawn with its line and a caret."""
    with pytest.raises(RulecraftError) as info:
        engine.load_source(SourceFile("bad.yaml", text))
    assert len(info.value.diagnostics) == 1, str(info.value)
    d = info.value.diagnostics[0]
    assert d.span is not None
    rendered = str(info.value)
    line = text.splitlines()[d.span.line - 1]
    excerpt = d.span.excerpt()
    assert excerpt in rendered and "Traceback" not in rendered
    # the line, or a window of it around the place (`EXCERPT_WIDTH`), the caret under its token
    shown, carets = excerpt.split("\n")
    assert shown[2:].strip("…") in line and len(shown) <= EXCERPT_WIDTH + 4
    if d.span.col <= len(line):
        assert shown[carets.index("^")] == line[d.span.col - 1]
    return d


def test_the_base_is_valid() -> None:
    assert engine.load(BASE).distribution("flip").probability("heads") == 1 / 2


# -- YAML ----------------------------------------------------------------------------------------

YAML_MISTAKES = [
    # (what, the edit, the line and token the caret is on, what the message says, what the hint says)
    (
        "a key one space too far",
        ("    outcomes:", "     outcomes:"),
        ("     outcomes:", "outcomes"),
        "'outcomes' is indented 5 spaces, which lines up with no key above it",
        "indent it 6 spaces to go with 'd' (line 6), or 4 to go with 'roll' (line 5)",
    ),
    (
        "a key one space too little",
        ("    outcomes:", "   outcomes:"),
        ("   outcomes:", "outcomes"),
        "'outcomes' is indented 3 spaces",
        "indent it 4 spaces to go with 'roll' (line 5), or 2 to go with 'flip' (line 4)",
    ),
    (
        "then: one space too little",
        ("        then: heads", "       then: heads"),
        ("then: heads", "then"),
        "'then' is indented 7 spaces, which lines up with no key above it",
        "indent it 8 spaces to go with 'when' (line 9)",
    ),
    (
        "then: one space too far, read as more of when's value",
        ("        then: heads", "         then: heads"),
        ("then: heads", "then"),
        "line 10 is indented more than 'when' on line 9, so YAML reads it as more of when's value",
        "indent it 8 spaces to go with 'when' (line 9)",
    ),
    (
        "then: at the level of the list's dashes",
        ("        then: heads", "      then: heads"),
        ("then: heads", "then"),
        "'then' is indented 6 spaces, like the '-' of the list on line 9, where a key cannot stand",
        "indent it 8 spaces to go with 'when' (line 9)",
    ),
    (
        "a list item indented unlike its list",
        ("      - else: tails", "     - else: tails"),
        ("- else", "-"),
        "the list item on line 11 is indented 5 spaces",
        "indent it 6 spaces to go with the '-' on line 9",
    ),
    (
        "a tab for indentation",
        ("    outcomes:", "\toutcomes:"),
        ("\toutcomes", "\t"),
        "a tab in the indentation of line 7",
        "replace the tab with spaces",
    ),
    (
        "a when: that starts with a quote",
        ("when: d == 2", "when: 'heads' == 'x'"),
        ("'heads' == 'x'", "'heads'"),
        "the value of 'when' starts with a quote, so YAML takes only 'heads' as the value",
        """wrap the whole expression in double quotes: - when: "'heads' == 'x'\"""",
    ),
    (
        "an outcome: that starts with a quote",
        (
            "    outcome:\n      - when: d == 2\n        then: heads\n      - else: tails\n",
            "    outcome: 'heads' if d == 2 else 'tails'\n",
        ),
        ("outcome: 'heads'", "'heads'"),
        "the value of 'outcome' starts with a quote",
        """wrap the whole expression in double quotes: outcome: "'heads' if d == 2 else 'tails'\"""",
    ),
    (
        "an expression that starts with a double quote",
        ("when: d == 2", 'when: "x" == d'),
        ('"x" == d', '"x"'),
        "the value of 'when' starts with a quote",
        """wrap the whole expression in single quotes: - when: '"x" == d'""",
    ),
    (
        "a key without its colon",
        ("    outcomes: [tails, heads]", "    outcomes [tails, heads]"),
        ("outcomes [tails", "outcomes"),
        "'outcomes' has no ':' after it",
        "outcomes: [tails, heads]",
    ),
    (
        "a key with no space after its colon",
        ("    outcomes: [tails, heads]", "    outcomes:[tails, heads]"),
        ("outcomes:[tails", "outcomes"),
        "'outcomes:' has no space after its colon",
        "put a space after the colon: outcomes: [tails, heads]",
    ),
    (
        "a mapping key alone on its line, without its colon",
        ("    roll:\n", "    roll\n"),
        ("    roll", "roll"),
        "'roll' on line 5 has no ':' after it",
        "write a key with a colon: roll:",
    ),
    (
        "a list item among a mapping's keys",
        ("    outcomes: [tails, heads]", "    - outcomes: [tails, heads]"),
        ("- outcomes", "-"),
        "a list item ('- ') among the keys of a mapping",
        "remove the '- '",
    ),
    (
        "a value holding ': '",
        ("name: coin", "name: coin: flip"),
        ("name: coin: flip", ": flip"),
        "the value of 'name' holds ': '",
        'quote the whole value: name: "coin: flip"',
    ),
    # quoting the whole value, as for any ': ', made a rule row with no 'then' (found by a hunt)
    (
        "two keys of a rule row on one line",
        ("- when: d == 2\n        then: heads", "- when: d == 2 then: heads"),
        ("when: d == 2 then", ": heads"),
        "the value of 'when' holds ': '",
        "put 'then: heads' on a line of its own, lined up with 'when' (column 9)",
    ),
    (
        "a quote never closed",
        ("when: d == 2", 'when: "d == 2'),
        ('"d == 2', '"'),
        "a quote opened here is never closed",
        "close the quote",
    ),
    # the parser said "expected ',' or ']', but got ':'" at the next line (found by an audit)
    (
        "a list never closed",
        ("    outcomes: [tails, heads]", "    outcomes: [tails, heads"),
        ("outcomes: [tails", "["),
        "the list opened with '[' here is not closed: at line 8, column 12 YAML found ':'",
        "close the list with ']' after its last item",
    ),
    (
        "a mapping never closed",
        ("d: {die: 2}", "d: {die: 2"),
        ("d: {die", "{"),
        "the mapping opened with '{' here is not closed",
        "close the mapping with '}' after its last item",
    ),
    # closed, but a ',' missing: told at the item, not as a bracket left open (found by a review)
    (
        "two list items without a comma",
        ("    outcomes: [tails, heads]", '    outcomes: ["tails" "heads"]'),
        ('outcomes: ["tails" "heads"]', '"heads"'),
        "two items of the list opened at column 15 have no ',' between them",
        "put ',' before this item",
    ),
]


@pytest.mark.parametrize("mistake", YAML_MISTAKES, ids=[m[0] for m in YAML_MISTAKES])
def test_a_yaml_mistake_is_told_with_its_place_and_a_hint(mistake: tuple[object, ...]) -> None:
    _, (old, new), (line_has, token), message, hint = mistake
    assert isinstance(old, str) and isinstance(new, str)
    text = edit(old, new)
    d = one(text)
    assert isinstance(line_has, str) and isinstance(token, str)
    assert (d.code, d.span.line, d.span.col) == ("RC002", *at(text, line_has, token)), d.render()
    assert str(message) in d.message, d.message
    assert d.hint is not None and str(hint) in d.hint, d.hint
    assert "<block" not in d.message and "<scalar>" not in d.message


@pytest.mark.parametrize(
    ("opened", "later", "closed_at"),
    [
        # the hunt's: a title's quote left open, closed by the first quote of a rule five lines on
        ('name: "coin', '      - else: "tails"', (11, 15)),
        # closed inside a comment's quote: YAML reads no comment inside a quoted text
        ('name: "coin', '    # a d2: "heads" or tails\n    outcomes: [tails, heads]', (7, 13)),
        ("name: 'coin", "      - else: 'tails'", (11, 15)),  # the other kind of quote
    ],
)
def test_a_quote_closed_lines_later_is_told_at_the_quote(
    opened: str, later: str, closed_at: tuple[int, int]
) -> None:
    """A value's quote not closed on its line was closed by the next quote of its kind, lines on,
    and what followed that quote was told as a key indented wrong, at that later line (or a
    comment "indented more than 'skill'"), with a hint to re-indent a line that was right (hunt
    13zt, 2026-12-07). Told at the quote, naming where YAML read on to."""
    replaced = "      - else: tails" if later.startswith("      - else") else "    outcomes: [tails, heads]"
    text = edit(replaced, later).replace("name: coin", opened, 1)
    d = one(text)
    quote = opened[-5]
    assert (d.code, d.span.line, d.span.col) == ("RC002", 2, 7), d.render()
    line, col = closed_at
    assert d.message == (
        f"the quote opened here is not closed on its line: YAML reads on to the next {quote} at line {line},"
        f" column {col}, and takes every line between as one text"
    ), d.render()
    assert d.hint == "close the quote at the end of its value, on its own line, with the same kind of quote"
    fixed = text.replace(opened, opened + quote, 1)  # closed on its line: the file loads
    assert engine.load_source(SourceFile("good.yaml", fixed)).checks


STRAY_CLOSERS = [
    # (the edit, the line the stray bracket is on, message, hint); the bracket is the line's last
    (
        ("d: {die: 2}", "d: {die: 2}}"),
        "d: {die: 2}}",
        "a '}' that closes nothing: no mapping opened with '{'",
        "remove the '}': the '{' at column 10 is closed already, by the '}' at column 17",
    ),
    (
        ("    outcomes: [tails, heads]", "    outcomes: [tails, heads]]"),
        "outcomes: [tails, heads]]",
        "a ']' that closes nothing: no list opened with '['",
        "the '[' at column 15 is closed already",
    ),
    (
        ("    outcomes: [tails, heads]", "    }\n    outcomes: [tails, heads]"),
        "    }",
        "a '}' that closes nothing",
        "a mapping written as indented 'key: value' lines needs no brackets",
    ),
    (
        ("      - else: tails", "      - else: tails\n]"),
        "]",
        "a ']' that closes nothing",
        "a list written as indented '- ' lines needs no brackets",
    ),
    (("      - else: tails", "      - else: }"), "- else: }", "a '}' that closes nothing", "remove the '}'"),
    (
        ("    outcomes: [tails, heads]", "    outcomes: [tails, heads}"),
        "outcomes: [tails, heads}",
        "a '}' that closes nothing: the list opened with '[' at line 7, column 15 is open here, "
        "not a mapping",
        "close that list with ']' instead",
    ),
    (
        ("d: {die: 2}", "d: {die: 2]"),
        "d: {die: 2]",
        "a ']' that closes nothing: the mapping opened with '{' at line 6, column 10 is open here, "
        "not a list",
        "close that mapping with '}' instead",
    ),
]


@pytest.mark.parametrize("mistake", STRAY_CLOSERS, ids=[m[0][1].strip() for m in STRAY_CLOSERS])
def test_a_closing_bracket_that_closes_nothing_is_told_at_the_bracket(mistake: tuple[object, ...]) -> None:
    """A stray '}' was told as an indentation error, at the key before it ("'d' is indented 6
    spaces, which lines up with no key above it"); a ']' in a '{...}' as two items without a ','
    (found by an audit). Now: at the bracket, that it closes nothing."""
    (old, new), line_has, message, hint = mistake
    assert isinstance(old, str) and isinstance(new, str) and isinstance(line_has, str)
    text = edit(old, new)
    d = one(text)
    number = max(n for n, line in enumerate(text.splitlines(), start=1) if line.rstrip().endswith(line_has))
    column = len(text.splitlines()[number - 1].rstrip())
    assert (d.code, d.span.line, d.span.col) == ("RC002", number, column), d.render()
    assert str(message) in d.message, d.message
    assert d.hint is not None and str(hint) in d.hint, d.hint
    assert "indented" not in d.message and "<block" not in d.message


def test_other_yaml_errors_keep_the_parser_words() -> None:
    """A mistake none of the rules recognise is still RC002 at the parser's place."""
    text = edit("d: {die: 2}", "d: *nowhere")
    d = one(text)
    assert d.code == "RC002" and "undefined alias" in d.message, d.message


KEY_LINES = [n for n, line in enumerate(BASE.splitlines()) if re.match(r"^ +(- )?\w+:", line)]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(KEY_LINES), st.sampled_from([-3, -1, 1, 3]))
def test_any_key_indented_off_gives_one_diagnostic_never_parser_jargon(line: int, shift: int) -> None:
    """Shifting any indented key of the ruleset some spaces either still loads (YAML read it
    another way, and a later stage says what is wrong) or is one diagnostic without the parser's
    token names; an RC002 always carries a hint."""
    lines = BASE.splitlines()
    body = lines[line].lstrip(" ")
    indent = len(lines[line]) - len(body)
    lines[line] = " " * max(0, indent + shift) + body
    text = "\n".join(lines) + "\n"
    try:
        engine.load_source(SourceFile("bad.yaml", text))
    except RulecraftError as exc:
        d = exc.diagnostics[0]
        assert "<block" not in d.message and "<scalar>" not in d.message and "found '?'" not in d.message
        if d.code == "RC002":
            assert d.hint, d.render()


# -- dice notation -------------------------------------------------------------------------------

DICE = [
    (
        "d: {die: 2}",
        "d: {die: 2d6}",
        "2d6",
        "for 2 dice write a pool: pool: 2 with die: 6 (then read sum(d))",
    ),
    ("d: {die: 2}", "d: {die: d6}", "d6", "write the number of sides alone: die: 6"),
    ("d: {die: 2}", "d: {die: 1d20}", "1d20", "write the number of sides alone: die: 20"),
    (
        "d: {die: 2}",
        'd: {die: "3D8"}',
        '"3D8"',
        "for 3 dice write a pool: pool: 3 with die: 8 (then read sum(d))",
    ),
    (
        "d: {die: 2}",
        "d: {pool: 3, die: 2d6}",
        "2d6",
        "'die:' is one die's faces and 'pool:' how many: write die: 6",
    ),
    ("d: {die: 2}", "d: {pool: 2d6}", "2d6", "'pool:' is how many dice: write pool: 2 with die: 6"),
    ("d: {die: 2}", "d: {die: dF}", "dF", 'a dF die is the faces -1..1: write die: "-1..1"'),
    ("d: {die: 2}", "d: {die: F}", "F", 'a dF die is the faces -1..1: write die: "-1..1"'),
    (
        "d: {die: 2}",
        "d: {die: 4dF}",
        "4dF",
        "a dF die is the faces -1..1: for 4 of them write a pool: "
        'pool: 4 with die: "-1..1" (then read sum(d))',
    ),
    ("d: {die: 2}", "d: {pool: 4, die: 4df}", "4df", 'a dF die is the faces -1..1: write die: "-1..1"'),
    (
        "d: {die: 2}",
        'd: {die: "d6+1"}',
        '"d6+1"',
        "write die: 6, and add 1 where it is read: a let such as total: d + 1",
    ),
    (
        "d: {die: 2}",
        'd: {die: "2d6 - 2"}',
        '"2d6 - 2"',
        "write a pool, pool: 2 with die: 6, and take 2 off where it is read: a let such as total: sum(d) - 2",
    ),
    (
        "d: {die: 2}",
        'd: {pool: 3, die: "d8+1"}',
        '"d8+1"',
        "write die: 8, and add 1 where the pool is read: sum(d) + 1",
    ),
]


@pytest.mark.parametrize("old, new, token, hint", DICE, ids=[d[1] for d in DICE])
def test_dice_notation_gets_the_right_form(old: str, new: str, token: str, hint: str) -> None:
    text = edit(old, new)
    d = one(text)
    assert d.span is not None
    assert (d.code, d.span.line, d.span.col) == ("RC310", *at(text, new, token))
    assert "dice notation" in d.message and d.hint == hint


@pytest.mark.parametrize(
    ("new", "hint"),
    [
        ("d: 4dF", 'a pool of dice is a mapping: d: {pool: 4, die: "-1..1"}'),
        ("d: dF", 'a die is a mapping: d: {die: "-1..1"}'),
        ('d: "2d6-1"', "a pool of dice is a mapping: d: {pool: 2, die: 6}, read as sum(d) - 1"),
        ('d: "d8 + 2"', "a die is a mapping: d: {die: 8}, read as d + 2"),
        ("d: 2d6", "a pool of dice is a mapping: d: {pool: 2, die: 6}"),
    ],
)
def test_a_roll_entry_written_as_notation_is_told_the_mapping(new: str, hint: str) -> None:
    d = one(edit("d: {die: 2}", new))
    assert (d.code, d.hint) == ("RC103", hint)


def test_the_fudge_die_the_hint_names_loads_with_its_three_faces() -> None:
    """`die: dF` is told `die: "-1..1"`: written so, it loads, and its faces are -1, 0 and +1."""
    text = edit("d: {die: 2}", 'd: {die: "-1..1"}')
    check = engine.load_source(SourceFile("fudge.yaml", text)).model.checks
    [die] = [r for c in check.values() for r in c.roll if r.name == "d"]
    assert tuple(die.faces) == (-1, 0, 1)


def test_a_name_where_faces_go_is_left_to_the_compiler() -> None:
    """`die: sides` is a name, not dice notation: it is reported as the name it is."""
    d = one(edit("d: {die: 2}", "d: {die: sides}"))
    assert d.code == "RC301" and "dice notation" not in d.message


# -- the command line ----------------------------------------------------------------------------


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "argv, usage, hint",
    [
        (
            ("roll", "chill", "specific", "target=50"),
            "usage: rulecraft roll ",
            "did you mean `--input target=50`?",
        ),
        (
            ("prob", "chill", "specific", "target=50"),
            "usage: rulecraft prob ",
            "did you mean `--input target=50`?",
        ),
        (("campaign", "act", "c", "hit", "skill=2"), "usage: rulecraft campaign act ", "`--input skill=2`"),
        (("scene", "prob", "castle", "duel", "x=1"), "usage: rulecraft scene prob ", "`--param x=1`"),
        # a party's parameter is given with --party (it was told as `--param you.fencing=1`)
        (
            ("scene", "roll", "castle", "duel", "you.fencing=1"),
            "usage: rulecraft scene roll ",
            "`--party you:fencing=1`",
        ),
        # a grid's values fit no option of `scene roll`: not `--param you.fencing=1,2`, but the
        # command that takes `--grid`
        (
            ("scene", "roll", "castle", "duel", "--grid", "you.fencing=1,2"),
            "usage: rulecraft scene roll ",
            "(`--grid` is an option of `rulecraft scene prob`, not of `rulecraft scene roll`)",
        ),
        (
            ("scene", "roll", "castle", "duel", "--grid", "cinematic=1..2"),
            "usage: rulecraft scene roll ",
            "(`--grid` is an option of `rulecraft scene prob`, not of `rulecraft scene roll`)",
        ),
        (("scene", "roll", "castle", "duel", "cinematic=1..2"), "usage: rulecraft scene roll ", None),
        (("roll", "chill", "specific", "you.target=50"), "usage: rulecraft roll ", None),  # no --party
        (("roll", "chimera", "pool", "dice=3,1"), "usage: rulecraft roll ", "`--input dice=3,1`"),  # a list
        (("validate", "rulesets", "--strictly"), "usage: rulecraft validate ", None),
        (("roll", "chill"), "usage: rulecraft roll ", None),
        # `join` takes only --limit NAME=VALUE: a character's parameter was told `--limit starting_ti=3`
        (
            ("campaign", "join", "t", "anna", "--param", "starting_ti=3"),
            "usage: rulecraft campaign join ",
            "; a character's parameters follow its name: `CHARACTER:starting_ti=3`)",
        ),
        (
            ("campaign", "join", "t", "anna", "max_work=9"),
            "usage: rulecraft campaign join ",
            "`--limit max_work=9`",
        ),
        # a die's face given bare: `--force`, where the command names the check (hunt 13zx) ...
        (
            ("roll", "chill", "specific", "--force", "tens=7", "ones=7"),
            "usage: rulecraft roll ",
            "(did you mean `--force ones=7`?)",
        ),
        (
            ("roll", "chimera", "skill", "rolled=9,5"),
            "usage: rulecraft roll ",
            "(did you mean `--force rolled=9,5`?)",
        ),
        # ... both options it may be where its check is not known here (an action's)
        (
            ("campaign", "act", "c", "hit", "tens=7"),
            "usage: rulecraft campaign act ",
            "(did you mean `--input tens=7`, or `--force tens=7` to fix a die or draw?)",
        ),
        # after an option the command does not take, the value is that option's: the option it
        # is spelt like, or the commands that take it; never `--input tens=7` (hunts 13zx, 13zy)
        (
            ("roll", "chill", "specific", "--forced", "tens=7", "--forced", "ones=7"),
            "usage: rulecraft roll ",
            "(did you mean `--force tens=7`?)",
        ),
        (
            ("prob", "chthonian", "standard", "--force", "die=8"),
            "usage: rulecraft prob ",
            "(`--force` is an option of `rulecraft roll`, `rulecraft campaign act` and "
            "`rulecraft campaign roll`, not of `rulecraft prob`; 'die' is a die of the check, not an input: "
            "`rulecraft roll` fixes it with `--force die=8`)",
        ),
        (
            ("prob", "chill", "specific", "--force=tens=7"),
            "usage: rulecraft prob ",
            "not of `rulecraft prob`; 'tens' is a die of the check",
        ),
        (
            ("prob", "chill", "specific", "tens=7"),
            "usage: rulecraft prob ",
            "'tens' is a die of the check, not an input: `rulecraft roll` fixes it with",
        ),
        # the option spelt like the one given must read such a value (hunt 13zzb): not `--json`,
        # `--seed`, nor `--limit` for a name that is no bound
        (
            ("roll", "chill", "specific", "--jsn", "target=50"),
            "usage: ",
            "(did you mean `--input target=50`?)",
        ),
        (
            ("roll", "chill", "specific", "--seeds", "target=5"),
            "usage: ",
            "(did you mean `--input target=5`?)",
        ),
        (
            ("roll", "chill", "specific", "--limits", "target=5"),
            "usage: ",
            "(did you mean `--input target=5`?)",
        ),
        (("prob", "chill", "specific", "--inputs", "target=1..5"), "usage: ", "`--sweep target=1..5`?"),
        (
            ("scene", "prob", "castle", "duel", "--partys", "you.fighting=good"),
            "usage: ",
            "(did you mean `--party you:fighting=good`?)",
        ),
        # ... and the dice of the check decide between `--force` and `--input` (hunt 13zzc)
        (
            ("roll", "chill", "specific", "--forced", "target=50"),
            "usage: ",
            "did you mean `--input target=50`?",
        ),
        (("roll", "chill", "specific", "--inputs", "tens=7"), "usage: ", "(did you mean `--force tens=7`?)"),
        # a die takes one face; a pool one per die
        (("roll", "chill", "specific", "tens=3,4"), "usage: ", "(did you mean `--force tens=3`?)"),
        # several values: an input's list or a sweep's values; a dotted name is a party's
        (
            ("prob", "chill", "specific", "target=1,5"),
            "usage: ",
            "(did you mean `--input target=1,5` or `--sweep target=1,5`?)",
        ),
        (("prob", "chill", "specific", "--sweeps", "target=1,5"), "usage: ", "`--sweep target=1,5`?)"),
        (
            ("scene", "prob", "castle", "duel", "--params", "you.fighting=good"),
            "usage: ",
            "(did you mean `--party you:fighting=good`?)",
        ),
        # a character's option `NAME[:KEY=VALUE,...]` reads no parameter: never `--character x=1`
        (
            ("campaign", "new", "c5", "chthonian", "--charcter", "starting_ti=3"),
            "usage: ",
            "(did you mean `--param starting_ti=3`?)",
        ),
        # `show` takes no face either: the die is said as a die, not as one this command solves
        (
            ("show", "chill", "specific", "tens=7"),
            "usage: rulecraft show ",
            "('tens' is a die of the check, not an input: `rulecraft roll` fixes it with `--force tens=7`)",
        ),
        (("prob", "chill", "specific", "tens=1..5"), "usage: ", None),
        # an option of other commands that reads another kind of value: only theirs is said
        (
            ("roll", "chill", "specific", "-o", "x=y"),
            "usage: ",
            "(`-o` is an option of `rulecraft campaign act` and `rulecraft campaign prob`, not of "
            "`rulecraft roll`)",
        ),
        (
            ("roll", "chill", "specific", "-p", "target=50"),
            "usage: ",
            "not of `rulecraft roll`; did you mean `--input target=50`?)",
        ),
        (
            ("scene", "prob", "chthonian", "combat", "--force", "die=3"),
            "usage: rulecraft scene prob ",
            "not of `rulecraft scene prob`)",
        ),
        (
            ("prob", "chill", "specific", "--frobble", "x=1"),
            "usage: rulecraft prob ",
            "(did you mean `--input x=1`?)",
        ),
        # a bare word to a command whose actor is `-c NAME`, given none (hunt 13zy)
        (
            ("campaign", "act", "walt", "insight_roll", "walter"),
            "usage: rulecraft campaign act ",
            "(did you mean `-c walter`, for an action a character takes?)",
        ),
        (("campaign", "act", "walt", "insight_roll", "-c", "walter", "walter"), "usage: ", None),
        (("campaign", "act", "walt", "insight_roll", "-cwalter", "bob"), "usage: ", None),
        (("campaign", "act", "walt", "insight_roll", "--char", "walter", "bob"), "usage: ", None),
        (("campaign", "new", "c3", "chill", "word"), "usage: ", None),  # its -c is not an actor
    ],
)
def test_a_usage_error_prints_the_subcommands_own_usage(
    argv: tuple[str, ...], usage: str, hint: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = cli(*argv)
    err = capsys.readouterr().err  # argparse writes its usage to the process's stderr
    assert code == 2 and out == ""
    assert err.startswith(usage), err
    assert "{validate,list" not in err  # not the top level's usage
    if hint is not None:
        assert hint in err, err
    else:
        assert "did you mean" not in err and "is an option of" not in err and "is a die" not in err
    assert "`--character starting_ti" not in err and "`--sweep tens" not in err
    assert "`--limit starting_ti" not in err  # a bound's option offered only for a bound's name
    if argv[0] != "campaign":  # where the check is known, a die is never offered as an input
        assert "`--input tens" not in err and "`--input die" not in err and "`--input rolled" not in err
    if hint is None or "--force" not in hint:  # and an input never as a die
        assert "`--force target" not in err


@pytest.mark.parametrize(
    "argv, what, example",
    [
        (("prob", "chimera", "skill", "-i", "dice=3", "--input", "rolled=0,4,9"), "die", "rolled=0,4,9"),
        (("roll", "chill", "specific", "-i", "target=70", "--input", "tens=7"), "die", "tens=7"),
        (("roll", "castle", "combat", "--input", "beads=poor"), "draw", "beads=poor"),
        # the example is one a roll accepts, never the value echoed (hunt 13zzb): a face that is
        # none of the die's is its middle face, `07` is 7, an empty or spaced value a face too
        (("roll", "chill", "specific", "-i", "target=5", "-i", "tens=11"), "die", "tens=5"),
        (("roll", "chill", "specific", "-i", "target=5", "-i", "tens=07"), "die", "tens=7"),
        (("roll", "chill", "specific", "-i", "target=5", "-i", "tens="), "die", "tens=5"),
        (("roll", "chill", "specific", "-i", "target=5", "-i", "tens=a b"), "die", "tens=5"),
        (("roll", "chill", "specific", "-i", "target=5", "-i", "tens=7,3"), "die", "tens=7"),
        (("roll", "castle", "combat", "--input", "beads=poor,gold"), "draw", "beads=poor,average"),
    ],
)
def test_a_die_given_as_an_input_is_told_as_a_die(argv: tuple[str, ...], what: str, example: str) -> None:
    """A die or draw given as an input was "no input 'tens'" with "did you mean 'tokens'?", another
    input with another meaning (hunt 13zx): it is told as the check's die, with how a roll fixes
    it (an example `roll` takes), and that the exact odds take every face."""
    code, out, err = cli(*argv)
    name = example.split("=")[0]
    assert code == 1 and out == ""
    assert f"error RC402: check '{argv[2]}' has no input '{name}'" in err
    assert f"'{name}' is a {what} of check '{argv[2]}', not an input" in err, err
    assert f"--force {example} (from Python, a roll's forced={{'{name}': [" in err, err
    assert "the exact odds take every " in err and "did you mean" not in err
    inputs = [w for w in argv[3:] if w != "--input" and w != "-i" and not w.startswith(f"{name}=")]
    given = [x for i in inputs for x in ("-i", i)] if argv[1] != "castle" else []
    code, out, err = cli("roll", argv[1], argv[2], *given, "--force", example, "--no-trace")
    # each face is one `roll` takes; how many a pool or a draw takes is known only at the roll,
    # which says so in its own RC405 (its count reads the inputs: `beads_for(level)`)
    assert code == 0 or "RC405" in err and ("ran out" in err or "never used" in err), err
    assert "is not a face" not in err and "not left in bag" not in err


def test_a_die_given_as_an_input_in_python_and_over_http() -> None:
    """The same from Python (one diagnostic, its advice for a client of the API worded in a
    request's terms), and a misspelt input beside it still gets its nearest name; a value with no
    text (a whole number of 5,000 digits) or of another type still gets one RC402 and an example."""
    from engine.serve.advice import api_hint

    chill = engine.load("chill")
    with pytest.raises(engine.InputError) as raised:
        chill.distribution("specific", target=55, tens=7, tokns=2)
    die, misspelt = raised.value.diagnostics
    assert die.hint is not None and "forced={'tens': [7]}" in die.hint
    assert api_hint(die) == (
        "'tens' is a die of check 'specific', not an input: a request that rolls it (a roll, an "
        'action) takes its face as "force": {"tens": [7]}; the exact odds take every face'
    )
    assert (misspelt.message, misspelt.hint) == (
        "check 'specific' has no input 'tokns'",
        "did you mean 'tokens'?",
    )
    for value in (10**5000, [10**5000], True, None, 2.5, {}, [], list(range(10_000))):
        with pytest.raises(engine.InputError) as raised:
            chill.roll("specific", target=50, tens=value)
        [d] = raised.value.diagnostics
        assert d.code == "RC402" and d.hint is not None
        assert "--force tens=5 " in d.hint or "--force tens=0 " in d.hint, d.hint
    # what the hint says works: the forced face is taken by a roll
    result = chill.roll("specific", target=55, forced={"tens": [7], "ones": [2]})
    assert result.rolled == {"tens": 7, "ones": 2}


FORCED = [
    # (command, the message, the example in the hint)
    (
        ("roll", "chimera", "pool", "--input", "dice=2", "--force", "rolled=6"),
        "forced rolled ran out: 1 face given, but the roll needs at least 2",
        "--force rolled=6,5",
    ),
    (
        ("roll", "chimera", "skill", "--input", "dice=2", "--force", "rolled=9,5"),
        "forced rolled ran out: 2 faces given, but the roll needs at least 3, counting the dice "
        "rerolls and triggers roll again",
        "--force rolled=9,5,5",
    ),
    (
        ("roll", "castle", "task", "--input", "skill=advantaged", "--force", "beads=good"),
        "forced beads ran out: 1 chit given, but the roll needs at least 2",
        "--force beads=good,poor",  # the bag's chits in turn, each as often as it is there
    ),
]


@pytest.mark.parametrize("argv, message, example", FORCED, ids=["pool", "trigger", "draw"])
def test_forced_faces_that_run_out_say_how_many_the_roll_needs(
    argv: tuple[str, ...], message: str, example: str
) -> None:
    code, out, err = cli(*argv)
    assert code == 1 and "error RC405: " + message in err, err
    assert "hint: " in err and f"e.g. {example} " in err, err
    # the example is right: forcing it rolls without the error
    name, faces = example.split(" ")[1].split("=")
    fixed = [*argv[: argv.index("--force")], "--force", f"{name}={faces}"]
    code, out, err = cli(*fixed)
    assert code == 0, err


AGAIN = """\
rulecraft: 1
name: again
bags:
  fate: {chits: {black: 3, grey: 4, white: 2}}
checks:
  duel:
    roll:
      mine: {die: 6}
      theirs: {die: 6}
    outcomes: [lose, win]
    outcome:
      - when: mine > theirs
        then: win
      - when: mine < theirs
        then: lose
      - else: again
  boom:
    roll:
      p: {pool: 1, die: 6, triggers: [{on: face == 6, must: add}]}
    outcomes: [lo, hi]
    outcome:
      - when: sum(p) > 7
        then: hi
      - when: sum(p) < 3
        then: lo
      - else: again
  pick:
    roll:
      b: {draw: fate}
    outcomes: [lo, hi]
    outcome:
      - when: best(b) == 'white'
        then: hi
      - when: best(b) == 'black'
        then: lo
      - else: again
"""

FORCED_AGAIN = [
    # (check and forced dice, the message); the first attempt is made again (a tie, a sum of 7, grey)
    (
        ("duel", "--force", "mine=4", "--force", "theirs=4"),
        "forced mine ran out: 1 face given, but the roll needs at least 2, counting the dice of the "
        "check made again",
    ),
    (
        ("boom", "--force", "p=6,1"),
        "forced p ran out: 2 faces given, but the roll needs at least 3, counting the dice rerolls "
        "and triggers roll again and the check made again",
    ),
    (
        ("pick", "--force", "b=grey"),
        "forced b ran out: 1 chit given, but the roll needs at least 2, counting the chits of the "
        "check made again",
    ),
]


@pytest.mark.parametrize("argv, message", FORCED_AGAIN, ids=["dice", "trigger", "draw"])
def test_forced_dice_that_run_out_in_an_attempt_made_again_say_so(
    argv: tuple[str, ...], message: str, tmp_path: Path
) -> None:
    """Forced faces taken by an attempt a rule `then: again` made again are counted as the check
    made again, not put down to rerolls and triggers (which `duel` and `pick` have none of); the
    hint says the faces go on attempt after attempt."""
    path = tmp_path / "again.yaml"
    path.write_text(AGAIN)
    code, out, err = cli("roll", str(path), *argv)
    assert code == 1 and "error RC405: " + message + "\n" in err, err
    assert "attempt after attempt of the check made again" in err, err


def test_forced_dice_that_run_out_from_python_show_the_python_form() -> None:
    with pytest.raises(engine.InputError) as info:
        engine.load("chimera").roll("pool", forced={"rolled": [6]}, dice=2)
    assert "forced={'rolled': [6, 5]}" in (info.value.diagnostics[0].hint or "")


def test_load_error_is_a_load_error() -> None:
    with pytest.raises(LoadError):
        engine.load_source(SourceFile("bad.yaml", edit("    outcomes:", "\toutcomes:")))


def test_a_check_that_does_not_compile_is_not_also_an_unknown_check_in_actions(repo_root: Path) -> None:
    """One mistake, one message: the actions that roll the broken check stay quiet, instead of
    each saying "unknown check 'specific'" with the hint "did you mean 'specific'?"."""
    text = (repo_root / "rulesets" / "chill.yaml").read_text(encoding="utf-8")
    broken = text.replace(
        "outcome: specific_band(roll, doubles, final_target)", "outcome: specific_band(roll, doubles, +)"
    )
    assert broken != text and "check: specific" in text
    with pytest.raises(RulecraftError) as caught:
        engine.load_source(SourceFile("chill.yaml", broken))
    codes = [d.code for d in caught.value.diagnostics]
    assert codes == ["RC201"], codes


# -- what a newcomer writes wrong in an expression -----------------------------------------------

RICH = """\
rulecraft: 1
name: fortune
checks:
  fortune:
    inputs:
      bonus: {type: int, min: 0, max: 5, default: 0}
      sizes: {type: list, max_length: 3, default: [1]}
    roll:
      pool: {pool: 3, die: 6}
      first: {die: 6}
    let:
      sixes: count(pool, 6)
      kept: highest(pool) + first
      total: kept + bonus
      lucky: sixes > 1
    outcomes: [failure, success]
    outcome:
      - when: sixes >= 2 and total > 3
        then: success
      - else: failure
"""


def rich(old: str, new: str) -> str:
    assert RICH.count(old) == 1, old
    return RICH.replace(old, new)


def test_the_rich_base_is_valid() -> None:
    assert engine.load(RICH).distribution("fortune").probability("success") > 0


@pytest.mark.parametrize(
    "old, new, token, hint",
    [
        # a value that names no die is reckoned before the roll, where no die is: the nearest is
        # still offered (naming it rightly moves the value after the roll)
        ("sixes: count(pool, 6)", "sixes: count(pol, 6)", "pol", "did you mean 'pool'?"),
        ("kept: highest(pool) + first", "kept: highest(pool) + frist", "frist", "did you mean 'first'?"),
        ("total: kept + bonus", "total: kep + bonus", "kep", "did you mean 'kept'?"),
    ],
)
def test_a_misspelt_die_or_later_value_gets_its_nearest_name(
    old: str, new: str, token: str, hint: str
) -> None:
    text = rich(old, new)
    d = one(text)
    assert d.span is not None
    assert (d.code, d.span.line, d.span.col) == ("RC301", *at(text, new, token))
    assert d.hint == hint


def test_auto_rules_are_not_offered_a_die() -> None:
    """An auto rule is decided before the roll: a die is no name it could mean."""
    text = rich(
        "    outcomes: [failure, success]\n",
        "    auto:\n      - {when: pol > 9, then: success}\n    outcomes: [failure, success]\n",
    )
    d = one(text)
    assert d.code == "RC301" and d.hint != "did you mean 'pool'?"


@pytest.mark.parametrize(
    "condition, code, hint",
    [
        ("sixes => 2", "RC201", "'=>' is written '>='"),
        ("sixes =< 2", "RC201", "'=<' is written '<='"),
        ("sixes = 2", "RC201", "comparison is written '==' (a single '=' is not an operator)"),
        ("1 < sixes < 3", "RC201", "comparisons do not chain: join two with 'and', as in 1 < x and x < 3"),
        ("sixes == 2 == 2", "RC201", "comparisons do not chain: join two with 'and', as in 1 < x and x < 3"),
        # found by hunt 13y: each of these was told that comparisons do not chain, that `not` cannot
        # name a value, or that `=` is written `==`
        ("sixes <> 2", "RC201", "'<>' is written '!='"),
        ("sixes >> 1 > 0", "RC201", "'>>' is no operator; a comparison is one of <, <=, >, >=, ==, !="),
        ("sixes << 1 > 0", "RC201", "'<<' is no operator; a comparison is one of <, <=, >, >=, ==, !="),
        (
            "lucky == not lucky",
            "RC201",
            "'not' binds more loosely than operators and comparisons: put it in brackets, as in f == (not g)",
        ),
        (
            "sixes += 2",
            "RC201",
            "'+=' is no operator: an expression changes no value; write the new value, as in sixes + 2",
        ),
        ("sixes > = 1", "RC201", "'>=' is written without a space"),
        # and by hunt 13zc: these were told that comparison is written '==', or '!' is 'not'
        ("sixes === 1", "RC201", "'==' is followed by another '=': write '==' alone"),
        ("sixes !== 1", "RC201", "'!=' is followed by another '=': write '!=' alone"),
        ("sixes <== 1", "RC201", "'<=' is followed by another '=': write '<=' alone"),
        ("sixes ! = 1", "RC201", "'!=' is written without a space"),
        (
            "sixes ** = 2 > 1",
            "RC201",
            "'**=' is no operator: an expression changes no value; write the new value, as in sixes ** 2",
        ),
        ("sixes", "RC304", "a condition is true or false: compare the number, e.g. sixes > 0"),
        ("lucky + 1 > 1", "RC304", "true/false is no number: write 1 if lucky else 0"),
        (
            "total + 'success' > 3",
            "RC304",
            "a scale's values are names, not numbers: compare them (== 'NAME'), "
            "or give each one a number with a table",
        ),
        (
            "pool > 3",
            "RC304",
            "a pool or list holds several values: compare one number read from it, "
            "such as count(), sum(), highest() or lowest()",
        ),
        (
            "sixes + pool > 3",
            "RC304",
            "a pool or list holds several values: count(), sum(), highest() or lowest() read one number",
        ),
    ],
)
def test_a_wrong_condition_says_what_to_write(condition: str, code: str, hint: str) -> None:
    d = one(rich("      - when: sixes >= 2 and total > 3", f'      - when: "{condition}"'))
    assert (d.code, d.hint) == (code, hint)


def test_an_unquoted_decimal_is_told_to_be_quoted() -> None:
    text = rich("      lucky: sixes > 1", "      lucky: sixes > 1\n      rate: 1.5")
    d = one(text)
    assert d.span is not None
    assert (d.code, d.span.line, d.span.col) == ("RC103", *at(text, "rate: 1.5", "1.5"))
    assert d.hint == 'an exact number is written as an expression, in quotes: "1.5"'
    engine.load(text.replace("rate: 1.5", 'rate: "1.5"'))  # and so it is


def test_a_repeated_key_names_the_key_and_its_first_line() -> None:
    text = rich(
        "    outcomes: [failure, success]\n", "    outcomes: [failure, success]\n    outcome: sixes\n"
    )
    d = one(text)
    assert d.span is not None
    first = at(text, "outcome: sixes", "outcome")[0]
    second = next(n for n, line in enumerate(text.splitlines(), 1) if line == "    outcome:")
    assert (d.code, d.span.line) == ("RC002", second) and first < second
    assert d.message == "YAML syntax error: the key 'outcome' appears twice in one mapping"
    assert d.hint == f"each key may appear once in a mapping; the first is on line {first}"
    assert "[" not in d.message and "{" not in d.message  # no Python data of ruamel's


@pytest.mark.parametrize(
    "line, lists",
    [
        ("      bonus: {type: int, min: 0, max: 5, default: 0}", False),
        ("      sizes: {type: list, max_length: 3, default: [1]}", True),
    ],
)
def test_an_unknown_input_key_offers_the_keys_of_its_kind(line: str, lists: bool) -> None:
    d = one(rich(line, line.replace("}", ", colour: red}")))
    assert d.code == "RC102" and d.hint is not None
    offered = set(d.hint.removeprefix("allowed keys: ").split(", "))
    assert {"type", "min", "max", "default", "description"} <= offered
    assert ({"of", "min_length", "max_length"} <= offered) is lists
    assert "choices" not in offered  # a choice's key, which a number refuses (RC310)


@pytest.mark.parametrize(
    "written, offered",
    [
        ("{type: bool, default: false, colour: red}", {"type", "default", "description"}),
        ("{type: choice, choices: [a, b], colour: red}", {"type", "default", "choices", "description"}),
    ],
)
def test_an_unknown_key_of_a_bool_or_choice_input_is_offered_no_bound(
    written: str, offered: set[str]
) -> None:
    d = one(rich("      bonus: {type: int, min: 0, max: 5, default: 0}", f"      bonus: {written}"))
    assert d.code == "RC102" and d.hint is not None
    assert set(d.hint.removeprefix("allowed keys: ").split(", ")) == offered


@pytest.mark.parametrize(
    "line, key, message, hint",
    [
        (
            "      bonus: {type: int, choices: [1, 2], default: 1}",
            "choices",
            "'choices' belongs to a choice input, and 'bonus' is not one (it is int)",
            "write 'type: choice' to make it one of the names, or remove the key",
        ),
        (
            "      bonus: {type: number, choices: [low, high], default: 0}",
            "choices",
            "'choices' belongs to a choice input, and 'bonus' is not one (it is number)",
            "write 'type: choice' to make it one of the names, or remove the key",
        ),
        (
            "      bonus: {choices: [low, high], default: 0}",
            "choices",
            "'choices' belongs to a choice input, and 'bonus' is not one (it is int)",
            "write 'type: choice' to make it one of the names, or remove the key",
        ),
        (
            "      bonus: {type: bool, min: 0, default: false}",
            "min",
            "'min' bounds a number, and 'bonus' is a bool input",
            "remove the key: a bool input is true or false",
        ),
        (
            "      bonus: {type: bool, default: false, max: 1}",
            "max",
            "'max' bounds a number, and 'bonus' is a bool input",
            "remove the key: a bool input is true or false",
        ),
        (
            "      bonus: {type: choice, choices: [low, high], max: 3, default: low}",
            "max",
            "'max' bounds a number, and 'bonus' is a choice input",
            "remove the key: a choice input is one of its choices",
        ),
    ],
    ids=[
        "choices on an int",
        "choices on a number",
        "choices on an untyped input",
        "min on a bool",
        "max on a bool",
        "max on a choice",
    ],
)
def test_a_key_the_inputs_type_does_not_take_is_refused_at_the_key(
    line: str, key: str, message: str, hint: str
) -> None:
    """`choices` belongs to `type: choice`, `min`/`max` to numbers (docs/language.md, Inputs):
    on another input they had been ignored, silently."""
    text = rich("      bonus: {type: int, min: 0, max: 5, default: 0}", line)
    text = (
        text.replace("total: kept + bonus", "total: kept + (1 if bonus else 0)") if "bool" in line else text
    )
    text = text.replace("total: kept + bonus", "total: kept + rank(bonus)") if "choice," in line else text
    d = one(text)
    assert d.span is not None
    assert (d.code, d.span.line, d.span.col) == ("RC310", *at(text, line, f"{key}:"))
    assert d.span.end_col == d.span.col + len(key)
    assert (d.message, d.hint) == (message, hint)


def test_each_key_an_input_does_not_take_is_said() -> None:
    text = rich(
        "      bonus: {type: int, min: 0, max: 5, default: 0}", "      bonus: {type: bool, min: 0, max: 1}"
    )
    text = text.replace("total: kept + bonus", "total: kept + (1 if bonus else 0)")
    with pytest.raises(RulecraftError) as info:
        engine.load_source(SourceFile("bad.yaml", text))
    assert [(d.code, d.span.col if d.span else 0) for d in info.value.diagnostics] == [
        ("RC310", at(text, "bonus: {", "min:")[1]),
        ("RC310", at(text, "bonus: {", "max:")[1]),
    ]


def test_a_ruleset_named_without_its_suffix_is_found_for_the_hint(tmp_path: Path) -> None:
    (tmp_path / "mygame.yaml").write_text(RICH, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(tmp_path):
        code = run(["roll", "mygame", "fortune"], out, err)
    assert code == 1
    assert "no ruleset 'mygame'" in err.getvalue()
    assert "hint: did you mean the file 'mygame.yaml'?" in err.getvalue()


def test_a_first_key_astray_is_named_as_the_one_out_of_line() -> None:
    """`sixes` one space too far opens `let`'s mapping at 7 spaces, so YAML trips on `kept`, which
    is right: the hint also names the key astray. Where the line tripped on is itself the odd one
    (one space off the file's step of 2), only moving it is offered."""
    text = rich("      sixes: count(pool, 6)", "       sixes: count(pool, 6)")
    d = one(text)
    assert d.span is not None and d.span.line == at(text, "kept:", "kept")[0]
    assert d.hint is not None and d.hint.endswith(
        "; or, if it is 'sixes' that is out of line, indent that line 6 spaces"
    )
    d = one(edit("    outcomes:", "     outcomes:"))
    assert d.hint is not None and "out of line" not in d.hint
    # `sixes` one space short opens the mapping at 5: YAML trips on `kept`, on the file's step,
    # and the hint names `sixes` as the key astray too (it had only offered to move `kept`)
    text = rich("      sixes: count(pool, 6)", "     sixes: count(pool, 6)")
    d = one(text)
    assert d.span is not None and d.span.line == at(text, "kept:", "kept")[0]
    assert d.hint is not None and d.hint.endswith(
        "indent it 5 spaces to go with 'sixes' (line 12); or, if it is 'sixes' that is out of line, "
        "indent that line 6 spaces"
    ), d.hint


@pytest.mark.parametrize(
    ("objective", "code", "says"),
    [
        ("objective: best", "RC104", "must be one of 'best_first', 'mean_rank', not 'best'"),
        ('objective: {maximize: "sixes"}', "RC102", "unknown key 'maximize' in checks.fortune.objective"),
    ],
)
def test_an_objective_of_no_known_form_names_every_form(objective: str, code: str, says: str) -> None:
    """A mapping is told by its key (not as a name of the list), and either way the hint names
    every form an objective takes, {at_least: OUTCOME} included."""
    d = one(
        rich("    outcomes: [failure, success]\n", f"    {objective}\n    outcomes: [failure, success]\n")
    )
    assert d.code == code and says in d.message
    assert d.hint is not None and "{at_least: OUTCOME}" in d.hint and "mean_rank" in d.hint


@pytest.mark.parametrize(
    ("expect", "code", "says"),
    [
        (
            '{probability: {success: "x"}}',
            "RC104",
            "'x' at checks.fortune.examples.0.expect.probability.success is not a number",
        ),
        (
            '{mean: {sixes: "x1"}}',
            "RC104",
            "'x1' at checks.fortune.examples.0.expect.mean.sixes is not a number",
        ),
        (
            '{probability: {success: "' + "7" * 3000 + '"}}',
            "RC702",
            "7" * 50 + "… (3000 characters) is not a probability",
        ),
    ],
    ids=["probability", "mean", "3000 digits"],
)
def test_an_examples_number_written_wrong_is_told_so(expect: str, code: str, says: str) -> None:
    """Not "not a valid name" for a number, and a stranger's 3,000 digits are not repeated back."""
    text = rich(
        "    outcomes: [failure, success]\n",
        f"    examples:\n      - {{expect: {expect}}}\n    outcomes: [failure, success]\n",
    )
    d = one(text)
    assert d.code == code and d.message.startswith(says), d.message
    assert len(d.message) < 200


def _patterns(node: object) -> set[str]:
    """Every `pattern` in a schema, at any depth."""
    if isinstance(node, dict):
        found = {node["pattern"]} if isinstance(node.get("pattern"), str) else set()
        return found.union(*(_patterns(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_patterns(v) for v in node))
    return set()


def test_every_name_pattern_of_the_schema_has_its_own_words() -> None:
    """A name refused by a pattern is told that pattern's rule: the ruleset's name is lower case
    and may hold '-', a check's name may start with '_', a refusal is a code (a newcomer's
    `name: Bad` was told the rule of the other names, which 'Bad' keeps)."""
    import json

    from engine.syntax.schema import NUMBER_TEXT, PATTERN_HINTS, resolve

    schema = json.loads(
        (Path(__file__).resolve().parent.parent / "schemas" / "ruleset.schema.json").read_text()
    )
    numbers = {resolve(p)["pattern"] for p in NUMBER_TEXT}  # numbers written as text have their own words
    names = _patterns(schema) - numbers
    assert names == set(PATTERN_HINTS)
    for pattern, (_, hint) in PATTERN_HINTS.items():
        if "a-z0-9_-" in pattern:
            assert "lower-case" in hint and "-" in hint
        elif "A-Za-z_]" in pattern:
            assert "letter or _" in hint


def test_a_refusal_that_is_not_a_code_is_told_the_form_of_a_code() -> None:
    text = Path(__file__).resolve().parent.parent.joinpath("rulesets", "chimera.yaml").read_text()
    text = text.replace("refused: RC905", "refused: rc905", 1)
    d = one(text)
    assert d.code == "RC104" and d.message.startswith("'rc905' at ") and "not a diagnostic code" in d.message
    assert d.hint == "a code is RC and three digits, as RC104"


EMPTY_IN_A_RULE = """\
rulecraft: 1
name: eh
checks:
  c:
    inputs:
      k: {type: int, min: 0, max: 3, default: 2}
    roll:
      p: {pool: k, die: 6}
    outcomes: [miss, hit]
    outcome:
      - when: count(p) > 3
        then: hit
      - when: highest(p) >= 5
        then: hit
      - else: miss
    outputs:
      shown: p
"""


def test_an_error_inside_an_outcome_rule_is_placed_at_that_rule() -> None:
    """Found by a linter audit: a rule's condition that fails (the highest of no dice) was placed
    at the check's name, where a `let` or a one-expression outcome is placed at its expression.
    The rolled roll, the exact distribution and the linter all point at the condition."""
    rs = engine.load(EMPTY_IN_A_RULE)
    for ask in (lambda: rs.roll("c", k=0), lambda: rs.distribution("c", k=0)):
        with pytest.raises(RulecraftError) as err:
            ask()
        d = err.value.diagnostics[0]
        assert d.code == "RC504" and d.span is not None
        assert (d.span.line, d.span.col) == at(EMPTY_IN_A_RULE, "highest(p) >= 5", "highest(p) >= 5")
    assert rs.distribution("c", k=2).probability("hit") == Fraction(20, 36)
    from engine.tools.lint import lint

    [found] = [d for d in lint(rs) if d.code == "RC808"]
    assert found.span is not None and found.span.line == at(EMPTY_IN_A_RULE, "highest(p) >= 5", "highest")[0]


def test_an_output_reads_the_outputs_written_above_it_only() -> None:
    """Outputs are worked out in the order written: one written above is read, one written below
    is RC301 at the name, with a hint to move it up (not a guess at another name)."""
    above = BASE + "    outputs:\n      a: d + 1\n      b: a * 2\n"
    result = engine.load(above).roll("flip", forced={"d": [2]})
    assert (result.values["a"], result.values["b"]) == (3, 6)
    below = BASE + "    outputs:\n      b: a * 2\n      a: d + 1\n"
    d = one(below)
    assert d.code == "RC301" and d.message == "unknown name 'a'"
    assert (d.span.line, d.span.col) == at(below, "b: a * 2", "a *")
    assert (
        d.hint
        == "'a' is an output written below this one: an output reads the outputs above it, so move it up"
    )


def test_a_misspelt_key_is_not_taken_for_a_key_written_already() -> None:
    """`outcomez` beside `outcome` was answered "did you mean 'outcome'?", a key the check has
    already; the key it stands for is the missing `outcomes` (found by an audit of the playground)."""
    text = (
        "rulecraft: 1\nname: x\nchecks:\n  flip:\n    roll: {d: {die: 2}}\n"
        "    outcomez: [tails, heads]\n    outcome: \"'heads' if d == 2 else 'tails'\"\n"
    )
    from engine.errors import RulecraftError

    with pytest.raises(RulecraftError) as caught:
        engine.load_source(engine.SourceFile("x.yaml", text))
    [unknown] = [d for d in caught.value.diagnostics if d.code == "RC102"]
    assert unknown.hint == "did you mean 'outcomes'?"


OTHER_LANGUAGES = [
    ("d == 2 ? true : false", "?", "a choice is written 'A if CONDITION else B'"),
    ("d == 2 && d > 1", "&&", "'&&' is written 'and'"),
    ("d == 2 || d == 1", "||", "'||' is written 'or'"),
    ("!(d == 1)", "!", "'!' is written 'not'"),
]


@pytest.mark.parametrize("written, token, hint", OTHER_LANGUAGES, ids=[o[1] for o in OTHER_LANGUAGES])
def test_operators_of_other_languages_are_named_in_words(written: str, token: str, hint: str) -> None:
    """Found by an audit writing other games from the docs: `(stat > 0 ? stat : 0)` was only
    "unexpected character '?'", with no word of how a choice is written here."""
    text = edit("      - when: d == 2\n", f'      - when: "{written}"\n')
    d = one(text)
    assert d.code == "RC201" and (d.span.line, d.span.col) == at(text, written, token)  # type: ignore[union-attr]
    assert d.hint is not None and d.hint.startswith(hint)


def test_a_pool_read_as_true_or_false_is_traced_in_the_languages_words() -> None:
    """The trace said "1 die rolled 3 read as False", where the language writes true and false."""
    text = """\
rulecraft: 1
name: bools
checks:
  c:
    roll:
      p: {pool: 2, die: 6, each: face >= 4}
    outcomes: [miss, hit]
    outcome: "'hit' if count(p, true) >= 1 else 'miss'"
"""
    result = engine.load(text).roll("c", forced={"p": [3, 5]})
    pool = next(s for s in result.trace if s.kind == "pool")
    from engine.eval.trace import detail

    assert detail(pool) == "2 dice rolled 3, 5 read as false, true"


def test_a_value_reading_one_on_a_circle_is_not_said_to_be_unknown() -> None:
    """Found by a review: once the values' dependencies were worked out in one pass, a value
    reading another that stands on a circle was taken for one known before the roll, and told as
    "unknown name 'a'" beside the two circles that are the real mistakes."""
    text = """\
rulecraft: 1
name: cyc
checks:
  c:
    roll:
      d: {die: 6}
    let:
      a: b + d
      b: c + 1
      c: b + 1
      e: a + 1
      f: "g + 1"
      g: "f + d"
    outcomes: [lo, hi]
    outcome: "'hi' if e > 3 else 'lo'"
"""
    with pytest.raises(RulecraftError) as info:
        engine.load(text)
    found = [(d.code, d.message) for d in info.value.diagnostics]
    assert found == [
        ("RC308", "named values depend on each other in a circle: b -> c -> b"),
        ("RC308", "named values depend on each other in a circle: f -> g -> f"),
    ], found


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("≥", ">="), ("≤", "<="), ("≠", "!="), ("−", "-"), ("×", "*"), ("÷", "/")],
)
def test_a_typeset_operator_pasted_from_a_document_is_told_what_to_write(typed: str, meant: str) -> None:
    text = edit("when: d == 2", f"when: d {typed} 2")
    d = one(text)
    assert (d.code, d.span.line, d.span.col) == ("RC201", *at(text, typed, typed))
    assert d.hint is not None and f"write '{meant}' for '{typed}'" in d.hint


@pytest.mark.parametrize(("typed", "meant"), [("‘heads’", "'"), ("“heads”", '"')])
def test_typeset_quotes_are_told_what_to_write(typed: str, meant: str) -> None:
    text = edit("then: heads", f"then: {typed}")
    d = one(text)
    assert d.code == "RC201" and d.hint is not None and f"write '{meant}' for '{typed[0]}'" in d.hint


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("\u00a0", "this is a no-break space, not a space: type a plain space here"),
        ("\u202f", "this is a narrow no-break space, not a space: type a plain space here"),
        ("\u200b", "this is a zero-width space, which shows as nothing: delete it"),
    ],
)
def test_a_space_that_is_none_is_named(typed: str, said: str) -> None:
    """Hunt 13h: a no-break space pasted into an expression was RC201 with no hint, where a
    typeset operator is told what to write. (A zero-width one takes no column on screen, so its
    caret is drawn under the character after it: not held to `one`'s drawing.)"""
    text = edit("when: d == 2", f"when: d =={typed}2")
    with pytest.raises(RulecraftError) as info:
        engine.load_source(SourceFile("bad.yaml", text))
    [d] = info.value.diagnostics
    assert d.span is not None
    assert (d.code, d.span.line, d.span.col) == ("RC201", *at(text, typed, typed))
    assert d.hint == said


def test_a_quote_never_closed_in_an_expression_says_so() -> None:
    """Hunt 13h: `first if 'a == 1 else second` was RC201 "unexpected character" with no hint."""
    text = edit("when: d == 2", 'when: "d == \'two"')
    d = one(text)
    assert (d.code, d.span.line, d.span.col) == ("RC201", *at(text, "'two", "'"))
    assert d.hint == "the text opened with ' here is not closed: close it with ' on this line"


def test_a_name_with_a_letter_outside_ascii_names_that_letter() -> None:
    text = edit("      d: {die: 2}", "      d: {die: 2}\n    let:\n      tötal: d")
    d = one(text)
    assert (d.code, d.span.line, d.span.col) == ("RC104", *at(text, "tötal", "tötal"))
    assert d.hint is not None and "'ö' is not an ASCII character" in d.hint and "ASCII letter" in d.hint


@pytest.mark.parametrize("written", ["tötal", "ötal", "βeta"])
def test_a_name_with_a_letter_outside_ascii_in_an_expression_names_that_letter(written: str) -> None:
    """The same hint as a declared name's (RC104), where the expression reads the name."""
    text = edit("when: d == 2", f"when: {written} == 2")
    d = one(text)
    odd = next(c for c in written if not c.isascii())
    assert (d.code, d.span.col) == ("RC201", at(text, written, odd)[1])
    assert d.hint is not None and f"'{odd}' is not an ASCII character" in d.hint and "ASCII letter" in d.hint


@pytest.mark.parametrize(
    ("tail", "bracket", "what"),
    [
        ("    outputs: {margin: ", "{", "mapping"),
        ("    outputs: {margin: d,\n", "{", "mapping"),
        ("    outputs: {margin: d, spread: [d,\n", "[", "list"),
    ],
)
def test_a_bracket_left_open_at_the_end_of_the_file_is_told_at_the_bracket(
    tail: str, bracket: str, what: str
) -> None:
    """ruamel placed this past the last line, naming no bracket: told as any bracket not closed."""
    text = BASE + tail
    d = one(text)
    line = tail.rstrip("\n").split("\n")[-1]
    assert (d.code, d.span.line, d.span.col) == ("RC002", *at(text, line, bracket)), d.render()
    assert f"the {what} opened with '{bracket}' here is not closed" in d.message
    assert d.hint is not None and f"close the {what} with" in d.hint


TWINS = """\
rulecraft: 1
name: g
scales:
  result: [miss, hit]
  stance: [low, high]
tables:
  verdict:
    params: {n: int}
    returns: result
    value: "'hit' if n > 3 else 'miss'"
  pick:
    params: {s: stance}
    returns: int
    cases: {low: 0, high: 1}
  lean:
    params: {n: int}
    returns: stance
    value: "'high' if n > 3 else 'low'"
checks:
  b:
    inputs:
      s: {type: choice, choices: [high, low], default: low}
    roll: {d: {die: 6}}
    outcomes: result
    outcome: verdict(d)
    outputs:
      bonus: pick(s)
"""


@pytest.mark.parametrize(
    ("edit_from", "edit_to", "hint"),
    [
        (
            "      bonus: pick(s)",
            "      bonus: pick(s)",
            "input 's' of check 'b' lists the members of scale 'stance' as its choices, which makes a "
            "scale of its own ('b.s'): write choices: stance (in the scale's order, worst first: low, "
            "high, not the list's; check what ranks or compares them)",
        ),
        (
            "      s: {type: choice, choices: [high, low], default: low}",
            "      s: {type: choice, choices: [low, high], default: low}",
            "input 's' of check 'b' lists the members of scale 'stance' as its choices, which makes a "
            "scale of its own ('b.s'): write choices: stance",
        ),
        (
            "      bonus: pick(s)",
            "      same: lean(d) == s",
            "input 's' of check 'b' lists the members of scale 'stance' as its choices, which makes a "
            "scale of its own ('b.s'): write choices: stance (in the scale's order, worst first: low, "
            "high, not the list's; check what ranks or compares them)",
        ),
        (
            "    outcomes: result",
            "    outcomes: [miss, hit]",
            "check 'b' lists the members of scale 'result' as its outcomes, which makes a scale of its "
            "own ('b'): write outcomes: result",
        ),
    ],
    ids=["a table's argument, in another order", "a table's argument", "a comparison", "an outcome"],
)
def test_a_list_with_just_a_scales_members_is_told_to_name_the_scale(
    edit_from: str, edit_to: str, hint: str
) -> None:
    """A check's own list of choices or outcomes is a scale of its own (RC304 where the scale
    is wanted); when it holds just a scale's members, the hint says to name that scale."""
    text = TWINS.replace(edit_from, edit_to)
    if "outcomes: [" in text:
        text = text.replace("choices: [high, low]", "choices: stance")
    with pytest.raises(RulecraftError) as info:
        engine.load_source(SourceFile("g.yaml", text))
    found = [(d.code, d.hint) for d in info.value.diagnostics]
    assert ("RC304", hint) in found, found


def test_a_list_of_other_members_than_the_scales_gets_no_such_hint() -> None:
    text = TWINS.replace("choices: [high, low]", "choices: [high, mid, low]")
    d = one(text)
    assert d.code == "RC304" and d.hint is None


def test_a_draw_s_example_can_be_drawn() -> None:
    """Hunt 13x: from a bag of one black, two greys and two whites, three chits forced as none
    were told "e.g. --force beads=grey,grey,grey", which RC405 refused ("'grey' is not left in
    bag"): the example takes the bag's chits in turn, each as often as it is there."""
    text = """\
rulecraft: 1
name: bagt
bags:
  fate:
    chits: {black: 1, grey: 2, white: 2}
checks:
  three:
    roll:
      beads: {draw: fate, count: 3}
    outcomes: fate
    outcome: best(beads)
"""
    rs = engine.load(text)
    with pytest.raises(engine.InputError) as error:
        rs.roll("three", forced={"beads": []})
    hint = error.value.diagnostics[0].hint or ""
    assert "e.g. --force beads=black,grey,grey " in hint, hint
    assert rs.roll("three", forced={"beads": ["black", "grey", "grey"]}).outcome.name == "grey"


def test_a_named_value_the_roll_cannot_read_yet_is_said_to_come_after_it() -> None:
    """Hunt 13w: `pool: v` where `v: d + 1` is a named value was "unknown name 'v'" with no hint,
    though `v` is declared: it reads a die, so it is worked out after the roll, which no part of
    the roll can read. The hint says so, and what the roll reads."""
    text = """\
rulecraft: 1
name: t
checks:
  c:
    roll:
      d: {die: 6}
      q: {pool: v, die: 6}
    let:
      v: d + 1
    outcomes: [a, b]
    outcome: "'a' if sum(q) > 3 else 'b'"
"""
    with pytest.raises(RulecraftError) as error:
        engine.load(text)
    [d] = error.value.diagnostics
    assert d.code == "RC301" and d.message == "unknown name 'v'"
    assert (d.hint or "").startswith("'v' is a named value worked out after the roll (it reads a die)"), (
        d.hint
    )
    before = engine.load(text.replace("v: d + 1", "v: 2").replace("pool: v", "pool: v"))
    assert before.check("c").name == "c"  # a value that needs no die is known before the roll
    # a die's faces add a hint of their own, and keep this one (hunt 13zf: lost for a while, as
    # the faces' hint was added to a copy that no longer carried the unknown name)
    with pytest.raises(RulecraftError) as faces:
        engine.load(text.replace("q: {pool: v, die: 6}", 'q: {die: "1..v"}').replace("sum(q)", "q"))
    [d] = faces.value.diagnostics
    assert d.code == "RC301" and d.message == "unknown name 'v'"
    assert (d.hint or "").startswith("a die's faces may read the check's inputs"), d.hint
    assert "'v' is a named value worked out after the roll (it reads a die)" in (d.hint or ""), d.hint


def test_one_space_is_said_so(tmp_path: Path) -> None:
    """Hunt 13zh: "'x' is indented 1 spaces" and "indent that line 1 spaces"."""
    path = tmp_path / "one.yaml"
    path.write_text("rulecraft: 1\nname: x\nchecks:\n  c:\n    outcome: a\n x: 1\n", encoding="utf-8")
    with pytest.raises(RulecraftError) as caught:
        engine.load(path)
    [d] = caught.value.diagnostics
    assert d.message == "'x' is indented 1 space, which lines up with no key above it"
    assert d.hint is not None and d.hint.endswith(
        "if it is 'c' that is out of line, indent that line 1 space"
    )


def test_an_empty_text_where_a_name_belongs_is_no_key() -> None:
    """Hunt 13zh: `name: ""` was "an empty key (null) at name": it is a value, and not null."""
    with pytest.raises(RulecraftError) as caught:
        engine.load(
            'rulecraft: 1\nname: ""\nchecks:\n  c:\n    roll: {d: {die: 6}}\n'
            "    outcomes: [a]\n    outcome: \"'a'\"\n"
        )
    [d] = caught.value.diagnostics
    assert (d.code, d.message) == ("RC104", "an empty text at name is not a valid ruleset name")


def test_a_text_quoted_over_lines_on_purpose_is_not_blamed_for_the_mistake_after_it() -> None:
    """A quoted text written over two lines on purpose, then a key indented one space off: it was
    told as the quote not closed on its line (hunt 13zv). A quote is blamed only when the lines it
    took in hold a key no deeper than its own (the file's structure read as text)."""
    text = BASE.replace("name: coin", 'name: coin\ntitle: "a coin\n  to flip"\n source: x', 1)
    d = one(text)
    assert d.message == "'source' is indented 1 space, which lines up with no key above it", d.render()


def test_a_list_item_s_quote_that_takes_in_its_next_key_is_told_at_the_quote() -> None:
    """`- id: "first` then `  text: "plain words"`: the item's next key stands after its dash, and
    was not counted as taken in, so the mistake was told as 'text' indented wrong (hunt 13zw)."""
    text = BASE.replace("name: coin", 'name: coin\nnotes:\n  - id: "first\n    text: "plain words"', 1)
    d = one(text)
    assert (d.span.line, d.span.col) == (4, 9), d.render()
    assert d.message.startswith("the quote opened here is not closed on its line"), d.render()


def test_a_die_given_as_an_actions_input_is_told_as_its_checks_die() -> None:
    """An action that rolls a check: the check's die given as the action's input is told as that
    check's die, at the action, in `act` and in the action's odds alike; nothing is written."""
    from engine.state.memory import MemoryStore

    walt = engine.new_campaign("walt", "chthonian", store=MemoryStore(), params={"style": "weird_tale"})
    walt.join("walter")
    for attempt in (
        lambda: walt.act("insight_roll", character="walter", die=3),
        lambda: walt.distribution("insight_roll", character="walter", die=3),
    ):
        with pytest.raises(engine.InputError) as raised:
            attempt()
        [d] = raised.value.diagnostics
        assert d.message == "action 'insight_roll' has no input 'die'"
        assert d.hint is not None and d.hint.startswith(
            "'die' is a die of check 'standard', not an input: a roll takes its face as --force die=3"
        )
    assert [e.kind for e in walt.log()] == ["new", "join"]


def test_a_die_swept_over_http_is_told_as_a_die(tmp_path: Path) -> None:
    """`/api/sweep` names its input apart from the others and checked it itself: a die there was
    still "did you mean 'tokens'?" (hunt 13zzb). Now the one rule of `runtime.inputs` tells it."""
    from fastapi.testclient import TestClient

    from engine.serve.app import Settings, create_app

    with TestClient(create_app(Settings(db=str(tmp_path / "c.db"), workers=1, deadline=60.0))) as client:
        body = {"ruleset": "chill", "check": "specific", "inputs": {"target": 50}, "from": 0, "to": 9}
        answer = client.post("/api/sweep", json={**body, "input": "tens"})
        [d] = answer.json()["error"]["diagnostics"]
        assert (answer.status_code, d["code"], d["message"]) == (
            422,
            "RC402",
            "check 'specific' has no input 'tens'",
        )
        assert d["api_hint"].startswith(
            "'tens' is a die of check 'specific', not an input: a request that rolls"
        )
        assert "--force" not in d["api_hint"]
        answer = client.post("/api/sweep", json={**body, "input": "tokns"})
        [d] = answer.json()["error"]["diagnostics"]
        assert d["hint"] == "did you mean 'tokens'?"


def test_a_die_given_as_an_input_is_forced_only_with_what_its_roll_can_take(tmp_path: Path) -> None:
    """The example never echoes what the die cannot show (hunt 13zzc): a die whose faces are worked
    out at the roll is given `FACE`, not the given 99 or text; a draw's chits as many as its bag
    holds of each (`low,low` from a bag of one `low` is `low` and another chit)."""
    path = tmp_path / "var.yaml"
    path.write_text(
        "rulecraft: 1\nname: var\nbags:\n  sack:\n    chits: {low: 1, mid: 1, high: 1}\n"
        "checks:\n  faces:\n    inputs:\n      size: {type: int, min: 1, max: 20, default: 6}\n"
        '    roll:\n      d: {die: "1..size"}\n      s: {draw: sack, count: 2}\n'
        "    outcomes: [miss, hit]\n    outcome: \"'hit' if d > 3 else 'miss'\"\n",
        encoding="utf-8",
    )
    rs = engine.load(path)
    for name, value, example in (("d", 99, "d=FACE"), ("d", "abc", "d=FACE"), ("s", "low,low", "s=low,high")):
        with pytest.raises(engine.InputError) as raised:
            rs.roll("faces", **{name: value})
        [d] = raised.value.diagnostics
        assert d.hint is not None and f"--force {example} " in d.hint, d.hint
    assert rs.roll("faces", forced={"s": ["low", "high"], "d": [4]}).outcome.name == "hit"
