"""Background tasks: the runner thread that works through queued task rows, and the
bookkeeping of long commands (refresh, export, a long import) that show up as tasks while
they run.

Runs in the worker process. The runner is one thread per worker with its own read
connection; it does the slow part of a job (decoding images) without any lock and takes the
write lock only for the short transactions that record a batch of results together with the
task's progress and checkpoint, so it never blocks other commands for long and a crash loses
at most the batch in hand. At startup, before serving, tasks left `running` by a crash are
queued again when their kind can resume (analysis) or marked `interrupted`. On a clean close
a running job stops at the next item and goes back to `queued`: it continues next time. A
full disk fails a task with DISK_FULL (not INTERNAL), and while the runner cannot even record
a task's start it waits and tries again: freeing space lets the tasks go on.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from library.catalogue import task_kinds
from library.errors import BUSY, DISK_FULL, INTERNAL, ErrorCode, LibraryError
from library.protocol import CallMeta, TaskProgress
from library.worker.context import TaskContext
from library.worker.services import Services
from library.worker.store import diskspace
from library.worker.store.database import translate
from library.worker.store.identity import utc_now
from library.worker.store.transaction import WriteTx, background_write
from library.worker.tasks import taskrows
from library.worker.tasks.taskboard import TaskBoard, board_for

log = logging.getLogger("library.worker.tasks")

IDLE_WAIT = 5.0
JOIN_SECONDS = 30.0
Outcome = Literal["done", "cancelled", "paused"]


@dataclass
class JobContext:
    """What a job (the code behind one task kind) works with."""

    services: Services
    conn: sqlite3.Connection  # the runner's own read connection
    board: TaskBoard
    stopping: threading.Event
    task_id: str
    command: str  # whose work it is, for the audit trail (its writes are the task kind's)
    meta: CallMeta
    params: dict[str, Any]
    checkpoint: str | None
    done: int
    total: int | None
    result: dict[str, Any] = field(default_factory=dict)  # counts so far, kept on resume
    final: str = "failed"  # the status the row has once the job stopped
    kind: str = ""  # the task's kind (library.catalogue.task_kinds)
    _last_event: float = field(default=0.0)

    def should_stop(self) -> bool:
        return self.stopping.is_set() or self.board.cancel_requested(self.task_id)

    def outcome(self) -> Outcome:
        """Why the job stops early: cancelled by someone, or paused by a closing library."""
        return "cancelled" if self.board.cancel_requested(self.task_id) else "paused"

    def progress(self, message: str = "", *, force: bool = False) -> None:
        """Live progress (task.get sees it at once) and a `task.progress` event (at most
        every 250 ms)."""
        self.board.progress(self.task_id, self.done, self.total, message)
        now = time.monotonic()
        if force or now - self._last_event >= 0.25:
            self._last_event = now
            self.services.emit(TaskProgress(
                library_id=self.services.library_id, command=self.command,
                task_id=self.task_id, kind=self.kind, done=self.done, total=self.total or 0,
                message=message))

    def commit(self, write: Callable[[WriteTx], None], *, message: str = "",
               outcome: Outcome | None = None) -> None:
        """Record a batch (`write`) with the task's progress, checkpoint and `result` in one
        transaction; with `outcome`, also the task's end (or its pause)."""
        fields: dict[str, Any] = {"done": self.done, "total": self.total,
                                  "checkpoint": self.checkpoint, "message": message,
                                  "result": dict(self.result)}
        if outcome == "paused":
            fields.update(status="queued", message="Paused: the library was closed. It "
                          "continues when the library is opened again.")
        elif outcome is not None:
            fields.update(status=outcome, finished_at=utc_now())
        with self.services.write_lock, background_write(self.services, self.kind,
                                                        self.meta) as tx:
            write(tx)
            taskrows.update(tx.conn, self.task_id, **fields)
            tx.touch("task", [self.task_id])
            tx.summary = message or self.kind
        if outcome is not None:
            self.final = fields["status"]
        self.progress(fields["message"], force=True)


Job = Callable[[JobContext], None]
JOBS: dict[str, tuple[str, Job]] = {}  # kind -> (command for the audit trail, job)
# kind -> what to clear away when a task of that kind was interrupted (given its params)
CLEANUPS: dict[str, Callable[[dict[str, Any]], None]] = {}


