"""`create_app`: the FastAPI app of `rulecraft serve` — its settings, the rulesets it serves,
the limits every evaluation runs under, the bounded pool for exact solves, the names it
answers to and the request-size guard, the one error body, the routers and the static
playground."""

from __future__ import annotations

import hashlib
import ipaddress
import os
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, MutableMapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import parse_qsl, urlsplit

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..api import Ruleset, load, load_source
from ..errors import NOT_LOADING, Advice, Diagnostic, LoadError, RulecraftError, did_you_mean
from ..frozen import field, frozen, replace
from ..runtime.cache import MB, BoundedCache
from ..runtime.limits import Limits
from ..runtime.work import own_deadlines, request_deadline
from ..syntax.cachedir import digest, read_regular, settled, stamp
from ..syntax.positions import SourceFile
from ..syntax.resources import is_listed_ruleset, shipped_rulesets
from .body import SafeJSONResponse, Unreadable
from .jobs import MAX_PATH, MAX_TEXT, cut, diagnostics_json
from .problems import ApiError, api_error
from .workers import Job, Pool, busy, late

STATIC = Path(__file__).resolve().parent / "static"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


@frozen
class Settings:
    """What the operator decides: which rulesets, which campaign store, the token, the bounds."""

    rulesets: Path | None = None
    """A folder of rulesets (`*.yaml` and `*.yml`, the suffix in any case, and neither a folder nor
    a hidden name: `is_listed_ruleset`) served beside the shipped ones (by file stem)."""
    db: str | None = None
    """The campaign store, as `engine.api.open_store` takes it (None: the default file)."""
    token: str | None = None
    """When set, campaign writes need `Authorization: Bearer <token>`: one a client can send
    (`token_problem`)."""
    allowed_hosts: tuple[str, ...] = ("*",)
    """The names a request's `Host` may give (any port; `HostCheck`), `*` for any: `rulecraft
    serve` gives the loopback's and its `--host` (`run.allowed_hosts`), so that a web page whose
    own name a DNS rebinding points at this machine is refused; an app embedded elsewhere checks
    none unless given some, as Starlette's `TrustedHostMiddleware` given none checks none."""
    origins: tuple[str, ...] = ()
    """Origins the server's page is shown under by a proxy that sends the server a `Host` of its
    own (`https://dice.example.org`, each as `origin_of` writes it): a write or computation whose
    `Origin` is one of them exactly is the page's own (`CrossSite`). `rulecraft serve` gives each
    `--origin URL`. A proxy that passes the public name on in `Host` needs none."""
    workers: int = 2
    """Processes that run exact solves."""
    queue: int = 32
    """Solves that may wait for a worker; one more is refused with 503 and Retry-After."""
    max_body: int = 1024 * 1024
    """Bytes one request body may have (413 past it, found while the body streams in)."""
    deadline: float = 5.0
    """Seconds one request may take, waiting for a worker included."""
    limits: Limits = field(default_factory=Limits)
    """The engine's bounds for every evaluation; its `deadline` is replaced by `deadline`."""
    cached_sources: int = 64
    """Rulesets sent as text kept compiled, by content hash (the least recently used goes first)."""
    cached_bytes: int = 128 * MB
    """What they may hold together, as `Ruleset.held_bytes` estimates it (their code and text, and
    their caches, weighed again after each roll): kept by count alone, 64 texts of 700 checks held
    650 MB (found by a hunt), and by code and text alone, each one's caches could grow to 256 MiB
    as it was rolled."""

    def __post_init__(self) -> None:
        if self.workers < 1 or self.queue < 0 or self.max_body < 1 or not self.deadline > 0:
            raise ValueError("workers >= 1, queue >= 0, max_body >= 1 and deadline > 0")
        wrong = token_problem(self.token) if self.token is not None else None
        if wrong is not None:
            raise ValueError(f"a token is printable ASCII with no space at either end; this one {wrong}")


