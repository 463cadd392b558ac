"""The API's request and response bodies as pydantic models: what OpenAPI shows and what a
request is checked against before any engine code runs (a wrong shape is 422 RC407)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..state.records import MOST_SEQ

JsonValue = Any
"""An input's value as JSON gives it: a number, text, true/false or a list of numbers."""

_ABOUT = frozenset({"title", "description", "default", "examples"})
"""The keys of a field's JSON schema that say what it is, not what it holds."""


def _nullable(schema: dict[str, Any], model: type[BaseModel]) -> None:
    """Every optional field of a request's schema also takes `null` (`Strict._null_is_not_given`),
    and OpenAPI says so: what a client generated from it may send."""
    fields = getattr(model, "model_fields", {})
    for name, field in fields.items():
        held = schema.get("properties", {}).get(field.alias or name)
        if field.is_required() or held is None:
            continue
        kinds = held.get("anyOf")
        if kinds is None:
            kinds = [{k: v for k, v in held.items() if k not in _ABOUT}]
            for key in list(held):
                if key not in _ABOUT:
                    del held[key]
            held["anyOf"] = kinds
        if {"type": "null"} not in kinds:
            kinds.append({"type": "null"})


class Strict(BaseModel):
    """Unknown fields are refused, not ignored: a misspelt field would otherwise pass silently.
    And no field's value is converted to its type (`true` is no seed, `"7"` no bound of a sweep,
    `"yes"` no `trace`): a bot that sends the wrong type is told, not guessed at. (An input's
    value is the ruleset's to read, as the command line's text is: `inputs` takes any JSON.)

    `null` for an optional field is that field not given, whatever its type: many languages'
    JSON writers send an unset optional field as `null` (Go's pointers, Java's and C#'s
    serialisers, Python's `None`), and `"seed": null` was already the default while `"trace":
    null` and `"inputs": null` were 422 (found by a review). Nothing is converted: `null` is
    no value of any type, only the absence of one. A required field's `null` is still 422."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, strict=True, json_schema_extra=_nullable)

    @model_validator(mode="before")
    @classmethod
    def _null_is_not_given(cls, data: Any) -> Any:
        """The body without its optional fields given as `null`: each then takes its default."""
        if not isinstance(data, dict):
            return data
        optional = set()
        for name, field in cls.model_fields.items():
            if not field.is_required():
                optional.update({name, field.alias or name})
        return {key: value for key, value in data.items() if not (value is None and key in optional)}


class DiagnosticModel(BaseModel):
    code: str = Field(examples=["RC201"])
    severity: Literal["error", "warning", "note"]
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    end_line: int | None = None
    end_column: int | None = None
    source_line: str | None = None
    hint: str | None = Field(default=None, description="the CLI's hint, which may name its flags")
    api_hint: str | None = Field(
        default=None,
        description="the hint worded for a client of this API (the playground, a bot): `hint`, but "
        "where that names a command-line flag or command",
    )
    text: str = Field(description="the CLI's rendering, with the source line and a caret")


class ErrorBody(BaseModel):
    status: int
    diagnostics: list[DiagnosticModel]


class ErrorResponse(BaseModel):
    error: ErrorBody


class RulesetRef(Strict):
    """A shipped ruleset or one in the served folder by `ruleset`, or YAML text in `source`."""

    ruleset: str | None = Field(default=None, description="a served ruleset's name (GET /api/rulesets)")
    source: str | None = Field(default=None, description="a ruleset's YAML text")
    name: str | None = Field(default=None, description="the file name diagnostics show for `source`")


class InputInfo(BaseModel):
    name: str
    type: str
    default: JsonValue = None
    minimum: JsonValue = None
    maximum: JsonValue = None
    choices: list[str] | None = None
    choices_left_out: int | None = Field(default=None, description="choices past the 200 listed")
    description: str | None = None


class CheckInfo(BaseModel):
    title: str
    description: str | None = None
    inputs: list[InputInfo]
    outcomes: list[str]
    outcomes_left_out: int | None = Field(default=None, description="outcomes past the 200 listed")
    values: list[str]
    policies: list[str]


class RulesetSummary(BaseModel):
    name: str
    title: str
    checks: list[str]
    scenes: list[str]


class RulesetDetail(BaseModel):
    name: str
    title: str
    source: str
    checks: dict[str, CheckInfo]
    scenes: list[str]


class ValidateRequest(Strict):
    source: str
    name: str | None = None


class ValidateResponse(BaseModel):
    ok: bool
    diagnostics: list[DiagnosticModel]
    checks: dict[str, CheckInfo]


class CheckRequest(RulesetRef):
    check: str
    inputs: dict[str, JsonValue] = Field(default_factory=dict)
    policy: str | None = Field(default=None, examples=["always"])


class RollRequest(CheckRequest):
    seed: int | None = Field(default=None, ge=0, lt=2**63)
    force: list[JsonValue] | dict[str, JsonValue] | None = None
    trace: bool = True


class RollResponse(BaseModel):
    check: str
    outcome: str
    values: dict[str, JsonValue]
    outputs: dict[str, JsonValue]
    inputs: dict[str, JsonValue]
    drawn: dict[str, JsonValue]
    policy: str
    rolled_again: int = Field(
        default=0, description="How many times a rule 'then: again' had the whole check made again."
    )
    seed: int
    trace: list[dict[str, JsonValue]]
    text: str


class ProbRequest(CheckRequest):
    value: str | None = None


class Chance(BaseModel):
    name: str
    probability: str = Field(description="exact, as 'numerator/denominator'", examples=["11/36"])
    float: float


class ValueChance(BaseModel):
    value: JsonValue
    probability: str
    float: float


class ProbResponse(BaseModel):
    check: str
    inputs: dict[str, JsonValue]
    policy: str
    outcomes: list[Chance]
    value: list[ValueChance] | None = None
    capped: str
    truncated: str


class SweepRequest(CheckRequest):
    input: str
    from_: int = Field(alias="from")
    to: int


class PointChance(BaseModel):
    probability: str
    float: float


class SweepPoint(BaseModel):
    x: int
    outcomes: dict[str, PointChance]


class SweepResponse(BaseModel):
    check: str
    input: str
    policy: str
    points: list[SweepPoint]


class TestRequest(RulesetRef):
    pass


class ExampleResult(BaseModel):
    check: str
    example: str
    passed: bool
    diagnostics: list[DiagnosticModel]


class TestResponse(BaseModel):
    passed: int
    failed: int
    results: list[ExampleResult]


class SceneRequest(RulesetRef):
    scene: str
    inputs: dict[str, JsonValue] = Field(default_factory=dict, description="the campaign's parameters")
    parties: dict[str, dict[str, JsonValue]] = Field(default_factory=dict)
    policy: str | None = None


class SceneOddsRequest(SceneRequest):
    """A scene's odds take no `seed` (nothing is rolled): one sent was ignored until 2026-12-07."""

    expect: list[str] = Field(default_factory=list)


