"""Text for people: results with their trace, checks as `show` prints them.

Kept apart from the evaluators (as d20 keeps its stringifiers apart from its roller), so the
same `Result` can be printed as text here or as JSON by `Result.as_json`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from ..errors import MAX_DIGITS, digits
from ..eval.dist import Dist
from ..eval.trace import Result
from ..expr import ast
from ..expr.printer import to_text
from ..model.ruleset import Check, Die, Draw, Expr, Pool, RulesetModel
from ..model.values import faces_text, readable, show
from ..runtime.inputs import describe

if TYPE_CHECKING:  # named in signatures only: a roll's text loads none of them
    from ..eval.batch import Batch
    from ..eval.exact import Distribution
    from ..model.state import Item, StateModel
    from ..scenes.odds import Odds
    from ..scenes.play import Played, Sampled
    from ..state.records import Event


def result_text(result: Result, title: str = "") -> str:
    lines = [f"{title or result.check}"]
    if not result.trace:  # rolled without its trace: the dice and the values, then the outcome
        width = max([len(name) for name in [*result.rolled, *result.values]] + [8])
        for name, value in result.rolled.items():
            lines.append(f"  rolled  {name.ljust(width)} : {show(value)}")
        for name, value in result.values.items():
            lines.append(f"  value   {name.ljust(width)} = {show(value)}")
        if result.rolled_again:
            lines.append(
                f"  again   {result.rolled_again} time(s): the check was rolled again before this roll"
            )
        lines.append(f"=> {result.outcome.name}")
        return "\n".join(lines)
    width = max([len(s.name) for s in result.trace] + [8])
    for step in result.trace:
        name = step.name.ljust(width)
        value = show(step.value)
        if step.kind == "input":
            lines.append(f"  input   {name} = {value}")
        elif step.kind == "value":
            lines.append(f"  value   {name} = {value.ljust(6)}  ← {step.detail}")
        elif step.kind == "die":
            lines.append(f"  die     {name} : {value.ljust(6)}  {step.detail}".rstrip())
        elif step.kind in ("pool", "draw"):
            lines.append(f"  {step.kind.ljust(7)} {name} : {value}  ({step.detail})")
        elif step.kind in ("reroll", "redraw", "choice"):
            lines.append(f"  {step.kind.ljust(7)} {name} : {step.detail}")
            if step.kind != "choice":
                lines.append(f"  {''.ljust(7)} {''.ljust(width)}   now {value}")
        elif step.kind == "auto":
            lines.append(f"  auto    {name} = {value}  ← {step.detail}")
        elif step.kind in ("rule", "outcome"):
            lines.append(f"  outcome {name} = {value}  ← {step.detail}")
        elif step.kind == "again":
            lines.append(f"  again   {name} : {step.detail}")
        elif step.kind == "output":
            lines.append(f"  output  {name} = {value.ljust(6)}  ← {step.detail}")
    lines.append(f"=> {result.outcome.name}")
    return "\n".join(lines)


def _how_many(count: Expr, one: str, many: str) -> str:
    """`count` things, as `show` says it: '3 dice', '1 die', or for a count written as an
    expression 'dice (how many: n)', the expression set apart from the noun so that a count
    named like it (an input `dice`) never reads 'dice dice'."""
    node = count.node
    if isinstance(node, ast.Num) and type(node.value) is int:
        return f"{node.value} {one if node.value == 1 else many}"
    return f"{many} (how many: {to_text(node)})"


def _named(name: str, title: str) -> str:
    """A name with its title, or alone where the title is the name (its default): never 'x: x'."""
    return name if title == name else f"{name}: {one_title(title)}"


def one_title(title: str) -> str:
    """A title as one line of the text it heads: a title from a block scalar (`title: |`) ends in
    a line break, left out, and one within it is written `\\n`, as a diagnostic writes a file name
    (`one_line`): printed as it was, `show` and `list` wrote a check's title across lines. A tab
    stays a tab, as it always printed: it breaks no line (other control characters are escaped
    where the text is written)."""
    return title.strip().replace("\n", "\\n")


def check_text(check: Check) -> str:
    lines = [_named(check.name, check.title)]
    if check.description:
        lines.append(f"  {check.description}")
    if check.inputs:
        lines.append("  inputs:")
        for i in check.inputs:
            default = f" (default {show(i.default)})" if i.default is not None else " (required)"
            lines.append(
                f"    {i.name}: {describe(i)}{default}" + (f" — {i.description}" if i.description else "")
            )
    if check.roll:
        lines.append("  roll:")
        for r in check.roll:
            faces = ""
            if isinstance(r, (Die, Pool)):  # read from inputs when rolled, or constant
                faces = (
                    f"worked out when rolled from {r.faces_expr.text}"
                    if r.faces_expr
                    else faces_text(r.faces)
                )
            if isinstance(r, Die):
                lines.append(f"    {r.name}: a die with faces {faces}")
            elif isinstance(r, Pool) and r.total:
                lines.append(f"    {r.name}: a die with faces {faces}, read as the total of its dice")
            elif isinstance(r, Pool):
                each = f", each read as {to_text(r.each.node)}" if r.each else ""
                size = (
                    f"one die per element of {to_text(r.count.node)} (its element is 'item')"
                    if r.per
                    else _how_many(r.count, "die", "dice")
                )
                lines.append(f"    {r.name}: a pool of {size} with faces {faces}{each}")
                if r.own is not None:
                    lines.append("      each die rolled on its own, read as the total of its dice:")
            if isinstance(r, Pool):  # a die with triggers is a pool of one: its steps are shown alike
                for t in r.triggers + (r.own.triggers if r.own is not None else ()):
                    verb = "must" if t.must else "may"
                    if t.target is not None:
                        target = f"a die where {t.target.text}"
                    else:  # an added die is a new one; a rerolled one is the die itself
                        target = "a die" if t.action == "add" else "the die itself"
                    extra = f", only if {t.only_if.text}" if t.only_if is not None else ""
                    # the keys that change what it does, as written (hunt 13w: a rote's
                    # first_roll_only and "reroll until" read alike here)
                    extra += ", first_roll_only: true" if t.first_roll_only else ""
                    extra += ", repeat: false" if not t.repeat else ""
                    extra += f", pick: {t.pick}" if t.pick != "lowest" else ""
                    extra += f", take: {t.take}" if t.take != "any" else ""
                    lines.append(
                        f"      {t.name}: each die where {t.on.text} "
                        f"{verb} {t.action} {target} ×{t.per_die}{extra}"
                    )
                if r.cap is not None:
                    lines.append(f"      at most {r.cap} dice rerolled or added in all")
                if r.own is not None and r.own.cap is not None:
                    lines.append(f"      at most {r.own.cap} dice rerolled or added for each die")
            elif isinstance(r, Draw):
                lines.append(
                    f"    {r.name}: a draw of {_how_many(r.count, 'chit', 'chits')} "
                    f"from bag '{r.bag.name}' ({r.bag.size} chits)"
                )
            if r.redraw is not None:
                verb = "must" if r.redraw.must else "may"
                lines.append(
                    f"      {verb} be redrawn when {r.redraw.allowed.text}, "
                    f"up to {r.redraw.times.text} time(s)"
                )
    if check.auto:
        lines.append("  decided before rolling:")
        for rule in check.auto:
            when = to_text(rule.when.node) if rule.when else "otherwise"
            lines.append(f"    {to_text(rule.then.node)} when {when}")
    if check.lets:
        lines.append("  values:")
        for let in check.lets:
            lines.append(f"    {let.name} = {to_text(let.expr.node)}")
    lines.append(f"  outcomes (worst → best): {', '.join(check.outcomes.names)}")
    if isinstance(check.outcome, Expr):
        lines.append(f"  outcome = {to_text(check.outcome.node)}")
    else:
        lines.append("  outcome:")
        for rule in check.outcome:
            when = f"when {to_text(rule.when.node)}" if rule.when else "otherwise"
            then = "again (the whole check is rolled again)" if rule.again else to_text(rule.then.node)
            lines.append(f"    {then} {when}")
    if check.outputs:
        lines.append("  outputs:")
        for name, expr in check.outputs:
            lines.append(f"    {name} = {to_text(expr.node)}")
    if check.sequential:
        lines.append(f"  the optimal policy plays for {check.objective.describe()}")
    if check.examples:
        lines.append(f"  examples: {len(check.examples)} (rulecraft test)")
    return "\n".join(lines)


def ruleset_text(model: RulesetModel) -> str:
    lines = [f"{_named(model.name, model.title)}  ({model.source_name})"]
    if model.bags:
        lines.append("bags:")
        for b in model.bags.values():
            chits = ", ".join(f"{n} {s.name}" for s, n in b.contents())
            lines.append(f"  {b.name}: {chits} ({b.sets} set{'' if b.sets == 1 else 's'})")
    lines.append("checks:")
    for c in model.checks.values():
        lines.append(f"  {_named(c.name, c.title)}")
    if model.state is not None:
        lines += _state_lines(model.state)
    if model.notes:
        lines.append("notes:")
        for n in model.notes:
            lines.append(f"  [{n.id}] {n.text}")
    return "\n".join(lines)


def _state_lines(state: StateModel) -> list[str]:
    """What a campaign of this ruleset keeps, and the actions that change it."""
    lines = ["state (rulecraft campaign):"]
    if state.periods:
        lines.append(f"  periods: {', '.join(state.periods)}")
    for label, specs in (("campaign parameters", state.campaign), ("character parameters", state.character)):
        if specs:
            lines.append(f"  {label}: " + ", ".join(f"{s.name} ({describe(s)})" for s in specs))
    for label, items in (("the table", state.shared), ("each character", state.each)):
        if items:
            lines.append(f"  {label}: {', '.join(_item_kind(i) for i in items.values())}")
    if state.actions:
        lines.append("actions:")
        for a in state.actions.values():
            by = " (by a character)" if a.by == "character" else ""
            lines.append(f"  {_named(a.name, a.title)}{by}")
    return lines


def _item_kind(item: Item) -> str:
    from ..model.state import Derived, Tally  # a ruleset without state never imports them

    if isinstance(item, Tally):
        return f"{item.name} (a tally of {', '.join(item.scale.names)})"
    if isinstance(item, Derived):
        return f"{item.name} (= {item.expr.text})"
    return f"{item.name} (a counter)"


def _bar(p: float, width: int = 30) -> str:
    cells = p * width
    full = int(cells)
    part = " ▏▎▍▌▋▊▉"[int((cells - full) * 8)]
    return ("█" * full + (part if full < width else "")).rstrip()


def distribution_text(dist: Distribution, title: str) -> str:
    """The outcomes worst → best with exact fraction, percentage and a bar."""
    rows = dist.table()
    width = max(len(s.name) for s, _ in rows)
    fracs = [exact(p) for _, p in rows]  # 1/20, and 0 or 1 as they are
    fw = max(len(f) for f in fracs)
    lines = [title]
    for (s, p), f in zip(rows, fracs):
        lines.append(f"  {s.name.ljust(width)}  {f.rjust(fw)}  {percent(p)}  {_bar(float(p))}")
    return "\n".join(lines)


AGAIN_NOTE = (
    "a rule 'then: again' makes the check again where it fires: these are the chances of the roll that ends"
)
"""What a distribution of a check with a rule `then: again` gives: the same for every policy."""


def distribution_notes(dist: Distribution, again: bool = False) -> list[str]:
    """What a distribution's numbers leave out: the probability a reroll cap ended the procedure,
    an uncapped explosion's tail, and (`again`: the check has a rule `then: again`) the rolls made
    again, whose chances the numbers are not: they are those of the roll that ends."""
    notes = [AGAIN_NOTE] if again else []
    if dist.capped:
        notes.append(f"a reroll cap ended the procedure with probability {readable(dist.capped)}")
    if dist.truncated:
        notes.append(CUT_NOTE.format(readable(dist.truncated)))
    return notes


CUT_NOTE = (
    "an uncapped explosion was followed until {} of the probability was left: "
    "each number above is exact to within it"
)
"""What a roll's numbers leave out when it was cut (`Distribution.truncated`, `Dist.truncated`)."""


