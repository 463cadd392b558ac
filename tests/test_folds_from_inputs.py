"""Statistics whose arguments are read from the inputs — `count(p, target..10)` with `target` an
input, `highest(p, k)` with `k` one — are folds like their constant kin: the exact evaluator
works the arguments out for each request (`rules.folds_for`) and keeps only the statistics,
never the pool's multisets. Each answer is held to one worked out another way: a binomial sum,
the same check with the argument written as a constant, icepool, or every roll."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from itertools import product
from math import comb

import pytest

import engine
from engine.errors import Diagnostic, EvalError, LimitError
from engine.frozen import replace
from engine.model.ruleset import Expr, Pool
from engine.runtime.rules import folds_for

HITS = """\
rulecraft: 1
name: hits
checks:
  hits:
    inputs:
      n: {type: int, min: 1, max: 60, default: 20}
      target: {type: int, min: 1, max: 11, default: 8}
    roll:
      p: {pool: n, die: 10}
    outcomes: [miss, hit]
    outcome: "'hit' if count(p, AT..10) >= 5 else 'miss'"
"""


def binomial(n: int, target: int) -> Fraction:
    """P(at least 5 of n d10 show target or more)."""
    p = Fraction(max(0, 11 - target), 10)
    return sum((comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(5, n + 1)), Fraction(0))


@pytest.mark.parametrize("target", [1, 4, 8, 10, 11])
def test_successes_counted_against_an_input_are_a_fold(target: int) -> None:
    """Found by trying the most common pool: 20 d10 counting the dice at or over a target read
    from an input listed the pool's 10,015,005 multisets and stopped at `max_states`, where
    `count(p, 8..10)` written out solved at once."""
    rs = engine.load(HITS.replace("AT", "target"))
    d = rs.distribution("hits", n=20, target=target)
    assert d.probability("hit") == binomial(20, target)
    assert d.states <= 21  # the counts 0..20, not the multisets


def test_sixty_dice_against_every_target_in_one_sweep() -> None:
    rs = engine.load(HITS.replace("AT", "target"))
    for target in range(1, 12):
        assert rs.distribution("hits", n=60, target=target).probability("hit") == binomial(60, target)


def test_a_value_reckoned_before_the_roll_is_an_argument_too() -> None:
    text = HITS.replace("AT", "at").replace(
        "    roll:\n", '    let:\n      at: "target - 1 if n > 10 else target"\n    roll:\n'
    )
    rs = engine.load(text)
    assert rs.distribution("hits", n=20, target=9).probability("hit") == binomial(20, 8)
    assert rs.distribution("hits", n=6, target=9).probability("hit") == binomial(6, 9)


KEEP = """\
rulecraft: 1
name: keep
checks:
  keep:
    inputs:
      n: {type: int, min: 1, max: 30, default: 12}
      k: {type: int, min: 0, max: 12, default: 3}
    roll:
      p: {pool: n, die: 12}
    let:
      kept: sum(highest(p, K))
    outcomes: [low, high]
    outcome: "'high' if kept >= 30 else 'low'"
"""


@pytest.mark.parametrize("k", [0, 1, 3, 5])
def test_keeping_k_read_from_an_input_matches_k_written_out(k: int) -> None:
    """12 d12 keeping 3 with the 3 an input had 1,352,078 multisets, over `max_states`."""
    read = engine.load(KEEP.replace("K)", "k)")).distribution("keep", n=12, k=k)
    written = engine.load(KEEP.replace("K)", f"{k})")).distribution("keep", n=12, k=k)
    assert read.value("kept").fractions() == written.value("kept").fractions()
    assert read.probability("high") == written.probability("high")


def test_keeping_three_of_twelve_matches_icepool() -> None:
    icepool = pytest.importorskip("icepool")
    d = engine.load(KEEP.replace("K)", "k)")).distribution("keep", n=12, k=3)
    want = icepool.d12.pool(12).highest(3).sum()
    assert d.value("kept").fractions() == {v: Fraction(want.probability(v)) for v in want.outcomes()}


def test_keeping_k_of_few_dice_agrees_with_every_roll() -> None:
    rs = engine.load(KEEP.replace("K)", "k)").replace("die: 12", "die: 6"))
    for k in range(0, 6):
        kept: Counter[int] = Counter(sum(sorted(r, reverse=True)[:k]) for r in product(range(1, 7), repeat=4))
        assert rs.distribution("keep", n=4, k=k).value("kept").fractions() == {
            v: Fraction(c, 6**4) for v, c in kept.items()
        }


def test_a_k_the_roll_refuses_is_refused_the_same_way() -> None:
    """A k that is no whole number makes no fold: the pool is listed as written, and the error
    is the one a roll meets (RC504), not a missing statistic."""
    rs = engine.load(KEEP.replace("K)", "k)").replace("{type: int, min: 0", "{type: number, min: 0"))
    with pytest.raises(engine.EvalError) as caught:
        rs.distribution("keep", n=3, k=Fraction(3, 2))
    assert caught.value.diagnostics[0].code == "RC504" and "whole number" in str(caught.value)
    assert rs.distribution("keep", n=3, k=2).probability("high") == 0  # 24 at most: still a fold


TEN_AGAIN = """\
rulecraft: 1
name: ten_again
checks:
  pool:
    inputs:
      dice: {type: int, min: 1, max: 10, default: 5}
      target: {type: int, min: 1, max: 10, default: 8}
    roll:
      pool:
        pool: dice
        die: 10
        triggers:
          - {name: ten_again, on: face == 10, may: add}
    outcomes: [failure, success, exceptional]
    outcome:
      - when: count(pool, AT..10) >= 3
        then: exceptional
      - when: count(pool, AT..10) >= 1
        then: success
      - else: failure
