"""Serpent's embedded MCP server: Streamable HTTP on 127.0.0.1, tools from the registry.

The only package that imports the MCP SDK, starlette, uvicorn and httpx2. The server runs on
its own thread with its own asyncio loop (`listener.py`); everything it does for a client goes
through the automation gateway, exactly like a click in the window.
"""
