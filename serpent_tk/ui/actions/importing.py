"""Getting files in: drag and drop from the file manager, the Import button, progress.

Tk thread only. Drops use tkdnd (`tkinterdnd2`) when it loads; without it the window
still works and the Import button remains. The native file dialog is a window-only path:
the MCP side never opens it. Imports go through the gateway (`file.import`) in batches of
at most 1,000 paths; long ones show a progress bar (from the gateway's `TaskProgress`
events of its own calls, named by their ticket) with Cancel; another client's long import
shows in the status bar's task indicator instead. An imported folder keeps its tree
(library folders of the same names) unless the import is started with `flatten=True`
(every file straight into the folder being looked at); the closing toast says how many
folders were made and what was skipped.
"""

from __future__ import annotations

import logging
import tkinter as tk
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from tkinter import filedialog, ttk
from typing import Any

import platformdirs

from library.errors import ErrorCode
from serpent_tk.ui.language import humanize
from serpent_tk.ui.language.translate import _, ngettext
from serpent_tk.ui.shell.commands import Commands, Reply, describe_error
from serpent_tk.ui.shell.theme import FONT_SUBTITLE, Theme

log = logging.getLogger(__name__)

BATCH = 1000
SHOW_PROGRESS_AFTER_MS = 400


@dataclass
class ImportRun:
    library_id: str
    batches: list[list[str]]
    folder_id: str | None
    tags: list[str]
    keep_folder_tree: bool = True
    imported: int = 0
    skipped: int = 0
    folders_created: int = 0
    warnings: list[str] = field(default_factory=list)
    duplicates: int = 0
    failed: int = 0
    failures: list[str] = field(default_factory=list)
    cancelled: bool = False
    future: Any = None
    done_batches: int = 0
    first_asset: str | None = None
    ticket: str = field(default_factory=lambda: f"window-import-{uuid.uuid4().hex}")


