"""`serpent-tk mcp-bridge [--port N | --url URL] [--credential NAME]`: stdio ↔ HTTP bridge.

Started by stdio-only MCP clients (Claude Desktop). The token comes from `SERPENT_MCP_TOKEN`
(what the copied config sets) or from `--credential`. Without `--port`/`--url` the bridge looks
up the running Serpent's port at every (re)connect, falling back to the port in Settings.
stdout carries only protocol lines; diagnostics go to stderr.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--port", type=int, metavar="N", help="Serpent's MCP port")
    where.add_argument("--url", metavar="URL", help="Serpent's MCP endpoint URL")
    parser.add_argument("--credential", metavar="NAME",
                        help="read this credential's token from Serpent's credential store "
                             "(default: the SERPENT_MCP_TOKEN environment variable)")


def run(args: argparse.Namespace) -> int:
    from serpent_tk.logs import RedactSecrets, register_secret

    handler = logging.StreamHandler(sys.stderr) if sys.stderr is not None else None
    if handler is not None:
        handler.addFilter(RedactSecrets())
        handler.setFormatter(logging.Formatter("serpent-tk mcp-bridge: %(message)s"))
        logging.basicConfig(level=logging.WARNING, handlers=[handler])

    from serpent_tk.mcp.bridge import run_bridge
    from serpent_tk.mcp.endpoint import current_port, mcp_url

    token = os.environ.get("SERPENT_MCP_TOKEN", "").strip() or None
    if args.credential:
        from serpent_tk.credentials import CredentialError, CredentialStore
        from serpent_tk.paths import app_dirs

        try:
            token = CredentialStore(app_dirs().credentials_file).token_for(args.credential)
        except CredentialError as error:
            print(f"serpent-tk mcp-bridge: {error}", file=sys.stderr)
            return 1
    if token:
        register_secret(token)

    def url() -> str:
        if args.url:
            return str(args.url)
        return mcp_url(args.port or current_port())

    return run_bridge(url, token)
