"""The preview pool: thumbnails made on every core after an import, the window's first.

Runs in the worker process; thread-safe. One pool per open library: its threads (two lanes
of one per core, below) take work from a priority queue: previews of newly imported images
(handed over every few files copied), then analysis (palette, hashes: `analyser`, submitted
by the analysis task). Threads, not processes: Pillow releases the GIL while it decodes,
scales and encodes (measured: a pure-Python thread keeps 82-94 % of its speed while another
makes 2 MP JPEG thumbnails), so threads use every core without a process pool's start-up and
copying. What the window asks for (`asset.thumbnail`, made on the derive threads) goes
first: while such a request is being made, the pool starts nothing new (`interactive`), so
visible cells never wait behind a batch of a thousand. The window's requests are made on the
derive threads, at the normal priority.

Two lanes (`LOWERED` and `WORKERS` threads), one working at a time: while an import copies,
threads at a lower CPU priority (`background`) make its previews, so the copying goes first
and they take what it leaves; once the copying ends (`Importing.copied`, before its last
batch is made durable and recorded: for 240 photos 20-40 ms in which the lowered lane alone
worked while the import waited on the disk), the previews still queued are the person's
wait, and threads at the normal priority make them (a thread cannot raise its priority
again without privileges, so the lanes are separate threads). Lowered, they got
almost nothing while other programs kept the cores busy: 240 × 2 MP photos were ready 0.87x
to 2.92x the time of a pool of processes doing the same work (bench/README.md). The lowered
lane has a thread fewer: the copying has a core. Analysis stays lowered. Letting one
normal-priority thread work beside the copying as well (so that a busy machine gives the
import two cores' share throughout, as it gives the pool) was measured and not kept: the
import call answered later (1.6-2.8 s against 0.7-2.0 s for 240 photos) and the whole was no
steadier (four pairs each at load 5-6: 0.90x-1.70x against 0.83x-2.30x).

While an import copies, the previews of small pictures (`LIGHT_PIXELS` or fewer) wait for the
copying to end: making one is mostly Python and a new file, which takes the writer's GIL and the
disk's journal away from the copying and gains nothing (measured: 300 small files import in
half the time); a large picture's preview is Pillow decoding without the GIL and starts at
once, alongside the copying. Queuing a small picture's preview wakes no pool thread (a woken
thread only takes the GIL from the import to go back to sleep).

The previews of an import show as one task (`kind` "previews"; no command runs it, so its
events' `command` is empty) that lives in memory only (previews are derived files: making
them never writes the library's database): `task.get` and `task.cancel` know it, its
progress goes out as `task.progress` events (the status bar) and through
`asset.preview-status`. A worker that closes simply stops; previews are also made when
asked for, and the analysis task makes any missing.
"""

from __future__ import annotations

import contextlib
import functools
import heapq
import itertools
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from library.catalogue import task_kinds
from library.protocol import TaskProgress
from library.schemas import Task
from library.worker.files import background
from library.worker.files.thumbstore import NoThumbnail, store_for
from library.worker.services import Services
from library.worker.store.identity import new_id, to_datetime, utc_now

log = logging.getLogger("library.worker.previews")

WORKERS = max(2, os.cpu_count() or 2)
# the lane beside an import's copying: one core is the copying's (two threads on the one
# core left fought each other and the copying for the GIL: 240 photos 1.21-1.27x of a pool
# of processes, 1.18-1.23x with one, and the import call 0.45 against 0.38 s)
LOWERED = max(1, WORKERS - 1)
PREVIEW_SIZE = 256  # the bucket the grid and analysis use
IMPORTED, ANALYSIS = 1, 2  # priorities: lower runs first
KIND = task_kinds.PREVIEWS
MAX_PAUSE = 2.0  # seconds background work waits at most for the window's requests
EVENT_EVERY = 0.25
KEEP_ENDED = 20
LIGHT_PIXELS = 512 * 512  # at most this many: the preview waits for the import's copying


@dataclass(frozen=True)
class Job:
    asset_id: str
    sha256: str
    ext: str
    width: int | None
    height: int | None

    @property
    def light(self) -> bool:
        """A small picture: its preview is cheap, and mostly Python (see the module text)."""
        return bool(self.width and self.height and self.width * self.height <= LIGHT_PIXELS)


