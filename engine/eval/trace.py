"""What a roll did, as data: each step's kind, name and value, the dice or chits it took, the rule
that fired (with its span), the trigger that acted, and who decided a choice under which policy.

Text and JSON are both rendered here, from that data, in one place (`detail`, `step_json`): the
command line, a web page or a bot can also show a trace its own way from the fields.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple

from ..frozen import FrozenDict, field, freeze_fields, frozen
from ..model.objective import MEAN_RANK
from ..model.values import Multi, Symbol, faces_text, show, to_json
from ..syntax.positions import Span

KINDS = (
    "input",
    "value",
    "auto",
    "die",
    "pool",
    "draw",
    "reroll",
    "choice",
    "redraw",
    "rule",
    "again",
    "outcome",
    "output",
)


TEXT_PER_UNIT = 16
"""Characters of an answer's trace per unit of work past what a step's own work pays for: a long
name or expression text is carried by every step that shows it, so the work budget bounds the
answer's size as it bounds its time (a roll's steps: `text_units`; a scene's entries)."""
STEP_TEXT = 160
"""The characters of a roll's trace step its roll's own work pays for (an ordinary step shows a
name, a value and an expression of a few dozen)."""


def text_units(steps: Sequence[Step]) -> int:
    """The work the characters these steps show past `STEP_TEXT` each cost, estimated from their
    values and expression texts without rendering them: a pool of 1,000 dice read as names of
    3,000 characters, shown after each of 1,000 rerolls, was a 300 MB answer to a 6 KB ruleset
    (hunt 13za); its roll charged a unit a die."""
    chars = 0
    for step in steps:
        chars += len(step.expr) + _chars(step.value) + 4 * (len(step.faces) + len(step.replaced))
        if step.rule is not None:  # its condition and result, in the text, the JSON's detail and rule
            chars += 3 * (len(step.rule.when or "") + len(step.rule.then))
        if step.die:  # a die's faces, in the text and as the JSON's list (hunt 13zc: 1,000 odd ones)
            chars += _die_chars(step.die)
        if step.trigger is not None:
            chars += 8 * len(step.trigger.showing) + 2 * len(step.trigger.trigger)
        chars += 2 * len(step.bag)
    return max(0, chars - STEP_TEXT * len(steps)) // TEXT_PER_UNIT


@lru_cache(maxsize=256)
def _die_chars(die: tuple[int, ...]) -> int:
    """A die's faces as a trace shows them, twice (the text, the JSON's list): worked out once per
    die, as the same die shows in every attempt a rule `then: again` makes."""
    return 2 * sum([_chars(face) + 2 for face in die])


def _chars(value: Any) -> int:
    """About the characters `value` shows as (as text, and again as JSON)."""
    if isinstance(value, Multi):
        return 2 + sum(_chars(item) + 2 for item in value.items)
    if isinstance(value, Symbol):
        return len(value.name)
    if isinstance(value, str):
        return len(value)
    if isinstance(value, int):
        return value.bit_length() * 3 // 10 + 2
    if isinstance(value, Fraction):
        return (value.numerator.bit_length() + value.denominator.bit_length()) * 3 // 10 + 3
    return 8


@frozen(slots=True)
class RuleRef:
    """The row of a rule list that fired: its place, its condition (None for `else`) and result."""

    index: int
    when: str | None
    then: str
    span: Span | None = None


@frozen(slots=True)
class TriggerStep:
    """A pool's trigger acting: the dice showing it, and the rerolls or added dice it grants."""

    trigger: str
    action: str  # reroll | add
    must: bool
    pick: str  # lowest | highest: which eligible dice a rule or `always` takes first
    showing: tuple[int, ...]
    grant: int


@frozen(slots=True)
class Decision:
    """Who decided a step — the rule, or a policy — and, for `optimal`, the objective it reached
    taking the choice (`reached`) and taking nothing (`declined`, when something was taken)."""

    by: str  # rule | always | never | optimal
    taken: bool
    objective: str = ""
    reached: Fraction | None = None
    declined: Fraction | None = None
    nothing_to_hit: bool = False
    """Nothing was taken because no die was eligible, whatever the policy."""


class Step(NamedTuple):
    """One step of a trace, in the order it happened (see `KINDS`). Immutable; a named tuple
    because a roll makes a dozen of them and must stay quick."""

    kind: str
    name: str
    value: Any
    expr: str = ""
    """value, outcome, output: the expression's canonical text."""
    rule: RuleRef | None = None
    """auto, rule: the row that fired."""
    faces: tuple[Any, ...] = ()
    """die: the face; pool: the faces rolled; draw: the chits; reroll: the new faces."""
    replaced: tuple[Any, ...] = ()
    """reroll: the faces rerolled, in order; redraw: the value redrawn."""
    die: tuple[int, ...] = ()
    """die: the die's faces."""
    bag: str = ""
    """draw: the bag drawn from."""
    trigger: TriggerStep | None = None
    decision: Decision | None = None
    cap: int | None = None
    """reroll: the pool's cap, when it ended the procedure here."""

    @property
    def detail(self) -> str:
        """The step's facts in words, as `rulecraft roll` prints them at the end of its line,
        after its kind, name and value (empty for an input, which those say in full)."""
        return detail(self)

    def __repr__(self) -> str:
        shown = [f"kind={self.kind!r}", f"name={self.name!r}", f"value={self.value!r}"]
        for f in ("expr", "rule", "faces", "replaced", "die", "bag", "trigger", "decision", "cap"):
            v = getattr(self, f)
            if v:
                shown.append(f"{f}={v!r}")
        return f"Step({', '.join(shown)})"

    def as_json(self) -> dict[str, Any]:
        return step_json(self)


