"""The Castle's bags and wound track read straight from the rule text, shared by the tests that
check the engine's scenes against a hand computation (an oracle written independently of the
ruleset): a draw at a skill level, one level worse, and a wound on the track."""

from __future__ import annotations

import math
from fractions import Fraction

RESOLUTION = (15, 20, 10)  # Poor, Average, Good
WOUNDS = (25, 10, 5)  # Light, Serious, Deadly
LEVELS = ("disadvantaged", "average", "advantaged")

Track = tuple[int, int, int, bool]  # lights, serious, deadly, dead
UNHURT: Track = (0, 0, 0, False)


def draw(bag: tuple[int, ...], level: str) -> tuple[Fraction, ...]:
    """P(each result) of a draw at `level`: one bead or chit, or two without replacement keeping
    the best (advantaged) or the worst (disadvantaged), counted over the unordered pairs."""
    total = sum(bag)
    if level == "average":
        return tuple(Fraction(c, total) for c in bag)
    counts = [0] * len(bag)
    for i in range(len(bag)):
        for j in range(i, len(bag)):
            pairs = math.comb(bag[i], 2) if i == j else bag[i] * bag[j]
            counts[j if level == "advantaged" else i] += pairs
    return tuple(Fraction(c, math.comb(total, 2)) for c in counts)


def worse(level: str) -> str:
    return LEVELS[max(LEVELS.index(level) - 1, 0)]


def wounded(track: Track, level: int, tough: bool) -> Track:
    """The track after a wound of `level` (0 light, 1 serious, 2 deadly)."""
    lights, serious, deadly, dead = track
    if dead:
        return track
    threshold = 3 if tough else 2
    lights, serious, deadly = lights + (level == 0), serious + (level == 1), deadly + (level == 2)
    if lights >= threshold:
        lights, serious = lights - threshold, serious + 1
    if serious >= threshold:
        serious, deadly = serious - threshold, deadly + 1
    if (deadly >= 1 and serious >= 1) or deadly >= 2:
        return (0, 0, 0, True)
    return (lights, serious, deadly, False)


def seriously(track: Track) -> bool:
    return track[1] > 0 or track[2] > 0 or track[3]