def job(kind: str, command: str) -> Callable[[Job], Job]:
    """Register the code that runs queued tasks of `kind` (they resume after a crash); its
    progress is `command`'s work in the audit trail, its writes are recorded under `kind`."""
    if kind not in task_kinds.TASK_KINDS:
        raise ValueError(f"{kind!r} is not a task kind of library.catalogue.task_kinds")

    def register(function: Job) -> Job:
        JOBS[kind] = (command, function)
        return function
    return register


# -- the runner -----------------------------------------------------------------------------
def start(services: Services, stopping: threading.Event) -> Callable[[], None]:
    """Settle tasks a crash left running, then start the runner thread. Call before
    serving; returns the function that stops the runner (after `stopping` is set)."""
    recover_interrupted(services)
    thread = threading.Thread(target=_run_forever, args=(services, stopping),
                              name="tasks", daemon=True)
    thread.start()
    board = board_for(services.layout.root)

    def stop() -> None:
        stopping.set()
        board.wake.set()
        thread.join(JOIN_SECONDS)
    return stop


def recover_interrupted(services: Services) -> None:
    conn = services.writer
    rows = conn.execute("SELECT id, kind, params FROM tasks WHERE status = 'running'"
                        ).fetchall()
    if not rows:
        return
    now = utc_now()
    for kind in sorted({row["kind"] for row in rows}):  # each kind's own change
        of_kind = [row for row in rows if row["kind"] == kind]
        with services.write_lock, background_write(services, kind) as tx:
            for row in of_kind:
                if kind in JOBS:
                    taskrows.update(tx.conn, row["id"], status="queued",
                                    message="Resumed after the library closed unexpectedly.")
                else:
                    _clean_up(row)
                    taskrows.update(tx.conn, row["id"], status="interrupted", finished_at=now,
                                    message="Stopped when the library closed unexpectedly; "
                                    "nothing half-done was kept. Run it again.")
                tx.touch("task", [row["id"]])
            tx.summary = f"Settled {len(of_kind)} interrupted task(s)"


def _clean_up(row: sqlite3.Row) -> None:
    cleanup = CLEANUPS.get(row["kind"])
    if cleanup is None:
        return
    try:
        cleanup(json.loads(row["params"] or "{}"))
    except Exception:
        log.exception("could not clear away what task %s left", row["id"])


def _run_forever(services: Services, stopping: threading.Event) -> None:
    board = board_for(services.layout.root)
    try:
        conn = services.reader()
    except sqlite3.Error:
        log.exception("the task runner could not open the library")
        return
    waiting = False
    try:
        while not stopping.is_set():
            board.wake.clear()
            _settle_cancelled(services, conn, board)
            row = conn.execute("SELECT * FROM tasks WHERE status = 'queued' ORDER BY id "
                               "LIMIT 1").fetchone()
            if row is None:
                board.wake.wait(IDLE_WAIT)
                continue
            try:
                _run_one(services, conn, board, stopping, row)
                waiting = False
            except LibraryError as error:
                if error.code not in (DISK_FULL, BUSY):
                    raise
                if not waiting:  # once, not at every try: freed space, and it goes on
                    log.warning("background tasks wait: %s", error.message)
                waiting = True
                board.wake.wait(IDLE_WAIT)
    except Exception:
        if not stopping.is_set():
            log.exception("the task runner stopped because of an error")
    finally:
        conn.close()


def _known_failure(services: Services, error: Exception) -> LibraryError | None:
    """A task's failure as its stable code (a full disk is DISK_FULL, not INTERNAL)."""
    if isinstance(error, LibraryError):
        return error
    if isinstance(error, sqlite3.Error):
        translated = translate(error)
        return translated if translated.code != INTERNAL else None
    if diskspace.is_disk_full(error):
        return diskspace.disk_full_at(services.layout.root)
    return None


def _settle_cancelled(services: Services, conn: sqlite3.Connection, board: TaskBoard) -> None:
    """Record cancellations of tasks that were still queued."""
    for task_id in board.pending_cancels():
        row = conn.execute("SELECT status, kind FROM tasks WHERE id = ?", (task_id,)
                           ).fetchone()
        if row is None or row["status"] in taskrows.FINISHED:
            board.forget_cancel(task_id)
        elif row["status"] == "queued":
            with services.write_lock, background_write(services, row["kind"]) as tx:
                taskrows.update(tx.conn, task_id, status="cancelled", finished_at=tx.now,
                                message="Cancelled before it started.")
                tx.touch("task", [task_id])
            board.forget_cancel(task_id)
        # running: its own code sees the request and stops


