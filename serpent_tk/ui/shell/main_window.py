"""The main window: builds the views and connects them. Wiring only. Tk thread only.

Menu bar · toolbar · sidebar | grid or viewer | inspector · status bar, plus toasts, the
banners, the empty-state panel and drag and drop. Every action (menus, keys, right-click
menus) comes from one table (`ui/menus/window_actions`); gateway events come by the UiBus.
"""

from __future__ import annotations

import logging
import tkinter as tk
from collections.abc import Callable
from dataclasses import dataclass, field
from tkinter import ttk
from typing import TYPE_CHECKING, Any

from library.events import DatabaseStatus
from serpent_tk import APP_NAME
from serpent_tk.automation.events import (
    ChangeMade,
    LibraryChanged,
    LibraryLifecycle,
    PluginsChanged,
    ShowInDesktop,
    TaskProgress,
    Toast,
    ToolsChanged,
)
from serpent_tk.credentials import CredentialStore
from serpent_tk.settings import Settings, SettingsStore
from serpent_tk.ui.actions.asset_actions import AssetActions
from serpent_tk.ui.actions.asset_menu import AssetMenu
from serpent_tk.ui.actions.drag_out import DragOut
from serpent_tk.ui.actions.finding import Finding
from serpent_tk.ui.actions.importing import DropZone, Importer
from serpent_tk.ui.actions.plugin_commands import PluginCommands
from serpent_tk.ui.activity.agent_activity import AgentActivity
from serpent_tk.ui.activity.database_banner import DatabaseBanner
from serpent_tk.ui.activity.status_bar import StatusBar
from serpent_tk.ui.activity.task_status import TaskStatus
from serpent_tk.ui.activity.toasts import ToastStack
from serpent_tk.ui.browser import zoom_steps
from serpent_tk.ui.browser.asset_pages import AssetPages
from serpent_tk.ui.browser.browser import Browser
from serpent_tk.ui.browser.empty_state import EmptyState
from serpent_tk.ui.browser.grid import VirtualGrid
from serpent_tk.ui.browser.layouts import choice as layout_choice
from serpent_tk.ui.browser.scope_banner import ScopeBanner
from serpent_tk.ui.browser.thumbnails import Thumbnails
from serpent_tk.ui.browser.view_state import ViewActions, ViewState
from serpent_tk.ui.inspector.inspector import Inspector
from serpent_tk.ui.language import gateway_words, translate
from serpent_tk.ui.language.gateway_words import actor_name, library_name
from serpent_tk.ui.language.translate import _
from serpent_tk.ui.menus import menu_style, text_keys
from serpent_tk.ui.menus.action_table import Target, bind_keys
from serpent_tk.ui.menus.menubar import ContextMenu, MenuBar
from serpent_tk.ui.menus.window_actions import ASSET_MENU, window_actions
from serpent_tk.ui.settings.mcp_controls import McpControls
from serpent_tk.ui.shell import window_state
from serpent_tk.ui.shell.bus import UiBus
from serpent_tk.ui.shell.commands import Commands, GatewayPort
from serpent_tk.ui.shell.events import CloseRequested, Notice, ShowToast
from serpent_tk.ui.shell.library_session import LibrarySession, RepairOffer
from serpent_tk.ui.shell.panes import Panes
from serpent_tk.ui.shell.scrolling import ScrollableFrame
from serpent_tk.ui.shell.theme import Theme
from serpent_tk.ui.shell.toolbar import Toolbar, ToolbarActions
from serpent_tk.ui.sidebar.sidebar import Sidebar
from serpent_tk.ui.sidebar.sidebar_menu import SidebarMenu
from serpent_tk.ui.viewer.full_screen import FullScreen
from serpent_tk.ui.viewer.order import ViewOrder
from serpent_tk.ui.viewer.placement import ViewerPlacement
from serpent_tk.ui.viewer.viewer_pane import ViewerPane

