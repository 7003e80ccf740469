"""What a running plugin adds to Serpent, built from its declarations: registry commands, and
will- and did-hooks on the same `Hooks` Serpent's own side effects use.

Main process; thread-safe (built once per start of a plugin). Every handler only asks the
plugin's host (`PluginProcess.invoke`) and returns a future: no thread of the window, the MCP
server or the gateway waits for plugin code. Hooks are asked only for commands that change
something and match their patterns, never for the plugin's own calls (no loops); a will-hook
has a short time limit, and one that does not answer in time refuses the command it was
asked about (its guarantee holds) and counts as a strike against its plugin, so after a few
(`Strikes`) it is turned off and later commands no longer wait.
"""

from __future__ import annotations

import fnmatch
import logging
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from library.protocol import CallMeta
from serpent_tk.automation.hooks import HookContext, Hooks
from serpent_tk.automation.plugins.specs import plugin_command
from serpent_tk.automation.registry import LIBRARY_ID, CommandSpec, Words
from serpent_tk.plugins import declared
from serpent_tk.plugins.idempotency import Remembered
from serpent_tk.plugins.supervisor import DEFAULT_STRIKES, PluginProcess, Strikes
from serpent_tk.plugins.wire import CommandInfo, Declaration, HookInfo

log = logging.getLogger("serpent.plugins")

EXAMPLE_LIBRARY = "lib_01j9z3k4m5n6p7q8"


@dataclass(frozen=True)
class Limits:
    """How long plugin code may take (seconds): a call past its limit fails, and repeated
    timeouts or crashes turn the plugin off (`strikes`)."""

    load_s: float = 30.0  # import and declare
    will_hook_s: float = 2.0  # every matching command waits for it
    did_hook_s: float = 30.0
    plan_s: float = 30.0
    analyser_s: float = 300.0  # one batch of assets
    strikes: Strikes = DEFAULT_STRIKES  # crashes and timeouts before it is turned off


DEFAULT_LIMITS = Limits()


def command_specs(plugin_id: str, name: str, declaration: Declaration,
                  process: PluginProcess, limits: Limits) -> list[CommandSpec]:
    """The plugin's commands as registry specs (`declared.SchemaRefused` for a bad schema)."""
    return [_spec(plugin_id, name, info, process, limits) for info in declaration.commands]


def _spec(plugin_id: str, name: str, info: CommandInfo, process: PluginProcess,
          limits: Limits) -> CommandSpec:
    command = f"plugin.{plugin_id}.{info.verb}"
    input_model = declared.model_for(f"{command} input", declared.input_schema(
        info.input_schema))
    output_model = declared.model_for(f"{command} output", declared.output_schema(
        info.output_schema))

    def asking(kind: Any, timeout_s: float) -> Callable[[str, dict[str, Any], CallMeta],
                                                        Future[dict[str, Any]]]:
        def ask(library_id: str, arguments: dict[str, Any],
                meta: CallMeta) -> Future[dict[str, Any]]:
            return process.invoke(kind, info.verb, library_id,
                                  {"arguments": arguments, "actor": meta.label}, timeout_s)
        return ask

    example = {LIBRARY_ID: EXAMPLE_LIBRARY, **info.example}
    return plugin_command(
        plugin_id, info.verb, input_model=input_model, output_model=output_model,
        summary=info.summary, returns=info.returns, example=example, risk=info.risk,
        idempotent=info.idempotent,
        handler=Remembered(command, asking("command", info.timeout_s)),
        plan=asking("plan", limits.plan_s) if info.planned else None,
        words=Words(done=f"used {name} on {{assets}}", fallback=f"used {name}"),
        title=info.title or f"{name}: {info.verb}")


def install_hooks(hooks: Hooks, plugin_id: str, name: str, declaration: Declaration,
                  process: PluginProcess, limits: Limits) -> list[Callable[[], None]]:
    """Put the plugin's hooks on `hooks`; returns their removers."""
    owner = f"The plugin “{name}”"
    removers = []
    for info in declaration.will_hooks:
        removers.append(hooks.add_asking(owner, _will(plugin_id, info, process, limits)))
    for info in declaration.did_hooks:
        removers.append(hooks.add_did(owner, _did(plugin_id, info, process, limits)))
    return removers


def _will(plugin_id: str, info: HookInfo, process: PluginProcess, limits: Limits
          ) -> Callable[[HookContext], Future[None] | None]:
    def ask(context: HookContext) -> Future[None] | None:
        if not wants(plugin_id, info, context):
            return None
        answer = process.invoke("will", info.name, context.library_id, hook_event(context),
                                limits.will_hook_s)
        said: Future[None] = Future()
        answer.add_done_callback(lambda done: _pass_on(done, said))
        return said
    return ask


def _did(plugin_id: str, info: HookInfo, process: PluginProcess, limits: Limits
         ) -> Callable[[HookContext], None]:
    def tell(context: HookContext) -> None:
        if wants(plugin_id, info, context):
            answer = process.invoke("did", info.name, context.library_id,
                                    hook_event(context), limits.did_hook_s)
            answer.add_done_callback(lambda done: _log_refusal(plugin_id, info, done))
    return tell


def wants(plugin_id: str, info: HookInfo, context: HookContext) -> bool:
    """Does the hook want to hear about this call? Changing commands that match its patterns,
    except the plugin's own calls."""
    if not context.spec.writes or context.caller.plugin_id == plugin_id:
        return False
    return any(fnmatch.fnmatchcase(context.spec.name, pattern) for pattern in info.commands)


def hook_event(context: HookContext) -> dict[str, Any]:
    """What `api.HookEvent` holds, as JSON."""
    return {"command": context.spec.name, "library_id": context.library_id,
            "arguments": context.arguments, "source": context.caller.source,
            "actor": context.caller.label, "result": context.result,
            "change_sequence": context.change_sequence}


def _pass_on(done: Future[dict[str, Any]], said: Future[None]) -> None:
    error = done.exception()
    if error is not None:
        said.set_exception(error)
    else:
        said.set_result(None)


def _log_refusal(plugin_id: str, info: HookInfo, done: Future[dict[str, Any]]) -> None:
    error = done.exception()
    if error is not None:  # a crash or a timeout turned the plugin off already
        log.info("did-hook %s of plugin %s: %s", info.name, plugin_id, error)
