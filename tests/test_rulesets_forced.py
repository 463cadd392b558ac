"""Every declared outcome of every shipped check, reached with forced dice.

The expectations here come from the rule texts in `shared/seeds/` (and, where the text leaves a
choice open, from the reading the ruleset records in its `notes:`), written out independently
of the ruleset's own tables. Where a test sweeps all faces it compares the engine against that
independent reading, so a wrong cell in a ruleset table fails a test.
"""

from __future__ import annotations

import itertools
import random

import pytest
from _chill import chill_band, chill_reading

import engine
from engine.errors import InputError

CHILL = engine.load("chill")
CHIMERA = engine.load("chimera")
CASTLE = engine.load("castle")
CHTHONIAN = engine.load("chthonian")
SHIPPED = ("chill", "chimera", "castle", "chthonian")


def declared(rs: engine.Ruleset, check: str) -> set[str]:
    return set(rs.checks[check].outcomes.names)


def outcome(rs: engine.Ruleset, check: str, forced: dict, **inputs) -> str:
    return rs.roll(check, random.Random(0), forced=forced, **inputs).outcome.name


def test_the_four_rulesets_declare_the_checks_the_issue_asks_for():
    """The issue names the core checks; a missing one would make the coverage below vacuous."""
    assert set(CHILL.checks) >= {"specific"}
    assert set(CHIMERA.checks) >= {"single", "pool", "save"}
    assert set(CASTLE.checks) >= {"task", "wound", "ranged"}
    assert set(CHTHONIAN.checks) >= {"standard"}


def random_inputs(check, rng: random.Random) -> dict:
    """Valid inputs drawn from a check's declared inputs alone."""
    out = {}
    for spec in check.inputs:
        if spec.scale is not None:
            out[spec.name] = rng.choice(spec.scale.names)
        elif spec.kind == "bool":
            out[spec.name] = rng.random() < 0.5
        else:
            lo = spec.minimum if spec.minimum is not None else -20
            hi = spec.maximum if spec.maximum is not None else 20
            out[spec.name] = rng.randint(int(lo), int(min(hi, lo + 40)))
    return out


@pytest.mark.parametrize(
    ("ruleset", "check"), [(r, c) for r in SHIPPED for c in engine.load(r).checks], ids=lambda v: str(v)
)
def test_every_check_reaches_every_declared_outcome(ruleset, check):
    """A catch-all over every check shipped now or later: random valid inputs and seeds reach
    every declared outcome (an unreachable outcome is a dead table row or a wrong rule).
    The forced-dice tests below pin *which* dice give which outcome for the core checks."""
    rs = engine.load(ruleset)
    spec = rs.checks[check]
    rng = random.Random(f"{ruleset}.{check}")
    reached: set[str] = set()
    for _ in range(4000):
        reached.add(rs.roll(check, random.Random(rng.random()), **random_inputs(spec, rng)).outcome.name)
        if reached == declared(rs, check):
            break
    assert reached == declared(rs, check)


# ---------------------------------------------------------------------------------------------
# Chill — the Specific check
# ---------------------------------------------------------------------------------------------


def chill(tens: int, ones: int, target: int, tokens: int = 0) -> engine.Result:
    return CHILL.roll("specific", forced={"tens": tens, "ones": ones}, target=target, tokens=tokens)


def split(roll: int) -> tuple[int, int]:
    return (0, 0) if roll == 100 else divmod(roll, 10)


def test_chill_every_result_is_reached():
    """Target 55: 77 Botch, 60 Failure, 28 Low, 27 High, 33 Colossal — all five results."""
    reached = {chill(*split(r), target=55).outcome.name for r in (77, 60, 28, 27, 33)}
    assert reached == declared(CHILL, "specific")


@pytest.mark.parametrize(
    ("tens", "ones", "reading"), [(0, 0, 100), (0, 5, 5), (1, 0, 10), (9, 9, 99), (4, 2, 42)]
)
def test_chill_dice_read_as_tens_and_ones_with_00_as_100(tens, ones, reading):
    """ "By reading the dice this way, you generate a number 1-100 … double zeros … read as 100"."""
    result = chill(tens, ones, target=50)
    assert result.values["roll"] == reading
    assert result.rolled == {"tens": tens, "ones": ones}


