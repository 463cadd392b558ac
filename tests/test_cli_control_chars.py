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


def test_json_is_left_as_json_writes_it(cli: Any, coin: Path) -> None:
    """JSON escapes every character past ASCII itself: the writer changes none of it."""
    r = cli("roll", str(coin), "flip", "--seed", "1", "--json")
    assert r.code == 0 and json.loads(r.out)["outcome"] in ("heads", "tails")
    assert "\\\\x" not in r.out


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
