"""HTTP errors as data: which status a `RulecraftError` gets, and the one error body every 4xx
and 5xx carries, `{"error": {"status", "diagnostics"}}`, with the CLI's codes. No FastAPI here:
the pool's workers use it too."""

from __future__ import annotations

from typing import Any

from ..errors import CampaignError, DeadlineError, Diagnostic, RulecraftError
from .jobs import diagnostic_json, diagnostics_json


class ApiError(Exception):
    """One HTTP error with its diagnostics (already JSON), and headers such as Retry-After."""

    def __init__(
        self, status: int, diagnostics: list[dict[str, Any]], headers: dict[str, str] | None = None
    ) -> None:
        self.status = status
        self.diagnostics = diagnostics
        self.headers = headers or {}
        super().__init__(f"{status}: " + "; ".join(str(d.get("message")) for d in diagnostics))

    def body(self) -> dict[str, Any]:
        return {"error": {"status": self.status, "diagnostics": self.diagnostics}}

    @classmethod
    def of(cls, status: int, code: str, message: str, hint: str | None = None, **headers: str) -> ApiError:
        return cls(status, [diagnostic_json(Diagnostic(code, message, None, hint))], headers)


def status_of(exc: RulecraftError) -> int:
    """The status of an engine error, read from what the error is, never from its words: 404
    for a name that names nothing (`missing`: a ruleset, campaign, check, scene, action or
    period), 504 for a deadline (`DeadlineError`), 409 for a campaign that refused a change (its
    own codes, `RC9xx`), 503 for a database that cannot be used now, 422 for everything else the
    request got wrong: a `CampaignError` that is `unfit`, and one that carries an error of the
    rules' own met on the campaign's state (a derived value dividing by zero, `RC502`, after an
    action), which is 422 wherever else it is met (`/api/roll`) and was 409 here."""
    if exc.missing:
        return 404
    if isinstance(exc, DeadlineError):
        return 504
    if isinstance(exc, CampaignError) and not exc.unfit:
        if any(d.code == "RC903" for d in exc.diagnostics):
            return 503
        if any(d.code.startswith("RC9") for d in exc.diagnostics):
            return 409
    return 422


RETRY_LOCKED = "1"
"""Seconds a client is told to wait (`Retry-After`) before sending again a request that found the
campaign store locked (RC903 with the advice `retry`): the writer holding it is one request; or
its database server with no connection free (the advice `full`)."""


def api_error(exc: RulecraftError) -> ApiError:
    locked = any(d.advice is not None and d.advice.kind in ("retry", "full") for d in exc.diagnostics)
    headers = {"Retry-After": RETRY_LOCKED} if locked else None
    return ApiError(status_of(exc), diagnostics_json(exc.diagnostics), headers)
