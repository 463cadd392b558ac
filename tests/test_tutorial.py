"""docs/tutorial.md is real: `lantern.yaml` is built as a reader builds it, step by step, and every
command the tutorial shows prints exactly what it shows, on both streams in the order a terminal
shows them (test_docs.py only loads its complete rulesets).

How the reader's file is followed, from the blocks alone:
- step 1's file is empty; step 2's one-line fragment `rulecraft: 1` is the whole file;
- a complete ```yaml block is the file from then on;
- a one-line fragment is a mistake made in the file: it takes the place of the line it most
  resembles, for the commands right after it only (the tutorial fixes each before the next);
- a fragment that starts with `examples:` is added at the end of the file (under its one check);
- other fragments are parts that the next complete block shows in place.
"""

from __future__ import annotations

import difflib
import shlex
from pathlib import Path

import pytest
from _fences import Fence, fences
from _repo import REPO_ROOT

DOC = REPO_ROOT / "docs" / "tutorial.md"


def blocks() -> list[Fence]:
    return fences(DOC)


def _with_mistake(text: str, mistake: str) -> str:
    """`text` with the line `mistake` most resembles replaced by it."""
    lines = text.splitlines()
    scores = [difflib.SequenceMatcher(None, line.strip(), mistake.strip()).ratio() for line in lines]
    best = max(range(len(lines)), key=scores.__getitem__)
    assert scores[best] > 0.8, f"no line of the file is like the mistake {mistake!r}"
    assert sorted(scores)[-2] < scores[best], f"two lines are alike the mistake {mistake!r}"
    lines[best] = mistake.rstrip("\n")
    return "\n".join(lines) + "\n"


def sessions() -> list[tuple[Fence, str]]:
    """Each console block, with the text of `lantern.yaml` when the reader runs it."""
    out: list[tuple[Fence, str]] = []
    complete = current = ""
    for b in blocks():
        if b.info == "yaml":
            complete = current = b.text
        elif b.info == "yaml fragment":
            if b.text.strip() == "rulecraft: 1":
                complete = current = b.text
            elif b.text.lstrip().startswith("examples:"):
                current = complete + b.text
            elif len(b.text.strip().splitlines()) == 1:
                current = _with_mistake(complete, b.text)
        elif b.info == "console":
            out.append((b, current))
            current = complete if current.count("\n") == complete.count("\n") else current
    return out


SESSIONS = sessions()


def test_the_tutorial_has_its_sessions() -> None:
    assert len(SESSIONS) >= 15, [b.line for b, _ in SESSIONS]
    files = [text for _, text in SESSIONS]
    assert files[0] == "" and files[1] == "rulecraft: 1\n"
    assert any("totl" in text for text in files) and any("examples:" in text for text in files)


def _commands(text: str) -> list[tuple[str, list[str]]]:
    found: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            found.append((line[2:], []))
        else:
            found[-1][1].append(line)
    return found


@pytest.mark.parametrize(("block", "file"), SESSIONS, ids=[f"line{b.line}" for b, _ in SESSIONS])
def test_a_tutorial_command_prints_what_the_tutorial_shows(
    block: Fence, file: str, tmp_path: Path, cli_seen
) -> None:
    (tmp_path / "lantern.yaml").write_text(file, encoding="utf-8")
    code: int | None = None
    for command, shown in _commands(block.text):
        expected = [line.rstrip() for line in shown if line.strip()]
        if command == "echo $?":
            assert [str(code)] == expected, f"line {block.line}: the exit status"
            continue
        args = shlex.split(command)
        assert args[0] == "rulecraft", command
        code, seen = cli_seen(*args[1:], cwd=tmp_path)
        printed = [line.rstrip() for line in seen.splitlines() if line.strip()]
        assert printed == expected, f"line {block.line}: {command} prints, in place of what is shown:\n{seen}"


def test_the_github_actions_workflow_is_yaml_that_runs_the_real_commands(tmp_path: Path, cli) -> None:
    """Section 14's workflow: YAML a runner reads (jobs, steps, checkout before the commands), that
    installs rulecraft, and whose `rulecraft` steps pass on a folder of good rulesets and fail
    (exit 1, which fails the job) when one is broken."""
    import shutil

    from ruamel.yaml import YAML

    [block] = [b for b in blocks() if b.info == "yaml fragment" and "runs-on:" in b.text]
    flow = YAML(typ="safe").load(block.text)
    assert flow["on"] == ["push", "pull_request"]
    [job] = flow["jobs"].values()
    steps = job["steps"]
    assert steps[0] == {"uses": "actions/checkout@v4"}
    assert steps[1]["uses"] == "actions/setup-python@v5"
    assert tuple(int(n) for n in steps[1]["with"]["python-version"].split(".")) >= (3, 11)
    runs = [step["run"] for step in steps[2:]]
    assert runs[0].startswith("python -m pip install ") and '"rulecraft @ git+' in runs[0]
    commands = [shlex.split(run) for run in runs[1:]]
    assert [c[:2] for c in commands] == [["rulecraft", "validate"], ["rulecraft", "test"]]
    (tmp_path / "rulesets").mkdir()
    shutil.copy(REPO_ROOT / "rulesets" / "chill.yaml", tmp_path / "rulesets" / "chill.yaml")
    for command in commands:
        r = cli(*command[1:], cwd=tmp_path)
        assert r.code == 0 and "chill.yaml" in r.out, r.out + r.err
    (tmp_path / "rulesets" / "broken.yaml").write_text(
        "rulecraft: 1\nname: broken\nchecks: [\n", encoding="utf-8"
    )
    for command in commands:
        assert cli(*command[1:], cwd=tmp_path).code == 1
