"""Hints a client of the HTTP API can follow. A diagnostic's `hint` is the command line's, and some
name its flags or commands (`--input skill=VALUE`, `rulecraft validate --lint-work N`); the API
also answers `api_hint`, worded for a request and the playground's page from the diagnostic's
`Advice` by `engine.serve.advice`. Here: real requests whose CLI hint names a flag answer an
`api_hint` that names none; every string in engine/ that names a flag or command is listed, and
each is either a hint with advice the API words or said not to reach a client as one; and the page
shows `api_hint`, never the CLI's."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import Any, get_args

import pytest
from _repo import REPO_ROOT

import engine
from engine.errors import Advice, AdviceKind, Diagnostic
from engine.tools.lint.probe import Example
from engine.tools.lint.report import _unsure, note

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from engine.serve import jobs  # noqa: E402
from engine.serve.advice import WORDING, api_hint  # noqa: E402
from engine.serve.app import Settings, create_app  # noqa: E402

CLI = re.compile(
    r"(?<![\w-])--[a-z]|`rulecraft [a-z]|pip install|(?<![\w-])-i [a-z]|\brulecraft (validate|prob)\b"
)
"""What only the command line has: a flag, a `rulecraft` command, installing with pip."""

COIN = """\
rulecraft: 1
name: coin
checks:
  flip:
    inputs:
      skill: {type: int, min: 0, max: 4}
    roll: {d: {die: 6}}
    outcomes: [tails, heads]
    outcome: "'heads' if d + skill >= 4 else 'tails'"
