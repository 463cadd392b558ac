"""The compiled ruleset: frozen, typed, every name resolved, no YAML left.

Expressions appear here twice: as their syntax tree (for printing and analysis) and as a
`Code` closure that the sampler and the exact evaluator both call — one semantics.
New constructs (triggers, contests, stored state) are new randomizer kinds, new check parts
or new top-level sections here; existing ones need not change.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Container, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ..errors import MAX_DIGITS
from ..expr import ast
from ..frozen import field, freeze_fields, frozen
from ..syntax.positions import Span
from .objective import Objective
from .types import Type
from .values import Symbol, faces_text, redraws_key

if TYPE_CHECKING:  # state.py builds on this module's Expr and InputSpec
    from .state import StateModel

Env = dict[str, Any]
Code = Callable[[Env], Any]


@frozen
class Expr:
    """A compiled expression: its tree, its static type, and the closure that runs it."""

    node: ast.Node
    type: Type
    run: Code = field(compare=False, repr=False)
    text: str = field(default="", compare=False)


@frozen
class Scale:
    """An ordered set of names, worst first: outcomes, chit colours, skill levels."""

    name: str
    members: tuple[Symbol, ...]
    span: Span | None = field(default=None, compare=False)

    def __getitem__(self, name: str) -> Symbol:
        found = self._by_name.get(name)
        if found is None:
            raise KeyError(name)
        return found

    @cached_property
    def names(self) -> tuple[str, ...]:
        """Made once: a scale of 40,000 members read by name for each of a linter's 1,000 input
        combinations rebuilt it each time, 100 s of `validate` (hunt 13za)."""
        return tuple(m.name for m in self.members)

    def has(self, name: str) -> bool:
        """Whether a member is named `name` (a look-up, where `names` is a scan)."""
        return name in self._by_name

    @cached_property
    def _by_name(self) -> dict[str, Symbol]:
        return {m.name: m for m in reversed(self.members)}  # the first of a name


@frozen
class Note:
    id: str
    text: str


@frozen
class Bag:
    """A bag of chits: `chits` gives each colour's count in one set, `sets` how many sets."""

    name: str
    scale: Scale
    chits: tuple[tuple[Symbol, int], ...]
    sets: int
    span: Span | None = field(default=None, compare=False)

    def contents(self) -> tuple[tuple[Symbol, int], ...]:
        return self._contents

    @cached_property
    def _contents(self) -> tuple[tuple[Symbol, int], ...]:
        """Each colour with its chits over every set (made once: a draw's table is looked up by it)."""
        return tuple((s, n * self.sets) for s, n in self.chits)

    @cached_property
    def population(self) -> tuple[Symbol, ...]:
        """Every chit in the bag, one entry each, in the scale's order: what a draw samples from
        (made once, not on every draw)."""
        return tuple(s for s, k in self.contents() for _ in range(k))

    @cached_property
    def size(self) -> int:
        return sum(n for _, n in self.chits) * self.sets


@frozen
class InputSpec:
    """A typed input of a check: int, number, bool, a choice from a scale, or a list of
    numbers (`kind` "list": `of` is the element kind, `minimum`/`maximum` bound each element,
    `min_length`/`max_length` the list; its value is a `Multi` of the numbers, sorted, since
    the pool functions read it and a pool over it gives one die per element)."""

    name: str
    kind: str
    minimum: Any = None
    maximum: Any = None
    default: Any = None
    scale: Scale | None = None
    description: str = ""
    span: Span | None = field(default=None, compare=False)
    of: str = ""
    min_length: int = 0
    max_length: int | None = None
    whole: tuple[Any, Any] | None = field(init=False, compare=False, repr=False)
    """For an input that takes a number (`int` or `number`, not a list or a scale): the lowest
    and the highest an `int` given for it may be — its `minimum` and `maximum`, within the
    digits any number may have —, so that binding takes a plain `int` in range as it comes,
    without the general check (`runtime.inputs.bind`); None for any other input."""

    def __post_init__(self) -> None:
        # worked out when the input is declared: every request binds its inputs
        whole = None
        if self.kind in ("int", "number") and self.scale is None:
            most = 10**MAX_DIGITS - 1
            lo = -most if self.minimum is None else max(self.minimum, -most)
            hi = most if self.maximum is None else min(self.maximum, most)
            whole = (lo, hi)
        object.__setattr__(self, "whole", whole)

    @property
    def required(self) -> bool:
        return self.default is None


