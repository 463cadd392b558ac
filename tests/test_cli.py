"""The `rulecraft` command, run as a real subprocess (`python -m engine`, and the installed script).

Outputs are checked for what a user needs to see — the dice, the roll, the result, valid JSON —
and for consistency with the rules and with the Python API, not against copied output.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _chill import chill_band
from jsonschema import Draft202012Validator
from ruamel.yaml import YAML

import engine

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ("castle", "chill", "chimera", "chthonian")


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "engine", *args], capture_output=True, text=True, cwd=cwd, timeout=60
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


ROLL = ("roll", "chill", "specific", "--input", "target=55", "--seed", "7")


@pytest.fixture(scope="module")
def roll_json() -> dict:
    proc = run(*ROLL, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


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


def test_roll_text_shows_dice_roll_and_result(roll_json):
    proc = run(*ROLL)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    tens, ones = roll_json["rolled"]["tens"], roll_json["rolled"]["ones"]
    assert re.search(rf"\btens\b\s*:\s*{tens}\b", out), out
    assert re.search(rf"\bones\b\s*:\s*{ones}\b", out), out
    assert re.search(rf"\broll\b\s*=\s*{roll_json['values']['roll']}\b", out), out
    assert roll_json["outcome"] in out.splitlines()[-1], out


def test_same_seed_same_output():
    first, second = run(*ROLL), run(*ROLL)
    assert first.returncode == second.returncode == 0
    assert first.stdout == second.stdout


def test_seeds_vary_the_roll():
    """Guard against a seed that is ignored: twenty seeds do not all give the same dice."""
    seen = set()
    for seed in range(20):
        data = engine.load("chill").roll("specific", random.Random(seed), target=55).rolled
        seen.add((data["tens"], data["ones"]))
    assert len(seen) > 1


def test_roll_with_force():
    proc = run(
        "roll", "chill", "specific", "-i", "target=55", "--force", "tens=7", "--force", "ones=7", "--json"
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["outcome"] == "botch"


def test_roll_by_path_and_choice_and_bool_inputs():
    proc = run(
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
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["inputs"]["skill"] == "advantaged" and data["inputs"]["seriously_wounded"] is True
    assert len(data["rolled"]["beads"]) == 1  # wounded: Advantaged draws as Average, one bead


def test_validate_the_shipped_folder():
    proc = run("validate", "rulesets/")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in SHIPPED:
        assert f"{name}.yaml" in proc.stdout


def test_validate_json_format():
    proc = run("validate", "rulesets/", "--format", "json")
    assert proc.returncode == 0
    data = json.loads(proc.stdout)
    assert data["ok"] is True
    assert len(data["files"]) == len(SHIPPED)


def test_validate_a_broken_file_exits_1(tmp_path):
    good = (ROOT / "rulesets" / "chthonian.yaml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        good.replace("extent: result - difficulty", "extent: result - dificulty"), encoding="utf-8"
    )
    assert bad.read_text(encoding="utf-8") != good
    proc = run("validate", str(bad))
    assert proc.returncode == 1
    assert "bad.yaml:" in proc.stderr and "did you mean 'difficulty'" in proc.stderr


def test_validate_a_folder_with_one_broken_file_exits_1(tmp_path):
    shutil.copy(ROOT / "rulesets" / "chill.yaml", tmp_path / "chill.yaml")
    (tmp_path / "broken.yaml").write_text("rulecraft: 1\nname: broken\nchecks: [\n", encoding="utf-8")
    proc = run("validate", str(tmp_path))
    assert proc.returncode == 1
    assert "broken.yaml:" in proc.stderr


def test_validate_json_reports_the_position(tmp_path):
    bad = tmp_path / "bad.yaml"
    text = (ROOT / "rulesets" / "chthonian.yaml").read_text(encoding="utf-8") + "rolll: 1\n"
    bad.write_text(text, encoding="utf-8")
    proc = run("validate", str(bad), "--format", "json")
    assert proc.returncode == 1
    diag = json.loads(proc.stdout)["files"][0]["diagnostics"][0]
    assert (diag["line"], diag["column"]) == (len(text.splitlines()), 1)
    assert diag["code"] == "RC102"


def test_validate_nothing_found_is_an_error(tmp_path):
    assert run("validate", str(tmp_path)).returncode != 0


def test_list():
    proc = run("list")
    assert proc.returncode == 0
    for name in SHIPPED:
        assert re.search(rf"^{name}\b", proc.stdout, re.M), proc.stdout
        for check in engine.load(name).checks:
            assert re.search(rf"^\s+{check}\b", proc.stdout, re.M)


def test_show_chill():
    proc = run("show", "chill")
    assert proc.returncode == 0
    assert "specific" in proc.stdout
    for note in engine.load("chill").model.notes:  # every reading the ruleset chose is shown
        assert note.id in proc.stdout


def test_show_chimera_pool():
    proc = run("show", "chimera", "pool")
    assert proc.returncode == 0
    out = proc.stdout
    for name in ("dice", "advantage", "disadvantage"):
        assert re.search(rf"^\s+{name}:", out, re.M), out
    for outcome in ("crit_fail", "fail", "half_pass", "pass", "crit_pass"):
        assert outcome in out


def test_show_unknown_check_exits_1():
    proc = run("show", "chill", "specifc")
    assert proc.returncode == 1
    assert "did you mean 'specific'" in proc.stderr


@pytest.fixture(scope="module")
def schema() -> dict:
    proc = run("schema")
    assert proc.returncode == 0
    return json.loads(proc.stdout)


def test_schema_is_valid_json_schema_that_accepts_the_shipped_rulesets(schema):
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    yaml = YAML(typ="safe")
    for name in SHIPPED:
        data = yaml.load((ROOT / "rulesets" / f"{name}.yaml").read_text(encoding="utf-8"))
        errors = list(validator.iter_errors(data))
        assert not errors, (name, errors[0].message)
    assert list(validator.iter_errors({"rulecraft": 1, "name": "x", "checks": {}, "bogus": 1}))


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


def test_usage_error_is_not_exit_0():
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "roll"], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert proc.returncode not in (0, 1)  # argparse usage errors are 2
    assert "Traceback" not in proc.stderr


def test_misspelt_ruleset_name_gets_did_you_mean():
    proc = run("roll", "chil", "specific", "-i", "target=5")
    assert proc.returncode == 1
    assert "did you mean 'chill'" in proc.stderr


@pytest.mark.skipif(shutil.which("rulecraft") is None, reason="the rulecraft script is not on PATH")
def test_installed_script():
    script = shutil.which("rulecraft")
    assert script is not None
    proc = subprocess.run([script, *ROLL, "--json"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    via_module = run(*ROLL, "--json")
    assert json.loads(proc.stdout) == json.loads(via_module.stdout)
