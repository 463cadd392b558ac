"""The published JSON Schema means the same to every validator: Draft 2020-12's keywords only
(Ajv's default strict mode refused the engine's own `errorMessage`), patterns of ASCII digits
(Python's `\\d` takes Arabic-Indic digits, ECMA-262's does not), names as text; and an example's
expected probability is told at the value, whatever is wrong with it (`2`, `"-0.5"`, `{at_most: 2}`
were the forms jsonschema listed), with "1.0" read as 1 wherever "0.5" is read."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import engine
from engine.errors import RulecraftError
from engine.syntax import schema as schema_module
from engine.syntax.positions import SourceFile
from engine.tools.examples import run_examples

REPO = Path(__file__).resolve().parent.parent
SCHEMA_FILE = REPO / "schemas" / "ruleset.schema.json"

# Draft 2020-12's vocabularies: core, applicator, unevaluated, validation, meta-data,
# format-annotation, content (https://json-schema.org/draft/2020-12/json-schema-core and -validation).
STANDARD = frozenset(
    {
        *("$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary"),
        *("$comment", "$defs"),
        *("prefixItems", "items", "contains", "additionalProperties", "properties"),
        *("patternProperties", "dependentSchemas", "propertyNames", "if", "then", "else"),
        *("allOf", "anyOf", "oneOf", "not", "unevaluatedItems", "unevaluatedProperties"),
        *("type", "const", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum"),
        *("exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems"),
        *("uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties"),
        *("required", "dependentRequired"),
        *("title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples"),
        *("format", "contentEncoding", "contentMediaType", "contentSchema"),
    }
)
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "dependentSchemas")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_ONE = ("items", "contains", "additionalProperties", "propertyNames", "if", "then", "else", "not")
_SCHEMA_ONE_MORE = ("unevaluatedItems", "unevaluatedProperties", "contentSchema")


def subschemas(node: Any, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every subschema (as a mapping) and its JSON pointer: the values of the keywords that hold
    schemas, not of those that hold data (`examples`, `enum`, `const`, `default`)."""
    if not isinstance(node, dict):
        return
    yield pointer, node
    for key, value in node.items():
        at = f"{pointer}/{key}"
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            for name, sub in value.items():
                yield from subschemas(sub, f"{at}/{name.replace('~', '~0').replace('/', '~1')}")
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            for index, sub in enumerate(value):
                yield from subschemas(sub, f"{at}/{index}")
        elif key in _SCHEMA_ONE + _SCHEMA_ONE_MORE:
            yield from subschemas(value, at)


def published() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return loaded


def test_the_published_schema_holds_only_draft_2020_12_keywords() -> None:
    unknown = sorted(
        f"{pointer or '/'}: {key}"
        for pointer, node in subschemas(published())
        for key in node
        if key not in STANDARD
    )
    assert not unknown, unknown
    # the walk reaches every corner: every pattern the file holds
    walked = sum("pattern" in node for _, node in subschemas(published()))
    assert walked == SCHEMA_FILE.read_text(encoding="utf-8").count('"pattern":') > 40


def test_the_engines_own_messages_name_subschemas_that_are_there() -> None:
    """The words that lived in the schema as `errorMessage` live in the engine, by pointer: a
    pointer the schema no longer has (a subschema moved or renamed) is found here, not by an
    author who gets jsonschema's text instead."""
    pointers = dict(subschemas(published()))
    assert len(schema_module.MESSAGES) == 14
    for pointer in schema_module.MESSAGES:
        assert pointer in pointers, pointer
        assert schema_module.resolve(pointer) is not None


WORDED = [  # an example's expectation each of whose mistakes the engine words itself
    "{mean: {}}",
    "{}",
    "{probability: {}}",
    "{values: {}}",
    "{probability: {heads: {}}}",
    '{probability: {heads: "x"}}',
    "{probability: {heads: 2}}",
    '{probability: {heads: {at_most: "x"}}}',
    '{mean: {d: "x1"}}',
]


def _errors(validator: Any, text: str) -> Iterator[Any]:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        data = YAML(typ="safe", pure=True).load(text)
    except YAMLError:  # a broken ruleset that is no YAML, or not YAML 1.2's
        return
    stack = list(validator.iter_errors(data))
    while stack:
        error = stack.pop()
        yield error
        stack += error.context or ()


