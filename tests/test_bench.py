"""The benchmark script cannot rot: its peers' correctness checks pass for the small sizes, a
disagreement stops it, and its parts run end to end in --quick mode on a tiny task.

icepool and dyce are in the `bench` and `test` extras; where they are not installed, the tests
that need them are skipped with the reason shown."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from types import ModuleType

import pytest
from _repo import REPO_ROOT

BENCH = REPO_ROOT / "benchmarks" / "bench.py"
PEERS_MISSING = next(
    (
        f"{name} is not installed (the bench extra: pip install -e '.[bench]')"
        for name in ("icepool", "dyce")
        if importlib.util.find_spec(name) is None
    ),
    None,
)
needs_peers = pytest.mark.skipif(PEERS_MISSING is not None, reason=PEERS_MISSING or "")


def _module(name: str) -> ModuleType:
    sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(REPO_ROOT / "benchmarks"))


def _quick(*argv: str) -> str:
    """bench.py --quick --markdown with these arguments, in a fresh process: its tables."""
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--markdown", *argv],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _rows(markdown: str, part: str) -> list[list[str]]:
    """The cells of each row of one part's table in --markdown output (header rows included)."""
    lines = markdown.splitlines()
    start = lines.index(f"<!-- bench.py: {part} -->") + 1
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


@needs_peers
def test_the_peers_agree_with_an_independent_enumeration_on_the_small_sizes() -> None:
    peers = _module("peers")
    assert peers.self_check(full=False) > 60


@needs_peers
def test_the_large_pool_enumeration_agrees_with_rulecraft_at_20_dice() -> None:
    """The per-class enumeration that checks the 20..100-die pools (peers.py, run on its own)
    against the engine on the bench's own widened ruleset (the same check, `dice` up to 100)."""
    peers, bench = _module("peers"), _module("bench")
    dist = bench.RULESETS["chimera-wide"]().distribution("pool", dice=20)
    assert {s.name: p for s, p in dist.table() if p} == peers._brute_chimera_classes(20)


def test_every_exact_task_names_a_peer_function_and_a_unique_key() -> None:
    bench = _module("bench")
    keys = [task.key for task in bench.tasks()]
    assert len(keys) == len(set(keys))
    for needed in ("chill-55", "chimera-100", "combat-average", "combat-riposte", "chthonian-contest"):
        assert needed in keys
    if PEERS_MISSING is None:
        peers = _module("peers")
        for task in bench.tasks():
            assert set(task.libraries) <= set(peers.PEERS[task.peer]), task.key


def test_a_disagreement_stops_the_benchmark() -> None:
    bench = _module("bench")
    same = {"win": Fraction(1, 2), "lose": Fraction(1, 2)}
    bench.agree("task", {"rulecraft": same, "icepool": dict(same), "dyce": dict(same)})
    other = {"win": Fraction(1, 3), "lose": Fraction(2, 3)}
    with pytest.raises(SystemExit, match="disagree"):
        bench.agree("task", {"rulecraft": same, "icepool": same, "dyce": other})


@needs_peers
def test_the_exact_part_runs_in_quick_mode_on_one_tiny_task() -> None:
    rows = _rows(_quick("--only", "exact", "--task", "chthonian-standard"), "exact")
    header, _, row = rows
    assert header[:5] == ["task", "rulecraft first", "icepool first", "dyce first", "ratio first"]
    assert len(row) == len(header) == 13
    assert row[0].startswith("Chthonian Standard Roll")
    assert all(float(cell.replace(",", "")) > 0 for cell in row[1:])


def test_the_procedure_part_runs_in_quick_mode_on_two_dice() -> None:
    rows = _rows(_quick("--only", "procedure", "--dice", "2"), "procedure")
    assert rows[0] == ["dice", "always", "never", "optimal", "always peak", "never peak", "optimal peak"]
    assert rows[2][0] == "2" and len(rows) == 3
    assert all(cell.endswith(" ms") or cell.endswith(" s") for cell in rows[2][1:4])


def test_the_scenes_part_runs_in_quick_mode() -> None:
    """Its many duels at once are one request (one work budget since `sample_scenes` became
    one): the script gives that ruleset room, as it gives the armoured duel's solve."""
    rows = _rows(_quick("--only", "scenes"), "scenes")
    assert rows[0] == ["scene", "nodes (state and step)", "time"]
    assert rows[-1][0].startswith("the same, 2,000 at once") and rows[-1][2].endswith(" ms")


def test_the_chain_floor_merges_exactly_the_nodes_that_are_alike() -> None:
    """`chain_floor.merged` on a chain made by hand: two flights whose landings reach alike ends
    with the same chances are one; a flight with other chances is not; two choices whose options
    reach the same classes are one, whatever their order."""
    floor = _module("chain_floor")
    chain = {
        1: ("end", 1),
        2: ("end", 2),
        3: ("end", 3),
        10: ("flight", (1, 2), (1, 3)),
        11: ("flight", (3, 2), (1, 3)),  # 3 is alike 1: one node with 10
        12: ("flight", (1, 2), (3, 1)),  # other chances: its own
        20: ("choice", (10, 12)),
        21: ("choice", (12, 11)),  # the same classes as 20
    }
    value = {1: "a", 2: "b", 3: "a"}
    classes = floor.merged(chain, lambda code, how: value[code], "outcome")
    kinds, edges = floor.counts([(key[0], key[1]) for key in classes])
    assert kinds == {"end": 2, "flight": 2, "choice": 1} and edges == 2 + 2 + 2


