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
import stat
import subprocess
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from library.errors import ErrorCode
from serpent_tk.paths import app_dirs
from serpent_tk.ui.language import humanize
from serpent_tk.ui.language.gateway_words import history_step
from serpent_tk.ui.language.translate import _, ngettext
from serpent_tk.ui.shell.commands import Commands, Reply, describe_error
from serpent_tk.ui.shell.dialogs import ConfirmDialog, Dialog
from serpent_tk.ui.shell.theme import Theme

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
        opener = shutil.which("xdg-open")
        if opener is None:
            raise NoSystemOpener(_("this computer has no program that opens files in their "
                                   "usual app (xdg-open is missing: install the xdg-utils "
                                   "package)."))
        subprocess.Popen([opener, str(path)], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)


def reveal_in_file_manager(path: Path) -> None:
    """Show the file selected in the system's file manager. Runs in the background."""
    if not path.is_file():
        raise FileNotFoundError(path)
    if sys.platform == "win32":
        subprocess.Popen(["explorer", f"/select,{path}"])
        return
    if sys.platform == "darwin":
        subprocess.Popen(["open", "-R", str(path)], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
        return
    # freedesktop file managers (Nautilus, Dolphin, Nemo, Thunar...) select the item
    if shutil.which("dbus-send"):
        shown = subprocess.run(
            ["dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.FileManager1",
             "--type=method_call", "/org/freedesktop/FileManager1",
             "org.freedesktop.FileManager1.ShowItems", f"array:string:{path.as_uri()}",
             "string:"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=5,
            check=False)
        if shown.returncode == 0:
            return
    open_with_system(path.parent)            # no such service: at least open the folder


def stored_file(asset: dict[str, Any]) -> Path:
    """Where the library keeps the asset's file (`filePath` from `asset.get`)."""
    path = asset.get("filePath")
    if not path:
        raise FileNotFoundError("the library did not say where the file is")  # i18n: not words
    return Path(str(path))


def viewing_copy(asset: dict[str, Any]) -> Path:
    """A copy of the asset's file under its own name, for an outside viewer. Runs in the
    background. A copy, never the stored file: an editor saving over it must not change
    the library's content-addressed store."""
    stored = stored_file(asset)
    ext = str(asset.get("ext") or "")
    name = str(asset.get("originalName") or asset.get("name") or stored.name)
    if ext and not name.lower().endswith("." + ext.lower()):
        name = f"{name}.{ext}"
    target_dir = app_dirs().cache / "open" / str(asset["id"])
    target_dir.mkdir(0o700, parents=True, exist_ok=True)
    target = target_dir / Path(name).name
    status = stored.stat()
    if not target.exists() or target.stat().st_size != status.st_size:
        shutil.copyfile(stored, target)
    os.chmod(target, stat.S_IMODE(status.st_mode))  # no more readable than the stored file
    return target


def risk_words(report: dict[str, Any]) -> str:
    """What a permanent delete will do, from its risk report: how many assets, how much
    space (the report's summary is the library's English)."""
    count, size = report.get("count"), report.get("totalBytes")
    if not isinstance(count, int):
        return _("This cannot be undone.")
    return ngettext("Permanently delete {n} asset ({size}). This cannot be undone.",
                    "Permanently delete {n} assets ({size}). This cannot be undone.",
                    count).format(n=humanize.number(count),
                                  size=humanize.size(int(size or 0)))


class NoSystemOpener(OSError):
    """The system has no program that opens files with their usual app (no `xdg-open`)."""


def why_not_opened(error: BaseException) -> str:
    """What the person reads when opening or showing a file failed: never a path of the
    library's internals (the details go to the log)."""
    if isinstance(error, NoSystemOpener):
        return str(error)
    if isinstance(error, FileNotFoundError):
        return _("its file is missing from the library folder (Refresh the library to "
                 "check).")
    if isinstance(error, PermissionError):
        return _("the system did not allow it.")
    return _("no app on this computer could open it.")


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
        # an undo or redo went through (its toasts about the step taken back go away)
        self.on_history: Callable[[Reply], None] = lambda reply: None
        # the operating system's side (tests put recorders here: Xvfb has no file manager)
        self.launch: Callable[[Path], None] = open_with_system
        self.reveal: Callable[[Path], None] = reveal_in_file_manager

    def _library_id(self) -> str | None:
        ref = self.library()
        return ref["libraryId"] if ref else None

    def _run(self, name: str, args: dict[str, Any], doing: str,
             then: Callable[[Reply], None] | None = None, *,
             always: Callable[[], None] | None = None) -> None:
        library_id = self._library_id()
        if library_id is None:
            return

        def answered(reply: Reply) -> None:
            if always is not None:
                always()
            if reply.ok:
                if then is not None:
                    then(reply)
                return
            if reply.code == ErrorCode.VERSION_CONFLICT and "assetId" in args:
                self.on_conflict(args["assetId"])
            self.toast(describe_error(reply, doing), "error")

        self.commands.call(name, {"libraryId": library_id, **args}, answered)

    # single-asset edits ------------------------------------------------------------------
    def _update(self, asset: dict[str, Any], doing: str, **fields: Any) -> None:
        self._run("asset.update", {"assetId": asset["id"], "expectedVersion": asset["version"],
                                   **fields}, doing)

    def rename(self, asset: dict[str, Any], name: str) -> None:
        self._update(asset, _("rename it"), name=name)

    def set_notes(self, asset: dict[str, Any], notes: str) -> None:
        self._update(asset, _("save the notes"), notes=notes)

    def set_source_url(self, asset: dict[str, Any], url: str) -> None:
        self._update(asset, _("save the source URL"), sourceUrl=url)

    # batch edits -------------------------------------------------------------------------
    def set_rating(self, asset_ids: list[str], rating: int) -> None:
        for asset_id in asset_ids[:500]:
            self._run("asset.update", {"assetId": asset_id, "rating": rating}, _("rate it"))

    def add_tag(self, asset_ids: list[str], tag: str) -> None:
        if asset_ids:
            self._run("asset.tag", {"assetIds": asset_ids[:1000], "tags": [tag]},
                      _("tag with “{tag}”").format(tag=tag))

    def remove_tag(self, asset_ids: list[str], tag: str) -> None:
        if asset_ids:
            self._run("asset.untag", {"assetIds": asset_ids[:1000], "tags": [tag]},
                      _("remove “{tag}”").format(tag=tag))

    def _undoable(self, text: str, level: str, reply: Reply, key: str | None = None) -> None:
        """A toast about a change the person just made, with Undo."""
        sequence = reply.change_sequence
        action = (_("Undo"), lambda: self.undo_change(sequence)) if sequence is not None and \
            self.commands.available("history.undo") else None
        self.toast(text, level, key=key, action=action)

    def move_to_folder(self, asset_ids: list[str], folder_id: str | None, label: str) -> None:
        if asset_ids:
            self._run("asset.move", {"assetIds": asset_ids[:1000], "folderId": folder_id},
                      _("move them to {place}").format(place=label),
                      lambda r: self._undoable(ngettext(
                          "Moved {n} asset to {place}.", "Moved {n} assets to {place}.",
                          len(asset_ids)).format(n=humanize.number(len(asset_ids)),
                                                 place=label), "success", r, key="move"))

    def add_to_collection(self, asset_ids: list[str], collection_id: str, label: str) -> None:
        if asset_ids:
            count = humanize.assets(len(asset_ids))
            self._run("collection.members", {"collectionId": collection_id,
                                             "add": asset_ids[:1000]},
                      _("add them to {place}").format(place=label),
                      lambda r: self._undoable(_("Added {assets} to {place}.").format(
                          assets=count, place=label), "success", r, key="collection"))

    def remove_from_collection(self, asset_ids: list[str], collection_id: str,
                               label: str) -> None:
        if asset_ids:
            count = humanize.assets(len(asset_ids))
            self._run("collection.members", {"collectionId": collection_id,
                                             "remove": asset_ids[:1000]},
                      _("remove them from {place}").format(place=label),
                      lambda r: self._undoable(_("Removed {assets} from {place}. They stay in "
                                                 "the library.").format(
                          assets=count, place=label), "info", r, key="collection"))

    def trash(self, asset_ids: list[str], then: Callable[[], None] | None = None) -> None:
        """Trash up to 1,000 assets in one step (one undo); `then()` once it answered."""
        if not asset_ids:
            return

        def trashed(reply: Reply) -> None:
            self._undoable(ngettext("Moved {n} asset to the Trash.",
                                    "Moved {n} assets to the Trash.", len(asset_ids)).format(
                n=humanize.number(len(asset_ids))), "info", reply, key="trash")

        self._run("asset.trash", {"assetIds": asset_ids[:1000]}, _("move them to the Trash"),
                  trashed, always=then)

    def restore(self, asset_ids: list[str]) -> None:
        if asset_ids:
            self._run("asset.restore", {"assetIds": asset_ids[:1000]}, _("restore them"),
                      lambda r: self.toast(ngettext(
                          "Restored {n} asset.", "Restored {n} assets.", len(asset_ids)).format(
                          n=humanize.number(len(asset_ids))), "success"))

    # dangerous ---------------------------------------------------------------------------
    def delete_permanently(self, asset_ids: list[str]) -> None:
        if asset_ids:
            self._dangerous("asset.delete-permanently", {"assetIds": asset_ids[:1000]},
                            _("Delete permanently"), _("delete them"))

    def empty_trash(self) -> None:
        self._dangerous("trash.empty", {}, _("Empty Trash"), _("empty the Trash"))

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
            report = reply.risk_report
            challenge = reply.challenge["id"] if reply.challenge else None
            self.dialog = ConfirmDialog(
                self.parent, self.theme, title=confirm_label, danger=True,
                heading=_("{action}?").format(action=confirm_label),
                text=risk_words(report),
                confirm_label=confirm_label,
                on_confirm=lambda: self.commands.call(
                    name, {**full, "confirmChallenge": challenge}, second))

        def second(reply: Reply) -> None:
            if reply.ok:
                deleted = reply.result.get("deleted")
                self.toast(ngettext("Deleted {n} asset permanently.",
                                    "Deleted {n} assets permanently.", int(deleted)).format(
                    n=humanize.number(int(deleted))) if isinstance(deleted, int)
                    else _("Done."), "success")
            else:
                self.toast(describe_error(reply, doing), "error")

        self.commands.call(name, full, first)

    # history -----------------------------------------------------------------------------
    def undo(self) -> None:
        self._history("history.undo", undoing=True)

    def redo(self) -> None:
        self._history("history.redo", undoing=False)

    def undo_change(self, change_sequence: int | None) -> None:
        """A toast's Undo: undo the change that made `change_sequence`, but only while the
        worker may (the undo names that step: a local library's latest; in a studio library
        the latest of whoever made it, which nobody else changed since). If someone changes
        something meanwhile, the worker refuses instead of undoing their change."""
        library_id = self._library_id()
        if library_id is None:
            return

        def listed(reply: Reply) -> None:
            items = reply.result.get("items", []) if reply.ok else []
            step: dict[str, Any] = next(
                (i for i in items if i.get("changeSequence") == change_sequence), {})
            if step and not step.get("undone"):
                self._history("history.undo", True, step.get("id"))
            elif reply.ok:
                self._not_latest()
            else:
                self.toast(describe_error(reply, _("undo")), "error")

        self.commands.call("history.list", {"libraryId": library_id, "limit": 20}, listed)

    def _not_latest(self) -> None:
        self.toast(_("That change is not the latest any more (something changed since), so "
                     "Undo here would undo something else. Edit → Undo steps back one change "
                     "at a time."), "warning", key="history")

    def _history(self, name: str, undoing: bool, history_id: int | None = None) -> None:
        library_id = self._library_id()
        if library_id is None:
            return

        def answered(reply: Reply) -> None:
            if reply.ok:
                entry = reply.result.get("entry") or {}
                step = history_step(entry, self.commands.spec(str(entry.get("command", ""))))
                actor = entry.get("actor")
                mine = (actor.get("label") if isinstance(actor, dict) else actor) == "You"
                if undoing:
                    said = _("Undid: {step}") if mine else _("Undid: {step} (by {who})")
                else:
                    said = _("Redid: {step}") if mine else _("Redid: {step} (by {who})")
                self.toast(said.format(step=step, who=humanize.actor_label(actor)), "info",
                           key="history")
                self.on_history(reply)
            elif reply.code == ErrorCode.HISTORY_EMPTY:
                self.toast(_("Nothing to undo.") if undoing else _("Nothing to redo."), "info",
                           key="history")
            elif reply.code == ErrorCode.HISTORY_CONFLICT and history_id is not None:
                self._not_latest()
            else:
                self.toast(describe_error(reply, _("undo") if undoing else _("redo")),
                           "error")

        args: dict[str, Any] = {"libraryId": library_id}
        if history_id is not None:
            args["historyId"] = history_id
        self.commands.call(name, args, answered)

    # opening -----------------------------------------------------------------------------
    def open_assets(self, asset_ids: list[str]) -> None:
        """Open copies of the files in the system's viewer."""
        self._with_files(asset_ids[:MAX_OPEN_AT_ONCE], _("open it"),
                         lambda asset: self.launch(viewing_copy(asset)))

    def show_in_folder(self, asset_ids: list[str]) -> None:
        """Show the (first) stored file selected in the system's file manager."""
        self._with_files(asset_ids[:1], _("show it"),
                         lambda asset: self.reveal(stored_file(asset)))

    def _with_files(self, asset_ids: list[str], doing: str,
                    work: Callable[[dict[str, Any]], None]) -> None:
        ref = self.library()
        if ref is None or not asset_ids:
            return

        def got(reply: Reply) -> None:
            if not reply.ok:
                self.toast(describe_error(reply, doing), "error")
                return
            for asset in reply.result.get("items", []):
                self.commands.background(
                    partial(work, asset),
                    lambda _result, error: self._done_with_file(doing, error))

        self.commands.call("asset.get", {"libraryId": ref["libraryId"], "assetIds": asset_ids},
                           got)

    def _done_with_file(self, doing: str, error: BaseException | None) -> None:
        if error is not None:
            log.warning("could not %s: %s", doing, error)
            self.toast(_("Could not {doing}: {reason}").format(
                doing=doing, reason=why_not_opened(error)), "error")

    def open_url(self, url: str) -> None:
        url = url.strip()
        if url.startswith(("http://", "https://")):
            import webbrowser

            self.commands.background(lambda: webbrowser.open(url))
