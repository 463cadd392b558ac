"""What a ruleset with errors is told when it loads: each real mistake once, where it is, and
nothing that only follows from another (found by reviews of the limits work): a bound of the load
as a whole (`max_code`, the work of folding constants) is said once; every expression over its own
bound is said, and so is an independent error beside them; an item or parameter whose definition
has an error is still known by name, so what reads it is not reported too; a ruleset whose every
problem is a bound passed is refused with a `LimitError`."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

import engine
from engine.api import Limits

CHECK = """\
rulecraft: 1
name: t
checks:
  act:
    roll:
      d: {die: 6}
    outcomes: [miss, hit]
    outcome: "'hit' if d > 3 else 'miss'"
"""


def _refused(text: str, **limits: int) -> engine.RulecraftError:
    with pytest.raises(engine.RulecraftError) as caught:
        engine.load(text, limits=Limits(**limits))
    return caught.value


def _said(err: engine.RulecraftError) -> list[tuple[str, int]]:
    return [(d.code, d.span.line if d.span else 0) for d in err.diagnostics]


def test_each_expression_over_its_bound_is_said_and_an_independent_error_beside_them() -> None:
    deep = "d" + " + 1" * 60
    text = CHECK.replace("d > 3", f"{deep} > 3") + (
        "  other:\n    roll:\n      d: {die: 6}\n    outcomes: [miss, hit]\n"
        f"    outcome: \"'hit' if {deep} > 3 else 'miss'\"\n"
        "  third:\n    roll:\n      d: {die: 6}\n    outcomes: [miss, hit]\n"
        "    outcome: \"'hit' if dd > 3 else 'miss'\"\n"
    )
    err = _refused(text)
    assert _said(err) == [("RC202", 8), ("RC202", 13), ("RC301", 18)]
    assert type(err) is engine.CompileError
    only = _refused(text.replace("dd > 3", "d > 3"))
    assert _said(only) == [("RC202", 8), ("RC202", 13)] and isinstance(only, engine.LimitError)


def test_the_work_of_folding_constants_is_one_budget_said_once() -> None:
    """A table that calls another twice, 19 deep, folded as a constant in eight checks: the load's
    one budget runs out at the second, and the rest would each say so again."""
    tables = (
        "".join(
            f"  t{i}:\n    params: {{x: int}}\n    returns: int\n    value: t{i + 1}(x) + t{i + 1}(x)\n"
            for i in range(19)
        )
        + "  t19:\n    params: {x: int}\n    returns: int\n    value: x\n"
    )
    checks = "".join(
        f"  c{i}:\n    roll:\n      d: {{die: 6}}\n    outcomes: [miss, hit]\n"
        f"    outcome: \"'hit' if d > t0({i}) else 'miss'\"\n"
        for i in range(8)
    )
    text = f"rulecraft: 1\nname: t\ntables:\n{tables}checks:\n{checks}"
    bad = text + "  z:\n    roll:\n      d: {die: 6}\n    outcomes: [miss, hit]\n    outcome: \"'hitt'\"\n"
    err = _refused(bad)
    codes = [d.code for d in err.diagnostics]
    assert codes == ["RC503", "RC305"], err
    assert "folding this constant" in err.diagnostics[0].message
    assert (
        err.diagnostics[0].hint is not None
        and "the load folds every constant in one budget" in err.diagnostics[0].hint
    )
    assert engine.load(text, limits=Limits(max_work=100_000_000)).name == "t"


def test_an_item_with_an_error_leaves_the_examples_checked_for_the_rest() -> None:
    text = CHECK + (
        "state:\n  shared:\n    hp:\n      counter: 3\n    luck:\n      counter: nope\n"
        "  examples:\n    - name: e\n      steps: [{act: heall}]\n      start: {shared: {luck: 1}}\n"
        "      expect: {shared: {luck: 2}}\n"
        "actions:\n  heal:\n    effects:\n      - add: {hp: 1}\n      - add: {luck: 1}\n"
    )
    err = _refused(text)
    assert [d.code for d in err.diagnostics] == ["RC301", "RC702"]
    assert "'nope'" in err.diagnostics[0].message and "'heall'" in err.diagnostics[1].message


def test_a_parameter_with_an_error_is_still_known_by_name() -> None:
    text = CHECK + (
        "state:\n  campaign:\n    players: {type: int, min: 5, max: 1}\n"
        "  character:\n    level: {type: choice, choices: nosuchscale}\n"
        "  shared:\n    tokens:\n      counter: players - 1\n      max: 2 * players\n"
        "  each:\n    hp:\n      counter: 2\n"
        'actions:\n  spend:\n    requires: [{when: "tokens < players", else: no}]\n'
        "    effects:\n      - add: {tokens: players}\n"
    )
    assert [d.code for d in _refused(text).diagnostics] == ["RC310", "RC312"]


def test_a_bag_over_its_bound_is_a_limit_error_at_its_name_and_the_rest_is_still_checked() -> None:
    text = (
        "rulecraft: 1\nname: t\nbags:\n  fate:\n    chits: {poor: 300000, good: 600000}\n"
        "checks:\n  act:\n    roll:\n      c: {draw: fate}\n    outcomes: [miss, hit]\n"
        "    outcome: \"'hit' if best(c) == 'good' else 'miss'\"\n"
    )
    alone = _refused(text)
    assert isinstance(alone, engine.LimitError) and _said(alone) == [("RC503", 4)]
    beside = _refused(text.replace("best(c) ==", "bestt(c) =="))
    assert [d.code for d in beside.diagnostics] == ["RC503", "RC302"]


def test_past_the_code_limit_the_rest_is_checked_with_nothing_left_unmade(cli) -> None:
    """Past `max_code` no code is compiled, but every function is still made (one that raises the
    limit) and the rest is checked: nothing is left unmade to be reported again (found by a
    review: Chill under a limit of 2,000 was the limit and two RC301, Castle the limit and an
    RC306, Chimera the limit and 15 RC304 from case ranges), and a real error on either side of
    it, in the file or in the compile's order, is reported with it."""
    for name in ("chill", "castle", "chimera", "chthonian"):
        r = cli("validate", name, "--limit", "max_code=2000")
        assert r.code == 1 and r.err.count("error") == 1 and "RC503" in r.err, r.err
    text = CHECK + "tables:\n  t:\n    params: {x: int}\n    cases: {1..2: 0, 3..4: 1, 5..6: 2}\n"
    err = _refused(text, max_code=600)
    assert isinstance(err, engine.LimitError) and [d.code for d in err.diagnostics] == ["RC503"]


