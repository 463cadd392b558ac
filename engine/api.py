"""The Python API: load a ruleset once, then roll its checks (and, later, ask for distributions).

This module wires the stages together and holds no logic of its own:
load → validate → parse/compile → sample.

What a call does not need is imported when it is first needed (the schema check, the exact
evaluator, batches, scenes, campaigns), so a fresh process that rolls one check loads only what
rolling takes. A ruleset loaded again in the same process reuses its compiled model (`_LOADED`),
and a document already loaded and validated by an earlier process is read from the private cache
(`syntax.cached`) instead of from the YAML.
"""

from __future__ import annotations

import numbers
import os
import random
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from .compiled import keeping
from .compiler import check_version, compile_document
from .errors import (
    NOT_LOADING,
    CampaignError,
    CompileError,
    DeadlineError,
    Diagnostic,
    InputError,
    LoadError,
    RulecraftError,
    SchemaError,
    did_you_mean,
    scalar_bool,
    shown,
)
from .eval.sample import READY_WEIGHT, Forced, Ready, kept_roller, prepared, sample
from .eval.tables import keep_die_tables
from .eval.trace import Result
from .expr import parser
from .frozen import FrozenDict, frozen_json, replace
from .model.ruleset import Check, RulesetModel
from .runtime import arguments as arg
from .runtime.cache import MB, BoundedCache, Caches, approx_bytes, compiled_bytes
from .runtime.context import POLICIES, RunContext, check_policy
from .runtime.inputs import bind, bind_inputs, input_names, whole
from .runtime.limits import DEFAULT_LIMITS, Limits, enforce
from .runtime.work import Work
from .syntax import cached
from .syntax.clock import Clock
from .syntax.document import Document, graft, newlines, read_source
from .syntax.document import load as load_yaml
from .syntax.positions import SourceFile
from .syntax.resources import RULESET_SUFFIXES, is_ruleset_file, shipped_rulesets

if TYPE_CHECKING:
    from .eval.batch import Batch
    from .eval.exact import Distribution
    from .model.scene import Scene
    from .scenes.odds import Odds
    from .scenes.play import Played, Sampled
    from .state.campaign import Campaign
    from .state.records import Store


def _exact_at_first_use(check: Check, env: dict[str, Any], ctx: RunContext) -> Distribution:
    """`eval.exact.distribution`, imported by the first exact request and put in this one's place
    (a roll never needs the exact evaluator, and an import statement at every request would
    cost a microsecond)."""
    global exact_distribution
    from .eval.exact import distribution

    exact_distribution = distribution
    return distribution(check, env, ctx)


exact_distribution: Callable[[Check, dict[str, Any], RunContext], Distribution] = _exact_at_first_use


_NO_SCENES: Mapping[str, Scene] = FrozenDict()
"""The scenes of a ruleset without `state:`."""

RECENT = 256
"""How many argument sets of one check `Ruleset.roll` finds its roller by without binding them
again (`_remember`); past that it forgets them all and starts again."""

PLAIN = frozenset((int, str))
"""The types of the inputs `Ruleset.roll` remembers (`_remember`): two equal values of these
types are of one type, so a remembered roller is found only by inputs of its own types."""


