"""The Python API: load a ruleset once, then roll its checks (and, later, ask for distributions).

This module wires the stages together and holds no logic of its own:
load → validate → parse/compile → sample.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .compiler.structure import check_version, compile_document
from .errors import Diagnostic, InputError, LoadError, did_you_mean
from .eval.exact import Distribution, distribution
from .eval.sample import Forced, Result, sample
from .model.ruleset import Check, RulesetModel
from .runtime.inputs import bind_inputs
from .runtime.limits import DEFAULT_LIMITS, Limits
from .runtime.procedure import POLICIES
from .syntax.document import Document, read_source
from .syntax.document import load as load_yaml
from .syntax.positions import SourceFile
from .syntax.resources import shipped_rulesets
from .syntax.schema import validate


class Ruleset:
    """A compiled ruleset. Immutable; safe to share between threads and reuse for many rolls."""

    def __init__(self, model: RulesetModel, document: Document, limits: Limits = DEFAULT_LIMITS) -> None:
        self.model = model
        self.document = document
        self.limits = limits
        self._dist_cache: dict[tuple[Any, ...], Distribution] = {}
        self._bind_cache: dict[tuple[Any, ...], dict[str, Any]] = {}

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def title(self) -> str:
        return self.model.title

    @property
    def checks(self) -> Mapping[str, Check]:
        return self.model.checks

    def check(self, name: str) -> Check:
        """The check called `name`, or an `InputError` naming the nearest one."""
        found = self.model.checks.get(name)
        if found is not None:
            return found
        else:
            hint = did_you_mean(name, self.model.checks) or f"checks: {', '.join(self.model.checks)}"
            raise InputError(
                [Diagnostic("RC402", f"ruleset '{self.name}' has no check '{name}'", None, hint)]
            ) from None

    def roll(
        self,
        check: str,
        /,
        rng: random.Random | None = None,
        *,
        forced: Forced | None = None,
        policy: str = "always",
        **inputs: Any,
    ) -> Result:
        """Roll `check` once. Pass a seeded `random.Random` for replayable rolls; `forced`
        fixes dice (`{"tens": 5}`), pools (`{"dice": [9, 2, 0]}`, then any rerolled faces in
        order) or draws (`{"beads": ["good"]}`); `policy` ("always", "never", "optimal")
        decides every choice the rules leave to the player."""
        c = self.check(check)
        return sample(
            c, self._bind(c, inputs), rng if rng is not None else random.Random(), forced, self.limits, policy
        )

    def _bind(self, check: Check, inputs: dict[str, Any]) -> dict[str, Any]:
        """Checked inputs, memoised: a table rolls the same check with the same inputs often."""
        try:
            key = (check.name, *inputs.items())
            bound = self._bind_cache.get(key)
        except TypeError:  # an unhashable value: check it every time
            return bind_inputs(check, inputs)
        if bound is None:
            bound = bind_inputs(check, inputs)
            if len(self._bind_cache) > 4096:
                self._bind_cache.clear()
            self._bind_cache[key] = bound
        return bound

    def distribution(self, check: str, /, *, policy: str = "always", **inputs: Any) -> Distribution:
        """The exact distribution of `check`'s outcome and named values, as `Fraction`s;
        `policy` decides every choice the rules leave to the player."""
        c = self.check(check)
        bound = self._bind(c, inputs)
        if policy not in POLICIES:
            raise InputError(
                [Diagnostic("RC408", f"unknown policy '{policy}'", None, f"policies: {', '.join(POLICIES)}")]
            )
        key = (check, policy, *bound.items())
        cached = self._dist_cache.get(key)
        if cached is None:
            cached = distribution(c, bound, self.limits, policy)
            if len(self._dist_cache) > 4096:
                self._dist_cache.clear()
            self._dist_cache[key] = cached
        return cached

    def __repr__(self) -> str:
        return f"<Ruleset {self.name!r}: {', '.join(self.checks)}>"


def load(path_or_text: str | Path, *, limits: Limits = DEFAULT_LIMITS, name: str | None = None) -> Ruleset:
    """Load a ruleset from a path, from YAML text, or by the name of a shipped ruleset."""
    if isinstance(path_or_text, str) and path_or_text in shipped_rulesets():
        path_or_text = shipped_rulesets()[path_or_text]
        name = name or _display(path_or_text)
    elif isinstance(path_or_text, str) and _looks_like_a_name(path_or_text):
        known = list(shipped_rulesets())
        raise LoadError(
            [
                Diagnostic(
                    "RC001",
                    f"no ruleset '{path_or_text}': not a shipped ruleset nor a file",
                    None,
                    did_you_mean(path_or_text, known) or f"shipped rulesets: {', '.join(known)}",
                )
            ]
        )
    source = read_source(path_or_text, name)
    return load_source(source, limits=limits)


def load_source(source: SourceFile, *, limits: Limits = DEFAULT_LIMITS) -> Ruleset:
    """Run every stage on one source file."""
    doc = load_yaml(source)
    check_version(doc)
    validate(doc)
    return Ruleset(compile_document(doc), doc, limits)


def _looks_like_a_name(text: str) -> bool:
    """A bare word that is not a file: meant as a shipped ruleset's name."""
    return text.isidentifier() and not Path(text).exists()


def _display(path: Path) -> str:
    """A path as short as it can be shown: relative to the working folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
