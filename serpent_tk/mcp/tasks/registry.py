"""The MCP tasks of one server run, each bound to the credential that created it, and what
they hear from the worker: progress (by ticket, or by the Serpent task they follow) and the
ends of Serpent tasks (`LibraryChanged` of kind `task`).

Runs on the listener loop; `publish` (a gateway listener) is the one thread-safe entry. A
task is kept `ttl` after its creation and at least `KEEP_AFTER_END_S` after it ended; a
credential may have `MAX_RUNNING` tasks working and `MAX_KEPT` in all (the oldest ended ones
go first). Task ids are random (144 bits): not guessable, and useless to another credential.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from serpent_tk.automation.events import LibraryChanged, TaskProgress

Era = Literal["2025-11-25", "2026-07-28"]
Status = Literal["working", "input_required", "completed", "failed", "cancelled"]
Send = Callable[[int, int, str], Awaitable[None]]

DEFAULT_TTL_MS = 60 * 60 * 1000
MIN_TTL_MS = 60 * 1000
MAX_TTL_MS = 24 * 60 * 60 * 1000
KEEP_AFTER_END_S = 60.0
MAX_RUNNING = 16
MAX_KEPT = 200


def clamp_ttl(asked: object) -> int:
    if not isinstance(asked, int) or isinstance(asked, bool):
        return DEFAULT_TTL_MS
    return max(MIN_TTL_MS, min(MAX_TTL_MS, asked))


def iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class ProgressFeed:
    """Latest numbers of some work, sent by one coroutine in order: never a smaller
    `progress` than the last one sent (MCP's rule), bursts coalesced."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._latest: tuple[int, int, str] | None = None
        self._sent = -1
        self._dirty = asyncio.Event()
        self._pump: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._pump = asyncio.ensure_future(self._run())

    def update(self, done: int, total: int, message: str) -> None:
        self._latest = (done, total, message)
        self._dirty.set()

    async def stop(self) -> None:
        """Send what is left, then stop."""
        if self._pump is None:
            return
        self._pump.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._pump
        self._pump = None
        await self._flush()

    async def _run(self) -> None:
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            await self._flush()

    async def _flush(self) -> None:
        latest = self._latest
        if latest is None or latest[0] <= self._sent:
            return
        self._sent = latest[0]
        with contextlib.suppress(Exception):  # a stream that went away: progress is advisory
            await self._send(*latest)


@dataclass(eq=False)
class McpTask:
    """One MCP task: a tool call running in the background for one credential."""

    task_id: str
    credential_id: str
    tool: str  # the MCP tool name
    doing: str  # "Importing", for the status message
    era: Era  # the protocol revision it was created under
    ticket: str
    ttl_ms: int
    library_id: str | None
    sequence: int  # creation order (tasks/list)
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    updated_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    serpent_task_id: str | None = None  # the Serpent task it is (task.get, the window)
    done: int = 0
    total: int = 0
    message: str = ""
    result: dict[str, Any] | None = None  # the call's answer (a CallToolResult, wire form)
    error: dict[str, Any] | None = None  # or its JSON-RPC error {code, message, data}
    cancel_requested: bool = False
    ended_at: float | None = None  # time.monotonic() of the end
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    changed: asyncio.Event = field(default_factory=asyncio.Event)  # news of its Serpent task
    runner: asyncio.Task[None] | None = None
    feed: ProgressFeed | None = None  # progress notifications (2025-11-25, a progressToken)
    on_change: Callable[[McpTask], Awaitable[None]] | None = None

    @property
    def ended(self) -> bool:
        return self.finished.is_set()

    def status(self, era: Era) -> Status:
        """Cancelled once the client asked (it stays so); a tool result with isError is a
        failure in 2025-11-25 and a completed call in 2026-07-28 (which keeps `failed` for
        JSON-RPC errors)."""
        if self.cancel_requested:
            return "cancelled"
        if not self.ended:
            return "working"
        if self.error is not None:
            return "failed"
        failed = era == "2025-11-25" and bool((self.result or {}).get("isError"))
        return "failed" if failed else "completed"

    def status_message(self, era: Era) -> str:
        status = self.status(era)
        counted = f" {min(self.done, self.total):,} / {self.total:,}" if self.total else ""
        if status == "working":
            return f"{self.doing}{counted}" if counted else f"{self.doing}…"
        if status == "cancelled":
            return f"Cancelled{' at' + counted if counted else ''}; what was done stays."
        if self.error is not None:
            return str(self.error.get("message") or "Failed.")
        envelope = (self.result or {}).get("structuredContent") or {}
        problem = envelope.get("error") if isinstance(envelope, dict) else None
        if isinstance(problem, dict) and problem.get("message"):
            return f"{problem.get('code')}: {problem['message']}"
        return f"Done{':' + counted if counted else ''}."

    def touch(self) -> None:
        self.updated_at = datetime.now(UTC)

    def progressed(self, done: int, total: int, message: str) -> None:
        if total > 0 or done > 0:
            self.done, self.total, self.message = done, total or self.total, message
            self.touch()
            if self.feed is not None:
                self.feed.update(self.done, self.total, self.status_message(self.era))

    def end(self, *, result: dict[str, Any] | None = None,
            error: dict[str, Any] | None = None) -> None:
        if self.ended:
            return
        self.result, self.error = result, error
        self.ended_at = time.monotonic()
        self.touch()
        self.finished.set()

    def expired(self, now: float) -> bool:
        if self.ended_at is None:
            return False
        age_ms = (datetime.now(UTC) - self.created_at).total_seconds() * 1000
        return age_ms > self.ttl_ms and now - self.ended_at > KEEP_AFTER_END_S


class TooManyTasks(Exception):
    pass


class TaskRegistry:
    """Every task of this server run. Listener loop only (but `publish`)."""

    def __init__(self) -> None:
        self._tasks: dict[str, McpTask] = {}
        self._by_ticket: dict[str, McpTask | ProgressFeed] = {}
        self._by_serpent: dict[str, McpTask] = {}
        self._sequence = itertools.count(1)
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- the gateway's events (any thread) ---------------------------------------------------

    def attach(self) -> None:
        self._loop = asyncio.get_running_loop()

    def detach(self) -> list[McpTask]:
        """Forget the loop; the tasks still working (their runners end with the loop)."""
        self._loop = None
        return [task for task in self._tasks.values() if not task.ended]

    def publish(self, event: object) -> None:
        """Gateway listener. Thread-safe, never blocks."""
        if not isinstance(event, TaskProgress | LibraryChanged):
            return
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closing
                loop.call_soon_threadsafe(self._heard, event)

    def _heard(self, event: TaskProgress | LibraryChanged) -> None:
        if isinstance(event, LibraryChanged):
            if "task" in event.kinds:
                for entity in event.entity_ids:
                    task = self._by_serpent.get(entity)
                    if task is not None:
                        task.changed.set()
            return
        target = self._by_ticket.get(event.ticket or "") or \
            self._by_serpent.get(event.task_id or "")
        if isinstance(target, ProgressFeed):
            target.update(event.done, event.total, event.message)
        elif target is not None:
            if event.task_id and event.task_id != target.serpent_task_id:
                # its first Serpent task, or the one its call runs as after its library's
                # worker was restarted (the call was sent again: `library.resend`)
                self.follows(target, event.task_id, event.library_id)
            target.progressed(event.done, event.total, event.message)
            if event.total and event.done >= event.total:
                target.changed.set()

    # -- tasks ----------------------------------------------------------------------------

    def create(self, *, credential_id: str, tool: str, doing: str, era: Era, ticket: str,
               ttl_ms: int, library_id: str | None) -> McpTask:
        self.purge()
        mine = [t for t in self._tasks.values() if t.credential_id == credential_id]
        if sum(not t.ended for t in mine) >= MAX_RUNNING:
            raise TooManyTasks(f"This credential already has {MAX_RUNNING} tasks running: "
                               "wait for one to end or cancel one (tasks/cancel).")
        for old in sorted((t for t in mine if t.ended), key=lambda t: t.sequence)[
                :max(0, len(mine) + 1 - MAX_KEPT)]:
            self.forget(old)
        task = McpTask(task_id=f"mcptask_{secrets.token_urlsafe(18)}",
                       credential_id=credential_id, tool=tool, doing=doing, era=era,
                       ticket=ticket, ttl_ms=ttl_ms, library_id=library_id,
                       sequence=next(self._sequence))
        self._tasks[task.task_id] = task
        self._by_ticket[ticket] = task
        return task

    def follows(self, task: McpTask, serpent_task_id: str, library_id: str) -> None:
        """`task` is (or follows) this Serpent task: its progress and its end."""
        if task.serpent_task_id and self._by_serpent.get(task.serpent_task_id) is task:
            del self._by_serpent[task.serpent_task_id]
        task.serpent_task_id, task.library_id = serpent_task_id, library_id
        self._by_serpent[serpent_task_id] = task

    def find(self, task_id: object, credential_id: str) -> McpTask | None:
        """The task, if it exists and belongs to this credential (else None: to another
        credential a task is as unknown as one that never existed)."""
        self.purge()
        task = self._tasks.get(task_id) if isinstance(task_id, str) else None
        return task if task is not None and task.credential_id == credential_id else None

    def of(self, credential_id: str) -> list[McpTask]:
        """The credential's tasks, newest first."""
        self.purge()
        return sorted((t for t in self._tasks.values() if t.credential_id == credential_id),
                      key=lambda t: -t.sequence)

    def forget(self, task: McpTask) -> None:
        self._tasks.pop(task.task_id, None)
        if self._by_ticket.get(task.ticket) is task:
            del self._by_ticket[task.ticket]
        if task.serpent_task_id and self._by_serpent.get(task.serpent_task_id) is task:
            del self._by_serpent[task.serpent_task_id]

    def purge(self) -> None:
        now = time.monotonic()
        for task in [t for t in self._tasks.values() if t.expired(now)]:
            self.forget(task)

    # -- plain calls that asked for progress -------------------------------------------------

    def relay(self, ticket: str, feed: ProgressFeed) -> None:
        self._by_ticket[ticket] = feed

    def unrelay(self, ticket: str) -> None:
        self._by_ticket.pop(ticket, None)
