"""Registry declarations: library lifecycle commands and `ui.notify`.

Thread-safe (data only).
"""

from __future__ import annotations

from library.schemas import (
    Empty,
    LibraryCreateIn,
    LibraryImportExportedIn,
    LibraryListOut,
    LibraryOpenIn,
    LibraryRef,
)
from serpent_tk.automation import policy
from serpent_tk.automation.models import (
    LibraryCloseOut,
    LibraryListRecentOut,
    LibraryShowInDesktopIn,
    LibraryShowInDesktopOut,
    UiNotifyIn,
    UiNotifyOut,
)
from serpent_tk.automation.registry import CommandSpec, command, gateway_command

LIB = "lib_01j9z3k4m5n6p7q8"
MANAGE = (policy.LIBRARY_READ, policy.LIBRARY_MANAGE)

COMMANDS: list[CommandSpec] = [
    gateway_command(
        "library.list-recent", Empty, LibraryListRecentOut, "read",
        "List the libraries opened recently on this computer, newest first, including closed "
        "ones. Use it to find a library's path before library.open.",
        "items with name, path, lastOpened, open, libraryId (when open) and exists.",
        {}, scope="global"),
    gateway_command(
        "library.list-open", Empty, LibraryListOut, "read",
        "List the libraries open right now. Call this first: every library-level tool needs "
        "one of these libraryId values passed explicitly.",
        "items with libraryId, name and path.",
        {}, scope="global"),
    gateway_command(
        "library.open", LibraryOpenIn, LibraryRef, "read",
        "Open an existing library folder (`<Name>.serpent`) so its tools can be used. Opening "
        "an already open library just returns it.",
        "the library's libraryId, name and path.",
        {"path": "/home/ana/Pictures/Moodboards.serpent"}, scope="global",
        idempotent=True, lifecycle="opened"),
    gateway_command(
        "library.create", LibraryCreateIn, LibraryRef, "normal",
        "Create a new, empty library `<name>.serpent` inside the folder selectedParentPath and "
        "open it. Only when the person asked for a new library.",
        "the new library's libraryId, name and path.",
        {"selectedParentPath": "/home/ana/Pictures", "name": "Moodboards"}, scope="global",
        capabilities=MANAGE, lifecycle="opened"),
    gateway_command(
        "library.import-exported", LibraryImportExportedIn, LibraryRef, "normal",
        "Unpack a library archive made by library.export into a new library inside "
        "selectedParentPath and open it. The copy gets its own libraryId, so it can be open "
        "beside the original (its folder is named `<name> (copy)` if the name is taken).",
        "the new library's libraryId, name and path.",
        {"archivePath": "/home/ana/Downloads/Moodboards.zip",
         "selectedParentPath": "/home/ana/Pictures"}, scope="global",
        capabilities=MANAGE, lifecycle="imported"),
    gateway_command(
        "ui.notify", UiNotifyIn, UiNotifyOut, "read",
        "Show a short message to the person as a toast in the Serpent window, e.g. when a long "
        "job is done. It never waits for an answer.",
        "shown: whether a window received it.",
        {"text": "Tagged 48 photos with 'sky'.", "level": "info"}, scope="global",
        capabilities=(policy.UI_NOTIFY,), idempotent=False),
    command(
        "library.info", "read",
        "Describe a library: name, path, counts of assets, trash, folders, tags, collections, "
        "total size and change sequence.",
        "the library's details.",
        {"libraryId": LIB}),
    command(
        "library.change-sequence", "read",
        "Get the library's current change sequence, a number that grows with every change. "
        "Compare it with an earlier value to know whether anything changed.",
        "changeSequence.",
        {"libraryId": LIB}),
    gateway_command(
        "library.show-in-desktop", LibraryShowInDesktopIn, LibraryShowInDesktopOut, "read",
        "Bring a library to the front in the Serpent window, optionally selecting some assets "
        "or a folder, so the person sees what you mean.",
        "shown: whether a window received it.",
        {"libraryId": LIB, "assetIds": ["ast_01j9z3k4m5n6p7q8"]},
        idempotent=True),
    gateway_command(
        "library.close", Empty, LibraryCloseOut, "normal",
        "Close an open library (its window view closes too). Only when the person asked.",
        "closed: true.",
        {"libraryId": LIB}, capabilities=MANAGE, lifecycle="closed"),
    command(
        "library.rename", "normal",
        "Rename a library (its display name).",
        "the library's libraryId, new name and path.",
        {"libraryId": LIB, "name": "Moodboards 2026"}, capabilities=MANAGE, idempotent=True,
        lifecycle="renamed"),
    command(
        "library.export", "normal",
        "Write the whole library (files and metadata) into one .zip archive at targetPath, "
        "e.g. to move it to another computer. A folder as targetPath gets `<name>.zip` in it; "
        "an existing file is never overwritten (ALREADY_EXISTS). Runs as an export task.",
        "path of the archive, assetCount, bytes (archive size) and taskId.",
        {"libraryId": LIB, "targetPath": "/home/ana/Desktop/Moodboards.zip"},
        capabilities=MANAGE, journaled=False),
    command(
        "library.refresh", "normal",
        "Re-check every file of the library on disk and rebuild missing thumbnails. Use it "
        "when files seem missing or previews are broken. Records whose file is gone are "
        "flagged missing (kept); stray files are moved to .orphans (kept). Runs as a "
        "refresh task (task.cancel stops it).",
        "checked, missingFiles, thumbnailsRebuilt and orphansMoved counts, with the ids.",
        {"libraryId": LIB}, idempotent=True, journaled=False),
    command(
        "library.delete-from-disk", "dangerous",
        "Delete the whole library folder from disk, with every file in it; the library is "
        "closed first. Only when the person explicitly asked for it.",
        "deleted, assetCount and freedBytes.",
        {"libraryId": LIB},
        capabilities=(*MANAGE, policy.LIBRARY_WRITE), lifecycle="deleted"),
]
