// The rulecraft playground: an editor that validates as you type, a check's inputs as a form,
// a roll with its trace, and the server's SVG charts. No framework and nothing fetched from
// elsewhere: every request goes to the same server's /api. Text from the server or from a
// ruleset is put into the page with textContent, never parsed as HTML; a chart is parsed as
// SVG (the server escapes every name in it) and only an <svg> root is taken.
"use strict";

const $ = (id) => document.getElementById(id);
const state = {
  checks: {}, check: null, drawn: null, timer: null, asked: 0, lineHeight: 20,
  answers: { roll: 0, chart: 0, sweep: 0, campaign: 0 }, // one count per card: only its latest question's answer is shown
  loading: 0, // the same for a ruleset being loaded
  campaignShown: null, // the campaign whose state and log are on show, if any
  campaignPicked: null, // the campaign last asked for: a list read again picks it while it is there
  campaignSeen: null, // {name, seq}: the newest event of the log on show, which Undo sends as `seen`
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
  if (token && !/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(token)) {
    // no token `serve` takes (printable ASCII, no space at either end): a browser refuses some such
    // headers and sends nothing ("the server did not answer" was untrue), and trims the others
    const text = "the token begins or ends with a space, or holds a character a request's header cannot carry (only printable ASCII): nothing was sent; check the token";
    throw Object.assign(new Error(text), { diagnostics: [{ text }] });
  }
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

// The columns each character takes in a terminal, from the table the command line reads
// (engine/syntax/widths.json, written here too by `python -m engine.syntax.widths`): runs of
// [first code point, columns], each to the next run's first. One table, so the two cannot differ.
const WIDTHS = {"unicode":"14.0.0","runs":[[0,1],[173,0],[174,1],[768,0],[880,1],[1155,0],[1162,1],[1425,0],[1470,1],[1471,0],[1472,1],[1473,0],[1475,1],[1476,0],[1478,1],[1479,0],[1480,1],[1536,0],[1542,1],[1552,0],[1563,1],[1564,0],[1565,1],[1611,0],[1632,1],[1648,0],[1649,1],[1750,0],[1758,1],[1759,0],[1765,1],[1767,0],[1769,1],[1770,0],[1774,1],[1807,0],[1808,1],[1809,0],[1810,1],[1840,0],[1867,1],[1958,0],[1969,1],[2027,0],[2036,1],[2045,0],[2046,1],[2070,0],[2074,1],[2075,0],[2084,1],[2085,0],[2088,1],[2089,0],[2094,1],[2137,0],[2140,1],[2192,0],[2194,1],[2200,0],[2208,1],[2250,0],[2307,1],[2362,0],[2363,1],[2364,0],[2365,1],[2369,0],[2377,1],[2381,0],[2382,1],[2385,0],[2392,1],[2402,0],[2404,1],[2433,0],[2434,1],[2492,0],[2493,1],[2497,0],[2501,1],[2509,0],[2510,1],[2530,0],[2532,1],[2558,0],[2559,1],[2561,0],[2563,1],[2620,0],[2621,1],[2625,0],[2627,1],[2631,0],[2633,1],[2635,0],[2638,1],[2641,0],[2642,1],[2672,0],[2674,1],[2677,0],[2678,1],[2689,0],[2691,1],[2748,0],[2749,1],[2753,0],[2758,1],[2759,0],[2761,1],[2765,0],[2766,1],[2786,0],[2788,1],[2810,0],[2816,1],[2817,0],[2818,1],[2876,0],[2877,1],[2879,0],[2880,1],[2881,0],[2885,1],[2893,0],[2894,1],[2901,0],[2903,1],[2914,0],[2916,1],[2946,0],[2947,1],[3008,0],[3009,1],[3021,0],[3022,1],[3072,0],[3073,1],[3076,0],[3077,1],[3132,0],[3133,1],[3134,0],[3137,1],[3142,0],[3145,1],[3146,0],[3150,1],[3157,0],[3159,1],[3170,0],[3172,1],[3201,0],[3202,1],[3260,0],[3261,1],[3263,0],[3264,1],[3270,0],[3271,1],[3276,0],[3278,1],[3298,0],[3300,1],[3328,0],[3330,1],[3387,0],[3389,1],[3393,0],[3397,1],[3405,0],[3406,1],[3426,0],[3428,1],[3457,0],[3458,1],[3530,0],[3531,1],[3538,0],[3541,1],[3542,0],[3543,1],[3633,0],[3634,1],[3636,0],[3643,1],[3655,0],[3663,1],[3761,0],[3762,1],[3764,0],[3773,1],[3784,0],[3790,1],[3864,0],[3866,1],[3893,0],[3894,1],[3895,0],[3896,1],[3897,0],[3898,1],[3953,0],[3967,1],[3968,0],[3973,1],[3974,0],[3976,1],[3981,0],[3992,1],[3993,0],[4029,1],[4038,0],[4039,1],[4141,0],[4145,1],[4146,0],[4152,1],[4153,0],[4155,1],[4157,0],[4159,1],[4184,0],[4186,1],[4190,0],[4193,1],[4209,0],[4213,1],[4226,0],[4227,1],[4229,0],[4231,1],[4237,0],[4238,1],[4253,0],[4254,1],[4352,2],[4448,1],[4957,0],[4960,1],[5906,0],[5909,1],[5938,0],[5940,1],[5970,0],[5972,1],[6002,0],[6004,1],[6068,0],[6070,1],[6071,0],[6078,1],[6086,0],[6087,1],[6089,0],[6100,1],[6109,0],[6110,1],[6155,0],[6160,1],[6277,0],[6279,1],[6313,0],[6314,1],[6432,0],[6435,1],[6439,0],[6441,1],[6450,0],[6451,1],[6457,0],[6460,1],[6679,0],[6681,1],[6683,0],[6684,1],[6742,0],[6743,1],[6744,0],[6751,1],[6752,0],[6753,1],[6754,0],[6755,1],[6757,0],[6765,1],[6771,0],[6781,1],[6783,0],[6784,1],[6832,0],[6863,1],[6912,0],[6916,1],[6964,0],[6965,1],[6966,0],[6971,1],[6972,0],[6973,1],[6978,0],[6979,1],[7019,0],[7028,1],[7040,0],[7042,1],[7074,0],[7078,1],[7080,0],[7082,1],[7083,0],[7086,1],[7142,0],[7143,1],[7144,0],[7146,1],[7149,0],[7150,1],[7151,0],[7154,1],[7212,0],[7220,1],[7222,0],[7224,1],[7376,0],[7379,1],[7380,0],[7393,1],[7394,0],[7401,1],[7405,0],[7406,1],[7412,0],[7413,1],[7416,0],[7418,1],[7616,0],[7680,1],[8203,0],[8208,1],[8234,0],[8239,1],[8288,0],[8293,1],[8294,0],[8304,1],[8400,0],[8433,1],[8986,2],[8988,1],[9001,2],[9003,1],[9193,2],[9197,1],[9200,2],[9201,1],[9203,2],[9204,1],[9725,2],[9727,1],[9748,2],[9750,1],[9800,2],[9812,1],[9855,2],[9856,1],[9875,2],[9876,1],[9889,2],[9890,1],[9898,2],[9900,1],[9917,2],[9919,1],[9924,2],[9926,1],[9934,2],[9935,1],[9940,2],[9941,1],[9962,2],[9963,1],[9970,2],[9972,1],[9973,2],[9974,1],[9978,2],[9979,1],[9981,2],[9982,1],[9989,2],[9990,1],[9994,2],[9996,1],[10024,2],[10025,1],[10060,2],[10061,1],[10062,2],[10063,1],[10067,2],[10070,1],[10071,2],[10072,1],[10133,2],[10136,1],[10160,2],[10161,1],[10175,2],[10176,1],[11035,2],[11037,1],[11088,2],[11089,1],[11093,2],[11094,1],[11503,0],[11506,1],[11647,0],[11648,1],[11744,0],[11776,1],[11904,2],[11930,1],[11931,2],[12020,1],[12032,2],[12246,1],[12272,2],[12284,1],[12288,2],[12330,0],[12334,2],[12351,1],[12353,2],[12439,1],[12441,0],[12443,2],[12544,1],[12549,2],[12592,1],[12593,2],[12687,1],[12688,2],[12772,1],[12784,2],[12831,1],[12832,2],[12872,1],[12880,2],[19904,1],[19968,2],[42125,1],[42128,2],[42183,1],[42607,0],[42611,1],[42612,0],[42622,1],[42654,0],[42656,1],[42736,0],[42738,1],[43010,0],[43011,1],[43014,0],[43015,1],[43019,0],[43020,1],[43045,0],[43047,1],[43052,0],[43053,1],[43204,0],[43206,1],[43232,0],[43250,1],[43263,0],[43264,1],[43302,0],[43310,1],[43335,0],[43346,1],[43360,2],[43389,1],[43392,0],[43395,1],[43443,0],[43444,1],[43446,0],[43450,1],[43452,0],[43454,1],[43493,0],[43494,1],[43561,0],[43567,1],[43569,0],[43571,1],[43573,0],[43575,1],[43587,0],[43588,1],[43596,0],[43597,1],[43644,0],[43645,1],[43696,0],[43697,1],[43698,0],[43701,1],[43703,0],[43705,1],[43710,0],[43712,1],[43713,0],[43714,1],[43756,0],[43758,1],[43766,0],[43767,1],[44005,0],[44006,1],[44008,0],[44009,1],[44013,0],[44014,1],[44032,2],[55204,1],[63744,2],[64256,1],[64286,0],[64287,1],[65024,0],[65040,2],[65050,1],[65056,0],[65072,2],[65107,1],[65108,2],[65127,1],[65128,2],[65132,1],[65279,0],[65280,1],[65281,2],[65377,1],[65504,2],[65511,1],[65529,0],[65532,1],[66045,0],[66046,1],[66272,0],[66273,1],[66422,0],[66427,1],[68097,0],[68100,1],[68101,0],[68103,1],[68108,0],[68112,1],[68152,0],[68155,1],[68159,0],[68160,1],[68325,0],[68327,1],[68900,0],[68904,1],[69291,0],[69293,1],[69446,0],[69457,1],[69506,0],[69510,1],[69633,0],[69634,1],[69688,0],[69703,1],[69744,0],[69745,1],[69747,0],[69749,1],[69759,0],[69762,1],[69811,0],[69815,1],[69817,0],[69819,1],[69821,0],[69822,1],[69826,0],[69827,1],[69837,0],[69838,1],[69888,0],[69891,1],[69927,0],[69932,1],[69933,0],[69941,1],[70003,0],[70004,1],[70016,0],[70018,1],[70070,0],[70079,1],[70089,0],[70093,1],[70095,0],[70096,1],[70191,0],[70194,1],[70196,0],[70197,1],[70198,0],[70200,1],[70206,0],[70207,1],[70367,0],[70368,1],[70371,0],[70379,1],[70400,0],[70402,1],[70459,0],[70461,1],[70464,0],[70465,1],[70502,0],[70509,1],[70512,0],[70517,1],[70712,0],[70720,1],[70722,0],[70725,1],[70726,0],[70727,1],[70750,0],[70751,1],[70835,0],[70841,1],[70842,0],[70843,1],[70847,0],[70849,1],[70850,0],[70852,1],[71090,0],[71094,1],[71100,0],[71102,1],[71103,0],[71105,1],[71132,0],[71134,1],[71219,0],[71227,1],[71229,0],[71230,1],[71231,0],[71233,1],[71339,0],[71340,1],[71341,0],[71342,1],[71344,0],[71350,1],[71351,0],[71352,1],[71453,0],[71456,1],[71458,0],[71462,1],[71463,0],[71468,1],[71727,0],[71736,1],[71737,0],[71739,1],[71995,0],[71997,1],[71998,0],[71999,1],[72003,0],[72004,1],[72148,0],[72152,1],[72154,0],[72156,1],[72160,0],[72161,1],[72193,0],[72203,1],[72243,0],[72249,1],[72251,0],[72255,1],[72263,0],[72264,1],[72273,0],[72279,1],[72281,0],[72284,1],[72330,0],[72343,1],[72344,0],[72346,1],[72752,0],[72759,1],[72760,0],[72766,1],[72767,0],[72768,1],[72850,0],[72872,1],[72874,0],[72881,1],[72882,0],[72884,1],[72885,0],[72887,1],[73009,0],[73015,1],[73018,0],[73019,1],[73020,0],[73022,1],[73023,0],[73030,1],[73031,0],[73032,1],[73104,0],[73106,1],[73109,0],[73110,1],[73111,0],[73112,1],[73459,0],[73461,1],[78896,0],[78905,1],[92912,0],[92917,1],[92976,0],[92983,1],[94031,0],[94032,1],[94095,0],[94099,1],[94176,2],[94180,0],[94181,1],[94192,2],[94194,1],[94208,2],[100344,1],[100352,2],[101590,1],[101632,2],[101641,1],[110576,2],[110580,1],[110581,2],[110588,1],[110589,2],[110591,1],[110592,2],[110883,1],[110928,2],[110931,1],[110948,2],[110952,1],[110960,2],[111356,1],[113821,0],[113823,1],[113824,0],[113828,1],[118528,0],[118574,1],[118576,0],[118599,1],[119143,0],[119146,1],[119155,0],[119171,1],[119173,0],[119180,1],[119210,0],[119214,1],[119362,0],[119365,1],[121344,0],[121399,1],[121403,0],[121453,1],[121461,0],[121462,1],[121476,0],[121477,1],[121499,0],[121504,1],[121505,0],[121520,1],[122880,0],[122887,1],[122888,0],[122905,1],[122907,0],[122914,1],[122915,0],[122917,1],[122918,0],[122923,1],[123184,0],[123191,1],[123566,0],[123567,1],[123628,0],[123632,1],[125136,0],[125143,1],[125252,0],[125259,1],[126980,2],[126981,1],[127183,2],[127184,1],[127374,2],[127375,1],[127377,2],[127387,1],[127488,2],[127491,1],[127504,2],[127548,1],[127552,2],[127561,1],[127568,2],[127570,1],[127584,2],[127590,1],[127744,2],[127777,1],[127789,2],[127798,1],[127799,2],[127869,1],[127870,2],[127892,1],[127904,2],[127947,1],[127951,2],[127956,1],[127968,2],[127985,1],[127988,2],[127989,1],[127992,2],[128063,1],[128064,2],[128065,1],[128066,2],[128253,1],[128255,2],[128318,1],[128331,2],[128335,1],[128336,2],[128360,1],[128378,2],[128379,1],[128405,2],[128407,1],[128420,2],[128421,1],[128507,2],[128592,1],[128640,2],[128710,1],[128716,2],[128717,1],[128720,2],[128723,1],[128725,2],[128728,1],[128733,2],[128736,1],[128747,2],[128749,1],[128756,2],[128765,1],[128992,2],[129004,1],[129008,2],[129009,1],[129292,2],[129339,1],[129340,2],[129350,1],[129351,2],[129536,1],[129648,2],[129653,1],[129656,2],[129661,1],[129664,2],[129671,1],[129680,2],[129709,1],[129712,2],[129723,1],[129728,2],[129734,1],[129744,2],[129754,1],[129760,2],[129768,1],[129776,2],[129783,1],[131072,2],[196606,1],[196608,2],[262142,1],[917505,0],[917506,1],[917536,0],[917632,1],[917760,0],[918000,1]]};
const STARTS = WIDTHS.runs.map((run) => run[0]);

function width(point) {
  // the columns of one code point, alone: the run it falls in, found by halving
  let lo = 0;
  let hi = STARTS.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (STARTS[mid] <= point) lo = mid; else hi = mid - 1;
  }
  return WIDTHS.runs[lo][1];
}

