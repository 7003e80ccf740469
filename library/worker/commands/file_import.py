"""`file.import`: copy files and folders (recursively) into the library's file store.

Runs in the worker process, writer thread (a `task`: several transactions). Every source
item gets its own result; one bad file never fails the others. Files are copied and hashed
in one pass into `.staging/`, moved to `files/<ab>/<sha256>.<ext>`, and recorded in batches:
each batch is one transaction, committed only after its files are durable, so a crash or a
cancel leaves committed assets whole and nothing half-written (an uncommitted file is an
orphan that recovery reports). Making a batch durable (its own files and folders synced,
`FileStore.make_durable`) runs on a helper thread while the next batch is copied.
Content already in the library is reported as a duplicate with the asset that holds it.
An unreadable image header (a truncated JPEG) still imports: the file is the user's, it
just has no width/height. Empty files and things that are not regular files fail with
UNSUPPORTED_FORMAT; Serpent's own files and system files (/proc...) with PATH_FORBIDDEN,
whatever link leads there (`library.private_paths`). A file that does not fit on the disk
stops the import: DISK_FULL for the whole call when nothing was imported yet, else the
files left are listed with DISK_FULL and what was imported stays.
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
import unicodedata
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from library import pathrules, private_paths
from library.errors import (
    DISK_FULL,
    NOT_FOUND,
    PATH_FORBIDDEN,
    PATH_NOT_FOUND,
    UNSUPPORTED_FORMAT,
    LibraryError,
)
from library.library_folder import DATABASE_NAME, LIBRARY_SUFFIX
from library.schemas import FileImportIn, FileImportOut, ImportItem
from library.worker.commands import handles
from library.worker.context import TaskContext
from library.worker.files import media
from library.worker.rows import assetrows
from library.worker.store import diskspace
from library.worker.store.filestore import (
    CopyCancelled,
    FileStore,
    ForbiddenSource,
    NotARegularFile,
    SourceUnreadable,
    Staged,
)
from library.worker.store.identity import new_id
from library.worker.store.layout import enclosing_library

BATCH_FILES = 64
BATCH_SECONDS = 1.0
# Every imported file's item (and so its assetId) is in the result: nobody can ask an import
# again for the rest. The caps only bound a pathological folder.
MAX_LISTED = 100_000
MAX_LISTED_SKIPPED = 1000  # files a cancel left out: no asset of theirs exists
SKIP_NAMES = {"thumbs.db", "desktop.ini", "icon\r"}


@dataclass
class Candidate:
    shown: str  # the path as reported back
    path: Path


@dataclass
class Pending:
    item: ImportItem
    staged: Staged
    ext: str
    name: str
    original_name: str
    facts: media.ImageFacts


@handles("file.import")
def import_files(ctx: TaskContext, args: FileImportIn) -> FileImportOut:
    if args.folder_id and not ctx.conn.execute("SELECT 1 FROM folders WHERE id = ?",
                                               (args.folder_id,)).fetchone():
        raise LibraryError(NOT_FOUND, "That folder does not exist.", field="folderId")
    items: list[ImportItem] = []
    candidates = _expand(args, ctx.layout.root, items)
    run = _ImportRun(ctx, args, items, total=len(candidates))
    try:
        for index, candidate in enumerate(candidates):
            if ctx.cancelled():
                run.cancelled = True
                items.extend(ImportItem(source_path=c.shown, status="skipped",
                                        error_code="CANCELLED",
                                        error="The import was cancelled.")
                             for c in candidates[index:index + MAX_LISTED_SKIPPED])
                break
            try:
                run.one(candidate)
            except LibraryError as full:
                if full.code != DISK_FULL or not run.recorded():
                    raise  # nothing imported: the whole call is DISK_FULL
                run.out_of_space(full, candidates[index:index + MAX_LISTED_SKIPPED])
                break
            ctx.progress(index + 1, len(candidates), candidate.path.name)
    finally:
        run.finish()  # whatever was copied completely is recorded, also after an error
    ctx.progress(run.done, len(candidates), "cancelled" if run.cancelled else "done",
                 force=True)
    return run.result()


class _ImportRun:
    def __init__(self, ctx: TaskContext, args: FileImportIn, items: list[ImportItem],
                 total: int) -> None:
        self.ctx = ctx
        self.args = args
        self.items = items
        self.total = total
        self.store = FileStore(ctx.layout)
        self.batch: list[Pending] = []
        self.batch_started = time.monotonic()
        self.in_batch: dict[str, str] = {}  # sha256 -> new asset id (duplicates in one run)
        self.history_entry: int | None = None
        self.syncer = ThreadPoolExecutor(1, thread_name_prefix="import-sync")
        self.syncing: tuple[list[Pending], Future[None]] | None = None
        self.key = ctx.scope.meta.idempotency_key
        self.cancelled = False
        self.done = 0

    def one(self, candidate: Candidate) -> None:
        shown = candidate.shown
        with contextlib.suppress(OSError):  # gone or unreadable: stage_copy says which
            diskspace.ensure_room(self.ctx.layout.staging, candidate.path.stat().st_size)
        try:
            staged = self.store.stage_copy(candidate.path, self.ctx.cancelled)
        except CopyCancelled:
            self.cancelled = True
            self.items.append(ImportItem(source_path=shown, status="skipped",
                                         error_code="CANCELLED",
                                         error="The import was cancelled."))
            return
        except ForbiddenSource as refused:
            self._fail(shown, PATH_FORBIDDEN, str(refused))
            return
        except NotARegularFile:
            self._fail(shown, UNSUPPORTED_FORMAT, "Not a regular file (a pipe, socket or "
                       "device).")
            return
        except SourceUnreadable as problem:
            self._source_failed(shown, problem.error)
            return
        except OSError as error:  # writing the library's own copy
            if diskspace.is_disk_full(error):
                raise diskspace.disk_full_at(self.ctx.layout.staging) from error
            raise
        self.done += 1
        if staged.size == 0:
            self.store.discard(staged)
            self._fail(shown, UNSUPPORTED_FORMAT, "The file is empty.")
            return
        existing = self._existing(staged.sha256)
        if existing is not None:
            self.store.discard(staged)
            asset_id, mine = existing
            self.items.append(ImportItem(source_path=shown, asset_id=asset_id,
                                         status="imported" if mine else "duplicate"))
            return
        ext = media.normalized_ext(candidate.path)
        facts = (media.probe_image(staged.path) if media.kind_of(ext) == "image"
                 else media.NO_FACTS)
        self.store.commit_staged(staged, ext)
        item = ImportItem(source_path=shown, status="imported", asset_id=new_id("ast"))
        self.in_batch[staged.sha256] = item.asset_id or ""
        self.batch.append(Pending(item, staged, ext, _asset_name(candidate.path),
                                  _clean(candidate.path.name)[:255] or "file", facts))
        if (len(self.batch) >= BATCH_FILES
                or time.monotonic() - self.batch_started > BATCH_SECONDS):
            self.flush()

    def _existing(self, sha256: str) -> tuple[str, bool] | None:
        if sha256 in self.in_batch:  # the same content twice in one import
            return self.in_batch[sha256], False
        row = self.ctx.conn.execute("SELECT id, import_key FROM assets WHERE sha256 = ?",
                                    (sha256,)).fetchone()
        if row is None:
            return None
        return row["id"], bool(self.key) and row["import_key"] == self.key

    def flush(self) -> None:
        """Start making the batch durable; commit the previous batch, whose flush is done."""
        self.batch_started = time.monotonic()
        batch, self.batch = self.batch, []
        previous = self.syncing
        self.syncing = (batch, self.syncer.submit(self.store.make_durable)) if batch else None
        if previous is not None:
            previous[1].result()
            self._commit(previous[0])

    def finish(self) -> None:
        try:
            self.flush()
            if self.syncing is not None:
                batch, durable = self.syncing
                self.syncing = None
                durable.result()
                self._commit(batch)
        finally:
            self.syncer.shutdown(wait=True)

    def _commit(self, batch: list[Pending]) -> None:
        """One transaction records a batch whose files are durable."""
        with self.ctx.transaction(history_entry=self.history_entry) as tx:
            rows = [(p.item.asset_id, p.name, p.original_name, p.ext, media.kind_of(p.ext),
                     media.mime_of(p.ext), p.facts.format, p.staged.size, p.facts.width,
                     p.facts.height, p.staged.sha256, tx.now, tx.now, tx.actor_json,
                     tx.actor_json, self.key) for p in batch]
            tx.conn.executemany(
                "INSERT INTO assets (id, name, original_name, ext, kind, mime, format, size, "
                "width, height, sha256, added_at, modified_at, added_by, modified_by, "
                "import_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
            ids = [p.item.asset_id for p in batch if p.item.asset_id]
            if self.args.tags:
                tag_ids = assetrows.tag_ids(tx.conn, self.args.tags, tx.now)
                tx.conn.executemany("INSERT OR IGNORE INTO asset_tags (asset_id, tag_id) "
                                    "VALUES (?, ?)",
                                    [(a, t) for a in ids for t in tag_ids.values()])
                tx.touch("tag")
            if self.args.folder_id:
                tx.conn.executemany("INSERT INTO asset_folders (asset_id, folder_id) "
                                    "VALUES (?, ?)", [(a, self.args.folder_id) for a in ids])
            assetrows.refresh_search_text(tx.conn, ids)
            tx.created("asset", ids)
            imported = sum(1 for i in self.items if i.status == "imported") + len(batch)
            tx.summary = f"Imported {imported} file{'s' if imported != 1 else ''}"
        self.history_entry = tx.history_entry
        self.items.extend(p.item for p in batch)

    def recorded(self) -> bool:
        """Did this run import anything (committed, or copied and waiting for its batch)?"""
        return bool(self.batch or self.syncing) or any(i.status == "imported"
                                                       for i in self.items)

    def out_of_space(self, full: LibraryError, rest: list[Candidate]) -> None:
        """The disk filled up part-way: what was imported stays, the rest is listed."""
        self.items.extend(ImportItem(source_path=c.shown, status="failed",
                                     error_code=DISK_FULL, error=full.message) for c in rest)

    def result(self) -> FileImportOut:
        counts = {"imported": 0, "duplicate": 0, "failed": 0}
        for item in self.items:
            if item.status in counts:
                counts[item.status] += 1
        return FileImportOut(items=self.items[:MAX_LISTED], imported=counts["imported"],
                             duplicates=counts["duplicate"], failed=counts["failed"],
                             cancelled=self.cancelled, truncated=len(self.items) > MAX_LISTED)

    def _fail(self, shown: str, code: str, message: str) -> None:
        self.items.append(ImportItem(source_path=shown, status="failed", error_code=code,
                                     error=message))

    def _source_failed(self, shown: str, error: OSError) -> None:
        self.done += 1
        if error.errno in (errno.ENOENT, errno.ENOTDIR):
            self._fail(shown, PATH_NOT_FOUND, "The file is no longer there.")
        elif error.errno in (errno.EACCES, errno.EPERM):
            self._fail(shown, UNSUPPORTED_FORMAT, "The file cannot be read (permission "
                       "denied).")
        else:
            self._fail(shown, UNSUPPORTED_FORMAT, f"The file cannot be read "
                       f"({error.strerror or 'read error'}).")


def _expand(args: FileImportIn, library_root: Path, items: list[ImportItem]) -> list[Candidate]:
    """Files to import, in a stable order; problems with the given paths become items."""
    candidates: list[Candidate] = []
    seen: set[str] = set()
    private = private_paths.current()
    for given in args.source_paths:
        try:
            path = Path(pathrules.parse_user_path(given))
        except LibraryError as problem:
            items.append(ImportItem(source_path=given, status="failed", error_code=problem.code,
                                    error=problem.message))
            continue
        if not path.exists():
            items.append(ImportItem(source_path=given, status="failed",
                                    error_code=PATH_NOT_FOUND, error="Nothing is at this path."))
            continue
        resolved = path.resolve()
        refused = private.refusal(path)
        if refused is not None:
            items.append(ImportItem(source_path=given, status="failed",
                                    error_code=PATH_FORBIDDEN, error=refused.message))
            continue
        if enclosing_library(resolved) or resolved == library_root.resolve():
            items.append(ImportItem(source_path=given, status="failed",
                                    error_code=PATH_FORBIDDEN,
                                    error="Files inside a Serpent library cannot be imported."))
            continue
        if path.is_dir():
            if not args.recursive:
                walked = sorted(p for p in path.iterdir() if _wanted(p) and not p.is_dir())
                candidates.extend(Candidate(str(p), p) for p in walked if _new(p, seen))
                continue
            for directory, subdirs, files in os.walk(path, followlinks=False):
                subdirs[:] = sorted(d for d in subdirs if not d.startswith(".")
                                    and not _is_library(Path(directory) / d)
                                    and not private.is_private_folder(Path(directory) / d))
                for name in sorted(files):
                    file_path = Path(directory) / name
                    if _wanted(file_path) and _new(file_path, seen):
                        candidates.append(Candidate(str(file_path), file_path))
        elif _new(path, seen):
            candidates.append(Candidate(given, path))
    return candidates


def _wanted(path: Path) -> bool:
    """Folder walks skip hidden files and the OS's own clutter (Thumbs.db, .DS_Store...)."""
    return not path.name.startswith(".") and path.name.lower() not in SKIP_NAMES


def _is_library(path: Path) -> bool:
    return path.name.endswith(LIBRARY_SUFFIX) and (path / DATABASE_NAME).exists()


def _new(path: Path, seen: set[str]) -> bool:
    key = str(path.resolve())
    if key in seen:
        return False
    seen.add(key)
    return True


def _clean(text: str) -> str:
    text = unicodedata.normalize("NFC", text)
    return "".join(ch if ch.isprintable() else " " for ch in text).strip()


def _asset_name(path: Path) -> str:
    stem = _clean(path.stem if path.suffix else path.name) or _clean(path.name) or "file"
    return stem[:255]
