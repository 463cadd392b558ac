"""Arguments of the Python API that hunt 13r found unchecked or worded badly.

Each was a raw Python error from inside the engine (`KeyError`, `AttributeError`,
`AssertionError`, sqlite3's `ProgrammingError`, Python's own "use sys.set_int_max_str_digits()")
or a message that said the wrong thing; each is now a `RulecraftError` or a `TypeError` naming the
argument.
"""

from __future__ import annotations

import random
import threading
from pathlib import Path

import pytest

import engine
import engine.api
import engine.state.stores
from engine.state.memory import MemoryStore

REPO = Path(__file__).resolve().parent.parent


def test_show_refuses_an_event_of_another_campaign() -> None:
    """`a.show(at=b_event)` showed b's state labelled 'a'; a castle campaign's event was a bare
    `KeyError: 'tokens'`. A non-Event is a TypeError, with "an Event"."""
    store = MemoryStore()
    a = engine.new_campaign("a", "chill", store=store, params={"players": 4})
    b = engine.new_campaign("b", "chill", store=store, params={"players": 12})
    k = engine.new_campaign("k", "castle", store=store)
    of_b = b.act("turn_dark", n=7).event
    of_k = k.join("bob")
    for other in (of_b, of_k):
        with pytest.raises(engine.InputError, match="is not in the log of campaign 'a'") as caught:
            a.show(other)
        assert caught.value.diagnostics[0].code == "RC410"
    with pytest.raises(TypeError, match="argument 'at' must be an Event or None, not str"):
        a.show("x")  # type: ignore[arg-type]
    own = a.act("turn_dark", n=1).event
    assert a.show(own)["shared"] == a.show()["shared"]
    assert a.show(a.log()[0])["params"] == {"players": 4}


@pytest.mark.parametrize("bad", [5, 1.5, True, ["x.db"], {"db": 1}])
def test_open_store_of_a_wrong_type_is_a_type_error(bad: object) -> None:
    """Both `open_store`s raised `AttributeError: 'int' object has no attribute 'strip'`."""
    with pytest.raises(TypeError, match="open_store: argument 'db' must be a str, a pathlib.Path or None"):
        engine.api.open_store(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="open_store: argument 'target' must be a str or a pathlib.Path"):
        engine.state.stores.open_store(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="argument 'target'"):
        engine.state.stores.open_store(None)  # type: ignore[arg-type]


def test_a_count_past_python_s_digit_limit_is_rc503() -> None:
    """`sample(check, 10**5000)` raised Python's ValueError from an f-string."""
    with pytest.raises(engine.LimitError, match=r"the number of rolls is \(a whole number of 5,001 digits\)"):
        engine.load("chill").sample("specific", 10**5000, target=5)
    with pytest.raises(
        engine.LimitError, match=r"the number of scenes is \(a whole number of 5,001 digits\)"
    ):
        engine.load("castle").sample_scenes("duel", 10**5000)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_seed_too_long_to_write_is_refused_up_front(kind: str, tmp_path: Path) -> None:
    """A seed of 5,001 digits: SQLite raised a TypeError with Python's advice; the memory store
    kept it and its export could not be written as JSON."""
    store = MemoryStore() if kind == "memory" else engine.api.open_store(tmp_path / "c.db")
    c = engine.new_campaign("s", "chill", store=store, params={"players": 4})
    for call in (
        lambda: c.act("player_roll", seed=10**5000, target=55),
        lambda: c.roll("specific", seed=10**5000, target=55),
        lambda: c.act("player_roll", seed=-(10**5000), target=55),
    ):
        with pytest.raises(
            engine.InputError, match=r"at most 4,300 digits \(the largest is 10\*\*4300 - 1\)"
        ):
            call()
    assert len(c.log()) == 1
    c.act("player_roll", seed=10**4300 - 1, target=55)  # the largest is kept
    assert c.log()[-1].data["seed"] == 10**4300 - 1
    store.close()


