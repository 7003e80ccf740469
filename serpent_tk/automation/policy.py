"""Modes → capabilities, and the check every call passes. Declared as data.

Thread-safe (pure). `read-only` may read; `auto` may also write, move things to the trash,
undo/redo and manage libraries (dangerous commands still need a challenge); `full-access` may
also call plugin tools. A mode only ever adds capabilities to the one below it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from serpent_tk.automation.caller import Caller
from serpent_tk.credentials import MODES, Mode

LIBRARY_READ: Final = "library.read"  # look at libraries, assets, tags, folders, history
LIBRARY_WRITE: Final = "library.write"  # change library content (incl. trash and delete)
HISTORY_WRITE: Final = "history.write"  # undo / redo
LIBRARY_MANAGE: Final = "library.manage"  # create, close, rename, export, delete libraries
UI_NOTIFY: Final = "ui.notify"  # show a toast in the window
PLUGIN_INVOKE: Final = "plugin.invoke"  # call a plugin's commands

CAPABILITIES: Final = (LIBRARY_READ, LIBRARY_WRITE, HISTORY_WRITE, LIBRARY_MANAGE, UI_NOTIFY,
                       PLUGIN_INVOKE)

MODE_CAPABILITIES: Final[dict[str, frozenset[str]]] = {
    "read-only": frozenset({LIBRARY_READ, UI_NOTIFY}),
    "auto": frozenset({LIBRARY_READ, UI_NOTIFY, LIBRARY_WRITE, HISTORY_WRITE, LIBRARY_MANAGE}),
    "full-access": frozenset({LIBRARY_READ, UI_NOTIFY, LIBRARY_WRITE, HISTORY_WRITE,
                              LIBRARY_MANAGE, PLUGIN_INVOKE}),
}


def capabilities_of(mode: str) -> frozenset[str]:
    return MODE_CAPABILITIES.get(mode, frozenset())


def lowest_mode(required: Iterable[str]) -> Mode:
    """The least powerful mode holding every capability in `required`."""
    needed = frozenset(required)
    for mode in MODES:
        if needed <= MODE_CAPABILITIES[mode]:
            return mode
    raise ValueError(f"no mode grants {sorted(needed)}")


def missing_capabilities(caller: Caller, required: Iterable[str]) -> list[str]:
    """What `caller` lacks for a command needing `required` (empty: allowed)."""
    held = capabilities_of(caller.mode)
    return sorted(c for c in required if c not in held)


def mode_allows(mode: str, min_mode: str) -> bool:
    return mode in MODES and MODES.index(mode) >= MODES.index(min_mode)
