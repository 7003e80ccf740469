"""Modes → capabilities, toolsets → which commands a credential sees, and the checks every
call passes. Declared as data.

Thread-safe (pure). `read-only` may read; `auto` may also write, move things to the trash,
undo/redo and manage libraries (dangerous commands still need a challenge); `full-access` may
also call plugin tools. A mode only ever adds capabilities to the one below it.

Toolsets (docs/contracts.md §7): `essentials` is the daily loop in at most 25 tools (find, look,
import, tag, rate, move, trash and restore, undo/redo, folders, collections, notify, show in
the window, list and open libraries): the commands declared `essential=True`
(`automation/commands/`); `everything` holds every command. Plugin commands are in
`everything` only, and only for Full Access. `visibility` is the one place that combines a
credential's mode and toolset.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Final, Literal

from serpent_tk.automation.caller import Caller
from serpent_tk.credentials import MODES, TOOLSETS, Mode, Toolset

if TYPE_CHECKING:
    from serpent_tk.automation.registry import CommandSpec

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


# -- toolsets ----------------------------------------------------------------------------

ESSENTIALS_LIMIT = 25  # client tool choice degrades past ~30 tools; Cursor once sent only 40

# What Settings → MCP, the CLI's help, the server instructions and docs/mcp.md say.
TOOLSET_SUMMARY: dict[Toolset, str] = {
    "essentials": "the everyday tools: find, look (contact sheets), import, tag, rate and "
                  "note, move into folders, trash and restore, undo/redo, folders, tags, "
                  "collections, duplicates, notify, show in the window, list and open "
                  "libraries",
    "everything": "every tool, also renaming and deleting folders, tags and collections, "
                  "linked folders, library management (create, rename, export, delete), "
                  "history, analysis and background tasks",
}

# listed: in tools/list and callable. unlisted: the mode is too low, so not listed, but a
# call answers PERMISSION_DENIED (a tool result). hidden: answered exactly like an unknown
# tool (JSON-RPC -32602).
Visibility = Literal["listed", "unlisted", "hidden"]


def holds(toolset: str, spec: CommandSpec) -> bool:
    """Whether `toolset` holds the command (an unknown toolset holds nothing)."""
    if toolset == "everything":
        return True
    return toolset == "essentials" and spec.essential


def visibility(spec: CommandSpec, mode: str, toolset: str, *,
               exposed: bool = True) -> Visibility:
    """What a credential in `mode` with `toolset` sees of the command: the only place that
    combines mode, toolset and the plugin rule (plugin commands: Full Access only, and only
    while their plugin is `exposed` to MCP; Serpent's internal commands: never)."""
    if spec.internal or (spec.plugin_id is not None and (mode != "full-access"
                                                         or not exposed)):
        return "hidden"
    if not holds(toolset, spec) or toolset not in TOOLSETS:
        return "hidden"
    if not mode_allows(mode, spec.min_mode):
        return "unlisted"
    return "listed"
