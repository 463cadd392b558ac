"""A real PostgreSQL server for the tests: `$RULECRAFT_TEST_PG` when set, else a private,
throwaway cluster started here and stopped at the end of the session.

`$RULECRAFT_TEST_PG` is a URL of a server's maintenance database (e.g.
`postgresql://postgres:secret@127.0.0.1:5432/postgres`) whose role may create and drop
databases: each test gets a database of its own, dropped after it.

The private cluster: Debian's binaries (`/usr/lib/postgresql/*/bin`, or `pg_ctl` on the PATH, or
`$RULECRAFT_PG_BIN`), `initdb` into a temporary folder, listening on a unix socket in that folder
(trust: only its owner can reach it) and on 127.0.0.1 at a free port (password required, so that
a wrong password is refused for real). As root, PostgreSQL refuses to run, so the cluster is run
as the `postgres` user through `runuser`, in a folder that user owns. fsync is off: the cluster
is thrown away, and a killed client (what the tests kill) does not depend on it.

When no server can be had, `Cluster.start` raises `Unavailable` with the reason, which the
fixture turns into a visible skip (`pytest -rs`).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

ENV = "RULECRAFT_TEST_PG"
PASSWORD = "rulecraft-" + secrets.token_hex(8)


class Unavailable(Exception):
    """No PostgreSQL server for the tests: the message says why."""


def _bin_dir() -> Path:
    given = os.environ.get("RULECRAFT_PG_BIN")
    if given:
        return Path(given)
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[-3].split(".")[0])
    )
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("pg_ctl")
    if on_path:
        return Path(on_path).parent
    raise Unavailable(
        f"no PostgreSQL server binaries (install Debian's 'postgresql', or set {ENV} to a server's URL)"
    )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def with_database(url: str, name: str) -> str:
    """`url` pointing at database `name` instead."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + quote(name), parts.query, parts.fragment))


@dataclass
class Cluster:
    """A server the tests may create databases on: `admin` is its maintenance database's URL."""

    admin: str
    tcp: tuple[str, int] | None = None
    """(host, port) where the private cluster listens with a password (None for $RULECRAFT_TEST_PG)."""
    folder: Path | None = None
    run_as: list[str] = field(default_factory=list)
    bin: Path | None = None
    made: list[str] = field(default_factory=list)

    @classmethod
    def start(cls) -> Cluster:
        try:
            import psycopg  # noqa: F401
        except ImportError as e:
            raise Unavailable("psycopg 3 is not installed (the 'postgres' extra)") from e
        given = os.environ.get(ENV)
        if given:
            cluster = cls(given)
            try:
                cluster.execute("SELECT 1")
            except Exception as e:
                raise Unavailable(f"{ENV} is set but its server cannot be used: {e}") from e
            return cluster
        return cls._private()

    @classmethod
    def _private(cls) -> Cluster:
        bin_dir = _bin_dir()
        run_as: list[str] = []
        owner: pwd.struct_passwd | None = None
        if os.geteuid() == 0:
            runuser = shutil.which("runuser")
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError as e:
                raise Unavailable("running as root and there is no 'postgres' user to run the server") from e
            if runuser is None:
                raise Unavailable("running as root and there is no 'runuser' to run the server as 'postgres'")
            run_as = [runuser, "-u", "postgres", "--"]
        folder = Path(tempfile.mkdtemp(prefix="rulecraft-pg-"))
        if owner is not None:
            os.chown(folder, owner.pw_uid, owner.pw_gid)
        port = _free_port()
        cluster = cls(
            f"postgresql://postgres@/postgres?host={folder}&port={port}",
            ("127.0.0.1", port),
            folder,
            run_as,
            bin_dir,
        )
        try:
            cluster._run(
                "initdb",
                "-D",
                str(folder / "data"),
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
                "--no-instructions",
            )
            hba = "local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n"
            hba_path = folder / "data" / "pg_hba.conf"
            hba_path.write_text(hba, encoding="utf-8")
            if owner is not None:
                os.chown(hba_path, owner.pw_uid, owner.pw_gid)
            options = (
                f"-k {folder} -c listen_addresses=127.0.0.1 -p {port} -F"
                " -c shared_buffers=16MB -c max_connections=60"
            )
            cluster._run(
                "pg_ctl", "-D", str(folder / "data"), "-l", str(folder / "log"), "-w", "-t", "60",
                "-o", options, "start",
            )  # fmt: skip
            cluster.execute(f"ALTER ROLE postgres PASSWORD '{PASSWORD}'")
        except BaseException as e:
            log = folder / "log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            cluster.stop()
            if isinstance(e, Unavailable | subprocess.SubprocessError | OSError):
                raise Unavailable(f"could not start a private PostgreSQL: {e} {tail}".strip()) from e
            raise
        return cluster

    def _run(self, tool: str, *args: str) -> None:
        assert self.bin is not None
        done = subprocess.run(
            [*self.run_as, str(self.bin / tool), *args], capture_output=True, text=True, timeout=120
        )
        if done.returncode != 0:
            raise Unavailable(
                f"{tool} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}"
            )

    def stop(self) -> None:
        """Stop the private cluster and remove its folder (nothing for $RULECRAFT_TEST_PG)."""
        for name in list(self.made):
            with contextlib.suppress(Exception):
                self.drop(name)
        if self.folder is None:
            return
        if (self.folder / "data" / "postmaster.pid").exists():
            with contextlib.suppress(Exception):
                self._run("pg_ctl", "-D", str(self.folder / "data"), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)

    def execute(self, statement: str, url: str | None = None) -> list[tuple[object, ...]]:
        """One statement on the maintenance database (or `url`), autocommit; its rows."""
        import psycopg

        with psycopg.connect(url or self.admin, autocommit=True) as connection:
            cursor = connection.execute(statement)
            return cursor.fetchall() if cursor.description else []

    def database(self) -> str:
        """A new, empty database: its URL."""
        name = "rc_" + secrets.token_hex(6)
        self.execute(f'CREATE DATABASE "{name}"')
        self.made.append(name)
        return with_database(self.admin, name)

    def drop(self, name: str) -> None:
        self.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if name in self.made:
            self.made.remove(name)

    def tcp_url(self, database: str, password: str | None = PASSWORD) -> str:
        """The URL of `database` over TCP with a password (the private cluster only)."""
        assert self.tcp is not None
        host, port = self.tcp
        secret = f":{password}" if password is not None else ""
        return f"postgresql://postgres{secret}@{host}:{port}/{database}"


@contextlib.contextmanager
def cluster() -> Iterator[Cluster]:
    started = Cluster.start()
    try:
        yield started
    finally:
        started.stop()


def database_name(url: str) -> str:
    return urlsplit(url).path.lstrip("/")
