"""Live across machines: the other Serpents' changes to a studio library, as this machine's
own `library.changed` events; and whether the database can be reached.

Runs in the worker process, on a thread of its own with its own connection. Every commit
notifies `serpent_changes` with its change sequence (`WriteTx`); this thread `LISTEN`s, and
on each notification reads the change log after the last sequence it passed on and emits a
`LibraryChanged` for every change another machine wrote (this machine's own changes were
emitted by their transactions), with the same kinds, entity ids, command and actor: the
window and MCP sessions get them as if they were local. The caches that depend on the
library's state are keyed by its change sequence (`livecounts`, the search's counts), so
they follow by themselves. When the connection is lost the thread says so
(`on_status(False, why)`), connects again with a growing pause (0.25 s to 5 s), says so
again and catches up on what it missed; a notification lost on the way is caught up by the
next one, or by the poll every `POLL_SECONDS`.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg

from library.protocol import LibraryChanged
from library.schemas.common import Actor
from library.worker.services import Services
from library.worker.store.transaction import MAX_EVENT_IDS, NOTIFY_CHANNEL
from library.worker.studio.pgconn import PgConnection, StudioDatabaseError

log = logging.getLogger("library.worker.studio")

POLL_SECONDS = 5.0
WAKE_SECONDS = 0.2  # the longest a wait for notifications lasts: how soon a close is seen
MAX_PAUSE = 5.0
BATCH = 500

Status = Callable[[bool, str], None]  # (reachable, what went wrong)


class ChangeListener:
    def __init__(self, services: Services, connect: Callable[[], PgConnection],
                 machine: str, sequence: int, on_status: Status) -> None:
        self.services = services
        self._connect = connect
        self.machine = machine
        self.sequence = sequence  # the last change passed on (or made here)
        self._on_status = on_status
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="studio-listener",
                                        daemon=True)
        self._reachable = True
        self._last_poll = time.monotonic()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(10)

    # -- the thread ---------------------------------------------------------------------
    def _run(self) -> None:
        pause = 0.25
        while not self._stopping.is_set():
            conn = None
            try:
                conn = self._connect()
                conn.raw.execute(f"LISTEN {NOTIFY_CHANNEL}")
                self._status(True, "")
                pause = 0.25
                self._listen(conn)
            except (StudioDatabaseError, psycopg.Error) as error:
                problem = getattr(error, "problem", None)
                self._status(False, problem.message if problem is not None else str(error))
            except Exception:
                log.exception("the studio listener failed; it starts again")
            finally:
                if conn is not None:
                    conn.close()
            self._stopping.wait(pause)
            pause = min(pause * 2, MAX_PAUSE)

    def _listen(self, conn: PgConnection) -> None:
        self._catch_up(conn)  # what happened while not listening
        raw = conn.raw
        while not self._stopping.is_set():
            notified = False
            for _note in raw.notifies(timeout=WAKE_SECONDS, stop_after=1):
                notified = True
            if notified or self._due():
                self._catch_up(conn)

    def _due(self) -> bool:
        now = time.monotonic()
        if now - self._last_poll >= POLL_SECONDS:
            self._last_poll = now
            return True
        return False

    def _catch_up(self, conn: PgConnection) -> None:
        """Pass on every change after `sequence` that another machine wrote."""
        while True:
            rows = conn.execute(
                "SELECT seq, command, task_kind, source, credential, label, kinds, entity_ids, "
                "machine "
                "FROM change_log WHERE seq > ? ORDER BY seq LIMIT ?",
                (self.sequence, BATCH)).fetchall()
            if not rows:
                return
            name = None
            for row in rows:
                kinds = json.loads(row["kinds"])
                if row["machine"] != self.machine:
                    if "library" in kinds and name is None:
                        name = conn.execute("SELECT name FROM library_state").fetchone()[0]
                    self.services.emit(_changed(self.services.library_id, row, kinds, name))
                self.sequence = max(self.sequence, row["seq"])
            if len(rows) < BATCH:
                return

    def _status(self, reachable: bool, why: str) -> None:
        if reachable == self._reachable:
            return
        self._reachable = reachable
        if not reachable:
            log.warning("the studio database cannot be reached: %s", why)
        try:
            self._on_status(reachable, why)
        except Exception:
            log.exception("could not pass on the studio database's state")


def _changed(library_id: str, row: Any, kinds: list[str], name: str | None) -> LibraryChanged:
    actor = Actor.model_validate({"source": row["source"], "credential": row["credential"],
                                  "label": row["label"]})
    return LibraryChanged(library_id=library_id, change_sequence=row["seq"], kinds=kinds,
                          command=row["command"], task_kind=row["task_kind"], actor=actor,
                          entity_ids=json.loads(row["entity_ids"])[:MAX_EVENT_IDS],
                          library_name=name if "library" in kinds else None)
