"""The `rulecraft` command: validate, list, show, roll, prob, test, schema, new.

Exit codes: 0 success; 1 a ruleset, input or evaluation problem (reported as diagnostics,
never a traceback); 2 a usage error.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import random
import re
import shlex
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

from .api import Ruleset, default_db, load, new_campaign, open_campaign, open_store
from .errors import (
    MAX_DIGITS,
    NO_BEST_PLAY,
    Advice,
    CampaignError,
    Diagnostic,
    InputError,
    LoadError,
    RulecraftError,
    did_you_mean,
    placed,
)
from .eval.batch import METHODS
from .model.values import show
from .runtime import arguments
from .runtime.context import POLICIES
from .runtime.limits import NAMES as LIMIT_NAMES
from .runtime.limits import Limits, sweep_chances
from .syntax.positions import one_line, visible
from .syntax.resources import is_listed_ruleset, is_ruleset_file, schema_path, shipped_rulesets
from .tools.render import (
    AGAIN_NOTE,
    SCENE_CUT_NOTE,
    batch_text,
    campaign_text,
    check_text,
    distribution_notes,
    distribution_text,
    event_json,
    event_text,
    one_title,
    percent,
    played_text,
    result_text,
    ruleset_shown,
    ruleset_text,
    sampled_text,
    scene_grid_text,
    scene_odds_text,
    state_distribution_text,
    store_path,
    sweep_text,
    value_text,
)

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

    from .eval.exact import Distribution
    from .model.ruleset import Check
    from .runtime.work import Work
    from .state.campaign import Campaign
    from .state.records import Event, Store
    from .syntax.positions import Span

# What only some commands use (campaigns, scenes, plots, examples, the linter, the starter) is
# imported by those commands, so that `rulecraft roll` starts without it.


def console() -> None:
    """The `rulecraft` command and `python -m engine`: `main`, then the process ends with what
    the command made left to the operating system. The interpreter's last collection of a fresh
    process's cycles (its modules, classes and compiled rulesets) took about a sixth of a
    `rulecraft roll`; frozen first (`gc.freeze`), they are not collected, only freed with the
    process. Nothing is lost: what a command opens (a campaign store, a file) is closed when the
    command ends, the exit handlers still run and the standard streams are still flushed."""
    code = main()
    gc.freeze()
    raise SystemExit(code)


class _AfterOut:
    """Standard error that lets standard output go first. Piped into one reader (`2>&1 | less`,
    a CI log), standard output is held in a buffer and standard error is not, so `validate`'s
    verdict came out before the diagnostics printed ahead of it; flushed first, the lines keep
    the order they were written in, as on a terminal."""

    def __init__(self, err: TextIO, out: TextIO) -> None:
        self._err, self._out = err, out

    def write(self, text: str) -> int:
        self._out.flush()
        try:
            return self._err.write(text)
        except BrokenPipeError:  # its reader went away (`2>&1 | head`): the status still says
            return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._err, name)


class _OutputLost(Exception):
    """Standard output could not be written (a full disk, a closed descriptor)."""


@contextlib.contextmanager
def _lost() -> Iterator[None]:
    """An `OSError` of standard output as `_OutputLost`; a reader gone (a broken pipe) as it is."""
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise _OutputLost(exc.strerror or str(exc)) from None


class _Out:
    """Standard output whose failures are told apart from any other `OSError`, and whose reader
    may go away (`head`, `less` quit): the rest of the text is then dropped and the command runs
    to its end, so its status is its own. It was 0 whatever the command found, so a CI step
    `rulecraft validate rulesets/ | head` under `set -o pipefail` passed on broken rulesets
    (hunt 13m); a campaign's change was kept before its report either way."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self.gone = False
        """The reader went away: nothing more is written."""

    def write(self, text: str) -> int:
        if self.gone:
            return len(text)
        try:
            with _lost():
                return self._out.write(text)
        except BrokenPipeError:
            self._leave()
            return len(text)

    def flush(self) -> None:
        if self.gone:
            return
        try:
            with _lost():
                self._out.flush()
        except BrokenPipeError:
            self._leave()

    def _leave(self) -> None:
        """Drop what is buffered: standard output's descriptor is pointed at /dev/null, so the
        interpreter's own flush at exit neither fails nor says "Exception ignored" (the way the
        Python docs give for SIGPIPE)."""
        self.gone = True
        with contextlib.suppress(OSError, ValueError, AttributeError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._out.fileno())
            os.close(devnull)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._out, name)


class _Visible:
    """A stream of the command's text whose control characters are written visibly (`visible`:
    `\\x1b`, not the escape itself). Titles, messages and names come from rulesets a stranger
    may have written, and a raw escape sequence in one would be acted on by the terminal (clear
    it, retitle it, hide what was said): every line the command writes passes through here,
    once, rather than each message being escaped where it is made. JSON is written with every
    character past ASCII escaped, so it passes unchanged."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(visible(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose own messages (a usage error, `--help`) are written visibly too:
    argparse writes to standard error itself, past `_Visible`, and a usage error quotes what was
    given. A bad choice is quoted as `repr` writes it, but "unrecognized arguments: --bogus
    ESC]0;pwn BEL" (`$'\\e]0;pwn\\a'`) and `_misplaced`'s words were written raw, and retitled the
    window or cleared the screen. The exit status stays 2."""

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        if message:
            super()._print_message(visible(message), file)


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        # a character the terminal's encoding lacks (`PYTHONIOENCODING=ascii`, a C locale without
        # UTF-8) is written as its escape, `\u2014`, not a UnicodeEncodeError traceback (hunt 13m)
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    try:
        out = cast(TextIO, _Out(sys.stdout))
        err = cast(TextIO, _AfterOut(sys.stderr, out))
        code = run(list(sys.argv[1:] if argv is None else argv), out, err)
        out.flush()  # met here, in a line of ours, rather than as the interpreter exits
        return code
    except _OutputLost as exc:  # what the command changed (a campaign's event) was kept before it
        lost = Diagnostic("RC603", f"could not write to standard output: {exc}", None)  # a file unwritten
        sys.stderr.write(lost.render() + "\n")
        return 1
    except BrokenPipeError:  # standard error's reader went away too: nothing more can be said
        with contextlib.suppress(OSError):
            sys.stderr.close()
        return 1
    except KeyboardInterrupt:  # Ctrl-C: the user's stop, said in a line (a campaign's write is
        sys.stderr.write("interrupted\n")  # one transaction: an interrupted one is not kept)
        return 130


def run(argv: list[str], out: TextIO, err: TextIO) -> int:
    out, err = cast(TextIO, _Visible(out)), cast(TextIO, _Visible(err))
    first = next((a for a in argv if not a.startswith("-")), "")
    parser = _parser(first)
    commands = _subcommands(parser)
    if commands is not None and first not in commands.choices:  # an option's value before the command
        parser = _parser(next((a for a in argv if a in commands.choices), first))
    try:
        _misplaced(parser, argv)
        args, extra = parser.parse_known_args(argv)
        if extra:
            _unrecognized(_command_parser(parser, argv), extra, argv, args)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        _bad_values(args)
        args.limits = _limits(getattr(args, "limit", []))
        for option, flag in (("plot", "--plot"), ("out", "--out")):
            if getattr(args, option, None) == "":  # not "no file": a name lost (an unset variable, say)
                raise InputError([Diagnostic("RC407", f"{flag} needs a file name, not an empty one", None)])
        with contextlib.ExitStack() as closing:
            args.closing = closing  # what a command opens (a campaign store) is closed when it ends
            code: int = args.func(args, out, err)
        return code
    except RulecraftError as exc:
        if getattr(args, "json", False) or getattr(args, "format", "text") == "json":
            _dump({"ok": False, "diagnostics": [d.as_json() for d in exc.diagnostics]}, out)
        else:
            err.write(exc.render() + "\n")
        return 1


def _subcommands(parser: argparse.ArgumentParser) -> Any:
    """The subcommands `parser` offers (argparse's `_SubParsersAction`), or None."""
    return next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)


def _takes(parser: argparse.ArgumentParser, option: str) -> bool:
    """Whether `parser` or one of its subcommands (built ones) takes `option`."""
    if option in parser._option_string_actions:
        return True
    commands = _subcommands(parser)
    return commands is not None and any(_takes(q, option) for q in commands.choices.values())


def _misplaced(parser: argparse.ArgumentParser, argv: list[str]) -> None:
    """Refuse, with one message saying where it goes (exit 2, with the usage of the command it
    is for), an option given on the wrong side of a subcommand: one a command takes, given before
    it (`rulecraft campaign --limit max_work=10 act ...`: argparse took the value for the command's
    name and said only that 'max_work=10' is no command), or one a group of commands takes, given
    after the command (`rulecraft campaign act ... --db FILE`: "unrecognized arguments"). As
    `--db` belongs to `campaign` and is given before its command, `--limit` belongs to each
    command that evaluates, after it: each is told where it goes, rather than taken in either
    place (found by a review). Abbreviations and anything else are left to argparse."""
    current, path = parser, [parser.prog]
    above: list[argparse.ArgumentParser] = []
    early: list[tuple[str, str]] = []  # options a group does not take, each with its words as given
    i = 0
    while i < len(argv):
        word = argv[i]
        commands = _subcommands(current)
        if word == "--":
            return
        if word.startswith("-") and len(word) > 1:  # `--input x=1`, `--input=x=1`, `-i x=1`, `-cwalter`
            long = word.startswith("--")
            option = word.split("=", 1)[0] if long else word[:2]
            joined = "=" in word if long else len(word) > 2
            action = current._option_string_actions.get(option)
            if action is not None:
                i += 2 if action.nargs != 0 and not joined else 1  # the option and its value
                continue
            value = argv[i + 1] if not joined and i + 1 < len(argv) else ""
            named = commands.choices if commands is not None else {}
            valued = bool(value) and not value.startswith("-") and value not in named
            given = f"{word} {value}" if valued else word
            group = next((q for q in reversed(above) if option in q._option_string_actions), None)
            if group is not None:
                current.error(
                    f"{given} goes before '{path[-1]}', as an option of '{group.prog}': "
                    f"{group.prog} {given} {path[-1]} ..."
                )
            if commands is not None:
                early.append((option, given))
                i += 2 if valued else 1
                continue
        elif commands is not None and word in commands.choices:
            sub = commands.choices[word]
            for option, given in early:
                if option in sub._option_string_actions:
                    sub.error(
                        f"{given} goes after '{word}', as an option of '{sub.prog}': {sub.prog} ... {given}"
                    )
                if not _takes(sub, option) and any(_takes(q, option) for q in commands.choices.values()):
                    sub.error(f"'{sub.prog}' takes no {option}")
            early = [(o, g) for o, g in early if _takes(sub, o)]  # for a command of this group's
            above.append(current)
            current = sub
            path.append(word)
        i += 1


