"""Campaigns over HTTP: the same `Campaign` the CLI's `campaign` commands use, in the store
`--db` names (opened through `engine.api.open_store`, the one place a store target is read).
Each request opens the store, does one thing in one transaction, and closes it, so several
server processes can share one database. Writes need the server's token when it has one."""

from __future__ import annotations

import hmac
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from fastapi import APIRouter, Depends, Query, Request, Response

from ..api import (
    Ruleset,
    default_db,
    load,
    open_campaign,
    open_store,
    read_kept,
    stored_reference,
    text_reference,
)
from ..errors import NOT_LOADING, Diagnostic, RulecraftError
from ..runtime.limits import Limits
from ..runtime.work import own_deadlines
from ..state.campaign import Campaign
from ..state.records import MOST_SEQ, Event, Header, Store, Window, whole
from ..state.stores import is_postgres, postgres_url
from ..syntax.resources import shipped_rulesets
from ..tools.render import event_json, ruleset_shown
from . import jobs
from .advice import api_hint
from .app import Server, arrived, operators, server_of, the_operators
from .body import OnceRoute, before_body
from .models import (
    ActRequest,
    BeginRequest,
    CampaignCreate,
    CampaignRollRequest,
    CampaignSceneRequest,
    CampaignSummary,
    Changed,
    EventModel,
    JoinRequest,
    UndoRequest,
)
from .problems import ApiError


@before_body
def require_token(request: Request) -> None:
    """401 unless the request carries the server's token (compared in constant time); run before
    the body is read, so a client without it learns nothing but this."""
    token = server_of(request).settings.token
    if token is None:
        return
    given = request.headers.get("authorization", "")
    scheme, _, value = given.partition(" ")
    bearer = scheme.lower() == "bearer"
    if not (bearer and hmac.compare_digest(value.strip().encode(), token.encode())):
        # a token sent but not this server's is told so: it had the hint to send the header it
        # had sent (hunt 13o); which way it differs is not said
        raise ApiError.of(
            401,
            "RC407",
            "the token sent is not this server's"
            if bearer
            else "this server's campaign writes need its token",
            "ask the server's operator for its token"
            if bearer
            else "send the header 'Authorization: Bearer <token>'",
            **{"WWW-Authenticate": "Bearer"},
        )


router = APIRouter(prefix="/api/campaigns", tags=["campaigns"], route_class=OnceRoute)
TOKEN = [Depends(require_token)]
"""What every write route depends on."""


STORE = "the server's campaign store"
"""What an error tells a client the store is: never its path or address, which are the
operator's (a file's place on the server, a database URL with its user)."""

_MIGRATE = (
    "the server's operator migrates it to the file as it is now on the command line (any change "
    "with --migrate), or puts the old text back in the file"
)
"""What lets a campaign whose ruleset file changed be changed again: the operator's alone."""

CHANGED = f"the ruleset's file on the server was changed since the campaign was made: {_MIGRATE}"
"""RC904's hint over HTTP for a change refused, where the CLI's (--migrate, the file put back or
moved away) cannot be followed by a client."""

READ = f"what is stored is read all the same; to change the campaign, {_MIGRATE}"
"""RC904's hint over HTTP for a read's warning: the read was answered, only a change is refused."""

STORE_WAIT = 10.0
"""The most seconds a campaign write waits for another writer of the store (the stores' own)."""

NO_STATE = (
    "the ruleset's file on the server was changed and no longer declares a 'state:', so the "
    "campaign cannot be migrated to it: the server's operator puts the old text back in the file"
)
"""RC904's hint over HTTP for a ruleset changed to one without `state:` (no migration reaches it),
for a read's warning as for a change refused."""