class Ruleset:
    """A compiled ruleset. Its model is immutable and its caches (`caches`: bounded, locked) are
    its own, so one loaded ruleset is safe to share between threads for any number of rolls."""

    def __init__(self, model: RulesetModel, document: Document, limits: Limits = DEFAULT_LIMITS) -> None:
        self.model = model
        self.document = document
        self.limits = limits
        self.caches = Caches.within(limits.max_cache_bytes)
        keep_die_tables(model.checks.values(), self.caches.tables)  # a first request finds them
        self.file: Path | None = None
        """Where the file it was loaded from lies (`load` of a `Path`), resolved when it was
        loaded, else None: a campaign made of it keeps that path, from whatever folder it is made
        (`_found_again`), where its name as given is relative to the folder it was loaded from."""
        self._recent: dict[Any, Recalled] = self.caches.bindings.recent

    def __setattr__(self, name: str, value: Any) -> None:
        """New `limits` (a server's worker sets each job's deadline) forget the rollers `roll`
        finds by their arguments (`_remember`): each was proven under the limits before, and a
        roll under the new ones is proven again (`sample._decide`). They are a `Limits`: anything
        else failed later, inside a roll, with an AssertionError or AttributeError (hunt 13r)."""
        if name == "limits":
            arg.of_type("Ruleset", "limits", value, Limits)
        if name == "limits" and "_recent" in self.__dict__:
            self._recent.clear()
        object.__setattr__(self, name, value)

    def __reduce__(self) -> tuple[Any, ...]:
        """A ruleset pickles as what it was made from and is compiled again where it is
        unpickled, with empty caches of its own: a file's text (compiled once per process, as
        `load_source` keeps it), or, with a scene file grafted in, the whole document. So
        `pool.submit(ruleset.distribution, ...)` works in a worker process. Its `file` goes with
        it (a copy too, made this way): the text's name is the path as given, relative to the
        folder it was loaded from, and a campaign made of the copy elsewhere is to keep the file."""
        if not self.document.parts:
            return (_reloaded, (self.document.source, self.limits, self.file))
        return (_recompiled, (self.document, self.limits, self.file))

    @property
    def name(self) -> str:
        return self.model.name

    def with_scenes(self, source: Path | str, *, deadline: float | None = None) -> Ruleset:
        """This ruleset and the scenes of a scene file: YAML whose only key is `scenes:`, each scene
        written as in a ruleset and compiled against this one's state, actions and scales, so a
        question about a fight needs no change to the ruleset. A `Path` is the file; a `str` is
        its text. A mistake in it is reported at its own file's line and column. A `deadline`
        (seconds from now) bounds reading, checking and compiling it by the clock, as
        `load_source(deadline=)` bounds a load: past it, a `DeadlineError`."""
        arg.of_type("Ruleset.with_scenes", "source", source, (Path, str))
        if deadline is not None:
            deadline = arg.seconds("Ruleset.with_scenes", "deadline", deadline)
        with _load_deadline():
            return self._with_scenes(source, deadline)

    def _with_scenes(self, source: Path | str, deadline: float | None) -> Ruleset:
        """`with_scenes` once its arguments are checked."""
        work, clock = _load_clock(self.limits, deadline)
        text = (
            read_source(source, max_bytes=self.limits.max_yaml_bytes)
            if isinstance(source, Path)
            else SourceFile("<scenes>", source)
        )
        part = _yaml(text, self.limits, clock)
        scenes = part.data.get("scenes") if isinstance(part.data, dict) else None
        if isinstance(scenes, dict) and not scenes:  # it holds 'scenes:', with none in it (hunt 13m)
            where = part.span(("scenes",), key=True)
            raise SchemaError([Diagnostic("RC104", "the scene file's 'scenes:' holds no scene", where)])
        if not isinstance(part.data, dict) or not isinstance(scenes, dict):
            where = part.span(())
            raise SchemaError(
                [Diagnostic("RC101", "a scene file holds 'scenes:', a mapping of scenes", where)]
            )
        unknown = [
            Diagnostic(
                "RC102",
                f"unknown key '{key}' in a scene file: it holds only 'scenes:'",
                part.span((key,), key=True),
            )
            for key in part.data
            if key != "scenes"
        ]
        if unknown:
            raise SchemaError(unknown)  # every one, each at its key
        merged = self.document
        for name in scenes:
            if name in (self.document.data.get("scenes") or {}):
                raise CompileError(
                    [
                        Diagnostic(
                            "RC307",
                            f"the ruleset has a scene '{name}' already",
                            part.span(("scenes", name), key=True),
                            "give the scene in the file a name of its own",
                        )
                    ]
                )
            merged = graft(merged, part, ("scenes", name))
        from .syntax.schema import validate

        validate(merged, clock)
        grown = Ruleset(compile_document(merged, self.limits, work=work), _read_only(merged), self.limits)
        grown.file = self.file
        return grown

    @property
    def title(self) -> str:
        return self.model.title

    @property
    def checks(self) -> Mapping[str, Check]:
        """The checks by name, read-only (a `FrozenDict`): the compiled model's own, which every
        `Ruleset` loaded from the same text shares."""
        return self.model.checks

    def held_bytes(self) -> int:
        """About what this ruleset holds in memory now: its compiled code and text
        (`cache.compiled_bytes`) and what its caches hold (`Caches.bytes`, which grow as it runs).
        What a server weighs the rulesets it keeps by, after each request they ran."""
        return compiled_bytes(self.model.code, len(self.document.source.text)) + self.caches.bytes()

    def check(self, name: str) -> Check:
        """The check called `name`, or an `InputError` naming the nearest one, at the ruleset's
        `checks:` key: where the check was looked for, and where it would be written (an
        unknown input is likewise told at its check)."""
        arg.name("Ruleset.check", "name", name)
        found = self.model.checks.get(name)
        if found is not None:
            return found
        else:
            hint = did_you_mean(name, self.model.checks) or f"checks: {', '.join(self.model.checks)}"
            where = self.document.span(("checks",), key=True) if ("checks",) in self.document.places else None
            raise InputError(
                [Diagnostic("RC402", f"ruleset '{self.name}' has no check '{name}'", where, hint)],
                missing=True,
            ) from None

    def roll(
        self,
        check: str,
        /,
        rng: random.Random | None = None,
        *,
        forced: Forced | None = None,
        policy: str = "always",
        trace: bool = True,
        inputs: Mapping[str, Any] | None = None,
        **named: Any,
    ) -> Result:
        """Roll `check` once. Pass a seeded `random.Random` for replayable rolls; `forced`
        fixes dice (`{"tens": 5}`), pools (`{"dice": [9, 2, 0]}`, then any rerolled faces in
        order) or draws (`{"bag": ["red"]}`); `policy` ("always", "never", "optimal")
        decides every choice the rules leave to the player. `trace=False` skips the trace (the
        result's `trace` is empty) for a caller that wants only the outcome and values: the
        same dice, outcome and values from the same seed, sooner. Inputs are keyword arguments
        (`skill=3`) or, by any name, even one of this method's own (`rng`, `policy`, `inputs`), a
        mapping `inputs={"rng": 3}`; both may be given, each name once."""
        if inputs is not None:  # a new dict: a later change to the caller's mapping is not seen
            named = arg.inputs("Ruleset.roll", inputs, named)
        if forced is None and type(check) is str:
            # the arguments of a recent roll of this check: straight to its roller (`_remember`),
            # which checks the random source as `sample` would
            recent = self._recent.get(check)
            if recent is not None:  # the newest first, then the table and the one-input groups
                (given, was_policy, was_traced, only, roller, peers), table, groups = recent
                if trace is was_traced and policy is was_policy:
                    # the types first (`int` and `str` alone, so `True` never finds `1`'s roller),
                    # then a look-up or equality, which then never runs a caller's own `__hash__`
                    # or `__eq__`
                    if only is not None:  # one input: its roller by its value alone, no loop, no key
                        if len(named) == 1:
                            value = named.get(only, PLAIN)  # (no input is PLAIN)
                            if type(value) in PLAIN:
                                found = peers.get(value)
                                if found is not None:
                                    return found(rng)
                    else:
                        for value in named.values():
                            if type(value) not in PLAIN:
                                break
                        else:
                            if named == given:
                                return roller(rng)
                # else one of its remembered rolls, found by its arguments (`_remember`), made
                # the newest; the types looked at first here too, so no caller's own `__hash__`
                # or `__eq__` runs, and the trace `True` or `False`, so `1` never finds `True`'s
                if type(policy) is str and (trace is True or trace is False):
                    entry = None
                    if only is not None and len(named) == 1:  # one input, as the newest's: no loop
                        value = named.get(only, PLAIN)
                        if type(value) in PLAIN:
                            entry = table.get((policy, trace, only, value))
                    else:
                        for value in named.values():
                            if type(value) not in PLAIN:
                                break
                        else:
                            entry = table.get(_remembered(policy, trace, named))
                    if entry is not None:
                        self._recent[check] = (entry, table, groups)
                        return entry[4](rng)
        if forced is not None or type(check) is not str or type(policy) is not str or type(trace) is not bool:
            _check_call("Ruleset.roll", check, policy, forced, trace, self.model.checks)
        key = (check, *named.items(), *map(type, named.values()))  # `_bind`'s key, inline: it is hot
        try:
            ready = self.caches.bindings.lookup(key)
        except TypeError:  # an unhashable input: `_bind` words it
            ready = None
        if (
            ready is not None
            and ready.unmetered is self.limits
            and forced is None
            and type(rng) is random.Random
            and policy in POLICIES
        ):
            # bound and proven before (a check of plain dice): straight to its dice
            roller = kept_roller(ready, policy, trace, self.caches, _random)
            self._remember(check, key, ready, named, policy, trace, roller)
            return roller(rng)
        c = self.model.checks.get(check) or self.check(check)
        if ready is None:
            ready = self._bind(c, named)
        ctx = RunContext(
            self.limits, policy, self.caches, rng if type(rng) is random.Random else _random(rng), forced
        )
        return sample(c, ready.inputs, ctx, trace, ready)

    def _remember(
        self,
        check: str,
        key: tuple[Any, ...],
        ready: Ready,
        inputs: dict[str, Any],
        policy: str,
        traced: bool,
        roller: Callable[..., Result],
    ) -> None:
        """Keep a proven roller for `roll` to find by its arguments as given, when their values
        are all `int` or `str` (two equal values of those are of one type, so `True` never
        finds the roller of `1`, nor `55.0` that of `55`): the newest, which `roll` compares at
        once, and up to `RECENT` of each check in a table by their arguments (those of one
        input also among the newest's peers, by its value: `Recent`), in the bindings cache's
        `recent`, which forgets them all when the cache lets any binding go, so it holds no
        binding the cache does not."""
        if type(policy) is not str or not all(type(v) in PLAIN for v in inputs.values()):
            return
        recent = self._recent
        held = recent.get(check)
        if held is None or len(held[1]) >= RECENT:  # full: start again
            table: dict[Hashable, Recent] = {}
            groups: Groups = {}
        else:
            _, table, groups = held
        only = next(iter(inputs)) if len(inputs) == 1 else None
        peers = {} if only is None else groups.setdefault((policy, traced, only), {})
        entry = (inputs, policy, traced, only, roller, peers)
        table[_remembered(policy, traced, inputs)] = entry
        if only is not None:
            peers[inputs[only]] = roller
        recent[check] = (entry, table, groups)
        if self.caches.bindings.lookup(key) is not ready:  # let go meanwhile: not kept
            recent.pop(check, None)

    def roller(
        self,
        check: str,
        /,
        *,
        policy: str = "always",
        trace: bool = True,
        inputs: Mapping[str, Any] | None = None,
        **named: Any,
    ) -> Callable[..., Result]:
        """A function that rolls `check` with these inputs: `roller(rng)` gives what
        `roll(check, rng, policy=policy, trace=trace, inputs=inputs, **named)` gives (the same dice, outcome,
        values and trace from the same seed), with the arguments checked, the inputs bound and
        what every roll with them shares worked out once, here (so their errors are raised
        here), under the ruleset's `limits` as they are now. For a bot or a table that rolls
        the same check again and again. Inputs are given as `roll` takes them."""
        if inputs is not None:
            named = arg.inputs("Ruleset.roller", inputs, named)
        _check_call("Ruleset.roller", check, policy, None, trace, self.model.checks)
        with arg.meant_as_input("check", check, lambda: input_names(self.model.checks, check)):
            check_policy(policy)
        ready = self._bind(self.check(check), named)
        return prepared(ready, policy, trace, self.limits, self.caches, _random)

    def sample(
        self,
        check: str,
        times: int,
        /,
        rng: random.Random | None = None,
        *,
        policy: str = "always",
        method: str = "auto",
        inputs: Mapping[str, Any] | None = None,
        **named: Any,
    ) -> Batch:
        """`times` rolls of `check` at once, without traces: each outcome's count and each value's.
        `method` "exact" draws them from the exact distribution (with numpy, in a time that does
        not grow with `times`), "rolled" rolls each one, "auto" draws when the exact distribution
        fits the work budget and rolls otherwise; `Batch.method` says which was done. Inputs are
        given as `roll` takes them."""
        from .eval.batch import METHODS, sample_many

        if inputs is not None:
            named = arg.inputs("Ruleset.sample", inputs, named)
        _check_call("Ruleset.sample", check, policy, None, True, self.model.checks)
        with arg.meant_as_input("check", check, lambda: input_names(self.model.checks, check)):
            arg.name("Ruleset.sample", "method", method)
        c = self.check(check)
        count = whole(times)
        if count is None or count < 1:
            message = f"the number of rolls must be a whole number, at least 1, got {_count_shown(times)}"
            raise InputError([Diagnostic("RC404", message, c.span)])
        times = count
        enforce("the number of rolls", times, self.limits.max_samples, c.span, "max_samples")
        if method not in METHODS:
            hint = did_you_mean(str(method), METHODS) or f"methods: {', '.join(METHODS)}"
            raise InputError([Diagnostic("RC404", f"no sampling method {method!r}"[:120], None, hint)])
        with arg.meant_as_input("check", check, lambda: input_names(self.model.checks, check)):
            check_policy(policy)
        bound = self._bind(c, named).inputs
        ctx = RunContext(self.limits, policy, self.caches, _random(rng))
        return sample_many(
            c,
            bound,
            ctx,
            times,
            method,
            lambda work: self._distribution(check, policy, named, work),
        )

    def _bind(self, check: Check, inputs: dict[str, Any]) -> Ready:
        """Checked inputs, memoised with what rolls with them share (`Ready`): a table rolls the
        same check with the same inputs often."""
        # the inputs as given, and their types: True == 1, yet it is not an int (`roll` makes the
        # same key inline)
        key = (check.name, *inputs.items(), *map(type, inputs.values()))
        cache = self.caches.bindings
        ready: Ready | None = cache.get(key)  # None also for an unhashable value
        if ready is None:
            ready = Ready(check, bind_inputs(check, inputs))
            cache.put(key, ready, approx_bytes(ready.inputs) * READY_WEIGHT)
            ready.weigh = partial(cache.grow, key, ready)  # the rolls it keeps, weighed as they come
            ready.settle = partial(cache.put, key, ready)
        return ready

    def distribution(
        self,
        check: str,
        /,
        *,
        policy: str = "always",
        inputs: Mapping[str, Any] | None = None,
        **named: Any,
    ) -> Distribution:
        """The exact distribution of `check`'s outcome and named values, as `Fraction`s;
        `policy` decides every choice the rules leave to the player. Inputs are given as `roll`
        takes them."""
        if inputs is not None:
            named = arg.inputs("Ruleset.distribution", inputs, named)
        if type(check) is not str or type(policy) is not str:  # `_check_call`'s test, inline
            _check_call("Ruleset.distribution", check, policy, None, True, self.model.checks)
        return self._distribution(check, policy, named, None)

    def _distribution(
        self, check: str, policy: str, named: dict[str, Any], work: Work | None
    ) -> Distribution:
        """`distribution`, its arguments checked; solved under `work` when given (a request that
        does more than the solve, `sample`, whose draw is charged to what the solve left and
        whose deadline runs from its start), else a fresh one."""
        c = self.model.checks.get(check)
        if c is None:
            c = self.check(check)  # the error, with the nearest name
        # no `Ready`: what rolls share, made, weighed and kept, is a third of a first request;
        # this is one pass (`bind`, as `bind_inputs` calls it, without its frame)
        try:
            bound = bind(c.inputs, named, "check", check, c.span)
        except InputError:  # refused again, the check's dice named as such: off the warm path
            bound = bind_inputs(c, named)
        key = (check, policy, tuple(bound.values()))  # every declared input, in order: no names
        distributions = self.caches.distributions
        try:  # every bound value is hashable: `lookup` is `get` without its frame
            found: Distribution | None = distributions.lookup(key)
        except TypeError:
            found = None
        if found is None:
            limits = self.limits
            if work is None:
                work = Work(limits.max_work, limits.deadline)  # `new_work`, without its frame
            ctx = RunContext(limits, policy, self.caches, None, None, work)
            found = exact_distribution(c, bound, ctx)
            distributions.put(key, found, found.approx_bytes())
        return found

    @property
    def scenes(self) -> Mapping[str, Scene]:
        """The ruleset's scenes by name (none without `state:`), read-only: the compiled model's
        own, which every `Ruleset` loaded from the same text shares."""
        return self.model.state.scenes if self.model.state is not None else _NO_SCENES

    def scene(self, name: str) -> Scene:
        """The scene called `name`, or a `CampaignError` RC907 naming the nearest one, at the
        ruleset's `scenes:` key (where it was looked for, as an unknown check is told at `checks:`)."""
        arg.name("Ruleset.scene", "name", name)
        scenes = self.scenes
        found = scenes.get(name)
        if found is None:
            hint = did_you_mean(name, scenes) or (
                f"scenes: {', '.join(scenes)}" if scenes else "it declares none"
            )
            where = self.model.state.scenes_span if self.model.state is not None else None
            raise CampaignError(
                [Diagnostic("RC907", f"ruleset '{self.name}' has no scene '{name}'", where, hint)],
                missing=True,
            )
        return found

    def scene_odds(
        self,
        scene: str,
        /,
        *,
        params: Mapping[str, Any] | None = None,
        parties: Mapping[str, Mapping[str, Any]] | None = None,
        policy: str = "always",
        expect: Sequence[str] = (),
    ) -> Odds:
        """The exact odds of a scene played on its own: each ending's chance, its length in rounds.
        `params` are the campaign's parameters, `parties` each party's character parameters;
        `expect` names (`PARTY.ITEM`) whose expected value at the end is wanted too."""
        from .scenes.odds import odds
        from .scenes.play import cast_state

        _scene_call("Ruleset.scene_odds", scene, params, parties, policy)
        arg.names("Ruleset.scene_odds", "expect", expect)
        found = self.scene(scene)
        state, cast = cast_state(self.model, found, params, parties)
        ctx = RunContext(self.limits, policy, self.caches)
        return odds(self.model, found, state, cast, ctx, tuple(expect))

    def play_scene(
        self,
        scene: str,
        /,
        rng: random.Random | None = None,
        *,
        params: Mapping[str, Any] | None = None,
        parties: Mapping[str, Mapping[str, Any]] | None = None,
        policy: str = "always",
    ) -> Played:
        """One whole scene, sampled round by round with `rng`, with its trace."""
        from .scenes.play import cast_state, play

        _scene_call("Ruleset.play_scene", scene, params, parties, policy)
        found = self.scene(scene)
        state, cast = cast_state(self.model, found, params, parties)
        ctx = RunContext(self.limits, policy, self.caches, _random(rng))
        return play(self.model, found, state, cast, ctx)

    def sample_scenes(
        self,
        scene: str,
        times: int,
        /,
        rng: random.Random | None = None,
        *,
        params: Mapping[str, Any] | None = None,
        parties: Mapping[str, Mapping[str, Any]] | None = None,
        policy: str = "always",
    ) -> Sampled:
        """`times` whole scenes played one after another with `rng`, without their traces: how
        many ended each way and in which round (what `scene_odds` gives exactly)."""
        from .scenes.play import cast_state, play_many

        _scene_call("Ruleset.sample_scenes", scene, params, parties, policy)
        found = self.scene(scene)
        count = whole(times)
        if count is None or count < 1:
            said = _count_shown(times)
            message = f"'times', the number of scenes, must be a whole number, at least 1, got {said}"
            raise InputError([Diagnostic("RC404", message, found.span)])
        times = count
        enforce("the number of scenes", times, self.limits.max_scenes, found.span, "max_scenes")
        state, cast = cast_state(self.model, found, params, parties)
        ctx = RunContext(self.limits, policy, self.caches, _random(rng))
        return play_many(self.model, found, state, cast, ctx, times)

    def __repr__(self) -> str:
        return f"<Ruleset {self.name!r}: {', '.join(self.checks)}>"


