"""`serpent-tk plugin list | enable | disable | expose | hide` as a real process: the switches
land in the settings file (and travel with a settings export); broken plugins are explained."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from serpent_tk.paths import app_dirs
from serpent_tk.settings import PluginSettings, SettingsStore
from tests.conftest import serpent_command
from tests.plugins.samples import COUNTER, write_plugin


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(serpent_command("plugin", *args), capture_output=True, text=True,
                          timeout=60, check=False)


def switches(plugin_id: str) -> PluginSettings:
    return SettingsStore(app_dirs().settings_file).load().settings.plugin(plugin_id)


def test_the_plugin_commands_flip_the_switches(plugins_dir: Path, tmp_path: Path) -> None:
    write_plugin(plugins_dir, "future-only", COUNTER, commands=("count",), serpent=">=9")
    listed = cli("list")
    assert listed.returncode == 0, listed.stderr
    rows = {line.split()[0]: line for line in listed.stdout.splitlines()[1:] if line.strip()}
    assert "Contact sheet" in rows["contact-sheet"] and "1.0.0" in rows["contact-sheet"]
    assert rows["rename-pattern"].split()[-3:] == ["no", "no", "Off"]
    assert "future-only: made for Serpent >=9; this is Serpent 0.1.0" in listed.stdout

    enabled = cli("enable", "rename-pattern")
    assert enabled.returncode == 0, enabled.stderr
    assert "“Rename by pattern” (rename-pattern) is on" in enabled.stdout
    assert switches("rename-pattern") == PluginSettings(enabled=True, exposed=False)
    exposed = cli("expose", "contact-sheet")
    assert "is exposed to MCP" in exposed.stdout and "It is off" in exposed.stdout
    assert "full-access" in exposed.stdout
    assert switches("contact-sheet") == PluginSettings(enabled=False, exposed=True)
    assert cli("hide", "contact-sheet").returncode == 0
    assert cli("disable", "rename-pattern").returncode == 0
    assert switches("contact-sheet") == switches("rename-pattern") == PluginSettings()
    cli("expose", "rename-pattern")

    unknown = cli("enable", "no-such-plugin")
    assert unknown.returncode == 1 and "there is no plugin 'no-such-plugin'" in unknown.stderr
    refused = cli("enable", "future-only")
    assert refused.returncode == 1 and "cannot run: made for Serpent >=9" in refused.stderr
    assert switches("future-only") == PluginSettings()

    exported = tmp_path / "settings.json"
    done = subprocess.run(serpent_command("settings", "export", str(exported)),
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    carried = json.loads(exported.read_text())["settings"]["plugins"]
    assert carried["rename-pattern"] == {"enabled": False, "exposed": True}
