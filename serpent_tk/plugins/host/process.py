"""The plugin host's entry point (`host_main`, the multiprocessing spawn target).

Runs in the plugin host process. Its first message is `Loaded` with the plugin's
declarations, or `LoadFailed` with why it cannot run; then `HostRunner` serves until told to
stop. Ctrl-C is the main process's to handle; a plugin's stray threads never keep the host
alive after it was told to stop.
"""

from __future__ import annotations

import logging
import os
import signal
import traceback
from multiprocessing.connection import Connection
from typing import Any

from serpent_tk.plugins.host.loader import LoadError, declaration, load_plugin
from serpent_tk.plugins.host.runner import HostRunner, PipeLog, Sender
from serpent_tk.plugins.wire import Loaded, LoadFailed


def host_main(conn: Connection, source: dict[str, Any]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sender = Sender(conn)
    root = logging.getLogger()
    root.addHandler(PipeLog(sender))
    root.setLevel(logging.INFO)
    try:
        try:
            plugin, manifest = load_plugin(source)
            declared = declaration(plugin)
        except LoadError as error:
            sender.send(LoadFailed(message=error.message, trace=error.trace))
            return
        except BaseException as error:
            sender.send(LoadFailed(message=f"it could not be loaded ({type(error).__name__}: "
                                           f"{error})", trace=traceback.format_exc()))
            return
        sender.send(Loaded(declaration=declared))
        HostRunner(conn, sender, plugin, manifest).serve()
    finally:
        logging.shutdown()
        os._exit(0)  # a hung handler thread must not keep the process alive
