"""The compiled ruleset as frozen data: static types, runtime values, checks, randomizers.

Owns what a compiled ruleset *is* (`ruleset`), the values expressions work on (`values`), the
static types (`types`) and what a player plays for (`objective`). No behaviour beyond reading
itself: evaluating is `runtime` and `eval`.
May import: the layers below it — `engine.errors`, `engine.syntax`, `engine.expr` (it needs
only positions and the syntax tree).
"""
