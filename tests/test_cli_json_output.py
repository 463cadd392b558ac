"""The command line's JSON is written in one piece: `json.dump` handed its stream millions of
pieces of a large answer, each through the guarded, escaping writers every line passes, and a log
of 10,000 events took 5.5 s to print where it takes 1 s in one write (hunt 13ze). Counted here as
the writes that reach the stream, not timed."""

from __future__ import annotations

import io
import json
from pathlib import Path

from engine.cli import run


class _Counted(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)


def _run(*argv: str) -> tuple[int, _Counted, str]:
    out, err = _Counted(), io.StringIO()
    code = run(list(argv), out, err)
    return code, out, err.getvalue()


def test_a_long_log_as_json_is_one_write(tmp_path: Path) -> None:
    db = str(tmp_path / "c.db")
    assert _run("campaign", "--db", db, "new", "c", "chill", "-p", "players=4")[0] == 0
    for n in range(60):
        assert (
            _run("campaign", "--db", db, "act", "c", "turn_dark" if n % 2 else "turn_light", "-i", "n=1")[0]
            == 0
        )
    code, out, err = _run("campaign", "--db", db, "log", "c", "--json")
    assert code == 0, err
    events = json.loads(out.getvalue())
    assert len(events) == 61 and events[-1]["seq"] == 61
    assert out.writes <= 2, out.writes
    code, out, err = _run("campaign", "--db", db, "export", "c")
    assert code == 0, err
    assert json.loads(out.getvalue())["campaign"] == "c" and out.writes <= 2, out.writes


def test_a_sweep_as_json_is_one_write() -> None:
    code, out, err = _run("prob", "chill", "specific", "--sweep", "target=1..60", "--json")
    assert code == 0, err
    assert len(json.loads(out.getvalue())["rows"]) == 60 and out.writes <= 2, out.writes
