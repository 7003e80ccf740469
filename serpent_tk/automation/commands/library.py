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
from library.errors import LIBRARY_NOT_OPEN, LibraryError
from library.schemas import (
    Empty,
    LibraryCreateIn,
    LibraryImportExportedIn,
    LibraryListOut,
    LibraryOpenIn,
    LibraryRef,
    LibraryRepairIn,
    LibraryRepairOut,
)
from serpent_tk.automation import envelope, policy
from serpent_tk.automation.commands.examples import A1, HOME, LIB
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
    started = yield side.in_background(side.host.create, parent, args["name"], call.meta,
                                       args.get("database"))
    return (yield from _opened(call, started))


def import_exported(call: CommandCall) -> Steps:
    """Unpack an archive into a new library; a retried `idempotencyKey` opens the library
    the first call made instead of unpacking again (the host keeps the keys)."""
    side, args = call.gateway, call.arguments
    keyed = call.meta.model_copy(update={"idempotency_key": args.get("idempotencyKey")})
    started = yield side.in_background(side.host.import_exported, args["archivePath"],
                                       args["selectedParentPath"], keyed)
    return (yield from _opened(call, started))


def repair_library(call: CommandCall) -> Steps:
    """A damaged library (LIBRARY_DAMAGED) recovered into a new one beside it by a worker of
    its own, which opens it; the answer says what was recovered. The damaged one is left as
    it is (an open one stays open)."""
    side, args = call.gateway, call.arguments
    path = args.get("path") or _open_library_path(call, str(args.get("libraryId")))
    started = yield side.in_background(side.host.repair, Path(path).expanduser())
    ref = yield from _opened(call, started)
    report = side.host.recovery_report(ref["libraryId"]).get("repair") or {}
    return {**ref, **repair_answer(ref["name"], report)}


def _open_library_path(call: CommandCall, library_id: str) -> str:
    for ref in call.gateway.host.list_open():
        if ref.get("libraryId") == library_id:
            return str(ref["path"])
    raise LibraryError(LIBRARY_NOT_OPEN, "That library is not open; give the path of its "
                       "folder instead.", field="libraryId")


def repair_answer(name: str, report: dict[str, Any]) -> dict[str, Any]:
    """`library.repair`'s answer from the worker's report, with a sentence for the person."""
    tables = report.get("tables") or {}
    assets = int((tables.get("assets") or {}).get("recovered", 0))
    adopted = int(report.get("filesAdopted", 0))
    complete = bool(report.get("complete"))
    summary = (f"Recovered {assets + adopted:,} asset{'s' if assets + adopted != 1 else ''} "
               f"into “{name}”")
    if complete:
        summary += " — everything could be read."
    else:
        losses = [str(t) for t in report.get("tablesWithLosses") or []]
        summary += (f"; parts of the database could not be read ({', '.join(losses[:6])})"
                    if losses else "; a few records could not be kept") + "."
    if adopted:
        summary += (f" {adopted:,} stored file{'s' if adopted != 1 else ''} whose record was "
                    f"lost {'are' if adopted != 1 else 'is'} back as “Recovered …” in the "
                    f"folder “Recovered files”.")
    summary += " The damaged library is left as it was."
    return {"damagedPath": str(report.get("damagedPath", "")), "complete": complete,
            "summary": summary, "assets": assets + adopted, "filesAdopted": adopted,
            "filesCopied": int(report.get("filesLinked", 0)) + int(report.get("filesCopied", 0)),
            "rowsDropped": int(report.get("rowsDropped", 0)),
            "tables": {str(t): {"recovered": int(r.get("recovered", 0)),
                                "dropped": int(r.get("dropped", 0)),
                                "damagedSpots": int(r.get("damagedSpots", 0)),
                                "unreadable": bool(r.get("unreadable"))}
                       for t, r in tables.items()}}


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


def reopen_as_studio(call: CommandCall, result: dict[str, Any]) -> Steps:
    """After `library.move-to-studio`: its worker stopped once the database committed; the
    answer waits for the folder to be open again, as a studio library (same id), so the
    caller's next call works on that."""
    assert call.library_id is not None
    yield call.gateway.host.reopened(call.library_id)
    return result


# ---- the declarations -------------------------------------------------------------------

