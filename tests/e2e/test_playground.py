"""The playground in a real browser: `rulecraft serve` started as a process, the page driven in
headless Chromium (Playwright with the system's `chromium`, never a downloaded one).

One walk through what an author does: load a shipped ruleset, break a line and see the error at
that line (its number and code), mend it and see the errors go, pick a check, fill an input,
roll and read the trace, then see the exact distribution and a sweep drawn as SVG. Screenshots
of the diagnostics, the trace and the charts go to `$RULECRAFT_SCREENSHOTS` (the README's copies
in docs/img/ are made with `RULECRAFT_SCREENSHOTS=docs/img`), else to a temporary folder.

Skipped, with the reason shown, only where Playwright or Chromium is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

try:
    from playwright.sync_api import Page, expect, sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None

CHROMIUM = os.environ.get("RULECRAFT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
# A closed network: Chromium must not try to reach anything but the test's own server.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
START_SECONDS = 90.0  # a loaded 2-core machine starts the server slowly; a hang is far longer
WAIT_MS = 30_000

if sync_playwright is not None:
    expect.set_options(timeout=WAIT_MS)

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="the playwright package is not installed"),
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(), reason=f"no chromium at {CHROMIUM} (apt install chromium)"
    ),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.load(answer)


@pytest.fixture(scope="module")
def server(repo_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`python -m engine serve` on a free loopback port, with a campaign in its database."""
    yield from _serve(repo_root, tmp_path_factory, [])


