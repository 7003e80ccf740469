"""The plugin host's loop: run what the main process asks, on threads of its own, and carry
the plugin's API calls back to the main process.

Runs in the plugin host process. The main thread reads the pipe; every `Invoke` runs on a
pool thread with its own `HostApi`, so a handler waiting for an API call (or stuck) never
stops the others from being answered. A deliberate refusal (`PluginError`, `Veto`, bad
input) is a `Failure` the caller reads; any other exception is `raised`: the caller reads
PLUGIN_FAILED with its message, and the plugin keeps running.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import shutil
import tempfile
import threading
import traceback
from concurrent.futures import Future, ThreadPoolExecutor
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from library.errors import CANCELLED, INVALID_ARGUMENT, PERMISSION_DENIED, PLUGIN_FAILED
from serpent_tk.plugins.api import CommandFailed, HookEvent, Plugin, PluginError, RiskReport, Veto
from serpent_tk.plugins.manifest import Manifest
from serpent_tk.plugins.wire import (
    ApiCall,
    ApiReply,
    Done,
    Failure,
    Invoke,
    Log,
    Stop,
    _Wire,
    decode_to_host,
    encode,
)

MAX_THREADS = 8


class Sender:
    """Thread-safe writer of wire messages to the main process."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self._lock = threading.Lock()

    def send(self, message: _Wire) -> None:
        data = encode(message)
        with self._lock, contextlib.suppress(OSError, EOFError, ValueError):
            self._conn.send_bytes(data)


class PipeLog(logging.Handler):
    """The plugin's log lines, to the main process's log."""

    def __init__(self, sender: Sender) -> None:
        super().__init__(logging.INFO)
        self.sender = sender

    def emit(self, record: logging.LogRecord) -> None:
        with contextlib.suppress(Exception):
            self.sender.send(Log(level=record.levelname, message=self.format(record)))


class HostApi:
    """The `api.Api` one invocation is handed. Thread-safe."""

    def __init__(self, runner: HostRunner, invoke: Invoke) -> None:
        self._runner = runner
        self._invoke = invoke
        self.plugin_id = runner.manifest.id
        self.library_id = invoke.library_id
        self._work: Path | None = None
        self._log = logging.getLogger(f"serpent.plugins.{self.plugin_id}")

    def call(self, command: str, arguments: dict[str, Any] | None = None, *,
             library_id: str | None = None) -> dict[str, Any]:
        envelope = self._runner.api_call(self._invoke.id, command, dict(arguments or {}),
                                         library_id or self.library_id)
        if envelope.get("status") != "ok":
            raise CommandFailed(envelope)
        result: dict[str, Any] = envelope.get("result") or {}
        return result

    def log(self, message: str, *, level: str = "info") -> None:
        self._log.log(getattr(logging, level.upper(), logging.INFO), "%s", message)

    def work_dir(self) -> Path:
        if self._work is None:
            self._work = Path(tempfile.mkdtemp(prefix=f"serpent-{self.plugin_id}-"))
        return self._work

    def clean_up(self) -> None:
        if self._work is not None:
            shutil.rmtree(self._work, ignore_errors=True)


