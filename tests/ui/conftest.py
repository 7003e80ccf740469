"""Fixtures for the window tests: real Tk under Xvfb, the real gateway and library worker,
the real MCP service, and the SDK's MCP client. Every GUI test destroys its root.
"""

from __future__ import annotations

import asyncio
import gc
import os
import socket
import time
import tkinter as tk
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from PIL import Image, ImageDraw, ImageGrab

from serpent_tk.automation.gateway import Gateway
from serpent_tk.credentials import CredentialStore
from serpent_tk.desktop_mcp import DesktopMcpControls
from serpent_tk.mcp.endpoint import endpoint_file
from serpent_tk.mcp.service import McpService
from serpent_tk.paths import app_dirs
from serpent_tk.settings import SettingsStore
from serpent_tk.ui.shell.bus import UiBus
from serpent_tk.ui.shell.desktop import attach, enable_drops
from serpent_tk.ui.shell.main_window import MainWindow, WindowServices
from tests.library.pictures import tiny_png  # noqa: F401  (the UI tests' pictures)
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
# screenshots worth a look are also copied here when set (the lead's review folder)
SHOTS_ENV = "SERPENT_SHOTS_DIR"
WAIT_S = 30.0

pytestmark = pytest.mark.gui


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def make_images(folder: Path, count: int, prefix: str = "sketch") -> list[Path]:
    """Distinct, colourful PNGs (so the screenshots show something and none is a duplicate)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(count):
        hue = (index * 47) % 360
        image = Image.new("RGB", (320 + (index % 3) * 80, 240), (30, 30, 30))
        draw = ImageDraw.Draw(image)
        for band in range(6):
            shade = ((hue + band * 25) % 256, (90 + band * 30) % 256, (200 - band * 25) % 256)
            draw.rectangle((band * 60, 0, band * 60 + 59, 240), fill=shade)
        draw.ellipse((100, 60, 220, 180), fill=((index * 91) % 256, 220, (index * 53) % 256))
        path = folder / f"{prefix}-{index:02d}.png"
        image.save(path)
        paths.append(path)
    return paths


@dataclass
class App:
    """A window attached to its own root, with its gateway and MCP service."""

    root: tk.Tk
    window: MainWindow
    services: WindowServices
    service: McpService
    credentials: CredentialStore
    close: Callable[[], None]

    def pump(self, until: Callable[[], Any], what: str, timeout: float = WAIT_S) -> Any:
        """Run the Tk loop until `until()` is truthy; fail naming `what` after `timeout`."""
        return wait_until(until, what, timeout, interval=0.005, tick=self.root.update)

    def settle(self, seconds: float = 0.2) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.root.update()
            time.sleep(0.005)

    def open_default(self) -> str:
        self.window.start()
        self.pump(lambda: self.window.session.current, "the default library to open")
        self.pump(lambda: self.window.pages.known, "the first page of assets")
        return str(self.window.session.library_id)

    def gateway_call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """A command run as the person, outside the window (to set things up)."""
        from serpent_tk.automation.caller import Caller

        future = self.services.gateway.submit(name, args, Caller.ui())
        self.pump(future.done, name)
        envelope: dict[str, Any] = future.result()
        assert envelope["status"] == "ok", envelope
        return envelope["result"]  # type: ignore[no-any-return]

    def wait_for_import_analysis(self, library_id: str, timeout: float = 120) -> None:
        """Until the analysis an import queued has ended and no task waits or runs. The
        main process queues it after the import answers (its feeder thread): "no task
        waiting or running" alone may be the moment before it is queued."""
        def analysed() -> bool:
            tasks = self.gateway_call("task.list", {"libraryId": library_id})["items"]
            return (any(t["kind"] == "analysis" for t in tasks)
                    and all(t["status"] not in ("queued", "running") for t in tasks))

        self.pump(analysed, "the analysis of the import done", timeout=timeout)

    def spy_on_commands(self) -> list[str]:
        """Names of the commands the window sends from now on (in order)."""
        sent: list[str] = []
        commands = self.window.commands
        original = commands.submit

        def submit(name: str, args: dict[str, Any], **options: Any) -> Any:
            sent.append(name)
            return original(name, args, **options)

        commands.submit = submit  # type: ignore[method-assign]
        return sent

    def import_images(self, paths: list[Path]) -> None:
        window = self.window
        before = window.pages.count()
        assert window.drop_zone is not None, "tkdnd did not load"
        window.drop_zone.drop([str(p) for p in paths])
        self.pump(lambda: window.pages.count() >= before + len(paths) and
                  not window.importer.busy, "the imported files in the grid")

    def screenshot(self, name: str, widget: tk.Misc | None = None,
                   bbox: tuple[int, int, int, int] | None = None) -> Path:
        widget = widget or self.root
        self.settle(0.3)
        if bbox is None:
            x, y = widget.winfo_rootx(), widget.winfo_rooty()
            bottom = y + widget.winfo_height()
            if widget is self.root:           # from the top of the menu bar, not below it
                y = min(y, int(self.root.geometry().split("+")[2]))
            bbox = (x, y, x + widget.winfo_width(), bottom)
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        ImageGrab.grab(bbox=bbox, xdisplay=os.environ["DISPLAY"]).save(path)
        return path

    def shot(self, tmp_path: Path, name: str, widget: tk.Misc | None = None,
             bbox: tuple[int, int, int, int] | None = None) -> Path:
        """A screenshot to be looked at: saved in the test's `tmp_path` (and
        test-artifacts/), and copied to $SERPENT_SHOTS_DIR when that is set."""
        import shutil

        made = self.screenshot(name, widget, bbox)
        kept = tmp_path / made.name
        shutil.copyfile(made, kept)
        folder = os.environ.get(SHOTS_ENV)
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            shutil.copyfile(made, Path(folder) / made.name)
        return kept