class Importer:
    """Runs imports and draws their progress in `progress_area` (a status-bar frame)."""

    def __init__(self, root: tk.Misc, theme: Theme, commands: Commands,
                 progress_area: ttk.Frame, toast: Callable[..., None]) -> None:
        self.root = root
        self.theme = theme
        self.commands = commands
        self.toast = toast
        self.run: ImportRun | None = None
        self.last_folder: str | None = None       # where the pickers open next
        self.on_finished: Callable[[ImportRun], None] = lambda run: None
        self.frame = ttk.Frame(progress_area)
        self.label = ttk.Label(self.frame, text=_("Importing…"))
        self.label.pack(side="left")
        self.bar = ttk.Progressbar(self.frame, length=theme.px(160), mode="indeterminate")
        self.bar.pack(side="left", padx=theme.px(8))
        self.cancel_button = ttk.Button(self.frame, text=_("Cancel"), command=self.cancel)
        self.cancel_button.pack(side="left")
        self._show_timer: str | None = None

    @property
    def busy(self) -> bool:
        return self.run is not None

    # starting ----------------------------------------------------------------------------
    def start_folder(self) -> str:
        """Where the pickers open: the folder last imported from, else the person's
        Pictures folder, else their home folder (never the program's own folder)."""
        if self.last_folder and Path(self.last_folder).is_dir():
            return self.last_folder
        pictures = Path(platformdirs.user_pictures_dir())
        return str(pictures if pictures.is_dir() else Path.home())

    def ask_files(self, library_id: str | None, folder_id: str | None = None) -> None:
        if library_id is None:
            return
        paths = filedialog.askopenfilenames(parent=self.root, title=_("Import files"),
                                            initialdir=self.start_folder())
        chosen = list(self.root.tk.splitlist(paths)) if isinstance(paths, str) \
            else list(paths or ())
        if chosen:
            self.last_folder = str(Path(chosen[0]).parent)
            self.start(library_id, chosen, folder_id)

    def ask_folder(self, library_id: str | None, folder_id: str | None = None, *,
                   flatten: bool = False) -> None:
        """Import a folder chosen in the file dialog (its subfolders become library folders,
        unless `flatten`)."""
        if library_id is None:
            return
        path = filedialog.askdirectory(parent=self.root, title=_("Import a folder"),
                                       initialdir=self.start_folder(), mustexist=True)
        if path:
            self.last_folder = str(Path(path).parent)
            self.start(library_id, [path], folder_id, flatten=flatten)

    def start(self, library_id: str, paths: Sequence[str], folder_id: str | None = None,
              tags: Sequence[str] = (), *, flatten: bool = False) -> None:
        paths = [p for p in paths if p]
        if not paths:
            return
        if self.run is not None:
            self.toast(_("An import is still running; wait for it or cancel it first."),
                       "warning")
            return
        batches = [list(paths[i:i + BATCH]) for i in range(0, len(paths), BATCH)]
        self.run = ImportRun(library_id, batches, folder_id, list(tags),
                             keep_folder_tree=not flatten)
        self.bar.configure(mode="indeterminate", value=0)
        self.label.configure(text=_("Importing…"))
        self._show_timer = self.root.after(SHOW_PROGRESS_AFTER_MS, self._show)
        self._next_batch()

    def _next_batch(self) -> None:
        run = self.run
        assert run is not None
        if run.cancelled or run.done_batches >= len(run.batches):
            self._finish()
            return
        args: dict[str, Any] = {"libraryId": run.library_id,
                                "sourcePaths": run.batches[run.done_batches]}
        if run.folder_id:
            args["folderId"] = run.folder_id
        if run.tags:
            args["tags"] = run.tags
        if not run.keep_folder_tree:
            args["keepFolderTree"] = False
        run.future = self.commands.call("file.import", args, self._batch_done,
                                        ticket=run.ticket)

    def _batch_done(self, reply: Reply) -> None:
        run = self.run
        if run is None:
            return
        run.future = None
        run.done_batches += 1
        if not reply.ok:
            if reply.code == ErrorCode.CANCELLED:
                run.cancelled = True
            else:
                run.failures.append(describe_error(reply))
                run.failed += len(run.batches[run.done_batches - 1])
        else:
            result = reply.result
            run.imported += int(result.get("imported", 0))
            run.duplicates += int(result.get("duplicates", 0))
            run.failed += int(result.get("failed", 0))
            run.skipped += int(result.get("skipped", 0))
            run.folders_created += int(result.get("foldersCreated", 0))
            run.cancelled = run.cancelled or bool(result.get("cancelled"))
            for item in result.get("items", []):
                if item.get("warning") and len(run.warnings) < 3:
                    run.warnings.append(f"{_file_name(item)}: {item['warning']}")
                if item.get("status") == "failed" and len(run.failures) < 3:
                    run.failures.append(f"{_file_name(item)}: "
                                        f"{item.get('error') or item.get('errorCode')}")
                if run.first_asset is None and item.get("status") == "imported":
                    run.first_asset = item.get("assetId")
        self._next_batch()

    # progress ----------------------------------------------------------------------------
    def owns(self, event: Any) -> bool:
        """Is this `TaskProgress` about the import this window runs (not another client's,
        which the status bar's task indicator shows)?"""
        run = self.run
        return run is not None and getattr(event, "ticket", None) == run.ticket

    def progress(self, event: Any) -> None:
        """A gateway `TaskProgress` event (Tk thread, via the bus)."""
        if not self.owns(event):
            return
        total = event.total or 0
        if total > 0:
            self.bar.stop()
            self.bar.configure(mode="determinate", maximum=total, value=event.done)
            self.label.configure(text=_("Importing {done} of {total}…").format(
                done=humanize.number(event.done), total=humanize.number(total)))
        self._show()

    def _show(self) -> None:
        self._show_timer = None
        if self.run is not None and not self.frame.winfo_manager():
            self.frame.pack(side="right")
            if str(self.bar.cget("mode")) == "indeterminate":
                self.bar.start(50)

    def cancel(self) -> None:
        run = self.run
        if run is None:
            return
        run.cancelled = True
        self.label.configure(text=_("Cancelling…"))
        self.cancel_button.state(["disabled"])
        if run.future is not None:
            run.future.cancel()  # the gateway passes it on to the worker

    def _finish(self) -> None:
        run = self.run
        self.run = None
        if self._show_timer is not None:
            self.root.after_cancel(self._show_timer)
            self._show_timer = None
        self.bar.stop()
        self.frame.pack_forget()
        self.cancel_button.state(["!disabled"])
        if run is None:
            return
        text = import_summary(run)
        if run.failures or run.warnings:
            text += "\n" + "\n".join((run.failures + run.warnings)[:3])
        level = "warning" if run.failed or run.cancelled or run.warnings else "success"
        self.toast(text, level)
        self.on_finished(run)


