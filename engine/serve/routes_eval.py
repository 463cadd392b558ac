"""Rolling, solving, testing and scenes. A roll is light and answered in the server process;
anything exact (prob, sweep, test, scene odds, a roll or scene under the `optimal` policy) runs in
the bounded pool within the request's deadline."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from . import jobs
from .app import arrived, server_of
from .body import OnceRoute
from .models import (
    ProbRequest,
    ProbResponse,
    RollRequest,
    RollResponse,
    SceneOddsRequest,
    SceneRollRequest,
    SweepRequest,
    SweepResponse,
    TestRequest,
    TestResponse,
)

router = APIRouter(prefix="/api", tags=["evaluate"], route_class=OnceRoute)


@router.post("/roll", response_model=RollResponse)
async def roll(body: RollRequest, request: Request) -> dict[str, Any]:
    """One seeded roll with its trace as data (and as the CLI's text)."""
    started = arrived(request)
    server = server_of(request)
    rs = await _resolve(server, body)
    data = body.model_dump(exclude={"ruleset", "source", "name"})
    rs.check(body.check)
    if body.policy == "optimal":
        return await server.solve("roll", rs, data, started)
    try:
        return await _light(jobs.roll, rs, data)
    finally:  # what the roll kept in the ruleset's caches counts to what the server keeps
        if body.source is not None:
            server.catalog.weigh_again(rs)


@router.post("/prob", response_model=ProbResponse, response_model_exclude_none=True)
async def prob(body: ProbRequest, request: Request) -> dict[str, Any]:
    """The exact distribution of a check's outcomes (and of one named value), as fractions."""
    return await _heavy("prob", body.model_dump(exclude={"ruleset", "source", "name"}), body, request)


@router.post("/sweep", response_model=SweepResponse)
async def sweep(body: SweepRequest, request: Request) -> dict[str, Any]:
    """The exact outcome chances for each whole value of one input from `from` to `to`."""
    data = body.model_dump(exclude={"ruleset", "source", "name"}, by_alias=True)
    return await _heavy("sweep", data, body, request)


@router.post("/test", response_model=TestResponse)
async def test(body: TestRequest, request: Request) -> dict[str, Any]:
    """Run the worked examples written in the ruleset."""
    return await _heavy("test", {}, body, request)


@router.post("/scenes/odds")
async def scene_odds(body: SceneOddsRequest, request: Request) -> dict[str, Any]:
    """A scene's exact odds: each ending's chance, its length in rounds."""
    return await _heavy("scene_odds", body.model_dump(exclude={"ruleset", "source", "name"}), body, request)


@router.post("/scenes/roll")
async def scene_roll(body: SceneRollRequest, request: Request) -> dict[str, Any]:
    """One whole scene played round by round, with its trace."""
    return await _heavy("scene_roll", body.model_dump(exclude={"ruleset", "source", "name"}), body, request)


async def _heavy(kind: str, data: dict[str, Any], body: Any, request: Request) -> dict[str, Any]:
    started = arrived(request)
    server = server_of(request)
    rs = await _resolve(server, body)
    if getattr(body, "check", None) is not None:
        check = rs.check(body.check)  # a misspelt check is a 404 now, not after a wait for a worker
        if kind == "sweep":  # too large an answer is refused before any solve
            jobs.sweep_fits(check, data)
    if getattr(body, "scene", None) is not None:
        rs.scene(body.scene)
    return await server.solve(kind, rs, data, started)


async def _resolve(server: Any, body: Any) -> Any:
    from starlette.concurrency import run_in_threadpool

    rs, _ = await run_in_threadpool(server.catalog.resolve, body.ruleset, body.source, body.name)
    return rs


async def _light(fn: Any, *args: Any) -> dict[str, Any]:
    from starlette.concurrency import run_in_threadpool

    result: dict[str, Any] = await run_in_threadpool(fn, *args)
    return result
