"""The main window's action table: every action, once, with its menu, shortcut and where it
applies. Tk thread only. The handlers are the window's own objects (asset actions, sidebar
commands, the viewer, the panes); this module only says what is what.
"""

from __future__ import annotations

from typing import Any

from serpent_tk.ui.actions.clipboard_import import ClipboardImport
from serpent_tk.ui.actions.studio_move import move_to_studio
from serpent_tk.ui.browser.layouts import choice as layout_choice
from serpent_tk.ui.language.translate import N_, _
from serpent_tk.ui.menus.action_table import MOD, MOD_NAME, Action, Target

# the sidebar rows each sidebar action belongs to
FOLDERS = ("section:folders", "folder")
COLLECTIONS = ("section:collections", "collection")
SMART = ("section:smart", "smart")
# the asset's right-click menu: look, then describe and file, then plug-ins, then away
ASSET_MENU = (("view.open", "file.open-outside", "file.show-in-folder"),
              ("edit.tag-assets", "edit.rating", "edit.rename", "library.move-to-folder",
               "library.add-to-collection", "library.remove-from-collection",
               "library.find-similar"),
              ("library.plugins",),
              ("edit.trash", "edit.restore", "edit.delete-permanently"))


def _quoted(target: Target) -> str:
    return _("“{name}”").format(name=target.scope.name) if target.scope is not None else ""