Peers = dict[Any, Callable[..., Result]]
"""One-input rollers of one check, policy, trace and input name, by that input's value."""

Groups = dict[tuple[str, bool, str], Peers]
"""A check's `Peers`, by policy, trace and input name."""

Recent = tuple[dict[str, Any], str, bool, str | None, Callable[..., Result], Peers]
"""A remembered roll's arguments as given (inputs, policy, trace), the name of its only input
when it has one (whose type `roll` then checks without a loop), the proven roller they found,
and, for one input, its peers: the rollers remembered with the same policy, trace and input name,
by that input's value (one dictionary per group, shared by its entries: `Recalled`), so a bot
rolling against many targets in turn finds each by one look-up of its value."""

Recalled = tuple[Recent, dict[Hashable, Recent], Groups]
"""A check's newest remembered roll, all it remembers by their arguments (`_remembered`), and the
one-input rollers grouped by policy, trace and input name (each group a `Recent`'s peers)."""


def _remembered(policy: str, trace: bool, inputs: dict[str, Any]) -> tuple[Any, ...]:
    """The key `Ruleset.roll` remembers a roll's arguments by: flat for one input, `(policy,
    trace, name, value)`, which `roll` then builds without a loop, else `(policy, trace, *items)`.
    The two never meet: an item is a tuple, a name a `str`."""
    if len(inputs) == 1:
        return (policy, trace, *inputs, *inputs.values())
    return (policy, trace, *inputs.items())


