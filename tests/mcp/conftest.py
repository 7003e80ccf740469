"""Fixtures for the MCP tests: the real gateway and worker behind a real MCP server on
127.0.0.1, driven by the SDK's own client in both protocol eras.

Every test gets its own user data dir (tests/conftest.py); libraries live in tmp_path.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from PIL import Image

from serpent_tk.automation.gateway import Gateway
from serpent_tk.credentials import CredentialStore
from serpent_tk.mcp.endpoint import endpoint_file
from serpent_tk.mcp.service import McpService, McpStatus
from serpent_tk.paths import app_dirs
from serpent_tk.settings import SettingsStore

T = TypeVar("T")
ERAS = ("legacy", "auto")  # handshake era (2025-11-25) and modern (2026-07-28)
TIMEOUT = 60.0


def run(coro: Awaitable[T], timeout: float = TIMEOUT) -> T:
    """Run `coro`; an error inside the SDK client's task groups is raised as itself."""
    try:
        return asyncio.run(asyncio.wait_for(coro, timeout))  # type: ignore[arg-type]
    except BaseExceptionGroup as group:
        leaves = list(_leaves(group))
        if len(leaves) == 1:
            raise leaves[0] from group
        raise


def _leaves(group: BaseExceptionGroup) -> Iterator[BaseException]:
    for error in group.exceptions:
        if isinstance(error, BaseExceptionGroup):
            yield from _leaves(error)
        else:
            yield error


@pytest.fixture
def gateway() -> Iterator[Gateway]:
    dirs = app_dirs().ensure()
    gw = Gateway(SettingsStore(dirs.settings_file))
    yield gw
    gw.shutdown()


@pytest.fixture
def credentials() -> CredentialStore:
    return CredentialStore(app_dirs().ensure().credentials_file)


class Server:
    """A running MCP server and the statuses it posted."""

    def __init__(self, gateway: Gateway, credentials: CredentialStore, port: int = 0) -> None:
        self.statuses: list[McpStatus] = []
        self.service = McpService(gateway, credentials, port=port,
                                  on_status=self.statuses.append,
                                  endpoint_file=endpoint_file())
        self.gateway = gateway
        self.credentials = credentials

    def start(self, port: int | None = None) -> McpStatus:
        status = self.service.start(port)
        assert status.running, status
        return status

    @property
    def url(self) -> str:
        url = self.service.status.url
        assert url is not None
        return url

    @property
    def port(self) -> int:
        port = self.service.status.port
        assert port is not None
        return port

    def token(self, name: str = "Claude Desktop", mode: str = "auto",
              toolset: str = "everything") -> str:
        """The token of `name`, created if needed (with every tool unless `toolset` says
        otherwise: most tests exercise tools outside `essentials`)."""
        if self.credentials.get(name) is None:
            return self.credentials.create(name, mode, toolset)[1]
        return self.credentials.token_for(name)


@pytest.fixture
def server(gateway: Gateway, credentials: CredentialStore) -> Iterator[Server]:
    running = Server(gateway, credentials)
    running.start()
    yield running
    running.service.stop()


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@asynccontextmanager
async def connect(url: str, token: str | None, mode: str = "legacy",
                  **client_options: Any) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=120))
    async with http, Client(streamable_http_client(url, http_client=http), mode=mode,
                            **client_options) as client:
        yield client


async def call(client: Client, tool: str, args: dict[str, Any] | None = None
               ) -> dict[str, Any]:
    """A tool call's envelope; checks that the text content is the same JSON."""
    result = await client.call_tool(tool, args or {})
    envelope = result.structured_content
    assert envelope is not None, result
    texts = [c.text for c in result.content if c.type == "text"]
    assert texts and json.loads(texts[-1]) == envelope
    assert result.is_error == (envelope["status"] == "error")
    return envelope


async def ok(client: Client, tool: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    envelope = await call(client, tool, args)
    assert envelope["status"] == "ok", envelope
    result: dict[str, Any] = envelope["result"]
    return result


async def error_code(client: Client, tool: str, args: dict[str, Any] | None = None) -> str:
    envelope = await call(client, tool, args)
    assert envelope["status"] == "error", envelope
    return str(envelope["error"]["code"])


async def create_library(client: Client, parent: Path, name: str = "Refs") -> str:
    parent.mkdir(parents=True, exist_ok=True)
    result = await ok(client, "serpent_library_create",
                      {"selectedParentPath": str(parent), "name": name})
    return str(result["libraryId"])


def make_images(folder: Path, count: int, prefix: str = "img", size: int = 48) -> list[Path]:
    """Real, distinct PNG files (distinct content, so none is a duplicate)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(count):
        path = folder / f"{prefix}-{index:03d}.png"
        colour = ((index * 37) % 256, (index * 91) % 256, (index * 53 + 7) % 256)
        image = Image.new("RGB", (size, size), colour)
        image.putpixel((index % size, (index // size) % size), (255 - colour[0], 0, 0))
        image.save(path)
        paths.append(path)
    return paths
