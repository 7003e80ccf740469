"""Task rows: create, change and read the `tasks` table; turn a row into a `Task`.

Runs in the worker process (any thread, with the connection it is given; writes only
inside a `WriteTx`). A task is queued, running, then done, failed, cancelled or interrupted.
Live progress of a running task lives on the `TaskBoard` and is laid over the row here.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from library.catalogue import task_kinds
from library.errors import NOT_FOUND, LibraryError
from library.protocol import CallMeta
from library.schemas import Task
from library.worker.store.identity import new_id, to_datetime
from library.worker.tasks.taskboard import TaskBoard

FINISHED = ("done", "failed", "cancelled", "interrupted")
KEEP_FINISHED = 500


def create(conn: sqlite3.Connection, kind: str, *, params: dict[str, Any],
           total: int | None, actor_json: str, now: str, status: str = "queued",
           message: str = "") -> str:
    if kind not in task_kinds.TASK_KINDS:
        raise ValueError(f"{kind!r} is not a task kind of library.catalogue.task_kinds")
    task_id = new_id("tsk")
    finished = now if status in FINISHED else None
    started = now if status != "queued" else None
    conn.execute("INSERT INTO tasks (id, kind, status, params, total, message, actor, "
                 "created_at, started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 (task_id, kind, status, json.dumps(params), total, message, actor_json, now,
                  started, finished))
    _prune(conn)
    return task_id


def update(conn: sqlite3.Connection, task_id: str, **fields: Any) -> None:
    """Set columns of one task (`result` is stored as JSON)."""
    if "result" in fields and fields["result"] is not None:
        fields["result"] = json.dumps(fields["result"])
    columns = ", ".join(f"{name} = ?" for name in fields)
    conn.execute(f"UPDATE tasks SET {columns} WHERE id = ?", (*fields.values(), task_id))


def load(conn: sqlite3.Connection, task_id: str) -> sqlite3.Row:
    row: sqlite3.Row | None = conn.execute("SELECT * FROM tasks WHERE id = ?",
                                           (task_id,)).fetchone()
    if row is None:
        raise LibraryError(NOT_FOUND, "There is no task with this id.", field="taskId",
                           taskId=task_id)
    return row


def meta_of(row: sqlite3.Row) -> CallMeta:
    """Who queued the task: its later writes carry the same audit label."""
    try:
        actor = json.loads(row["actor"])
        return CallMeta(source=actor.get("source", "system"),
                        credential=actor.get("credential"),
                        label=actor.get("label", "Serpent"))
    except (ValueError, TypeError):
        return CallMeta()


def to_task(row: sqlite3.Row, board: TaskBoard | None = None, **override: Any) -> Task:
    done, total, message = row["done"], row["total"], row["message"]
    active = board is not None and row["status"] not in FINISHED
    live = board.live(row["id"]) if board is not None and row["status"] == "running" else None
    if live is not None:
        done, total, message = live.done, live.total, live.message or message
    values: dict[str, Any] = {
        "id": row["id"], "kind": row["kind"], "status": row["status"], "done": done,
        "total": total, "message": message, "error_code": row["error_code"],
        "created_at": to_datetime(row["created_at"]),
        "started_at": to_datetime(row["started_at"]) if row["started_at"] else None,
        "finished_at": to_datetime(row["finished_at"]) if row["finished_at"] else None,
        "result": json.loads(row["result"]) if row["result"] else None,
        "cancel_requested": bool(active and board and board.cancel_requested(row["id"]))}
    values.update(override)
    return Task(**values)


def _prune(conn: sqlite3.Connection) -> None:
    """Keep the newest finished tasks only; queued and running ones always stay."""
    conn.execute(f"DELETE FROM tasks WHERE status IN ({','.join('?' * len(FINISHED))}) AND "
                 f"id NOT IN (SELECT id FROM tasks WHERE status IN "
                 f"({','.join('?' * len(FINISHED))}) ORDER BY id DESC LIMIT ?)",
                 (*FINISHED, *FINISHED, KEEP_FINISHED))
