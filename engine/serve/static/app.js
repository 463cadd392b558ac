// The rulecraft playground: an editor that validates as you type, a check's inputs as a form,
// a roll with its trace, and the server's SVG charts. No framework and nothing fetched from
// elsewhere: every request goes to the same server's /api. Text from the server or from a
// ruleset is put into the page with textContent, never parsed as HTML; a chart is parsed as
// SVG (the server escapes every name in it) and only an <svg> root is taken.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { checks: {}, check: null, drawn: null, timer: null, asked: 0, lineHeight: 20 };

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

async function api(path, body, token) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = "Bearer " + token;
  const init = body === undefined ? {} : { method: "POST", headers, body: JSON.stringify(body) };
  const res = await fetch("api/" + path, init);
  const type = res.headers.get("content-type") || "";
  const data = type.includes("json") ? await res.json() : await res.text();
  if (!res.ok) {
    const diags = (data && data.error && data.error.diagnostics) || [{ text: `HTTP ${res.status}` }];
    throw Object.assign(new Error("request failed"), { diagnostics: diags });
  }
  return data;
}

function status(text) { $("status").textContent = text; }

function showErrors(err, where = "errors") {
  const list = $(where);
  list.replaceChildren();
  for (const d of (err && err.diagnostics) || []) {
    list.append(el("li", d.text || `${d.code}: ${d.message}`));
  }
  if (err && !err.diagnostics) list.append(el("li", String(err)));
}

// -- the editor ---------------------------------------------------------------------------------

function drawGutter(diagnostics) {
  const lines = $("source").value.split("\n").length;
  const byLine = new Map();
  for (const d of diagnostics) if (d.line) byLine.set(d.line, [...(byLine.get(d.line) || []), d]);
  const gutter = $("gutter");
  gutter.replaceChildren();
  const marks = $("marks");
  marks.replaceChildren();
  for (let n = 1; n <= lines; n++) {
    const cell = el("div", n, "ln");
    const here = byLine.get(n);
    if (here) {
      const worst = here.some((d) => d.severity === "error") ? "error" : "warning";
      cell.classList.add("mark", worst);
      cell.dataset.code = here.map((d) => d.code).join(" ");
      cell.title = here.map((d) => `${d.code}: ${d.message}`).join("\n");
      const band = el("div", null, "band " + worst);
      band.style.top = `${(n - 1) * state.lineHeight}px`;
      band.dataset.line = n;
      marks.append(band);
    }
    gutter.append(cell);
  }
  syncScroll();
}

function syncScroll() {
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
    const where = d.line ? `line ${d.line}${d.column ? ":" + d.column : ""}` : "file";
    const jump = el("button", where, "where");
    jump.type = "button";
    jump.addEventListener("click", () => goToLine(d.line, d.column));
    item.append(jump, el("span", d.code, "code"), el("span", d.message, "message"));
    if (d.hint) item.append(el("div", "hint: " + d.hint, "hint"));
    list.append(item);
  }
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const badge = $("validity");
  badge.textContent = errors ? `${errors} error${errors > 1 ? "s" : ""}` :
    diagnostics.length ? `${diagnostics.length} note(s)` : "valid";
  badge.className = "badge " + (errors ? "bad" : "good");
}

function goToLine(line, column) {
  if (!line) return;
  const src = $("source");
  const lines = src.value.split("\n");
  let at = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) at += lines[i].length + 1;
  at += Math.max(0, (column || 1) - 1);
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
    status(result.ok ? "ready" : "fix the errors to roll");
  } catch (err) {
    if (asked === state.asked) { showErrors(err); status("could not validate"); }
  }
}

function edited() {
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
  list.replaceChildren();
  for (const name of names) {
    const b = el("button", name, name === state.check ? "check active" : "check");
    b.type = "button";
    b.setAttribute("role", "tab");
    b.setAttribute("aria-selected", String(name === state.check));
    b.addEventListener("click", () => { state.check = name; setChecks(state.checks); });
    list.append(b);
  }
  if (!same || !state.drawn || state.drawn !== state.check) drawForm();
}

