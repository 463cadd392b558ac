"""Frozen records: `dataclasses` made with two `exec`s at most where the standard decorator makes six.

`@dataclass(frozen=True)` compiles each method it generates from source with its own `exec`
(`__init__`, `__repr__`, `__eq__`, `__hash__`, `__setattr__`, `__delattr__`), and compiling
is most of a class's creation: the engine's start-up creates about seventy such classes, and
those compilations were a quarter of a fresh `rulecraft roll`; importing `dataclasses` (which
imports `inspect`) and its collecting of the fields were another eighth. `frozen` collects the
fields itself by `dataclasses`' rules (`field`, the same parameters; a standard
`dataclasses.field` in a class body is read too), with `replace` and `field_names` for the
engine's own use, and makes the standard `__dataclass_fields__` only when something reads it,
so `dataclasses.fields`, `replace`, `asdict` and `is_dataclass` work as ever and a fresh roll
imports neither module. It compiles the methods that run hot (`__init__`, `__eq__`, `__hash__`:
the very code `dataclasses` writes),
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

import abc
import atexit
import sys
from collections.abc import Callable, Iterator, Mapping
from itertools import chain
from reprlib import recursive_repr
from typing import Any, ClassVar, TypeVar, dataclass_transform, overload

from .compiled import Kept

T = TypeVar("T", bound=type)
R = TypeVar("R")
RECORDS = Kept("records")
"""The generated methods' code, kept between processes (`compiled`): a fresh process that finds
them there compiles none."""
atexit.register(RECORDS.save)


class _Missing:
    """No default given (`dataclasses.MISSING`'s part, without importing `dataclasses`)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Field:
    """One field of a frozen record: what `field()` says in a class body, then its name and its
    annotation. `dataclasses.fields` gives the standard `dataclasses.Field`s, made from these
    when first asked (`_Standard`)."""

    __slots__ = (
        "name",
        "type",
        "default",
        "default_factory",
        "init",
        "repr",
        "hash",
        "compare",
        "metadata",
        "kw_only",
    )

    def __init__(
        self,
        default: Any,
        default_factory: Any,
        init: bool,
        repr: bool,
        hash: bool | None,
        compare: bool,
        metadata: Any,
        kw_only: Any,
    ) -> None:
        self.name = ""
        self.type: Any = None
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.hash = hash
        self.compare = compare
        self.metadata = metadata
        self.kw_only = kw_only

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, kw_only={self.kw_only!r})"


def field(
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    init: bool = True,
    repr: bool = True,
    hash: bool | None = None,
    compare: bool = True,
    metadata: Any = None,
    kw_only: Any = MISSING,
) -> Any:
    """`dataclasses.field` for a frozen record, with the same parameters and meaning."""
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, init, repr, hash, compare, metadata, kw_only)


