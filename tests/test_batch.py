"""Many rolls at once (`Ruleset.sample`, `roll --times`): drawn from the exact distribution or
rolled one by one, the counts agree with the exact distribution in a chi-square test at
α = 1e-6 — and that test rejects a batch drawn from a slightly wrong distribution."""

from __future__ import annotations

import pickle
import random
import re
import sys
from fractions import Fraction

import pytest
from _stats import chi_square_p

import engine
from engine import Limits
from engine.syntax.positions import SourceFile

ALPHA = 1e-6


def seen(counts: dict[object, int]) -> dict[object, int]:
    """The counts without the outcomes no roll gave (a batch lists every declared outcome)."""
    return {k: n for k, n in counts.items() if n}


def exact_outcomes(rs: engine.Ruleset, check: str, **inputs: object) -> dict[str, Fraction]:
    return {s.name: p for s, p in rs.distribution(check, **inputs).table()}


@pytest.mark.parametrize("target", [1, 55, 100, 105])
def test_a_million_chill_rolls_drawn_from_the_exact_distribution(shipped, target):
    rs = shipped["chill"]
    batch = rs.sample("specific", 1_000_000, random.Random(target), target=target)
    assert batch.method == "exact" and batch.times == 1_000_000
    assert sum(batch.outcomes.values()) == 1_000_000
    assert list(batch.outcomes) == [s.name for s in rs.check("specific").outcomes.members]
    expected = exact_outcomes(rs, "specific", target=target)
    assert chi_square_p(seen(batch.outcomes), expected) > ALPHA
    roll = rs.distribution("specific", target=target).value("roll")
    assert chi_square_p(batch.values["roll"], roll.fractions()) > ALPHA


def test_the_chi_square_test_rejects_a_slightly_wrong_law(shipped):
    """Chill against 55 with a 1% point moved from failure to low success: a million rolls see it."""
    rs = shipped["chill"]
    batch = rs.sample("specific", 1_000_000, random.Random(5), target=55)
    wrong = exact_outcomes(rs, "specific", target=55)
    wrong["failure"] -= Fraction(1, 100)
    wrong["low_success"] += Fraction(1, 100)
    assert chi_square_p(seen(batch.outcomes), wrong) <= ALPHA


@pytest.mark.parametrize(
    "ruleset,check,inputs",
    [
        ("chill", "specific", {"target": 55}),
        ("chimera", "skill", {"dice": 4, "resolve": 1, "policy": "optimal"}),
        ("castle", "combat", {"skill": "advantaged", "foe_skill": "average"}),
    ],
)
def test_rolled_one_by_one_agrees_with_the_exact_distribution(shipped, ruleset, check, inputs):
    """The independent way: the sampler itself, roll by roll (triggers and `optimal` included)."""
    rs = shipped[ruleset]
    policy = inputs.pop("policy", "always")
    batch = rs.sample(check, 6000, random.Random(11), method="rolled", policy=policy, **inputs)
    assert batch.method == "rolled" and sum(batch.outcomes.values()) == 6000
    expected = {s.name: p for s, p in rs.distribution(check, policy=policy, **inputs).table()}
    assert chi_square_p(seen(batch.outcomes), expected) > ALPHA


def test_without_numpy_the_draw_is_made_in_python(shipped, monkeypatch):
    monkeypatch.setitem(sys.modules, "numpy", None)  # `import numpy` now fails, as without it
    rs = shipped["chill"]
    batch = rs.sample("specific", 200_000, random.Random(3), target=55)
    assert batch.method == "exact"
    assert chi_square_p(seen(batch.outcomes), exact_outcomes(rs, "specific", target=55)) > ALPHA


def test_a_seed_gives_the_same_batch(shipped):
    rs = shipped["chill"]
    for method in ("exact", "rolled"):
        one = rs.sample("specific", 500, random.Random(9), method=method, target=40)
        two = rs.sample("specific", 500, random.Random(9), method=method, target=40)
        assert one == two


def test_auto_rolls_when_the_exact_distribution_does_not_fit_the_budget():
    rs = engine.load("chimera")
    batch = rs.sample("skill", 20, random.Random(1), dice=10, resolve=10)
    assert batch.method == "rolled" and sum(batch.outcomes.values()) == 20
    with pytest.raises(engine.LimitError) as caught:
        rs.sample("skill", 20, random.Random(1), method="exact", dice=10, resolve=10)
    assert caught.value.diagnostics[0].code == "RC503"


