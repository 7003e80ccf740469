"""Per-client bearer tokens for the MCP server: create, list, re-mode, choose a toolset,
revoke, verify.

Thread-safe, and safe across processes: every change is a read-modify-write under a lock
file beside it (`library.disk.locks`: `fcntl.flock`, portalocker on Windows), written
atomically with owner-only permissions (0600). A running server notices changes made by
another process (the `credential` CLI) at its next `verify()` through a cheap stat check, so
a revoked token is refused on its very next request. Tokens never reach logs: each one is
registered with `serpent_tk.logs.register_secret`. A credential path that cannot be used (a
folder, a named pipe, an unreadable file) is never opened in a way that could block and
never replaced: no client is accepted, `problem()` says why in words for people, and changes
raise `CredentialError` with that sentence.
"""

from __future__ import annotations

import errno
import hmac
import json
import logging
import os
import secrets
import threading
import time
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, get_args

from library.disk import statejson
from library.disk.atomicfile import (
    NotARegularFile,
    atomic_write_text,
    check_regular_or_missing,
    read_state_file,
)
from library.disk.locks import LockBusy, locked
from serpent_tk.logs import register_secret

log = logging.getLogger(__name__)

Mode = Literal["read-only", "auto", "full-access"]
MODES: tuple[Mode, ...] = get_args(Mode)  # from the fewest powers to the most
DEFAULT_MODE: Mode = "auto"
Toolset = Literal["essentials", "everything"]
TOOLSETS: tuple[Toolset, ...] = get_args(Toolset)
NEW_TOOLSET: Toolset = "essentials"  # what a credential made from now on gets
# A stored credential without a toolset was made before toolsets existed, when every client
# saw every tool: it keeps seeing everything, so no configured client loses tools it used.
STORED_TOOLSET: Toolset = "everything"
FILE_VERSION = 1
MAX_NAME_LENGTH = 64
LOCK_TIMEOUT_S = 10.0
TOUCH_PERSIST_INTERVAL_S = 60.0  # last-used times reach the file at most this often
FILE_MODE = 0o600


class CredentialError(ValueError):
    """A credential operation that cannot be done (unknown name, duplicate, bad mode)."""


class _Unreadable(Exception):
    """The credential file exists but is not a credential file we can read."""


class _Unusable(Exception):
    """The credential path cannot be read at all (not a file, no permission): left alone."""


@dataclass(frozen=True)
class Credential:
    """One AI client's access. The token is not part of it (see `CredentialStore.token_for`)."""

    id: str
    name: str
    mode: Mode
    created_at: datetime
    last_used_at: datetime | None = None
    toolset: Toolset = STORED_TOOLSET  # which tools it sees (automation/policy.py)

    @property
    def label(self) -> str:
        """What the desktop shows next to a change this client made."""
        return f"{self.name} via MCP"


@dataclass(frozen=True)
class _Entry:
    credential: Credential
    token: str


_Entries = list[_Entry]


def validate_name(name: str) -> str:
    """A credential name as stored: NFC, trimmed, 1-64 visible characters."""
    cleaned = unicodedata.normalize("NFC", name).strip()
    if not cleaned:
        raise CredentialError("A credential name must not be empty.")
    if len(cleaned) > MAX_NAME_LENGTH:
        raise CredentialError(f"A credential name has at most {MAX_NAME_LENGTH} characters.")
    if any(unicodedata.category(ch).startswith("C") for ch in cleaned):
        raise CredentialError("A credential name must not contain control characters.")
    return cleaned


def validate_mode(mode: str) -> Mode:
    if mode not in MODES:
        raise CredentialError(f"Unknown mode {mode!r}; use one of: {', '.join(MODES)}.")
    return mode


def validate_toolset(toolset: str) -> Toolset:
    if toolset not in TOOLSETS:
        raise CredentialError(f"Unknown toolset {toolset!r}; use one of: "
                              f"{', '.join(TOOLSETS)}.")
    return toolset


