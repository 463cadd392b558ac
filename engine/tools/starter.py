"""The starter ruleset that `rulecraft new NAME` writes.

The text is a complete, commented ruleset for a small made-up game: one check, one worked
example and the editor's schema comment. It validates and passes `rulecraft test` as written
(the test suite runs exactly that), so an author starts from something green and changes it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..syntax.names import RULESET_NAME_PATTERN
from ..syntax.resources import schema_path

NAME_PATTERN = re.compile(RULESET_NAME_PATTERN[1:-1])
"""What `name:` accepts (the JSON Schema's pattern), matched whole (`fullmatch`): `match` with
`$` took `abc` and a line break, and `rulecraft new` wrote a file whose name ended in one."""


def schema_reference(target: Path, schema: Path | None = None) -> str:
    """How the new file at `target` should name the JSON Schema in its editor comment.

    yaml-language-server resolves a file path relative to the YAML file, or an absolute one,
    with no network. So: relative when the file and the installed schema share a folder below
    the filesystem root (a project with its own virtualenv, a checkout of rulecraft), else
    absolute (a system-wide install). Always with forward slashes, as editors expect.
    """
    schema = (schema or schema_path()).resolve()
    folder = target.resolve().parent
    try:
        common = Path(os.path.commonpath([folder, schema]))
        if common != Path(common.anchor):
            return Path(os.path.relpath(schema, folder)).as_posix()
    except ValueError:  # different drives (Windows): no relative path exists
        pass
    return schema.as_posix()


def starter_text(name: str, schema: str | None = None) -> str:
    """A commented starter ruleset called `name`, whose schema comment points at `schema`
    (a path as `schema_reference` gives it; by default the installed schema's absolute path)."""
    if not NAME_PATTERN.fullmatch(name):
        raise ValueError(f"invalid ruleset name {name!r}: a lower-case letter, then a-z 0-9 _ -")
    ref = schema if schema is not None else schema_path().resolve().as_posix()
    file = f"{name}.yaml"
    return _TEMPLATE.format(
        name=name, schema=ref, file=file, title=name.replace("_", " ").replace("-", " ").title()
    )


_TEMPLATE = """\
# yaml-language-server: $schema={schema}
#
# {file}: a starter ruleset written by `rulecraft new {name}`. Change it into your game.
#
# The line above is for editors. Any editor that runs yaml-language-server (VS Code with the
# YAML extension, Neovim, Helix, Zed, ...) reads the JSON Schema it names and then completes
# keys, explains them on hover and underlines mistakes as you type. It names the schema of
# the rulecraft installed on this machine by a file path, not a URL: a path resolves offline
# and always matches the rulecraft that runs your file (`rulecraft schema` prints the same
# schema). A relative path is read from this file's folder. If you move or share this file,
# keep a copy next to it with `rulecraft schema > ruleset.schema.json` and write
# `$schema=ruleset.schema.json` on the first line instead.
#
# Try it:
#   rulecraft validate {file}                       # schema, names and types: exit 1 on a problem
#   rulecraft test {file}                           # run the examples written below
#   rulecraft roll {file} act -i skill=1 --seed 7   # one roll, and why it came out that way
#   rulecraft prob {file} act -i skill=1            # the exact chance of every outcome
#   rulecraft prob {file} act --sweep skill=-1..3   # ... for every skill at once
#
# In the rulecraft repository, docs/tutorial.md walks through writing a ruleset and
# docs/language.md describes every construct.

# The format version this file is written for. A rulecraft that does not know it refuses
# the file rather than read it differently.
rulecraft: 1

# A short name (a lower-case letter, then a-z 0-9 _ -) and a title for people.
name: {name}
title: {title}, a starter game

# Write down every reading you chose where your rules text is unclear; `rulecraft show`
# prints these notes, and an example below pins each one.
notes:
  - id: exact-seven
    text: A total of exactly 7 is a success at a cost, exactly 10 a full success.

# Scales are ordered names, worst first. Outcomes compare and shift by this order.
scales:
  result: [miss, cost, full]

# A check is one roll of the game: inputs -> dice -> named values -> the outcome.
checks:
  act:
    title: Act under pressure
    description: >-
      Roll two six-sided dice and add your skill; 10 or more is a full success,
      7 to 9 a success at a cost.

    # Inputs the player or game master gives: int, number, bool, choice or list. Without a
    # default an input is required; min and max are checked.
    inputs:
      skill: {{type: int, min: -1, max: 3, default: 0, description: The skill you act with.}}

    # The dice, by name, rolled in this order. {{die: 6}} has the faces 1..6;
    # {{die: "0..9"}}, pools ({{pool: 3, die: 6}}) and bags of chits also exist.
    roll:
      left: {{die: 6}}
      right: {{die: 6}}

    # Named values: expressions over inputs, dice and other values, in any order.
    let:
      total: left + right + skill

    # The possible outcomes (a scale's name, or a list worst first) and how to decide one:
    # the first rule whose `when` holds gives the outcome; `else` catches the rest.
    outcomes: result
    outcome:
      - when: total >= 10
        then: full
      - when: total >= 7
        then: cost
      - else: miss

    # Outputs are reported with the result; they may use `outcome`.
    outputs:
      margin: total - 7

    # Worked examples that `rulecraft test` checks: inputs, forced dice, and what must
    # come out. Add one for every outcome and every example in your rulebook.
    examples:
      - name: a 3 and a 4 with no skill is a success at a cost
        note: Pins the note exact-seven.
        inputs: {{skill: 0}}
        dice: {{left: 3, right: 4}}
        expect: {{outcome: cost, values: {{total: 7, margin: 0}}}}
      # An example can also pin an exact probability, or bounds on one. Uncomment to try:
      # - name: with no skill a full success is 1 in 6
      #   inputs: {{skill: 0}}
      #   expect: {{probability: {{full: 1/6, miss: {{at_most: 1/2}}}}}}
"""
