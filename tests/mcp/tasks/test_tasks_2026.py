"""MCP tasks as 2026-07-28 clients ask for them (the extension `io.modelcontextprotocol/tasks`:
declared per request; the server answers a task when the work is long, then `tasks/get`,
`tasks/cancel`, `tasks/update`; no `tasks/list`, no `tasks/result`), driven by the Python SDK
2.3's own client over real HTTP: it has no tasks support, but its extension hook (a
`ResultClaim` on `resultType: "task"`) lets a client resolve one, as a host would."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Literal

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client import ClaimContext, ClientExtension, ResultClaim
from mcp.client.streamable_http import streamable_http_client

from tests.mcp.conftest import Server, run
from tests.mcp.tasks.rpc import (
    TASKS,
    Rpc,
    as_person,
    make_pictures,
    new_library,
    wait_until,
    writes_held,
)

COUNT = 2000


class TaskHandle(types.Result):
    """A 2026-07-28 CreateTaskResult."""

    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    status_message: str | None = None
    poll_interval_ms: int | None = None


class TaskState(types.Result):
    """A 2026-07-28 tasks/get answer."""

    task_id: str
    status: str
    status_message: str | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class GetTask(types.GetTaskRequest):
    name_param = "taskId"  # routed by task id (Mcp-Name), as the extension asks


class CancelTask(types.CancelTaskRequest):
    name_param = "taskId"


async def task_state(client: Client, task_id: str) -> TaskState:
    return await client.session.send_request(
        GetTask(params=types.GetTaskRequestParams(task_id=task_id)), TaskState)


class Tasks(ClientExtension):
    """What a host adds to the SDK's client: it declares the extension on every request and
    finishes a task by polling it; `seen` is every status it polled."""

    identifier = TASKS

    def __init__(self) -> None:
        self.seen: list[TaskState] = []

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=TaskHandle, resolve=self.resolve)]

    async def resolve(self, handle: TaskHandle, ctx: ClaimContext) -> types.CallToolResult:
        while True:
            state = await ctx.session.send_request(
                GetTask(params=types.GetTaskRequestParams(task_id=handle.task_id)), TaskState)
            self.seen.append(state)
            if state.status == "completed":
                return types.CallToolResult.model_validate(state.result)
            if state.status in ("failed", "cancelled"):
                raise RuntimeError(f"task {state.status}: {state.status_message}")
            await asyncio.sleep((handle.poll_interval_ms or 1000) / 1000)


def connect(server: Server, extension: Tasks | None) -> tuple[httpx2.AsyncClient, Client]:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {server.token()}"},
                              timeout=httpx2.Timeout(60, read=300))
    return http, Client(streamable_http_client(server.url, http_client=http), mode="auto",
                        extensions=[extension] if extension else None)


def test_an_import_of_2000_files_is_a_task_with_progress_that_can_be_cancelled(
        server: Server, tmp_path: Path) -> None:
    library_id, library = new_library(server.gateway, tmp_path / "libraries")
    folder = make_pictures(tmp_path / "scans", COUNT)
    tasks = Tasks()

    async def scenario() -> None:
        http, client = connect(server, tasks)
        async with http, client:
            assert client.protocol_version == "2026-07-28"
            assert TASKS in (client.server_capabilities.extensions or {})
            with writes_held(library) as release:  # the import cannot end while held
                handle = await client.session.call_tool(
                    "serpent_file_import", {"libraryId": library_id,
                                            "sourcePaths": [str(folder)]}, allow_claimed=True)
                assert isinstance(handle, TaskHandle), handle
                assert handle.status == "working"

                async def counted() -> TaskState | None:  # its files, not yet recorded
                    state = await task_state(client, handle.task_id)
                    return state if state.status_message == f"Importing 0 / {COUNT:,}" \
                        else None
                assert (await until(counted, "the import counting")).status == "working"
                release()

            async def moving() -> TaskState | None:
                state = await task_state(client, handle.task_id)
                return state if (state.meta or {}).get("serpent/task", {}).get("done") \
                    else None
            state = await until(moving, "the import moving")
            with writes_held(library) as release:
                serpent = (state.meta or {})["serpent/task"]
                shown = as_person(server.gateway, "task.get",
                                  {"libraryId": library_id, "taskId": serpent["taskId"]})
                assert (shown["kind"], shown["status"]) == ("import", "running")
                ack = await client.session.send_request(CancelTask(
                    params=types.CancelTaskRequestParams(task_id=handle.task_id)),
                    types.EmptyResult)
                assert ack is not None
                wait_until(lambda: as_person(server.gateway, "task.get", {
                    "libraryId": library_id, "taskId": serpent["taskId"]})["cancelRequested"],
                    "the Serpent task asked to stop")
                release()
            state = await task_state(client, handle.task_id)
            assert state.status == "cancelled" and state.result is None
            wait_until(lambda: as_person(server.gateway, "task.get", {
                "libraryId": library_id, "taskId": serpent["taskId"]})["status"] == "cancelled",
                "the Serpent task cancelled")
            assert 0 < as_person(server.gateway, "library.info", {
                "libraryId": library_id})["assetCount"] < COUNT

            # analysis held up (it cannot queue while the lock is held) is a task too: the
            # SDK's client, given the extension, polls it to its end by itself and answers
            # the tool's own result
            with writes_held(library) as release:
                call = asyncio.ensure_future(client.call_tool(
                    "serpent_analysis_run", {"libraryId": library_id, "force": True}))

                async def polled() -> bool | None:
                    assert not call.done(), call
                    return any(s.status == "working" for s in tasks.seen) or None
                await until(polled, "the client polling the analysis task")
                release()
            answer = await call
            task = answer.structured_content["result"]["task"]  # type: ignore[index]
            assert task["status"] == "done" and task["done"] == task["total"] > 0
            assert tasks.seen[-1].status == "completed"
    run(scenario(), timeout=300)


async def until(check: Any, what: str, timeout: float = 60) -> Any:
    deadline = asyncio.get_running_loop().time() + timeout
    while (value := await check()) is None:
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)
    return value


def test_an_export_that_takes_long_is_a_task_for_clients_that_declared_tasks(
        server: Server, tmp_path: Path) -> None:
    """Server-directed: a call that cannot end soon is a task, for a client that declared the
    extension; one that did not gets the plain answer, however long it takes."""
    library_id, library = new_library(server.gateway, tmp_path / "libraries")
    rpc = Rpc(server.url, server.token())
    try:
        with writes_held(library) as release:  # its task row waits for the lock
            created = rpc.result("tools/call", {"name": "serpent_library_export", "arguments": {
                "libraryId": library_id, "targetPath": str(tmp_path / "one.zip")}})
            assert created["resultType"] == "task" and created["status"] == "working"
            assert created["ttlMs"] > 0 and created["pollIntervalMs"] == 1000
            release()
        state = wait_until(lambda: (s := rpc.result("tasks/get", {
            "taskId": created["taskId"]}))["status"] != "working" and s, "the export done")
        assert state["status"] == "completed" and state["resultType"] == "complete"
        assert state["result"]["structuredContent"]["result"]["path"] == str(tmp_path / "one.zip")
        update = rpc.result("tasks/update", {"taskId": created["taskId"],
                                             "inputResponses": {}})  # nothing is asked
        assert update["resultType"] == "complete" and set(update) <= {"resultType", "_meta"}
        for gone in ("tasks/list", "tasks/result"):
            assert rpc.post(gone, {"taskId": created["taskId"]})["error"]["code"] == -32601

        # a client without the extension: analysis answers at once with the task it queued
        plain = rpc.result("tools/call", {"name": "serpent_analysis_run", "arguments": {
            "libraryId": library_id, "force": True}}, tasks=False)
        assert plain["resultType"] == "complete" and not plain.get("isError"), plain
        assert plain["structuredContent"]["result"]["task"]["kind"] == "analysis"
        refused = rpc.post("tasks/get", {"taskId": created["taskId"]}, tasks=False)
        assert refused["error"]["code"] == -32021  # it did not declare the extension
    finally:
        rpc.close()


def test_a_plain_call_with_a_progress_token_hears_the_progress_of_its_work(
        server: Server, tmp_path: Path) -> None:
    """No task asked: the call answers as ever, and its progressToken brings the import's own
    progress (the same numbers the window shows) on the call's stream, only ever forward."""
    library_id, _ = new_library(server.gateway, tmp_path / "libraries")
    folder = make_pictures(tmp_path / "scans", 300)
    rpc = Rpc(server.url, server.token())
    try:
        answer = rpc.result("tools/call", {
            "name": "serpent_file_import", "_meta": {"progressToken": 7},
            "arguments": {"libraryId": library_id, "sourcePaths": [str(folder)]}}, tasks=False)
        assert answer["structuredContent"]["result"]["imported"] == 300
        heard = [n["params"] for n in rpc.notifications
                 if n["method"] == "notifications/progress"]
        assert heard and {p["progressToken"] for p in heard} == {7}
        steps = [p["progress"] for p in heard]
        assert steps == sorted(set(steps)) and steps[-1] == 300, steps
        assert heard[-1]["total"] == 300
    finally:
        rpc.close()
