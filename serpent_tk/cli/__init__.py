"""The `serpent-tk` command line: one table of subcommands, each in its own module.

Runs in the main thread of whatever process was started. A subcommand module exposes
`add_arguments(parser)` and `run(args) -> int`; it is imported only when chosen, so
`serpent-tk credential list` never loads Tk or the MCP stack. With no subcommand the
desktop app starts.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Protocol

from serpent_tk import __version__


class Subcommand(Protocol):
    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...
    def run(self, args: argparse.Namespace) -> int: ...


# name -> (module, one-line help). Order is the order of `serpent-tk --help`.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "settings": ("serpent_tk.cli.settings_cmd", "export or import settings (one portable file)"),
    "serve": ("serpent_tk.cli.serve_cmd", "run the MCP server without a window (headless)"),
    "credential": ("serpent_tk.cli.credential_cmd",
                   "create, list, revoke or re-mode the AI clients' credentials"),
    "plugin": ("serpent_tk.cli.plugin_cmd",
               "list plugins; enable, disable, expose (to MCP) or hide one"),
    "mcp-config": ("serpent_tk.cli.mcp_config_cmd",
                   "print (or install) the MCP config for one AI client"),
    "mcp-bridge": ("serpent_tk.cli.mcp_bridge_cmd",
                   "stdio <-> HTTP bridge for stdio-only MCP clients (Claude Desktop)"),
}

DESKTOP = "serpent_tk.app"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="serpent-tk",
        description="Serpent: a desktop asset library with an embedded MCP server. "
                    "With no command, opens the desktop app.")
    parser.add_argument("--version", action="version", version=f"serpent-tk {__version__}")
    _load(DESKTOP).add_arguments(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in SUBCOMMANDS.items():
        sub = commands.add_parser(name, help=help_text, description=help_text)
        _load(module).add_arguments(sub)
    return parser


def _load(module: str) -> Subcommand:
    return importlib.import_module(module)


def run(argv: list[str]) -> int:
    # no arguments: the desktop app (it takes no options), started without importing every
    # subcommand to build a parser nothing will read
    args = argparse.Namespace(command=None) if not argv else build_parser().parse_args(argv)
    module = SUBCOMMANDS[args.command][0] if args.command else DESKTOP
    try:
        return _load(module).run(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