def _check_call(
    where: str,
    check: Any,
    policy: Any,
    forced: Any = None,
    trace: Any = True,
    checks: Mapping[str, Any] | None = None,
) -> None:
    """The arguments every call of a check shares: its name, the policy, forced dice, the trace;
    one of a wrong type whose name the check's inputs share says how to give the input."""
    if type(check) is str and type(policy) is str and forced is None and type(trace) is bool:
        return  # the common call, checked at the cost of a few comparisons (a roll takes ~20 µs)
    arg.name(where, "check", check)
    with arg.meant_as_input("check", check, lambda: input_names(checks or {}, check)):
        arg.name(where, "policy", policy)
        arg.mapping(where, "forced", forced)
        arg.of_type(where, "trace", trace, bool)


def _scene_call(where: str, scene: Any, params: Any, parties: Any, policy: Any) -> None:
    """The arguments every call of a scene shares."""
    arg.name(where, "scene", scene)
    arg.mapping(where, "params", params)
    arg.mapping(where, "parties", parties, of_mappings=True)
    arg.name(where, "policy", policy)
    check_policy(policy)  # before anything is played: a scene that rolls nothing reads no policy


def load(source: str | Path, *, limits: Limits = DEFAULT_LIMITS, name: str | None = None) -> Ruleset:
    """Load a ruleset. What `source` is decides how it is read, and text never opens a file:

    - a `pathlib.Path` is a file, read as UTF-8;
    - a `str` that is the name of a shipped ruleset is that ruleset;
    - any other `str` is YAML text (reported as `name`, by default `<string>`). A string that looks
      like a file name or a misspelt shipped name is refused (`RC001`) without touching the disk.

    `limits` bound the text (size, nesting, aliases, expressions) as it loads and every
    evaluation after."""
    arg.of_type("load", "limits", limits, Limits)
    arg.name("load", "name", name, optional=True)
    if isinstance(source, Path):
        try:
            missing = not source.exists()
        except OSError:  # a path the system refuses (a name too long): reading it says why
            missing = False
        if missing and _looks_like_a_name(str(source)):
            raise _no_such_name(str(source), _with_suffix(source), path=True)
        loaded = load_source(read_source(source, name, limits.max_yaml_bytes), limits=limits)
        loaded.file = _resolved(source)
        return loaded
    if not isinstance(source, str):
        raise LoadError(
            [Diagnostic("RC001", f"a ruleset is text or a pathlib.Path, not {type(source).__name__}", None)]
        )
    if source in shipped_rulesets():
        path = shipped_rulesets()[source]
        shipped = load_source(read_source(path, name or _display(path), limits.max_yaml_bytes), limits=limits)
        shipped.file = _resolved(path)  # a file the engine chose, found again by a campaign
        return shipped
    if len(source) > limits.max_yaml_bytes:  # no name is that long: text over the limit (RC004), told at once
        return load_source(SourceFile(name or "<string>", source), limits=limits)
    line = source.strip()
    if line != source and line in shipped_rulesets():  # it was "no ruleset 'x' ... did you mean 'x'?"
        raise LoadError(
            [
                Diagnostic(
                    "RC001",
                    f"no ruleset {source!r}: a name has no spaces or line breaks around it",
                    None,
                    f"did you mean '{line}'?",
                )
            ],
            missing=True,
        )
    if "\n" not in line and ":" not in line:
        if _looks_like_a_name(line):
            raise _no_such_name(line)
        if is_ruleset_file(line) or "/" in line or "\\" in line:
            raise LoadError(
                [
                    Diagnostic(
                        "RC001",
                        "a string is read as YAML text, never as a file name",
                        None,
                        f"to load a file, pass a pathlib.Path: engine.load(Path({line!r}))",
                    )
                ]
            )
    return load_source(SourceFile(name or "<string>", source), limits=limits)