def test_each_errors_pointer_is_the_subschema_it_failed() -> None:
    """The engine finds a failed subschema's pointer from the error's schema path (`pointer_of`,
    following the `$ref`s jsonschema leaves out of it): it is the very subschema the error holds,
    for every error of every broken ruleset and of every worded mistake."""
    broken = sorted((REPO / "tests" / "broken").glob("*.yaml"))
    texts = [p.read_bytes().decode("utf-8", "replace") for p in broken]
    texts += [BASE.replace("{probability: {heads: P}}", w) for w in WORDED]
    seen: set[str] = set()
    for text in texts:
        for error in _errors(schema_module._validator(), text):
            pointer = schema_module.pointer_of(tuple(error.absolute_schema_path))
            assert pointer is not None and schema_module.resolve(pointer) is error.schema, (
                list(error.absolute_schema_path),
                pointer,
            )
            seen.add(pointer)
    worded = {*schema_module.MESSAGES, *schema_module.NUMBER_TEXT, "/$defs/probability"}
    assert len(worded & seen) >= 6, worded & seen


def test_a_validator_made_from_a_copy_of_the_schema_words_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """`MESSAGES` was found by the identity of the schema's subschemas (`id(error.schema)`): a
    validator made from a copy of the schema lost the engine's words ("[] should be non-empty"
    for "name at least one value or output"). Found by pointer, they are the same."""
    import copy

    from jsonschema import validators

    def told(text: str) -> list[str]:
        with pytest.raises(RulecraftError) as info:
            engine.load_source(SourceFile("bad.yaml", text))
        return [d.render() for d in info.value.diagnostics]

    texts = [BASE.replace("{probability: {heads: P}}", w) for w in WORDED]
    shipped = [told(t) for t in texts]
    made = validators.extend(  # type: ignore[no-untyped-call]
        Draft202012Validator,
        {"pattern": schema_module._pattern, "properties": schema_module._properties},
    )(copy.deepcopy(schema_module.schema()))
    monkeypatch.setattr(schema_module, "_validator", lambda: made)
    assert [told(t) for t in texts] == shipped
    assert any(schema_module.MESSAGES[p] in " ".join(shipped[0]) for p in schema_module.MESSAGES)


def test_names_are_text_and_patterns_ascii_digits() -> None:
    """A JSON key is text: `boolean` in a `propertyNames` type means nothing to a JSON validator,
    and Ajv's strict mode warns of it. `\\d` is [0-9] to ECMA-262 and any Unicode digit to Python."""
    for pointer, node in subschemas(published()):
        names = node.get("propertyNames")
        if isinstance(names, dict):
            assert names.get("type") == "string", pointer
        assert "\\d" not in str(node.get("pattern", "")), pointer
    probability = published()["$defs"]["probability"]
    for text in ("\u0661/\u0662", "\u0660.\u0665", "\uff11"):  # Arabic-Indic 1/2, 0.5; fullwidth 1
        assert not Draft202012Validator(probability).is_valid(text), text
    assert Draft202012Validator(probability).is_valid("1/2")


BASE = """\
rulecraft: 1
name: coin
checks:
  flip:
    roll:
      d: {die: 2}
    outcomes: [tails, heads]
    outcome:
      - when: d == 2
        then: heads
      - else: tails
    examples:
      - expect: {probability: {heads: P}}
"""


def failing(probability: str) -> engine.Diagnostic:
    """The one diagnostic of loading the example's expected probability written as `probability`."""
    text = BASE.replace("P", probability)
    with pytest.raises(RulecraftError) as info:
        engine.load_source(SourceFile("bad.yaml", text))
    assert len(info.value.diagnostics) == 1, str(info.value)
    d = info.value.diagnostics[0]
    assert d.span is not None and "Traceback" not in str(info.value)
    return d


@pytest.mark.parametrize(
    "written",
    ['"1.0"', '"1.00"', '" 1.0 "', "1.0", "1", '{at_least: "1.0"}', '{at_least: "0.50", at_most: "1.00"}'],
)
def test_one_as_a_decimal_in_text_is_a_probability(written: str) -> None:
    """ "1.0" was RC104 "is not a number" (the pattern took 0.5 and .5, not 1.0); it is 1, as the
    number 1.0 is: it holds of a check that always gives heads, and not of a coin."""
    always = BASE.replace("P", written).replace("when: d == 2", "when: d >= 1")
    assert all(r.passed for r in run_examples(engine.load_source(SourceFile("ok.yaml", always))))
    assert Draft202012Validator(published()).is_valid(yaml_1_2(always))
    coin = engine.load_source(SourceFile("coin.yaml", BASE.replace("P", written)))
    wrong = [] if "0.50" in written else ["RC701"]  # 1/2 is at least 0.50: the bounds hold of a coin
    assert [d.code for r in run_examples(coin) for d in r.problems] == wrong


