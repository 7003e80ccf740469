"""`serpent-tk mcp-config --client ID [--credential NAME] [--port N]
[--install | --uninstall | --project]`.

Runs in the CLI process. Prints the exact config snippet for one MCP client (always
127.0.0.1), which holds a token and so belongs in the client's user-level config; with
`--install` merges it into that file instead (only Serpent's entry changes: comments and
layout stay; backup kept, atomic write), `--uninstall` takes that entry out again. Without
`--credential` it uses, or creates, a credential named after the client, so the printed
config works at once. `--project` prints a token-free entry for a project's shared config file
(`.mcp.json`, ...) that reads the token from `SERPENT_MCP_TOKEN`; it touches no credential.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from serpent_tk.paths import AppDirs

CLIENT_IDS = ("claude-desktop", "claude-code", "cursor", "vscode", "windsurf", "codex",
              "gemini", "cline", "zed")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--client", required=True, choices=CLIENT_IDS, metavar="ID",
                        help="one of: " + ", ".join(CLIENT_IDS))
    parser.add_argument("--credential", metavar="NAME",
                        help="whose token to use (default: one named after the client, "
                             "created if missing)")
    parser.add_argument("--port", type=int, metavar="N",
                        help="the MCP port (default: the running server's, else Settings)")
    way = parser.add_mutually_exclusive_group()
    way.add_argument("--install", action="store_true",
                     help="write it into the client's user-level config file instead of "
                          "printing it")
    way.add_argument("--uninstall", action="store_true",
                     help="take Serpent's entry out of the client's user-level config file")
    way.add_argument("--project", action="store_true",
                     help="print a token-free entry for a project's shared config file "
                          "(claude-code, cursor, codex): the client reads the token from "
                          "SERPENT_MCP_TOKEN")


def run(args: argparse.Namespace) -> int:
    from serpent_tk.credentials import CredentialError, CredentialStore
    from serpent_tk.logs import setup_logging
    from serpent_tk.mcp import client_configs
    from serpent_tk.mcp.endpoint import configured_port, current_port
    from serpent_tk.paths import app_dirs

    dirs = app_dirs().ensure()
    setup_logging(dirs.log, console=False)
    info = client_configs.client(args.client)
    if args.project:
        return _project(args, dirs)
    if args.uninstall:
        return _uninstall(args)
    store = CredentialStore(dirs.credentials_file)
    name = args.credential or info.label
    try:
        token = store.token_for(name)
    except CredentialError:
        if args.credential:
            print(f"serpent-tk mcp-config: no credential named {name!r} "
                  "(see `serpent-tk credential list`).", file=sys.stderr)
            return 1
        credential, token = store.create(name)
        print(f'Created credential "{credential.name}" (mode {credential.mode}) for this '
              "client.", file=sys.stderr)
    port = args.port or current_port(dirs)
    if args.port is None and port != configured_port(dirs):
        print(f"Note: the running server uses port {port}, not the port in Settings; this "
              "config stops working when that server stops.", file=sys.stderr)
    if args.install:
        try:
            done = client_configs.install(args.client, port=port, token=token)
        except (client_configs.ConfigError, OSError) as error:
            print(f"serpent-tk mcp-config: {error}", file=sys.stderr)
            return 1
        for installed in done:
            print(installed.sentence())
        print(f"Restart {info.label} to load it.")
        return 0
    sys.stdout.write(client_configs.snippet(args.client, port=port, token=token))
    print(f"Paste into: {info.paste_hint}", file=sys.stderr)
    return 0


def _project(args: argparse.Namespace, dirs: AppDirs) -> int:
    from serpent_tk.mcp import client_configs
    from serpent_tk.mcp.endpoint import current_port

    info = client_configs.client(args.client)
    port = args.port or current_port(dirs)
    try:
        text = client_configs.project_snippet(args.client, port=port)
    except client_configs.ConfigError as error:
        print(f"serpent-tk mcp-config: {error}", file=sys.stderr)
        return 1
    sys.stdout.write(text)
    print(f"Paste into {info.project_file} in the project; it holds no token, so it may be "
          f"committed. Everyone who uses it sets {client_configs.TOKEN_ENV} to the token of "
          f"their own credential before starting {info.label} (`serpent-tk credential create "
          "NAME` prints a new one).", file=sys.stderr)
    return 0


def _uninstall(args: argparse.Namespace) -> int:
    from serpent_tk.mcp import client_configs

    info = client_configs.client(args.client)
    try:
        done = client_configs.uninstall(args.client)
    except (client_configs.ConfigError, OSError) as error:
        print(f"serpent-tk mcp-config: {error}", file=sys.stderr)
        return 1
    for removed in done:
        print(removed.sentence())
    print(f"Restart {info.label} to unload it." if done
          else f"Serpent was not in {info.label}'s config; nothing was changed.")
    return 0
