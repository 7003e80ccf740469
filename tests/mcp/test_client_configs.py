"""Client configs: every snippet parsed and checked against the client's documented shape, the
config file locations (Claude Desktop's MSIX one included), and installing into an existing
file and taking it out again (other servers, comments and layout kept, byte for byte;
backup, atomic write; a damaged file refused and untouched). A token goes only into a
client's user-level config; a project file only ever gets a token-free entry."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path, PureWindowsPath
from typing import Any

import pytest

from serpent_tk.credentials import CredentialStore
from serpent_tk.mcp import client_configs, jsonc
from serpent_tk.mcp.client_configs import (
    CLIENTS,
    ConfigError,
    bridge_launch,
    config_paths,
    install,
    merge_json,
    merge_toml,
    remove_json,
    remove_toml,
    snippet,
    uninstall,
)
from serpent_tk.paths import app_dirs
from tests.conftest import serpent_command

TOKEN = "tok_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG"
PORT = 47615
URL = f"http://127.0.0.1:{PORT}/mcp"
BEARER = {"Authorization": f"Bearer {TOKEN}"}

EXPECTED: dict[str, tuple[str, dict[str, Any]]] = {
    "claude-code": ("mcpServers", {"type": "http", "url": URL, "headers": BEARER}),
    "cursor": ("mcpServers", {"url": URL, "headers": BEARER}),
    "vscode": ("servers", {"type": "http", "url": URL, "headers": BEARER}),
    "windsurf": ("mcpServers", {"serverUrl": URL, "headers": BEARER}),
    "gemini": ("mcpServers", {"httpUrl": URL, "headers": BEARER}),
    "cline": ("mcpServers", {"type": "streamableHttp", "url": URL, "headers": BEARER,
                             "disabled": False}),
    "zed": ("context_servers", {"url": URL, "headers": BEARER}),
    "codex": ("mcp_servers", {"url": URL, "http_headers": BEARER}),
}


def parse(client_id: str, text: str) -> dict[str, Any]:
    if CLIENTS[client_id].format == "toml":
        return tomllib.loads(text)
    data: dict[str, Any] = json.loads(text)
    return data


@pytest.mark.parametrize("client_id", sorted(EXPECTED))
def test_http_snippets_have_each_clients_exact_shape(client_id: str) -> None:
    top, entry = EXPECTED[client_id]
    text = snippet(client_id, port=PORT, token=TOKEN)
    assert parse(client_id, text) == {top: {"serpent": entry}}
    assert "localhost" not in text


def test_the_claude_desktop_snippet_runs_the_bridge_from_this_install(
        isolated_user_data: Path) -> None:
    data = json.loads(snippet("claude-desktop", port=PORT, token=TOKEN))
    entry = data["mcpServers"]["serpent"]
    assert set(entry) == {"command", "args", "env"}  # stdio only: no url
    assert Path(entry["command"]).exists()  # this checkout's venv python
    assert entry["args"] == ["-m", "serpent_tk", "mcp-bridge"]
    assert entry["env"]["SERPENT_MCP_TOKEN"] == TOKEN
    assert entry["env"]["SERPENT_USER_DATA_PATH"] == str(isolated_user_data)


def test_a_packaged_build_uses_the_bridge_executable_next_to_the_app() -> None:
    windows = bridge_launch(frozen=True, executable=r"C:\Program Files\Serpent\Serpent.exe",
                            platform="win32")
    assert PureWindowsPath(windows.command) == PureWindowsPath(
        r"C:\Program Files\Serpent\serpent-tk-bridge.exe")
    assert windows.args == []
    mac = bridge_launch(frozen=True, platform="darwin",
                        executable="/Applications/Serpent.app/Contents/MacOS/Serpent")
    assert mac.command == "/Applications/Serpent.app/Contents/MacOS/serpent-tk-bridge"


def test_config_locations_per_client_and_os(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"APPDATA": r"C:\Users\ana\AppData\Roaming",
           "LOCALAPPDATA": r"C:\Users\ana\AppData\Local"}
    win = [str(p).replace("/", "\\") for p in
           config_paths("claude-desktop", home=home, env=env, platform="win32")]
    assert win[0].endswith(r"AppData\Local\Packages\Claude_pzs8sxrjxfjjc\LocalCache\Roaming"
                           r"\Claude\claude_desktop_config.json")
    assert win[1].endswith(r"AppData\Roaming\Claude\claude_desktop_config.json")
    assert config_paths("claude-desktop", home=home, env={}, platform="darwin") == [
        home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"]
    assert config_paths("cursor", home=home, env={}, platform="linux") == [
        home / ".cursor" / "mcp.json"]
    assert config_paths("windsurf", home=home, env={}, platform="linux") == [
        home / ".codeium" / "windsurf" / "mcp_config.json"]
    assert config_paths("codex", home=home, env={}, platform="linux") == [
        home / ".codex" / "config.toml"]
    assert config_paths("gemini", home=home, env={}, platform="linux") == [
        home / ".gemini" / "settings.json"]
    assert config_paths("claude-code", home=home, env={}, platform="linux") == [
        home / ".claude.json"]
    assert config_paths("vscode", home=home, env={}, platform="linux") == [
        home / ".config" / "Code" / "User" / "mcp.json"]
    assert config_paths("zed", home=home, env={}, platform="linux") == [
        home / ".config" / "zed" / "settings.json"]
    cline = config_paths("cline", home=home, env={}, platform="linux")
    assert cline[0].name == "cline_mcp_settings.json" and "saoudrizwan.claude-dev" in str(
        cline[0])


def test_install_keeps_other_keys_and_a_backup(tmp_path: Path) -> None:
    home = tmp_path / "home"
    target = home / ".cursor" / "mcp.json"
    target.parent.mkdir(parents=True)
    original = {"mcpServers": {"github": {"url": "https://example.test/mcp"}},
                "theme": "dark"}
    target.write_text(json.dumps(original))
    done = install("cursor", port=PORT, token=TOKEN, home=home, env={}, platform="linux")
    assert [d.path for d in done] == [target]
    merged = json.loads(target.read_text())
    assert merged["theme"] == "dark"
    assert merged["mcpServers"]["github"] == original["mcpServers"]["github"]
    assert merged["mcpServers"]["serpent"] == EXPECTED["cursor"][1]
    assert done[0].backup is not None and json.loads(done[0].backup.read_text()) == original
    assert "was added to" in done[0].sentence()
    again = install("cursor", port=PORT + 1, token=TOKEN, home=home, env={}, platform="linux")
    assert json.loads(again[0].path.read_text())["mcpServers"]["serpent"]["url"].endswith(
        f":{PORT + 1}/mcp")  # re-installing replaces, never duplicates


def test_install_into_claude_desktop_writes_every_location_it_may_read(tmp_path: Path) -> None:
    home = tmp_path / "home"
    local, roaming = tmp_path / "Local", tmp_path / "Roaming"
    msix = local / "Packages" / "Claude_pzs8sxrjxfjjc" / "LocalCache" / "Roaming" / "Claude"
    classic = roaming / "Claude"
    msix.mkdir(parents=True)
    classic.mkdir(parents=True)
    done = install("claude-desktop", port=PORT, token=TOKEN, home=home, platform="win32",
                   env={"APPDATA": str(roaming), "LOCALAPPDATA": str(local)})
    assert {d.path.parent for d in done} == {msix, classic}
    for written in done:
        entry = json.loads(written.path.read_text())["mcpServers"]["serpent"]
        assert entry["env"]["SERPENT_MCP_TOKEN"] == TOKEN


ZED_SETTINGS = """{
  // Zed settings
  "theme": "One Dark", /* keep me */
  "url_like": "http://x//y",

  "context_servers": {
    // the team's server
    "other": {"url": "http://127.0.0.1:1/mcp",},   // trailing comma, odd spacing
  },
  "vim_mode"  :true,
}
"""

CODEX_CONFIG = """# my Codex settings
model = "o3"  # mine
approval_policy = 'on-request'

