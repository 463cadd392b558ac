"""The commands docs/language.md shows print what it shows (test_docs.py loads its rulesets).

Each `$ rulecraft ...` line of a ```text block runs in a folder holding the file it names: the
page's complete ruleset (```yaml) whose `name:` starts with the file's stem (`quick.yaml` is
`quickstart`), else the nearest one above the command that has the check it names; the three
files the page describes as edits of one of its rulesets are made here by that edit. The watch
campaign runs in order against one database; an event's time is the one part that cannot agree.
Commands on a PostgreSQL server the page names (`postgresql://ann@localhost/...`) are not run.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest
from _fences import Fence, fences
from _repo import REPO_ROOT

DOC = REPO_ROOT / "docs" / "language.md"
EVENT_TIME = re.compile(r"^#([0-9]+) [0-9T:.+-]+ ")

EDITS = {
    # the file, as the page describes it: (the ruleset it is made from, a line of it, that line now)
    "old.yaml": ("coin", "rulecraft: 1", "rulecraft: 2"),
    "bad.yaml": ("quickstart", "- when: total >= armour", "- when: total >= armor"),
    "examples.yaml": (
        "examples_demo",
        "expect: {outcome: hit, values: {total: 14, margin: 0}}",
        "expect: {outcome: miss, values: {total: 14, margin: 0}}",
    ),
}
"""Files the page shows an edit of; `examples.yaml` is edited only where its command says so."""


@dataclass(frozen=True)
class Block(Fence):
    @property
    def name(self) -> str:
        m = re.search(r"^name: (\S+)", self.text, flags=re.M)
        return m[1] if m else ""

    def has_check(self, check: str) -> bool:
        return re.search(rf"^  {re.escape(check)}:", self.text, flags=re.M) is not None


def blocks() -> list[Block]:
    return [Block(f.line, f.info, f.text) for f in fences(DOC)]


BLOCKS = blocks()
RULESETS = [b for b in BLOCKS if b.info == "yaml"]


def _ruleset(file: str, check: str | None, line: int) -> str:
    stem = file.removesuffix(".yaml")
    named = [b for b in RULESETS if b.name.startswith(stem)]
    if len(named) == 1:
        return named[0].text
    above = [b for b in RULESETS if b.line < line and (check is None or b.has_check(check))]
    assert above, f"line {line}: no ruleset above for {file}"
    return above[-1].text


@dataclass(frozen=True)
class Command:
    line: int  # of its block
    words: list[str]
    shown: list[str]
    edited: bool  # `# with ...` after the command: the page's edit of its file


def commands() -> list[Command]:
    found: list[Command] = []
    for b in BLOCKS:
        if b.info != "text" or not b.text.startswith("$ rulecraft "):
            continue
        for line in b.text.splitlines():
            if line.startswith("$ "):
                found.append(Command(b.line, shlex.split(line[2:], comments=True), [], "#" in line))
            else:
                found[-1].shown.append(line)
    return found


def _folder(tmp_path: Path, command: Command) -> Path:
    words = command.words
    file = next(w for w in words if w.endswith(".yaml"))
    at = words.index(file)
    check = words[at + 1] if words[1] in ("roll", "prob") and at + 1 < len(words) else None
    if file in EDITS and (file != "examples.yaml" or command.edited):
        source, old, new = EDITS[file]
        [base] = [b.text for b in RULESETS if b.name == source]
        assert base.count(old) == 1, (file, old)
        text = base.replace(old, new)
    else:
        text = _ruleset(file, check, command.line)
    (tmp_path / file).write_text(text, encoding="utf-8")
    return tmp_path


ALONE = [c for c in commands() if c.words[1] != "campaign"]
CAMPAIGN = [c for c in commands() if c.words[1] == "campaign" and "postgresql:" not in " ".join(c.words)]


def _lines(text: list[str] | str) -> list[str]:
    lines = text.splitlines() if isinstance(text, str) else text
    return [EVENT_TIME.sub(r"#\1 TIME ", line.rstrip()) for line in lines if line.strip()]


def _agree(printed: list[str], shown: list[str]) -> bool:
    """`printed` is what is `shown`, where a shown line `...` stands for any lines (an excerpt)."""
    if "..." not in shown:
        return printed == shown
    cut = shown.index("...")
    head, tail = shown[:cut], shown[cut + 1 :]
    return (
        printed[:cut] == head
        and len(printed) >= len(head) + len(tail)
        and _agree(printed[len(printed) - len(tail) :] if tail else [], tail)
    )


def test_the_page_has_its_commands() -> None:
    assert len(ALONE) >= 15 and len(CAMPAIGN) >= 8
    assert {"old.yaml", "bad.yaml", "examples.yaml"} <= {w for c in ALONE for w in c.words}


@pytest.mark.parametrize("command", ALONE, ids=[f"line{c.line}-{' '.join(c.words[1:3])}" for c in ALONE])
def test_a_command_prints_what_the_page_shows(command: Command, tmp_path: Path, cli_seen) -> None:
    if (
        command.words[0] == "rulecraft"
        and "chill" in command.words
        and not any(w.endswith(".yaml") for w in command.words)
    ):
        folder = tmp_path  # a shipped ruleset, by name
    else:
        folder = _folder(tmp_path, command)
    _, seen = cli_seen(*command.words[1:], cwd=folder)
    assert _agree(
        _lines(seen), [line.strip() if line.strip() == "..." else line for line in _lines(command.shown)]
    ), f"line {command.line}: {' '.join(command.words)} prints, in place of what is shown:\n{seen}"


def test_the_watch_campaign_session(tmp_path: Path, cli_seen) -> None:
    """The session runs in order against one fresh database, as the page shows it."""
    [watch] = [b.text for b in RULESETS if b.name == "watch"]
    (tmp_path / "watch.yaml").write_text(watch, encoding="utf-8")
    for command in CAMPAIGN:
        _, seen = cli_seen(*command.words[1:], cwd=tmp_path)
        assert _lines(seen) == _lines(command.shown), (
            f"line {command.line}: {' '.join(command.words)} prints, in place of what is shown:\n{seen}"
        )


def test_the_max_work_row_states_the_fold_charges_foldcost_makes() -> None:
    """The `max_work` row of the limits table restates `engine.eval.foldcost`'s charges as numbers
    (review X, item 5): each is read back from the row here, so neither can drift alone."""
    from engine.eval import foldcost as fc

    words = {1: "a unit", 2: "two", 3: "three", 6: "six", 8: "eight"}
    [row] = [
        line for line in DOC.read_text(encoding="utf-8").splitlines() if line.startswith("| `max_work` |")
    ]
    assert fc.WHOLE.units == fc.SCALED.units == 1 and fc.FRACTIONS.per == 1
    for phrase in (
        f"({words[fc.SEVERAL]} for a step of several read at once",
        f"a unit for each {fc.WHOLE.per} whole numbers past {fc.WHOLE.free}, for each {fc.SCALED.per} "
        f"scale values, {words[fc.FRACTIONS.units]} for each fraction times ({fc.KEPT_BITS} + the bits",
        f") / {fc.KEPT_BITS}, so",
        f"and {fc.KEPT_MADE} for each pool of kept readings it ends in",
        f"{words[fc.FRACTION]} for each statistic's step over readings that are fractions",
        f"{words[fc.FRACTION_SUM]} for a sum's",
        f"{words[fc.LONG_FRACTION]} more where the fractions pass {fc.LONG_BITS} bits",
        f"a unit for each {fc.FRACTION_BITS} bits of their numerators and denominators",
    ):
        assert phrase in row, phrase


def _quoted_rows() -> list[tuple[str, str]]:
    """The table of "Quoted scale values": each expression with what it gives (`loads`, a code)."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("### Quoted scale values") : text.index("### Operators and precedence")]
    rows = [line.split("|")[1:3] for line in section.splitlines() if line.startswith("| `")]
    return [(e, said.strip().strip("`")) for cell, said in rows for e in re.findall(r"`([^`]+)`", cell)]


