"""The rule of a name (a check, an input, a parameter, an item, a role, a die): the schema's
pattern for names, and its words, kept apart from `schema.py` and its jsonschema so that the
compiler can hold an example's names to it without importing them, and the expression parser
can say it of a name in an expression (it sits below `syntax` and `expr`, tests/test_layers.py)."""

from __future__ import annotations

import re

NAME_PATTERN = "^[A-Za-z_][A-Za-z0-9_]*(?!\\n)$"
"""The pattern `schemas/ruleset.schema.json` gives every name but a ruleset's own. Not followed
by a line break: to Python's `re`, which jsonschema uses, `$` also matches before a last line
break, so `"flip\\n"` passed the schema that ECMA-262's `$` (and the engine, RC104) refuses."""

RULESET_NAME_PATTERN = "^[a-z][a-z0-9_-]*(?!\\n)$"
"""The schema's pattern for a ruleset's own `name:` (and `rulecraft new`'s), as `NAME_PATTERN`
not followed by a line break."""

NAME_RULE = "names start with a letter or _ and use letters, digits and _"
"""The pattern in words, as a hint says it."""


def name_rule(name: object) -> str:
    """The rule as the hint for `name`: a letter outside ASCII (`tötal`) is a letter to its
    author, so the hint names it rather than say "use letters"."""
    odd = next((c for c in name if not c.isascii()), None) if isinstance(name, str) else None
    if odd is None:
        return NAME_RULE
    return (
        f"'{odd}' is not an ASCII character: names start with an ASCII letter (a-z, A-Z) or _ "
        "and use ASCII letters, digits and _"
    )


_NAME = re.compile(NAME_PATTERN[1:-1])  # the lookahead is no matter to fullmatch


def is_name(key: object) -> bool:
    """Whether `key` is text that the name pattern takes (a number or true/false YAML read is not)."""
    return isinstance(key, str) and _NAME.fullmatch(key) is not None
