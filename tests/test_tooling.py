"""Editor and CI support: the schema outside our code, the pre-commit hooks, `rulecraft new`.

- the third-party `check-jsonschema` accepts the shipped rulesets with our schema, and rejects
  broken copies of them: the schema is usable by editors and CI without rulecraft;
- `rulecraft schema` prints exactly the schema file, and every shipped ruleset names it on
  its first line (the yaml-language-server comment) by a path that resolves;
- `.pre-commit-hooks.yaml` parses and its hooks run real `rulecraft` subcommands;
- `rulecraft new NAME` writes a starter that validates, tests green and is schema-valid as
  written, and never overwrites a file.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from _repo import REPO_ROOT
from ruamel.yaml import YAML

import engine
from engine.cli import _parser
from engine.syntax.positions import SourceFile
from engine.syntax.resources import RULESET_SUFFIXES, is_ruleset_file, schema_path
from engine.tools.examples import run_examples
from engine.tools.starter import schema_reference, starter_text

SCHEMA = REPO_ROOT / "schemas" / "ruleset.schema.json"
SHIPPED = sorted((REPO_ROOT / "rulesets").glob("*.yaml"))
MODELINE = re.compile(r"^# yaml-language-server: \$schema=(?P<ref>\S+)$")


def check_jsonschema(*files: str, cwd: Path = REPO_ROOT) -> subprocess.CompletedProcess[str]:
    """The third-party validator, with our schema, as a CI job or pre-commit would run it."""
    cmd = [sys.executable, "-m", "check_jsonschema", "--schemafile", str(SCHEMA), *files]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=120)


# --- the schema outside our code ---------------------------------------------------------


def test_check_jsonschema_accepts_the_shipped_rulesets():
    assert len(SHIPPED) >= 4
    proc = check_jsonschema(*(str(p.relative_to(REPO_ROOT)) for p in SHIPPED))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "validation done" in proc.stdout


BREAKAGES = {
    "version.yaml": ("rulecraft: 1", "rulecraft: 2", "$.rulecraft"),
    "unknown_key.yaml": ("\nnotes:", "\ncolour: blue\nnotes:", "'colour' was unexpected"),
    "mixed_randomizer.yaml": (
        'tens: {die: "0..9"}',
        'tens: {die: "0..9", count: 2}',
        "$.checks.specific.roll.tens",
    ),
}


def test_check_jsonschema_rejects_broken_copies(tmp_path: Path):
    """One mistake per copy of a shipped ruleset; each copy fails, and is named with where."""
    original = (REPO_ROOT / "rulesets" / "chill.yaml").read_text(encoding="utf-8")
    for name, (old, new, _) in BREAKAGES.items():
        assert old in original, f"the breakage for {name} no longer applies to chill.yaml"
        (tmp_path / name).write_text(original.replace(old, new, 1), encoding="utf-8")
    (tmp_path / "intact.yaml").write_text(original, encoding="utf-8")
    proc = check_jsonschema(*BREAKAGES, "intact.yaml", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    for name, (_, _, where) in BREAKAGES.items():
        lines = [ln for ln in proc.stdout.splitlines() if name in ln]
        assert lines and any(where in ln for ln in lines), f"{name}: {where!r} not reported in\n{proc.stdout}"
    assert "intact.yaml" not in proc.stdout


def test_rulecraft_schema_prints_the_schema_file(cli):
    r = cli("schema")
    assert r.code == 0, r.err
    text = SCHEMA.read_text(encoding="utf-8")
    assert r.out == text
    assert json.loads(r.out) == json.loads(text)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_ruleset_starts_with_the_schema_comment(path: Path):
    first = path.read_text(encoding="utf-8").splitlines()[0]
    m = MODELINE.match(first)
    assert m, f"{path.name}: first line is {first!r}, not the yaml-language-server schema comment"
    assert (path.parent / m["ref"]).resolve() == SCHEMA.resolve(), (
        f"{path.name}: {m['ref']} is not the schema"
    )


# --- pre-commit hooks --------------------------------------------------------------------


def _hooks() -> list[dict]:
    return YAML(typ="safe").load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))


def test_pre_commit_hooks_parse_and_name_real_commands():
    hooks = {h["id"]: h for h in _hooks()}
    assert set(hooks) == {"rulecraft-validate", "rulecraft-test"}
    scripts = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    subcommands = next(a for a in _parser()._actions if a.dest == "command").choices
    for hook_id, hook in hooks.items():
        assert {"id", "name", "entry", "language"} <= set(hook), hook_id
        assert hook["language"] == "python"
        program, sub, *rest = hook["entry"].split()
        assert program in scripts, f"{hook_id}: '{program}' is not a console script of this package"
        assert sub in subcommands and hook_id == f"rulecraft-{sub}" and not rest
        # the hook runs on the files it matches: these are rulesets, other YAML is not
        files = re.compile(hook["files"])
        for match in ("rulesets/chill.yaml", "games/rulesets/mygame.yml"):
            assert files.search(match), (hook_id, match)
        for other in (".pre-commit-config.yaml", ".github/workflows/ci.yml", "rulesets/notes.md"):
            assert not files.search(other), (hook_id, other)


def test_pre_commit_hooks_match_the_suffixes_the_cli_reads():
    """The hooks' `files:` took `RULES.YAML` for no ruleset (`\\.ya?ml$`) where `rulecraft validate
    FOLDER` reads it: the pattern must say what `is_ruleset_file` says, for every case of each
    suffix and for names that only look like one."""
    cased = {
        "".join(c.upper() if (bits >> i) & 1 else c for i, c in enumerate(suffix))
        for suffix in RULESET_SUFFIXES
        for bits in range(2 ** len(suffix))
    }
    near = {".yam", ".yamll", ".yaml.bak", ".yaml~", ".json", ".YAMLX", "yaml", ""}
    for hook in _hooks():
        files = re.compile(hook["files"])
        for suffix in sorted(cased | near):
            for name in (f"rulesets/rules{suffix}", f"games/rulesets/Old{suffix}"):
                assert bool(files.search(name)) == is_ruleset_file(name), (hook["id"], name)
        assert files.search("rulesets/RULES.YAML") and files.search("rulesets/old.Yml")
        assert not files.search("RULESETS/rules.yaml")  # only the suffix is read in any case


def test_pre_commit_hook_entries_run_on_matching_files(cli):
    """What pre-commit runs: the entry followed by the matching file names."""
    files = [str(p.relative_to(REPO_ROOT)) for p in SHIPPED if p.name == "chthonian.yaml"]
    for hook in _hooks():
        assert all(re.search(hook["files"], f) for f in files)
        code, out, err = cli(*hook["entry"].split()[1:], *files)
        assert code == 0, out + err


# --- rulecraft new -----------------------------------------------------------------------


def test_new_validate_test_in_a_fresh_folder(tmp_path: Path, cli):
    new = cli("new", "mygame", cwd=tmp_path)
    assert new.code == 0, new.err
    made = tmp_path / "mygame.yaml"
    assert made.is_file() and "wrote mygame.yaml" in new.out
    text = made.read_text(encoding="utf-8")
    m = MODELINE.match(text.splitlines()[0])
    assert m, "the starter's first line is the yaml-language-server schema comment"
    assert (tmp_path / m["ref"]).resolve() == schema_path().resolve(), (
        "the comment names a schema that is there"
    )
    assert "rulecraft: 1" in text.splitlines() and "name: mygame" in text.splitlines()

    validate = cli("validate", "mygame.yaml", cwd=tmp_path)
    assert validate.code == 0, validate.out + validate.err
    test = cli("test", "mygame.yaml", cwd=tmp_path)
    assert test.code == 0, test.out + test.err
    assert "1 passed, 0 failed" in test.out
    schema = check_jsonschema("mygame.yaml", cwd=tmp_path)
    assert schema.returncode == 0, schema.stdout + schema.stderr


def test_new_refuses_to_overwrite(tmp_path: Path, cli):
    existing = tmp_path / "mygame.yaml"
    existing.write_text("my own work\n", encoding="utf-8")
    r = cli("new", "mygame", cwd=tmp_path)
    assert r.code == 1
    assert "RC603: mygame.yaml already exists" in r.err and "not overwriting" in r.err
    assert existing.read_text(encoding="utf-8") == "my own work\n"
    assert r.out == ""


def test_new_refuses_a_bad_name_and_a_missing_folder(tmp_path: Path, cli):
    code, _, err = cli("new", "9lives", cwd=tmp_path)  # a value, not a command line unread: RC407, 1
    assert code == 1 and "RC407: '9lives' is not a ruleset name" in err
    code, _, err = cli("new", "nowhere/mygame", cwd=tmp_path)
    assert code == 1 and "RC603: cannot write nowhere/mygame.yaml: folder nowhere does not exist" in err
    for folder in ("", ".", "/"):  # no file name in it: a ValueError from pathlib before
        r = cli("new", folder, cwd=tmp_path)
        assert r.code == 1 and "RC407" in r.err and "not a ruleset name" in r.err, r.err
    r = cli("new", "..", cwd=tmp_path)  # a folder named as such, as `new proj/` is
    assert r.code == 1 and "RC407: '..' is a folder: give the ruleset's name after it" in r.err, r.err
    # a name ending in a line break: the pattern was matched with `$`, which takes one, and a file
    # named "game\n.yaml" was written
    r = cli("new", "game\n", cwd=tmp_path)
    assert r.code == 1 and "not a ruleset name" in r.err, r.err
    with pytest.raises(ValueError, match="invalid ruleset name"):
        starter_text("game\n")
    assert list(tmp_path.iterdir()) == []


def test_a_path_or_name_the_system_refuses_is_a_clear_error(tmp_path: Path, cli):
    """A file name longer than the system takes made `Path.exists()` raise (pathlib ignores only
    "no such file"), and a campaign name from bytes that are not UTF-8 reached the SQLite query:
    tracebacks, each. Each is one message and exit 1 now, and nothing is written."""
    long = "x" * 3000
    for argv, says in [
        (["validate", long], "File name too long"),
        (["show", long], "File name too long"),
        (["test", long], "File name too long"),
        (["new", long], "File name too long"),
        (["campaign", "--db", long, "list"], "File name too long"),
        (["campaign", "--db", str(tmp_path / "c.db"), "show", "c\udcff"], "RC901"),
        (["campaign", "--db", str(tmp_path / "c.db"), "log", "c\udcff"], "RC901"),
    ]:
        r = cli(*argv, cwd=tmp_path)
        assert r.code == 1 and says in r.err + r.out and "Traceback" not in r.err, (argv[:2], r.err)
    assert [p.name for p in tmp_path.iterdir()] in ([], ["c.db"])
    with pytest.raises(engine.LoadError, match="File name too long"):
        engine.load(Path(long))


def test_new_accepts_a_path_and_names_the_schema_relatively_inside_a_project(tmp_path: Path, cli):
    """In a project that holds the schema (a checkout, a virtualenv), the reference is relative,
    like the shipped rulesets' `../schemas/ruleset.schema.json`."""
    schema = tmp_path / "schemas" / "ruleset.schema.json"
    schema.parent.mkdir()
    schema.write_text("{}", encoding="utf-8")
    (tmp_path / "rulesets").mkdir()
    assert schema_reference(tmp_path / "rulesets" / "x.yaml", schema) == "../schemas/ruleset.schema.json"
    code, _, err = cli("new", "rulesets/side-quest.yaml", cwd=tmp_path)
    assert code == 0, err
    assert "name: side-quest" in (tmp_path / "rulesets" / "side-quest.yaml").read_text(encoding="utf-8")


def test_new_keeps_a_suffix_given_in_any_case(tmp_path: Path, cli):
    """`rulecraft new Quest.YAML` wrote `Quest.YAML.yaml`... or refused the name `quest.yaml`:
    only `.yaml` and `.yml` in lower case were kept. A suffix the CLI reads is kept as given."""
    for given in ("Quest.YAML", "Side.Yml"):
        code, _, err = cli("new", given, cwd=tmp_path)
        assert code == 0, err
        assert f"name: {Path(given).stem.lower()}" in (tmp_path / given).read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Quest.YAML", "Side.Yml"]
    assert cli("validate", ".", cwd=tmp_path).code == 0


def test_the_starters_commented_probability_example_passes_when_uncommented():
    """The starter teaches a statistical example in a comment; it must be right when used."""
    text = starter_text("mygame")
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip().startswith("# - name: with no skill"))
    for i in range(start, len(lines)):
        lines[i] = lines[i].replace("# ", "", 1)
    rs = engine.load_source(SourceFile("mygame.yaml", "\n".join(lines) + "\n"))
    results = run_examples(rs)
    assert len(results) == 2 and all(r.passed for r in results), [
        d.render() for r in results for d in r.problems
    ]


@pytest.mark.parametrize("folder", ["my games", "it's", "a;b $(x)", "-x"])
def test_new_hints_a_command_that_can_be_pasted(tmp_path: Path, cli, folder: str):
    """`next: rulecraft validate my games/quest.yaml` split the path at its space when pasted, and
    `it's` opened a quote: the path is quoted as a shell reads it (and `-x/…` is not an option)."""
    (tmp_path / folder).mkdir()
    made = cli("new", "--", f"{folder}/quest", cwd=tmp_path)
    assert made.code == 0, made.err
    hint = next(line for line in made.out.splitlines() if line.startswith("next: "))
    words = shlex.split(hint.removeprefix("next: "))
    assert words[:2] == ["rulecraft", "validate"] and words[3:5] == ["&&", "rulecraft"], words
    assert (tmp_path / words[2]).resolve() == (tmp_path / folder / "quest.yaml").resolve()
    assert words[2] == words[-1] and not words[2].startswith("-")
    assert cli("validate", words[2], cwd=tmp_path).code == 0
