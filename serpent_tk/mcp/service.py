"""`McpService`: start, stop and watch the embedded MCP server (the desktop app and `serve`).

Thread-safe: every method may be called from any thread (the Tk thread included: start and
stop return within about two seconds and never raise). Status changes are posted through the
`on_status` callback, on whatever thread they happen; the callback must not block (the window
posts the status to its UiBus). No Tk here.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from serpent_tk.credentials import Credential, CredentialStore
from serpent_tk.mcp.apps.search_app import tool_meta
from serpent_tk.mcp.endpoint import Endpoint, new_secret, publish, unpublish
from serpent_tk.mcp.http.listener import Listener, ListenerFailed, PortInUse
from serpent_tk.mcp.notifier import Notifier, SessionInfo
from serpent_tk.mcp.server import build_app
from serpent_tk.mcp.tools.budget import Budget
from serpent_tk.mcp.tools.catalogue import Catalogue
from serpent_tk.mcp.tools.continuations import Continuations

log = logging.getLogger(__name__)

State = Literal["stopped", "running", "error"]
RECENT_CLIENT_S = 120.0  # a client without a session counts as connected this long
STATUS_THROTTLE_S = 1.0
DEFAULT_BUDGET_KIB = 128


@dataclass(frozen=True)
class McpStatus:
    """What Settings → MCP shows. Immutable; a new one is posted on every change."""

    state: State = "stopped"
    port: int | None = None
    url: str | None = None
    clients: tuple[str, ...] = ()  # credential names with a live session or a recent request
    sessions: int = 0  # live handshake-era sessions
    last_request_at: datetime | None = None
    last_request_by: str | None = None  # audit label of the newest caller: "Cursor via MCP"
    last_error: str | None = None
    port_in_use: bool = False  # last_error is a taken port: offer to pick another one

    @property
    def running(self) -> bool:
        return self.state == "running"

    @property
    def clients_connected(self) -> int:
        return len(self.clients)


@dataclass
class _Activity:
    recent: dict[str, float] = field(default_factory=dict)  # credential name -> monotonic
    last_request_at: datetime | None = None
    last_request_by: str | None = None
    last_posted: float = 0.0


class McpService:
    """Owns at most one running listener. Build once; start/stop as often as needed."""

    def __init__(self, gateway: Any, credentials: CredentialStore, *, port: int,
                 output_budget_kib: int = DEFAULT_BUDGET_KIB,
                 on_status: Callable[[McpStatus], None] | None = None,
                 endpoint_file: Path | None = None) -> None:
        self.gateway = gateway
        self.credentials = credentials
        self.port = port
        self.output_budget_kib = output_budget_kib
        self.endpoint_file = endpoint_file
        self._on_status = on_status
        self._control = threading.Lock()  # serializes start/stop (held while they run)
        self._lock = threading.RLock()  # guards the fields below; never held while waiting
        self._listener: Listener | None = None
        self._endpoint: Endpoint | None = None  # what this run published
        self._notifier: Notifier | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._status = McpStatus()
        self._activity = _Activity()
        self.catalogue = Catalogue(gateway.registry, tool_meta(),
                                   getattr(gateway, "exposure", None))
        self.continuations = Continuations()  # rests of cut answers; outlive a restart

    # -- control ----------------------------------------------------------------------------

    @property
    def status(self) -> McpStatus:
        with self._lock:
            return self._status

    def start(self, port: int | None = None, *,
              before_listening: Callable[[], object] | None = None) -> McpStatus:
        """Listen on 127.0.0.1 (`port`, else the configured one; 0 = any free port).

        Order: bind the port (a taken port fails here, at once), run `before_listening`
        (`serve` opens the libraries it reopens, so the first request already finds them),
        publish the endpoint file with a new per-run secret, then accept connections.
        Never raises: a taken port or another failure ends in state "error" with a message
        naming the port (`status.port_in_use` says which kind).
        """
        with self._control:
            with self._lock:
                if self._listener is not None:
                    return self._status
            wanted = self.port if port is None else port
            try:
                listener = Listener(wanted)
            except PortInUse as error:
                return self._post(McpStatus(state="error", port=wanted, last_error=str(error),
                                            port_in_use=True))
            except ListenerFailed as error:
                return self._post(McpStatus(state="error", port=wanted, last_error=str(error)))
            if before_listening is not None:
                try:
                    before_listening()
                except Exception:
                    log.exception("preparing the MCP start failed; starting anyway")
            endpoint = Endpoint(port=listener.port, pid=os.getpid(), secret=new_secret())
            notifier = Notifier(self.credentials, on_sessions_changed=self._sessions_changed)
            app = build_app(gateway=self.gateway, credentials=self.credentials,
                            catalogue=self.catalogue, notifier=notifier, budget=self._budget,
                            continuations=self.continuations,
                            port=listener.port, secret=endpoint.secret,
                            on_request=self._request_seen)
            with self._lock:
                self._listener, self._notifier = listener, notifier
                self._activity = _Activity()
            self._publish(endpoint)  # before the socket accepts: nobody sees it without it
            try:
                listener.start(app)
            except (ListenerFailed, PortInUse) as error:
                with self._lock:
                    self._listener = self._notifier = None
                self._unpublish()
                listener.stop()
                return self._post(McpStatus(state="error", port=listener.port,
                                            last_error=str(error),
                                            port_in_use=isinstance(error, PortInUse)))
            self._unsubscribe = self.gateway.subscribe(notifier.publish)
            log.info("MCP server listening on %s", listener.url)
            return self._post(McpStatus(state="running", port=listener.port, url=listener.url))

    def stop(self) -> McpStatus:
        """Stop listening (open streams end at once). Idempotent."""
        with self._control:
            with self._lock:
                listener, self._listener = self._listener, None
                self._notifier = None
                last_request_at = self._activity.last_request_at
                last_request_by = self._activity.last_request_by
            unsubscribe, self._unsubscribe = self._unsubscribe, None
            if listener is None:
                return self.status
            if unsubscribe is not None:
                unsubscribe()
            self._unpublish()  # first: a bridge must not find a server that is going away
            stopped = listener.stop()
            try:
                self.credentials.flush_last_used()
            except Exception as error:  # a locked or read-only file must not block a stop
                log.warning("could not record last-used times: %s", error)
            problem = None if stopped else "The MCP server did not stop in time."
            log.info("MCP server on port %d stopped", listener.port)
            return self._post(McpStatus(state="stopped", port=listener.port,
                                        last_request_at=last_request_at,
                                        last_request_by=last_request_by, last_error=problem))

    def restart(self, port: int | None = None) -> McpStatus:
        """Stop, then start again (e.g. after the port changed in Settings)."""
        self.stop()
        return self.start(port)

    def sessions(self) -> list[SessionInfo]:
        """The handshake-era clients connected right now (client name, version, Apps)."""
        with self._lock:
            notifier = self._notifier
        return notifier.sessions() if notifier is not None else []

    def set_output_budget(self, kib: int) -> None:
        """Applies to the next tool call."""
        self.output_budget_kib = kib

    # -- internals --------------------------------------------------------------------------

    def _budget(self) -> Budget:
        return Budget.from_kib(self.output_budget_kib)

    def _post(self, status: McpStatus) -> McpStatus:
        with self._lock:
            self._status = status
        if self._on_status is not None:
            try:
                self._on_status(status)
            except Exception:
                log.exception("MCP status listener failed")
        return status

    def _clients(self, now: float) -> tuple[str, ...]:
        notifier = self._notifier
        names = set(notifier.session_credentials()) if notifier is not None else set()
        names.update(n for n, seen in self._activity.recent.items()
                     if now - seen < RECENT_CLIENT_S)
        return tuple(sorted(names, key=str.casefold))

    def _request_seen(self, credential: Credential) -> None:
        """Listener loop, once per authenticated HTTP request. Never blocks."""
        now = time.monotonic()
        with self._lock:
            if self._listener is None:
                return
            activity = self._activity
            newcomer = credential.name not in activity.recent or (
                now - activity.recent[credential.name] >= RECENT_CLIENT_S)
            activity.recent[credential.name] = now
            activity.last_request_at = datetime.now(UTC)
            changed_caller = activity.last_request_by != credential.label
            activity.last_request_by = credential.label
            due = newcomer or changed_caller or now - activity.last_posted >= STATUS_THROTTLE_S
            if due:
                activity.last_posted = now
                status = replace(self._status, clients=self._clients(now),
                                 sessions=self._notifier.session_count if self._notifier else 0,
                                 last_request_at=activity.last_request_at,
                                 last_request_by=activity.last_request_by)
        if due:
            # The credential file may be locked by the CLI for a moment: never wait on the loop.
            threading.Thread(target=self._touch, args=(credential.name,), daemon=True,
                             name="mcp-credential-touch").start()
            self._post(status)

    def _touch(self, name: str) -> None:
        try:
            self.credentials.touch(name)
        except Exception as error:
            log.warning("could not record that %r was used: %s", name, error)

    def _sessions_changed(self, count: int) -> None:
        with self._lock:
            if self._listener is None:
                return
            status = replace(self._status, sessions=count,
                             clients=self._clients(time.monotonic()))
        self._post(status)

    def _publish(self, endpoint: Endpoint) -> None:
        """Tell this user's other processes (the bridge, `mcp-config`) where we listen."""
        self._endpoint = endpoint
        if self.endpoint_file is None:
            return
        try:
            publish(self.endpoint_file, endpoint)
        except OSError as error:
            log.warning("could not write %s: %s", self.endpoint_file.name, error)

    def _unpublish(self) -> None:
        endpoint, self._endpoint = self._endpoint, None
        if self.endpoint_file is None or endpoint is None:
            return
        try:
            unpublish(self.endpoint_file, endpoint)
        except OSError as error:
            log.warning("could not remove %s: %s", self.endpoint_file.name, error)
