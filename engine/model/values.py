"""Runtime values the expression language works on, beyond Python's ints, Fractions and bools.

All are immutable and hashable, so the exact evaluator can memoise on them and a `Result`
can be compared with a replay of itself.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any

from ..frozen import field, frozen, frozen_error


class Symbol(str):
    """A member of an ordered scale (an outcome, a chit colour, a skill level).

    A symbol is its name (so `result.outcome == "failure"` reads naturally and hashing is as
    fast as a string's) and also knows its scale and rank: symbols order by rank, worst first.
    """

    __slots__ = ("scale", "rank", "name")
    scale: str
    rank: int
    name: str
    """The name as a plain `str` (a slot, not a property: no Python frame per read)."""

    def __new__(cls, scale: str, name: str, rank: int) -> Symbol:
        self = super().__new__(cls, name)
        _SET_SCALE(self, scale)
        _SET_RANK(self, rank)
        _SET_NAME(self, str.__str__(self))
        return self

    def __setattr__(self, name: str, value: object) -> None:
        # one symbol is shared by every answer and every ruleset loaded from the same text: a
        # caller who set `result.outcome.rank` changed later exact answers (hunt 13r: 3/5 where
        # 33/100 is right)
        raise frozen_error(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise frozen_error(f"cannot delete field {name!r}")

    def __lt__(self, other: object) -> bool:
        if isinstance(other, Symbol) and other.scale == self.scale:
            return self.rank < other.rank
        return NotImplemented

    def __le__(self, other: object) -> bool:
        if isinstance(other, Symbol) and other.scale == self.scale:
            return self.rank <= other.rank
        return NotImplemented

    def __gt__(self, other: object) -> bool:
        if isinstance(other, Symbol) and other.scale == self.scale:
            return self.rank > other.rank
        return NotImplemented

    def __ge__(self, other: object) -> bool:
        if isinstance(other, Symbol) and other.scale == self.scale:
            return self.rank >= other.rank
        return NotImplemented

    __hash__ = str.__hash__
    __eq__ = str.__eq__
    __ne__ = str.__ne__

    def __repr__(self) -> str:
        return f"'{self.name}'"

    def __reduce__(self) -> tuple[object, ...]:
        return (Symbol, (self.scale, self.name, self.rank))


_SET_SCALE = Symbol.scale.__set__  # type: ignore[attr-defined]
_SET_RANK = Symbol.rank.__set__  # type: ignore[attr-defined]
_SET_NAME = Symbol.name.__set__  # type: ignore[attr-defined]
"""A symbol's slots set past its `__setattr__`, which refuses every assignment once it is made."""


@frozen(slots=True)  # its own `__eq__` and `__hash__`: a pool is a multiset
class Multi:
    """The dice of a pool or the chits of a draw, as read for the rules.

    `items` is in the order rolled or drawn (in an order of its own where the exact evaluator
    made it), but a pool is a multiset: two are equal, and hash alike, whatever their order
    (`__eq__`); `faces` keeps the raw die faces behind a classified pool, for the trace; `tally`,
    where given, is every reading with its count (none of 0: the `Counter` of `items`);
    `history` what `first_roll`, `added_dice` and `rerolled_dice` read.
    """

    items: tuple[Value, ...]
    faces: tuple[int, ...] | None = field(default=None, compare=False)
    tally: tuple[tuple[Value, int], ...] | None = field(default=None, compare=False, repr=False)
    history: tuple[Multi | None, Multi | None, Multi | None] | None = None
    """A pool with triggers whose history the check reads: its first roll, the dice its triggers
    added and the faces they rerolled away (None for a part the check does not read). Part of
    the value, so that the exact evaluator tells apart pools that ended alike by different ways."""

    def __eq__(self, other: object) -> bool:
        """A pool is a multiset: two are equal when they hold the same readings, in whatever
        order they were rolled (the sampler keeps that order for the trace; the exact evaluator
        lists each multiset once, in an order of its own), and the same history."""
        if other.__class__ is not Multi:
            return NotImplemented
        assert isinstance(other, Multi)
        mine, theirs = self.items, other.items
        if mine != theirs and (len(mine) != len(theirs) or Counter(mine) != Counter(theirs)):
            return False
        return self.history == other.history

    def __hash__(self) -> int:
        """The same whatever the order rolled (see `__eq__`): of the set of (reading, count)
        pairs, which the exact evaluator made with the pool (`tally`), so that hashing one of its
        pools counts nothing, and no reading is compared with another (ordering a scale's values
        is a call into Python)."""
        tally = self.tally
        return hash((frozenset(Counter(self.items).items() if tally is None else tally), self.history))

    def __len__(self) -> int:
        return len(self.items)

    def counts(self) -> dict[Value, int]:
        """How many dice show each reading (precomputed when the exact evaluator built it)."""
        if self.tally is not None:
            return dict(self.tally)
        return Counter(self.items)

    def __str__(self) -> str:
        return "[" + ", ".join(show(i) for i in self.items) + "]"


Value = int | Fraction | bool | Symbol | Multi | tuple["Value", ...] | range


@frozen(slots=True)
class Redrawn:
    """A randomizer's value with how many redraws were made of it, where the check reads
    `redraws(name)`: the evaluators carry the two together among the dice, so that rolls that
    ended on one value by different numbers of redraws stay apart (in the exact evaluator's
    memos too). Whatever reads the dice by name sees `value` (`runtime.rules.with_dice`): a
    number, a `Multi`, or a pool's statistics where the check reads only those."""

    value: Any
    count: int


COUNTED = (int, Fraction, Symbol)
"""The kinds of value whose distribution a request reports (numbers, true/false and scale values:
`Distribution.values`, `Batch.values`); a pool, a list or a range is in a roll's values only."""


def redraws_key(name: str) -> str:
    """Where an environment keeps how many redraws were made of randomizer `name` (`Redrawn`,
    read by `redraws(name)`): a key that no name of the language can be, so it never meets one."""
    return f"redraws({name})"


def readable(p: Fraction) -> str:
    """A probability a person can read: the fraction when it is short (`1/1296 (0.08%)`), else
    a percentage, or for a tail like an explosion's a number like `2.3e-13` — never a fraction
    of forty digits."""
    if max(abs(p.numerator), p.denominator) < 10**12:  # never a text Python will not write
        text = f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p.numerator)
    else:
        text = ""
    if text and len(text) <= 12:
        return f"{text} ({float(p) * 100:.2f}%)"
    if p >= Fraction(1, 10_000):
        return f"{float(p) * 100:.2f}%"
    return f"{float(p):.1e}"


