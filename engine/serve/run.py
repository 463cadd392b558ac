"""`rulecraft serve`: the command's arguments made into `Settings`, and uvicorn started."""

from __future__ import annotations

import argparse
import os
import re
import socket
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import uvicorn

from ..errors import Diagnostic, InputError, RulecraftError
from ..frozen import replace
from ..state.stores import check_address, unkept
from ..syntax.positions import one_line
from .app import LOOPBACK, Settings, address_of, create_app, host_name, origin_of, token_problem

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
        problems.append(
            f"--rulesets {args.rulesets}: {'not a folder' if folder.exists() else 'no such folder'}"
        )
    if args.db is not None and (why := unkept(args.db)) is not None:  # every write kept nowhere (hunt 13l)
        problems.append(f"--db {args.db!r} is {why}: campaigns are kept in a file or in PostgreSQL")
    if any(item.partition("=")[0].strip() == "deadline" for item in args.limit):
        problems.append("--limit deadline: a request's deadline is --deadline SECONDS")
    problems += [
        f"--allow-host {name!r}: {wrong}" for name in args.allow_host if (wrong := _not_a_host(name))
    ]
    problems += [
        f"--origin {text!r}: give an origin alone, http:// or https:// and a name, with a port if it"
        " is not the scheme's own (https://dice.example.org)"
        for text in args.origin
        if origin_of(text) is None
    ]
    # a token no client could send (an empty one, or one with spaces a client's header loses) is
    # refused, not taken for no token or kept to refuse every client
    token, given_as = (args.token, "--token")
    if token is None:
        token, given_as = os.environ.get("RULECRAFT_TOKEN"), "$RULECRAFT_TOKEN"
    wrong = token_problem(token) if token is not None else None
    if wrong is not None:
        problems.append(f"{given_as} {wrong}")
    if problems:
        raise InputError([Diagnostic("RC407", p, None) for p in problems])
    if args.db is not None:  # an address no request could open is refused now, not 503 for each
        check_address(args.db)
    return Settings(
        rulesets=folder,
        db=args.db,
        token=token,
        allowed_hosts=allowed_hosts(args.allow_host, args.host),
        origins=tuple(origin_of(text) or "" for text in args.origin),
        workers=args.workers,
        queue=args.queue,
        max_body=args.max_body,
        deadline=args.deadline,
        limits=args.limits,
    )


_HOST = re.compile(r"[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?", re.ASCII | re.IGNORECASE)
"""A host name as a browser sends it (an international one in its `xn--` form)."""


def _not_a_host(name: str) -> str | None:
    """Why `name`, given to --allow-host, is no host name or address; None when it is one."""
    if name == "*" or _HOST.fullmatch(name) or address_of(name) is not None:
        return None
    return "give a host name or address alone, with no scheme, port or path ('*': any name)"


def unspecified(host: str) -> bool:
    """Whether `host` binds every address of the machine (`0.0.0.0`, `::`, or none named)."""
    address = address_of(host)
    return host == "" or (address is not None and address.is_unspecified)


def allowed_hosts(given: Sequence[str], host: str, bound: str | None = None) -> tuple[str, ...]:
    """The names the server answers to besides any IP address (`HostCheck`): `*` (any) when
    `given` holds it; else the loopback's, `--host` itself and the address it was `bound` to
    (none of them for `--host 0.0.0.0`), and each `given`. A server on every address answers to
    the machine's addresses and to names its operator gives: it had answered to any name, so a
    page anyone on the network opened could write its campaigns by DNS rebinding (a review)."""
    if "*" in given:
        return ("*",)
    named = [] if unspecified(host) else [host, *([bound] if bound else [])]
    return tuple(dict.fromkeys(host_name(h) for h in [*LOOPBACK, *named, *given]))


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


def in_serve_s_words(exc: RulecraftError) -> str:
    """`exc`, a served file's, as `serve` prints it at start: a file that did not compile within the
    deadline is told to raise `--deadline`, which bounds each compile of a served file as it bounds a
    request; the hint of every other command, `--limit deadline`, is one `serve` refuses (a hunt)."""
    return "\n".join((_compiled_late(d) if _is_deadline(d) else d).render() for d in exc.diagnostics)


def _compiled_late(d: Diagnostic) -> Diagnostic:
    """A served file's deadline passed, told as its compile's: at start no request is running."""
    said = d.message.replace("passed before the request ended", "passed before the file was compiled")
    return replace(d, message=said, hint=SERVED_COMPILE)


SERVED_COMPILE = (
    "the server compiles each of its files within its deadline for one request: make the file quicker"
    " to load, or raise that deadline with --deadline SECONDS"
)


def _is_deadline(d: Diagnostic) -> bool:
    return d.advice is not None and d.advice.kind == "limit" and d.advice.name == "deadline"


def serve(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    settings = settings_of(args)
    sock = listening(args.host, args.port)
    host, port = sock.getsockname()[:2]
    # the address `--host` was bound to is a name of the server's too (`--host` a name that resolves)
    settings = replace(settings, allowed_hosts=allowed_hosts(args.allow_host, args.host, host))
    app = create_app(settings)
    for path, exc in app.state.server.catalog.unloadable():  # served (its error, by name), but said now
        shown = one_line(str(path))
        err.write(
            f"warning: {shown} does not load; GET /api/rulesets leaves it out:\n{in_serve_s_words(exc)}\n"
        )
        err.flush()
    for path, name in app.state.server.catalog.shadowing():
        shown = one_line(str(path))
        err.write(f"note: {shown} is served as '{name}', in place of the shipped ruleset of that name\n")
    for path, exc in app.state.server.catalog.misnamed():  # not served at all
        shown = os.fsencode(path).decode("utf-8", "backslashreplace")  # the bytes as they are
        err.write(f"warning: {one_line(shown)} is not served:\n{exc}\n")
        err.flush()
    where = f"http://{f'[{host}]' if ':' in host else host}:{port}"
    guard = "campaign writes need the token" if settings.token else "no token: campaign writes are open"
    names = (
        "any Host name (--allow-host NAME limits them)"
        if settings.allowed_hosts == ("*",)
        else f"Host: an IP address or {', '.join(settings.allowed_hosts)} (--allow-host NAME adds one)"
    )
    out.write(f"rulecraft serving on {where} (API docs: {where}/docs; {guard}; {names})\n")
    out.flush()
    uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False)).run(sockets=[sock])
    return 0
