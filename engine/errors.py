"""Errors as data.

One base class, one subclass per stage. Each problem is a `Diagnostic` (severity, code, span,
message, hint) so the CLI can print it for people or as JSON for CI; an error carries every
diagnostic its stage found, most likely root cause first. A hint is worded for the command line;
where its advice names the command line's flags or commands, the diagnostic also carries that
advice as data (`Advice`), for another front end (the HTTP API and its playground) to word in its
own terms.
"""

from __future__ import annotations

import datetime
import json
import numbers
from collections.abc import Collection, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any, Literal, TypeVar

from .frozen import frozen, replace
from .syntax.positions import Span, one_line, visible

Severity = Literal["error", "warning", "note"]
"""An error fails the request; a warning fails `validate --strict` (but `RC809` and `RC314`,
`INFO_CODES`); a note fails nothing (a finding the linter could not prove: `RC802` and `RC804`
over part of a check's inputs)."""

CODES = frozenset(
    """
    RC001 RC002 RC003 RC004 RC005
    RC101 RC102 RC103 RC104 RC105
    RC201 RC202
    RC301 RC302 RC303 RC304 RC305 RC306 RC307 RC308 RC310 RC312 RC313 RC314
    RC320 RC321 RC322 RC324 RC325 RC326 RC327 RC328
    RC401 RC402 RC403 RC404 RC405 RC406 RC407 RC408 RC409 RC410
    RC501 RC502 RC503 RC504 RC505 RC506 RC507 RC508
    RC601 RC602 RC603
    RC701 RC702
    RC801 RC802 RC803 RC804 RC805 RC806 RC807 RC808 RC809 RC810
    RC901 RC902 RC903 RC904 RC905 RC906 RC907 RC908 RC909
    """.split()
)
"""Every code a diagnostic can have (each has a section in docs/diagnostics.md): what a state
example's `refused:` may name (RC702 otherwise)."""

MAX_DIGITS = 100
"""The most digits a number may be written with — in YAML, in an expression, as an input or a
forced face — or have when the compiler folds a constant: far beyond any game, and far below the
4,300 digits past which Python refuses to turn a whole number into text."""


def digits(n: int) -> int:
    """How many decimal digits a whole number has, counted without writing it (Python writes
    none of more than 4,300): for a message that tells a number too long to show by its length."""
    n = abs(n)
    k = int(n.bit_length() * 0.30102999566398120)  # log10(2): the digits, or one fewer
    return max(1, k + int(n >= 10**k))


MAX_COMPUTED_DIGITS = 1000
"""The most digits a product or a quotient a ruleset computes while it runs may have (`RC503`): a
value squared forty times, or `v + 1/v` forty times over (a sum of fractions doubles its digits,
and dividing by it lets it double again), would otherwise take minutes and gigabytes, and every
result stays printable. Sums and differences of bounded numbers grow by a digit or a factor of
two at most, so capping products and quotients bounds every chain of arithmetic."""


AdviceKind = Literal[
    "give",
    "force",
    "die",
    "cast",
    "other",
    "lint_work",
    "solve",
    "unsure",
    "extra",
    "migrate",
    "reopen",
    "limit",
    "keeper",
    "retry",
    "full",
]
"""What a hint worded for the command line asks of its reader, one word each (`Advice.kind`)."""