@pytest.mark.parametrize("times", [0, -3, True, 2.5, "10"])
def test_the_number_of_rolls_must_be_a_whole_number(shipped, times):
    with pytest.raises(engine.InputError) as caught:
        shipped["chill"].sample("specific", times, target=55)
    assert caught.value.diagnostics[0].code == "RC404"


def test_the_limits_bound_the_number_of_rolls():
    rs = engine.load("chill", limits=Limits(max_samples=1000))
    with pytest.raises(engine.LimitError) as caught:
        rs.sample("specific", 1001, target=55)
    assert "over the limit of 1000" in str(caught.value)


def test_an_unknown_method_is_named(shipped):
    with pytest.raises(engine.InputError) as caught:
        shipped["chill"].sample("specific", 10, method="exakt", target=55)
    assert "exact" in (caught.value.diagnostics[0].hint or "")


def test_the_command_line_rolls_many(cli):
    r = cli("roll", "chill", "specific", "-i", "target=55", "--times", "100000", "--seed", "1")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0] == "chill · Specific check  (100000 rolls, drawn from the exact distribution; seed 1)"
    assert any(line.lstrip().startswith("failure") and "±" in line for line in lines)
    j = cli("roll", "chill", "specific", "-i", "target=55", "--times", "1000", "--json", "--method", "rolled")
    assert j.code == 0 and '"method": "rolled"' in j.out
    for times in ("0", "-3", "00", "-0"):  # the value as given (RC404 at the check's line: hunt 13zk)
        bad = cli("roll", "chill", "specific", "-i", "target=55", "--times", times)
        assert bad.code == 1 and bad.err == f"error RC407: --times: expected at least 1, got {times}\n"
    bad = cli("scene", "roll", "chimera", "learning", "--times", "0")
    assert bad.code == 1 and bad.err == "error RC407: --times: expected at least 1, got 0\n"


@pytest.mark.parametrize("ruleset", ["chill", "chimera", "castle", "chthonian"])
def test_both_methods_count_the_same_values(shipped, ruleset):
    """Drawn or rolled, a batch counts the values the exact distribution holds (rolled batches
    once also counted the values known before the roll, found by an audit; those are now
    counted by every way, all the rolls on the one value the inputs fix, as a roll reports them)."""
    rs = shipped[ruleset]
    for name, check in rs.checks.items():
        inputs = {"target": 55} if ruleset == "chill" else {}
        drawn = rs.sample(name, 200, random.Random(3), method="exact", **inputs)
        rolled = rs.sample(name, 200, random.Random(3), method="rolled", **inputs)
        dist = rs.distribution(name, **inputs)
        assert set(drawn.values) == set(rolled.values) == set(dist.values), name
        before = {let.name for let in check.lets if let.before_roll} & set(dist.values)
        for value in before:
            (fixed,) = dist.value(value).weights
            assert drawn.values[value] == rolled.values[value] == {fixed: 200}, (name, value)


LADDER = """\
rulecraft: 1
name: ladder_demo
checks:
  ladder:
    inputs:
      advantage: {type: int, min: 0, max: 5, default: 0}
    let:
      level: clamp(advantage, 0, 2)
    auto:
      - when: level == 2
        then: pass
    roll:
      d: {die: 6}
    outcomes: [fail, pass]
    outcome: "'pass' if d + level >= 4 else 'fail'"
    outputs:
      margin: d + level
"""


@pytest.mark.parametrize("advantage", [0, 1, 2])
def test_a_value_known_before_the_roll_is_reported_by_every_way_auto_rule_or_not(advantage):
    """`level` needs no die: a roll reports it, and so do the exact distribution and a batch,
    drawn or rolled, whether or not the auto rule decides (at advantage 2). They reported it
    only when the auto rule decided (the distribution, a drawn batch) or never (a rolled one)."""
    rs = engine.load_source(SourceFile("ladder.yaml", LADDER))
    level = min(advantage, 2)
    assert rs.roll("ladder", random.Random(1), advantage=advantage).values["level"] == level
    dist = rs.distribution("ladder", advantage=advantage)
    assert dist.value("level").fractions() == {level: 1} and dist.mean("level") == level
    assert list(dist.values)[0] == "level"
    assert ("margin" in dist.values) is (advantage < 2)  # after the roll: absent when decided before it
    assert pickle.loads(pickle.dumps(dist)) == dist  # a worker's distribution reaches its parent whole
    assert pickle.loads(pickle.dumps(dist)).value("level").fractions() == {level: 1}
    for method in ("exact", "rolled"):
        batch = rs.sample("ladder", 30, random.Random(1), method=method, advantage=advantage)
        assert list(batch.values) == list(dist.values), method
        assert batch.values["level"] == {level: 30} and batch.mean("level") == level, method
        assert batch.as_json()["values"]["level"] == [[level, 30]], method


