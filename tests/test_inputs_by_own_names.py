"""An input whose name is also one of the entry point's own arguments (`trace`, `policy`, `seed`,
…) or a word Python reserves (`class`) cannot be given as `name=VALUE` from Python: `roll("c",
trace=6)` sets the roll's own `trace`. The message for a missing input said "(trace=VALUE from
Python)", which is wrong for such a name, and a wrong-typed own argument said nothing of the
input it was most likely meant for. Both now name `inputs={...}`, which takes any name."""

from __future__ import annotations

from fractions import Fraction

import pytest

import engine
from engine.state.memory import MemoryStore

SOURCE = """rulecraft: 1
name: clash
scales:
  result: [lo, hi]
checks:
  c:
    inputs:
      trace: {type: int}
      class: {type: int, default: 0}
      skill: {type: int, default: 0}
    roll:
      d: {die: 6}
    outcomes: result
    outcome:
      - when: d + trace + skill > 5
        then: hi
      - else: lo
  plain:
    roll:
      d: {die: 6}
    outcomes: result
    outcome:
      - when: d > 3
        then: hi
      - else: lo
state:
  shared:
    tally: {counter: 0, min: 0}
actions:
  try:
    inputs:
      seed: {type: int}
    roll: {check: plain}
    effects:
      - {add: {tally: 1}, when: "seed > 0"}
"""


@pytest.fixture
def rules() -> engine.Ruleset:
    return engine.load(SOURCE)


def test_a_missing_input_named_as_an_own_argument_is_given_by_inputs(rules: engine.Ruleset) -> None:
    with pytest.raises(engine.InputError) as missing:
        rules.roll("c")
    [d] = missing.value.diagnostics
    assert d.hint == "give it as --input trace=VALUE (inputs={'trace': VALUE} from Python)"


@pytest.mark.parametrize(("name", "way"), [("class", "inputs={'class': VALUE}"), ("skill", "skill=VALUE")])
def test_the_python_way_is_a_keyword_only_where_python_and_every_entry_point_take_one(
    name: str, way: str
) -> None:
    source = SOURCE.replace("class: {type: int, default: 0}", "class: {type: int}").replace(
        "skill: {type: int, default: 0}", "skill: {type: int}"
    )
    with pytest.raises(engine.InputError) as missing:
        engine.load(source).roll("c", inputs={"trace": 0})
    hints = {d.message.split("'")[-2]: d.hint for d in missing.value.diagnostics}
    assert hints[name] == f"give it as --input {name}=VALUE ({way} from Python)"


@pytest.mark.parametrize("call", ["roll", "roller", "distribution", "sample"])
def test_an_own_argument_of_the_wrong_type_names_the_input(rules: engine.Ruleset, call: str) -> None:
    with pytest.raises(TypeError) as wrong:
        if call == "roll":
            rules.roll("c", trace=6)  # type: ignore[arg-type]
        elif call == "roller":
            rules.roller("c", trace=6)  # type: ignore[arg-type]
        elif call == "distribution":
            rules.distribution("c", policy=6)  # type: ignore[arg-type]
        else:
            rules.sample("c", 10, method=6)  # type: ignore[arg-type]
    told = str(wrong.value)
    argument = "method" if call == "sample" else "policy" if call == "distribution" else "trace"
    assert f"argument '{argument}' must be" in told
    if argument == "trace":
        assert told.endswith("; check 'c' has an input named 'trace': give it as inputs={'trace': ...}")
    else:  # no input of that name: nothing more said
        assert "input" not in told


def test_given_by_inputs_it_rolls(rules: engine.Ruleset) -> None:
    result = rules.roll("c", inputs={"trace": 6})  # 6 + d > 5 always
    assert result.outcome.name == "hi" and result.trace
    assert rules.distribution("c", inputs={"trace": 6}).table() == [("lo", 0), ("hi", 1)]


