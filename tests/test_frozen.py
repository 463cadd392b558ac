"""`engine.frozen` against `dataclass(frozen=True)`: the same class behaviour, method by method.

Each shape is declared twice, once with each decorator, and every answer is compared: init
(positional, keyword, defaults, factories, `init=False` fields, `__post_init__`), repr, eq,
hash, the frozen guards, `replace`, `fields`, pickling and copying, and the signature; the
fields as `frozen` collects them itself (with its own `field` or the standard one)."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import types
from dataclasses import FrozenInstanceError, dataclass, field
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.frozen import field as own_field
from engine.frozen import field_names, frozen
from engine.frozen import replace as own_replace


def _body(ns: dict[str, Any], field: Any = field) -> None:
    """One record's class body, with every field option the engine uses (the standard `field`,
    or `engine.frozen.field`)."""
    ns["__annotations__"] = {
        "a": "int",
        "b": "Any",
        "c": "tuple[int, ...]",
        "d": "dict[str, int]",
        "e": "int",
        "f": "int",
        "g": "list[int]",
    }
    ns["c"] = ()
    ns["d"] = field(default_factory=dict, compare=False)
    ns["e"] = field(default=5, repr=False)
    ns["f"] = field(default=0, hash=False)
    ns["g"] = field(init=False, default_factory=list, repr=False, compare=False)

    def __post_init__(self: Any) -> None:
        object.__setattr__(self, "g", [self.a])

    ns["__post_init__"] = __post_init__


def _declare(name: str, decorate: Any, body: Any = _body) -> Any:
    cls = decorate(types.new_class(name, (), {}, body))
    cls.__module__ = __name__  # found by pickle under its name here
    return cls


OursPlain = _declare("OursPlain", frozen)
OursSlots = _declare("OursSlots", frozen(slots=True))
OwnFieldPlain = _declare("OwnFieldPlain", frozen, lambda ns: _body(ns, own_field))
OwnFieldSlots = _declare("OwnFieldSlots", frozen(slots=True), lambda ns: _body(ns, own_field))
TheirsPlain = _declare("TheirsPlain", dataclass(frozen=True))
TheirsSlots = _declare("TheirsSlots", dataclass(frozen=True, slots=True))


def _pair(slots: bool, own: bool = False) -> tuple[Any, Any]:
    """The same record declared by `frozen` (with the standard `field`, or with `own` field)
    and by `dataclasses`."""
    if own:
        return (OwnFieldSlots, TheirsSlots) if slots else (OwnFieldPlain, TheirsPlain)
    return (OursSlots, TheirsSlots) if slots else (OursPlain, TheirsPlain)


def _shown(obj: Any) -> str:
    """The repr after the class's name (the two classes' names differ)."""
    return repr(obj).split("(", 1)[1]


values = st.one_of(st.integers(-3, 3), st.text(max_size=2), st.none(), st.tuples(st.integers(0, 2)))


@pytest.mark.parametrize("own", [False, True])
@pytest.mark.parametrize("slots", [False, True])
@given(a=st.integers(-5, 5), b=values, b2=values, c=st.tuples(st.integers(0, 3)), f=st.integers(0, 2))
def test_a_frozen_record_answers_as_a_frozen_dataclass(
    slots: bool, own: bool, a: int, b: Any, b2: Any, c: tuple[int, ...], f: int
) -> None:
    ours, theirs = _pair(slots, own)
    for args, kwargs in (((a, b), {}), ((a,), {"b": b, "c": c, "f": f}), ((a, b2, c), {"e": 7})):
        x, y = ours(*args, **kwargs), theirs(*args, **kwargs)
        x2, y2 = ours(a, b2, c, f=f), theirs(a, b2, c, f=f)
        assert _shown(x) == _shown(y) and repr(x).startswith(f"{type(x).__qualname__}(")
        assert (x == x2) == (y == y2) and (x != x2) == (y != y2)
        assert (hash(x) == hash(x2)) == (hash(y) == hash(y2))
        assert hash(x) == hash(y)  # the same tuple is hashed
        assert [getattr(x, n.name) for n in dataclasses.fields(x)] == [
            getattr(y, n.name) for n in dataclasses.fields(y)
        ]
        assert x.g == y.g == [a]
        assert x != y and x.__eq__(y) is NotImplemented  # a different class is never equal
        assert _shown(dataclasses.replace(x, a=a + 1)) == _shown(dataclasses.replace(y, a=a + 1))
        assert _shown(own_replace(x, a=a + 1, f=f)) == _shown(dataclasses.replace(y, a=a + 1, f=f))
        assert field_names(x) == field_names(type(x)) == field_names(y) == tuple("abcdefg")
        back = pickle.loads(pickle.dumps(x))
        assert back == x and back.g == x.g and back.e == x.e
        assert x.__reduce_ex__(4)[2:] == y.__reduce_ex__(4)[2:]  # the same state is pickled
        assert copy.deepcopy(x) == x and copy.copy(x) == x


@pytest.mark.parametrize("own", [False, True])
@pytest.mark.parametrize("slots", [False, True])
def test_a_frozen_record_refuses_what_a_frozen_dataclass_refuses(slots: bool, own: bool) -> None:
    ours, theirs = _pair(slots, own)
    for cls in (ours, theirs):
        x = cls(1, 2)
        with pytest.raises(FrozenInstanceError, match="cannot assign to field 'a'"):
            x.a = 2
        with pytest.raises(FrozenInstanceError, match="cannot delete field 'b'"):
            del x.b
        with pytest.raises(TypeError):
            cls()
        with pytest.raises(TypeError):
            cls(1, 2, g=[])  # an `init=False` field is no parameter
        for replaced in (dataclasses.replace, own_replace):
            with pytest.raises(ValueError, match="field g is declared with init=False"):
                replaced(x, g=[])
    assert str(inspect.signature(ours)) == str(inspect.signature(theirs))
    assert ours.__doc__.replace(ours.__name__, "") == theirs.__doc__.replace(theirs.__name__, "")
    assert ours.__doc__.startswith(f"{ours.__name__}(a: 'int', b: 'Any', c: 'tuple[int, ...]' = ()")
    assert dataclasses.is_dataclass(ours) and [f.name for f in dataclasses.fields(ours)] == list("abcdefg")


def test_a_documented_record_keeps_its_docstring() -> None:
    @frozen(slots=True)
    class Told:
        """Why it exists."""

        a: int

    assert Told.__doc__ == "Why it exists."


def test_a_frozen_record_keeps_the_methods_its_class_writes() -> None:
    @frozen
    class Own:
        a: int

        def __eq__(self, other: object) -> bool:
            return True

        def __repr__(self) -> str:
            return "own"

    @frozen(slots=True)
    class Hashed:
        a: int

        def __hash__(self) -> int:
            return 7

    assert Own(1) == Own(2) and repr(Own(1)) == "own"
    assert hash(Own(1)) == hash((1,))  # an `__eq__` of its own, no `__hash__`: the fields' hash
    assert hash(Hashed(1)) == 7 and Hashed(1) == Hashed(1) and Hashed(1) != Hashed(2)


def test_a_frozen_record_reads_its_fields_as_a_dataclass_reads_them() -> None:
    """What `dataclasses` would collect, collected without it: inherited fields first, a
    `ClassVar` skipped, a keyword-only field after a `*`, `__match_args__`, the class attribute
    a default stays (and a `field()` without one is not)."""

    def body(ns: dict[str, Any], field: Any) -> None:
        ns["__annotations__"] = {"k": ClassVar[int], "a": "int", "b": "int", "s": "str"}
        ns["k"] = 3
        ns["a"] = field()
        ns["b"] = field(default=2, kw_only=True)
        ns["s"] = "x"

    for ours in (own_field, field):
        base = frozen(types.new_class("Base", (), {}, lambda ns: ns.update(__annotations__={"z": "int"})))
        mine = frozen(types.new_class("Mine", (base,), {}, lambda ns, ours=ours: body(ns, ours)))
        theirs_base = dataclass(frozen=True)(
            types.new_class("Base", (), {}, lambda ns: ns.update(__annotations__={"z": "int"}))
        )
        theirs = dataclass(frozen=True)(
            types.new_class("Mine", (theirs_base,), {}, lambda ns: body(ns, field))
        )
        assert [f.name for f in dataclasses.fields(mine)] == [f.name for f in dataclasses.fields(theirs)]
        assert (
            str(inspect.signature(mine))
            == str(inspect.signature(theirs))
            == "(z: 'int', a: 'int', s: 'str' = 'x', *, b: 'int' = 2) -> None"
        )
        assert mine.__match_args__ == theirs.__match_args__ == ("z", "a", "s")
        assert (
            (mine.k, mine.s, "a" in mine.__dict__)
            == (theirs.k, theirs.s, "a" in theirs.__dict__)
            == (3, "x", False)
        )
        assert mine.__doc__.replace("Mine", "") == theirs.__doc__.replace("Mine", "")
        assert dataclasses.fields(mine)[2].kw_only is True and dataclasses.fields(mine)[2].default == 2


def test_a_frozen_record_rejects_what_a_dataclass_rejects() -> None:
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):

        @frozen
        class Bad:
            a: int = 0
            b: int

    with pytest.raises(ValueError, match="mutable default <class 'list'> for field a is not allowed"):

        @frozen
        class Shared:
            a: list[int] = []  # noqa: RUF012 - the mistake refused

    with pytest.raises(TypeError, match="'b' is a field but has no type annotation"):
        frozen(
            types.new_class(
                "Unnamed", (), {}, lambda ns: ns.update(__annotations__={}, b=own_field(default=1))
            )
        )
    with pytest.raises(ValueError, match="cannot specify both default and default_factory"):
        own_field(default=1, default_factory=list)

    with pytest.raises(TypeError, match="Cannot overwrite attribute __setattr__"):

        @frozen
        class Guarded:
            a: int

            def __setattr__(self, name: str, value: object) -> None:
                pass


def test_the_engine_records_repr_as_before() -> None:
    """The model's repr is shown in the README and hashed by tests: one record, read whole."""
    from engine.syntax.positions import SourceFile, Span

    source = SourceFile("f.yaml", "a: 1\n")
    span = Span(source, 1, 2, 1, 4)
    assert repr(span) == f"Span(source={source!r}, line=1, col=2, end_line=1, end_col=4)"
    assert repr(source) == "SourceFile(name='f.yaml', text='a: 1\\n')"
    assert span == Span(SourceFile("f.yaml", "a: 1\n"), 1, 2, 1, 4)
    assert hash(span) == hash((source, 1, 2, 1, 4))


