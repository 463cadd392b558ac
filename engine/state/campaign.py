"""A campaign: a ruleset's lasting state in a store, changed only by events appended to its log.

Every change — a character joining, an action (with its roll), a period beginning, an undo — is
one transaction: the current state is read, the rules compute the next one, and the event is
appended with that state, or nothing is written at all. An action is worked out before its
transaction opens (its roll may be a long exact solve) and, under the lock, kept only if the
state is still the one it was worked out from, or worked out again from the state now.
`replay` recomputes every state from the log and must find the stored ones; the dice an action
drew are in its event, so a replay rolls nothing new; it is charged for them as the action was
(`dicework.roll_units`, in `take`: the roll's own units and its dice's, as a batch's roll), as a
recorded roll at the table is.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime
from fractions import Fraction
from itertools import chain
from typing import Any, TypeVar

from ..errors import (
    NOT_LOADING,
    Advice,
    CampaignError,
    Diagnostic,
    EvalError,
    InputError,
    LimitError,
    RulecraftError,
    did_you_mean,
    placed,
)
from ..eval.dicework import kept_weights, roll_units
from ..eval.dist import Dist
from ..eval.sample import sample
from ..eval.trace import Result
from ..frozen import FrozenDict, FrozenList, frozen, frozen_json, replace
from ..model.ruleset import Check, RulesetModel
from ..model.state import Action, StateModel
from ..model.values import to_json
from ..runtime import arguments
from ..runtime.cache import Caches
from ..runtime.context import RunContext, check_policy, metered, new_work, with_work
from ..runtime.inputs import bind, bind_inputs, input_names
from ..runtime.limits import DEFAULT_LIMITS, Limits
from ..runtime.state import (
    Seen,
    State,
    apply,
    begin,
    bind_params,
    carry,
    join,
    join_all,
    misfit,
    new_state,
    roll_of,
    seen_roll,
    view,
    with_values,
)
from ..runtime.work import Work, current, working
from ..syntax.document import line_ends
from ..syntax.positions import SourceFile, Span
from .exact import after_action
from .records import (
    MOST_SEQ,
    STATE_NOW,
    STORE_METHODS,
    WHOLE,
    Event,
    Header,
    Store,
    Transaction,
    Window,
    same_json,
    whole,
)


def _views(rules: StateModel, state: State) -> dict[str, Any]:
    """Every item of the table and of each character, derived values included (`Campaign.show`'s
    body but for the campaign's name, ruleset and parameters), charged to the running budget."""
    return {
        "shared": view(rules, state, None),
        "characters": {
            who: {"params": sheet["params"], "items": view(rules, state, who)}
            for who, sheet in state["characters"].items()
        },
    }


class _Appending:
    """A change's transaction (`Campaign.writing`) that keeps the last event it appended."""

    def __init__(self, tx: Transaction) -> None:
        self.tx = tx
        self.made: Event | None = None

    def header(self) -> Header:
        return self.tx.header()

    def events(self, window: Window = WHOLE) -> list[Event]:
        return self.tx.events(window)

    def last(self) -> Event:
        return self.tx.last()

    def append(self, kind: str, data: Mapping[str, Any], state: State, undoes: int | None = None) -> Event:
        self.made = self.tx.append(kind, data, state, undoes)
        return self.made

    def replace_ruleset(self, ruleset_hash: str, ruleset_text: str) -> None:
        self.tx.replace_ruleset(ruleset_hash, ruleset_text)


EVENT_WORK = 20
"""Units of work a replay charges for each event besides what the event's own rules charge (its
action's expressions, roll and effects, all on the replay's one budget): reading it, comparing the
state it gives with the stored one and finding an undone event's state. About what it costs at a
microsecond a unit; an undo charges a unit for each event of the log it looks at."""

NO_LONGER_REPLAYS: tuple[type[RulecraftError], ...] = (CampaignError, InputError, EvalError)
"""What an event's replay may meet when the log or its rules were changed outside rulecraft:
a name its rules do not have, an input or a stored value they refuse, a precondition that no
longer holds, an expression that fails. `RC909` names it; a spent budget stays `RC503`, and any
other exception is a bug of rulecraft's, which surfaces as itself."""

Compile = Callable[[str, str], RulesetModel]
"""Compiles a ruleset's text (with the name it is shown under) to its model: given by the API."""


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _fail(
    code: str,
    message: str,
    hint: str | None = None,
    *,
    missing: bool = False,
    unfit: bool = False,
    advice: Advice | None = None,
    span: Span | None = None,
) -> CampaignError:
    return CampaignError([Diagnostic(code, message, span, hint, advice=advice)], missing=missing, unfit=unfit)


def _top(name: str, text: str) -> Span:
    """Where a ruleset with no `state:` is told, having no section to point at: where its top
    level begins, among whose keys a `state:` would be, as the loader tells a key missing from
    the top level (RC101) at the top of the file; its first line that is neither blank (a caret
    under it would show nothing) nor a comment, else its first."""
    source = SourceFile(name, text)
    lines = enumerate(source.lines, 1)
    line = next((n for n, held in lines if held.strip() and not held.lstrip().startswith("#")), 1)
    held = source.line(line)
    return Span(source, line, len(held) - len(held.lstrip()) + 1)


def _no_state(model: RulesetModel, text: str) -> CampaignError:
    """RC907 for a ruleset that declares no `state:`, placed at its top (`_top`): a campaign made
    of it, or migrated to it."""
    return _fail(
        "RC907",
        f"ruleset '{model.name}' declares no state: it has nothing a campaign could keep",
        "add a 'state:' section (see docs/language.md, State that lasts)",
        unfit=True,
        span=_top(model.source_name, text),
    )


def _changed(name: str, model: RulesetModel, text: str) -> CampaignError:
    """RC904 for campaign `name`, whose ruleset is now `text` (compiled to `model`). Placed at its
    `state:`, in the file that changed, where a refusal with no place left the author to guess
    which (found by a hunt); a ruleset that no longer has one at its top (`_top`), where a
    refusal with no place was left (found by another), saying so: it cannot be migrated to."""
    said = f"the ruleset of campaign '{name}' has changed since the campaign was made"
    as_was = (
        "play it as it was: put the old text back in the file, or move the file away (the campaign "
        "plays the text it keeps when its file is gone)"
    )
    if model.state is None:
        return _fail(
            "RC904",
            f"{said}: it no longer declares a 'state:' section",
            f"{as_was}; a ruleset with no 'state:' has nothing a campaign could be migrated to",
            span=_top(model.source_name, text),
        )
    return _fail(
        "RC904",
        said,
        f"migrate it on purpose (--migrate): the change is recorded in the log; or {as_was}",
        advice=Advice("migrate"),
        span=model.state.span,
    )


def keeps(header: Header, text: str) -> bool:
    """Whether `text` is the ruleset text the campaign of `header` keeps: the same rules, also
    where the kept text was given as a string with CR line ends before every ruleset was read
    with newlines (review AE): a hash of the raw text was kept then."""
    if content_hash(text) == header.ruleset_hash:
        return True
    return "\r" in header.ruleset_text and line_ends(header.ruleset_text) == text


def _stateful(name: str, model: RulesetModel, text: str) -> RulesetModel:
    """`model`, compiled from `text`, a ruleset text campaign `name` keeps (its own, or one a
    migration replaced): one with no `state:` was never kept by rulecraft, which makes and
    migrates a campaign only with one (RC907), so it was changed outside; RC903 at its top
    (`_top`), never a campaign built with no rules (a `Campaign` refuses such a model)."""
    if model.state is not None:
        return model
    raise _fail(
        "RC903",
        f"campaign '{name}' is damaged: a ruleset text it keeps declares no 'state:', which rulecraft "
        "never keeps",
        "the stored text was changed outside rulecraft, which makes and migrates campaigns only "
        "with a ruleset that declares a 'state:'",
        span=_top(model.source_name, text),
    )


def _made_with(name: str, header: Header) -> None:
    """RC903 unless the ruleset text campaign `name` keeps is the one it was made with (its
    content hash): the rules every stored state was made by, which a replay reads and a
    migration records; told where that text begins, as one with no `state:` is (`_stateful`).
    Its hint offered `--migrate`, which recorded the changed text in the log
    for good, so that the events before it never replayed again (found by a review)."""
    if content_hash(header.ruleset_text) != header.ruleset_hash:
        raise _fail(
            "RC903",
            f"campaign '{name}' is damaged: its stored ruleset text is not the one it was made with"
            " (its content hash differs)",
            "the stored text was changed outside rulecraft: play it with the ruleset file it was made"
            " with, or restore the store from a backup",
            span=_top(f"<campaign {name}>", header.ruleset_text),  # the text at fault, shown
        )


def _kept(name: str, compile: Compile, text: str, which: str) -> RulesetModel:
    """The model of `text`, a ruleset text campaign `name` keeps (`which` says which: its own, or
    the one a migration replaced), shown as `<campaign NAME>` with that text's lines. rulecraft
    keeps only a text that loaded: one that does not (its YAML broken, a schema error) was
    changed outside, and is RC903 placed where its load error is, as one with no `state:` is
    (`_stateful`). It was the bare load error, and a migration's text was named after the
    ruleset's file, whose lines are another text's (found by a hunt)."""
    shown = f"<campaign {name}>"
    try:
        model = compile(text, shown)
    except NOT_LOADING as exc:
        first = exc.diagnostics[0]
        raise _fail(
            "RC903",
            f"campaign '{name}' is damaged: {which} does not load ({first.code}: {first.message})",
            "the stored text was changed outside rulecraft, which keeps only a ruleset text that "
            "loads: restore the store from a backup",
            span=first.span or _top(shown, text),
        ) from None
    return _stateful(name, model, text)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@frozen
class Acted:
    """What one action did: its event, and the roll it made (None when it rolled nothing)."""

    event: Event
    result: Result | None


Done = TypeVar("Done")
Read = TypeVar("Read")
Kept = TypeVar("Kept")

AGAIN = 2
"""How many times a change worked out from a state another process changed meanwhile is worked
out again outside the write lock (`kept_from_latest`) before it is worked out under it."""


class _Changed(Exception):
    """The state changed since a change was worked out from it: its transaction is left unkept."""


def kept_from_latest(
    campaign: Campaign,
    at: Span | None,
    compute: Callable[[State, Work], Done],
    keep: Callable[[Transaction, Done], Kept],
) -> Kept:
    """`keep` what `compute` works out from the campaign's state now, in the transaction that
    reads that state again under the write lock: computed before the lock is taken, so a long
    solve (an `optimal` policy's) keeps no other writer waiting. If another process changed the
    state meanwhile, the transaction is left unkept (a pending migration with it) and the change
    worked out again from the state now, outside the lock, up to `AGAIN` times; then under it, so
    a change is never refused for others' writes, nor kept from a state that is no longer the
    last. Each time again, with its reads of the state, counts its work afresh under the
    request's one deadline (`Campaign._budget`, placed at `at`): done again because of another's
    write, it was charged to the first time's spent budget, and refused (RC503) when that alone
    fitted (found by a hunt). So one change does at most `AGAIN + 2` budgets' work, and takes no
    longer than one request's deadline."""
    with campaign.request(at) as first:
        for tries in range(AGAIN + 2):
            last = tries == AGAIN + 1  # the last time: under the lock
            with campaign._budget(at, within=first) if tries else nullcontext(first) as work:
                if not last:
                    start = campaign.state()  # carried to new rules, when a migration is pending
                    done = compute(start, work)
                try:
                    with campaign.writing() as tx:
                        now = tx.last().state
                        if last:
                            done = compute(now, work)
                        elif now != start:
                            raise _Changed
                        return keep(tx, done)
                except _Changed:
                    pass
    raise AssertionError("the last time keeps what it worked out")


class Campaign:
    """One stored campaign of one ruleset. Make one with `Campaign.create` or `Campaign.open`."""

    def __init__(
        self,
        store: Store,
        header: Header,
        model: RulesetModel,
        limits: Limits = DEFAULT_LIMITS,
        compile: Compile | None = None,
    ) -> None:
        self.store = store
        self.compile = compile
        self.header = header
        self.model = model
        self.limits = limits
        self.caches = Caches.within(limits.max_cache_bytes)
        # `create` and `open` refuse such a model first, placed (RC907; RC903 for a kept text changed
        # outside, `_stateful`): only a direct call gets here, a misuse
        if model.state is None:
            raise TypeError(
                f"Campaign: argument 'model' must be a compiled ruleset that declares a 'state:', not "
                f"ruleset '{model.name}' (make a campaign with Campaign.create or Campaign.open, "
                "which say where it is missing)"
            )
        self.rules: StateModel = model.state
        self._pending: tuple[str, str] | None = None
        """A migration accepted at `open` (the new ruleset's hash and text), not yet recorded:
        `writing` records it with the first change, in that change's transaction."""
        self._read_only = False
        """Opened `read_only`: every change is refused (`writing`)."""
        self._made: Event | None = None
        """The event this campaign appended last (`writing`): `show(at=)` of it, which the command
        line and the server ask after every change, needs no read of the store to know it is
        this campaign's (`_own`)."""
        self._made_views: dict[str, Any] | None = None
        """The views of `_made`'s state (`_views`), worked out before it was committed (on a budget
        of their own, within the change's deadline): `show(at=)` of it does no work, so a change
        that was written is never answered as one that failed (a deadline or the work budget
        passed in the read after it: hunt 13zq)."""
        self._refusal: RulecraftError | None = None
        """For a campaign opened `read_only` on a ruleset changed since (RC904) or no longer
        loading (its load error): read with the text it keeps, it refuses every change
        (`writing`) with the error opening it to change it gives."""
        self.warnings: tuple[Diagnostic, ...] = ()
        """That error told as warnings (`_read_instead`), for `show` and `replay` to print."""

    @property
    def name(self) -> str:
        return self.header.name

    @property
    def warning(self) -> Diagnostic | None:
        """The first of `warnings`, else None: RC904 for a ruleset changed since, or the first
        diagnostic of one that no longer loads."""
        return self.warnings[0] if self.warnings else None

    def _read_instead(self, refused: RulecraftError, said: str) -> Campaign:
        """This campaign, opened `read_only` with the text it keeps instead of the ruleset as it is
        now, which `refused` refuses (opening it to change it would raise it): every change is
        refused with it, and it is told as warnings, its first diagnostic's message ending with
        `said`, what is read instead."""
        self._refusal = refused
        first, *rest = refused.diagnostics
        told = replace(first, message=f"{first.message}; {said}")
        self.warnings = tuple(replace(d, severity="warning") for d in (told, *rest))
        return self

    # -- making and opening ---------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        store: Store,
        name: str,
        model: RulesetModel,
        text: str,
        params: Mapping[str, Any] | None = None,
        characters: Mapping[str, Mapping[str, Any]] | None = None,
        limits: Limits = DEFAULT_LIMITS,
        compile: Compile | None = None,
        source: str = "",
        start: Mapping[str, Any] | None = None,
    ) -> Campaign:
        """A new campaign with its parameters and first characters, all in its first event;
        `source` is how the ruleset is found again (a shipped name or a path); `start` sets some
        items to other values than the rules' own starting ones (see `runtime.state.with_values`)."""
        where = "Campaign.create"
        arguments.having(where, "store", store, STORE_METHODS, "a campaign store (engine.state)")
        arguments.kept_name(where, "name", name, "campaign")
        arguments.having(
            where, "model", model, ("checks", "state", "name"), "a compiled ruleset (Ruleset.model)"
        )
        arguments.name(where, "text", text)
        arguments.mapping(where, "params", params)
        arguments.mapping(where, "characters", characters, of_mappings=True)
        for who in characters or {}:
            arguments.kept_name(where, "characters", who, "character")
        arguments.of_type(where, "limits", limits, Limits)
        arguments.callable_(where, "compile", compile, optional=True)
        arguments.name(where, "source", source)
        arguments.mapping(where, "start", start)
        if model.state is None:
            raise _no_state(model, text)
        rules = model.state
        bound = bind_params(
            rules.campaign, params or {}, "campaign", name, span=rules.campaign_span or rules.span
        )
        at = rules.character_span or rules.span
        try:
            with metered(limits):
                state = new_state(rules, bound)
                if characters:  # each bound as it joins, so the first problem told is one by one's
                    joining = (
                        (who, bind_params(rules.character, given, "character", who, span=at))
                        for who, given in characters.items()
                    )
                    state = join_all(rules, state, joining)
                if start:
                    state = with_values(model.state, state, start)
            # a campaign that could not then be read within a budget is not made: what a read
            # does, the check that the state fits the rules and every view, on a budget of its
            # own, as a read has (hunt 13zq)
            with metered(limits):
                misfit(rules, state, name)
                _views(rules, state)
        except LimitError as exc:  # no request of a campaign yet: placed as `request` places one
            raise placed(exc, rules.span, f"making campaign '{name}'") from None
        header = Header(
            name,
            source or model.name,
            content_hash(text),
            text,
            {k: to_json(v) for k, v in bound.items()},
            _now(),
        )
        store.create(header, state)
        return cls(store, header, model, limits, compile)

    @classmethod
    def open(
        cls,
        store: Store,
        name: str,
        compile: Compile,
        text: str | None = None,
        *,
        migrate: bool = False,
        limits: Limits = DEFAULT_LIMITS,
        shown_as: str = "",
        read_only: bool = False,
        refused: RulecraftError | None = None,
    ) -> Campaign:
        """The stored campaign `name`, played with `text` (the ruleset as it is now, reported under
        `shown_as`) or, when None, the ruleset text stored with it. A ruleset whose content changed
        is refused (RC904) unless `migrate`, which records the change as an event; or, opened
        `read_only` (to be shown or replayed: a user whose file changed most needs to see what is
        stored), it is read with the text it keeps, RC904 kept as a warning in `warnings`. Opened
        `read_only`, it refuses every change (RC903), whatever its ruleset.

        `refused`, given instead of `text`, is the error the ruleset as it is now gave loading (its
        file there but broken): raised, unless the campaign is opened `read_only` and not
        `migrate`; then, as for a changed ruleset, it is read with the text it keeps, that error
        its `warnings` and every change refused with it."""
        where = "Campaign.open"
        arguments.having(where, "store", store, STORE_METHODS, "a campaign store (engine.state)")
        arguments.name(where, "name", name)
        arguments.callable_(where, "compile", compile)
        arguments.name(where, "text", text, optional=True)
        arguments.of_type(where, "migrate", migrate, bool)
        arguments.of_type(where, "limits", limits, Limits)
        arguments.name(where, "shown_as", shown_as)
        arguments.of_type(where, "read_only", read_only, bool)
        arguments.of_type(where, "refused", refused, RulecraftError, optional=True)
        if refused is not None and (text is not None or not refused.diagnostics):
            raise TypeError(
                f"{where}: argument 'refused' is an error with diagnostics, given instead of 'text'"
            )
        if refused is not None and (migrate or not read_only):
            raise refused
        campaign = cls._opened(store, name, compile, text, migrate, limits, shown_as, read_only)
        campaign._read_only = read_only
        if refused is not None:
            said = f"campaign '{name}' is read with the ruleset text it keeps: its file no longer loads"
            campaign._read_instead(refused, said)
        return campaign

    @classmethod
    def _opened(
        cls,
        store: Store,
        name: str,
        compile: Compile,
        text: str | None,
        migrate: bool,
        limits: Limits,
        shown_as: str,
        read_only: bool,
    ) -> Campaign:
        """`open`, its arguments checked."""
        header = store.header(name)
        if text is None:
            _made_with(name, header)
            stored = _kept(name, compile, header.ruleset_text, "the ruleset text it keeps")
            return cls(store, header, stored, limits, compile)
        if keeps(header, text):
            same = compile(text, shown_as or header.ruleset)
            return cls(store, header, _stateful(name, same, text), limits, compile)
        model = compile(text, shown_as or header.ruleset)
        if model.state is None and migrate:
            raise _no_state(model, text)
        if not migrate:
            refused = _changed(name, model, text)
            if not read_only:
                raise refused
            # what it stores is read with the rules that stored it: the text it keeps
            kept = cls._opened(store, name, compile, None, False, limits, "", False)
            return kept._read_instead(
                refused, "it is read with the ruleset text it keeps, not with the changed file"
            )
        # the text it keeps is recorded with the migration, for a replay of the events before it:
        # one changed outside (not the text it was made with, or one that does not load) is RC903
        # here, never copied into the log by rulecraft itself, where no replay could ever replay
        # those events again (found by reviews)
        _made_with(name, header)
        _kept(name, compile, header.ruleset_text, "the ruleset text it keeps")
        campaign = cls(store, header, model, limits, compile)
        campaign._pending = (content_hash(text), text)
        campaign.state()  # the state carried over now: one the new rules cannot hold is refused
        return campaign

    # -- reading ---------------------------------------------------------------------------------

    def state(self) -> State:
        """The state now (carried over to the new rules, when a migration is pending), read from
        the last event alone, outside a transaction: what a change that may take long to compute
        (an action, a scene) is computed from before its own transaction opens, so that the
        store's write lock is not held while it is (`kept_from_latest`). The log before that
        event is not read: a long one costs nothing here (reading it whole took 35 ms for each
        `show` of a campaign of 2,000 events, and grew with it), and an older event damaged from
        outside is for `log` and `replay` to report, as it is when a change reads the last event
        under the lock."""
        last, now = self._read_now(self._newest_state)
        return self._current(last, now)

    def _newest_state(self, name: str) -> Event:
        """The newest event with its state alone (`STATE_NOW`): its data is not read, where a
        scene's (its trace) took 1.4 s to decode for each `show` of the campaign over HTTP."""
        got = self.store.events(name, STATE_NOW)
        if not got:  # a store that kept a campaign without its first event was damaged outside
            raise _fail("RC903", f"campaign '{name}' is damaged: it has no events")
        return got[-1]

    def _read_now(self, read: Callable[[str], Read]) -> tuple[Read, Header]:
        """What `read` reads of the log (all of it, or its last event) and the header it was read
        under (`_same_rules` checks it), read outside a transaction, so with the header before
        and after it: a migration by another process between the two reads had the log under the
        old rules read with the new (a false RC903, an export pairing a header with a log not its
        own; found by a review). Read again when the two differ, twice at most; then RC904, as a
        change meets it. Its caller checks the header once, with what it reads (`_current`,
        `replay_counted`, `export`)."""
        for _ in range(3):
            before = self.store.header(self.name)
            events = read(self.name)
            now = self.store.header(self.name)
            if now.ruleset_hash == before.ruleset_hash:
                return events, now
        raise self._reopen()

    def _same_rules(self, now: Header) -> bool:
        """Whether the stored state is under these rules already, another process having migrated
        the campaign to the very ruleset this one carries it to (a migration pending here); RC904
        if another process migrated it to other rules since it was opened here. Every read checks
        it, not only a change (`writing`): a read had given its answer with the rules it was opened
        with (a scene's odds from another ruleset's, a state the new rules dropped an item of as
        RC903 'damaged', a replay's stored states as RC909 'changed outside'; found by a hunt)."""
        if self._pending is not None:
            return now.ruleset_hash == self._pending[0]
        if now.ruleset_hash != self.header.ruleset_hash:
            raise self._reopen()
        return False

    def _reopen(self) -> CampaignError:
        # placed as a ruleset given that differs from the kept one is (`_changed`): at the
        # `state:` of the rules played here (a refusal with no place; found by a hunt)
        return _fail(
            "RC904",
            f"the ruleset of campaign '{self.name}' was changed since it was opened here",
            "open it again (with --migrate, to play the ruleset given)",
            advice=Advice("reopen"),
            span=self.rules.span,
        )

    def _current(self, last: Event, now: Header) -> State:
        """The state of `last`, the latest event, the header `now` read with it: checked against
        these rules (`_fitting`), or carried over to them when a migration is pending (and not
        made already by another process, `_same_rules`)."""
        made = self._same_rules(now)  # RC904 first: migrated by another process since
        if self._pending is None or made:
            return self._fitting(last)
        self._whole(last)
        with self.request(lead=f"carrying campaign '{self.name}' over to its new ruleset"):
            carried: State = frozen_json(carry(self.rules, last.state, self.name)[0])
            return carried  # read-only, as a stored state is

    def _fitting(self, event: Event) -> State:
        """An event's state, when these rules could have made it: one changed from outside (an
        item missing or of another kind, a value past its bound) is RC903 here, before anything
        reads it, rather than an error in whatever reads it first."""
        self._whole(event)
        with self.request(lead=f"reading the state of campaign '{self.name}'"):
            wrong = misfit(self.rules, event.state, self.name)
        if wrong is not None:
            raise _fail(
                "RC903",
                f"campaign '{self.name}' is damaged: the state at event {event.seq} is not one its "
                f"ruleset can read ({wrong})",
                "the stored state was changed outside rulecraft, or migrated by a rulecraft from "
                "before 2026-12-04, which kept it as it was; 'replay' finds the first event that differs",
            )
        return event.state

    @contextmanager
    def request(self, at: Span | None = None, lead: str = "") -> Iterator[Work]:
        """The work budget of the request running: the one it already made (an action's, which
        its check of the stored state, its roll and its effects all charge), else a fresh one
        from `limits` for this request alone. A caller that reads the campaign and then changes
        it (a scene played in it) opens one around both, so the whole request is one budget (but
        for a change worked out again because another process wrote meanwhile, which counts its
        work afresh under the same deadline: `kept_from_latest`).

        The request that made the budget places what passes it or its deadline (`RC503`) that
        nothing placed yet: at `at`, what was asked for (an action, a check, a scene), or the
        ruleset's `state:` for a request that reads only the state or the log, its message led
        by `lead` when the place alone does not say what was running (an action whose effects
        used up the budget was told with no file, line or caret; found by a hunt)."""
        arguments.of_type("Campaign.request", "at", at, Span, optional=True)
        arguments.of_type("Campaign.request", "lead", lead, str)
        running = current()
        if running is not None:
            yield running
            return
        with self._budget(at, lead) as work:
            yield work

    @contextmanager
    def _budget(self, at: Span | None = None, lead: str = "", within: Work | None = None) -> Iterator[Work]:
        """A fresh budget from `limits`, what passes it placed as `request` places it; `within` a
        request's budget, its work counted afresh under that one's deadline."""
        work = (
            new_work(self.limits)
            if within is None
            else Work(self.limits.max_work, within.seconds, until=within.until)
        )
        try:
            with working(work):
                yield work
        except LimitError as exc:
            raise placed(exc, at or self.rules.span, lead) from None

    @contextmanager
    def writing(self) -> Iterator[Transaction]:
        """The store's transaction for one change. A migration accepted at `open` is appended
        first, in the same transaction: it is recorded with the first change made under the new
        rules or not at all (a refused action records nothing), and once, however many processes
        migrate at the same moment (the stored ruleset is read again under the write lock)."""
        if self._refusal is not None:  # opened to be read, on a ruleset changed or broken since
            refused = self._refusal
            raise type(refused)(refused.diagnostics, missing=refused.missing, unfit=refused.unfit)
        if self._read_only:
            raise _fail(
                "RC903",
                f"campaign '{self.name}' was opened to be read (read_only=True): it is never changed",
                "open it without read_only to change it",
            )
        with self.store.transaction(self.name) as tx:
            header = None
            now = tx.header()
            if self._pending is None:  # another process migrated it since: these rules are not its
                self._same_rules(now)
            if self._pending is not None:
                to, text = self._pending
                if now.ruleset_hash != to:
                    last = tx.last()
                    self._whole(last)
                    with self.request():
                        state, notes = carry(self.rules, last.state, self.name)
                    tx.replace_ruleset(to, text)
                    data = {
                        "from": now.ruleset_hash,
                        "to": to,
                        "from_text": now.ruleset_text,
                        "carried": notes,
                    }
                    tx.append("migrate", data, state)
                header = Header(now.name, now.ruleset, to, text, now.params, now.created)
            self._fitting(tx.last())
            appending = _Appending(tx)
            yield appending
            views = None
            if appending.made is not None:  # before the commit: a state no read could show is not written
                # what a read does (the check that the state fits the rules, and every view), on
                # a budget of its own, as the read that showed it after the commit had, under the
                # change's deadline: what a change may do is what it was (hunt 13zq, 13zs)
                lead = f"showing the state of campaign '{self.name}' after the change"
                with self._budget(lead=lead, within=current()):
                    misfit(self.rules, appending.made.state, self.name)
                    views = _views(self.rules, appending.made.state)
        if header is not None:
            self.header, self._pending = header, None
        self._made, self._made_views = appending.made, views

    def log(
        self,
        *,
        after: int = 0,
        before: int | None = None,
        limit: int | None = None,
        newest: bool = False,
    ) -> list[Event]:
        """Every event, oldest first; or those numbered after `after` and before `before`, at
        most `limit` of them, the oldest or (`newest`) the newest (`records.Window`): a page of a
        long log. One that is not whole (changed from outside) is RC903."""
        return whole(
            self.store.events(self.name, window("Campaign.log", after, before, limit, newest)), self.name
        )

    def _whole(self, event: Event) -> None:
        whole([event], self.name)

    def show(self, at: Event | None = None) -> dict[str, Any]:
        """Every item of the table and of each character, derived values included, JSON-ready:
        as it stands now, or as it stood after event `at` (what a caller that has just appended
        it shows, without reading the store again: another writer may hold it by then). Read-only
        all the way down (`FrozenDict`), as every view a campaign hands out is: its parameters were
        the memory store's own, and a change to them changed the campaign (review 12g)."""
        arguments.of_type("Campaign.show", "at", at, Event, optional=True)
        with self.request(lead=f"reading the state of campaign '{self.name}'"):
            if at is not None:
                self._own(at)
            state = at.state if at is not None else self.state()
            views = self._made_views if at is not None and at is self._made else None
            if views is None:
                views = _views(self.rules, state)
            shown: dict[str, Any] = frozen_json(
                {"campaign": self.name, "ruleset": self.header.ruleset, "params": state["params"], **views}
            )
            return shown

    def _own(self, event: Event) -> None:
        """RC410 unless `event` is the one this campaign's log holds at its number: another
        campaign's event was shown as this one's state, labelled with this one's name, or failed
        inside the view with a `KeyError` (hunt 13r). An event is read again by its number alone,
        which no later write changes (a log only grows); the one this campaign appended last is
        known without a read (a scene's data, read again, can be megabytes)."""
        if event is self._made:
            return
        seq = event.seq
        numbered = isinstance(seq, int) and not isinstance(seq, bool) and seq >= 1
        kept = self.store.events(self.name, Window(after=seq - 1, before=seq + 1)) if numbered else []
        if not kept or kept[0] != event:
            raise InputError(
                [
                    Diagnostic(
                        "RC410",
                        f"the event given (number {str(seq)[:20]}) is not in the log of campaign"
                        f" '{self.name}'",
                        None,
                        "pass an event of this campaign: from its log(), or one its act, roll or join gave",
                    )
                ]
            )

    # -- changing --------------------------------------------------------------------------------

    def join(self, /, character: str, *, params: Mapping[str, Any] | None = None, **named: Any) -> Event:
        """A character joins, with its parameters: keyword arguments (`hp=3`) or, by any name, a
        mapping `params={"self": 2}` (the command line, the server and examples pass the user's
        parameters so, so a key that is no parameter is RC402, never a clash with `character`);
        both may be given, each name once."""
        if params is not None:
            named = arguments.inputs("Campaign.join", params, named, "params", "parameter")
        params = named
        arguments.kept_name("Campaign.join", "character", character, "character")
        rules = self.rules
        bound = bind_params(
            rules.character, params, "character", character, span=rules.character_span or rules.span
        )
        lead = f"character '{character}' joining campaign '{self.name}'"
        with self.request(rules.character_span, lead), self.writing() as tx:
            state = join(self.rules, tx.last().state, character, bound)
            return tx.append(
                "join", {"character": character, "params": {k: to_json(v) for k, v in bound.items()}}, state
            )

    def act(
        self,
        action: str,
        /,
        character: str | None = None,
        *,
        seed: int | None = None,
        forced: Mapping[str, Any] | None = None,
        policy: str = "always",
        others: Mapping[str, str] | None = None,
        inputs: Mapping[str, Any] | None = None,
        trace: bool = True,
        **named: Any,
    ) -> Acted:
        """Run `action` (for `character` when it acts by character, with the characters in its
        roles as `others`): check its preconditions, roll its check if it has one, apply its
        effects, append the event. Refused actions change nothing.

        The action is taken before the write transaction opens, so an `optimal` policy's exact
        solve does not hold the store's write lock (a writer to the same file waited on it and gave
        up after its timeout, found by a review), as a scene played in a campaign is. An action is
        fixed by the state it starts from, its inputs, the seed (drawn here when neither it nor the
        dice are given) and the policy; under the lock the state is read again, and the action is
        kept only if that state is the one it was taken from. If another process changed it
        meanwhile, the action is taken again from the new state, with the same seed
        (`kept_from_latest`: outside the lock twice, then under it, each time counting its work
        afresh under the request's one deadline): slower, but never an action kept from a state
        that is no longer the last. Inputs are keyword arguments or, by any name (even `seed`,
        `others`, `inputs` or `trace`), a mapping `inputs=`; each name once. `trace=False` rolls
        without the trace, as `Ruleset.roll` does: the same dice, outcome, values and event, and
        no text charged for steps nobody reads."""
        if inputs is not None:
            named = arguments.inputs("Campaign.act", inputs, named)
        with arguments.meant_as_input("action", action, lambda: input_names(self.rules.actions, action)):
            policy = _acting("Campaign.act", action, character, others, policy)
            arguments.of_type("Campaign.act", "trace", trace, bool)
            seed = _rolling("Campaign.act", seed, forced)
        act = self._action(action)
        seed = random.randrange(2**32) if seed is None and forced is None else seed

        def taken(state: State, work: Work) -> tuple[dict[str, Any], State, Result | None]:
            who = self._who(act, character, state)
            roles = self._roles(act, who, others, state)
            new, done, result = self._run(act, state, who, bound, seed, forced, policy, roles, work, trace)
            data: dict[str, Any] = {
                "action": act.name,
                "character": who,
                "others": roles,
                "inputs": {k: to_json(v) for k, v in bound.items()},
                "policy": policy,
                "seed": seed,
                "effects": done,
            }
            if result is not None:
                data["roll"] = {
                    "check": result.check,
                    "outcome": result.outcome.name,
                    "dice": result.forced(),
                    "values": {k: to_json(v) for k, v in result.values.items()},
                }
            return data, new, result

        with self.request(act.span):  # a spent budget is told at the action, as a roll's at its check
            bound = bind(act.inputs, named, "action", act.name, act.span, rolls=self._rolls(act))

            def kept(tx: Transaction, done: tuple[dict[str, Any], State, Result | None]) -> Acted:
                data, new, result = done
                return Acted(tx.append("action", data, new), result)

            return kept_from_latest(self, act.span, taken, kept)

    def _run(
        self,
        act: Action,
        state: State,
        who: str | None,
        bound: Mapping[str, Any],
        seed: int | None,
        forced: Mapping[str, Any] | None,
        policy: str,
        roles: Mapping[str, str] | None = None,
        work: Work | None = None,
        trace: bool = True,
    ) -> tuple[State, list[dict[str, Any]], Result | None]:
        """The rules of one action, pure: the next state, the effects applied, the roll made (with
        its trace or without); charged to `work`, the request's budget (None: a fresh one)."""
        ctx = RunContext(self.limits, policy, self.caches, random.Random(seed), forced, work)
        return take(self.model, act, state, who, bound, ctx, roles, trace)

    def roll(
        self,
        check: str,
        /,
        *,
        seed: int | None = None,
        forced: Mapping[str, Any] | None = None,
        policy: str = "always",
        inputs: Mapping[str, Any] | None = None,
        trace: bool = True,
        **named: Any,
    ) -> tuple[Event, Result]:
        """Roll a check at the table, with inputs as given (as keyword arguments or, by any name,
        a mapping `inputs=`, as `act` takes them), and record it; the state is unchanged.
        `trace=False` rolls without the trace, as `act` may."""
        if inputs is not None:
            named = arguments.inputs("Campaign.roll", inputs, named)
        arguments.name("Campaign.roll", "check", check)
        with arguments.meant_as_input("check", check, lambda: input_names(self.model.checks, check)):
            arguments.name("Campaign.roll", "policy", policy)
            arguments.of_type("Campaign.roll", "trace", trace, bool)
            policy = check_policy(policy)
            seed = _rolling("Campaign.roll", seed, forced)
        found = self.model.checks.get(check)
        if found is None:
            raise self._missing("check", check, self.model.checks, self.rules.checks_span)
        bound = bind_inputs(found, named)
        seed = random.randrange(2**32) if seed is None and forced is None else seed
        with self.request(found.span) as work:  # one budget: the roll, then the check of the stored state
            result = sample(
                found,
                bound,
                RunContext(self.limits, policy, self.caches, random.Random(seed), forced, work),
                trace,
            )
            work.charge(
                roll_units(found, kept_weights(found, self.caches.bindings), result)
            )  # as an action's
            data = {
                "check": check,
                "inputs": {k: to_json(v) for k, v in bound.items()},
                "policy": policy,
                "seed": seed,
                "roll": {
                    "check": check,
                    "outcome": result.outcome.name,
                    "dice": result.forced(),
                    "values": {k: to_json(v) for k, v in result.values.items()},
                },
            }
            with self.writing() as tx:
                return tx.append("roll", data, tx.last().state), result

    def distribution(
        self,
        action: str,
        /,
        character: str | None = None,
        *,
        policy: str = "always",
        others: Mapping[str, str] | None = None,
        inputs: Mapping[str, Any] | None = None,
        **named: Any,
    ) -> Dist:
        """The exact distribution of the state after `action` taken now (nothing is written): a
        `Dist` over states as canonical JSON text; `item_marginals` splits it per item. Inputs are
        given as `act` takes them. Where the action's roll is an uncapped explosion followed down to
        a tail, its `truncated` says how much was cut, as `Distribution.truncated` does."""
        if inputs is not None:
            named = arguments.inputs("Campaign.distribution", inputs, named)
        with arguments.meant_as_input("action", action, lambda: input_names(self.rules.actions, action)):
            policy = _acting("Campaign.distribution", action, character, others, policy)
        act = self._action(action)
        with self.request(act.span) as work:
            state = self.state()
            who = self._who(act, character, state)
            roles = self._roles(act, who, others, state)
            bound = bind(act.inputs, named, "action", act.name, act.span, rolls=self._rolls(act))
            ctx = RunContext(self.limits, policy, self.caches, work=work)
            cut: list[Fraction] = []
            dist = after_action(self.rules, self.model.checks, act, state, who, bound, ctx, roles, cut)
            if cut:  # a fresh `Dist`, made for this answer alone
                object.__setattr__(dist, "truncated", cut[-1])
            return dist

    def begin(self, period: str) -> Event:
        """A period begins: everything that names it in `reset` goes back to its start."""
        arguments.name("Campaign.begin", "period", period)
        if period not in self.rules.periods:
            # with no periods at all, told at `state:`, where they would be declared (hunt 13g)
            raise self._missing(
                "period", period, self.rules.periods, self.rules.periods_span or self.rules.span
            )
        with self.request(self.rules.periods_span, f"period '{period}' beginning"), self.writing() as tx:
            new, done = begin(self.rules, tx.last().state, period)
            return tx.append("period", {"period": period, "effects": done}, new)

    def undo(self, seen: int | None = None) -> Event:
        """Reverse the latest change that is not already undone (an undo appends; nothing is deleted).
        The log is read from its newest event back, a page at a time (`_newest_first`), only as
        far as the change to reverse: an undo costs what it looks at, not the whole log. What it
        looks at is each event's number, kind and `undoes`, and then the one state it restores:
        no event's data nor any other state is read (an undo over 8 scenes, each with a 4 MB
        trace, decoded every one of them under the write lock: 6.6 s, 0.1 s now).

        `seen`, the number of the newest event the caller has seen: the undo is refused (RC908)
        when the log has grown past it, so that it never reverses a change its caller did not see
        (the playground's second tab undid another tab's change, which it never showed: a hunt)."""
        if seen is not None:
            seen = arguments.whole("Campaign.undo", "seen", seen, least=1, most=MOST_SEQ)
        migrating = self._pending[0] if self._pending is not None else None
        lead = f"undoing the latest change of campaign '{self.name}'"
        with self.request(lead=lead) as work, self.writing() as tx:
            back = _newest_first(tx, work, self.name)
            if seen is not None:
                back = self._seen(back, seen, migrating)
            target, stop = _undoable(back)
            if target is None:
                raise self._nothing_to_undo(tx, back, stop, migrating)
            seq = next(back).seq  # the event just before the change: the log has no gaps
            before = _read_one(tx, work, self.name, seq, data=False).state
            return tx.append("undo", {"undoes": target.seq, "kind": target.kind}, before, undoes=target.seq)

    def _seen(self, back: Iterator[Event], seen: int, migrating: str | None) -> Iterator[Event]:
        """`back`, the log newest first, once its newest event is `seen`; RC908 when a change came
        after what the caller saw. A migration this opening has just appended (`migrating`) is no
        event the caller could have seen, nor one to name: it is written only with the undo (the
        message named a migration rolled back with the refusal: a review)."""
        newest = next(back)
        ahead = [newest] if migrating is not None and newest.kind == "migrate" else []
        if ahead:
            newest = next(back)
        if newest.seq != seen:
            said = (
                f"campaign '{self.name}' has changed since event #{seen}, the newest its undo was asked"
                f" from: its newest is #{newest.seq} ({newest.kind}), so nothing was undone"
                if newest.seq > seen
                else f"campaign '{self.name}' has no event #{seen}: its newest is #{newest.seq}"
            )
            raise _fail("RC908", said, "read the campaign again, and undo what it shows then")
        return chain([*ahead, newest], back)

    def _nothing_to_undo(
        self, tx: Transaction, back: Iterator[Event], stop: Event | None, migrating: str | None
    ) -> CampaignError:
        """RC908, saying what stopped the undo: the campaign's making, or a migration with changes
        before it, which an undo does not reach past. When that migration is the one this opening
        accepted (`migrating`, the new ruleset's hash: `writing` has just appended it), it says so
        and what can be done, where "nothing to undo" alone was untrue (found by a review). `back`
        goes on reading the log from just before `stop`."""
        earlier = _undoable(back)[0] if stop is not None and stop.kind == "migrate" else None
        if stop is None or earlier is None:
            return _fail("RC908", f"campaign '{self.name}' has nothing to undo")
        change = f"#{earlier.seq} ({earlier.kind})"
        to = _read_one(tx, None, self.name, stop.seq, state=False).data.get("to")  # read as heads
        if migrating is not None and to == migrating:
            return _fail(
                "RC908",
                f"campaign '{self.name}' has nothing to undo under its changed ruleset, whose migration "
                f"is pending: its latest change, {change}, was made under the ruleset as it was, and an "
                "undo does not reach back past a migration",
                f"to undo #{earlier.seq}, undo without --migrate while the ruleset is the one the "
                "campaign keeps (its file as it was, or gone: the campaign then plays the text it "
                f"stored); to keep #{earlier.seq}, make the next change with --migrate, which records "
                "the migration first",
            )
        return _fail(
            "RC908",
            f"campaign '{self.name}' has nothing to undo since its ruleset was migrated (#{stop.seq}): "
            f"an undo does not reach back past a migration, to {change}",
        )

    def replay(self) -> State:
        """Every state recomputed from the log; `CampaignError` RC909 at the first that differs from
        the stored one, or that its rules cannot replay (`NO_LONGER_REPLAYS`). The stored state is
        returned when all agree. Events before a migration are replayed under the ruleset they were
        made with (kept in the migration's event). A replay is one request: every event's rules
        and `EVENT_WORK` for each charge one budget (`Limits.max_work`), so a log too long for it
        is `RC503`."""
        return self.replay_counted()[0]

    def replay_counted(self) -> tuple[State, int]:
        """What `replay` returns, and how many events it replayed: counted from the log it read,
        where a count read after it could hold another process's events since (a replay told
        "replayed 46 events" beside the state of event 44; found by a hunt)."""
        with self.request(lead=f"replaying campaign '{self.name}'") as work:
            # each event's reading and `EVENT_WORK`, charged for the events there are before any
            # is read: a log too long for the budget is refused unread (200,000 events took 6 s
            # to read before the first was charged), and one within it is charged as before
            known = self.store.last(self.name).seq
            work.charge(known * (1 + EVENT_WORK))
            events, now = self._read_now(self.store.events)
            self._same_rules(now)
            work.charge(max(0, len(events) - known) * (1 + EVENT_WORK))  # appended meanwhile
            whole(events, self.name)
            # a stored state, or one replayed: read-only either way, as `state` gives it
            return frozen_json(self._replayed(events, work, now)), len(events)

    def _replayed(self, events: list[Event], work: Work, now: Header) -> State:
        """The state `events` replay to, the last of them under the rules stored in `now`, the
        header read with them: this campaign's own, or with a migration pending here, the text
        stored now (the one it was opened on, or another process's migration to a third ruleset,
        which the text read when it was opened had replayed as a false RC909; found by a review),
        unless another process made that migration already, to these rules."""
        migrations = [e for e in events if e.kind == "migrate"]
        stored = self.model  # the rules of the stored text: not this campaign's while one is pending
        if self._pending is not None and now.ruleset_hash != self._pending[0] and self.compile is not None:
            stored = _kept(self.name, self.compile, now.ruleset_text, "the ruleset text it keeps")
        # each migration's replaced rules, compiled before any event is replayed: a kept text that
        # no longer loads is RC903 as itself, never an event's RC909
        replaced = [self._replaced(m) for m in migrations] if self.compile is not None else []
        model = replaced[0] if replaced else stored
        rules = model.state
        assert rules is not None
        states: list[State] = []
        for e in events:
            try:
                work.charge(len(e.state["characters"]))  # its reading and EVENT_WORK charged before
                if e.kind == "new":
                    got = e.state
                elif e.kind == "join":
                    params = bind_params(rules.character, e.data["params"], "character", e.data["character"])
                    got = join(rules, states[-1], e.data["character"], params)
                elif e.kind == "action":
                    played = self._rules_of(model)
                    act = played._replayed_action(e.data["action"])
                    who = played._who(act, e.data["character"], states[-1])
                    roles = played._roles(act, who, _mapping(e, "others"), states[-1])
                    bound = bind(act.inputs, e.data["inputs"], "action", act.name, act.span)
                    forced = _mapping(e, "dice", e.data["roll"]) if "roll" in e.data else None
                    got, _, _ = played._run(  # no trace: nothing reads it, and a long one is refused
                        act, states[-1], who, bound, e.data.get("seed"), forced,
                        e.data.get("policy", "always"), roles, work, False,
                    )  # fmt: skip
                elif e.kind == "roll":
                    got = states[-1]
                elif e.kind == "scene":
                    got = self._rules_of(model)._replay_scene(states[-1], e, work)
                elif e.kind == "period":
                    if e.data["period"] not in rules.periods:
                        raise self._missing("period", e.data["period"], rules.periods)
                    got, _ = begin(rules, states[-1], e.data["period"])
                elif e.kind == "undo":
                    got = _state_before(events, e.undoes or 0, states, work)
                else:  # migrate: the state is carried over to the new ruleset, which plays on
                    after = migrations.index(e) + 1
                    model = replaced[after] if after < len(replaced) else stored
                    assert model.state is not None
                    rules = model.state
                    # a migration before 2026-12-04 (no `carried`) kept the state as it was
                    got = carry(rules, states[-1], self.name)[0] if "carried" in e.data else states[-1]
            except LimitError as exc:  # the request's, as every replay's: said at the event it reached
                raise self._replaying(exc, e, rules) from None
            except NO_LONGER_REPLAYS as exc:
                # an event rulecraft wrote replays under the rules it was made with; one naming what
                # they do not have (an action, a character, an input), holding a value they refuse
                # or refused by them was written from outside, or its rules were
                d = exc.diagnostics[0]
                raise _fail(
                    "RC909",
                    f"replaying campaign '{self.name}': event {e.seq} ({e.kind}) cannot be replayed "
                    f"({d.code}: {d.message})",
                    "the log or the stored state was changed outside rulecraft",
                ) from None
            if not same_json(got, e.state):
                raise _fail(
                    "RC909",
                    f"replaying campaign '{self.name}' gives a different state at event {e.seq} ({e.kind})",
                    "the log or the stored state was changed outside rulecraft",
                )
            states.append(got)
        return states[-1]

    def _replaced(self, migration: Event) -> RulesetModel:
        """The rules migration event `migration` replaced, compiled from the text it keeps."""
        assert self.compile is not None
        which = f"the ruleset text its migration #{migration.seq} replaced"
        return _kept(self.name, self.compile, migration.data["from_text"], which)

    def _replaying(self, exc: LimitError, event: Event, rules: StateModel) -> LimitError:
        """`exc`, a budget or deadline passed while `event` was replayed under `rules`, saying which
        event, placed (when nothing inside placed it) at what the event did: its action, its
        scene, a character's parameters, the periods; else the ruleset's `state:`."""
        if event.kind == "action":
            act = rules.actions.get(str(event.data.get("action")))
            at = act.span if act is not None else None
        elif event.kind == "scene":
            scene = rules.scenes.get(str(event.data.get("scene")))
            at = scene.span if scene is not None else None
        else:
            at = {"join": rules.character_span, "period": rules.periods_span}.get(event.kind)
        lead = f"replaying campaign '{self.name}' at event {event.seq} ({event.kind})"
        return type(exc)(
            [
                replace(d, message=f"{lead}: {d.message}", span=d.span or at or rules.span)
                for d in exc.diagnostics
            ]
        )

    def export(self) -> dict[str, Any]:
        """The whole campaign as JSON: header, log and current state."""
        events, now = self._read_now(self.store.events)
        self._same_rules(now)
        return exported(now, whole(events, self.name))

    def _replay_scene(self, state: State, event: Event, work: Work) -> State:
        """The state after a stored scene: each traced step again, with its dice, charged to the
        replay's budget."""
        data = event.data
        for entry in data["trace"]:
            if not isinstance(entry, dict):
                raise _fail("RC909", f"event {event.seq}'s scene trace holds {entry!r}, not a step")
            if "begin" in entry:
                if entry["begin"] not in self.rules.periods:
                    raise self._missing("period", str(entry["begin"]), self.rules.periods)
                state, _ = begin(self.rules, state, entry["begin"])
            elif "refused" not in entry:
                act = self._replayed_action(entry.get("action"))
                who = self._who(act, entry.get("by"), state)
                roles = self._roles(act, who, _mapping(event, "others", entry), state)
                bound = bind(act.inputs, _mapping(event, "inputs", entry) or {}, "action", act.name, act.span)
                ctx = RunContext(
                    self.limits,
                    data.get("policy", "always"),
                    self.caches,
                    random.Random(0),
                    _mapping(event, "dice", entry) or {},
                    work,
                )
                state, _, _ = take(self.model, act, state, who, bound, ctx, roles, False)
        return state

    # -- helpers ---------------------------------------------------------------------------------

    def _rules_of(self, model: RulesetModel) -> Campaign:
        """This campaign played under `model` (for replaying events made before a migration)."""
        if model is self.model:
            return self
        return Campaign(self.store, self.header, model, self.limits, self.compile)

    def _replayed_action(self, name: object) -> Action:
        """The action a stored event names: one these rules do not have is `CampaignError` RC907
        (which the replay reports as RC909)."""
        if not isinstance(name, str):
            raise _fail("RC907", f"a stored event names the action {name!r}")
        return self._action(name)

    def _action(self, name: str) -> Action:
        found = self.rules.actions.get(name)
        if found is None:
            raise self._missing("action", name, self.rules.actions, self.rules.actions_span)
        return found

    def _rolls(self, act: Action) -> Check | None:
        """The check `act` rolls, if any: its dice, given as the action's inputs, are told as dice."""
        return self.model.checks.get(act.roll.check) if act.roll is not None else None

    def _missing(
        self, kind: str, name: str, known: Collection[str], span: Span | None = None
    ) -> CampaignError:
        """RC907 for a name the ruleset does not have, with the nearest (or every) name of that
        kind; `missing`, so a server answers 404; told at `span`, where such names are declared,
        if given (an unknown action at `actions:`, an unknown check at `checks:`, as an unknown
        scene is told at `scenes:`)."""
        hint = did_you_mean(name, known) or f"{kind}s: {', '.join(known) or 'none'}"
        message = f"ruleset '{self.model.name}' has no {kind} '{name}'"
        return _fail("RC907", message, hint, missing=True, span=span)

    def _roles(
        self, act: Action, who: str | None, others: Mapping[str, str] | None, state: State
    ) -> dict[str, str]:
        """The character in each of the action's roles: every role named, each by a character of
        the campaign other than the one who acts."""
        given = dict(others or {})
        names = list(state["characters"])
        for role in given:
            if role not in act.others:
                raise _fail(
                    "RC907",
                    f"action '{act.name}' has no role '{role}'",
                    did_you_mean(role, act.others) or f"roles: {', '.join(act.others) or 'none'}",
                    unfit=True,
                )
        for role in act.others:
            if role not in given:
                raise _fail(
                    "RC907",
                    f"action '{act.name}' needs the character who is its '{role}'",
                    f"give it as --other {role}=NAME (others={{'{role}': NAME}} from Python; characters: "
                    f"{', '.join(names) or 'none'})",
                    unfit=True,
                    advice=Advice("other", role, values=tuple(names)),
                )
            if given[role] not in state["characters"]:
                raise _fail(
                    "RC907",
                    f"campaign '{self.name}' has no character '{given[role]}'",
                    did_you_mean(given[role], names) or f"characters: {', '.join(names) or 'none'}",
                )
            if given[role] == who:
                raise _fail(
                    "RC907", f"'{who}' cannot be both the one who acts and the action's '{role}'", unfit=True
                )
        if len(set(given.values())) != len(given):
            raise _fail("RC907", f"one character cannot fill two roles of action '{act.name}'", unfit=True)
        return given

    def _who(self, act: Action, character: str | None, state: State) -> str | None:
        if act.by != "character":
            if character is not None:
                raise _fail(
                    "RC907",
                    f"action '{act.name}' is taken by the table, not by a character",
                    "leave out the character",
                    unfit=True,
                )
            return None
        names = list(state["characters"])
        if character is None:
            raise _fail(
                "RC907",
                f"action '{act.name}' needs the character who acts",
                f"characters: {', '.join(names)}" if names else "no character has joined yet",
                unfit=True,
            )
        if character not in state["characters"]:
            raise _fail(
                "RC907",
                f"campaign '{self.name}' has no character '{character}'",
                did_you_mean(character, names) or f"characters: {', '.join(names) or 'none'}",
            )
        return character