def test_a_check_without_the_input_says_nothing_of_inputs(rules: engine.Ruleset) -> None:
    with pytest.raises(TypeError) as wrong:
        rules.roll("plain", trace=6)  # type: ignore[arg-type]
    assert str(wrong.value) == "Ruleset.roll: argument 'trace' must be True or False, not int 6"


def test_a_campaign_action_and_roll_name_the_input() -> None:
    campaign = engine.new_campaign("c", SOURCE, store=MemoryStore())
    with pytest.raises(TypeError) as wrong:
        campaign.act("try", seed="7")  # type: ignore[arg-type]
    told = str(wrong.value)
    assert told.endswith("action 'try' has an input named 'seed': give it as inputs={'seed': ...}")
    with pytest.raises(TypeError) as wrong:
        campaign.roll("c", trace=6)  # type: ignore[arg-type]
    assert str(wrong.value).endswith("check 'c' has an input named 'trace': give it as inputs={'trace': ...}")
    with pytest.raises(engine.InputError) as missing:
        campaign.act("try", seed=7)  # the action's own seed: its input is still missing
    assert "inputs={'seed': VALUE} from Python" in str(missing.value)
    assert [e.kind for e in campaign.log()] == ["new"]
    acted = campaign.act("try", inputs={"seed": 1}, seed=7)
    assert acted.event.data["inputs"] == {"seed": 1} and acted.event.data["seed"] == 7
    assert campaign.state()["shared"] == {"tally": 1}


def test_the_type_error_pickles_whole(rules: engine.Ruleset) -> None:
    """As every error the engine raises: a worker process hands it to its parent pickled."""
    import pickle

    with pytest.raises(TypeError) as wrong:
        rules.roll("c", trace=6)  # type: ignore[arg-type]
    again = pickle.loads(pickle.dumps(wrong.value))
    assert type(again) is type(wrong.value) and str(again) == str(wrong.value)
    assert again.argument == "trace"  # type: ignore[attr-defined]


BOLD = """rulecraft: 1
name: bold
scales:
  result: [lo, hi]
  stance: [bold, careful]
checks:
  p:
    inputs:
      policy: {type: choice, choices: stance}
    roll:
      d: {die: 6}
    outcomes: result
    outcome:
      - when: policy == 'bold' and d > 3
        then: hi
      - else: lo
actions:
  go:
    inputs:
      policy: {type: choice, choices: stance}
    roll: {check: p, inputs: {policy: policy}}
    effects: []
"""


def test_a_policy_that_is_no_policy_names_an_input_policy() -> None:
    """Hunt 13zl: `policy="bold"` for a choice input `policy` was "unknown policy 'bold'" alone."""
    rules = engine.load(BOLD)
    also = "check 'p' has an input named 'policy': give it as inputs={'policy': ...}"
    for call in (lambda: rules.sample("p", 10, policy="bold"), lambda: rules.roller("p", policy="bold")):
        with pytest.raises(engine.InputError) as unknown:
            call()
        [d] = unknown.value.diagnostics
        assert d.code == "RC408" and d.message == "unknown policy 'bold'" and d.hint is not None
        assert d.hint.endswith(f"; {also}"), d.hint
    with pytest.raises(engine.InputError) as missing:  # the roll binds its inputs first: RC401
        rules.roll("p", policy="bold")
    assert "inputs={'policy': VALUE} from Python" in str(missing.value)
    assert rules.distribution("p", inputs={"policy": "bold"}).probability("hi") == Fraction(1, 2)
    campaign = engine.new_campaign("c", BOLD, store=MemoryStore())
    with pytest.raises(engine.InputError) as unknown:
        campaign.act("go", policy="bold")
    assert str(unknown.value.diagnostics[0].hint).endswith(
        "action 'go' has an input named 'policy': give it as inputs={'policy': ...}"
    )
    plain = engine.load(SOURCE)  # no input `policy`: nothing more said
    with pytest.raises(engine.InputError) as unknown:
        plain.sample("plain", 10, policy="bold")
    assert "input" not in str(unknown.value.diagnostics[0].hint)