class _Factory:
    """The default of a parameter whose field has a `default_factory` (as `dataclasses` marks
    it, and shown as it shows it in a signature)."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


@overload
def frozen(cls: T, /) -> T: ...
@overload
def frozen(*, slots: bool = False, eq: bool = True, compared_now: bool = False) -> Callable[[T], T]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def frozen(
    cls: T | None = None, /, *, slots: bool = False, eq: bool = True, compared_now: bool = False
) -> T | Callable[[T], T]:
    """`@dataclass(frozen=True)` (with `slots` and `eq` as given): the same class, made faster.
    `compared_now`: compile `__eq__` and `__hash__` with the class, not at their first call
    (`_compared`), for a value nearly every request compares (a pool's statistics, `Summary`),
    so that the first request does not pay for them."""

    def make(c: T) -> T:
        own = dict(c.__dict__)
        every = _collect(c)
        made: Any = _slotted(c, every) if slots else c
        made.__frozen_fields__ = every
        if "__match_args__" not in own:
            made.__match_args__ = tuple(f.name for f in every if f.init and not f.kw_only)  # type: ignore[misc]
        _finish(made, every, own, slots, eq, compared_now)
        made.__dataclass_fields__ = _Standard(made, slots, eq, "__dataclass_fields__")
        made.__dataclass_params__ = _Standard(made, slots, eq, "__dataclass_params__")
        if not own.get("__doc__"):  # as `dataclasses` writes it, from the signature, when read
            made.__doc__ = _Signature(made)
        abc.update_abstractmethods(made)
        return made  # type: ignore[no-any-return]

    return make if cls is None else make(cls)


def _collect(cls: Any) -> tuple[Field, ...]:
    """The record's fields, its bases' first, by `dataclasses`' rules (`_process_class` in
    Python 3.11): every annotation of the class body but a `ClassVar`, in order, with its
    default or `field()`; a field's default stays a class attribute, a `field()` without one
    is removed."""
    found: dict[str, Field] = {}
    for base in cls.__mro__[-1:0:-1]:
        inherited = base.__dict__.get("__frozen_fields__")
        if inherited is not None:
            found.update((f.name, f) for f in inherited)
        elif "__dataclass_fields__" in base.__dict__:
            raise TypeError(f"a frozen record cannot extend the dataclass {base.__name__}")
    annotations = cls.__dict__.get("__annotations__", {})
    for name, kind in annotations.items():
        if _is_classvar(kind):
            continue
        if isinstance(kind, str) and kind.replace("dataclasses.", "").startswith("InitVar"):
            raise TypeError(f"field {name!r}: a frozen record has no InitVar")
        value = cls.__dict__.get(name, MISSING)
        f = _as_field(value)
        if f is None:  # a plain default (kept as the class attribute), or none
            f = Field(value, MISSING, True, True, None, True, None, MISSING)
        elif f.default is MISSING:
            if name in cls.__dict__:
                delattr(cls, name)
        else:
            setattr(cls, name, f.default)
        f.name, f.type = name, kind
        if f.kw_only is MISSING:
            f.kw_only = False
        if f.default is not MISSING and type(f.default).__hash__ is None:
            raise ValueError(
                f"mutable default {type(f.default)} for field {name} is not allowed: use default_factory"
            )
        found[name] = f
    for name, value in cls.__dict__.items():
        if _as_field(value) is not None and name not in annotations:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    return tuple(found.values())


def _as_field(value: Any) -> Field | None:
    """`value` as a `Field`: itself, or one made from a standard `dataclasses.Field` (should a
    class body use that `field()`); None for a plain value."""
    if isinstance(value, Field):
        return value
    standard = sys.modules.get("dataclasses")
    if standard is not None and isinstance(value, standard.Field):
        mine = [MISSING if v is standard.MISSING else v for v in (value.default, value.default_factory)]
        kw_only = MISSING if value.kw_only is standard.MISSING else value.kw_only
        return Field(
            mine[0], mine[1], value.init, value.repr, value.hash, value.compare, value.metadata, kw_only
        )
    return None


def _is_classvar(kind: Any) -> bool:
    if isinstance(kind, str):
        text = kind.strip()
        for prefix in ("typing.ClassVar", "ClassVar"):
            if text.startswith(prefix):
                rest = text[len(prefix) :].lstrip()
                return not rest or rest.startswith("[")
        return False
    return kind is ClassVar or getattr(kind, "__origin__", None) is ClassVar


def _slotted(cls: Any, every: tuple[Field, ...]) -> Any:
    """The class made again with a slot per field, as `dataclasses._add_slots` makes it."""
    body = dict(cls.__dict__)
    names = tuple(f.name for f in every)
    inherited = set(chain.from_iterable(_slots_of(base) for base in cls.__mro__[1:-1]))
    body["__slots__"] = tuple(name for name in names if name not in inherited)
    for name in names:
        body.pop(name, None)  # a default is `__init__`'s, not a class attribute beside its slot
    body.pop("__dict__", None)
    body.pop("__weakref__", None)
    made = type(cls)(cls.__name__, cls.__bases__, body)
    made.__qualname__ = cls.__qualname__
    return made


def _slots_of(cls: type) -> Iterator[str]:
    slots = cls.__dict__.get("__slots__")
    if slots is None:
        if getattr(cls, "__weakrefoffset__", -1) != 0:
            yield "__weakref__"
        if getattr(cls, "__dictoffset__", -1) != 0:
            yield "__dict__"
    elif isinstance(slots, str):
        yield slots
    else:
        yield from slots


class _Standard:
    """`__dataclass_fields__` or `__dataclass_params__` of a frozen record: both made, importing
    `dataclasses`, when either is first read (by `dataclasses.fields`, `replace`, `asdict` or
    `is_dataclass`), and from then on the class's own plain attributes."""

    def __init__(self, cls: Any, slots: bool, eq: bool, name: str) -> None:
        self.cls = cls
        self.slots = slots
        self.eq = eq
        self.name = name

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        import dataclasses as standard

        cls = self.cls
        made = {}
        for f in cls.__frozen_fields__:
            out: Any = standard.field(
                default=standard.MISSING if f.default is MISSING else f.default,
                default_factory=standard.MISSING if f.default_factory is MISSING else f.default_factory,
                init=f.init,
                repr=f.repr,
                hash=f.hash,
                compare=f.compare,
                metadata=f.metadata,
                kw_only=f.kw_only,
            )
            out.name, out.type = f.name, f.type
            out._field_type = standard._FIELD  # type: ignore[attr-defined]
            made[f.name] = out
        flags = {
            "init": True,
            "repr": True,
            "eq": self.eq,
            "order": False,
            "unsafe_hash": False,
            "frozen": True,
        }
        try:  # Python 3.12 and later also name these
            params = standard._DataclassParams(  # type: ignore[attr-defined]
                **flags, match_args=True, kw_only=False, slots=self.slots, weakref_slot=False
            )
        except TypeError:  # Python 3.11's
            params = standard._DataclassParams(**flags)  # type: ignore[attr-defined]
        type.__setattr__(cls, "__dataclass_fields__", made)
        type.__setattr__(cls, "__dataclass_params__", params)
        return cls.__dict__[self.name]


