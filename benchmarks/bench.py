"""Benchmark: rulecraft's exact distributions against icepool and dyce, in one process.

    pip install -e '.[bench]'
    python benchmarks/bench.py                 # exact-distribution tasks
    python benchmarks/bench.py --d20 /tmp/d20env/bin/python   # also time sampling against d20
    python benchmarks/bench.py --only trait    # sampling an uncapped explosion vs a plain check
    (make that interpreter with: python -m venv /tmp/d20env && /tmp/d20env/bin/pip install d20)

For every task each library computes the same numbers (checked equal, exactly) and we time
  * first:  the first computation in this process after loading (what a user waits for);
  * repeat: the median of later identical computations (caches warm).
rulecraft's repeat goes through `Ruleset.distribution`, whose results are memoised; the
`repeat*` column clears that memo each time to show the cost of recomputing.
Ratios are rulecraft / the faster peer: below 1.0 rulecraft is faster.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import handwritten  # noqa: E402
import peers  # noqa: E402

import engine  # noqa: E402

Result = dict[Any, Fraction]


def _clean(d: dict[Any, Fraction]) -> dict[str, Fraction]:
    return {str(k): v for k, v in d.items() if v}


def _time(fn: Callable[[], Any], repeats: int) -> tuple[float, float, Any]:
    start = time.perf_counter()
    value = fn()
    first = time.perf_counter() - start
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return first, statistics.median(times), value


def tasks() -> list[tuple[str, Callable[[], Any], Callable[[], Any], Callable[[], Any], Callable[[], Any]]]:
    """(name, rulecraft, rulecraft without memo, icepool, dyce) — each returns comparable data."""
    chill = engine.load("chill")
    chimera = engine.load("chimera")
    castle = engine.load("castle")
    chthonian = engine.load("chthonian")

    def outcomes(rs: engine.Ruleset, check: str, **inputs: Any) -> dict[str, Fraction]:
        return _clean({s.name: p for s, p in rs.distribution(check, **inputs).table()})

    def fresh(rs: engine.Ruleset, fn: Callable[[], Any]) -> Callable[[], Any]:
        def run() -> Any:
            rs.caches.distributions.clear()
            return fn()

        return run

    out: list[Any] = []
    sweep = range(1, 121)
    rc = lambda: [outcomes(chill, "specific", target=t) for t in sweep]  # noqa: E731
    out.append(
        (
            "Chill Specific, target 1..120",
            rc,
            fresh(chill, rc),
            lambda: [_clean(peers.chill_specific_icepool(t)) for t in sweep],
            lambda: [_clean(peers.chill_specific_dyce(t)) for t in sweep],
        )
    )
    for n in range(1, 11):
        rc = lambda n=n: outcomes(chimera, "pool", dice=n)  # noqa: E731
        out.append(
            (
                f"Chimera majority pool, {n} d10",
                rc,
                fresh(chimera, rc),
                lambda n=n: _clean(peers.chimera_majority_icepool(n)),
                lambda n=n: _clean(peers.chimera_majority_dyce(n)),
            )
        )
    for skill, keep in (("advantaged", "best"), ("disadvantaged", "worst")):
        rc = lambda skill=skill: outcomes(castle, "task", skill=skill)  # noqa: E731
        out.append(
            (
                f"Castle resolution bag, {skill} (5 sets)",
                rc,
                fresh(castle, rc),
                lambda keep=keep: _clean(peers.castle_draw_icepool(2, keep, 5)),
                lambda keep=keep: _clean(peers.castle_draw_dyce(2, keep, 5)),
            )
        )

    def extent() -> dict[str, Fraction]:
        return _clean(
            dict(chthonian.distribution("standard", traits=3, difficulty=8).value("extent").items())
        )

    out.append(
        (
            "Chthonian Extent, d12 + 3 vs 8",
            extent,
            fresh(chthonian, extent),
            lambda: _clean(peers.chthonian_extent_icepool(3, 8)),
            lambda: _clean(peers.chthonian_extent_dyce(3, 8)),
        )
    )
    return out


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:8.3f}"


def run_exact(repeats: int) -> list[str]:
    # Warm each library up on an unrelated computation, so "first" times the task, not imports.
    peers.chthonian_success_icepool(0, 0)
    peers.chthonian_success_dyce(0, 0)
    engine.load("chthonian").distribution("standard", traits=0, difficulty=0)
    rows = [
        "| task | rulecraft first | icepool first | dyce first | ratio first "
        "| rulecraft repeat | rulecraft repeat* | icepool repeat | dyce repeat | ratio repeat* |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, rc, rc_fresh, ip, dy in tasks():
        rf, rr, rv = _time(rc, repeats)
        _, rr_fresh, _ = _time(rc_fresh, repeats)
        ipf, ipr, iv = _time(ip, repeats)
        dyf, dyr, dv = _time(dy, repeats)
        if not (rv == iv == dv):
            raise SystemExit(f"{name}: the libraries disagree:\nrulecraft {rv}\nicepool {iv}\ndyce {dv}")
        ratio_first = rf / min(ipf, dyf)
        ratio_repeat = rr_fresh / min(ipr, dyr)
        rows.append(
            f"| {name} | {_ms(rf)} | {_ms(ipf)} | {_ms(dyf)} | {ratio_first:5.2f} "
            f"| {_ms(rr)} | {_ms(rr_fresh)} | {_ms(ipr)} | {_ms(dyr)} | {ratio_repeat:5.2f} |"
        )
        print(rows[-1], flush=True)
    return rows


_D20_SNIPPET = """
import time, d20, statistics
def once():
    r = d20.roll("2d10")
    t = r.total
    return "failure" if t > 55 else ("high" if t * 2 <= 55 else "low")