COMMANDS: list[CommandSpec] = [
    gateway_command(
        "library.list-recent", Empty, LibraryListRecentOut, "read",
        "List libraries opened recently, closed ones too (paths for library.open).",
        "",
        {}, title="Recent libraries", essential=True, scope="global", handler=list_recent),
    gateway_command(
        "library.list-open", Empty, LibraryListOut, "read",
        "List the open libraries; call it first for the libraryId every library tool needs.",
        "",
        {}, title="Open libraries", essential=True, scope="global", handler=list_open),
    gateway_command(
        "library.open", LibraryOpenIn, LibraryRef, "read",
        "Open a library folder (`<Name>.serpent`) to work in it.",
        "",
        {"path": f"{HOME}/Pictures/Moodboards.serpent"}, title="Open library",
        essential=True, scope="global", idempotent=True, lifecycle="opened",
        handler=open_library, words=Words("opened “{library}”", "opened a library")),
    gateway_command(
        "library.create", LibraryCreateIn, LibraryRef, "normal",
        "Create and open a new, empty library `<name>.serpent`, only when the person asked.",
        "",
        {"selectedParentPath": f"{HOME}/Pictures", "name": "Sketchbook"}, title="New library",
        scope="global", capabilities=MANAGE, lifecycle="opened", handler=create_library,
        words=Words("opened “{library}”", "opened a library")),
    gateway_command(
        "library.import-exported", LibraryImportExportedIn, LibraryRef, "normal",
        "Unpack a library.export archive into a new library and open it.",
        "",
        {"archivePath": f"{HOME}/Downloads/Moodboards.zip",
         "selectedParentPath": f"{HOME}/Pictures"}, title="Unpack library",
        scope="global", capabilities=MANAGE, lifecycle="imported", handler=import_exported,
        words=Words("imported “{library}”", "imported a library", doing="Unpacking"),
        recount="everywhere", long_work="call"),
    gateway_command(
        "library.repair", LibraryRepairIn, LibraryRepairOut, "normal",
        "Recover a damaged library (LIBRARY_DAMAGED) into a new one beside it and open that "
        "(the damaged one is kept).",
        "",
        {"path": f"{HOME}/Pictures/Moodboards.serpent"}, title="Repair library",
        scope="global", capabilities=MANAGE, lifecycle="opened", handler=repair_library,
        words=Words("repaired a library into “{library}”", "repaired a library")),
    gateway_command(
        "ui.notify", UiNotifyIn, UiNotifyOut, "read",
        "Show the person a short toast in the Serpent window, e.g. when a long job is done.",
        "",
        {"text": "Tagged 48 photos with 'sky'.", "level": "info"}, title="Tell the person",
        essential=True, scope="global", capabilities=(policy.UI_NOTIFY,), idempotent=False,
        handler=notify),
    command(
        "library.info",
        "Describe a library: path, counts of assets, trash, folders, tags, collections, size.",
        "",
        {"libraryId": LIB}, title="Library details"),
    command(
        "library.change-sequence",
        "Get the library's change sequence (it grows with every change), to tell whether "
        "anything changed.",
        "",
        {"libraryId": LIB}, title="Change sequence"),
    gateway_command(
        "library.show-in-desktop", LibraryShowInDesktopIn, LibraryShowInDesktopOut, "read",
        "Show the person a library in the Serpent window, with assets selected or a folder, "
        "so they see what you mean.",
        "",
        {"libraryId": LIB, "assetIds": [A1]}, title="Show in Serpent", essential=True,
        idempotent=True, handler=show_in_desktop),
    gateway_command(
        "library.close", Empty, LibraryCloseOut, "normal",
        "Close an open library, only when the person asked.",
        "",
        {"libraryId": LIB}, title="Close library", capabilities=MANAGE, lifecycle="closed",
        handler=close_library, words=Words("closed “{library}”", "closed a library")),
    command(
        "library.rename",
        "Rename a library (its display name).",
        "",
        {"libraryId": LIB, "name": "Moodboards 2026"}, title="Rename library",
        capabilities=MANAGE, idempotent=True, lifecycle="renamed", after=keep_recent_name),
    command(
        "library.export",
        "Write the whole library into a new .zip at targetPath, e.g. for another computer.",
        "",
        {"libraryId": LIB, "targetPath": f"{HOME}/Downloads/Moodboards.zip"},
        title="Export library", capabilities=MANAGE,
        long_work="call"),
    command(
        "library.move-to-studio",
        "Make this a team's studio library: its records move to a PostgreSQL database, only "
        "when the person asked.",
        "",
        {"libraryId": LIB, "database": "postgresql://serpent@studio-server/refs"},
        title="Move to studio", capabilities=MANAGE, lifecycle="moved",
        after=reopen_as_studio,
        long_work="call"),
    command(
        "library.refresh",
        "Re-check the library's files on disk and rebuild previews when files seem missing "
        "or previews broken (nothing dropped).",
        "",
        {"libraryId": LIB}, title="Check library files", idempotent=True,
        recount="everywhere"),
    command(
        "library.delete-from-disk",
        "Delete the whole library folder from disk, only when the person explicitly asked.",
        "",
        {"libraryId": LIB}, title="Delete library",
        capabilities=(*MANAGE, policy.LIBRARY_WRITE), lifecycle="deleted",
        after=remove_from_disk),
]
