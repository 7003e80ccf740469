"""Where the running MCP server listens, for the bridge and `mcp-config` in other processes.

Thread-safe (pure functions over one small file). A running server writes
`<data dir>/mcp-endpoint.json` (url, port, pid) and removes it when it stops; a reader trusts
it only while something accepts connections on that port, otherwise it falls back to the
port in the settings. The port in the settings is the one pasted configs rely on.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

from serpent_tk.paths import AppDirs, app_dirs
from serpent_tk.settings import SettingsStore

LOOPBACK = "127.0.0.1"  # the only address Serpent listens on
ENDPOINT_FILE_NAME = "mcp-endpoint.json"
PROBE_TIMEOUT_S = 0.3


def endpoint_file(dirs: AppDirs | None = None) -> Path:
    return (dirs or app_dirs()).data / ENDPOINT_FILE_NAME


def mcp_url(port: int) -> str:
    return f"http://{LOOPBACK}:{port}/mcp"


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
    """The port of the MCP server running for this user data dir, if one runs."""
    try:
        data = json.loads(endpoint_file(dirs).read_text(encoding="utf-8"))
        port = int(data["port"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return port if 0 < port < 65536 and accepting(port) else None


def current_port(dirs: AppDirs | None = None) -> int:
    """The running server's port, else the configured one."""
    return running_port(dirs) or configured_port(dirs)
