"""Exact distributions: every shipped check pinned against a small independent enumeration
written here from the rule texts (not copied from the engine), the laws every distribution
obeys, and the Distribution API."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.runtime.limits import Limits

CHILL = engine.load("chill")
# The contest with 4 NPC dice and 3 resolve dice (which the property tests below may draw) needs
# about 4.8 million units of work, over the default budget of one request (Limits.max_work).
CHIMERA = engine.load("chimera", limits=Limits(max_work=10_000_000))
CASTLE = engine.load("castle")
CHTHONIAN = engine.load("chthonian")


def outcomes(rs: engine.Ruleset, check: str, **inputs: object) -> dict[str, Fraction]:
    return {s.name: p for s, p in rs.distribution(check, **inputs).table() if p}


def normalise(counts: Counter[str]) -> dict[str, Fraction]:
    total = sum(counts.values())
    return {k: Fraction(v, total) for k, v in counts.items() if v}


# -- Chill -------------------------------------------------------------------------------


def chill_by_hand(target: int, tokens: int = 0) -> dict[str, Fraction]:
    """The Specific check read straight from the text (see chill.yaml notes half-target, hundred)."""
    counts: Counter[str] = Counter()
    final = target + 10 * tokens
    for tens in range(10):
        for ones in range(10):
            roll = 100 if tens == ones == 0 else tens * 10 + ones
            doubles = tens == ones
            if roll == 100:
                counts["failure" if final >= 100 else "botch"] += 1
            elif doubles:
                counts["colossal_success" if roll <= final else "botch"] += 1
            elif roll > final:
                counts["failure"] += 1
            elif 2 * roll <= final:
                counts["high_success"] += 1
            else:
                counts["low_success"] += 1
    return normalise(counts)


def test_chill_target_55_is_the_issue_example() -> None:
    assert outcomes(CHILL, "specific", target=55) == {
        "botch": Fraction(1, 20),
        "colossal_success": Fraction(1, 20),
        "failure": Fraction(2, 5),
        "high_success": Fraction(1, 4),
        "low_success": Fraction(1, 4),
    }


@pytest.mark.parametrize("target", [1, 2, 9, 10, 11, 54, 55, 99, 100, 101, 120, 300])
@pytest.mark.parametrize("tokens", [0, 1, 3])
def test_chill_matches_hand_enumeration(target: int, tokens: int) -> None:
    assert outcomes(CHILL, "specific", target=target, tokens=tokens) == chill_by_hand(target, tokens)


def test_chill_forced_flip_outputs() -> None:
    # A player who spends 2 tokens after a roll against 40: the botch flip is owed on the
    # doubles above 40 before the tokens (44, 55, 66, 77, 88, 99, 00).
    d = CHILL.distribution("specific", target=40, tokens=2)
    assert d.value("forced_dark").probability(3) == Fraction(7, 100)
    assert d.value("forced_dark").probability(2) == Fraction(93, 100)
    # Colossal successes at final target 60 are 11..55 (5 of them); those from botches (44, 55)
    # make no light flip, so 3 in 100 do.
    assert d.value("forced_light").probability(1) == Fraction(3, 100)


# -- Chimera -----------------------------------------------------------------------------

VOS = {  # Variables of Success, by ladder level, from the text's tables
    -2: ["crit_fail", "fail", "fail", "fail", "fail", "fail", "fail", "fail", "fail", "crit_pass"],
    -1: ["crit_fail", "fail", "fail", "fail", "fail", "fail", "pass", "pass", "pass", "crit_pass"],
    0: ["crit_fail", "fail", "fail", "fail", "half_pass", "half_pass", "pass", "pass", "pass", "crit_pass"],
    1: ["crit_fail", "fail", "fail", "fail", "pass", "pass", "pass", "pass", "pass", "crit_pass"],
    2: ["crit_fail", "pass", "pass", "pass", "pass", "pass", "pass", "pass", "pass", "crit_pass"],
}
TIE_ORDER = ["half_pass", "fail", "pass", "crit_fail", "crit_pass"]


def majority_by_hand(classes: list[str]) -> str:
    counts = Counter(classes)
    top = max(counts.values())
    tied = [c for c in TIE_ORDER if counts[c] == top]
    return tied[0]


@pytest.mark.parametrize(
    "advantage,disadvantage", [(0, 0), (1, 0), (2, 0), (0, 1), (0, 2), (4, 1), (1, 5), (3, 0), (0, 3)]
)
def test_chimera_single_every_level(advantage: int, disadvantage: int) -> None:
    level = max(-3, min(3, advantage - disadvantage))
    got = outcomes(CHIMERA, "single", advantage=advantage, disadvantage=disadvantage)
    if level == 3:
        assert got == {"pass": 1}  # auto-pass: never critical
    elif level == -3:
        assert got == {"fail": 1}  # auto-fail: never critical
    else:
        assert got == normalise(Counter(VOS[level]))


@pytest.mark.parametrize("dice", [1, 2, 3, 4])
@pytest.mark.parametrize("level", [-1, 0, 2])
def test_chimera_pool_matches_every_ordered_roll(dice: int, level: int) -> None:
    counts: Counter[str] = Counter()
    for faces in itertools.product(range(10), repeat=dice):
        counts[majority_by_hand([VOS[level][f] for f in faces])] += 1
    adv, dis = (level, 0) if level >= 0 else (0, -level)
    assert outcomes(CHIMERA, "pool", dice=dice, advantage=adv, disadvantage=dis) == normalise(counts)


def test_chimera_ten_dice_pool_by_multisets() -> None:
    """10 dice: an independent count over multisets of classes with multinomial weights."""
    classes = Counter(VOS[0])
    names = list(classes)
    counts: Counter[str] = Counter()
    for combo in itertools.combinations_with_replacement(range(len(names)), 10):
        c = Counter(combo)
        weight = 3628800  # 10!
        for i, k in c.items():
            weight = weight // _fact(k) * classes[names[i]] ** k
        counts[majority_by_hand([names[i] for i in combo])] += weight
    assert outcomes(CHIMERA, "pool", dice=10) == normalise(counts)


def _fact(k: int) -> int:
    out = 1
    for i in range(2, k + 1):
        out *= i
    return out


@pytest.mark.parametrize("bonus", [-3, 0, 2, 9])
def test_chimera_save_totals(bonus: int) -> None:
    # chimera.yaml note save-total: totals outside 0..9 read as the nearest end.
    counts = Counter(VOS[0][min(9, max(0, f + bonus))] for f in range(10))
    assert outcomes(CHIMERA, "save", bonus=bonus) == normalise(counts)


# -- The Castle --------------------------------------------------------------------------

RESOLUTION = ["poor"] * 15 + ["average"] * 20 + ["good"] * 10
WOUNDS = ["light"] * 25 + ["serious"] * 10 + ["deadly"] * 5
ORDER = {"poor": 0, "average": 1, "good": 2, "light": 0, "serious": 1, "deadly": 2}


def draw_by_hand(bag: list[str], k: int, keep: str) -> dict[str, Fraction]:
    """Every ordered draw of k distinct chits from the physical bag."""
    counts: Counter[str] = Counter()
    for chits in itertools.permutations(range(len(bag)), k):
        names = [bag[i] for i in chits]
        pick = max if keep == "best" else min
        counts[pick(names, key=ORDER.__getitem__)] += 1
    return normalise(counts)


@pytest.mark.parametrize(
    "skill,wounded,k,keep",
    [
        ("advantaged", False, 2, "best"),
        ("average", False, 1, "best"),
        ("disadvantaged", False, 2, "worst"),
        ("advantaged", True, 1, "best"),  # seriously wounded: one level worse (note seriously-wounded)
        ("average", True, 2, "worst"),
        ("disadvantaged", True, 2, "worst"),
    ],
)
def test_castle_task(skill: str, wounded: bool, k: int, keep: str) -> None:
    assert outcomes(CASTLE, "task", skill=skill, seriously_wounded=wounded) == draw_by_hand(
        RESOLUTION, k, keep
    )


@pytest.mark.parametrize(
    "weapon,k,keep",
    [
        ("knife", 2, "worst"),
        ("fist", 2, "worst"),
        ("sword", 1, "best"),
        ("bow", 1, "best"),
        ("zweihander", 2, "best"),
        ("crossbow", 2, "best"),
    ],
)
def test_castle_wound(weapon: str, k: int, keep: str) -> None:
    assert outcomes(CASTLE, "wound", weapon=weapon) == draw_by_hand(WOUNDS, k, keep)


def test_castle_ranged() -> None:
    short = draw_by_hand(RESOLUTION, 1, "best")
    assert outcomes(CASTLE, "ranged", range="short")["hit"] == short["average"] + short["good"]
    adv = draw_by_hand(RESOLUTION, 2, "best")
    assert outcomes(CASTLE, "ranged", range="long", skill="advantaged")["hit"] == adv["good"]


# -- Chthonian ---------------------------------------------------------------------------


@pytest.mark.parametrize("traits,difficulty", [(0, 8), (3, 8), (-2, 11), (5, 5), (0, 20), (12, 0)])
def test_chthonian_extent(traits: int, difficulty: int) -> None:
    d = CHTHONIAN.distribution("standard", traits=traits, difficulty=difficulty)
    extents = Counter(face + traits - difficulty for face in range(1, 13))
    assert dict(d.value("extent").items()) == normalise(extents)
    assert d.probability("success") == Fraction(
        sum(1 for e in range(1, 13) if e + traits - difficulty >= 0), 12
    )
    assert d.mean("extent") == Fraction(13, 2) + traits - difficulty


# -- laws and API ------------------------------------------------------------------------


def _inputs_strategy(check: engine.model.Check) -> st.SearchStrategy[dict[str, object]]:
    """Any valid inputs; for reroll procedures, small pools (their exact chains grow fast)."""
    fields = {}
    for spec in check.inputs:
        if spec.scale is not None:
            fields[spec.name] = st.sampled_from(spec.scale.names)
        elif spec.kind == "bool":
            fields[spec.name] = st.booleans()
        else:
            lo = spec.minimum if spec.minimum is not None else -50
            hi = spec.maximum if spec.maximum is not None else 50
            if check.sequential:
                hi = min(hi, lo + 3)
            fields[spec.name] = st.integers(int(lo), int(hi))
    return st.fixed_dictionaries(fields)


CHECKS = [(rs, name) for rs in (CHILL, CHIMERA, CASTLE, CHTHONIAN) for name in rs.checks]


@pytest.mark.parametrize("rs,name", CHECKS, ids=[f"{rs.name}.{n}" for rs, n in CHECKS])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_probabilities_sum_to_exactly_one(rs: engine.Ruleset, name: str, data: st.DataObject) -> None:
    inputs = data.draw(_inputs_strategy(rs.checks[name]))
    d = rs.distribution(name, **inputs)
    assert sum(p for _, p in d.table()) == 1
    for dist in d.values.values():
        assert sum(p for _, p in dist.items()) == 1
    # ordered outcomes: at_least of the worst and at_most of the best are certain
    worst, best = d.outcomes.members[0], d.outcomes.members[-1]
    assert d.at_least(worst) == 1 and d.at_most(best) == 1


def test_distribution_api_and_json() -> None:
    d = CHILL.distribution("specific", target=55)
    assert d.probability("botch") == Fraction(1, 20)
    assert d.at_least("low_success") == Fraction(11, 20)
    assert d.at_most("failure") == Fraction(9, 20)
    assert d.value("roll").mean == Fraction(101, 2)
    assert d.value("roll").at_least(51) == Fraction(1, 2)
    data = d.as_json()
    assert data["outcomes"]["botch"] == "1/20"
    assert data["values"]["roll"]["100"] == "1/100"
    with pytest.raises(engine.InputError) as caught:  # was a bare KeyError (issue 11, item 5)
        d.probability("botsh")
    assert caught.value.diagnostics[0].hint == "did you mean 'botch'?"


def test_state_limit_is_a_clear_error() -> None:
    small = engine.load("chill", limits=Limits(max_states=50))
    with pytest.raises(engine.LimitError) as err:
        small.distribution("specific", target=55)
    assert err.value.diagnostics[0].code == "RC503"
    assert "limit of 50" in str(err.value)


def test_pool_limit_is_a_clear_error() -> None:
    small = engine.load("chimera", limits=Limits(max_pool=4))
    with pytest.raises(engine.LimitError):
        small.distribution("pool", dice=5)
    with pytest.raises(engine.LimitError):
        small.roll("pool", dice=5)
    assert small.distribution("pool", dice=4).probability("fail") > 0


# -- the checks added with rerolls and contests -----------------------------------------


def test_castle_combat_without_moves_by_hand() -> None:
    """Two independent draws at Average: better hits, equal is a stand-off (note combat)."""
    counts: Counter[str] = Counter()
    for foe in RESOLUTION:
        for mine in RESOLUTION:
            a, b = ORDER[mine], ORDER[foe]
            counts["you_hit" if a > b else "foe_hits" if a < b else "stand_off"] += 1
    assert outcomes(CASTLE, "combat") == normalise(counts)


def test_castle_combat_with_riposte_by_hand() -> None:
    """On a stand-off a third draw at the same level wounds only if it beats the foe's."""
    n = len(RESOLUTION)
    counts: Counter[str] = Counter()
    for foe in RESOLUTION:
        for mine in RESOLUTION:
            a, b = ORDER[mine], ORDER[foe]
            if a != b:
                counts["you_hit" if a > b else "foe_hits"] += n
                continue
            for third in RESOLUTION:
                counts["riposte_hit" if ORDER[third] > b else "stand_off"] += 1
    assert outcomes(CASTLE, "combat", riposte=True) == normalise(counts)


