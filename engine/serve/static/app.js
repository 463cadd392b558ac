// The rulecraft playground: an editor that validates as you type, a check's inputs as a form,
// a roll with its trace, and the server's SVG charts. No framework and nothing fetched from
// elsewhere: every request goes to the same server's /api. Text from the server or from a
// ruleset is put into the page with textContent, never parsed as HTML; a chart is parsed as
// SVG (the server escapes every name in it) and only an <svg> root is taken.
"use strict";

const $ = (id) => document.getElementById(id);
const state = {
  checks: {}, check: null, drawn: null, timer: null, asked: 0, lineHeight: 20,
  answers: { roll: 0, chart: 0, sweep: 0 }, // one count per card: only its latest question's answer is shown
  loading: 0, // the same for a ruleset being loaded
  pending: 0, // questions of any card still on their way (the header says "solving…" until none is)
  settled: "ready", // what the header says once none is: the last validation's word on the text
  pristine: "", // the text as it was loaded, to tell whether the author's edits would be lost
  escaped: false, // Escape was the last key in the editor: the next Tab leaves it
};

// Names from a ruleset (an input called `constructor`, `toString` or `__proto__`) key these maps:
// a map without a prototype holds any name as its own, and `in` or `[]` sees nothing built in.
function names() { return Object.create(null); }

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function unexpected(res) {
  // An answer that is not what the API gives (a proxy's HTML error page, a cut-off body): one
  // plain sentence, never a script's own error (`r.trace is not iterable`, `Unexpected token`).
  const type = res ? ` (HTTP ${res.status}, ${(res.headers.get("content-type") || "no type").split(";")[0]})` : "";
  const text = `the server's answer${type} is not one this page can read: try again, or ask its operator`;
  return Object.assign(new Error(text), { diagnostics: [{ text }] });
}

async function api(path, body, token, want = "json") {
  // The answer to a request: JSON, or for a chart (`want` "svg") the SVG's text; an error's
  // diagnostics, or one plain sentence when the answer is not the API's JSON (or SVG) at all.
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = "Bearer " + token;
  const init = body === undefined ? {} : { method: "POST", headers, body: JSON.stringify(body) };
  let res;
  try {
    res = await fetch("api/" + path, init);
  } catch {
    // the server did not answer at all (stopped, the network down): the browser's own words
    // are "Failed to fetch" or "NetworkError when attempting to fetch resource"
    const text = "the server did not answer (is rulecraft serve still running, and this page's address right?): try again";
    throw Object.assign(new Error(text), { diagnostics: [{ text }] });
  }
  const type = res.headers.get("content-type") || "";
  let data = null;
  if (type.includes("json")) {
    try {
      data = await res.json();
    } catch {
      data = null;
    }
  } else if (res.ok && want === "svg" && type.includes("svg")) {
    return res.text();
  }
  if (!res.ok) {
    const diags = data && data.error && data.error.diagnostics;
    if (Array.isArray(diags) && diags.length) throw Object.assign(new Error("request failed"), { diagnostics: diags });
    throw unexpected(res);
  }
  if (data === null || typeof data !== "object" || want !== "json") throw unexpected(res);
  return data;
}

function status(text) { $("status").textContent = text; }

function settle(text) {
  // the text's state, shown now unless a question is on its way, and again once none is
  state.settled = text;
  if (!state.pending) status(text);
}

// A diagnostic's hint is the server's `api_hint`, worded for this page: its `hint` and `text` are
// the command line's, whose hints may name flags a page cannot pass (`--input skill=VALUE`).

const CUT = 2000; // the most characters of a source line the server sends (then `…`): MAX_TEXT