@contextmanager
def _store(server: Server) -> Iterator[Store]:
    """The store, open for one request; an error, raised opening it or using it, names it
    `STORE`, never by its path or URL."""
    store: Store | None = None
    try:
        # a write waits for another writer no longer than a request may take (it waited the
        # store's 10 s under --deadline 5, past a proxy's timeout: hunt 13l), and no longer than
        # the request has left when it begins to wait (`wait_within`: it waited the whole
        # deadline from then, hunt 13zq, or from the store's opening, before the work, 13zr)
        store = open_store(server.settings.db, wait=min(STORE_WAIT, server.settings.deadline))
        yield store
    except RulecraftError as exc:
        exc.diagnostics = tuple(_hidden(server, d) for d in exc.diagnostics)
        raise
    finally:
        if store is not None:
            store.close()


def _unplaced(d: Diagnostic, ruleset: str) -> Diagnostic:
    """`d` without the place of a campaign's ruleset file (`ruleset`, its stored reference) as
    stored and as named from the working folder (`api.stored_reference`: a server started in a
    folder above it named it so, which `_hidden`, seeing a relative path, let through; review
    AF): its file name alone, in a span's file and in the words."""
    shown = _file_alone(ruleset)
    if shown == ruleset:  # a shipped ruleset's name, or a file's name alone: no place
        return d
    forms = {ruleset, str(stored_reference(ruleset))} - {shown}  # a file's name alone is no place
    if d.span is not None and d.span.file in forms:
        d = _file_named(d, shown)
    # a path, not the end of a longer one
    return _replaced(d, dict.fromkeys(forms, shown), lambda p, _: rf"(?<![\w./-]){p}(?![\w./-])")


def _file_alone(reference: str) -> str:
    """A campaign's stored ruleset reference (`api._found_again`) without its place: a shipped
    ruleset's name as it is, a file's name alone, whether the path is absolute or relative (a
    campaign made before references were kept absolute, or stored by another rulecraft)."""
    return reference if reference in shipped_rulesets() else Path(reference).name


def _file_named(d: Diagnostic, shown: str) -> Diagnostic:
    """`d` with its span's file named `shown` (in `file` and `text` alike)."""
    assert d.span is not None
    return replace(d, span=replace(d.span, source=replace(d.span.source, name=shown)))


def _replaced(d: Diagnostic, places: Mapping[str, str], bounded: Callable[[str, str], str]) -> Diagnostic:
    """`d` with each place in `places` found in its message and hint (the longest first: a path
    before the folders it is in) replaced by what it is shown as; `bounded(escaped, shown)` is
    the pattern a place is found by."""
    message, hint = d.message, d.hint
    for place in sorted(places, key=len, reverse=True):
        found = re.compile(bounded(re.escape(place), places[place]))
        message = found.sub(places[place], message)
        hint = hint and found.sub(places[place], hint)
    return replace(d, message=message, hint=hint)


def _hidden(server: Server, d: Diagnostic) -> Diagnostic:
    """`d` without the store's place: its path as given, as the store writes it (`Path` drops a
    `./` or a trailing `/`) and resolved, and each folder above it ("its folder"); its URL whole or
    with the password masked as the store shows it. Nor a campaign's ruleset's place, where the
    server does not serve it (a file given on the command line, or in a served folder since
    changed): its file name alone, as every route names a ruleset's file (named from the working
    folder, `_unplaced`). An unknown campaign's hint (`RC901`) names the store as its message does,
    not as "this file" or "this database", which a client cannot see. And, for a ruleset changed
    on disk (`RC904`), a hint the API can act on."""
    target = str(server.settings.db if server.settings.db is not None else default_db())
    places: dict[str, str] = {}
    if is_postgres(target):
        from ..state.postgres import redact

        url = postgres_url(target)  # as the store is given it: the scheme in lower case
        places = {target: STORE, url: STORE, redact(url): STORE}
    elif target:
        given = Path(target)
        for path in (given, given.absolute(), given.resolve()):
            places.setdefault(str(path), STORE)
            for folder in path.parents:
                if len(str(folder)) > 1:  # not '/' or '.', which any text may hold
                    places.setdefault(str(folder), f"{STORE}'s folder")
        places[target] = STORE
    if d.span is not None and Path(d.span.file).is_absolute():  # a ruleset the server does not serve
        shown = ruleset_shown(d.span.file)  # its file name alone, in `file`, `text` and the words
        places.setdefault(d.span.file, shown)
        d = _file_named(d, shown)
    # a folder alone, not as the start of another path (a ruleset's beside the store)
    d = _replaced(d, places, lambda p, to: p + ("" if to == STORE else r"(?![\w./-])"))
    if is_postgres(target) and d.code == "RC903":  # what is left of its URL in the driver's words
        # (a store's own error alone: a campaign, a check or a hint named like the host, the user
        # or the database — `postgres`, `db` — is no part of the address, review AS)
        d = _unaddressed(d, postgres_url(target))
    if d.code == "RC901" and d.hint:  # the store's own word for itself: "this file", "this database"
        d = replace(d, hint=re.sub(r"\bthis (?:file|database)\b", STORE, d.hint))
    if d.code == "RC904":  # the API's words already, true for the case
        return replace(d, hint=_changed_hint(d), advice=None)
    return d


