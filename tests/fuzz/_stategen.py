"""Hypothesis strategies for rulesets with lasting state, actions and scenes (issue 11, item 6),
and for the examples a ruleset carries, built so that a fair share load and reach the evaluators.

Drawn from the schema (`_fuzzgen.rulesets` with `state`, `actions`, `scenes`), a ruleset with a
scene almost never compiles: a scene's names must match its parties, each step's action, role and
input, each ending's items. These strategies build the sections piece by piece with names kept
apart by role — parties `ann`, `bo`, `cy`; items `hurt`, `luck`, `marks`, `down`; actions
`strike`, `heal`, `rest`; a check `swing` — and fill each place with one of a few forms
(the thresholds, bounds, dice and amounts drawn), so that most documents load, are solved and
are played. A few places sometimes take an expression drawn from the grammar
(`_fuzzgen.expressions`) over the names in scope, or a name from the wrong role, so the
compiler's refusals are reached too.

Sizes go up to and past what `_law.LIMITS` allows (dice of 1,000 faces and more, pools past
`max_pool`, counters whose bounds give scenes of many thousands of states, `max_rounds` up to its
schema maximum), so that the work budget, not the generator, is what stops a case.
"""

from __future__ import annotations

from typing import Any

from _fuzzgen import expressions
from hypothesis import strategies as st

PARTIES = ("ann", "bo", "cy")
OUTCOMES = ("miss", "hit", "crit")
SIDES = (2, 6, 6, 20, 100, 1000, 2, 6, 20, 100, 1000, 1001)
"""A die's sides (1001, past the language's 1,000-face bound, is refused by the schema)."""
POOLS = (1, 2, 3, 10, 40, 99, 150)
"""A pool's size: 150 is past `Limits.max_pool`; 40 d100 summed is past the work budget."""
STATE_NAMES = ("hurt", "luck", "marks", "down", "hp", "bonus", "tick", "edge", "outcome", "d", "nope")
"""What a mutated expression may name: the items, parameters and inputs, and a stranger."""


def _maybe(draw: st.DrawFn, p_in_8: int = 4) -> bool:
    return draw(st.integers(0, 7)) < p_in_8


def _wild(draw: st.DrawFn, names: tuple[str, ...] = STATE_NAMES) -> str:
    """A grammar expression over the state's names: mostly refused when compiled, sometimes not."""
    return str(draw(expressions(names=names, max_depth=3)))


def _expr(draw: st.DrawFn, usual: str, names: tuple[str, ...] = STATE_NAMES) -> str:
    """`usual`, or now and then a grammar expression in its place."""
    return _wild(draw, names) if draw(st.integers(0, 31)) == 0 else usual


@st.composite
def swing_check(draw: st.DrawFn) -> dict[str, Any]:
    """The one check actions roll: a die (sometimes with a pool beside it), an `edge` input."""
    sides = draw(st.sampled_from(SIDES))
    roll: dict[str, Any] = {"d": {"die": sides}}
    crit = _maybe(draw)
    outcomes = list(OUTCOMES if crit else OUTCOMES[:2])
    total = "d + edge"
    if _maybe(draw, 2):
        roll["p"] = {"pool": draw(st.sampled_from(POOLS)), "die": draw(st.sampled_from((6, 100)))}
        total += " + sum(p)"
    if _maybe(draw, 1):
        roll["d"]["redraw"] = {"may": "d < 3", "times": draw(st.sampled_from((1, 3, 12, 2000)))}
    hit = draw(st.integers(1, sides + 2))
    if crit:
        outcome: Any = [
            {"when": f"{total} >= {hit + draw(st.integers(0, 5))}", "then": "'crit'"},
            {"when": f"{total} >= {hit}", "then": "'hit'"},
            {"else": "'miss'"},
        ]
    else:
        outcome = _expr(draw, f"'hit' if {total} >= {hit} else 'miss'", ("d", "edge", "p", "hit", "miss"))
    check: dict[str, Any] = {
        "inputs": {"edge": {"type": "int", "min": 0, "max": draw(st.sampled_from((3, 100))), "default": 0}},
        "roll": roll,
        "outcomes": outcomes,
        "outcome": outcome,
    }
    if _maybe(draw, 2):
        check["outputs"] = {"dmg": "1 + d // 3"}
    return check


