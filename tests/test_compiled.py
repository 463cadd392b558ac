"""Generated Python compiled once and kept between processes (`engine/compiled.py`, issue 13,
item 5): what a file hands back is what `compile` makes of the same text, a hit compiles nothing,
and a file that is damaged, foreign or in a folder others could write is never used."""

from __future__ import annotations

import builtins
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from types import CodeType

import pytest

from engine import compiled
from engine.compiled import Kept, compile_kept, keeping

TEXT = "def f(x):\n    return x * 3 + 1\n"
OTHER = "def g(y):\n    return [y] * 2\n"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("RULECRAFT_NO_CACHE", raising=False)
    return tmp_path / "cache" / "rulecraft"


class _Counted:
    """`compile`, counted: put in `engine.compiled`'s globals, it is what `Kept` calls."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, text: str, *args: object, **kwargs: object) -> CodeType:
        self.texts.append(text)
        return builtins.compile(text, *args, **kwargs)  # type: ignore[call-overload,no-any-return]


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> _Counted:
    counted = _Counted()
    monkeypatch.setattr(compiled, "compile", counted, raising=False)
    return counted


def _run(code: CodeType) -> object:
    scope: dict[str, object] = {}
    exec(code, scope)
    return scope


def _file(folder: Path, name: str) -> Path:
    return folder / f"code-{name}-{sys.implementation.cache_tag}.marshal"


def test_a_kept_text_is_read_back_and_not_compiled_again(folder: Path, compiles: _Counted) -> None:
    first = Kept("t")
    made = first.compile(TEXT, "<rulecraft>")
    assert made == builtins.compile(TEXT, "<rulecraft>", "exec", dont_inherit=True)
    assert first.compile(TEXT, "<rulecraft>") is made  # once per text in a process
    assert compiles.texts == [TEXT]
    first.save()
    path = _file(folder, "t")
    assert path.stat().st_mode & 0o777 == 0o600
    written = path.stat().st_mtime_ns

    again = Kept("t")  # as a later process finds it
    code = again.compile(TEXT, "<rulecraft>")
    assert compiles.texts == [TEXT]  # read, not compiled
    assert code == made and code.co_filename == "<rulecraft>"
    assert _run(code)["f"](4) == 13  # type: ignore[operator]
    again.save()
    assert path.stat().st_mtime_ns == written  # nothing new: not written again

    assert again.compile(TEXT, "<string>").co_filename == "<string>"  # the file name is part of the key
    again.compile(OTHER, "<rulecraft>")
    assert compiles.texts == [TEXT, TEXT, OTHER]
    again.save()
    third = Kept("t")
    third.compile(OTHER, "<rulecraft>")
    third.compile(TEXT, "<rulecraft>")
    assert compiles.texts == [TEXT, TEXT, OTHER]  # both kept, old and new


def _damaged(good: bytes) -> dict[str, bytes]:
    head = len(compiled.MAGIC)
    flipped = bytearray(good)
    flipped[-5] ^= 0xFF
    foreign = bytearray(good)
    foreign[head - 1] ^= 0xFF  # another interpreter's bytecode magic number
    payload = b"not marshal at all"
    wrong_shape = compiled.cachedir.digest(payload)
    import marshal

    strings = marshal.dumps((("def f(): pass\n", "<rulecraft>", "not code"),))
    return {
        "a flipped byte": bytes(flipped),
        "cut short": good[: len(good) // 2],
        "empty": b"",
        "another interpreter": bytes(foreign),
        "not marshal": compiled.MAGIC + wrong_shape + payload,
        "text where code should be": compiled.MAGIC + compiled.cachedir.digest(strings) + strings,
    }


@pytest.mark.parametrize("damage", list(_damaged(b"x" * 80)))
def test_a_damaged_or_foreign_file_is_ignored_and_written_again(
    damage: str, folder: Path, compiles: _Counted
) -> None:
    kept = Kept("t")
    kept.compile(TEXT, "<rulecraft>")
    kept.save()
    path = _file(folder, "t")
    good = path.read_bytes()
    assert (
        Kept("t").compile(TEXT, "<rulecraft>") is not None and len(compiles.texts) == 1
    )  # the good one is read
    path.write_bytes(_damaged(good)[damage])
    again = Kept("t")
    assert _run(again.compile(TEXT, "<rulecraft>"))["f"](1) == 4  # type: ignore[operator]
    assert len(compiles.texts) == 2  # compiled afresh
    again.save()
    assert Kept("t").compile(TEXT, "<rulecraft>") and len(compiles.texts) == 2  # the file made whole again


def test_a_folder_others_can_write_is_never_read(folder: Path, compiles: _Counted) -> None:
    kept = Kept("t")
    kept.compile(TEXT, "<rulecraft>")
    kept.save()
    folder.chmod(0o777)
    try:
        Kept("t").compile(TEXT, "<rulecraft>")
        assert len(compiles.texts) == 2  # the file is there, but anyone could have written it
    finally:
        folder.chmod(0o700)
    Kept("t").compile(TEXT, "<rulecraft>")
    assert len(compiles.texts) == 2  # the same file, private again, is read


def test_no_cache_keeps_nothing(folder: Path, compiles: _Counted, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RULECRAFT_NO_CACHE", "1")
    kept = Kept("t")
    kept.compile(TEXT, "<rulecraft>")
    kept.save()
    assert not folder.exists()  # not even made


def test_keeping_saves_only_a_block_that_ends_well(folder: Path, compiles: _Counted) -> None:
    assert _run(compile_kept(TEXT, "<rulecraft>"))  # outside any block: compiled, kept nowhere
    with pytest.raises(ValueError):
        with keeping("bad"):
            compile_kept(TEXT, "<rulecraft>")
            raise ValueError("a ruleset that does not compile")
    assert not _file(folder, "bad").exists()
    with keeping("good"):
        compile_kept(TEXT, "<rulecraft>")
    assert _file(folder, "good").exists()
    with keeping(None):
        compile_kept(OTHER, "<rulecraft>")
    assert len(compiles.texts) == 4
    with keeping("good"):
        compile_kept(TEXT, "<rulecraft>")
    assert len(compiles.texts) == 4  # read from the block's file


def test_a_full_file_keeps_only_what_this_process_used(
    folder: Path, compiles: _Counted, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compiled, "MAX_ENTRIES", 3)
    old = Kept("t")
    for i in range(4):
        old.compile(f"x = {i}\n", "<rulecraft>")
    old.save()  # over the bound, but this process used all four
    now = Kept("t")
    now.compile("x = 0\n", "<rulecraft>")
    now.compile("y = 1\n", "<rulecraft>")
    now.save()  # five held, more than three: the two this process used are written
    assert len(compiles.texts) == 5
    later = Kept("t")
    later.compile("x = 0\n", "<rulecraft>")
    later.compile("y = 1\n", "<rulecraft>")
    later.compile("x = 3\n", "<rulecraft>")
    assert compiles.texts[5:] == ["x = 3\n"]


COUNT = """
import builtins, random
made = []
real = builtins.compile
def counted(text, filename, mode, *args, **kwargs):
    if mode == "exec" and filename in ("<string>", "<rulecraft>"):  # generated code, not a module
        made.append(text)  # read from source without bytecode, nor `typing`'s forward references
    return real(text, filename, mode, *args, **kwargs)
