"""Benchmark: rulecraft against icepool and dyce, the reroll procedure, scenes, sampling, start-up.

    pip install -e '.[bench]'                      # icepool and dyce
    python benchmarks/bench.py                     # every part (exact, procedure, scenes, ...)
    python benchmarks/bench.py --quick             # few repeats, one fresh process a cell
    python benchmarks/bench.py --only exact --task combat   # one part; tasks whose key has 'combat'
    python benchmarks/bench.py --markdown > tables.md       # the tables of docs/performance.md
    python benchmarks/bench.py --d20 /tmp/d20env/bin/python # also time sampling against d20
    (make that interpreter with: python -m venv /tmp/d20env && /tmp/d20env/bin/pip install d20)

Exact tasks: every library computes the same numbers (checked equal, exactly, in this process
and in every fresh process that times a first; the script stops if any disagrees: the one more
fresh process per library that measures the peak is not checked), and we time
  * first:   the task in a fresh process (the median of --fresh processes per library, the
             libraries taking turns): it imports the library, loads the ruleset, warms up on an
             unrelated task (a pool of 3d6 summed, at least 11), then times the task once;
  * repeat:  in this process, the median of --repeats rounds in which the libraries take turns
             (caches warm). rulecraft's results are memoised, so its repeat is a cache hit;
             repeat* clears that memo each time;
  * peak:    tracemalloc's peak during the task, in one more fresh process per library.
Ratios are rulecraft / the faster peer: below 1.0 rulecraft is faster.

The reroll procedure (Chimera `skill`) and start-up rows come from fresh processes too; the
procedure's peak is the growth of the process's resident memory (VmHWM) during the solve.
"""

from __future__ import annotations

import argparse
import compileall
import gc
import hashlib
import json
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve()
# This checkout's engine, whatever the current directory and the editable install point at.
sys.path[:0] = [str(ROOT), str(BENCH.parent)]

import handwritten  # noqa: E402

import engine  # noqa: E402

LIBRARIES = ("rulecraft", "icepool", "dyce")
PEER_LIBRARIES = LIBRARIES[1:]


@dataclass(frozen=True)
class Settings:
    """How hard each part measures: --quick lowers every count."""

    repeats: int = 15
    fresh: int = 7
    procedure_fresh: int = 3
    procedure_timeout: float = 300.0
    rounds: int = 3
    quick: bool = False


QUICK = Settings(repeats=3, fresh=1, procedure_fresh=1, procedure_timeout=30.0, rounds=1, quick=True)


class Report:
    """Where rows go: printed as they come (to stderr under --markdown), and kept per part so
    that --markdown prints each part's table at the end, as docs/performance.md shows it."""

    def __init__(self, markdown: bool) -> None:
        self.markdown = markdown
        self.tables: list[tuple[str, list[str]]] = []

    def say(self, line: str = "") -> None:
        print(line, file=sys.stderr if self.markdown else sys.stdout, flush=True)

    def table(self, title: str, lines: list[str]) -> None:
        self.tables.append((title, lines))

    def finish(self) -> None:
        if not self.markdown:
            return
        for title, lines in self.tables:
            print(f"<!-- bench.py: {title} -->")
            print("\n".join(lines))
            print()


# ---------------------------------------------------------------------------
# Exact tasks
# ---------------------------------------------------------------------------

Result = Any  # {outcome or value: Fraction}, or a list of them for a sweep


def _clean(d: dict[Any, Fraction]) -> dict[str, Fraction]:
    return {str(k): v for k, v in d.items() if v}


def _digest(result: Result) -> str:
    """A short fingerprint of a result, so that a fresh process's answer is checked too."""

    def canon(x: Any) -> Any:
        if isinstance(x, dict):
            return sorted((str(k), str(v)) for k, v in x.items() if v)
        if isinstance(x, list):
            return [canon(i) for i in x]
        return str(x)

    return hashlib.sha256(repr(canon(result)).encode()).hexdigest()[:16]


_WIDE_POOL = "      dice: {type: int, min: 1, max: 10, default: 1, description: Number of d10 rolled.}"


def _chimera_wide() -> engine.Ruleset:
    """rulesets/chimera.yaml with its `pool` check's bound on `dice` raised from 10 to 100: the
    same check, for the large-pool rows (the engine's own bound, Limits.max_pool, is 100)."""
    text = (ROOT / "rulesets" / "chimera.yaml").read_text(encoding="utf-8")
    if text.count(_WIDE_POOL) != 1:
        raise SystemExit("rulesets/chimera.yaml's pool input changed: update _WIDE_POOL in bench.py")
    return engine.load(text.replace(_WIDE_POOL, _WIDE_POOL.replace("max: 10,", "max: 100,")))


RULESETS: dict[str, Callable[[], engine.Ruleset]] = {
    "chill": lambda: engine.load("chill"),
    "chimera": lambda: engine.load("chimera"),
    "chimera-wide": _chimera_wide,
    "castle": lambda: engine.load("castle"),
    "chthonian": lambda: engine.load("chthonian"),
}

