"""The `rulecraft` command, run in this process through the `cli` fixture (conftest.py), plus two
real processes: `python -m engine` for the exit status of a usage error, and the installed
`rulecraft` script.

Outputs are checked for what a user needs to see — the dice, the roll, the result, valid JSON —
and for consistency with the rules and with the Python API, not against copied output.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _chill import chill_band
from _repo import REPO_ROOT, SHIPPED_NAMES
from jsonschema import Draft202012Validator
from ruamel.yaml import YAML

import engine

ROLL = ("roll", "chill", "specific", "--input", "target=55", "--seed", "7")


@pytest.fixture(scope="module")
def roll_json(cli) -> dict:
    r = cli(*ROLL, "--json")
    assert r.code == 0, r.err
    return json.loads(r.out)


def test_roll_json_parses_and_has_the_parts(roll_json):
    for key in ("outcome", "rolled", "values", "trace"):
        assert key in roll_json
    assert set(roll_json["rolled"]) == {"tens", "ones"}
    assert roll_json["inputs"]["target"] == 55
    assert isinstance(roll_json["trace"], list) and roll_json["trace"]
    kinds = [step["kind"] for step in roll_json["trace"]]
    assert kinds.count("die") == 2


def test_roll_json_is_consistent_with_the_rules(roll_json):
    tens, ones = roll_json["rolled"]["tens"], roll_json["rolled"]["ones"]
    assert 0 <= tens <= 9 and 0 <= ones <= 9
    roll = 100 if tens == ones == 0 else 10 * tens + ones
    assert roll_json["values"]["roll"] == roll
    assert roll_json["outcome"] == chill_band(roll, tens == ones, 55)


def test_roll_json_matches_the_python_api_with_the_same_seed(roll_json):
    """`--seed 7` is `random.Random(7)`: the CLI and the API give the same roll."""
    api = engine.load("chill").roll("specific", random.Random(7), target=55).as_json()
    for key in ("outcome", "rolled", "values", "trace", "inputs"):
        assert roll_json[key] == api[key]


def test_roll_text_shows_dice_roll_and_result(roll_json, cli):
    r = cli(*ROLL)
    assert r.code == 0, r.err
    out = r.out
    tens, ones = roll_json["rolled"]["tens"], roll_json["rolled"]["ones"]
    assert re.search(rf"\btens\b\s*:\s*{tens}\b", out), out
    assert re.search(rf"\bones\b\s*:\s*{ones}\b", out), out
    assert re.search(rf"\broll\b\s*=\s*{roll_json['values']['roll']}\b", out), out
    assert roll_json["outcome"] in out.splitlines()[-1], out


def test_same_seed_same_output(cli):
    first, second = cli(*ROLL), cli(*ROLL)
    assert first.code == second.code == 0
    assert first.out == second.out


def test_seeds_vary_the_roll(shipped):
    """Guard against a seed that is ignored: twenty seeds do not all give the same dice."""
    seen = set()
    for seed in range(20):
        data = shipped["chill"].roll("specific", random.Random(seed), target=55).rolled
        seen.add((data["tens"], data["ones"]))
    assert len(seen) > 1


def test_roll_with_force(cli):
    r = cli(
        "roll", "chill", "specific", "-i", "target=55", "--force", "tens=7", "--force", "ones=7", "--json"
    )
    assert r.code == 0, r.err
    assert json.loads(r.out)["outcome"] == "botch"


def test_roll_by_path_and_choice_and_bool_inputs(cli):
    r = cli(
        "roll",
        "rulesets/castle.yaml",
        "task",
        "-i",
        "skill=advantaged",
        "-i",
        "seriously_wounded=true",
        "--seed",
        "3",
        "--json",
    )
    assert r.code == 0, r.err
    data = json.loads(r.out)
    assert data["inputs"]["skill"] == "advantaged" and data["inputs"]["seriously_wounded"] is True
    assert len(data["rolled"]["beads"]) == 1  # wounded: Advantaged draws as Average, one bead


def test_validate_the_shipped_folder(cli):
    r = cli("validate", "rulesets/")
    assert r.code == 0, r.out + r.err
    for name in SHIPPED_NAMES:
        assert f"{name}.yaml" in r.out


def test_validate_json_format(cli):
    r = cli("validate", "rulesets/", "--format", "json")
    assert r.code == 0
    data = json.loads(r.out)
    assert data["ok"] is True
    assert len(data["files"]) == len(SHIPPED_NAMES)


def test_validate_a_broken_file_exits_1(tmp_path, cli, repo_root):
    good = (repo_root / "rulesets" / "chthonian.yaml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        good.replace("extent: result - difficulty", "extent: result - dificulty"), encoding="utf-8"
    )
    assert bad.read_text(encoding="utf-8") != good
    r = cli("validate", str(bad))
    assert r.code == 1
    assert "bad.yaml:" in r.err and "did you mean 'difficulty'" in r.err


def test_validate_a_folder_with_one_broken_file_exits_1(tmp_path, cli, repo_root):
    shutil.copy(repo_root / "rulesets" / "chill.yaml", tmp_path / "chill.yaml")
    (tmp_path / "broken.yaml").write_text("rulecraft: 1\nname: broken\nchecks: [\n", encoding="utf-8")
    r = cli("validate", str(tmp_path))
    assert r.code == 1
    assert "broken.yaml:" in r.err


def test_a_folder_is_read_without_its_hidden_files_and_folders(tmp_path, cli, repo_root):
    """`rulecraft validate .` in a project: its rulesets, not a CI workflow, a pre-commit config or
    a virtual environment's YAML, which are no rulesets and failed it (RC003). A hidden file or
    folder named on the command line is still read."""
    (tmp_path / "rulesets").mkdir()
    shutil.copy(repo_root / "rulesets" / "chill.yaml", tmp_path / "rulesets" / "chill.yaml")
    for hidden in (
        ".github/workflows/ci.yml",
        ".venv/lib/x.yaml",
        "rulesets/.old/y.yaml",
        ".pre-commit-config.yaml",
    ):
        (tmp_path / hidden).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / hidden).write_text("on: push\n", encoding="utf-8")
    for command in ("validate", "test"):
        r = cli(command, ".", cwd=tmp_path)
        assert r.code == 0 and "chill.yaml" in r.out, r.out + r.err
        assert "ci.yml" not in r.out + r.err and "x.yaml" not in r.out + r.err
    r = cli("validate", ".github", cwd=tmp_path)
    assert r.code == 1 and "ci.yml" in r.out + r.err and "RC003" in r.err


def test_validate_json_reports_the_position(tmp_path, cli, repo_root):
    bad = tmp_path / "bad.yaml"
    text = (repo_root / "rulesets" / "chthonian.yaml").read_text(encoding="utf-8") + "rolll: 1\n"
    bad.write_text(text, encoding="utf-8")
    r = cli("validate", str(bad), "--format", "json")
    assert r.code == 1
    diag = json.loads(r.out)["files"][0]["diagnostics"][0]
    assert (diag["line"], diag["column"]) == (len(text.splitlines()), 1)
    assert diag["code"] == "RC102"


def test_validate_nothing_found_is_an_error(tmp_path, cli):
    assert cli("validate", str(tmp_path)).code != 0


def test_list(cli, shipped):
    r = cli("list")
    assert r.code == 0
    for name in SHIPPED_NAMES:
        assert re.search(rf"^{name}\b", r.out, re.M), r.out
        for check in shipped[name].checks:
            assert re.search(rf"^\s+{check}\b", r.out, re.M)


TITLED = """\
rulecraft: 1
name: two
title: "Two\\nlines"
checks:
  flip:
    title: |
      Flip
      a coin
    roll:
      d: {die: 2}
    outcomes: [tails, heads]
    outcome:
      - when: d == 2
        then: heads
      - else: tails
