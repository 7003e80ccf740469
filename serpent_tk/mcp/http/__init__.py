"""The MCP server's HTTP edge: listener and connection limits, guard, client rooms, identify.

Runs in the main process, on the MCP thread's asyncio loop (listener start/stop: any thread).
The guard checks Host, Origin and the bearer token; each credential's room bounds its sessions
and requests and cuts a revoked one; identify proves the server to the bridge.
"""