_WARM = """
rulecraft: 1
name: warm
checks:
  three:
    roll:
      dice: {pool: 3, die: 6}
    outcomes: [low, high]
    outcome: "'high' if sum(dice) >= 11 else 'low'"
"""


@cache
def _peers() -> ModuleType | None:
    """benchmarks/peers.py, or None when icepool or dyce is not installed (the bench extra)."""
    try:
        import peers
    except ImportError:
        return None
    return peers


@dataclass(frozen=True)
class Task:
    """One exact task: rulecraft's way (a check of a shipped ruleset) and each peer's (a function
    of peers.py with its arguments). A peer that cannot express the task, or is left out, has
    no entry, and `note` says why in the row."""

    key: str
    label: str
    ruleset: str
    check: str
    inputs: dict[str, Any] = field(default_factory=dict)
    sweep: tuple[str, tuple[int, ...]] | None = None  # an input and its values: one result each
    value: str | None = None  # a named value's distribution instead of the outcomes
    peer: str = ""  # the task's name in peers.PEERS
    args: tuple[Any, ...] = ()
    libraries: tuple[str, ...] = PEER_LIBRARIES
    note: str = ""

    def ours(self, rs: engine.Ruleset) -> Result:
        """rulecraft's result on a loaded ruleset."""

        def one(**inputs: Any) -> dict[str, Fraction]:
            dist = rs.distribution(self.check, **inputs)
            if self.value is not None:
                return _clean(dict(dist.value(self.value).items()))
            return _clean({s.name: p for s, p in dist.table()})

        if self.sweep is None:
            return one(**self.inputs)
        name, values = self.sweep
        return [one(**{**self.inputs, name: v}) for v in values]

    def theirs(self, library: str) -> Callable[[], Result]:
        """The peer's whole computation, as a function of nothing."""
        peers = _peers()
        assert peers is not None
        fn = peers.PEERS[self.peer][library]
        if self.sweep is not None:
            values = self.sweep[1]
            return lambda: [_clean(fn(v, *self.args)) for v in values]
        return lambda: _clean(fn(*self.args))


def tasks() -> list[Task]:
    """Every exact task, in the table's order. Keys are stable: --task and the workers use them."""
    out = [
        Task(
            "chill-55",
            "Chill Specific, target 55",
            "chill",
            "specific",
            {"target": 55},
            peer="chill_specific",
            args=(55,),
        ),
        Task(
            "chill-sweep",
            "Chill Specific, target 1..120",
            "chill",
            "specific",
            sweep=("target", tuple(range(1, 121))),
            peer="chill_specific",
        ),
    ]
    for n in range(1, 11):
        out.append(
            Task(
                f"chimera-{n}",
                f"Chimera majority pool, {n} d10",
                "chimera",
                "pool",
                {"dice": n},
                peer="chimera_majority",
                args=(n,),
            )
        )
    for n in (20, 30, 60, 100):
        out.append(
            Task(
                f"chimera-{n}",
                f"Chimera majority pool, {n} d10",
                "chimera-wide",
                "pool",
                {"dice": n},
                peer="chimera_majority",
                args=(n,),
            )
        )
    for skill, keep in (("advantaged", "best"), ("disadvantaged", "worst")):
        out.append(
            Task(
                f"castle-{skill}",
                f"Castle resolution bag, {skill} (5 sets)",
                "castle",
                "task",
                {"skill": skill},
                peer="castle_draw",
                args=(2, keep, 5),
            )
        )
    combats = (
        ("combat-average", "Castle combat, average vs average", "average", "average", False),
        (
            "combat-advantaged",
            "Castle combat, advantaged vs disadvantaged",
            "advantaged",
            "disadvantaged",
            False,
        ),
        (
            "combat-riposte",
            "Castle combat, advantaged vs disadvantaged, with riposte",
            "advantaged",
            "disadvantaged",
            True,
        ),
    )
    for key, label, skill, foe, riposte in combats:
        out.append(
            Task(
                key,
                label,
                "castle",
                "combat",
                {"skill": skill, "foe_skill": foe, "riposte": riposte},
                peer="castle_combat",
                args=(skill, foe, riposte),
            )
        )
    out += [
        Task(
            "chthonian-extent",
            "Chthonian Extent, d12 + 3 vs 8",
            "chthonian",
            "standard",
            {"traits": 3, "difficulty": 8},
            value="extent",
            peer="chthonian_extent",
            args=(3, 8),
        ),
        Task(
            "chthonian-standard",
            "Chthonian Standard Roll, d12 + 3 vs 8 (success, failure)",
            "chthonian",
            "standard",
            {"traits": 3, "difficulty": 8},
            peer="chthonian_success",
            args=(3, 8),
        ),
        Task(
            "chthonian-contest",
            "Chthonian Contest, d12 + 3 vs d12 + 4",
            "chthonian",
            "contest",
            {"traits": 3, "foe_traits": 4},
            peer="chthonian_contest",
            args=(3, 4, False),
        ),
    ]
    return out


def find_task(key: str) -> Task:
    for task in tasks():
        if task.key == key:
            return task
    raise SystemExit(f"no exact task {key!r}; the keys are: {', '.join(t.key for t in tasks())}")