@pytest.mark.parametrize("digit", range(1, 10))
def test_chill_doubles_over_target_botch_and_at_or_under_colossal(digit):
    """Doubles higher than the target are a Botch; doubles at or under it a Colossal Success."""
    roll = digit * 11
    got = chill(digit, digit, target=55).outcome.name
    assert got == ("botch" if roll > 55 else "colossal_success")
    assert chill(digit, digit, target=roll).outcome.name == "colossal_success"  # "lower than or equal"
    assert chill(digit, digit, target=roll - 1).outcome.name == "botch"


@pytest.mark.parametrize("target", [1, 30, 55, 99, 100, 101, 150, 300])
def test_chill_100_always_fails(target):
    """ "A roll of a 100 is a failure, no matter what" — 00 is never any kind of success."""
    assert chill(0, 0, target=target).outcome.name in {"botch", "failure"}


def test_chill_00_against_exactly_100_is_a_failure():
    """Note `hundred`: the Botch needs a roll "higher than the target number", and 100 is not
    higher than 100; "a roll of a 100 is a failure, no matter what" keeps it from being a
    Colossal Success. Against 99 it is higher: a Botch."""
    assert chill(0, 0, target=100).outcome.name == "failure"
    assert chill(0, 0, target=99).outcome.name == "botch"


@pytest.mark.parametrize("target", [101, 120, 300])
def test_chill_00_against_more_than_100_is_a_failure(target):
    """ "If your character number is greater than 100, a roll of 00 is considered a Failure, not a Botch"."""
    assert chill(0, 0, target=target).outcome.name == "failure"


@pytest.mark.parametrize("target", [100, 101, 180])
def test_chill_target_of_100_or_more_only_fails_on_100(target):
    """ "If a target number is 100 or more, you can only fail if you roll 100"."""
    for tens, ones in itertools.product(range(10), repeat=2):
        if (tens, ones) == (0, 0):
            continue
        assert chill(tens, ones, target=target).outcome.name not in {"botch", "failure"}, (tens, ones)


@pytest.mark.parametrize(
    ("roll", "want"),
    [(27, "high_success"), (28, "low_success"), (1, "high_success"), (54, "low_success"), (56, "failure")],
)
def test_chill_half_target_boundary_for_55(roll, want):
    """Note `half-target`: for target 55 a roll of 27 is High, 28 Low (27.5 is the half)."""
    assert chill(*split(roll), target=55).outcome.name == want


def test_chill_exactly_half_is_high():
    """Note `half-target`: a roll equal to the exact half (50 → 25) is a High Success."""
    assert chill(2, 5, target=50).outcome.name == "high_success"
    assert chill(2, 6, target=50).outcome.name == "low_success"


def test_chill_roll_equal_to_target_is_low_success():
    """ "lower than or equal to the target number, but still more than half" → Low Success."""
    assert chill(5, 4, target=54).outcome.name == "low_success"
    assert chill(5, 5, target=54).outcome.name == "botch"  # doubles, higher than the target


# Tokens (note `tokens`): +10 to the target each, the roll re-banded; a Botch before the tokens
# still costs its own forced dark flip; a Botch turned into a Colossal Success does not make the
# Chill Master turn a token light.


def test_chill_token_turns_failure_into_success():
    result = chill(6, 2, target=55, tokens=1)  # 62 vs 65
    assert result.outcome.name == "low_success"
    assert result.values["before_tokens"] == CHILL.model.scales["result"]["failure"]
    assert result.values["forced_dark"] == 1  # the token turned, no Botch
    assert result.values["forced_light"] == 0


def test_chill_tokens_rebands_low_into_high():
    """30 against 55 is Low; two tokens make the target 75 and 30 ≤ 37.5 is High."""
    result = chill(3, 0, target=55, tokens=2)
    assert result.outcome.name == "high_success"
    assert result.values["forced_dark"] == 2


def test_chill_botch_turned_colossal_by_tokens_still_costs_its_flip():
    result = chill(7, 7, target=70, tokens=1)  # 77 vs 70 is a Botch; vs 80 doubles-under
    assert result.outcome.name == "colossal_success"
    assert result.values["forced_dark"] == 2  # one for the Botch, one turned to raise the target
    assert result.values["forced_light"] == 0