def value_text(name: str, dist: Dist) -> str:
    """One named value's distribution, with its mean when it is a number."""
    items = list(dist.items())
    width = max(len(show(v)) for v, _ in items)
    fracs = [fraction(p) for _, p in items]
    fw = max(len(f) for f in fracs)
    head = f"  {name}:"
    try:
        mean = dist.mean
        written = fraction(mean)
        if mean.denominator == 1 and not _long(mean):
            head += f" mean {mean}"
        elif len(written) > 24:  # an explosion's tail: the fraction is no help to read
            head += f" mean ≈ {float(mean):.3f}"
        else:
            head += f" mean {written} ≈ {float(mean):.3f}"
    except TypeError:
        pass
    lines = [head]
    for (v, p), f in zip(items, fracs):
        lines.append(f"    {show(v).rjust(width)}  {f.rjust(fw)}  {percent(p)}  {_bar(float(p), 20)}")
    return "\n".join(lines)


def sweep_text(name: str, values: list[object], dists: list[Distribution]) -> str:
    """One row per input value, one column per outcome (percentages)."""
    members = dists[0].outcomes.members
    rows = [[percent(d.probability(m)) for m in members] for d in dists]
    widths = [max(len(m.name), *(len(row[c]) for row in rows)) for c, m in enumerate(members)]
    nw = max([len(name)] + [len(show(v)) for v in values])
    lines = [name.rjust(nw) + "  " + "  ".join(m.name.rjust(w) for m, w in zip(members, widths))]
    for v, row in zip(values, rows):
        lines.append(show(v).rjust(nw) + "  " + "  ".join(c.rjust(w) for c, w in zip(row, widths)))
    return "\n".join(lines)