def exported(header: Header, events: list[Event]) -> dict[str, Any]:
    """A campaign as JSON: header, log and current state. It reads no rules, so a campaign whose
    ruleset changed or no longer loads is exported all the same. Read-only all the way down: the
    events' data and states are the store's own, read-only already (`Event`), and not copied."""
    return FrozenDict(
        campaign=header.name,
        ruleset=header.ruleset,
        ruleset_hash=header.ruleset_hash,
        params=header.params,
        created=header.created,
        events=FrozenList(
            FrozenDict(seq=e.seq, kind=e.kind, at=e.at, undoes=e.undoes, data=e.data, state=e.state)
            for e in events
        ),
        state=events[-1].state,
    )


def _acting(where: str, action: Any, character: Any, others: Any, policy: Any) -> str:
    """The arguments every action shares: which, by whom, with whom, under which policy. The
    policy's own name is returned, checked whether or not the action rolls (an action that rolls
    nothing stored an unknown one in its event, found by a review)."""
    arguments.name(where, "action", action)
    arguments.name(where, "character", character, optional=True)
    arguments.mapping(where, "others", others, of_names=True)
    arguments.name(where, "policy", policy)
    return check_policy(policy)


def _rolling(where: str, seed: Any, forced: Any) -> int | None:
    """The arguments every recorded roll shares: its seed (returned as Python's `int`, which the
    event's JSON holds) and forced dice."""
    read = arguments.seed(where, seed)
    arguments.mapping(where, "forced", forced)
    return read


