"""Composition root of the desktop app: wires the pieces and owns start/stop order.

Runs on the main thread. Nothing imports this module except the CLI table.
"""

from __future__ import annotations

import argparse
import gc
import logging
import signal
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from library.spare_worker import SpareWorkers
    from serpent_tk.settings import SettingsStore

log = logging.getLogger(__name__)

# The Tk thread shares the GIL with the MCP server and gateway threads; a short switch
# interval lets it win the GIL back sooner after each Tk call, so the window stays smooth
# while agents are busy (bench/bench_ui.py measures it).
DESKTOP_SWITCH_INTERVAL_S = 0.001
FIRST_LIBRARY_WAIT_S = 120.0  # then MCP starts anyway (said in the log by `warm_up`)
FIRST_PAGE_WAIT_S = 3.0       # after the first library settled: it may have failed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The desktop app takes no options of its own yet."""


def run(args: argparse.Namespace) -> int:
    """A spare library worker starts first of all: its imports overlap the app's own
    (settings and pydantic, the window, the gateway), so the first library opens without
    waiting for a new process. A second start only wakes the first (and kills the spare)."""
    gc.disable()  # until the first page: start-up makes little garbage (see `start_mcp`)
    from library.spare_worker import SpareWorkers

    spares = SpareWorkers()
    spares.start()
    try:
        return _run_once(spares)
    finally:
        spares.shutdown()  # the gateway's host shut it down already, unless it never began
        gc.enable()


def _run_once(spares: SpareWorkers) -> int:
    from serpent_tk.logs import setup_logging
    from serpent_tk.paths import app_dirs
    from serpent_tk.single_instance import AlreadyRunning, SingleInstance
    from serpent_tk.ui.shell.bus import UiBus
    from serpent_tk.ui.shell.events import ActivateWindow, CloseRequested

    dirs = app_dirs().ensure()
    setup_logging(dirs.log)
    bus = UiBus()
    instance = SingleInstance(dirs.instance_lock, dirs.instance_info,
                              on_message=lambda _message: bus.post(ActivateWindow()))
    try:
        instance.acquire()
    except AlreadyRunning as running:
        print(running, file=sys.stderr)
        return 0 if running.activated else 1
    from serpent_tk.ui.shell import theme
    from serpent_tk.ui.shell.desktop import NoDisplayError, create_root, enable_drops, run_window

    importing = threading.Thread(target=_import_the_app, name="start-imports", daemon=True)
    importing.start()  # beside the theme's Tcl, which lets Python threads run meanwhile
    try:
        root = create_root()
        theme.preload(root)
        drops = enable_drops(root)  # Tcl's work too, beside the imports
    except NoDisplayError as error:
        instance.release()
        print(error, file=sys.stderr)
        return 1
    finally:
        importing.join()
    from serpent_tk.settings import SettingsStore

    try:
        store = SettingsStore(dirs.settings_file)
        loaded = store.load()
        for notice in loaded.notices:
            log.warning("settings: %s", notice)
        log.info("Serpent starting (data dir %s)", dirs.data)
        signal.signal(signal.SIGTERM, lambda _signum, _frame: bus.post(CloseRequested()))
        return _run_desktop(dirs, store, loaded.settings, loaded.notices, bus,
                            lambda *args, **kwargs: run_window(*args, root=root, drops=drops,
                                                              **kwargs),
                            spares)
    finally:
        instance.release()
        log.info("Serpent stopped")


def _import_the_app() -> None:
    """Import what the window and its services are made of (on a thread, while the main
    thread makes the root and Tcl loads the theme); a module that fails to import fails
    again, and is reported, where it is used."""
    import importlib

    for name in ("serpent_tk.settings", "serpent_tk.ui.shell.main_window",
                 "serpent_tk.ui.actions.importing",
                 "serpent_tk.automation.gateway", "serpent_tk.credentials",
                 "serpent_tk.desktop_mcp"):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - said where it is imported again
            return
    try:  # Babel and the person's locale data: the first number the window writes needs them
        importlib.import_module("serpent_tk.ui.language.formats").warm_up()
    except Exception:  # noqa: BLE001 - said where a number is first written
        return