BIG_BAG = """\
rulecraft: 1
name: bigbag
bags: {huge: {chits: {black: 50000, white: 50000}}}
checks:
  grab:
    roll: {c: {draw: huge, count: 100}}
    let: {w: "count(c, 'white')"}
    outcomes: [few, many]
    outcome: "'many' if w > 50 else 'few'"
"""


def test_without_numpy_a_joint_of_huge_total_weight_is_drawn_exactly(monkeypatch):
    """100 chits drawn from 100,000 weigh a joint whose total is a 1,137-bit whole number: more
    than a float holds. The draw is made on the whole numbers, so it neither overflows nor rounds."""
    monkeypatch.setitem(sys.modules, "numpy", None)
    rs = engine.load_source(SourceFile("bigbag.yaml", BIG_BAG))
    assert rs.distribution("grab").joint.total.bit_length() > 1024
    batch = rs.sample("grab", 10_000, random.Random(1))
    assert batch.method == "exact" and sum(batch.outcomes.values()) == 10_000
    assert chi_square_p(seen(batch.outcomes), exact_outcomes(rs, "grab")) > ALPHA


def test_without_numpy_a_draw_over_the_work_budget_is_placed_at_the_check(monkeypatch):
    """Without numpy each of the draws is made in Python and charged; the budget it spends is
    reported at the check, like a budget spent by the exact solve."""
    monkeypatch.setitem(sys.modules, "numpy", None)
    rs = engine.load("chill", limits=Limits(max_work=100_000))
    rs.distribution("specific", target=55)  # cached: only the draw is charged below
    with pytest.raises(engine.LimitError) as caught:
        rs.sample("specific", 1_000_000, random.Random(1), target=55)
    found = caught.value.diagnostics[0]
    assert found.code == "RC503" and found.span is not None
    assert found.span == rs.check("specific").span
    # numpy is a dependency: where it could not be imported the way on says so, not "an extra"
    assert "install numpy (a dependency of rulecraft that could not be imported here)" in (found.hint or "")


def test_the_deadline_runs_from_the_start_of_the_request(monkeypatch):
    """`auto` first tries the exact distribution; when that spends the deadline, the rolls that
    follow have no time left: no roll is made, and the deadline error is placed at the check.
    The exact attempt is a real one: 20 dice under `optimal` take seconds, far past 0.3 s (the
    rolls had been given a new window of the whole deadline, and about 2x it was spent). The
    rolls that price a roll before the attempt (`batch._reserve`) use a random source of their
    own: only the rolls of the batch, with the caller's, are counted."""
    from engine.eval import batch as batch_module

    rs = engine.load("chimera", limits=Limits(deadline=0.3, max_work=10**12))
    rolled = []
    real = batch_module.sample
    given = random.Random(1)

    def counted(check, inputs, ctx, *args, **kwargs):  # the real sampler, the batch's rolls counted
        if ctx.rng is given:
            rolled.append(1)
        return real(check, inputs, ctx, *args, **kwargs)

    monkeypatch.setattr(batch_module, "sample", counted)
    with pytest.raises(engine.DeadlineError) as caught:
        rs.sample("skill", 1_000_000, given, policy="optimal", dice=10, resolve=10)
    assert not rolled
    assert caught.value.diagnostics[0].span == rs.check("skill").span


def test_a_deadline_hit_while_rolling_is_placed_at_the_check():
    rs = engine.load("chimera", limits=Limits(deadline=0.2))
    with pytest.raises(engine.DeadlineError) as caught:
        rs.sample("skill", 1_000_000, random.Random(1), method="rolled", dice=6)
    assert caught.value.diagnostics[0].code == "RC503"
    assert caught.value.diagnostics[0].span == rs.check("skill").span


