"""MCP Apps (`io.modelcontextprotocol/ui`): the pages hosts render and their tool bindings.

Thread-safe (constants, package data read once); the pages run in the host's iframe.
"""
