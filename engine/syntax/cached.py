"""Documents kept on disk between processes: a ruleset's plain data and the position of every
value, as loaded and validated, so that a later process reading the same text skips the YAML
parser and the schema check (two thirds of a fresh command's time) and imports neither.

An entry is found by a BLAKE2b key of everything that could change what the text loads to:
the text itself, the YAML limits it was read under, this module's format, the loader's and the
schema check's own source, the schema, and the identity of the installed ruamel.yaml and
jsonschema. Only a document that passed the schema check is ever written, so a bad ruleset is
always read afresh and reported exactly as before.

An entry is data, never code: `marshal` of plain values (no pickle), behind a header that
repeats the key and the payload's BLAKE2b digest. It is read only from the private folder of
`cachedir` and used only when the header, the key, the digest and the shape all match; a
corrupt, truncated, foreign or stale file is ignored and written again, never an error and
never a wrong result.
"""

from __future__ import annotations

import marshal
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from . import cachedir
from .document import Document, PathKey, Place
from .positions import SourceFile
from .resources import schema_path

FORMAT = 1
MAGIC = b"rulecraft-document\n"
MAX_ENTRIES = 128
"""Documents kept at most; the oldest written go first."""
MAX_ENTRY_BYTES = 64 * 1024 * 1024

_HERE = Path(__file__).resolve().parent
_SOURCES = ("breaks.py", "cached.py", "document.py", "expansion.py", "schema.py", "yaml_errors.py")
_LIBRARIES = ("ruamel.yaml", "jsonschema")


@lru_cache(maxsize=1)
def fingerprint() -> bytes | None:
    """What this engine brings to loading a document, hashed: when any of it changes (an upgrade,
    an edited schema), no old entry matches. None when it cannot be told (no source files to
    read), and then nothing is cached."""
    parts = [b"format %d" % FORMAT]
    try:
        parts += [(_HERE / name).read_bytes() for name in _SOURCES]
        parts.append(schema_path().read_bytes())
    except OSError:
        return None
    for library in _LIBRARIES:
        identity = cachedir.library_identity(library)
        if identity is None:
            return None
        parts.append(identity)
    return cachedir.digest(*parts)


def key(
    source: SourceFile, max_bytes: int, max_depth: int, max_nodes: int, also: bytes | None = b""
) -> bytes | None:
    """The entry's key for `source` read under these YAML limits (a document loaded under
    looser limits is never handed to a caller with tighter ones) and `also`, the fingerprint of
    whatever the caller keeps beside the document; None when nothing is cached."""
    engine = fingerprint()
    if engine is None or also is None:
        return None
    limits = b"%d %d %d" % (max_bytes, max_depth, max_nodes)
    return cachedir.digest(engine, also, limits, source.text.encode("utf-8", "surrogatepass"))


def _path(folder: str, k: bytes) -> str:
    return os.path.join(folder, f"document-{k.hex()[:40]}.marshal")


def read(k: bytes | None, source: SourceFile) -> tuple[Document, Any] | None:
    """The document kept under `k`, placed in `source`, and what was kept beside it; None when
    there is none that matches."""
    folder = cachedir.folder() if k is not None else None
    if folder is None or k is None:
        return None
    blob = cachedir.read_entry(_path(folder, k), MAX_ENTRY_BYTES)
    if blob is None:
        return None
    head = len(MAGIC)
    if len(blob) > MAX_ENTRY_BYTES or blob[:head] != MAGIC or blob[head : head + 32] != k:
        return None
    payload = blob[head + 64 :]
    if cachedir.digest(payload) != blob[head + 32 : head + 64]:
        return None
    try:
        data, rows, beside = marshal.loads(payload)
        places: dict[PathKey, Place] = {}
        for path, at_key, at_value in rows:
            if not isinstance(path, tuple):
                return None
            places[path] = Place(_pair(at_key) if at_key is not None else None, _pair(at_value))
    except Exception:  # noqa: BLE001 - any failure to read an entry means: no entry
        return None
    return Document(source, data, places), beside


def _pair(value: Any) -> tuple[int, int]:
    line, col = value
    if type(line) is not int or type(col) is not int:
        raise ValueError("not a position")
    return line, col


def write(k: bytes | None, doc: Document, beside: Any = None) -> None:
    """Keep `doc` (loaded and validated) under `k`, with `beside` (plain data of the caller's).
    Nothing happens when caching is off, when the document holds a value marshal cannot write,
    or when the disk refuses."""
    folder = cachedir.folder() if k is not None and not doc.parts else None
    if folder is None or k is None:
        return
    rows = tuple((path, place.key, place.value) for path, place in doc.places.items())
    try:
        payload = marshal.dumps((doc.data, rows, beside), 4)
    except ValueError:  # a value that is not plain data (a read-only `FrozenDict`): not kept
        return
    if len(payload) > MAX_ENTRY_BYTES:
        return
    if cachedir.write_atomically(_path(folder, k), MAGIC + k + cachedir.digest(payload) + payload):
        cachedir.trim(folder, "document-", MAX_ENTRIES)
