"""The search bar's colour filter: a swatch button (a menu of common colours and "Other…",
the system colour chooser), how close a colour must be (Close / Similar / Loose: CIELAB
delta E 10 / 20 / 35), and ✕ to clear it. Tk thread only.

Layout and input only: it reports `on_change(colour or None, tolerance)`; the browser adds
`color` and `colorTolerance` to its `asset.search`.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from tkinter import colorchooser, ttk

from serpent_tk.ui.language.translate import N_, _
from serpent_tk.ui.menus.menu_style import themed_menu
from serpent_tk.ui.shell.theme import Theme
from serpent_tk.ui.shell.tooltip import tooltip

# name -> delta E (CIE76): 2 is barely visible, 10 another shade, 30+ another colour
TOLERANCES = ((N_("Close"), 10.0), (N_("Similar"), 20.0), (N_("Loose"), 35.0))
DEFAULT_TOLERANCE = 20.0
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
    return min(TOLERANCES, key=lambda pair: abs(pair[1] - tolerance))[0]


class ColorFilter(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme,
                 on_change: Callable[[str | None, float], None]) -> None:
        super().__init__(master)
        self.theme = theme
        self.on_change = on_change
        self.color: str | None = None
        self.tolerance = DEFAULT_TOLERANCE
        px = theme.px
        size = px(22)
        self.swatch = tk.Canvas(self, width=size, height=size, highlightthickness=0,
                                borderwidth=0, cursor="hand2")
        self.swatch.pack(side="left")
        self.swatch.bind("<Button-1>", lambda e: self.open_menu())
        self.swatch.bind("<Configure>", lambda e: self._draw())
        self.tolerance_box = ttk.Combobox(self, state="readonly", width=7,
                                          values=[_(name) for name, _value in TOLERANCES])
        self.tolerance_box.set(_(tolerance_name(self.tolerance)))
        self.tolerance_box.bind("<<ComboboxSelected>>", lambda e: self._tolerance_chosen())
        self.clear_button = ttk.Button(self, text="✕", width=2, command=self.clear)
        self.menu = themed_menu(self, theme)
        self._fill_menu()
        tooltip(self.swatch, theme, lambda: (
            _("Showing assets with {color} (click for another colour)").format(
                color=self.color) if self.color else _("Find assets by colour")))
        tooltip(self.tolerance_box, theme, _("How close a colour must be: close (ΔE 10), "
                                             "similar (ΔE 20) or loose (ΔE 35)"))
        tooltip(self.clear_button, theme, _("Clear the colour filter"))
        theme.on_change(self._draw)
        self._draw()

    # the menu ----------------------------------------------------------------------------
    def _fill_menu(self) -> None:
        for index, (name, colour) in enumerate(COMMON_COLOURS):
            self.menu.add_command(label=f"  {_(name)}  ", background=colour,
                                  activebackground=colour, foreground=readable_on(colour),
                                  activeforeground=readable_on(colour),
                                  columnbreak=index > 0 and index % PER_COLUMN == 0,
                                  command=lambda c=colour: self.set(c))
        self.menu.add_command(label=_("Other…"), columnbreak=True, command=self.ask_other)

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
    def set(self, colour: str | None, tolerance: float | None = None, *,
            notify: bool = True) -> None:
        """Show `colour` (None: no colour filter) and, unless told not to, report it."""
        colour = normal_hex(colour) if colour else None
        if tolerance is not None:
            self.tolerance = tolerance
            self.tolerance_box.set(_(tolerance_name(tolerance)))
        changed = colour != self.color or tolerance is not None
        self.color = colour
        self._draw()
        if colour:
            if not self.tolerance_box.winfo_manager():
                self.tolerance_box.pack(side="left", padx=(self.theme.px(4), 0))
                self.clear_button.pack(side="left", padx=(self.theme.px(4), 0))
        else:
            self.tolerance_box.pack_forget()
            self.clear_button.pack_forget()
        if notify and changed:
            self.on_change(self.color, self.tolerance)

    def clear(self, notify: bool = True) -> None:
        self.set(None, notify=notify)

    def set_tolerance(self, name: str) -> None:
        """Choose the tolerance named `name` (its English name, or as the menu says it)."""
        value = next(v for n, v in TOLERANCES if name in (n, _(n)))
        self.tolerance_box.set(_(tolerance_name(value)))
        if value != self.tolerance:
            self.tolerance = value
            if self.color:
                self.on_change(self.color, self.tolerance)

    def _tolerance_chosen(self) -> None:
        self.set_tolerance(self.tolerance_box.get())

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
