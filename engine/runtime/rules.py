"""The rules of a check that the sampler, the exact evaluator and the linter follow alike.

Each is stated once here: which rule of a list fires, the values known before the roll, the
environment once dice are known, how a pool's faces are read through `each`, and whether a
redraw may be taken.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from ..errors import BoundError, Diagnostic, EvalError, InputError
from ..frozen import replace
from ..model.ruleset import Check, Draw, Expr, Pool, Randomizer, Rule
from ..model.values import Multi, Redrawn, redraws_key, show
from .cache import Caches
from .folds import KEPT, keeps
from .limits import MAX_FACES

R = TypeVar("R", bound=Randomizer)
T = TypeVar("T")


def first_rule(rows: tuple[Rule, ...], env: dict[str, Any]) -> tuple[int, Any] | None:
    """Which rule of a list fires for `env`, and its value; None when none does."""
    for i, r in enumerate(rows):
        if r.when is None or r.when.run(env):
            return i, r.then.run(env)
    return None


def before_roll(check: Check, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """The environment before any die is rolled: the inputs and every value that needs no die."""
    env: dict[str, Any] = dict(inputs)
    for let in check.pre_lets:
        env[let.name] = let.expr.run(env)
    return env


def known_values(check: Check, env: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The values known before the roll, (name, value) in the check's order, from `env` as
    `before_roll` makes it: the same in every roll of a request, so every way of making the
    request reports them alike — a roll's `Result.values`, the exact `Distribution.values`
    (certain) and a batch's `Batch.values` (every roll the same), whether or not an auto rule
    decides. Asked by every exact request: pairs made at once, no dict."""
    names = check.pre_names
    return tuple(zip(names, map(env.__getitem__, names))) if names else ()


def with_dice(env: Mapping[str, Any], roll: Sequence[Randomizer], dice: Iterable[Any]) -> dict[str, Any]:
    """`env` with the randomizers known so far bound to their values (in roll order); for a
    randomizer whose redraws the check counts, the count goes to `redraws_key`, where
    `redraws(name)` reads it: that of a value carried with it (`Redrawn`), else 0 (no roll of
    that value was redrawn)."""
    out = dict(env)
    for r, v in zip(roll, dice):
        if r.counted:
            v, out[redraws_key(r.name)] = split_counted(v)
        out[r.name] = v
    return out


def split_counted(v: Any) -> tuple[Any, int]:
    """A counted randomizer's value as the dice carry it: the value and its count of redraws
    (`Redrawn`), or a bare value, redrawn 0 times."""
    return (v.value, v.count) if type(v) is Redrawn else (v, 0)


def carried(r: Randomizer, value: Any, made: int) -> Any:
    """Randomizer `r`'s value once `made` redraws of it were made, as the dice carry it: with the
    count where the check counts them and some were made (`Redrawn`), else bare (a bare value
    reads as redrawn 0 times), so that the sampler and the exact evaluator key rolls alike."""
    return Redrawn(value, made) if made and r.counted else value


def counting(program: Callable[..., T], roll: Sequence[Randomizer]) -> Callable[..., T]:
    """`program(env, *dice)` for a check that reads `redraws(...)`: the dice of the randomizers
    it counts come carried with their counts (`Redrawn`), and the program is given the values,
    with each count in the environment. A value that comes bare was not redrawn (a pool's
    value as its reroll procedure weighs it, before any redraw): its count is 0."""
    counted = [(i, redraws_key(r.name)) for i, r in enumerate(roll) if r.counted]

    def run(env: dict[str, Any], *dice: Any) -> T:
        scope = dict(env)
        plain = list(dice)
        for i, key in counted:
            if i < len(plain):
                plain[i], scope[key] = split_counted(plain[i])
        return program(scope, *plain)

    return run