@st.composite
def state_section(draw: st.DrawFn) -> dict[str, Any]:
    """Parameters and items: `hp` per character, `hurt` (and sometimes `luck`, `marks`), `down`."""
    hp_max = draw(st.sampled_from((1, 3, 6, 40, 400)))
    hurt: dict[str, Any] = {"counter": 0, "min": 0}
    if _maybe(draw):
        hurt["max"] = _expr(draw, draw(st.sampled_from(("hp", "hp + 1", "2 * hp"))))
    if _maybe(draw):
        hurt["clamp"] = True
    each: dict[str, Any] = {"hurt": hurt}
    state: dict[str, Any] = {
        "character": {
            "hp": {"type": "int", "min": 1, "max": hp_max, "default": draw(st.integers(1, hp_max))}
        },
        "each": each,
    }
    periods = _maybe(draw)
    if periods:
        state["periods"] = ["rest"]
    if _maybe(draw):
        each["luck"] = {
            "counter": draw(st.integers(0, 3)),
            "min": 0,
            **({"reset": "rest"} if periods else {}),
        }
    if _maybe(draw, 3):
        marks: dict[str, Any] = {"tally": ["nick", "cut"]}
        if _maybe(draw):
            marks["max"] = draw(st.integers(1, 6))
        if _maybe(draw):
            marks["promote"] = [
                {"when": "count(marks, 'nick') >= 2", "remove": {"nick": 2}, "add": {"cut": 1}}
            ]
        each["marks"] = marks
    each["down"] = {"derived": _expr(draw, draw(st.sampled_from(("hurt >= hp", "hurt > hp", "hurt >= 1"))))}
    if _maybe(draw, 3):
        state["campaign"] = {"bonus": {"type": "int", "min": 0, "max": 3, "default": draw(st.integers(0, 3))}}
    if _maybe(draw, 3):
        state["shared"] = {"tick": {"counter": 0, "min": 0, "max": draw(st.sampled_from((3, 50, 5000)))}}
    return state


def _effect(draw: st.DrawFn, state: dict[str, Any], check: dict[str, Any] | None) -> dict[str, Any]:
    """One effect of `strike` on the foe or the striker, on an item the state has (mostly);
    `check` is the check it rolls, if any."""
    each = state["each"]
    rolls = check is not None
    when = "true"
    if check is not None:
        when = draw(
            st.sampled_from([f"outcome == '{o}'" for o in check["outcomes"][1:]] + ["outcome != 'miss'"])
        )
    amounts = (1, 2, "dmg" if check is not None and "outputs" in check else 1)
    forms: list[dict[str, Any]] = [
        {"add": {"hurt": draw(st.sampled_from(amounts))}, "of": "foe", "when": when},
        {"remove": {"hurt": 1}, "when": "hurt > 0"},
    ]
    if "luck" in each:
        forms.append({"remove": {"luck": 1}, "when": "outcome == 'miss'" if rolls else "luck > 0"})
    if "marks" in each:
        forms.append({"add": {"marks": {"nick": 1}}, "of": "foe", "when": when})
        forms.append({"move": "marks", "from": "nick", "to": "cut", "of": "foe", "when": when})
    if "tick" in state.get("shared", {}):
        forms.append({"add": {"tick": 1}})
    effect = dict(draw(st.sampled_from(forms)))
    if effect.get("when") and draw(st.integers(0, 15)) == 0:
        effect["when"] = _wild(draw)
    if _maybe(draw, 2):
        effect["clamp"] = True
    return effect


