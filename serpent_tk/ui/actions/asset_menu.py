"""Assets dropped onto the sidebar (a folder files them, a tag tags them, a collection
collects them, the Trash trashes them) and the "Add to collection" entries of the right-click
menu. Tk thread only; the actions are `AssetActions` gateway commands. The right-click menu
itself is built from the window's action table (`ui/menus`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from serpent_tk.ui.actions.asset_actions import AssetActions
from serpent_tk.ui.language.translate import _, ngettext
from serpent_tk.ui.shell.commands import Commands
from serpent_tk.ui.shell.dialogs import AskTextDialog
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
        self.dialog: AskTextDialog | None = None

    def ratings(self, keys: list[str]) -> list[tuple[str, Callable[[], None]]]:
        """"Rating" entries: no stars, then one to five."""
        return [(_("No rating") if stars == 0 else "★" * stars,
                 partial(self.actions.set_rating, keys, stars)) for stars in range(6)]

    def folders_to_move_to(self, keys: list[str]) -> list[tuple[str, Callable[[], None]]]:
        """"Move to folder" entries: no folder (Unfiled), then every folder by its path
        ("Trips / Alps"), except the one shown."""
        shown = self.scope().target if self.scope().kind == "folder" else None
        folders = self.sidebar.folders

        def path(folder: dict[str, Any]) -> str:
            names: list[str] = []
            current: dict[str, Any] | None = folder
            while current is not None and len(names) < 32:
                names.append(str(current["name"]))
                current = folders.get(str(current.get("parentId") or ""))
            return " / ".join(reversed(names))

        entries: list[tuple[str, Callable[[], None]]] = [
            (UNFILED.name, partial(self.actions.move_to_folder, keys, None, UNFILED.name))]
        for label, folder_id in sorted((path(f), f["id"]) for f in folders.values()
                                       if f["id"] != shown):
            quoted = _("“{name}”").format(name=label)
            entries.append((label, partial(self.actions.move_to_folder, keys,
                                                   folder_id, quoted)))
        return entries

    def ask_tag(self, keys: list[str]) -> None:
        """"Tag…": a tag for the assets (the inspector's field does it for what it shows)."""
        if not keys:
            return
        self.dialog = AskTextDialog(
            self.actions.parent, self.actions.theme, title=_("Tag"),
            prompt=ngettext("A tag for {n} asset:", "A tag for {n} assets:", len(keys)).format(
                n=len(keys)), confirm_label=_("Tag"),
            on_confirm=lambda tag: self.actions.add_tag(keys, tag))

    def collections_to_add_to(self, keys: list[str]) -> list[tuple[str, Callable[[], None]]]:
        """"Add to collection" entries: every hand-picked collection but the one shown."""
        if not self.commands.available("collection.members"):
            return []
        shown = self.scope().target if self.scope().kind == "collection" else None
        found: list[tuple[str, Callable[[], None]]] = []
        for collection in sorted(self.sidebar.collections.values(),
                                 key=lambda c: c.get("position", 0)):
            if collection.get("smart") or collection["id"] == shown:
                continue
            label = _("“{name}”").format(name=collection["name"])
            found.append((str(collection["name"]),
                          partial(self.actions.add_to_collection, keys, collection["id"],
                                  label)))
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
