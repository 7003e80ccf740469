"""What MCP tasks look like on the wire, per protocol era: the 2025-11-25 experimental form
(`task` on a request, `CreateTaskResult {task}`, `ttl`/`pollInterval`, the `tasks` server
capability) and the 2026-07-28 extension `io.modelcontextprotocol/tasks` (`resultType:
"task"`, a flat task with `ttlMs`/`pollIntervalMs`, the result inside a completed task).

Pure functions and constants; thread-safe.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from serpent_tk.mcp.tasks.registry import Era, McpTask, iso

LEGACY_TASKS_VERSION = "2025-11-25"  # the one handshake-era revision that has tasks
EXTENSION_ID = "io.modelcontextprotocol/tasks"
RELATED_TASK = "io.modelcontextprotocol/related-task"
IMMEDIATE_RESPONSE = "io.modelcontextprotocol/model-immediate-response"
SERPENT_TASK = "serpent/task"  # `_meta`: the Serpent task it is (task.get, the window)
POLL_INTERVAL_MS = 1000

# 2025-11-25 `initialize`: tasks/list, tasks/cancel, and task-augmented tools/call
LEGACY_CAPABILITY = types.ServerTasksCapability(
    list=types.TasksListCapability(), cancel=types.TasksCancelCapability(),
    requests=types.ServerTasksRequestsCapability(
        tools=types.TasksToolsCapability(call=types.TasksCallCapability())))


def era_of(protocol_version: str | None) -> Era | None:
    """The tasks dialect a request speaks (None: its revision has no tasks)."""
    if protocol_version == LEGACY_TASKS_VERSION:
        return "2025-11-25"
    if protocol_version in MODERN_PROTOCOL_VERSIONS:
        return "2026-07-28"
    return None


def declares_extension(meta: Any) -> bool:
    """Did a 2026-07-28 request declare the tasks extension in its own capabilities?"""
    capabilities = meta.get(types.CLIENT_CAPABILITIES_META_KEY) if isinstance(meta, dict) \
        else None
    extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    return isinstance(extensions, dict) and EXTENSION_ID in extensions


def serpent_meta(task: McpTask) -> dict[str, Any]:
    """`_meta` naming the Serpent task behind an MCP task, and its figures."""
    if task.serpent_task_id is None:
        return {}
    return {SERPENT_TASK: {"libraryId": task.library_id, "taskId": task.serpent_task_id,
                           "done": task.done, "total": task.total}}


def legacy_task(task: McpTask) -> dict[str, Any]:
    """A 2025-11-25 `Task`."""
    return {"taskId": task.task_id, "status": task.status("2025-11-25"),
            "statusMessage": task.status_message("2025-11-25"),
            "createdAt": iso(task.created_at), "lastUpdatedAt": iso(task.updated_at),
            "ttl": task.ttl_ms, "pollInterval": POLL_INTERVAL_MS}


def modern_task(task: McpTask) -> dict[str, Any]:
    """A 2026-07-28 `DetailedTask`: a completed one carries the call's result, a failed one
    its JSON-RPC error."""
    status = task.status("2026-07-28")
    shown: dict[str, Any] = {
        "taskId": task.task_id, "status": status,
        "statusMessage": task.status_message("2026-07-28"),
        "createdAt": iso(task.created_at), "lastUpdatedAt": iso(task.updated_at),
        "ttlMs": task.ttl_ms, "pollIntervalMs": POLL_INTERVAL_MS}
    if status == "completed":
        shown["result"] = task.result or {}
    elif status == "failed":
        shown["error"] = task.error or {}
    return shown


def task_state(task: McpTask, era: Era) -> dict[str, Any]:
    """What `tasks/get` answers (and a 2025-11-25 `tasks/cancel`)."""
    shown = legacy_task(task) if era == "2025-11-25" else modern_task(task)
    meta = serpent_meta(task)
    return {**shown, "_meta": meta} if meta else shown


def created(task: McpTask, era: Era, stamp: dict[str, Any]) -> dict[str, Any]:
    """The answer to a tools/call that became a task (`stamp`: the 2026-07-28 serverInfo
    `_meta` the SDK adds to its own answers)."""
    if era == "2025-11-25":
        return {"task": legacy_task(task), "_meta": {IMMEDIATE_RESPONSE: (
            f"{task.doing} in the background (MCP task {task.task_id}); its result comes when "
            "it is done.")}}
    return {"resultType": "task", **modern_task(task), "_meta": stamp}


def related(task: McpTask) -> dict[str, Any]:
    return {RELATED_TASK: {"taskId": task.task_id}}


def status_notification(task: McpTask) -> types.TaskStatusNotification:
    """`notifications/tasks/status` (2025-11-25): the whole task."""
    return types.TaskStatusNotification(params=types.TaskStatusNotificationParams.model_validate(
        legacy_task(task)))


def progress_notification(task: McpTask, token: str | int, done: int, total: int,
                          message: str) -> types.ProgressNotification:
    """`notifications/progress` for a task (2025-11-25: its token stays valid all along)."""
    return types.ProgressNotification(params=types.ProgressNotificationParams(
        progress_token=token, progress=done, total=total or None, message=message or None,
        _meta=related(task)))
