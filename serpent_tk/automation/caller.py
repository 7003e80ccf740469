"""Who is calling the gateway: source, credential name, mode and the audit label.

Thread-safe (immutable). The source is only an audit label: it never changes validation or
effects. The mode decides which capabilities the call has (see `policy.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from serpent_tk.credentials import Mode  # a credential's mode, declared there once

Source = Literal["ui", "mcp", "plugin", "cli"]

SOURCES: tuple[str, ...] = get_args(Source)

UI_LABEL = "You"
PLUGIN_LABEL_PREFIX = "plugin:"
MAX_LABEL_LENGTH = 120


@dataclass(frozen=True)
class Caller:
    source: Source
    mode: Mode
    credential: str | None  # credential NAME, never a token
    label: str  # audit label: "You", "Claude Desktop via MCP"
    ticket: str | None = None  # names this call's work on its progress events (an MCP task)

    @classmethod
    def ui(cls) -> Caller:
        """The person at the window: full powers, label "You"."""
        return cls(source="ui", mode="full-access", credential=None, label=UI_LABEL)

    @classmethod
    def mcp(cls, credential: str, mode: Mode, client_name: str | None = None) -> Caller:
        """An AI client authenticated with the credential called `credential`."""
        label = f"{client_name or credential} via MCP"
        return cls(source="mcp", mode=mode, credential=credential, label=label)

    @classmethod
    def cli(cls, mode: Mode = "full-access") -> Caller:
        return cls(source="cli", mode=mode, credential=None, label="Command line")

    @classmethod
    def plugin(cls, plugin_id: str) -> Caller:
        """A plugin acting through the API it is handed (label `plugin:<id>`). Plugins are
        code the person installed: they act with the person's powers, dangerous commands
        still need their challenge."""
        return cls(source="plugin", mode="full-access", credential=None,
                   label=f"{PLUGIN_LABEL_PREFIX}{plugin_id}")

    @property
    def plugin_id(self) -> str | None:
        """The plugin acting, for a plugin's call."""
        if self.source != "plugin" or not self.label.startswith(PLUGIN_LABEL_PREFIX):
            return None
        return self.label.removeprefix(PLUGIN_LABEL_PREFIX)

    @property
    def key(self) -> str:
        """What a dangerous-command challenge is bound to: the credential, the plugin, or
        the source."""
        if self.credential:
            return f"credential:{self.credential}"
        return f"plugin:{self.plugin_id}" if self.plugin_id else f"source:{self.source}"
