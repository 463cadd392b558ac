"""Stage 6 — lint: what a ruleset that compiles may still get wrong, found by trying it.

The compiler already rejects unknown names (with the nearest declared one), wrong types,
cycles and bad structure; the linter runs only on a ruleset that compiled, so it never
repeats those. Its findings are `Diagnostic`s with codes RC801-RC810:

static, read from the compiled model
  RC805  an input that no expression, rule, randomizer parameter or output reads (warning)
  RC806  a named value (`let`) that nothing else reads: its check, or the effects of an action
         that rolls it (warning)
  RC807  a table that nothing calls (a check, an item, an action, a scene), directly or through
         another table (warning)
  RC810  a literal `a-b` of whole numbers, 0 < a < b (`count(p, 5-6)`): the number a - b,
         almost surely a slip for the range `a..b` (warning)

dynamic, by running the check's own compiled code over a bounded grid of inputs and,
for each, every roll the exact evaluator enumerates (one semantics: the same closures,
the same per-randomizer distributions)
  RC801  outcome rules or a table's rules/cases leave a reachable roll without a result:
         no rule matches and there is no `else` (error; names inputs and dice that fall through);
         a table lasting state calls is tried over the values the state gives its arguments
         (`lasting`: parameters and counters within their bounds, and what is derived from them)
  RC802  a rule that never fires: earlier rules decide every roll it matches, or its
         condition is never true (warning; `else` rows are never reported; a condition never
         true over only part of the inputs' combinations is a note: it may be true at one the
         grid left out; rules in the wrong order are a warning wherever found); a table's
         `cases` key that earlier keys of its level cover, or that no call matches (the calls
         of the lasting state that `lasting` lists counted with the checks'; a table some of
         whose state calls it cannot list is not judged); an outcome rule true only where an
         auto rule decides before the roll names that auto rule (the rolls of the inputs the
         auto rules decided are tried for such a rule alone)
  RC803  a declared outcome that nothing in the check (its rules, values, tables) names and
         no computed value gives (warning; a static fact, confirmed by the enumeration)
  RC804  a declared outcome that something names but that has probability 0 for every
         allowed input (warning; the probability-aware finding; a note when only part of
         the inputs' combinations was run)
  RC808  evaluation fails for an allowed input: division by zero, a pool of -1 dice, a
         number past 1000 digits or a chain of rerolls that never ends (RC503, bounds no limit
         raises: `BoundError`), ... (error)
  RC809  a check the linter could not analyse fully within its budget or the embedder's
         `Limits`, the hint naming which (warning; `--strict` leaves it a warning, since the
         ruleset is not wrong, only too large to enumerate)

How the work is bounded (it must end quickly on an untrusted ruleset): at most
`LintBudget.max_combinations` input combinations per check (bounds, defaults, the numbers
the expressions mention and their neighbours, evenly spaced values; all combinations when
there are few enough, else every pair of values of two inputs with the others at their
defaults, then a covering set that holds every pair once more);
combinations that read the same values after the roll are evaluated once; each
combination's work is estimated in units before it runs and the exact evaluation is skipped
when it is over `LintBudget.per_combination` or would pass the check's `per_check`; every
evaluation charges the units it really does to the check's and the whole analysis's
`max_work`; the embedder's `Limits` still bound each exact evaluation. Everything is counted in
units of work, never seconds, so the findings are the same on every run and machine; only an
embedder's explicit `LintBudget.deadline` (off by default) adds the clock. Anything left
out is reported as RC809, and then the findings that need the whole picture (RC802-RC804)
are not claimed for that check; nor where a roll fails or falls through in code run for each
face (a redraw's condition, a die's faces, `each:`), which stops that evaluation at the face.

Player choices (`check.sequential`: reroll triggers, redraws, dice that depend on earlier
dice) are analysed exactly under the `always`, `never` and `optimal` policies while that is
cheap; when the choices only reroll or redraw (never add dice), a combination the cost model
puts over `LintBudget.per_follow` is still tried, counted as it runs, all of a check's tries
together within `per_follow` units (the model puts a reroll chain far above the work it does),
and past that the dice are taken as first rolled: every value a reroll can end on is a value a
first roll can show, so rules that fire there are evidence of reachability, and a roll that
falls through there is reported with that caveat — but where no step is a `must`, the first roll is
what the `never` policy plays, and what is seen there is certain.

Tables are analysed over every argument list the checks actually call them with: the linter
compiles a private copy of the ruleset and wraps each table's function where the generated
code looks it up, so the caller's `Ruleset` is never changed. A table rule's condition is
compiled on its own (as a one-line table in a copy of the document), so it is judged with the
engine's own semantics too.

The modules, one job each: `static` (RC805-RC807, RC810, table bodies), `lasting` (RC801 for the tables
lasting state calls), `grid` (the input grid),
`cost` (the cost model), `probe` (what running a check records), `analysis` (the run loop),
`report` (the wording of the findings), `tables` (RC802 for table rules and cases keys), `evaluate` (the one
door into the evaluators), `budget` (`LintBudget`).

May import: every package below `engine.tools`, and `engine.api` for the `Ruleset` type.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ...errors import Diagnostic, RulecraftError
from ...frozen import replace
from .budget import DEFAULT_BUDGET, DEFAULT_WORK, LintBudget

if TYPE_CHECKING:
    from ...api import Ruleset

__all__ = ["DEFAULT_BUDGET", "DEFAULT_WORK", "INFO_CODES", "LintBudget", "lint", "ordered", "promote"]

INFO_CODES = frozenset({"RC809", "RC314"})
"""Warnings that say what the linter could not do, not what is wrong: `--strict` keeps them warnings."""


def lint(rs: Ruleset, budget: LintBudget = DEFAULT_BUDGET) -> list[Diagnostic]:
    """Every finding about a compiled ruleset, errors first, then by position."""
    from .analysis import Analysis  # imported when a linter runs: `rulecraft roll` never needs it
    from .report import note
    from .static import range_slips, unused

    found: list[Diagnostic] = []
    found += unused(rs)
    found += range_slips(rs)
    try:
        found += Analysis(rs, budget).run()
    except RulecraftError as exc:  # its deadline passed as it compiled its copy (the rest it catches)
        found.append(note(f"the linter stopped: {exc.diagnostics[0].message}", rs.document.span(())))
    except RecursionError:  # pragma: no cover - a deeply nested expression
        found.append(
            note("the linter stopped: an expression is nested too deeply to analyse", rs.document.span(()))
        )
    except Exception as exc:  # pragma: no cover - a bug in the linter must not hide the ruleset's findings
        found.append(
            note(
                f"the linter stopped on an internal error ({type(exc).__name__}: {exc}); please report it",
                rs.document.span(()),
            )
        )
    return ordered(found)


_RANK = {"error": 0, "warning": 1, "note": 2}


def ordered(diags: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Most likely root cause first: errors, then warnings, then notes (what the linter could not
    prove), each by file, line and column."""

    def key(d: Diagnostic) -> tuple[Any, ...]:
        s = d.span
        rank = _RANK.get(d.severity, 1)
        return (rank, s.file if s else "", s.line if s else 0, s.col if s else 0, d.code)

    return sorted(diags, key=key)


def promote(diags: Iterable[Diagnostic], strict: bool) -> list[Diagnostic]:
    """With `strict`, warnings become errors (but those of `INFO_CODES`; notes stay notes)."""
    if not strict:
        return list(diags)
    return [
        replace(d, severity="error") if d.severity == "warning" and d.code not in INFO_CODES else d
        for d in diags
    ]