def test_a_misspelt_outcome_or_value_is_named_as_distribution_names_it(shipped):
    """`share`, `standard_error` and `mean` refuse a name the check has no outcome or value of
    with `Distribution`'s RC402 and its did-you-mean, rather than 0.0 or a bare KeyError."""
    rs = shipped["chill"]
    batch = rs.sample("specific", 1000, random.Random(1), target=55)
    dist = rs.distribution("specific", target=55)
    for asked, exact in [
        (lambda: batch.share("botchh"), lambda: dist.probability("botchh")),
        (lambda: batch.standard_error("botchh"), lambda: dist.probability("botchh")),
        (lambda: batch.mean("rol"), lambda: dist.mean("rol")),
    ]:
        with pytest.raises(engine.InputError) as caught:
            asked()
        with pytest.raises(engine.InputError) as expected:
            exact()
        assert caught.value.diagnostics == expected.value.diagnostics
        assert caught.value.diagnostics[0].code == "RC402" and "did you mean" in str(caught.value)
    assert batch.share(rs.check("specific").outcomes["botch"]) == batch.share("botch")


def test_the_mean_of_a_scale_value_is_refused_as_distribution_refuses_it(shipped):
    rs = shipped["castle"]
    inputs = {"skill": "advantaged", "foe_skill": "average"}
    batch = rs.sample("combat", 100, random.Random(1), **inputs)
    with pytest.raises(TypeError) as caught:
        batch.mean("mine")
    with pytest.raises(TypeError) as expected:
        rs.distribution("combat", **inputs).mean("mine")
    assert str(caught.value) == str(expected.value)


def test_rolls_made_one_by_one_share_the_request_s_work_budget():
    """`max_work` bounds the whole batch of rolls, not each roll: 1,000 rolls of a check whose
    rolls are plain dice are each charged 8 units (`dicework.ROLL`, and its two dice, each read a
    few times: `batch.die_weights`), so a budget of 500 units refuses them, at the check; a
    budget of 10,000 lets them through."""
    check = "specific"
    tight = engine.load("chill", limits=Limits(max_work=500))
    with pytest.raises(engine.LimitError) as caught:
        tight.sample(check, 1000, random.Random(1), method="rolled", target=55)
    found = caught.value.diagnostics[0]
    assert found.code == "RC503" and "work budget" in found.message
    assert found.span == tight.check(check).span
    enough = engine.load("chill", limits=Limits(max_work=10_000))
    assert enough.sample(check, 1000, random.Random(1), method="rolled", target=55).times == 1000


def test_a_costly_check_rolled_one_by_one_is_bounded_by_the_budget():
    """Chimera's skill check at 6 dice charges about 40 units a roll: under a budget of 200,000
    units a batch of 10,000 rolls one by one is refused (each roll alone fits; each roll had a
    budget of its own before, so only `max_samples` and a deadline bounded the batch)."""
    rs = engine.load("chimera", limits=Limits(max_work=200_000))
    rs.roll("skill", random.Random(1), dice=6)  # one roll fits
    with pytest.raises(engine.LimitError) as caught:
        rs.sample("skill", 10_000, random.Random(1), method="rolled", dice=6)
    said = caught.value.diagnostics[0]
    assert "work budget" in said.message
    # how far it got, and that fewer at once is the way on (it said to ask for fewer dice)
    assert re.search(r"after [\d,]+ of the 10,000 rolls of check 'skill' asked for at once", said.message)
    assert (said.hint or "").startswith("ask for fewer at once"), said.hint


HEAP = """\
rulecraft: 1
name: heap
checks:
  heap:
    inputs:
      n: {type: int, min: 0, max: 100, default: 3}
    roll:
      p: {pool: n, die: 2, triggers: [{on: face == 2, must: add}]}
    outcomes: [low, high]
    outcome: "'high' if sum(p) > 3.5 * n else 'low'"
"""


def test_many_rolls_past_another_limit_are_told_that_limit() -> None:
    """Rolls asked for at once that pass a limit other than the request's budget or deadline
    (here a pool's `max_rerolls`) are told that limit, at the pool: a rolled batch had said its
    work budget of 100,000,000 units was used up after a few hundred units."""
    rs = engine.load(HEAP, name="heap.yaml", limits=Limits(max_rerolls=6, max_work=100_000_000))
    with pytest.raises(engine.LimitError) as caught:
        rs.sample("heap", 1000, random.Random(1), method="rolled")
    said = caught.value.diagnostics[0]
    assert said.message == "the reroll procedure went past 6 dice", said.message
    assert said.span is not None and said.span.line == 8


def test_many_rolls_past_the_deadline_say_how_far_they_got() -> None:
    """Rolls one by one past the request's deadline: after how many of those asked for, and no
    units (a deadline is time), a `DeadlineError` still."""
    rs = engine.load("chill", limits=Limits(deadline=0.05, max_work=10**12))
    with pytest.raises(engine.DeadlineError) as caught:
        rs.sample("specific", 10_000_000, random.Random(1), method="rolled", target=55)
    said = caught.value.diagnostics[0]
    assert re.fullmatch(
        r"the deadline of 0\.05 s passed after [\d,]+ of the 10,000,000 rolls"
        r" of check 'specific' asked for at once",
        said.message,
    ), said.message
    assert said.span is not None  # at the check