def take(
    model: RulesetModel,
    act: Action,
    state: State,
    who: str | None,
    bound: Mapping[str, Any],
    ctx: RunContext,
    roles: Mapping[str, str] | None = None,
    trace: bool = True,
) -> tuple[State, list[dict[str, Any]], Result | None]:
    """One action on a state, pure: preconditions, the roll (with `ctx`'s random source, forced
    dice and policy; with its trace or without), the effects. The next state, the effects applied
    and the roll made. (A sampled scene takes the same three parts, `roll_of`, the roll and
    `apply` with `rolled`, and keeps per state what comes before the dice.)"""
    rules = model.state
    assert rules is not None
    memo = ctx.caches.environments
    ctx = with_work(ctx)
    assert ctx.work is not None
    with working(ctx.work):  # preconditions, inputs and effects share the roll's budget
        roll = roll_of(rules, model.checks, act, state, who, bound, roles, memo)
        if roll is None and ctx.forced:
            # as a die its check does not roll is RC405 (`sample`), not dice ignored (hunt 11)
            raise InputError(
                [
                    Diagnostic(
                        "RC405",
                        f"'{next(iter(ctx.forced))}' is not a die or draw of action '{act.name}', "
                        "which rolls nothing",
                        act.span,
                        "force dice only for an action with a 'roll:'",
                    )
                ]
            )
        result = sample(roll[0], roll[1], ctx, trace) if roll is not None else None
        if roll is not None and result is not None:  # its dice, as a batch's or a scene's roll's
            ctx.work.charge(roll_units(roll[0], kept_weights(roll[0], ctx.caches.bindings), result))
        new, done = apply(
            rules, act, state, who, bound, rolled(roll[0] if roll else None, result), roles, memo
        )
    return new, done, result