def token_problem(token: str) -> str | None:
    """Why no client could send `token`, in words that follow its name; None when one can. Empty
    (it would be no token at all), white space at either end (a client's header is read without
    it, so `'abc '` refused every client), or not printable ASCII (a header is read as Latin-1
    and clients send UTF-8, so `pässword` never matched; browsers refuse anything past Latin-1:
    a review)."""
    if token == "":
        return "is empty: give a token, or none for campaign writes open to all"
    if token != token.strip():
        return "begins or ends with white space, which no client can send: give it without"
    if not (token.isascii() and token.isprintable()):
        return (
            "holds a character that is not printable ASCII, which clients send apart:"
            " give a token of letters, digits and punctuation"
        )
    return None


_RENAME = "rename the file to a UTF-8 name: a request names a served ruleset by its file name"


def _is_text(name: str) -> bool:
    """Whether a file name read from the file system is text (no byte UTF-8 cannot decode)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def the_operators(exc: RulecraftError) -> RulecraftError:
    """`exc`, the error of a ruleset file on the server that does not load, each diagnostic of it
    with no advice of its own given the advice that the server's operator fixes the file (its
    hint, kept as that advice's `lead`, is for the file's author: "finish its last item and close
    the list with ']'" was a client's `api_hint`, which no request can do; found by a hunt). A
    limit's own advice (the operator sets it) is kept."""
    exc.diagnostics = tuple(operators(d) for d in exc.diagnostics)
    return exc


def operators(d: Diagnostic) -> Diagnostic:
    """`d`, about a ruleset file on the server, with the advice that its operator fixes it."""
    return d if d.advice is not None else replace(d, advice=Advice("keeper", lead=d.hint or ""))


class _Read(NamedTuple):
    """A ruleset file as it was compiled: its `stamp` and content's digest then, and when it was
    read."""

    stamp: tuple[int, ...]
    content: bytes
    read_ns: int
    ruleset: Ruleset


def _content(path: Path, max_bytes: int) -> bytes:
    """The digest of a file's content (empty if it cannot be read: its load says why), read as
    `read_source` reads it (`read_regular`: only a regular file, never waited on, and no more
    than `max_bytes` + 1 of it). It was read whole first, so a named pipe in the folder held
    `serve` at its start, and each listing, in `open` for good, and a 1 GiB file cost 3.3 s and
    1.1 GB on every request (a hunt)."""
    try:
        found = read_regular(path, max_bytes)
    except OSError:
        return b""
    return b"" if found is None else digest(found[0])


