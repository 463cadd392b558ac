"""rulecraft: a declarative rules engine for tabletop role-playing games.

    >>> import engine, random
    >>> chill = engine.load("chill")
    >>> result = chill.roll("specific", random.Random(7), target=55)
    >>> result.outcome.name in chill.checks["specific"].outcomes.names
    True
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