"""


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(workers=1, deadline=60.0))) as c:
        yield c


def only(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    (d,) = response.json()["error"]["diagnostics"]
    assert d["code"] == code
    return dict(d)


def test_a_missing_input_is_asked_for_in_the_inputs_not_by_a_flag(client: TestClient) -> None:
    d = only(client.post("/api/roll", json={"source": COIN, "check": "flip"}), 422, "RC401")
    assert (
        d["hint"] == "give it as --input skill=VALUE (skill=VALUE from Python)" and "--input" in d["text"]
    )  # the CLI's, as ever
    assert not CLI.search(d["api_hint"]), d["api_hint"]
    assert "'skill'" in d["api_hint"] and "inputs" in d["api_hint"]


def test_faces_that_run_out_are_forced_as_the_request_forces_them(client: TestClient) -> None:
    sent = {"source": COIN, "check": "flip", "inputs": {"skill": 1}, "force": {"d": []}}
    d = only(client.post("/api/roll", json=sent), 422, "RC405")
    assert "--force d=" in d["hint"]
    assert not CLI.search(d["api_hint"]) and '"force": {"d": [4]}' in d["api_hint"], d["api_hint"]


def test_an_example_that_fails_keeps_the_advice_of_what_failed(client: TestClient) -> None:
    """Found by a review: an example's RC701 (and the linter's RC808, a campaign's refusals, a
    default that does not fit) tells again a diagnostic met inside it, and copied its hint but
    not its advice, so `/api/test` answered `--input` and `--force` as the API's words. Each
    such place retells it with `Diagnostic.retold`, which keeps both."""
    examples = (
        "    examples:\n"
        "      - name: too few dice\n        inputs: {skill: 1}\n        dice: {d: [6]}\n"
        "        expect: {outcome: heads}\n"
    )
    # a 6 adds a die: one face is the first roll's, and runs out only when the example runs (a
    # list shorter than the first roll, `d: []`, is RC702 when the ruleset loads)
    exploding = COIN.replace(
        "roll: {d: {die: 6}}", "roll: {d: {die: 6, triggers: [{on: face == 6, must: add}]}}"
    )
    r = client.post("/api/test", json={"source": exploding + examples})
    assert r.status_code == 200, r.text
    found: list[dict[str, Any]] = []

    def walk(o: Any) -> None:
        if isinstance(o, dict):
            if "api_hint" in o:
                found.append(o)
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)

    walk(r.json())
    hints = [d for d in found if d["code"] == "RC701"]
    # (an input the example leaves out is RC702 when the ruleset loads, with the example's own hint)
    assert len(hints) == 1 and all(CLI.search(d["hint"]) for d in hints)
    assert not any(CLI.search(d["api_hint"]) for d in hints), [d["api_hint"] for d in hints]


def test_a_bound_is_raised_by_the_servers_operator_not_by_a_flag_over_the_api(client: TestClient) -> None:
    """The command line raises a bound with `--limit NAME=VALUE`; a request cannot, so the API says
    who can (a 14-die optimal solve is over the default work budget)."""
    sent = {"ruleset": "chimera", "check": "skill", "inputs": {"dice": 10, "resolve": 4}, "policy": "optimal"}
    d = only(client.post("/api/prob", json=sent), 422, "RC503")
    assert "--limit max_work=N" in d["hint"]
    assert not CLI.search(d["api_hint"]), d["api_hint"]
    assert "server's operator sets it (Limits.max_work)" in d["api_hint"] and "ask for less" in d["api_hint"]


def test_a_hint_with_nothing_of_the_command_line_is_the_same_for_the_api(client: TestClient) -> None:
    d = only(client.post("/api/roll", json={"ruleset": "chill", "check": "specfic"}), 404, "RC402")
    assert d["api_hint"] == d["hint"] == "did you mean 'specific'?"


def test_the_linters_budget_is_not_raised_by_a_flag_over_the_api() -> None:
    """What `POST /api/validate` answers (the same function), with a budget the linter runs out of."""
    found = jobs.validate(lambda: engine.load("chill"), None, lint_work=1)["diagnostics"]
    budget = [d for d in found if d["code"] == "RC809"]
    assert budget and all("--lint-work" in d["hint"] for d in budget)
    assert all(not CLI.search(d["api_hint"]) and "budget here was 1 unit" in d["api_hint"] for d in budget)


def test_every_linter_note_has_words_for_the_api() -> None:
    found = Diagnostic("RC807", "rule 'x' never fires", None, "remove it or change its condition.")
    example = Example(combo={}, dice=None, values={}, first_rolled=True)
    for d in (note("m", None), note("m", None, over_states=True), _unsure(found, example)):
        assert CLI.search(d.hint or "") and d.advice is not None
        worded = api_hint(d)
        assert worded and not CLI.search(worded), worded
    assert "remove it or change its condition;" in (api_hint(_unsure(found, example)) or "")


SAMPLES: dict[AdviceKind, Advice] = {
    "give": Advice("give", "skill", "check"),
    "force": Advice("force", "bag", "chit", ("white", "black")),
    "die": Advice(
        "die", "tens", "die", ("7",), lead="'tens' is a die", note="the exact odds take every face"
    ),
    "cast": Advice("cast", "hero", values=("ann", "bob")),
    "other": Advice("other", "foe", values=()),
    "lint_work": Advice("lint_work", lead="the linter bounds its work", note="Its other findings cover less"),
    "solve": Advice(
        "solve", lead="the linter enumerates no more rolls", note="Its other findings cover less"
    ),
    "unsure": Advice("unsure", lead="if it can happen: remove it"),
    "extra": Advice("extra", "postgres"),
    "migrate": Advice("migrate", lead="the stored text was changed outside rulecraft"),
    "reopen": Advice("reopen"),
    "limit": Advice("limit", "max_work", lead="ask for less (fewer dice, a smaller input, a 'cap')"),
    "keeper": Advice("keeper", lead="finish its last item and close the list with ']'"),
    "retry": Advice("retry"),
    "full": Advice("full"),
}


@pytest.mark.parametrize("kind", get_args(AdviceKind))
def test_every_kind_of_advice_is_worded_for_the_api_without_the_command_line(kind: AdviceKind) -> None:
    assert set(WORDING) == set(get_args(AdviceKind)) == set(SAMPLES)
    worded = WORDING[kind](SAMPLES[kind])
    assert worded and not CLI.search(worded), worded
    for shown in (SAMPLES[kind].name, SAMPLES[kind].lead, *SAMPLES[kind].values):
        assert shown in worded


for_the_command_line_alone = {
    "cli.py": "the command line itself: its messages never reach the API",
    "serve/run.py": "`rulecraft serve`'s settings and start-up, said on its command line",
    "tools/starter.py": "the starter file `rulecraft new` writes, no diagnostic",
}
"""Files whose every word is for the command line (or a file it writes)."""

SAID = {
    # hints with advice the API words: (the kind, the function that makes the Advice)
    "errors.py:limit_advice": ("limit", "errors.py:limit_advice"),
    "eval/sample.py:_Source._ran_out": ("force", "eval/sample.py:_Source._ran_out"),
    "runtime/inputs.py:bind": ("give", "runtime/inputs.py:_problems"),
    "runtime/inputs.py:_from_python": (
        "give",
        "runtime/inputs.py:_problems",
    ),  # the flag read, for the Python half
    "runtime/inputs.py:_problems": ("give", "runtime/inputs.py:_problems"),  # the flag read, to name a party
    "runtime/inputs.py:_die_given": ("die", "runtime/inputs.py:_die_given"),
    "runtime/state.py:bind_params": ("give", "runtime/inputs.py:_problems"),
    "scenes/play.py:cast_state": ("give", "runtime/inputs.py:_problems"),
    "scenes/campaign.py:cast_of": ("cast", "scenes/campaign.py:cast_of"),
    "state/campaign.py:_changed": ("migrate", "state/campaign.py:_changed"),
    "state/campaign.py:Campaign._reopen": ("reopen", "state/campaign.py:Campaign._reopen"),
    "state/campaign.py:Campaign._roles": ("other", "state/campaign.py:Campaign._roles"),
    # words no client meets: the server opens no campaign with a migration pending (no --migrate)
    "state/campaign.py:Campaign._nothing_to_undo": "an undo under a migration pending: the CLI's alone",
    "state/postgres.py:EXTRA": ("extra", "state/postgres.py:PostgresStore.__init__"),
    "tools/lint/report.py:note": ("lint_work solve", "tools/lint/report.py:note"),
    "tools/lint/report.py:_unsure": ("unsure", "tools/lint/report.py:_unsure"),
    "tools/plot.py:_pyplot": ("extra", "tools/plot.py:_pyplot"),
    # the API's own words already, for a client: the options are the server operator's
    "serve/app.py:BodyLimit._refuse": "the API's: the operator's --max-body",
    "serve/app.py:HostCheck.__call__": "the API's: the operator's --allow-host",
    "serve/app.py:CrossSite.__call__": "the API's: the operator's --origin",
    "serve/routes_campaigns.py:_MIGRATE": "the API's RC904 hints: the operator migrates on the command line",
    "serve/workers.py:busy": "the API's: the operator's --workers and --queue",
    "serve/workers.py:late": "the API's: the operator's --deadline",
}
"""Every place in engine/ (by file and function, or module-level name) whose strings name the
command line's flags or commands, and what it is. A new one fails
`test_every_hint_naming_the_command_line_has_words_for_the_api` until it is listed here: as a hint
with `Advice` that `engine.serve.advice` words, or as words that reach no client as a CLI hint."""


def _scopes() -> dict[str, dict[str, list[str]]]:
    """Each file's strings naming the command line (docstrings left out), by function or name,
    and the source of every function, by the same names."""
    found: dict[str, list[str]] = {}
    sources: dict[str, list[str]] = {}
    for path in sorted((REPO_ROOT / "engine").rglob("*.py")):
        rel = path.relative_to(REPO_ROOT / "engine").as_posix()
        if rel in for_the_command_line_alone:
            continue
        text = path.read_text(encoding="utf-8")
        visitor = _Strings(rel, text)
        visitor.visit(ast.parse(text))
        for where, words in visitor.found:
            found.setdefault(where, []).append(words)
        sources.update(visitor.sources)
    return {"found": found, "sources": sources}


class _Strings(ast.NodeVisitor):
    def __init__(self, rel: str, text: str) -> None:
        self.rel, self.text = rel, text
        self.stack: list[str] = []
        self.found: list[tuple[str, str]] = []
        self.sources: dict[str, list[str]] = {}

    def _scope(self, node: ast.AST, name: str) -> None:
        self.stack.append(name)
        self.sources[f"{self.rel}:{'.'.join(self.stack)}"] = [ast.get_source_segment(self.text, node) or ""]
        self.generic_visit(node)
        self.stack.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._scope(node, node.name)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._scope(node, node.name)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.stack.append(node.name)
        self.generic_visit(node)
        self.stack.pop()

    def visit_Assign(self, node: ast.Assign) -> None:
        target = node.targets[0]
        if not self.stack and isinstance(target, ast.Name):
            self._scope(node, target.id)
        else:
            self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if not self.stack and isinstance(node.target, ast.Name):
            self._scope(node, node.target.id)
        else:
            self.generic_visit(node)

    def visit_Expr(self, node: ast.Expr) -> None:
        if not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            self.generic_visit(node)  # a docstring, of a module, class, function or name, is no hint

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and CLI.search(node.value):
            self.found.append((f"{self.rel}:{'.'.join(self.stack)}", node.value))


def test_every_hint_naming_the_command_line_has_words_for_the_api() -> None:
    scanned = _scopes()
    found, sources = scanned["found"], scanned["sources"]
    new = {where: words for where, words in found.items() if where not in SAID}
    assert not new, (
        f"strings naming the command line's flags or commands: {new}. If one is a hint a client of "
        "the API can see, give its Diagnostic an Advice (engine.errors) and word its kind in "
        "engine/serve/advice.py; then list the place in SAID here"
    )
    assert not set(SAID) - set(found), f"listed, but naming no flag or command now: {set(SAID) - set(found)}"
    for where, said in SAID.items():
        if isinstance(said, tuple):
            kinds, maker = said
            for kind in kinds.split():
                assert kind in WORDING, f"{where}: no words for advice '{kind}' in engine/serve/advice.py"
                made = "".join(sources.get(maker, []))
                assert re.search(rf'Advice\(\s*"{kind}"', made), f"{where}: {maker} makes no Advice('{kind}')"


def test_the_page_shows_the_hint_worded_for_it() -> None:
    """The playground shows `api_hint`; `hint` and `text`, the command line's, it never shows."""
    page = (REPO_ROOT / "engine" / "serve" / "static" / "app.js").read_text(encoding="utf-8")
    assert "d.api_hint" in page
    assert not re.search(r"\bd\.hint\b", page)


