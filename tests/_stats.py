"""A chi-square goodness-of-fit test, so sampling is checked against exact probabilities with a
real significance level rather than a hand-picked tolerance (no scipy needed)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction


def _gamma_q(a: float, x: float) -> float:
    """Regularised upper incomplete gamma Q(a, x) (Numerical Recipes, series / continued fraction)."""
    if x <= 0:
        return 1.0
    if x < a + 1:
        term = total = 1.0 / a
        ap = a
        for _ in range(10_000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return 1.0 - total * math.exp(-x + a * math.log(x) - math.lgamma(a))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def chi_square_p(observed: Mapping[object, int], expected: Mapping[object, Fraction]) -> float:
    """p-value of observed counts against exact probabilities; cells expecting < 5 are pooled."""
    n = sum(observed.values())
    for k in observed:
        assert expected.get(k, 0) > 0, f"sampled {k!r}, which the exact distribution says is impossible"
    cells: list[tuple[float, int]] = []
    pool_e, pool_o = 0.0, 0
    for k, p in expected.items():
        e = float(p) * n
        if e < 5:
            pool_e += e
            pool_o += observed.get(k, 0)
        else:
            cells.append((e, observed.get(k, 0)))
    if pool_e > 0:
        if pool_e < 5 and cells:  # still too small to stand alone: joined with the smallest cell
            cells.sort()
            e, o = cells.pop(0)
            pool_e, pool_o = pool_e + e, pool_o + o
        cells.append((pool_e, pool_o))
    if len(cells) < 2:
        return 1.0
    stat = sum((o - e) ** 2 / e for e, o in cells)
    return _gamma_q((len(cells) - 1) / 2, stat / 2)
