"""docs/diagnostics.md documents every diagnostic code, and its examples are run.

- every code that appears anywhere in engine/ has a section (`## RCnnn`), and no section names a
  code the engine does not have;
- every code but RC601 (which needs matplotlib missing) has a bad and a fixed example;
- ```yaml bad RCnnn``` blocks are rulesets that `rulecraft validate` (or `rulecraft test`)
  reports with that code; ```yaml fixed RCnnn``` blocks validate and test with no diagnostic;
- ```console``` blocks run their `$ rulecraft ...` lines in a folder holding the page's
  `demo.yaml`: a bad one prints its code, a fixed one exits 0;
- ```python``` blocks run as written: a bad one raises a `RulecraftError` carrying its code.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from _fences import fences
from _repo import REPO_ROOT

import engine

DOC = REPO_ROOT / "docs" / "diagnostics.md"
CODE = re.compile(r"RC[0-9]{3}")


@dataclass(frozen=True)
class Block:
    line: int
    lang: str
    kind: str  # bad | fixed | file | ""
    arg: str  # the code, or the file name
    text: str

    @property
    def id(self) -> str:
        return f"{self.lang}-{self.kind}-{self.arg}-line{self.line}"


def blocks() -> list[Block]:
    found: list[Block] = []
    for f in fences(DOC):
        words = f.info.split()
        kind = words[1] if len(words) > 1 else ""
        arg = words[2] if len(words) > 2 else ""
        found.append(Block(f.line, words[0], kind, arg, f.text))
    return found


BLOCKS = blocks()
EXAMPLES = [b for b in BLOCKS if b.kind in ("bad", "fixed")]
DEMO = next(b.text for b in BLOCKS if b.kind == "file" and b.arg == "demo.yaml")


def engine_codes() -> set[str]:
    codes: set[str] = set()
    for path in (REPO_ROOT / "engine").rglob("*.py"):
        codes |= set(CODE.findall(path.read_text(encoding="utf-8")))
    return codes


def test_every_engine_code_has_a_section_and_no_section_is_stale():
    text = DOC.read_text(encoding="utf-8")
    sections = set(re.findall(r"^## (RC[0-9]{3})$", text, re.MULTILINE))
    codes = engine_codes()
    assert len(codes) >= 40
    assert codes - sections == set(), "codes without a section in docs/diagnostics.md"
    assert sections - codes == set(), "sections for codes the engine does not have"


def test_every_code_has_a_bad_and_a_fixed_example():
    for code in sorted(engine_codes() - {"RC601"}):
        kinds = {b.kind for b in EXAMPLES if b.arg == code}
        assert kinds == {"bad", "fixed"}, code


def codes_reported(cli, path: Path) -> tuple[set[str], int, int]:
    """Codes of the diagnostics from `validate` and `test` (JSON), and both exit codes."""
    found: set[str] = set()
    exits = []
    for command in ("validate", "test"):
        r = cli(command, "--format", "json", str(path), cwd=path.parent)
        exits.append(r.code)
        for entry in json.loads(r.out + r.err)["files"]:
            found |= {d["code"] for d in entry["diagnostics"]}
    return found, exits[0], exits[1]


@pytest.mark.parametrize("block", EXAMPLES, ids=lambda b: b.id)
def test_example(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli):
    (tmp_path / "demo.yaml").write_text(DEMO, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    if block.lang == "yaml":
        path = tmp_path / "example.yaml"
        path.write_text(block.text, encoding="utf-8")
        found, v_code, t_code = codes_reported(cli, path)
        if block.kind == "bad":
            assert block.arg in found
            assert (
                v_code == 1
                or t_code == 1
                or block.arg
                in ("RC802", "RC803", "RC804", "RC805", "RC806", "RC807", "RC809", "RC810", "RC314")
            )
        else:
            assert (v_code, t_code) == (0, 0) and not found, found
            r = cli("validate", "--format", "json", str(path), cwd=tmp_path)
            data = json.loads(r.out + r.err)
            assert data["files"][0]["diagnostics"] == []
    elif block.lang == "console":
        commands = [line[2:] for line in block.text.splitlines() if line.startswith("$ ")]
        assert commands and all(c.startswith("rulecraft ") for c in commands)
        for command in commands:
            code, out, err = cli(*shlex.split(command)[1:], cwd=tmp_path)
            text = out + err
            if block.kind == "bad":
                assert code != 0 and f" {block.arg}:" in text, text
            else:
                assert code == 0 and " error RC" not in text, text
    else:
        assert block.lang == "python"
        if block.kind == "bad":
            with pytest.raises(engine.RulecraftError) as caught:
                exec(compile(block.text, f"{DOC}:{block.line}", "exec"), {})
            assert block.arg in {d.code for d in caught.value.diagnostics}
        else:
            exec(compile(block.text, f"{DOC}:{block.line}", "exec"), {})


def test_rc601_example_prints_what_the_page_shows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli):
    """RC601 has no bad and fixed pair (it needs matplotlib missing): its first command, run with
    matplotlib made unimportable, prints the lines the page shows up to its next `$` line (the
    table on standard output, then the error and hint) and exits with 1."""
    (block,) = [b for b in BLOCKS if b.lang == "console" and "error RC601" in b.text]
    lines = block.text.splitlines()
    assert lines[0].startswith("$ rulecraft ")
    shown = lines[1 : next(i for i, line in enumerate(lines) if i and line.startswith("$ "))]
    (tmp_path / "demo.yaml").write_text(DEMO, encoding="utf-8")
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` fails, as if absent
    code, out, err = cli(*shlex.split(lines[0][2:])[1:], cwd=tmp_path)
    assert code == 1
    assert [line.rstrip() for line in (out + err).splitlines()] == [line.rstrip() for line in shown]


def test_rc601_fixed_prints_what_the_page_shows(tmp_path: Path, cli):
    """With the extra installed (the `test` extra has matplotlib), the same command, the block's
    last, prints the lines the page shows after it, draws the file and exits with 0."""
    pytest.importorskip("matplotlib")
    (block,) = [b for b in BLOCKS if b.lang == "console" and "error RC601" in b.text]
    lines = block.text.splitlines()
    last = max(i for i, line in enumerate(lines) if line.startswith("$ rulecraft "))
    (tmp_path / "demo.yaml").write_text(DEMO, encoding="utf-8")
    code, out, err = cli(*shlex.split(lines[last][2:])[1:], cwd=tmp_path)
    assert code == 0, err
    assert [line.rstrip() for line in (out + err).splitlines()] == [
        line.rstrip() for line in lines[last + 1 :]
    ]
    assert (tmp_path / "act.svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")


_SHOWN = re.compile(r"^(?P<file>[\w.-]+\.yaml):\d+:\d+: (?:error|warning) (?P<code>RC[0-9]{3}): ")
SHOWN = [
    (before, b)
    for before, b in zip(BLOCKS, BLOCKS[1:])
    if b.lang == "text" and (m := _SHOWN.match(b.text)) and before.kind == "bad" and before.arg == m["code"]
]


def test_the_page_shows_a_bad_example_s_message() -> None:
    assert SHOWN  # the RC002 message under its example, at least


@pytest.mark.parametrize(("bad", "shown"), SHOWN, ids=lambda b: b.id)
def test_a_shown_message_is_what_validate_prints(bad: Block, shown: Block, tmp_path: Path, cli) -> None:
    """A ```text block that follows a bad example and begins with its diagnostic is that
    example's `validate` output, line for line: position, message, source line, carets, hint."""
    m = _SHOWN.match(shown.text)
    assert m is not None
    (tmp_path / m["file"]).write_text(bad.text, encoding="utf-8")
    code, out, err = cli("validate", m["file"], cwd=tmp_path)
    assert code == 1
    printed = (out + err).splitlines()
    lines = shown.text.rstrip("\n").splitlines()
    start = printed.index(lines[0])
    assert printed[start : start + len(lines)] == lines


def test_the_page_s_first_output_is_its_rc301_example_s(tmp_path: Path, cli) -> None:
    """The output at the top of the page is what `validate` prints for the `RC301` example saved
    as `mygame.yaml`, whole (it had shown a line no file on the page made, hunt 13zk)."""
    [top] = [b for b in BLOCKS if b.lang == "text" and b.text.startswith("$ rulecraft validate mygame.yaml")]
    [bad] = [b for b in BLOCKS if b.kind == "bad" and b.arg == "RC301"]
    (tmp_path / "mygame.yaml").write_text(bad.text, encoding="utf-8")
    code, out, err = cli("validate", "mygame.yaml", cwd=tmp_path)
    assert code == 1
    printed = sorted(line.rstrip() for line in (out + err).splitlines())
    assert printed == sorted(line.rstrip() for line in top.text.splitlines()[1:])


def test_the_engine_lists_every_code_it_has() -> None:
    """`errors.CODES` (what a state example's `refused:` may name) is every code the engine uses."""
    from engine.errors import CODES

    assert engine_codes() == set(CODES)


def test_the_path_steps_a_campaign_name_cannot_be_are_said_refused() -> None:
    """`.` and `..` are RC410 (a path step), and the pages that list what a campaign's name may
    not be say so; `...` is a name, as their "any other text" says."""
    from engine.runtime.arguments import kept_name

    for step in (".", ".."):
        with pytest.raises(engine.RulecraftError) as caught:
            kept_name("new_campaign", "name", step, "campaign")
        assert [d.code for d in caught.value.diagnostics] == ["RC410"]
    kept_name("new_campaign", "name", "...", "campaign")
    rc410 = DOC.read_text(encoding="utf-8").split("## RC410", 1)[1].split("\n## ", 1)[0]
    language = (REPO_ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    campaigns = language[language.index("A campaign's name and a character's name are") :][:800]
    row = next(line for line in language.splitlines() if line.startswith("| RC410 |"))
    for said in (rc410, campaigns, row):
        assert "is `.` or `..`" in said or "not `.` or `..`" in said, said[:200]