// Characters a monospaced line shows two columns wide (East Asian wide and fullwidth: CJK,
// Hangul, kana, fullwidth forms, most emoji), and marks that take none: as the command line's
// caret counts them (`positions.blank`).
const WIDE = /[\u1100-\u115F\u231A\u231B\u2329\u232A\u23E9-\u23EC\u23F0\u23F3\u25FD\u25FE\u2614\u2615\u2648-\u2653\u267F\u2693\u26A1\u26AA\u26AB\u26BD\u26BE\u26C4\u26C5\u26CE\u26D4\u26EA\u26F2\u26F3\u26F5\u26FA\u26FD\u2705\u270A\u270B\u2728\u274C\u274E\u2753-\u2755\u2757\u2795-\u2797\u27B0\u27BF\u2B1B\u2B1C\u2B50\u2B55\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uA960-\uA97F\uAC00-\uD7A3\uF900-\uFAFF\uFE10-\uFE19\uFE30-\uFE6F\uFF00-\uFF60\uFFE0-\uFFE6\u{16FE0}-\u{18CFF}\u{1B000}-\u{1B2FF}\u{1F004}\u{1F0CF}\u{1F18E}\u{1F191}-\u{1F19A}\u{1F200}-\u{1F251}\u{1F300}-\u{1F64F}\u{1F680}-\u{1F6FF}\u{1F7E0}-\u{1F7EB}\u{1F90C}-\u{1F9FF}\u{1FA70}-\u{1FAFF}\u{20000}-\u{2FFFD}\u{30000}-\u{3FFFD}]/u;
const NO_WIDTH = /[\p{Mn}\p{Me}\p{Cf}]/u;

function columns(c) {
  return c === "\t" ? 1 : NO_WIDTH.test(c) ? 0 : WIDE.test(c) ? 2 : 1;
}

function caret(d) {
  // The source line with a caret under the place, as the command line prints it; null without
  // one. The server cuts a long line (at 2,000 characters, with `…`): a place past what is shown
  // is said as its column, and a caret is never longer than the line it underlines. A column
  // counts characters (code points, as the engine does, not JavaScript's UTF-16 units); the
  // blank before the caret keeps the line's tabs and is as wide as what it stands under.
  if (d.source_line === null || d.source_line === undefined || !d.column) return null;
  const line = String(d.source_line);
  const chars = Array.from(line);
  // the last column a caret may stand in: one past the end of a whole line, the last one shown of a cut one
  const last = chars.length > CUT ? CUT : chars.length + 1;
  if (d.column > last) return `${line}\n(column ${d.column}, past the part of the line shown)`;
  const wide = d.end_line === d.line && d.end_column > d.column ? d.end_column - d.column : 1;
  const width = Math.max(1, Math.min(wide, last + 1 - d.column));
  const before = chars.slice(0, d.column - 1).map((c) => (c === "\t" ? "\t" : " ".repeat(columns(c)))).join("");
  const under = chars.slice(d.column - 1, d.column - 1 + width).reduce((n, c) => n + columns(c), 0);
  return `${line}\n${before}${"^".repeat(Math.max(1, under))}`;
}

function described(d) {
  // a server's diagnostic as the command line lays it out, with the page's hint; the page's own
  // problems (an unreadable field, an answer that is no JSON) are their text alone
  if (!d.code) return d.text || d.message;
  const where = d.file ? `${d.file}${d.line ? `:${d.line}:${d.column}` : ""}: ` : "";
  const lines = [`${where}${d.severity} ${d.code}: ${d.message}`];
  const excerpt = caret(d);
  if (excerpt) lines.push(excerpt.replace(/^/gm, "  "));
  if (d.api_hint) lines.push("  hint: " + d.api_hint);
  return lines.join("\n");
}

function showErrors(err, where = "errors") {
  const list = $(where);
  list.replaceChildren();
  for (const d of (err && err.diagnostics) || []) list.append(el("li", described(d)));
  if (err && !err.diagnostics) list.append(el("li", String(err)));
}

// -- the editor ---------------------------------------------------------------------------------

function lineCount(text) {
  let n = 1;
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) n++;
  return n;
}

// The gutter draws the line numbers near the view only, at most ROWS of them, between two empty
// rows as tall as the lines above and below: a ruleset of 250,000 lines costs ROWS rows, and a
// keystroke only the rows it adds or takes away at the end (and a scroll far away, ROWS new ones).
const ROWS = 2000;
const gutter = { lines: 0, from: 1, to: 0, marked: new Map(), cells: [] };

