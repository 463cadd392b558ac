"""The one exact distribution type: integer weights over a common total.

Every exact path — a die's faces, a pool's multisets, a bag's hypergeometric draws, a reroll
chain's end states, a whole check, the linter's probability findings — is a `Dist`. Weights stay
whole numbers (no `Fraction` per state); a probability is made only when someone asks for one.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Iterable, Iterator, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

from ..errors import Diagnostic, InputError
from ..frozen import frozen
from ..model.values import Multi, Symbol, show
from ..runtime import arguments
from ..runtime.folds import Summary
from ..runtime.work import Work, gcd_units, made_units, meter, product_units, quotient_units

if TYPE_CHECKING:
    from ..model.ruleset import Scale

_new = object.__new__
_SLOTS = getattr(Fraction, "__slots__", None) == ("_numerator", "_denominator")


def ratios(numerators: Iterable[int], d: int) -> list[Fraction]:
    """`Fraction(n, d)` for each whole number n, d > 0, made without the constructor's checks of
    its arguments (a third of its time): every probability an answer lists is one, and a check's
    table of a dozen of them was a quarter of a small distribution's time. Lowest terms as the
    constructor makes them; any other argument, or a `Fraction` laid out otherwise, is handed to
    the constructor itself."""
    if type(d) is not int or d <= 0 or not _SLOTS:
        return [Fraction(n, d) for n in numerators]
    gcd = math.gcd
    out: list[Fraction] = []
    for n in numerators:
        if type(n) is int:
            g = gcd(n, d)
            made: Any = _new(Fraction)
            made._numerator = n // g
            made._denominator = d // g
        else:
            made = Fraction(n, d)
        out.append(made)
    return out


def ratio(n: int, d: int) -> Fraction:
    """`Fraction(n, d)` as `ratios` makes it."""
    return ratios((n,), d)[0]


SMALL_BITS = 1_800
"""Whole numbers of fewer bits than this together are below every charge for their size
(`product_units`, `made_units`): a game's common totals are combined as they always were."""


