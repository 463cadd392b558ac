"""Two messages of the Python API that contradicted themselves or said too little (hunt 13k).

`engine.load(" chill ")` said "no ruleset 'chill' ... did you mean 'chill'?": the name shown was
stripped, the name looked up was not. And `target=Decimal("55")` was "is not a number": it is one,
of a kind the API does not take.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

import engine
from engine.errors import InputError, LoadError


@pytest.mark.parametrize("name", [" chill ", "chill\n", "\tchill"])
def test_a_shipped_name_with_spaces_around_it_says_so(name: str) -> None:
    with pytest.raises(LoadError) as raised:
        engine.load(name)
    [d] = raised.value.diagnostics
    assert d.code == "RC001"
    assert d.message == f"no ruleset {name!r}: a name has no spaces or line breaks around it"
    assert d.hint == "did you mean 'chill'?"


def test_a_decimal_is_told_as_a_kind_of_number_not_taken() -> None:
    with pytest.raises(InputError) as raised:
        engine.load("chill").roll("specific", target=Decimal("55"))
    [d] = raised.value.diagnostics
    assert d.code == "RC404"
    assert d.message == (
        "input 'target' = Decimal('55') is a Decimal, not a kind of number taken "
        "(an int, a Fraction, a float or its text)"
    )
    with pytest.raises(InputError) as listed:  # anything else is still not a number
        engine.load("chill").roll("specific", target=[55])
    assert "is not a number" in listed.value.diagnostics[0].message
