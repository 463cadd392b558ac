"""A load's deadline, read now and then while a ruleset sent as text is read and checked.

A server loads a ruleset sent in a request under the request's deadline (`api.load_source(
deadline=)`). The compile reads the clock as it writes code; reading the YAML and the schema
check are steps of their own, many and alike (a value composed, constructed or copied; a
mapping checked), which count no work units, so they read it here: once every `CLOCK_STEPS`
steps, so a small ruleset reads it never (as a small solve charges too few units to) and a
large one every few milliseconds.
"""

from __future__ import annotations

from collections.abc import Callable

CLOCK_STEPS = 256
"""Steps between two reads of the clock: a YAML value read is one step of each stage (composed,
constructed, copied: some tens of microseconds each) and a mapping checked against the schema
`SCHEMA_STEPS`, so 256 are a few milliseconds."""

SCHEMA_STEPS = 4
"""Steps a mapping checked against the schema counts: it costs about as much as four values'
reading (measured on the shipped rulesets and on a 480 KB text of 3,487 checks)."""


class Clock:
    """The clock of one load, read by calling `read` (it raises once the deadline has passed:
    `Work.check_clock`) once every `every` steps counted by `tick` (`CLOCK_STEPS`; the compile
    counts characters of code instead, `codegen.CLOCK_CODE`). One load's alone: it holds no
    lock."""

    __slots__ = ("read", "every", "left")

    def __init__(self, read: Callable[[], None], every: int = CLOCK_STEPS) -> None:
        self.read = read
        self.every = every
        self.left = every

    def tick(self, steps: int = 1) -> None:
        """Count `steps`; once `every` have been counted since the last read, read the clock.
        Past the deadline every tick reads it again (it raises before the count starts over), so
        a caller that took the error for something it could pass over (the compile, a constant it
        could not fold) meets it again at its next step."""
        self.left -= steps
        if self.left <= 0:
            self.read()
            self.left = self.every