def test_chill_botch_not_rescued_by_too_few_tokens():
    result = chill(8, 8, target=70, tokens=1)  # 88 vs 80: still doubles over the target
    assert result.outcome.name == "botch"
    assert result.values["forced_dark"] == 2


def test_chill_plain_botch_and_plain_colossal_outputs():
    """ "A player must turn a token dark if she rolls a Botch"; the CM turns one light on a
    player's Colossal Success."""
    botch = chill(7, 7, target=55)
    assert botch.outcome.name == "botch"
    assert (botch.values["forced_dark"], botch.values["forced_light"]) == (1, 0)
    colossal = chill(3, 3, target=55)
    assert colossal.outcome.name == "colossal_success"
    assert (colossal.values["forced_dark"], colossal.values["forced_light"]) == (0, 1)


def test_chill_tokens_cannot_save_a_100():
    """100 always fails; tokens that lift the target above 100 make the 00 a Failure (note
    `hundred`), and the Botch it was still costs its flip."""
    result = chill(0, 0, target=95, tokens=1)
    assert result.outcome.name == "failure"
    assert result.values["forced_dark"] == 2


@pytest.mark.parametrize("target", [1, 9, 10, 27, 54, 55, 56, 77, 99, 100, 101, 150])
@pytest.mark.parametrize("tokens", [0, 1, 3])
def test_chill_every_face_pair_matches_the_text(target, tokens):
    """All 100 rolls against a spread of targets, compared with the text's five results."""
    for tens, ones in itertools.product(range(10), repeat=2):
        roll = chill_reading(tens, ones)
        doubles = tens == ones
        result = chill(tens, ones, target=target, tokens=tokens)
        assert result.outcome.name == chill_band(roll, doubles, target + 10 * tokens), (tens, ones)
        before = chill_band(roll, doubles, target)
        assert result.values["forced_dark"] == tokens + (before == "botch")
        assert result.values["forced_light"] == int(
            result.outcome.name == "colossal_success" and before != "botch"
        )


# ---------------------------------------------------------------------------------------------
# Chimera — the advantage ladder, the pool, the save
# ---------------------------------------------------------------------------------------------

# The Variables of Success tables, transcribed from the text (faces 0-9; note `faces`).
_BANDS = [(0,), (1, 2, 3), (4, 5), (6, 7, 8), (9,)]
_TABLES = {
    0: ["crit_fail", "fail", "half_pass", "pass", "crit_pass"],  # Variables of Success
    1: ["crit_fail", "fail", "pass", "pass", "crit_pass"],  # Advantage
    2: ["crit_fail", "pass", "pass", "pass", "crit_pass"],  # Double Advantage
    -1: ["crit_fail", "fail", "fail", "pass", "crit_pass"],  # Disadvantage
    -2: ["crit_fail", "fail", "fail", "fail", "crit_pass"],  # Double Disadvantage
}


def vos(level: int, face: int) -> str:
    for band, name in zip(_BANDS, _TABLES[level]):
        if face in band:
            return name
    raise AssertionError(face)


def ladder(advantage: int, disadvantage: int) -> int:
    """Each advantage +1, each disadvantage -1, stacking "up to three times" (note `ladder`)."""
    return max(-3, min(3, advantage - disadvantage))


def inputs_for(level: int) -> dict[str, int]:
    return {"advantage": level, "disadvantage": 0} if level >= 0 else {"advantage": 0, "disadvantage": -level}


# Tie-break of a pool (note `majority-tie`): half-pass, then fail, then pass; crit_fail before crit_pass.
_TIE_ORDER = ["half_pass", "fail", "pass", "crit_fail", "crit_pass"]


def majority(readings: list[str]) -> str:
    counts = {r: readings.count(r) for r in readings}
    top = max(counts.values())
    tied = [r for r, c in counts.items() if c == top]
    return min(tied, key=_TIE_ORDER.index)


