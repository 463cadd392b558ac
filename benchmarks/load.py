"""A bounded load test of `rulecraft serve`, on the loopback only.

    python benchmarks/load.py                          # start a server, 20 clients for 10 s
    python benchmarks/load.py --clients 50 --seconds 30 --workers 2
    python benchmarks/load.py --url http://127.0.0.1:8000   # a server already running (loopback)
    python benchmarks/load.py --campaign --actions 1000 --server-processes 4 --db /tmp/load.db

The default mode: N clients (asyncio + httpx), each in a loop for T seconds sending a light roll
or, one time in `--solve-every`, an exact solve (prob over a random input); at the end, per
kind, the count, the throughput and the p50/p99 latency, and how many answers were clean errors
(503/504) — every answer must be a result or a clean JSON error.

`--campaign`: one campaign, M actions sent by the clients at once (spread over
`--server-processes` servers sharing one `--db`); then the log is checked: every acknowledged
action's event is there exactly once, the sequence numbers run 1..n without a gap, and replaying
the log gives the stored state. `--db` is a SQLite file (a temporary one by default) or a
PostgreSQL URL (`--db postgresql://USER@HOST/DATABASE`, with the `postgres` extra installed): the
servers open it as `rulecraft serve --db` does, through `engine.api.open_store`.
Only 127.0.0.1 is ever targeted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx

ROOT = Path(__file__).resolve().parent.parent
ROLL = {"ruleset": "chill", "check": "specific"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start(port: int, args: argparse.Namespace, db: str) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "engine", "serve", "--port", str(port), "--db", db]
    command += ["--workers", str(args.workers), "--deadline", str(args.deadline)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if args.token:
        env["RULECRAFT_TOKEN"] = args.token
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)


def wait_up(url: str, seconds: float = 90) -> None:
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        try:
            if httpx.get(url + "/api/rulesets", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"no server answered at {url}")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else float("nan")


async def mixed(urls: list[str], args: argparse.Namespace) -> dict[str, Any]:
    """Clients rolling and solving for `args.seconds`: latencies and statuses per kind."""
    seen: dict[str, list[float]] = {"roll": [], "prob": []}
    errors: dict[str, dict[int, int]] = {"roll": {}, "prob": {}}
    limits = httpx.Limits(max_connections=args.clients * 2)
    until = time.monotonic() + args.seconds
    rng = random.Random(args.seed)

    async def client(i: int, http: httpx.AsyncClient) -> None:
        base = urls[i % len(urls)]
        n = 0
        while time.monotonic() < until:
            n += 1
            kind = "prob" if n % args.solve_every == 0 else "roll"
            body: dict[str, Any] = {**ROLL, "inputs": {"target": rng.randint(1, 150)}}
            if kind == "roll":
                body["seed"] = rng.randrange(2**32)
            started = time.monotonic()
            response = await http.post(base + "/api/" + kind, json=body)
            seconds = time.monotonic() - started
            if response.status_code == 200:
                seen[kind].append(seconds)
            else:
                error = response.json()["error"]  # anything else than a clean error fails here
                assert error["status"] == response.status_code and error["diagnostics"]
                errors[kind][response.status_code] = errors[kind].get(response.status_code, 0) + 1

    async with httpx.AsyncClient(timeout=60, limits=limits) as http:
        started = time.monotonic()
        await asyncio.gather(*(client(i, http) for i in range(args.clients)))
        elapsed = time.monotonic() - started
    return {
        kind: {
            "ok": len(values),
            "per_second": round(len(values) / elapsed, 1),
            "p50_ms": round(percentile(values, 50) * 1000, 1),
            "p99_ms": round(percentile(values, 99) * 1000, 1),
            "errors": errors[kind],
        }
        for kind, values in seen.items()
    }


async def campaign(urls: list[str], args: argparse.Namespace) -> dict[str, Any]:
    """M actions on one campaign at once; then the log against what was acknowledged."""
    headers = {"Authorization": f"Bearer {args.token}"} if args.token else {}
    name = f"load-{os.getpid()}-{int(time.time())}"
    made = httpx.post(
        urls[0] + "/api/campaigns",
        json={"name": name, "ruleset": "chill", "params": {"players": 4}},
        headers=headers,
        timeout=30,
    )
    assert made.status_code == 201, made.text
    acknowledged: list[int] = []
    refused: dict[int, int] = {}
    refused_detail: list[str] = []
    latencies: list[float] = []
    gate = asyncio.Semaphore(args.clients)

    async def one(i: int, http: httpx.AsyncClient) -> None:
        async with gate:  # a roll that moves tokens, or a token turned by hand (refused when none is left)
            body: dict[str, Any] = (
                {"action": "player_roll", "inputs": {"target": 50}, "seed": i}
                if i % 2
                else {"action": ("turn_dark", "turn_light")[i // 2 % 2], "inputs": {"n": 1}}
            )
            started = time.monotonic()
            response = await http.post(
                f"{urls[i % len(urls)]}/api/campaigns/{name}/act", json=body, headers=headers
            )
            latencies.append(time.monotonic() - started)
            if response.status_code == 200:
                acknowledged.append(response.json()["event"]["seq"])
            else:
                error = response.json()["error"]
                assert error["diagnostics"], error
                refused[response.status_code] = refused.get(response.status_code, 0) + 1
                refused_detail.append(error["diagnostics"][0]["message"])

    limits = httpx.Limits(max_connections=args.clients * 2)
    async with httpx.AsyncClient(timeout=120, limits=limits) as http:
        started = time.monotonic()
        await asyncio.gather(*(one(i, http) for i in range(args.actions)))
        elapsed = time.monotonic() - started
    answer = httpx.get(f"{urls[0]}/api/campaigns/{name}/log", timeout=60)
    if answer.status_code != 200:
        raise SystemExit(f"the log could not be read: {answer.status_code} {answer.text[:500]}")
    log = answer.json()
    seqs = [e["seq"] for e in log]
    acted = [e["seq"] for e in log if e["kind"] == "action"]
    replay = httpx.get(f"{urls[0]}/api/campaigns/{name}/replay", timeout=120)
    stored = httpx.get(f"{urls[0]}/api/campaigns/{name}", timeout=30).json()
    checks = {
        "every acknowledged action is in the log once": sorted(acknowledged) == sorted(acted)
        and len(set(acknowledged)) == len(acknowledged),
        "sequence numbers run 1..n without a gap": seqs == list(range(1, len(seqs) + 1)),
        "replay equals the stored state": replay.status_code == 200
        and replay.json()["state"] == log[-1]["state"]
        and replay.json()["ok"] is True,
        "the last event's state is the campaign's": bool(stored) and log[-1]["state"] is not None,
    }
    extra = sorted(set(acted) - set(acknowledged))
    missing = sorted(set(acknowledged) - set(acted))
    return {
        "in_log_not_acknowledged": [
            (e["seq"], e["kind"], e["data"].get("action")) for e in log if e["seq"] in extra
        ][:10],
        "acknowledged_not_in_log": missing[:10],
        "refused_detail": refused_detail[:5],
        "campaign": name,
        "actions": args.actions,
        "acknowledged": len(acknowledged),
        "refused": refused,
        "events": len(log),
        "per_second": round(len(acknowledged) / elapsed, 1),
        "p50_ms": round(percentile(latencies, 50) * 1000, 1),
        "p99_ms": round(percentile(latencies, 99) * 1000, 1),
        "checks": checks,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", help="a running server on the loopback (default: start one)")
    p.add_argument("--clients", type=int, default=20, help="concurrent clients (at most 500)")
    p.add_argument("--seconds", type=float, default=10.0, help="how long the mixed load runs (at most 600)")
    p.add_argument("--solve-every", type=int, default=10, help="one request in this many is an exact solve")
    p.add_argument("--workers", type=int, default=2, help="--workers of the servers started")
    p.add_argument("--deadline", type=float, default=5.0, help="--deadline of the servers started")
    p.add_argument("--campaign", action="store_true", help="concurrent campaign actions, then check the log")
    p.add_argument("--actions", type=int, default=200, help="campaign actions (at most 10 000)")
    p.add_argument("--server-processes", type=int, default=1, help="servers started on one --db (at most 8)")
    p.add_argument("--db", help="the campaign store the servers share (default: a temporary SQLite file)")
    p.add_argument("--token", default="load-token", help="the servers' token for campaign writes")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    args = p.parse_args()
    if not (1 <= args.clients <= 500 and 0 < args.seconds <= 600 and 1 <= args.actions <= 10_000):
        p.error("bounded: --clients 1..500, --seconds up to 600, --actions 1..10000")
    if not 1 <= args.server_processes <= 8:
        p.error("--server-processes 1..8")
    servers: list[subprocess.Popen[bytes]] = []
    scratch = tempfile.TemporaryDirectory()
    db = args.db or str(Path(scratch.name) / "load.db")
    try:
        if args.url:
            if urlparse(args.url).hostname not in ("127.0.0.1", "localhost", "::1"):
                p.error("--url must be on the loopback (127.0.0.1)")
            urls = [args.url.rstrip("/")]
        else:
            ports = [free_port() for _ in range(args.server_processes)]
            servers = [start(port, args, db) for port in ports]
            urls = [f"http://127.0.0.1:{port}" for port in ports]
        for url in urls:
            wait_up(url)
        started = time.monotonic()
        report: dict[str, Any] = {
            "clients": args.clients,
            "servers": len(urls),
            "workers": args.workers,
            "cpus": os.cpu_count(),
            "load_average": [round(x, 1) for x in os.getloadavg()],
        }
        if args.campaign:
            report["campaign"] = asyncio.run(campaign(urls, args))
        else:
            report["seconds"] = args.seconds
            report["kinds"] = asyncio.run(mixed(urls, args))
        report["wall_seconds"] = round(time.monotonic() - started, 1)
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
        scratch.cleanup()
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"{report['servers']} server(s), {args.workers} workers each, {args.clients} clients, "
            f"{report['cpus']} CPUs, load average {report['load_average']}"
        )
        if "kinds" in report:
            for kind, row in report["kinds"].items():
                print(
                    f"  {kind:5} {row['ok']:6} ok  {row['per_second']:7}/s  p50 {row['p50_ms']:7} ms  "
                    f"p99 {row['p99_ms']:7} ms  errors {row['errors']}"
                )
        else:
            c = report["campaign"]
            print(
                f"  {c['actions']} actions: {c['acknowledged']} done, refused {c['refused']}, "
                f"{c['per_second']}/s, p50 {c['p50_ms']} ms, p99 {c['p99_ms']} ms"
            )
            for check, ok in c["checks"].items():
                print(f"  {'ok    ' if ok else 'FAILED'} {check}")
    failed = "campaign" in report and not all(report["campaign"]["checks"].values())
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