"""


def test_a_title_with_a_line_break_is_printed_on_one_line(cli, tmp_path: Path, monkeypatch) -> None:
    """A ruleset's `title: "Two\\nlines"` and a check's block-scalar title were printed across lines
    by `show`, `list` and the headers of `roll` and `prob`: each is one line now, its break written
    `\\n` (as a file name's is in a diagnostic) and a block scalar's final one left out."""
    path = tmp_path / "two.yaml"
    path.write_text(TITLED, encoding="utf-8")
    seen = {
        "show": cli("show", str(path)).out,
        "show check": cli("show", str(path), "flip").out,
        "roll": cli("roll", str(path), "flip", "--seed", "1").out,
        "prob": cli("prob", str(path), "flip").out,
    }
    monkeypatch.setattr("engine.cli.shipped_rulesets", lambda: {"two": path})
    seen["list"] = cli("list").out
    for command, out in seen.items():
        lines = out.splitlines()
        assert "lines" not in " ".join(line.split()[0] for line in lines if line.split()), (command, out)
        assert not any(line.strip() == "a coin" for line in lines), (command, out)
    assert "two: Two\\nlines  (" in seen["show"] and "  flip: Flip\\na coin\n" in seen["show"]
    assert seen["show check"].startswith("flip: Flip\\na coin\n")
    assert seen["prob"].startswith("two · Flip\\na coin\n")
    assert seen["roll"].startswith("two · Flip\\na coin  (seed 1)\n")
    assert re.search(r"^two +Two\\nlines$", seen["list"], re.M) and re.search(
        r"^  flip +Flip\\na coin$", seen["list"], re.M
    ), seen["list"]


def test_show_chill(cli, shipped):
    r = cli("show", "chill")
    assert r.code == 0
    assert "specific" in r.out
    for note in shipped["chill"].model.notes:  # every reading the ruleset chose is shown
        assert note.id in r.out


def test_show_chimera_pool(cli):
    r = cli("show", "chimera", "pool")
    assert r.code == 0
    out = r.out
    for name in ("dice", "advantage", "disadvantage"):
        assert re.search(rf"^\s+{name}:", out, re.M), out
    for outcome in ("crit_fail", "fail", "half_pass", "pass", "crit_pass"):
        assert outcome in out


def test_show_unknown_check_exits_1(cli):
    r = cli("show", "chill", "specifc")
    assert r.code == 1
    assert "did you mean 'specific'" in r.err


@pytest.fixture(scope="module")
def schema(cli) -> dict:
    r = cli("schema")
    assert r.code == 0
    return json.loads(r.out)


def test_schema_is_valid_json_schema_that_accepts_the_shipped_rulesets(schema, repo_root):
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    yaml = YAML(typ="safe")
    for name in SHIPPED_NAMES:
        data = yaml.load((repo_root / "rulesets" / f"{name}.yaml").read_text(encoding="utf-8"))
        errors = list(validator.iter_errors(data))
        assert not errors, (name, errors[0].message)
    assert list(validator.iter_errors({"rulecraft": 1, "name": "x", "checks": {}, "bogus": 1}))


def test_the_schema_refuses_for_any_validator_the_names_the_engine_refuses(schema, repo_root):
    """A plain validator in Python (jsonschema, as a CI pipeline runs it on YAML it has read) took
    a name ending in a line break, since Python's `$` matches before one where ECMA-262's, which
    JSON Schema means, does not; and a key that is a number (`1:`), since a pattern says nothing
    of what is not text. The engine refuses both (RC104), and so does the schema now, to any
    validator; the shipped rulesets still pass (above)."""
    validator = Draft202012Validator(schema)
    check = {"roll": {"d": {"die": 6}}, "outcomes": ["a", "b"], "outcome": "'a'"}
    # a key is text in JSON: `true:` is the boolean to a YAML 1.2 loader (rulecraft reads it as the
    # name 'true'), and the schema, one for every validator, asks for it quoted ('true':)
    for key in ("flip\n", 1, "1flip", "", True):
        errors = list(validator.iter_errors({"rulecraft": 1, "name": "x", "checks": {key: check}}))
        assert errors, repr(key)
    for key in ("flip", "true"):
        assert not list(validator.iter_errors({"rulecraft": 1, "name": "x", "checks": {key: check}}))
    assert list(validator.iter_errors({"rulecraft": 1, "name": "x\n", "checks": {"flip": check}}))
    for key in ("flip\n", 1):
        data = {"rulecraft": 1, "name": "x", "checks": {key: check}}
        r = engine_refuses(repo_root, data)
        assert "error RC104" in r and "is not a valid name" in r, r


def engine_refuses(repo_root, data) -> str:
    """What `engine.load` says of `data` written as YAML."""
    import io

    from ruamel.yaml import YAML as RoundTrip

    import engine

    text = io.StringIO()
    RoundTrip().dump(data, text)
    try:
        engine.load(text.getvalue())
    except engine.RulecraftError as exc:
        return "\n".join(d.render() for d in exc.diagnostics)
    return "loaded"


def test_schema_describes_every_property(schema):
    """The issue asks for a description on every property so editors can show it."""
    missing = []

    def walk(node, path):
        if isinstance(node, dict):
            for key, sub in node.get("properties", {}).items():
                if isinstance(sub, dict) and "description" not in sub and "$ref" not in sub:
                    missing.append(f"{path}.{key}")
            for key, sub in node.items():
                if key not in ("if", "not"):  # conditions, not declarations of properties
                    walk(sub, f"{path}.{key}")
        elif isinstance(node, list):
            for i, sub in enumerate(node):
                walk(sub, f"{path}[{i}]")

    walk(schema, "$")
    assert not missing, missing


def test_misspelt_ruleset_name_gets_did_you_mean(cli):
    r = cli("roll", "chil", "specific", "-i", "target=5")
    assert r.code == 1
    assert "did you mean 'chill'" in r.err


def test_a_name_given_twice_is_refused_not_overridden(cli):
    """`--input target=55 --input target=65` (or `--force`, `--param`, … likewise) is a slip more
    often than a choice: one RC407 naming it, exit 1, and nothing rolled."""
    for argv in (
        ("prob", "chill", "specific", "-i", "target=55", "-i", "target=65"),
        ("roll", "chill", "specific", "-i", "target=55", "-i", "target= 65"),
        ("roll", "chill", "specific", "-i", "target=55", "--force", "tens=1", "--force", "tens=2"),
    ):
        r = cli(*argv)
        assert r.code == 1, argv
        assert "RC407" in r.err and "is given twice" in r.err, r.err
        assert r.out == "" and "Traceback" not in r.err
    assert cli("roll", "chill", "specific", "-i", "target=55", "-i", "tokens=1").code == 0


CAMPAIGN = ["campaign", "--db", "play.db"]
ACT = ["act", "c", "add_light"]


@pytest.mark.parametrize(
    ("wrong", "said", "right"),
    [
        (  # a command's option before the command: argparse took its value for the command's name
            ["campaign", "--limit", "max_work=4000000", "--db", "play.db", *ACT],
            "--limit max_work=4000000 goes after 'act', as an option of 'rulecraft campaign act': "
            "rulecraft campaign act ... --limit max_work=4000000",
            [*CAMPAIGN, *ACT, "--limit", "max_work=4000000"],
        ),
        (
            [*CAMPAIGN, "--limit=max_work=4000000", *ACT],
            "--limit=max_work=4000000 goes after 'act'",
            [*CAMPAIGN, *ACT, "--limit=max_work=4000000"],
        ),
        (
            ["--limit", "max_work=4000000", *CAMPAIGN, *ACT],
            "--limit max_work=4000000 goes after 'act'",
            [*CAMPAIGN, *ACT, "--limit", "max_work=4000000"],
        ),
        (
            ["--limit", "max_work=4000000", "roll", "chill", "specific", "-i", "target=5"],
            "--limit max_work=4000000 goes after 'roll'",
            ["roll", "chill", "specific", "-i", "target=5", "--limit", "max_work=4000000"],
        ),
        (
            ["scene", "--limit", "max_work=4000000", "prob", "castle", "shootout"],
            "--limit max_work=4000000 goes after 'prob'",
            None,
        ),
        ([*CAMPAIGN, "--json", "show", "c"], "--json goes after 'show'", [*CAMPAIGN, "show", "c", "--json"]),
        (
            [*CAMPAIGN, "--limit", "max_work=4000000", "list"],
            "'rulecraft campaign list' takes no --limit",
            None,
        ),
        (  # the group's option after its command: "unrecognized arguments"
            ["campaign", *ACT, "--db", "play.db"],
            "--db play.db goes before 'act', as an option of 'rulecraft campaign': "
            "rulecraft campaign --db play.db act ...",
            [*CAMPAIGN, *ACT],
        ),
        (
            ["campaign", "show", "c", "--db=play.db"],
            "--db=play.db goes before 'show'",
            [*CAMPAIGN, "show", "c"],
        ),
        # short options too: they were "invalid choice: 'target=5'" (hunt 13zzc)
        (
            ["-i", "target=5", "roll", "chill", "specific"],
            "-i target=5 goes after 'roll'",
            ["roll", "chill", "specific", "-i", "target=5"],
        ),
        (
            ["scene", "-p", "cinematic=true", "prob", "castle", "shootout"],
            "-p cinematic=true goes after 'prob'",
            None,
        ),
        ([*CAMPAIGN, "-cwalter", *ACT], "-cwalter goes after 'act'", None),
    ],
)
def test_an_option_on_the_wrong_side_of_its_command_is_told_where_it_goes(
    wrong: list[str], said: str, right: list[str] | None, cli: Any, tmp_path: Path
) -> None:
    """`rulecraft campaign --limit max_work=10 act ...` said only "invalid choice: 'max_work=10'"
    (argparse read the value as the command), and `--db` after the command "unrecognized
    arguments" (found by a review). `--db` belongs to `campaign`, before its command, and
    `--limit` to each command that evaluates, after it: each is told where it goes, a usage error
    (exit 2) with the usage of the command it is for, and nothing is run. Written as it says, it runs."""
    r = cli(*wrong, cwd=tmp_path)
    assert r.code == 2 and said in r.err and "invalid choice" not in r.err, r.err
    assert "unrecognized arguments" not in r.err and "usage: rulecraft" in r.err, r.err
    assert not (tmp_path / "play.db").exists()  # nothing was run
    if right is not None:
        assert cli(*CAMPAIGN, "new", "c", "chill", "-p", "players=4", cwd=tmp_path).code == 0
        r = cli(*right, cwd=tmp_path)
        assert r.code == 0, r.err


# --- real processes ------------------------------------------------------------------------


def this_checkout_first() -> dict[str, str]:
    """The environment for a child process that imports `engine` from this checkout, whatever
    copy of rulecraft is installed (an editable install may point at another checkout)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)
    return env


