"""What the person can do to assets from the window: edit, tag, trash, delete, undo, open.

Tk thread only. Every action is a gateway command run as `Caller.ui()`; the window learns
about the result the same way it learns about an agent's change (a `LibraryChanged`
event), so there is one refresh path. Dangerous commands show their risk report in a red
confirmation first and run only with the challenge the gateway handed out.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from serpent_tk.paths import app_dirs
from serpent_tk.ui import humanize
from serpent_tk.ui.commands import Commands, Reply, describe_error
from serpent_tk.ui.dialogs import ConfirmDialog, Dialog
from serpent_tk.ui.theme import Theme

log = logging.getLogger(__name__)

MAX_OPEN_AT_ONCE = 10


def open_with_system(path: Path) -> None:
    """Hand a file to the OS's default viewer. Runs in the background."""
    if sys.platform == "win32":
        os.startfile(str(path))  # type: ignore[attr-defined]
    elif sys.platform == "darwin":
        subprocess.Popen(["open", str(path)], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    else:
        subprocess.Popen(["xdg-open", str(path)], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)


def viewing_copy(library_path: str, asset: dict[str, Any]) -> Path:
    """A copy of the asset's file under its own name, for an outside viewer. Runs in the
    background. A copy, never the stored file: an editor saving over it must not change
    the library's content-addressed store (files/<ab>/<sha256>.<ext>, ARCHITECTURE.md)."""
    ext = str(asset.get("ext") or "")
    sha = str(asset["sha256"])
    stored = Path(library_path) / "files" / sha[:2] / (f"{sha}.{ext}" if ext else sha)
    name = str(asset.get("originalName") or asset.get("name") or sha)
    if ext and not name.lower().endswith("." + ext.lower()):
        name = f"{name}.{ext}"
    target_dir = app_dirs().cache / "open" / str(asset["id"])
    target_dir.mkdir(parents=True, exist_ok=True)
    target = target_dir / Path(name).name
    if not target.exists() or target.stat().st_size != stored.stat().st_size:
        shutil.copyfile(stored, target)
    return target


class AssetActions:
    """Implements `InspectorActions` plus undo/redo, trash and opening files."""

    def __init__(self, commands: Commands, theme: Theme, parent: Any,
                 library: Callable[[], dict[str, Any] | None],
                 toast: Callable[..., None]) -> None:
        self.commands = commands
        self.theme = theme
        self.parent = parent
        self.library = library
        self.toast = toast
        self.dialog: Dialog | None = None
        self.on_conflict: Callable[[str], None] = lambda asset_id: None

    def _library_id(self) -> str | None:
        ref = self.library()
        return ref["libraryId"] if ref else None

    def _run(self, name: str, args: dict[str, Any], doing: str,
             then: Callable[[Reply], None] | None = None) -> None:
        library_id = self._library_id()
        if library_id is None:
            return

        def answered(reply: Reply) -> None:
            if reply.ok:
                if then is not None:
                    then(reply)
                return
            if reply.code == "VERSION_CONFLICT" and "assetId" in args:
                self.on_conflict(args["assetId"])
            self.toast(describe_error(reply, doing), "error")

        self.commands.call(name, {"libraryId": library_id, **args}, answered)

    # single-asset edits ------------------------------------------------------------------
    def _update(self, asset: dict[str, Any], doing: str, **fields: Any) -> None:
        self._run("asset.update", {"assetId": asset["id"], "expectedVersion": asset["version"],
                                   **fields}, doing)

    def rename(self, asset: dict[str, Any], name: str) -> None:
        self._update(asset, "rename it", name=name)

    def set_notes(self, asset: dict[str, Any], notes: str) -> None:
        self._update(asset, "save the notes", notes=notes)

    def set_source_url(self, asset: dict[str, Any], url: str) -> None:
        self._update(asset, "save the source URL", sourceUrl=url)

    # batch edits -------------------------------------------------------------------------
    def set_rating(self, asset_ids: list[str], rating: int) -> None:
        for asset_id in asset_ids[:500]:
            self._run("asset.update", {"assetId": asset_id, "rating": rating}, "rate it")

    def add_tag(self, asset_ids: list[str], tag: str) -> None:
        if asset_ids:
            self._run("asset.tag", {"assetIds": asset_ids[:1000], "tags": [tag]},
                      f"tag with “{tag}”")

    def remove_tag(self, asset_ids: list[str], tag: str) -> None:
        if asset_ids:
            self._run("asset.untag", {"assetIds": asset_ids[:1000], "tags": [tag]},
                      f"remove “{tag}”")

    def move_to_folder(self, asset_ids: list[str], folder_id: str | None, label: str) -> None:
        if asset_ids:
            self._run("asset.move", {"assetIds": asset_ids[:1000], "folderId": folder_id},
                      f"move to {label}",
                      lambda r: self.toast(f"Moved {humanize.count(len(asset_ids), 'asset')} "
                                           f"to {label}.", "success"))

    def trash(self, asset_ids: list[str]) -> None:
        if not asset_ids:
            return
        self._run("asset.trash", {"assetIds": asset_ids[:1000]}, "move to the Trash",
                  lambda r: self.toast(
                      f"Moved {humanize.count(len(asset_ids), 'asset')} to the Trash. "
                      "Ctrl+Z puts them back.", "info", key="trash"))

    def restore(self, asset_ids: list[str]) -> None:
        if asset_ids:
            self._run("asset.restore", {"assetIds": asset_ids[:1000]}, "restore",
                      lambda r: self.toast(
                          f"Restored {humanize.count(len(asset_ids), 'asset')}.", "success"))

    # dangerous ---------------------------------------------------------------------------
    def delete_permanently(self, asset_ids: list[str]) -> None:
        if asset_ids:
            self._dangerous("asset.delete-permanently", {"assetIds": asset_ids[:1000]},
                            "Delete permanently", "delete them")

    def empty_trash(self) -> None:
        self._dangerous("trash.empty", {}, "Empty Trash", "empty the Trash")

    def _dangerous(self, name: str, args: dict[str, Any], confirm_label: str,
                   doing: str) -> None:
        library_id = self._library_id()
        if library_id is None:
            return
        full = {"libraryId": library_id, **args}

        def first(reply: Reply) -> None:
            if reply.ok:                 # nothing to confirm (e.g. the trash was empty)
                return
            if not reply.needs_confirmation:
                self.toast(describe_error(reply, doing), "error")
                return
            report = reply.envelope.get("riskReport") or {}
            challenge = (reply.envelope.get("challenge") or {}).get("id")
            self.dialog = ConfirmDialog(
                self.parent, self.theme, title=confirm_label, danger=True,
                heading=f"{confirm_label}?",
                text=str(report.get("summary") or "This cannot be undone."),
                confirm_label=confirm_label,
                on_confirm=lambda: self.commands.call(
                    name, {**full, "confirmChallenge": challenge}, second))

        def second(reply: Reply) -> None:
            if reply.ok:
                deleted = reply.result.get("deleted")
                self.toast(f"Deleted {humanize.count(int(deleted), 'asset')} permanently."
                           if isinstance(deleted, int) else "Done.", "success")
            else:
                self.toast(describe_error(reply, doing), "error")

        self.commands.call(name, full, first)

    # history -----------------------------------------------------------------------------
    def undo(self) -> None:
        self._history("history.undo", "Undid", "undo")

    def redo(self) -> None:
        self._history("history.redo", "Redid", "redo")

    def _history(self, name: str, verb: str, doing: str) -> None:
        library_id = self._library_id()
        if library_id is None:
            return

        def answered(reply: Reply) -> None:
            if reply.ok:
                entry = reply.result.get("entry") or {}
                who = humanize.actor_label(entry.get("actor"))
                by = "" if who == "You" else f" (by {who})"
                self.toast(f"{verb}: {entry.get('summary', 'the last change')}{by}", "info",
                           key="history")
            elif reply.code == "HISTORY_EMPTY":
                self.toast("Nothing to " + doing + ".", "info", key="history")
            else:
                self.toast(describe_error(reply, doing), "error")

        self.commands.call(name, {"libraryId": library_id}, answered)

    # opening -----------------------------------------------------------------------------
    def open_assets(self, asset_ids: list[str]) -> None:
        ref = self.library()
        if ref is None or not asset_ids:
            return
        wanted = asset_ids[:MAX_OPEN_AT_ONCE]

        def got(reply: Reply) -> None:
            if not reply.ok:
                self.toast(describe_error(reply, "open it"), "error")
                return
            for asset in reply.result.get("items", []):
                self.commands.background(
                    lambda a=asset: open_with_system(viewing_copy(ref["path"], a)),
                    self._opened)

        self.commands.call("asset.get", {"libraryId": ref["libraryId"], "assetIds": wanted},
                           got)

    def _opened(self, _result: object, error: BaseException | None) -> None:
        if error is not None:
            log.warning("could not open an asset: %s", error)
            self.toast(f"Could not open it with your viewer: {error}", "error")

    def open_url(self, url: str) -> None:
        url = url.strip()
        if url.startswith(("http://", "https://")):
            import webbrowser

            self.commands.background(lambda: webbrowser.open(url))
