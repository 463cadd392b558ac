"""A name a campaign keeps is written in Unicode's composed form (NFC).

Found by hunt 13g: 'café' typed as four characters (é one character, U+00E9) and as five ('e' and
the combining acute accent U+0301) shows alike on every screen, and was two campaigns (or two
characters of one). A name not composed is now RC410, whose hint shows the composed form; an
unknown campaign whose composed form is kept says so, where its hint was "did you mean 'café'?"
for a name that looked the same. A name in another script is shown as written (it was `ascii()`,
so 'é' showed as '\\xe9').
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.errors import InputError, RulecraftError
from engine.state.memory import MemoryStore
from engine.state.records import Store

COMPOSED = "caf\u00e9"
DECOMPOSED = "cafe\u0301"
RULES = """\
rulecraft: 1
name: names
checks:
  flip: {roll: {d: {die: 2}}, outcomes: [tails, heads], outcome: "'heads' if d == 2 else 'tails'"}
state:
  each:
    luck: {counter: 1}
"""


def test_the_two_forms_look_alike_and_differ() -> None:
    assert DECOMPOSED != COMPOSED and unicodedata.normalize("NFC", DECOMPOSED) == COMPOSED


def test_a_campaign_named_decomposed_is_refused_and_nothing_is_written(any_store: Store) -> None:
    with pytest.raises(InputError) as raised:
        engine.new_campaign(DECOMPOSED, engine.load(RULES), store=any_store)
    [d] = raised.value.diagnostics
    assert d.code == "RC410"
    assert d.message == (
        f"the campaign's name {DECOMPOSED!r} is not in Unicode's composed form (NFC):"
        " 'cafe\\u0301' composes to 'caf\\xe9', which looks the same"
    )
    assert d.hint == f"write it composed, {COMPOSED!r}: a name that looks the same is then the same campaign"
    assert any_store.names() == []
    made = engine.new_campaign(COMPOSED, engine.load(RULES), store=any_store)
    assert [n for n, *_ in any_store.names()] == [COMPOSED]
    with pytest.raises(InputError) as joined:
        made.join("e\u0301mile")
    assert "the character's name" in joined.value.diagnostics[0].message
    assert "composes to '\\xe9mile'" in joined.value.diagnostics[0].message
    assert len(made.log()) == 1  # the refused join wrote nothing
    made.join("\u00e9mile")
    assert list(made.state()["characters"]) == ["\u00e9mile"]


def test_an_unknown_name_whose_composed_form_is_kept_says_so(any_store: Store) -> None:
    engine.new_campaign(COMPOSED, engine.load(RULES), store=any_store)
    with pytest.raises(RulecraftError) as raised:
        engine.open_campaign(DECOMPOSED, store=any_store)
    [d] = raised.value.diagnostics
    assert d.code == "RC901"
    assert d.hint is not None and d.hint.startswith(
        f"the campaign {COMPOSED!r} looks the same, but is written composed (Unicode NFC)"
    ), d.hint
    assert "'cafe\\u0301' against 'caf\\xe9'" in d.hint


def test_the_command_line_refuses_it_without_a_traceback(cli: Any, tmp_path: Path) -> None:
    db = str(tmp_path / "c.db")
    r = cli("campaign", "--db", db, "new", DECOMPOSED, "chill", "-p", "players=4")
    assert r.code == 1 and "RC410: the campaign's name" in r.err and "composed" in r.err, r.err
    assert cli("campaign", "--db", db, "new", COMPOSED, "chill", "-p", "players=4").code == 0
    shown = cli("campaign", "--db", db, "show", DECOMPOSED)
    assert shown.code == 1 and "RC901" in shown.err and "written composed" in shown.err, shown.err


def test_a_refused_name_in_another_script_is_shown_as_written() -> None:
    long = "\u00e9" * 120
    with pytest.raises(InputError) as raised:
        engine.new_campaign(long, engine.load(RULES), store=MemoryStore())
    message = raised.value.diagnostics[0].message
    assert message == f"the campaign's name {long[:40]!r}... is 120 characters long (at most 100)"
    assert "\\xe9" not in message
    with pytest.raises(InputError) as odd:  # what cannot show is still escaped
        engine.new_campaign("\u00e9\u202ex", engine.load(RULES), store=MemoryStore())
    assert "'é\\u202ex' holds a direction override ('\\u202e')" in odd.value.diagnostics[0].message


def test_an_example_naming_a_character_decomposed_is_told_where() -> None:
    text = RULES + (
        "  examples:\n    - name: one\n      characters: {'e\u0301mile': {}}\n"
        "      steps: []\n      expect: {characters: {'e\u0301mile': {luck: 1}}}\n"
    )
    with pytest.raises(RulecraftError) as raised:
        engine.load(text)
    told = [x for x in raised.value.diagnostics if x.code == "RC702"]
    assert [(d.span.line, d.span.col) for d in told if d.span is not None] == [(10, 20), (12, 29)]
    for d in told:
        assert "where a character's name is wanted" in d.message and "composed" in d.message, d.message


@pytest.mark.parametrize(
    "name",
    ["case\u200b", "ca\u00adse", "case\u2060", "c\u200dase", "case\u200f", "\ufeffcase", "x\U000e0067"],
)
def test_a_name_holding_a_character_that_shows_as_nothing_is_refused(name: str) -> None:
    """Hunt 13i: each of these was one more campaign beside 'case', listed as 'case' again."""
    with pytest.raises(InputError) as raised:
        engine.new_campaign(name, engine.load(RULES), store=MemoryStore())
    [d] = raised.value.diagnostics
    assert d.code == "RC410" and "holds a character that shows as nothing" in d.message, d.message


@pytest.mark.parametrize(
    "name",
    [
        "\U0001f468\u200d\U0001f469\u200d\U0001f467",  # a family: the joiners make one emoji
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian: the non-joiner keeps two letters apart
        "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",  # a flag's tags
    ],
)
def test_a_joiner_or_a_flags_tags_that_change_what_shows_are_kept(name: str) -> None:
    store = MemoryStore()
    engine.new_campaign(name, engine.load(RULES), store=store)
    assert [n for n, *_ in store.names()] == [name]


def test_an_unknown_name_kept_decomposed_by_hand_says_so(cli: Any, tmp_path: Path) -> None:
    """The other way round (hunt 13ze): a campaign kept decomposed, written into the file by hand
    or by a rulecraft before names were composed, asked for composed, was "did you mean 'café'?",
    a name that looks the same as the one given. Given as it is kept, it opens."""
    import sqlite3

    db = str(tmp_path / "c.db")
    assert cli("campaign", "--db", db, "new", COMPOSED, "chill", "-p", "players=4").code == 0
    with sqlite3.connect(db) as raw:
        raw.execute("PRAGMA foreign_keys = OFF")
        raw.execute("UPDATE events SET campaign = ? WHERE campaign = ?", (DECOMPOSED, COMPOSED))
        raw.execute("UPDATE campaigns SET name = ? WHERE name = ?", (DECOMPOSED, COMPOSED))
    shown = cli("campaign", "--db", db, "show", COMPOSED)
    assert shown.code == 1 and "did you mean" not in shown.err
    assert (
        "hint: the campaign 'cafe\\u0301' looks the same, but is written with other code points than"
        " this name, 'caf\\xe9'; give it as it is kept"
    ) in shown.err, shown.err
    assert cli("campaign", "--db", db, "show", DECOMPOSED).code == 0
