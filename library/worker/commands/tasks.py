"""`task.list`, `task.get`, `task.cancel`: background tasks and their progress; and the task
runner started beside the worker's requests.

Runs in the worker process. All three are reads on a reader thread, so they answer at once
even while an import holds the writer: `task.cancel` raises the task's cancel flag on the
`TaskBoard` and waits (briefly) until a running task has stopped at its next item; the
runner or the command itself then records the cancellation. What a task finished stays.
The previews made after an import are a task kept in memory only (`files.previews`): get
and cancel know it; it is not listed.
"""

from __future__ import annotations

from library.errors import INVALID_ARGUMENT, LibraryError
from library.schemas import Task, TaskCancelIn, TaskGetIn, TaskListIn, TaskListOut
from library.worker.commands import background
from library.worker.context import ReadContext
from library.worker.files import previews
from library.worker.store.identity import to_datetime, utc_now
from library.worker.tasks import taskrows
from library.worker.tasks.taskboard import board_for
from library.worker.tasks.taskrunner import start as start_runner

CANCEL_WAIT_SECONDS = 10.0

background(start_runner)


def list_tasks(ctx: ReadContext, args: TaskListIn) -> TaskListOut:
    conditions: list[str] = []
    values: list[str] = []
    if args.status:
        conditions.append(f"status IN ({','.join('?' * len(args.status))})")
        values.extend(args.status)
    if args.cursor is not None:
        conditions.append("id < ?")
        values.append(_read_cursor(args.cursor))
    where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
    rows = ctx.conn.execute(f"SELECT * FROM tasks {where} ORDER BY id DESC LIMIT ?",
                            (*values, args.limit + 1)).fetchall()
    more = len(rows) > args.limit
    rows = rows[:args.limit]
    board = board_for(ctx.layout.root)
    return TaskListOut(items=[taskrows.to_task(r, board) for r in rows],
                       next_cursor=f"t{rows[-1]['id']}" if more else None)


def get_task(ctx: ReadContext, args: TaskGetIn) -> Task:
    found = previews.task(ctx.layout.root, args.task_id)
    if found is not None:
        return found
    return taskrows.to_task(taskrows.load(ctx.conn, args.task_id), board_for(ctx.layout.root))


def cancel_task(ctx: ReadContext, args: TaskCancelIn) -> Task:
    making = previews.cancel(ctx.layout.root, args.task_id, CANCEL_WAIT_SECONDS)
    if making is not None:
        return making
    board = board_for(ctx.layout.root)
    row = taskrows.load(ctx.conn, args.task_id)
    if row["status"] in taskrows.FINISHED:
        return taskrows.to_task(row)  # nothing left to stop
    stopped = board.cancel(args.task_id)
    if stopped is not None:
        stopped.wait(CANCEL_WAIT_SECONDS)
    ended = board.outcome(args.task_id)
    if ended is not None and ended != "cancelled":  # it finished before it could stop
        board.forget_cancel(args.task_id)
        return taskrows.to_task(row, None, status=ended, cancel_requested=False)
    live = board.live(args.task_id)
    done = live.done if live is not None else row["done"]
    return taskrows.to_task(row, None, status="cancelled", done=done,
                            finished_at=to_datetime(utc_now()),
                            message="Cancelled; what it finished stays.")


def _read_cursor(cursor: str) -> str:
    if not (cursor.startswith("ttsk_") and cursor[1:].replace("_", "").isalnum()):
        raise LibraryError(INVALID_ARGUMENT, "cursor: not a cursor from task.list",
                           field="cursor")
    return cursor[1:]