@frozen
class Rule:
    """One row of an ordered rule list: `when` (None for `else`) and the outcome it gives.

    `again`: the row is `then: again` (a check's outcome rules only): the whole check is made
    again from scratch, and `then` gives `AGAIN`, which no outcome scale has as a member."""

    when: Expr | None
    then: Expr
    span: Span | None = field(default=None, compare=False)
    again: bool = False


AGAIN = "again"
"""The word of an outcome rule that rolls the whole check again (`then: again`), and what such a
row's `then` gives in place of an outcome: no outcome may be named so (the compiler refuses it),
so a distribution's or a program's outcome equal to it can only mean "roll again"."""


@frozen
class Table:
    """A named, pure function of its parameters: ordered rules, a value table or one expression."""

    name: str
    params: tuple[tuple[str, Type], ...]
    returns: Type
    run: Callable[..., Any] = field(compare=False, repr=False)
    description: str = ""
    span: Span | None = field(default=None, compare=False)


@frozen
class Die:
    """One die with the given faces, equally likely.

    `faces_expr` is set when the faces read inputs or earlier values (`die: "1..size"`): they
    are worked out when the die is rolled (`runtime.rules.concrete`), and `faces` is empty."""

    name: str
    faces: tuple[int, ...]
    span: Span | None = field(default=None, compare=False)
    redraw: Redraw | None = None
    faces_expr: Expr | None = None
    counted: bool = False
    """The check reads `redraws(name)`: the evaluators carry, with the final value, how many
    redraws were made of it (`values.Redrawn`)."""

    @cached_property
    def label(self) -> str:
        """`d{0..9}` for a die whose faces run in steps of one, else the faces listed."""
        return "d{" + faces_text(self.faces) + "}"


@frozen
class Trigger:
    """A die face that sets off a reroll step in its pool (a 9 that grants a reroll, exploding dice).

    `on` and `target` are per-die conditions (the die's face is `face`); `target` None means
    the triggering die itself. `action` is "reroll" or "add" (add a new die: explode);
    `must` False makes it a player's choice, decided by the policy. `only_if` is a condition
    known before the roll. With `repeat`, dice rolled by this step may trigger it again; with
    `first_roll_only`, only the dice of the first roll may trigger it (dice any step rolls never
    do: each failed die of the first roll rerolled once, and neither its new die nor a die
    another step adds rerolled by it again).
    """

    name: str
    on: Expr
    action: str
    must: bool
    target: Expr | None
    per_die: int = 1
    only_if: Expr | None = None
    repeat: bool = True
    pick: str = "lowest"
    take: str = "any"
    """For a `may` step: "any" number of the granted dice, or "all" of them or none."""
    span: Span | None = field(default=None, compare=False)
    first_roll_only: bool = False


def sets_off(triggers: Sequence[Trigger], u: int, rolled_by: int | None) -> bool:
    """Whether a die that step `rolled_by` rolled (None: a die of the first roll) can set off
    step `u`, when its face is one that step's `on` names: the one statement of `repeat` and
    `first_roll_only`, which the procedure, the sampler and the compiler's checks all follow."""
    if rolled_by is None:
        return True
    step = triggers[u]
    return not step.first_roll_only and (u != rolled_by or step.repeat)


def endless_steps(triggers: Sequence[Trigger], acting: Collection[int] | None = None) -> frozenset[int]:
    """The steps that can act again and again without end: those on a circle of "a die this step
    rolls can set that step off" (`sets_off`), and those such a step's dice can reach. Without
    one, every roll of the pool ends within a few rounds, with no cap. `acting`: the steps that
    can act in one roll (an `only_if` false, or an `on` that holds on no face, for its inputs:
    `Procedure.acting`); None, every step written (what the ruleset alone says)."""
    steps = range(len(triggers)) if acting is None else sorted(acting)
    reach = {t: {u for u in steps if sets_off(triggers, u, t)} for t in steps}
    for _ in steps:  # the closure: at most as many rounds as steps
        for t in steps:
            reach[t] = reach[t].union(*(reach[u] for u in reach[t]))
    circled = {t for t in steps if t in reach[t]}
    return frozenset(circled.union(*(reach[t] for t in circled)))