LIBPQ_SERVER = re.compile(
    r'connection to server (?:at "[^"]*"(?: \([^)]*\))?, port \d+|on socket "[^"]*") failed'
)
"""How libpq names the server it could not reach: its host as given, its address, its port."""


def _unaddressed(d: Diagnostic, url: str) -> Diagnostic:
    """`d` without the parts of the store's PostgreSQL URL that the driver's words hold: its host
    names and addresses (`failed to resolve host 'db.internal.example'`, libpq's `connection to
    server at "h" (10.0.0.5), port 5432 failed`), and its user and database where quoted. The
    URL whole was hidden, but a 503 while the database was down named its host (a hunt); the
    operator's log and command line still name them."""
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    hosts = {_host(h) for h in parts.netloc.rpartition("@")[2].split(",")}
    hosts.update(h for key in ("host", "hostaddr") for v in query.get(key, []) for h in v.split(","))
    named = {unquote(parts.netloc.rpartition("@")[0].partition(":")[0]), *query.get("user", [])}
    databases = {unquote(parts.path.lstrip("/")), *query.get("dbname", [])}

    def hidden(text: str) -> str:
        # a campaign named like the host, user or database ('db', 'postgres') is left as it is
        # named: `in campaign 'db', event 3` of a damaged store (review AT)
        pieces = _CAMPAIGN_NAMED.split(text)
        return "".join(piece if i % 2 else masked(piece) for i, piece in enumerate(pieces))

    def masked(text: str) -> str:
        text = LIBPQ_SERVER.sub(f"connection to {STORE} failed", text)
        for host in sorted(hosts - {""}, key=len, reverse=True):
            found = rf"(?:host )?([\"']?)(?<![\w.:-]){re.escape(host)}(?![\w.-])\1"
            text = re.sub(found, "the store's host", text)
        for shown, kept in (("the store's user", named), ("the store's database", databases)):
            for word in kept - {""}:
                text = re.sub(rf"([\"']){re.escape(word)}\1", shown, text)
        return text

    return replace(d, message=hidden(d.message), hint=d.hint and hidden(d.hint))


_CAMPAIGN_NAMED = re.compile(r"(campaign '(?:[^'\\]|\\.)*')")
"""A campaign as a store's message names it, kept whole by `_unaddressed`."""


def _host(given: str) -> str:
    """A host of a URL's address part, without its port (`h:5432`, `[::1]:5432`)."""
    given = unquote(given)
    if given.startswith("["):
        return given[1:].partition("]")[0]
    return given.partition(":")[0]


def _changed_hint(d: Diagnostic) -> str | None:
    """RC904's hint over HTTP, worded for its case (one hint for all told a client whose file
    changed to send the request again, and a read's warning to send it again or migrate; found
    by helper A2): its ruleset migrated by another request meanwhile (`reopen`, as every advice
    is worded); its file changed to one with no `state:`, which nothing migrates to (no
    advice); else its file changed, told as a read's warning or a change's refusal."""
    if d.advice is None:
        return NO_STATE
    if d.advice.kind != "migrate":
        return api_hint(d)
    return READ if d.severity == "warning" else CHANGED