def test_an_unmade_shared_item_does_not_excuse_an_example_starting_a_characters_item() -> None:
    text = CHECK + (
        "state:\n  shared:\n    luck:\n      counter: nope\n  each:\n    hp:\n      counter: 3\n"
        "  examples:\n    - name: e\n      characters: {ann: {}}\n      steps: []\n"
        "      start: {characters: {ann: {luck: 1}}}\n"
    )
    err = _refused(text)
    assert [d.code for d in err.diagnostics] == ["RC301", "RC702"], err


def test_an_output_with_an_error_is_still_known_to_the_next() -> None:
    text = CHECK + '    outputs:\n      a: "nope + 1"\n      b: "a + 1"\n'
    err = _refused(text)
    assert [(d.code, d.message) for d in err.diagnostics] == [("RC301", "unknown name 'nope'")]


def test_an_error_on_either_side_of_the_code_limit_is_reported_and_the_load_refused() -> None:
    text = (
        "rulecraft: 1\nname: t\nstate:\n  shared:\n    luck:\n      counter: nope\n"
        "checks:\n  act:\n    roll:\n      d: {die: 6}\n    outcomes: [miss, hit]\n"
        "    outcome: \"'hit' if d > 3 else 'miss'\"\n"
        "tables:\n  late:\n    params: {x: int}\n    value: x + alsonope\n"
    )
    err = _refused(text, max_code=100)
    assert sorted((d.code, d.span.line if d.span else 0) for d in err.diagnostics) == [
        ("RC301", 6),
        ("RC301", 16),
        ("RC503", 12),
    ]
    # a check whose stage keys are made past the limit is refused too: it had loaded without them
    seq = (
        "rulecraft: 1\nname: s\nchecks:\n  act:\n    roll:\n      a: {die: 6}\n"
        "      b:\n        pool: a\n        die: 6\n"
        "        triggers: [{name: t, on: face <= 2, may: reroll, repeat: false}]\n"
        "    let:\n      s: sum(b) + a\n    auto:\n      - when: 'false'\n        then: hit\n"
        "    outcomes: [miss, hit]\n    outcome: \"'hit' if s > 7 else 'miss'\"\n"
        "    outputs:\n      o: s * 2\n"
    )
    assert engine.load(seq).model.checks["act"].stage_keys is not None
    loaded = 0
    for limit in range(3_000, 4_500, 5):
        try:
            rs = engine.load(seq, limits=Limits(max_code=limit))
        except engine.LimitError as e:
            assert [d.code for d in e.diagnostics] == ["RC503"]
        else:
            loaded += 1
            assert rs.model.checks["act"].stage_keys is not None, limit
    assert loaded


