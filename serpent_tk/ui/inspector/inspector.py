"""The inspector: everything about the selected asset(s), editable in place.

Tk thread only. Layout and input only: it shows dicts it is given (`show_asset`,
`show_many`, `show_nothing`) and reports edits through `InspectorActions`; the main window
runs the commands. A field the person is typing in is never overwritten by a live update.
"""

from __future__ import annotations

import tkinter as tk
from collections import Counter
from collections.abc import Callable, Sequence
from tkinter import ttk
from typing import Any, Protocol

from serpent_tk.ui.inspector.button_row import ButtonRow
from serpent_tk.ui.inspector.found_text import FoundText
from serpent_tk.ui.inspector.palette_swatches import PaletteSwatches
from serpent_tk.ui.inspector.rating import RatingStars
from serpent_tk.ui.inspector.tag_editor import TagEditor
from serpent_tk.ui.language import formats, humanize
from serpent_tk.ui.language.asset_words import kind_word, problem_sentence
from serpent_tk.ui.language.translate import N_, _, ngettext, pgettext
from serpent_tk.ui.menus.action_table import MOD_NAME
from serpent_tk.ui.shell.theme import FONT_BODY, FONT_CAPTION, FONT_SUBTITLE, Theme

AGO_REFRESH_MS = 30_000
# the facts shown under the fields, by name (their labels: these words in the window's
# language)
INFO_ROWS = (N_("Dimensions"), N_("Duration"), N_("Pages"), N_("Font"), N_("Codec"),
             N_("Taken"), N_("Camera"), N_("Lens"), N_("Type"), N_("Size"), N_("Added"),
             N_("Modified"))
OPTIONAL_ROWS = ("Duration", "Pages", "Font", "Codec", "Taken", "Camera", "Lens")  # when known
COLOURED = ("image", "vector", "video", "document")  # kinds whose analysis gives a palette


def taken_words(value: str | None) -> str:
    """'2024-07-01T18:30:05' (the camera's local time) -> 'Jul 1, 2024, 6:30 PM' in the
    person's locale ('2024年7月1日 18:30')."""
    from datetime import datetime

    if not value:
        return ""
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return value
    return formats.day_and_time(when)


def tag_shares(items: Sequence[dict[str, Any]]) -> tuple[list[str], dict[str, int]]:
    """Tags every item carries (by name), and tag -> count for those only some carry
    (most common first)."""
    counts: Counter[str] = Counter()
    for item in items:
        counts.update(set(item.get("tags", [])))
    shared = sorted((t for t, n in counts.items() if n == len(items)), key=str.casefold)
    partial = sorted(((t, n) for t, n in counts.items() if n < len(items)),
                     key=lambda pair: (-pair[1], pair[0].casefold()))
    return shared, dict(partial)


class InspectorActions(Protocol):
    def rename(self, asset: dict[str, Any], name: str) -> None: ...
    def set_notes(self, asset: dict[str, Any], notes: str) -> None: ...
    def set_source_url(self, asset: dict[str, Any], url: str) -> None: ...
    def set_rating(self, asset_ids: list[str], rating: int) -> None: ...
    def add_tag(self, asset_ids: list[str], tag: str) -> None: ...
    def remove_tag(self, asset_ids: list[str], tag: str) -> None: ...
    def open_assets(self, asset_ids: list[str]) -> None: ...
    def show_in_folder(self, asset_ids: list[str]) -> None: ...
    def open_url(self, url: str) -> None: ...
    def trash(self, asset_ids: list[str]) -> None: ...
    def restore(self, asset_ids: list[str]) -> None: ...
    def delete_permanently(self, asset_ids: list[str]) -> None: ...