@pytest.mark.parametrize("level", [-2, -1, 0, 1, 2])
def test_chimera_single_each_table_level(level):
    """One die at each rolled level of the ladder, every face, against the text's tables."""
    for face in range(10):
        result = CHIMERA.roll("single", forced={"die": face}, **inputs_for(level))
        assert result.outcome.name == vos(level, face), face
        assert not result.auto
        assert result.rolled == {"die": face}


@pytest.mark.parametrize(("level", "want"), [(-3, "fail"), (3, "pass")])
def test_chimera_single_auto_levels_roll_nothing_and_are_never_critical(level, want):
    """Auto-fail / auto-pass: "no roll is made" and never a critical result."""
    for seed in range(30):
        result = CHIMERA.roll("single", random.Random(seed), **inputs_for(level))
        assert result.auto is True
        assert result.rolled == {}
        assert result.outcome.name == want
        assert not any(step.kind == "die" for step in result.trace)


@pytest.mark.parametrize(
    ("inputs", "face", "want"), [({"advantage": 3}, 9, "pass"), ({"disadvantage": 3}, 0, "fail")]
)
def test_chimera_single_auto_with_a_forced_die_is_never_critical(inputs, face, want):
    """Forcing a 9 (or a 0) at auto-pass (auto-fail) cannot make a critical: the engine either
    refuses a die it will not roll (InputError) or ignores it and rolls nothing."""
    try:
        result = CHIMERA.roll("single", forced={"die": face}, **inputs)
    except InputError:
        return
    assert (result.auto, result.rolled, result.outcome.name) == (True, {}, want)


@pytest.mark.parametrize(
    ("advantage", "disadvantage"),
    [(0, 0), (1, 0), (2, 1), (5, 0), (10, 0), (0, 4), (0, 10), (3, 3), (4, 2), (1, 3)],
)
def test_chimera_single_net_level_is_clamped(advantage, disadvantage):
    """Advantages and disadvantages cancel, and the net is clamped to auto-fail..auto-pass."""
    level = ladder(advantage, disadvantage)
    if abs(level) >= 3:  # auto levels roll nothing, so there is no die to force
        result = CHIMERA.roll("single", random.Random(level), advantage=advantage, disadvantage=disadvantage)
        assert (result.auto, result.rolled) == (True, {})
        assert result.outcome.name == ("pass" if level > 0 else "fail")
        return
    for face in (0, 2, 4, 7, 9):
        result = CHIMERA.roll("single", forced={"die": face}, advantage=advantage, disadvantage=disadvantage)
        assert result.outcome.name == vos(level, face)


def test_chimera_single_reaches_every_outcome():
    reached = {CHIMERA.roll("single", **inputs_for(level)).outcome.name for level in (-3, 3)}
    for level in range(-2, 3):
        for face in range(10):
            reached.add(CHIMERA.roll("single", forced={"die": face}, **inputs_for(level)).outcome.name)
    assert reached == declared(CHIMERA, "single")


@pytest.mark.parametrize(
    ("faces", "want"),
    [
        ([7, 7, 9], "pass"),
        ([0, 4, 9], "half_pass"),
        ([1, 5, 6], "half_pass"),
        ([9, 8], "pass"),
        ([0, 1], "fail"),
    ],
)
def test_chimera_pool_tie_break_examples_from_the_text(faces, want):
    """ "7, 7, 9" passes; "0, 4, 9" and "1, 5, 6" half-pass; "9, 8" passes and "0, 1" fails."""
    assert CHIMERA.roll("pool", forced={"rolled": faces}, dice=len(faces)).outcome.name == want


def test_chimera_pool_reaches_every_outcome():
    cases = {
        "crit_fail": [0, 0, 5],
        "fail": [1, 2, 9],
        "half_pass": [4],
        "pass": [6, 8, 0],
        "crit_pass": [9, 9, 1],
    }
    reached = {CHIMERA.roll("pool", forced={"rolled": f}, dice=len(f)).outcome.name for f in cases.values()}
    assert reached == declared(CHIMERA, "pool")
    for want, f in cases.items():
        assert CHIMERA.roll("pool", forced={"rolled": f}, dice=len(f)).outcome.name == want


