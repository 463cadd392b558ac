"""The `rulecraft` command: validate, list, show, roll, prob, test, schema, new.

Exit codes: 0 success; 1 a ruleset, input or evaluation problem (reported as diagnostics,
never a traceback); 2 a usage error.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from .api import Ruleset, load
from .errors import Diagnostic, InputError, RulecraftError, did_you_mean
from .model.values import show
from .runtime.context import POLICIES
from .syntax.resources import schema_path, shipped_rulesets
from .tools.examples import run_examples
from .tools.plot import check_plot_path, plot_distribution, plot_sweep
from .tools.render import check_text, distribution_text, result_text, ruleset_text, sweep_text, value_text
from .tools.starter import NAME_PATTERN, schema_reference, starter_text


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return run(list(sys.argv[1:] if argv is None else argv), sys.stdout, sys.stderr)
    except BrokenPipeError:  # the reader (head, less) went away: not an error of ours
        sys.stderr.close()
        return 0


def run(argv: list[str], out: TextIO, err: TextIO) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        code: int = args.func(args, out, err)
        return code
    except RulecraftError as exc:
        if getattr(args, "json", False) or getattr(args, "format", "text") == "json":
            json.dump({"ok": False, "diagnostics": [d.as_json() for d in exc.diagnostics]}, out, indent=2)
            out.write("\n")
        else:
            err.write(exc.render() + "\n")
        return 1


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rulecraft", description="A declarative rules engine for tabletop RPGs.")
    sub = p.add_subparsers(dest="command", required=True)

    v = sub.add_parser("validate", help="check ruleset files or folders; exit 1 on any problem")
    v.add_argument("paths", nargs="+", help="ruleset files, folders of them, or shipped ruleset names")
    v.add_argument("--format", choices=["text", "json"], default="text", help="diagnostics as text or JSON")
    v.add_argument(
        "--strict",
        action="store_true",
        help="treat lint warnings as errors (RC809, 'not fully analysed', stays a warning)",
    )
    v.set_defaults(func=_validate)

    ls = sub.add_parser("list", help="the shipped rulesets and their checks")
    ls.set_defaults(func=_list)

    sh = sub.add_parser("show", help="what a ruleset or one of its checks offers")
    sh.add_argument("ruleset", help="a shipped ruleset's name or a path")
    sh.add_argument("check", nargs="?", help="a check of the ruleset")
    sh.set_defaults(func=_show)

    r = sub.add_parser("roll", help="roll one check and explain the result")
    r.add_argument("ruleset", help="a shipped ruleset's name or a path")
    r.add_argument("check", help="the check to roll")
    r.add_argument(
        "-i", "--input", action="append", default=[], metavar="NAME=VALUE", help="an input of the check"
    )
    r.add_argument(
        "--force",
        action="append",
        default=[],
        metavar="NAME=FACES",
        help="fix a die (tens=5), pool (dice=9,2,0) or draw (beads=good)",
    )
    r.add_argument("--seed", type=int, help="seed for a replayable roll")
    r.add_argument(
        "--policy",
        choices=POLICIES,
        default="always",
        help="how the player decides every 'may' (default always)",
    )
    r.add_argument("--json", action="store_true", help="print the result as JSON")
    r.set_defaults(func=_roll)

    pr = sub.add_parser("prob", help="the exact distribution of a check's outcomes")
    pr.add_argument("ruleset", help="a shipped ruleset's name or a path")
    pr.add_argument("check", help="the check")
    pr.add_argument(
        "-i", "--input", action="append", default=[], metavar="NAME=VALUE", help="an input of the check"
    )
    pr.add_argument("--sweep", metavar="NAME=A..B", help="one row per value of an input (A..B, or a,b,c)")
    pr.add_argument(
        "--value",
        action="append",
        default=[],
        metavar="NAME",
        help="also show the distribution of a named value",
    )
    pr.add_argument(
        "--plot",
        metavar="FILE",
        help="draw the distribution or sweep to a .png or .svg file (needs matplotlib)",
    )
    pr.add_argument("--json", action="store_true", help="print exact fractions as JSON")
    pr.add_argument(
        "--policy",
        choices=[*POLICIES, "all"],
        default="always",
        help="how the player decides every 'may'; 'all' shows the three side by side",
    )
    pr.set_defaults(func=_prob)

    t = sub.add_parser("test", help="run the worked examples written inside rulesets; exit 1 on any failure")
    t.add_argument(
        "paths", nargs="*", help="ruleset files, folders, or shipped names (default: the shipped rulesets)"
    )
    t.add_argument("--format", choices=["text", "json"], default="text", help="results as text or JSON")
    t.set_defaults(func=_test)

    s = sub.add_parser("schema", help="print the ruleset JSON Schema")
    s.set_defaults(func=_schema)

    n = sub.add_parser("new", help="write a commented starter ruleset NAME.yaml (never overwrites)")
    n.add_argument("name", help="the ruleset's name, or a path such as games/mygame; '.yaml' is added")
    n.set_defaults(func=_new)
    return p


def _ruleset(ref: str) -> Ruleset:
    """A shipped ruleset by name, or any ruleset by path."""
    return load(ref if ref in shipped_rulesets() or not Path(ref).exists() else Path(ref))


def _pairs(items: list[str], what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise InputError([Diagnostic("RC407", f"{what} '{item}' is not of the form NAME=VALUE", None)])
        out[name.strip()] = value.strip()
    return out


def _files(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for p in paths:
        if p in shipped_rulesets() and not Path(p).exists():
            found.append(shipped_rulesets()[p])
            continue
        path = Path(p)
        if path.is_dir():
            found.extend(sorted(q for q in path.rglob("*") if q.suffix in (".yaml", ".yml")))
        else:
            found.append(path)
    return found


def _validate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Load each file (schema, names, types), then lint it; every problem of a file in one
    run, errors first, then by position. `--strict` makes warnings errors (not RC809)."""
    from .tools.lint import lint, ordered, promote

    files = _files(args.paths)
    report: list[dict[str, Any]] = []
    failed = 0
    for f in files:
        checks: list[str] | None = None
        try:
            rs = load(f)
            checks = list(rs.checks)
            diags = ordered(promote(lint(rs), getattr(args, "strict", False)))
        except RulecraftError as exc:
            diags = ordered(exc.diagnostics)
        errors = sum(d.severity == "error" for d in diags)
        warnings = len(diags) - errors
        ok = checks is not None and not errors
        failed += not ok
        entry: dict[str, Any] = {"file": str(f), "ok": ok}
        if checks is not None:
            entry["checks"] = checks
        entry.update(errors=errors, warnings=warnings, diagnostics=[d.as_json() for d in diags])
        report.append(entry)
        if args.format == "text":
            if ok and checks is not None:
                more = f", {warnings} warning(s)" if warnings else ""
                out.write(
                    f"ok      {f}  ({len(checks)} check{'s' if len(checks) != 1 else ''}: "
                    f"{', '.join(checks)}{more})\n"
                )
            else:
                out.write(f"FAILED  {f}\n")
            if diags:
                err.write("\n".join(d.render() for d in diags) + "\n")
    if not files:
        err.write("no ruleset files found\n")
        return 1
    if args.format == "json":
        json.dump({"ok": failed == 0, "files": report}, out, indent=2)
        out.write("\n")
    elif failed:
        out.write(f"{failed} of {len(files)} file(s) failed\n")
    return 1 if failed else 0