_HALF = 1 << (SMALL_BITS // 2)
"""Two whole numbers under it are together under `SMALL_BITS`: compared, not measured."""


def common_divisor(a: int, b: int, work: Work) -> int:
    """The greatest common divisor of whole numbers a > 0, b >= 0 (`math.gcd`), charged to `work`
    by the size of its numbers: the division that starts it before it is made, and its further
    steps (`gcd_units`) once its size is known; nothing while the two are together under
    `SMALL_BITS`."""
    a_bits, b_bits = a.bit_length(), b.bit_length()
    if a_bits + b_bits < SMALL_BITS:
        return math.gcd(a, b)
    short = min(a_bits, b_bits)
    work.charge(quotient_units(max(a_bits, b_bits), short))
    g = math.gcd(a, b)
    work.charge(gcd_units(short, g.bit_length()))
    return g


def common_multiple(a: int, b: int, work: Work) -> int:
    """The least common multiple of whole numbers a, b > 0 (`math.lcm`), charged to `work` by
    the size of its numbers: their greatest common divisor (`common_divisor`), then the division
    and product that make the multiple before they are made."""
    a_bits, b_bits = a.bit_length(), b.bit_length()
    if a_bits + b_bits < SMALL_BITS:
        return math.lcm(a, b)
    g = common_divisor(a, b, work)
    g_bits = g.bit_length()
    work.charge(quotient_units(b_bits, g_bits) + product_units(a_bits, b_bits - g_bits))
    return a * (b // g)


def spread_units(den_bits: int, scale_bits: int, w_bits: int, child: Dist) -> int:
    """Units to charge for weighing `child` into a total of `den_bits` bits (`Dist.mix`): the
    factor (the total divided by the child's scale of `scale_bits` bits, times a weight of
    `w_bits`), then each of its weights times the factor and added to the total's."""
    factor_bits = den_bits - scale_bits + w_bits + 1
    each = product_units(child.total.bit_length(), factor_bits) + made_units(den_bits)
    return (
        quotient_units(den_bits, scale_bits) + product_units(factor_bits, w_bits) + len(child.weights) * each
    )


_HASHED_AT_COST = frozenset({tuple, Summary, Multi})
"""The kinds of value `key_units` charges for (a tuple for its parts)."""


def key_units(key: Any) -> int:
    """Units, past the item's own, to hash a value twice and compare it once where `Dist.mix`
    merges it: a pool read through folds (`Summary`) hashes a set of its results each time
    (about 3.5 µs, and 1 µs a result), a multiset its tally (a quarter of a microsecond a
    reading), a tuple its parts; a number or a symbol nothing more. Measured on the 2-core machine."""
    if type(key) is tuple:  # a joint key: mostly numbers and symbols, passed over without a call
        units = 0
        for part in key:
            if type(part) in _HASHED_AT_COST:
                units += key_units(part)
        return units
    if type(key) is Summary:
        return 3 + len(key.results)
    if type(key) is Multi:
        return 1 + len(key.tally if key.tally is not None else key.items) // 4
    return 0


def merge_units(children: Iterable[Dist]) -> int:
    """Units to merge the weights of `children` into one (`Dist.mix`) past a unit an item, which
    its callers charge: the hashing of each key (`key_units`, read off one key of each child, whose
    values are alike). A number's, a symbol's, costs nothing more."""
    units = 0
    for child in children:
        weights = child.weights
        if weights:
            units += len(weights) * key_units(next(iter(weights)))
    return units


@frozen
class Dist:
    """An exact finite distribution: `weights[v] / total` is the probability of `v`."""

    weights: Mapping[Any, int]
    total: int
    scale: ClassVar[Scale | None] = None
    """The scale its values are members of, set on a `Dist` a `Distribution` hands out when it
    knows it (not a field: no part of equality): a name outside it is RC402, where it would
    otherwise be a chance of 0. `map` keeps it where every value it makes is still a member of
    it, and `mix` where every part has it; anything else drops it (a value mapped to text, a
    number or another scale's member, a part of no scale or another: the values may then be of
    any kind, and a name they never take is a chance of 0, as of a `Dist` made by hand)."""
    truncated: ClassVar[Fraction] = Fraction(0)
    """Set on the state after an action (`Campaign.distribution`) whose roll is an uncapped
    explosion followed down to a tail (`Distribution.truncated`, not a field: no part of equality):
    each chance is exact to within it. Nothing made from this `Dist` keeps it."""

    @staticmethod
    def certain(value: Hashable) -> Dist:
        return Dist({value: 1}, 1)

    @staticmethod
    def of(pairs: Iterable[tuple[Any, int]]) -> Dist:
        """From (value, weight) pairs; equal values are merged and the total is their sum."""
        weights: dict[Any, int] = {}
        for v, w in pairs:
            weights[v] = weights.get(v, 0) + w
        return Dist(weights, sum(weights.values()))

    @staticmethod
    def lowest(weights: dict[Any, int], total: int) -> Dist:
        """Whole-number weights over `total`, all divided by their greatest common divisor with
        it: the form a solver that pushes mass over a growing scale hands back (equal
        distributions are then equal weights and totals)."""
        common = math.gcd(total, *weights.values())
        if common == 1:  # the weights as they are (a value hashed again costs, a pool's most)
            return Dist(weights, total)
        return Dist({k: n // common for k, n in weights.items()}, total // common)

    @staticmethod
    def from_fractions(probabilities: Mapping[Any, Fraction]) -> Dist:
        """Exact probabilities over their least common denominator."""
        den = 1
        for p in probabilities.values():
            den = math.lcm(den, p.denominator)
        return Dist({v: p.numerator * (den // p.denominator) for v, p in probabilities.items()}, den)

    @staticmethod
    def mix(parts: Iterable[tuple[Dist, int, int]]) -> Dist:
        """Σ (w / of) · child over every (child, w, of): each child weighed by the chance w / of,
        kept whole over one common total. Charged by the size of the numbers it handles
        (`common_multiple`, `spread_units`): the totals of a chain of redraws grow by the megabyte,
        and one step over them takes milliseconds; and by the items it merges, whose keys can be
        slow to hash (`merge_units`: a chain of redraws over a bag of fifty kinds, whose draws are
        read through folds, ran 4 s past the default budget, charged by its parts alone)."""
        parts = list(parts)
        merged = merge_units(child for child, _, _ in parts)
        if merged:
            meter().charge(merged)
        den = 1
        lcm = math.lcm
        for child, _, of in parts:
            scale = child.total * of
            # a game's totals, the common case, without a call or a charge (13 % of a small mix)
            if den < _HALF and scale < _HALF:
                den = lcm(den, scale)
            else:
                den = common_multiple(den, scale, meter())
        bits = den.bit_length()
        out: dict[Any, int] = {}
        for child, w, of in parts:
            scale = child.total * of
            if bits > SMALL_BITS:
                meter().charge(spread_units(bits, scale.bit_length(), w.bit_length(), child))
            factor = den // scale * w
            for k, n in child.weights.items():
                out[k] = out.get(k, 0) + n * factor
        made = Dist(out, den)
        kept = parts[0][0].scale if parts else None
        if kept is not None and all(child.scale == kept for child, _, _ in parts):
            object.__setattr__(made, "scale", kept)  # every value a member of it (`scale`)
        return made

    def probability(self, value: Any) -> Fraction:
        """P(value) (`_asked`: a value of the wrong kind is a `TypeError`, a name outside its
        scale RC402)."""
        return ratio(self.weights.get(self._asked("Dist.probability", value, False), 0), self.total)

    def fractions(self) -> dict[Any, Fraction]:
        weights = self.weights
        return dict(zip(weights, ratios(weights.values(), self.total)))

    def map(self, f: Any) -> Dist:
        """The distribution of `f(value)`: weights of values that map alike are merged; the
        `scale`, where every value is mapped to a member of it."""
        out: dict[Any, int] = {}
        for v, w in self.weights.items():
            k = f(v)
            out[k] = out.get(k, 0) + w
        made = Dist(out, self.total)
        scale = self.scale
        if scale is not None and all(type(k) is Symbol and k.scale == scale.name for k in out):
            object.__setattr__(made, "scale", scale)
        return made

    def __len__(self) -> int:
        return len(self.weights)

    def items(self) -> Iterator[tuple[Any, Fraction]]:
        """(value, probability) pairs, in ascending order of value where values are ordered."""
        weights, total = self.weights, self.total
        keys = list(weights)
        try:
            keys.sort()
        except TypeError:
            pass
        # made at once, not by a generator: a generator's frame is resumed once per pair
        return zip(keys, ratios(map(weights.__getitem__, keys), total))

    @property
    def mean(self) -> Fraction:
        """The expected value (numbers and true/false only)."""
        if not all(isinstance(v, (int, Fraction)) for v in self.weights):
            raise TypeError("only a distribution of numbers has a mean")
        return Fraction(sum(v * w for v, w in self.weights.items()), self.total)

    def at_least(self, value: Any) -> Fraction:
        """P(a value >= `value`): numbers, true/false, or a scale's members by rank (`_asked`)."""
        value = self._asked("Dist.at_least", value, True)
        return ratio(sum(w for v, w in self.weights.items() if v >= value), self.total)

    def at_most(self, value: Any) -> Fraction:
        """P(a value <= `value`), as `at_least`."""
        value = self._asked("Dist.at_most", value, True)
        return ratio(sum(w for v, w in self.weights.items() if v <= value), self.total)

    def _asked(self, where: str, value: Any, ordered: bool) -> Any:
        """`value` as its values are asked for: of their kind (a number, not True, for numbers; a
        name or member for a scale's) else a `TypeError` naming the argument; a name of its
        `scale` as the member, a name outside it RC402 (compared as text, or never found, it
        answered 1 or 0). `ordered`: for `at_least`, `at_most`, which need an order."""
        weights = self.weights
        if type(value) in _NUMBERS and self.scale is None:  # the common question, at once
            if not weights or type(next(iter(weights))) in _NUMBERS:
                return value
        kind = _kind(value)
        if kind is None and not ordered:
            try:
                hash(value)
            except TypeError:
                arguments.wrong_type(where, "value", value, "one of its values (a number, a name)")
        scale = self.scale
        if scale is not None:
            if kind != "name":
                arguments.wrong_type(where, "value", value, f"a '{scale.name}' value (a str)")
            if type(value) is Symbol and value.scale == scale.name:
                return value
            for member in scale.members:
                if member.name == value:
                    return member
            raise arguments.unknown("value", value, scale.names, f"scale '{scale.name}'", code="RC402")
        if not weights or _kind(next(iter(weights))) == kind:  # the first value tells, mostly
            held = {kind}
        else:  # values of more than one kind (a value of type `any`) or of none it tells
            held = {_kind(v) for v in weights}
        if held == {None}:  # tuples, pools: asked for as they are
            return value
        if kind not in held:
            wanted = " or ".join(_KIND_WORDS[k] for k in sorted(held, key=str) if k is not None)
            arguments.wrong_type(where, "value", value, wanted)
        if ordered and kind == "name" and type(value) is not Symbol:
            members = False
            for v in self.weights:  # a member named so, compared by its rank
                if type(v) is Symbol:
                    if v == value:
                        return v
                    members = True
            if members:  # a scale's members, none named so: compared as text, it answered 1 or 0
                raise InputError([Diagnostic("RC402", f"no value {value!r} to compare with"[:120], None)])
        return value  # plain text among plain text (a `Dist` made by hand): in text's order

    def as_json(self) -> dict[str, str]:
        return {v.name if isinstance(v, Symbol) else show(v): fraction_text(p) for v, p in self.items()}


def _kind(value: Any) -> str | None:
    """What `Dist._asked` tells values apart by: a number, true/false, a name (a scale's member
    or a plain str); None for anything else."""
    if value is True or value is False:
        return "bool"
    if isinstance(value, str):
        return "name"
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return "number"
    return None


_NUMBERS = frozenset({int, Fraction})
"""The exact types of the numbers a check's values hold: asked for with one of them, asked at once."""
_KIND_WORDS = {"bool": "True or False", "name": "a name (a str)", "number": "a number"}


HEX_BITS = 13_000
"""Past this many bits (about 3,900 decimal digits) a numerator or denominator is written in
hexadecimal: Python refuses to write a whole number of more than 4,300 decimal digits (and to
read one back), and the exact chance of a scene lasting its hundredth round can be that long."""


def fraction_text(p: Fraction) -> str:
    """An exact probability as JSON carries it: "n/d" — or "0x…/0x…" when either part is too long
    to write in decimal (Python reads it back with `int(part, 16)`), still exact."""
    n, d = p.numerator, p.denominator
    if abs(n).bit_length() > HEX_BITS or d.bit_length() > HEX_BITS:
        return f"{n:#x}/{d:#x}"
    return f"{n}/{d}"
