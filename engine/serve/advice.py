"""A diagnostic's hint worded for a client of the HTTP API, the playground's page or a bot: the one
place that says, in a request's terms, what a hint worded for the command line says in its flags
and commands (`--input skill=VALUE`, `rulecraft validate --lint-work N`, `pip install`).

The engine keeps a hint as the command line prints it, and beside it, where that wording names
something only the command line has, the advice as data (`engine.errors.Advice`); each kind of
advice is worded here, once, from that data. A hint with no advice fits every front end and is
given as it is. No FastAPI here: the pool's workers write diagnostics too."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from ..errors import Advice, AdviceKind, Diagnostic, forced_as

REQUEST = "POST /api/prob"
"""Where a client asks for a check's exact odds (the playground's Distribution)."""


def _give(a: Advice) -> str:
    where = {
        "check": "the inputs: the form's field, or a request's \"inputs\"",
        "action": "the action's inputs: \"inputs\" in the request (the playground's Act: name=value)",
        "campaign": 'the campaign\'s "params" in the request that makes it',
        "scene": "the scene request's \"inputs\" (the campaign's parameters)",
        "character": 'the character\'s "params" (in a scene, the party\'s entry in "parties")',
    }
    return f"set '{a.name}' in {where.get(a.of, 'the request')}"


def _json(value: str) -> object:
    """An example face or chit as JSON shows it: a whole number as a number, anything else as text."""
    return int(value) if re.fullmatch(r"-?[0-9]{1,30}", value) else value


def _force(a: Advice) -> str:
    example = json.dumps({a.name: [_json(v) for v in a.values]})
    per = "chit drawn" if a.of == "chit" else "die"
    return f'force one per {per} in order, then one per reroll or redraw: e.g. "force": {example}'


def _die(a: Advice) -> str:
    example = json.dumps({a.name: [_json(v) for v in a.values]})
    rolls = "a request that rolls it (a roll, an action)"
    return f'{a.lead}: {rolls} takes its {forced_as(a.of)} as "force": {example}; {a.note}'


def _characters(a: Advice) -> str:
    return f"characters: {', '.join(a.values) or 'none'}"


def _lint_work(a: Advice) -> str:
    return (
        f"{a.lead}. A request does not raise it: a server lints within its own budget and deadline. {a.note}"
    )


def _solve(a: Advice) -> str:
    odds = f"The exact odds with these inputs ({REQUEST}, the playground's Distribution)"
    return f"{a.lead}. {odds} show whether they solve. {a.note}"


def _unsure(a: Advice) -> str:
    then = "the linter would need more work than a server gives it to follow the rerolls and tell"
    return f"{a.lead}; {then}" if a.lead else then


def _migrate(a: Advice) -> str:
    then = "the server's operator migrates the campaign to its ruleset's file on the command line"
    return f"{a.lead}; {then}" if a.lead else then


def _keeper(a: Advice) -> str:
    if a.of == "store":
        then = (
            "the campaign store is the server's, which no request can change: the server's operator mends it"
        )
        return f"{then}; for them: {a.lead}" if a.lead else then
    then = "the ruleset's file is the server's, which a request cannot change: the server's operator fixes it"
    return f"{then}; for its author: {a.lead}" if a.lead else then


def _limit(a: Advice) -> str:
    then = f"a request cannot raise this bound: the server's operator sets it (Limits.{a.name})"
    return f"{a.lead}; {then}" if a.lead else then


WORDING: dict[AdviceKind, Callable[[Advice], str]] = {
    "give": _give,
    "force": _force,
    "die": _die,
    "cast": lambda a: f"name the character who plays '{a.name}' in \"cast\" ({_characters(a)})",
    "other": lambda a: f"name the character who is its '{a.name}' in \"others\" ({_characters(a)})",
    "lint_work": _lint_work,
    "solve": _solve,
    "unsure": _unsure,
    "extra": lambda a: f"the server's operator installs rulecraft's '{a.name}' extra",
    "migrate": _migrate,
    "reopen": lambda a: (
        "another request migrated the campaign's ruleset since this one opened it: send it again"
    ),
    "limit": _limit,
    "keeper": _keeper,
    "retry": lambda a: (  # a read meets it too (a table locked from outside): worded for both
        "another request or process held a lock on the campaign store for longer than this one"
        " waits: nothing was written by it; send the request again in a moment (Retry-After)"
    ),
    "full": lambda a: (
        "the campaign store's database server had no connection free: nothing was written; send the"
        " request again in a moment (Retry-After); the server's operator may allow it more connections"
    ),
}
"""Every kind of advice in a request's terms: the only place the API words one."""


def api_hint(d: Diagnostic) -> str | None:
    """`d`'s hint for a client of the API: its advice worded here, else its hint as it is."""
    return d.hint if d.advice is None else WORDING[d.advice.kind](d.advice)