QUOTED = _quoted_rows()


def test_the_quoted_values_table_is_read() -> None:
    said = {s for _, s in QUOTED}
    assert len(QUOTED) >= 20 and {"loads", "RC301", "RC305", "RC306"} <= said, said


@pytest.mark.parametrize(("expr", "said"), QUOTED, ids=[e for e, _ in QUOTED])
def test_a_quoted_value_loads_or_is_refused_as_the_page_says(expr: str, said: str) -> None:
    """Each expression of the table, as a `let:` value of the section's `quoted_demo` ruleset."""
    import engine
    from engine.syntax.positions import SourceFile

    [base] = [b.text for b in RULESETS if b.name == "quoted_demo"]
    line = "      most: \"majority(p, ['b', 'a'])\"\n"
    assert base.count(line) == 1
    text = base.replace(line, line + f'      tried: "{expr}"\n')
    try:
        engine.load_source(SourceFile("quoted_demo.yaml", text))
        got = "loads"
    except engine.RulecraftError as exc:
        got = " ".join(sorted({d.code for d in exc.diagnostics}))
    assert got == said, f"{expr}: {got}, not {said} as the page says"


def _versions_said_rc003() -> list[str]:
    """The versions the "Format version" paragraph names as also `RC003`."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index('(`rulecraft: "1"`, a string, is also `RC003`')
    said = text[start : text.index(".)", start)]
    return re.findall(r"`rulecraft: ([^`]+)`", said)


@pytest.mark.parametrize("version", _versions_said_rc003())
def test_a_version_the_page_says_is_rc003_is(version: str) -> None:
    """`rulecraft: true` among them (the page once called it the schema's `RC104`)."""
    import engine
    from engine.syntax.positions import SourceFile

    text = f"rulecraft: {version}\nname: v\nchecks: {{}}\n"
    with pytest.raises(engine.RulecraftError) as caught:
        engine.load_source(SourceFile("v.yaml", text))
    assert [d.code for d in caught.value.diagnostics] == ["RC003"], version
    assert "`rulecraft: true`" not in next(
        line for line in DOC.read_text(encoding="utf-8").splitlines() if line.startswith("| RC104 |")
    )


@pytest.mark.parametrize(
    ("then", "other", "said"),
    [("a", "b", "loads"), ("b", "a", "loads"), ("b", "c", "RC306"), ("a", "d", "RC305")],
)
def test_a_conditional_s_other_branch_gives_a_quoted_name_its_scale(then: str, other: str, said: str) -> None:
    """Rule 1 of "Quoted scale values": the other branch of a conditional gives a quoted name its
    scale, whichever branch holds the name only one scale has. `'a' if t else 'b'` was RC306 at
    'b' while `'b' if t else 'a'` loaded (fix11c saw it: the first branch read the second first)."""
    import engine
    from engine.syntax.positions import SourceFile

    text = f"""\
rulecraft: 1
name: cond
scales:
  s1: [a, b, c]
  s2: [b, c, d]
checks:
  pick:
    inputs:
      t: {{type: bool, default: true}}
    let:
      v: "'{then}' if t else '{other}'"
    outcomes: [miss, hit]
    outcome: "'hit' if v == '{then}' else 'miss'"
"""
    try:
        rs = engine.load_source(SourceFile("cond.yaml", text))
    except engine.RulecraftError as exc:
        assert " ".join(sorted({d.code for d in exc.diagnostics})) == said
        return
    assert said == "loads"
    assert rs.distribution("pick").probability("hit") == 1
    assert rs.distribution("pick", t=False).probability("hit") == 0
