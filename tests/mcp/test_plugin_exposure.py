"""Plugin tools over real MCP HTTP: listed and callable only for full-access credentials and
only while their plugin is enabled and exposed (a hidden one answers exactly like an unknown
tool), every call names its targets, and `tools/list_changed` is sent once per real change
of the exposed tools — never otherwise — in both protocol eras."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ResourceUpdated, ToolsListChanged

from serpent_tk.automation.caller import Caller
from serpent_tk.automation.gateway import Gateway
from serpent_tk.mcp.notifier import change_resource_uri
from serpent_tk.paths import app_dirs
from serpent_tk.plugins.manager import PluginManager
from serpent_tk.plugins.supervisor import Strikes
from serpent_tk.settings import SettingsStore
from tests.conftest import serpent_command
from tests.mcp.conftest import Server, call, connect, create_library, ok, run
from tests.mcp.test_notifications import PROBE, Inbox, streaming
from tests.plugins.conftest import TEST_LIMITS
from tests.plugins.samples import ASSET, COUNTER, DYING, HEADER, RAISING, write_plugin
from tests.waiting import wait_until

TOOL = "serpent_plugin_counter_count"
MODES = ("read-only", "auto", "full-access")


@pytest.fixture
def plugins(gateway: Gateway) -> Iterator[PluginManager]:
    dirs = app_dirs().ensure()
    dirs.plugins.mkdir(parents=True, exist_ok=True)
    write_plugin(dirs.plugins, "counter", COUNTER, commands=("count",))
    write_plugin(dirs.plugins, "flaky", RAISING + DYING[len(HEADER):],
                 commands=("explode", "refuse", "die"))
    limits = replace(TEST_LIMITS, strikes=Strikes(allowed=1))  # its first crash turns it off
    manager = PluginManager(gateway, SettingsStore(dirs.settings_file), dirs.plugins,
                            status_file=dirs.plugin_status, limits=limits,
                            entry_points=False, watch_interval_s=0.1)
    manager.start().result(60)
    yield manager
    manager.shutdown()


async def answer_to(client: Any, tool: str, args: dict[str, Any]) -> Any:
    """A tool result's envelope, or the JSON-RPC error (code, message) it raised."""
    try:
        return (await call(client, tool, args))["status"]
    except MCPError as error:
        return (error.code, error.message.replace(tool, "NAME"))