[mcp_servers.other]   # the team's
url = "x"
http_headers = { "X-Team" = "1" }

[profiles.fast]
model = "o4-mini"
"""


def test_install_then_uninstall_keeps_every_comment_and_other_server(tmp_path: Path) -> None:
    home = tmp_path / "home"
    zed = home / ".config" / "zed" / "settings.json"
    codex = home / ".codex" / "config.toml"
    for target, text in ((zed, ZED_SETTINGS), (codex, CODEX_CONFIG)):
        target.parent.mkdir(parents=True)
        target.write_text(text)
    where: dict[str, Any] = {"home": home, "env": {}, "platform": "linux"}
    install("zed", port=PORT, token=TOKEN, **where)
    install("codex", port=PORT, token=TOKEN, **where)
    zed_text, codex_text = zed.read_text(), codex.read_text()
    for line in ZED_SETTINGS.splitlines():
        assert line in zed_text
    for line in CODEX_CONFIG.splitlines():
        assert line in codex_text
    assert jsonc.loads(zed_text)["context_servers"] == {
        "other": {"url": "http://127.0.0.1:1/mcp"}, "serpent": EXPECTED["zed"][1]}
    codex_data = tomllib.loads(codex_text)
    assert codex_data["mcp_servers"]["serpent"] == EXPECTED["codex"][1]
    assert codex_data["profiles"] == {"fast": {"model": "o4-mini"}}

    removed = uninstall("zed", **where) + uninstall("codex", **where)
    assert [r.path for r in removed] == [zed, codex]
    assert all("removed from" in r.sentence() and r.backup for r in removed)
    assert zed.read_text() == ZED_SETTINGS  # byte for byte: as the person wrote it
    assert codex.read_text() == CODEX_CONFIG
    backups = sorted(zed.parent.glob("settings.json.serpent-backup-*"))
    assert len(backups) == 2  # the uninstall's backup never replaces the install's
    assert ZED_SETTINGS in {b.read_text() for b in backups}
    assert uninstall("zed", **where) == []  # nothing left to take out: the file is not touched


@pytest.mark.parametrize(("existing", "expected"), [
    ('{"mcpServers": {"a": 1}}', '{"mcpServers": {"a": 1, "serpent": {"url": "u"}}}'),
    ('{"theme": 1}', '{"theme": 1, "mcpServers": {"serpent": {"url": "u"}}}'),
    ("", '{\n  "mcpServers": {\n    "serpent": {\n      "url": "u"\n    }\n  }\n}\n'),
    ("// nothing yet\n", '// nothing yet\n{\n  "mcpServers": {\n    "serpent": {\n'
     '      "url": "u"\n    }\n  }\n}\n'),
    ('{\r\n\t"mcpServers": {\r\n\t\t"a": 1 // one\r\n\t}\r\n}',
     '{\r\n\t"mcpServers": {\r\n\t\t"a": 1, // one\r\n\t\t"serpent": {\r\n'
     '\t\t\t"url": "u"\r\n\t\t}\r\n\t}\r\n}'),
    ('{\n    "mcpServers": {\n        // none yet\n    }\n}',
     '{\n    "mcpServers": {\n        "serpent": {\n            "url": "u"\n        }\n'
     '        // none yet\n    }\n}'),
])
def test_json_edits_follow_the_files_own_layout(existing: str, expected: str) -> None:
    merged = merge_json(existing, "mcpServers", {"url": "u"})
    assert merged == expected
    if '"mcpServers": {"a"' in existing or '"a": 1 //' in existing:
        assert remove_json(merged, "mcpServers") == existing


def test_reinstalling_replaces_only_serpents_entry() -> None:
    once = merge_json(ZED_SETTINGS, "context_servers", {"url": "old"})
    twice = merge_json(once, "context_servers", {"url": URL})
    assert twice == once.replace('"url": "old"', f'"url": "{URL}"')
    one_line = '{"mcpServers": {"a": 1, "serpent": {"url": "old"}}}'
    assert merge_json(one_line, "mcpServers", {"url": "u"}) == one_line.replace("old", "u")
    toml_once = merge_toml(CODEX_CONFIG, "mcp_servers.serpent", {"url": "old"})
    toml_twice = merge_toml(toml_once, "mcp_servers.serpent", {"url": URL})
    assert toml_twice == toml_once.replace('url = "old"', f'url = "{URL}"')


def test_a_damaged_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not valid JSON"):
        merge_json("{oops", "mcpServers", {})
    with pytest.raises(ConfigError, match=r"not valid JSON \(unexpected '\]' at line 2 column 8"):
        merge_json('{"a": 1,\n  "b": ]}', "mcpServers", {})
    with pytest.raises(ConfigError, match="not an object"):
        merge_json('{"mcpServers": []}', "mcpServers", {})
    with pytest.raises(ConfigError, match="not valid TOML"):
        merge_toml("[broken", "mcp_servers.serpent", {})
    with pytest.raises(ConfigError, match="not a table"):
        merge_toml("mcp_servers = 3\n", "mcp_servers.serpent", {})
    home = tmp_path / "home"
    where: dict[str, Any] = {"home": home, "env": {}, "platform": "linux"}
    gemini = home / ".gemini" / "settings.json"
    codex = home / ".codex" / "config.toml"
    for target, text in ((gemini, '{"mcpServers": {"serpent": {}, } /* unclosed'),
                         (codex, CODEX_CONFIG + "\n[mcp_servers.serpent\nurl = 1\n")):
        target.parent.mkdir(parents=True)
        target.write_text(text)
    for client_id, target in (("gemini", gemini), ("codex", codex)):
        before = target.read_text()
        with pytest.raises(ConfigError, match="it was not changed"):
            install(client_id, port=PORT, token=TOKEN, **where)
        assert target.read_text() == before
        with pytest.raises(ConfigError, match="it was not changed"):
            uninstall(client_id, **where)
        assert target.read_text() == before
        assert list(target.parent.iterdir()) == [target]  # no backup, no temporary file left


def test_codex_toml_is_merged_as_written() -> None:
    existing = ('model = "o3"  # mine\n\n[mcp_servers.other]\nurl = "x"\n\n'
                '[mcp_servers.serpent]\nurl = "old"\n[mcp_servers.serpent.env]\nA = "1"\n\n'
                "[profiles.x]\nmodel = 'y'  # theirs\n")
    merged = merge_toml(existing, "mcp_servers.serpent", EXPECTED["codex"][1])
    assert 'model = "o3"  # mine' in merged and "model = 'y'  # theirs" in merged
    parsed = tomllib.loads(merged)
    assert parsed["mcp_servers"]["other"] == {"url": "x"}
    assert parsed["mcp_servers"]["serpent"] == EXPECTED["codex"][1]
    assert parsed["profiles"] == {"x": {"model": "y"}}
    removed = remove_toml(merged, "mcp_servers.serpent")
    assert "model = 'y'  # theirs" in removed
    assert tomllib.loads(removed)["mcp_servers"] == {"other": {"url": "x"}}


@pytest.mark.parametrize("client_id", sorted(CLIENTS))
def test_mcp_config_prints_a_snippet_that_parses(client_id: str) -> None:
    store = CredentialStore(app_dirs().ensure().credentials_file)
    _, token = store.create("Mine", "read-only")
    done = subprocess.run(serpent_command("mcp-config", "--client", client_id, "--credential",
                                          "Mine"), capture_output=True, text=True, timeout=60,
                          check=True)
    data = parse(client_id, done.stdout)
    top = CLIENTS[client_id].top_key
    entry = data[top]["serpent"]
    if client_id == "claude-desktop":
        assert entry["env"]["SERPENT_MCP_TOKEN"] == token
    else:
        headers = entry.get("headers") or entry.get("http_headers")
        assert headers == {"Authorization": f"Bearer {token}"}
        url = entry.get("url") or entry.get("serverUrl") or entry.get("httpUrl")
        assert url == "http://127.0.0.1:47615/mcp"  # the port in Settings
    assert "Paste into" in done.stderr


def test_mcp_config_without_a_credential_makes_one_named_after_the_client() -> None:
    done = subprocess.run(serpent_command("mcp-config", "--client", "cursor"),
                          capture_output=True, text=True, timeout=60, check=True)
    store = CredentialStore(app_dirs().credentials_file)
    assert [c.name for c in store.list()] == ["Cursor"]
    token = store.token_for("Cursor")
    assert json.loads(done.stdout)["mcpServers"]["serpent"]["headers"]["Authorization"] == \
        f"Bearer {token}"


def test_mcp_config_install_writes_the_clients_file(isolated_user_data: Path) -> None:
    import os

    done = subprocess.run(serpent_command("mcp-config", "--client", "windsurf", "--install"),
                          capture_output=True, text=True, timeout=60, check=True)
    target = Path(os.environ["HOME"]) / ".codeium" / "windsurf" / "mcp_config.json"
    assert str(target) in done.stdout
    entry = json.loads(target.read_text())["mcpServers"]["serpent"]
    assert entry["serverUrl"] == "http://127.0.0.1:47615/mcp"
    gone = subprocess.run(serpent_command("mcp-config", "--client", "windsurf", "--uninstall"),
                          capture_output=True, text=True, timeout=60, check=True)
    assert f"Serpent was removed from {target}" in gone.stdout
    assert json.loads(target.read_text()) == {"mcpServers": {}}
    again = subprocess.run(serpent_command("mcp-config", "--client", "windsurf", "--uninstall"),
                           capture_output=True, text=True, timeout=60, check=True)
    assert "not in Windsurf's config" in again.stdout


def test_every_client_has_a_label_and_a_hint() -> None:
    assert list(CLIENTS) == ["claude-desktop", "claude-code", "cursor", "vscode", "windsurf",
                             "codex", "gemini", "cline", "zed"]
    for info in CLIENTS.values():
        assert info.label and info.paste_hint
    with pytest.raises(ConfigError, match="Unknown client"):
        client_configs.client("notepad")


def test_no_hint_sends_a_token_into_a_project_file() -> None:
    """The snippets hold a token: every hint names the user-level file, and where a client
    also reads a project file, says not to use it."""
    for info in CLIENTS.values():
        for project_path in (".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json",
                             ".codex/config.toml", ".gemini/settings.json", ".zed/"):
            at = info.paste_hint.find(project_path)
            while at >= 0:
                before = info.paste_hint[:at]
                assert before.endswith("~/") or "Never into a project" in before[-40:], \
                    f"{info.id}: {info.paste_hint}"
                at = info.paste_hint.find(project_path, at + 1)
    claude_code = CLIENTS["claude-code"].paste_hint
    assert claude_code.startswith("~/.claude.json, your user scope")
    assert "Never into a project's .mcp.json" in claude_code and "--project" in claude_code


def test_install_into_claude_code_uses_the_user_scope(tmp_path: Path) -> None:
    """~/.claude.json holds the user scope (top-level mcpServers) and each project's local
    scope (projects.<path>.mcpServers): the token goes into the user scope only."""
    home = tmp_path / "claude-user"
    home.mkdir()
    existing = {"numStartups": 7, "mcpServers": {"other": {"type": "stdio", "command": "x"}},
                "projects": {"/work/game": {"mcpServers": {}, "allowedTools": []}}}
    (home / ".claude.json").write_text(json.dumps(existing))
    [done] = install("claude-code", port=PORT, token=TOKEN, home=home, env={},
                     platform="linux")
    assert done.path == home / ".claude.json"
    data = json.loads(done.path.read_text())
    assert data["mcpServers"]["serpent"] == EXPECTED["claude-code"][1]
    assert data["mcpServers"]["other"] == existing["mcpServers"]["other"]
    assert data["projects"] == existing["projects"] and data["numStartups"] == 7
    assert not (home / ".mcp.json").exists()


@pytest.mark.parametrize(("client_id", "entry"), [
    ("claude-code", {"type": "http", "url": URL,
                     "headers": {"Authorization": "Bearer ${SERPENT_MCP_TOKEN}"}}),
    ("cursor", {"url": URL, "headers": {"Authorization": "Bearer ${env:SERPENT_MCP_TOKEN}"}}),
    ("codex", {"url": URL, "bearer_token_env_var": "SERPENT_MCP_TOKEN"}),
])
def test_a_project_file_gets_a_token_free_entry(client_id: str, entry: dict[str, Any]) -> None:
    done = subprocess.run(serpent_command("mcp-config", "--client", client_id, "--project",
                                          "--port", str(PORT)),
                          capture_output=True, text=True, timeout=60, check=True)
    top = CLIENTS[client_id].top_key
    assert parse(client_id, done.stdout) == {top: {"serpent": entry}}
    assert "tok_" not in done.stdout
    assert f"Paste into {CLIENTS[client_id].project_file} in the project" in done.stderr
    assert "SERPENT_MCP_TOKEN" in done.stderr
    store = CredentialStore(app_dirs().ensure().credentials_file)
    assert store.list() == []  # no credential made or revealed


def test_a_client_without_a_token_free_form_has_no_project_entry() -> None:
    done = subprocess.run(serpent_command("mcp-config", "--client", "gemini", "--project"),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert "Gemini CLI has no token-free project entry" in done.stderr
    assert "claude-code, cursor, codex" in done.stderr
