"""A campaign's log is read a page at a time where it can be long: `Campaign.log` and the
command line's `log` take a window (`after`, `before`, at most so many, the oldest or the
newest), the server's `/log` answers a page of at most 1,000 events with `Link`s to the next and
the previous, and an undo reads the log from its newest event back only as far as the change it
reverses. Before, each read the whole log (at 200,000 events `/log` took 18 s, an undo 6 s),
and an undo charged every event to its budget (a log longer than the budget could not be undone
at all)."""

from __future__ import annotations

import asyncio
import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

import engine
from engine import Limits
from engine.errors import CampaignError, InputError
from engine.state import campaign as campaign_module
from engine.state.memory import MemoryStore
from engine.state.records import WHOLE, Event, Store, Window
from engine.state.sqlite import SqliteStore

COUNT = """\
rulecraft: 1
name: count
checks:
  flip:
    roll: {d: {die: 2}}
    outcomes: [low, high]
    outcome: "'high' if d == 2 else 'low'"
state:
  shared:
    n: {counter: 0, min: 0}
actions:
  tick:
    effects:
      - {add: {n: 1}}
"""


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    made: Store = MemoryStore() if request.param == "memory" else SqliteStore(tmp_path / "c.db")
    yield made
    made.close()


def n_of(campaign: engine.Campaign) -> int:
    value: int = campaign.show()["shared"]["n"]
    return value


# -- Campaign.log -----------------------------------------------------------------------------------


def test_log_reads_the_window_it_is_given(store: Store) -> None:
    campaign = engine.new_campaign("c", COUNT, store=store)
    for _ in range(9):
        campaign.act("tick")
    seqs = lambda **window: [e.seq for e in campaign.log(**window)]  # noqa: E731
    assert seqs() == list(range(1, 11))
    assert seqs(after=3, limit=2) == [4, 5]
    assert seqs(limit=3, newest=True) == [8, 9, 10]
    assert seqs(before=4) == [1, 2, 3]
    assert seqs(after=2, before=9, limit=2, newest=True) == [7, 8]
    assert seqs(after=10) == [] and seqs(before=1) == []
    paged, after = [], 0
    while page := campaign.log(after=after, limit=3):
        paged += page
        after = page[-1].seq
    assert paged == campaign.log()


@pytest.mark.parametrize(
    ("window", "said"),
    [
        ({"after": -1}, "the argument 'after' must be at least 0, got -1"),
        ({"before": 0}, "the argument 'before' must be at least 1, got 0"),
        ({"limit": 0}, "the argument 'limit' must be at least 1, got 0"),
        ({"after": 2**53 + 1}, "the argument 'after' must be at most 9,007,199,254,740,992"),
    ],
)
def test_a_window_out_of_range_is_rc410(window: dict[str, Any], said: str) -> None:
    campaign = engine.new_campaign("c", COUNT, store=MemoryStore())
    with pytest.raises(InputError) as error:
        campaign.log(**window)
    assert error.value.diagnostics[0].code == "RC410"
    assert said in error.value.diagnostics[0].message


@pytest.mark.parametrize("window", [{"after": "3"}, {"limit": 2.0}, {"before": True}, {"newest": "yes"}])
def test_a_window_of_the_wrong_type_is_a_type_error(window: dict[str, Any]) -> None:
    campaign = engine.new_campaign("c", COUNT, store=MemoryStore())
    with pytest.raises(TypeError, match="Campaign.log"):
        campaign.log(**window)


# -- undo looks back a page at a time -----------------------------------------------------------------


