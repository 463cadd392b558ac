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