TWO_SCALES = """\
rulecraft: 1
name: t
scales:
  colour: [red, blue]
  team: [blue, green]
"""


def test_a_name_with_an_error_compared_with_a_value_of_two_scales_is_reported_once() -> None:
    """A definition with an error is of an unknown type (`types.UNKNOWN`), not of any type: a
    value in two scales compared with it is not asked to say which (RC306), since the name's own
    error is what stops the load (found by a review: a state parameter and a let alike)."""
    check = TWO_SCALES + (
        "checks:\n  act:\n    roll:\n      d: {die: 6}\n"
        '    let:\n      pick: "nosuch(d)"\n    outcomes: [miss, hit]\n'
        "    outcome: \"'hit' if pick == 'blue' else 'miss'\"\n"
        "    outputs:\n      o: \"1 if 'blue' in [pick, 'red'] else 0\"\n"
    )
    assert _said(_refused(check)) == [("RC302", 11)]
    state = (
        TWO_SCALES
        + (
            "state:\n  character:\n    side: {type: choice, choices: nosuchscale}\n"
            "  each:\n    hp: {counter: 3}\n"
            "actions:\n  go:\n    by: character\n"
            "    requires:\n      - {when: \"side == 'blue'\", else: no}\n"
            "    effects:\n      - remove: {hp: 1}\n"
        )
        + CHECK.split("name: t\n", 1)[1]
    )
    assert _said(_refused(state)) == [("RC312", 8)]
    # the value is still looked for in the scales: one that is in none is its own mistake
    assert _said(_refused(state.replace("'blue'", "'purple'"))) == [("RC312", 8), ("RC305", 15)]
    # and compared with a name whose type is known (here a number) it is still asked to say which
    typed = state.replace("nosuchscale", "colour").replace("side == 'blue'", "hp == 'blue'")
    assert _said(_refused(typed)) == [("RC306", 15)]


def test_a_load_with_a_deadline_reads_the_clock_as_it_compiles() -> None:
    """A load given a deadline (`load_source(deadline=)`, as a server loads a ruleset sent in a
    request) reads the clock every 20,000 characters of code it writes or compiles (a 520 KB
    ruleset sent to a server compiled for 11.6 s under a 5 s deadline), and the deadline ends the
    load at once, said once, not as a problem of the statement it fell in. `Limits.deadline`
    bounds evaluations, not a load: a cold load of a shipped ruleset takes longer than a deadline
    an embedder may give its rolls (it had, in one commit, and a clean clone's first load of a
    ruleset under a 0.2 s deadline failed)."""
    from engine.api import load_source
    from engine.syntax.positions import SourceFile

    terms = ", ".join(f"d + {j}" for j in range(600))
    heavy = "rulecraft: 1\nname: heavy\nchecks:\n" + "".join(
        f"  c{i}:\n    roll: {{d: {{die: 6}}}}\n    outcomes: [lo, hi]\n"
        f'    outcome: "hi if max({terms}) > 3 else lo"\n'
        for i in range(40)
    )
    with pytest.raises(engine.DeadlineError) as caught:
        load_source(SourceFile("heavy.yaml", heavy), deadline=0.05)
    assert _said(caught.value) == [("RC503", 0)]
    assert "deadline of 0.05 s passed" in caught.value.diagnostics[0].message
    # a small ruleset writes too little code to read the clock, as a small solve charges too few units
    assert load_source(SourceFile("t.yaml", CHECK), deadline=0.0).name == "t"
    # and Limits.deadline is the evaluations': a load under it is not timed
    some = heavy.split("  c3:")[0]
    assert engine.load(some, limits=Limits(deadline=0.0)).name == "heavy"


def _many_small_checks(count: int) -> str:
    """A text slow to read, quick to compile: `count` small checks (a 480 KB text of 3,487 such
    checks took 5.0 s to read as YAML and 1.9 s to check against the schema)."""
    return "rulecraft: 1\nname: many\nchecks:\n" + "".join(
        f"  c{i}:\n    roll: {{d: {{die: 6}}}}\n    let: {{v: d * 2 + 1, w: v - d}}\n"
        f"    outcomes: [lo, hi]\n    outcome: \"'hi' if w > 3 else 'lo'\"\n"
        for i in range(count)
    )


