"""`file.import`: copy files and folders (recursively) into the library's file store.

Runs in the worker process, writer thread (a `task`: several transactions). Every source
file gets its own result; one bad file never fails the others (`files.sources` walks the
folders: hidden and system files are `skipped` with a reason). Files are copied and hashed
in one pass into `.staging/`, moved to `files/<ab>/<sha256>.<ext>`, and recorded in
batches: each batch is one transaction, committed only after its files are durable, so a
crash or a cancel leaves committed assets whole and nothing half-written (an uncommitted
file is an orphan that recovery reports). Making a batch durable (its own files and folders
synced, `FileStore.make_durable`) runs on a helper thread while the next batch is copied;
a batch's asset rows go in with their search text, many to a statement
(`assetrows.insert_assets`). What the first import of a worker would load while it runs
(Pillow's decoders, the answer's validators) is loaded ahead (`@warm_up`). Each batch's
images go to the preview pool (`files.previews`) as soon as they are stored, so previews are
made on every core while the import goes on (small pictures' once the copying ends; a
preview is a derived file of the content: one made for a file whose batch never commits is
only an unused thumbnail).

A given folder becomes a library folder of its name with its subfolders under it (inside
`folderId`; folders of the same name are reused), unless `keepFolderTree` is false. Content
already in the library is reported as a duplicate with the asset that holds it, and gets the
import's folder and tags too (a trashed one comes back), said per item. An image whose
header a decoder cannot read still imports, with a warning and `problem: damaged`. Empty
files and things that are not regular files fail with UNSUPPORTED_FORMAT; Serpent's own files
and system files (/proc...) with PATH_FORBIDDEN, whatever link leads there
(`library.private_paths`). A file that does not fit on the disk stops the import: DISK_FULL
for the whole call when nothing was imported yet, else the files left are listed with
DISK_FULL and what was imported stays. An import sent again after its worker died (its
request id, or its idempotencyKey) goes on where it stopped: the files it recorded are
`imported` again, found by content and the call (`assets.import_key`), not duplicates.

An import of `TASK_FROM_FILES` files or more is an `import` task while it runs: `task.get`
shows its progress, `task.cancel` stops it (as cancelling the call does), and the window's
status bar shows it whoever started it (an MCP client's task follows it, `mcp.tasks`).
"""

from __future__ import annotations

import contextlib
import errno
import time
import unicodedata
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from library.catalogue import task_kinds
from library.errors import (
    DISK_FULL,
    NOT_FOUND,
    PATH_FORBIDDEN,
    PATH_NOT_FOUND,
    UNSUPPORTED_FORMAT,
    ErrorCode,
    LibraryError,
)
from library.schemas import FileImportIn, FileImportOut, ImportItem
from library.worker.commands import warm_up
from library.worker.context import TaskContext
from library.worker.files import imageformats, media, previews
from library.worker.files.sources import Candidate, expand
from library.worker.rows import assetrows, folderrows
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
from library.worker.store.transaction import WriteTx
from library.worker.tasks.taskrunner import Tracked, tracked

BATCH_FILES = 64
BATCH_SECONDS = 1.0
# the previews of this many copied files go to the preview pool at once, without waiting for
# their batch's flush: the pool starts on the first pictures while the rest are copied (it
# sat idle through the first batch's 64 files, about 0.1 s of 2 MP photos on every import).
# The first file's goes alone: a core waited 20-50 ms for the first eight of 2 MP photos.
PREVIEW_CHUNK = 8
KIND = task_kinds.IMPORT
TASK_FROM_FILES = 100  # an import of this many files is a task while it runs (task.get)
TASK_COUNTS = {"imported", "duplicates", "failed", "skipped", "cancelled"}
# Every imported file's item (and so its assetId) is in the result: nobody can ask an import
# again for the rest. The caps only bound a pathological folder.
MAX_LISTED = 100_000
MAX_LISTED_SKIPPED = 1000  # files a cancel left out: no asset of theirs exists


@dataclass
class Pending:
    item: ImportItem
    candidate: Candidate
    new: bool  # a new asset (else content the library had: it gets the folder and tags)
    staged: Staged | None = None
    ext: str = ""
    facts: media.ImageFacts = media.NO_FACTS


@warm_up
def _load_import_path() -> None:
    """What the first import would load while it runs: the decoders its probes use, every
    format its previews may be decoded from (Pillow's `init` imports each plugin: ~25 ms
    the first preview waited for), and the validators of its answer."""
    media.load_decoders()
    imageformats.thumbnail_formats()
    for model in (FileImportIn, ImportItem, FileImportOut):
        model.model_rebuild()


