"""`rulecraft prob` as a user runs it (in this process, through the `cli` fixture), real files."""

from __future__ import annotations

import html
import json
import re
import sys
from fractions import Fraction
from pathlib import Path

import pytest


def test_prob_table_shows_fractions_percentages_and_bars(cli) -> None:
    r = cli("prob", "chill", "specific", "--input", "target=55")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert list(rows) == [
        "botch",
        "failure",
        "low_success",
        "high_success",
        "colossal_success",
    ]  # worst → best
    assert rows["botch"][1] == "1/20" and rows["botch"][2] == "5.00%"
    assert rows["failure"][1] == "2/5" and rows["failure"][2] == "40.00%"
    assert rows["low_success"][1] == "1/4" and rows["high_success"][1] == "1/4"
    assert rows["colossal_success"][1] == "1/20"
    assert "█" in rows["failure"][3]


def test_prob_json_keeps_fractions_exact(cli) -> None:
    r = cli("prob", "chill", "specific", "-i", "target=55", "--json")
    data = json.loads(r.out)
    assert data["outcomes"] == {
        "botch": "1/20",
        "failure": "2/5",
        "low_success": "1/4",
        "high_success": "1/4",
        "colossal_success": "1/20",
    }
    assert sum(Fraction(v) for v in data["outcomes"].values()) == 1


def test_prob_value_distribution(cli) -> None:
    r = cli("prob", "chthonian", "standard", "-i", "traits=3", "-i", "difficulty=8", "--value", "extent")
    assert r.code == 0, r.err
    assert "extent: mean 3/2" in r.out
    rows = [line.split() for line in r.out.splitlines()]
    assert ["-4", "1/12", "8.33%"] == rows[rows.index(["extent:", "mean", "3/2", "≈", "1.500"]) + 1][:3]


def test_an_unknown_value_is_one_rc402_said_alike_everywhere(cli) -> None:
    """`--value` and `Distribution.value` refuse a name with the same words (one home), and the
    command asks for that one value's distribution only, not every value's."""
    import engine

    r = cli("prob", "chill", "specific", "-i", "target=55", "--value", "rol")
    assert r.code == 1 and r.out == ""
    assert "error RC402: check 'specific' has no number, true/false or scale value 'rol'" in r.err
    assert "hint: did you mean 'roll'?" in r.err
    with pytest.raises(engine.InputError) as caught:
        engine.load("chill").distribution("specific", target=55).value("rol")
    [d] = caught.value.diagnostics
    assert (d.code, d.message, d.hint) == (
        "RC402",
        "check 'specific' has no number, true/false or scale value 'rol'",
        "did you mean 'roll'?",
    )


def test_prob_sweep_rows_and_json(cli) -> None:
    r = cli("prob", "castle", "task", "--sweep", "skill=disadvantaged,average,advantaged")
    assert r.code == 0, r.err
    body = r.out.splitlines()
    assert body[1].split() == ["skill", "poor", "average", "good"]
    assert body[3].split()[0] == "average" and body[3].split()[1] == "33.33%"
    data = json.loads(cli("prob", "chill", "specific", "--sweep", "target=1..120", "--json").out)
    assert len(data["rows"]) == 120
    assert data["rows"][54]["outcomes"]["botch"] == "1/20"


def test_prob_refuses_an_input_both_swept_and_given(cli) -> None:
    """Each row would override the given value under a header that shows it: refused (RC407)."""
    r = cli("prob", "chill", "specific", "--sweep", "target=1..3", "--input", "target=5")
    assert r.code == 1 and "RC407" in r.err and "both swept (--sweep) and given (--input)" in r.err
    assert r.out == ""
    assert cli("prob", "chill", "specific", "--sweep", "target=1..3", "--input", "tokens=1").code == 0


def test_prob_sweep_is_one_request(cli) -> None:
    """A sweep's points share one work budget (and one deadline): 300 units is enough for each
    point of `target=50..60` alone, not for the eleven together (each point had a budget of its
    own, so the sweep passed)."""
    for target in ("50", "55", "60"):
        assert cli("prob", "chill", "specific", "-i", f"target={target}", "--limit", "max_work=300").code == 0
    r = cli("prob", "chill", "specific", "--sweep", "target=50..60", "--limit", "max_work=300")
    assert r.code == 1 and r.out == ""
    chill = (Path(__file__).parent.parent / "rulesets" / "chill.yaml").read_text(encoding="utf-8")
    line = chill[: chill.index("\n  specific:\n")].count("\n") + 2  # the check's own line
    assert f"chill.yaml:{line}:3: error RC503: the work budget of 300 units was used up" in r.err, r.err
    assert "    specific:\n    ^^^^^^^^" in r.err and "Traceback" not in r.err
    r = cli("prob", "chill", "specific", "--sweep", "target=50..60", "--limit", "deadline=0")
    assert r.code == 1 and "RC503" in r.err and "deadline" in r.err and "specific:" in r.err, r.err
    assert cli("prob", "chill", "specific", "--sweep", "target=50..60", "--limit", "max_work=3000").code == 0


