"""What the sidebar's right-click menu and the Library menu do: new/rename/delete folders,
rename/delete tags, new, renamed and deleted collections, the smart-collection editor. Tk
thread only.

Every handler is a gateway command run as the person; which ones a row offers is the
action table's business (`ui/menus/window_actions`). The sidebar refreshes through the usual
`LibraryChanged` path.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from typing import Any

from serpent_tk.ui.language.translate import _
from serpent_tk.ui.menus.action_table import MOD_NAME
from serpent_tk.ui.shell.commands import Commands, Reply, describe_error
from serpent_tk.ui.shell.dialogs import AskTextDialog, ConfirmDialog, Dialog
from serpent_tk.ui.shell.theme import Theme
from serpent_tk.ui.sidebar.sidebar import Scope, Sidebar


class SidebarMenu:
    def __init__(self, commands: Commands, theme: Theme, parent: tk.Misc,
                 library_id: Callable[[], str | None], toast: Callable[..., None],
                 empty_trash: Callable[[], None], sidebar: Sidebar,
                 known_tags: Callable[[], list[str]]) -> None:
        self.commands = commands
        self.theme = theme
        self.parent = parent
        self.library_id = library_id
        self.toast = toast
        self.empty_trash = empty_trash
        self.sidebar = sidebar
        self.known_tags = known_tags
        self.dialog: Dialog | None = None

    # commands ------------------------------------------------------------------------------
    def _run(self, name: str, args: dict[str, Any], doing: str, done: str) -> None:
        library_id = self.library_id()
        if library_id is None:
            return

        def answered(reply: Reply) -> None:
            if reply.ok:
                self.toast(done, "success")
            else:
                self.toast(describe_error(reply, doing), "error")

        self.commands.call(name, {"libraryId": library_id, **args}, answered)

    def _ask(self, title: str, prompt: str, initial: str, confirm: str,
             then: Callable[[str], None]) -> None:
        self.dialog = AskTextDialog(self.parent, self.theme, title=title, prompt=prompt,
                                    initial=initial, confirm_label=confirm, on_confirm=then)

    def new_folder(self, parent_id: str | None) -> None:
        def create(name: str) -> None:
            args: dict[str, Any] = {"name": name}
            if parent_id:
                args["parentId"] = parent_id
            self._run("folder.create", args, _("create the folder"),
                      _("Folder “{name}” created.").format(name=name))

        self._ask(_("New folder"), _("Name of the new folder:"), "", _("Create"), create)

    def rename_folder(self, scope: Scope) -> None:
        self._ask(_("Rename folder"), _("New name:"), scope.name, _("Rename"),
                  lambda name: self._run("folder.rename",
                                         {"folderId": scope.target, "name": name},
                                         _("rename the folder"),
                                         _("Renamed to “{name}”.").format(name=name)))

    def delete_folder(self, scope: Scope) -> None:
        self._run("folder.delete-empty", {"folderIds": [scope.target]},
                  _("delete the folder"), _("Folder “{name}” deleted.").format(name=scope.name))

    def rename_tag(self, scope: Scope) -> None:
        self._ask(_("Rename tag"), _("New name for the tag:"), scope.name, _("Rename"),
                  lambda name: self._run("tag.rename", {"tag": scope.target, "newName": name},
                                         _("rename the tag"),
                                         _("Tag renamed to “{name}”.").format(name=name)))

    def delete_tag(self, scope: Scope) -> None:
        self.dialog = ConfirmDialog(
            self.parent, self.theme, title=_("Delete tag"),
            heading=_("Delete “{name}”?").format(name=scope.name),
            text=_("The tag is removed from every asset. {key} brings it back.").format(
                key=f"{MOD_NAME}+Z"),
            confirm_label=_("Delete tag"),
            on_confirm=lambda: self._run("tag.delete", {"tag": scope.target},
                                         _("delete the tag"),
                                         _("Tag “{name}” deleted.").format(name=scope.name)))

    def new_collection(self) -> None:
        self._ask(_("New collection"), _("Name of the new collection:"), "", _("Create"),
                  lambda name: self._run("collection.create", {"name": name},
                                         _("create the collection"),
                                         _("Collection “{name}” created.").format(name=name)))

    def rename_collection(self, scope: Scope) -> None:
        self._ask(_("Rename collection"), _("New name:"), scope.name, _("Rename"),
                  lambda name: self._run("collection.update",
                                         {"collectionId": scope.target, "name": name},
                                         _("rename the collection"),
                                         _("Renamed to “{name}”.").format(name=name)))

    def smart_collection(self, scope: Scope | None) -> None:
        """The rule editor: a new smart collection (`scope` None) or this one's rules."""
        from serpent_tk.ui.collections.smart_collection_dialog import SmartCollectionDialog

        library_id = self.library_id()
        collection = self.sidebar.collections.get(scope.target or "") if scope else None
        if library_id is None or (scope is not None and collection is None):
            return

        def saved(result: dict[str, Any]) -> None:
            said = _("Smart collection “{name}” saved. {key} undoes it.") if collection \
                else _("Smart collection “{name}” created. {key} undoes it.")
            self.toast(said.format(name=result.get("name", ""), key=f"{MOD_NAME}+Z"),
                       "success", key="smart-collection")
            self.sidebar.select_when_shown(f"collection:{result['id']}")

        self.dialog = SmartCollectionDialog(self.parent, self.theme, self.commands,
                                            library_id, tags=self.known_tags(),
                                            collection=collection, on_saved=saved)

    def delete_collection(self, scope: Scope) -> None:
        self.dialog = ConfirmDialog(
            self.parent, self.theme, title=_("Delete collection"),
            heading=_("Delete “{name}”?").format(name=scope.name),
            text=_("The collection goes away; its assets stay in the library."),
            confirm_label=_("Delete collection"),
            on_confirm=lambda: self._run("collection.delete", {"collectionId": scope.target},
                                         _("delete the collection"),
                                         _("Collection “{name}” deleted.").format(
                                             name=scope.name)))