builtins.compile = counted
import engine
rules = engine.load("chill")
print(rules.roll("specific", random.Random(1), target=55).outcome.name, len(made))
"""


def test_a_fresh_process_compiles_no_generated_code_once_it_is_kept(tmp_path: Path, repo_root: Path) -> None:
    """End to end, in fresh processes: the first compiles the records' methods and the ruleset's
    expressions and keeps them; the next compiles none of it and rolls the same."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    env.pop("RULECRAFT_NO_CACHE", None)

    def run() -> tuple[str, int]:
        done = subprocess.run(
            [sys.executable, "-c", COUNT], cwd=repo_root, env=env, capture_output=True, text=True, check=True
        )
        outcome, count = done.stdout.split()
        return outcome, int(count)

    first = run()
    folder = tmp_path / "rulecraft"
    kept = sorted(p.name for p in folder.glob("code-*"))
    assert len(kept) == 2 and any(name.startswith("code-records-") for name in kept)
    assert first[1] > 60  # the records' methods and Chill's expressions
    second = run()
    assert second[1] == 0
    assert second[0] == first[0]
    times = {p.name: p.stat().st_mtime_ns for p in folder.glob("code-*")}
    run()
    assert {p.name: p.stat().st_mtime_ns for p in folder.glob("code-*")} == times  # read, not written