def _run_one(services: Services, conn: sqlite3.Connection, board: TaskBoard,
             stopping: threading.Event, row: sqlite3.Row) -> None:
    task_id = row["id"]
    meta = taskrows.meta_of(row)
    if row["kind"] not in JOBS:
        with services.write_lock, background_write(services, row["kind"], meta) as tx:
            taskrows.update(tx.conn, task_id, status="failed", finished_at=tx.now,
                            error_code=INTERNAL, message="This Serpent cannot run tasks of "
                            f"kind {row['kind']!r}.")
            tx.touch("task", [task_id])
        return
    command, run = JOBS[row["kind"]]
    context = JobContext(services, conn, board, stopping, task_id, command, meta,
                         json.loads(row["params"] or "{}"), row["checkpoint"], row["done"],
                         row["total"], json.loads(row["result"] or "{}"), kind=row["kind"])
    with services.write_lock, background_write(services, row["kind"], meta) as tx:
        taskrows.update(tx.conn, task_id, status="running",
                        started_at=row["started_at"] or tx.now)
        tx.touch("task", [task_id])
    board.started(task_id, row["done"], row["total"], row["message"])
    try:
        run(context)
    except Exception as error:
        known = _known_failure(services, error)
        code = known.code if known is not None else INTERNAL
        if code == INTERNAL:
            log.exception("task %s (%s) failed", task_id, row["kind"])
        message = known.message if known is not None else \
            "The task stopped because of an internal error; see the log."
        with contextlib.suppress(Exception), services.write_lock, background_write(
                services, row["kind"], meta) as tx:
            taskrows.update(tx.conn, task_id, status="failed", finished_at=tx.now,
                            error_code=code, message=message, done=context.done)
            tx.touch("task", [task_id])
    finally:
        board.finished(task_id, context.final)


# -- long commands shown as tasks -------------------------------------------------------------
class Tracked:
    """A long command (refresh, export, a long import) running on the writer thread, visible
    as a task."""

    def __init__(self, ctx: TaskContext, task_id: str, total: int | None,
                 kind: str = "") -> None:
        self.ctx = ctx
        self.task_id = task_id
        self.kind = kind
        self.board = board_for(ctx.layout.root)
        self.total = total
        self.done = 0
        self.message = ""
        self.result: dict[str, Any] | None = None

    def cancelled(self) -> bool:
        return self.ctx.cancelled() or self.board.cancel_requested(self.task_id)

    def progress(self, done: int, total: int | None, message: str = "", *,
                 force: bool = False) -> None:
        self.done, self.total, self.message = done, total, message
        self.board.progress(self.task_id, done, total, message)
        self.ctx.progress(done, total or 0, message, force=force, task_id=self.task_id,
                          kind=self.kind)


@contextlib.contextmanager
def tracked(ctx: TaskContext, kind: str, total: int | None = None,
            params: dict[str, Any] | None = None) -> Iterator[Tracked]:
    """Show the command as a running task; record how it ended (done, cancelled, failed).

    The command sets `tracked.result` (a dict) when it finishes; a crash leaves the row
    `running` and the next start marks it `interrupted`.
    """
    with ctx.transaction() as tx:
        task_id = taskrows.create(tx.conn, kind, params=params or {}, total=total,
                                  actor_json=tx.actor_json, now=tx.now, status="running")
        tx.touch("task", [task_id])
    handle = Tracked(ctx, task_id, total, kind)
    handle.board.started(task_id, 0, total)
    ctx.progress(0, total or 0, force=True, task_id=task_id,
                 kind=kind)  # who follows it knows it now
    status = "failed"
    try:
        yield handle
    except BaseException as error:
        code = error.code if isinstance(error, LibraryError) else INTERNAL
        status = "cancelled" if code == ErrorCode.CANCELLED else "failed"
        with contextlib.suppress(Exception), ctx.transaction() as tx:
            taskrows.update(tx.conn, task_id, status=status, finished_at=tx.now,
                            error_code=None if status == "cancelled" else code,
                            done=handle.done, total=handle.total,
                            message=getattr(error, "message", "") or "Stopped by an error.")
            tx.touch("task", [task_id])
        raise
    else:
        status = "cancelled" if handle.cancelled() else "done"
        with ctx.transaction() as tx:
            taskrows.update(tx.conn, task_id, status=status, finished_at=tx.now,
                            done=handle.done, total=handle.total, result=handle.result,
                            message=handle.message or status)
            tx.touch("task", [task_id])
    finally:
        handle.board.finished(task_id, status)