def _with_suffix(path: Path) -> Path | None:
    """`mygame.yaml` (or `.yml`) beside where `mygame` was looked for, when it is there: the file
    `rulecraft new mygame` wrote, named without its suffix."""
    for suffix in RULESET_SUFFIXES:
        try:
            if path.with_name(path.name + suffix).is_file():
                return path.with_name(path.name + suffix)
        except (OSError, ValueError):  # a name the system refuses
            return None
    return None


def _no_such_name(text: str, file: Path | None = None, *, path: bool = False) -> LoadError:
    """RC001 for a bare word that names nothing. Given as a `Path` (`path`), it was looked for as a
    file or folder too; a `str` never is, so its message does not say it was."""
    known = list(shipped_rulesets())
    if path and file is None and text in known:  # not "no shipped ruleset has that name ... did you mean it?"
        said = f"the path '{text}' does not exist (a pathlib.Path is always a file or folder)"
        hint = f"to load the shipped ruleset '{text}', pass the str: engine.load({text!r})"
        return LoadError([Diagnostic("RC001", f"no ruleset '{text}': {said}", None, hint)], missing=True)
    hint = (
        f"did you mean the file '{file}'?"
        if file is not None
        else did_you_mean(text, known) or f"shipped rulesets: {', '.join(known)}"
    )
    said = (
        f"the path '{text}' does not exist, and no shipped ruleset has that name"
        if path
        else "there is no shipped ruleset of that name (a string is never read as a file name)"
    )
    return LoadError([Diagnostic("RC001", f"no ruleset '{text}': {said}", None, hint)], missing=True)


