"""One deadline for all a request does (`runtime.work.request_deadline`), and the server counting
it from the request's arrival (`serve.app.RequestClock`). Hunt 13zp: a roll of a ruleset sent as
text loaded it under `--deadline`, then rolled it under a deadline started afresh (8.97 s for a
5 s deadline), and work a server thread picked up late ran its whole deadline after the wait."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from engine.api import load_source
from engine.errors import DeadlineError
from engine.runtime.work import Work, request_deadline
from engine.syntax.positions import SourceFile


def _compiled_with_the_clock_read(terms: int = 200) -> str:
    """A ruleset that compiles in tens of milliseconds, long enough that its compile reads the
    clock (`Emitter._clock`): one outcome reads a max of `terms` sums."""
    terms_text = ", ".join(f"d + {j}" for j in range(terms))
    return (
        "rulecraft: 1\nname: heavy\nchecks:\n  c0:\n    roll: {d: {die: 6}}\n"
        f'    outcomes: [lo, hi]\n    outcome: "hi if max({terms_text}) > 3 else lo"\n'
    )


def test_a_budget_made_within_a_request_deadline_stops_by_it() -> None:
    now = time.monotonic()
    with request_deadline(5.0, now + 5.0):
        longer = Work(100, 60.0)  # its own deadline is later: the request's comes first
        assert longer.until == now + 5.0 and longer.seconds == 5.0
        none = Work(100)  # no deadline of its own: the request's
        assert none.until == now + 5.0 and none.seconds == 5.0
        sooner = Work(100, 0.5)  # its own is sooner: kept
        assert sooner.until is not None and sooner.until < now + 1.0 and sooner.seconds == 0.5
        part = Work(100, 4.9, until=now + 5.0)  # a part ending with the request: told as it
        assert part.until == now + 5.0 and part.seconds == 5.0  # ("1.49959 s" had been: hunt 13zq)
        with request_deadline(2.0, now + 2.0):  # nested: the inner while it runs
            assert Work(100).until == now + 2.0
        assert Work(100).until == now + 5.0
    assert Work(100).until is None  # and none after it


def test_a_load_past_the_request_deadline_stops_with_the_request_s_message() -> None:
    text = _compiled_with_the_clock_read()
    load_source(SourceFile("free.yaml", text), deadline=5.0)  # loads, given its own 5 s
    with request_deadline(7.0, time.monotonic() - 0.1), pytest.raises(DeadlineError) as caught:
        load_source(SourceFile("late.yaml", text), deadline=5.0)
    assert "the deadline of 7 s passed" in caught.value.diagnostics[0].message


pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")

from engine.serve.app import Settings, create_app  # noqa: E402


async def _late_body(payload: dict[str, Any], after: float) -> AsyncIterator[bytes]:
    """The request's body, sent `after` seconds after the request arrived."""
    await asyncio.sleep(after)
    yield json.dumps(payload).encode()


def _post_late(app: Any, path: str, payload: dict[str, Any], after: float) -> httpx.Response:
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
            return await client.post(
                path, content=_late_body(payload, after), headers={"content-type": "application/json"}
            )

    return asyncio.run(go())


@pytest.mark.parametrize(
    ("path", "extra"),
    [("/api/validate", {}), ("/api/roll", {"check": "c0"}), ("/api/prob", {"check": "c0"})],
)
def test_the_server_counts_a_request_s_deadline_from_its_arrival(
    tmp_path: Path, path: str, extra: dict[str, Any]
) -> None:
    """A body that comes after the deadline has passed is a 504 when its work reads the clock:
    it was a 200, the text loaded (and rolled) under deadlines that started when the body was
    read. The same text sent at once is answered (the test can fail)."""
    app = create_app(Settings(db=str(tmp_path / "c.db"), deadline=1.5, workers=1))
    try:
        payload = {"source": _compiled_with_the_clock_read(), "name": "heavy.yaml", **extra}
        on_time = _post_late(app, path, payload, 0.0)
        assert on_time.status_code == 200, on_time.text
        payload["name"] = "heavy2.yaml"  # not the one compiled and kept already
        late = _post_late(app, path, payload, 1.8)
        assert late.status_code == 504, late.text
        [d] = late.json()["error"]["diagnostics"]
        assert d["code"] == "RC503" and "deadline of 1.5 s passed" in d["message"], d
    finally:
        app.state.server.close()


def _folds_a_heavy_constant(depth: int = 15) -> str:
    """A ruleset whose load folds a constant through 2^depth table calls (past the clock's first
    look at 20,000 units of work)."""
    lines = ["rulecraft: 1", "name: folded", "tables:"]
    for i in range(depth):
        body = f"t{i + 1}(x) + t{i + 1}(x + 1)" if i < depth - 1 else "x"
        lines += [f"  t{i}:", "    params: [x]", f'    value: "{body}"']
    lines += ["checks:", "  c:", "    roll: {d: {die: 6}}", "    outcomes: [lo, hi]"]
    lines += ["    let: {k: t0(1)}", "    outcome: \"'hi' if d + k > 3 else 'lo'\""]
    return "\n".join(lines) + "\n"


