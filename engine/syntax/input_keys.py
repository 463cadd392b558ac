"""Which keys an input declaration takes, by its type (`docs/language.md`, Inputs).

The schema lets every input key through on every input; the compiler refuses, at the key, one
that the input's type does not take, where it would mean nothing (RC321 for a list's keys, RC310
for the others), and the schema's hint for an unknown key does not offer it. Read on every load,
so kept apart from `schema.py` and its jsonschema: a roll from the cache imports neither.
"""

from __future__ import annotations

from typing import Any

LIST_INPUT_KEYS = ("of", "min_length", "max_length")
"""An input's keys that only a list input takes."""

TYPED_INPUT_KEYS: dict[str, tuple[str, ...]] = {
    **{key: ("list",) for key in LIST_INPUT_KEYS},
    "choices": ("choice",),
    "min": ("int", "number", "list"),
    "max": ("int", "number", "list"),
}
"""An input's keys that only inputs of some types take, and those types."""


def input_takes(kind: Any, key: str) -> bool:
    """Whether an input of type `kind` takes the key `key`."""
    return key not in TYPED_INPUT_KEYS or kind in TYPED_INPUT_KEYS[key]
