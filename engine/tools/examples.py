"""Running the worked examples written inside a ruleset (`rulecraft test`).

Each example rolls its check with forced dice (for an expected outcome or values) or asks
for the exact distribution (for expected probabilities), and every mismatch becomes a
diagnostic at the line of the expectation that failed.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

from ..api import Ruleset
from ..compiler.given import to_add
from ..errors import UNROLLED, Diagnostic, InputError, RulecraftError
from ..frozen import frozen
from ..model.ruleset import ROLLED, Check, Example, Expectation
from ..model.state import StateExample
from ..model.values import Multi, Symbol, show, to_json
from ..runtime.inputs import parse_number
from ..state.campaign import Campaign
from ..state.memory import MemoryStore
from ..syntax.positions import Span
from .render import exact, possessive


@frozen
class Outcome:
    """How one example went: passed, or the diagnostics saying why not."""

    check: str
    """The check, or "state" for an example of lasting state."""
    example: Example | StateExample
    problems: tuple[Diagnostic, ...]

    @property
    def passed(self) -> bool:
        return not self.problems


def run_examples(rs: Ruleset) -> list[Outcome]:
    """Every example of every check of `rs`, then every example of its lasting state, in file order."""
    return list(each_example(rs))


def each_example(rs: Ruleset) -> Iterator[Outcome]:
    """`run_examples` one at a time: each example runs when its outcome is asked for (a server
    gives each the time its request has left)."""
    for check in rs.checks.values():
        for ex in check.examples:
            yield run_example(rs, check, ex)
    if rs.model.state is not None:
        for state_ex in rs.model.state.examples:
            yield run_state_example(rs, state_ex)


def run_state_example(rs: Ruleset, ex: StateExample) -> Outcome:
    """Make a campaign in memory, take the example's steps, compare what it expects."""
    where = f"state example '{ex.name}'"
    problems: list[Diagnostic] = []
    try:
        campaign = Campaign.create(
            MemoryStore(),
            "example",
            rs.model,
            rs.document.source.text,
            ex.params,
            ex.characters,
            rs.limits,
            start=ex.start,
        )
    except RulecraftError as exc:
        first = exc.diagnostics[0]
        said, hint = _given(first, "this example's params:", "this example's characters:")
        return Outcome("state", ex, (_retold(first, f"{where} could not start: {said}", ex.span, hint),))
    for i, step in enumerate(ex.steps):
        last = i == len(ex.steps) - 1
        try:
            _step(rs, campaign, step)
        except RulecraftError as exc:
            first = exc.diagnostics[0]
            if last and ex.refused == first.code:
                break
            if last and ex.refused is not None:
                said = (
                    f"{where}: expected the last step to be refused with {ex.refused}, "
                    f"it was refused with {first.code}: {first.message}"
                )
                at, hint = ex.spans.get(("refused",), ex.span), None
            else:
                what, hint = _given(first, f"step {i + 1}'s inputs:", f"step {i + 1}'s params:")
                # a campaign refuses a change with an RC9xx code; an input or die missing is a failure
                verb = "was refused" if first.code.startswith("RC9") else "failed"
                said = f"{where}: step {i + 1} {verb}: {what} ({first.code})"
                at = ex.spans.get(("steps", str(i)), ex.span)
            problems.append(_retold(first, said, at, hint))
            return Outcome("state", ex, tuple(problems))
        else:
            if last and ex.refused is not None:
                problems.append(
                    _fail(
                        f"{where}: expected the last step to be refused ({ex.refused}), but it was taken",
                        ex.spans.get(("refused",), ex.span),
                    )
                )
    try:
        shown = campaign.show()
    except RulecraftError as exc:  # the example's state, not the file: said at the example
        first = exc.diagnostics[0]
        problems.append(
            first.retold("RC701", f"{where}: its state cannot be shown: {first.message}", ex.span)
        )
        return Outcome("state", ex, tuple(problems))
    expect_shared = ex.expect.get("shared") or {}
    assert isinstance(expect_shared, dict)
    for name, want in expect_shared.items():
        got = shown["shared"].get(name)
        if not _same_state(got, want):
            problems.append(
                _fail(
                    f"{where}: expected {name} = {_state_text(want)}, got {_state_text(got)}",
                    ex.spans.get(("shared", name), ex.span),
                )
            )
    expect_chars = ex.expect.get("characters") or {}
    assert isinstance(expect_chars, dict)
    for who, items in expect_chars.items():
        sheet = shown["characters"].get(who)
        if sheet is None:
            problems.append(_fail(f"{where}: there is no character '{who}'", ex.span))
            continue
        for name, want in items.items():
            got = sheet["items"].get(name)
            if not _same_state(got, want):
                problems.append(
                    _fail(
                        f"{where}: expected {possessive(who)} {name} = {_state_text(want)}, "
                        f"got {_state_text(got)}",
                        ex.spans.get(("characters", who, name), ex.span),
                    )
                )
    return Outcome("state", ex, tuple(problems))


