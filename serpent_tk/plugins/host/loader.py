"""Loading a plugin in its host: import its module, find its `Plugin`, check that it declares
what its manifest promises, and describe it for the main process.

Runs in the plugin host process. Anything wrong is a `LoadError` with a sentence for people
(the main process shows it in Settings → Plugins and turns the plugin off).
"""

from __future__ import annotations

import importlib
import json
import sys
import traceback
from typing import Any

from serpent_tk.plugins.api import Plugin
from serpent_tk.plugins.manifest import Manifest
from serpent_tk.plugins.wire import AnalyserInfo, CommandInfo, Declaration, HookInfo


class LoadError(Exception):
    def __init__(self, message: str, trace: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.trace = trace


def load_plugin(source: dict[str, Any]) -> tuple[Plugin, Manifest]:
    """`source`: {"manifest": the manifest as JSON, "path_entry": a folder plugin's folder}."""
    manifest = Manifest.model_validate(source["manifest"])
    if source.get("path_entry"):
        sys.path.insert(0, str(source["path_entry"]))
    try:
        module = importlib.import_module(manifest.module)
    except BaseException as error:  # SystemExit and friends too: a plugin never ends us
        raise LoadError(f"its module {manifest.module} could not be imported "
                        f"({type(error).__name__}: {error})",
                        traceback.format_exc()) from None
    plugin = getattr(module, "plugin", None)
    if not isinstance(plugin, Plugin):
        raise LoadError(f"its module {manifest.module} has no `plugin = Plugin()`")
    _check_against_manifest(plugin, manifest)
    return plugin, manifest


def _check_against_manifest(plugin: Plugin, manifest: Manifest) -> None:
    promised = manifest.contributes
    problems = []
    if sorted(plugin.commands) != sorted(promised.commands):
        problems.append(f"it declares the commands {sorted(plugin.commands)}, the manifest "
                        f"{sorted(promised.commands)}")
    if bool(plugin.will_hooks) != promised.will_hooks:
        problems.append("its will-hooks and the manifest's will_hooks disagree")
    if bool(plugin.did_hooks) != promised.did_hooks:
        problems.append("its did-hooks and the manifest's did_hooks disagree")
    if sorted(plugin.analysers) != sorted(promised.analysers):
        problems.append(f"it declares the analysers {sorted(plugin.analysers)}, the manifest "
                        f"{sorted(promised.analysers)}")
    for hooks in (plugin.will_hooks, plugin.did_hooks):
        names = [hook.name for hook in hooks]
        if len(set(names)) != len(names):
            problems.append("two hooks of the same kind share a function name")
    for verb, command in plugin.commands.items():
        if command.risk == "dangerous" and verb not in plugin.plans:
            problems.append(f"the dangerous command {verb} has no @plugin.plan")
    for verb in plugin.plans:
        if verb not in plugin.commands or plugin.commands[verb].risk != "dangerous":
            problems.append(f"the plan {verb} belongs to no dangerous command")
    if problems:
        raise LoadError("; ".join(problems))


def declaration(plugin: Plugin) -> Declaration:
    commands = []
    for verb, command in sorted(plugin.commands.items()):
        try:
            example = json.loads(json.dumps(command.example))
            input_schema = command.input.model_json_schema(by_alias=True, mode="validation")
            output_schema = command.output.model_json_schema(by_alias=True,
                                                             mode="serialization")
        except (TypeError, ValueError) as error:
            raise LoadError(f"the command {verb} cannot be described: {error}") from None
        commands.append(CommandInfo(
            verb=verb, risk=command.risk, summary=command.summary, returns=command.returns,
            example=example, idempotent=command.idempotent, timeout_s=command.timeout_s,
            input_schema=input_schema, output_schema=output_schema,
            planned=verb in plugin.plans, title=command.title))
    return Declaration(
        commands=commands,
        will_hooks=[HookInfo(name=h.name, commands=list(h.commands)) for h in plugin.will_hooks],
        did_hooks=[HookInfo(name=h.name, commands=list(h.commands)) for h in plugin.did_hooks],
        analysers=sorted(plugin.analysers),
        analyser_info=[AnalyserInfo(name=name, kinds=list(d.kinds), version=d.version)
                       for name, d in sorted(plugin.analyser_defs.items())])
