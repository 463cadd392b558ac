"""What every evaluator calls, stated once: builtins, pool statistics, inputs, limits, the
first matching rule, values known before the roll, the reroll and redraw procedure, policies.

The sampler, the exact evaluator and the linter all read a check through these functions, so
no rule of the language is restated per evaluator.
May import: the layers below it — `engine.errors`, `engine.syntax`, `engine.expr`, `engine.model`.
"""
