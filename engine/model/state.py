"""State that lasts, as declared in a ruleset: counters, tallies, derived values, periods, and the
actions that change them. Frozen, like the rest of the model; what an action *does* is `runtime.state`.

A counter is a whole number with bounds; a tally counts members of a scale (two-faced coins:
heads and tails; a damage track: scratched, hurt, broken) and may cap its total and promote
(N of one member become one of another). Usage limits per period are counters that a period
resets; a derived value is an expression over the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import TYPE_CHECKING

from ..frozen import field, freeze_fields, frozen
from ..syntax.positions import Span
from .ruleset import Expr, InputSpec, Scale

if TYPE_CHECKING:
    from .scene import Scene


@frozen
class Counter:
    """A whole number: `start` when made (and when a period in `reset` begins), kept within
    [`minimum`, `maximum`]; a change past a bound is refused unless `clamp`."""

    name: str
    start: Expr
    minimum: Expr | None = None
    maximum: Expr | None = None
    clamp: bool = False
    reset: tuple[str, ...] = ()
    description: str = ""
    span: Span | None = field(default=None, compare=False)


@frozen
class Promotion:
    """After every change, while `when` holds: take away `remove` and put in `add` (counts per member)."""

    when: Expr
    remove: tuple[tuple[str, Expr], ...] = ()
    add: tuple[tuple[str, Expr], ...] = ()
    clear: bool = False
    span: Span | None = field(default=None, compare=False)


@frozen
class Tally:
    """How many of each member of `scale` there are: coins by face, damage by level."""

    name: str
    scale: Scale
    start: tuple[tuple[str, Expr], ...]
    maximum: Expr | None = None
    """The largest total allowed; a change past it is refused unless the effect clamps."""
    promote: tuple[Promotion, ...] = ()
    reset: tuple[str, ...] = ()
    description: str = ""
    span: Span | None = field(default=None, compare=False)


@frozen
class Derived:
    """A value computed from the state and the parameters whenever it is read; never stored."""

    name: str
    expr: Expr
    description: str = ""
    span: Span | None = field(default=None, compare=False)


Item = Counter | Tally | Derived


@frozen
class Effect:
    """One change an action makes, in order: `op` is add, remove, set, move or reset.

    add/set on a counter: `amount` (for set, the new value); add/remove/set on a tally: per member
    (`members`); move on a tally: `amount` from member `source` to member `target`; reset: put
    `items` back to their start. `when` makes it conditional; `clamp` stops at a bound instead
    of refusing the action."""

    op: str
    item: str
    amount: Expr | None = None
    members: tuple[tuple[str, Expr], ...] = ()
    source: str = ""
    target: str = ""
    items: tuple[str, ...] = ()
    when: Expr | None = None
    clamp: bool = False
    on: str = ""
    """A role of the action (`others`): the effect changes that character's item, not the actor's."""
    with_next: bool = False
    """The next effect is written in the same entry (`add: {a: 1, b: 1}`): its `when` and amounts
    are read from the state as this one found it, so the entry acts as one change."""
    span: Span | None = field(default=None, compare=False)

    def expressions(self) -> list[Expr]:
        """Its condition and amounts."""
        out = [e for e in (self.when, self.amount) if e is not None]
        return out + [e for _, e in self.members]


@frozen
class Requirement:
    """A precondition: unless `when` holds, the action is refused with `message` and changes nothing."""

    when: Expr
    message: str
    span: Span | None = field(default=None, compare=False)


@frozen
class ActionRoll:
    """The check an action rolls, with its inputs bound from the state and the action's inputs."""

    check: str
    inputs: tuple[tuple[str, Expr], ...]
    span: Span | None = field(default=None, compare=False)


@frozen
class Action:
    """A named change of state: preconditions, an optional roll, then effects that may read the
    roll's outcome and values. `by` is "character" (it acts for one character) or "table"."""

    name: str
    title: str
    by: str
    inputs: tuple[InputSpec, ...]
    requires: tuple[Requirement, ...]
    roll: ActionRoll | None
    effects: tuple[Effect, ...]
    description: str = ""
    others: tuple[str, ...] = ()
    """Roles of other characters the action involves (a foe, a helper): read as `ROLE.NAME`,
    changed by effects with `to: ROLE`; named when acting."""
    span: Span | None = field(default=None, compare=False)

    @property
    def input_map(self) -> Mapping[str, InputSpec]:
        return {i.name: i for i in self.inputs}

    def expressions(self) -> list[Expr]:
        """Every expression of the action: its preconditions, its roll's inputs, its effects."""
        out = [r.when for r in self.requires] + [e for _, e in (self.roll.inputs if self.roll else ())]
        return out + [e for effect in self.effects for e in effect.expressions()]


