"""Hypothesis strategies for the fuzz suite (issue 11, item 6): expressions from the project's own
Lark grammar, and rulesets from its own JSON Schema.

**Expressions** come from `hypothesis.extra.lark`'s grammar strategy over `engine/expr/grammar.lark`
itself, with two changes that keep them cheap and meaningful:

- every terminal has an explicit strategy: names from a small pool (the names the generated
  rulesets declare, and the builtins), small numbers, quoted outcome names, the keywords with a
  space either side (lark ignores whitespace, so `if` never runs into a name);
- the grammar's levels (conditional, or, and, not, comparison, range, sum, product, unary, atom)
  make an expression recurse many times per level, so an unguided draw is huge and slow (60 ms,
  hundreds of characters). A chain of rules that are each one other rule is taken as one step,
  each rule's shortest alternatives are favoured, and past `max_depth` steps only they are taken:
  a draw takes under a millisecond, median 14 characters, the longest about 150.

**Rulesets** are drawn from `schemas/ruleset.schema.json`, rewritten before `hypothesis-jsonschema`
sees it (`fuzz_schema`): drawing straight from the whole schema is far too slow (a draw takes
seconds: the oneOf/not combinations, unbounded maps and free text) and what it draws almost never
compiles (its names are random text, its expressions random strings). So the schema is kept,
keyword by keyword, except that

- an expression (`$defs/expression`) is a grammar expression (above), a small number or a bool;
- a name (the identifier pattern, property names of maps) is drawn from `NAMES`, a pool of a few
  names shared by every kind of thing, so references (a roll read by an outcome, a table called, a
  scale named by `outcomes`, a bag drawn from) resolve often and clashes happen too;
- other strings (titles, a bag's name in `draw`, a type in `params`, a scale in `outcomes`) are
  drawn from the same pool plus the type names;
- a die's faces are a few sides, a short range or list (never a large die: see `FACES`);
- every map and list holds at most 3 entries, every number is small.

`rulesets()` composes the pieces into a document whose top level the test decides (which
sections appear), so the expensive sections (state, actions, scenes) are drawn only sometimes.

Sizes go up to and past the limits (`_law.LIMITS`): dice of up to 1,000 faces and past it, pools
and draws past `max_pool`, redraws past `max_rerolls`, triggers' `per_die` and pools' `cap` past
it, bags past `max_bag`. The work budget, not the generator, is what stops a large case: each
request of a case ends on its budget (`RC503`) well within its bound, and a size past a limit is
refused when the ruleset loads.
"""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

import hypothesis_jsonschema._from_schema as _hjs
from _repo import REPO_ROOT
from hypothesis import strategies as st
from hypothesis.extra.lark import LarkStrategy
from hypothesis_jsonschema import from_schema
from lark import Lark
from lark.grammar import NonTerminal

from engine.syntax.input_keys import input_takes

NAMES = ("a", "n", "d", "e", "x", "t", "hit", "miss")
"""The pool every generated name is drawn from: rolls, inputs, lets, checks, tables, scales,
scale members, bags and chits alike."""
OUTCOMES = ("hit", "miss")
BUILTINS = ("sum", "count", "max", "min", "highest", "best", "majority", "shift", "rank", "clamp", "floor")
TYPES = ("int", "number", "bool")

SCHEMA = json.loads((REPO_ROOT / "schemas" / "ruleset.schema.json").read_text(encoding="utf-8"))
GRAMMAR = (REPO_ROOT / "engine" / "expr" / "grammar.lark").read_text(encoding="utf-8")
NAME_PATTERN = "^[A-Za-z_][A-Za-z0-9_]*$"


# -- expressions from the grammar -------------------------------------------------------------------


def _spaced(*words: str) -> st.SearchStrategy[str]:
    return st.sampled_from([f" {w} " for w in words])


