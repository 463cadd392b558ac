"""Stage 4 — compile, a check's randomizers: dice, pools and draws from their YAML.

Faces (constant, or an expression checked when rolled), pools with their triggers, caps and
`each`, draws from bags, redraws; constant sizes refused at load against the `Limits`
(`Unit.within`). `Structure` calls `RandomizerCompiler.randomizer` for each entry of a check's
`roll:` and shares the compile's `Unit` and `Expressions` with it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import RulecraftError, did_you_mean
from ..expr import ast
from ..frozen import replace
from ..model import types as T
from ..model.ruleset import (
    Die,
    Draw,
    Expr,
    Pool,
    Randomizer,
    Redraw,
    Trigger,
    acts_on_every_die,
    endless_steps,
    set_cap,
)
from ..runtime.limits import MAX_FACES
from ..syntax.document import PathKey
from ..syntax.faces import NO_FACES, no_faces_hint, too_many_faces
from ..syntax.notation import DICE, MODIFIED, PLUS_MINUS, sides
from .expressions import Expressions
from .problems import Problem, problem
from .unit import Unit

__all__ = ["RandomizerCompiler", "dice_notation"]


class RandomizerCompiler:
    """Builds a check's randomizers, lowering their expressions through the compile's
    `Expressions`."""

    def __init__(self, unit: Unit, exprs: Expressions) -> None:
        self.unit = unit
        self.exprs = exprs

    def _in_pool(self, path: PathKey) -> bool:
        """Whether the faces at `path` are a pool's (its randomizer has `pool:`)."""
        spec = self.unit.doc.data
        for p in path[:-1]:
            spec = spec[p]
        return isinstance(spec, dict) and "pool" in spec

    def _refused_list(self, count: object) -> bool:
        """Whether a pool's `pool:` is the bare name of an input of the check being compiled that
        is declared a list (`type: list`, or a list's own key), refused for how it is declared."""
        if not isinstance(count, str) or self.unit.current is None:
            return False
        check = self.unit.data.get("checks", {}).get(self.unit.current)
        inputs = check.get("inputs") if isinstance(check, dict) else None
        declared = inputs.get(count.strip()) if isinstance(inputs, dict) else None
        return isinstance(declared, dict) and (
            declared.get("type") == "list" or any(k in declared for k in ("of", "min_length", "max_length"))
        )

    def _faces(self, path: PathKey, scope: Mapping[str, T.Type]) -> tuple[tuple[int, ...], Expr | None]:
        """A die's faces: constant (checked now), or an expression over what a count may read
        (inputs, values known before the roll, dice above), checked when the die is rolled."""
        raw = self.unit.doc.data
        for p in path:
            raw = raw[p]
        span = self.unit.doc.span(path)
        form = "a die's faces are a number of sides, a range like '0..9' or a list of whole numbers"
        values: Sequence[Any]
        value_of_text: object = None
        if isinstance(raw, bool):
            raise problem("RC310", form, span)
        if isinstance(raw, int):
            values = range(1, raw + 1)
        elif isinstance(raw, list):
            values = raw
        else:
            try:
                node = self.exprs.parse(str(raw), self.unit.doc.expr_origin(path))
                if ast.names(node):
                    return (), self._faces_expr(node, scope, span, form)
                value = self.exprs.lower(node, {}).run({})
            except (Problem, RulecraftError):
                slip = dice_notation(str(raw), str(path[-2]), in_pool=self._in_pool(path))
                if slip is not None:
                    raise problem("RC310", slip[0], span, slip[1]) from None
                raise
            value_of_text = value
            if isinstance(value, (range, tuple)):
                values = value
            elif isinstance(value, int) and not isinstance(value, bool):
                values = range(1, value + 1)
            else:
                raise problem("RC310", form, span)
        count = _count(values)
        if count > MAX_FACES:  # a range is counted, not listed
            message, hint = too_many_faces(count, MAX_FACES)
            raise problem("RC310", message, span, hint)
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int):
                shown = f"{v.start}..{v.stop - 1}" if isinstance(v, range) else str(v)
                raise problem("RC310", f"{shown} is not a face: {form}", span)
        if not values:
            # a range the text gave (`6..1`), not the sides of a number
            turned = value_of_text if isinstance(value_of_text, range) else None
            hint = no_faces_hint(turned.start, turned.stop - 1) if turned is not None else no_faces_hint()
            raise problem("RC310", NO_FACES, span, hint)
        return tuple(values), None

    def _faces_expr(self, node: ast.Node, scope: Mapping[str, T.Type], span: Any, form: str) -> Expr:
        """Faces that read names: typed now, their values checked at roll time (`RC409`)."""
        try:
            e = self.exprs.lower(node, scope)
        except Problem as p:
            if p.diag.code != "RC301":
                raise
            reads = (
                "a die's faces may read the check's inputs, values known before the roll and dice above it"
            )
            hint = f"{p.diag.hint}; {reads}" if p.diag.hint else reads
            raise p.retold(replace(p.diag, hint=hint)) from None
        if e.type.kind not in ("num", "range", "any") and not (
            e.type.kind == "list" and e.type.elem is not None and e.type.elem.kind in ("num", "any")
        ):
            raise problem("RC310", f"{form}; this expression gives {e.type}", span)
        return e

    def randomizer(
        self, path: PathKey, name: str, spec: dict[str, Any], scope: Mapping[str, T.Type]
    ) -> Randomizer:
        """A die, pool or draw; its parameters may use inputs, values known before the roll and
        earlier dice of the same check."""
        span = self.unit.doc.span(path, key=True)

        def redraw_of(own: T.Type) -> Redraw | None:
            if "redraw" not in spec:
                return None
            return self._redraw(path + ("redraw",), spec["redraw"], scope, name, own)

        if "pool" in spec or "triggers" in spec:
            total = "pool" not in spec  # a die with triggers: one die, read as the total of its dice
            per = False
            if total:
                count = self.exprs.lower(ast.Num(1, span=span), {})
            else:
                try:
                    count = self.exprs.expr(path + ("pool",), scope)
                except (Problem, RulecraftError):
                    slip = DICE.fullmatch(str(spec["pool"]))
                    if slip is None or not slip["count"]:
                        raise
                    hint = f"'pool:' is how many dice: write pool: {slip['count']} with die: {slip['sides']}"
                    raise problem(
                        "RC310",
                        f"'{spec['pool']}' is dice notation",
                        self.unit.doc.span(path + ("pool",)),
                        hint,
                    ) from None
                per = count.type.kind == "multi"
                if not (
                    T.NUM.accepts(count.type)
                    or (per and count.type.elem is not None and T.NUM.accepts(count.type.elem))
                ):
                    raise problem(
                        "RC322",
                        "a pool's 'pool' is a number of dice or a list of numbers (one die each), "
                        f"not {count.type}",
                        self.unit.doc.span(path + ("pool",)),
                        "a list input (type: list) gives one die per element, which 'each' reads as 'item'",
                    )
            faces, faces_expr = (
                self._faces(path + ("die",), scope) if "die" in spec else (tuple(range(1, 7)), None)
            )
            face_scope = dict(scope)
            face_scope["face"] = T.NUM
            if not total and count.type.broken and "item" not in scope and self._refused_list(spec["pool"]):
                # a count that names a list input refused already (no 'max_length'): 'each' may
                # read its element, not told as an unknown name; a count broken otherwise (a name
                # misspelt) says nothing of lists, and an 'item' read beside it is still told
                face_scope["item"] = T.UNKNOWN
            if per:
                if (
                    "item" in scope
                    and "each" in spec
                    and "item" in ast.names(self.exprs.node_at(path + ("each",)))
                ):
                    raise problem(  # `each` would read the element, never the check's own `item`
                        "RC307",
                        "'item' is a name of this check already, and in 'each' of a pool over a list"
                        " it names the list's element: 'each' could not read the check's 'item'",
                        self.unit.doc.span(path + ("each",)),
                        "rename the check's 'item', e.g. 'item_'",
                    )
                face_scope["item"] = count.type.elem or T.NUM
                for key in ("triggers", "cap", "redraw", "each_die"):
                    if key in spec:
                        raise problem(
                            "RC320",
                            f"a pool over a list (one die per element) takes no '{key}'",
                            self.unit.doc.span(path + (key,), key=True),
                            "its dice are not alike, so no reroll procedure is defined for them; "
                            "use a pool of a number of dice",
                        )
            each = self.exprs.expr(path + ("each",), face_scope) if "each" in spec else None
            redraw = redraw_of(T.NUM if total else T.multi(each.type if each else T.NUM))
            triggers = tuple(
                self._trigger(path + ("triggers", i), t, scope, face_scope)
                for i, t in enumerate(spec.get("triggers", []))
            )
            cap = _whole_count(spec.get("cap"))
            n = self._constant(count)
            self.unit.within(f"a pool of {n} dice", n, "max_pool", path + ("pool",))
            self._procedure_limits(path, triggers, faces, cap, set_cap(total, False))
            own = self._each_die(path, name, spec, span, faces, faces_expr, scope)
            return Pool(
                name,
                count,
                faces,
                each,
                span,
                triggers=triggers,
                cap=cap,
                redraw=redraw,
                faces_expr=faces_expr,
                total=total,
                per=per,
                own=own,
            )
        if "draw" in spec:
            bag_name = spec["draw"]
            if bag_name not in self.unit.bags:
                raise problem(
                    "RC312",
                    f"unknown bag '{bag_name}'",
                    self.unit.doc.span(path + ("draw",)),
                    did_you_mean(str(bag_name), self.unit.bags),
                )
            count = (
                self.exprs.expr(path + ("count",), scope, T.NUM)
                if "count" in spec
                else self.exprs.lower(ast.Num(1, span=span), {})
            )
            n = self._constant(count)
            self.unit.within(f"a draw of {n} chits", n, "max_draw", path + ("count",))
            return Draw(
                name, self.unit.bags[bag_name], count, span, redraw=redraw_of(T.multi(T.sym(bag_name)))
            )
        faces, faces_expr = self._faces(path + ("die",), scope)
        return Die(name, faces, span, redraw=redraw_of(T.NUM), faces_expr=faces_expr)

    def _procedure_limits(
        self,
        path: PathKey,
        triggers: tuple[Trigger, ...],
        faces: tuple[int, ...],
        cap: int | None,
        place: str,
    ) -> None:
        """A reroll procedure's constant sizes within the limits (`Unit.within`), and triggers
        that never let a roll end refused without a cap (`RC313`); `path` is the mapping that
        holds `triggers` and `cap`, `place` how to set that cap (`set_cap`)."""
        if cap is not None:
            self.unit.within(f"a cap of {cap} dice", cap, "max_rerolls", path + ("cap",))
        for i, t in enumerate(triggers):
            what = f"'{t.name}' grants {t.per_die} dice per die (per_die)"
            self.unit.within(what, t.per_die, "max_rerolls", path + ("triggers", i, "per_die"))
        if cap is None:
            endless = self._never_ending(triggers, faces)
            if endless:
                i, t = endless[0], triggers[endless[0]]
                verb = {"add": "add a die by", "reroll": "be rerolled by"}[t.action]
                why = f"the {t.action}s never end"
                if t.target is not None:  # a reroll of a target on every face
                    verb, why = (
                        "set off a reroll by",
                        "its target takes every face, so the rerolls never end",
                    )
                names = " and ".join(f"'{triggers[j].name}'" for j in endless)
                message = (
                    f"every face of this die must {verb} '{t.name}': {why}"
                    if len(endless) == 1
                    else f"every face of this die sets off {names}, whose dice set them off "
                    "again in turn: the rerolls and added dice never end"
                )
                raise problem(
                    "RC313",
                    message,
                    self.unit.doc.span(path + ("triggers", i)),
                    f"{place} (the most dice its triggers may reroll or add), or narrow 'on'",
                )

    def _each_die(
        self,
        path: PathKey,
        name: str,
        spec: dict[str, Any],
        span: Any,
        faces: tuple[int, ...],
        faces_expr: Expr | None,
        scope: Mapping[str, T.Type],
    ) -> Pool | None:
        """A pool's `each_die:`: the one die with triggers that every die of the pool is, rolled
        on its own (`Pool.own`), or None. Its steps act on that die's own dice alone, so a step
        that chooses (`may`: the choice for one die would depend on the others) or that picks
        other dice (`target`) is refused (`RC328`), and so are the pool's own triggers, cap and
        redraw beside it."""
        if "each_die" not in spec:
            return None
        hint = (
            "each die's triggers and cap go under 'each_die'; for steps that act across the "
            "pool's dice, give the pool 'triggers' without 'each_die'"
        )
        for key in ("triggers", "cap", "redraw"):
            if key in spec:
                raise problem(
                    "RC328",
                    f"a pool whose dice each run their own triggers ('each_die') takes no '{key}' of its own",
                    self.unit.doc.span(path + (key,), key=True),
                    hint,
                )
        at = path + ("each_die",)
        own = spec["each_die"]
        die_scope = dict(scope)
        die_scope["face"] = T.NUM  # the face of one of the die's own dice
        triggers = tuple(
            self._trigger(at + ("triggers", i), t, scope, die_scope) for i, t in enumerate(own["triggers"])
        )
        for i, t in enumerate(triggers):
            if not t.must:
                raise problem(
                    "RC328",
                    f"'{t.name}' is a player's choice ('may'): each die's own triggers must be 'must' steps",
                    self.unit.doc.span(at + ("triggers", i, "may"), key=True),
                    "a choice for one die would depend on the pool's other dice, so the dice would not "
                    "be rolled on their own; write 'must', or " + hint.split("; ")[1],
                )
            if t.target is not None:
                raise problem(
                    "RC328",
                    f"'{t.name}' has a 'target': each die's own triggers act on that die alone",
                    self.unit.doc.span(at + ("triggers", i, "target"), key=True),
                    "drop 'target' (the die that set the step off is the one rerolled), or "
                    + hint.split("; ")[1],
                )
        cap = _whole_count(own.get("cap"))
        self._procedure_limits(at, triggers, faces, cap, set_cap(True, True))
        one = self.exprs.lower(ast.Num(1, span=span), {})
        return Pool(
            name,
            one,
            faces,
            None,
            span,
            triggers=triggers,
            cap=cap,
            faces_expr=faces_expr,
            total=True,
            each_die=True,
        )

    @staticmethod
    def _constant(expr: Expr) -> Any:
        """The value of an expression that reads no name (None when it reads one or fails)."""
        if ast.names(expr.node):
            return None
        try:
            return expr.run({})
        except RulecraftError:
            return None

    @classmethod
    def _never_ending(cls, triggers: tuple[Trigger, ...], faces: tuple[int, ...]) -> list[int]:
        """The steps (their places) that no roll of the pool ever stops, with no cap: steps that
        act on every face whatever the inputs (`_on_every_face`), among which one's dice set off
        the next and the last's the first again (`ruleset.sets_off`) — one step that sets
        itself off, or several that set each other off (two `must: add` on every face, each
        with `repeat: false`). None where there is no such circle."""
        every = [i for i, t in enumerate(triggers) if cls._on_every_face(t, faces)]
        steps = [triggers[i] for i in every]
        return [every[j] for j in sorted(endless_steps(steps))]

    @classmethod
    def _on_every_face(cls, t: Trigger, faces: tuple[int, ...]) -> bool:
        """A step that acts on every die (`acts_on_every_die`) whatever the inputs."""
        hits = t.target is not None and cls._every_face(t.target, faces)
        return t.only_if is None and acts_on_every_die(t, cls._every_face(t.on, faces), hits)

    @staticmethod
    def _every_face(condition: Expr, faces: tuple[int, ...]) -> bool:
        """Whether a condition on `face` holds on every face, whatever the inputs."""
        if not faces:  # faces worked out at roll time: decided when it runs
            return False
        for face in faces:
            try:
                if condition.run({"face": face}) is not True:
                    return False
            except RulecraftError:  # it reads an input or a value: decided when it runs
                return False
        return True

    def _trigger(
        self,
        path: PathKey,
        spec: dict[str, Any],
        scope: Mapping[str, T.Type],
        face_scope: Mapping[str, T.Type],
    ) -> Trigger:
        must = "must" in spec
        action = spec["must"] if must else spec["may"]
        target = spec.get("target", "self")
        return Trigger(
            name=str(spec.get("name", f"trigger {int(path[-1]) + 1}")),
            on=self.exprs.expr(path + ("on",), face_scope, T.BOOL),
            action=action,
            must=must,
            target=None if target == "self" else self.exprs.expr(path + ("target",), face_scope, T.BOOL),
            per_die=int(spec.get("per_die", 1)),
            only_if=self.exprs.expr(path + ("only_if",), scope, T.BOOL) if "only_if" in spec else None,
            repeat=bool(spec.get("repeat", True)),
            pick=str(spec.get("pick", "lowest")),
            take=str(spec.get("take", "any")),
            span=self.unit.doc.span(path),
            first_roll_only=bool(spec.get("first_roll_only", False)),
        )

    def _redraw(
        self, path: PathKey, spec: dict[str, Any], scope: Mapping[str, T.Type], name: str, own: T.Type
    ) -> Redraw:
        """`may`/`must` may look at the die itself; `times` is known before it is rolled."""
        must = "must" in spec
        allowed = self.exprs.expr(path + ("must" if must else "may",), {**scope, name: own}, T.BOOL)
        times = (
            self.exprs.expr(path + ("times",), scope, T.NUM)
            if "times" in spec
            else self.exprs.lower(ast.Num(1), {})
        )
        n = self._constant(times)
        self.unit.within(f"a redraw offered {n} times", n, "max_rerolls", path + ("times",))
        return Redraw(allowed, must, times, self.unit.doc.span(path, key=True))


