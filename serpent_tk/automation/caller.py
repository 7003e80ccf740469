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
MAX_LABEL_LENGTH = 120


@dataclass(frozen=True)
class Caller:
    source: Source
    mode: Mode
    credential: str | None  # credential NAME, never a token
    label: str  # audit label: "You", "Claude Desktop via MCP"

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

    @property
    def key(self) -> str:
        """What a dangerous-command challenge is bound to: the credential, or the source."""
        return f"credential:{self.credential}" if self.credential else f"source:{self.source}"
