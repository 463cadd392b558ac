"""Resource limits an embedder sets, so every evaluation of an untrusted ruleset ends quickly."""

from __future__ import annotations

from typing import Any

from ..errors import Diagnostic, InputError, LimitError, limit_advice, shown
from ..expr import ast
from ..frozen import field_names, frozen
from ..model.ruleset import Check, Draw, Expr, Pool, Randomizer
from ..model.values import Multi, show
from ..syntax.positions import Span
from . import arguments

MAX_FACES = 1000
"""The most faces a die may have, however they are written (the schema says so of a number of
sides): checked at load for constant faces, when the die is rolled for faces read from inputs."""


@frozen(slots=True)
class Limits:
    """Upper bounds for one evaluation; breaching one is a `LimitError`, never a hang."""

    max_pool: int = 100
    """Dice in one pool."""
    max_draw: int = 100
    """Chits drawn at once from a bag."""
    max_states: int = 200_000
    """States the exact evaluator may enumerate for one distribution."""
    max_rerolls: int = 1000
    """Dice one sampled reroll procedure may reroll or add (pools with a `cap` stop earlier)."""
    max_work: int = 2_000_000
    """Units of work one request may do (`RC503`): about a microsecond each — a state listed, a
    statistic's step, a table call, a few for a reroll chain's transition, a roll of many at once
    by its dice and their reads (`dicework.die_weights`). The default ends any
    request in about 2 s on a small machine, well under 256 MB."""
    deadline: float | None = None
    """Seconds of wall clock one request may take (`RC503`); None: only `max_work` bounds it."""
    max_bag: int = 100_000
    """Chits in one bag, all its sets counted (`RC503` when the ruleset loads)."""
    max_scenes: int = 1_000_000
    """Scenes one request may play at once (`Ruleset.sample_scenes`, `scene roll --times`)."""
    max_samples: int = 10_000_000
    """Rolls one request may make at once (`Ruleset.sample`, `roll --times`)."""
    max_cache_bytes: int = 256 * 1024 * 1024
    """What a loaded ruleset's caches may hold together, in bytes (about: each value is weighed
    when it is kept); the oldest entries go first."""
    max_yaml_bytes: int = 512 * 1024
    """Size of a ruleset's text, in bytes of UTF-8 (`RC004`); the shipped rulesets are under 100 KB.
    Four times it bounds the characters of its keys and values once every alias is expanded."""
    max_yaml_depth: int = 64
    """Mappings and lists nested inside each other in a ruleset's YAML (`RC004`)."""
    max_yaml_nodes: int = 100_000
    """Values in a ruleset's YAML once every alias is expanded (`RC004`): a few aliases may not
    stand for millions of values. Each merge key (`<<: *m`) counts all it merges."""
    max_expression_depth: int = 50
    """Levels of one expression's tree (`RC202`): `a + b + c` is 3 (two sums, then a name)."""
    max_expression_size: int = 2000
    """Names, numbers and operations in one expression (`RC202`)."""
    max_code: int = 8_000_000
    """Characters of Python the compiler may generate for one ruleset (`RC503` when it loads);
    the shipped rulesets make 20-95 thousand, and compiling takes about 0.15 µs a character."""

    def __post_init__(self) -> None:
        """Every bound is a whole number of at least 0 and at most its ceiling (`CEILINGS`), and the
        deadline a finite number of seconds or None: a `TypeError` naming the field, or
        `InputError` RC410 — not a limit that silently never holds (NaN compares false with
        everything), nor one past what Python itself can follow. NumPy's numbers are kept as the
        Python numbers they are (`arguments.whole`, `seconds`), so a bound reads and prints as one
        given so."""
        for name in NAMES:
            value = getattr(self, name)
            if name == "deadline":
                read = arguments.seconds("Limits", name, value, what="limit")
            else:
                read = arguments.whole("Limits", name, value, most=CEILINGS.get(name, MOST), what="limit")
            if read is not value:
                object.__setattr__(self, name, read)  # frozen: set once, here, as `__init__` does


NAMES: tuple[str, ...] = field_names(Limits) or ()
"""The bounds' names, in order."""

MOST = 2**62
"""The largest value of any bound: far past any machine's memory or patience, and still a size
Python can read a file up to or weigh a cache by."""
CEILINGS = {"max_expression_depth": 100, "max_yaml_depth": 200}
"""Bounds past which Python itself gives out, whatever the budget: the code made of an expression
nests about a bracket per level, and Python refuses 200 (a negation 200 deep); the YAML reader
recurses per level, and runs out of stack from about 300."""


