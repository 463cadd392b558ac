"""Charts as SVG: a check's exact distribution, a sweep over one input, and the policies side by
side. Each asks the solve pool the same job as /api/prob or /api/sweep (the policies, /api/prob's
under each policy, as one job), so a chart and the JSON never disagree and a heavy chart is
bounded like any solve, then draws the answer's exact fractions with `engine.tools.svgchart` in
the server process: drawing is light."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from ..tools.svgchart import bar_chart, grouped_bar_chart, sweep_chart
from . import jobs
from .app import Server, arrived, server_of
from .body import OnceRoute
from .models import CheckRequest, RulesetRef, SweepRequest

router = APIRouter(prefix="/api/chart", tags=["charts"], route_class=OnceRoute)

SVG = "image/svg+xml"
HEADERS = {
    # Opened on its own, a chart may draw and style itself, and do nothing else.
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
    "X-Content-Type-Options": "nosniff",
}
PICTURE: dict[int | str, dict[str, Any]] = {200: {"content": {SVG: {}}, "description": "the chart, as SVG"}}


class SweepChartRequest(SweepRequest):
    stacked: bool = Field(default=False, description="stacked areas (adding up to 100%) instead of lines")


def exact(text: str) -> Fraction:
    """A probability as the API writes it ("n/d", or "0x…/0x…" when very long) back to a fraction."""
    n, _, d = text.partition("/")
    return Fraction(int(n, 0), int(d or "1", 0))


def _fields(body: RulesetRef, **extra: Any) -> dict[str, Any]:
    return {**body.model_dump(exclude={"ruleset", "source", "name"}, by_alias=True), **extra}


def _svg(text: str) -> Response:
    return Response(text, media_type=SVG, headers=HEADERS)


def _value(v: Any) -> str:
    """An input's JSON value as the CLI writes it: true/false, a list in brackets, else as is."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return str(v)


def _shown(inputs: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={_value(v)}" for k, v in inputs.items())


async def _resolve(server: Server, body: RulesetRef) -> Any:
    rs, _ = await run_in_threadpool(server.catalog.resolve, body.ruleset, body.source, body.name)
    return rs


@router.post("/distribution", response_class=Response, responses=PICTURE)
async def distribution(body: CheckRequest, request: Request) -> Response:
    """The exact distribution of a check's outcomes as a bar chart, worst first. Its body is
    /api/prob's but for `value`: a chart draws outcomes, and a `value` it took was dropped
    unsaid (`"value": "nope"` too), so it is refused (422) as any unknown field is."""
    started = arrived(request)
    server = server_of(request)
    rs = await _resolve(server, body)
    answer = await server.solve("prob", rs, _fields(body, value=None), started)
    bars = [(o["name"], exact(o["probability"])) for o in answer["outcomes"]]
    shown = _shown(answer["inputs"])
    title = f"{answer['check']}{' (' + shown + ')' if shown else ''}"
    if answer["policy"] != "always" or len(jobs.check_info(rs.check(answer["check"]))["policies"]) > 1:
        title += f" · {answer['policy']}"
    return _svg(await run_in_threadpool(bar_chart, title, bars))


@router.post("/sweep", response_class=Response, responses=PICTURE)
async def sweep(body: SweepChartRequest, request: Request) -> Response:
    """Each outcome's chance as one input runs over a range: lines, or stacked areas."""
    started = arrived(request)
    server = server_of(request)
    rs = await _resolve(server, body)
    fields = _fields(body, stacked=None)
    jobs.sweep_fits(rs.check(body.check), fields)  # too large a picture is refused before any solve
    answer = await server.solve("sweep", rs, fields, started)
    fixed = _shown({k: v for k, v in body.inputs.items() if k != answer["input"]})
    title = f"{answer['check']} by {answer['input']}{' (' + fixed + ')' if fixed else ''}"
    # Up to 201 points a line: tens of milliseconds of drawing, kept off the event loop.
    return _svg(await run_in_threadpool(_sweep_picture, title, answer, body.stacked))


def _sweep_picture(title: str, answer: Mapping[str, Any], stacked: bool) -> str:
    points: Sequence[Mapping[str, Any]] = answer["points"]
    names = list(points[0]["outcomes"]) if points else []
    series = [(n, [exact(p["outcomes"][n]["probability"]) for p in points]) for n in names]
    return sweep_chart(title, answer["input"], [p["x"] for p in points], series, stacked=stacked)


@router.post("/policies", response_class=Response, responses=PICTURE)
async def policies(body: CheckRequest, request: Request) -> Response:
    """The distribution under each policy the check offers, side by side (`policy` is ignored):
    how much the player's choices change each outcome."""
    started = arrived(request)
    server = server_of(request)
    rs = await _resolve(server, body)
    rs.check(body.check)  # a check it has not: refused here, before the pool is asked
    # one job for every policy: one request never competes with itself for the pool's places
    found = await server.solve("policies", rs, _fields(body, policy=None, value=None), started)
    answers: list[dict[str, Any]] = found["answers"]
    groups = [o["name"] for o in answers[0]["outcomes"]]
    series = [(a["policy"], [exact(o["probability"]) for o in a["outcomes"]]) for a in answers]
    shown = _shown(answers[0]["inputs"])
    title = f"{body.check} by policy{' (' + shown + ')' if shown else ''}"
    return _svg(await run_in_threadpool(grouped_bar_chart, title, groups, series))