@st.composite
def actions_section(draw: st.DrawFn, state: dict[str, Any], check: dict[str, Any]) -> dict[str, Any]:
    """`strike` (by a character, on a `foe`, rolling `swing`), and sometimes `heal` and `rest`."""
    rolls = _maybe(draw, 7)
    strike: dict[str, Any] = {"by": "character", "others": ["foe"]}
    if _maybe(draw, 5):
        strike["requires"] = [
            {"when": _expr(draw, "not down and not foe.down"), "else": "nobody who is down fights"}
        ]
    if rolls:
        strike["roll"] = {"check": "swing"}
        if _maybe(draw):
            strike["roll"]["inputs"] = {
                "edge": _expr(draw, draw(st.sampled_from(("0", "1", "hurt", "foe.hurt", "hp + 200"))))
            }
    strike["effects"] = [
        _effect(draw, state, check if rolls else None) for _ in range(draw(st.integers(1, 3)))
    ]
    actions: dict[str, Any] = {"strike": strike}
    if _maybe(draw):
        heal: dict[str, Any] = {"by": "character"}
        heal["inputs"] = {"much": {"type": "int", "min": 0, "max": 3, "default": 1}}
        heal["effects"] = [{"remove": {"hurt": "much"}, "clamp": draw(st.booleans())}]
        if "luck" in state["each"]:
            heal["requires"] = [{"when": "luck > 0", "else": "no luck left"}]
            heal["effects"].append({"remove": {"luck": 1}})
        actions["heal"] = heal
    if "tick" in state.get("shared", {}) and _maybe(draw):
        actions["rest"] = {"effects": [{"add": {"tick": 1}, "clamp": draw(st.booleans())}]}
    return actions


@st.composite
def scene_section(draw: st.DrawFn, state: dict[str, Any], actions: dict[str, Any]) -> dict[str, Any]:
    """One scene: two or three parties striking each other (sometimes one party alone healing),
    periods begun, steps with conditions and choices, endings on who is down."""
    n = draw(st.sampled_from((1, 2, 2, 2, 2, 3, 3)))
    parties = list(PARTIES[:n])
    steps: list[dict[str, Any]] = []
    for who in parties:
        foes = [p for p in parties if p != who] or [who]  # one party alone: striking itself is RC307
        step: dict[str, Any] = {"act": "strike", "by": who, "others": {"foe": draw(st.sampled_from(foes))}}
        if _maybe(draw, 3):
            step["when"] = _expr(
                draw, f"not {who}.down", tuple(f"{p}.{i}" for p in parties for i in ("hurt", "hp"))
            )
        steps.append(step)
    if "heal" in actions and _maybe(draw):
        heal: dict[str, Any] = {"act": "heal"}
        if actions["heal"]["by"] == "character":
            heal["by"] = draw(st.sampled_from(parties))
        if _maybe(draw):
            heal["may"] = {"much": draw(st.sampled_from(("1", "2", "0")))}
        elif _maybe(draw):
            heal["inputs"] = {"much": draw(st.sampled_from(("1", "2", "9")))}  # 9 is over its max
        steps.insert(draw(st.integers(0, len(steps))), heal)
    if "rest" in actions and _maybe(draw, 3):
        steps.append({"act": "rest"})
    if "periods" in state and _maybe(draw, 3):
        steps.append({"begin": "rest"})
    ends = [
        {"when": f"{p}.down", "then": f"{p}_falls"}
        for p in draw(st.permutations(parties))[: draw(st.integers(1, n))]
    ]
    if "tick" in state.get("shared", {}) and _maybe(draw):
        ends.append({"when": "tick >= 3", "then": "time_out"})
    if _maybe(draw, 1):
        ends[0]["when"] = _wild(draw, tuple(f"{p}.{i}" for p in parties for i in ("hurt", "hp", "down")))
    scene: dict[str, Any] = {"parties": parties, "round": steps, "ends": ends}
    if _maybe(draw):
        scene["max_rounds"] = draw(st.sampled_from((1, 3, 40, 100_000)))
    if _maybe(draw, 2):
        scene["objective"] = draw(st.sampled_from([e["then"] for e in ends] + ["nobody"]))
    return {"fight": scene}


