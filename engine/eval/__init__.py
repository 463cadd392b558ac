"""Answers about a compiled check: one seeded roll with its trace (`sample`) and the exact
distribution (`exact`), on one distribution type (`dist`) and one absorbing-Markov-chain solver
(`markov`), with caches owned by the caller (`cache`).
May import: `engine.errors`, `engine.syntax.positions`, `engine.expr`, `engine.model`, `engine.runtime`.
"""