def test_usage_error_is_not_exit_0():
    """The exit status a shell sees from `python -m engine` (argparse's usage error, not 0 or 1)."""
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "roll"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env=this_checkout_first(),
        timeout=60,
    )
    assert proc.returncode not in (0, 1)  # argparse usage errors are 2
    assert "Traceback" not in proc.stderr


def test_piped_into_one_reader_the_lines_keep_their_order(tmp_path: Path):
    """`rulecraft validate bad.yaml 2>&1 | less` (or a CI log): the verdict, the diagnostic, then
    the count, as on a terminal, though standard output is buffered in a pipe and error is not."""
    for name in ("a", "b"):
        (tmp_path / f"{name}.yaml").write_text("rulecraft: 1\nname: x\nchecks: {c: {roll: {d: {die: 6}}}}\n")
    env = this_checkout_first()
    env.pop("PYTHONUNBUFFERED", None)  # as a user's shell has it: output to a pipe is buffered
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "validate", "a.yaml", "b.yaml"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 1
    firsts = [line.split()[0] for line in proc.stdout.splitlines() if not line.startswith(" ")]
    a, b = ["a.yaml:3:10:"] * 2, ["b.yaml:3:10:"] * 2  # 'outcomes' and 'outcome' missing
    assert firsts == ["FAILED", *a, "FAILED", *b, "2"], proc.stdout


