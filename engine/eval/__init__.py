"""Answers about a compiled check: one seeded roll traced as data (`sample`, `trace`) and the
exact distribution (`exact`), on one distribution type (`dist`), each randomizer's exact table
(`tables`) and one absorbing-Markov-chain solver (`markov`) that reroll procedures use
(`rerolls`). Caches belong to the loaded ruleset and come in through the run context.
May import: the layers below it — `engine.errors`, `engine.syntax`, `engine.expr`, `engine.model`,
`engine.runtime`; not its sibling `engine.compiler`.
"""