@dataclass
class Run:
    """The previews of one or more imports in a row, shown as one task."""

    task_id: str
    created_at: str
    total: int = 0
    done: int = 0
    failed: int = 0
    skipped: int = 0  # not made: the task was cancelled first
    status: str = "running"  # running, done, cancelled
    finished_at: str | None = None
    last_event: float = 0.0
    end_told: bool = False  # its last event (done = total) went out: nothing follows it
    cancel_requested: bool = False
    stopped: threading.Event = field(default_factory=threading.Event)

    @property
    def finished(self) -> bool:
        return self.status != "running"

    def task(self) -> Task:
        made = self.done - self.failed - self.skipped
        message = ("Making previews" if not self.finished else
                   "Cancelled; the previews made stay." if self.status == "cancelled" else
                   f"Made {made} preview{'s' if made != 1 else ''}")
        return Task(id=self.task_id, kind=KIND, status=self.status,  # type: ignore[arg-type]
                    done=self.done, total=self.total, message=message,
                    created_at=to_datetime(self.created_at),
                    started_at=to_datetime(self.created_at),
                    finished_at=to_datetime(self.finished_at) if self.finished_at else None,
                    result={"made": made, "failed": self.failed} if self.finished else None,
                    cancel_requested=self.cancel_requested and not self.finished)


@dataclass(order=True)
class _Work:
    priority: int
    seq: int
    run: Callable[[], Any] = field(compare=False)
    future: Future[Any] = field(compare=False)
    asset_id: str | None = field(compare=False, default=None)


class Importing:
    """One import under way, as the pool knows it (`PreviewPool.importing`)."""

    def __init__(self, pool: PreviewPool) -> None:
        self._pool = pool
        self.copying = True  # (the pool's lock)

    def copied(self) -> None:
        """Its copying ended (what is left is making its last batch durable and recording
        it): its previews still queued are the person's wait now. Said once; again is a
        no-op."""
        self._pool._copying_ended(self)


