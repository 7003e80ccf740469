"""The sidebar: what to browse (all, unfiled, untagged, folders, tags, collections, trash).

Tk thread only. It shows data it is given (`show_*` methods) and reports the person's
choice as a `Scope`; loading the data is the main window's job. Refreshing keeps open
folders and the current choice. Sections whose commands the registry does not offer yet
are left out (`set_sections`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from tkinter import ttk
from typing import Any

from serpent_tk.ui.language.formats import number
from serpent_tk.ui.language.translate import N_, _
from serpent_tk.ui.shell.theme import FONT_CAPTION, FONT_STRONG, Theme
from serpent_tk.ui.sidebar.sidebar_labels import LabelFitter

SECTIONS = ("library", "folders", "tags", "collections", "smart")
# Translators: the sidebar's section headings, in capitals where the script has them
SECTION_TITLES = {"library": N_("LIBRARY"), "folders": N_("FOLDERS"), "tags": N_("TAGS"),
                  "collections": N_("COLLECTIONS"), "smart": N_("SMART COLLECTIONS")}


@dataclass(frozen=True)
class Scope:
    """One sidebar choice and the `asset.search` filter it stands for."""

    iid: str
    label: str
    query: dict[str, Any] = field(default_factory=dict)
    # all / unfiled / untagged / trash / folder / tag / collection (hand-picked) / smart
    kind: str = "all"
    target: str | None = None  # folder id, tag name or collection id
    fixed: bool = False        # `label` is the window's own words (a msgid), not a name

    @property
    def is_trash(self) -> bool:
        return self.kind == "trash"

    @property
    def name(self) -> str:
        """The label as the person reads it: the window's own words in its language; a
        folder's, tag's or collection's name as it is; "Similar to “…”" for that view."""
        if self.kind == "similar":
            return _("Similar to “{name}”").format(name=self.label)
        return _(self.label) if self.fixed else self.label


ALL = Scope("all", N_("All assets"), fixed=True)
UNFILED = Scope("unfiled", N_("Unfiled"), {"unfiled": True}, "unfiled", fixed=True)
UNTAGGED = Scope("untagged", N_("Untagged"), {"untagged": True}, "untagged", fixed=True)
TRASH = Scope("trash", N_("Trash"), {"trashed": True}, "trash", fixed=True)


def _count(n: int | None) -> str:
    return number(n) if n else ""