def test_the_chain_floor_records_the_node_by_node_chain_where_numpy_would_solve_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """From 12 dice a chain is solved whole with numpy when it is installed (the `test` extra has
    it), which never asks `RerollSolver._node`: the script keeps the node-by-node solver, so its
    chain is there at any size. Shown at 4 dice with numpy's threshold lowered to one first roll."""
    pytest.importorskip("numpy")
    from engine.eval import rerolls

    floor = _module("chain_floor")
    monkeypatch.setattr(rerolls, "ARRAYS_FROM", 1)
    monkeypatch.setattr(rerolls, "ARRAYS_IMPORTING_FROM", 1)
    chain, _ = floor.scored_chain(4, 0)
    assert len(chain) == 141  # as test_the_chain_floor_runs_on_four_dice counts it


@pytest.mark.parametrize(
    ("ends", "merged"),
    [("value", ("125", "262")), ("outcome", ("84", "221")), ("score", ("79", "213"))],
)
def test_the_chain_floor_runs_on_four_dice(ends: str, merged: tuple[str, str]) -> None:
    """The script end to end on a small check: best play's chain at 4 dice, and fewer nodes once
    alike ones are merged. The numbers are the script's own today (141 nodes and 288 edges; 125
    and 262 merged with ends alike by the pool's value, 84 and 221 by their outcomes, 79 and 213
    by their scores), pinned: the chain and the merge are deterministic, so a change in either
    shows here. Every way of telling ends alike: `outcome` (the default) and `score` asked the
    solver after it was closed, and ended in an AttributeError (hunt 13q) where only `value` was
    run here."""
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "benchmarks" / "chain_floor.py"), "--dice", "4", "--resolve", "0"]
        + ["--ends", ends],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    rows = [line.split("|")[1:-1] for line in done.stdout.splitlines() if line.startswith("| ")]
    cells = {row[0].strip(): [c.strip() for c in row[1:]] for row in rows[1:]}
    assert cells["scored by best play"][0] == "141" and cells["scored by best play"][-1] == "288"
    assert (cells["alike nodes merged"][0], cells["alike nodes merged"][-1]) == merged


def test_the_chain_floor_tells_an_input_out_of_range_without_a_traceback() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "benchmarks" / "chain_floor.py"), "--dice", "11", "--resolve", "0"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("chain_floor.py: ") and "chimera.yaml:" in done.stderr, done.stderr
    assert "error RC403: input 'dice' = 11 is above its maximum 10" in done.stderr


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_the_reroll_instruction_count_is_the_solve_alone(tmp_path: Path) -> None:
    """`reroll.py --instructions` counts the solve and nothing else: a 1-die solve's count (14.5
    million instructions here) is well under what the whole process executes (starting Python,
    importing the engine, loading Chimera from the on-disk caches the script fills first: 806
    million counted with the toggle taken out), and under what compiling the modules the solve
    imports would add. The run starts with no bytecode at all (an empty `PYTHONPYCACHEPREFIX`,
    as in a clone with PYTHONDONTWRITEBYTECODE set): without the script's `compileall` first,
    the count is 145 million. So this fails if collection covers more than the solve."""
    process = subprocess.run(
        [sys.executable, str(REPO_ROOT / "benchmarks" / "reroll.py"), "--instructions"]
        + ["--sizes", "1", "--policies", "never"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
        env={**os.environ, "PYTHONPYCACHEPREFIX": str(tmp_path)},
    )
    last = process.stdout.splitlines()[-1]
    assert last.startswith("| 1 | ") and last.endswith(" M |")
    millions = float(last.split("|")[2].strip().removesuffix(" M").replace(",", ""))
    assert 0 < millions < 50


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
@pytest.mark.parametrize(("size", "policy", "says"), [("25", "always", "RC403"), ("2", "sometimes", "RC408")])
def test_the_reroll_timing_of_a_bad_size_or_policy_is_one_message(size: str, policy: str, says: str) -> None:
    """In timing mode too (hunt 13q: a CalledProcessError's traceback, the engine's message in
    the child's output unseen): exit 1 with the engine's own words."""
    process = subprocess.run(
        [sys.executable, str(REPO_ROOT / "benchmarks" / "reroll.py")]
        + ["--sizes", size, "--repeats", "1", "--policies", policy],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert process.returncode == 1
    assert f"{size} dice under {policy}: the solve failed:" in process.stderr and says in process.stderr
    assert "Traceback" not in process.stderr, process.stderr


def test_the_reroll_instruction_count_of_a_size_past_the_bound_is_one_message() -> None:
    """25 dice is 15 resolve dice, past the input's bound of 10: the script exits 1 with the
    engine's own message (code, place, hint), not a traceback or valgrind's summary."""
    process = subprocess.run(
        [sys.executable, str(REPO_ROOT / "benchmarks" / "reroll.py"), "--instructions"]
        + ["--sizes", "25", "--policies", "always"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert process.returncode == 1
    assert "RC403" in process.stderr and "resolve" in process.stderr
    assert "Traceback" not in process.stderr and "==" not in process.stderr


def test_a_procedure_row_not_in_the_table_is_refused() -> None:
    """Hunt 13q: `--only procedure --dice 11` printed the table's header alone and exited 0."""
    process = subprocess.run(
        [sys.executable, str(REPO_ROOT / "benchmarks" / "bench.py"), "--only", "procedure", "--dice", "11"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode == 2 and process.stdout == "", process.stdout
    assert (
        "bench.py: error: --dice 11: the procedure's rows are 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16, 20 dice"
        in (process.stderr)
    )


@needs_peers
def test_the_explosion_script_runs_and_agrees_with_icepool() -> None:
    """benchmarks/explode.py end to end, one round: it asserts both give 9/40 before timing."""
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "benchmarks" / "explode.py"), "--rounds", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("rulecraft ") and "icepool" in done.stdout and "ratio" in done.stdout