"""


@pytest.mark.parametrize("policy", ["always", "never", "optimal"])
def test_kinds_merged_by_a_count_read_from_an_input_follow_the_input(policy: str) -> None:
    """A triggered pool's kinds are merged by what the check counts (`procedure._merged`): with
    the count's range read from an input, the merge is made for each value, and the procedure
    kept for one target is not reused for another (`Pool.procedure_reads`)."""
    read = engine.load(TEN_AGAIN.replace("AT", "target"))
    for target in (8, 6, 9, 8):
        written = engine.load(TEN_AGAIN.replace("AT", str(target)))
        got = read.distribution("pool", policy=policy, dice=4, target=target)
        want = written.distribution("pool", policy=policy, dice=4, target=target)
        assert {o: got.probability(o) for o in want.outcomes.names} == {
            o: want.probability(o) for o in want.outcomes.names
        }
        assert got.states == want.states  # merged alike: three kinds, not ten


def test_a_sampled_roll_reads_the_input_as_written() -> None:
    rs = engine.load(TEN_AGAIN.replace("AT", "target"))
    roll = rs.roll("pool", forced={"pool": [7, 6, 2]}, dice=3, target=6)
    assert roll.outcome.name == "success"
    assert rs.roll("pool", forced={"pool": [7, 6, 2]}, dice=3, target=8).outcome.name == "failure"


DRAW = """\
rulecraft: 1
name: bag
bags:
  bag: {chits: {red: 5, blue: 3, gold: 2}}
checks:
  pick:
    inputs:
      want: {type: choice, choices: bag, default: gold}
    roll:
      d: {draw: bag, count: 4}
    outcomes: [none, some]
    outcome: "'some' if count(d, want) >= 2 else 'none'"
"""


@pytest.mark.parametrize(("colour", "chits"), [("red", 5), ("blue", 3), ("gold", 2)])
def test_a_draw_counted_by_a_colour_read_from_an_input(colour: str, chits: int) -> None:
    """Four chits of ten without replacement, at least two of the chosen colour: hypergeometric."""
    d = engine.load(DRAW).distribution("pick", want=colour)
    ways = sum(comb(chits, j) * comb(10 - chits, 4 - j) for j in range(2, 5))
    assert d.probability("some") == Fraction(ways, comb(10, 4))


def test_a_spent_budget_while_an_argument_is_worked_out_stops_the_request() -> None:
    """Only an argument that fails as the check would (an `EvalError` or `InputError`) makes no
    fold; a spent budget or a passed deadline is the request's end, not a reason to list the
    pool instead (which would do more work before meeting the same limit)."""
    rs = engine.load(HITS.replace("AT", "target"))
    pool = rs.check("hits").roll[0]
    assert isinstance(pool, Pool) and pool.folds is not None and pool.fold_reads == ("target",)
    key = pool.folds[0]
    assert isinstance(key[1], Expr)

    def spent(env: dict[str, object]) -> object:
        raise LimitError([Diagnostic("RC503", "the work budget of 1 units was used up", None)])

    def failing(env: dict[str, object]) -> object:
        raise EvalError([Diagnostic("RC502", "division by zero", None)])

    def with_run(run: Callable[[dict[str, object]], object]) -> Pool:
        return replace(pool, folds=((key[0], replace(key[1], run=run)),))

    assert folds_for(pool, {"target": 8, "n": 20}) == (("count", range(8, 11)),)
    assert folds_for(with_run(failing), {"target": 8, "n": 20}) is None
    with pytest.raises(LimitError):
        folds_for(with_run(spent), {"target": 8, "n": 20})


def test_a_procedure_is_kept_per_value_of_a_count_read_and_not_of_a_k_kept() -> None:
    """Only counts merge a triggered pool's kinds (`procedure._merged`), so the procedure kept for
    a pool is kept per value of what a count reads, and one serves every k that is kept."""
    counted = engine.load(TEN_AGAIN.replace("AT", "target")).check("pool").roll[0]
    kept = (
        engine.load(
            TEN_AGAIN.replace("AT", "8").replace(
                "count(pool, 8..10) >= 3", "sum(highest(pool, target)) >= 25"
            )
        )
        .check("pool")
        .roll[0]
    )
    assert isinstance(counted, Pool) and isinstance(kept, Pool)
    assert "target" in counted.procedure_reads and "target" not in kept.procedure_reads
    assert kept.fold_reads == ("target",)