class PreviewPool:
    def __init__(self, services: Services) -> None:
        self.services = services
        self.store = store_for(services.layout)
        lock = threading.Lock()
        self._cond = threading.Condition(lock)  # the pool's state; the lowered lane waits on it
        self._foreground = threading.Condition(lock)  # the normal-priority lane waits on this
        self._telling = threading.Lock()  # one report at a time, so they go out in order
        self._heap: list[_Work] = []
        self._seq = itertools.count()
        self._interactive = 0
        self._paused_since: float | None = None
        self._queued: dict[str, int] = {}  # asset id -> previews queued or being made
        self._importing = 0  # imports under way: their run stays open until they end
        self._copying = 0  # imports still copying: their previews are the lowered lane's
        self._after_imports: list[_Work] = []  # light previews, started once the copying ends
        self._stopping = False
        self.run: Run | None = None
        self._ended: dict[str, Run] = {}  # the last runs that ended, for task.get
        self._threads = [threading.Thread(target=self._work, args=(lowered,), daemon=True,
                                          name=f"previews-{'low-' if lowered else ''}{n}")
                         for lowered in (True, False)
                         for n in range(LOWERED if lowered else WORKERS)]
        for thread in self._threads:
            thread.start()

    # -- asking ----------------------------------------------------------------------------
    def submit(self, work: Callable[[], Any], priority: int,
               asset_id: str | None = None, *, after_imports: bool = False) -> Future[Any]:
        """Queue `work`; `after_imports`: not before the imports under way end."""
        future: Future[Any] = Future()
        with self._cond:
            item = _Work(priority, next(self._seq), work, future, asset_id)
            if asset_id is not None:
                self._queued[asset_id] = self._queued.get(asset_id, 0) + 1
            if after_imports and self._copying:
                self._after_imports.append(item)  # no thread is woken for it (see the text)
            else:
                heapq.heappush(self._heap, item)
                lowered = not self._waited_for(item)
                (self._cond if lowered else self._foreground).notify()  # a thread that takes it
        return future

    @contextlib.contextmanager
    def interactive(self) -> Iterator[None]:
        """Someone waits for this picture now: background work starts nothing new meanwhile."""
        with self._cond:
            self._interactive += 1
            if self._paused_since is None:
                self._paused_since = time.monotonic()
        try:
            yield
        finally:
            with self._cond:
                self._interactive -= 1
                if self._interactive == 0:
                    self._paused_since = None
                    self._wake_all()

    def queued(self, asset_id: str) -> bool:
        with self._cond:
            return asset_id in self._queued

    def progress(self) -> Run | None:
        with self._cond:
            run = self.run
            return None if run is None or run.finished else Run(run.task_id, run.created_at,
                                                                run.total, run.done)

    def task(self, task_id: str) -> Task | None:
        """The previews task with this id, running or recently ended."""
        with self._cond:
            run = self.run if self.run is not None and self.run.task_id == task_id \
                else self._ended.get(task_id)
            return None if run is None else run.task()

    def cancel(self, task_id: str, wait: float) -> Task | None:
        """Stop making the previews of this task (those made stay); waits up to `wait`
        seconds for it to stop. None: not a task of this pool."""
        with self._cond:
            run = self.run if self.run is not None and self.run.task_id == task_id else None
            if run is not None and not run.finished:
                run.cancel_requested = True
        if run is not None:
            run.stopped.wait(wait)
        return self.task(task_id)

    @contextlib.contextmanager
    def importing(self) -> Iterator[Importing]:
        """An import is under way: its previews are one task, which does not end when the
        pool catches up with the copying, only once the import is over and all are made.
        The import says when its copying ends (`Importing.copied`), else its end does."""
        with self._cond:
            self._importing += 1
            self._copying += 1
            if self.run is not None and self.run.finished:
                self.run = None  # a new import: a task cancelled before is over
        handle = Importing(self)
        try:
            yield handle
        finally:
            handle.copied()
            with self._cond:
                self._importing -= 1
                run = self.run
                ended = run is not None and self._end_if_done(run)
            if ended and run is not None:
                run.stopped.set()
                self._report(run, force=True)

    def _copying_ended(self, handle: Importing) -> None:
        with self._cond:
            if not handle.copying:
                return
            handle.copying = False
            self._copying -= 1
            if not self._copying:
                for item in self._after_imports:
                    heapq.heappush(self._heap, item)
                self._after_imports.clear()
            self._wake_all()  # the copying ended: the normal lane takes over

    def _end_if_done(self, run: Run) -> bool:
        """(Under the lock.) End the run when everything asked is made and no import may
        add more; True if it ended now."""
        if run.finished or run.done < run.total or (self._importing and
                                                    not run.cancel_requested):
            return False
        run.status = "cancelled" if run.cancel_requested else "done"
        run.finished_at = utc_now()
        self._ended[run.task_id] = run
        while len(self._ended) > KEEP_ENDED:
            del self._ended[next(iter(self._ended))]
        return True

    def previews(self, jobs: list[Job]) -> None:
        """Make these previews in the background, as the current run's (or a new) task."""
        if not jobs:
            return
        with self._cond:
            if self.run is not None and self._importing and (
                    self.run.status == "cancelled" or self.run.cancel_requested):
                return  # cancelled during this import: the rest are made when asked for
            run = self.run if self.run is not None and not self.run.finished else None
            started = run is None
            if run is None:
                run = self.run = Run(new_id("tsk"), utc_now())
            run.total += len(jobs)
        for job in jobs:
            self.submit(functools.partial(self._make, job, run), IMPORTED, job.asset_id,
                        after_imports=job.light)
        self._report(run, force=started)  # a new task shows at once; later ones throttled

    # -- working ---------------------------------------------------------------------------
    def _work(self, lowered: bool) -> None:
        if lowered:
            background.lower_this_thread()  # the import the person waits for goes first
        waiting = self._cond if lowered else self._foreground
        while True:
            with self._cond:
                waiting.wait_for(lambda: self._stopping or self._mine(lowered), timeout=0.5)
                if self._stopping:
                    return
                if not self._mine(lowered):
                    continue
                item = heapq.heappop(self._heap)
            try:
                if item.future.set_running_or_notify_cancel():
                    try:
                        item.future.set_result(item.run())
                    except BaseException as error:  # the caller sees it
                        item.future.set_exception(error)
            finally:
                with self._cond:
                    if item.asset_id is not None:
                        left = self._queued.get(item.asset_id, 1) - 1
                        if left:
                            self._queued[item.asset_id] = left
                        else:
                            self._queued.pop(item.asset_id, None)
                    self._wake_all()

    def _waited_for(self, item: _Work) -> bool:
        """(Under the lock.) An import's preview once the copying ended: the normal lane's."""
        return item.priority == IMPORTED and not self._copying

    def _mine(self, lowered: bool) -> bool:
        """(Under the lock.) Is the next work for a thread of this lane, now?"""
        return bool(self._heap) and not self._held() and \
            self._waited_for(self._heap[0]) != lowered

    def _wake_all(self) -> None:
        """(Under the lock.) Every waiting thread looks again."""
        self._cond.notify_all()
        self._foreground.notify_all()

    def _held(self) -> bool:
        """Background work waits while the window's requests are made (at most MAX_PAUSE)."""
        if not self._interactive or self._paused_since is None:
            return False
        return time.monotonic() - self._paused_since < MAX_PAUSE

    def _make(self, job: Job, run: Run) -> None:
        layout = self.services.layout
        ok = True
        skipped = run.cancel_requested
        if not skipped:
            try:
                self.store.get(layout.file_for(job.sha256, job.ext), job.sha256, job.ext,
                               PREVIEW_SIZE, job.width, job.height, fresh=True)
            except (NoThumbnail, FileNotFoundError):
                ok = False  # asset.preview-status says failed / unsupported
            except Exception as error:  # one odd file never stops the others
                log.warning("preview of %s failed: %r", job.asset_id, error)
                ok = False
        with self._cond:
            run.done += 1
            run.failed += 0 if ok else 1
            run.skipped += 1 if skipped else 0
            ended = self._end_if_done(run)
            self._wake_all()
        if ended:
            run.stopped.set()
        self._report(run, force=ended)

    def _report(self, run: Run, *, force: bool = False) -> None:
        """Tell the run's progress. Reports are read and sent one at a time, so a thread
        that read an older count never sends it after another thread told the end (the
        window would take the ended task for a running one again)."""
        with self._telling:
            now = time.monotonic()
            with self._cond:
                done, total, ended = run.done, run.total, run.finished
            if run.end_told or (not force and now - run.last_event < EVENT_EVERY):
                return  # the end is always told (forced): a pool keeping up is not
            run.last_event = now
            run.end_told = ended
            self.services.emit(TaskProgress(library_id=self.services.library_id,
                                            command="", task_id=run.task_id, kind=KIND,
                                            done=done, total=total,
                                            message="Making previews"))

    def stop(self) -> None:
        with self._cond:
            self._stopping = True
            for work in [*self._heap, *self._after_imports]:
                work.future.cancel()
            self._heap.clear()
            self._after_imports.clear()
            self._wake_all()
        for thread in self._threads:
            thread.join(10)


