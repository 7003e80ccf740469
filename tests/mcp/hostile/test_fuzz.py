"""Every tool fuzzed through real MCP HTTP against a real worker, with arguments built from the
tool's own `inputSchema` (valid, borderline, hostile: wrong types, huge and control-character
strings, path tricks, special files, symlink loops).

What must hold: every answer is a tool result whose error code is one docs/mcp.md documents,
never INTERNAL, never a traceback; the server stays up; the library afterwards has rows equal
to files and passes SQLite's integrity check; nothing our code logs is an error. Example
counts are bounded and derandomized for CI (steady); `SERPENT_LONG_TESTS=1` runs many more,
randomized. The output says how the answers came out; `FUZZ_DEBUG=1` prints every error
answer besides.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import sqlite3
import threading
from collections import Counter
from collections.abc import Awaitable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from mcp import Client
from mcp.shared.exceptions import MCPError

from serpent_tk.logs import setup_logging
from serpent_tk.paths import app_dirs
from tests.conftest import ROOT
from tests.mcp.conftest import Server, connect, make_images
from tests.mcp.hostile.schema_fuzz import Pools, tool_arguments

T = TypeVar("T")
LONG = os.environ.get("SERPENT_LONG_TESTS") == "1"
EXAMPLES_PER_TOOL = 150 if LONG else 12
CALL_TIMEOUT_S = 90.0
TRACEBACK = re.compile(r"Traceback \(most recent call last\)|File \"[^\"]+\", line \d+")


def documented_codes() -> set[str]:
    """The stable error codes of docs/mcp.md's error table (its first column)."""
    text = (ROOT / "docs" / "mcp.md").read_text(encoding="utf-8")
    table = text.split("<!-- error-codes:start -->", 1)[1].split("<!-- error-codes:end -->")[0]
    codes = {code for line in table.splitlines() if line.startswith("| `")
             for code in re.findall(r"`([A-Z_]+)`", line.split(" | ")[0])}
    assert {"INVALID_ARGUMENT", "PATH_FORBIDDEN", "DISK_FULL", "INTERNAL"} <= codes, codes
    return codes


class Caller:
    """SDK clients (both eras) on a loop of their own, called from the sync test."""

    def __init__(self, url: str, token: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.clients: dict[str, Client] = {}
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(url, token), daemon=True)
        self._thread.start()
        assert self._ready.wait(60), "the fuzz clients did not connect"
        if self._failure is not None:
            raise self._failure

    def _run(self, url: str, token: str) -> None:
        async def main() -> None:
            self._stop = asyncio.Event()
            try:
                async with connect(url, token, "legacy") as legacy, \
                        connect(url, token, "auto") as modern:
                    self.clients = {"legacy": legacy, "auto": modern}
                    self._ready.set()
                    await self._stop.wait()
            except BaseException as error:  # noqa: BLE001 - reported to the test thread
                self._failure = error
                self._ready.set()

        self.loop.run_until_complete(main())

    def run(self, coro: Awaitable[T]) -> T:
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, self.loop)  # type: ignore
        return future.result(CALL_TIMEOUT_S)

    def call(self, tool: str, args: dict[str, Any], era: str = "legacy") -> Any:
        return self.run(self.clients[era].call_tool(tool, args))

    def ok(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        envelope = self.call(tool, args).structured_content
        assert envelope["status"] == "ok", (tool, envelope)
        result: dict[str, Any] = envelope["result"]
        return result

    def close(self) -> None:
        if self._stop is not None:
            self.loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)
        self.loop.close()


def special_files(root: Path, library_path: str) -> list[str]:
    """Paths that are not what they seem: a FIFO, a symlink loop, devices, Serpent's own..."""
    root.mkdir()
    os.mkfifo(root / "pipe.png")
    (root / "loop-a").symlink_to(root / "loop-b")
    (root / "loop-b").symlink_to(root / "loop-a")
    (root / "dangling.png").symlink_to(root / "nowhere.png")
    (root / "mem.png").symlink_to("/proc/self/mem")
    (root / "empty.png").write_bytes(b"")
    (root / "parent").mkdir()
    (root / "exports").mkdir()
    dirs = app_dirs()
    # Everything a tool could write to stays inside the test's folder (the suite runs as
    # root: "/" or "/etc/x" would be written to); the system paths below are refused first.
    return [str(root / "pipe.png"), str(root / "loop-a"), str(root / "dangling.png"),
            str(root / "mem.png"), str(root / "empty.png"), str(root / "parent"),
            str(root / "exports"), str(root / "exports" / "fuzz.zip"), str(root / "missing"),
            "/proc/self/mem", "/proc/self/environ", "/dev/zero", "/dev/null", "/sys",
            str(dirs.credentials_file), str(dirs.config), str(dirs.log),
            f"{library_path}/library.sqlite", f"{library_path}/files", library_path,
            "../../../etc/passwd", "relative/picture.png", "~", "~/nothing.png",
            (root / "parent").as_uri(), "file://elsewhere/share/x.png",
            "C:\\Windows\\x.png", "\\\\server\\share\\x.png", str(root) + "/\x00.png",
            str(root) + "/a\nb.png", "/" + "a" * 300, str(root) + "/" + "é" * 200 + ".png",
            str(root / "parent" / ".." / "exports" / ".." / "parent"),
            str(root / "loop-a" / ".." / "parent")]