class CredentialStore:
    """The credential file of one Serpent user. Thread-safe and multi-process safe."""

    def __init__(self, path: Path, clock: Callable[[], datetime] | None = None) -> None:
        self.path = Path(path)
        self._lock_path = self.path.with_name(self.path.name + ".lock")
        self._clock = clock or (lambda: datetime.now(UTC))
        self._mutex = threading.RLock()
        self._entries: _Entries = []
        self._signature: tuple[int, int, int] | None = None
        self._loaded = False
        self._problem: str | None = None
        self._touched: dict[str, datetime] = {}  # credential id -> newest use not yet on disk
        self._persisted_at: dict[str, float] = {}  # credential id -> monotonic time of last write

    # -- queries ----------------------------------------------------------------------------

    def problem(self) -> str | None:
        """Why the credential file cannot be used right now (for people), or None."""
        with self._mutex:
            self._refresh()
            return self._problem

    def list(self) -> list[Credential]:
        """Every credential, oldest first, with the freshest last-used time this process knows."""
        with self._mutex:
            self._refresh()
            return [self._with_touch(e.credential) for e in self._entries]

    def get(self, name: str) -> Credential | None:
        with self._mutex:
            self._refresh()
            entry = self._find(name)
            return self._with_touch(entry.credential) if entry else None

    def verify(self, token: str) -> Credential | None:
        """The credential this token belongs to, or None. Constant time over all tokens.

        Re-reads the file first when another process changed it, so a revoke or a mode change
        made by the CLI applies to this very request.
        """
        given = token.encode("utf-8", "surrogatepass")
        with self._mutex:
            self._refresh()
            match: _Entry | None = None
            for entry in self._entries:  # no early exit: every token is compared
                if hmac.compare_digest(entry.token.encode("utf-8"), given) and match is None:
                    match = entry
            return self._with_touch(match.credential) if match else None

    def token_for(self, name: str) -> str:
        """The token of `name`, for putting a config snippet together. Never log it."""
        with self._mutex:
            self._refresh()
            entry = self._find(name)
            if entry is None:
                raise CredentialError(f"No credential named {name!r}.")
            return entry.token

    # -- changes ----------------------------------------------------------------------------

    def create(self, name: str, mode: str = DEFAULT_MODE,
               toolset: str = NEW_TOOLSET) -> tuple[Credential, str]:
        """A new credential and its token (shown to the person once)."""
        name = validate_name(name)
        checked_mode = validate_mode(mode)
        checked_toolset = validate_toolset(toolset)
        token = secrets.token_urlsafe(32)
        register_secret(token)
        credential = Credential(id=f"cred_{secrets.token_hex(8)}", name=name, mode=checked_mode,
                                created_at=self._now(), toolset=checked_toolset)

        def change(entries: _Entries) -> None:
            if _find_in(entries, name) is not None:
                raise CredentialError(f"A credential named {name!r} already exists.")
            entries.append(_Entry(credential, token))

        self._update(change)
        log.info("credential %r created (mode %s)", name, checked_mode)
        return credential, token

    def adopt(self, name: str, mode: str, token: str,
              created_at: datetime | None = None,
              toolset: str = STORED_TOOLSET) -> Credential:
        """Add a credential that keeps an existing token (settings import from another
        computer), so configs pasted into clients keep working."""
        name = validate_name(name)
        checked_mode = validate_mode(mode)
        checked_toolset = validate_toolset(toolset)
        if not isinstance(token, str) or len(token) < 16 or any(c.isspace() for c in token):
            raise CredentialError("A token has at least 16 characters and no spaces.")
        register_secret(token)
        credential = Credential(id=f"cred_{secrets.token_hex(8)}", name=name, mode=checked_mode,
                                created_at=(created_at or self._now()).replace(microsecond=0),
                                toolset=checked_toolset)

        def change(entries: _Entries) -> None:
            if _find_in(entries, name) is not None:
                raise CredentialError(f"A credential named {name!r} already exists.")
            if any(hmac.compare_digest(e.token, token) for e in entries):
                raise CredentialError("This token already belongs to another credential.")
            entries.append(_Entry(credential, token))

        self._update(change)
        log.info("credential %r imported (mode %s)", name, checked_mode)
        return credential

    def revoke(self, name: str) -> Credential:
        """Remove `name`; its token is refused from the next request on (live sessions too)."""
        removed: list[Credential] = []

        def change(entries: _Entries) -> None:
            entry = _find_in(entries, name)
            if entry is None:
                raise CredentialError(f"No credential named {name!r}.")
            entries.remove(entry)
            removed.append(entry.credential)

        self._update(change)
        with self._mutex:
            self._touched.pop(removed[0].id, None)
        log.info("credential %r revoked", removed[0].name)
        return removed[0]

    def set_mode(self, name: str, mode: str) -> Credential:
        changed = self._replace(name, mode=validate_mode(mode))
        log.info("credential %r now has mode %s", changed.name, changed.mode)
        return changed

    def set_toolset(self, name: str, toolset: str) -> Credential:
        """Which tools `name` sees from now on; its live sessions hear tools/list_changed
        (the MCP notifier notices the change in the file)."""
        changed = self._replace(name, toolset=validate_toolset(toolset))
        log.info("credential %r now has toolset %s", changed.name, changed.toolset)
        return changed

    def _replace(self, name: str, **fields: Any) -> Credential:
        changed: list[Credential] = []

        def change(entries: _Entries) -> None:
            entry = _find_in(entries, name)
            if entry is None:
                raise CredentialError(f"No credential named {name!r}.")
            updated = _Entry(replace(entry.credential, **fields), entry.token)
            entries[entries.index(entry)] = updated
            changed.append(updated.credential)

        self._update(change)
        return changed[0]

    def touch(self, name: str) -> None:
        """Record that `name` was just used. Cheap: reaches the file at most once a minute."""
        now = self._now()
        with self._mutex:
            self._refresh()
            entry = self._find(name)
            if entry is None:
                return
            cred_id = entry.credential.id
            self._touched[cred_id] = now
            last = self._persisted_at.get(cred_id)
            if last is not None and time.monotonic() - last < TOUCH_PERSIST_INTERVAL_S:
                return
            self._persisted_at[cred_id] = time.monotonic()
        try:
            self.flush_last_used()
        except (OSError, LockBusy) as error:
            log.warning("could not record when a credential was last used: %s", error)

    def flush_last_used(self) -> None:
        """Write pending last-used times to the file (also called on shutdown)."""
        with self._mutex:
            pending = dict(self._touched)
        if not pending:
            return

        def change(entries: _Entries) -> None:
            for index, entry in enumerate(entries):
                used = pending.get(entry.credential.id)
                previous = entry.credential.last_used_at
                if used is not None and (previous is None or used > previous):
                    entries[index] = _Entry(replace(entry.credential, last_used_at=used),
                                            entry.token)

        self._update(change)
        with self._mutex:
            for cred_id, used in pending.items():
                if self._touched.get(cred_id) == used:
                    del self._touched[cred_id]

    # -- internals --------------------------------------------------------------------------

    def _now(self) -> datetime:
        return self._clock().replace(microsecond=0)

    def _with_touch(self, credential: Credential) -> Credential:
        used = self._touched.get(credential.id)
        if used is not None and (credential.last_used_at is None or used > credential.last_used_at):
            return replace(credential, last_used_at=used)
        return credential

    def _find(self, name: str) -> _Entry | None:
        return _find_in(self._entries, name)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            check_regular_or_missing(self._lock_path)  # appending to a FIFO would block
        except NotARegularFile as error:
            raise CredentialError(_unusable_message(self._lock_path, error)) from None
        with locked(self._lock_path, LOCK_TIMEOUT_S):
            yield

    def _stat_signature(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        except OSError:
            return (-1, -1, -1)  # cannot even look: read (and fail) once, then stay quiet
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def _refresh(self) -> None:
        """Reload when the file changed since we last read or wrote it. Holds `_mutex`."""
        signature = self._stat_signature()
        if self._loaded and signature == self._signature:
            return
        self._entries = self._read_file()
        self._signature = signature
        self._loaded = True

    def _read_file(self) -> _Entries:
        self._problem = None
        try:
            return self._parse_file()
        except _Unreadable as error:
            self._problem = (f"The credential file {self.path} is damaged ({error}); no AI "
                             "client can connect until a credential is created again.")
            log.error("credential file unreadable (%s); no client can connect until a "
                      "credential is created again", error)
            return []
        except _Unusable as error:
            self._problem = str(error)
            log.error("%s", error)
            return []

    def _parse_file(self) -> _Entries:
        try:
            raw = read_state_file(self.path)
        except FileNotFoundError:
            return []
        except OSError as error:
            if error.errno == errno.EFBIG:  # far bigger than any credential file: damage
                raise _Unreadable("far too big") from None
            raise _Unusable(_unusable_message(self.path, error)) from None
        try:
            data = statejson.loads(raw)
        except statejson.StateFileDamaged as error:
            raise _Unreadable(str(error)) from None
        try:
            entries = [_entry_from_json(item) for item in data["credentials"]]
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise _Unreadable(type(error).__name__) from None
        for entry in entries:
            register_secret(entry.token)
        return entries

    def _update(self, change: Callable[[_Entries], None]) -> None:
        with self._mutex, self._locked():
            try:
                entries = self._parse_file()
            except _Unusable as error:
                raise CredentialError(str(error)) from None
            except _Unreadable:
                # Never overwrite a damaged file: keep it beside itself for inspection.
                backup = self.path.with_name(
                    f"{self.path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
                os.replace(self.path, backup)
                log.error("damaged credential file kept as %s", backup.name)
                entries = []
            change(entries)
            atomic_write_text(self.path, _to_json(entries), mode=FILE_MODE)
            _restrict(self.path)
            self._entries = entries
            self._signature = self._stat_signature()
            self._loaded = True
            self._problem = None


def _unusable_message(path: Path, error: OSError) -> str:
    if isinstance(error, NotARegularFile):
        what = f"is {error.kind}, not a file"
    else:
        what = f"cannot be read ({error.strerror or error})"
    return (f"The credential file {path} {what}: no AI client can connect, and credentials "
            "cannot be created or changed, until it is moved away or fixed.")


def _find_in(entries: _Entries, name: str) -> _Entry | None:
    wanted = unicodedata.normalize("NFC", name).strip().casefold()
    for entry in entries:
        if entry.credential.name.casefold() == wanted:
            return entry
    return None


def _restrict(path: Path) -> None:
    if os.name == "posix":
        os.chmod(path, FILE_MODE)


def _entry_from_json(item: dict[str, Any]) -> _Entry:
    last_used = item.get("lastUsedAt")
    credential = Credential(
        id=str(item["id"]),
        name=str(item["name"]),
        mode=validate_mode(item.get("mode", DEFAULT_MODE)),
        created_at=datetime.fromisoformat(item["createdAt"]),
        last_used_at=datetime.fromisoformat(last_used) if last_used else None,
        toolset=validate_toolset(item.get("toolset", STORED_TOOLSET)),
    )
    token = item["token"]
    if not isinstance(token, str) or len(token) < 16:
        raise ValueError("token missing")
    return _Entry(credential, token)


def _to_json(entries: _Entries) -> str:
    items = [{
        "id": e.credential.id,
        "name": e.credential.name,
        "mode": e.credential.mode,
        "toolset": e.credential.toolset,
        "token": e.token,
        "createdAt": e.credential.created_at.isoformat(),
        "lastUsedAt": e.credential.last_used_at.isoformat() if e.credential.last_used_at else None,
    } for e in entries]
    return json.dumps({"version": FILE_VERSION, "credentials": items}, indent=2) + "\n"
