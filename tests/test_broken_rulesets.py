"""Every broken ruleset in tests/broken/ gets its diagnostic, never a traceback.

Each file holds one mistake and says on its first line what `rulecraft validate` must report
first (the most likely root cause):

    # expect: RC301 11:15 unknown name 'rol' | hint: did you mean 'roll'?

code, line:column (`-` for a problem with no place in the file), a fragment of the message and,
optionally, the exact hint. Errors make `validate` exit 1; a file whose first finding is a
warning passes (exit 0) and fails under `--strict`.

The expectations are checked file by file; `rulecraft validate` also runs over the whole
folder, once as text, once with `--strict`, once as JSON (all in this process, through the
`cli` fixture).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from _repo import REPO_ROOT

BROKEN = REPO_ROOT / "tests" / "broken"
HEADER = re.compile(
    r"^# expect: (?P<code>RC\d{3}) (?P<pos>\d+:\d+|-) (?P<fragment>.+?)(?: \| hint: (?P<hint>.+))?$"
)
WARNING_CODES = {"RC802", "RC803", "RC804", "RC805", "RC806", "RC807"}


@dataclass(frozen=True)
class Expect:
    path: Path
    code: str
    line: int | None
    column: int | None
    fragment: str
    hint: str | None

    @property
    def rel(self) -> str:
        return str(self.path.relative_to(REPO_ROOT))


def expectations() -> list[Expect]:
    found = []
    for path in sorted(BROKEN.glob("*.yaml")):
        first = path.read_bytes().split(b"\n", 1)[0].decode("utf-8")
        m = HEADER.match(first)
        assert m, f"{path.name}: first line must be '# expect: CODE LINE:COL fragment'"
        line, column = (int(x) for x in m["pos"].split(":")) if m["pos"] != "-" else (None, None)
        found.append(Expect(path, m["code"], line, column, m["fragment"], m["hint"]))
    return found


EXPECT = expectations()


def test_the_corpus_is_large_and_covers_every_stage():
    assert len(EXPECT) >= 30
    codes = {e.code for e in EXPECT}
    # load, every schema code, expressions, names/types/structure, examples, and the linter
    for code in (
        "RC001",
        "RC002",
        "RC003",
        "RC101",
        "RC102",
        "RC103",
        "RC104",
        "RC105",
        "RC201",
        "RC301",
        "RC302",
        "RC303",
        "RC304",
        "RC305",
        "RC306",
        "RC307",
        "RC308",
        "RC310",
        "RC312",
        "RC313",
        "RC702",
        "RC801",
        "RC802",
        "RC803",
        "RC804",
        "RC805",
        "RC806",
        "RC807",
        "RC808",
    ):
        assert code in codes, code


@pytest.mark.parametrize("e", EXPECT, ids=lambda e: e.path.stem)
def test_first_diagnostic_is_pinned(e: Expect, cli):
    code, out, err = cli("validate", "--format", "json", str(e.path))
    data = json.loads(out)
    (entry,) = data["files"]
    first = entry["diagnostics"][0]
    assert (first["code"], first["line"], first["column"]) == (e.code, e.line, e.column), first
    assert e.fragment in first["message"], first["message"]
    if e.hint is not None:
        assert first["hint"] == e.hint
    warning = e.code in WARNING_CODES
    assert first["severity"] == ("warning" if warning else "error")
    assert code == (0 if warning else 1)
    assert entry["ok"] is warning
    if first["line"] is not None:
        assert first["file"] == str(e.path)


@pytest.mark.parametrize("e", EXPECT, ids=lambda e: e.path.stem)
def test_text_shows_the_place_and_a_caret(e: Expect, cli):
    code, out, err = cli("validate", str(e.path))
    severity = "warning" if e.code in WARNING_CODES else "error"
    if e.line is None:
        assert f"{severity} {e.code}: " in err
        return
    head = f"{e.path}:{e.line}:{e.column}: {severity} {e.code}: "
    assert head in err, err
    lines = err[err.index(head) :].splitlines()
    source, caret = lines[1], lines[2]
    assert source.strip() and caret.strip().startswith("^")
    assert caret.index("^") == e.column + 1  # two spaces of indent, then the column


@pytest.mark.parametrize("e", [e for e in EXPECT if e.code in WARNING_CODES], ids=lambda e: e.path.stem)
def test_warnings_fail_under_strict(e: Expect, cli):
    code, out, err = cli("validate", "--strict", "--format", "json", str(e.path))
    first = json.loads(out)["files"][0]["diagnostics"][0]
    assert code == 1 and first["code"] == e.code and first["severity"] == "error"


def test_validate_the_folder_text(cli):
    r = cli("validate", "tests/broken/")
    assert r.code == 1
    for e in EXPECT:
        status = "ok      " if e.code in WARNING_CODES else "FAILED  "
        assert f"{status}{e.rel}" in r.out, e.rel
        assert f" {e.code}: " in r.err
    assert f"of {len(EXPECT)} file(s) failed" in r.out


def test_validate_the_folder_strict_fails_every_file(cli):
    r = cli("validate", "--strict", "tests/broken/")
    assert r.code == 1
    for e in EXPECT:
        assert f"FAILED  {e.rel}" in r.out, e.rel
    assert f"{len(EXPECT)} of {len(EXPECT)} file(s) failed" in r.out


def test_validate_the_folder_json_agrees(cli):
    r = cli("validate", "--format", "json", "--strict", "tests/broken/")
    assert r.code == 1
    data = json.loads(r.out)
    assert data["ok"] is False
    by_file = {f["file"]: f for f in data["files"]}
    for e in EXPECT:
        entry = by_file[e.rel]
        assert entry["ok"] is False
        first = entry["diagnostics"][0]
        assert (first["code"], first["line"], first["column"]) == (e.code, e.line, e.column)
        assert set(first) >= {"file", "line", "column", "severity", "code", "message", "hint"}