class Catalog:
    """The rulesets a request may name, and those it sends as text, compiled once each."""

    def __init__(self, settings: Settings, limits: Limits) -> None:
        self.settings = settings
        self.limits = limits
        self._named: dict[Path, _Read] = {}
        self._sources = BoundedCache(settings.cached_sources, settings.cached_bytes)
        self._lock = threading.Lock()

    def names(self) -> dict[str, Path]:
        """Every ruleset by name: the shipped ones, then the served folder's, which win: a request
        naming a shipped ruleset `NAME` gets the folder's `NAME.yaml` (`shadowing` lists them when
        `serve` starts), and a campaign made with the shipped one keeps playing it, told apart by its
        stored reference (`routes_campaigns._played`)."""
        found = dict(shipped_rulesets())
        folder = self.settings.rulesets
        if folder is not None and folder.is_dir():
            try:
                listed = sorted(folder.iterdir())
            except OSError:  # a folder that cannot be read serves none, as its glob did
                listed = []
            for path in listed:
                # as `validate DIR` reads a folder (no folder, no hidden name); a name that is not
                # UTF-8 text could not be named in a request, nor listed in JSON (`misnamed`)
                if is_listed_ruleset(path) and _is_text(path.name):
                    found[path.stem] = path
        return found

    def shadowing(self) -> list[tuple[Path, str]]:
        """Each file of the served folder served by a shipped ruleset's name, in its place, and
        that name: what `serve` names when it starts."""
        shipped = shipped_rulesets()
        return [(path, name) for name, path in self.names().items() if shipped.get(name, path) != path]

    def misnamed(self) -> list[tuple[Path, RulecraftError]]:
        """Each ruleset file of the served folder whose name is not UTF-8 text (bytes the file
        system allows, which Python keeps as lone surrogates): not served, since no request can
        name it and JSON cannot carry it, and said when `serve` starts, as `unloadable` is."""
        folder = self.settings.rulesets
        if folder is None or not folder.is_dir():
            return []
        try:
            listed = sorted(folder.iterdir())
        except OSError:
            return []
        return [
            (path, LoadError([Diagnostic("RC001", "its file name is not UTF-8 text", None, _RENAME)]))
            for path in listed
            if is_listed_ruleset(path) and not _is_text(path.name)
        ]

    def unloadable(self) -> list[tuple[Path, RulecraftError]]:
        """Each file of the served folder that does not load, with its error (each that does is
        compiled now, and kept): what `serve` names when it starts."""
        found = []
        known = self.names()
        for name, path in known.items():
            if self.settings.rulesets is not None and path.parent == self.settings.rulesets:
                try:
                    self.named(name, known)
                except RulecraftError as exc:
                    found.append((path, exc))
        return found

    def named(self, name: str, known: Mapping[str, Path] | None = None) -> Ruleset:
        """The served ruleset `name` (`file`); `known` is `names()` when the caller has it
        already (each listing globs the served folder)."""
        known = self.names() if known is None else known
        path = known.get(name)
        if path is None:
            hint = did_you_mean(name, known) or f"rulesets: {', '.join(known)}"
            raise LoadError(
                [Diagnostic("RC001", f"no ruleset '{name}' on this server", None, hint)], missing=True
            )
        return self.file(path)

    def file(self, path: Path) -> Ruleset:
        """The ruleset file at `path` (a served one, or a shipped one a campaign was made with,
        though a served file of its name shadows it), compiled once while it is unchanged (by its
        `cachedir.stamp`, and by its content while it is not `settled`)."""
        try:
            status: os.stat_result | None = path.stat()
        except OSError:
            status = None
        with self._lock:
            kept = self._named.get(path)
        if kept is not None and status is not None and kept.stamp == stamp(status):
            if settled(status, kept.read_ns):
                return kept.ruleset
            now = time.time_ns()
            # changed within a tick of its reading: compared
            if _content(path, self.limits.max_yaml_bytes) == kept.content:
                with self._lock:
                    self._named[path] = kept._replace(read_ns=now)
                return kept.ruleset
        # its status and content read before it is loaded: a change meanwhile is seen next time
        read_ns, content = time.time_ns(), _content(path, self.limits.max_yaml_bytes)
        try:
            # the operator's file, compiled once for every request after it: under its own bounds
            # alone, as at start-up (cut by one request's deadline, its folding of a constant was
            # told as a fault of the file, 422, and a listing left the file out: hunt 13zq)
            with own_deadlines():
                found = load(path, limits=self.limits, name=path.name)
        except NOT_LOADING as exc:
            raise the_operators(exc) from None
        if status is not None:
            with self._lock:
                self._named[path] = _Read(stamp(status), content, read_ns, found)
        return found

    def source(self, text: str, name: str | None) -> Ruleset:
        shown = name or "<request>"
        key = hashlib.sha256(f"{shown}\0{text}".encode()).hexdigest()
        found: Ruleset | None = self._sources.get(key)
        if found is None:
            found = load_source(SourceFile(shown, text), limits=self.limits, deadline=self.settings.deadline)
        # put again when found, as the newest: the one least recently sent goes first
        self._sources.put(key, found, found.held_bytes())
        return found

    def weigh_again(self, ruleset: Ruleset) -> None:
        """Weigh a ruleset sent as text again after a request ran on it here (a roll), with what
        its caches hold now (`Ruleset.held_bytes`), if it is still kept: its caches grow as it is rolled, by
        up to `Limits.max_cache_bytes` each (256 MiB), which its weight when it was sent left out,
        so 64 kept rulesets could grow past `cached_bytes` many times over (found by a hunt)."""
        for key, kept in self._sources.items():
            if kept is ruleset:
                self._sources.put(key, ruleset, ruleset.held_bytes())
                return

    def resolve(self, ruleset: str | None, source: str | None, name: str | None) -> tuple[Ruleset, str]:
        """The ruleset a request refers to, and the name to show for it."""
        if (ruleset is None) == (source is None):
            raise ApiError.of(
                422, "RC407", "give either 'ruleset' (a name) or 'source' (YAML text), not both or neither"
            )
        if ruleset is not None:
            return self.named(ruleset), ruleset
        assert source is not None
        return self.source(source, name), name or "<request>"