def terminals(
    names: tuple[str, ...] = NAMES, numeric: bool = False, tiny: bool = False
) -> dict[str, st.SearchStrategy[str]]:
    """An explicit strategy for every terminal of the grammar. `numeric` leans to expressions that
    type-check as numbers: no quoted names, and `true`/`false` written as numbers. `tiny` numbers
    (for a die's faces, which may name nothing) are mostly at most 3, sometimes 1,000 or past it:
    `1000 * 1000` faces is refused (RC310), `1..1000` is a large die the work budget must bound."""
    ints = (
        st.one_of(_spaced("0", "1", "2", "3"), _spaced("100", "1000", "1001"))
        if tiny
        else _spaced("0", "1", "2", "3", "6", "10")
    )
    return {
        "NAME": _spaced(*names, *BUILTINS),
        "INT": ints,
        "DECIMAL": _spaced("0.5", "1.5"),
        "STRING": ints if numeric else _spaced(*(f"'{o}'" for o in OUTCOMES), '"a"', "'zz'"),
        "COMP_OP": _spaced("==", "!=", "<=", ">=", "<", ">"),
        "ADD_OP": _spaced("+", "-"),
        "MUL_OP": _spaced("*", "/", "//", "%"),
        "POW_OP": _spaced("**"),
        **{t: st.just(f" {t.lower()} ") for t in ("IF", "ELSE", "OR", "AND", "NOT", "IN")},
        "TRUE": ints if numeric else st.just(" true "),
        "FALSE": ints if numeric else st.just(" false "),
        "WS": st.just(" "),
    }


class ShallowLark(LarkStrategy):  # type: ignore[misc]
    """`from_lark`'s strategy over the same grammar, drawing differently: a chain of rules that are
    each one other rule (`expr: or_expr`, down to `atom`) is one choice, not ten; a rule's shortest
    alternatives are taken at least half the time, and only they past `max_depth`; the whitespace
    is left to the terminals. The strings are the grammar's, only their sizes differ."""

    def __init__(self, grammar: Lark, explicit: dict[str, st.SearchStrategy[str]], max_depth: int) -> None:
        super().__init__(grammar, "expr", explicit, st.characters(codec="utf-8"))
        self.max_depth = max_depth
        self.depth = 0
        every = {name: list(options.elements) for name, options in self.nonterminal_strategies.items()}
        self.choices = {}
        for name in every:
            reach, todo = {name}, [name]  # the rules `name` becomes through `a: b` alone
            while todo:
                for e in every[todo.pop()]:
                    if len(e) == 1 and isinstance(e[0], NonTerminal) and e[0].name not in reach:
                        reach.add(e[0].name)
                        todo.append(e[0].name)
            real = [
                e
                for r in sorted(reach)
                for e in every[r]
                if not (len(e) == 1 and isinstance(e[0], NonTerminal))
            ]
            least = min(len(e) for e in real)
            leaves = [e for e in real if len(e) == least and not any(isinstance(x, NonTerminal) for x in e)]
            short = leaves or [e for e in real if len(e) == least]
            # one draw per real rule (chains like expr -> or_expr -> ... -> atom are one step), the
            # shortest alternatives at least half the time, and only they past max_depth
            self.choices[name] = (st.sampled_from(short + real), st.sampled_from(short))

    def draw_symbol(self, data: Any, symbol: Any, draw_state: list[str]) -> None:
        if not isinstance(symbol, NonTerminal):
            super().draw_symbol(data, symbol, draw_state)
            return
        data.start_span(self.rule_label(symbol.name))
        expansion = data.draw(self.choices[symbol.name][self.depth >= self.max_depth])
        self.depth += 1
        try:
            for e in expansion:
                self.draw_symbol(data, e, draw_state)
        finally:
            self.depth -= 1
        data.stop_span()

    def gen_ignore(self, data: Any, draw_state: list[str]) -> None:
        pass  # every terminal brings its own spaces


_LARK = Lark(GRAMMAR, parser="lalr", start="expr")


def expressions(
    names: tuple[str, ...] = NAMES, max_depth: int = 6, numeric: bool = False, tiny: bool = False
) -> st.SearchStrategy[str]:
    """Expressions of the rulecraft language over `names`, as text."""
    explicit = terminals(names, numeric, tiny)
    return ShallowLark(_LARK, explicit, max_depth).map(lambda s: " ".join(s.split()))


# -- rulesets from the schema -----------------------------------------------------------------------

EXPR = "rc-expr"
NAME = "rc-name"
WORD = "rc-word"
FACES = "rc-faces"
CASE = "rc-case"
ANNOTATIONS = ("description", "examples", "default", "errorMessage", "title", "$comment")
SMALL = 3
"""Entries in any generated map or list."""
_DEFS: dict[str, Any] = {}