def acts_on_every_die(trigger: Trigger, on_every_face: bool, hits_every_face: bool) -> bool:
    """Whether a step acts on every die of its pool, with a die to act on, whatever falls: a
    `must` step whose `on` holds on every face, adding a die or rerolling the die itself, or a
    `target` that takes every face (so some die, the one that set it off at least, is always there
    to reroll). Such steps that set each other off (`endless_steps`) never let a roll end: the
    compiler refuses them when the faces alone decide it (`RC313`), a procedure when its inputs do."""
    if not trigger.must or not on_every_face:
        return False
    if trigger.action == "reroll" and trigger.target is not None:
        return hits_every_face
    return trigger.action in ("add", "reroll")


def chains_without_end(triggers: Sequence[Trigger]) -> bool:
    """Whether some step of a pool can act again and again without end (`endless_steps`)."""
    return bool(endless_steps(triggers))


def adds_without_end(triggers: Sequence[Trigger], acting: Collection[int] | None = None) -> bool:
    """Whether a step that adds dice can act again and again without end (`endless_steps`, of the
    steps `acting`): the pool can then grow without end, and the exact evaluator follows it to a
    depth."""
    return any(triggers[t].action == "add" for t in endless_steps(triggers, acting))


@frozen
class Redraw:
    """A second chance at a draw or die: `may` says when it is allowed (a player's choice),
    or `must` when it is forced; up to `times` times. The earlier chits go back in the bag."""

    allowed: Expr
    must: bool
    times: Expr
    span: Span | None = field(default=None, compare=False)


def set_cap(total: bool, each_die: bool) -> str:
    """How to set a reroll procedure's `cap`, worded for a hint: a pool's is on the pool, a die
    with triggers' (`total`) on the die, and the die of a pool's `each_die` under it (each die's
    own cap: the pool takes none beside `each_die`)."""
    if each_die:
        return "set each die's 'cap' under the pool's 'each_die'"
    return f"set a 'cap' on the {'die' if total else 'pool'}"


@frozen
class Pool:
    """`count` dice with `faces`, each read through `each` (the face itself when absent)."""

    name: str
    count: Expr
    faces: tuple[int, ...]
    each: Expr | None
    span: Span | None = field(default=None, compare=False)
    folds: tuple[tuple[Any, ...], ...] | None = None
    """When the check reads this pool only through statistics (`majority(p, ...)`, `sum(p)`,
    ...), their keys: the exact evaluator then computes just those, never the multisets. An
    argument read from the inputs (`count(p, target..10)`) is kept as its `Expr`, worked out for
    each request (`rules.folds_for`)."""
    triggers: tuple[Trigger, ...] = ()
    cap: int | None = None
    """At most this many dice rerolled or added in all; past it the procedure stops."""
    redraw: Redraw | None = None
    faces_expr: Expr | None = None
    """As for `Die.faces_expr`."""
    total: bool = False
    """A die with triggers, written `die:` with `triggers`: a one-die pool whose name reads as
    a number, the total of its dice once the procedure stops."""
    per: bool = False
    """`count` is a list of numbers (a `Multi`): one die per element, and `each` reads that
    element as `item`, so the dice are not alike (no triggers, cap or redraw)."""
    history: tuple[str, ...] = ()
    """What the check reads of the pool's history (`first_roll`, `added_dice`, `rerolled_dice`):
    the evaluators keep those parts in the pool's value, and nothing when none is read."""
    counted: bool = False
    """The check reads `redraws(name)`: the evaluators carry, with the final value, how many
    redraws were made of it (`values.Redrawn`)."""
    own: Pool | None = None
    """`each_die:` — every die of the pool is this die with triggers (a `total` pool of one die,
    with the pool's faces), rolled on its own: the pool's faces are the dice's totals, which
    `each` reads as `face`. The pool itself then has no triggers, cap or redraw."""
    each_die: bool = False
    """This is a pool's `own` die: its triggers and cap are written under that pool's `each_die`."""
    count_keys: tuple[tuple[Any, ...], ...] | None = None
    """When the check tells this pool's dice apart only by counts of readings, in the pool and in
    the parts of its history it reads (`count(p, 8..10)`, `1 in first_roll(p)`): their keys, each
    `(part, what)` with part `count` (the pool) or the history's function (`first_roll`), what
    an `Expr` where it is read from the inputs. The procedure merges faces alike in all of them
    (`procedure._merged`), and keeps each part of the history by its own keys alone; None where
    the check reads the dice otherwise."""

    @property
    def set_cap(self) -> str:
        """How to set this procedure's `cap` (`set_cap`), for a hint that asks for one."""
        return set_cap(self.total, self.each_die)

    @cached_property
    def procedure_reads(self) -> tuple[str, ...]:
        """The names of the check that its reroll procedure reads (through `each`, the faces and
        the triggers): a procedure made for one set of their values serves every roll with them."""
        exprs = [self.each, self.faces_expr] + [e for t in self.triggers for e in (t.on, t.target, t.only_if)]
        found: set[str] = set(self.count_key_reads)  # which dice count alike merges kinds (`_merged`)
        for e in exprs:
            if e is not None:
                found |= reads(e.node)
        found.discard("face")
        return tuple(sorted(found))

    @cached_property
    def fold_reads(self) -> tuple[str, ...]:
        """The names the arguments of `folds` read (none where every argument is a constant)."""
        return _fold_reads(self.folds)

    @cached_property
    def count_key_reads(self) -> tuple[str, ...]:
        """The names the arguments of `count_keys` read (none where every argument is a constant)."""
        return _fold_reads(self.count_keys)


