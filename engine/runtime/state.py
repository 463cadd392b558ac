"""What lasting state does, stated once: starting values, the environment an expression sees, an
action's preconditions and effects, promotions, bounds, and periods that reset items.

A state is plain JSON (see `engine.state.records.State`):
`{"params": {...}, "shared": {item: value}, "characters": {name: {"params": {...}, "items": {...}}}}`
— a counter is an int, a tally `{member: count}` (members with 0 left out). These functions never
change the state they are given; they return a new one, or raise `CampaignError` and change nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from fractions import Fraction
from itertools import chain, repeat
from typing import Any, NamedTuple

from ..errors import (
    MAX_COMPUTED_DIGITS,
    BoundError,
    CampaignError,
    Diagnostic,
    EvalError,
    InputError,
    LimitError,
    RulecraftError,
    did_you_mean,
    no_value,
)
from ..frozen import replace
from ..model.ruleset import Check, Expr, InputSpec
from ..model.state import Action, Counter, Derived, Effect, Item, StateModel, Tally
from ..model.values import Multi, normalize, to_json
from ..syntax.positions import Span
from .bounds import TOO_BIG, bounded
from .cache import BoundedCache
from .inputs import bind, bind_inputs, describe, written_for
from .work import meter

State = dict[str, Any]
MAX_PROMOTIONS = 1000
"""Promotions one change may set off; past it the rules loop (`RC906`), never hang."""

# What these functions charge the request's work budget (`work.meter()`: the running request's
# counter, or nothing outside one), in units of about a microsecond as everywhere (measured on a
# state of 18 items a character: an environment 11 µs, a copy 1.7 µs a character, a tally's
# member 0.02 µs). Each is charged before the work is done, so a large state is refused (`RC503`)
# before it is built.
ITEM_WORK = 1
"""Units per item a campaign's environment reads (a counter, a tally or a derived value), per
character's sheet a state's copy holds, per item a period looks at and per effect an action
applies."""
MEMBERS_PER_UNIT = 32
"""Members of a tally (a track's entries, one each) built into the pool expressions read, per
unit: a tally of fewer costs only its item."""
FREE_WIDTH = 64
"""Items a state may hold (the table's and every character's) before a scene is charged for its
width: a scene's own charges per state and step (`scenes.odds.NODE_WORK`, `scenes.play.STEP_WORK`,
`state.exact.APPLY_WORK`) were measured on states of up to 36 items (the largest a shipped
scene holds)."""
APPLY_PASSES = 2
"""Passes over a wide state's items (`width_work`) a scene charges for each state an action's
effects make: their view, the copy, the bounds checked and the new state keyed took about 2 µs
an item (measured at 1,500 counters). What comes before the roll (the preconditions' and the
inputs' view) and a state's first look (its scene view) are charged one pass each."""


TALLY_WIDTH = 12
"""Items a tally counts as in a state's width (`width_work`): a view reads it as a pool of its
members (`tally_value`, about 5.6 µs for a tally of four members holding six), where a counter's
value is read as it is. Played round by round, a state of 20 such tallies took about 62 µs a
tally a round and one of 240 counters about 5.7 µs a counter (1,000 rounds each, 2026-12-06):
eleven times a counter, so twelve items. The shipped ruleset with tallies in its scenes (two
characters of 20 items and a wound track each) weighs 64, within `FREE_WIDTH`."""


def width_work(model: StateModel, state: State) -> int:
    """Units a scene charges, besides its own, for one pass over a state's items past the first
    `FREE_WIDTH`: a unit an item, `TALLY_WIDTH` a tally. A scene keeps its views (`environment`'s
    `memo`), so reads are not charged one by one there; but a state it meets is still read, keyed,
    copied and checked item by item (about 0.5 µs an item a pass, measured at 1,500 counters), and
    a node of 1,500 counters, charged 170 units for some 7,000 µs, let a solve run 200 s under the
    default budget (found by a hunt); 20 tallies, each counted as one item, let a played scene run
    20 s (hunt 11b)."""
    shared, each = model.tallies
    own = len(model.each) + (TALLY_WIDTH - 1) * each
    items = len(model.shared) + (TALLY_WIDTH - 1) * shared + own * len(state["characters"])
    return ITEM_WORK * max(0, items - FREE_WIDTH)


def _fail(code: str, message: str, span: Span | None, hint: str | None = None) -> CampaignError:
    return CampaignError([Diagnostic(code, message, span, hint)])


# -- parameters --------------------------------------------------------------------------------


def bind_params(
    specs: tuple[InputSpec, ...],
    given: Mapping[str, Any],
    kind: str,
    owner: str,
    flag: str | None = None,
    span: Span | None = None,
) -> dict[str, Any]:
    """Typed parameters of a campaign, a scene (a campaign's parameters, given to the scene) or a
    character (text or Python values); `kind` names which in the diagnostics, `flag` how the
    command line gives one (a character's: `NAME:KEY=VALUE`, after `--character` or `join`).
    A name that is no parameter is told at `span`: where such parameters are declared (a bad or
    missing value is told at its own parameter's declaration)."""
    if flag is None:
        flag = f"{owner}:" if kind == "character" else "--param"
    return bind(specs, given, kind, owner, span, flag)


def _params(specs: tuple[InputSpec, ...], stored: Mapping[str, Any]) -> dict[str, Any]:
    """Stored (JSON) parameters back to typed values. They were checked when they were given, so
    only their JSON form is undone here (a scale member's name, an exact fraction's text)."""
    out: dict[str, Any] = {}
    for spec in specs:
        value = stored.get(spec.name)
        if spec.scale is not None and isinstance(value, str):
            value = spec.scale[value]
        elif isinstance(value, str):  # "n/d", as `to_json` writes a fraction
            value = normalize(Fraction(value))
        out[spec.name] = value
    return out


def copied_items(values: Mapping[str, Any]) -> dict[str, Any]:
    """`values` with every value copied that can be changed in place: a state's items (a whole
    number, or a tally's one level of counts) or an effect's change, whose `from` and `to` are the
    very counts of the states it joins. Copied whole, then count by count: a quarter quicker than
    a comprehension, since most values are whole numbers."""
    copy = dict(values)
    for name, value in values.items():
        if isinstance(value, dict):
            copy[name] = dict(value)
    return copy


def _copied(state: State) -> State:
    """A copy deep enough to change any item in (a state is JSON: items are whole numbers or
    one level of counts); far quicker than `copy.deepcopy`, which a scene calls for every roll.
    Charged a unit (`ITEM_WORK`) per character's sheet, and one for the table's."""
    meter().charge(ITEM_WORK * (1 + len(state["characters"])))
    return {
        **state,
        "params": dict(state["params"]),
        "shared": copied_items(state["shared"]),
        "characters": {
            name: {**sheet, "params": dict(sheet["params"]), "items": copied_items(sheet["items"])}
            for name, sheet in state["characters"].items()
        },
    }


# -- the environment ---------------------------------------------------------------------------


MOST_IN_TALLY = 100_000
"""Members one tally may hold in all, whatever its `max`: expressions read a tally as a pool of
its members, one each (as many as `Limits.max_bag` chits in a bag)."""


def tally_value(tally: Tally, counts: Mapping[str, int]) -> Multi:
    """A tally as expressions read it: a pool of its members (so `count(coins, 'tails')` works).
    A total past `MOST_IN_TALLY` is refused before the pool is made (RC906), so a change, or a
    stored state, cannot make one request hold billions of members."""
    total = sum(counts.values())
    if total > MOST_IN_TALLY:
        raise _fail(
            "RC906",
            f"'{tally.name}' would hold {total:,}, more than a tally may ({MOST_IN_TALLY:,})",
            tally.span,
            "give the tally a 'max', or keep a large amount in a counter",
        )
    meter().charge(total // MEMBERS_PER_UNIT)
    items = tuple(chain.from_iterable(repeat(m, counts.get(m.name, 0)) for m in tally.scale.members))
    return Multi(
        items, tally=tuple((m, counts[m.name]) for m in tally.scale.members if counts.get(m.name, 0))
    )


def _read(items: Mapping[str, Item], stored: Mapping[str, Any], env: dict[str, Any]) -> None:
    for name, item in items.items():
        if isinstance(item, Counter):
            env[name] = stored[name]
        elif isinstance(item, Tally):
            env[name] = tally_value(item, stored[name])
        else:
            env[name] = _run(item.expr, env, f"derived value '{name}'")


def environment(
    model: StateModel,
    state: State,
    character: str | None,
    others: Mapping[str, str] | None = None,
    memo: BoundedCache | None = None,
    *,
    charged: bool = True,
) -> dict[str, Any]:
    """What an expression sees: the campaign's parameters and shared items, and — for a character —
    its parameters and items; derived values computed in order. Each other character an action
    names by a role (`others`) is seen as `ROLE.NAME` (its parameters and items).

    With a `memo` (a scene asks the same of thousands of states that share most of their parts)
    the environment is kept under the parts of the state it reads; the caller gets its own copy.
    Without one it is charged `ITEM_WORK` per item it reads, unless not `charged`: a scene, which
    keeps them, charges its own work per state and step it meets (`scenes.play`, `scenes.odds`),
    and a pass over a wide state's items for each view it makes (`width_work`)."""
    if memo is None:  # a campaign's request: charged per item read (a scene charges per state)
        if charged:
            owners = (1 if character is not None else 0) + len(others or ())
            meter().charge(ITEM_WORK * (len(model.shared) + owners * len(model.each)))
        return _environment(model, state, character, others)
    key = _parts(state, character, others)
    found: dict[str, Any] | None = memo.get(key)
    if found is None:
        found = _environment(model, state, character, others)
        memo.put(key, found)
    return dict(found)


def _parts(state: State, character: str | None, others: Mapping[str, str] | None) -> tuple[Any, ...]:
    """The parts of a state an environment reads, as a key: equal text means equal values."""
    sheets = state["characters"]
    return (
        character,
        tuple(others.items()) if others else (),
        repr(state["params"]),
        repr(state["shared"]),
        *(repr(sheets[who]) for who in (character, *(others or {}).values()) if who is not None),
    )


def _environment(
    model: StateModel, state: State, character: str | None, others: Mapping[str, str] | None
) -> dict[str, Any]:
    env = _params(model.campaign, state["params"])
    _read(model.shared, state["shared"], env)
    if character is not None:
        sheet = state["characters"][character]
        env.update(_params(model.character, sheet["params"]))
        _read(model.each, sheet["items"], env)
    for role, who in (others or {}).items():
        theirs = _environment(model, state, who, None)
        for name in [*(s.name for s in model.character), *model.each]:
            env[f"{role}.{name}"] = theirs[name]
    return env


def _run(expr: Expr, env: Mapping[str, Any], what: str, own: bool = False) -> Any:
    """`expr`'s value in `env`, its errors told as `what`'s. Each run gets a copy of `env`, unless
    it is the caller's `own` view, which several expressions read in turn (a bounds check reads one
    for every item: a copy for each was O(items²) a state, 28 ms at 1,500 counters; an expression
    only reads its view)."""
    if not (own and isinstance(env, dict)):
        env = env.copy() if isinstance(env, Seen) else dict(env)
    try:  # a sum has no bound of its own in the code: a derived value or an amount is held to it
        value = expr.run(env)
        if type(value) is not int or not -TOO_BIG < value < TOO_BIG:  # (the usual small int: no call)
            value = bounded(value, expr.node.span)
        return value
    except LimitError as exc:  # a spent budget stays a LimitError, placed at the expression
        d = exc.diagnostics[0]  # of its own kind: a deadline (504), a number too long (the rules')
        raise type(exc)([replace(d, message=f"{what}: {d.message}", span=d.span or expr.node.span)]) from None
    except RulecraftError as exc:
        d = exc.diagnostics[0]
        raise CampaignError([d.retold(d.code, f"{what}: {d.message}", d.span)]) from None


# -- making a campaign and its characters ------------------------------------------------------


def _start(items: Mapping[str, Item], env: dict[str, Any]) -> dict[str, Any]:
    """Start values in order (each sees the ones before it), checked against the bounds."""
    out: dict[str, Any] = {}
    for name, item in items.items():
        if isinstance(item, Counter):
            out[name] = _whole(_run(item.start, env, f"the start of '{name}'"), item.start.node.span, name)
            env[name] = out[name]
        elif isinstance(item, Tally):
            counts = {
                m: _member(_run(e, env, f"the start of '{name}'"), e.node.span, name, m)
                for m, e in item.start
            }
            out[name] = _ordered(item, counts)
            env[name] = tally_value(item, out[name])
        else:
            env[name] = _run(item.expr, env, f"derived value '{name}'")
    return out


def _ordered(tally: Tally, counts: Mapping[str, int]) -> dict[str, int]:
    """A tally's counts in its scale's order, members with none left out."""
    return {m.name: counts[m.name] for m in tally.scale.members if counts.get(m.name, 0)}


def _whole(value: Any, span: Span | None, name: str) -> int:
    """A count or an amount: a whole number, a fraction of denominator 1 too (`x * 2` of a number
    input `x = 1/2` is 1 held as a fraction, and was refused as "not whole, got 1": hunt 13g)."""
    if type(value) is int:  # the usual case first: `isinstance(x, Fraction)` asks an ABC
        return value
    if type(value) is Fraction and value.denominator == 1:
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail("RC906", f"'{name}' must be a whole number, got {value}", span)
    return value


def _member(value: Any, span: Span | None, name: str, member: str) -> int:
    """A count a tally starts with (its `start`, or an example's): a whole number, and none
    below zero, since a tally of -1 lit is no state any rule could read again (found by a
    review: such a start was written, then every read and undo of the campaign failed)."""
    count = _whole(value, span, name)
    if count < 0:
        raise _fail(
            "RC906",
            f"'{name}' would start with {count} {member}: a tally holds no member below zero",
            span,
            "keep the start at 0 or more, e.g. max(0, ...)" if span is not None else None,
        )  # without a span it is an example's own `start:`, a number written out, not a rule
    return count


def new_state(model: StateModel, params: Mapping[str, Any]) -> State:
    """The state of a new campaign with bound `params` and no characters yet."""
    env = dict(params)
    state: State = {"params": {k: to_json(v) for k, v in params.items()}, "characters": {}}
    state["shared"] = _start(model.shared, env)
    _check_bounds(model, state, None, None)
    return state


def join(model: StateModel, state: State, character: str, params: Mapping[str, Any]) -> State:
    """The state with a new character, made with bound `params`."""
    return join_all(model, state, [(character, params)])


def join_all(model: StateModel, state: State, joining: Iterable[tuple[str, Mapping[str, Any]]]) -> State:
    """The state with each new character of `joining` (its name and bound parameters, taken one
    at a time: a caller that binds them as they are taken is told of the first problem `join`
    after `join` would meet), as `join` after `join` would make it, but copied once: a campaign
    made with 1,600 characters copied every sheet for each, 4.2 s, and 3,000 passed the deadline
    (hunt 13zp)."""
    new = _copied(state)
    for character, params in joining:
        if character in new["characters"]:
            raise _fail("RC902", f"there is already a character '{character}'", None, "choose another name")
        env = environment(model, new, None)
        env.update(params)
        try:
            sheet = {"params": {k: to_json(v) for k, v in params.items()}, "items": _start(model.each, env)}
            new["characters"][character] = sheet
            _check_bounds(model, new, character, None)
        except RulecraftError as exc:
            if isinstance(exc, LimitError) and not isinstance(exc, BoundError):
                raise  # the request's budget or deadline, not the character's
            # whose start or bound it is: of characters made together, "'luck' would start with -1
            # fresh" named none of them (a hunt's LOW finding), nor a number too long (a review)
            told = [
                replace(d, message=f"{d.message} (as character '{character}' joins)") for d in exc.diagnostics
            ]
            raise type(exc)(told, missing=exc.missing, unfit=exc.unfit) from None
    return new


def carry(model: StateModel, state: State, campaign: str) -> tuple[State, list[str]]:
    """The state under a ruleset's new rules, for a migration: what the new rules still declare
    is carried as it is; a parameter or an item they add takes its default or start, one they
    drop is left out, one whose kind changed takes its start (its value dropped). Then every
    bound and derived value is checked, so a state the new rules cannot hold is refused (nothing
    is migrated). The second part names each difference (`added shared.alarms`, `dropped
    bo.nerve`, both for an item whose kind changed), for the migration's event."""
    try:
        new, changes = _carried(model, state, campaign)
    except LimitError:
        raise  # a spent budget is the request's (RC503), not a state the new rules refuse
    except RulecraftError as exc:
        d = exc.diagnostics[0]
        message = f"campaign '{campaign}' cannot take the new ruleset: {d.message}"
        if d.code == "RC906":
            # a value past a bound: a hint of its own, as the refusal's (a precondition, or
            # `clamp: true` on an effect) is for a change an effect made, and no effect is
            # running here (found by a hunt)
            hint = (
                "the state is carried over as it is, and the new rules cannot hold it: give them "
                "a bound that takes it, or change the state under the old rules before migrating"
            )
            raise CampaignError([Diagnostic(d.code, message, d.span, hint)]) from None
        fallback = (
            "the state is carried over as it is; a bound it is past or a parameter with no "
            "default that the new rules add cannot be carried"
        )
        raise CampaignError([d.retold(d.code, message, d.span, fallback)]) from None
    return new, [str(c) for c in changes]


def misfit(model: StateModel, state: State, campaign: str) -> str | None:
    """What a stored state lacks that these rules read, if anything (an item missing or of
    another kind, a parameter they need, a value past its bound or a derived value that fails):
    rulecraft writes only states its rules can read, so such a state was changed from outside."""
    try:
        _, changes = _carried(model, state, campaign)
    except LimitError:
        raise  # a spent budget is the request's (RC503), not damage to the state
    except RulecraftError as exc:
        return exc.diagnostics[0].message
    # what the rules no longer declare is not read, and a migration before 2026-12-04 kept it
    # as it was: only what they need and lack (or hold in another kind) is damage
    missing = [c.path for c in changes if c.added]
    if missing:
        return "no " + ", no ".join(missing) + " of the kind the rules keep"
    return None


class Change(NamedTuple):
    """One difference a migration makes to a state: a part the new rules add (taking its default
    or start) or one they drop. Read by `misfit` as data; written to the migration's event as
    its text (`added shared.alarms`)."""

    added: bool
    path: str

    def __str__(self) -> str:
        return f"{'added' if self.added else 'dropped'} {self.path}"


def _carried(model: StateModel, state: State, campaign: str) -> tuple[State, list[Change]]:
    """`carry`'s work, its errors as they are raised."""
    notes: list[Change] = []

    def kept(
        specs: tuple[InputSpec, ...], stored: Mapping[str, Any], kind: str, owner: str
    ) -> dict[str, Any]:
        names = {spec.name for spec in specs}
        where = "params" if kind == "campaign" else f"{owner}.params"
        for spec in specs:
            if spec.default is None and spec.name not in stored:
                # no command gives a parameter after the campaign is made or the character joins
                # (the RC401 of `bind_params` hinted `--param`, which `act` has not: hunt 11)
                of_campaign = kind == "campaign"
                whose = "the campaign" if of_campaign else f"character '{owner}'"
                given = "it is made" if of_campaign else "they join"
                raise _fail(
                    "RC401",
                    f"{whose} has no value for the parameter '{spec.name}' ({describe(spec)}), "
                    "which has no default",
                    spec.span,
                    f"a {kind}'s parameters are given when {given}, never after: give '{spec.name}' "
                    f"a default in the ruleset ({spec.name}: {{..., default: VALUE}}) and migrate again",
                )
        notes.extend(Change(False, f"{where}.{k}") for k in stored if k not in names)
        notes.extend(Change(True, f"{where}.{k}") for k in names if k not in stored)
        return bind_params(specs, {k: v for k, v in stored.items() if k in names}, kind, owner)

    def items(
        declared: Mapping[str, Item], stored: Mapping[str, Any], env: dict[str, Any], where: str
    ) -> dict[str, Any]:
        out: dict[str, Any] = {}
        meter().charge(ITEM_WORK * (len(declared) + len(stored)))
        for name, item in declared.items():
            value = stored.get(name)
            if isinstance(item, Derived):
                env[name] = _run(item.expr, env, f"derived value '{name}'")
            elif isinstance(item, Counter) and type(value) is int:
                out[name] = env[name] = value
            elif (
                isinstance(item, Tally)
                and isinstance(value, dict)
                and all(type(n) is int and n > 0 for n in value.values())
            ):
                members = item.scale.names
                notes.extend(Change(False, f"{where}.{name}.{m}") for m in value if m not in members)
                out[name] = _ordered(item, {m: n for m, n in value.items() if m in members})
                env[name] = tally_value(item, out[name])
            else:
                if name in stored:  # of another kind (a counter made a tally): its value is lost
                    notes.append(Change(False, f"{where}.{name}"))
                out.update(_start({name: item}, env))
                notes.append(Change(True, f"{where}.{name}"))
        notes.extend(Change(False, f"{where}.{name}") for name in stored if name not in out)
        return out

    params = kept(model.campaign, state["params"], "campaign", campaign)
    env = dict(params)
    new: State = {"params": {k: to_json(v) for k, v in params.items()}, "characters": {}}
    new["shared"] = items(model.shared, state["shared"], env, "shared")
    for who, sheet in state["characters"].items():
        theirs = kept(model.character, sheet["params"], "character", who)
        own = {**env, **theirs}
        new["characters"][who] = {
            "params": {k: to_json(v) for k, v in theirs.items()},
            "items": items(model.each, sheet["items"], own, who),
        }
    for owner in [None, *new["characters"]]:
        _check_bounds(model, new, owner, None, shared=owner is None)
    return new, notes


def with_values(model: StateModel, state: State, given: Mapping[str, Any]) -> State:
    """The state with some items set outright (`{"shared": {...}, "characters": {who: {...}}}`):
    a starting position for an example. Values are checked like any other change."""
    new = _copied(state)
    places: list[tuple[Mapping[str, Any], dict[str, Any]]] = [(given.get("shared") or {}, new["shared"])]
    for who, items in (given.get("characters") or {}).items():
        if who not in new["characters"]:
            raise _fail(
                "RC907",
                f"there is no character '{who}' to start",
                None,
                did_you_mean(str(who), new["characters"]) or "name it under 'characters:'",
            )
        places.append((items, new["characters"][who]["items"]))
    for values, slot in places:
        for name, value in values.items():
            item = model.item(name)
            if isinstance(item, Tally):
                if not isinstance(value, Mapping) or any(m not in item.scale.names for m in value):
                    raise _fail(
                        "RC906",
                        f"'{name}' starts as counts of its members ({', '.join(item.scale.names)})",
                        None,
                    )
                slot[name] = _ordered(item, {m: _member(n, None, name, m) for m, n in value.items()})
            else:
                slot[name] = _whole(value, None, name)
    for owner in [None, *new["characters"]]:  # a sheet's bounds may read the table's items
        _check_bounds(model, new, owner, None, shared=owner is None)
    return new


# -- actions ------------------------------------------------------------------------------------


def refusal(
    model: StateModel,
    action: Action,
    state: State,
    character: str | None,
    inputs: Mapping[str, Any],
    others: Mapping[str, str] | None = None,
    memo: BoundedCache | None = None,
) -> None:
    """Raise `CampaignError` RC905 naming the first precondition that does not hold."""
    env = {**environment(model, state, character, others, memo), **inputs}
    for req in action.requires:
        if not _run(req.when, env, f"a precondition of '{action.name}'"):
            raise _fail(
                "RC905",
                f"action '{action.name}' is refused: {req.message}",
                req.span,
                f"it requires {req.when.text}",
            )


def roll_of(
    model: StateModel,
    checks: Mapping[str, Check],
    action: Action,
    state: State,
    character: str | None,
    inputs: Mapping[str, Any],
    others: Mapping[str, str] | None = None,
    memo: BoundedCache | None = None,
) -> tuple[Check, dict[str, Any]] | None:
    """What comes before an action's dice: its preconditions (`refusal`), then the check it rolls
    with the inputs it binds from the state (None when it rolls nothing). One home for a real
    action, a sampled scene's step (kept per state) and the exact state after an action."""
    refusal(model, action, state, character, inputs, others, memo)
    if action.roll is None:
        return None
    check = checks[action.roll.check]
    env = {**environment(model, state, character, others, memo), **inputs}
    given = {name: expr.run(dict(env)) for name, expr in action.roll.inputs}
    try:
        return check, bind_inputs(check, given)
    except InputError as exc:
        raise _given_by_action(exc, check, action) from None


def _given_by_action(exc: InputError, check: Check, action: Action) -> InputError:
    """A check's input refused where the action works it out (`roll: inputs:`), out of its bounds
    or of another kind: told at the action's expression, saying what it is, with the check's
    declaration's place in the words. It was told at the declaration alone, as if the user had
    given the value (hunt 13v: `input 'traits' = -31 is below its minimum -30` for an action whose
    own `traits` was 0 and whose expression subtracts the character's Practicality)."""
    written = dict(action.roll.inputs) if action.roll is not None else {}
    told = []
    for d in exc.diagnostics:
        expr, where = written_for(d, check.inputs, written)
        if expr is None or expr.node.span is None:
            told.append(d)
            continue
        by = f"worked out by action '{action.name}' as {expr.text} for check '{check.name}'{where}"
        told.append(d.retold(d.code, f"{d.message}: {by}", expr.node.span))
    return InputError(told)


class Seen(dict[str, Any]):
    """What an action's effects read after its roll (`seen_roll`): the check's values and its
    outcome, and, once `within` the state, the state's items and the action's inputs. A value
    an auto rule left without one, deciding the outcome before the roll (`unrolled`), is missing:
    reading it is RC402 in the words `errors.no_value` gives every reader of such a value, at the
    expression that read it, not a value of an unexpected kind (RC506)."""

    def __init__(
        self, entries: Mapping[str, Any], check: str, known: tuple[str, ...], unrolled: frozenset[str]
    ) -> None:
        super().__init__(entries)
        self.check = check
        self.known = known
        """The check's values this roll has (the hint names them)."""
        self.unrolled = unrolled

    def within(self, env: Mapping[str, Any]) -> Seen:
        """`env` (the state's items and the action's inputs) with this roll seen over it."""
        return Seen({**env, **self}, self.check, self.known, self.unrolled)

    def copy(self) -> Seen:
        """A copy that still knows what is unrolled (`_run` gives each expression its own)."""
        return self.within({})

    def __missing__(self, name: str) -> Any:
        if name not in self.unrolled:
            raise KeyError(name)
        [d] = no_value(self.check, name, self.known, self.unrolled).diagnostics
        hint = (
            f"the values this roll has: {', '.join(self.known) or 'none'}; a 'when:' on the effect "
            f"can leave '{name}' unread when the auto rule decides"
        )
        raise EvalError([replace(d, hint=hint)])


def seen_roll(check: Check, values: Mapping[str, Any], outcome: Any, auto: bool) -> Seen:
    """What an action's effects see of its roll (`apply`'s `rolled`): the check's values and its
    outcome, whether the roll was made or is one point of its exact distribution. When an `auto`
    rule decided, every value worked out after the roll is unrolled (its pools too, which
    `Check.unrolled`, asked of a distribution, leaves out)."""
    unrolled = frozenset(n for n in check.layout if n not in values) if auto else frozenset()
    present = tuple(n for n in check.value_names if n in values)
    return Seen({**values, "outcome": outcome}, check.name, present, unrolled)


def apply(
    model: StateModel,
    action: Action,
    state: State,
    character: str | None,
    inputs: Mapping[str, Any],
    rolled: Seen | None = None,
    others: Mapping[str, str] | None = None,
    memo: BoundedCache | None = None,
) -> tuple[State, list[dict[str, Any]]]:
    """The state after `action`'s effects, and what each effect did; `rolled` holds the roll's
    outcome, values and outputs, `others` the characters it names by role. Preconditions are
    checked first (`refusal`)."""
    others = others or {}
    refusal(model, action, state, character, inputs, others, memo)
    new = _copied(state)
    done: list[dict[str, Any]] = []
    env: dict[str, Any] | None = None
    entry: tuple[dict[str, Any], bool] | None = None  # the view and condition of the entry applied
    work = meter()
    for effect in action.effects:
        work.charge(ITEM_WORK)
        if entry is not None:  # an item of the entry before: the state as that entry found it
            seen, taken = entry
        else:
            if env is None:  # the state changed (or this is the first effect): see it anew
                env = {**environment(model, new, character, others, memo), **inputs}
                if rolled is not None:
                    env = rolled.within(env)
            seen = env
            taken = effect.when is None or bool(_run(effect.when, env, f"a condition of '{action.name}'"))
        entry = (seen, taken) if effect.with_next else None
        if not taken:
            continue
        who = others[effect.on] if effect.on else character
        changed = _effect(model, effect, new, who, seen, memo)
        if not changed:
            continue  # the state is as it was, and that was within its bounds
        env = None
        # a wide state is read again for its bounds and for the next effect's view: a pass each
        # over its items (a campaign's view is kept in `memo`, so reads there are not charged one
        # by one; 200 effects over 1,000 tallies ran 2.7 s on a twentieth of the budget: review AU)
        work.charge(APPLY_PASSES * width_work(model, new))
        if effect.on:
            changed = [{**c, "character": who} for c in changed]
        done += changed
        if any(model.owner(c["item"]) == "shared" for c in changed):
            # every sheet's bounds and derived values may read the table's: each is checked, not
            # only those the action names (a bystander's derived value failing was written)
            for owner in [None, *new["characters"]]:
                _check_bounds(model, new, owner, effect, memo, shared=owner is None)
        else:  # a character's bounds read only its own items and the table's
            _check_bounds(model, new, who, effect, memo, shared=False)
    return new, done


def _slot(model: StateModel, state: State, character: str | None, item: str) -> dict[str, Any]:
    """The mapping that holds `item`'s value: the shared items, or the character's."""
    if model.owner(item) == "shared":
        slot: dict[str, Any] = state["shared"]
        return slot
    assert character is not None
    items: dict[str, Any] = state["characters"][character]["items"]
    return items


def _effect(
    model: StateModel,
    effect: Effect,
    state: State,
    character: str | None,
    env: dict[str, Any],
    memo: BoundedCache | None = None,
) -> list[dict[str, Any]]:
    if effect.op == "reset":
        out = []
        for name in effect.items:
            slot = _slot(model, state, character, name)
            fresh = _start(
                {name: model.item(name)}, {**env, **environment(model, state, character, None, memo)}
            )
            slot[name] = fresh[name]
            out.append({"op": "reset", "item": name, "value": slot[name]})
        return out
    item = model.item(effect.item)
    slot = _slot(model, state, character, effect.item)
    if isinstance(item, Counter):
        assert effect.amount is not None
        amount = _whole(_run(effect.amount, env, f"an effect on '{item.name}'"), effect.span, item.name)
        old = slot[item.name]
        value = {"add": old + amount, "remove": old - amount, "set": amount}[effect.op]
        if effect.clamp or item.clamp:
            value = _clamped(model, item, value, environment(model, state, character, None, memo))
        slot[item.name] = value
        return [] if value == old else [{"op": effect.op, "item": item.name, "from": old, "to": value}]
    assert isinstance(item, Tally)
    counts: dict[str, int] = dict(slot[item.name])
    before = dict(counts)
    if effect.op == "move":
        n = (
            _whole(_run(effect.amount, env, f"a move in '{item.name}'"), effect.span, item.name)
            if effect.amount
            else 1
        )
        if effect.clamp:  # each way only what there is: a negative count moves back from `to`
            n = min(n, counts.get(effect.source, 0)) if n >= 0 else -min(-n, counts.get(effect.target, 0))
        counts[effect.source] = counts.get(effect.source, 0) - n
        counts[effect.target] = counts.get(effect.target, 0) + n
    else:
        amounts = {
            m: _whole(_run(e, env, f"an effect on '{item.name}'"), effect.span, item.name)
            for m, e in effect.members
        }
        if effect.op == "set":
            counts = dict(amounts)
        # what is taken away first, then what is put in, so that a clamp cuts only what would
        # pass a bound: `{a: 1, b: -1}` on a full tally moves one, as it does without a clamp
        # (in the order written, the +1 met the full tally and was cut, then b lost one)
        signed = sorted(amounts.items(), key=lambda mn: (mn[1] if effect.op == "add" else -mn[1]) >= 0)
        for m, n in signed:
            if effect.op in ("add", "remove"):
                # signed, as on a counter: an add of -2 takes two away, a remove of -2 puts two in
                change = n if effect.op == "add" else -n
                if effect.clamp:
                    change = _clamped_change(model, item, state, character, counts, m, change, memo)
                counts[m] = counts.get(m, 0) + change
    for m, c in counts.items():
        if c < 0:
            if effect.op == "set":
                raise _fail(
                    "RC906",
                    f"'{item.name}' would be set to {c} {m}: a tally holds no member below zero",
                    effect.span,
                    "keep the amount at 0 or more, e.g. max(0, ...)",
                )
            raise _fail(
                "RC906",
                f"'{item.name}' would have {c} {m}: there are only {before.get(m, 0)}",
                effect.span,
                "add a precondition, or 'clamp: true' to take what there is",
            )  # (a clamped change takes only what there is, so it never comes here)
    slot[item.name] = _ordered(item, counts)
    _promote(model, item, state, character, slot, memo)
    if slot[item.name] == before:
        return []
    return [{"op": effect.op, "item": item.name, "from": before, "to": slot[item.name]}]


def _clamped_change(
    model: StateModel,
    tally: Tally,
    state: State,
    character: str | None,
    counts: Mapping[str, int],
    member: str,
    change: int,
    memo: BoundedCache | None,
) -> int:
    """`change` to `member`'s count as `clamp: true` limits it, whichever way it goes: what is
    taken away at most what there is, what is put in at most what fits under the tally's `max`
    (a `max` that is not whole holds the whole number below it, as in `_clamped`). A negative
    add was once nothing under a `max` and refused without one, asking for the very `clamp`
    it had (found by a hunt)."""
    if change < 0:
        return -min(-change, counts.get(member, 0))
    if tally.maximum is None:
        return change
    own = environment(model, state, character, None, memo)
    most: int = math.floor(_run(tally.maximum, own, f"the max of '{tally.name}'"))
    return max(0, min(change, most - sum(counts.values())))


def _clamped(model: StateModel, item: Counter, value: int, env: Mapping[str, Any]) -> int:
    """The value within the counter's bounds; a bound that is not whole (`10 - weight`, with a
    weight of 1/2) stops it at the nearest whole number inside, since a counter is whole."""
    if item.minimum is not None:
        value = max(value, math.ceil(_run(item.minimum, env, f"the min of '{item.name}'")))
    if item.maximum is not None:
        value = min(value, math.floor(_run(item.maximum, env, f"the max of '{item.name}'")))
    return value


def _promote(
    model: StateModel,
    tally: Tally,
    state: State,
    character: str | None,
    slot: dict[str, Any],
    memo: BoundedCache | None = None,
) -> None:
    """Apply the tally's promotions, in order and again, until none holds: at most
    `MAX_PROMOTIONS` of them (the last had been refused too, as still changing, though none held
    after it)."""
    for applied in range(MAX_PROMOTIONS + 1):
        env = environment(model, state, character, None, memo)
        for rule in tally.promote:
            if _run(rule.when, env, f"a promotion of '{tally.name}'"):
                if applied == MAX_PROMOTIONS:
                    raise _fail(
                        "RC906",
                        f"the promotions of '{tally.name}' do not settle within {MAX_PROMOTIONS:,} rounds",
                        tally.span,
                        "make each promotion's condition false once it has been applied, and promote"
                        " many at once (an amount read from the counts) where a change adds many",
                    )
                counts: dict[str, int] = {} if rule.clear else dict(slot[tally.name])
                for m, e in rule.remove:
                    counts[m] = counts.get(m, 0) - _whole(_run(e, env, "a promotion"), rule.span, tally.name)
                for m, e in rule.add:
                    counts[m] = counts.get(m, 0) + _whole(_run(e, env, "a promotion"), rule.span, tally.name)
                if any(c < 0 for c in counts.values()):
                    raise _fail("RC906", f"a promotion of '{tally.name}' takes more than there is", rule.span)
                slot[tally.name] = _ordered(tally, counts)
                break
        else:
            return


def _check_bounds(
    model: StateModel,
    state: State,
    character: str | None,
    effect: Effect | None,
    memo: BoundedCache | None = None,
    shared: bool = True,
) -> None:
    """Refuse a state where a counter is outside its bounds or a tally over its maximum (the
    table's items unless `shared` is false, and the character's)."""
    owners: list[tuple[Mapping[str, Item], str | None]] = [(model.shared, None)] if shared else []
    if character is not None:
        owners.append((model.each, character))
    for items, who in owners:
        checked = ("within bounds", *_parts(state, who, None)) if memo is not None else None
        if memo is not None and memo.get(checked):
            continue  # these very values were found within their bounds before
        _check_owner(items, environment(model, state, who, None, memo), effect)
        if memo is not None:
            memo.put(checked, True)


def _check_owner(items: Mapping[str, Item], env: dict[str, Any], effect: Effect | None) -> None:
    """Refuse a value outside its bounds. `env` is this check's own view (`environment` gives
    each caller a new one), so every bound reads it as it is, uncopied."""
    for name, item in items.items():
        where = effect.span if effect is not None else item.span
        if isinstance(item, Counter):
            value = env[name]
            if not -TOO_BIG < value < TOO_BIG:  # `n + n` again and again: a number no text could show
                raise _fail(
                    "RC906",
                    f"'{name}' would have more than {MAX_COMPUTED_DIGITS} digits",
                    where,
                    f"numbers rulecraft computes have at most {MAX_COMPUTED_DIGITS} digits",
                )
            lo = (
                _run(item.minimum, env, f"the min of '{name}'", own=True)
                if item.minimum is not None
                else None
            )
            hi = (
                _run(item.maximum, env, f"the max of '{name}'", own=True)
                if item.maximum is not None
                else None
            )
            if lo is not None and value < lo:
                raise _fail(
                    "RC906", f"'{name}' would be {value}, below its minimum {lo}", where, _hint(item, effect)
                )
            if hi is not None and value > hi:
                raise _fail(
                    "RC906", f"'{name}' would be {value}, above its maximum {hi}", where, _hint(item, effect)
                )
        # (a tally's member below zero is refused by every change that makes one, with its cause:
        # a start, an effect, a promotion)
        elif isinstance(item, Tally) and item.maximum is not None:
            total = len(env[name])
            hi = _run(item.maximum, env, f"the max of '{name}'", own=True)
            if total > hi:
                raise _fail(
                    "RC906",
                    # its thousands marked, as the bound every tally has is told (hunt 13zf)
                    f"'{name}' would hold {total:,}, more than its maximum"
                    f" {f'{hi:,}' if isinstance(hi, int) else hi}",
                    where,
                    _hint(item, effect),
                )


CLAMPED = {"counter": ("add", "remove", "set"), "tally": ("add", "remove", "move")}
"""The effects `clamp: true` stops at a bound, on each kind of item (a tally's `set` and every
`reset` ignore it)."""


def _hint(item: Counter | Tally, effect: Effect | None) -> str:
    """How to keep `item` within its bounds: a precondition, and `clamp: true` only where it would
    stop this change and is not given already (an effect that clamps and was still refused, its
    bound moving with the change, was told to add the `clamp: true` it had; found by a hunt); with
    no effect, a start that fits (an example's start past a bound was told of effects: hunt 11b)."""
    if effect is None:  # a start (a campaign's, a character's, a period's reset, an example's)
        return "give it a start within its bounds (an example's 'start:' too), or bounds that hold it"
    counter = isinstance(item, Counter)
    given = effect.clamp or (isinstance(item, Counter) and item.clamp)
    stops = effect.item == item.name and effect.op in CLAMPED["counter" if counter else "tally"]
    if given or not stops:
        return "add a precondition"
    if counter:
        return "add a precondition, or 'clamp: true' on the effect (or the counter) to stop at the bound"
    return "add a precondition, or 'clamp: true' to add only what fits"


# -- periods ------------------------------------------------------------------------------------


def begin(
    model: StateModel, state: State, period: str, memo: BoundedCache | None = None
) -> tuple[State, list[dict[str, Any]]]:
    """The state once `period` begins: every item that names it goes back to its start."""
    new = _copied(state)
    done: list[dict[str, Any]] = []
    work = meter()
    for items, who in [(model.shared, None), *((model.each, c) for c in state["characters"])]:
        work.charge(ITEM_WORK * len(items))
        for name, item in items.items():
            if isinstance(item, Derived) or period not in item.reset:
                continue
            env = environment(model, new, who, None, memo)
            slot = _slot(model, new, who, name)
            old = slot[name]
            slot[name] = _start({name: item}, env)[name]
            if slot[name] != old:
                done.append({"op": "reset", "item": name, "character": who, "from": old, "to": slot[name]})
        _check_bounds(model, new, who, None, memo)
    return new, done


def view(model: StateModel, state: State, character: str | None) -> dict[str, Any]:
    """Every item (derived included) of the table or of one character, JSON-ready."""
    env = environment(model, state, character)
    items = model.each if character is not None else model.shared
    out: dict[str, Any] = {}
    for name in items:
        value = env[name]
        if isinstance(value, Multi):
            out[name] = {str(m): c for m, c in (value.tally or ())}
        else:
            out[name] = to_json(value)
    return out
