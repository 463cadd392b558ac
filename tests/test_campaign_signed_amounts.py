"""An amount below zero on a tally is the opposite change, as on a counter: an `add` of -2 takes two
away, a `remove` of -2 puts two in, a `move` of -2 moves two back; `clamp: true` stops each at the
tally's bounds whichever way it goes. Before (found by a hunt), a negative `add` with `clamp: true`
did three things: under a `max`, nothing (and still an event); without a `max`, RC906 with a hint
asking for the `clamp: true` it had; without `clamp`, it took away. And no RC906 hint suggests a
`clamp: true` that is already given, or one that would not stop the change."""

from __future__ import annotations

import pytest

import engine
from engine.state.memory import MemoryStore

RULES_TEXT = """\
rulecraft: 1
name: signed
checks:
  c:
    roll:
      d: {die: 6}
    outcomes: [lo, hi]
    outcome: "'hi' if d > 3 else 'lo'"
state:
  shared:
    capped: {tally: [w, b], start: {w: 3, b: 1}, max: 10}
    open: {tally: [w, b], start: {w: 3, b: 1}}
    ctr: {counter: 5, min: 0, max: 10}
    moving: {tally: [w, b], start: {w: 1}, max: "6 - count(moving)"}
    shrinking: {counter: 0, max: "10 - shrinking"}
actions:
  act:
    inputs:
      item: {type: choice, choices: [capped, open]}
      op: {type: choice, choices: [add, remove, move]}
      n: {type: int, default: 0}
      clamp: {type: bool, default: false}
    effects:
{effects}
  take:
    inputs:
      n: {type: int, default: -20}
    effects:
      - {add: {ctr: n}, clamp: true}
  fill:
    effects:
      - {add: {moving: {w: 4}}, clamp: true}
  grow:
    effects:
      - {add: {shrinking: 8}, clamp: true}
  overfill:
    effects:
      - {set: {capped: {w: 11}}, clamp: true}
  negative:
    effects:
      - {set: {open: {w: -1}}}
"""
CHANGES = {
    "add": "{{add: {{{item}: {{w: n}}}}",
    "remove": "{{remove: {{{item}: {{w: n}}}}",
    "move": "{{move: {item}, from: w, to: b, count: n",
}
EFFECTS = "".join(
    f"      - {CHANGES[op].format(item=item)}{', clamp: true' if clamp else ''}, "
    f"when: \"item == '{item}' and op == '{op}' and {'' if clamp else 'not '}clamp\"}}\n"
    for item in ("capped", "open")
    for op in CHANGES
    for clamp in (False, True)
)
"""`act`'s effects: one for each item, change and clamp, each taken when the inputs name it."""
SIGNED = engine.load(RULES_TEXT.replace("{effects}\n", EFFECTS))


def fresh() -> engine.Campaign:
    return engine.new_campaign("c", SIGNED, store=MemoryStore())


def expected(item: str, op: str, n: int, clamp: bool) -> dict[str, int] | None:
    """The rule, stated apart from the engine: the change to `w` (an add's amount, a remove's
    negated; a move's from w to b), clamped to what there is and what fits under `max` (10 for
    'capped', none for 'open'); None where it is refused."""
    w, b = 3, 1
    gain = n if op == "add" else -n  # what w gains; a move gives b what w loses
    if clamp and gain < 0:  # taken away: only what there is
        gain = max(gain, -w)
    elif clamp and op == "move":  # moved back from b: only what b has
        gain = min(gain, b)
    elif clamp and item == "capped":  # put in: only what fits under the max
        gain = min(gain, 10 - (w + b))
    w, b = w + gain, (b - gain if op == "move" else b)
    if w < 0 or b < 0 or (item == "capped" and w + b > 10):
        return None
    return {k: v for k, v in (("w", w), ("b", b)) if v}