def _node(schema: Any) -> Any:
    """One schema, rewritten as the module's docstring says."""
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if ref == "#/$defs/expression":
        return {
            "anyOf": [
                {"type": "string", "format": EXPR},
                {"type": "integer", "minimum": -2, "maximum": 10},
                {"type": "boolean"},
            ]
        }
    if ref == "#/$defs/faces":
        # A die of a few sides or of many, up to the 1,000-face bound and past it (RC310); a pool
        # of many large dice is a statistic over every multiset, which the work budget bounds.
        return {
            "anyOf": [
                {"type": "integer", "minimum": 1, "maximum": 12},
                {"enum": [100, 1000, 1001]},
                {"type": "string", "format": FACES},
                {
                    "type": "array",
                    "items": {"type": "integer", "minimum": -1, "maximum": 9},
                    "minItems": 1,
                    "maxItems": 6,
                },
            ]
        }
    if ref is not None:  # inlined (`fuzz_schema` leaves no recursive definition), so each piece stands alone
        return _node({**_DEFS[ref.rsplit("/", 1)[-1]], **{k: v for k, v in schema.items() if k != "$ref"}})
    out = {k: v for k, v in schema.items() if k not in ANNOTATIONS}
    if out.get("type") == "string" and "enum" not in out and "const" not in out:
        pattern = out.pop("pattern", None)
        out["format"] = NAME if pattern == NAME_PATTERN else WORD
    if out.get("type") in ("integer", "number"):
        # cap, per_die, sets, chit counts, min/max: mostly small, sometimes past a limit (a
        # `per_die` or `cap` past max_rerolls, a bag past max_bag, an input's bound of 10^9)
        low = max(out.get("minimum", -3), -3)
        high = min(out.get("maximum", 8), 8)
        small = {**out, "minimum": min(low, high), "maximum": high}
        large = [v for v in (1001, 200_000, 10**9) if v <= out.get("maximum", 10**9)]
        if large and "enum" not in out and "const" not in out:
            out = {"anyOf": [small, {"enum": large}]}
        else:
            out = small
    if out.get("type") == "object" or "properties" in out or "additionalProperties" in out:
        out["maxProperties"] = max(SMALL, len(out.get("required", ())))
        if "format" not in out.get("propertyNames", {}) and (
            "propertyNames" in out or isinstance(out.get("additionalProperties"), dict)
        ):
            out["propertyNames"] = {"type": "string", "format": NAME}
    if out.get("type") == "array":
        out["maxItems"] = min(out.get("maxItems", SMALL), SMALL)
    for key in ("items", "additionalProperties", "not", "if", "then", "else"):
        if isinstance(out.get(key), dict):
            out[key] = _node(out[key])
    for key in ("oneOf", "anyOf", "allOf"):
        if key in out:
            out[key] = [_node(s) for s in out[key]]
    if "properties" in out:
        out["properties"] = {k: _node(v) for k, v in out["properties"].items()}
    return out


def fuzz_schema() -> dict[str, Any]:
    """The ruleset schema rewritten for the fuzzer, every reference inlined; its definitions are
    kept (rewritten) under `$defs` for `piece`."""
    schema = copy.deepcopy(SCHEMA)
    # a value table's cases: a few rows keyed by a number, a range, a list, a name or `else`
    schema["$defs"]["table"]["properties"]["cases"] = {
        "type": "object",
        "propertyNames": {"type": "string", "format": CASE},
        "additionalProperties": {"$ref": "#/$defs/expression"},
    }
    # the schema's one recursive definition (a level of cases holds the next level) as that one
    # level: every reference is inlined here, which a recursive one would do for ever
    schema["$defs"]["cases"] = schema["$defs"]["table"]["properties"]["cases"]
    # `redraw: {times: N}`: a few, many (16 once ran for minutes, 3^N work), up to max_rerolls
    # and past it (RC503 when the ruleset loads), or an expression
    schema["$defs"]["redraw"]["properties"]["times"] = {"enum": [0, 1, 2, "1", 16, 1000, 1001, 10**9, "a"]}
    _DEFS.update(schema["$defs"])  # what `_node` inlines
    top = _node({k: v for k, v in schema.items() if k not in ("$defs", "$schema", "$id")})
    top["properties"]["name"] = {"const": "fuzz"}
    top["$defs"] = {k: _node(v) for k, v in schema["$defs"].items()}
    return top