@pytest.mark.parametrize("level", [-2, -1, 0, 1, 2])
def test_chimera_pool_every_pool_of_up_to_three_dice(level):
    """All pools of 1-3 dice at every rolled level: each die on the level's table, then majority."""
    for n in (1, 2, 3):
        for faces in itertools.product(range(10), repeat=n):
            result = CHIMERA.roll("pool", forced={"rolled": list(faces)}, dice=n, **inputs_for(level))
            assert result.outcome.name == majority([vos(level, f) for f in faces]), faces


@pytest.mark.parametrize(("level", "want"), [(-3, "fail"), (3, "pass")])
def test_chimera_pool_auto_rolls_no_dice(level, want):
    """ "no roll is made, even if a number of dice are called for"."""
    for seed in range(10):
        result = CHIMERA.roll("pool", random.Random(seed), dice=5, **inputs_for(level))
        assert (result.auto, result.rolled, result.outcome.name) == (True, {}, want)


def test_chimera_pool_rolls_the_asked_number_of_dice():
    for n in (1, 4, 10):
        result = CHIMERA.roll("pool", random.Random(n), dice=n)
        assert len(result.rolled["rolled"]) == n
    with pytest.raises(InputError):
        CHIMERA.roll("pool", forced={"rolled": [1, 2]}, dice=3)


def save_total(die: int, bonus: int) -> int:
    """Note `save-total`: 1d10 + bonus, read on the 0-9 table, clamped to its ends."""
    return max(0, min(9, die + bonus))


@pytest.mark.parametrize(
    ("die", "bonus", "want"),
    [
        (0, 0, "crit_fail"),
        (0, 1, "fail"),  # a bonus lifts a 0 out of a Critical Failure
        (3, 1, "half_pass"),
        (5, 3, "pass"),
        (8, 3, "crit_pass"),  # 11 reads as 9
        (9, 9, "crit_pass"),  # 18 reads as 9
        (9, -9, "crit_fail"),  # 0
        (4, -9, "crit_fail"),  # -5 reads as 0
        (9, -1, "pass"),  # 8: a penalty takes the critical away
    ],
)
def test_chimera_save_bonus_clamping(die, bonus, want):
    assert CHIMERA.roll("save", forced={"die": die}, bonus=bonus).outcome.name == want


@pytest.mark.parametrize("level", [-2, -1, 0, 1, 2])
def test_chimera_save_every_die_and_bonus(level):
    for die in range(10):
        for bonus in range(-9, 10):
            got = CHIMERA.roll("save", forced={"die": die}, bonus=bonus, **inputs_for(level)).outcome.name
            assert got == vos(level, save_total(die, bonus)), (die, bonus)


def test_chimera_save_reaches_every_outcome_and_auto_levels():
    reached = {CHIMERA.roll("save", forced={"die": d}).outcome.name for d in range(10)}
    assert reached == declared(CHIMERA, "save")
    for seed in range(10):  # auto levels: a plain pass/fail whatever the bonus, nothing rolled
        high = CHIMERA.roll("save", random.Random(seed), bonus=9, advantage=3)
        low = CHIMERA.roll("save", random.Random(seed), bonus=-9, disadvantage=3)
        assert (high.outcome.name, high.auto, high.rolled) == ("pass", True, {})
        assert (low.outcome.name, low.auto, low.rolled) == ("fail", True, {})


# ---------------------------------------------------------------------------------------------
# The Castle — bead bags
# ---------------------------------------------------------------------------------------------

RES = ["poor", "average", "good"]  # "Poor 3 White, Average 4 Blue, Good 2 Black" (note `chit-order`)
WOUNDS = ["light", "serious", "deadly"]
SKILLS = ["disadvantaged", "average", "advantaged"]

# "Disadvantaged: Draw two beads … take the worst. Normal: Draw 1 bead. Advantaged: Draw 2 … best."
DRAW = {"disadvantaged": (2, min), "average": (1, min), "advantaged": (2, max)}


def effective(skill: str, seriously_wounded: bool) -> str:
    """Note `seriously-wounded`: one level worse, Disadvantaged stays Disadvantaged."""
    if not seriously_wounded:
        return skill
    return SKILLS[max(0, SKILLS.index(skill) - 1)]


