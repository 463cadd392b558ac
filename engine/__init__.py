"""rulecraft: a declarative rules engine for tabletop role-playing games.

    >>> import engine, random
    >>> rules = engine.load("rulesets/mygame.yaml")           # or YAML text, or a shipped name
    >>> result = rules.roll("attack", random.Random(7), skill=3)
    >>> result.outcome, result.values, result.trace            # what, the named values, and why
    >>> rules.distribution("attack", skill=3).table()          # exact Fractions, worst first
"""

from .api import Ruleset as Ruleset, load as load, load_source as load_source
from .errors import (
    CompileError as CompileError,
    Diagnostic as Diagnostic,
    EvalError as EvalError,
    ExprSyntaxError as ExprSyntaxError,
    InputError as InputError,
    LimitError as LimitError,
    LoadError as LoadError,
    RulecraftError as RulecraftError,
    SchemaError as SchemaError,
)
from .limits import Limits as Limits
from .sample import Result as Result, Step as Step
from .values import Multi as Multi, Symbol as Symbol

__all__ = [
    "CompileError",
    "Diagnostic",
    "EvalError",
    "ExprSyntaxError",
    "InputError",
    "LimitError",
    "LoadError",
    "Limits",
    "Multi",
    "Result",
    "Ruleset",
    "RulecraftError",
    "SchemaError",
    "Step",
    "Symbol",
    "load",
    "load_source",
]