class SceneRollRequest(SceneRequest):
    """A played scene has no `expect` (it answers its end state): one sent was ignored until 2026-12-07."""

    seed: int | None = Field(default=None, ge=0, lt=2**63)


class CampaignCreate(Strict):
    name: str
    ruleset: str
    params: dict[str, JsonValue] = Field(default_factory=dict)
    characters: dict[str, dict[str, JsonValue]] = Field(default_factory=dict)


class JoinRequest(Strict):
    character: str
    params: dict[str, JsonValue] = Field(default_factory=dict)


class ActRequest(Strict):
    action: str
    character: str | None = None
    inputs: dict[str, JsonValue] = Field(default_factory=dict)
    others: dict[str, str] = Field(default_factory=dict)
    seed: int | None = Field(default=None, ge=0, lt=2**63)
    force: dict[str, JsonValue] | None = None
    policy: str | None = None
    trace: bool = True


class CampaignRollRequest(Strict):
    check: str
    inputs: dict[str, JsonValue] = Field(default_factory=dict)
    seed: int | None = Field(default=None, ge=0, lt=2**63)
    force: dict[str, JsonValue] | None = None
    policy: str | None = None
    trace: bool = True


class BeginRequest(Strict):
    period: str


class UndoRequest(Strict):
    """An undo's body is empty, `{}`, or `{"seen": N}`: the number of the newest event the client
    has read, so that an undo never reverses a change the client did not see (409 `RC908` when the
    log has grown past it). Refused as every route's is when it holds another field (422) or is
    not JSON (415), where any body at all had been taken and undone."""

    seen: int | None = Field(default=None, ge=1, le=MOST_SEQ)


class CampaignSceneRequest(Strict):
    scene: str
    cast: dict[str, str] = Field(default_factory=dict)
    seed: int | None = Field(default=None, ge=0, lt=2**63)
    policy: str | None = None


class CampaignSummary(BaseModel):
    name: str
    ruleset: str
    events: int


class EventModel(BaseModel):
    seq: int
    kind: str
    at: str
    undoes: int | None = Field(description="for an undo, the seq of the event it reverses; else null")
    data: dict[str, JsonValue]
    state: dict[str, JsonValue]


class Changed(BaseModel):
    event: EventModel
    state: dict[str, JsonValue]
    roll: dict[str, JsonValue] | None = None