@frozen(slots=True)
class Advice:
    """What a diagnostic's hint tells its reader to do, as data, kept beside a hint that says it in
    the command line's terms (a flag, a command, `pip install`), so that a front end without them
    (the HTTP API and its playground: `engine.serve.advice`) can say the same in its own. The
    command line prints the hint as written; nothing here is shown on it.

    `kind` is which advice, the rest its particulars (each is empty where a kind has none):

    - `give`: give the input or parameter `name` of the `of` (a 'check', 'action', 'campaign',
      'scene' or 'character') a value (RC401);
    - `force`: force `name` (a roll) one face or chit in order, then one per reroll or redraw;
      `of` is 'chit' or 'die', `values` an example that is long enough (RC405);
    - `die`: `name`, given as an input, is a die or draw of a check (`of`: 'die', 'pool', 'draw'),
      whose face a roll takes as a forced one; `values` an example a roll accepts; `lead` and
      `note` say it is no input and that the exact odds take every face (RC402);
    - `cast`, `other`: name the character who plays the scene's party, or is the action's role,
      `name`; `values` are the campaign's characters (RC907);
    - `lint_work`: the linter stopped at its work budget, which the command line can raise;
    - `solve`: the linter stopped at Limits.max_states, which only an exact solve can get past;
    - `unsure`: the linter cannot tell whether a reroll lets a roll stand (RC809 all three);
    - `extra`: install the package's extra `name` (RC601, RC903);
    - `migrate`: play a campaign with its ruleset file, or migrate it to that file (RC903, RC904);
    - `reopen`: open the campaign again, its ruleset migrated by another process since it was
      opened (RC904);
    - `limit`: raise the bound `name` (a field of `Limits`), which the command line does with
      `--limit NAME=VALUE` and an embedder with `Limits`; `lead` is what else would help
      (`limit_advice`);
    - `keeper`: a ruleset file its reader did not write and cannot change (a server's, to a
      client of it) does not load: whoever keeps the file fixes it; `lead` is the hint for its
      author, what would fix it. `of` is 'store' for a campaign store that cannot be used
      (RC903: not a campaign database, out of reach), which whoever keeps it mends; `lead` is
      the hint for them.
    - `retry`: the campaign store is locked by another writer for longer than the store waits
      (RC903 "locked"): the same request may succeed once that writer is done.
    - `full`: the campaign store's server has no connection free (RC903): the same request may
      succeed once another connection closes; whoever keeps it may allow more.

    `lead` and `note` are words that fit every front end, said before and after the advice."""

    kind: AdviceKind
    name: str = ""
    of: str = ""
    values: tuple[str, ...] = ()
    lead: str = ""
    note: str = ""


def forced_as(kind: str) -> str:
    """What a roll is given of a randomizer of `kind` ('die', 'pool' or 'draw') to force it."""
    return {"die": "face", "pool": "faces"}.get(kind, "chits")


@frozen(slots=True)
class Diagnostic:
    """One problem at one place. `hint` is worded for the command line; `advice` is set where that
    wording names the command line's flags or commands, for another front end to word."""

    code: str
    message: str
    span: Span | None = None
    hint: str | None = None
    severity: Severity = "error"
    advice: Advice | None = None

    def retold(self, code: str, message: str, span: Span | None, hint: str | None = None) -> Diagnostic:
        """This problem told again in other words (an example that failed on it, a campaign's
        rules refusing a state): its hint goes with it, and the advice behind the hint, so that
        a front end words it as it words this one; `hint` only where it had none."""
        if self.hint is None:
            return Diagnostic(code, message, span, hint)
        return Diagnostic(code, message, span, self.hint, advice=self.advice)

    def render(self) -> str:
        """The problem as lines of text: its place and message, the excerpt, the hint. The place,
        the message and the hint are one line each, whatever they quote: a newline or a tab in
        a file name or a name a message quotes is written `\\n`, `\\t` (`one_line`). A file
        named with a newline split `file:line:col` over two lines, and a check's name given
        with one split the message. And each is seen, never acted on, and bounded: a control
        character a caller's name held is written as its escape (`visible`, as the command line
        writes every line and an excerpt is shown), and a line past `MAX_SAID` characters is cut
        (hunt 13r: `Ruleset.roll("\\x1b[2J")` put a raw escape into `str(error)`, and a 1 MB name
        was echoed whole)."""
        where = self.span.location() + ": " if self.span and self.span.line else ""
        if self.span and not self.span.line and self.span.file:
            where = self.span.file + ": "
        head = _said(one_line(f"{where}{self.severity} {self.code}: {self.message}"))
        parts = [head]
        if self.span and self.span.line:
            excerpt = self.span.excerpt()
            if excerpt:
                parts.append(excerpt)
            if self.span.through and self.span.through != self.span.line:
                parts.append(f"  (written here, and reached through the alias on line {self.span.through})")
        if self.hint:
            parts.append(f"  hint: {_said(one_line(self.hint))}")
        return "\n".join(parts)

    def as_json(self) -> dict[str, object]:
        return {
            "file": self.span.file if self.span else None,
            "line": self.span.line if self.span else None,
            "column": self.span.col if self.span else None,
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "hint": self.hint,
        }