def test_a_budget_of_one_unit_is_said_in_the_singular() -> None:
    rs = engine.load("chill", limits=Limits(max_work=1))
    with pytest.raises(engine.LimitError) as caught:
        rs.sample("specific", 100, random.Random(1), method="rolled", target=55)
    assert caught.value.diagnostics[0].message.startswith("the work budget of 1 unit was used up")


def test_without_numpy_the_draw_reads_the_clock_as_it_goes(monkeypatch):
    """The pure-Python draw is charged a chunk at a time, so a deadline that passes while it
    draws stops it (it was charged once, before the first draw, and then drew every roll: 10
    million past a 1 s deadline took 8 s). A clock that jumps past the deadline at its fourth
    reading stands for the time passing; the error says how many rolls were drawn."""
    from engine.runtime import work as work_module

    monkeypatch.setitem(sys.modules, "numpy", None)
    rs = engine.load("chill", limits=Limits(max_work=10**9, deadline=1.0))
    rs.distribution("specific", target=55)  # cached: the request below only draws
    readings = []

    def clock() -> float:
        readings.append(None)
        return 0.0 if len(readings) <= 3 else 100.0

    monkeypatch.setattr(work_module, "time", type("Clock", (), {"monotonic": staticmethod(clock)}))
    with pytest.raises(engine.DeadlineError) as caught:
        rs.sample("specific", 1_000_000, random.Random(1), method="exact", target=55)
    found = caught.value.diagnostics[0]
    assert found.code == "RC503" and found.span == rs.check("specific").span
    done = re.search(r"the deadline of 1 s passed after ([\d,]+) of the 1,000,000 rolls", found.message)
    assert done is not None and 0 < int(done.group(1).replace(",", "")) < 1_000_000, found.message


def test_without_numpy_more_rolls_than_the_budget_draws_are_refused_with_the_ways_on(monkeypatch):
    """A distribution that fits, asked for more rolls than the budget left draws in Python (half
    a unit each), is refused before any is drawn, saying how many it draws and to ask for fewer
    at once or have numpy: not the advice for a check too big to solve ("fewer dice, a smaller
    input, a 'cap'"), which fits here."""
    monkeypatch.setitem(sys.modules, "numpy", None)
    rs = engine.load("chill", limits=Limits(max_work=100_000))
    rs.distribution("specific", target=55)
    rs.sample("specific", 150_000, random.Random(1), target=55)  # within the budget: drawn
    with pytest.raises(engine.LimitError) as caught:
        rs.sample("specific", 250_000, random.Random(1), target=55)
    found = caught.value.diagnostics[0]
    assert found.code == "RC503" and found.span == rs.check("specific").span
    left = re.search(
        r"the ([\d,]+) units left after the exact distribution draw at most ([\d,]+)", found.message
    )
    assert left is not None, found.message
    assert 150_000 <= int(left.group(2).replace(",", "")) < 250_000
    assert "250,000 rolls of check 'specific'" in found.message
    assert found.hint is not None and "fewer at once" in found.hint and "numpy" in found.hint
    assert "fewer dice" not in found.hint and "max_work" in found.hint


def test_a_deadline_passed_by_the_rolls_after_an_exact_try_is_told_in_seconds(monkeypatch):
    """Under `auto`, the rolls after an exact try that did not fit have a budget of their own
    under the request's deadline; a deadline they pass is told as given ("the deadline of 2 s"),
    not "of its time". A clock that jumps past the deadline at its 21st reading stands for the
    time passing (each roll reads it)."""
    from engine.runtime import work as work_module

    rs = engine.load("chimera", limits=Limits(max_work=5_000, deadline=2.0))
    readings = []

    def clock() -> float:
        readings.append(None)
        return 0.0 if len(readings) <= 20 else 100.0

    monkeypatch.setattr(work_module, "time", type("Clock", (), {"monotonic": staticmethod(clock)}))
    with pytest.raises(engine.DeadlineError) as caught:
        rs.sample("skill", 1_000, random.Random(1), dice=6)
    found = caught.value.diagnostics[0]
    assert found.code == "RC503" and found.span == rs.check("skill").span
    assert re.search(r"the deadline of 2 s passed after [\d,]+ of the 1,000 rolls", found.message), (
        found.message
    )