def _warm_up(library: str) -> None:
    """An unrelated computation (a pool of 3d6 summed, at least 11) and its answer's probabilities
    kept where they are not zero (as each peer's warm-up makes its dict of `Fraction`s with
    `if p`, `peers.warm_up`), so that "first" times the task, not the library's own first use."""
    if library == "rulecraft":
        {s.name: p for s, p in engine.load(_WARM).distribution("three").table() if p}
        return
    peers = _peers()
    assert peers is not None
    peers.warm_up(library)


def _numpy_version() -> str:
    """numpy's installed version, read without importing it ("none" where it is not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("numpy")
    except PackageNotFoundError:
        return "none"


def _fresh_worker(argv: list[str], timeout: float | None = None) -> dict[str, Any]:
    """Run this script as a worker in a fresh process; its last line of output is JSON."""
    run = subprocess.run(
        [sys.executable, str(BENCH), *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
    )
    if run.returncode != 0:
        raise SystemExit(f"worker {argv} failed:\n{run.stderr}")
    found: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    return found


def worker_exact(library: str, key: str, memory: bool) -> None:
    """One fresh process: import, load, warm up, then time (or trace the memory of) the task once."""
    task = find_task(key)
    if library == "rulecraft":
        rs = RULESETS[task.ruleset]()
        fn: Callable[[], Result] = lambda: task.ours(rs)  # noqa: E731
    else:
        fn = task.theirs(library)
    _warm_up(library)
    # the cycle collector's pass over what importing, loading and the warm-up made, run now for
    # every library alike, so that it does not land inside one library's timed call by chance
    # (`timeit` switches the collector off for the same reason)
    gc.collect()
    peak: int | None = None
    if memory:
        import tracemalloc

        tracemalloc.start()
        result = fn()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        seconds = None
    else:
        start = time.perf_counter()
        result = fn()
        seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "peak": peak, "digest": _digest(result)}))


def agree(name: str, results: dict[str, Result]) -> None:
    """Stop the run when two libraries give different numbers for one task."""
    items = list(results.items())
    first_lib, first = items[0]
    for lib, got in items[1:]:
        if got != first:
            raise SystemExit(
                f"{name}: the libraries disagree:\n"
                + "\n".join(f"{k}: {v}" for k, v in results.items())
                + f"\n({lib} differs from {first_lib})"
            )


def _turns(libraries: tuple[str, ...], round_: int) -> tuple[str, ...]:
    """The libraries in a rotated order, so that each goes first as often as the others."""
    k = round_ % len(libraries)
    return libraries[k:] + libraries[:k]


def _fresh_firsts(task: Task, libraries: tuple[str, ...], runs: int, want: str) -> dict[str, float]:
    """Median seconds of the task in `runs` fresh processes per library, taking turns; each
    process's result must match `want` (the digest of this process's result)."""
    times: dict[str, list[float]] = {lib: [] for lib in libraries}
    for round_ in range(runs):
        for lib in _turns(libraries, round_):
            out = _fresh_worker(["--worker", lib, task.key])
            if out["digest"] != want:
                raise SystemExit(f"{task.label}: {lib} in a fresh process disagrees with this process")
            times[lib].append(out["seconds"])
    return {lib: statistics.median(v) for lib, v in times.items()}


def _fresh_peaks(task: Task, libraries: tuple[str, ...]) -> dict[str, int]:
    return {lib: _fresh_worker(["--worker", lib, task.key, "--memory"])["peak"] for lib in libraries}


def _repeats(fns: dict[str, Callable[[], Any]], repeats: int) -> dict[str, float]:
    """Median seconds per call over `repeats` rounds, the functions taking turns in each round."""
    names = tuple(fns)
    times: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(repeats):
        for name in _turns(names, round_):
            start = time.perf_counter()
            fns[name]()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(v) for name, v in times.items()}


def _ms(seconds: float | None) -> str:
    return "–" if seconds is None else f"{seconds * 1000:.3f}"


def _kib(peak: int | None) -> str:
    return "–" if peak is None else f"{peak / 1024:,.0f}"


def _ratio(ours: float, theirs: list[float]) -> str:
    return f"{ours / min(theirs):.2f}" if theirs else "–"


EXACT_HEADER = [
    "| task | rulecraft first | icepool first | dyce first | ratio first "
    "| rulecraft repeat | rulecraft repeat* | icepool repeat | dyce repeat | ratio repeat* "
    "| rulecraft peak KiB | icepool peak KiB | dyce peak KiB |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
]


def run_exact(report: Report, settings: Settings, only: list[str] | None = None) -> None:
    """The exact tasks against icepool and dyce (see the module's docstring for the columns)."""
    peers = _peers()
    if peers is None:
        report.say("exact: skipped — icepool and dyce are not installed (pip install -e '.[bench]')")
        return
    chosen = [t for t in tasks() if not only or any(k in t.key for k in only)]
    if not chosen:
        raise SystemExit(f"no exact task matches {only}")
    rows = list(EXACT_HEADER)
    for line in rows:
        report.say(line)
    loaded: dict[str, engine.Ruleset] = {}
    _warm_up("rulecraft")
    for lib in PEER_LIBRARIES:
        _warm_up(lib)
    for task in chosen:
        if task.ruleset not in loaded:
            loaded[task.ruleset] = RULESETS[task.ruleset]()
        rs = loaded[task.ruleset]
        peer_libs = task.libraries

        def ours(task: Task = task, rs: engine.Ruleset = rs) -> Result:
            return task.ours(rs)

        def ours_fresh(task: Task = task, rs: engine.Ruleset = rs) -> Result:
            rs.caches.distributions.clear()
            return task.ours(rs)

        fns: dict[str, Callable[[], Any]] = {"rulecraft": ours, "rulecraft*": ours_fresh}
        fns.update({lib: task.theirs(lib) for lib in peer_libs})
        results = {"rulecraft": ours_fresh(), **{lib: fns[lib]() for lib in peer_libs}}
        agree(task.label, results)
        libs = ("rulecraft", *peer_libs)
        firsts = _fresh_firsts(task, libs, settings.fresh, _digest(results["rulecraft"]))
        repeat = _repeats(fns, settings.repeats)
        peaks = _fresh_peaks(task, libs)
        theirs_first = [firsts[lib] for lib in peer_libs]
        theirs_repeat = [repeat[lib] for lib in peer_libs]
        label = task.label + (f" ({task.note})" if task.note else "")
        rows.append(
            f"| {label} | {_ms(firsts['rulecraft'])} | {_ms(firsts.get('icepool'))} "
            f"| {_ms(firsts.get('dyce'))} | {_ratio(firsts['rulecraft'], theirs_first)} "
            f"| {_ms(repeat['rulecraft'])} | {_ms(repeat['rulecraft*'])} | {_ms(repeat.get('icepool'))} "
            f"| {_ms(repeat.get('dyce'))} | {_ratio(repeat['rulecraft*'], theirs_repeat)} "
            f"| {_kib(peaks['rulecraft'])} | {_kib(peaks.get('icepool'))} | {_kib(peaks.get('dyce'))} |"
        )
        report.say(rows[-1])
    report.table("exact", rows)


# ---------------------------------------------------------------------------
# The reroll procedure (Chimera `skill`), each cell from fresh processes
# ---------------------------------------------------------------------------

POLICIES = ("always", "never", "optimal")


def procedure_sizes() -> list[tuple[int, int]]:
    """(dice, resolve) for each row: 2..10 free dice, then 12, 16 and 20 dice as 10 free dice and
    2, 6 and 10 resolve dice (the input bound on `dice` is 10)."""
    return [(n, 0) for n in range(2, 11)] + [(10, 2), (10, 6), (10, 10)]


def _status_kib(name: str) -> int:
    """A line of /proc/self/status in KiB (Linux), e.g. VmRSS or VmHWM."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(name + ":"):
            return int(line.split()[1])
    raise OSError(f"no {name} in /proc/self/status")


def worker_procedure(policy: str, dice: int, resolve: int) -> None:
    """One fresh process: load Chimera under a raised work budget and state bound, warm up, then solve `skill`
    once; prints the seconds and the growth of the resident set's high-water mark."""
    rs = engine.load("chimera", limits=engine.Limits(max_work=10**12, max_states=10**8))
    _warm_up("rulecraft")
    gc.collect()  # as before an exact task's first call
    try:
        Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM to the current VmRSS
    except OSError:
        pass
    before = _status_kib("VmRSS")
    start = time.perf_counter()
    rs.distribution("skill", dice=dice, resolve=resolve, policy=policy)
    seconds = time.perf_counter() - start
    grown = max(_status_kib("VmHWM") - before, 0) * 1024
    print(json.dumps({"seconds": seconds, "peak": grown}))


def _duration(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _mib(peak: int) -> str:
    return f"{peak / 2**20:,.1f} MB" if peak >= 2**20 else f"{peak / 1024:.0f} KB"


def run_procedure(report: Report, settings: Settings, dice: list[int] | None = None) -> None:
    """Chimera's full 9s-and-0s procedure, solved exactly (no peer can express it): each cell is
    the median of fresh processes, the policies taking turns (a shared machine's speed drifts
    from minute to minute: each policy meets the drift alike), with a timeout."""
    rows = [
        "| dice | always | never | optimal | always peak | never peak | optimal peak |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for line in rows:
        report.say(line)
    gave_up: dict[str, float] = {}
    for free, resolve in procedure_sizes():
        total = free + resolve
        if dice and total not in dice:
            continue
        times: dict[str, str] = {p: "not run" for p in POLICIES if p in gave_up}
        peaks: dict[str, str] = {p: "–" for p in POLICIES if p in gave_up}
        found: dict[str, list[dict[str, Any]]] = {p: [] for p in POLICIES}
        for _ in range(settings.procedure_fresh):
            for policy in POLICIES:
                if policy in gave_up:
                    continue
                try:
                    found[policy].append(
                        _fresh_worker(
                            ["--worker-procedure", policy, str(free), str(resolve)],
                            timeout=settings.procedure_timeout,
                        )
                    )
                except subprocess.TimeoutExpired:
                    gave_up[policy] = settings.procedure_timeout
                    times[policy], peaks[policy] = f"over {settings.procedure_timeout:.0f} s", "–"
        for policy in POLICIES:
            if policy not in times:
                times[policy] = _duration(statistics.median(f["seconds"] for f in found[policy]))
                peaks[policy] = _mib(max(f["peak"] for f in found[policy]))
        rows.append(
            f"| {total} | "
            + " | ".join(times[p] for p in POLICIES)
            + " | "
            + " | ".join(peaks[p] for p in POLICIES)
            + " |"
        )
        report.say(rows[-1])
    report.table("procedure", rows)


# ---------------------------------------------------------------------------
# Sampling, scenes and start-up (rulecraft alone, or against d20 in its own interpreter)
# ---------------------------------------------------------------------------

_D20_SNIPPET = """
import time, d20, statistics
def once():
    # the check's own reading (benchmarks/handwritten.py): two d10 as tens and ones, 00 reads
    # 100, doubles apart, in the five bands against 55 (the total of 2d10 against 55 was always
    # the same band: hunt 13q)
    tens, ones = [d.total % 10 for d in d20.roll("2d10").expr.roll.values]
    roll = 100 if tens == 0 and ones == 0 else tens * 10 + ones
    doubles = tens == ones
    if roll == 100:
        return "botch"
    if doubles:
        return "botch" if roll > 55 else "colossal"
    return "failure" if roll > 55 else ("high" if roll * 2 <= 55 else "low")
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


def run_trait_sampling(report: Report, settings: Settings) -> None:
    """Sampling a trait die and a wild die that both explode without a cap (one die each,
    examples/trait_and_wild.yaml) against the plain Chill Specific check: time per roll with its
    trace (median of five timed batches), as one row of the triggered pools' table."""
    trait = engine.load(ROOT / "examples" / "trait_and_wild.yaml")
    chill = engine.load("chill")
    runs, n = (3, 1000) if settings.quick else (5, 5000)

    def per_roll(rs: engine.Ruleset, check: str, **inputs: Any) -> float:
        return _per_roll(rs, check, runs=runs, n=n, warm=n // 10, **inputs)[0]

    base = per_roll(chill, "specific", target=55)
    ratings = ("d4", "d8", "d12")
    each = [per_roll(trait, "trait", trait=rating) for rating in ratings]
    row = (
        f"| trait die and wild die, both exploding, no cap ({' / '.join(ratings)}) "
        f"| {' / '.join(f'{t * 1e6:.1f}' for t in each)} µs "
        f"| {' / '.join(f'{t / base:.2f}' for t in each)} |"
    )
    report.say(f"(Chill Specific in the same run: {base * 1e6:.1f} µs a roll)")
    report.say(row)
    report.table("triggered", [*TRIGGERED_HEADER, row])


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


TRIGGERED_HEADER = ["| roll with trace | median | × plain |", "|---|---:|---:|"]


def run_triggered(report: Report, settings: Settings) -> None:
    """Pools with triggers, sampled with their trace, against the plain Chill check (no goal is set
    for the ratio: a pool with triggers cannot keep its rolls as the plain check does, and took
    23-33x its time per roll in the runs docs/performance.md reports). The checks take turns in
    short runs, so that a busy machine slows them alike; each row gives the median run (the best
    one goes to the progress lines)."""
    rounds, rolls = (5, 200) if settings.quick else (40, 1000)
    chill = engine.load("chill")
    chimera = engine.load("chimera")
    exploding = engine.load(_EXPLODING)
    cases: list[tuple[str, engine.Ruleset, str, dict[str, Any]]] = [
        ("Chill Specific (plain check)", chill, "specific", {"target": 55}),
        ("5d6 exploding on 6 (cap 20)", exploding, "damage", {"dice": 5}),
        ("Chimera `skill`, 5 dice, `never`", chimera, "skill", {"dice": 5, "policy": "never"}),
        ("Chimera `skill`, 5 dice, `always`", chimera, "skill", {"dice": 5}),
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
    rows = list(TRIGGERED_HEADER)
    for line in rows:
        report.say(line)
    for name, *_ in cases:
        med = statistics.median(found[name])
        best = min(found[name])
        rows.append(f"| {name} | {med * 1e6:.1f} µs | {med / base:.2f} |")
        report.say(
            f"{rows[-1]}  (best {best * 1e6:.1f} µs, × plain {best / base_best:.2f}; {1 / med:,.0f} rolls/s)"
        )
    report.table("triggered", rows)


VARIED = range(1, 121)
"""The targets the varied rows roll against, one after another: a bot rolling for many players."""

WARM_VARIED = 600
"""Rolls per target before the varied rows are timed, so that nearly every tuple of faces of
every target has been met and kept (a long-running bot's steady state), as the fixed rows have
after their warm-up runs."""


def _rolling_rounds(rounds: int, n: int = 5000) -> dict[str, list[float]]:
    """Seconds per roll of Chill's Specific check, eight ways in alternating runs of `n` rolls,
    so that a busy machine slows them alike: at target 55, `Ruleset.roll` with its trace, the
    same with `trace=False`, a pre-bound `Ruleset.roller` with and without its trace, and the
    hand-written function (benchmarks/handwritten.py); and with the target changing every roll
    (`VARIED` in turn), `roll` with and without its trace and the hand-written function."""
    chill = engine.load("chill")
    varied = engine.load("chill")  # a ruleset of its own: its bindings do not crowd the others'
    pre_bound = chill.roller("specific", target=55)
    pre_bound_untraced = chill.roller("specific", target=55, trace=False)
    ways: dict[str, Callable[[random.Random, int], Any]] = {
        "traced": lambda rng, t: chill.roll("specific", rng, target=55),
        "untraced": lambda rng, t: chill.roll("specific", rng, target=55, trace=False),
        "roller": lambda rng, t: pre_bound(rng),
        "roller untraced": lambda rng, t: pre_bound_untraced(rng),
        "hand": lambda rng, t: handwritten.specific(rng, 55),
        "traced varied": lambda rng, t: varied.roll("specific", rng, target=t),
        "untraced varied": lambda rng, t: varied.roll("specific", rng, target=t, trace=False),
        "hand varied": lambda rng, t: handwritten.specific(rng, t),
    }
    warm = random.Random(-1)
    for _ in range(WARM_VARIED):
        for t in VARIED:
            varied.roll("specific", warm, target=t)
            varied.roll("specific", warm, target=t, trace=False)
    targets = [VARIED[i % len(VARIED)] for i in range(n)]
    found: dict[str, list[float]] = {name: [] for name in ways}
    for round_ in range(rounds + 2):
        for name, way in ways.items():
            rng = random.Random(round_)
            start = time.perf_counter()
            for t in targets:
                way(rng, t)
            if round_ >= 2:  # the first two warm up
                found[name].append((time.perf_counter() - start) / n)
    return found


SAMPLING_LABELS = {
    "traced": 'rulecraft `roll("specific", rng, target=55)` (with its trace)',
    "untraced": 'rulecraft `roll("specific", rng, target=55, trace=False)`',
    "roller": 'rulecraft `roller("specific", target=55)(rng)` (pre-bound, with its trace)',
    "roller untraced": 'rulecraft `roller("specific", target=55, trace=False)(rng)`',
    "hand": "the same check by hand (`benchmarks/handwritten.py`)",
    "traced varied": 'rulecraft `roll("specific", rng, target=t)`, t = 1…120 in turn (with its trace)',
    "untraced varied": 'rulecraft `roll("specific", rng, target=t, trace=False)`, t = 1…120 in turn',
    "hand varied": "by hand, t = 1…120 in turn",
}

BY_HAND = {"traced varied": "hand varied", "untraced varied": "hand varied"}
"""The hand-written row each row is measured against, where it is not the fixed one."""


def run_sampling(report: Report, settings: Settings, d20_python: str | None) -> None:
    """Rolling a check with its trace and without, against the same check written by hand in
    plain Python and against d20 rolling 2d10 and classifying it in Python.

    d20 needs the old `lark-parser` package, which clashes with `lark`, so it runs in its own
    interpreter, in alternation with rounds of our eight (themselves alternating, in one process)."""
    found: dict[str, list[float]] = {name: [] for name in SAMPLING_LABELS}
    theirs: list[tuple[float, float]] = []
    runs, n = (2, 2000) if settings.quick else (7, 5000)
    for _ in range(settings.rounds):
        for name, times in _rolling_rounds(runs, n).items():
            found[name] += times
        if d20_python:
            out = subprocess.run(
                [d20_python, "-c", _D20_SNIPPET], capture_output=True, text=True, check=True
            ).stdout.split()
            theirs.append((float(out[0]), float(out[1])))
    med = {name: statistics.median(times) for name, times in found.items()}
    best = {name: min(times) for name, times in found.items()}
    rows = ["| | median | best | × by hand |", "|---|---:|---:|---:|"]
    for name in found:
        rows.append(
            f"| {SAMPLING_LABELS[name]} | {med[name] * 1e6:.2f} µs | {best[name] * 1e6:.2f} µs "
            f"| {med[name] / med[BY_HAND.get(name, 'hand')]:.2f} |"
        )
    if theirs:
        tmed = statistics.median(m for m, _ in theirs)
        tbest = min(b for _, b in theirs)
        rows.append(
            f'| d20 `roll("2d10")` + classify | {tmed * 1e6:.2f} µs | {tbest * 1e6:.2f} µs '
            f"| {tmed / med['hand']:.2f} |"
        )
        rows.append(f"| traced ÷ d20 | {med['traced'] / tmed:.2f} | {best['traced'] / tbest:.2f} | |")
    for row in rows:
        report.say(row)
    if not theirs:
        report.say("d20 not timed (pass --d20 PYTHON, a Python with d20 installed; see docs/performance.md)")
    report.table("sampling", rows)


def run_batch(report: Report, settings: Settings) -> None:
    """Many Chill rolls at once (`Ruleset.sample`): rolls per second, drawn from the exact
    distribution (cold: a fresh ruleset, the exact solve included; warm: the solve cached) and
    rolled one by one, in alternating rounds, medians."""
    n = 1_000_000
    one_by_one = 2_000 if settings.quick else 20_000
    rounds = 2 if settings.quick else 5
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
        chill.sample("specific", one_by_one, random.Random(r), method="rolled", target=55)
        rolled.append((time.perf_counter() - start) / one_by_one * n)
    med = statistics.median
    rows = [
        "| many Chill Specific rolls at once (`Ruleset.sample`) | rolls/s |",
        "|---|---:|",
        f"| {n:,} drawn from the exact distribution, cold (the solve included) | {n / med(cold):,.0f} |",
        f"| {n:,} drawn from the exact distribution, warm (the solve cached) | {n / med(warm):,.0f} |",
        f'| rolled one by one (`method="rolled"`) | {n / med(rolled):,.0f} |',
    ]
    for row in rows:
        report.say(row)
    report.table("batch", rows)


def _scene_time(seconds: float) -> str:
    return f"{seconds:.2f} s" if seconds >= 0.1 else f"{seconds * 1000:.2g} ms"


def run_scenes(report: Report, settings: Settings) -> None:
    """Whole scenes solved exactly (no peer can express them): first computation, fresh ruleset.
    --quick leaves out the armoured duel (seconds)."""
    rows = ["| scene | nodes (state and step) | time |", "|---|---:|---:|"]
    for line in rows:
        report.say(line)
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
            "Castle duel, your Main Gauche timed optimally (`--policy optimal`)",
        ),
        (
            "castle",
            "duel",
            {"you": armoured, "foe": armoured},
            "always",
            "Castle duel, two fencers in armour (Fencing 2, armour 1 each; over the default work budget, "
            "measured with `max_work` raised)",
        ),
        (
            "chimera",
            "learning",
            {"student": {"max_resolve": 0}},
            "always",
            "Chimera instruction to three successes",
        ),
    ]
    roomy = engine.Limits(max_work=100_000_000)  # the armoured duel is over the default budget
    if settings.quick:
        cases = [case for case in cases if "armour" not in case[4]]
    for ruleset, scene, parties, policy, label in cases:
        rs = engine.load(ruleset, limits=roomy)
        start = time.perf_counter()
        odds = rs.scene_odds(scene, parties=parties, policy=policy)
        rows.append(f"| {label} | {odds.states} | {_scene_time(time.perf_counter() - start)} |")
        report.say(rows[-1])
    played, many = (20, 2000) if settings.quick else (200, 10_000)  # 2,000: over the default budget
    rs = engine.load("castle", limits=roomy)  # many scenes at once are one request, one budget
    rs.play_scene("duel", random.Random(0))
    start = time.perf_counter()
    for seed in range(played):
        rs.play_scene("duel", random.Random(seed))
    each = (time.perf_counter() - start) / played
    rows.append(
        f"| Castle duel, Average vs Average, one played duel with its trace (mean of {played}) "
        f"| – | {_scene_time(each)} |"
    )
    report.say(rows[-1])
    start = time.perf_counter()
    rs.sample_scenes("duel", many, random.Random(1))
    each = (time.perf_counter() - start) / many
    rows.append(
        f"| the same, {many:,} at once (`sample_scenes`, no trace), a duel | – | {_scene_time(each)} |"
    )
    report.say(rows[-1])
    report.table("scenes", rows)


def _fresh(argv: list[str]) -> float:
    """Seconds a fresh process takes to run `argv` to its end (in the repository, so that
    `python -m engine` is this checkout's engine)."""
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, cwd=ROOT)
    return time.perf_counter() - start


def worker_second_load() -> None:
    """One fresh process: load rulesets/chill.yaml, then time a second load of the same file."""
    chill = ROOT / "rulesets" / "chill.yaml"
    engine.load(chill)
    start = time.perf_counter()
    engine.load(chill)
    print(json.dumps({"seconds": time.perf_counter() - start}))


def run_startup(report: Report, settings: Settings) -> None:
    """Start-up (issue 13, item 5): a fresh `rulecraft roll chill specific` against a fresh
    `python -c "import icepool"` and `python -c pass`, and a second load of the same ruleset file
    in a fresh process, the four taking turns (medians of nine rounds, or --fresh if more; three
    under --quick). The engine's bytecode is up to date (`main`), as icepool's is, written when
    it was installed."""
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
    has_icepool = (
        subprocess.run([sys.executable, "-c", "import icepool"], capture_output=True).returncode == 0
    )
    commands: dict[str, Callable[[], float]] = {
        "roll": lambda: _fresh(roll),
        "pass": lambda: _fresh([sys.executable, "-c", "pass"]),
        "again": lambda: float(_fresh_worker(["--worker-second-load"])["seconds"]),
    }
    if has_icepool:
        commands["icepool"] = lambda: _fresh([sys.executable, "-c", "import icepool"])
    found: dict[str, list[float]] = {name: [] for name in commands}
    names = tuple(commands)
    for round_ in range(3 if settings.quick else max(settings.fresh, 9)):
        for name in _turns(names, round_):
            found[name].append(commands[name]())
    ms = {name: statistics.median(v) * 1e3 for name, v in found.items()}
    rows = [
        "| | time |",
        "|---|---:|",
        "| `python -m engine roll chill specific --input target=55 --seed 1`, a fresh process "
        f"| {ms['roll']:.0f} ms |",
    ]
    if has_icepool:
        rows.append(f'| `python -c "import icepool"`, a fresh process | {ms["icepool"]:.0f} ms |')
    again = f"{ms['again'] * 1e3:.0f} µs" if ms["again"] < 1 else f"{ms['again']:.0f} ms"
    rows += [
        f"| `python -c pass` | {ms['pass']:.0f} ms |",
        "| a second `engine.load` of `rulesets/chill.yaml` in the same process | " + again + " |",
    ]
    for row in rows:
        report.say(row)
    if has_icepool:
        report.say(f"(the command ÷ importing icepool: {ms['roll'] / ms['icepool']:.2f})")
    report.table("startup", rows)


PARTS = ("exact", "procedure", "scenes", "sampling", "trait", "startup")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="few repeats and one fresh process a cell")
    parser.add_argument("--repeats", type=int, help="in-process rounds for the repeat columns (15; quick 3)")
    parser.add_argument(
        "--fresh", type=int, help="fresh processes per library and task for 'first' (7; quick 1)"
    )
    parser.add_argument(
        "--timeout", type=float, help="seconds one reroll-procedure solve may take (300; quick 30)"
    )
    parser.add_argument("--only", choices=PARTS, action="append", help="run only these parts (repeatable)")
    parser.add_argument("--task", action="append", help="exact tasks whose key contains this (repeatable)")
    parser.add_argument("--dice", type=int, action="append", help="procedure rows with this many dice")
    parser.add_argument("--markdown", action="store_true", help="print the tables of docs/performance.md")
    parser.add_argument("--d20", metavar="PYTHON", help="a Python interpreter that has d20 installed")
    # Internal: one measurement in a fresh process (the script calls itself).
    parser.add_argument("--worker", nargs=2, metavar=("LIBRARY", "TASK"), help=argparse.SUPPRESS)
    parser.add_argument("--memory", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--worker-procedure", nargs=3, metavar=("POLICY", "DICE", "RESOLVE"), help=argparse.SUPPRESS
    )
    parser.add_argument("--worker-second-load", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sizes = sorted({free + resolve for free, resolve in procedure_sizes()})
    unknown = sorted(set(args.dice or ()) - set(sizes))
    if unknown:  # a row that is not in the table printed an empty one, and exited 0 (hunt 13q)
        parser.error(
            f"--dice {', '.join(map(str, unknown))}: the procedure's rows are "
            + ", ".join(map(str, sizes))
            + " dice"
        )
    if args.worker:
        worker_exact(args.worker[0], args.worker[1], args.memory)
        return
    if args.worker_procedure:
        policy, dice, resolve = args.worker_procedure
        worker_procedure(policy, int(dice), int(resolve))
        return
    if args.worker_second_load:
        worker_second_load()
        return

    base = QUICK if args.quick else Settings()
    settings = Settings(
        repeats=args.repeats or base.repeats,
        fresh=args.fresh or base.fresh,
        procedure_fresh=base.procedure_fresh,
        procedure_timeout=args.timeout or base.procedure_timeout,
        rounds=base.rounds,
        quick=base.quick,
    )
    parts = set(args.only or PARTS)
    # The engine's bytecode brought up to date first, as installing a package does: in a shell
    # with PYTHONDONTWRITEBYTECODE set, a module changed since its `.pyc` was written is compiled
    # again by every fresh process, and the exact evaluator and the reroll solver are imported by
    # the first computation, so their compiling would be timed in the *first* cells and the
    # reroll procedure's rows (and in start-up).
    compileall.compile_dir(ROOT / "engine", quiet=1, force=True)  # force: a same-second edit passes the check
    report = Report(args.markdown)
    peers = _peers()
    versions = peers.versions() if peers else "icepool and dyce not installed"
    numpy = _numpy_version()  # the reroll procedure's rows from 12 dice are numpy's solve
    report.say(f"# {platform.platform()} · Python {platform.python_version()} · {versions} · numpy {numpy}")
    report.say(f"# {settings}")
    if "exact" in parts:
        report.say("\n# Exact distributions; times in ms, peaks in KiB; ratio = rulecraft / the faster peer")
        run_exact(report, settings, args.task)
    if "procedure" in parts:
        report.say("\n# Chimera skill check with the full reroll procedure, exact, fresh processes")
        run_procedure(report, settings, args.dice)
    if "scenes" in parts:
        report.say("\n# Whole scenes, exact, first computation")
        run_scenes(report, settings)
    if "sampling" in parts:
        report.say("\n# Sampling with the trace, against d20")
        run_sampling(report, settings, args.d20)
        report.say("\n# Many rolls at once")
        run_batch(report, settings)
        report.say("\n# Pools with triggers, sampled with their trace, against the plain check")
        run_triggered(report, settings)
    if "trait" in parts:
        report.say("\n# An exploding trait die and wild die (no cap) against the plain check")
        run_trait_sampling(report, settings)
    if "startup" in parts:
        report.say("\n# Start-up, fresh processes (medians of alternating runs)")
        run_startup(report, settings)
    report.finish()


if __name__ == "__main__":
    main()