def limit_advice(name: str, lead: str = "", bound: str = "it") -> dict[str, Any]:
    """The hint and advice of a diagnostic for the bound `name` of `Limits` (`max_work`, `deadline`,
    ...) reached or passed: `lead`, what else would help, then how to raise it (`bound`, the words
    for it, where a lead names something else that "it" would be read as). Splat into a
    `Diagnostic`: `Diagnostic("RC503", message, span, **limit_advice("max_work", "ask for less"))`.
    The one place that words how a bound is raised, for the command line and for Python."""
    value = "SECONDS (none: no deadline)" if name == "deadline" else "N"
    how = f"raise {bound} with --limit {name}={value} (Limits.{name} from Python)"
    return {"hint": f"{lead}, or {how}" if lead else how, "advice": Advice("limit", name, lead=lead)}


class RulecraftError(Exception):
    """Base of every error the engine raises for bad input; never a bug.

    What a caller may act on is kept as data where the error is made, so that a server answers
    by it, not by reading the message: `missing`, the request named something that is not there
    (a ruleset, campaign, check, scene, action or period: 404); `unfit`, a `CampaignError` that
    is no refusal by a campaign's state but a request that does not fit the ruleset (a party,
    role or number it does not declare, one it needs and was not given: 422, not 409)."""

    def __init__(
        self, diagnostics: Sequence[Diagnostic], *, missing: bool = False, unfit: bool = False
    ) -> None:
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diagnostics)
        self.missing = missing
        self.unfit = unfit
        # drawn when read (`__str__`), not here: an error raised and caught where no one reads it
        # (the linter's size of a pool, face by face) cost its source excerpt each time, 53 s of a
        # `validate` for 300,000 of them (hunt 13zh)
        super().__init__()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with its diagnostics and flags (`Exception` would pickle only the rendered
        text), so an error raised in a worker process reaches its parent whole."""
        return (_rebuilt, (type(self), self.diagnostics, self.missing, self.unfit), self.__dict__)

    def render(self) -> str:
        return "\n".join(d.render() for d in self.diagnostics)

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.render()!r})"


def _rebuilt(
    kind: type[RulecraftError], diagnostics: Sequence[Diagnostic], missing: bool, unfit: bool
) -> RulecraftError:
    return kind(diagnostics, missing=missing, unfit=unfit)


class LoadError(RulecraftError):
    """The file could not be read or is not valid YAML."""


class SchemaError(RulecraftError):
    """The YAML does not have the shape of a ruleset."""


class CompileError(RulecraftError):
    """Names, types or structure of a ruleset are wrong."""


class ExprSyntaxError(CompileError):
    """An expression string does not parse."""


NOT_LOADING: tuple[type[RulecraftError], ...] = (LoadError, SchemaError, CompileError)
"""What loading a ruleset text that does not load raises: the file not read, its YAML broken, a
schema error, a name or an expression that does not compile. A limit or a deadline passed
loading it (`LimitError`) is none of these: the text may be fine, the bound too tight."""


class InputError(RulecraftError):
    """A check was called with a missing, unknown or out-of-range input."""


class EvalError(RulecraftError):
    """An expression failed while running (for example division by zero)."""


class LimitError(RulecraftError):
    """An evaluation would exceed a limit the embedder set."""


class BoundError(LimitError):
    """A value past a bound the language fixes, which no `Limits` raises: a number of more than
    `MAX_COMPUTED_DIGITS` digits computed while a check runs, a die whose faces, read from
    inputs, number more than 1000. It stays `RC503` and a `LimitError` (what catches one catches
    it), but it is the ruleset's and its inputs', not a budget's: the linter reports it for an
    allowed input as a failure (`RC808`), as it does a division by zero, not as work it left
    out (`RC809`)."""


class EndlessError(BoundError):
    """A chain of rerolls that can never end for the inputs given (`must: reroll` on `face >= k`
    with k 1): what loading refuses as `RC313` when the faces are constant. No `Limits` lets it
    end, so it is the ruleset's, like any `BoundError`; a class of its own because under a `may`
    step taken every time (the policy `always`) it is the player's, who may stop, and the linter
    tells the two apart."""


class DeadlineError(LimitError):
    """The request's deadline (`Limits.deadline`) passed before it ended: a limit of time, not of
    work, which a server answers with 504."""


class CampaignError(RulecraftError):
    """A stored campaign refused a request: a precondition that fails, a value out of bounds, an
    unknown campaign, action or character, a changed ruleset, a database that cannot be used.
    Nothing was written."""


PROBABILITY_HINT = 'a probability is a number from 0 to 1 (0.25, 1) or a fraction written as text ("1/6")'
"""The hint of an example's probability written wrong, out of 0..1 or no number at all, told
where the schema finds it or where the compiler does ("3/2"): here, so the compiler need not
import the schema's module (and jsonschema with it) on a load the cache answers."""