class HostRunner:
    def __init__(self, conn: Connection, sender: Sender, plugin: Plugin,
                 manifest: Manifest) -> None:
        self.conn = conn
        self.sender = sender
        self.plugin = plugin
        self.manifest = manifest
        self._pool = ThreadPoolExecutor(max_workers=MAX_THREADS,
                                        thread_name_prefix="plugin-invoke")
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._api_calls: dict[int, Future[dict[str, Any]]] = {}

    def serve(self) -> None:
        """Until `Stop` or the main process goes away."""
        try:
            while True:
                try:
                    message = decode_to_host(self.conn.recv_bytes())
                except (EOFError, OSError):
                    return
                if isinstance(message, Stop):
                    return
                if isinstance(message, ApiReply):
                    with self._lock:
                        waiting = self._api_calls.pop(message.id, None)
                    if waiting is not None:
                        waiting.set_result(message.envelope)
                else:
                    self._pool.submit(self._run, message)
        finally:
            with self._lock:
                stranded = list(self._api_calls.values())
                self._api_calls.clear()
            for waiting in stranded:
                waiting.set_result({"status": "error", "error": {
                    "code": CANCELLED, "message": "Serpent stopped the plugin."}})

    def api_call(self, invoke_id: int, command: str, arguments: dict[str, Any],
                 library_id: str | None) -> dict[str, Any]:
        waiting: Future[dict[str, Any]] = Future()
        with self._lock:
            call_id = next(self._ids)
            self._api_calls[call_id] = waiting
        self.sender.send(ApiCall(id=call_id, invoke_id=invoke_id, command=command,
                                 arguments=arguments, library_id=library_id))
        return waiting.result()

    def _run(self, invoke: Invoke) -> None:
        api = HostApi(self, invoke)
        try:
            result = self._dispatch(invoke, api)
            done = Done(id=invoke.id, result=result)
        except Veto as veto:
            done = Done(id=invoke.id, failure=Failure(
                code=PERMISSION_DENIED, message=str(veto) or "refused", vetoed=True))
        except PluginError as refusal:
            done = Done(id=invoke.id, failure=Failure(
                code=refusal.code, message=refusal.message, details=_json_safe(
                    refusal.details)))
        except _BadInput as bad:
            done = Done(id=invoke.id, failure=Failure(code=INVALID_ARGUMENT,
                                                      message=str(bad)))
        except BaseException as error:  # a bug in the plugin: this call's error (PLUGIN_FAILED)
            done = Done(id=invoke.id, failure=Failure(
                code=PLUGIN_FAILED, message=f"{type(error).__name__}: {error}"[:500],
                raised=True, trace=traceback.format_exc()))
        finally:
            api.clean_up()
        self.sender.send(done)

    def _dispatch(self, invoke: Invoke, api: HostApi) -> dict[str, Any] | None:
        plugin, payload = self.plugin, invoke.payload
        if invoke.kind in ("command", "plan"):
            command = plugin.commands[invoke.name]
            try:
                args = command.input.model_validate(payload.get("arguments", {}))
            except ValidationError as error:
                raise _BadInput(_first_problem(error)) from None
            if invoke.kind == "plan":
                report = plugin.plans[invoke.name](api, args)
                return _dumped(RiskReport, report)
            return _dumped(command.output, command.handler(api, args))
        if invoke.kind in ("will", "did"):
            hooks = plugin.will_hooks if invoke.kind == "will" else plugin.did_hooks
            hook = next(h for h in hooks if h.name == invoke.name)
            hook.handler(api, HookEvent(**payload))
            return {}
        found = plugin.analysers[invoke.name](api, list(payload.get("assetIds", [])))
        if found is None:
            return {}
        if not isinstance(found, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in found.items()):
            raise TypeError(f"the analyser {invoke.name} answered {type(found).__name__}, "
                            "not {asset id: text}")
        return {"found": found}


class _BadInput(Exception):
    pass


def _dumped(model: type[BaseModel], value: Any) -> dict[str, Any]:
    """A handler's answer as JSON: its model checked (a wrong answer is the plugin's bug)."""
    checked = value if isinstance(value, model) else model.model_validate(value)
    dumped: dict[str, Any] = checked.model_dump(mode="json", by_alias=True)
    return dumped


def _first_problem(error: ValidationError) -> str:
    first = error.errors(include_url=False, include_input=False)[0]
    where = ".".join(str(part) for part in first.get("loc", ()))
    message = str(first.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def _json_safe(details: dict[str, Any]) -> dict[str, Any]:
    """A refusal's details that can cross the wire: scalars and lists of scalars (`notFound`);
    which of them a caller sees is the gateway's choice (`PUBLIC_DETAIL_KEYS`)."""
    def scalar(value: Any) -> bool:
        return isinstance(value, str | int | float | bool) or value is None

    safe: dict[str, Any] = {}
    for key, value in details.items():
        if scalar(value):
            safe[str(key)] = value
        elif isinstance(value, list | tuple) and all(scalar(item) for item in value):
            safe[str(key)] = list(value)
    return safe