function drawGutter(diagnostics) {
  gutter.lines = lineCount($("source").value);
  gutter.marked = new Map();
  for (const d of diagnostics) if (d.line) gutter.marked.set(d.line, [...(gutter.marked.get(d.line) || []), d]);
  const marks = $("marks");
  marks.replaceChildren();
  for (const [n, here] of gutter.marked) {
    const band = el("div", null, "band " + worst(here));
    band.style.top = `${(n - 1) * state.lineHeight}px`;
    band.dataset.line = n;
    marks.append(band);
  }
  syncScroll(true);
}

function worst(here) {
  return ["error", "warning", "note"].find((s) => here.some((d) => d.severity === s)) || "note";
}

function drawRows(marksChanged) {
  // The rows from..to, kept where they can be: moved only when the view nears the edge of them.
  const box = $("gutter");
  if (!box.firstElementChild) box.append(el("div", null, "pad"), el("div", null, "pad"));
  const src = $("source");
  const first = Math.floor(src.scrollTop / state.lineHeight) + 1;
  const seen = Math.ceil(src.clientHeight / state.lineHeight) + 1;
  const margin = Math.floor((ROWS - seen) / 4);
  const end = Math.min(gutter.lines, gutter.from + ROWS - 1);
  const above = gutter.from > 1 && first - margin < gutter.from;
  const below = end < gutter.lines && first + seen + margin > end;
  if (above || below || gutter.from > Math.max(1, gutter.lines - ROWS + 1)) {
    const from = Math.max(1, Math.min(first - Math.floor((ROWS - seen) / 2), gutter.lines - ROWS + 1));
    if (from !== gutter.from) {
      for (const cell of gutter.cells) cell.remove();
      gutter.cells = [];
      gutter.from = from;
      gutter.to = from - 1;
      marksChanged = true;
    }
  }
  const to = Math.min(gutter.lines, gutter.from + ROWS - 1);
  const bottom = box.lastElementChild;
  while (gutter.to > to) { gutter.cells.pop().remove(); gutter.to--; }
  while (gutter.to < to) {
    const cell = el("div", ++gutter.to, "ln");
    bottom.before(cell);
    gutter.cells.push(cell);
    if (gutter.marked.has(gutter.to)) marksChanged = true;
  }
  box.firstElementChild.style.height = `${(gutter.from - 1) * state.lineHeight}px`;
  bottom.style.height = `${Math.max(0, gutter.lines - gutter.to) * state.lineHeight}px`;
  if (marksChanged) markRows();
}

function markRows() {
  // only marked rows are unmarked, and only the marked lines drawn are marked
  for (const cell of [...$("gutter").querySelectorAll(".mark")]) {
    cell.className = "ln";
    delete cell.dataset.code;
    cell.removeAttribute("title");
  }
  for (const [n, here] of gutter.marked) {
    const cell = gutter.cells[n - gutter.from];
    if (!cell) continue;
    cell.classList.add("mark", worst(here));
    cell.dataset.code = here.map((d) => d.code).join(" ");
    cell.title = here.map((d) => `${d.code}: ${d.message}`).join("\n");
  }
}

function syncScroll(marksChanged = false) {
  drawRows(marksChanged === true);
  const src = $("source");
  $("gutter").scrollTop = src.scrollTop;
  $("marks").style.transform = `translate(${-src.scrollLeft}px, ${-src.scrollTop}px)`;
}