def import_files(ctx: TaskContext, args: FileImportIn) -> FileImportOut:
    if args.folder_id and not ctx.conn.execute("SELECT 1 FROM folders WHERE id = ?",
                                               (args.folder_id,)).fetchone():
        raise LibraryError(NOT_FOUND, "That folder does not exist.", field="folderId")
    items: list[ImportItem] = []
    candidates = expand(args, ctx.layout.root, items)
    ctx.progress(0, len(candidates), "", force=True)  # counted: how many there are to do
    with _shown_as_task(ctx, len(candidates)) as task:
        # its previews are one task until it ends
        with previews.importing(ctx.services) as copying:
            run = _ImportRun(ctx, args, items, task, copying)
            _copy_all(run, candidates, items)
        run.report(run.done, len(candidates), "cancelled" if run.cancelled else "done",
                   force=True)
        answer = run.result()
        if task is not None:
            task.result = answer.model_dump(mode="json", by_alias=True, include=TASK_COUNTS)
            task.message = f"Imported {answer.imported:,} of {len(candidates):,} files"
    return answer


@contextlib.contextmanager
def _shown_as_task(ctx: TaskContext, files: int) -> Iterator[Tracked | None]:
    """A long import is a task while it runs (`task.get` sees it, `task.cancel` stops it,
    the window's status bar shows it, whoever started it); a short one is just a call."""
    if files < TASK_FROM_FILES:
        yield None
        return
    with tracked(ctx, KIND, files, {"files": files}) as task:
        yield task