@st.composite
def state_rulesets(draw: st.DrawFn, scenes: bool = True) -> dict[str, Any]:
    """A whole ruleset with a check, state, actions and (when `scenes`) a scene."""
    st_value = draw(state_section())
    check = draw(swing_check())
    actions = draw(actions_section(st_value, check))
    doc: dict[str, Any] = {
        "rulecraft": 1,
        "name": "fuzz",
        "checks": {"swing": check},
        "state": st_value,
        "actions": actions,
    }
    if scenes:
        doc["scenes"] = draw(scene_section(st_value, actions))
    return doc


# -- examples --------------------------------------------------------------------------------------


def _dice_for(draw: st.DrawFn, roll: dict[str, Any]) -> dict[str, Any]:
    """Forced dice for a check's roll: faces it has, faces it lacks, too few or too many."""
    dice: dict[str, Any] = {}
    for name, r in roll.items():
        sides = r.get("die", 6) if isinstance(r.get("die", 6), int) else 6
        count = r.get("pool", 1) if isinstance(r.get("pool", 1), int) else 1
        face = st.one_of(st.integers(1, max(1, sides)), st.sampled_from((0, sides + 1, "3", "x")))
        if draw(st.integers(0, 7)) == 0:
            continue  # a die left unforced: RC701
        if count == 1 and "redraw" not in r:
            dice[name] = draw(face)
        else:
            dice[name] = draw(st.lists(face, min_size=max(0, min(count, 6) - 1), max_size=min(count, 6) + 1))
    return dice


def _probability(draw: st.DrawFn) -> Any:
    return draw(
        st.one_of(
            st.sampled_from(("1/2", "0", "1", "1/3", "0.5", "2/0", "50%", "1/1000000")),
            st.fixed_dictionaries({"at_least": st.sampled_from(("0", "1/4"))}),
            st.fixed_dictionaries({"at_most": st.sampled_from(("1", "0.9"))}),
        )
    )


@st.composite
def check_examples(draw: st.DrawFn, check: dict[str, Any]) -> list[dict[str, Any]]:
    """Examples for `check`: inputs, forced dice, a policy, an expected outcome, values and chances
    — right by chance, wrong, or naming what the check does not have."""
    out = []
    for _ in range(draw(st.integers(1, 3))):
        expect: dict[str, Any] = {}
        if _maybe(draw, 5):
            expect["outcome"] = draw(st.sampled_from((*check.get("outcomes", OUTCOMES), "nope")))
        if _maybe(draw, 2):
            expect["values"] = {draw(st.sampled_from(("d", "dmg", "x", "edge"))): draw(st.integers(0, 8))}
        if _maybe(draw, 3) or not expect:
            names = st.sampled_from((*check.get("outcomes", OUTCOMES), "nope"))
            expect["probability"] = {draw(names): _probability(draw)}
        ex: dict[str, Any] = {"expect": expect}
        if "outcome" in expect or "values" in expect:
            ex["dice"] = _dice_for(draw, check["roll"])
        if _maybe(draw, 3):
            ex["inputs"] = {"edge": draw(st.sampled_from((0, 1, 3, 200, -1, "2", True, 1.5)))}
        if _maybe(draw, 3):
            ex["policy"] = draw(st.sampled_from(("always", "never", "optimal")))
        out.append(ex)
    return out


