"""A scene in a file of its own (`Ruleset.with_scenes`, `rulecraft scene prob RULESET FILE.yaml`):
a question about a fight asked without changing the ruleset, and its mistakes reported at the
scene file's own lines."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from _repo import REPO_ROOT

import engine

FIRST_BLOOD = """\
scenes:
  first_blood:
    title: A duel to first blood
    parties: [you, foe]
    round:
      - {act: duel_exchange, by: you, others: {foe: foe}}
      - {act: strike, by: you, others: {foe: foe},
         when: you.drew > foe.drew and (you.reach >= foe.reach or you.closed == 1)}
      - {act: strike, by: foe, others: {foe: you},
         when: foe.drew > you.drew and (foe.reach >= you.reach or foe.closed == 1)}
      - {act: close_in, by: you, others: {foe: foe},
         when: you.drew > foe.drew and you.reach < foe.reach and you.closed == 0}
      - {act: close_in, by: foe, others: {foe: you},
         when: foe.drew > you.drew and foe.reach < you.reach and foe.closed == 0}
      - {act: end_exchange, by: you, others: {foe: foe}, when: you.drew > 0}
    ends:
      - {when: count(foe.wound_track) > 0, then: you_draw_blood}
      - {when: count(you.wound_track) > 0, then: foe_draws_blood}
"""


@pytest.fixture(scope="module")
def castle() -> engine.Ruleset:
    return engine.load("castle")


def test_a_scene_file_is_solved_against_the_ruleset(castle: engine.Ruleset) -> None:
    """Knife against sword, to first blood, by hand: both draw as Average, so each exchange that
    is not a stand-off goes either way with the same chance. The knife must first win one to close
    (note closing); the sword wounds whenever it wins (every chit is a wound; no armour). So the
    knife draws blood only by winning two exchanges in a row that are not stand-offs: 1/2 · 1/2."""
    rs = castle.with_scenes(FIRST_BLOOD)
    odds = rs.scene_odds("first_blood", parties={"you": {"wielding": "knife"}})
    assert odds.endings.fractions() == {"you_draw_blood": Fraction(1, 4), "foe_draws_blood": Fraction(3, 4)}
    even = rs.scene_odds("first_blood")  # sword against sword: one exchange won decides it
    assert even.endings.fractions() == {"you_draw_blood": Fraction(1, 2), "foe_draws_blood": Fraction(1, 2)}
    assert "first_blood" not in castle.scenes  # the loaded ruleset is left as it was


def test_the_command_line_takes_a_scene_file(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "blood.yaml").write_text(FIRST_BLOOD)
    r = cli("scene", "prob", "castle", "blood.yaml", "--party", "you:wielding=knife", cwd=tmp_path)
    assert r.code == 0, r.err
    assert "castle · A duel to first blood" in r.out and "you_draw_blood   1/4" in r.out
    r = cli("scene", "roll", "castle", "blood.yaml:first_blood", "--seed", "2", cwd=tmp_path)
    assert r.code == 0 and r.out.rstrip().splitlines()[-1].startswith("=> ")
    twice = FIRST_BLOOD + FIRST_BLOOD.replace("scenes:\n", "").replace("first_blood:", "second:")
    (tmp_path / "two.yaml").write_text(twice)
    r = cli("scene", "prob", "castle", "two.yaml", cwd=tmp_path)
    assert r.code == 1 and "RC407" in r.err and "first_blood, second" in r.err
    assert cli("scene", "prob", "castle", "two.yaml:second", cwd=tmp_path).code == 0


@pytest.mark.parametrize("suffix", [".YAML", ".Yml", ".yml"])
def test_a_scene_file_s_suffix_is_read_in_any_case(cli: Any, tmp_path: Path, suffix: str) -> None:
    """`FILE.YAML` and `FILE.YAML:NAME` were taken for a scene's name (only `.yaml` and `.yml`
    were split off), where `rulecraft validate` reads a `RULES.YAML`: RC907, no such scene."""
    (tmp_path / f"BLOOD{suffix}").write_text(FIRST_BLOOD)
    r = cli("scene", "prob", "castle", f"BLOOD{suffix}", "--party", "you:wielding=knife", cwd=tmp_path)
    assert r.code == 0 and "you_draw_blood   1/4" in r.out, r.err
    r = cli("scene", "roll", "castle", f"BLOOD{suffix}:first_blood", "--seed", "2", cwd=tmp_path)
    assert r.code == 0 and r.out.rstrip().splitlines()[-1].startswith("=> "), r.err
    twice = FIRST_BLOOD + FIRST_BLOOD.replace("scenes:\n", "").replace("first_blood:", "second:")
    (tmp_path / f"TWO{suffix}").write_text(twice)
    r = cli("scene", "prob", "castle", f"TWO{suffix}", cwd=tmp_path)
    assert r.code == 1 and "RC407" in r.err and f"TWO{suffix}:NAME" in r.err, r.err
    assert cli("scene", "prob", "castle", f"TWO{suffix}:second", cwd=tmp_path).code == 0


def test_the_docs_scene_file_section_shows_what_the_command_prints(cli: Any, tmp_path: Path) -> None:
    """docs/scenes.md, "A scene in a file of its own": its file is this test's, and its command
    prints exactly the lines shown (trailing spaces aside), the rounds' histogram included."""
    text = (REPO_ROOT / "docs" / "scenes.md").read_text(encoding="utf-8")
    start = text.index("### A scene in a file of its own")
    section = text[start : text.index("\n## ", start)]
    fragment = section.split("```yaml fragment\n", 1)[1].split("```", 1)[0]
    assert fragment == FIRST_BLOOD
    console = section.split("```console\n", 1)[1].split("```", 1)[0].splitlines()
    command, shown = console[0], console[1:]
    assert command == "$ rulecraft scene prob castle first_blood.yaml --party you:wielding=knife"
    (tmp_path / "first_blood.yaml").write_text(fragment)
    r = cli(*command.split()[2:], cwd=tmp_path)
    assert r.code == 0, r.err
    assert [line.rstrip() for line in r.out.rstrip("\n").splitlines()] == [line.rstrip() for line in shown]


