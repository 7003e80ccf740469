"""Registry declarations: library lifecycle commands and `ui.notify`, with the handlers of
those the main process answers itself.

Main process. The declarations are data; the handlers and after-steps run as the gateway's
steps (never blocking: slow work goes to the gateway's I/O threads, and each step yields
the future it waits for).
"""

from __future__ import annotations

from concurrent.futures import Future
from pathlib import Path
from typing import Any

from library import deletion
from library.schemas import (
    Empty,
    LibraryCreateIn,
    LibraryImportExportedIn,
    LibraryListOut,
    LibraryOpenIn,
    LibraryRef,
)
from serpent_tk.automation import envelope, policy
from serpent_tk.automation.events import ShowInDesktop, Toast
from serpent_tk.automation.models import (
    LibraryCloseOut,
    LibraryListRecentOut,
    LibraryShowInDesktopIn,
    LibraryShowInDesktopOut,
    UiNotifyIn,
    UiNotifyOut,
)
from serpent_tk.automation.registry import (
    CommandCall,
    CommandSpec,
    Steps,
    Words,
    command,
    gateway_command,
)

LIB = "lib_01j9z3k4m5n6p7q8"
MANAGE = (policy.LIBRARY_READ, policy.LIBRARY_MANAGE)


# ---- what the main process does itself ----------------------------------------------------

def list_open(call: CommandCall) -> dict[str, Any]:
    return envelope.page(call.gateway.libraries.list_open())


def list_recent(call: CommandCall) -> Steps:
    side = call.gateway
    yield side.in_background(side.libraries.finish_deletions)
    recent = yield side.in_background(side.libraries.recent)
    return envelope.page(recent)


def open_library(call: CommandCall) -> Steps:
    side = call.gateway
    path = Path(call.arguments["path"]).expanduser()
    started = yield side.in_background(side.host.open, path)
    return (yield from _opened(call, started))


def create_library(call: CommandCall) -> Steps:
    side, args = call.gateway, call.arguments
    parent = Path(args["selectedParentPath"]).expanduser()
    started = yield side.in_background(side.host.create, parent, args["name"], call.meta)
    return (yield from _opened(call, started))


def import_exported(call: CommandCall) -> Steps:
    """Unpack an archive into a new library; a retried `idempotencyKey` opens the library
    the first call made instead of unpacking again (the host keeps the keys)."""
    side, args = call.gateway, call.arguments
    keyed = call.meta.model_copy(update={"idempotency_key": args.get("idempotencyKey")})
    started = yield side.in_background(side.host.import_exported, args["archivePath"],
                                       args["selectedParentPath"], keyed)
    return (yield from _opened(call, started))


def _opened(call: CommandCall, started: Future[dict[str, Any]]) -> Steps:
    """A library opening (or being created or unpacked): once it is open, it goes to the
    top of the recent list."""
    side = call.gateway
    ref = yield started
    yield side.in_background(side.libraries.remember, ref)
    return side.libraries.public_ref(ref)


def close_library(call: CommandCall) -> Steps:
    assert call.library_id is not None
    yield call.gateway.host.close(call.library_id)
    return {"closed": True}


def show_in_desktop(call: CommandCall) -> dict[str, Any]:
    assert call.library_id is not None
    args = call.arguments
    call.gateway.publish(ShowInDesktop(library_id=call.library_id,
                                       asset_ids=tuple(args.get("assetIds", ())),
                                       folder_id=args.get("folderId"),
                                       actor_label=call.caller.label))
    return {"shown": call.gateway.window_attached}


def notify(call: CommandCall) -> dict[str, Any]:
    args = call.arguments
    call.gateway.publish(Toast(text=args["text"], level=args.get("level", "info"),
                               actor_label=call.caller.label))
    return {"shown": call.gateway.window_attached}


def keep_recent_name(call: CommandCall, result: dict[str, Any]) -> Steps:
    """After `library.rename`: the recent list shows the new name (its place stays)."""
    yield call.gateway.in_background(call.gateway.libraries.rename_recent, result)
    return result


def remove_from_disk(call: CommandCall, result: dict[str, Any]) -> Steps:
    """After a confirmed `library.delete-from-disk`: close the library (its worker moves the
    folder aside as it exits), remove what was set aside, forget the recent entry. A crash
    meanwhile leaves the set-aside folder to `Libraries.finish_deletions`."""
    side, library_id = call.gateway, call.library_id or ""
    path = str(call.library.get("path", ""))
    side.libraries.deleting(library_id, True)
    try:
        yield side.host.close(library_id)
        yield side.in_background(deletion.remove_retired, Path(path), library_id)
        yield side.in_background(side.libraries.forget, path)
    finally:
        side.libraries.deleting(library_id, False)
    return {**result, "deleted": True}


# ---- the declarations -------------------------------------------------------------------

