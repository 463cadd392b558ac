"""Fuzzing whole rulesets (issue 11, item 6): rulesets drawn from the project's JSON Schema
(`_fuzzgen.rulesets`, `_fuzzgen.playable_rulesets`), written as YAML text (JSON, which YAML
reads) and held to the law of `_law.py` through the public door, `engine.load(text)`: loading,
linting, rolling and solving end in a result that obeys the laws or in a `RulecraftError`, never
another exception, never a hang.

Drawn from the schema, a ruleset almost never compiles (a name it reads is seldom declared,
types seldom agree): those cases exercise the schema check and the compiler's refusals.
`playable_rulesets` keeps names apart by role and gives typed places typed expressions, so that
a fair share loads and reaches the linter and the evaluators. New cases every run.
"""

from __future__ import annotations

import json

from _fuzzgen import playable_rulesets, rulesets
from _law import load_and_obey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


@SETTINGS
@given(rulesets(), st.integers(0, 2**16))
def test_rulesets_from_the_schema(doc: dict, seed: int) -> None:
    load_and_obey(json.dumps(doc), seed)


@SETTINGS
@given(rulesets(extras=("scales", "tables", "state", "actions", "scenes")), st.integers(0, 2**16))
def test_rulesets_with_state_from_the_schema(doc: dict, seed: int) -> None:
    """With the sections of campaigns too: state, actions and scenes."""
    load_and_obey(json.dumps(doc), seed)


@SETTINGS
@given(playable_rulesets(), st.integers(0, 2**16))
def test_playable_rulesets(doc: dict, seed: int) -> None:
    load_and_obey(json.dumps(doc), seed)


def test_a_fair_share_of_playable_rulesets_loads() -> None:
    """The tests above pass on a refusal as on a result: were the generator to make nothing that
    loads, they would stay green having reached neither the linter nor the evaluators. So here
    the share that loads is counted (about a quarter of them when this was written)."""
    ends: list[str] = []

    @settings(SETTINGS, max_examples=60, database=None)
    @given(playable_rulesets(), st.integers(0, 2**16))
    def run(doc: dict, seed: int) -> None:
        ends.append(load_and_obey(json.dumps(doc), seed)[0])

    run()
    assert len(ends) >= 60 and ends.count("loaded") >= len(ends) // 10, ends


@SETTINGS
@given(playable_rulesets(), st.integers(0, 2**16))
def test_playable_rulesets_as_block_yaml(doc: dict, seed: int) -> None:
    """The same, written in YAML's block style (one key a line) rather than as JSON."""
    load_and_obey(_block(doc), seed)


def _block(value: object, indent: str = "") -> str:
    """`value` in YAML block style, each string quoted as JSON (which YAML reads)."""
    if isinstance(value, dict):
        if not value:
            return "{}"
        return "".join(f"\n{indent}{json.dumps(k)}:" + _inline(v, indent + "  ") for k, v in value.items())
    if isinstance(value, list):
        if not value:
            return "[]"
        return "".join(f"\n{indent}-" + _inline(v, indent + "  ") for v in value)
    return json.dumps(value)


def _inline(value: object, indent: str) -> str:
    text = _block(value, indent)
    return text if text.startswith("\n") else " " + text