def load_source(
    source: SourceFile, *, limits: Limits = DEFAULT_LIMITS, deadline: float | None = None
) -> Ruleset:
    """Run every stage on one source file, within `limits`. A `deadline` (seconds from now)
    bounds the load itself by the clock, as a server bounds a ruleset sent in a request: past it,
    a `DeadlineError`. (`Limits.deadline` bounds each evaluation, not a load, whose size the
    text's bounds already limit: a cold load of a shipped ruleset takes a few tenths of a second.)"""
    arg.of_type("load_source", "source", source, SourceFile)
    arg.name("load_source", "source.name", source.name)
    arg.name("load_source", "source.text", source.text)
    arg.of_type("load_source", "limits", limits, Limits)
    if deadline is not None:
        deadline = arg.seconds("load_source", "deadline", deadline)
    source = newlines(source)  # before the caches' keys: a cached ruleset is read from its text
    memo = (source.name, source.text, limits)
    found: _Loaded | None = _LOADED.get(memo)
    if found is None:
        with _load_deadline():
            found = _compiled(source, limits, deadline)
        _LOADED.put(memo, found, compiled_bytes(found.model.code, len(source.text)))
    return Ruleset(found.model, found.document, limits)


def _reloaded(source: SourceFile, limits: Limits, file: Path | None = None) -> Ruleset:
    """A pickled ruleset compiled again from its text, with the `file` it was loaded from."""
    rs = load_source(source, limits=limits)
    rs.file = file
    return rs


def _recompiled(document: Document, limits: Limits, file: Path | None = None) -> Ruleset:
    """A pickled ruleset with scenes grafted in, compiled again, with the `file` it was loaded from."""
    rs = Ruleset(compile_document(document, limits), document, limits)
    rs.file = file
    return rs


class _Loaded(NamedTuple):
    """A ruleset's compiled model and its document: immutable, so any number of `Ruleset`s (each
    with caches of its own) may share them."""

    model: RulesetModel
    document: Document


_LOADED = BoundedCache(16, 64 * MB)
"""The rulesets this process compiled, by source name, text and limits: loading the same file
again costs a lookup (a bad ruleset is never kept: it raises before). Weighed by
`compiled_bytes`: kept by count alone, 16 rulesets sent to a server's worker could hold 40 MB
each."""


def _compiled(source: SourceFile, limits: Limits, deadline: float | None = None) -> _Loaded:
    """Every stage on `source`. When an earlier process loaded, validated and compiled the same
    text under the same limits, its document and its expressions' shapes come from the private
    on-disk cache (`syntax.cached`): no YAML parser, no schema check, no lark. Otherwise the YAML
    is read and checked (jsonschema imported only then), and what compiled is kept for the next
    process; a ruleset with any problem is never kept, so it is reported afresh every time."""
    work, clock = _load_clock(limits, deadline)
    key = cached.key(
        source, limits.max_yaml_bytes, limits.max_yaml_depth, limits.max_yaml_nodes, parser.fingerprint()
    )
    code = keeping(key.hex()[:40] if key is not None else None)  # its generated code, compiled
    hit = cached.read(key, source)
    if hit is not None and parser.remember(hit[1]):
        doc = hit[0]
        check_version(doc)
        with code:
            return _Loaded(compile_document(doc, limits, work=work), _read_only(doc))
    doc = _yaml(source, limits, clock)
    check_version(doc)
    from .syntax.schema import validate

    validate(doc, clock)
    with parser.recording() as shapes, code:
        model = compile_document(doc, limits, work=work)
    cached.write(key, doc, shapes)  # before `_read_only`: `marshal` writes no dict of a subclass
    return _Loaded(model, _read_only(doc))


def _read_only(doc: Document) -> Document:
    """`doc` with its data read-only all the way down (`frozen_json`): a loaded ruleset's document
    is shared by every `Ruleset` of the same text in the process (`_LOADED`), so one embedder's
    `rs.document.data["name"] = ...` would have changed what every later load showed."""
    return replace(doc, data=frozen_json(doc.data))


@contextmanager
def _load_deadline() -> Iterator[None]:
    """A load's `deadline=` passed: its hint names that argument, not `--limit deadline` or
    `Limits.deadline`, which bound each evaluation and never a load (hunt 13r)."""
    try:
        yield
    except DeadlineError as e:
        hint = "ask for less, or give the load more time: a larger deadline= (seconds; None: no deadline)"
        raise DeadlineError([replace(d, hint=hint) for d in e.diagnostics]) from e


def _load_clock(limits: Limits, deadline: float | None) -> tuple[Work | None, Clock | None]:
    """The budget and clock of one load under a `deadline` (None, None without one): its clock
    runs from the load's start, read as the YAML is read and checked (`syntax.clock`) and, through
    the budget, as the compile writes code (`Emitter`)."""
    if deadline is None:
        return None, None
    work = Work(limits.max_work, deadline)
    return work, Clock(work.check_clock)