@pytest.fixture
def fuzz_target(server: Server, tmp_path: Path) -> Iterator[tuple[Caller, Pools, str]]:
    setup_logging(app_dirs().log)
    token = server.token("Fuzzer", "full-access")
    caller = Caller(server.url, token)
    try:
        (tmp_path / "libraries").mkdir()
        ref = caller.ok("serpent_library_create", {"selectedParentPath": str(tmp_path /
                                                                              "libraries"),
                                                   "name": "Fuzzed"})
        library = ref["libraryId"]
        pictures = make_images(tmp_path / "pictures", 6)
        imported = caller.ok("serpent_file_import", {"libraryId": library, "sourcePaths": [
            str(p) for p in pictures], "tags": ["sky", "sea"]})
        assets = [i["assetId"] for i in imported["items"]]
        folder = caller.ok("serpent_folder_create", {"libraryId": library, "name": "Refs"})
        collection = caller.ok("serpent_collection_create", {"libraryId": library,
                                                             "name": "Picks"})
        caller.ok("serpent_asset_move", {"libraryId": library, "assetIds": assets[:2],
                                         "folderId": folder["id"]})
        pools = Pools(library_ids=[library] * 8 + ["lib_zzzzzzzzzzzz"],
                      asset_ids=[*assets, "ast_zzzzzzzzzzzz"],
                      folder_ids=[folder["id"], folder["id"], "fld_zzzzzzzzzzzz"],
                      collection_ids=[collection["id"], collection["id"], "col_zzzzzzzzzzz"],
                      tag_names=["sky", "sea", "new tag"], task_ids=["tsk_zzzzzzzzzzzz"],
                      linked_folder_ids=["lnk_zzzzzzzzzzzz"],
                      paths=[str(pictures[0]), str(tmp_path / "pictures"),
                             *special_files(tmp_path / "special", ref["path"])])
        yield caller, pools, ref["path"]
    finally:
        caller.close()


OUTCOMES: Counter[str] = Counter()  # what the answers were, for the test's output


def check_answer(tool: str, args: dict[str, Any], answer: Any, codes: set[str]) -> None:
    shown = repr(args)[:500]
    assert not isinstance(answer, BaseException), f"{tool}({shown}) raised {answer!r}"
    envelope = answer.structured_content
    assert envelope is not None, f"{tool}({shown}): no structured content"
    texts = [c.text for c in answer.content if c.type == "text"]
    assert texts and json.loads(texts[-1]) == envelope
    assert not TRACEBACK.search(texts[-1]), f"{tool}({shown}) answered a traceback"
    status = envelope.get("status")
    assert status in ("ok", "error", "confirmation_required"), envelope
    OUTCOMES[status if status != "error" else envelope["error"]["code"]] += 1
    if os.environ.get("FUZZ_DEBUG") and status == "error":
        print("error answer:", tool, envelope["error"]["code"], envelope["error"].get("field"),
              envelope["error"]["message"][:100])
    if status == "error":
        code = envelope["error"]["code"]
        assert code in codes and code != "INTERNAL", f"{tool}({shown}) -> {envelope}"


def restore(caller: Caller, library: str, library_path: str) -> None:
    """After a tool's examples: the library under test open again, every other one closed."""
    opened = caller.ok("serpent_library_list_open", {})["items"]
    for ref in opened:
        if ref["libraryId"] != library:
            caller.ok("serpent_library_close", {"libraryId": ref["libraryId"]})
    if not any(ref["libraryId"] == library for ref in opened):
        caller.ok("serpent_library_open", {"path": library_path})


def fuzz_one_tool(caller: Caller, name: str, strategy: Any, codes: set[str]) -> int:
    """Run one tool's examples; returns how many calls were made."""
    calls = 0

    @settings(max_examples=EXAMPLES_PER_TOOL, deadline=None, derandomize=not LONG,
              database=None, suppress_health_check=list(HealthCheck))
    @given(args=strategy)
    def one_call(args: dict[str, Any]) -> None:
        nonlocal calls
        era = "auto" if len(repr(args)) % 3 == 0 else "legacy"
        try:
            answer = caller.call(name, args, era)
        except MCPError as error:
            answer = error
        calls += 1
        check_answer(name, args, answer, codes)

    one_call()
    return calls


@pytest.mark.timeout(3600 if LONG else 300)
def test_every_tool_survives_arguments_built_from_its_input_schema(
        fuzz_target: tuple[Caller, Pools, str]) -> None:
    caller, pools, library_path = fuzz_target
    library = pools.library_ids[0]
    codes = documented_codes()
    tools = caller.run(caller.clients["legacy"].list_tools()).tools
    assert len(tools) > 50
    calls = 0
    for tool in sorted(tools, key=lambda t: t.name):
        calls += fuzz_one_tool(caller, tool.name, tool_arguments(tool.input_schema, pools),
                               codes)
        restore(caller, library, library_path)
    # the server is alive and the library intact: rows equal files, SQLite agrees
    assert caller.ok("serpent_library_list_open", {})["items"]
    refreshed = caller.ok("serpent_library_refresh", {"libraryId": library})
    assert refreshed["missingFiles"] == 0 and refreshed["orphansMoved"] == 0, refreshed
    caller.ok("serpent_library_close", {"libraryId": library})
    with sqlite3.connect(f"{Path(library_path, 'library.sqlite').as_uri()}?mode=ro",
                         uri=True) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    caller.ok("serpent_library_open", {"path": library_path})
    for handler in logging.getLogger().handlers:
        handler.flush()
    log = (app_dirs().log / "serpent.log").read_text(encoding="utf-8")
    errors = [line for line in log.splitlines() if " ERROR " in line]
    assert not errors, errors[:10]
    print(f"\nfuzz: {calls} calls over {len(tools)} tools: {dict(OUTCOMES.most_common())}")