def test_a_campaign_migrated_meanwhile_is_sent_again_and_a_changed_file_is_the_operators(
    tmp_path: Any,
) -> None:
    """Every RC904 over HTTP had one hint, that a request migrated meanwhile is sent again and a
    changed file migrated by the operator (found by helper A2): the first is now said where
    another process migrated the campaign since this request opened it (advice `reopen`), the
    second where its file changed, and neither for a read's warning."""
    from engine.serve.routes_campaigns import CHANGED, READ, _hidden
    from engine.state.sqlite import SqliteStore

    path = tmp_path / "coin.yaml"
    state = "state:\n  shared:\n    luck: {counter: 2, min: 0}\n"
    state += "actions:\n  spend:\n    effects: [{remove: {luck: 1}}]\n"
    path.write_text(COIN + state)
    db = tmp_path / "c.db"
    with SqliteStore(db) as store:
        engine.new_campaign("c", path, store=store)
        opened = engine.open_campaign("c", store=store)
        path.write_text(COIN.replace("d + skill >= 4", "d + skill >= 5") + state)
        engine.open_campaign("c", store=store, migrate=True).act("spend")
        with pytest.raises(engine.CampaignError) as meanwhile:
            opened.act("spend")
        path.write_text(COIN + state)
        with pytest.raises(engine.CampaignError) as changed:
            engine.open_campaign("c", store=store)
        warned = engine.open_campaign("c", store=store, read_only=True).warning
    assert warned is not None
    with TestClient(create_app(Settings(db=str(db), workers=1))) as c:
        server = c.app.state.server
        told = [_hidden(server, e.value.diagnostics[0]) for e in (meanwhile, changed)] + [
            _hidden(server, warned)
        ]
    [again, migrate, read] = jobs.diagnostics_json(told)
    assert all(d["code"] == "RC904" and d["hint"] == d["api_hint"] for d in (again, migrate, read)), told
    assert (
        again["hint"]
        == "another request migrated the campaign's ruleset since this one opened it: send it again"
    )
    assert (migrate["hint"], read["hint"]) == (CHANGED, READ)
    assert not any("send" in d["hint"] for d in (migrate, read))


