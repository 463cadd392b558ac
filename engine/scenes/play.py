"""What one step and one round of a scene do, and a whole scene sampled with its trace.

A step's action is taken by the party's character, with the parties in its roles; a step whose
condition is false, or whose action the rules refuse in that state, changes nothing. After every
step the endings are checked in order; the first that holds ends the scene there.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import CampaignError, Diagnostic, InputError, LimitError, did_you_mean, limit_advice, placed
from ..eval.dicework import kept_weights, roll_units
from ..eval.sample import Ready, sample
from ..eval.trace import TEXT_PER_UNIT
from ..frozen import field, freeze_fields, frozen, frozen_json
from ..model.ruleset import RulesetModel
from ..model.scene import UNFINISHED, Scene, SceneStep
from ..model.state import StateModel
from ..model.values import to_json
from ..runtime import arguments
from ..runtime.cache import BoundedCache
from ..runtime.context import RunContext, with_work
from ..runtime.inputs import bind, written_for
from ..runtime.state import (
    APPLY_PASSES,
    State,
    apply,
    begin,
    bind_params,
    copied_items,
    environment,
    join,
    new_state,
    roll_of,
    width_work,
)
from ..runtime.work import Work, too_many, working
from ..state.campaign import rolled
from .memo import After, Steps, state_key, steps_of


def cast_state(
    model: RulesetModel,
    scene: Scene,
    params: Mapping[str, Any] | None,
    parties: Mapping[str, Mapping[str, Any]] | None,
) -> tuple[State, dict[str, str]]:
    """A fresh state for a scene played on its own: the campaign's parameters and one character per
    party, named after it, with that party's parameters; and the cast (party → character)."""
    rules = model.state
    assert rules is not None
    # a name that is no parameter is told at the scene (its own) or at the characters' parameters
    state = new_state(rules, bind_params(rules.campaign, params or {}, "scene", scene.name, span=scene.span))
    given = dict(parties or {})
    for party in given:
        if party not in scene.parties:
            raise CampaignError(
                [
                    Diagnostic(
                        "RC907",
                        f"scene '{scene.name}' has no party '{party}'",
                        scene.span,
                        did_you_mean(party, scene.parties) or f"parties: {', '.join(scene.parties)}",
                    )
                ],
                unfit=True,
            )
    for party in scene.parties:
        state = join(
            rules,
            state,
            party,
            bind_params(
                rules.character,
                given.get(party, {}),
                "character",
                party,
                f"--party {party}:",
                rules.character_span or scene.span,
            ),
        )
    return state, {p: p for p in scene.parties}


def scene_view(
    model: RulesetModel, state: State, cast: Mapping[str, str], memo: BoundedCache | None = None
) -> dict[str, Any]:
    """What a scene's expressions see in a state: the table's names and `PARTY.NAME` for every
    party. Made once per state and handed to `ending`, `takes_place` and `step_call`; its work is
    in what the scene charges for each state it meets (`STEP_WORK`, `odds.NODE_WORK`, and a wide
    state's `width_work`), not again here."""
    rules = model.state
    assert rules is not None
    return environment(rules, state, None, cast, memo, charged=False)


def ending(scene: Scene, view: Mapping[str, Any]) -> str | None:
    """The scene's ending in the state seen as `view`, or None while it goes on."""
    for end in scene.ends:
        if end.when.run(dict(view)):
            return end.name
    return None


def takes_place(step: SceneStep, view: Mapping[str, Any]) -> bool:
    """Whether the step happens in the state seen as `view` (its condition holds, or it has none)."""
    return step.when is None or bool(step.when.run(dict(view)))


def step_call(
    model: RulesetModel,
    step: SceneStep,
    view: Mapping[str, Any],
    cast: Mapping[str, str],
    offer: bool = False,
) -> tuple[Any, str | None, dict[str, Any], dict[str, str]] | None:
    """The action, the acting character, its bound inputs and its roles for this step in the
    state seen as `view` (with its `may` inputs when the choice is taken); None when the step's
    condition is false."""
    rules = model.state
    assert rules is not None
    if not takes_place(step, view):
        return None
    act = rules.actions[step.action]
    written = (*step.inputs, *(step.may if offer else ()))
    given = {name: expr.run(dict(view)) for name, expr in written}
    try:
        bound = bind(act.inputs, given, "action", act.name, act.span)
    except InputError as exc:
        raise _given_by_step(exc, act.inputs, dict(written), step, offer) from None
    who = cast[step.party] if step.party else None
    roles = {role: cast[party] for role, party in step.others}
    return act, who, bound, roles