class Server:
    """What every route reaches through `request.app.state.server`."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.limits = replace(settings.limits, deadline=settings.deadline)
        self.catalog = Catalog(settings, self.limits)
        self._pool: Pool | None = None
        self._pool_lock = threading.Lock()
        self._turns = threading.Semaphore(settings.workers)
        self._turn_lock = threading.Lock()
        self._in_turn = 0
        """Campaign requests that solve, running or waiting for their turn (`campaign_turn`)."""

    @property
    def pool(self) -> Pool:
        """The solve pool, started on first use (an app that is only listed never forks)."""
        with self._pool_lock:
            if self._pool is None:
                self._pool = Pool(self.settings.workers, self.settings.queue, self.limits)
            return self._pool

    def close(self) -> None:
        with self._pool_lock:
            if self._pool is not None:
                self._pool.close()
                self._pool = None

    @contextmanager
    def campaign_turn(self, started: float) -> Iterator[Limits]:
        """A turn for one campaign request that may solve (an action, a roll, a scene, a replay),
        run in this process, beside its store, and the limits it runs within: the server's, with
        what is left of the request's deadline (from `started`, a `time.monotonic()`). At most
        `--workers` run at once and `--queue` more wait, as the pool's solves do: a full queue is
        503 at once, a deadline passed while waiting 504. Without turns, 40 `optimal` scenes at
        once answered their 504 after 7.5-12.2 s of a 5 s deadline, and a plain roll beside them
        took 8.7 s (hunt 13o)."""
        with self._turn_lock:
            if self._in_turn >= self.settings.workers + self.settings.queue:
                raise busy(self._in_turn, "playing", "campaign request")
            self._in_turn += 1
        try:
            until = started + self.settings.deadline
            if until <= time.monotonic():  # its body came late, or its thread did: it never waited
                raise late("before its turn began")
            if not self._turns.acquire(timeout=max(0.0, until - time.monotonic())):
                raise late("while it waited for its turn")
            try:
                left = until - time.monotonic()
                if left <= 0:
                    raise late("while it waited for its turn")
                yield replace(self.limits, deadline=left)
            finally:
                self._turns.release()
        finally:
            with self._turn_lock:
                self._in_turn -= 1

    async def solve(self, kind: str, rs: Ruleset, body: dict[str, Any], started: float) -> dict[str, Any]:
        """Run one exact job in the pool within the request's deadline."""
        job = Job(kind, rs.document.source.name, rs.document.source.text, body)
        pool = self._pool
        if pool is None:  # started in a thread: never on the event loop
            pool = await run_in_threadpool(lambda: self.pool)
        return await pool.run(job, started + self.settings.deadline)


def server_of(request: Request) -> Server:
    found: Server = request.app.state.server
    return found


class RequestClock:
    """Start each request's deadline when it arrives: its time is `request.state.arrived`, and
    every budget the engine makes for it, here or in the threads it hands work to (which run in
    its context), stops by then plus `deadline` (`request_deadline`). A deadline counted from
    when a thread began a handler ran a second or more past it under load (hunt 13o), and one
    counted afresh by each step (loading a text, then rolling it) ran twice as long (hunt 13zp)."""

    def __init__(self, app: ASGIApp, deadline: float) -> None:
        self.app = app
        self.deadline = deadline

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        arrived = time.monotonic()
        scope.setdefault("state", {})["arrived"] = arrived
        with request_deadline(self.deadline, arrived + self.deadline):
            await self.app(scope, receive, send)


def arrived(request: Request) -> float:
    """When the request came (`RequestClock`), the `time.monotonic()` its deadline counts from."""
    found = getattr(request.state, "arrived", None)
    return found if isinstance(found, float) else time.monotonic()


