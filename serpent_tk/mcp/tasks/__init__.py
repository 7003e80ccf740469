"""MCP tasks: long tool calls that an AI client runs in the background and polls.

Imports, analysis, exports and unpacking, in the 2025-11-25 experimental form and as the
2026-07-28 extension `io.modelcontextprotocol/tasks`. Runs on the listener loop (`runner.py`).
"""