@pytest.mark.parametrize(
    "old,new,code",
    [
        ("foe.wound_track) > 0", "foe.wound_trak) > 0", "RC301"),
        ("act: close_in, by: you", "act: close_inn, by: you", "RC312"),
        ("act: end_exchange, by: you", "act: end_exchange, by: yuo", "RC307"),
        ("parties: [you, foe]", "parties: 3", "RC103"),
        ("first_blood:", "duel:", "RC307"),
        ("scenes:", "rulecraft: 1\nscenes:", "RC102"),
        (FIRST_BLOOD, "scenes: {}\n", "RC104"),  # "holds no scene" (hunt 13m: "holds 'scenes:'")
        (FIRST_BLOOD, "scenes: [1]\n", "RC101"),
    ],
)
def test_a_mistake_in_a_scene_file_is_reported_at_its_own_line(
    castle: engine.Ruleset, tmp_path: Path, old: str, new: str, code: str
) -> None:
    text = FIRST_BLOOD.replace(old, new)
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if new.splitlines()[0] in ln)
    path = tmp_path / "blood.yaml"
    path.write_text(text)
    with pytest.raises(engine.RulecraftError) as caught:
        castle.with_scenes(path)
    first = caught.value.diagnostics[0]
    assert first.code == code, caught.value
    if new == "scenes: {}\n":
        assert first.message == "the scene file's 'scenes:' holds no scene"
    assert first.span is not None and first.span.source.name.endswith("blood.yaml")
    assert first.span.line == line, caught.value


def test_every_unknown_key_of_a_scene_file_is_named_at_its_key(castle: engine.Ruleset) -> None:
    """Not only the first: each key beside `scenes:` is its own RC102, at its own line."""
    text = "rulecraft: 1\n" + FIRST_BLOOD + "name: duel\n"
    with pytest.raises(engine.RulecraftError) as caught:
        castle.with_scenes(text)
    assert [(d.code, d.message, d.span.line if d.span else 0) for d in caught.value.diagnostics] == [
        ("RC102", f"unknown key '{key}' in a scene file: it holds only 'scenes:'", line)
        for key, line in (("rulecraft", 1), ("name", len(text.splitlines())))
    ]


def test_a_misspelt_party_is_named_with_the_nearest(castle: engine.Ruleset) -> None:
    text = FIRST_BLOOD.replace("act: end_exchange, by: you", "act: end_exchange, by: yuo")
    with pytest.raises(engine.RulecraftError) as caught:
        castle.with_scenes(text)
    first = caught.value.diagnostics[0]
    assert first.message == "'yuo' is not a party of this scene" and first.hint == "did you mean 'you'?"