def rolled(check: Check | None, result: Result | None) -> Seen | None:
    """What an action's effects see of a roll of `check` made (None when the action rolls nothing)."""
    if check is None or result is None:
        return None
    return seen_roll(check, result.values, result.outcome, result.auto)


def window(
    where: str, after: Any, before: Any, limit: Any, newest: Any, *, shown: Mapping[str, str] | None = None
) -> Window:
    """A caller's page of a log, each bound checked (`arguments.whole`) and named as the caller
    wrote it (`shown`: the command line's flags): event numbers are whole, from 0 (`after`) and 1
    (`before`), at most `MOST_SEQ`, and a page holds at least one event."""
    name = {"after": "after", "before": "before", "limit": "limit", **(shown or {})}
    arguments.of_type(where, "newest", newest, bool)
    return Window(
        arguments.whole(where, name["after"], after, most=MOST_SEQ),
        None
        if before is None
        else arguments.whole(where, name["before"], before, least=1, most=MOST_SEQ + 1),
        None if limit is None else arguments.whole(where, name["limit"], limit, least=1, most=MOST_SEQ),
        newest,
    )


def _undoable(back: Iterator[Event]) -> tuple[Event | None, Event | None]:
    """The latest change not yet undone, from the log read newest first (`back`, read only as far
    as needed), and None; or None and what stopped the search: the campaign's making or a
    migration of its ruleset, which are not undone (undoing again walks further back). An event
    is undone only by a later undo, so the undos met on the way are all that can have undone it."""
    undone: set[int | None] = set()
    for e in back:
        if e.kind in ("new", "migrate"):
            return None, e
        if e.kind == "undo":
            undone.add(e.undoes)
        elif e.kind != "roll" and e.seq not in undone:
            return e, None
    return None, None


