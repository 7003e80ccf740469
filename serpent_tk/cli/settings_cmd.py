"""`serpent-tk settings export FILE [--include-credentials]` / `settings import FILE`.

Runs in the CLI process, with or without the app running (the stores lock their files).
Imports stay light until `run`: the parser is built for every `serpent-tk` call.
"""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="settings_action", metavar="ACTION", required=True)
    export = actions.add_parser(
        "export", help="write your settings to one portable file",
        description="Write settings (MCP port, theme, recent libraries with home-relative "
                    "paths, plugins) to FILE. Credentials are secret and only included with "
                    "--include-credentials; the file is then readable by you only.")
    export.add_argument("file", metavar="FILE")
    export.add_argument("--include-credentials", action="store_true",
                        help="also carry the AI clients' tokens (keep the file private)")
    imported = actions.add_parser(
        "import", help="replace your settings with those in FILE",
        description="Replace this computer's settings with FILE's (the old settings are kept "
                    "beside them). Libraries that are not on this computer are listed as "
                    "missing; locate them in Serpent. Nothing changes if FILE is damaged.")
    imported.add_argument("file", metavar="FILE")
    imported.add_argument("--no-credentials", action="store_true",
                          help="do not add the credentials the file carries")


def run(args: argparse.Namespace) -> int:
    from serpent_tk.logs import setup_logging
    from serpent_tk.paths import app_dirs
    from serpent_tk.portable import PortableSettingsError

    dirs = app_dirs().ensure()
    setup_logging(dirs.log, console=False)
    try:
        if args.settings_action == "export":
            return _export(args)
        return _import(args)
    except PortableSettingsError as error:
        print(f"serpent-tk settings {args.settings_action}: {error.message}", file=sys.stderr)
        return 1


def _export(args: argparse.Namespace) -> int:
    from serpent_tk.portable import export_settings

    report = export_settings(args.file, include_credentials=args.include_credentials)
    libraries = f"{report.libraries} librar{'y' if report.libraries == 1 else 'ies'}"
    if args.include_credentials:
        tokens = f"{report.credentials} credential{'' if report.credentials == 1 else 's'}"
        print(f"Settings exported to {report.path} ({libraries}, {tokens}).")
        print("This file contains secret tokens: keep it private, delete it once imported.")
    else:
        print(f"Settings exported to {report.path} ({libraries}; credentials not included).")
    return 0


def _import(args: argparse.Namespace) -> int:
    from serpent_tk.portable import import_settings

    report = import_settings(args.file, include_credentials=not args.no_credentials)
    print(f"Settings imported from {args.file}.")
    if report.backup is not None:
        print(f"Your previous settings were kept as {report.backup}.")
    for path in report.found:
        print(f"  found    {path}")
    for missing in report.missing:
        print(f"  missing  {missing.name}: {missing.path} — not on this computer; "
              "locate it in Serpent's window")
    if report.credentials_added:
        print("Credentials added: " + ", ".join(report.credentials_added))
    for notice in report.notices:
        print(notice)
    return 0