@pytest.mark.parametrize("page", [1, 2, 3, 256])
def test_undo_walks_back_across_pages_as_it_did_over_the_whole_log(
    store: Store, page: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rolls are passed over and undone changes walked past, however the pages fall: three ticks
    with rolls between and after them, undone one by one back to the making."""
    monkeypatch.setattr(campaign_module, "UNDO_PAGE", page, raising=False)
    campaign = engine.new_campaign("c", COUNT, store=store)
    for _ in range(3):
        campaign.act("tick")
        for seed in range(4):
            campaign.roll("flip", seed=seed)
    assert n_of(campaign) == 3
    undone = []
    for want in (2, 1, 0):
        event = campaign.undo()
        undone.append(event.undoes)
        assert n_of(campaign) == want and event.state["shared"]["n"] == want
    assert undone == [12, 7, 2]  # the ticks, newest first
    with pytest.raises(CampaignError) as error:
        campaign.undo()
    assert error.value.diagnostics[0].code == "RC908"
    assert "has nothing to undo" in error.value.diagnostics[0].message
    assert campaign.replay()["shared"]["n"] == 0


def test_an_undo_is_charged_for_what_it_reads_not_for_the_whole_log() -> None:
    """A budget of 1,000 units and a log of 1,500 events: the undo charged every event before
    (RC503, so such a campaign could never be undone), and now the page it reads."""
    campaign = engine.new_campaign("c", COUNT, store=MemoryStore(), limits=Limits(max_work=1_000))
    for _ in range(1_500):
        campaign.act("tick")
    event = campaign.undo()
    assert event.undoes == 1_501 and n_of(campaign) == 1_499


def test_undo_after_a_migration_says_what_stops_it_across_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The RC908 that names the change before a migration reads on past the migration, a page at
    a time, as far as that change."""
    monkeypatch.setattr(campaign_module, "UNDO_PAGE", 2, raising=False)
    rules = tmp_path / "count.yaml"
    rules.write_text(COUNT)
    store = SqliteStore(tmp_path / "c.db")
    campaign = engine.new_campaign("c", engine.load(rules), store=store)
    campaign.act("tick")
    for seed in range(5):
        campaign.roll("flip", seed=seed)
    rules.write_text(COUNT.replace("outcomes: [low, high]", "outcomes: [low, high]  # changed"))
    moved = engine.open_campaign("c", store=store, ruleset=engine.load(rules), migrate=True)
    moved.roll("flip", seed=9)  # the migration is written with this change
    with pytest.raises(CampaignError) as error:
        moved.undo()
    message = error.value.diagnostics[0].message
    assert "nothing to undo since its ruleset was migrated (#8)" in message
    assert "to #2 (action)" in message
    store.close()


def test_a_gap_met_between_an_undos_pages_is_rc903(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages read newest first must join: a log with an event deleted from outside, met where one
    page ends, is damaged (RC903), not undone to the state of the event before the gap."""
    import sqlite3

    monkeypatch.setattr(campaign_module, "UNDO_PAGE", 3, raising=False)
    db = tmp_path / "c.db"
    store = SqliteStore(db)
    campaign = engine.new_campaign("c", COUNT, store=store)
    campaign.act("tick")  # 2
    for seed in range(9):  # 3 .. 11
        campaign.roll("flip", seed=seed)
    raw = sqlite3.connect(db)
    raw.execute("DELETE FROM events WHERE campaign = 'c' AND seq = 5")
    raw.commit()
    raw.close()
    with pytest.raises(CampaignError) as error:
        campaign.undo()  # pages 9-11, 6-8, then 2-4, which does not end at 5
    assert error.value.diagnostics[0].code == "RC903"
    assert "event 5 is missing" in error.value.diagnostics[0].message
    store.close()


# -- the command line ---------------------------------------------------------------------------------


def test_the_command_lines_log_takes_a_window(cli: Any, tmp_path: Path) -> None:
    rules = tmp_path / "count.yaml"
    rules.write_text(COUNT)
    db = str(tmp_path / "c.db")
    assert cli("campaign", "--db", db, "new", "c", str(rules)).code == 0
    for _ in range(5):
        assert cli("campaign", "--db", db, "act", "c", "tick").code == 0

    def seqs(*window: str) -> list[int]:
        r = cli("campaign", "--db", db, "log", "c", *window)
        assert r.code == 0, r.err
        text = [int(m) for m in re.findall(r"^#(\d+) ", r.out, re.MULTILINE)]
        r = cli("campaign", "--db", db, "log", "c", "--json", *window)
        assert [e["seq"] for e in json.loads(r.out)] == text
        return text

    assert seqs() == [1, 2, 3, 4, 5, 6]
    assert seqs("--after", "2", "--first", "2") == [3, 4]
    assert seqs("--last", "2") == [5, 6]
    assert seqs("--before", "3") == [1, 2]
    assert seqs("--after", "6") == []
    r = cli("campaign", "--db", db, "log", "c", "--first", "0")
    assert r.code == 1 and "error RC410: the argument '--first' must be at least 1, got 0" in r.err
    r = cli("campaign", "--db", db, "log", "c", "--after", "-1")
    assert r.code == 1 and "error RC410: the argument '--after' must be at least 0, got -1" in r.err


def test_the_command_lines_campaign_list_takes_a_window(cli: Any, tmp_path: Path) -> None:
    """`campaign list` listed every campaign at once; it takes a page as `GET /api/campaigns`
    answers one: those named after `--after NAME` (code-point order), the first `--first N`."""
    rules = tmp_path / "count.yaml"
    rules.write_text(COUNT)
    db = str(tmp_path / "c.db")
    names = ["b", "a", "Émile", "c", "日本", "it's", "-x"]  # a name may start with '-'
    for name in names:
        assert cli("campaign", "--db", db, "new", "--", name, str(rules)).code == 0

    def listed(*window: str) -> list[str]:
        r = cli("campaign", "--db", db, "list", *window)
        assert r.code == 0, r.err
        text = re.findall(r"^(.+)  \(", r.out, re.MULTILINE)
        r = cli("campaign", "--db", db, "list", "--json", *window)
        assert [c["campaign"] for c in json.loads(r.out)] == text
        return text

    assert listed() == sorted(names)
    assert listed("--first", "2") == ["-x", "a"]
    assert listed("--after", "b") == ["c", "it's", "Émile", "日本"]
    assert listed("--after", "b", "--first", "2") == ["c", "it's"]
    assert listed("--after", "日本") == [] and listed("--after", "") == sorted(names)
    r = cli("campaign", "--db", db, "list", "--after", "b", "--first", "2")
    # the store named as given, so the line pasted reads the same store (hunt 13l: it read the default)
    store = shlex.quote(str(db))
    assert r.out.endswith(
        f"more may follow: rulecraft campaign --db {store} list --after='it'\"'\"'s' --first 2\n"
    )
    seen, after = [], None  # the line a full page ends with pages through them all
    while True:
        # the line is run as printed: `--after -x` would read '-x' as a flag (review AO)
        r = cli("campaign", "--db", db, "list", "--first", "2", *([f"--after={after}"] if after else []))
        assert r.code == 0, r.err
        seen += re.findall(r"^(.+)  \(", r.out, re.MULTILINE)
        more = re.search(r"^more may follow: .* --after=(.+) --first 2$", r.out, re.MULTILINE)
        if more is None:
            break
        after = shlex.split(more[1])[0]
    assert seen == sorted(names)
    for window, said in [
        (["--first", "0"], "error RC410: the argument '--first' must be at least 1, got 0"),
        (["--first", "-2"], "error RC410: the argument '--first' must be at least 1, got -2"),
        (
            ["--first", "1" + "0" * 20],
            "error RC410: the argument '--first' must be at most 9,007,199,254,740,992",
        ),
        (["--first", "two"], "error RC407: --first: expected a whole number, got 'two'"),
        (["--after", "b\udcff"], "error RC410: the argument '--after' holds a lone surrogate"),
        (["--after", "b\x00"], "error RC410: the argument '--after' holds a NUL character"),
    ]:
        r = cli("campaign", "--db", db, "list", *window)
        assert r.code == 1 and said in r.err and not r.out, (window, r.err)
    r = cli("campaign", "--db", db, "list", "--last", "2")
    assert r.code == 2 and "unrecognized arguments: --last" in r.err  # names have no newest


# -- the server -----------------------------------------------------------------------------------------


def linked(header: str) -> dict[str, tuple[str, dict[str, str]]]:
    """A `Link` header's addresses by their `rel`, each as its path and its query's fields."""
    out = {}
    for address, rel in re.findall(r'<([^>]*)>; rel="(\w+)"', header):
        parts = urlsplit(address)
        out[rel] = (parts.path, dict(parse_qsl(parts.query)))
    return out


def test_the_servers_log_answers_pages_linked_to_each_other(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from engine.serve.app import Settings, create_app

    db = tmp_path / "c.db"
    store = SqliteStore(db)
    engine.new_campaign("long", COUNT, store=store)
    with store.transaction("long") as tx:  # 2,100 more events, written at once
        state = tx.last().state
        for _ in range(2_100):
            tx.append("period", {"period": "night", "effects": []}, state)
    store.close()
    with TestClient(create_app(Settings(db=str(db), workers=1))) as client:
        url = "/api/campaigns/long/log"
        first = client.get(url)
        assert first.status_code == 200
        assert [e["seq"] for e in first.json()] == list(range(1, 1_001))
        assert linked(first.headers["link"]) == {"next": (url, {"after": "1000"})}
        seen, answer = [], first
        while True:
            seen += [e["seq"] for e in answer.json()]
            links = dict(
                (rel, u) for u, rel in re.findall(r'<([^>]*)>; rel="(\w+)"', answer.headers.get("link", ""))
            )
            if "next" not in links:
                break
            answer = client.get(links["next"])
        assert seen == list(range(1, 2_102))
        newest = client.get(url, params={"newest": "true", "limit": 5})
        assert [e["seq"] for e in newest.json()] == [2_097, 2_098, 2_099, 2_100, 2_101]
        assert linked(newest.headers["link"]) == {
            "prev": (url, {"newest": "true", "limit": "5", "before": "2097"})
        }
        older = client.get(f"{url}?newest=true&limit=5&before=2097")
        assert [e["seq"] for e in older.json()] == [2_092, 2_093, 2_094, 2_095, 2_096]
        assert 'rel="next"' in older.headers["link"] and 'rel="prev"' in older.headers["link"]
        assert [e["seq"] for e in client.get(url, params={"after": 5, "before": 9}).json()] == [6, 7, 8]
        assert "link" in client.get(url, params={"after": 5, "before": 9}).headers  # a prev page
        assert "link" not in client.get(url, params={"before": 3}).headers  # the log's start, not full
        for bad, field in (({"limit": 1_001}, "limit"), ({"after": -1}, "after"), ({"before": 0}, "before")):
            refused = client.get(url, params=bad)
            assert refused.status_code == 422, refused.text
            [d] = refused.json()["error"]["diagnostics"]
            assert d["code"] == "RC407" and f"query.{field}" in d["text"], d


NAMES = ["Город", "😀", "café", "a%2Fb", 'a b<">', "x?y#z"]


def test_a_log_link_percent_encodes_the_campaigns_name(tmp_path: Path) -> None:
    """The `/log` page's `Link` wrote the name as it was decoded: `Город` or `😀` failed the
    response (500, `UnicodeEncodeError`), `café` went out as a raw Latin-1 byte, `a%2Fb` linked
    to `a/b` (404) and a space or `<>"` broke RFC 8288. Each link is ASCII and leads back to the
    campaign's log."""
    pytest.importorskip("fastapi")
    from engine.serve.app import Settings, create_app

    db = tmp_path / "c.db"
    store = SqliteStore(db)
    for name in NAMES:
        engine.new_campaign(name, COUNT, store=store)
        with store.transaction(name) as tx:
            state = tx.last().state
            for _ in range(3):
                tx.append("period", {"period": "night", "effects": []}, state)
    store.close()
    app = create_app(Settings(db=str(db), workers=1))
    try:
        asyncio.run(_follow_log_links(app))
    finally:
        app.state.server.close()


async def _follow_log_links(app: Any) -> None:
    """Each name's newest page, its `prev` link followed, and the oldest page's `next`. Sent
    through httpx's own ASGI transport: Starlette's `TestClient` decodes a path twice (`a%252Fb`
    reaches the app as `a/b`), as no HTTP server does."""
    import httpx

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        for name in NAMES:
            url = f"/api/campaigns/{quote(name, safe='')}/log"
            newest = await client.get(url, params={"newest": "true", "limit": 1})
            assert newest.status_code == 200, (name, newest.text)
            header = newest.headers["link"]
            assert header.isascii() and re.fullmatch(r'<[!-~]+>; rel="prev"', header), (name, header)
            prev = re.findall(r"<([^>]*)>", header)[0]
            assert urlsplit(prev).path == url, (name, prev)
            older = await client.get(prev)
            assert older.status_code == 200 and [e["seq"] for e in older.json()] == [3], (name, older.text)
            assert re.findall(r"<([^>]*)>", older.headers["link"])[0].startswith(url + "?")
            oldest = await client.get(url, params={"limit": 2})
            assert urlsplit(re.findall(r"<([^>]*)>", oldest.headers["link"])[0]).path == url


# -- a replay too long for its budget is refused unread -------------------------------------------------


class CountedStore(MemoryStore):
    """A memory store that counts the events read from it (a real store: it keeps and answers
    as `MemoryStore` does)."""

    def __init__(self) -> None:
        super().__init__()
        self.read = 0

    def events(self, name: str, window: Window = WHOLE) -> list[Event]:
        got = super().events(name, window)
        self.read += len(got)
        return got


def test_a_replay_is_charged_for_the_log_before_it_reads_it() -> None:
    """Each event's reading and `EVENT_WORK` are charged for the events there are (the newest
    event's number) before any is read: a log the budget cannot replay is refused unread, where
    200,000 events took 6 s to read before the first was charged. Within the budget, a replay is
    charged as before and agrees."""
    store = CountedStore()
    campaign = engine.new_campaign("c", COUNT, store=store)
    for _ in range(99):
        campaign.act("tick")
    per_event = 1 + campaign_module.EVENT_WORK
    tight = engine.open_campaign("c", store=store, ruleset=COUNT, limits=Limits(max_work=100 * per_event - 1))
    store.read = 0
    with pytest.raises(engine.LimitError) as error:
        tight.replay()
    assert error.value.diagnostics[0].code == "RC503" and store.read == 0
    roomy = engine.open_campaign(
        "c", store=store, ruleset=COUNT, limits=Limits(max_work=100 * per_event + 10_000)
    )
    state, count = roomy.replay_counted()
    assert count == 100 and state["shared"]["n"] == 99 and store.read == 100


def test_an_undo_of_a_log_whose_first_events_were_deleted_is_rc903(tmp_path: Path) -> None:
    """The oldest event left was the change to undo, and no event was before it: the undo raised
    StopIteration, a traceback on the command line and a 500 from the server (found by a review).
    The last page read must start at event 1."""
    import sqlite3

    db = tmp_path / "c.db"
    store = SqliteStore(db)
    campaign = engine.new_campaign("c", COUNT, store=store)
    for _ in range(3):
        campaign.act("tick")
    raw = sqlite3.connect(db)
    raw.execute("DELETE FROM events WHERE campaign = 'c' AND seq <= 3")
    raw.commit()
    raw.close()
    with pytest.raises(CampaignError) as error:
        campaign.undo()
    assert error.value.diagnostics[0].code == "RC903"
    assert "events 1 to 3 are missing (the log starts at event 4)" in error.value.diagnostics[0].message
    store.close()


def test_one_event_missing_is_told_in_the_singular(tmp_path: Path) -> None:
    """Hunt 13i: with event 1 deleted, an undo said "events 1 to 1 are missing" and a roll "1
    events are numbered up to 2"."""
    import sqlite3

    db = tmp_path / "c.db"
    store = SqliteStore(db)
    campaign = engine.new_campaign("c", COUNT, store=store)
    campaign.act("tick")
    raw = sqlite3.connect(db)
    raw.execute("DELETE FROM events WHERE campaign = 'c' AND seq = 1")
    raw.commit()
    raw.close()
    with pytest.raises(CampaignError) as undone:
        campaign.undo()
    assert "is damaged: event 1 is missing (the log starts at event 2)" in undone.value.diagnostics[0].message
    with pytest.raises(CampaignError) as acted:
        campaign.act("tick")
    said = acted.value.diagnostics[0].message
    assert said.endswith("is damaged: in campaign 'c', 1 event is numbered up to 2"), said
    store.close()


@given(
    seqs=st.integers(0, 40),
    after=st.integers(0, 45),
    before=st.none() | st.integers(1, 46),
    limit=st.none() | st.integers(1, 45),
    newest=st.booleans(),
)
def test_a_window_takes_from_a_log_in_memory_what_it_names(
    seqs: int, after: int, before: int | None, limit: int | None, newest: bool
) -> None:
    """`Window.take` (a memory store's page, found by bisection) against the rule stated plainly."""
    log = [Event(i, "roll", {}, {}) for i in range(1, seqs + 1)]
    inside = [e for e in log if after < e.seq and (before is None or e.seq < before)]
    if limit is not None:
        inside = inside[max(0, len(inside) - limit) :] if newest else inside[:limit]
    assert Window(after, before, limit, newest).take(log) == inside


def test_a_store_lists_its_campaigns_a_page_at_a_time(store: Store) -> None:
    """`names` by code point, whole or a page after a name (one that is no campaign's too): the
    memory store finds a page by bisection in the names it keeps sorted, where it sorted them all
    for each page."""
    names = ["zed", "Zed", "apple", "Émile", "日本", "a b", "ä", "m"]
    for name in names:
        engine.new_campaign(name, COUNT, store=store)
    listed = store.names()
    assert [n for n, _, _ in listed] == sorted(names) and {k for _, _, k in listed} == {1}
    for after in (None, "", "a", "apple", "l", "zed", "\U0010ffff"):
        for limit in (None, 1, 3, 100):
            want = [row for row in listed if after is None or row[0] > after][:limit]
            assert store.names(after, limit) == want, (after, limit)


def test_the_servers_campaign_list_answers_pages_linked_to_each_other(tmp_path: Path) -> None:
    """`GET /api/campaigns` listed every campaign in one answer (100,000: 2 s and 5 MB); it answers
    at most 1,000, by name, with a `Link` to the next page when it is full."""
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from engine.serve.app import Settings, create_app

    db = tmp_path / "c.db"
    store = SqliteStore(db)
    names = ["b", "a", "Émile", "c", "日本"]
    for name in names:
        engine.new_campaign(name, COUNT, store=store)
    store.close()
    with TestClient(create_app(Settings(db=str(db), workers=1))) as client:
        whole = client.get("/api/campaigns")
        assert [c["name"] for c in whole.json()] == sorted(names) and "link" not in whole.headers
        seen, answer = [], client.get("/api/campaigns", params={"limit": 2})
        while True:
            seen += [c["name"] for c in answer.json()]
            links = linked(answer.headers.get("link", ""))
            if "next" not in links:
                break
            path, query = links["next"]
            assert query["limit"] == "2"
            answer = client.get(path, params=query)
        assert seen == sorted(names)
        refused = client.get("/api/campaigns", params={"limit": 1_001})
        assert refused.status_code == 422 and "query.limit" in refused.text


# -- a page is bounded by its size too ------------------------------------------------------------------

BIG = 1_500_000
"""Characters of each big event's data: two fit in a page of `LOG_PAGE_CHARS`, three do not."""


def _with_big_events(store: Store, count: int, size: int = BIG) -> None:
    """Campaign 'big': its first event, then `count` actions whose data holds `size` characters
    (as a long scene's trace does)."""
    engine.new_campaign("big", COUNT, store=store)
    with store.transaction("big") as tx:
        state = tx.last().state
        for i in range(count):
            note = str(i % 10) * size
            tx.append(
                "action",
                {"action": "tick", "character": None, "inputs": {"note": note}, "effects": []},
                state,
            )


def test_a_window_bounded_by_size_takes_what_fits_and_one_event_at_least(any_store: Store) -> None:
    store = any_store
    _with_big_events(store, 5)
    bound = 2 * BIG + 10_000
    assert [e.seq for e in store.events("big", Window(most_chars=bound))] == [1, 2, 3]
    assert [e.seq for e in store.events("big", Window(after=1, most_chars=bound))] == [2, 3]
    assert [e.seq for e in store.events("big", Window(limit=9, newest=True, most_chars=bound))] == [5, 6]
    assert [e.seq for e in store.events("big", Window(after=1, most_chars=10))] == [2]  # one at least
    assert [e.seq for e in store.events("big", Window(newest=True, most_chars=10))] == [6]
    heads = Window(after=1, most_chars=10, data=False)  # sized by what is read: the states alone
    assert [e.seq for e in store.events("big", heads)] == [2]
    assert [e.seq for e in store.events("big", Window(after=1, data=False, most_chars=10**6))] == [
        2,
        3,
        4,
        5,
        6,
    ]


def test_the_servers_log_pages_by_size_as_by_count(tmp_path: Path) -> None:
    """Six events of 1.5 MB were one answer of 9 MB (19 long scenes: 76 MB in 31 s, past the
    deadline, and anyone may read a log); a page now holds about `LOG_PAGE_CHARS` of them, one
    event at least, and links to the next as a full page does."""
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from engine.serve.app import Settings, create_app
    from engine.serve.routes_campaigns import LOG_PAGE_CHARS

    db = tmp_path / "c.db"
    store = SqliteStore(db)
    _with_big_events(store, 6)
    store.close()
    assert 2 * BIG < LOG_PAGE_CHARS < 3 * BIG
    with TestClient(create_app(Settings(db=str(db), workers=1))) as client:
        url = "/api/campaigns/big/log"
        pages, answer = [], client.get(url)
        while True:
            assert answer.status_code == 200
            pages.append([e["seq"] for e in answer.json()])
            links = linked(answer.headers.get("link", ""))
            if "next" not in links:
                break
            answer = client.get(links["next"][0], params=links["next"][1])
        assert pages == [[1, 2, 3], [4, 5], [6, 7]]
        back, answer = [], client.get(url, params={"newest": "true"})
        while True:
            back.append([e["seq"] for e in answer.json()])
            links = linked(answer.headers.get("link", ""))
            if "prev" not in links:
                break
            answer = client.get(links["prev"][0], params=links["prev"][1])
        assert back == [[6, 7], [4, 5], [1, 2, 3]]
        assert "next" not in linked(client.get(url, params={"after": 5}).headers["link"])  # the end
        huge = SqliteStore(db)
        with huge.transaction("big") as tx:
            data = {
                "action": "tick",
                "character": None,
                "inputs": {"note": "h" * LOG_PAGE_CHARS},
                "effects": [],
            }
            tx.append("action", data, tx.last().state)
        huge.close()
        one = client.get(url, params={"after": 7})
        assert [e["seq"] for e in one.json()] == [8]  # bigger than a page: alone
