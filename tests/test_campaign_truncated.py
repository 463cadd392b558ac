"""The state after an action whose roll is an uncapped explosion says how much of it was cut.

`Campaign.distribution` (`campaign prob`) handed back the chances of the roll as the exact
evaluator cut it, a tail of about 1e-16 left out, and nothing said so, where `prob` of the same
check notes it and a scene's odds carry it (`Odds.truncated`, tests/test_scene_truncated.py).
A d6 exploding on 6 read even or odd: the total is 6k + r, so P(even) is exactly 2/5.
"""

from __future__ import annotations

import json
from fractions import Fraction

import engine
from engine.state.memory import MemoryStore
from tests.test_scene_truncated import EXPLODING

CAPPED = EXPLODING.replace("pool: 1\n", "pool: 1\n        cap: 3\n")


def test_the_state_after_a_cut_roll_carries_its_cut() -> None:
    rs = engine.load(EXPLODING)
    cut = rs.distribution("boom").truncated
    assert cut > 0
    c = engine.new_campaign("xp", rs, store=MemoryStore())
    after = c.distribution("go")
    assert after.truncated == cut
    evens = Fraction(
        sum(w for s, w in after.weights.items() if json.loads(s)["shared"]["evens"]), after.total
    )
    assert evens != Fraction(2, 5) and abs(evens - Fraction(2, 5)) <= cut  # exact for the roll as cut
    whole = engine.new_campaign("xp", engine.load(CAPPED), store=MemoryStore())
    assert whole.distribution("go").truncated == 0


def test_campaign_prob_notes_the_cut(tmp_path, cli) -> None:  # type: ignore[no-untyped-def]
    for text, noted in ((EXPLODING, True), (CAPPED, False)):
        f = tmp_path / "xp.yaml"
        f.write_text(text, encoding="utf-8")
        db = str(tmp_path / f"c{noted}.db")
        assert cli("campaign", "--db", db, "new", "xp", str(f)).code == 0
        r = cli("campaign", "--db", db, "prob", "xp", "go")
        assert r.code == 0, r.err
        assert ("note: an uncapped explosion was followed until 2.7e-16" in r.out) is noted
        j = json.loads(cli("campaign", "--db", db, "prob", "xp", "go", "--json").out)
        assert (j["truncated"] == "1/3656158440062976") is noted
        assert noted or j["truncated"] == "0/1"


def test_a_period_of_a_ruleset_with_none_is_told_at_its_state() -> None:
    """Hunt 13g: RC907 "ruleset 'cnt' has no period 'x'" had the empty hint "periods: " and no
    place, where a scene's says "scenes: none"."""
    c = engine.new_campaign("xp", engine.load(EXPLODING), store=MemoryStore())
    try:
        c.begin("night")
    except engine.CampaignError as exc:
        [d] = exc.diagnostics
    assert (d.code, d.hint) == ("RC907", "periods: none")
    assert d.span is not None and d.span.line == EXPLODING.splitlines().index("state:") + 1