function drawDiagnostics(diagnostics) {
  const list = $("diagnostics");
  list.replaceChildren();
  for (const d of diagnostics) {
    const item = el("li", null, "diag " + d.severity);
    item.dataset.line = d.line ?? "";
    item.dataset.code = d.code;
    const file = d.file || $("file-name").value || "mine.yaml";
    const where = d.line ? `${file} line ${d.line}${d.column ? ":" + d.column : ""}` : file;
    const jump = el("button", where, "where");
    jump.type = "button";
    jump.addEventListener("click", () => goToLine(d.line, d.column));
    item.append(jump, el("span", d.code, "code"), el("span", d.message, "message"));
    const excerpt = caret(d);
    if (excerpt) item.append(el("pre", excerpt, "excerpt"));
    if (d.api_hint) item.append(el("div", "hint: " + d.api_hint, "hint"));
    list.append(item);
  }
  const count = (s) => diagnostics.filter((d) => d.severity === s).length;
  const [errors, warnings, notes] = [count("error"), count("warning"), count("note")];
  const badge = $("validity");
  badge.textContent = errors ? `${errors} error${errors > 1 ? "s" : ""}` :
    warnings ? `${warnings} warning${warnings > 1 ? "s" : ""}` :
    notes ? `${notes} note${notes > 1 ? "s" : ""}` : "valid";
  badge.className = "badge " + (errors ? "bad" : "good");
}

function goToLine(line, column) {
  if (!line) return;
  const src = $("source");
  const lines = src.value.split("\n");
  let at = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) at += lines[i].length + 1;
  // a column counts characters; the textarea's offsets count UTF-16 units (an emoji is two)
  at += Array.from(lines[line - 1] || "").slice(0, Math.max(0, (column || 1) - 1)).join("").length;
  src.focus();
  src.setSelectionRange(at, at);
  src.scrollTop = Math.max(0, (line - 5) * state.lineHeight);
}

function reference() {
  return { source: $("source").value, name: $("file-name").value || "mine.yaml" };
}

async function validate() {
  const asked = ++state.asked;
  status("checking…");
  try {
    const result = await api("validate", reference());
    if (asked !== state.asked) return; // a later edit's answer is on its way
    drawGutter(result.diagnostics);
    drawDiagnostics(result.diagnostics);
    if (result.ok) setChecks(result.checks || {});
    settle(result.ok ? "ready" : "fix the errors to roll");
  } catch (err) {
    // the text could not be checked (over the server's size limit, the server gone): say so
    // where the diagnostics are, instead of leaving the last text's list and badge up
    if (asked !== state.asked) return;
    drawGutter([]);
    drawDiagnostics((err && err.diagnostics) || [{ severity: "error", code: "", message: String(err) }]);
    $("validity").textContent = "not checked";
    settle("could not validate");
  }
}

function edited() {
  clearAnswers(); // what is on show answered the text as it was
  drawGutter([]);
  clearTimeout(state.timer);
  state.timer = setTimeout(validate, 300);
}

// -- checks and their inputs --------------------------------------------------------------------

function setChecks(checks) {
  const same = JSON.stringify(checks) === JSON.stringify(state.checks);
  state.checks = checks;
  const names = Object.keys(checks);
  if (!names.includes(state.check)) state.check = names[0] || null;
  const list = $("check-list");
  const focused = list.contains(document.activeElement); // a redraw keeps the keyboard on the tabs
  list.replaceChildren();
  names.forEach((name, i) => {
    const active = name === state.check;
    const b = el("button", name, active ? "check active" : "check");
    b.type = "button";
    b.id = "check-tab-" + i;
    b.setAttribute("role", "tab");
    b.setAttribute("aria-selected", String(active));
    b.setAttribute("aria-controls", "inputs-form");
    b.tabIndex = active ? 0 : -1; // one stop in the tab order; the arrow keys move along the list
    b.addEventListener("click", () => pickCheck(name));
    list.append(b);
    if (active) {
      $("inputs-form").setAttribute("aria-labelledby", b.id);
      if (focused) b.focus();
    }
  });
  if (!same) clearAnswers(); // the checks changed (a default, an input): the answers on show may not hold
  if (!same || !state.drawn || state.drawn !== state.check) drawForm();
}

function pickCheck(name) {
  if (state.check !== name) clearAnswers();
  state.check = name;
  setChecks(state.checks);
}