def normalize(value: Fraction | int) -> Fraction | int:
    """Whole rationals become ints so that results print and hash as people expect."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return int(value.numerator)
    return value


def show(value: object) -> str:
    """A value as a player reads it: a whole number as one (`1`), even where it is held as the
    `Fraction` 1/1 (see `to_json`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Symbol):
        return value.name
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value.numerator)
    if isinstance(value, tuple):
        return "[" + ", ".join(show(v) for v in value) + "]"
    if isinstance(value, range):
        return f"{value.start}..{value.stop - 1}"
    return str(value)


def to_json(value: object) -> object:
    """A JSON-ready form: exact rationals as "n/d" strings, a whole one as the whole number it is,
    symbols as names, ranges as "a..b" strings (each as the language writes it: a range is no
    list, and `[1, 3]` would be one).

    A whole number may be held as a `Fraction` (`3 * n` with `n` = 1/3 is 1/1): `+`, `-` and `*`
    leave their results as Python makes them, which compare and hash as the `int` (a normalize
    at each of them would slow every sum of dice), so the value is made whole where it is written."""
    if isinstance(value, Symbol):
        return value.name
    if isinstance(value, bool) or isinstance(value, int):
        return value
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else value.numerator
    if isinstance(value, Multi):
        return [to_json(v) for v in value.items]
    if isinstance(value, (tuple, list)):
        return [to_json(v) for v in value]
    if isinstance(value, range):
        return f"{value.start}..{value.stop - 1}"
    return str(value)


def faces_text(faces: tuple[int, ...]) -> str:
    """A die's faces as people write them: `0..9` when they run in steps of one, else listed."""
    if faces and faces == tuple(range(faces[0], faces[0] + len(faces))):
        return f"{faces[0]}..{faces[-1]}"
    return ", ".join(map(str, faces))
