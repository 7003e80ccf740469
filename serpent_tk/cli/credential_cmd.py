"""`serpent-tk credential create NAME [--mode] [--toolset] | list | revoke NAME | mode NAME MODE
| toolset NAME essentials|everything`.

Runs in the CLI process, with or without the app running: the credential store locks its file,
and a running server notices the change at its next request (a revoke cuts a live client at
once). Light imports only: no MCP stack, no Tk.
"""

from __future__ import annotations

import argparse
import sys

MODES = ("read-only", "auto", "full-access")
TOOLSETS = ("essentials", "everything")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="credential_action", metavar="ACTION", required=True)
    create = actions.add_parser(
        "create", help="give an AI client its own token (printed once)",
        description="Create a credential for one AI client and print its token once. Modes: "
                    "read-only (look only), auto (organize; dangerous steps need a "
                    "confirmation; the default), full-access (also plugin tools).")
    create.add_argument("name", metavar="NAME", help='e.g. "Claude Desktop"')
    create.add_argument("--mode", choices=MODES, default="auto")
    create.add_argument("--toolset", choices=TOOLSETS, default="essentials",
                        help="essentials (the default: the tools of everyday work, at most 25) "
                             "or everything")
    actions.add_parser("list", help="list credentials (never their tokens)")
    revoke = actions.add_parser("revoke", help="revoke a credential; its client is cut off "
                                               "at once")
    revoke.add_argument("name", metavar="NAME")
    mode = actions.add_parser("mode", help="change what a credential may do")
    mode.add_argument("name", metavar="NAME")
    mode.add_argument("mode", metavar="MODE", choices=MODES)
    toolset = actions.add_parser(
        "toolset", help="choose which tools a credential sees: essentials or everything",
        description="essentials: the everyday tools (find, look, import, tag, rate, move, "
                    "trash and restore, undo, folders, collections); everything: every tool. "
                    "A connected client is told at once (tools/list_changed).")
    toolset.add_argument("name", metavar="NAME")
    toolset.add_argument("toolset", metavar="TOOLSET", choices=TOOLSETS)


def run(args: argparse.Namespace) -> int:
    from serpent_tk.credentials import CredentialError, CredentialStore
    from serpent_tk.logs import setup_logging
    from serpent_tk.paths import app_dirs

    dirs = app_dirs().ensure()
    setup_logging(dirs.log, console=False)
    store = CredentialStore(dirs.credentials_file)
    try:
        if args.credential_action == "create":
            credential, token = store.create(args.name, args.mode, args.toolset)
            print(f'Credential "{credential.name}" created (mode {credential.mode}, toolset '
                  f'{credential.toolset}).')
            print("Its token is shown only now. `serpent-tk mcp-config --client ID "
                  f'--credential "{credential.name}"` prints a ready client config.')
            print(token)
            if credential.mode == "full-access":
                print("Full Access: this client may also run plugin tools. Dangerous steps "
                      "still need a confirmation.", file=sys.stderr)
        elif args.credential_action == "list":
            problem = store.problem()
            if problem is not None:
                print(f"serpent-tk credential list: {problem}", file=sys.stderr)
                return 1
            _print_table(store)
        elif args.credential_action == "revoke":
            credential = store.revoke(args.name)
            print(f'Credential "{credential.name}" revoked; a running Serpent ends its '
                  "sessions within a second and refuses its token from now on.")
        elif args.credential_action == "toolset":
            credential = store.set_toolset(args.name, args.toolset)
            print(f'Credential "{credential.name}" now sees the {credential.toolset} toolset; '
                  "a connected client is told at once.")
        else:
            credential = store.set_mode(args.name, args.mode)
            print(f'Credential "{credential.name}" now has mode {credential.mode}.')
    except CredentialError as error:
        print(f"serpent-tk credential {args.credential_action}: {error}", file=sys.stderr)
        return 1
    return 0


def _print_table(store: object) -> None:
    credentials = store.list()  # type: ignore[attr-defined]
    if not credentials:
        print('No credentials yet. Create one: serpent-tk credential create "Claude Desktop"')
        return
    rows = [("NAME", "MODE", "TOOLSET", "CREATED", "LAST USED")]
    for c in credentials:
        rows.append((c.name, c.mode, c.toolset, f"{c.created_at:%Y-%m-%d %H:%M}",
                     f"{c.last_used_at:%Y-%m-%d %H:%M}" if c.last_used_at else "never"))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
              .rstrip())
