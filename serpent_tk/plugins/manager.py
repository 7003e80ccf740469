"""The plugins of one running Serpent: found at start, switched on and off by the settings,
each in its own host process, turned off when it keeps failing.

Main process; thread-safe. Every change runs on one control thread, in order: the settings'
switches (from Settings → Plugins, from `serpent-tk plugin ...` — noticed by a cheap stat of
the settings file, as credentials are — or from a settings import) are applied by starting
or stopping hosts, adding or removing the plugins' commands and hooks, and telling the
gateway's `PluginExposure` which plugins are exposed to MCP. A plugin that fails to load, or
whose calls time out or whose process dies too often (`supervisor.Strikes`: 3 in 10 minutes),
is turned off (its `enabled` switch is written off, so the next start does not fail again),
the window gets a Toast and the log a line; everything else keeps working. An exception in
one call is only that call's error (PLUGIN_FAILED). The window hears `PluginsChanged`.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from library.errors import ErrorCode
from serpent_tk.automation.caller import Caller
from serpent_tk.automation.events import PluginsChanged, Said, Toast
from serpent_tk.automation.registry import LIBRARY_ID
from serpent_tk.plugins.analysis import PluginAnalysers
from serpent_tk.plugins.contributions import (
    DEFAULT_LIMITS,
    Limits,
    command_specs,
    install_hooks,
)
from serpent_tk.plugins.declared import SchemaRefused
from serpent_tk.plugins.discovery import Found, discover
from serpent_tk.plugins.state import PluginState, Status, remove_status_file, write_status_file
from serpent_tk.plugins.supervisor import PluginFailed, PluginProcess, Reply
from serpent_tk.plugins.wire import AnalyserInfo, ApiCall, Declaration
from serpent_tk.settings import PluginSettings, Settings, SettingsStore

log = logging.getLogger("serpent.plugins")

WATCH_INTERVAL_S = 0.5
TOAST_LABEL = "Serpent"


class PluginControlError(Exception):
    """A switch that cannot be flipped (unknown plugin, one that cannot run)."""


@dataclass
class _Plugin:
    key: str  # its id (a later plugin with a taken id: `id@location`)
    found: Found
    status: Status = "off"
    error: str | None = None
    process: PluginProcess | None = None
    declaration: Declaration | None = None
    removers: list[Callable[[], None]] = field(default_factory=list)
    failed: bool = False  # turned off after an error: waits for the switch to go on again


class PluginManager:
    """Owns every plugin host of this Serpent. Thread-safe."""

    def __init__(self, gateway: Any, settings: SettingsStore, plugins_dir: Path | None, *,
                 status_file: Path | None = None, limits: Limits = DEFAULT_LIMITS,
                 builtin: Path | None = None, entry_points: bool = True,
                 watch_interval_s: float = WATCH_INTERVAL_S) -> None:
        self._gateway = gateway
        self._settings = settings
        self._plugins_dir = plugins_dir
        self._status_file = status_file
        self.limits = limits
        self._builtin = builtin
        self._entry_points = entry_points
        self._watch_interval_s = watch_interval_s
        self._control = ThreadPoolExecutor(max_workers=1, thread_name_prefix="plugin-control")
        self._lock = threading.Lock()
        self._plugins: dict[str, _Plugin] = {}
        self._switches: dict[str, PluginSettings] = {}
        self._signature: tuple[int, int, int] | None = None
        self._stopping = threading.Event()
        self._watcher: threading.Thread | None = None
        self.analysers = PluginAnalysers(gateway, self._running_analysers, limits)

    # -- public ---------------------------------------------------------------------------

    def start(self) -> Future[None]:
        """Find the plugins and start the enabled ones (in the background); then follow the
        settings file. The future is done when the first round is."""
        started = self._control.submit(self._discover)
        self._watcher = threading.Thread(target=self._watch, name="plugin-settings-watch",
                                         daemon=True)
        self._watcher.start()
        return started

    def states(self) -> list[PluginState]:
        """Every plugin found, in discovery order. Fast; any thread (the Tk thread too)."""
        with self._lock:
            return [self._state(p) for p in self._plugins.values()]

    def state(self, plugin_id: str) -> PluginState | None:
        with self._lock:
            plugin = self._plugins.get(plugin_id)
            return self._state(plugin) if plugin is not None else None

    def set_enabled(self, plugin_id: str, enabled: bool) -> PluginState:
        """Turn a plugin on or off, now and for the next start. Blocks until applied (never
        call it on the Tk thread)."""
        return self._control.submit(self._switch, plugin_id, "enabled", enabled).result()

    def set_exposed(self, plugin_id: str, exposed: bool) -> PluginState:
        """Offer a plugin's commands to full-access AI clients, or stop offering them."""
        return self._control.submit(self._switch, plugin_id, "exposed", exposed).result()

    def sync(self) -> None:
        """Apply the settings file as it is now (blocks until done)."""
        self._control.submit(self._sync).result()

    def shutdown(self) -> None:
        """Stop every plugin and the settings watcher; a second call does nothing."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        if self._watcher is not None:
            self._watcher.join(2 * self._watch_interval_s + 1)
        self.analysers.stop()
        self._control.submit(self._stop_all).result()
        self._control.shutdown(wait=True)
        if self._status_file is not None:
            remove_status_file(self._status_file)

    # -- the control thread -------------------------------------------------------------

    def _discover(self) -> None:
        found = discover(self._plugins_dir, builtin=self._builtin,
                         entry_points=self._entry_points)
        with self._lock:
            for plugin in found:
                status: Status = "incompatible" if plugin.incompatible else (
                    "broken" if plugin.problem else "off")
                key = plugin.id if plugin.id not in self._plugins else \
                    f"{plugin.id}@{plugin.location}"
                self._plugins[key] = _Plugin(key, plugin, status=status,
                                             error=_sentence(plugin.problem))
        for plugin in found:
            if plugin.problem:
                log.warning("plugin %s (%s) cannot run: %s", plugin.id, plugin.location,
                            plugin.problem)
        self._sync()

    def _sync(self) -> None:
        self._signature = self._settings_signature()
        self._apply(self._settings.load().settings)

    def _switch(self, plugin_id: str, key: str, value: bool) -> PluginState:
        with self._lock:
            plugin = self._plugins.get(plugin_id)
        if plugin is None:
            raise PluginControlError(f"There is no plugin {plugin_id!r}.")
        if key == "enabled" and value and plugin.found.problem:
            raise PluginControlError(f"The plugin “{plugin.found.name}” cannot run: "
                                     f"{plugin.found.problem}.")

        def change(settings: Settings) -> None:
            switches = settings.plugin(plugin_id).model_copy(update={key: value})
            settings.plugins = {**settings.plugins, plugin_id: switches}

        settings = self._settings.update(change)
        self._signature = self._settings_signature()
        if key == "enabled" and value:
            plugin.failed = False  # asked again: try again
        self._apply(settings)
        state = self.state(plugin_id)
        assert state is not None
        return state

    def _apply(self, settings: Settings) -> None:
        """Make the running plugins what the settings say."""
        with self._lock:
            self._switches = {i: settings.plugin(i) for i in self._plugins}
            plugins = list(self._plugins.items())
        exposed = {i for i, s in self._switches.items() if s.exposed}
        self._gateway.exposure.replace(exposed)  # before starting: one change per start
        for plugin_id, plugin in plugins:
            wanted = self._switches[plugin_id].enabled and not plugin.found.problem
            if not self._switches[plugin_id].enabled:
                plugin.failed = False
            if wanted and plugin.process is None and not plugin.failed:
                self._start(plugin_id, plugin)
            elif not wanted and plugin.process is not None:
                self._stop(plugin_id, plugin)
        self._changed()

    def _start(self, plugin_id: str, plugin: _Plugin) -> None:
        found = plugin.found
        self._set_status(plugin, "starting")

        def failed(reason: str) -> None:  # on the host's reader thread: hand it over
            self._control.submit(self._failed, plugin_id, process, reason)

        process = PluginProcess(found, on_api=lambda call, reply: self._api(
            plugin_id, call, reply), on_failure=failed, load_timeout_s=self.limits.load_s,
            strikes=self.limits.strikes)
        try:
            declaration = process.start()
            specs = command_specs(plugin_id, found.name, declaration, process, self.limits)
            plugin.removers = install_hooks(self._gateway.hooks, plugin_id, found.name,
                                            declaration, process, self.limits)
            self._gateway.registry.add_plugin_commands(plugin_id, specs)
        except (PluginFailed, SchemaRefused, ValueError) as error:
            for remove in plugin.removers:
                remove()
            plugin.removers = []
            process.stop()
            self._turned_off(plugin_id, plugin, getattr(error, "message", str(error)))
            return
        plugin.process, plugin.declaration = process, declaration
        self._set_status(plugin, "running")
        if declaration.analysers:
            self.analysers.started(found.id)  # what it has not looked at yet
        log.info("plugin %s %s running (pid %s)", plugin_id, found.manifest and
                 found.manifest.version, process.pid)

    def _stop(self, plugin_id: str, plugin: _Plugin) -> None:
        for remove in plugin.removers:
            remove()
        plugin.removers = []
        self._gateway.registry.remove_plugin(plugin_id)
        process, plugin.process = plugin.process, None
        if process is not None:
            process.stop()
        plugin.declaration = None
        self._set_status(plugin, "off")
        log.info("plugin %s turned off", plugin_id)

    def _failed(self, plugin_id: str, process: PluginProcess, reason: str) -> None:
        with self._lock:
            plugin = self._plugins.get(plugin_id)
        if plugin is None or plugin.process is not process:
            return  # already stopped or restarted
        self._stop(plugin_id, plugin)
        self._turned_off(plugin_id, plugin, reason)
        self._changed()

    def _turned_off(self, plugin_id: str, plugin: _Plugin, reason: str) -> None:
        """The plugin failed: off now, off at the next start, and the person is told."""
        plugin.failed = True
        plugin.error = _sentence(reason) or "It failed."

        def off(settings: Settings) -> None:
            switches = settings.plugin(plugin_id).model_copy(update={"enabled": False})
            settings.plugins = {**settings.plugins, plugin_id: switches}

        try:
            self._settings.update(off)
            self._signature = self._settings_signature()
            with self._lock:
                self._switches[plugin_id] = self._switches.get(
                    plugin_id, PluginSettings()).model_copy(update={"enabled": False})
            plugin.failed = False  # the switch is off now: switched on again, it is retried
        except Exception as error:  # a locked settings file: off for this run all the same
            log.warning("could not record that plugin %s is off: %s", plugin_id, error)
        with self._lock:
            plugin.status = "failed"
        log.warning("plugin %s was turned off: %s", plugin_id, reason)
        said = Said("The plugin “{plugin}” was turned off: {reason}. Everything else keeps "
                    "working; turn it on again in Settings → Plugins.",
                    {"plugin": plugin.found.name, "reason": reason})
        self._gateway.publish(Toast(text=said.template.format(**said.values), level="warning",
                                    actor_label=TOAST_LABEL, said=said))
        self._changed()

    def _stop_all(self) -> None:
        with self._lock:
            plugins = list(self._plugins.items())
        for plugin_id, plugin in plugins:
            if plugin.process is not None:
                self._stop(plugin_id, plugin)

    # -- helpers ---------------------------------------------------------------------------

    def _api(self, plugin_id: str, call: ApiCall, reply: Reply) -> None:
        """A plugin's `api.call`: through the gateway, as `plugin:<id>`. Never blocks."""
        arguments = dict(call.arguments)
        spec = self._gateway.registry.get(call.command)
        if spec is not None and spec.scope == "library" and LIBRARY_ID not in arguments \
                and call.library_id:
            arguments[LIBRARY_ID] = call.library_id
        answer = self._gateway.submit(call.command, arguments, Caller.plugin(plugin_id))
        answer.add_done_callback(lambda done: reply(done.result() if not done.cancelled() else {
            "status": "error", "error": {"code": ErrorCode.CANCELLED, "message": "Cancelled."}}))

    def _running_analysers(self) -> list[tuple[PluginProcess, list[AnalyserInfo]]]:
        with self._lock:
            return [(p.process, _analysers(p.declaration)) for p in self._plugins.values()
                    if p.process is not None and p.declaration is not None
                    and p.declaration.analysers]

    def _set_status(self, plugin: _Plugin, status: Status) -> None:
        with self._lock:
            plugin.status = status
            if status in ("running", "starting"):
                plugin.error = None
        self._changed()

    def _changed(self) -> None:
        self._gateway.publish(PluginsChanged())
        if self._status_file is not None:
            try:
                write_status_file(self._status_file, self.states())
            except OSError as error:
                log.warning("could not write %s: %s", self._status_file.name, error)

    def _state(self, plugin: _Plugin) -> PluginState:
        found, manifest = plugin.found, plugin.found.manifest
        switches = self._switches.get(plugin.key, PluginSettings())
        return PluginState(
            id=plugin.key, name=found.name, version=manifest.version if manifest else "",
            description=manifest.description if manifest else "", origin=found.origin,
            location=found.location, status=plugin.status, enabled=switches.enabled,
            exposed=switches.exposed, error=plugin.error,
            commands=tuple(f"plugin.{found.id}.{verb}" for verb in (
                manifest.contributes.commands if manifest else ())))

    def _settings_signature(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self._settings.path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def _watch(self) -> None:
        """Notice a change of the settings file made by another process (the CLI)."""
        while not self._stopping.wait(self._watch_interval_s):
            if self._settings_signature() != self._signature:
                try:
                    self._control.submit(self._sync)
                except RuntimeError:  # shutting down
                    return


def _analysers(declaration: Declaration) -> list[AnalyserInfo]:
    """The plugin's analysers with their kinds and versions (a host that declared names
    only: images, version 1)."""
    known = {info.name: info for info in declaration.analyser_info}
    return [known.get(name) or AnalyserInfo(name=name, kinds=["image"], version=1)
            for name in declaration.analysers]


def _sentence(text: str | None) -> str | None:
    """`text` as the start of a sentence (the page shows it on its own line)."""
    return text[0].upper() + text[1:] if text else text
