"""rulecraft: a declarative rules engine for tabletop role-playing games.

>>> import engine, random
>>> from pathlib import Path
>>> rules = engine.load(Path("rulesets/mygame.yaml"))     # a file is a Path; a str: a shipped name or YAML
>>> result = rules.roll("attack", random.Random(7), skill=3)
>>> result.outcome, result.values, result.trace            # what, the named values, and why
>>> rules.distribution("attack", skill=3).table()          # exact Fractions, worst first
"""

TYPE_CHECKING = False  # neither `typing` nor `importlib` is imported: most of what `import engine` cost
if TYPE_CHECKING:
    from typing import Any

    from .api import Ruleset as Ruleset
    from .api import load as load
    from .api import load_source as load_source
    from .api import new_campaign as new_campaign
    from .api import open_campaign as open_campaign
    from .errors import CampaignError as CampaignError
    from .errors import CompileError as CompileError
    from .errors import DeadlineError as DeadlineError
    from .errors import Diagnostic as Diagnostic
    from .errors import EvalError as EvalError
    from .errors import ExprSyntaxError as ExprSyntaxError
    from .errors import InputError as InputError
    from .errors import LimitError as LimitError
    from .errors import LoadError as LoadError
    from .errors import RulecraftError as RulecraftError
    from .errors import SchemaError as SchemaError
    from .eval.trace import Result as Result
    from .eval.trace import Step as Step
    from .model.values import Multi as Multi
    from .model.values import Symbol as Symbol
    from .runtime.limits import Limits as Limits
    from .state.campaign import Campaign as Campaign
    from .syntax.positions import SourceFile as SourceFile
del TYPE_CHECKING  # not a name of the package's

_API = ("Ruleset", "load", "load_source", "new_campaign", "open_campaign")
_ERRORS = (
    "CampaignError",
    "CompileError",
    "DeadlineError",
    "Diagnostic",
    "EvalError",
    "ExprSyntaxError",
    "InputError",
    "LimitError",
    "LoadError",
    "RulecraftError",
    "SchemaError",
)
_LATER = {
    **dict.fromkeys(_API, ".api"),
    **dict.fromkeys(_ERRORS, ".errors"),
    "Campaign": ".state.campaign",
    "Result": ".eval.trace",
    "Step": ".eval.trace",
    "Multi": ".model.values",
    "Symbol": ".model.values",
    "Limits": ".runtime.limits",
    "SourceFile": ".syntax.positions",
}
"""Every public name, imported on first use: `import engine` loads none of the engine, so the
command line's entry point (`engine.__main__.console`) is inside its Ctrl-C guard before the
engine's imports begin (a Ctrl-C in them printed a traceback); and a command that keeps no
campaign never loads the campaign code."""


def __getattr__(name: str) -> "Any":
    if name in _LATER:
        value = getattr(__import__(__name__ + _LATER[name], fromlist=["__name__"]), name)
        globals()[name] = value
        return value
    if name.isidentifier() and not name.startswith("__"):
        # a module of the package, as `engine.api.load_source(...)` reads it after `import engine`
        # alone: loaded by the names above before they were imported on first use (a review)
        try:
            return __import__(f"{__name__}.{name}", fromlist=["__name__"])
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise  # a module it imports is missing: not this name's fault
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*(n for n in globals() if not n.startswith("_") or n.startswith("__")), *_LATER})


__all__ = sorted(_LATER)