@pytest.mark.parametrize(
    "traits,foe_traits,must_win", [(0, 0, False), (3, 4, False), (2, 1, True), (0, 0, True)]
)
def test_chthonian_contest_by_hand(traits: int, foe_traits: int, must_win: bool) -> None:
    counts: Counter[str] = Counter()
    for mine in range(1, 13):
        for theirs in range(1, 13):
            extent = mine + traits - theirs - foe_traits
            if extent:
                counts["win" if extent > 0 else "lose"] += 1
            elif not must_win:
                counts["tie"] += 1
            elif traits != foe_traits:
                counts["win" if traits > foe_traits else "lose"] += 1
            # else equal Traits: that roll is made again (`then: again`), so it is left out and
            # the rest weighed over what is left (`normalise`)
    assert outcomes(
        CHTHONIAN, "contest", traits=traits, foe_traits=foe_traits, must_win=must_win
    ) == normalise(counts)


@pytest.mark.parametrize("check", ["skill", "attack", "evasion"])
def test_chimera_procedure_checks_agree_with_each_other(check: str) -> None:
    """Attack and evasion checks run the skill check's procedure (one set of rules)."""
    assert outcomes(CHIMERA, check, dice=3) == outcomes(CHIMERA, "skill", dice=3)


def test_chimera_instruction_rolls_six_minus_proficiency() -> None:
    # 6 - 3 = 3 dice, however many the teacher gives (resolve makes up the rest, note instruction):
    # the same as a 3-die skill check.
    for teacher in (0, 1, 3, 5):
        assert outcomes(CHIMERA, "instruction", proficiency=3, given=teacher) == outcomes(
            CHIMERA, "skill", dice=3
        )
    d = CHIMERA.distribution("instruction", proficiency=4)
    assert d.value("success").probability(1) == d.at_least("pass")


