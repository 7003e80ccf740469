"""Every kind of background task the worker runs, spelled once: the `kind` of a task row
(`tasks.kind`, `Task.kind`) and of its progress events (`TaskProgress.kind`).

Imported by both processes (data only; thread-safe). A task's kind says what work it is,
whoever started it: a command's call (`library.refresh` shows as a `refresh` task), the
worker by itself (the previews an import leaves behind, a linked folder's sync after the
disk changed), or both (`analysis`: queued by `analysis.run` and after every import). The
window tells a task by its kind, never by a command name (`serpent_tk/ui/activity/`).

What background work writes (a task's batches, its start and end, the analysis an import
queues, a watcher's sync) is recorded under its kind (`change_log.task_kind`,
`LibraryChanged.task_kind`), never under a command's name: only a command's own call writes
as that command.
"""

from __future__ import annotations

ANALYSIS = "analysis"  # colour, similarity, photo facts (worker/commands/analysis.py)
IMPORT = "import"  # a long `file.import`
EXPORT = "export"  # `library.export`
REFRESH = "refresh"  # `library.refresh`
MOVE_TO_STUDIO = "move-to-studio"  # `library.move-to-studio`
LINKED_FOLDER_SYNC = "linked-folder-sync"  # a linked folder synced after the disk changed
PREVIEWS = "previews"  # an import's previews, made in memory (worker/files/previews.py)

TASK_KINDS = frozenset({ANALYSIS, IMPORT, EXPORT, REFRESH, MOVE_TO_STUDIO, LINKED_FOLDER_SYNC,
                        PREVIEWS})
# not a task row, but background work that writes: the missing files a library's opening
# flags after a crash (worker/store/recovery.py)
RECOVERY = "recovery"
# background work that adds or lets go of assets: after it every count may have changed
MOVES_ASSETS = frozenset({LINKED_FOLDER_SYNC, RECOVERY})
