"""What a call risks, spelled once: the risk class of every command, Serpent's own (the
catalogue) and a plugin's (its declaration). It decides the gateway's challenge (dangerous)
and the capabilities and MCP hints a command gets by default.

Imported by both processes and by plugin hosts (data only; thread-safe). Kept out of
`library.catalogue`, which loads every command's models, so a plugin host stays light.
"""

from __future__ import annotations

from typing import Literal

Risk = Literal["read", "normal", "recoverable", "dangerous"]
