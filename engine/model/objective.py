"""What a player plays for: the objective the `optimal` policy maximises, stated once.

The exact solver scores every option with it, the sampler's trace names it, `show` and the
command line describe it; none of them decodes it on its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from ..frozen import frozen
from .values import Symbol

KINDS = ("best_first", "at_least", "mean_rank")


MEAN_RANK = "mean rank"
"""The label of a `mean_rank` objective, whose score is a rank, not a chance (a trace shows it
as a number where it shows a chance as a percentage)."""


@frozen
class Objective:
    """`best_first`: the chance of the best outcome, then of the next best or better, and so on;
    `at_least`: the chance of `target` or better; `mean_rank`: the mean rank of the outcome."""

    kind: str = "best_first"
    target: Symbol | None = None

    def score(
        self, members: tuple[Symbol, ...], weights: Mapping[Symbol, int], total: int
    ) -> tuple[Fraction, ...]:
        """How good an outcome distribution (weights over `total`) is for the player; larger is better.
        Each part is an expected value over the outcomes, so the score of a mixture is the mixture
        of the scores: best play keeps a state's score and never its distribution (`BestPlay`)."""
        if self.kind == "at_least":
            target = self.target
            assert target is not None
            return (Fraction(sum(w for s, w in weights.items() if s >= target), total),)
        if self.kind == "mean_rank":
            return (Fraction(sum(w * s.rank for s, w in weights.items()), total),)
        out = []
        for m in reversed(members):
            out.append(Fraction(sum(w for s, w in weights.items() if s >= m), total))
        return tuple(out)

    def parts(self, members: tuple[Symbol, ...]) -> int:
        """How many numbers `score` gives for an outcome scale of these members."""
        return 1 if self.kind in ("at_least", "mean_rank") else len(members)

    def label(self, members: tuple[Symbol, ...], part: int = 0) -> str:
        """Part `part` of the score (the one it leads with by default), as a trace names it."""
        if self.kind == "at_least":
            assert self.target is not None
            return f"P(at least {self.target.name})"
        if self.kind == "mean_rank":
            return MEAN_RANK
        return f"P({members[-1].name})" if part == 0 else f"P({members[-1 - part].name} or better)"

    @staticmethod
    def deciding(score: tuple[Fraction, ...], other: tuple[Fraction, ...] | None) -> int:
        """The part of `score` that tells it from `other`: the first that differs (0 when none
        does, or there is no other), so a trace names what decided a choice, not a part tied."""
        if other is None:
            return 0
        return next((i for i, (a, b) in enumerate(zip(score, other)) if a != b), 0)

    def describe(self) -> str:
        """What the player plays for, in words."""
        if self.kind == "at_least":
            assert self.target is not None
            return f"at least {self.target.name}"
        return {"best_first": "the best outcome first", "mean_rank": "the mean rank"}[self.kind]
