"""The tests' real PostgreSQL: one server per test session, a fresh database per test.

Used by the `postgres` fixtures (tests/conftest.py). The server is Debian's PostgreSQL 15
(`apt install postgresql`; the README's test command installs it when run as root), made
with `initdb` in a temporary folder (owned by the `postgres` user when run as root), on a
free loopback port with its socket in that folder, trust authentication for the user
`serpent`, kept by `tests/postgres/keeper.py`: a process that stops the server and removes the
folder when the test session ends, however it ends (even `kill -9` of pytest closes the pipe
it watches). Each test gets a new database cloned from a template that has `pg_trgm`.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import psycopg

KEEPER = Path(__file__).resolve().parent / "keeper.py"
TEMPLATE = "serpent_test_template"


class PostgresUnavailable(RuntimeError):
    pass


@dataclass
class PostgresServer:
    """A running server (`start`), stopped by `stop` or by the end of the test process."""

    port: int
    folder: Path
    bindir: Path
    _keeper: subprocess.Popen[bytes]
    _names: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def start(cls, *, durable: bool = False) -> PostgresServer:
        """`durable`: fsync and full-page writes on, as on a real server (the benchmarks);
        the tests' server skips them."""
        folder = Path(tempfile.mkdtemp(prefix="serpent-pg-"))
        keeper = subprocess.Popen([sys.executable, str(KEEPER), str(folder),
                                   *(["--durable"] if durable else [])],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert keeper.stdout is not None
        line = keeper.stdout.readline().decode().strip()
        if not line.startswith("READY "):
            _close(keeper.stdin)
            keeper.wait(60)
            raise PostgresUnavailable(line.removeprefix("FAILED ") or
                                      "the test PostgreSQL did not start")
        _ready, port, bindir = line.split(" ", 2)
        server = cls(int(port), folder, Path(bindir), keeper)
        with server.admin() as conn:
            conn.execute(f"CREATE DATABASE {TEMPLATE}")
        with psycopg.connect(server.uri(TEMPLATE), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        return server

    def uri(self, database: str = "postgres", *, user: str = "serpent") -> str:
        """A URI as a person writes it (no password: trust on loopback here)."""
        return f"postgresql://{user}@127.0.0.1:{self.port}/{database}"

    def admin(self) -> psycopg.Connection[tuple[object, ...]]:
        return psycopg.connect(self.uri(), autocommit=True)

    def new_database(self, prefix: str = "lib") -> str:
        """A new, empty database (with pg_trgm); returns its URI."""
        with self._lock:
            name = f"{prefix}_{os.getpid()}_{next(self._names)}"
        with self.admin() as conn:
            conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
        return self.uri(name)

    def drop_database(self, uri: str) -> None:
        name = uri.rsplit("/", 1)[1]
        with self.admin() as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def running(self) -> bool:
        return self._keeper.poll() is None

    def outage(self) -> None:
        """Stop the server (fast shutdown: every connection is cut), keeping its data."""
        self._say("stop", "STOPPED")

    def back(self) -> None:
        """Start the server again after `outage`, on the same port."""
        self._say("start", "READY")

    def _say(self, command: str, answer: str) -> None:
        assert self._keeper.stdin is not None and self._keeper.stdout is not None
        self._keeper.stdin.write(f"{command}\n".encode())
        self._keeper.stdin.flush()
        line = self._keeper.stdout.readline().decode().strip()
        assert line.startswith(answer), line

    def stop(self) -> None:
        _close(self._keeper.stdout)
        _close(self._keeper.stdin)
        try:
            self._keeper.wait(60)
        except subprocess.TimeoutExpired:
            self._keeper.kill()
            self._keeper.wait(10)


def _close(stream: IO[bytes] | None) -> None:
    if stream is not None:
        with contextlib.suppress(OSError):
            stream.close()
