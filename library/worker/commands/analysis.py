"""`analysis.run`: queue analysis of assets as a background task; and the job that does it.

Runs in the worker process. `analysis.run` is a quick write: it records a queued task
(given assets, or every asset not analysed yet) and wakes the task runner; the job then
works through the assets in id order (see `taskrunner`): the image work runs on the preview
pool's threads, every core, after the previews of imports (`files.previews`), and the
runner thread records results in batches, in id order, together with the task's progress
and checkpoint (the last asset done), so a restarted worker resumes after the checkpoint.
Results go to `asset_analysis` (similarity signature: `asset.find-duplicates`,
`asset.find-similar`) and `asset_colors` (the palette in CIELAB: colour search); the facts
read from the file (size as displayed, date taken, camera, lens, problem; duration, pages,
codec, font family and style) are written to
the asset when they differ (no new version: they state what the file is). When the worker
starts, assets analysed by an older analysis (`ANALYSER`) are queued once, so their results
are redone by themselves.
"""

from __future__ import annotations

import bisect
import functools
import json
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import CancelledError, Future
from typing import Any

from library.catalogue import task_kinds
from library.errors import NOT_FOUND, LibraryError
from library.schemas import AnalysisRunIn, AnalysisRunOut
from library.worker.commands import background
from library.worker.files import previews
from library.worker.files.analyser import ANALYSER, Analysis, analyse
from library.worker.rows import assetrows
from library.worker.services import Services
from library.worker.store.transaction import WriteTx, background_write
from library.worker.tasks import taskrows
from library.worker.tasks.taskboard import board_for
from library.worker.tasks.taskrunner import JobContext, Outcome, job

KIND = task_kinds.ANALYSIS
FACT_COLUMNS = ("width", "height", "taken_at", "camera", "lens", "problem", "duration", "pages",
                "codec", "font_family", "font_style")  # what a file says about itself
BATCH = 64  # results per transaction ...
BATCH_SECONDS = 3.0  # ... or this long, whichever comes first
FETCH = 128


def run_analysis(tx: WriteTx, args: AnalysisRunIn) -> AnalysisRunOut:
    conn = tx.conn
    params: dict[str, object] = {"force": args.force}
    if args.asset_ids is not None:
        ids = sorted(set(args.asset_ids))
        found = assetrows.existing(conn, ids)
        unknown = [a for a in ids if a not in found]
        if unknown:
            raise LibraryError(NOT_FOUND, f"{len(unknown)} of the assets do not exist.",
                               field="assetIds", notFound=unknown[:100])
        if not args.force:
            analysed = _analysed(conn, ids)
            ids = [a for a in ids if a not in analysed]
        params["assetIds"] = ids
        total = len(ids)
    else:
        params["all"] = True
        total = conn.execute(
            "SELECT count(*) FROM assets a LEFT JOIN asset_analysis x ON x.asset_id = a.id "
            "WHERE a.trashed = 0 AND (? OR x.asset_id IS NULL OR x.analyser < ?)",
            (args.force, ANALYSER)).fetchone()[0]
    if total == 0:
        task_id = taskrows.create(conn, KIND, params=params, total=0,
                                  actor_json=tx.actor_json, now=tx.now, status="done",
                                  message="Nothing to analyse: everything is analysed already.")
    else:
        task_id = taskrows.create(conn, KIND, params=params, total=total,
                                  actor_json=tx.actor_json, now=tx.now)
        tx.after_commit(board_for(tx.layout.root).wake.set)
    tx.touch("task", [task_id])
    tx.summary = f"Queued analysis of {total} asset{'s' if total != 1 else ''}"
    return AnalysisRunOut(task=taskrows.to_task(taskrows.load(conn, task_id)))


def queue_analysis(tx: WriteTx, asset_ids: list[str]) -> str | None:
    """Queue analysis of new assets (another import path than file.import: linked folders)."""
    if not asset_ids:
        return None
    task_id = taskrows.create(tx.conn, KIND, params={"force": False,
                                                      "assetIds": sorted(set(asset_ids))},
                              total=len(set(asset_ids)), actor_json=tx.actor_json, now=tx.now)
    tx.touch("task", [task_id])
    tx.after_commit(board_for(tx.layout.root).wake.set)
    return task_id


