"""Running a tool call as an MCP task, following it, cancelling it; and progress for a plain
call that asked for it.

Runs on the listener loop. A task's call runs in its own asyncio task through the rest of
the SDK's pipeline (`call_next`: argument checks, the handler, the answer's wire form), so
its answer is exactly what the call would have answered, and its work carries the task's
ticket: the worker's progress events for it (and, for a long import or an export, the
Serpent task it shows as in the window) reach the task by that ticket. Analysis (`queued`
long work) answers at once with the Serpent task it queued; the MCP task follows that one
to its end (its progress events, its row's changes, `task.get` now and then). Cancelling
goes the window's way: `task.cancel` once the Serpent task is known, else cancelling the
call (the worker stops it as when the window's Cancel button cancels an import).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, cast

import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import methods as wire_methods
from pydantic import BaseModel

from library.errors import CANCELLED, LibraryError
from serpent_tk.automation import envelope as envelopes
from serpent_tk.automation import errors
from serpent_tk.automation.envelope import Envelope, OkEnvelope
from serpent_tk.automation.registry import CommandSpec
from serpent_tk.credentials import Credential
from serpent_tk.mcp.tasks import wire
from serpent_tk.mcp.tasks.registry import (
    Era,
    McpTask,
    ProgressFeed,
    TaskRegistry,
    TooManyTasks,
    clamp_ttl,
)
from serpent_tk.mcp.tasks.tickets import current_ticket, new_ticket
from serpent_tk.mcp.tools.handlers import GatewayLike, call_result, mcp_caller

log = logging.getLogger(__name__)

GRACE_S = 2.0  # 2026-07-28: a call done this soon is answered directly, not as a task
FOLLOW_CHECK_S = 3.0  # a followed Serpent task without news is asked about this often
FINISHED = {"done", "failed", "cancelled", "interrupted"}


def wire_dict(result: HandlerResult) -> dict[str, Any]:
    if isinstance(result, BaseModel):
        return result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dict(result or {})


def progress_token(ctx: ServerRequestContext[Any, Any]) -> str | int | None:
    token = (ctx.meta or {}).get("progress_token")  # the SDK's name for progressToken
    return token if isinstance(token, str | int) and not isinstance(token, bool) else None


class TaskRunner:
    """Starts, follows and cancels the tasks of `registry`."""

    def __init__(self, gateway: GatewayLike, registry: TaskRegistry,
                 stamp: Callable[[], dict[str, Any]]) -> None:
        self.gateway = gateway
        self.registry = registry
        self.stamp = stamp  # the serverInfo `_meta` of 2026-07-28 answers

    async def _submit(self, name: str, args: dict[str, Any],
                      credential: Credential) -> Envelope:
        return await asyncio.wrap_future(self.gateway.submit(name, args,
                                                             mcp_caller(credential)))

    # -- starting ---------------------------------------------------------------------------

    async def start(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext,
                    spec: CommandSpec, credential: Credential, era: Era) -> HandlerResult:
        params = ctx.params or {}
        arguments = params.get("arguments")
        library_id = arguments.get("libraryId") if isinstance(arguments, dict) else None
        asked = params.get("task")
        try:
            task = self.registry.create(
                credential_id=credential.id, tool=spec.tool_name,
                doing=spec.words.doing or "Working", era=era, ticket=new_ticket(),
                ttl_ms=clamp_ttl(asked.get("ttl") if isinstance(asked, dict) else None),
                library_id=library_id if isinstance(library_id, str) else None)
        except TooManyTasks as refusal:
            raise MCPError(types.INVALID_REQUEST, str(refusal)) from None
        if era == "2025-11-25":
            self._tell_session(task, ctx)
        task.runner = asyncio.ensure_future(self._run(task, ctx, call_next, spec, credential))
        if era == "2025-11-25":
            return wire.created(task, era, {})
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(task.finished.wait()), GRACE_S)
        if task.ended and not task.cancel_requested:  # quick: the plain answer, no task
            self.registry.forget(task)
            if task.error is not None:
                raise MCPError(int(task.error.get("code", types.INTERNAL_ERROR)),
                               str(task.error.get("message", "")), task.error.get("data"))
            return task.result
        return wire.created(task, era, self.stamp())

    def _tell_session(self, task: McpTask, ctx: ServerRequestContext[Any, Any]) -> None:
        """2025-11-25: progress (when the call had a progressToken) and the end go to the
        session's GET stream; the call's own stream closed with its CreateTaskResult."""
        session = ctx.session
        token = progress_token(ctx)

        async def progress(done: int, total: int, message: str) -> None:
            assert token is not None
            await session.send_notification(
                wire.progress_notification(task, token, done, total, message))

        async def ended(ended_task: McpTask) -> None:
            # TaskStatusNotification is outside the SDK's ServerNotification union
            # (types only in 2.3), but the session sends any notification model
            await session.send_notification(
                cast(Any, wire.status_notification(ended_task)))

        if token is not None:
            task.feed = ProgressFeed(progress)
            task.feed.start()
        task.on_change = ended

    async def _run(self, task: McpTask, ctx: ServerRequestContext[Any, Any],
                   call_next: CallNext, spec: CommandSpec, credential: Credential) -> None:
        current_ticket.set(task.ticket)  # this asyncio task's own context
        try:
            answer = wire_dict(await call_next(ctx))
            if spec.long_work == "queued" and not answer.get("isError"):
                answer = await self._follow(task, answer, credential, ctx.protocol_version)
            task.end(result=answer)
        except MCPError as error:
            task.end(error=error.error.model_dump(mode="json", exclude_none=True))
        except asyncio.CancelledError:
            task.end(result=self._answer(envelopes.error(LibraryError(
                CANCELLED, "The task was cancelled; what it finished stays."),
                task.library_id), ctx.protocol_version))
            if not task.cancel_requested:
                raise  # the server is stopping
        except Exception as error:  # a bug of ours: the task fails with an incident id
            failure = errors.internal(error, f"MCP task of {task.tool}")
            task.end(error={"code": types.INTERNAL_ERROR, "message": failure.message})
        finally:
            await self._ended(task)

    async def _ended(self, task: McpTask) -> None:
        if task.feed is not None:
            await task.feed.stop()
        if task.on_change is not None:
            with contextlib.suppress(Exception):  # the session is gone: nobody to tell
                await task.on_change(task)

    def _answer(self, envelope: Envelope, version: str) -> dict[str, Any]:
        """An envelope as the call's answer on the wire of `version`."""
        dumped = call_result(envelope).model_dump(by_alias=True, mode="json",
                                                  exclude_none=True)
        return wire_methods.serialize_server_result("tools/call", version, dumped)

    async def _follow(self, task: McpTask, answer: dict[str, Any], credential: Credential,
                      version: str) -> dict[str, Any]:
        """Analysis: follow the Serpent task the call queued until it ends; the answer is the
        call's own, with that task as it ended."""
        content = answer.get("structuredContent")
        if not isinstance(content, dict) or content.get("status") != "ok":
            return answer
        envelope = cast(OkEnvelope, content)  # the call's own, as `call_result` sent it
        result = envelope["result"]
        queued = result.get("task")
        library_id = envelope.get("libraryId")
        if not isinstance(queued, dict) or not isinstance(library_id, str):
            return answer
        self.registry.follows(task, str(queued["id"]), library_id)
        task.progressed(int(queued.get("done") or 0), int(queued.get("total") or 0), "")
        current: dict[str, Any] = queued
        latest: Envelope = envelope
        while current.get("status") not in FINISHED:
            task.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(task.changed.wait(), FOLLOW_CHECK_S)
            latest = await self._submit("task.get", {"libraryId": library_id,
                                                     "taskId": queued["id"]}, credential)
            if latest["status"] != "ok":  # the library closed meanwhile, say
                return self._answer(latest, version)
            current = latest["result"]
            task.progressed(int(current.get("done") or 0), int(current.get("total") or 0),
                            str(current.get("message") or ""))
        final: dict[str, Any] = {
            **envelope, "result": {**result, "task": current},
            "libraryChangeSequence": latest.get("libraryChangeSequence",
                                                envelope.get("libraryChangeSequence"))}
        # an ok envelope; its libraryChangeSequence is null when neither answer had one (the
        # library closed meanwhile), as it always was on the wire
        return self._answer(cast(OkEnvelope, final), version)

    # -- cancelling -------------------------------------------------------------------------

    def cancel(self, task: McpTask, credential: Credential) -> None:
        """The client asked: the task is cancelled from now on (2025-11-25 wants it so before
        the answer); the work is stopped in the background."""
        task.cancel_requested = True
        task.touch()
        asyncio.ensure_future(self._stop(task, credential))

    async def _stop(self, task: McpTask, credential: Credential) -> None:
        try:
            if task.serpent_task_id is not None and task.library_id is not None:
                answer = await self._submit("task.cancel", {"libraryId": task.library_id,
                                                            "taskId": task.serpent_task_id},
                                            credential)
                if answer["status"] == "ok":
                    return  # the call (or the follower) ends by itself, cancelled
            if task.runner is not None and not task.runner.done():
                task.runner.cancel()
        except Exception:
            log.exception("could not cancel MCP task %s", task.task_id)

    # -- progress for a plain call ----------------------------------------------------------

    async def with_progress(self, ctx: ServerRequestContext[Any, Any],
                            call_next: CallNext) -> HandlerResult:
        """A call with a progressToken: the worker's progress of its work becomes
        `notifications/progress` on the call's own stream."""
        ticket = new_ticket()
        session = ctx.session

        async def send(done: int, total: int, message: str) -> None:
            await session.report_progress(done, total or None, message or None)

        feed = ProgressFeed(send)
        reset = current_ticket.set(ticket)
        self.registry.relay(ticket, feed)
        feed.start()
        try:
            return await call_next(ctx)
        finally:
            self.registry.unrelay(ticket)
            current_ticket.reset(reset)
            await feed.stop()
