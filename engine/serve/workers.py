"""The bounded process pool that runs exact solves: N worker processes, each owning one pipe, and
a bounded number of requests waiting for one. A full queue is refused at once (503 with
Retry-After); a request whose deadline passes while it waits is refused (504); a worker still
busy past its request's deadline is killed and replaced, so a runaway solve never keeps a core.

Threads, not the event loop, wait on the pipes: the pool does not belong to one event loop (a
test client may run each request on a loop of its own), and each waiting request holds one
thread of the pool's own executor, never one of the threads light requests run on."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import queue
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from multiprocessing.reduction import ForkingPickler
from typing import Any

from ..api import Ruleset, load_source
from ..errors import DeadlineError, RulecraftError
from ..frozen import frozen, replace
from ..runtime.cache import MB, BoundedCache
from ..runtime.limits import Limits
from ..runtime.work import deadline_passed
from ..syntax.positions import SourceFile
from .jobs import HEAVY, diagnostic_json, diagnostics_json, fitted
from .problems import ApiError, status_of

KILL_GRACE = 0.5
"""Seconds a worker may run past its request's deadline before it is killed: the engine stops
itself at the deadline (RC503), so only a solve that does not look at the clock is ever killed."""

NICENESS = 10
"""How much lower a worker's CPU priority is than the server's: on a machine with as many busy
workers as cores, the server process still gets the CPU it needs to answer light requests."""

STARTUP = 60.0
"""Seconds a new worker may take to import the engine before it is given up and started again."""

RETRY_MAX = 30.0
"""The longest pause between two attempts to start a worker that failed to start."""

RULESETS_PER_WORKER = 16
"""Compiled rulesets one worker keeps, by content (the least recently sent goes first), their
code, text and caches weighing together at most `RULESET_BYTES_PER_WORKER` (`Ruleset.held_bytes`):
kept by count alone, the 16 stayed in memory whatever `api._LOADED`'s weight let go (a review).
What each remembers as it runs is its own caches' (each bounded by `Limits.max_cache_bytes`),
counted in its weight after each job: one left heavier than the bound by its job is not kept."""
RULESET_BYTES_PER_WORKER = 64 * MB


@frozen
class Job:
    """One solve: which job, the ruleset's name and text, the request's fields."""

    kind: str
    name: str
    text: str
    body: Mapping[str, Any]


class _Slot:
    """One worker process and the parent's end of its pipe."""

    def __init__(self, ctx: Any, limits: Limits) -> None:
        parent, child = ctx.Pipe()
        self.conn: Connection = parent
        self.process: BaseProcess = ctx.Process(target=_serve, args=(child, limits), daemon=True)
        self.process.start()
        child.close()

    def ready(self, timeout: float) -> bool:
        """Wait for the worker to say it has imported the engine (the first job then pays nothing)."""
        try:
            return bool(self.conn.poll(timeout)) and self.conn.recv() == ("ready",)
        except (EOFError, OSError):
            return False

    def kill(self) -> None:
        self.process.kill()
        self.process.join(timeout=5)
        self.conn.close()


class Pool:
    """`workers` processes and room for `waiting` more requests; `run` is what a route awaits."""

    def __init__(self, workers: int, waiting: int, limits: Limits) -> None:
        self.workers = workers
        self.waiting = waiting
        self.limits = limits
        self._ctx = multiprocessing.get_context("spawn")
        self._idle: queue.Queue[_Slot] = queue.Queue()
        self._all: list[_Slot] = []
        self._lock = threading.Lock()
        self._admitted = 0
        self._closed = False
        self.killed = 0
        """Workers killed past a deadline so far (for tests and the load report)."""
        self._threads = ThreadPoolExecutor(workers + waiting, thread_name_prefix="rulecraft-solve")
        for _ in range(workers):  # side by side; a pool whose workers cannot start still answers (504)
            threading.Thread(target=self._add, name="rulecraft-start", daemon=True).start()
        until = time.monotonic() + STARTUP
        while self._idle.qsize() < workers and time.monotonic() < until:
            time.sleep(0.02)

    def _add(self) -> None:
        """Start one worker and, once it is ready, offer it. One that cannot start is tried
        again after a pause that doubles (up to `RETRY_MAX` seconds): never a storm of processes."""
        pause = 0.5
        while True:
            slot = _Slot(self._ctx, self.limits)
            with self._lock:
                if self._closed:
                    slot.kill()
                    return
                self._all.append(slot)
            if slot.ready(STARTUP):
                self._idle.put(slot)
                return
            slot.kill()
            with self._lock:
                if slot in self._all:
                    self._all.remove(slot)
            time.sleep(pause)
            pause = min(pause * 2, RETRY_MAX)

    def _replace(self, slot: _Slot) -> None:
        """Kill `slot` and start its successor in the background: the request that found it
        broken is answered at once."""
        slot.kill()
        with self._lock:
            if slot in self._all:
                self._all.remove(slot)
            closed = self._closed
        if not closed:
            threading.Thread(target=self._add, name="rulecraft-respawn", daemon=True).start()

    @property
    def idle(self) -> int:
        """Workers started and waiting for a job."""
        return self._idle.qsize()

    @property
    def in_flight(self) -> int:
        return self._admitted

    async def run(self, job: Job, until: float) -> dict[str, Any]:
        """The job's answer, or an `ApiError`: 503 when the queue is full, 504 past `until` (a
        `time.monotonic()`), the engine's own diagnostics otherwise."""
        with self._lock:
            if self._closed or self._admitted >= self.workers + self.waiting:
                raise busy(self._admitted, "solving", "request")
            self._admitted += 1
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._threads, self._run, job, until)
        finally:
            with self._lock:
                self._admitted -= 1

    def _run(self, job: Job, until: float) -> dict[str, Any]:
        if time.monotonic() >= until:  # spent already: loading a ruleset sent as text, say
            raise late("before it reached a worker")
        while True:
            try:
                slot = self._idle.get(timeout=max(0.0, until - time.monotonic()))
            except queue.Empty:
                raise late("while it waited for a worker") from None
            if slot.process.is_alive():
                break
            # died while idle (killed, out of memory): replaced, and the job waits for a live one;
            # handed the job, it was this request's 503 though nothing of it had run (hunt 13i)
            self._replace(slot)
        left = until - time.monotonic()
        if left <= 0:
            self._idle.put(slot)
            raise late("while it waited for a worker")
        try:  # pickled before anything is written: a job that cannot be sent gives its worker back
            sent = _packed(job, left)
        except ApiError:
            self._idle.put(slot)
            raise
        try:
            slot.conn.send_bytes(sent)  # what `send` writes; the worker's `recv` reads it
            if not slot.conn.poll(left + KILL_GRACE):
                self.killed += 1
                self._replace(slot)
                raise late("while it was being solved (the worker was stopped)")
            reply: tuple[Any, ...] = slot.conn.recv()
        except (EOFError, OSError):
            self._replace(slot)
            raise ApiError.of(
                503, "RC503", "the worker solving this request stopped", **{"Retry-After": "1"}
            ) from None
        except ApiError:
            raise
        except Exception as exc:  # its reply unreadable, say: the worker's state is unknown, so a new one
            self._replace(slot)
            raise ApiError.of(500, "RC506", f"internal error: {type(exc).__name__}") from None
        self._idle.put(slot)
        if reply[0] == "ok":
            answer: dict[str, Any] = reply[1]
            return answer
        raise ApiError(reply[1], reply[2])

    def close(self) -> None:
        """Stop every worker (the server is shutting down)."""
        with self._lock:
            self._closed = True
            slots = list(self._all)
            self._all.clear()
        for slot in slots:
            slot.kill()
        self._threads.shutdown(wait=False, cancel_futures=True)