@pytest.mark.parametrize(
    ("written", "half"),
    [('"1."', False), ('" 1. "', False), ("1.", False), ('{at_least: "1."}', False), ('"0."', False)]
    + [('".5"', True), (".5", True), ('"0.5"', True), ('{at_least: "0.", at_most: "1."}', True)],
)
def test_a_decimal_with_no_digits_on_one_side_of_its_point_is_a_probability(written: str, half: bool) -> None:
    """ "1." and "0." were RC104 "is not a number" where `1.` and `.5` (YAML 1.2 floats, as Python
    reads them) and ".5" were read: the pattern wanted a digit after the point. Text reads as the
    number does: a coin's heads hold at 1/2 and not at 1 or 0, where they are read as numbers."""
    coin = engine.load_source(SourceFile("coin.yaml", BASE.replace("P", written)))
    assert [d.code for r in run_examples(coin) for d in r.problems] == ([] if half else ["RC701"])
    assert Draft202012Validator(published()).is_valid(yaml_1_2(BASE.replace("P", written)))
    if not half and "0." not in written:
        always = BASE.replace("P", written).replace("when: d == 2", "when: d >= 1")
        assert all(r.passed for r in run_examples(engine.load_source(SourceFile("ok.yaml", always))))


def test_a_mean_written_as_text_with_a_bare_point_is_a_number() -> None:
    """A mean as text is read as a probability's text is: "2." is 2, "-1." is -1 (it was RC104)."""
    text = BASE.replace("{probability: {heads: P}}", "{mean: {v: M}}")
    text = text.replace("    outcomes:", "    let: {v: d}\n    outcomes:")
    for written, holds in (('"2."', False), ('"1.5"', True), ('"-1."', False), ('"3."', False)):
        ruleset = engine.load_source(SourceFile("mean.yaml", text.replace("M", written)))
        assert [d.code for r in run_examples(ruleset) for d in r.problems] == ([] if holds else ["RC701"])
    assert Draft202012Validator(published()).is_valid(yaml_1_2(text.replace("M", '"2."')))


def yaml_1_2(text: str) -> Any:
    """The text as a YAML 1.2 loader reads it (ruamel.yaml's safe loader), as a validator is given it."""
    from ruamel.yaml import YAML

    return YAML(typ="safe", pure=True).load(text)


@pytest.mark.parametrize(
    ("written", "code", "message", "token"),
    [
        ("2", "RC702", "2 is not a probability between 0 and 1", "2"),
        ("-0.5", "RC702", "-0.5 is not a probability between 0 and 1", "-0.5"),
        ('"-0.5"', "RC702", "-0.5 is not a probability between 0 and 1", '"-0.5"'),
        ('"-1/2"', "RC702", "-1/2 is not a probability between 0 and 1", '"-1/2"'),
        ('"3/2"', "RC702", "3/2 is not a probability between 0 and 1", '"3/2"'),
        ('"1.5"', "RC702", "1.5 is not a probability between 0 and 1", '"1.5"'),
        ("{at_most: 2}", "RC702", "2 is not a probability between 0 and 1", "2"),
        ("{at_least: -0.5}", "RC702", "-0.5 is not a probability between 0 and 1", "-0.5"),
        (
            '{at_most: "x"}',
            "RC104",
            "'x' at checks.flip.examples.0.expect.probability.heads.at_most is not",
            '"x"',
        ),
        ('"x"', "RC104", "'x' at checks.flip.examples.0.expect.probability.heads is not a number", '"x"'),
        ('"."', "RC104", "'.' at checks.flip.examples.0.expect.probability.heads is not a number", '"."'),
        (
            '"1.e0"',
            "RC104",
            "'1.e0' at checks.flip.examples.0.expect.probability.heads is not written as a probability",
            '"1.e0"',
        ),
        ('"-1."', "RC702", "-1. is not a probability between 0 and 1", '"-1."'),
        (
            '"\u0661/\u0662"',
            "RC104",
            "'\u0661/\u0662' at checks.flip.examples.0.expect.probability.heads is not",
            '"',
        ),
        ("true", "RC103", "checks.flip.examples.0.expect.probability.heads should be a probability", "true"),
        ("[1]", "RC103", "checks.flip.examples.0.expect.probability.heads should be a probability", "[1]"),
    ],
)
def test_a_probability_written_wrong_is_told_at_the_value(
    written: str, code: str, message: str, token: str
) -> None:
    """As "3/2" was told (RC702 at the value), not as jsonschema's "{'at_most': 2} is not valid
    under any of the given schemas" at the mapping, with no hint."""
    d = failing(written)
    assert d.code == code and d.message.startswith(message), d.message
    assert d.hint is not None and "a number from 0 to 1" in d.hint
    line = BASE.replace("P", written).splitlines()[d.span.line - 1]  # type: ignore[union-attr]
    assert line[d.span.col - 1 :].startswith(token), (line, d.span)  # type: ignore[union-attr]


