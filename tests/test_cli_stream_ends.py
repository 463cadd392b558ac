"""What the command line does when its output cannot go on as written (hunt 13m).

- A reader that goes away (`validate … | head -1`): the rest of the text is dropped and the
  command ends with its own status. It returned 0 whatever it found, so a CI step under
  `set -o pipefail` passed on broken rulesets.
- A terminal whose encoding lacks a character (`PYTHONIOENCODING=ascii`): the character is written
  as its escape, where `list` and `roll` ended in a UnicodeEncodeError traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BAD = "rulecraft: 1\nname: b{n}\nchecks: {{c: {{roll: {{a: {{die: 6}}}}, outcomes: [x], outcome: y}}}}\n"
GOOD = "rulecraft: 1\nname: g{n}\nchecks: {{c: {{roll: {{a: {{die: 6}}}}, outcomes: [x], outcome: x}}}}\n"


def _files(folder: Path, text: str, n: int) -> Path:
    folder.mkdir()
    for i in range(n):
        (folder / f"r{i:03}.yaml").write_text(text.format(n=i))
    return folder


def _first_line_then_close(argv: list[str], env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run the command, read one line of its output, close the pipe (as `head -1` does), and
    return its status, that line and its standard error."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "engine", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    assert proc.stdout is not None and proc.stderr is not None
    line = proc.stdout.readline().decode()
    proc.stdout.close()
    with proc.stderr:
        err = proc.stderr.read().decode()
    return proc.wait(timeout=300), line, err


@pytest.mark.parametrize("kind", ["json", "text"])
def test_a_failing_validate_whose_reader_leaves_still_fails(tmp_path: Path, kind: str) -> None:
    folder = _files(tmp_path / "bad", BAD, 300)  # 200 KB of JSON: more than a pipe holds
    code, line, err = _first_line_then_close(["validate", "--format", kind, str(folder)])
    assert line.strip(), "nothing was written before the reader left"
    assert code == 1, (code, err)
    assert "Traceback" not in err and "Exception ignored" not in err, err


def test_a_passing_validate_whose_reader_leaves_passes(tmp_path: Path) -> None:
    folder = _files(tmp_path / "good", GOOD, 300)
    code, line, err = _first_line_then_close(["validate", "--format", "json", str(folder)])
    assert code == 0 and line.strip(), (code, err)
    assert "Traceback" not in err and "Exception ignored" not in err, err


def test_many_rolls_whose_reader_leaves_end_well() -> None:
    code, line, err = _first_line_then_close(["prob", "chill", "specific", "--sweep", "target=1..120"])
    assert code == 0 and "Specific" in line, (code, line, err)
    assert err == "", err


def test_a_terminal_without_the_characters_gets_their_escapes() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "engine", "list"],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
        timeout=120,
    )
    assert run.returncode == 0, run.stderr.decode()
    text = run.stdout.decode("ascii")  # every byte is ASCII
    assert "\\u2014" in text and "Traceback" not in run.stderr.decode()
