"""The work behind each endpoint, as plain functions from a `Ruleset` and a request's fields to
JSON-ready data: the server process runs the light ones, the pool's workers the exact ones, and
both call the same code, so an answer does not depend on where it was computed."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from ..api import Ruleset
from ..errors import DeadlineError, Diagnostic, InputError, RulecraftError, placed
from ..eval.dist import fraction_text
from ..frozen import replace
from ..model.ruleset import Check, InputSpec
from ..model.values import Symbol, show, to_json
from ..runtime import arguments
from ..runtime.context import POLICIES
from ..runtime.inputs import unknown_input
from ..runtime.limits import sweep_chances
from ..runtime.work import Work
from ..tools.examples import Outcome, each_example
from ..tools.lint import DEFAULT_WORK, LintBudget, lint, ordered
from ..tools.render import one_title, result_text
from .advice import api_hint

MAX_SWEEP_POINTS = 201
"""The most points one sweep may ask for: each is a whole exact solve."""

MAX_SWEEP_VALUES = 201 * 50
"""The most chances one sweep (or its chart) may answer: its points times the check's outcomes,
each point giving every outcome's. Refused before the solve, from the check's declared outcomes:
a check of 4,500 outcomes swept over 201 points was 900,000 chances, a 25-38 MB answer built in
the server process past the deadline, with 1.3 GB of memory, while other requests waited (hunt
13i). The shipped checks have at most 5 outcomes: 201 points of up to 50 outcomes fit."""

MAX_SWEEP_CHARACTERS = 4_000_000
"""The most characters of exact chances (their fractions' text) one sweep's answer may hold,
counted as its points are solved, in the worker: a chance's fraction can be hundreds of digits
long, so `MAX_SWEEP_VALUES` alone does not bound the answer's size. Refused with RC503 (422) when
passed, before the next point is solved."""


MAX_DIAGNOSTICS = 50
"""The most diagnostics one answer lists; past them, one more says how many were left out. The
one bound for every error the API answers: the engine's, and FastAPI's on a request's shape."""
MAX_TEXT = 2000
"""The most characters an answer gives of a diagnostic's message, hint or source line (a name a
request sent, echoed back, could otherwise make an error as large as the request); every
diagnostic the API answers is cut by `diagnostic_json` to it, and by nothing else."""


MAX_PATH = 200
"""The most characters of a request's path that a refusal naming it gives (`METHOD PATH: why`),
so that the reason fits in the message's `MAX_TEXT` whatever the path."""


def diagnostics_json(diagnostics: Sequence[Diagnostic]) -> list[dict[str, Any]]:
    """Diagnostics as the API carries them, at most `MAX_DIAGNOSTICS` and each bounded in size,
    so an answer stays small however many problems a request has."""
    shown = [diagnostic_json(d) for d in diagnostics[:MAX_DIAGNOSTICS]]
    left = len(diagnostics) - MAX_DIAGNOSTICS
    if left > 0:
        first = diagnostics[MAX_DIAGNOSTICS]
        note = f"{left} more problems are not listed (the first {MAX_DIAGNOSTICS} are)"
        shown.append(diagnostic_json(Diagnostic(first.code, note, None, None, first.severity)))
    return shown


def cut(text: str | None, most: int = MAX_TEXT) -> str | None:
    """`text` of at most `most` characters, the `…` that ends one cut among them (it was one
    more: 2,001 characters of a 2,000-character bound)."""
    return text if text is None or len(text) <= most else text[: max(most - 1, 0)] + "…"


def diagnostic_json(d: Diagnostic) -> dict[str, Any]:
    """A diagnostic as the API carries it: its place, the line it points at, the CLI's text and
    hint, and the hint worded for a client of the API (`api_hint`, from `advice.api_hint`: the
    same as `hint` but where the CLI's names a flag or command), each part cut to `MAX_TEXT`
    characters."""
    worded = cut(api_hint(d))
    d = Diagnostic(d.code, cut(d.message) or "", d.span, cut(d.hint), d.severity)
    span = d.span
    line = span.line if span is not None and span.line else None
    source_line = None
    if span is not None and line is not None:
        source_line = span.source.line(line) if 0 < line <= len(span.source.lines) else None
    text = d.render()
    return {
        "code": d.code,
        "severity": d.severity,
        "message": d.message,
        "file": cut(span.file) if span is not None else None,
        "line": line,
        "column": span.col if line is not None and span is not None else None,
        "end_line": (span.end_line or None) if line is not None and span is not None else None,
        "end_column": (span.end_col or None) if line is not None and span is not None else None,
        "source_line": cut(source_line),
        "hint": d.hint,
        "api_hint": worded,
        "text": cut(text, 3 * MAX_TEXT),
    }


def input_info(spec: InputSpec) -> dict[str, Any]:
    info: dict[str, Any] = {"name": spec.name, "type": spec.kind, "default": _plain(spec.default)}
    if spec.minimum is not None:
        info["minimum"] = _plain(spec.minimum)
    if spec.maximum is not None:
        info["maximum"] = _plain(spec.maximum)
    if spec.scale is not None:
        _names(info, "choices", spec.scale.names)
    if spec.description:
        info["description"] = spec.description
    return info


def check_info(check: Check) -> dict[str, Any]:
    """What a form needs to call a check: its inputs, outcomes, values and policies."""
    info: dict[str, Any] = {"title": check.title, "inputs": [input_info(i) for i in check.inputs]}
    _names(info, "outcomes", check.outcomes.names)
    info["values"] = list(check.value_names)
    info["policies"] = list(POLICIES) if check.sequential else ["always"]
    if check.description:
        info["description"] = check.description
    return info


LISTED = 200
"""The most names one list of a check's description holds (its outcomes, an input's choices):
each check over a shared scale repeats it, and 400 checks over a scale of 40,000 made
`/api/validate` answer 279 MB (hunt 13za). Past it, `KEY_left_out` says how many were left out."""


def _names(info: dict[str, Any], key: str, names: tuple[str, ...]) -> None:
    info[key] = list(names[:LISTED])
    if len(names) > LISTED:
        info[f"{key}_left_out"] = len(names) - LISTED


def summary(rs: Ruleset, name: str) -> dict[str, Any]:
    return {"name": name, "title": rs.title, "checks": list(rs.checks), "scenes": list(rs.scenes)}


def detail(rs: Ruleset, name: str) -> dict[str, Any]:
    return {
        "name": name,
        "title": rs.title,
        "source": rs.document.source.text,
        "checks": {c.name: check_info(c) for c in rs.checks.values()},
        "scenes": list(rs.scenes),
    }


def validate(
    load: Callable[[], Ruleset], deadline: float | None = None, lint_work: int = DEFAULT_WORK
) -> dict[str, Any]:
    """Load and lint: every problem found, errors first (200 even when not ok: it is the answer).
    With a `deadline` (seconds for the whole request), the linter stops when it passes, as any
    bound stops it (`RC809`, the answer still a 200): a stranger's ruleset cannot hold a server
    thread for the lint budget's tens of seconds. A load that passes the deadline is no answer
    about the ruleset: it is the request's 504, as a solve's is."""
    started = time.monotonic()
    checks: dict[str, Any] = {}
    try:
        rs = load()
        checks = {c.name: check_info(c) for c in rs.checks.values()}
        left = None if deadline is None else max(deadline - (time.monotonic() - started), 0.001)
        diags = ordered(lint(rs, LintBudget(max_work=lint_work, deadline=left)))
        ok = not any(d.severity == "error" for d in diags)
    except DeadlineError:
        raise
    except RulecraftError as exc:
        diags, ok = ordered(exc.diagnostics), False
    return {"ok": ok, "diagnostics": diagnostics_json(diags), "checks": checks}


def roll(rs: Ruleset, body: Mapping[str, Any]) -> dict[str, Any]:
    check = rs.check(body["check"])
    seed = body.get("seed")
    arguments.seed("seed", seed, code="RC407")  # (the request's model refuses it first)
    seed = random.randrange(2**32) if seed is None else seed
    forced = _forced(body.get("force"), check)
    traced = body.get("trace") is not False  # null: the field left out
    result = rs.roll(  # without its trace when none is asked for: its text too (hunt 13za)
        check.name,
        random.Random(seed),
        forced=forced,
        policy=policy_of(body.get("policy")),
        trace=traced,
        inputs=body["inputs"],
    )
    data = result.as_json()
    outputs = {name: data["values"][name] for name, _ in check.outputs if name in data["values"]}
    trace = data["trace"]
    return {
        "check": check.name,
        "outcome": data["outcome"],
        "values": data["values"],
        "outputs": outputs,
        "inputs": data["inputs"],
        "drawn": data["drawn"],
        "policy": data["policy"],
        "rolled_again": result.rolled_again,
        "seed": seed,
        "trace": trace,
        "text": result_text(result, f"{rs.name} · {one_title(check.title)}  (seed {seed})"),
    }


def prob(rs: Ruleset, body: Mapping[str, Any]) -> dict[str, Any]:
    check = rs.check(body["check"])
    dist = rs.distribution(check.name, policy=policy_of(body.get("policy")), inputs=body["inputs"])
    out: dict[str, Any] = {
        "check": check.name,
        "inputs": {k: to_json(v) for k, v in dist.inputs.items()},
        "policy": dist.policy,
        "outcomes": [_point("name", s.name, p) for s, p in dist.table()],
        "capped": fraction_text(dist.capped),
        "truncated": fraction_text(dist.truncated),
    }
    value = body.get("value")
    if value is not None:  # "" is a name no check has: RC402, as any other
        try:  # RC402 for a name the check has no such value of, at the check, as the CLI tells it
            found = dist.value(value)
        except RulecraftError as exc:
            raise placed(exc, check.span) from None
        out["value"] = [
            _point("value", v.name if isinstance(v, Symbol) else to_json(v), p) for v, p in found.items()
        ]
    return out


def policies(rs: Ruleset, body: Mapping[str, Any]) -> dict[str, Any]:
    """`prob` under each policy the check offers (`body`'s own policy and value are not used),
    as one job: a chart of them takes one place in the pool, as any request does, where a solve
    for each had competed with the others for it (with `--queue 0`, one worker: 503). They run
    one after another under the request's one deadline, as a sweep's points do."""
    check = rs.check(body["check"])
    clock = _Shared(rs)
    answers = []
    for policy in check_info(check)["policies"]:
        with clock:
            answers.append(prob(rs, {**body, "policy": policy, "value": None}))
    return {"check": check.name, "answers": answers}


def sweep(rs: Ruleset, body: Mapping[str, Any]) -> dict[str, Any]:
    check = rs.check(body["check"])
    name, lo, hi = body["input"], body["from"], body["to"]
    if name not in check.input_map:
        raise InputError([unknown_input(check, name, lo)])
    sweep_fits(check, body)
    policy = policy_of(body.get("policy"))
    points = []
    clock = _Shared(rs)
    written = 0
    for x in range(lo, hi + 1):
        if written > MAX_SWEEP_CHARACTERS:
            raise InputError(
                [
                    Diagnostic(
                        "RC503",
                        f"the sweep's answer passed {MAX_SWEEP_CHARACTERS:,} characters of exact chances "
                        f"by {x - 1} (of {lo}..{hi}): the chances' fractions are too long to send so many",
                        None,
                        "sweep fewer values, or ask /api/prob for the values you need",
                    )
                ]
            )
        with clock:
            dist = rs.distribution(check.name, policy=policy, inputs={**body["inputs"], name: x})
        texts = [(s.name, fraction_text(p), float(p)) for s, p in dist.table()]
        written += sum(len(text) for _, text, _ in texts)
        outcomes = {kind: {"probability": text, "float": chance} for kind, text, chance in texts}
        points.append({"x": x, "outcomes": outcomes})
    return {"check": check.name, "input": name, "policy": policy, "points": points}


def sweep_fits(check: Check, body: Mapping[str, Any]) -> None:
    """Refuse a sweep (or its chart) larger than the server answers: more than
    `MAX_SWEEP_POINTS` values, or more than `MAX_SWEEP_VALUES` chances (its values times the
    check's outcomes), with 422 RC407. The route asks it before the pool is, the worker again."""
    lo, hi = body["from"], body["to"]
    if hi < lo or hi - lo + 1 > MAX_SWEEP_POINTS:
        raise InputError(
            [
                Diagnostic(
                    "RC407",
                    f"a sweep runs upwards over at most {MAX_SWEEP_POINTS} values, got {lo}..{hi}",
                    None,
                )
            ]
        )
    sweep_chances(check, hi - lo + 1, MAX_SWEEP_VALUES, "a sweep", lo)


def examples(rs: Ruleset) -> dict[str, Any]:
    found: list[Outcome] = []
    examples = each_example(rs)
    clock = _Shared(rs)
    while True:
        with clock:
            outcome = next(examples, None)
        if outcome is None:
            break
        found.append(outcome)
    results = [
        {
            "check": o.check,
            "example": getattr(o.example, "name", "") or "",
            "passed": o.passed,
            "diagnostics": diagnostics_json(o.problems),
        }
        for o in found
    ]
    passed = sum(o.passed for o in found)
    return {"passed": passed, "failed": len(found) - passed, "results": results}


def scene_odds(rs: Ruleset, body: Mapping[str, Any]) -> dict[str, Any]:
    found = rs.scene_odds(
        body["scene"],
        params=body.get("inputs") or {},
        parties=body.get("parties") or {},
        policy=policy_of(body.get("policy")),
        expect=tuple(body.get("expect") or ()),
    )
    return found.as_json()


def scene_roll(rs: Ruleset, body: Mapping[str, Any]) -> dict[str, Any]:
    seed = body.get("seed")
    arguments.seed("seed", seed, code="RC407")  # (the request's model refuses it first)
    seed = random.randrange(2**32) if seed is None else seed
    played = rs.play_scene(
        body["scene"],
        random.Random(seed),
        params=body.get("inputs") or {},
        parties=body.get("parties") or {},
        policy=policy_of(body.get("policy")),
    )
    return {**played.as_json(), "seed": seed}


MAX_ANSWER_BYTES = 8_000_000
"""The most bytes of JSON one solved answer may be, as UTF-8 (as the server sends it; counted
escaped, text in other scripts was told twice its size: hunt 13zq), measured in the worker that
made it, before it is sent back: the server process checks it against its response model and
encodes it on its event loop, where a large answer holds every request. A value over
`a * 100000 + b` of two d447 was a 14.7 MB answer from a 200-byte request, and six at once took
the server to 832 MB; 300 failing examples made by a YAML alias in a 17 KB text answered 38 MB
(hunt 13zp). A sweep's own bound (`MAX_SWEEP_CHARACTERS`) comes first, and the shipped rulesets'
largest answers are a few kilobytes."""

_LESS = {
    "prob": "ask for a named value with fewer results, or for the outcomes alone",
    "test": "send fewer examples at once (their failures are what is long)",
    "scene_roll": "play a shorter scene, or ask for its odds",
}


def fitted(kind: str, answer: dict[str, Any]) -> dict[str, Any]:
    """`answer`, or an `InputError` RC503 (422) when its JSON passes `MAX_ANSWER_BYTES`: one bound
    for every job a worker runs, stated here, where answers are made."""
    text = json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
    size = len(text.encode("utf-8", "surrogatepass"))  # (a lone surrogate: 3 bytes, where 6 are sent)
    if size <= MAX_ANSWER_BYTES:
        return answer
    message = f"the answer is {size:,} bytes of JSON, over the server's {MAX_ANSWER_BYTES:,} for one answer"
    hint = _LESS.get(kind, "ask for less") + "; the Python API gives answers of any size"
    raise InputError([Diagnostic("RC503", message, None, hint)])


HEAVY: dict[str, Callable[[Ruleset, Mapping[str, Any]], dict[str, Any]]] = {
    "roll": roll,
    "prob": prob,
    "policies": policies,
    "sweep": sweep,
    "test": lambda rs, body: examples(rs),
    "scene_odds": scene_odds,
    "scene_roll": scene_roll,
}
"""Every job a worker may be given, by name."""


class _Shared:
    """One deadline for a job of several solves (a sweep's points, a file's examples, a check's
    policies): each runs under `rs.limits` with the deadline cut to what the whole job has left,
    so the engine's own clock stops the job (RC503, 504) rather than each part starting the
    deadline afresh and the worker being killed. The limits the job began with are put back
    after each part."""

    def __init__(self, rs: Ruleset) -> None:
        self.rs = rs
        self.limits = rs.limits
        seconds = rs.limits.deadline
        self.until = None if seconds is None else time.monotonic() + seconds

    def __enter__(self) -> None:
        if self.until is not None:
            left = self.until - time.monotonic()
            if left <= 0:  # the whole job's deadline, in the engine's words (RC503)
                Work(1, self.limits.deadline, until=self.until).check_clock()
            self.rs.limits = replace(self.limits, deadline=max(left, 0.001))

    def __exit__(self, *exc: object) -> None:
        if self.until is not None:
            self.rs.limits = self.limits


def _point(key: str, name: Any, p: Fraction) -> dict[str, Any]:
    return {key: name, "probability": fraction_text(p), "float": float(p)}


def policy_of(asked: str | None) -> str:
    """The policy a request asked for, `always` when it asked for none: "" is one asked for (and
    no policy, RC408)."""
    return "always" if asked is None else asked


def _forced(force: Any, check: Check) -> dict[str, Any] | None:
    """`force` as `Ruleset.roll` takes it: a mapping as given, or a list of faces for a check
    that rolls one die, pool or draw (with several, a bare list names none of them)."""
    if force is None or force == {} or force == []:
        return None
    if isinstance(force, dict):
        return force
    if len(check.roll) == 1:
        return {check.roll[0].name: force}
    names = ", ".join(r.name for r in check.roll) or "none"
    raise InputError(
        [
            Diagnostic(
                "RC405",
                f"check '{check.name}' rolls {len(check.roll)} randomizers: name each one's forced faces",
                check.span,
                f'e.g. {{"NAME": [faces]}}; its randomizers: {names}',
            )
        ]
    )


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, Symbol):
        return value.name
    converted = to_json(value)
    return converted if isinstance(converted, int | float | str | list | bool) else show(value)
