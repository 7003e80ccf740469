"""Value fields of a smart-collection rule, one per kind of value: text, tag (completing
from the library's tags), extensions, whole numbers, file size with a unit, rating stars,
a date, a number of days, kinds and shapes (several may be ticked), an aspect ratio, a
colour and a folder picker.

Tk thread only. Each field is a frame with `get()` (the rule's value, as the library wants
it), `set(value)`, `problem()` (a sentence when the input is plainly incomplete, else None:
everything else the library checks) and `on_change` (called on every edit).
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from datetime import date, timedelta
from tkinter import ttk
from typing import Any, get_args

from library.schemas.assets import Orientation
from library.schemas.common import AssetKind
from serpent_tk.ui.browser.color_filter import (
    DEFAULT_SHARE,
    DEFAULT_TOLERANCE,
    SHARES,
    TOLERANCES,
    share_words,
    tolerance_name,
)
from serpent_tk.ui.inspector.rating import RatingStars
from serpent_tk.ui.language.asset_words import kind_word, shape_word
from serpent_tk.ui.language.gateway_words import listed
from serpent_tk.ui.language.translate import N_, _, ngettext
from serpent_tk.ui.shell.theme import Theme

KINDS: tuple[str, ...] = get_args(AssetKind)
SHAPES: tuple[str, ...] = get_args(Orientation)
SIZE_UNITS = (("KB", 1000), ("MB", 1000 ** 2), ("GB", 1000 ** 3), (N_("bytes"), 1))


class RuleContext:
    """What value fields choose from: the library's tags and folders (folders arrive later,
    from `folder.list`; fields showing them are told)."""

    def __init__(self, tags: list[str]) -> None:
        self.tags = tags
        self.folders: list[tuple[str, str]] = []      # (folder id, "Trips / Alps")
        self.loaded = False
        self._listeners: list[Callable[[], None]] = []

    def set_folders(self, folders: list[tuple[str, str]]) -> None:
        self.folders = folders
        self.loaded = True
        for listener in list(self._listeners):
            listener()

    def on_folders(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)


def whole_number(text: str) -> Any:
    """"12" -> 12; anything else is sent as typed, and the library says what is wrong."""
    text = text.strip().replace(",", "").replace("_", "")
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


class ValueField(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme) -> None:
        super().__init__(master)
        self.theme = theme
        self.on_change: Callable[[], None] = lambda: None

    def get(self) -> Any:
        raise NotImplementedError

    def set(self, value: Any) -> None:
        raise NotImplementedError

    def problem(self) -> str | None:
        return None

    def _entry(self, width: int, initial: str = "") -> tuple[ttk.Entry, tk.StringVar]:
        var = tk.StringVar(value=initial)
        entry = ttk.Entry(self, textvariable=var, width=width)
        var.trace_add("write", lambda *_: self.on_change())
        return entry, var

    def _unit(self, text: str) -> None:
        ttk.Label(self, text=text, style="Muted.TLabel").pack(side="left",
                                                              padx=(self.theme.px(6), 0))


class TextValue(ValueField):
    def __init__(self, master: tk.Misc, theme: Theme) -> None:
        super().__init__(master, theme)
        self.entry, self.var = self._entry(18)
        self.entry.pack(side="left", fill="x", expand=True)

    def get(self) -> Any:
        return self.var.get()

    def set(self, value: Any) -> None:
        self.var.set("" if value is None else str(value))


class TagValue(ValueField):
    """A tag name; the list offers the library's tags that start with what was typed."""

    def __init__(self, master: tk.Misc, theme: Theme, context: RuleContext) -> None:
        super().__init__(master, theme)
        self.context = context
        self.var = tk.StringVar()
        self.entry = ttk.Combobox(self, textvariable=self.var, width=18,
                                  postcommand=self._offer)
        self.entry.pack(side="left", fill="x", expand=True)
        self.var.trace_add("write", lambda *_: self.on_change())
        self.entry.bind("<<ComboboxSelected>>", lambda e: self.on_change())

    def _offer(self) -> None:
        typed = self.var.get().strip().casefold()
        tags = [t for t in self.context.tags if t.casefold().startswith(typed)] \
            if typed else list(self.context.tags)
        self.entry.configure(values=tags[:200])

    def get(self) -> Any:
        return self.var.get().strip()

    def set(self, value: Any) -> None:
        self.var.set("" if value is None else str(value))

    def problem(self) -> str | None:
        return None if self.get() else _("Type or choose a tag.")


class ExtensionValue(ValueField):
    """One extension or several, separated by commas ("png, jpg")."""

    def __init__(self, master: tk.Misc, theme: Theme) -> None:
        super().__init__(master, theme)
        self.entry, self.var = self._entry(14, "png")
        self.entry.pack(side="left", fill="x", expand=True)
        self._unit(_("e.g. png, jpg"))

    def get(self) -> Any:
        parts = [p.strip().lstrip(".") for p in self.var.get().split(",") if p.strip()]
        return parts[0] if len(parts) == 1 else parts

    def set(self, value: Any) -> None:
        self.var.set(", ".join(value) if isinstance(value, list) else str(value or ""))

    def problem(self) -> str | None:
        return None if self.get() else _("Type an extension, like png.")