@frozen
class Result:
    """The outcome of one roll, the named values, what was rolled, and the trace. The engine's
    results are immutable throughout (their mappings are `FrozenDict`s, `made`), so one result
    may be handed to every caller whose roll it is (`sample.kept_roller`)."""

    check: str
    outcome: Symbol
    values: Mapping[str, Any]
    inputs: Mapping[str, Any]
    rolled: Mapping[str, Any]
    trace: tuple[Step, ...] = field(repr=False)
    auto: bool = False
    drawn: Mapping[str, tuple[Any, ...]] = field(default_factory=dict, repr=False)
    """Every face or chit each randomizer took, in order (first roll, rerolls, redraws), over
    every attempt when the check was rolled again."""
    policy: str = "always"
    rolled_again: int = 0
    """How many times a rule `then: again` had the whole check made again before this roll,
    the one that ended (`rolled` and `values` are its own; the trace shows every attempt)."""

    def __post_init__(self) -> None:
        # a result made by hand (`Result(...)`, `dataclasses.replace`) is frozen all the way down
        # too, as `made` makes the engine's: its mappings become `FrozenDict`s (copies)
        freeze_fields(self, "values", "inputs", "rolled", "drawn")

    def forced(self) -> dict[str, Any]:
        """The dice and chits of this roll, in the form `roll(..., forced=...)` accepts."""
        return {k: [to_json(x) for x in v] for k, v in self.drawn.items()}

    def as_json(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "outcome": self.outcome.name,
            "auto": self.auto,
            "policy": self.policy,
            "inputs": {k: to_json(v) for k, v in self.inputs.items()},
            "rolled": {k: to_json(v) for k, v in self.rolled.items()},
            "drawn": {k: [to_json(x) for x in v] for k, v in self.drawn.items()},
            "values": {k: to_json(v) for k, v in self.values.items()},
            "trace": [step_json(s) for s in self.trace],
            **({"rolled_again": self.rolled_again} if self.rolled_again else {}),
        }


def made(
    check: str,
    outcome: Symbol,
    values: Mapping[str, Any],
    inputs: Mapping[str, Any],
    rolled: Mapping[str, Any],
    trace: tuple[Step, ...],
    drawn: Mapping[str, tuple[Any, ...]],
    policy: str,
    auto: bool = False,
    again: int = 0,
) -> Result:
    """The `Result` that `Result(...)` makes, its mappings frozen (each a `FrozenDict`: a copy,
    or the one given when it already is one), made without the frozen dataclass's field-by-field
    `__init__` and its `__post_init__`: on a plain roll that `__init__` alone cost a fifth of the
    roll. Its attributes are one new dictionary, set as the instance's `__dict__` in one step.
    Every result the engine returns is made here."""
    result: Result = NEW(Result)
    SET_FIELDS(
        result,
        {
            "check": check,
            "outcome": outcome,
            "values": values if type(values) is FrozenDict else FrozenDict(values),
            "inputs": inputs if type(inputs) is FrozenDict else FrozenDict(inputs),
            "rolled": rolled if type(rolled) is FrozenDict else FrozenDict(rolled),
            "trace": trace,
            "auto": auto,
            "drawn": drawn if type(drawn) is FrozenDict else FrozenDict(drawn),
            "policy": policy,
            "rolled_again": again,
        },
    )
    return result


NEW = object.__new__
"""A `Result` without its `__init__` (the caller sets its attributes at once, `SET_FIELDS`)."""
SET_FIELDS: Any = vars(Result)["__dict__"].__set__
"""`SET_FIELDS(result, fields)` makes the dictionary `fields` a new result's attributes: the
`__dict__` slot's own setter, which `object.__setattr__(result, "__dict__", fields)` reaches
only after looking the name up (about a fifth of a result's making)."""


# -- rendering: the one place a step becomes words or JSON ---------------------------------------


def rule_text(rule: RuleRef) -> str:
    return f"when {rule.when} → {rule.then}" if rule.when is not None else f"otherwise → {rule.then}"


