"""The `state:` and `actions:` sections to a `StateModel`: counters, tallies, derived values,
periods and actions, with every name resolved and every expression type-checked like a check's.

Scopes: a shared item's start and a derived value see the campaign's parameters and the shared
items declared before them; a character's also see the character's parameters, all shared items
and the character's earlier items. Bounds and promotions see the whole state of their owner. An action sees
the state of the table (and, when `by: character`, of the character), its own inputs, and after
its roll the check's `outcome`, values and outputs.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..errors import CODES, InputError, did_you_mean
from ..expr.parser import KEYWORDS
from ..frozen import replace
from ..model import types as T
from ..model.ruleset import Check, Expr, InputSpec, Scale
from ..model.state import (
    Action,
    ActionRoll,
    Counter,
    Derived,
    Effect,
    Item,
    Promotion,
    Requirement,
    StateExample,
    StateModel,
    Tally,
)
from ..runtime.arguments import kept_name
from ..syntax.document import PathKey
from ..syntax.names import is_name
from ..syntax.positions import Span
from .expected import expected_value
from .given import Missing, forced_dice, given_values, written_exactly
from .problems import (
    Apart,
    Reported,
    example_key,
    known_if_failing,
    once,
    problem,
    statement,
    written,
)

if TYPE_CHECKING:
    from ..model.scene import Scene
    from .structure import Structure

RESERVED = frozenset({*KEYWORDS, "outcome", "face", "character"})
"""The words no state item, parameter, role, party or action input may be: the language's
(`parser.KEYWORDS`: an item named `in` loaded and no expression could read it, found by a
review), and the names a roll's and an action's expressions read."""

STEP_KEYS = {
    "act": ("act", "character", "others", "inputs", "dice", "policy"),
    "begin": ("begin",),
    "join": ("join", "params"),
    "undo": ("undo",),
}
"""The keys a state example's step of each kind takes (docs/language.md, State examples)."""
STEP_VALUES = {"act": "inputs", "join": "params"}
"""The key under which a step of each kind that gives values (an action's inputs, a joining
character's parameters) gives them."""
STEP_WORDS = {"act": "an act step", "begin": "a begin step", "join": "a join step", "undo": "an undo step"}
SCENE_STEP_KEYS = {
    "act": ("act", "by", "others", "inputs", "may", "when"),
    "begin": ("begin", "when"),
}
"""The keys a scene's step of each kind takes (docs/scenes.md): the schema lets a key of the
other kind through (`by:` on a begin step, which had been ignored unseen)."""
EFFECT_KEYS = {
    **{op: (op, "when", "of", "clamp") for op in ("add", "remove", "set")},
    "move": ("move", "from", "to", "count", "when", "of", "clamp"),
    "reset": ("reset", "when", "of", "clamp"),
}
"""The keys an effect of each kind takes (docs/language.md, Effects): `count:` on an `add`
had been ignored unseen (the schema lets a key of `move` through on any effect)."""
EFFECT_WORDS = {k: f"{'an' if k == 'add' else 'a'} '{k}' effect" for k in EFFECT_KEYS}


def _step_kind(step: Mapping[str, Any]) -> str:
    """Which kind of step a state example's step is: the first of `STEP_KEYS` it holds (the
    schema lets one kind through)."""
    return next(k for k in STEP_KEYS if k in step)


_UNKNOWN_ITEM = {
    "shared": "a shared item this ruleset does not have",
    "each": "an item characters do not have",
}
"""What a state example's `start:` or `expect:` names when the item it names is not there."""

CHARACTER = "character"
"""What an example's key names when it names a character, whose name is any text (`kept_name`)."""