def _fold_reads(folds: tuple[tuple[Any, ...], ...] | None) -> tuple[str, ...]:
    """The names read by the arguments of fold keys kept as expressions (read from the inputs)."""
    found: set[str] = set()
    for key in folds or ():
        for arg in key[1:]:
            if isinstance(arg, Expr):
                found |= reads(arg.node)
    return tuple(sorted(found))


def reads(node: ast.Node) -> set[str]:
    """What an expression reads of its environment: its names, and for each `redraws(x)` the
    count kept at `redraws_key(x)`, so that a table or procedure kept per value of what it reads
    tells a value reached by a redraw from the same value rolled first."""
    found = set(ast.names(node))
    stack = [node]
    while stack:
        n = stack.pop()
        counted = counts_redraws(n)
        if counted is not None:
            found.add(redraws_key(counted))
        stack.extend(ast.children(n))
    return found


def counts_redraws(node: ast.Node) -> str | None:
    """The randomizer `node` counts the redraws of, when it is `redraws(x)` (the compiler has
    checked that x names one)."""
    if isinstance(node, ast.Call) and node.func == "redraws" and node.args:
        arg = node.args[0]
        if isinstance(arg, ast.Name):
            return arg.id
    return None


@frozen
class Draw:
    """`count` chits drawn from `bag` without replacement."""

    name: str
    bag: Bag
    count: Expr
    span: Span | None = field(default=None, compare=False)
    folds: tuple[tuple[Any, ...], ...] | None = None
    """As for `Pool.folds`."""
    redraw: Redraw | None = None
    counted: bool = False
    """The check reads `redraws(name)`: the evaluators carry, with the final value, how many
    redraws were made of it (`values.Redrawn`)."""

    @cached_property
    def fold_reads(self) -> tuple[str, ...]:
        """As for `Pool.fold_reads`."""
        return _fold_reads(self.folds)


Randomizer = Die | Pool | Draw


def randomizer_expressions(r: Randomizer) -> list[Expr]:
    """Every expression a randomizer evaluates: its faces (when not constant), count, `each`,
    triggers, redraw, its statistics' arguments read per request (`Pool.folds`) and the counts'
    by which its procedure merges faces (`Pool.count_keys`)."""
    out: list[Expr] = []
    if not isinstance(r, Draw) and r.faces_expr is not None:
        out.append(r.faces_expr)
    if isinstance(r, Pool):
        out.append(r.count)
        if r.each is not None:
            out.append(r.each)
        for t in r.triggers + (r.own.triggers if r.own is not None else ()):
            out += [e for e in (t.on, t.target, t.only_if) if e is not None]
        out += [key[1] for key in r.count_keys or () if len(key) == 2 and isinstance(key[1], Expr)]
    elif isinstance(r, Draw):
        out.append(r.count)
    if r.redraw is not None:
        out += [r.redraw.allowed, r.redraw.times]
    if not isinstance(r, Die):  # a statistic's argument worked out when the pool is made
        out += [arg for key in r.folds or () for arg in key[1:] if isinstance(arg, Expr)]
    return out


