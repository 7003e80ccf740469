"""`analyser.pending` and `analyser.record`: the worker's side of plugin analysers.

Runs in the worker process (`pending` on a reader thread, `record` on the writer). Internal
commands: Serpent's plugin analysers feeder (serpent_tk/plugins/analysis.py) asks which
assets an analyser (`<plugin>/<name>`, in a version) has not looked at yet, hands them to
the plugin, and records what it found: the text in each asset, kept per source (the plugin's
id) in `asset_texts` and searched with the asset's other text (`assetrows.refresh_search_text`),
and that the analyser looked (`analyser_runs`), so an asset is not read twice and a newer
version of the analyser reads them all again. Found text is what the file holds, like the
facts analysis reads: recording it is no undo step and gives no new version.
"""

from __future__ import annotations

from library.schemas import (
    AnalyserPendingIn,
    AnalyserPendingOut,
    AnalyserRecordIn,
    AnalyserRecordOut,
)
from library.worker.context import ReadContext
from library.worker.rows import assetrows
from library.worker.store.transaction import WriteTx


def pending(ctx: ReadContext, args: AnalyserPendingIn) -> AnalyserPendingOut:
    kinds = list(dict.fromkeys(args.kinds))
    params: list[object] = [args.analyser, args.version, *kinds, args.after or ""]
    among = ""
    if args.asset_ids is not None:
        if not args.asset_ids:
            return AnalyserPendingOut(asset_ids=[], more=False)
        among = f" AND a.id IN ({assetrows.marks(len(args.asset_ids))})"
        params += list(args.asset_ids)
    rows = ctx.conn.execute(
        f"SELECT a.id FROM assets a LEFT JOIN analyser_runs r ON r.asset_id = a.id "
        f"AND r.analyser = ? WHERE (r.asset_id IS NULL OR r.version < ?) AND a.trashed = 0 "
        f"AND a.missing = 0 AND a.kind IN ({assetrows.marks(len(kinds))}) AND a.id > ?"
        f"{among} ORDER BY a.id LIMIT ?", (*params, args.limit + 1)).fetchall()
    ids = [row[0] for row in rows]
    return AnalyserPendingOut(asset_ids=ids[:args.limit], more=len(ids) > args.limit)


def record(tx: WriteTx, args: AnalyserRecordIn) -> AnalyserRecordOut:
    conn = tx.conn
    source = args.analyser.split("/", 1)[0]
    wanted = list(dict.fromkeys([*args.found, *args.failed]))
    there = set(assetrows.existing(conn, wanted))  # deleted meanwhile: nothing to record
    changed: list[str] = []
    for asset_id, text in args.found.items():
        if asset_id not in there:
            continue
        text = text.strip()
        before = conn.execute("SELECT text FROM asset_texts WHERE asset_id = ? AND source = ?",
                              (asset_id, source)).fetchone()
        if (before[0] if before else "") == text:
            continue
        if text:
            conn.execute("INSERT OR REPLACE INTO asset_texts (asset_id, source, text, found_at) "
                         "VALUES (?, ?, ?, ?)", (asset_id, source, text, tx.now))
        else:
            conn.execute("DELETE FROM asset_texts WHERE asset_id = ? AND source = ?",
                         (asset_id, source))
        changed.append(asset_id)
    runs = [(asset_id, args.analyser, args.version, "done", tx.now)
            for asset_id in args.found if asset_id in there]
    runs += [(asset_id, args.analyser, args.version, "failed", tx.now)
             for asset_id in args.failed if asset_id in there and asset_id not in args.found]
    conn.executemany("INSERT OR REPLACE INTO analyser_runs (asset_id, analyser, version, status, "
                     "at) VALUES (?, ?, ?, ?, ?)", runs)
    assetrows.refresh_search_text(conn, changed)
    if changed:
        tx.touch("asset", changed)
    tx.touch("analysis", [run[0] for run in runs])
    tx.summary = f"Recorded what {args.analyser} found in {len(runs)} asset(s)"
    return AnalyserRecordOut(recorded=len(runs), changed=changed)
