"""Static types of expressions, checked when a ruleset is compiled.

The language is small, so the types are too: numbers, booleans, symbols of one named scale,
multisets (pools and draws) of some element type, lists, ranges, and `ANY` where a table
parameter was declared without a type. `UNKNOWN` is an `ANY` that stands for a name whose own
definition has an error: what reads it is not told apart any further, so the one mistake is not
reported again where the name is used.
"""

from __future__ import annotations

from ..frozen import frozen


@frozen(slots=True)
class Type:
    kind: str  # num | bool | sym | multi | list | range | any
    scale: str | None = None
    elem: Type | None = None
    broken: bool = False  # UNKNOWN: the type of a definition that has an error

    def __str__(self) -> str:
        if self.kind == "sym":
            return f"'{self.scale}' value" if self.scale else "quoted name"
        if self.kind == "multi":
            return f"pool of {self.elem}"
        if self.kind == "list":
            return f"list of {self.elem}"
        return {"num": "number", "bool": "true/false", "range": "range", "any": "value"}[self.kind]

    def accepts(self, other: Type) -> bool:
        """Whether a value of `other` may stand where `self` is expected."""
        if self.kind == "any" or other.kind == "any":
            return True
        if self.kind != other.kind:
            return False
        if self.kind == "sym":
            return self.scale is None or other.scale is None or self.scale == other.scale
        if self.elem is not None and other.elem is not None:
            return self.elem.accepts(other.elem)
        return True


NUM = Type("num")
BOOL = Type("bool")
ANY = Type("any")
UNKNOWN = Type("any", broken=True)
RANGE = Type("range")


def sym(scale: str | None) -> Type:
    return Type("sym", scale)


def multi(elem: Type) -> Type:
    return Type("multi", elem=elem)


def listof(elem: Type) -> Type:
    return Type("list", elem=elem)


def named(name: str, scales: set[str]) -> Type | None:
    """The type a YAML type name stands for: a primitive, or a scale's name."""
    simple = {"int": NUM, "number": NUM, "bool": BOOL, "any": ANY}
    if name in simple:
        return simple[name]
    if name in scales:
        return sym(name)
    return None