for _ in range(2000): once()
times = []
for _ in range(9):
    s = time.perf_counter()
    for _ in range(20000): once()
    times.append((time.perf_counter() - s) / 20000)
print(statistics.median(times), min(times))
"""


def _per_roll(
    rs: engine.Ruleset, check: str, runs: int = 9, n: int = 20000, warm: int = 2000, **kw: Any
) -> tuple[float, float]:
    """Median and best seconds per traced roll over `runs` runs of `n` (after `warm` to warm up)."""
    rng = random.Random(1)
    for _ in range(warm):
        rs.roll(check, rng, **kw)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(n):
            rs.roll(check, rng, **kw)
        times.append((time.perf_counter() - start) / n)
    return statistics.median(times), min(times)


def _rolls_per_second(rs: engine.Ruleset, check: str, **inputs: Any) -> float:
    """Median rolls per second of one check with its trace, over 5 timed batches of 5,000."""
    return 1 / _per_roll(rs, check, runs=5, n=5000, warm=500, **inputs)[0]


def run_trait_sampling() -> list[str]:
    """Sampling a trait die and a wild die that both explode without a cap (one die each,
    examples/trait_and_wild.yaml) against the plain Chill Specific check, in rolls per second."""
    trait = engine.load(Path(__file__).resolve().parent.parent / "examples" / "trait_and_wild.yaml")
    chill = engine.load("chill")
    rows = ["| check | rolls/s | vs Chill |", "|---|---:|---:|"]
    base = _rolls_per_second(chill, "specific", target=55)
    rows.append(f"| Chill Specific, target 55 | {base:,.0f} | 1.00 |")
    for rating in ("d4", "d8", "d12"):
        rate = _rolls_per_second(trait, "trait", trait=rating)
        rows.append(f"| trait and wild die, exploding, no cap, {rating} | {rate:,.0f} | {rate / base:.2f} |")
    for r in rows:
        print(r, flush=True)
    return rows


_EXPLODING = """
rulecraft: 1
name: exploding
checks:
  damage:
    inputs:
      dice: {type: int, min: 1, max: 10, default: 5}
    roll:
      hits:
        pool: dice
        die: 6
        cap: 20
        triggers:
          - {name: explode, on: face == 6, must: add}
    let:
      total: sum(hits)
    outcomes: [low, high]
    outcome: "'high' if total >= 20 else 'low'"
