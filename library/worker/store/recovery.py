"""Recovery before serving: integrity check, staging cleanup, files and rows reconciled.

Runs in the worker process at startup, before `Hello`. Nothing is ever silently dropped:
files without a row are moved to `.orphans/<time>/` and reported; rows whose file is gone
are flagged `missing` on the asset (and un-flagged when the file is back) and reported.
After an unclean end (a crash, a `kill -9`, a power cut) recovery runs SQLite's full
`integrity_check` and the full file reconciliation. After a clean close whose marker still
vouches for the database file (`cleanclose`) it skips the check and only clears staging; a
clean close whose file changed since (copied, restored, edited) gets the faster
`quick_check`. `library.refresh` runs `quick_check` on demand (`check_database`).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from library.catalogue import task_kinds
from library.worker.rows.assetrows import chunks, marks
from library.worker.store.database import damaged
from library.worker.store.filestore import PRIVATE_FOLDER
from library.worker.store.identity import utc_now
from library.worker.store.layout import Layout, stored_name

MAX_REPORTED = 200


def check(conn: sqlite3.Connection, *, full: bool, check: bool = True) -> dict[str, Any]:
    """The database check, before anything is written (migrations, the text index): a
    damaged database is refused untouched. `full` after an unclean end; `check=False` only
    when a clean close vouches for the file. Returns the report `recover` completes."""
    report: dict[str, Any] = {"fullScan": full}
    if full or check:
        pragma = "integrity_check" if full else "quick_check"  # quick: 20x faster, no indexes
        check_database(conn, pragma)
        report["integrity"] = "ok"
        report["check"] = pragma
    else:
        report["integrity"] = "not-checked"
        report["check"] = "skipped-clean-close"
    return report


def recover(conn: sqlite3.Connection, layout: Layout, report: dict[str, Any]
            ) -> dict[str, Any]:
    """After `check`: staging cleared, and after an unclean end files and rows reconciled."""
    report["stagingRemoved"] = clear_staging(layout)
    if report["fullScan"]:
        report.update(_reconcile_files(conn, layout))
    return report


def check_database(conn: sqlite3.Connection, pragma: str = "quick_check") -> None:
    """SQLite's own check of every page (it writes nothing); a damaged database is
    LIBRARY_DAMAGED, never served. (A studio library's PostgreSQL server checks its own
    pages: nothing to do here.)"""
    if getattr(conn, "dialect", "sqlite") != "sqlite":
        return
    try:
        problems = [str(row[0]) for row in conn.execute(f"PRAGMA {pragma}").fetchall()]
    except sqlite3.DatabaseError as error:  # too damaged to even check
        raise damaged([str(error)]) from error
    if problems != ["ok"]:
        raise damaged(problems)


def clear_staging(layout: Layout) -> int:
    removed = 0
    for entry in list(layout.staging.iterdir()):
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
        removed += 1
    return removed


def _reconcile_files(conn: sqlite3.Connection, layout: Layout) -> dict[str, Any]:
    expected: dict[str, tuple[str, int]] = {}
    for asset_id, sha256, ext, missing in conn.execute(
            "SELECT id, sha256, ext, missing FROM assets"):
        expected[stored_name(sha256, ext)] = (asset_id, missing)
    present: set[str] = set()
    orphans: list[Path] = []
    if layout.files.is_dir():
        for bucket in os.scandir(layout.files):
            if not bucket.is_dir(follow_symlinks=False):
                orphans.append(Path(bucket.path))
                continue
            for entry in os.scandir(bucket.path):
                name = entry.name
                if (name in expected and name[:2] == bucket.name
                        and entry.is_file(follow_symlinks=False)):
                    present.add(name)
                else:
                    orphans.append(Path(entry.path))
    moved_to = move_orphans(layout, orphans) if orphans else None
    now_missing = [aid for name, (aid, missing) in expected.items()
                   if name not in present and not missing]
    back = [aid for name, (aid, missing) in expected.items() if name in present and missing]
    if now_missing or back:
        _flag_missing(conn, now_missing, back)
    return {
        "orphansMoved": len(orphans),
        "orphanFiles": [p.name for p in orphans[:MAX_REPORTED]],
        "orphansFolder": str(moved_to.relative_to(layout.root)) if moved_to else None,
        "missingFiles": len(now_missing),
        "missingAssetIds": now_missing[:MAX_REPORTED],
        "filesBack": len(back),
    }


def move_orphans(layout: Layout, orphans: list[Path]) -> Path:
    """Move stray store files aside into `.orphans/<time>/` (reported, never deleted)."""
    target = layout.orphans / utc_now().replace(":", "-")
    target.mkdir(PRIVATE_FOLDER, parents=True, exist_ok=True)
    for path in orphans:
        destination = target / path.relative_to(layout.files)
        destination.parent.mkdir(PRIVATE_FOLDER, parents=True, exist_ok=True)
        os.replace(path, destination)
    return target


def _flag_missing(conn: sqlite3.Connection, missing: list[str], back: list[str]) -> None:
    """Flag (or un-flag) assets in one transaction that is logged like any other change."""
    now = utc_now()
    conn.execute("BEGIN IMMEDIATE")
    try:
        for ids, flag in ((missing, 1), (back, 0)):
            for part in chunks(ids):
                conn.execute(f"UPDATE assets SET missing = ?, version = version + 1 "
                             f"WHERE id IN ({marks(len(part))})", (flag, *part))
        seq = conn.execute("UPDATE library_state SET change_sequence = change_sequence + 1 "
                           "RETURNING change_sequence").fetchone()[0]
        conn.execute("INSERT INTO change_log (seq, at, command, task_kind, source, credential, "
                     "label, kinds, entity_ids) VALUES (?, ?, '', ?, 'system', NULL, 'Serpent', "
                     "'[\"asset\"]', ?)",
                     (seq, now, task_kinds.RECOVERY, json.dumps((missing + back)[:500])))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