class Sidebar(ttk.Frame):
    def __init__(self, master: Any, theme: Theme) -> None:
        super().__init__(master)
        self.theme = theme
        self.on_scope: Callable[[Scope], None] = lambda scope: None
        # (row id, its scope or None for a section heading, screen x, y)
        self.on_context_menu: Callable[[str, Scope | None, int, int], None] = \
            lambda iid, scope, x, y: None
        self.on_action: Callable[[str], object] = lambda action: None   # "new-folder", ...
        self.on_collections_shown: Callable[[], None] = lambda: None
        self.actions_enabled: dict[str, bool] = {}
        self.tree = ttk.Treeview(self, show="tree", selectmode="browse",
                                 style="Sidebar.Treeview", columns=("count",))
        self.tree.column("#0", stretch=True, minwidth=theme.px(80))
        self.tree.column("count", width=theme.px(44), anchor="e", stretch=False)
        scrollbar = ttk.Scrollbar(self, orient="vertical", command=self.tree.yview)

        def scrolled(first: float | str, last: float | str) -> None:
            scrollbar.set(first, last)
            if float(first) <= 0.0 and float(last) >= 1.0:
                scrollbar.grid_remove()
            else:
                scrollbar.grid()

        self.tree.configure(yscrollcommand=scrolled)
        self.tree.grid(row=0, column=0, sticky="nsew")
        scrollbar.grid(row=0, column=1, sticky="ns")
        self.rowconfigure(0, weight=1)
        self.columnconfigure(0, weight=1)
        self.tree.tag_configure("section", font=FONT_CAPTION,
                                foreground=theme.palette.text_muted)
        self.tree.tag_configure("current", font=FONT_STRONG)
        self.tree.tag_configure("action", foreground=theme.palette.accent)
        self.tree.tag_configure("hint", foreground=theme.palette.text_muted)
        self.tree.tag_configure("drop-target", background=theme.palette.selection)
        self._drop_row: str | None = None
        self._scopes: dict[str, Scope] = {}
        self._rows: dict[str, tuple[str, int, str, str]] = {}   # what each row shows now
        self._children: dict[str, list[str]] = {}
        self._sections: tuple[str, ...] = ()
        self._counts: tuple[str, str] = ("", "")
        self._suppress = False
        self._pending_select: str | None = None
        self.collections: dict[str, dict[str, Any]] = {}
        self.folders: dict[str, dict[str, Any]] = {}       # `folder.list` items by id
        self.include_subfolders = True      # a folder's count: its whole subtree's
        self.labels = LabelFitter(self.tree, theme, lambda: [
            *(row[3] for row in self._rows.values()), *self._counts])
        self.current: Scope = ALL
        self.tree.bind("<<TreeviewSelect>>", self._on_select)
        self.tree.bind("<ButtonPress-3>", self._on_right_click)
        theme.on_change(self._recolour)
        self.set_sections(("library",))

    def _recolour(self) -> None:
        self.tree.tag_configure("section", foreground=self.theme.palette.text_muted)
        self.tree.tag_configure("action", foreground=self.theme.palette.accent)
        self.tree.tag_configure("hint", foreground=self.theme.palette.text_muted)
        self.tree.tag_configure("drop-target", background=self.theme.palette.selection)

    def show_drop_target(self, iid: str | None) -> None:
        """Highlight the row dragged assets would drop on (None: no row)."""
        for row in (self._drop_row, iid):
            if row is None or not self.tree.exists(row):
                continue
            tags = [t for t in self.tree.item(row, "tags") if t != "drop-target"]
            if row == iid:
                tags.append("drop-target")
            self.tree.item(row, tags=tags)
        self._drop_row = iid

    @property
    def drop_target(self) -> str | None:
        return self._drop_row

    # structure ---------------------------------------------------------------------------
    def set_sections(self, sections: Iterable[str]) -> None:
        """Show these sections (in the fixed order), e.g. only those whose commands exist."""
        wanted = tuple(s for s in SECTIONS if s in set(sections))
        if wanted == self._sections:
            return
        self._sections = wanted
        for section in SECTIONS:
            iid = f"section:{section}"
            if section in wanted and not self.tree.exists(iid):
                index = wanted.index(section)
                self.tree.insert("", index, iid=iid, text=_(SECTION_TITLES[section]), open=True,
                                 tags=("section",))
            elif section not in wanted and self.tree.exists(iid):
                self.tree.delete(iid)
        if "library" in wanted:
            self._sync("section:library", [
                (ALL, None), (UNFILED, None), (UNTAGGED, None), (TRASH, None)])
            self._select(self.current.iid if self.tree.exists(self.current.iid) else "all")

    def scope(self, iid: str) -> Scope | None:
        return self._scopes.get(iid)

    # data --------------------------------------------------------------------------------
    def show_counts(self, all_assets: int, trashed: int) -> None:
        counts = (_count(all_assets), _count(trashed))
        if self.tree.exists("all") and counts != self._counts:
            self._counts = counts
            self.tree.set("all", "count", counts[0])
            self.tree.set("trash", "count", counts[1])
            self.labels.refit_soon()

    def show_folders(self, folders: list[dict[str, Any]]) -> None:
        """`folders`: `folder.list` items (the whole tree, any order)."""
        self.folders = {folder["id"]: folder for folder in folders}
        if "folders" not in self._sections:
            return
        count_key = "totalCount" if self.include_subfolders else "assetCount"
        children: dict[str | None, list[dict[str, Any]]] = {}
        for folder in folders:
            children.setdefault(folder.get("parentId"), []).append(folder)
        for siblings in children.values():
            siblings.sort(key=lambda f: str(f["name"]).casefold())

        def rows(parent: str | None) -> list[tuple[Scope, tuple[Any, list[Any]]]]:
            result: list[tuple[Scope, tuple[Any, list[Any]]]] = []
            for folder in children.get(parent, []):
                scope = Scope(f"folder:{folder['id']}", folder["name"],
                              {"folderId": folder["id"]}, "folder", folder["id"])
                count = folder.get(count_key, folder.get("assetCount"))
                result.append((scope, (count, rows(folder["id"]))))
            return result

        self._sync_tree("section:folders", rows(None))
        if self.actions_enabled.get("new-folder"):
            self._action_row("section:folders", "new-folder", _("New folder…"))
        self._select_pending()

    def set_include_subfolders(self, include: bool) -> None:
        """Folders count their subfolders' assets too, or only their own."""
        if include != self.include_subfolders:
            self.include_subfolders = include
            self.show_folders(list(self.folders.values()))

    def show_tags(self, tags: list[dict[str, Any]]) -> None:
        if "tags" not in self._sections:
            return
        rows = [(Scope(f"tag:{t['name']}", t["name"], {"tags": [t["name"]]}, "tag", t["name"]),
                 t.get("count")) for t in sorted(tags, key=lambda t: t["name"].casefold())]
        self._sync("section:tags", rows)
        if not rows and not self.tree.exists("hint:tags"):       # not an empty heading
            self.tree.insert("section:tags", "end", iid="hint:tags", tags=("hint",),
                             text=self.labels.text("hint:tags", _("No tags yet"),
                                                   "section:tags"))
        self._select_pending()

    def show_collections(self, collections: list[dict[str, Any]]) -> None:
        """`collections`: `collection.list` items (kept in `.collections` by id)."""
        self.collections = {c["id"]: c for c in collections}
        for section, smart in (("collections", False), ("smart", True)):
            if section not in self._sections:
                continue
            rows = [(Scope(f"collection:{c['id']}", c["name"], {"collectionId": c["id"]},
                           "smart" if smart else "collection", c["id"]), c.get("assetCount"))
                    for c in sorted(collections, key=lambda c: c.get("position", 0))
                    if bool(c.get("smart")) == smart]
            self._sync(f"section:{section}", rows)
            if section == "collections" and self.actions_enabled.get("new-collection"):
                self._action_row("section:collections", "new-collection",
                                 _("New collection…"))
            if section == "smart" and self.actions_enabled.get("new-smart"):
                self._action_row("section:smart", "new-smart", _("New smart collection…"))
        self._select_pending()
        self.on_collections_shown()

    def select_when_shown(self, iid: str) -> None:
        """Choose `iid` now, or as soon as it appears (a collection just created)."""
        self._pending_select = iid
        self._select_pending()

    def _select_pending(self) -> None:
        if self._pending_select and self.tree.exists(self._pending_select):
            iid, self._pending_select = self._pending_select, None
            self._select(iid)

    # internals ---------------------------------------------------------------------------
    def _sync(self, parent: str, rows: list[tuple[Scope, Any]]) -> None:
        self._sync_tree(parent, [(scope, (count, None)) for scope, count in rows])

    def _sync_tree(self, parent: str, rows: list[tuple[Scope, Any]]) -> None:
        """Make `parent`'s children exactly `rows`, keeping open/closed state."""
        if not self.tree.exists(parent):
            return
        wanted = [scope.iid for scope, _kids in rows]
        if self._children.get(parent) != wanted:
            for iid in self.tree.get_children(parent):
                if iid not in wanted and not iid.startswith("action:"):
                    self._forget(iid)
                    self.tree.delete(iid)
        for position, (scope, (count, kids)) in enumerate(rows):
            self._scopes[scope.iid] = scope
            row = (parent, position, scope.name, _count(count))
            if self._rows.get(scope.iid) != row:      # unchanged rows cost no Tk call
                if self.tree.exists(scope.iid):
                    if self.tree.parent(scope.iid) != parent or \
                            self.tree.index(scope.iid) != position:
                        self.tree.move(scope.iid, parent, position)
                    self.tree.item(scope.iid, values=(row[3],), text=self.labels.text(
                        scope.iid, scope.name, parent))
                else:
                    self.tree.insert(parent, position, iid=scope.iid, values=(row[3],),
                                     text=self.labels.text(scope.iid, scope.name, parent))
                self._rows[scope.iid] = row
                self.labels.refit_soon()          # the widest count may have changed
            if kids is not None:
                self._sync_tree(scope.iid, kids)
        self._children[parent] = wanted
        if self.current.iid in self._scopes and not self.tree.exists(self.current.iid):
            self._select("all")

    def _forget(self, iid: str) -> None:
        for child in self.tree.get_children(iid):
            self._forget(child)
        self._scopes.pop(iid, None)
        self._rows.pop(iid, None)
        self.labels.forget(iid)
        self._children.pop(iid, None)

    def _select(self, iid: str) -> None:
        self._suppress = True
        try:
            self.tree.selection_set(iid)
            self.tree.see(iid)
        finally:
            self.after_idle(self._unsuppress)
        scope = self._scopes.get(iid)
        if scope is not None and scope != self.current:
            self.current = scope
            self.on_scope(scope)

    def _unsuppress(self) -> None:
        self._suppress = False

    def show_outside(self, scope: Scope) -> None:
        """The grid shows a view that is no row here (the images similar to one): no row is
        chosen, so a click on any row, the one chosen before too, goes there."""
        self._suppress = True
        try:
            self.tree.selection_remove(*self.tree.selection())
        finally:
            self.after_idle(self._unsuppress)
        self.current = scope

    def select(self, iid: str) -> None:
        """Choose `iid` as if clicked (tests, "Show in folder", after a delete)."""
        if self.tree.exists(iid):
            self._select(iid)

    def _on_select(self, _event: object) -> None:
        if self._suppress:
            return
        selected = self.tree.selection()
        if not selected:
            return
        iid = selected[0]
        scope = self._scopes.get(iid)
        if scope is None:          # a heading or an action row: keep the previous choice
            if self.tree.exists(self.current.iid):
                self._select(self.current.iid)
            if iid.startswith("action:"):
                self.on_action(iid.removeprefix("action:"))
            return
        if scope != self.current:
            self.current = scope
            self.on_scope(scope)

    def _on_right_click(self, event: Any) -> None:
        iid = self.tree.identify_row(event.y)
        if iid and not iid.startswith("action:"):
            self.on_context_menu(iid, self._scopes.get(iid), event.x_root, event.y_root)

    def _action_row(self, parent: str, action: str, label: str) -> None:
        """A last row that does something when chosen ("New folder…")."""
        iid = f"action:{action}"
        if not self.tree.exists(parent):
            return
        if self.tree.exists(iid):
            self.tree.move(iid, parent, "end")
        else:
            self.tree.insert(parent, "end", iid=iid, tags=("action",),
                             text=self.labels.text(iid, label, parent))

    def scope_at(self, x_root: int, y_root: int) -> Scope | None:
        """The sidebar entry under a screen point (for dropping assets onto it)."""
        x = x_root - self.tree.winfo_rootx()
        y = y_root - self.tree.winfo_rooty()
        if not (0 <= x < self.tree.winfo_width() and 0 <= y < self.tree.winfo_height()):
            return None
        return self._scopes.get(self.tree.identify_row(y))
