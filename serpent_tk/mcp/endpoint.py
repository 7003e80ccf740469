"""Where this user's running Serpent listens, and how another process proves it talks to it.

Thread-safe (pure functions over one small file). A running server publishes
`<data dir>/mcp-endpoint.json` (url, port, pid and a per-run secret; owner-only, 0600) after
binding its socket and before listening on it, and removes it when it stops. The bridge
trusts nothing else: it reads the secret from that file and sends its token only over a
connection whose peer answered the identify challenge (`proof`) with it. `current_port()`
(what `mcp-config` writes into configs) falls back to the port in the settings, which is the
one pasted configs rely on.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path

from library.disk import statejson
from library.disk.atomicfile import atomic_write_text
from serpent_tk.paths import AppDirs, app_dirs
from serpent_tk.settings import SettingsStore

LOOPBACK = "127.0.0.1"  # the only address Serpent listens on
ENDPOINT_FILE_NAME = "mcp-endpoint.json"
IDENTIFY_PATH = "/serpent/identify"  # unauthenticated: answers a nonce with a proof
PROBE_TIMEOUT_S = 0.3
OWNER_ONLY = 0o600
NONCE_BYTES = 32
MAX_ENDPOINT_BYTES = 64 * 1024  # the file holds a few short fields
_PROOF_LABEL = b"serpent-identify-v1"


@dataclass(frozen=True)
class Endpoint:
    """What one run of Serpent's MCP server publishes. `secret` never leaves this user."""

    port: int
    pid: int
    secret: str

    @property
    def url(self) -> str:
        return mcp_url(self.port)


def endpoint_file(dirs: AppDirs | None = None) -> Path:
    return (dirs or app_dirs()).data / ENDPOINT_FILE_NAME


def mcp_url(port: int) -> str:
    return f"http://{LOOPBACK}:{port}/mcp"


def new_secret() -> str:
    return secrets.token_hex(32)


def new_nonce() -> str:
    return secrets.token_hex(NONCE_BYTES)


def valid_nonce(nonce: object) -> bool:
    return (isinstance(nonce, str) and len(nonce) == 2 * NONCE_BYTES
            and all(c in "0123456789abcdef" for c in nonce))


def proof(secret: str, nonce: str, port: int) -> str:
    """What only the Serpent that knows `secret` can answer to `nonce` on `port`.

    The port is part of it, so a program on another port cannot pass off a real Serpent's
    answer as its own."""
    message = b"\n".join([_PROOF_LABEL, str(port).encode("ascii"), nonce.encode("ascii")])
    return hmac.new(secret.encode("ascii"), message, hashlib.sha256).hexdigest()


def proof_matches(secret: str, nonce: str, port: int, answer: object) -> bool:
    return isinstance(answer, str) and hmac.compare_digest(
        proof(secret, nonce, port).encode("ascii"), answer.encode("utf-8", "replace"))


def publish(path: Path, endpoint: Endpoint) -> None:
    """Write the endpoint file, owner-only, atomically."""
    atomic_write_text(path, json.dumps({"url": endpoint.url, "port": endpoint.port,
                                        "pid": endpoint.pid, "secret": endpoint.secret}) + "\n",
                      mode=OWNER_ONLY)


def unpublish(path: Path, endpoint: Endpoint) -> None:
    """Remove the endpoint file if it still describes `endpoint` (not a newer run's)."""
    if read_endpoint(path) == endpoint:
        path.unlink(missing_ok=True)


def read_endpoint(path: Path | None = None) -> Endpoint | None:
    """The published endpoint, or None when there is none this user can trust.

    On POSIX a file owned by another user, or readable by others, is ignored: its secret
    proves nothing."""
    path = path or endpoint_file()
    try:
        with open(path, encoding="utf-8") as handle:
            if os.name == "posix":
                info = os.fstat(handle.fileno())
                if info.st_uid != os.geteuid() or info.st_mode & 0o077:
                    return None
            data = statejson.loads(handle.read(MAX_ENDPOINT_BYTES))
        port, pid, secret = int(data["port"]), int(data["pid"]), data["secret"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not (0 < port < 65536) or not isinstance(secret, str) or len(secret) < 32 \
            or not secret.isascii():
        return None
    return Endpoint(port=port, pid=pid, secret=secret)


def configured_port(dirs: AppDirs | None = None) -> int:
    dirs = dirs or app_dirs()
    return SettingsStore(dirs.settings_file).load().settings.mcp.port


def accepting(port: int, timeout: float = PROBE_TIMEOUT_S) -> bool:
    """Does something accept TCP connections on 127.0.0.1:`port` right now?"""
    try:
        with socket.create_connection((LOOPBACK, port), timeout=timeout):
            return True
    except OSError:
        return False


def running_port(dirs: AppDirs | None = None) -> int | None:
    """The port the endpoint file names, while something accepts connections there."""
    endpoint = read_endpoint(endpoint_file(dirs))
    return endpoint.port if endpoint is not None and accepting(endpoint.port) else None


def current_port(dirs: AppDirs | None = None) -> int:
    """For configs: the running server's port, else the configured one."""
    return running_port(dirs) or configured_port(dirs)