class Inspector(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme, actions: InspectorActions) -> None:
        super().__init__(master, padding=(theme.px(12), theme.px(10)))
        self.theme = theme
        self.actions = actions
        self.asset: dict[str, Any] | None = None
        self.many: list[dict[str, Any]] = []
        self.on_view: Callable[[list[str]], None] = lambda keys: None   # the built-in viewer
        self.on_reset: Callable[[], None] = lambda: None   # shown from the top again
        self.on_color: Callable[[str], None] = lambda colour: None  # a swatch was clicked
        px = theme.px
        p = theme.palette

        self.preview = tk.Canvas(self, height=px(160), highlightthickness=0, borderwidth=0,
                                 background=p.surface, cursor="hand2")
        self.preview.pack(fill="x")
        self._preview_image = self.preview.create_image(0, 0)
        self._preview_text = self.preview.create_text(0, 0, font=FONT_CAPTION,
                                                      fill=p.text_muted)
        self._photo: Any = None
        self.preview.bind("<Configure>", lambda e: self._center_preview())
        self.preview.bind("<Double-Button-1>", lambda e: self._view())

        self.title = ttk.Label(self, style="Title.TLabel", anchor="w", justify="left")
        self.title.pack(fill="x", pady=(px(10), px(2)))
        self.subtitle = ttk.Label(self, style="Caption.TLabel", anchor="w")
        self.subtitle.pack(fill="x")

        self.body = ttk.Frame(self)
        self.body.pack(fill="both", expand=True, pady=(px(8), 0))
        body = self.body

        self.name_block = ttk.Frame(body)
        self.name_block.pack(fill="x")
        self.name_var = tk.StringVar()
        self._label(self.name_block, _("Name"))
        self.name_entry = ttk.Entry(self.name_block, textvariable=self.name_var, width=8)
        self.name_entry.pack(fill="x")
        self.name_entry.bind("<Return>", lambda e: self._commit_name())
        self.name_entry.bind("<FocusOut>", lambda e: self._commit_name())
        self.name_entry.bind("<Escape>", lambda e: self._revert_name())

        self.rating_label = self._label(body, _("Rating"))
        self.rating = RatingStars(body, theme)
        self.rating.pack(anchor="w")
        self.rating.on_change = self._rate

        self._label(body, _("Tags"))
        self.tags = TagEditor(body, theme)
        self.tags.pack(fill="x")
        self.tags.on_add = lambda tag: self.actions.add_tag(self._ids(), tag)
        self.tags.on_remove = lambda tag: self.actions.remove_tag(self._ids(), tag)

        self.single = ttk.Frame(body)
        self.single.pack(fill="x")
        self._label(self.single, _("Notes"))
        self.notes = tk.Text(self.single, height=4, wrap="word", undo=True,
                             font=FONT_BODY, relief="flat", borderwidth=0,
                             highlightthickness=1, padx=px(6), pady=px(4))
        self.notes.pack(fill="x")
        self.notes.bind("<FocusOut>", lambda e: self._commit_notes())
        self.notes.bind("<Control-Return>", lambda e: self._commit_notes_and_stop())

        self._label(self.single, _("Source URL"))
        url_row = ttk.Frame(self.single)
        url_row.pack(fill="x")
        self.url_var = tk.StringVar()
        self.url_entry = ttk.Entry(url_row, textvariable=self.url_var, width=8)
        self.url_entry.bind("<Return>", lambda e: self._commit_url())
        self.url_entry.bind("<FocusOut>", lambda e: self._commit_url())
        self.url_open = ttk.Button(url_row, text=_("Open"),
                                   command=lambda: self.actions.open_url(self.url_var.get()))
        self.url_open.pack(side="right", padx=(px(4), 0))
        self.url_entry.pack(side="left", fill="x", expand=True)

        self.colours_label = self._label(self.single, _("Colours"))
        self.swatches = PaletteSwatches(self.single, theme)
        self.swatches.pack(fill="x")
        self.swatches.on_pick = lambda colour: self.on_color(colour)
        self.found = FoundText(self.single, theme)
        self.problem = ttk.Label(self.single, style="Danger.TLabel", anchor="w",
                                 justify="left")
        self.facts_grid = ttk.Frame(self.single)
        self.facts_grid.pack(fill="x", pady=(px(10), 0))
        self.facts_grid.columnconfigure(1, weight=1)
        self._info_rows: dict[str, ttk.Label] = {}
        self._info_names: dict[str, ttk.Label] = {}
        for row, label in enumerate(INFO_ROWS):
            name = ttk.Label(self.facts_grid, text=_(label), style="Caption.TLabel")
            name.grid(row=row, column=0, sticky="nw", padx=(0, px(10)), pady=px(1))
            value = ttk.Label(self.facts_grid, anchor="w", justify="left")
            value.grid(row=row, column=1, sticky="w", pady=px(1))
            self._info_rows[label] = value
            self._info_names[label] = name
        self.audit = ttk.Label(self.single, style="Caption.TLabel", anchor="w",
                               justify="left")
        self.audit.pack(fill="x", pady=(px(10), 0))

        self.buttons = ButtonRow(body, theme)
        self.buttons.pack(fill="x", pady=(px(14), 0))
        self.view_button = ttk.Button(self.buttons, text=pgettext("verb", "View"),
                                      command=self._view)
        self.open_button = ttk.Button(self.buttons, text=_("Open with system app"),
                                      command=self._open)
        self.show_button = ttk.Button(self.buttons, text=_("Show in folder"),
                                      command=lambda: self.actions.show_in_folder(self._ids()))
        self.trash_button = ttk.Button(self.buttons, text=_("Move to Trash"),
                                       command=lambda: self.actions.trash(self._ids()))
        self.restore_button = ttk.Button(self.buttons, text=_("Restore"),
                                         command=lambda: self.actions.restore(self._ids()))
        self.delete_button = ttk.Button(
            self.buttons, text=_("Delete permanently…"),
            command=lambda: self.actions.delete_permanently(self._ids()))

        self.empty = ttk.Label(self, style="Muted.TLabel", justify="left",
                               text=_("Select an asset to see its details.\n\nTip: {mod}-click "
                                      "or Shift-click to select several, or drag a box around "
                                      "them.").format(mod=MOD_NAME))
        self._ago_timer: str | None = None
        self._wrap = theme.px(200)
        self._title_text = ""
        theme.on_change(self._restyle)
        self._restyle()
        self.bind("<Configure>", self._on_resize)
        self.show_nothing()

    # layout helpers ----------------------------------------------------------------------
    def _label(self, parent: tk.Misc, text: str) -> ttk.Label:
        label = ttk.Label(parent, text=text, style="Caption.TLabel")
        label.pack(anchor="w", pady=(self.theme.px(8), self.theme.px(2)))
        return label

    def _on_resize(self, event: tk.Event) -> None:
        wrap = max(self.theme.px(120), event.width - self.theme.px(28))
        if wrap != self._wrap:
            self._wrap = wrap
            for label in (self.empty, self.audit, self.title, self.subtitle, self.problem):
                label.configure(wraplength=wrap)
            for value in self._info_rows.values():
                value.configure(wraplength=max(self.theme.px(80), wrap - self.theme.px(80)))
            self._show_title(self._title_text)

    def _show_title(self, text: str) -> None:
        """The title wraps; a very long name is shortened in the middle to two lines (the
        Name field below has all of it)."""
        self._title_text = text
        font = self.theme.font(FONT_SUBTITLE)
        room = 2 * self._wrap - font.measure("MMMM")     # two lines, less a word's slack
        if font.measure(text) > room > 0:
            low, high, best = 1, len(text), "…"
            while low <= high:
                keep = (low + high) // 2
                head = keep - keep // 3
                candidate = text[:head] + "…" + text[len(text) - (keep - head):]
                if font.measure(candidate) <= room:
                    best, low = candidate, keep + 1
                else:
                    high = keep - 1
            text = best
        self.title.configure(text=text)

    def _restyle(self) -> None:
        p = self.theme.palette
        self.preview.configure(background=p.surface)
        self.preview.itemconfigure(self._preview_text, fill=p.text_muted)
        self.notes.configure(background=p.background, foreground=p.text,
                             insertbackground=p.text, highlightbackground=p.placeholder,
                             highlightcolor=p.accent)

    def _ids(self) -> list[str]:
        if self.asset is not None:
            return [self.asset["id"]]
        return [item["id"] for item in self.many]

    # showing -----------------------------------------------------------------------------
    def show_nothing(self) -> None:
        self.asset = None
        self.many = []
        self.on_reset()
        self._cancel_ago()
        self.show_preview(None)
        self.preview.pack_forget()
        self.title.pack_forget()
        self.subtitle.pack_forget()
        self.subtitle.configure(text="")        # nothing left saying "· in the Trash"
        self.body.pack_forget()
        self.empty.pack(fill="x", pady=(self.theme.px(8), 0))

    def _show_frame(self) -> None:
        self.empty.pack_forget()
        if not self.preview.winfo_manager():
            self.preview.pack(fill="x")
            self.title.pack(fill="x", pady=(self.theme.px(10), self.theme.px(2)))
            self.subtitle.pack(fill="x")
            self.body.pack(fill="both", expand=True, pady=(self.theme.px(8), 0))

    def show_asset(self, asset: dict[str, Any], trashed: bool = False) -> None:
        """One asset (an `asset.get` item). Keeps text the person is editing right now."""
        same = self.asset is not None and self.asset["id"] == asset["id"]
        self.asset = asset
        self.many = []
        self._show_frame()
        self._show_title(str(asset.get("name", "")))
        in_trash = trashed or bool(asset.get("trashed"))
        size = humanize.size(asset.get("size"))
        self.subtitle.configure(text=_("{size} · in the Trash").format(size=size) if in_trash
                                else size)
        focus = self.focus_get()
        if not (same and focus is self.name_entry):
            self.name_var.set(asset.get("name", ""))
        self.rating.set(int(asset.get("rating") or 0))
        self.rating_label.configure(text=_("Rating"))
        self.tags.set_tags(asset.get("tags", []))
        if not (same and focus is self.notes):
            self.notes.delete("1.0", "end")
            self.notes.insert("1.0", asset.get("notes") or "")
            self.notes.edit_reset()
        if not (same and focus is self.url_entry):
            self.url_var.set(asset.get("sourceUrl") or "")
        self.name_block.pack(fill="x", before=self.rating_label)
        self.single.pack(fill="x", before=self.buttons)
        self._show_facts(asset)
        kind = str(asset.get("format") or asset.get("ext", "")).upper()
        self._info_rows["Type"].configure(text=f"{kind} · {kind_word(asset.get('kind', ''))}")
        self._info_rows["Size"].configure(text=humanize.size(asset.get("size")))
        self._refresh_ago()
        self._show_buttons(trashed or bool(asset.get("trashed")))
        if not same:
            self.show_preview(None, _("Loading preview…"))

    def _show_facts(self, asset: dict[str, Any]) -> None:
        """Size as displayed (EXIF orientation applied), date taken, camera, lens, palette
        and what is wrong with the file, if anything."""
        width, height = asset.get("width"), asset.get("height")
        self._info_rows["Dimensions"].configure(
            text=_("{width} × {height} px").format(width=width, height=height)
            if width and height else "—")
        facts = {"Duration": humanize.duration(asset.get("duration")),
                 "Pages": str(asset.get("pages") or ""),
                 "Font": " ".join(str(asset.get(k) or "") for k in ("fontFamily", "fontStyle")
                                  ).strip(),
                 "Codec": str(asset.get("codec") or ""),
                 "Taken": taken_words(asset.get("takenAt")),
                 "Camera": str(asset.get("camera") or ""), "Lens": str(asset.get("lens") or "")}
        for name, text in facts.items():
            self._info_rows[name].configure(text=text)
            for widget in (self._info_rows[name], self._info_names[name]):
                if text:
                    widget.grid()
                else:
                    widget.grid_remove()
        problem = asset.get("problem") or {}
        if problem:
            self.problem.configure(text="⚠ " + problem_sentence(problem))
            self.problem.pack(fill="x", pady=(self.theme.px(10), 0), before=self.facts_grid)
        else:
            self.problem.pack_forget()
        if self.found.show(asset):
            self.found.pack(fill="x", before=self.facts_grid)
        else:
            self.found.pack_forget()
        image = asset.get("kind", "image") in COLOURED
        if image and (asset.get("palette") or not problem):
            self.colours_label.pack(anchor="w", pady=(self.theme.px(8), self.theme.px(2)),
                                    before=self.facts_grid)
            self.swatches.pack(fill="x", before=self.facts_grid)
            self.swatches.show(asset.get("palette") or [],
                               note=_("Not analysed yet"))
        else:
            self.colours_label.pack_forget()
            self.swatches.pack_forget()

    @property
    def facts(self) -> dict[str, str]:
        """The info rows as shown (tests, screen readers): name -> text."""
        return {name: str(value.cget("text")) for name, value in self._info_rows.items()
                if value.winfo_manager()}

    @property
    def problem_text(self) -> str:
        return str(self.problem.cget("text")) if self.problem.winfo_manager() else ""

    def show_many(self, items: Sequence[dict[str, Any]], trashed: bool = False) -> None:
        """Several assets (summaries): their tags (shared and partial), rating (setting it
        rates them all), batch actions."""
        same = [i["id"] for i in self.many] == [i["id"] for i in items] and self.asset is None
        self.asset = None
        self.many = list(items)
        self._cancel_ago()
        self._show_frame()
        total = sum(int(i.get("size") or 0) for i in items)
        self._show_title(ngettext("{n} asset selected", "{n} assets selected",
                                  len(items)).format(n=humanize.number(len(items))))
        self.subtitle.configure(text=humanize.size(total))
        shared, partial = tag_shares(items)
        self.tags.set_tags(shared, partial=partial, of=len(items))
        ratings = {int(i.get("rating") or 0) for i in items}
        mixed = len(ratings) > 1
        self.rating.set(ratings.pop() if len(ratings) == 1 else 0, mixed=mixed)
        self.rating_label.configure(text=_("Rating · varies (a star sets all)") if mixed
                                    else _("Rating"))
        self.single.pack_forget()
        self.name_block.pack_forget()
        self._show_buttons(trashed)
        if not same:                  # the same assets, newer data: keep their picture
            self.show_preview(None, humanize.assets(len(items)))

    def show_preview(self, photo: Any, text: str = "") -> None:
        self._photo = photo
        self.preview.itemconfigure(self._preview_image, image=photo or "")
        self.preview.itemconfigure(self._preview_text, text="" if photo else text)
        self._center_preview()

    @property
    def has_preview(self) -> bool:
        return self._photo is not None

    def preview_pixels(self) -> int:
        """The size of picture the preview area wants."""
        width = max(self.preview.winfo_width(), self.theme.px(200))
        return max(width, self.theme.px(160))

    def _center_preview(self) -> None:
        width = self.preview.winfo_width()
        height = self.preview.winfo_height()
        self.preview.coords(self._preview_image, width / 2, height / 2)
        self.preview.coords(self._preview_text, width / 2, height / 2)

    def _show_buttons(self, trashed: bool) -> None:
        if trashed:
            shown = [self.restore_button, self.delete_button]
        elif self.asset is not None:
            shown = [self.view_button, self.open_button, self.show_button, self.trash_button]
        else:
            shown = [self.view_button, self.trash_button]
        self.buttons.show(shown)

    # audit line --------------------------------------------------------------------------
    def _refresh_ago(self) -> None:
        self._cancel_ago()
        asset = self.asset
        if asset is None:
            return
        self._info_rows["Added"].configure(text=humanize.ago(asset.get("addedAt")))
        self._info_rows["Modified"].configure(text=humanize.ago(asset.get("modifiedAt")))
        lines = [humanize.changed_by(True, asset.get("addedBy"), asset.get("addedAt"))]
        modified_by = asset.get("modifiedBy")
        if modified_by and asset.get("modifiedAt") != asset.get("addedAt"):
            lines.append(humanize.changed_by(False, modified_by, asset.get("modifiedAt")))
        self.audit.configure(text="\n".join(lines))
        self._ago_timer = self.after(AGO_REFRESH_MS, self._refresh_ago)

    def _cancel_ago(self) -> None:
        if self._ago_timer is not None:
            self.after_cancel(self._ago_timer)
            self._ago_timer = None

    # edits -------------------------------------------------------------------------------
    def _commit_name(self) -> None:
        asset = self.asset
        name = self.name_var.get().strip()
        if asset is not None and name and name != asset.get("name"):
            self.actions.rename(asset, name)

    def _revert_name(self) -> None:
        if self.asset is not None:
            self.name_var.set(self.asset.get("name", ""))

    def _commit_notes_and_stop(self) -> str:
        """Ctrl+Return in the notes: save them, and type no new line."""
        self._commit_notes()
        return "break"

    def _commit_notes(self) -> None:
        asset = self.asset
        if asset is None:
            return
        text = self.notes.get("1.0", "end-1c")
        if text != (asset.get("notes") or ""):
            self.actions.set_notes(asset, text)

    def _commit_url(self) -> None:
        asset = self.asset
        if asset is None:
            return
        url = self.url_var.get().strip()
        if url != (asset.get("sourceUrl") or ""):
            self.actions.set_source_url(asset, url)

    def _rate(self, rating: int) -> None:
        ids = self._ids()
        if ids:
            self.actions.set_rating(ids, rating)

    def _open(self) -> None:
        ids = self._ids()
        if ids:
            self.actions.open_assets(ids)

    def _view(self) -> None:
        ids = self._ids()
        if ids:
            self.on_view(ids)

    def focus_name(self) -> None:
        """F2: type a new name."""
        if self.asset is not None:
            self.name_entry.focus_set()
            self.name_entry.select_range(0, "end")

    def focus_tags(self) -> None:
        """Ctrl+T: type a tag for what is shown."""
        if self.asset is not None or self.many:
            self.tags.entry.focus_set()