def enforce(
    what: str, value: int, limit: int, span: Span | None, name: str, *, counting: bool = False
) -> None:
    """Raise `LimitError` when `value` is over `limit`, the bound `name` of `Limits`. `counting`:
    `value` is a count still growing (states listed so far), so the message gives the limit
    passed, not the count, which says nothing of how far the whole would go."""
    if value > limit:
        said = (
            f"more {what} are needed than the limit of {limit}"
            if counting
            else f"{what} is {shown(value)}, over the limit of {limit}"
        )
        raise LimitError([Diagnostic("RC503", said, span, **limit_advice(name))])


def roll_count(expr: Expr, env: dict[str, Any], r: Randomizer, limits: Limits) -> int:
    """How many dice a pool rolls or chits a draw takes, checked against the bag and the limit
    (`max_pool` or `max_draw`)."""
    n = expr.run(env)
    if isinstance(n, Multi) and isinstance(r, Pool) and r.per:
        n = len(n.items)  # a pool over a list: one die per element
    what, limit, name = (
        ("chits drawn", limits.max_draw, "max_draw")
        if isinstance(r, Draw)
        else ("dice in the pool", limits.max_pool, "max_pool")
    )
    at = expr.node.span if expr.node.span is not None and expr.node.span.line else r.span  # the count
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:  # true is no count (an untyped table's)
        said = f"the number of {what} must be a whole number, at least 0, got {show(n)}"
        raise InputError([Diagnostic("RC406", said, at)])
    if isinstance(r, Draw) and n > r.bag.size:
        raise InputError([Diagnostic("RC406", f"cannot draw {n} chits from a bag of {r.bag.size}", at)])
    enforce(what, n, limit, r.span, name)
    return n


def counted_before_roll(check: Check, env: dict[str, Any], limits: Limits) -> None:
    """Each pool's and draw's count that the inputs and the values known before the roll decide
    (`env`), checked before any die (`roll_count`: RC503 over `max_pool` or `max_draw`, RC406 past
    the bag, or no whole number): a roller's mistakes are raised when it is made, not at each of
    its calls; and the linter finds them for a combination too dear to enumerate (a draw of 600
    from a bag of 45 had passed `validate` with an RC809, its work estimated from the count:
    hunt 13zh)."""
    for r in check.roll:
        if isinstance(r, (Pool, Draw)) and ast.names(r.count.node) <= env.keys():
            roll_count(r.count, env, r, limits)


def redraw_times(r: Randomizer, env: dict[str, Any], limits: Limits) -> int:
    """How many redraws a die or draw allows: a whole number, at least 0, at most
    `limits.max_rerolls`."""
    assert r.redraw is not None
    times = r.redraw.times
    n = times.run(env)
    # told at the value, as a pool's count is (`times: -1` was told at `redraw:`: hunt 13zh)
    at = times.node.span if times.node.span is not None and times.node.span.line else r.redraw.span
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        said = f"a redraw's 'times' must be a whole number, at least 0, got {show(n)}"
        raise InputError([Diagnostic("RC406", said, at)])
    enforce("a redraw's 'times'", n, limits.max_rerolls, at, "max_rerolls")
    return n


DEFAULT_LIMITS = Limits()


def sweep_chances(check: Check, values: int, most: int, asked: str, first: int | None = None) -> None:
    """RC407 for a sweep of `values` points of `check` whose chances (points times the check's
    outcomes) pass `most`, told before any point is solved: the one rule of the command line's
    `--sweep` and the server's sweeps and charts, each with its own bound. `asked` names the
    sweep in the message; `first`, its first value, gives the hint an example range."""
    outcomes = len(check.outcomes.members)
    chances = values * outcomes
    if chances <= most:
        return
    fit = max(most // outcomes, 1)
    example = f" (e.g. {first}..{first + fit - 1})" if first is not None else ""
    said = (
        f"{asked} answers at most {most:,} chances (values times outcomes): {values:,} values of "
        f"check '{check.name}', which has {outcomes:,} outcomes, are {chances:,}"
    )
    raise InputError(
        [Diagnostic("RC407", said, None, f"sweep at most {fit:,} values of this check at once{example}")]
    )
