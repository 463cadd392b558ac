"""HTTP errors as data: which status a `RulecraftError` gets, and the one error body every 4xx
and 5xx carries, `{"error": {"status", "diagnostics"}}`, with the CLI's codes. No FastAPI here:
the pool's workers use it too."""

from __future__ import annotations

from typing import Any

from ..errors import (
    CampaignError,
    Diagnostic,
    InputError,
    LimitError,
    LoadError,
    RulecraftError,
)
from .jobs import diagnostic_json

NOT_FOUND_CODES = frozenset({"RC001", "RC901"})
"""No such ruleset, no such campaign: the path or reference names nothing (404)."""


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
    """The status of an engine error: 404 for a name that names nothing (a ruleset, a check, a
    scene, a campaign), 504 for a deadline, 409 for a campaign that refused a change, 503 for a
    database that cannot be used now, 422 for everything else the request got wrong."""
    codes = {d.code for d in exc.diagnostics}
    first = exc.diagnostics[0] if exc.diagnostics else None
    message = first.message if first is not None else ""
    if codes & NOT_FOUND_CODES and isinstance(exc, LoadError | CampaignError):
        return 404
    if first is not None and first.code == "RC402" and " has no check " in message:
        return 404
    if first is not None and first.code == "RC907" and " has no scene " in message:
        return 404
    if isinstance(exc, LimitError) and "deadline" in message:
        return 504
    if isinstance(exc, CampaignError):
        return 503 if "RC903" in codes else 409
    if isinstance(exc, InputError | LimitError):
        return 422
    return 422


def api_error(exc: RulecraftError) -> ApiError:
    return ApiError(status_of(exc), [diagnostic_json(d) for d in exc.diagnostics])