def _command_parser(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.ArgumentParser:
    """The parser of the (sub)command `argv` names, the deepest one given, so that a usage
    error shows that command's own usage rather than the top level's."""
    current = parser
    words = iter(argv)
    while True:
        commands = _subcommands(current)
        if commands is None:
            return current
        for word in words:
            if word in commands.choices:
                current = commands.choices[word]
                break
        else:
            return current


def _dice_named(args: argparse.Namespace) -> dict[str, str] | None:
    """The dice and draws of the check `args` names with its ruleset (`roll`, `prob`, `show`), each
    name with 'die', 'pool' or 'draw', for a usage error's hint alone; None where the command names no
    such check or it does not load."""
    ref, check = getattr(args, "ruleset", None), getattr(args, "check", None)
    if not isinstance(ref, str) or not isinstance(check, str):
        return None
    from .runtime.inputs import kind_of

    try:
        found = _ruleset(ref, Limits()).model.checks.get(check)
    except (RulecraftError, OSError):
        return None
    if found is None:
        return None
    return {r.name: kind_of(r) for r in found.roll}


def _unrecognized(
    command: argparse.ArgumentParser, extra: list[str], argv: list[str], args: argparse.Namespace
) -> None:
    """Refuse arguments `command` does not take (exit 2, with its usage), with a hint where one is
    likely. A stray `NAME=VALUE` given right after an option the command does not take (or as
    `--option=NAME=VALUE`) is that option's value: the hint names the command's own option spelt
    like it that reads such a value (`--forced` for `--force`; never `--json`, which reads none, nor
    `--limit` for a name that is no bound), else the commands whose option it is (`--force` given
    to `prob`: hunts 13zx, 13zy, 13zzb), and says what the stray value may be here where the option
    it was given with reads the same kind of value or gave no clue (`_stray_hint`). A bare word
    given to a command whose actor is `-c NAME`, and was given none, is most likely that actor."""
    message = f"unrecognized arguments: {' '.join(extra)}"
    hints: list[str] = []
    stray = _stray(extra, argv)
    if stray is not None:
        option, bare = stray
        name, _, value = bare.partition("=")
        dice = _dice_named(args)
        near = _spelt_like(command, option, name, value, dice) if option else None
        if near is not None:
            hints.append(f"did you mean `{near} {bare}`?")
        else:
            owners, metavars = _owners(option, bare) if option else ([], set())
            if owners:
                listed = owners[0] if len(owners) == 1 else f"{', '.join(owners[:-1])} and {owners[-1]}"
                hints.append(f"`{option}` is an option of {listed}, not of `{command.prog}`")
            # the stray value's own hint, where the option gave none or reads the same kind of value
            if not owners or "NAME=VALUE" in metavars or (dice is not None and name in dice):
                hints += _stray_hint(command, name, value, dice)
    else:
        word = next((w for w in extra if not w.startswith("-")), None)
        if word is not None and "--other" in command._option_string_actions and args.character is None:
            hints.append(f"did you mean `-c {word}`, for an action a character takes?")
    if hints:
        message += f" ({'; '.join(hints)})"
    command.error(message)


def _stray(extra: list[str], argv: list[str]) -> tuple[str, str] | None:
    """The first `NAME=VALUE` among the arguments not taken, with the option given right before it
    that the command does not take (or written `--option=NAME=VALUE`), or "" where there is none."""
    for word in extra:
        if word.startswith("-"):
            option, eq, rest = word.partition("=")
            if eq and "=" in rest and option.startswith("--"):
                return option, rest
            continue
        if "=" in word:  # the word may stand in argv more than once (`-i x=1 --bad x=1`): each place
            for at in (i for i, w in enumerate(argv) if w == word and i):
                before = argv[at - 1]
                if before in extra and before.startswith("-") and "=" not in before:
                    return before, word
            return "", word
    return None


def _reads(action: argparse.Action, name: str, value: str, dice: Mapping[str, str] | None = None) -> bool:
    """Whether `action`'s option reads `NAME=VALUE` with this name and value: a bound's name alone
    for `--limit`, a range or a list only where it takes one, a dotted name only where it names a
    party's (`--grid`), a die's face only where the name is a die of `dice` (where they are
    known) and an input's value only where it is not. An option whose `=` is a character's
    parameter (`NAME[:KEY=VALUE,...]`, `--party PARTY:KEY=VALUE`) reads none."""
    metavar = str(action.metavar or "")
    if "=" not in metavar or ":" in metavar.split("=", 1)[0]:
        return False
    if "--limit" in action.option_strings:
        return name in LIMIT_NAMES and ".." not in value and "," not in value
    if "." in name and "[PARTY.]" not in metavar:
        return False
    if dice is not None and (metavar == "NAME=FACES") != (name in dice):
        return False
    if ".." in value:
        return "A..B" in metavar
    if "," in value:
        return (
            metavar in ("NAME=FACES", "NAME=A..B") or "--input" in action.option_strings or ",..." in metavar
        )
    return "A..B" not in metavar


def _spelt_like(
    command: argparse.ArgumentParser, option: str, name: str, value: str, dice: Mapping[str, str] | None
) -> str | None:
    """The option of `command` spelt like `option` that reads `name=value`, if there is one."""
    own = [
        o for a in command._actions if _reads(a, name, value, dice) for o in a.option_strings if o[:2] == "--"
    ]
    near = did_you_mean(option, own, cutoff=0.8)  # `--forced` for `--force`, not `--format`
    return near.split("'")[1] if near is not None else None


def _owners(option: str, bare: str) -> tuple[list[str], set[str]]:
    """The commands whose `option` reads a `NAME=VALUE` such as `bare`, and its metavars there."""
    owners: list[str] = []
    metavars: set[str] = set()

    def walk(parser: argparse.ArgumentParser) -> None:
        commands = _subcommands(parser)
        if commands is None:
            action = parser._option_string_actions.get(option)
            if action is not None and "=" in str(action.metavar or ""):  # not `campaign export -o FILE`
                owners.append(f"`{parser.prog}`")
                metavars.add(str(action.metavar))
            return
        for q in dict.fromkeys(commands.choices.values()):  # an alias names its parser again
            walk(q)

    walk(_parser(None))
    return owners, metavars


def _stray_hint(
    command: argparse.ArgumentParser, name: str, value: str, dice: Mapping[str, str] | None
) -> list[str]:
    """What a stray `name=value` most likely is for `command`: a die of its check (`dice`, where the
    command names one), an input or parameter written without its option (or a sweep's values),
    a party's parameter `PARTY.NAME=VALUE`, or a character's parameter of `join`. A value no option
    of the command reads so (a range, several values for anything but an input, a sweep or a
    die) gets none."""
    bare = f"{name}={value}"
    party, dot, key = name.partition(".")
    if dot:
        single = "," not in value and ".." not in value  # a party's parameter has one value
        if single and party and key and "--party" in command._option_string_actions:
            return [f"did you mean `--party {party}:{key}={value}`?"]
        return []
    fixes = any(a.metavar == "NAME=FACES" for a in command._actions if a.option_strings)
    if dice is not None and name in dice:
        if ".." in value:
            return []
        if dice[name] == "die":  # one face, where a pool has one per die: `tens=3,4` would leave the 4 unused
            bare = f"{name}={value.split(',')[0]}"
        if fixes:
            return [f"did you mean `--force {bare}`?"]
        fixed = f"`rulecraft roll` fixes it with `--force {bare}`"
        return [
            f"'{name}' is a {'draw' if dice[name] == 'draw' else 'die'} of the check, not an input: {fixed}"
        ]
    takes = [  # an input's or a parameter's option, or a sweep's; no actor's role
        max(a.option_strings, key=len)
        for a in command._actions
        if a.option_strings and a.metavar in ("NAME=VALUE", "NAME=A..B") and _reads(a, name, value, dice)
    ]
    if takes:
        die = f", or `--force {bare}` to fix a die or draw" if fixes and dice is None else ""
        return [f"did you mean {' or '.join(f'`{o} {bare}`' for o in takes)}{die}?"]
    sheet = any(":KEY=VALUE" in f"{a.metavar} {a.help}" for a in command._actions if not a.option_strings)
    if sheet and ".." not in value:  # `join`: a character's parameters follow its name
        return [f"a character's parameters follow its name: `CHARACTER:{bare}`"]
    return []


def _inputs(q: argparse.ArgumentParser, of: str) -> None:
    q.add_argument(
        "-i", "--input", action="append", default=[], metavar="NAME=VALUE", help=f"an input of the {of}"
    )


def _limit(q: argparse.ArgumentParser, deadline: str = "deadline=30 (seconds; none: no deadline)") -> None:
    """`--limit NAME=VALUE`; `deadline`: how the help names the deadline (the server takes its
    own as `--deadline SECONDS` and refuses it here: hunt 13zp)."""
    q.add_argument(
        "--limit",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a bound on what the command may do, in place of its default, e.g. max_work=20000000, "
        f"max_states=1000000, {deadline}; once per bound (the bounds "
        "and their defaults: 'Limits' in docs/language.md)",
    )


def _limits(items: list[str]) -> Limits:
    """The bounds a command loads and evaluates under: `Limits`' defaults, but for each given
    `--limit NAME=VALUE` (a whole number, as `_grouped` reads one; `deadline` in seconds, or
    `none`). A name that is no bound, or a value that is no number, is RC407; a value `Limits`
    refuses (below 0, or past a bound's ceiling) is its own RC410."""
    values: dict[str, Any] = {}
    for name, text in _pairs(items, "--limit").items():
        if name not in LIMIT_NAMES:
            hint = did_you_mean(name, LIMIT_NAMES) or f"the limits: {', '.join(LIMIT_NAMES)}"
            raise InputError([Diagnostic("RC407", f"--limit: there is no limit '{name}'", None, hint)])
        if name == "deadline":
            values[name] = _seconds(text)
            continue
        n = _grouped(text)
        if isinstance(n, _BadValue):
            raise InputError([Diagnostic("RC407", f"--limit {name}: {n.message}", None)])
        values[name] = n
    return Limits(**values)


def _seconds(text: str) -> float | None:
    """`--limit deadline=SECONDS`: a number of seconds in ASCII digits, with a decimal point or
    not (as the whole numbers of the other bounds are read: no `inf`, no other script's digits),
    or `none` (in any case) for no deadline; at most `MAX_DIGITS` digits on each side of the point."""
    if text.lower() == "none":
        return None
    digits = rf"[0-9]{{1,{MAX_DIGITS}}}"
    if re.fullmatch(rf"{digits}(?:\.[0-9]{{0,{MAX_DIGITS}}})?|\.{digits}", text) is None:
        raise InputError(
            [Diagnostic("RC407", f"--limit deadline: expected seconds or none, got {text[:40]!r}", None)]
        )
    return float(text)


def _policy(q: argparse.ArgumentParser, text: str = "how the player decides every 'may'") -> None:
    q.add_argument("--policy", choices=POLICIES, default="always", help=text)


def _no_trace(q: argparse.ArgumentParser) -> None:
    """`--no-trace` for a command that rolls once and prints it (a bot wanting the result alone)."""
    q.add_argument(
        "--no-trace",
        action="store_true",
        help="skip the trace: print the dice, the values and the outcome (the same for the same seed)",
    )


def _actor(q: argparse.ArgumentParser) -> None:
    """Who takes a campaign action: the acting character and the characters in its roles."""
    q.add_argument("-c", "--character", help="the character who acts (for actions taken by a character)")
    q.add_argument(
        "-o", "--other", action="append", default=[], metavar="ROLE=NAME", help="a character in a role"
    )


class _BadValue:
    """An option's value that is not of its kind. argparse would refuse it as a command line it
    cannot read (usage, exit 2); it is an option's value that is wrong, so `run` says it as an
    RC407 diagnostic (exit 1, and in JSON with `--format json`), as every other bad value is."""

    def __init__(self, message: str) -> None:
        self.message = message


def _whole(text: str) -> int | _BadValue:
    """`--seed N`, `--times N`, … : a whole number in ASCII digits (`_` may group them, as in
    Python: `1_000`), or what is wrong with the text."""
    if re.fullmatch(r"-?[0-9]+(?:_[0-9]+)*", text) is None:
        return _BadValue(f"expected a whole number, got {text[:40]!r}")
    digits = sum(c.isdigit() for c in text)
    if digits > MAX_DIGITS:
        return _BadValue(f"expected a whole number of at most {MAX_DIGITS} digits, got one of {digits:,}")
    return int(text)


def _as_given(text: str) -> str:
    """An option's value as it was typed, cut to 40 characters: `00` had been told as `0`."""
    return text if len(text) <= 40 else text[:39] + "…"


def _seed(text: str) -> int | _BadValue:
    """`--seed N`: a whole number (`_whole`) that is a seed (`arguments.seed_problem`: at least 0,
    the rule every way in shares)."""
    n = _whole(text)
    if isinstance(n, _BadValue):
        return n
    problem = arguments.seed_problem(n)
    return n if problem is None else _BadValue(problem)


def _times(text: str) -> int | _BadValue:
    """`--times N`: a whole number (`_whole`) of at least 1, refused here as the option's value
    (it had been told as the check's own RC404, at the check's line in the ruleset)."""
    n = _whole(text)
    if isinstance(n, _BadValue) or n >= 1:
        return n
    return _BadValue(f"expected at least 1, got {_as_given(text)}")


def _grouped(text: str) -> int | _BadValue:
    """`_whole`, its digits grouped by `_` or in thousands by `,` (`20,000,000`)."""
    return _whole(text.replace(",", "_")) if re.fullmatch(r"[0-9]+(?:,[0-9]{3})+", text) else _whole(text)


def _work_units(text: str) -> int | _BadValue:
    """`--lint-work N`: a whole number of units, at least 0 (`_` and `,` may group digits)."""
    n = _grouped(text)
    if isinstance(n, _BadValue):
        return _BadValue(f"expected a whole number of units of work, got {text[:40]!r}")
    if n < 0:
        return _BadValue(f"expected at least 0 units of work, got {_as_given(text)}")
    return n


def _bad_values(args: argparse.Namespace) -> None:
    """RC407 for each option whose value `_whole`, `_times` or `_work_units` refused."""
    wrong = [
        Diagnostic("RC407", f"--{dest.replace('_', '-')}: {value.message}", None)
        for dest, value in vars(args).items()
        if isinstance(value, _BadValue)
    ]
    if wrong:
        raise InputError(wrong)


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line. Given `command` (the first word of the arguments), the commands it does
    not name are only listed, with their help: building every command's options took a twentieth
    of a fresh `rulecraft roll`. None builds them all."""
    p = _Parser(prog="rulecraft", description="A declarative rules engine for tabletop RPGs.")
    sub = p.add_subparsers(dest="command", required=True)

    v = sub.add_parser("validate", help="check ruleset files or folders; exit 1 on any problem")
    if command in (None, "validate"):
        from .tools.lint import DEFAULT_WORK

        v.add_argument("paths", nargs="+", help="ruleset files, folders of them, or shipped ruleset names")
        v.add_argument(
            "--format", choices=["text", "json"], default="text", help="diagnostics as text or JSON"
        )
        v.add_argument(
            "--strict",
            action="store_true",
            help="treat lint warnings as errors (RC809, 'not fully analysed', and RC314, an "
            "uncapped explosion's tail, stay warnings; notes stay notes)",
        )
        v.add_argument(
            "--lint-work",
            type=_work_units,
            default=DEFAULT_WORK,
            metavar="N",
            help=f"units of work the linter may do per file (default {DEFAULT_WORK:,}, about as many "
            "microseconds; one check may use a twentieth of it, one input combination an eightieth); "
            "raise it when RC809 says a check was not (fully) analysed. Counted, not timed: the findings "
            "are the same on every machine",
        )
        _limit(v)
        v.set_defaults(func=_validate)

    ls = sub.add_parser("list", help="the shipped rulesets and their checks")
    if command in (None, "list"):
        ls.set_defaults(func=_list)

    sh = sub.add_parser("show", help="what a ruleset or one of its checks offers")
    if command in (None, "show"):
        sh.add_argument("ruleset", help="a shipped ruleset's name or a path")
        sh.add_argument("check", nargs="?", help="a check of the ruleset")
        _limit(sh)
        sh.set_defaults(func=_show)

    r = sub.add_parser("roll", help="roll one check and explain the result")
    if command in (None, "roll"):
        r.add_argument("ruleset", help="a shipped ruleset's name or a path")
        r.add_argument("check", help="the check to roll")
        _inputs(r, "check")
        r.add_argument(
            "--force",
            action="append",
            default=[],
            metavar="NAME=FACES",
            help="fix a die (tens=5), pool (dice=9,2,0) or draw (bag=red)",
        )
        r.add_argument("--seed", type=_seed, help="seed for a replayable roll")
        _policy(r, "how the player decides every 'may' (default always)")
        r.add_argument("--json", action="store_true", help="print the result as JSON")
        _no_trace(r)
        r.add_argument(
            "--times",
            type=_times,
            metavar="N",
            help="roll N times at once and count the outcomes (no trace; see --method)",
        )
        r.add_argument(
            "--method",
            choices=METHODS,
            default=None,  # given or not: without --times it is refused, not ignored
            help="with --times: 'exact' draws from the exact distribution, 'rolled' rolls each time, "
            "'auto' (default) draws when the exact distribution fits the work budget",
        )
        _limit(r)
        r.set_defaults(func=_roll)

    pr = sub.add_parser("prob", help="the exact distribution of a check's outcomes")
    if command in (None, "prob"):
        pr.add_argument("ruleset", help="a shipped ruleset's name or a path")
        pr.add_argument("check", help="the check")
        _inputs(pr, "check")
        pr.add_argument(
            "--sweep",
            metavar="NAME=A..B",
            action="append",
            help="one row per value of an input (A..B, or a,b,c); once",
        )
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
        _limit(pr)
        pr.set_defaults(func=_prob)

    t = sub.add_parser("test", help="run the worked examples written inside rulesets; exit 1 on any failure")
    if command in (None, "test"):
        t.add_argument(
            "paths",
            nargs="*",
            help="ruleset files, folders, or shipped names (default: the shipped rulesets)",
        )
        t.add_argument("--format", choices=["text", "json"], default="text", help="results as text or JSON")
        _limit(t)
        t.set_defaults(func=_test)

    s = sub.add_parser("schema", help="print the ruleset JSON Schema")
    if command in (None, "schema"):
        s.set_defaults(func=_schema)

    n = sub.add_parser("new", help="write a commented starter ruleset NAME.yaml (never overwrites)")
    if command in (None, "new"):
        n.add_argument("name", help="the ruleset's name, or a path such as games/mygame; '.yaml' is added")
        n.set_defaults(func=_new)
    _campaign_parser(sub, command in (None, "campaign"))
    _scene_parser(sub, command in (None, "scene"))
    _serve_parser(sub, command in (None, "serve"))
    return p


def _serve_parser(sub: Any, build: bool = True) -> None:
    """`rulecraft serve`: only named unless `build`."""
    sv = sub.add_parser(
        "serve", help="the JSON HTTP API and the playground (needs the 'serve' extra: fastapi, uvicorn)"
    )
    if not build:
        return
    sv.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)"
    )
    sv.add_argument("--port", type=_whole, default=8000, help="port (default 8000; 0 picks a free one)")
    sv.add_argument("--rulesets", metavar="DIR", help="a folder of rulesets served beside the shipped ones")
    sv.add_argument("--db", metavar="TARGET", help="the campaign store (default: as 'rulecraft campaign')")
    sv.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a name the server answers to besides the loopback's and --host's (repeatable; '*': any)",
    )
    sv.add_argument(
        "--origin",
        action="append",
        default=[],
        metavar="URL",
        help="the page's public origin behind a proxy that sends its own Host (repeatable;"
        " https://dice.example.org): its writes are not another site's",
    )
    sv.add_argument(
        "--token", help="campaign writes need 'Authorization: Bearer TOKEN' (default: $RULECRAFT_TOKEN)"
    )
    sv.add_argument("--workers", type=_whole, default=2, help="processes for exact solves (default 2)")
    sv.add_argument("--queue", type=_whole, default=32, help="solves that may wait for a worker (default 32)")
    sv.add_argument(
        "--max-body",
        type=_whole,
        default=1024 * 1024,
        metavar="BYTES",
        help="largest request body (default 1048576)",
    )
    sv.add_argument(
        "--deadline",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="longest a request may take (default 5; more than 0 and under 3600)",
    )
    _limit(sv, "not the deadline, which is --deadline")
    sv.set_defaults(func=_serve)


def _serve(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Start the HTTP server; without FastAPI and uvicorn, RC601 naming the extra to install (an
    extra missing, as for a plot; it was exit 2 and no code, which is for a command line unread)."""
    try:
        from .serve.run import serve
    except ImportError as exc:
        missing = exc.name or "fastapi"
        raise RulecraftError(
            [
                Diagnostic(
                    "RC601",
                    f"serving needs the 'serve' extra ({missing} is missing)",
                    None,
                    "pip install 'rulecraft[serve]'",
                    advice=Advice("extra", "serve"),
                )
            ]
        ) from None
    return serve(args, out, err)


def _expect(parser: Any) -> None:
    parser.add_argument(
        "--expect",
        action="append",
        default=[],
        metavar="PARTY.ITEM",
        help="also the exact expected value of this item at the end (repeatable): a resource left, wounds",
    )


def _scene_parser(sub: Any, build: bool = True) -> None:
    """`rulecraft scene prob|roll`: a whole scene, solved exactly or played out (only named
    unless `build`)."""
    sc = sub.add_parser(
        "scene", help="several parties and several rolls: a scene's exact odds, or one played out"
    )
    if not build:
        return
    ss = sc.add_subparsers(dest="scene_command", required=True)
    for name, helptext in (
        ("prob", "the exact odds of each ending and the scene's length"),
        ("roll", "play the scene out once, round by round"),
    ):
        q = ss.add_parser(name, help=helptext)
        q.add_argument("ruleset", help="a shipped ruleset's name or a path")
        q.add_argument("scene", help="the scene")
        q.add_argument(
            "-p", "--param", action="append", default=[], metavar="NAME=VALUE", help="a campaign parameter"
        )
        q.add_argument(
            "--party",
            action="append",
            default=[],
            metavar="PARTY[:KEY=VALUE,...]",
            help="a party's character parameters",
        )
        _policy(q, "how every 'may' in a roll is decided")
        q.add_argument("--json", action="store_true", help="print JSON")
        if name == "roll":
            q.add_argument("--seed", type=_seed, help="seed for a replayable scene")
            q.add_argument(
                "--times",
                type=_times,
                metavar="N",
                help="play N scenes and count their endings and lengths (no trace)",
            )
        else:
            q.add_argument(
                "--plot",
                metavar="FILE",
                help="draw the endings and the length (or, with two --grid, a heat map) to .png or .svg",
            )
            q.add_argument(
                "--grid",
                action="append",
                default=[],
                metavar="[PARTY.]NAME=A,B,...",
                help="the objective's chance over the values of a parameter (two: a table and a heat map)",
            )
            _expect(q)
        _limit(q)
        q.set_defaults(func=_scene_prob if name == "prob" else _scene_roll)


def _campaign_parser(sub: Any, build: bool = True) -> None:
    """`rulecraft campaign …`: state that lasts, kept in an SQLite file or a PostgreSQL database
    (see `--db`); only named unless `build`."""
    c = sub.add_parser("campaign", help="keep a campaign's state (its counters and tallies) across rolls")
    if not build:
        return
    c.add_argument(
        "--db",
        metavar="FILE|URL",
        help="the campaign database: an SQLite file, or postgresql://USER@HOST/DB (default: $RULECRAFT_DB,"
        " else $XDG_DATA_HOME/rulecraft/campaigns.db, else ~/.local/share/rulecraft/campaigns.db)",
    )
    cs = c.add_subparsers(dest="campaign_command", required=True)

    def with_json(q: argparse.ArgumentParser) -> argparse.ArgumentParser:
        q.add_argument("--json", action="store_true", help="print JSON")
        return q

    def opening(q: argparse.ArgumentParser) -> None:
        q.add_argument(
            "--migrate",
            action="store_true",
            help="accept a ruleset changed since the campaign was made (logged with the next change)",
        )

    n = with_json(cs.add_parser("new", help="make a campaign of a ruleset"))
    n.add_argument("name", help="the campaign's name")
    n.add_argument("ruleset", help="a shipped ruleset's name or a path")
    n.add_argument(
        "-p", "--param", action="append", default=[], metavar="NAME=VALUE", help="a campaign parameter"
    )
    n.add_argument(
        "-c",
        "--character",
        action="append",
        default=[],
        metavar="NAME[:KEY=VALUE,...]",
        help="a character who plays from the start, with its parameters",
    )
    n.set_defaults(func=_campaign_new)

    ls = with_json(cs.add_parser("list", help="the campaigns in the database, by name"))
    ls.add_argument(
        "--after", metavar="NAME", help="only the campaigns named after NAME (in code-point order)"
    )
    ls.add_argument("--first", type=_whole, metavar="N", help="only the first N of those campaigns")
    ls.set_defaults(func=_campaign_list)

    sh = with_json(cs.add_parser("show", help="a campaign's state: the table's and each character's"))
    sh.add_argument("name")
    opening(sh)
    sh.set_defaults(func=_campaign_show)

    j = with_json(cs.add_parser("join", help="a character joins the campaign"))
    j.add_argument("name")
    j.add_argument("character", help="NAME[:KEY=VALUE,...]")
    opening(j)
    j.set_defaults(func=_campaign_join)

    a = with_json(
        cs.add_parser("act", help="take an action: check its preconditions, roll, apply its effects")
    )
    a.add_argument("name")
    a.add_argument("action")
    _actor(a)
    _inputs(a, "action")
    a.add_argument("--force", action="append", default=[], metavar="NAME=FACES", help="fix a die of its roll")
    a.add_argument("--seed", type=_seed, help="seed for a replayable roll (recorded either way)")
    _policy(a)
    _no_trace(a)
    opening(a)
    a.set_defaults(func=_campaign_act)

    r = with_json(
        cs.add_parser("roll", help="roll a check at the table and record it (the state is unchanged)")
    )
    r.add_argument("name")
    r.add_argument("check")
    _inputs(r, "check")
    r.add_argument("--force", action="append", default=[], metavar="NAME=FACES", help="fix a die")
    r.add_argument("--seed", type=_seed, help="seed for a replayable roll (recorded either way)")
    _policy(r)
    _no_trace(r)
    opening(r)
    r.set_defaults(func=_campaign_roll)

    pb = with_json(
        cs.add_parser(
            "prob", help="the exact distribution of the state after one action (nothing is written)"
        )
    )
    pb.add_argument("name")
    pb.add_argument("action")
    _actor(pb)
    _inputs(pb, "action")
    _policy(pb)
    pb.add_argument("--all", action="store_true", help="also show the items that cannot change")
    opening(pb)
    pb.set_defaults(func=_campaign_prob)

    b = with_json(
        cs.add_parser("begin", help="a period begins (a case, a day, a fight): what it resets is reset")
    )
    b.add_argument("name")
    b.add_argument("period")
    opening(b)
    b.set_defaults(func=_campaign_begin)

    scn = with_json(
        cs.add_parser("scene", help="play a scene from the campaign's state and keep where it ends")
    )
    scn.add_argument("name")
    scn.add_argument("scene")
    scn.add_argument(
        "--cast",
        action="append",
        default=[],
        metavar="PARTY=CHARACTER",
        help="the campaign's character who plays a party of the scene",
    )
    scn.add_argument("--seed", type=_seed, help="seed for a replayable scene (recorded either way)")
    _policy(scn, "how every 'may' is decided")
    scn.add_argument("--odds", action="store_true", help="only the exact odds from here (nothing is written)")
    _expect(scn)
    opening(scn)
    scn.set_defaults(func=_campaign_scene)

    lg = with_json(cs.add_parser("log", help="the campaign's events, oldest first"))
    lg.add_argument("name")
    lg.add_argument(
        "--after", type=_whole, default=0, metavar="SEQ", help="only the events numbered after SEQ"
    )
    lg.add_argument("--before", type=_whole, metavar="SEQ", help="only the events numbered before SEQ")
    most = lg.add_mutually_exclusive_group()
    most.add_argument("--first", type=_whole, metavar="N", help="only the oldest N of those events")
    most.add_argument("--last", type=_whole, metavar="N", help="only the newest N of those events")
    lg.set_defaults(func=_campaign_log)

    u = with_json(
        cs.add_parser("undo", help="reverse the latest change (appends an undo; nothing is deleted)")
    )
    u.add_argument("name")
    u.add_argument(
        "--seen",
        type=_whole,
        metavar="N",
        help="the newest event you have read: refused (RC908) if the log has grown past it",
    )
    opening(u)
    u.set_defaults(func=_campaign_undo)

    rp = with_json(
        cs.add_parser("replay", help="recompute every state from the log and compare with the stored ones")
    )
    rp.add_argument("name")
    opening(rp)
    rp.set_defaults(func=_campaign_replay)

    e = cs.add_parser("export", help="the whole campaign as JSON: header, log and state")
    e.add_argument("name")
    e.add_argument("-o", "--out", metavar="FILE", help="write to FILE (never overwrites) instead of printing")
    e.set_defaults(func=_campaign_export)
    for name, q in cs.choices.items():  # each that loads the campaign's ruleset
        if name not in ("list", "log", "export"):  # these read the store alone
            _limit(q)


def _ruleset(ref: str, limits: Limits) -> Ruleset:
    """A shipped ruleset by name, or any ruleset by path (a `Path`: the command line names files,
    and text given to `load` is never taken for one), loaded and evaluated under `limits`."""
    return load(_reference(ref), limits=limits)


def _reference(ref: str) -> str | Path:
    if not ref.strip():  # `Path("")` is the current folder: a name lost, not a folder meant
        raise InputError(
            [Diagnostic("RC407", "a ruleset is a shipped name or a path, not an empty one", None)]
        )
    if ref in shipped_rulesets():
        return ref
    gone = _no_such_folder(ref)
    if gone is not None:
        raise gone
    return Path(ref)


def _no_such_folder(ref: str) -> LoadError | None:
    """RC001 for a path written as a folder (`nodir/`) that is not there, said from the words
    given: `Path` drops the '/', and the bare word left was told as "not a shipped ruleset nor a
    file". None when the path is there (or the system will not say), or is no folder's."""
    if not ref.endswith(("/", os.sep)):
        return None
    try:
        if Path(ref).exists():
            return None
    except OSError:  # a path the system refuses (a name too long): reading it says why
        return None
    hint = did_you_mean(ref.rstrip("/" + os.sep), shipped_rulesets())
    if hint is not None:
        hint = hint.replace("did you mean", "did you mean the shipped ruleset", 1)
    return LoadError([Diagnostic("RC001", f"no such folder '{ref}'", None, hint)], missing=True)


def _pairs(items: list[str], what: str) -> dict[str, str]:
    """`NAME=VALUE` arguments as a map. A name given twice is refused rather than the last
    taken: `--input target=55 --input target=65` is more likely a slip than a choice. A name is
    taken as written, spaces and all, as Python and the HTTP API take it (`' target'` is no
    input's name: RC402, with the nearest); a value is text, read as they read it."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise InputError([Diagnostic("RC407", f"{what} '{item}' is not of the form NAME=VALUE", None)])
        if name in out:
            raise _twice(f"{what} '{name}'")
        out[name] = value.strip()
    return out


def _twice(named: str, what: str = "name") -> InputError:
    """A name given twice on the command line (RC407): refused, never the last one taken."""
    return InputError([Diagnostic("RC407", f"{named} is given twice", None, f"give each {what} once")])


def _each_once(given: list[str] | None, flag: str) -> list[str]:
    """The names a repeatable option gives (`--expect`), each once: one given twice is a slip,
    refused (RC407) as a name given twice anywhere on the command line is."""
    seen: set[str] = set()
    for name in given or ():
        if name in seen:
            raise _twice(f"{flag} '{name}'")
        seen.add(name)
    return list(given or ())


def _files(paths: list[str]) -> tuple[list[Path], dict[Path, LoadError]]:
    """The files `paths` name, in order, each once; and the error of each that names a folder
    that is not there (listed and reported as a file that did not load, with its own words)."""
    found: list[Path] = []
    gone: dict[Path, LoadError] = {}
    for p in paths:
        try:
            _reference(p)  # an empty one is refused, never read as the current folder
        except LoadError as exc:  # a folder that is not there
            gone[Path(p)] = exc
            found.append(Path(p))
            continue
        if p in shipped_rulesets() and not Path(p).exists():
            found.append(shipped_rulesets()[p])
            continue
        path = Path(p)
        try:
            folder = path.is_dir()
        except OSError:  # a path the system refuses (a name too long): loading it says why
            folder = False
        found.extend(_yaml_below(path) if folder else [path])
    return _once(found), gone


def _load_listed(path: Path, gone: dict[Path, LoadError], limits: Limits) -> Ruleset:
    """`load(path, limits=limits)`, or the error `_files` found for it."""
    if path in gone:
        raise gone[path]
    return load(path, limits=limits)


def _once(paths: list[Path]) -> list[Path]:
    """`paths` without a file named again (`a.yaml games/ ./games/a.yaml`), in order."""
    seen: set[Path] = set()
    kept: list[Path] = []
    for path in paths:
        try:
            key = path.resolve()
        except (OSError, RuntimeError):  # unresolvable: loading it says why; kept as given
            key = path
        if key not in seen:
            seen.add(key)
            kept.append(path)
    return kept


def _yaml_below(folder: Path) -> list[Path]:
    """The `*.yaml` and `*.yml` files in `folder`, at any depth, in order, but none that is hidden
    or inside a hidden folder (a name starting with '.'): `rulecraft validate .` in a project
    reads its rulesets, not `.github/workflows/`, `.pre-commit-config.yaml` or a `.venv`. The
    suffix is matched in any case: a `RULES.YAML` saved on Windows was passed over in silence.
    Each file is kept by `is_listed_ruleset`, as `serve --rulesets` lists its folder."""
    found: list[Path] = []
    for top, folders, files in os.walk(folder):
        folders[:] = [f for f in folders if not f.startswith(".")]
        found.extend(path for path in (Path(top, f) for f in files) if is_listed_ruleset(path))
    return sorted(found)


def _none_found(paths: list[str]) -> InputError:
    """RC001 for paths that hold no ruleset file: said as every other problem (in JSON with
    `--format json`), where a bare line on standard error left a CI step nothing to parse."""
    shown = ", ".join(paths)
    return InputError(
        [
            Diagnostic(
                "RC001",
                f"no ruleset files found in {shown[:200]}",
                None,
                "give .yaml or .yml files (in any case), or folders that hold some (hidden files and folders "
                "are skipped)",
            )
        ]
    )


def _placed_json(d: Diagnostic, file: Path | str) -> dict[str, object]:
    """A file's diagnostic as JSON, with the file filled in when the diagnostic has no place of
    its own (a file that cannot be read): every diagnostic a CI annotation reads names its file."""
    found = d.as_json()
    if found["file"] is None:
        found["file"] = str(file)
    return found


def _validate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Load each file (schema, names, types), then lint it; every problem of a file in one
    run, errors first, then warnings, then notes, each by position. `--strict` makes warnings
    errors (not RC809 and RC314, `INFO_CODES`; notes stay notes)."""

    from .tools.lint import DEFAULT_WORK, LintBudget, lint, ordered, promote

    files, gone = _files(args.paths)
    if not files:
        raise _none_found(args.paths)
    report: list[dict[str, Any]] = []
    failed = 0
    for f in files:
        checks: list[str] | None = None
        try:
            rs = _load_listed(f, gone, args.limits)
            checks = list(rs.checks)
            budget = LintBudget(max_work=getattr(args, "lint_work", DEFAULT_WORK))
            diags = ordered(promote(lint(rs, budget), getattr(args, "strict", False)))
        except RulecraftError as exc:
            diags = ordered(exc.diagnostics)
        errors = sum(d.severity == "error" for d in diags)
        notes = sum(d.severity == "note" for d in diags)
        warnings = len(diags) - errors - notes
        ok = checks is not None and not errors
        failed += not ok
        entry: dict[str, Any] = {"file": str(f), "ok": ok}
        if checks is not None:
            entry["checks"] = checks
        entry.update(
            errors=errors, warnings=warnings, notes=notes, diagnostics=[_placed_json(d, f) for d in diags]
        )
        report.append(entry)
        if args.format == "text":
            if ok and checks is not None:
                more = f", {warnings} warning(s)" if warnings else ""
                more += f", {notes} note(s)" if notes else ""
                out.write(
                    f"ok      {one_line(str(f))}  ({len(checks)} check{'s' if len(checks) != 1 else ''}: "
                    f"{', '.join(checks)}{more})\n"
                )
            else:
                out.write(f"FAILED  {one_line(str(f))}\n")
            if diags:
                err.write("\n".join(d.render() for d in diags) + "\n")
    if args.format == "json":
        _dump({"ok": failed == 0, "files": report}, out)
    elif failed:
        out.write(f"{failed} of {len(files)} file(s) failed\n")
    return 1 if failed else 0


def _list(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    loaded = [(name, load(path)) for name, path in shipped_rulesets().items()]
    width = max([len(n) for n, _ in loaded] + [len(c) + 2 for _, rs in loaded for c in rs.checks]) + 1
    for name, rs in loaded:
        out.write(f"{name:<{width}} {one_title(rs.title)}\n")
        for c in rs.checks.values():
            out.write(f"  {c.name:<{width - 2}} {one_title(c.title)}\n")
    return 0


def _show(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    rs = _ruleset(args.ruleset, args.limits)
    if args.check:
        out.write(check_text(rs.check(args.check)) + "\n")
    else:
        out.write(ruleset_text(rs.model) + "\n")
    return 0


_WHOLE = re.compile(rf"-?[0-9]{{1,{MAX_DIGITS}}}", re.ASCII)
"""A forced face: ASCII digits only (`²` is a digit to Python, not a face), never too long to read."""


def _listed(text: str, what: str) -> list[str]:
    """The comma-separated parts of `text` (none when it is empty); a part left empty between
    commas, or after the last, is refused: more likely a value lost than one meant to skip."""
    if not text.strip():
        return []
    parts = [p.strip() for p in text.split(",")]
    if "" in parts:
        raise InputError([Diagnostic("RC407", f"{what} has an empty value between its commas", None)])
    return parts


def _forced(pairs: dict[str, str]) -> dict[str, Any]:
    forced: dict[str, Any] = {}
    for name, text in pairs.items():
        parts = _listed(text, f"--force '{name}={text}'")
        values: list[Any] = [int(p) if _WHOLE.fullmatch(p) else p for p in parts]
        forced[name] = (
            values[0] if len(values) == 1 and isinstance(values[0], int) and "," not in text else values
        )
    return forced


def _roll(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    rs = _ruleset(args.ruleset, args.limits)
    inputs = _pairs(args.input, "input")
    forced = _forced(_pairs(args.force, "force"))
    rng = random.Random(args.seed)
    if args.times is None and args.method is not None:
        raise InputError(
            [Diagnostic("RC407", "--method says how the --times rolls are made; it needs --times", None)]
        )
    if args.times is not None:
        if forced:
            raise InputError([Diagnostic("RC407", "--force fixes one roll; it cannot go with --times", None)])
        method = args.method or "auto"
        batch = rs.sample(args.check, args.times, rng, policy=args.policy, method=method, inputs=inputs)
        if args.json:
            _dump({**batch.as_json(), "ruleset": rs.name, "seed": args.seed}, out)
            return 0
        how = "drawn from the exact distribution" if batch.method == "exact" else "rolled one by one"
        seed = f"; seed {args.seed}" if args.seed is not None else ""
        title = f"{rs.name} · {one_title(rs.check(args.check).title)}  ({args.times} rolls, {how}{seed})"
        out.write(batch_text(batch, title) + "\n")
        return 0
    given: dict[str, Any] = dict(inputs)
    result = rs.roll(
        args.check, rng, forced=forced or None, policy=args.policy, trace=not args.no_trace, inputs=given
    )
    if args.json:
        data = result.as_json()
        data["ruleset"] = rs.name
        data["seed"] = args.seed
        _dump(data, out)
    else:
        seed = f"  (seed {args.seed})" if args.seed is not None else ""
        out.write(result_text(result, f"{rs.name} · {one_title(rs.check(args.check).title)}{seed}") + "\n")
    return 0


SWEEP_MOST = 10_001
"""The values one `--sweep` or `--grid` axis takes, as a range or as a list."""
SWEEP_CHANCES = 1_000_000
"""The chances one `--sweep` answers (its values times the check's outcomes), some 10 MB of
text: 201 values of a check of 40,000 outcomes ran 28 s past a 2 s deadline to print 72 MB
(hunt 13za), its table written after its last point was solved."""


def _sweep_values(spec: str, flag: str = "--sweep") -> tuple[str, list[str]]:
    """An input's name and its values from `NAME=A..B` or `NAME=a,b,c` (`flag` names the option
    in the errors: `--sweep`, or `scene prob --grid`)."""
    name, sep, text = spec.partition("=")
    if not sep or not name.strip() or not text.strip():
        raise InputError(
            [Diagnostic("RC407", f"{flag} '{spec}' is not of the form NAME=A..B or NAME=a,b,c", None)]
        )
    if ".." in text:
        lo, _, hi = text.partition("..")
        try:
            a, b = int(lo), int(hi)
        except ValueError:
            raise InputError(
                [Diagnostic("RC407", f"{flag} range '{text}' needs whole numbers, like 1..120", None)]
            ) from None
        if b < a or b - a >= SWEEP_MOST:
            raise InputError(
                [
                    Diagnostic(
                        "RC407",
                        f"{flag} range '{text}' must run upwards over at most {SWEEP_MOST} values",
                        None,
                    )
                ]
            )
        return name, [str(v) for v in range(a, b + 1)]
    values = _listed(text, f"{flag} '{spec}'")
    if len(values) > SWEEP_MOST:  # as many as a range may run over (hunt 13za: 20,001 were solved)
        said = f"{flag} '{name}' lists {len(values):,} values, more than the {SWEEP_MOST:,} a sweep takes"
        raise InputError([Diagnostic("RC407", said, None, "sweep fewer values at once")])
    seen: set[str] = set()  # in one pass: a check of each against those before was quadratic
    for v in values:
        if v in seen:  # a row or column shown twice: a slip, as a name given twice is
            raise _twice(f"the value '{v}' of {flag} '{spec}'", "value")
        seen.add(v)
    return name, values


def _prob(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .tools.plot import check_plot_path, check_plot_size, plot_distribution, plot_sweep

    rs = _ruleset(args.ruleset, args.limits)
    check = rs.check(args.check)
    inputs = _pairs(args.input, "input")
    title = f"{rs.name} · {one_title(check.title)}"
    if args.plot:
        check_plot_path(Path(args.plot))
    if args.policy == "all":  # which takes no --plot (RC407), however many outcomes
        return _prob_policies(rs, args, inputs, title, out)
    if args.plot:
        check_plot_size(len(check.outcomes.members), check.name)
    if args.sweep:
        if len(args.sweep) > 1:  # one row per value of one input: a second would be dropped
            raise InputError(
                [Diagnostic("RC407", "give --sweep once (one input's values, one row each)", None)]
            )
        if args.value:  # a row an input's value shows the outcomes alone: it would be dropped
            raise InputError(
                [
                    Diagnostic(
                        "RC407",
                        "--value goes without --sweep (a sweep's rows show the outcomes alone)",
                        None,
                        "ask for a value's distribution at one point with --input in place of --sweep",
                    )
                ]
            )
        name, values = _sweep_values(args.sweep[0])
        if name in inputs:  # the rows would each override it, under a header that shows it
            raise InputError(
                [
                    Diagnostic(
                        "RC407",
                        f"input '{name}' is both swept (--sweep) and given (--input)",
                        None,
                        "sweep it or give it, not both",
                    )
                ]
            )
        sweep_chances(check, len(values), SWEEP_CHANCES, "--sweep")  # before any is solved
        rows: list[dict[str, Any]] = []
        dists = _sweep(rs, check, args.policy, inputs, name, values, rows if args.json else None)
        points = [dists[i].inputs[name] for i in range(len(values))]
        if args.json:
            _dump({"ruleset": rs.name, "check": check.name, "sweep": name, "rows": rows}, out)
        else:
            fixed = _inputs_text({k: dists[0].inputs[k] for k in inputs})  # as read, not as typed
            out.write(
                f"{title}{'  (' + fixed + ')' if fixed else ''}\n" + sweep_text(name, points, dists) + "\n"
            )
        if args.plot:
            plot_sweep(name, points, dists, Path(args.plot), f"{title}: outcome by {name}")
            if not args.json:
                out.write(f"wrote {one_line(args.plot)}\n")
        return 0
    dist = rs.distribution(args.check, policy=args.policy, inputs=inputs)
    for name in args.value:
        try:  # RC402 for a name the check has no such value of, before anything is shown
            dist.value(name)
        except InputError as exc:  # told at the check, as an unknown input is
            raise placed(exc, check.span) from None
    if args.json:
        data = dist.as_json()
        data["ruleset"] = rs.name
        _dump(data, out)
    else:
        shown = _inputs_text(dist.inputs)
        policy = f"  policy {args.policy}" if check.sequential else ""
        out.write(distribution_text(dist, f"{title}{'  (' + shown + ')' if shown else ''}{policy}") + "\n")
        out.write("".join(f"  note: {line}\n" for line in distribution_notes(dist, bool(check.again_rules))))
        for name in args.value:
            out.write(value_text(name, dist.values[name]) + "\n")
    if args.plot:
        shown = _inputs_text(dist.inputs)
        plot_distribution(dist, Path(args.plot), f"{title} ({shown})")
        if not args.json:
            out.write(f"wrote {one_line(args.plot)}\n")
    return 0


def _inputs_text(inputs: Mapping[str, Any]) -> str:
    """The inputs a request read, defaults filled in, as its header shows them: `k=v, ...`."""
    return ", ".join(f"{k}={show(v)}" for k, v in inputs.items())


def _sweep(
    rs: Ruleset,
    check: Check,
    policy: str,
    inputs: dict[str, str],
    name: str,
    values: list[str],
    rows: list[dict[str, Any]] | None = None,
) -> list[Distribution]:
    """`check`'s exact distribution at each of `name`'s `values`. The sweep is one request, as a
    scene's grid is: its points share one work budget (`--limit max_work`) and one deadline
    (`--limit deadline`), counted from its first point (each point had a budget and a deadline of
    its own, so a sweep ran on for as long as its points took together, past the deadline). Given
    `rows`, each point's JSON is made there too, in the request, with every value's distribution
    (made after it, they were charged nothing: 1,000 points of four values ran 52 s: hunt 13zc)."""
    from .eval.exact import distribution
    from .runtime.context import RunContext, new_work
    from .runtime.inputs import bind

    work = new_work(rs.limits)  # the whole sweep's
    ctx = RunContext(rs.limits, policy, rs.caches, work=work)
    points = [
        bind(check.inputs, {**inputs, name: v}, "check", check.name, check.span, rolls=check) for v in values
    ]
    _read_once([(v, p[name]) for v, p in zip(values, points)], f"--sweep '{name}=...'")
    dists: list[Distribution] = []
    for bound in points:
        with _point(work, check.span):
            dists.append(distribution(check, bound, ctx))
            if rows is not None:
                rows.append(dists[-1].as_json())
    return dists


def _read_once(values: list[tuple[str, Any]], flag: str) -> None:
    """Each value of a sweep or a grid (as written, as read) read once: `7` and `07`, `7` and
    `7.0`, `true` and `yes` are one row shown twice, refused as `7,7` is (`_sweep_values`: it
    compared the text, hunt 13m)."""
    seen: dict[Any, str] = {}
    for written, read in values:
        key = (type(read) is bool, read)  # True is 1 to Python, and no input is both
        first = seen.setdefault(key, written)
        if first != written:
            raise InputError(
                [
                    Diagnostic(
                        "RC407",
                        f"the values '{first}' and '{written}' of {flag} are read alike, as {show(read)}",
                        None,
                        "give each value once",
                    )
                ]
            )


@contextlib.contextmanager
def _point(work: Work, span: Span | None) -> Iterator[None]:
    """One point of a command that is one request (a sweep's, a scene grid's), under the
    request's `work`: the clock looked at before it (a point may be cheap, and a budget reads the
    clock only after much work), and a limit passed in it told at `span` (the check, the scene)."""
    from .errors import LimitError
    from .runtime.work import working

    try:
        work.check_clock()
        with working(work):
            yield
    except LimitError as exc:
        raise placed(exc, span) from None


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
    dists: dict[str, Any] = {}
    unplayable: dict[str, Diagnostic] = {}  # a policy that is no way to play this check
    for p in POLICIES:
        try:
            dists[p] = rs.distribution(args.check, policy=p, inputs=inputs)
        except RulecraftError as exc:
            # best play on a chain that returns (RC505), or over attempts a rule rolls again
            # (RC508): the other columns stand (it ended the whole table: hunt 13j)
            if p != "optimal" or exc.diagnostics[0].code not in NO_BEST_PLAY:
                raise
            unplayable[p] = exc.diagnostics[0]
    if args.json:
        data: dict[str, Any] = {
            "ruleset": rs.name,
            "check": args.check,
            "policies": {p: d.as_json() for p, d in dists.items()},
        }
        if unplayable:
            data["unplayable"] = {p: {"code": d.code, "message": d.message} for p, d in unplayable.items()}
        _dump(data, out)
        return 0
    first = dists[POLICIES[0]]
    shown = _inputs_text(first.inputs)
    width = max(
        [len(s.name) for s in first.outcomes.members] + [len(m.name) + 2 for m in first.outcomes.members]
    )
    out.write(f"{title}{'  (' + shown + ')' if shown else ''}\n")
    out.write("  " + "".ljust(width) + "".join(p.rjust(10) for p in POLICIES) + "\n")
    for s in first.outcomes.members:
        cells = "".join((percent(dists[p].probability(s)) if p in dists else "-").rjust(10) for p in POLICIES)
        out.write(f"  {s.name.ljust(width)}{cells}\n")
    target = rs.check(args.check).objective.target
    if target is not None:
        cells = "".join(
            (percent(dists[p].at_least(target)) if p in dists else "-").rjust(10) for p in POLICIES
        )
        out.write(f"  {('≥ ' + target.name).ljust(width)}{cells}\n")
    if rs.check(args.check).again_rules:  # the same for every policy: said once
        out.write(f"  note: {AGAIN_NOTE}\n")
    for p in POLICIES:
        if p in unplayable:
            out.write(f"  note ({p}): {unplayable[p].message} ({unplayable[p].code})\n")
        else:
            out.write("".join(f"  note ({p}): {line}\n" for line in distribution_notes(dists[p])))
    return 0


def _test(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .tools.examples import run_examples

    files, gone = _files(args.paths) if args.paths else (list(shipped_rulesets().values()), {})
    if not files:
        raise _none_found(args.paths)
    failed = passed = broken = 0
    report: list[dict[str, Any]] = []
    for f in files:
        try:
            rs = _load_listed(f, gone, args.limits)
        except RulecraftError as exc:
            broken += 1
            report.append(
                {"file": str(f), "ok": False, "diagnostics": [_placed_json(d, f) for d in exc.diagnostics]}
            )
            if args.format == "text":  # listed as validate lists it, then why
                out.write(f"FAILED  {one_line(str(f))}  (did not load)\n")
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
                "diagnostics": [_placed_json(d, f) for r in results for d in r.problems],
                "results": [
                    {
                        "check": r.check,
                        "example": r.example.name,
                        "passed": r.passed,
                        "diagnostics": [_placed_json(d, f) for d in r.problems],
                    }
                    for r in results
                ],
            }
        )
        if args.format == "text":
            mark = "ok    " if all(r.passed for r in results) else "FAILED"
            out.write(
                f"{mark}  {one_line(str(f))}  ({sum(r.passed for r in results)}/{len(results)} examples)\n"
            )
    if args.format == "json":
        _dump({"ok": not (failed or broken), "passed": passed, "failed": failed, "files": report}, out)
    else:
        out.write(
            f"{passed} passed, {failed} failed"
            + (f", {broken} file(s) did not load" if broken else "")
            + "\n"
        )
    return 1 if failed or broken else 0


def _schema(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    out.write(schema_path().read_text(encoding="utf-8"))
    return 0


def _new(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Write a starter ruleset; never overwrite a file that is there."""
    from .state.stores import names_folder
    from .tools.starter import NAME_PATTERN, schema_reference, starter_text

    given = Path(args.name)
    # `new proj/`: a folder, named to write in (`proj/` of no folder had written `proj.yaml`, as
    # `--db newdir/` had made a file: hunt 13zf)
    if given.name not in ("", ".") and names_folder(args.name):
        named = "is" if given.is_dir() else "names"
        raise InputError(
            [
                Diagnostic(
                    "RC407",
                    f"{args.name!r} {named} a folder: give the ruleset's name after it",
                    None,
                    f"for example {_pasted(given / 'my-game')}",
                )
            ]
        )
    if not given.name:  # '', '.', '/': a folder, with no file name in it
        target = given
    else:
        target = given if is_ruleset_file(given) else given.with_name(given.name + ".yaml")
    name = target.stem.lower()
    if not NAME_PATTERN.fullmatch(name):  # the argument's value, not a command line unread: RC407
        said = target.stem or args.name
        raise InputError(
            [
                Diagnostic(
                    "RC407",
                    f"{said!r} is not a ruleset name: start with a letter, then use a-z 0-9 _ -",
                    None,
                    "for example 'my-game'",
                )
            ]
        )
    _write_new(target, lambda: starter_text(name, schema_reference(target)), "choose another name")
    out.write(f"wrote {one_line(str(target))}: ruleset '{name}' with one check ('act') and one example\n")
    out.write(f"next: rulecraft validate {_pasted(target)} && rulecraft test {_pasted(target)}\n")
    return 0


def _pasted(path: Path) -> str:
    """A path as a shell reads it back: quoted where it holds a space or a character the shell
    acts on (`my games/x.yaml`, `it's.yaml`), and after `./` where it would read as an option
    (`-x/y.yaml`), so that the hint can be pasted; a line break or tab still shown as one line."""
    text = str(path)
    return one_line(shlex.quote("./" + text if text.startswith("-") else text))


def _unwritten(message: str, hint: str | None = None) -> RulecraftError:
    """RC603: a file the command writes cannot be written (and nothing of it was)."""
    return RulecraftError([Diagnostic("RC603", message, None, hint)])


def _write_new(target: Path, text: Callable[[], str], other: str) -> None:
    """`text()` as the new file `target`, whole or not at all, and never over a file that is
    there (`other`: the hint's other way out). It is written to a temporary file beside it, then
    linked in under its name only when whole: written in place, a full disk or a size limit left
    a truncated file under the name, which every retry then refused to overwrite. The link fails
    if the name was taken meanwhile; where the file system links no files, the name is claimed
    (`O_EXCL`) and the temporary renamed over that claim. The temporary is removed on every way
    out Python sees, and made only once the text is; it has the mode a new file gets (the
    umask's), not a private one."""
    taken = _unwritten(f"{target} already exists; not overwriting it", f"{other}, or move the file away")
    try:
        if target.is_dir():  # "move the file away" is no way out for a folder (hunt 13ze)
            raise _unwritten(f"{target} is a folder, not a file to write", other)
        if target.exists() or target.is_symlink():
            raise taken
        if not target.parent.is_dir():
            there = target.parent.exists() or target.parent.is_symlink()  # a file, not a folder
            said = f"{target.parent} is not a folder" if there else f"folder {target.parent} does not exist"
            raise _unwritten(f"cannot write {target}: {said}")  # (hunt 13m: both 'does not exist')
    except OSError as exc:  # a path the system refuses (a name too long)
        raise _unwritten(f"cannot write {target}: {exc.strerror or exc}") from None
    # made before the temporary is: a process killed while a long log is written out as JSON (5 s
    # at 50,000 events) left an empty temporary beside the target (hunt 13zi)
    content = text()
    try:
        temporary, fd = _temporary(target)
    except OSError as exc:
        raise _unwritten(f"cannot write {target}: {exc.strerror or exc}") from None
    try:
        with open(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(content)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(temporary, target)
        except FileExistsError:
            raise
        except OSError:  # a file system without hard links (FAT, some shares)
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            try:
                os.replace(temporary, target)
            except OSError:  # the claim is ours and empty: not left under the name
                os.unlink(target)
                raise
    except FileExistsError:  # taken since it was looked at
        raise taken from None
    except OSError as exc:
        raise _unwritten(f"cannot write {target}: {exc.strerror or exc}") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def _temporary(target: Path) -> tuple[Path, int]:
    """A new, hidden file beside `target`, opened to be written: a short name of its own, so that
    a name at the file system's length (255 bytes) is not refused for its temporary's."""
    for _ in range(100):
        path = target.with_name(f".rulecraft-{os.urandom(6).hex()}.part")
        try:
            return path, os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {target}")


# -- campaigns ------------------------------------------------------------------------------------


def _store(args: argparse.Namespace) -> Store:
    """The store `--db` names (a file or a postgresql:// URL), closed when the command ends. SQLite
    reads `:memory:` as a database in memory, which a command would make and drop unseen ("made
    campaign 'x' in :memory:", then nothing to list: hunt 13g): refused, as an empty name is."""
    from .state.stores import unkept

    target = args.db if args.db is not None else default_db()
    said = unkept(target)
    if said is not None:
        given = "--db" if args.db is not None else "$RULECRAFT_DB"
        raise InputError(
            [
                Diagnostic(
                    "RC407",
                    f"{given} {str(target)!r} is {said}: campaigns are kept in a file or in PostgreSQL",
                    None,
                    "give a file path (./:memory: for a file of that name), or postgresql://USER@HOST/DATABASE",
                )
            ]
        )
    store = open_store(args.db)
    args.closing.callback(store.close)
    return store


def _character(spec: str) -> tuple[str, dict[str, str]]:
    """`alice` or `alice:toughness=true,brawn=1`."""
    name, _, rest = spec.partition(":")
    params = _pairs(_listed(rest, f"character '{spec}'"), "character parameter")
    if not name.strip():
        raise InputError(
            [Diagnostic("RC407", f"character '{spec}' has no name (NAME[:KEY=VALUE,...])", None)]
        )
    return name, params  # as written, as every front end takes a name (a padded one is RC410)


def _open(args: argparse.Namespace, store: Store) -> Campaign:
    return open_campaign(args.name, store=store, migrate=getattr(args, "migrate", False), limits=args.limits)


def _read(args: argparse.Namespace, store: Store, err: TextIO) -> Campaign:
    """The campaign opened to be read (`show`, `replay`, `prob`, `scene --odds`, which write
    nothing: the last two refused a changed file as a change, hunt 13p): a ruleset file changed
    since, or broken since, is no refusal but RC904 or its load error as warnings on standard
    error, and what is stored is read with the ruleset text the campaign keeps (every change stays
    refused until the file is put back, mended or migrated to)."""
    migrate = getattr(args, "migrate", False)
    campaign = open_campaign(args.name, store=store, migrate=migrate, limits=args.limits, read_only=True)
    for told in campaign.warnings:
        err.write(told.render() + "\n")
    return campaign


def _dump(data: Any, out: TextIO) -> None:
    """`data` as indented JSON, in one write: `json.dump` hands its stream millions of pieces of
    a large answer (a log of 10,000 events), each through the guarded, escaping writers (`_Out`,
    `_Visible`), at about 2 MB a second (hunt 13ze)."""
    out.write(json.dumps(data, indent=2) + "\n")


def _campaign_new(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    store = _store(args)
    characters: dict[str, dict[str, str]] = {}
    for spec in args.character:
        who, params = _character(spec)
        if who in characters:
            raise CampaignError(
                [Diagnostic("RC902", f"character '{who}' is given twice", None, "name each once")]
            )
        characters[who] = params
    ref, params = _reference(args.ruleset), _pairs(args.param, "param")
    campaign = new_campaign(
        args.name, ref, store=store, params=params, characters=characters, limits=args.limits
    )
    if args.json:
        _dump(campaign.show(), out)
    else:
        shown = ruleset_shown(campaign.header.ruleset)
        out.write(f"made campaign '{campaign.name}' ({shown}) in {one_line(store_path(store))}\n")
        out.write(campaign_text(campaign.show()) + "\n")
    return 0


def _campaign_list(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """The campaigns by name: all of them, or a page (`--after NAME`, `--first N`), as the
    server's `GET /api/campaigns` answers one (`Store.names`). No `--last`: names have no newest,
    and the end of the alphabet is no more wanted than its start; a store pages forward only. A
    full page's text ends with the command for the next."""
    from .state.records import MOST_SEQ

    where = "rulecraft campaign list"
    first = (
        None if args.first is None else arguments.whole(where, "--first", args.first, least=1, most=MOST_SEQ)
    )
    if args.after is not None and (odd := re.search("[\\x00\ud800-\udfff]", args.after)) is not None:
        said = "a NUL character" if odd[0] == "\x00" else "a lone surrogate (bytes that are not UTF-8)"
        raise InputError(
            [
                Diagnostic(
                    "RC410", f"the argument '--after' holds {said}, which no campaign's name holds", None
                )
            ]
        )
    rows = _store(args).names(args.after, first)
    if args.json:
        _dump([{"campaign": n, "ruleset": r, "events": k} for n, r, k in rows], out)
        return 0
    if not rows:
        out.write(
            "no campaigns yet (rulecraft campaign new NAME RULESET)\n"
            if args.after is None
            else f"no campaigns named after {args.after!r}\n"
        )
    for name, ruleset, events in rows:
        out.write(f"{name}  ({ruleset_shown(ruleset)}, {events} event{'s' if events != 1 else ''})\n")
    if first is not None and len(rows) == first:
        out.write(
            # `--after=NAME`: a name may start with '-', which `--after -x` would read as a flag
            # with the store named as it was given (it read the default store when pasted: hunt 13l)
            f"more may follow: rulecraft campaign{_db_option(args)} list --after={shlex.quote(rows[-1][0])}"
            f" --first {first}\n"
        )
    return 0


def _db_option(args: argparse.Namespace) -> str:
    """` --db TARGET` as the command was given it (quoted for a shell), or nothing: what a hint
    that names another command needs to read the same store. A PostgreSQL URL is shown with its
    password masked (`redact`): the hint is printed, and the user has the password already."""
    if args.db is None:
        return ""
    from .state.stores import is_postgres

    target = str(args.db)
    if is_postgres(target):
        from .state.postgres import redact

        target = redact(target)
    return f" --db {shlex.quote(target)}"


def _campaign_show(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    campaign = _read(args, _store(args), err)
    if args.json:
        _dump(campaign.show(), out)
    else:
        out.write(campaign_text(campaign.show()) + "\n")
    return 0


def _campaign_join(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    campaign = _open(args, _store(args))
    who, params = _character(args.character)
    event = campaign.join(who, params=params)
    return _changed(campaign, event, args, out)


def _changed(campaign: Campaign, event: Event, args: argparse.Namespace, out: TextIO, extra: str = "") -> int:
    """The event and the state after it, from the event itself: once it is committed, nothing
    else is read (reading the log again, a damaged older event or a busy store would report a
    change that was made as failed), as the server does."""
    state = campaign.show(at=event)
    if args.json:
        _dump({"event": event_json(event), "state": state}, out)
    else:
        if extra:
            out.write(extra + "\n")
        out.write(event_text(event) + "\n" + campaign_text(state) + "\n")
    return 0


def _campaign_act(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    campaign = _open(args, _store(args))
    forced = _forced(_pairs(args.force, "force")) or None
    given: dict[str, Any] = _pairs(args.input, "input")
    acted = campaign.act(
        args.action,
        args.character,
        seed=args.seed,
        forced=forced,
        policy=args.policy,
        others=_pairs(args.other, "other"),
        inputs=given,
        trace=not args.no_trace,
    )
    roll = result_text(acted.result, f"{campaign.name} · {acted.result.check}") if acted.result else ""
    return _changed(campaign, acted.event, args, out, roll)


def _campaign_roll(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    campaign = _open(args, _store(args))
    forced = _forced(_pairs(args.force, "force")) or None
    event, result = campaign.roll(
        args.check,
        seed=args.seed,
        forced=forced,
        policy=args.policy,
        inputs=_pairs(args.input, "input"),
        trace=not args.no_trace,
    )
    return _changed(campaign, event, args, out, result_text(result, f"{campaign.name} · {result.check}"))


def _campaign_prob(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .eval.dist import Dist, fraction_text
    from .model.values import to_json
    from .runtime.inputs import bind
    from .state.exact import item_marginals

    campaign = _read(args, _store(args), err)
    given: dict[str, Any] = _pairs(args.input, "input")
    others = _pairs(args.other, "other")
    dist = campaign.distribution(args.action, args.character, policy=args.policy, others=others, inputs=given)
    marginals = item_marginals(dist, args.character, campaign.rules, others)
    act = campaign.rules.actions[args.action]  # the inputs as the action read them, as `prob` shows them
    inputs = bind(act.inputs, given, "action", act.name, act.span)
    if args.json:
        _dump(
            {
                "campaign": campaign.name,
                "action": args.action,
                "character": args.character,
                "others": others,
                "inputs": {k: to_json(v) for k, v in inputs.items()},
                "truncated": fraction_text(dist.truncated),
                "items": {
                    name: [
                        {"value": json.loads(v), "p": fraction_text(Fraction(w, d.total))}
                        for v, w in d.weights.items()
                    ]
                    for name, d in marginals.items()
                },
            },
            out,
        )
        return 0
    shown = _inputs_text(inputs)
    who = f" by {args.character}" if args.character else ""
    who += "".join(f", {role} {them}" for role, them in others.items())
    title = f"{campaign.name} · after {args.action}{who}{'  (' + shown + ')' if shown else ''}"
    now = (
        None
        if args.all
        else item_marginals(
            Dist.certain(json.dumps(campaign.state(), sort_keys=True)), args.character, campaign.rules, others
        )
    )
    out.write(state_distribution_text(title, marginals, now, dist.truncated) + "\n")
    return 0


def _campaign_scene(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .scenes.campaign import campaign_odds, play_in_campaign

    if _scene_file(args.scene) is not None:  # no campaign command reads a file: each names its rules'
        raise InputError(
            [
                Diagnostic(
                    "RC407",
                    f"campaign scene plays a scene of the campaign's ruleset, by its name; "
                    f"'{args.scene}' is a scene file, which it does not read",
                    None,
                    "add the scene to the ruleset the campaign was made with (then --migrate), or solve "
                    f"the file's scene on its own: rulecraft scene prob RULESET {args.scene}",
                )
            ]
        )
    if args.expect and not args.odds:
        wrong = "--expect goes with --odds (a played scene has one end)"
        raise InputError([Diagnostic("RC407", wrong, None)])
    if args.odds and args.seed is not None:  # it was passed over in silence (hunt 13p)
        wrong = "--seed goes with a played scene; --odds solves the scene exactly, rolling nothing"
        raise InputError([Diagnostic("RC407", wrong, None)])
    campaign = _read(args, _store(args), err) if args.odds else _open(args, _store(args))
    cast = _pairs(args.cast, "cast")
    if args.odds:
        found = campaign_odds(
            campaign, args.scene, cast, policy=args.policy, expect=_each_once(args.expect, "--expect")
        )
        if args.json:
            _dump(found.as_json(), out)
        else:
            out.write(scene_odds_text(found, f"{campaign.name} · {args.scene} from here") + "\n")
        return 0
    event, played = play_in_campaign(campaign, args.scene, cast, seed=args.seed, policy=args.policy)
    if args.json:
        _dump({"event": event_json(event), "scene": played.as_json(), "state": campaign.show(at=event)}, out)
        return 0
    out.write(played_text(played, f"{campaign.name} · {args.scene}  (seed {event.data['seed']})") + "\n")
    out.write(event_text(event) + "\n" + campaign_text(campaign.show(at=event)) + "\n")
    return 0


def _campaign_begin(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    campaign = _open(args, _store(args))
    return _changed(campaign, campaign.begin(args.period), args, out)


def _campaign_log(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .state.campaign import window
    from .state.records import whole  # read without the ruleset: it may no longer load

    newest = args.last is not None
    most = args.last if newest else args.first
    flags = {"after": "--after", "before": "--before", "limit": "--last" if newest else "--first"}
    page = window("rulecraft campaign log", args.after, args.before, most, newest, shown=flags)
    events = whole(_store(args).events(args.name, page), args.name)
    if args.json:
        _dump([event_json(e) for e in events], out)
    elif not events:  # said, as `list` says it has none (it printed nothing: hunt 13l)
        bounds = [f"after #{args.after}" if args.after else ""]
        bounds.append(f"before #{args.before}" if args.before else "")
        out.write(f"no events of '{args.name}' {' and '.join(b for b in bounds if b)}\n")
    else:
        out.write("".join(event_text(e) + "\n" for e in events))
    return 0


def _campaign_undo(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .state.records import MOST_SEQ

    seen = args.seen
    if seen is not None:  # named as typed, as `log`'s bounds are (the argument 'seen' was named)
        seen = arguments.whole("rulecraft campaign undo", "--seen", seen, least=1, most=MOST_SEQ)
    campaign = _open(args, _store(args))
    return _changed(campaign, campaign.undo(seen), args, out)


def _campaign_replay(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    campaign = _read(args, _store(args), err)
    state, count = campaign.replay_counted()
    if args.json:
        _dump({"ok": True, "events": count, "state": state}, out)
    else:
        events = "event" if count == 1 else "events"
        out.write(f"replayed {count:,} {events} of '{campaign.name}': every state equals the stored one\n")
    return 0


def _campaign_export(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .state.campaign import exported
    from .state.records import whole
    from .state.stores import names_folder

    store = _store(args)  # the log as stored: no ruleset is read, so a changed one is no matter
    data = exported(store.header(args.name), whole(store.events(args.name), args.name))
    if args.out in (None, "-"):  # `-o -`: standard output, as is usual, not a file named '-'
        _dump(data, out)
        return 0
    target = Path(args.out)
    if names_folder(args.out):  # `Path` drops the slash: `-o out/` had written a file named `out`
        raise _unwritten(f"{args.out} names a folder, not a file to write", "choose another file")
    _write_new(target, lambda: json.dumps(data, indent=2) + "\n", "choose another file")
    out.write(f"wrote {one_line(str(target))}: {len(data['events'])} events of campaign '{args.name}'\n")
    return 0


# -- scenes -----------------------------------------------------------------------------------------


def _parties(args: argparse.Namespace) -> dict[str, dict[str, str]]:
    """Each party's parameters from `--party PARTY:KEY=VALUE,...`. The parameters of one party
    given in several `--party` are merged (`--party you:a=1 --party you:b=2` is `you:a=1,b=2`; a
    second one replaced the first, in silence); a parameter given twice is refused (RC407), as
    within one `--party`."""
    parties: dict[str, dict[str, str]] = {}
    for spec in args.party:
        who, params = _character(spec)
        mine = parties.setdefault(who, {})
        for name, value in params.items():
            if name in mine:
                raise _twice(f"--party parameter '{who}:{name}'")
            mine[name] = value
    return parties


def _scene_title(rs: Ruleset, args: argparse.Namespace, parties: dict[str, dict[str, str]]) -> str:
    """The scene's header: the parameters given, each as read (`rank=0` for `00`, as a
    check's header shows its inputs), with the parties' own after them."""
    scene = rs.scene(args.scene)
    shown = [", ".join(f"{k}={_as_read(rs, k, v)}" for k, v in _pairs(args.param, "param").items())]
    for p, ps in parties.items():
        mine = ", ".join(f"{k}={_as_read(rs, f'{p}.{k}', v)}" for k, v in ps.items())
        if mine:  # `--party you:` gives nothing: the party as when no --party names it
            shown.append(f"{p}: {mine}")
    detail = "; ".join(s for s in shown if s)
    return f"{rs.name} · {one_title(scene.title)}" + (f"  ({detail})" if detail else "")


def _as_read(rs: Ruleset, name: str, value: str) -> str:
    """A scene's parameter (`NAME`, or a party's `PARTY.NAME`) given as `value`, shown as read."""
    from .runtime.inputs import coerce

    rules = rs.model.state
    assert rules is not None  # a scene is played on a ruleset's state
    party, dot, key = name.partition(".")
    spec = next((s for s in (rules.character if dot else rules.campaign) if s.name == (key or party)), None)
    return show(coerce(spec, value, "parameter")) if spec is not None else value


def _scene_of(rs: Ruleset, ref: str) -> tuple[Ruleset, str]:
    """A scene of the ruleset by name, or one from a scene file: `FILE.yaml` (its only scene) or
    `FILE.yaml:NAME`, the suffix in any case (`FILE.YAML:NAME` too). `FILE.yaml:` with no name
    after the colon is refused: a name lost, not the only scene meant."""
    split = _scene_file(ref)
    if split is None:
        return rs, ref
    file, name = split
    if name == "" and ref.endswith(":"):
        raise InputError(
            [
                Diagnostic(
                    "RC407",
                    f"'{ref}' names no scene after its ':'",
                    None,
                    f"give {file}:NAME, or {file} alone for a file of one scene",
                )
            ]
        )
    with_file = rs.with_scenes(file)
    added = [n for n in with_file.scenes if n not in rs.scenes]
    if not name:
        if len(added) != 1:
            raise InputError(
                [
                    Diagnostic(
                        "RC407",
                        f"{file} has {len(added)} scenes: say which, as {file}:NAME",
                        None,
                        f"its scenes: {', '.join(added)}",
                    )
                ]
            )
        name = added[0]
    elif name not in added:  # told at the file, of its scenes (it was told at the ruleset's `scenes:`)
        first = with_file.scenes[added[0]].span if added else None
        raise CampaignError(
            [
                Diagnostic(
                    "RC907",
                    f"{file} has no scene '{name}'",
                    first,
                    did_you_mean(name, added) or f"its scenes: {', '.join(added)}",
                )
            ],
            missing=True,
        )
    return with_file, name


def _scene_file(ref: str) -> tuple[Path, str] | None:
    """`FILE.yaml:NAME` as (FILE.yaml, NAME), split at the first ':' after a ruleset file's name;
    `FILE.yaml` as (FILE.yaml, ''); None for a scene's name."""
    for at, char in enumerate(ref):
        if char == ":" and is_ruleset_file(ref[:at]):
            return Path(ref[:at]), ref[at + 1 :]
    return (Path(ref), "") if is_ruleset_file(ref) else None


def _scene_prob(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .tools.plot import check_plot_path, plot_scene

    rs, args.scene = _scene_of(_ruleset(args.ruleset, args.limits), args.scene)
    parties = _parties(args)
    if args.plot:
        check_plot_path(Path(args.plot))
    if args.grid:
        return _scene_grid(rs, args, parties, out)
    found = rs.scene_odds(
        args.scene,
        params=_pairs(args.param, "param"),
        parties=parties,
        policy=args.policy,
        expect=_each_once(args.expect, "--expect"),
    )
    if args.json:
        data = found.as_json()
        data["ruleset"] = rs.name
        _dump(data, out)
        return 0
    out.write(scene_odds_text(found, _scene_title(rs, args, parties)) + "\n")
    if args.plot:
        plot_scene(found, Path(args.plot), _scene_title(rs, args, parties))
        out.write(f"wrote {one_line(args.plot)}\n")
    return 0


def _scene_grid(
    rs: Ruleset, args: argparse.Namespace, parties: dict[str, dict[str, str]], out: TextIO
) -> int:
    """The objective's exact chance over one or two parameters' values: a table, and a heat map.
    The grid is one request: its cells share one work budget (`--limit max_work`) and one
    deadline (`--limit deadline`), counted from its first cell (each cell had a budget and a
    deadline of its own, so a grid of 30,000 cells ran on for 15 s under a deadline of 1 s)."""
    from .runtime.context import RunContext, new_work
    from .scenes.odds import odds
    from .scenes.play import cast_state
    from .tools.plot import plot_grid

    if len(args.grid) > 2:
        raise InputError([Diagnostic("RC407", "give --grid once or twice (rows, then columns)", None)])
    if args.expect:  # one number a cell: an expected value would be dropped
        raise InputError(
            [
                Diagnostic(
                    "RC407",
                    "--expect goes without --grid (a grid shows the objective's chance alone)",
                    None,
                    "ask for the expected values of one cell with --party or --param in place of --grid",
                )
            ]
        )
    axes: list[tuple[str, list[str]]] = []
    fixed = _pairs(args.param, "param")
    for spec in args.grid:
        name, values = _sweep_values(spec, "--grid")
        party, dot, key = name.partition(".")
        if dot and key in parties.get(party, {}):  # every cell would override it
            raise _twice(f"'{name}' (by --grid and by --party {party}:{key})")
        if name in fixed or any(name == other for other, _ in axes):
            raise _twice(f"'{name}' (by --grid and --param, or by two --grid)")
        axes.append((name, values))
    # the labels as read, as the header shows the parameters (`0..1` of a true/false: false,
    # true), each read once: '1' and '01' are one row
    labels = [[_as_read(rs, name, v) for v in values] for name, values in axes]
    for (name, values), read in zip(axes, labels):
        _read_once(list(zip(values, read)), f"--grid '{name}=...'")
    if len(axes) == 1:
        axes.append(("", [""]))
        labels.append([""])
    scene = rs.scene(args.scene)
    objective = scene.objective or scene.ends[0].name
    work = new_work(rs.limits)  # the whole grid's
    chances: list[list[Fraction]] = []
    cut = Fraction(0)  # the largest share a roll was cut at (`Odds.truncated`), over the cells
    for a in axes[0][1]:
        row: list[Fraction] = []
        for b in axes[1][1]:
            params = dict(fixed)
            cast = {p: dict(v) for p, v in parties.items()}
            for (name, _), value in ((axes[0], a), (axes[1], b)):
                if not name:
                    continue
                party, dot, key = name.partition(".")
                if dot:
                    cast.setdefault(party, {})[key] = value
                else:
                    params[name] = value
            with _point(work, scene.span):  # its state made under the grid's budget too
                state, players = cast_state(rs.model, scene, params, cast)
            ctx = RunContext(rs.limits, args.policy, rs.caches, work=work)
            found = odds(rs.model, scene, state, players, ctx)
            cut = max(cut, found.truncated)
            row.append(found.probability(objective))
        chances.append(row)
    if args.json:  # exact, as every other --json: a float read 1 - 1e-22 as 1.0 (hunt 13m)
        from .eval.dist import fraction_text

        _dump(
            {
                "ruleset": rs.name,
                "scene": scene.name,
                "objective": objective,
                "rows": axes[0],
                "columns": axes[1] if axes[1][0] else None,  # one --grid: one column, no name
                "chances": [[fraction_text(p) for p in row] for row in chances],
                "truncated": fraction_text(cut),
            },
            out,
        )
        return 0
    rows, columns = labels
    head = f"P({objective})  rows: {axes[0][0]}" + (f", columns: {axes[1][0]}" if axes[1][0] else "")
    out.write(_scene_title(rs, args, parties) + "\n" + head + "\n")
    out.write(scene_grid_text(rows, columns if axes[1][0] else None, chances) + "\n")
    if cut:  # as one cell's odds say it (`scene_odds_text`), where the grid said nothing
        from .model.values import readable

        out.write(f"  note: {SCENE_CUT_NOTE.format(readable(cut))}\n")
    if args.plot:
        labelled = ((axes[0][0], rows), (axes[1][0], columns))  # as the table shows them
        plot_grid(*labelled, chances, Path(args.plot), _scene_title(rs, args, parties), f"P({objective})")
        out.write(f"wrote {one_line(args.plot)}\n")
    return 0


def _scene_roll(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    rs, args.scene = _scene_of(_ruleset(args.ruleset, args.limits), args.scene)
    parties = _parties(args)
    if args.times is not None:
        sampled = rs.sample_scenes(
            args.scene,
            args.times,
            random.Random(args.seed),
            params=_pairs(args.param, "param"),
            parties=parties,
            policy=args.policy,
        )
        if args.json:
            _dump({**sampled.as_json(), "ruleset": rs.name, "seed": args.seed}, out)
            return 0
        seed = f"; seed {args.seed}" if args.seed is not None else ""
        title = _scene_title(rs, args, parties) + f"  ({args.times} scenes{seed})"
        out.write(sampled_text(sampled, title) + "\n")
        return 0
    played = rs.play_scene(
        args.scene,
        random.Random(args.seed),
        params=_pairs(args.param, "param"),
        parties=parties,
        policy=args.policy,
    )
    if args.json:
        data = played.as_json()
        data["ruleset"] = rs.name
        data["seed"] = args.seed
        _dump(data, out)
        return 0
    seed = f"  (seed {args.seed})" if args.seed is not None else ""
    out.write(played_text(played, _scene_title(rs, args, parties) + seed) + "\n")
    return 0


if __name__ == "__main__":  # pragma: no cover (after every command is defined)
    raise SystemExit(main())
