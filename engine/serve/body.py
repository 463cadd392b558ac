"""How the API reads a JSON body: as FastAPI does, except that an object giving one key twice
is refused (422 `RC407`) instead of keeping the last, as the command line refuses a
`NAME=VALUE` given twice. A repeated key is far likelier a client's slip than a choice."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import HTTPException, Request, Response
from fastapi.routing import APIRoute


class Twice(ValueError):
    """A key given twice in one JSON object."""


def _once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise Twice(key)
        found[key] = value
    return found


def read_json(body: bytes | str) -> Any:
    """`json.loads`, refusing a key given twice in any one object (raises `Twice`)."""
    return json.loads(body, object_pairs_hook=_once)


class OnceRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            try:
                self._json = read_json(await self.body())
            except Twice as twice:
                raise HTTPException(422, f"the body gives the key '{twice}' twice in one object") from None
        return self._json


class OnceRoute(APIRoute):
    """Every route of the API: its JSON body read by `OnceRequest`."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def handle(request: Request) -> Response:
            return await handler(OnceRequest(request.scope, request.receive))

        return handle