def after_roll_expressions(
    roll: Sequence[Randomizer],
    post_lets: Sequence[Let],
    outcome: Expr | tuple[Rule, ...],
    outputs: Sequence[tuple[str, Expr]],
) -> list[Expr]:
    """Everything evaluated once the roll begins: the randomizers' own expressions, the values
    that need dice, the outcome and the outputs. The compiler reads it to see how each pool is
    read, the linter to see which inputs matter after the roll."""
    out = [e for r in roll for e in randomizer_expressions(r)]
    out += [let.expr for let in post_lets] + [e for _, e in outputs]
    if isinstance(outcome, Expr):
        out.append(outcome)
    else:
        out += [e for rule in outcome for e in (rule.when, rule.then) if e is not None]
    return out


@frozen
class Let:
    """A named value; `before_roll` when it depends on no die, so dice and auto rules may use it."""

    name: str
    expr: Expr
    before_roll: bool
    span: Span | None = field(default=None, compare=False)


ROLLED = {"outcome": "outcome", "values": "value"}
"""What an example expects that has it roll its check, taking its forced dice in turn: each key
of its `expect:` to the kind of `Expectation` it makes. Probabilities and means are worked out
exactly and take no dice, so only such an example's forced lists are counted when the ruleset
loads (`compiler.structure`, from the raw `expect:`, whose every key is read even where one's
value is wrong) and rolled by `rulecraft test` (`tools.examples`, from the built kinds)."""


@frozen
class Expectation:
    """One thing an example expects: the outcome, a named value, an outcome's probability
    (exact, or between bounds), or a named value's exact mean."""

    kind: str  # outcome | value | probability | mean
    name: str
    expected: Any
    span: Span | None = field(default=None, compare=False)


@frozen
class Example:
    """A worked example written in the ruleset, run by `rulecraft test`."""

    name: str
    inputs: Mapping[str, Any]
    dice: Mapping[str, Any]
    policy: str
    expects: tuple[Expectation, ...]
    span: Span | None = field(default=None, compare=False)
    spans: Mapping[tuple[str, str], Span] = field(default_factory=dict, compare=False)
    """Where each given input and forced randomizer is written (`("inputs", name)`,
    `("dice", name)`), so a value refused is reported at itself."""


_PLAIN_KINDS = frozenset({"num", "bool", "sym"})
"""The static types (`Type.kind`) of the values a distribution is made of (`Check.plain_values`)."""