def _step(rs: Ruleset, campaign: Campaign, step: Mapping[str, Any]) -> None:
    if "act" in step:
        given = dict(step.get("dice") or {})
        action = rs.model.state.actions[str(step["act"])] if rs.model.state else None
        check = rs.checks.get(action.roll.check) if action is not None and action.roll else None
        # every die or draw the step leaves out is forced to take none: one the roll takes fails
        # as it is rolled, before an effect could refuse the action by chance, and a roll that
        # takes none (an auto rule decides, a pool of no dice) needs no dice given
        forced: dict[str, Any] = (
            {r.name: [] for r in check.roll if r.name not in given} if check is not None else {}
        )
        try:
            campaign.act(
                str(step["act"]),
                step.get("character"),
                forced={**forced, **given},
                seed=0,
                policy=str(step.get("policy", "always")),
                others={str(k): str(v) for k, v in (step.get("others") or {}).items()},
                inputs=dict(step.get("inputs") or {}),
                trace=False,  # an example reads the state, not the trace (a long one is refused)
            )
        except InputError as exc:
            advice = exc.diagnostics[0].advice
            if advice is None or advice.kind != "force" or advice.name not in forced:
                raise
            raise RulecraftError(
                [
                    Diagnostic(
                        "RC701",
                        f"action '{step['act']}' rolls {advice.name!r}, but the step does not force it: "
                        "it would hold only by chance",
                        None,
                        "give every die or draw its roll takes under 'dice:'",
                    )
                ]
            ) from None
    elif "begin" in step:
        campaign.begin(str(step["begin"]))
    elif "join" in step:
        campaign.join(str(step["join"]), params=dict(step.get("params") or {}))
    else:
        campaign.undo()


def _same_state(got: Any, want: Any) -> bool:
    """`_same` for an item as the campaign shows it (JSON-ready): a fraction comes as its text
    "n/d", read back as the number it is, so that a derived value of 3/2 meets 1.5 as a check's
    value does (no scale's member is a number's text: a name starts with a letter or `_`)."""
    if isinstance(want, dict):
        return isinstance(got, dict) and {k: v for k, v in want.items() if v} == {
            k: v for k, v in got.items() if v
        }
    if isinstance(got, str) and (number := parse_number(got)) is not None:
        got = number
    return _same(got, want) if got is not None else False


def _state_text(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {v}" for k, v in value.items() if v) + "}"
    return _shown(value)


