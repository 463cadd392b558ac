"""Each randomizer's exact distribution of first-roll values, as a `Dist` with whole weights.

A die gives its faces; a pool the multisets of its readings (after `each`) with multinomial
weights, or — when the check reads it only through statistics (`Pool.folds`) — the joint
distribution of just those statistics by a dynamic programme; a draw the multisets of chits with
hypergeometric counts. Tables are kept in the ruleset's own bounded cache, so a sweep reuses them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping
from itertools import accumulate, repeat
from operator import mul
from typing import Any

from ..model.ruleset import Check, Die, Draw, Pool, Randomizer, reads
from ..model.values import Multi, Symbol
from ..runtime.cache import BoundedCache
from ..runtime.context import RunContext
from ..runtime.folds import FOLDS, Summary, in_order
from ..runtime.limits import enforce, roll_count
from ..runtime.multisets import compositions, kind_multisets, way_units
from ..runtime.rules import concrete, die_readings, face_readings, folds_for
from ..runtime.work import made_units, meter, product_units
from .dist import Dist
from .foldcost import charge_made, fold_price, longest_fraction, state_units, units_by_left


def randomizer_table(r: Randomizer, env: dict[str, Any], ctx: RunContext) -> Dist:
    """Every value randomizer `r` can first show for this environment, with its weight."""
    limits = ctx.limits
    if not isinstance(r, Draw) and r.faces_expr is not None:
        r = concrete(r, env, ctx.caches)  # faces read from inputs or earlier dice: worked out now
    if isinstance(r, Die):  # the common case, without a callback: a first request runs it cold
        tables = ctx.caches.tables
        found: Dist | None = tables.lookup(("die", r.faces))  # `get` without its frame: hashable
        if found is None:  # made when the ruleset loaded (`keep_die_tables`), unless let go since
            found = _kept_die(r.faces, tables)
        return found
    folds = folds_for(r, env, ctx.caches)  # arguments read from the inputs worked out now
    if isinstance(r, Pool) and r.per:
        roll_count(r.count, env, r, limits)
        dice = die_readings(r, env)
        if folds is not None and all(key[0] != "majority" for key in folds):  # majority needs tallies
            return _cached(
                ctx, ("per-folded", dice, folds), lambda: _per_folded(dice, folds, limits.max_states, r)
            )
        return _cached(ctx, ("per", dice), lambda: _per_multisets(dice, limits.max_states, r))
    if isinstance(r, Pool):
        n = roll_count(r.count, env, r, limits)
        readings = _face_readings(r, env, ctx) if n else ()  # no die: no face is read
        if folds is not None:
            return _cached(
                ctx,
                ("folded", readings, n, folds, False),
                lambda: _folded(readings, n, folds, False),
                lambda d: _weigh_folded(d, len(folds)),
            )
        states = math.comb(n + len(readings) - 1, len(readings) - 1) if readings else 1  # no die: one
        enforce("exact states", states, limits.max_states, r.span, "max_states")
        return _cached(ctx, ("multisets", readings, n), lambda: _multisets(readings, n))
    assert isinstance(r, Draw)
    n = roll_count(r.count, env, r, limits)
    contents = r.bag.contents()
    if folds is not None:
        return _cached(
            ctx,
            ("folded", contents, n, folds, True),
            lambda: _folded(contents, n, folds, True),
            lambda d: _weigh_folded(d, len(folds)),
        )
    return _cached(
        ctx, ("draws", contents, n), lambda: _hypergeometric(contents, n), lambda d: _weigh_draws(d, n)
    )


def weighted_pool(
    dice: Iterable[tuple[tuple[Any, int], int]],
    total: int,
    n: int,
    folds: tuple[tuple[Any, ...], ...] | None,
    max_states: int,
    span: Any,
) -> Dist:
    """`n` independent dice alike, each showing a reading with a weight out of `total` and
    marked by how its own procedure was cut (0, or one flag): `dice` is ((reading, cut), weight)
    pairs (a die with triggers solved once). The pool's table over (its value, the flags of its
    dice together): the pool as any pool of dice of those weights is (the multisets of readings,
    or the joint statistics when it is read through folds), worked out once over every die and
    once over the dice that were not cut; rolls with a cut die are the difference."""
    every: dict[Any, int] = {}
    whole: dict[Any, int] = {}
    flags = 0
    for (value, cut), w in dice:
        every[value] = every.get(value, 0) + w
        if cut:
            flags |= cut
        else:
            whole[value] = whole.get(value, 0) + w

    def pool(categories: dict[Any, int]) -> Mapping[Any, int]:
        readings = tuple(categories.items())
        if not readings:
            return {}
        if folds is not None:
            return _folded(readings, n, folds, False).weights
        states = math.comb(n + len(readings) - 1, len(readings) - 1)
        enforce("exact states", states, max_states, span, "max_states")
        return _multisets(readings, n).weights

    weights = {(v, 0): w for v, w in pool(whole if flags else every).items()}
    if flags:
        for v, w in pool(every).items():
            rest = w - weights.get((v, 0), 0)
            if rest:
                weights[(v, flags)] = rest
    return Dist(weights, total**n)


def _weigh_draws(table: Dist, n: int) -> int:
    """What a table of draws of `n` chits holds: per multiset its entry, its chits and its tally
    (counted, not walked: weighing a new table by walking it cost more than making it)."""
    return 200 + (150 + 24 * n) * len(table)


def _weigh_folded(table: Dist, folds: int) -> int:
    """What a table of `folds` statistics holds: per point its `Summary`, the summary's dict of
    results and its weight (counted, not walked: walking a small pool's new table was a fifth of
    the pool's first distribution; `tests/test_caches.py` holds the count at or above the walk)."""
    return 300 + (350 + 150 * folds) * len(table)


def _face_readings(r: Pool, env: dict[str, Any], ctx: RunContext) -> tuple[tuple[Any, int], ...]:
    """`face_readings`, kept per pool and per value of what its `each` reads besides the face: a
    sweep of distributions reads the same faces the same way each time (ten table calls for a d10)."""
    tables = ctx.caches.tables
    known = tables.get(("each reads", id(r)))
    if known is None or known[0] is not r:  # an id can be reused by a later pool
        names = reads(r.each.node) - {"face"} if r.each is not None else set()  # a redraw count too
        known = (r, tuple(sorted(names)))
        tables.put(("each reads", id(r)), known, 64 + 64 * len(names))
    key = ("readings", id(r), *((type(v), v) for v in map(env.get, known[1])))  # True == 1, not alike
    found = tables.get(key)
    if found is not None and found[0] is r:
        return found[1]  # type: ignore[no-any-return]
    made = face_readings(r, env)
    tables.put(key, (r, made), 64 + 100 * len(made))
    return made


def _cached(
    ctx: RunContext, key: Hashable, make: Callable[[], Dist], weigh: Callable[[Dist], int] | None = None
) -> Dist:
    return ctx.caches.tables.get_or_make(key, make, weigh)


def keep_die_tables(checks: Iterable[Check], tables: BoundedCache) -> None:
    """The table of each die of constant faces in `checks`, made now, when the ruleset loads, and
    kept in its `tables` for `randomizer_table`: a die's faces are known at load, and made on the
    first request its table was a sixth of a small check's first distribution (code and data met
    for the first time there). Dice with equal faces share one table."""
    for check in checks:
        for r in check.roll:
            if isinstance(r, Die) and r.faces_expr is None and r.faces:
                if tables.lookup(("die", r.faces)) is None:
                    _kept_die(r.faces, tables)


def _kept_die(faces: tuple[int, ...], tables: BoundedCache) -> Dist:
    """A die's table made and kept under `("die", faces)`: weighed by a formula, not walked
    (walking a twelve-face table took half of a small check's first distribution): per face a
    dict entry, a whole number and a weight (a face that is a scale value belongs to the model)."""
    made = _die(faces)
    tables.put(("die", faces), made, 400 + 120 * len(made.weights))
    return made


def _die(faces: tuple[int, ...]) -> Dist:
    weights = dict.fromkeys(faces, 1)
    if len(weights) < len(faces):  # a face written more than once weighs more
        weights = {}
        for f in faces:
            weights[f] = weights.get(f, 0) + 1
    return Dist(weights, len(faces))


def _multisets(readings: tuple[tuple[Any, int], ...], n: int) -> Dist:
    """Every multiset of `n` independent readings with its multinomial weight."""
    values = [v for v, _ in readings]
    weights: dict[Any, int] = {}
    for counts, weight in kind_multisets(tuple(w for _, w in readings), n):
        items = tuple(v for v, c in zip(values, counts) for _ in range(c))
        tally = tuple((v, c) for v, c in zip(values, counts) if c)
        weights[Multi(items, tally=tally)] = weight
    return Dist(weights, sum(w for _, w in readings) ** n)


def _per_multisets(dice: tuple[tuple[tuple[Any, int], ...], ...], max_states: int, r: Pool) -> Dist:
    """Every multiset of readings of dice that are not alike (a pool over a list), die by die:
    a state is the sorted readings so far (by each reading's first place in the dice' lists)."""
    order: dict[Any, int] = {}
    for readings in dice:
        for v, _ in readings:
            order.setdefault(v, len(order))
    states: dict[tuple[Any, ...], int] = {(): 1}
    work = meter()
    for readings in dice:
        nxt: dict[tuple[Any, ...], int] = {}
        for items, w in states.items():
            work.charge(len(readings))
            for v, k in readings:
                key = tuple(sorted((*items, v), key=order.__getitem__))
                nxt[key] = nxt.get(key, 0) + w * k
        enforce("exact states", len(nxt), max_states, r.span, "max_states", counting=True)
        states = nxt
    total = math.prod(sum(k for _, k in readings) for readings in dice)
    return Dist({Multi(items): w for items, w in states.items()}, total)


def _per_folded(
    dice: tuple[tuple[tuple[Any, int], ...], ...],
    keys: tuple[tuple[Any, ...], ...],
    max_states: int,
    r: Pool,
) -> Dist:
    """The joint distribution of the statistics of dice that are not alike, die by die: a state
    is each statistic's partial fold, and states that agree are merged, at most `max_states` of
    them after each die (as `_per_multisets`). A reading folded into a state is a step, charged
    as `_folded`'s (`foldcost.state_units`), at the fraction rate once a die shows a fraction
    (each later state may hold one)."""
    folds = [(FOLDS[key[0]], key[1:]) for key in keys]
    price = fold_price(folds, (v for readings in dice for v, _ in readings))
    states: dict[tuple[Any, ...], int] = {tuple(f.init(a) for f, a in folds): 1}
    work = meter()
    fractions = False
    for readings in dice:
        reading_bits = longest_fraction(v for v, _ in readings)
        fractions = fractions or reading_bits > 0
        nxt: dict[tuple[Any, ...], int] = {}
        bits = reading_bits if fractions else None
        flat = units_by_left(price, 1, False, False, bits)
        for partial, w in states.items():
            # a step for each of the die's readings
            units = flat[1] if flat is not None else state_units(price, partial, 1, 1, False, bits)
            work.charge(len(readings) * units)
            for v, k in readings:
                key = tuple(f.step(p, v, 1, a) for (f, a), p in zip(folds, partial))
                nxt[key] = nxt.get(key, 0) + w * k
        enforce("exact states", len(nxt), max_states, r.span, "max_states", counting=True)
        states = nxt
    finals: list[tuple[Summary, int]] = []
    for partial, w in states.items():
        charge_made(work, partial, price)
        finals.append((Summary({key: f.final(p, a) for key, (f, a), p in zip(keys, folds, partial)}), w))
    total = math.prod(sum(k for _, k in readings) for readings in dice)
    return Dist(_merged(finals), total)


def _hypergeometric(contents: tuple[tuple[Symbol, int], ...], k: int) -> Dist:
    """Every multiset of `k` chits drawn without replacement, weighted by C(N_i, c_i) products."""
    weights: dict[Any, int] = {}
    work = meter()
    units = way_units(len(contents))
    comb = math.comb
    for counts in compositions(k, len(contents)):
        work.charge(units)
        weight = 1
        items: list[Symbol] = []
        tally = []
        # one loop and no generators (a draw's table is made inside a request's first
        # computation); a colour not drawn weighs C(avail, 0) = 1 and adds nothing
        for (s, avail), c in zip(contents, counts):
            if c:
                weight *= comb(avail, c)
                items += (s,) * c
                tally.append((s, c))
        if weight:
            weights[Multi(tuple(items), tally=tuple(tally))] = weight
    return Dist(weights, comb(sum(n for _, n in contents), k))


def _folded(
    categories: tuple[tuple[Any, int], ...],
    n: int,
    keys: tuple[tuple[Any, ...], ...],
    without_replacement: bool,
) -> Dist:
    """The joint distribution of a pool's (or draw's) statistics, by dynamic programming.

    Categories are taken one at a time; a state is (dice still to place, each statistic's
    partial fold), and states that agree are merged. For independent dice a category of
    weight w taking c of the r remaining dice weighs C(r, c)·w^c; for a draw without
    replacement from N_i chits it weighs C(N_i, c), and the last category takes the rest.
    A statistic that keeps readings (`highest(p, k)`) is charged for them too, and a step over
    fractions for what they cost (`foldcost.state_units`).
    """
    folds = [(FOLDS[key[0]], key[1:]) for key in keys]
    # Heaviest categories first: a leader emerges sooner, so more states settle early.
    categories = tuple(sorted(categories, key=lambda vw: -vw[1]))
    orders = {f.order for f, _ in folds if f.order}  # one at most: the compiler mixes none
    if orders:  # a fold that must see the readings in order (`sum(highest(p, k))`) sees them so
        categories = tuple(in_order(categories, orders.pop()))
    single = len(folds) == 1
    if single and not without_replacement:
        return _folded_one(categories, n, keys[0])
    done: dict[tuple[Any, ...], int] = {}
    states: dict[tuple[Any, ...], int] = {(n, *(f.init(a) for f, a in folds)): 1}
    work = meter()
    wide = _wide(categories, n)
    price = fold_price(folds, (v for v, _ in categories))
    bits = longest_fraction(v for v, _ in categories) or None  # None: no reading is a fraction
    flat = {more: units_by_left(price, n, more, more, bits) for more in (False, True)}
    for index, (value, weight) in enumerate(categories):
        rest = categories[index + 1 :]
        by_left = flat[bool(rest)]
        rest_weight = sum(w for _, w in rest)
        rest_bits = rest_weight.bit_length() if wide else 0
        nxt: dict[tuple[Any, ...], int] = {}
        for (left, *partial), w in states.items():
            # a step per die count (the last category's one: it takes every die left), each a
            # product of whole numbers that grow with the dice (the state's weight by the ways;
            # once settled, by the ways of the dice left too: below)
            steps = left + 1 if rest else 1
            units = (
                by_left[left]
                if by_left is not None
                else state_units(price, partial, left, steps, bool(rest), bits)
            )
            if wide:
                w_bits = w.bit_length() + left * (weight.bit_length() + 1)
                work.charge(units + steps * product_units(w_bits, w_bits))
            else:
                work.charge(units)
            settled_bits = 0
            choices = range(left, left + 1) if not rest else range(left + 1)
            for c in choices:
                if without_replacement:
                    if c > weight:
                        continue
                    grow = math.comb(weight, c)
                else:
                    grow = math.comb(left, c) * weight**c
                if not c:
                    new = partial
                elif single:
                    new = [folds[0][0].step(partial[0], value, c, folds[0][1])]
                else:
                    new = [f.step(p, value, c, a) for (f, a), p in zip(folds, partial)]
                remaining = left - c
                if remaining and (
                    folds[0][0].settled(new[0], remaining)
                    if single
                    else all(f.settled(p, remaining) for (f, _), p in zip(folds, new))
                ):
                    # Whatever the other dice show, the statistics stay: count their ways at once.
                    ways = (
                        math.comb(rest_weight, remaining) if without_replacement else rest_weight**remaining
                    )
                    key = (0, *new)
                    done[key] = done.get(key, 0) + w * grow * ways
                    settled_bits += remaining * rest_bits
                    continue
                key = (remaining, *new)
                nxt[key] = nxt.get(key, 0) + w * grow
            if settled_bits:  # the ways of the dice left: a power and a product, each as long
                work.charge(2 * product_units(w_bits, settled_bits))
        states = nxt
    for key, w in states.items():
        done[key] = done.get(key, 0) + w
    finals: list[tuple[Summary, int]] = []
    for (left, *partial), w in done.items():
        if left == 0 and w:
            charge_made(work, partial, price)
            results = {key: f.final(p, a) for key, (f, a), p in zip(keys, folds, partial)}
            finals.append((Summary(results), w))
    total = sum(w for _, w in categories)
    return Dist(_merged(finals), math.comb(total, n) if without_replacement else total**n)


def _merged(finals: list[tuple[Summary, int]]) -> dict[Summary, int]:
    """The weight of each summary the final states of a fold give, those equal merged. Most
    states give a summary of their own, so the table is made hashing each once: a kept pool's
    `Multi` counts its readings to hash: the 167,960 pools of 11 d10 keeping 11 took 10-14 µs
    each hashed twice (`get`, then set), 6-9.5 once (the loaded machine). Only where two are
    equal (a majority's states that end alike) are they merged again, hashed twice."""
    out = dict(finals)
    if len(out) < len(finals):
        out = {}
        for summary, w in finals:
            out[summary] = out.get(summary, 0) + w
    return out


def _wide(categories: tuple[tuple[Any, int], ...], n: int) -> bool:
    """Whether a fold of `n` dice over these categories can multiply numbers long enough to be
    charged for their length (`product_units`): every weight it makes is at most the total to the
    n times 2 to the n (the ways to choose), so a pool whose bound stays short is charged a unit
    a step and asked nothing more (a majority of 10 d10 ran 13 % more instructions when every
    state measured its weight)."""
    bound = n * (sum(w for _, w in categories).bit_length() + 1)
    return product_units(bound, bound) > 0


def _folded_one(categories: tuple[tuple[Any, int], ...], n: int, key: tuple[Any, ...]) -> Dist:
    """`_folded` for one statistic of independent dice (a majority, a sum, a count), the same
    programme and the same work charged a state, with what repeats worked out once (and, in a
    `wide` fold, charged as it is made: `_powers`, `_ways`): the ways a category takes c of the
    dice left (the same for every state with as many left) and, for a majority,
    a category's step from one leader by every c (the same for every count of dice left) and
    whether a leader is settled with so many left."""
    fold, args = FOLDS[key[0]], key[1:]
    step, settled = fold.step, fold.settled
    price = fold_price([(fold, args)], (v for v, _ in categories))
    bits = longest_fraction(v for v, _ in categories) or None  # None: no reading is a fraction
    flat = {last: units_by_left(price, n, True, not last, bits) for last in (False, True)}
    # A majority's partial fold is its leader, the same for many counts of dice left, and its
    # step is the costliest: kept. A sum's partials rarely meet again, so keeping them would
    # cost more than it saves (and each unit of work charged would take longer).
    reuse = fold.name == "majority"
    done: dict[tuple[Any, ...], int] = {}
    states: dict[tuple[int, Any], int] = {(n, fold.init(args)): 1}
    work = meter()
    wide = _wide(categories, n)
    for index, (value, weight) in enumerate(categories):
        last = index == len(categories) - 1
        by_left = flat[last]
        rest_weight = sum(w for _, w in categories[index + 1 :])
        powers = _powers(weight, n, wide)
        rest_powers = _powers(rest_weight, n, wide)
        rest_bits = [p.bit_length() for p in rest_powers] if wide else [0] * (n + 1)
        ways: dict[int, list[int]] = {}  # per dice left, the ways to take c of them, by c
        ways_bits: dict[int, int] = {}  # per dice left, the bits of the ways, all c together
        longest: dict[int, int] = {}  # per dice left, the bits of the most ways
        steps: dict[Any, list[Any]] = {}  # per leader, where c more dice of this category take it
        calm: dict[Any, list[bool]] = {}  # per leader, whether it is settled with r dice left, by r
        nxt: dict[tuple[int, Any], int] = {}
        get = nxt.get
        for (left, partial), w in states.items():
            grows = ways.get(left)
            if grows is None:
                grows = ways[left] = _ways(left, powers, weight, wide)
                if wide:
                    sizes = [g.bit_length() for g in grows]
                    ways_bits[left], longest[left] = sum(sizes), max(sizes)
            # a step per die count, each a product of whole numbers that grow with the dice (the
            # state's weight by the ways; once settled, by the ways of the dice left too: below)
            if by_left is not None:
                units = by_left[left]
            else:
                units = state_units(price, (partial,), left, left + 1, not last, bits)
            if wide:
                w_bits = w.bit_length()
                work.charge(units + product_units(w_bits, ways_bits[left]))
            else:
                work.charge(units)
            settled_bits = 0
            moved: list[Any] | None = None
            if reuse and not last:  # the last category takes every die left: one step a state
                moved = steps.get(partial)
                if moved is None:
                    moved = steps[partial] = [partial]
                if len(moved) <= left:  # each step worked out once, as far as the dice left reach
                    moved.extend([step(partial, value, c, args) for c in range(len(moved), left + 1)])
            for c in range(left, left + 1) if last else range(left + 1):
                if moved is not None:
                    new = moved[c]
                elif c:
                    new = step(partial, value, c, args)
                else:
                    new = partial
                remaining = left - c
                if remaining:
                    if moved is not None:
                        flags = calm.get(new)
                        if flags is None:
                            flags = calm[new] = []
                        if len(flags) <= remaining:
                            flags.extend([settled(new, r) for r in range(len(flags), remaining + 1)])
                        still = flags[remaining]
                    else:
                        still = settled(new, remaining)
                    if still:
                        # Whatever the other dice show, the statistic stays: count their ways at once.
                        k = (0, new)
                        done[k] = done.get(k, 0) + w * grows[c] * rest_powers[remaining]
                        settled_bits += rest_bits[remaining]
                        continue
                k = (remaining, new)
                nxt[k] = get(k, 0) + w * grows[c]
            if settled_bits:
                work.charge(product_units(w_bits + longest[left], settled_bits))
        states = nxt
    for k, w in states.items():
        done[k] = done.get(k, 0) + w
    finals: list[tuple[Summary, int]] = []
    for (left, partial), w in done.items():
        if left == 0 and w:
            charge_made(work, (partial,), price)
            finals.append((Summary({key: fold.final(partial, args)}), w))
    total = sum(w for _, w in categories)
    return Dist(_merged(finals), total**n)


def _powers(base: int, n: int, wide: bool) -> list[int]:
    """`base` to the 0th to the `n`th power, each the one before times `base` (each worked out
    anew, the powers of a 53-bit weight to 2,000 took 0.9 s, now 20 ms). In a `wide` fold they are
    charged before they are made: a product of `base` by each power, each power written."""
    if wide:
        bits = base.bit_length() * n * (n + 1) // 2  # the powers' bits, all together, at most
        meter().charge(product_units(base.bit_length(), bits) + made_units(bits))
    return list(accumulate(repeat(base, n), mul, initial=1))


def _ways(left: int, powers: list[int], weight: int, wide: bool) -> list[int]:
    """The ways a category of this `weight` (whose `powers` these are) takes c of `left` dice,
    by c: C(left, c)·weight^c, each binomial from the one before (`math.comb` anew cost 85 µs
    each at 2,000 dice, a hundred times as much). In a `wide` fold they are charged before they
    are made: each binomial (at most `left` bits) made and multiplied by its power."""
    if wide:
        power_bits = weight.bit_length() * left * (left + 1) // 2  # at most
        made = 3 * left * (left + 1) + power_bits  # a binomial's product, quotient and its ways
        meter().charge(product_units(left, power_bits) + made_units(made))
    binomial = 1
    out = [1]
    for c in range(1, left + 1):
        binomial = binomial * (left - c + 1) // c
        out.append(binomial * powers[c])
    return out