@pytest.mark.parametrize("bad", [None, 5, {"max_work": 10}])
def test_ruleset_limits_must_be_limits(bad: object) -> None:
    """`rs.limits = None` was taken, and the next roll raised AssertionError or AttributeError."""
    rs = engine.load("chill")
    with pytest.raises(TypeError, match="argument 'limits' must be a Limits"):
        rs.limits = bad  # type: ignore[assignment]
    rs.limits = engine.Limits(max_work=10**6)
    assert rs.roll("specific", random.Random(1), target=55).outcome


def test_a_sqlite_store_used_from_another_thread_says_so(tmp_path: Path) -> None:
    """sqlite3's ProgrammingError came out raw."""
    store = engine.api.open_store(tmp_path / "t.db")
    c = engine.new_campaign("c", "chill", store=store, params={"players": 4})
    caught: list[BaseException] = []

    def other() -> None:
        try:
            c.act("turn_dark", n=1)
        except BaseException as e:  # noqa: BLE001 - what it raised is the test
            caught.append(e)

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert len(caught) == 1 and isinstance(caught[0], engine.CampaignError), caught
    assert caught[0].diagnostics[0].code == "RC903"
    assert "opened in another thread" in str(caught[0]) and "one store per thread" in str(caught[0])
    c.act("turn_dark", n=1)  # its own thread still writes
    store.close()


def test_a_path_named_as_a_shipped_ruleset_says_to_pass_the_str(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`load(Path("chill"))` said no shipped ruleset has that name, and "did you mean 'chill'?"."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(engine.LoadError) as caught:
        engine.load(Path("chill"))
    said = str(caught.value)
    assert "no shipped ruleset has that name" not in said and "did you mean" not in said
    assert "a pathlib.Path is always a file" in said and "engine.load('chill')" in said


def test_a_load_deadline_hints_at_the_deadline_argument() -> None:
    """RC503 of `load_source(deadline=0)` said to raise `--limit deadline` / `Limits.deadline`."""
    text = (REPO / "rulesets" / "castle.yaml").read_text() + "\n# 13r\n"
    with pytest.raises(engine.DeadlineError) as caught:
        engine.load_source(engine.SourceFile("x.yaml", text), deadline=0)
    hint = caught.value.diagnostics[0].hint or ""
    assert "deadline=" in hint and "Limits.deadline" not in hint and "--limit" not in hint
    scenes = "scenes:\n  d2:\n" + "\n".join(f"    # {i}" for i in range(3))
    with pytest.raises(engine.DeadlineError) as caught:
        engine.load("castle").with_scenes(scenes, deadline=0)
    hint = caught.value.diagnostics[0].hint or ""
    assert "deadline=" in hint and "Limits.deadline" not in hint


def test_docs_no_longer_say_played_scenes_and_odds_may_be_changed() -> None:
    """docs/language.md said a `Played` and `Odds` "may be changed"; they are frozen."""
    text = " ".join((REPO / "docs" / "language.md").read_text().split())
    assert "are made for the caller, shared with nothing kept, and may be changed" not in text
    played = engine.load("castle").play_scene("duel", random.Random(1))
    with pytest.raises(TypeError):
        played.state["x"] = 1  # type: ignore[index]


def test_wording() -> None:
    """A stray quote, "a whole number (int) or a number", "finite" for a number too large, and
    "face(s)"."""
    with pytest.raises(TypeError, match=r"argument 'source\.name' must be a str"):
        engine.load_source(engine.SourceFile(5, "a: 1"))  # type: ignore[arg-type]
    with pytest.raises(
        TypeError, match=r"'deadline' must be a number of seconds \(an int or a float\), not bool"
    ):
        engine.Limits(deadline=True)
    with pytest.raises(engine.InputError, match="'deadline' is too large a number of seconds"):
        engine.Limits(deadline=10**400)
    chimera = engine.load("chimera")
    with pytest.raises(engine.InputError, match="forced rolled ran out: 2 faces given"):
        chimera.roll("skill", forced={"rolled": [9, 2]}, dice=2)
    with pytest.raises(engine.InputError, match="forced rolled has 4 faces the roll never used"):
        chimera.roll("skill", forced={"rolled": [2, 2, 5, 5, 5, 5]}, dice=2)
    with pytest.raises(engine.InputError, match="forced tens has 1 face the roll never used"):
        engine.load("chill").roll("specific", forced={"tens": [1, 2]}, target=5)