// The check list is a tablist (WAI-ARIA's tabs pattern, selection following focus): Left and
// Right move to the previous and next check, wrapping round, Home and End to the first and last.
function tabKeys(event) {
  const names = Object.keys(state.checks);
  const at = names.indexOf(state.check);
  if (at < 0) return;
  const to = {
    ArrowLeft: (at - 1 + names.length) % names.length,
    ArrowRight: (at + 1) % names.length,
    Home: 0,
    End: names.length - 1,
  }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  pickCheck(names[to]);
}

function checkInfo() {
  return Object.hasOwn(state.checks, state.check) ? state.checks[state.check] : undefined;
}

function drawForm() {
  const info = checkInfo();
  const old = state.drawn === state.check ? typedInputs() : names(); // keep what was typed for this check
  state.drawn = state.check;
  const box = $("inputs");
  box.replaceChildren(el("legend", "Inputs"));
  $("check-description").textContent = info ? info.description || "" : "";
  if (!info) return;
  if (!info.inputs.length) box.append(el("p", "no inputs", "muted"));
  for (const spec of info.inputs) {
    const label = el("label", spec.name + " ");
    let field;
    if (spec.choices) {
      field = document.createElement("select");
      for (const c of spec.choices) field.append(new Option(c, c));
    } else if (spec.type === "bool") {
      field = document.createElement("input");
      field.type = "checkbox";
    } else if (spec.type !== "int") {
      // a list (`1,0,2`) or a number that may be a fraction (`1/2`): sent as typed, for the
      // ruleset to read, as the command line's text is
      field = document.createElement("input");
      field.type = "text";
      field.spellcheck = false;
      field.placeholder = spec.type === "list" ? "e.g. 1,0,2" : "e.g. 3, 2.5 or 1/2";
    } else {
      field = document.createElement("input");
      field.type = "number";
      field.step = spec.type === "int" ? "1" : "any";
      if (spec.minimum !== undefined && spec.minimum !== null) field.min = spec.minimum;
      if (spec.maximum !== undefined && spec.maximum !== null) field.max = spec.maximum;
    }
    field.name = spec.name;
    field.dataset.type = spec.type;
    // no default: the form must be filled (but a box left unticked is an answer: false)
    if ((spec.default === null || spec.default === undefined) && field.type !== "checkbox") field.required = true;
    const typed = Object.hasOwn(old, spec.name);
    const value = typed ? old[spec.name] : spec.default;
    if (typed) field.dataset.touched = "1"; // what the author typed outlives a new default
    if (field.type === "checkbox") field.checked = Boolean(value);
    else if (Array.isArray(value)) field.value = value.join(",");
    else if (value !== null && value !== undefined) field.value = String(value);
    field.addEventListener("input", () => { field.dataset.touched = "1"; });
    if (spec.description) label.title = spec.description;
    label.append(field);
    const range = spec.choices ? "" : [spec.minimum, spec.maximum].every((v) => v !== undefined && v !== null)
      ? ` ${spec.minimum}–${spec.maximum}` : "";
    label.append(el("small", `${spec.type}${range}`, "muted"));
    box.append(label);
  }
  const policy = $("policy");
  const policies = info.policies && info.policies.length ? info.policies : [];
  const chosen = policy.value;
  policy.replaceChildren(...policies.map((p) => new Option(p, p)));
  if (policies.includes(chosen)) policy.value = chosen;
  policy.disabled = !policies.length;
  const sweep = $("sweep-input");
  const numeric = info.inputs.filter((s) => !s.choices && (s.type === "int" || s.type === "number"));
  sweep.replaceChildren(...numeric.map((s) => new Option(s.name, s.name)));
  const pick = () => {
    const spec = numeric.find((s) => s.name === sweep.value);
    if (!spec) return;
    const lo = spec.minimum ?? 0;
    $("sweep-from").value = lo;
    $("sweep-to").value = Math.min(spec.maximum ?? lo + 20, lo + 40);
  };
  sweep.onchange = pick;
  pick();
  $("sweep").disabled = !numeric.length;
}

