"""Which plugin commands are offered to AI clients as MCP tools: the "expose to MCP" switch.

Thread-safe. A plugin's commands are in the registry while the plugin is enabled and running
(the window and other plugins may call them); they are MCP tools only while its plugin is
also exposed, and then only for full-access credentials (the mode rule is the registry's and
the catalogue's). The exposed set of tools is what the registry holds of exposed plugins;
listeners hear exactly when that set changes — a plugin enabled while exposed, exposed
while running, hidden, disabled or turned off after a failure — and never otherwise
(libraries opening or closing never touch it), which is when the MCP layer sends
`notifications/tools/list_changed` (docs/contracts.md §4).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

from serpent_tk.automation.registry import CommandSpec, Registry
from serpent_tk.listeners import Listeners


class PluginExposure:
    """The exposed plugins, and the tools they make. Thread-safe."""

    def __init__(self, registry: Registry) -> None:
        self._registry = registry
        self._lock = threading.Lock()
        self._plugins: frozenset[str] = frozenset()
        self._tools: frozenset[str] = frozenset()
        self._listeners: Listeners[[]] = Listeners("the exposed plugin tools")
        self._unhook = registry.on_change(self._recount)

    def exposed(self, spec: CommandSpec) -> bool:
        """May an MCP client (of the right mode) see and call `spec`? Serpent's own commands
        always; a plugin's only while its plugin is exposed."""
        return spec.plugin_id is None or spec.plugin_id in self._plugins

    def plugins(self) -> frozenset[str]:
        return self._plugins

    def tools(self) -> frozenset[str]:
        """The tool names exposed plugins contribute right now."""
        return self._tools

    def set_exposed(self, plugin_id: str, exposed: bool) -> None:
        with self._lock:
            plugins = self._plugins | {plugin_id} if exposed else self._plugins - {plugin_id}
        self.replace(plugins)

    def replace(self, plugin_ids: Iterable[str]) -> None:
        """Expose exactly `plugin_ids` (the settings' switches)."""
        with self._lock:
            self._plugins = frozenset(plugin_ids)
        self._recount()

    def on_change(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Hear when the set of exposed tools changes. Returns the unsubscribe function."""
        return self._listeners.subscribe(listener)

    def close(self) -> None:
        self._unhook()

    def _recount(self) -> None:
        with self._lock:
            tools = frozenset(spec.tool_name for spec in self._registry.commands.values()
                              if spec.plugin_id is not None and spec.plugin_id in self._plugins)
            if tools == self._tools:
                return
            self._tools = tools
        self._listeners.tell()