def _names(request: Request) -> Mapping[str, Path]:
    """The served rulesets (`Catalog.names`), listed once per request and kept on it: each
    listing globs the served folder, and a campaign's request needs them two or three times."""
    found: Mapping[str, Path] | None = getattr(request.state, "rulesets", None)
    if found is None:
        found = request.state.rulesets = server_of(request).catalog.names()
    return found


@contextmanager
def _campaign(
    request: Request, name: str, read_only: bool = False, solves: bool = False
) -> Iterator[Campaign]:
    """The campaign, played with the ruleset the server has compiled already when it names one
    the server serves (a changed text is still `RC904`, or, `read_only`, the campaign's warning,
    read with the text it keeps: `_warnings`); otherwise with the text it keeps (`_kept`). A
    request that `solves` (an action, a roll, a scene, a replay: any may be an exact solve) waits
    for its turn first, and runs within what is left of its deadline (`Server.campaign_turn`)."""
    server = server_of(request)
    turn = server.campaign_turn(arrived(request)) if solves else nullcontext(server.limits)
    with turn as limits, _opened(request, server, name, read_only, limits) as campaign:
        yield campaign


@contextmanager
def _opened(
    request: Request, server: Server, name: str, read_only: bool, limits: Limits
) -> Iterator[Campaign]:
    names = _names(request)
    with _store(server) as store:
        header = store.header(name)
        reference = header.ruleset
        played = _played(names, reference)
        try:
            try:
                ruleset = server.catalog.file(played) if played is not None else _kept(header, limits)
            except RulecraftError as exc:  # a served file broken since: read with the text it keeps
                if played is None:  # the text kept is what is broken: nothing else to read it with
                    raise
                opened = read_kept(store, name, exc, limits, read_only=read_only)
            else:
                opened = open_campaign(name, store=store, ruleset=ruleset, limits=limits, read_only=read_only)
            yield opened
        except RulecraftError as exc:  # its file's place, where the server does not serve it
            exc.diagnostics = tuple(_unplaced(d, reference) for d in exc.diagnostics)
            if isinstance(exc, NOT_LOADING):  # its file no longer loads: the operator's to fix
                the_operators(exc)
            raise


def _kept(header: Header, limits: Limits) -> Ruleset | None:
    """What the server plays a campaign of a ruleset it does not serve with: the text the
    campaign keeps (None where its reference names that text already), named by its file's name
    alone, never the file its stored reference names. A stored row is no request, but it is not
    the operator's word either: anyone who could write to the database could name any file there,
    and its load error showed that file's first line to every client (`/etc/passwd`: hunt 13o)."""
    if text_reference(header.ruleset):
        return None
    return load(header.ruleset_text, limits=limits, name=_file_alone(header.ruleset))


def _warnings(request: Request, campaign: Campaign) -> list[dict[str, Any]]:
    """What a read answers beside what it read, as the command line's `show` and `replay` print
    it on standard error: RC904 for a ruleset file changed since, or the error of one broken
    since, worded as every error is."""
    server = server_of(request)
    reference = campaign.header.ruleset
    # a read's warnings are RC904 or the diagnostics of its file's load error (`Campaign.warnings`):
    # that file is the operator's to fix
    told = [d if d.code == "RC904" else operators(d) for d in campaign.warnings]
    return jobs.diagnostics_json([_hidden(server, _unplaced(d, reference)) for d in told])


def _served(request: Request, reference: str) -> str:
    """A campaign's stored ruleset as the API names it: a served ruleset (of the catalog's, the
    request's `_names`) by its name, the one a request gives; any other file by its file name
    alone (where it lies is the operator's), as its errors name it (`_unplaced`): a relative path
    was shown whole, in `GET /api/campaigns` and every state (found by a hunt). A shipped ruleset a
    served file shadows is named by its name still."""
    names = _names(request)
    if "." not in reference and reference in names:  # a name that no path (x.yaml) can be
        return reference
    naming: dict[str, str] | None = getattr(request.state, "naming", None)
    if naming is None:  # made only where a path must be matched: it resolves every served file
        naming = request.state.naming = _naming(names)
    shown = naming.get(reference)
    if shown is None:  # every shipped name is one of `_names`: a file, by its name alone
        shown = naming[reference] = Path(reference).name  # kept: many campaigns share a file
    return shown