def formats(max_depth: int = 5) -> dict[str, st.SearchStrategy[str]]:
    return {
        EXPR: expressions(max_depth=max_depth),
        NAME: st.sampled_from(NAMES),
        WORD: st.sampled_from(NAMES + TYPES),
        # a short range, a list or a number of sides; anything else the grammar gives, with numbers
        # only (a face expression may not name anything)
        FACES: st.one_of(
            st.sampled_from(
                ["1..6", "0..9", "[1, 2, 3]", "4", "-1..1", "[1, 1, 2]", "1..2", "1..1000", "0..1000"]
            ),
            expressions(names=(), max_depth=3, tiny=True),
        ),
        CASE: st.sampled_from(["1", "2", "1..3", "else", "[1, 2]", "hit", "miss", "a", "true"]),
    }


FUZZ_SCHEMA = fuzz_schema()


def _memoised(make: Any) -> Any:
    """hypothesis-jsonschema makes the strategy of an object's every value anew on each draw
    (resolving and canonicalising its schema each time: 0.2 s a ruleset, most of it spent there).
    The same schema always gives the same strategy, so each is made once."""
    made: dict[tuple[str, int, int], Any] = {}

    def memo(schema: Any, *, alphabet: Any, custom_formats: Any) -> Any:
        key = (json.dumps(schema, sort_keys=True), id(alphabet), id(custom_formats))
        if key not in made:
            made[key] = make(schema, alphabet=alphabet, custom_formats=custom_formats)
        return made[key]

    return memo


if not hasattr(_hjs, "_rulecraft_memo"):
    _hjs.__dict__["__from_schema"] = _memoised(_hjs.__dict__["__from_schema"])
    _hjs._rulecraft_memo = True


def piece(definition: str, max_depth: int = 5) -> st.SearchStrategy[Any]:
    """Values of one definition of the rewritten schema (`check`, `table`, `randomizer`, ...)."""
    return from_schema(FUZZ_SCHEMA["$defs"][definition], custom_formats=formats(max_depth))


