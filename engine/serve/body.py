"""JSON in and out of the API. In: a body is read as FastAPI reads it, except that an object
giving one key twice is refused instead of keeping the last (as the command line refuses a
`NAME=VALUE` given twice), and a body that cannot be read — not JSON, not UTF-8, nested deeper
than `MAX_DEPTH`, a number past Python's digit limit — is one 422 `RC407` that says why.
Out: text that UTF-8 cannot carry (a lone surrogate, which JSON's `\\ud800` can spell) is
escaped rather than crashing the response that would report it."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import HTTPException, Request, Response
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.requests import ClientDisconnect

from ..errors import Diagnostic, Numeral, did_you_mean
from ..syntax.positions import SourceFile, Span
from .jobs import MAX_PATH, cut, diagnostic_json
from .problems import ApiError

MAX_DEPTH = 64
"""The deepest a body may nest arrays and objects (the body itself is 1): a request's values are
numbers, text, booleans, and lists and objects of them a few levels deep (a party, parameters,
forced dice). A body nested hundreds deep was read (Python's reader goes to about a thousand),
then failed to be pickled for a solve worker (a `RecursionError`), which lost that worker for
good; refused here, nothing past the door recurses on it. The same bound as a ruleset's YAML
(`Limits.max_yaml_depth`)."""


class Twice(ValueError):
    """A key given twice in one JSON object."""


class Unpaired(ValueError):
    """Text holding a lone surrogate (`\\ud800` in JSON): no UTF-8 store, file or terminal
    can take it, so it is refused at the door rather than wherever it is first written."""


def _once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise Twice(key)
        found[key] = value
    return found


class NotJson(ValueError):
    """`NaN`, `Infinity` or `-Infinity`, which Python's reader takes but JSON has not."""


def _constant(name: str) -> Any:
    raise NotJson(name)


class TooLong(ValueError):
    """A whole number of more digits than Python turns text into (`sys.get_int_max_str_digits`)."""


class TooDeep(ValueError):
    """Arrays and objects nested deeper than `MAX_DEPTH`."""


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # Python's words name a function of its own: a client cannot call it
        raise TooLong(str(sys.get_int_max_str_digits())) from None


def read_json(body: bytes | str) -> Any:
    """`json.loads`, refusing a key given twice in any one object (`Twice`), text with a lone
    surrogate anywhere (`Unpaired`), the numbers JSON does not have (`NotJson`) and whole numbers
    too long to read (`TooLong`) and nesting deeper than `MAX_DEPTH` (`TooDeep`). A number with a
    point or an exponent is a `Numeral`, which keeps its text: an input reads it exactly."""
    found = json.loads(
        body, object_pairs_hook=_once, parse_constant=_constant, parse_int=_integer, parse_float=Numeral
    )
    _whole_text(found)
    return found


def _whole_text(found: Any) -> None:
    todo: list[tuple[Any, int]] = [(found, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, (dict, list)) and depth > MAX_DEPTH:
            raise TooDeep(str(MAX_DEPTH))
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise Unpaired(item[max(exc.start - 20, 0) : exc.end + 20]) from None
        elif isinstance(item, dict):
            todo.extend((key, depth + 1) for key in item)
            todo.extend((value, depth + 1) for value in item.values())
        elif isinstance(item, list):
            todo.extend((value, depth + 1) for value in item)


_TOKENS = re.compile(r'"(?:\\.|[^"\\])*"|(-?Infinity|NaN)')
"""A JSON string (skipped whole), or a word `NotJson` names."""


def _outside_strings(text: str, word: str) -> tuple[int, int] | None:
    """The line and column (from 1) of the first `word` in `text` outside its strings, or None."""
    for m in _TOKENS.finditer(text):
        if m.group(1) == word:
            before = text[: m.start()]
            return before.count("\n") + 1, m.start() - (before.rfind("\n") + 1) + 1
    return None


def _unreadable(exc: Exception) -> str:
    """What is wrong with a body `read_json` could not read, in words for the client."""
    if isinstance(exc, Twice):
        return f"the body gives the key {ascii(str(exc))} twice in one object"
    if isinstance(exc, Unpaired):
        return f"the body's text has a lone surrogate, which is not Unicode text: {ascii(str(exc))}"
    if isinstance(exc, TooLong):
        most = int(str(exc))
        return f"the body has a whole number of more than {most:,} digits, which the server does not read"
    if isinstance(exc, NotJson):
        return f"the body is not JSON: {exc} is no JSON number"
    if isinstance(exc, json.JSONDecodeError):
        return f"the body is not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
    if isinstance(exc, UnicodeDecodeError):
        return "the body is not JSON: it is not UTF-8 (or UTF-16/32) text"
    if isinstance(exc, (RecursionError, TooDeep)):
        return f"the body nests arrays and objects deeper than the server reads ({MAX_DEPTH} levels)"
    return f"the body is not JSON the server can read: {exc}"


class Unreadable(HTTPException):
    """A body that is not JSON, with its diagnostics placed in it (an `HTTPException`, as
    FastAPI's body reading lets only those through unchanged; `app.on_http` answers it)."""

    def __init__(self, diagnostics: list[dict[str, Any]]) -> None:
        super().__init__(422, str(diagnostics[0].get("message")))
        self.diagnostics = diagnostics


class OnceRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            try:
                self._json = read_json(await self.body())
            except json.JSONDecodeError as exc:
                # placed in the body: its line, column and caret; `json` counts lines at a newline
                # only, as `SourceFile` splits them
                where = Span(SourceFile("<request body>", exc.doc), exc.lineno, exc.colno)
                said = Diagnostic("RC407", self._said(_unreadable(exc)), where)
                raise Unreadable([diagnostic_json(said)]) from None
            except NotJson as exc:  # placed too, at the first such word outside a string (hunt 13o)
                text = (await self.body()).decode("utf-8", "replace")
                found = _outside_strings(text, str(exc))
                at = None if found is None else Span(SourceFile("<request body>", text), *found)
                said = Diagnostic("RC407", self._said(_unreadable(exc)), at)
                raise Unreadable([diagnostic_json(said)]) from None
            except (ValueError, RecursionError) as exc:  # UnicodeDecodeError too
                raise HTTPException(422, _unreadable(exc)) from None
        return self._json

    def _said(self, message: str) -> str:
        """`message` after the request's method and path (cut to `MAX_PATH`: a path of thousands
        of characters left no room for the reason), as the server's own refusals of a request
        say it (`app.on_http`): these two said the body was not JSON without them until
        2026-12-07."""
        return f"{self.method} {cut(self.url.path, MAX_PATH)}: {message}"


BEFORE_BODY: set[Callable[[Request], None]] = set()
"""The route dependencies `OnceRoute` runs before it reads the body (`before_body`)."""


def before_body(check: Callable[[Request], None]) -> Callable[[Request], None]:
    """Mark a dependency that reads only the request's headers (a token): a route of `OnceRoute`
    runs it before the body is read, so a client it refuses learns nothing of what is wrong with
    its body, and the server parses nothing that client sent. (FastAPI would run it
    after reading the body, and after a body that is not JSON was already refused with 422.)"""
    BEFORE_BODY.add(check)
    return check


def _json_type(content_type: str | None) -> bool:
    """Whether a Content-Type says JSON (`application/json`, `application/*+json`, any charset)."""
    media = (content_type or "").partition(";")[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


class OnceRoute(APIRoute):
    """Every route of the API: its `before_body` dependencies (the token) checked first, its JSON
    body read by `OnceRequest`, and a body sent as anything but JSON refused with 415 saying so
    (FastAPI would not read it, and the client would be told that its fields are missing)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        takes_body = self.body_field is not None
        # FastAPI runs them again as the route's dependencies: the same answer, at no cost
        gates = [gate for gate in BEFORE_BODY if any(d.dependency is gate for d in self.dependencies)]
        # the query parameters the route declares, its dependencies' among them, by the name sent
        takes = _query_names(self.dependant)
        whole = _query_names(self.dependant, whole=True)

        async def handle(request: Request) -> Response:
            once = OnceRequest(request.scope, request.receive)
            for gate in gates:
                gate(once)
            _known_query(once, self.path, takes)
            _whole_query(once, whole)
            try:
                sent = takes_body and await once.body()
            except ClientDisconnect:  # gone, or cut off by `BodyLimit`, which has answered 413
                return Response(status_code=400)
            if sent and not _json_type(once.headers.get("content-type")):
                given = once.headers.get("content-type")
                raise ApiError.of(
                    415,
                    "RC407",
                    f"the body is sent as {ascii(given) if given else 'no type'}, not as JSON",
                    "send it with the header 'Content-Type: application/json'",
                )
            return await handler(once)

        return handle


def _query_names(dependant: Any, whole: bool = False) -> list[str]:
    """The query parameters a route's `Dependant` declares, its dependencies' among them, by the
    name a request sends (`alias`): read from FastAPI's public fields, as it reads them. With
    `whole`, only those that take a whole number (`int`, or `int | None`)."""
    names: set[str] = set()
    todo = [dependant]
    while todo:
        current = todo.pop()
        names.update(
            param.alias
            for param in current.query_params
            if not whole or param.field_info.annotation in (int, int | None)
        )
        todo.extend(current.dependencies)
    return sorted(names)


_DIGITS = re.compile(r"-?[0-9]+")


def _whole_query(request: Request, whole: list[str]) -> None:
    """Refuse a whole-number query parameter written as anything but digits with 422 `RC407`:
    the conversion FastAPI asks of pydantic reads `1.0` as 1, `+1` and ` 1` as 1 and `1_0` as 10
    (Python's `int`), where a body's fields are taken only as JSON's own numbers (`Strict`). A
    minus sign is read, and the route's bounds then refuse what is below them."""
    for name in whole:
        value = request.query_params.get(name)
        if value is not None and not _DIGITS.fullmatch(value):
            raise ApiError.of(
                422,
                "RC407",
                f"query parameter '{name}' is {ascii(cut(value, 200))}, not a whole number",
                f"write it in digits alone, as ?{name}=20",
            )


def _known_query(request: Request, path: str, takes: list[str]) -> None:
    """Refuse a query parameter the route does not take with 422 `RC407` naming it and the
    nearest it takes: FastAPI ignores one, so `?limt=5` on a log was the whole page, silently
    (hunt 13i), as a parameter given twice is refused (`app.QueryOnce`)."""
    for name in request.query_params:
        if name not in takes:
            given = cut(name, 200) or ""
            hint = did_you_mean(given, takes) or (
                f"its query parameters: {', '.join(takes)}" if takes else "it takes no query parameters"
            )
            raise ApiError.of(422, "RC407", f"{path} takes no query parameter {ascii(given)}", hint)


class SafeJSONResponse(JSONResponse):
    """Starlette's JSON response, which writes non-ASCII text as it is, but falls back to
    escaping it where UTF-8 cannot carry it (a lone surrogate read from a request's `\\ud800`)."""

    def render(self, content: Any) -> bytes:
        try:
            return super().render(content)
        except UnicodeEncodeError:
            return json.dumps(content, allow_nan=False, separators=(",", ":")).encode("ascii")