def test_comparisons_are_compiled_at_their_first_call_and_then_are_the_class_s_own() -> None:
    """`__eq__` and `__hash__` stand in until either is first called (most classes are never
    compared in a process: a fresh `rulecraft roll` compares two of 67); the first call compiles
    both, puts them on the class and answers as they do; `compared_now` compiles them at once."""

    def declare(**options: Any) -> Any:
        @frozen(slots=True, **options)
        class Point:
            x: int
            y: int = 0

        return Point

    later, now = declare(), declare(compared_now=True)
    stand_in_eq, stand_in_hash = later.__eq__, later.__hash__
    assert "real" in stand_in_eq.__code__.co_freevars and "real" in stand_in_hash.__code__.co_freevars
    assert "real" not in now.__eq__.__code__.co_freevars and "real" not in now.__hash__.__code__.co_freevars
    assert hash(later(1, 2)) == hash((1, 2)) == hash(now(1, 2))  # the first call: a hash
    assert later.__eq__ is not stand_in_eq and later.__hash__ is not stand_in_hash  # both replaced
    assert (
        later.__eq__.__qualname__.endswith("Point.__eq__") and "real" not in later.__eq__.__code__.co_freevars
    )
    assert later(1, 2) == later(1, 2) != later(2, 1) and later(1).__eq__(now(1)) is NotImplemented

    @frozen
    class Own:
        a: int

        def __eq__(self, other: object) -> bool:
            return True

    assert Own(1) == Own(2) and hash(Own(3)) == hash((3,))  # its hash compiled, its `__eq__` kept
    assert Own.__eq__.__qualname__.endswith("Own.__eq__") and Own(1) == 5