def _count_shown(times: Any) -> str:
    """A count of rolls or scenes refused, as its message shows it: a number of a kind a count
    is not (a `Fraction`, a float, a `Decimal`, a bool) named by its kind, whole or not, so
    `Fraction(5)` is not answered "got 5" (a count is any `numbers.Integral` but `bool`: a
    `Fraction` is refused as `Limits` refuses it, not read as the whole number it equals)."""
    said = shown(times)
    if isinstance(times, bool) or scalar_bool(times):
        return f"{said} (a bool: a count is an int)"
    if isinstance(times, numbers.Number) and not isinstance(times, numbers.Integral):
        return f"{said} (a {type(times).__name__}: a count is an int)"
    return said


def _random(rng: Any) -> random.Random:
    """The caller's random source, or a fresh one; anything else (a seed given where the source
    goes) is an `InputError`, not a traceback from deep in the sampler."""
    if rng is None:
        return random.Random()
    if not isinstance(rng, random.Random):
        shown = f"{type(rng).__name__} {rng!r}"[:60]
        raise InputError(
            [
                Diagnostic(
                    "RC404",
                    f"the random source must be a random.Random, got {shown}",
                    None,
                    "for a seed, pass random.Random(seed)",
                )
            ]
        )
    return rng


def _yaml(source: SourceFile, limits: Limits, clock: Clock | None = None) -> Document:
    return load_yaml(
        source,
        max_bytes=limits.max_yaml_bytes,
        max_depth=limits.max_yaml_depth,
        max_nodes=limits.max_yaml_nodes,
        clock=clock,
    )


def _looks_like_a_name(text: str) -> bool:
    """A bare word: meant as a shipped ruleset's name (no ruleset is one word of YAML)."""
    return text.isidentifier()


def _display(path: Path) -> str:
    """A path as short as it can be shown: relative to the working folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


# -- campaigns -------------------------------------------------------------------------------------


def default_db() -> str | Path:
    """Where campaigns are kept unless told otherwise: `$RULECRAFT_DB` (a path, or a
    `postgresql://` URL), else `$XDG_DATA_HOME/rulecraft/campaigns.db`, else
    `~/.local/share/rulecraft/campaigns.db`. `$RULECRAFT_DB` is given back as the text it is,
    read as `--db` is (`state.stores.open_store`): a URL of another scheme is refused, not taken
    for a file path, and its folders are the user's to make, as the default's are ours."""
    given = os.environ.get("RULECRAFT_DB")
    if given:  # set but empty is unset, as XDG reads its own variables
        return given
    # a relative $XDG_DATA_HOME is ignored, as the XDG spec says ("consider the path invalid"):
    # it named another file from every working folder (hunt 13l)
    xdg = os.environ.get("XDG_DATA_HOME") or ""
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".local" / "share"
    return base / "rulecraft" / "campaigns.db"


def open_store(db: str | Path | None = None, *, wait: float | None = None) -> Store:
    """The campaign store at `db` — a file path, or a `postgresql://` (`postgres://`) URL — or at
    the default place when None (`default_db`). Close it when done. `wait`: the most seconds a
    write waits for another writer (10 by default)."""
    from .state.stores import open_store as state_store

    if wait is not None:
        wait = arg.seconds("open_store", "wait", wait, none_is="the store's own wait of 10 s")
    if db is not None and not isinstance(db, (str, Path)):  # a TypeError here, not an AttributeError inside
        arg.wrong_type("open_store", "db", db, "a str, a pathlib.Path or None")
    if db is not None:
        return state_store(db, wait=wait)
    target = default_db()
    if isinstance(target, Path):
        try:  # the default folder is ours to make; a path the user names is not
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass  # the store says what is wrong with the place
    return state_store(target, wait=wait)


def text_compiler(limits: Limits) -> Callable[[str, str], RulesetModel]:
    """Compiles a campaign's stored (or migrated) text under `limits`."""

    def compile_text(text: str, name: str) -> RulesetModel:
        return load_source(SourceFile(name, text), limits=limits).model

    return compile_text


def new_campaign(
    name: str,
    ruleset: str | Path | Ruleset,
    *,
    store: Store | None = None,
    params: Mapping[str, Any] | None = None,
    characters: Mapping[str, Mapping[str, Any]] | None = None,
    limits: Limits | None = None,
) -> Campaign:
    """Make campaign `name` of `ruleset` (a loaded one, a `Path`, a shipped name or YAML text) in
    `store` (the default SQLite file when None), with the campaign's parameters and its first
    characters. `limits` bound the campaign's work (by default a loaded ruleset's own)."""
    from .state.campaign import Campaign

    arg.name("new_campaign", "name", name)
    _store("new_campaign", store)
    arg.mapping("new_campaign", "params", params)
    arg.mapping("new_campaign", "characters", characters, of_mappings=True)
    arg.of_type("new_campaign", "limits", limits, Limits, optional=True)
    rs = ruleset if isinstance(ruleset, Ruleset) else load(ruleset, limits=limits or DEFAULT_LIMITS)
    limits = limits or rs.limits
    source = (
        _found_again(rs) if not isinstance(ruleset, str) or ruleset not in shipped_rulesets() else ruleset
    )
    return Campaign.create(
        store or open_store(),
        name,
        rs.model,
        rs.document.source.text,
        params,
        characters,
        limits,
        compile=text_compiler(limits),
        source=source,
    )