def _naming(names: Mapping[str, Path]) -> dict[str, str]:
    """Each way a campaign may store a served ruleset (its name, its path as listed, its resolved
    path: `api._found_again` stores a file by the latter) to the name the API gives it, the
    first listed winning, as `_served` read them in turn. Made once per request: resolving every
    path, and listing the shipped rulesets' folder, for every campaign took 20 s to list
    100,000."""
    naming: dict[str, str] = {}
    for name, path in names.items():
        for way in (name, str(path), _resolved(path)):
            if way is not None:
                naming.setdefault(way, name)
    return naming


def _resolved(path: Path) -> str | None:
    """`path` resolved, or None where it cannot be (a link that loops: Python 3.11's `resolve`
    raises RuntimeError; a folder that cannot be read): that file is then found by its path as
    listed, and every other campaign is named as before (one looping link in the served folder
    was a 500 for every campaign's state once the table was made for all: review AN)."""
    try:
        return str(path.resolve())
    except (OSError, RuntimeError):
        return None


def _played(names: Mapping[str, Path], reference: str) -> Path | None:
    """The file the server compiles for a campaign's stored ruleset: a shipped one by its name,
    though a served file of that name shadows it (which had every change to a campaign of a
    shipped ruleset `NAME` refused as its file changed, RC904, once a `NAME.yaml` was put in the
    served folder: found by a hunt); a served file by its path. None for any other file, which
    `open_campaign` finds by itself."""
    shipped = shipped_rulesets().get(reference)
    if shipped is not None:
        return shipped
    for path in names.values():  # a file is stored by its resolved path (`api._found_again`)
        if reference in (str(path), _resolved(path)):
            return path
    return None


def _state(request: Request, campaign: Campaign, at: Event | None = None) -> dict[str, Any]:
    """`Campaign.show`, its ruleset named as the API names it (`_served`)."""
    shown = campaign.show(at=at)
    return {**shown, "ruleset": _served(request, shown["ruleset"])}


