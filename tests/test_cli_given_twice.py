"""A value or a name given twice on the command line is RC407, never the row shown twice or the
second taken silently (hunt 13f): `--expect X --expect X` printed X once, `--grid p=1,1` showed
the row for 1 twice, as `prob --sweep target=5,5` did."""

from __future__ import annotations


def test_expect_given_twice_is_refused(cli) -> None:  # type: ignore[no-untyped-def]
    r = cli("scene", "prob", "castle", "duel", "--expect", "you.wound_track", "--expect", "you.wound_track")
    assert r.code == 1 and r.out == ""
    assert "error RC407: --expect 'you.wound_track' is given twice" in r.err
    assert "give each name once" in r.err


def test_a_value_given_twice_in_a_grid_or_a_sweep_is_refused(cli) -> None:  # type: ignore[no-untyped-def]
    r = cli("prob", "chill", "specific", "--sweep", "target=5,6,5")
    assert r.code == 1 and r.out == ""
    assert "error RC407: the value '5' of --sweep 'target=5,6,5' is given twice" in r.err
    assert "give each value once" in r.err
    g = cli("scene", "prob", "castle", "duel", "--grid", "you.skill=1,1")
    assert g.code == 1 and "the value '1' of --grid 'you.skill=1,1' is given twice" in g.err