def did_you_mean(name: str, candidates: Iterable[str], cutoff: float = 0.6) -> str | None:
    """A hint naming the nearest candidate, if one is close enough to be a misspelling (`cutoff`:
    the least `difflib` ratio; a caller weighing only some of the names there are asks for more,
    since the right one may be among those it did not read)."""
    options = sorted(set(candidates))
    import difflib  # only when a name is wrong: not at every start

    close = difflib.get_close_matches(name, options, n=1, cutoff=cutoff)
    if not close:
        lowered = {c.lower(): c for c in options}
        if name.lower() in lowered:
            close = [lowered[name.lower()]]
    return f"did you mean '{close[0]}'?" if close else None


E = TypeVar("E", bound=RulecraftError)


def placed(exc: E, span: Span | None, lead: str = "") -> E:
    """`exc` with every diagnostic that has no position placed at `span` (a budget spent deep in
    an evaluation is reported at the check, scene or action that was asked for), its message led
    by `lead` when one is given (what the request was doing, where the place alone does not say:
    "undoing the latest change of campaign 'c'")."""
    if all(d.span is not None for d in exc.diagnostics) or (span is None and not lead):
        return exc
    return type(exc)(
        [
            d
            if d.span is not None
            else replace(d, span=span, message=f"{lead}: {d.message}" if lead else d.message)
            for d in exc.diagnostics
        ],
        missing=exc.missing,
        unfit=exc.unfit,
    )


def no_outcome(check: str, outcome: object, names: Iterable[str]) -> InputError:
    """`InputError` RC402 for an outcome `check` does not have, naming the nearest of `names`
    (asked of a `Distribution` or of a `Batch`)."""
    names = list(names)
    hint = did_you_mean(str(outcome), names) or f"outcomes: {', '.join(names)}"
    return InputError([Diagnostic("RC402", f"check '{check}' has no outcome {outcome!r}"[:120], None, hint)])


def never_ends(
    check: str, inputs: Mapping[str, Any], span: Span | None, many: bool, policy: str | None = None
) -> EvalError:
    """`EvalError` RC507: every roll of `check` with these inputs is made again by a rule
    `then: again` (`span`: the first such rule; `many`, there are others), so it never ends:
    the exact evaluator finds it (a chance of 1 of rolling again), and its refusal is the
    sampler's too, which tells it at once where the rule reads only what is known before the roll,
    else once it has rolled again long enough to ask the exact evaluator (`sample._ask_exact`).
    `policy` is named where the player's choices decide it (another policy may end)."""
    given = ", ".join(f"{k}={shown(v)}" for k, v in inputs.items())
    which = "a rule 'then: again'" + (" (this one, or another)" if many else "")
    under = f" under the policy '{policy}'" if policy else ""
    other = ", or play it under another policy" if policy else ""
    return EvalError(
        [
            Diagnostic(
                "RC507",
                f"check '{check}' never ends{' with ' + given if given else ''}{under}: {which} holds "
                "for every roll, so every roll is made again",
                span,
                f"give the rule a condition that some roll escapes, or ask with other inputs{other}",
            )
        ]
    )


NO_BEST_PLAY = ("RC505", "RC508")
"""What `optimal` answers where it is no way to play a check (a chain that can return to a state,
a choice over attempts a rule rolls again): `always` and `never` still play it, so the linter
analyses those and `prob --policy all` shows them."""


def optimal_again(check: str, span: Span | None) -> EvalError:
    """`EvalError` RC508: best play (`optimal`) over a check whose player chooses and whose
    outcome rules may roll it again would have to weigh every attempt to come, which the
    per-roll objective does not; refused rather than answered wrong."""
    return EvalError(
        [
            Diagnostic(
                "RC508",
                f"policy 'optimal' cannot play check '{check}': its player chooses ('may') and a rule "
                "'then: again' may roll it again, so best play would weigh every attempt to come, "
                "not one roll's objective",
                span,
                "use policy 'always' or 'never' for this check",
            )
        ]
    )


UNROLLED = "an auto rule decided the outcome before the roll, and nothing was rolled"
"""Why a value worked out after the roll has none when an auto rule decides (`no_value`, and a
check example that expects one)."""


