"""A scene, as declared in a ruleset: parties, the steps of a round, and the endings.

A scene plays a ruleset's actions over and over — an exchange of blows, a damage draw, a wound —
until one of its endings holds. Each party is a character of the ruleset's state; a step names an
action, the party that takes it and the parties in its roles. Frozen, like the rest of the model;
playing a scene is `engine.scenes`.
"""

from __future__ import annotations

from ..frozen import field, frozen
from ..syntax.positions import Span
from .ruleset import Expr

NEVER = "never"
"""The ending the exact odds give a state from which no ending can be reached."""
UNFINISHED = "unfinished"
"""The ending of a played scene still going after `max_rounds`."""
RESERVED_ENDINGS = (NEVER, UNFINISHED)
"""Names a scene's own endings may not take: each would be read as the case it names."""


@frozen
class SceneStep:
    """One step of a round: `party` takes `action` (no party for a table action), the parties in
    its roles are `others` (action role → scene party), its inputs are expressions over the scene."""

    action: str
    party: str
    others: tuple[tuple[str, str], ...] = ()
    inputs: tuple[tuple[str, Expr], ...] = ()
    when: Expr | None = None
    period: str = ""
    """A step that begins this period instead of taking an action (`action` is then "")."""
    may: tuple[tuple[str, Expr], ...] = ()
    """A choice the party may make: these inputs instead of the step's own (the policy decides)."""
    span: Span | None = field(default=None, compare=False)


@frozen
class Ending:
    """The scene is over, with this ending, as soon as `when` holds (checked after every step)."""

    name: str
    when: Expr
    span: Span | None = field(default=None, compare=False)


@frozen
class Scene:
    """Parties, the steps of one round, and the endings in order (the first that holds is it)."""

    name: str
    title: str
    parties: tuple[str, ...]
    round: tuple[SceneStep, ...]
    ends: tuple[Ending, ...]
    max_rounds: int = 100
    """Rounds a sampled scene may last, and the rounds the length distribution is counted to;
    the exact odds of each ending are not cut off by it."""
    description: str = ""
    objective: str = ""
    """The ending the `optimal` policy plays for (the first ending when not given)."""
    span: Span | None = field(default=None, compare=False)
    rounds_span: Span | None = field(default=None, compare=False)
    """Where `max_rounds:` is given (None: not given, the default), for a limit passed while the
    length distribution is counted to it."""

    def expressions(self) -> list[Expr]:
        """Every expression of the scene: each step's condition, inputs and choice, each ending's
        condition (what a tool that reads the whole ruleset, the linter, looks through)."""
        out: list[Expr] = []
        for step in self.round:
            out += [e for _, e in (*step.inputs, *step.may)] + ([step.when] if step.when is not None else [])
        return out + [end.when for end in self.ends]
