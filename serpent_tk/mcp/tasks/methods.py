"""The MCP side of tasks: which tools/call becomes a task (a server middleware), the
`tasks/*` methods, and the capabilities that say so. Installed on the lowlevel server by
`install`.

Runs on the listener loop, as the request's credential (`current_credential`): a task is only
ever seen, waited for or cancelled by the credential that created it; to any other it does
not exist. By era:

- 2025-11-25 (experimental tasks): a `tools/call` with `task` on a tool whose
  `execution.taskSupport` is optional answers `CreateTaskResult` at once; `tasks/get`,
  `tasks/result` (waits for the end), `tasks/list`, `tasks/cancel`; progress (with a
  progressToken) and `notifications/tasks/status` on the session's GET stream.
- 2026-07-28 (extension `io.modelcontextprotocol/tasks`): a request that declares the
  extension and calls long work gets a task when the work is not done within
  `runner.GRACE_S`, else its plain answer; `tasks/get` (the result inside a completed task),
  `tasks/update` (nothing to answer: acknowledged), `tasks/cancel` (acknowledged).
- Other revisions, and clients that ask for no task: the plain call, as always.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import mcp_types as types
from mcp.server import Server
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import methods as wire_methods
from pydantic import ValidationError

from serpent_tk.credentials import Credential
from serpent_tk.mcp.http.guard import current_credential
from serpent_tk.mcp.tasks import wire
from serpent_tk.mcp.tasks.registry import Era, McpTask, TaskRegistry
from serpent_tk.mcp.tasks.runner import TaskRunner, progress_token
from serpent_tk.mcp.tools.catalogue import Catalogue
from serpent_tk.mcp.tools.handlers import GatewayLike

PAGE = 50  # tasks per tasks/list page


class UpdateTaskParams(types.RequestParams):
    """`tasks/update` (2026-07-28): answers to a task's input requests (Serpent asks none)."""

    task_id: str
    input_responses: dict[str, Any] | None = None


def not_found() -> MCPError:
    return MCPError(types.INVALID_PARAMS, "Failed to retrieve task: Task not found")


def not_here(method: str) -> MCPError:
    return MCPError(types.METHOD_NOT_FOUND, "Method not found", method)