def detail(step: Step) -> str:
    """The step in words."""
    kind = step.kind
    if kind in ("value", "outcome", "output"):
        return step.expr
    if kind == "rule" and step.rule is not None:
        return rule_text(step.rule)
    if kind == "again" and step.rule is not None:
        return f"attempt {step.value} rolled again ({rule_text(step.rule)}): the check is made again"
    if kind == "auto" and step.rule is not None:
        return rule_text(step.rule) + " (nothing is rolled)"
    if kind == "die":
        return "d{" + faces_text(step.die) + "}"
    if kind == "pool":
        items = step.value.items
        read = "" if step.value.faces is None else " read as " + ", ".join(show(i) for i in items)
        n = len(step.faces)
        return f"{n} {'die' if n == 1 else 'dice'} rolled " + ", ".join(map(str, step.faces)) + read
    if kind == "draw":
        if not step.faces:
            return "nothing drawn"
        return f"{len(step.faces)} from bag '{step.bag}': " + ", ".join(show(i) for i in step.faces)
    if kind == "reroll" and step.cap is not None:
        return f"cap of {step.cap} reached: the remaining triggers go unused"
    if kind in ("reroll", "choice") and step.trigger is not None and step.decision is not None:
        return _trigger_text(step, step.trigger, step.decision)
    if kind == "choice" and step.decision is not None:
        if step.decision.by == "optimal":
            return "policy optimal keeps it: a redraw would not improve the objective"
        return "policy never: keeps it"
    if kind == "redraw" and step.decision is not None:
        why = {
            "rule": "the rule forces it",
            "optimal": "policy optimal: a redraw improves the objective",
            "always": "policy always takes every allowed redraw",
        }[step.decision.by]
        said = f"{show(step.replaced[0])} redrawn ({why}) → {show(step.value)}"
        raw = getattr(step.value, "faces", None)  # a pool read through `each`: the faces behind it
        return f"{said} (rolled {', '.join(map(str, raw))})" if raw else said
    return ""


def _trigger_text(step: Step, t: TriggerStep, d: Decision) -> str:
    n = len(t.showing)
    shown = ", ".join(str(f) for f in t.showing)
    added = t.action == "add"
    one = t.grant == 1
    granted = ("added die" if one else "added dice") if added else ("reroll" if one else "rerolls")
    head = (
        f"{t.trigger}: {n} {'die' if n == 1 else 'dice'} showing {shown} "
        f"{('forces' if t.must else 'allows') if n == 1 else ('force' if t.must else 'allow')} "
        f"{t.grant} {granted}"
    )
    which = "least valuable" if t.pick == "lowest" else "most valuable"
    if d.nothing_to_hit:
        why = "no die it may hit"
    elif d.by == "rule":
        why = "the rule adds them" if added else f"the rule forces it on the {which} eligible dice"
    elif d.by == "never":
        why = "policy never"
    elif d.by == "always":
        why = (
            "policy always takes every allowed die"
            if added
            else f"policy always takes every allowed reroll, {which} eligible die first"
        )
    else:
        why = f"policy optimal ({d.objective} {_score(d.objective, d.reached)}"
        why += f" vs {_score(d.objective, d.declined)} taking none)" if d.declined is not None else ")"
    if not d.taken:
        return f"{head}; {why}: none taken"
    if added:
        return f"{head}; {why}: adds {', '.join(map(str, step.faces))}"
    moves = ", ".join(f"{o} → {f}" for o, f in zip(step.replaced, step.faces))
    return f"{head}; {why}: rerolls {moves}"


def _pct(x: Fraction | None) -> str:
    return f"{float(x or 0) * 100:.1f}%"


def _score(objective: str, x: Fraction | None) -> str:
    """What an objective reached: a mean rank as the number it is, a chance as a percentage."""
    return f"{float(x or 0):.3f}" if objective == MEAN_RANK else _pct(x)


def step_json(step: Step) -> dict[str, Any]:
    """The step as JSON: its data, and its `detail` in words."""
    out: dict[str, Any] = {"kind": step.kind, "name": step.name, "value": to_json(step.value)}
    text = detail(step)
    if text:
        out["detail"] = text
    if step.expr:
        out["expr"] = step.expr
    if step.rule is not None:
        r = step.rule
        out["rule"] = {"index": r.index, "when": r.when, "then": r.then, **_where(r.span)}
    if step.faces:
        out["faces"] = [to_json(f) for f in step.faces]
    if step.replaced:
        out["replaced"] = [to_json(f) for f in step.replaced]
    if step.die:
        out["die"] = list(step.die)
    if step.bag:
        out["bag"] = step.bag
    if step.trigger is not None:
        t = step.trigger
        out["trigger"] = {
            "name": t.trigger,
            "action": t.action,
            "must": t.must,
            "pick": t.pick,
            "showing": list(t.showing),
            "grant": t.grant,
        }
    if step.decision is not None:
        d = step.decision
        dj: dict[str, Any] = {"by": d.by, "taken": d.taken}
        if d.objective:
            dj["objective"] = d.objective
        if d.reached is not None:
            dj["reached"] = to_json(d.reached)
        if d.declined is not None:
            dj["declined"] = to_json(d.declined)
        if d.nothing_to_hit:
            dj["nothing_to_hit"] = True
        out["decision"] = dj
    if step.cap is not None:
        out["cap"] = step.cap
    return out


def _where(span: Span | None) -> dict[str, Any]:
    return {"line": span.line, "column": span.col} if span is not None else {}