UNDO_PAGE = 256
"""How many events an undo reads at a time as it looks back for the change to reverse."""


def _newest_first(tx: Transaction, work: Work, name: str) -> Iterator[Event]:
    """The log from its newest event back, read a page at a time inside `tx`, each event charged
    to `work` as it is read (as an undo charged the whole log it read before). A page that does
    not end just before the one read after it, or the last, short one not starting at event 1,
    means a gap in the log: RC903 (an undo whose change was the oldest event left found no event
    before it: a traceback, found by a review)."""
    before: int | None = None
    while True:  # each event's number, kind and undoes alone: neither its data nor its state
        page = tx.events(Window(before=before, limit=UNDO_PAGE, newest=True, data=False, state=False))
        work.charge(len(page))
        gone = None
        if before is not None and page and page[-1].seq != before - 1:
            gone = f"event {before - 1} is missing (the log goes on at event {before})"
        elif len(page) < UNDO_PAGE:  # the log's start: event 1 must be in it
            first = page[0].seq if page else (before or 1)
            if first > 1:
                lost = "event 1 is" if first == 2 else f"events 1 to {first - 1} are"
                gone = f"{lost} missing (the log starts at event {first})"
        if gone is not None:
            raise _fail(
                "RC903", f"campaign '{name}' is damaged: {gone}", "the log was changed outside rulecraft"
            )
        yield from reversed(page)
        if len(page) < UNDO_PAGE or page[0].seq <= 1:
            return
        before = page[0].seq