def test_scene_prob_errors_name_its_own_options(cli: Any) -> None:
    """A party's missing parameter is given with `--party`, and a bad `--grid` is called that."""
    r = cli("scene", "prob", "chimera", "learning")
    assert r.code == 1 and "give it as --party student:max_resolve=VALUE" in r.err, r.err
    r = cli("scene", "prob", "chimera", "learning", "--grid", "student.max_resolve")
    assert r.code == 1 and "--grid 'student.max_resolve' is not of the form NAME=A..B" in r.err, r.err


def _many_scenes(count: int) -> str:
    """A scene file of `count` scenes like `first_blood`, slow to read and compile."""
    one = FIRST_BLOOD.split("\n", 1)[1]
    return "scenes:\n" + "".join(one.replace("first_blood:", f"blood{i}:") for i in range(count))


def test_a_scene_file_read_under_a_deadline_is_stopped_by_it(castle: engine.Ruleset) -> None:
    """`with_scenes` read its text with no clock, whatever deadline its caller had: a load's
    deadline (`load_source(deadline=)`) did not reach it. Under `deadline=` it is read, checked
    and compiled (with the ruleset it joins) under the same clock as a load: a large file past
    it is one RC503 at no place, as no value of the file is at fault; within it, the scenes are
    added as without one."""
    with pytest.raises(engine.DeadlineError) as caught:
        castle.with_scenes(_many_scenes(60), deadline=0.0)
    [d] = caught.value.diagnostics
    assert d.code == "RC503" and d.span is None
    assert d.message == "the deadline of 0 s passed before the request ended"
    assert "first_blood" in castle.with_scenes(FIRST_BLOOD, deadline=60).scenes


def test_a_scene_file_under_a_deadline_stops_in_the_yaml_stage(
    castle: engine.Ruleset, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The clock moving a second at each look, a half-second deadline: the scene file stops as
    its YAML is read, before the schema check, as a load's does."""
    import time

    from engine.syntax import schema

    def unreached(*_: object) -> None:
        raise AssertionError("the schema check ran past the deadline")

    ticks = iter(range(10**6))
    monkeypatch.setattr(schema, "validate", unreached)
    monkeypatch.setattr(time, "monotonic", lambda: float(next(ticks)))
    with pytest.raises(engine.DeadlineError) as caught:
        castle.with_scenes(_many_scenes(60), deadline=0.5)
    monkeypatch.undo()
    [d] = caught.value.diagnostics
    assert d.code == "RC503" and d.message == "the deadline of 0.5 s passed before the request ended"


@pytest.mark.parametrize(("name", "hint"), [("secnod", "did you mean 'second'"), ("duel", "its scenes: ")])
def test_a_name_the_scene_file_does_not_hold_is_told_at_the_file(
    cli: Any, tmp_path: Path, name: str, hint: str
) -> None:
    """Hunt 11b: `two.yaml:d9` was told at the ruleset's `scenes:` line, its hint mixing both
    files' scenes; and `two.yaml:duel` played the ruleset's own duel, not a scene of the file."""
    twice = FIRST_BLOOD + FIRST_BLOOD.replace("scenes:\n", "").replace("first_blood:", "second:")
    (tmp_path / "two.yaml").write_text(twice)
    r = cli("scene", "prob", "castle", f"two.yaml:{name}", cwd=tmp_path)
    assert r.code == 1, r.out
    assert r.err.startswith(f"two.yaml:2:3: error RC907: two.yaml has no scene '{name}'"), r.err
    assert hint in r.err and "duel," not in r.err, r.err


def test_a_party_given_no_parameters_is_shown_as_when_not_named(cli: Any) -> None:
    """`--party you:` names the party and gives it nothing: the header had "(you: as made)", which
    no other header says; it is the header of the scene with no `--party`, as the odds are."""
    plain = cli("scene", "prob", "castle", "duel")
    empty = cli("scene", "prob", "castle", "duel", "--party", "you:")
    assert plain.code == empty.code == 0, (plain.err, empty.err)
    assert empty.out == plain.out and empty.out.splitlines()[0] == "castle · A duel to the end", empty.out