def _given_by_step(
    exc: InputError, specs: Any, written: Mapping[str, Any], step: SceneStep, offer: bool
) -> InputError:
    """An action's input refused where a scene's step gives it (out of its bounds, of another
    kind, or missing): told at the step's expression for it (at the step where it gives none),
    saying so, with the declaration's place in the words. It was told at the declaration alone,
    with no word of the scene, and a scene solved over every state it reaches meets it where
    one played may not (found by hunt 13f)."""
    told = []
    for d in exc.diagnostics:
        expr, where = written_for(d, specs, written)
        at = expr.node.span if expr is not None and expr.node.span is not None else step.span
        by = f"the scene's step taking '{step.action}'" + (" (its 'may:' choice)" if offer else "")
        if d.code == "RC401":  # missing: the command line's hint (--input) is not the way here
            told.append(
                Diagnostic(
                    d.code,
                    f"{d.message}: {by} gives none{where}",
                    at,
                    "give it in the step's 'inputs:' (an expression over the scene's state)",
                )
            )
            continue
        told.append(d.retold(d.code, f"{d.message}: given by {by} in a state the scene reaches{where}", at))
    return InputError(told)


@frozen
class Played:
    """A sampled scene: its ending ("unfinished" past `max_rounds`), its length, every step. Its
    trace and state are the caller's own: they share nothing the ruleset keeps."""

    scene: str
    ending: str
    rounds: int
    trace: tuple[dict[str, Any], ...]
    state: State

    def __post_init__(self) -> None:
        # read-only all the way down, as every result is (hunt 13k): copies, sharing nothing
        object.__setattr__(self, "trace", tuple(frozen_json(step) for step in self.trace))
        object.__setattr__(self, "state", frozen_json(self.state))

    def as_json(self) -> dict[str, Any]:
        return {
            "scene": self.scene,
            "ending": self.ending,
            "rounds": self.rounds,
            "trace": list(self.trace),
            "state": self.state,
        }


STEP_WORK = 20
"""Units of work charged for one step a played scene takes (about its cost at a microsecond a
unit, the roll's call included); a step that rolls is charged for its roll apart, after it, by
the rule a batch's rolls are charged by (`dicework.roll_units`: 4 units, 2 more a pool, 6 more a
draw of chits, and a quarter of a unit per die drawn and per read of its pool after the roll),
besides the work the roll charges itself (a reroll chain's)."""
NEW_STEP_WORK = 50
"""More for a step from a state not met before (its action bound, its preconditions checked):
about 50 µs, where a step met before costs 5–10 µs."""
NEW_STATE_WORK = 20
"""More for a roll's values not met before in that state and step (the effects applied, the new
state keyed), and for a period's beginning not met before in that state (its items reset)."""
ENTRY_TEXT = 512
"""The characters of a step's trace entry (as JSON) that its `STEP_WORK` pays for: a duel's
entries are some 340 (at most about 400); one shipped scene ends with one of 568."""
# Past `ENTRY_TEXT`, a unit more for each `TEXT_PER_UNIT` characters of the entry, as a roll's
# trace is charged: a long refusal message or text value is carried by every entry that shows it,
# so the work budget bounds the answer's size (about 26 characters a unit, some 50 MB under the
# default) as it bounds its time.


