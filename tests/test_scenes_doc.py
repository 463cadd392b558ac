"""docs/scenes.md's walkthrough of The Castle's duel shows what the code does.

The section "Worked example: The Castle's duel, step by step" pastes commands with their output in
```console blocks (a `$ rulecraft ...` line, then what it prints) and quotes castle.yaml in
```yaml fragment blocks. Every command is run through the `cli` fixture and must print exactly the
lines shown (trailing spaces aside); every fragment must be a verbatim excerpt of
rulesets/castle.yaml; the table of the Main Gauche policies must quote the odds of its blocks.

Each command runs once. The optimal Main Gauche solve is the slow one (a few seconds). The CLI
would compile castle.yaml again for every command (most of the time of the short ones), so the
commands here share one compiled ruleset: `engine.cli.load` is wrapped to load each file once.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from _repo import REPO_ROOT

import engine
import engine.cli

DOC = REPO_ROOT / "docs" / "scenes.md"
HEADING = "## Worked example: The Castle's duel, step by step"


def section() -> str:
    """The walkthrough: from its heading to the next section of the same level."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index(HEADING + "\n")
    following = text.find("\n## ", start + len(HEADING))
    return text[start : following if following >= 0 else len(text)]


def blocks(info: str) -> list[str]:
    """The bodies of the section's fenced blocks tagged exactly `info`."""
    return re.findall(rf"^```{re.escape(info)}\n(.*?)^```$", section(), flags=re.S | re.M)


def shown_commands() -> list[tuple[str, list[str]]]:
    """(command, the lines the doc shows it printing) for each ```console block."""
    found = []
    for body in blocks("console"):
        first, *printed = body.rstrip("\n").split("\n")
        assert first.startswith("$ rulecraft "), f"a console block starts with its command: {first!r}"
        assert not any(line.startswith("$ ") for line in printed), f"one command a block: {first}"
        found.append((first[2:], printed))
    return found


COMMANDS = shown_commands()


def test_the_walkthrough_shows_the_commands_it_promises() -> None:
    commands = [c for c, _ in COMMANDS]
    assert len(commands) == len(set(commands)), "each command is shown once"
    assert "rulecraft scene prob castle duel" in commands  # Average against Average
    assert "rulecraft scene prob castle duel --party you:toughness=true" in commands
    assert "rulecraft scene prob castle duel --party you:wielding=knife" in commands
    for policy in ("never", "always", "optimal"):
        assert (
            f"rulecraft scene prob castle duel --party you:fencing=1,main_gauche=true --policy {policy}"
            in (commands)
        )
    assert any(c.startswith("rulecraft scene roll castle duel") and "--seed" in c for c in commands)


@pytest.fixture(scope="module")
def load_once() -> Iterator[None]:
    """The CLI's `load`, but each ruleset compiled once for this file's commands."""
    real = engine.load
    loaded: dict[str, engine.Ruleset] = {}

    def load(ref: Any, **kwargs: Any) -> engine.Ruleset:
        key = f"{type(ref).__name__}:{ref}:{sorted(kwargs.items())}"
        if key not in loaded:
            loaded[key] = real(ref, **kwargs)
        return loaded[key]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine.cli, "load", load)
        yield


@pytest.mark.parametrize("command,shown", COMMANDS, ids=[c for c, _ in COMMANDS])
def test_a_command_prints_what_the_walkthrough_shows(
    command: str, shown: list[str], cli: Callable[..., Any], load_once: None
) -> None:
    args = shlex.split(command)
    assert args[0] == "rulecraft"
    result = cli(*args[1:])
    assert result.code == 0, result.out + result.err
    printed = [line.rstrip() for line in result.out.rstrip("\n").split("\n")]
    assert [line.rstrip() for line in shown] == printed, (
        f"{command} prints, and the doc should show:\n" + "\n".join(printed)
    )


def test_the_yaml_fragments_are_copied_from_castle_yaml() -> None:
    castle = (REPO_ROOT / "rulesets" / "castle.yaml").read_text(encoding="utf-8")
    fragments = blocks("yaml fragment")
    assert len(fragments) >= 8, len(fragments)  # the scene, its endings, the six actions, the items
    for fragment in fragments:
        assert fragment in castle, "not a verbatim excerpt of castle.yaml:\n" + fragment
    after = castle[castle.index("\nscenes:\n") + 1 :].splitlines(keepends=True)
    ends = next(  # the duel runs up to the next scene, or to the end of the file
        (i for i, line in enumerate(after) if i > 1 and re.match(r"  \S", line)), len(after)
    )
    scene = "".join(after[:ends]).rstrip("\n") + "\n"
    assert scene in fragments, "the walkthrough quotes the whole duel scene"
    for action in (
        "duel_exchange",
        "main_gauche_redraw",
        "riposte_redraw",
        "strike",
        "close_in",
        "end_exchange",
    ):
        assert any(f.startswith(f"  {action}:\n") for f in fragments), action


def test_the_main_gauche_table_quotes_the_odds_shown() -> None:
    """Each row of the policy table gives the P(you win) of that policy's block."""
    won = {}
    for command, shown in COMMANDS:
        m = re.search(r"main_gauche=true --policy (\w+)$", command)
        if m:
            [line] = [ln for ln in shown if ln.lstrip().startswith("you_win ")]
            won[m[1]] = re.findall(r"\d+\.\d\d%", line)[0]
    rows = dict(re.findall(r"^\| `(never|always|optimal)` \|.*\| (\d+\.\d\d%) \|$", section(), flags=re.M))
    assert set(won) == {"never", "always", "optimal"}
    assert rows == won