@frozen
class Check:
    """One check: inputs → values known before the roll → auto rules → dice → values → outcome."""

    name: str
    title: str
    description: str
    inputs: tuple[InputSpec, ...]
    lets: tuple[Let, ...]
    auto: tuple[Rule, ...]
    roll: tuple[Randomizer, ...]
    outcomes: Scale
    outcome: Expr | tuple[Rule, ...]
    outputs: tuple[tuple[str, Expr], ...]
    program: Callable[..., tuple[Any, ...]] = field(compare=False, repr=False)
    roller: Callable[..., tuple[Any, ...]] | None = field(default=None, compare=False, repr=False)
    """When every randomizer is a plain die: the dice drawn and `program`'s statements, as one
    function `roller(env, draw)` (see `compiler.structure`), which a plain roll calls."""
    roller_units: int = 0
    """The most work units one run of `roller` can charge (its table calls, counted at load)."""
    outcome_units: int = 0
    """The most work units the outcome's statements can charge for one combination of the dice
    (their table calls, counted at load, and the size of their code: `code_units` of the code the
    outcome reads): one run of `outcome_program`, one state of `outcome_loop`, one group of
    `outcome_stages`' rest."""
    code_units: int = 0
    """Units one run of the check's code after the roll costs past a state's or a roll's own unit:
    a unit for each `CODE_NODES` expression nodes of its named values, outcome and outputs past
    the first `FREE_CODE_NODES` (counted at load). 0 for a check of a few lines (every shipped
    one): a unit a state was charged whatever the code ran, so 40 named values of 25 operations
    each ran 13.5 s of CPU on 160,000 states charged 160,000 units (hunt 13h)."""
    objective: Objective = Objective()
    """What the `optimal` policy maximises."""
    sequential: bool = False
    """Some die depends on an earlier one, or the player chooses: exact evaluation goes die by die."""
    examples: tuple[Example, ...] = ()
    span: Span | None = field(default=None, compare=False)
    outcome_program: Callable[..., Any] | None = field(default=None, compare=False, repr=False)
    """`program` cut down to the outcome: called alike, it runs only the values the outcome reads
    and returns the outcome alone (None: run `program` and take its first item). Whoever replaces
    `program` (the linter's probe) replaces this too, or sets it to None."""
    outcome_loop: Callable[..., None] | None = field(default=None, compare=False, repr=False)
    """The same, over every combination of the randomizers at once: called as
    `outcome_loop(env, out, *tables)` with each randomizer's (value, weight) pairs, it adds each
    combination's weight (their product) to `out[outcome]`. None for a check with no dice or
    more than the compiler nests; replaced (or None) with `program` too."""
    outcome_stages: tuple[Callable[..., tuple[Any, ...]], Callable[..., None]] | None = field(
        default=None, compare=False, repr=False
    )
    """The outcome in two stages, when it reads values that depend on the dice alone: `stage(*dice)`
    gives what the rest reads of the dice (those values, and the dice it reads itself), the same
    for any inputs; `rest(env, out, groups)` adds each group's weight to `out[outcome]`, with
    `groups` the (what the rest reads, weight) pairs. None otherwise; replaced with `program` too."""
    value_loops: Mapping[str, tuple[Callable[..., None], int]] = field(
        default_factory=dict, compare=False, repr=False
    )
    """Per named value worked out after the roll (a `let:`, not an output): `outcome_loop`'s
    loops running only that value and the values it reads, adding each combination's weight to
    `out[value]` — one value's distribution without the joint —, with the most work units its
    statements can charge for one combination (their table calls, counted at load, as
    `outcome_units` is). Empty when there is no `outcome_loop`; replaced (or emptied) with
    `program` too."""
    outcome_total: bool = field(default=False, compare=False)
    """The outcome's statements can never raise (`+`, `-`, orders of numbers, tests and rules
    that end in an `else`: no call, product, quotient or lookup; `compiler.programs._total`),
    so the exact evaluator may run `outcome_loop` when the outcome is first asked for rather than
    when the distribution is made: no error can come later than it would have. The loop's work
    is charged when the distribution is made either way."""
    stage_keys: tuple[Callable[..., tuple[Any, ...]] | None, ...] | None = field(
        default=None, compare=False, repr=False
    )
    """For a sequential check: `stage_keys[i](env, *dice)`, with the first i + 1 randomizers'
    values, gives everything the rest of the check reads of them — each value that needs only
    those dice, each part of a later expression that reads them (`keep(foe, level)` in a later
    count), a die itself where something later reads it whole — so the exact evaluator finishes
    the check once per key, not once per roll of those dice. A stage's key is None where it
    would only repeat the dice's `own_keys` (the dice themselves serve). None for other checks,
    or when `program` is replaced (the linter's probe sees every state)."""
    own_keys: tuple[tuple[Callable[..., tuple[Any, ...]], tuple[str, ...]] | None, ...] | None = field(
        default=None, compare=False, repr=False
    )
    """For a sequential check: per randomizer, None or `(key, reads)` — `key(env, value)` gives
    every part of the check that reads the value (each reads besides it only the names `reads`,
    all known before the roll), so values with equal keys are read alike and the exact evaluator
    lists one of them, weighed for all. None as `stage_keys` is."""
    value_scales: Mapping[str, Scale] = field(default_factory=dict, compare=False, repr=False)
    """The scale of each named value declared of a scale's type (a choice input, a `let`, an
    output), by the value's name: a `Distribution` tells a misspelt member of it (RC402) from one
    that never comes up (a probability of 0). A value of `any` type has none."""
    pre_lets: tuple[Let, ...] = field(init=False, compare=False, repr=False)
    """The values that need no die (`Let.before_roll`), in order."""
    pre_names: tuple[str, ...] = field(init=False, compare=False, repr=False)
    """Their names, in order (`rules.known_values` reads them at every request)."""
    post_lets: tuple[Let, ...] = field(init=False, compare=False, repr=False)
    """The values worked out after the roll, in order."""
    layout: tuple[str, ...] = field(init=False, compare=False, repr=False)
    """Names of the values `program` returns after (outcome, rule index): each after-roll
    value, then each output."""
    plain_values: frozenset[str] = field(init=False, compare=False, repr=False)
    """The after-roll values whose static type is a number, true/false or a scale value: every
    value they take is one of those, so the exact evaluator makes their distributions without
    looking at each value's kind (it looks for the others, whose type is known only when run)."""

    def __post_init__(self) -> None:
        # worked out once, when the check is made (a `replace` makes them again): every request
        # reads them, and a property computed on first use is cold code in a first request
        pre = tuple(let for let in self.lets if let.before_roll)
        post = tuple(let for let in self.lets if not let.before_roll)
        object.__setattr__(self, "pre_lets", pre)
        object.__setattr__(self, "pre_names", tuple(let.name for let in pre))
        object.__setattr__(self, "post_lets", post)
        layout = tuple(let.name for let in post) + tuple(n for n, _ in self.outputs)
        object.__setattr__(self, "layout", layout)
        plain = frozenset(let.name for let in post if let.expr.type.kind in _PLAIN_KINDS)
        object.__setattr__(self, "plain_values", plain)

    @cached_property
    def value_names(self) -> tuple[str, ...]:
        """What `Distribution.value` can be asked for (a server lists them), in the order of
        `Distribution.values`: each value known before the roll, then each value of `layout`,
        whose static type is not a pool, list or range. One whose type is `any` is listed too;
        only what it holds when solved tells, and `value` refuses it (RC402) where that is not a
        number, true/false or a scale value."""
        types = {let.name: let.expr.type.kind for let in self.lets}
        types.update((name, expr.type.kind) for name, expr in self.outputs)
        names = (*self.pre_names, *self.layout)
        return tuple(n for n in names if types[n] not in ("multi", "list", "range"))

    def unrolled(self, values: Container[str]) -> tuple[str, ...]:
        """The names of `value_names` missing from `values`, the values of a roll or distribution
        an auto rule decided: those worked out after the roll, which nothing was rolled for."""
        pre = self.pre_names
        return tuple(n for n in self.value_names if n not in values and n not in pre)

    @property
    def input_map(self) -> Mapping[str, InputSpec]:
        return {i.name: i for i in self.inputs}

    @cached_property
    def auto_outputs(self) -> tuple[tuple[str, Expr], ...]:
        """The outputs that can be computed when an auto rule decides and nothing is rolled."""
        known = {i.name for i in self.inputs} | {let.name for let in self.pre_lets} | {"outcome"}
        out = []
        for name, expr in self.outputs:
            if ast.names(expr.node) <= known:
                out.append((name, expr))
                known.add(name)
        return tuple(out)

    def expressions(self) -> list[tuple[str, Expr]]:
        """Every expression of the check with its owner: a named value's name, or '' for the rest."""
        out: list[tuple[str, Expr]] = [(let.name, let.expr) for let in self.lets]
        for rule in self.auto:
            out += [("", e) for e in (rule.when, rule.then) if e is not None]
        for r in self.roll:
            out += [("", e) for e in randomizer_expressions(r)]
        if isinstance(self.outcome, Expr):
            out.append(("", self.outcome))
        else:
            for rule in self.outcome:
                out += [("", e) for e in (rule.when, rule.then) if e is not None]
        out += [("", e) for _, e in self.outputs]
        return out

    @cached_property
    def again_rules(self) -> tuple[int, ...]:
        """The indexes of the outcome rules that roll the check again (`then: again`)."""
        if isinstance(self.outcome, Expr):
            return ()
        return tuple(i for i, rule in enumerate(self.outcome) if rule.again)

    @cached_property
    def chooses(self) -> bool:
        """Whether the player decides something in a roll (a `may` trigger or redraw)."""
        return any(r.redraw is not None and not r.redraw.must for r in self.roll) or any(
            not t.must for r in self.roll if isinstance(r, Pool) for t in r.triggers
        )

    def after_roll_expressions(self) -> list[Expr]:
        """See `after_roll_expressions`."""
        return after_roll_expressions(self.roll, self.post_lets, self.outcome, self.outputs)


@frozen
class RulesetModel:
    """Everything a ruleset declares, compiled."""

    name: str
    title: str
    version: int
    notes: tuple[Note, ...]
    scales: Mapping[str, Scale]
    bags: Mapping[str, Bag]
    tables: Mapping[str, Table]
    checks: Mapping[str, Check]
    source_name: str
    state: StateModel | None = None
    """What lasts across rolls in a stored campaign, and the actions that change it."""
    code: int = 0
    """Characters of Python its compile wrote (`Emitter.code`): most of what it holds in memory,
    which can grow far faster than its text (`api.compiled_bytes`)."""

    def __post_init__(self) -> None:
        # read-only all the way to its checks: one compiled model is shared by every `Ruleset`
        # loaded from the same text (`api._LOADED`), so a caller's `rs.checks.pop(...)` would
        # have changed every later `load` in the process
        freeze_fields(self, "scales", "bags", "tables", "checks")
