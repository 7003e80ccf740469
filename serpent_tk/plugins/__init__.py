"""Plugins: finding them, the process that runs their code, and the side that isolates it.

Discovery, the manager and the supervisor run in the main process (the CLI reads manifests
too, without running plugin code); `api` and `host/` run in a plugin's own host process,
never on the Tk thread or the MCP event loop. docs/plugins.md's “Writing a plugin” is for authors.
"""
