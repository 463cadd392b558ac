"""The private folder where rulecraft keeps what a later process may reuse: lark's analysis of
the expression grammar and loaded, validated documents (`syntax.cached`).

Both are read back by the engine itself, so the folder must be one that only this user can
write: `$XDG_CACHE_HOME/rulecraft` (else `~/.cache/rulecraft`), made 0700, owned by this user,
not a symbolic link, writable by no group nor other. Anywhere else — or with
`RULECRAFT_NO_CACHE` set to anything but `0` or nothing — there is no folder, and every caller
does its work afresh. Files are written whole or not at all (a temporary file renamed into
place), so several processes may share the folder at once."""

from __future__ import annotations

import importlib.util
import os
import stat
import tempfile
from pathlib import Path

try:  # CPython's own BLAKE2: `hashlib` would load OpenSSL, a tenth of a cached start-up
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - another Python
    from hashlib import blake2b


NO_CACHE = "RULECRAFT_NO_CACHE"


def digest(*parts: bytes) -> bytes:
    """A 32-byte BLAKE2b digest of `parts`, each length-prefixed so that no two lists of parts
    run together into the same bytes."""
    h = blake2b(digest_size=32)
    for part in parts:
        h.update(b"%d:" % len(part))
        h.update(part)
    return h.digest()


def read_regular(path: str | Path, max_bytes: int) -> tuple[bytes, int] | None:
    """At most `max_bytes` + 1 bytes of the regular file at `path`, and its size; None for
    anything else (a pipe would wait for a writer, a device such as /dev/zero never ends), which
    is never waited on: looked at before it is opened, opened without waiting, and looked at
    again once open (a file swapped for a pipe in between). `OSError` where it cannot be read,
    `ValueError` for a path holding a NUL."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        return None
    flags = (
        os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    )
    fd = os.open(path, flags)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read(max_bytes + 1), status.st_size
    finally:
        os.close(fd)


def read_entry(path: str, most: int) -> bytes | None:
    """At most `most` + 1 bytes of the cache entry at `path`; None when it is not there, cannot
    be read, or is no regular file (`read_regular`: never waited on; a pipe put in an
    entry's place hung every load for good, whatever its deadline: hunt 13k)."""
    try:
        found = read_regular(path, most)
    except (OSError, ValueError):
        return None
    return None if found is None else found[0]


def disabled() -> bool:
    """Whether the user turned the on-disk caches off (`RULECRAFT_NO_CACHE=1`)."""
    return os.environ.get(NO_CACHE, "") not in ("", "0")


def folder(make: bool = True) -> str | None:
    """The private cache folder, made if need be (`make`; else None when it is not there yet);
    None when caching is off or no folder that only this user can write is to be had."""
    if disabled():
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = os.path.join(base, "rulecraft")
    try:
        if make:
            os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.lstat(path)
        private = st.st_uid == os.getuid() and not st.st_mode & 0o022 and os.access(path, os.W_OK)
    except OSError:
        return None
    return path if private else None  # another user could write there: never read from it


def write_atomically(path: str, data: bytes) -> bool:
    """Write `data` to `path` whole: into a private temporary file beside it, then renamed over
    it, so a reader sees the old file or the new one, never half of one. False when it could
    not be written (a full disk, a folder gone): a cache that is not kept is not an error."""
    try:
        fd, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
        return True
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        return False


RACY_NS = 2_000_000_000
"""The coarsest tick of a file system's timestamps commonly met (FAT's two seconds; ext3's and
many network file systems' one): a change within one tick of a file's last leaves them as they
were (`settled`)."""


def stamp(st: os.stat_result) -> tuple[int, ...]:
    """What a file's status tells of its content that no one sets by hand, the one rule by which
    rulecraft trusts what it read from a file as unchanged: its device and inode (a file replaced,
    as `sed -i` and many editors save), its size, its modification time, and its change time.
    The modification time alone is not enough: `touch -r`, `cp -p`, `rsync -t` and tar set it back,
    and a served file edited so was served as it was until the server restarted (found by a hunt);
    the change time moves with every write and no tool sets it. Where timestamps are coarse,
    see `settled`."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def settled(st: os.stat_result, read_ns: int) -> bool:
    """Whether a file of status `st`, read at `read_ns` (`time.time_ns()`), was last changed at
    least a tick (`RACY_NS`) before it was read, so that any change since has moved its `stamp`.
    One changed within a tick of its reading may change again without moving it: its content is
    compared instead (git's "racily clean" files)."""
    return st.st_ctime_ns + RACY_NS <= read_ns


def library_identity(name: str) -> bytes | None:
    """Which copy of an installed library this is, told without importing it: its package file's
    path and `stamp`, which an upgrade or reinstall changes. None when the library is not to be
    found."""
    try:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            return None
        st = os.stat(spec.origin)
    except (ImportError, ValueError, OSError):
        return None
    return f"{name} {spec.origin} {stamp(st)}".encode()


def trim(folder: str, prefix: str, most: int) -> None:
    """Remove the oldest written files whose names start with `prefix` beyond the `most` newest
    (another process may remove them first)."""
    try:
        entries = [e for e in os.scandir(folder) if e.name.startswith(prefix)]
        if len(entries) <= most:
            return
        entries.sort(key=lambda e: e.stat().st_mtime_ns)
        for entry in entries[: len(entries) - most]:
            os.unlink(entry.path)
    except OSError:
        pass