def _analysed(conn: sqlite3.Connection, ids: list[str]) -> set[str]:
    done: set[str] = set()
    for part in assetrows.chunks(ids):
        done.update(r[0] for r in conn.execute(
            f"SELECT asset_id FROM asset_analysis WHERE analyser >= ? AND asset_id IN "
            f"({assetrows.marks(len(part))})", (ANALYSER, *part)))
    return done


@job(KIND, "analysis.run")
def analysis_job(ctx: JobContext) -> None:
    force = bool(ctx.params.get("force"))
    explicit = ctx.params.get("assetIds")
    counts = ctx.result  # analysed / unsupported / failed so far (kept across a resume)
    pool = previews.pool_for(ctx.services)
    results: list[Analysis] = []
    started = time.monotonic()
    while not ctx.should_stop():
        batch = (_next_given(explicit, ctx.checkpoint) if explicit is not None
                 else _next_unanalysed(ctx, force))
        if not batch:
            break
        rows = _rows(ctx, batch)
        work: dict[str, Future[Analysis]] = {}
        for asset_id in batch:
            row = rows.get(asset_id)  # None: deleted since the task was queued
            if row is not None and (force or row["analyser"] is None
                                    or row["analyser"] < ANALYSER):
                work[asset_id] = pool.submit(
                    functools.partial(analyse, ctx.services.layout, row), previews.ANALYSIS)
        for asset_id in batch:
            if ctx.should_stop():
                for pending in work.values():
                    pending.cancel()
                break
            if asset_id in work:
                try:
                    result = work[asset_id].result()
                except CancelledError:  # the pool stopped: the library is closing
                    break
                results.append(result)
                key = "analysed" if result.status == "done" else result.status
                counts[key] = counts.get(key, 0) + 1
            ctx.done += 1
            ctx.checkpoint = asset_id
            ctx.total = max(ctx.total or 0, ctx.done)
            ctx.progress("Analysing")
            if len(results) >= BATCH or time.monotonic() - started > BATCH_SECONDS:
                _record(ctx, results)
                results = []
                started = time.monotonic()
    if ctx.should_stop():
        _record(ctx, results, outcome=ctx.outcome())
    else:
        _record(ctx, results, outcome="done",
                message=f"Analysed {ctx.done} asset{'s' if ctx.done != 1 else ''}.")


@background
def catch_up(services: Services, stopping: threading.Event) -> Callable[[], None]:
    """At start, queue the assets analysed by an older Serpent's analysis (`ANALYSER`), so
    their results are redone (migration 6 queued every asset of older libraries already).
    On a thread of its own: looking costs a pass over the analysis rows, which the first
    requests never wait for; it holds the write lock, so writes wait (as they always did)."""
    thread = threading.Thread(target=_queue_outdated, args=(services, stopping),
                              name="analysis-catch-up", daemon=True)
    thread.start()
    return lambda: thread.join(30)


def _queue_outdated(services: Services, stopping: threading.Event) -> None:
    with services.write_lock:
        if stopping.is_set():
            return
        conn = services.writer
        any_outdated = conn.execute("SELECT 1 FROM asset_analysis WHERE analyser < ? LIMIT 1",
                                    (ANALYSER,)).fetchone()
        outdated = any_outdated and conn.execute(
            "SELECT count(*) FROM assets a JOIN asset_analysis x ON x.asset_id = a.id "
            "WHERE a.trashed = 0 AND x.analyser < ?", (ANALYSER,)).fetchone()[0]
        queued = conn.execute("SELECT 1 FROM tasks WHERE kind = ? AND status IN ('queued', "
                              "'running')", (KIND,)).fetchone()
        if not outdated or queued:
            return
        with background_write(services, KIND) as tx:
            task_id = taskrows.create(tx.conn, KIND, params={"force": False, "all": True},
                                      total=outdated, actor_json=tx.actor_json, now=tx.now)
            tx.touch("task", [task_id])
            tx.summary = f"Queued analysis of {outdated} asset(s) not analysed by this Serpent"
    board_for(services.layout.root).wake.set()


