"""The shipped `ocr-text` plugin on the plugin analyser API, end to end: posters with Chinese
and English words imported through the gateway are read by the plugin's analyser in its own
host process, and their words are found by `asset.search` (words and the `found-text` rule),
shown by `asset.get`; a picture imported before the plugin was on is read when it starts;
the reading never touches the network."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from serpent_tk.automation.caller import Caller
from serpent_tk.automation.gateway import Gateway
from serpent_tk.paths import app_dirs
from serpent_tk.plugins.manager import PluginManager
from serpent_tk.settings import SettingsStore
from tests.automation.conftest import ok
from tests.library import mediafiles
from tests.plugins.conftest import TEST_LIMITS
from tests.waiting import wait_until

pytestmark = pytest.mark.skipif(mediafiles.cjk_font() is None,
                                reason="no CJK font to draw the posters (fonts-wqy-microhei)")
UI = Caller.ui()
OCR_WAIT_S = 240.0  # the engine's first start and a few pictures on a busy 2-core machine


@pytest.fixture
def library(gateway: Gateway, tmp_path: Path) -> str:
    parent = tmp_path / "libraries"
    parent.mkdir()
    return str(ok(gateway, "library.create", {"selectedParentPath": str(parent),
                                              "name": "Posters"})["libraryId"])


@pytest.fixture
def manager(gateway: Gateway) -> Iterator[PluginManager]:
    dirs = app_dirs().ensure()
    made = PluginManager(gateway, SettingsStore(dirs.settings_file), dirs.plugins,
                         limits=TEST_LIMITS, entry_points=False)
    made.start().result(60)
    try:
        yield made
    finally:
        made.shutdown()


def _import(gateway: Gateway, library: str, paths: list[Path]) -> dict[str, str]:
    out = ok(gateway, "file.import", {"libraryId": library,
                                      "sourcePaths": [str(p) for p in paths]}, UI)
    failed = [item for item in out["items"] if not item["assetId"]]
    assert not failed, [(i["sourcePath"], i["errorCode"], i["error"]) for i in failed]
    return {Path(i["sourcePath"]).name: i["assetId"] for i in out["items"]}


def _found(gateway: Gateway, library: str, ids: list[str]) -> dict[str, Any] | None:
    items = ok(gateway, "asset.get", {"libraryId": library, "assetIds": ids}, UI)["items"]
    if all(item["foundText"] for item in items):
        return {item["id"]: item for item in items}
    return None


def _names(gateway: Gateway, library: str, **search: Any) -> set[str]:
    out = ok(gateway, "asset.search", {"libraryId": library, **search}, UI)
    return {item["name"] for item in out["items"]}


def test_the_words_in_posters_are_found(gateway: Gateway, manager: PluginManager,
                                        library: str, tmp_path: Path) -> None:
    src = tmp_path / "src"
    early = mediafiles.make_poster(src / "early.jpg", ["山水画展", "Ink Landscapes"])
    before = _import(gateway, library, [early])  # before the plugin is on
    assert manager.set_enabled("ocr-text", True).status == "running"
    posters = [
        mediafiles.make_poster(src / "festival.jpg", ["夏日音乐节", "Summer Music Festival"]),
        mediafiles.make_poster(src / "coffee.jpg", ["咖啡 Coffee", "Open Daily 8-20"],
                               background=(30, 40, 50)),
    ]
    plain = tmp_path / "src" / "plain.png"
    mediafiles.make_svg(tmp_path / "x.svg")  # not a picture the analyser reads (kind vector)
    from PIL import Image

    Image.new("RGB", (400, 300), (120, 160, 200)).save(plain)
    ids = {**before, **_import(gateway, library, [*posters, plain, tmp_path / "x.svg"])}
    items = wait_until(lambda: _found(gateway, library, [ids["early.jpg"], ids["festival.jpg"],
                                                          ids["coffee.jpg"]]),
                       "the posters' words", timeout=OCR_WAIT_S)
    festival = items[ids["festival.jpg"]]["foundText"]
    assert festival[0]["source"] == "ocr-text"
    assert "夏日音乐节" in festival[0]["text"] and "Summer Music" in festival[0]["text"]
    assert "山水画展" in items[ids["early.jpg"]]["foundText"][0]["text"]  # read when it started

    assert _names(gateway, library, text="音乐节") == {"festival"}
    assert _names(gateway, library, text="summer festival") == {"festival"}
    assert _names(gateway, library, text="咖啡") == {"coffee"}
    assert _names(gateway, library, text="landscapes") == {"early"}
    rule = {"match": "all", "rules": [{"field": "found-text", "op": "contains",
                                       "value": "coffee"}]}
    assert _names(gateway, library, rules=rule) == {"coffee"}

    def plain_read() -> bool:  # the plain picture was looked at, and has no text
        answer = gateway.submit("analyser.pending", {
            "libraryId": library, "analyser": "ocr-text/read-text", "version": 1,
            "kinds": ["image"]}, Caller.plugin("ocr-text")).result(60)
        return answer["status"] == "ok" and answer["result"]["assetIds"] == []

    wait_until(plain_read, "every picture read", timeout=OCR_WAIT_S)
    plain_item = ok(gateway, "asset.get", {"libraryId": library,
                                           "assetIds": [ids["plain.png"]]}, UI)["items"][0]
    assert plain_item["foundText"] == []
    # found text is no undo step: the import is still the last one
    history = ok(gateway, "history.list", {"libraryId": library}, UI)["items"]
    assert history[0]["command"] == "file.import"


def test_the_internal_commands_are_for_plugins_only(gateway: Gateway, library: str) -> None:
    for caller in (UI, Caller.mcp("claude", "full-access", "Claude")):
        answer = gateway.submit("analyser.record", {
            "libraryId": library, "analyser": "ocr-text/read-text", "version": 1,
            "found": {}}, caller).result(60)
        assert answer["status"] == "error" and answer["error"]["code"] == "NOT_FOUND"
        assert answer["error"]["message"] == "Unknown tool: analyser.record"
    assert "analyser.record" not in {s.name for s in gateway.registry.commands.values()
                                     if not s.internal}


NO_NETWORK = """
import socket, sys
def refuse(event, args):
    if event in ("socket.connect", "socket.getaddrinfo", "socket.gethostbyname",
                 "urllib.Request"):
        raise RuntimeError(f"network: {event} {args!r}")
sys.addaudithook(refuse)
from serpent_tk.plugins.builtin.ocr_text.reader import TextReader
print(__import__("json").dumps(TextReader().read(sys.argv[1])))
"""


def test_reading_never_reaches_the_network(tmp_path: Path) -> None:
    poster = mediafiles.make_poster(tmp_path / "p.jpg", ["离线识别", "Offline Reading"])
    done = subprocess.run([sys.executable, "-c", NO_NETWORK, str(poster)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    text = json.loads(done.stdout.strip().splitlines()[-1])
    assert "离线识别" in text and "Offline" in text
