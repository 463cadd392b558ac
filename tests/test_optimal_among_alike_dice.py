"""`optimal` chooses how many dice of each kind; which of alike dice go is procedure rule 6's.

Found by hunt 13c: in Chimera's `skill` a 0 still holding its forced reroll can be worth keeping
(that reroll is a second chance at a 4-8), so a player free to pick which 0 a 9 rerolls can beat
`optimal`, which plays within rule 6 ("among alike dice, those still holding unused steps are
rerolled first"). docs/language.md and Chimera's note rerolled-zero say so with these numbers.
The enumeration here is written from the text of the 9s and 0s (rulesets/chimera.yaml, notes
nines, zeros, several-at-once, rerolled-zero), not through the engine's procedure; with the
choice restricted as rule 6 restricts it, it gives the engine's number exactly, and left free,
a little more.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from functools import lru_cache

import engine

ORDER = ["half_pass", "fail", "pass", "crit_fail", "crit_pass"]  # the skill check's majority tie order
RANK = {"crit_fail": 0, "fail": 1, "half_pass": 2, "pass": 3, "crit_pass": 4}
NINES, ZEROS = 0, 1
Die = tuple[int, frozenset[int]]  # a face and the steps it still holds unused


def reading(level: int, face: int) -> str:
    """Chimera's variables of success at levels -1..1 (note ladder)."""
    if face == 0:
        return "crit_fail"
    if face == 9:
        return "crit_pass"
    if face <= 3:
        return "fail"
    if face <= 5:
        return "pass" if level >= 1 else "half_pass" if level == 0 else "fail"
    return "pass"


def majority(reads: list[str]) -> str:
    counts = Counter(reads)
    most = max(counts.values())
    return next(o for o in ORDER if counts.get(o) == most)


def best_chance(n: int, level: int, rule6: bool) -> Fraction:
    """P(pass or better) under best play, the 9s' choice restricted by rule 6 or free."""

    def holds(face: int) -> frozenset[int]:
        return frozenset(s for s, on in ((NINES, face == 9 and n >= 2), (ZEROS, face == 0)) if on)

    def rolled(rest: list[Die], k: int) -> Fraction:
        total = Fraction(0)
        for faces in itertools.product(range(10), repeat=k):
            total += value(tuple(sorted(rest + [(f, holds(f)) for f in faces], key=key)))
        return total / 10**k

    def key(d: Die) -> tuple[int, tuple[int, ...]]:
        return d[0], tuple(sorted(d[1]))

    @lru_cache(None)
    def value(state: tuple[Die, ...]) -> Fraction:
        dice = list(state)
        step = next((s for s in (NINES, ZEROS) if any(s in u for _, u in dice)), None)
        if step is None:
            return Fraction(RANK[majority([reading(level, f) for f, _ in dice])] >= RANK["pass"])
        holders = [j for j, (_, u) in enumerate(dice) if step in u]
        dice = [(f, u - {step}) if j in holders else (f, u) for j, (f, u) in enumerate(dice)]
        grant = len(holders)
        if step == ZEROS:  # forced, on the least valuable 4-8 (the lowest face at these levels)
            eligible = sorted((j for j, (f, _) in enumerate(dice) if 4 <= f <= 8), key=lambda j: dice[j][0])
            taken = set(eligible[:grant])
            return rolled([d for j, d in enumerate(dice) if j not in taken], len(taken))
        eligible = [j for j, (f, _) in enumerate(dice) if f <= 5]
        best = Fraction(-1)
        for k in range(min(grant, len(eligible)) + 1):
            for chosen in itertools.combinations(eligible, k):
                kept_holding = any(
                    dice[o][0] == dice[j][0] and dice[o][1] and not dice[j][1]
                    for j in chosen
                    for o in eligible
                    if o not in chosen
                )
                if rule6 and kept_holding:  # an alike die still holding a step would go first
                    continue
                best = max(best, rolled([d for j, d in enumerate(dice) if j not in chosen], k))
        return best

    return rolled([], n)


def test_optimal_is_best_play_within_rule_6_and_free_picking_does_a_little_better() -> None:
    exact = engine.load("chimera").distribution("skill", dice=4, disadvantage=1, policy="optimal")
    engine_chance = exact.at_least("pass")
    assert engine_chance == best_chance(4, -1, rule6=True) == Fraction(4931899, 15625000)
    free = best_chance(4, -1, rule6=False)
    assert free == Fraction(78913759, 250000000)
    assert free - engine_chance == Fraction(3375, 250000000)  # 1.35e-5, as the docs say


def test_the_nine_takes_the_new_zero_with_its_forced_reroll() -> None:
    """Rolled 0, 0, 4, 4: the 0s reroll the 4s to a 9 and a 0; the 9 rerolls the new 0 (rule 6),
    to a 5: 0, 0, 9, 5 is a critical failure. Rerolling an old 0 instead would leave the new 0
    to force the 5's reroll, and the forced dice would run out (RC405)."""
    rs = engine.load("chimera")
    result = rs.roll(
        "skill", forced={"rolled": [0, 0, 4, 4, 9, 0, 5]}, policy="optimal", dice=4, disadvantage=1
    )
    assert str(result.outcome) == "crit_fail"
