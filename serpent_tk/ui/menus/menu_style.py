"""Menus coloured like the theme (classic Tk menus are grey on X11). Tk thread only.

Tk's menus take colours, not ttk styles: the palette's surface, text, selection and muted
colours are set on every menu when it is made (the option database covers menus made
anywhere, e.g. by ttk's Menubutton) and again on every light/dark switch. On Windows and
macOS the system draws the menu bar and takes only some of these.
"""

from __future__ import annotations

import contextlib
import tkinter as tk
import weakref
from typing import Any

from serpent_tk.ui.shell.theme import Theme

_MENUS: weakref.WeakSet[tk.Menu] = weakref.WeakSet()


def menu_colours(theme: Theme) -> dict[str, Any]:
    p = theme.palette
    return {"background": p.surface, "foreground": p.text, "activebackground": p.selection,
            "activeforeground": p.text, "disabledforeground": p.text_muted,
            "selectcolor": p.text, "relief": "solid", "borderwidth": 1,
            "activeborderwidth": 0}


def style_menu(menu: tk.Menu, theme: Theme) -> tk.Menu:
    """Colour `menu` now and after every theme switch."""
    with contextlib.suppress(tk.TclError):
        menu.configure(**menu_colours(theme))
    _MENUS.add(menu)
    return menu


def themed_menu(parent: tk.Misc, theme: Theme, **options: Any) -> tk.Menu:
    """A new `tk.Menu` in the theme's colours (no tear-off line)."""
    options.setdefault("tearoff", False)
    return style_menu(tk.Menu(parent, **options), theme)


def install(root: tk.Misc, theme: Theme) -> None:
    """Menus made from now on (anywhere) start in the theme's colours; made ones follow
    every switch."""
    def apply() -> None:
        colours = menu_colours(theme)
        for name, value in colours.items():
            root.option_add(f"*Menu.{name}", value)
        for menu in list(_MENUS):
            with contextlib.suppress(tk.TclError):
                menu.configure(**colours)

    apply()
    theme.on_change(apply)
    # sv-ttk recolours every menu on <<ThemeChanged>> (sent after any style change) with its
    # own greys, and its handler fails half-way on a menu (`cget -menu`), so nothing bound
    # after it runs: ours replaces it (these menus are ours to colour).
    root.bind_class("Menu", "<<ThemeChanged>>", lambda e: _restyle_one(root, e.widget, theme))


def _restyle_one(root: tk.Misc, menu: Any, theme: Theme) -> None:
    options: list[Any] = []
    for name, value in menu_colours(theme).items():
        options += [f"-{name}", value]
    with contextlib.suppress(tk.TclError):
        root.tk.call(str(menu), "configure", *options)   # also Tk's clones of menu bars
