"""What one compilation shares: the document, the diagnostics found so far, and the scales,
bags, tables and builtins declared so far. `Structure` and `Expressions` both read and grow
it, so neither has to inherit from the other to see it."""

from __future__ import annotations

from typing import Any

from ..errors import Diagnostic, limit_advice
from ..frozen import frozen
from ..model.ruleset import Bag, Scale, Table
from ..runtime.builtins import Builtin
from ..runtime.limits import DEFAULT_LIMITS, Limits
from ..syntax.document import Document, PathKey
from .codegen import Emitter
from .problems import Problem


class Unit:
    """One document being compiled (a compilation unit, not `engine.state`'s campaign state).
    A plain class: it changes as the compilation goes, and is never compared."""

    def __init__(self, doc: Document, limits: Limits = DEFAULT_LIMITS, *, inline: bool = True) -> None:
        self.doc: Document = doc
        self.limits: Limits = limits
        self.diags: list[Diagnostic] = []
        self.scales: dict[str, Scale] = {}
        self.bags: dict[str, Bag] = {}
        self.tables: dict[str, Table] = {}
        self.builtins: dict[str, Builtin] = {}
        self.emit: Emitter = Emitter(limits.max_code)
        # Names that are Python locals in generated code (table parameters, program values).
        self.locals: set[str] = set()
        # Inline scales, by the check that declared them; their names are quoted only there.
        self.owner: dict[str, str] = {}
        # The check being compiled, which decides which inline scales a quoted name may mean.
        self.current: str | None = None
        # The pools of that check declared so far: what first_roll() and its kin may read.
        self.pools: set[str] = set()
        # The randomizers of that check made so far that have a redraw: what redraws() may count.
        self.redrawn: set[str] = set()
        # The most work units one call of each table charges (itself and the tables it calls), and
        # a running total per body being lowered: the language has no loops, so a call site runs
        # at most once per evaluation and these sums bound what an evaluation charges.
        self.table_units: dict[str, int] = {}
        self.counted: list[int] = []
        # The Python name of a local where it is not `v_<name>`: a table's parameters are `_t<k>_<name>`,
        # so that its body can be written into a check's generated loop beside the check's own values.
        self.renamed: dict[str, str] = {}
        # Per table whose body is a plain if/elif chain (`rules:` or `value:`), that body as parts a
        # generated loop can hold instead of a call (`Expressions.assign`); none when `inline` is off.
        self.inline: bool = inline
        self.bodies: dict[str, InlineBody] = {}

    def within(self, what: str, value: Any, limit: str, path: PathKey, *, key: bool = False) -> None:
        """Refuse at load (`RC503`) a constant size that no roll could fit in `Limits.<limit>`,
        placed at `path`'s value (`key`: at its key, for a size its whole mapping makes)."""
        bound = getattr(self.limits, limit)
        if type(value) is int and value > bound:
            said = f"{what}: over the limit of {bound:,} (Limits.{limit})"
            span = self.doc.span(path, key=key)
            raise Problem(Diagnostic("RC503", said, span, **limit_advice(limit, "use less")))

    @property
    def data(self) -> dict[str, Any]:
        """The document's data as the mapping the schema check has already guaranteed."""
        data: dict[str, Any] = self.doc.data
        return data


@frozen
class InlineBody:
    """A table's body as a generated loop writes it in place of a call: bind `params` to the
    arguments, then the first row whose condition holds gives the result; no row: `otherwise`.
    Both parts keep their own error spans (`where`: the table's), as the call did."""

    params: tuple[str, ...]
    """The body's local names, in parameter order."""
    rows: tuple[tuple[str | None, str], ...]
    """(condition's source, or None for an `else:` row; result's source)."""
    otherwise: str
    """The statement that raises when no row matches."""
    where: str
    """The constant that names the table's span, where an error inside its body is placed."""