def _changed(
    request: Request, campaign: Campaign, event: Event, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The event and the state after it, from the event itself: once it is committed, nothing
    else is read (a read that met a busy store would report a change that was made as failed).
    An `extra` that is None is left out (`roll` of an action that rolled nothing): the routes
    answer with the fields given (`response_model_exclude_unset`), so the event keeps every one
    of its fields, `undoes` `null` too, as the log and `/scene` give it."""
    given = {k: v for k, v in (extra or {}).items() if v is not None}
    return {"event": event_json(event), "state": _state(request, campaign, event), **given}


LIST_PAGE = 1000
"""The most campaigns one answer of `GET /api/campaigns` lists (and how many unless asked for
fewer): 100,000 took 2 s and 5 MB to list whole."""


@router.get("", response_model=list[CampaignSummary])
def list_campaigns(
    request: Request,
    response: Response,
    after: str | None = Query(None, description="only campaigns named after this"),
    limit: int = Query(LIST_PAGE, ge=1, le=LIST_PAGE, description="at most this many"),
) -> list[dict[str, Any]]:
    """The campaigns in the store, by name, a page at a time: at most `limit` (1,000 unless fewer
    are asked for). A full page's `Link` header names the next (`rel="next"`)."""
    with _store(server_of(request)) as store:
        page = store.names(after, limit)
    if len(page) == limit:
        url = request.url.include_query_params(after=page[-1][0])
        response.headers["Link"] = f'<{quote(url.path)}?{url.query}>; rel="next"'
    return [{"name": n, "ruleset": _served(request, r), "events": k} for n, r, k in page]


@router.get("/{name}")
def show_campaign(name: str, request: Request) -> dict[str, Any]:
    """A campaign's state: the table's and each character's."""
    with _campaign(request, name, read_only=True) as campaign:
        return {**_state(request, campaign), "warnings": _warnings(request, campaign)}


def _page_links(
    request: Request, name: str, page: list[Event], full: bool, newest: bool, before: int | None
) -> dict[str, str]:
    """A `/log` page's `Link` header (RFC 8288, addresses relative to the server): `next`, the
    events after it, where there may be more (a `full` page from the oldest end, of `limit`
    events or cut by `LOG_PAGE_CHARS` with more after it; a page ended at `before`), and `prev`,
    the page of events before it, where it does not start the log."""
    url = request.url
    path = _log_path(url.path, name)
    links = []
    if page and not newest and full:
        links.append((url.include_query_params(after=page[-1].seq), "next"))
    if page and newest and before is not None:
        links.append(
            (
                url.remove_query_params("before").include_query_params(after=page[-1].seq, newest="false"),
                "next",
            )
        )
    if page and page[0].seq > 1:
        links.append(
            (url.remove_query_params("after").include_query_params(before=page[0].seq, newest="true"), "prev")
        )
    if not links:
        return {}
    return {"Link": ", ".join(f'<{path}?{u.query}>; rel="{rel}"' for u, rel in links)}


def _log_path(decoded: str, name: str) -> str:
    """The `/log` address of campaign `name`, percent-encoded as RFC 8288 and HTTP take it:
    written as it was decoded, a name outside Latin-1 (`Город`) failed the response (500), `café`
    went out as a raw byte, `a%2Fb` linked to `a/b` and a space or `<>"` broke the header."""
    tail = f"/{name}/log"
    prefix = decoded[: -len(tail)] if decoded.endswith(tail) else decoded.rsplit("/", 2)[0]
    return f"{quote(prefix)}/{quote(name, safe='')}/log"


LOG_PAGE = 1000
"""The most events one answer of `/log` holds (and how many it holds unless asked for fewer): a
stranger's read of a long log is a page, where the whole of 200,000 events took 18 s
and 59 MB."""
LOG_PAGE_CHARS = 4_000_000
"""About the most characters of stored JSON (events' data and states) one answer of `/log`
holds, but always one event: 19 long scenes (a 4.6 MB trace each) were answered as one page of
76 MB in 31 s, past the deadline, and anyone may read a log. A page cut by it links to the next
as a page cut by `limit` does."""


@router.get("/{name}/log", response_model=list[EventModel])
def campaign_log(
    name: str,
    request: Request,
    response: Response,
    after: int = Query(0, ge=0, le=MOST_SEQ, description="only events numbered after this"),
    before: int | None = Query(None, ge=1, le=MOST_SEQ + 1, description="only events numbered before this"),
    limit: int = Query(LOG_PAGE, ge=1, le=LOG_PAGE, description="at most this many events"),
    newest: bool = Query(False, description="the newest `limit` of them, not the oldest"),
) -> list[dict[str, Any]]:
    """The campaign's events, oldest first, a page at a time: at most `limit` (1,000 unless fewer
    are asked for) and about `LOG_PAGE_CHARS` of stored JSON, one event at least. A full page's
    `Link` header names the next (`rel="next"`, the events after it) and one not at the log's
    start the page before it (`rel="prev"`)."""
    with _store(server_of(request)) as store:
        window = Window(after, before, limit, newest, most_chars=LOG_PAGE_CHARS)
        page = whole(store.events(name, window), name)
        full = len(page) == limit
        if page and not newest and not full:  # cut by its size, or the log's end: which?
            heads = Window(page[-1].seq, before, 1, data=False, state=False)
            full = bool(store.events(name, heads))
    response.headers.update(_page_links(request, name, page, full, newest, before))
    return [event_json(e) for e in page]


@router.post("", status_code=201, dependencies=TOKEN)
def create_campaign(body: CampaignCreate, request: Request) -> dict[str, Any]:
    """Make a campaign of a served ruleset, with its parameters and first characters."""
    server = server_of(request)
    known = _names(request)
    # 404 with the nearest name, before anything is written; compiled as every route shows it, by
    # its file name alone (where it lies on the server is the operator's)
    rs = server.catalog.named(body.ruleset, known)
    path = known[body.ruleset]
    # kept as `new_campaign` keeps it, to be found again: a shipped name, else the file's full path
    source = body.ruleset if shipped_rulesets().get(body.ruleset) == path else str(path.resolve())
    with _store(server) as store:
        campaign = Campaign.create(
            store,
            body.name,
            rs.model,
            rs.document.source.text,
            body.params,
            body.characters,
            server.limits,
            source=source,
        )
        with own_deadlines():  # made, so answered: its views fitted one budget before it was written
            return _state(request, campaign)


@router.post("/{name}/join", response_model=Changed, response_model_exclude_unset=True, dependencies=TOKEN)
def join(name: str, body: JoinRequest, request: Request) -> dict[str, Any]:
    """A character joins the campaign."""
    with _campaign(request, name) as campaign:
        return _changed(request, campaign, campaign.join(body.character, params=body.params))


@router.post("/{name}/act", response_model=Changed, response_model_exclude_unset=True, dependencies=TOKEN)
def act(name: str, body: ActRequest, request: Request) -> dict[str, Any]:
    """Take an action: its preconditions, its roll, its effects, one event."""
    with _campaign(request, name, solves=True) as campaign:
        acted = campaign.act(
            body.action,
            body.character,
            seed=body.seed,
            forced=body.force or None,
            policy=jobs.policy_of(body.policy),
            others=body.others,
            inputs=body.inputs,
            trace=body.trace,
        )
        roll = acted.result.as_json() if acted.result is not None else None
        return _changed(request, campaign, acted.event, {"roll": roll})


@router.post("/{name}/roll", response_model=Changed, response_model_exclude_unset=True, dependencies=TOKEN)
def roll(name: str, body: CampaignRollRequest, request: Request) -> dict[str, Any]:
    """Roll a check at the table and record it (the state is unchanged)."""
    with _campaign(request, name, solves=True) as campaign:
        event, result = campaign.roll(
            body.check,
            seed=body.seed,
            forced=body.force or None,
            policy=jobs.policy_of(body.policy),
            inputs=body.inputs,
            trace=body.trace,
        )
        return _changed(request, campaign, event, {"roll": result.as_json()})


@router.post("/{name}/begin", response_model=Changed, response_model_exclude_unset=True, dependencies=TOKEN)
def begin(name: str, body: BeginRequest, request: Request) -> dict[str, Any]:
    """A period begins: what it resets is reset."""
    with _campaign(request, name) as campaign:
        return _changed(request, campaign, campaign.begin(body.period))


@router.post("/{name}/undo", response_model=Changed, response_model_exclude_unset=True, dependencies=TOKEN)
def undo(name: str, request: Request, body: UndoRequest | None = None) -> dict[str, Any]:
    """Reverse the latest change (an undo is appended; nothing is deleted). Its body, if any, is
    `{}` or `{"seen": N}`, the newest event the client has read (409 when the log has grown past it)."""
    with _campaign(request, name) as campaign:
        return _changed(request, campaign, campaign.undo(body.seen if body is not None else None))


@router.post("/{name}/scene", dependencies=TOKEN)
def scene(name: str, body: CampaignSceneRequest, request: Request) -> dict[str, Any]:
    """Play a scene from the campaign's state and keep where it ends, as one event."""
    from ..scenes.campaign import play_in_campaign

    with _campaign(request, name, solves=True) as campaign:
        event, played = play_in_campaign(
            campaign,
            body.scene,
            body.cast,
            seed=body.seed,
            policy=jobs.policy_of(body.policy),
        )
        return {
            "event": event_json(event),
            "scene": played.as_json(),
            "state": _state(request, campaign, event),
        }


@router.get("/{name}/replay")
def replay(name: str, request: Request) -> dict[str, Any]:
    """Recompute every state from the log and compare it with the stored one (RC909 on a difference)."""
    with _campaign(request, name, read_only=True, solves=True) as campaign:
        state, count = campaign.replay_counted()
        told = _warnings(request, campaign)
        return {"ok": True, "events": count, "state": state, "warnings": told}
