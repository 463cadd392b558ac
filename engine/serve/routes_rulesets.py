"""Listing and showing the served rulesets, and validating one sent as text: light requests,
answered in the server process."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from ..errors import RulecraftError
from . import jobs
from .app import server_of
from .body import OnceRoute
from .models import RulesetDetail, RulesetSummary, ValidateRequest, ValidateResponse

router = APIRouter(prefix="/api", tags=["rulesets"], route_class=OnceRoute)


@router.get("/rulesets", response_model=list[RulesetSummary])
def list_rulesets(request: Request) -> list[dict[str, Any]]:
    """Every ruleset this server serves: the shipped ones and those in its --rulesets folder that
    load. One that does not is left out here (and named when the server starts), so one broken
    file does not take the list away from everyone; asked for by name, it answers with its error."""
    catalog = server_of(request).catalog
    listed = []
    known = catalog.names()  # listed once, not once more for each ruleset
    for name in known:
        try:
            listed.append(jobs.summary(catalog.named(name, known), name))
        except RulecraftError:
            continue
    return listed


@router.get("/rulesets/{name}", response_model=RulesetDetail)
def show_ruleset(name: str, request: Request) -> dict[str, Any]:
    """One ruleset: its YAML text and what each check takes and gives."""
    return jobs.detail(server_of(request).catalog.named(name), name)


@router.post("/validate", response_model=ValidateResponse)
def validate(body: ValidateRequest, request: Request) -> dict[str, Any]:
    """Load and lint a ruleset sent as text: 200 with every diagnostic, even when it is not ok."""
    server = server_of(request)
    catalog = server.catalog
    return jobs.validate(lambda: catalog.source(body.source, body.name), server.settings.deadline)
