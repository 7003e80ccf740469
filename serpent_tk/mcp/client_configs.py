"""MCP client configuration: the exact snippet per client, where each client keeps its config,
and installing Serpent into that file or taking it out (only Serpent's entry changes: comments
and layout stay; backup, atomic write).

Thread-safe (pure functions; `install` touches only the client's config file and its backup).
Used by `serpent-tk mcp-config`, and by the window's "Copy MCP config" and "Install into
<client>". Shapes follow each client's own documentation: always `127.0.0.1` (never
`localhost`, which Node may resolve to ::1), a bearer header for HTTP clients, and Claude
Desktop (stdio only) through Serpent's own bridge, so nobody needs Node.
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import shutil
import sys
import time
import tomllib
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import tomlkit
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import InlineTable, Table
from tomlkit.toml_document import TOMLDocument

from library.disk.atomicfile import atomic_write_text
from serpent_tk.mcp import jsonc
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


# -- editing an existing file ------------------------------------------------------------------
# Only Serpent's own entry changes: JSONC through `jsonc` (the member's text alone is replaced,
# so comments, trailing commas and layout stay), TOML through tomlkit (a round-trip parser
# that keeps comments and layout). Each result is read back and must equal the file as it was
# with only Serpent's entry different; otherwise nothing is written.

def merge_json(existing: str, top_key: str, entry: dict[str, Any]) -> str:
    """`existing` with `<top_key>.serpent` set to `entry`; every other byte kept."""
    before = _read_json(existing)
    try:
        merged = jsonc.set_member(existing, [top_key, SERVER_NAME], entry)
    except jsonc.JsoncError:  # the document itself is an object (read above)
        raise ConfigError(f"{top_key!r} in the existing file is not an object; it was not "
                          "changed.") from None
    _check_only_serpent_changed(before, _read_json(merged), [top_key], entry)
    return merged


def remove_json(existing: str, top_key: str) -> str:
    """`existing` without `<top_key>.serpent`; every other byte kept."""
    before = _read_json(existing)
    removed = jsonc.remove_member(existing, [top_key, SERVER_NAME])
    _check_only_serpent_changed(before, _read_json(removed), [top_key], None)
    return removed


def merge_toml(existing: str, table: str, entry: dict[str, Any]) -> str:
    """`existing` with the `[table]` section replaced or added; everything else as written."""
    before = _read_toml(existing)
    *parents, name = table.split(".")
    try:
        document = tomlkit.parse(existing)
        servers: Any = document
        for part in parents:
            if part not in servers:
                servers[part] = tomlkit.table(is_super_table=True)
            servers = servers[part]
        if isinstance(servers, InlineTable):
            servers[name] = _toml_inline(entry)
        elif isinstance(servers, (Table, TOMLDocument)):
            section = tomlkit.table()
            for key, value in entry.items():
                section[key] = _toml_inline(value) if isinstance(value, Mapping) else value
            section.add(tomlkit.nl())
            servers[name] = section
        else:
            raise ConfigError(f"{'.'.join(parents)!r} in the existing file is not a table; it "
                              "was not changed.")
        merged = _end_like(existing, document.as_string())
    except (TOMLKitError, ValueError, TypeError) as error:
        if isinstance(error, ConfigError):
            raise
        raise ConfigError(f"The Serpent entry cannot be written into the existing file safely "
                          f"({error}); it was not changed.") from None
    _check_only_serpent_changed(before, _read_toml(merged), parents, entry)
    return merged


def remove_toml(existing: str, table: str) -> str:
    """`existing` without the `[table]` section; everything else as written."""
    before = _read_toml(existing)
    *parents, name = table.split(".")
    try:
        document = tomlkit.parse(existing)
        servers: Any = document
        for part in parents:
            servers = servers.get(part) if isinstance(servers, MutableMapping) else None
        if not isinstance(servers, MutableMapping) or name not in servers:
            return existing
        del servers[name]
        removed = _end_like(existing, document.as_string())
    except (TOMLKitError, ValueError, TypeError) as error:
        raise ConfigError(f"The Serpent entry cannot be removed from the existing file safely "
                          f"({error}); it was not changed.") from None
    _check_only_serpent_changed(before, _read_toml(removed), parents, None)
    return removed


def toml_table(name: str, entry: Mapping[str, Any]) -> str:
    """`[name]` with `entry`, as a snippet to paste (the same writer `install` uses)."""
    return merge_toml("", name, dict(entry))


def _toml_inline(value: Mapping[str, Any]) -> InlineTable:
    table = tomlkit.inline_table()
    table.update(value)
    return table


def _end_like(original: str, edited: str) -> str:
    """No blank lines piled up at the end by an edit; a final newline when there is text."""
    if not edited.strip():
        return original if not original.strip() else ""
    return edited.rstrip("\n") + "\n"


def _read_json(text: str) -> dict[str, Any]:
    try:
        data = jsonc.loads(text)
    except jsonc.JsoncError as error:
        raise ConfigError(f"The existing file is not valid JSON ({error}); it was not "
                          "changed.") from None
    if not isinstance(data, dict):
        raise ConfigError("The existing file does not hold a JSON object; it was not changed.")
    return data


def _read_toml(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"The existing file is not valid TOML ({error}); it was not "
                          "changed.") from None


def _check_only_serpent_changed(before: dict[str, Any], after: dict[str, Any],
                                parents: list[str], entry: dict[str, Any] | None) -> None:
    """After an edit, the file must read as before with only Serpent's entry set (or gone)."""
    expected = copy.deepcopy(before)
    node: Any = expected
    for part in parents:
        node = node.setdefault(part, {}) if entry is not None else node.get(part, {})
        if not isinstance(node, dict):
            raise ConfigError(f"{part!r} in the existing file is not an object; it was not "
                              "changed.")
    if entry is not None:
        node[SERVER_NAME] = entry
    else:
        node.pop(SERVER_NAME, None)
    if after != expected:
        raise ConfigError("The existing file defines the Serpent entry in a way that cannot be "
                          "changed safely; it was not changed.")