def _read_one(
    tx: Transaction, work: Work | None, name: str, seq: int, *, data: bool = True, state: bool = True
) -> Event:
    """Event `seq`, which the log was found to hold, read inside `tx` with the parts asked for
    (charged a unit); RC903 if it is gone or another (the log was changed outside rulecraft)."""
    got = tx.events(Window(after=seq - 1, before=seq + 1, data=data, state=state))
    if work is not None:
        work.charge(1)
    if len(got) != 1 or got[0].seq != seq:
        raise _fail(
            "RC903",
            f"campaign '{name}' is damaged: event {seq} is missing",
            "the log was changed outside rulecraft",
        )
    return whole(got, name)[0]


def _mapping(event: Event, key: str, within: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """A mapping a stored event holds under `key` (in its data, or in `within`, a part of it):
    None when it holds none; `CampaignError` RC907 when it holds something else (written from
    outside), which the replay reports as RC909."""
    value = (event.data if within is None else within).get(key)
    if value is None or isinstance(value, dict):
        return value
    raise _fail("RC907", f"event {event.seq} holds {key!r} as {type(value).__name__}, not a mapping")


def _state_before(
    events: list[Event], seq: int, states: list[State] | None = None, work: Work | None = None
) -> State:
    """The state just before event `seq` (from the stored log, or from states replayed so far);
    `work` is charged a unit for each event looked at."""
    index = next(i for i, e in enumerate(events) if e.seq == seq)
    if work is not None:
        work.charge(index + 1)
    if states is not None:
        return states[index - 1]
    return events[index - 1].state