function typedInputs() {
  // The fields the author typed in, as typed: a form drawn again keeps them (and only them).
  const out = names();
  for (const field of $("inputs").querySelectorAll("[name]")) {
    if (!field.dataset.touched) continue;
    out[field.name] = field.type === "checkbox" ? field.checked : field.value;
  }
  return out;
}

class FormProblem extends Error {}

function number(field, what) {
  // A number field's value, or a FormProblem: Chromium gives "" both for an empty field and for
  // one it cannot read ("5e", "--3"), and Number() would make "" a 0 and "1e400" Infinity.
  if (field.validity && field.validity.badInput) throw new FormProblem(`${what}: what is typed is not a number`);
  if (field.value.trim() === "") throw new FormProblem(`${what}: give a number`);
  const n = Number(field.value);
  if (!Number.isFinite(n)) throw new FormProblem(`${what}: ${field.value} is not a number this page can send`);
  return n;
}

function checkedInputs() {
  // The inputs to send: an empty or unreadable number is said, not left out (which would
  // quietly roll with the default the author had cleared) nor sent as 0.
  const out = names();
  for (const field of $("inputs").querySelectorAll("[name]")) {
    if (field.type === "checkbox") out[field.name] = field.checked;
    else if (field.type === "number") out[field.name] = number(field, field.name);
    else if (field.value.trim() === "") throw new FormProblem(`${field.name}: give a value`);
    else out[field.name] = field.value;
  }
  return out;
}

function question(extra) {
  const body = { ...reference(), check: state.check, inputs: checkedInputs(), ...extra };
  if (!$("policy").disabled && $("policy").value) body.policy = $("policy").value;
  return body;
}

// -- answers ------------------------------------------------------------------------------------

const CARDS = { roll: ["roll-card"], chart: ["chart-card"], sweep: ["sweep-card"] };

function clearAnswers(which = Object.keys(CARDS)) {
  // Answers that no longer match the form (another ruleset, check or input) are taken away, and
  // any still on their way are dropped when they come (`ask`).
  for (const kind of which) {
    state.answers[kind]++;
    for (const id of CARDS[kind]) $(id).hidden = true;
  }
}

async function ask(kind, work) {
  // Run one card's question; its answer is drawn only if no later question of that card (or a
  // change of the form) came meanwhile, and a failed one leaves no earlier answer on show.
  const asked = ++state.answers[kind];
  showErrors(null);
  state.pending++;
  try {
    const draw = await work();
    if (asked !== state.answers[kind]) return;
    draw();
    for (const id of CARDS[kind]) $(id).hidden = false;
  } catch (err) {
    if (asked !== state.answers[kind]) return;
    for (const id of CARDS[kind]) $(id).hidden = true;
    showErrors(err instanceof FormProblem ? { diagnostics: [{ text: err.message }] } : err);
  } finally {
    if (--state.pending === 0) status(state.settled);
  }
}

function roll(event) {
  event.preventDefault();
  if (!state.check) return undefined;
  return ask("roll", async () => {
    const seedField = $("seed");
    const seed = seedField.value === "" ? undefined : number(seedField, "seed");
    const r = await api("roll", question({ seed, trace: true }));
    if (!Array.isArray(r.trace)) throw unexpected(null);
    return () => {
      $("outcome").textContent = r.outcome;
      const values = $("roll-values");
      values.replaceChildren();
      for (const [k, v] of Object.entries({ ...r.values, ...r.outputs })) {
        values.append(el("dt", k), el("dd", typeof v === "object" ? JSON.stringify(v) : v));
      }
      const trace = $("trace");
      trace.replaceChildren();
      for (const step of r.trace) {
        const item = el("li", null, "step " + step.kind);
        item.append(el("span", step.kind, "kind"), el("span", step.name, "name"),
          el("span", "= " + (typeof step.value === "object" ? JSON.stringify(step.value) : step.value), "value"));
        if (step.detail) item.append(el("div", step.detail, "detail"));
        trace.append(item);
      }
      seedField.value = r.seed;
    };
  });
}

