"""What an action of the window is, and how its keys are bound. Tk thread only.

One `Action` per thing the person can do: its menu, label, shortcut (the Tk sequences and
how the menu shows them), what it acts on (`Target`), when it is available, and which
right-click menus offer it. The menu bar, the key bindings, the context menus and the
shortcuts dialog are all built from the same table (`window_actions.window_actions`).

Keys that would clash with typing (Delete, Ctrl+Z, Space) are ignored while a text field
has the focus, so they keep their usual meaning there; several actions may share a key
(Delete trashes, or in the Trash deletes for good): the first one available runs.
"""

from __future__ import annotations

import sys
import tkinter as tk
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from serpent_tk.ui.language.translate import N_, _

MOD = "Command" if sys.platform == "darwin" else "Control"
MOD_NAME = "Cmd" if sys.platform == "darwin" else "Ctrl"
TEXT_CLASSES = {"Entry", "TEntry", "Text", "TCombobox", "Spinbox", "TSpinbox"}
MENUS = (N_("File"), N_("Edit"), N_("View"), N_("Library"), N_("Help"))  # ids; `_()` shown


@dataclass(frozen=True)
class Target:
    """What an action acts on: assets (the selection, or the one in the viewer), and a view
    of the sidebar (the current one, or the right-clicked row)."""

    keys: tuple[str, ...] = ()
    scope: Any = None              # a sidebar `Scope`, or None (a section heading)
    row: str = ""                  # the sidebar row id: "section:folders", "folder:…"
    context: str = ""              # "sidebar" for the sidebar's right-click menu

    @property
    def in_trash(self) -> bool:
        return bool(self.scope is not None and self.scope.is_trash)

    @property
    def kind(self) -> str:
        """The row's kind: all / folder / tag / collection / smart / trash / section:…"""
        return str(self.scope.kind) if self.scope is not None else self.row


# a submenu's entry: (label, command), or (label, command, enabled) to grey it out in the menu
# bar (right-click menus leave disabled entries out)
CascadeEntry = tuple[str, Callable[[], None]] | tuple[str, Callable[[], None], bool]


def _always(target: Target) -> bool:
    return True


@dataclass(frozen=True)
class Action:
    name: str                                  # stable id: "edit.undo"
    label: str | Callable[[Target], str]       # a msgid, or words made for the target
    menu: str                                  # one of MENUS
    run: Callable[[Target], None]
    keys: tuple[str, ...] = ()                 # Tk sequences
    accelerator: str = ""                      # as menus show it: "Ctrl+Z"
    when: Callable[[Target], bool] = _always   # enabled (menu bar) / offered (context menus)
    places: tuple[str, ...] = ()               # context menus: "asset", "sidebar"
    typing: bool = False                       # its keys also work while typing
    focus: tuple[str, ...] = ()                # its keys only work with the focus in these
    group: int = 0                             # a separator between groups of a menu
    checked: Callable[[], bool] | None = None  # a check item ("Sidebar")
    cascade: Callable[[Target], list[CascadeEntry]] | None = None
    in_menu_bar: bool = True
    # in the menu bar too, only where it applies (a tag's rename in a tag's view), instead of
    # greyed out with words that make no sense elsewhere ("Rename tag “All assets”…")
    only_where_it_applies: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def text(self, target: Target) -> str:
        """The label in the window's language."""
        return self.label(target) if callable(self.label) else _(self.label)


def typing_in(widget: object) -> bool:
    try:
        return widget is not None and widget.winfo_class() in TEXT_CLASSES  # type: ignore[attr-defined]
    except (tk.TclError, KeyError):
        return False


def _focus_class(widget: object) -> str:
    try:
        return str(widget.winfo_class())  # type: ignore[attr-defined]
    except (tk.TclError, KeyError, AttributeError):
        return ""


def key_allows(action: Action, widget: object) -> bool:
    """May `action`'s key act with the focus on `widget`?"""
    if not action.typing and typing_in(widget):
        return False
    return not action.focus or _focus_class(widget) in action.focus


def bind_keys(root: tk.Misc, actions: Sequence[Action],
              target: Callable[[], Target]) -> dict[str, list[Action]]:
    """Bind every action's keys on `root` (a toplevel: its widgets see the binding, other
    windows such as Settings do not). Returns sequence -> actions, in the order tried."""
    by_sequence: dict[str, list[Action]] = {}
    for action in actions:
        for sequence in action.keys:
            by_sequence.setdefault(sequence, []).append(action)
    for sequence, candidates in by_sequence.items():
        def run(event: tk.Event, candidates: list[Action] = candidates) -> str | None:
            current = target()
            for action in candidates:
                if key_allows(action, event.widget) and action.when(current):
                    action.run(current)
                    return "break"
            return None

        root.bind(sequence, run, add="+")
    return by_sequence


def shortcut_rows(actions: Sequence[Action]) -> list[tuple[str, str, str]]:
    """(menu, label, accelerator) of every action with a shortcut, in menu order (the menu
    by its id: `_()` it to show it)."""
    rows = []
    for menu in MENUS:
        for action in actions:
            if action.menu == menu and action.accelerator:
                rows.append((menu, action.text(Target()), action.accelerator))
    return rows