class BodyLimit:
    """Refuse a request body over `limit` bytes with 413: at once when Content-Length says so,
    else as soon as the streamed chunks pass it — never after reading it all."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await self._refuse(send)
            return
        seen = 0
        started = refused = False

        async def counted() -> Message:
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:  # answer now; the app sees a client that went away
                    refused = True
                    if not started:
                        await self._refuse(send)
                    return {"type": "http.disconnect"}
            return message

        async def tracked(message: Message) -> None:
            nonlocal started
            if refused:
                return  # the 413 went out already; what the app says after it is dropped
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        await self.app(scope, counted, tracked)

    async def _refuse(self, send: Send) -> None:
        error = ApiError.of(
            413,
            "RC503",
            f"the request body is over the server's limit of {self.limit:,} bytes",
            "send less (a ruleset is at most 512 KB), or ask the operator for a larger --max-body",
        )
        response = SafeJSONResponse(error.body(), status_code=413, headers={"Connection": "close"})
        await response({"type": "http"}, _nothing, send)


LOOPBACK = ("localhost", "127.0.0.1", "[::1]")
"""The names of this machine's loopback, which `rulecraft serve` always answers to."""


def host_name(text: str) -> str:
    """A host's name as it is compared: in lower case, without a final dot, an address in its
    standard form (`ipaddress`), IPv6 in brackets (`::1`, `[0::1]` and `[::1]` alike)."""
    name = text.strip().lower().rstrip(".")
    address = address_of(name)
    if address is not None:
        return f"[{address}]" if address.version == 6 else str(address)
    return f"[{name}]" if ":" in name and not name.startswith("[") else name


def address_of(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """`name` as an IP address: IPv4 bare, IPv6 in brackets or bare (as `--allow-host` gives it),
    no zone (`%eth0`, which no browser sends); None for a name."""
    bracketed = name.startswith("[") and name.endswith("]")
    try:
        address = ipaddress.ip_address(name[1:-1] if bracketed else name)
    except ValueError:
        return None
    if "%" in name or (bracketed and address.version == 4):  # `[1.2.3.4]` is no host RFC 3986 writes
        return None
    return address


def _sent_host(value: str) -> str | None:
    """The name a `Host` header gives (`name`, `name:port`, `[v6]`, `[v6]:port`; an empty port as
    RFC 3986 allows), without its port; None when it is none of these."""
    if value.startswith("["):
        end = value.find("]") + 1
        name, port = value[:end], value[end:]
    else:
        name, colon, rest = value.partition(":")
        port = colon + rest
    if port and not (port[:1] == ":" and port[1:].isascii() and (port[1:].isdigit() or port == ":")):
        return None
    return host_name(name) if name else None


class HostCheck:
    """Refuse a request whose `Host` is neither an IP address nor one of `hosts` with 400
    `RC407`, before anything else reads it: a web page whose own name a DNS rebinding points at
    this machine sends its own name, so a server on the loopback (or on the network) with no
    token is not a server for every page its users open. An address is no rebinding: a page is
    of the origin its address names, so one sent as the `Host` is the server's own. `*` among
    `hosts` answers any."""

    def __init__(self, app: ASGIApp, hosts: Sequence[str]) -> None:
        self.app = app
        self.hosts = frozenset(host_name(h) for h in hosts)
        self.any = "*" in self.hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.any or scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sent = dict(scope.get("headers") or []).get(b"host")
        value = sent.decode("latin-1") if sent is not None else None
        name = _sent_host(value) if value is not None else None
        if name is not None and (name in self.hosts or address_of(name) is not None):
            await self.app(scope, receive, send)
            return
        said = (
            "the request has no Host header: this server answers only to its own names"
            if value is None
            else f"this server does not answer to the Host {cut(value, 200)!r}"
        )
        error = ApiError.of(
            400,
            "RC407",
            said,
            "ask it by the name or address it was started on (127.0.0.1 or localhost on this machine);"
            " another name is the server's operator's to allow, with --allow-host NAME",
        )
        await _error_response(error)({"type": "http"}, _nothing, framed(send))


SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
"""Methods that neither change a campaign nor ask the server to compute: the only ones another
site's page may send."""

NOT_FRAMED = (
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"frame-ancestors 'none'"),
)
"""Every answer says that no page may show it in a frame (the old header and the new): another
site's page could frame the playground and have its visitor click Act or Undo (a hunt)."""


