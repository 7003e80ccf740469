"""Analysis after import: the queue the completion hooks fill, and the feeder that hands it
to the library's worker.

Thread-safe. Every import, from the window or from an AI client, queues its new assets here
(the same hook for both). The feeder thread takes them in order and asks the library's worker
to analyse them (`analysis.run`) — only when the registry declares that command; a registry
without it leaves the requests waiting in the queue, where the window and tests can see them.
Who wants to follow the analysis step (plugin analysers run after it) hears of each queued
task with `on_queued`.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from library.client import LibraryHost
from library.protocol import CallMeta
from serpent_tk.automation.registry import Registry

log = logging.getLogger("serpent.automation.analysis")

ANALYSIS_COMMAND = "analysis.run"
FEEDER_META = CallMeta(source="system", credential=None, label="Serpent")


@dataclass(frozen=True)
class AnalysisRequest:
    library_id: str
    asset_ids: tuple[str, ...]
    reason: str
    actor_label: str
    source: str


class AnalysisQueue:
    """Assets waiting for analysis, oldest first. Thread-safe."""

    def __init__(self, limit: int = 10000) -> None:
        self._items: deque[AnalysisRequest] = deque(maxlen=limit)
        self._ready = threading.Condition()
        self._wakes = 0

    def enqueue(self, request: AnalysisRequest) -> None:
        with self._ready:
            self._items.append(request)
            self._ready.notify_all()

    def take(self, timeout: float | None = None) -> AnalysisRequest | None:
        """The oldest request, waiting up to `timeout` seconds (None: forever) for one."""
        with self._ready:
            woken = self._wakes
            if not self._ready.wait_for(lambda: bool(self._items) or self._wakes != woken,
                                        timeout):
                return None
            return self._items.popleft() if self._items else None

    def pending(self) -> list[AnalysisRequest]:
        with self._ready:
            return list(self._items)

    def discard_library(self, library_id: str) -> None:
        """Forget what waits for a library that closed or was deleted."""
        with self._ready:
            kept = [r for r in self._items if r.library_id != library_id]
            self._items.clear()
            self._items.extend(kept)

    def wake(self) -> None:
        """Make a waiting `take` return at once, with nothing if nothing is queued (used
        to stop the feeder without waiting out its timeout)."""
        with self._ready:
            self._wakes += 1
            self._ready.notify_all()

    def __len__(self) -> int:
        with self._ready:
            return len(self._items)


class AnalysisFeeder:
    """One daemon thread: queued analysis → `analysis.run` in the library's worker."""

    def __init__(self, queue: AnalysisQueue, host: LibraryHost, registry: Registry) -> None:
        self._queue = queue
        self._host = host
        self._registry = registry
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._queued: list[Callable[[AnalysisRequest, str], None]] = []

    def on_queued(self, listener: Callable[[AnalysisRequest, str], None]
                  ) -> Callable[[], None]:
        """`listener(request, task_id)` once the worker queued the request's analysis task
        (on the host's reader thread: it must not block). Returns the unsubscribe function."""
        self._queued.append(listener)
        return lambda: self._queued.remove(listener) if listener in self._queued else None

    @property
    def enabled(self) -> bool:
        return self._registry.get(ANALYSIS_COMMAND) is not None

    def start(self) -> None:
        """Start feeding, if the worker can analyse at all (else requests stay queued)."""
        if not self.enabled or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="analysis-feeder",
                                        daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stopping.set()
        self._queue.wake()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stopping.is_set():
            request = self._queue.take(timeout=1.0)
            if request is None:
                continue
            try:
                future = self._host.call(request.library_id, ANALYSIS_COMMAND,
                                         {"assetIds": list(request.asset_ids)}, FEEDER_META)
            except Exception as error:  # the host never raises here; a bug if it does
                log.warning("could not queue analysis of %d assets: %s",
                            len(request.asset_ids), error)
                continue
            future.add_done_callback(functools.partial(self._report, request=request))

    def _report(self, future: Future[Any], *, request: AnalysisRequest) -> None:
        error = future.exception()
        if error is not None:  # e.g. the library closed meanwhile: analysis resumes on demand
            log.info("analysis of %d assets in %s not queued: %s", len(request.asset_ids),
                     request.library_id, getattr(error, "code", type(error).__name__))
            return
        task_id = str((future.result().get("task") or {}).get("id", ""))
        for listener in list(self._queued):
            try:
                listener(request, task_id)
            except Exception:
                log.exception("an analysis listener failed")
