"""Frozen records: `dataclasses` made with two `exec`s at most where the standard decorator makes six.

`@dataclass(frozen=True)` compiles each method it generates from source with its own `exec`
(`__init__`, `__repr__`, `__eq__`, `__hash__`, `__setattr__`, `__delattr__`), and compiling
is most of a class's creation: the engine's start-up creates about seventy such classes, and
those compilations were a quarter of a fresh `rulecraft roll`. `frozen` lets `dataclasses`
collect the fields (so `fields`, `replace`, `asdict` and `is_dataclass` work as ever), compiles
the methods that run hot (`__init__`, `__eq__`, `__hash__`: the very code `dataclasses` writes),
`__init__` with the class and the other two in one `exec` at the first call of either (most
classes are never compared or hashed in a process), and makes the rest (the repr, the frozen
guards, pickling) as closures over the fields' names. Every method answers exactly what the
generated one answers: the same tuples compared and hashed, the same repr text, the same
`FrozenInstanceError`s, the same pickled state. Methods a class writes itself are kept, as
`dataclasses` keeps them. Python 3.13's own `dataclasses` compiles each class's methods in one
`exec` for the same reason. The code compiled is kept between processes by its source text
(`RECORDS`, `engine.compiled`), so a later process compiles none of it.
"""

from __future__ import annotations

import atexit
import inspect
from collections.abc import Callable, Mapping
from dataclasses import MISSING, FrozenInstanceError, dataclass, field, fields
from reprlib import recursive_repr
from typing import Any, TypeVar, cast, dataclass_transform, overload

from .compiled import Kept

T = TypeVar("T", bound=type)
RECORDS = Kept("records")
"""The generated methods' code, kept between processes (`compiled`): a fresh process that finds
them there compiles none."""
atexit.register(RECORDS.save)


