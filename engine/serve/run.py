"""`rulecraft serve`: the command's arguments made into `Settings`, and uvicorn started."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TextIO

import uvicorn

from ..errors import Diagnostic, InputError
from .app import Settings, create_app


def settings_of(args: argparse.Namespace) -> Settings:
    """The command line's settings, each refused in the CLI's words when it makes no sense."""
    problems = []
    if args.workers < 1:
        problems.append("--workers must be at least 1")
    if args.queue < 0:
        problems.append("--queue must be at least 0")
    if args.max_body < 1:
        problems.append("--max-body must be at least 1 byte")
    if not (args.deadline > 0 and args.deadline < 3600):
        problems.append("--deadline must be more than 0 and under 3600 seconds")
    if not 0 <= args.port <= 65535:
        problems.append("--port must be 0..65535")
    folder = Path(args.rulesets) if args.rulesets else None
    if folder is not None and not folder.is_dir():
        problems.append(f"--rulesets {args.rulesets}: no such folder")
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
    )


def serve(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    settings = settings_of(args)
    app = create_app(settings)
    where = f"http://{args.host}:{args.port}"
    guard = "campaign writes need the token" if settings.token else "no token: campaign writes are open"
    out.write(f"rulecraft serving on {where} (API docs: {where}/docs; {guard})\n")
    out.flush()
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", access_log=False)
    return 0
