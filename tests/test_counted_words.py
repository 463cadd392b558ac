"""Counts said in words agree with their number (hunt 13p): a scene's event in the log said "after 1
round(s)" where its trace says "after 1 round", and the linter said of a check with no inputs that
"all 1 input combinations were left out"."""

from __future__ import annotations

from pathlib import Path

from engine.state.records import Event
from engine.tools.render import event_text


def _scene_event(rounds: int) -> Event:
    data = {"scene": "duel", "cast": {"you": "ann"}, "ending": "you_win", "rounds": rounds}
    return Event(seq=2, kind="scene", data=data, state={}, at="now")


def test_a_scene_event_counts_its_rounds_in_words() -> None:
    assert event_text(_scene_event(1)).endswith("scene duel (you=ann): you_win after 1 round")
    assert event_text(_scene_event(3)).endswith("scene duel (you=ann): you_win after 3 rounds")
    assert event_text(_scene_event(0)).endswith("scene duel (you=ann): you_win after 0 rounds")


def test_a_check_with_one_input_combination_left_out_says_so_in_the_singular(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "one.yaml"
    f.write_text(
        "rulecraft: 1\nname: one\nchecks:\n  k:\n    roll:\n      p: {pool: 6, die: 6}\n"
        "    outcomes: [lo, hi]\n    outcome: \"'hi' if sum(p) > 20 else 'lo'\"\n",
        encoding="utf-8",
    )
    r = cli("validate", "--lint-work", "1", str(f))
    assert r.code == 0, r.err
    assert (
        "warning RC809: check 'k' was not analysed: its one input combination was left out, e.g. no inputs"
        in (r.err)
    ), r.err
    assert "all 1 input combinations" not in r.err


def test_a_table_rule_never_true_for_the_one_call_made_says_one_call() -> None:
    """Hunt 13p: "never true for any of the 1 different calls the checks make"."""
    import engine
    from engine.tools.lint import lint

    text = (
        "rulecraft: 1\nname: one\ntables:\n  band:\n    params: {x: int}\n    returns: int\n"
        "    rules:\n      - when: x < 3\n        then: 1\n      - else: 2\nchecks:\n  k:\n"
        "    roll:\n      d: {die: 6}\n    outcomes: [lo, hi]\n"
        "    outcome: \"'hi' if d + band(5) >= 5 else 'lo'\"\n"
    )
    [d] = [d for d in lint(engine.load(text)) if d.code == "RC802"]
    assert d.message.endswith("its condition is never true for the one call the checks make"), d.message
