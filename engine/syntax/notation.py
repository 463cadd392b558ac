"""Dice notation (`2d6`, `d%`, `4dF`, `d6+1`), which a ruleset does not take but its author may
write: the patterns that both the schema's hints (a roll entry written as notation alone) and the
compiler's (a die's faces or a pool's count written so) read, so both know the same texts. Each
is matched whole (`fullmatch`), spaces around it allowed."""

from __future__ import annotations

import re
from typing import Final

DICE: Final = re.compile(r"\s*(?P<count>[0-9]*)\s*[dD]\s*(?P<sides>[0-9]+|%)\s*")
"""`d20`, `2d6`, `d%`: a number of dice of some sides."""

PLUS_MINUS: Final = re.compile(r"\s*(?P<count>[0-9]*)\s*(?:[dD]\s*)?[fF]\s*")
"""The notation `dF`, `4dF`, `F`: a die of the faces -1, 0 and +1 (two of each on six sides, the
same odds as three), `die: "-1..1"`."""

MODIFIED: Final = re.compile(
    r"\s*(?P<count>[0-9]*)\s*[dD]\s*(?P<sides>[0-9]+|%)\s*(?P<op>[-+])\s*(?P<mod>[0-9]+)\s*"
)
"""Dice notation with a modifier, `d6+1`, `2d6-2`: the die is its faces, the modifier is added
where the die is read."""


def sides(match: re.Match[str]) -> str:
    """The sides a match of `DICE` or `MODIFIED` names, `d%` read as 100."""
    return "100" if match["sides"] == "%" else match["sides"]
