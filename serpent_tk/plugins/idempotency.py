"""Idempotency keys for plugin commands: a retried key gets the first call's answer.

Main process; thread-safe. Serpent's own commands keep their keys in the library (the
worker); a plugin command's answer is kept here, per caller (source and credential, as the
worker scopes them), command and key, for an hour and at most `MAX_KEPT` answers. A key
reused with other arguments is refused (`INVALID_ARGUMENT`, docs/contracts.md §3); a call that
failed is not kept, so it can be retried.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from library.errors import INVALID_ARGUMENT, LibraryError
from library.protocol import CallMeta

KEEP_S = 3600.0
MAX_KEPT = 1000
Ask = Callable[[str, dict[str, Any], CallMeta], "Future[dict[str, Any]]"]


class Remembered:
    """Wraps a plugin command's handler so that its idempotency keys hold."""

    def __init__(self, command: str, ask: Ask) -> None:
        self._command = command
        self._ask = ask
        self._lock = threading.Lock()
        self._kept: OrderedDict[tuple[str, str, str], tuple[float, str, Future[Any]]] = \
            OrderedDict()

    def __call__(self, library_id: str, arguments: dict[str, Any],
                 meta: CallMeta) -> Future[dict[str, Any]]:
        if not meta.idempotency_key:
            return self._ask(library_id, arguments, meta)
        key = (f"{meta.source}:{meta.credential or ''}", library_id, meta.idempotency_key)
        fingerprint = json.dumps(arguments, sort_keys=True, separators=(",", ":"))
        now = time.monotonic()
        with self._lock:
            for old in [k for k, (at, _f, _a) in self._kept.items() if now - at > KEEP_S]:
                del self._kept[old]
            kept = self._kept.get(key)
            if kept is not None and not _failed(kept[2]):
                if kept[1] != fingerprint:
                    refused: Future[dict[str, Any]] = Future()
                    refused.set_exception(LibraryError(
                        INVALID_ARGUMENT, f"idempotencyKey: already used for {self._command} "
                        "with other arguments", field="idempotencyKey"))
                    return refused
                return kept[2]
            answer = self._ask(library_id, arguments, meta)
            self._kept[key] = (now, fingerprint, answer)
            while len(self._kept) > MAX_KEPT:
                self._kept.popitem(last=False)
            return answer


def _failed(future: Future[Any]) -> bool:
    return future.done() and (future.cancelled() or future.exception() is not None)
