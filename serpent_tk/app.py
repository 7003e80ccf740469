"""Composition root of the desktop app: wires the pieces and owns start/stop order.

Runs on the main thread. Nothing imports this module except the CLI table.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys

from serpent_tk.logs import setup_logging
from serpent_tk.paths import DEFAULT_LIBRARY_NAME, app_dirs
from serpent_tk.settings import SettingsStore
from serpent_tk.single_instance import AlreadyRunning, SingleInstance

log = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The desktop app takes no options of its own yet."""


def run(args: argparse.Namespace) -> int:
    dirs = app_dirs().ensure()
    setup_logging(dirs.log)
    from serpent_tk.ui.bus import UiBus
    from serpent_tk.ui.desktop import DesktopContext, NoDisplayError, run_window
    from serpent_tk.ui.events import ActivateWindow, CloseRequested

    bus = UiBus()
    instance = SingleInstance(dirs.instance_lock, dirs.instance_info,
                              on_message=lambda _message: bus.post(ActivateWindow()))
    try:
        instance.acquire()
    except AlreadyRunning as running:
        print(running, file=sys.stderr)
        return 0 if running.activated else 1
    try:
        loaded = SettingsStore(dirs.settings_file).load()
        for notice in loaded.notices:
            log.warning("settings: %s", notice)
        log.info("Serpent starting (data dir %s)", dirs.data)
        signal.signal(signal.SIGTERM, lambda _signum, _frame: bus.post(CloseRequested()))
        context = DesktopContext(bus=bus, library_name=DEFAULT_LIBRARY_NAME,
                                 notices=loaded.notices)
        return run_window(context)
    except NoDisplayError as error:
        print(error, file=sys.stderr)
        return 1
    finally:
        instance.release()
        log.info("Serpent stopped")