def test_a_server_file_that_does_not_load_is_its_operators_to_fix(tmp_path: Any) -> None:
    """A `--rulesets` file, or a campaign's served file, that does not load answered its load
    error with the hint for the file's author as the client's `api_hint` ("finish its last item
    and close the list with ']'"), which no request can do: the API says the server's operator
    fixes it, that hint kept as what the fix is; the CLI's `hint` is as ever. The same text sent
    as a request's `source` is the client's own, and keeps its hint (found by a hunt)."""
    from engine.state.sqlite import SqliteStore

    operator = (
        "the ruleset's file is the server's, which a request cannot change: the server's operator fixes it"
    )
    games = tmp_path / "games"
    games.mkdir()
    broken = "rulecraft: 1\nname: [\n"
    (games / "broken.yaml").write_text(broken)
    (games / "schema.yaml").write_text(COIN.replace("outcomes:", "outcomez:"))
    elsewhere = games / "coin.yaml"  # served: a file the server does not serve, it never reads
    state = "state:\n  shared:\n    luck: {counter: 2, min: 0}\n"
    state += "actions:\n  spend:\n    effects: [{remove: {luck: 1}}]\n"
    elsewhere.write_text(COIN + state)
    db = tmp_path / "c.db"
    with SqliteStore(db) as store:
        engine.new_campaign("c", elsewhere, store=store)
    elsewhere.write_text(broken)
    settings = Settings(workers=1, deadline=60.0, rulesets=games, db=str(db))
    with TestClient(create_app(settings)) as c:
        yaml = only(c.post("/api/roll", json={"ruleset": "broken", "check": "flip"}), 422, "RC002")
        shown = only(c.get("/api/rulesets/schema"), 422, "RC102")
        changed = only(c.post("/api/campaigns/c/act", json={"action": "spend"}), 422, "RC002")
        read = c.get("/api/campaigns/c")
        assert read.status_code == 200, read.text
        [warned] = read.json()["warnings"]
        sent = only(c.post("/api/roll", json={"source": broken, "check": "flip"}), 422, "RC002")
    close = "finish its last item and close the list with ']'"
    for d in (yaml, changed, warned):
        assert d["hint"] == close and d["api_hint"] == f"{operator}; for its author: {close}", d
    assert shown["hint"] == "did you mean 'outcomes'?"
    assert shown["api_hint"] == f"{operator}; for its author: did you mean 'outcomes'?"
    assert sent["api_hint"] == sent["hint"] == close