# -- campaigns --------------------------------------------------------------------------------------


def _item_text(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{n} {m}" for m, n in value.items()) or "none"
    return show(value) if not isinstance(value, str) else value


def ruleset_shown(ref: str) -> str:
    """A campaign's ruleset as a line of text names it: a file by its name (the full path it is
    found by is in `--json` and `export`), a shipped ruleset by its own."""
    return PurePath(ref).name if PurePath(ref).is_absolute() else ref


def campaign_text(shown: Mapping[str, Any]) -> str:
    """A campaign's state as `rulecraft campaign show` prints it (from `Campaign.show()`)."""
    params = ", ".join(f"{k}={_item_text(v)}" for k, v in shown["params"].items())
    lines = [
        f"campaign {shown['campaign']} ({ruleset_shown(shown['ruleset'])}{'; ' + params if params else ''})"
    ]
    for name, value in shown["shared"].items():
        lines.append(f"  {name}: {_item_text(value)}")
    for who, sheet in shown["characters"].items():
        extra = ", ".join(f"{k}={_item_text(v)}" for k, v in sheet["params"].items())
        lines.append(f"  {who}{' (' + extra + ')' if extra else ''}")
        for name, value in sheet["items"].items():
            lines.append(f"    {name}: {_item_text(value)}")
    return "\n".join(lines)


def possessive(name: str) -> str:
    """`bo's`, and `your` for a party a scene calls `you` (not "you's")."""
    return "your" if name.lower() == "you" else f"{name}'s"


def _effect_text(e: Mapping[str, Any]) -> str:
    who = f"{possessive(e['character'])} " if e.get("character") else ""
    if "from" in e and "to" in e:
        return f"{who}{e['item']} {_item_text(e['from'])} → {_item_text(e['to'])}"
    return f"{who}{e['item']} reset to {_item_text(e.get('value'))}"


def event_text(event: Event) -> str:
    """One line of a campaign's log."""
    d = event.data
    head = f"#{event.seq} {event.at}"
    if event.kind == "new":
        return f"{head} made the campaign"
    if event.kind == "join":
        return f"{head} {d['character']} joins"
    if event.kind == "period":
        done = "; ".join(_effect_text(e) for e in d.get("effects", []))
        return f"{head} a {d['period']} begins" + (f": {done}" if done else "")
    if event.kind == "undo":
        return f"{head} undo #{event.undoes} ({d.get('kind', '')})"
    if event.kind == "scene":
        cast = ", ".join(f"{p}={c}" for p, c in d.get("cast", {}).items())
        rounds = f"{d['rounds']} round{'' if d['rounds'] == 1 else 's'}"
        return f"{head} scene {d['scene']} ({cast}): {d['ending']} after {rounds}"
    if event.kind == "migrate":
        carried = d.get("carried") or []
        what = ": " + ", ".join(str(c) for c in carried) if isinstance(carried, list) and carried else ""
        return (
            f"{head} the ruleset changed ({str(d.get('from', ''))[:12]} → {str(d.get('to', ''))[:12]}){what}"
        )
    roll = d.get("roll")
    rolled = f" rolled {roll['check']}: {roll['outcome']}" if roll else ""
    if event.kind == "roll":
        return f"{head}{rolled} (seed {d.get('seed')})"
    who = f" by {d['character']}" if d.get("character") else ""
    inputs = ", ".join(f"{k}={_item_text(v)}" for k, v in d.get("inputs", {}).items())
    done = "; ".join(_effect_text(e) for e in d.get("effects", []))
    return f"{head} {d['action']}{who}{' (' + inputs + ')' if inputs else ''}{rolled}" + (
        f" → {done}" if done else ""
    )


def event_json(event: Event) -> dict[str, Any]:
    return {
        "seq": event.seq,
        "kind": event.kind,
        "at": event.at,
        "undoes": event.undoes,
        "data": event.data,
        "state": event.state,
    }


def store_path(store: Any) -> str:
    """Where a store keeps its campaigns, for messages."""
    return str(getattr(store, "path", "the campaign database"))


def state_distribution_text(
    title: str,
    marginals: Mapping[str, Dist],
    now: Mapping[str, Dist] | None = None,
    cut: Fraction = Fraction(0),
) -> str:
    """After one action: each item's exact distribution — with `now` (the items as they are), only
    those that may change; `cut`, the share an uncapped explosion the action rolls left out
    (`Dist.truncated`), noted as `prob` notes it."""
    lines = [title]
    for name, dist in marginals.items():
        if now is not None and name in now and len(dist) == 1 and set(dist.weights) == set(now[name].weights):
            continue
        rows = sorted(dist.weights.items(), key=lambda vw: -vw[1])
        texts = [_item_text(json.loads(v)) for v, _ in rows]
        width = max(len(s) for s in texts)
        lines.append(f"  {name}:")
        for (_, w), text in zip(rows, texts):
            p = Fraction(w, dist.total)
            lines.append(
                f"    {text.ljust(width)}  {fraction(p).rjust(9)}  {percent(p)}  {_bar(float(p), 20)}"
            )
    if len(lines) == 1:
        lines.append("  nothing changes")
    if cut:
        lines.append(f"  note: {CUT_NOTE.format(readable(cut))}")
    return "\n".join(lines)


_LONG = 10**MAX_DIGITS
"""A numerator or denominator this long is past what text writes out (`MAX_DIGITS`, as a number
is written): the fraction is told by its length (`--json` keeps it exact, in hexadecimal past
Python's own bound: `dist.fraction_text`)."""


def fraction(p: Fraction) -> str:
    """An exact number as `n/d`, a whole one too (`1/1`), or past `MAX_DIGITS` digits a side its length:
    Python writes no whole number of more than 4,300 digits, and a redraw of a thousand tries has
    a chance that long (`prob` had ended in a `ValueError`), unreadable long before."""
    return _long(p) or f"{p.numerator}/{p.denominator}"


def exact(p: Fraction) -> str:
    """`fraction`, but a whole number as itself (`1`, not `1/1`)."""
    return _long(p) or (str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}")


def _long(p: Fraction) -> str:
    """'' for a fraction `fraction` writes out; else its length, in words."""
    longest = max(abs(p.numerator), p.denominator)
    if longest < _LONG:
        return ""
    return f"(a fraction of {digits(longest):,} digits)"


def percent(p: Fraction) -> str:
    """A chance as a percentage with two decimals, one too small for them in scientific form
    (`4.2e-8%`; worked out in decimals, as a float of 1/2**20000 is 0), so a chance that is not 0
    never reads as 0.00%; nor one that is not 1 as 100.00% (`>99.99%`, where a chance of
    1 - 1e-22 in a scene grid read as a certainty: hunt 13m)."""
    if Fraction(19_999, 20_000) <= p < 1:
        return ">99.99%"
    if not p or p >= Fraction(1, 20_000):
        return f"{float(p) * 100:6.2f}%"
    with localcontext() as context:
        context.prec = 2  # one rounding, of the quotient (a product rounded first was off by one)
        return f"{Decimal(p.numerator * 100) / Decimal(p.denominator):.1e}%"


# -- scenes ---------------------------------------------------------------------------------------------


def scene_odds_text(odds: Odds, title: str) -> str:
    """Each ending's exact chance with a bar, then the length: its mean and its distribution."""
    rows = list(odds.endings.items())
    width = max(len(str(e)) for e, _ in rows)
    fracs = [fraction(p) for _, p in rows]
    fw = max(len(f) for f in fracs)
    lines = [title]
    for (e, p), f in zip(rows, fracs):
        lines.append(f"  {str(e).ljust(width)}  {f.rjust(fw)}  {percent(p)}  {_bar(float(p))}")
    if odds.mean_rounds is not None:
        m = odds.mean_rounds
        exact = f" = {fraction(m)}" if m.denominator != 1 and len(fraction(m)) <= 24 else ""
        lines.append(f"  rounds: mean {float(m):.3f}{exact}")
    else:
        lines.append("  rounds: some states never end, so the length has no mean")
    shown = [(r, p) for r, p in odds.rounds.items() if p][:12]
    for r, p in shown:
        lines.append(f"    {str(r).rjust(4)}  {percent(p)}  {_bar(float(p), 20)}")
    # the rounds not shown, together (not added up one by one: a long count has 100,000 of them),
    # and apart from them what lasts past `max_rounds` (a state that never ends among it): a
    # scene stuck for ever would otherwise read as one that goes on a few more rounds
    rest = odds.later(shown[-1][0] if shown else 0)
    if rest:
        lines.append(f"    {'more'.rjust(4)}  {percent(rest)}")
    if odds.longer:
        lines.append(f"  longer  {percent(odds.longer)}  (still going after max_rounds)")
    if odds.expected is not None and odds.expected:
        lines.append("  expected at the end:")
        named = max(len(n) for n in odds.expected)
        for name, v in odds.expected.items():
            exact = f" = {fraction(v)}" if v.denominator != 1 and len(fraction(v)) <= 24 else ""
            lines.append(f"    {name.ljust(named)}  {float(v):.4f}{exact}")
    elif odds.expected is None:
        lines.append("  expected at the end: none, since some states never end")
    lines.append(f"  ({odds.states} {'state' if odds.states == 1 else 'states'}, policy {odds.policy})")
    if odds.truncated:
        lines.append(f"  note: {SCENE_CUT_NOTE.format(readable(odds.truncated))}")
    return "\n".join(lines)


SCENE_CUT_NOTE = (
    "a roll of this scene is an uncapped explosion followed until {} of its probability was left: "
    "the numbers above are exact for the rolls so cut, and each step's chances are exact to within it"
)
"""What a scene's odds leave out when a roll it makes was cut (`Odds.truncated`)."""


def scene_grid_text(rows: list[str], columns: list[str] | None, chances: list[list[Fraction]]) -> str:
    """A scene grid's table: a row label, then each column's chance as the scene's odds show one
    (`percent`: a tiny chance in scientific form, not 0.00%), each column as wide as its widest
    label or cell, so a long one does not push the columns apart. `columns` None: one column, no head."""
    cells = [[percent(p) for p in row] for row in chances]
    heads = columns if columns is not None else [""] * len(cells[0])
    widths = [max(len(head), *(len(row[c]) for row in cells)) for c, head in enumerate(heads)]
    width = max(len(r) for r in rows)
    lines = [" " * (width + 2) + "  ".join(h.rjust(w) for h, w in zip(heads, widths))] if columns else []
    for label, row in zip(rows, cells):
        lines.append(label.rjust(width) + "  " + "  ".join(s.rjust(w) for s, w in zip(row, widths)))
    return "\n".join(lines)


def batch_text(batch: Batch, title: str) -> str:
    """Many rolls of a check: each outcome's count and share with its standard error."""
    width = max(len(o) for o in batch.outcomes)
    counts = max(len(str(n)) for n in batch.outcomes.values())
    lines = [title]
    for o, n in batch.outcomes.items():
        share, se = batch.share(o), batch.standard_error(o)
        shown = f"{share * 100:6.2f}% ± {se * 100:.2f}%"
        lines.append(f"  {o.ljust(width)}  {str(n).rjust(counts)}  {shown}  {_bar(share)}")
    lines.append(f"  ({batch.times} rolls, policy {batch.policy}; ± is one standard error)")
    return "\n".join(lines)


def sampled_text(sampled: Sampled, title: str) -> str:
    """Many played scenes: each ending's count and share with its standard error, the mean length."""
    from ..model.scene import UNFINISHED  # imported with scenes only: a roll's start-up does without

    rows = [(e, n) for e, n in sampled.endings.items() if n or e != UNFINISHED]
    width = max(len(e) for e, _ in rows)
    counts = max(len(str(n)) for _, n in rows)
    lines = [title]
    for e, n in rows:
        share, se = sampled.share(e), sampled.standard_error(e)
        shown = f"{share * 100:6.2f}% ± {se * 100:.2f}%"
        lines.append(f"  {e.ljust(width)}  {str(n).rjust(counts)}  {shown}  {_bar(share)}")
    mean = sampled.mean_rounds()
    lines.append(
        f"  rounds: mean {mean:.3f}"
        if mean is not None
        else f"  rounds: no mean ({sampled.endings[UNFINISHED]} scenes were still going after max_rounds)"
    )
    lines.append(f"  ({sampled.scenes} scenes, policy {sampled.policy}; ± is one standard error)")
    return "\n".join(lines)


def _why(entry: Mapping[str, Any]) -> str:
    """Why the optimal policy took or declined a choice: the objective's chance either way."""
    choice = entry.get("choice") or {}
    if "objective" not in choice:
        return ""
    p = f"P({choice['objective']})"
    verdict = "taken" if choice["taken"] else "declined"
    return f"  [{verdict}: {p} {choice['if_taken']:.4f} if taken, {choice['if_declined']:.4f} if not]"


def played_text(played: Played, title: str) -> str:
    """A sampled scene, one line a step."""
    lines = [title]
    for e in played.trace:
        head = f"  round {str(e['round']).rjust(3)}  "
        if "begin" in e:
            done = "; ".join(_effect_text(x) for x in e.get("effects", []))
            lines.append(f"{head}a {e['begin']} begins" + (f": {done}" if done else ""))
            continue
        who = f"{e['by']}: " if e.get("by") else ""
        others = ", ".join(f"{r}={n}" for r, n in (e.get("others") or {}).items())
        if "refused" in e:
            lines.append(f"{head}{who}{e['action']} refused ({e['refused']}){_why(e)}")
            continue
        inputs = ", ".join(f"{k}={_item_text(v)}" for k, v in e.get("inputs", {}).items())
        args = ", ".join(s for s in (others, inputs) if s)
        outcome = f" → {e['outcome']}" if "outcome" in e else ""
        done = "; ".join(_effect_text(x) for x in e.get("effects", []))
        lines.append(
            f"{head}{who}{e['action']}{' (' + args + ')' if args else ''}{outcome}"
            + (f"; {done}" if done else "")
            + _why(e)
        )
    lines.append(f"=> {played.ending} after {played.rounds} round{'s' if played.rounds != 1 else ''}")
    return "\n".join(lines)