function drawForm() {
  const info = state.checks[state.check];
  const old = state.drawn === state.check ? readInputs() : {}; // keep what was typed for this check
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
    } else {
      field = document.createElement("input");
      field.type = "number";
      field.step = spec.type === "int" ? "1" : "any";
      if (spec.minimum !== undefined && spec.minimum !== null) field.min = spec.minimum;
      if (spec.maximum !== undefined && spec.maximum !== null) field.max = spec.maximum;
    }
    field.name = spec.name;
    field.dataset.type = spec.type;
    const value = spec.name in old ? old[spec.name] : spec.default;
    if (field.type === "checkbox") field.checked = Boolean(value);
    else if (value !== null && value !== undefined) field.value = String(value);
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
  const numeric = info.inputs.filter((s) => !s.choices && s.type !== "bool");
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

function readInputs() {
  const out = {};
  for (const field of $("inputs").querySelectorAll("[name]")) {
    if (field.type === "checkbox") out[field.name] = field.checked;
    else if (field.value === "") continue;
    else if (field.type === "number") out[field.name] = Number(field.value);
    else out[field.name] = field.value;
  }
  return out;
}

function question(extra) {
  const body = { ...reference(), check: state.check, inputs: readInputs(), ...extra };
  if (!$("policy").disabled && $("policy").value) body.policy = $("policy").value;
  return body;
}

// -- answers ------------------------------------------------------------------------------------

async function roll(event) {
  event.preventDefault();
  if (!state.check) return;
  showErrors(null);
  const seed = $("seed").value === "" ? undefined : Number($("seed").value);
  try {
    const r = await api("roll", question({ seed, trace: true }));
    $("roll-card").hidden = false;
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
    $("seed").value = r.seed;
  } catch (err) { showErrors(err); }
}

async function svgInto(target, path, body) {
  status("solving…");
  const text = await api(path, body).finally(() => status("ready"));
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const root = doc.documentElement;
  if (root.nodeName !== "svg" || doc.querySelector("parsererror, script")) throw new Error("not a chart");
  target.replaceChildren(document.importNode(root, true));
}

async function distribution() {
  if (!state.check) return;
  showErrors(null);
  try {
    $("chart-card").hidden = false;
    await svgInto($("chart"), "chart/distribution", question({}));
    const info = state.checks[state.check];
    if (info.policies && info.policies.length > 1) {
      await svgInto($("policies-chart"), "chart/policies", question({}));
    } else {
      $("policies-chart").replaceChildren();
    }
  } catch (err) { showErrors(err); }
}

async function sweep() {
  if (!state.check || !$("sweep-input").value) return;
  showErrors(null);
  try {
    $("sweep-card").hidden = false;
    await svgInto($("sweep-chart"), "chart/sweep", question({
      input: $("sweep-input").value, from: Number($("sweep-from").value), to: Number($("sweep-to").value),
      stacked: $("sweep-stacked").checked,
    }));
  } catch (err) { showErrors(err); }
}

// -- rulesets and campaigns ---------------------------------------------------------------------

async function loadRuleset(name) {
  try {
    const rs = await api("rulesets/" + encodeURIComponent(name));
    $("source").value = rs.source;
    $("file-name").value = name + ".yaml";
    state.check = null;
    state.drawn = null;
    setChecks(rs.checks);
    drawGutter([]);
    await validate();
  } catch (err) { showErrors(err); }
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

async function campaign(name) {
  try {
    const [shown, log] = await Promise.all([
      api("campaigns/" + encodeURIComponent(name)), api("campaigns/" + encodeURIComponent(name) + "/log"),
    ]);
    $("campaign-state").textContent = JSON.stringify(shown, null, 2);
    const events = Array.isArray(log) ? log : log.events || [];
    $("campaign-log").replaceChildren(...events.map(logItem));
  } catch (err) { $("campaign-state").textContent = "could not read the campaign"; }
}

function pairs(text) {
  // "skill=3 mood=calm" → {skill: 3, mood: "calm"}: what the CLI's -i takes.
  const out = {};
  for (const part of text.split(/[\s,]+/).filter(Boolean)) {
    const [name, ...rest] = part.split("=");
    const value = rest.join("=");
    out[name] = value !== "" && !Number.isNaN(Number(value)) ? Number(value) : value;
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
  const body = { action: $("act-action").value.trim(), inputs: pairs($("act-inputs").value) };
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
    if (e.key === "Tab") { e.preventDefault(); src.setRangeText("  ", src.selectionStart, src.selectionEnd, "end"); edited(); }
  });
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
