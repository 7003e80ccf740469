"""Notifications: library changes from any source reach connected clients; tools/list_changed
only when tool contributions change, never for a library opening or closing."""

from __future__ import annotations

import asyncio
import contextlib
import warnings
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.shared.subscriptions import ResourceUpdated, ToolsListChanged

from library.protocol import CallMeta
from serpent_tk.automation.caller import Caller
from serpent_tk.automation.events import ToolsChanged
from serpent_tk.automation.plugins.specs import plugin_command
from serpent_tk.mcp.notifier import change_resource_uri
from tests.mcp.conftest import Server, connect, create_library, ok, run
from tests.mcp.test_tools import EchoIn, EchoOut

WAIT_S = 20.0


class Inbox:
    """What a client heard: log messages and other notifications, with waiting."""

    def __init__(self) -> None:
        self.logs: list[types.LoggingMessageNotificationParams] = []
        self.notes: list[str] = []
        self.changed = asyncio.Event()

    async def on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)
        self.changed.set()

    async def on_message(self, message: Any) -> None:
        if isinstance(message, types.ServerNotification):
            self.notes.append(type(message).__name__)
            self.changed.set()

    async def wait_for(self, predicate: Any) -> None:
        async def loop() -> None:
            while not predicate():
                self.changed.clear()
                await self.changed.wait()
        await asyncio.wait_for(loop(), WAIT_S)

    def library_events(self) -> list[dict[str, Any]]:
        return [log.data for log in self.logs
                if log.logger == "serpent.library" and log.level == "info"]


PROBE = "ToolListChangedNotification"


async def streaming(server: Server, *inboxes: Inbox) -> None:
    """Wait until each session's GET stream delivers what the server sends on its own: a
    harmless tools/list_changed, sent again until every inbox heard one (instead of sleeping
    while the stream opens). Messages on a stream arrive in order, so once a later probe
    arrived, anything sent before it has too."""
    for inbox in inboxes:
        inbox.notes.clear()

    def heard() -> bool:
        return all(PROBE in inbox.notes for inbox in inboxes)

    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while not heard():
        assert loop.time() < deadline, "the GET stream never delivered"
        server.gateway.publish(ToolsChanged())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(_until(heard), 0.25)


def ui_write(server: Server, library: str, name: str) -> dict[str, Any]:
    """A change made by the person at the window (another source than MCP)."""
    answer = server.gateway.submit("folder.create", {"libraryId": library, "name": name},
                                   Caller.ui()).result(60)
    assert answer["status"] == "ok", answer
    return answer


def test_a_write_from_the_window_reaches_a_legacy_session(server: Server,
                                                          tmp_path: Path) -> None:
    inbox = Inbox()

    async def scenario() -> None:
        async with connect(server.url, server.token("Watcher", "read-only"), "legacy",
                           logging_callback=inbox.on_log,
                           message_handler=inbox.on_message) as watcher, \
                connect(server.url, server.token("Maker"), "legacy") as maker:
            assert watcher.server_capabilities.tools.list_changed is True  # type: ignore[union-attr]
            library = await create_library(maker, tmp_path)
            await streaming(server, inbox)  # the watcher's GET stream is open
            answer = await asyncio.to_thread(ui_write, server, library, "Skies")
            sequence = (await ok(watcher, "serpent_library_change_sequence",
                                 {"libraryId": library}))["changeSequence"]
            await inbox.wait_for(lambda: any(
                e["libraryId"] == library and e["changeSequence"] == sequence
                for e in inbox.library_events()))
            event = next(e for e in inbox.library_events() if e["changeSequence"] == sequence)
            assert event["event"] == "library.changed"
            assert isinstance(event["kinds"], list) and event["kinds"]
            assert answer["libraryId"] == library

    run(scenario())


def test_a_session_that_lowered_its_log_level_hears_no_changes(server: Server,
                                                               tmp_path: Path) -> None:
    quiet, loud = Inbox(), Inbox()

    async def scenario() -> None:
        async with connect(server.url, server.token("Quiet"), "legacy",
                           logging_callback=quiet.on_log, message_handler=quiet.on_message) as q, \
                connect(server.url, server.token("Loud"), "legacy",
                        logging_callback=loud.on_log, message_handler=loud.on_message) as _loud:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await q.set_logging_level("warning")
            library = await create_library(q, tmp_path)
            await streaming(server, quiet, loud)
            await asyncio.to_thread(ui_write, server, library, "A")
            await loud.wait_for(lambda: bool(loud.library_events()))
            await streaming(server, quiet)  # sent after the change: the change came first
            assert quiet.library_events() == []

    run(scenario())