def _copy_all(run: _ImportRun, candidates: list[Candidate],
              items: list[ImportItem]) -> None:
    try:
        for index, candidate in enumerate(candidates):
            if run.should_stop():
                run.cancelled = True
                items.extend(ImportItem(source_path=c.shown, status="skipped",
                                        error_code=ErrorCode.CANCELLED, reason="cancelled",
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
            run.report(index + 1, len(candidates), candidate.path.name)
    finally:
        run.finish()  # whatever was copied completely is recorded, also after an error


class _ImportRun:
    def __init__(self, ctx: TaskContext, args: FileImportIn, items: list[ImportItem],
                 task: Tracked | None, copying: previews.Importing) -> None:
        self.ctx = ctx
        self.task = task
        self.copying = copying  # told when the copying ends (the previews' lanes change)
        self.should_stop = task.cancelled if task is not None else ctx.cancelled
        self.args = args
        self.items = items
        self.store = FileStore(ctx.layout)
        self.budget = diskspace.SpaceBudget(ctx.layout.staging)
        self.previews: list[previews.Job] = []  # of the batch being copied
        self.preview_chunk = 1  # the first file's preview goes alone, then PREVIEW_CHUNK
        self.batch: list[Pending] = []
        self.batch_started = time.monotonic()
        self.in_run: dict[str, str] = {}  # sha256 -> new asset id (the same content twice)
        self.folders: dict[tuple[str, ...], str] = {}  # folder names -> library folder id
        self.folders_created = 0
        self.syncer = ThreadPoolExecutor(1, thread_name_prefix="import-sync")
        self.syncing: tuple[list[Pending], Future[None]] | None = None
        self.key = ctx.link.id  # the call's request id: what it recorded, sent again
        self.cancelled = False
        self.done = 0
        self._scanned = 0  # items counted by `_imported_before`
        self._imported = 0

    def one(self, candidate: Candidate) -> None:
        shown = candidate.shown
        try:
            staged = self.store.stage_copy(candidate.path, self.should_stop,
                                           self.budget.ensure)
        except CopyCancelled:
            self.cancelled = True
            self.items.append(ImportItem(source_path=shown, status="skipped",
                                         error_code=ErrorCode.CANCELLED, reason="cancelled",
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
            self.store.discard_duplicate(staged)
            asset_id, mine = existing
            item = ImportItem(source_path=shown, asset_id=asset_id,
                              status="imported" if mine else "duplicate")
            if mine:  # the retried call of an import that recorded it: nothing more to do
                self.items.append(item)
                return
            self._add(Pending(item, candidate, new=False))
            return
        ext = media.normalized_ext(candidate.path)
        kind = media.kind_of(ext)
        facts = media.probe(staged.path, ext, kind, staged.data)
        self.store.commit_staged(staged, ext)
        item = ImportItem(source_path=shown, status="imported", asset_id=new_id("ast"))
        if facts.problem is not None:
            item.warning = assetrows.PROBLEMS[facts.problem]
        self.in_run[staged.sha256] = item.asset_id or ""
        if media.previewed(ext, kind):  # its preview is made from the file in the store
            self.previews.append(previews.Job(item.asset_id or "", staged.sha256, ext,
                                              facts.width, facts.height))
            if len(self.previews) >= self.preview_chunk:
                self.preview_chunk = PREVIEW_CHUNK
                jobs, self.previews = self.previews, []
                previews.after_import(self.ctx.services, jobs)
        self._add(Pending(item, candidate, new=True, staged=staged.without_data(), ext=ext,
                          facts=facts))

    def _add(self, pending: Pending) -> None:
        self.batch.append(pending)
        if (len(self.batch) >= BATCH_FILES
                or time.monotonic() - self.batch_started > BATCH_SECONDS):
            self.flush()

    def _existing(self, sha256: str) -> tuple[str, bool] | None:
        if sha256 in self.in_run:  # the same content twice in one import
            return self.in_run[sha256], False
        row = self.ctx.conn.execute("SELECT id, import_key FROM assets WHERE sha256 = ?",
                                    (sha256,)).fetchone()
        if row is None:
            return None
        return row["id"], bool(self.key) and row["import_key"] == self.key

    def flush(self, *, last: bool = False) -> None:
        """Start making the batch durable; commit the previous batch, whose flush is done
        (`last`: the run ends; everything is committed, the last commit synced)."""
        self.batch_started = time.monotonic()
        batch, self.batch = self.batch, []
        jobs, self.previews = self.previews, []
        previews.after_import(self.ctx.services, jobs)
        if last:  # what is left is syncing and recording: the previews go first now
            self.copying.copied()
        previous = self.syncing
        self.syncing = (batch, self.syncer.submit(self.store.make_durable)) if batch else None
        if previous is not None:
            previous[1].result()  # a later commit syncs this one, unless it is the last
            self._commit(previous[0], synced=last and self.syncing is None)
        if last and self.syncing is not None:
            batch, durable = self.syncing
            self.syncing = None
            durable.result()
            self._commit(batch, synced=True)

    def finish(self) -> None:
        try:
            self.flush(last=True)
        finally:
            self.syncer.shutdown(wait=True)

    def _commit(self, batch: list[Pending], *, synced: bool) -> None:
        """One transaction records a batch whose files are durable (`synced`: the run's
        last, whose commit makes the earlier ones durable too)."""
        new = [p for p in batch if p.new]
        new_ids = {p.item.asset_id for p in new}
        with self.ctx.transaction(synced=synced) as tx:
            known = [p.item.asset_id or "" for p in batch if not p.new]
            tx.track("asset", [i for i in dict.fromkeys(known) if i not in new_ids])
            assetrows.insert_assets(tx.conn, [assetrows.new_asset_row(
                p.item.asset_id or "", _asset_name(p.candidate.path),
                _clean(p.candidate.path.name)[:255] or "file", p.ext,
                p.staged.size if p.staged else 0, p.staged.sha256 if p.staged else "",
                p.facts, tx.now, tx.actor_json, self.key) for p in new])
            changed = self._file_and_tag(tx, batch, new_ids)
            if self.args.tags:  # inserted with the text of an asset without tags
                assetrows.refresh_search_text(tx.conn, [p.item.asset_id or "" for p in new])
            assetrows.mark_modified(tx.conn, changed, tx.now, tx.actor_json)
            tx.created("asset", [p.item.asset_id or "" for p in new])
            imported = self._imported_before() + len(new)
            tx.summary = f"Imported {imported} file{'s' if imported != 1 else ''}"
        self.items.extend(p.item for p in batch)

    def _imported_before(self) -> int:
        """How many items so far say imported (counted once each, however long the run)."""
        for item in self.items[self._scanned:]:
            self._imported += item.status == "imported"
        self._scanned = len(self.items)
        return self._imported

    def recorded(self) -> bool:
        """Did this run import anything (committed, or copied and waiting for its batch)?"""
        return bool(self.batch or self.syncing) or any(i.status == "imported"
                                                       for i in self.items)

    def out_of_space(self, full: LibraryError, rest: list[Candidate]) -> None:
        """The disk filled up part-way: what was imported stays, the rest is listed."""
        self.items.extend(ImportItem(source_path=c.shown, status="failed",
                                     error_code=DISK_FULL, error=full.message) for c in rest)

    def _file_and_tag(self, tx: WriteTx, batch: list[Pending], new_ids: set[str | None]
                      ) -> list[str]:
        """Give every asset of the batch its folder and the import's tags; a known asset
        that gains something (or leaves the trash) is returned, to be marked changed."""
        conn = tx.conn
        tag_ids = assetrows.tag_ids(conn, self.args.tags, tx.now) if self.args.tags else {}
        changed: dict[str, None] = {}
        fresh = [p for p in batch if p.new]
        filed = [(p, self._folder_for(tx, p.candidate.folder)) for p in fresh]
        conn.executemany("INSERT OR IGNORE INTO asset_folders (asset_id, folder_id) VALUES "
                         "(?, ?)", [(p.item.asset_id, f) for p, f in filed if f is not None])
        for pending, folder_id in filed:
            pending.item.folder_id = folder_id
        if tag_ids and fresh:  # new assets: every tag of the import is added
            fresh_ids = [p.item.asset_id or "" for p in fresh]
            conn.executemany("INSERT OR IGNORE INTO asset_tags (asset_id, tag_id) VALUES "
                             "(?, ?)", [(a, t) for a in fresh_ids for t in tag_ids.values()])
            now_tagged = assetrows.tags_of(conn, fresh_ids)
            for pending in fresh:
                pending.item.tags_added = now_tagged[pending.item.asset_id or ""]
            if any(now_tagged.values()):
                tx.touch("tag")
        for pending in batch:
            if pending.new:
                continue
            asset_id, item = pending.item.asset_id or "", pending.item
            folder_id = self._folder_for(tx, pending.candidate.folder)
            if folder_id is not None:
                added = conn.execute("INSERT OR IGNORE INTO asset_folders (asset_id, "
                                     "folder_id) VALUES (?, ?)", (asset_id, folder_id))
                item.folder_id = folder_id
                if added.rowcount and asset_id not in new_ids:
                    changed[asset_id] = None
            if tag_ids:
                had = set(assetrows.tags_of(conn, [asset_id])[asset_id])
                conn.executemany("INSERT OR IGNORE INTO asset_tags (asset_id, tag_id) VALUES "
                                 "(?, ?)", [(asset_id, t) for t in tag_ids.values()])
                now = assetrows.tags_of(conn, [asset_id])[asset_id]
                item.tags_added = [t for t in now if t not in had]
                if item.tags_added:
                    tx.touch("tag")
                    if asset_id not in new_ids:
                        changed[asset_id] = None
            if asset_id not in new_ids and conn.execute(
                    "UPDATE assets SET trashed = 0, trashed_at = NULL WHERE id = ? AND "
                    "trashed = 1", (asset_id,)).rowcount:
                item.warning = "It was in the trash and is back in the library."
                changed[asset_id] = None
                tx.touch("trash")
        return list(changed)

    def _folder_for(self, tx: WriteTx, names: tuple[str, ...] | None) -> str | None:
        """The library folder a file of the disk folder `names` goes into (made if needed)."""
        if not names:
            return self.args.folder_id
        if names in self.folders:
            return self.folders[names]
        parent = self._folder_for(tx, names[:-1])
        folder_id, made = folderrows.child(tx.conn, parent, names[-1], tx.now)
        if made:
            tx.created("folder", [folder_id])
            self.folders_created += 1
        self.folders[names] = folder_id
        return folder_id

    def report(self, done: int, total: int, message: str, *, force: bool = False) -> None:
        """Progress: the task's (its live numbers and events), or the call's events."""
        if self.task is not None:
            self.task.progress(done, total, message, force=force)
        else:
            self.ctx.progress(done, total, message, force=force)

    def result(self) -> FileImportOut:
        counts = {"imported": 0, "duplicate": 0, "failed": 0, "skipped": 0}
        for item in self.items:
            counts[item.status] += 1
        return FileImportOut(items=self.items[:MAX_LISTED], imported=counts["imported"],
                             duplicates=counts["duplicate"], failed=counts["failed"],
                             skipped=counts["skipped"], folders_created=self.folders_created,
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


def _clean(text: str) -> str:
    text = unicodedata.normalize("NFC", text)
    if text.isprintable():  # the usual name: no character to replace
        return text.strip()
    return "".join(ch if ch.isprintable() else " " for ch in text).strip()


def _asset_name(path: Path) -> str:
    stem = _clean(path.stem if path.suffix else path.name) or _clean(path.name) or "file"
    return stem[:255]
