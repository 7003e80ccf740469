"""Serpent (Tk edition): a desktop asset library for artists with an embedded MCP server.

Main process and bootstrap: importing this package must stay free of third-party imports,
since the bootstrap runs with the system Python before anything is installed.
"""

__version__ = "0.1.0"
APP_NAME = "Serpent"