class TaskMethods:
    """Everything tasks add to one server instance."""

    def __init__(self, gateway: GatewayLike, catalogue: Catalogue,
                 stamp: Callable[[], dict[str, Any]]) -> None:
        self.catalogue = catalogue
        self.registry = TaskRegistry()
        self.runner = TaskRunner(gateway, self.registry, stamp)

    def install(self, server: Server[Any]) -> None:
        server.middleware.append(self.middleware)
        server.add_request_handler("tasks/get", types.GetTaskRequestParams, self.get_task)
        server.add_request_handler("tasks/result", types.GetTaskPayloadRequestParams,
                                   self.task_result)
        server.add_request_handler("tasks/list", types.PaginatedRequestParams,
                                   self.list_tasks)
        server.add_request_handler("tasks/cancel", types.CancelTaskRequestParams,
                                   self.cancel_task)
        server.add_request_handler("tasks/update", UpdateTaskParams, self.update_task)

    async def stop(self) -> None:
        """The server stops: tasks still working stop with it, as its plain calls do (the
        Serpent tasks they follow, analysis, go on in Serpent)."""
        runners = [t.runner for t in self.registry.detach() if t.runner is not None]
        for runner in runners:
            runner.cancel()
        await asyncio.gather(*runners, return_exceptions=True)

    # -- tools/call and initialize (middleware) ------------------------------------------------

    async def middleware(self, ctx: ServerRequestContext[Any, Any],
                         call_next: CallNext) -> HandlerResult:
        if ctx.method == "initialize":
            return self._initialized(await call_next(ctx))
        if ctx.method != "tools/call":
            return await call_next(ctx)
        credential = current_credential()
        params = ctx.params or {}
        era = wire.era_of(ctx.protocol_version)
        asked = era == "2025-11-25" and isinstance(params.get("task"), dict) or \
            era == "2026-07-28" and wire.declares_extension(ctx.meta)
        name = params.get("name")
        spec = self.catalogue.visible(name, credential.mode, credential.toolset) \
            if asked and credential is not None and isinstance(name, str) else None
        if spec is not None and era is not None and credential is not None:
            if spec.long_work:
                self._check_call(ctx)
                return await self.runner.start(ctx, call_next, spec, credential, era)
            if era == "2025-11-25":  # the tool said it runs as no task (no execution field)
                raise MCPError(types.METHOD_NOT_FOUND, f"{spec.tool_name} does not run as a "
                               "task: call it without `task`.")
        if progress_token(ctx) is not None:
            return await self.runner.with_progress(ctx, call_next)
        return await call_next(ctx)

    @staticmethod
    def _check_call(ctx: ServerRequestContext[Any, Any]) -> None:
        """The checks the SDK makes of a tools/call's params, made before the task exists."""
        try:
            wire_methods.validate_client_request("tools/call", ctx.protocol_version,
                                                 ctx.params)
        except (ValidationError, KeyError, ValueError):
            raise MCPError(types.INVALID_PARAMS, "Invalid request parameters", "") from None

    @staticmethod
    def _initialized(result: HandlerResult) -> HandlerResult:
        """Only 2025-11-25 has the `tasks` capability; older revisions never see it."""
        if isinstance(result, dict) and result.get("protocolVersion") != \
                wire.LEGACY_TASKS_VERSION and isinstance(result.get("capabilities"), dict):
            result = {**result, "capabilities": {
                k: v for k, v in result["capabilities"].items() if k != "tasks"}}
        return result

    # -- tasks/* ----------------------------------------------------------------------------

    def _caller(self, ctx: ServerRequestContext[Any, Any], method: str,
                eras: tuple[Era, ...]) -> tuple[Credential, Era]:
        """Who asks, in which era; a method its era does not have is not found."""
        era = wire.era_of(ctx.protocol_version)
        credential = current_credential()
        if era is None or era not in eras or credential is None:
            raise not_here(method)
        if era == "2026-07-28" and not wire.declares_extension(ctx.meta):
            raise MCPError(types.MISSING_REQUIRED_CLIENT_CAPABILITY,
                           "Missing required client capability", {"requiredCapabilities": {
                               "extensions": {wire.EXTENSION_ID: {}}}})
        return credential, era

    def _task(self, ctx: ServerRequestContext[Any, Any], task_id: str,
              credential: Credential) -> McpTask:
        routed = ctx.request.headers.get("mcp-name") if ctx.request is not None else None
        if routed is not None and routed != task_id:
            raise MCPError(types.HEADER_MISMATCH, "Mcp-Name header does not match taskId")
        task = self.registry.find(task_id, credential.id)
        if task is None:
            raise not_found()
        return task

    async def get_task(self, ctx: ServerRequestContext[Any, Any],
                  params: types.GetTaskRequestParams) -> dict[str, Any]:
        credential, era = self._caller(ctx, "tasks/get", ("2025-11-25", "2026-07-28"))
        return wire.task_state(self._task(ctx, params.task_id, credential), era)

    async def task_result(self, ctx: ServerRequestContext[Any, Any],
                     params: types.GetTaskPayloadRequestParams) -> dict[str, Any]:
        """2025-11-25: wait for the end, then answer what the call answered (its JSON-RPC
        error, if it ended in one)."""
        credential, _ = self._caller(ctx, "tasks/result", ("2025-11-25",))
        task = self._task(ctx, params.task_id, credential)
        await task.finished.wait()
        if task.error is not None:
            raise MCPError(int(task.error.get("code", types.INTERNAL_ERROR)),
                           str(task.error.get("message", "")), task.error.get("data"))
        answer = dict(task.result or {})
        answer["_meta"] = {**(answer.get("_meta") or {}), **wire.related(task)}
        return answer

    async def list_tasks(self, ctx: ServerRequestContext[Any, Any],
                   params: types.PaginatedRequestParams) -> dict[str, Any]:
        credential, era = self._caller(ctx, "tasks/list", ("2025-11-25",))
        tasks = self.registry.of(credential.id)
        if params.cursor is not None:
            try:
                after = int(params.cursor)
            except ValueError:
                raise MCPError(types.INVALID_PARAMS, "cursor: not one from tasks/list") \
                    from None
            tasks = [t for t in tasks if t.sequence < after]
        page = tasks[:PAGE]
        answer: dict[str, Any] = {"tasks": [wire.legacy_task(t) for t in page]}
        if len(tasks) > PAGE:
            answer["nextCursor"] = str(page[-1].sequence)
        return answer

    async def cancel_task(self, ctx: ServerRequestContext[Any, Any],
                     params: types.CancelTaskRequestParams) -> dict[str, Any]:
        credential, era = self._caller(ctx, "tasks/cancel", ("2025-11-25", "2026-07-28"))
        task = self._task(ctx, params.task_id, credential)
        status = task.status(era)
        if status in ("completed", "failed", "cancelled"):
            if era == "2025-11-25":
                raise MCPError(types.INVALID_PARAMS, "Cannot cancel task: already in "
                               f"terminal status '{status}'")
            return {}
        self.runner.cancel(task, credential)
        if task.on_change is not None:  # 2025-11-25: the status changed
            await task.on_change(task)
        return wire.task_state(task, era) if era == "2025-11-25" else {}

    async def update_task(self, ctx: ServerRequestContext[Any, Any],
                     params: UpdateTaskParams) -> dict[str, Any]:
        """Serpent's tasks never ask for input: responses to no request are ignored, as the
        extension asks."""
        credential, _ = self._caller(ctx, "tasks/update", ("2026-07-28",))
        self._task(ctx, params.task_id, credential)
        return {}
