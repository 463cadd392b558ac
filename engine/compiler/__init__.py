"""A validated `Document` to a frozen `RulesetModel`: one compile stage.

`version` refuses unknown formats first; `structure` builds scales, bags, checks, randomizers
and examples; `expressions` resolves names, checks types and folds constants; `codegen` turns
each expression, table and check program into one Python function.
May import: the layers below it — `engine.errors`, `engine.syntax`, `engine.expr`, `engine.model`,
`engine.runtime`; not its sibling `engine.eval`.
"""

from .structure import compile_document
from .version import check_version

__all__ = ["check_version", "compile_document"]
