"""The menu bar and the right-click menus, built from the action table. Tk thread only.

Each menu is filled again just before it opens (`postcommand`), so labels, check marks and
greyed-out entries always match the window: what is selected, the view, whether the viewer
is open. A right-click menu lists only the actions that apply to what was clicked.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import Literal

from serpent_tk.ui.language.translate import _
from serpent_tk.ui.menus.action_table import MENUS, Action, CascadeEntry, Target
from serpent_tk.ui.menus.menu_style import themed_menu
from serpent_tk.ui.shell.theme import Theme


def fill(menu: tk.Menu, theme: Theme, actions: Sequence[Action], target: Target, *,
         only_available: bool) -> int:
    """Put `actions` into `menu` (emptied first); returns how many entries it got.
    `only_available`: leave out what does not apply (context menus) instead of greying it
    out (the menu bar). Separators go only between groups that show something."""
    menu.delete(0, "end")
    for old in getattr(menu, "_serpent_subs", []):
        old.destroy()
    menu._serpent_subs = []  # type: ignore[attr-defined]
    menu._serpent_vars = []  # type: ignore[attr-defined]
    added, group = 0, None
    for action in actions:
        available = action.when(target)
        if not available and (only_available or action.only_where_it_applies):
            continue
        entries = action.cascade(target) if action.cascade is not None and available else []
        if only_available:                       # a context menu lists what it can run
            entries = [e for e in entries if entry_enabled(e)]
        if action.cascade is not None and only_available and not entries:
            continue
        if group is not None and action.group != group:
            menu.add_separator()
        group = action.group
        state: Literal["normal", "disabled"] = "normal" if available else "disabled"
        label = action.text(target)
        if action.cascade is not None:
            sub = themed_menu(menu, theme)
            menu._serpent_subs.append(sub)  # type: ignore[attr-defined]
            for entry in entries:
                sub.add_command(label=entry[0], command=entry[1],
                                state="normal" if entry_enabled(entry) else "disabled")
            menu.add_cascade(label=label, menu=sub, state=state if entries else "disabled")
        elif action.checked is not None:
            variable = tk.BooleanVar(master=menu, value=action.checked())
            menu.add_checkbutton(label=label, variable=variable, accelerator=action.accelerator,
                                 state=state, command=_runner(action, target))
            menu._serpent_vars.append(variable)  # type: ignore[attr-defined]
        else:
            menu.add_command(label=label, accelerator=action.accelerator, state=state,
                             command=_runner(action, target))
        added += 1
    return added


def entry_enabled(entry: CascadeEntry) -> bool:
    """A cascade entry is (label, command) or (label, command, enabled)."""
    return len(entry) < 3 or bool(entry[2])


def entry_count(menu: tk.Menu) -> int:
    end = menu.index("end")
    return 0 if end is None else int(end) + 1


def _runner(action: Action, target: Target) -> Callable[[], None]:
    def run() -> None:
        if action.when(target):
            action.run(target)
    return run


class MenuBar:
    """The window's menu bar: File, Edit, View, Library, Help."""

    def __init__(self, root: tk.Tk, theme: Theme, actions: Sequence[Action],
                 target: Callable[[], Target]) -> None:
        self.root = root
        self.theme = theme
        self.actions = list(actions)
        self.target = target
        self.bar = themed_menu(root, theme)
        self.menus: dict[str, tk.Menu] = {}
        for name in MENUS:
            items = [a for a in self.actions if a.menu == name and a.in_menu_bar]
            menu = themed_menu(self.bar, theme)
            menu.configure(postcommand=partial(self._refill, menu, items))
            self.bar.add_cascade(label=_(name), menu=menu, underline=0)
            self.menus[name] = menu
            self._refill(menu, items)
        root.configure(menu=self.bar)

    def _refill(self, menu: tk.Menu, items: list[Action]) -> None:
        fill(menu, self.theme, items, self.target(), only_available=False)

    def refresh(self, name: str) -> tk.Menu:
        """Fill menu `name` for the window as it is now (what opening it does)."""
        menu = self.menus[name]
        self._refill(menu, [a for a in self.actions if a.menu == name and a.in_menu_bar])
        return menu

    def labels(self, name: str) -> list[tuple[str, str, str]]:
        """(label, accelerator, state) of menu `name` as it would open now (tests)."""
        menu = self.refresh(name)
        rows = []
        for index in range(entry_count(menu)):
            if menu.type(index) == "separator":
                continue
            rows.append((str(menu.entrycget(index, "label")),
                         str(menu.entrycget(index, "accelerator")
                             if menu.type(index) != "cascade" else ""),
                         str(menu.entrycget(index, "state"))))
        return rows


class ContextMenu:
    """A right-click menu of the actions offered at `place` ("asset" or "sidebar")."""

    def __init__(self, root: tk.Misc, theme: Theme, actions: Sequence[Action],
                 place: str, order: Sequence[Sequence[str]] = ()) -> None:
        """`order`: groups of action names, the menu's own order and separators (the
        table's order and groups otherwise); actions it does not name come last."""
        self.root = root
        self.theme = theme
        self.actions = [a for a in actions if place in a.places]
        if order:
            rank = {name: (g, i) for g, names in enumerate(order)
                    for i, name in enumerate(names)}
            last = (len(order), 0)
            self.actions = [replace(a, group=rank.get(a.name, last)[0]) for a in
                            sorted(self.actions, key=lambda a: rank.get(a.name, last))]
        self.menu: tk.Menu | None = None

    def entries(self, target: Target) -> list[str]:
        """The labels it would show for `target` (tests)."""
        menu = themed_menu(self.root, self.theme)
        fill(menu, self.theme, self.actions, target, only_available=True)
        labels = [str(menu.entrycget(i, "label")) for i in range(entry_count(menu))
                  if menu.type(i) != "separator"]
        menu.destroy()
        return labels

    def choose(self, target: Target, label: str) -> None:
        """Choose the entry whose label starts with `label`, as a click would (tests, and
        keyboard users of the window's own menus)."""
        for action in self.actions:
            if action.when(target) and action.text(target).startswith(label):
                action.run(target)
                return
        raise LookupError(f"no entry {label!r} for {target}")  # i18n: not words (tests)

    def cascade(self, target: Target, label: str) -> list[CascadeEntry]:
        """The entries of submenu `label` it would show for `target` (tests)."""
        for action in self.actions:
            if action.cascade is not None and action.when(target) and \
                    action.text(target) == label:
                return [e for e in action.cascade(target) if entry_enabled(e)]
        return []

    def popup(self, target: Target, x: int, y: int) -> None:
        if self.menu is not None:
            self.menu.destroy()
        menu = self.menu = themed_menu(self.root, self.theme)
        if fill(menu, self.theme, self.actions, target, only_available=True):
            menu.tk_popup(x, y)