async function svg(path, body) {
  // A chart from the server, parsed as SVG; only an <svg> root without a script is taken.
  status("solving…");
  const text = await api(path, body, undefined, "svg");
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const root = doc.documentElement;
  if (root.nodeName !== "svg" || doc.querySelector("parsererror, script")) {
    throw unexpected(null);
  }
  return document.importNode(root, true);
}

function distribution() {
  if (!state.check) return undefined;
  return ask("chart", async () => {
    const body = question({});
    const info = checkInfo();
    // one after the other: each takes a place in the server's solve pool, and a server with one
    // worker and no queue (`--workers 1 --queue 0`) refuses a second question asked meanwhile
    const chart = await svg("chart/distribution", body);
    const policies = info.policies && info.policies.length > 1 ? await svg("chart/policies", body) : null;
    return () => {
      $("chart").replaceChildren(chart);
      $("policies-chart").replaceChildren(...(policies ? [policies] : []));
    };
  });
}

function sweep() {
  if (!state.check || !$("sweep-input").value) return undefined;
  return ask("sweep", async () => {
    const body = question({
      input: $("sweep-input").value, from: number($("sweep-from"), "sweep from"),
      to: number($("sweep-to"), "sweep to"), stacked: $("sweep-stacked").checked,
    });
    const chart = await svg("chart/sweep", body);
    return () => $("sweep-chart").replaceChildren(chart);
  });
}

// -- rulesets and campaigns ---------------------------------------------------------------------

function dirty() {
  return $("source").value !== state.pristine;
}

async function loadRuleset(name) {
  // The ruleset replaces the editor's text, so edits are not thrown away without a yes; a
  // ruleset asked for after this one wins, whichever answer comes first.
  const pick = $("ruleset-list");
  if (dirty() && !window.confirm("Replace the text you have edited with the ruleset " + name + "?")) {
    pick.value = state.shown || "";
    return;
  }
  const asked = ++state.loading;
  clearAnswers();
  try {
    const rs = await api("rulesets/" + encodeURIComponent(name));
    if (asked !== state.loading) return;
    $("source").value = rs.source;
    state.pristine = rs.source;
    state.shown = name;
    $("file-name").value = name + ".yaml";
    state.check = null;
    state.drawn = null;
    setChecks(rs.checks);
    drawGutter([]);
    await validate();
  } catch (err) { if (asked === state.loading) showErrors(err); }
}

async function campaigns() {
  try {
    const list = await api("campaigns");
    const select = $("campaign-list");
    const items = Array.isArray(list) ? list : list.campaigns || [];
    select.replaceChildren(...items.map((c) => {
      const name = typeof c === "string" ? c : c.name || c.campaign;
      return new Option(name, name);
    }));
    if (items.length) await campaign(select.value);
  } catch (err) { $("campaign-state").textContent = "no campaigns to show"; }
}

const LOG_SHOWN = 200; // the newest events a campaign's log shows

async function campaign(name) {
  try {
    const [shown, log] = await Promise.all([
      api("campaigns/" + encodeURIComponent(name)),
      api("campaigns/" + encodeURIComponent(name) + "/log?newest=true&limit=" + LOG_SHOWN),
    ]);
    $("campaign-state").textContent = JSON.stringify(shown, null, 2);
    const events = Array.isArray(log) ? log : log.events || [];
    const items = events.map(logItem);
    if (events.length && events[0].seq > 1) {
      // the newest page alone: a long log is read a page at a time (`/log`'s `before`)
      items.unshift(el("li", `events #1 to #${events[0].seq - 1} are not shown (GET /log pages through them)`, "muted"));
    }
    $("campaign-log").replaceChildren(...items);
  } catch (err) { $("campaign-state").textContent = "could not read the campaign"; }
}