def run_example(rs: Ruleset, check: Check, ex: Example) -> Outcome:
    problems: list[Diagnostic] = []
    where = f"example '{ex.name}' of check '{check.name}'"
    rolled = [e for e in ex.expects if e.kind in ROLLED.values()]
    probs = [e for e in ex.expects if e.kind in ("probability", "mean")]
    try:
        if rolled:
            result = rs.roll(
                check.name, random.Random(0), forced=ex.dice or None, policy=ex.policy, inputs=ex.inputs
            )
            loose = [name for name in result.rolled if name not in ex.dice and result.drawn.get(name)]
            if loose:
                problems.append(
                    _fail(
                        f"{where} expects a roll's result but does not force "
                        f"{', '.join(repr(n) for n in loose)}: it would hold only by chance",
                        ex.span,
                        "give every die or draw the roll takes under 'dice:', "
                        "or expect probabilities instead",
                    )
                )
                return Outcome(check.name, ex, tuple(problems))
            for e in rolled:
                if e.kind == "outcome":
                    if result.outcome != e.expected:
                        problems.append(
                            _fail(
                                f"{where}: expected outcome '{e.expected}', got '{result.outcome}'",
                                e.span,
                                _why(result),
                            )
                        )
                else:
                    actual = result.values.get(e.name, _MISSING)
                    if actual is _MISSING:
                        problems.append(
                            _fail(
                                f"{where}: '{e.name}' has no value in this roll"
                                + (f": {UNROLLED}" if result.auto else ""),
                                e.span,
                            )
                        )
                    elif not _same(actual, e.expected):
                        problems.append(
                            _fail(
                                f"{where}: {_expected_got(e.name, e.expected, actual)}",
                                e.span,
                                _why(result),
                            )
                        )
        if probs:
            dist = rs.distribution(check.name, policy=ex.policy, inputs=ex.inputs)
            for e in probs:
                if e.kind == "mean":
                    problems += _mean(dist, e, where)
                    continue
                p = dist.probability(e.name)
                lo, hi = e.expected
                cut = dist.truncated  # every probability is exact to within it
                if not lo - cut <= p <= hi + cut:
                    want = f"exactly {exact(lo)}" if lo == hi else f"between {exact(lo)} and {exact(hi)}"
                    problems.append(
                        _fail(
                            f"{where}: expected P({e.name}) {want}, got {exact(p)} ≈ {float(p):.4f}"
                            + (
                                f" (exact to within {float(cut):.1e}, an uncapped explosion's cut)"
                                if cut
                                else ""
                            ),
                            e.span,
                        )
                    )
    except RulecraftError as exc:
        first = exc.diagnostics[0]
        said, hint = _given(first, "this example's inputs:", "")
        problems.append(_retold(first, f"{where} could not run: {said}", _culprit(check, ex, first), hint))
    return Outcome(check.name, ex, tuple(problems))


def _given(found: Diagnostic, inputs: str, params: str) -> tuple[str, str | None]:
    """`found`'s message and an example's own hint where it asks for an input or parameter not
    given (RC401, whose hint names the command line's flags): add it under the example's
    `inputs` (a check's or an action's), its `params` (the campaign's), or `params` (a character's,
    where `params` says). The message says "it needs …" for the campaign, which is the example's
    own and has no name of the file's."""
    advice = found.advice
    if advice is None or advice.kind != "give":
        return found.message, None
    message = found.message
    if advice.of == "campaign":
        message = (
            "it needs the " + message.partition(" needs the ")[2] if " needs the " in message else message
        )
        return message, to_add(advice.name, "this example's params:")
    if advice.of == "character":
        return message, to_add(advice.name, params, character=True)
    return message, to_add(advice.name, inputs)


def _retold(found: Diagnostic, message: str, span: Span | None, hint: str | None) -> Diagnostic:
    """`found` told as RC701 of an example, with the example's own hint where it has one (the
    command line's advice does not fit a file)."""
    if hint is None:
        return found.retold("RC701", message, span)
    return Diagnostic("RC701", message, span, hint)


def _culprit(check: Check, ex: Example, found: Diagnostic) -> Span | None:
    """Where in the example the value an error is about is written: an input refused, or a
    forced die that is no face of its die, is reported at the declaration it broke; the example's
    own input or forced die of that name is the mistake. Otherwise the example itself."""
    if found.span is not None:
        for spec in check.inputs:
            if spec.span == found.span and ("inputs", spec.name) in ex.spans:
                return ex.spans[("inputs", spec.name)]
        for r in check.roll:
            if r.span == found.span and ("dice", r.name) in ex.spans:
                return ex.spans[("dice", r.name)]
    return ex.span


