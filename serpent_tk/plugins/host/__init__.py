"""The plugin host: the process that imports one plugin's module and runs its code.

Runs in its own process (multiprocessing spawn), one per enabled plugin, so a plugin that
crashes, hangs or leaks takes only itself down. Imports no Tk and no MCP.
"""
