"""Idempotency keys and request ids, shared by both processes: a call's fingerprint, the refusal
of a reused key, and the id every write is sent with.

Thread-safe (pure functions). A write retried with its `idempotencyKey` returns the first
call's result only when it is the very same call: the same command with the same normalized
arguments (their `arguments_digest`). The same key with another command or other arguments is
refused with INVALID_ARGUMENT naming the key, never answered with the first call's result.
Every write also gets a request id from the main process (`new_request_id`), which the worker
commits with it: the same request sent again after its worker died is answered with what it
did, never run twice (`library/worker/store/requests.py`, `library/resend.py`).
"""

from __future__ import annotations

import hashlib
import json
import secrets
from typing import Any

from library.errors import INVALID_ARGUMENT, LibraryError

KEY_FIELD = "idempotencyKey"
IMPORT_COMMAND = "library.import-exported"
IMPORT_REPLAYED = "replayed"  # reason of the worker's "this import was done already" answer


def new_request_id() -> str:
    """A write's request id: unique, forever (`req_` + 96 random bits)."""
    return f"req_{secrets.token_hex(12)}"


def scope_of(source: str, credential: str | None) -> str:
    """Keys are per caller: the same key from two credentials names two calls."""
    return f"{source}:{credential or ''}"


def arguments_digest(arguments: dict[str, Any]) -> str:
    """A short fingerprint of a call's normalized arguments (defaults filled in, keys sorted;
    the key itself and the plan's `stateToken`, Serpent's own, are left out)."""
    kept = {k: v for k, v in arguments.items() if k not in ("stateToken", KEY_FIELD)}
    text = json.dumps(kept, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def shown_key(key: str) -> str:
    """An idempotency key as a message may quote it: one line, bounded."""
    cleaned = "".join(c if c.isprintable() else "?" for c in key)
    return cleaned if len(cleaned) <= 80 else cleaned[:77] + "..."


def check_stored(stored: str, command: str, digest: str, key: str) -> None:
    """`stored` is what a key was first used for (`command#digest`); refuse a retry of `key`
    that is another call (another command, or the same one with other arguments)."""
    stored_command, _, stored_digest = stored.partition("#")
    if stored_command != command or stored_digest != digest:
        raise key_reused(key, command, stored_command)


def key_reused(key: str, command: str, stored_command: str) -> LibraryError:
    what = (f"another command ({stored_command})" if stored_command != command
            else f"{command} with other arguments")
    return LibraryError(INVALID_ARGUMENT, f'The idempotencyKey "{shown_key(key)}" was already '
                        f"used for {what}; a retry must send exactly the same call, and a new "
                        "change needs a new key.", field=KEY_FIELD)
