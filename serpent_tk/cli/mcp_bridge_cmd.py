"""`serpent-tk mcp-bridge [--credential NAME]`: the stdio ↔ HTTP bridge.

Started by stdio-only MCP clients (Claude Desktop). The token comes from `SERPENT_MCP_TOKEN`
(what the copied config sets) or from `--credential`. The bridge finds Serpent only through
the endpoint file this user's running Serpent publishes in the user data folder (looked up
again at every reconnect), never at a guessed port. While Serpent is not running, the
credential's mode and toolset come from the same credential store. stdout carries only
protocol lines; diagnostics go to stderr.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
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

    from serpent_tk.credentials import CredentialError, CredentialStore
    from serpent_tk.mcp.bridge.relay import run_bridge
    from serpent_tk.mcp.endpoint import Endpoint, endpoint_file, read_endpoint
    from serpent_tk.paths import app_dirs

    dirs = app_dirs()
    store = CredentialStore(dirs.credentials_file)
    token = os.environ.get("SERPENT_MCP_TOKEN", "").strip() or None
    if args.credential:
        try:
            token = store.token_for(args.credential)
        except CredentialError as error:
            print(f"serpent-tk mcp-bridge: {error}", file=sys.stderr)
            return 1
    if token:
        register_secret(token)
    published = endpoint_file(dirs)

    def locate() -> Endpoint | None:
        endpoint = read_endpoint(published)
        if endpoint is None:
            logging.getLogger(__name__).info("no running Serpent is published in %s",
                                             published)
        return endpoint

    return run_bridge(locate, token, store)