def test_a_served_file_is_compiled_under_its_own_bounds_alone(tmp_path: Path) -> None:
    """A served ruleset's file is compiled once for every request after it: cut by the deadline
    of the request that first asked for it, the folding of its constant was told as a fault at a
    line of the operator's file (422), and a listing left the file out (hunt 13zq). Any other
    load in a request keeps to the request's deadline: a ruleset sent as text, and the compiles a
    validation's linter makes to probe its tables (cut by none for a while: hunt 13zr)."""
    import engine
    from engine.errors import LimitError
    from engine.serve.app import Catalog

    path = tmp_path / "folded.yaml"
    path.write_text(_folds_a_heavy_constant())
    catalog = Catalog(Settings(db=str(tmp_path / "c.db"), rulesets=tmp_path), engine.Limits())
    with request_deadline(1.0, time.monotonic() - 1.0):
        rs = catalog.file(path)  # folded whole, as at start-up
        with pytest.raises(LimitError) as caught:  # a load in the request: the request's deadline
            engine.load(path)
        assert "folding this constant: the deadline of 1 s passed" in caught.value.diagnostics[0].message
        with pytest.raises(DeadlineError):  # a text sent, with its own clock: the request's 504
            load_source(SourceFile("sent.yaml", _folds_a_heavy_constant()), deadline=5.0)
    assert rs.distribution("c").table()


def test_a_write_waits_for_the_store_only_what_its_deadline_has_left(tmp_path: Path) -> None:
    """A write whose store was locked waited the whole deadline from when it began to wait, so a
    request answered 503 after 5.5 s under `--deadline 3` (hunt 13zq): its wait is now what the
    request has left. The body comes 2 s into a 3 s deadline: answered at about 3 s, not 5."""
    import sqlite3

    db = tmp_path / "c.db"
    app = create_app(Settings(db=str(db), workers=1, deadline=3.0))
    try:
        made = _post_late(
            app, "/api/campaigns", {"name": "k", "ruleset": "chill", "params": {"players": 4}}, 0
        )
        assert made.status_code == 201, made.text
        holder = sqlite3.connect(db, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            started = time.monotonic()
            answer = _post_late(app, "/api/campaigns/k/begin", {"period": "case"}, 2.0)
            took = time.monotonic() - started
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert answer.status_code == 503, answer.text
        [d] = answer.json()["error"]["diagnostics"]
        assert d["code"] == "RC903" and "is locked" in d["message"], d
        waited = re.search(r"for more than ([0-9.]+) s", d["message"])
        assert waited is not None and float(waited.group(1)) <= 1.0, d  # what was left, to a tenth
        assert took < 4.3, took  # the deadline's 3 s; the whole deadline after the 2 s was 5 s
    finally:
        app.state.server.close()


def test_a_campaign_request_that_came_late_never_waited_for_its_turn(tmp_path: Path) -> None:
    """Its 504 said "while it waited for its turn" though it had not waited (hunt 13zq)."""
    app = create_app(Settings(db=str(tmp_path / "c.db"), workers=1, deadline=0.5))
    try:
        made = _post_late(
            app, "/api/campaigns", {"name": "k", "ruleset": "chill", "params": {"players": 4}}, 0
        )
        assert made.status_code == 201, made.text
        act = {"action": "player_roll", "inputs": {"target": 55}, "seed": 1}
        late = _post_late(app, "/api/campaigns/k/act", act, 0.8)
        assert late.status_code == 504, late.text
        [d] = late.json()["error"]["diagnostics"]
        assert d["message"] == "the request's deadline passed before its turn began", d
    finally:
        app.state.server.close()


def test_a_wait_for_a_lock_is_at_most_what_the_request_has_left() -> None:
    from engine.runtime.work import LEAST_WAIT, wait_within

    assert wait_within(10.0) == 10.0  # no request: the store's own
    with request_deadline(5.0, time.monotonic() + 2.04):
        assert wait_within(10.0) == 2.0 and wait_within(1.5) == 1.5  # to a tenth; its own if less
    with request_deadline(5.0, time.monotonic() - 3.0):
        assert wait_within(10.0) == LEAST_WAIT  # passed: a store free at once is still written


def test_a_sqlite_write_waits_what_is_left_when_it_begins_to_wait(tmp_path: Path) -> None:
    """Asked when the write begins, after the work before it: a wait worked out when the store
    was opened ran past the deadline by the time an action took to work out (hunt 13zr)."""
    import sqlite3

    from engine.api import open_store
    from engine.errors import CampaignError

    db = tmp_path / "c.db"
    with open_store(db) as store:
        store.create(_header(), {"params": {}, "shared": {}, "characters": {}})
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with open_store(db, wait=10) as store:  # opened with its whole wait: 10 s
            with request_deadline(5.0, time.monotonic() + 0.65):  # 0.6 s left when it writes, to a tenth
                started = time.monotonic()
                with pytest.raises(CampaignError) as caught:
                    with store.transaction("k") as tx:
                        tx.append("note", {}, tx.last().state)
                took = time.monotonic() - started
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    message = caught.value.diagnostics[0].message
    waited = re.search(r"for more than ([0-9.]+) s", message)  # what was left, down to a tenth
    assert "is locked" in message and waited is not None and 0.1 <= float(waited.group(1)) <= 0.6, message
    assert took < 3.0, took


def _header() -> Any:
    from engine.state.records import Header

    return Header("k", "chill", "0" * 64, "text", {}, "2026-12-07T00:00:00Z")


def test_a_lock_s_advice_is_worded_for_a_read_as_for_a_write() -> None:
    """A read that met a lock was told of "the campaign store's write lock" (hunt 13zs)."""
    from engine.errors import Advice, Diagnostic
    from engine.serve.advice import api_hint

    said = api_hint(Diagnostic("RC903", "locked", None, "wait", advice=Advice("retry")))
    assert said is not None and "write lock" not in said and "held a lock on the campaign store" in said
    assert "nothing was written by it; send the request again in a moment (Retry-After)" in said
