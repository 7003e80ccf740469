"""The worker process's entry point (`worker_main`, the spawn target) and its startup.

Runs in the worker process. Imports nothing from `serpent_tk`, so `multiprocessing`'s spawn
(and a frozen build's `freeze_support()`) can start it directly. The first message on the
pipe is `Hello` after recovery, or `StartupFailed` naming why the library cannot be served
(a studio library whose database server is away sends `Waiting` first, `studio.waiting`).
An unexpected crash in our own code exits with `protocol.CRASH_EXIT_CODE`. A worker ignores
SIGINT: Ctrl-C in a terminal reaches the whole process group, and the main process closes its
workers in order (a worker killed by it would be restarted during the shutdown).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import traceback
from multiprocessing.connection import Connection
from typing import Any

from library import private_paths
from library.errors import INTERNAL, LibraryError
from library.protocol import (
    CRASH_EXIT_CODE,
    PROTOCOL_VERSION,
    ErrorInfo,
    Hello,
    StartupFailed,
    json_safe,
)
from library.worker.sender import Sender


class PipeLogHandler(logging.Handler):
    """Forwards warnings and errors to the main process's log as `worker.log` events (the
    message and its traceback apart: the main process's log keeps every record on one line
    and puts a traceback under it)."""

    def __init__(self, sender: Sender) -> None:
        super().__init__(logging.WARNING)
        self.sender = sender

    def emit(self, record: logging.LogRecord) -> None:
        with contextlib.suppress(Exception):
            trace = record.exc_text
            if record.exc_info and not trace:
                trace = logging.Formatter().formatException(record.exc_info)
            self.sender.event("worker.log", {"level": record.levelname,
                                             "message": record.getMessage(),
                                             "traceback": trace})


def worker_main(conn: Connection, opening: dict[str, Any]) -> None:
    """Spawn target. `opening` is {"action": "open", "path"}, {"action": "create",
    "parent", "name"} (and "database" for a studio library), {"action": "import",
    "archive", "parent", "replay"} or {"action": "repair", "path"} (the damaged library's
    folder), each with `privatePaths` (Serpent's own folders, see `library.private_paths`)
    and `machine` (this Serpent's name in a studio library)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    # Reads answer quickly even while another thread computes (thumbnails, analysis): the
    # GIL is handed over after 1 ms instead of Python's default 5 ms.
    sys.setswitchinterval(0.001)
    sender = Sender(conn)
    private_paths.configure(opening.get(private_paths.OPENING_KEY) or ())
    log = logging.getLogger("library.worker")
    log.addHandler(PipeLogHandler(sender))
    log.setLevel(logging.INFO)
    log.propagate = False
    try:
        code = _run(conn, sender, opening)
    except BaseException:
        traceback.print_exc(file=sys.stderr)
        try:
            log.error("library worker crashed", exc_info=True)
        finally:
            os._exit(CRASH_EXIT_CODE)
    conn.close()
    sys.exit(code)


def import_ahead() -> None:
    """Import what opening and serving a library need (the store, the request loop, every
    command module), build the validators of the first requests and do the commands'
    `@warm_up` work: a spare worker does it before it is told which library to open."""
    from library.worker import commands, server  # noqa: F401
    from library.worker.store import opening  # noqa: F401

    commands.load()
    commands.prepare_first_asked()


def _library_path(opening: dict[str, Any]) -> tuple[Any, dict[str, Any] | None]:
    """The folder to open: given, newly created, unpacked from an exported archive, or
    recovered from a damaged library (then with the repair's report)."""
    if opening["action"] == "open":
        return opening["path"], None
    if opening["action"] == "import":
        from library.worker.store.unpacking import unpack_library

        return unpack_library(opening["archive"], opening["parent"], opening.get("replay")), None
    if opening["action"] == "repair":
        from library.worker.repair.recover import repair_library

        return repair_library(opening["path"])
    if opening.get("database"):
        from library.worker.studio.make_and_open import create_studio_library

        return create_studio_library(opening["parent"], opening["name"],
                                     opening["database"]), None
    from library.worker.store.opening import create_library

    return create_library(opening["parent"], opening["name"]), None


def _run(conn: Connection, sender: Sender, opening: dict[str, Any]) -> int:
    from library.worker.store.opening import open_library
    from library.worker.studio.waiting import PipeWait, StopWaiting

    try:
        path, repaired = _library_path(opening)
        library = open_library(str(path), opening.get("machine"), PipeWait(conn, sender))
        if repaired is not None:
            library.recovery["repair"] = repaired
    except StopWaiting:  # closed while its studio database was away: nothing was served
        return 0
    except LibraryError as error:
        sender.send(StartupFailed(error=ErrorInfo(code=error.code, message=error.message,
                                                  details=json_safe(error.details))))
        return 0
    except Exception:
        logging.getLogger("library.worker").exception("library could not be opened")
        sender.send(StartupFailed(error=ErrorInfo(
            code=INTERNAL, message="The library could not be opened because of an internal "
            "error; see the log.", details={})))
        return 0
    clean = False
    try:
        # Hello first: the commands' imports below overlap the host's own work, and calls
        # sent meanwhile wait in the pipe
        sender.send(Hello(protocol=PROTOCOL_VERSION, pid=os.getpid(),
                          library_id=library.library_id, name=library.name,
                          path=str(library.layout.root), schema_version=library.schema_version,
                          change_sequence=library.change_sequence,
                          recovery=json_safe(library.recovery)))
        from library.worker.server import WorkerServer

        server = WorkerServer(library, conn, sender)
        clean = server.serve()
    finally:
        library.close(clean=clean)
    _delete_if_requested(library.layout.root, library.library_id)
    return 0


def _delete_if_requested(root: Any, library_id: str) -> None:
    """`library.delete-from-disk` was confirmed: now that the library is closed, move its
    folder aside for the main process to remove (see `library.deletion`)."""
    from library import deletion

    if deletion.requested(root) != library_id:
        return
    try:
        deletion.retire(root, library_id)
    except (OSError, LibraryError) as error:
        logging.getLogger("library.worker").warning("the library folder could not be moved "
                                                    "aside for deletion: %s", error)