def open_campaign(
    name: str,
    *,
    store: Store | None = None,
    ruleset: str | Path | Ruleset | None = None,
    migrate: bool = False,
    limits: Limits | None = None,
    read_only: bool = False,
) -> Campaign:
    """The stored campaign `name`, played with `ruleset` — by default the one it was made from,
    found again by its shipped name or path (the text stored with the campaign when it can no
    longer be found). A ruleset whose content changed since is refused (RC904) unless `migrate`,
    which records the change in the log, or `read_only`: then it is read (shown, replayed) with the
    text it keeps and RC904 is its `warnings`. So is one that no longer loads (its file there but
    broken): its error, unless `read_only` and not `migrate`, when it is the warnings. Opened
    `read_only`, every change through it is refused: with that RC904 or load error, else RC903.
    `limits` bound the campaign's work and time (by default a loaded ruleset's own, where it is
    played: the text the campaign keeps, read instead, is read under the defaults)."""
    from .state.campaign import Campaign, keeps

    arg.name("open_campaign", "name", name)
    _store("open_campaign", store)
    arg.of_type("open_campaign", "migrate", migrate, bool)
    arg.of_type("open_campaign", "read_only", read_only, bool)
    arg.of_type("open_campaign", "limits", limits, Limits, optional=True)
    store = store or open_store()
    given = limits or DEFAULT_LIMITS
    text = None
    if ruleset is None:
        ref = store.header(name).ruleset
        found = None if text_reference(ref) else stored_reference(ref)
        # only a file gone falls back to the stored text in silence: one that is there but no
        # longer loads (its YAML broken, say) is its error, or, read only, its warnings
        ruleset = None if found is None or (isinstance(found, Path) and not found.exists()) else found
    shown_as = ""
    loaded: Ruleset | None = None
    if ruleset is not None:
        try:
            loaded = ruleset if isinstance(ruleset, Ruleset) else load(ruleset, limits=given)
        except RulecraftError as exc:  # raised, unless it is read with the text it keeps
            return read_kept(store, name, exc, given, migrate=migrate, read_only=read_only)
        text, shown_as = loaded.document.source.text, loaded.document.source.name
        # its own limits are for what plays it: read only, a file changed since is not played,
        # and the text the campaign keeps is read under the limits that text is opened with
        if limits is None and (migrate or not read_only or keeps(store.header(name), text)):
            limits = loaded.limits
    limits = limits or DEFAULT_LIMITS
    compile_text = text_compiler(limits)

    def compile(source: str, as_name: str) -> RulesetModel:
        """The loaded ruleset as it is, never compiled twice; any other text (a migration's) compiled."""
        if loaded is not None and source == loaded.document.source.text:
            return loaded.model
        return compile_text(source, as_name)

    return Campaign.open(
        store, name, compile, text, migrate=migrate, shown_as=shown_as, limits=limits, read_only=read_only
    )


def _store(where: str, store: Any) -> None:
    """A campaign store, or None for the default one."""
    from .state.records import STORE_METHODS

    if store is not None:
        arg.having(where, "store", store, STORE_METHODS, "a campaign store (engine.state) or None")


def _found_again(rs: Ruleset) -> str:
    """How a campaign finds its ruleset file again: its full path, so another working folder
    (with its own file of that name, or none) finds the same file. That is the path it was
    loaded from, resolved then (`Ruleset.file`): its name as given is relative to the folder it
    was loaded from, which a campaign made from another folder kept as it was, a path found
    again from whatever folder opened it (another file, or none) and shown to a server's clients
    (found by a hunt). A ruleset loaded from text (`Ruleset.file` None): its name in angle
    brackets (`<string>`, `<upload.yaml>`), which `open_campaign` never reads as a file
    (`text_reference`) and opens with the text the campaign keeps. Its name was resolved where it
    was a file here: `load(text, name="/etc/passwd")` made a campaign that opened that file, and
    quoted it in its error (hunt 13k)."""
    if rs.file is not None and _keepable(str(rs.file)):
        return str(rs.file)
    # a file's name that is no UTF-8 (`r\xff.yaml`, which Python reads as a lone surrogate) no
    # store can keep: the campaign keeps the ruleset as its text, under the name as the bytes
    # show it (hunt 13l: a UnicodeEncodeError traceback from the store's insert)
    name = str(rs.file) if rs.file is not None else rs.document.source.name
    if not _keepable(name):
        name = os.fsencode(name).decode("utf-8", "backslashreplace")
    return name if text_reference(name) else f"<{name}>"


def _keepable(text: str) -> bool:
    """Whether a store can keep `text`: it is UTF-8 (no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def text_reference(ref: str) -> bool:
    """Whether a campaign's stored ruleset reference names text it keeps (`<string>`), not a
    file or a shipped ruleset: never looked for on the disk."""
    return ref.startswith("<") and ref.endswith(">")


def _resolved(path: Path) -> Path | None:
    """`path` made absolute, its links followed; None for a path the system refuses."""
    try:
        return path.resolve()
    except (OSError, ValueError):
        return None


def read_kept(
    store: Store,
    name: str,
    refused: RulecraftError,
    limits: Limits,
    *,
    migrate: bool = False,
    read_only: bool = False,
) -> Campaign:
    """Campaign `name` opened with the ruleset text it keeps, its ruleset as it is now having
    `refused` to load: read (`read_only`, not `migrate`) with that error as its warnings, else
    that error raised (`Campaign.open(refused=)`). Only a file that is there and broken
    (`NOT_LOADING`) is read so: a ruleset named that is not there (`missing`: a misspelt path)
    and a load past a bound or its deadline (`LimitError`: the bound refused the file, which is
    not broken) are raised as they are. A bound the file passed was read on the text kept
    instead, and told at `<campaign NAME>:1:1` as if that text were at fault (found by a hunt)."""
    from .state.campaign import Campaign

    if refused.missing or not isinstance(refused, NOT_LOADING):
        raise refused
    compile_kept = text_compiler(limits)
    return Campaign.open(
        store, name, compile_kept, limits=limits, migrate=migrate, read_only=read_only, refused=refused
    )


def stored_reference(ref: str) -> str | Path:
    """A stored ruleset reference: a shipped name, or a file, named from the working folder when
    it lies under it (as it was most likely given), so its diagnostics read `watch.yaml:3:5`."""
    if ref in shipped_rulesets():
        return ref
    path = Path(ref)
    try:
        return path.relative_to(Path.cwd()) if path.is_absolute() else path
    except (OSError, ValueError):  # elsewhere, or no working folder: the path as stored
        return path
