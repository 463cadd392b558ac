"""Every complete ruleset shown in the docs is run, so the docs cannot drift from the code.

A fenced block tagged exactly ```yaml is a complete ruleset: it must load and compile, and if
it carries `examples:` they must all pass. Blocks tagged ```yaml fragment are excerpts and are
skipped. Each block is loaded with its doc line numbers kept (the text is padded with the
lines before it), so a failure points at `docs/FILE.md:LINE:COL` and the test id names the
file and the line of the block's opening fence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from _repo import REPO_ROOT

import engine
from engine.syntax.positions import SourceFile
from engine.tools.examples import run_examples

DOCS = ("docs/language.md", "docs/tutorial.md", "docs/scenes.md")

_FENCE = re.compile(r"^(?P<indent>\s*)(?P<ticks>`{3,}|~{3,})(?P<info>.*)$")


@dataclass(frozen=True)
class Block:
    file: str
    line: int  # the line of the opening fence, 1-based
    info: str
    text: str  # padded with blank lines so that its lines keep their numbers in the doc

    @property
    def id(self) -> str:
        return f"{self.file}:{self.line}"


def fenced_blocks(file: str) -> list[Block]:
    """Every fenced code block of a markdown file, with its info string and position."""
    lines = (REPO_ROOT / file).read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, ticks, info = len(m["indent"]), m["ticks"], m["info"].strip()
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not (
            lines[j].strip().startswith(ticks) and not lines[j].strip().strip(ticks[0])
        ):
            line = lines[j]
            body.append(line[indent:] if line[:indent].strip() == "" else line.lstrip())
            j += 1
        blocks.append(Block(file, i + 1, info, "\n" * (i + 1) + "\n".join(body) + "\n"))
        i = j + 1
    return blocks


def ruleset_blocks() -> list[Block]:
    return [
        b for f in DOCS if (REPO_ROOT / f).exists() for b in fenced_blocks(f) if b.info.split() == ["yaml"]
    ]


BLOCKS = ruleset_blocks()


def test_the_docs_show_rulesets():
    """The scan found the blocks (a changed fence style must not silently skip them all)."""
    per_file = {f: sum(b.file == f for b in BLOCKS) for f in DOCS}
    assert per_file["docs/language.md"] >= 5, per_file
    assert per_file["docs/tutorial.md"] >= 3, per_file
    assert per_file["docs/scenes.md"] >= 1, per_file


def test_fragments_are_tagged_and_nothing_else_is_yaml():
    """A block is either a complete ruleset (```yaml) or says it is not (```yaml fragment)."""
    for f in DOCS:
        for b in fenced_blocks(f):
            words = b.info.split()
            if words and words[0] in ("yaml", "yml"):
                assert words in (["yaml"], ["yaml", "fragment"]), f"{b.id}: unknown tag ```{b.info}"


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: b.id)
def test_ruleset_block_compiles_and_its_examples_pass(block: Block):
    first = next(ln for ln in block.text.splitlines() if ln.strip())
    assert first == "rulecraft: 1", (
        f"{block.id}: a complete ruleset starts with 'rulecraft: 1', not {first!r}"
    )
    try:
        rs = engine.load_source(SourceFile(block.file, block.text))
    except engine.RulecraftError as exc:
        pytest.fail(f"{block.id}: the ruleset does not load\n{exc.render()}", pytrace=False)
    if "examples:" in block.text:
        results = run_examples(rs)
        assert results, f"{block.id}: the block has 'examples:' but no example ran"
        failed = [d.render() for r in results for d in r.problems]
        assert not failed, f"{block.id}: examples failed\n" + "\n".join(failed)


def _section(doc: str, package: str) -> str:
    """The text under the `### ` heading that names `engine/PACKAGE/`, up to the next heading."""
    lines, on = [], False
    for line in doc.splitlines():
        if line.startswith("#"):
            on = line.startswith("### ") and f"`engine/{package}/`" in line
        elif on:
            lines.append(line)
    return "\n".join(lines)


def test_every_engine_module_is_named_in_architecture_md():
    """A module (every .py under engine/ but `__init__` and `__main__`) is named by its path
    (`compiler/state.py`) anywhere on the page, or by its file name (`given.py`) in the section of
    its top-level package: a new module without its line there fails here, not a newcomer's read."""
    doc = (REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    engine_dir = REPO_ROOT / "engine"
    modules = [
        p.relative_to(engine_dir)
        for p in sorted(engine_dir.rglob("*.py"))
        if p.name not in ("__init__.py", "__main__.py")
    ]
    assert len(modules) >= 100, len(modules)  # the walk found the engine
    missing = [
        m.as_posix()
        for m in modules
        if f"`{m.as_posix()}`" not in doc
        and not (len(m.parts) > 1 and f"`{m.name}`" in _section(doc, m.parts[0]))
    ]
    assert not missing, f"docs/architecture.md does not say what these modules own: {missing}"