def window_actions(w: Any) -> list[Action]:
    """The table for `MainWindow` `w`."""
    has = w.commands.available
    viewer, actions, sidebar = w.viewer, w.actions, w.sidebar_menu
    full = w.full_screen
    paste = ClipboardImport(w.root, w.importer, w.import_paths, w.toast)

    def assets(target: Target) -> bool:
        return bool(target.keys) and not target.in_trash

    def trashed(target: Target) -> bool:
        return bool(target.keys) and target.in_trash

    def viewing(_target: Target) -> bool:
        return bool(viewer.is_open)

    def grid_shown(_target: Target) -> bool:
        return not viewer.is_open

    def row_is(*kinds: str) -> Any:
        return lambda t: t.kind in kinds

    def on_rows(target: Target, kinds: tuple[str, ...]) -> bool:
        """Offered on these sidebar rows; always in the menu bar."""
        return target.context != "sidebar" or target.kind in kinds

    def one(target: Target) -> list[str]:
        return list(target.keys)

    def new_folder_label(target: Target) -> str:
        return _("New folder inside…") if target.kind == "folder" else _("New folder…")

    def rename() -> None:
        """F2: type a new name in the inspector (shown first if it was folded away)."""
        w.panes.show("inspector", True)
        w.root.after_idle(w.inspector.focus_name)

    def layout(mode: str) -> None:
        layout_choice.set_layout(w, mode)

    def something_to_view(_target: Target) -> bool:
        return bool(viewer.is_open or w.pages.count())

    def back() -> None:
        """Esc: out of full screen first, then back to the grid."""
        if full.active:
            full.leave()
        else:
            viewer.close()

    def in_collection(target: Target) -> bool:
        return bool(target.keys) and target.kind == "collection" and \
            has("collection.members")

    table = [
        # File ----------------------------------------------------------------------------
        Action("file.new-library", N_("New library…"), "File", lambda t: w.switcher.ask_new()),
        Action("file.open-library", N_("Open library…"), "File",
               lambda t: w.switcher.ask_open()),
        Action("file.import", N_("Import files…"), "File", lambda t: w.ask_import(),
               keys=(f"<{MOD}-i>",), accelerator=f"{MOD_NAME}+I", typing=True, group=1,
               when=lambda t: has("file.import")),
        Action("file.import-folder", N_("Import a folder…"), "File",
               lambda t: w.ask_import_folder(), group=1, when=lambda t: has("file.import")),
        Action("file.import-flattened", N_("Import a folder, flattened…"), "File",
               lambda t: w.ask_import_folder(flatten=True), group=1,
               when=lambda t: has("file.import")),
        Action("file.open-outside", N_("Open with system app"), "File",
               lambda t: actions.open_assets(one(t)), keys=(f"<{MOD}-Return>",),
               accelerator=f"{MOD_NAME}+Enter", when=assets, places=("asset",), group=2),
        Action("file.show-in-folder", N_("Show in folder"), "File",
               lambda t: actions.show_in_folder(one(t)), when=assets, places=("asset",),
               group=2),
        Action("file.settings", N_("Settings…"), "File", lambda t: w.open_settings("general"),
               keys=(f"<{MOD}-comma>",), accelerator=f"{MOD_NAME}+,", typing=True, group=3),
        Action("file.quit", N_("Quit"), "File", lambda t: w.quit(), keys=(f"<{MOD}-q>",),
               accelerator=f"{MOD_NAME}+Q", typing=True, group=4),
        # Edit ----------------------------------------------------------------------------
        Action("edit.undo", N_("Undo"), "Edit", lambda t: actions.undo(), keys=(f"<{MOD}-z>",),
               accelerator=f"{MOD_NAME}+Z", when=lambda t: has("history.undo")),
        Action("edit.redo", N_("Redo"), "Edit", lambda t: actions.redo(),
               keys=(f"<{MOD}-Shift-z>", f"<{MOD}-Shift-Z>", f"<{MOD}-y>"),
               accelerator=f"{MOD_NAME}+Shift+Z", when=lambda t: has("history.redo")),
        Action("edit.paste", N_("Paste images and files"), "Edit", lambda t: paste.paste(),
               keys=(f"<{MOD}-v>", f"<{MOD}-V>"), accelerator=f"{MOD_NAME}+V",
               when=lambda t: has("file.import") and w.session.library_id is not None),
        Action("edit.select-all", N_("Select all"), "Edit", lambda t: w.grid.select_loaded(),
               keys=(f"<{MOD}-a>",), accelerator=f"{MOD_NAME}+A", focus=("Canvas",),
               when=grid_shown, group=1),
        Action("edit.select-none", N_("Select none"), "Edit", lambda t: w.grid.clear_selection(),
               keys=("<Escape>",), accelerator="Esc", focus=("Canvas",),
               when=lambda t: grid_shown(t) and bool(t.keys), group=1),
        Action("edit.find", N_("Find…"), "Edit", lambda t: w.search.focus(),
               keys=(f"<{MOD}-f>",), accelerator=f"{MOD_NAME}+F", typing=True, group=1),
        Action("edit.rename", N_("Rename…"), "Edit", lambda t: rename(),
               keys=("<F2>",), accelerator="F2", group=2, places=("asset",),
               when=lambda t: len(t.keys) == 1 and not t.in_trash),
        Action("edit.add-tag", N_("Add a tag…"), "Edit", lambda t: w.inspector.focus_tags(),
               keys=(f"<{MOD}-t>",), accelerator=f"{MOD_NAME}+T", group=2, when=assets),
        Action("edit.trash", N_("Move to Trash"), "Edit", lambda t: w.trash(one(t)),
               keys=("<Delete>", "<BackSpace>"), accelerator="Delete", group=3,
               when=lambda t: assets(t) and has("asset.trash"), places=("asset",),
               only_where_it_applies=True),
        Action("edit.restore", N_("Restore"), "Edit", lambda t: actions.restore(one(t)),
               group=3, when=lambda t: trashed(t) and has("asset.restore"),
               places=("asset",),
               only_where_it_applies=True),
        Action("edit.delete-permanently", N_("Delete permanently…"), "Edit",
               lambda t: actions.delete_permanently(one(t)), keys=("<Delete>", "<BackSpace>"),
               accelerator=_("Delete (in the Trash)"), group=3, places=("asset",),
               when=lambda t: trashed(t) and has("asset.delete-permanently"),
               only_where_it_applies=True),
        # View ----------------------------------------------------------------------------
        Action("view.sidebar", N_("Show sidebar"), "View", lambda t: w.panes.toggle("sidebar"),
               keys=(f"<{MOD}-b>",), accelerator=f"{MOD_NAME}+B", typing=True,
               checked=lambda: w.panes.shown("sidebar")),
        Action("view.inspector", N_("Show inspector"), "View",
               lambda t: w.panes.toggle("inspector"),
               keys=(f"<{MOD}-Shift-i>", f"<{MOD}-Shift-I>"),
               accelerator=f"{MOD_NAME}+Shift+I", typing=True,
               checked=lambda: w.panes.shown("inspector")),
        Action("view.sort", N_("Sort by"), "View", lambda t: None, when=grid_shown,
               cascade=lambda t: [(label, lambda shown=label: w.sort.choose(shown))
                                  for label in w.sort.offered]),
        Action("view.subfolders", N_("Show subfolder contents"), "View",
               lambda t: w.set_include_subfolders(not w.browser.include_subfolders),
               checked=lambda: w.browser.include_subfolders),
        Action("view.layout-grid", N_("Thumbnails"), "View", lambda t: layout("grid"),
               keys=(f"<{MOD}-Key-1>",), accelerator=f"{MOD_NAME}+1", when=grid_shown,
               group=1, checked=lambda: w.grid.mode == "grid"),
        Action("view.layout-justified", N_("Justified"), "View",
               lambda t: layout("justified"), keys=(f"<{MOD}-Key-2>",),
               accelerator=f"{MOD_NAME}+2", when=grid_shown, group=1,
               checked=lambda: w.grid.mode == "justified"),
        Action("view.layout-list", N_("List"), "View", lambda t: layout("list"),
               keys=(f"<{MOD}-Key-3>",), accelerator=f"{MOD_NAME}+3", when=grid_shown,
               group=1, checked=lambda: w.grid.mode == "list"),
        Action("view.bigger", N_("Bigger thumbnails"), "View", lambda t: w.zoom_step(1),
               keys=(f"<{MOD}-plus>", f"<{MOD}-equal>"), accelerator=f"{MOD_NAME}++",
               when=grid_shown, group=1),
        Action("view.smaller", N_("Smaller thumbnails"), "View", lambda t: w.zoom_step(-1),
               keys=(f"<{MOD}-minus>",), accelerator=f"{MOD_NAME}+−", when=grid_shown,
               group=1),
        # key names: i18n: not words
        Action("view.open", N_("Open in viewer"), "View", lambda t: w.open_viewer(one(t)),
               keys=("<space>", "<Return>", "<KP_Enter>"), accelerator="Space / Enter",
               focus=("Canvas",), when=lambda t: grid_shown(t) and bool(t.keys), group=2,
               places=("asset",)),
        # key names: i18n: not words
        Action("view.back", N_("Back to the grid"), "View", lambda t: back(),
               keys=("<Escape>", "<space>"), accelerator="Esc / Space", when=viewing,
               group=2),
        Action("view.full-screen", N_("Full screen"), "View", lambda t: full.toggle(),
               keys=("<F11>",), accelerator="F11", when=something_to_view, group=2,
               checked=lambda: full.active),
        Action("view.slideshow", N_("Slideshow"), "View", lambda t: full.toggle_slideshow(),
               keys=("<Key-s>", "<Key-S>"), accelerator="S", focus=("Canvas",),
               when=something_to_view, group=2, checked=lambda: full.slideshow),
        Action("view.slideshow-interval", N_("Slideshow interval"), "View", lambda t: None,
               when=something_to_view, group=2, cascade=lambda t: full.intervals()),
        Action("view.next", N_("Next"), "View", lambda t: viewer.step(1),
               keys=("<Right>", "<Down>", "<Next>"), accelerator="→", when=viewing, group=3),
        Action("view.previous", N_("Previous"), "View", lambda t: viewer.step(-1),
               keys=("<Left>", "<Up>", "<Prior>"), accelerator="←", when=viewing, group=3),
        Action("view.zoom-in", N_("Zoom in"), "View", lambda t: viewer.zoom_in(),
               keys=("<plus>", "<equal>", "<KP_Add>"), accelerator="+", when=viewing,
               group=4),
        Action("view.zoom-out", N_("Zoom out"), "View", lambda t: viewer.zoom_out(),
               keys=("<minus>", "<KP_Subtract>"), accelerator="−", when=viewing, group=4),
        Action("view.fit", N_("Zoom to fit"), "View", lambda t: viewer.fit(),
               keys=("<Key-0>", "<KP_0>"), accelerator="0", when=viewing, group=4),
        Action("view.actual", N_("Actual size (100 %)"), "View", lambda t: viewer.actual_size(),
               keys=("<Key-1>", "<KP_1>"), accelerator="1", when=viewing, group=4),
        Action("view.refresh", N_("Refresh"), "View", lambda t: w.refresh(), keys=("<F5>",),
               accelerator="F5", typing=True, group=5),
        # Library -------------------------------------------------------------------------
        Action("library.new-folder", new_folder_label, "Library",
               lambda t: sidebar.new_folder(t.scope.target if t.kind == "folder" else None),
               when=lambda t: has("folder.create") and on_rows(t, FOLDERS),
               places=("sidebar",)),
        Action("library.new-collection", N_("New collection…"), "Library",
               lambda t: sidebar.new_collection(), places=("sidebar",),
               when=lambda t: has("collection.create") and on_rows(t, COLLECTIONS)),
        Action("library.new-smart", N_("New smart collection…"), "Library",
               lambda t: sidebar.smart_collection(None), places=("sidebar",),
               when=lambda t: has("collection.create") and on_rows(t, SMART)),
        Action("edit.tag-assets", N_("Tag…"), "Edit", lambda t: w.asset_menu.ask_tag(one(t)),
               when=lambda t: assets(t) and has("asset.tag"), places=("asset",), group=2,
               in_menu_bar=False),
        Action("edit.rating", N_("Rating"), "Edit", lambda t: None, group=2, places=("asset",),
               when=lambda t: assets(t) and has("asset.update"),
               cascade=lambda t: w.asset_menu.ratings(one(t))),
        Action("library.move-to-folder", N_("Move to folder"), "Library", lambda t: None,
               when=lambda t: assets(t) and has("asset.move"), places=("asset",), group=1,
               cascade=lambda t: w.asset_menu.folders_to_move_to(one(t))),
        Action("library.add-to-collection", N_("Copy to collection"), "Library",
               lambda t: None, when=assets, places=("asset",), group=1,
               cascade=lambda t: w.asset_menu.collections_to_add_to(one(t))),
        Action("library.remove-from-collection",
               lambda t: _("Remove from {name}").format(name=_quoted(t))
               if t.scope is not None else _("Remove from this collection"), "Library",
               lambda t: actions.remove_from_collection(one(t), t.scope.target, _quoted(t)),
               when=in_collection, places=("asset",), group=1,
               only_where_it_applies=True),
        Action("library.rename-folder", lambda t: _("Rename {name}…").format(name=_quoted(t))
               if t.scope is not None else _("Rename folder…"),
               "Library", lambda t: sidebar.rename_folder(t.scope), group=2,
               when=lambda t: t.kind == "folder" and has("folder.rename"),
               places=("sidebar",),
               only_where_it_applies=True),
        Action("library.delete-folder", N_("Delete folder (when empty)"), "Library",
               lambda t: sidebar.delete_folder(t.scope), group=2,
               when=lambda t: t.kind == "folder" and has("folder.delete-empty"),
               places=("sidebar",),
               only_where_it_applies=True),
        Action("library.rename-tag", lambda t: _("Rename tag {name}…").format(name=_quoted(t))
               if t.scope is not None else _("Rename tag…"),
               "Library", lambda t: sidebar.rename_tag(t.scope), group=2,
               when=lambda t: t.kind == "tag" and has("tag.rename"), places=("sidebar",),
               only_where_it_applies=True),
        Action("library.delete-tag", N_("Delete tag…"), "Library",
               lambda t: sidebar.delete_tag(t.scope), group=2,
               when=lambda t: t.kind == "tag" and has("tag.delete"), places=("sidebar",),
               only_where_it_applies=True),
        Action("library.edit-rules", N_("Edit rules…"), "Library",
               lambda t: sidebar.smart_collection(t.scope), group=2,
               when=lambda t: t.kind == "smart" and has("collection.update"),
               places=("sidebar",),
               only_where_it_applies=True),
        Action("library.rename-collection", N_("Rename collection…"), "Library",
               lambda t: sidebar.rename_collection(t.scope), group=2,
               when=row_is("collection", "smart") if has("collection.update") else
               (lambda t: False), places=("sidebar",),
               only_where_it_applies=True),
        Action("library.delete-collection", N_("Delete collection…"), "Library",
               lambda t: sidebar.delete_collection(t.scope), group=2,
               when=row_is("collection", "smart") if has("collection.delete") else
               (lambda t: False), places=("sidebar",),
               only_where_it_applies=True),
        Action("library.find-similar", N_("Find similar images"), "Library",
               lambda t: w.finding.similar(one(t)), places=("asset",), group=1,
               when=lambda t: len(t.keys) == 1 and not t.in_trash and
               has("asset.find-similar") and w.finding.is_image(t.keys[0])),
        Action("library.find-duplicates", N_("Find duplicates…"), "Library",
               lambda t: w.finding.open_duplicates(), keys=(f"<{MOD}-Shift-d>",
                                                            f"<{MOD}-Shift-D>"),
               accelerator=f"{MOD_NAME}+Shift+D", typing=True, group=3,
               when=lambda t: has("asset.find-duplicates") and w.session.current is not None),
        Action("library.show-trash", N_("Show the Trash"), "Library",
               lambda t: w.sidebar.select("trash"), group=3),
        Action("library.empty-trash", N_("Empty Trash…"), "Library",
               lambda t: actions.empty_trash(), group=3, places=("sidebar",),
               when=lambda t: has("trash.empty") and on_rows(t, ("trash",))),
        Action("library.move-to-studio", N_("Move to a studio server…"), "Library",
               lambda t: move_to_studio(w), group=5,
               when=lambda t: has("library.move-to-studio") and w.session.current is not None),
        Action("library.plugins", N_("Plugins"), "Library", lambda t: None, group=4,
               places=("asset", "sidebar"), cascade=w.plugin_commands.entries),
        # Help ----------------------------------------------------------------------------
        Action("help.shortcuts", N_("Keyboard shortcuts"), "Help", lambda t: w.show_shortcuts(),
               keys=("<F1>",), accelerator="F1", typing=True),
        Action("help.connect", N_("Connect an AI client…"), "Help",
               lambda t: w.open_settings("mcp")),
        Action("help.about", N_("About Serpent"), "Help", lambda t: w.show_about()),
    ]
    return table