@dataclass(frozen=True)
class Installed:
    path: Path
    backup: Path | None  # None when the file did not exist before
    removed: bool = False  # an uninstall

    def sentence(self) -> str:
        done = "removed from" if self.removed else "added to"
        text = f"Serpent was {done} {self.path}"
        if self.backup is not None:
            text += f" (the previous file was kept as {self.backup.name})"
        return text + "."


def install_into(path: Path, client_id: str, entry: dict[str, Any]) -> Installed:
    """Merge `entry` into the config file at `path`: backup first, then an atomic write."""
    info = client(client_id)
    existing = _read_config(path)
    if info.format == "toml":
        merged = merge_toml(existing, f"{info.top_key}.{SERVER_NAME}", entry)
    else:
        merged = merge_json(existing, info.top_key, entry)
    return Installed(path=path, backup=_replace(path, existing, merged))


def uninstall_from(path: Path, client_id: str) -> Installed | None:
    """Take Serpent's entry out of the config file at `path` (None: it was not there)."""
    info = client(client_id)
    if not path.exists():
        return None
    existing = _read_config(path)
    if info.format == "toml":
        edited = remove_toml(existing, f"{info.top_key}.{SERVER_NAME}")
    else:
        edited = remove_json(existing, info.top_key)
    if edited == existing:
        return None
    return Installed(path=path, backup=_replace(path, existing, edited), removed=True)


def install(client_id: str, *, port: int, token: str, bridge: BridgeLaunch | None = None,
            env: Mapping[str, str] | None = None, **where: Any) -> list[Installed]:
    """Add Serpent to the client's user-level config (every location it may read)."""
    entry = server_entry(client_id, port=port, token=token, bridge=bridge, env=env)
    targets = install_targets(client_id, env=env, **where)
    return [install_into(path, client_id, entry) for path in targets]


def uninstall(client_id: str, *, env: Mapping[str, str] | None = None,
              **where: Any) -> list[Installed]:
    """Take Serpent out of every user-level config file of the client that has it."""
    done = (uninstall_from(path, client_id)
            for path in config_paths(client_id, env=env, **where))
    return [d for d in done if d is not None]


def _read_config(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"Cannot read {path}: {error}") from None


def _replace(path: Path, existing: str, new_text: str) -> Path | None:
    """Backup of the previous file (when there was one), then the new text atomically."""
    backup = None
    if existing:  # never over an earlier backup (an install and an uninstall in one second)
        stamp = f"{path.name}.serpent-backup-{time.strftime('%Y%m%d-%H%M%S')}"
        backup = path.with_name(stamp)
        for number in itertools.count(2):
            if not backup.exists():
                break
            backup = path.with_name(f"{stamp}-{number}")
        shutil.copy2(path, backup)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    atomic_write_text(path, new_text, mode=mode)
    return backup
