"""Dragging assets from the grid: onto the sidebar, or out of the window into other apps.

Tk thread only. Inside the window the drag shows a drag image (the first thumbnail and how
many assets) following the pointer, and the sidebar row it would drop on is highlighted;
releasing there files, tags, collects or trashes (`AssetMenu.drop`). When the pointer leaves
the window, the drag is handed to the system as a file drag (TkDND's drag source: XDND on
X11, OLE on Windows, Cocoa on macOS) carrying copies of the stored files under their own
names, the same copies "Open with system app" makes (`viewing_copy`): a file manager, Krita,
Photoshop or Figma gets `sunset.jpg`, never the library's content-addressed file. The copies
are made in the background as soon as the drag starts, so they are ready when it leaves.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import tkinter as tk
from collections.abc import Callable
from pathlib import Path
from typing import Any

from serpent_tk.ui.actions import xdnd_uri_list
from serpent_tk.ui.actions.asset_actions import viewing_copy
from serpent_tk.ui.language import humanize
from serpent_tk.ui.shell.commands import Commands, Reply
from serpent_tk.ui.shell.theme import FONT_STRONG, Theme

log = logging.getLogger(__name__)

MAX_DRAG_FILES = 200
DRAG_IMAGE_PT = 44
DRAG_TAG = "TkDND_Drag1"       # tkdnd's own "start a drag on button-1 motion" bindings


class DragOut:
    def __init__(self, root: tk.Tk, grid: Any, theme: Theme, sidebar: Any, drop: Any,
                 commands: Commands, library_id: Callable[[], str | None],
                 thumbnail: Callable[[str], tk.PhotoImage | None], system: bool) -> None:
        self.root = root
        self.grid = grid
        self.canvas: tk.Canvas = grid.canvas
        self.theme = theme
        self.sidebar = sidebar
        self.drop_on = drop                 # AssetMenu: drop(keys, scope), accepts(scope)
        self.commands = commands
        self.library_id = library_id
        self.thumbnail = thumbnail
        self.system = system and self._register()
        self.keys: list[str] = []
        self.files: list[Path] | None = None   # the copies, once made
        self.handed_over = False               # the system drag runs (ours is over)
        self.outside = False                   # the pointer left the window meanwhile
        self.label: tk.Toplevel | None = None
        self._last = (0, 0)
        self.target_row: str | None = None
        self._request = 0
        self.on_system_drag_done: Callable[[str], None] = lambda action: None

    # the system's drag source ------------------------------------------------------------
    def _register(self) -> bool:
        """Make the grid a TkDND drag source for files, started by us (not by tkdnd's own
        3-pixel motion rule, which would take every in-window drag away from the sidebar)."""
        try:
            from tkinterdnd2 import DND_FILES

            self.canvas.drag_source_register(1, DND_FILES)  # type: ignore[attr-defined]
            self.canvas.dnd_bind("<<DragInitCmd>>", self.drag_init)  # type: ignore[attr-defined]
            self.canvas.dnd_bind("<<DragEndCmd>>", self._drag_end)  # type: ignore[attr-defined]
        except Exception as error:      # no tkdnd: drags stay inside the window
            log.warning("dragging files out of the window is off: %s", error)
            return False
        self.canvas.bindtags(tuple(t for t in self.canvas.bindtags() if t != DRAG_TAG))
        try:
            xdnd_uri_list.patch(self.canvas)     # else X11 receivers get an empty file list
        except tk.TclError as error:
            log.warning("TkDND's file list fix not applied: %s", error)
        return True

    def drag_init(self, event: Any = None) -> Any:
        """TkDND's <<DragInitCmd>>: (actions, types, data) — copy, files, the copies' paths
        (file URIs on X11, so names with spaces survive; plain paths elsewhere)."""
        from tkinterdnd2 import COPY, DND_FILES, REFUSE_DROP

        if not self.files:
            return REFUSE_DROP
        data = tuple(self.file_data())
        return (COPY,), (DND_FILES,), data

    def file_data(self) -> list[str]:
        files = self.files or []
        if sys.platform in ("win32", "darwin"):
            return [str(p) for p in files]
        return [p.resolve().as_uri() for p in files]

    def _drag_end(self, event: Any) -> None:
        action = str(getattr(event, "action", "") or "")
        log.info("files dragged out of the window: %s (%d files)", action or "cancelled",
                 len(self.files or []))
        self.on_system_drag_done(action)

    # the grid's drag ---------------------------------------------------------------------
    def drag(self, keys: list[str], phase: str, x_root: int, y_root: int) -> None:
        """`VirtualGrid.on_drag`: "motion" while the button is down, "drop" on release."""
        if self.handed_over:
            return
        if phase == "motion":
            if keys != self.keys:
                self._start(keys)
            self._follow(x_root, y_root)
            return
        scope = self.sidebar.scope_at(x_root, y_root)
        self.end()
        if scope is not None and keys:
            self.drop_on.drop(keys, scope)

    def _start(self, keys: list[str]) -> None:
        self.end()
        self.keys = list(keys)
        self._show_label()
        self._prepare_files()

    def _follow(self, x_root: int, y_root: int) -> None:
        if self.label is not None:
            offset = self.theme.px(12)
            self.label.geometry(f"+{x_root + offset}+{y_root + offset}")
        scope = self.sidebar.scope_at(x_root, y_root)
        accepted = scope is not None and self.drop_on.accepts(scope)
        self._highlight(scope.iid if accepted and scope is not None else None)
        self.canvas.configure(cursor="hand2" if accepted else "")
        self._last = (x_root, y_root)
        self.outside = not self._inside_window(x_root, y_root)
        if self.outside and self.system and self.files:
            self.hand_over(x_root, y_root)

    def _inside_window(self, x_root: int, y_root: int) -> bool:
        root = self.root
        x, y = root.winfo_rootx(), root.winfo_rooty()
        return x <= x_root < x + root.winfo_width() and y <= y_root < y + root.winfo_height()

    def hand_over(self, x_root: int, y_root: int) -> None:
        """The pointer left the window with the button still down: the system drag takes
        over (tkdnd runs it to the drop, in a nested event loop, so the window keeps
        drawing meanwhile)."""
        self.handed_over = True
        self._hide_feedback()
        x = x_root - self.canvas.winfo_rootx()
        y = y_root - self.canvas.winfo_rooty()
        try:
            self.canvas.tk.call("tkdnd::_init_drag", 1, str(self.canvas), 0, x_root, y_root,
                                x, y)
        except tk.TclError as error:
            log.warning("the system drag did not start: %s", error)
        finally:
            self.grid.cancel_drag()          # the release went to the system drag
            self.end()

    # feedback ----------------------------------------------------------------------------
    def _show_label(self) -> None:
        p, px = self.theme.palette, self.theme.px
        label = self.label = tk.Toplevel(self.root)
        label.withdraw()
        label.overrideredirect(True)
        with contextlib.suppress(tk.TclError):
            label.attributes("-type", "dnd")
        label.configure(background=p.selection_outline)
        inner = tk.Frame(label, background=p.surface, padx=px(4), pady=px(4))
        inner.pack(padx=1, pady=1)
        photo = self.thumbnail(self.keys[0]) if self.keys else None
        if photo is not None:
            factor = -(-max(photo.width(), photo.height()) // px(DRAG_IMAGE_PT))
            if factor > 1:                         # a small drag image, cheaply
                small = tk.PhotoImage(master=self.root)
                small.tk.call(str(small), "copy", str(photo), "-subsample", factor, factor)
                photo = small
            picture = tk.Label(inner, image=photo, background=p.surface, borderwidth=0)
            picture.image = photo  # type: ignore[attr-defined]
            picture.pack(side="left")
        text = humanize.assets(len(self.keys))
        tk.Label(inner, text=text, font=FONT_STRONG, background=p.surface,
                 foreground=p.text, padx=px(6)).pack(side="left")
        self.label_text = text
        label.deiconify()
        label.lift()

    def _highlight(self, iid: str | None) -> None:
        if iid != self.target_row:
            self.target_row = iid
            self.sidebar.show_drop_target(iid)

    def _hide_feedback(self) -> None:
        if self.label is not None:
            with contextlib.suppress(tk.TclError):
                self.label.destroy()
            self.label = None
        self._highlight(None)
        with contextlib.suppress(tk.TclError):
            self.canvas.configure(cursor="")

    def end(self) -> None:
        """The drag is over (dropped, cancelled, handed over and done)."""
        self._hide_feedback()
        self.keys = []
        self.files = None
        self.handed_over = False
        self.outside = False
        self._request += 1

    @property
    def active(self) -> bool:
        return bool(self.keys) or self.handed_over

    # the copies --------------------------------------------------------------------------
    def _prepare_files(self) -> None:
        library_id = self.library_id()
        keys = self.keys[:MAX_DRAG_FILES]
        if library_id is None or not keys:
            return
        self._request += 1
        request = self._request

        def got(reply: Reply) -> None:
            if request != self._request or not reply.ok:
                return
            items = list(reply.result.get("items", []))
            self.commands.background(lambda: [viewing_copy(a) for a in items],
                                     lambda paths, error: self._copied(request, paths, error))

        self.commands.call("asset.get", {"libraryId": library_id, "assetIds": keys}, got)

    def _copied(self, request: int, paths: list[Path] | None,
                error: BaseException | None) -> None:
        if request != self._request:
            return
        if error is not None:
            log.warning("copies for dragging out not made: %s", error)
            return
        self.files = list(paths or [])
        if self.outside and self.system and self.files and not self.handed_over:
            self.hand_over(*self._last)            # it left before the copies were ready
