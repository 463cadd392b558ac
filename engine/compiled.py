"""Python compiled from the engine's generated source, kept between processes as Python keeps a
module's bytecode.

The engine writes Python for every record's methods (`frozen`) and for every expression of a
ruleset (`compiler.codegen`), and compiling that source was about a quarter of what a fresh
`rulecraft roll` does beyond the interpreter's own start (some 130 small compilations). A
`Kept` holds code objects by their exact source text: what it hands back for a text is what
`compile` made of that very text, with the same file name, in this process or in an earlier
one, so a stale entry is never used (a record whose fields changed has another text) and
nothing needs to be told to invalidate it.

Each `Kept` is one file in the private cache folder (`syntax.cachedir`): `code-<name>-<tag>`,
`tag` the interpreter's (`cache_tag`, as in `__pycache__`), behind a header with the
interpreter's bytecode magic number and a BLAKE2b digest of the payload, which is `marshal` of
(text, code) pairs. Unlike the documents of `syntax.cached`, these entries are code, run when a
record or a ruleset is made: they are read only from that folder, which only this user can write
(like lark's pickle there), never from anywhere else. A file that is missing, torn, foreign,
from another interpreter or not of that shape is ignored (and written again), never an error.
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import CodeType

from .syntax import cachedir

MAGIC = b"rulecraft-code\n" + importlib.util.MAGIC_NUMBER
MAX_ENTRIES = 4096
"""Texts a file keeps at most: past it, a save keeps only those this process used."""
MAX_FILE_BYTES = 32 * 1024 * 1024
MAX_FILES = 128
"""`code-` files the folder keeps at most (one per ruleset's text, and the records'); the oldest
written go first."""


class Kept:
    """The code of generated sources by their text, read from the file `name` when first asked
    and written back (`save`) when this process compiled a text it did not hold. Thread-safe."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._codes: dict[tuple[str, str], CodeType] | None = None
        self._used: set[tuple[str, str]] = set()
        self._new = False
        self._lock = threading.Lock()

    def compile(self, text: str, filename: str) -> CodeType:
        """`compile(text, filename, "exec")` (no `__future__` flags inherited), once per text."""
        key = (text, filename)
        with self._lock:
            if self._codes is None:
                self._codes = _read(self.name)
            code = self._codes.get(key)
            self._used.add(key)
        if code is None:
            code = compile(text, filename, "exec", dont_inherit=True)
            with self._lock:
                self._codes[key] = code
                self._new = True
        return code

    def save(self) -> None:
        """Write the file when something new was compiled; nothing when caching is off or the
        disk refuses (a cache that is not kept is not an error)."""
        with self._lock:
            if not self._new or self._codes is None:
                return
            codes = self._codes
            if len(codes) > MAX_ENTRIES:  # texts of earlier versions pile up: keep today's
                codes = {key: code for key, code in codes.items() if key in self._used}
            pairs = tuple((text, filename, code) for (text, filename), code in codes.items())
            self._new = False
        folder = cachedir.folder()
        if folder is None:
            return
        payload = marshal.dumps(pairs, 4)
        if len(payload) <= MAX_FILE_BYTES:
            if cachedir.write_atomically(
                _path(folder, self.name), MAGIC + cachedir.digest(payload) + payload
            ):
                cachedir.trim(folder, "code-", MAX_FILES)


_KEEPING: ContextVar[Kept | None] = ContextVar("rulecraft_keeping", default=None)


@contextmanager
def keeping(name: str | None) -> Iterator[None]:
    """Code compiled by `compile_kept` inside the block (in this thread or task) comes from and
    goes to the file `name`, which is saved when the block ends without an error (a ruleset that
    does not compile keeps nothing); None: nothing is kept."""
    kept = Kept(name) if name is not None else None
    token = _KEEPING.set(kept)
    try:
        yield
    finally:
        _KEEPING.reset(token)
    if kept is not None:
        kept.save()


def compile_kept(text: str, filename: str) -> CodeType:
    """`compile(text, filename, "exec")`, from and into the file of the `keeping` block around
    the call, if any."""
    kept = _KEEPING.get()
    if kept is None:
        return compile(text, filename, "exec", dont_inherit=True)
    return kept.compile(text, filename)


def _path(folder: str, name: str) -> str:
    return os.path.join(folder, f"code-{name}-{sys.implementation.cache_tag}.marshal")


def _read(name: str) -> dict[tuple[str, str], CodeType]:
    """What the file `name` holds, or nothing when it is not to be trusted or not whole."""
    folder = cachedir.folder(make=False)
    if folder is None:
        return {}
    blob = cachedir.read_entry(_path(folder, name), MAX_FILE_BYTES)
    if blob is None:  # not there, unreadable, or no regular file (a pipe would be waited on)
        return {}
    head = len(MAGIC)
    payload = blob[head + 32 :]
    if (
        len(blob) > MAX_FILE_BYTES
        or blob[:head] != MAGIC
        or cachedir.digest(payload) != blob[head : head + 32]
    ):
        return {}
    try:
        pairs = marshal.loads(payload)
        found = {(text, filename): code for text, filename, code in pairs}
    except Exception:  # noqa: BLE001 - any failure to read the file means: nothing kept
        return {}
    for (text, filename), code in found.items():
        if type(text) is not str or type(filename) is not str or type(code) is not CodeType:
            return {}
    return found