def section(definition: str, max_size: int = 2, min_size: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    """A map of pool names to values of one definition."""
    return st.dictionaries(st.sampled_from(NAMES), piece(definition), min_size=min_size, max_size=max_size)


@functools.cache
def _strategy(what: str) -> st.SearchStrategy[Any]:
    """Each piece's strategy, made once (hypothesis-jsonschema resolves a schema when it is made)."""
    if what == "checks":
        return section("check", min_size=1)
    if what == "tables":
        return section("table")
    if what == "scales":
        members = st.lists(st.sampled_from(NAMES), min_size=1, max_size=3, unique=True)
        return st.dictionaries(st.sampled_from(NAMES), members, max_size=2)
    if what == "bags":
        return st.dictionaries(st.sampled_from(NAMES), piece_of("bags"), max_size=1)
    if what == "bag":
        return piece_of("bags")
    if what == "expr":
        return expressions(max_depth=5)
    if what == "number":
        return expressions(names=ROLLS + INPUTS + LETS + (TABLE, "face"), max_depth=5, numeric=True)
    if what in FUZZ_SCHEMA["$defs"]:
        return piece(what)
    return from_schema(top_level(what), custom_formats=formats())


@st.composite
def rulesets(draw: st.DrawFn, extras: tuple[str, ...] = ("scales", "bags", "tables")) -> dict[str, Any]:
    """A whole ruleset: checks always, each section of `extras` sometimes, all from the schema."""
    doc: dict[str, Any] = {"rulecraft": 1, "name": "fuzz", "checks": draw(_strategy("checks"))}
    for check in doc["checks"].values():
        if draw(st.booleans()):  # mostly a scale of no name, or outcomes of the pool (the schema's choice)
            check["outcomes"] = list(OUTCOMES)
    for extra in extras:
        if draw(st.booleans()):
            doc[extra] = draw(_strategy(extra))
    return doc


def top_level(key: str) -> dict[str, Any]:
    """The rewritten schema of one top-level section (`state`, `actions`, `scenes`)."""
    return dict(FUZZ_SCHEMA["properties"][key])


def piece_of(key: str) -> st.SearchStrategy[Any]:
    """Values of one top-level map's entries (a bag, a scale)."""
    return from_schema(FUZZ_SCHEMA["properties"][key]["additionalProperties"], custom_formats=formats())


ROLLS = ("d", "e")
COUNTS = ("0", "1", "2", "a", "a + 1", "3", "n", "20", "100", "101", "a * 1000")
"""A pool's size or a draw's count: small, at `max_pool`, past it (RC503 at load), or an input's."""
FACE_TESTS = ("face == 6", "face >= 5", "face < 2", "face in 1..2", "face == 0")
INPUTS = ("a", "n")
LETS = ("x",)
TABLE = "t"


@st.composite
def playable_rulesets(draw: st.DrawFn) -> dict[str, Any]:
    """A ruleset more likely to load and roll: one check whose parts (rolls, inputs, a table,
    sometimes a bag) are drawn from the schema's definitions under names kept apart by role, and
    whose lets, outputs and outcome are grammar expressions over those names, the outcome
    written so that it names the declared outcomes ('hit' if ... else 'miss', or rules)."""
    expr = _strategy("number")
    check: dict[str, Any] = {
        "roll": draw(st.dictionaries(st.sampled_from(ROLLS), playable_randomizers(), min_size=1, max_size=2)),
        "outcomes": list(OUTCOMES),
    }
    inputs = draw(st.dictionaries(st.sampled_from(INPUTS), _strategy("input"), max_size=2))
    for name, spec in inputs.items():
        if isinstance(spec.get("choices"), str):  # a scale's name: there is none here
            spec["choices"] = list(OUTCOMES)
        # a key its type does not take (`min` on a bool, `choices` on an int) is refused at load
        inputs[name] = {k: v for k, v in spec.items() if input_takes(spec.get("type", "int"), k)}
    if inputs:
        check["inputs"] = inputs
    if draw(st.booleans()):
        check["let"] = {name: draw(expr) for name in LETS}
    if draw(st.booleans()):
        check["outputs"] = {"n" if "n" not in inputs else "a": draw(expr)}
    form = draw(st.sampled_from(["if", "rules", "bool"]))
    if form == "if":
        check["outcome"] = f"'hit' if ({draw(expr)}) > 2 else 'miss'"
    elif form == "rules":
        check["outcome"] = [{"when": f"({draw(expr)}) >= 1", "then": "'hit'"}, {"else": "'miss'"}]
    else:
        check["outcome"] = f"'hit' if {draw(expr)} else 'miss'"
    doc: dict[str, Any] = {"rulecraft": 1, "name": "fuzz", "checks": {"hit": check}}
    if draw(st.integers(0, 3)) == 0:
        table = dict(draw(_strategy("table")))
        if "cases" in table:  # one level of cases: one parameter
            table["params"] = ["a"]
        doc["tables"] = {TABLE: table}
    if draw(st.booleans()) or any("draw" in r for r in check["roll"].values()):
        doc["bags"] = {TABLE: draw(_strategy("bag"))}
    return doc


@st.composite
def playable_randomizers(draw: st.DrawFn) -> dict[str, Any]:
    """A die, pool or draw from the schema, its expressions then replaced by ones of the right
    type: counts small, a pool's `each` a number, triggers on a face, draws from the one bag."""
    r = dict(draw(_strategy("randomizer")))
    number = _strategy("number")
    for key in ("pool", "count"):
        if key in r:
            r[key] = draw(st.sampled_from(COUNTS))
    if "draw" in r:
        r["draw"] = TABLE
    if "each" in r:
        r["each"] = draw(number)
    if "triggers" in r:
        r["triggers"] = [
            {
                **t,
                **{k: draw(st.sampled_from(FACE_TESTS)) for k in ("on", "target") if k in t},
                **({"only_if": draw(number) + " > 1"} if "only_if" in t else {}),
            }
            for t in r["triggers"]
        ]
    if "redraw" in r:
        r["redraw"] = {
            **r["redraw"],
            **{k: draw(number) + " < 3" for k in ("may", "must") if k in r["redraw"]},
        }
    return r
