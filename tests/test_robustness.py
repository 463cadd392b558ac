"""Untrusted rulesets never crash the engine: whatever an author (or a fuzzer) writes, loading,
rolling and solving either work or raise a `RulecraftError` — never another exception."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from _repo import REPO_ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.compiler import check_version, compile_document
from engine.syntax.document import Document
from engine.syntax.document import load as load_yaml
from engine.syntax.positions import SourceFile
from engine.syntax.schema import validate

SHIPPED = {p.stem: p.read_text() for p in sorted((REPO_ROOT / "rulesets").glob("*.yaml"))}
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


# The rulesets as loaded once: a rewritten expression goes straight into the loaded document, so
# each example runs the schema check, the compiler, a roll and a distribution on it (the stages
# where an expression can do harm) without parsing the whole YAML file again.
DOCUMENTS = {name: load_yaml(SourceFile(f"{name}.yaml", text)) for name, text in SHIPPED.items()}
EXPRESSION_SECTIONS = ("checks", "tables", "state", "actions", "scenes")
PROSE = ("description", "title", "text", "note", "name", "else", "source")


def _expression_paths(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every string in the sections that hold expressions, but not prose."""
    if isinstance(data, dict):
        return [p for k, v in data.items() if k not in PROSE for p in _expression_paths(v, path + (k,))]
    if isinstance(data, list):
        return [p for i, v in enumerate(data) for p in _expression_paths(v, path + (i,))]
    return [path] if isinstance(data, str) and path and path[0] in EXPRESSION_SECTIONS else []


PATHS = {name: _expression_paths(doc.data) for name, doc in DOCUMENTS.items()}


def _rewritten(name: str, path: tuple[Any, ...], text: str) -> Document:
    doc = DOCUMENTS[name]
    data = copy.deepcopy(doc.data)
    here = data
    for key in path[:-1]:
        here = here[key]
    here[path[-1]] = text
    return Document(doc.source, data, doc.places)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(st.sampled_from(sorted(SHIPPED)), st.data())
def test_rewritten_expressions_never_crash(name: str, data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(PATHS[name]))
    words = data.draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=8))
    doc = _rewritten(name, path, " ".join(words))
    try:
        check_version(doc)
        validate(doc)
        rs = engine.Ruleset(compile_document(doc), doc)
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


def test_every_shipped_ruleset_offers_expressions_to_rewrite() -> None:
    assert all(len(paths) > 20 for paths in PATHS.values())
    assert ("checks", "specific", "let", "roll") in PATHS["chill"]


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


def test_a_value_table_whose_nested_rows_all_fail_is_reported_not_crashed() -> None:
    """Found by the fuzz above: a nested case whose every row fails left an empty `if` in the
    generated code (IndentationError); the rows' own problems are the report."""
    text = """\
rulecraft: 1
name: nested
tables:
  pick:
    params: [level, face]
    cases:
      1: {2: nowhere}
      else: {else: 0}
checks:
  c:
    roll: {d: {die: 6}}
    outcomes: [lo, hi]
    outcome: "'hi' if pick(1, d) > 0 else 'lo'"
"""
    with pytest.raises(engine.CompileError) as caught:
        engine.load_source(SourceFile("nested.yaml", text))
    assert [d.code for d in caught.value.diagnostics] == ["RC301"]


def test_a_pool_of_no_dice_read_whole_has_one_empty_result() -> None:
    """Found by the fuzz suite: a pool of 0 dice whose multiset is read whole (an output of the
    pool itself) made the exact evaluator count its states with math.comb(-1, -1) (ValueError)."""
    text = """\
rulecraft: 1
name: empty
checks:
  c:
    inputs: {n: {type: int, min: 0, max: 3, default: 0}}
    roll: {d: {pool: n, die: 6}}
    outcomes: [lo, hi]
    outcome: "'hi' if count(d) > 1 else 'lo'"
    outputs: {all: d}
"""
    rs = engine.load_source(SourceFile("empty.yaml", text))
    assert dict(rs.distribution("c", n=0).table()) == {"lo": 1, "hi": 0}
    assert rs.roll("c", random.Random(1), n=0).outcome == "lo"


def test_a_table_parameter_given_twice_is_reported_not_crashed() -> None:
    """Found by the fuzz suite (tests/fuzz): `params: [a, a]` made a generated function with two
    arguments of one name (SyntaxError from Python's compiler)."""
    text = """\
rulecraft: 1
name: twice
tables:
  t: {params: [a, a], value: a}
checks:
  c:
    roll: {d: {die: 6}}
    outcomes: [lo, hi]
    outcome: "'hi' if t(d, 1) > 3 else 'lo'"
"""
    with pytest.raises(engine.CompileError) as caught:
        engine.load_source(SourceFile("twice.yaml", text))
    assert [d.code for d in caught.value.diagnostics] == ["RC307"]


def test_an_undeclared_table_result_that_is_not_an_outcome_is_refused_when_it_runs() -> None:
    """Found by the fuzz suite (tests/fuzz): a table without `returns:` may give anything, and the
    compiler lets its call stand where an outcome belongs; a number it gave came back as the
    roll's outcome (`result.outcome == 1`), and the exact distribution's outcomes summed to 0.
    The value is now checked where it is used (RC506)."""
    text = """\
rulecraft: 1
name: anything
tables:
  t: {params: [a], value: a + 1}
checks:
  c:
    roll: {d: {die: 6}}
    outcomes: [lo, hi]
    outcome: t(d)
"""
    rs = engine.load_source(SourceFile("anything.yaml", text))
    for ask in (lambda: rs.roll("c", random.Random(1)), lambda: rs.distribution("c")):
        with pytest.raises(engine.EvalError) as caught:
            ask()
        assert [d.code for d in caught.value.diagnostics] == ["RC506"]
        assert caught.value.diagnostics[0].span is not None and caught.value.diagnostics[0].span.line == 9
