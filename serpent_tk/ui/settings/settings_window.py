"""The Settings window: a notebook with the MCP, General and Plugins pages. Tk thread only.

One window at most; asking again brings it to the front on the requested page.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from tkinter import ttk

from serpent_tk import APP_NAME
from serpent_tk.credentials import CredentialStore
from serpent_tk.settings import Settings, SettingsStore
from serpent_tk.ui.language.translate import _
from serpent_tk.ui.settings.mcp_controls import McpControls
from serpent_tk.ui.settings.settings_general import GeneralSettingsPage
from serpent_tk.ui.settings.settings_mcp import McpSettingsPage
from serpent_tk.ui.settings.settings_plugins import PluginControls, PluginsSettingsPage
from serpent_tk.ui.shell.commands import Commands
from serpent_tk.ui.shell.scrolling import ScrollableFrame
from serpent_tk.ui.shell.theme import Theme, ThemeName
from serpent_tk.ui.tk_typed import selected_tab, show_tab


class SettingsWindow(tk.Toplevel):
    def __init__(self, parent: tk.Misc, theme: Theme, commands: Commands,
                 settings_store: SettingsStore, settings: Settings,
                 controls: McpControls | None, credentials: CredentialStore | None,
                 on_theme: Callable[[ThemeName], None],
                 on_thumbnail_size: Callable[[int], None] | None = None,
                 plugins: PluginControls | None = None,
                 on_language: Callable[[str], object] | None = None) -> None:
        super().__init__(parent)
        self.theme = theme
        self.title(_("Settings — {app}").format(app=APP_NAME))
        self.configure(background=theme.palette.background)
        self.transient(parent.winfo_toplevel())
        self.notebook = ttk.Notebook(self)
        self.notebook.pack(fill="both", expand=True, padx=theme.px(8), pady=theme.px(8))
        self.mcp: McpSettingsPage | None = None
        if controls is not None and credentials is not None:
            holder = ScrollableFrame(self.notebook, theme)
            self.mcp = McpSettingsPage(holder.inner, theme, commands, controls,
                                       settings_store, settings, credentials)
            self.mcp.pack(fill="both", expand=True)
            self.notebook.add(holder, text="MCP")  # i18n: not words (a name)
            self._mcp_tab: tk.Misc = holder
        else:
            missing = ttk.Frame(self.notebook, padding=theme.px(16))
            ttk.Label(missing, text=_("The MCP service is not part of this build.")).pack(
                anchor="w")
            self.notebook.add(missing, text="MCP")  # i18n: not words (a name)
        general = ScrollableFrame(self.notebook, theme)
        self.general = GeneralSettingsPage(general.inner, theme, commands, settings_store,
                                           settings, on_theme, on_thumbnail_size,
                                           on_language)
        self.general.pack(fill="both", expand=True)
        self.notebook.add(general, text=_("General"))
        self._general_tab: tk.Misc = general
        self.plugins: PluginsSettingsPage | None = None
        if plugins is not None:  # Settings → Plugins (serpent_tk/ui/settings/settings_plugins.py)
            holder = ScrollableFrame(self.notebook, theme)
            self.plugins = PluginsSettingsPage(holder.inner, theme, commands, plugins)
            self.plugins.pack(fill="both", expand=True)
            self.notebook.add(holder, text=_("Plugins"))
            self._plugins_tab: tk.Misc = holder
        self.bind("<Escape>", lambda e: self.destroy())
        self.update_idletasks()
        wanted = self.mcp or self.general
        width = max(wanted.winfo_reqwidth() + theme.px(40), theme.px(560))
        height = min(wanted.winfo_reqheight() + theme.px(70),
                     self.winfo_screenheight() - theme.px(80))
        self.geometry(f"{width}x{height}")
        self.minsize(theme.px(480), theme.px(360))

    def page(self) -> str:
        """The page shown now: "mcp", "general" or "plugins"."""
        selected = selected_tab(self.notebook)
        if selected == str(self._general_tab):
            return "general"
        if self.plugins is not None and selected == str(self._plugins_tab):
            return "plugins"
        return "mcp"

    def show_page(self, page: str) -> None:
        if page == "mcp":
            show_tab(self.notebook, 0)
        elif page == "plugins" and self.plugins is not None:
            show_tab(self.notebook, self._plugins_tab)
        else:
            show_tab(self.notebook, self._general_tab)
        self.deiconify()
        self.lift()
        self.focus_set()
