"""RC201's hint lists what could come where the expression stopped: what can begin a value (a name,
a number, a quoted name) first, then punctuation and words. Sorted as text, `'('` and the like came
first, and the six shown left out "a name" and "a number" (hunt 13y: `d >=` was told "expected
'(', '+', '-', '[', 'false', 'true'", as docs/diagnostics.md's own RC201 example was)."""

from __future__ import annotations

import pytest

from engine.errors import ExprSyntaxError
from engine.expr.parser import parse


@pytest.mark.parametrize("text", ["d >=", "x +", "not"])
def test_a_value_is_offered_first(text: str) -> None:
    with pytest.raises(ExprSyntaxError) as error:
        parse(text)
    hint = error.value.diagnostics[0].hint or ""
    assert hint.startswith("expected a name, a number, a quoted name, "), hint
