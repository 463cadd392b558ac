"""What a roll made one by one costs — its own work (`own_units`: `ROLL`, `POOL` a pool, `DRAW` a
draw of chits) and its dice's, to draw and to read (`dice_units`) — the one rule (`roll_units`)
every such roll is charged by: a batch's rolls (`batch.py`), a scene's (`scenes/play.py`), a
campaign's action and its replay, a stored scene's replay and a recorded roll
(`state/campaign.py`). The sampler's compiled code charges none of it itself, so a roll of plain
dice charged nothing for its dice: a hundred d1000 cost what one did; and until the rule had one
home, a scene's step or a campaign's action was charged its dice alone, a draw of chits 6 units
less than the same roll in a batch. (`Ruleset.roll`, one roll alone, is not metered when its table work
cannot reach the clock's first look, `work.unstoppable`: its dice are bounded by its text.)"""

from __future__ import annotations

from collections.abc import Mapping

from ..expr import ast
from ..model.ruleset import Check, Draw, Pool, after_roll_expressions
from ..runtime.cache import BoundedCache
from .trace import Result

QUARTERS = 4
"""A die's weight (`die_weights`) is in quarters of a unit: drawing a face, or reading it once
through a statistic, is about a quarter of a microsecond (by CPU time on the 2-core machine, rolled
one by one: each die more in a pool read once 0.56 µs, each chit more in a draw read once 0.4 µs,
2 quarters each). A draw's own work, whatever its count (`random.sample` over the bag's every
chit: 5.5 µs), is charged apart (`DRAW`), as a pool's is (`POOL`)."""

ROLL = 4
"""Units each roll made one by one is charged for its own: the sampler's call, its result and its
counting, 5-15 µs a roll of a die or two (measured on the 2-core machine, rolled in a batch:
a check of two d10 read a few times, 6 µs). Its dice are charged besides (`die_weights`)."""

POOL = 2
"""Units each roll is charged besides for each pool it rolls: the pool's dice made into a value
the check reads (a pool of one d1000 rolls in 11 µs, a die alone in 6)."""

DRAW = 6
"""Units each roll is charged besides for each draw of chits it makes, whatever its count: the
count worked out, `random.sample` over the bag's every chit, the chits made a value the check
reads (by CPU time on the 2-core machine, best of 15-25 rounds of 2,000 rolls: a check of one
draw of no chit or one 10.2-11.1 µs a roll, as a check of a pool of one die, 10.3; each draw
more 5.5 µs, each pool more 4.8). Its chits are charged besides, as dice are (`die_weights`).
Charged none, checks of a draw or three ran 1.8-3.5 µs a unit where checks of dice ran about 1
(`docs/performance.md`): now 0.9-1.25."""

EACH = 3
"""What a pool's `each` adds to the weight of each of its dice (in quarters of a unit: an
expression run per die, about 0.75 µs)."""


def die_weights(check: Check) -> dict[str, int]:
    """What each die or chit a roll of `check` draws costs, in quarters of a unit, by its
    randomizer's name: drawing it (1), running the pool's `each` on it (`EACH`), and once more
    for each place after the roll that reads the randomizer (`sum(p)`, `highest(p, 3)`, a
    trigger's condition...: each goes over every die of it). Worked out once per check by its
    caller (a batch, a scene's steps), from the check's expressions, not once per roll."""
    reads: dict[str, int] = {}
    posts = [let for let in check.lets if not let.before_roll]
    for expr in after_roll_expressions(check.roll, posts, check.outcome, check.outputs):
        stack = [expr.node]
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Name):
                reads[node.id] = reads.get(node.id, 0) + 1
            stack.extend(ast.children(node))
    weights = {}
    for r in check.roll:
        each = EACH if isinstance(r, Pool) and r.each is not None else 0
        weights[r.name] = 1 + each + reads.get(r.name, 0)
    return weights


WEIGHTS_BYTES = 512
"""What a check's kept `die_weights` are weighed at in a cache (a few names and numbers)."""


def kept_weights(check: Check, cache: BoundedCache) -> Mapping[str, int]:
    """`check`'s `die_weights`, kept in `cache` (the ruleset's bindings) for a caller that rolls it
    once per request, an action or a replay's every event: worked out, a walk over the check's
    expressions took 140-190 µs for two shipped rulesets' checks, several times the roll."""
    key = ("die weights", check.name)
    kept = cache.get(key)
    if kept is None or kept[0] is not check:
        kept = (check, die_weights(check))
        cache.put(key, kept, WEIGHTS_BYTES)
    return kept[1]  # type: ignore[no-any-return]


def dice_units(weights: Mapping[str, int], result: Result) -> int:
    """The units for the dice and chits `result` drew, each its weight (`weights`, the check's
    `die_weights`; 1 for one not there), in whole units."""
    quarters = 0
    for name, drawn in result.drawn.items():
        quarters += len(drawn) * weights.get(name, 1)
    return quarters // QUARTERS


def own_units(check: Check) -> int:
    """The units a roll of `check` is charged for its own, whatever it draws: `ROLL`, `POOL` for
    each pool and `DRAW` for each draw of chits (a batch charges them before each roll, with a
    look at the clock), and the size of its code past a roll's own (`Check.code_units`)."""
    own = ROLL + check.code_units
    return own + sum(POOL if isinstance(r, Pool) else DRAW if isinstance(r, Draw) else 0 for r in check.roll)


def roll_units(check: Check, weights: Mapping[str, int], result: Result) -> int:
    """What one roll of `check` that gave `result` is charged, whoever rolled it: its own units
    (`own_units`) and its dice's (`dice_units`, by `weights`, the check's `die_weights`)."""
    return own_units(check) + dice_units(weights, result)