def _node_with(*modules: str) -> str | None:
    """`node`, if it is on PATH and can load `modules` (from NODE_PATH or the working folder's
    node_modules): the suite never downloads them."""
    node = shutil.which("node")
    if node is None:
        return None
    probe = "".join(f"require({m!r});" for m in modules)
    done = subprocess.run([node, "-e", probe], capture_output=True, timeout=60, check=False)
    return node if done.returncode == 0 else None


AJV = r"""
const Ajv2020 = require("ajv/dist/2020");
const fs = require("fs");
const warnings = [];
const keep = (...a) => { warnings.push(a.join(" ")); };
const logger = {log() {}, warn: keep, error: keep};
let validate;
try {
  validate = new Ajv2020({logger}).compile(JSON.parse(fs.readFileSync(process.argv[2], "utf8")));
} catch (e) { console.log(JSON.stringify({compile: e.message})); process.exit(0); }
let yaml = null;
try { yaml = require("js-yaml"); } catch (e) {}
const failed = [];
for (const f of process.argv.slice(3)) {
  if (yaml && !validate(yaml.load(fs.readFileSync(f, "utf8")))) failed.push([f, validate.errors.slice(0, 2)]);
}
console.log(JSON.stringify({warnings, failed, read: yaml !== null}));
"""


def test_ajv_in_strict_mode_compiles_the_schema_and_takes_the_shipped_rulesets(tmp_path: Path) -> None:
    """Ajv's default options are strict: an unknown keyword (`errorMessage`) is an error, and a
    type a context cannot have (`boolean` for a key) a warning. Union types (`type: [a, b]`) are
    Draft 2020-12 and stay: Ajv warns of them unless `allowUnionTypes`, which is Ajv's own taste."""
    node = _node_with("ajv/dist/2020")
    if node is None:
        pytest.skip("node with ajv is not installed here (NODE_PATH may name a node_modules)")
    script = tmp_path / "ajv_check.js"
    script.write_text(AJV, encoding="utf-8")
    rulesets = sorted(str(p) for p in (REPO / "rulesets").glob("*.yaml"))
    done = subprocess.run(
        [node, str(script), str(SCHEMA_FILE), *rulesets],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert "compile" not in said, said
    assert [w for w in said["warnings"] if "allowUnionTypes" not in w] == []
    assert said["failed"] == []


def test_a_quoted_on_key_reads_alike_under_yaml_1_1_and_1_2() -> None:
    """The docs' advice for a YAML 1.1 loader (PyYAML reads a bare `on:` as the key true, and the
    schema then finds a trigger with no `on`): quote it, `'on':`, which the engine reads too."""
    yaml = pytest.importorskip("yaml")
    text = (REPO / "rulesets" / "chimera.yaml").read_text(encoding="utf-8")
    assert "  on: " in text
    quoted = text.replace("  on: ", "  'on': ")
    validator = Draft202012Validator(published())
    assert list(validator.iter_errors(yaml.safe_load(text)))  # the bare key: true to YAML 1.1
    assert not list(validator.iter_errors(yaml.safe_load(quoted)))
    assert all(r.passed for r in run_examples(engine.load_source(SourceFile("chimera.yaml", quoted))))
    for doc in ("README.md", "docs/tutorial.md"):
        words = (REPO / doc).read_text(encoding="utf-8")
        assert "YAML 1.2" in words and "`'on':`" in words and "PyYAML" in words, doc