_MISSING = object()


def _mean(dist: Any, e: Expectation, where: str) -> list[Diagnostic]:
    """RC701 unless the named value's mean over the exact distribution is what `e` expects."""
    values = dist.value(e.name)
    if not all(isinstance(v, (int, Fraction)) for v in values.weights):  # true/false count 1 and 0
        return [_fail(f"{where}: '{e.name}' has no mean: its values are not all numbers", e.span)]
    got = values.mean
    if got == e.expected:
        return []
    cut = dist.truncated
    return [
        _fail(
            f"{where}: expected the mean of {e.name} {exact(e.expected)}, "
            f"got {exact(got)} ≈ {float(got):.4f}",
            e.span,
            None
            if not cut
            else f"an uncapped explosion is followed until {float(cut):.1e} of the probability is left,"
            " so no mean over it is exact: give the explosion a 'cap' to pin an exact mean, or expect"
            " probabilities, which are exact to within that share",
        )
    ]


def _fail(message: str, span: Any, hint: str | None = None) -> Diagnostic:
    return Diagnostic("RC701", message, span, hint)


def _why(result: Any) -> str:
    rolled = ", ".join(f"{k} = {show(v)}" for k, v in result.rolled.items())
    return f"rolled {rolled}" if rolled else "nothing was rolled (an auto rule decided)"


def _same(actual: Any, expected: Any) -> bool:
    """Whether a value that came out is what an example expects: a scale's value by name,
    true/false as itself or its text, a number exactly, as `parse_number` reads a number written
    as text (`"1/2"` and 0.5 alike). What the ruleset's load refuses as no value of the type
    (`compiler.expected`) is what this can never find the same."""
    if isinstance(actual, Symbol):
        return actual.name == str(expected)
    if isinstance(actual, bool) or isinstance(expected, bool):
        return actual is expected or str(expected).lower() == str(actual).lower()
    if isinstance(actual, (int, Fraction)):
        return actual == parse_number(str(expected))
    if isinstance(expected, list):
        return _json_same(actual, expected)
    return bool(to_json(actual) == expected)


def _json_same(actual: Any, expected: list[Any]) -> bool:
    """A pool or list against the YAML list an example gives: their JSON forms (`to_json`, as
    `roll --json` shows them) item by item, each number exactly as `_same` reads it; a pool's
    items in any order (a pool is a multiset, as `==` compares pools), a list's in order."""
    got = to_json(actual)
    if not isinstance(got, list) or len(got) != len(expected):
        return False
    mine, theirs = [_key(v) for v in got], [_key(v) for v in expected]
    if isinstance(actual, Multi):
        return Counter(mine) == Counter(theirs)
    return mine == theirs


def _key(value: Any) -> Any:
    """One JSON item in a form that compares as `_same` does: a number (or its text) as the
    exact number, tagged apart from true/false (which Python counts as 1 and 0)."""
    if isinstance(value, list):
        return ("list", tuple(_key(v) for v in value))
    if isinstance(value, bool):
        return ("bool", value)
    number = parse_number(str(value))
    if number is not None:
        return ("num", number)
    return ("text", str(value))


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    return str(value).lower() if isinstance(value, bool) else str(value)


def _expected_got(name: str, expected: Any, actual: Any) -> str:
    """ "expected x = …, got …", told apart where the two would read the same (a list written as
    text, "[5, 2]", against the pool [5, 2]): then the expected is shown quoted, as the text it is."""
    want, got = _shown(expected), show(actual)
    if want == got:
        want = f'"{want}" (text)' if isinstance(expected, str) else f"{want} ({type(expected).__name__})"
        got = f"{got} (a {'pool' if isinstance(actual, Multi) else 'value'})"
    return f"expected {name} = {want}, got {got}"