def test_the_exposure_matrix_on_list_and_on_call(server: Server, plugins: PluginManager,
                                                 era: str, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with contextlib.AsyncExitStack() as stack:
            clients = {mode: await stack.enter_async_context(connect(
                server.url, server.token(f"cred-{mode}", mode), era)) for mode in MODES}
            library = await create_library(clients["auto"], tmp_path)
            args = {"libraryId": library, "assetIds": [ASSET]}
            unknown = await answer_to(clients["full-access"], "serpent_plugin_nope_nope", args)
            assert unknown == (-32602, "Unknown tool: NAME")
            for enabled, exposed in ((False, False), (False, True), (True, True),
                                     (True, False), (False, False)):
                await asyncio.to_thread(plugins.set_exposed, "counter", exposed)
                await asyncio.to_thread(plugins.set_enabled, "counter", enabled)
                for mode, client in clients.items():
                    visible = mode == "full-access" and enabled and exposed
                    listed = {t.name: t for t in (await client.list_tools()).tools}
                    assert (TOOL in listed) == visible, (mode, enabled, exposed)
                    answer = await answer_to(client, TOOL, args)
                    assert answer == ("ok" if visible else unknown), (mode, enabled, exposed)
                    if visible:
                        schema = listed[TOOL].input_schema
                        assert set(schema["required"]) == {"libraryId", "assetIds"}
                        # lean schemas leave length checks to the gateway: refused below
                        assert schema["properties"]["assetIds"]["type"] == "array"
                        for without in ({"libraryId": library},
                                        {"libraryId": library, "assetIds": []}):
                            refused = await call(client, TOOL, without)
                            assert refused["error"]["code"] == "INVALID_ARGUMENT"
                            assert refused["error"]["message"].startswith("assetIds")
                        nowhere = await call(client, TOOL, {"assetIds": [ASSET]})
                        assert nowhere["error"]["code"] == "LIBRARY_REQUIRED"

    run(scenario())


def ui_marker(server: Server, library: str, name: str) -> int:
    """A change made at the window; its sequence, once done."""
    answer = server.gateway.submit("folder.create", {"libraryId": library, "name": name},
                                   Caller.ui()).result(60)
    assert answer["status"] == "ok", answer
    sequence = server.gateway.submit("library.change-sequence", {"libraryId": library},
                                     Caller.ui()).result(60)
    return int(sequence["result"]["changeSequence"])


class Heard:
    """tools/list_changed heard in both eras, counted between two markers."""

    def __init__(self, server: Server, library: str, legacy: Inbox) -> None:
        self.server, self.library, self.legacy = server, library, legacy
        self.modern: list[object] = []
        self.markers = 0
        self._legacy_seen = self._modern_seen = 0

    async def since_last(self) -> tuple[int, int]:
        """After every change so far has been delivered: how many list_changed each era
        heard since the previous call. Delivery is in order: a later marker (a library
        change) arriving means everything before it did."""
        self.markers += 1
        sequence = await asyncio.to_thread(ui_marker, self.server, self.library,
                                           f"marker-{self.markers}")
        uri = change_resource_uri(self.library)
        await self.legacy.wait_for(lambda: any(e["changeSequence"] >= sequence for e in
                                               self.legacy.library_events()))
        # only the markers change the library here: one resource update each
        await _until(lambda: self.modern.count(ResourceUpdated(uri=uri)) >= self.markers)
        legacy = self.legacy.notes.count(PROBE)
        modern = self.modern.count(ToolsListChanged())
        counted = (legacy - self._legacy_seen, modern - self._modern_seen)
        self._legacy_seen, self._modern_seen = legacy, modern
        return counted


def test_tools_list_changed_is_sent_once_per_change_of_the_exposed_tools(
        server: Server, plugins: PluginManager, tmp_path: Path) -> None:
    legacy = Inbox()

    async def scenario() -> None:
        async with connect(server.url, server.token("Full", "full-access"), "legacy",
                           logging_callback=legacy.on_log,
                           message_handler=legacy.on_message) as old, \
                connect(server.url, server.token("Full"), "auto") as new:
            library = await create_library(old, tmp_path)
            await streaming(server, legacy)  # the GET stream is open (its probes are sent)
            legacy.notes.clear()
            heard = Heard(server, library, legacy)
            uri = change_resource_uri(library)
            async with new.listen(tools_list_changed=True,
                                  resource_subscriptions=[uri]) as subscription:
                async def collect() -> None:
                    async for event in subscription:
                        heard.modern.append(event)

                collector = asyncio.ensure_future(collect())
                assert await heard.since_last() == (0, 0)

                async def step(change: Any, expected: int) -> None:
                    await asyncio.to_thread(change)
                    assert await heard.since_last() == (expected, expected), change

                async def reopen() -> None:
                    await ok(old, "serpent_library_close", {"libraryId": library})
                    await ok(old, "serpent_library_open",
                             {"path": str(tmp_path / "Refs.serpent")})

                await reopen()  # a library closing and opening is no tool change
                assert await heard.since_last() == (0, 0)
                await step(lambda: plugins.set_enabled("counter", True), 0)  # not exposed
                await step(lambda: plugins.set_exposed("counter", True), 1)
                await step(lambda: plugins.set_exposed("counter", True), 0)  # no change
                await step(lambda: plugins.set_exposed("counter", False), 1)  # hide
                await step(lambda: plugins.set_enabled("counter", False), 0)  # was hidden
                await step(lambda: plugins.set_exposed("counter", True), 0)  # is off
                await step(lambda: plugins.set_enabled("counter", True), 1)  # enable+expose
                await step(lambda: plugins.set_enabled("counter", False), 1)  # disable

                def from_the_command_line() -> None:
                    subprocess.run(serpent_command("plugin", "enable", "counter"), check=True,
                                   capture_output=True, timeout=60)
                    wait_until(lambda: plugins.state("counter").status == "running",  # type: ignore[union-attr]
                               "the running Serpent to apply the CLI's change")
                await step(from_the_command_line, 1)
                assert TOOL in {t.name for t in (await old.list_tools()).tools}

                def crash() -> None:
                    plugins.set_exposed("flaky", True)
                    plugins.set_enabled("flaky", True)
                await step(crash, 1)
                exploded = await call(old, "serpent_plugin_flaky_explode",
                                      {"libraryId": library, "assetIds": [ASSET]})
                assert exploded["error"]["code"] == "PLUGIN_FAILED"
                assert "RuntimeError: the plugin's own bug" in exploded["error"]["message"]
                assert await heard.since_last() == (0, 0)  # an exception takes nothing away
                assert "serpent_plugin_flaky_explode" in {
                    t.name for t in (await new.list_tools()).tools}  # for the others too
                died = await call(old, "serpent_plugin_flaky_die",
                                  {"libraryId": library, "assetIds": [ASSET]})
                assert died["error"]["code"] == "PLUGIN_FAILED"
                assert died["error"]["reason"] == "turned-off"
                await asyncio.to_thread(wait_until, lambda: plugins.state(
                    "flaky").status == "failed", "the crash to turn it off")  # type: ignore[union-attr]
                assert await heard.since_last() == (1, 1)  # the crash took its tools away
                await reopen()
                assert await heard.since_last() == (0, 0)
                collector.cancel()
            listed = {t.name for t in (await old.list_tools()).tools}
            assert TOOL in listed and "serpent_plugin_flaky_explode" not in listed

    run(scenario())


async def _until(predicate: Any, timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.02)
