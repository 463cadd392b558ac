"""Control characters from a ruleset reach the terminal escaped (hunt 11b): a stranger's ruleset
whose check has `title: "\\e[2Jx"` validated, and `rulecraft roll` wrote the raw escape sequence,
which cleared the screen; a raw ESC in a line was echoed inside RC002's excerpt. The command
line's text passes through one writer that shows C0 (but tab and newline), DEL and C1 as `\\x1b`,
and the excerpt escapes its line, its carets still under their place (docs/security.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from engine.syntax.positions import visible

RULESET = """\
rulecraft: 1
name: coin
title: "tab\\there \\x9bC1 \\x7fDEL"
checks:
  flip:
    title: "\\e[2Jx"
    roll:
      d: {die: 2}
    outcomes: [tails, heads]
    outcome: "'heads' if d == 2 else 'tails'"
"""

RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@pytest.fixture
def coin(tmp_path: Path) -> Path:
    path = tmp_path / "coin.yaml"
    path.write_text(RULESET, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "argv", [["roll", "flip", "--seed", "1"], ["prob", "flip"], ["show"], ["show", "flip"], ["test"]]
)
def test_a_title_s_escape_sequence_is_shown_not_acted_on(cli: Any, coin: Path, argv: list[str]) -> None:
    r = cli(argv[0], str(coin), *argv[1:])
    assert r.code == 0, r.err
    assert RAW.search(r.out + r.err) is None, repr(r.out)
    if argv[0] != "test":
        assert "\\x1b[2Jx" in r.out


def test_the_ruleset_title_keeps_its_tab_and_shows_c1_and_del(cli: Any, coin: Path) -> None:
    assert "coin: tab\there \\x9bC1 \\x7fDEL" in cli("show", str(coin)).out


def test_json_is_left_as_json_writes_it(cli: Any, tmp_path: Path) -> None:
    """JSON escapes every character past ASCII itself (a key holding DEL is `\\u007f` in it): the
    writer changes none of it, so it still reads back as the text the ruleset wrote (review AU: a
    `roll --json` carries no ruleset text, so it could not tell)."""
    path = tmp_path / "del.yaml"
    path.write_text(RULESET.replace("    roll:", '    "ro\\x7flls": 1\n    roll:'), encoding="utf-8")
    r = cli("validate", str(path), "--format", "json")
    assert r.code == 1 and RAW.search(r.out) is None, r.out
    assert "\\u007f" in r.out and "\\\\x7f" not in r.out, r.out
    assert "ro\x7flls" in json.dumps(json.loads(r.out), ensure_ascii=False), r.out


def test_a_file_name_s_c1_byte_is_shown_escaped(cli: Any, tmp_path: Path) -> None:
    """A file name's byte 0x9b that is no UTF-8 is held by Python as U+DC9B and written back raw:
    an 8-bit CSI to a terminal (review AU). It is shown as `\\x9b`."""
    import os

    folder = tmp_path / "bin"
    folder.mkdir()
    try:
        (folder / os.fsdecode(b"\x9b31m.yaml")).write_text(RULESET, encoding="utf-8")
    except (OSError, UnicodeError):
        pytest.skip("this file system takes no such name")
    r = cli("validate", str(folder))
    shown = r.out + r.err
    assert "\\x9b31m.yaml" in shown, shown
    assert "\udc9b" not in shown and RAW.search(shown) is None, repr(shown)


def test_a_raw_escape_in_a_line_is_escaped_in_the_excerpt_under_its_caret(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "esc.yaml"
    path.write_text("rulecraft: 1\nname: coin\ndescription: a\x1b[31mRED\n", encoding="utf-8")
    r = cli("validate", str(path))
    assert r.code == 1 and "RC002" in r.err
    assert RAW.search(r.err) is None, repr(r.err)
    lines = r.err.splitlines()
    shown = next(i for i, line in enumerate(lines) if "description:" in line)
    assert lines[shown] == "  description: a\\x1b[31mRED"
    carets = lines[shown + 1]
    assert carets.strip() == "^^^^" and lines[shown].index("\\x1b") == carets.index("^"), (
        lines[shown],
        carets,
    )


def test_visible_leaves_tab_newline_and_printable_text_alone() -> None:
    text = "a\tb\nc é 漢 🎲 \u200d"
    assert visible(text) is text
    assert visible("\x00\x1b\x7f\x85\x9f\r") == "\\x00\\x1b\\x7f\\x85\\x9f\\x0d"


# A value's newline and tab (fix 12b): a file name, or a name a message quotes, is one value, and
# its newline split the line it was put in: `file:line:col` over two lines, `wrote x` / `y.json`.


def _odd_name(folder: Path, name: str) -> Path:
    try:
        path = folder / name
        path.write_text(RULESET.replace("checks:", "bogus: 1\nchecks:"), encoding="utf-8")
    except (OSError, UnicodeError):
        pytest.skip("this file system takes no such name")
    return path


def test_a_file_name_s_newline_and_tab_are_escaped_in_a_diagnostic_s_place(cli: Any, tmp_path: Path) -> None:
    path = _odd_name(tmp_path, "b\tad\nx.yaml")
    r = cli("validate", str(path))
    assert r.code == 1
    assert f"FAILED  {tmp_path}/b\\tad\\nx.yaml\n" in r.out, r.out
    place = f"{tmp_path}/b\\tad\\nx.yaml:"
    heads = [line for line in r.err.splitlines() if "error RC" in line]
    assert heads and all(line.startswith(place) for line in heads), r.err
    assert "  bogus: 1\n  ^^^^^\n" in r.err, r.err  # the text's own lines stay lines


def test_a_name_given_with_a_newline_is_quoted_on_one_line(cli: Any, coin: Path) -> None:
    r = cli("roll", str(coin), "no\nsuch")
    assert r.code == 1 and "RC402" in r.err
    head = r.err.splitlines()[0]
    assert head.endswith("has no check 'no\\nsuch'"), r.err


def test_a_written_file_s_newline_is_escaped(cli: Any, tmp_path: Path) -> None:
    db = str(tmp_path / "k\n.db")
    made = cli("campaign", "--db", db, "new", "c", "chill", "-p", "players=2")
    assert made.code == 0, made.err
    assert f"in {tmp_path}/k\\n.db\n" in made.out, made.out
    target = tmp_path / "x\ny.json"
    r = cli("campaign", "--db", db, "export", "c", "-o", str(target))
    assert r.code == 0 and target.exists(), r.err
    assert r.out == f"wrote {tmp_path}/x\\ny.json: 1 events of campaign 'c'\n", r.out


# argparse's own messages (fix 12b): it writes to standard error itself, and quoted what was given.


@pytest.mark.parametrize(
    "argv",
    [
        ["roll", "RULESET", "flip", "--bogus", "\x1b]0;pwn\a"],
        ["roll", "RULESET", "flip", "\x1b[2J"],
        ["campaign", "show", "c", "--db", "\x1b[2J"],
        ["--bogus", "\x1b]0;pwn\a"],
    ],
)
def test_a_usage_error_shows_the_given_control_characters_escaped(
    cli: Any, coin: Path, argv: list[str]
) -> None:
    r = cli(*[str(coin) if a == "RULESET" else a for a in argv])
    assert r.code == 2, (r.out, r.err)
    assert "usage:" in r.err and RAW.search(r.out + r.err) is None, repr(r.err)
    assert "\\x1b" in r.err, r.err


# Unicode's bidirectional controls (fix 12b): drawn as nothing, they reorder the line they are on.

BIDI_CONTROL = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
"""Unicode's property Bidi_Control (PropList.txt), which `visible` escapes whole."""