def _next_given(ids: list[str], after: str | None) -> list[str]:
    start = bisect.bisect_right(ids, after) if after else 0
    return ids[start:start + FETCH]


def _next_unanalysed(ctx: JobContext, force: bool) -> list[str]:
    return [r[0] for r in ctx.conn.execute(
        "SELECT a.id FROM assets a LEFT JOIN asset_analysis x ON x.asset_id = a.id "
        "WHERE a.id > ? AND a.trashed = 0 AND (? OR x.asset_id IS NULL OR x.analyser < ?) "
        "ORDER BY a.id LIMIT ?", (ctx.checkpoint or "", force, ANALYSER, FETCH))]


def _rows(ctx: JobContext, ids: list[str]) -> dict[str, sqlite3.Row]:
    return {r["id"]: r for r in ctx.conn.execute(
        f"SELECT a.id, a.sha256, a.ext, a.kind, a.width, a.height, a.missing, x.analyser "
        f"FROM assets a LEFT JOIN asset_analysis x ON x.asset_id = a.id "
        f"WHERE a.id IN ({assetrows.marks(len(ids))})", ids)}


def _record(ctx: JobContext, results: list[Analysis], *, outcome: Outcome | None = None,
            message: str = "Analysing") -> None:
    """One transaction: the batch's results (minus assets deleted meanwhile) and progress."""
    def write(tx: WriteTx) -> None:
        ids = [x.asset_id for x in results]
        existing = {r[0]: r for part in assetrows.chunks(ids) for r in tx.conn.execute(
            f"SELECT id, {', '.join(FACT_COLUMNS)} FROM assets "
            f"WHERE id IN ({assetrows.marks(len(part))})", part)}
        kept = [x for x in results if x.asset_id in existing]
        tx.conn.executemany(
            "INSERT OR REPLACE INTO asset_analysis (asset_id, status, phash, palette, "
            "analyser, analysed_at, phash_centre, mean_l, mean_a, mean_b, detail, hashes) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(x.asset_id, x.status, x.phash, json.dumps(_plain(x.palette)) if x.palette
              else None, ANALYSER, tx.now, x.phash_centre,
              *(x.lab if x.lab is not None else (None, None, None)), x.detail, x.hashes)
             for x in kept])
        tx.conn.executemany("DELETE FROM asset_colors WHERE asset_id = ?",
                            [(x.asset_id,) for x in kept])
        tx.conn.executemany(
            "INSERT INTO asset_colors (asset_id, position, color, ratio, l, a, b, hue) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(x.asset_id, n, c["color"], c["ratio"], *c["lab"], c["hue"])
             for x in kept for n, c in enumerate(x.palette)])
        changed = [x.asset_id for x in kept if _facts_changed(tx, existing[x.asset_id], x)]
        assetrows.refresh_search_text(tx.conn, changed)
        if kept:
            tx.touch("analysis", [x.asset_id for x in kept])
        if changed:
            tx.touch("asset", changed)
    ctx.commit(write, message=message, outcome=outcome)


def _plain(palette: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"color": c["color"], "ratio": c["ratio"]} for c in palette]


def _facts_changed(tx: WriteTx, row: sqlite3.Row, result: Analysis) -> bool:
    """Write what the file says about itself when the asset says otherwise."""
    facts = result.facts
    values = dict(row)
    if facts is not None and facts.width is not None:
        values.update(width=facts.width, height=facts.height, taken_at=facts.taken_at,
                      camera=facts.camera, lens=facts.lens)
    if facts is not None and facts.problem is None:  # a video's, a sound's, a font's...
        values.update(duration=facts.duration, pages=facts.pages, codec=facts.codec,
                      font_family=facts.family, font_style=facts.style)
    if result.status == "done" or result.problem is not None:
        values["problem"] = result.problem  # done: what it is now; failed: why, when known
    if all(values[c] == row[c] for c in FACT_COLUMNS):
        return False
    tx.conn.execute(f"UPDATE assets SET {', '.join(f'{c} = ?' for c in FACT_COLUMNS)} "
                    f"WHERE id = ?", (*(values[c] for c in FACT_COLUMNS), row["id"]))
    return True
