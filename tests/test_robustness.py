"""Untrusted rulesets never crash the engine: whatever an author (or a fuzzer) writes, loading,
rolling and solving either work or raise a `RulecraftError` — never another exception."""

from __future__ import annotations

import random
import re

from _repo import REPO_ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.syntax.positions import SourceFile

SHIPPED = {p.stem: p.read_text() for p in sorted((REPO_ROOT / "rulesets").glob("*.yaml"))}
# Quoted expression strings in the shipped files: the places a fuzzer rewrites.
QUOTED = {name: [m.span(1) for m in re.finditer(r'"([^"\n]{1,80})"', text)] for name, text in SHIPPED.items()}
PIECES = [
    "roll",
    "target",
    "tens",
    "face",
    "dice",
    "level",
    "'botch'",
    "'pass'",
    "'good'",
    "1",
    "0",
    "-3",
    "2.5",
    "+",
    "-",
    "*",
    "/",
    "//",
    "%",
    "==",
    "<=",
    ">",
    "and",
    "or",
    "not",
    "if",
    "else",
    "in",
    "..",
    "(",
    ")",
    "[",
    "]",
    ",",
    "majority(",
    "count(",
    "sum(",
    "best(",
    "shift(",
    "clamp(",
    "rank(",
    "true",
    "x",
]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(st.sampled_from(sorted(SHIPPED)), st.data())
def test_rewritten_expressions_never_crash(name: str, data: st.DataObject) -> None:
    text = SHIPPED[name]
    spans = QUOTED[name]
    start, end = spans[data.draw(st.integers(0, len(spans) - 1))]
    words = data.draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=8))
    broken = text[:start] + " ".join(words) + text[end:]
    try:
        rs = engine.load_source(SourceFile(f"{name}.yaml", broken))
    except engine.RulecraftError as exc:
        assert exc.diagnostics and all(d.code.startswith("RC") for d in exc.diagnostics)
        return
    rng = random.Random(data.draw(st.integers(0, 2**16)))
    for check in list(rs.checks.values())[:2]:
        try:
            rs.roll(check.name, rng)
            rs.distribution(check.name)
        except engine.RulecraftError:
            pass


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(SHIPPED)), st.data())
def test_cut_and_shuffled_lines_never_crash(name: str, data: st.DataObject) -> None:
    lines = SHIPPED[name].splitlines()
    i = data.draw(st.integers(0, len(lines) - 1))
    j = data.draw(st.integers(0, len(lines) - 1))
    action = data.draw(st.sampled_from(["drop", "swap", "dedent", "duplicate"]))
    if action == "drop":
        del lines[i]
    elif action == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    elif action == "dedent":
        lines[i] = lines[i].lstrip()
    else:
        lines.insert(i, lines[j])
    try:
        engine.load_source(SourceFile(f"{name}.yaml", "\n".join(lines)))
    except engine.RulecraftError as exc:
        assert exc.diagnostics