INSTALLED_SCRIPT = Path(sys.executable).parent / ("rulecraft.exe" if os.name == "nt" else "rulecraft")


@pytest.mark.skipif(
    not INSTALLED_SCRIPT.is_file(),
    reason=f"the rulecraft script is not installed next to this Python ({INSTALLED_SCRIPT} is missing)",
)
def test_installed_script(roll_json):
    """The console script of this Python's environment (not whatever `rulecraft` is first on PATH)
    rolls what the command does in process."""
    proc = subprocess.run(
        [str(INSTALLED_SCRIPT), *ROLL, "--json"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env=this_checkout_first(),
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert json.loads(proc.stdout) == roll_json


def test_ctrl_c_is_a_line_and_exit_130_not_a_traceback() -> None:
    """A long run stopped with Ctrl-C (SIGINT) says so in one line and exits with 130, the
    shell's code for it."""
    import signal
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "engine", "roll", "chill", "specific", "-i", "target=55"]
        + ["--times", "10000000", "--method", "rolled", "--limit", "max_work=1000000000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(4)  # past the imports, into the rolls (which take tens of seconds, past the default budget)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert err == "interrupted\n" and "Traceback" not in out


@pytest.mark.parametrize("command", ["validate", "test"])
def test_a_folder_with_no_ruleset_says_so(command: str, cli, tmp_path: Path) -> None:
    """A folder named like a file, holding nothing: one line saying why, exit 1 (test printed
    '0 passed, 0 failed' and exited 1 with no reason)."""
    empty = tmp_path / "dir.yaml"
    empty.mkdir()
    r = cli(command, str(empty))
    assert (r.code, r.out) == (1, "") and r.err.startswith(
        f"error RC001: no ruleset files found in {empty}\n"
    )
    # and as JSON, for a CI step that parses standard output (it printed nothing there: an audit)
    r = cli(command, "--format", "json", str(empty))
    said = json.loads(r.out)
    assert r.code == 1 and said["ok"] is False and [d["code"] for d in said["diagnostics"]] == ["RC001"]


@pytest.mark.parametrize("command", ["validate", "test"])
def test_a_file_that_cannot_be_read_is_named_in_its_json_diagnostic(
    command: str, cli, tmp_path: Path
) -> None:
    """Its RC001 had `"file": null`, which CI annotations drop (found by an audit)."""
    missing = str(tmp_path / "nonexist.yaml")
    said = json.loads(cli(command, "--format", "json", missing).out)
    [entry] = said["files"]
    assert [(d["code"], d["file"]) for d in entry["diagnostics"]] == [("RC001", missing)]


def test_the_exit_codes_are_the_readmes(cli, repo_root):
    """README: 1 for a problem said as an RC diagnostic (an option's value in the wrong form
    included), 2 for a command line the parser cannot read, with the command's usage."""
    readme = (repo_root / "README.md").read_text(encoding="utf-8")
    assert "`--input target` without `=55` is `RC407`" in readme
    wrong_form = cli("roll", "chill", "specific", "--input", "target")
    assert wrong_form.code == 1 and "RC407" in wrong_form.err, wrong_form.err
    for argv in (
        ("roll", "chill", "specific", "--bogus"),
        ("roll", "chill", "specific", "--input"),
        ("rol",),
    ):
        unread = cli(*argv)
        assert unread.code == 2 and "usage:" in unread.err, (argv, unread.err)
    # an option's value of the wrong kind is a value, not a command line it cannot read: these
    # were argparse's usage and exit 2 (found by an audit)
    for argv, says in (
        (
            ("validate", "--lint-work", "-5", "chill"),
            "--lint-work: expected at least 0 units of work, got -5",
        ),
        (
            ("roll", "chill", "specific", "--input", "target=5", "--seed", "abc"),
            "--seed: expected a whole number",
        ),
        (
            ("roll", "chill", "specific", "--input", "target=5", "--times", "x"),
            "--times: expected a whole number",
        ),
    ):
        bad = cli(*argv)
        assert bad.code == 1 and bad.err.startswith(f"error RC407: {says}"), (argv, bad.err)


def test_a_file_named_twice_is_read_once_and_test_lists_a_file_that_did_not_load(cli, tmp_path: Path) -> None:
    """`validate chill.yaml rulesets/ ./rulesets/chill.yaml` checked chill three times, and `test`
    gave a file that did not load no line of its own where validate says FAILED (an audit)."""
    r = cli("validate", "rulesets/chill.yaml", "rulesets/", "./rulesets/chill.yaml")
    assert r.code == 0 and r.out.count("chill.yaml") == 1, r.out
    missing = str(tmp_path / "nonexist.yaml")
    r = cli("test", missing)
    assert r.code == 1 and f"FAILED  {missing}  (did not load)\n" in r.out, r.out


def test_a_folder_is_read_for_yaml_suffixes_in_any_case(tmp_path: Path, cli, repo_root: Path) -> None:
    """`RULES.YAML` and `old.YML` in a folder were passed over in silence (only `.yaml` and `.yml`
    were read), so `validate` and `test` said ok of rulesets they never read (an audit)."""
    games = tmp_path / "games"
    games.mkdir()
    for name in ("RULES.YAML", "old.YML", "mixed.Yaml", "plain.yaml"):
        shutil.copy(repo_root / "rulesets" / "chill.yaml", games / name)
    (games / "notes.txt").write_text("not a ruleset\n", encoding="utf-8")
    for command in ("validate", "test"):
        r = cli(command, "games", cwd=tmp_path)
        assert r.code == 0, r.out + r.err
        for name in ("RULES.YAML", "old.YML", "mixed.Yaml", "plain.yaml"):
            assert f"ok      {Path('games', name)}" in r.out, r.out
        assert "notes.txt" not in r.out + r.err
    (games / "BROKEN.YAML").write_text("rulecraft: 1\nname: broken\nchecks: [\n", encoding="utf-8")
    r = cli("validate", "games", cwd=tmp_path)
    assert r.code == 1 and f"FAILED  {Path('games', 'BROKEN.YAML')}" in r.out and "BROKEN.YAML:" in r.err


@pytest.mark.parametrize("command", ["validate", "test", "show"])
def test_a_folder_that_is_not_there_is_said_so(command: str, cli, tmp_path: Path) -> None:
    """`nodir/` was "no ruleset 'nodir': not a shipped ruleset nor a file" (the '/' dropped, and
    a folder meant): now that no such folder is there, with a shipped name only when one is close
    (an audit)."""
    r = cli(command, "nodir/", cwd=tmp_path)
    assert r.code == 1 and "error RC001: no such folder 'nodir/'\n" in r.err, r.err
    assert "nor a file" not in r.err and "hint:" not in r.err
    r = cli(command, "chil/", cwd=tmp_path)
    assert "error RC001: no such folder 'chil/'\n  hint: did you mean the shipped ruleset 'chill'?\n" in r.err
    if command != "show":  # listed as a file that did not load, the others still read
        r = cli(
            command, "--format", "json", "nodir/", str(REPO_ROOT / "rulesets" / "chill.yaml"), cwd=tmp_path
        )
        files = json.loads(r.out)["files"]
        assert r.code == 1 and [f["ok"] for f in files] == [False, True]
        assert [(d["code"], d["message"]) for d in files[0]["diagnostics"]] == [
            ("RC001", "no such folder 'nodir/'")
        ]
    # a bare word that is nothing says that its path does not exist
    r = cli(command, "nodir", cwd=tmp_path)
    assert (
        "no ruleset 'nodir': the path 'nodir' does not exist, and no shipped ruleset has that name" in r.err
    )


def test_an_unknown_check_is_told_at_the_rulesets_checks_key(cli, repo_root: Path) -> None:
    """`roll chill specifc` said "error RC402: ruleset 'chill' has no check 'specifc'" with no
    place (an audit), where an unknown input is told at its check: now at the `checks:` key, where
    the check was looked for, with the line, a caret and the did-you-mean, as text and as JSON."""
    path = repo_root / "rulesets" / "chill.yaml"
    line = path.read_text(encoding="utf-8").splitlines().index("checks:") + 1
    for argv in (("roll", "chill", "specifc"), ("prob", "chill", "specifc"), ("show", "chill", "specifc")):
        r = cli(*argv)
        assert r.code == 1 and r.err == (
            f"rulesets/chill.yaml:{line}:1: error RC402: ruleset 'chill' has no check 'specifc'\n"
            "  checks:\n  ^^^^^^\n  hint: did you mean 'specific'?\n"
        ), r.err
    for argv in (("roll", "--json", str(path), "specifc"), ("prob", "--json", "chill", "nothing")):
        r = cli(*argv)
        [d] = json.loads(r.out)["diagnostics"]
        assert r.code == 1 and d["code"] == "RC402", d
        assert (Path(d["file"]).resolve(), d["line"], d["column"]) == (path, line, 1), d
    assert json.loads(r.out)["diagnostics"][0]["hint"] == "checks: specific"


@pytest.mark.parametrize(
    "argv",
    [
        ("roll", "chill", "specific", "-i", "target=55"),
        ("roll", "chill", "specific", "-i", "target=55", "--times", "10", "--method", "rolled"),
        ("scene", "roll", "castle", "duel"),
        ("scene", "roll", "castle", "duel", "--times", "3"),
    ],
)
def test_a_negative_seed_is_refused(cli: Any, argv: tuple[str, ...]) -> None:
    """Python's `random.Random` seeds by a number's absolute value, so `--seed -7` rolled exactly
    what `--seed 7` rolls (found by a review): a seed is a whole number, at least 0, on every way
    in (the command line here, RC407; `Campaign.act`/`roll` and `play_in_campaign`, RC410; the
    server's `seed`, 422 RC407), by one rule (`arguments.seed_problem`). Seed 0 and up roll as
    they always did."""
    r = cli(*argv, "--seed", "-7")
    assert r.code == 1 and r.out == "", r.out
    assert "error RC407: --seed: a seed is a whole number, at least 0, got -7" in r.err, r.err
    assert cli(*argv, "--seed", "0").code == 0


def test_a_negative_seed_is_refused_by_every_campaign_command(cli: Any, tmp_path: Any) -> None:
    from engine.scenes.campaign import play_in_campaign
    from engine.state.memory import MemoryStore

    db = str(tmp_path / "c.db")
    assert cli("campaign", "--db", db, "new", "c", "castle", "-c", "ann", "-c", "bo").code == 0
    for argv in (
        ("act", "c", "attempt", "-c", "ann"),
        ("roll", "c", "task"),
        ("scene", "c", "duel", "--cast", "you=ann", "--cast", "foe=bo"),
    ):
        r = cli("campaign", "--db", db, *argv, "--seed", "-1")
        assert r.code == 1 and "RC407" in r.err and "at least 0, got -1" in r.err, r.err
    assert len(cli("campaign", "--db", db, "log", "c", "--json").out.split('"seq"')) == 2  # nothing written
    case = engine.new_campaign("c", "castle", store=MemoryStore(), characters={"ann": {}, "bo": {}})
    with pytest.raises(engine.InputError) as caught:
        play_in_campaign(case, "duel", {"you": "ann", "foe": "bo"}, seed=-3)
    assert caught.value.diagnostics[0].code == "RC410" and len(case.log()) == 1


def test_the_module_runs_every_command(tmp_path: Path) -> None:
    """`python -m engine.cli campaign ...` ended in a NameError: the module ran `main()` before the
    campaign commands below it were defined."""
    done = subprocess.run(
        [sys.executable, "-m", "engine.cli", "campaign", "--db", str(tmp_path / "c.db"), "list"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("method", ["rolled", "exact", "auto"])
def test_roll_method_without_times_is_refused_as_force_with_times_is(cli, method: str) -> None:
    """`--method` says how the `--times` rolls are made; without `--times` it is RC407, as
    `--force` with `--times` is, not passed over (one roll was made and `--method` ignored)."""
    bad = cli("roll", "chill", "specific", "--input", "target=55", "--method", method, "--seed", "1")
    assert bad.code == 1 and bad.err.startswith("error RC407: --method says how the --times rolls"), bad.err
    assert bad.out == ""
    forced = cli("roll", "chill", "specific", "--input", "target=55", "--force", "tens=1", "--times", "5")
    assert forced.code == 1 and forced.err.startswith("error RC407: --force fixes one roll"), forced.err
    many = cli("roll", "chill", "specific", "--input", "target=55", "--method", method, "--times", "5")
    assert many.code == 0 and "(5 rolls" in many.out, many.err


@pytest.mark.parametrize("db", [":memory:", "", " "])
def test_a_store_that_keeps_nothing_is_refused(cli, db: str) -> None:
    """`--db :memory:` is SQLite's database in memory: `campaign new` said "made campaign 'x' ...
    in :memory:" and exited 0, and nothing was kept (hunt 13g); an empty name read as the folder
    `.`. Both are RC407 now, before any store is opened."""
    r = cli("campaign", "--db", db, "new", "x", "chill")
    assert r.code == 1 and r.out == "" and r.err.startswith(f"error RC407: --db {db!r} is "), r.err
    assert "Traceback" not in r.err


def test_a_default_store_in_memory_is_refused_too(cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("RULECRAFT_DB", ":memory:")
    r = cli("campaign", "list")
    assert r.code == 1 and r.err.startswith("error RC407: $RULECRAFT_DB ':memory:' is SQLite's"), r.err


def test_a_relative_xdg_data_home_is_ignored(monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Hunt 13l: a relative `$XDG_DATA_HOME` named another store from every working folder; the
    XDG spec says to ignore it. An empty one, or an empty `$RULECRAFT_DB`, is as unset."""
    from engine.api import default_db

    monkeypatch.delenv("RULECRAFT_DB", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    home = tmp_path / ".local" / "share" / "rulecraft" / "campaigns.db"
    for xdg in ("data", "./data", ""):
        monkeypatch.setenv("XDG_DATA_HOME", xdg)
        assert default_db() == home
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "x"))
    assert default_db() == tmp_path / "x" / "rulecraft" / "campaigns.db"
    monkeypatch.setenv("RULECRAFT_DB", "")
    assert default_db() == tmp_path / "x" / "rulecraft" / "campaigns.db"


def test_xdg_data_home_naming_a_file_is_told_as_such(cli, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`$XDG_DATA_HOME` naming a file: the message named the `rulecraft/` folder under it as
    not existing, and hinted to make it, which cannot be done; the file is what is wrong."""
    monkeypatch.delenv("RULECRAFT_DB", raising=False)
    afile = tmp_path / "data"
    afile.write_text("x", encoding="utf-8")
    monkeypatch.setenv("XDG_DATA_HOME", str(afile))
    r = cli("campaign", "list")
    assert r.code == 1, r.err
    assert r.err.splitlines() == [
        f"error RC903: cannot create {afile}/rulecraft/campaigns.db: {afile} is not a folder",
        "  hint: give another path",
    ]


def test_campaign_prob_and_scene_odds_read_a_campaign_whose_file_changed(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Hunt 13p: `campaign prob` and `campaign scene --odds` write nothing, yet refused a campaign
    whose ruleset file changed since it was made (RC904 as an error), where the README says only
    changes are refused. They read it now as `show` does: with the text it keeps, RC904 a
    warning; a change is still refused."""
    from engine.syntax.resources import shipped_rulesets

    mine = tmp_path / "mycastle.yaml"
    mine.write_text(shipped_rulesets()["castle"].read_text(encoding="utf-8"), encoding="utf-8")
    db = str(tmp_path / "c.db")
    made = cli("campaign", "--db", db, "new", "c1", str(mine), "-c", "ann", "-c", "bob")
    assert made.code == 0, made.err
    before = cli(
        "campaign", "--db", db, "scene", "c1", "duel", "--cast", "you=ann", "--cast", "foe=bob", "--odds"
    )
    assert before.code == 0 and before.err == "", before.err
    with mine.open("a", encoding="utf-8") as f:
        f.write("# edited since\n")
    odds = cli(
        "campaign", "--db", db, "scene", "c1", "duel", "--cast", "you=ann", "--cast", "foe=bob", "--odds"
    )
    assert odds.code == 0, odds.err
    assert odds.out == before.out  # the text the campaign keeps: the same rules
    assert "warning RC904: the ruleset of campaign 'c1' has changed" in odds.err, odds.err
    played = cli("campaign", "--db", db, "scene", "c1", "duel", "--cast", "you=ann", "--cast", "foe=bob")
    assert played.code == 1 and "error RC904" in played.err, played.err


def test_campaign_scene_odds_refuses_a_seed_it_would_not_use(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Hunt 13p: `campaign scene --odds --seed 3` passed the seed over in silence."""
    db = str(tmp_path / "c.db")
    assert cli("campaign", "--db", db, "new", "c1", "castle", "-c", "ann", "-c", "bob").code == 0
    cast = ["--cast", "you=ann", "--cast", "foe=bob"]
    r = cli("campaign", "--db", db, "scene", "c1", "duel", *cast, "--odds", "--seed", "3")
    assert r.code == 1 and r.out == "", r.out
    assert (
        r.err.strip()
        == "error RC407: --seed goes with a played scene; --odds solves the scene exactly, rolling nothing"
    )
    assert cli("campaign", "--db", db, "scene", "c1", "duel", *cast, "--odds").code == 0