function widths(chars) {
  // The columns each of a line's characters takes, as `positions.widths` counts them: a tab one
  // (kept as a tab in the blank), a character joined by U+200D to an emoji (the last character
  // before it that takes columns, drawn in two) none, and one a U+FE0F asks to be drawn as an
  // emoji two unless it is so joined (a family, 🧑‍⚕️ and 🏴‍☠️ take two columns; a joined
  // letter, as Indic scripts join them, keeps its column).
  const out = [];
  let base = -1;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === "\t") {
      out.push(1);
      base = -1;
    } else if (i > 0 && chars[i - 1] === "\u200d" && base >= 0 && out[base] === 2) out.push(0);
    else {
      if (c === "\ufe0f" && i > 0 && out[i - 1] === 1 && chars[i - 1] !== "\t") out[i - 1] = 2;
      out.push(width(c.codePointAt(0)));
      if (out[out.length - 1] > 0) base = i;
    }
  }
  return out;
}

function drawnAt(chars, shown, at) {
  // Where a place's caret stands, as `positions.drawn_at`: a character drawn in no column of its
  // own (a combining accent, a joined emoji) is drawn in the one before it, and so is its caret.
  while (at > 0 && at < chars.length && shown[at] === 0 && chars[at - 1] !== "\t") at--;
  return at;
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
  const shown = widths(chars);
  const at = drawnAt(chars, shown, d.column - 1);
  const before = chars.slice(0, at).map((c, i) => (c === "\t" ? "\t" : " ".repeat(shown[i]))).join("");
  const under = shown.slice(at, d.column - 1 + width).reduce((n, w) => n + w, 0);
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
    // the page's own words (the server did not answer, an answer it cannot read) are `text` alone
    const severity = d.severity || "error";
    const item = el("li", null, "diag " + severity);
    item.dataset.line = d.line ?? "";
    item.dataset.code = d.code;
    const file = d.file || $("file-name").value || "mine.yaml";
    const where = d.line ? `${file} line ${d.line}${d.column ? ":" + d.column : ""}` : file;
    const jump = el("button", where, "where");
    jump.type = "button";
    jump.addEventListener("click", () => goToLine(d.line, d.column));
    item.append(jump, el("span", d.code || "", "code"), el("span", d.message ?? d.text ?? "", "message"));
    const excerpt = caret(d);
    if (excerpt) item.append(el("pre", excerpt, "excerpt"));
    if (d.api_hint) item.append(el("div", "hint: " + d.api_hint, "hint"));
    list.append(item);
  }
  const count = (s) => diagnostics.filter((d) => (d.severity || "error") === s).length;
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
  // a column counts characters; the textarea's offsets count UTF-16 units (an emoji is two); a
  // place on a combining mark or a joined emoji is drawn, and so put, before the character it is on
  const chars = Array.from(lines[line - 1] || "");
  at += chars.slice(0, drawnAt(chars, widths(chars), Math.max(0, (column || 1) - 1))).join("").length;
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
    $("validity").className = "badge bad";
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
    if (spec.choices && spec.choices_left_out) {
      // more choices than the answer lists: typed, the listed ones offered (a select could not
      // reach the rest, nor show a default past them)
      field = document.createElement("input");
      field.type = "text";
      field.spellcheck = false;
      const offered = document.createElement("datalist");
      offered.id = "choices-" + spec.name;
      offered.append(...spec.choices.map((c) => new Option(c, c)));
      field.setAttribute("list", offered.id);
      label.append(offered);
    } else if (spec.choices) {
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

function typedNumber(field, what) {
  // A number field's text, or a FormProblem: Chromium gives "" both for an empty field and for
  // one it cannot read ("5e", "--3").
  if (field.validity && field.validity.badInput) throw new FormProblem(`${what}: what is typed is not a number`);
  if (field.value.trim() === "") throw new FormProblem(`${what}: give a number`);
  return field.value.trim();
}

function number(field, what) {
  // A number field's value as a JavaScript number (a seed, a sweep's ends), or a FormProblem:
  // Number() would make "" a 0 and "1e400" Infinity, and past 2^53 a number is not the one
  // typed (9007199254740993 is ...992): refused, not sent as another.
  const typed = typedNumber(field, what);
  const n = Number(typed);
  if (!Number.isFinite(n)) throw new FormProblem(`${what}: ${typed} is not a number this page can send`);
  if (Number.isInteger(n) && !Number.isSafeInteger(n)) {
    throw new FormProblem(`${what}: ${typed} is too large for this page to send exactly`);
  }
  return n;
}

function end(field, what) {
  // A sweep's end: a whole number, as the sweep steps by one (a `number` input's sweep too)
  const n = number(field, what);
  if (!Number.isInteger(n)) throw new FormProblem(`${what}: ${field.value} is not a whole number (a sweep steps by 1)`);
  return n;
}

function whole(field, what) {
  // A whole-number input's field, sent as the text typed, for the ruleset to read as the command
  // line's --input reads it: exact however long (Number() rounded 9007199254740993 to ...992).
  return typedNumber(field, what);
}

function checkedInputs() {
  // The inputs to send: an empty or unreadable number is said, not left out (which would
  // quietly roll with the default the author had cleared) nor sent as 0.
  const out = names();
  for (const field of $("inputs").querySelectorAll("[name]")) {
    if (field.type === "checkbox") out[field.name] = field.checked;
    else if (field.type === "number") out[field.name] = whole(field, field.name);
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
      input: $("sweep-input").value, from: end($("sweep-from"), "sweep from"),
      to: end($("sweep-to"), "sweep to"), stacked: $("sweep-stacked").checked,
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
  // The store's campaigns, the one picked kept if it is still there. A list that cannot be read
  // (the store gone: 503 RC903; no answer at all) is said with its diagnostics, and nothing read
  // before is left on show as if it were the store's; "no campaigns" is said only of an empty list.
  const asked = ++state.answers.campaign;
  const select = $("campaign-list");
  showErrors(null, "campaign-errors");
  try {
    const list = await api("campaigns");
    const items = Array.isArray(list) ? list : list.campaigns;
    if (!Array.isArray(items)) throw unexpected(null);
    if (asked !== state.answers.campaign) return;
    const names = items.map((c) => (typeof c === "string" ? c : c.name || c.campaign));
    select.replaceChildren(...names.map((name) => new Option(name, name)));
    if (names.includes(state.campaignPicked)) select.value = state.campaignPicked;
    if (names.length) await campaign(select.value);
    else showCampaign(null, [], "no campaigns to show");
  } catch (err) {
    if (asked !== state.answers.campaign) return;
    select.replaceChildren();
    showCampaign(null, []);
    showErrors(err, "campaign-errors");
  }
}

const LOG_SHOWN = 200; // the newest events a campaign's log shows

function showCampaign(name, items, text = "") {
  // One campaign's state and log on show, or (no name) none: never one's state beside another's log.
  state.campaignShown = name;
  $("campaign-state").textContent = text;
  $("campaign-log").replaceChildren(...items);
}

async function campaign(name) {
  // A campaign's state and log; of two campaigns asked for (picked, or read again after a write),
  // only the later one's answer is drawn, whichever comes first, as for the cards' questions. While
  // another campaign is read, the one shown before is taken off the page; a failed read is said
  // with its diagnostics, and leaves nothing of that campaign on show.
  const asked = ++state.answers.campaign;
  state.campaignPicked = name;
  showErrors(null, "campaign-errors");
  if (name !== state.campaignShown) {
    state.campaignSeen = null; // what was on show is another campaign's
    showCampaign(null, [], "reading…");
  }
  try {
    const [shown, log] = await Promise.all([
      api("campaigns/" + encodeURIComponent(name)),
      api("campaigns/" + encodeURIComponent(name) + "/log?newest=true&limit=" + LOG_SHOWN),
    ]);
    if (asked !== state.answers.campaign) return;
    const events = Array.isArray(log) ? log : log.events || [];
    const items = events.map(logItem);
    if (events.length && events[0].seq > 1) {
      // the newest page alone: a long log is read a page at a time (`/log`'s `before`)
      items.unshift(el("li", `events #1 to #${events[0].seq - 1} are not shown (GET /log pages through them)`, "muted"));
    }
    showCampaign(name, items, JSON.stringify(shown, null, 2));
    showErrors(null, "campaign-errors"); // what was said while it was read ("not on show yet") is past
    // the newest event on show: Undo reverses nothing newer (another tab's change, never shown here)
    state.campaignSeen = events.length ? { name, seq: events[events.length - 1].seq } : null;
  } catch (err) {
    if (asked !== state.answers.campaign) return;
    state.campaignSeen = null;
    showCampaign(null, []);
    showErrors(err, "campaign-errors");
  }
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
    // read again, unless another campaign was picked meanwhile: that one's answer is the one to draw
    if ($("campaign-list").value === name) await campaign(name);
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
  for (const id of ["sweep-from", "sweep-to"]) {
    // the sweep's fields are not the roll form's (index.html: form="sweep-form"): Enter sweeps
    $(id).addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); sweep(); } });
  }
  $("campaign-list").addEventListener("change", (e) => campaign(e.target.value));
  $("campaign-refresh").addEventListener("click", campaigns);
  $("act-form").addEventListener("submit", act);
  $("undo").addEventListener("click", () => {
    // only with the newest event on show: an undo of what this page never showed is never sent
    const seen = state.campaignSeen;
    if (!seen || seen.name !== $("campaign-list").value) {
      const text = "the campaign's log is not on show yet: wait for it (or Refresh), then Undo reverses its newest change";
      showErrors({ diagnostics: [{ text }] }, "campaign-errors");
      return undefined;
    }
    return change("undo", { seen: seen.seq });
  });
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
