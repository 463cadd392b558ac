"""The sampler's quick path through a reroll procedure decides as the counted rules do.

A sampled roll under a rule or a fixed policy works a step out on the real dice
(`Procedure.pending_among`, `Procedure.take`), without making the counted state the exact
solver uses. For generated pools, triggers and dice, it must give what `pending`, `grant`,
`options`, `eligible` and `pick` give on `state_of` — the same grant, the same dice in the same
order (so a seeded roll draws the same faces for the same dice), the same "no die to hit".
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.runtime.procedure import Procedure

FACES = list(range(1, 7))


def _faces_text(faces: list[int]) -> str:
    return "[" + ", ".join(map(str, sorted(faces))) + "]"


@st.composite
def pools(draw: st.DrawFn) -> tuple[str, int]:
    """A pool of d6 with one to three triggers of every form, as YAML, and its size."""
    n = draw(st.integers(1, 6))
    triggers = []
    adds = False
    for i in range(draw(st.integers(1, 3))):
        on = draw(st.lists(st.sampled_from(FACES), min_size=1, max_size=3, unique=True))
        action = draw(st.sampled_from(["reroll", "add"]))
        adds |= action == "add"
        must = draw(st.booleans())
        parts = [f"name: t{i}", f"on: 'face in {_faces_text(on)}'", f"{'must' if must else 'may'}: {action}"]
        if action == "reroll" and draw(st.booleans()):
            target = draw(st.lists(st.sampled_from(FACES), min_size=1, max_size=4, unique=True))
            parts.append(f"target: 'face in {_faces_text(target)}'")
        parts.append(f"per_die: {draw(st.integers(1, 2))}")
        parts.append(f"repeat: {str(draw(st.booleans())).lower()}")
        parts.append(f"pick: {draw(st.sampled_from(['lowest', 'highest']))}")
        if draw(st.booleans()):  # the whole grant or none (a no-op on a `must`, which takes it whole)
            parts.append(f"take: {draw(st.sampled_from(['any', 'all']))}")
        if draw(st.integers(0, 3)) == 0:  # only the first roll's dice set it off
            parts.append("first_roll_only: true")
        triggers.append("          - {" + ", ".join(parts) + "}")
    # steps that take only the first roll's dice go first, as they must where they share faces
    # with another step (RC327); among themselves and the rest, in the order drawn
    triggers.sort(key=lambda line: "first_roll_only" not in line)
    cap = draw(st.integers(0, 4)) if adds or draw(st.booleans()) else None
    each = draw(st.sampled_from([None, "'hi' if face >= 4 else 'lo'", "face // 2"]))
    lines = [
        "rulecraft: 1",
        "name: quick",
        "scales:",
        "  mark: [lo, hi]",
        "checks:",
        "  c:",
        "    roll:",
        "      p:",
        f"        pool: {n}",
        "        die: 6",
    ]
    if each is not None:
        lines.append(f'        each: "{each}"')
    if cap is not None:
        lines.append(f"        cap: {cap}")
    lines += [
        "        triggers:",
        *triggers,
        "    outcomes: [a, b]",
        "    outcome: \"'a' if count(p) > 3 else 'b'\"",
    ]
    return "\n".join(lines) + "\n", n


@settings(max_examples=120, deadline=None)
@given(pools(), st.integers(0, 2**32 - 1))
def test_the_quick_path_takes_what_the_counted_rules_take(spec: tuple[str, int], seed: int) -> None:
    text, n = spec
    rs = engine.load(text)
    pool = rs.model.checks["c"].roll[0]
    proc = Procedure(pool, {})
    rng = random.Random(seed)
    for _ in range(20):
        faces = [rng.choice(FACES) for _ in range(n + rng.randrange(3))]
        # each die holds some of the steps its face sets off, as it may part-way through a roll
        unused = [proc.holds(f) & rng.randrange(8) for f in faces]
        used = rng.randrange((pool.cap or 3) + 1)
        state = proc.state_of(faces, unused, used)
        t = proc.pending_among(unused, used)
        assert t == proc.pending(state)
        if t is None:
            continue
        step = proc.steps[t]
        for policy in ("always", "never"):
            remove, count = proc.options(state, t, "always" if step.must else policy)[0]
            nothing = step.action != "add" and not any(proc.eligible(state, t))
            bit = 1 << t
            triggering = [d for d, u in enumerate(unused) if u & bit]
            after = [u & ~bit for u in unused]
            expected = (
                proc.pick(faces, after, remove, triggering if step.self_target else None)
                if count and step.action != "add"
                else []
            )
            got = proc.take(faces, after, t, triggering, used, policy)
            assert got == (proc.grant(state, t), expected, count, nothing), (
                text,
                faces,
                unused,
                used,
                policy,
            )