def _log(log: list[dict[str, Any]], entry: dict[str, Any], text: int, work: Work) -> None:
    """Add `entry`, of `text` characters as JSON, to the trace, charged for those past
    `ENTRY_TEXT` (a 15 KB refusal in each of 80,000 steps was a 1.2 GB answer, for 20 units a
    step)."""
    if text > ENTRY_TEXT:
        work.charge((text - ENTRY_TEXT) // TEXT_PER_UNIT)
    log.append(entry)


_JSON = json.JSONEncoder(ensure_ascii=False)

UNMEASURED = -1
"""The characters of a kept state's trace entry, not measured yet (`_take`, `_begin`): a scene played
without its trace does not measure them (about 1 % of a cold `sample_scenes`; review AE)."""


def _text(value: Any) -> int:
    """The characters of `value` as JSON, one for a character past ASCII and not its \\u escape:
    `json.dumps(value, ensure_ascii=False)`'s, by one encoder (`json.dumps` made one a call)."""
    return len(_JSON.encode(value))


def _field(name: str, text: int) -> int:
    """The characters a field adds to a JSON object: `"name": ` (a name that needs no escape),
    its value's `text` characters, and the `, ` before the next. An object is as long as its
    fields together (its braces count for the separator it has one fewer of), so an entry sized
    in parts is sized exactly: what its state and step decide (an action, its inputs and effects)
    is measured once per state, and each entry only what its roll adds, its round and choice.
    Writing each entry whole to measure it took 3-7 µs a step, 5-13% of a shipped scene's time."""
    return len(name) + 6 + text


def _begin(
    rules: StateModel,
    steps: Steps,
    period: str,
    index: int,
    key: str,
    state: State,
    memo: BoundedCache | None,
    work: Work,
    traced: bool,
) -> After:
    """The state once `period` begins at step `index`, its key, its changes and the characters
    of its entry but the round (`UNMEASURED` unless `traced`), worked out once per state and
    kept in `steps` as an action's state after a roll is (a beginning rolls nothing): each
    beginning re-copied and re-keyed the state, some 23 µs for 3 units."""
    at = ((key, index, False), ())
    after = steps.afters.get(at)
    if after is None:
        work.charge(NEW_STATE_WORK)
        new, changes = begin(rules, state, period, memo)
        after = (new, state_key(new), changes, UNMEASURED)
        steps.keep("afters", at, after)
    if traced and after[3] == UNMEASURED:  # measured at the first traced play that meets it
        after = (*after[:3], _text(_begun(period, after[2])))
        if at in steps.afters:
            steps.afters[at] = after
    return after


def play(
    model: RulesetModel,
    scene: Scene,
    state: State,
    cast: Mapping[str, str],
    ctx: RunContext,
    trace: bool = True,
) -> Played:
    """One whole scene, sampled with `ctx`'s random source, within one work budget (the checks it
    rolls included); a choice a step offers is taken as the policy says (`optimal`: as the exact
    solution of the whole scene says). Without `trace` the steps are not recorded (many scenes at
    once)."""
    ctx = with_work(ctx)
    work = ctx.work
    assert work is not None
    rounds = [0, work.used]  # the round being played, the budget used when round 1 began
    try:
        with working(work):
            return _play(model, scene, state, cast, ctx, trace, work, rounds)
    except LimitError as exc:
        reached, began = rounds
        # the rounds did most of the request's work, and fewer would have fit: its max_rounds
        if reached > 1 and work.used - began >= began:
            lead = "a scene still going after it ends as 'unfinished'"
            raise too_long(exc, scene, reached, work, "playing", "", lead) from None
        raise placed(exc, scene.span) from None


def too_long(
    exc: LimitError, scene: Scene, reached: int, work: Work, doing: str, why: str, lead: str
) -> LimitError:
    """RC503 for the request's budget or deadline (`work`) passed in round `reached` of `scene`
    while `doing` it round by round (playing it, counting its length), told at the scene's
    `max_rounds:` (its name when that is not given) with the advice to lower it (`lead`: what
    then becomes of the rounds past it); `why` says more of the rounds' cost. The one wording of
    a scene too long for its limits, `scene roll`'s and `scene prob`'s. Any other limit (a pool's
    size, a reroll chain's): `exc` in its own words."""
    passed = work.passed(exc)
    if passed is None:
        return placed(exc, scene.span)
    what, name = passed
    given = "its" if scene.rounds_span is not None else "its default"
    message = (
        f"{what} {doing} scene '{scene.name}' round by round, at round {reached:,} "
        f"of {given} max_rounds of {scene.max_rounds:,}{why}"
    )
    advice = limit_advice(name, f"lower the scene's max_rounds ({lead})")
    return type(exc)([Diagnostic("RC503", message, scene.rounds_span or scene.span, **advice)])


def _play(
    model: RulesetModel,
    scene: Scene,
    state: State,
    cast: Mapping[str, str],
    ctx: RunContext,
    trace: bool,
    work: Work,
    rounds: list[int],
) -> Played:
    from .odds import choice_at  # the exact solution the optimal policy follows

    rules = model.state
    assert rules is not None
    rng = ctx.rng or random.Random()
    roll_ctx = ctx._replace(rng=rng)
    optimal = choice_at(model, scene, state, cast, ctx) if ctx.policy == "optimal" and _offers(scene) else {}
    steps = steps_of(scene, cast, ctx)
    memo = ctx.caches.environments
    log: list[dict[str, Any]] = []
    key = state_key(state)

    def look(key: str, state: State) -> tuple[dict[str, Any], str | None]:
        found = steps.looks.get(key)
        if found is None:
            work.charge(width_work(rules, state))
            view = scene_view(model, state, cast, memo)
            found = (view, ending(scene, view))
            steps.keep("looks", key, found)
        return found

    def done(ending: str, rounds: int) -> Played:
        return Played(scene.name, ending, rounds, tuple(log), json.loads(key))

    already = look(key, state)[1]
    if already is not None:  # over before it begins, as the exact odds say
        return done(already, 0)
    rounds[1] = work.used  # what the request used before the rounds (an optimal solve, earlier plays)
    for rnd in range(1, scene.max_rounds + 1):
        rounds[0] = rnd
        for index, step in enumerate(scene.round):
            work.charge(STEP_WORK)
            if step.period:
                if takes_place(step, look(key, state)[0]):
                    state, key, changes, text = _begin(
                        rules, steps, step.period, index, key, state, memo, work, trace
                    )
                    if trace:
                        begun = {"round": rnd, **_begun(step.period, changes)}
                        _log(log, begun, text + _field("round", len(str(rnd))), work)
                    end = look(key, state)[1]
                    if end is not None:
                        return done(end, rnd)
                continue
            decided = optimal.get((key, index))
            offer = bool(step.may) and (ctx.policy == "always" or (decided is not None and decided.taken))
            taken = _take(model, steps, look, step, index, key, state, cast, offer, roll_ctx, trace)
            if isinstance(taken, str) and offer:  # the choice is not there in this state
                offer = False
                taken = _take(model, steps, look, step, index, key, state, cast, offer, roll_ctx, trace)
            if taken is None:
                continue
            if isinstance(taken, str):  # refused: the step changes nothing (a declined choice too)
                if trace:
                    refused: dict[str, Any] = {
                        "round": rnd,
                        "action": step.action,
                        "by": cast.get(step.party),
                        "refused": taken,
                    }
                    if step.may:
                        refused["choice"] = _choice(False, ctx.policy, decided)
                    _log(log, refused, _text(refused), work)
                continue
            state, key, entry, text = taken
            if entry is not None:
                entry["round"] = rnd
                text += _field("round", len(str(rnd)))
                if step.may:
                    entry["choice"] = _choice(offer, ctx.policy, decided)
                    text += _field("choice", _text(entry["choice"]))
                _log(log, entry, text, work)
            end = look(key, state)[1]
            if end is not None:
                return done(end, rnd)
    return done(UNFINISHED, scene.max_rounds)


@frozen
class Sampled:
    """Many scenes played at once: how many ended each way and in which round."""

    scene: str
    policy: str
    scenes: int
    endings: Mapping[str, int]
    rounds: Mapping[int, int]
    declared: tuple[str, ...] = field(default=(), compare=False, repr=False)
    """Every ending the scene may have (its own and `unfinished`), for telling a misspelt one."""

    def __post_init__(self) -> None:
        freeze_fields(self, "endings", "rounds")  # read-only, as a check's `Batch` is (hunt 13k)

    def share(self, ending: str) -> float:
        """The fraction of the scenes that ended so."""
        self._known("Sampled.share", ending)
        return self.endings.get(ending, 0) / self.scenes

    def standard_error(self, ending: str) -> float:
        """The standard error of `share(ending)`, √(p(1−p)/n)."""
        self._known("Sampled.standard_error", ending)
        p = self.share(ending)
        return math.sqrt(p * (1 - p) / self.scenes)

    def _known(self, where: str, ending: str) -> None:
        arguments.name(where, "ending", ending)
        if self.declared and ending not in self.declared:
            raise arguments.unknown(
                "ending", ending, self.declared, f"scene '{self.scene}'", code="RC907", error=CampaignError
            )

    def mean_rounds(self) -> float | None:
        """The mean length; None when some scene was still going after `max_rounds`, whose
        length is not known (as the exact odds' `mean_rounds` when some state never ends)."""
        if self.endings.get(UNFINISHED):
            return None
        return sum(r * n for r, n in self.rounds.items()) / self.scenes

    def as_json(self) -> dict[str, Any]:
        return {
            "scene": self.scene,
            "policy": self.policy,
            "scenes": self.scenes,
            "endings": dict(self.endings),
            "rounds": {str(r): n for r, n in sorted(self.rounds.items())},
        }


def play_many(
    model: RulesetModel, scene: Scene, state: State, cast: Mapping[str, str], ctx: RunContext, times: int
) -> Sampled:
    """`times` scenes from the same start, one after another from `ctx`'s random source, without
    their traces: the counts of each ending and of each length. The scenes are one request, as
    `Ruleset.sample`'s rolls are: they share one work budget (`ctx.work`, else a fresh one from
    `Limits.max_work`) and one deadline (`Limits.deadline`), a limit passed told at the scene
    (each scene had a budget of its own, so `max_scenes` scenes could do `max_scenes` times
    `max_work`)."""
    endings: dict[str, int] = {end.name: 0 for end in scene.ends}
    rounds: dict[int, int] = {}
    rng = ctx.rng or random.Random()
    ctx = with_work(ctx._replace(rng=rng))
    work = ctx.work
    assert work is not None
    first = last = 0  # the budget used once the first play was done (an optimal solve in it), the last
    for done in range(times):
        try:
            work.check_clock()  # a scene may be cheap: the budget reads the clock only after much work
            played = play(model, scene, state, cast, ctx, trace=False)
        except LimitError as exc:
            plays = f"plays of scene '{scene.name}'"
            raise placed(too_many(exc, done, times, plays, work, first, last), scene.span) from None
        last = work.used
        first = first or last
        endings[played.ending] = endings.get(played.ending, 0) + 1
        if played.ending != UNFINISHED:  # one still going has no length (as the odds' `longer`)
            rounds[played.rounds] = rounds.get(played.rounds, 0) + 1
    declared = (*(e.name for e in scene.ends), UNFINISHED)
    return Sampled(scene.name, ctx.policy, times, endings, dict(sorted(rounds.items())), declared)


def _choice(taken: bool, policy: str, decided: Any) -> dict[str, Any]:
    """A choice as the trace shows it; under `optimal`, why: the objective's chance either way."""
    shown: dict[str, Any] = {"taken": taken, "policy": policy}
    if decided is not None:
        shown["objective"] = decided.objective
        shown["if_taken"] = round(float(decided.if_taken), 6)
        shown["if_declined"] = round(float(decided.if_declined), 6)
    return shown


def _offers(scene: Scene) -> bool:
    return any(step.may for step in scene.round)


def _take(
    model: RulesetModel,
    steps: Steps,
    look: Callable[[str, State], tuple[dict[str, Any], str | None]],
    step: SceneStep,
    index: int,
    key: str,
    state: State,
    cast: Mapping[str, str],
    offer: bool,
    ctx: RunContext,
    traced: bool,
) -> tuple[State, str, dict[str, Any] | None, int] | str | None:
    """The state after the step, its key, its trace entry (None when the scene is played
    without its trace: the check is rolled without one too, the same dice drawn) and that
    entry's characters as JSON; the refusal's message; or None when the step does not take
    place. Only the dice are rolled anew; the rest is kept in `steps`."""
    rules = model.state
    assert rules is not None
    at = (key, index, offer)
    call = steps.calls.get(at, _UNSEEN)
    if call is _UNSEEN:
        assert ctx.work is not None
        ctx.work.charge(NEW_STEP_WORK + width_work(rules, state))
        call = step_call(model, step, look(key, state)[0], cast, offer)
        if call is not None:
            act, who, bound, roles = call
            try:
                roll = roll_of(rules, model.checks, act, state, who, bound, roles, ctx.caches.environments)
            except CampaignError as exc:
                if exc.diagnostics[0].code != "RC905":
                    raise
                call = exc.diagnostics[0].message
            else:
                shown = {k: to_json(v) for k, v in bound.items()}
                # the check with its inputs, kept with what every roll of them shares (`Ready`:
                # worked out at its first roll, so no roll of this step works it out again)
                ready = Ready(*roll) if roll is not None else None
                weights = kept_weights(roll[0], ctx.caches.bindings) if roll is not None else {}
                call = (act, who, bound, roles, ready, shown, weights)
        steps.keep("calls", at, call)
    if call is None or isinstance(call, str):
        return call
    act, who, bound, roles, ready, shown, weights = call
    result = None
    if ready is not None:
        result = sample(ready.check, ready.inputs, ctx, traced, ready)
        assert ctx.work is not None
        ctx.work.charge(roll_units(ready.check, weights, result))  # as a batch's roll (`dicework`)
    seen = rolled(ready.check if ready is not None else None, result)
    after_key = (at, _frozen(seen))
    after = steps.afters.get(after_key) if after_key[1] is not None else None
    if after is None:
        assert ctx.work is not None
        ctx.work.charge(NEW_STATE_WORK + APPLY_PASSES * width_work(rules, state))
        new, changes = apply(rules, act, state, who, bound, seen, roles, ctx.caches.environments)
        # its entry is measured at the first traced play that meets it: none, played untraced
        after = (new, state_key(new), changes, UNMEASURED)
        if after_key[1] is not None:
            steps.keep("afters", after_key, after)
    new, new_key, changes, text = after
    if not traced:
        return new, new_key, None, 0
    entry = _acted(act.name, who, roles, shown, changes)
    if text == UNMEASURED:
        text = _text(entry)
        if after_key in steps.afters:
            steps.afters[after_key] = (new, new_key, changes, text)
    if result is not None:
        dice = {"outcome": result.outcome.name, "dice": result.forced()}
        entry.update(dice)
        text += _text(dice)
    return new, new_key, entry, text


_UNSEEN = object()


def _acted(
    action: str,
    who: str | None,
    roles: Mapping[str, str],
    shown: Mapping[str, Any],
    changes: list[dict[str, Any]],
) -> dict[str, Any]:
    """An action's trace entry as far as its state and step decide it, before its roll's
    outcome and dice and its round: made for each entry, and measured once per state after it."""
    return {
        "action": action,
        "by": who,
        "others": dict(roles),
        # an action's inputs are single values (no list: RC320), so a flat copy is the entry's own
        "inputs": dict(shown),
        "effects": _effects(changes),
    }


def _begun(period: str, changes: list[dict[str, Any]]) -> dict[str, Any]:
    """A period's trace entry but its round (as `_acted` is an action's)."""
    return {"begin": period, "effects": _effects(changes)}


def _effects(changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Kept changes as a trace entry shows them: copied down to their counts. They are kept in
    `steps` beside the state they lead to, a tally's `from` and `to` that state's own counts, so
    an embedder that edited a trace it was handed changed what the next play of the scene traced
    and the states later plays went on from (found by a review)."""
    return [copied_items(c) for c in changes]


def _frozen(rolled: Mapping[str, Any] | None) -> Any:
    """A roll's values as a key (None: they cannot be one, so the state after is not kept)."""
    if rolled is None:
        return ()
    key = tuple(sorted(rolled.items()))
    try:
        hash(key)
    except TypeError:
        return None
    return key
