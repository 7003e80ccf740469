"""The viewer: one asset over the whole grid area, the inspector beside it. Tk thread only.

Opening shows the library's cached preview at once, then the picture decoded for the screen
(off the Tk thread, `decoder`) replaces it. The wheel zooms at the cursor, dragging pans, a
double-click goes full screen (`full_screen`), a middle click toggles 100 % there and fit;
the window's action table binds the keys (arrows step through the grid's order, stopping at
the ends; + − 0 1 zoom; Esc goes back). Animated GIF/WebP play; SVG, PDF, fonts and sounds
show as `library.media` draws them (a video its poster and, under it, a strip of frames with
Play); other files show their type with "Open with system app".
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from concurrent.futures import Future
from tkinter import ttk
from typing import Any

from serpent_tk.automation.envelope import Envelope
from serpent_tk.ui.browser.thumbnails import bucket
from serpent_tk.ui.language.translate import _
from serpent_tk.ui.shell.bus import UiBus
from serpent_tk.ui.shell.commands import Commands, Reply
from serpent_tk.ui.shell.events import RunOnTk
from serpent_tk.ui.shell.theme import FONT_CAPTION, Theme
from serpent_tk.ui.tk_typed import item_option
from serpent_tk.ui.viewer.animation import FramePlayer
from serpent_tk.ui.viewer.decoder import (
    DecodeError,
    Frames,
    PictureDecoder,
    PictureInfo,
    pictured,
)
from serpent_tk.ui.viewer.file_panel import FilePanel
from serpent_tk.ui.viewer.frame_strip import FrameStrip
from serpent_tk.ui.viewer.order import LOADING, ViewOrder
from serpent_tk.ui.viewer.picture import CanvasPicture
from serpent_tk.ui.viewer.viewer_bar import ViewerBar
from serpent_tk.ui.viewer.zoom import STEP_FACTOR, WHEEL_FACTOR, ZoomPan

RENDER_DELAY_MS = 15        # gather wheel notches and drags into one decode
FLASH_MS = 1600


class ViewerPane(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme, commands: Commands, bus: UiBus,
                 order: ViewOrder, library_id: Callable[[], str | None]) -> None:
        super().__init__(master)
        self.theme = theme
        self.commands = commands
        self.order = order
        self.library_id = library_id
        self.on_shown: Callable[[str], None] = lambda key: None
        self.on_closed: Callable[[str], None] = lambda key: None
        self.open_outside: Callable[[list[str]], None] = lambda keys: None
        self.show_in_folder: Callable[[list[str]], None] = lambda keys: None
        # a thumbnail already decoded for the grid or the inspector (shown at once)
        self.cached_preview: Callable[[str], tk.PhotoImage | None] = lambda key: None
        self.on_double: Callable[[], None] = lambda: None       # a double-click (full screen)
        self.key: str | None = None
        self.asset: dict[str, Any] | None = None
        self.picture_info: PictureInfo | None = None
        self.problem: DecodeError | None = None
        self.sharp = False            # the decoded picture (not the preview) is on screen
        self.sharp_count = 0          # decoded pictures shown so far (tests, the benchmark)
        self.preview_count = 0
        self._token = 0
        self._path: str | None = None
        self._kind = "image"
        self._shown_scale = 0.0
        self._shown_region: Any = None
        self._render_timer: str | None = None
        self._pending_step = 0
        self._drag: tuple[int, int] | None = None
        self._flash_timer: str | None = None

        self.bar = ViewerBar(self, theme, self)
        self.bar.pack(side="top", fill="x")
        ttk.Separator(self).pack(side="top", fill="x")
        self.canvas = tk.Canvas(self, highlightthickness=0, borderwidth=0, takefocus=1,
                                background=theme.palette.surface, cursor="fleur")
        self.strip = FrameStrip(self, theme, self._open_outside,
                                lambda: self._token, lambda: self.decoder)
        self.canvas.pack(side="top", fill="both", expand=True)
        self.strip.before = self.canvas
        self.picture = CanvasPicture(self.canvas)
        self.message = self.canvas.create_text(0, 0, font=FONT_CAPTION, justify="center",
                                               fill=theme.palette.text_muted)
        self.panel = FilePanel(self.canvas, theme, self._open_outside,
                               lambda: self.show_in_folder(self._keys()))
        self.badge, self.panel_title, self.panel_text = (self.panel.badge, self.panel.title,
                                                         self.panel.text)
        self.panel_open = self.panel.open_button
        self._panel_item = self.canvas.create_window(0, 0, window=self.panel, state="hidden")
        self.view = ZoomPan()
        self.player = FramePlayer(self.canvas, 0, self._photo)
        self.decoder = PictureDecoder(lambda fn, args: bus.post(RunOnTk(fn, args)))
        self._bind_input()
        theme.on_change(self._restyle)

    # layout ------------------------------------------------------------------------------
    def _restyle(self) -> None:
        p = self.theme.palette
        self.canvas.configure(background=p.surface)
        self.canvas.itemconfigure(self.message, fill=p.text_muted)

    def _bind_input(self) -> None:
        c = self.canvas
        c.bind("<Configure>", self._on_resize)
        c.bind("<ButtonPress-1>", self._press)
        c.bind("<B1-Motion>", self._motion)
        c.bind("<ButtonRelease-1>", lambda e: setattr(self, "_drag", None))
        c.bind("<Double-Button-1>", lambda e: self.on_double())
        if c.tk.call("tk", "windowingsystem") != "aqua":     # there Button-2 is the right
            c.bind("<Button-2>", lambda e: self._zoom(lambda v: v.toggle_actual((e.x, e.y))))
        c.bind("<MouseWheel>", lambda e: self.wheel(e.x, e.y, 1 if e.delta > 0 else -1))
        c.bind("<Button-4>", lambda e: self.wheel(e.x, e.y, 1))
        c.bind("<Button-5>", lambda e: self.wheel(e.x, e.y, -1))

    @property
    def is_open(self) -> bool:
        return self.key is not None and bool(self.winfo_manager())

    def _keys(self) -> list[str]:
        return [self.key] if self.key else []

    # showing an asset --------------------------------------------------------------------
    def show(self, key: str) -> None:
        """Show `key` (opening the viewer, or stepping)."""
        self._token += 1
        token = self._token
        self.key = key
        self.asset, self.picture_info, self.problem, self._path = None, None, None, None
        self.sharp = False
        self._shown_region, self._shown_scale = None, 0.0
        self._pending_step = 0
        self._cancel_flash()  # another asset: what was said about the last one is moot
        self.player.stop()
        self.picture.clear()
        self._hide_panel()
        summary = self.order.item(key) or {}
        self._kind = "image" if pictured(summary) else str(summary.get("kind") or "image")
        width, height = int(summary.get("width") or 0), int(summary.get("height") or 0)
        self.view = ZoomPan(width or 1, height or 1, *self._canvas_size())
        self.bar.show_asset(str(summary.get("name") or ""), *self.order.position(key))
        self.strip.hide()
        self._say("" if self._kind != "image" else _("Loading…"))
        library_id = self.library_id()
        if library_id is None:
            return
        if self._kind == "image" and width and height:
            self._show_cached(key)
            self._ask_preview(token, library_id, key)
        self.commands.call("asset.get", {"libraryId": library_id, "assetIds": [key]},
                           lambda reply: self._got_asset(token, reply))
        self.bar.show_zoom(self.view.percent, zoomable=self._kind == "image")
        self.on_shown(key)

    def _show_cached(self, key: str) -> None:
        """The grid's or the inspector's thumbnail, enlarged by a whole factor (Tk's own
        pixel copy: no decode, a few milliseconds), so something is there at once."""
        photo = self.cached_preview(key)
        if photo is None or not photo.width():
            return
        factor = max(1, int(min(self.view.shown_width / photo.width(),
                                self.view.shown_height / photo.height())))
        if factor > 1:
            big = tk.PhotoImage(master=self.canvas)
            big.tk.call(str(big), "copy", str(photo), "-zoom", factor, factor)
            photo = big
        x = self.view.x + (self.view.shown_width - photo.width()) / 2
        y = self.view.y + (self.view.shown_height - photo.height()) / 2
        self.picture.show_photo(photo, round(x), round(y))
        self.preview_count += 1
        self._say("")

    def _ask_preview(self, token: int, library_id: str, key: str) -> None:
        fit_w, fit_h = round(self.view.shown_width), round(self.view.shown_height)
        future = self.commands.submit("asset.thumbnail", {
            "libraryId": library_id, "assetId": key, "size": bucket(max(fit_w, fit_h))})

        def answered(f: Future[Envelope]) -> None:   # any thread: only queues the decode
            try:
                envelope = f.result()
            except Exception:
                return
            if envelope["status"] == "ok":
                self.decoder.preview(token, str(envelope["result"]["path"]), fit_w, fit_h,
                                     self._preview_ready)

        future.add_done_callback(answered)

    def _preview_ready(self, token: int, image: Any, error: DecodeError | None) -> None:
        if token != self._token or self.sharp or self._shown_region is not None \
                or image is None or not self.view.fitted:
            return                 # the decoded picture is here (or on its way to the screen)
        x, y = self.view.x, self.view.y
        self.picture.show(image, x, y, done=lambda: self._preview_shown(token))

    def _preview_shown(self, token: int) -> None:
        if token == self._token and not self.sharp:
            self.preview_count += 1
            self._say("")

    def _got_asset(self, token: int, reply: Reply) -> None:
        if token != self._token:
            return
        items = reply.result.get("items", []) if reply.ok else []
        if not items:
            self._show_problem(DecodeError("missing", _("This asset is not in the library "
                                                        "any more.")))
            return
        asset = self.asset = items[0]
        self._kind = "image" if pictured(asset) else str(asset.get("kind") or "image")
        self.bar.show_asset(str(asset.get("name") or ""), *self.order.position(str(self.key)))
        if self._kind != "image":
            self._show_panel(asset)
            return
        path = asset.get("filePath")
        if not path:
            self._show_problem(DecodeError("missing", _("The library did not say where its "
                                                        "file is.")))
            return
        self._path = str(path)
        self.decoder.open(token, self._path, *self._canvas_size(), self._opened)
        if asset.get("kind") == "video":
            self.strip.load(token, self._path)

    def _opened(self, token: int, result: Any, error: DecodeError | None) -> None:
        """The decoder's first answer: the picture's true size (after EXIF orientation)
        and, for a still picture, the whole of it fitted to the view."""
        if token != self._token:
            return
        if result is None:
            self._show_problem(error or DecodeError("damaged", _("The picture can't be read.")))
            return
        info, region, image = result
        self.picture_info = info
        if (info.width, info.height) != (self.view.image_width, self.view.image_height):
            fitted = self.view.fitted
            self.view.set_image(info.width, info.height)
            if not fitted:
                self.view.fit()
            self.picture.clear()               # a preview laid out for the wrong size
        self.bar.show_zoom(self.view.percent, zoomable=not info.animated)
        if info.animated:
            fit = ZoomPan(info.width, info.height, *self._canvas_size())
            self.decoder.frames(token, self._path or "", round(fit.shown_width),
                                round(fit.shown_height), self._got_frames)
        elif region is not None and self._same_scale(region) and self.view.covers(region):
            self._rendered(token, result, None)
        else:
            self._render_now()                  # zoomed or resized meanwhile

    def _got_frames(self, token: int, frames: Frames | None, error: DecodeError | None) -> None:
        if token != self._token:
            return
        if frames is None:
            self._show_problem(error or DecodeError("damaged",
                                                    _("The animation can't be read.")))
            return
        first = frames.images[0]
        self.view = ZoomPan(first.width, first.height, *self._canvas_size())
        item = self.picture.show_photo(self._photo(first), self.view.x, self.view.y)
        self.player.item = item
        self.player.play(frames)
        self._became_sharp(token)

    def _photo(self, image: Any) -> tk.PhotoImage:
        from PIL import ImageTk

        return ImageTk.PhotoImage(image, master=self.canvas)  # type: ignore[return-value]

    # rendering ---------------------------------------------------------------------------
    def _schedule_render(self) -> None:
        if self._render_timer is None and self._path and self.picture_info is not None \
                and not self.picture_info.animated:
            self._render_timer = self.after(RENDER_DELAY_MS, self._render_now)

    def _render_now(self) -> None:
        self._render_timer = None
        if self._path is None or self.picture_info is None:
            return
        self.decoder.render(self._token, self._path, self.view, self._rendered)

    def _rendered(self, token: int, result: Any, error: DecodeError | None) -> None:
        if token != self._token:
            return
        if result is None:
            self._show_problem(error or DecodeError("damaged", _("The picture can't be read.")))
            return
        _info, region, image = result
        if not self._same_scale(region):
            return                          # zoomed again meanwhile: a newer render is due
        x, y = self.view.view_point(region.left, region.top)
        self._shown_region, self._shown_scale = region, self.view.scale
        self.picture.show(image, x, y, done=lambda: self._became_sharp(token))

    def _same_scale(self, region: Any) -> bool:
        expected = round((region.right - region.left) * self.view.scale)
        return bool(abs(expected - region.out_width) <= 1)

    def _became_sharp(self, token: int) -> None:
        if token != self._token:
            return
        first = not self.sharp
        self.sharp = True
        self.sharp_count += 1
        self._say("")
        if first:
            self._prefetch_neighbours()

    def _prefetch_neighbours(self) -> None:
        library_id, key = self.library_id(), self.key
        if library_id is None or key is None:
            return
        keys = [k for delta in (1, -1) if (k := self.order.neighbour(key, delta))
                and k != LOADING and pictured(self.order.item(k) or {})]
        if not keys:
            return
        size = self._canvas_size()

        def got(reply: Reply) -> None:
            paths = [str(i["filePath"]) for i in reply.result.get("items", [])
                     if i.get("filePath")] if reply.ok else []
            if paths:
                self.decoder.prefetch(paths, *size)

        self.commands.call("asset.get", {"libraryId": library_id, "assetIds": keys}, got)

    # problems and other files ------------------------------------------------------------
    def _show_problem(self, problem: DecodeError) -> None:
        self.problem = problem
        if self.picture.shown and problem.reason == "too-large":
            self._say(_("Shown from its preview: {why}").format(why=problem.message))
            return
        self.picture.clear()
        self._show_panel(self.asset or self.order.item(self.key or "") or {}, problem)

    def _show_panel(self, asset: dict[str, Any], problem: DecodeError | None = None) -> None:
        self.panel.fill(asset, problem.reason if problem else None,
                        problem.message if problem else None)
        self._say("")
        self.bar.show_zoom(None, zoomable=False)
        self._place_panel()
        self.canvas.itemconfigure(self._panel_item, state="normal")

    def _hide_panel(self) -> None:
        self.canvas.itemconfigure(self._panel_item, state="hidden")

    @property
    def panel_shown(self) -> bool:
        return item_option(self.canvas, self._panel_item, "state") == "normal"

    def _place_panel(self) -> None:
        width, height = self._canvas_size()
        self.canvas.coords(self._panel_item, width / 2, height / 2)
        self.canvas.coords(self.message, width / 2, height - self.theme.px(18))

    def _say(self, text: str) -> None:
        """Show `text` under the picture; "" clears it, except a flash ("This is the last
        one.") for its time, which the picture sharpening a moment later must not wipe."""
        if not text and self._flash_timer is not None:
            return
        self.canvas.itemconfigure(self.message, text=text)
        self.canvas.tag_raise(self.message)

    def _open_outside(self) -> None:
        self.open_outside(self._keys())

    # input -------------------------------------------------------------------------------
    def _canvas_size(self) -> tuple[int, int]:
        return max(1, self.canvas.winfo_width()), max(1, self.canvas.winfo_height())

    def _on_resize(self, event: tk.Event) -> None:
        self._place_panel()
        before = (self.view.x, self.view.y, self.view.scale)
        self.view.set_view(event.width, event.height)
        if self.picture_info is not None and self.picture_info.animated:
            return
        if (self.view.x, self.view.y, self.view.scale) != before:
            self.picture.move(self.view.x - before[0], self.view.y - before[1])
            self.bar.show_zoom(self.view.percent, zoomable=True)
            self._schedule_render()

    def _press(self, event: tk.Event) -> None:
        self.canvas.focus_set()
        self._drag = (event.x, event.y)

    def _motion(self, event: tk.Event) -> None:
        if self._drag is None or self.picture_info is None or self.picture_info.animated:
            return
        dx, dy = event.x - self._drag[0], event.y - self._drag[1]
        self._drag = (event.x, event.y)
        moved = self.view.pan(dx, dy)
        if moved != (0, 0):
            self.picture.move(*moved)
            if self._shown_region is None or not self.view.covers(self._shown_region):
                self._schedule_render()

    def wheel(self, x: float, y: float, notches: int) -> None:
        self._zoom(lambda v: v.zoom_by(WHEEL_FACTOR ** notches, (x, y)))

    def _zoom(self, change: Callable[[ZoomPan], None]) -> None:
        if self._kind != "image" or self.picture_info is None or self.picture_info.animated \
                or self.problem is not None:
            return
        change(self.view)
        self.bar.show_zoom(self.view.percent, zoomable=True)
        self._schedule_render()

    # what the action table calls ---------------------------------------------------------
    def zoom_in(self) -> None:
        self._zoom(lambda v: v.zoom_by(STEP_FACTOR))

    def zoom_out(self) -> None:
        self._zoom(lambda v: v.zoom_by(1 / STEP_FACTOR))

    def fit(self) -> None:
        self._zoom(lambda v: v.fit())

    def actual_size(self) -> None:
        self._zoom(lambda v: v.actual_size())

    def step(self, delta: int) -> None:
        """The next (delta 1) or previous (-1) asset of the grid's order; stops at the
        ends and says so."""
        if self.key is None:
            return
        target = self.order.neighbour(self.key, delta)
        if target == LOADING:
            self._pending_step = delta
            return
        if target is None:
            self.flash(_("This is the last one.") if delta > 0 else _("This is the first one."))
            return
        self.show(target)

    def pages_changed(self) -> None:
        """The grid's pages arrived or changed: a step that waited for one goes on, and the
        position ("3 of 40") is brought up to date."""
        if self.key is None:
            return
        if self._pending_step:
            delta, self._pending_step = self._pending_step, 0
            self.step(delta)
            return
        self.bar.show_position(*self.order.position(self.key))

    def flash(self, text: str) -> None:
        self._cancel_flash()
        self._say(text)
        self._flash_timer = self.after(FLASH_MS, self._end_flash)

    def _cancel_flash(self) -> None:
        if self._flash_timer is not None:
            self.after_cancel(self._flash_timer)
            self._flash_timer = None

    def _end_flash(self) -> None:
        self._flash_timer = None
        self._say("")

    def close(self) -> None:
        key, self.key = self.key, None
        self._token += 1
        self._cancel_flash()
        self.player.stop()
        self.picture.clear()
        self._hide_panel()
        if self._render_timer is not None:
            self.after_cancel(self._render_timer)
            self._render_timer = None
        if key is not None:
            self.on_closed(key)

    def shutdown(self) -> None:
        self.decoder.close()
