"""The search bar's colour filter: a swatch button (a menu of common colours and "Other…",
the system colour chooser), how close a colour must be and how much of the picture it must
cover (one menu button: "Similar · ≥ 30 %"), and ✕ to clear it. Tk thread only.

Layout and input only: it reports `on_change(colour or None, tolerance, share)`; the browser
adds `color`, `colorTolerance` and `colorMinRatio` to its `asset.search`. The tolerances are
the library's colour distance (`library/worker/rows/colourmatch.py`: hue counts most); the
defaults are the library's, which find the mostly-blue pictures for Blue and not the teal
ones. The smart-collection rule's colour value offers the same choices.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from functools import partial
from tkinter import colorchooser, ttk

from serpent_tk.ui.language.translate import N_, _
from serpent_tk.ui.menus.menu_style import themed_menu
from serpent_tk.ui.shell.theme import Theme
from serpent_tk.ui.shell.tooltip import tooltip

# how close a colour must be (the library's colour distance; 44 is its default)
TOLERANCES = ((N_("Exact"), 20.0), (N_("Near"), 32.0), (N_("Similar"), 44.0),
              (N_("Loose"), 60.0), (N_("Very loose"), 80.0))
DEFAULT_TOLERANCE = 44.0
# how much of the picture its colours close to the one asked must cover together
SHARES = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7)
DEFAULT_SHARE = 0.3
COMMON_COLOURS = ((N_("Red"), "#e53935"), (N_("Orange"), "#fb8c00"),
                  (N_("Yellow"), "#fdd835"), (N_("Green"), "#43a047"), (N_("Teal"), "#00897b"),
                  (N_("Blue"), "#1e88e5"), (N_("Purple"), "#8e24aa"), (N_("Pink"), "#d81b60"),
                  (N_("Brown"), "#795548"), (N_("Black"), "#111111"), (N_("Grey"), "#8a8a8a"),
                  (N_("White"), "#ffffff"))
PER_COLUMN = 4


def normal_hex(colour: str) -> str:
    """'#FF8800' or 'ff8800' -> '#ff8800'."""
    colour = colour.strip().lower()
    return colour if colour.startswith("#") else f"#{colour}"


def readable_on(colour: str) -> str:
    """Black or white, whichever reads better on `colour`."""
    red, green, blue = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#000000" if 0.299 * red + 0.587 * green + 0.114 * blue > 150 else "#ffffff"


def tolerance_name(tolerance: float) -> str:
    """The nearest named tolerance (a msgid: `_()` it to show it)."""
    return min(TOLERANCES, key=lambda pair: abs(pair[1] - tolerance))[0]


def share_words(share: float) -> str:
    """"≥ 30 %": the share of the picture, as the menu says it."""
    return _("≥ {percent} %").format(percent=round(share * 100))


def closeness_words(tolerance: float, share: float) -> str:
    """"Similar · ≥ 30 %"."""
    return _("{tolerance} · {share}").format(tolerance=_(tolerance_name(tolerance)),
                                             share=share_words(share))


class ColorFilter(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme,
                 on_change: Callable[[str | None, float, float], None]) -> None:
        super().__init__(master)
        self.theme = theme
        self.on_change = on_change
        self.color: str | None = None
        self.tolerance = DEFAULT_TOLERANCE
        self.share = DEFAULT_SHARE
        px = theme.px
        size = px(22)
        self.swatch = tk.Canvas(self, width=size, height=size, highlightthickness=0,
                                borderwidth=0, cursor="hand2")
        self.swatch.pack(side="left")
        self.swatch.bind("<Button-1>", lambda e: self.open_menu())
        self.swatch.bind("<Configure>", lambda e: self._draw())
        self.closeness = ttk.Menubutton(self)
        self.closeness_menu = themed_menu(self.closeness, theme)
        self.closeness["menu"] = self.closeness_menu
        self._tolerance_var = tk.DoubleVar(master=self, value=self.tolerance)
        self._share_var = tk.DoubleVar(master=self, value=self.share)
        self._fill_closeness()
        self.clear_button = ttk.Button(self, text="✕", width=2, command=self.clear)
        self.menu = themed_menu(self, theme)
        self._fill_menu()
        tooltip(self.swatch, theme, lambda: (
            _("Showing assets with {color} (click for another colour)").format(
                color=self.color) if self.color else _("Find assets by colour")))
        tooltip(self.closeness, theme, _("How close a colour must be, and how much of the "
                                         "picture it must cover"))
        tooltip(self.clear_button, theme, _("Clear the colour filter"))
        theme.on_change(self._draw)
        self._show_closeness()
        self._draw()

    # the menus ---------------------------------------------------------------------------
    def _fill_menu(self) -> None:
        for index, (name, colour) in enumerate(COMMON_COLOURS):
            self.menu.add_command(label=f"  {_(name)}  ", background=colour,
                                  activebackground=colour, foreground=readable_on(colour),
                                  activeforeground=readable_on(colour),
                                  columnbreak=index > 0 and index % PER_COLUMN == 0,
                                  command=partial(self.set, colour))
        self.menu.add_command(label=_("Other…"), columnbreak=True, command=self.ask_other)

    def _fill_closeness(self) -> None:
        menu = self.closeness_menu
        menu.add_command(label=_("How close"), state="disabled")
        for name, value in TOLERANCES:
            menu.add_radiobutton(label=_(name), value=value, variable=self._tolerance_var,
                                 command=partial(self.set_tolerance, value))
        menu.add_separator()
        menu.add_command(label=_("Covers at least"), state="disabled")
        for share in SHARES:
            menu.add_radiobutton(label=share_words(share), value=share,
                                 variable=self._share_var,
                                 command=partial(self.set_share, share))

    def open_menu(self) -> None:
        x = self.swatch.winfo_rootx()
        y = self.swatch.winfo_rooty() + self.swatch.winfo_height()
        self.menu.tk_popup(x, y)

    def ask_other(self) -> None:
        _rgb, chosen = colorchooser.askcolor(color=self.color or "#808080",
                                             parent=self.winfo_toplevel(),
                                             title=_("Find assets with this colour"))
        if chosen:
            self.set(str(chosen))

    # state -------------------------------------------------------------------------------
    def set(self, colour: str | None, tolerance: float | None = None,
            share: float | None = None, *, notify: bool = True) -> None:
        """Show `colour` (None: no colour filter) and, unless told not to, report it."""
        colour = normal_hex(colour) if colour else None
        changed = colour != self.color or tolerance is not None or share is not None
        if tolerance is not None:
            self.tolerance = tolerance
        if share is not None:
            self.share = share
        self.color = colour
        self._show_closeness()
        self._draw()
        if colour:
            if not self.closeness.winfo_manager():
                self.closeness.pack(side="left", padx=(self.theme.px(4), 0))
                self.clear_button.pack(side="left", padx=(self.theme.px(4), 0))
        else:
            self.closeness.pack_forget()
            self.clear_button.pack_forget()
        if notify and changed:
            self.on_change(self.color, self.tolerance, self.share)

    def clear(self, notify: bool = True) -> None:
        self.set(None, notify=notify)

    def set_tolerance(self, tolerance: float | str) -> None:
        """How close a colour must be: a distance, or a tolerance's name (English, or as the
        menu says it)."""
        if isinstance(tolerance, str):
            tolerance = next(v for n, v in TOLERANCES if tolerance in (n, _(n)))
        if tolerance != self.tolerance:
            self.tolerance = tolerance
            self._changed()

    def set_share(self, share: float) -> None:
        """How much of the picture the colour must cover (0-1)."""
        if share != self.share:
            self.share = share
            self._changed()

    def _changed(self) -> None:
        self._show_closeness()
        if self.color:
            self.on_change(self.color, self.tolerance, self.share)

    def _show_closeness(self) -> None:
        self._tolerance_var.set(self.tolerance)
        self._share_var.set(self.share)
        self.closeness.configure(text=closeness_words(self.tolerance, self.share))

    def _draw(self) -> None:
        c, p = self.swatch, self.theme.palette
        c.configure(background=p.background)
        c.delete("all")
        size = int(c.cget("width"))
        inset = self.theme.px(2)
        if self.color:
            c.create_rectangle(inset, inset, size - inset, size - inset, fill=self.color,
                               outline=p.text_muted)
            return
        # no colour chosen: four small quarters, so the button reads as "colour"
        half = size / 2
        for (x, y), colour in zip(((0, 0), (1, 0), (0, 1), (1, 1)),
                                  ("#e53935", "#fdd835", "#1e88e5", "#43a047"), strict=True):
            c.create_rectangle(inset + x * (half - inset), inset + y * (half - inset),
                               half + x * (half - inset), half + y * (half - inset),
                               fill=colour, outline="")
        c.create_rectangle(inset, inset, size - inset, size - inset, outline=p.text_muted)