class _Signature:
    """The docstring `dataclasses` writes for a record without one (its name and signature),
    made when first read: `inspect` is not imported for it at start-up."""

    def __init__(self, cls: Any) -> None:
        self.cls = cls

    def __get__(self, obj: Any, owner: Any = None) -> str:
        import inspect

        text = str(self.cls.__name__) + str(inspect.signature(self.cls)).replace(" -> None", "")
        type.__setattr__(self.cls, "__doc__", text)
        return text


def _finish(
    cls: Any,
    every: tuple[Field, ...],
    own: Mapping[str, Any],
    slots: bool,
    eq: bool = True,
    compared_now: bool = False,
) -> None:
    """Add the methods `dataclass(frozen=True)` would generate where the class body (`own`) did
    not write its own, by the same rules (`dataclasses._process_class` in Python 3.11)."""
    names = tuple(f.name for f in every)
    shown = tuple(f.name for f in every if f.repr)

    @recursive_repr()
    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({inner})"

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise _frozen_error(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise _frozen_error(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    made = {
        "__init__": _init(every, hasattr(cls, "__post_init__"), slots),
        **(_compared(cls, every, compared_now) if eq else {}),
    }
    made["__repr__"] = __repr__
    made = {name: fn for name, fn in made.items() if name not in own or name == "__hash__"}
    if "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own):
        made.pop("__hash__", None)  # a hash of its own (Python's None beside an `__eq__` is not one)
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


def frozen_error(message: str) -> AttributeError:
    """The error a read-only object raises on assignment (`_frozen_error`), for classes that
    refuse it themselves (`values.Symbol`, a `str`)."""
    return _frozen_error(message)


def _frozen_error(message: str) -> AttributeError:
    """`dataclasses.FrozenInstanceError`, the standard one (imported only for the error)."""
    from dataclasses import FrozenInstanceError

    return FrozenInstanceError(message)


def replace(obj: R, /, **changes: Any) -> R:
    """`dataclasses.replace` (the same rules) without importing `dataclasses` for a frozen record."""
    every = getattr(type(obj), "__frozen_fields__", None)
    if every is None:
        import dataclasses

        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    for f in every:
        if not f.init:
            if f.name in changes:
                raise ValueError(
                    f"field {f.name} is declared with init=False, it cannot be specified with replace()"
                )
        elif f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return type(obj)(**changes)


def field_names(obj: Any) -> tuple[str, ...] | None:
    """The fields of a frozen record or record class, or of a standard dataclass instance once
    `dataclasses` is imported; None for anything else."""
    every = getattr(obj if isinstance(obj, type) else type(obj), "__frozen_fields__", None)
    if every is not None:
        return tuple(f.name for f in every)
    standard = sys.modules.get("dataclasses")
    if standard is not None and standard.is_dataclass(obj) and not isinstance(obj, type):
        return tuple(f.name for f in standard.fields(obj))
    return None


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

    def __hash__(self) -> int:  # type: ignore[override]
        # hashable as its items are (as `frozenset` is beside `set`): a record that holds it, a
        # `Result`, hashes as its fields do, where `hash(result)` told of an unhashable FrozenDict
        return hash(frozenset(self.items()))

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled as its items, made again in one step (a `dict` subclass would be refilled
        # key by key through the refused `__setitem__`)
        return (type(self), (dict(self),))

    @classmethod
    def fromkeys(cls, keys: Any, value: Any = None) -> FrozenDict:
        return cls(dict.fromkeys(keys, value))


def freeze_fields(record: Any, *names: str) -> None:
    """Make each mapping field `names` of a frozen record a `FrozenDict` (a copy) unless it is
    one already: what a record hands out is read-only all the way down (a `Result`, a `Batch`, a
    `Distribution`'s inputs, a compiled model's tables), whoever made it."""
    for name in names:
        mapping = getattr(record, name)
        if type(mapping) is not FrozenDict:
            object.__setattr__(record, name, FrozenDict(mapping))


class FrozenList(list[Any]):
    """A `list` whose changing methods raise `TypeError`, as `FrozenDict` is a `dict`: the lists a
    stored campaign's event holds (its effects, a scene's trace), handed out as they are kept. It
    stays a `list` in everything else (equal to one, `isinstance(x, list)`, written as JSON as
    one), where a tuple is equal to no list; `list(...)` gives a plain one to change."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"this {type(self).__name__} is read-only: change a copy, list(...)")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(self))

    def __reduce__(self) -> tuple[Any, ...]:
        # made again in one step: a `list` subclass is refilled by `extend`, which is refused
        return (type(self), (list(self),))


def frozen_json(value: Any) -> Any:
    """A JSON value read-only all the way down: each mapping a `FrozenDict`, each list a
    `FrozenList`, copied (a frozen one too: one made by hand may hold a plain one); anything else
    (text, numbers, None) as it is. What a campaign store keeps and hands out (a state, an event's
    data), so that no reader can change the campaign; one pass, about half a `copy.deepcopy`."""
    kind = type(value)
    if kind is dict or kind is FrozenDict or isinstance(value, dict):
        return FrozenDict({k: frozen_json(v) for k, v in value.items()})
    if kind is list or kind is FrozenList or kind is tuple or isinstance(value, list):
        return FrozenList([frozen_json(v) for v in value])
    return value


def frozen_pairs(pairs: list[tuple[str, Any]]) -> FrozenDict:
    """A JSON object read by `json.loads` (its `object_pairs_hook`), read-only all the way down: the
    objects inside it are made by this hook already, so only its lists are left to freeze, and
    most objects hold none (a state holds none; looked for by `map`, with no loop of Python's).
    `frozen_json` after the read took half as long again as the read."""
    made = FrozenDict(pairs)
    if list not in map(type, made.values()):
        return made
    return FrozenDict([(k, _frozen_lists(v) if type(v) is list else v) for k, v in pairs])


def frozen_hook(text: str | bytes) -> Callable[[list[tuple[str, Any]]], FrozenDict]:
    """The `object_pairs_hook` that reads `text` read-only all the way down: `FrozenDict` itself
    (no Python call per object) when the text holds no `[` and so no list, as a campaign's state
    does; `frozen_pairs` otherwise (a `[` within a string only takes the slower way)."""
    listless = b"[" not in text if isinstance(text, bytes) else "[" not in text
    return FrozenDict if listless else frozen_pairs


def _frozen_lists(value: list[Any]) -> FrozenList:
    return FrozenList([_frozen_lists(v) if type(v) is list else v for v in value])