def _list(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    loaded = [(name, load(path)) for name, path in shipped_rulesets().items()]
    width = max([len(n) for n, _ in loaded] + [len(c) + 2 for _, rs in loaded for c in rs.checks]) + 1
    for name, rs in loaded:
        out.write(f"{name:<{width}} {rs.title}\n")
        for c in rs.checks.values():
            out.write(f"  {c.name:<{width - 2}} {c.title}\n")
    return 0


def _show(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    rs = _ruleset(args.ruleset)
    if args.check:
        out.write(check_text(rs.check(args.check)) + "\n")
    else:
        out.write(ruleset_text(rs.model) + "\n")
    return 0


def _forced(pairs: dict[str, str]) -> dict[str, Any]:
    forced: dict[str, Any] = {}
    for name, text in pairs.items():
        parts = [p.strip() for p in text.split(",") if p.strip()]
        values: list[Any] = [int(p) if p.lstrip("-").isdigit() else p for p in parts]
        forced[name] = (
            values[0] if len(values) == 1 and isinstance(values[0], int) and "," not in text else values
        )
    return forced


def _roll(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    rs = _ruleset(args.ruleset)
    inputs = _pairs(args.input, "input")
    forced = _forced(_pairs(args.force, "force"))
    rng = random.Random(args.seed)
    result = rs.roll(args.check, rng, forced=forced or None, policy=args.policy, **inputs)
    if args.json:
        data = result.as_json()
        data["ruleset"] = rs.name
        data["seed"] = args.seed
        json.dump(data, out, indent=2)
        out.write("\n")
    else:
        seed = f"  (seed {args.seed})" if args.seed is not None else ""
        out.write(result_text(result, f"{rs.name} · {rs.check(args.check).title}{seed}") + "\n")
    return 0


def _sweep_values(spec: str) -> tuple[str, list[str]]:
    name, sep, text = spec.partition("=")
    if not sep or not name.strip() or not text.strip():
        raise InputError(
            [Diagnostic("RC407", f"--sweep '{spec}' is not of the form NAME=A..B or NAME=a,b,c", None)]
        )
    if ".." in text:
        lo, _, hi = text.partition("..")
        try:
            a, b = int(lo), int(hi)
        except ValueError:
            raise InputError(
                [Diagnostic("RC407", f"--sweep range '{text}' needs whole numbers, like 1..120", None)]
            ) from None
        if b < a or b - a > 10_000:
            raise InputError(
                [
                    Diagnostic(
                        "RC407", f"--sweep range '{text}' must run upwards over at most 10001 values", None
                    )
                ]
            )
        return name.strip(), [str(v) for v in range(a, b + 1)]
    return name.strip(), [v.strip() for v in text.split(",") if v.strip()]


def _prob(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    rs = _ruleset(args.ruleset)
    check = rs.check(args.check)
    inputs = _pairs(args.input, "input")
    title = f"{rs.name} · {check.title}"
    if args.plot:
        check_plot_path(Path(args.plot))
    if args.policy == "all":
        return _prob_policies(rs, args, inputs, title, out)
    if args.sweep:
        name, values = _sweep_values(args.sweep)
        dists = [rs.distribution(args.check, policy=args.policy, **{**inputs, name: v}) for v in values]
        points = [dists[i].inputs[name] for i in range(len(values))]
        if args.json:
            json.dump(
                {
                    "ruleset": rs.name,
                    "check": check.name,
                    "sweep": name,
                    "rows": [d.as_json() for d in dists],
                },
                out,
                indent=2,
            )
            out.write("\n")
        else:
            fixed = ", ".join(f"{k}={v}" for k, v in inputs.items())
            out.write(
                f"{title}{'  (' + fixed + ')' if fixed else ''}\n" + sweep_text(name, points, dists) + "\n"
            )
        if args.plot:
            plot_sweep(name, points, dists, Path(args.plot), f"{title}: outcome by {name}")
            if not args.json:
                out.write(f"wrote {args.plot}\n")
        return 0
    dist = rs.distribution(args.check, policy=args.policy, **inputs)
    for name in args.value:
        if name not in dist.values:
            hint = did_you_mean(name, dist.values) or f"values: {', '.join(dist.values)}"
            raise InputError(
                [
                    Diagnostic(
                        "RC402", f"check '{check.name}' has no numeric or scale value '{name}'", None, hint
                    )
                ]
            )
    if args.json:
        data = dist.as_json()
        data["ruleset"] = rs.name
        json.dump(data, out, indent=2)
        out.write("\n")
    else:
        shown = ", ".join(f"{k}={show(v)}" for k, v in dist.inputs.items())
        policy = f"  policy {args.policy}" if check.sequential else ""
        out.write(distribution_text(dist, f"{title}{'  (' + shown + ')' if shown else ''}{policy}") + "\n")
        if dist.capped:
            out.write(
                f"  note: a reroll cap ended the procedure with probability {dist.capped} "
                f"({float(dist.capped) * 100:.2f}%)\n"
            )
        for name in args.value:
            out.write(value_text(name, dist.values[name]) + "\n")
    if args.plot:
        shown = ", ".join(f"{k}={show(v)}" for k, v in dist.inputs.items())
        plot_distribution(dist, Path(args.plot), f"{title} ({shown})")
        if not args.json:
            out.write(f"wrote {args.plot}\n")
    return 0


def _prob_policies(
    rs: Ruleset, args: argparse.Namespace, inputs: dict[str, str], title: str, out: TextIO
) -> int:
    """The three policies side by side: how much the player's choices matter."""
    if args.sweep or args.plot or args.value:
        raise InputError(
            [
                Diagnostic(
                    "RC407",
                    "--policy all shows one distribution; leave out --sweep, --plot and --value",
                    None,
                )
            ]
        )
    dists = {p: rs.distribution(args.check, policy=p, **inputs) for p in POLICIES}
    if args.json:
        json.dump(
            {"ruleset": rs.name, "check": args.check, "policies": {p: d.as_json() for p, d in dists.items()}},
            out,
            indent=2,
        )
        out.write("\n")
        return 0
    first = dists[POLICIES[0]]
    shown = ", ".join(f"{k}={show(v)}" for k, v in first.inputs.items())
    width = max(
        [len(s.name) for s in first.outcomes.members] + [len(m.name) + 2 for m in first.outcomes.members]
    )
    out.write(f"{title}{'  (' + shown + ')' if shown else ''}\n")
    out.write("  " + "".ljust(width) + "".join(p.rjust(10) for p in POLICIES) + "\n")
    for s in first.outcomes.members:
        cells = "".join(f"{float(dists[p].probability(s)) * 100:9.2f}%" for p in POLICIES)
        out.write(f"  {s.name.ljust(width)}{cells}\n")
    target = rs.check(args.check).objective.target
    if target is not None:
        cells = "".join(f"{float(dists[p].at_least(target)) * 100:9.2f}%" for p in POLICIES)
        out.write(f"  {('≥ ' + target.name).ljust(width)}{cells}\n")
    return 0


def _test(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    files = _files(args.paths) if args.paths else list(shipped_rulesets().values())
    failed = passed = broken = 0
    report: list[dict[str, Any]] = []
    for f in files:
        try:
            rs = load(f)
        except RulecraftError as exc:
            broken += 1
            report.append(
                {"file": str(f), "ok": False, "diagnostics": [d.as_json() for d in exc.diagnostics]}
            )
            if args.format == "text":
                err.write(exc.render() + "\n")
            continue
        results = run_examples(rs)
        for r in results:
            if r.passed:
                passed += 1
            else:
                failed += 1
                if args.format == "text":
                    err.write("\n".join(d.render() for d in r.problems) + "\n")
        report.append(
            {
                "file": str(f),
                "ok": all(r.passed for r in results),
                "examples": len(results),
                "diagnostics": [d.as_json() for r in results for d in r.problems],
            }
        )
        if args.format == "text":
            mark = "ok    " if all(r.passed for r in results) else "FAILED"
            out.write(f"{mark}  {f}  ({sum(r.passed for r in results)}/{len(results)} examples)\n")
    if args.format == "json":
        json.dump(
            {"ok": not (failed or broken), "passed": passed, "failed": failed, "files": report}, out, indent=2
        )
        out.write("\n")
    else:
        out.write(
            f"{passed} passed, {failed} failed"
            + (f", {broken} file(s) did not load" if broken else "")
            + "\n"
        )
    return 1 if failed or broken or not files else 0


def _schema(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    out.write(schema_path().read_text(encoding="utf-8"))
    return 0


def _new(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Write a starter ruleset; never overwrite a file that is there."""
    given = Path(args.name)
    target = given if given.suffix in (".yaml", ".yml") else given.with_name(given.name + ".yaml")
    name = target.stem.lower()
    if not NAME_PATTERN.match(name):
        err.write(
            f"rulecraft new: '{target.stem}' is not a ruleset name: "
            "start with a letter, then use a-z 0-9 _ - (for example 'my-game')\n"
        )
        return 2
    if target.exists() or target.is_symlink():
        err.write(
            f"rulecraft new: {target} already exists; "
            "not overwriting it (choose another name, or move the file away)\n"
        )
        return 1
    if not target.parent.is_dir():
        err.write(f"rulecraft new: folder {target.parent} does not exist\n")
        return 1
    text = starter_text(name, schema_reference(target))
    try:
        with target.open("x", encoding="utf-8", newline="\n") as f:
            f.write(text)
    except FileExistsError:
        err.write(f"rulecraft new: {target} already exists; not overwriting it\n")
        return 1
    except OSError as exc:
        err.write(f"rulecraft new: cannot write {target}: {exc.strerror or exc}\n")
        return 1
    out.write(f"wrote {target}: ruleset '{name}' with one check ('act') and one example\n")
    out.write(f"next: rulecraft validate {target} && rulecraft test {target}\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