def test_visible_escapes_every_bidi_control() -> None:
    import unicodedata

    explicit = {"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"}
    found = {chr(c) for c in range(0x110000) if unicodedata.bidirectional(chr(c)) in explicit}
    assert found | {"\u200e", "\u200f", "\u061c"} == set(BIDI_CONTROL)
    for c in BIDI_CONTROL:
        assert visible(f"a{c}b") == f"a\\u{ord(c):04x}b"
    assert visible("\u200d\u2028 עברית") == "\u200d\u2028 עברית"  # a joiner, hebrew: drawn, not reordering


def test_a_bidi_override_is_escaped_in_titles_and_under_its_caret(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "bidi.yaml"
    path.write_text(
        RULESET.replace("tab\\there", "coin \u202eevil\u202c").replace("\\e[2Jx", "fl\u2067ip"),
        encoding="utf-8",
    )
    shown = cli("show", str(path))
    assert shown.code == 0, shown.err
    assert "coin \\u202eevil\\u202c" in shown.out and "fl\\u2067ip" in shown.out, shown.out
    path.write_text(RULESET.replace("'heads' if", "'he\u202eads' if"), encoding="utf-8")
    r = cli("validate", str(path))
    assert r.code == 1 and "RC305" in r.err, r.err
    assert not set(BIDI_CONTROL) & set(r.out + r.err), repr(r.err)
    lines = r.err.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("      outcome:"))
    assert lines[at] == "      outcome: \"'he\\u202eads' if d == 2 else 'tails'\"", lines[at]
    assert lines[at + 1] == " " * lines[at].index("'he") + "^" * len("'he\\u202eads'"), lines[at + 1]