def castle_draws(count: int, order: list[str]):
    return [list(p) for p in itertools.product(order, repeat=count)]


@pytest.mark.parametrize("skill", SKILLS)
@pytest.mark.parametrize("seriously_wounded", [False, True])
def test_castle_task_every_draw(skill, seriously_wounded):
    level = effective(skill, seriously_wounded)
    count, keep = DRAW[level]
    reached = set()
    for beads in castle_draws(count, RES):
        result = CASTLE.roll(
            "task", forced={"beads": beads}, skill=skill, seriously_wounded=seriously_wounded
        )
        want = keep(beads, key=RES.index)
        assert result.outcome.name == want, beads
        reached.add(result.outcome.name)
    assert reached == declared(CASTLE, "task")


@pytest.mark.parametrize("skill", SKILLS)
@pytest.mark.parametrize("seriously_wounded", [False, True])
def test_castle_task_draws_the_right_number_of_chits(skill, seriously_wounded):
    count, _ = DRAW[effective(skill, seriously_wounded)]
    for seed in range(20):
        result = CASTLE.roll("task", random.Random(seed), skill=skill, seriously_wounded=seriously_wounded)
        assert len(result.rolled["beads"]) == count
    wrong = ["average"] * (3 - count)  # 1 chit where 2 are drawn, 2 where 1 is
    with pytest.raises(InputError):
        CASTLE.roll("task", forced={"beads": wrong}, skill=skill, seriously_wounded=seriously_wounded)


def test_castle_task_examples():
    """Disadvantaged takes the worst of two, Advantaged the best, Average the one drawn."""
    assert outcome(CASTLE, "task", {"beads": ["good", "poor"]}, skill="disadvantaged") == "poor"
    assert outcome(CASTLE, "task", {"beads": ["poor", "good"]}, skill="advantaged") == "good"
    assert outcome(CASTLE, "task", {"beads": ["average"]}, skill="average") == "average"
    # Seriously wounded: Advantaged draws like Average (one chit), Average like Disadvantaged.
    assert outcome(CASTLE, "task", {"beads": ["poor"]}, skill="advantaged", seriously_wounded=True) == "poor"
    assert (
        outcome(CASTLE, "task", {"beads": ["good", "average"]}, skill="average", seriously_wounded=True)
        == "average"
    )
    assert (
        outcome(CASTLE, "task", {"beads": ["good", "poor"]}, skill="disadvantaged", seriously_wounded=True)
        == "poor"
    )


# "Knife, Fist: Disadvantaged; Sword, Axe, Bow: Normal; Zweihander, Crossbow: Advantaged."
WEAPON_CLASS = {
    "knife": "disadvantaged",
    "fist": "disadvantaged",
    "sword": "average",
    "axe": "average",
    "bow": "average",
    "zweihander": "advantaged",
    "crossbow": "advantaged",
}


def test_castle_wound_weapons_are_the_texts():
    assert set(CASTLE.checks["wound"].input_map["weapon"].scale.names) == set(WEAPON_CLASS)


@pytest.mark.parametrize("weapon", list(WEAPON_CLASS))
def test_castle_wound_draw_by_weapon_class(weapon):
    count, keep = DRAW[WEAPON_CLASS[weapon]]
    reached = set()
    for chits in castle_draws(count, WOUNDS):
        result = CASTLE.roll("wound", forced={"chits": chits}, weapon=weapon)
        assert result.outcome.name == keep(chits, key=WOUNDS.index), chits
        reached.add(result.outcome.name)
    assert reached == declared(CASTLE, "wound")
    for seed in range(10):
        assert len(CASTLE.roll("wound", random.Random(seed), weapon=weapon).rolled["chits"]) == count


@pytest.mark.parametrize("skill", SKILLS)
@pytest.mark.parametrize("range_", ["short", "long"])
@pytest.mark.parametrize("seriously_wounded", [False, True])
def test_castle_ranged(skill, range_, seriously_wounded):
    """ "At Short Range an average result hits. At Long range a good result is needed." (note `ranged`)"""
    count, keep = DRAW[effective(skill, seriously_wounded)]
    reached = set()
    for beads in castle_draws(count, RES):
        drawn = keep(beads, key=RES.index)
        hit = RES.index(drawn) >= RES.index("average" if range_ == "short" else "good")
        result = CASTLE.roll(
            "ranged", forced={"beads": beads}, skill=skill, range=range_, seriously_wounded=seriously_wounded
        )
        assert result.outcome.name == ("hit" if hit else "miss"), beads
        reached.add(result.outcome.name)
    assert reached == declared(CASTLE, "ranged")


