"""The command catalogue: every command the library worker serves, with its input and output
models and how the worker runs it. Declared once, here.

Imported by both processes. The worker builds its dispatch table from it (exactly one
`@handles(name)` function per entry, in `library/worker/commands/`); the main process's
registry (`serpent_tk/automation`) takes each worker-routed command's models from it, so the
MCP tool schemas, the gateway's validation and the worker's agree by construction. The
commands the main process answers itself (`library.open`, `ui.notify`, ...) are not here:
the registry declares them with their models.

How the worker runs a command (`WorkerMode`):

- `read`:   on a reader thread with its own connection, inside one read transaction.
- `write`:  on the writer thread, inside one transaction that also journals, bumps the
            change sequence and records the call's request id and answer (the request
            ledger: a write is never applied twice).
- `task`:   on the writer thread, opening its own transactions (long work: imports,
            refreshes); may report progress and stop early when cancelled.
- `derive`: like `read` but on threads of their own and without a read transaction: slow
            work that writes only derived files (thumbnails).

What a write does to the library's history (`HistoryRule`), declared here for every command
that changes something, so undo never takes back an older, unrelated change by mistake:

- `step`:         what it changes is journaled as one undoable step (all of a task's
                  transactions join that one step); a call that changes nothing adds none.
- `irreversible`: it cannot be undone (permanent deletes): when it changed something it
                  leaves a barrier in the history; undo refuses it with HISTORY_IRREVERSIBLE
                  and never reaches past it.
- `none`:         it changes nothing a person made (derived data, queued work, files outside
                  the library, a statement of what is on disk): undo passes over it.
- `history`:      undo and redo themselves, which move along the history.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from pydantic import BaseModel

from library.schemas import (
    AnalyserPendingIn,
    AnalyserPendingOut,
    AnalyserRecordIn,
    AnalyserRecordOut,
    AnalysisRunIn,
    AnalysisRunOut,
    AssetBatchOut,
    AssetCopyIn,
    AssetDeletePermanentlyIn,
    AssetGetIn,
    AssetGetOut,
    AssetMoveIn,
    AssetPreviewStatusIn,
    AssetPreviewStatusOut,
    AssetRenameBatchIn,
    AssetRestoreIn,
    AssetSearchIn,
    AssetSearchOut,
    AssetTagIn,
    AssetThumbnailIn,
    AssetThumbnailOut,
    AssetTrashIn,
    AssetUntagIn,
    AssetUpdateIn,
    AssetUpdateOut,
    Collection,
    CollectionCreateIn,
    CollectionDeleteIn,
    CollectionDeleteOut,
    CollectionListOut,
    CollectionMembersIn,
    CollectionReorderIn,
    CollectionRunRulesIn,
    CollectionUpdateIn,
    DeleteOut,
    Empty,
    FileImportIn,
    FileImportOut,
    FindDuplicatesIn,
    FindDuplicatesOut,
    FindSimilarIn,
    FindSimilarOut,
    Folder,
    FolderCreateIn,
    FolderDeleteEmptyIn,
    FolderDeleteEmptyOut,
    FolderListIn,
    FolderListOut,
    FolderMoveIn,
    FolderRenameIn,
    HistoryListIn,
    HistoryListOut,
    HistoryStepIn,
    HistoryStepOut,
    LibraryChangeSequenceOut,
    LibraryDeleteFromDiskIn,
    LibraryDeleteFromDiskOut,
    LibraryExportIn,
    LibraryExportOut,
    LibraryInfoOut,
    LibraryMoveToStudioIn,
    LibraryMoveToStudioOut,
    LibraryRef,
    LibraryRefreshOut,
    LibraryRenameIn,
    LinkedFolder,
    LinkedFolderCreateIn,
    LinkedFolderListOut,
    LinkedFolderReconnectIn,
    LinkedFolderRefreshIn,
    LinkedFolderRefreshOut,
    LinkedFolderUnlinkIn,
    LinkedFolderUpdateRulesIn,
    TagChangeOut,
    TagCooccurrenceIn,
    TagCooccurrenceOut,
    TagDeleteBatchIn,
    TagDeleteIn,
    TagListIn,
    TagListOut,
    TagMergeIn,
    TagRenameIn,
    Task,
    TaskCancelIn,
    TaskGetIn,
    TaskListIn,
    TaskListOut,
    TrashEmptyIn,
    TrashListIn,
)

WorkerMode = Literal["read", "write", "task", "derive"]
HistoryRule = Literal["step", "irreversible", "none", "history"]


@dataclass(frozen=True)
class WorkerCommand:
    """One command the worker serves: what it takes, what it returns, how it runs."""

    name: str  # dotted: "asset.trash"
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    mode: WorkerMode
    history: HistoryRule = "none"
    frees_space: bool = False  # it only deletes: runs on a full disk (no free-space reserve)
    # what a window asks first when it shows a library: a spare worker builds its input
    # validator ahead (pydantic builds a command's model on its first use otherwise)
    asked_first: bool = False

    @property
    def writes(self) -> bool:
        return self.mode in ("write", "task")


def _index(commands: Iterable[WorkerCommand]) -> Mapping[str, WorkerCommand]:
    table: dict[str, WorkerCommand] = {}
    for entry in commands:
        if entry.name in table:
            raise ValueError(f"{entry.name} is in the catalogue twice")
        if not entry.writes and entry.history != "none":
            raise ValueError(f"{entry.name} only reads: it has no history rule")
        table[entry.name] = entry
    return MappingProxyType(table)


_C = WorkerCommand  # short, for the table below

CATALOGUE: Mapping[str, WorkerCommand] = _index([
    # the library itself
    _C("library.info", Empty, LibraryInfoOut, "read", asked_first=True),
    _C("library.change-sequence", Empty, LibraryChangeSequenceOut, "read"),
    _C("library.rename", LibraryRenameIn, LibraryRef, "write", "step"),
    _C("library.refresh", Empty, LibraryRefreshOut, "task", "none"),
    _C("library.export", LibraryExportIn, LibraryExportOut, "task", "none"),
    _C("library.delete-from-disk", LibraryDeleteFromDiskIn, LibraryDeleteFromDiskOut, "task",
       "irreversible", frees_space=True),
    _C("library.move-to-studio", LibraryMoveToStudioIn, LibraryMoveToStudioOut, "task"),
    # assets
    _C("file.import", FileImportIn, FileImportOut, "task", "step"),
    _C("asset.search", AssetSearchIn, AssetSearchOut, "read", asked_first=True),
    _C("asset.get", AssetGetIn, AssetGetOut, "read"),
    _C("asset.update", AssetUpdateIn, AssetUpdateOut, "write", "step"),
    _C("asset.rename-batch", AssetRenameBatchIn, AssetBatchOut, "write", "step"),
    _C("asset.tag", AssetTagIn, AssetBatchOut, "write", "step"),
    _C("asset.untag", AssetUntagIn, AssetBatchOut, "write", "step"),
    _C("asset.move", AssetMoveIn, AssetBatchOut, "write", "step"),
    _C("asset.copy", AssetCopyIn, AssetBatchOut, "write", "step"),
    _C("asset.thumbnail", AssetThumbnailIn, AssetThumbnailOut, "derive"),
    _C("asset.preview-status", AssetPreviewStatusIn, AssetPreviewStatusOut, "read"),
    _C("asset.find-duplicates", FindDuplicatesIn, FindDuplicatesOut, "read"),
    _C("asset.find-similar", FindSimilarIn, FindSimilarOut, "read"),
    # trash
    _C("asset.trash", AssetTrashIn, AssetBatchOut, "write", "step"),
    _C("asset.restore", AssetRestoreIn, AssetBatchOut, "write", "step"),
    _C("asset.delete-permanently", AssetDeletePermanentlyIn, DeleteOut, "write", "irreversible",
       frees_space=True),
    _C("trash.list", TrashListIn, AssetSearchOut, "read"),
    _C("trash.empty", TrashEmptyIn, DeleteOut, "write", "irreversible", frees_space=True),
    # folders
    _C("folder.list", FolderListIn, FolderListOut, "read", asked_first=True),
    _C("folder.create", FolderCreateIn, Folder, "write", "step"),
    _C("folder.rename", FolderRenameIn, Folder, "write", "step"),
    _C("folder.move", FolderMoveIn, Folder, "write", "step"),
    _C("folder.delete-empty", FolderDeleteEmptyIn, FolderDeleteEmptyOut, "write", "step"),
    # linked folders
    _C("linked-folder.list", Empty, LinkedFolderListOut, "read"),
    _C("linked-folder.create", LinkedFolderCreateIn, LinkedFolder, "task", "step"),
    _C("linked-folder.reconnect", LinkedFolderReconnectIn, LinkedFolder, "task", "step"),
    _C("linked-folder.unlink", LinkedFolderUnlinkIn, LinkedFolder, "write", "step"),
    _C("linked-folder.update-rules", LinkedFolderUpdateRulesIn, LinkedFolder, "task", "step"),
    _C("linked-folder.refresh", LinkedFolderRefreshIn, LinkedFolderRefreshOut, "task", "step"),
    # tags
    _C("tag.list", TagListIn, TagListOut, "read", asked_first=True),
    _C("tag.rename", TagRenameIn, TagChangeOut, "write", "step"),
    _C("tag.delete", TagDeleteIn, TagChangeOut, "write", "step"),
    _C("tag.delete-batch", TagDeleteBatchIn, TagChangeOut, "write", "step"),
    _C("tag.merge", TagMergeIn, TagChangeOut, "write", "step"),
    _C("tag.cooccurrence", TagCooccurrenceIn, TagCooccurrenceOut, "read"),
    # collections
    _C("collection.list", Empty, CollectionListOut, "read", asked_first=True),
    _C("collection.create", CollectionCreateIn, Collection, "write", "step"),
    _C("collection.update", CollectionUpdateIn, Collection, "write", "step"),
    _C("collection.reorder", CollectionReorderIn, CollectionListOut, "write", "step"),
    _C("collection.delete", CollectionDeleteIn, CollectionDeleteOut, "write", "step"),
    _C("collection.members", CollectionMembersIn, Collection, "write", "step"),
    _C("collection.run-rules", CollectionRunRulesIn, AssetSearchOut, "read"),
    # history
    _C("history.list", HistoryListIn, HistoryListOut, "read"),
    _C("history.undo", HistoryStepIn, HistoryStepOut, "write", "history"),
    _C("history.redo", HistoryStepIn, HistoryStepOut, "write", "history"),
    # analysis and background tasks
    _C("analysis.run", AnalysisRunIn, AnalysisRunOut, "write", "none"),
    _C("task.list", TaskListIn, TaskListOut, "read"),
    _C("task.get", TaskGetIn, Task, "read"),
    _C("task.cancel", TaskCancelIn, Task, "read"),
    # plugin analysers (internal: the analysers feeder, for a plugin; never an MCP tool)
    _C("analyser.pending", AnalyserPendingIn, AnalyserPendingOut, "read"),
    _C("analyser.record", AnalyserRecordIn, AnalyserRecordOut, "write", "none"),
])