def test_prob_refuses_value_with_sweep(cli) -> None:
    """A sweep's rows show the outcomes alone: `--value` is refused (RC407), not dropped."""
    r = cli("prob", "chill", "specific", "--sweep", "target=1..3", "--value", "roll")
    assert r.code == 1 and r.out == "" and "RC407" in r.err, r.err
    assert "--value goes without --sweep" in r.err and "Traceback" not in r.err


def test_prob_sweep_plot_writes_a_png(tmp_path: Path, cli) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "chill.png"
    r = cli("prob", "chill", "specific", "--sweep", "target=1..120", "--plot", str(out))
    assert r.code == 0, r.err
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    svg = tmp_path / "one.svg"
    assert cli("prob", "chimera", "pool", "-i", "dice=5", "--plot", str(svg)).code == 0
    assert "<svg" in svg.read_text()


SIX_TWENTIES = """\
rulecraft: 1
name: tiny
checks:
  c:
    roll:
      p: {pool: 6, die: 20}
    outcomes: [some, all]
    outcome: "'all' if lowest(p) == 20 else 'some'"
"""


def test_a_plot_writes_a_tiny_chance_as_the_text_does(tmp_path: Path, cli) -> None:
    """A bar's label is `render.percent`'s, as the table's: 1/20**6 is 1.6e-6%, not 0.0%."""
    matplotlib = pytest.importorskip("matplotlib")
    f, svg = tmp_path / "tiny.yaml", tmp_path / "tiny.svg"
    f.write_text(SIX_TWENTIES, encoding="utf-8")
    with matplotlib.rc_context({"svg.fonttype": "none"}):  # text kept as text, so it can be read
        r = cli("prob", str(f), "c", "--plot", str(svg))
    assert r.code == 0, r.err
    assert "1.6e-6%" in r.out
    labels = [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*%)</text>", svg.read_text())]
    # the other bar, 1 - 1/20**6, is short of 1 by too little for two decimals (hunt 13m)
    assert "1.6e-6%" in labels and ">99.99%" in labels, labels


