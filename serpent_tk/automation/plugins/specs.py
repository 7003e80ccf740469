"""How a plugin's command becomes a registry spec: `plugin.<id>.<verb>`, library-level, with
`plugin.invoke` (so only full-access callers reach it), routed to its plugin.

Thread-safe (pure). The plugin's side of the call is a `PluginHandler`: it gets the library
id, the validated arguments and the audit meta, and returns a future of the result dict, so
no thread waits for the plugin (its code runs in the plugin host process). A dangerous
plugin command also has a `plan` handler of the same shape, answering the risk report the
gateway's two-step challenge shows and binds (`summary`, `targets` with ids and versions).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from pydantic import BaseModel

from library.protocol import CallMeta
from serpent_tk.automation import policy
from serpent_tk.automation.registry import (
    CommandCall,
    CommandSpec,
    Handler,
    Risk,
    Steps,
    Words,
    capabilities_for,
    hints,
)

NO_WORDS = Words()
# (library_id, arguments as camelCase JSON, audit meta) -> future of the result dict
PluginHandler = Callable[[str, dict[str, Any], CallMeta], "Future[dict[str, Any]]"]


def _as_steps(handler: PluginHandler) -> Handler:
    def steps(call: CommandCall) -> Steps:
        result: dict[str, Any] = yield handler(call.library_id or "", call.arguments,
                                               call.meta)
        return result
    return steps


def plugin_command(plugin_id: str, verb: str, *, input_model: type[BaseModel],
                   output_model: type[BaseModel], summary: str, returns: str,
                   example: dict[str, Any], handler: PluginHandler,
                   risk: Risk = "normal", idempotent: bool = False,
                   words: Words = NO_WORDS, plan: PluginHandler | None = None,
                   title: str = "") -> CommandSpec:
    """Declare one plugin command; `Registry.add_plugin_commands` adds it. A dangerous one
    needs `plan` (the risk report of the first, unconfirmed call). `title`: a short name
    for people (default "<plugin id>: <verb>")."""
    caps = capabilities_for(risk, "library") | {policy.PLUGIN_INVOKE}
    return CommandSpec(name=f"plugin.{plugin_id}.{verb}", scope="library",
                       input_model=input_model, output_model=output_model, capabilities=caps,
                       risk=risk, summary=summary, returns=returns, example=example,
                       annotations=hints(risk, idempotent=idempotent), route="plugin",
                       words=words, handler=_as_steps(handler),
                       plan=_as_steps(plan) if plan is not None else None,
                       title=title or f"{plugin_id}: {verb}")
