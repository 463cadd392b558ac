"""What one compilation shares: the document, the diagnostics found so far, and the scales,
bags, tables and builtins declared so far. `Structure` and `Expressions` both read and grow
it, so neither has to inherit from the other to see it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import Diagnostic
from ..model.ruleset import Bag, Scale, Table
from ..runtime.builtins import Builtin
from ..runtime.limits import DEFAULT_LIMITS, Limits
from ..syntax.document import Document
from .codegen import Emitter


@dataclass(eq=False)
class Unit:
    """One document being compiled (a compilation unit, not `engine.state`'s campaign state)."""

    doc: Document
    limits: Limits = DEFAULT_LIMITS
    diags: list[Diagnostic] = field(default_factory=list)
    scales: dict[str, Scale] = field(default_factory=dict)
    bags: dict[str, Bag] = field(default_factory=dict)
    tables: dict[str, Table] = field(default_factory=dict)
    builtins: dict[str, Builtin] = field(default_factory=dict)
    emit: Emitter = field(default_factory=Emitter)
    # Names that are Python locals in generated code (table parameters, program values).
    locals: set[str] = field(default_factory=set)
    # Inline scales, by the check that declared them; their names are quoted only there.
    owner: dict[str, str] = field(default_factory=dict)
    # The check being compiled, which decides which inline scales a quoted name may mean.
    current: str | None = None
    # The pools of that check declared so far: what first_roll() and its kin may read.
    pools: set[str] = field(default_factory=set)
    # The most work units one call of each table charges (itself and the tables it calls), and
    # a running total per body being lowered: the language has no loops, so a call site runs
    # at most once per evaluation and these sums bound what an evaluation charges.
    table_units: dict[str, int] = field(default_factory=dict)
    counted: list[int] = field(default_factory=list)

    @property
    def data(self) -> dict[str, Any]:
        """The document's data as the mapping the schema check has already guaranteed."""
        data: dict[str, Any] = self.doc.data
        return data