def concrete(r: R, env: Mapping[str, Any], caches: Caches | None = None) -> R:
    """`r` with its faces worked out for `env` when they read inputs or earlier values
    (`die: "1..size"`), checked as the compiler checks constant faces: `RC409` for a value that
    is not faces, `RC503` past the 1000-face limit. Constant faces: `r` itself. With the
    ruleset's `caches`, the checked die is kept per value of its faces, so a die rolled many
    times with the same faces is checked and made once (the sampler's case)."""
    if isinstance(r, Draw) or r.faces_expr is None:
        return r
    value = r.faces_expr.run(dict(env))
    if caches is None:
        return _concrete(r, value)
    key = ("faces", id(r), repr(value))  # repr: True is not 1 here, as `_concrete` tells them apart
    found: tuple[R, R] | None = caches.tables.get(key)
    if found is not None and found[0] is r:  # an id can be reused by a later randomizer
        return found[1]
    made = _concrete(r, value)
    caches.tables.put(key, (r, made), 64 + 8 * len(made.faces))
    return made


def folds_for(
    r: Pool | Draw, env: Mapping[str, Any], caches: Caches | None = None
) -> tuple[tuple[Any, ...], ...] | None:
    """`r.folds` for `env`: each argument read from the inputs (an `Expr`) worked out, keys
    alike once worked out kept once. None where `r` is no fold for these values — an argument
    that fails, or a k that `highest(p, k)` refuses when rolled (`folds.keeps`) — so the
    evaluators list its multisets, and the roll meets the error where the check reads it, as it
    would without folds. With the ruleset's `caches`, kept per value of the names read."""
    if not r.fold_reads:
        return r.folds
    assert r.folds is not None
    return _worked("folds", r, r.folds, r.fold_reads, env, caches)


def count_keys_for(
    pool: Pool, env: Mapping[str, Any], caches: Caches | None = None
) -> tuple[tuple[Any, ...], ...] | None:
    """`pool.count_keys` for `env`, worked out as `folds_for` works out folds (None where an
    argument fails: nothing is then merged)."""
    if pool.count_keys is None or not pool.count_key_reads:
        return pool.count_keys
    return _worked("count_keys", pool, pool.count_keys, pool.count_key_reads, env, caches)


def _worked(
    tag: str,
    r: Pool | Draw,
    keys: tuple[tuple[Any, ...], ...],
    names: tuple[str, ...],
    env: Mapping[str, Any],
    caches: Caches | None,
) -> tuple[tuple[Any, ...], ...] | None:
    """`keys` (`folds` or `count_keys`) with each argument read from the inputs worked out for
    `env`, kept per value of the `names` they read."""
    key = (tag, id(r), *((type(v), v) for v in map(env.get, names)))  # True == 1, not alike
    if caches is not None:
        found: tuple[Pool | Draw, tuple[tuple[Any, ...], ...] | None] | None = caches.tables.get(key)
        if found is not None and found[0] is r:  # an id can be reused by a later randomizer
            return found[1]
    made: list[tuple[Any, ...]] = []
    scope = dict(env)
    out: tuple[tuple[Any, ...], ...] | None = None
    try:
        for fold in keys:
            args = tuple(a.run(scope) if isinstance(a, Expr) else a for a in fold[1:])
            if fold[0] in KEPT and args and not keeps(args):
                break
            if (fold[0], *args) not in made:
                made.append((fold[0], *args))
        else:
            out = tuple(made)
    except (EvalError, InputError):  # a spent budget or deadline is no reason to list the pool
        pass
    if caches is not None:
        caches.tables.put(key, (r, out), 64 + 64 * len(keys))
    return out