_pools: dict[Path, PreviewPool] = {}
_pools_lock = threading.Lock()


def pool_for(services: Services) -> PreviewPool:
    """The one pool of this library in this worker (started on first use)."""
    with _pools_lock:
        pool = _pools.get(services.layout.root)
        if pool is None:
            pool = _pools[services.layout.root] = PreviewPool(services)
        return pool


def running_pool(root: Path) -> PreviewPool | None:
    with _pools_lock:
        return _pools.get(root)


def after_import(services: Services, jobs: list[Job]) -> None:
    pool_for(services).previews(jobs)


def importing(services: Services) -> contextlib.AbstractContextManager[Importing]:
    """Hold the previews task open while an import runs (see `PreviewPool.importing`)."""
    return pool_for(services).importing()


def task(root: Path, task_id: str) -> Task | None:
    """A previews task `task.get` may ask about (None: not one of ours)."""
    pool = running_pool(root)
    return None if pool is None else pool.task(task_id)


def cancel(root: Path, task_id: str, wait: float) -> Task | None:
    """`task.cancel` of a previews task (None: not one of ours)."""
    pool = running_pool(root)
    return None if pool is None else pool.cancel(task_id, wait)


def stop(services: Services) -> None:
    with _pools_lock:
        pool = _pools.pop(services.layout.root, None)
    if pool is not None:
        pool.stop()