@st.composite
def state_examples(draw: st.DrawFn, doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Examples of the lasting state: characters, steps (acts with dice, periods, joins, undos),
    an expected state or the refusal of the last step."""
    out = []
    actions = doc["actions"]
    for i in range(draw(st.integers(1, 2))):
        chars = {
            p: ({"hp": draw(st.integers(1, 5))} if _maybe(draw) else {})
            for p in PARTIES[: draw(st.integers(1, 2))]
        }
        steps: list[dict[str, Any]] = []
        for _ in range(draw(st.integers(1, 4))):
            kind = draw(st.sampled_from(("act", "act", "act", "begin", "join", "undo")))
            if kind == "act":
                name = draw(st.sampled_from(sorted(actions)))
                step: dict[str, Any] = {"act": name}
                if actions[name].get("by") == "character":
                    step["character"] = draw(st.sampled_from(sorted(chars)))
                if "others" in actions[name]:
                    step["others"] = {"foe": draw(st.sampled_from(PARTIES[:2]))}
                if "roll" in actions[name] and _maybe(draw, 7):
                    step["dice"] = _dice_for(draw, doc["checks"]["swing"]["roll"])
                steps.append(step)
            elif kind == "begin":
                steps.append({"begin": "rest"})
            elif kind == "join":
                steps.append({"join": "cy", "params": {"hp": draw(st.integers(0, 3))}})
            else:
                steps.append({"undo": True})
        ex: dict[str, Any] = {"name": f"e{i}", "characters": chars, "steps": steps}
        if _maybe(draw, 2):
            ex["refused"] = draw(st.sampled_from(("RC905", "RC906", "RC907")))
        if _maybe(draw, 5):
            ex["expect"] = {"characters": {"ann": {"hurt": draw(st.integers(0, 2))}}}
            if _maybe(draw, 2):
                ex["expect"]["shared"] = {"tick": draw(st.integers(0, 2))}
        out.append(ex)
    return out


@st.composite
def rulesets_with_examples(draw: st.DrawFn) -> dict[str, Any]:
    """A state ruleset (sometimes without its state) whose check and state carry examples."""
    doc = draw(state_rulesets(scenes=False))
    doc["checks"]["swing"]["examples"] = draw(check_examples(doc["checks"]["swing"]))
    if _maybe(draw, 5):
        doc["state"]["examples"] = draw(state_examples(doc))
    elif _maybe(draw, 2):
        del doc["state"], doc["actions"]
    return doc


# -- campaigns -------------------------------------------------------------------------------------


@st.composite
def operations(draw: st.DrawFn, doc: dict[str, Any]) -> list[dict[str, Any]]:
    """What a table does to a campaign, in order: joins, actions (with seeds, forced dice, policies,
    inputs, roles right and wrong), checks rolled, periods begun, undos, scenes played."""
    actions = sorted(doc.get("actions", {})) + ["nope"]
    ops: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(("act", "act", "act", "act", "join", "roll", "begin", "undo", "scene")))
        op: dict[str, Any] = {"op": kind}
        if kind == "act":  # mostly as the rules allow, now and then not
            name = draw(st.sampled_from(actions[:-1])) if draw(st.integers(0, 15)) else "nope"
            op["action"] = name
            action = doc.get("actions", {}).get(name, {})
            who = draw(st.sampled_from(("ann", "bo")))
            wrong = draw(st.integers(0, 7)) == 0
            if (action.get("by") == "character") != wrong:
                op["character"] = draw(st.sampled_from((None, "cy"))) if wrong else who
            else:
                op["character"] = None
            foe = "bo" if who == "ann" else "ann"
            op["others"] = {"foe": who if wrong else foe} if ("others" in action) != wrong else None
            op["policy"] = draw(st.sampled_from(("always", "never", "optimal")))
            if _maybe(draw, 2):
                op["forced"] = _dice_for(draw, doc["checks"]["swing"]["roll"])
            else:
                op["seed"] = draw(st.integers(0, 2**16))
            if _maybe(draw, 2):
                op["inputs"] = {"much": draw(st.sampled_from((0, 1, 3, 4, "1", True)))}
        elif kind == "join":
            op["character"] = draw(st.sampled_from(PARTIES))
            op["params"] = {"hp": draw(st.sampled_from((1, 2, 5, 0, 10**6)))} if _maybe(draw) else {}
        elif kind == "roll":
            op["check"] = draw(st.sampled_from(("swing", "nope")))
            op["seed"] = draw(st.integers(0, 2**16))
            op["inputs"] = {"edge": draw(st.integers(0, 4))} if _maybe(draw) else {}
        elif kind == "begin":
            op["period"] = draw(st.sampled_from(("rest", "rest", "nope")))
        elif kind == "scene":
            op["scene"] = draw(st.sampled_from(("fight", "fight", "nope")))
            op["seed"] = draw(st.integers(0, 2**16))
            op["cast"] = {p: p for p in PARTIES[: draw(st.integers(1, 3))]}
            op["policy"] = draw(st.sampled_from(("always", "never", "optimal")))
        ops.append(op)
    return ops