class NumberValue(ValueField):
    def __init__(self, master: tk.Misc, theme: Theme, unit: str = "",
                 initial: int = 0) -> None:
        super().__init__(master, theme)
        self.entry, self.var = self._entry(8, str(initial))
        self.entry.pack(side="left")
        if unit:
            self._unit(unit)

    def get(self) -> Any:
        return whole_number(self.var.get())

    def set(self, value: Any) -> None:
        self.var.set("" if value is None else str(value))

    def problem(self) -> str | None:
        return None if self.var.get().strip() else _("Type a number.")


class SizeValue(ValueField):
    """A file size: a number and a unit (KB, MB, GB: powers of 1000, as sizes are shown)."""

    def __init__(self, master: tk.Misc, theme: Theme) -> None:
        super().__init__(master, theme)
        self.entry, self.var = self._entry(8, "1")
        self.entry.pack(side="left")
        self.unit = ttk.Combobox(self, state="readonly", width=6,
                                 values=[_(name) for name, _value in SIZE_UNITS])
        self.unit.set("MB")
        self.unit.pack(side="left", padx=(self.theme.px(6), 0))
        self.unit.bind("<<ComboboxSelected>>", lambda e: self.on_change())

    def get(self) -> Any:
        number = whole_number(self.var.get())
        if isinstance(number, str):
            return number
        factor = {_(name): value for name, value in SIZE_UNITS}[self.unit.get()]
        return round(number * factor)

    def set(self, value: Any) -> None:
        if not isinstance(value, int) or isinstance(value, bool):
            self.var.set(str(value))
            self.unit.set(_("bytes"))
            return
        for name, factor in sorted(SIZE_UNITS, key=lambda unit: -unit[1]):
            if factor == 1 or (value >= factor and value % factor == 0):
                self.var.set(str(value // factor))
                self.unit.set(_(name))
                return

    def problem(self) -> str | None:
        return None if self.var.get().strip() else _("Type a size.")


class RatingValue(ValueField):
    def __init__(self, master: tk.Misc, theme: Theme) -> None:
        super().__init__(master, theme)
        self.stars = RatingStars(self, theme)
        self.stars.set(3)
        self.stars.pack(side="left", pady=(theme.px(3), 0))
        self.stars.on_change = lambda rating: self._changed()
        self.hint = ttk.Label(self, style="Muted.TLabel")
        self.hint.pack(side="left", padx=(theme.px(8), 0))
        self._changed(notify=False)

    def _changed(self, notify: bool = True) -> None:
        stars = self.stars.value
        self.hint.configure(text=_("no stars (unrated)") if stars == 0 else
                            ngettext("{n} star", "{n} stars", stars).format(n=stars))
        if notify:
            self.on_change()

    def get(self) -> Any:
        return self.stars.value

    def set(self, value: Any) -> None:
        self.stars.set(int(value) if isinstance(value, int | float) else 0)
        self._changed(notify=False)


class DateValue(ValueField):
    """An ISO date (YYYY-MM-DD); Up and Down move it a day."""

    def __init__(self, master: tk.Misc, theme: Theme) -> None:
        super().__init__(master, theme)
        self.entry, self.var = self._entry(12, date.today().isoformat())
        self.entry.pack(side="left")
        self.entry.bind("<Up>", lambda e: self._step(1))
        self.entry.bind("<Down>", lambda e: self._step(-1))
        self._unit(_("YYYY-MM-DD  (↑↓ a day)"))

    def _step(self, days: int) -> str:
        try:
            day = date.fromisoformat(self.var.get().strip())
        except ValueError:
            day = date.today()
        self.var.set((day + timedelta(days=days)).isoformat())
        return "break"

    def get(self) -> Any:
        return self.var.get().strip()

    def set(self, value: Any) -> None:
        text = str(value or "")
        self.var.set(text[:10] if len(text) > 10 and text[10] == "T" and
                     text.endswith(("T00:00:00Z", "T00:00:00+00:00")) else text)

    def problem(self) -> str | None:
        return None if self.get() else _("Type a date like 2026-05-01.")


class DaysValue(NumberValue):
    def __init__(self, master: tk.Misc, theme: Theme) -> None:
        super().__init__(master, theme, _("days"), initial=7)


class KindValue(ValueField):
    """One kind or several (any of them)."""

    CHOICES = KINDS
    WORD: Callable[[str], str] = staticmethod(kind_word)
    NOTHING = N_("Choose at least one kind.")

    def __init__(self, master: tk.Misc, theme: Theme) -> None:
        super().__init__(master, theme)
        self.button = ttk.Menubutton(self, width=18)
        self.button.pack(side="left", fill="x", expand=True)
        self.menu = tk.Menu(self.button, tearoff=False)
        self.button["menu"] = self.menu
        self.vars = {kind: tk.BooleanVar(value=kind == self.CHOICES[0])
                     for kind in self.CHOICES}
        for kind in self.CHOICES:
            self.menu.add_checkbutton(label=self.WORD(kind), variable=self.vars[kind],
                                      command=self._changed)
        self._label()

    def _label(self) -> None:
        chosen = [self.WORD(k) for k in self.CHOICES if self.vars[k].get()]
        self.button.configure(text=listed(chosen) if chosen else _("Choose…"))

    def _changed(self) -> None:
        self._label()
        self.on_change()

    def get(self) -> Any:
        chosen = [k for k in self.CHOICES if self.vars[k].get()]
        return chosen[0] if len(chosen) == 1 else chosen

    def set(self, value: Any) -> None:
        values = set(value if isinstance(value, list) else [value])
        for kind, var in self.vars.items():
            var.set(kind in values)
        self._label()

    def problem(self) -> str | None:
        return None if self.get() else _(self.NOTHING)


class ShapeValue(KindValue):
    """One shape or several: portrait, landscape, square, panoramic."""

    CHOICES = SHAPES
    WORD = staticmethod(shape_word)
    NOTHING = N_("Choose at least one shape.")


class RatioValue(ValueField):
    """Width / height: a number (1.5) or a ratio (16:9), sent as typed."""

    def __init__(self, master: tk.Misc, theme: Theme) -> None:
        super().__init__(master, theme)
        self.entry, self.var = self._entry(8, "16:9")
        self.entry.pack(side="left")
        self._unit(_("width : height, or 1.5"))

    def get(self) -> Any:
        text = self.var.get().strip()
        return text if ":" in text else whole_number(text)

    def set(self, value: Any) -> None:
        self.var.set("" if value is None else str(value))

    def problem(self) -> str | None:
        return None if self.var.get().strip() else _("Type a ratio like 16:9.")


class ColourValue(ValueField):
    """A colour as #rrggbb, how close and how much of the picture it covers (the search
    bar's choices: `browser.color_filter`)."""

    def __init__(self, master: tk.Misc, theme: Theme) -> None:
        super().__init__(master, theme)
        self.entry, self.var = self._entry(9, "#1e88e5")
        self.entry.pack(side="left")
        px = theme.px
        self.closeness = ttk.Combobox(self, state="readonly", width=10,
                                      values=[_(name) for name, _value in TOLERANCES])
        self.closeness.set(_(tolerance_name(DEFAULT_TOLERANCE)))
        self.closeness.pack(side="left", padx=(px(6), 0))
        self.covers = ttk.Combobox(self, state="readonly", width=7,
                                   values=[share_words(s) for s in SHARES])
        self.covers.set(share_words(DEFAULT_SHARE))
        self.covers.pack(side="left", padx=(px(6), 0))
        for box in (self.closeness, self.covers):
            box.bind("<<ComboboxSelected>>", lambda e: self.on_change())

    def get(self) -> Any:
        tolerance = TOLERANCES[max(0, self.closeness.current())][1]
        share = SHARES[max(0, self.covers.current())]
        return {"color": self.var.get().strip(), "tolerance": tolerance, "minRatio": share}

    def set(self, value: Any) -> None:
        given = value if isinstance(value, dict) else {"color": value}
        self.var.set("" if given.get("color") is None else str(given["color"]))
        tolerance = float(given.get("tolerance") or DEFAULT_TOLERANCE)
        self.closeness.set(_(tolerance_name(tolerance)))
        ratio = given.get("minRatio")
        share = float(ratio if ratio is not None else DEFAULT_SHARE)
        self.covers.set(share_words(min(SHARES, key=lambda s: abs(s - share))))

    def problem(self) -> str | None:
        return None if self.var.get().strip() else _("Type a colour like #ff8800.")


class FolderValue(ValueField):
    """A folder of the library, by its path ("Trips / Alps")."""

    def __init__(self, master: tk.Misc, theme: Theme, context: RuleContext) -> None:
        super().__init__(master, theme)
        self.context = context
        self.folder_id = ""
        self.box = ttk.Combobox(self, state="readonly", width=22)
        self.box.pack(side="left", fill="x", expand=True)
        self.box.bind("<<ComboboxSelected>>", lambda e: self._chosen())
        context.on_folders(self._fill)
        self._fill()

    def _fill(self) -> None:
        if not self.winfo_exists():
            return
        labels = [label for _key, label in self.context.folders]
        self.box.configure(values=labels)
        if not self.context.loaded:
            self.box.set(_("Loading folders…"))
        elif not labels:
            self.box.set(_("This library has no folders"))
        else:
            self._show()

    def _show(self) -> None:
        for folder_id, label in self.context.folders:
            if folder_id == self.folder_id:
                self.box.set(label)
                return
        self.box.set(_("Choose a folder…"))

    def _chosen(self) -> None:
        index = self.box.current()
        if 0 <= index < len(self.context.folders):
            self.folder_id = self.context.folders[index][0]
        self.on_change()

    def get(self) -> Any:
        return self.folder_id

    def set(self, value: Any) -> None:
        self.folder_id = str(value or "")
        if self.context.loaded:
            self._show()

    def problem(self) -> str | None:
        return None if self.folder_id else _("Choose a folder.")


class NoValue(ValueField):
    """Fields whose operator says it all (untagged)."""

    def get(self) -> Any:
        return True

    def set(self, value: Any) -> None:
        pass
