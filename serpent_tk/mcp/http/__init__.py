"""The MCP server's HTTP edge: loopback listener with its connection limits, Host/Origin/bearer
guard, room per credential (sessions, requests, revocation), identify proof.

Runs in the main process, on the MCP thread's asyncio loop (listener start/stop: any thread).
"""
