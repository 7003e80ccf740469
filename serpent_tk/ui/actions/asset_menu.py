"""Assets dropped onto the sidebar (a folder files them, a tag tags them, a collection
collects them, the Trash trashes them) and the "Add to collection" entries of the right-click
menu. Tk thread only; the actions are `AssetActions` gateway commands. The right-click menu
itself is built from the window's action table (`ui/menus`).
"""

from __future__ import annotations

from collections.abc import Callable

from serpent_tk.ui.actions.asset_actions import AssetActions
from serpent_tk.ui.language.translate import _
from serpent_tk.ui.shell.commands import Commands
from serpent_tk.ui.sidebar.sidebar import UNFILED, Scope, Sidebar

DROP_KINDS = ("folder", "unfiled", "trash", "collection", "smart")


class AssetMenu:
    def __init__(self, commands: Commands, actions: AssetActions, sidebar: Sidebar,
                 scope: Callable[[], Scope], toast: Callable[..., None]) -> None:
        self.commands = commands
        self.actions = actions
        self.sidebar = sidebar
        self.scope = scope
        self.toast = toast

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
            label = _("“{name}”").format(name=collection["name"])
            found.append((str(collection["name"]),
                          lambda c=collection["id"], name=label:
                          self.actions.add_to_collection(keys, c, name)))
        return found

    # dropping onto the sidebar -------------------------------------------------------------
    @staticmethod
    def accepts(scope: Scope) -> bool:
        return scope.kind in DROP_KINDS or (scope.kind == "tag" and bool(scope.target))

    def drop(self, keys: list[str], scope: Scope) -> None:
        actions, label = self.actions, _("“{name}”").format(name=scope.name)
        if scope.kind == "folder":
            actions.move_to_folder(keys, scope.target, label)
        elif scope.kind == "unfiled":
            actions.move_to_folder(keys, None, UNFILED.name)
        elif scope.kind == "tag" and scope.target:
            actions.add_tag(keys, scope.target)
        elif scope.kind == "trash":
            actions.trash(keys)
        elif scope.kind == "collection" and scope.target:
            actions.add_to_collection(keys, scope.target, label)
        elif scope.kind == "smart":
            self.toast(_("{name} is a smart collection: its rules choose its assets. "
                         "Right-click it to edit the rules.").format(name=label), "info",
                       key="smart-drop")