if TYPE_CHECKING:
    from serpent_tk.ui.settings.settings_plugins import PluginControls
    from serpent_tk.ui.settings.settings_window import SettingsWindow

log = logging.getLogger(__name__)



@dataclass
class WindowServices:
    """What the composition root hands the window."""

    bus: UiBus
    gateway: GatewayPort              # serpent_tk.automation.gateway.Gateway
    settings_store: SettingsStore
    settings: Settings
    mcp: McpControls | None = None
    credentials: CredentialStore | None = None
    notices: list[str] = field(default_factory=list)
    drops: bool = False               # tkdnd loaded: accept files from the file manager
    # called once (any thread may be told) when the first library is open or could not be:
    # the app starts accepting MCP only then, so agents never see a half-started window
    first_library_settled: Callable[[], None] | None = None
    # called once (Tk thread) when the grid first shows a library's page: the app imports and
    # starts the MCP stack and plugins only then, so they never compete with the first page
    first_page_shown: Callable[[], None] | None = None
    plugins: PluginControls | None = None  # Settings → Plugins (the plugin manager)
    window: MainWindow | None = None  # the window on show (a language change makes another)


class MainWindow:
    def __init__(self, root: tk.Tk, services: WindowServices,
                 theme: Theme | None = None) -> None:
        """`theme`: the one a window built before on this root had (a language change)."""
        self.root = root
        self.services = services
        settings = services.settings
        translate.use(settings.ui.language)
        if theme is None:
            theme = Theme(root, settings.ui.theme)
        else:
            theme.forget_listeners()
            theme.apply(theme.requested)        # the fonts of the language now spoken
        self.theme = theme
        # a language change builds the window again (`desktop.attach` sets it)
        self.rebuild: Callable[[], MainWindow] | None = None
        self._bus_off: list[Callable[[], None]] = []
        menu_style.install(root, theme)
        text_keys.install(root)
        # Setting the theme queues a <<ThemeChanged>> for every widget, and sv-ttk answers it by
        # recolouring every widget there is (tk_setPalette). Delivered now, while the window
        # has no widgets yet, it costs ~1 ms instead of ~40 ms of the first layout.
        root.update_idletasks()
        self.commands = commands = Commands(services.gateway, services.bus)
        self.toasts = ToastStack(root, theme, bottom=lambda: self.status.winfo_height(),
                                 right=self._right_of_grid)
        self.session = LibrarySession(commands, settings)
        if services.first_library_settled is not None:
            self.session.on_first_settled = services.first_library_settled
        self.settings_window: SettingsWindow | None = None
        self.dialog: Any = None
        self._logged_library: str | None = None

        self.toolbar = Toolbar(root, theme, self.session, ToolbarActions(
            toggle_sidebar=lambda: self.panes.toggle("sidebar"),
            toggle_inspector=lambda: self.panes.toggle("inspector"),
            search=lambda text: self.browser.set_text(text),
            color=lambda color, tolerance, share: self.browser.set_color(color, tolerance,
                                                                         share),
            sort=lambda sort: window_state.choose_sort(self, sort),
            import_files=self.ask_import, import_folder=self.ask_import_folder,
            import_flattened=lambda: self.ask_import_folder(flatten=True),
            undo=lambda: self.actions.undo(), redo=lambda: self.actions.redo(),
            zoom_to=lambda index: zoom_steps.zoom_to(self, index),
            layout=lambda mode: layout_choice.set_layout(self, mode),
            settings=lambda: self.open_settings("general")),
            len(zoom_steps.ZOOM_STEPS), zoom_steps.zoom_index(settings.ui.thumbnail_size))
        self.toolbar.pack(side="top", fill="x")
        self.switcher, self.search, self.sort = (self.toolbar.switcher, self.toolbar.search,
                                                 self.toolbar.sort)
        self.zoom = self.toolbar.zoom
        self.undo_button, self.redo_button = self.toolbar.undo_button, self.toolbar.redo_button
        self.settings_button = self.toolbar.settings_button
        self.import_button = self.toolbar.import_button
        ttk.Separator(root).pack(side="top", fill="x")
        self.status = StatusBar(root, theme, services.mcp, lambda: self.open_settings("mcp"))
        self.status.pack(side="bottom", fill="x")
        ttk.Separator(root).pack(side="bottom", fill="x")

        self.paned = ttk.PanedWindow(root, orient="horizontal")
        self.paned.pack(side="top", fill="both", expand=True)
        self.sidebar = Sidebar(self.paned, theme)
        self.pages = AssetPages(commands)
        self.thumbnails = Thumbnails(root, commands, services.bus)
        self.middle = ttk.Frame(self.paned)
        self.grid = VirtualGrid(self.middle, theme, self.pages, self.thumbnails,
                                cell_points=settings.ui.thumbnail_size * 0.75,
                                mode=settings.ui.layout)
        self.grid.pack(side="top", fill="both", expand=True)
        self.banner = ScopeBanner(self.middle, theme)
        self.banner.place_above(self.grid)
        self.database_banner = DatabaseBanner(self.middle, theme, self.grid, self)
        self.actions = AssetActions(commands, theme, root, lambda: self.session.current,
                                    self.toast)
        self.inspector_holder = ScrollableFrame(self.paned, theme)
        self.inspector = Inspector(self.inspector_holder.inner, theme, self.actions)
        self.inspector.pack(fill="both", expand=True)
        self.inspector.on_reset = self.inspector_holder.scroll_to_top
        self.panes = Panes(self.paned, theme, self.sidebar, self.middle,
                           self.inspector_holder)
        self.browser = Browser(commands, self.pages, self.thumbnails, self.grid, self.sidebar,
                               self.inspector)
        window_state.first_sort(self)
        self.viewer = ViewerPane(self.middle, theme, commands, services.bus,
                                 ViewOrder(self.pages, self.grid),
                                 lambda: self.session.library_id)
        self.activity = AgentActivity(self.toast, self.actions.undo_change, root.after,
                                      spec=commands.spec)
        self.importer = Importer(root, theme, commands, self.status.progress_area, self.toast)
        self.tasks = TaskStatus(self.status.progress_area, theme, commands, self.toast,
                                shown_elsewhere=self.importer.owns)
        self.empty = EmptyState(self.grid.canvas, theme, on_import=self.ask_import,
                                on_connect=lambda: self.open_settings("mcp"),
                                on_clear_search=lambda: self.search.clear_all(),
                                on_reopen=self.session.reopen,
                                on_import_folder=lambda flat: self.ask_import_folder(flat))
        self.view = ViewState(self.session, self.browser, self.pages, self.empty, self.banner,
                              lambda: self.sidebar.collections, ViewActions(
                                  import_here=self.ask_import,
                                  edit_rules=self._edit_rules if commands.available(
                                      "collection.update") else None,
                                  empty_trash=self.actions.empty_trash if commands.available(
                                      "trash.empty") else None,
                                  show_subfolders=lambda: self.set_include_subfolders(True)),
                              folders=lambda: self.sidebar.folders)
        self.browser.include_subfolders = settings.ui.include_subfolders
        self.sidebar.include_subfolders = settings.ui.include_subfolders
        self.drop_zone: DropZone | None = None
        if services.drops:
            self.drop_zone = DropZone(self.grid.canvas, theme, self.import_paths,
                                      lambda: _("Drop to add to {library}").format(
                                          library=self._library_name()))
            for widget in self.empty.widgets():
                self.drop_zone.accept(widget)
        self._connect()
        window_state.restore_geometry(self)
        self.show_state()

    # construction ------------------------------------------------------------------------
    def _connect(self) -> None:
        bus, root, commands = self.services.bus, self.root, self.commands
        self.switcher.on_error = lambda text: self.toast(text, "warning")
        self.browser.on_sort_shown = self.sort.show
        layout_choice.connect(self)
        self.session.on_opened = self._library_opened
        self.session.on_closed = self._library_closed
        self.session.on_problem = lambda text: self.toast(text, "error")
        self.repair_offer = RepairOffer(root, self.theme, commands, self.session.show,
                                        lambda text, level: self.toast(text, level))
        self.session.on_damaged = self.repair_offer.offer
        self.browser.on_counts = lambda total, selected: self.status.show_counts(
            self.browser.summary())
        self.browser.on_state = self.show_state
        self.browser.on_pages = self.viewer.pages_changed
        self.browser.on_query = self.close_viewer     # another view: back to its grid
        self.sidebar.on_collections_shown = self.show_state
        self.asset_menu = AssetMenu(commands, self.actions, self.sidebar,
                                    lambda: self.browser.scope, self.toast)
        self.drag_out = DragOut(root, self.grid, self.theme, self.sidebar, self.asset_menu,
                                commands, lambda: self.session.library_id,
                                self.grid.picture_of,
                                system=self.services.drops)
        self.grid.on_open = self.open_viewer
        self.grid.on_drag = self.drag_out.drag
        self.inspector.on_view = self.open_viewer
        self.finding = Finding(self)
        self.inspector.on_color = self.finding.color
        self.actions.on_conflict = self.browser.reload_asset
        self.placement = ViewerPlacement(self.viewer, self.grid, self.banner, self.browser,
                                         self.pages, lambda: self.view.show())
        self.full_screen = FullScreen(self)
        self.viewer.open_outside = self.actions.open_assets
        self.viewer.show_in_folder = self.actions.show_in_folder
        self.viewer.cached_preview = self.thumbnails.largest
        self.sidebar_menu = SidebarMenu(commands, self.theme, root,
                                        lambda: self.session.library_id, self.toast,
                                        self.actions.empty_trash, self.sidebar,
                                        lambda: list(self.browser.known_tags))
        can_create = commands.available("collection.create")
        self.sidebar.actions_enabled = {
            "new-folder": commands.available("folder.create"),
            "new-collection": can_create, "new-smart": can_create}
        sidebar_actions: dict[str, Callable[[], object]] = {
            "new-folder": lambda: self.sidebar_menu.new_folder(None),
            "new-collection": self.sidebar_menu.new_collection,
            "new-smart": lambda: self.sidebar_menu.smart_collection(None)}
        self.sidebar.on_action = lambda action: sidebar_actions[action]()
        self.importer.on_finished = lambda run: None
        self.plugin_commands = PluginCommands(commands, self.theme, root,
                                              lambda: self.session.current, self.toast,
                                              self.actions.undo_change)

        self.action_table = window_actions(self)
        self.menubar = MenuBar(root, self.theme, self.action_table, self.current_target)
        self.keys = bind_keys(root, self.action_table, self.current_target)
        self.asset_context = ContextMenu(root, self.theme, self.action_table, "asset",
                                         ASSET_MENU)
        self.sidebar_context = ContextMenu(root, self.theme, self.action_table, "sidebar")
        self.grid.on_context_menu = lambda keys, x, y: self.asset_context.popup(
            self.current_target(tuple(keys)), x, y)
        self.sidebar.on_context_menu = lambda iid, scope, x, y: self.sidebar_context.popup(
            Target((), scope, iid, "sidebar"), x, y)

        self.actions.on_history = lambda reply: self.toasts.dismiss_undoable()
        for event, handler in (
                (ShowToast, lambda e: self.toasts.show(e.text, e.level, title=e.title)),
                (Notice, lambda e: self.toasts.show(e.text, "warning")),
                (Toast, self._gateway_toast), (LibraryChanged, self._library_changed),
                (ChangeMade, self._change_made), (LibraryLifecycle, self._lifecycle),
                (TaskProgress, self.importer.progress), (TaskProgress, self.tasks.progress),
                (ShowInDesktop, self._show_in_desktop),
                (DatabaseStatus, self.database_banner.status),
                (ToolsChanged, lambda e: self.browser._sections()),
                (PluginsChanged, lambda e: self.menubar.refresh("Library"))):
            self._bus_off.append(bus.subscribe(event, handler))
        self._unsubscribe = self.services.gateway.subscribe(bus.post)
        self.services.gateway.window_attached = True
        for notice in self.services.notices:
            self.toasts.show(notice, "warning")

    def current_target(self, keys: tuple[str, ...] | None = None) -> Target:
        """What the menu bar and the keys act on: the asset in the viewer, or the
        selection; and the view the sidebar shows."""
        if keys is None:
            keys = (self.viewer.key,) if self.viewer.is_open and self.viewer.key else \
                tuple(self.grid.selected_keys())
        scope = self.browser.scope
        return Target(tuple(keys), scope, scope.iid)

    def start(self) -> None:
        """Open the first library (asynchronously: the window is already drawn)."""
        self.session.start()

    # library -----------------------------------------------------------------------------
    def _library_name(self) -> str:
        current = self.session.current
        return library_name(current["name"]) if current else _("the library")

    def _library_opened(self, ref: dict[str, Any]) -> None:
        self.root.title(f"{library_name(ref['name'])} — {APP_NAME}")
        self.switcher.show(library_name(ref["name"]))
        self.tasks.show_library(ref["libraryId"])
        self.database_banner.showing()
        if self.browser.library_id != ref["libraryId"]:
            self.close_viewer()
            self.search.clear_all(notify=False)
            self.browser.text = ""
            self.browser.show_library(ref["libraryId"])
            if self.root.focus_get() is None:
                self.grid.canvas.focus_set()     # arrows and Delete work at once
        self.show_state()

    def _library_closed(self, reason: str) -> None:
        self.close_viewer()
        self.browser.show_library(None)
        self.tasks.show_library(None)
        self.empty.show("closed", reason)

    def _lifecycle(self, event: LibraryLifecycle) -> None:
        if event.action == "renamed":
            self.session.renamed(event.library_id, event.name)
        elif event.action in ("closed", "deleted"):
            who = actor_name(event.actor_label)
            said = (_("{actor} closed it.") if event.action == "closed"
                    else _("{actor} deleted it.")).format(actor=who)
            self.session.closed(event.library_id, said if event.actor_label else "")

    def _library_changed(self, event: LibraryChanged) -> None:
        self.browser.library_changed(event)
        self.tasks.library_changed(event)

    def _change_made(self, event: ChangeMade) -> None:
        if event.library_id == self.session.library_id:
            self.activity.change_made(event)

    def _gateway_toast(self, event: Toast) -> None:
        title = None if event.actor_label in ("", "You") else actor_name(event.actor_label)
        self.toasts.show(gateway_words.toast(event), event.level, title=title)

    def _show_in_desktop(self, event: ShowInDesktop) -> None:
        window_state.bring_to_front(self.root)
        if event.asset_ids and event.library_id == self.session.library_id:
            self.browser.select(list(event.asset_ids))

    def refresh(self) -> None:
        self.pages.invalidate()
        self.browser.refresh_sidebar()

    # state -------------------------------------------------------------------------------
    def show_state(self) -> None:
        if self.pages.known and self._logged_library != self.session.library_id:
            self._logged_library = self.session.library_id
            log.info("grid shows library %s: %d assets", self._logged_library,
                     self.pages.count())
            shown, self.services.first_page_shown = self.services.first_page_shown, None
            if shown is not None:
                shown()
        self.view.show()
        if self.session.current is not None and self.pages.known:
            self.status.show_counts(self.browser.summary())

    def set_include_subfolders(self, include: bool) -> None:
        """View → Show subfolder contents: a folder shows and counts its subfolders' too."""
        self.browser.set_include_subfolders(include)
        window_state.keep_setting(self, "include_subfolders", include)
        self.show_state()

    def _edit_rules(self, scope: Any) -> None:
        self.sidebar_menu.smart_collection(scope)

    # the viewer --------------------------------------------------------------------------
    def open_viewer(self, keys: list[str]) -> None:
        self.placement.open(keys)

    def close_viewer(self) -> None:
        self.placement.close()

    def trash(self, keys: list[str]) -> None:
        self.placement.trash(keys, self.actions.trash)

    # importing ---------------------------------------------------------------------------
    def _folder_target(self) -> str | None:
        scope = self.browser.scope
        return scope.target if scope.kind == "folder" else None

    def ask_import(self) -> None:
        self.importer.ask_files(self.session.library_id, self._folder_target())

    def ask_import_folder(self, flatten: bool = False) -> None:
        self.importer.ask_folder(self.session.library_id, self._folder_target(),
                                 flatten=flatten)

    def import_paths(self, paths: list[str]) -> None:
        if self.drag_out.active:
            return                  # our own drag came back over the grid: not an import
        library_id = self.session.library_id
        if library_id is None:
            self.toast(_("Wait until the library is open, then drop again."), "warning")
            return
        scope = self.browser.scope
        tags = [scope.target] if scope.kind == "tag" and scope.target else []
        self.importer.start(library_id, paths, self._folder_target(), tags)

    # settings, help, zoom, toasts --------------------------------------------------------
    def open_settings(self, page: str = "mcp") -> None:
        from serpent_tk.ui.settings.settings_window import (
            SettingsWindow,  # loaded when first needed
        )

        window = self.settings_window
        if window is None or not window.winfo_exists():
            s = self.services
            window = self.settings_window = SettingsWindow(
                self.root, self.theme, self.commands, s.settings_store, s.settings, s.mcp,
                s.credentials, on_theme=self.theme.apply,
                on_thumbnail_size=lambda size: zoom_steps.set_thumbnail_size(self, size),
                plugins=s.plugins,
                on_language=self.change_language)
        window.show_page(page)

    def show_shortcuts(self) -> None:
        from serpent_tk.ui.menus.shortcuts_dialog import ShortcutsDialog

        self.dialog = ShortcutsDialog(self.root, self.theme, self.action_table)

    def show_about(self) -> None:
        from serpent_tk.ui.shell.dialogs import about_dialog

        self.dialog = about_dialog(self.root, self.theme)

    def quit(self) -> None:
        self.services.bus.post(CloseRequested())

    def zoom_step(self, delta: int) -> None:
        zoom_steps.zoom_step(self, delta)

    def _right_of_grid(self) -> int:
        """Pixels from the grid's right edge to the window's (the inspector, when the window
        is wide enough that the grid still has room for a toast)."""
        middle = self.middle
        if middle.winfo_width() < self.theme.px(340):
            return 0
        return max(0, self.root.winfo_rootx() + self.root.winfo_width()
                   - middle.winfo_rootx() - middle.winfo_width())

    def toast(self, text: str, level: str = "info", *, key: str | None = None,
              title: str | None = None, action: Any = None) -> None:
        self.toasts.show(text, level, key=key, title=title, action=action)  # type: ignore[arg-type]

    # language, geometry and shutdown ---------------------------------------------------
    def change_language(self, setting: str) -> MainWindow:
        """Speak `setting`'s language: the window is built again with its words, showing
        what it showed (`window_state`); returns the new window."""
        self.services.settings.ui.language = setting  # type: ignore[assignment]
        translate.use(setting)
        return self.rebuild() if self.rebuild is not None else self

    def detach(self) -> None:
        """Tk thread: let go of the gateway, the bus and the keys (before the widgets go:
        a rebuild, or the close)."""
        self.services.gateway.window_attached = False
        self._unsubscribe()
        for off in self._bus_off:
            off()
        for sequence in self.keys:
            self.root.unbind(sequence)
        self.full_screen.leave()              # the window's own size is remembered
        window_state.remember_layout(self)
        self.viewer.shutdown()
        self.thumbnails.shutdown()
        self.commands.shutdown()

    def close(self) -> None:
        """Tk thread: remember the window layout, detach from the gateway."""
        self.detach()
