"""A d20 that adds a die on 16-20, with no cap: rulecraft's exact solve against icepool's.

    python benchmarks/explode.py [--rounds 7]

The chance that the total passes 20, alternating rounds in one process, medians compared.
rulecraft follows the explosion until at most 10^-15 of the chance is left; icepool is asked for
the same depth (a quarter of the chance goes on at each die: 25 dice deep, (1/4)^25 < 10^-15;
its default is 9). Each round of rulecraft's loads the ruleset again (its document is kept, its
distributions are not) and asks for the distribution. Both give 9/40.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from fractions import Fraction

import icepool

import engine

TEXT = """\
rulecraft: 1
name: explode
checks:
  c:
    roll:
      d: {die: 20, triggers: [{name: ex, on: 'face >= 16', must: add}]}
    outcomes: [low, high]
    outcome: "'high' if d > 20 else 'low'"
"""
DEPTH = 25


def ours() -> Fraction:
    return engine.load(TEXT).distribution("c").probability("high")


def theirs() -> Fraction:
    die = icepool.d20.explode(range(16, 21), depth=DEPTH)
    return Fraction(die.probability(">", 20))


def _timed(fn: Callable[[], Fraction]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    assert ours() == theirs() == Fraction(9, 40)  # and a first round of each, not timed
    mine, peer = [], []
    for _ in range(args.rounds):
        mine.append(_timed(ours))
        peer.append(_timed(theirs))
    a, b = statistics.median(mine), statistics.median(peer)
    print(
        f"rulecraft {a * 1e3:.1f} ms, icepool {b * 1e3:.1f} ms: ratio {a / b:.2f} (median of {args.rounds})"
    )


if __name__ == "__main__":
    main()