class CrossSite:
    """Refuse a request of any method but GET, HEAD and OPTIONS that another origin's page sent,
    with 403 `RC407`, and tell browsers never to frame an answer (`framed`). A browser sends a
    page's POST to any address without asking first when it has no JSON body (a form, or
    `fetch(url, {method: "POST", mode: "no-cors"})`), so on a server with no token any page its user
    opened could undo a campaign's events (an undo takes no body: a hunt). The browser names the
    page's origin in `Origin`; the playground's is the server's own (the name and port of its
    `Host`, or, behind a proxy that sends its own `Host`, one of `origins` exactly:
    `Settings.origins`), and a program (a bot, curl) sends none, so each goes on.
    `Sec-Fetch-Site: cross-site` with no `Origin` is another site's too. The `Host` check
    (`HostCheck`) is no help here: that request is sent to the server's own name. Neither
    `X-Forwarded-Host` (a proxy that sets it from the `Host` it was sent named a DNS-rebound page's
    origin there) nor the `--allow-host` names (any port of one was taken: another web app of the
    same machine wrote) is read: reviews of a first and a second try."""

    def __init__(self, app: ASGIApp, origins: Sequence[str] = ()) -> None:
        self.app = app
        self.origins = frozenset(origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        origin = headers.get(b"origin")
        if scope["method"] not in SAFE_METHODS and (
            (origin is None and headers.get(b"sec-fetch-site") == b"cross-site")
            or (origin is not None and not self._own(origin.decode("latin-1"), headers.get(b"host")))
        ):
            shown = repr(cut(origin.decode("latin-1"), 200)) if origin is not None else "its browser says so"
            error = ApiError.of(
                403,
                "RC407",
                f"{scope['method']} {cut(scope.get('path', ''), MAX_PATH)}: refused: a page of another"
                f" origin ({shown}) sent it, through its visitor's browser",
                "the API takes requests that change a campaign or compute from its own page (at /) and"
                " from programs (a bot, curl), which send no Origin header; the server's own page behind"
                " a proxy that sends the server another Host is named by its operator, --origin URL",
            )
            await _error_response(error)({"type": "http"}, _nothing, framed(send))
            return
        await self.app(scope, receive, framed(send))

    def _own(self, origin: str, host: bytes | None) -> bool:
        return _same_origin(origin, host) or (bool(self.origins) and origin_of(origin) in self.origins)


def origin_of(text: str) -> str | None:
    """An origin as it is compared: `scheme://name[:port]`, the scheme and name in lower case, a
    name as `host_name` writes it, the scheme's own port left out; None for anything else (a
    path, a query, user info, a scheme other than http and https)."""
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname or parts.username is not None:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return None
    shown = port is not None and port != {"http": 80, "https": 443}[scheme]
    return f"{scheme}://{host_name(parts.hostname)}{f':{port}' if shown else ''}"


def framed(send: Send) -> Send:
    """`send`, each answer's head with `NOT_FRAMED` added."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *NOT_FRAMED]}
        await send(message)

    return sending


def _same_origin(origin: str, host: bytes | None) -> bool:
    """Whether a browser's `Origin` (`scheme://name[:port]`) is the origin whose `Host` this
    request was sent to: the same name and port, a port left out being the scheme's own, each read
    by the one rule for an origin (`origin_of`). `null` (a sandboxed frame, a file) is none."""
    if host is None:
        return False
    sent = host.decode("latin-1")
    if origin in (f"http://{sent}", f"https://{sent}"):  # as a browser writes its own page's origin
        return True
    page = origin_of(origin)
    return page is not None and page == origin_of(f"{page.partition(':')[0]}://{sent}")


class QueryOnce:
    """Refuse a request that gives one query parameter more than once (`?limit=2&limit=3`) with
    422 `RC407`, as a body that gives a key twice in one object is: the framework took the last
    and said nothing (and a `/log` page's `Link` echoed both), so which one the server read was
    a guess. Before any route reads it; a parameter no route reads is refused alike."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw = scope.get("query_string", b"") if scope["type"] == "http" else b""
        seen: set[str] = set()
        twice = None
        for name, _ in parse_qsl(raw.decode("latin-1"), keep_blank_values=True):  # as Starlette reads it
            if name in seen:
                twice = name
                break
            seen.add(name)
        if twice is None:
            await self.app(scope, receive, send)
            return
        error = ApiError.of(
            422,
            "RC407",
            f"the query gives the parameter {ascii(cut(twice, 200))} more than once",
            "give each query parameter once",
        )
        await _error_response(error)({"type": "http"}, _nothing, send)


class HeadAsGet:
    """Answer `HEAD` as `GET` is answered, without the body (RFC 9110 9.3.2: the same status and
    headers, `Content-Length` among them): the API's routes are declared for `GET` alone, and
    `HEAD` on them was 405. A path that takes no `GET` is 405 to it as before, `Allow` naming what
    it takes."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_alone(message: Message) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_alone)


async def _nothing() -> Message:
    return {"type": "http.disconnect"}


def _error_response(error: ApiError) -> SafeJSONResponse:
    return SafeJSONResponse(error.body(), status_code=error.status, headers=error.headers)


def create_app(settings: Settings | None = None, **given: Any) -> FastAPI:
    """The app: `create_app(Settings(...))` or `create_app(workers=2, token="...")`."""
    settings = settings or Settings(**given)
    server = Server(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await run_in_threadpool(lambda: server.pool)  # the workers are ready before the first request
        yield
        server.close()

    app = FastAPI(
        title="rulecraft",
        summary="Roll, solve and test tabletop RPG rulesets; keep campaigns.",
        version="1",
        lifespan=lifespan,
        default_response_class=SafeJSONResponse,
        # one page of docs, /docs; ReDoc's would load a script from a CDN as well
        redoc_url=None,
        # a path with a slash too many is a 404 that says so, in the one error shape, not a 307
        # with an empty body that a bot's POST does not follow
        redirect_slashes=False,
        responses={
            404: {"model": _error_model()},
            422: {"model": _error_model()},
        },
    )
    app.state.server = server

    @app.exception_handler(ApiError)
    async def on_api_error(request: Request, exc: ApiError) -> SafeJSONResponse:
        return _error_response(exc)

    @app.exception_handler(RulecraftError)
    async def on_engine_error(request: Request, exc: RulecraftError) -> SafeJSONResponse:
        return _error_response(api_error(exc))

    @app.exception_handler(RequestValidationError)
    async def on_bad_request(request: Request, exc: RequestValidationError) -> SafeJSONResponse:
        return _error_response(ApiError(422, diagnostics_json(_shape_problems(exc.errors()))))

    @app.exception_handler(StarletteHTTPException)
    async def on_http(request: Request, exc: StarletteHTTPException) -> SafeJSONResponse:
        if isinstance(exc, Unreadable):  # not JSON: placed in the body
            return _error_response(ApiError(exc.status_code, exc.diagnostics))
        message = f"{request.method} {cut(request.url.path, MAX_PATH)}: {exc.detail}"
        headers = dict(exc.headers or {})  # a 405's Allow among them
        allow = [m.strip() for m in headers.get("Allow", "").split(",") if m.strip()]
        if "GET" in allow and "HEAD" not in allow:  # every GET route answers HEAD (hunt 13o: not named)
            headers["Allow"] = ", ".join([*allow, "HEAD"])
        return _error_response(ApiError.of(exc.status_code, "RC407", message, "see /docs", **headers))

    @app.exception_handler(Exception)
    async def on_bug(request: Request, exc: Exception) -> SafeJSONResponse:
        return _error_response(ApiError.of(500, "RC506", f"internal error: {type(exc).__name__}"))

    from . import routes_campaigns, routes_charts, routes_eval, routes_rulesets

    app.include_router(routes_rulesets.router)
    app.include_router(routes_eval.router)
    app.include_router(routes_campaigns.router)
    app.include_router(routes_charts.router)

    if STATIC.is_dir():
        app.mount("/static", Assets(directory=STATIC), name="static")

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False, response_model=None)
    def index() -> Response:
        page = STATIC / PAGE
        if page.is_file():
            return FileResponse(page)
        return HTMLResponse(
            '<!doctype html><title>rulecraft</title><p>rulecraft API: <a href="/docs">/docs</a>'
        )

    app.add_middleware(HeadAsGet)
    app.add_middleware(QueryOnce)
    app.add_middleware(BodyLimit, limit=settings.max_body)
    app.add_middleware(RequestClock, deadline=settings.deadline)
    app.add_middleware(CrossSite, origins=settings.origins)
    # outermost: a request by a name the server does not answer to is refused before all else
    app.add_middleware(HostCheck, hosts=settings.allowed_hosts)
    return app


class Assets(StaticFiles):
    """The page's scripts and styles, under /static; not the page itself, which is served at `/`
    (its links are relative to it: at /static/index.html it found none of them)."""

    def lookup_path(self, path: str) -> tuple[str, os.stat_result | None]:
        if path == PAGE:
            return "", None
        return super().lookup_path(path)


PAGE = "index.html"
"""The playground's page, in `STATIC`."""


def _shape_problems(problems: Sequence[Any]) -> list[Diagnostic]:
    """FastAPI's complaints about a request's shape as `RC407`s, bounded as every error is (by
    `diagnostics_json`); a field's name is cut so that the message keeps what is wrong with it."""
    found = []
    for loc, reason in _unions_merged(problems):
        where = ".".join(str(p) for p in loc if p != "body") or "the body"
        shown = cut(where, MAX_TEXT - len(reason) - len(": …"))
        found.append(Diagnostic("RC407", f"{shown}: {reason}", None))
    return found


_TYPE_TAGS = frozenset({"int", "float", "str", "bool", "none", "list", "dict"})
"""How pydantic tags a union's plain types in a complaint's place (a field of ours is never so named)."""


def _unions_merged(problems: Sequence[Any]) -> list[tuple[tuple[Any, ...], str]]:
    """Each problem's place and words; a field of several types (`force`: a list or an object)
    that is none of them is one problem, not one per type, named by the field and not by
    pydantic's tags for the types (`force.list[any]`, `force.dict[str,any]`)."""

    def member(problem: Any) -> tuple[Any, ...] | None:
        """The field a complaint of one of its types is of: its place ends in the type's tag
        (`list[any]`, `int`), and the value it is about is the field's, one object."""
        loc = tuple(problem.get("loc", ()))
        tag = loc[-1] if loc else None
        if not (isinstance(tag, str) and (not tag.isidentifier() or tag in _TYPE_TAGS)):
            return None
        if len(loc) < 2 or not str(problem.get("type", "")).endswith("_type"):
            return None
        return (*loc[:-1], id(problem.get("input")))

    out: list[tuple[tuple[Any, ...], str]] = []
    i = 0
    while i < len(problems):
        field = member(problems[i])
        j = i + 1
        while field is not None and j < len(problems) and member(problems[j]) == field:
            j += 1
        reasons = [str(p.get("msg", "is wrong")) for p in problems[i:j]]
        if j - i > 1 and field is not None:
            rest = [r.removeprefix("Input should be ") for r in reasons[1:]]
            out.append((field[:-1], " or ".join([reasons[0], *rest])))
        else:
            reason = reasons[0]
            if "input" in problems[i] and problems[i]["input"] is None and reason.startswith("Input should"):
                reason += ", not null (null stands for a field not given only where one may be left out)"
            out.append((tuple(problems[i].get("loc", ())), reason))
        i = j
    return out


def _error_model() -> Any:
    from .models import ErrorResponse

    return ErrorResponse


def now() -> float:
    return time.monotonic()
