"""What the server's `CrossSite` middleware adds to a request (docs/performance.md).

Around an ASGI app that answers at once, a POST is sent through the middleware and without it, in
alternating rounds in one process; the medians and their difference are printed, for a request
with the playground's own `Origin` and for one with none (a bot's).

    python benchmarks/middleware.py
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

from engine.serve.app import CrossSite


async def _answer(scope: Any, receive: Any, send: Any) -> None:
    await send(
        {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]}
    )
    await send({"type": "http.response.body", "body": b"{}"})


async def _receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b""}


async def _send(message: Any) -> None:
    return None


async def _per_call(app: Any, scope: dict[str, Any], n: int) -> float:
    started = time.perf_counter()
    for _ in range(n):
        await app(scope, _receive, _send)
    return (time.perf_counter() - started) / n * 1e6


async def _main(rounds: int = 9, n: int = 20_000) -> None:
    wrapped = CrossSite(_answer)
    common = [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"), (b"user-agent", b"x")]
    for label, headers in (
        ("the page's own Origin", [*common, (b"origin", b"http://127.0.0.1:8000")]),
        ("no Origin", common),
    ):
        scope = {"type": "http", "method": "POST", "path": "/api/prob", "headers": headers}
        plain, through = [], []
        for _ in range(rounds):
            plain.append(await _per_call(_answer, scope, n))
            through.append(await _per_call(wrapped, scope, n))
        a, b = statistics.median(plain), statistics.median(through)
        print(f"{label}: {a:.2f} µs without, {b:.2f} µs through CrossSite, {b - a:.2f} µs added")


if __name__ == "__main__":
    asyncio.run(_main())