class StateCompiler:
    """Compiles a ruleset's lasting state; a part of `Structure`, which it uses for inputs and scales."""

    def __init__(self, structure: Structure) -> None:
        self.structure = structure
        self.unit = structure.unit
        self.exprs = structure.exprs
        self.spec: dict[str, Any] = self.unit.data.get("state") or {}
        self.action_spec: dict[str, Any] = self.unit.data.get("actions") or {}
        self.unmade: dict[str, set[str]] = {"shared": set(), "each": set()}
        """State items whose definition has an error, by owner (`_unmade_if_failing`)."""

    def span(self, path: PathKey, key: bool = False) -> Any:
        return self.unit.doc.span(path, key=key)

    def later(self, path: PathKey, key: bool = False) -> Callable[[], Span]:
        return self.unit.doc.span_later(path, key=key)

    # -- pass 1: the scales of tallies ----------------------------------------------------------

    def scales(self) -> None:
        for owner in ("shared", "each"):
            for name, item in (self.spec.get(owner) or {}).items():
                members = item.get("tally") if isinstance(item, dict) else None
                if isinstance(members, list):
                    with statement(self.unit.diags):
                        self.structure.new_scale(
                            name, [str(m) for m in members], ("state", owner, name, "tally")
                        )

    # -- pass 2: everything else, once the checks are known ------------------------------------

    def run(self, checks: Mapping[str, Check]) -> StateModel:
        """The state model (made only for a ruleset with `state`, `actions` or `scenes`:
        `Structure.run` decides, and imports this module only then)."""
        self.unit.current = "state"  # inline scales of parameters and action inputs are quoted here
        periods = tuple(str(p) for p in self.spec.get("periods", []))
        scope: dict[str, T.Type] = {}
        taken: dict[str, str] = {}

        def declare(name: str, t: T.Type, what: str, path: PathKey) -> None:
            if name in RESERVED:
                raise problem(
                    "RC307", f"'{name}' is a reserved word and cannot name {what}", self.span(path, True)
                )
            if name in taken:
                raise problem("RC307", f"'{name}' is already {taken[name]}", self.span(path, True))
            if name in self.unit.builtins or name in self.unit.tables:
                raise problem("RC307", f"'{name}' is the name of a function", self.span(path, True))
            taken[name] = what
            scope[name] = t

        campaign = self._params(("state", "campaign"), declare, "a campaign parameter")
        shared_scope = dict(scope)
        shared = self._items("shared", shared_scope, declare, periods)
        scope.update(shared_scope)
        character = self._params(("state", "character"), declare, "a character parameter")
        each_scope = dict(scope)
        each = self._items("each", each_scope, declare, periods)
        actions: dict[str, Action] = {}
        for name in self.action_spec:
            self.unit.current = f"actions.{name}"  # its inputs' inline choices are quoted only here
            with statement(self.unit.diags):
                actions[name] = self._action(name, checks, shared_scope, each_scope)
        self.unit.current = "state"
        scenes: dict[str, Scene] = {}
        for name in self.unit.data.get("scenes") or {}:
            with statement(self.unit.diags):
                scenes[name] = self._scene(name, actions, shared_scope, each_scope)
        examples: list[StateExample] = []
        names: dict[str, Span] = {}
        for i, raw in enumerate(self.spec.get("examples") or []):
            with statement(self.unit.diags):
                at = ("state", "examples", i, "name")
                once(names, str(raw["name"]), self.span(at), "state example")
            with statement(self.unit.diags):
                examples.append(
                    self._example(
                        ("state", "examples", i),
                        raw,
                        periods,
                        actions,
                        shared,
                        each,
                        checks,
                        (campaign, character),
                    )
                )
        return StateModel(
            periods=periods,
            campaign=campaign,
            character=character,
            shared=shared,
            each=each,
            actions=actions,
            examples=tuple(examples),
            scenes=scenes,
            span=self.span(("state",), True) if self.spec else None,
            campaign_span=self._key(("state", "campaign")),
            character_span=self._key(("state", "character")),
            scenes_span=self._key(("scenes",)),
            actions_span=self._key(("actions",)),
            checks_span=self._key(("checks",)),
            periods_span=self._key(("state", "periods")),
        )

    def _key(self, path: PathKey) -> Any:
        """The span of the key at `path`, or None when the document has none there."""
        return self.span(path, True) if path in self.unit.doc.places else None

    def _params(self, path: PathKey, declare: Any, what: str) -> tuple[InputSpec, ...]:
        out: list[InputSpec] = []
        raw = self.spec.get(str(path[-1])) or {}
        for name in raw:
            with statement(self.unit.diags):
                try:
                    spec = self.structure.input_at(path + (name,), name, "state", noun="parameter")
                except BaseException:  # still known by name, so what reads it is not reported too
                    with statement([]):  # (a clash of its name is reported once it is mended)
                        declare(name, T.UNKNOWN, what, path + (name,))
                    raise
                declare(name, _input_type(spec), what, path + (name,))
                out.append(spec)
        return tuple(out)

    def _items(
        self, owner: str, scope: dict[str, T.Type], declare: Any, periods: tuple[str, ...]
    ) -> dict[str, Item]:
        """Items in order; each start value sees the items before it, everything else all of them."""
        raw: dict[str, Any] = self.spec.get(owner) or {}
        found: dict[str, Item] = {}
        pending: list[tuple[str, PathKey]] = []
        what = "a shared item" if owner == "shared" else "an item of each character"
        for name, item in raw.items():
            path: PathKey = ("state", owner, name)
            with statement(self.unit.diags), self._unmade_if_failing(owner, name, scope):
                parts = Apart(self.unit.diags)  # its reset and its start apart: both told (hunt 13m)
                reset: tuple[str, ...] = ()
                with parts.part():
                    reset = self._reset(item.get("reset"), periods, path + ("reset",))
                with parts.part():
                    if "counter" in item:
                        start = self.exprs.expr(path + ("counter",), scope, T.NUM)
                        found[name] = Counter(
                            name,
                            start,
                            reset=reset,
                            clamp=bool(item.get("clamp", False)),
                            description=item.get("description", ""),
                            span=self.span(path, True),
                        )
                        declare(name, T.NUM, what, path)
                        scope[name] = T.NUM
                        pending.append((name, path))
                    elif "tally" in item:
                        scale = self._tally_scale(name, item["tally"], path)
                        counts = tuple(
                            (
                                self._member(scale.name, m, path + ("start", m)),
                                self.exprs.expr(path + ("start", m), scope, T.NUM),
                            )
                            for m in (item.get("start") or {})
                        )
                        found[name] = Tally(
                            name,
                            scale,
                            counts,
                            reset=reset,
                            description=item.get("description", ""),
                            span=self.span(path, True),
                        )
                        declare(name, T.multi(T.sym(scale.name)), what, path)
                        scope[name] = T.multi(T.sym(scale.name))
                        pending.append((name, path))
                    else:
                        value = self.exprs.expr(path + ("derived",), scope)
                        found[name] = Derived(name, value, item.get("description", ""), self.span(path, True))
                        declare(name, value.type, what, path)
                        scope[name] = value.type
                parts.settle()
        # Bounds and promotions see the whole state of their owner.
        for name, path in pending:
            item = raw[name]
            with statement(self.unit.diags):
                made = found[name]
                if isinstance(made, Counter):
                    found[name] = _replace_counter(
                        made,
                        self.exprs.expr(path + ("min",), scope, T.NUM) if "min" in item else None,
                        self.exprs.expr(path + ("max",), scope, T.NUM) if "max" in item else None,
                    )
                elif isinstance(made, Tally):
                    maximum = self.exprs.expr(path + ("max",), scope, T.NUM) if "max" in item else None
                    promote = tuple(
                        self._promotion(path + ("promote", i), rule, made, scope)
                        for i, rule in enumerate(item.get("promote") or [])
                    )
                    found[name] = Tally(
                        made.name,
                        made.scale,
                        made.start,
                        maximum,
                        promote,
                        made.reset,
                        made.description,
                        made.span,
                    )
        return found

    @contextmanager
    def _unmade_if_failing(self, owner: str, name: str, scope: dict[str, T.Type]) -> Iterator[None]:
        """An item whose definition has an error is still known by its name (`known_if_failing`)
        and in `unmade`, so an example that starts it is not reported too."""
        try:
            with known_if_failing(scope, name):
                yield
        except BaseException:
            self.unmade[owner].add(name)
            raise

    def _tally_scale(self, name: str, members: Any, path: PathKey) -> Any:
        if isinstance(members, str):
            if members not in self.unit.scales:
                raise problem(
                    "RC312",
                    f"unknown scale '{members}'",
                    self.span(path + ("tally",)),
                    did_you_mean(members, self.unit.scales),
                )
            return self.unit.scales[members]
        if name not in self.unit.scales:
            raise problem(
                "RC307", f"the members of tally '{name}' could not be made a scale", self.span(path, True)
            )
        return self.unit.scales[name]

    def _member(self, scale: str, member: Any, path: PathKey, key: bool = True) -> str:
        """`member` of `scale`, named at `path` as a key (`add: {lamps: {lit: 1}}`) or as a value
        (`from: lit`): the caret is under the name either way."""
        names = self.unit.scales[scale].names
        if str(member) not in names:
            raise problem(
                "RC305",
                f"'{member}' is not a member of '{scale}' ({', '.join(names)})",
                self.span(path, key),
                did_you_mean(str(member), names),
            )
        return str(member)

    def _reset(self, raw: Any, periods: tuple[str, ...], path: PathKey) -> tuple[str, ...]:
        if raw is None:
            return ()
        names = [raw] if isinstance(raw, str) else list(raw)
        for i, p in enumerate(names):
            if p not in periods:
                where = path if isinstance(raw, str) else path + (i,)
                raise problem(
                    "RC312",
                    f"unknown period '{p}'",
                    self.span(where),
                    did_you_mean(str(p), periods) or f"periods: {', '.join(periods) or 'none declared'}",
                )
        return tuple(str(p) for p in names)

    def _promotion(
        self, path: PathKey, rule: dict[str, Any], tally: Tally, scope: Mapping[str, T.Type]
    ) -> Promotion:
        def counts(key: str) -> tuple[tuple[str, Expr], ...]:
            return tuple(
                (
                    self._member(tally.scale.name, m, path + (key, m)),
                    self.exprs.expr(path + (key, m), scope, T.NUM),
                )
                for m in (rule.get(key) or {})
            )

        when = self.exprs.expr(path + ("when",), scope, T.BOOL)
        return Promotion(
            when, counts("remove"), counts("add"), bool(rule.get("clear", False)), self.span(path)
        )

    def _scene(
        self,
        name: str,
        actions: Mapping[str, Action],
        shared: Mapping[str, T.Type],
        each: Mapping[str, T.Type],
    ) -> Scene:
        """A scene: its parties are read as PARTY.NAME; each step's action, party and roles checked.
        (The scene model is imported here: a ruleset without scenes never loads it.)"""
        from ..model.scene import NEVER, RESERVED_ENDINGS, UNFINISHED, Ending, Scene, SceneStep

        path: PathKey = ("scenes", name)
        spec = self.unit.data["scenes"][name]
        parties = tuple(str(p) for p in spec["parties"])
        own = {k: v for k, v in each.items() if k not in shared}
        scope = dict(shared)
        for i, party in enumerate(parties):
            if party in scope or party in RESERVED:
                raise problem(
                    "RC307",
                    f"party '{party}' has the name of another value",
                    self.span(path + ("parties", i)),
                )
            scope.update({f"{party}.{k}": v for k, v in own.items()})
        parts = Apart(self.unit.diags)
        for i, raw in enumerate(spec["round"]):
            kind = "begin" if "begin" in raw else "act"
            notes = {k: "it goes with an act step" for k in SCENE_STEP_KEYS["act"]}
            self._only_keys(
                path + ("round", i), raw, SCENE_STEP_KEYS[kind], f"a scene's {kind} step", parts, notes
            )
        parts.settle()
        steps: list[SceneStep] = []
        made = Apart(self.unit.diags)  # each step and each ending apart: every slip told in one run
        for i, raw in enumerate(spec["round"]):
            with made.part():
                steps.append(self._scene_step(path + ("round", i), raw, actions, parties, scope))
        endings: list[Ending] = []
        for i, e in enumerate(spec["ends"]):
            with made.part():
                if e["then"] in RESERVED_ENDINGS:
                    raise problem(
                        "RC307",
                        f"'{e['then']}' is the name of a scene's ending the engine gives itself",
                        self.span(path + ("ends", i, "then")),
                        f"'{NEVER}' is a state from which no ending can be reached, '{UNFINISHED}' a "
                        "played scene still going after max_rounds: give this ending another name",
                    )
                endings.append(
                    Ending(
                        str(e["then"]),
                        self.exprs.expr(path + ("ends", i, "when"), scope, T.BOOL),
                        self.span(path + ("ends", i)),
                    )
                )
        made.settle()
        ends = tuple(endings)
        objective = str(spec.get("objective", ""))
        if objective and objective not in [e.name for e in ends]:
            raise problem(
                "RC305",
                f"'{objective}' is not an ending of scene '{name}'",
                self.span(path + ("objective",)),
                did_you_mean(objective, [e.name for e in ends]),
            )
        return Scene(
            name=name,
            title=str(spec.get("title", name)),
            objective=objective,
            parties=parties,
            round=tuple(steps),
            ends=ends,
            max_rounds=int(spec.get("max_rounds", 100)),
            description=str(spec.get("description", "")),
            span=self.span(path, True),
            rounds_span=self.span(path + ("max_rounds",), True) if "max_rounds" in spec else None,
        )

    def _scene_step(
        self,
        at: PathKey,
        raw: dict[str, Any],
        actions: Mapping[str, Action],
        parties: tuple[str, ...],
        scope: Mapping[str, T.Type],
    ) -> Any:
        """One step of a scene's round (a `SceneStep`): its action, party and roles checked."""
        from ..model.scene import SceneStep

        if "begin" in raw:
            period = str(raw["begin"])
            if period not in (self.spec.get("periods") or []):
                raise problem(
                    "RC312",
                    f"unknown period '{period}'",
                    self.span(at + ("begin",)),
                    did_you_mean(period, list(self.spec.get("periods") or [])),
                )
            when = self.exprs.expr(at + ("when",), scope, T.BOOL) if "when" in raw else None
            return SceneStep("", "", when=when, period=period, span=self.span(at))
        act_name = str(raw["act"])
        act = actions.get(act_name)
        if act is None and act_name in self.action_spec:
            raise Reported  # the action itself did not compile, and says why
        if act is None:
            raise problem(
                "RC312",
                f"unknown action '{act_name}'",
                self.span(at + ("act",)),
                did_you_mean(act_name, list(self.action_spec)),
            )
        party = str(raw.get("by", ""))
        if act.by == "character" and party and party not in parties:
            raise problem(
                "RC307",
                f"'{party}' is not a party of this scene",
                self.span(at + ("by",)),
                did_you_mean(party, list(parties)) or f"parties: {', '.join(parties)}",
            )
        if act.by == "character" and party not in parties:
            raise problem(
                "RC307",
                f"action '{act_name}' is taken by a character: say which party takes it",
                self.span(at, True),
                f"parties: {', '.join(parties)}",
            )
        if act.by != "character" and party:
            raise problem(
                "RC307",
                f"action '{act_name}' is taken by the table, not by a party",
                self.span(at + ("by",)),
            )
        others = tuple((str(r), str(p)) for r, p in (raw.get("others") or {}).items())
        for role, who in others:
            if role not in act.others or who not in parties:
                raise problem(
                    "RC307",
                    f"'{role}: {who}' is not a role of '{act_name}' filled by a party",
                    self.span(at + ("others", role), True),
                    f"roles: {', '.join(act.others) or 'none'}; parties: {', '.join(parties)}",
                )
        if party and any(who == party for _, who in others):
            raise problem(
                "RC307",
                f"party '{party}' cannot fill a role of its own action '{act_name}'",
                self.span(at + ("others",)),
                "name another party for the role",
            )
        missing = [r for r in act.others if r not in dict(others)]
        if missing:
            raise problem(
                "RC307",
                f"step names no party for the role '{missing[0]}' of '{act_name}'",
                self.span(at, True),
            )
        specs = act.input_map

        def given(key: str) -> tuple[tuple[str, Expr], ...]:
            """The step's `inputs` or `may`: each an input of the action, read as its type."""
            out = []
            for iname in raw.get(key) or {}:
                if iname not in specs:
                    raise problem(
                        "RC402",
                        f"action '{act_name}' has no input '{iname}'",
                        self.span(at + (key, iname), True),
                        did_you_mean(str(iname), specs),
                    )
                out.append((str(iname), self.exprs.expr(at + (key, iname), scope, _input_type(specs[iname]))))
            return tuple(out)

        inputs, may = given("inputs"), given("may")
        when = self.exprs.expr(at + ("when",), scope, T.BOOL) if "when" in raw else None
        return SceneStep(act_name, party, others, inputs, when, may=may, span=self.span(at))

    def _example(
        self,
        path: PathKey,
        raw: dict[str, Any],
        periods: tuple[str, ...],
        actions: Mapping[str, Action],
        shared: Mapping[str, Item],
        each: Mapping[str, Item],
        checks: Mapping[str, Check],
        params: tuple[tuple[InputSpec, ...], tuple[InputSpec, ...]],
    ) -> StateExample:
        """A state example, with every action, period, item, parameter, input, role and die it
        names checked now (RC702), and every key of a step that its kind does not take (RC102);
        and every parameter, input and forced face it gives read as a run reads it (`_given`)."""
        parts = Apart(self.unit.diags)
        steps = raw.get("steps") or []
        for i, step in enumerate(steps):
            at = path + ("steps", i)
            self._example_step(at, step, periods, parts)
        for at, given, what, known in self._example_names(path, raw, checks):
            for key in given if isinstance(given, dict) else ():
                with parts.part():
                    self._example_name(at + (key,), key, what, known)
        for why, span, hint in self._example_characters(path, raw):
            with parts.part():
                raise problem("RC702", why, span, hint)
        self._given(path, raw, parts, actions, checks, *params)
        spans: dict[tuple[str, ...], Any] = {}
        start = raw.get("start") or {}
        expect = raw.get("expect") or {}
        for part, written_part, verb in (("start", start, "starts"), ("expect", expect, "expects")):
            places: list[tuple[PathKey, Any, str]] = [(("shared",), written_part.get("shared"), "shared")]
            for who, items in (written_part.get("characters") or {}).items():
                places.append((("characters", who), items, "each"))
            for place, items, owner in places:
                declared = shared if owner == "shared" else each
                for name, value in (items or {}).items():
                    here = path + (part, *place, name)
                    if part == "expect":
                        spans[(*map(str, place), str(name))] = self.span(here, True)
                    if not is_name(name):
                        # told already, by `_example_name`: one mistake, one message
                        continue
                    with parts.part():
                        if name in declared:
                            self._example_value(here, declared[name], value, verb)
                        elif name not in self.unmade[owner]:  # an unmade item's error is its own
                            raise problem(
                                "RC702",
                                f"example {verb} {_UNKNOWN_ITEM[owner]}: '{name}'",
                                self.span(here, True),
                                did_you_mean(str(name), declared),
                            )
        for i in range(len(steps)):
            spans[("steps", str(i))] = self.span(path + ("steps", i))
        parts.settle()
        refused = raw.get("refused")
        if refused is not None:
            spans[("refused",)] = self.span(path + ("refused",))
            if refused not in CODES:
                raise problem(
                    "RC702",
                    f"example expects the last step to be refused with {refused}, "
                    "which is no code of rulecraft",
                    spans[("refused",)],
                    "name the code the refusal prints, like RC905 (a requirement not met) or "
                    "RC906 (past an item's bound)",
                )
            if not steps:  # no last step to refuse: `test` would pass it having tried nothing
                raise problem(
                    "RC702",
                    f"example expects its last step to be refused with {refused}, but it has no steps",
                    spans[("refused",)],
                    "give the step that is refused as the last of 'steps:', or leave 'refused:' out",
                )
        return StateExample(
            name=str(raw["name"]),
            params=written_exactly(self.unit, path + ("params",), raw.get("params") or {}),
            characters={
                str(k): written_exactly(self.unit, path + ("characters", k), v or {})
                for k, v in (raw.get("characters") or {}).items()
            },
            steps=tuple(
                self._written_step(path + ("steps", i), s) for i, s in enumerate(raw.get("steps") or [])
            ),
            expect=dict(expect),
            refused=str(refused) if refused is not None else None,
            start=dict(start),
            spans=spans,
            span=self.span(path),
        )

    def _written_step(self, at: PathKey, step: dict[str, Any]) -> dict[str, Any]:
        """A state example's step with the numbers of its inputs or parameters (`STEP_VALUES`)
        written without quotes as the file writes them, every digit (`written_exactly`)."""
        found = dict(step)
        for part in STEP_VALUES.values():
            if isinstance(found.get(part), dict):
                found[part] = written_exactly(self.unit, at + (part,), found[part])
        return found

    def _given(
        self,
        path: PathKey,
        raw: dict[str, Any],
        parts: Apart,
        actions: Mapping[str, Action],
        checks: Mapping[str, Check],
        campaign: tuple[InputSpec, ...],
        character: tuple[InputSpec, ...],
    ) -> None:
        """RC702 at each value a state example gives that a run would refuse, and for each one
        with no default it leaves out (`given_values`, as a check example's inputs): the
        campaign's `params`, each character's, a join step's `params`, an act step's `inputs`;
        and at each face or chit an act step forces that its die or bag lacks (`forced_dice`).
        The last step of an example that expects a refusal is left to the run, whose refusal
        may be the point of it."""
        given = raw.get("params")
        at = path + ("params",) if given is not None else path
        missing = Missing(
            "example gives", "the campaign parameter", "this example's params:", self.later(at, True)
        )
        self._values(path + ("params",), given, campaign, "campaign", missing, parts)
        for who, given in (raw.get("characters") or {}).items():
            at = path + ("characters", who)
            missing = Missing(
                f"example gives character '{who}'",
                "the parameter",
                "this example's characters:",
                self.later(at, True),
                character=True,
            )
            self._values(at, given, character, "character", missing, parts)
        steps = raw.get("steps") or []
        for i, step in enumerate(steps[:-1] if raw.get("refused") is not None else steps):
            at = path + ("steps", i)
            kind = _step_kind(step)
            if kind not in STEP_VALUES:  # a begin or undo step gives no values
                continue
            key = STEP_VALUES[kind]
            # a key its kind does not take is told (`_example_step`); the other kind's values
            # (`inputs` on a join, meant as its params) stand for what the step leaves out, which
            # is not told again (review AG); any other (`policy` on a join) hides nothing
            stray = any(k in step for k in STEP_VALUES.values() if k != key)
            place = self.later(at + ((key,) if step.get(key) is not None else (kind,)), True)
            if kind == "join":
                missing = Missing(
                    f"step {i + 1} gives character '{step['join']}'",
                    "the parameter",
                    f"step {i + 1}'s params:",
                    place,
                    character=True,
                )
                self._values(at + (key,), step.get(key), character, "character", missing, parts, stray)
            elif step.get("act") in actions:
                action = actions[step["act"]]
                missing = Missing(
                    f"step {i + 1} gives",
                    "the input",
                    f"step {i + 1}'s inputs:",
                    place,
                    f" of action '{action.name}'",
                )
                self._values(at + (key,), step.get(key), action.inputs, "", missing, parts, stray)
                rolled = checks.get(action.roll.check) if action.roll is not None else None
                if rolled is not None and isinstance(step.get("dice"), dict):
                    forced_dice(
                        self.unit, parts, at + ("dice",), step["dice"], rolled.roll, None, bool(rolled.auto)
                    )

    def _values(
        self,
        at: PathKey,
        given: Any,
        specs: tuple[InputSpec, ...],
        of: str,
        missing: Missing,
        parts: Apart,
        told: bool = False,
    ) -> None:
        """`given_values` of one mapping of a state example (written at `at`) against `specs`
        (`told`: a mistake of its step is told already, so nothing is said to be left out):
        the campaign's or a character's parameters (`of`), else an action's inputs. No value is
        said to be missing where the mapping names one not declared (told by `_example_names`:
        one mistake, one message) or a declaration failed (its own error)."""
        given = given if isinstance(given, dict) else {}
        names = [spec.name for spec in specs]
        declared = list(self.spec.get(of) or {}) if of else names
        whole = set(given) <= set(names) and len(names) == len(declared) and not told
        noun = "parameter" if of else "input"
        given_values(self.unit, parts, at, given, specs, missing if whole else None, noun)

    def _example_step(
        self, at: PathKey, step: dict[str, Any], periods: tuple[str, ...], parts: Apart
    ) -> None:
        """RC702 unless a state example's step names an action and a period the ruleset has,
        RC102 at each key its kind of step does not take: each told on its own (`parts`)."""
        if "act" in step and step["act"] not in self.action_spec:
            with parts.part():
                raise problem(
                    "RC702",
                    f"example names no action of this ruleset: '{step['act']}'",
                    self.span(at + ("act",)),
                    did_you_mean(str(step["act"]), list(self.action_spec)),
                )
        if "begin" in step and step["begin"] not in periods:
            with parts.part():
                raise problem(
                    "RC702",
                    f"example names no period of this ruleset: '{step['begin']}'",
                    self.span(at + ("begin",)),
                    did_you_mean(str(step["begin"]), periods),
                )
        kind = _step_kind(step)
        self._only_keys(
            at,
            step,
            STEP_KEYS[kind],
            STEP_WORDS[kind],
            parts,
            {"params": "a character's parameters go with a join step"},
        )

    def _only_keys(
        self,
        at: PathKey,
        raw: Mapping[str, Any],
        keys: tuple[str, ...],
        word: str,
        parts: Apart,
        notes: Mapping[str, str] | None = None,
    ) -> None:
        """RC102 at each key of the mapping written at `at` (a state example's or a scene's step,
        an effect) that its kind (`word`: "a begin step") does not take, though the schema lets it
        through as another kind's (`keys`: the ones it takes); each told on its own (`parts`),
        with what the key goes with where `notes` says."""
        where = self.unit.doc.path_text(at)
        for key in raw:
            if key not in keys:
                with parts.part():
                    note = (notes or {}).get(str(key))
                    raise problem(
                        "RC102",
                        f"unknown key '{self.unit.doc.key_text(at + (key,))}' in {where}: "
                        f"{word} does not take it",
                        self.span(at + (key,), True),
                        f"{word} takes {', '.join(keys)}" + (f"; {note}" if note else ""),
                    )

    def _example_value(self, at: PathKey, item: Item, value: Any, verb: str) -> None:
        """RC702 unless the value a state example's `start:` or `expect:` gives `item` is of its
        form: a tally's counts, keyed by its members (a misspelt one had passed unseen at a count
        of 0), a counter's or derived value's no such counts, and no derived value started (it is
        worked out from the state, never stored); and what `expect:` gives a counter or a derived
        value one that such a value can be (`expected_value`: a whole number for a counter)."""
        if isinstance(item, Derived) and verb == "starts":
            raise problem(
                "RC702",
                f"example starts derived value '{item.name}', which is worked out from the state, "
                "never stored",
                self.span(at, True),
                "start the items it is worked out from",
            )
        if isinstance(item, Tally):
            if not isinstance(value, dict):
                raise problem(
                    "RC702",
                    f"example gives tally '{item.name}' {written(self.span(at)) or repr(value)}, "
                    "not counts of its members",
                    self.span(at),
                    f"give a count for each member named: {{{item.scale.names[0]}: 1}}",
                )
            for member in value:
                self._example_name(at + (member,), member, f"member of tally '{item.name}'", item.scale.names)
        elif isinstance(value, dict):
            kind = "counter" if isinstance(item, Counter) else "derived value"
            raise problem(
                "RC702",
                f"example gives {kind} '{item.name}' counts of members, which only a tally has",
                self.span(at + (next(iter(value)),), True) if value else self.span(at, True),
                f"a {kind} is one value: {item.name}: VALUE",
            )
        elif verb == "expects":
            # (a start is checked as the example sets it, against the item's bounds too)
            typed = item.expr.type if isinstance(item, Derived) else T.NUM
            expected_value(
                self.unit, item.name, typed, value, self.span(at), counter=isinstance(item, Counter)
            )

    def _example_names(
        self, path: PathKey, raw: dict[str, Any], checks: Mapping[str, Check]
    ) -> Iterator[tuple[PathKey, Any, str, Collection[str] | None]]:
        """Every mapping of a state example whose keys are names: its path, the mapping, what its
        keys name (`CHARACTER`: a character) and, where this ruleset fixes them, the names it has
        (an item's name is checked with the item, `_example`)."""
        params = list(self.spec.get("campaign") or {})
        character = list(self.spec.get("character") or {})
        yield path + ("params",), raw.get("params"), "campaign parameter", params
        yield path + ("characters",), raw.get("characters"), CHARACTER, None
        for who, given in (raw.get("characters") or {}).items():
            yield path + ("characters", who), given, "character parameter", character
        for i, step in enumerate(raw.get("steps") or []):
            at = path + ("steps", i)
            # `params` on another kind of step is RC102 already: one mistake, one message
            if "join" in step:
                yield at + ("params",), step.get("params"), "character parameter", character
            if step.get("act") not in self.action_spec:
                # no action, or one the ruleset lacks (its own RC702): nothing to name against
                continue
            spec = self.action_spec[step["act"]]
            of = f"of action '{step['act']}'"
            yield at + ("inputs",), step.get("inputs"), f"input {of}", list(spec.get("inputs") or {})
            yield (
                at + ("others",),
                step.get("others"),
                f"role {of}",
                [str(r) for r in spec.get("others") or []],
            )
            rolled = str((spec.get("roll") or {}).get("check", ""))  # "": it rolls nothing
            dice = [r.name for r in checks[rolled].roll] if rolled in checks else None  # None: unmade
            yield at + ("dice",), step.get("dice"), f"die or draw {of}", dice if rolled else []
        for part in ("start", "expect"):
            given = raw.get(part) or {}
            yield path + (part, "shared"), given.get("shared"), "item", None
            yield path + (part, "characters"), given.get("characters"), CHARACTER, None
            for who, items in (given.get("characters") or {}).items():
                yield path + (part, "characters", who), items, "item", None

    def _example_characters(
        self, path: PathKey, raw: dict[str, Any]
    ) -> Iterator[tuple[str, Any, str | None]]:
        """Each character a state example names but never makes: the message, where, a hint.
        The example makes those under its `characters:` (they play from the start, so only they
        can be started) and those a step joins; a name that is no character's name at all is
        told by `_example_name`. The last step of an example that expects it `refused:` may
        name a stranger: that refusal (`RC907`) can be what the example shows."""
        written = list(raw.get("characters") or {})
        steps = [s for s in raw.get("steps") or [] if isinstance(s, dict)]
        joined = [s["join"] for s in steps if "join" in s]
        if any(not isinstance(k, str) or _no_character_name(k) is not None for k in written + joined):
            # a character made under no name is told already: whom it was meant to be is not known
            return
        first = [str(k) for k in written]
        made = first + [str(j) for j in joined if j not in first]
        # where a name is (a key, or a value), the name, the characters it may be
        named: list[tuple[Any, Any, list[str]]] = []
        every = raw.get("steps") or []
        for i, step in enumerate(every):
            at = path + ("steps", i)
            if raw.get("refused") and i == len(every) - 1:
                break
            if isinstance(step, dict) and "character" in step:
                named.append((self.later(at + ("character",)), step["character"], made))
            for role, who in (step.get("others") or {}).items() if isinstance(step, dict) else ():
                named.append((self.later(at + ("others", role)), who, made))
        for part, among in (("start", first), ("expect", made)):
            for who in (raw.get(part) or {}).get("characters") or {}:
                named.append((self.later(path + (part, "characters", who), True), who, among))
        for where, who, among in named:
            if not isinstance(who, str) or _no_character_name(who) is not None or who in among:
                continue
            if among is first and who in made:
                why = f"example starts character '{who}', who joins only in a step"
                hint = "start gives values to the characters under 'characters:', who play from the start"
            else:
                why = f"example names a character it never makes: '{who}'"
                hint = did_you_mean(who, among) or (
                    "a character plays from the start under the example's 'characters:'"
                    + (", or joins with a step {join: NAME}" if among is made else "")
                )
            yield why, where(), hint

    def _example_name(self, at: PathKey, key: Any, what: str, known: Collection[str] | None) -> None:
        """RC702 at the key `at` unless `key` is a name (YAML reads `1:`, `1.5:`, `true:`, `null:`
        or a date as no name) and, where `known` is given, one of them."""
        if what == CHARACTER:
            why = _no_character_name(key)
            if why is not None:
                span = self.span(at, True)
                shown = written(span) or repr(key)
                raise problem(
                    "RC702",
                    f"example gives {shown} where a character's name is wanted: {why[0]}",
                    span,
                    why[1],
                )
            return
        example_key(key, self.later(at, True))
        if known is not None and key not in known:
            raise problem(
                "RC702", f"example names no {what}: '{key}'", self.span(at, True), did_you_mean(key, known)
            )

    # -- actions ---------------------------------------------------------------------------------

    def _action(
        self, name: str, checks: Mapping[str, Check], shared: Mapping[str, T.Type], each: Mapping[str, T.Type]
    ) -> Action:
        path: PathKey = ("actions", name)
        spec = self.action_spec[name]
        by = str(spec.get("by", "table"))
        scope = dict(each if by == "character" else shared)
        others = tuple(str(r) for r in spec.get("others") or [])
        own = {k: v for k, v in each.items() if k not in shared}  # a character's parameters and items
        for i, role in enumerate(others):
            if role in RESERVED:  # said as a reserved word is, not as another value (hunt 13x)
                raise problem(
                    "RC307",
                    f"'{role}' is a reserved word and cannot name a role",
                    self.span(path + ("others", i)),
                )
            if role in scope or others.index(role) != i:
                raise problem(
                    "RC307",
                    f"role '{role}' has the name of another value, or is given twice",
                    self.span(path + ("others", i)),
                )
            for k, v in own.items():
                scope[f"{role}.{k}"] = v
        # each input, requirement, the roll and each effect apart: every slip told in one run (a
        # slip in the roll's inputs hid one in an effect's `when`: hunt 13m)
        made = Apart(self.unit.diags)
        inputs: list[InputSpec] = []
        for iname in spec.get("inputs") or {}:
            at = path + ("inputs", iname)
            with made.part(), known_if_failing(scope, iname):  # what reads it is not told too
                if iname in RESERVED:
                    raise problem(
                        "RC307", f"'{iname}' is a reserved word and cannot name an input", self.span(at, True)
                    )
                if iname in scope:
                    raise problem(
                        "RC307",
                        f"input '{iname}' has the name of a state item or parameter",
                        self.span(at, True),
                    )
                given = self.structure.input_at(at, iname, f"actions.{name}")
                inputs.append(given)
                scope[iname] = _input_type(given)
        requires: list[Requirement] = []
        for i, r in enumerate(spec.get("requires") or []):
            with made.part():
                requires.append(
                    Requirement(
                        self.exprs.expr(path + ("requires", i, "when"), scope, T.BOOL),
                        str(r["else"]),
                        self.span(path + ("requires", i), False),
                    )
                )
        roll = None
        after: dict[str, T.Type] | None = dict(scope)
        if "roll" in spec:
            after = None  # the roll's check unknown: the effects that read its values are not told
            with made.part():
                check, after = self._roll_check(path + ("roll",), spec["roll"], checks, scope)
            if after is not None:
                with made.part():
                    roll = self._roll(path + ("roll",), spec["roll"], check, scope)
        keys = Apart(self.unit.diags)
        notes = {k: "it goes with a move" for k in EFFECT_KEYS["move"]}
        for i, raw in enumerate(spec.get("effects") or []):
            kind = next(k for k in EFFECT_KEYS if k in raw)
            self._only_keys(path + ("effects", i), raw, EFFECT_KEYS[kind], EFFECT_WORDS[kind], keys, notes)
        keys.settle()
        effects: list[Effect] = []
        if after is not None:
            for i, raw in enumerate(spec.get("effects") or []):
                with made.part():
                    effects += self._effects(path + ("effects", i), raw, after, by, others)
        made.settle()
        return Action(
            name=name,
            title=str(spec.get("title", name)),
            by=by,
            inputs=tuple(inputs),
            requires=tuple(requires),
            roll=roll,
            effects=tuple(effects),
            description=str(spec.get("description", "")),
            others=others,
            span=self.span(path, True),
        )

    def _roll_check(
        self, path: PathKey, spec: dict[str, Any], checks: Mapping[str, Check], scope: Mapping[str, T.Type]
    ) -> tuple[Check, dict[str, T.Type]]:
        """An action's roll's check, and what the action's effects read after it: its scope with
        the outcome and the check's values (a slip in the roll's inputs leaves these known)."""
        check_name = str(spec["check"])
        check = checks.get(check_name)
        if check is None and check_name in (self.unit.data.get("checks") or {}):
            raise Reported  # the check is declared but did not compile, and says why
        if check is None:
            raise problem(
                "RC312",
                f"unknown check '{check_name}'",
                self.span(path + ("check",)),
                did_you_mean(check_name, list(self.unit.data.get("checks", {}))),
            )
        after = dict(scope)
        after["outcome"] = T.sym(check.outcomes.name)
        for value, t in [
            *((let.name, let.expr.type) for let in check.lets),
            *((n, e.type) for n, e in check.outputs),
        ]:
            if value in scope:
                raise problem(
                    "RC307",
                    f"check '{check_name}' has a value '{value}', the name of an input, parameter or item "
                    "this action already reads",
                    self.span(path + ("check",)),
                    "after the roll both would be in scope: rename one of them",
                )
            after[value] = t
        return check, after

    def _roll(
        self, path: PathKey, spec: dict[str, Any], check: Check, scope: Mapping[str, T.Type]
    ) -> ActionRoll:
        """An action's roll of `check`: each input it gives checked apart."""
        specs = check.input_map
        bound: list[tuple[str, Expr]] = []
        made = Apart(self.unit.diags)
        for iname in spec.get("inputs") or {}:
            with made.part():
                if iname not in specs:
                    raise problem(
                        "RC402",
                        f"check '{check.name}' has no input '{iname}'",
                        self.span(path + ("inputs", iname), True),
                        did_you_mean(str(iname), specs),
                    )
                want = _input_type(specs[iname])
                bound.append((iname, self.exprs.expr(path + ("inputs", iname), scope, want)))
        made.settle()
        return ActionRoll(check.name, tuple(bound), self.span(path, True))

    def _effects(
        self,
        path: PathKey,
        raw: dict[str, Any],
        scope: Mapping[str, T.Type],
        by: str,
        others: tuple[str, ...],
    ) -> list[Effect]:
        when = self.exprs.expr(path + ("when",), scope, T.BOOL) if "when" in raw else None
        clamp = bool(raw.get("clamp", False))
        span = self.span(path)
        on = str(raw.get("of", ""))
        if on:
            if on not in others:
                raise problem(
                    "RC301",
                    f"unknown role '{on}' of this action",
                    self.span(path + ("of",)),
                    did_you_mean(on, others) or "name the roles under 'others:'",
                )
            by = "other"  # the effect changes a character's items: the role's
        if "move" in raw:
            _, scale = self._target(str(raw["move"]), path + ("move",), by, tally=True, key=False)
            assert scale is not None
            amount = self.exprs.expr(path + ("count",), scope, T.NUM) if "count" in raw else None
            return [
                Effect(
                    "move",
                    str(raw["move"]),
                    amount=amount,
                    source=self._member(scale.name, raw["from"], path + ("from",), key=False),
                    target=self._member(scale.name, raw["to"], path + ("to",), key=False),
                    when=when,
                    clamp=clamp,
                    on=on,
                    span=span,
                )
            ]
        if "reset" in raw:
            names = [raw["reset"]] if isinstance(raw["reset"], str) else list(raw["reset"])
            for i, n in enumerate(names):
                self._target(
                    str(n),
                    path + ("reset",) if isinstance(raw["reset"], str) else path + ("reset", i),
                    by,
                    key=False,
                )
            return [
                Effect(
                    "reset", "", items=tuple(str(n) for n in names), when=when, clamp=clamp, on=on, span=span
                )
            ]
        op = next(k for k in ("add", "remove", "set") if k in raw)
        out: list[Effect] = []
        for item_name, value in raw[op].items():
            at = path + (op, item_name)
            _, scale = self._target(str(item_name), at, by)
            if scale is None:
                if isinstance(value, dict):
                    raise problem(
                        "RC304", f"'{item_name}' is a counter: give a number, not members", self.span(at)
                    )
                amount = self.exprs.expr(at, scope, T.NUM)
                out.append(
                    Effect(op, str(item_name), amount=amount, when=when, clamp=clamp, on=on, span=span)
                )
                continue
            if not isinstance(value, dict):
                raise problem(
                    "RC304",
                    f"'{item_name}' is a tally: give members and counts, e.g. {{{scale.names[0]}: 1}}",
                    self.span(at),
                    f"members: {', '.join(scale.names)}",
                )
            members = tuple(
                (self._member(scale.name, m, at + (m,)), self.exprs.expr(at + (m,), scope, T.NUM))
                for m in value
            )
            out.append(Effect(op, str(item_name), members=members, when=when, clamp=clamp, on=on, span=span))
        # one entry is one change: each item's condition and amounts read the state it found
        return [replace(e, with_next=True) for e in out[:-1]] + out[-1:]

    def _target(
        self, name: str, path: PathKey, by: str, tally: bool = False, key: bool = True
    ) -> tuple[str, Scale | None]:
        """The kind of item an effect names (a counter, or a tally with its scale), checked
        against the action; named as a key (`add: {stamina: 1}`) or a value (`move: lamps`)."""
        shared = self.spec.get("shared") or {}
        each = self.spec.get("each") or {}
        found = shared.get(name) if name in shared else each.get(name)
        if found is None:
            raise problem(
                "RC301",
                f"unknown state item '{name}'",
                self.span(path, key),
                did_you_mean(name, [*shared, *each]),
            )
        if by == "other" and name not in each:
            raise problem(
                "RC307",
                f"'{name}' is not an item of each character: "
                "an effect with 'of:' changes a character's items",
                self.span(path, key),
            )
        if name in each and by not in ("character", "other"):
            raise problem(
                "RC307",
                f"'{name}' belongs to each character, but this action is by the table",
                self.span(path, key),
                "add 'by: character' to the action",
            )
        if "derived" in found:
            raise problem(
                "RC307", f"'{name}' is derived: it cannot be changed, only read", self.span(path, key)
            )
        if tally and "tally" not in found:
            raise problem(
                "RC304", f"'{name}' is not a tally: only a tally's members can move", self.span(path, key)
            )
        if "tally" in found:
            scale: Scale | None = self.unit.scales.get(
                found["tally"] if isinstance(found["tally"], str) else name
            )
            if scale is None:
                raise Reported  # the tally's own scale is unknown, and its item says so
            return "tally", scale
        return "counter", None


def _no_character_name(key: Any) -> tuple[str, str | None] | None:
    """Why `key` cannot name a character (a number YAML read, or text a campaign cannot keep as
    a character's name: empty, padded, holding a '/'), with a hint; None if it can."""
    if not isinstance(key, str):
        return f"a character's name is text, not {key!r}", f"write it in quotes: '{key}'"
    try:
        kept_name("", "", key, "character")
    except InputError as exc:
        return exc.diagnostics[0].message, exc.diagnostics[0].hint
    return None


def _input_type(spec: InputSpec) -> T.Type:
    if spec.scale is not None:
        return T.sym(spec.scale.name)
    return T.BOOL if spec.kind == "bool" else T.NUM


def _replace_counter(c: Counter, lo: Expr | None, hi: Expr | None) -> Counter:
    return Counter(c.name, c.start, lo, hi, c.clamp, c.reset, c.description, c.span)