def test_tools_list_changed_only_when_tools_change(server: Server, tmp_path: Path) -> None:
    legacy = Inbox()
    modern_events: list[object] = []

    async def scenario() -> None:
        async with connect(server.url, server.token("Full", "full-access"), "legacy",
                           logging_callback=legacy.on_log,
                           message_handler=legacy.on_message) as old, \
                connect(server.url, server.token("Full"), "auto") as new:
            async with new.listen(tools_list_changed=True) as subscription:
                async def collect() -> None:
                    async for event in subscription:
                        modern_events.append(event)

                collector = asyncio.ensure_future(collect())
                library = await create_library(old, tmp_path)
                await ok(old, "serpent_library_close", {"libraryId": library})
                await ok(old, "serpent_library_open",
                         {"path": str(tmp_path / "Refs.serpent")})
                # a later change acts as a marker: delivery is in order
                await asyncio.to_thread(ui_write, server, library, "marker")
                await legacy.wait_for(lambda: bool(legacy.library_events()))
                assert "ToolListChangedNotification" not in legacy.notes
                assert modern_events == []
                server.gateway.exposure.set_exposed("echo", True)  # no commands yet: no change
                server.gateway.registry.add_plugin_commands("echo", [plugin_command(
                    "echo", "count", input_model=EchoIn, output_model=EchoOut,
                    summary="Count the given assets.", returns="echoed: how many.",
                    example={"libraryId": "lib_01j9z3k4m5n6p7q8",
                             "assetIds": ["ast_01j9z3k4m5n6p7q8"]}, handler=_echo)])
                await legacy.wait_for(lambda: "ToolListChangedNotification" in legacy.notes)
                await asyncio.wait_for(_until(lambda: bool(modern_events)), WAIT_S)
                collector.cancel()
            assert modern_events == [ToolsListChanged()]
            assert "serpent_plugin_echo_count" in {t.name for t in (await old.list_tools()).tools}

    try:
        run(scenario())
    finally:
        server.gateway.registry.remove_plugin("echo")


def test_a_modern_client_can_follow_a_library(server: Server, tmp_path: Path) -> None:
    updates: list[object] = []
    inbox = Inbox()

    async def scenario() -> None:
        async with connect(server.url, server.token(), "auto", log_level="info",
                           logging_callback=inbox.on_log) as client:
            assert client.protocol_version == "2026-07-28"
            library = await create_library(client, tmp_path)
            uri = change_resource_uri(library)
            assert uri in {str(r.uri) for r in (await client.list_resources()).resources}
            async with client.listen(resource_subscriptions=[uri]) as subscription:
                async def collect() -> None:
                    async for event in subscription:
                        updates.append(event)

                collector = asyncio.ensure_future(collect())
                await asyncio.to_thread(ui_write, server, library, "From the window")
                await asyncio.wait_for(_until(lambda: bool(updates)), WAIT_S)
                collector.cancel()
            assert updates[0] == ResourceUpdated(uri=uri)
            content = (await client.read_resource(uri)).contents[0]
            data = __import__("json").loads(getattr(content, "text", "{}"))
            sequence = (await ok(client, "serpent_library_change_sequence",
                                 {"libraryId": library}))["changeSequence"]
            assert data["libraryId"] == library and data["changeSequence"] == sequence
            # its own write, with logs asked for, reports the change on that call's stream
            await ok(client, "serpent_folder_create", {"libraryId": library, "name": "Mine"})
            await inbox.wait_for(lambda: any(e["libraryId"] == library
                                             for e in inbox.library_events()))

    run(scenario())


async def _until(predicate: Any) -> None:
    while not predicate():
        await asyncio.sleep(0.02)


def _echo(library_id: str, args: dict[str, Any], meta: CallMeta) -> Future[dict[str, Any]]:
    done: Future[dict[str, Any]] = Future()
    done.set_result({"echoed": len(args["assetIds"])})
    return done
