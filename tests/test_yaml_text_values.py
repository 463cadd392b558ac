"""Text a double-quoted escape or a plain date makes (hunt 13m).

- `title: "\\ud800"` validated, then `show`, `roll`, `prob` and `scene` ended in a
  `UnicodeEncodeError` traceback: no terminal or file writes a lone surrogate. It is now RC002 at
  the quoted text, as a lone surrogate in the file's own bytes already was.
- `source: 2019-05-03` was a `datetime.date` (ruamel resolves dates in YAML 1.2 too) and RC103
  "should be a string, not a value YAML could not give plainly", where check-jsonschema and every
  YAML 1.2 core-schema reader take the text: the tutorial says rulecraft reads the file alike.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import engine
from engine.errors import RulecraftError
from engine.syntax.positions import SourceFile

BODY = """\
checks:
  c:
    roll:
      a: {die: 6}
    outcomes: [lo, hi]
    outcome: "'hi' if a > 3 else 'lo'"
"""


def _refused(text: str) -> engine.Diagnostic:
    with pytest.raises(RulecraftError) as info:
        engine.load_source(SourceFile("s.yaml", text))
    assert len(info.value.diagnostics) == 1, str(info.value)
    return info.value.diagnostics[0]


@pytest.mark.parametrize(
    ("line", "escape"),
    [
        ('title: "\\ud800 red"', "\\ud800"),
        ('title: "ok \\udfff"', "\\udfff"),
        ('title: "\\ud83d\\ude00"', "\\ud83d"),  # a pair, which JSON reads as one character
        ('notes:\n  - {id: "n\\udc00", text: x}', "\\udc00"),
        ('"k\\ud800": 1', "\\ud800"),  # a key (an unknown one, after this)
    ],
)
def test_a_lone_surrogate_escape_is_rc002_at_the_text(line: str, escape: str) -> None:
    text = f"rulecraft: 1\nname: s\n{line}\n{BODY}"
    d = _refused(text)
    assert d.code == "RC002", str(d)
    assert d.message == f"this text holds the lone surrogate {escape}, which is not a character"
    assert d.span is not None
    row = text.split("\n")[d.span.line - 1]
    assert row[d.span.col - 1] == '"' and escape.lower() in row.lower()
    assert d.span.end_col > d.span.col + len(escape)
    assert "\\U0001F600" in (d.hint or "")


def test_the_whole_code_point_escape_is_text() -> None:
    rs = engine.load_source(SourceFile("s.yaml", f'rulecraft: 1\nname: s\ntitle: "\\U0001F600 go"\n{BODY}'))
    assert rs.title == "\U0001f600 go"


def test_show_and_roll_of_such_a_file_are_one_message_not_a_traceback(tmp_path: Path) -> None:
    f = tmp_path / "sur.yaml"
    f.write_text(f'rulecraft: 1\nname: t\ntitle: "\\ud800 x"\n{BODY}')
    for argv in (["validate", str(f)], ["show", str(f)], ["roll", str(f), "c", "--seed", "1"]):
        run = subprocess.run(
            [sys.executable, "-m", "engine", *argv], capture_output=True, text=True, timeout=120
        )
        assert run.returncode == 1, (argv, run.stdout, run.stderr)
        both = run.stdout + run.stderr
        assert "Traceback" not in both and "RC002" in both and "sur.yaml:3:8" in both, both


@pytest.mark.parametrize("yaml_version", ["", "%YAML 1.1\n---\n"])
def test_a_plain_date_is_its_text(yaml_version: str) -> None:
    text = (
        f"{yaml_version}rulecraft: 1\nname: s\nsource: 2019-05-03\n"
        "notes:\n  - {id: 2024-01-01, text: Errata of that day.}\n" + BODY
    )
    rs = engine.load_source(SourceFile("s.yaml", text))
    assert rs.document.data["source"] == "2019-05-03"
    assert rs.document.data["notes"][0]["id"] == "2024-01-01"


def test_an_explicit_timestamp_tag_is_still_refused() -> None:
    d = _refused(f"rulecraft: 1\nname: s\nsource: !!timestamp 2019-05-03\n{BODY}")
    assert d.code == "RC002" and "'!!timestamp' is not one a ruleset may use" in d.message