def test_castle_ranged_examples():
    assert outcome(CASTLE, "ranged", {"beads": ["average"]}, range="short") == "hit"
    assert outcome(CASTLE, "ranged", {"beads": ["average"]}, range="long") == "miss"
    assert outcome(CASTLE, "ranged", {"beads": ["good"]}, range="long") == "hit"
    assert outcome(CASTLE, "ranged", {"beads": ["poor"]}, range="short") == "miss"
    assert (
        outcome(CASTLE, "ranged", {"beads": ["average", "good"]}, skill="advantaged", range="long") == "hit"
    )
    assert (
        outcome(CASTLE, "ranged", {"beads": ["average", "good"]}, skill="disadvantaged", range="long")
        == "miss"
    )


def test_castle_bags_hold_five_sets_of_the_texts_weights():
    """Note `sets`: five times the listed ratios; 45 resolution and 40 wound chits."""
    res = {s.name: n for s, n in CASTLE.model.bags["resolution"].contents()}
    wounds = {s.name: n for s, n in CASTLE.model.bags["wounds"].contents()}
    assert res == {"poor": 15, "average": 20, "good": 10}
    assert wounds == {"light": 25, "serious": 10, "deadly": 5}


def test_castle_draw_is_without_replacement():
    """Chits are drawn without replacement (note `sets`): a draw cannot hold more chits of a
    colour than the bag has. Shown on a bag with one chit of each colour."""
    src = engine.SourceFile(
        "tiny.yaml",
        "rulecraft: 1\nname: tiny\nbags:\n  b: {chits: {x: 1, y: 1}, sets: 1}\n"
        "checks:\n  c:\n    roll:\n      d: {draw: b, count: 2}\n    outcomes: b\n    outcome: best(d)\n",
    )
    tiny = engine.load_source(src)
    assert tiny.roll("c", forced={"d": ["x", "y"]}).outcome.name == "y"
    with pytest.raises(InputError):
        tiny.roll("c", forced={"d": ["x", "x"]})
    for seed in range(20):
        assert sorted(s.name for s in tiny.roll("c", random.Random(seed)).rolled["d"].items) == ["x", "y"]


# ---------------------------------------------------------------------------------------------
# Chthonian — the Standard Roll
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("traits", [-5, -1, 0, 2, 7])
@pytest.mark.parametrize("difficulty", [1, 5, 8, 11, 20])
def test_chthonian_standard_extent(traits, difficulty):
    """ "roll your twelve-sided die and add or subtract any Traits … Subtract the Difficulty …
    the Extent … If the Extent is zero or greater, your Excursionist succeeds"."""
    for die in range(1, 13):
        result = CHTHONIAN.roll("standard", forced={"die": die}, traits=traits, difficulty=difficulty)
        extent = die + traits - difficulty
        assert result.values["extent"] == extent
        assert result.outcome.name == ("success" if extent >= 0 else "failure")


def test_chthonian_standard_reaches_both_outcomes_at_the_zero_boundary():
    at_zero = CHTHONIAN.roll("standard", forced={"die": 8}, traits=0, difficulty=8)
    below = CHTHONIAN.roll("standard", forced={"die": 7}, traits=0, difficulty=8)
    assert (at_zero.values["extent"], at_zero.outcome.name) == (0, "success")
    assert (below.values["extent"], below.outcome.name) == (-1, "failure")
    assert {at_zero.outcome.name, below.outcome.name} == declared(CHTHONIAN, "standard")


@pytest.mark.parametrize("face", [0, 13])
def test_chthonian_die_is_a_d12(face):
    """ "a twelve-sided die": faces 1-12, so 0 and 13 cannot be forced."""
    with pytest.raises(InputError):
        CHTHONIAN.roll("standard", forced={"die": face})