def test_plot_without_matplotlib_is_a_clear_message(
    tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` now fails, as if absent
    r = cli("prob", "chill", "specific", "-i", "target=5", "--plot", str(tmp_path / "x.png"))
    assert r.code == 1
    assert "needs matplotlib" in r.err and "pip install 'rulecraft[plot]'" in r.err
    assert "Traceback" not in r.err


def test_roll_refuses_an_empty_forced_value(cli) -> None:
    r = cli("roll", "chill", "specific", "-i", "target=5", "--force", "tens=1,,2")
    assert r.code == 1 and "--force 'tens=1,,2' has an empty value between its commas" in r.err, r.err


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--sweep", "target=5..1"], "must run upwards"),
        (["--sweep", "target"], "NAME=A..B"),
        (["-i", "target=55", "--plot", ""], "--plot needs a file name, not an empty one"),
        (["--sweep", "tokens=0..2", "--sweep", "target=1..3"], "give --sweep once"),
        (["--sweep", "target=1,,2"], "--sweep 'target=1,,2' has an empty value between its commas"),
        (["--sweep", "target=1,2,"], "has an empty value between its commas"),
        (["-i", "target=55", "--value", "rol"], "did you mean 'roll'"),
        (["-i", "target=55", "--plot", "x.gif"], ".png or .svg"),
    ],
)
def test_prob_bad_arguments(args: list[str], needle: str, cli) -> None:
    r = cli("prob", "chill", "specific", *args)
    assert r.code == 1
    assert needle in r.err
    assert "Traceback" not in r.err


EXPLODING = """\
rulecraft: 1
name: ex
checks:
  c:
    roll:
      p:
        pool: 2
        die: 6
        triggers:
          - {name: boom, on: face == 6, must: add}
          - {name: luck, on: face == 1, may: reroll, target: face == 1}
    outcomes: [low, high]
    outcome: "'high' if sum(p) >= 8 else 'low'"
"""


def test_every_policy_side_by_side_keeps_its_note(tmp_path: Path, cli) -> None:
    """`--policy all` says for each policy what its numbers leave out, as one policy's table does."""
    f = tmp_path / "ex.yaml"
    f.write_text(EXPLODING, encoding="utf-8")
    one = cli("prob", str(f), "c")
    assert one.code == 0 and "  note: an uncapped explosion was followed until" in one.out
    every = cli("prob", str(f), "c", "--policy", "all")
    assert every.code == 0, every.err
    for policy in ("always", "never", "optimal"):
        assert f"  note ({policy}): an uncapped explosion was followed until" in every.out


@pytest.mark.parametrize("args", [["validate", ""], ["roll", "", "x"], ["prob", " ", "x"], ["test", ""]])
def test_an_empty_ruleset_name_is_refused_not_read_as_the_current_folder(cli, args: list[str]) -> None:
    r = cli(*args)
    assert r.code == 1 and "RC407" in r.err and "not an empty one" in r.err, r.err


SHOT = """\
rulecraft: 1
name: auto_shot
checks:
  shot:
    inputs:
      point_blank: {type: bool, default: false}
    let:
      near: "not point_blank"
      total: d + 1
    auto:
      - when: point_blank
        then: hit
    roll:
      d: {die: 10}
    outcomes: [miss, hit]
    outcome: "'hit' if total >= 6 else 'miss'"
    outputs:
      damage: "d if outcome == 'hit' else 0"
    examples:
      - name: point blank
        inputs: {point_blank: true}
        expect: {outcome: hit, values: {damage: 0}}
"""
UNROLLED = (
    "check 'shot' has no value '{}' for these inputs: "
    "an auto rule decided the outcome before the roll, and nothing was rolled"
)


def test_a_value_an_auto_rule_left_unrolled_is_said_so_everywhere(cli, tmp_path: Path) -> None:
    """A value worked out after the roll, asked for when an auto rule decides: the command line,
    Distribution.value and Batch.mean (drawn or rolled) say nothing was rolled, in one wording,
    the command line at the check (it said the check had no 'numeric or scale value' of it); an
    example expecting it says the same; a name the check lacks keeps its own words."""
    import engine

    path = tmp_path / "shot.yaml"
    path.write_text(SHOT)
    for name in ("total", "damage"):
        r = cli("prob", str(path), "shot", "-i", "point_blank=true", "--value", name)
        assert r.code == 1 and r.out == ""
        assert f"shot.yaml:4:3: error RC402: {UNROLLED.format(name)}\n" in r.err, r.err
        assert "    shot:\n    ^^^^\n" in r.err and "hint: values for these inputs: near\n" in r.err
    r = cli("prob", str(path), "shot", "-i", "point_blank=true", "--value", "nope")
    assert "error RC402: check 'shot' has no number, true/false or scale value 'nope'" in r.err
    # review: a misspelling of a value the auto rule left out still gets its "did you mean"
    r = cli("prob", str(path), "shot", "-i", "point_blank=true", "--value", "damag")
    assert "has no number, true/false or scale value 'damag'" in r.err and "did you mean 'damage'?" in r.err
    assert cli("prob", str(path), "shot", "--value", "total").code == 0
    rs = engine.load(path)
    dist = rs.distribution("shot", point_blank=True)
    asked = [lambda: dist.value("damage")]
    asked += [
        lambda m=m: rs.sample("shot", 5, point_blank=True, method=m).mean("damage")
        for m in ("exact", "rolled", "auto")
    ]
    for ask in asked:
        with pytest.raises(engine.InputError) as caught:
            ask()
        [d] = caught.value.diagnostics
        assert (d.code, d.message) == ("RC402", UNROLLED.format("damage"))
    import pickle

    with pytest.raises(engine.InputError, match="nothing was rolled"):
        pickle.loads(pickle.dumps(dist)).value("damage")
    path.write_text(SHOT.replace("values: {damage: 0}", "values: {total: 1}"))
    r = cli("test", str(path))
    assert (
        "'total' has no value in this roll: an auto rule decided the outcome before the roll" in r.out + r.err
    )


TINY = """rulecraft: 1
name: tiny
checks:
  act:
    inputs:
      need: {type: int, min: 9, max: 10, default: 10}
    roll:
      p: {pool: 10, die: 100}
    outcomes: [lo, hi]
    outcome: "'hi' if count(p, 100) >= need else 'lo'"
    outputs:
      tops: count(p, 100)
"""


def test_a_tiny_chance_never_reads_as_zero_percent(cli, tmp_path: Path) -> None:
    """Review: `prob`'s outcomes and values, `--sweep` and `--policy all` printed a chance of
    1e-20 as 0.00% (beside its exact fraction, or alone in a sweep), while a scene's odds showed
    one as `1.0e-18%`: every table of chances now reads them through `render.percent`, and a
    column is as wide as its widest cell."""
    from engine.tools.render import percent

    path = tmp_path / "tiny.yaml"
    path.write_text(TINY)
    top = Fraction(1, 100**10)
    nine = 10 * Fraction(99, 100**10) + top  # nine of ten dice on 100, or all ten
    r = cli("prob", str(path), "act")
    assert r.code == 0, r.err
    rows = {line.split()[0]: line.split() for line in r.out.splitlines()[1:]}
    assert rows["hi"][1:3] == [str(top), "1.0e-18%"], r.out
    r = cli("prob", str(path), "act", "--value", "tops")
    assert r.code == 0, r.err
    rows = {line.split()[0]: line.split() for line in r.out.splitlines() if line.startswith("    ")}
    assert rows["10"][1:3] == [str(top), "1.0e-18%"], r.out
    r = cli("prob", str(path), "act", "--sweep", "need=9..10")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    cells = {line.split()[0]: line.split()[1:] for line in lines[-2:]}
    # `lo`, short of 1 by 1e-18 or so, is not shown as a certainty (hunt 13m)
    assert cells == {"9": [">99.99%", percent(nine).strip()], "10": [">99.99%", "1.0e-18%"]}, r.out
    assert len({len(line) for line in lines[-3:]}) == 1, r.out  # the columns line up
    r = cli("prob", str(path), "act", "--policy", "all")
    assert r.code == 0, r.err
    assert [line.split() for line in r.out.splitlines() if line.strip().startswith("hi")] == [
        ["hi", "1.0e-18%", "1.0e-18%", "1.0e-18%"]
    ], r.out


def _long_chances() -> str:
    """Two dice of 1,000 faces, 999 of them 1, each redrawn up to 1,000 times while it shows 1:
    P(both 1) = (999/1000)^2002, a fraction of about 6,000 digits a side."""
    faces = "[" + ", ".join(["1"] * 999 + ["2"]) + "]"
    return f"""rulecraft: 1
name: big
checks:
  a:
    roll:
      x: {{die: {faces}, redraw: {{must: x == 1, times: 1000}}}}
      y: {{die: {faces}, redraw: {{must: y == 1, times: 1000}}}}
    let:
      v: x + y
    outcomes: [lo, hi]
    outcome: "'lo' if x == 1 and y == 1 else 'hi'"
    examples:
      - expect: {{probability: {{lo: {{at_most: 0.1}}}}}}
"""


def test_a_chance_too_long_to_write_is_told_by_its_length(cli, tmp_path: Path) -> None:
    """Hunt: Python writes no whole number of more than 4,300 digits, and `prob`, `prob --value`
    and `test` wrote each chance out in full: a `ValueError` traceback. Past 100 digits a side a
    fraction is now told by its length (`--json` keeps it exact), and the example's message too."""
    path = tmp_path / "big.yaml"
    path.write_text(_long_chances())
    lo = Fraction(999, 1000) ** 2002
    assert lo.denominator == 10**6006  # 6,007 digits: past Python's 4,300
    digits = 6007
    r = cli("prob", str(path), "a")
    assert r.code == 0, r.err
    assert f"  lo  (a fraction of {digits:,} digits)   13.49%" in r.out, r.out
    r = cli("prob", str(path), "a", "--value", "v")
    assert r.code == 0, r.err
    assert f"    2  (a fraction of {digits:,} digits)   13.49%" in r.out, r.out
    assert "  v: mean ≈ 3.265" in r.out, r.out
    r = cli("test", str(path))
    assert r.code == 1, r.err
    assert f"got (a fraction of {digits:,} digits) ≈ {float(lo):.4f}" in r.out + r.err
    r = cli("prob", str(path), "a", "--json")
    assert r.code == 0, r.err
    n, d = json.loads(r.out)["outcomes"]["lo"].split("/")
    assert Fraction(int(n, 16), int(d, 16)) == lo  # exact, in hexadecimal past Python's bound


def test_a_fraction_of_a_hundred_digits_is_written_whole() -> None:
    """The bound is 100 digits a side: 100 are written out (a scene's chance in docs/scenes.md
    has 71), 101 told by their length, counted exactly at each power of ten."""
    from engine.tools.render import exact, fraction

    assert fraction(Fraction(1, 10**100 - 1)) == f"1/{10**100 - 1}"
    assert fraction(Fraction(1, 10**100)) == "(a fraction of 101 digits)"
    assert exact(Fraction(10**150)) == "(a fraction of 151 digits)"
    assert exact(Fraction(10**150 - 1)) == "(a fraction of 150 digits)"
    assert exact(Fraction(-(10**150), 3)) == "(a fraction of 151 digits)"
    assert (exact(Fraction(3)), fraction(Fraction(3))) == ("3", "3/1")
