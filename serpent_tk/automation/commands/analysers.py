"""Registry declarations of the commands behind plugin analysers (internal: never MCP tools,
called for plugins only; `library/worker/commands/analysers.py` says what they do).

Thread-safe (data only).
"""

from __future__ import annotations

from serpent_tk.automation.commands.examples import A1, LIB
from serpent_tk.automation.registry import CommandSpec, command

COMMANDS: list[CommandSpec] = [
    command(
        "analyser.pending",
        "List the assets a plugin analyser has not looked at yet (in its version).",
        "assetIds, more.",
        {"libraryId": LIB, "analyser": "ocr-text/read-text", "version": 1,
         "kinds": ["image"]},
        title="Pending for an analyser", internal=True),
    command(
        "analyser.record",
        "Record the text a plugin analyser found in assets (searchable, shown with them).",
        "recorded, changed.",
        {"libraryId": LIB, "analyser": "ocr-text/read-text", "version": 1,
         "found": {A1: "夏日音乐节 Summer Music Festival"}},
        title="Record analyser findings", internal=True),
]
