"""Chimera's skill check with the full 9s-and-0s procedure, solved exactly: time and peak memory.

Each cell is the first computation on a freshly loaded ruleset, in a fresh process (so the peak
memory, read from the kernel's VmHWM, is that request's), repeated `--repeats` times in
alternating rounds; the median is printed. The budget is raised so that every size runs to the
end (`dice + resolve` above 10 is `resolve` dice added to 10).

    python benchmarks/reroll.py                      # 2..20 dice, 3 rounds
    python benchmarks/reroll.py --sizes 10 20 --repeats 5
    python benchmarks/reroll.py --instructions --sizes 10 --policies always   # needs valgrind

`--instructions` counts, in place of timing, the instructions the solve itself executes, with
valgrind's callgrind collecting only inside the call (`--toggle-collect` on a `functools.reduce`
that makes it) and Python's hash seed fixed: the same count from run to run (every repeat tried
agreed to a tenth of a million), on a busy minute or a quiet one, where this machine's times
move by half or more within an hour. It is how a change to the solver can be judged in one run;
the times in `docs/performance.md` remain the measure of the goals.

Either way the engine's bytecode is brought up to date first (`compileall`), as installing a
package does: the solve imports the exact evaluator and the reroll solver, and in a shell with
PYTHONDONTWRITEBYTECODE set a module changed since its `.pyc` was written would be compiled again
inside every timed or counted call (at 10 dice under `always`, 48 million instructions more for
`eval/rerolls.py` alone, and 130 million with no bytecode at all, against 337 million).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POLICIES = ("always", "never", "optimal")

ONE = """
import json, time, engine
from engine.api import Limits
n, policy = {n}, {policy!r}
rs = engine.load("chimera", limits=Limits(max_work=10**12, max_states=10**7))
start, cpu = time.perf_counter(), time.process_time()
try:
    rs.distribution("skill", dice=min(n, 10), resolve=max(0, n - 10), policy=policy)
except engine.RulecraftError as error:  # a size past an input's bound: the engine's own words
    raise SystemExit(str(error))
wall, cpu = time.perf_counter() - start, time.process_time() - cpu
peak = 0
for line in open("/proc/self/status"):
    if line.startswith("VmHWM:"):
        peak = int(line.split()[1]) * 1024
print(json.dumps({{"wall": wall, "cpu": cpu, "peak": peak}}))
"""


COUNTED = """
import functools, sys
if {no_numpy}:
    sys.modules["numpy"] = None  # the node-by-node solver at every size
import engine
from engine.api import Limits
n, policy = {n}, {policy!r}
rs = engine.load("chimera", limits=Limits(max_work=10**12, max_states=10**7))
solve = lambda _, __: rs.distribution("skill", dice=min(n, 10), resolve=max(0, n - 10), policy=policy)
try:
    functools.reduce(solve, (0, 1))  # the one call callgrind counts (--toggle-collect)
except engine.RulecraftError as error:  # a size past an input's bound: the engine's own words
    sys.exit(str(error))
"""


def instructions(n: int, policy: str, no_numpy: bool = False) -> int:
    """The instructions one first computation executes (callgrind, counting inside the call)."""
    if shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (Debian's package `valgrind`)")
    # a load outside valgrind first, so the on-disk caches (the grammar's analysis, the parsed
    # and validated ruleset) are filled: under valgrind a cold load takes most of a minute
    subprocess.run([sys.executable, "-c", "import engine; engine.load('chimera')"], cwd=ROOT, check=True)
    run = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--collect-atstart=no",
            "--toggle-collect=functools_reduce",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            "-c",
            COUNTED.format(n=n, policy=policy, no_numpy=no_numpy),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    found = re.search(r"Collected : (\d+)", run.stderr)
    if run.returncode != 0 or found is None:  # the solve's own words, without valgrind's lines
        said = [line for line in run.stderr.splitlines() if not re.match(r"==\d+==", line)]
        raise SystemExit(f"{n} dice under {policy}: the solve failed:\n" + "\n".join(said[-20:]))
    return int(found.group(1))


def one(n: int, policy: str) -> dict[str, float]:
    """One first computation in a fresh process."""
    run = subprocess.run(
        [sys.executable, "-c", ONE.format(n=n, policy=policy)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:  # the solve's own words (an unknown policy, an input out of range), as
        # `instructions` gives them, where a CalledProcessError's traceback hid them (hunt 13q)
        said = run.stderr.splitlines()
        raise SystemExit(f"{n} dice under {policy}: the solve failed:\n" + "\n".join(said[-20:]))
    result: dict[str, float] = json.loads(run.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[2, 4, 6, 8, 10, 12, 16, 20])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--policies", nargs="*", default=list(POLICIES))
    parser.add_argument(
        "--instructions", action="store_true", help="count the solve's instructions (valgrind), not time it"
    )
    parser.add_argument(
        "--no-numpy", action="store_true", help="with --instructions: the node-by-node solver at every size"
    )
    args = parser.parse_args()
    compileall.compile_dir(ROOT / "engine", quiet=1, force=True)  # force: a same-second edit passes the check
    if args.instructions:
        print("| dice | " + " | ".join(f"{p} (instructions)" for p in args.policies) + " |")
        print("|---:|" + "---:|" * len(args.policies))
        for n in args.sizes:
            counts = [instructions(n, p, args.no_numpy) for p in args.policies]
            print(f"| {n} | " + " | ".join(f"{c / 1e6:,.1f} M" for c in counts) + " |", flush=True)
        return
    print("| dice | " + " | ".join(args.policies) + " |")
    print("|---:|" + "---:|" * len(args.policies))
    for n in args.sizes:
        runs: dict[str, list[dict[str, float]]] = {p: [] for p in args.policies}
        for _ in range(args.repeats):  # alternating rounds: each policy once per round
            for p in args.policies:
                runs[p].append(one(n, p))
        cells = []
        for p in args.policies:
            wall = statistics.median(r["wall"] for r in runs[p]) * 1000
            cpu = statistics.median(r["cpu"] for r in runs[p]) * 1000
            peak = max(r["peak"] for r in runs[p]) / 2**20
            cells.append(f"{wall:,.0f} ms (cpu {cpu:,.0f} ms, {peak:,.0f} MB)")
        print(f"| {n} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