def _run_desktop(dirs: Any, store: SettingsStore, settings: Any, notices: list[str],
                 bus: Any, run_window: Any, spares: SpareWorkers) -> int:
    """settings → gateway (which owns the LibraryHost) → plugins → MCP service → window.

    The MCP stack and the plugins are imported and started on a background thread once the
    grid shows its first page (or the first library could not be opened), so neither the
    window nor its first page waits for them or competes with them for the GIL; the server
    starts accepting only once the window's first library is open, so an agent's first
    `library.list-open` already lists it. Shutdown in the opposite
    order: window, MCP service, gateway and its workers."""
    from serpent_tk.automation.gateway import Gateway, default_host
    from serpent_tk.credentials import CredentialStore
    from serpent_tk.desktop_mcp import DesktopMcpControls
    from serpent_tk.ui.shell.main_window import WindowServices

    sys.setswitchinterval(DESKTOP_SWITCH_INTERVAL_S)
    gateway = Gateway(store, host_factory=lambda on_event: default_host(on_event, spares))
    _open_ahead(gateway.host, settings.last_library)
    credentials = CredentialStore(dirs.credentials_file)
    unusable = credentials.problem()  # a folder or pipe in its place: say so, never hang
    if unusable is not None:
        log.warning("credentials: %s", unusable)
        notices = [*notices, unusable]

    def make_plugins() -> Any:
        from serpent_tk.plugins.manager import PluginManager

        return PluginManager(gateway, store, dirs.plugins, status_file=dirs.plugin_status)

    plugins = LatePlugins(make_plugins)

    def make_service() -> Any:
        from serpent_tk.mcp.endpoint import endpoint_file
        from serpent_tk.mcp.service import McpService

        return McpService(gateway, credentials, port=settings.mcp.port,
                          output_budget_kib=settings.mcp.output_budget_kib,
                          endpoint_file=endpoint_file(dirs))

    controls = DesktopMcpControls(credentials, make_service=make_service)
    first_library = threading.Event()  # the window's first library is open (or failed)
    first_page = threading.Event()     # the grid shows its first page

    def start_mcp() -> None:
        first_library.wait(FIRST_LIBRARY_WAIT_S)
        first_page.wait(FIRST_PAGE_WAIT_S)  # bounded: a library that failed shows no page
        gc.enable()  # off since `run` began: collections were ~10% of the start-up's time
        plugins.start()  # their host processes start beside the MCP stack's import
        controls.warm_up(settings.mcp.enabled and settings.mcp.auto_start, first_library)
        settle_after_start_up()

    warm_up = threading.Thread(target=start_mcp, name="mcp-start", daemon=True)
    try:
        services = WindowServices(bus=bus, gateway=gateway, settings_store=store,
                                  settings=settings, mcp=controls, credentials=credentials,
                                  notices=notices, first_library_settled=first_library.set,
                                  first_page_shown=first_page.set, plugins=plugins)
        return int(run_window(services, on_ready=warm_up.start))
    finally:
        first_library.set()  # closed before the library opened: nothing to wait for
        if warm_up.is_alive():
            warm_up.join(30)
        controls.shutdown()
        plugins.shutdown()
        gateway.shutdown()


class LatePlugins:
    """The plugin manager, imported and made with the MCP stack once the first page shows
    (its modules stay off the window's start); until then Settings → Plugins lists none, and
    it refreshes when the plugins are found (`PluginsChanged`). Thread-safe."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make = make
        self._manager: Any = None
        self._closed = False
        self._lock = threading.Lock()

    def start(self) -> None:
        with self._lock:
            if self._closed or self._manager is not None:
                return
            self._manager = self._make()
        self._manager.start()

    def states(self) -> list[Any]:
        manager = self._manager
        return list(manager.states()) if manager is not None else []

    def set_enabled(self, plugin_id: str, enabled: bool) -> Any:
        return self._started().set_enabled(plugin_id, enabled)

    def set_exposed(self, plugin_id: str, exposed: bool) -> Any:
        return self._started().set_exposed(plugin_id, exposed)

    def _started(self) -> Any:
        if self._manager is None:
            raise RuntimeError("The plugins are still starting; try again in a moment.")
        return self._manager

    def shutdown(self) -> None:
        with self._lock:
            self._closed = True
            manager = self._manager
        if manager is not None:
            manager.shutdown()


def _open_ahead(host: Any, last_library: Any) -> None:
    """Start opening the window's first library (in the spare worker) while the window is
    built; the session's `library.open`, through the gateway and audited as ever, then finds
    it open or opening (the host opens a folder once). Only a library the session would open
    first: choosing another, falling back and creating stay the session's; a failure here is
    the session's to meet again and report."""
    from serpent_tk.ui.shell.library_session import first_choice

    def run() -> None:
        action, path = first_choice(last_library)
        if action == "open":
            host.open(path)

    threading.Thread(target=run, name="library-open-ahead", daemon=True).start()


def settle_after_start_up() -> None:
    """Everything imported and built at start-up lives as long as the app: take it out of
    the garbage collector's full collections, which otherwise walk the MCP stack's and
    pydantic's objects and hold the GIL (stalling the window) for 100 ms and more."""
    gc.freeze()