def no_value(check: str, name: str, names: Iterable[str], unrolled: Collection[str] = ()) -> InputError:
    """`InputError` RC402 for a name `check` has no number, true/false or scale value of, naming
    the nearest of `names` (asked of a `Distribution` or of a `Batch`); for one of `unrolled`,
    worked out after the roll when an auto rule decided, that nothing was rolled."""
    names = list(names)
    if name in unrolled:
        message = f"check '{check}' has no value '{name}' for these inputs: {UNROLLED}"
        hint = f"values for these inputs: {', '.join(names) or 'none'}"
    else:
        message = f"check '{check}' has no number, true/false or scale value '{name}'"
        # a name an auto rule left out is still one the check has: a misspelling of it is near
        hint = did_you_mean(str(name), [*names, *unrolled]) or f"values: {', '.join(names) or 'none'}"
    return InputError([Diagnostic("RC402", message, None, hint)])


# -- values as a message shows them ----------------------------------------------------------------


class Numeral(float):
    """A number as a JSON body wrote it (`3.0`, `0.30000000000000000001`, `1e400`): the float
    Python reads, which rounds, and the `text` itself, which an input, a parameter or a forced die
    reads exactly, as the command line's `--input` reads its text (the HTTP API rounded
    0.30000000000000000001 to 3/10 and 55.00000000000000001 to 55, where the same text as a
    string or on the command line was exact: hunt 13i). Made by the server's body reader."""

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> Numeral:
        made = super().__new__(cls, text)
        made.text = text
        return made

    def __reduce__(self) -> tuple[type[Numeral], tuple[str]]:  # to a worker process, text and all
        return Numeral, (self.text,)


def shown(value: Any) -> str:
    """A caller's value as a message shows it: never a wall of text, never a number too long to print."""
    if isinstance(value, Numeral):  # as the client wrote it (1e400, not inf)
        return clipped(value.text)
    # true/false and null in the language's words (and JSON's), not Python's
    if value is None or isinstance(value, bool) or scalar_bool(value):
        return "null" if value is None else "true" if value else "false"
    if isinstance(value, numbers.Rational):
        top, bottom = int(value.numerator), int(value.denominator)
        if max(abs(top), bottom) >= 10**MAX_DIGITS:  # by its length, not its digits
            if bottom == 1:
                return f"(a whole number of {digits(top):,} digits)"
            return f"(a fraction whose top has {digits(top):,} digits and bottom {digits(bottom):,})"
        # 1/2 as the language writes it; 11, not NumPy's np.int64(11)
        text = str(Fraction(top, bottom))
    elif isinstance(value, numbers.Real):
        text = str(value)  # 2.5, not NumPy's np.float64(2.5)
    elif isinstance(value, (dict, list, tuple)):
        text = _json_text(value)
    elif isinstance(value, (datetime.date, datetime.time)):  # YAML's unquoted 2001-12-14
        text = value.isoformat()
    else:
        text = repr(value)
    return clipped(text)


MAX_SAID = 4000
"""The most characters of a diagnostic's line (its place and message, or its hint) that `render`
writes: a name a caller gave, echoed back, could otherwise make an error as large as the name."""


def _said(line: str) -> str:
    """`line` as `render` writes it: its controls escaped (`visible`), cut past `MAX_SAID`."""
    line = visible(line)
    return line if len(line) <= MAX_SAID else line[: MAX_SAID - 40] + f"… ({len(line):,} characters in all)"


def clipped(text: str) -> str:
    """`text` for a message, cut past 60 characters with its length said: never a wall of text."""
    return text if len(text) <= 60 else text[:50] + f"… ({len(text)} characters)"


def _json_text(value: Any) -> str:
    """A mapping or a sequence as JSON writes it (`{"a": 1}`, `[1, 2]`), as an HTTP request or
    YAML's flow style gives it, not as Python prints it (`{'a': 1}`); Python's words for what
    JSON cannot write."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):  # keys that are not text, a cycle, a deep nest
        try:
            return repr(value)
        except (ValueError, RecursionError):  # a number past Python's 4,300 digits inside it
            return f"(a {type(value).__name__} too large to show)"
    return text.encode("utf-8", "backslashreplace").decode("utf-8")  # a lone surrogate escaped


def scalar_bool(value: Any) -> bool:
    """Whether `value` is an array library's true/false scalar (NumPy's `bool_`): no `numbers`
    type and no `bool`, but a value of no dimensions whose `item()` is a `bool`."""
    if getattr(value, "shape", None) != () or isinstance(value, bool):
        return False
    try:
        return isinstance(value.item(), bool)
    except (AttributeError, TypeError, ValueError):
        return False
