"""The input grid: which combinations of input values a check is tried with.

Bounds, defaults, the numbers the check's expressions and tables mention and their neighbours,
and evenly spaced values; all combinations when there are few enough, else every pair of values
of two inputs with the others at their ordinary values, then a covering set that holds every
pair once more. Rows nearest the ordinary values come first, so examples in messages read
naturally.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from itertools import product
from typing import Any

from ...expr import ast
from ...frozen import replace
from ...model.ruleset import Check, InputSpec
from ...model.values import Multi, normalize
from ...syntax.document import Document
from .static import Bodies, case_entries, tables_reached, walk

_MAX_FULL_RANGE = 21
"""An integer input with at most this many allowed values is tried at every one of them."""
_STEPS = 8
"""Otherwise its range is also cut into this many even steps."""
_MAX_CANDIDATES = 64
"""At most this many values of one input are tried: a ruleset mentioning thousands of numbers
would otherwise make the grid's pairs of them (and the time and memory to cover them) grow as
their square, whatever the budget (a stranger's file of 6 KB took 72 s and 2.2 GB)."""
_PAIRWISE_STEPS = 2_000_000
"""How many look-ups the covering rows may take in all; past it the grid keeps what it has."""


def grid(check: Check, bodies: Bodies, doc: Document, cap: int) -> tuple[list[dict[str, Any]], bool]:
    """At most `cap` input combinations to try, and whether they are every allowed one."""
    consts = _numbers(check, bodies, doc)
    names = [spec.name for spec in check.inputs]
    lists: list[list[Any]] = []
    complete = True
    for spec in check.inputs:
        values, full = _candidates(spec, consts)
        lists.append(values)
        complete = complete and full
    # The most ordinary value of each input: its default, else the middle of its candidates.
    home = [_home(spec, values) for spec, values in zip(check.inputs, lists)]

    def distance(row: tuple[int, ...]) -> tuple[int, int]:
        """Rows nearest the ordinary values first, so that examples in messages read naturally."""
        return (sum(i != h for i, h in zip(row, home)), sum(abs(i - h) for i, h in zip(row, home)))

    if math.prod(len(v) for v in lists) <= cap:
        rows = sorted(product(*(range(len(v)) for v in lists)), key=distance)
    else:
        # Too many for all. Rules compare an input with another, rarely three at a time:
        # every pair of values of every two inputs with the others at their ordinary
        # values, then a covering set that holds every pair at least once more.
        complete = False
        sizes = [len(v) for v in lists]
        near = {  # no more of one input than the rows kept could hold: the nearest `cap`
            tuple(a if k == i else h for k, h in enumerate(home))
            for i in range(len(sizes))
            for a in _nearest(sizes[i], home[i], cap)
        }
        pairs = len(sizes) * (len(sizes) - 1) // 2
        if pairs and len(near) < cap:
            # of each two inputs, the values nearest their ordinary ones: about `cap` rows in all
            most = max(2, math.isqrt(cap // pairs) + 1)
            nearest = [_nearest(n, h, most) for n, h in zip(sizes, home)]
            near |= {
                tuple(a if k == i else b if k == j else h for k, h in enumerate(home))
                for i in range(len(sizes))
                for j in range(i + 1, len(sizes))
                for a in nearest[i]
                for b in nearest[j]
            }
        rows = sorted(near, key=distance)[:cap]
        if len(rows) < cap:
            rows += sorted(set(_pairwise(sizes, cap - len(rows))) - near, key=distance)
    return [{n: lists[k][i] for k, (n, i) in enumerate(zip(names, row))} for row in rows], complete


def _nearest(size: int, home: int, most: int) -> list[int]:
    """The `most` value indexes of an input nearest its ordinary one, the lower first of two as
    near, made without looking at the rest (a scale of 40,000 choices was sorted whole for each
    check that reads it: hunt 13za)."""
    out = [home] if 0 <= home < size and most > 0 else []
    step = 1
    while len(out) < most and (home - step >= 0 or home + step < size):
        if home - step >= 0:
            out.append(home - step)
        if len(out) < most and home + step < size:
            out.append(home + step)
        step += 1
    return out


_KEY_NUMBER = re.compile(r"-?[0-9]{1,30}(?:/[0-9]{1,30}|\.[0-9]{1,30})?")
"""A number in a case key's text: whole, a fraction or a decimal (longer ones are left out)."""
_KEY_NUMBERS = 8
"""At most this many numbers taken from one key."""


def _numbers(check: Check, bodies: Bodies, doc: Document) -> set[Fraction | int]:
    """The numbers the check's expressions and the tables it reaches mention (and case keys)."""
    nodes = [e.node for _, e in check.expressions()]
    for t in tables_reached(check, bodies):
        nodes += bodies[t]
        nodes += [
            ast.Num(k) for k, _ in case_entries(doc, t) if isinstance(k, int) and not isinstance(k, bool)
        ]
        # the numbers in a key of several values or a range ("10..12", "4, 6", "[7, 8]", "1/3"):
        # the grid tries each and its neighbours, as it tries a plain key (hunt 13w: a range key
        # was said never to fire, over a grid that had not tried it)
        nodes += [
            ast.Num(normalize(Fraction(n)))
            for k, _ in case_entries(doc, t)
            if isinstance(k, str)
            for n in _KEY_NUMBER.findall(k)[:_KEY_NUMBERS]
        ]
    found: set[Fraction | int] = set()
    for node in nodes:
        for n in walk(node):
            if isinstance(n, ast.Num):
                found.add(n.value)
    return found


def _candidates(spec: InputSpec, consts: set[Fraction | int]) -> tuple[list[Any], bool]:
    """Values to try for one input, and whether they are every value it allows."""
    if spec.kind == "list":
        return _lists(spec, consts)
    if spec.scale is not None:
        return list(spec.scale.members), True
    if spec.kind == "bool":
        return [False, True], True
    whole = spec.kind == "int"
    picks: set[Any] = set()
    for c in consts:
        for v in (c - 1, c, c + 1):
            if not whole or (isinstance(v, int) or (isinstance(v, Fraction) and v.denominator == 1)):
                picks.add(int(v) if whole else v)
    if spec.default is not None:
        picks.add(spec.default)
    anchors = picks | {0, 1}
    lo = spec.minimum if spec.minimum is not None else min(anchors) - 1
    hi = spec.maximum if spec.maximum is not None else max(anchors) + 1
    full = spec.minimum is not None and spec.maximum is not None and whole
    if whole:
        lo, hi = math.ceil(lo), math.floor(hi)
        if hi - lo + 1 <= _MAX_FULL_RANGE:
            return list(range(lo, hi + 1)), full
    values = {lo, hi} | {p for p in picks if lo <= p <= hi}
    if whole:
        values |= {lo + 1, hi - 1}
        step = (hi - lo) / _STEPS
        values |= {lo + round(step * k) for k in range(1, _STEPS)}
    else:
        values |= {Fraction(lo) + Fraction(hi - lo) * Fraction(k, _STEPS) for k in range(1, _STEPS)}
    return _thinned(sorted(values), spec.default), False


def _thinned(values: list[Any], default: Any) -> list[Any]:
    """At most `_MAX_CANDIDATES` of an input's values, in order: the ends, the default, and the
    rest evenly spread (a ruleset that mentions more numbers than that has some left untried,
    which the grid already says: its rows are not every allowed combination)."""
    if len(values) <= _MAX_CANDIDATES:
        return values
    keep = {values[0], values[-1]} | ({default} if default in values else set())
    spare = _MAX_CANDIDATES - len(keep)
    last = len(values) - 1
    keep |= {values[round(k * last / (spare + 1))] for k in range(1, spare + 1)}
    return sorted(keep)


def _lists(spec: InputSpec, consts: set[Fraction | int]) -> tuple[list[Any], bool]:
    """Lists to try for a list input: for each allowed length, every element at its ordinary
    value, all at one candidate value, and one element at a candidate with the rest ordinary
    (every value each element can take, and the lengths' bounds); never all combinations."""
    element = replace(spec, kind=spec.of or "int", default=None)
    values, _ = _candidates(element, consts)
    home = values[len(values) // 2] if 0 not in values else 0
    hi = spec.max_length if spec.max_length is not None else spec.min_length + 4
    found: dict[Multi, None] = {}
    if spec.default is not None:
        found[spec.default] = None
    for length in range(spec.min_length, hi + 1):
        found[Multi((home,) * length)] = None
    for length in range(max(spec.min_length, 1), hi + 1):
        for v in values:
            found[Multi(tuple(sorted((v, *(home,) * (length - 1)))))] = None
            found[Multi((v,) * length)] = None
    return list(found), False


def _home(spec: InputSpec, values: list[Any]) -> int:
    """The index of an input's most ordinary value: its default, else the middle one."""
    if spec.default is not None:
        for i, v in enumerate(values):
            if type(v) is type(spec.default) and v == spec.default:
                return i
    return 0 if spec.scale is not None or spec.kind == "bool" else len(values) // 2


def _pairwise(sizes: list[int], cap: int) -> list[tuple[int, ...]]:
    """Rows of value indexes in which every pair of values of every two columns appears at
    least once (a greedy covering array; at most `cap` rows, deterministic)."""
    n = len(sizes)
    uncovered = {
        (i, a, j, b)
        for i in range(n)
        for j in range(i + 1, n)
        for a in range(sizes[i])
        for b in range(sizes[j])
    }
    rows: list[tuple[int, ...]] = []
    pending = sorted(uncovered)  # the smallest pair still uncovered, found without a scan a row
    at = 0
    steps = len(pending)
    while uncovered and len(rows) < cap and steps < _PAIRWISE_STEPS:
        while pending[at] not in uncovered:
            at += 1
        i, a, j, b = pending[at]
        row: list[int | None] = [None] * n
        row[i], row[j] = a, b
        for k in range(n):
            if row[k] is None:
                gains = [_gain(row, k, v, uncovered) for v in range(sizes[k])]
                steps += sizes[k] * n
                row[k] = gains.index(max(gains))  # the best value, the smallest of equals
        done = tuple(v if v is not None else 0 for v in row)
        rows.append(done)
        uncovered -= {(p, done[p], q, done[q]) for p in range(n) for q in range(p + 1, n)}
    return rows


def _gain(row: list[int | None], k: int, v: int, uncovered: set[tuple[int, int, int, int]]) -> int:
    """How many uncovered pairs value `v` in column `k` would cover, with the columns filled so far."""
    return sum(
        ((m, row[m], k, v) if m < k else (k, v, m, row[m])) in uncovered
        for m in range(len(row))
        if row[m] is not None
    )
