"""A compile problem as an exception, so that one faulty statement is reported and the
compiler goes on with the next one instead of stopping at the first mistake."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ..errors import DeadlineError, Diagnostic, RulecraftError
from ..model import types as T
from ..syntax.names import is_name, name_rule
from ..syntax.positions import Span


class Problem(Exception):
    """One statement's problem; `statement` records it and the compiler goes on."""

    def __init__(self, diag: Diagnostic) -> None:
        self.diag = diag

    def retold(self, diag: Diagnostic) -> Problem:
        """The same problem told in other words (a hint added), keeping what it carries as data."""
        return Problem(diag)


class UnknownName(Problem):
    """RC301, a name no scope holds, with the name kept as data: a caller that knows more of why
    (a named value worked out after the roll) adds its hint without reading the message back."""

    def __init__(self, diag: Diagnostic, name: str) -> None:
        super().__init__(diag)
        self.name = name

    def retold(self, diag: Diagnostic) -> Problem:
        return UnknownName(diag, self.name)


class Reported(Exception):
    """A statement that rests on one whose problem is already recorded: skipped without a second
    message, so that one mistake is not also reported as an unknown name further down."""


def problem(code: str, message: str, span: Span | None, hint: str | None = None) -> Problem:
    """Raised as `raise problem(...)`, so the raise stays visible where the problem is found."""
    return Problem(Diagnostic(code, message, span, hint))


def example_key(key: object, at: Callable[[], Span]) -> None:
    """RC702 at `at()` unless an example's key `key` is a name: YAML reads `1:`, `1.5:`, `null:` or
    a date as no text (the loader makes all but the number text: '1.5', ''), told as written."""
    if not is_name(key):
        span = at()
        shown = written(span) or repr(key)
        raise problem("RC702", f"example gives {shown} where a name is wanted", span, name_rule(key))


def written(span: Span) -> str:
    """The text at `span` on its line, as the file has it ('' where it spans no text)."""
    if span.end_line not in (0, span.line) or span.end_col <= span.col:
        return ""
    return span.source.line(span.line)[span.col - 1 : span.end_col - 1]


def once(seen: dict[str, Span], name: str, span: Span, what: str, called: str = "name") -> None:
    """RC307 if `name` is in `seen` already, else it is added: a note's id or an example's name is
    what a report and a reader find it by, so two of one name are refused as a key written twice
    is (RC002), not passed with one of them unfindable."""
    first = seen.setdefault(name, span)
    if first is not span:
        raise problem(
            "RC307",
            f"{what} {called} '{name}' is given twice: the first is on line {first.line}",
            span,
            f"give each {what} its own {called}, or remove the copy",
        )


class statement:  # noqa: N801 - used as `with statement(diags):`, like a function
    """Run one statement, recording its problems (and any error of a stage below) in `diags`. A
    passed deadline is no problem of the statement's: it ends the load (`DeadlineError`). A class,
    not a generator: a load enters thousands of these, and a generator's context costs several
    times as much to enter and leave."""

    __slots__ = ("diags",)

    def __init__(self, diags: list[Diagnostic]) -> None:
        self.diags = diags

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: object) -> bool:
        return kind is not None and _recorded(self.diags, error)


def _recorded(diags: list[Diagnostic], error: BaseException | None) -> bool:
    """Whether `error` is a statement's own (recorded in `diags`, or skipped as `Reported`)."""
    if isinstance(error, Problem):
        diags.append(error.diag)
        return True
    if isinstance(error, Reported):
        return True
    if isinstance(error, RulecraftError) and not isinstance(error, DeadlineError):
        diags.extend(error.diagnostics)
        return True
    return False


class Apart:
    """Parts of one statement checked apart, so that each part's problem is reported in the one
    run (an example's every misspelt name, not only the first); `settle` then skips the whole
    statement without a second message if any part failed."""

    def __init__(self, diags: list[Diagnostic]) -> None:
        self.diags = diags
        self.failed = False

    def part(self) -> _Part:
        """Run one part as a `statement`, remembering whether it failed."""
        return _Part(self)

    def settle(self) -> None:
        """`Reported` if a part failed: what the statement makes rests on every part."""
        if self.failed:
            raise Reported


class _Part:
    """One part of an `Apart`: a `statement` that marks the whole failed when it records one."""

    __slots__ = ("apart",)

    def __init__(self, apart: Apart) -> None:
        self.apart = apart

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: object) -> bool:
        if kind is None or not _recorded(self.apart.diags, error):
            return False
        self.apart.failed = True
        return True


@contextmanager
def known_if_failing(scope: dict[str, T.Type], name: str) -> Iterator[None]:
    """Define `name` in `scope`; if its definition has an error, it is still known by name (of
    any type), so what reads it is not reported too: one mistake, one message."""
    try:
        yield
    except BaseException:
        scope.setdefault(name, T.UNKNOWN)
        raise
