"""MCP client configuration: the exact snippet per client, where each client keeps its config,
and installing Serpent into that file (merge, backup, atomic write).

Thread-safe (pure functions; `install` touches only the client's config file and its backup).
Used by `serpent-tk mcp-config`, and by the window's "Copy MCP config" and "Install into
<client>". Shapes follow each client's own documentation: always `127.0.0.1` (never
`localhost`, which Node may resolve to ::1), a bearer header for HTTP clients, and Claude
Desktop (stdio only) through Serpent's own bridge, so nobody needs Node.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from library.disk.atomicfile import atomic_write_text
from serpent_tk.paths import USER_DATA_ENV

SERVER_NAME = "serpent"
TOKEN_ENV = "SERPENT_MCP_TOKEN"
BRIDGE_EXECUTABLE = "serpent-tk-bridge"
MSIX_CLAUDE_PACKAGE = "Claude_pzs8sxrjxfjjc"

Format = Literal["json", "toml"]


@dataclass(frozen=True)
class ClientInfo:
    id: str  # the `--client` value
    label: str  # what people call it
    paste_hint: str  # where the snippet (it holds a token) goes, in words: a user-level file
    format: Format
    top_key: str  # the table that holds the servers
    project_file: str | None = None  # a project's config, for a token-free entry (None: no)


NOT_A_PROJECT_FILE = "Not into a project's config file: it is shared, and this holds your token."

CLIENTS: dict[str, ClientInfo] = {c.id: c for c in [
    ClientInfo("claude-desktop", "Claude Desktop",
               "Claude Desktop → Settings → Developer → Edit Config; merge into "
               "claude_desktop_config.json, then quit and reopen Claude Desktop.",
               "json", "mcpServers"),
    ClientInfo("claude-code", "Claude Code",
               "~/.claude.json, your user scope (every project): “Install” (or `serpent-tk "
               "mcp-config --client claude-code --install`) merges it there; then run /mcp in "
               "Claude Code. Never into a project's .mcp.json: it is shared, and this holds "
               "your token (`serpent-tk mcp-config --client claude-code --project` prints a "
               "token-free entry for it).",
               "json", "mcpServers", project_file=".mcp.json"),
    ClientInfo("cursor", "Cursor",
               "~/.cursor/mcp.json; then refresh MCP servers in Cursor's settings. "
               + NOT_A_PROJECT_FILE, "json", "mcpServers", project_file=".cursor/mcp.json"),
    ClientInfo("vscode", "VS Code",
               "Command palette → MCP: Open User Configuration (mcp.json). "
               + NOT_A_PROJECT_FILE, "json", "servers"),
    ClientInfo("windsurf", "Windsurf",
               "~/.codeium/windsurf/mcp_config.json; then press refresh in Windsurf's MCP "
               "panel.", "json", "mcpServers"),
    ClientInfo("codex", "Codex CLI",
               f"~/.codex/config.toml; then restart codex. {NOT_A_PROJECT_FILE}",
               "toml", "mcp_servers", project_file=".codex/config.toml"),
    ClientInfo("gemini", "Gemini CLI",
               f"~/.gemini/settings.json; then restart gemini. {NOT_A_PROJECT_FILE}",
               "json", "mcpServers"),
    ClientInfo("cline", "Cline",
               "Cline → MCP Servers → Configure → cline_mcp_settings.json.",
               "json", "mcpServers"),
    ClientInfo("zed", "Zed",
               "Zed settings.json (zed: open settings); merge into context_servers. "
               + NOT_A_PROJECT_FILE, "json", "context_servers"),
]}


class ConfigError(ValueError):
    """A client config that cannot be changed safely (unknown client, unreadable file)."""


def client(client_id: str) -> ClientInfo:
    try:
        return CLIENTS[client_id]
    except KeyError:
        raise ConfigError(f"Unknown client {client_id!r}; choose one of: "
                          f"{', '.join(CLIENTS)}.") from None


def server_url(port: int) -> str:
    return f"http://127.0.0.1:{port}/mcp"


# -- the bridge (Claude Desktop) ------------------------------------------------------------

@dataclass(frozen=True)
class BridgeLaunch:
    command: str
    args: list[str]


def bridge_launch(*, frozen: bool | None = None, executable: str | None = None,
                  platform: str | None = None) -> BridgeLaunch:
    """How a stdio client starts the bridge from wherever this Serpent is installed.

    Packaged build: the `serpent-tk-bridge` console executable next to the app. Source
    checkout or pip install: this very Python (the venv's) with `-m serpent_tk mcp-bridge`.
    """
    frozen = bool(getattr(sys, "frozen", False)) if frozen is None else frozen
    executable = executable or sys.executable
    platform = platform or sys.platform
    if frozen:
        name = BRIDGE_EXECUTABLE + (".exe" if platform.startswith("win") else "")
        folder = _path_for(platform, executable).parent
        return BridgeLaunch(str(folder / name) if platform.startswith("win")
                            else f"{folder.as_posix()}/{name}", [])
    return BridgeLaunch(executable, ["-m", "serpent_tk", "mcp-bridge"])


def _path_for(platform: str, text: str) -> Any:
    from pathlib import PurePosixPath, PureWindowsPath
    return PureWindowsPath(text) if platform.startswith("win") else PurePosixPath(text)


# -- entries and snippets -------------------------------------------------------------------

def server_entry(client_id: str, *, port: int, token: str, bridge: BridgeLaunch | None = None,
                 env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The value stored under `<top key>.serpent` in the client's config."""
    info = client(client_id)
    url = server_url(port)
    headers = {"Authorization": f"Bearer {token}"}
    if info.id == "claude-desktop":
        launch = bridge or bridge_launch()
        environment = {TOKEN_ENV: token}
        data_path = (env if env is not None else os.environ).get(USER_DATA_ENV)
        if data_path:
            environment[USER_DATA_ENV] = data_path  # the bridge must find the same Serpent
        return {"command": launch.command, "args": list(launch.args), "env": environment}
    if info.id == "claude-code":
        return {"type": "http", "url": url, "headers": headers}
    if info.id == "vscode":
        return {"type": "http", "url": url, "headers": headers}
    if info.id == "windsurf":
        return {"serverUrl": url, "headers": headers}
    if info.id == "gemini":
        return {"httpUrl": url, "headers": headers}
    if info.id == "cline":
        return {"type": "streamableHttp", "url": url, "headers": headers, "disabled": False}
    if info.id == "codex":
        return {"url": url, "http_headers": headers}
    return {"url": url, "headers": headers}  # cursor, zed


def snippet(client_id: str, *, port: int, token: str, bridge: BridgeLaunch | None = None,
            env: Mapping[str, str] | None = None) -> str:
    """Exactly what to paste into the client's config file."""
    info = client(client_id)
    entry = server_entry(client_id, port=port, token=token, bridge=bridge, env=env)
    if info.format == "toml":
        return toml_table(f"{info.top_key}.{SERVER_NAME}", entry)
    return json.dumps({info.top_key: {SERVER_NAME: entry}}, indent=2, ensure_ascii=False) + "\n"


def project_entry(client_id: str, *, port: int) -> dict[str, Any]:
    """A token-free entry for the client's project file: the client reads the token from
    `SERPENT_MCP_TOKEN` in its environment. ConfigError for a client without such a form."""
    info = client(client_id)
    url = server_url(port)
    if info.id == "claude-code":  # .mcp.json expands ${VAR}
        return {"type": "http", "url": url,
                "headers": {"Authorization": f"Bearer ${{{TOKEN_ENV}}}"}}
    if info.id == "cursor":  # Cursor's mcp.json expands ${env:VAR}
        return {"url": url, "headers": {"Authorization": f"Bearer ${{env:{TOKEN_ENV}}}"}}
    if info.id == "codex":
        return {"url": url, "bearer_token_env_var": TOKEN_ENV}
    with_project = ", ".join(c.id for c in CLIENTS.values() if c.project_file)
    raise ConfigError(f"{info.label} has no token-free project entry here; use its user-level "
                      f"config (without --project). Project entries: {with_project}.")


def project_snippet(client_id: str, *, port: int) -> str:
    """What to paste into the project's config file (`ClientInfo.project_file`): no token."""
    info = client(client_id)
    entry = project_entry(client_id, port=port)
    if info.format == "toml":
        return toml_table(f"{info.top_key}.{SERVER_NAME}", entry)
    return json.dumps({info.top_key: {SERVER_NAME: entry}}, indent=2, ensure_ascii=False) + "\n"


def toml_table(name: str, entry: Mapping[str, Any]) -> str:
    lines = [f"[{name}]"]
    for key, value in entry.items():
        lines.append(f"{key} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a valid TOML basic string
    if isinstance(value, Mapping):
        inner = ", ".join(f"{json.dumps(str(k))} = {_toml_value(v)}" for k, v in value.items())
        return "{ " + inner + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


# -- where each client keeps its config -------------------------------------------------------

def config_paths(client_id: str, *, home: Path | None = None,
                 env: Mapping[str, str] | None = None,
                 platform: str | None = None) -> list[Path]:
    """Every file the client may read its user-level config from, most likely first."""
    info = client(client_id)
    home = home or Path.home()
    env = env if env is not None else os.environ
    platform = platform or sys.platform
    windows, mac = platform.startswith("win"), platform == "darwin"
    appdata = Path(env.get("APPDATA") or home / "AppData" / "Roaming")
    local = Path(env.get("LOCALAPPDATA") or home / "AppData" / "Local")
    mac_support = home / "Library" / "Application Support"
    linux_config = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    user_config = appdata if windows else mac_support if mac else linux_config
    if info.id == "claude-desktop":
        name = "claude_desktop_config.json"
        if windows:
            return [local / "Packages" / MSIX_CLAUDE_PACKAGE / "LocalCache" / "Roaming" / "Claude"
                    / name, appdata / "Claude" / name]
        return [user_config / "Claude" / name]
    if info.id == "claude-code":
        return [home / ".claude.json"]
    if info.id == "cursor":
        return [home / ".cursor" / "mcp.json"]
    if info.id == "vscode":
        return [user_config / "Code" / "User" / "mcp.json"]
    if info.id == "windsurf":
        return [home / ".codeium" / "windsurf" / "mcp_config.json"]
    if info.id == "codex":
        return [Path(env.get("CODEX_HOME") or home / ".codex") / "config.toml"]
    if info.id == "gemini":
        return [home / ".gemini" / "settings.json"]
    if info.id == "cline":
        return [user_config / "Code" / "User" / "globalStorage" / "saoudrizwan.claude-dev"
                / "settings" / "cline_mcp_settings.json",
                home / ".cline" / "data" / "settings" / "cline_mcp_settings.json"]
    # zed
    return [appdata / "Zed" / "settings.json" if windows else home / ".config" / "zed"
            / "settings.json"]


def install_targets(client_id: str, **where: Any) -> list[Path]:
    """The files `install` writes: every candidate whose folder exists (the client is
    installed there), else the most likely one. Claude Desktop on Windows may need both the
    MSIX and the classic location."""
    candidates = config_paths(client_id, **where)
    existing = [path for path in candidates if path.parent.is_dir()]
    return existing or candidates[:1]


# -- merging into an existing file ------------------------------------------------------------

_JSONC_TOKENS = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMA = re.compile(r',(\s*[}\]])')


def parse_jsonc(text: str) -> Any:
    """JSON that may carry // and /* */ comments and trailing commas (VS Code, Zed)."""
    without_comments = _JSONC_TOKENS.sub(
        lambda m: m.group(0) if m.group(0).startswith('"') else "", text)
    cleaned = _strip_trailing_commas(without_comments)
    return json.loads(cleaned) if cleaned.strip() else {}


def _strip_trailing_commas(text: str) -> str:
    out, last = [], 0
    for match in re.finditer(r'"(?:\\.|[^"\\])*"', text):
        out.append(_TRAILING_COMMA.sub(r"\1", text[last:match.start()]))
        out.append(match.group(0))
        last = match.end()
    out.append(_TRAILING_COMMA.sub(r"\1", text[last:]))
    return "".join(out)


def merge_json(existing: str, top_key: str, entry: dict[str, Any]) -> str:
    """`existing` with `<top_key>.serpent` set to `entry`; every other key kept."""
    try:
        data = parse_jsonc(existing) if existing.strip() else {}
    except ValueError as error:
        raise ConfigError(f"The existing file is not valid JSON ({error}); it was not "
                          "changed.") from None
    if not isinstance(data, dict):
        raise ConfigError("The existing file does not hold a JSON object; it was not changed.")
    servers = data.get(top_key)
    if servers is None:
        servers = data[top_key] = {}
    if not isinstance(servers, dict):
        raise ConfigError(f"{top_key!r} in the existing file is not an object; it was not "
                          "changed.")
    servers[SERVER_NAME] = entry
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def merge_toml(existing: str, table: str, entry: dict[str, Any]) -> str:
    """`existing` with the `[table]` section replaced; everything else kept as written."""
    try:
        tomllib.loads(existing)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"The existing file is not valid TOML ({error}); it was not "
                          "changed.") from None
    kept: list[str] = []
    skipping = False
    header = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
    for line in existing.splitlines():
        match = header.match(line)
        if match:
            name = match.group(1).replace('"', "").replace("'", "").replace(" ", "")
            skipping = name == table or name.startswith(table + ".")
        if not skipping:
            kept.append(line)
    body = "\n".join(kept).rstrip()
    merged = (body + "\n\n" if body else "") + toml_table(table, entry)
    parsed = tomllib.loads(merged)
    node: Any = parsed
    for part in table.split("."):
        node = node.get(part, {}) if isinstance(node, dict) else {}
    if node != entry:
        raise ConfigError("The existing file defines the Serpent entry in a way that cannot be "
                          "replaced safely (inline table?); it was not changed.")
    return merged


@dataclass(frozen=True)
class Installed:
    path: Path
    backup: Path | None  # None when the file did not exist before
    comments_dropped: bool = False

    def sentence(self) -> str:
        text = f"Serpent was added to {self.path}"
        if self.backup is not None:
            text += f" (the previous file was kept as {self.backup.name})"
        if self.comments_dropped:
            text += "; comments in that file were not kept, the backup still has them"
        return text + "."


def install_into(path: Path, client_id: str, entry: dict[str, Any]) -> Installed:
    """Merge `entry` into the config file at `path`: backup first, then an atomic write."""
    info = client(client_id)
    try:
        existing = path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"Cannot read {path}: {error}") from None
    if info.format == "toml":
        merged = merge_toml(existing, f"{info.top_key}.{SERVER_NAME}", entry)
    else:
        merged = merge_json(existing, info.top_key, entry)
    backup = None
    if existing:
        backup = path.with_name(f"{path.name}.serpent-backup-{time.strftime('%Y%m%d-%H%M%S')}")
        shutil.copy2(path, backup)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    atomic_write_text(path, merged, mode=mode)
    dropped = info.format == "json" and bool(existing) and _has_comments(existing)
    return Installed(path=path, backup=backup, comments_dropped=dropped)


def install(client_id: str, *, port: int, token: str, bridge: BridgeLaunch | None = None,
            env: Mapping[str, str] | None = None, **where: Any) -> list[Installed]:
    """Add Serpent to the client's user-level config (every location it may read)."""
    entry = server_entry(client_id, port=port, token=token, bridge=bridge, env=env)
    targets = install_targets(client_id, env=env, **where)
    return [install_into(path, client_id, entry) for path in targets]


def _has_comments(text: str) -> bool:
    return any(not m.group(0).startswith('"') for m in _JSONC_TOKENS.finditer(text))