def test_the_folder_keeps_the_newest_code_files_only(
    folder: Path, compiles: _Counted, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compiled, "MAX_FILES", 2)
    folder.mkdir(parents=True, mode=0o700)
    (folder / "document-other.marshal").write_bytes(b"")  # another cache's file: not counted
    for age, name in enumerate(("old", "mid", "new")):
        kept = Kept(name)
        kept.compile(TEXT, "<rulecraft>")
        kept.save()
        os.utime(_file(folder, name), ns=(age * 10**9, age * 10**9))  # written in this order
    kept = Kept("newest")
    kept.compile(TEXT, "<rulecraft>")
    kept.save()  # three older files and this one: the oldest two go
    left = sorted(p.name.split("-")[1] for p in folder.glob("code-*"))
    assert left == ["new", "newest"] and (folder / "document-other.marshal").exists()


def test_values_over_the_code_limit_are_refused_before_their_loops_are_compiled(
    folder: Path, compiles: _Counted
) -> None:
    """Each named value's own loop repeats the values it reads, so a chain's loops grow as its
    square; they are all charged against `Limits.max_code` before any is compiled (`Emitter.source`),
    so a ruleset over the limit costs no compile of them (before, the loops under the limit were
    compiled first: most of the time a long chain took to be refused)."""
    import engine

    lets = "".join(f"      l{i}: l{i - 1} + 1\n" for i in range(1, 120))
    text = (
        "rulecraft: 1\nname: chain\nchecks:\n  c:\n    outcomes: [lo, hi]\n"
        "    roll:\n      d: {die: 6}\n    let:\n      l0: d\n"
        + lets
        + "    outcome: \"'hi' if l119 > 121 else 'lo'\"\n"
    )
    with pytest.raises(engine.RulecraftError) as caught:
        engine.load(text, limits=engine.Limits(max_code=200_000))
    assert [d.code for d in caught.value.diagnostics] == ["RC503"]
    assert compiles.texts, "the values' own expressions are compiled before the loops"
    assert not [t for t in compiles.texts if t.startswith("def value_")]
    rs = engine.load(text)  # within the default limit: every loop is made
    assert rs.distribution("c").probability("hi") == Fraction(2, 3)  # l119 = d + 119 > 121: d >= 3
    assert sum(t.startswith("def value_") for t in compiles.texts) == 120


def test_a_ruleset_with_lone_cr_line_ends_is_read_alike_from_the_disk_cache(
    folder: Path, repo_root: Path
) -> None:
    """Text with lone-CR line ends was made newlines inside the YAML load, but the disk cache was
    keyed and read with the raw text: a second process (here, a second load under other limits,
    which the in-memory memo does not answer) read the kept ruleset against text with no newline
    in it, and placing anything in it raised an `IndexError` (a 500 after a server restart; found
    by review AD)."""
    import engine
    from engine.api import Limits

    text = (repo_root / "rulesets" / "chill.yaml").read_text(encoding="utf-8").replace("\n", "\r")
    first = engine.load(text)
    assert any(folder.glob("document-*")), "the load kept nothing to read again"
    again = engine.load(text, limits=Limits(max_work=1_999_999))
    assert again.distribution("specific", target=55) == first.distribution("specific", target=55)
    with pytest.raises(engine.RulecraftError) as caught:
        again.roll("specific", inputs={"targte": 55})
    [d] = caught.value.diagnostics
    assert d.code == "RC402" and d.span is not None and "specific:" in d.render()
