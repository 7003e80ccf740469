"""Plugin analysers: the analysis step after imports, continued in the plugin hosts, and the
assets an analyser has not looked at yet.

Main process; one daemon thread. Every import (from the window, an AI client, a plugin)
queues Serpent's own analysis task; `AnalysisFeeder.on_queued` tells this thread its task
id, and once that task is finished (done, failed or cancelled: Serpent's palette and hash
are in the library) the imported assets of each analyser's kinds go, in batches, to every
running plugin's analysers, one after the other. When a plugin with analysers starts, and
when a library opens, each analyser also gets every asset of its kinds it has not looked at
in its version (`analyser.pending`), so a plugin turned on later reads the library's
earlier assets, and a newer version reads them again. What an analyser returns (the text it
found in each asset) is recorded by Serpent (`analyser.record`, as `plugin:<id>`): searched
with the asset's words, shown in the inspector and `asset.get`. An analyser may also act
through `api.call` (tags, notes...). Nothing here waits on the Tk thread or the MCP loop.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import wait
from dataclasses import dataclass
from typing import Any

from serpent_tk.automation.analysis import AnalysisRequest
from serpent_tk.automation.caller import Caller
from serpent_tk.automation.envelope import Envelope, error_of, result_of
from serpent_tk.automation.events import LibraryLifecycle
from serpent_tk.plugins.contributions import Limits
from serpent_tk.plugins.supervisor import PluginProcess
from serpent_tk.plugins.wire import AnalyserInfo

log = logging.getLogger("serpent.plugins")

BATCH = 10  # assets per call of an analyser (it has `Limits.analyser_s` for them)
MAX_AMONG = 1000  # an import's assets asked about at once
POLL_S = 0.25
ANSWER_S = 60.0
CORE_ANALYSIS_WAIT_S = 15 * 60.0  # past this, the plugins get the assets anyway
WATCHER = Caller(source="plugin", mode="read-only", credential=None, label="Serpent plugins")
Running = Callable[[], list[tuple[PluginProcess, list[AnalyserInfo]]]]  # (host, analysers)


@dataclass(frozen=True)
class _Work:
    library_id: str
    asset_ids: tuple[str, ...] | None  # an import's; None: every asset not looked at yet
    task_id: str = ""  # the import's analysis task, waited for first
    plugin_id: str | None = None  # only this plugin's analysers (one that just started)


class PluginAnalysers:
    """Feeds assets to the running plugins' analysers and records what they find.
    Thread-safe."""

    def __init__(self, gateway: Any, running: Running, limits: Limits) -> None:
        self._gateway = gateway
        self._running = running
        self._limits = limits
        self._queue: queue.Queue[_Work | None] = queue.Queue()  # None: stop now
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="plugin-analysers",
                                        daemon=True)
        self._unsubscribe = gateway.analysis_feeder.on_queued(self._queued)
        self._unlisten = gateway.subscribe(self._event)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._unsubscribe()
        self._unlisten()
        self._stopping.set()
        self._queue.put(None)  # the thread stops now, not after its wait times out
        self._thread.join(timeout)

    def started(self, plugin_id: str) -> None:
        """A plugin with analysers started: what it has not looked at, in every open
        library."""
        for ref in self._gateway.libraries.list_open():
            self._queue.put(_Work(str(ref["libraryId"]), None, plugin_id=plugin_id))

    def _queued(self, request: AnalysisRequest, task_id: str) -> None:
        if request.reason == "import" and self._running():
            self._queue.put(_Work(request.library_id, tuple(request.asset_ids), task_id))

    def _event(self, event: object) -> None:
        if isinstance(event, LibraryLifecycle) and event.action == "opened" \
                and self._running():
            self._queue.put(_Work(event.library_id, None))

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                work = self._queue.get(timeout=1.0)
            except queue.Empty:
                continue
            if work is None:
                continue
            try:
                if work.task_id:
                    self._after_core_analysis(work.library_id, work.task_id)
                for process, analysers in self._running():
                    if work.plugin_id is None or process.found.id == work.plugin_id:
                        for info in analysers:
                            self._feed(process, info, work)
            except Exception:
                log.exception("plugin analysers in %s failed", work.library_id)

    def _after_core_analysis(self, library_id: str, task_id: str) -> None:
        deadline = time.monotonic() + CORE_ANALYSIS_WAIT_S
        while not self._stopping.is_set() and time.monotonic() < deadline:
            answer = self._ask("task.get", {"libraryId": library_id, "taskId": task_id})
            status = (result_of(answer) or {}).get("status")
            if answer["status"] != "ok" or status not in ("queued", "running"):
                return
            self._stopping.wait(POLL_S)

    def _feed(self, process: PluginProcess, info: AnalyserInfo, work: _Work) -> None:
        """Hand the analyser every pending asset of `work`, a batch at a time."""
        among = list(work.asset_ids) if work.asset_ids is not None else None
        parts = [among[i:i + MAX_AMONG] for i in range(0, len(among), MAX_AMONG)] \
            if among is not None else [None]
        name = f"{process.found.id}/{info.name}"
        for part in parts:
            after: str | None = None
            while not self._stopping.is_set():
                asked: dict[str, Any] = {"libraryId": work.library_id, "analyser": name,
                                         "version": info.version, "kinds": info.kinds,
                                         "limit": BATCH}
                if part is not None:
                    asked["assetIds"] = part
                if after is not None:
                    asked["after"] = after
                answer = self._ask("analyser.pending", asked)
                if answer["status"] != "ok":
                    log.info("analyser %s: %s", name, error_of(answer))
                    return
                ids = list(answer["result"]["assetIds"])
                if ids and not self._analyse(process, info, work.library_id, name, ids):
                    return
                if not answer["result"]["more"] or not ids:
                    break
                after = ids[-1]

    def _analyse(self, process: PluginProcess, info: AnalyserInfo, library_id: str,
                 name: str, ids: list[str]) -> bool:
        """One batch through the analyser, its findings recorded; False: stop feeding it."""
        done = process.invoke("analyse", info.name, library_id, {"assetIds": ids},
                              self._limits.analyser_s)
        while not wait([done], timeout=1.0).done:
            if self._stopping.is_set():
                return False
        error = done.exception()
        if error is not None:
            log.info("analyser %s: %s", name, error)
            if not process.running:
                return False  # it crashed or hung: the manager has turned it off
            found: dict[str, str] = {}
        else:
            returned = done.result().get("found")
            found = {str(k): str(v) for k, v in returned.items()} if isinstance(
                returned, dict) else {asset_id: "" for asset_id in ids}
        failed = [asset_id for asset_id in ids if asset_id not in found]
        answer = self._ask("analyser.record", {
            "libraryId": library_id, "analyser": name, "version": info.version,
            "found": {k: v for k, v in found.items() if k in ids}, "failed": failed},
            Caller.plugin(process.found.id))
        if answer["status"] != "ok":
            log.info("what analyser %s found was not recorded: %s", name, error_of(answer))
            return False
        return True

    def _ask(self, command: str, arguments: dict[str, Any],
             caller: Caller = WATCHER) -> Envelope:
        answer: Envelope = self._gateway.submit(command, arguments, caller).result(
            ANSWER_S)
        return answer