COMMANDS: list[CommandSpec] = [
    gateway_command(
        "library.list-recent", Empty, LibraryListRecentOut, "read",
        "List the libraries opened recently on this computer, newest first, including closed "
        "ones. Use it to find a library's path before library.open.",
        "items with name, path, lastOpened, open, libraryId (when open) and exists.",
        {}, scope="global", handler=list_recent),
    gateway_command(
        "library.list-open", Empty, LibraryListOut, "read",
        "List the libraries open right now. Call this first: every library-level tool needs "
        "one of these libraryId values passed explicitly.",
        "items with libraryId, name and path.",
        {}, scope="global", handler=list_open),
    gateway_command(
        "library.open", LibraryOpenIn, LibraryRef, "read",
        "Open an existing library folder (`<Name>.serpent`) so its tools can be used. Opening "
        "an already open library just returns it.",
        "the library's libraryId, name and path.",
        {"path": "/home/ana/Pictures/Moodboards.serpent"}, scope="global",
        idempotent=True, lifecycle="opened", handler=open_library,
        words=Words("opened “{library}”", "opened a library")),
    gateway_command(
        "library.create", LibraryCreateIn, LibraryRef, "normal",
        "Create a new, empty library `<name>.serpent` inside the folder selectedParentPath and "
        "open it. Only when the person asked for a new library.",
        "the new library's libraryId, name and path.",
        {"selectedParentPath": "/home/ana/Pictures", "name": "Moodboards"}, scope="global",
        capabilities=MANAGE, lifecycle="opened", handler=create_library,
        words=Words("opened “{library}”", "opened a library")),
    gateway_command(
        "library.import-exported", LibraryImportExportedIn, LibraryRef, "normal",
        "Unpack a library archive made by library.export into a new library inside "
        "selectedParentPath and open it. The copy gets its own libraryId, so it can be open "
        "beside the original (its folder is named `<name> (copy)` if the name is taken).",
        "the new library's libraryId, name and path.",
        {"archivePath": "/home/ana/Downloads/Moodboards.zip",
         "selectedParentPath": "/home/ana/Pictures"}, scope="global",
        capabilities=MANAGE, lifecycle="imported", handler=import_exported,
        words=Words("imported “{library}”", "imported a library"), recount="everywhere"),
    gateway_command(
        "ui.notify", UiNotifyIn, UiNotifyOut, "read",
        "Show a short message to the person as a toast in the Serpent window, e.g. when a long "
        "job is done. It never waits for an answer.",
        "shown: whether a window received it.",
        {"text": "Tagged 48 photos with 'sky'.", "level": "info"}, scope="global",
        capabilities=(policy.UI_NOTIFY,), idempotent=False, handler=notify),
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
        idempotent=True, handler=show_in_desktop),
    gateway_command(
        "library.close", Empty, LibraryCloseOut, "normal",
        "Close an open library (its window view closes too). Only when the person asked.",
        "closed: true.",
        {"libraryId": LIB}, capabilities=MANAGE, lifecycle="closed", handler=close_library,
        words=Words("closed “{library}”", "closed a library")),
    command(
        "library.rename", "normal",
        "Rename a library (its display name).",
        "the library's libraryId, new name and path.",
        {"libraryId": LIB, "name": "Moodboards 2026"}, capabilities=MANAGE, idempotent=True,
        lifecycle="renamed", after=keep_recent_name,
        words=Words("renamed “{old_library}” to “{library}”", "renamed “{library}”")),
    command(
        "library.export", "normal",
        "Write the whole library (files and metadata) into one .zip archive at targetPath, "
        "e.g. to move it to another computer. A folder as targetPath gets `<name>.zip` in it; "
        "an existing file is never overwritten (ALREADY_EXISTS). Runs as an export task.",
        "path of the archive, assetCount, bytes (archive size) and taskId.",
        {"libraryId": LIB, "targetPath": "/home/ana/Desktop/Moodboards.zip"},
        capabilities=MANAGE, journaled=False,
        words=Words("exported “{library}”", "exported the library", doing="Exporting")),
    command(
        "library.refresh", "normal",
        "Re-check every file of the library on disk and rebuild missing thumbnails. Use it "
        "when files seem missing or previews are broken. Records whose file is gone are "
        "flagged missing (kept); stray files are moved to .orphans (kept). Runs as a "
        "refresh task (task.cancel stops it).",
        "checked, missingFiles, thumbnailsRebuilt and orphansMoved counts, with the ids.",
        {"libraryId": LIB}, idempotent=True, journaled=False,
        words=Words("refreshed “{library}”", "refreshed the library", doing="Refreshing"),
        recount="everywhere"),
    command(
        "library.delete-from-disk", "dangerous",
        "Delete the whole library folder from disk, with every file in it; the library is "
        "closed first. Only when the person explicitly asked for it.",
        "deleted, assetCount and freedBytes.",
        {"libraryId": LIB},
        capabilities=(*MANAGE, policy.LIBRARY_WRITE), lifecycle="deleted",
        after=remove_from_disk,
        words=Words("deleted “{library}”", "deleted a library")),
]
