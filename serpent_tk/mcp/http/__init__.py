"""The MCP server's HTTP edge: loopback listener, Host/Origin/bearer guard, identify proof.

Runs in the main process, on the MCP thread's asyncio loop (listener start/stop: any thread).
"""