"""


def run_triggered(rounds: int = 40, rolls: int = 1000) -> list[str]:
    """Pools with triggers, sampled with their trace, against the plain Chill check (the target:
    within 2x of its time per roll). The checks take turns in short runs, so that a busy machine
    slows them alike; each row gives the median and the best run."""
    chill = engine.load("chill")
    chimera = engine.load("chimera")
    exploding = engine.load(_EXPLODING)
    cases: list[tuple[str, engine.Ruleset, str, dict[str, Any]]] = [
        ("Chill specific (plain check)", chill, "specific", {"target": 55}),
        ("Chimera skill, 5 dice, always", chimera, "skill", {"dice": 5}),
        ("Chimera skill, 5 dice, never", chimera, "skill", {"dice": 5, "policy": "never"}),
        ("5d6 exploding on 6 (cap 20)", exploding, "damage", {"dice": 5}),
    ]
    found: dict[str, list[float]] = {name: [] for name, *_ in cases}
    rngs = {name: random.Random(1) for name, *_ in cases}
    for round_ in range(rounds + 2):
        for name, rs, check, kw in cases:
            rng = rngs[name]
            start = time.perf_counter()
            for _ in range(rolls):
                rs.roll(check, rng, **kw)
            if round_ >= 2:  # the first two warm up
                found[name].append((time.perf_counter() - start) / rolls)
    base = statistics.median(found[cases[0][0]])
    base_best = min(found[cases[0][0]])
    rows = [
        "| roll with trace | median | best | rolls/s | × plain (median) | × plain (best) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, *_ in cases:
        med = statistics.median(found[name])
        best = min(found[name])
        rows.append(
            f"| {name} | {med * 1e6:.1f} µs | {best * 1e6:.1f} µs | {1 / med:,.0f} "
            f"| {med / base:.2f} | {best / base_best:.2f} |"
        )
    for r in rows:
        print(r, flush=True)
    return rows


def _rolling_rounds(rounds: int, n: int = 5000) -> dict[str, list[float]]:
    """Seconds per roll of Chill's Specific check (target 55), three ways in alternating runs of
    `n` rolls, so that a busy machine slows them alike: `Ruleset.roll` with its trace, the same
    with `trace=False`, and the hand-written function (benchmarks/handwritten.py)."""
    chill = engine.load("chill")
    ways: dict[str, Callable[[random.Random], Any]] = {
        "traced": lambda rng: chill.roll("specific", rng, target=55),
        "untraced": lambda rng: chill.roll("specific", rng, target=55, trace=False),
        "hand": lambda rng: handwritten.specific(rng, 55),
    }
    found: dict[str, list[float]] = {name: [] for name in ways}
    for round_ in range(rounds + 2):
        for name, way in ways.items():
            rng = random.Random(round_)
            start = time.perf_counter()
            for _ in range(n):
                way(rng)
            if round_ >= 2:  # the first two warm up
                found[name].append((time.perf_counter() - start) / n)
    return found


def run_sampling(d20_python: str | None, rounds: int = 3) -> list[str]:
    """Rolling a check with its trace and without, against the same check written by hand in
    plain Python and against d20 rolling 2d10 and classifying it in Python.

    d20 needs the old `lark-parser` package, which clashes with `lark`, so it runs in its own
    interpreter, in alternation with rounds of our three (themselves alternating, in one process)."""
    found: dict[str, list[float]] = {"traced": [], "untraced": [], "hand": []}
    theirs: list[tuple[float, float]] = []
    for _ in range(rounds):
        for name, times in _rolling_rounds(7).items():
            found[name] += times
        if d20_python:
            out = subprocess.run(
                [d20_python, "-c", _D20_SNIPPET], capture_output=True, text=True, check=True
            ).stdout.split()
            theirs.append((float(out[0]), float(out[1])))
    med = {name: statistics.median(times) for name, times in found.items()}
    best = {name: min(times) for name, times in found.items()}
    words = {
        "traced": "rulecraft Chill Specific roll with trace (Python API):",
        "untraced": "rulecraft Chill Specific roll, trace=False:          ",
        "hand": "the same check by hand (benchmarks/handwritten.py):  ",
    }
    rows = [
        f"{words[name]} median {med[name] * 1e6:.2f} µs, best {best[name] * 1e6:.2f} µs per roll"
        for name in found
    ]
    if theirs:
        tmed = statistics.median(m for m, _ in theirs)
        tbest = min(b for _, b in theirs)
        rows.append(
            f"d20 roll('2d10') and classify in Python:              "
            f"median {tmed * 1e6:.2f} µs, best {tbest * 1e6:.2f} µs per roll"
        )
    rows.append(
        f"ratio traced / by hand: median {med['traced'] / med['hand']:.2f}, "
        f"best {best['traced'] / best['hand']:.2f} (goal ≤ 3)"
    )
    rows.append(
        f"ratio trace=False / by hand: median {med['untraced'] / med['hand']:.2f}, "
        f"best {best['untraced'] / best['hand']:.2f} (goal ≤ 1.5)"
    )
    if theirs:
        rows.append(
            f"ratio rulecraft (traced) / d20: median {med['traced'] / tmed:.2f}, "
            f"best {best['traced'] / tbest:.2f} (goal < 1)"
        )
    else:
        rows.append("d20 not timed (pass --d20 PYTHON, a Python with d20 installed; see docs/performance.md)")
    for r in rows:
        print(r, flush=True)
    return rows


def run_batch(rounds: int = 5) -> list[str]:
    """Many Chill rolls at once (`Ruleset.sample`): rolls per second, drawn from the exact
    distribution (cold: a fresh ruleset, the exact solve included; warm: the solve cached) and
    rolled one by one, in alternating rounds, medians."""
    import random

    n = 1_000_000
    cold: list[float] = []
    warm: list[float] = []
    rolled: list[float] = []
    for r in range(rounds):
        chill = engine.load("chill")
        start = time.perf_counter()
        chill.sample("specific", n, random.Random(r), target=55)
        cold.append(time.perf_counter() - start)
        start = time.perf_counter()
        chill.sample("specific", n, random.Random(r), target=55)
        warm.append(time.perf_counter() - start)
        start = time.perf_counter()
        chill.sample("specific", 20_000, random.Random(r), method="rolled", target=55)
        rolled.append((time.perf_counter() - start) / 20_000 * n)
    rows = [
        f"rulecraft sample('specific', {n:,}) drawn from the exact distribution: "
        f"cold {n / statistics.median(cold):,.0f} rolls/s, warm {n / statistics.median(warm):,.0f} rolls/s",
        f"rulecraft sample(..., method='rolled'), roll by roll:                 "
        f"{n / statistics.median(rolled):,.0f} rolls/s",
    ]
    for row in rows:
        print(row)
    return rows


def run_procedure() -> list[str]:
    """Chimera's full 9s-and-0s procedure, solved exactly (no peer can express it)."""
    rows = ["| dice | always | never | optimal |", "|---:|---:|---:|---:|"]
    for n in (2, 4, 6, 8, 10):
        cells = []
        for policy in ("always", "never", "optimal"):
            rs = engine.load("chimera")
            start = time.perf_counter()
            rs.distribution("skill", dice=n, policy=policy)
            cells.append(f"{(time.perf_counter() - start) * 1000:9.1f} ms")
        rows.append(f"| {n} | " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    return rows


def run_scenes() -> list[str]:
    """Whole scenes solved exactly (no peer can express them): first computation, fresh ruleset."""
    rows = ["| scene | states | time |", "|---|---:|---:|"]
    armoured = {"fencing": 2, "armour": 1}
    cases: list[tuple[str, str, dict[str, Any], str, str]] = [
        ("castle", "duel", {}, "always", "Castle duel, Average vs Average"),
        (
            "castle",
            "duel",
            {"you": {"fighting": "advantaged"}, "foe": {"fighting": "advantaged"}},
            "always",
            "Castle duel, Advantaged vs Advantaged",
        ),
        (
            "castle",
            "duel",
            {"you": {"fencing": 1, "main_gauche": True}},
            "optimal",
            "Castle duel, your Main Gauche timed optimally",
        ),
        ("castle", "duel", {"you": armoured, "foe": armoured}, "always", "Castle duel, fencers in armour"),
        (
            "chimera",
            "learning",
            {"student": {"max_resolve": 0}},
            "always",
            "Chimera instruction to three successes",
        ),
    ]
    roomy = engine.Limits(max_work=100_000_000)  # the armoured duel is over the default budget
    for ruleset, scene, parties, policy, label in cases:
        rs = engine.load(ruleset, limits=roomy)
        start = time.perf_counter()
        odds = rs.scene_odds(scene, parties=parties, policy=policy)
        rows.append(f"| {label} | {odds.states} | {(time.perf_counter() - start) * 1000:9.1f} ms |")
        print(rows[-1], flush=True)
    rs = engine.load("castle")
    rs.play_scene("duel", random.Random(0))
    start = time.perf_counter()
    for seed in range(200):
        rs.play_scene("duel", random.Random(seed))
    each = (time.perf_counter() - start) / 200
    rows.append(
        f"| Castle duel, Average vs Average, one sampled duel (mean of 200) | – | {each * 1000:9.2f} ms |"
    )
    print(rows[-1], flush=True)
    start = time.perf_counter()
    rs.sample_scenes("duel", 10_000, random.Random(1))
    each = (time.perf_counter() - start) / 10_000
    rows.append(f"| the same, 10,000 at once (`sample_scenes`), a duel | – | {each * 1000:9.2f} ms |")
    print(rows[-1], flush=True)
    return rows


def _fresh(argv: list[str]) -> float:
    """Seconds a fresh process takes to run `argv` to its end."""
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    return time.perf_counter() - start


def run_startup(rounds: int = 9) -> list[str]:
    """Start-up (issue 13, item 5): a fresh `rulecraft roll chill specific` against a fresh
    `python -c "import icepool"`, in alternating processes (medians), and a second load of the
    same ruleset file in one process."""
    roll = [
        sys.executable,
        "-m",
        "engine",
        "roll",
        "chill",
        "specific",
        "--input",
        "target=55",
        "--seed",
        "1",
    ]
    icepool = [sys.executable, "-c", "import icepool"]
    bare = [sys.executable, "-c", "pass"]
    ours: list[float] = []
    theirs: list[float] = []
    nothing: list[float] = []
    for _ in range(rounds):
        ours.append(_fresh(roll))
        theirs.append(_fresh(icepool))
        nothing.append(_fresh(bare))
    chill = Path(__file__).resolve().parent.parent / "rulesets" / "chill.yaml"
    engine.load(chill)
    again = []
    for _ in range(rounds):
        start = time.perf_counter()
        engine.load(chill)
        again.append(time.perf_counter() - start)
    med = statistics.median
    rows = [
        f"fresh `rulecraft roll chill specific --input target=55`: {med(ours) * 1e3:.0f} ms "
        f"(`python -c pass`: {med(nothing) * 1e3:.0f} ms)",
        f"fresh `python -c 'import icepool'`: {med(theirs) * 1e3:.0f} ms; "
        f"ratio {med(ours) / med(theirs):.2f}",
        f"a second engine.load of rulesets/chill.yaml in the same process: {med(again) * 1e3:.1f} ms",
    ]
    for row in rows:
        print(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--d20", metavar="PYTHON", help="a Python interpreter that has d20 installed")
    parser.add_argument(
        "--only",
        choices=["exact", "procedure", "scenes", "sampling", "trait", "startup"],
        action="append",
        help="run only these parts (repeatable; default: all)",
    )
    args = parser.parse_args()
    parts = set(args.only or ["exact", "procedure", "scenes", "sampling", "trait", "startup"])
    print(f"# {platform.platform()} · Python {platform.python_version()} · {peers.versions()}")
    print("# times in ms; ratio = rulecraft / faster peer\n")
    if "exact" in parts:
        run_exact(args.repeats)
    if "procedure" in parts:
        print("\n# Chimera skill check with the full reroll procedure, exact, first computation")
        run_procedure()
    if "scenes" in parts:
        print("\n# Whole scenes, exact, first computation")
        run_scenes()
    if "sampling" in parts:
        print()
        run_sampling(args.d20)
        run_batch()
        print("\n# Pools with triggers, sampled with their trace, against the plain check")
        run_triggered()
    if "trait" in parts:
        print("\n# Sampling an exploding trait die and wild die (no cap) against a plain check, rolls/s")
        run_trait_sampling()
    if "startup" in parts:
        print("\n# Start-up, fresh processes (medians of alternating runs)")
        run_startup()


if __name__ == "__main__":
    main()