def _concrete(r: R, value: Any) -> R:
    assert not isinstance(r, Draw) and r.faces_expr is not None
    where = r.faces_expr.node.span or r.span
    values: Sequence[Any] = ()
    if isinstance(value, int) and not isinstance(value, bool):
        values = range(1, value + 1)
    elif isinstance(value, (range, tuple)):
        values = value
    else:
        values = (value,)
    count = max(0, values.stop - values.start) if isinstance(values, range) else len(values)
    if count > MAX_FACES:  # a range's size is worked out, never listed (nor len(): it may overflow)
        raise BoundError(
            [
                Diagnostic(
                    "RC503",
                    f"die '{r.name}' has {count:,} faces ({r.faces_expr.text} = {show(value)}), "
                    f"over the limit of {MAX_FACES}",
                    where,
                    "a die has at most 1000 faces; a larger range is better read from several dice",
                )
            ]
        )
    if not values or any(isinstance(v, bool) or not isinstance(v, int) for v in values):
        raise InputError(
            [
                Diagnostic(
                    "RC409",
                    f"die '{r.name}' has faces {r.faces_expr.text} = {show(value)}, which are no faces",
                    where,
                    "a die's faces are a number of sides (at least 1), a range with at least one "
                    "number or a list of whole numbers",
                )
            ]
        )
    return replace(r, faces=tuple(values), faces_expr=None)


def reading(pool: Pool, scope: dict[str, Any], face: int) -> Any:
    """How the rules read one face of `pool`: through `each`, or the face itself.

    `scope` is the check's environment, reused as the scope of `face` (it is changed)."""
    scope["face"] = face
    if pool.each is None:
        return face
    return pool.each.run(scope)


def read_faces(pool: Pool, env: Mapping[str, Any], faces: Sequence[int]) -> Multi:
    """A rolled pool as the rules read it; the raw faces are kept for the trace when `each` reads them.

    A pool over a list reads its i-th die with `item`, the list's i-th element (in the list's
    sorted order, which is the order of the dice in the trace)."""
    if pool.each is None:
        return Multi(tuple(faces))
    scope = dict(env)
    if pool.per:
        items = elements(pool, env)
        out = []
        for item, f in zip(items, faces):
            scope["item"] = item
            out.append(reading(pool, scope, f))
        return Multi(tuple(out), tuple(faces))
    return Multi(tuple(reading(pool, scope, f) for f in faces), tuple(faces))


def elements(pool: Pool, env: Mapping[str, Any]) -> tuple[Any, ...]:
    """The list a pool over a list rolls one die for each element of."""
    value = pool.count.run(dict(env))
    return tuple(value.items) if isinstance(value, Multi) else ()


def die_readings(pool: Pool, env: Mapping[str, Any]) -> tuple[tuple[tuple[Any, int], ...], ...]:
    """For a pool over a list: each die's distinct readings (with `item` its element) and the
    number of faces that show each."""
    scope = dict(env)
    out = []
    for item in elements(pool, env):
        scope["item"] = item
        counts: dict[Any, int] = {}
        for f in pool.faces:
            r = reading(pool, scope, f)
            counts[r] = counts.get(r, 0) + 1
        out.append(tuple(counts.items()))
    return tuple(out)


def face_readings(pool: Pool, env: Mapping[str, Any]) -> tuple[tuple[Any, int], ...]:
    """Each distinct reading of one die of `pool` with the number of faces that show it."""
    scope = dict(env)
    counts: dict[Any, int] = {}
    for f in pool.faces:
        r = reading(pool, scope, f)
        counts[r] = counts.get(r, 0) + 1
    return tuple(counts.items())


def redraw_offered(r: Randomizer, env: Mapping[str, Any], value: Any, times_left: int) -> bool:
    """Whether the rules offer (or, for `must`, force) another redraw of `value` now."""
    assert r.redraw is not None
    return times_left > 0 and bool(r.redraw.allowed.run({**env, r.name: value}))


def auto_outputs(check: Check, env: Mapping[str, Any], outcome: Any) -> dict[str, Any]:
    """The outputs an outcome decided before the roll gives: those that need no die, in order."""
    scope = dict(env)
    scope["outcome"] = outcome
    out: dict[str, Any] = {}
    for name, expr in check.auto_outputs:
        scope[name] = out[name] = expr.run(scope)
    return out
