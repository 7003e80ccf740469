"""MCP tasks: long tool calls (imports, analysis, exports, unpacking) that an AI client runs
in the background and polls, in the 2025-11-25 experimental form and as the 2026-07-28
extension `io.modelcontextprotocol/tasks`. Runs on the listener loop (see `runner.py`).
"""
