"""`serpent-tk plugin list | enable ID | disable ID | expose ID | hide ID`.

Runs in the CLI process, with or without the app running. Reads the plugins' manifests (no
plugin code runs here) and flips their switches in the settings file; a running Serpent (the
window or `serve`) notices the settings file changed and applies it at once, as it notices a
changed credential. `list` shows how the running Serpent's plugins are doing when one runs.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

ACTIONS = {
    "enable": ("enabled", True, "run it (its commands, hooks and analysers)"),
    "disable": ("enabled", False, "stop running it"),
    "expose": ("exposed", True, "offer its commands as MCP tools to full-access AI clients"),
    "hide": ("exposed", False, "stop offering its commands to AI clients"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="plugin_action", metavar="ACTION", required=True)
    actions.add_parser("list", help="list the plugins found, their switches and state")
    for action, (_key, _value, help_text) in ACTIONS.items():
        sub = actions.add_parser(action, help=help_text)
        sub.add_argument("plugin_id", metavar="ID")


def run(args: argparse.Namespace) -> int:
    from serpent_tk.logs import setup_logging
    from serpent_tk.paths import app_dirs
    from serpent_tk.plugins.discovery import discover
    from serpent_tk.plugins.state import read_status_file
    from serpent_tk.settings import SettingsStore

    dirs = app_dirs().ensure()
    setup_logging(dirs.log, console=False)
    found = {plugin.id: plugin for plugin in discover(dirs.plugins)}
    store = SettingsStore(dirs.settings_file)
    running = read_status_file(dirs.plugin_status)
    if args.plugin_action == "list":
        _print_table(found, store.load().settings, running)
        return 0
    plugin = found.get(args.plugin_id)
    if plugin is None:
        print(f"serpent-tk plugin {args.plugin_action}: there is no plugin "
              f"{args.plugin_id!r}; `serpent-tk plugin list` shows them.", file=sys.stderr)
        return 1
    key, value, _help = ACTIONS[args.plugin_action]
    if key == "enabled" and value and plugin.problem:
        print(f"serpent-tk plugin enable: “{plugin.name}” cannot run: {plugin.problem}.",
              file=sys.stderr)
        return 1

    def change(settings: Any) -> None:
        switches = settings.plugin(plugin.id).model_copy(update={key: value})
        settings.plugins = {**settings.plugins, plugin.id: switches}

    settings = store.update(change)
    switches = settings.plugin(plugin.id)
    done = {"enable": "is on", "disable": "is off", "expose": "is exposed to MCP",
            "hide": "is hidden from MCP"}[args.plugin_action]
    print(f"Plugin “{plugin.name}” ({plugin.id}) {done}.")
    if key == "exposed" and value and not switches.enabled:
        print(f"It is off: its tools appear once it runs (`serpent-tk plugin enable "
              f"{plugin.id}`).")
    if key == "exposed" and value:
        print("Only credentials in full-access mode see plugin tools.")
    print("A running Serpent applies this at once; otherwise it applies at the next start."
          if running is None else "The running Serpent applies this at once.")
    return 0


def _print_table(found: dict[str, Any], settings: Any, running: dict[str, Any] | None) -> None:
    from serpent_tk.plugins.state import SAID

    if not found:
        print("No plugins found.")
        return
    reported = running.get("plugins", {}) if running else {}
    rows = [("ID", "NAME", "VERSION", "ENABLED", "EXPOSED", "STATUS")]
    notes = []
    for plugin_id, plugin in found.items():
        switches = settings.plugin(plugin_id)
        live = reported.get(plugin_id) if isinstance(reported.get(plugin_id), dict) else None
        if plugin.problem:
            status = "incompatible" if plugin.incompatible else "broken"
            notes.append(f"{plugin_id}: {plugin.problem}")
        elif live is not None:
            status = str(live.get("status", "off"))
            if live.get("error"):
                notes.append(f"{plugin_id}: {live['error']}")
        else:
            status = "off" if not switches.enabled else "starts with Serpent"
        rows.append((plugin_id, plugin.name, plugin.manifest.version if plugin.manifest else "",
                     "yes" if switches.enabled else "no", "yes" if switches.exposed else "no",
                     SAID.get(status, status)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
              .rstrip())
    for note in notes:
        print(note)
    if running is not None:
        print(f"(states as the running Serpent reported them at {running.get('updatedAt')})")