EMPTY_EACH = """\
rulecraft: 1
name: empty_each
tables: {band: {params: {level: int, face: int}, returns: int, cases: {0: {else: 0}, 1: {else: 1}}}}
checks:
  c:
    inputs: {level: {type: int, min: 0, max: 2, default: 0}}
    roll: {p: {pool: "2 if level < 2 else 0", die: 6, each: "band(level, face)"}}
    outcomes: [lo, hi]
    outcome: "'hi' if level >= 2 or count(p, 1) > 0 else 'lo'"
"""


def test_a_pool_of_no_dice_reads_no_face() -> None:
    """`each` is read only for dice that are rolled: a pool of 0 dice never calls the table that
    has no case for its level (the exact evaluator did, and failed with RC501 where sampling did
    not)."""
    rs = engine.load(EMPTY_EACH)
    assert dict(rs.distribution("c", level=2).table()) == {"lo": 0, "hi": 1}
    assert rs.roll("c", level=2).outcome == "hi"
    triggered = EMPTY_EACH.replace(
        'each: "band(level, face)"}',
        'each: "band(level, face)", triggers: [{on: "face == 6", must: reroll}]}',
    )
    rs = engine.load(triggered)
    assert dict(rs.distribution("c", level=2).table()) == {"lo": 0, "hi": 1}
    assert rs.roll("c", level=2).outcome == "hi"
