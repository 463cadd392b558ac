"""`rulecraft serve`: the command's arguments made into `Settings`, and uvicorn started."""

from __future__ import annotations

import argparse
import os
import socket
from pathlib import Path
from typing import TextIO

import uvicorn

from ..errors import Diagnostic, InputError
from .app import Settings, create_app

MOST_WORKERS = 64
"""Solver processes one server may start: each is a whole interpreter with the engine loaded."""
MOST_QUEUED = 10_000
"""Solves that may wait for a worker: each holds a request open until the deadline."""


def settings_of(args: argparse.Namespace) -> Settings:
    """The command line's settings, each refused in the CLI's words when it makes no sense."""
    problems = []
    if not 1 <= args.workers <= MOST_WORKERS:
        problems.append(f"--workers must be 1..{MOST_WORKERS}")
    if not 0 <= args.queue <= MOST_QUEUED:
        problems.append(f"--queue must be 0..{MOST_QUEUED:,}")
    if args.max_body < 1:
        problems.append("--max-body must be at least 1 byte")
    if not (args.deadline > 0 and args.deadline < 3600):
        problems.append("--deadline must be more than 0 and under 3600 seconds")
    if not 0 <= args.port <= 65535:
        problems.append("--port must be 0..65535")
    folder = Path(args.rulesets) if args.rulesets else None
    if folder is not None and not folder.is_dir():
        problems.append(f"--rulesets {args.rulesets}: no such folder")
    if any(item.partition("=")[0].strip() == "deadline" for item in args.limit):
        problems.append("--limit deadline: a request's deadline is --deadline SECONDS")
    if problems:
        raise InputError([Diagnostic("RC407", p, None) for p in problems])
    return Settings(
        rulesets=folder,
        db=args.db,
        token=args.token or os.environ.get("RULECRAFT_TOKEN") or None,
        workers=args.workers,
        queue=args.queue,
        max_body=args.max_body,
        deadline=args.deadline,
        limits=args.limits,
    )


def listening(host: str, port: int) -> socket.socket:
    """A socket bound to `host` and `port` before the server starts, so that a host that does not
    resolve or a port in use is one RC407 naming them (not uvicorn's log line and exit 3), and
    port 0's free port is known to print."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
            sock.listen(2048)  # uvicorn's backlog: a client told the port may connect at once
        except OSError:
            sock.close()
            raise
    except OSError as exc:
        raise InputError(
            [
                Diagnostic(
                    "RC407",
                    f"cannot listen on {host} port {port}: {exc.strerror or exc}",
                    None,
                    "--host takes a name or address of this machine; --port a free port (0 picks one)",
                )
            ]
        ) from None
    return sock


def serve(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    settings = settings_of(args)
    sock = listening(args.host, args.port)
    app = create_app(settings)
    for path, exc in app.state.server.catalog.unloadable():  # served (its error, by name), but said now
        err.write(f"warning: {path} does not load; GET /api/rulesets leaves it out:\n{exc}\n")
        err.flush()
    for path, name in app.state.server.catalog.shadowing():
        err.write(f"note: {path} is served as '{name}', in place of the shipped ruleset of that name\n")
    for path, exc in app.state.server.catalog.misnamed():  # not served at all
        shown = os.fsencode(path).decode("utf-8", "backslashreplace")  # the bytes as they are
        err.write(f"warning: {shown} is not served:\n{exc}\n")
        err.flush()
    host, port = sock.getsockname()[:2]
    where = f"http://{f'[{host}]' if ':' in host else host}:{port}"
    guard = "campaign writes need the token" if settings.token else "no token: campaign writes are open"
    out.write(f"rulecraft serving on {where} (API docs: {where}/docs; {guard})\n")
    out.flush()
    uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False)).run(sockets=[sock])
    return 0