function pairs(text) {
  // "skill=3 dice=1,0,2" → {skill: "3", dice: "1,0,2"}: what the command line's `--input NAME=VALUE`
  // takes, split at spaces. Each value is sent as the text typed, for the ruleset to read as it
  // reads the command line's (a whole number exactly, however long; a list; `0x10` refused), never
  // as JavaScript reads a number (Infinity, 1e999 as null, 16 for 0x10, big ones rounded).
  const out = names();
  for (const part of text.split(/\s+/).filter(Boolean)) {
    const at = part.indexOf("=");
    if (at <= 0) throw new FormProblem(`input '${part}' is not of the form NAME=VALUE`);
    const name = part.slice(0, at);
    if (Object.hasOwn(out, name)) throw new FormProblem(`input '${name}' is given twice: give each name once`);
    out[name] = part.slice(at + 1);
  }
  return out;
}

async function change(path, body) {
  // A campaign write (the token, if the server wants one, is sent and kept only in this page).
  const name = $("campaign-list").value;
  if (!name) return;
  showErrors(null, "campaign-errors");
  try {
    await api(`campaigns/${encodeURIComponent(name)}/${path}`, body, $("act-token").value);
    await campaign(name);
  } catch (err) { showErrors(err, "campaign-errors"); }
}

function act(event) {
  event.preventDefault();
  let inputs;
  try {
    inputs = pairs($("act-inputs").value);
  } catch (err) {
    showErrors({ diagnostics: [{ text: err.message }] }, "campaign-errors");
    return undefined;
  }
  const body = { action: $("act-action").value.trim(), inputs };
  if ($("act-character").value.trim()) body.character = $("act-character").value.trim();
  return change("act", body);
}

function logItem(event) {
  // One line an author reads (what happened, and the roll's outcome), the whole event beneath.
  const data = event.data || {};
  const roll = data.roll || {};
  const what = [event.kind, data.action, data.character].filter(Boolean).join(" ");
  const item = el("li", null, "event");
  item.append(el("span", `${what}${roll.outcome ? " → " + roll.outcome : ""}`, "what"));
  if (event.undoes) item.append(el("span", ` (undoes #${event.undoes})`, "muted"));
  const more = el("details");
  more.append(el("summary", event.at || "event"), el("pre", JSON.stringify(event, null, 2)));
  item.append(more);
  return item;
}

async function start() {
  const src = $("source");
  state.lineHeight = parseFloat(getComputedStyle(src).lineHeight) || 20;
  src.addEventListener("input", edited);
  src.addEventListener("scroll", syncScroll);
  src.addEventListener("keydown", (e) => {
    // Tab indents; Shift+Tab, or Escape and then Tab, leaves the editor as Tab leaves any field.
    if (e.key === "Tab" && !e.shiftKey && !state.escaped && !e.ctrlKey && !e.altKey && !e.metaKey) {
      e.preventDefault();
      src.setRangeText("  ", src.selectionStart, src.selectionEnd, "end");
      edited();
    }
    state.escaped = e.key === "Escape";
  });
  src.addEventListener("blur", () => { state.escaped = false; });
  window.addEventListener("beforeunload", (e) => { if (dirty()) e.preventDefault(); });
  $("inputs-form").addEventListener("input", (e) => {
    if (!e.target.closest("#seed, #sweep-input, #sweep-from, #sweep-to, #sweep-stacked")) clearAnswers();
  });
  $("file-name").addEventListener("input", edited);
  $("check-list").addEventListener("keydown", tabKeys);
  $("inputs-form").addEventListener("submit", roll);
  $("exact").addEventListener("click", distribution);
  $("sweep").addEventListener("click", sweep);
  $("campaign-list").addEventListener("change", (e) => campaign(e.target.value));
  $("campaign-refresh").addEventListener("click", campaigns);
  $("act-form").addEventListener("submit", act);
  $("undo").addEventListener("click", () => change("undo", {}));
  const pick = $("ruleset-list");
  pick.addEventListener("change", () => loadRuleset(pick.value));
  try {
    const rulesets = await api("rulesets");
    pick.replaceChildren(...rulesets.map((r) => new Option(r.title ? `${r.name} — ${r.title}` : r.name, r.name)));
    if (rulesets.length) await loadRuleset(rulesets[0].name);
  } catch (err) { showErrors(err); }
  campaigns();
}

start();