@frozen
class StateExample:
    """A worked example of lasting state, run by `rulecraft test`: make a campaign, take the
    steps, compare the items named in `expect` (or expect the last step refused with `refused`).
    Steps and values stay as written; `spans` places each expected item for a failure report."""

    name: str
    params: Mapping[str, object]
    characters: Mapping[str, Mapping[str, object]]
    steps: tuple[Mapping[str, object], ...]
    expect: Mapping[str, object]
    refused: str | None = None
    start: Mapping[str, object] = field(default_factory=dict)
    """Items that start with other values than the rules' own: {"shared": {...}, "characters": {...}}."""
    spans: Mapping[tuple[str, ...], Span] = field(default_factory=dict, compare=False)
    span: Span | None = field(default=None, compare=False)


@frozen
class StateModel:
    """A ruleset's lasting state: periods, the parameters of a campaign and of each character, the
    items the whole table shares and those each character has, and the actions."""

    periods: tuple[str, ...]
    campaign: tuple[InputSpec, ...]
    character: tuple[InputSpec, ...]
    shared: Mapping[str, Item]
    each: Mapping[str, Item]
    actions: Mapping[str, Action]
    examples: tuple[StateExample, ...] = ()
    scenes: Mapping[str, Scene] = field(default_factory=dict)
    span: Span | None = field(default=None, compare=False)
    campaign_span: Span | None = field(default=None, compare=False)
    """The key `state: campaign:`, where the campaign's parameters are declared (None: it has none)."""
    character_span: Span | None = field(default=None, compare=False)
    """The key `state: character:`, where a character's parameters are declared (None: none)."""
    scenes_span: Span | None = field(default=None, compare=False)
    """The key `scenes:`, where the scenes are declared (None: it has none)."""
    actions_span: Span | None = field(default=None, compare=False)
    """The key `actions:`, where the actions are declared (None: it has none)."""
    checks_span: Span | None = field(default=None, compare=False)
    """The ruleset's key `checks:`, where the checks a campaign rolls are declared (None: it has
    none): an unknown check is told there, as `Ruleset.check` tells it."""
    periods_span: Span | None = field(default=None, compare=False)
    """The key `state: periods:`, where the periods are declared (None: it has none)."""

    def __post_init__(self) -> None:
        # read-only, as `RulesetModel`'s mappings: shared by every `Ruleset` of the same text
        freeze_fields(self, "shared", "each", "actions", "scenes")

    @cached_property
    def tallies(self) -> tuple[int, int]:
        """How many of the table's items and of a character's are tallies: what a state's width
        weighs more (`runtime.state.width_work`, asked for every state a scene meets), counted
        once per model."""
        return (
            sum(1 for i in self.shared.values() if isinstance(i, Tally)),
            sum(1 for i in self.each.values() if isinstance(i, Tally)),
        )

    def expressions(self) -> list[tuple[str, Expr]]:
        """Every expression of the lasting state, each with where it is in words: each item's
        start, bounds, promotions or derivation, each action's, each scene's (what a tool that
        reads the whole ruleset, the linter, looks through)."""
        out: list[tuple[str, Expr]] = []
        for owner, items in (("shared", self.shared), ("each character's", self.each)):
            for item in items.values():
                where = f"{owner} item '{item.name}'"
                out += [(where, e) for e in item_expressions(item)]
        for action in self.actions.values():
            out += [(f"action '{action.name}'", e) for e in action.expressions()]
        for scene in self.scenes.values():
            out += [(f"scene '{scene.name}'", e) for e in scene.expressions()]
        return out

    def owner(self, item: str) -> str:
        """ "shared" or "each": where an item lives."""
        return "shared" if item in self.shared else "each"

    def item(self, name: str) -> Item:
        return self.shared[name] if name in self.shared else self.each[name]


def item_expressions(item: Item) -> list[Expr]:
    """An item's expressions: a counter's start and bounds, a tally's start, maximum and
    promotions, a derived value's expression."""
    if isinstance(item, Derived):
        return [item.expr]
    if isinstance(item, Counter):
        return [e for e in (item.start, item.minimum, item.maximum) if e is not None]
    out = [e for _, e in item.start] + ([item.maximum] if item.maximum is not None else [])
    for rule in item.promote:
        out += [rule.when, *(e for _, e in (*rule.remove, *rule.add))]
    return out
