"""One running Serpent per user data dir, and a way for a second start to wake the first.

Thread-safe. The first instance holds a lock on `instance.lock` (`library.disk.locks`: the
OS releases it when the process dies, so a crashed instance never blocks the next start) and
listens on a loopback socket whose port and a random secret are written to `instance.json`
with owner-only permissions. A second start fails to take the lock, reads `instance.json`
and asks the first to come to the front. Messages are one JSON line each way.
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import secrets
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from library.disk import statejson
from library.disk.atomicfile import atomic_write_text, read_state_file
from library.disk.locks import LockBusy, lock_now

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 3.0
MAX_MESSAGE_BYTES = 64 * 1024


class AlreadyRunning(Exception):
    """Another instance holds the lock. `activated` says whether it answered our request."""

    def __init__(self, message: str, activated: bool) -> None:
        super().__init__(message)
        self.activated = activated


@dataclass(frozen=True)
class InstanceInfo:
    pid: int
    port: int
    secret: str


Handler = Callable[[dict[str, Any]], None]


class SingleInstance:
    """Hold the instance lock and answer `activate` requests from later starts."""

    def __init__(self, lock_path: Path, info_path: Path, on_message: Handler) -> None:
        self._lock_path = lock_path
        self._info_path = info_path
        self._on_message = on_message
        self._lock: IO[str] | None = None
        self._server: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._secret = secrets.token_urlsafe(24)
        self._stopping = threading.Event()

    def acquire(self) -> None:
        """Take the lock or raise `AlreadyRunning` (after asking the other one to show itself)."""
        self._lock_path.parent.mkdir(parents=True, exist_ok=True)
        lock = open(self._lock_path, "a", encoding="utf-8")  # noqa: SIM115 - held while running
        try:
            lock_now(lock)
        except LockBusy:
            lock.close()
            activated = send_to_running(self._info_path, {"command": "activate"})
            if activated:
                raise AlreadyRunning("Serpent is already running; its window was brought "
                                     "to the front.", activated=True) from None
            raise AlreadyRunning(
                "Serpent is already running but did not answer. Close the other Serpent "
                f"window, or end its process, then start again (lock: {self._lock_path}).",
                activated=False) from None
        except BaseException:  # a file system that cannot lock: said as it is, nothing held
            lock.close()
            raise
        self._lock = lock
        self._listen()

    def _listen(self) -> None:
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        server.settimeout(0.5)
        self._server = server
        info = {"pid": os.getpid(), "port": server.getsockname()[1], "secret": self._secret}
        atomic_write_text(self._info_path, json.dumps(info), mode=0o600)
        self._thread = threading.Thread(target=self._serve, name="single-instance",
                                        daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        assert self._server is not None
        while not self._stopping.is_set():
            try:
                connection, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with connection:
                connection.settimeout(CONNECT_TIMEOUT_S)
                self._answer(connection)

    def _answer(self, connection: socket.socket) -> None:
        try:
            message = json.loads(_read_line(connection))
            given = str(message.get("secret", ""))
            if not hmac.compare_digest(given.encode(), self._secret.encode()):
                connection.sendall(b'{"ok": false}\n')
                return
            self._on_message(message)
            connection.sendall(b'{"ok": true}\n')
        except (OSError, ValueError, AttributeError) as error:
            log.warning("ignored a bad single-instance message: %s", type(error).__name__)
        except Exception:
            log.exception("single-instance handler failed")

    def release(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.close()
        if self._thread is not None:
            self._thread.join(2)
        if self._lock is not None:
            try:
                self._info_path.unlink(missing_ok=True)
            finally:
                self._lock.close()  # which lets go of the lock
                self._lock = None


def read_instance_info(info_path: Path) -> InstanceInfo | None:
    try:
        data = statejson.loads(read_state_file(info_path))
        return InstanceInfo(pid=int(data["pid"]), port=int(data["port"]),
                            secret=str(data["secret"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def send_to_running(info_path: Path, message: dict[str, Any]) -> bool:
    """Deliver `message` to the running instance; True when it acknowledged it."""
    info = read_instance_info(info_path)
    if info is None:
        return False
    try:
        with socket.create_connection(("127.0.0.1", info.port),
                                      timeout=CONNECT_TIMEOUT_S) as connection:
            payload = json.dumps({**message, "secret": info.secret}) + "\n"
            connection.sendall(payload.encode())
            answer = json.loads(_read_line(connection))
            return bool(answer.get("ok"))
    except (OSError, ValueError, AttributeError):
        return False


def _read_line(connection: socket.socket) -> str:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = connection.recv(4096)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if b"\n" in chunk or size > MAX_MESSAGE_BYTES:
            break
    return b"".join(chunks).split(b"\n", 1)[0].decode("utf-8")
