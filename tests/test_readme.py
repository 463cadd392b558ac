"""The README's command-line tour is real: every command shown is run and must print what the
README says it prints (so the tour cannot drift from the code)."""

from __future__ import annotations

import random
import re
import shlex
from pathlib import Path

import pytest
from _repo import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")


def _blocks() -> list[list[tuple[str, list[str]]]]:
    """Each console block as its (command, lines it is shown to print) pairs, in order."""
    return [_commands(block) for block in re.findall(r"```console\n(.*?)```", README, flags=re.S)]


def _sessions() -> list[tuple[str, list[str]]]:
    """(command, lines it is shown to print) for each `$ rulecraft ...` that stands alone: the
    campaign sessions run in order, in their own test."""
    return [pair for block in _blocks() for pair in block if not pair[0].startswith("rulecraft campaign")]


def _commands(block: str) -> list[tuple[str, list[str]]]:
    found: list[tuple[str, list[str]]] = []
    command: str | None = None
    shown: list[str] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            if command:
                found.append((command, shown))
            command, shown = line[2:], []
        elif command:
            shown.append(line)
    if command:
        found.append((command, shown))
    return found


CAMPAIGN_SESSIONS = [b for b in _blocks() if b and b[0][0].startswith("rulecraft campaign")]
EVENT_TIME = re.compile(r"^#[0-9]+ [0-9T:.+-]+ ")


def test_the_readme_campaign_session_prints_what_it_shows(
    tmp_path: Path, cli, repo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The campaign session runs in order against one fresh database; an event's time is the one
    part of its line that cannot be the same."""
    assert CAMPAIGN_SESSIONS, "the README shows a campaign session"
    for block in CAMPAIGN_SESSIONS:
        monkeypatch.setenv("RULECRAFT_DB", str(tmp_path / "campaigns.db"))
        for command, shown in block:
            r = cli(*shlex.split(command)[1:], cwd=repo_root)
            assert r.code == 0, r.out + r.err
            printed = [EVENT_TIME.sub("#N ", line) for line in (r.out + r.err).splitlines()]
            printed = [line.replace(str(tmp_path / "campaigns.db"), "campaigns.db") for line in printed]
            missing = [line for line in shown if line.strip() and EVENT_TIME.sub("#N ", line) not in printed]
            assert not missing, f"{command} no longer prints:\n" + "\n".join(missing) + "\n---\n" + r.out


SESSIONS = _sessions()


def test_the_tour_has_commands() -> None:
    assert len(SESSIONS) >= 8


@pytest.mark.parametrize("command,shown", SESSIONS, ids=[c for c, _ in SESSIONS])
def test_readme_command_prints_what_the_readme_shows(
    command: str, shown: list[str], tmp_path: Path, cli_seen, repo_root: Path
) -> None:
    """Every line the command prints, on either stream and in the order a terminal shows them, and
    no other (blank lines and trailing spaces aside)."""
    args = shlex.split(command)
    assert args[0] == "rulecraft"
    cwd = repo_root
    if "mychill.yaml" in args:  # the linter example: a copy of chill.yaml with a gap at half
        text = (repo_root / "rulesets" / "chill.yaml").read_text()
        text = text.replace(
            "      - when: roll <= target / 2\n        then: high_success\n      - else: low_success",
            "      - when: roll < target / 2\n        then: high_success\n"
            "      - when: roll > target / 2\n        then: low_success",
        )
        (tmp_path / "mychill.yaml").write_text(text)
        cwd = tmp_path
    _, seen = cli_seen(*args[1:], cwd=cwd)
    printed = [line.rstrip() for line in seen.splitlines() if line.strip()]
    assert printed == [line.rstrip() for line in shown if line.strip()], (
        f"{command} prints, in place of what the README shows:\n{seen}"
    )


def test_readme_python_api_block_runs_and_says_true_things() -> None:
    """The README's Python block runs, and the values in its comments are the real ones."""
    [block] = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    scope: dict[str, object] = {}
    exec(compile(block, "README.md", "exec"), scope)  # noqa: S102 - our own README
    from fractions import Fraction

    result, dist = scope["result"], scope["dist"]
    assert result.outcome == "low_success" and "'low_success'" in block  # type: ignore[attr-defined]
    assert result.values["roll"] == 52 and "# 52" in block  # type: ignore[attr-defined]
    assert scope["roll"](random.Random(7)) == result  # type: ignore[operator]
    assert dist.probability("botch") == Fraction(1, 20)  # type: ignore[attr-defined]
    assert dist.at_least("low_success") == Fraction(11, 20)  # type: ignore[attr-defined]
    assert dist.value("roll").mean == Fraction(101, 2)  # type: ignore[attr-defined]
    many = scope["many"]
    assert many.method == "exact" and sum(many.outcomes.values()) == 1_000_000  # type: ignore[attr-defined]
    assert abs(many.outcomes["botch"] / 1_000_000 - 0.05) < 0.002  # type: ignore[attr-defined]
    odds = scope["odds"]
    assert odds.probability("you_win") == Fraction(1, 2)  # type: ignore[attr-defined]
    assert f"{float(odds.expected['you.wound_track']):.3f}" == "0.922" and "0.922..." in block  # type: ignore[attr-defined]
    sampled = scope["castle"].sample_scenes("duel", 800, random.Random(1))  # type: ignore[attr-defined]
    assert str(sampled.endings) == "{'you_win': 382, 'you_lose': 418}" and str(sampled.endings) in block
    first = result.trace[0]  # type: ignore[attr-defined]
    assert (first.kind, first.name, first.value) == ("input", "target", 55)
    assert "Step(kind='input', name='target', value=55)" in block and repr(first) in block


def test_the_playground_screenshot_s_caption_names_the_line_the_browser_test_breaks() -> None:
    """tests/e2e/test_playground.py breaks chill.yaml's row `- when: roll > target` and screenshots
    it (`RULECRAFT_SCREENSHOTS=docs/img`); the README's caption gives that line, so a ruleset
    edit that moves the row is caught here, and the screenshot is made again with it."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(
        r"!\[A syntax error marked at line (\d+) with RC201[^\]]*\]\(docs/img/playground-diagnostics\.png\)",
        readme,
    )
    assert m is not None
    rows = (REPO_ROOT / "rulesets" / "chill.yaml").read_text(encoding="utf-8").split("\n")
    line = next(i for i, text in enumerate(rows, 1) if text.strip() == "- when: roll > target")
    assert int(m[1]) == line


def test_a_shown_serve_folder_is_in_a_fresh_clone() -> None:
    """A `serve --rulesets DIR` the README or server.md shows in a shell block names a folder the
    repository has, so that pasting it from a fresh clone serves (`games/` was `RC407`)."""
    pages = {"README.md": README, "docs/server.md": (REPO_ROOT / "docs" / "server.md").read_text()}
    shown = [
        (page, m[1])
        for page, text in pages.items()
        for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S)
        for m in re.finditer(r"rulecraft serve .*?--rulesets (\S+)", block)
    ]
    assert {page for page, _ in shown} == set(pages), shown
    for page, folder in shown:
        assert (REPO_ROOT / folder).is_dir(), f"{page}: --rulesets {folder} is no folder of the repository"
