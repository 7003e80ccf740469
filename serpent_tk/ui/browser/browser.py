"""The browser: what the grid shows (scope, search, sort), what the inspector shows, and
keeping both current when the library changes — whoever changed it.

Tk thread only. Gateway events arrive through the UiBus. Changes are coalesced: a burst of
events (eight agents writing at once) costs one refresh of the visible page, the sidebar
and the inspector per `REFRESH_MS`, so the window stays responsive and is never more than a
fraction of a second behind.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from serpent_tk.ui.browser.asset_pages import AssetPages
from serpent_tk.ui.browser.color_filter import DEFAULT_SHARE, DEFAULT_TOLERANCE
from serpent_tk.ui.browser.grid import VirtualGrid
from serpent_tk.ui.browser.similar import similar_scope
from serpent_tk.ui.browser.thumbnails import Thumbnails, problem_words
from serpent_tk.ui.inspector.inspector import Inspector
from serpent_tk.ui.language import humanize
from serpent_tk.ui.language.translate import _
from serpent_tk.ui.shell.commands import Commands, Reply
from serpent_tk.ui.sidebar.sidebar import ALL, Scope, Sidebar
from serpent_tk.ui.sidebar.sidebar_data import SidebarData, parts_touched

log = logging.getLogger(__name__)

REFRESH_MS = 150            # gather change events this long before refreshing
# Change kinds that touch nothing the grid, the sidebar or the inspector shows: analysis
# writes its results (and its task's progress) every 64 assets or 3 s while it runs.
UNSEEN_KINDS = frozenset({"analysis", "task"})


class Browser:
    def __init__(self, commands: Commands, pages: AssetPages, thumbnails: Thumbnails,
                 grid: VirtualGrid, sidebar: Sidebar, inspector: Inspector) -> None:
        self.commands = commands
        self.pages = pages
        self.thumbnails = thumbnails
        self.grid = grid
        self.sidebar = sidebar
        self.inspector = inspector
        self.library_id: str | None = None
        self.scope: Scope = ALL
        self.text = ""
        self.sort = "added-desc"
        self.color: str | None = None            # the search bar's colour filter (#rrggbb)
        self.color_tolerance = DEFAULT_TOLERANCE   # the library's colour distance
        self.color_share = DEFAULT_SHARE           # of the picture the colour covers
        self.include_subfolders = True           # a folder shows its subfolders' assets
        self._sort_before_color = self.sort
        self._before_similar: Scope = ALL        # where "Back" goes from "Similar to …"
        self.on_counts: Callable[[int, int], None] = lambda total, selected: None
        self.on_state: Callable[[], None] = lambda: None   # empty/filled/loading changed
        self.on_pages: Callable[[], None] = lambda: None   # pages arrived (the viewer steps)
        self.on_query: Callable[[], None] = lambda: None   # another scope, search or sort
        # the sort in use, whether "collection order" makes sense (a hand-picked one) and
        # whether "closest colour" does (a colour filter is set)
        self.on_sort_shown: Callable[[str, bool, bool, bool], None] = \
            lambda sort, in_collection, with_color, fixed: None
        self._sort_elsewhere = self.sort
        self.known_tags: list[str] = []
        self._pending_kinds: set[str] = set()
        self._pending_ids: set[str] = set()
        self._refresh_timer: str | None = None
        self._pending_commands: set[str] = set()
        self._pending_background: set[str] = set()  # task kinds of changes no command made
        self.sidebar_data = SidebarData(commands, sidebar, self._tags)
        self._inspected_version: dict[str, int] = {}
        self._asset_request = 0

        pages.on_changed = self._pages_changed
        thumbnails.on_ready = grid.thumbnail_ready
        thumbnails.on_retry_due = grid.refresh
        grid.on_selection_changed = self._selection_changed
        sidebar.on_scope = self.set_scope

    # what is shown -----------------------------------------------------------------------
    def show_library(self, library_id: str | None) -> None:
        self.library_id = library_id
        self.grid.reset()                       # no cell shows an old picture any more
        self.inspector.show_nothing()
        self.thumbnails.set_library(library_id)
        if self.sort == "collection-order":
            self.sort = self._sort_elsewhere
        if self.color is not None:
            self.color = None
            if self.sort == "color-similarity":
                self.sort = self._sort_before_color
        self.scope = ALL
        self._show_sort()
        self.sidebar.current = ALL
        self._sections()
        self.sidebar.select("all")
        self._query()
        self.sidebar_data.show_library(library_id)

    def set_scope(self, scope: Scope) -> None:
        in_collection = scope.kind == "collection"         # hand-picked: it has an order
        if in_collection and self.scope.kind != "collection":
            self._sort_elsewhere, self.sort = self.sort, "collection-order"
        elif not in_collection and self.sort == "collection-order":
            self.sort = self._sort_elsewhere
        self.scope = scope
        self._show_sort()
        self._query()

    def _show_sort(self) -> None:
        self.on_sort_shown(self.sort, self.scope.kind == "collection", self.color is not None,
                           self.scope.kind == "similar")

    def set_text(self, text: str) -> None:
        text = text.strip()
        if text != self.text:
            self.text = text
            if self.scope.kind == "similar":      # words search the library again
                self.leave_similar()
            self._query()

    # the similar view --------------------------------------------------------------------
    def show_similar(self, asset_id: str, name: str) -> None:
        """Show `asset_id` and the images that look like it (until another view is chosen,
        or "Back")."""
        if self.scope.kind != "similar":
            self._before_similar = self.scope
        scope = similar_scope(asset_id, name)
        self.sidebar.show_outside(scope)
        self.set_scope(scope)

    def leave_similar(self) -> None:
        """Back to the view shown before "Similar to …"."""
        if self.scope.kind != "similar":
            return
        back = self._before_similar
        if self.sidebar.scope(back.iid) is None:
            back = ALL
        self.sidebar.select(back.iid)
        if self.scope.kind == "similar":           # the row is gone: the whole library
            self.set_scope(ALL)

    def set_color(self, color: str | None, tolerance: float | None = None,
                  share: float | None = None) -> None:
        """The colour filter (None: off), how close and how much of the picture. Choosing a
        colour sorts closest first; clearing it goes back to the sort used before."""
        if tolerance is not None:
            self.color_tolerance = tolerance
        if share is not None:
            self.color_share = share
        if color == self.color and tolerance is None and share is None:
            return
        if self.scope.kind == "similar":
            self.leave_similar()
        if color is not None and self.color is None:
            if self.sort != "color-similarity":
                self._sort_before_color = self.sort
            if self.sort != "collection-order":
                self.sort = "color-similarity"
        elif color is None and self.sort == "color-similarity":
            self.sort = self._sort_before_color
        self.color = color
        self._show_sort()
        self._query()

    def set_include_subfolders(self, include: bool) -> None:
        """A folder shows (and counts) its subfolders' assets too, or only its own."""
        if include != self.include_subfolders:
            self.include_subfolders = include
            self.sidebar.set_include_subfolders(include)
            if self.scope.kind == "folder":
                self._query()

    def set_sort(self, sort: str) -> None:
        if sort != self.sort:
            self.sort = sort
            self._query()

    def query(self) -> dict[str, Any]:
        if self.scope.kind == "similar":          # closest first; the search bar waits
            return dict(self.scope.query)
        query: dict[str, Any] = {**self.scope.query, "sort": self.sort}
        if self.scope.kind == "folder" and self.include_subfolders:
            query["includeSubfolders"] = True
        if self.text:
            query["text"] = self.text
        if self.color:
            query["color"] = self.color
            query["colorTolerance"] = self.color_tolerance
            query["colorMinRatio"] = self.color_share
        return query

    @property
    def filtered(self) -> bool:
        return bool(self.text) or self.color is not None or self.scope.kind != "all"

    def _query(self) -> None:
        self.on_query()
        self.pages.set_query(self.library_id, self.query())
        self.grid.reset()
        self.on_state()

    def _pages_changed(self) -> None:
        self.grid.refresh()
        self.on_pages()
        self.on_counts(self.pages.count(), len(self.grid.selection))
        self.on_state()
        if self.inspector.many:       # fresh summaries: the shared/partial tags, the rating
            keys = self.grid.selected_keys()
            items = self.pages.items_for(keys)
            if len(keys) > 1 and len(items) > 1:
                self.inspector.show_many(items, self.scope.is_trash)

    # sidebar -----------------------------------------------------------------------------
    def _sections(self) -> None:
        sections = ["library"]
        if self.commands.available("folder.list"):
            sections.append("folders")
        if self.commands.available("tag.list"):
            sections.append("tags")
        if self.commands.available("collection.list"):
            sections += ["collections", "smart"]
        self.sidebar.set_sections(sections)

    def refresh_sidebar(self) -> None:
        self.sidebar_data.reload()

    def _tags(self, tags: list[dict[str, Any]]) -> None:
        self.known_tags = [t["name"] for t in tags]
        self.inspector.tags.known_tags = self.known_tags
        self.sidebar.show_tags(tags)

    # inspector ---------------------------------------------------------------------------
    def _selection_changed(self, keys: list[str]) -> None:
        self.on_counts(self.pages.count(), len(keys))
        self.inspect(keys)

    def inspect(self, keys: list[str] | None = None) -> None:
        keys = self.grid.selected_keys() if keys is None else keys
        trashed = self.scope.is_trash
        self._asset_request += 1         # an answer still on its way for another asset: late
        if not keys:
            self.inspector.show_nothing()
            return
        if len(keys) > 1:
            items = self.pages.items_for(keys)
            self.inspector.show_many(items or [{"id": k} for k in keys], trashed)
            # the preview shows the first picture among them (a PDF has none to show)
            first = next((i["id"] for i in items if i.get("kind") == "image"), keys[0])
            self.thumbnails.preview(first, self.inspector.preview_pixels(), lambda photo: (
                self.inspector.show_preview(photo, humanize.assets(len(keys)))
                if self.inspector.many and first in {i["id"] for i in self.inspector.many}
                else None))
            return
        asset_id = keys[0]
        request = self._asset_request
        library_id = self.library_id
        if library_id is None:
            return

        def got(reply: Reply) -> None:
            if request != self._asset_request or library_id != self.library_id:
                return
            items = reply.result.get("items", []) if reply.ok else []
            if not items:
                if reply.ok:      # deleted meanwhile
                    self.grid.selection.discard([asset_id])
                    self.inspector.show_nothing()
                return
            asset = items[0]
            if bool(asset.get("trashed")) != self.scope.is_trash:
                # trashed, or restored from the Trash (by anyone): not this view's any more
                self._left_view([asset_id])
                return
            changed = self._inspected_version.get(asset_id) != asset.get("version")
            self._inspected_version = {asset_id: asset.get("version", 0)}
            self.inspector.show_asset(asset, trashed)
            if changed or not self.inspector.has_preview:
                self.thumbnails.preview(asset_id, self.inspector.preview_pixels(),
                                        lambda photo: self._preview(asset_id, photo))

        self.commands.call("asset.get", {"libraryId": library_id, "assetIds": [asset_id]}, got)

    def _left_view(self, asset_ids: list[str]) -> None:
        """Selected assets left the view (trashed, say): they are not shown any more."""
        self.grid.selection.discard(asset_ids)
        self.grid.refresh()
        remaining = self.grid.selected_keys()
        if remaining:
            self.inspect(remaining)
        else:
            self.inspector.show_nothing()
        self.on_counts(self.pages.count(), len(remaining))

    def _preview(self, asset_id: str, photo: Any) -> None:
        asset = self.inspector.asset
        if asset is not None and asset["id"] == asset_id:
            reason = problem_words(self.thumbnails.problem(asset_id),
                                   asset.get("kind", "image") == "image")
            self.inspector.show_preview(photo, "" if photo else (reason or _("No preview")))

    # live updates ------------------------------------------------------------------------
    def library_changed(self, event: Any) -> None:
        """A gateway `LibraryChanged` (any source)."""
        if event.library_id != self.library_id:
            return
        self._pending_kinds.update(event.kinds)
        self._pending_ids.update(event.entity_ids)
        self._pending_commands.add(event.command)
        self._pending_background.add(event.task_kind)
        if self._refresh_timer is None:
            self._refresh_timer = self.grid.after(REFRESH_MS, self._apply_changes)

    def _apply_changes(self) -> None:
        self._refresh_timer = None
        kinds, ids, commands = self._pending_kinds, self._pending_ids, self._pending_commands
        background = self._pending_background
        self._pending_kinds, self._pending_ids, self._pending_commands = set(), set(), set()
        self._pending_background = set()
        if kinds and kinds <= UNSEEN_KINDS:
            # analysis results, task bookkeeping: only the inspected asset's facts changed
            selected = self.grid.selected_keys()
            if len(selected) == 1 and selected[0] in ids:
                self.inspect(selected)
            return
        self.thumbnails.forget_failures()
        self.pages.invalidate()
        selected = self.grid.selected_keys()
        if selected and (not ids or ids & set(selected)):
            self.inspect(selected)
        self.sidebar_data.reload(parts_touched(kinds, commands, self.commands.spec,
                                               background))

    def reload_asset(self, asset_id: str) -> None:
        """After a version conflict: show the newest version."""
        if asset_id in self.grid.selected_keys():
            self._inspected_version.pop(asset_id, None)
            self.inspect()

    def select(self, asset_ids: list[str]) -> None:
        """Select these assets (e.g. an agent asked to show them) once they are loaded."""
        self.grid.select_keys(asset_ids, focus=asset_ids[0] if asset_ids else None)
        index = self.pages.index_of(asset_ids[0]) if asset_ids else None
        if index is not None:
            self.grid.ensure_visible(index)

    def summary(self) -> str:
        total = self.pages.count()
        text = humanize.assets(total)
        selected = len(self.grid.selection)
        if selected:
            text = _("{assets} · {n} selected").format(assets=text,
                                                        n=humanize.number(selected))
        return text