@pytest.mark.parametrize("item", ["capped", "open"])
@pytest.mark.parametrize("op", ["add", "remove", "move"])
@pytest.mark.parametrize("clamp", [False, True])
def test_a_signed_amount_is_the_opposite_change_and_clamp_stops_it_either_way(
    item: str, op: str, clamp: bool
) -> None:
    for n in range(-12, 13):
        game = fresh()
        want = expected(item, op, n, clamp)
        if want is None:
            with pytest.raises(engine.CampaignError) as caught:
                game.act("act", item=item, op=op, n=n, clamp=clamp)
            (d,) = caught.value.diagnostics
            assert d.code == "RC906" and not clamp, (n, d)
            assert d.hint is not None and "clamp: true" in d.hint, d
            assert len(game.log()) == 1
        else:
            game.act("act", item=item, op=op, n=n, clamp=clamp)
            assert game.show()["shared"][item] == want, (n, game.show()["shared"][item])


def test_the_hunt_s_three_paths_agree() -> None:
    """3 w under a max of 10, 1 w with no max, and a counter: an add of -2 with clamp takes two
    (or all there is) away from each, as it does without clamp when there is enough."""
    game = fresh()
    game.act("act", item="capped", op="add", n=-2, clamp=True)
    game.act("act", item="open", op="add", n=-2, clamp=True)
    game.act("act", item="open", op="add", n=-2, clamp=True)  # one w left: it takes the one
    game.act("take")
    shared = game.show()["shared"]
    assert (shared["capped"], shared["open"], shared["ctr"]) == ({"w": 1, "b": 1}, {"b": 1}, 0)


@pytest.mark.parametrize(
    ("action", "message", "hint"),
    [
        ("fill", "'moving' would hold 5, more than its maximum 1", "add a precondition"),
        ("grow", "'shrinking' would be 8, above its maximum 2", "add a precondition"),
        ("overfill", "'capped' would hold 11, more than its maximum 10", "add a precondition"),
        (
            "negative",
            "'open' would be set to -1 w: a tally holds no member below zero",
            "keep the amount at 0 or more, e.g. max(0, ...)",
        ),
    ],
)
def test_no_hint_asks_for_a_clamp_that_is_given_or_would_not_help(
    action: str, message: str, hint: str
) -> None:
    """A bound that moves with the change refuses a clamped effect; a tally's `set` is not clamped."""
    game = fresh()
    with pytest.raises(engine.CampaignError) as caught:
        game.act(action)
    (d,) = caught.value.diagnostics
    assert (d.code, d.message, d.hint) == ("RC906", message, hint)
    assert len(game.log()) == 1


def test_an_unclamped_change_is_still_told_of_clamp() -> None:
    game = fresh()
    with pytest.raises(engine.CampaignError) as caught:
        game.act("act", item="capped", op="add", n=8)
    (d,) = caught.value.diagnostics
    assert d.hint == "add a precondition, or 'clamp: true' to add only what fits"
    with pytest.raises(engine.CampaignError) as caught:
        game.act("act", item="open", op="add", n=-4)
    (d,) = caught.value.diagnostics
    assert (d.message, d.hint) == (
        "'open' would have -1 w: there are only 3",
        "add a precondition, or 'clamp: true' to take what there is",
    )


SWAP = """rulecraft: 1
name: cl
checks:
  c:
    roll:
      d: {die: 2}
    outcomes: [lo, hi]
    outcome: "'hi' if d > 1 else 'lo'"
state:
  shared:
    bag:
      tally: [a, b]
      start: {a: 2, b: 1}
      max: 3
actions:
  swap_clamped:
    effects:
      - {add: {bag: {a: 1, b: -1}}, clamp: true}
  swap:
    effects:
      - {add: {bag: {a: 1, b: -1}}}
"""


def test_a_clamp_cuts_only_what_would_pass_a_bound_whatever_the_order_written() -> None:
    """Review V: each member was clamped against the tally as the members written before it left
    it, so `{a: 1, b: -1}` on a full tally cut the +1 and then took b's one: {a: 2}, where the
    same effect without a clamp moves one ({a: 3}). What is taken away is taken first."""
    from engine.state.memory import MemoryStore

    rs = engine.load(SWAP)
    for action in ("swap", "swap_clamped"):
        campaign = engine.new_campaign("c", rs, store=MemoryStore())
        campaign.act(action)
        assert campaign.show()["shared"]["bag"] == {"a": 3}, action
