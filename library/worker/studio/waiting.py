"""A studio library opened (or its worker started again after a crash) while its database
server cannot be reached: the worker holds the folder, says so, and tries again by itself.

Runs in the worker process, before `Hello`. `PipeWait` is the `wait` that
`make_and_open.open_studio_library` calls between tries: the first time it sends `Waiting`
(the library's id and name from `studio.json`, and the DATABASE_UNAVAILABLE the host answers
calls with meanwhile), and it waits out the pause reading the pipe, where only `Shutdown`
can come (the host sends no call to a waiting worker). `Shutdown`, or the main process going
away, ends the wait (`StopWaiting`): the library closes without having been served.
"""

from __future__ import annotations

import logging
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING

from pydantic import ValidationError

from library.errors import LibraryError
from library.protocol import ErrorInfo, Shutdown, Waiting, decode_to_worker, json_safe
from library.worker.sender import Sender

if TYPE_CHECKING:  # not imported at run time: a local library's worker never loads psycopg
    from library.worker.studio.make_and_open import Claim

log = logging.getLogger("library.worker.studio")


class StopWaiting(Exception):
    """The host closed the library (or went away) while it waited for its server."""


class PipeWait:
    def __init__(self, conn: Connection, sender: Sender) -> None:
        self.conn = conn
        self.sender = sender
        self.said: str | None = None  # the message sent with `Waiting`, once

    def __call__(self, claim: Claim, error: LibraryError, pause: float) -> None:
        if self.said is None:
            self.said = error.message
            log.warning("the studio database cannot be reached; waiting for it: %s",
                        error.message)
            self.sender.send(Waiting(library_id=claim.library_id, name=claim.name,
                                     path=str(claim.root), error=ErrorInfo(
                                         code=error.code, message=error.message,
                                         details=json_safe(error.details))))
        try:
            if not self.conn.poll(pause):
                return
            data = self.conn.recv_bytes()
        except (EOFError, OSError):
            raise StopWaiting from None
        try:
            message = decode_to_worker(data)
        except ValidationError:
            log.warning("ignored an unreadable message while waiting for the studio database")
            return
        if isinstance(message, Shutdown):
            raise StopWaiting
        log.warning("ignored %s while waiting for the studio database", message.type)
