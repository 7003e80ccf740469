"""`serpent-tk serve [--port N]`: the gateway and the MCP server without a window.

Runs on the main thread of its own process: builds the gateway (which starts library workers
on demand), binds the MCP port (a taken port fails at once), opens the default library
(creating it the first time), and only then accepts MCP connections, so the first request
already finds the library open; prints `MCP server listening on http://127.0.0.1:N/mcp`, and
shuts everything down cleanly on SIGINT or SIGTERM. Holds the same single-instance lock as
the window, so the two never run against the same data at once.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from serpent_tk.automation.caller import Caller
    from serpent_tk.automation.gateway import Gateway
    from serpent_tk.paths import AppDirs

log = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, metavar="N",
                        help="listen on this port (0: any free port; default: Settings → MCP)")


def run(args: argparse.Namespace) -> int:
    from serpent_tk.logs import setup_logging
    from serpent_tk.paths import app_dirs

    dirs = app_dirs().ensure()
    setup_logging(dirs.log)  # before the MCP stack is imported: ours is the logging set-up
    if args.port is not None and not (args.port == 0 or 1024 <= args.port <= 65535):
        print("serpent-tk serve: --port must be 0 or between 1024 and 65535.", file=sys.stderr)
        return 2

    from serpent_tk.single_instance import AlreadyRunning, SingleInstance

    instance = SingleInstance(dirs.instance_lock, dirs.instance_info, on_message=lambda _m: None)
    try:
        instance.acquire()
    except AlreadyRunning:
        print("serpent-tk serve: Serpent is already running for this user (the window or "
              "another `serve`); its MCP server is the one to use.", file=sys.stderr)
        return 1
    try:
        return _serve(args, dirs)
    finally:
        instance.release()


def _serve(args: argparse.Namespace, dirs: AppDirs) -> int:
    from serpent_tk.automation.caller import Caller
    from serpent_tk.automation.gateway import Gateway
    from serpent_tk.credentials import CredentialStore
    from serpent_tk.mcp.endpoint import endpoint_file
    from serpent_tk.mcp.service import McpService
    from serpent_tk.plugins.manager import PluginManager
    from serpent_tk.settings import SettingsStore

    settings_store = SettingsStore(dirs.settings_file)
    loaded = settings_store.load()
    for notice in loaded.notices:
        print(f"serpent-tk serve: {notice}", file=sys.stderr)
    settings = loaded.settings
    gateway = Gateway(settings_store)
    plugins = PluginManager(gateway, settings_store, dirs.plugins,
                            status_file=dirs.plugin_status)
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda _s, _f: stop.set())
                for sig in (signal.SIGINT, signal.SIGTERM)}
    service: McpService | None = None
    try:
        credentials = CredentialStore(dirs.credentials_file)
        service = McpService(gateway, credentials, port=settings.mcp.port,
                             output_budget_kib=settings.mcp.output_budget_kib,
                             endpoint_file=endpoint_file(dirs))
        problems: list[str] = []

        def open_libraries() -> None:  # the port is bound, nobody can connect yet
            started = plugins.start()  # the enabled plugins' tools are there from the start
            problem = _open_default_library(gateway, Caller.cli(), dirs)
            if problem is not None:
                problems.append(problem)
            started.result(120)

        status = service.start(args.port, before_listening=open_libraries)
        if not status.running:
            print(f"serpent-tk serve: {status.last_error}", file=sys.stderr)
            return 1
        for problem in problems:
            print(problem, file=sys.stderr)
        print(f"MCP server listening on {status.url}", flush=True)
        unusable = credentials.problem()
        if unusable is not None:
            print(f"serpent-tk serve: {unusable}", file=sys.stderr, flush=True)
        elif not credentials.list():
            print('No credentials yet: create one with `serpent-tk credential create '
                  '"Claude Desktop"`, then `serpent-tk mcp-config --client claude-desktop`.',
                  file=sys.stderr)
        while not stop.wait(0.5):
            pass
        print("Stopping…", file=sys.stderr)
        return 0
    finally:
        if service is not None:
            service.stop()
        plugins.shutdown()
        gateway.shutdown()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _open_default_library(gateway: Gateway, caller: Caller, dirs: AppDirs) -> str | None:
    """Open `<data>/Libraries/My Library.serpent`, creating it on the first run.

    Returns a line for the person when something went wrong (the server still starts: an
    agent can open or create another library)."""
    from serpent_tk.automation.envelope import error_of, result_of

    path = dirs.default_library
    if path.is_dir():
        answer = gateway.submit("library.open", {"path": str(path)}, caller).result(120)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        answer = gateway.submit("library.create", {
            "selectedParentPath": str(path.parent),
            "name": path.name.removesuffix(path.suffix)}, caller).result(120)
    result, error = result_of(answer), error_of(answer)
    if result is None:
        said = f"{error['code']}: {error['message']}" if error is not None else answer["status"]
        return f"serpent-tk serve: the default library could not be opened ({said})."
    log.info("default library open: %s", result.get("libraryId"))
    return None