_ROOTS: list[tk.Tk] = []   # a Tk interpreter must be deleted on the thread that made it


@pytest.fixture(autouse=True)
def english_afterwards(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The window speaks English here whatever the machine's locale ("system" reads it),
    and the process's language is English again after a test that spoke Chinese."""
    from serpent_tk.ui.language import formats, translate

    monkeypatch.setenv("LANGUAGE", "en_US")
    formats._locale_for.cache_clear()
    yield
    translate.use("en")
    formats._locale_for.cache_clear()


@pytest.fixture(autouse=True)
def tk_objects_die_on_this_thread() -> Iterator[None]:
    """Tk objects (roots, StringVars) must be freed on the Tk thread. While a window test
    runs, no cyclic garbage collection happens on the gateway's or the MCP server's threads;
    afterwards it runs here, once everything else is torn down."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect()


@pytest.fixture
def gateway() -> Iterator[Gateway]:
    dirs = app_dirs().ensure()
    gw = Gateway(SettingsStore(dirs.settings_file))
    yield gw
    gw.shutdown()


@pytest.fixture
def app(display: str, gateway: Gateway) -> Iterator[App]:
    dirs = app_dirs().ensure()
    store = SettingsStore(dirs.settings_file)
    port = free_port()
    store.update(lambda s: setattr(s.mcp, "port", port))
    settings = store.load().settings
    credentials = CredentialStore(dirs.credentials_file)
    service = McpService(gateway, credentials, port=port, endpoint_file=endpoint_file(dirs))
    root = tk.Tk(className="Serpent")
    services = WindowServices(bus=UiBus(), gateway=gateway, settings_store=store,
                              settings=settings,
                              mcp=DesktopMcpControls(credentials, service=service),
                              credentials=credentials, drops=enable_drops(root))
    window, close = attach(root, services)
    root.geometry("1400x860+0+0")
    app = App(root, window, services, service, credentials, close)
    try:
        yield app
    finally:
        close()
        service.stop()
        window = services.window or window      # a language change made another window
        window.commands.shutdown(wait=True)
        window.thumbnails._decoder.shutdown(wait=True)
        services.bus.discard_pending()      # answers that arrived after the close
        _ROOTS.append(root)
        del app, window, services


# -- the SDK's MCP client, run on its own thread while the test pumps Tk ----------------------

async def _call(url: str, token: str, tool: str, args: dict[str, Any],
                mode: str) -> dict[str, Any]:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"},
                              timeout=httpx2.Timeout(30, read=120))
    async with http, Client(streamable_http_client(url, http_client=http), mode=mode) as client:
        result = await client.call_tool(tool, args)
        assert result.structured_content is not None, result
        return dict(result.structured_content)


def mcp_call(url: str, token: str, tool: str, args: dict[str, Any],
             mode: str = "legacy") -> dict[str, Any]:
    """One tool call by an AI client over real HTTP (blocking; run it off the Tk thread)."""
    return asyncio.run(asyncio.wait_for(_call(url, token, tool, args, mode), 60))