def import_summary(run: ImportRun) -> str:
    """"Imported 12 files into 3 new folders, 2 already in the library." (and what failed,
    was skipped, or that it was cancelled)."""
    number = humanize.number
    if run.folders_created:
        said = ngettext("Imported {files} into {n} new folder", "Imported {files} into {n} new "
                        "folders", run.folders_created).format(
            files=humanize.files(run.imported), n=number(run.folders_created))
    else:
        said = _("Imported {files}").format(files=humanize.files(run.imported))
    parts = [said]
    if run.duplicates:
        parts.append(_("{n} already in the library").format(n=number(run.duplicates)))
    if run.failed:
        parts.append(_("{n} could not be imported").format(n=number(run.failed)))
    if run.skipped:
        parts.append(ngettext("{n} hidden or system file skipped",
                              "{n} hidden or system files skipped", run.skipped).format(
            n=number(run.skipped)))
    text = _("{parts}.").format(parts=humanize.listed(parts))
    return _("Import cancelled. {summary}").format(summary=text) if run.cancelled else text


def _file_name(item: dict[str, Any]) -> str:
    return str(item.get("sourcePath", "")).replace("\\", "/").rsplit("/", 1)[-1]


class DropZone:
    """Makes a canvas accept files dropped from the file manager, with a visible hint drawn
    on the canvas itself (an overlay window would steal the drop from under the pointer)."""

    def __init__(self, canvas: tk.Canvas, theme: Theme,
                 on_drop: Callable[[list[str]], None], label: Callable[[], str]) -> None:
        from tkinterdnd2 import COPY, DND_FILES

        self.canvas = canvas
        self.theme = theme
        self.on_drop = on_drop
        self.label = label
        self._copy: str = COPY
        self._files = DND_FILES
        self.accept(canvas)

    def accept(self, widget: tk.Misc) -> None:
        """Also take drops on `widget` (something placed over the canvas)."""
        widget.drop_target_register(self._files)  # type: ignore[attr-defined]
        widget.dnd_bind("<<DropEnter>>", self._enter)  # type: ignore[attr-defined]
        widget.dnd_bind("<<DropPosition>>", lambda e: self._copy)  # type: ignore[attr-defined]
        widget.dnd_bind("<<DropLeave>>", self._leave)  # type: ignore[attr-defined]
        widget.dnd_bind("<<Drop>>", self._drop)  # type: ignore[attr-defined]

    def _enter(self, event: Any) -> str:
        self.show_hint()
        return self._copy

    def show_hint(self) -> None:
        p, px, c = self.theme.palette, self.theme.px, self.canvas
        c.delete("drop-hint")
        inset = px(8)
        width, height = c.winfo_width(), c.winfo_height()
        c.create_rectangle(inset, inset, width - inset, height - inset, outline=p.accent,
                           width=px(2), dash=(6, 4), fill=p.surface, tags=("drop-hint",))
        c.create_text(width / 2, height / 2, text=self.label(), font=FONT_SUBTITLE,
                      fill=p.accent, tags=("drop-hint",))
        c.tag_raise("drop-hint")

    def _leave(self, event: Any) -> None:
        self.canvas.delete("drop-hint")

    def _drop(self, event: Any) -> str:
        self.canvas.delete("drop-hint")
        self.drop(list(self.canvas.tk.splitlist(event.data)))
        return self._copy

    def drop(self, paths: list[str]) -> None:
        """What a drop does (also called by tests: Xvfb has no file manager to drag from)."""
        paths = [str(p) for p in paths if p]
        if paths:
            self.on_drop(paths)