class _Factory:
    """The default of a parameter whose field has a `default_factory` (as `dataclasses` marks
    it, and shown as it shows it in a signature)."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


@overload
def frozen(cls: T, /) -> T: ...
@overload
def frozen(*, slots: bool = False, compared_now: bool = False) -> Callable[[T], T]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def frozen(
    cls: T | None = None, /, *, slots: bool = False, compared_now: bool = False
) -> T | Callable[[T], T]:
    """`@dataclass(frozen=True)` (with `slots` as given): the same class, made faster.
    `compared_now`: compile `__eq__` and `__hash__` with the class, not at their first call
    (`_compared`), for a value nearly every request compares (a pool's `Multi`), so that the
    first request does not pay for them."""

    def make(c: T) -> T:
        docless = not c.__doc__
        if docless:  # else `dataclasses` reads the signature before `__init__` exists: object's,
            c.__doc__ = "-"  # which it reads by tokenizing its text (a regex of 4 ms, compiled once)
        made = cast(T, dataclass(init=False, repr=False, eq=False, slots=slots)(c))
        _finish(made, c.__dict__, slots, compared_now)
        if docless:  # as `dataclasses` writes it, from the real `__init__`
            made.__doc__ = made.__name__ + str(inspect.signature(made)).replace(" -> None", "")
        return made

    return make if cls is None else make(cls)


def _finish(cls: Any, own: Mapping[str, Any], slots: bool, compared_now: bool = False) -> None:
    """Add the methods `dataclass(frozen=True)` would generate where the class body (`own`) did
    not write its own, by the same rules (`dataclasses._process_class` in Python 3.11)."""
    every = fields(cls)
    names = tuple(f.name for f in every)
    shown = tuple(f.name for f in every if f.repr)

    @recursive_repr()
    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({inner})"

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    made = {
        "__init__": _init(every, hasattr(cls, "__post_init__"), slots),
        **_compared(cls, every, compared_now),
    }
    made["__repr__"] = __repr__
    made = {name: fn for name, fn in made.items() if name not in own or name == "__hash__"}
    if "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own):
        del made["__hash__"]  # a hash of its own (Python's None beside an `__eq__` is not one)
    for name, fn in (("__setattr__", __setattr__), ("__delattr__", __delattr__)):
        if name in own:
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
        made[name] = fn
    if slots:  # pickled as `dataclasses` pickles a frozen class with slots: the fields in order
        made["__getstate__"] = lambda self: [getattr(self, name) for name in names]
        made["__setstate__"] = lambda self, state: _set_all(self, names, state)
    for name, fn in made.items():
        fn.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, fn)


def _init(every: tuple[Any, ...], post_init: bool, slots: bool) -> Any:
    """`__init__` as `dataclasses` writes it for a frozen class (it runs hot, so it is the
    generated code itself), compiled when the class is made: its signature is the class's."""
    params: list[str] = []
    keywords: list[str] = []  # after a `*`, as `dataclasses` orders them
    body: list[str] = []
    scope: dict[str, Any] = {"__set": object.__setattr__, "__FACTORY": _FACTORY}
    seen_default = False
    for f in every:
        default = f"__dflt_{f.name}"
        if f.default_factory is not MISSING:
            scope[default] = f.default_factory
            value = f"{default}() if {f.name} is __FACTORY else {f.name}" if f.init else f"{default}()"
        elif f.default is not MISSING:
            scope[default] = f.default
            value = f.name if f.init else default
        else:
            value = f.name if f.init else ""
        if f.init:
            has_default = f.default is not MISSING or f.default_factory is not MISSING
            if not f.kw_only:
                if seen_default and not has_default:
                    raise TypeError(f"non-default argument {f.name!r} follows default argument")
                seen_default = seen_default or has_default
            marker = "__FACTORY" if f.default_factory is not MISSING else default
            (keywords if f.kw_only else params).append(f"{f.name}={marker}" if has_default else f.name)
        if value and (f.init or slots or f.default is MISSING):  # else the class attribute serves
            body.append(f"__set(self, {f.name!r}, {value})")
    if post_init:
        body.append("self.__post_init__()")
    signature = ", ".join(["self", *params, *(["*", *keywords] if keywords else [])])
    source = "\n".join([f"def __init__({signature}):", *(f"    {line}" for line in body or ["pass"])])
    exec(RECORDS.compile(source, "<string>"), scope)  # built above from the field names alone
    init = scope["__init__"]
    init.__annotations__ = {f.name: f.type for f in every if f.init} | {"return": None}
    return init


def _compared(cls: Any, every: tuple[Any, ...], now: bool) -> dict[str, Any]:
    """`__eq__` and `__hash__` as `dataclasses` writes them (the very code: they run hot),
    compiled the first time either is called, when they take the stand-ins' place on the class
    (or at once, `now`): these pairs were half the compiling of a fresh `rulecraft roll`,
    which compares or hashes a few of its seventy classes."""
    compared = [f.name for f in every if f.compare]
    hashed = [f.name for f in every if (f.compare if f.hash is None else f.hash)]

    def real() -> dict[str, Any]:
        source = "\n".join(
            [
                "def __eq__(self, other):",
                "    if other.__class__ is self.__class__:",
                f"        return {_tuple('self', compared)} == {_tuple('other', compared)}",
                "    return NotImplemented",
                "def __hash__(self):",
                f"    return hash({_tuple('self', hashed)})",
            ]
        )
        scope: dict[str, Any] = {}
        exec(RECORDS.compile(source, "<string>"), scope)  # built above from the field names alone
        for name, stand_in in stand_ins.items():
            made = scope[name]
            made.__qualname__ = f"{cls.__qualname__}.{name}"
            if cls.__dict__.get(name) is stand_in:  # not one the class writes itself
                setattr(cls, name, made)
        return scope

    def __eq__(self: Any, other: Any) -> Any:
        return real()["__eq__"](self, other)

    def __hash__(self: Any) -> int:
        return real()["__hash__"](self)  # type: ignore[no-any-return]

    stand_ins = {"__eq__": __eq__, "__hash__": __hash__}
    if now:
        made = real()
        return {name: made[name] for name in stand_ins}
    return dict(stand_ins)


def _tuple(obj: str, names: list[str]) -> str:
    """`(obj.a,obj.b,)`: the fields as one tuple, as the generated methods build it."""
    return f"({','.join(f'{obj}.{name}' for name in names)},)" if names else "()"


def _set_all(obj: Any, names: tuple[str, ...], state: list[Any]) -> None:
    for name, value in zip(names, state):
        object.__setattr__(obj, name, value)


class FrozenDict(dict[Any, Any]):
    """A `dict` whose changing methods raise `TypeError`: what a frozen record's mappings are
    (a `Result`'s values, inputs, dice), so a record is immutable all the way down and may be
    shared, not copied, by everyone who gets it. It is a `dict` in everything else (equal to
    one, printed as one, written as JSON as one); `copy()` and `dict(...)` give a plain one to
    change."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"this {type(self).__name__} is read-only: change a copy, dict(...)")

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled as its items, made again in one step (a `dict` subclass would be refilled
        # key by key through the refused `__setitem__`)
        return (type(self), (dict(self),))

    @classmethod
    def fromkeys(cls, keys: Any, value: Any = None) -> FrozenDict:
        return cls(dict.fromkeys(keys, value))
