"""What the person can do with assets straight from the grid: the right-click menu (open,
show in folder, add to or remove from a collection, trash, restore) and dropping a dragged
selection onto the sidebar (a folder files it, a tag tags it, a collection collects it, the
Trash trashes it). Tk thread only; the actions are `AssetActions` gateway commands.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable

from serpent_tk.ui.actions.asset_actions import AssetActions
from serpent_tk.ui.shell.commands import Commands
from serpent_tk.ui.sidebar.sidebar import Scope, Sidebar

Entry = tuple[str, Callable[[], None]] | None     # None: a separator


class AssetMenu:
    def __init__(self, root: tk.Misc, commands: Commands, actions: AssetActions,
                 sidebar: Sidebar, scope: Callable[[], Scope], canvas: tk.Canvas,
                 toast: Callable[..., None]) -> None:
        self.root = root
        self.commands = commands
        self.actions = actions
        self.sidebar = sidebar
        self.scope = scope
        self.canvas = canvas
        self.toast = toast
        self.menu: tk.Menu | None = None

    # right-click -------------------------------------------------------------------------
    def entries(self, keys: list[str]) -> list[Entry]:
        actions, scope = self.actions, self.scope()
        if scope.is_trash:
            return [("Restore", lambda: actions.restore(keys)),
                    ("Delete permanently…", lambda: actions.delete_permanently(keys))]
        found: list[Entry] = [("Open", lambda: actions.open_assets(keys)),
                              ("Show in folder", lambda: actions.show_in_folder(keys)),
                              None]
        if scope.kind == "collection" and scope.target and \
                self.commands.available("collection.members"):
            target, label = scope.target, f"“{scope.label}”"
            found.append((f"Remove from {label}",
                          lambda: actions.remove_from_collection(keys, target, label)))
        found.append(("Move to Trash", lambda: actions.trash(keys)))
        return found

    def collections_to_add_to(self, keys: list[str]) -> list[tuple[str, Callable[[], None]]]:
        """"Add to collection" entries: every hand-picked collection but the one shown."""
        if not self.commands.available("collection.members"):
            return []
        shown = self.scope().target if self.scope().kind == "collection" else None
        found = []
        for collection in sorted(self.sidebar.collections.values(),
                                 key=lambda c: c.get("position", 0)):
            if collection.get("smart") or collection["id"] == shown:
                continue
            label = f"“{collection['name']}”"
            found.append((str(collection["name"]),
                          lambda c=collection["id"], name=label:
                          self.actions.add_to_collection(keys, c, name)))
        return found

    def popup(self, keys: list[str], x: int, y: int) -> None:
        if not keys:
            return
        menu = self.menu = tk.Menu(self.root, tearoff=False)
        entries = self.entries(keys)
        collections = [] if self.scope().is_trash else self.collections_to_add_to(keys)
        for entry in entries:
            if entry is None:
                if collections:
                    sub = tk.Menu(menu, tearoff=False)
                    for label, action in collections:
                        sub.add_command(label=label, command=action)
                    menu.add_cascade(label="Add to collection", menu=sub)
                menu.add_separator()
            else:
                menu.add_command(label=entry[0], command=entry[1])
        menu.tk_popup(x, y)

    # dragging onto the sidebar --------------------------------------------------------------
    def drag(self, keys: list[str], phase: str, x: int, y: int) -> None:
        """`phase`: "motion" while dragging, "drop" on release (screen coordinates)."""
        scope = self.sidebar.scope_at(x, y)
        if phase == "motion":
            self.canvas.configure(cursor="hand2" if scope and self._accepts(scope) else "")
            return
        self.canvas.configure(cursor="")
        if scope is not None and keys:
            self.drop(keys, scope)

    @staticmethod
    def _accepts(scope: Scope) -> bool:
        return scope.kind in ("folder", "unfiled", "trash", "collection", "smart") or (
            scope.kind == "tag" and bool(scope.target))

    def drop(self, keys: list[str], scope: Scope) -> None:
        actions, label = self.actions, f"“{scope.label}”"
        if scope.kind == "folder":
            actions.move_to_folder(keys, scope.target, label)
        elif scope.kind == "unfiled":
            actions.move_to_folder(keys, None, "Unfiled")
        elif scope.kind == "tag" and scope.target:
            actions.add_tag(keys, scope.target)
        elif scope.kind == "trash":
            actions.trash(keys)
        elif scope.kind == "collection" and scope.target:
            actions.add_to_collection(keys, scope.target, label)
        elif scope.kind == "smart":
            self.toast(f"{label} is a smart collection: its rules choose its assets. "
                       "Right-click it to edit the rules.", "info", key="smart-drop")