@pytest.fixture(scope="module")
def lone(repo_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server that solves one question at a time and keeps none waiting."""
    yield from _serve(repo_root, tmp_path_factory, ["--workers", "1", "--queue", "0"])


def _serve(repo_root: Path, tmp_path_factory: pytest.TempPathFactory, more: list[str]) -> Iterator[str]:
    db = tmp_path_factory.mktemp("serve") / "campaigns.db"
    env = {**os.environ, "PYTHONPATH": str(repo_root)}
    for argv in (
        ["campaign", "--db", str(db), "new", "mycase", "chill", "-p", "players=4"],
        ["campaign", "--db", str(db), "act", "mycase", "player_roll", "-i", "target=55", "--seed", "3"],
    ):
        made = subprocess.run(
            [sys.executable, "-m", "engine", *argv], cwd=repo_root, env=env, capture_output=True, text=True
        )
        assert made.returncode == 0, made.stderr
    port = _free_port()
    log = tmp_path_factory.mktemp("serve-log") / "server.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            # A long deadline: this test is about the page, and a loaded machine solves slowly.
            [
                sys.executable,
                "-m",
                "engine",
                "serve",
                "--port",
                str(port),
                "--db",
                str(db),
                "--deadline",
                "120",
                *more,
            ],
            cwd=repo_root,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}/"
    try:
        until = time.monotonic() + START_SECONDS
        while True:
            if proc.poll() is not None:
                pytest.fail(f"rulecraft serve exited with {proc.returncode}:\n{log.read_text()}")
            try:
                _get(base + "api/rulesets")
                break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if time.monotonic() > until:
                    pytest.fail(f"rulecraft serve did not answer in {START_SECONDS} s:\n{log.read_text()}")
                time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = os.environ.get("RULECRAFT_SCREENSHOTS")
    folder = Path(where) if where else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture()
def page(server: str) -> Iterator[Page]:
    with _browse(server) as opened:
        yield opened


@pytest.fixture()
def lone_page(lone: str) -> Iterator[Page]:
    with _browse(lone) as opened:
        yield opened


@contextmanager
def _browse(server: str) -> Iterator[Page]:
    """The page in headless Chromium, failing on any script error or failed request (but those a
    test stands in for the server with, after setting `page.expect_failures`)."""
    assert sync_playwright is not None
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = context.new_page()
            page.set_default_timeout(WAIT_MS)
            problems: list[str] = []
            page.on("pageerror", lambda e: problems.append(str(e)))

            # a dialog no test asked for is a failure (and is dismissed, so the page goes on and the
            # failure is reported, not a timeout); one a test waits for (`expect_dialog`) is its own
            def dialog(d: Any) -> None:
                if not getattr(page, "expect_dialog", False):
                    problems.append(f"a {d.type} opened: {d.message}")
                    d.dismiss()

            page.on("dialog", dialog)

            # A 4xx the test asks for (a misspelt action: 404, a name the ruleset does not have) is
            # logged by the browser too; a script error, a 5xx or any other 404 (a page file or an
            # API path that is not there) is a failure.
            def failing() -> bool:
                return bool(getattr(page, "expect_failures", False))

            page.on(
                "response",
                lambda r: (
                    problems.append(f"{r.status} {r.url}") if r.status >= 500 and not failing() else None
                ),
            )
            page.on(
                "console",
                lambda m: (
                    problems.append(m.text)
                    if m.type == "error"
                    and "the server responded with a status of 4" not in m.text
                    and not failing()
                    else None
                ),
            )
            asked = server + "api/campaigns/mycase/act"  # the misspelt action's request
            page.on(
                "response",
                lambda r: problems.append(f"missing {r.url}") if r.status == 404 and r.url != asked else None,
            )
            page.goto(server)
            yield page
            assert problems == [], problems  # no script error and no failed request on the way
        finally:
            browser.close()


def _type_at_end_of(page: Page, line: int, text: str) -> None:
    """Put the caret at the end of `line` (1-based) and type, key by key, as an author would."""
    page.evaluate(
        """(line) => {
            const src = document.getElementById("source");
            const lines = src.value.split("\\n");
            let at = 0;
            for (let i = 0; i < line; i++) at += lines[i].length + (i < line - 1 ? 1 : 0);
            src.focus();
            src.setSelectionRange(at, at);
        }""",
        line,
    )
    page.keyboard.type(text, delay=20)


def test_edit_see_the_error_fix_roll_and_chart(page: Page, server: str, shots: Path) -> None:
    # The page lists the shipped rulesets; pick one and wait for it to load and validate.
    expect(page.locator("#ruleset-list option[value='chill']")).to_have_count(1)
    page.select_option("#ruleset-list", "chill")
    source = _get(server + "api/rulesets/chill")["source"]
    expect(page.locator("#source")).to_have_value(source)
    expect(page.locator("#validity")).to_have_text("valid")
    expect(page.locator("#gutter .ln")).to_have_count(len(source.split("\n")))

    # Break one expression (a table's row, so the check still compiles and nothing else is
    # reported); the diagnostic appears at that line, with its code, after the pause.
    line = next(i for i, text in enumerate(source.split("\n"), 1) if text.strip() == "- when: roll > target")
    _type_at_end_of(page, line, " +")
    mark = page.locator("#gutter .mark.error")
    expect(mark).to_have_count(1)
    expect(mark).to_have_text(str(line))
    expect(mark).to_have_attribute("data-code", "RC201")
    item = page.locator("#diagnostics li.diag")
    expect(item).to_have_count(1)
    expect(item).to_have_attribute("data-line", str(line))
    expect(item.locator(".code")).to_have_text("RC201")
    expect(item.locator(".where")).to_contain_text(f"line {line}:")
    expect(page.locator(f"#marks .band[data-line='{line}']")).to_have_count(1)
    expect(page.locator("#validity")).to_have_text("1 error")
    page.locator("#editor-pane").screenshot(path=str(shots / "playground-diagnostics.png"))

    # Mend it: the marks and the list clear.
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")
    expect(page.locator("#validity")).to_have_text("valid")
    expect(page.locator("#diagnostics li")).to_have_count(0)
    expect(page.locator("#gutter .mark")).to_have_count(0)
    expect(page.locator("#source")).to_have_value(source)

    # Pick the check, fill an input, roll with a seed: the outcome and the trace show.
    page.locator("#check-list button", has_text="specific").click()
    target = page.locator("#inputs input[name='target']")
    expect(target).to_have_attribute("min", "1")
    expect(target).to_have_attribute("max", "300")
    expect(page.locator("#inputs select[name='roller'] option")).to_have_count(2)
    target.fill("55")
    page.fill("#seed", "11")
    page.click("#roll")
    steps = page.locator("#trace li")
    expect(steps.first).to_be_visible()
    rolled = json.loads(
        page.evaluate(
            """async (body) => JSON.stringify(await (await fetch("api/roll", {method: "POST",
               headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)})).json())""",
            {"ruleset": "chill", "check": "specific", "inputs": {"target": 55}, "seed": 11},
        )
    )
    expect(page.locator("#outcome")).to_have_text(rolled["outcome"])
    expect(steps).to_have_count(len(rolled["trace"]))
    expect(page.locator("#trace li.step.die")).to_have_count(2)
    page.locator("#work-pane").screenshot(path=str(shots / "playground-trace.png"))

    # The exact distribution: an <svg> with one bar per outcome.
    page.click("#exact")
    bars = page.locator("#chart svg g.bar")
    expect(bars).to_have_count(5)
    expect(bars.first.locator("title")).to_contain_text("%")

    # A sweep over the target: one line per outcome.
    page.select_option("#sweep-input", "target")
    page.fill("#sweep-from", "5")
    page.fill("#sweep-to", "100")
    page.click("#sweep")
    expect(page.locator("#sweep-chart svg g.series polyline")).to_have_count(5)
    page.locator("#charts").screenshot(path=str(shots / "playground-chart.png"))

    # The campaign made before the server started: its state and its log, read-only.
    expect(page.locator("#campaign-list option[value='mycase']")).to_have_count(1)
    expect(page.locator("#campaign-state")).to_contain_text("tokens")
    log = page.locator("#campaign-log li")
    expect(log).to_have_count(2)
    expect(log.nth(1).locator(".what")).to_contain_text("action player_roll → ")

    # Acting from the page: a misspelt action is refused with its diagnostic; the right one is
    # logged with its roll's outcome, and an undo is logged after it (nothing is deleted).
    page.fill("#act-action", "player_rol")
    page.fill("#act-inputs", "target=55")
    page.click("#act")
    expect(page.locator("#campaign-errors li")).to_contain_text("player_roll")
    expect(log).to_have_count(2)
    page.fill("#act-action", "player_roll")
    page.click("#act")
    expect(log).to_have_count(3)
    expect(page.locator("#campaign-errors li")).to_have_count(0)
    expect(log.nth(2).locator(".what")).to_contain_text("action player_roll → ")
    page.click("#undo")
    expect(log).to_have_count(4)
    expect(log.nth(3)).to_contain_text("undoes #3")

    # Markup in what comes back is shown as text: a ruleset whose unknown key is an <img> tag.
    hostile = (
        'rulecraft: 1\nname: x\n"<img src=x onerror=alert(1)>": 1\nchecks:\n  flip:\n'
        '    roll: {d: {die: 2}}\n    outcomes: [tails, heads]\n    outcome: "heads if d == 2 else tails"\n'
    )
    page.fill("#source", hostile)
    item = page.locator("#diagnostics li.diag")
    expect(item).to_have_count(1)
    expect(item).to_have_attribute("data-code", "RC102")
    expect(item.locator(".message")).to_have_text(
        "unknown key '<img src=x onerror=alert(1)>' in the top level"
    )
    expect(page.locator("#diagnostics img, #gutter img")).to_have_count(0)


# -- found by an audit of the page as a stranger uses it (2026-12-04) -------------------------------


def _until(page: Page, done: Any) -> None:
    """Wait (letting the page's events through) until `done()` holds."""
    until = time.monotonic() + WAIT_MS / 1000
    while not done():
        assert time.monotonic() < until, "waited too long"
        page.wait_for_timeout(50)


def _load(page: Page, server: str, name: str) -> str:
    page.select_option("#ruleset-list", name)
    source: str = _get(server + f"api/rulesets/{name}")["source"]
    expect(page.locator("#source")).to_have_value(source)
    expect(page.locator("#validity")).to_have_text("valid")
    return source


def test_only_answers_to_the_form_as_it_is_are_shown(page: Page, server: str) -> None:
    """A castle roll's trace and charts stayed up under chill's form and its error; a cleared
    field was left out (its default rolled, unsaid) or sent as 0; and of two answers to one card,
    the one that came last was drawn, even when it was the older question's."""
    _load(page, server, "chill")
    page.locator("#check-list button", has_text="specific").click()
    target = page.locator("#inputs input[name='target']")
    target.fill("55")
    page.click("#roll")
    expect(page.locator("#roll-card")).to_be_visible()
    target.fill("60")  # the form changed: the roll on show answered another question
    expect(page.locator("#roll-card")).to_be_hidden()

    target.fill("")
    page.click("#exact")
    expect(page.locator("#errors li")).to_have_text("target: give a number")
    expect(page.locator("#chart-card")).to_be_hidden()

    held: list[Any] = []  # the first chart's request is held back until the second is drawn
    page.route(
        "**/api/chart/distribution", lambda route: held.append(route) if not held else route.continue_()
    )
    target.fill("55")
    page.click("#exact")
    _until(page, lambda: len(held) == 1)
    target.fill("70")
    page.click("#exact")
    expect(page.locator("#chart-card")).to_be_visible()
    expect(page.locator("#chart svg")).to_contain_text("target=70")
    held[0].continue_()
    page.wait_for_timeout(1500)  # the older answer arrives, and is dropped
    expect(page.locator("#chart svg")).to_contain_text("target=70")
    expect(page.locator("#chart svg")).not_to_contain_text("target=55")
    expect(page.locator("#status")).to_have_text("ready")  # no question is on its way any more
    _type_at_end_of(page, 1, " ")  # an edit of the text: the chart answered the text as it was
    expect(page.locator("#chart-card")).to_be_hidden()
    page.keyboard.press("Backspace")  # the text as loaded again: no question before another ruleset

    _load(page, server, "castle")  # another ruleset: nothing of chill's is left on show
    expect(page.locator("#chart-card")).to_be_hidden()
    expect(page.locator("#roll-card")).to_be_hidden()


def test_the_editor_lets_the_keyboard_out_and_keeps_edits(page: Page, server: str) -> None:
    """Tab and Shift+Tab stayed in the editor, each inserting two spaces; a new ruleset picked
    from the list replaced edited text without a word."""
    source = _load(page, server, "chill")
    src = page.locator("#source")
    src.focus()
    page.keyboard.press("End")
    page.keyboard.press("Tab")
    assert len(src.input_value()) == len(source) + 2  # Tab indents
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") != "source"
    src.focus()
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("() => document.activeElement.id") != "source"
    assert len(src.input_value()) == len(source) + 2  # neither way out typed anything

    page.expect_dialog = True  # type: ignore[attr-defined]
    asked: list[str] = []

    def dismiss(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", dismiss)
    page.select_option("#ruleset-list", "castle")
    _until(page, lambda: len(asked) == 1)
    assert "Replace the text you have edited" in asked[0]
    assert len(src.input_value()) == len(source) + 2  # kept
    expect(page.locator("#ruleset-list")).to_have_value("chill")


def test_lists_fractions_new_defaults_and_placed_diagnostics(page: Page, server: str) -> None:
    """A list input was a number field (typing 1,0,2 sent 102); a default changed in the editor
    did not reach the form; the diagnostics list named no file and showed no source line or caret."""
    _load(page, server, "chthonian")
    page.locator("#check-list button", has_text="difficult_contest").click()
    rivals = page.locator("#inputs input[name='rivals']")
    expect(rivals).to_have_attribute("type", "text")
    expect(rivals).to_have_value("0")
    rivals.fill("1,0,2")
    page.click("#exact")
    expect(page.locator("#chart svg")).to_contain_text(
        "rivals=[0, 1, 2]"
    )  # the pool of rivals, as the engine keeps it
    expect(page.locator("#sweep-input option[value='rivals']")).to_have_count(0)

    source = _load(page, server, "chill")
    page.locator("#check-list button", has_text="specific").click()
    tokens = page.locator("#inputs input[name='tokens']")
    expect(tokens).to_have_value("0")
    edited = source.replace("max: 20\n        default: 0", "max: 20\n        default: 5", 1)
    assert edited != source
    page.fill("#source", edited)
    expect(tokens).to_have_value("5")

    page.fill("#source", edited.replace("outcome:", "outcom:", 1))
    item = page.locator("#diagnostics li.diag").first
    expect(item.locator(".where")).to_contain_text("chill.yaml line ")
    expect(item.locator(".excerpt")).to_contain_text("^")


def test_the_check_tabs_take_the_arrow_keys(page: Page, server: str) -> None:
    """The check list said it was a tablist, but every tab was a stop of its own for Tab and the
    arrow keys did nothing (WAI-ARIA's tabs pattern: one stop, Left/Right/Home/End move along)."""
    _load(page, server, "castle")
    tabs = page.locator("#check-list [role=tab]")
    names = [t.strip() for t in tabs.all_inner_texts()]
    assert len(names) > 2
    page.locator("#check-list button", has_text=names[0]).click()
    selected = page.locator("#check-list [aria-selected=true]")
    expect(selected).to_have_text(names[0])
    expect(page.locator("#check-list [tabindex='0']")).to_have_count(1)  # one stop in the tab order

    def focused() -> str:
        return str(page.evaluate("() => document.activeElement.textContent"))

    page.keyboard.press("ArrowRight")
    expect(selected).to_have_text(names[1])
    assert focused() == names[1]  # the redrawn list keeps the keyboard on the new tab
    expect(page.locator("#inputs-form")).to_have_attribute(
        "aria-labelledby", str(selected.get_attribute("id"))
    )
    page.keyboard.press("End")
    expect(selected).to_have_text(names[-1])
    page.keyboard.press("ArrowRight")  # wraps round
    expect(selected).to_have_text(names[0])
    page.keyboard.press("ArrowLeft")
    expect(selected).to_have_text(names[-1])
    page.keyboard.press("Home")
    expect(selected).to_have_text(names[0])
    assert focused() == names[0]
    page.keyboard.press("Tab")  # one Tab leaves the list, whichever tab is selected
    assert page.evaluate("() => document.activeElement.getAttribute('role')") != "tab"


UNPROVEN = """\
rulecraft: 1
name: linear
checks:
  t:
    inputs:
      x: {type: int, min: 0, max: 10000, default: 0}
    roll:
      d: {die: 6}
    outcomes: [low, odd, high]
    outcome:
      - when: x * 3 == 2001
        then: odd
      - when: d >= 4
        then: high
      - else: low
"""


def test_a_note_is_marked_as_a_note(page: Page, server: str) -> None:
    """A finding the linter could not prove (RC802 over part of the inputs) is a note: the badge
    counted every finding that was not an error as notes, and the gutter marked notes as warnings."""
    _load(page, server, "chill")
    page.fill("#source", UNPROVEN)
    expect(page.locator("#validity")).to_have_text("1 note")
    mark = page.locator("#gutter .mark")
    expect(mark).to_have_count(1)
    expect(mark).to_have_class("ln mark note")
    expect(mark).to_have_attribute("data-code", "RC802")
    page.fill("#source", UNPROVEN.replace("[low, odd, high]", "[low, odd, high, spare]"))
    expect(page.locator("#validity")).to_have_text("1 warning")  # RC803, read from the rules: proven
    expect(page.locator("#gutter .mark.warning")).to_have_attribute("data-code", "RC803")
    expect(page.locator("#gutter .mark.note")).to_have_attribute("data-code", "RC802")


# -- found by a hunt through the page's corners (2026-12-06) ------------------------------------------

BUILT_IN_NAMES = """\
rulecraft: 1
name: coin
checks:
  flip:
    inputs:
      constructor: {type: int, default: 1, min: 0, max: 5}
      toString: {type: number, default: 1}
      __proto__: {type: int, min: 0, max: 5}
    roll: {d: {die: 2}}
    outcomes: [tails, heads]
    outcome: "heads if d + constructor + __proto__ >= 2 else tails"
"""


def test_inputs_named_as_a_scripts_built_ins_are_shown_and_sent(page: Page, server: str) -> None:
    """`constructor` showed an empty field, `toString` "function toString() { [native code] }",
    and `__proto__` filled in was sent as no input at all (422): the page keyed plain objects
    by the ruleset's names, and `in` and `[]` saw what every object has."""
    _load(page, server, "chill")
    page.fill("#source", BUILT_IN_NAMES)
    expect(page.locator("#validity")).to_have_text("valid")
    expect(page.locator("#inputs [name='constructor']")).to_have_value("1")
    expect(page.locator("#inputs [name='toString']")).to_have_value("1")
    expect(page.locator("#inputs [name='__proto__']")).to_have_value("")
    page.fill("#inputs [name='__proto__']", "1")
    page.fill("#inputs [name='toString']", "1/2")
    # a new default in the editor: what was typed is kept, and `constructor` takes the new one
    page.fill("#source", BUILT_IN_NAMES.replace("default: 1, min: 0", "default: 2, min: 0"))
    expect(page.locator("#inputs [name='constructor']")).to_have_value("2")
    expect(page.locator("#inputs [name='__proto__']")).to_have_value("1")
    expect(page.locator("#inputs [name='toString']")).to_have_value("1/2")
    with page.expect_request("**/api/roll") as asked:
        page.click("#roll")
    sent = json.loads(asked.value.post_data or "{}")["inputs"]
    assert sent == {"constructor": "2", "toString": "1/2", "__proto__": "1"}  # whole numbers as typed
    expect(page.locator("#outcome")).to_have_text("heads")
    expect(page.locator("#errors li")).to_have_count(0)


BIG = """\
rulecraft: 1
name: big
checks:
  parity:
    inputs:
      n: {type: int, min: 0}
    roll: {d: {die: 2}}
    outcomes: [even, odd]
    outcome: "odd if n % 2 == 1 else even"
"""


def test_a_whole_number_is_sent_as_typed_however_long(page: Page, server: str) -> None:
    """A whole-number field was sent as `Number(field.value)`: 9007199254740993 went as
    9007199254740992 and rolled `even` (hunt 13i). Now the text typed, which the server reads
    exactly; a sweep's end, which the API takes as a JSON number, past 2^53 is said, not sent."""
    _load(page, server, "chill")
    page.fill("#source", BIG)
    expect(page.locator("#validity")).to_have_text("valid")
    page.fill("#inputs [name='n']", "9007199254740993")
    with page.expect_request("**/api/roll") as asked:
        page.click("#roll")
    assert json.loads(asked.value.post_data or "{}")["inputs"] == {"n": "9007199254740993"}
    expect(page.locator("#outcome")).to_have_text("odd")
    expect(page.locator("#errors li")).to_have_count(0)
    page.select_option("#sweep-input", "n")
    page.fill("#sweep-from", "9007199254740993")
    page.fill("#sweep-to", "9007199254740995")
    page.click("#sweep")
    said = "sweep from: 9007199254740993 is too large for this page to send exactly"
    expect(page.locator("#errors li")).to_have_text(said)
    page.fill("#sweep-from", "9007199254740")
    page.fill("#sweep-to", "9007199254741")
    page.click("#sweep")
    expect(page.locator("#sweep-chart svg g.series polyline")).to_have_count(2)
    expect(page.locator("#errors li")).to_have_count(0)


def test_act_sends_inputs_as_the_command_line_reads_them(page: Page, server: str) -> None:
    """The Act form's `name=value` pairs were split at commas too (`dice=1,0,2` became three
    inputs) and read as JavaScript numbers: `Infinity` and `1e999` sent as null, `0x10` as 16,
    12345678901234567891 rounded, `__proto__=3` dropped. Now each value is sent as typed, the
    text `--input NAME=VALUE` gives, for the ruleset to read."""
    _load(page, server, "chill")
    typed = "dice=1,0,2 t=Infinity x=1e999 big=12345678901234567891 h=0x10 __proto__=3 e="
    read = page.evaluate("(typed) => JSON.stringify(pairs(typed))", typed)
    assert json.loads(read) == {
        "dice": "1,0,2",
        "t": "Infinity",
        "x": "1e999",
        "big": "12345678901234567891",
        "h": "0x10",
        "__proto__": "3",
        "e": "",
    }
    log = page.locator("#campaign-log li")
    expect(log).not_to_have_count(0)
    before = log.count()
    page.fill("#act-action", "player_roll")
    for typed, said in [
        ("target=55 target=60", "input 'target' is given twice: give each name once"),
        ("target 55", "input 'target' is not of the form NAME=VALUE"),
        ("=55", "input '=55' is not of the form NAME=VALUE"),
    ]:
        page.fill("#act-inputs", typed)
        page.click("#act")
        expect(page.locator("#campaign-errors li")).to_have_text(said)
    page.fill("#act-inputs", "target=0x10")  # the engine's word, as on the command line
    page.click("#act")
    expect(page.locator("#campaign-errors li")).to_contain_text("input 'target' = '0x10' is not a number")
    page.fill("#act-inputs", "  target=55  ")
    with page.expect_request("**/api/campaigns/mycase/act") as asked:
        page.click("#act")
    assert json.loads(asked.value.post_data or "{}")["inputs"] == {"target": "55"}
    expect(log).to_have_count(before + 1)
    expect(page.locator("#campaign-errors li")).to_have_count(0)


def test_the_distribution_waits_for_its_turn_on_a_server_of_one(lone_page: Page, lone: str) -> None:
    """With `--workers 1 --queue 0` Distribution always failed: the distribution and the policies
    chart were asked at once, and the second was refused (503) while the first was solved."""
    page = lone_page
    _load(page, lone, "chimera")
    page.locator("#check-list button", has_text="skill").click()
    page.click("#exact")
    expect(page.locator("#chart-card")).to_be_visible()
    expect(page.locator("#chart svg")).to_have_count(1)
    expect(page.locator("#policies-chart svg")).to_have_count(1)
    expect(page.locator("#errors li")).to_have_count(0)
    expect(page.locator("#status")).to_have_text("ready")


def _answer(code: int, kind: str, body: str) -> Any:
    """A route handler that answers in the server's place."""
    return lambda route: route.fulfill(status=code, content_type=kind, body=body)


def test_an_answer_that_is_not_the_apis_is_one_plain_message(page: Page, server: str) -> None:
    """After a failed Roll the header said "ready" under a "1 error" badge; a 200 answer with an
    HTML body showed "TypeError: r.trace is not iterable", and a 504 with an HTML body labelled
    JSON "SyntaxError: Unexpected token…"."""
    source = _load(page, server, "chill")
    page.locator("#check-list button", has_text="specific").click()
    page.fill("#inputs input[name='target']", "55")
    page.fill("#source", source.replace("outcomes:", "outcomez:", 1))
    expect(page.locator("#validity")).not_to_have_text("valid")
    expect(page.locator("#status")).to_have_text("fix the errors to roll")
    page.click("#roll")
    expect(page.locator("#errors li")).not_to_have_count(0)
    page.wait_for_timeout(500)  # the roll's answer came: the header still says what the text needs
    expect(page.locator("#status")).to_have_text("fix the errors to roll")

    page.fill("#source", source)
    expect(page.locator("#validity")).to_have_text("valid")
    expect(page.locator("#status")).to_have_text("ready")
    page.expect_failures = True  # type: ignore[attr-defined]
    plain = "the server's answer (HTTP {}, {}) is not one this page can read: try again, or ask its operator"
    for code, kind, body in [
        (200, "text/html", "<html>oops</html>"),
        (504, "application/json", "<html>gateway timeout</html>"),
        (502, "text/html", "<html><h1>502 Bad Gateway</h1></html>"),
        (500, "application/json", '{"detail": "boom"}'),
    ]:
        page.route("**/api/roll", _answer(code, kind, body))
        page.click("#roll")
        expect(page.locator("#errors li")).to_have_text(plain.format(code, kind))
        expect(page.locator("#roll-card")).to_be_hidden()
        expect(page.locator("#status")).to_have_text("ready")
        page.unroute("**/api/roll")
    page.route("**/api/chart/distribution", _answer(200, "application/json", '{"not": "a chart"}'))
    page.click("#exact")
    expect(page.locator("#errors li")).to_have_text(plain.format(200, "application/json"))
    # no answer at all (the server stopped): said in words, not the browser's "Failed to fetch"
    page.route("**/api/roll", lambda route: route.abort("connectionrefused"))
    page.click("#roll")
    expect(page.locator("#errors li")).to_have_text(
        "the server did not answer (is rulecraft serve still running, and this page's address right?)"
        ": try again"
    )
    page.unroute("**/api/roll")


def test_a_caret_past_the_part_of_a_long_line_shown_is_said_as_its_column(page: Page, server: str) -> None:
    """The server cuts a source line at 2,000 characters; the page put 2,135 spaces and a caret
    under it, past its end."""
    _load(page, server, "chill")
    far = (
        "rulecraft: 1\nname: coin\nchecks:\n  flip:\n    roll: {d: {die: 2}}\n    outcomes: [tails, heads]\n"
        '    outcome: "' + " " * 2100 + 'heads if d == 2 else tailz"\n'
    )
    page.fill("#source", far)
    excerpt = page.locator("#diagnostics li.diag .excerpt")
    expect(excerpt).to_have_count(1)
    shown = excerpt.text_content() or ""
    assert shown.endswith("…\n(column 2136, past the part of the line shown)")
    assert "^" not in shown
    near = far.replace(" " * 2100, " " * 100)
    page.fill("#source", near)  # within the line: the caret, under the name, as before
    expect(excerpt).to_have_text(near.split("\n")[6] + "\n" + " " * 135 + "^" * 5)


def test_a_caret_after_tabs_wide_characters_and_an_emoji_stands_under_its_place(
    page: Page, server: str
) -> None:
    """The page's caret put one space per UTF-16 unit before the place: a tab drawn eight columns
    wide stood over one space, 漢 over one of its two columns, and an emoji (two units, one
    character to the engine) pushed the caret a column too far. The blank now keeps the tabs and
    is as wide as what it stands under, as the command line's (`positions.blank`), and a jump to
    the place counts characters, not units."""
    _load(page, server, "chill")
    text = (
        "rulecraft: 1\nname: coin\nchecks:\n  flip:\n    roll: {d: {die: 2}}\n    outcomes: [tails, heads]\n"
        "    outcome: \"'漢🎲'\tif tailz else 'heads'\"\n"
    )
    page.fill("#source", text)
    excerpt = page.locator("#diagnostics li.diag .excerpt")
    expect(excerpt).to_have_count(1)
    line = text.split("\n")[6]
    # `    outcome: "'` is 15 columns, 漢 and 🎲 two each, `'` one, the tab kept: tailz under carets
    expect(excerpt).to_contain_text("^^^^^")
    # exactly (`to_have_text` would fold the blank's spaces and tab into one)
    assert excerpt.text_content() == line + "\n" + " " * 15 + "  " + "  " + " " + "\t" + "   " + "^" * 5
    page.locator("#diagnostics li.diag button.where").click()
    at = page.evaluate("() => document.getElementById('source').selectionStart")
    assert at == len(text[: text.index("tailz")].encode("utf-16-le")) // 2  # the textarea's units


def test_the_page_counts_every_character_s_columns_as_the_command_line_does(page: Page, server: str) -> None:
    """The page had a table of wide characters of its own: about 300 symbols (☀, ⛰, 🕐 ...) it
    counted two columns that the command line, as a terminal, counts one. It reads the command
    line's table now (`engine/syntax/widths.json`); every code point is counted alike."""
    from engine.syntax.positions import _width

    _load(page, server, "chill")
    theirs = page.evaluate(
        """(top) => { const out = [];
            for (let p = 0; p <= top; p++) out.push(widths([String.fromCodePoint(p)])[0]);
            return out.join(""); }""",
        sys.maxunicode,
    )
    ours = "".join(str(_width(chr(point))) for point in range(sys.maxunicode + 1))
    differ = [hex(i) for i, (a, b) in enumerate(zip(theirs, ours, strict=True)) if a != b]
    assert not differ, f"{len(differ)} code points differ: {differ[:20]}"


CARETS = [
    ("x: '\U0001f468\u200d\U0001f469\u200d\U0001f467' y", 12, 13),  # after a family: 2 columns
    ("x: '\U0001f468\u200d\U0001f469\u200d\U0001f467' y", 7, 8),  # on its second emoji
    ("x: '\U0001f3f3\ufe0f\u200d\U0001f308' y", 11, 12),  # after a rainbow flag
    ("x: '\u2602\ufe0f\u2600' y", 10, 11),  # an umbrella asked as emoji (2), a sun (1)
    ("x: 'e\u0301' y", 6, 7),  # on a combining accent
    ("x: '漢\u0301\u0302'\ty", 6, 10),  # on two marks on a wide character, to past the tab
    ("\u0301x", 1, 2),  # a mark on nothing
    ("a\t\u0301b", 3, 4),  # a mark after a tab
    ("x: '\u0915\u094d\u200d\u0937' y", 11, 12),  # a letter joined by U+200D keeps its column
    ("x: '\U0001f9d1\u200d\u2695\ufe0f' y", 11, 12),  # 🧑‍⚕️: a joined symbol asked as an emoji, 2
]


def test_the_page_s_carets_stand_where_the_command_line_s_do(page: Page, server: str) -> None:
    """A caret on a combining mark stood under the next character, on both sides; a family of
    emoji joined by U+200D was counted six columns, where a terminal draws two. The page lays
    each of these out exactly as the command line (`Span.excerpt`, without its indent)."""
    from engine.syntax.positions import SourceFile, Span

    _load(page, server, "chill")
    for line, col, end in CARETS:
        ours = "\n".join(
            x[2:] for x in Span(SourceFile("f.yaml", line), 1, col, 1, end).excerpt().split("\n")
        )
        d = {"source_line": line, "line": 1, "column": col, "end_line": 1, "end_column": end}
        assert page.evaluate("(d) => caret(d)", d) == ours, (line, col)


def test_a_caret_on_a_combining_mark_stands_under_the_character_it_is_drawn_on(
    page: Page, server: str
) -> None:
    """An expression that starts with a combining accent (U+0301): its caret stood under the `t`
    after it; the accent is drawn on the `"` before it, and so is its caret, and a jump to the
    place puts the cursor before the `"`, not between it and its accent."""
    _load(page, server, "chill")
    text = (
        "rulecraft: 1\nname: coin\nchecks:\n  flip:\n    roll: {d: {die: 2}}\n    outcomes: [tails, heads]\n"
        '    outcome: "\u0301tails if d == 2 else heads"\n'
    )
    page.fill("#source", text)
    excerpt = page.locator("#diagnostics li.diag .excerpt")
    expect(excerpt).to_have_count(1)
    assert excerpt.text_content() == text.split("\n")[6] + "\n" + " " * 13 + "^"
    page.locator("#diagnostics li.diag button.where").click()
    at = page.evaluate("() => document.getElementById('source').selectionStart")
    assert at == text.index('"\u0301')


def test_a_long_ruleset_draws_only_the_line_numbers_near_the_view(page: Page, server: str) -> None:
    """250,000 lines froze the page for 12 s and each keystroke took ~2 s: the gutter had a row
    per line, all made at once and laid out again on every key. It draws at most 2,000 now."""
    _load(page, server, "chill")
    head = (
        "rulecraft: 1\nname: coin\nchecks:\n  flip:\n    roll: {d: {die: 2}}\n"
        '    outcomes: [tails, heads]\n    outcome: "heads if d == 2 else tails"\n'
    )
    text = head + "#\n" * 30_000 + "oops: 1\n"
    lines = text.count("\n") + 1
    page.evaluate(
        """(text) => { const src = document.getElementById("source"); src.value = text;
            src.dispatchEvent(new Event("input")); }""",
        text,
    )
    expect(page.locator("#diagnostics li.diag")).to_have_count(1)
    rows = page.locator("#gutter .ln")
    expect(rows).to_have_count(2000)
    expect(rows.first).to_have_text("1")
    expect(page.locator("#gutter .mark")).to_have_count(0)  # the mark's line is far below the view
    page.click("#diagnostics li.diag .where")  # to the line: its row is drawn, and marked
    mark = page.locator("#gutter .mark.error")
    expect(mark).to_have_text(str(lines - 1))
    expect(mark).to_have_attribute("data-code", "RC102")
    expect(rows).to_have_count(2000)
    expect(rows.last).to_have_text(str(lines))
    box = page.locator("#gutter").bounding_box()
    cell = mark.bounding_box()
    assert box is not None and cell is not None
    assert box["y"] <= cell["y"] <= box["y"] + box["height"]  # in view
    band = page.locator(f"#marks .band[data-line='{lines - 1}']").bounding_box()
    assert band is not None and abs(band["y"] - cell["y"]) < 1.5  # beside its line's band
    page.keyboard.type("x")  # a key at the end: the rows stay, the mark goes till the text is checked
    expect(page.locator("#gutter .mark")).to_have_count(0)
    expect(rows).to_have_count(2000)
    page.evaluate("() => { document.getElementById('source').scrollTop = 0; }")
    expect(rows.first).to_have_text("1")


def _post(url: str, body: dict[str, Any]) -> Any:
    asked = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"content-type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(asked, timeout=60) as answer:
        return json.load(answer)


def test_a_long_log_shows_its_newest_200_events_and_says_what_it_leaves_out(page: Page, server: str) -> None:
    """The page asked for the whole log; the server answers a page of it now, and the page asks for
    the newest 200 events, saying which are left out. A campaign named to sort after `mycase`, so
    the page's other tests still open on that one."""
    _post(server + "api/campaigns", {"name": "zlong", "ruleset": "chill", "params": {"players": 2}})
    for seed in range(204):  # 205 events with the making
        _post(
            server + "api/campaigns/zlong/roll", {"check": "specific", "inputs": {"target": 50}, "seed": seed}
        )
    page.reload()
    with page.expect_request("**/api/campaigns/zlong/log?newest=true&limit=200"):
        page.select_option("#campaign-list", "zlong")
    log = page.locator("#campaign-log li.event")
    expect(log).to_have_count(200)
    expect(page.locator("#campaign-log > li").first).to_have_text(
        "events #1 to #5 are not shown (GET /log pages through them)"
    )
    expect(log.last.locator(".what")).to_contain_text("roll")


# -- found by a hunt through the campaign card (2026-12-07) -------------------------------------------

# The server's answer when its campaign store has gone (its file replaced by a folder), with a
# hint added to see it shown.
_FOLDER = "the server's campaign store is a folder, not a rulecraft campaign database"
STORE_GONE = json.dumps(
    {
        "error": {
            "status": 503,
            "diagnostics": [
                {
                    "code": "RC903",
                    "severity": "error",
                    "message": _FOLDER,
                    "file": None,
                    "line": None,
                    "column": None,
                    "end_line": None,
                    "end_column": None,
                    "source_line": None,
                    "hint": None,
                    "api_hint": "ask the server's operator",
                    "text": "error RC903: " + _FOLDER,
                }
            ],
        }
    }
)


def test_a_campaign_store_that_fails_is_said_with_its_diagnostic(page: Page, server: str) -> None:
    """With the store unreachable (503 RC903) the State box said "no campaigns to show" and the
    diagnostic was dropped; after Refresh the old list and log stayed beside that sentence; a
    failed read of a campaign said only "could not read the campaign", without its code."""
    state = page.locator("#campaign-state")
    log = page.locator("#campaign-log li")
    listed = page.locator("#campaign-list option")
    errors = page.locator("#campaign-errors li")
    expect(state).to_contain_text('"campaign": "mycase"')
    expect(log).not_to_have_count(0)
    page.expect_failures = True  # type: ignore[attr-defined]
    gone = (
        "error RC903: the server's campaign store is a folder, not a rulecraft campaign database\n"
        "  hint: ask the server's operator"
    )

    page.route("**/api/campaigns", _answer(503, "application/json", STORE_GONE))
    page.click("#campaign-refresh")
    expect(errors).to_have_text(gone)
    expect(listed).to_have_count(0)  # what was listed may not be the store's any more
    expect(log).to_have_count(0)
    expect(state).to_have_text("")  # not "no campaigns to show": the store did not say
    page.unroute("**/api/campaigns")

    # no answer at all: said so
    page.route("**/api/campaigns", lambda route: route.abort("connectionrefused"))
    page.click("#campaign-refresh")
    expect(errors).to_have_text(
        "the server did not answer (is rulecraft serve still running, and this page's address right?)"
        ": try again"
    )
    expect(state).to_have_text("")
    page.unroute("**/api/campaigns")

    # listed, but the campaign's read fails: its diagnostic, and no state or log of it on show
    page.route("**/api/campaigns/mycase", _answer(503, "application/json", STORE_GONE))
    page.click("#campaign-refresh")
    expect(page.locator("#campaign-list option[value='mycase']")).to_have_count(1)
    expect(errors).to_have_text(gone)
    expect(state).to_have_text("")
    expect(log).to_have_count(0)
    page.unroute("**/api/campaigns/mycase")

    page.click("#campaign-refresh")  # the store back: the campaign again, and no error
    expect(state).to_contain_text('"campaign": "mycase"')
    expect(log).not_to_have_count(0)
    expect(errors).to_have_count(0)

    # "no campaigns" only when the list is empty, and nothing of the last one left beside it
    page.route("**/api/campaigns", _answer(200, "application/json", "[]"))
    page.click("#campaign-refresh")
    expect(state).to_have_text("no campaigns to show")
    expect(log).to_have_count(0)
    expect(listed).to_have_count(0)
    expect(errors).to_have_count(0)
    page.unroute("**/api/campaigns")


def test_of_two_campaigns_picked_only_the_later_is_shown(page: Page, server: str) -> None:
    """Campaign A picked with its read held back, then B: once A's answer came, the list showed B
    picked but State showed A's state, beside B's log (and Act and Undo went to B). A campaign
    named to sort after `mycase`, so the page's other tests still open on that one."""
    _post(server + "api/campaigns", {"name": "other", "ruleset": "chill", "params": {"players": 2}})
    page.reload()
    state = page.locator("#campaign-state")
    log = page.locator("#campaign-log li")
    expect(page.locator("#campaign-list option[value='other']")).to_have_count(1)
    expect(state).to_contain_text('"campaign": "mycase"')
    theirs = len(_get(server + "api/campaigns/mycase/log?newest=true&limit=200"))
    assert theirs > 1  # mycase's log is not other's (one event)

    held: list[Any] = []
    page.route("**/api/campaigns/other", lambda route: held.append(route))
    page.select_option("#campaign-list", "other")
    _until(page, lambda: len(held) == 1)
    expect(state).to_have_text("reading…")  # mycase's state and log are not left beside other's name
    expect(log).to_have_count(0)
    page.select_option("#campaign-list", "mycase")
    expect(state).to_contain_text('"campaign": "mycase"')
    expect(log).to_have_count(theirs)
    held[0].continue_()
    page.wait_for_timeout(1500)  # other's answer arrives, and is dropped
    expect(page.locator("#campaign-list")).to_have_value("mycase")
    assert '"campaign": "mycase"' in (state.text_content() or "")
    expect(log).to_have_count(theirs)
    page.unroute("**/api/campaigns/other")

    page.select_option("#campaign-list", "other")  # and other, picked alone, is shown whole
    expect(state).to_contain_text('"campaign": "other"')
    expect(log).to_have_count(1)
    page.click("#campaign-refresh")  # the list read again: the campaign picked stays picked
    expect(page.locator("#campaign-list")).to_have_value("other")
    expect(state).to_contain_text('"campaign": "other"')


MANY_CHOICES = (
    "rulecraft: 1\nname: many\nscales:\n  s: [{members}]\nchecks:\n  pick:\n    inputs:\n"
    "      who: {{type: choice, choices: s, default: m250}}\n    roll: {{d: {{die: 2}}}}\n"
    "    outcomes: [lo, hi]\n    outcome: \"'hi' if who >= 'm250' else 'lo'\"\n"
).format(members=", ".join(f"m{i}" for i in range(300)))


def test_a_choice_past_the_listed_ones_can_be_typed_and_is_the_default(page: Page, server: str) -> None:
    """Found by hunt 13zc: the API lists 200 choices (and how many it left out), and the page's
    select held those alone, so a default of the 251st was no value ("who: give a value") and the
    rest could never be picked. With choices left out the field is typed, the listed offered."""
    _load(page, server, "chill")
    page.fill("#source", MANY_CHOICES)
    expect(page.locator("#validity")).to_have_text("valid")
    field = page.locator("#inputs [name='who']")
    expect(field).to_have_value("m250")
    expect(page.locator("#inputs datalist option")).to_have_count(200)
    with page.expect_request("**/api/roll") as asked:
        page.click("#roll")
    assert json.loads(asked.value.post_data or "{}")["inputs"] == {"who": "m250"}
    expect(page.locator("#outcome")).to_have_text("hi")
    field.fill("m299")
    page.click("#roll")
    expect(page.locator("#outcome")).to_have_text("hi")
    field.fill("m3")
    page.click("#roll")
    expect(page.locator("#outcome")).to_have_text("lo")


def test_undo_never_reverses_a_change_the_page_did_not_show(page: Page, server: str) -> None:
    """Two tabs on one campaign: the second's Undo reversed the change the first had just made,
    which the second never showed (hunt 13zt). The page sends the newest event it shows as
    `seen`, and an undo past it is refused with its diagnostic; read again, the undo goes. A
    campaign named to sort after `mycase`, so the page's other tests still open on that one."""
    _post(server + "api/campaigns", {"name": "tabs", "ruleset": "chill", "params": {"players": 2}})
    page.reload()
    log = page.locator("#campaign-log li")
    expect(page.locator("#campaign-list option[value='tabs']")).to_have_count(1)
    page.select_option("#campaign-list", "tabs")
    expect(log).to_have_count(1)
    _post(server + "api/campaigns/tabs/act", {"action": "turn_dark", "inputs": {"n": 1}})  # the other tab
    page.click("#undo")
    expect(page.locator("#campaign-errors li")).to_contain_text("has changed since event #1")
    assert [e["kind"] for e in _get(server + "api/campaigns/tabs/log")] == ["new", "action"]  # nothing undone
    page.click("#campaign-refresh")
    expect(log).to_have_count(2)
    page.click("#undo")
    expect(log).to_have_count(3)
    expect(log.nth(2)).to_contain_text("undoes #2")
    expect(page.locator("#campaign-errors li")).to_have_count(0)
    # picked again while its log is still on its way (held back here), another tab having acted:
    # Undo sends nothing, where it sent an undo with no `seen` (hunt 13zv)
    _post(server + "api/campaigns/tabs/act", {"action": "turn_dark", "inputs": {"n": 1}})
    page.select_option("#campaign-list", "mycase")
    expect(page.locator("#campaign-state")).to_contain_text('"campaign": "mycase"')
    held: list[Any] = []
    page.route("**/api/campaigns/tabs/log*", lambda route: held.append(route))
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.url.endswith("/undo") else None)
    page.select_option("#campaign-list", "tabs")
    _until(page, lambda: len(held) == 1)
    page.click("#undo")
    expect(page.locator("#campaign-errors li")).to_contain_text("the campaign's log is not on show yet")
    page.wait_for_timeout(300)
    assert sent == []
    held[0].continue_()
    page.unroute("**/api/campaigns/tabs/log*")
    expect(log).to_have_count(4)
    assert [e["kind"] for e in _get(server + "api/campaigns/tabs/log")][-1] == "action"  # not undone


LONG = """\
rulecraft: 1
name: long
title: {title}
checks:
  {check}:
    inputs:
      q: {{type: number, default: 1, min: 0, max: 3}}
      {name}: {{type: int, default: 1, min: 0, max: 3}}
    roll: {{pool: {{pool: 60, die: 2}}}}
    outcomes: [lo, hi]
    outcome: "'hi' if sum(pool) + q >= 60 else 'lo'"
    outputs:
      faces: pool
""".format(title="T" * 400, check="c" * 150, name="n" * 150)


def test_the_page_s_own_words_long_text_a_sweep_s_ends_and_a_token_no_header_carries(
    page: Page, server: str
) -> None:
    """Hunt 13zt (2026-12-07): a validation the server did not answer listed a bare file name
    under a green "not checked"; a 400-character title, long names and a long value widened the
    page past the window; an end of 0.5 in the sweep's `from` stopped Roll (the browser's bubble
    at that field) and Enter in it rolled; a token with a euro sign was "the server did not
    answer", where the browser had sent nothing."""
    _load(page, server, "chill")
    page.fill("#source", LONG)
    expect(page.locator("#validity")).to_have_text("valid")
    page.select_option("#sweep-input", "q")
    page.fill("#sweep-from", "0.5")
    page.click("#roll")
    expect(page.locator("#outcome")).to_have_text("hi")  # rolled: the sweep's end is not the roll's
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "the page is wider"
    page.locator("#sweep-to").press("Enter")  # sweeps: the end of 0.5 is said, nothing is sent
    expect(page.locator("#errors li")).to_have_text(
        "sweep from: 0.5 is not a whole number (a sweep steps by 1)"
    )
    page.fill("#sweep-from", "0")
    page.fill("#sweep-to", "3")
    page.locator("#sweep-to").press("Enter")
    expect(page.locator("#sweep-chart svg")).to_have_count(1)
    expect(page.locator("#errors li")).to_have_count(0)

    page.expect_failures = True  # type: ignore[attr-defined]
    page.route("**/api/validate", lambda route: route.abort("connectionrefused"))
    page.fill("#source", LONG.replace("lo", "low"))
    diagnostics = page.locator("#diagnostics li")
    expect(diagnostics).to_have_count(1)
    expect(diagnostics.locator(".message")).to_have_text(
        "the server did not answer (is rulecraft serve still running, and this page's address right?)"
        ": try again"
    )
    expect(page.locator("#validity")).to_have_text("not checked")
    expect(page.locator("#validity")).to_have_class("badge bad")
    page.unroute("**/api/validate")

    page.fill("#act-token", "s3cret€")
    with_token = page.locator("#campaign-errors li")
    page.fill("#act-action", "player_roll")
    page.click("#act")
    expect(with_token).to_contain_text(
        "the token begins or ends with a space, or holds a character a request's header cannot carry"
    )