def test_a_load_with_a_deadline_reads_the_clock_as_it_reads_the_yaml(monkeypatch: pytest.MonkeyPatch) -> None:
    """The clock moving a second at each look, a half-second deadline: the load stops in the YAML
    stage, before the schema check (only the compile read the clock, so a 480 KB text sent to a
    server was read for 5 s and checked for 1.9 s before its first look at a deadline of 5 s). Said
    as the compile says it: once, at no place, as no value of the text is at fault."""
    import time

    from engine.api import load_source
    from engine.syntax import schema
    from engine.syntax.positions import SourceFile

    def unreached(*_: object) -> None:
        raise AssertionError("the schema check ran past the deadline")

    ticks = iter(range(10**6))
    monkeypatch.setattr(schema, "validate", unreached)
    monkeypatch.setattr(time, "monotonic", lambda: float(next(ticks)))
    with pytest.raises(engine.DeadlineError) as caught:
        load_source(SourceFile("many.yaml", _many_small_checks(60)), deadline=0.5)
    monkeypatch.undo()
    [d] = caught.value.diagnostics
    assert d.code == "RC503" and d.message == "the deadline of 0.5 s passed before the request ended"
    assert d.span is None


def test_a_load_with_a_deadline_reads_the_clock_as_it_checks_the_schema(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The clock standing still while the YAML is read and passing the deadline as soon as it
    is: the schema check stops, and nothing is compiled."""
    import time

    from engine import api
    from engine.api import load_source
    from engine.syntax.positions import SourceFile

    now = [0.0]
    read = api.check_version

    def read_then_late(doc: object) -> None:
        read(doc)  # type: ignore[arg-type]
        now[0] = 100.0

    def unreached(*_: object, **__: object) -> None:
        raise AssertionError("the compile ran past the deadline")

    monkeypatch.setattr(api, "check_version", read_then_late)
    monkeypatch.setattr(api, "compile_document", unreached)
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    with pytest.raises(engine.DeadlineError) as caught:
        load_source(SourceFile("many2.yaml", _many_small_checks(60)), deadline=0.5)
    monkeypatch.undo()
    [d] = caught.value.diagnostics
    assert d.code == "RC503" and d.message == "the deadline of 0.5 s passed before the request ended"
    assert d.span is None
    # a small ruleset is read and checked with no look at the clock, as it is compiled
    assert load_source(SourceFile("t.yaml", CHECK), deadline=0.0).name == "t"


def test_a_value_that_does_not_parse_or_is_in_a_circle_is_not_reported_again_where_read() -> None:
    """A `let` that does not parse, or that is in a circle, was marked as reported only after the
    values known before the roll were lowered, so one reading it was `RC301 unknown name 'bad'
    (did you mean 'bad'?)` too (found by a review)."""
    text = CHECK.replace(
        "    outcomes:",
        '    let:\n      bad: "d + +"\n      usebad: bad + 1\n      a: b + 1\n      b: a + 1\n'
        "      c2: a + 1\n      pre: 1 + 1\n      pre2: bad * pre\n    outcomes:",
    ).replace("d > 3", "usebad > 3 and c2 > 0 and pre2 > 0")
    assert [d.code for d in _refused(text).diagnostics] == ["RC201", "RC308"]


def test_values_known_before_the_roll_see_the_check_s_own_outcomes() -> None:
    """The check's inline outcome scale is its own to every value (language.md, "Quoted scale
    values"): a value known before the roll was lowered before the scale was made, so `'good'`
    was in no scale (RC305), or, with a scale of the ruleset holding the name too, silently that
    scale's (found by a review)."""
    own = (
        "rulecraft: 1\nname: t\nchecks:\n  c:\n"
        "    inputs: {k: {type: int, min: 0, max: 5, default: 2}}\n"
        "    roll: {d: {die: 6}}\n"
        "    let:\n      v: \"'good'\"\n      w: \"'good' if d > k else 'bad'\"\n"
        "    auto:\n      - {when: k == 5, then: v}\n"
        "    outcomes: [bad, good]\n    outcome: w\n"
    )
    rs = engine.load(own)
    assert rs.distribution("c", k=5).probability("good") == 1
    assert rs.distribution("c", k=4).probability("good") == Fraction(2, 6)
    both = own.replace("checks:", "scales: {g: [good, bad]}\nchecks:").replace(
        "v: \"'good'\"", "v: \"'good' if 'bad' < 'good' else 'bad'\""
    )
    # in two scales, before the roll and after it alike: say which
    assert _said(_refused(both)) == [("RC306", 9), ("RC306", 10)]


def test_an_effect_s_misspelt_item_or_member_is_placed_at_the_name() -> None:
    """`move: ITEM`, `from:`, `to:` and `reset:` name an item or member as a value: the caret was
    under the key (`move`, `from`), where the tutorial promises it at the name (found by a review)."""
    text = (
        "rulecraft: 1\nname: watch\nstate:\n  shared:\n    lamps: {tally: [lit, dark], start: {lit: 2}}\n"
        "actions:\n"
        "  a1:\n    effects:\n      - {move: lampz, from: lit, to: dark}\n"
        "  a2:\n    effects:\n      - {move: lamps, from: littt, to: dark}\n"
        "  a3:\n    effects:\n      - {move: lamps, from: lit, to: darkk}\n"
        "  a4:\n    effects:\n      - {reset: lampss}\n"
        "  a5:\n    effects:\n      - {add: {lamps: {lot: 1}}}\n"
    ) + CHECK.split("name: t\n", 1)[1]
    found = _refused(text).diagnostics
    placed = [(d.code, d.span.line, d.span.col, d.span.end_col) for d in found if d.span is not None]
    assert placed == [
        ("RC301", 9, 16, 21),
        ("RC305", 12, 29, 34),
        ("RC305", 15, 38, 43),
        ("RC301", 18, 17, 23),
        ("RC305", 21, 24, 27),  # a member named as a key: at the key, which is the name
    ]


def test_a_scale_member_may_not_be_a_word_of_the_expression_language() -> None:
    """A member is read by name where its scale is expected: `else`, `not`, `if` loaded, and then
    `then: not` was "the expression ends too early", a `cases:` key `not` "unexpected ']'" (there
    is none in the file), and a key `else` silently the catch-all (found by a review). Each is
    refused where it is declared, as an input's name is; the rest is still checked."""
    text = (
        "rulecraft: 1\nname: kw\nscales: {w: [else, not, fine]}\n"
        "bags:\n  b: {chits: {if: 1, good: 2}}\n"
        "checks:\n  c:\n    roll: {d: {die: 6}}\n    outcomes: [lo, hi, face]\n"
        "    outcome: \"'hi' if d > 3 else 'lo'\"\n"
    )
    found = _refused(text).diagnostics
    assert [(d.code, d.span.line, d.span.col) for d in found if d.span is not None] == [
        ("RC307", 3, 14),
        ("RC307", 3, 20),
        ("RC307", 5, 15),
        ("RC307", 9, 24),
    ]
    assert (
        found[0].message
        == "'else' is a word of the expression language and cannot name a member of scale 'w'"
    )
    assert "'face' is a name of the expression language" in found[3].message


def test_a_file_over_max_yaml_bytes_shows_its_first_line_by_a_file_s_line_ends(tmp_path: Path) -> None:
    """A file with lone-CR line ends over `max_yaml_bytes` showed its first two lines as one
    (`rulecraft: 1\\rname: x` split at LF only): a lone CR ends a line, as a file is read."""
    rules = tmp_path / "rules.yaml"
    rules.write_bytes(b"rulecraft: 1\rname: x\r" + b"#" * 100 + b"\r")
    with pytest.raises(engine.LimitError) as caught:
        engine.load(rules, limits=Limits(max_yaml_bytes=110))
    assert str(caught.value).split("\n")[1:3] == ["  rulecraft: 1", "  ^"]


@pytest.mark.parametrize("as_file", [True, False])
def test_a_long_first_line_over_max_yaml_bytes_is_cut(tmp_path: Path, as_file: bool) -> None:
    """A file (or text) over `max_yaml_bytes` whose first line is 150 KB long showed it whole: an
    error of 150 KB. The line is cut as a message cuts a value (`clipped`), the caret under it."""
    text = "# " + "x" * 150_000 + "\nrulecraft: 1\n"
    rules = tmp_path / "rules.yaml"
    rules.write_text(text)
    with pytest.raises(engine.LimitError) as caught:
        engine.load(rules if as_file else text, limits=Limits(max_yaml_bytes=150_010))
    said = str(caught.value)
    assert len(said) < 400, len(said)
    assert said.split("\n")[1:3] == ["  # " + "x" * 48 + "… (150002 characters)", "  ^"]