def _packed(job: Job, seconds: float) -> bytes:
    """The job and its seconds pickled for a worker, or an `ApiError`: pickled by `send`, a value
    nested too deeply (a `RecursionError`) failed where only a broken pipe was caught, and the
    worker was lost for good, so that with `--workers 1` every later solve was a 504 (a hunt).
    `body.MAX_DEPTH` refuses such a body first; this keeps the pool whole whatever a job holds."""
    try:
        return bytes(ForkingPickler.dumps((job, seconds)))
    except RecursionError:
        raise ApiError.of(422, "RC407", "the request nests too deeply to be solved") from None
    except Exception as exc:  # a bug: one clean answer, and no worker is held
        raise ApiError.of(500, "RC506", f"internal error: {type(exc).__name__}") from None


def busy(admitted: int, doing: str, what: str) -> ApiError:
    """503 for a request past the `admitted` already running or waiting: `--workers` and `--queue`."""
    return ApiError.of(
        503,
        "RC503",
        f"the server is {doing} {admitted} {what}{'' if admitted == 1 else 's'}, "
        "its limit: try again shortly",
        "the operator sets --workers and --queue",
        **{"Retry-After": "1"},
    )


def late(when: str) -> ApiError:
    return ApiError.of(
        504,
        "RC503",
        f"the request's deadline passed {when}",
        "ask for less (fewer dice, a smaller sweep), or ask the operator for a longer --deadline",
    )


def _serve(conn: Connection, limits: Limits) -> None:  # pragma: no cover - runs in a worker process
    """A worker's loop: one job at a time, each within the request's remaining time."""
    kept = BoundedCache(RULESETS_PER_WORKER, RULESET_BYTES_PER_WORKER)
    try:
        os.nice(NICENESS)
    except OSError:  # not permitted here: the worker runs at the server's priority
        pass
    conn.send(("ready",))
    while True:
        try:
            job, seconds = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        try:
            key = (job.name, job.text)
            rs: Ruleset | None = kept.get(key)
            if rs is None:
                # within what the request has left (the server loaded it too: a text's compile
                # is seconds at most, but each is the request's time)
                rs = load_source(SourceFile(job.name, job.text), limits=limits, deadline=max(seconds, 0.001))
            # kept as the newest, found or made: the least recently sent goes first
            kept.put(key, rs, rs.held_bytes())
            rs.limits = replace(limits, deadline=max(seconds, 0.001))  # this worker's only job now
            try:
                reply: tuple[Any, ...] = ("ok", fitted(job.kind, HEAVY[job.kind](rs, job.body)))
            finally:  # weighed again with what the job left in its caches
                kept.put(key, rs, rs.held_bytes())
        except DeadlineError:  # the solve had what was left of the request: name the request's own
            reply = ("error", 504, diagnostics_json(deadline_passed(limits.deadline).diagnostics))
        except RulecraftError as exc:
            reply = ("error", status_of(exc), diagnostics_json(exc.diagnostics))
        except RecursionError:
            reply = ("error", 422, [_bug("RC503", "the request nests too deeply to solve")])
        except Exception as exc:  # a bug: still one clean answer, and the worker lives on
            reply = ("error", 500, [_bug("RC506", f"internal error: {type(exc).__name__}")])
        try:
            conn.send(reply)
        except (BrokenPipeError, OSError):
            return
        except Exception as exc:  # a reply that cannot be pickled: still one answer, no lost worker
            try:
                conn.send(("error", 500, [_bug("RC506", f"internal error: {type(exc).__name__}")]))
            except (BrokenPipeError, OSError):
                return


def _bug(code: str, message: str) -> dict[str, Any]:
    from ..errors import Diagnostic

    return diagnostic_json(Diagnostic(code, message, None))
