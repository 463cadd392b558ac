"""`prob --policy all` shows `always` and `never` where `optimal` is no way to play the check.

Found by hunt 13j: on a check with a `may` step and a `then: again` rule (RC508 under `optimal`),
or a `may` on a chain that returns (RC505), the whole table ended with that error, though the
two other columns are exact and are what a designer asks the table for.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from test_roll_again import CHOOSING

PICK = CHOOSING  # the check of test_roll_again's policies


def test_the_table_shows_the_policies_that_play_it(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "choosing.yaml"
    path.write_text(PICK)
    r = cli("prob", str(path), "pick", "--policy", "all")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[1].split() == ["always", "never", "optimal"]
    assert lines[2].split() == ["low", "28.57%", "50.00%", "-"], lines
    assert lines[3].split() == ["high", "71.43%", "50.00%", "-"], lines
    assert any(
        line.startswith("  note (optimal): policy 'optimal' cannot play") and "(RC508)" in line
        for line in lines
    )


def test_the_json_lists_it_as_unplayable(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "choosing.yaml"
    path.write_text(PICK)
    r = cli("prob", str(path), "pick", "--policy", "all", "--json")
    assert r.code == 0, r.err
    data = json.loads(r.out)
    assert set(data["policies"]) == {"always", "never"}
    assert data["unplayable"]["optimal"]["code"] == "RC508"
    # and a check every policy plays has no such key
    r = cli("prob", "chimera", "skill", "--input", "dice=2", "--policy", "all", "--json")
    assert r.code == 0 and "unplayable" not in json.loads(r.out), r.err
