"""Plugin analysers: the analysis step after imports, continued in the plugin hosts.

Main process; one daemon thread. Every import (from the window, an AI client, a plugin)
queues Serpent's own analysis task; `AnalysisFeeder.on_queued` tells this thread its task
id, and once that task is finished (done, failed or cancelled: Serpent's palette and hash
are in the library) the imported assets go, in batches, to every running plugin's analysers,
one after the other. An analyser writes what it finds through `api.call` (tags, notes,
ratings...), like any plugin command. Nothing here waits on the Tk thread or the MCP loop.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import wait

from serpent_tk.automation.analysis import AnalysisRequest
from serpent_tk.automation.caller import Caller
from serpent_tk.plugins.contributions import Limits
from serpent_tk.plugins.supervisor import PluginProcess

log = logging.getLogger("serpent.plugins")

BATCH = 100
POLL_S = 0.25
CORE_ANALYSIS_WAIT_S = 15 * 60.0  # past this, the plugins get the assets anyway
WATCHER = Caller(source="plugin", mode="read-only", credential=None, label="Serpent plugins")
Running = Callable[[], list[tuple[PluginProcess, list[str]]]]  # (host, its analysers)


class PluginAnalysers:
    """Feeds imported assets to the running plugins' analysers. Thread-safe."""

    def __init__(self, gateway: object, running: Running, limits: Limits) -> None:
        self._gateway = gateway
        self._running = running
        self._limits = limits
        self._queue: queue.Queue[tuple[AnalysisRequest, str]] = queue.Queue()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="plugin-analysers",
                                        daemon=True)
        self._unsubscribe = gateway.analysis_feeder.on_queued(  # type: ignore[attr-defined]
            self._queued)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._unsubscribe()
        self._stopping.set()
        self._thread.join(timeout)

    def _queued(self, request: AnalysisRequest, task_id: str) -> None:
        if request.reason == "import" and self._running():
            self._queue.put((request, task_id))

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                request, task_id = self._queue.get(timeout=1.0)
            except queue.Empty:
                continue
            try:
                self._after_core_analysis(request.library_id, task_id)
                self._analyse(request)
            except Exception:
                log.exception("plugin analysers of %d assets failed", len(request.asset_ids))

    def _after_core_analysis(self, library_id: str, task_id: str) -> None:
        deadline = time.monotonic() + CORE_ANALYSIS_WAIT_S
        while task_id and not self._stopping.is_set() and time.monotonic() < deadline:
            answer = self._gateway.submit(  # type: ignore[attr-defined]
                "task.get", {"libraryId": library_id, "taskId": task_id}, WATCHER).result(60)
            status = (answer.get("result") or {}).get("status")
            if answer.get("status") != "ok" or status not in ("queued", "running"):
                return
            self._stopping.wait(POLL_S)

    def _analyse(self, request: AnalysisRequest) -> None:
        ids = list(request.asset_ids)
        for process, analysers in self._running():
            for start in range(0, len(ids), BATCH):
                for name in analysers:
                    if self._stopping.is_set():
                        return
                    done = process.invoke("analyse", name, request.library_id,
                                          {"assetIds": ids[start:start + BATCH]},
                                          self._limits.analyser_s)
                    while not wait([done], timeout=1.0).done:
                        if self._stopping.is_set():
                            return
                    if done.exception() is not None:
                        log.info("analyser %s of plugin %s: %s", name, process.found.id,
                                 done.exception())