def dice_notation(text: str, name: str, *, in_pool: bool) -> tuple[str, str] | None:
    """The message and hint for faces written in dice notation (`2d6`, `d6`, `d%`, `4dF`,
    `d6+1`), which a die does not take: a die has faces, a number of dice is a pool's `pool:`, and
    a modifier is added where the die is read. None for other text."""
    plus_minus = PLUS_MINUS.fullmatch(text)
    if plus_minus is not None:
        message = (
            f"'{text.strip()}' is dice notation (dF); a die's faces are a number of sides, a range or a list"
        )
        count = plus_minus["count"]
        if count and count != "1" and not in_pool:
            return message, (
                f"a dF die is the faces -1..1: for {count} of them write a pool: pool: {count} with "
                f'die: "-1..1" (then read sum({name}))'
            )
        return message, 'a dF die is the faces -1..1: write die: "-1..1"'
    mod = MODIFIED.fullmatch(text)
    if mod is not None:
        shown = sides(mod)
        count, op, plus = mod["count"], mod["op"], mod["mod"]
        verb = f"add {plus}" if op == "+" else f"take {plus} off"
        message = (
            f"'{text.strip()}' is dice notation with a modifier; "
            "a die's faces are a number of sides, a range or a list"
        )
        if in_pool:
            return (
                message,
                f"write die: {shown}, and {verb} where the pool is read: sum({name}) {op} {plus}",
            )
        if count and count != "1":
            return message, (
                f"write a pool, pool: {count} with die: {shown}, and {verb} where it is read: "
                f"a let such as total: sum({name}) {op} {plus}"
            )
        return (
            message,
            f"write die: {shown}, and {verb} where it is read: a let such as total: {name} {op} {plus}",
        )
    m = DICE.fullmatch(text)
    if m is None:
        return None
    shown = sides(m)
    count = m["count"]
    message = f"'{text.strip()}' is dice notation; a die's faces are a number of sides, a range or a list"
    if count and count != "1":
        if in_pool:
            return message, f"'die:' is one die's faces and 'pool:' how many: write die: {shown}"
        return (
            message,
            f"for {count} dice write a pool: pool: {count} with die: {shown} (then read sum({name}))",
        )
    return message, f"write the number of sides alone: die: {shown}"


def _count(values: Sequence[Any]) -> int:
    """How many faces: a range's length worked out (`len` stops at 2**63 - 1 with an
    OverflowError, and a die written 1..9223372036854775808 is a mistake to report)."""
    if isinstance(values, range):
        if values.step > 0:
            return max(0, (values.stop - values.start + values.step - 1) // values.step)
        return max(0, (values.start - values.stop - values.step - 1) // -values.step)
    return len(values)


def _whole_count(value: Any) -> Any:
    """A count the schema took as whole, `2.0` as JSON Schema reads it: the `int` it is (a cap of
    2.0 passed the schema and was a traceback in the solver, found by a hunt), as `per_die` and
    `sets` are read."""
    return int(value) if isinstance(value, float) else value
