"""Chimera's skill check with the full 9s-and-0s procedure, solved exactly: time and peak memory.

Each cell is the first computation on a freshly loaded ruleset, in a fresh process (so the peak
memory, read from the kernel's VmHWM, is that request's), repeated `--repeats` times in
alternating rounds; the median is printed. The budget is raised so that every size runs to the
end (`dice + resolve` above 10 is `resolve` dice added to 10).

    python benchmarks/reroll.py                      # 2..20 dice, 3 rounds
    python benchmarks/reroll.py --sizes 10 20 --repeats 5
"""

from __future__ import annotations

import argparse
import json
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
rs.distribution("skill", dice=min(n, 10), resolve=max(0, n - 10), policy=policy)
wall, cpu = time.perf_counter() - start, time.process_time() - cpu
peak = 0
for line in open("/proc/self/status"):
    if line.startswith("VmHWM:"):
        peak = int(line.split()[1]) * 1024
print(json.dumps({{"wall": wall, "cpu": cpu, "peak": peak}}))
"""


def one(n: int, policy: str) -> dict[str, float]:
    """One first computation in a fresh process."""
    run = subprocess.run(
        [sys.executable, "-c", ONE.format(n=n, policy=policy)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(run.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[2, 4, 6, 8, 10, 12, 16, 20])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--policies", nargs="*", default=list(POLICIES))
    args = parser.parse_args()
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
