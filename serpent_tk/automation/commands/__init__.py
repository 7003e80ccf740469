"""The built-in commands' registry declarations, one module per domain. Main process.

The declarations are data (thread-safe). A worker command's `command(name, ...)` adds to its
one declaration in `library.catalogue` (models, risk, words, worker function) only what MCP
and the window need; a `gateway_command(...)` declares a command the main process answers
itself, whole, and the `library` module here holds those handlers, which run as the
gateway's steps. `build_registry` makes the
registry of them all (here, not in `registry`, which every declaration imports).
"""

from __future__ import annotations

from serpent_tk.automation.registry import Registry


def build_registry() -> Registry:
    """The registry of the built-in catalogue (docs/contracts.md §1)."""
    from serpent_tk.automation.commands import analysers, assets, history, library, organize

    return Registry([*library.COMMANDS, *assets.COMMANDS, *organize.COMMANDS,
                     *history.COMMANDS, *analysers.COMMANDS])
